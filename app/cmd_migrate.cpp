// `sparksave migrate` (sparksave-migrate(1)): bring saves up to the version the current engine
// loads, safely and in parallel. Every output is written to a temporary file beside its
// destination, flushed, read back and verified as a valid file of the target version, and only then
// renamed into place; a file that fails leaves the input and any existing output exactly as they
// were.
#include "commands.hpp"
#include "common.hpp"
#include "records.hpp"
#include "usage.hpp"

#include "sparksave/content_rules.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace sparksave::app {

namespace {

struct MigrateOptions {
    bool list = false;
    bool json = false;
    BatchOptions batch; // what the library does with each file
    unsigned jobs = 0;
    std::vector<std::string> paths;
    FilesFrom from;
    std::vector<std::string> rules; // --rules FILE_OR_DIR, repeatable
};

using Kind = FileOutcome::Kind;

// --rules: the rule files loaded and checked, and their [[test]]s run, before any save is read;
// any failure is a usage error naming FILE:LINE:COLUMN (exit 2, nothing touched).
std::optional<RuleSet> load_rules(const std::vector<std::string>& paths, std::size_t* tests) {
    if (paths.empty()) return std::nullopt;
    std::vector<fs::path> files;
    for (const std::string& path : paths) {
        // A path that is not there, said as a usage error (RuleSet::load's read error is io_error).
        std::error_code ec;
        if (!fs::exists(path_from_utf8(path), ec))
            usage_error("--rules: " + show_path(path) + ": no such rule file or folder");
        files.push_back(path_from_utf8(path));
    }
    auto set = RuleSet::load(files);
    if (!set) usage_error("--rules: " + set.error().message);
    auto tested = set->test();
    if (!tested) usage_error("--rules: " + tested.error().message);
    if (tests) *tests = tested->run;
    return std::move(*set);
}

int list_steps(const std::vector<std::string>& rule_paths) {
    std::size_t tests = 0;
    const std::optional<RuleSet> rules = load_rules(rule_paths, &tests);
    const auto p = stdout_printer(false);
    std::string_view current;
    for (const auto& step : migration_steps()) {
        if (format_name(step.format) != current) {
            current = format_name(step.format);
            p->line(fmt::format("{} (current version {}):", current,
                                format_info(step.format).current_version));
        }
        p->line(fmt::format("  v{} -> v{}  {:<22} {}", step.from, step.to, step.id, step.summary));
    }
    if (rules) print(*p, RuleChainsRecord{rules->rules(), tests});
    p->finish();
    out_flush();
    return k_exit_ok;
}

constexpr std::string_view k_no_paths = "give the files or directories to migrate (or --list)";

// Usage errors (usage.hpp), said before any file is read.
void check_usage(const MigrateOptions& o) {
    const int modes =
        int(o.batch.in_place) + int(!o.batch.output.empty()) + int(!o.batch.output_dir.empty());
    if (o.paths.empty() && o.from.list.empty()) usage_error(std::string(k_no_paths));
    if (o.batch.dry_run && o.batch.check) usage_error("--dry-run and --check cannot be combined");
    if (modes > 1) usage_error("choose one output mode: --in-place, -o FILE or --output-dir DIR");
    if (modes == 0 && !o.batch.dry_run && !o.batch.check)
        usage_error("choose an output mode: --in-place, -o FILE or --output-dir DIR (or "
                    "--dry-run, --check)");
    if (o.batch.backup && !o.batch.in_place) usage_error("--backup goes with --in-place");
    if (!o.rules.empty() && o.batch.to)
        usage_error("--rules brings each save to its format's newest version: leave --to out");
    if (o.batch.in_place && std::find(o.paths.begin(), o.paths.end(), "-") != o.paths.end())
        usage_error("--in-place cannot replace standard input (-): use -o FILE or -o - for "
                    "standard input");
}

int run_migrate(const MigrateOptions& o) {
    if (o.list) return list_steps(o.rules);
    check_usage(o);
    BatchOptions batch = o.batch;
    const auto paths = all_paths("migrate", o.paths, o.from, k_no_paths);
    if (!paths) return k_exit_trouble;
    batch.rules = load_rules(o.rules, nullptr); // before any save is read
    FileList list = collect_files(*paths);
    if (!o.batch.output.empty() && (list.files.size() != 1 || list.files[0].from_directory))
        usage_error("-o FILE takes exactly one input file; use --output-dir for several");
    const bool to_stdout = o.batch.output == "-";
    batch.forced = forced_format();
    const std::span<const RuleInfo> rule_infos =
        batch.rules ? batch.rules->rules() : std::span<const RuleInfo>();
    BatchMigrator migrator(std::move(batch));
    const std::vector<Outcome<Destination>> destinations = migrator.destinations(list.files);
    std::vector<FileOutcome> outcomes(list.files.size());
    MigrateSummary summary;
    summary.mode = o.batch.check     ? MigrateSummary::Mode::check
                   : o.batch.dry_run ? MigrateSummary::Mode::dry_run
                                     : MigrateSummary::Mode::migrate;
    RuleTotals totals; // --rules: each rule step's counts in all
    summary.unreadable = list.problems.size();
    summary.stale_temps = list.stale_temps.size();
    int exit_code = list.problems.size() ? k_exit_trouble : k_exit_ok;
    // The report goes to standard error when the migrated file goes to standard output.
    Printer::Sink sink = [to_stdout](std::string_view text) {
        if (!to_stdout) {
            // Each file's record goes out at once: a closed pipe (`migrate ... | head -1`) is
            // noticed at the next file, so no new work starts after it (sparksave(1) EXIT STATUS).
            out(text);
            out_flush();
            return;
        }
        out_flush();
        err(text);
    };
    const auto printer =
        o.json ? json_printer(std::move(sink))
               : text_printer(std::move(sink), to_stdout ? color_stderr() : color_stdout());
    Progress progress(o.batch.check ? "checking" : "migrating", list.files.size());
    parallel_for_ordered(
        list.files.size(), o.jobs,
        [&](std::size_t i) { outcomes[i] = migrator.migrate_file(list.files[i], destinations[i]); },
        [&](std::size_t i) {
            FileOutcome& r = outcomes[i];
            progress.step(list.files[i].path);
            progress.clear();
            switch (r.kind) {
            case Kind::skipped:
                ++summary.skipped;
                break;
            case Kind::left_alone:
                ++summary.left_alone;
                break;
            case Kind::migrated:
                ++summary.migrated;
                break;
            case Kind::already_migrated:
            case Kind::up_to_date:
            case Kind::copied:
                ++summary.up_to_date;
                break;
            case Kind::needs_migration:
                ++summary.outdated;
                record_status(k_exit_finding);
                break;
            case Kind::failed:
            case Kind::unreadable:
                ++summary.failed;
                exit_code = std::max(exit_code, r.failure->exit_status());
                record_status(r.failure->exit_status());
                break;
            }
            if (std::any_of(r.rules_left_alone.begin(), r.rules_left_alone.end(),
                            [](const LeftAlone& l) { return !l.at_newest; }))
                ++summary.out_of_scope;
            totals.add(r.rule_steps);
            if (!r.bytes.empty()) {
                out(r.bytes);
                out_flush();
            }
            // An unreadable file is said on stderr, as every command says it (and, with --json,
            // has its record too).
            if (r.kind == Kind::unreadable)
                message(show_path(list.files[i].path), r.failure->error.message);
            if (r.kind != Kind::unreadable || o.json)
                print(*printer, MigrateRecord{list.files[i].path, &r, o.batch.dry_run, rule_infos});
            r = FileOutcome{};
        });
    progress.clear();
    if (auto synced = migrator.sync_directories(); !synced) {
        message(synced.error().message);
        exit_code = std::max(exit_code, k_exit_trouble);
    }
    summary.rule_steps = totals.steps;
    print(*printer, summary);
    printer->finish();
    out_flush();
    if (o.batch.check && summary.outdated) exit_code = std::max(exit_code, k_exit_finding);
    return exit_code;
}

} // namespace

