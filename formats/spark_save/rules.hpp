// The .spark_save rules the reader, pack, stream and the tests share (formats/README.md §1.4, 1.5):
// the CRC-32 read as a v4 file, the Transform parent syntax, message helpers. The reader template
// (reader.hpp) includes this; files that only need a helper include this alone.
#pragma once

#include "common/finding.hpp"
#include "spec.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// The CRC-32 of data[0, end) with the version field (bytes 4..8) read as 4 (1.5, damaged
// version detection).
std::uint32_t crc_as_version4(std::string_view data, std::size_t end);

// The CRC-32 a file is checked with (1.5): of bytes [0, size-4) read as a v4 file. `data` has at
// least 12 bytes and the magic.
std::uint32_t whole_crc(std::string_view data);

// Files at least this large have their CRC-32 computed on a second thread while the payload is
// parsed (the common case, a valid file, then costs the slower of the two, not both).
inline constexpr std::size_t k_parallel_crc = 4u << 20;

// Whether a read computes the CRC alongside the parse (read_with_crc): a file of
// k_parallel_crc bytes or more, no larger than the limit, with the magic and a version from 1 to
// 4 (the checks the reader makes before it needs the CRC).
bool crc_alongside(std::string_view data) noexcept;

inline std::uint32_t load_u32(std::string_view data, std::size_t at) {
    return boost::endian::load_little_u32(reinterpret_cast<const unsigned char*>(data.data() + at));
}

// Parses a Transform parent the way the engine's ParseTransformParentIndex does (1.4):
// std::from_chars into a long long over the whole value: an optional `-`, decimal digits,
// nothing before or after (no whitespace, no `+`), in long long's range.
inline std::optional<long long> parse_parent_index(std::string_view text) {
    long long v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end) return std::nullopt;
    return v;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
