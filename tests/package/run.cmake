# Builds the library alone into a scratch directory as an engine would (README "Packaging"),
# installs it, checks the install, and builds and runs tests/package/consumer against it.
#   MODE=formats: -DSPARKSAVE_FORMATS=spark_save, a static library holding no symbol of another
#                 format.
#   MODE=shared:  -DBUILD_SHARED_LIBS=ON: libsparksave.so exports the API (SPARKSAVE_API,
#                 sparksave/save_file.hpp, content_rules.hpp and error.hpp) and nothing else.
# Both: no installed header includes Boost, and the package does not name it (a private,
# build-time dependency).
# SPARKSAVE_KEEP_SCRATCH=1 keeps WORK_DIR (it is emptied at the start of each run anyway).
file(REMOVE_RECURSE ${WORK_DIR})

set(args -DSPARKSAVE_BUILD_APP=OFF -DSPARKSAVE_BUILD_TESTS=OFF -DSPARKSAVE_BUILD_BENCH=OFF
         -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX}
         -DSPARKSAVE_WERROR=${WERROR} -DSPARKSAVE_SANITIZE=${SANITIZE}
         # A unity build: the same sources in fewer translation units, about 3x faster to build
         # (this test checks the package, not each file alone: the dev build does that).
         -DCMAKE_UNITY_BUILD=ON)
