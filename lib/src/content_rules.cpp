// Content rules (sparksave/content_rules.hpp): loading and checking rule files (TOML, through
// toml++, used here only and without exceptions: every error has its line:column from the
// node's source_region) and applying a rule set to a save through its format's content model
// (format.hpp ContentModel) after the format's own migration (migrate.hpp).
#include "content_rules_data.hpp"

#include "sparksave/content_rules.hpp"
#include "sparksave/document.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

// toml++ is header-only here (Debian's libtomlplusplus-dev also ships a shared build, which the
// library does not link: nothing of toml++ reaches an engine's link or an installed header).
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#define TOML_ENABLE_FORMATTERS 0
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wextra"
#endif
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h> // toml++ 3.3 (Debian 12, 13) names its header toml.h
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE
namespace content_rules {

namespace {

// --- The rule file's members -----------------------------------------------------------------

// Each op with its members: required and optional (besides `op`).
struct OpSpec {
    std::string_view name;
    Op op;
    std::initializer_list<std::string_view> required;
    std::initializer_list<std::string_view> optional = {};
};
const OpSpec k_ops[] = {
    {"rename-component", Op::rename_component, {"from", "to"}},
    {"rename-property", Op::rename_property, {"component", "from", "to"}},
    {"move-property", Op::move_property, {"property", "from", "to"}},
    {"set-default", Op::set_default, {"component", "property", "value"}},
    {"set-value", Op::set_value, {"component", "property", "value"}},
    {"retype", Op::retype, {"component", "property", "to"}},
    {"map-values", Op::map_values, {"component", "property", "map"}, {"strict"}},
    {"drop-component", Op::drop_component, {"component", "reason"}},
    {"drop-property", Op::drop_property, {"component", "property", "reason"}},
    {"rename-custom", Op::rename_custom, {"from", "to"}},
    {"set-custom", Op::set_custom, {"key", "value"}},
    {"drop-custom", Op::drop_custom, {"key", "reason"}},
};

std::string op_names() {
    std::string out;
    for (const OpSpec& s : k_ops) {
        if (!out.empty()) out += ", ";
        out += s.name;
    }
    return out;
}

std::string where(std::string_view file, const toml::source_region& r) {
    return fmt::format("{}:{}:{}", file, r.begin.line, r.begin.column);
}

Error rule_error(std::string_view file, const toml::source_region& r, std::string_view message) {
    return make_error(ErrorCode::bad_usage, fmt::format("{}: {}", where(file, r), message));
}

std::string_view type_name(const toml::node& n) {
    switch (n.type()) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a float";
    case toml::node_type::boolean:
        return "a boolean";
    default:
        return "a date or time";
    }
}

// Text of a rule file or a save in a message: quoted, escaped (escape.hpp display).
std::string q(std::string_view s) {
    return display(s, true);
}

// One table of the rule file (the root, `module`, a [[step]], a [[test]]): its members checked
// against the ones it may have, read with their types.
class Members {
  public:
    Members(std::string_view file, const toml::table& table, std::string what)
        : file_(file), table_(table), what_(std::move(what)) {}

    // The first member not in `allowed`, as an error.
    std::optional<Error> unknown(std::initializer_list<std::string_view> a,
                                 std::initializer_list<std::string_view> b = {}) const {
        for (auto&& [key, value] : table_) {
            const std::string_view k = key.str();
            if (std::find(a.begin(), a.end(), k) == a.end() &&
                std::find(b.begin(), b.end(), k) == b.end())
                return rule_error(file_, key.source(),
                                  fmt::format("{}: unknown member {}", what_, q(k)));
        }
        return std::nullopt;
    }

    const toml::node* get(std::string_view name) const { return table_.get(name); }

    Error missing(std::string_view name) const {
        return rule_error(file_, table_.source(),
                          fmt::format("{}: expected the member {}", what_, q(name)));
    }
    Error wrong(std::string_view name, const toml::node& n, std::string_view expected) const {
        return rule_error(file_, n.source(),
                          fmt::format("{}: expected {} to be {}, found {}", what_, q(name),
                                      expected, type_name(n)));
    }
    Error bad(const toml::node& n, std::string_view message) const {
        return rule_error(file_, n.source(), fmt::format("{}: {}", what_, message));
    }

    // A string member; `nonempty`: a name, which cannot be empty.
    Result<std::optional<std::string>> string(std::string_view name, bool required,
                                              bool nonempty = true) const {
        const toml::node* n = get(name);
        if (!n) {
            if (required) return missing(name);
            return std::optional<std::string>();
        }
        const auto* s = n->as_string();
        if (!s) return wrong(name, *n, "a string");
        if (nonempty && s->get().empty())
            return bad(*n, fmt::format("expected {} to be a name, found an empty string", q(name)));
        return std::optional<std::string>(s->get());
    }

