// spark_kv 1 -> 2 (formats/README.md §3): a legacy store becomes a `#!spark-kv-v2` store the
// current engine loads, holding exactly what the pre-marker reader (f3bb430d, which wrote legacy
// stores) read from it: the marker line, then every record escaped (`\` -> `\\`, TAB -> `\t`, CR ->
// `\r`) and ended by a line feed. A legacy value is literal, so `C:\new` is written `C:\\new` and
// still reads as `C:\new`.
//
// What the current engine refuses and the pre-marker reader read is carried over as that reader
// read it, each change a note naming the line (the step repairs the errors it lists in the
// registry, MigrationStep::repairs; `migrate --strict` refuses such a store instead):
//   - a line without a TAB (an empty one too): that reader skipped it, so it is dropped;
//   - a key on several lines: that reader kept the last line's value, so the earlier lines are
//     dropped;
//   - a last line without its line feed: that reader read it as it is, so the record (or, without
//     a TAB, nothing) is kept and the line ended.
#include "steps.hpp"

#include "spark_kv/codec.hpp"
#include "spark_kv/rules.hpp"
#include "spark_kv/spec.hpp"

#include "common/finding.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

namespace {

// Notes of each kind listed one by one, then counted: a hostile store can have millions.
constexpr std::size_t k_max_listed = 100;
// Earlier lines of one key listed in its note.
constexpr std::size_t k_max_lines_listed = 8;

// Adds `text` while fewer than k_max_listed of its kind (`listed`) are; else counts it.
void list_or_count(Notes& notes, std::size_t& listed, std::uint64_t& unlisted, std::string text) {
    if (listed < k_max_listed) {
        ++listed;
        notes.push_back({std::move(text)});
    } else {
        ++unlisted;
    }
}

} // namespace

Result<void> spark_kv_v1_to_v2(Document& doc, Notes& notes) {
    NodeId records = doc.child(doc.root(), spark_kv::k_records);
    if (records == k_no_node)
        records = doc.append(doc.root(), NodeKind::object, doc.text(spark_kv::k_records));
    // A legacy store has no marker line: child i is line i + 1.
    std::vector<NodeId> lines;
    for (NodeId c : doc.children(records)) lines.push_back(c);
    std::unordered_map<std::string_view, std::size_t> last; // key -> its last line's index
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (!(doc.node(lines[i]).flags & spark_kv::k_flag_no_tab)) last[doc.name(lines[i])] = i;

    Notes listed;
    std::size_t dropped = 0, collapsed = 0;
    std::uint64_t dropped_unlisted = 0, collapsed_unlisted = 0;
    std::unordered_map<std::string_view, std::vector<std::size_t>> earlier; // key -> lost lines
    std::vector<NodeId> remove;
    std::uint64_t escaped = 0, final_cr = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const NodeId c = lines[i];
        Node& n = doc.node(c);
        if (n.flags & spark_kv::k_flag_no_tab) {
            const NodeId text = doc.child(c, spark_kv::k_text);
            const std::string_view line = text == k_no_node ? std::string_view{} : doc.value(text);
            list_or_count(listed, dropped, dropped_unlisted,
                          fmt::format("dropped line {} ({}): it has no TAB, so the pre-marker "
                                      "reader skipped it (the current engine refuses it)",
                                      i + 1, line.empty() ? "an empty line" : excerpt(line)));
            remove.push_back(c);
            continue;
        }
        const std::string_view key = doc.name(c);
        if (last[key] != i) {
            earlier[key].push_back(i + 1);
            remove.push_back(c);
            continue;
        }
        // The file's legacy text is not v2 text: clear the span so the writer escapes the record.
        n.span = Span{};
        bool needs = false;
        for (char ch : key) needs = needs || spark_kv::needs_escape(ch);
        for (char ch : doc.value(c)) needs = needs || spark_kv::needs_escape(ch);
        escaped += needs;
        final_cr += doc.value(c).ends_with('\r');
    }
    // Each collapsed key once, at the line kept, in file order.
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (doc.node(lines[i]).flags & spark_kv::k_flag_no_tab) continue;
        const std::string_view key = doc.name(lines[i]);
        auto it = earlier.find(key);
        if (it == earlier.end() || last[key] != i) continue;
        std::string lost;
        for (std::size_t k = 0; k < it->second.size() && k < k_max_lines_listed; ++k)
            lost += fmt::format("{}{}", k ? ", " : "", it->second[k]);
        if (it->second.size() > k_max_lines_listed)
            lost += fmt::format(" and {} more", it->second.size() - k_max_lines_listed);
        list_or_count(listed, collapsed, collapsed_unlisted,
                      fmt::format("collapsed key {}: kept line {}, the last (the pre-marker "
                                  "reader kept the last line of a key; the current engine "
                                  "refuses a repeated key), dropped line{} {}",
                                  excerpt(key), i + 1, it->second.size() == 1 ? "" : "s", lost));
    }
    Node& root = doc.node(doc.root());
    if ((root.flags & spark_kv::k_flag_no_final_newline) && !lines.empty()) {
        root.flags = static_cast<std::uint8_t>(root.flags & ~spark_kv::k_flag_no_final_newline);
        const NodeId c = lines.back();
        if (!(doc.node(c).flags & spark_kv::k_flag_no_tab))
            listed.push_back({fmt::format(
                "ended line {} (key {}) with a line feed: it had none, so the store was probably "
                "cut short and the value may be cut (the pre-marker reader read it as it is; the "
                "current engine refuses a store without its final line feed)",
                lines.size(), excerpt(doc.name(c)))});
    }
    for (NodeId c : remove) doc.unlink(records, c);
    merge_notes(notes, listed);
    if (dropped_unlisted)
        notes.push_back({"dropped lines without a TAB, not listed above", dropped_unlisted});
    if (collapsed_unlisted)
        notes.push_back({"collapsed keys, not listed above", collapsed_unlisted});
    if (escaped)
        notes.push_back({fmt::format("escaped the backslashes, TABs and CRs of {} record{}",
                                     escaped, escaped == 1 ? "" : "s")});
    if (final_cr)
        notes.push_back(
            {fmt::format("kept the CR ending the value of {} record{} (written \\r), as the "
                         "engine's POSIX build reads it; its Windows build strips that CR (a "
                         "store a Windows server wrote ends every line with CRLF: convert it "
                         "to LF first to keep the values that server read)",
                         final_cr, final_cr == 1 ? "" : "s")});
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
