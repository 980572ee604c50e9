# Every symbol the library defines lies in the versioned inline namespace (version.hpp
# SPARKSAVE_ABI): a file that opened `namespace sparksave` without it would put its names where
# another version of the library can replace them at link time.
execute_process(COMMAND ${NM} --demangle --defined-only --extern-only ${LIBRARY}
                RESULT_VARIABLE rc OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
if(rc)
    message(FATAL_ERROR "${NM} ${LIBRARY} failed: ${err}")
endif()
string(REGEX MATCHALL "sparksave::${ABI}::" ours "${symbols}")
list(LENGTH ours count)
if(count LESS 50)
    message(FATAL_ERROR "only ${count} sparksave symbols in ${LIBRARY}: is it the library?")
endif()
string(REPLACE "sparksave::${ABI}::" "" rest "${symbols}")
if(rest MATCHES "sparksave::")
    string(REGEX MATCHALL "[^\n]*sparksave::[^\n]*" outside "${rest}")
    string(REPLACE ";" "\n" outside "${outside}")
    message(FATAL_ERROR "symbols outside sparksave::${ABI} (shown without it):\n${outside}")
endif()
message("${count} names of symbols, all in sparksave::${ABI}")
