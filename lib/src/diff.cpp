// The structural diff: one pass over both trees, hash matching of children, no quadratic step.
#include "sparksave/diff.hpp"

#include "child_match.hpp"

#include "sparksave/alongside.hpp"
#include "sparksave/column.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

SPARKSAVE_BEGIN_NAMESPACE

std::string_view op_name(Change::Op op) noexcept {
    switch (op) {
    case Change::Op::add:
        return "add";
    case Change::Op::remove:
        return "remove";
    case Change::Op::change:
        return "change";
    case Change::Op::order:
        return "order";
    }
    return "change";
}

namespace {

bool step_is(const PathStep& s, std::string_view name) noexcept {
    return (s.kind == PathStep::Kind::name || s.kind == PathStep::Kind::name_match) &&
           s.text == name;
}

bool as_number(std::string_view t, double& v) noexcept {
    if (t.empty()) return false;
    const char* b = t.data();
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), v);
    return ec == std::errc() && p == t.data() + t.size() && std::isfinite(v);
}

class Differ {
  public:
    Differ(const Document& a, const Document& b, const DiffOptions& o,
           const std::function<void(const Change&)>& emit)
        : a_(a), b_(b), o_(o), emit_(emit),
          same_encoding_(a.format() == b.format() && a.version() == b.version()),
          leaves_only_(match::has_columns(a) || match::has_columns(b)) {}

    void run() {
        if (a_.version() != b_.version()) {
            Change c;
            c.op = Change::Op::change;
            c.path.name("version");
            c.old_text = std::to_string(a_.version());
            c.new_text = std::to_string(b_.version());
            c.old_doc = &a_;
            c.new_doc = &b_;
            if (!ignored(c.path)) emit_(c);
        }
        children(a_.root(), b_.root());
    }

    // The root's children only (the tail of a file read part by part).
    void run_children() { children(a_.root(), b_.root()); }

    // One item of a list at `path`: compared (op change), removed or added.
    void item(const NodePath& path, Change::Op op, NodeId na, NodeId nb) {
        path_ = path;
        if (op == Change::Op::change)
            compare(na, nb);
        else
            emit(op, na, nb);
    }

  private:
    bool ignored(const NodePath& p) const {
        for (const auto& pattern : o_.ignore)
            if (path_matches(pattern, p)) return true;
        return false;
    }

    void emit(Change::Op op, NodeId na, NodeId nb) {
        if (ignored(path_)) return;
        Change c;
        c.op = op;
        c.path = path_;
        c.old_node = na;
        c.new_node = nb;
        c.old_doc = &a_;
        c.new_doc = &b_;
        emit_(c);
    }

    // Identical source bytes read by the same rules make identical subtrees: skip them.
    bool same_bytes(NodeId na, NodeId nb) const {
        return same_encoding_ && match::same_bytes(a_, na, b_, nb, leaves_only_);
    }

    void compare(NodeId na, NodeId nb) {
        if (ignored(path_)) return;
        if (same_bytes(na, nb)) return;
        const Node& x = a_.node(na);
        const Node& y = b_.node(nb);
        const bool cx = match::is_container(x);
        const bool cy = match::is_container(y);
        if (cx != cy || a_.tag(na) != b_.tag(nb)) {
            emit(Change::Op::change, na, nb);
            return;
        }
        if (x.kind == NodeKind::column && y.kind == NodeKind::column) {
            columns(na, nb);
            return;
        }
        if (!cx) {
            if (!match::same_leaf(a_, na, b_, nb, o_.epsilon)) emit(Change::Op::change, na, nb);
            return;
        }
        children(na, nb);
    }

    // Columns (column.hpp) of the same element type and length are compared element by element:
    // a changed element is reported at the column's path plus its index, `fields[0][17]`, with
    // the old and new values as text (numbers within the epsilon are equal). Columns of another
    // type or length change as a whole.
    void columns(NodeId na, NodeId nb) {
        const ColumnType ta = column_type(a_, na), tb = column_type(b_, nb);
        const std::string_view va = a_.value(na), vb = b_.value(nb);
        if (!ta.valid() || ta != tb || va.size() != vb.size()) {
            if (ta != tb || va != vb) emit(Change::Op::change, na, nb);
            return;
        }
        if (va == vb) return;
        const std::size_t w = ta.width;
        std::string old_text, new_text;
        for (std::size_t i = 0; i < va.size() / w; ++i) {
            if (va.substr(i * w, w) == vb.substr(i * w, w)) continue;
            old_text.clear();
            new_text.clear();
            append_column_element(old_text, ta, va, i);
            append_column_element(new_text, tb, vb, i);
            if (values_equal(old_text, new_text, o_.epsilon)) continue;
            path_.index(i);
            if (!ignored(path_)) {
                Change c;
                c.op = Change::Op::change;
                c.path = path_;
                c.old_text = old_text;
                c.new_text = new_text;
                c.old_doc = &a_;
                c.new_doc = &b_;
                emit_(c);
            }
            path_.steps.pop_back();
        }
    }

