// What the formats' salvage (formats/<name>/salvage.cpp, sparksave/salvage.hpp) share: the
// verdict of a scan of one record, the resynchronisation rule's length, the loads of a binary
// format, the test of a damaged magic and the byte totals of a report.
#pragma once

#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE
namespace salvage_scan {

// A record read at a place: whole, cut by the end of the data, or not a plausible record.
enum class Scan : std::uint8_t { ok, short_data, implausible };

// How many records after a resynchronisation point must read cleanly (or reach the end of the
// data, or what ends the file) for the point to be taken (issue 24: "a parse that then continues
// cleanly for at least a few records").
inline constexpr int k_resync_chain = 3;

inline std::uint16_t u16_at(std::string_view d, std::size_t at) {
    return boost::endian::load_little_u16(reinterpret_cast<const unsigned char*>(d.data() + at));
}
inline std::uint32_t u32_at(std::string_view d, std::size_t at) {
    return boost::endian::load_little_u32(reinterpret_cast<const unsigned char*>(d.data() + at));
}

// How many of the magic's bytes the file's first bytes match: all, a magic damaged (rebuilt when
// at least half match), or not the format.
inline int magic_matching(std::string_view d, std::string_view magic) noexcept {
    int same = 0;
    for (std::size_t i = 0; i < magic.size() && i < d.size(); ++i) same += d[i] == magic[i] ? 1 : 0;
    return same;
}
inline bool magic_rebuildable(int matching, std::string_view magic) noexcept {
    return 2 * static_cast<std::size_t>(matching) >= magic.size();
}

// Salvaged::totals.bytes from the regions: kept and rebuilt bytes kept, lost bytes lost.
inline void total_bytes(Salvaged& s) {
    for (const SalvageRegion& r : s.regions)
        (r.kind == SalvageRegion::Kind::lost ? s.totals.bytes.lost : s.totals.bytes.kept) +=
            r.length;
}

// The end of a binary format's salvage: a file whose only damage is its checksum (`complete`:
// its structure read whole, nothing lost or rebuilt but the checksum) is withheld unless
// accept_checksum (issue 24: content unverified is not silently resealed); any other gets the
// output `bytes`.
inline Salvaged withhold_or_write(Salvaged s, std::string bytes, bool complete,
                                  const SalvageOptions& options) {
    if (s.unverified && complete && !options.accept_checksum)
        s.withheld = true;
    else
        s.bytes = std::move(bytes);
    return s;
}

} // namespace salvage_scan
SPARKSAVE_END_NAMESPACE
