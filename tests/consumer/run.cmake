# Installs the build into a scratch prefix, builds tests/consumer against it and runs it.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
    message(FATAL_ERROR "install failed: ${rc}")
endif()
set(flags "")
if(SANITIZE)
    set(flags "-fsanitize=${SANITIZE}") # the library was built with them
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_CXX_FLAGS=${flags}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
    message(FATAL_ERROR "configure failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
    message(FATAL_ERROR "build failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer ${SAVE} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "^spark_save v3\n$")
    message(FATAL_ERROR "consumer exited with ${rc}, printing \"${out}\" (expected spark_save v3)")
endif()

# The installed headers on an older standard: one clear error (version.hpp), not a failure deep
# inside a header.
execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -I${WORK_DIR}/prefix/include
                        ${SOURCE_DIR}/main.cpp
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
string(FIND "${err}" "sparksave needs C++20" at)
if(rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "a C++17 build of the consumer did not stop with \"sparksave needs C++20\": ${err}")
endif()
string(REGEX MATCH "error:[^\n]*" first "${err}")
if(NOT first MATCHES "sparksave needs C\\+\\+20")
    message(FATAL_ERROR "the first error of a C++17 build is not sparksave's: ${first}")
endif()
message("C++17: ${first}")

# pkg-config: the installed sparksave.pc builds and links the same consumer.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
    set(ENV{PKG_CONFIG_PATH} ${WORK_DIR}/prefix/lib/pkgconfig)
    execute_process(COMMAND ${PKG_CONFIG} --cflags --libs sparksave RESULT_VARIABLE rc
                    OUTPUT_VARIABLE pc_flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc)
        message(FATAL_ERROR "pkg-config sparksave failed: ${err}")
    endif()
    separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
    execute_process(COMMAND ${CXX} ${flags} ${SOURCE_DIR}/main.cpp ${pc_flags}
                            -o ${WORK_DIR}/consumer_pc
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(rc)
        message(FATAL_ERROR "build with pkg-config's flags failed: ${err}")
    endif()
    execute_process(COMMAND ${WORK_DIR}/consumer_pc ${SAVE} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "^spark_save v3\n$")
        message(FATAL_ERROR "the pkg-config consumer exited with ${rc}, printing \"${out}\"")
    endif()
    message("pkg-config: ${out}")
else()
    message("pkg-config: not installed, sparksave.pc not tried")
endif()
