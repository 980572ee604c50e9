// Salvage of a damaged tess world archive (sparksave/salvage.hpp, sparksave-salvage(1)): the
// format's entry of its row (format.cpp). The archive is a 121-byte header, the field
// descriptors and chunk records of one fixed size (formats/README.md §4.2), so the damage is
// always a record's, a header field's or a descriptor's:
//
// - the header and the descriptors must read: they are checked by the format's own reader on a
//   probe (the header and descriptors alone, as an empty sparse archive); a damaged magic (half
//   of it intact), a version that is neither 1 nor 2 (the one whose prefix tiles the records),
//   a residency that is neither dense nor sparse (dense when the records are every logical chunk
//   in key order) and a key layout version other than 1 (the only one tess knows) are rebuilt;
//   any other header or descriptor damage leaves nothing to recover;
// - the records are every whole record of the body (the body the header declares when it is
//   consistent and shorter than the file: the bytes after it are lost; else the file's bytes);
//   a record cut by the end of the file is lost;
// - a record that fails tess's checks (4.3 step 8 and 9: a key out of range or out of order,
//   a v1 chunk state above 1, a bool byte other than 0 or 1) is lost in a sparse archive (the
//   records kept are the longest run of keys that increase) and rebuilt empty in a dense one,
//   as is every dense chunk the file lacks (key, mask 0, no entities, every scalar 0);
// - the body size, the chunk count and the CRC-32 are written for what was kept.
//
// The candidate is read back by the format's reader (summarize), which must find no error.
#include "api.hpp"
#include "common/salvage_scan.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

