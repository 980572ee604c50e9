// The lossless JSON form of a text archive tree: to_json (`dump --json`) and its inverse
// from_json (`pack`), which maps the JSON to the same tree the reader builds (spec.hpp) and hands
// it to write.cpp, the one encoder of the layout.
//
// {
//   "schemaVersion": 1,              the dump's layout (version.hpp); optional in pack's input,
//                                    refused above it
//   "format": "text_archive",        optional in pack's input
//   "version": 1,                   1 when the version line is 1.0.0, else null
//   "versionLine": "1.0.0",         the first line, exact (pack: optional with "version": 1)
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
// - Every string is a JSON string when its bytes are valid UTF-8, else {"base64": "..."}
//   (json::Reader::bytes).
// With the version line, this is everything the writer needs: `pack` rebuilds the identical
// bytes, and `pack(dump --json X) == X` byte for byte for every X that reads without error and
// is laid out as the engine's writer lays it out; an X the reader notes is laid out otherwise
// (bad_syntax, bad_indent, truncated: commas, blanks, indentation, no final LF, a skipped line)
// comes back with the same entries in the writer's layout (tests/fuzz/fuzz_pack.cpp checks both).
//
// What from_json refuses, and what is left to the reader. The caller (`sparksave pack`) reads
// the bytes back with summarize() and refuses every error, so the rules of the format (a bool
// that is not true/false, nbElements against the pairs, a count or type the engine's readers
// refuse, ...) live in the reader only. from_json refuses JSON that is not a dump, and what the
// grammar cannot hold: text that the reader would read back as something else (spec.hpp
// name_problem, type_problem, class_problem), a line feed in any text (a multi-line string value
// is exactly what the engine's writer corrupts, formats/README.md §2), a top-level entry without a
// name (the engine stops reading there), and what is over sparksave's limits (spec.hpp: nesting,
// nodes, distinct names, the file size). Given these, what is written reads back as exactly the
// items the JSON gives, or the reader reports an error: never as something else in silence
// (tests/unit/test_text_archive_pack.cpp checks this on hostile text).
// Both walks keep the nesting bounded: to_json keeps its own stack; from_json recurses along the
// classes and stops at k_max_depth.
#include "rules.hpp"
#include "spec.hpp"

#include "api.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <unordered_map>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

namespace {

// Writes `node`: a whole attribute, or a class up to its "children" array opened (true: the
// caller writes the children, then closes the array and the class).
bool open_item(const Document& doc, NodeId node, JsonWriter& w) {
    const Node& n = doc.node(node);
    w.begin_object();
    const std::string_view name = doc.name(node);
    if (!name.empty() || (n.flags & k_flag_empty_name)) w.key("name").bytes(name);
    if (n.kind == NodeKind::object || n.kind == NodeKind::list) {
        w.key("class").bytes(doc.tag(node));
        w.key("children").begin_array(JsonWriter::Layout::block);
        if (n.first_child != k_no_node) return true;
        w.end_array();
    } else {
        w.key("type").bytes(doc.tag(node));
        w.key("value").bytes(doc.value(node));
    }
    w.end_object();
    return false;
}

} // namespace

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    JsonWriter w(out);
    begin_dump(w, "text_archive");
    if (doc.version() == k_current_version)
        w.key("version").number(1);
    else
        w.key("version").null();
    w.key("versionLine").bytes(doc.value(root));
    w.key("entries").begin_array(JsonWriter::Layout::block);
    // The next child to write of each class open (the first: the entries).
    std::vector<NodeId> stack{doc.node(root).first_child};
    while (!stack.empty()) {
        const NodeId node = stack.back();
        if (node == k_no_node) {
            stack.pop_back();
            w.end_array();
            if (!stack.empty()) w.end_object(); // the class whose children these were
            continue;
        }
        stack.back() = doc.node(node).next_sibling;
        if (open_item(doc, node, w)) stack.push_back(doc.node(node).first_child);
    }
    if (!doc.complete()) w.key("complete").boolean(false);
    w.end_object();
    out += '\n';
}

