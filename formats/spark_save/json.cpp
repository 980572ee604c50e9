// The lossless JSON form of a `.spark_save` tree: to_json (`dump --json`) and, below it,
// from_json (`pack`), both of this one schema:
//
// {
//   "schemaVersion": 1,          the dump's layout (version.hpp; pack: absent or at most it)
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
#include "json_emitter.hpp"
#include "metadata.hpp"
#include "spec.hpp"
#include "tree.hpp"

#include "api.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstring>
#include <functional>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

using namespace std::string_view_literals; // appends without strlen

namespace {

// `[["key", "value"], ...]`, a pair a line (the properties of a component, the custom state).
void pairs(const Document& doc, NodeId parent, JsonWriter& w) {
    w.begin_array(JsonWriter::Layout::block);
    for (NodeId p : doc.children(parent)) w.pair(doc.name(p), doc.value(p));
    w.end_array();
}

void metadata(const Document& doc, NodeId m, JsonWriter& w) {
    w.key("metadata").begin_object(JsonWriter::Layout::block);
    w.key("raw").bytes(doc.value(m));
    w.key("fields").begin_object(JsonWriter::Layout::block);
    for (NodeId f : doc.children(m)) {
        w.key(doc.name(f));
        if (doc.node(f).kind == NodeKind::object) {
            w.begin_array();
            for (NodeId part : doc.children(f)) w.bytes(doc.value(part));
            w.end_array();
        } else {
            w.bytes(doc.value(f));
        }
    }
    w.end_object();
    w.end_object();
}

} // namespace

void JsonEmitter::write_head(const Document& doc) {
    const NodeId root = doc.root();
    begin_dump(w_, "spark_save");
    open_ = true;
    w_.key("version").number(doc.version());
    if (NodeId m = doc.child(root, k_metadata); m != k_no_node) metadata(doc, m, w_);
    if (doc.child(root, k_entities) != k_no_node) {
        w_.key("entities").begin_array(JsonWriter::Layout::block);
        entities_open_ = true;
    }
}

void JsonEmitter::write_item(const Document& doc, NodeId e) {
    w_.begin_object(JsonWriter::Layout::block);
    w_.key("name").bytes(doc.name(e));
    w_.key("components").begin_array(JsonWriter::Layout::block);
    for (NodeId c : doc.children(e)) {
        w_.begin_object(JsonWriter::Layout::block);
        w_.key("type").bytes(doc.name(c));
        pairs(doc, c, w_.key("properties"));
        w_.end_object();
    }
    w_.end_array();
    w_.end_object();
}

void JsonEmitter::close_entities() {
    if (entities_open_) w_.end_array();
    entities_open_ = false;
}

void JsonEmitter::write_tail(const Document& doc) {
    close_entities();
    const NodeId root = doc.root();
    if (NodeId cs = doc.child(root, k_custom_state); cs != k_no_node) {
        pairs(doc, cs, w_.key("customState"));
        if (!doc.value(cs).empty())
            w_.key("customStateCount").raw(doc.value(cs)); // digits written by the reader
        if (doc.node(cs).flags & k_flag_absent) w_.key("customStateAbsent").boolean(true);
    }
    if (NodeId t = doc.child(root, k_trailing); t != k_no_node)
        w_.key("trailing").bytes(doc.value(t));
    if (NodeId c = doc.child(root, k_checksum); c != k_no_node)
        w_.key("checksum").string(doc.value(c));
    if (doc.complete()) finish();
}

void JsonEmitter::finish() {
    if (!open_) return;
    close_entities();
    if (!complete_) w_.key("complete").boolean(false);
    w_.end_object();
    out_ += '\n';
    open_ = false;
}

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

} // namespace spark_save
SPARKSAVE_END_NAMESPACE