    const std::string& what() const { return what_; }
    const toml::table& table() const { return table_; }

  private:
    std::string_view file_;
    const toml::table& table_;
    std::string what_;
};

// Reads a required string member into `out`, or returns its error.
#define SPARKSAVE_MEMBER(members, name, out, ...)                                                  \
    do {                                                                                           \
        auto got_ = (members).string(name, true __VA_OPT__(, ) __VA_ARGS__);                       \
        if (!got_) return std::move(got_).error();                                                 \
        (out) = std::move(**got_);                                                                 \
    } while (0)

Result<std::uint32_t> version_member(const Members& m, std::string_view name) {
    const toml::node* n = m.get(name);
    if (!n) return m.missing(name);
    const auto* i = n->as_integer();
    if (!i) return m.wrong(name, *n, "an integer");
    const std::int64_t v = i->get();
    if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
        return m.bad(*n, fmt::format("expected {} to be a version from 0 to {}, found {}", q(name),
                                     std::numeric_limits<std::uint32_t>::max(), v));
    return static_cast<std::uint32_t>(v);
}

Result<Step> parse_step(std::string_view file, const toml::table& t, std::size_t index,
                        const std::optional<ModuleScope>& module) {
    Members m(file, t, fmt::format("step {}", index));
    std::string op;
    SPARKSAVE_MEMBER(m, "op", op);
    const OpSpec* spec = nullptr;
    for (const OpSpec& s : k_ops)
        if (s.name == op) spec = &s;
    if (!spec)
        return m.bad(*m.get("op"),
                     fmt::format("unknown op {} (the ops are: {})", q(op), op_names()));
    // A member the op does not have (another op's, or none's), with the op's members.
    for (auto&& [key, value] : t) {
        const std::string_view k = key.str();
        const auto has = [k](std::initializer_list<std::string_view> list) {
            return std::find(list.begin(), list.end(), k) != list.end();
        };
        if (k == "op" || has(spec->required) || has(spec->optional)) continue;
        std::string members;
        for (std::string_view r : spec->required)
            members += (members.empty() ? "" : ", ") + std::string(r);
        for (std::string_view o : spec->optional) members += ", " + std::string(o) + " (optional)";
        return rule_error(file, key.source(),
                          fmt::format("step {}: unknown member {} for {} (its members: {})", index,
                                      q(k), op, members));
    }
    Step s;
    s.op = spec->op;
    s.op_name = spec->name;
    for (std::string_view r : spec->required) {
        if (r == "map") continue;
        std::string* out = r == "component"  ? &s.component
                           : r == "property" ? &s.property
                           : r == "from"     ? &s.from
                           : r == "to"       ? &s.to
                           : r == "key"      ? &s.key
                           : r == "value"    ? &s.value
                                             : &s.reason;
        const bool name = r != "value";
        SPARKSAVE_MEMBER(m, r, *out, name);
    }
    const auto same = [&](std::string_view a, std::string_view b, std::string_view what) {
        return m.bad(
            t, fmt::format("{}: {} and {} are the same ({}): nothing to do", op, a, b, q(what)));
    };
    switch (s.op) {
    case Op::rename_component:
    case Op::rename_property:
    case Op::rename_custom:
    case Op::move_property:
        if (s.from == s.to) return same("from", "to", s.from);
        break;
    case Op::retype:
        if (s.to == "int")
            s.type = Retype::integer;
        else if (s.to == "float")
            s.type = Retype::floating;
        else if (s.to == "bool")
            s.type = Retype::boolean;
        else
            return m.bad(
                *m.get("to"),
                fmt::format("retype: expected \"to\" to be int, float or bool, found {}", q(s.to)));
        s.to.clear();
        break;
    case Op::map_values: {
        const toml::node* n = m.get("map");
        if (!n) return m.missing("map");
        const auto* map = n->as_table();
        if (!map) return m.wrong("map", *n, "a table of strings");
        for (auto&& [key, value] : *map) {
            const auto* v = value.as_string();
            if (!v)
                return m.bad(value, fmt::format("map-values: expected the map's value for {} to "
                                                "be a string, found {}",
                                                q(key.str()), type_name(value)));
            s.map.emplace_back(std::string(key.str()), v->get());
        }
        if (s.map.empty()) return m.bad(*n, "map-values: expected a map with at least one pair");
        if (const toml::node* strict = m.get("strict")) {
            const auto* b = strict->as_boolean();
            if (!b) return m.wrong("strict", *strict, "a boolean");
            s.strict = b->get();
        }
        // Without a module, a rule runs on every save every time: each op must be idempotent on
        // its own, and a map that maps its own results again is not.
        if (!module)
            for (const auto& [from, to] : s.map)
                for (const auto& [from2, to2] : s.map)
                    if (to == from2 && to2 != to)
                        return m.bad(*n, fmt::format("map-values in a rule without a module must "
                                                     "be idempotent: {} maps to {}, which the map "
                                                     "maps to {}",
                                                     q(from), q(to), q(to2)));
        break;
    }
    default:
        break;
    }
    if (module &&
        (s.op == Op::rename_custom || s.op == Op::set_custom || s.op == Op::drop_custom)) {
        for (const std::string* k : {&s.key, &s.from, &s.to})
            if (*k == module->key)
                return m.bad(t, fmt::format("{}: {} is the module key, which the rule sets to {} "
                                            "after its steps",
                                            op, q(module->key), module->to));
    }
    return s;
}

Result<Rule> parse_rule(const RuleText& file) {
    toml::parse_result parsed = toml::parse(file.text, file.name);
    if (!parsed) {
        const toml::parse_error& e = parsed.error();
        return rule_error(file.name, e.source(), e.description());
    }
    const toml::table& root = parsed.table();
    Members m(file.name, root, "the rule");
    if (auto e = m.unknown({"id", "summary", "format", "module", "step", "test"})) return *e;
    Rule rule;
    rule.info.file = file.name;
    SPARKSAVE_MEMBER(m, "id", rule.info.id);
    rule.where = where(file.name, m.get("id")->source());
    SPARKSAVE_MEMBER(m, "summary", rule.info.summary, false);
    SPARKSAVE_MEMBER(m, "format", rule.info.format);
    rule.format = format_by_name(rule.info.format);
    if (!rule.format)
        return m.bad(*m.get("format"), fmt::format("unknown format {} (the formats are: {})",
                                                   q(rule.info.format), format_names()));
    if (!rule.format->content)
        return m.bad(*m.get("format"), fmt::format("content rules are not available for this "
                                                   "format ({})",
                                                   rule.info.format));
    if (const toml::node* n = m.get("module")) {
        const auto* t = n->as_table();
        if (!t) return m.wrong("module", *n, "a table");
        if (rule.format->content->custom_state.empty())
            return m.bad(*n, fmt::format("{} has no custom state to hold a module's version: "
                                         "leave \"module\" out",
                                         rule.info.format));
        Members mm(file.name, *t, "module");
        if (auto e = mm.unknown({"key", "from", "to"})) return *e;
        ModuleScope scope;
        SPARKSAVE_MEMBER(mm, "key", scope.key);
        auto from = version_member(mm, "from");
        if (!from) return std::move(from).error();
        auto to = version_member(mm, "to");
        if (!to) return std::move(to).error();
        if (*to <= *from)
            return mm.bad(*mm.get("to"), fmt::format("expected \"to\" above \"from\" ({}), found "
                                                     "{}: a rule moves a module's version up",
                                                     *from, *to));
        scope.from = *from;
        scope.to = *to;
        rule.info.module = std::move(scope);
    }
    if (const toml::node* n = m.get("step")) {
        const auto* steps = n->as_array();
        if (!steps) return m.wrong("step", *n, "an array of tables ([[step]])");
        std::size_t index = 0;
        for (const toml::node& item : *steps) {
            ++index;
            const auto* t = item.as_table();
            if (!t)
                return m.bad(item, fmt::format("step {}: expected a table, found {}", index,
                                               type_name(item)));
            auto step = parse_step(file.name, *t, index, rule.info.module);
            if (!step) return std::move(step).error();
            rule.steps.push_back(std::move(*step));
        }
    }
    if (rule.steps.empty() && !rule.info.module)
        return m.bad(root, "expected at least one [[step]] (a rule without a module and without "
                           "steps does nothing)");
    if (const toml::node* n = m.get("test")) {
        const auto* tests = n->as_array();
        if (!tests) return m.wrong("test", *n, "an array of tables ([[test]])");
        std::size_t index = 0;
        for (const toml::node& item : *tests) {
            ++index;
            const auto* t = item.as_table();
            if (!t)
                return m.bad(item, fmt::format("test {}: expected a table, found {}", index,
                                               type_name(item)));
            Members tm(file.name, *t, fmt::format("test {}", index));
            if (auto e = tm.unknown({"input", "expected"})) return *e;
            std::string input, expected;
            SPARKSAVE_MEMBER(tm, "input", input);
            SPARKSAVE_MEMBER(tm, "expected", expected);
            rule.tests.push_back({file.base / fs::path(input), file.base / fs::path(expected),
                                  where(file.name, t->source())});
        }
    }
    rule.info.steps = rule.steps.size();
    rule.info.tests = rule.tests.size();
    return rule;
}

// --- Applying ---------------------------------------------------------------------------------

NodeId find(const Document& doc, NodeId parent, std::string_view name, NodeKind kind) {
    for (NodeId c : doc.children(parent))
        if (doc.node(c).kind == kind && doc.name(c) == name) return c;
    return k_no_node;
}

// An unsigned decimal version, the whole text.
std::optional<std::uint32_t> parse_version(std::string_view text) {
    std::uint32_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end || text.empty()) return std::nullopt;
    return v;
}

