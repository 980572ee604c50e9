// Salvage of a damaged `.spark_save` (sparksave/salvage.hpp, sparksave-salvage(1)): the format's
// entry of its row (format.cpp). The file is read as far as its structure allows, resynchronising
// at the next plausible entity after damage; the candidate is assembled from the input's own bytes
// (every entity kept is copied as it is, so the write is exact), then read back with the format's
// reader (read_back, every rule of formats/README.md §1.4/1.5): what the engine would still refuse
// (a duplicate, an explicit NameComponent) is dropped and reported, a Transform parent that no
// longer names its entity is rebuilt, until the reader finds no error.
#include "api.hpp"
#include "common/salvage_scan.hpp"
#include "extract.hpp"
#include "metadata.hpp"
#include "reader.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// Unity builds put this file beside the format's others: its helpers have a namespace of
// their own.
namespace salvaging {
namespace {

using Kind = SalvageRegion::Kind;

using salvage_scan::k_resync_chain;
using salvage_scan::Scan;
using salvage_scan::u16_at;

// A name a resynchronisation accepts: printable bytes (UTF-8 sequences included), no controls.
bool printable(std::string_view s) noexcept {
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

// One entity as the scan found it: where it is and where its Transform parents' values are.
struct Entity {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::uint32_t components = 0;
    std::uint32_t properties = 0;
    std::vector<std::pair<std::size_t, std::size_t>> parents; // value offset, length
};

struct Pair {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string_view key;
};

// The scanner of the entity list and the custom state: lengths checked before every use, a budget
// of work (each length followed, each name byte checked) so that hostile data cannot make the
// resynchronisation quadratic.
class Scanner {
  public:
    Scanner(std::string_view d)
        : d_(d), budget_(8 * static_cast<std::uint64_t>(d.size()) + (1u << 20)) {}

    bool exhausted() const noexcept { return budget_ == 0; }

    // An entity at `pos` that ends at or before `end`. `strict`: a resynchronisation candidate,
    // whose name and component types must be printable (types also non-empty).
    Scan entity(std::size_t pos, std::size_t end, bool strict, Entity& e) {
        e = Entity{};
        e.begin = pos;
        std::size_t p = pos;
        std::string_view name;
        if (Scan s = string(p, end, name); s != Scan::ok) return s;
        if (strict && !printable(name)) return Scan::implausible;
        if (!spend(name.size())) return Scan::implausible;
        if (p + 2 > end) return Scan::short_data;
        const std::uint16_t components = u16_at(d_, p);
        p += 2;
        // A resynchronisation point needs a name or a component: four zero bytes would otherwise
        // read as an unnamed empty entity.
        if (strict && components == 0 && name.empty()) return Scan::implausible;
        if (strict && components * k_min_component_size > end - p)
            return end == d_.size() ? Scan::short_data : Scan::implausible;
        for (std::uint16_t c = 0; c < components; ++c) {
            std::string_view type;
            if (Scan s = string(p, end, type); s != Scan::ok) return s;
            if (strict && (type.empty() || !printable(type) || !spend(type.size())))
                return Scan::implausible;
            if (p + 2 > end) return Scan::short_data;
            const std::uint16_t properties = u16_at(d_, p);
            p += 2;
            if (strict && properties * k_min_pair_size > end - p)
                return end == d_.size() ? Scan::short_data : Scan::implausible;
            const bool transform = type == k_transform;
            for (std::uint16_t i = 0; i < properties; ++i) {
                std::string_view key, value;
                if (Scan s = string(p, end, key); s != Scan::ok) return s;
                if (Scan s = string(p, end, value); s != Scan::ok) return s;
                if (transform && key == k_parent)
                    e.parents.emplace_back(static_cast<std::size_t>(value.data() - d_.data()),
                                           value.size());
            }
            e.properties += properties;
        }
        e.components = components;
        e.end = p;
        return Scan::ok;
    }

    // The custom state at `pos` read exactly: its count, then that many pairs, ending at `end`.
    bool tail_exact(std::size_t pos, std::size_t end, std::vector<Pair>* pairs) {
        if (pos + 4 > end) return false;
        const std::uint32_t count = load_u32(d_, pos);
        if (count > k_max_custom_state || count > (end - pos - 4) / k_min_pair_size) return false;
        std::size_t p = pos + 4;
        if (pairs) pairs->clear();
        for (std::uint32_t i = 0; i < count; ++i) {
            Pair pair;
            pair.begin = p;
            std::string_view value;
            if (string(p, end, pair.key) != Scan::ok || string(p, end, value) != Scan::ok)
                return false;
            pair.end = p;
            if (pairs) pairs->push_back(pair);
        }
        return p == end;
    }

    // A u16 length and its bytes at `p`, within `end`; `p` moves past them.
    Scan string(std::size_t& p, std::size_t end, std::string_view& s) {
        if (!spend(1)) return Scan::implausible;
        if (p + 2 > end) return Scan::short_data;
        const std::uint16_t n = u16_at(d_, p);
        if (n > end - p - 2) return Scan::short_data;
        s = d_.substr(p + 2, n);
        p += 2 + n;
        return Scan::ok;
    }

  private:
    bool spend(std::uint64_t n) {
        if (budget_ < n) {
            budget_ = 0;
            return false;
        }
        budget_ -= n;
        return true;
    }
    std::string_view d_;
    std::uint64_t budget_;
};

// The metadata block as salvage writes it.
struct Meta {
    std::size_t size_at = 8; // the metaSize field
    std::size_t begin = 12;  // the block in the input
    std::size_t end = 12;    // where the entity count starts
    bool size_rebuilt = false;
    bool rewritten = false; // the block is `text`, not the input's bytes
    std::string text;
    std::vector<SalvageRegion> regions; // of [begin, end), when rewritten
};

// The line layout of a version's block (1.2): one field a line, position's parts on one line.
struct LineField {
    std::string_view name;
    ValueType type;
    std::uint8_t parts;
};

std::vector<LineField> line_fields(std::uint32_t version) {
    std::vector<LineField> out;
    for (const MetaFieldSpec& f : k_meta_fields)
        if (in_version(f, version)) out.push_back({f.name, f.type, f.parts});
    return out;
}

// Is `line` a value of the field as the engine's `>>` reads it, with nothing left over?
bool number_line(std::string_view line, const LineField& f) {
    std::size_t pos = 0;
    for (std::uint8_t part = 0; part < f.parts; ++part) {
        const Extraction x = extract_number(line, pos, f.type);
        if (!x.ok()) return false;
        if (f.type == ValueType::floating && !std::isfinite(x.f)) return false;
        pos = x.end;
    }
    return pos == line.size() && !line.empty() && !is_space(line.front());
}

// Does the block read cleanly as `version` reads it (1.2: complete, not shifted, no refusal; a
// warning of a build difference is no refusal)?
bool clean_block(std::string_view block, std::uint32_t version) {
    MetadataBlock meta;
    bool problem = false;
    parse_metadata_block(
        block, 0, version, meta, [&](std::size_t, std::string, std::string) { problem = true; },
        [](std::size_t, std::string, std::string) {}, // a build difference: the engine loads it
        [&](std::size_t, std::string, std::string) { problem = true; });
    return !problem && meta.complete && !meta.shifted;
}

// The block rebuilt line by line in the writer's layout: each line that is its field's value is
// kept, an unreadable number becomes 0, a string loses its CR (which the engine refuses), a missing
// line is written as the default, lines after the last field are lost.
void rebuild_block(std::string_view d, Meta& m, std::uint32_t version) {
    const std::vector<LineField> fields = line_fields(version);
    m.rewritten = true;
    m.text.clear();
    m.regions.clear();
    std::size_t p = m.begin;
    std::string path;
    for (const LineField& f : fields) {
        path.assign(k_metadata);
        append_path_name(path, f.name);
        const std::size_t nl = d.substr(0, m.end).find('\n', p);
        if (p >= m.end) {
            const std::string value =
                f.type == ValueType::string ? "" : (f.parts == 3 ? "0 0 0" : "0");
            m.text += value;
            m.text += '\n';
            m.regions.push_back({Kind::rebuilt, m.end, 0, path, value,
                                 "the block ends before this field: the default written"});
            continue;
        }
        const std::size_t line_end = nl == std::string_view::npos ? m.end : nl;
        const std::size_t next = nl == std::string_view::npos ? m.end : nl + 1;
        std::string_view line = d.substr(p, line_end - p);
        std::string value;
        std::string reason;
        if (f.type == ValueType::string) {
            for (char c : line)
                if (c != '\r') value += c;
            if (value.size() != line.size())
                reason = "a CR in a string field, which the engine refuses: removed";
            if (nl == std::string_view::npos && reason.empty())
                reason = "the line has no line end: kept as the field's text";
        } else if (std::string_view n =
                       line.ends_with('\r') ? line.substr(0, line.size() - 1) : line;
                   number_line(n, f)) {
            value.assign(n);
            if (n.size() != line.size()) reason = "a CR at the end of the line: removed";
            if (nl == std::string_view::npos) reason = "the line has no line end";
        } else {
            value = f.parts == 3 ? "0 0 0" : "0";
            reason = fmt::format("expected a number the engine reads, found {}: rebuilt as 0",
                                 display(line, true));
        }
        m.text += value;
        m.text += '\n';
        if (reason.empty())
            m.regions.push_back({Kind::kept, p, next - p, path, {}, {}});
        else
            m.regions.push_back({Kind::rebuilt, p, next - p, path, value, reason});
        p = next;
    }
    if (p < m.end)
        m.regions.push_back({Kind::lost,
                             p,
                             m.end - p,
                             std::string(k_metadata),
                             {},
                             "text after the last field of the block, which the engine refuses"});
}

struct Candidate {
    std::string bytes;
    std::optional<std::uint32_t> crc; // a v4 candidate's CRC-32, as written in its trailer
    std::vector<std::pair<std::size_t, std::size_t>> entity_spans; // output spans, by entity
    std::vector<std::pair<std::size_t, std::size_t>> pair_spans;
    std::size_t meta_begin = 0, meta_end = 0;
};

// The state of one salvage.
class Salvager {
  public:
    Salvager(std::string_view d, const SalvageOptions& o) : d_(d), o_(o), scan_(d) {}

    Result<Salvaged> run();

  private:
    Result<void> header();
    void choose_version();
    void metadata();
    void payload();
    void tally();
    bool chain(std::size_t pos);
    std::optional<std::size_t> resync(std::size_t from, std::size_t end);
    void lenient_tail(std::size_t pos);
    bool tail_ends(std::size_t pos, std::vector<Pair>* pairs);
    Candidate assemble();
    bool fix(const Candidate& c, const Findings& findings);
    void regions(Salvaged& s, const Candidate& c);

    bool rules_current() const noexcept {
        return current_rules(o_.to.value_or(version_)) || current_rules(version_);
    }
    std::size_t payload_limit() const noexcept { return d_.size(); }

    std::string_view d_;
    SalvageOptions o_;
    Scanner scan_;
    std::uint32_t stored_version_ = 0;
    bool magic_rebuilt_ = false;
    std::uint32_t version_ = 0;
    bool version_rebuilt_ = false;
    std::string version_reason_;
    bool crc_ok_ = false;
    Meta meta_;
    std::uint32_t declared_ = 0;
    bool count_readable_ = false;
    // The entity list: entities kept (in input order), with whether the index is the input's.
    struct Kept {
        Entity e;
        std::optional<std::uint64_t> index; // its index in the input's entity list, when known
        bool dropped = false;
        std::string reason;
        std::string root_reason; // set: every Transform parent of it is made a root (-1)
    };
    std::vector<Kept> entities_;
    // Lost stretches of the payload: [begin, end) and why.
    struct Gap {
        std::size_t begin, end;
        std::string reason;
    };
    std::vector<Gap> gaps_;
    std::size_t entities_end_ = 0; // where the custom state starts
    // The custom state.
    bool custom_present_ = false; // the input has a count
    bool custom_rebuilt_ = false; // the count written is not the input's
    std::size_t custom_at_ = 0;   // the count
    std::uint32_t custom_declared_ = 0;
    std::uint32_t pairs_cut_off_ = 0; // declared by the count, after the end of the file
    std::vector<Pair> pairs_;
    std::vector<bool> pair_dropped_;
    std::vector<std::string> pair_reason_;
    std::size_t tail_end_ = 0; // after the last pair kept
    // After the custom state: the old trailer, trailing bytes (v1/v2 keep them), the rest lost.
    std::size_t trailer_at_ = 0; // the v4 checksum, when there is one in the input
    bool has_trailer_ = false;
    std::size_t trailing_kept_end_ = 0; // v1/v2 trailing bytes kept: [tail_end_, this)
    // Parent values rebuilt: input offset of the value -> its new text.
    std::unordered_map<std::size_t, std::string> parent_text_;
    std::unordered_map<std::size_t, std::string> parent_reason_;
    std::uint32_t entities_lost_in_gaps_ = 0;
};

Result<void> Salvager::header() {
    // A magic with one or two bytes damaged is rebuilt (the caller named the format: detection
    // by content needs the magic, so `--input-format spark_save` brings such a file here).
    const int same = salvage_scan::magic_matching(d_, k_magic);
    if (d_.size() < 4 || !salvage_scan::magic_rebuildable(same, k_magic))
        return make_error(ErrorCode::bad_magic,
                          "nothing could be recovered: expected the magic \"SPRK\", found " +
                              display(d_.substr(0, 4), true),
                          0);
    if (d_.size() < 12)
        return make_error(ErrorCode::truncated,
                          fmt::format("nothing could be recovered: expected at least 12 bytes "
                                      "(magic, version, metadata size), found {}",
                                      d_.size()),
                          d_.size());
    magic_rebuilt_ = same != 4;
    stored_version_ = load_u32(d_, 4);
    return {};
}

void Salvager::choose_version() {
    const std::size_t size = d_.size();
    // The CRC-32 as a v4 file, of the file with its magic as rebuilt (a rare copy).
    const bool crc_as4 = [&] {
        if (!magic_rebuilt_) return whole_crc(d_) == load_u32(d_, size - 4);
        std::string fixed(d_);
        fixed.replace(0, 4, k_magic);
        return whole_crc(fixed) == load_u32(d_, size - 4);
    }();
    if (stored_version_ == k_current_version) {
        version_ = k_current_version;
        crc_ok_ = crc_as4;
        return;
    }
    if (crc_as4) {
        // 1.5: a trailer that verifies only with version 4 is a v4 save whose version was damaged.
        version_ = k_current_version;
        crc_ok_ = true;
        version_rebuilt_ = true;
        version_reason_ = fmt::format(
            "the version field says {}, but the file ends in a CRC-32 that verifies only with "
            "version 4 (formats/README.md §1.5): a damaged v4 version field",
            stored_version_);
        return;
    }
    if (stored_version_ >= 1 && stored_version_ < k_current_version) {
        version_ = stored_version_;
        // A v2/v3 field over a block in the v1 layout (10 lines, no screenshotPath: formats/
        // README.md 1.2) that reads cleanly only as v1: a v1 file whose version was damaged
        // (read as v2/v3, its fields would shift).
        const std::uint32_t meta_size = load_u32(d_, 8);
        if (stored_version_ >= 2 && meta_size <= k_max_meta_size &&
            12 + std::size_t{meta_size} <= size) {
            const std::string_view block = d_.substr(12, meta_size);
            if (std::count(block.begin(), block.end(), '\n') == 10 && block.ends_with('\n') &&
                clean_block(block, 1) && !clean_block(block, stored_version_)) {
                version_ = 1;
                version_rebuilt_ = true;
                version_reason_ = fmt::format(
                    "the version field says {}, but the metadata block has the v1 layout (no "
                    "screenshotPath) and reads only as v1: version 1 written",
                    stored_version_);
            }
        }
        return;
    }
    // Damaged beyond the CRC test: the version the block's layout and the file's end say. A
    // v1 block has 10 lines (no screenshotPath); a v4 file ends in a trailer after the custom
    // state; else v3, the oldest the engine loads.
    const std::uint32_t meta_size = load_u32(d_, 8);
    std::uint32_t guess = 3;
    if (meta_size <= k_max_meta_size && 12 + std::size_t{meta_size} <= size) {
        const std::string_view block = d_.substr(12, meta_size);
        const auto lines = std::count(block.begin(), block.end(), '\n');
        if (lines == 10) guess = 1;
    }
    if (guess == 3) {
        version_ = 4;
        metadata();
        payload();
        if (has_trailer_ && gaps_.empty()) guess = 4;
        // Start again with the version chosen.
        meta_ = Meta{};
        entities_.clear();
        gaps_.clear();
        pairs_.clear();
        has_trailer_ = false;
        custom_present_ = custom_rebuilt_ = false;
        trailing_kept_end_ = 0;
        entities_lost_in_gaps_ = 0;
    }
    version_ = guess;
    version_rebuilt_ = true;
    version_reason_ = fmt::format("expected a version from 1 to 4, found {}: version {} written, "
                                  "from the file's layout",
                                  stored_version_, guess);
}

void Salvager::metadata() {
    const std::size_t size = d_.size();
    const std::uint32_t stored = load_u32(d_, 8);
    const std::size_t lines = line_fields(version_).size(); // one line a field
    // The block by its stored size (A), and by its line count (B).
    std::optional<std::size_t> a, b;
    if (stored <= k_max_meta_size && 12 + std::size_t{stored} + 4 <= size) a = stored;
    {
        std::size_t p = 12, n = 0;
        const std::string_view head =
            d_.substr(0, std::min(size, std::size_t{12} + k_max_meta_size));
        while (n < lines) {
            const std::size_t nl = head.find('\n', p);
            if (nl == std::string_view::npos) break;
            p = nl + 1;
            ++n;
        }
        if (n == lines && p + 4 <= size) b = p - 12;
    }
    auto fits = [&](std::size_t block_size) {
        const std::size_t at = 12 + block_size;
        if (at + 4 > size) return false;
        const std::uint32_t count = load_u32(d_, at);
        if (count > k_max_entities) return false;
        if (count == 0) return tail_ends(at + 4, nullptr) || at + 4 == size;
        Entity e;
        return scan_.entity(at + 4, size, true, e) != Scan::implausible;
    };
    // The file read with a block of `block_size` as the engine reads it: every entity, then the
    // custom state, to the file's end exactly (a v1/v2 file may end after its entities). A valid
    // file whose first entity is unnamed and empty fails fits() (no resynchronisation point),
    // and must still be read as it is (a salvage of a salvaged file changes nothing).
    auto reads_whole = [&](std::size_t block_size) {
        std::size_t at = 12 + block_size;
        if (at + 4 > size) return false;
        const std::uint32_t count = load_u32(d_, at);
        if (count > k_max_entities || count > (size - at - 4) / k_min_entity_size) return false;
        at += 4;
        for (std::uint32_t i = 0; i < count; ++i) {
            Entity e;
            if (scan_.entity(at, size, false, e) != Scan::ok) return false;
            at = e.end;
        }
        return tail_ends(at, nullptr) || (at == size && !current_rules(version_));
    };
    std::size_t chosen;
    if (a && (fits(*a) || !b || !fits(*b) || reads_whole(*a))) {
        chosen = *a;
    } else if (b) {
        chosen = *b;
        meta_.size_rebuilt = true;
    } else {
        // Neither: the file ends inside the block (or the size is unreadable): everything up to
        // the end is the block, rebuilt from the lines it has.
        chosen = size - 12;
        meta_.size_rebuilt = true;
    }
    meta_.begin = 12;
    meta_.end = 12 + chosen;
    const std::string_view block = d_.substr(12, chosen);
    // The v1/v2 readers do not check the block (1.4); the current rules do, and so does the
    // migration to them.
    const bool check = rules_current();
    const bool readable = !check || clean_block(block, version_);
    if (!readable || (meta_.size_rebuilt && !b)) rebuild_block(d_, meta_, version_);
}

bool Salvager::tail_ends(std::size_t pos, std::vector<Pair>* pairs) {
    const std::size_t size = d_.size();
    if (version_ == k_current_version && size >= 4 && pos + 4 <= size - 4 &&
        scan_.tail_exact(pos, size - 4, pairs)) {
        return true;
    }
    return scan_.tail_exact(pos, size, pairs);
}

// Do the records from `pos` continue cleanly: k_resync_chain more entities, or fewer then the
// custom state that ends the file, or the data's end?
bool Salvager::chain(std::size_t pos) {
    for (int i = 0; i < k_resync_chain; ++i) {
        if (tail_ends(pos, nullptr)) return true;
        if (pos == d_.size()) return true;
        Entity e;
        const Scan s = scan_.entity(pos, d_.size(), true, e);
        // The file may end inside a later entity (a truncation), not inside the first after the
        // point: that one must read whole.
        if (s == Scan::short_data) return i > 0;
        if (s != Scan::ok) return false;
        pos = e.end;
    }
    return true;
}

std::optional<std::size_t> Salvager::resync(std::size_t from, std::size_t end) {
    for (std::size_t q = from; q < end; ++q) {
        if (scan_.exhausted()) return std::nullopt;
        if (tail_ends(q, nullptr)) return q;
        Entity e;
        if (scan_.entity(q, d_.size(), true, e) == Scan::ok && chain(e.end)) return q;
    }
    return std::nullopt;
}

void Salvager::payload() {
    const std::size_t size = d_.size();
    std::size_t pos = meta_.end;
    if (pos + 4 > size) {
        count_readable_ = false;
        entities_end_ = pos;
        lenient_tail(pos);
        return;
    }
    declared_ = load_u32(d_, pos);
    count_readable_ = declared_ <= k_max_entities;
    pos += 4;
    std::uint64_t index = 0;
    bool indices_known = true;
    for (;;) {
        if (entities_.size() == k_max_entities) {
            // 1.4: the engine reads at most this many; what follows cannot be kept.
            if (pos < size)
                gaps_.push_back(
                    {pos, size,
                     fmt::format("entities beyond the engine's limit of {}", k_max_entities)});
            entities_end_ = size;
            lenient_tail(size);
            tally();
            return;
        }
        if (index >= declared_ || !count_readable_) {
            if (tail_ends(pos, nullptr)) break;
            if (!current_rules(version_) && pos == size) break; // v1/v2: no custom state
            // More entities than the count says: take them only when they continue cleanly.
            Entity e;
            if (scan_.entity(pos, size, true, e) == Scan::ok && chain(e.end)) {
                entities_.push_back(Kept{e, std::nullopt, false, {}, {}});
                pos = e.end;
                ++index;
                continue;
            }
            break;
        }
        if (pos >= size) break;
        // A plausible entity (printable names) is taken at once; else the custom state that ends
        // the file here means the count is wrong; else any entity that reads (a game's own odd
        // names), before the first damage only.
        Entity e;
        Scan s = scan_.entity(pos, size, true, e);
        if (s != Scan::ok) {
            // An entity that reads and after which the file continues (or ends) is one, even
            // where its bytes would also read as the custom state that ends the file (an
            // unnamed empty entity is 4 zero bytes, a custom state of no pair too).
            Entity loose;
            const Scan l = gaps_.empty() ? scan_.entity(pos, size, false, loose) : s;
            if (l == Scan::ok && chain(loose.end)) {
                e = loose;
                s = l;
            } else if (tail_ends(pos, nullptr)) {
                break;
            } else if (l == Scan::ok) {
                e = loose;
                s = l;
            }
        }
        if (s == Scan::ok) {
            entities_.push_back(
                Kept{e,
                     indices_known ? std::optional<std::uint64_t>(index) : std::nullopt,
                     false,
                     {},
                     {}});
            pos = e.end;
            ++index;
            continue;
        }
        // The count says more entities, but none reads here: damage to resynchronise after.
        const std::optional<std::size_t> q = resync(pos + 1, size);
        if (!q) {
            // Nothing plausible follows: the file was cut (or is damaged to its end).
            gaps_.push_back({pos, size,
                             s == Scan::short_data
                                 ? std::string("the file ends inside this entity (truncated)")
                                 : std::string("damaged entity data; no entity or custom state "
                                               "could be read after it")});
            entities_end_ = size;
            lenient_tail(size);
            tally();
            return;
        }
        gaps_.push_back({pos, *q,
                         fmt::format("damaged entity data (a length or count that does not fit); "
                                     "the reading resumed at offset {:#x}",
                                     *q)});
        indices_known = false;
        pos = *q;
        ++index; // at least the damaged entity
    }
    entities_end_ = pos;
    lenient_tail(pos);
    tally();
}

void Salvager::tally() {
    // After a gap the input's indices of the entities that follow are known only when the count
    // is trustworthy: the list then ended at the custom state with exactly that many entities
    // behind the last gap's end.
    if (!gaps_.empty() && count_readable_) {
        std::size_t after = 0;
        for (auto it = entities_.rbegin(); it != entities_.rend() && !it->index; ++it) ++after;
        std::size_t before = entities_.size() - after;
        if (declared_ >= before + after + gaps_.size() && gaps_.size() == 1 &&
            tail_ends(entities_end_, nullptr)) {
            for (std::size_t i = 0; i < after; ++i)
                entities_[before + i].index = declared_ - after + i;
            entities_lost_in_gaps_ = static_cast<std::uint32_t>(declared_ - before - after);
        } else if (after == 0 && gaps_.size() == 1 && gaps_.back().end == d_.size() &&
                   declared_ > before) {
            // Cut short: the entities the count says, less those before the cut.
            entities_lost_in_gaps_ = static_cast<std::uint32_t>(declared_ - before);
        } else {
            entities_lost_in_gaps_ = static_cast<std::uint32_t>(gaps_.size());
        }
    } else if (!gaps_.empty()) {
        entities_lost_in_gaps_ = static_cast<std::uint32_t>(gaps_.size());
    } else if (count_readable_ && entities_end_ == d_.size() && declared_ > entities_.size()) {
        // Cut at an entity's end: no byte is lost, but the entities the count declared after it
        // are (the entityCount of formats/README.md §1.1).
        entities_lost_in_gaps_ = static_cast<std::uint32_t>(declared_ - entities_.size());
    }
}

// The custom state from `pos`, as much of it as reads: the pairs that fit are kept, the count is
// rebuilt when it is not the number kept, whatever follows is the trailer, kept trailing bytes
// (v1/v2) or lost.
void Salvager::lenient_tail(std::size_t pos) {
    const std::size_t size = d_.size();
    custom_at_ = pos;
    pairs_.clear();
    if (tail_ends(pos, &pairs_)) {
        custom_present_ = true;
        custom_declared_ = load_u32(d_, pos);
        tail_end_ = pairs_.empty() ? pos + 4 : pairs_.back().end;
    } else if (pos + 4 <= size) {
        custom_present_ = true;
        custom_declared_ = load_u32(d_, pos);
        pairs_.clear();
        std::size_t p = pos + 4;
        const std::uint32_t limit = std::min<std::uint32_t>(custom_declared_, k_max_custom_state);
        for (std::uint32_t i = 0; i < limit; ++i) {
            Pair pair;
            pair.begin = p;
            std::string_view value;
            std::size_t q = p;
            if (scan_.string(q, size, pair.key) != Scan::ok ||
                scan_.string(q, size, value) != Scan::ok)
                break;
            pair.end = q;
            pairs_.push_back(pair);
            p = q;
        }
        if (pairs_.size() != custom_declared_) custom_rebuilt_ = true;
        // The file ends before the pairs its count declared (customStateCount, §1.1; a count
        // within the engine's limit, §1.4): those are lost, whether or not a byte of them is in
        // the file.
        if (p == size && custom_declared_ <= k_max_custom_state)
            pairs_cut_off_ = custom_declared_ - static_cast<std::uint32_t>(pairs_.size());
        tail_end_ = p;
    } else {
        custom_present_ = false;
        tail_end_ = pos;
        // v3/v4 need the count (1.4): it is rebuilt as 0. v1/v2 may end without one.
        if (current_rules(version_) || pos != size) custom_rebuilt_ = current_rules(version_);
    }
    pair_dropped_.assign(pairs_.size(), false);
    pair_reason_.assign(pairs_.size(), {});
    // What follows the custom state.
    has_trailer_ = false;
    trailing_kept_end_ = tail_end_;
    if (version_ == k_current_version && tail_end_ + 4 == size) {
        has_trailer_ = true;
        trailer_at_ = tail_end_;
    } else if (!current_rules(version_) && custom_present_ && !custom_rebuilt_ && gaps_.empty()) {
        trailing_kept_end_ = size; // 1.4: the v1/v2 readers ignore trailing bytes
    }
}

Candidate Salvager::assemble() {
    Candidate c;
    ByteWriter out(d_.size() + 64);
    out.bytes(k_magic);
    out.u32(version_);
    const std::string_view block = meta_.rewritten
                                       ? std::string_view(meta_.text)
                                       : d_.substr(meta_.begin, meta_.end - meta_.begin);
    out.u32(static_cast<std::uint32_t>(block.size()));
    c.meta_begin = out.size();
    out.bytes(block);
    c.meta_end = out.size();
    // The new index of each input index kept.
    std::unordered_map<std::uint64_t, std::uint64_t> new_index;
    std::uint32_t count = 0;
    for (const Kept& k : entities_) {
        if (k.dropped) continue;
        if (k.index) new_index.emplace(*k.index, count);
        ++count;
    }
    out.u32(count);
    parent_text_.clear();
    parent_reason_.clear();
    for (const Kept& k : entities_) {
        if (k.dropped) {
            c.entity_spans.emplace_back(0, 0);
            continue;
        }
        const std::size_t start = out.size();
        std::size_t from = k.e.begin;
        for (const auto& [at, length] : k.e.parents) {
            const std::string_view text = d_.substr(at, length);
            const std::optional<long long> p = parse_parent_index(text);
            std::string rewritten;
            std::string reason;
            if (!k.root_reason.empty()) {
                if (text == "-1") continue;
                rewritten = "-1";
                reason = k.root_reason + ": the Transform is made a root";
            } else if (p && *p == -1) {
                continue;
            } else if (p && *p >= 0) {
                const auto it = new_index.find(static_cast<std::uint64_t>(*p));
                if (it != new_index.end()) {
                    if (it->second == static_cast<std::uint64_t>(*p)) continue;
                    rewritten = std::to_string(it->second);
                    reason = fmt::format("the parent, input entity {}, is entity {} of the output",
                                         *p, it->second);
                } else {
                    rewritten = "-1";
                    reason = fmt::format("the parent, input entity {}, was lost: the Transform is "
                                         "made a root",
                                         *p);
                }
            } else {
                continue; // a malformed parent: the read-back names it, fix() makes it a root
            }
            // The value's length field is the two bytes before it.
            out.bytes(d_.substr(from, at - 2 - from));
            out.u16(static_cast<std::uint16_t>(rewritten.size()));
            out.bytes(rewritten);
            from = at + length;
            parent_text_[at] = rewritten;
            parent_reason_[at] = reason;
        }
        out.bytes(d_.substr(from, k.e.end - from));
        c.entity_spans.emplace_back(start, out.size());
    }
    if (custom_present_ || custom_rebuilt_) {
        std::uint32_t pairs = 0;
        for (std::size_t i = 0; i < pairs_.size(); ++i) pairs += pair_dropped_[i] ? 0 : 1;
        out.u32(pairs);
        for (std::size_t i = 0; i < pairs_.size(); ++i) {
            if (pair_dropped_[i]) {
                c.pair_spans.emplace_back(0, 0);
                continue;
            }
            const std::size_t start = out.size();
            out.bytes(d_.substr(pairs_[i].begin, pairs_[i].end - pairs_[i].begin));
            c.pair_spans.emplace_back(start, out.size());
        }
    }
    if (trailing_kept_end_ > tail_end_)
        out.bytes(d_.substr(tail_end_, trailing_kept_end_ - tail_end_));
    if (version_ == k_current_version) {
        c.crc = crc32(out.view());
        out.u32(*c.crc);
    }
    c.bytes = std::move(out).take();
    return c;
}

// The candidate read with every rule of its version (read_back's reader); a v4 candidate's CRC-32
// is the one just written, so it is not computed again.
ReadBack read_candidate(const Candidate& c) {
    if (!c.crc) return read_back(c.bytes);
    ReadBack out;
    NullSink sink;
    CrcHint hint;
    hint.known = c.crc;
    Reader<NullSink> reader(c.bytes, out.findings, sink, true, hint);
    (void)reader.run();
    out.version = sink.version;
    out.version_known = sink.version != 0;
    return out;
}

// The read-back's errors on the candidate, each undone: an entity or pair it names is dropped.
// False when nothing could be changed for an error (the caller gives up).
bool Salvager::fix(const Candidate& c, const Findings& findings) {
    bool changed = false;
    const bool legacy_to_current = !current_rules(version_) && rules_current();
    for (const Error& f : findings.items()) {
        const bool refused =
            f.severity == Severity::error ||
            (legacy_to_current && f.severity == Severity::warning &&
             (f.code == ErrorCode::duplicate_component || f.code == ErrorCode::duplicate_key ||
              f.code == ErrorCode::name_component || f.code == ErrorCode::bad_parent));
        if (!refused || !f.has_offset()) continue;
        bool placed = false;
        for (std::size_t i = 0; i < entities_.size() && !placed; ++i) {
            const auto [b, e] = c.entity_spans[i];
            if (entities_[i].dropped || f.offset < b || f.offset >= e) continue;
            placed = true;
            if (f.code == ErrorCode::bad_parent && entities_[i].root_reason.empty()) {
                entities_[i].root_reason = "the engine would refuse the parent (" + f.message + ")";
                changed = true;
                continue;
            }
            entities_[i].dropped = true;
            entities_[i].reason = "the engine would refuse it: " + f.message;
            placed = changed = true;
        }
        for (std::size_t i = 0; i < pairs_.size() && !placed; ++i) {
            const auto [b, e] = c.pair_spans[i];
            if (pair_dropped_[i] || f.offset < b || f.offset >= e) continue;
            pair_dropped_[i] = true;
            pair_reason_[i] = "the engine would refuse it: " + f.message;
            placed = changed = true;
        }
        if (!placed && f.offset >= c.meta_begin && f.offset < c.meta_end && !meta_.rewritten) {
            rebuild_block(d_, meta_, version_);
            placed = changed = true;
        }
    }
    return changed;
}

void Salvager::regions(Salvaged& s, const Candidate& c) {
    auto& r = s.regions;
    if (magic_rebuilt_)
        r.push_back({Kind::rebuilt, 0, 4, "", std::string(k_magic),
                     "expected the magic \"SPRK\", found " + display(d_.substr(0, 4), true) +
                         ": the magic written"});
    else
        r.push_back({Kind::kept, 0, 4, "", {}, {}});
    if (version_rebuilt_)
        r.push_back({Kind::rebuilt, 4, 4, "version", std::to_string(version_), version_reason_});
    else
        r.push_back({Kind::kept, 4, 4, "version", {}, {}});
    const std::uint32_t block_size = static_cast<std::uint32_t>(c.meta_end - c.meta_begin);
    if (meta_.rewritten || meta_.size_rebuilt) {
        if (block_size == load_u32(d_, 8))
            r.push_back({Kind::kept, 8, 4, std::string(k_metadata), {}, {}});
        else
            r.push_back({Kind::rebuilt, 8, 4, std::string(k_metadata), std::to_string(block_size),
                         meta_.size_rebuilt
                             ? "the stored metadata size does not fit the block: its size written"
                             : "the block was rebuilt: its new size written"});
    }
    if (meta_.rewritten) {
        for (const SalvageRegion& m : meta_.regions) r.push_back(m);
    } else if (meta_.size_rebuilt) {
        r.push_back(
            {Kind::kept, meta_.begin, meta_.end - meta_.begin, std::string(k_metadata), {}, {}});
    } else {
        r.push_back({Kind::kept, 8, meta_.end - 8, std::string(k_metadata), {}, {}});
    }
    // The entity count.
    std::uint32_t kept = 0;
    for (const Kept& k : entities_) kept += k.dropped ? 0 : 1;
    if (meta_.end + 4 <= d_.size()) {
        if (count_readable_ && declared_ == kept)
            r.push_back({Kind::kept, meta_.end, 4, std::string(k_entities), {}, {}});
        else
            r.push_back(
                {Kind::rebuilt, meta_.end, 4, std::string(k_entities), std::to_string(kept),
                 fmt::format("the count said {}, the output has {} entities", declared_, kept)});
    } else {
        const std::size_t at = meta_.end;
        if (at < d_.size())
            r.push_back({Kind::lost,
                         at,
                         d_.size() - at,
                         std::string(k_entities),
                         {},
                         "the file ends inside the entity count (truncated)"});
        r.push_back({Kind::rebuilt, d_.size(), 0, std::string(k_entities), "0",
                     "the file ends before the entity count: 0 written"});
    }
    // Entities and gaps, in input order.
    std::size_t g = 0, out_index = 0;
    std::string path;
    auto emit_gap = [&](const Gap& gap) {
        r.push_back(
            {Kind::lost, gap.begin, gap.end - gap.begin, std::string(k_entities), {}, gap.reason});
    };
    for (std::size_t i = 0; i < entities_.size(); ++i) {
        const Kept& k = entities_[i];
        while (g < gaps_.size() && gaps_[g].begin < k.e.begin) emit_gap(gaps_[g++]);
        path.assign(k_entities);
        if (k.dropped) {
            append_path_index(path, i);
            r.push_back({Kind::lost,
                         k.e.begin,
                         k.e.end - k.e.begin,
                         std::string(k_entities),
                         {},
                         k.reason});
            s.totals.entities.lost += 1;
            s.totals.components.lost += k.e.components;
            s.totals.properties.lost += k.e.properties;
            continue;
        }
        append_path_index(path, out_index++);
        s.totals.entities.kept += 1;
        s.totals.components.kept += k.e.components;
        s.totals.properties.kept += k.e.properties;
        std::size_t from = k.e.begin;
        for (const auto& [at, length] : k.e.parents) {
            const auto it = parent_text_.find(at);
            if (it == parent_text_.end()) continue;
            if (at - 2 > from) r.push_back({Kind::kept, from, at - 2 - from, path, {}, {}});
            std::string field = path;
            append_path_name(field, k_transform);
            append_path_name(field, k_parent);
            r.push_back({Kind::rebuilt, at - 2, length + 2, field, it->second, parent_reason_[at]});
            from = at + length;
        }
        if (k.e.end > from) r.push_back({Kind::kept, from, k.e.end - from, path, {}, {}});
    }
    while (g < gaps_.size()) emit_gap(gaps_[g++]);
    s.totals.entities.lost += entities_lost_in_gaps_;
    // The custom state.
    const std::size_t size = d_.size();
    std::uint32_t pairs_kept = 0;
    for (std::size_t i = 0; i < pairs_.size(); ++i) pairs_kept += pair_dropped_[i] ? 0 : 1;
    if (custom_present_) {
        if (!custom_rebuilt_ && pairs_kept == custom_declared_)
            r.push_back({Kind::kept, custom_at_, 4, std::string(k_custom_state), {}, {}});
        else
            r.push_back(
                {Kind::rebuilt, custom_at_, 4, std::string(k_custom_state),
                 std::to_string(pairs_kept),
                 fmt::format("the count said {}, {} pairs kept", custom_declared_, pairs_kept)});
    } else if (custom_rebuilt_) {
        // The 1..3 bytes of a cut count are lost.
        if (custom_at_ < size && custom_at_ + 4 > size &&
            (gaps_.empty() || gaps_.back().end < size)) {
            r.push_back({Kind::lost,
                         custom_at_,
                         size - custom_at_,
                         std::string(k_custom_state),
                         {},
                         "the file ends inside the custom-state count (truncated)"});
        }
        r.push_back({Kind::rebuilt, size, 0, std::string(k_custom_state), "0",
                     "the file ends before the custom state: an empty one written (its count, 0)"});
    } else if (custom_at_ < size && (gaps_.empty() || gaps_.back().end < size)) {
        // v1/v2: 1..3 bytes where a count would be, not enough for one: not a custom state.
        r.push_back({Kind::lost,
                     custom_at_,
                     size - custom_at_,
                     std::string(k_custom_state),
                     {},
                     "the file ends inside the custom-state count (truncated)"});
    }
    std::string key_path;
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
        key_path.assign(k_custom_state);
        append_path_name(key_path, pairs_[i].key);
        if (pair_dropped_[i]) {
            r.push_back({Kind::lost,
                         pairs_[i].begin,
                         pairs_[i].end - pairs_[i].begin,
                         key_path,
                         {},
                         pair_reason_[i]});
            s.totals.properties.lost += 1;
        } else {
            r.push_back(
                {Kind::kept, pairs_[i].begin, pairs_[i].end - pairs_[i].begin, key_path, {}, {}});
            s.totals.properties.kept += 1;
        }
    }
    s.totals.properties.lost += pairs_cut_off_;
    // After the custom state.
    if (custom_present_ && tail_end_ < size) {
        if (trailing_kept_end_ > tail_end_) {
            r.push_back({Kind::kept,
                         tail_end_,
                         trailing_kept_end_ - tail_end_,
                         std::string(k_trailing),
                         {},
                         {}});
        } else if (has_trailer_) {
            if (crc_ok_ && !version_rebuilt_)
                r.push_back({Kind::kept, trailer_at_, 4, std::string(k_checksum), {}, {}});
            else
                r.push_back({Kind::rebuilt, trailer_at_, 4, std::string(k_checksum),
                             fmt::format("{:#010x}", load_u32(c.bytes, c.bytes.size() - 4)),
                             crc_ok_ ? "the CRC-32 of the file as written"
                                     : "the stored CRC-32 does not match: the CRC-32 of what was "
                                       "kept written"});
        } else {
            r.push_back({Kind::lost,
                         tail_end_,
                         size - tail_end_,
                         std::string(k_custom_state),
                         {},
                         custom_rebuilt_
                             ? "the custom state ends inside a pair (truncated or damaged)"
                             : "bytes after the custom state, which the engine refuses"});
        }
    }
    if (version_ == k_current_version && !has_trailer_)
        r.push_back({Kind::rebuilt, size, 0, std::string(k_checksum),
                     fmt::format("{:#010x}", load_u32(c.bytes, c.bytes.size() - 4)),
                     "the file has no CRC-32 trailer: the CRC-32 of what was kept written"});
    salvage_scan::total_bytes(s);
}

Result<Salvaged> Salvager::run() {
    if (auto h = header(); !h) return std::move(h).error();
    choose_version();
    metadata();
    payload();
    Salvaged s;
    s.format = FormatId::spark_save;
    s.from = version_;
    s.version = version_;
    s.input_size = d_.size();
    const bool structure_complete = gaps_.empty() && !custom_rebuilt_ && !meta_.rewritten &&
                                    !meta_.size_rebuilt && count_readable_ &&
                                    declared_ == entities_.size() &&
                                    (version_ != k_current_version || has_trailer_);
    s.unverified = version_ == k_current_version && !crc_ok_;
    Candidate c = assemble();
    // Read back with every rule of the version; undo what the engine would refuse. Each round
    // drops at least one record, so the rounds are bounded by the records.
    for (std::size_t round = 0;; ++round) {
        const ReadBack back = read_candidate(c);
        bool refused = back.findings.has_errors();
        if (!refused && !current_rules(version_) && rules_current()) {
            for (const Error& f : back.findings.items())
                if (f.code == ErrorCode::duplicate_component ||
                    f.code == ErrorCode::duplicate_key || f.code == ErrorCode::name_component ||
                    f.code == ErrorCode::bad_parent)
                    refused = true;
        }
        if (!refused) break;
        if (round > entities_.size() + pairs_.size() + 2 || !fix(c, back.findings)) {
            const Error* e = back.findings.first_error();
            return make_error(
                ErrorCode::internal,
                "salvage could not make a file the engine loads: " +
                    (e ? e->describe() : std::string("a rule of the target version")));
        }
        c = assemble();
    }
    regions(s, c);
    if (s.unverified && structure_complete && s.totals.bytes.lost == 0 && !o_.accept_checksum) {
        s.withheld = true;
    } else {
        s.bytes = std::move(c.bytes);
    }
    if (s.totals.entities.kept == 0 && s.totals.properties.kept == 0 &&
        s.totals.bytes.kept <= meta_.end && meta_.rewritten) {
        bool any_meta = false;
        for (const SalvageRegion& m : meta_.regions) any_meta |= m.kind == Kind::kept;
        if (!any_meta)
            return make_error(
                ErrorCode::truncated,
                "nothing could be recovered: no metadata field, entity or custom-state "
                "pair of the file reads",
                8);
    }
    return s;
}

} // namespace
} // namespace salvaging

Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options) {
    if (bytes.size() > k_max_file_size)
        return make_error(ErrorCode::too_large,
                          fmt::format("expected at most {} bytes (512 MiB), found {}",
                                      k_max_file_size, bytes.size()),
                          0);
    salvaging::Salvager s(bytes, options);
    return s.run();
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
