// The library's version, written in this one place (CMakeLists.txt reads it from here), and the
// language check every public header makes first: sparksave's headers use C++20 (std::span,
// designated initializers, concepts), so an older standard gets one clear error instead of a
// failure deep inside a header.
#pragma once

#define SPARKSAVE_VERSION_MAJOR 0
#define SPARKSAVE_VERSION_MINOR 1
#define SPARKSAVE_VERSION_PATCH 0
#define SPARKSAVE_VERSION "0.1.0"

#if defined(_MSVC_LANG) ? _MSVC_LANG < 202002L : __cplusplus < 202002L
// -std=c++20, /std:c++20, or CMake's cxx_std_20 (the sparksave::sparksave target carries it)
#error "sparksave needs C++20"
#endif
