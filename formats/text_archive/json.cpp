// The lossless JSON form of a text archive tree (`dump --json`, read back by `pack`).
//
// {
//   "format": "text_archive",
//   "version": 1,                   1 when the version line is 1.0.0, else null
//   "versionLine": "1.0.0",         the first line, exact
//   "entries": [ ITEM, ... ]        the top-level entries in file order, duplicates kept
//   "complete": false               only when a limit stopped the read (pack refuses it)
// }
// ITEM, an attribute:  {"name": "hp", "type": "int", "value": "7"}
// ITEM, a class:       {"name": "player", "class": "PositionComponent", "children": [ITEM, ...]}
//
// - "name" is absent for an unnamed child (Vector items); "name": "" is a child written with an
//   empty name (`: __PGSA ...`). Every top-level entry of a valid file has a name.
// - "type" and "class" are the exact type and class names (`unsigned int`, `Vector 2D`);
//   "value" is the exact value text, never reformatted (`42.500000` stays `42.500000`).
// - A class named `Vector` holds unnamed items; `UnorderedMap` holds nbElements, key0, value0,
//   ...; both are plain classes here, so order and every child are kept as they are.
// - Every string is a JSON string when its bytes are valid UTF-8, else {"base64": "..."}.
// With the version line, this is everything the writer needs: `pack` rebuilds the identical
// bytes (one TAB per depth, `,` after every child but the last, LF line ends).
// The walk keeps its own stack, so a deep tree cannot overflow the call stack.
#include "spec.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/text_archive.hpp"

#include <vector>

namespace sparksave::text_archive {

namespace {

// Appends `node` at JSON nesting `depth`: a whole attribute, or a class up to its "children"
// array's opening bracket (true: the caller writes the children, then closes it).
bool open_item(const Document& doc, NodeId node, int depth, std::string& out) {
    const Node& n = doc.node(node);
    indent(out, depth);
    out += '{';
    const std::string_view name = doc.name(node);
    const bool named = !name.empty() || (n.flags & k_flag_empty_name);
    if (named) {
        out += "\"name\": ";
        append_json_bytes(out, name);
        out += ", ";
    }
    if (n.kind == NodeKind::object || n.kind == NodeKind::list) {
        out += "\"class\": ";
        append_json_bytes(out, doc.tag(node));
        if (n.first_child == k_no_node) {
            out += ", \"children\": []}";
            return false;
        }
        out += ", \"children\": [\n";
        return true;
    }
    out += "\"type\": ";
    append_json_bytes(out, doc.tag(node));
    out += ", \"value\": ";
    append_json_bytes(out, doc.value(node));
    out += '}';
    return false;
}

} // namespace

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    out += "{\n  \"format\": \"text_archive\",\n  \"version\": ";
    out += doc.version() == k_current_version ? "1" : "null";
    out += ",\n  \"versionLine\": ";
    append_json_bytes(out, doc.value(root));
    out += ",\n  \"entries\": ";
    if (doc.node(root).first_child == k_no_node) {
        out += "[]";
        if (!doc.complete()) out += k_json_incomplete;
        out += "\n}\n";
        return;
    }
    out += "[\n";
    struct Open {
        NodeId next; // the next child to write
        int depth;   // JSON nesting of the class's children
        bool first;
    };
    std::vector<Open> stack{{doc.node(root).first_child, 2, true}};
    while (!stack.empty()) {
        Open& top = stack.back();
        if (top.next == k_no_node) {
            const int depth = top.depth;
            stack.pop_back();
            out += '\n';
            indent(out, depth - 1);
            out += stack.empty() ? "]" : "]}";
            continue;
        }
        const NodeId node = top.next;
        const int depth = top.depth;
        top.next = doc.node(node).next_sibling;
        if (!top.first) out += ",\n";
        top.first = false;
        if (open_item(doc, node, depth, out))
            stack.push_back({doc.node(node).first_child, depth + 1, true}); // invalidates top
    }
    if (!doc.complete()) out += k_json_incomplete;
    out += "\n}\n";
}

} // namespace sparksave::text_archive
