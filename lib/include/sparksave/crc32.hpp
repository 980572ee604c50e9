// CRC-32 as every format of formats/README.md uses it: the reflected CRC-32 of zlib / ISO-HDLC
// (polynomial 0xEDB88320, initial 0xFFFFFFFF, final complement; check("123456789") ==
// 0xCBF43926).
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include <cstdint>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

// The CRC-32 of `bytes`.
std::uint32_t crc32(std::string_view bytes) noexcept;

// Continues a CRC: crc32_update(crc32(a), b) == crc32(a + b). Start from 0.
std::uint32_t crc32_update(std::uint32_t crc, std::string_view bytes) noexcept;

// The code that computes CRC-32s on this machine: "pclmul" (carry-less multiplication folding,
// built for x86 and the CPU has PCLMULQDQ and SSE4.1) or "slicing-by-8" (table lookups: another
// CPU, or a build without the folding).
std::string_view crc32_implementation() noexcept;

SPARKSAVE_END_NAMESPACE
