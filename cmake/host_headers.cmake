# The header-only dependencies of a cross build (the windows-cross preset) taken from the build
# machine's headers (Debian's libfmt-dev, libboost-dev, libcli11-dev, doctest-dev,
# libtomlplusplus-dev) as imported INTERFACE targets, without find_package of the host's packages
# (their targets name the host's libraries, e.g. libfmt.so, libtomlplusplus.so). fmt and toml++
# are used in header-only mode (FMT_HEADER_ONLY; TOML_HEADER_ONLY in content_rules.cpp). Only
# these five folders are put on the include path, through symbolic links in the build tree: never
# /usr/include itself, whose C library headers would hide the target's.
set(SPARKSAVE_HOST_INCLUDE_DIR /usr/include CACHE PATH
    "Where the header-only dependencies are found when SPARKSAVE_HOST_HEADERS is on")
set(sparksave_host_headers ${PROJECT_BINARY_DIR}/host-headers)
file(MAKE_DIRECTORY ${sparksave_host_headers})
foreach(dir fmt boost CLI doctest toml++)
    if(NOT EXISTS ${SPARKSAVE_HOST_INCLUDE_DIR}/${dir})
        message(FATAL_ERROR "SPARKSAVE_HOST_HEADERS: ${SPARKSAVE_HOST_INCLUDE_DIR}/${dir} not found "
                            "(install libfmt-dev libboost-dev libcli11-dev doctest-dev "
                            "libtomlplusplus-dev)")
    endif()
    if(NOT EXISTS ${sparksave_host_headers}/${dir})
        file(CREATE_LINK ${SPARKSAVE_HOST_INCLUDE_DIR}/${dir} ${sparksave_host_headers}/${dir}
             SYMBOLIC)
    endif()
endforeach()
add_library(fmt::fmt INTERFACE IMPORTED GLOBAL)
set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${sparksave_host_headers}
                      INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
# toml++ (the content rule files, lib/src/content_rules.cpp) header-only, as in the native build
# (CMakeLists.txt sparksave_toml): Debian's package target names the host's libtomlplusplus.so.
add_library(sparksave_toml INTERFACE)
target_include_directories(sparksave_toml SYSTEM INTERFACE ${sparksave_host_headers})
foreach(target Boost::headers CLI11::CLI11 doctest::doctest)
    add_library(${target} INTERFACE IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                          ${sparksave_host_headers})
endforeach()
