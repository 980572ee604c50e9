// The lossless JSON form of a GMSV save: to_json (`dump --json`) and its inverse from_json
// (`pack`), which maps the JSON to the tree the reader builds (spec.hpp) and hands it to
// write.cpp, the one encoder of the layout (counts, lengths and the CRC-32 are the writer's).
//
// {
//   "schemaVersion": 1,                  the dump's layout (version.hpp); optional in pack's
//                                        input, refused above it
//   "format": "gmsv", "version": 3,      "format" optional in pack's input
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
// numbers as doubles would round it; pack takes a number too); "kind" and "time" are
// informational (pack derives them from "binary"). Component data is "json": the data itself,
// byte for byte (it is one JSON object, see gmsv/tree.hpp); "jsonText": the same data as a JSON
// string, when it holds characters no output of sparksave passes on raw (C1 controls, direction
// overrides, U+2028/U+2029, a CR: escape.hpp has_terminal_controls), so that they are escaped
// and the bytes still come back exactly; or "hex". "name" is informational; "type" is the id
// written. pack checks the shape and the types; the caller reads the result back with the
// reader, which applies every rule.
#include "dotnet.hpp"
#include "rules.hpp"
#include "tree.hpp"

#include "api.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

// A quoted string of lowercase hex digits, two a byte.
void hex(std::string_view bytes, JsonWriter& w) {
    std::string& out = w.raw_value();
    out += '"';
    for (unsigned char b : bytes) {
        out += k_hex[b >> 4];
        out += k_hex[b & 15];
    }
    out += '"';
}

void timestamp(const Document& doc, NodeId t, JsonWriter& w) {
    w.key("timestamp").begin_object();
    for (std::string_view name : {k_binary, k_kind, k_time}) {
        const NodeId n = doc.child(t, name);
        if (n != k_no_node) w.key(name).bytes(doc.value(n));
    }
    w.end_object();
}

void entities(const Document& doc, NodeId list, JsonWriter& w) {
    w.key("entities").begin_array(JsonWriter::Layout::block);
    for (NodeId e : doc.children(list)) {
        w.begin_object();
        w.key("id").bytes(doc.name(e));
        w.key("components").begin_array(JsonWriter::Layout::block);
        for (NodeId c : doc.children(e)) {
            w.begin_object();
            if (const auto type = component_type(doc.name(c)))
                w.key("type").number(*type);
            else
                w.key("type").null();
            w.key("name").bytes(doc.name(c));
            const std::string_view data = doc.value(c);
            if (doc.node(c).kind == NodeKind::object && is_json_payload(data)) {
                if (has_terminal_controls(data)) {
                    // Raw C1 controls, direction overrides, U+2028 or a CR would reach the
                    // reader of the dump: the data goes as a string, every such character
                    // escaped (and decoded back to the same bytes by pack).
                    w.key("jsonText").string(data);
                } else {
                    // One JSON object, valid UTF-8, nothing to escape: as it is.
                    w.key("json").raw(data);
                }
            } else {
                hex(data, w.key("hex"));
            }
            w.end_object();
        }
        w.end_array();
        w.end_object();
    }
    w.end_array();
}

} // namespace

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    JsonWriter w(out);
    begin_dump(w, "gmsv");
    w.key("version").number(doc.version());
    if (NodeId t = doc.child(root, k_timestamp); t != k_no_node) timestamp(doc, t, w);
    if (NodeId e = doc.child(root, k_entities); e != k_no_node) entities(doc, e, w);
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node)
        hex(doc.value(t), w.key("trailing"));
    if (NodeId c = doc.child(root, k_checksum); c != k_no_node)
        w.key("checksum").bytes(doc.value(c));
    if (!doc.complete()) w.key("complete").boolean(false);
    w.end_object();
    out += '\n';
}