// The text a value takes under `retype` (formats/README.md §1.3: floats as std::to_string writes
// them, 6 fixed decimals; booleans 1/0), or nothing when it does not convert.
std::optional<std::string> convert(std::string_view text, Retype type) {
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    switch (type) {
    case Retype::integer: {
        long long i = 0;
        if (auto [p, ec] = std::from_chars(begin, end, i); ec == std::errc() && p == end)
            return fmt::format("{}", i);
        double d = 0;
        if (auto [p, ec] = std::from_chars(begin, end, d, std::chars_format::general);
            ec == std::errc() && p == end && std::isfinite(d) && d == std::trunc(d) &&
            d >= -9.2e18 && d <= 9.2e18)
            return fmt::format("{}", static_cast<long long>(d));
        return std::nullopt;
    }
    case Retype::floating: {
        float f = 0;
        if (auto [p, ec] = std::from_chars(begin, end, f, std::chars_format::general);
            ec == std::errc() && p == end && std::isfinite(f))
            return fmt::format("{:f}", static_cast<double>(f)); // std::to_string(float)
        return std::nullopt;
    }
    case Retype::boolean:
        if (text == "1" || text == "true") return std::string("1");
        if (text == "0" || text == "false") return std::string("0");
        return std::nullopt;
    case Retype::none:
        break;
    }
    return std::nullopt;
}

