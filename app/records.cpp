// The records the tool prints (records.hpp): the one JSON renderer of a record's members, and
// each record's text.
#include "records.hpp"

#include "common.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace sparksave::app {

std::string hex32(std::uint32_t value) {
    return fmt::format("{:#010x}", value);
}

void put(Printer& p, std::string_view key, const Member& value) {
    struct Put {
        Printer& p;
        std::string_view key;
        void operator()(Null) const { p.null(key); }
        void operator()(bool b) const { p.boolean(key, b); }
        void operator()(std::uint64_t n) const { p.number(key, n); }
        void operator()(Utf8 s) const { p.string(key, s.text); }
        void operator()(Bytes b) const { p.bytes(key, b.bytes); }
        void operator()(Hex32 h) const { p.string(key, hex32(h.value)); }
        void operator()(Fields f) const {
            auto object = p.object(key);
            for (const auto& field : *f.fields) {
                if (field.numeric)
                    p.raw(field.key, field.text);
                else
                    p.bytes(field.key, field.text);
            }
        }
        void operator()(Counted c) const {
            auto array = p.array(key);
            for (const auto& [type, n] : *c.counts) {
                auto item = p.object();
                p.bytes("type", type);
                p.number("count", n);
            }
        }
        void operator()(NodeValue v) const {
            p.value(key, [&](std::string& out) { print_json_compact(*v.doc, v.id, out); });
        }
        void operator()(ChildNames v) const {
            auto array = p.array(key);
            for (NodeId k : v.doc->children(v.id)) p.bytes(v.doc->name(k));
        }
        void operator()(FindingList f) const {
            auto array = p.array(key);
            if (f.first) print_finding(p, *f.first, false);
            if (f.list)
                for (const auto& finding : f.list->items()) print_finding(p, finding, false);
        }
        void operator()(Strings v) const {
            auto array = p.array(key);
            for (const std::string& text : v.list) p.bytes(text);
        }
        void operator()(NoteList v) const {
            auto array = p.array(key);
            for (const MigrationNote& note : *v.notes) p.bytes(note.describe());
        }
        void operator()(ErrorValue v) const {
            auto object = p.object(key);
            finding_members(p, *v.error);
        }
    };
    std::visit(Put{p, key}, value);
}

namespace {

// Text: the findings of a record, one line each, under `indent` (`shown` picks them), and how
// many were not kept.
template <class Shown>
void finding_lines(Printer& p, const Findings& findings, std::size_t indent, Shown shown,
                   std::string_view dropped_text) {
    auto in = p.indent(indent);
    for (const auto& f : findings.items())
        if (shown(f)) p.line([&](std::string& out) { out += describe_finding(f, p.color()); });
    if (const std::size_t dropped = findings.dropped())
        p.line(fmt::format("... and {} more {}", dropped, dropped_text));
}

} // namespace

// ---- verify

std::optional<std::uint64_t> VerifyRecord::version() const {
    if (format && summary->version_known) return summary->version;
    return std::nullopt;
}
std::optional<std::uint32_t> VerifyRecord::checksum() const {
    return summary ? summary->checksum : std::nullopt;
}
std::size_t VerifyRecord::dropped() const noexcept {
    return summary ? summary->findings.dropped() : 0;
}
std::string_view VerifyRecord::companion() const noexcept {
    return role == InputList::Role::engine_backup ? "backup" : "tmp";
}

// The engine's companions of a slot are checked as what they are (sparksave-verify(1),
// formats/README.md §1.7): the engine's fallback revision, or a write it never finished.
static std::string_view companion_label(InputList::Role role) {
    return role == InputList::Role::engine_backup
               ? "the engine's backup of a slot"
               : "an interrupted engine write, which the engine ignores";
}

// With --quiet, text shows a failing file only, and of its findings the ones that fail it.
void print(Printer& p, const VerifyRecord& r) {
    auto record = p.record();
    put_members(p, r);
    if (r.unreadable || (r.quiet && r.ok)) return;
    p.line([&](std::string& line) {
        line += r.ok ? paint(Style::ok, "OK  ", p.color()) : paint(Style::fail, "FAIL", p.color());
        line += "  " + show_path(r.path) + ": ";
        if (!r.format) {
            line += r.load_error->message;
            return;
        }
        line += r.format->name;
        if (auto v = r.version()) line += fmt::format(" v{}", *v);
        if (auto c = r.checksum()) line += ", crc32 " + hex32(*c);
        if (r.role != InputList::Role::save) line += fmt::format(" ({})", companion_label(r.role));
    });
    if (!r.loaded()) return;
    finding_lines(
        p, r.summary->findings, 6,
        [&](const Error& f) {
            return !(r.quiet && f.severity != Severity::error &&
                     !(r.strict && f.severity == Severity::warning));
        },
        "findings not shown");
}

