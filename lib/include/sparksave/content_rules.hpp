// Content migrations (issue 23): declarative rule files that rename, move, retype, default and
// drop the components, properties and custom-state pairs of saves, scoped to a module's schema
// version (`module = { key = "fps.profile.version", from = 1, to = 2 }`). The engine loads and
// checks a rule set once, at start-up, and applies it to each save it loads: the format
// migration to the current version first (the library's migration chain, as upgrade() runs
// it), then the rules' steps, then the library's writer, and the result read back and checked
// by the reader, as upgrade() checks its result.
//
// The rule file (TOML) is documented in README.md "Content rules" (testdata/rules/ has examples).
// Formats: the rules work on a format's content model (which node of its tree holds the entities,
// their components, the properties and the custom state; format.hpp ContentModel); `.spark_save`,
// GMSV (components by type name, a JSON component's members its properties, a binary one's not
// editable, no custom state) and the text archive (class instances by class name anywhere, their
// attributes, the top-level attributes as custom state, `path` to scope a step) have one. A rule
// file for a format without one (tess_world, spark_kv) is refused ("content rules are not
// available for this format"). A step's `type` (set-default, set-value, set-custom) is checked at
// load against its value.
//
// Errors are values (Result<T>, error.hpp): nothing here throws across the API except
// std::bad_alloc. An error in a rule file has code bad_usage and a message that begins
// FILE:LINE:COLUMN (the place in the rule file). An error applying a rule has the node path of
// the save's node (`entities[2].Health.max`), a message naming the rule and its step, and
// nothing is produced: the save stays as it is.
//
// Thread safety: a RuleSet is immutable once loaded; any number of threads may apply one at
// once, and copies share it.
//
// This header includes no fmt, Boost, CLI11 or toml++ header.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/error.hpp"
#include "sparksave/export.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

namespace content_rules {
struct Access; // the library's own entries into a loaded set (content_rules_data.hpp)
} // namespace content_rules

// One rule file's text. `name` is how errors name it (a path, usually); `base` is the folder its
// [[test]] paths are relative to.
struct RuleText {
    std::string name;
    std::string text;
    std::filesystem::path base;
};

// The module scope of a rule: the custom-state key holding the module's schema version, the
// version the rule applies to and the one it stamps.
struct ModuleScope {
    std::string key;
    std::uint32_t from = 0, to = 0;
};

// What a rule file declares, as loaded.
struct RuleInfo {
    std::string id, summary, format; // format: the format table's name ("spark_save")
    std::string file;                // RuleText::name
    std::optional<ModuleScope> module;
    std::size_t steps = 0, tests = 0;
};

// What one step of a rule did to one save: how many entities, components, properties and
// custom-state pairs it changed (added, renamed, moved, set, retyped, mapped or dropped; a
// value set to what it already was is not counted). A moved property counts both components.
struct StepCount {
    std::string rule;     // the rule's id
    std::size_t step = 0; // 1-based, in the rule file's order
    std::string op;       // "rename-component"
    std::uint64_t entities = 0, components = 0, properties = 0, custom = 0;
    bool touched() const noexcept { return entities || components || properties || custom; }
};

// A chain of rules (one module key) or a rule without a module that did not apply to a save,
// and why: "no fps.profile.version in the custom state", "not at fps.profile.version 1 (found
// \"0\")" (the save is out of the chain's scope), or "at fps.profile.version 3, the newest of its
// rules" (at_newest: the save is up to date for the chain).
struct LeftAlone {
    std::string key; // the module key (empty: a rule without a module)
    std::string reason;
    bool at_newest = false; // at the newest `to` of the chain: up to date, not out of scope
};

struct RulesApplied {
    std::string bytes;              // the save of the current version (v4), read back and checked
    std::uint32_t from_version = 0; // the input's version
    bool changed = false;           // bytes differ from the input's
    std::vector<std::string> migration_notes; // the format migration's (upgrade()'s notes)
    std::vector<std::string> rules_run;       // the ids of the rules that applied, in order
    std::vector<LeftAlone> left_alone;        // the chains and rules that did not
    std::vector<StepCount> steps;             // each step of each rule that ran
};

// What the embedded [[test]]s of a rule set found: how many ran, and the first failure.
struct RuleTestReport {
    std::size_t run = 0;
};

class RuleSet {
  public:
    // Loads and checks rule files given as text, in the order given (the order rules without
    // a module, and chains, run in). Checked here, before any save is read: the TOML syntax,
    // every member (unknown ops and members, missing members, wrong types, `to` <= `from`, a
    // drop without `reason`, a step naming the module key, a `value` that does not convert to its
    // `type`, a `path` that is not a node path, what the format cannot have or hold: a module or
    // a *-custom op in GMSV, a component name GMSV cannot write, a line feed in a text archive
    // value), ids unique across the set, and
    // each module key's rules forming one contiguous chain (1->2, 2->3). The [[test]]s are not
    // run here (test()).
    SPARKSAVE_API static Result<RuleSet> parse(std::span<const RuleText> files);
    // The same from paths: each a rule file, or a folder whose `*.toml` files (not its
    // subfolders) are read in name order. A rule file is at most 1 MiB.
    SPARKSAVE_API static Result<RuleSet> load(std::span<const std::filesystem::path> paths);

    SPARKSAVE_API std::span<const RuleInfo> rules() const noexcept;

    // Applies the set to a save of any version: the format migration to the current version,
    // then each chain as far as the save's module version goes (a rule at a time: its steps in
    // file order, then its module key set to its `to`) and each rule without a module, in load
    // order; then the writer, and the result read back and checked. A save no rule applies to
    // and that needs no format migration comes back as it was (changed false). Errors: the
    // save's own (the reader's first error), a step's (node path, rule and step named: a rename
    // onto a name that exists, a move onto a property that exists, a value that does not
    // convert, a property op on a binary-encoded GMSV component), or the current version's rules
    // refusing the result. A rule without a module whose steps change nothing writes nothing.
    SPARKSAVE_API Result<RulesApplied> apply(std::span<const std::byte> save) const;
    // The same for a parsed save: its bytes (SaveView::bytes()).
    SPARKSAVE_API Result<RulesApplied> apply(const spark_save::SaveView& save) const;

    // Runs every rule's [[test]]s: the input and expected dumps (`dump --json` files, relative
    // to the rule file's base) packed by the format's JSON reader, the rule alone applied to the
    // input (which must be in its scope), and the result compared byte for byte with the
    // expected save. The first failure is the error (naming the rule file and the test).
    SPARKSAVE_API Result<RuleTestReport> test() const;

    struct Data; // the loaded rules (internal)

  private:
    friend struct content_rules::Access;
    explicit RuleSet(std::shared_ptr<const Data> data) noexcept;
    std::shared_ptr<const Data> d_;
};

SPARKSAVE_END_NAMESPACE
