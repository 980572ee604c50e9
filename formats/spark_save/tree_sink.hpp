// The reader's sink that builds the tree of spec.hpp (read() and stream(), read.cpp; the head
// and tail of the direct dump, dump.cpp).
#pragma once

#include "reader.hpp"
#include "tree.hpp"

#include "api.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <optional>
#include <string>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// Builds the tree of spec.hpp from the reader's events. Names and values reference the file
// buffer; the fixed node names are interned once. With a consumer, the tree is built part by
// part in the one Document (stream()): the head goes to the consumer when the entity list
// starts, each entity when it ends, the tail at the end; the Document is emptied in between.
// The consumer's first error halts the read (Reader: halted()).
class TreeSink {
  public:
    explicit TreeSink(Document& doc, Parts* consumer = nullptr)
        : doc_(doc), b_(doc), consumer_(consumer), metadata_(doc.text(k_metadata)),
          entities_(doc.text(k_entities)), custom_state_(doc.text(k_custom_state)),
          trailing_(doc.text(k_trailing)), checksum_(doc.text(k_checksum)),
          keep_(doc.arena_size()) {
        if (consumer_) doc_.set_part(Document::Part::head);
    }

    // After the read: hands the part still being built (all of it, if the read stopped early)
    // to the consumer.
    void finish() {
        if (!consumer_ || failure_) return;
        switch (doc_.part()) {
        case Document::Part::head:
            keep(consumer_->head(doc_, 0));
            break;
        case Document::Part::item:
            if (entity_ != k_no_node) keep(consumer_->item(doc_, entity_, index_));
            break;
        case Document::Part::tail:
        case Document::Part::whole:
            keep(consumer_->tail(doc_));
            break;
        }
    }
    bool halted() const noexcept { return failure_.has_value(); }
    std::optional<Error>& failure() noexcept { return failure_; }

    void on_header(std::uint32_t version) { doc_.set_version(version); }

    void on_metadata(std::string_view block, std::size_t offset, const MetadataBlock& meta) {
        NodeId id =
            b_.add(NodeKind::object, metadata_, doc_.ref(block), span(offset, block.size()));
        add_metadata_fields(doc_, id, meta, true);
    }

    void on_entities_begin(std::uint32_t count, std::size_t offset) {
        b_.open(NodeKind::list, entities_, span(offset, 0));
        if (consumer_) {
            keep(consumer_->head(doc_, count));
            next_part(Document::Part::item);
        }
    }
    void on_entity(std::string_view name, std::size_t offset, std::uint32_t index) {
        if (consumer_) {
            next_part(Document::Part::item);
            b_.open(NodeKind::list, entities_);
            index_ = index;
            bare_ = !consumer_->wants_children(index);
        }
        entity_ = b_.open(NodeKind::object, doc_.ref(name), span(offset, 0));
    }
    void on_component(std::string_view type, std::size_t offset) {
        if (bare_) return;
        b_.open(NodeKind::object, doc_.ref(type), span(offset, 0));
    }
    void on_property(std::string_view key, std::string_view value, std::size_t offset,
                     std::size_t end) {
        if (bare_) return;
        b_.add(NodeKind::scalar, doc_.ref(key), doc_.ref(value), span(offset, end - offset),
               ValueType::string);
    }
    void on_component_end(std::size_t end) {
        if (!bare_) close_at(end);
    }
    void on_entity_end(std::size_t end) {
        close_at(end);
        if (consumer_) {
            if (!bare_) doc_.mark_read(); // the entity's nodes are what its span holds
            keep(consumer_->item(doc_, entity_, index_));
            entity_ = k_no_node;
        }
    }
    void on_entities_end(std::size_t end) {
        bare_ = false;
        if (consumer_)
            next_part(Document::Part::tail);
        else
            close_at(end);
    }

    void on_custom_state_begin(bool present, std::uint32_t declared, std::size_t offset) {
        NodeId id = b_.open(NodeKind::object, custom_state_, span(offset, 0));
        if (!present) doc_.node(id).flags |= k_flag_absent;
        declared_ = declared;
    }
    void on_pair(std::string_view key, std::string_view value, std::size_t offset,
                 std::size_t end) {
        b_.add(NodeKind::scalar, doc_.ref(key), doc_.ref(value), span(offset, end - offset),
               ValueType::string);
    }
    void on_custom_state_end(std::size_t end, std::uint32_t complete) {
        NodeId id = b_.current();
        if (!(doc_.node(id).flags & k_flag_absent) && complete != declared_)
            doc_.node(id).value = doc_.text(std::to_string(declared_));
        close_at(end);
    }
    void on_trailing(std::string_view bytes, std::size_t offset) {
        b_.add(NodeKind::bytes, trailing_, doc_.ref(bytes), span(offset, bytes.size()));
    }
    void on_checksum(std::uint32_t stored, std::size_t offset) {
        b_.add(NodeKind::scalar, checksum_, doc_.text(fmt::format("{:#010x}", stored)),
               span(offset, 4), ValueType::unsigned_integer);
    }

  private:
    void keep(Result<void> r) {
        if (!r) failure_ = std::move(r).error();
    }
    void next_part(Document::Part part) {
        doc_.clear_nodes(keep_);
        doc_.set_part(part);
        b_.reset();
    }

    static Span span(std::size_t offset, std::size_t length) {
        return Span{static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(length)};
    }
    void close_at(std::size_t end) {
        Node& n = doc_.node(b_.current());
        n.span.length = static_cast<std::uint32_t>(end - n.span.offset);
        b_.close();
    }

    Document& doc_;
    TreeBuilder b_;
    Parts* consumer_;
    std::optional<Error> failure_;
    Str metadata_, entities_, custom_state_, trailing_, checksum_;
    std::size_t keep_;
    NodeId entity_ = k_no_node;
    std::uint32_t index_ = 0;
    bool bare_ = false; // this item's children are not built (Parts::wants_children)
    std::uint32_t declared_ = 0;
};

// Reads `bytes` part by part through `sink` (a TreeSink for `consumer`, or a sink that hands
// the rest of its events to one: dump.cpp): the CRC-32 first, so the read goes in one pass, in
// file order; the part the read stopped in goes to the consumer as far as it got, then
// consumer.stopped(). A consumer's error stops the read and is returned.
template <class Sink>
PartsRead read_parts(std::string_view bytes, Document& doc, Sink& sink, Parts& consumer) {
    PartsRead out;
    // Parts go to the consumer as they are read, so the CRC is checked first, not alongside.
    CrcHint crc;
    if (bytes.size() >= 12 && bytes.starts_with(k_magic)) crc.known = whole_crc(bytes);
    Reader<Sink> reader(bytes, out.findings, sink, true, crc);
    const bool whole = reader.run();
    if (sink.halted()) {
        out.consumer_error = std::move(sink.failure());
        return out;
    }
    if (!whole) doc.set_complete(false);
    doc.set_version(reader.version()); // as read() does (a part the read stopped in)
    sink.finish();
    if (sink.halted())
        out.consumer_error = std::move(sink.failure());
    else if (!whole)
        consumer.stopped();
    return out;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
