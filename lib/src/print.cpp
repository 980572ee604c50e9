// The text tree of `dump` and the generic JSON of a selected subtree.
#include "sparksave/print.hpp"

#include "sparksave/column.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <string_view>
#include <unordered_set>

SPARKSAVE_BEGIN_NAMESPACE

namespace {

constexpr char k_hex[] = "0123456789abcdef";

void append_offsets(const Document& doc, NodeId id, const PrintOptions& o, std::string& out) {
    const Span& s = doc.node(id).span;
    if (o.offsets && s.valid())
        fmt::format_to(std::back_inserter(out), "  @{:#x}+{}", s.offset, s.length);
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
    default:
        break;
    }
    if (n.type == ValueType::string || n.type == ValueType::none)
        append_display(out, v, true);
    else
        append_display(out, v, false);
}

// A column (column.hpp) shows its element type and count, then its values decoded (floats
// exact): on the same line when there are at most k_column_row, else that many a line, each
// line labelled with its tiles and, with --offsets, its own place in the file.
constexpr std::size_t k_column_row = 16;

void column_text(const Document& doc, NodeId id, int depth, const PrintOptions& o,
                 std::string& out) {
    const ColumnType t = column_type(doc, id);
    const std::string_view v = doc.value(id);
    out += ' ';
    if (!t.valid()) {
        append_value(doc, id, out);
        append_offsets(doc, id, o, out);
        out += '\n';
        return;
    }
    const std::size_t n = v.size() / t.width;
    fmt::format_to(std::back_inserter(out), "{}[{}]", column_type_name(t), n);
    if (n <= k_column_row) {
        for (std::size_t i = 0; i < n; ++i) {
            out += ' ';
            append_column_element(out, t, v, i);
        }
        append_offsets(doc, id, o, out);
        out += '\n';
        return;
    }
    append_offsets(doc, id, o, out);
    out += '\n';
    const Span& s = doc.node(id).span;
    for (std::size_t row = 0; row < n; row += k_column_row) {
        const std::size_t end = std::min(n, row + k_column_row);
        out.append(static_cast<std::size_t>(depth + 1) * 2, ' ');
        fmt::format_to(std::back_inserter(out), "[{}..{}]:", row, end - 1);
        for (std::size_t i = row; i < end; ++i) {
            out += ' ';
            append_column_element(out, t, v, i);
        }
        if (o.offsets && s.valid())
            fmt::format_to(std::back_inserter(out), "  @{:#x}+{}", s.offset + row * t.width,
                           (end - row) * t.width);
        out += '\n';
    }
}

void text_node(const Document& doc, NodeId id, int depth, std::string_view label_prefix,
               const PrintOptions& o, std::string& out) {
    const Node& n = doc.node(id);
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    out += label_prefix;
    out += ':';
    if (n.kind == NodeKind::column) {
        column_text(doc, id, depth, o, out);
        return;
    }
    const bool container = n.kind == NodeKind::object || n.kind == NodeKind::list;
    if (!container) {
        out += ' ';
        append_value(doc, id, out);
        append_offsets(doc, id, o, out);
        out += '\n';
        // A scalar may carry views of its value (a spark-kv record's decoded MMO fields): they
        // are shown by name under it.
        std::string label;
        for (NodeId c : doc.children(id)) {
            label.clear();
            append_text_name(label, doc.name(c));
            text_node(doc, c, depth + 1, label, o, out);
        }
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
            append_item_label(label, index++, doc.name(c));
        } else {
            append_text_name(label, doc.name(c));
        }
        text_node(doc, c, depth + 1, label, o, out);
    }
}

// The generic JSON of a subtree, in both shapes print.hpp describes, through the one JSON writer:
// block (print_json_subtree: a member a line, objects as JSON objects unless a name repeats) or
// compact (print_json_compact: one line, objects always as [name, value] pairs).
enum class Shape { block, compact };

