// The three-way merge (merge.hpp): one walk over BASE, OURS and THEIRS matched as diff matches
// them, building the result in a copy of OURS; then the format's writer and the checks.
#include "sparksave/merge.hpp"

#include "child_match.hpp"

#include "sparksave/column.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>

SPARKSAVE_BEGIN_NAMESPACE

std::string_view conflict_kind_text(MergeConflict::Kind kind) noexcept {
    switch (kind) {
    case MergeConflict::Kind::value:
        return "changed on both sides";
    case MergeConflict::Kind::removed_changed:
        return "removed on one side, changed on the other";
    case MergeConflict::Kind::added_both:
        return "added on both sides, differently";
    case MergeConflict::Kind::order:
        return "ordered differently on the two sides";
    case MergeConflict::Kind::items:
        return "items added or removed on both sides";
    case MergeConflict::Kind::repeated:
        return "children of a repeated name added or removed";
    }
    return "changed on both sides";
}

namespace {

using Kind = MergeConflict::Kind;

class Merger {
  public:
    Merger(const Document& b, const Document& o, const Document& t, Document& r)
        : b_(b), o_(o), t_(t), r_(r),
          leaves_only_(match::has_columns(b) || match::has_columns(o) || match::has_columns(t)) {}

    void run() {
        stack_.push_back(r_.root());
        children(b_.root(), o_.root(), t_.root(), r_.root());
    }

    std::vector<MergeConflict> conflicts;
    std::vector<NodeId> mixed; // result nodes holding changes of both sides, in order
    std::size_t from_theirs = 0;

  private:
    // --- equality: the same subtree, order included (an order change is a change to merge) ---

    bool equal(const Document& x, NodeId nx, const Document& y, NodeId ny, NodePath& path) const {
        if (match::same_bytes(x, nx, y, ny, leaves_only_)) return true;
        const Node& a = x.node(nx);
        const Node& b = y.node(ny);
        if (a.kind != b.kind || x.tag(nx) != y.tag(ny)) return false;
        if (a.kind == NodeKind::column)
            return column_type(x, nx) == column_type(y, ny) && x.value(nx) == y.value(ny);
        if (!match::is_container(a)) return match::same_leaf(x, nx, y, ny, 0);
        const std::vector<NodeId> kx = match::children(x, nx), ky = match::children(y, ny);
        if (kx.size() != ky.size()) return false;
        const std::vector<match::Key> keys_x = match::keys(x, kx), keys_y = match::keys(y, ky);
        for (std::size_t i = 0; i < kx.size(); ++i) {
            if (!(keys_x[i] == keys_y[i])) return false;
            push(path, x, nx, kx[i], i, keys_x[i]);
            const bool same = is_derived(x, nx, kx[i], path) || equal(x, kx[i], y, ky[i], path);
            path.steps.pop_back();
            if (!same) return false;
        }
        return true;
    }

    bool equal(const Document& x, NodeId nx, const Document& y, NodeId ny) {
        return equal(x, nx, y, ny, path_);
    }

    // The path step of a child, as diff prints it: a name in an object (an index for a later
    // child of a repeated name or an unnamed one); in a list, [name=...] for a named item,
    // else the index.
    static void push(NodePath& path, const Document& d, NodeId parent, NodeId child,
                     std::size_t index, const match::Key& key) {
        if (d.node(parent).kind != NodeKind::list) {
            if (key.occurrence == 0 && !key.name.empty())
                path.name(d.name(child));
            else
                path.index(index);
        } else if (!key.name.empty() && key.occurrence == 0) {
            path.name_match(key.name);
        } else {
            path.index(index);
        }
    }

    // --- the result ---

    // A change of THEIRS went into the result: the containers it is in no longer hold the bytes
    // they were read from.
    void touched() {
        ++from_theirs;
        for (NodeId id : stack_) r_.node(id).span = Span{};
    }

    // Both sides' changes meet under the current node: remembered for the format's commit
    // (format.hpp ContentModel::commit, a GMSV JSON component re-encoded from its members).
    void meet() {
        if (stack_.size() > 3) mixed.push_back(stack_[3]);
    }

    NodeId copy(const Document& src, NodeId n) {
        const Node& s = src.node(n);
        const Str name = r_.text(src.name(n));
        const Str value = r_.text(src.value(n));
        const NodeId id = r_.create(s.kind, name, value, Span{}, s.type);
        r_.node(id).flags = s.flags;
        r_.node(id).tag = s.tag == 0 ? 0 : r_.tag_id(src.tag(n));
        NodeId prev = k_no_node;
        for (NodeId c : src.children(n)) {
            const NodeId cc = copy(src, c);
            if (prev == k_no_node)
                r_.node(id).first_child = cc;
            else
                r_.node(prev).next_sibling = cc;
            prev = cc;
        }
        return id;
    }

