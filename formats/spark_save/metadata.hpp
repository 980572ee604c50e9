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

// A parse_metadata_block callback that only notes that it was called (one type, so the
// function's call to itself does not instantiate a new one).
struct MetadataFlag {
    bool raised = false;
    void operator()(std::size_t, const std::string&, const std::string&) { raised = true; }
};

// 1.2: strings by getline, numbers by `>>` (extract.hpp), then only whitespace may follow. The
// current engine (and the v1..v2 reader that came before it) refuse the block at the first
// number `>>` fails on, at a non-finite float, at text after playerDeaths and at a CR in a
// string; the v1-era reader checked none of it. `metadata_problem` gets each such refusal,
// `warning` what one build of the engine reads differently from another, and `misread` a block
// the engine accepts but reads with its fields shifted off their lines (an error the engine
// still loads).
template <class Problem, class Note, class Misread>
void parse_metadata_block(std::string_view block, std::size_t base, std::uint32_t version,
                          MetadataBlock& meta, Problem&& metadata_problem, Note&& warning,
                          Misread&& misread, bool hinted = true) {
    auto field_path = [](std::string_view name, bool in_position, std::uint8_t spec = 0) {
        std::string p(k_metadata);
        if (in_position) append_path_name(p, k_meta_fields[spec].name);
        append_path_name(p, name);
        return p;
    };
    auto word_at = [&](std::size_t at) {
        std::size_t end = at;
        while (end < block.size() && !is_space(block[end])) ++end;
        return block.substr(at, end - at);
    };
    std::size_t pos = 0;
    bool well_formed = true;
    std::size_t string_count = 0;
    for (std::uint8_t s = 0; s < std::size(k_meta_fields); ++s) {
        const MetaFieldSpec& spec = k_meta_fields[s];
        if (spec.type != ValueType::string || !in_version(spec, version)) continue;
        const std::string_view name = spec.name;
        ++string_count;
        if (pos >= block.size()) {
            metadata_problem(base + pos, field_path(name, false),
                             fmt::format("expected the {} line, found the end of the "
                                         "metadata block",
                                         name));
            return;
        }
        std::size_t nl = block.find('\n', pos);
        std::size_t end = nl == std::string_view::npos ? block.size() : nl;
        std::string_view text = block.substr(pos, end - pos);
        if (const std::size_t cr = text.find('\r'); cr != std::string_view::npos) {
            // 1.2: getline keeps the CR; the engine's load validates the decoded save
            // (ValidateSaveDataShape -> BuildMetadataBlock) and refuses a string with a CR or
            // LF in it (an LF always ends the line here, so only a CR can be inside).
            well_formed = false;
            metadata_problem(base + pos + cr, field_path(name, false),
                             fmt::format("expected {} without a carriage return (the engine's "
                                         "load refuses a metadata string with CR or LF in it), "
                                         "found {}",
                                         name, display(text, true)));
        }
        meta.fields[meta.count++] = {name, text, base + pos, ValueType::string, false, true, s};
        pos = nl == std::string_view::npos ? block.size() : nl + 1;
    }
    const std::size_t numbers_begin = pos;
    bool failed = false;
    for (const NumberToken& f : k_number_tokens) {
        MetaField field{f.name, {}, 0, f.type, f.in_position, false, f.spec};
        if (failed) {
            // The stream has failed: the engine reads nothing more. The rest is split at
            // whitespace, for the tree only.
            while (pos < block.size() && is_space(block[pos])) ++pos;
            if (pos >= block.size()) return;
            field.text = word_at(pos);
            field.offset = base + pos;
            meta.fields[meta.count++] = field;
            pos += field.text.size();
            continue;
        }
        const Extraction x = extract_number(block, pos, f.type);
        // The field's node path, made only for a finding.
        auto path = [&] { return field_path(f.name, f.in_position, f.spec); };
        if (x.fail == Extraction::Fail::end_of_block) {
            metadata_problem(
                base + x.begin, path(),
                fmt::format("expected {}, found the end of the metadata block",
                            f.type == ValueType::unsigned_integer ? "the timestamp" : "a number"));
            return;
        }
        field.offset = base + x.begin;
        if (!x.ok()) {
            failed = true;
            well_formed = false;
            field.text = word_at(x.begin);
            const std::string_view what =
                f.type == ValueType::unsigned_integer ? "an unsigned 64-bit integer (Unix seconds)"
                : f.type == ValueType::integer        ? "an integer"
                : x.fail == Extraction::Fail::out_of_range ? "a finite number"
                                                           : "a number";
            std::string why;
            if (meta.count > string_count && x.begin == pos && pos > numbers_begin &&
                !is_space(block[pos - 1])) {
                const MetaField& prev = meta.fields[meta.count - 1];
                why = fmt::format(" (left over after {} read {})", prev.name,
                                  display(prev.text, true));
            }
            if (x.fail == Extraction::Fail::out_of_range)
                why += f.type == ValueType::integer            ? " (out of int's range)"
                       : f.type == ValueType::unsigned_integer ? " (out of uint64's range)"
                                                               : " (out of float's range)";
            metadata_problem(field.offset, path(),
                             fmt::format("expected {}, found {}{}: `>>` fails there", what,
                                         display(field.text, true), why));
            meta.fields[meta.count++] = field;
            pos = x.begin + field.text.size();
            continue;
        }
        field.text = block.substr(x.begin, x.end - x.begin);
        field.read = true;
        field.u = x.u;
        field.i = x.i;
        field.f = x.f;
        if (f.type == ValueType::unsigned_integer && field.text.starts_with('-') && x.u != 0)
            warning(field.offset, path(),
                    fmt::format("{} is negative: the engine reads the unsigned timestamp as {} "
                                "(the value wraps modulo 2^64), and its next save writes that",
                                display(field.text, true), x.u));
        if (x.underflow)
            warning(field.offset, path(),
                    fmt::format("{} underflows a float: the engine's Linux build (libstdc++) "
                                "reads {}, its Windows build (MSVC's library) most likely "
                                "refuses the block",
                                display(field.text, true), engine_value(field)));
        float hex = 0;
        if (x.hex_prefix) {
            if (const std::size_t used = hex_float_at(block, x.begin, hex))
                warning(field.offset, path(),
                        fmt::format("{} is a hexadecimal float: the engine's Windows build "
                                    "(MSVC's library) reads {}, its Linux build (libstdc++) "
                                    "reads 0 and stops at the x",
                                    display(block.substr(x.begin, used), true), hex));
        }
        meta.fields[meta.count++] = field;
        pos = x.end;
    }
    meta.end = pos;
    meta.all_present = true;
    std::size_t rest = pos;
    while (rest < block.size() && is_space(block[rest])) ++rest;
    if (rest < block.size()) {
        well_formed = false;
        if (!failed) {
            std::string_view extra =
                block.substr(rest, std::min<std::size_t>(block.size() - rest, 40));
            metadata_problem(base + rest, std::string(k_metadata),
                             fmt::format("expected only whitespace after {}, found "
                                         "{}{}",
                                         k_last_field, display(extra, true),
                                         block.size() - rest > 40 ? "..." : ""));
        }
    }
    meta.complete = well_formed;
    if (failed || rest < block.size()) return;

    // The block is accepted. Does each field come from its own line? The writer puts one
    // field a line (position's three on one); `>>` ignores lines, so a block with a line too
    // few or too many, or a number it reads as two, loads with fields taken from other lines.
    // Whitespace-only lines carry no field and are skipped, as `>>` skips them.
    struct Line {
        std::size_t begin = 0, end = 0; // the line without its leading and trailing blanks
        std::size_t number = 0;         // 1-based line number in the block
    };
    std::array<Line, k_number_fields> lines{};
    std::size_t line_count = 0;
    std::size_t line_number =
        static_cast<std::size_t>(std::count(block.begin(), block.begin() + numbers_begin, '\n'));
    for (std::size_t at = numbers_begin; at < pos && line_count < lines.size();) {
        std::size_t nl = block.find('\n', at);
        std::size_t end = nl == std::string_view::npos ? block.size() : nl;
        ++line_number;
        std::size_t b = at, e = end;
        while (b < e && is_space(block[b])) ++b;
        while (e > b && is_space(block[e - 1])) --e;
        if (b < e) lines[line_count++] = {b, e, line_number};
        at = end + 1;
    }
    const MetaField* numbers = &meta.fields[meta.count - k_number_fields];
    auto line_of = [&](const MetaField& f) {
        const std::size_t at = f.offset - base;
        for (std::size_t l = 0; l < line_count; ++l)
            if (at >= lines[l].begin && at < lines[l].end) return l;
        return line_count;
    };
    std::array<bool, k_number_fields> shifted{};
    for (std::size_t g = 0, j = 0; g < k_number_lines; ++g) {
        const std::size_t first = j;
        while (j < k_number_fields && k_number_tokens[j].line == g) ++j;
        bool as_written = g < line_count;
        for (std::size_t k = first; k < j && as_written; ++k) as_written = line_of(numbers[k]) == g;
        if (as_written) {
            const MetaField& a = numbers[first];
            const MetaField& z = numbers[j - 1];
            as_written = a.offset - base == lines[g].begin &&
                         z.offset - base + z.text.size() == lines[g].end;
        }
        for (std::size_t k = first; k < j; ++k) shifted[k] = !as_written;
    }
    // What the engine reads, line by line: `line 5 "42.5": timestamp = 42, playTime = 0.5`.
    std::string list;
    std::size_t first_shifted = k_number_fields;
    std::size_t listed_line = line_count;
    for (std::size_t k = 0; k < k_number_fields; ++k) {
        if (!shifted[k]) continue;
        if (first_shifted == k_number_fields) first_shifted = k;
        const MetaField& f = numbers[k];
        const std::size_t l = line_of(f);
        if (l >= line_count) continue; // cannot happen: every token lies on a non-blank line
        if (l != listed_line) {
            const std::string_view line =
                block.substr(lines[l].begin, lines[l].end - lines[l].begin);
            list += fmt::format("{}line {} {}{}: ", list.empty() ? "" : "; ", lines[l].number,
                                display(line.substr(0, 40), true), line.size() > 40 ? "..." : "");
            listed_line = l;
        } else {
            list += ", ";
        }
        list += fmt::format("{}{}{} = {}", f.in_position ? k_meta_fields[f.spec].name : "",
                            f.in_position ? "." : "", f.name, engine_value(f));
    }
    if (first_shifted == k_number_fields) return;
    meta.shifted = true;
    // A hint for the classic case: the block has the line count of the other layout.
    std::size_t block_lines =
        static_cast<std::size_t>(std::count(block.begin(), block.end(), '\n'));
    if (!block.empty() && block.back() != '\n') ++block_lines;
    std::string hint;
    auto other_layout_fits = [&](std::uint32_t other) {
        MetadataBlock m;
        MetadataFlag flag;
        parse_metadata_block(block, base, other, m, flag, flag, flag, false);
        return !flag.raised && m.complete;
    };
    if (hinted && version >= 2 && block_lines == 10 && other_layout_fits(1))
        hint = fmt::format(" (the block has the 10 lines of a v1 block, which has no "
                           "screenshotPath, but the version field says {})",
                           version);
    else if (hinted && version == 1 && block_lines == 11 && other_layout_fits(2))
        hint = " (the block has the 11 lines of a v2..v4 block, with a screenshotPath, but the "
               "version field says 1)";
    const MetaField& f = numbers[first_shifted];
    misread(f.offset, field_path(f.name, f.in_position, f.spec),
            fmt::format("expected each metadata number on its own line (position's three on "
                        "one), found the engine reading fields from other lines{}: {}",
                        hint, list));
}

// The same, for callers that only want the fields.
template <class Problem, class Note>
void parse_metadata_block(std::string_view block, std::size_t base, std::uint32_t version,
                          MetadataBlock& meta, Problem&& metadata_problem, Note&& warning) {
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
