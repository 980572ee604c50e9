// The lossless JSON form of a spark-kv tree (`dump --json`, read back by `pack`).
//
// {
//   "format": "spark_kv",
//   "version": 2,                        1 legacy (no marker line), 2 `#!spark-kv-v2`
//   "records": [                         every line after the marker, in file order
//     {"key": "character_7", "value": "Alice|..."},
//     {"key": "note", "value": "a\\qb", "raw": "note\ta\\qb"},
//     {"line": "text without a TAB"}
//   ],
//   "finalNewline": false                only when the last line has no LF
//   "complete": false                    only when a limit stopped the read (pack refuses it)
// }
//
// - "key" and "value" are what the engine reads (v2 escapes decoded), duplicates kept in order.
// - "raw" is the line's exact text (without its LF), given only when it is not what the writer
//   of the version makes of key and value: an unknown escape kept verbatim, a literal TAB in a
//   v2 value. pack writes it as long as it still reads back as key and value, so an unedited
//   dump packs to the identical file and an edited key or value is written canonically.
// - {"line": ...} is a line without a TAB (the engine skips it), exact.
// - Every string is a JSON string when its bytes are valid UTF-8, else {"base64": "..."}.
// - Views (decoded MMO fields) are not data and are not in the JSON.
#include "codec.hpp"
#include "spec.hpp"

#include "sparksave/json_out.hpp"
#include "sparksave/spark_kv.hpp"

namespace sparksave::spark_kv {

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    out += "{\n  \"format\": \"spark_kv\",\n  \"version\": ";
    out += std::to_string(doc.version());
    out += ",\n  \"records\": ";
    const NodeId records = doc.child(root, k_records);
    if (records == k_no_node || doc.node(records).first_child == k_no_node) {
        out += "[]";
    } else {
        out += "[\n";
        bool first = true;
        std::string canonical;
        const std::string_view source = doc.source_bytes();
        for (NodeId c : doc.children(records)) {
            if (!first) out += ",\n";
            first = false;
            const Node& n = doc.node(c);
            if (n.flags & k_flag_no_tab) {
                const NodeId text = doc.child(c, k_text);
                out += "    {\"line\": ";
                append_json_bytes(out, text == k_no_node ? std::string_view{} : doc.value(text));
                out += '}';
                continue;
            }
            out += "    {\"key\": ";
            append_json_bytes(out, doc.name(c));
            out += ", \"value\": ";
            append_json_bytes(out, doc.value(c));
            if (n.span.valid() && std::uint64_t{n.span.offset} + n.span.length <= source.size()) {
                const std::string_view raw = source.substr(n.span.offset, n.span.length);
                canonical.clear();
                append_line(canonical, doc.name(c), doc.value(c), doc.version());
                if (raw != canonical && line_says(raw, doc.name(c), doc.value(c), doc.version())) {
                    out += ", \"raw\": ";
                    append_json_bytes(out, raw);
                }
            }
            out += '}';
        }
        out += "\n  ]";
    }
    if (doc.node(root).flags & k_flag_no_final_newline) out += ",\n  \"finalNewline\": false";
    if (!doc.complete()) out += k_json_incomplete;
    out += "\n}\n";
}

} // namespace sparksave::spark_kv