// ---- pack: the same schema read back -----------------------------------------------------------
//
// The dump is validated whole first (json::Reader::validate: an error in an edited dump is
// reported with its line:column before anything is written), then read in one forward pass into
// the tree of spec.hpp part by part (format.hpp Parts): the head (version, metadata, the empty
// entity list), each entity, the tail (custom state, trailing bytes). The parts go to the one
// writer (write.cpp), which lays out the bytes and the v4 CRC. Checked here is what only the JSON
// can say where it is (JSON path and line:column): the shape, the types, and the lengths and
// counts the file's fields hold. The caller reads the result back for every rule of the version.

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

using json::Kind;
using json::Value;

// Where a value is in the JSON, as a chain of steps on the stack: the path text (node-path
// syntax) is built only when an error needs it, not for each of millions of values.
struct Where {
    const Where* parent = nullptr;
    std::string_view name; // a member name, or empty for an index step
    std::size_t index = 0;
    bool verbatim = false; // `name` is already a path (the root of a chain)
    std::string str() const {
        std::string p = parent ? parent->str() : std::string();
        if (verbatim)
            p += name;
        else if (name.empty())
            append_path_index(p, index);
        else
            append_path_name(p, name);
        return p;
    }
    Where member(std::string_view n) const { return Where{this, n, 0}; }
    Where at(std::size_t i) const { return Where{this, {}, i}; }
};

Where root_where(std::string_view path) {
    return Where{nullptr, path, 0, true};
}

// The kind of the (validated) value whose first character is `c`.
Kind kind_of(char c) noexcept {
    switch (c) {
    case '{':
        return Kind::object;
    case '[':
        return Kind::array;
    case '"':
        return Kind::string;
    case 't':
    case 'f':
        return Kind::boolean;
    case 'n':
        return Kind::null;
    default:
        return Kind::number;
    }
}

class DumpReader {
  public:
    // `source`: the JSON text as the Document's source, so strings without escapes are referenced
    // in place (nullptr: a text too large for that; every string is copied).
    DumpReader(const json::Reader& r, std::shared_ptr<const Source> source)
        : r_(r), doc_(FormatId::spark_save, 0, source), refs_(source != nullptr), b_(doc_) {}