    void relink(NodeId parent, const std::vector<NodeId>& kids) {
        r_.node(parent).first_child = kids.empty() ? k_no_node : kids.front();
        for (std::size_t i = 0; i < kids.size(); ++i)
            r_.node(kids[i]).next_sibling = i + 1 < kids.size() ? kids[i + 1] : k_no_node;
    }

    MergeConflict::Side side(const Document& d, NodeId n) const { return {&d, n, {}}; }

    void conflict(Kind kind, NodeId b, NodeId o, NodeId t) {
        MergeConflict c;
        c.kind = kind;
        c.path = path_;
        c.base = b == k_no_node ? MergeConflict::Side{} : side(b_, b);
        c.ours = o == k_no_node ? MergeConflict::Side{} : side(o_, o);
        c.theirs = t == k_no_node ? MergeConflict::Side{} : side(t_, t);
        conflicts.push_back(std::move(c));
    }

    // One child present on the three sides; `o` is also its id in the result (a copy of OURS).
    // Returns the result's node for it.
    NodeId node(NodeId b, NodeId o, NodeId t) {
        if (equal(o_, o, t_, t)) return o;
        if (equal(b_, b, o_, o)) {
            touched();
            return copy(t_, t);
        }
        if (equal(b_, b, t_, t)) return o;
        const Node& nb = b_.node(b);
        const Node& no = o_.node(o);
        const Node& nt = t_.node(t);
        const bool same_shape = nb.kind == no.kind && no.kind == nt.kind &&
                                b_.tag(b) == o_.tag(o) && o_.tag(o) == t_.tag(t);
        if (same_shape && match::is_container(no)) {
            stack_.push_back(o);
            children(b, o, t, o);
            stack_.pop_back();
            return o;
        }
        if (same_shape && no.kind == NodeKind::column && columns(b, o, t)) return o;
        conflict(Kind::value, b, o, t);
        return o;
    }

    // Columns of one type and length: element by element (diff's column paths, col[i]).
    bool columns(NodeId b, NodeId o, NodeId t) {
        const ColumnType type = column_type(o_, o);
        const std::string_view vb = b_.value(b), vo = o_.value(o), vt = t_.value(t);
        if (!type.valid() || column_type(b_, b) != type || column_type(t_, t) != type ||
            vb.size() != vo.size() || vo.size() != vt.size())
            return false;
        const std::size_t w = type.width;
        std::string merged(vo);
        bool changed = false;
        for (std::size_t i = 0; i < vo.size() / w; ++i) {
            const std::string_view eb = vb.substr(i * w, w), eo = vo.substr(i * w, w),
                                   et = vt.substr(i * w, w);
            if (eo == et || eb == et) continue;
            if (eb == eo) {
                merged.replace(i * w, w, et);
                changed = true;
                continue;
            }
            MergeConflict c;
            c.kind = Kind::value;
            c.path = path_;
            c.path.index(i);
            for (auto [s, d, bytes] : {std::tuple{&c.base, &b_, vb}, std::tuple{&c.ours, &o_, vo},
                                       std::tuple{&c.theirs, &t_, vt}}) {
                s->doc = d;
                append_column_element(s->text, type, bytes, i);
            }
            conflicts.push_back(std::move(c));
        }
        if (changed) {
            const Str value = r_.text(merged);
            r_.node(o).value = value;
            r_.node(o).span = Span{};
            stack_.push_back(o);
            touched();
            meet();
            stack_.pop_back();
        }
        return true;
    }

