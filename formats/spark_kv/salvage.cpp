// Salvage of a damaged spark-kv store (sparksave/salvage.hpp, sparksave-salvage(1)): the
// format's entry of its row (format.cpp). The store is a list of lines (formats/README.md §3), so
// the damage is always one line's: every line the current engine would refuse (§3.2: no final
// LF, no TAB, a v2 escape the writer never produces, a key seen before) is lost, with the
// engine's reason; every other line is kept as it is. A first line that is the marker with a byte
// or two damaged (or `#!spark-kv` and anything) is rebuilt as the marker. The candidate is read
// back by the format's own reader (summarize: every rule, the budget included); a line it still
// refuses is dropped too.
#include "api.hpp"
#include "codec.hpp"
#include "common/salvage_scan.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

// Unity builds put this file beside the format's others: its helpers have a namespace of
// their own.
namespace salvaging {
namespace {

using Kind = SalvageRegion::Kind;

struct Line {
    std::size_t begin = 0;
    std::size_t end = 0; // after its LF (or the end of the file)
    std::string_view text;
    bool lf = false;
    bool kept = false;
    std::string key; // decoded
    std::string reason;
};

// Is `line` meant as the marker: `#!spark-kv` and anything (rules.hpp), or the marker's length
// with at most two bytes damaged (a TAB among them too: a record's line is not 13 bytes that
// nearly spell the marker)?
bool damaged_marker(std::string_view line) noexcept {
    if (looks_like_marker(line)) return true;
    if (line.size() != k_marker.size()) return false;
    int differ = 0;
    for (std::size_t i = 0; i < line.size(); ++i) differ += line[i] != k_marker[i] ? 1 : 0;
    return differ <= 2;
}

Result<Salvaged> run(std::string_view d, const SalvageOptions&) {
    if (d.size() > k_max_file_size)
        return make_error(
            ErrorCode::too_large,
            fmt::format("expected at most {} bytes, found {}", k_max_file_size, d.size()), 0);
    std::vector<Line> lines;
    for (std::size_t p = 0; p < d.size();) {
        const std::size_t nl = d.find('\n', p);
        Line l;
        l.begin = p;
        l.end = nl == std::string_view::npos ? d.size() : nl + 1;
        l.lf = nl != std::string_view::npos;
        l.text = d.substr(p, (l.lf ? nl : d.size()) - p);
        lines.push_back(std::move(l));
        p = lines.back().end;
    }
    Salvaged s;
    s.format = FormatId::spark_kv;
    s.input_size = d.size();
    std::size_t first = 0;
    bool marker_rebuilt = false;
    std::uint32_t version = k_version_legacy;
    if (!lines.empty() && lines[0].lf &&
        (lines[0].text == k_marker || damaged_marker(lines[0].text))) {
        version = k_version_v2;
        marker_rebuilt = lines[0].text != k_marker;
        first = 1;
    }
    s.from = s.version = version;
    // Each line as LoadFromDisk checks it (§3.2), in its order; the first line of a key is kept.
    std::unordered_set<std::string> keys;
    for (std::size_t i = first; i < lines.size(); ++i) {
        Line& l = lines[i];
        const std::size_t tab = l.text.find('\t');
        if (!l.lf) {
            l.reason = "the last line has no LF (the store was cut short): the engine refuses it";
            continue;
        }
        if (tab == std::string_view::npos) {
            l.reason = "a line without a TAB (no key/value separator): the engine refuses it";
            continue;
        }
        const std::string_view raw_key = l.text.substr(0, tab);
        const std::string_view raw_value = l.text.substr(tab + 1);
        bool bad = false;
        if (version == k_version_v2) {
            std::string value;
            decode_v2(raw_key, l.key, [&](std::size_t) { bad = true; });
            decode_v2(raw_value, value, [&](std::size_t) { bad = true; });
        } else {
            l.key.assign(raw_key);
        }
        if (bad) {
            l.reason = "an escape sequence the writer never produces: the engine refuses it";
            continue;
        }
        if (!keys.insert(l.key).second) {
            l.reason = "a key an earlier line has (kept): the engine refuses a repeated key";
            continue;
        }
        l.kept = true;
    }
    // The candidate, read back with every rule; a line it still refuses (the rewrite budget) is
    // dropped, until none is.
    for (;;) {
        std::string out;
        std::vector<std::size_t> out_lines; // the input line of each output line (1-based)
        if (version == k_version_v2) {
            out.append(k_marker);
            out += '\n';
            out_lines.push_back(0);
        }
        for (std::size_t i = first; i < lines.size(); ++i) {
            if (!lines[i].kept) continue;
            out.append(lines[i].text);
            out += '\n';
            out_lines.push_back(i);
        }
        const Summary check = summarize(out);
        bool changed = false;
        for (const Error& e : check.findings.items()) {
            if (e.severity != Severity::error) continue;
            if (e.line == 0 || e.line > out_lines.size() || out_lines[e.line - 1] < first) continue;
            Line& l = lines[out_lines[e.line - 1]];
            if (!l.kept) continue;
            l.kept = false;
            l.reason = "the engine would refuse it: " + e.message;
            changed = true;
        }
        if (!check.findings.has_errors()) {
            s.bytes = std::move(out);
            break;
        }
        if (!changed) {
            const Error* e = check.findings.first_error();
            return make_error(ErrorCode::internal,
                              "salvage could not make a store the engine loads: " +
                                  (e ? e->describe() : std::string()));
        }
    }
    // The report: a region a line.
    if (first == 1) {
        if (marker_rebuilt)
            s.regions.push_back({Kind::rebuilt, 0, lines[0].end, "version", std::string(k_marker),
                                 "the first line is the v2 marker, damaged: the marker written"});
        else
            s.regions.push_back({Kind::kept, 0, lines[0].end, "version", {}, {}});
    }
    for (std::size_t i = first; i < lines.size(); ++i) {
        const Line& l = lines[i];
        if (l.kept) {
            s.regions.push_back({Kind::kept, l.begin, l.end - l.begin, record_path(l.key), {}, {}});
            ++s.totals.entities.kept;
        } else {
            s.regions.push_back({Kind::lost,
                                 l.begin,
                                 l.end - l.begin,
                                 l.key.empty() ? std::string() : record_path(l.key),
                                 {},
                                 l.reason});
            ++s.totals.entities.lost;
        }
    }
    for (std::size_t i = 0; i < s.regions.size(); ++i) {
        s.regions[i].line = static_cast<std::uint32_t>(i + 1); // a region a line
        s.regions[i].column = 1;
    }
    salvage_scan::total_bytes(s);
    return s;
}

} // namespace
} // namespace salvaging

Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options) {
    return salvaging::run(bytes, options);
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