// ---- info

std::string_view InfoRecord::role_name() const noexcept {
    switch (role->kind) {
    case NamedFile::Kind::backup:
        return "backup";
    case NamedFile::Kind::temp:
        return "temp";
    case NamedFile::Kind::save:
    case NamedFile::Kind::other:
        break;
    }
    return role->role;
}

bool InfoRecord::named_as_save() const noexcept {
    return role && (role->kind == NamedFile::Kind::save || role->kind == NamedFile::Kind::backup);
}

std::string InfoRecord::unreadable_text() const {
    return "not a readable save (" +
           (empty ? std::string("an empty file") : std::string(error->rule())) + ")";
}

static std::string integrity_text(const InfoRecord& r) {
    const Summary& s = *r.summary;
    switch (s.integrity) {
    case Integrity::verified:
        return "checksum verified (crc32 " + hex32(s.checksum.value_or(0)) + ")";
    case Integrity::mismatch:
        return "CHECKSUM MISMATCH";
    case Integrity::none:
        return fmt::format("no checksum ({} v{} has none)", r.format->name, s.version);
    case Integrity::unknown:
        break;
    }
    return std::string(integrity_name(s.integrity));
}

// Text: the one-screen summary of a file given on the command line (a file that is not read has
// its message on stderr).
void print(Printer& p, const InfoRecord& r) {
    auto record = p.record();
    put_members(p, r);
    if (r.role || !r.format) return;
    const Summary& s = *r.summary;
    p.line(show_path(r.path));
    {
        auto indent = p.indent(2);
        auto row = [&](std::string_view label, std::string_view value) {
            p.line(fmt::format("{:<14}{}", std::string(label) + ":", value));
        };
        row("format", s.version_known ? fmt::format("{} v{}", r.format->name, s.version)
                                      : std::string(r.format->name));
        row("size", fmt::format("{} bytes", s.size));
        row("integrity", integrity_text(r));
        row("engine", s.engine_note);
        for (const auto& f : s.metadata)
            if (!f.label.empty()) row(f.label, display(f.text));
        for (const auto& f : s.counts) row(f.label, f.text);
        if (!s.common_types.empty()) {
            std::string types;
            for (const auto& [type, n] : s.common_types) {
                if (!types.empty()) types += ", ";
                types += fmt::format("{} ({})", display(type), n);
            }
            row("common types", types);
        }
    }
    finding_lines(
        p, s.findings, 2, [](const Error&) { return true; }, "findings");
}

std::string_view TempRecord::note() const noexcept {
    return in_use ? "temporary file of a sparksave write in progress"
                  : "stale temporary file of an interrupted sparksave write";
}

void print(Printer& p, const TempRecord& r) {
    auto record = p.record();
    put_members(p, r);
    p.line(fmt::format("{}: {} ({})", show_path(r.path), r.note(),
                       r.in_use ? "not a save; leave it" : "not a save; it can be removed"));
}

