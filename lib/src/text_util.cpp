// Human-readable forms of times and durations.
#include "text_util.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

SPARKSAVE_BEGIN_NAMESPACE

std::string iso8601_utc(std::string_view text) {
    std::uint64_t secs = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), secs);
    constexpr std::uint64_t k_year_10000 = 253402300800ull;
    if (ec != std::errc() || p != text.data() + text.size() || secs >= k_year_10000)
        return display(text);
    using namespace std::chrono;
    sys_seconds t{seconds{static_cast<std::int64_t>(secs)}};
    auto day = floor<days>(t);
    year_month_day ymd{day};
    hh_mm_ss hms{t - day};
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(ymd.year()),
                       static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                       hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

std::string hours_minutes_seconds(std::string_view text) {
    double v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) || v < 0 ||
        v > 1e15)
        return display(text);
    auto total = static_cast<std::uint64_t>(v);
    return fmt::format("{}:{:02}:{:02}", total / 3600, (total / 60) % 60, total % 60);
}

bool is_json_number(std::string_view t) noexcept {
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') ++i;
    if (i >= t.size()) return false;
    if (t[i] == '0') {
        ++i;
    } else if (t[i] >= '1' && t[i] <= '9') {
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    } else {
        return false;
    }
    if (i < t.size() && t[i] == '.') {
        ++i;
        if (i >= t.size() || t[i] < '0' || t[i] > '9') return false;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (i >= t.size() || t[i] < '0' || t[i] > '9') return false;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    }
    return i == t.size();
}

SPARKSAVE_END_NAMESPACE