std::string_view retype_name(Retype t) {
    return t == Retype::integer ? "an int" : t == Retype::floating ? "a float" : "a bool (1/0)";
}

// One rule's steps over one document.
class StepRunner {
  public:
    StepRunner(Document& doc, const ContentModel& model, const Rule& rule)
        : doc_(doc), model_(model), rule_(rule) {
        entities_ = doc.child(doc.root(), model.entities);
        if (!model.custom_state.empty()) custom_ = doc.child(doc.root(), model.custom_state);
    }

    Result<void> run(const Step& s, std::size_t index, StepCount& count) {
        step_ = &s;
        index_ = index;
        count_ = &count;
        names_.clear();
        switch (s.op) {
        case Op::rename_custom:
        case Op::set_custom:
        case Op::drop_custom:
            return custom(s);
        default:
            break;
        }
        if (entities_ == k_no_node) return {};
        std::uint64_t i = 0;
        for (NodeId entity = doc_.node(entities_).first_child; entity != k_no_node; ++i) {
            const NodeId next = doc_.node(entity).next_sibling;
            const std::uint64_t before = count.components + count.properties;
            if (auto r = on_entity(s, entity, i); !r) return r;
            if (count.components + count.properties != before) ++count.entities;
            entity = next;
        }
        return {};
    }

  private:
    // A text of the rule (a Step's string, which outlives the run) in the arena: one copy per
    // step, however many nodes get it.
    Str text(std::string_view s) {
        for (auto& [t, str] : names_)
            if (t == s) return str;
        names_.emplace_back(s, doc_.text(s));
        return names_.back().second;
    }

    std::string path(std::uint64_t entity, std::string_view component = {},
                     std::string_view property = {}) const {
        std::string p(model_.entities);
        append_path_index(p, entity);
        if (!component.empty()) append_path_name(p, component);
        if (!property.empty()) append_path_name(p, property);
        return p;
    }
    std::string custom_path(std::string_view key) const {
        std::string p(model_.custom_state);
        append_path_name(p, key);
        return p;
    }
    Error fail(std::string path, std::string_view message) const {
        return make_error(
            ErrorCode::bad_value,
            fmt::format("rule {} step {} ({}): {}", rule_.info.id, index_, step_->op_name, message),
            k_no_offset, std::move(path));
    }