if(LAUNCHER)
    list(APPEND args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(MODE STREQUAL "formats")
    list(APPEND args -DSPARKSAVE_FORMATS=spark_save)
elseif(MODE STREQUAL "shared")
    list(APPEND args -DBUILD_SHARED_LIBS=ON)
else()
    message(FATAL_ERROR "MODE must be formats or shared, not \"${MODE}\"")
endif()

function(run what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
endfunction()

run("configure of the library" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK_DIR}/build -G Ninja
    ${args})
run("build of the library" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("install" ${CMAKE_COMMAND} --install ${WORK_DIR}/build --prefix ${WORK_DIR}/prefix)

# Boost: no installed header includes it and the package's files do not name it.
file(GLOB_RECURSE headers ${WORK_DIR}/prefix/include/*)
foreach(header IN LISTS headers)
    file(STRINGS ${header} boost REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]boost/")
    if(boost)
        message(FATAL_ERROR "${header} includes Boost: ${boost}")
    endif()
endforeach()
file(GLOB_RECURSE package_files ${WORK_DIR}/prefix/lib*/cmake/* ${WORK_DIR}/prefix/lib*/pkgconfig/*)
foreach(file IN LISTS package_files)
    file(STRINGS ${file} boost REGEX "[Bb]oost")
    if(boost)
        message(FATAL_ERROR "${file} names Boost: ${boost}")
    endif()
endforeach()

file(GLOB library ${WORK_DIR}/prefix/lib*/libsparksave*.a ${WORK_DIR}/prefix/lib*/libsparksave*.so)
list(LENGTH library count)
if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected one installed library, found: ${library}")
endif()

# The library's symbols: every sparksave name, ABI namespace dropped, one a line.
function(sparksave_symbols out)
    execute_process(COMMAND ${NM} --demangle ${ARGN} ${library} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
    if(rc)
        message(FATAL_ERROR "${NM} ${library} failed: ${err}")
    endif()
    string(REGEX MATCHALL "[^\n]*sparksave::[^\n]*" lines "${symbols}")
    list(TRANSFORM lines REPLACE "^[0-9a-f]* *[A-Za-z] " "")
    list(TRANSFORM lines REPLACE "sparksave::${ABI}::" "")
    set(${out} "${lines}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "formats")
    # Every symbol, defined or referenced: another format's reader or migration step has no
    # business in a spark_save-only library.
    sparksave_symbols(symbols)
    set(leaks "")
    foreach(symbol IN LISTS symbols)
        if(symbol MATCHES "(text_archive|spark_kv|tess_world|gmsv)(::|_v[0-9])")
            list(APPEND leaks "${symbol}")
        endif()
    endforeach()
    if(leaks)
        list(REMOVE_DUPLICATES leaks)
        string(REPLACE ";" "\n" leaks "${leaks}")
        message(FATAL_ERROR "symbols of formats left out of SPARKSAVE_FORMATS in ${library}:\n${leaks}")
    endif()
    set(ours ${symbols})
    list(FILTER ours INCLUDE REGEX "spark_save::")
    list(LENGTH ours count)
    if(count LESS 50)
        message(FATAL_ERROR "only ${count} spark_save symbols in ${library}: is it the library?")
    endif()
    message("${library}: ${count} spark_save symbols, none of another format")
else()
    # The exported (dynamic) symbols: only the API's. Everything declared SPARKSAVE_API in
    # sparksave/save_file.hpp, content_rules.hpp and error.hpp, and nothing else of sparksave.
    sparksave_symbols(symbols --dynamic --defined-only)
    set(api_regex "^(spark_save::(read_metadata|upgrade|slot_file_kind|is_valid_slot_name|slot_role|list_slots|write_slot|load_slot|SaveView::[a-z_]+|SaveWriter::(~?[A-Za-z_]+|operator=))|RuleSet::[a-z_]+|code_name|severity_name|Error::describe|make_error|Findings::[a-z_]+|bad_result_access)[[(]|^Findings::k_max_kept$")
    set(leaks "")
    foreach(symbol IN LISTS symbols)
        if(NOT symbol MATCHES "${api_regex}")
            list(APPEND leaks "${symbol}")
        endif()
    endforeach()
    if(leaks)
        string(REPLACE ";" "\n" leaks "${leaks}")
        message(FATAL_ERROR "${library} exports internal symbols (shown without sparksave::${ABI}::):\n${leaks}")
    endif()
    foreach(api IN ITEMS "spark_save::read_metadata\\(" "spark_save::SaveView::parse\\("
                         "spark_save::upgrade\\(" "spark_save::SaveWriter::finish[[(]"
                         "spark_save::load_slot\\(" "Error::describe[[(]")
        set(found ${symbols})
        list(FILTER found INCLUDE REGEX "^${api}")
        if(NOT found)
            message(FATAL_ERROR "${library} does not export ${api}")
        endif()
    endforeach()
    # The internals are in the file but hidden: the JSON reader, the readers' templates.
    sparksave_symbols(all_symbols --defined-only)
    list(FILTER all_symbols INCLUDE REGEX "^json::Reader::")
    if(NOT all_symbols)
        message(FATAL_ERROR "no json::Reader in ${library}: is the check looking at the library?")
    endif()
    list(LENGTH symbols count)
    message("${library}: exports ${count} sparksave symbols, all of the API")
endif()
# Static or shared, only the API's headers are installed.
file(GLOB installed RELATIVE ${WORK_DIR}/prefix/include/sparksave ${WORK_DIR}/prefix/include/sparksave/*)
list(SORT installed)
if(NOT installed STREQUAL "content_rules.hpp;error.hpp;export.hpp;save_file.hpp;spark_save_version.hpp;version.hpp")
    message(FATAL_ERROR "the install has headers beyond the API's: ${installed}")
endif()

# The consumer, built against the install and run.
set(flags "")
if(SANITIZE)
    set(flags "-fsanitize=${SANITIZE}") # the library was built with them
endif()
run("configure of the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer -G Ninja
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_CXX_FLAGS=${flags})
run("build of the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
execute_process(COMMAND ${WORK_DIR}/consumer/package_consumer ${SAVE} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
set(expected "^metadata: v3 \"[^\n]*\"\nview: v3, [1-9][0-9]* entities\nupgrade: v4, [1-9][0-9]* entities\nwriter: v4, 1 entity\nrefused: bad_value at metadata.saveName\n$")
if(NOT rc EQUAL 0 OR NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the consumer exited with ${rc}, printing:\n${out}${err}\nexpected (regex):\n${expected}")
endif()
if(MODE STREQUAL "shared" AND OBJDUMP)
    execute_process(COMMAND ${OBJDUMP} -p ${WORK_DIR}/consumer/package_consumer OUTPUT_VARIABLE dyn)
    if(NOT dyn MATCHES "NEEDED +libsparksaved?\\.so")
        message(FATAL_ERROR "the consumer does not load libsparksave.so:\n${dyn}")
    endif()
endif()
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
    run("build with pkg-config's flags" ${CXX} ${flags} ${CONSUMER_DIR}/main.cpp ${pc_flags}
        -Wl,-rpath,${WORK_DIR}/prefix/lib -o ${WORK_DIR}/consumer_pc)
    execute_process(COMMAND ${WORK_DIR}/consumer_pc ${SAVE} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE pc_out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT pc_out STREQUAL out)
        message(FATAL_ERROR "the pkg-config consumer exited with ${rc}, printing:\n${pc_out}${err}")
    endif()
    message("pkg-config (${pc_flags}): the same output")
else()
    message("pkg-config: not installed, sparksave.pc not tried")
endif()

if(NOT "$ENV{SPARKSAVE_KEEP_SCRATCH}" STREQUAL "1")
    file(REMOVE_RECURSE ${WORK_DIR})
endif()