void setup_migrate(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<MigrateOptions>();
    CLI::App* cmd = app.add_subcommand(
        "migrate", "Bring saves up to the version the current engine loads, safely");
    CLI::Option* list =
        cmd->add_flag("--list", o->list,
                      "List every format's migration steps (with --rules: also the rules' "
                      "chains) and exit");
    whole_number(cmd->add_option("--to", o->batch.to,
                                 "Target version (default: the newest of each file's format); no "
                                 "downgrades"),
                 "a version number", 1, UINT32_MAX, "versions start at 1");
    cmd->add_flag("--in-place", o->batch.in_place,
                  "Replace each file (keeps its permission bits; a symbolic link stays a link)");
    cmd->add_flag("--backup", o->batch.backup,
                  "With --in-place: keep the original as FILE.v<old>.bak (never overwrites one)");
    cmd->add_option(
           "-o,--output", o->batch.output,
           "Write the one input to FILE (an existing different FILE is never overwritten; - "
           "writes to standard output, the report to standard error)")
        ->type_name("FILE");
    cmd->add_option(
           "--output-dir", o->batch.output_dir,
           "Write every input under DIR at its path relative to the argument it was found under; "
           "up-to-date files are copied so DIR is complete")
        ->type_name("DIR");
    cmd->add_flag("--dry-run", o->batch.dry_run,
                  "Print each file's plan (the steps that would run) and write nothing");
    cmd->add_flag("--check", o->batch.check,
                  "Write nothing; exit 1 when any file is below the target (for CI)");
    cmd->add_flag("--strict", o->batch.strict,
                  "Refuse a file the migration would repair instead (a spark-kv line dropped, a "
                  "repeated key collapsed)");
    cmd->add_option("--rules", o->rules,
                    "Content rules after the format migration: a TOML rule file or a folder of "
                    "*.toml, repeatable; checked and tested before any save is read")
        ->allow_extra_args(false)
        ->type_name("FILE|DIR");
    cmd->add_flag("--json", o->json,
                  "One JSON object per file (JSON Lines: path, format, from, to, outcome, "
                  "output, backup, steps, notes, error, rules), then a summary object");
    add_jobs_option(*cmd, o->jobs, "Files migrated in parallel (default: one per core)");
    cmd->add_option("PATH", o->paths, "Save files or directories (walked recursively)");
    add_files_from(*cmd, o->from);
    cmd->footer("Each output is written to a temporary file beside its destination, flushed, read "
                "back and verified,\n"
                "then renamed into place: on any failure the input and any existing output stay as "
                "they were.\n"
                "With --rules, a save whose module version is not a rule's `from` is left as the "
                "rules found it.\n"
                "Exit status: 0 nothing failed, 1 a file could not be migrated (or, with --check, "
                "needs migration),\n"
                "2 bad usage (a rule file's error or a failing [[test]] too) or a path that "
                "cannot be read or written.");
    cmd->callback([o, cmd, list, &exit_code] {
        check_alone(*cmd, *list, {"--rules"});
        exit_code = run_migrate(*o);
    });
}

} // namespace sparksave::app
