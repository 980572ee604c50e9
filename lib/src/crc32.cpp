// CRC-32: carry-less multiplication folding (PCLMULQDQ) where the CPU has it, slicing-by-8
// (eight table lookups per eight bytes) elsewhere and for the tails. Both are checked against
// a bitwise reference in tests/unit/test_core.cpp.
//
// The folding is built by GCC and Clang (Linux, and MinGW-w64 for Windows: GCC there too), which
// need a target attribute to use the instructions in one function, and by MSVC (intrinsics
// need no attribute there; the CPU is asked with __cpuid). Any other compiler or CPU, or
// SPARKSAVE_CRC_PORTABLE defined, builds the portable table code alone.
#include "sparksave/crc32.hpp"
#include "sparksave/version.hpp"

#if defined(SPARKSAVE_CRC_PORTABLE)
#elif defined(_MSC_VER) && !defined(__clang__) && (defined(_M_X64) || defined(_M_IX86))
#include <immintrin.h>
#include <intrin.h>
#define SPARKSAVE_CRC_PCLMUL 1
#define SPARKSAVE_CRC_TARGET
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define SPARKSAVE_CRC_PCLMUL 1
#define SPARKSAVE_CRC_TARGET __attribute__((target("pclmul,sse4.1")))
#endif

#include <array>
#include <bit>
#include <cstring>

SPARKSAVE_BEGIN_NAMESPACE

namespace {

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
        for (std::size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
}

constexpr Tables k_tables = make_tables();

constexpr std::uint32_t byte_swap(std::uint32_t v) noexcept {
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

// Slicing-by-8 over the inverted state.
std::uint32_t crc_tables(std::uint32_t crc, const unsigned char* p, std::size_t n) noexcept {
    while (n >= 8) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        if constexpr (std::endian::native == std::endian::big) {
            lo = byte_swap(lo);
            hi = byte_swap(hi);
        }
        lo ^= crc;
        crc = k_tables[7][lo & 0xFF] ^ k_tables[6][(lo >> 8) & 0xFF] ^
              k_tables[5][(lo >> 16) & 0xFF] ^ k_tables[4][lo >> 24] ^ k_tables[3][hi & 0xFF] ^
              k_tables[2][(hi >> 8) & 0xFF] ^ k_tables[1][(hi >> 16) & 0xFF] ^
              k_tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) crc = (crc >> 8) ^ k_tables[0][(crc ^ *p++) & 0xFF];
    return crc;
}

#ifdef SPARKSAVE_CRC_PCLMUL
// Folding with carry-less multiplication, four 128-bit lanes at a time, then a Barrett
// reduction (Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
// Intel 2009; the bit-reflected constants of its appendix, as in zlib/Chromium and Linux).
// `n` is at least 64 and a multiple of 16; `crc` is the inverted state.
SPARKSAVE_CRC_TARGET std::uint32_t crc_pclmul(std::uint32_t crc, const unsigned char* buf,
                                              std::size_t n) noexcept {
    alignas(16) static const std::uint64_t k1k2[] = {0x0154442bd4, 0x01c6e41596};
    alignas(16) static const std::uint64_t k3k4[] = {0x01751997d0, 0x00ccaa009e};
    alignas(16) static const std::uint64_t k5k0[] = {0x0163cd6124, 0x0000000000};
    alignas(16) static const std::uint64_t poly[] = {0x01db710641, 0x01f7011641};
    auto load = [](const unsigned char* p) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    };

    __m128i x1 = load(buf), x2 = load(buf + 16), x3 = load(buf + 32), x4 = load(buf + 48);
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128(static_cast<int>(crc)));
    __m128i x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k1k2));
    buf += 64;
    n -= 64;
    while (n >= 64) {
        __m128i x5 = _mm_clmulepi64_si128(x1, x0, 0x00), x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        __m128i x7 = _mm_clmulepi64_si128(x3, x0, 0x00), x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), load(buf));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), load(buf + 16));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), load(buf + 32));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), load(buf + 48));
        buf += 64;
        n -= 64;
    }
    // Fold the four lanes into one.
    x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k3k4));
    for (__m128i next : {x2, x3, x4}) {
        __m128i x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, next), x5);
    }
    while (n >= 16) {
        __m128i x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, load(buf)), x5);
        buf += 16;
        n -= 16;
    }
    // 128 bits to 64, then Barrett reduction to 32.
    __m128i x2r = _mm_clmulepi64_si128(x1, x0, 0x10);
    const __m128i mask = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2r);
    x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(k5k0));
    x2r = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, mask);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, x0, 0x00), x2r);
    x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(poly));
    x2r = _mm_and_si128(x1, mask);
    x2r = _mm_clmulepi64_si128(x2r, x0, 0x10);
    x2r = _mm_and_si128(x2r, mask);
    x2r = _mm_clmulepi64_si128(x2r, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2r);
    return static_cast<std::uint32_t>(_mm_extract_epi32(x1, 1));
}

bool have_pclmul() noexcept {
#ifdef _MSC_VER
    static const bool yes = [] {
        int info[4] = {};
        __cpuid(info, 1);
        return (info[2] & (1 << 1)) != 0 && (info[2] & (1 << 19)) != 0; // PCLMULQDQ, SSE4.1
    }();
#else
    static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#endif
    return yes;
}
#endif

} // namespace

std::uint32_t crc32_update(std::uint32_t crc, std::string_view bytes) noexcept {
    auto p = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t n = bytes.size();
    crc = ~crc;
#ifdef SPARKSAVE_CRC_PCLMUL
    if (n >= 64 && have_pclmul()) {
        const std::size_t chunk = n & ~std::size_t{15};
        crc = crc_pclmul(crc, p, chunk);
        p += chunk;
        n -= chunk;
    }
#endif
    return ~crc_tables(crc, p, n);
}

std::uint32_t crc32(std::string_view bytes) noexcept {
    return crc32_update(0, bytes);
}

std::string_view crc32_implementation() noexcept {
#ifdef SPARKSAVE_CRC_PCLMUL
    if (have_pclmul()) return "pclmul";
#endif
    return "slicing-by-8";
}

SPARKSAVE_END_NAMESPACE