    // Reads the dump into parts for `out`; the notes on what it had to decide.
    Result<std::vector<std::string>> run(const Value& root, Parts& out) {
        root_ = root;
        static constexpr std::string_view k_names[] = {
            "format",           "version",           "metadata", "entities", "customState",
            "customStateCount", "customStateAbsent", "trailing", "checksum"};
        enum Member : std::uint8_t {
            m_format,
            m_version,
            m_metadata,
            m_entities,
            m_custom_state,
            m_custom_state_count,
            m_custom_state_absent,
            m_trailing,
            m_checksum
        };
        std::array<Value, std::size(k_names)> values;
        std::array<bool, std::size(k_names)> present{};
        // Members may come in any order; each is taken once.
        if (auto r = r_.dump_members(root, "spark_save", k_names, values, present); !r)
            return r.error();
        for (Member required : {m_version, m_metadata, m_entities})
            if (!present[required])
                return r_.error_at(
                    root, "",
                    fmt::format("expected a member \"{}\", found none", k_names[required]));
        if (present[m_format] &&
            (values[m_format].kind != Kind::string || r_.decoded(values[m_format]) != "spark_save"))
            return r_.error_at(values[m_format], "format", "expected \"spark_save\"");
        auto v = unsigned_number(values[m_version], "version", 1, k_current_version);
        if (!v) return v.error();
        version_ = static_cast<std::uint32_t>(*v);
        doc_.set_version(version_);

        // The head: metadata and the (empty) entity list.
        const Str metadata_name = doc_.text(k_metadata), entities_name = doc_.text(k_entities);
        const Str custom_state_name = doc_.text(k_custom_state);
        const Str trailing_name = doc_.text(k_trailing);
        doc_.set_part(Document::Part::head);
        auto block = metadata(values[m_metadata]);
        if (!block) return block.error();
        const NodeId meta = doc_.append(doc_.root(), NodeKind::object, metadata_name);
        replace_metadata(doc_, meta, *block, version_);
        const Value& list = values[m_entities];
        const Where entities_where = root_where("entities");
        if (list.kind != Kind::array)
            return r_.error_at(
                list, entities_where.str(),
                fmt::format("expected an array of entities, found {}", json::kind_name(list.kind)));
        // The count comes first in the file, and blocks may be handed on before the end.
        std::size_t count = 0;
        if (auto known = r_.known_count(list)) {
            count = *known;
        } else {
            r_.elements(list, [&](std::size_t, const Value&) { return ++count <= k_max_entities; });
        }
        if (count > k_max_entities)
            return r_.error_at(
                list, entities_where.str(),
                fmt::format("expected at most {} entities, found more", k_max_entities));
        doc_.append(doc_.root(), NodeKind::list, entities_name);
        if (auto r = out.head(doc_, count); !r) return r.error();
        const std::size_t keep = doc_.arena_size();

        // Each entity, a part of its own under a copy of the list node.
        std::size_t at = r_.skip_space_at(list.begin + 1);
        for (std::size_t i = 0; r_.at(at) != ']'; ++i) {
            next_part(Document::Part::item, keep);
            b_.open(NodeKind::list, entities_name);
            NodeId e = k_no_node;
            auto end = entity(at, entities_where.at(i), e);
            if (!end) return end.error();
            if (auto r = out.item(doc_, e, i); !r) return r.error();
            at = r_.skip_space_at(*end);
            if (r_.at(at) == ',') at = r_.skip_space_at(at + 1);
        }

        // The tail: custom state and trailing bytes.
        next_part(Document::Part::tail, keep);
        if (auto r =
                custom_state(custom_state_name, present[m_custom_state], values[m_custom_state],
                             present[m_custom_state_count], values[m_custom_state_count],
                             present[m_custom_state_absent], values[m_custom_state_absent]);
            !r)
            return r.error();
        if (present[m_trailing]) {
            std::string bytes;
            if (auto r = read_bytes(values[m_trailing], root_where("trailing"), bytes); !r)
                return r.error();
            auto s = keep_text(values[m_trailing], root_where("trailing"), bytes);
            if (!s) return s.error();
            b_.add(NodeKind::bytes, trailing_name, *s);
        }
        if (present[m_checksum] && values[m_checksum].kind != Kind::string)
            return r_.error_at(values[m_checksum], "checksum",
                               "expected a string such as \"0x1a2b3c4d\""); // recomputed anyway
        if (auto r = out.tail(doc_); !r) return r.error();
        return std::move(notes_);
    }

  private:
    void next_part(Document::Part part, std::size_t keep) {
        doc_.clear_nodes(keep);
        doc_.set_part(part);
        b_.reset();
        part_bytes_ = 0;
    }

    Error error(std::size_t at, const Where& where, std::string message) const {
        return r_.error_at(Value{kind_of(r_.at(at)), at, at}, where.str(), std::move(message));
    }

    Result<std::uint64_t> unsigned_number(const Value& v, const std::string& path,
                                          std::uint64_t min, std::uint64_t max) {
        std::uint64_t n = 0;
        std::string_view t = r_.raw(v);
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (v.kind != Kind::number || ec != std::errc() || p != t.data() + t.size() || n < min ||
            n > max)
            return r_.error_at(
                v, path,
                fmt::format("expected an integer from {} to {}, found {}", min, max, display(t)));
        return n;
    }

    // A byte string (json::Reader::bytes): the path is built only for an error.
    Result<void> read_bytes(const Value& v, const Where& where, std::string& out) {
        if (v.kind == Kind::string) {
            out.clear();
            r_.decode(v, out);
            return {};
        }
        return r_.bytes(v, where.str(), out);
    }

