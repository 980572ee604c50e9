// The structural diff: one pass over both trees, hash matching of children, no quadratic step.
#include "sparksave/diff.hpp"

#include "sparksave/column.hpp"
#include "sparksave/format.hpp"

#include <charconv>
#include <cmath>
#include <unordered_map>

namespace sparksave {

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
          leaves_only_(has_columns(a) || has_columns(b)) {}

    void run() {
        if (a_.version() != b_.version()) {
            Change c;
            c.op = Change::Op::change;
            c.path.name("version");
            c.old_text = std::to_string(a_.version());
            c.new_text = std::to_string(b_.version());
            if (!ignored(c.path)) emit_(c);
        }
        children(a_.root(), b_.root());
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
        emit_(c);
    }

    // Identical source bytes read by the same rules make identical subtrees: skip them.
    // A column's values mean what its type says, and the type may come from elsewhere in the file
    // (a tess descriptor): identical bytes under a container are not identical values there.
    static bool has_columns(const Document& d) noexcept {
        for (std::size_t i = 0; i < d.node_count(); ++i)
            if (d.node(static_cast<NodeId>(i)).kind == NodeKind::column) return true;
        return false;
    }

    bool same_bytes(NodeId na, NodeId nb) const {
        if (!same_encoding_) return false;
        const Node& x = a_.node(na);
        if (leaves_only_ && (x.kind == NodeKind::object || x.kind == NodeKind::list)) return false;
        if (x.kind == NodeKind::column && column_type(a_, na) != column_type(b_, nb)) return false;
        const Span& sa = a_.node(na).span;
        const Span& sb = b_.node(nb).span;
        if (!sa.valid() || !sb.valid() || sa.length != sb.length) return false;
        return a_.source_bytes().substr(sa.offset, sa.length) ==
               b_.source_bytes().substr(sb.offset, sb.length);
    }

    void compare(NodeId na, NodeId nb) {
        if (ignored(path_)) return;
        if (same_bytes(na, nb)) return;
        const Node& x = a_.node(na);
        const Node& y = b_.node(nb);
        const bool cx = x.kind == NodeKind::object || x.kind == NodeKind::list;
        const bool cy = y.kind == NodeKind::object || y.kind == NodeKind::list;
        if (cx != cy || a_.tag(na) != b_.tag(nb)) {
            emit(Change::Op::change, na, nb);
            return;
        }
        if (x.kind == NodeKind::column && y.kind == NodeKind::column) {
            columns(na, nb);
            return;
        }
        if (!cx) {
            const bool scalar = x.kind == NodeKind::scalar && y.kind == NodeKind::scalar;
            const bool numeric = scalar && !declared_string(x) && !declared_string(y);
            const bool equal = numeric ? values_equal(a_.value(na), b_.value(nb), o_.epsilon)
                                       : a_.value(na) == b_.value(nb);
            if (!equal || x.kind != y.kind) emit(Change::Op::change, na, nb);
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
                emit_(c);
            }
            path_.steps.pop_back();
        }
    }

    // A value its format types as a string (a text archive `string` attribute, FORMATS.md 2:
    // typed values carry their type name as the tag) is text, so `007` and `7` differ. Untyped
    // values (spark_save's, all text) compare as numbers when both read as numbers.
    static bool declared_string(const Node& n) noexcept {
        return n.type == ValueType::string && n.tag != 0;
    }

    // How a child is found again: by name (and which occurrence of it), or by position.
    struct Key {
        std::string_view name;
        std::size_t occurrence;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const noexcept {
            return std::hash<std::string_view>()(k.name) * 31 + k.occurrence;
        }
    };

    static bool positional(const Document& d, NodeId parent) {
        if (d.node(parent).kind != NodeKind::list) return false;
        for (NodeId c : d.children(parent))
            if (!d.name(c).empty()) return false;
        return true;
    }

    static std::vector<NodeId> list(const Document& d, NodeId parent) {
        std::vector<NodeId> out;
        for (NodeId c : d.children(parent)) out.push_back(c);
        return out;
    }

    // Keys of the children: (name, k) for the k-th child of that name.
    static std::vector<Key> keys(const Document& d, const std::vector<NodeId>& kids) {
        std::vector<Key> out;
        out.reserve(kids.size());
        std::unordered_map<std::string_view, std::size_t> seen;
        const bool small = kids.size() <= 16;
        for (std::size_t i = 0; i < kids.size(); ++i) {
            std::string_view name = d.name(kids[i]);
            std::size_t k = 0;
            if (small) {
                for (std::size_t j = 0; j < i; ++j) k += d.name(kids[j]) == name;
            } else {
                k = seen[name]++;
            }
            out.push_back({name, k});
        }
        return out;
    }

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
    }

    void children(NodeId pa, NodeId pb) {
        std::vector<NodeId> ka = list(a_, pa), kb = list(b_, pb);
        if (positional(a_, pa) && positional(b_, pb)) {
            const std::size_t common = std::min(ka.size(), kb.size());
            for (std::size_t i = 0; i < std::max(ka.size(), kb.size()); ++i) {
                path_.index(i);
                if (i < common)
                    compare(ka[i], kb[i]);
                else if (i < ka.size())
                    emit(Change::Op::remove, ka[i], k_no_node);
                else
                    emit(Change::Op::add, k_no_node, kb[i]);
                path_.steps.pop_back();
            }
            return;
        }
        std::vector<Key> keys_a = keys(a_, ka), keys_b = keys(b_, kb);
        // Where each child of b is, by key; and how many children of each name either side has.
        std::unordered_map<Key, std::size_t, KeyHash> where_b;
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
                emit(Change::Op::remove, ka[i], k_no_node);
                path_.steps.pop_back();
                continue;
            }
            const std::size_t j = match[i];
            push_step(b_, pb, kb[j], j, keys_b[j],
                      std::max(count_a[keys_a[i].name], count_b[keys_b[j].name]));
            compare(ka[i], kb[j]);
            path_.steps.pop_back();
        }
        for (std::size_t j = 0; j < kb.size(); ++j) {
            if (matched_b[j]) continue;
            push_step(b_, pb, kb[j], j, keys_b[j], count_b[keys_b[j].name]);
            emit(Change::Op::add, k_no_node, kb[j]);
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

} // namespace

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

} // namespace sparksave