    void set_value(NodeId node, std::string_view value) {
        doc_.node(node).value = text(value);
        ++count_->properties;
    }

    // The edits a component's properties and the custom state share, on the scalar children of
    // `parent` by name; each says whether it changed something. A rename onto a name that is
    // taken changes nothing.
    enum class Renamed { absent, taken, done };
    Renamed rename_scalar(NodeId parent, std::string_view from, std::string_view to) {
        const NodeId p = find(doc_, parent, from, NodeKind::scalar);
        if (p == k_no_node) return Renamed::absent;
        if (find(doc_, parent, to, NodeKind::scalar) != k_no_node) return Renamed::taken;
        doc_.node(p).name = text(to);
        return Renamed::done;
    }
    // Adds `key` = `value` last when it is missing; else, with `overwrite`, sets a value that
    // differs.
    bool put_scalar(NodeId parent, std::string_view key, std::string_view value, bool overwrite) {
        const NodeId p = find(doc_, parent, key, NodeKind::scalar);
        if (p == k_no_node) {
            doc_.append(parent, NodeKind::scalar, text(key), text(value), {}, model_.value_type);
            return true;
        }
        if (!overwrite || doc_.value(p) == value) return false;
        doc_.node(p).value = text(value);
        return true;
    }
    bool drop_scalar(NodeId parent, std::string_view key) {
        const NodeId p = find(doc_, parent, key, NodeKind::scalar);
        if (p == k_no_node) return false;
        doc_.unlink(parent, p);
        return true;
    }

    Result<void> on_entity(const Step& s, NodeId entity, std::uint64_t i) {
        const NodeKind obj = NodeKind::object, scalar = NodeKind::scalar;
        switch (s.op) {
        case Op::rename_component: {
            const NodeId c = find(doc_, entity, s.from, obj);
            if (c == k_no_node) return {};
            if (find(doc_, entity, s.to, obj) != k_no_node)
                return fail(path(i, s.to),
                            fmt::format("cannot rename component {} to {}: the entity has a {} "
                                        "already",
                                        q(s.from), q(s.to), q(s.to)));
            doc_.node(c).name = text(s.to);
            ++count_->components;
            return {};
        }
        case Op::drop_component: {
            const NodeId c = find(doc_, entity, s.component, obj);
            if (c == k_no_node) return {};
            count_->properties += doc_.child_count(c);
            doc_.unlink(entity, c);
            ++count_->components;
            return {};
        }
        case Op::move_property: {
            const NodeId from = find(doc_, entity, s.from, obj);
            if (from == k_no_node) return {};
            const NodeId p = find(doc_, from, s.property, scalar);
            if (p == k_no_node) return {};
            const NodeId to = find(doc_, entity, s.to, obj);
            if (to == k_no_node)
                return fail(path(i, s.from, s.property),
                            fmt::format("cannot move {} from {} to {}: the entity has no {}",
                                        q(s.property), q(s.from), q(s.to), q(s.to)));
            if (find(doc_, to, s.property, scalar) != k_no_node)
                return fail(path(i, s.to, s.property),
                            fmt::format("cannot move {} from {}: {} has a {} already",
                                        q(s.property), q(s.from), q(s.to), q(s.property)));
            doc_.unlink(from, p);
            doc_.link_last(to, p);
            count_->components += 2;
            ++count_->properties;
            return {};
        }
        default:
            break;
        }
        const NodeId c = find(doc_, entity, s.component, obj);
        if (c == k_no_node) return {};
        const std::uint64_t before = count_->properties;
        if (auto r = on_component(s, c, i); !r) return r;
        if (count_->properties != before) ++count_->components;
        return {};
    }