    // `bytes` (read from `v`) in the document's arena. A save holds at most 512 MiB, which also
    // bounds what one part may take.
    Result<Str> keep_text(const Value& v, const Where& where, std::string_view bytes) {
        if (!count_bytes(bytes.size())) return too_many_bytes(v, where);
        return doc_.text(bytes);
    }
    // Counts what a part takes in the file (a string and its u16 length): a part of more than a
    // save can hold is refused, so a part's memory stays bounded.
    // False past the limit (too_many_bytes() says so); no Result on this path, which runs for
    // every string of a dump.
    bool count_bytes(std::size_t size) noexcept {
        part_bytes_ += size + 2;
        return part_bytes_ <= k_max_file_size;
    }
    Error too_many_bytes(const Value& v, const Where& where) const {
        return r_.error_at(v, where.str(),
                           fmt::format("expected at most {} bytes in a save (512 MiB), found more",
                                       k_max_file_size));
    }

    // A string of at most 65535 bytes (a u16 length in the file) at `p`; its end in the text.
    Result<std::size_t> string16(std::size_t p, const Where& where, Str& out) {
        std::size_t end;
        if (r_.at(p) == '"') {
            end = r_.string_end_at(p);
            const std::string_view inner = r_.text().substr(p + 1, end - p - 2);
            if (refs_ && std::memchr(inner.data(), '\\', inner.size()) == nullptr) {
                if (inner.size() > k_max_u16) return too_long(p, where, inner.size());
                if (!count_bytes(inner.size()))
                    return too_many_bytes(Value{Kind::string, p, end}, where);
                out = doc_.ref(inner);
                return end;
            }
            scratch_.clear();
            r_.decode(Value{Kind::string, p, end}, scratch_);
        } else {
            Kind kind;
            end = r_.end_of(p, kind);
            if (auto r = read_bytes(Value{kind, p, end}, where, scratch_); !r) return r.error();
        }
        if (scratch_.size() > k_max_u16) return too_long(p, where, scratch_.size());
        auto s = keep_text(Value{kind_of(r_.at(p)), p, end}, where, scratch_);
        if (!s) return s.error();
        out = *s;
        return end;
    }
    Error too_long(std::size_t p, const Where& where, std::size_t size) const {
        return error(p, where, fmt::format("expected at most {} bytes, found {}", k_max_u16, size));
    }

    // The key of the member at `p` (the position of its opening quote), decoded when it has
    // escapes; the position of the member's value.
    std::size_t key_at(std::size_t p, std::string_view& key) {
        const std::size_t end = r_.string_end_at(p);
        key = r_.text().substr(p + 1, end - p - 2);
        if (key.find('\\') != std::string_view::npos) {
            key_.clear();
            r_.decode(Value{Kind::string, p, end}, key_);
            key = key_;
        }
        return r_.skip_space_at(r_.skip_space_at(end) + 1); // past ':'
    }

    // The members of the object at `p` (validated text), in text order: fn(key, value position)
    // returns the value's end. The end of the object.
    template <class F> Result<std::size_t> each_member(std::size_t p, F&& fn) {
        std::size_t q = r_.skip_space_at(p + 1);
        if (r_.at(q) == '}') return q + 1;
        for (;;) {
            std::string_view key;
            const std::size_t v = key_at(q, key);
            auto end = fn(key, v);
            if (!end) return end;
            q = r_.skip_space_at(*end);
            if (r_.at(q) == '}') return q + 1;
            q = r_.skip_space_at(q + 1); // ','
        }
    }
    // The elements of the array at `p`: fn(index, position) returns the element's end. The end
    // of the array and the count.
    template <class F> Result<std::size_t> each_element(std::size_t p, std::size_t& count, F&& fn) {
        std::size_t q = r_.skip_space_at(p + 1);
        count = 0;
        if (r_.at(q) == ']') return q + 1;
        for (;;) {
            auto end = fn(count, q);
            if (!end) return end;
            ++count;
            q = r_.skip_space_at(*end);
            if (r_.at(q) == ']') return q + 1;
            q = r_.skip_space_at(q + 1); // ','
        }
    }
    // A missing member of the object at `p` outranks an error found inside another (as reading
    // member by member would have it): `required` in order, the first missing one.
    std::optional<Error> missing(std::size_t p, const Where& where,
                                 std::initializer_list<std::string_view> required) const {
        const Value object{Kind::object, p, p};
        Value ignored;
        for (std::string_view name : required)
            if (!r_.find(object, name, ignored))
                return error(p, where, fmt::format("expected a member \"{}\"", name));
        return std::nullopt;
    }

