// The format-neutral Document tree every reader builds and every writer, printer, diff and
// migration works on (README "How it is built").
//
// Nodes live in one flat vector and refer to each other by index, so a save with millions of
// fields is one allocation that grows, not millions of small ones. A node keeps its file order
// (first_child / next_sibling), the exact text of its value, and the byte span it came from.
// Names and values are (offset, length) references into the source file buffer, so reading a
// file copies no strings; text created later (migrations, pack) goes to the document's arena.
//
// What each format puts in the tree: its JSON form in sparksave-dump(1) names every node. The
// headers cite the format reference as formats/README.md §x.y: it is installed as
// share/doc/sparksave/formats/README.md.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

// The five formats of formats/README.md, in its priority order.
enum class FormatId : std::uint8_t { spark_save, text_archive, spark_kv, tess_world, gmsv };

using NodeId = std::uint32_t;
inline constexpr NodeId k_no_node = ~NodeId{0};

enum class NodeKind : std::uint8_t {
    object, // children addressed by name, in file order; names may repeat (v1 duplicates)
    list,   // children addressed by index (entities, Vector items)
    scalar, // a value with its exact text (every spark_save value, metadata fields)
    bytes,  // an opaque binary payload (trailing bytes, GMSV component data)
    column, // a packed array of fixed-width little-endian scalars (tess columns)
};

// What a scalar's text means; printers and diff use it, the text stays exact.
enum class ValueType : std::uint8_t { none, string, integer, unsigned_integer, floating, boolean };

// A string: `off` indexes the source buffer, or the arena when the top bit is set.
struct Str {
    static constexpr std::uint32_t k_arena_bit = 0x8000'0000u;
    std::uint32_t off = 0;
    std::uint32_t len = 0;
};

// A byte range of the source file. A node that was not read from the file (added by a
// migration or built from JSON) has no span.
struct Span {
    static constexpr std::uint32_t k_none = ~std::uint32_t{0};
    std::uint32_t offset = k_none;
    std::uint32_t length = 0;
    bool valid() const noexcept { return offset != k_none; }
};

// Node flags.
inline constexpr std::uint8_t k_flag_absent = 0x01; // the field is not in the file (optional)

struct Node {
    Str name;
    Str value;
    Span span;
    NodeId first_child = k_no_node;
    NodeId next_sibling = k_no_node;
    NodeKind kind = NodeKind::scalar;
    ValueType type = ValueType::none;
    std::uint8_t flags = 0;
    std::uint16_t tag = 0; // index into the document's tag table (class / type names); 0 = none
};

// The bytes a document was read from. Shared, so copies of a document (a migration works on
// a copy) do not copy the file.
class Source {
  public:
    Source() = default;
    explicit Source(std::string bytes) : str_(std::move(bytes)), view_(str_) {}
    // Bytes in a buffer of their own (filled by the caller, never zero-filled first).
    Source(std::unique_ptr<char[]> bytes, std::size_t size)
        : buffer_(std::move(bytes)), view_(buffer_.get(), size) {}
    // Bytes owned elsewhere (a memory-mapped file) and the function that releases them.
    // `changed`, when set, becomes true if the bytes stopped being the file's (a mapped file
    // truncated by another program while it was read: file_io.hpp handle_mapping_fault).
    Source(std::string_view bytes, void (*release)(const char*, std::size_t),
           const std::atomic<bool>* changed = nullptr)
        : view_(bytes), release_(release), changed_(changed) {}
    ~Source() {
        if (release_) release_(view_.data(), view_.size());
    }
    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;
    std::string_view view() const noexcept { return view_; }
    // True when the file was cut short under the mapping: what view() showed is not the file.
    bool changed() const noexcept { return changed_ && changed_->load(); }

  private:
    std::string str_;
    std::unique_ptr<char[]> buffer_;
    std::string_view view_;
    void (*release_)(const char*, std::size_t) = nullptr;
    const std::atomic<bool>* changed_ = nullptr;
};