// Unity builds put this file beside the format's others: its helpers have a namespace of
// their own.
namespace salvaging {
namespace {

using Kind = SalvageRegion::Kind;

std::uint64_t u64_at(std::string_view d, std::size_t at) {
    return boost::endian::load_little_u64(reinterpret_cast<const unsigned char*>(d.data() + at));
}
void put_u32(std::string& o, std::size_t at, std::uint32_t v) {
    boost::endian::store_little_u32(reinterpret_cast<unsigned char*>(o.data() + at), v);
}
void put_u64(std::string& o, std::size_t at, std::uint64_t v) {
    boost::endian::store_little_u64(reinterpret_cast<unsigned char*>(o.data() + at), v);
}

// The CRC-32 of 4.1: bytes [0,20) then [24,end).
std::uint32_t archive_crc(std::string_view f) {
    return crc32_update(crc32(f.substr(0, k_off_checksum)), f.substr(k_off_checksum + 4));
}

// Patches the body size and the CRC-32 of an archive in `o` (at least 121 bytes).
void seal(std::string& o) {
    put_u64(o, k_off_body_size, o.size() - k_header_size);
    put_u32(o, k_off_checksum, archive_crc(o));
}

// One record, as salvage judges it.
struct Record {
    std::size_t begin = 0;
    std::uint64_t key = 0;
    std::string problem; // empty: it passes tess's checks of one record
};

std::string record_problem(std::string_view rec, std::uint32_t version, std::uint64_t logical,
                           const std::vector<Descriptor>& fields, std::uint64_t tiles,
                           std::uint64_t& key) {
    key = u64_at(rec, 0);
    if (key >= logical)
        return fmt::format("a key of {}, not below the logical chunk count {} (tess: "
                           "InvalidChunk)",
                           key, logical);
    std::size_t at = prefix_size(version);
    if (version == k_retired_version && static_cast<unsigned char>(rec[8]) > k_chunk_state_max)
        return fmt::format("a chunk state of {}, not 0 or 1 (tess 0.12: InvalidChunk)",
                           static_cast<unsigned>(static_cast<unsigned char>(rec[8])));
    for (std::size_t f = 0; f < fields.size(); ++f) {
        const std::size_t length = static_cast<std::size_t>(tiles * fields[f].width);
        if (fields[f].kind == k_kind_bool)
            for (std::size_t t = 0; t < length; ++t)
                if (static_cast<unsigned char>(rec[at + t]) > 1)
                    return fmt::format(
                        "a bool byte of {} in field {} (the load says Corrupt)",
                        static_cast<unsigned>(static_cast<unsigned char>(rec[at + t])), f);
        at += length;
    }
    return {};
}

// The indices of a longest strictly increasing run of keys among `candidates`, the earliest
// records of all such runs (those before a damaged key are kept), in n log n: the length of the
// longest run starting at each candidate (patience sort from the end), then the candidates taken
// from the front while a run of the longest length remains possible.
std::vector<std::size_t> increasing_keys(const std::vector<Record>& records,
                                         const std::vector<std::size_t>& candidates) {
    std::vector<std::size_t> from(candidates.size()); // the longest run starting there
    std::vector<std::uint64_t> tails; // from the end: the largest first key of each run length
    for (std::size_t c = candidates.size(); c-- > 0;) {
        const std::uint64_t key = records[candidates[c]].key;
        // Runs that start with a key above this one, longest first: tails decreases.
        const auto it = std::lower_bound(tails.begin(), tails.end(), key, std::greater<>());
        from[c] = static_cast<std::size_t>(it - tails.begin()) + 1;
        if (it == tails.end())
            tails.push_back(key);
        else
            *it = key;
    }
    std::vector<std::size_t> out;
    std::size_t need = tails.size();
    std::optional<std::uint64_t> last;
    for (std::size_t c = 0; c < candidates.size() && need > 0; ++c) {
        const std::uint64_t key = records[candidates[c]].key;
        if ((last && key <= *last) || from[c] < need) continue;
        out.push_back(candidates[c]);
        last = key;
        --need;
    }
    return out;
}

std::string header_field(std::string_view name) {
    std::string p(k_header);
    p += '.';
    p += name;
    return p;
}

Result<Salvaged> run(std::string_view d, const SalvageOptions& options) {
    if (d.size() > k_max_file_size)
        return make_error(
            ErrorCode::too_large,
            fmt::format("expected at most {} bytes, found {}", k_max_file_size, d.size()), 0);
    const int same = salvage_scan::magic_matching(d, k_magic);
    if (d.size() < k_magic.size() || !salvage_scan::magic_rebuildable(same, k_magic))
        return make_error(ErrorCode::bad_magic,
                          "nothing could be recovered: expected the magic \"TESSWLD\\0\", found " +
                              display(d.substr(0, k_magic.size()), true),
                          0);
    if (d.size() < k_header_size)
        return make_error(ErrorCode::truncated,
                          fmt::format("nothing could be recovered: expected the {}-byte header, "
                                      "found {} bytes",
                                      k_header_size, d.size()),
                          d.size());
    Header h = parse_header(d);
    const std::uint32_t stored_version = h.version;
    const std::uint8_t stored_residency = h.residency;
    const std::uint32_t stored_key_layout = h.key_layout_version;

    // The header and the descriptors, checked by the reader on a probe: the header with the
    // descriptors as its whole body, an empty sparse archive of version 2 (the prefix does not
    // matter without records). Its offsets are the input's.
    const std::uint64_t descriptors = std::uint64_t{h.field_count} * k_descriptor_size;
    if (h.field_count > k_max_fields || descriptors > d.size() - k_header_size) {
        if (h.field_count > k_max_fields)
            return make_error(ErrorCode::limit_exceeded,
                              fmt::format("nothing could be recovered: expected at most {} "
                                          "fields, found {}",
                                          k_max_fields, h.field_count),
                              k_off_field_count, header_field(k_field_count));
        return make_error(ErrorCode::truncated,
                          fmt::format("nothing could be recovered: expected the {} field "
                                      "descriptors the header declares ({} bytes), found {}",
                                      h.field_count, descriptors, d.size() - k_header_size),
                          d.size(), std::string(k_fields));
    }
    const std::size_t records_at = k_header_size + static_cast<std::size_t>(descriptors);
    std::string probe(d.substr(0, records_at));
    probe.replace(0, k_magic.size(), k_magic);
    put_u32(probe, k_off_version, k_current_version);
    probe[k_off_residency] = static_cast<char>(k_residency_sparse);
    put_u64(probe, k_off_chunk_count, 0);
    const bool key_layout_rebuilt = h.key_layout_version != 1;
    if (key_layout_rebuilt) put_u32(probe, k_off_key_layout, 1);
    seal(probe);
    const Summary check = summarize(probe);
    if (const Error* e = check.findings.first_error()) {
        Error err = *e;
        err.message = "nothing could be recovered: " + err.message;
        return err;
    }
    if (!check.engine_loads)
        return make_error(ErrorCode::bad_value,
                          "nothing could be recovered: the header is one no tess world loads: " +
                              check.engine_verdict,
                          k_off_world, header_field(k_chunk_size));
    h.key_layout_version = 1;
    std::vector<Descriptor> fields(h.field_count);
    std::uint64_t row = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::size_t at = k_header_size + i * k_descriptor_size;
        fields[i].kind = static_cast<std::uint8_t>(d[at + 12]);
        fields[i].width = salvage_scan::u32_at(d, at + 13);
        row += fields[i].width;
    }
    // The probe passed the record-size equation's overflow checks and the logical count's.
    const std::uint64_t tiles = *tiles_of(h);
    const std::uint64_t columns = tiles * row;
    const std::uint64_t logical = *logical_chunks(h);