    // An object with a byte-string member `first` (the node's name) and an array member `second`
    // (its children, read by `list`), in any order, each once: a member given twice or any other
    // member refuses the dump (json::Reader::take_members' messages), so that nothing in it is
    // silently dropped. `what` for the message of a value that is no object.
    template <class F>
    Result<std::size_t> record(std::size_t p, const Where& where, std::string_view what,
                               std::string_view first, std::string_view second, F&& list) {
        if (r_.at(p) != '{') return error(p, where, std::string(what));
        const NodeId node = b_.open(NodeKind::object, Str{});
        bool has_first = false, has_second = false;
        auto end = each_member(p, [&](std::string_view key, std::size_t v) -> Result<std::size_t> {
            if (key == first && !has_first) {
                has_first = true;
                return string16(v, where.member(first), doc_.node(node).name);
            }
            if (key == second && !has_second) {
                has_second = true;
                return list(v, where.member(second));
            }
            const std::string path = where.member(key).str();
            const std::string shown =
                key.size() <= 48 ? display(key, true) : display(key.substr(0, 48), true) + "...";
            return error(
                v, root_where(path),
                key == first || key == second
                    ? "expected each member once, found " + shown + " again"
                    : fmt::format("unknown member {} (expected {}, {})", shown, first, second));
        });
        if (!end) {
            if (auto m = missing(p, where, {first, second})) return *m;
            return end;
        }
        if (!has_first || !has_second) return *missing(p, where, {first, second});
        b_.close_to(node);
        b_.close();
        return end;
    }

    // An array of elements read by `element`, at most 65535 (a u16 count in the file).
    template <class F>
    Result<std::size_t> list16(std::size_t p, const Where& where, std::string_view what,
                               std::string_view plural, F&& element) {
        if (r_.at(p) != '[')
            return error(p, where,
                         fmt::format("expected an array of {}, found {}", what,
                                     json::kind_name(kind_of(r_.at(p)))));
        std::size_t n = 0;
        auto end = each_element(
            p, n, [&](std::size_t i, std::size_t q) { return element(q, where.at(i)); });
        if (!end) return end;
        if (n > k_max_u16)
            return error(p, where,
                         fmt::format("expected at most {} {}, found {}", k_max_u16, plural, n));
        return end;
    }

    // A [key, value] pair, as a scalar under the open node.
    Result<std::size_t> pair(std::size_t p, const Where& where) {
        if (r_.at(p) != '[')
            return error(p, where,
                         "expected a [key, value] pair, found " +
                             std::string(json::kind_name(kind_of(r_.at(p)))));
        Str key, value;
        std::size_t n = 0;
        std::size_t q = r_.skip_space_at(p + 1);
        if (r_.at(q) != ']') {
            auto key_end = string16(q, where.at(0), key);
            if (!key_end) return key_end;
            n = 1;
            q = r_.skip_space_at(*key_end);
            if (r_.at(q) == ',') {
                auto value_end = string16(r_.skip_space_at(q + 1), where.at(1), value);
                if (!value_end) return value_end;
                n = 2;
                q = r_.skip_space_at(*value_end);
                if (r_.at(q) == ',') n = 3; // and maybe more
            }
        }
        if (n != 2)
            return error(p, where,
                         fmt::format("expected a [key, value] pair, found {} elements", n));
        b_.add(NodeKind::scalar, key, value, {}, ValueType::string);
        return q + 1;
    }
    Result<std::size_t> pairs(std::size_t p, const Where& where) {
        return list16(p, where, "[key, value] pairs", "properties",
                      [&](std::size_t q, const Where& w) { return pair(q, w); });
    }

