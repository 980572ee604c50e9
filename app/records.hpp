// The records the tool prints, each described once as typed data (sparksave(1) OUTPUT): a
// record type holds the values of one record and lists its JSON members in order, each a key
// and a typed value (Member); the one JSON renderer writes them (print() through put()), and the
// record's text renderer reads the same values, spelling the ones both show with the same
// function (a checksum is hex32() in both). Adding a member to a command's --json is one line
// in its record's members(); the text and the JSON of a record cannot disagree on a value.
//
// The commands fill records and print them: a verify result, an info summary (a file, a temporary
// file), a diff change and its --stat counts, a migrate outcome. A dump's nodes are the
// Document's, rendered by lib's print.hpp.
#pragma once

#include "printer.hpp"

#include "sparksave/content_rules.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"
#include "sparksave/input.hpp"
#include "sparksave/merge.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace sparksave::app {

// The typed values of a record's members, and how JSON writes each.
struct Null {}; // null
struct Utf8 {
    std::string_view text;
}; // a string, UTF-8
struct Bytes {
    std::string_view bytes;
}; // a string, or base64 when not UTF-8
struct Hex32 {
    std::uint32_t value;
}; // a checksum, "0x89abcdef" (hex32())
struct Fields {
    const std::vector<InfoField>* fields;
}; // an object: key -> number or string
struct Counted {
    const std::vector<std::pair<std::string, std::uint64_t>>* counts;
};
//                                                 an array of {"type", "count"}
// A node of a document, as compact JSON (print.hpp print_json_compact).
struct NodeValue {
    const Document* doc;
    NodeId id;
};
// The names of a node's children, an array of strings.
struct ChildNames {
    const Document* doc;
    NodeId id;
};
// An array of findings (print_finding); `first`, when set, is written before `list`.
struct FindingList {
    const Error* first = nullptr;
    const Findings* list = nullptr;
};
// Strings, an array of strings (or base64 where not UTF-8).
struct Strings {
    std::span<const std::string> list;
};
// A migration's notes, an array of their texts (MigrationNote::describe).
struct NoteList {
    const Notes* notes;
};
// One finding as an object (print_finding's members).
struct ErrorValue {
    const Error* error;
};
using Member = std::variant<Null, bool, std::uint64_t, Utf8, Bytes, Hex32, Fields, Counted,
                            NodeValue, ChildNames, FindingList, Strings, NoteList, ErrorValue>;

std::string hex32(std::uint32_t value); // "0x89abcdef", text and JSON alike

// Writes one member (JSON only; the text back-end ignores it).
void put(Printer& p, std::string_view key, const Member& value);
// Every member of a record, in the order its members() lists them.
template <class Record> void put_members(Printer& p, const Record& r) {
    r.members([&p](std::string_view key, const Member& value) { put(p, key, value); });
}

// verify: one file's result (sparksave-verify(1) OUTPUT).
struct VerifyRecord {
    std::string_view path;
    const FormatInfo* format = nullptr; // nullptr: not read (load_error says why)
    const Summary* summary = nullptr;   // with format
    const Error* load_error = nullptr;  // without format
    bool ok = false;
    bool unreadable = false; // trouble: stderr has the message, text shows nothing
    InputList::Role role = InputList::Role::save;
    bool quiet = false, strict = false; // what the text shows

    template <class F> void members(F&& m) const {
        m("schemaVersion", k_json_schema_version);
        m("path", Bytes{path});
        m("format", format ? Member(Utf8{format->name}) : Null{});
        m("version", version() ? Member(*version()) : Null{});
        m("ok", ok);
        m("engineLoads", loaded() && summary->engine_loads);
        if (checksum()) m("checksum", Hex32{*checksum()});
        if (role != InputList::Role::save) m("companion", Utf8{companion()});
        m("findings", FindingList{loaded() ? nullptr : load_error, &summary->findings});
        if (dropped()) m("findingsNotShown", std::uint64_t{dropped()});
    }
    bool loaded() const noexcept { return format && !unreadable; }
    std::optional<std::uint64_t> version() const;
    std::optional<std::uint32_t> checksum() const;
    std::size_t dropped() const noexcept;
    std::string_view companion() const noexcept; // "backup", "tmp"
};
void print(Printer& p, const VerifyRecord& r);