    // The version: as stored when it is 1 or 2, else the one whose prefix tiles the records.
    const std::size_t area = d.size() - records_at;
    const bool version_ok =
        stored_version == k_current_version || stored_version == k_retired_version;
    if (!version_ok) {
        const bool fits_v2 = area % (k_prefix_v2 + columns) == 0;
        const bool fits_v1 = area % (k_prefix_v1 + columns) == 0;
        h.version = fits_v1 && !fits_v2 ? k_retired_version : k_current_version;
    }
    const std::uint64_t record = prefix_size(h.version) + columns;

    // The record area: the declared body when the header is consistent and shorter than the file.
    const std::optional<std::uint64_t> declared_records = checked_mul(h.chunk_count, record);
    const bool consistent = declared_records && h.body_size >= descriptors &&
                            *declared_records == h.body_size - descriptors;
    std::size_t area_end = d.size();
    if (consistent && h.body_size < d.size() - k_header_size)
        area_end = k_header_size + static_cast<std::size_t>(h.body_size);
    const std::size_t whole = static_cast<std::size_t>((area_end - records_at) / record);
    const std::size_t whole_end = records_at + static_cast<std::size_t>(whole * record);

    std::vector<Record> records(whole);
    for (std::size_t i = 0; i < whole; ++i) {
        Record& r = records[i];
        r.begin = records_at + static_cast<std::size_t>(i * record);
        r.problem = record_problem(d.substr(r.begin, static_cast<std::size_t>(record)), h.version,
                                   logical, fields, tiles, r.key);
    }

    // The residency: as stored when it is 1 or 2, else dense when the records are every chunk in
    // key order.
    const bool residency_ok = h.residency == k_residency_dense || h.residency == k_residency_sparse;
    if (!residency_ok) {
        bool every = whole == logical;
        for (std::size_t i = 0; every && i < whole; ++i)
            every = records[i].problem.empty() && records[i].key == i;
        h.residency = every ? k_residency_dense : k_residency_sparse;
    }
    const bool dense = h.residency == k_residency_dense;