    // One entity: {"name": ..., "components": [{"type": ..., "properties": [[k, v], ...]}]}.
    Result<std::size_t> entity(std::size_t p, const Where& where, NodeId& out) {
        out = static_cast<NodeId>(doc_.node_count());
        return record(
            p, where, "expected an entity object {name, components}", "name", "components",
            [&](std::size_t q, const Where& cw) {
                return list16(
                    q, cw, "components", "components", [&](std::size_t c, const Where& one) {
                        return record(c, one, "expected a component object {type, properties}",
                                      "type", "properties", [&](std::size_t pp, const Where& pw) {
                                          return pairs(pp, pw);
                                      });
                    });
            });
    }

    Result<std::string> metadata(const Value& v) {
        if (v.kind != Kind::object)
            return r_.error_at(v, "metadata", "expected an object with raw and fields");
        if (auto r = r_.only_members(v, "metadata", {"raw", "fields"}); !r) return r.error();
        Value raw, fields;
        const bool has_raw = r_.find(v, "raw", raw);
        const bool has_fields = r_.find(v, "fields", fields);
        if (!has_raw && !has_fields)
            return r_.error_at(v, "metadata", "expected \"raw\" or \"fields\", found neither");
        std::string block;
        if (has_raw) {
            if (auto r = read_bytes(raw, root_where("metadata.raw"), block); !r) return r.error();
        }
        if (has_fields) {
            if (fields.kind != Kind::object)
                return r_.error_at(fields, "metadata.fields", "expected an object of field texts");
            // The fields of this version (1.2, k_meta_fields), each once: another name would be
            // dropped in silence, a repeated one would hide its second value.
            constexpr std::size_t k_most = std::size(k_meta_fields);
            std::array<std::string_view, k_most> names;
            std::array<Value, k_most> values;
            std::array<bool, k_most> present{};
            std::size_t n = 0;
            for (const MetaFieldSpec& spec : k_meta_fields)
                if (in_version(spec, version_)) names[n++] = spec.name;
            if (auto r = r_.take_members(fields, "metadata.fields", std::span(names.data(), n),
                                         std::span(values.data(), n), std::span(present.data(), n));
                !r)
                return r.error();
            // Unedited fields are those of the raw block, however many it has (a v1/v2 block
            // may lack some: its own reader never checked): raw is written as it is. Edited
            // ones win, and the block is rebuilt from them, one field a line.
            if (!has_raw ||
                fields_differ(block, std::span(names.data(), n), std::span(values.data(), n),
                              std::span(present.data(), n))) {
                auto from_fields = render_fields(fields);
                if (!from_fields) return from_fields.error();
                if (has_raw)
                    notes_.emplace_back("metadata.fields differ from metadata.raw: the block was "
                                        "rebuilt from the fields");
                block = std::move(*from_fields);
            }
        }
        if (block.size() > k_max_file_size)
            return r_.error_at(v, "metadata", "the block is too large");
        return block;
    }

    // A field's text as the JSON gives it, with where it is there (for an error).
    struct FieldText {
        std::string text;
        Value value;
        std::string path;
    };

    // The JSON fields as token texts, for the fields of this version in block order (1.2,
    // k_meta_fields): a multi-part field (position) as its parts.
    Result<std::vector<FieldText>> field_texts(const Value& fields) {
        std::vector<FieldText> texts;
        for (const MetaFieldSpec& spec : k_meta_fields) {
            if (!in_version(spec, version_)) continue;
            const std::string_view name = spec.name;
            std::string path = "metadata.fields";
            append_path_name(path, name);
            Value f;
            if (!r_.find(fields, name, f))
                return r_.error_at(fields, path, "expected this field, found none");
            const Where where = root_where(path);
            if (spec.parts > 1) {
                if (f.kind != Kind::array)
                    return r_.error_at(f, path,
                                       fmt::format("expected an array of three number texts, "
                                                   "found {}",
                                                   json::kind_name(f.kind)));
                std::size_t n = 0;
                if (auto r =
                        r_.each(f,
                                [&](std::size_t i, const Value& part) -> Result<void> {
                                    std::string text;
                                    if (auto b = read_bytes(part, where.at(i), text); !b) return b;
                                    texts.push_back({std::move(text), part, where.at(i).str()});
                                    ++n;
                                    return {};
                                });
                    !r)
                    return std::move(r).error();
                if (n != spec.parts)
                    return r_.error_at(f, path,
                                       fmt::format("expected 3 numbers (x, y, z), found {}", n));
                continue;
            }
            std::string text;
            if (auto r = read_bytes(f, where, text); !r) return r.error();
            if (text.find('\n') != std::string::npos)
                return r_.error_at(
                    f, path, "expected one line, found a newline (a block field is one line)");
            texts.push_back({std::move(text), f, std::move(path)});
        }
        return texts;
    }

