// Salvage of a damaged text archive (sparksave/salvage.hpp, sparksave-salvage(1)): the format's
// entry of its row (format.cpp). An archive is the version line and top-level entries
// (formats/README.md §2), each from a line that starts with its name at the line's start to the
// next such line; damage is always an entry's. Each entry is judged by the format's own reader,
// alone in an archive (so that one entry's damage, an unclosed class, cannot take the entries
// after it), then with the others (what one entry does to another: a line that stops the
// engine's reading); an entry the reader finds an error in is lost, as the engine would lose or
// misread it, with its line:column. Rewritten so that the engine reads what the file meant:
// - a version line that is not exactly `1.0.0` (the engine reads an empty archive): `1.0.0`;
// - a class entry with the mark of the engine's doubled-name bug (`name: name: Class {`, which
//   stops the engine's reading, §2.1): the name once.
// Every other byte of an entry kept is kept as it is.
#include "api.hpp"
#include "common/salvage_scan.hpp"
#include "spec.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

// Unity builds put this file beside the format's others: its helpers have a namespace of
// their own.
namespace salvaging {
namespace {

using Kind = SalvageRegion::Kind;

struct Entry {
    std::size_t begin = 0, end = 0; // the input bytes, whole lines
    std::uint32_t line = 0;         // its first line, 1-based
    std::string_view name;
    // The doubled-name mark rewritten: the second `name: ` is left out, [cut, cut + length).
    std::size_t cut = 0, cut_length = 0;
    bool entry = true; // false: lines before the first entry that start none
    bool kept = true;
    std::string reason;
};

// Does a line start a top-level entry: its first byte a name's, not indentation, a closing brace
// or an empty line's?
bool starts_entry(std::string_view line) noexcept {
    if (line.empty()) return false;
    const char c = line[0];
    return c != '\t' && c != ' ' && c != '}' && c != '\r';
}

// Is the first line meant as the version line: `1.0.0` with a CR after it, or its five bytes
// with at most two damaged (and no name separator: an entry's line is not five bytes long)?
bool damaged_version(std::string_view line) noexcept {
    if (line == std::string(k_version_line) + "\r") return true;
    if (line.size() != k_version_line.size() ||
        line.find(k_name_separator) != std::string_view::npos)
        return false;
    int differ = 0;
    for (std::size_t i = 0; i < line.size(); ++i) differ += line[i] != k_version_line[i] ? 1 : 0;
    return differ <= 2;
}

// The bytes of an entry as written: the doubled name once.
void append_entry(std::string& out, std::string_view d, const Entry& e) {
    if (e.cut_length == 0) {
        out.append(d.substr(e.begin, e.end - e.begin));
        return;
    }
    out.append(d.substr(e.begin, e.cut - e.begin));
    out.append(d.substr(e.cut + e.cut_length, e.end - e.cut - e.cut_length));
}

Result<Salvaged> run(std::string_view d, const SalvageOptions&) {
    if (d.size() > k_max_file_size)
        return make_error(
            ErrorCode::too_large,
            fmt::format("expected at most {} bytes, found {}", k_max_file_size, d.size()), 0);
    Salvaged s;
    s.format = FormatId::text_archive;
    s.from = s.version = k_current_version;
    s.input_size = d.size();
    if (d.empty()) return s; // a fresh archive (formats/README.md §2.1): written as it is

    // The lines, and the entries they make.
    std::vector<std::size_t> line_begin;
    for (std::size_t p = 0; p < d.size();) {
        line_begin.push_back(p);
        const std::size_t nl = d.find('\n', p);
        p = nl == std::string_view::npos ? d.size() : nl + 1;
    }
    auto line_text = [&](std::size_t i) {
        const std::size_t b = line_begin[i];
        const std::size_t e = i + 1 < line_begin.size() ? line_begin[i + 1] : d.size();
        std::string_view t = d.substr(b, e - b);
        if (!t.empty() && t.back() == '\n') t.remove_suffix(1);
        return t;
    };
    const std::string_view first = line_text(0);
    enum class Version : std::uint8_t { kept, rebuilt, missing, lost } version = Version::kept;
    if (first != k_version_line)
        version = damaged_version(first) ? Version::rebuilt
                  : starts_entry(first) && first.find(k_name_separator) != std::string_view::npos
                      ? Version::missing
                      : Version::lost;
    // The entries; lines after the version line that start none (blank lines, stray
    // indentation) are a piece of their own, judged like an entry but counted as none.
    const std::size_t entries_from = version == Version::missing ? 0 : 1;
    const std::size_t version_end =
        entries_from < line_begin.size() ? line_begin[entries_from] : d.size();
    std::vector<Entry> entries;
    // A line after one that ends in a comma is a class's child, whatever its indentation (the
    // engine does not look at an attribute's, §2.1; top-level entries are not separated by
    // commas).
    auto ends_in_comma = [&](std::size_t i) {
        const std::string_view t = line_text(i);
        const std::size_t last = t.find_last_not_of(" \t\r");
        return last != std::string_view::npos && t[last] == ',';
    };
    for (std::size_t i = entries_from; i < line_begin.size(); ++i) {
        const std::string_view t = line_text(i);
        const bool starts = starts_entry(t) && !(i > entries_from && ends_in_comma(i - 1));
        if (!starts && !entries.empty()) continue;
        Entry e;
        e.begin = line_begin[i];
        e.line = static_cast<std::uint32_t>(i + 1);
        e.entry = starts;
        const std::size_t sep = t.find(k_name_separator);
        if (e.entry) e.name = t.substr(0, sep == std::string_view::npos ? t.size() : sep);
        // The doubled-name mark on a class entry: `name: name: Class {`.
        if (e.entry && sep != std::string_view::npos && !e.name.empty()) {
            const std::string_view rest = t.substr(sep + k_name_separator.size());
            if (rest.starts_with(e.name) &&
                rest.substr(e.name.size()).starts_with(k_name_separator) &&
                !rest.substr(e.name.size() + k_name_separator.size())
                     .starts_with(k_attribute_prefix)) {
                e.cut = e.begin + sep + k_name_separator.size();
                e.cut_length = e.name.size() + k_name_separator.size();
            }
        }
        entries.push_back(e);
    }
    for (std::size_t k = 0; k < entries.size(); ++k)
        entries[k].end = k + 1 < entries.size() ? entries[k + 1].begin : d.size();
    // An entry's blank lines at its end are a piece of their own: at the top level they stop the
    // engine's reading, and the entry need not be lost with them.
    std::vector<Entry> pieces;
    pieces.reserve(entries.size());
    std::size_t line_index = 0;
    for (Entry& e : entries) {
        while (line_begin[line_index] < e.begin) ++line_index;
        std::size_t last = line_index; // the first of its trailing blank lines
        std::size_t i = line_index;
        for (; i < line_begin.size() && line_begin[i] < e.end; ++i)
            if (line_text(i).find_first_not_of(" \t\r") != std::string_view::npos) last = i + 1;
        if (last > line_index && last < i) {
            Entry blank;
            blank.begin = line_begin[last];
            blank.end = e.end;
            blank.line = static_cast<std::uint32_t>(last + 1);
            blank.entry = false;
            e.end = blank.begin;
            pieces.push_back(std::move(e));
            pieces.push_back(std::move(blank));
        } else {
            pieces.push_back(std::move(e));
        }
    }
    entries = std::move(pieces);

    // Each entry alone, then all of them together, until the reader finds no error. Alone, an
    // entry that is not the file's last is followed by an entry of another name, so that what it
    // does to the entries after it (a blank line or a line that stops the engine's reading) is
    // its error too.
    const std::string head = std::string(k_version_line) + "\n";
    for (std::size_t k = 0; k < entries.size(); ++k) {
        Entry& e = entries[k];
        std::string one = head;
        append_entry(one, d, e);
        if (k + 1 < entries.size())
            one += e.name == "salvage" ? "salvage2: __PGSA int {0}\n" : "salvage: __PGSA int {0}\n";
        const Summary check = summarize(one);
        if (const Error* err = check.findings.first_error()) {
            e.kept = false;
            e.reason = "the engine would lose or misread it: " + err->message;
        }
    }
    // A top-level name twice: the engine keeps the last entry of a name (§2.1), but its writer
    // never writes one twice, so the repeat is the damage: the first is kept.
    std::unordered_set<std::string_view> names;
    for (Entry& e : entries) {
        if (!e.entry || !e.kept || names.insert(e.name).second) continue;
        e.kept = false;
        e.reason = fmt::format("the top-level name {} of an earlier entry (kept): the engine would "
                               "read this one instead, and the writer never writes a name twice",
                               display(e.name, true));
    }
    // A version line kept is written as it is (an archive of that line alone may lack its LF).
    const std::string first_line =
        version == Version::kept ? std::string(d.substr(0, version_end)) : head;
    // A round drops the entry of the first error only (the errors after it are often its
    // consequences: a line that stops the engine's reading loses every later entry), then, past
    // k_careful_rounds, every entry with an error, so that hostile input stays linear.
    constexpr int k_careful_rounds = 16;
    std::string out;
    for (int round = 0;; ++round) {
        out = first_line;
        std::vector<std::pair<std::uint32_t, std::size_t>> out_lines; // first output line, entry
        std::uint32_t line = 2;
        for (std::size_t k = 0; k < entries.size(); ++k) {
            if (!entries[k].kept) continue;
            out_lines.emplace_back(line, k);
            const std::size_t at = out.size();
            append_entry(out, d, entries[k]);
            line += static_cast<std::uint32_t>(
                std::count(out.begin() + static_cast<std::ptrdiff_t>(at), out.end(), '\n'));
        }
        const Summary check = summarize(out);
        bool changed = false;
        for (const Error& err : check.findings.items()) {
            if (err.severity != Severity::error || err.line < 2 || out_lines.empty()) continue;
            auto it = std::upper_bound(
                out_lines.begin(), out_lines.end(), err.line,
                [](std::uint32_t l, const std::pair<std::uint32_t, std::size_t>& x) {
                    return l < x.first;
                });
            Entry& e = entries[std::prev(it)->second];
            if (!e.kept) continue;
            e.kept = false;
            e.reason =
                "the engine would lose or misread it beside the other entries: " + err.message;
            changed = true;
            if (round < k_careful_rounds) break;
        }
        if (!check.findings.has_errors()) break;
        if (!changed) {
            const Error* err = check.findings.first_error();
            return make_error(ErrorCode::internal,
                              "salvage could not make an archive the engine reads: " +
                                  (err ? err->describe() : std::string()));
        }
    }

    // The report.
    auto& r = s.regions;
    auto region = [&](Kind kind, std::size_t begin, std::size_t length, std::string path,
                      std::string value, std::string reason, std::uint32_t line) {
        SalvageRegion x{kind, begin, length, std::move(path), std::move(value), std::move(reason)};
        x.line = line;
        x.column = 1;
        r.push_back(std::move(x));
    };
    switch (version) {
    case Version::kept:
        region(Kind::kept, 0, version_end, "version", {}, {}, 1);
        break;
    case Version::rebuilt:
        region(Kind::rebuilt, 0, version_end, "version", std::string(k_version_line),
               "expected the version line \"1.0.0\", found " + display(first, true) +
                   ": the engine would read an empty archive; the version line written",
               1);
        break;
    case Version::missing:
        region(Kind::rebuilt, 0, 0, "version", std::string(k_version_line),
               "the archive has no version line (its first line is an entry): the engine would "
               "read an empty archive; the version line written",
               1);
        break;
    case Version::lost:
        region(Kind::lost, 0, version_end, "version", {},
               "expected the version line \"1.0.0\", found " + display(first, true) +
                   ", a line that is no version line and no entry: lost",
               1);
        region(Kind::rebuilt, version_end, 0, "version", std::string(k_version_line),
               "the version line written", 1);
        break;
    }
    for (const Entry& e : entries) {
        const std::string path(e.name);
        if (!e.kept) {
            region(Kind::lost, e.begin, e.end - e.begin, path, {}, e.reason, e.line);
            if (e.entry) ++s.totals.entities.lost;
            continue;
        }
        if (e.entry) ++s.totals.entities.kept;
        if (e.cut_length == 0) {
            region(Kind::kept, e.begin, e.end - e.begin, path, {}, {}, e.line);
            continue;
        }
        const auto column = static_cast<std::uint32_t>(e.cut - e.begin + 1);
        region(Kind::kept, e.begin, e.cut - e.begin, path, {}, {}, e.line);
        region(Kind::rebuilt, e.cut, e.cut_length, path, "",
               fmt::format("the name {} twice, the mark of the engine's doubled-name bug (a class "
                           "entry with it stops the engine's reading): the name written once",
                           display(e.name, true)),
               e.line);
        r.back().column = column;
        region(Kind::kept, e.cut + e.cut_length, e.end - e.cut - e.cut_length, path, {}, {},
               e.line);
        r.back().column = column + static_cast<std::uint32_t>(e.cut_length);
    }
    salvage_scan::total_bytes(s);
    s.bytes = std::move(out);
    return s;
}

} // namespace
} // namespace salvaging

Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options) {
    return salvaging::run(bytes, options);
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