    // The children of a node of each side (same kind and tag), merged into `r`'s.
    void children(NodeId b, NodeId o, NodeId t, NodeId r) {
        meet();
        const std::vector<NodeId> kb = match::children(b_, b), ko = match::children(o_, o),
                                  kt = match::children(t_, t);
        if (match::positional(b_, b) && match::positional(o_, o) && match::positional(t_, t)) {
            if (kb.size() != ko.size() || ko.size() != kt.size()) {
                conflict(Kind::items, b, o, t);
                return;
            }
            std::vector<NodeId> out;
            for (std::size_t i = 0; i < ko.size(); ++i) {
                path_.index(i);
                out.push_back(node(kb[i], ko[i], kt[i]));
                path_.steps.pop_back();
            }
            relink(r, out);
            return;
        }
        const std::vector<match::Key> keys_b = match::keys(b_, kb), keys_o = match::keys(o_, ko),
                                      keys_t = match::keys(t_, kt);
        using Where = std::unordered_map<match::Key, std::size_t, match::KeyHash>;
        auto index = [](const std::vector<match::Key>& keys) {
            Where w;
            w.reserve(keys.size());
            for (std::size_t i = 0; i < keys.size(); ++i) w.emplace(keys[i], i);
            return w;
        };
        const Where in_b = index(keys_b), in_o = index(keys_o), in_t = index(keys_t);
        auto find = [](const Where& w, const match::Key& k) {
            auto it = w.find(k);
            return it == w.end() ? std::size_t(-1) : it->second;
        };
        constexpr std::size_t k_none = std::size_t(-1);

        // Order: the children both sides have, in OURS' order, must be in THEIRS' order too,
        // unless only OURS moved them (THEIRS kept BASE's order of them).
        {
            std::vector<std::size_t> t_positions;
            for (std::size_t i = 0; i < ko.size(); ++i) {
                const std::size_t j = find(in_t, keys_o[i]);
                if (j == k_none) continue;
                t_positions.push_back(j);
            }
            if (!std::is_sorted(t_positions.begin(), t_positions.end())) {
                // Did THEIRS move any child of BASE it kept? (its order of BASE's children)
                std::vector<std::size_t> order;
                for (std::size_t j = 0; j < kt.size(); ++j) {
                    const std::size_t i = find(in_b, keys_t[j]);
                    if (i != k_none) order.push_back(i);
                }
                if (!std::is_sorted(order.begin(), order.end())) {
                    conflict(Kind::order, b, o, t);
                    return;
                }
            }
        }

        // A name that repeats: its children are matched by occurrence, which is no identity once
        // a side has more or fewer of them (the second of two is the first after a removal).
        {
            std::unordered_map<std::string_view, std::array<std::size_t, 3>> counts;
            for (const auto& k : keys_b) ++counts[k.name][0];
            for (const auto& k : keys_o) ++counts[k.name][1];
            for (const auto& k : keys_t) ++counts[k.name][2];
            for (const auto& [name, n] : counts) {
                if (std::max({n[0], n[1], n[2]}) > 1 && (n[0] != n[1] || n[1] != n[2])) {
                    conflict(Kind::repeated, b, o, t);
                    return;
                }
            }
        }

        // A list's items added or removed on both sides (merge.hpp): a conflict unless both
        // sides have the same items.
        if (o_.node(o).kind == NodeKind::list) {
            auto changed_items = [&](const std::vector<match::Key>& keys) {
                if (keys.size() != keys_b.size()) return true;
                for (const auto& k : keys)
                    if (find(in_b, k) == k_none) return true;
                return false;
            };
            if (changed_items(keys_o) && changed_items(keys_t)) {
                bool same = keys_o.size() == keys_t.size();
                for (std::size_t i = 0; same && i < keys_o.size(); ++i)
                    same = find(in_t, keys_o[i]) != k_none;
                if (!same) {
                    conflict(Kind::items, b, o, t);
                    return;
                }
            }
        }

        // THEIRS' additions, each placed after the child of OURS it follows in THEIRS (the
        // nearest earlier child of THEIRS that OURS has), or first.
        std::vector<std::vector<std::size_t>> added_after(ko.size() + 1);
        {
            std::size_t anchor = 0; // 0: first; i + 1: after ko[i]
            for (std::size_t j = 0; j < kt.size(); ++j) {
                const std::size_t i = find(in_o, keys_t[j]);
                if (i != k_none) {
                    anchor = i + 1;
                    continue;
                }
                const std::size_t ib = find(in_b, keys_t[j]);
                push(path_, t_, t, kt[j], j, keys_t[j]);
                if (ib == k_none) {
                    if (!is_derived(t_, t, kt[j], path_)) added_after[anchor].push_back(j);
                } else if (!is_derived(b_, b, kb[ib], path_) && !equal(b_, kb[ib], t_, kt[j])) {
                    // OURS removed it, THEIRS changed it.
                    conflict(Kind::removed_changed, kb[ib], k_no_node, kt[j]);
                }
                path_.steps.pop_back();
            }
        }

        std::vector<NodeId> out;
        out.reserve(ko.size() + kt.size());
        auto add_theirs = [&](std::size_t anchor) {
            for (std::size_t j : added_after[anchor]) {
                touched();
                out.push_back(copy(t_, kt[j]));
            }
        };
        add_theirs(0);
        for (std::size_t i = 0; i < ko.size(); ++i) {
            const std::size_t ib = find(in_b, keys_o[i]), jt = find(in_t, keys_o[i]);
            push(path_, o_, o, ko[i], i, keys_o[i]);
            if (is_derived(o_, o, ko[i], path_)) {
                out.push_back(ko[i]); // the writer recomputes it
            } else if (ib != k_none && jt != k_none) {
                out.push_back(node(kb[ib], ko[i], kt[jt]));
            } else if (ib != k_none) {
                // THEIRS removed it.
                if (equal(b_, kb[ib], o_, ko[i])) {
                    touched();
                } else {
                    conflict(Kind::removed_changed, kb[ib], ko[i], k_no_node);
                    out.push_back(ko[i]);
                }
            } else {
                // Added by OURS (and, maybe, by THEIRS too).
                if (jt != k_none && !equal(o_, ko[i], t_, kt[jt]))
                    conflict(Kind::added_both, k_no_node, ko[i], kt[jt]);
                out.push_back(ko[i]);
            }
            path_.steps.pop_back();
            add_theirs(i + 1);
        }
        relink(r, out);
    }

