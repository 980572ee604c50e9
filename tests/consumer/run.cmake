# Installs sparksave into a scratch prefix, Release and Debug side by side, builds tests/consumer
# against it in both configurations and runs it: main.cpp (a save's metadata), the
# engine-shaped SaveSystem's test (engine_consumer) and sparksave(3)'s EXAMPLE (man_example,
# whose source must be the man page's example, character for character).
#
# The Debug consumer is built with -D_GLIBCXX_DEBUG (an engine's Debug build), which changes the
# layout of the standard containers: it needs a Debug library built the same way. BUILD_DIR's
# own library has neither that nor, in the dev preset, Release; the two libraries are built
# here, library only, in LIB_DIR (kept between runs, so a rerun rebuilds only what changed).
#
# -D: BUILD_DIR BUILD_TYPE BUILD_SHARED PROJECT_DIR SOURCE_DIR WORK_DIR LIB_DIR SAVE TESTDATA MAN_PAGE
#     SANITIZE CXX LAUNCHER
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
    set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(flags "")
if(SANITIZE)
    set(flags "-fsanitize=${SANITIZE}") # the library was built with them
endif()
set(common -G Ninja -DCMAKE_CXX_COMPILER=${CXX})
if(LAUNCHER)
    list(APPEND common -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

# The library of one configuration, built (library only: no CLI11, no tests; a unity build, as
# package/run.cmake's) and installed.
function(install_library config cxx_flags)
    set(tree ${LIB_DIR}/${config})
    run("configuring the ${config} library" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${tree}
        ${common} -DCMAKE_BUILD_TYPE=${config} "-DCMAKE_CXX_FLAGS=${cxx_flags}"
        -DSPARKSAVE_BUILD_APP=OFF -DSPARKSAVE_BUILD_TESTS=OFF -DSPARKSAVE_BUILD_BENCH=OFF
        -DSPARKSAVE_SANITIZE=${SANITIZE} -DCMAKE_UNITY_BUILD=ON)
    run("building the ${config} library" ${CMAKE_COMMAND} --build ${tree} --target sparksave -j 2)
    run("installing the ${config} library" ${CMAKE_COMMAND} --install ${tree} --prefix ${prefix})
endfunction()

# The Debug library for _GLIBCXX_DEBUG, then the Release library, last, so sparksave.pc (the
# last installed) names it. A static Release build's own install is that library (a shared
# build's is not: its package has only the API's headers, package/shared checks it).
install_library(Debug "${flags} -D_GLIBCXX_DEBUG")
if(BUILD_TYPE STREQUAL "Release" AND NOT BUILD_SHARED)
    run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
else()
    install_library(Release "${flags}")
endif()
foreach(file lib/libsparksave.a lib/libsparksaved.a share/man/man3/sparksave.3)
    if(NOT EXISTS ${prefix}/${file})
        message(FATAL_ERROR "not installed: ${file}")
    endif()
endforeach()

# sparksave(3)'s EXAMPLE is example.cpp: the lines between .EX and .EE after the SH EXAMPLE
# heading, with the man page's escapes (\- \e \(aq) read back.
file(READ ${MAN_PAGE} man)
string(REGEX MATCH "\n\\.SH EXAMPLE\n[^\n]*(\n[^\n]*)*" example_section "${man}")
string(REGEX MATCH "\n\\.EX\n(.*)\n\\.EE\n" example "${example_section}")
if(NOT example)
    message(FATAL_ERROR "${MAN_PAGE}: no .EX ... .EE after .SH EXAMPLE")
endif()
set(example "${CMAKE_MATCH_1}\n")
string(REPLACE "\\-" "-" example "${example}")
string(REPLACE "\\(aq" "'" example "${example}")
string(REPLACE "\\e" "\\" example "${example}")
file(READ ${SOURCE_DIR}/example.cpp example_cpp)
if(NOT example STREQUAL example_cpp)
    file(WRITE ${WORK_DIR}/example-from-man.cpp "${example}")
    message(FATAL_ERROR "the EXAMPLE of ${MAN_PAGE} is not ${SOURCE_DIR}/example.cpp: "
                        "diff ${WORK_DIR}/example-from-man.cpp ${SOURCE_DIR}/example.cpp")
endif()

foreach(config Release Debug)
    set(build ${WORK_DIR}/build-${config})
    set(config_flags "${flags}")
    set(library libsparksave.a)
    if(config STREQUAL "Debug")
        string(APPEND config_flags " -D_GLIBCXX_DEBUG")
        set(library libsparksaved.a)
    endif()
    run("configuring the ${config} consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build}
        ${common} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${config}
        "-DCMAKE_CXX_FLAGS=${config_flags}")
    run("building the ${config} consumer" ${CMAKE_COMMAND} --build ${build} --verbose -j 2)
    # The package picked the library of the consumer's configuration.
    if(NOT run_output MATCHES "/${library}( |\n|$)" OR (config STREQUAL "Release" AND run_output MATCHES "libsparksaved\\.a"))
        message(FATAL_ERROR "the ${config} consumer did not link ${library}:\n${run_output}")
    endif()

    run("${config} consumer" ${build}/consumer ${SAVE})
    if(NOT run_output MATCHES "^spark_save v3\n$")
        message(FATAL_ERROR "the ${config} consumer printed \"${run_output}\" (expected spark_save v3)")
    endif()
    run("${config} engine_consumer" ${build}/engine_consumer ${TESTDATA} ${WORK_DIR}/saves-${config})
    message("${config}: ${run_output}")
    run("${config} man_example" ${build}/man_example ${WORK_DIR}/example-${config})
    set(expected "slot1: Before Boss Fight, Level03, 3723.5 s\nPlayer: Transform(2) HealthComponent(1)\nSword: Transform(1)\nbackup used: no\n")
    if(NOT run_output STREQUAL expected)
        message(FATAL_ERROR "sparksave(3)'s example (${config}) printed:\n${run_output}expected:\n${expected}")
    endif()
endforeach()

# The installed headers on an older standard: one clear error (version.hpp), not a failure deep
# inside a header; for every source of the consumer.
foreach(source main.cpp save_system.cpp test_save_system.cpp example.cpp)
    execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -I${prefix}/include
                            ${SOURCE_DIR}/${source}
                    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
    string(FIND "${err}" "sparksave needs C++20" at)
    if(rc EQUAL 0 OR at EQUAL -1)
        message(FATAL_ERROR "a C++17 build of ${source} did not stop with \"sparksave needs C++20\": ${err}")
    endif()
    string(REGEX MATCH "error:[^\n]*" first "${err}")
    if(NOT first MATCHES "sparksave needs C\\+\\+20")
        message(FATAL_ERROR "the first error of a C++17 build of ${source} is not sparksave's: ${first}")
    endif()
    message("C++17 ${source}: ${first}")
endforeach()

# pkg-config: the installed sparksave.pc builds and links the same consumer (Release).
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
    set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
    execute_process(COMMAND ${PKG_CONFIG} --cflags --libs sparksave RESULT_VARIABLE rc
                    OUTPUT_VARIABLE pc_flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc)
        message(FATAL_ERROR "pkg-config sparksave failed: ${err}")
    endif()
    separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
    separate_arguments(pc_cxx_flags UNIX_COMMAND "${flags}")
    foreach(program consumer:main.cpp engine_consumer:test_save_system.cpp+save_system.cpp)
        string(REPLACE ":" ";" parts "${program}")
        list(GET parts 0 name)
        list(GET parts 1 sources)
        string(REPLACE "+" ";" sources "${sources}")
        list(TRANSFORM sources PREPEND ${SOURCE_DIR}/)
        run("building ${name} with pkg-config's flags" ${CXX} ${pc_cxx_flags} ${sources}
            ${pc_flags} -o ${WORK_DIR}/${name}_pc)
    endforeach()
    run("the pkg-config consumer" ${WORK_DIR}/consumer_pc ${SAVE})
    if(NOT run_output MATCHES "^spark_save v3\n$")
        message(FATAL_ERROR "the pkg-config consumer printed \"${run_output}\"")
    endif()
    run("the pkg-config engine_consumer" ${WORK_DIR}/engine_consumer_pc ${TESTDATA}
        ${WORK_DIR}/saves-pc)
    message("pkg-config: ${run_output}")
else()
    message("pkg-config: not installed, sparksave.pc not tried")
endif()
