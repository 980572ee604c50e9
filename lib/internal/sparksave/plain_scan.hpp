// The scan for bytes that need escaping (escape.hpp plain_prefix), inline for the direct dump's
// hot path (formats/spark_save/dump.cpp) and shared with escape.cpp: one definition of the set.
#pragma once

#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

SPARKSAVE_BEGIN_NAMESPACE
namespace plain_scan {

// Whether a byte needs escaping in some context: a control character, DEL, non-ASCII, '"' or
// '\\'.
constexpr bool special(unsigned char c) noexcept {
    return c < 0x20 || c >= 0x7F || c == '"' || c == '\\';
}

// SWAR: a high bit in each of eight bytes that is special(). Zero: all eight can be copied as
// they are.
inline std::uint64_t special8(std::uint64_t w) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    auto has_zero = [&](std::uint64_t v) { return (v - ones) & ~v & highs; };
    const std::uint64_t high_or_del =
        (w | (w + ones)) & highs; // >= 0x7F (0xFF carries, but is caught)
    const std::uint64_t control = (w - 0x20 * ones) & ~w & highs; // < 0x20
    return high_or_del | control | has_zero(w ^ (0x22 * ones)) | has_zero(w ^ (0x5C * ones));
}

#if defined(__SSE2__)
// The same set, sixteen bytes at once: a bit a byte. A signed compare below 0x20 takes the
// controls and every byte >= 0x80 at once.
inline unsigned special16(const char* p) noexcept {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    const __m128i del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F));
    const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(low, del), _mm_or_si128(quote, backslash))));
}
#endif

// The length of the leading run of `s` with no special() byte.
inline std::size_t run(std::string_view s) noexcept {
    std::size_t i = 0;
#if defined(__SSE2__)
    while (i + 16 <= s.size()) {
        if (const unsigned m = special16(s.data() + i)) return i + __builtin_ctz(m);
        i += 16;
    }
#endif
    while (i + 8 <= s.size()) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (special8(w)) break;
        i += 8;
    }
    while (i < s.size() && !special(static_cast<unsigned char>(s[i]))) ++i;
    return i;
}

// run(s) for `s` inside a buffer readable up to `readable_end`: whole blocks of sixteen while
// they end before readable_end (the bits past the string's end are set, so a string plain to its
// end stops there).
inline std::size_t run_in(std::string_view s, const char* readable_end) noexcept {
#if defined(__SSE2__)
    const std::size_t n = s.size();
    if (n <= 16 && readable_end - s.data() >= 16) { // the usual short string: one block
        const unsigned m = special16(s.data()) | (~0u << n);
        return static_cast<std::size_t>(__builtin_ctz(m));
    }
    std::size_t i = 0;
    while (i < n && readable_end - (s.data() + i) >= 16) {
        unsigned m = special16(s.data() + i);
        if (n - i < 16) m |= ~0u << (n - i);
        if (m) return i + static_cast<std::size_t>(__builtin_ctz(m));
        i += 16;
    }
    return i >= n ? n : i + run(s.substr(i));
#else
    (void)readable_end;
    return run(s);
#endif
}

} // namespace plain_scan
SPARKSAVE_END_NAMESPACE