    // What each record becomes: kept (its output index), rebuilt empty (dense) or lost.
    enum class Fate : std::uint8_t { kept, empty, lost };
    std::vector<Fate> fate(whole, Fate::lost);
    std::vector<std::string> why(whole);
    if (dense) {
        const std::optional<std::uint64_t> size = checked_mul(logical, record);
        if (!size || *size > k_max_file_size - records_at)
            return make_error(ErrorCode::too_large,
                              fmt::format("nothing could be recovered: a dense archive of {} "
                                          "chunks of {} bytes is more than {} bytes",
                                          logical, record, k_max_file_size),
                              k_off_world, header_field(k_world_size));
        for (std::size_t i = 0; i < whole; ++i) {
            Record& r = records[i];
            if (i >= logical) {
                why[i] =
                    fmt::format("a dense archive holds {} chunks: a record after them", logical);
            } else if (!r.problem.empty() || r.key != i) {
                fate[i] = Fate::empty;
                why[i] =
                    r.problem.empty()
                        ? fmt::format("a key of {} where a dense archive has chunk {}", r.key, i)
                        : r.problem;
            } else {
                fate[i] = Fate::kept;
            }
        }
    } else {
        std::vector<std::size_t> candidates;
        for (std::size_t i = 0; i < whole; ++i) {
            if (records[i].problem.empty())
                candidates.push_back(i);
            else
                why[i] = records[i].problem;
        }
        for (std::size_t i : increasing_keys(records, candidates)) fate[i] = Fate::kept;
        for (std::size_t i : candidates)
            if (fate[i] != Fate::kept)
                why[i] = fmt::format("a key of {} out of order (keys strictly increase): the "
                                     "records kept are the longest run that does",
                                     records[i].key);
    }

    // The output.
    std::string out(d.substr(0, records_at));
    out.replace(0, k_magic.size(), k_magic);
    put_u32(out, k_off_version, h.version);
    put_u32(out, k_off_key_layout, h.key_layout_version);
    out[k_off_residency] = static_cast<char>(h.residency);
    const std::size_t rec = static_cast<std::size_t>(record);
    auto empty_chunk = [&](std::uint64_t key) {
        const std::size_t at = out.size();
        out.append(rec, '\0');
        put_u64(out, at, key);
    };
    std::uint64_t written = 0;
    for (std::size_t i = 0; i < whole; ++i) {
        if (fate[i] == Fate::kept) out.append(d.substr(records[i].begin, rec));
        if (fate[i] == Fate::empty) empty_chunk(i);
        if (fate[i] != Fate::lost) ++written;
    }
    const std::uint64_t present = written;
    if (dense)
        for (; written < logical; ++written) empty_chunk(written);
    put_u64(out, k_off_chunk_count, written);
    seal(out);
    const Summary back = summarize(out);
    if (const Error* e = back.findings.first_error())
        return make_error(ErrorCode::internal,
                          "salvage could not make an archive tess loads: " + e->describe());