namespace {

const InfoField* field(const std::vector<InfoField>& fields, std::string_view key) {
    for (const auto& f : fields)
        if (f.key == key) return &f;
    return nullptr;
}

// A row's STATUS: its text, and its colour: a failure when the engine cannot use the file
// (invalid, unreadable, not addressable, a backup it cannot fall back to, an interrupted write, a
// slot with no save), a warning when the file is valid but the engine does not load it as it is
// (it needs migration), else ok.
struct Status {
    std::string text;
    Style style = Style::ok;
};

std::string status_text(const InfoRecord& r) {
    if (!r.format) {
        // A file named as a save that is none (empty, another magic): the engine cannot read it.
        if (r.named_as_save()) return "INVALID: " + r.unreadable_text();
        return r.error->message;
    }
    const Summary& s = *r.summary;
    if (const Error* e = s.findings.first_error())
        return "INVALID: " + std::string(code_name(e->code));
    return s.engine_loads ? "ok" : "ok, " + s.engine_verdict;
}

Status table_status(const InfoRecord& r) {
    const NamedFile& n = *r.role;
    const bool valid = r.format && !r.summary->findings.has_errors();
    Status st{status_text(r), !valid                     ? Style::fail
                              : !r.summary->engine_loads ? Style::warning
                                                         : Style::ok};
    if (n.kind == NamedFile::Kind::backup && st.style == Style::warning) st.style = Style::fail;
    switch (n.kind) {
    case NamedFile::Kind::save:
        if (n.role == "autosave") {
            st.text += fmt::format(" (autosave {})", n.index);
        } else if (n.role != "slot") {
            st.text += fmt::format(" ({})", n.role);
        } else if (!n.valid_name) {
            st.text += " (not a valid slot name: the engine cannot address it)";
            st.style = Style::fail;
        }
        break;
    case NamedFile::Kind::backup:
        // formats/README.md §1.7: the engine falls back to the .bak with its own reader, which
        // refuses what it does not load (v1/v2: needs migration, 1.4).
        if (!r.format)
            st.text = "backup: " + st.text + ": the engine cannot fall back to it";
        else if (r.summary->findings.has_errors())
            st.text = "backup: INVALID, the engine cannot fall back to it";
        else if (!r.summary->engine_loads)
            st.text = "backup: valid, but the engine cannot fall back to it (" +
                      r.summary->engine_verdict + ")";
        else
            st.text = "backup: valid, the engine can fall back to it";
        break;
    case NamedFile::Kind::temp:
        st = {"stale temp file: a save was interrupted", Style::fail};
        break;
    case NamedFile::Kind::other:
        // A save of a format with a save directory, not named as one of its saves.
        if (r.format && r.format->directory)
            st.text += " (not named " + std::string(r.format->directory->pattern) + ")";
        break;
    }
    return st;
}

bool companion(const NamedFile& n) {
    return n.kind == NamedFile::Kind::backup || n.kind == NamedFile::Kind::temp;
}

} // namespace

void print_directory(Printer& p, std::string_view dir, const std::vector<InfoRecord>& files) {
    using Row = std::array<std::string, 6>;
    std::vector<std::pair<Row, Status>> rows;
    rows.push_back({{"SLOT", "FORMAT", "VER", "SAVE NAME", "TIME", "SIZE"}, {"STATUS"}});
    std::optional<std::string> primary; // the slot of the last primary row
    for (const auto& fi : files) {
        const NamedFile& r = *fi.role;
        if (!companion(r)) {
            primary = r.group;
        } else if (primary != r.group) {
            // A .bak or .tmp whose save is not there: its slot gets a row of its own, so it is
            // not read as a companion of the slot above it.
            rows.push_back(
                {{display(r.group)},
                 {"no " + display(r.save_file) + ": only the companions below", Style::fail}});
            primary = r.group;
        }
        Row row;
        row[0] = r.kind == NamedFile::Kind::backup ? "  .bak"
                 : r.kind == NamedFile::Kind::temp ? "  .tmp"
                                                   : display(r.group);
        if (fi.format) {
            const Summary& s = *fi.summary;
            row[1] = fi.format->name;
            row[2] = s.version_known ? std::to_string(s.version) : "?";
            if (auto f = field(s.metadata, "saveName")) {
                row[3] = display(f->text);
                if (row[3].size() > 32) row[3] = row[3].substr(0, 29) + "...";
            }
            if (auto f = field(s.metadata, "timestamp")) row[4] = f->text;
            row[5] = std::to_string(s.size);
        }
        rows.emplace_back(std::move(row), table_status(fi));
    }
    std::array<std::size_t, 6> widths{};
    for (const auto& [row, status] : rows)
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    p.text([&](std::string& t) {
        t += show_path(dir) + ":\n";
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& [row, status] = rows[i];
            t += "  ";
            for (std::size_t c = 0; c < row.size(); ++c)
                t += fmt::format(fmt::runtime(c == 5 ? "{:>{}}  " : "{:<{}}  "), row[c], widths[c]);
            t += i > 0 ? paint(status.style, status.text, p.color()) : status.text;
            t += '\n';
        }
    });
}

// ---- diff