    // The block rebuilt from the fields, one field a line. The reader must take each field's text
    // back from it as it is (1.2: a string is its line; a number is the longest prefix `>>` takes,
    // or where `>>` fails the whitespace-delimited word), or the file would hold one text and its
    // dump show another: `>>` skips the blanks of ` 25` and reads `75/` as 75, leaving `/` to
    // the next field.
    Result<std::string> render_fields(const Value& fields) {
        auto texts = field_texts(fields);
        if (!texts) return texts.error();
        std::vector<std::string_view> views;
        views.reserve(texts->size());
        for (const FieldText& t : *texts) views.push_back(t.text);
        std::string block = layout_block(views, version_);
        MetadataBlock meta;
        auto ignore = [](std::size_t, std::string, std::string) {};
        parse_metadata_block(block, 0, version_, meta, ignore, ignore);
        for (std::size_t i = 0; i < texts->size(); ++i) {
            const FieldText& t = (*texts)[i];
            if (i < meta.count && meta.fields[i].text == t.text) continue;
            return r_.error_at(
                t.value, t.path,
                fmt::format("expected a text that the block rebuilt from the fields gives back as "
                            "it is, found {}: {}",
                            display(t.text, true),
                            i < meta.count
                                ? fmt::format("the reader takes {} there (`>>` skips whitespace "
                                              "and takes the longest number)",
                                              display(meta.fields[i].text, true))
                                : std::string("the block ends before this field")));
        }
        return block;
    }

    // Whether the JSON fields (`values[i]` for `names[i]` when `present[i]`) say something else
    // than the raw block does: another set of fields, or another text for one. Each field is
    // compared as the dump shows it (to_json): a string, or position's parts as an array.
    bool fields_differ(std::string_view block, std::span<const std::string_view> names,
                       std::span<const Value> values, std::span<const bool> present) {
        MetadataBlock meta;
        auto ignore = [](std::size_t, std::string, std::string) {};
        parse_metadata_block(block, 0, version_, meta, ignore, ignore);
        std::string text;
        for (std::size_t i = 0; i < names.size(); ++i) {
            std::vector<std::string_view> in_block;
            bool multi = false;
            for (std::size_t f = 0; f < meta.count; ++f) {
                const MetaFieldSpec& spec = k_meta_fields[meta.fields[f].spec];
                if (spec.name != names[i]) continue;
                multi = spec.parts > 1;
                in_block.push_back(meta.fields[f].text);
            }
            if (!present[i] || in_block.empty()) {
                if (present[i] != !in_block.empty()) return true;
                continue;
            }
            const Value& v = values[i];
            if (multi != (v.kind == Kind::array)) return true;
            if (!multi) {
                if (!read_bytes(v, root_where("metadata.fields"), text) || text != in_block[0])
                    return true;
                continue;
            }
            std::size_t k = 0;
            bool same = true;
            r_.elements(v, [&](std::size_t, const Value& part) {
                same = k < in_block.size() &&
                       read_bytes(part, root_where("metadata.fields"), text) && text == in_block[k];
                ++k;
                return same;
            });
            if (!same || k != in_block.size()) return true;
        }
        return false;
    }

