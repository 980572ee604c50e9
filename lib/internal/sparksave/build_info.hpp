// What this build of the library is made of, for `sparksave --version`: the compiler and the
// libraries it was compiled against (the versions their headers give), and the CRC-32 code in
// use on this machine (crc32.hpp crc32_implementation).
#pragma once

#include "sparksave/version.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

// (name, version): the compiler first ("GCC", "12.2.0"), then fmt, Boost and toml++.
std::vector<std::pair<std::string_view, std::string>> build_components();

SPARKSAVE_END_NAMESPACE
