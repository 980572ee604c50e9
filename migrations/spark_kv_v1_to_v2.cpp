// spark_kv 1 -> 2 (formats/README.md §3): a legacy store becomes a `#!spark-kv-v2` store: the
// marker line, and every key and value escaped (`\` -> `\\`, TAB -> `\t`). The records keep their
// order, their duplicates (the last of a key still wins) and their exact meaning: a legacy value is
// literal, so `C:\new` is written `C:\\new` and still reads as `C:\new`.
//
// What cannot be carried over without losing data silently makes the step fail, with the node:
// a non-empty line without a TAB. The engine skips it, so its text survives only until the
// store is next written, and no record can be made of it (it has no key): the user decides
// what it was. Empty lines hold nothing and are dropped (a note says how many).
#include "steps.hpp"

#include "spark_kv/codec.hpp"
#include "spark_kv/spec.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

namespace sparksave::inline SPARKSAVE_ABI::migrations {

Result<void> spark_kv_v1_to_v2(Document& doc, Notes& notes) {
    NodeId records = doc.child(doc.root(), spark_kv::k_records);
    if (records == k_no_node)
        records = doc.append(doc.root(), NodeKind::object, doc.text(spark_kv::k_records));
    std::vector<NodeId> empty_lines;
    std::uint64_t index = 0, escaped = 0;
    for (NodeId c : doc.children(records)) {
        Node& n = doc.node(c);
        if (n.flags & spark_kv::k_flag_no_tab) {
            const NodeId text = doc.child(c, spark_kv::k_text);
            const std::string_view line = text == k_no_node ? std::string_view{} : doc.value(text);
            if (line.empty()) {
                empty_lines.push_back(c);
                ++index;
                continue;
            }
            std::string path(spark_kv::k_records);
            append_path_index(path, index);
            const std::string shown =
                line.size() > 48 ? display(line.substr(0, 48), true) + "..." : display(line, true);
            return make_error(ErrorCode::missing_tab,
                              fmt::format("expected every line to be KEY<TAB>VALUE, found a line "
                                          "without a TAB ({}): the engine skips it, so its text "
                                          "would be lost at the store's next write and no record "
                                          "can be made of it; fix or delete the line, then migrate",
                                          shown),
                              k_no_offset, std::move(path));
        }
        // The file's legacy text is not v2 text: clear the span so the writer escapes the record.
        n.span = Span{};
        bool needs = false;
        for (char ch : doc.name(c)) needs = needs || spark_kv::needs_escape(ch);
        for (char ch : doc.value(c)) needs = needs || spark_kv::needs_escape(ch);
        escaped += needs;
        ++index;
    }
    for (NodeId c : empty_lines) doc.unlink(records, c);
    if (!empty_lines.empty())
        notes.push_back(
            {fmt::format("dropped {} empty line{} (the engine skips them; they held nothing)",
                         empty_lines.size(), empty_lines.size() == 1 ? "" : "s")});
    if (escaped)
        notes.push_back({fmt::format("escaped the backslashes and TABs of {} record{}", escaped,
                                     escaped == 1 ? "" : "s")});
    return {};
}

} // namespace sparksave::migrations
