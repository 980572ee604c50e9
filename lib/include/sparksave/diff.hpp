// Structural difference of two Documents of the same format (any versions), sparksave-diff(1).
// Children of an object are matched by name (the k-th child of a name with the k-th of the
// same name, so repeated names work); children of a list by name when they have one (entities),
// else by position (Vector items). Of the children with an empty name, containers and values
// are matched apart (a spark-kv line without a TAB is never taken for a record with an empty
// key). Order alone is not a difference unless asked for. Values
// that both read as numbers are compared as numbers, within an epsilon. Columns (column.hpp) are
// compared element by element: a changed scalar is reported at `<column path>[<index>]`, e.g. a
// tess tile as chunks[name=<key>].fields[<field>][<tile>].
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
#include "sparksave/format.hpp"
#include "sparksave/node_path.hpp"

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

struct DiffOptions {
    double epsilon = 0;           // numbers closer than this (inclusive) are equal
    std::vector<NodePath> ignore; // patterns: a change at or under a match is not reported
    bool order = false;           // also report children whose relative order changed
    // Also report values derived from the rest of the file (sparksave-diff(1) --derived,
    // is_derived()): they change whenever anything else does, so by default they are left out.
    bool derived = false;
    // diff_streamed: at most this many differing items (or 1/16 of them, if more) are kept.
    std::size_t max_kept_items = 4096;
};

struct Change {
    enum class Op : std::uint8_t { add, remove, change, order };
    Op op = Op::change;
    NodePath path;                  // where, in node-path syntax (pasteable into dump --select)
    NodeId old_node = k_no_node;    // in the first document (remove, change, order)
    NodeId new_node = k_no_node;    // in the second document (add, change, order)
    std::string old_text, new_text; // for changes that are not nodes: the version, a column element
    // The documents old_node and new_node are in (valid during the emit call).
    const Document* old_doc = nullptr;
    const Document* new_doc = nullptr;
};

std::string_view op_name(Change::Op op) noexcept; // "add", "remove", "change", "order"

// Whether a change is one of tag: both nodes there, their tags (a text archive's class or type
// name) differ.
bool tag_changed(const Change& c) noexcept;

// `diff --stat`: the changes counted by operation (Change::Op order: added, removed, changed,
// reordered), in all and by group. The group of a change inside an item of the format's main
// list (FormatInfo::items; a spark_save entity) is the item's member it is in (the component
// type); of an item itself, the list; else the path's first step.
class DiffStat {
  public:
    using Counts = std::array<std::size_t, 4>;
    explicit DiffStat(std::string_view items) : items_(items) {}
    void add(const Change& c);
    std::size_t count() const noexcept { return count_; }
    const Counts& totals() const noexcept { return totals_; }
    const std::map<std::string, Counts>& groups() const noexcept { return groups_; }

  private:
    std::string items_;
    std::size_t count_ = 0;
    Counts totals_{};
    std::map<std::string, Counts> groups_;
};

// Calls `emit` for every difference from `a` to `b`, in document order. Refuses documents of
// different formats.
Result<void> diff(const Document& a, const Document& b, const DiffOptions& options,
                  const std::function<void(const Change&)>& emit);

// The same comparison of two files of a format that reads part by part (FormatInfo::stream),
// without building either tree: the items of the main list (entities) are indexed by name and
// occurrence from a first read of each file, matched, and compared by their bytes; only the
// items that differ are kept (as small Documents) and compared node by node. Emits the changes
// diff() of the two whole trees emits, in the same order (options.order is not supported: it
// is refused with bad_usage). When a file does not read cleanly, nothing is emitted and its
// findings are returned (`a_findings` / `b_findings`), holding an error. When more items differ
// than options.max_kept_items (and 1/16 of the items), it declines before emitting anything:
// the whole-tree diff() is then the cheaper way.
struct StreamedDiff {
    Findings a_findings, b_findings;
    bool declined = false;
};
Result<StreamedDiff> diff_streamed(const FormatInfo& format, std::shared_ptr<const Source> a,
                                   std::shared_ptr<const Source> b, const DiffOptions& options,
                                   const std::function<void(const Change&)>& emit);

// Whether the child `child` of `parent`, at `path`, holds a value derived from the rest of its
// file (a checksum, a body size, a count of other nodes), which the writer recomputes or which
// changes whenever what it counts does: spark_save and GMSV `checksum` (formats/README.md §1.5, 5),
// tess `header.bodySize`, `header.checksum`, `header.fieldCount`, `header.chunkCount`
// (formats/README.md §4.1), a text archive's `nbElements` of an UnorderedMap and `nbValue` of a
// SaveData (formats/README.md §2). A spark-kv store has none.
bool is_derived(const Document& doc, NodeId parent, NodeId child, const NodePath& path) noexcept;

// Whether two value texts are equal: byte-equal, or both numbers within `epsilon`.
bool values_equal(std::string_view a, std::string_view b, double epsilon) noexcept;

SPARKSAVE_END_NAMESPACE
