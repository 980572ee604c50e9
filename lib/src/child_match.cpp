// The matching of children and the comparison of leaves shared by diff and merge
// (child_match.hpp).
#include "child_match.hpp"

#include "sparksave/column.hpp"
#include "sparksave/diff.hpp"

#include <unordered_map>

SPARKSAVE_BEGIN_NAMESPACE
namespace match {

bool is_container(const Node& n) noexcept {
    return n.kind == NodeKind::object || n.kind == NodeKind::list;
}

bool unnamed_container(const Document& d, NodeId child) noexcept {
    return d.name(child).empty() && is_container(d.node(child));
}

bool positional(const Document& d, NodeId parent) {
    if (d.node(parent).kind != NodeKind::list) return false;
    for (NodeId c : d.children(parent))
        if (!d.name(c).empty()) return false;
    return true;
}

std::vector<NodeId> children(const Document& d, NodeId parent) {
    std::vector<NodeId> out;
    for (NodeId c : d.children(parent)) out.push_back(c);
    return out;
}

std::vector<Key> keys(const Document& d, const std::vector<NodeId>& kids) {
    std::vector<Key> out;
    out.reserve(kids.size());
    std::unordered_map<std::string_view, std::size_t> seen;
    std::size_t unnamed_containers = 0;
    const bool small = kids.size() <= 16;
    for (std::size_t i = 0; i < kids.size(); ++i) {
        std::string_view name = d.name(kids[i]);
        const bool container = unnamed_container(d, kids[i]);
        std::size_t k = 0;
        if (container) {
            k = unnamed_containers++;
        } else if (small) {
            for (std::size_t j = 0; j < i; ++j)
                k += d.name(kids[j]) == name && !unnamed_container(d, kids[j]);
        } else {
            k = seen[name]++;
        }
        out.push_back({name, k, container});
    }
    return out;
}

bool has_columns(const Document& d) noexcept {
    for (std::size_t i = 0; i < d.node_count(); ++i)
        if (d.node(static_cast<NodeId>(i)).kind == NodeKind::column) return true;
    return false;
}

bool same_bytes(const Document& a, NodeId na, const Document& b, NodeId nb, bool leaves_only) {
    const Node& x = a.node(na);
    if (leaves_only && is_container(x)) return false;
    if (x.kind == NodeKind::column && column_type(a, na) != column_type(b, nb)) return false;
    const Span& sa = x.span;
    const Span& sb = b.node(nb).span;
    if (!sa.valid() || !sb.valid() || sa.length != sb.length) return false;
    return a.source_bytes().substr(sa.offset, sa.length) ==
           b.source_bytes().substr(sb.offset, sb.length);
}

bool declared_string(const Node& n) noexcept {
    return n.type == ValueType::string && n.tag != 0;
}

bool same_leaf(const Document& a, NodeId na, const Document& b, NodeId nb, double epsilon) {
    const Node& x = a.node(na);
    const Node& y = b.node(nb);
    if (x.kind != y.kind) return false;
    const bool numeric = x.kind == NodeKind::scalar && !declared_string(x) && !declared_string(y);
    return numeric ? values_equal(a.value(na), b.value(nb), epsilon) : a.value(na) == b.value(nb);
}

} // namespace match
SPARKSAVE_END_NAMESPACE