    Result<void> on_component(const Step& s, NodeId c, std::uint64_t i) {
        const NodeKind scalar = NodeKind::scalar;
        switch (s.op) {
        case Op::rename_property: {
            const Renamed r = rename_scalar(c, s.from, s.to);
            if (r == Renamed::taken)
                return fail(path(i, s.component, s.to),
                            fmt::format("cannot rename {} to {}: {} has a {} already", q(s.from),
                                        q(s.to), q(s.component), q(s.to)));
            if (r == Renamed::done) ++count_->properties;
            return {};
        }
        case Op::set_default:
        case Op::set_value:
            if (put_scalar(c, s.property, s.value, s.op == Op::set_value)) ++count_->properties;
            return {};
        case Op::retype: {
            const NodeId p = find(doc_, c, s.property, scalar);
            if (p == k_no_node) return {};
            auto v = convert(doc_.value(p), s.type);
            if (!v)
                return fail(path(i, s.component, s.property),
                            fmt::format("expected a value that converts to {}, found {}",
                                        retype_name(s.type), q(doc_.value(p))));
            if (*v != doc_.value(p)) { // a text of its own (text() keeps views of the rule's)
                doc_.node(p).value = doc_.text(*v);
                ++count_->properties;
            }
            return {};
        }
        case Op::map_values: {
            const NodeId p = find(doc_, c, s.property, scalar);
            if (p == k_no_node) return {};
            const std::string_view v = doc_.value(p);
            for (const auto& [from, to] : s.map)
                if (from == v) {
                    if (to != v) set_value(p, to);
                    return {};
                }
            if (s.strict) {
                // A value the map gives is one mapped already (a second run of the rule).
                for (const auto& pair : s.map)
                    if (pair.second == v) return {};
                return fail(path(i, s.component, s.property),
                            fmt::format("expected a value the map names (strict), found {}", q(v)));
            }
            return {};
        }
        case Op::drop_property:
            if (drop_scalar(c, s.property)) ++count_->properties;
            return {};
        default:
            return make_error(ErrorCode::internal, "a component op not handled");
        }
    }

    Result<void> custom(const Step& s) {
        if (custom_ == k_no_node) {
            if (s.op != Op::set_custom) return {};
            custom_ = doc_.append(doc_.root(), NodeKind::object, doc_.text(model_.custom_state));
        }
        switch (s.op) {
        case Op::rename_custom: {
            const Renamed r = rename_scalar(custom_, s.from, s.to);
            if (r == Renamed::taken)
                return fail(custom_path(s.to),
                            fmt::format("cannot rename {} to {}: the custom state has a {} "
                                        "already",
                                        q(s.from), q(s.to), q(s.to)));
            if (r == Renamed::done) ++count_->custom;
            return {};
        }
        case Op::set_custom:
            if (put_scalar(custom_, s.key, s.value, true)) ++count_->custom;
            return {};
        case Op::drop_custom:
            if (drop_scalar(custom_, s.key)) ++count_->custom;
            return {};
        default:
            return make_error(ErrorCode::internal, "a custom-state op not handled");
        }
    }

    Document& doc_;
    const ContentModel& model_;
    const Rule& rule_;
    NodeId entities_ = k_no_node, custom_ = k_no_node;
    const Step* step_ = nullptr;
    std::size_t index_ = 0;
    StepCount* count_ = nullptr;
    std::vector<std::pair<std::string_view, Str>> names_;
};

Result<void> run_rule(Document& doc, const ContentModel& model, const Rule& rule,
                      RulesApplied& out) {
    StepRunner runner(doc, model, rule);
    for (std::size_t i = 0; i < rule.steps.size(); ++i) {
        StepCount count;
        count.rule = rule.info.id;
        count.step = i + 1;
        count.op = std::string(rule.steps[i].op_name);
        if (auto r = runner.run(rule.steps[i], i + 1, count); !r) return r;
        out.steps.push_back(std::move(count));
    }
    out.rules_run.push_back(rule.info.id);
    return {};
}

// The module key's value node in the custom state, or k_no_node.
NodeId module_node(const Document& doc, const ContentModel& model, std::string_view key) {
    const NodeId custom = doc.child(doc.root(), model.custom_state);
    if (custom == k_no_node) return k_no_node;
    return find(doc, custom, key, NodeKind::scalar);
}

// Runs a unit; returns whether anything changed the tree (a rule ran).
Result<bool> run_unit(Document& doc, const ContentModel& model, const RuleSet::Data& set,
                      const Unit& unit, RulesApplied& out) {
    if (unit.key.empty()) {
        const Rule& rule = set.rules[unit.rules.front()];
        if (auto r = run_rule(doc, model, rule, out); !r) return std::move(r).error();
        return true;
    }
    const Rule& first = set.rules[unit.rules.front()];
    const Rule& last = set.rules[unit.rules.back()];
    const std::uint32_t start = first.info.module->from, newest = last.info.module->to;
    const NodeId stamp = module_node(doc, model, unit.key);
    if (stamp == k_no_node) {
        out.left_alone.push_back(
            {unit.key, fmt::format("no {} in the custom state", unit.key), false});
        return false;
    }
    const std::string_view found = doc.value(stamp);
    const auto version = parse_version(found);
    if (!version || *version < start || *version >= newest) {
        const bool at_newest = version && *version == newest;
        std::string reason =
            at_newest ? fmt::format("at {} {}, the newest of its rules", unit.key, newest)
                      : fmt::format("not at {} {} (found {})", unit.key, start, q(found));
        out.left_alone.push_back({unit.key, std::move(reason), at_newest});
        return false;
    }
    std::uint32_t at = *version;
    for (std::size_t index : unit.rules) {
        const Rule& rule = set.rules[index];
        if (rule.info.module->from != at) continue; // below the save's version
        if (auto r = run_rule(doc, model, rule, out); !r) return std::move(r).error();
        at = rule.info.module->to;
        // The stamp keeps its place: its node is found again, a step may have moved nothing of it
        // (a step naming the module key is refused at load).
        const NodeId node = module_node(doc, model, unit.key);
        if (node == k_no_node) return make_error(ErrorCode::internal, "the module key went away");
        doc.node(node).value = doc.text(fmt::format("{}", at));
    }
    return true;
}

