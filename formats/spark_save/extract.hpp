// What the engine's `stream >> field` takes from a `.spark_save` metadata block (formats/README.md
// §1.2, "How the current engine really reads the numbers"): a model of C++ formatted extraction as
// libstdc++ (the engine's Linux build) does it, for the three field types the block has
// (uint64_t, float, int). The engine reads the block from a std::istringstream in the classic
// "C" locale (no digit grouping, '.' as the decimal point).
//
// Formatted extraction (the standard's [istream.formatted.arithmetic] and num_get::do_get):
//   1. the sentry skips whitespace (ctype<char> space: ' ', \t, \n, \v, \f, \r); at the end of
//      the block it sets failbit;
//   2. num_get's stage 2 accumulates the longest prefix that can start a number of the type,
//      character by character, and leaves the rest in the stream:
//        integers: an optional sign, then decimal digits;
//        floats:   an optional sign, digits with at most one '.', then at most one 'e'/'E' (only
//                  after a digit) with an optional sign, then digits;
//   3. the accumulated text is converted (strtoull/strtoll-like for integers, strtof for floats);
//      text that does not convert (no digit, an 'e' without exponent digits) or a value out of
//      the type's range sets failbit. An unsigned field negates a `-` value modulo 2^64 (strtoull's
//      rule: `-1` reads 18446744073709551615). `int` is read through `long` and then
//      range-checked (operator>>(int&)), so anything outside int fails. A float that overflows to
//      infinity fails; one that underflows reads 0 (or a subnormal) with libstdc++.
// Once failbit is set every later extraction does nothing, so the engine's ParseMetadataBlock
// refuses the block at the first failed field.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/version.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

inline bool is_space(char c) noexcept {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

inline bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

struct Extraction {
    enum class Fail : std::uint8_t {
        none,
        end_of_block, // only whitespace was left
        no_number,    // stage 2 accumulated nothing that converts
        out_of_range, // the value does not fit the field's type (a float: infinite)
    };
    Fail fail = Fail::none;
    std::size_t begin = 0; // where the number starts (after the skipped whitespace)
    std::size_t end = 0;   // one past the characters stage 2 took (the next read starts here)
    std::uint64_t u = 0;   // unsigned_integer
    std::int64_t i = 0;    // integer
    float f = 0;           // floating
    // Floats only, where the engine's builds disagree (formats/README.md §1.2):
    bool underflow = false;  // a nonzero number read as 0 or a subnormal (MSVC: likely refused)
    bool hex_prefix = false; // stage 2 stopped at the `x` of `0x` (MSVC reads a hex float)
    bool ok() const noexcept { return fail == Fail::none; }
};

// Stage 2 and the conversion for one field of `type` (unsigned_integer, integer or floating),
// starting at `pos` of `text`.
inline Extraction extract_number(std::string_view text, std::size_t pos, ValueType type) {
    Extraction x;
    const std::size_t n = text.size();
    while (pos < n && is_space(text[pos])) ++pos;
    x.begin = x.end = pos;
    if (pos >= n) {
        x.fail = Extraction::Fail::end_of_block;
        return x;
    }
    std::size_t p = pos;
    const bool negative = text[p] == '-';
    if (text[p] == '-' || text[p] == '+') ++p;

    if (type != ValueType::floating) {
        // Integers: accumulate with the overflow test of libstdc++'s _M_extract_int; the limit
        // is the type's maximum, or for a negative signed value the magnitude of its minimum.
        const bool is_signed = type == ValueType::integer;
        // `int` is read into a long (64 bits with libstdc++ on Linux), then range-checked.
        const std::uint64_t max =
            is_signed ? (negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1)
                      : std::numeric_limits<std::uint64_t>::max();
        std::uint64_t result = 0;
        bool overflow = false;
        const std::size_t digits_begin = p;
        for (; p < n && is_digit(text[p]); ++p) {
            const unsigned d = static_cast<unsigned>(text[p] - '0');
            if (overflow || result > (max - d) / 10) {
                overflow = true;
                continue;
            }
            result = result * 10 + d;
        }
        x.end = p;
        if (p == digits_begin) {
            x.fail = Extraction::Fail::no_number;
            return x;
        }
        if (overflow) {
            x.fail = Extraction::Fail::out_of_range;
            return x;
        }
        if (!is_signed) {
            x.u = negative ? std::uint64_t{0} - result : result; // strtoull negates modulo 2^64
            return x;
        }
        const std::int64_t v = negative ? static_cast<std::int64_t>(std::uint64_t{0} - result)
                                        : static_cast<std::int64_t>(result);
        if (v < std::numeric_limits<std::int32_t>::min() ||
            v > std::numeric_limits<std::int32_t>::max()) {
            x.fail = Extraction::Fail::out_of_range;
            return x;
        }
        x.i = v;
        return x;
    }

    // Floats: libstdc++'s _M_extract_float in the "C" locale.
    bool mantissa = false, dot = false, sci = false, exponent_digits = false, nonzero = false;
    for (; p < n; ++p) {
        const char c = text[p];
        if (is_digit(c)) {
            if (sci) {
                exponent_digits = true;
            } else {
                mantissa = true;
                nonzero = nonzero || c != '0';
            }
        } else if (c == '.' && !dot && !sci) {
            dot = true;
        } else if ((c == 'e' || c == 'E') && !sci && mantissa) {
            sci = true;
            if (p + 1 < n && (text[p + 1] == '+' || text[p + 1] == '-')) ++p;
        } else {
            break;
        }
    }
    x.end = p;
    // strtof must convert the whole accumulated text: a digit in the mantissa, and digits after
    // an `e`.
    if (!mantissa || (sci && !exponent_digits)) {
        x.fail = Extraction::Fail::no_number;
        return x;
    }
    // `0x...`: libstdc++ takes the 0 and stops at the x; MSVC's num_get reads a hex float.
    const std::size_t sign = text[pos] == '-' || text[pos] == '+' ? 1 : 0;
    if (p == pos + sign + 1 && text[p - 1] == '0' && p < n && (text[p] == 'x' || text[p] == 'X'))
        x.hex_prefix = true;
    const std::string copy(text.substr(pos, p - pos));
    const float v = std::strtof(copy.c_str(), nullptr);
    if (std::isinf(v)) {
        x.fail = Extraction::Fail::out_of_range;
        return x;
    }
    x.f = v;
    x.underflow = nonzero && (v == 0 || std::fabs(v) < FLT_MIN);
    return x;
}

// What MSVC's library reads for a `0x` float at `pos` (its value, and how many characters),
// for the build-difference warning: strtof's hexadecimal form. Returns 0 characters when there
// is no hex float there.
inline std::size_t hex_float_at(std::string_view text, std::size_t pos, float& value) {
    std::size_t end = pos;
    while (end < text.size() && !is_space(text[end]) && end - pos < 64) ++end;
    const std::string copy(text.substr(pos, end - pos));
    char* stop = nullptr;
    value = std::strtof(copy.c_str(), &stop);
    const std::size_t used = static_cast<std::size_t>(stop - copy.c_str());
    return used > 2 && copy.find_first_of("xX") < used ? used : 0;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