// info: one file's summary (sparksave-info(1) OUTPUT). `role`: found in a directory, what its
// name makes it; such a file's text is a row of its directory's table (print_directory), so its
// record is JSON only.
struct InfoRecord {
    std::string_view path;
    const FormatInfo* format = nullptr; // nullptr: not read (error says why)
    const Summary* summary = nullptr;   // with format
    const Error* error = nullptr;       // without format
    bool empty = false;                 // not read: the file has no bytes
    const NamedFile* role = nullptr;

    template <class F> void members(F&& m) const {
        m("schemaVersion", k_json_schema_version);
        m("path", Bytes{path});
        if (role) {
            m("role", Utf8{role_name()});
            m("slot", Bytes{role->group});
            if (role->kind == NamedFile::Kind::save && role->role == "autosave")
                m("autosaveIndex", std::uint64_t{role->index});
        }
        if (!format) {
            m("format", Null{});
            if (named_as_save()) { // the engine would try it (formats/README.md §1.7)
                m("valid", false);
                m("engineLoads", false);
                m("engine", Utf8{"cannot read it: " + unreadable_text()});
            }
            m("error", Utf8{error->message});
            return;
        }
        const Summary& s = *summary;
        m("format", Utf8{format->name});
        m("version", s.version_known ? Member(std::uint64_t{s.version}) : Null{});
        m("size", s.size);
        m("integrity", Utf8{integrity_name(s.integrity)});
        if (s.checksum) m("checksum", Hex32{*s.checksum});
        m("valid", !s.findings.has_errors());
        m("engineLoads", s.engine_loads);
        m("engine", Utf8{s.engine_note});
        m("metadata", Fields{&s.metadata});
        m("counts", Fields{&s.counts});
        m("commonTypes", Counted{&s.common_types});
        m("findings", FindingList{nullptr, &s.findings});
    }
    std::string_view role_name() const noexcept;
    // A slot's save or its `.bak`, which the engine reads as a save whatever it holds.
    bool named_as_save() const noexcept;
    // Why a file named as a save is none, for people.
    std::string unreadable_text() const;
};
void print(Printer& p, const InfoRecord& r);

// info: a temporary file of a sparksave write, named on the command line or met in a walk: a
// dead write's (it can be removed), or one another run is writing.
struct TempRecord {
    std::string_view path;
    bool in_use = false;

    template <class F> void members(F&& m) const {
        m("schemaVersion", k_json_schema_version);
        m("path", Bytes{path});
        m("format", Null{});
        m("staleTemporary", !in_use);
        m("note", Utf8{note()});
    }
    std::string_view note() const noexcept;
};
void print(Printer& p, const TempRecord& r);

// info DIR: one directory's saves (in slot order, each with its role) as a table, text only (the
// JSON has a record a file).
void print_directory(Printer& p, std::string_view dir, const std::vector<InfoRecord>& files);

// diff: one change (sparksave-diff(1) OUTPUT).
struct ChangeRecord {
    const Change& change;
    std::string path; // change.path, in node-path syntax

    template <class F> void members(F&& m) const {
        m("schemaVersion", k_json_schema_version);
        const Change& c = change;
        auto value = [&](const Document* doc, NodeId id, const std::string& literal) -> Member {
            if (id == k_no_node) return Utf8{literal};
            if (c.op == Change::Op::order) return ChildNames{doc, id};
            return NodeValue{doc, id};
        };
        m("op", Utf8{op_name(c.op)});
        m("path", Utf8{path});
        if (c.op != Change::Op::add) m("old", value(c.old_doc, c.old_node, c.old_text));
        if (c.op != Change::Op::remove) m("new", value(c.new_doc, c.new_node, c.new_text));
        if (c.op == Change::Op::change && tag_changed(c)) {
            // What changed is the type (or class) name: old and new alone may not show it.
            m("oldType", Bytes{c.old_doc->tag(c.old_node)});
            m("newType", Bytes{c.new_doc->tag(c.new_node)});
        }
    }
};
void print(Printer& p, const ChangeRecord& r);

