// The lossless JSON form of a tess world archive: to_json (`dump --json`) and its inverse
// from_json (`pack`), which maps the JSON to the tree the reader builds (spec.hpp) and hands it
// to write.cpp, the one encoder of the layout (the body size, the counts and the CRC-32 are the
// writer's).
//
// {
//   "schemaVersion": 1,                     the dump's layout (version.hpp; optional in pack's
//                                           input, refused above it); not the header's
//   "format": "tess_world", "version": 2,   "format" optional in pack's input
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
// are hex strings so that JSON tools that read numbers as doubles cannot round them; pack takes
// any integer as a JSON number, a decimal string or a "0x" hex string. pack checks the shape,
// the types and the column lengths (to name the place); the caller reads the result back with
// the reader, which applies every check of formats/README.md §4.3.
#include "rules.hpp"
#include "spec.hpp"

#include "api.hpp"
#include "sparksave/column.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

// A number from the tree as a JSON number when it is plain decimal, else as a string (a hex
// id, or a name such as "dense").
void number(const Document& doc, NodeId n, JsonWriter& w) {
    const std::string_view t = n == k_no_node ? std::string_view{} : doc.value(n);
    const bool decimal = !t.empty() && t.size() <= 20 &&
                         t.find_first_not_of("0123456789") == std::string_view::npos &&
                         (t.size() == 1 || t[0] != '0');
    if (decimal)
        w.raw(t);
    else
        w.bytes(t);
}

void member(const Document& doc, NodeId parent, std::string_view name, JsonWriter& w) {
    number(doc, parent == k_no_node ? k_no_node : doc.child(parent, name), w.key(name));
}

void triple(const Document& doc, NodeId group, const std::array<std::string_view, 3>& parts,
            JsonWriter& w) {
    w.begin_array();
    for (std::string_view part : parts)
        number(doc, group == k_no_node ? k_no_node : doc.child(group, part), w);
    w.end_array();
}

void header(const Document& doc, NodeId h, JsonWriter& w) {
    w.key("header").begin_object(JsonWriter::Layout::block);
    triple(doc, doc.child(h, k_world_size), k_axes, w.key("worldSize"));
    triple(doc, doc.child(h, k_chunk_size), k_axes, w.key("chunkSize"));
    for (std::string_view name :
         {k_lattice, k_lattice_version, k_key_layout_version, k_schema_id, k_schema_version})
        member(doc, h, name, w);
    triple(doc, doc.child(h, k_library_version), k_library_parts, w.key("libraryVersion"));
    member(doc, h, k_residency, w);
    w.end_object();
}

void fields(const Document& doc, NodeId list, JsonWriter& w) {
    w.key("fields").begin_array(JsonWriter::Layout::block);
    for (NodeId d : doc.children(list)) {
        w.begin_object();
        for (std::string_view name : {k_id, k_version, k_kind, k_width}) member(doc, d, name, w);
        w.end_object();
    }
    w.end_array();
}