void json_value(JsonWriter& w, const Document& doc, NodeId id, Shape shape) {
    const Node& n = doc.node(id);
    const auto layout =
        shape == Shape::block ? JsonWriter::Layout::block : JsonWriter::Layout::inline_;
    switch (n.kind) {
    case NodeKind::scalar:
        w.bytes(doc.value(id));
        return;
    case NodeKind::column:
        if (const ColumnType t = column_type(doc, id); t.valid()) {
            append_column_json(w.raw_value(), t, doc.value(id));
            return;
        }
        [[fallthrough]]; // bytes that are no column: as base64
    case NodeKind::bytes:
        w.begin_object();
        w.key("base64").string(base64_encode(doc.value(id)));
        w.end_object();
        return;
    case NodeKind::object: {
        bool pairs = shape == Shape::compact;
        std::unordered_set<std::string_view> names;
        for (NodeId c : doc.children(id))
            if (!pairs && !names.insert(doc.name(c)).second) pairs = true;
        if (pairs) {
            w.begin_array(layout);
            for (NodeId c : doc.children(id)) {
                w.begin_array();
                w.bytes(doc.name(c));
                json_value(w, doc, c, shape);
                w.end_array();
            }
            w.end_array();
            return;
        }
        w.begin_object(layout);
        for (NodeId c : doc.children(id)) {
            const std::string_view name = doc.name(c);
            if (is_valid_utf8(name))
                w.key(name);
            else
                w.key(display(name)); // an object key must be a string
            json_value(w, doc, c, shape);
        }
        w.end_object();
        return;
    }
    case NodeKind::list:
        break;
    }
    w.begin_array(layout);
    for (NodeId c : doc.children(id)) {
        if (doc.name(c).empty()) {
            json_value(w, doc, c, shape);
            continue;
        }
        w.begin_object();
        w.key("name").bytes(doc.name(c));
        w.key("value");
        json_value(w, doc, c, shape);
        w.end_object();
    }
    w.end_array();
}

} // namespace

void append_text_heading(std::string& out, std::string_view format, std::uint32_t version) {
    fmt::format_to(std::back_inserter(out), "format: {}\nversion: {}\n", format, version);
}

void append_text_name(std::string& out, std::string_view name) {
    if (is_bare_name(name))
        out += name;
    else
        append_display(out, name, true);
}

void append_item_label(std::string& out, std::uint64_t index, std::string_view name) {
    fmt::format_to(std::back_inserter(out), "[{}]", index);
    if (!name.empty()) {
        out += ' ';
        append_display(out, name, true);
    }
}

void print_text(const Document& doc, NodeId node, std::string_view label,
                const PrintOptions& options, std::string& out) {
    if (node == doc.root()) {
        for (NodeId c : doc.children(node)) {
            std::string name;
            append_text_name(name, doc.name(c));
            text_node(doc, c, 0, name, options, out);
        }
        return;
    }
    text_node(doc, node, 0, label, options, out);
}

void print_json_subtree(const Document& doc, NodeId node, std::string& out) {
    JsonWriter w(out);
    json_value(w, doc, node, Shape::block);
    out += '\n';
}

void print_json_compact(const Document& doc, NodeId node, std::string& out) {
    JsonWriter w(out);
    json_value(w, doc, node, Shape::compact);
}

TextParts::TextParts(const PrintOptions& options, std::string& out)
    : options_(options), out_(out) {}

Result<void> TextParts::head(Document& doc, std::uint64_t items) {
    const NodeId root = doc.root();
    for (NodeId c : doc.children(root)) {
        std::string name;
        append_text_name(name, doc.name(c));
        const Node& n = doc.node(c);
        // The list the items will come into: its header line only, as print_text would print it.
        if (n.kind == NodeKind::list && n.next_sibling == k_no_node && n.first_child == k_no_node) {
            out_ += name;
            out_ += items == 0 ? ": []\n" : ":\n";
            continue;
        }
        text_node(doc, c, 0, name, options_, out_);
    }
    return {};
}

Result<void> TextParts::item(Document& doc, NodeId item, std::uint64_t index) {
    std::string label;
    append_item_label(label, index, doc.name(item));
    text_node(doc, item, 1, label, options_, out_);
    return {};
}

Result<void> TextParts::tail(Document& doc) {
    print_text(doc, doc.root(), {}, options_, out_);
    return {};
}

SPARKSAVE_END_NAMESPACE
