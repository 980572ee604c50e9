// Migrations: ordered steps that bring a save from one version of its format to the next,
// applied to the Document tree (README "How it is built"). The steps live in
// migrations/, one file each, listed in order in migrations/registry.cpp.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/content_rules.hpp"
#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/input.hpp"
#include "sparksave/output.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

// A step declares how it applies, so that a file read part by part (format.hpp Parts) is
// migrated by the very functions that migrate a whole tree: `head` changes the file's head
// fields (what comes before the main list, FormatInfo::items), `item` one item of that list,
// `tail` what comes after it; any may be null. The driver (migrate(), migrate_parts) runs head,
// then item on each item in order, then tail, over the whole tree, or each on its part: so a step
// must touch only what its function's part holds (tests/unit/test_migrate.cpp runs every chain
// both ways and compares the bytes). `whole` instead is for a step that needs the whole tree at
// once (it decides from all the items, say): a chain with such a step is never run part by part.
//
// A note of a migration step: what it did beyond the summary (bytes dropped, counts written). A
// counted note ({"Transforms given parent=-1", 3}) is summed over the items and parts of a file
// (merge_notes); describe() prints it "Transforms given parent=-1: 3".
struct MigrationNote {
    std::string text;
    std::optional<std::uint64_t> count = std::nullopt;
    std::string describe() const;
    bool operator==(const MigrationNote&) const = default;
};
using Notes = std::vector<MigrationNote>;

// Each function changes `doc` (a copy the caller owns) from version `from` to `to`, and adds to
// `notes` what it did beyond the summary. An error names the node path.
using StepFunction = Result<void> (*)(Document& doc, Notes& notes);
using ItemStepFunction = Result<void> (*)(Document& doc, NodeId item, std::uint64_t index,
                                          Notes& notes);

struct MigrationStep {
    FormatId format;
    std::uint32_t from;
    std::uint32_t to;
    std::string_view id;      // "spark_save_v1_to_v2"
    std::string_view summary; // one line for `migrate --list`
    StepFunction whole = nullptr;
    StepFunction head = nullptr;
    ItemStepFunction item = nullptr;
    StepFunction tail = nullptr;
    // The errors of an input file this step repairs, reporting each repair in a note (the
    // spark-kv step drops what the current engine refuses and the old reader skipped): a file
    // whose every error is repaired by a step of its plan is migrated (unrepaired_error).
    std::span<const ErrorCode> repairs = {};
    bool by_parts() const noexcept { return whole == nullptr; }
};

// The backup `migrate --backup` keeps of a file it replaces: FILE.v<old version>.bak. A walk
// never takes such a file as a save (is_backup_name), so a later run cannot migrate the backup
// itself.
std::string backup_name(std::string_view file, std::uint32_t old_version);
bool is_backup_name(std::string_view filename) noexcept;

// Every step of every format, grouped by format, in chain order.
std::span<const MigrationStep> migration_steps() noexcept;

// The steps that take `format` from `from` to `to`, in order. Errors: a downgrade, or a gap in
// the chain.
Result<std::vector<const MigrationStep*>> plan_migration(FormatId format, std::uint32_t from,
                                                         std::uint32_t to);

// The first error of `findings` (a file's read) that no step of the plan from `from` to `to`
// repairs (MigrationStep::repairs), or nothing: the file can be migrated. Without a plan (up to
// date, a downgrade, a gap) no error is repaired; errors past those Findings keeps are not
// known, so they are not either (an error says so).
std::optional<Error> unrepaired_error(const Findings& findings, FormatId format, std::uint32_t from,
                                      std::uint32_t to);

struct Migrated {
    std::string bytes;                       // the new file, read back and found valid
    std::vector<const MigrationStep*> steps; // the steps that ran
    Notes notes;
};

struct FormatInfo;
struct Parts;

// Adds `more` to `notes`: a note already there is not repeated, and the counts of counted notes
// of the same text are summed.
void merge_notes(Notes& notes, const Notes& more);

// Migrates a file too large to hold as a tree: read part by part (FormatInfo::stream), each
// part through the steps and the format's part writer, the bytes to `out` as they are made: the
// input is parsed once. Needs the format's stream and part_writer. A file already at `to` or
// newer is not read further than its head: `steps` is empty, nothing went to `out`, and the
// caller checks it whole (summarize) to learn its findings. Otherwise `findings` are the input's
// (when they hold an error, what went to `out` is incomplete: drop it). The result is not checked
// here: the caller reads it back (check_result, through the write model's ResultCheck). Errors: a
// step's error, or `filter`'s.
// `filter`, when given, runs on each part after the steps and before the writer (content rules,
// content_rules.cpp), and a file already at `to` is not stopped at its head: its parts go through
// the filter to the writer (`steps` empty).
struct MigratedParts {
    std::uint32_t from = 0;
    std::vector<const MigrationStep*> steps;
    Notes notes;
    Findings findings;
};
Result<MigratedParts> migrate_parts(const FormatInfo& format, std::shared_ptr<const Source> source,
                                    std::uint32_t to,
                                    const std::function<Result<void>(std::string_view)>& out,
                                    Parts* filter = nullptr);