    // The custom state (1.1, 1.4) as the tail's node: its pairs, the declared count when the
    // dump gives one, or absent (a v1/v2 file that ends after its entities).
    Result<void> custom_state(Str name, bool has_pairs, const Value& pairs_value, bool has_declared,
                              const Value& declared, bool has_absent, const Value& absent) {
        const bool is_absent = has_absent && r_.is_true(absent);
        if (has_absent && absent.kind != Kind::boolean)
            return r_.error_at(absent, "customStateAbsent", "expected true or false");
        if (is_absent) {
            if (current_rules(version_))
                return r_.error_at(
                    absent, "customStateAbsent",
                    fmt::format("v{} files always have a custom-state count", version_));
            if (has_pairs && (pairs_value.kind != Kind::array ||
                              r_.raw(pairs_value).find('[', 1) != std::string_view::npos))
                return r_.error_at(pairs_value, "customState",
                                   "expected no pairs ([]) with customStateAbsent: true");
            const NodeId id = b_.add(NodeKind::object, name);
            doc_.node(id).flags |= k_flag_absent;
            return {};
        }
        // 1.4: a v3/v4 file always has its custom-state count; a v1/v2 file has one or ends
        // after the entities (customStateAbsent). A dump always has the member, so a missing
        // one is refused, not read as no pairs.
        if (!has_pairs)
            return r_.error_at(
                root_, "",
                current_rules(version_)
                    ? fmt::format("expected a member \"customState\" (a v{} file always has its "
                                  "custom-state count), found none",
                                  version_)
                    : std::string("expected a member \"customState\" (the pairs, or "
                                  "\"customStateAbsent\": true for a file without a "
                                  "custom-state count), found none"));
        const NodeId id = b_.open(NodeKind::object, name);
        const Where where = root_where("customState");
        if (pairs_value.kind != Kind::array)
            return r_.error_at(pairs_value, where.str(),
                               fmt::format("expected an array of [key, value] pairs, found {}",
                                           json::kind_name(pairs_value.kind)));
        std::size_t n = 0;
        auto end = each_element(pairs_value.begin, n,
                                [&](std::size_t i, std::size_t q) { return pair(q, where.at(i)); });
        if (!end) return end.error();
        b_.close();
        std::uint64_t count = n;
        if (has_declared) {
            auto d = unsigned_number(declared, "customStateCount", 0, k_max_custom_state);
            if (!d) return d.error();
            count = *d;
            doc_.node(id).value = doc_.text(std::to_string(count));
        }
        if (count > k_max_custom_state)
            return r_.error_at(
                pairs_value, "customState",
                fmt::format("expected at most {} pairs, found {}", k_max_custom_state, count));
        return {};
    }

    const json::Reader& r_;
    Document doc_;
    bool refs_;
    TreeBuilder b_;
    Value root_;
    std::uint32_t version_ = 0;
    std::uint64_t part_bytes_ = 0;
    std::string scratch_;
    std::string key_;
    std::vector<std::string> notes_;
};

// The dump's text as a Document source, when a Document can address it.
std::shared_ptr<const Source> text_source(std::string_view text) {
    if (text.size() > Document::k_max_bytes) return nullptr;
    return std::make_shared<const Source>(text, nullptr);
}

} // namespace

Result<Packed> from_json_to(std::string_view text,
                            const std::function<Result<void>(std::string_view)>& emit) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    std::unique_ptr<Parts> writer = part_writer(emit);
    DumpReader dump(reader, text_source(text));
    auto notes = dump.run(*root, *writer);
    if (!notes) return notes.error();
    Packed out;
    out.notes = std::move(*notes);
    return out;
}

Result<Packed> from_json(std::string_view text) {
    std::string bytes;
    auto packed = from_json_to(text, [&](std::string_view b) -> Result<void> {
        bytes.append(b);
        return {};
    });
    if (!packed) return packed.error();
    packed->bytes = std::move(bytes);
    return packed;
}

// The format's JSON row (format.hpp FormatJson; formats/registry_json.cpp lists it).
const FormatJson k_json = {.id = FormatId::spark_save,
                           .to_json = to_json,
                           .from_json = from_json,
                           .json_parts = json_parts,
                           .dump = dump,
                           .from_json_to = from_json_to,
                           .regions = regions};

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