    using Key = match::Key;

    // The path step of a child: a name in an object; in a list, [name=...] when the name is
    // unique there (so it survives reordering), else the index.
    void push_step(const Document& d, NodeId parent, NodeId child, std::size_t index,
                   const Key& key, std::size_t count_of_name) {
        if (d.node(parent).kind != NodeKind::list) {
            // A name step finds the first child of that name, so a later one (a repeated name:
            // a text archive's duplicate top-level entries) and an unnamed child go by index.
            if (key.occurrence == 0 && !key.name.empty())
                path_.name(d.name(child));
            else
                path_.index(index);
        } else if (!key.name.empty() && count_of_name == 1) {
            path_.name_match(key.name);
        } else {
            path_.index(index);
        }
        // The other way of naming it, for --ignore (node_path.hpp PathStep).
        PathStep& s = path_.steps.back();
        if (s.kind == PathStep::Kind::index)
            s.known_name = key.name;
        else
            s.position = index;
    }

    // A derived value (is_derived) is left out unless asked for.
    bool skipped(const Document& d, NodeId parent, NodeId child) const {
        return !o_.derived && is_derived(d, parent, child, path_);
    }

    void children(NodeId pa, NodeId pb) {
        std::vector<NodeId> ka = match::children(a_, pa), kb = match::children(b_, pb);
        if (match::positional(a_, pa) && match::positional(b_, pb)) {
            const std::size_t common = std::min(ka.size(), kb.size());
            for (std::size_t i = 0; i < std::max(ka.size(), kb.size()); ++i) {
                path_.index(i);
                const bool derived =
                    i < ka.size() ? skipped(a_, pa, ka[i]) : skipped(b_, pb, kb[i]);
                if (!derived) {
                    if (i < common)
                        compare(ka[i], kb[i]);
                    else if (i < ka.size())
                        emit(Change::Op::remove, ka[i], k_no_node);
                    else
                        emit(Change::Op::add, k_no_node, kb[i]);
                }
                path_.steps.pop_back();
            }
            return;
        }
        std::vector<Key> keys_a = match::keys(a_, ka), keys_b = match::keys(b_, kb);
        // Where each child of b is, by key; and how many children of each name either side has.
        std::unordered_map<Key, std::size_t, match::KeyHash> where_b;
        std::unordered_map<std::string_view, std::size_t> count_a, count_b;
        where_b.reserve(kb.size());
        for (std::size_t j = 0; j < kb.size(); ++j) {
            where_b.emplace(keys_b[j], j);
            ++count_b[keys_b[j].name];
        }
        for (const Key& k : keys_a) ++count_a[k.name];
        // Match first, so an order change is reported before what changed inside.
        std::vector<bool> matched_b(kb.size(), false);
        std::vector<std::size_t> match(ka.size(), kb.size()); // kb.size(): no match
        for (std::size_t i = 0; i < ka.size(); ++i) {
            auto it = where_b.find(keys_a[i]);
            if (it == where_b.end()) continue;
            match[i] = it->second;
            matched_b[it->second] = true;
        }
        if (o_.order) {
            std::size_t last = 0;
            bool first = true;
            for (std::size_t i = 0; i < ka.size(); ++i) {
                if (match[i] == kb.size()) continue;
                if (!first && match[i] < last) {
                    emit(Change::Op::order, pa, pb);
                    break;
                }
                last = match[i];
                first = false;
            }
        }
        for (std::size_t i = 0; i < ka.size(); ++i) {
            if (match[i] == kb.size()) {
                push_step(a_, pa, ka[i], i, keys_a[i], count_a[keys_a[i].name]);
                if (!skipped(a_, pa, ka[i])) emit(Change::Op::remove, ka[i], k_no_node);
                path_.steps.pop_back();
                continue;
            }
            const std::size_t j = match[i];
            push_step(b_, pb, kb[j], j, keys_b[j],
                      std::max(count_a[keys_a[i].name], count_b[keys_b[j].name]));
            if (!skipped(a_, pa, ka[i])) compare(ka[i], kb[j]);
            path_.steps.pop_back();
        }
        for (std::size_t j = 0; j < kb.size(); ++j) {
            if (matched_b[j]) continue;
            push_step(b_, pb, kb[j], j, keys_b[j], count_b[keys_b[j].name]);
            if (!skipped(b_, pb, kb[j])) emit(Change::Op::add, k_no_node, kb[j]);
            path_.steps.pop_back();
        }
    }

