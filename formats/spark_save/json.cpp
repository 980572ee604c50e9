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
//   "complete": false            only when the read stopped part-way at an error: the dump
//                                holds what was read before it, and pack refuses it
// }
// Every string is a JSON string when its bytes are valid UTF-8, else {"base64": "..."}.
// Metadata fields are informational strings with each token's exact text; "raw" is what pack
// writes unless the fields were edited.
#include "spec.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
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

} // namespace

namespace {

// The JSON part by part (format.hpp Parts); to_json() runs it over a whole tree.
class JsonEmitter final : public Parts {
  public:
    explicit JsonEmitter(std::string& out) : out_(out) {}
    Result<void> head(Document& doc, std::uint64_t) override {
        write_head(doc);
        return {};
    }
    Result<void> item(Document& doc, NodeId entity, std::uint64_t) override {
        write_item(doc, entity);
        return {};
    }
    Result<void> tail(Document& doc) override {
        write_tail(doc);
        return {};
    }
    // The read stopped part-way: the JSON ends with "complete": false, as to_json() of a tree
    // that is not Document::complete() does.
    void stopped() override {
        complete_ = false;
        finish();
    }

    void write_head(const Document& doc);
    void write_item(const Document& doc, NodeId entity);
    // Closes the JSON unless the tail is one the read stopped in (stopped() follows).
    void write_tail(const Document& doc);

  private:
    void close_entities();
    void finish();
    std::string& out_;
    bool complete_ = true;
    std::size_t entities_ = 0;
    bool entities_open_ = false;
    bool closed_ = true;
};

void JsonEmitter::write_head(const Document& doc) {
    const NodeId root = doc.root();
    out_ += "{\n  \"format\": \"spark_save\",\n  \"version\": ";
    out_ += std::to_string(doc.version());
    if (NodeId m = doc.child(root, k_metadata); m != k_no_node) {
        out_ += ",\n";
        metadata(doc, m, out_);
    }
    entities_open_ = doc.child(root, k_entities) != k_no_node;
    closed_ = false;
}

void JsonEmitter::write_item(const Document& doc, NodeId e) {
    out_ += entities_ == 0 ? ",\n  \"entities\": [\n" : ",\n";
    ++entities_;
    out_ += "    {\n      \"name\": ";
    append_json_bytes(out_, doc.name(e));
    out_ += ",\n      \"components\": ";
    if (doc.node(e).first_child == k_no_node) {
        out_ += "[]\n    }";
        return;
    }
    out_ += "[\n";
    bool first_c = true;
    for (NodeId c : doc.children(e)) {
        if (!first_c) out_ += ",\n";
        first_c = false;
        out_ += "        {\n          \"type\": ";
        append_json_bytes(out_, doc.name(c));
        out_ += ",\n          \"properties\": ";
        pairs(doc, c, out_, 5);
        out_ += "\n        }";
    }
    out_ += "\n      ]\n    }";
}

void JsonEmitter::close_entities() {
    if (entities_ > 0)
        out_ += "\n  ]";
    else if (entities_open_)
        out_ += ",\n  \"entities\": []";
    entities_open_ = false;
    entities_ = 0;
}

void JsonEmitter::write_tail(const Document& doc) {
    close_entities();
    const NodeId root = doc.root();
    if (NodeId cs = doc.child(root, k_custom_state); cs != k_no_node) {
        out_ += ",\n  \"customState\": ";
        pairs(doc, cs, out_, 1);
        if (!doc.value(cs).empty()) {
            out_ += ",\n  \"customStateCount\": ";
            out_ += doc.value(cs); // digits written by the reader
        }
        if (doc.node(cs).flags & k_flag_absent) out_ += ",\n  \"customStateAbsent\": true";
    }
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node) {
        out_ += ",\n  \"trailing\": ";
        append_json_bytes(out_, doc.value(t));
    }
    if (NodeId c = doc.child(root, k_checksum); c != k_no_node) {
        out_ += ",\n  \"checksum\": ";
        append_json_string(out_, doc.value(c));
    }
    if (doc.complete()) finish();
}

void JsonEmitter::finish() {
    if (closed_) return;
    close_entities();
    if (!complete_) out_ += k_json_incomplete;
    out_ += "\n}\n";
    closed_ = true;
}

} // namespace

std::unique_ptr<Parts> json_parts(std::string& out) {
    return std::make_unique<JsonEmitter>(out);
}

void to_json(const Document& doc, std::string& out) {
    JsonEmitter json(out);
    json.write_head(doc);
    if (NodeId e = doc.child(doc.root(), k_entities); e != k_no_node)
        for (NodeId entity : doc.children(e)) json.write_item(doc, entity);
    json.write_tail(doc);
    if (!doc.complete()) json.stopped();
}

} // namespace sparksave::spark_save
