// The lossless JSON form of a spark-kv tree: to_json (`dump --json`) and its inverse from_json
// (`pack`), which maps the JSON to the tree the reader builds (spec.hpp) and hands it to
// write.cpp, the one encoder of the layout.
//
// {
//   "schemaVersion": 1,                  the dump's layout (version.hpp); optional in pack's
//                                        input, refused above it
//   "format": "spark_kv",                optional in pack's input
//   "version": 2,                        1 legacy (no marker line), 2 `#!spark-kv-v2`
//   "records": [                         every line after the marker, in file order
//     {"key": "character_7", "value": "Alice|..."},
//     {"key": "note", "value": "a\\qb", "raw": "note\ta\\qb"},
//     {"line": "text without a TAB"}
//   ],
//   "finalNewline": false                only when the last line has no LF
//   "complete": false                    only when a limit stopped the read (pack refuses it)
// }
//
// - "key" and "value" are what the engine reads (v2 escapes decoded), repeated keys kept in order.
// - "raw" is the line's exact text (without its LF), given only when it is not what the writer
//   of the version makes of key and value: a bad escape kept verbatim, a literal TAB or CR in a
//   v2 value. In the tree it is the record's span (the text the writer keeps while it still
//   reads back as key and value), so an unedited dump packs to the identical file and an edited
//   key or value is written canonically (pack notes the raw text it could not keep).
// - {"line": ...} is a line without a TAB (the engine refuses the store for it), exact.
// - Every string is a JSON string when its bytes are valid UTF-8, else {"base64": "..."}
//   (json::Reader::bytes).
// - Views (decoded MMO fields) are not data and are not in the JSON.
// pack refuses JSON that is not a dump and what the version cannot hold (codec.hpp
// no_tab_misfit, legacy_misfit); every other rule is the reader's, which `sparksave pack` runs
// on the result.
#include "codec.hpp"
#include "spec.hpp"

#include "api.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

void to_json(const Document& doc, std::string& out) {
    const NodeId root = doc.root();
    JsonWriter w(out);
    begin_dump(w, "spark_kv");
    w.key("version").number(doc.version());
    w.key("records").begin_array(JsonWriter::Layout::block);
    std::string canonical;
    const std::string_view source = doc.source_bytes();
    const NodeId records = doc.child(root, k_records);
    for (NodeId c :
         records == k_no_node ? Document::Children{&doc, k_no_node} : doc.children(records)) {
        const Node& n = doc.node(c);
        w.begin_object();
        if (n.flags & k_flag_no_tab) {
            const NodeId text = doc.child(c, k_text);
            w.key("line").bytes(text == k_no_node ? std::string_view{} : doc.value(text));
            w.end_object();
            continue;
        }
        w.key("key").bytes(doc.name(c));
        w.key("value").bytes(doc.value(c));
        if (n.span.valid() && std::uint64_t{n.span.offset} + n.span.length <= source.size()) {
            const std::string_view raw = source.substr(n.span.offset, n.span.length);
            canonical.clear();
            append_line(canonical, doc.name(c), doc.value(c), doc.version());
            if (raw != canonical && line_says(raw, doc.name(c), doc.value(c), doc.version()))
                w.key("raw").bytes(raw);
        }
        w.end_object();
    }
    w.end_array();
    if (doc.node(root).flags & k_flag_no_final_newline) w.key("finalNewline").boolean(false);
    if (!doc.complete()) w.key("complete").boolean(false);
    w.end_object();
    out += '\n';
}

namespace {

using json::Kind;
using json::Value;

// The JSON of a dump to the tree of spec.hpp (records, lines without a TAB, the final-newline
// flag; "raw" texts as the records' spans into a source of their own); no layout here.
class TreeFromJson {
  public:
    explicit TreeFromJson(const json::Reader& r)
        : r_(r), doc_(FormatId::spark_kv, 0, std::make_shared<const Source>()), b_(doc_),
          text_name_(doc_.text(k_text)), no_tab_tag_(doc_.tag_id(k_no_tab_tag)) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_names[] = {"format", "version", "records",
                                                       "finalNewline"};
        Value values[4];
        bool present[4] = {};
        if (auto r = r_.dump_members(root, "spark_kv", k_names, values, present); !r)
            return r.error();
        for (std::size_t i : {1, 2})
            if (!present[i])
                return r_.error_at(root, "",
                                   fmt::format("expected a member \"{}\", found none", k_names[i]));
        if (present[0] && (values[0].kind != Kind::string || r_.decoded(values[0]) != "spark_kv"))
            return r_.error_at(values[0], "format", "expected \"spark_kv\"");

        const std::string_view v = r_.raw(values[1]);
        std::uint32_t version = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
        if (values[1].kind != Kind::number || ec != std::errc() || p != v.data() + v.size() ||
            (version != k_version_legacy && version != k_version_v2))
            return r_.error_at(values[1], "version",
                               fmt::format("expected {} (legacy) or {} (v2), found {}",
                                           k_version_legacy, k_version_v2, display(v)));
        version_ = version;
        doc_.set_version(version);