namespace {

// A node's value for people: strings quoted, numbers bare, containers by size. A container
// with a tag (a text archive's class name) shows it first, as dump does; a scalar shows its tag
// (a text archive's type name) when asked: when the type is what changed.
std::string show_value(const Document& doc, NodeId id, bool with_tag = false) {
    const Node& n = doc.node(id);
    std::string tag;
    if (n.tag != 0 && (with_tag || n.kind == NodeKind::object || n.kind == NodeKind::list))
        tag = display(doc.tag(id)) + ' ';
    switch (n.kind) {
    case NodeKind::object:
        return tag + fmt::format("{{{} {}}}", doc.child_count(id),
                                 doc.child_count(id) == 1 ? "entry" : "entries");
    case NodeKind::list:
        return tag + fmt::format("[{} {}]", doc.child_count(id),
                                 doc.child_count(id) == 1 ? "item" : "items");
    case NodeKind::bytes:
    case NodeKind::column:
        return fmt::format("<{} bytes>", doc.value(id).size());
    case NodeKind::scalar:
        break;
    }
    const bool quoted = n.type == ValueType::string || n.type == ValueType::none;
    return tag + display(doc.value(id), quoted);
}

std::string child_names(const Document& doc, NodeId id) {
    std::string out;
    std::size_t i = 0;
    for (NodeId c : doc.children(id)) {
        if (!out.empty()) out += ", ";
        if (++i > 12) {
            out += "...";
            break;
        }
        out += doc.name(c).empty() ? std::string("[]") : display(doc.name(c));
    }
    return out;
}

} // namespace

void print(Printer& p, const ChangeRecord& r) {
    auto record = p.record();
    put_members(p, r);
    const Change& c = r.change;
    const bool tags = tag_changed(c);
    p.line([&](std::string& text) {
        auto old_value = [&] {
            return c.old_node == k_no_node ? display(c.old_text)
                                           : show_value(*c.old_doc, c.old_node, tags);
        };
        auto new_value = [&] {
            return c.new_node == k_no_node ? display(c.new_text)
                                           : show_value(*c.new_doc, c.new_node, tags);
        };
        const bool color = p.color();
        const std::string& path = r.path;
        switch (c.op) {
        case Change::Op::add:
            text += paint(Style::added, "+ " + path + ": " + new_value(), color);
            break;
        case Change::Op::remove:
            text += paint(Style::removed, "- " + path + ": " + old_value(), color);
            break;
        case Change::Op::change:
            text += paint(Style::changed,
                          "~ " + path + ": " + old_value() + " \u2192 " + new_value(), color);
            break;
        case Change::Op::order:
            text += paint(Style::changed,
                          "~ " + (path.empty() ? std::string("(top level)") : path) + ": order " +
                              child_names(*c.old_doc, c.old_node) + " \u2192 " +
                              child_names(*c.new_doc, c.new_node),
                          color);
            break;
        }
    });
}

void print(Printer& p, const ConflictRecord& r) {
    const MergeConflict& c = r.conflict;
    auto record = p.record();
    p.line(paint(Style::fail,
                 "conflict " + (c.path.empty() ? std::string("(top level)") : c.path.str()) + ": " +
                     std::string(conflict_kind_text(c.kind)),
                 p.color()));
    auto shown = [&](const MergeConflict::Side& s) {
        if (!s.present()) return std::string("(absent)");
        if (s.node == k_no_node) return display(s.text);
        if (c.kind == MergeConflict::Kind::order) return child_names(*s.doc, s.node);
        return show_value(*s.doc, s.node, true);
    };
    auto indent = p.indent(2);
    p.line("base:   " + shown(c.base));
    p.line("ours:   " + shown(c.ours));
    p.line("theirs: " + shown(c.theirs));
}

void print(Printer& p, const DiffStat& stat, std::size_t differences) {
    static constexpr std::string_view k_keys[] = {"added", "removed", "changed", "reordered"};
    auto counts = [&](const DiffStat::Counts& n) {
        for (std::size_t i = 0; i < n.size(); ++i) put(p, k_keys[i], std::uint64_t{n[i]});
    };
    auto line = [](const DiffStat::Counts& n) {
        std::string s = fmt::format("{} added, {} removed, {} changed", n[0], n[1], n[2]);
        if (n[3]) s += fmt::format(", {} reordered", n[3]);
        return s;
    };
    auto record = p.record();
    p.number("schemaVersion", k_json_schema_version);
    counts(stat.totals());
    {
        auto groups = p.object("groups");
        for (const auto& [group, n] : stat.groups()) {
            auto object = p.object(group);
            counts(n);
        }
    }
    p.text([&](std::string& text) {
        std::size_t width = 0;
        for (const auto& [group, n] : stat.groups()) width = std::max(width, group.size());
        for (const auto& [group, n] : stat.groups())
            text += fmt::format("{:<{}}  {}\n", group, width, line(n));
        text += fmt::format("{} {}: {}\n", differences,
                            differences == 1 ? "difference" : "differences", line(stat.totals()));
    });
}