namespace {

using json::Kind;
using json::Value;

// A member of a JSON object (json::Reader::take_members).
struct Member {
    Value value;
    bool present = false;
};

// The JSON of a dump to the tree of spec.hpp, as the reader builds it (names, values, tags,
// k_flag_empty_name, Vector classes as lists); no layout here.
class TreeFromJson {
  public:
    explicit TreeFromJson(const json::Reader& r)
        : r_(r), doc_(FormatId::text_archive, 0, std::make_shared<const Source>()), b_(doc_) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_names[] = {"format", "version", "versionLine",
                                                       "entries"};
        std::array<Value, 4> m;
        std::array<bool, 4> has{};
        if (auto r = r_.dump_members(root, "text_archive", k_names, m, has); !r) return r.error();
        const Member format{m[0], has[0]}, version{m[1], has[1]}, version_line{m[2], has[2]},
            entries{m[3], has[3]};
        if (format.present &&
            (format.value.kind != Kind::string || r_.decoded(format.value) != "text_archive"))
            return fail(format.value, "format",
                        "expected \"text_archive\", found " + shown(format.value));
        if (!version.present)
            return fail(root, "",
                        "expected a member \"version\" (1, or null for a version "
                        "line other than 1.0.0), found none");
        if (!entries.present)
            return fail(root, "", "expected a member \"entries\" (an array), found none");

        // formats/README.md §2: the version line is the whole first line; `version` says whether it
        // is the one the engine reads.
        const bool known = version.value.kind == Kind::number && r_.raw(version.value) == "1";
        if (!known && version.value.kind != Kind::null)
            return fail(version.value, "version",
                        "expected 1 (the version line is 1.0.0) or null (another version line, "
                        "given in versionLine), found " +
                            shown(version.value));
        std::string line;
        if (version_line.present) {
            if (auto r = text(version_line.value, "versionLine", line); !r) return r.error();
        }
        if (known && version_line.present && line != k_version_line)
            return fail(version_line.value, "versionLine",
                        fmt::format("expected \"{}\" (\"version\": 1), found {}: for another "
                                    "version line, set \"version\" to null",
                                    k_version_line, excerpt(line)));
        if (!known && !version_line.present)
            return fail(root, "",
                        "expected a member \"versionLine\" with \"version\": null, found none");
        if (!known && line == k_version_line)
            return fail(
                version.value, "version",
                fmt::format("expected 1 (the version line is \"{}\"), found null", k_version_line));
        doc_.node(doc_.root()).value = doc_.text(known ? k_version_line : std::string_view(line));
        doc_.set_version(known ? k_current_version : 0);
        text_bytes_ = known ? k_version_line.size() : line.size();

        if (entries.value.kind != Kind::array)
            return fail(entries.value, "entries",
                        "expected an array of entries, found " +
                            std::string(json::kind_name(entries.value.kind)));
        path_ = "entries";
        if (auto r = items(entries.value, 0); !r) return r.error();
        auto bytes = write(doc_);
        if (!bytes) return bytes.error();
        path_.clear();
        if (bytes->size() > k_max_file_size) return too_large(root);
        Packed packed;
        packed.bytes = std::move(*bytes);
        return packed;
    }

  private:
    // The items of an array at `depth` (0: the top-level entries), path_ being its path.
    Result<void> items(const Value& array, std::size_t depth) {
        const std::size_t mark = path_.size();
        return r_.each(array, [&](std::size_t i, const Value& v) -> Result<void> {
            append_path_index(path_, i);
            if (auto r = item(v, depth); !r) return r;
            path_.resize(mark);
            return {};
        });
    }