    // The report.
    Salvaged s;
    s.format = FormatId::tess_world;
    s.from = s.version = h.version;
    s.input_size = d.size();
    const std::uint32_t stored_crc = salvage_scan::u32_at(d, k_off_checksum);
    const bool stored_matches = stored_crc == archive_crc(d);
    s.unverified = !stored_matches;
    auto& r = s.regions;
    auto field = [&](std::size_t at, std::size_t length, std::string_view name, bool kept,
                     std::string value, std::string reason) {
        if (kept)
            r.push_back({Kind::kept, at, length, header_field(name), {}, {}});
        else
            r.push_back({Kind::rebuilt, at, length, header_field(name), std::move(value),
                         std::move(reason)});
    };
    if (same == static_cast<int>(k_magic.size()))
        r.push_back({Kind::kept, 0, k_magic.size(), std::string(k_header), {}, {}});
    else
        r.push_back({Kind::rebuilt, 0, k_magic.size(), std::string(k_header), "TESSWLD\\0",
                     "expected the magic \"TESSWLD\\0\", found " +
                         display(d.substr(0, k_magic.size()), true) + ": the magic written"});
    field(k_off_version, 4, k_version, version_ok, std::to_string(h.version),
          fmt::format("expected format version 2 (or the retired 1), found {}: version {} written "
                      "(its record prefix tiles the records)",
                      stored_version, h.version));
    const std::uint64_t body = out.size() - k_header_size;
    field(k_off_body_size, 8, k_body_size, h.body_size == body, std::to_string(body),
          fmt::format("the header said {}, the body written is {} bytes", h.body_size, body));
    const std::uint32_t crc = salvage_scan::u32_at(out, k_off_checksum);
    field(k_off_checksum, 4, k_checksum, stored_crc == crc, fmt::format("{:#010x}", crc),
          stored_matches ? "the CRC-32 of what was written"
                         : fmt::format("the stored CRC-32 {:#010x} does not match the file's "
                                       "{:#010x}: the CRC-32 of what was written",
                                       stored_crc, archive_crc(d)));
    r.push_back(
        {Kind::kept, k_off_world, k_off_key_layout - k_off_world, std::string(k_header), {}, {}});
    field(k_off_key_layout, 4, k_key_layout_version, !key_layout_rebuilt, "1",
          fmt::format("tess knows key layout version 1 only, found {}: 1 written",
                      stored_key_layout));
    r.push_back({Kind::kept,
                 k_off_schema_id,
                 k_off_residency - k_off_schema_id,
                 std::string(k_header),
                 {},
                 {}});
    field(k_off_residency, 1, k_residency, residency_ok, std::string(residency_name(h.residency)),
          fmt::format("expected a residency of 1 (dense) or 2 (sparse), found {}: {} written",
                      stored_residency, residency_name(h.residency)));
    field(k_off_field_count, 4, k_field_count, true, {}, {});
    field(k_off_chunk_count, 8, k_chunk_count, h.chunk_count == written, std::to_string(written),
          fmt::format("the header said {}, the archive written has {} chunks", h.chunk_count,
                      written));
    if (records_at > k_header_size)
        r.push_back(
            {Kind::kept, k_header_size, records_at - k_header_size, std::string(k_fields), {}, {}});
    std::uint64_t index = 0;
    for (std::size_t i = 0; i < whole; ++i) {
        const std::string where = fmt::format("chunk key {} (record {})", records[i].key, i);
        switch (fate[i]) {
        case Fate::kept:
            r.push_back({Kind::kept, records[i].begin, rec, chunk_path(index++), {}, {}});
            ++s.totals.entities.kept;
            s.totals.components.kept += fields.size();
            break;
        case Fate::empty:
            r.push_back(
                {Kind::lost, records[i].begin, rec, chunk_path(index), {}, where + ": " + why[i]});
            r.push_back({Kind::rebuilt, records[i].begin + rec, 0, chunk_path(index),
                         fmt::format("an empty chunk, key {}", i),
                         "a dense archive holds every chunk: this one written empty"});
            ++index;
            ++s.totals.entities.lost;
            s.totals.components.lost += fields.size();
            break;
        case Fate::lost:
            r.push_back({Kind::lost,
                         records[i].begin,
                         rec,
                         std::string(k_chunks),
                         {},
                         where + ": " + why[i]});
            ++s.totals.entities.lost;
            s.totals.components.lost += fields.size();
            break;
        }
    }
    if (whole_end < area_end) {
        r.push_back({Kind::lost,
                     whole_end,
                     area_end - whole_end,
                     chunk_path(index),
                     {},
                     "the file ends inside this chunk record (truncated)"});
        ++s.totals.entities.lost;
        s.totals.components.lost += fields.size();
    }
    if (consistent && h.chunk_count > whole + (whole_end < area_end ? 1 : 0)) {
        const std::uint64_t missing = h.chunk_count - whole - (whole_end < area_end ? 1 : 0);
        s.totals.entities.lost += missing;
        s.totals.components.lost += missing * fields.size();
    }
    if (written > present)
        r.push_back({Kind::rebuilt, area_end, 0, chunk_path(present),
                     fmt::format("{} empty chunk{}, keys {} to {}", written - present,
                                 written - present == 1 ? "" : "s", present, written - 1),
                     "a dense archive holds every chunk: the ones the file lacks written empty"});
    if (area_end < d.size())
        r.push_back({Kind::lost,
                     area_end,
                     d.size() - area_end,
                     std::string(k_trailing),
                     {},
                     "bytes after the body the header declares"});
    salvage_scan::total_bytes(s);
    bool only_checksum = true;
    for (const SalvageRegion& x : r)
        if (x.kind != Kind::kept && x.path != header_field(k_checksum)) only_checksum = false;
    return salvage_scan::withhold_or_write(std::move(s), std::move(out), only_checksum, options);
}

} // namespace
} // namespace salvaging

Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options) {
    return salvaging::run(bytes, options);
}

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
