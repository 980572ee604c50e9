// Internal to the library: a loaded rule set (sparksave/content_rules.hpp), shared by the loader
// and applier (content_rules.cpp, the one file that includes toml++) and the [[test]] runner
// (content_rules_test.cpp, apart so that an engine that never calls RuleSet::test links no JSON
// code).
#pragma once

#include "sparksave/content_rules.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace content_rules {

enum class Op : std::uint8_t {
    rename_component,
    rename_property,
    move_property,
    set_default,
    set_value,
    retype,
    map_values,
    drop_component,
    drop_property,
    rename_custom,
    set_custom,
    drop_custom,
};

// One [[step]]. Which members an op has: the table k_ops (content_rules.cpp).
struct Step {
    Op op = Op::rename_component;
    std::string_view op_name;
    std::string component, property, from, to, key, value, reason;
    // retype: its `to`; set-default, set-value, set-custom: the `type` given (none: the format's
    // natural type for a value added, the property's own type for one that exists), `value` then
    // holds the value's text in that type as the format writes it.
    ValueType type = ValueType::none;
    std::optional<NodePath> path; // `path` (text archive): the subtree the step is scoped to
    std::vector<std::pair<std::string, std::string>> map; // map-values, in file order
    bool strict = false;
};

struct Test {
    std::filesystem::path input, expected;
    std::string where; // FILE:LINE:COLUMN of the [[test]]
};

struct Rule {
    RuleInfo info;
    const FormatInfo* format = nullptr;
    std::vector<Step> steps;
    std::vector<Test> tests;
    std::string where; // FILE:LINE:COLUMN of its id
};

// What runs, in order: a chain (one module key's rules, sorted by version, contiguous) or one
// rule without a module.
struct Unit {
    std::string key; // empty: `rules` holds one rule without a module
    std::vector<std::size_t> rules;
};

} // namespace content_rules

struct RuleSet::Data {
    std::vector<content_rules::Rule> rules; // load order
    std::vector<RuleInfo> infos;            // rules[i].info, for rules()
    std::vector<content_rules::Unit> units;
};

namespace content_rules {
// Applies `units` of `set` to a save's bytes (RuleSet::apply); the test runner applies one rule
// alone.
Result<RulesApplied> apply_units(const RuleSet::Data& set, std::span<const Unit> units,
                                 std::string_view bytes);

// What apply_by_parts did: the rules' report (RulesApplied without bytes) and the format
// migration's (its steps, notes and the input's findings). `written`: the parts went to `out`, to
// the end (else no rule applies and the save is at the current version: nothing went to `out`).
struct PartsApplied {
    RulesApplied applied;
    MigratedParts migrated;
    bool written = false;
};

struct Access {
    static const RuleSet::Data& data(const RuleSet& set) noexcept { return *set.d_; }
};

// RuleSet::apply for a save too large to hold as a tree (migrate of a large file): read part by
// part (FormatInfo::stream), each part through the format migration (migrate_parts) and then the
// rules' steps (an entity's steps on its part, the custom state's and the module stamps on the
// tail), its bytes to `out` as they are made. The module versions are taken first, from a read
// of the save that keeps only its tail (the custom state follows the entities), and taken again
// on the main read's tail: they must agree. The result is not read back here: the caller checks
// the bytes it received (check_result). nullopt: the save is read whole instead (RuleSet::apply):
// the format cannot be read by parts or by rules on parts (by_class), the read found an error
// (the whole read reports it, or a migration step repairs it), or the save is newer than the
// format's current version.
Result<std::optional<PartsApplied>>
apply_by_parts(const RuleSet& set, const FormatInfo& format, std::shared_ptr<const Source> source,
               const std::function<Result<void>(std::string_view)>& out);
} // namespace content_rules

SPARKSAVE_END_NAMESPACE