// The target's rules refused a migrated result: `finding` (from reading the result back) with
// the context in front ("the v4 rules refuse the result of step X: ", no step when empty) and
// rule_begin after it; no offset, since one in the new file would mislead (the path names the
// place).
Error refused_result(const Error& finding, std::uint32_t to, std::string_view step);

// The one check of a migrated result (in memory, or read back from the disk): `bytes` must be a
// valid file of version `to`; a rule it breaks is refused_result's error, attributed to
// `last_step` (the plan's last step).
Result<void> check_result(const FormatInfo& format, std::string_view bytes, std::uint32_t to,
                          std::string_view last_step);

// Applies the plan to a copy of `doc` (which is left unchanged), writes the result with the
// format's writer and reads it back: it must be a valid file of version `to`, else the error
// (with its node path) is returned, attributed to the last step. `doc` must be below `to`.
Result<Migrated> migrate(const Document& doc, std::uint32_t to);

// What a result's read-back check needs of the format's reader: every finding it makes on the
// bytes (as summarize() makes them) and the version it read them as (Summary::version and
// version_known).
struct ReadBack {
    Findings findings;
    std::uint32_t version = 0;
    bool version_known = false;
};

// What migrate() uses of the format it migrates: its name (for messages), its main list and
// writer (FormatInfo::items, write), and its reader's read_back. migrate(doc, to) takes them from
// the format table, whose row names every function of the format (so a link that reaches the
// table holds all of them); the engine's upgrade() (sparksave/save_file.hpp) passes spark_save's
// own, so that an engine links the writer and a structure-only reader, not summarize() or the
// part-by-part read.
struct MigrationTarget {
    FormatId id;
    std::string_view name;
    std::string_view items;
    Result<std::string> (*write)(const Document& doc);
    ReadBack (*read_back)(std::string_view bytes);
};
Result<Migrated> migrate(const Document& doc, std::uint32_t to, const MigrationTarget& target);

// A batch of files brought up to a version (`sparksave migrate`), one call per file: plan, read
// (under the file's lock when the run writes), steps (whole or part by part), the write through
// the write model (output.hpp: verified, with the backup, kept metadata and the in-place identity
// check), and an outcome the caller prints.
struct BatchOptions {
    std::optional<std::uint32_t> to; // default: each format's newest version
    bool in_place = false;
    bool backup = false;    // with in_place: keep FILE.v<old>.bak
    std::string output;     // -o FILE; "-": the bytes are returned in FileOutcome::bytes
    std::string output_dir; // under DIR at the path relative to the argument
    bool dry_run = false;   // run the steps, write nothing
    bool check = false;     // only tell whether the file is below the target
    bool strict = false;    // refuse a file whose errors a step would repair (--strict)
    const FormatInfo* forced = nullptr; // --input-format
    // --rules: content rules (content_rules.hpp), loaded and tested by the caller. A file of a
    // format the set has a rule for is read whole and goes through RuleSet::apply (the format
    // migration to the newest version, then the rules) and the one write below; `to` must then
    // be unset or that newest version. Files of other formats are migrated as without it.
    std::optional<RuleSet> rules;
};

struct FileOutcome {
    enum class Kind : std::uint8_t {
        migrated,
        already_migrated, // the destination already held the result
        up_to_date,
        copied, // up to date, copied to the destination
        needs_migration,
        skipped,    // found in a walk, of no known format: counted, not reported
        left_alone, // the engine's .bak / .tmp of a slot, found in a walk: counted, never migrated
        unreadable, // the input could not be read at all: reported as every command reports it
        failed
    };
    Kind kind = Kind::failed;
    // With unreadable and failed: why, and whether it is a finding or trouble. Its message is
    // the whole report text.
    std::optional<Failure> failure;
    std::string format;
    std::uint32_t from = 0, to = 0;
    std::string destination;
    std::string backup; // migrated in place with --backup: the original's copy, FILE.v<old>.bak
    std::vector<std::string> steps;
    Notes notes;
    std::string bytes; // output "-": the file, checked, for the caller to print in order
    // With rules, a file of a format they are for (RulesApplied's): the ids of the rules that
    // ran, the chains and rules that left the file as it was and why, what each step touched.
    bool ruled = false;
    std::vector<std::string> rules_run;
    std::vector<LeftAlone> rules_left_alone;
    std::vector<StepCount> rule_steps;
};

class BatchMigrator {
  public:
    explicit BatchMigrator(BatchOptions options);
    ~BatchMigrator();
    BatchMigrator(const BatchMigrator&) = delete;
    BatchMigrator& operator=(const BatchMigrator&) = delete;

    // Where each file's output goes (Destination::Mode::none: nothing is written), decided before
    // any is written:
    // a second input that maps to the output of another (two directory arguments holding the
    // same relative path) gets an error instead of racing for one name.
    std::vector<Outcome<Destination>> destinations(std::span<const InputList::Entry> files) const;
    // One file; thread-safe (files are migrated in parallel).
    FileOutcome migrate_file(const InputList::Entry& file,
                             const Outcome<Destination>& destination) const;
    // Makes every output directory of the batch durable (one fsync each).
    Result<void> sync_directories();

  private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

SPARKSAVE_END_NAMESPACE
