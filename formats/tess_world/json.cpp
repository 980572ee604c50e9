// The lossless JSON form of a tess world archive (`dump --json`, read back by `pack`).
//
// {
//   "format": "tess_world", "version": 2,
//   "header": {
//     "worldSize": [1, 1, 1], "chunkSize": [1, 1, 1],
//     "lattice": "orthogonal",          "orthogonal", "hex-axial", or the id as "0x%08x"
//     "latticeVersion": 1, "keyLayoutVersion": 1,
//     "schemaId": "0x0102030405060708", "schemaVersion": 9,
//     "libraryVersion": [0, 13, 0],
//     "residency": "dense"              "dense", "sparse", or the byte as a string
//   },
//   "fields": [{"id": "0x1112131415161718", "version": 3, "kind": "unsigned", "width": 1}],
//   "chunks": [
//     {"key": 0, "activeMask": "0x01020304", "entityCount": 84281096, "fields": [
//       [171]                           one array per field, tiles values each (column.hpp:
//     ]}                                integers, exact floats, "0x..." bits for inf/NaN,
//   ],                                  true/false)
//   "trailing": "<hex>",                only when the tree has it (never read from a file)
//   "checksum": "0xa396f716"            informational: pack recomputes it, and the body size
//   "complete": false                   only when the read stopped part-way (pack refuses it)
// }
// v1 chunks also have "state" (the retired chunk-state byte) after "key". 64-bit ids and masks
// are hex strings so that JSON tools that read numbers as doubles cannot round them.
#include "spec.hpp"

#include "sparksave/column.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/tess_world.hpp"

#include <fmt/format.h>

namespace sparksave::tess_world {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

// A number from the tree as a JSON number when it is plain decimal, else as a string (a hex
// id, or a name such as "dense").
void number(const Document& doc, NodeId n, std::string& out) {
    const std::string_view t = n == k_no_node ? std::string_view{} : doc.value(n);
    const bool decimal = !t.empty() && t.size() <= 20 &&
                         t.find_first_not_of("0123456789") == std::string_view::npos &&
                         (t.size() == 1 || t[0] != '0');
    if (decimal)
        out += t;
    else
        append_json_bytes(out, t);
}

void member(const Document& doc, NodeId parent, std::string_view name, std::string& out,
            bool first = false) {
    if (!first) out += ", ";
    append_json_string(out, name);
    out += ": ";
    number(doc, parent == k_no_node ? k_no_node : doc.child(parent, name), out);
}

void triple(const Document& doc, NodeId group, const std::array<std::string_view, 3>& parts,
            std::string& out) {
    out += '[';
    for (std::size_t i = 0; i < 3; ++i) {
        if (i) out += ", ";
        number(doc, group == k_no_node ? k_no_node : doc.child(group, parts[i]), out);
    }
    out += ']';
}

void header(const Document& doc, NodeId h, std::string& out) {
    out += ",\n  \"header\": {\n    \"worldSize\": ";
    triple(doc, doc.child(h, k_world_size), k_axes, out);
    out += ",\n    \"chunkSize\": ";
    triple(doc, doc.child(h, k_chunk_size), k_axes, out);
    out += ",\n    ";
    member(doc, h, k_lattice, out, true);
    out += ",\n    ";
    member(doc, h, k_lattice_version, out, true);
    out += ",\n    ";
    member(doc, h, k_key_layout_version, out, true);
    out += ",\n    ";
    member(doc, h, k_schema_id, out, true);
    out += ",\n    ";
    member(doc, h, k_schema_version, out, true);
    out += ",\n    \"libraryVersion\": ";
    triple(doc, doc.child(h, k_library_version), k_library_parts, out);
    out += ",\n    ";
    member(doc, h, k_residency, out, true);
    out += "\n  }";
}

void fields(const Document& doc, NodeId list, std::string& out) {
    out += ",\n  \"fields\": [";
    bool first = true;
    for (NodeId d : doc.children(list)) {
        out += first ? "\n    {" : ",\n    {";
        first = false;
        member(doc, d, k_id, out, true);
        member(doc, d, k_version, out);
        member(doc, d, k_kind, out);
        member(doc, d, k_width, out);
        out += '}';
    }
    out += first ? "]" : "\n  ]";
}

void chunks(const Document& doc, NodeId list, std::string& out) {
    out += ",\n  \"chunks\": [";
    bool first = true;
    for (NodeId c : doc.children(list)) {
        out += first ? "\n    {" : ",\n    {";
        first = false;
        member(doc, c, k_key, out, true);
        if (doc.child(c, k_state) != k_no_node) member(doc, c, k_state, out);
        member(doc, c, k_active_mask, out);
        member(doc, c, k_entity_count, out);
        out += ", \"fields\": [";
        bool first_column = true;
        if (NodeId columns = doc.child(c, k_fields); columns != k_no_node) {
            for (NodeId column : doc.children(columns)) {
                out += first_column ? "\n      " : ",\n      ";
                first_column = false;
                append_column_json(out, column_type(doc, column), doc.value(column));
            }
        }
        out += first_column ? "]}" : "\n    ]}";
    }
    out += first ? "]" : "\n  ]";
}

} // namespace

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    out += "{\n  \"format\": \"tess_world\",\n  \"version\": ";
    out += std::to_string(doc.version());
    const NodeId h = doc.child(root, k_header);
    if (h != k_no_node) header(doc, h, out);
    if (NodeId f = doc.child(root, k_fields); f != k_no_node) fields(doc, f, out);
    if (NodeId c = doc.child(root, k_chunks); c != k_no_node) chunks(doc, c, out);
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node) {
        out += ",\n  \"trailing\": \"";
        for (unsigned char b : doc.value(t)) {
            out += k_hex[b >> 4];
            out += k_hex[b & 15];
        }
        out += '"';
    }
    if (h != k_no_node) {
        if (NodeId c = doc.child(h, k_checksum); c != k_no_node) {
            out += ",\n  \"checksum\": ";
            append_json_bytes(out, doc.value(c));
        }
    }
    if (!doc.complete()) out += k_json_incomplete;
    out += "\n}\n";
}

} // namespace sparksave::tess_world