class Document {
  public:
    // The largest source or arena a document can address (Str offsets are 31 bits).
    static constexpr std::uint64_t k_max_bytes = Str::k_arena_bit - 1;

    Document(FormatId format, std::uint32_t version, std::shared_ptr<const Source> source);

    FormatId format() const noexcept { return format_; }
    std::uint32_t version() const noexcept { return version_; }
    void set_version(std::uint32_t version) noexcept { version_ = version; }
    const std::shared_ptr<const Source>& source() const noexcept { return source_; }
    std::string_view source_bytes() const noexcept { return source_view_; }
    // Gives a document that was built, not read (every text of it in the arena), the bytes its
    // spans refer to: `pack` builds a tree and the file text its spans keep (spark-kv's exact
    // record lines) side by side, and hands both to the format's writer.
    void set_source(std::shared_ptr<const Source> source);

    // Which part of a file the tree holds: all of it, or (reading a large file part by part,
    // see spark_save::stream) the head, one item of the main list, or the tail.
    enum class Part : std::uint8_t { whole, head, item, tail };
    Part part() const noexcept { return part_; }
    void set_part(Part part) noexcept { part_ = part; }
    // False when the read that built the tree stopped part-way at an error (a truncated or
    // unreadable structure): the tree holds only what was read before it, and the rest of the
    // file is in no node. `dump --json` marks such a dump `"complete": false` and `pack`
    // refuses it (the unread rest would be dropped from the file it builds).
    bool complete() const noexcept { return complete_; }
    void set_complete(bool complete) noexcept { complete_ = complete; }
    // Empties the tree down to its root, keeping the first `keep_arena` arena bytes and the
    // capacity, so one Document can hold successive parts of a file without new allocations.
    void clear_nodes(std::size_t keep_arena = 0);
    // Marks the tree as the reader built it from the source: until a node is created, linked,
    // unlinked or reached through the non-const node() (what may change it), unedited() is true,
    // and the part's nodes are exactly what their spans cover (a writer of the same encoding may
    // copy those bytes). clear_nodes() drops the mark.
    void mark_read() noexcept { read_at_ = edits_; }
    bool unedited() const noexcept { return read_at_ == edits_; }
    std::size_t arena_size() const noexcept { return arena_.size(); }

    NodeId root() const noexcept { return 0; }
    std::size_t node_count() const noexcept { return nodes_.size(); }
    const Node& node(NodeId id) const { return nodes_[id]; }
    Node& node(NodeId id) { // counted as an edit (unedited())
        ++edits_;
        return nodes_[id];
    }
    void reserve(std::size_t nodes) { nodes_.reserve(nodes); }

    std::string_view str(Str s) const noexcept {
        if (s.off & Str::k_arena_bit) return {arena_.data() + (s.off & ~Str::k_arena_bit), s.len};
        return {source_view_.data() + s.off, s.len};
    }
    std::string_view name(NodeId id) const noexcept { return str(nodes_[id].name); }
    std::string_view value(NodeId id) const noexcept { return str(nodes_[id].value); }
    std::string_view tag(NodeId id) const noexcept { return tags_[nodes_[id].tag]; }

    // A Str for text that lies inside the source buffer (no copy).
    Str ref(std::string_view in_source) const noexcept {
        assert(in_source.empty() ||
               (in_source.data() >= source_view_.data() &&
                in_source.data() + in_source.size() <= source_view_.data() + source_view_.size()));
        if (in_source.empty()) return {};
        return Str{static_cast<std::uint32_t>(in_source.data() - source_view_.data()),
                   static_cast<std::uint32_t>(in_source.size())};
    }
    // A Str for any text: a reference when it lies in the source or already in the arena (a view
    // taken from str() since the last arena append), else a copy in the arena.
    Str text(std::string_view any);
    // The id of a tag name (class or type name), interned.
    std::uint16_t tag_id(std::string_view tag_name);

