// Reading a spark-kv store into the Document tree (layout of the tree: spec.hpp), and detecting
// one by its content.
#include "reader.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"

#include <algorithm>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

namespace {

Span span(std::size_t offset, std::size_t length) {
    return Span{static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(length)};
}

// Builds the tree of spec.hpp from the reader's events. Keys and values reference the file
// buffer unless an escape was decoded (then they are copied to the document's arena, which
// grows as one string); view nodes reference their record's value.
class TreeSink {
  public:
    explicit TreeSink(Document& doc)
        : doc_(doc), b_(doc), records_name_(doc.text(k_records)), text_name_(doc.text(k_text)),
          no_tab_tag_(doc.tag_id(k_no_tab_tag)) {
        for (std::size_t i = 0; i < k_character_fields.size(); ++i)
            character_names_[i] = doc.text(k_character_fields[i]);
        for (std::size_t i = 0; i < k_inventory_fields.size(); ++i)
            inventory_names_[i] = doc.text(k_inventory_fields[i]);
        for (std::size_t i = 0; i < k_slot_fields.size(); ++i)
            slot_names_[i] = doc.text(k_slot_fields[i]);
    }

    void on_start(std::uint32_t version, std::size_t offset) {
        doc_.set_version(version);
        b_.open(NodeKind::object, records_name_, span(offset, 0));
    }

    void on_record(const RecordEvent& e) {
        const Str key = e.key_in_file ? doc_.ref(e.key) : doc_.text(e.key);
        const Str value = e.value_in_file ? doc_.ref(e.value) : doc_.text(e.value);
        const NodeId id = b_.open(NodeKind::scalar, key, span(e.offset, e.raw.size()), value);
        doc_.node(id).type = ValueType::string;
        if (e.mmo == Mmo::character) character_views(e, value);
        if (e.mmo == Mmo::inventory) inventory_views(e, value);
        b_.close();
    }

    void on_no_tab(const LineEvent& e) {
        const NodeId id = b_.open(NodeKind::object, {}, span(e.offset, e.text.size()));
        Node& n = doc_.node(id);
        n.flags |= k_flag_no_tab;
        n.tag = no_tab_tag_;
        b_.add(NodeKind::scalar, text_name_, doc_.ref(e.text), span(e.offset, e.text.size()),
               ValueType::string);
        b_.close();
    }

    void on_end(bool final_newline) {
        Node& records = doc_.node(b_.current());
        records.span.length =
            static_cast<std::uint32_t>(doc_.source_bytes().size() - records.span.offset);
        b_.close();
        if (!final_newline) doc_.node(doc_.root()).flags |= k_flag_no_final_newline;
    }

  private:
    // A view of part of the record's value: its Str (by place, valid for the source and the
    // arena alike) and, when the value holds no escape, its span in the file.
    struct Part {
        Str str;
        Span where;
    };
    Part part(const RecordEvent& e, Str value, std::string_view whole, std::string_view p) const {
        const auto at = static_cast<std::uint32_t>(p.data() - whole.data());
        Part out;
        out.str = p.empty() ? Str{} : Str{value.off + at, static_cast<std::uint32_t>(p.size())};
        if (e.value_in_file) out.where = span(e.value_offset + at, p.size());
        return out;
    }

    NodeId view(NodeKind kind, Str name, const Part& p, ValueType type) {
        const NodeId id = kind == NodeKind::scalar ? b_.add(kind, name, p.str, p.where, type)
                                                   : b_.open(kind, name, p.where);
        doc_.node(id).flags |= k_flag_view;
        ++views_;
        return id;
    }

    // character_<id>: one scalar per field, 15 fields or the 14 of the legacy form (spec.hpp).
    void character_views(const RecordEvent& e, Str value) {
        const std::size_t n = field_count(e.value, k_field_separator);
        if (n != k_character_field_count && n != k_legacy_character_field_count) return;
        if (views_ + n > k_max_view_nodes) return;
        const std::string_view whole = doc_.str(value);
        std::size_t i = 0;
        for_each_field(whole, k_field_separator, [&](std::string_view f) {
            // The legacy form has no accountId (field 1).
            const std::size_t name = n == k_character_field_count || i == 0 ? i : i + 1;
            view(NodeKind::scalar, character_names_[name], part(e, value, whole, f),
                 name == 0 ? ValueType::string : view_type(f));
            ++i;
        });
    }

