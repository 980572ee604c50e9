// The `.spark_save` metadata block (formats/README.md §1.2): the one table of its fields, and the
// one parser and renderer of the block. The reader, pack, the tree, the JSON and `info` all iterate
// k_meta_fields; a new field is one row here (and its rules, if it has any of its own).
#pragma once

#include "extract.hpp"
#include "spec.hpp"

#include "sparksave/document.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// How `info` shows a field's value.
enum class Shown : std::uint8_t {
    as_read,   // the value the engine reads
    unix_time, // Unix seconds, shown as an ISO 8601 UTC time (and the number under raw_key)
    duration,  // seconds, shown as h:mm:ss (and the number under raw_key)
};

// One field of the block (1.2).
struct MetaFieldSpec {
    std::string_view name;  // the node name under `metadata`, the member of metadata.fields
    ValueType type;         // string: one getline line; a number: read with `>>` (extract.hpp)
    std::uint8_t parts;     // 1, or 3 for position: x y z, three floats on one line
    std::uint32_t since;    // the first version whose block has the field
    std::string_view label; // `info`'s label
    Shown shown = Shown::as_read;
    std::string_view raw_key = {}; // `info --json`: the key of the number a converted field shows
};

// 1.2, in block order: the string lines first, then the numbers.
inline constexpr MetaFieldSpec k_meta_fields[] = {
    {"saveName", ValueType::string, 1, 1, "save name"},
    {"sceneName", ValueType::string, 1, 1, "scene"},
    {"playerClass", ValueType::string, 1, 1, "player class"},
    {"screenshotPath", ValueType::string, 1, 2, "screenshot"},
    {"timestamp", ValueType::unsigned_integer, 1, 1, "saved at", Shown::unix_time, "timestampUnix"},
    {"playTime", ValueType::floating, 1, 1, "play time", Shown::duration, "playTimeSeconds"},
    {"playerHealth", ValueType::floating, 1, 1, "health"},
    {"playerArmor", ValueType::floating, 1, 1, "armor"},
    {"position", ValueType::floating, 3, 1, "position"},
    {"playerKills", ValueType::integer, 1, 1, "kills"},
    {"playerDeaths", ValueType::integer, 1, 1, "deaths"},
};
inline constexpr std::string_view k_position_parts[] = {"x", "y", "z"};

// Does the block of `version` have the field (1.2)?
constexpr bool in_version(const MetaFieldSpec& f, std::uint32_t version) noexcept {
    return f.since <= version;
}

// The number tokens `>>` reads, in order (position's parts one each), and the line each has in
// the writer's layout: the index among the non-blank lines after the string lines.
struct NumberToken {
    std::string_view name; // the field's, or x, y, z
    ValueType type;
    bool in_position;  // a part of a multi-part field (position)
    std::uint8_t spec; // index in k_meta_fields
    std::uint8_t line;
};
inline constexpr std::size_t k_number_fields = [] {
    std::size_t n = 0;
    for (const auto& f : k_meta_fields)
        if (f.type != ValueType::string) n += f.parts;
    return n;
}();
inline constexpr std::size_t k_number_lines = [] {
    std::size_t n = 0;
    for (const auto& f : k_meta_fields)
        if (f.type != ValueType::string) ++n;
    return n;
}();
inline constexpr std::array<NumberToken, k_number_fields> k_number_tokens = [] {
    std::array<NumberToken, k_number_fields> t{};
    std::size_t n = 0;
    std::uint8_t line = 0;
    for (std::uint8_t s = 0; s < std::size(k_meta_fields); ++s) {
        const MetaFieldSpec& f = k_meta_fields[s];
        if (f.type == ValueType::string) continue;
        for (std::uint8_t p = 0; p < f.parts; ++p)
            t[n++] = {f.parts > 1 ? k_position_parts[p] : f.name, f.type, f.parts > 1, s, line};
        ++line;
    }
    return t;
}();
inline constexpr std::size_t k_string_fields = std::size(k_meta_fields) - k_number_lines;
// The parser reads the string lines first (getline), then the numbers (`>>`); a multi-part
// field is floats named by k_position_parts.
static_assert([] {
    bool numbers = false;
    for (const auto& f : k_meta_fields) {
        if (f.type != ValueType::string)
            numbers = true;
        else if (numbers)
            return false;
        if (f.parts == 0 || f.parts > std::size(k_position_parts)) return false;
        if (f.parts > 1 && f.type != ValueType::floating) return false;
    }
    return true;
}());
// The last field of the block: only whitespace may follow it.
inline constexpr std::string_view k_last_field = std::end(k_meta_fields)[-1].name;

// One metadata field as the engine reads it (1.2). Position's three numbers are three fields
// named x, y, z with `in_position` set.
struct MetaField {
    std::string_view name;
    // Strings: the line (getline). Numbers: the characters `>>` took (a view into the block);
    // for the number the engine fails on, and those after it, the whitespace-delimited word.
    std::string_view text;
    std::size_t offset = 0; // file offset of the text
    ValueType type = ValueType::string;
    bool in_position = false;
    bool read = false;     // the engine read this field (a number: `>>` succeeded)
    std::uint8_t spec = 0; // index in k_meta_fields
    std::uint64_t u = 0;   // the value read, by type
    std::int64_t i = 0;
    float f = 0;
};