// diff --stat: the counts, in all and by group.
void print(Printer& p, const DiffStat& stat, std::size_t differences);

// merge: one conflict (sparksave-merge(1) OUTPUT), text only: its path and what it is, then
// what BASE, OURS and THEIRS hold there, each as diff shows a value ("(absent)" for none; the
// children's names for an order conflict).
struct ConflictRecord {
    const MergeConflict& conflict;
};
void print(Printer& p, const ConflictRecord& r);

// migrate: one file's outcome (sparksave-migrate(1) OUTPUT; --json: a "file" record). With
// --rules, the chains that ran (from `rules`, the set), the chains that left the file out of
// their scope, and with --dry-run (text; JSON always) what each rule step touched. Text shows no
// line for a file skipped or left alone in a walk (they are counted); JSON has a record for each.
struct MigrateRecord {
    std::string_view path;
    const FileOutcome* outcome;
    bool dry_run = false;
    std::span<const RuleInfo> rules = {};
    // "migrated", "would-migrate", "already-migrated", "up-to-date", "copied", "needs-migration",
    // "skipped", "left-alone", "unreadable", "failed".
    std::string_view outcome_name() const noexcept;
    template <class F> void members(F&& m) const {
        m("schemaVersion", k_json_schema_version);
        const FileOutcome& o = *outcome;
        m("record", Utf8{"file"});
        m("path", Bytes{path});
        m("format", o.format.empty() ? Member(Null{}) : Member(Utf8{o.format}));
        m("from", o.from ? Member(std::uint64_t{o.from}) : Member(Null{}));
        m("to", o.to ? Member(std::uint64_t{o.to}) : Member(Null{}));
        m("outcome", Utf8{outcome_name()});
        m("output", o.destination.empty() ? Member(Null{}) : Member(Bytes{o.destination}));
        m("backup", o.backup.empty() ? Member(Null{}) : Member(Bytes{o.backup}));
        m("steps", Strings{o.steps});
        m("notes", NoteList{&o.notes});
        const bool counted = o.kind == FileOutcome::Kind::skipped ||
                             o.kind == FileOutcome::Kind::left_alone; // found in a walk
        m("error", o.failure && !counted ? Member(ErrorValue{&o.failure->error}) : Member(Null{}));
        if (counted)
            m("reason", Utf8{o.kind == FileOutcome::Kind::skipped
                                 ? "not a save of any known format"
                                 : "an engine companion of a slot (.bak, .tmp): never migrated"});
    }
};
void print(Printer& p, const MigrateRecord& r);

// migrate: the run's counts, the last line (text) or record ("summary", JSON), and with
// --rules --dry-run each rule step's counts in all (`rule_steps`).
struct MigrateSummary {
    enum class Mode : std::uint8_t { migrate, dry_run, check };
    Mode mode = Mode::migrate;
    std::uint64_t migrated = 0, up_to_date = 0, outdated = 0, failed = 0, out_of_scope = 0,
                  skipped = 0, left_alone = 0, stale_temps = 0, unreadable = 0;
    std::span<const StepCount> rule_steps;
};
void print(Printer& p, const MigrateSummary& s);

// migrate --rules: each rule step's counts summed over the files, in the order the steps were
// first met (MigrateSummary::rule_steps).
struct RuleTotals {
    std::vector<StepCount> steps;
    void add(std::span<const StepCount> more);
};

// migrate --list --rules: the rule set's chains (a module key's rules, in version order) and its
// rules without a module, and how many [[test]]s passed.
// `sparksave --version` (sparksave(1)): the tool's version, each format of this build and the
// versions it reads and writes (1 to its newest: every reader and writer takes each of them), the
// CRC-32 code in use on this machine, and the compiler and libraries of the build.
struct VersionRecord {
    std::string_view version;
    std::span<const FormatInfo> formats;
    std::string_view crc32; // crc32.hpp crc32_implementation()
    std::vector<std::pair<std::string_view, std::string>> built_with;
};
void print(Printer& p, const VersionRecord& r);

struct RuleChainsRecord {
    std::span<const RuleInfo> rules;
    std::size_t tests = 0;
};
void print(Printer& p, const RuleChainsRecord& r);

} // namespace sparksave::app
