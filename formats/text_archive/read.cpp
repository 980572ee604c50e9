// Reading a text archive into the Document tree (layout of the tree: spec.hpp).
#include "reader.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

namespace {

// Builds the tree of spec.hpp from the reader's events. Names and values reference the file
// buffer; class and type names become the document's tags, looked up once each.
class TreeSink {
  public:
    explicit TreeSink(Document& doc) : doc_(doc), b_(doc) {}

    void on_version(std::string_view line, bool known) {
        doc_.node(doc_.root()).value = doc_.ref(line);
        doc_.set_version(known ? k_current_version : 0);
    }

    void on_attribute(const AttributeEvent& a) {
        const NodeId id = b_.add(NodeKind::scalar, doc_.ref(a.name), doc_.ref(a.value),
                                 span(a.offset, a.end - a.offset), a.value_type);
        Node& n = doc_.node(id);
        n.tag = tag(a.type);
        if (a.named && a.name.empty()) n.flags |= k_flag_empty_name;
    }

    void on_class(const ClassEvent& c) {
        const NodeId id = b_.open(c.list ? NodeKind::list : NodeKind::object, doc_.ref(c.name),
                                  span(c.offset, 0));
        Node& n = doc_.node(id);
        n.tag = tag(c.class_name);
        if (c.named && c.name.empty()) n.flags |= k_flag_empty_name;
    }

    void on_close(std::size_t end) {
        Node& n = doc_.node(b_.current());
        n.span.length = static_cast<std::uint32_t>(end - n.span.offset);
        b_.close();
    }

  private:
    static Span span(std::size_t offset, std::size_t length) {
        return Span{static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(length)};
    }
    // The reader bounds distinct names (k_max_names), so the tag table stays small.
    std::uint16_t tag(std::string_view name) {
        auto [it, inserted] = tags_.try_emplace(name, 0);
        if (inserted) it->second = doc_.tag_id(name);
        return it->second;
    }

    Document& doc_;
    TreeBuilder b_;
    std::unordered_map<std::string_view, std::uint16_t> tags_;
};

} // namespace

bool detect(std::string_view head) noexcept {
    const std::size_t nl = head.find('\n');
    const std::string_view first = head.substr(0, nl == std::string_view::npos ? head.size() : nl);
    if (first == k_version_line) return true;
    // formats/README.md §2: the engine reads an archive with a wrong version line as empty, so such
    // a file must still be recognised (and reported), not skipped as "no known format".
    return nl != std::string_view::npos && looks_like_version(first) &&
           head.find(k_marker, nl) != std::string_view::npos;
}

bool has_signature(std::string_view head) noexcept {
    const std::size_t nl = head.find('\n');
    if (nl == std::string_view::npos) return false;
    const std::string_view rest = head.substr(nl + 1);
    return rest.find_first_not_of(" \t\r\n") != std::string_view::npos;
}

Parsed read(std::shared_ptr<const Source> source, const ReadOptions&) {
    std::string_view bytes = source ? source->view() : std::string_view{};
    Parsed out{Document(FormatId::text_archive, 0, std::move(source)), {}};
    TreeSink sink(out.doc);
    Reader<TreeSink> reader(bytes, out.findings, sink);
    out.doc.set_complete(reader.run());
    return out;
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
