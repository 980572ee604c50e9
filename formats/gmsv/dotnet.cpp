// Guid and DateTime encodings of .NET (dotnet.hpp).
#include "dotnet.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

// Guid.ToByteArray(): Data1 (bytes 0-3), Data2 (4-5), Data3 (6-7) little-endian, then bytes 8-15
// in order. The printed form lists the bytes in this order of indices.
constexpr int k_text_order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
constexpr int k_dash_before[4] = {4, 6, 8, 10}; // byte positions in text order

constexpr std::uint64_t k_local_mask = 0x8000'0000'0000'0000ull;
constexpr std::uint64_t k_kind_shift = 62;
constexpr std::uint64_t k_ticks_mask = 0x3FFF'FFFF'FFFF'FFFFull;
constexpr std::int64_t k_ticks_ceiling = 0x4000'0000'0000'0000ll;

// Days since 1970-01-01 to a civil date (H. Hinnant's algorithm, proleptic Gregorian).
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = static_cast<std::int64_t>(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) ++y;
}

} // namespace

std::string guid_text(std::string_view b) {
    std::string out;
    out.reserve(36);
    int dash = 0;
    for (int i = 0; i < 16; ++i) {
        if (dash < 4 && i == k_dash_before[dash]) {
            out += '-';
            ++dash;
        }
        fmt::format_to(std::back_inserter(out), "{:02x}",
                       static_cast<unsigned char>(b[static_cast<std::size_t>(k_text_order[i])]));
    }
    return out;
}

std::optional<std::string> guid_bytes(std::string_view text) {
    if (text.size() != 36) return std::nullopt;
    std::string out(16, '\0');
    std::size_t at = 0;
    int dash = 0;
    for (int i = 0; i < 16; ++i) {
        if (dash < 4 && i == k_dash_before[dash]) {
            if (text[at] != '-') return std::nullopt;
            ++at;
            ++dash;
        }
        unsigned v = 0;
        auto [p, ec] = std::from_chars(text.data() + at, text.data() + at + 2, v, 16);
        if (ec != std::errc() || p != text.data() + at + 2) return std::nullopt;
        out[static_cast<std::size_t>(k_text_order[i])] = static_cast<char>(v);
        at += 2;
    }
    return out;
}

DotNetTime from_binary(std::int64_t data) noexcept {
    const auto u = static_cast<std::uint64_t>(data);
    DotNetTime t;
    if (u & k_local_mask) {
        // ToBinary stored the UTC ticks, wrapped into the positive range when negative.
        t.kind = DotNetTime::Kind::local;
        t.ticks = static_cast<std::int64_t>(u & k_ticks_mask);
        if (t.ticks > k_ticks_ceiling - k_ticks_per_day) t.ticks -= k_ticks_ceiling;
    } else {
        t.kind = (u >> k_kind_shift) == 1 ? DotNetTime::Kind::utc : DotNetTime::Kind::unspecified;
        t.ticks = static_cast<std::int64_t>(u & k_ticks_mask);
    }
    t.valid = t.ticks >= 0 && t.ticks <= k_max_ticks;
    return t;
}

std::string_view kind_name(DotNetTime::Kind kind) noexcept {
    switch (kind) {
    case DotNetTime::Kind::utc:
        return "utc";
    case DotNetTime::Kind::local:
        return "local";
    case DotNetTime::Kind::unspecified:
        return "unspecified";
    }
    return "unspecified";
}

std::string iso8601(const DotNetTime& time) {
    // 719162 days from 0001-01-01 to 1970-01-01.
    const std::int64_t days = time.ticks / k_ticks_per_day - 719162;
    std::int64_t rest = time.ticks % k_ticks_per_day;
    std::int64_t y = 0;
    unsigned m = 0, d = 0;
    civil_from_days(days, y, m, d);
    const std::int64_t fraction = rest % 10'000'000;
    rest /= 10'000'000;
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:07}{}", y, m, d, rest / 3600,
                       rest / 60 % 60, rest % 60, fraction,
                       time.kind == DotNetTime::Kind::unspecified ? "" : "Z");
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
