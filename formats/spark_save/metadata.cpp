// The metadata block's parser (metadata.hpp), out of line: one copy for every caller.
#include "metadata.hpp"

#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

// A report that only notes that it was called (the test of the other version's layout).
struct MetadataFlag {
    bool raised = false;
    void operator()(std::size_t, const std::string&, const std::string&) { raised = true; }
};

} // namespace

void parse_metadata_block(std::string_view block, std::size_t base, std::uint32_t version,
                          MetadataBlock& meta, MetadataReport metadata_problem,
                          MetadataReport warning, MetadataReport misread, bool hinted) {
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

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