    // Creates a node and appends it as the last child of `parent` (O(children of parent); the
    // TreeBuilder below appends in O(1)).
    NodeId append(NodeId parent, NodeKind kind, Str name, Str value = {}, Span span = {},
                  ValueType type = ValueType::none);
    // Creates a node with no parent link; link it with link_after / link_last.
    NodeId create(NodeKind kind, Str name, Str value = {}, Span span = {},
                  ValueType type = ValueType::none) {
        if (nodes_.size() >= k_no_node) [[unlikely]]
            too_many_nodes();
        ++edits_;
        nodes_.push_back(
            Node{.name = name, .value = value, .span = span, .kind = kind, .type = type});
        return static_cast<NodeId>(nodes_.size() - 1);
    }
    void link_last(NodeId parent, NodeId child);
    void link_after(NodeId parent, NodeId prev, NodeId child); // prev == k_no_node: first
    // Unlinks `child` from `parent` (the node stays in the vector, unreachable).
    void unlink(NodeId parent, NodeId child);

    // Children, in order.
    class ChildIterator {
      public:
        ChildIterator(const Document* doc, NodeId id) : doc_(doc), id_(id) {}
        NodeId operator*() const noexcept { return id_; }
        ChildIterator& operator++() noexcept {
            id_ = doc_->nodes_[id_].next_sibling;
            return *this;
        }
        bool operator!=(const ChildIterator& other) const noexcept { return id_ != other.id_; }

      private:
        const Document* doc_;
        NodeId id_;
    };
    struct Children {
        const Document* doc;
        NodeId first;
        ChildIterator begin() const { return {doc, first}; }
        ChildIterator end() const { return {doc, k_no_node}; }
    };
    Children children(NodeId id) const noexcept { return {this, nodes_[id].first_child}; }
    std::size_t child_count(NodeId id) const noexcept;
    // The first child named `name`, or k_no_node.
    NodeId child(NodeId id, std::string_view name) const noexcept;
    // The child at `index`, or k_no_node.
    NodeId child_at(NodeId id, std::size_t index) const noexcept;
    NodeId last_child(NodeId id) const noexcept;

  private:
    friend class TreeBuilder;
    [[noreturn]] static void too_many_nodes(); // std::length_error
    FormatId format_;
    std::uint32_t version_;
    Part part_ = Part::whole;
    bool complete_ = true;
    std::shared_ptr<const Source> source_;
    std::string_view source_view_; // source_->view(), kept at hand for str()
    std::vector<Node> nodes_;
    std::uint64_t edits_ = 0;       // of the tree: mark_read, unedited
    std::uint64_t read_at_ = ~0ull; // edits_ when mark_read() was called, else never reached
    std::string arena_;
    std::vector<std::string> tags_;
};

// Appends nodes in document order in O(1) each: open() a container, add children, close().
class TreeBuilder {
  public:
    explicit TreeBuilder(Document& doc);
    // Adds a leaf (or an empty container) to the open container.
    NodeId add(NodeKind kind, Str name, Str value = {}, Span span = {},
               ValueType type = ValueType::none) {
        const NodeId id = doc_.create(kind, name, value, span, type);
        Open& top = stack_.back();
        if (top.last == k_no_node)
            doc_.nodes_[top.id].first_child = id;
        else
            doc_.nodes_[top.last].next_sibling = id;
        top.last = id;
        return id;
    }
    // Adds a container and makes it the open one.
    NodeId open(NodeKind kind, Str name, Span span = {}, Str value = {}) {
        const NodeId id = add(kind, name, value, span);
        stack_.push_back({id, k_no_node});
        return id;
    }
    void close() {
        if (stack_.size() > 1) stack_.pop_back();
    }
    // Closes containers until `id` is the open one again.
    void close_to(NodeId id);
    NodeId current() const noexcept { return stack_.back().id; }
    // Starts again at the document's root (after Document::clear_nodes).
    void reset();
    std::size_t depth() const noexcept { return stack_.size(); }
    Document& doc() noexcept { return doc_; }

  private:
    struct Open {
        NodeId id;
        NodeId last;
    };
    Document& doc_;
    std::vector<Open> stack_;
};

SPARKSAVE_END_NAMESPACE