std::string_view view_of(std::span<const std::byte> bytes) noexcept {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

Result<RulesApplied> apply_checked(const RuleSet::Data& set, std::span<const Unit> units,
                                   std::string_view bytes) {
    const FormatInfo* format = detect_format(bytes.substr(0, k_detect_bytes));
    if (!format)
        return make_error(ErrorCode::unknown_format, "no known format recognises the save", 0);
    if (!format->content)
        return make_error(
            ErrorCode::bad_usage,
            fmt::format("content rules are not available for this format ({})", format->name));
    if (bytes.size() > format->max_file_size)
        return make_error(ErrorCode::too_large,
                          fmt::format("expected a save of at most {} bytes, found {}",
                                      format->max_file_size, bytes.size()));
    const ContentModel& model = *format->content;
    RulesApplied out;
    Parsed parsed = format->read(std::make_shared<const Source>(std::string(bytes)), {});
    const std::uint32_t to = format->current_version;
    out.from_version = parsed.doc.version();
    if (out.from_version > to)
        return make_error(ErrorCode::unsupported_version,
                          fmt::format("expected {} version {} or older, found {}", format->name, to,
                                      out.from_version));
    if (auto e = unrepaired_error(parsed.findings, format->id, out.from_version, to)) return *e;
    std::string current; // the bytes of the current version
    std::optional<Parsed> migrated_doc;
    if (out.from_version < to) {
        auto migrated = migrate(parsed.doc, to);
        if (!migrated) return std::move(migrated).error();
        for (const MigrationNote& note : migrated->notes)
            out.migration_notes.push_back(note.describe());
        current = std::move(migrated->bytes);
        migrated_doc.emplace(format->read(std::make_shared<const Source>(current), {}));
        if (const Error* e = migrated_doc->findings.first_error())
            return refused_result(*e, to, "");
    }
    Document& doc = migrated_doc ? migrated_doc->doc : parsed.doc;
    bool ran = false;
    for (const Unit& unit : units) {
        if (set.rules[unit.rules.front()].format != format) continue;
        auto r = run_unit(doc, model, set, unit, out);
        if (!r) return std::move(r).error();
        ran = ran || *r;
    }
    if (!ran) {
        out.bytes = migrated_doc ? std::move(current) : std::string(bytes);
    } else {
        auto written = format->write(doc);
        if (!written) {
            Error e = written.error();
            e.message.insert(0, "writing the result of the content rules: ");
            return e;
        }
        if (auto r = check_result(*format, *written, to, ""); !r) {
            Error e = r.error();
            e.message.insert(0, "after the content rules: ");
            return e;
        }
        out.bytes = std::move(*written);
    }
    out.changed = out.bytes != bytes;
    return out;
}

// Orders the rules into units and checks the chains: ids unique, each key's rules contiguous.
Result<void> plan(RuleSet::Data& set) {
    std::map<std::string, std::size_t, std::less<>> ids;
    for (std::size_t i = 0; i < set.rules.size(); ++i) {
        const Rule& r = set.rules[i];
        if (auto [it, fresh] = ids.emplace(r.info.id, i); !fresh)
            return make_error(ErrorCode::bad_usage,
                              fmt::format("{}: duplicate id {}: {} has it already", r.where,
                                          q(r.info.id), set.rules[it->second].where));
    }
    for (std::size_t i = 0; i < set.rules.size(); ++i) {
        const Rule& r = set.rules[i];
        if (!r.info.module) {
            set.units.push_back({{}, {i}});
            continue;
        }
        const std::string& key = r.info.module->key;
        auto unit = std::find_if(set.units.begin(), set.units.end(),
                                 [&](const Unit& u) { return u.key == key; });
        if (unit == set.units.end()) {
            set.units.push_back({key, {i}});
            continue;
        }
        if (set.rules[unit->rules.front()].format != r.format)
            return make_error(ErrorCode::bad_usage,
                              fmt::format("{}: module key {} is used by {} rules already ({}), "
                                          "this rule is for {}",
                                          r.where, q(key),
                                          set.rules[unit->rules.front()].info.format,
                                          set.rules[unit->rules.front()].where, r.info.format));
        unit->rules.push_back(i);
    }
    for (Unit& unit : set.units) {
        if (unit.key.empty()) continue;
        std::stable_sort(unit.rules.begin(), unit.rules.end(), [&](std::size_t a, std::size_t b) {
            return set.rules[a].info.module->from < set.rules[b].info.module->from;
        });
        for (std::size_t k = 1; k < unit.rules.size(); ++k) {
            const Rule& prev = set.rules[unit.rules[k - 1]];
            const Rule& next = set.rules[unit.rules[k]];
            const ModuleScope& p = *prev.info.module;
            const ModuleScope& n = *next.info.module;
            if (n.from == p.from)
                return make_error(ErrorCode::bad_usage,
                                  fmt::format("{}: broken chain of {}: rules {} and {} ({}) both "
                                              "start at {}",
                                              next.where, q(unit.key), q(next.info.id),
                                              q(prev.info.id), prev.where, n.from));
            if (n.from != p.to)
                return make_error(ErrorCode::bad_usage,
                                  fmt::format("{}: broken chain of {}: rule {} starts at {}, but "
                                              "rule {} ({}) ends at {}",
                                              next.where, q(unit.key), q(next.info.id), n.from,
                                              q(prev.info.id), prev.where, p.to));
        }
    }
    return {};
}

#undef SPARKSAVE_MEMBER

constexpr std::uint64_t k_max_rule_file = 1u << 20;

Result<void> read_rule_file(const fs::path& path, std::vector<RuleText>& out) {
    auto opened = read_input(
        path, 0, [](std::string_view) -> Result<std::uint64_t> { return k_max_rule_file; }, false);
    if (!opened) {
        Error e = std::move(opened).error();
        e.message.insert(0, path.generic_string() + ": ");
        return e;
    }
    RuleText t;
    t.name = path.generic_string();
    t.text = std::string(opened->source->view());
    t.base = path.parent_path();
    out.push_back(std::move(t));
    return {};
}

} // namespace