// ---- migrate

namespace {

// ", fps.profile.version 1 -> 3": the chains that ran on a file, each from the first rule's
// `from` to the last one's `to`; a rule without a module by its id, when a step of it touched
// something.
std::string rules_ran(const FileOutcome& o, std::span<const RuleInfo> rules) {
    std::string out;
    const RuleInfo* chain_first = nullptr;
    const RuleInfo* chain_last = nullptr;
    auto close = [&] {
        if (chain_first)
            out += fmt::format(", {} {} -> {}", display(chain_first->module->key),
                               chain_first->module->from, chain_last->module->to);
        chain_first = chain_last = nullptr;
    };
    for (const std::string& id : o.rules_run) {
        const auto info =
            std::find_if(rules.begin(), rules.end(), [&](const RuleInfo& r) { return r.id == id; });
        if (info == rules.end()) continue;
        if (!info->module) {
            close();
            const bool touched =
                std::any_of(o.rule_steps.begin(), o.rule_steps.end(),
                            [&](const StepCount& c) { return c.rule == id && c.touched(); });
            if (touched) out += ", rule " + display(id);
            continue;
        }
        if (chain_first && chain_first->module->key != info->module->key) close();
        if (!chain_first) chain_first = &*info;
        chain_last = &*info;
    }
    close();
    return out;
}

std::string step_name(const StepCount& c) {
    return fmt::format("{} step {} {}", display(c.rule), c.step, c.op);
}

// What a rule step touched: "1 entity, 2 components, 3 properties, 1 custom pair", "nothing".
std::string touched(const StepCount& c) {
    std::string out;
    auto add = [&](std::uint64_t n, std::string_view one, std::string_view many) {
        if (n) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, n == 1 ? one : many);
    };
    add(c.entities, "entity", "entities");
    add(c.components, "component", "components");
    add(c.properties, "property", "properties");
    add(c.custom, "custom pair", "custom pairs");
    return out.empty() ? "nothing" : out;
}

} // namespace

// A label padded to one width, the path, what happened; the plan's steps (--dry-run) and the
// notes under it.
std::string_view MigrateRecord::outcome_name() const noexcept {
    using Kind = FileOutcome::Kind;
    switch (outcome->kind) {
    case Kind::migrated:
        return dry_run ? "would-migrate" : "migrated";
    case Kind::already_migrated:
        return "already-migrated";
    case Kind::up_to_date:
        return "up-to-date";
    case Kind::copied:
        return "copied";
    case Kind::needs_migration:
        return "needs-migration";
    case Kind::skipped:
        return "skipped";
    case Kind::left_alone:
        return "left-alone";
    case Kind::unreadable:
        return "unreadable";
    case Kind::failed:
        break;
    }
    return "failed";
}

namespace {

// Rule steps' counts, a JSON array of objects.
void step_array(Printer& p, std::string_view key, std::span<const StepCount> steps) {
    auto array = p.array(key);
    for (const StepCount& c : steps) {
        auto item = p.object();
        p.string("rule", c.rule);
        p.number("step", std::uint64_t{c.step});
        p.string("op", c.op);
        p.number("entities", c.entities);
        p.number("components", c.components);
        p.number("properties", c.properties);
        p.number("custom", c.custom);
    }
}

} // namespace

