// The text tree of `dump` and the generic JSON of a selected subtree.
#include "sparksave/print.hpp"

#include "sparksave/json_out.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"

#include <fmt/format.h>

#include <string_view>
#include <unordered_set>

namespace sparksave {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

void append_name(std::string& out, std::string_view name) {
    if (is_bare_name(name))
        out += name;
    else
        append_display(out, name, true);
}

void append_offsets(const Document& doc, NodeId id, const PrintOptions& o, std::string& out) {
    const Span& s = doc.node(id).span;
    if (o.offsets && s.valid()) fmt::format_to(std::back_inserter(out), "  @{:#x}+{}", s.offset, s.length);
}

void append_value(const Document& doc, NodeId id, std::string& out) {
    const Node& n = doc.node(id);
    std::string_view v = doc.value(id);
    switch (n.kind) {
    case NodeKind::bytes:
    case NodeKind::column:
        fmt::format_to(std::back_inserter(out), "<{} bytes>", v.size());
        if (!v.empty()) out += ' ';
        for (unsigned char c : v) {
            out += k_hex[c >> 4];
            out += k_hex[c & 15];
        }
        return;
    default: break;
    }
    if (n.type == ValueType::string || n.type == ValueType::none)
        append_display(out, v, true);
    else
        append_display(out, v, false);
}

void text_node(const Document& doc, NodeId id, int depth, std::string_view label_prefix,
               const PrintOptions& o, std::string& out) {
    const Node& n = doc.node(id);
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    out += label_prefix;
    out += ':';
    const bool container = n.kind == NodeKind::object || n.kind == NodeKind::list;
    if (!container) {
        out += ' ';
        append_value(doc, id, out);
        append_offsets(doc, id, o, out);
        out += '\n';
        return;
    }
    // A container with a tag (a text archive's class name: `Vector 2D`, `UnorderedMap`) shows
    // what it is.
    if (n.tag != 0) {
        out += ' ';
        append_display(out, doc.tag(id));
    }
    if (n.first_child == k_no_node) out += n.kind == NodeKind::list ? " []" : " {}";
    append_offsets(doc, id, o, out);
    out += '\n';
    std::size_t index = 0;
    std::string label;
    for (NodeId c : doc.children(id)) {
        label.clear();
        if (n.kind == NodeKind::list) {
            label = fmt::format("[{}]", index++);
            if (!doc.name(c).empty()) {
                label += ' ';
                append_display(label, doc.name(c), true);
            }
        } else {
            append_name(label, doc.name(c));
        }
        text_node(doc, c, depth + 1, label, o, out);
    }
}

void json_node(const Document& doc, NodeId id, std::string& out, int depth);

void json_children_object(const Document& doc, NodeId id, std::string& out, int depth) {
    std::unordered_set<std::string_view> names;
    bool repeated = false;
    for (NodeId c : doc.children(id))
        if (!names.insert(doc.name(c)).second) repeated = true;
    if (doc.node(id).first_child == k_no_node) {
        out += repeated ? "[]" : "{}";
        return;
    }
    out += repeated ? "[\n" : "{\n";
    bool first = true;
    for (NodeId c : doc.children(id)) {
        if (!first) out += ",\n";
        first = false;
        indent(out, depth + 1);
        if (repeated) out += '[';
        if (repeated || is_valid_utf8(doc.name(c)))
            repeated ? append_json_bytes(out, doc.name(c)) : append_json_string(out, doc.name(c));
        else
            append_json_string(out, display(doc.name(c))); // an object key must be a string
        out += repeated ? ", " : ": ";
        json_node(doc, c, out, depth + 1);
        if (repeated) out += ']';
    }
    out += '\n';
    indent(out, depth);
    out += repeated ? ']' : '}';
}

void json_node(const Document& doc, NodeId id, std::string& out, int depth) {
    const Node& n = doc.node(id);
    switch (n.kind) {
    case NodeKind::scalar: append_json_bytes(out, doc.value(id)); return;
    case NodeKind::bytes:
    case NodeKind::column:
        out += "{\"base64\": \"";
        out += base64_encode(doc.value(id));
        out += "\"}";
        return;
    case NodeKind::object: json_children_object(doc, id, out, depth); return;
    case NodeKind::list: break;
    }
    if (n.first_child == k_no_node) {
        out += "[]";
        return;
    }
    out += "[\n";
    bool first = true;
    for (NodeId c : doc.children(id)) {
        if (!first) out += ",\n";
        first = false;
        indent(out, depth + 1);
        if (!doc.name(c).empty()) {
            out += "{\"name\": ";
            append_json_bytes(out, doc.name(c));
            out += ", \"value\": ";
            json_node(doc, c, out, depth + 1);
            out += '}';
        } else {
            json_node(doc, c, out, depth + 1);
        }
    }
    out += '\n';
    indent(out, depth);
    out += ']';
}

} // namespace

void print_text(const Document& doc, NodeId node, std::string_view label, const PrintOptions& options,
                std::string& out) {
    if (node == doc.root()) {
        for (NodeId c : doc.children(node)) {
            std::string name;
            append_name(name, doc.name(c));
            text_node(doc, c, 0, name, options, out);
        }
        return;
    }
    text_node(doc, node, 0, label, options, out);
}

void print_json_subtree(const Document& doc, NodeId node, std::string& out) {
    json_node(doc, node, out, 0);
    out += '\n';
}

} // namespace sparksave

namespace sparksave {

namespace {

void compact_node(const Document& doc, NodeId id, std::string& out) {
    const Node& n = doc.node(id);
    switch (n.kind) {
    case NodeKind::scalar: append_json_bytes(out, doc.value(id)); return;
    case NodeKind::bytes:
    case NodeKind::column:
        out += "{\"base64\": \"";
        out += base64_encode(doc.value(id));
        out += "\"}";
        return;
    case NodeKind::object:
    case NodeKind::list: break;
    }
    // Objects as arrays of [name, value] pairs (names may repeat); lists as arrays, named items
    // as {"name": ..., "value": ...}: the same shapes as print_json_subtree, on one line.
    out += '[';
    bool first = true;
    for (NodeId c : doc.children(id)) {
        if (!first) out += ", ";
        first = false;
        if (n.kind == NodeKind::object) {
            out += '[';
            append_json_bytes(out, doc.name(c));
            out += ", ";
            compact_node(doc, c, out);
            out += ']';
        } else if (!doc.name(c).empty()) {
            out += "{\"name\": ";
            append_json_bytes(out, doc.name(c));
            out += ", \"value\": ";
            compact_node(doc, c, out);
            out += '}';
        } else {
            compact_node(doc, c, out);
        }
    }
    out += ']';
}

} // namespace

void print_json_compact(const Document& doc, NodeId node, std::string& out) { compact_node(doc, node, out); }

} // namespace sparksave