Result<RulesApplied> apply_units(const RuleSet::Data& set, std::span<const Unit> units,
                                 std::string_view bytes) {
    try {
        return apply_checked(set, units, bytes);
    } catch (const std::length_error& e) {
        // A Document full (2 GiB of text, 2^32 nodes): nothing but bad_alloc leaves the API.
        return make_error(ErrorCode::too_large, e.what());
    }
}

} // namespace content_rules

RuleSet::RuleSet(std::shared_ptr<const Data> data) noexcept : d_(std::move(data)) {}

Result<RuleSet> RuleSet::parse(std::span<const RuleText> files) {
    auto d = std::make_shared<Data>();
    for (const RuleText& file : files) {
        auto rule = content_rules::parse_rule(file);
        if (!rule) return std::move(rule).error();
        d->rules.push_back(std::move(*rule));
    }
    if (auto r = content_rules::plan(*d); !r) return r.error();
    for (const auto& rule : d->rules) d->infos.push_back(rule.info);
    return RuleSet(std::move(d));
}

Result<RuleSet> RuleSet::load(std::span<const fs::path> paths) {
    std::vector<RuleText> texts;
    for (const fs::path& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            if (auto r = content_rules::read_rule_file(path, texts); !r) return r.error();
            continue;
        }
        std::vector<fs::path> files;
        fs::directory_iterator it(path, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            std::error_code fec;
            if (it->path().extension() == ".toml" && it->is_regular_file(fec))
                files.push_back(it->path());
        }
        if (ec)
            return make_error(ErrorCode::io_error,
                              fmt::format("cannot list the rule folder {}: {}",
                                          path.generic_string(), ec.message()));
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files)
            if (auto r = content_rules::read_rule_file(f, texts); !r) return r.error();
    }
    return parse(texts);
}

std::span<const RuleInfo> RuleSet::rules() const noexcept {
    return d_->infos;
}

Result<RulesApplied> RuleSet::apply(std::span<const std::byte> save) const {
    return content_rules::apply_units(*d_, d_->units, content_rules::view_of(save));
}

SPARKSAVE_END_NAMESPACE