    const Document& a_;
    const Document& b_;
    const DiffOptions& o_;
    const std::function<void(const Change&)>& emit_;
    const bool same_encoding_;
    const bool leaves_only_; // the fast path only for leaves (has_columns)
    NodePath path_;
};

// Names that stay where they are while more are added (string_views into them stay valid).
class StableStrings {
  public:
    std::string_view keep(std::string_view s) {
        if (s.size() > k_block / 4) {
            big_.push_back(std::make_unique<char[]>(s.size() + 1));
            std::memcpy(big_.back().get(), s.data(), s.size());
            return {big_.back().get(), s.size()};
        }
        if (blocks_.empty() || used_ + s.size() > k_block) {
            blocks_.push_back(std::make_unique<char[]>(k_block));
            used_ = 0;
        }
        char* at = blocks_.back().get() + used_;
        if (!s.empty()) std::memcpy(at, s.data(), s.size());
        used_ += s.size();
        return {at, s.size()};
    }

  private:
    static constexpr std::size_t k_block = 1 << 20;
    std::vector<std::unique_ptr<char[]>> blocks_, big_;
    std::size_t used_ = 0;
};

std::size_t name_hash(std::string_view name) noexcept {
    return std::hash<std::string_view>()(name);
}

// Item names to dense ids (open addressing; one probe sequence per lookup, no node per name),
// each name's hash given (name_hash).
class NameTable {
  public:
    std::uint32_t id(std::string_view name, std::size_t h) {
        if ((names_.size() + 1) * 2 > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = h & mask;; at = (at + 1) & mask) {
            const std::uint32_t slot = slots_[at];
            if (slot == 0) {
                names_.push_back(name);
                hashes_.push_back(h);
                slots_[at] = static_cast<std::uint32_t>(names_.size());
                return slot_id(slots_[at]);
            }
            if (hashes_[slot - 1] == h && names_[slot - 1] == name) return slot - 1;
        }
    }
    // The id of a name already in the table, or nullopt.
    std::optional<std::uint32_t> find(std::string_view name, std::size_t h) const {
        if (slots_.empty()) return std::nullopt;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = h & mask;; at = (at + 1) & mask) {
            const std::uint32_t slot = slots_[at];
            if (slot == 0) return std::nullopt;
            if (hashes_[slot - 1] == h && names_[slot - 1] == name) return slot - 1;
        }
    }
    std::string_view name(std::uint32_t id) const noexcept { return names_[id]; }
    std::size_t size() const noexcept { return names_.size(); }

  private:
    static std::uint32_t slot_id(std::uint32_t slot) noexcept { return slot - 1; }
    void grow() {
        std::vector<std::uint32_t> slots(std::max<std::size_t>(64, slots_.size() * 2), 0);
        const std::size_t mask = slots.size() - 1;
        for (std::size_t id = 0; id < names_.size(); ++id) {
            std::size_t at = hashes_[id] & mask;
            while (slots[at] != 0) at = (at + 1) & mask;
            slots[at] = static_cast<std::uint32_t>(id + 1);
        }
        slots_.swap(slots);
    }

    std::vector<std::string_view> names_; // the callers', which stay where they are
    std::vector<std::size_t> hashes_;
    std::vector<std::uint32_t> slots_; // 0: empty, else id + 1
};

// One file's side of a streamed diff: its head and tail, the name, its hash and the byte span of
// every item, and the items kept for a node-by-node comparison.
struct Side {
    std::shared_ptr<const Source> source;
    StableStrings copies; // names that are not the file's bytes
    std::optional<Document> head, tail;
    std::vector<std::string_view> names;
    std::vector<std::size_t> hashes;
    std::vector<Span> spans;
    std::vector<std::uint8_t> keep; // by item: compare it node by node
    std::unordered_map<std::size_t, std::pair<Document, NodeId>> kept;
    Findings findings;

