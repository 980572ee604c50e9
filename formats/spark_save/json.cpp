// The lossless JSON form of a `.spark_save` tree (`dump --json`, read back by `pack`).
//
// {
//   "format": "spark_save", "version": 1,
//   "metadata": {"raw": "<the block, exact>", "fields": {"saveName": "...", ...,
//                "position": ["1", "2", "3"], ...}},
//   "entities": [{"name": "...", "components": [{"type": "...",
//                 "properties": [["key", "value"], ...]}]}],
//   "customState": [["key", "value"], ...],
//   "customStateCount": N        only when the file declares more pairs than it holds (v1/v2)
//   "customStateAbsent": true    only when the file has no custom-state count (v1/v2)
//   "trailing": "..."            only when the file has bytes after its data
//   "checksum": "0x........"     v4: the stored CRC-32 (pack recomputes it)
// }
// Every string is a JSON string when its bytes are valid UTF-8, else {"base64": "..."}.
// Metadata fields are informational strings with each token's exact text; "raw" is what pack
// writes unless the fields were edited.
#include "spec.hpp"

#include "sparksave/json_out.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/spark_save.hpp"

#include <fmt/format.h>

namespace sparksave::spark_save {

namespace {

void pairs(const Document& doc, NodeId parent, std::string& out, int depth) {
    if (doc.node(parent).first_child == k_no_node) {
        out += "[]";
        return;
    }
    out += "[\n";
    bool first = true;
    for (NodeId p : doc.children(parent)) {
        if (!first) out += ",\n";
        first = false;
        indent(out, depth + 1);
        out += '[';
        append_json_bytes(out, doc.name(p));
        out += ", ";
        append_json_bytes(out, doc.value(p));
        out += ']';
    }
    out += '\n';
    indent(out, depth);
    out += ']';
}

void metadata(const Document& doc, NodeId m, std::string& out) {
    out += "  \"metadata\": {\n    \"raw\": ";
    append_json_bytes(out, doc.value(m));
    out += ",\n    \"fields\": {";
    bool first = true;
    for (NodeId f : doc.children(m)) {
        out += first ? "\n" : ",\n";
        first = false;
        indent(out, 3);
        append_json_string(out, doc.name(f));
        out += ": ";
        if (doc.node(f).kind == NodeKind::object) {
            out += '[';
            bool first_part = true;
            for (NodeId part : doc.children(f)) {
                if (!first_part) out += ", ";
                first_part = false;
                append_json_bytes(out, doc.value(part));
            }
            out += ']';
        } else {
            append_json_bytes(out, doc.value(f));
        }
    }
    out += first ? "}\n  }" : "\n    }\n  }";
}

void entities(const Document& doc, NodeId list, std::string& out) {
    out += "  \"entities\": ";
    if (doc.node(list).first_child == k_no_node) {
        out += "[]";
        return;
    }
    out += "[\n";
    bool first = true;
    for (NodeId e : doc.children(list)) {
        if (!first) out += ",\n";
        first = false;
        out += "    {\n      \"name\": ";
        append_json_bytes(out, doc.name(e));
        out += ",\n      \"components\": ";
        if (doc.node(e).first_child == k_no_node) {
            out += "[]\n    }";
            continue;
        }
        out += "[\n";
        bool first_c = true;
        for (NodeId c : doc.children(e)) {
            if (!first_c) out += ",\n";
            first_c = false;
            out += "        {\n          \"type\": ";
            append_json_bytes(out, doc.name(c));
            out += ",\n          \"properties\": ";
            pairs(doc, c, out, 5);
            out += "\n        }";
        }
        out += "\n      ]\n    }";
    }
    out += "\n  ]";
}

} // namespace

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    out += "{\n  \"format\": \"spark_save\",\n  \"version\": ";
    out += std::to_string(doc.version());
    if (NodeId m = doc.child(root, k_metadata); m != k_no_node) {
        out += ",\n";
        metadata(doc, m, out);
    }
    if (NodeId e = doc.child(root, k_entities); e != k_no_node) {
        out += ",\n";
        entities(doc, e, out);
    }
    if (NodeId cs = doc.child(root, k_custom_state); cs != k_no_node) {
        out += ",\n  \"customState\": ";
        pairs(doc, cs, out, 1);
        if (!doc.value(cs).empty()) {
            out += ",\n  \"customStateCount\": ";
            out += doc.value(cs); // digits written by the reader
        }
        if (doc.node(cs).flags & k_flag_absent) out += ",\n  \"customStateAbsent\": true";
    }
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node) {
        out += ",\n  \"trailing\": ";
        append_json_bytes(out, doc.value(t));
    }
    if (NodeId c = doc.child(root, k_checksum); c != k_no_node) {
        out += ",\n  \"checksum\": ";
        append_json_string(out, doc.value(c));
    }
    out += "\n}\n";
}

} // namespace sparksave::spark_save