// The block as the reader parsed it (views into the block). The typed fields an engine reads are
// save_file.hpp's Metadata, filled from this.
struct MetadataBlock {
    std::array<MetaField, k_string_fields + k_number_fields> fields{};
    std::size_t count = 0;
    bool complete = false;    // the engine's ParseMetadataBlock accepts it (all read, finite,
                              // only whitespace after playerDeaths)
    std::size_t end = 0;      // block offset just after the playerDeaths token, when it was read
    bool all_present = false; // every field of the version present (well-formed or not)
    bool shifted = false;     // accepted, but fields come from other lines than their own
};

// The value the engine reads for a number field, as text ("0.5" for `.5`, "7" for `007`, the
// wrapped value for a negative timestamp); the field's text when it was not read.
inline std::string engine_value(const MetaField& f) {
    if (!f.read || f.type == ValueType::string) return std::string(f.text);
    switch (f.type) {
    case ValueType::unsigned_integer:
        return std::to_string(f.u); // as fmt's "{}", without its formatting machinery
    case ValueType::integer:
        return std::to_string(f.i);
    default:
        return fmt::format("{}", f.f);
    }
}

// Where parse_metadata_block reports a finding: (file offset, node path, message). A reference
// to the caller's callable, not a template parameter, so that the parser is one function of the
// library whatever its callers pass (each instantiation would be a copy of ~12 KB of code).
class MetadataReport {
  public:
    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, MetadataReport>) MetadataReport(F&& f)
    noexcept // NOLINT: a view of `f`, which outlives the call
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* o, std::size_t offset, std::string path, std::string message) {
              (*static_cast<std::remove_reference_t<F>*>(o))(offset, std::move(path),
                                                             std::move(message));
          }) {}
    void operator()(std::size_t offset, std::string path, std::string message) const {
        call_(object_, offset, std::move(path), std::move(message));
    }

  private:
    void* object_;
    void (*call_)(void*, std::size_t, std::string, std::string);
};

// 1.2: strings by getline, numbers by `>>` (extract.hpp), then only whitespace may follow. The
// current engine (and the v1..v2 reader that came before it) refuse the block at the first
// number `>>` fails on, at a non-finite float, at text after playerDeaths and at a CR in a
// string; the v1-era reader checked none of it. `metadata_problem` gets each such refusal,
// `warning` what one build of the engine reads differently from another, and `misread` a block
// the engine accepts but reads with its fields shifted off their lines (an error the engine
// still loads).
// (metadata.cpp)
void parse_metadata_block(std::string_view block, std::size_t base, std::uint32_t version,
                          MetadataBlock& meta, MetadataReport metadata_problem,
                          MetadataReport warning, MetadataReport misread, bool hinted = true);

// The same, for callers that only want the fields.
inline void parse_metadata_block(std::string_view block, std::size_t base, std::uint32_t version,
                                 MetadataBlock& meta, MetadataReport metadata_problem,
                                 MetadataReport warning) {
    parse_metadata_block(block, base, version, meta, metadata_problem, warning,
                         [](std::size_t, std::string, std::string) {});
}

// The block in the writer's layout (1.2, 1.6): one field a line, the parts of position on one
// line separated by single spaces. `texts` are the tokens of `version`'s fields in block
// order (position as its parts).
inline std::string layout_block(std::span<const std::string_view> texts, std::uint32_t version) {
    std::string out;
    std::size_t i = 0;
    for (const MetaFieldSpec& f : k_meta_fields) {
        if (!in_version(f, version)) continue;
        for (std::uint8_t p = 0; p < f.parts && i < texts.size(); ++p) {
            out += texts[i++];
            out += p + 1 < f.parts ? ' ' : '\n';
        }
    }
    return out;
}

// The block in the normalized layout of formats/README.md §1.6: one field a line, position on one
// line, each token's text kept; `screenshot` is the text given to each field of the current version
// that `meta` lacks (a v1 block's screenshotPath). Whatever followed the last field in `block`
// (other than whitespace) is kept after it, so the v3/v4 rules still see it. Needs
// meta.all_present.
inline std::string render_metadata(const MetadataBlock& meta, std::string_view block,
                                   std::string_view screenshot) {
    std::array<std::string_view, std::size(k_meta_fields) + k_number_fields> texts{};
    std::size_t n = 0, i = 0;
    for (std::uint8_t s = 0; s < std::size(k_meta_fields); ++s) {
        if (i < meta.count && meta.fields[i].spec == s) {
            for (; i < meta.count && meta.fields[i].spec == s; ++i)
                texts[n++] = meta.fields[i].text;
        } else if (i < meta.count) {
            texts[n++] = screenshot; // a field of a later version, before the ones present
        }
    }
    std::string out = layout_block(std::span(texts.data(), n), k_current_version);
    std::string_view tail = block.substr(std::min(meta.end, block.size()));
    if (tail.find_first_not_of(" \t\n\v\f\r") != std::string_view::npos) out += tail;
    return out;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
