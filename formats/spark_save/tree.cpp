// Metadata nodes of the `.spark_save` tree.
#include "tree.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

void add_metadata_fields(Document& doc, NodeId metadata, const MetadataBlock& meta, bool spans) {
    // Tokens become Strs by their place in the block, so appending names to the arena (which
    // may move it) cannot invalidate them.
    const Str block = doc.node(metadata).value;
    const char* block_data = doc.str(block).data();
    auto token = [&](std::string_view t) {
        return t.empty() ? Str{}
                         : Str{block.off + static_cast<std::uint32_t>(t.data() - block_data),
                               static_cast<std::uint32_t>(t.size())};
    };
    auto span = [&](const MetaField& f, std::size_t length) {
        return spans
                   ? Span{static_cast<std::uint32_t>(f.offset), static_cast<std::uint32_t>(length)}
                   : Span{};
    };
    NodeId position = k_no_node;
    for (std::size_t i = 0; i < meta.count; ++i) {
        const MetaField& f = meta.fields[i];
        NodeId parent = metadata;
        if (f.in_position) {
            if (position == k_no_node) {
                const MetaField& last = meta.fields[std::min(i + 2, meta.count - 1)];
                std::size_t length =
                    last.in_position ? last.offset + last.text.size() - f.offset : f.text.size();
                position = doc.append(metadata, NodeKind::object,
                                      doc.text(k_meta_fields[f.spec].name), {}, span(f, length));
            }
            parent = position;
        }
        doc.append(parent, NodeKind::scalar, doc.text(f.name), token(f.text),
                   span(f, f.text.size()), f.type);
    }
}

void replace_metadata(Document& doc, NodeId metadata, std::string_view raw, std::uint32_t version) {
    for (NodeId c = doc.node(metadata).first_child; c != k_no_node;) {
        NodeId next = doc.node(c).next_sibling;
        doc.unlink(metadata, c);
        c = next;
    }
    doc.node(metadata).value = doc.text(raw);
    doc.node(metadata).span = Span{};
    MetadataBlock meta;
    auto ignore = [](std::size_t, std::string, std::string) {};
    parse_metadata_block(doc.value(metadata), 0, version, meta, ignore, ignore);
    add_metadata_fields(doc, metadata, meta, false);
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