    // A name that stays valid for the diff: a view of the file's bytes as it is (the source is
    // held), else a copy.
    std::string_view stable(std::string_view name) {
        const std::string_view bytes = source->view();
        if (name.empty() ||
            (std::less_equal<>()(bytes.data(), name.data()) &&
             std::less_equal<>()(name.data() + name.size(), bytes.data() + bytes.size())))
            return name;
        return copies.keep(name);
    }

    // Reads the file part by part. The first read indexes it (and keeps head and tail); a later
    // one keeps the items marked in `keep`.
    Findings read(const FormatInfo& format, bool index) {
        struct Consumer : Parts {
            Side& side;
            bool index;
            Consumer(Side& s, bool i) : side(s), index(i) {}
            Result<void> head(Document& doc, std::uint64_t) override {
                if (index) side.head.emplace(doc);
                return {};
            }
            Result<void> item(Document& doc, NodeId item, std::uint64_t i) override {
                if (index) {
                    const std::string_view name = side.stable(doc.name(item));
                    side.names.push_back(name);
                    side.hashes.push_back(name_hash(name));
                    side.spans.push_back(doc.node(item).span);
                } else if (i < side.keep.size() && side.keep[i]) {
                    side.kept.emplace(static_cast<std::size_t>(i),
                                      std::pair<Document, NodeId>(doc, item));
                }
                return {};
            }
            Result<void> tail(Document& doc) override {
                if (index) side.tail.emplace(doc);
                return {};
            }
            // The index needs each item's name and span; a later read the items it keeps.
            bool wants_children(std::uint64_t i) override {
                return !index && i < side.keep.size() && side.keep[i];
            }
        } consumer(*this, index);
        return format.stream(source, consumer).findings; // the consumer never fails
    }
};

} // namespace

