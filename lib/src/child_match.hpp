// How the children of two nodes are matched and their leaves compared: the one rule of the
// structural diff (diff.hpp) and the three-way merge (merge.hpp), so that a merge matches
// entities, components and properties exactly as `diff` shows them.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/version.hpp"

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace match {

// How a child is found again: by name (and which occurrence of it), or by position. An empty
// name is also keyed by the kind of child, container or value (diff.hpp): a spark-kv line
// without a TAB (a container without a name) is not a record with an empty key.
struct Key {
    std::string_view name;
    std::size_t occurrence;
    bool unnamed_container = false;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
        return (std::hash<std::string_view>()(k.name) * 31 + k.occurrence) * 2 +
               k.unnamed_container;
    }
};

bool is_container(const Node& n) noexcept;
bool unnamed_container(const Document& d, NodeId child) noexcept;
// A list whose children all have no name (Vector items): matched by position.
bool positional(const Document& d, NodeId parent);
std::vector<NodeId> children(const Document& d, NodeId parent);
// Keys of the children: (name, k) for the k-th child of that name (of that kind, for an empty
// name).
std::vector<Key> keys(const Document& d, const std::vector<NodeId>& kids);

// Whether a document holds a column: a column's values mean what its type says, and the type may
// come from elsewhere in the file (a tess descriptor), so identical bytes under a container are
// not identical values there.
bool has_columns(const Document& d) noexcept;
// Identical source bytes read by the same rules (same format and version) make identical
// subtrees. `leaves_only`: containers are never taken as identical this way (has_columns).
bool same_bytes(const Document& a, NodeId na, const Document& b, NodeId nb, bool leaves_only);
// A value its format types as a string (a text archive `string` attribute, formats/README.md
// §2: typed values carry their type name as the tag) is text, so `007` and `7` differ. Untyped
// values (spark_save's, all text) compare as numbers when both read as numbers.
bool declared_string(const Node& n) noexcept;
// Whether two leaves that are not columns hold the same value (diff's rule: same kind, and the
// same text, or numbers within `epsilon` unless a side is declared a string).
bool same_leaf(const Document& a, NodeId na, const Document& b, NodeId nb, double epsilon);

} // namespace match
SPARKSAVE_END_NAMESPACE
