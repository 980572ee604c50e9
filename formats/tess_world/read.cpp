// Reading a tess world archive into the Document tree (layout of the tree: spec.hpp).
#include "reader.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

namespace {

Span span(std::size_t offset, std::size_t length) {
    return Span{static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(length)};
}

// Builds the tree of spec.hpp from the reader's events. Columns reference the file buffer;
// numbers become text in the document's arena.
class TreeSink {
  public:
    explicit TreeSink(Document& doc) : doc_(doc), b_(doc) {}

    void on_header(const Header& h) {
        b_.open(NodeKind::object, doc_.text(k_header), span(0, k_header_size));
        number(k_body_size, fmt::format("{}", h.body_size), k_off_body_size, 8);
        number(k_checksum, fmt::format("{:#010x}", h.checksum), k_off_checksum, 4);
        triple(k_world_size, h.world, k_off_world);
        triple(k_chunk_size, h.chunk, k_off_chunk);
        std::string_view lattice = lattice_name(h.lattice);
        b_.add(
            NodeKind::scalar, doc_.text(k_lattice),
            doc_.text(lattice.empty() ? fmt::format("{:#010x}", h.lattice) : std::string(lattice)),
            span(k_off_lattice, 4), ValueType::string);
        number(k_lattice_version, fmt::format("{}", h.lattice_version), k_off_lattice_version, 4);
        number(k_key_layout_version, fmt::format("{}", h.key_layout_version), k_off_key_layout, 4);
        number(k_schema_id, fmt::format("{:#018x}", h.schema_id), k_off_schema_id, 8);
        number(k_schema_version, fmt::format("{}", h.schema_version), k_off_schema_version, 4);
        b_.open(NodeKind::object, doc_.text(k_library_version), span(k_off_library, 12));
        for (std::size_t i = 0; i < 3; ++i)
            number(k_library_parts[i], fmt::format("{}", h.library[i]), k_off_library + 4 * i, 4);
        b_.close();
        std::string_view residency = residency_name(h.residency);
        b_.add(
            NodeKind::scalar, doc_.text(k_residency),
            doc_.text(residency.empty() ? fmt::format("{}", h.residency) : std::string(residency)),
            span(k_off_residency, 1), ValueType::string);
        number(k_field_count, fmt::format("{}", h.field_count), k_off_field_count, 4);
        number(k_chunk_count, fmt::format("{}", h.chunk_count), k_off_chunk_count, 8);
        b_.close();
    }

    void on_descriptors_begin(std::size_t offset) {
        b_.open(NodeKind::list, doc_.text(k_fields), span(offset, 0));
    }
    void on_descriptor(const Descriptor& d, std::size_t offset) {
        b_.open(NodeKind::object, {}, span(offset, k_descriptor_size));
        number(k_id, fmt::format("{:#018x}", d.id), offset, 8);
        number(k_version, fmt::format("{}", d.version), offset + 8, 4);
        std::string_view kind = kind_name(d.kind);
        b_.add(NodeKind::scalar, doc_.text(k_kind),
               doc_.text(kind.empty() ? fmt::format("{}", d.kind) : std::string(kind)),
               span(offset + 12, 1), ValueType::string);
        number(k_width, fmt::format("{}", d.width), offset + 13, 4);
        b_.close();
    }
    void on_descriptors_end(std::size_t end) { close_at(end); }

    void on_chunks_begin(std::size_t offset) {
        b_.open(NodeKind::list, doc_.text(k_chunks), span(offset, 0));
    }
    void on_chunk(const ChunkPrefix& p, std::size_t offset) {
        if (!names_)
            names_ = Names{doc_.text(k_key), doc_.text(k_state), doc_.text(k_active_mask),
                           doc_.text(k_entity_count), doc_.text(k_fields)};
        const Str key = doc_.text(fmt::format("{}", p.key));
        b_.open(NodeKind::object, key, span(offset, 0));
        b_.add(NodeKind::scalar, names_->key, key, span(offset, 8), ValueType::unsigned_integer);
        std::size_t at = offset + 8;
        if (p.state) {
            number(names_->state, fmt::format("{}", *p.state), at, 1);
            at += 1;
        }
        number(names_->active_mask, fmt::format("{:#010x}", p.active_mask), at, 4);
        number(names_->entity_count, fmt::format("{}", p.entity_count), at + 4, 4);
        b_.open(NodeKind::list, names_->fields, span(at + 8, 0));
    }
    void on_column(std::size_t, ColumnType type, std::string_view bytes, std::size_t offset) {
        NodeId id =
            b_.add(NodeKind::column, {}, doc_.ref(bytes), span(offset, bytes.size()), type.kind);
        doc_.node(id).tag = doc_.tag_id(column_type_name(type));
    }
    void on_chunk_end(std::size_t end) {
        close_at(end); // the chunk's fields
        close_at(end); // the chunk
    }
    void on_chunks_end(std::size_t end) { close_at(end); }

    // Closes what a read that stopped early left open, ending at `end`.
    void finish(std::size_t end) {
        while (b_.depth() > 1) close_at(end);
    }

  private:
    // Names repeated in every chunk, interned once.
    struct Names {
        Str key, state, active_mask, entity_count, fields;
    };

    void number(Str name, const std::string& text, std::size_t offset, std::size_t length) {
        b_.add(NodeKind::scalar, name, doc_.text(text), span(offset, length),
               ValueType::unsigned_integer);
    }
    void number(std::string_view name, const std::string& text, std::size_t offset,
                std::size_t length) {
        number(doc_.text(name), text, offset, length);
    }
    void triple(std::string_view name, const std::array<std::uint64_t, 3>& v, std::size_t offset) {
        b_.open(NodeKind::object, doc_.text(name), span(offset, 24));
        for (std::size_t i = 0; i < 3; ++i)
            number(k_axes[i], fmt::format("{}", v[i]), offset + 8 * i, 8);
        b_.close();
    }
    void close_at(std::size_t end) {
        Node& n = doc_.node(b_.current());
        if (n.span.valid() && end >= n.span.offset)
            n.span.length = static_cast<std::uint32_t>(end - n.span.offset);
        b_.close();
    }

    Document& doc_;
    TreeBuilder b_;
    std::optional<Names> names_;
};

} // namespace

bool detect(std::string_view head) noexcept {
    return head.starts_with(k_magic);
}

Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options) {
    const std::string_view bytes = source ? source->view() : std::string_view{};
    Parsed out{Document(FormatId::tess_world, 0, source), {}};
    TreeSink sink(out.doc);
    Reader<TreeSink> reader(bytes, out.findings, sink, options.salvage);
    out.doc.set_complete(reader.run());
    sink.finish(bytes.size());
    out.doc.set_version(reader.version());
    return out;
}

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