Result<StreamedDiff> diff_streamed(const FormatInfo& format, std::shared_ptr<const Source> a,
                                   std::shared_ptr<const Source> b, const DiffOptions& options,
                                   const std::function<void(const Change&)>& emit) {
    if (!format.stream)
        return make_error(ErrorCode::bad_usage,
                          std::string(format.name) + " files are not read part by part");
    if (options.order)
        return make_error(ErrorCode::bad_usage, "a streamed diff does not report order changes");
    StreamedDiff result;
    Side sa, sb;
    sa.source = std::move(a);
    sb.source = std::move(b);

    // 1. Index both files, side by side.
    alongside([&] { sa.findings = sa.read(format, true); },
              [&] { sb.findings = sb.read(format, true); });
    result.a_findings = std::move(sa.findings);
    result.b_findings = std::move(sb.findings);
    if (result.a_findings.has_errors() || result.b_findings.has_errors()) return result;
    if (!sa.head || !sb.head || !sa.tail || !sb.tail)
        return make_error(ErrorCode::internal, "a part-by-part read left out a part");

    // 2. Match: the k-th item named n in a with the k-th named n in b. Where both files begin
    // with the same names (two states of one save: all of them), that is item i with item i;
    // after the first item added, removed or renamed, the k-th named n in a's rest with the k-th
    // named n in b's rest (the common beginning holds as many items of each name on both sides,
    // so that is the k-th of the whole files), b's rest grouped by name (by_name[start[n] + k]).
    // An item whose bytes equal its match's (same format version: the same bytes read by the
    // same rules) is done; the others are kept.
    constexpr std::uint32_t k_none = ~0u;
    const std::size_t na = sa.names.size(), nb = sb.names.size();
    std::size_t common = 0;
    while (common < na && common < nb && sa.hashes[common] == sb.hashes[common] &&
           sa.names[common] == sb.names[common])
        ++common;
    std::vector<std::uint32_t> match(na, k_none);
    for (std::size_t i = 0; i < common; ++i) match[i] = static_cast<std::uint32_t>(i);
    if (common < na && common < nb) {
        NameTable rest; // the names of b's rest
        std::vector<std::uint32_t> id_b(nb - common), occurrence_b(nb - common), count_b;
        for (std::size_t j = common; j < nb; ++j) {
            const std::uint32_t id = rest.id(sb.names[j], sb.hashes[j]);
            if (id >= count_b.size()) count_b.push_back(0);
            id_b[j - common] = id;
            occurrence_b[j - common] = count_b[id]++;
        }
        std::vector<std::uint32_t> start(count_b.size() + 1, 0), by_name(nb - common);
        for (std::size_t n = 0; n < count_b.size(); ++n) start[n + 1] = start[n] + count_b[n];
        for (std::size_t j = 0; j < nb - common; ++j)
            by_name[start[id_b[j]] + occurrence_b[j]] = static_cast<std::uint32_t>(common + j);
        std::vector<std::uint32_t> seen_a(count_b.size(), 0); // a's rest: items of each name
        for (std::size_t i = common; i < na; ++i) {
            const auto id = rest.find(sa.names[i], sa.hashes[i]);
            if (!id) continue;
            const std::uint32_t k = seen_a[*id]++;
            if (k < count_b[*id]) match[i] = by_name[start[*id] + k];
        }
    }
    const bool same_encoding = sa.head->version() == sb.head->version();
    const std::string_view bytes_a = sa.source->view(), bytes_b = sb.source->view();
    sa.keep.assign(na, 1);
    sb.keep.assign(nb, 1);
    bool keep_a = false, keep_b = false;
    for (std::size_t i = 0; i < na; ++i) {
        const std::uint32_t j = match[i];
        if (j == k_none) continue;
        const Span x = sa.spans[i], y = sb.spans[j];
        if (same_encoding && x.valid() && y.valid() && x.length == y.length &&
            bytes_a.substr(x.offset, x.length) == bytes_b.substr(y.offset, y.length))
            sa.keep[i] = sb.keep[j] = 0;
    }
    std::size_t kept_a = 0, kept_b = 0;
    for (std::uint8_t k : sa.keep) kept_a += k;
    for (std::uint8_t k : sb.keep) kept_b += k;
    keep_a = kept_a != 0;
    keep_b = kept_b != 0;
    // Kept items cost more memory than the whole tree would: when many differ (two versions of a
    // save: every item), the whole-tree diff is the better way.
    const std::size_t limit_a = std::max<std::size_t>(options.max_kept_items, sa.keep.size() / 16);
    const std::size_t limit_b = std::max<std::size_t>(options.max_kept_items, sb.keep.size() / 16);
    if (kept_a > limit_a || kept_b > limit_b) {
        result.declined = true;
        return result;
    }

    // 3. Read again, side by side, keeping the items that differ.
    Findings again_a, again_b;
    alongside(
        [&] {
            if (keep_a) again_a = sa.read(format, false);
        },
        [&] {
            if (keep_b) again_b = sb.read(format, false);
        });
    if (again_a.has_errors() || again_b.has_errors())
        return make_error(ErrorCode::io_error, "a file changed while it was compared");

    // 4. The changes, in the order of the whole-tree diff: the head (version, metadata), the
    // list's items in a's order, then b's added items, then the tail.
    Differ(*sa.head, *sb.head, options, emit).run();
    NodePath list_path;
    {
        // The list's name: the last child of the head's root.
        const Document& h = *sa.head;
        const NodeId list = h.last_child(h.root());
        if (list == k_no_node) return make_error(ErrorCode::internal, "the head part has no list");
        list_path.name(h.name(list));
    }
    // The path step of an item: [name=...] when its name is unique (either side), else its index.
    auto step = [&](std::string_view name, std::size_t count, std::size_t index) {
        NodePath p = list_path;
        if (!name.empty() && count == 1) {
            p.name_match(name);
            p.steps.back().position = index;
        } else {
            p.index(index);
            p.steps.back().known_name = name;
        }
        return p;
    };
    // How many items each file has of the names of the items reported (a path names an item by
    // its name when it is the only one of it on either side).
    NameTable reported;
    for (std::size_t i = 0; i < na; ++i)
        if (sa.keep[i]) reported.id(sa.names[i], sa.hashes[i]);
    for (std::size_t j = 0; j < nb; ++j)
        if (sb.keep[j]) reported.id(sb.names[j], sb.hashes[j]);
    std::vector<std::size_t> count_a(reported.size(), 0), count_b(reported.size(), 0);
    for (std::size_t i = 0; i < na; ++i)
        if (auto id = reported.find(sa.names[i], sa.hashes[i])) ++count_a[*id];
    for (std::size_t j = 0; j < nb; ++j)
        if (auto id = reported.find(sb.names[j], sb.hashes[j])) ++count_b[*id];
    auto count_of = [&](const std::vector<std::size_t>& counts, const Side& side, std::size_t i) {
        return counts[*reported.find(side.names[i], side.hashes[i])];
    };
    for (std::size_t i = 0; i < na; ++i) {
        if (!sa.keep[i]) continue;
        auto& [doc_a, item_a] = sa.kept.at(i);
        const std::string_view name = sa.names[i];
        const std::uint32_t j = match[i];
        if (j == k_none) {
            Differ(doc_a, doc_a, options, emit)
                .item(step(name, count_of(count_a, sa, i), i), Change::Op::remove, item_a,
                      k_no_node);
            continue;
        }
        auto& [doc_b, item_b] = sb.kept.at(j);
        Differ(doc_a, doc_b, options, emit)
            .item(step(name, std::max(count_of(count_a, sa, i), count_of(count_b, sb, j)), j),
                  Change::Op::change, item_a, item_b);
    }
    std::vector<std::uint8_t> matched(nb, 0);
    for (std::uint32_t j : match)
        if (j != k_none) matched[j] = 1;
    for (std::size_t j = 0; j < nb; ++j) {
        if (matched[j]) continue;
        auto& [doc_b, item_b] = sb.kept.at(j);
        Differ(doc_b, doc_b, options, emit)
            .item(step(sb.names[j], count_of(count_b, sb, j), j), Change::Op::add, k_no_node,
                  item_b);
    }
    Differ(*sa.tail, *sb.tail, options, emit).run_children();
    return result;
}

