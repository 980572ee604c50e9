// The .spark_save rules the reader, pack, stream and the tests share (FORMATS.md 1.4, 1.5): the
// CRC-32 read as a v4 file, the Transform parent syntax, message helpers. The reader template
// (reader.hpp) includes this; files that only need a helper include this alone.
#pragma once

#include "common/finding.hpp"
#include "spec.hpp"

#include "sparksave/crc32.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace sparksave::spark_save {

// The CRC-32 of data[0, end) with the version field (bytes 4..8) read as 4 (1.5, damaged
// version detection).
inline std::uint32_t crc_as_version4(std::string_view data, std::size_t end) {
    unsigned char head[8];
    std::memcpy(head, data.data(), 4);
    boost::endian::store_little_u32(head + 4, k_current_version);
    std::uint32_t crc = crc32_update(0, {reinterpret_cast<const char*>(head), 8});
    return crc32_update(crc, data.substr(8, end - 8));
}

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

} // namespace sparksave::spark_save
