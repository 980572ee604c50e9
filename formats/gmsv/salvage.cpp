// Salvage of a damaged GMSV save (sparksave/salvage.hpp, sparksave-salvage(1)): the format's entry
// of its row (format.cpp). The entity table is read as far as it goes (formats/README.md §5);
// after a record that no longer reads, the reading resumes at the next plausible entity (its
// component count fits, each type id is one the design registers, each data length fits, and the
// records after it read cleanly, or the CRC-32 ends the file after it). Every entity kept is
// copied as it is; the count and the CRC-32 of the data section are written for what was kept.
// The candidate is read back by the format's own reader (summarize).
#include "api.hpp"
#include "common/salvage_scan.hpp"
#include "spec.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

// Unity builds put this file beside the format's others: its helpers have a namespace of
// their own.
namespace salvaging {
namespace {

using Kind = SalvageRegion::Kind;
using salvage_scan::k_resync_chain;
using salvage_scan::Scan;
using salvage_scan::u16_at;
using salvage_scan::u32_at;

struct Entity {
    std::size_t begin = 0, end = 0;
    std::uint32_t components = 0;
};

// An entity at `pos`: GUID, component count, records each with a data length that fits (and,
// `strict`, for a resynchronisation: a type id the design registers; the reader itself only
// warns of another). Each length is checked before it is used.
// `budget` counts the records followed by every scan of one salvage, so that hostile data cannot
// make the resynchronisation quadratic: spent, every scan is implausible.
Scan entity(std::string_view d, std::size_t pos, Entity& e, bool strict, std::uint64_t& budget) {
    e = Entity{};
    e.begin = pos;
    if (pos + k_min_entity_size > d.size()) return Scan::short_data;
    const std::uint16_t count = u16_at(d, pos + k_guid_size);
    std::size_t p = pos + k_min_entity_size;
    // A resynchronisation point needs at least one component: 18 bytes of anything would
    // otherwise read as an empty entity.
    if (strict && count == 0) return Scan::implausible;
    if (count * k_min_component_size > d.size() - p) return Scan::short_data;
    for (std::uint16_t c = 0; c < count; ++c) {
        if (budget == 0) return Scan::implausible;
        --budget;
        if (p + k_min_component_size > d.size()) return Scan::short_data;
        const std::uint16_t type = u16_at(d, p);
        const std::int32_t length = static_cast<std::int32_t>(u32_at(d, p + 2));
        if (length < 0 || (strict && (type == 0 || type >= k_type_names.size())))
            return Scan::implausible;
        p += k_min_component_size;
        if (static_cast<std::size_t>(length) > d.size() - p) return Scan::short_data;
        p += static_cast<std::size_t>(length);
    }
    e.components = count;
    e.end = p;
    return Scan::ok;
}

Result<Salvaged> run(std::string_view d, const SalvageOptions& options) {
    if (d.size() > k_max_file_size)
        return make_error(
            ErrorCode::too_large,
            fmt::format("expected at most {} bytes, found {}", k_max_file_size, d.size()), 0);
    const int same = salvage_scan::magic_matching(d, k_magic);
    if (d.size() < 4 || !salvage_scan::magic_rebuildable(same, k_magic))
        return make_error(ErrorCode::bad_magic,
                          "nothing could be recovered: expected the magic \"GMSV\", found " +
                              display(d.substr(0, 4), true),
                          0);
    if (d.size() < k_off_data)
        return make_error(ErrorCode::truncated,
                          fmt::format("nothing could be recovered: expected the {}-byte header, "
                                      "found {} bytes",
                                      k_off_data, d.size()),
                          d.size());
    Salvaged s;
    s.format = FormatId::gmsv;
    s.input_size = d.size();
    const std::uint16_t stored_version = u16_at(d, k_off_version);
    const bool version_ok =
        stored_version >= k_oldest_version && stored_version <= k_current_version;
    const std::uint32_t version = version_ok ? stored_version : k_current_version;
    s.from = s.version = version;
    // The entity table.
    const std::size_t size = d.size();
    std::optional<std::uint32_t> declared;
    if (k_off_data + 4 <= size) {
        const auto c = static_cast<std::int32_t>(u32_at(d, k_off_data));
        if (c >= 0) declared = static_cast<std::uint32_t>(c);
    }
    std::uint64_t budget = 8 * static_cast<std::uint64_t>(size) + (1u << 20);
    auto ends = [&](std::size_t at) { return at + 4 == size; }; // the CRC-32, then the end
    auto chain = [&](std::size_t at) {
        for (int i = 0; i < k_resync_chain; ++i) {
            if (ends(at) || at == size) return true;
            Entity e;
            const Scan r = entity(d, at, e, true, budget);
            // The file may end inside a later entity (a truncation), not inside the first after
            // the point: that one must read whole.
            if (r == Scan::short_data) return i > 0;
            if (r != Scan::ok) return false;
            at = e.end;
        }
        return true;
    };
    std::vector<Entity> kept;
    struct Gap {
        std::size_t begin, end;
        std::string reason;
    };
    std::vector<Gap> gaps;
    std::size_t pos = std::min(size, k_off_data + 4);
    std::uint32_t index = 0;
    for (;;) {
        if (declared && index >= *declared && (ends(pos) || pos + 4 > size)) break;
        if (pos >= size || (ends(pos) && (!declared || index >= *declared))) break;
        Entity e;
        Scan r = entity(d, pos, e, !gaps.empty() || (declared && index >= *declared), budget);
        // A plausible entity after the count is taken only when the records continue.
        if (r == Scan::ok && declared && index >= *declared && !chain(e.end)) r = Scan::implausible;
        // Past the count, what does not read as an entity is the CRC-32 (and bytes after it).
        if (r != Scan::ok && declared && index >= *declared) break;
        if (r == Scan::ok) {
            kept.push_back(e);
            pos = e.end;
            ++index;
            continue;
        }
        if (ends(pos)) break; // the count is wrong: the CRC-32 follows
        std::optional<std::size_t> q;
        // (The end of the file less 4 bytes is no resynchronisation point by itself: any 4 bytes
        // would pass for the CRC-32 of a damaged section; a chain of entities that ends there is.)
        for (std::size_t at = pos + 1; at < size && budget > 0; ++at) {
            Entity c;
            if (entity(d, at, c, true, budget) == Scan::ok && chain(c.end)) {
                q = at;
                break;
            }
        }
        if (!q) {
            gaps.push_back({pos, size,
                            r == Scan::short_data
                                ? std::string("the file ends inside this entity (truncated)")
                                : std::string("damaged entity data; nothing after it reads")});
            pos = size;
            break;
        }
        gaps.push_back({pos, *q,
                        fmt::format("damaged entity data (a type id, count or length that does "
                                    "not fit); the reading resumed at offset {:#x}",
                                    *q)});
        pos = *q;
        ++index;
    }
    const bool has_crc = gaps.empty() ? pos + 4 <= size : ends(pos);
    const bool trailing = gaps.empty() && pos + 4 < size;
    const bool stored_matches =
        has_crc && u32_at(d, pos) == crc32(d.substr(k_off_data, pos - k_off_data));
    s.unverified = has_crc && !stored_matches;
    // The output: header as it is (a damaged magic or version rebuilt), the entities kept, the
    // CRC-32 of the data section, trailing bytes kept only when nothing else was damaged (the
    // design's reader ignores them). Read back with every rule: an entity the reader refuses (a
    // component type twice) is dropped, until it refuses none.
    std::vector<std::string> dropped(kept.size());
    std::string bytes;
    std::uint32_t crc = 0;
    for (std::size_t round = 0;; ++round) {
        ByteWriter out(size + 16);
        out.bytes(k_magic);
        out.u16(static_cast<std::uint16_t>(version));
        out.bytes(d.substr(k_off_timestamp, 8));
        const std::size_t data = out.size();
        std::uint32_t count = 0;
        for (const std::string& x : dropped) count += x.empty() ? 1 : 0;
        out.u32(count);
        std::vector<std::pair<std::size_t, std::size_t>> spans;
        for (std::size_t i = 0; i < kept.size(); ++i) {
            const std::size_t at = out.size();
            if (dropped[i].empty()) out.bytes(d.substr(kept[i].begin, kept[i].end - kept[i].begin));
            spans.emplace_back(at, out.size());
        }
        crc = crc32(out.view().substr(data));
        out.u32(crc);
        if (trailing && has_crc) out.bytes(d.substr(pos + 4));
        bytes = std::move(out).take();
        const Summary check = summarize(bytes);
        if (!check.findings.has_errors()) break;
        bool changed = false;
        for (const Error& e : check.findings.items()) {
            if (e.severity != Severity::error || !e.has_offset()) continue;
            for (std::size_t i = 0; i < kept.size(); ++i) {
                if (!dropped[i].empty() || e.offset < spans[i].first || e.offset >= spans[i].second)
                    continue;
                dropped[i] = "the reader would refuse it: " + e.message;
                changed = true;
            }
        }
        if (!changed || round > kept.size()) {
            const Error* e = check.findings.first_error();
            return make_error(ErrorCode::internal,
                              "salvage could not make a file the reader accepts: " +
                                  (e ? e->describe() : std::string()));
        }
    }
    // The report.
    auto& r = s.regions;
    if (same != 4)
        r.push_back({Kind::rebuilt, 0, 4, "", std::string(k_magic),
                     "expected the magic \"GMSV\", found " + display(d.substr(0, 4), true) +
                         ": the magic written"});
    else
        r.push_back({Kind::kept, 0, 4, "", {}, {}});
    if (version_ok)
        r.push_back({Kind::kept, k_off_version, 2, "version", {}, {}});
    else
        r.push_back({Kind::rebuilt, k_off_version, 2, "version", std::to_string(version),
                     fmt::format("expected a version from 1 to 3, found {}: the current version "
                                 "written",
                                 stored_version)});
    r.push_back({Kind::kept, k_off_timestamp, 8, std::string(k_timestamp), {}, {}});
    if (k_off_data + 4 <= size) {
        std::uint32_t written = 0;
        for (const std::string& x : dropped) written += x.empty() ? 1 : 0;
        if (declared && *declared == written)
            r.push_back({Kind::kept, k_off_data, 4, std::string(k_entities), {}, {}});
        else
            r.push_back({Kind::rebuilt, k_off_data, 4, std::string(k_entities),
                         std::to_string(written),
                         fmt::format("the count said {}, the output has {} entities",
                                     static_cast<std::int32_t>(u32_at(d, k_off_data)), written)});
    } else {
        if (k_off_data < size)
            r.push_back({Kind::lost,
                         k_off_data,
                         size - k_off_data,
                         std::string(k_entities),
                         {},
                         "the file ends inside the entity count (truncated)"});
        r.push_back({Kind::rebuilt, size, 0, std::string(k_entities), "0",
                     "the file ends before the entity count: 0 written"});
    }
    std::size_t g = 0, out_index = 0;
    std::string path;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        while (g < gaps.size() && gaps[g].begin < kept[i].begin) {
            r.push_back({Kind::lost,
                         gaps[g].begin,
                         gaps[g].end - gaps[g].begin,
                         std::string(k_entities),
                         {},
                         gaps[g].reason});
            ++g;
        }
        if (!dropped[i].empty()) {
            r.push_back({Kind::lost,
                         kept[i].begin,
                         kept[i].end - kept[i].begin,
                         std::string(k_entities),
                         {},
                         dropped[i]});
            ++s.totals.entities.lost;
            s.totals.components.lost += kept[i].components;
            continue;
        }
        path.assign(k_entities);
        append_path_index(path, out_index++);
        r.push_back({Kind::kept, kept[i].begin, kept[i].end - kept[i].begin, path, {}, {}});
        ++s.totals.entities.kept;
        s.totals.components.kept += kept[i].components;
    }
    for (; g < gaps.size(); ++g)
        r.push_back({Kind::lost,
                     gaps[g].begin,
                     gaps[g].end - gaps[g].begin,
                     std::string(k_entities),
                     {},
                     gaps[g].reason});
    s.totals.entities.lost += gaps.size();
    if (gaps.size() == 1 && gaps[0].end == size && declared && *declared > kept.size())
        s.totals.entities.lost += *declared - kept.size() - 1;
    // Cut at an entity's end: no byte is lost, but the entities the count declared after it are
    // (unless the stored CRC-32 vouches for the file as it is: then the count was what broke;
    // the entity count and the trailing CRC-32: formats/README.md §5).
    if (gaps.empty() && declared && *declared > kept.size() && !stored_matches)
        s.totals.entities.lost += *declared - kept.size();
    const std::string crc_text = fmt::format("{:#010x}", crc);
    if (has_crc) {
        if (stored_matches)
            r.push_back({Kind::kept, pos, 4, std::string(k_checksum), {}, {}});
        else
            r.push_back({Kind::rebuilt, pos, 4, std::string(k_checksum), crc_text,
                         gaps.empty() && declared && *declared == kept.size()
                             ? "the stored CRC-32 does not match: the CRC-32 of what was kept "
                               "written"
                             : "the CRC-32 of what was kept"});
        if (trailing)
            r.push_back({Kind::kept, pos + 4, size - pos - 4, std::string(k_trailing), {}, {}});
    } else {
        if (pos < size)
            r.push_back({Kind::lost,
                         pos,
                         size - pos,
                         std::string(k_checksum),
                         {},
                         "bytes after the entity table that are not its CRC-32"});
        r.push_back({Kind::rebuilt, size, 0, std::string(k_checksum), crc_text,
                     "the file has no CRC-32 after the entity table: the CRC-32 of what was kept "
                     "written"});
    }
    salvage_scan::total_bytes(s);
    const bool structure_complete = gaps.empty() && declared && *declared == kept.size() &&
                                    has_crc && same == 4 && version_ok && s.totals.bytes.lost == 0;
    return salvage_scan::withhold_or_write(std::move(s), std::move(bytes), structure_complete,
                                           options);
}

} // namespace
} // namespace salvaging

Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options) {
    return salvaging::run(bytes, options);
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