void print(Printer& p, const MigrateRecord& r) {
    using Kind = FileOutcome::Kind;
    const FileOutcome& o = *r.outcome;
    auto record = p.record();
    put_members(p, r);
    if (o.ruled) {
        auto rules = p.object("rules");
        put(p, "ran", Strings{o.rules_run});
        {
            auto left = p.array("leftAlone");
            for (const LeftAlone& l : o.rules_left_alone) {
                auto item = p.object();
                p.string("key", l.key);
                p.string("reason", l.reason);
                p.boolean("atNewest", l.at_newest);
            }
        }
        step_array(p, "steps", o.rule_steps);
    }
    auto label = [&](Style style, std::string_view text) {
        return paint(style, fmt::format("{:<13}", text), p.color()) + " " + show_path(r.path) +
               ": ";
    };
    const std::string dest = o.destination.empty() || o.destination == r.path
                                 ? std::string()
                                 : " -> " + show_path(o.destination);
    // The chains that left the file out of their scope (one at its newest version is up to
    // date for it: not said).
    auto out_of_scope = [&] {
        auto indent = p.indent(6);
        for (const LeftAlone& l : o.rules_left_alone)
            if (!l.at_newest) p.line("rules: " + l.reason);
    };
    switch (o.kind) {
    case Kind::failed:
    case Kind::unreadable:
        p.line(label(Style::fail, "FAIL") + o.failure->error.message);
        return;
    case Kind::skipped:
    case Kind::left_alone:
        return;
    case Kind::up_to_date:
        p.line(label(Style::dim, "up to date") + fmt::format("{} v{}", o.format, o.from));
        out_of_scope();
        return;
    case Kind::copied:
        p.line(label(Style::dim, "up to date") +
               fmt::format("{} v{}, copied{}", o.format, o.from, dest));
        out_of_scope();
        return;
    case Kind::already_migrated:
        p.line(label(Style::dim, "up to date") +
               fmt::format("{} v{}{} already holds the v{} result", o.format, o.from, dest, o.to));
        return;
    case Kind::needs_migration:
        p.line(label(Style::warning, "outdated") +
               (o.from < o.to
                    ? fmt::format("{} v{}, needs migration to v{}", o.format, o.from, o.to)
                    : fmt::format("{} v{}, needs its content rules", o.format, o.from)) +
               rules_ran(o, r.rules));
        out_of_scope();
        return;
    case Kind::migrated:
        break;
    }
    const std::string versions = o.from == o.to
                                     ? fmt::format("{} v{}", o.format, o.from)
                                     : fmt::format("{} v{} -> v{}", o.format, o.from, o.to);
    p.line(label(Style::ok, r.dry_run ? "would migrate" : "migrated") + versions +
           rules_ran(o, r.rules) + dest);
    {
        auto indent = p.indent(6);
        if (r.dry_run && !o.steps.empty()) {
            std::string steps;
            for (const auto& s : o.steps) steps += (steps.empty() ? "" : ", ") + s;
            p.line("steps: " + steps);
        }
        for (const auto& n : o.notes) p.line("note: " + n.describe());
        if (r.dry_run)
            for (const StepCount& c : o.rule_steps) p.line(step_name(c) + ": " + touched(c));
    }
    out_of_scope();
}

void RuleTotals::add(std::span<const StepCount> more) {
    for (const StepCount& c : more) {
        auto at = std::find_if(steps.begin(), steps.end(), [&](const StepCount& s) {
            return s.rule == c.rule && s.step == c.step;
        });
        if (at == steps.end()) {
            steps.push_back(c);
            continue;
        }
        at->entities += c.entities;
        at->components += c.components;
        at->properties += c.properties;
        at->custom += c.custom;
    }
}

void print(Printer& p, const MigrateSummary& s) {
    using Mode = MigrateSummary::Mode;
    if (!s.rule_steps.empty() && s.mode == Mode::dry_run) {
        p.line("rule steps, in all:");
        auto indent = p.indent(2);
        for (const StepCount& c : s.rule_steps) p.line(step_name(c) + ": " + touched(c));
    }
    auto record = p.record();
    p.number("schemaVersion", k_json_schema_version);
    p.string("record", "summary");
    p.string("mode", s.mode == Mode::migrate   ? "migrate"
                     : s.mode == Mode::dry_run ? "dry-run"
                                               : "check");
    p.number("migrated", s.migrated);
    p.number("upToDate", s.up_to_date);
    p.number("needMigration", s.outdated);
    p.number("failed", s.failed);
    p.number("outOfScope", s.out_of_scope);
    p.number("skipped", s.skipped);
    p.number("leftAlone", s.left_alone);
    p.number("staleTemporaries", s.stale_temps);
    p.number("unreadable", s.unreadable);
    step_array(p, "ruleSteps", s.rule_steps);
    std::string line;
    if (s.mode == Mode::check)
        line = fmt::format("{} need migration, {} up to date, {} failed", s.outdated, s.up_to_date,
                           s.failed);
    else if (s.mode == Mode::dry_run)
        line = fmt::format("{} would be migrated, {} up to date, {} would fail", s.migrated,
                           s.up_to_date, s.failed);
    else
        line = fmt::format("{} migrated, {} up to date, {} failed", s.migrated, s.up_to_date,
                           s.failed);
    if (s.out_of_scope)
        line += fmt::format(", {} not in the scope of the rules (left as the rules found {})",
                            s.out_of_scope, s.out_of_scope == 1 ? "it" : "them");
    if (s.skipped) line += fmt::format(", {} skipped (no known format)", s.skipped);
    if (s.left_alone) {
        // The companions' names, as the formats with a save directory give them.
        std::string names;
        for (const FormatInfo& f : format_table())
            if (f.directory)
                names += (names.empty() ? "" : "; ") + std::string(f.directory->companions);
        line += fmt::format(", {} engine {} left alone ({})", s.left_alone,
                            s.left_alone == 1 ? "companion" : "companions", names);
    }
    if (s.stale_temps)
        line += fmt::format(", {} skipped (stale temporary {} of an interrupted sparksave write)",
                            s.stale_temps, s.stale_temps == 1 ? "file" : "files");
    if (s.unreadable) line += fmt::format(", {} unreadable", s.unreadable);
    p.line(line);
}