bool is_derived(const Document& doc, NodeId parent, NodeId child, const NodePath& path) noexcept {
    const auto& s = path.steps;
    switch (doc.format()) {
    case FormatId::spark_save: // formats/README.md §1.5: the v4 CRC-32 trailer
    case FormatId::gmsv:       // formats/README.md §5: the CRC-32 of the data section
        return parent == doc.root() && s.size() == 1 && step_is(s[0], "checksum");
    case FormatId::tess_world: // formats/README.md §4.1: the header's sizes, CRC-32 and counts
        return s.size() == 2 && step_is(s[0], "header") &&
               (step_is(s[1], "bodySize") || step_is(s[1], "checksum") ||
                step_is(s[1], "fieldCount") || step_is(s[1], "chunkCount"));
    case FormatId::text_archive: { // formats/README.md §2: the counts of a map's pairs
        const std::string_view tag = doc.tag(parent), name = doc.name(child);
        return (tag == "UnorderedMap" && name == "nbElements") ||
               (tag == "SaveData" && name == "nbValue");
    }
    case FormatId::spark_kv:
        return false;
    }
    return false;
}

bool values_equal(std::string_view a, std::string_view b, double epsilon) noexcept {
    if (a == b) return true;
    double x, y;
    if (!as_number(a, x) || !as_number(b, y)) return false;
    return std::fabs(x - y) <= epsilon;
}

Result<void> diff(const Document& a, const Document& b, const DiffOptions& options,
                  const std::function<void(const Change&)>& emit) {
    if (a.format() != b.format())
        return make_error(ErrorCode::bad_usage,
                          "cannot compare a " + std::string(format_name(a.format())) + " with a " +
                              std::string(format_name(b.format())));
    Differ(a, b, options, emit).run();
    return {};
}

bool tag_changed(const Change& c) noexcept {
    return c.old_node != k_no_node && c.new_node != k_no_node &&
           c.old_doc->tag(c.old_node) != c.new_doc->tag(c.new_node);
}

void DiffStat::add(const Change& c) {
    ++count_;
    const auto& s = c.path.steps;
    const bool in_items = !items_.empty() && !s.empty() && s[0].text == items_;
    std::string group;
    if (in_items && s.size() >= 3 && s[2].kind == PathStep::Kind::name) {
        group = display(s[2].text);
    } else if (in_items && s.size() == 2) {
        group = items_;
    } else {
        NodePath first;
        if (!s.empty()) first.steps.push_back(s[0]);
        group = first.str();
    }
    const auto op = static_cast<std::size_t>(c.op);
    ++groups_[group][op];
    ++totals_[op];
}

SPARKSAVE_END_NAMESPACE
