// Reading a GMSV save into the Document tree (layout of the tree: spec.hpp).
#include "reader.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

Span span(std::size_t offset, std::size_t length) {
    return Span{static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(length)};
}

// Builds the tree of spec.hpp from the reader's events. Data references the file buffer.
class TreeSink {
  public:
    explicit TreeSink(Document& doc) : doc_(doc), b_(doc) {}

    void on_header(std::uint32_t, std::int64_t timestamp) {
        b_.open(NodeKind::object, doc_.text(k_timestamp), span(k_off_timestamp, 8));
        const Span s = span(k_off_timestamp, 8);
        b_.add(NodeKind::scalar, doc_.text(k_binary), doc_.text(fmt::format("{}", timestamp)), s,
               ValueType::integer);
        const DotNetTime time = from_binary(timestamp);
        b_.add(NodeKind::scalar, doc_.text(k_kind), doc_.text(kind_name(time.kind)), s,
               ValueType::string);
        if (time.valid)
            b_.add(NodeKind::scalar, doc_.text(k_time), doc_.text(iso8601(time)), s,
                   ValueType::string);
        b_.close();
    }
    void on_entities_begin(std::uint32_t, std::size_t offset) {
        b_.open(NodeKind::list, doc_.text(k_entities), span(offset, 0));
    }
    void on_entity(std::string_view guid, std::size_t offset) {
        b_.open(NodeKind::object, doc_.text(guid_text(guid)), span(offset, 0));
    }
    void on_component(std::uint16_t type, std::string_view data, std::size_t offset,
                      std::size_t end) {
        if (type >= names_.size())
            names_.resize(std::min<std::size_t>(std::size_t{type} + 1, 0x10000));
        if (names_[type].len == 0) names_[type] = doc_.text(component_name(type));
        const NodeId id =
            b_.add(NodeKind::bytes, names_[type], doc_.ref(data), span(offset, end - offset));
        set_payload(doc_, id);
    }
    void on_entity_end(std::size_t end) { close_at(end); }
    void on_entities_end(std::size_t end) { close_at(end); }
    void on_checksum(std::uint32_t stored, std::size_t offset) {
        b_.add(NodeKind::scalar, doc_.text(k_checksum), doc_.text(fmt::format("{:#010x}", stored)),
               span(offset, 4), ValueType::unsigned_integer);
    }
    void on_trailing(std::string_view bytes, std::size_t offset) {
        b_.add(NodeKind::bytes, doc_.text(k_trailing), doc_.ref(bytes), span(offset, bytes.size()));
    }

    // Closes what a read that stopped early left open, ending at `end`.
    void finish(std::size_t end) {
        while (b_.depth() > 1) close_at(end);
    }

  private:
    void close_at(std::size_t end) {
        Node& n = doc_.node(b_.current());
        if (n.span.valid() && end >= n.span.offset)
            n.span.length = static_cast<std::uint32_t>(end - n.span.offset);
        b_.close();
    }

    Document& doc_;
    TreeBuilder b_;
    std::vector<Str> names_; // component names by type id, interned once
};

} // namespace

bool detect(std::string_view head) noexcept {
    return head.starts_with(k_magic);
}

Parsed read(std::shared_ptr<const Source> source, const ReadOptions&) {
    const std::string_view bytes = source ? source->view() : std::string_view{};
    Parsed out{Document(FormatId::gmsv, 0, source), {}};
    TreeSink sink(out.doc);
    Reader<TreeSink> reader(bytes, out.findings, sink);
    out.doc.set_complete(reader.run());
    sink.finish(bytes.size());
    out.doc.set_version(reader.version());
    return out;
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