void print(Printer& p, const VersionRecord& r) {
    auto record = p.record();
    p.number("schemaVersion", k_json_schema_version);
    p.string("version", r.version);
    p.line(fmt::format("sparksave {}", r.version));
    {
        auto formats = p.array("formats");
        p.line("formats (each version read and written):");
        auto indent = p.indent(2);
        for (const FormatInfo& f : r.formats) {
            auto row = p.object();
            p.string("name", f.name);
            p.string("title", f.title);
            p.number("oldestVersion", std::uint64_t{1});
            p.number("newestVersion", std::uint64_t{f.current_version});
            p.line(fmt::format("{:<13} {:<9} {}", f.name,
                               f.current_version == 1 ? std::string("v1")
                                                      : fmt::format("v1 to v{}", f.current_version),
                               f.title));
        }
    }
    p.string("crc32", r.crc32);
    p.line(fmt::format("CRC-32: {}", r.crc32 == "pclmul"
                                         ? "carry-less multiplication (PCLMULQDQ), in use"
                                         : "slicing-by-8 tables (no PCLMULQDQ here)"));
    auto built = p.object("builtWith");
    std::string line = "built with:";
    for (const auto& [name, version] : r.built_with) {
        p.string(name, version);
        line += fmt::format(" {} {},", name, version);
    }
    line.pop_back();
    p.line(line);
}

void print(Printer& p, const RuleChainsRecord& r) {
    const auto counts = [](const RuleInfo& rule) {
        return fmt::format("{}: {} {}, {} {}", show_path(rule.file), rule.steps,
                           rule.steps == 1 ? "step" : "steps", rule.tests,
                           rule.tests == 1 ? "test" : "tests");
    };
    p.line(fmt::format("content rules ({} {}, {} {} passed):", r.rules.size(),
                       r.rules.size() == 1 ? "rule" : "rules", r.tests,
                       r.tests == 1 ? "test" : "tests"));
    auto indent = p.indent(2);
    // Each module key once, where its first rule is; its rules by version (a chain is
    // contiguous: RuleSet::load checked it).
    std::vector<std::string_view> keys;
    for (const RuleInfo& rule : r.rules)
        if (rule.module && std::find(keys.begin(), keys.end(), rule.module->key) == keys.end())
            keys.push_back(rule.module->key);
    for (std::string_view key : keys) {
        std::vector<const RuleInfo*> chain;
        for (const RuleInfo& rule : r.rules)
            if (rule.module && rule.module->key == key) chain.push_back(&rule);
        std::stable_sort(chain.begin(), chain.end(), [](const RuleInfo* a, const RuleInfo* b) {
            return a->module->from < b->module->from;
        });
        p.line(fmt::format("{} ({}):", display(key), chain.front()->format));
        auto rules = p.indent(2);
        for (const RuleInfo* rule : chain)
            p.line(fmt::format("{} -> {}  {:<22} {} ({})", rule->module->from, rule->module->to,
                               display(rule->id), display(rule->summary), counts(*rule)));
    }
    for (const RuleInfo& rule : r.rules)
        if (!rule.module)
            p.line(fmt::format("{}, no module: {} {} ({})", rule.format, display(rule.id),
                               display(rule.summary), counts(rule)));
}

} // namespace sparksave::app