    const Document& b_;
    const Document& o_;
    const Document& t_;
    Document& r_;
    const bool leaves_only_;
    NodePath path_;
    std::vector<NodeId> stack_; // the result's nodes from the root to the one merged
};

std::string side_versions(const Document& b, const Document& o, const Document& t) {
    return fmt::format("BASE v{}, OURS v{}, THEIRS v{}", b.version(), o.version(), t.version());
}

} // namespace

Result<Merged> merge(const Document& base, const Document& ours, const Document& theirs) {
    const FormatId id = ours.format();
    if (base.format() != id || theirs.format() != id)
        return make_error(ErrorCode::bad_usage,
                          fmt::format("cannot merge saves of different formats (BASE {}, OURS {}, "
                                      "THEIRS {})",
                                      format_name(base.format()), format_name(id),
                                      format_name(theirs.format())));
    if (base.version() != ours.version() || theirs.version() != ours.version())
        return make_error(ErrorCode::bad_usage, "cannot merge saves of different versions (" +
                                                    side_versions(base, ours, theirs) +
                                                    "): migrate them to one version first");
    if (!base.complete() || !ours.complete() || !theirs.complete())
        return make_error(ErrorCode::bad_usage, "cannot merge a save that was not read whole");

    Merged out;
    const FormatInfo& format = format_info(id);
    Document result = ours;
    Merger m(base, ours, theirs, result);
    m.run();
    out.from_theirs = m.from_theirs;
    if (!m.conflicts.empty()) {
        out.conflicts = std::move(m.conflicts);
        return out;
    }
    if (m.from_theirs == 0) { // nothing to take: OURS as it is
        out.bytes = std::string(ours.source_bytes());
        return out;
    }
    // OURS changed nothing THEIRS did not: THEIRS as it is.
    bool ours_unchanged = true;
    DiffOptions all;
    all.order = true;
    if (auto r = diff(base, ours, all, [&](const Change&) { ours_unchanged = false; }); !r)
        return r.error();
    if (ours_unchanged) {
        out.bytes = std::string(theirs.source_bytes());
        return out;
    }

    auto refuse = [&](std::string what) {
        out.unverified = make_error(ErrorCode::bad_value, std::move(what));
        return out;
    };
    // A component holding members of both sides is brought back to what the writer writes.
    if (format.content && format.content->commit && !format.content->by_class) {
        std::vector<NodeId> components;
        const NodeId entities = result.child(result.root(), format.content->entities);
        for (NodeId c : m.mixed)
            if (entities != k_no_node &&
                std::find(components.begin(), components.end(), c) == components.end())
                components.push_back(c);
        if (auto r = format.content->commit(result, components); !r)
            return refuse("the merged save cannot be written: " + r.error().describe());
    }
    auto bytes = format.write(result);
    if (!bytes) return refuse("the merged save cannot be written: " + bytes.error().describe());
    if (auto r = check_result(format, *bytes, ours.version(), ""); !r)
        return refuse("the merged save breaks a rule of " + std::string(format.name) + " v" +
                      std::to_string(ours.version()) + ": " + r.error().describe());
    // What was written must read back as what was merged.
    Parsed back = format.read(std::make_shared<const Source>(*bytes), ReadOptions{false});
    if (const Error* e = back.findings.first_error())
        return refuse("the merged save does not read back: " + e->describe());
    std::string first;
    if (auto r = diff(back.doc, result, DiffOptions{},
                      [&](const Change& c) {
                          if (first.empty()) first = c.path.str();
                      });
        !r)
        return r.error();
    if (!first.empty())
        return refuse("the merged save does not read back as merged: it differs at " + first);
    out.bytes = std::move(*bytes);
    return out;
}

SPARKSAVE_END_NAMESPACE
