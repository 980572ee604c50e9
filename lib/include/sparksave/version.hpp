// The library's version, written in this one place (CMakeLists.txt reads it from here), and the
// language check every public header makes first: sparksave's headers use C++20 (std::span,
// designated initializers, concepts), so an older standard gets one clear error instead of a
// failure deep inside a header.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#define SPARKSAVE_VERSION_MAJOR 0
#define SPARKSAVE_VERSION_MINOR 1
#define SPARKSAVE_VERSION_PATCH 0
#define SPARKSAVE_VERSION "0.1.0"

// Every name of the library lives in the inline namespace sparksave::SPARKSAVE_ABI (as fmt's
// fmt::v10), so code still says sparksave::Error while the linker sees sparksave::v0_1::Error:
// two builds of different versions can meet in one process (an engine and a plugin, say)
// without one's symbols silently replacing the other's. It changes with every release that
// changes the ABI: each minor release while the major version is 0.
#define SPARKSAVE_ABI v0_1

#include "sparksave/export.hpp" // SPARKSAVE_BEGIN_NAMESPACE, SPARKSAVE_END_NAMESPACE

#include <cstdint>

SPARKSAVE_BEGIN_NAMESPACE

// The version of the layout of every JSON output (sparksave(1) JSON OUTPUT): the first member,
// "schemaVersion", of each record the tool prints (verify, info, diff, migrate, --version) and of
// each format's `dump --json` (format.hpp FormatJson::to_json, which `pack` reads back and
// refuses when it names a greater version). It grows when a member changes meaning or goes away
// (a new member does not change it); the JSON Schema of each output is in man/schemas/.
inline constexpr std::uint64_t k_json_schema_version = 1;

SPARKSAVE_END_NAMESPACE
