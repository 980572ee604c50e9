# The packages (README "Installing it as a package"):
#   cmake --workflow --preset package   the release build configured for /usr (multiarch
#                                       library folders), then cpack -G DEB: two Debian packages,
#       sparksave         the tool, its man pages, its shell completions, its JSON Schemas
#       libsparksave-dev  the static library, its headers, its CMake package, sparksave.pc,
#                         sparksave(3), the format reference
#   (cd build/windows-cross && cpack -G ZIP)   the Windows build's zip:
#       sparksave.exe, README.md, COPYRIGHT.txt and the JSON Schemas (share/doc/sparksave/schemas)
# The install components (CMakeLists.txt) are the packages: `tool` and `dev`.
# .ci/package builds, lints (lintian) and installs both .debs (dpkg -x), then builds the
# engine-shaped consumer against them.
set(SPARKSAVE_PACKAGE_MAINTAINER "sparksave developers <sparksave@users.noreply.github.com>"
    CACHE STRING "The Maintainer of the Debian packages: NAME <EMAIL>")

set(CPACK_PACKAGE_NAME sparksave)
set(CPACK_PACKAGE_VENDOR "the sparksave developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each Debian package's description begins with its own synopsis (CPACK_DEBIAN_*_DESCRIPTION
# below); CPackDeb would put a summary other than CPack's default before it, a second synopsis.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "${SPARKSAVE_PACKAGE_MAINTAINER}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/cmake/copyright)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/;/bench/out/;/bench/node_modules/")

if(WIN32)
    # The zip: the tool alone, with the README and the copyright beside it.
    set(CPACK_GENERATOR ZIP)
    # The tool's component alone (not the library's), in one archive.
    set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
    set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
    set(CPACK_COMPONENTS_ALL tool)
    set(CPACK_PACKAGE_FILE_NAME "sparksave-${PROJECT_VERSION}-windows-x86_64")
    set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
    set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY ON)
    install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION . COMPONENT tool)
    install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright DESTINATION . RENAME COPYRIGHT.txt
            COMPONENT tool)
else()
    set(CPACK_GENERATOR DEB)
    set(CPACK_DEB_COMPONENT_INSTALL ON)
    set(CPACK_COMPONENTS_ALL tool dev)
    set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
    set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
    set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SPARKSAVE_PACKAGE_MAINTAINER}")
    set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
    set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

    set(CPACK_DEBIAN_TOOL_PACKAGE_NAME sparksave)
    set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION utils)
    set(CPACK_DEBIAN_TOOL_PACKAGE_SHLIBDEPS ON) # libc6, libstdc++6, libgcc-s1, libfmt9
    set(CPACK_DEBIAN_TOOL_DESCRIPTION
        "read, check, dump, migrate and diff game save files
sparksave reads five game save formats (.spark_save, tess worlds, GMSV,
the text archive and spark-kv stores), checks them as the engines that
write them read them, dumps them as text or lossless JSON, packs JSON back,
migrates them to the version the current engine reads, applies content
rules, and diffs two saves structurally.")

    set(CPACK_DEBIAN_DEV_PACKAGE_NAME libsparksave-dev)
    set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
    # A static library: its users link fmt (sparksave.pc, the CMake package's find_dependency).
    set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libfmt-dev")
    set(CPACK_DEBIAN_DEV_DESCRIPTION
        "game save file library (development files)
The sparksave library, which an engine links to load and write its saves:
sparksave/save_file.hpp (read_metadata, SaveView, upgrade, SaveWriter, the
save slots) and sparksave/content_rules.hpp (content migrations at load).
This package holds the static library, its headers, its CMake package
(find_package(sparksave)), its pkg-config file and sparksave(3).")

    # Before each package is made: what Debian policy asks of every package (the copyright and
    # changelog in /usr/share/doc/PACKAGE, man pages compressed).
    set(SPARKSAVE_PACKAGE_COPYRIGHT ${PROJECT_SOURCE_DIR}/cmake/copyright)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/package_prepare.cmake.in
                   ${PROJECT_BINARY_DIR}/package_prepare.cmake @ONLY)
    set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_BINARY_DIR}/package_prepare.cmake)
endif()
include(CPack)
