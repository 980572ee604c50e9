// CRC-32, slicing-by-8: eight table lookups per eight bytes.
#include "sparksave/crc32.hpp"

#include <array>
#include <bit>
#include <cstring>

namespace sparksave {

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

} // namespace

std::uint32_t crc32_update(std::uint32_t crc, std::string_view bytes) noexcept {
    auto p = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t n = bytes.size();
    crc = ~crc;
    while (n >= 8) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        if constexpr (std::endian::native == std::endian::big) {
            lo = __builtin_bswap32(lo);
            hi = __builtin_bswap32(hi);
        }
        lo ^= crc;
        crc = k_tables[7][lo & 0xFF] ^ k_tables[6][(lo >> 8) & 0xFF] ^
              k_tables[5][(lo >> 16) & 0xFF] ^ k_tables[4][lo >> 24] ^ k_tables[3][hi & 0xFF] ^
              k_tables[2][(hi >> 8) & 0xFF] ^ k_tables[1][(hi >> 16) & 0xFF] ^ k_tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) crc = (crc >> 8) ^ k_tables[0][(crc ^ *p++) & 0xFF];
    return ~crc;
}

std::uint32_t crc32(std::string_view bytes) noexcept { return crc32_update(0, bytes); }

} // namespace sparksave
