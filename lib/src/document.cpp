// The Document tree: storage, string references, linking.
#include "sparksave/document.hpp"
#include "sparksave/version.hpp"

#include <cassert>
#include <stdexcept>

SPARKSAVE_BEGIN_NAMESPACE

Document::Document(FormatId format, std::uint32_t version, std::shared_ptr<const Source> source)
    : format_(format), version_(version), source_(std::move(source)),
      source_view_(source_ ? source_->view() : std::string_view{}) {
    tags_.emplace_back(); // tag 0: none
    Node root;
    root.kind = NodeKind::object;
    nodes_.push_back(root);
}

void Document::clear_nodes(std::size_t keep_arena) {
    read_at_ = ~0ull;
    nodes_.resize(1);
    nodes_[0] = Node{};
    nodes_[0].kind = NodeKind::object;
    if (keep_arena < arena_.size()) arena_.resize(keep_arena);
}

void Document::set_source(std::shared_ptr<const Source> source) {
    source_ = std::move(source);
    source_view_ = source_ ? source_->view() : std::string_view{};
}

Str Document::text(std::string_view any) {
    if (any.empty()) return {};
    auto src = source_bytes();
    if (!src.empty() && any.data() >= src.data() &&
        any.data() + any.size() <= src.data() + src.size())
        return ref(any);
    if (!arena_.empty() && any.data() >= arena_.data() &&
        any.data() + any.size() <= arena_.data() + arena_.size())
        return Str{static_cast<std::uint32_t>(any.data() - arena_.data()) | Str::k_arena_bit,
                   static_cast<std::uint32_t>(any.size())};
    if (arena_.size() + any.size() > k_max_bytes) throw std::length_error("document arena full");
    Str s{static_cast<std::uint32_t>(arena_.size()) | Str::k_arena_bit,
          static_cast<std::uint32_t>(any.size())};
    arena_.append(any);
    return s;
}

std::uint16_t Document::tag_id(std::string_view tag_name) {
    for (std::size_t i = 1; i < tags_.size(); ++i)
        if (tags_[i] == tag_name) return static_cast<std::uint16_t>(i);
    if (tags_.size() > 0xFFFF) throw std::length_error("too many distinct tag names");
    tags_.emplace_back(tag_name);
    return static_cast<std::uint16_t>(tags_.size() - 1);
}

void Document::too_many_nodes() {
    throw std::length_error("too many nodes");
}

NodeId Document::append(NodeId parent, NodeKind kind, Str name, Str value, Span span,
                        ValueType type) {
    NodeId id = create(kind, name, value, span, type);
    link_last(parent, id);
    return id;
}

NodeId Document::last_child(NodeId id) const noexcept {
    NodeId c = nodes_[id].first_child;
    if (c == k_no_node) return k_no_node;
    while (nodes_[c].next_sibling != k_no_node) c = nodes_[c].next_sibling;
    return c;
}

void Document::link_last(NodeId parent, NodeId child) {
    link_after(parent, last_child(parent), child);
}

void Document::link_after(NodeId parent, NodeId prev, NodeId child) {
    ++edits_;
    if (prev == k_no_node) {
        nodes_[child].next_sibling = nodes_[parent].first_child;
        nodes_[parent].first_child = child;
    } else {
        nodes_[child].next_sibling = nodes_[prev].next_sibling;
        nodes_[prev].next_sibling = child;
    }
}

void Document::unlink(NodeId parent, NodeId child) {
    ++edits_;
    NodeId* link = &nodes_[parent].first_child;
    while (*link != k_no_node) {
        if (*link == child) {
            *link = nodes_[child].next_sibling;
            nodes_[child].next_sibling = k_no_node;
            return;
        }
        link = &nodes_[*link].next_sibling;
    }
}

std::size_t Document::child_count(NodeId id) const noexcept {
    std::size_t n = 0;
    for (NodeId c = nodes_[id].first_child; c != k_no_node; c = nodes_[c].next_sibling) ++n;
    return n;
}

NodeId Document::child(NodeId id, std::string_view child_name) const noexcept {
    for (NodeId c = nodes_[id].first_child; c != k_no_node; c = nodes_[c].next_sibling)
        if (name(c) == child_name) return c;
    return k_no_node;
}

NodeId Document::child_at(NodeId id, std::size_t index) const noexcept {
    NodeId c = nodes_[id].first_child;
    while (c != k_no_node && index > 0) {
        c = nodes_[c].next_sibling;
        --index;
    }
    return c;
}

TreeBuilder::TreeBuilder(Document& doc) : doc_(doc) {
    stack_.push_back({doc.root(), doc.last_child(doc.root())});
}

void TreeBuilder::reset() {
    stack_.clear();
    stack_.push_back({doc_.root(), doc_.last_child(doc_.root())});
}

void TreeBuilder::close_to(NodeId id) {
    while (stack_.size() > 1 && stack_.back().id != id) stack_.pop_back();
}

SPARKSAVE_END_NAMESPACE