    // One item: an attribute node, or a class node with its children.
    Result<void> item(const Value& v, std::size_t depth) {
        if (v.kind != Kind::object)
            return fail(v, "",
                        "expected an attribute {\"name\", \"type\", \"value\"} or a class "
                        "{\"name\", \"class\", \"children\"}, found " +
                            std::string(json::kind_name(v.kind)));
        static constexpr std::string_view k_names[] = {"name", "type", "value", "class",
                                                       "children"};
        std::array<Value, 5> m;
        std::array<bool, 5> has{};
        if (auto r = r_.take_members(v, path_, k_names, m, has,
                                     "name, then type and value, or class and children");
            !r)
            return r;
        const Member name{m[0], has[0]}, type{m[1], has[1]}, value{m[2], has[2]}, cls{m[3], has[3]},
            children{m[4], has[4]};
        const bool attribute = type.present || value.present;
        if (attribute && (cls.present || children.present))
            return fail(v, "",
                        "expected an attribute (type and value) or a class (class and "
                        "children), found members of both");
        if (!attribute && !cls.present && !children.present)
            return fail(v, "",
                        "expected \"type\" and \"value\" (an attribute) or \"class\" and "
                        "\"children\" (a class), found neither");
        const std::array<std::string_view, 2> needed =
            attribute ? std::array<std::string_view, 2>{"type", "value"}
                      : std::array<std::string_view, 2>{"class", "children"};
        const std::array<bool, 2> given = attribute ? std::array{type.present, value.present}
                                                    : std::array{cls.present, children.present};
        for (std::size_t i = 0; i < 2; ++i)
            if (!given[i])
                return fail(v, "", fmt::format("expected a member \"{}\", found none", needed[i]));
        if (depth == 0 && !name.present)
            return fail(v, "",
                        "expected a member \"name\": every top-level entry has one (the "
                        "engine stops reading the archive at an unnamed entry)");
        if (!attribute && depth >= k_max_depth)
            return fail(v, "",
                        fmt::format("expected at most {} nested classes (sparksave's "
                                    "limit for text archives), found more",
                                    k_max_depth));
        if (++nodes_ > k_max_nodes)
            return fail(v, "",
                        fmt::format("expected at most {} attributes and classes (sparksave's "
                                    "limit for text archives), found more",
                                    k_max_nodes));

        Str node_name;
        if (name.present) {
            if (auto r = text(name.value, "name", scratch_); !r) return r;
            if (auto r = holdable(name.value, "name", "name", name_problem(scratch_, attribute));
                !r)
                return r;
            node_name = doc_.text(scratch_);
        }
        NodeId id;
        if (attribute) {
            if (auto r = text(type.value, "type", scratch_); !r) return r;
            if (auto r = holdable(type.value, "type", "type name", type_problem(scratch_)); !r)
                return r;
            auto tag_id = tag(type.value, scratch_);
            if (!tag_id) return tag_id.error();
            const ValueType value_type = value_type_of(type_of(scratch_));
            // The value is verbatim, with no escaping (formats/README.md §2).
            if (auto r = text(value.value, "value", scratch_); !r) return r;
            id = b_.add(NodeKind::scalar, node_name, doc_.text(scratch_), {}, value_type);
            doc_.node(id).tag = *tag_id;
        } else {
            if (auto r = text(cls.value, "class", scratch_); !r) return r;
            if (auto r = holdable(cls.value, "class", "class name",
                                  class_problem(scratch_, name.present));
                !r)
                return r;
            auto tag_id = tag(cls.value, scratch_);
            if (!tag_id) return tag_id.error();
            const bool list = scratch_ == k_class_vector;
            if (children.value.kind != Kind::array)
                return fail(children.value, "children",
                            "expected an array of items, found " +
                                std::string(json::kind_name(children.value.kind)));
            id = b_.open(list ? NodeKind::list : NodeKind::object, node_name);
            doc_.node(id).tag = *tag_id;
            const std::size_t mark = path_.size();
            append_path_name(path_, "children");
            if (auto r = items(children.value, depth + 1); !r) return r;
            path_.resize(mark);
            b_.close();
        }
        if (name.present && node_name.len == 0) doc_.node(id).flags |= k_flag_empty_name;
        return {};
    }

