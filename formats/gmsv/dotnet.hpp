// The two .NET encodings a GMSV save holds (spec.hpp): Guid.ToByteArray() and
// DateTime.ToBinary(), turned into the text people read and back.
#pragma once

#include "sparksave/version.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

// 16 bytes in the Guid.ToByteArray() layout -> "00112233-4455-6677-8899-aabbccddeeff".
std::string guid_text(std::string_view bytes16);
// The inverse (either case of hex digits); nullopt unless `text` is exactly the 8-4-4-4-12 form.
std::optional<std::string> guid_bytes(std::string_view text);

// A DateTime.ToBinary() value, decoded as DateTime.FromBinary does.
struct DotNetTime {
    enum class Kind : std::uint8_t { unspecified, utc, local };
    Kind kind = Kind::unspecified;
    std::int64_t ticks = 0; // 100 ns since 0001-01-01; for a local time, the UTC ticks stored
    bool valid = false;     // ticks within 0001-01-01 .. 9999-12-31T23:59:59.9999999
};

inline constexpr std::int64_t k_ticks_per_day = 864'000'000'000;
inline constexpr std::int64_t k_max_ticks = 3'155'378'975'999'999'999; // DateTime.MaxValue.Ticks

DotNetTime from_binary(std::int64_t data) noexcept;
std::string_view kind_name(DotNetTime::Kind kind) noexcept; // "utc", "local", "unspecified"
// ISO-8601 with the 7 fractional digits of .NET's round-trip format:
// "2023-11-14T22:13:20.0000000Z"; no zone for an unspecified time; a local time is shown as its UTC
// instant (Z). Needs `valid`.
std::string iso8601(const DotNetTime& time);

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