void chunks(const Document& doc, NodeId list, JsonWriter& w) {
    w.key("chunks").begin_array(JsonWriter::Layout::block);
    for (NodeId c : doc.children(list)) {
        w.begin_object();
        member(doc, c, k_key, w);
        if (doc.child(c, k_state) != k_no_node) member(doc, c, k_state, w);
        member(doc, c, k_active_mask, w);
        member(doc, c, k_entity_count, w);
        w.key("fields").begin_array(JsonWriter::Layout::block);
        if (NodeId columns = doc.child(c, k_fields); columns != k_no_node) {
            for (NodeId column : doc.children(columns))
                append_column_json(w.raw_value(), column_type(doc, column), doc.value(column));
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
    begin_dump(w, "tess_world");
    w.key("version").number(doc.version());
    const NodeId h = doc.child(root, k_header);
    if (h != k_no_node) header(doc, h, w);
    if (NodeId f = doc.child(root, k_fields); f != k_no_node) fields(doc, f, w);
    if (NodeId c = doc.child(root, k_chunks); c != k_no_node) chunks(doc, c, w);
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node) {
        std::string& hex = w.key("trailing").raw_value();
        hex += '"';
        for (unsigned char b : doc.value(t)) {
            hex += k_hex[b >> 4];
            hex += k_hex[b & 15];
        }
        hex += '"';
    }
    if (h != k_no_node) {
        if (NodeId c = doc.child(h, k_checksum); c != k_no_node)
            w.key("checksum").bytes(doc.value(c));
    }
    if (!doc.complete()) w.key("complete").boolean(false);
    w.end_object();
    out += '\n';
}

namespace {

using json::Kind;
using json::Value;

// The JSON of a dump to the tree of spec.hpp, numbers written as the reader writes them;
// no layout here.
class TreeFromJson {
  public:
    explicit TreeFromJson(const json::Reader& r)
        : r_(r), doc_(FormatId::tess_world, 0, std::make_shared<const Source>()), b_(doc_) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_members[] = {"format", "version",  "header",  "fields",
                                                         "chunks", "trailing", "checksum"};
        Value members[std::size(k_members)];
        bool present[std::size(k_members)] = {};
        if (auto r = r_.dump_members(root, "tess_world", k_members, members, present); !r)
            return r.error();
        for (std::size_t i : {1, 2, 3, 4})
            if (!present[i])
                return r_.error_at(
                    root, "", fmt::format("expected a member \"{}\", found none", k_members[i]));
        if (present[0] &&
            (members[0].kind != Kind::string || r_.decoded(members[0]) != "tess_world"))
            return r_.error_at(members[0], "format", "expected \"tess_world\"");
        auto version = integer(members[1], "version", 0xFFFF'FFFFu);
        if (!version) return version.error();
        if (*version != k_current_version && *version != k_retired_version)
            return r_.error_at(members[1], "version",
                               fmt::format("expected 1 or 2, found {}", *version));
        version_ = static_cast<std::uint32_t>(*version);
        doc_.set_version(version_);
        names_ = Names{doc_.text(k_key),          doc_.text(k_state),  doc_.text(k_active_mask),
                       doc_.text(k_entity_count), doc_.text(k_fields), doc_.text(k_id),
                       doc_.text(k_version),      doc_.text(k_kind),   doc_.text(k_width)};

        if (auto r = header(members[2]); !r) return r.error();
        if (auto r = fields(members[3]); !r) return r.error();
        if (auto r = chunks(members[4]); !r) return r.error();
        if (present[5]) {
            std::string bytes;
            if (members[5].kind != Kind::string || !hex_decode(r_.decoded(members[5]), bytes))
                return r_.error_at(members[5], "trailing", "expected a string of hex digits");
            if (auto r = room(members[5], "trailing", bytes.size()); !r) return r.error();
            b_.add(NodeKind::bytes, doc_.text(k_trailing), doc_.text(bytes));
        }
        if (present[6] && members[6].kind != Kind::string)
            return r_.error_at(members[6], "checksum", "expected a string such as \"0x1a2b3c4d\"");
        auto bytes = write(doc_);
        if (!bytes) return bytes.error();
        Packed out;
        out.bytes = std::move(*bytes);
        return out;
    }

  private:
    // An unsigned integer: a JSON number, or a string of decimal digits or of hex after 0x.
    Result<std::uint64_t> integer(const Value& v, const std::string& path, std::uint64_t max) {
        std::string text = v.kind == Kind::string ? r_.decoded(v) : std::string(r_.raw(v));
        std::string_view t = text;
        int base = 10;
        if (v.kind == Kind::string && t.starts_with("0x")) {
            t.remove_prefix(2);
            base = 16;
        }
        std::uint64_t n = 0;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n, base);
        if ((v.kind != Kind::number && v.kind != Kind::string) || t.empty() || ec != std::errc() ||
            p != t.data() + t.size() || n > max)
            return r_.error_at(
                v, path,
                fmt::format("expected an integer from 0 to {}, found {}", max, display(r_.raw(v))));
        return n;
    }

    // A coded value: one of `names` (their codes in `codes`) or an integer.
    Result<std::uint64_t> coded(const Value& v, const std::string& path, std::uint64_t max,
                                std::initializer_list<std::uint32_t> codes,
                                std::string_view (*name_of)(std::uint32_t)) {
        if (v.kind == Kind::string) {
            const std::string text = r_.decoded(v);
            for (std::uint32_t code : codes)
                if (text == name_of(code)) return code;
        }
        return integer(v, path, max);
    }

    // A number node as the reader makes it: `format` of the value.
    void number(Str name, std::uint64_t v, bool hex = false, int digits = 8) {
        b_.add(NodeKind::scalar, name,
               doc_.text(hex ? fmt::format("{:#0{}x}", v, digits + 2) : fmt::format("{}", v)), {},
               ValueType::unsigned_integer);
    }
    // A coded node: its name when it has one, else the number.
    void named(Str name, std::string_view text, std::uint64_t v, bool hex) {
        b_.add(NodeKind::scalar, name,
               doc_.text(!text.empty() ? std::string(text)
                         : hex         ? fmt::format("{:#010x}", v)
                                       : fmt::format("{}", v)),
               {}, ValueType::string);
    }

    // The member `name` of `object` (at `path`) as an integer up to `max`.
    Result<std::uint64_t> member(const Value& object, std::string_view name,
                                 const std::string& path, std::uint64_t max) {
        Value v;
        if (!r_.find(object, name, v))
            return r_.error_at(object, path, fmt::format("expected a member \"{}\"", name));
        return integer(v, path + "." + std::string(name), max);
    }

    // An array of three integers, each at most `max`, as an object of `parts`.
    Result<void> three(const Value& object, std::string_view name, std::uint64_t max,
                       const std::array<std::string_view, 3>& parts,
                       std::array<std::uint64_t, 3>& out) {
        const std::string path = "header." + std::string(name);
        Value v;
        if (!r_.find(object, name, v))
            return r_.error_at(object, "header", fmt::format("expected a member \"{}\"", name));
        if (v.kind != Kind::array)
            return r_.error_at(v, path, "expected an array of three integers");
        std::size_t n = 0;
        std::optional<Error> problem;
        r_.elements(v, [&](std::size_t i, const Value& e) {
            if (++n > 3) return false;
            auto x = integer(e, fmt::format("{}[{}]", path, i), max);
            if (!x) {
                problem = x.error();
                return false;
            }
            out[i] = *x;
            return true;
        });
        if (problem) return *problem;
        if (n != 3)
            return r_.error_at(v, path, fmt::format("expected three integers, found {}", n));
        b_.open(NodeKind::object, doc_.text(name));
        for (std::size_t i = 0; i < 3; ++i) number(doc_.text(parts[i]), out[i]);
        b_.close();
        return {};
    }

    Result<void> header(const Value& h) {
        if (h.kind != Kind::object) return r_.error_at(h, "header", "expected an object");
        if (auto r = r_.only_members(h, "header",
                                     {k_world_size, k_chunk_size, k_lattice, k_lattice_version,
                                      k_key_layout_version, k_schema_id, k_schema_version,
                                      k_library_version, k_residency});
            !r)
            return r;
        b_.open(NodeKind::object, doc_.text(k_header));
        std::array<std::uint64_t, 3> world{}, library{};
        if (auto r = three(h, k_world_size, ~std::uint64_t{0}, k_axes, world); !r) return r;
        if (auto r = three(h, k_chunk_size, ~std::uint64_t{0}, k_axes, chunk_); !r) return r;
        Value v;
        if (!r_.find(h, k_lattice, v))
            return r_.error_at(h, "header", "expected a member \"lattice\"");
        auto lattice =
            coded(v, "header.lattice", 0xFFFF'FFFFu, {k_lattice_orthogonal, k_lattice_hex_axial},
                  [](std::uint32_t c) { return lattice_name(c); });
        if (!lattice) return lattice.error();
        named(doc_.text(k_lattice), lattice_name(static_cast<std::uint32_t>(*lattice)), *lattice,
              true);
        for (std::string_view name : {k_lattice_version, k_key_layout_version}) {
            auto n = member(h, name, "header", 0xFFFF'FFFFu);
            if (!n) return n.error();
            number(doc_.text(name), *n);
        }
        auto schema = member(h, k_schema_id, "header", ~std::uint64_t{0});
        if (!schema) return schema.error();
        number(doc_.text(k_schema_id), *schema, true, 16);
        auto schema_version = member(h, k_schema_version, "header", 0xFFFF'FFFFu);
        if (!schema_version) return schema_version.error();
        number(doc_.text(k_schema_version), *schema_version);
        if (auto r = three(h, k_library_version, 0xFFFF'FFFFu, k_library_parts, library); !r)
            return r;
        if (!r_.find(h, k_residency, v))
            return r_.error_at(h, "header", "expected a member \"residency\"");
        auto residency = coded(v, "header.residency", 0xFF, {k_residency_dense, k_residency_sparse},
                               [](std::uint32_t c) { return residency_name(c); });
        if (!residency) return residency.error();
        named(doc_.text(k_residency), residency_name(static_cast<std::uint32_t>(*residency)),
              *residency, false);
        b_.close();
        Header shape;
        shape.chunk = chunk_;
        tiles_ = tiles_of(shape);
        return room(h, "header", k_header_size);
    }

    Result<void> fields(const Value& list) {
        if (list.kind != Kind::array)
            return r_.error_at(list, "fields", "expected an array of field descriptors");
        b_.open(NodeKind::list, doc_.text(k_fields));
        if (auto r = r_.each(list,
                             [&](std::size_t i, const Value& d) {
                                 return descriptor(d, fmt::format("fields[{}]", i));
                             });
            !r)
            return r;
        b_.close();
        return {};
    }

    Result<void> descriptor(const Value& d, const std::string& path) {
        if (d.kind != Kind::object)
            return r_.error_at(d, path, "expected a descriptor {id, version, kind, width}");
        static constexpr std::string_view k_names[] = {k_id, k_version, k_kind, k_width};
        Value m[4];
        bool has[4] = {};
        if (auto r = r_.take_members(d, path, k_names, m, has); !r) return r;
        for (std::size_t i = 0; i < 4; ++i)
            if (!has[i])
                return r_.error_at(d, path, fmt::format("expected a member \"{}\"", k_names[i]));
        if (types_.size() >= k_max_fields)
            return r_.error_at(d, path, fmt::format("expected at most {} fields", k_max_fields));
        auto id = integer(m[0], path + ".id", ~std::uint64_t{0});
        if (!id) return id.error();
        auto version = integer(m[1], path + ".version", 0xFFFF'FFFFu);
        if (!version) return version.error();
        auto kind = coded(m[2], path + ".kind", 0xFF,
                          {k_kind_unsigned, k_kind_signed, k_kind_float, k_kind_bool},
                          [](std::uint32_t c) { return kind_name(c); });
        if (!kind) return kind.error();
        auto width = integer(m[3], path + ".width", 0xFFFF'FFFFu);
        if (!width) return width.error();
        b_.open(NodeKind::object, {});
        number(names_.id, *id, true, 16);
        number(names_.version, *version);
        named(names_.kind, kind_name(static_cast<std::uint32_t>(*kind)), *kind, false);
        number(names_.width, *width);
        b_.close();
        types_.push_back(descriptor_type(static_cast<std::uint32_t>(*kind), *width));
        return room(d, path, k_descriptor_size);
    }

    Result<void> chunks(const Value& list) {
        if (list.kind != Kind::array)
            return r_.error_at(list, "chunks", "expected an array of chunk records");
        b_.open(NodeKind::list, doc_.text(k_chunks));
        if (auto r = r_.each(
                list, [&](std::size_t i, const Value& c) { return chunk(c, chunk_path(i)); });
            !r)
            return r;
        b_.close();
        return {};
    }

    Result<void> chunk(const Value& c, const std::string& path) {
        if (c.kind != Kind::object)
            return r_.error_at(c, path,
                               "expected a chunk record {key, activeMask, entityCount, fields}");
        static constexpr std::string_view k_names[] = {k_key, k_state, k_active_mask,
                                                       k_entity_count, k_fields};
        Value m[5];
        bool has[5] = {};
        if (auto r = r_.take_members(c, path, k_names, m, has); !r) return r;
        if (!has[0]) return r_.error_at(c, path, "expected a member \"key\"");
        auto key = integer(m[0], path + ".key", ~std::uint64_t{0});
        if (!key) return key.error();
        std::optional<std::uint64_t> state;
        if (version_ == k_retired_version) {
            if (!has[1])
                return r_.error_at(c, path,
                                   "expected a member \"state\" (v1 records have a chunk state)");
            auto s = integer(m[1], path + ".state", 0xFF);
            if (!s) return s.error();
            state = *s;
        } else if (has[1]) {
            return r_.error_at(m[1], path + ".state",
                               "expected no chunk state: version 2 records have none");
        }
        std::uint64_t mask_count[2] = {};
        for (std::size_t i : {2, 3}) {
            if (!has[i])
                return r_.error_at(c, path, fmt::format("expected a member \"{}\"", k_names[i]));
            auto n = integer(m[i], path + "." + std::string(k_names[i]), 0xFFFF'FFFFu);
            if (!n) return n.error();
            mask_count[i - 2] = *n;
        }
        if (!has[4] || m[4].kind != Kind::array)
            return r_.error_at(c, path + ".fields", "expected an array of columns, one per field");
        if (auto r = room(c, path, 8 + (state ? 1 : 0) + 8); !r) return r;
        const Str name = doc_.text(fmt::format("{}", *key));
        b_.open(NodeKind::object, name);
        b_.add(NodeKind::scalar, names_.key, name, {}, ValueType::unsigned_integer);
        if (state) number(names_.state, *state);
        number(names_.active_mask, mask_count[0], true);
        number(names_.entity_count, mask_count[1]);
        b_.open(NodeKind::list, names_.fields);
        std::size_t n = 0;
        if (auto r = r_.each(m[4],
                             [&](std::size_t f, const Value& column) -> Result<void> {
                                 ++n;
                                 const std::string cpath = fmt::format("{}.fields[{}]", path, f);
                                 if (f >= types_.size())
                                     return r_.error_at(column, cpath,
                                                        fmt::format("expected {} columns (one per "
                                                                    "field), found more",
                                                                    types_.size()));
                                 return values(column, cpath, types_[f]);
                             });
            !r)
            return r;
        if (n != types_.size())
            return r_.error_at(
                m[4], path + ".fields",
                fmt::format("expected {} columns (one per field), found {}", types_.size(), n));
        b_.close();
        b_.close();
        return {};
    }

    Result<void> values(const Value& column, const std::string& path, ColumnType type) {
        if (!type.valid())
            return r_.error_at(
                column, path,
                "the field's descriptor has no valid kind and width for these values");
        if (column.kind != Kind::array)
            return r_.error_at(column, path, "expected an array of values, one per tile");
        std::optional<Error> problem;
        std::uint64_t n = 0;
        std::string expected;
        scratch_.clear();
        r_.elements(column, [&](std::size_t t, const Value& e) {
            ++n;
            if (!parse_column_element(type, r_.raw(e), scratch_, expected)) {
                problem = r_.error_at(e, fmt::format("{}[{}]", path, t),
                                      fmt::format("expected {} ({}), found {}", expected,
                                                  column_type_name(type), display(r_.raw(e))));
                return false;
            }
            return true;
        });
        if (problem) return *problem;
        if (!tiles_ || n != *tiles_)
            return r_.error_at(
                column, path,
                fmt::format("expected a value for each tile ({}: {} x {} x {}), found {}",
                            tile_count(tiles_), chunk_[0], chunk_[1], chunk_[2], n));
        if (auto r = room(column, path, scratch_.size()); !r) return r;
        const NodeId id = b_.add(NodeKind::column, {}, doc_.text(scratch_), {}, type.kind);
        doc_.node(id).tag = doc_.tag_id(column_type_name(type));
        return {};
    }

    // The archive takes at least `bytes` more (spec.hpp: the header, a descriptor, a record's
    // prefix, a column): bounded as the reader bounds a file, so no JSON builds a larger tree.
    Result<void> room(const Value& v, const std::string& path, std::uint64_t bytes) {
        file_bytes_ += bytes;
        if (file_bytes_ > k_max_file_size)
            return r_.error_at(v, path,
                               fmt::format("expected an archive of at most {} bytes (256 MiB, "
                                           "sparksave's limit for tess world archives), found "
                                           "more",
                                           k_max_file_size));
        return {};
    }

    // Node names repeated in every descriptor and chunk, interned once.
    struct Names {
        Str key, state, active_mask, entity_count, fields, id, version, kind, width;
    };

    const json::Reader& r_;
    Document doc_;
    TreeBuilder b_;
    Names names_;
    std::uint32_t version_ = 0;
    std::array<std::uint64_t, 3> chunk_{};
    std::optional<std::uint64_t> tiles_;
    std::vector<ColumnType> types_;
    std::string scratch_;
    std::uint64_t file_bytes_ = 0;
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
    .id = FormatId::tess_world, .to_json = to_json, .from_json = from_json, .regions = regions};

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
