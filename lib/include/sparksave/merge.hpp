// Three-way structural merge of two saves that share an ancestor (sparksave-merge(1), the git
// merge driver). Children are matched exactly as diff.hpp matches them (entities by name and
// occurrence, components by type, properties and custom state by key, Vector items by
// position). Against BASE, a change on one side is taken; the same change on both sides is
// taken once; anything the merge cannot be sure of is a conflict, never a silent pick:
//   - one value changed differently on the two sides (a column element likewise);
//   - a child removed on one side and changed on the other;
//   - a child added on both sides under the same key with different content;
//   - children whose relative order differs between the sides when THEIRS moved them (the
//     order OURS gave is kept when only OURS moved them);
//   - a list (the entities) whose items were added or removed on both sides, unless both sides
//     did the same: an item's index can be what other values refer to (a spark_save v4
//     Transform.parent), so the positions one side gave would shift under the other's;
//   - a list of unnamed items (Vector items) whose length changed, when both sides changed it;
//   - children of a repeated name (a v1 duplicate) whose number differs between the sides: they
//     are matched by occurrence, which is no identity once one of them is added or removed.
// Values derived from the rest of the file (diff.hpp is_derived: checksums, counts) are not
// merged: the writer recomputes them, and the result's check catches a count it does not.
// The merged tree is written with the format's writer, read back, checked against the rules of
// its format and version and compared with the merged tree (diff): the bytes are returned only
// when they read back as exactly what was merged.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/node_path.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

struct MergeConflict {
    enum class Kind : std::uint8_t {
        value,           // changed differently on both sides
        removed_changed, // removed on one side, changed on the other
        added_both,      // added on both sides with different content
        order,           // the sides ordered the same children differently
        items,           // a list's items added or removed on both sides
        repeated,        // children of a repeated name added or removed (matched by occurrence)
    };
    // One side at the conflict's path: a node of that side's document, an element's text (a
    // column element), or nothing (absent: `node` is k_no_node and `text` empty).
    struct Side {
        const Document* doc = nullptr;
        NodeId node = k_no_node;
        std::string text;
        bool present() const noexcept { return node != k_no_node || !text.empty(); }
    };
    Kind kind = Kind::value;
    NodePath path; // in the node-path syntax of diff (pasteable into dump --select)
    Side base, ours, theirs;
};

// "changed on both sides", "removed on one side, changed on the other", ...
std::string_view conflict_kind_text(MergeConflict::Kind kind) noexcept;

struct Merged {
    // Non-empty: the merge is refused, `bytes` is empty.
    std::vector<MergeConflict> conflicts;
    // The merged tree did not write or read back as what was merged (a count the writer does
    // not recompute, a rule of the format the combination breaks): refused, `bytes` is empty.
    std::optional<Error> unverified;
    // The merged file, checked: OURS' own bytes when nothing was taken from THEIRS, THEIRS' when
    // OURS changed nothing.
    std::string bytes;
    std::size_t from_theirs = 0; // changes of THEIRS taken into the result
};

// Merges THEIRS' changes since BASE into OURS. The Merged's conflicts point into the three
// documents (keep them alive while they are used). Errors (bad_usage): documents of different
// formats or versions (migrate them to one version first), or one that is incomplete.
Result<Merged> merge(const Document& base, const Document& ours, const Document& theirs);

SPARKSAVE_END_NAMESPACE