namespace {

using json::Kind;
using json::Value;

// The JSON of a dump to the tree of spec.hpp; no layout here.
class TreeFromJson {
  public:
    explicit TreeFromJson(const json::Reader& r)
        : r_(r), doc_(FormatId::gmsv, 0, std::make_shared<const Source>()), b_(doc_) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_members[] = {"format",   "version",  "timestamp",
                                                         "entities", "trailing", "checksum"};
        Value members[std::size(k_members)];
        bool present[std::size(k_members)] = {};
        if (auto r = r_.dump_members(root, "gmsv", k_members, members, present); !r)
            return r.error();
        for (std::size_t i : {1, 2, 3})
            if (!present[i])
                return r_.error_at(
                    root, "", fmt::format("expected a member \"{}\", found none", k_members[i]));
        if (present[0] && (members[0].kind != Kind::string || r_.decoded(members[0]) != "gmsv"))
            return r_.error_at(members[0], "format", "expected \"gmsv\"");
        auto version = unsigned_integer(members[1], "version", 0xFFFF);
        if (!version) return version.error();
        doc_.set_version(static_cast<std::uint32_t>(*version));
        if (auto r = timestamp(members[2]); !r) return r.error();
        if (auto r = entities(members[3]); !r) return r.error();
        if (present[4]) {
            data_.clear();
            if (members[4].kind != Kind::string || !hex_decode(r_.decoded(members[4]), data_))
                return r_.error_at(members[4], "trailing", "expected a string of hex digits");
            if (auto r = room(members[4], "trailing", data_.size()); !r) return r.error();
            b_.add(NodeKind::bytes, doc_.text(k_trailing), doc_.text(data_));
        }
        if (present[5] && members[5].kind != Kind::string)
            return r_.error_at(members[5], "checksum", "expected a string such as \"0x1a2b3c4d\"");
        auto bytes = write(doc_);
        if (!bytes) return bytes.error();
        Packed out;
        out.bytes = std::move(*bytes);
        return out;
    }

  private:
    Result<std::uint64_t> unsigned_integer(const Value& v, const std::string& path,
                                           std::uint64_t max) {
        const std::string_view t = r_.raw(v);
        std::uint64_t n = 0;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (v.kind != Kind::number || ec != std::errc() || p != t.data() + t.size() || n > max)
            return r_.error_at(
                v, path,
                fmt::format("expected an integer from 0 to {}, found {}", max, display(t)));
        return n;
    }

