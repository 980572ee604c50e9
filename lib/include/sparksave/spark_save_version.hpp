// The `.spark_save` versions the current engine writes and loads (formats/README.md §1.4): shared
// by the engine-facing API (save_file.hpp) and the format's reader, so the numbers exist once.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include <cstdint>
#include <sparksave/version.hpp>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// The version the engine writes, and the oldest it loads (its "N and N-1" window, 1.4).
inline constexpr std::uint32_t k_current_version = 4;
inline constexpr std::uint32_t k_oldest_loadable = 3;

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
