// The lossless JSON form of a GMSV save (`dump --json`, read back by `pack`).
//
// {
//   "format": "gmsv", "version": 3,
//   "timestamp": {"binary": "5250041986427387904", "kind": "utc", "time":
//   "2023-11-14T22:13:20.0000000Z"}, "entities": [
//     {"id": "00112233-4455-6677-8899-aabbccddeeff", "components": [
//       {"type": 1, "name": "Position", "json": {"X":1.0,"Y":2.0}},
//       {"type": 2, "name": "Health", "hex": "000096420000c842"}
//     ]}
//   ],
//   "trailing": "<hex>",           only when the file has bytes after its checksum
//   "checksum": "0x1a2b3c4d"       informational: pack recomputes it
//   "complete": false              only when the read stopped part-way (pack refuses it)
// }
// "binary" is the stored DateTime.ToBinary() value as a decimal string (a JSON tool that reads
// numbers as doubles would round it); "kind" and "time" are informational. Component data is
// "json": the data itself, byte for byte (it is one JSON object, see gmsv/tree.hpp); "jsonText":
// the same data as a JSON string, when it holds characters no output of sparksave passes on raw
// (C1 controls, direction overrides, U+2028/U+2029, a CR: escape.hpp has_terminal_controls), so
// that they are escaped and the bytes still come back exactly; or "hex".
// "name" is informational; "type" is the id written.
#include "tree.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/gmsv.hpp"
#include "sparksave/json_out.hpp"

#include <fmt/format.h>

namespace sparksave::gmsv {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

void hex(std::string_view bytes, std::string& out) {
    out += '"';
    for (unsigned char b : bytes) {
        out += k_hex[b >> 4];
        out += k_hex[b & 15];
    }
    out += '"';
}

void timestamp(const Document& doc, NodeId t, std::string& out) {
    out += ",\n  \"timestamp\": {";
    bool first = true;
    for (std::string_view name : {k_binary, k_kind, k_time}) {
        const NodeId n = doc.child(t, name);
        if (n == k_no_node) continue;
        if (!first) out += ", ";
        first = false;
        append_json_string(out, name);
        out += ": ";
        append_json_bytes(out, doc.value(n));
    }
    out += '}';
}

void entities(const Document& doc, NodeId list, std::string& out) {
    out += ",\n  \"entities\": [";
    bool first = true;
    for (NodeId e : doc.children(list)) {
        out += first ? "\n    {\"id\": " : ",\n    {\"id\": ";
        first = false;
        append_json_bytes(out, doc.name(e));
        out += ", \"components\": [";
        bool first_c = true;
        for (NodeId c : doc.children(e)) {
            out += first_c ? "\n      {\"type\": " : ",\n      {\"type\": ";
            first_c = false;
            const auto type = component_type(doc.name(c));
            out += type ? std::to_string(*type) : std::string("null");
            out += ", \"name\": ";
            append_json_bytes(out, doc.name(c));
            const std::string_view data = doc.value(c);
            if (doc.node(c).kind == NodeKind::object && is_json_payload(data)) {
                if (has_terminal_controls(data)) {
                    // Raw C1 controls, direction overrides, U+2028 or a CR would reach the
                    // reader of the dump: the data goes as a string, every such character
                    // escaped (and decoded back to the same bytes by pack).
                    out += ", \"jsonText\": ";
                    append_json_string(out, data);
                } else {
                    out += ", \"json\": ";
                    out += data; // one JSON object, valid UTF-8, nothing to escape: as it is
                }
            } else {
                out += ", \"hex\": ";
                hex(data, out);
            }
            out += '}';
        }
        out += first_c ? "]}" : "\n    ]}";
    }
    out += first ? "]" : "\n  ]";
}

} // namespace

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    out += "{\n  \"format\": \"gmsv\",\n  \"version\": ";
    out += std::to_string(doc.version());
    if (NodeId t = doc.child(root, k_timestamp); t != k_no_node) timestamp(doc, t, out);
    if (NodeId e = doc.child(root, k_entities); e != k_no_node) entities(doc, e, out);
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node) {
        out += ",\n  \"trailing\": ";
        hex(doc.value(t), out);
    }
    if (NodeId c = doc.child(root, k_checksum); c != k_no_node) {
        out += ",\n  \"checksum\": ";
        append_json_bytes(out, doc.value(c));
    }
    if (!doc.complete()) out += k_json_incomplete;
    out += "\n}\n";
}

} // namespace sparksave::gmsv