    // The timestamp node, as the reader makes it from the stored value.
    Result<void> timestamp(const Value& t) {
        if (t.kind != Kind::object)
            return r_.error_at(t, "timestamp", "expected an object {binary, ...}");
        if (auto r = r_.only_members(t, "timestamp", {k_binary, k_kind, k_time}); !r) return r;
        Value binary;
        if (!r_.find(t, k_binary, binary))
            return r_.error_at(t, "timestamp",
                               "expected a member \"binary\" (the stored DateTime.ToBinary())");
        const std::string text =
            binary.kind == Kind::string ? r_.decoded(binary) : std::string(r_.raw(binary));
        std::int64_t stamp = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), stamp);
        if ((binary.kind != Kind::string && binary.kind != Kind::number) || text.empty() ||
            ec != std::errc() || p != text.data() + text.size())
            return r_.error_at(binary, "timestamp.binary",
                               "expected a 64-bit integer, found " + display(r_.raw(binary)));
        b_.open(NodeKind::object, doc_.text(k_timestamp));
        b_.add(NodeKind::scalar, doc_.text(k_binary), doc_.text(fmt::format("{}", stamp)), {},
               ValueType::integer);
        const DotNetTime time = from_binary(stamp);
        b_.add(NodeKind::scalar, doc_.text(k_kind), doc_.text(kind_name(time.kind)), {},
               ValueType::string);
        if (time.valid)
            b_.add(NodeKind::scalar, doc_.text(k_time), doc_.text(iso8601(time)), {},
                   ValueType::string);
        b_.close();
        return {};
    }

    Result<void> entities(const Value& list) {
        if (list.kind != Kind::array)
            return r_.error_at(list, "entities", "expected an array of entities");
        b_.open(NodeKind::list, doc_.text(k_entities));
        if (auto r = r_.each(
                list, [&](std::size_t i, const Value& e) { return entity(e, entity_path(i)); });
            !r)
            return r;
        b_.close();
        return {};
    }

    Result<void> entity(const Value& e, const std::string& path) {
        if (e.kind != Kind::object)
            return r_.error_at(e, path, "expected an entity {id, components}");
        static constexpr std::string_view k_names[] = {"id", "components"};
        Value m[2];
        bool has[2] = {};
        if (auto r = r_.take_members(e, path, k_names, m, has); !r) return r;
        const Value &id = m[0], &components = m[1];
        if (!has[0] || id.kind != Kind::string)
            return r_.error_at(has[0] ? id : e, path + ".id",
                               "expected a member \"id\": the entity's GUID as a string");
        auto guid = guid_bytes(r_.decoded(id));
        if (!guid)
            return r_.error_at(id, path + ".id",
                               "expected a GUID of the form 00112233-4455-6677-8899-aabbccddeeff");
        if (!has[1] || components.kind != Kind::array)
            return r_.error_at(has[1] ? components : e, path + ".components",
                               "expected a member \"components\": an array");
        if (auto r = room(e, path, k_min_entity_size); !r) return r;
        b_.open(NodeKind::object, doc_.text(guid_text(*guid)));
        if (auto r = r_.each(components,
                             [&](std::size_t i, const Value& c) -> Result<void> {
                                 if (i == 0xFFFF)
                                     return r_.error_at(components, path + ".components",
                                                        "expected at most 65535 components, "
                                                        "found more");
                                 return component(c, fmt::format("{}.components[{}]", path, i));
                             });
            !r)
            return r;
        b_.close();
        return {};
    }

    Result<void> component(const Value& c, const std::string& path) {
        if (c.kind != Kind::object)
            return r_.error_at(c, path, "expected a component {type, json | jsonText | hex}");
        static constexpr std::string_view k_names[] = {"type", "name", "json", "jsonText", "hex"};
        Value m[5];
        bool has[5] = {};
        if (auto r = r_.take_members(c, path, k_names, m, has); !r) return r;
        if (!has[0]) return r_.error_at(c, path, "expected a member \"type\" (the type id)");
        auto id = unsigned_integer(m[0], path + ".type", 0xFFFF);
        if (!id) return id.error();
        if (int{has[2]} + int{has[3]} + int{has[4]} != 1)
            return r_.error_at(c, path,
                               "expected exactly one of \"json\" (JSON data), \"jsonText\" (JSON "
                               "data as a string) and \"hex\" (binary data)");
        data_.clear();
        if (has[2]) {
            data_ = r_.raw(m[2]); // the data is the JSON text itself
        } else if (has[3]) {
            if (m[3].kind != Kind::string)
                return r_.error_at(m[3], path + ".jsonText",
                                   "expected a string (the component's JSON data), found " +
                                       std::string(json::kind_name(m[3].kind)));
            r_.decode(m[3], data_);
        } else if (m[4].kind != Kind::string || !hex_decode(r_.decoded(m[4]), data_)) {
            return r_.error_at(m[4], path + ".hex", "expected a string of hex digits");
        }
        if (auto r = room(c, path, k_min_component_size + data_.size()); !r) return r;
        const auto type = static_cast<std::uint16_t>(*id);
        if (type >= names_.size()) names_.resize(std::size_t{type} + 1);
        if (names_[type].len == 0) names_[type] = doc_.text(component_name(type));
        const NodeId node = b_.add(NodeKind::bytes, names_[type], doc_.text(data_));
        set_payload(doc_, node);
        return {};
    }

    // The file takes at least `bytes` more (spec.hpp: the smallest entity and component record,
    // and their data): bounded as the reader bounds a file, so no JSON builds a larger tree.
    Result<void> room(const Value& v, const std::string& path, std::uint64_t bytes) {
        data_bytes_ += bytes;
        if (data_bytes_ > k_max_file_size)
            return r_.error_at(v, path,
                               fmt::format("expected a save of at most {} bytes (128 MiB, "
                                           "sparksave's limit for GMSV saves), found more",
                                           k_max_file_size));
        return {};
    }

    const json::Reader& r_;
    Document doc_;
    TreeBuilder b_;
    std::string data_; // scratch: the data of the current component
    std::uint64_t data_bytes_ = 0;
    std::vector<Str> names_; // component names by type id, interned once
};

} // namespace

Result<Packed> from_json(std::string_view text) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    return TreeFromJson(reader).run(*root);
}

// The format's JSON row (format.hpp FormatJson; formats/registry_json.cpp lists it).
const FormatJson k_json = {
    .id = FormatId::gmsv, .to_json = to_json, .from_json = from_json, .regions = regions};

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