    // inventory_<id> with its 5 fields: four scalars and the slots list (spec.hpp).
    void inventory_views(const RecordEvent& e, Str value) {
        if (field_count(e.value, k_field_separator) != k_inventory_fields.size()) return;
        const std::string_view whole = doc_.str(value);
        std::string_view fields[5];
        std::size_t i = 0;
        for_each_field(whole, k_field_separator, [&](std::string_view f) { fields[i++] = f; });
        // Every view of the record, or none: 4 fields, the list, and per entry the item and
        // its three parts.
        const std::uint64_t needed = 5 + 4 * std::uint64_t{slot_count(fields[4])};
        if (views_ + needed > k_max_view_nodes) return;
        for (i = 0; i < 4; ++i)
            view(NodeKind::scalar, inventory_names_[i], part(e, value, whole, fields[i]),
                 view_type(fields[i]));
        view(NodeKind::list, inventory_names_[4], part(e, value, whole, fields[4]),
             ValueType::none);
        for_each_slot(fields[4], [&](std::string_view entry) {
            const Part item = part(e, value, whole, entry);
            if (!is_slot_entry(entry)) {
                view(NodeKind::scalar, {}, item, ValueType::string);
                return;
            }
            view(NodeKind::object, {}, item, ValueType::none);
            std::size_t k = 0;
            for_each_field(entry, k_slot_part_separator, [&](std::string_view p) {
                view(NodeKind::scalar, slot_names_[k++], part(e, value, whole, p),
                     ValueType::integer);
            });
            b_.close();
        });
        b_.close();
    }

    Document& doc_;
    TreeBuilder b_;
    Str records_name_, text_name_;
    std::uint16_t no_tab_tag_;
    std::array<Str, 15> character_names_{};
    std::array<Str, 5> inventory_names_{};
    std::array<Str, 3> slot_names_{};
    std::uint64_t views_ = 0;
};

// formats/README.md §3 gives a legacy store no signature, so it is recognised conservatively, by
// what the engine's writer makes. In the head (the first k_detect_bytes):
//   - no NUL byte (every binary save has some in its header);
//   - every line with a TAB is a record as a legacy writer writes it: exactly one TAB (the writer
//     cut values at a TAB, so two TABs is a table, not a store) after a key that is one token,
//     without spaces or control characters (keys come from `SET <key> <value>` commands);
//   - the first non-empty line is such a record (a text archive's first line, `1.0.0`, has no
//     TAB), and such records outnumber the non-empty lines without a TAB: those are what verify
//     must be able to report (the engine refuses a store for them, its pre-marker reader skipped
//     them), but prose with a few tabbed lines is not a store.
// A line the head cut short counts only up to the cut. The format table tries this format after
// every format with a magic number anyway.
bool looks_like_legacy(std::string_view head) noexcept {
    if (head.find('\0') != std::string_view::npos) return false;
    const bool cut = head.size() >= k_detect_bytes;
    std::size_t records = 0, strays = 0;
    std::size_t start = 0;
    while (start < head.size()) {
        std::size_t end = head.find('\n', start);
        const bool complete = end != std::string_view::npos;
        if (!complete) end = head.size();
        const std::string_view line = head.substr(start, end - start);
        start = end + 1;
        if (line.empty()) continue;
        const std::size_t tab = line.find('\t');
        const std::string_view key = line.substr(0, tab);
        bool token = !key.empty();
        for (char c : key)
            if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) token = false;
        if (tab == std::string_view::npos) {
            if (!complete && cut) { // a line the head cut: a record so far if it is a key so far
                if (!token && records == 0) return false;
                continue;
            }
            if (records == 0) return false;
            ++strays;
            continue;
        }
        if (!token || line.find('\t', tab + 1) != std::string_view::npos) return false;
        ++records;
    }
    return records > strays;
}

} // namespace

bool detect(std::string_view head) noexcept {
    const std::size_t nl = head.find('\n');
    const std::string_view first = head.substr(0, nl == std::string_view::npos ? head.size() : nl);
    // The marker, or a first line meant as one (reported by the reader, spec.hpp).
    if (first == k_marker || looks_like_marker(first)) return true;
    return looks_like_legacy(head);
}

bool has_signature(std::string_view head) noexcept {
    const std::size_t nl = head.find('\n');
    const std::string_view first = head.substr(0, nl == std::string_view::npos ? head.size() : nl);
    return first == k_marker || looks_like_marker(first);
}

Parsed read(std::shared_ptr<const Source> source, const ReadOptions&) {
    std::string_view bytes = source ? source->view() : std::string_view{};
    Parsed out{Document(FormatId::spark_kv, k_version_legacy, std::move(source)), {}};
    // One node a line, at least: growing the vector by doubling would copy it a dozen times.
    if (bytes.size() <= k_max_file_size)
        out.doc.reserve(
            std::min<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n'), k_max_lines) + 3);
    TreeSink sink(out.doc);
    Reader<TreeSink> reader(bytes, out.findings, sink);
    out.doc.set_complete(reader.run());
    return out;
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