    // The tag of a type or class name; their number is bounded as the reader bounds it.
    Result<std::uint16_t> tag(const Value& v, const std::string& tag_name) {
        auto it = tags_.find(tag_name);
        if (it != tags_.end()) return it->second;
        tag_bytes_ += tag_name.size();
        if (tags_.size() >= k_max_names || tag_bytes_ > k_max_name_bytes)
            return fail(v, "",
                        fmt::format("expected at most {} distinct class and type names of {} "
                                    "bytes in all (sparksave's limit for text archives), found "
                                    "more",
                                    k_max_names, k_max_name_bytes));
        const std::uint16_t id = doc_.tag_id(tag_name);
        tags_.emplace(tag_name, id);
        return id;
    }

    // Refuses text of `member` that spec.hpp says no line can hold (`problem` not empty).
    Result<void> holdable(const Value& v, std::string_view member, std::string_view what,
                          std::string_view problem) const {
        if (problem.empty()) return {};
        return fail(v, member,
                    fmt::format("expected a {} the archive can hold, found {}: {}", what,
                                excerpt(scratch_), problem));
    }

    // A member of one line's text: a byte string without a line feed, and room for it.
    Result<void> text(const Value& v, std::string_view member, std::string& out) {
        // Decoding never grows the text, and no byte takes more than 6 characters of JSON
        // (\u00XX): refuse what cannot fit before allocating for it.
        if (v.end - v.begin > 6 * k_max_file_size + 16) return too_large(v, member);
        if (auto r = r_.bytes(v, path_, member, out); !r) return r;
        if (out.find('\n') != std::string::npos)
            return fail(v, member,
                        fmt::format("expected one line, found a line feed in {}: every line of "
                                    "an archive ends at a line feed and there is no escaping{}",
                                    excerpt(out),
                                    member == "value" ? " (the engine's writer corrupts a "
                                                        "multi-line value this way)"
                                                      : ""));
        // The archive holds at least every text given (write() checks its exact size).
        if (out.size() > k_max_file_size - std::min(text_bytes_, k_max_file_size))
            return too_large(v, member);
        text_bytes_ += out.size();
        return {};
    }

    // formats/README.md has no size limit; ours (k_max_file_size) keeps the output bounded.
    Error too_large(const Value& v, std::string_view member = {}) const {
        return fail(v, member,
                    fmt::format("expected an archive of at most {} bytes (64 MiB, sparksave's "
                                "limit for text archives), found more",
                                k_max_file_size));
    }

    // A JSON value for a message: its JSON text (escaped, cut short), or its kind.
    std::string shown(const Value& v) const {
        if (v.kind == Kind::object || v.kind == Kind::array)
            return std::string(json::kind_name(v.kind));
        const std::string_view raw = r_.raw(v);
        return raw.size() <= 48 ? display(raw) : display(raw.substr(0, 48)) + "...";
    }

    // An error at `v`, whose JSON path is path_ and then `member` (when not empty).
    Error fail(const Value& v, std::string_view member, std::string message) const {
        std::string path = path_;
        if (!member.empty()) append_path_name(path, member);
        return r_.error_at(v, std::move(path), std::move(message));
    }
    Error fail(const Value& v, std::string message) const {
        return fail(v, {}, std::move(message));
    }

    const json::Reader& r_;
    Document doc_;
    TreeBuilder b_;
    std::string path_; // the JSON path of the item being read
    std::string scratch_;
    std::uint64_t text_bytes_ = 0; // the bytes of every text so far: the archive has more
    std::uint64_t nodes_ = 0;
    std::unordered_map<std::string, std::uint16_t> tags_;
    std::uint64_t tag_bytes_ = 0;
};

} // namespace

Result<Packed> from_json(std::string_view json) {
    json::Reader reader(json);
    auto root = reader.validate();
    if (!root) return root.error();
    return TreeFromJson(reader).run(*root);
}

// The format's JSON row (format.hpp FormatJson; formats/registry_json.cpp lists it).
const FormatJson k_json = {
    .id = FormatId::text_archive, .to_json = to_json, .from_json = from_json, .regions = regions};

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