        bool final_newline = true;
        if (present[3]) {
            if (values[3].kind != Kind::boolean)
                return r_.error_at(values[3], "finalNewline", "expected true or false");
            final_newline = r_.is_true(values[3]);
        }
        if (values[2].kind != Kind::array)
            return r_.error_at(
                values[2], "records",
                "expected an array of {\"key\", \"value\"} records and {\"line\"} lines, found " +
                    std::string(json::kind_name(values[2].kind)));
        b_.open(NodeKind::object, doc_.text(k_records));
        std::size_t lines = 0;
        if (auto r = r_.each(values[2],
                             [&](std::size_t i, const Value& e) {
                                 std::string path(k_records);
                                 append_path_index(path, i);
                                 ++lines;
                                 return line(e, path);
                             });
            !r)
            return std::move(r).error();
        b_.close();
        if (!final_newline) {
            // A legacy store without records is an empty file (formats/README.md §3): it has
            // no last line to lack one.
            if (lines == 0 && version_ == k_version_legacy)
                return r_.error_at(values[3], "finalNewline",
                                   "expected true or no member: a legacy store without records "
                                   "is an empty file, with no last line");
            if (last_empty_)
                return r_.error_at(values[3], "finalNewline", std::string(k_empty_last_line));
            doc_.node(doc_.root()).flags |= k_flag_no_final_newline;
        }
        doc_.set_source(std::make_shared<const Source>(std::move(raws_)));
        auto bytes = write(doc_);
        if (!bytes) return bytes.error();
        Packed out;
        out.bytes = std::move(*bytes);
        out.notes = std::move(notes_);
        return out;
    }

  private:
    Result<void> line(const Value& e, const std::string& path) {
        if (e.kind != Kind::object)
            return r_.error_at(e, path,
                               "expected {\"key\", \"value\"} or {\"line\"}, found " +
                                   std::string(json::kind_name(e.kind)));
        if (++lines_ > k_max_lines)
            return r_.error_at(e, path,
                               fmt::format("expected at most {} lines (sparksave's limit for "
                                           "spark-kv stores), found more",
                                           k_max_lines));
        // One pass over the members (a store can have millions of records).
        static constexpr std::string_view k_members[] = {"key", "value", "raw", "line"};
        Value m[4];
        bool has[4] = {};
        if (auto r = r_.take_members(e, path, k_members, m, has,
                                     "key, value and maybe raw (a record), or line (a line "
                                     "without a TAB)");
            !r)
            return r;
        const bool first = !any_line_ && version_ != k_version_v2;
        any_line_ = true;
        last_empty_ = false;
        if (has[3]) {
            if (has[0] || has[1] || has[2])
                return r_.error_at(
                    e, path, "expected either {\"line\"} or {\"key\", \"value\"}, found both");
            if (auto r = text(m[3], path, "line", a_); !r) return r;
            if (std::string misfit = no_tab_misfit(a_, first); !misfit.empty())
                return r_.error_at(m[3], path + ".line", std::move(misfit));
            const NodeId id = b_.open(NodeKind::object, {});
            doc_.node(id).flags |= k_flag_no_tab;
            doc_.node(id).tag = no_tab_tag_;
            b_.add(NodeKind::scalar, text_name_, doc_.text(a_), {}, ValueType::string);
            b_.close();
            last_empty_ = a_.empty();
            return {};
        }
        if (!has[0] || !has[1])
            return r_.error_at(
                e, path,
                fmt::format("expected a member \"{}\", found none", has[0] ? "value" : "key"));
        if (auto r = text(m[0], path, "key", a_); !r) return r;
        if (auto r = text(m[1], path, "value", b_text_); !r) return r;
        Span span;
        if (has[2]) {
            if (auto r = text(m[2], path, "raw", c_); !r) return r;
            if (line_says(c_, a_, b_text_, version_)) {
                span = Span{static_cast<std::uint32_t>(raws_.size()),
                            static_cast<std::uint32_t>(c_.size())};
                raws_ += c_;
            } else {
                notes_.push_back(fmt::format("{}: raw does not read back as key and value, so the "
                                             "line was written from them",
                                             path));
            }
        }
        if (!span.valid() && version_ != k_version_v2) {
            if (const std::string_view misfit = legacy_misfit(a_, b_text_); !misfit.empty())
                return r_.error_at(e, path,
                                   fmt::format("expected a key and value a legacy store can "
                                               "hold (it has no escaping), found {}",
                                               misfit));
        }
        b_.add(NodeKind::scalar, doc_.text(a_), doc_.text(b_text_), span, ValueType::string);
        return {};
    }

    // A byte string, and room for it: the store holds every text given at least once.
    Result<void> text(const Value& v, const std::string& path, std::string_view member,
                      std::string& out) {
        if (auto r = r_.bytes(v, path, member, out); !r) return r;
        text_bytes_ += out.size();
        if (text_bytes_ > k_max_file_size)
            return r_.error_at(v, path + "." + std::string(member),
                               fmt::format("expected a store of at most {} bytes (64 MiB, "
                                           "sparksave's limit for spark-kv stores), found more",
                                           k_max_file_size));
        return {};
    }

    const json::Reader& r_;
    Document doc_;
    TreeBuilder b_;
    const Str text_name_;
    const std::uint16_t no_tab_tag_;
    std::uint32_t version_ = 0;
    std::string raws_;           // the "raw" texts kept: the source the records' spans refer to
    std::string a_, b_text_, c_; // scratch: decoded strings of the current element
    std::vector<std::string> notes_;
    std::uint64_t lines_ = 0, text_bytes_ = 0;
    bool any_line_ = false;
    bool last_empty_ = false;
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
    .id = FormatId::spark_kv, .to_json = to_json, .from_json = from_json, .regions = regions};

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
