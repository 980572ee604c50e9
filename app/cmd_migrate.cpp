// `sparksave migrate` (CLI.md): bring saves up to the version the current engine loads, safely
// and in parallel. Every output is written to a temporary file beside its destination, flushed,
// read back and verified as a valid file of the target version, and only then renamed into
// place; a file that fails leaves the input and any existing output exactly as they were.
#include "commands.hpp"
#include "common.hpp"

#include "sparksave/file_io.hpp"
#include "sparksave/migrate.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace sparksave::app {

namespace {

// Files at least this large are migrated part by part when their format can (bounded memory).
constexpr std::size_t k_parts_threshold = 1u << 20;

struct MigrateOptions {
    bool list = false;
    std::optional<std::uint32_t> to;
    bool in_place = false;
    bool backup = false;
    std::string output;
    std::string output_dir;
    bool dry_run = false;
    bool check = false;
    unsigned jobs = 0;
    std::vector<std::string> paths;
};

enum class Kind { migrated, already_migrated, up_to_date, copied, needs_migration, failed };

struct Outcome {
    Kind kind = Kind::failed;
    int exit_code = k_exit_ok; // for failures: k_exit_finding, or k_exit_trouble for I/O
    std::string format;
    std::uint32_t from = 0, to = 0;
    std::string destination;
    std::vector<std::string> steps;
    std::vector<std::string> notes;
    std::string reason;
    bool unreadable = false;  // the input could not be read at all
    bool skipped = false;     // found in a walk, of no known format
    bool companion = false;   // the engine's .bak / .tmp of a slot, left alone
    std::string stdout_bytes; // -o -: the output, printed in order by the calling thread
};

int list_steps() {
    std::string text;
    std::string_view current;
    for (const auto& step : migration_steps()) {
        if (format_name(step.format) != current) {
            current = format_name(step.format);
            text += fmt::format("{} (current version {}):\n", current,
                                format_info(step.format).current_version);
        }
        text += fmt::format("  v{} -> v{}  {:<22} {}\n", step.from, step.to, step.id, step.summary);
    }
    out(text);
    out_flush();
    return k_exit_ok;
}

Outcome fail(int exit_code, std::string reason) {
    Outcome o;
    o.kind = Kind::failed;
    o.exit_code = exit_code;
    o.reason = std::move(reason);
    return o;
}

bool same_file(const fs::path& a, const fs::path& b) {
    struct stat sa {
    }, sb{};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

// Writes `bytes` to `dest` unless it already holds exactly them (then it is left alone, mtime
// and all). `replace`: whether a different existing file may be replaced. The new file gets the
// permission bits, owner and extended attributes of `like` (the input it was made from).
Result<bool> write_output(const fs::path& dest, std::string_view bytes, bool replace,
                          const std::function<Result<void>(std::string_view)>& verify,
                          DirectorySyncs& syncs, const std::string& like) {
    struct stat st {};
    if (::stat(dest.c_str(), &st) == 0) {
        // Never opened when it is not a regular file: a FIFO would block, a device would take it.
        if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == bytes.size()) {
            auto existing = read_file(dest, bytes.size());
            if (existing && (*existing)->view() == bytes) return false;
        }
        if (S_ISREG(st.st_mode) && !replace)
            return make_error(ErrorCode::bad_usage,
                              "the destination exists and differs; it is never overwritten");
    }
    if (!dest.parent_path().empty()) {
        std::error_code ec;
        fs::create_directories(dest.parent_path(), ec);
        if (ec)
            return make_error(ErrorCode::io_error,
                              "cannot create " + dest.parent_path().string() + ": " + ec.message());
    }
    AtomicWriteOptions options;
    options.replace_existing = replace;
    options.metadata_from = like;
    options.verify = verify;
    options.directory_syncs = &syncs;
    if (auto r = write_file_atomic(dest, bytes, options); !r) return r.error();
    return true;
}

class Migrator {
  public:
    explicit Migrator(const MigrateOptions& o) : o_(o) {}

    Outcome run(const FileList::Entry& entry, const Result<fs::path>& destination) const {
        try {
            return run_file(entry, destination);
        } catch (const std::bad_alloc&) {
            // This file fails alone (its writes are undone as they unwind); the others go on.
            return fail(k_exit_trouble, "out of memory");
        }
    }

  private:
    Outcome run_file(const FileList::Entry& entry, const Result<fs::path>& destination) const {
        if (entry.role != FileList::Role::save) {
            // FORMATS.md §1.7: the engine's own companions are what they are, never saves to
            // bring forward (the engine falls back to a .bak as it is; a .tmp is a torn write).
            Outcome o = fail(k_exit_finding,
                             entry.role == FileList::Role::engine_backup
                                 ? "the engine's backup of a slot (<slot>.spark_save.bak) is "
                                   "never migrated: migrate the slot's save"
                                 : "an interrupted engine write (<slot>.spark_save.tmp) is never "
                                   "migrated");
            o.companion = true;
            return o;
        }
        const bool walked = entry.from_directory;
        Loaded loaded = load_input(entry.path, walked);
        if (!loaded.input) {
            Outcome o = fail(loaded.exit_code, loaded.error.message);
            o.unreadable = loaded.exit_code == k_exit_trouble;
            o.skipped = skipped_in_walk(loaded, walked);
            return o;
        }
        const Input& in = *loaded.input;
        const FormatInfo& format = *in.format;
        // A large file of a format that reads part by part goes through the steps part by part,
        // in bounded memory; a smaller one is read whole (and --dry-run always is: it needs the
        // tree to report on; so is one bound for standard output, which is checked before a
        // byte of it is printed).
        const bool to_stdout = o_.output == "-";
        const bool by_parts = format.stream && format.part_writer && !o_.dry_run && !to_stdout &&
                              in.source->view().size() >= k_parts_threshold;
        std::optional<Parsed> parsed;
        Findings findings;
        Outcome o;
        o.format = format.name;
        if (by_parts) {
            Summary s = format.summarize(in.source->view());
            o.from = s.version;
            findings = std::move(s.findings);
        } else {
            parsed = format.read(in.source, ReadOptions{false});
            o.from = parsed->doc.version();
            findings = parsed->findings;
        }
        if (auto changed = changed_while_read(in)) return fail(k_exit_trouble, changed->message);
        if (const Error* e = findings.first_error())
            return fail(k_exit_finding, "does not parse: " + e->describe());
        o.to = o_.to.value_or(format.current_version);
        if (o.to > format.current_version)
            return fail(k_exit_finding, fmt::format("{} has no version {} (the newest is {})",
                                                    format.name, o.to, format.current_version));
        if (o.from > o.to)
            return fail(k_exit_finding,
                        fmt::format("{} v{} is newer than the target v{}: no downgrades",
                                    format.name, o.from, o.to));

        if (!destination)
            return fail(destination.error().code == ErrorCode::bad_usage ? k_exit_finding
                                                                         : k_exit_trouble,
                        destination.error().message);
        o.destination = destination->string();

        if (o.from == o.to) {
            o.kind = Kind::up_to_date;
            // In place there is nothing to do: the file is not rewritten (bytes and mtime stay).
            // -o and --output-dir get a copy, so the output tree is complete.
            if (o_.in_place || o_.check || o_.dry_run || o.destination.empty()) return o;
            if (to_stdout) {
                o.stdout_bytes = std::string(in.source->view());
                o.kind = Kind::copied;
                return o;
            }
            auto written = write_output(*destination, in.source->view(), !o_.output_dir.empty(),
                                        verifier(format, o.to), syncs_, in.path);
            if (!written) return write_failure(o.destination, written.error());
            if (*written) o.kind = Kind::copied;
            return o;
        }
        if (o_.check) {
            o.kind = Kind::needs_migration;
            return o;
        }
        if (by_parts) return migrate_by_parts(loaded, findings, std::move(o), *destination);
        auto migrated = migrate(parsed->doc, o.to);
        if (!migrated) return fail(k_exit_finding, explain(migrated.error(), findings));
        for (const MigrationStep* step : migrated->steps) o.steps.emplace_back(step->id);
        o.notes = std::move(migrated->notes);
        o.kind = Kind::migrated;
        if (o_.dry_run) return o;
        if (to_stdout) {
            o.stdout_bytes = std::move(migrated->bytes);
            return o;
        }

        if (o_.in_place) {
            auto file = AtomicFile::create(*destination, in_place_options(in, format, o.to));
            if (!file) return write_failure(o.destination, file.error());
            if (o_.backup)
                if (auto r = write_backup(in, o.from, **file); !r) return backup_failure(r.error());
            if (auto r = (*file)->write(migrated->bytes); !r)
                return write_failure(o.destination, r.error());
            if (auto r = (*file)->commit(); !r) return write_failure(o.destination, r.error());
            return o;
        }
        auto written = write_output(*destination, migrated->bytes, !o_.output_dir.empty(),
                                    verifier(format, o.to), syncs_, in.path);
        if (!written) return write_failure(o.destination, written.error());
        if (!*written) o.kind = Kind::already_migrated;
        return o;
    }

    // In place: the file keeps its permission bits, owner and extended attributes, and is only
    // replaced while it is still the file that was read (FileIdentity): a save the engine wrote
    // meanwhile is left as the engine wrote it.
    AtomicWriteOptions in_place_options(const Input& in, const FormatInfo& format,
                                        std::uint32_t to) const {
        AtomicWriteOptions options;
        options.verify = verifier(format, to);
        options.directory_syncs = &syncs_;
        if (in.identity.regular) options.expect_unchanged = in.identity;
        return options;
    }

    // Writes the migrated file part by part into its destination's temporary file; the input is
    // let go before the result is read back and verified, so memory stays near one file's size.
    Outcome migrate_by_parts(Loaded& loaded, const Findings& findings, Outcome o,
                             const fs::path& destination) const {
        const Input& in = *loaded.input;
        const FormatInfo& format = *in.format;
        AtomicWriteOptions options;
        if (o_.in_place) {
            options = in_place_options(in, format, o.to);
        } else {
            options.verify = verifier(format, o.to);
            options.directory_syncs = &syncs_;
            options.replace_existing = !o_.output_dir.empty();
            options.skip_identical = true;
            options.metadata_from = in.path;
        }
        auto file = AtomicFile::create(destination, options);
        if (!file) return write_failure(o.destination, file.error());
        if (o_.in_place && o_.backup)
            if (auto r = write_backup(in, o.from, **file); !r) return backup_failure(r.error());
        std::optional<Error> write_error; // the system refused a write: trouble, not a finding
        auto migrated = migrate_parts(format, in.source, o.to, [&](std::string_view bytes) {
            auto r = (*file)->write(bytes);
            if (!r && !write_error) write_error = r.error();
            return r;
        });
        if (write_error) return write_failure(o.destination, *write_error);
        if (auto changed = changed_while_read(in)) return fail(k_exit_trouble, changed->message);
        if (!migrated) return fail(k_exit_finding, explain(migrated.error(), findings));
        loaded.input.reset(); // unmap the input before the output is mapped to be checked
        auto committed = (*file)->commit();
        if (!committed) {
            const Error& e = committed.error();
            if (e.code == ErrorCode::io_error || e.code == ErrorCode::bad_usage)
                return write_failure(o.destination, e);
            return fail(k_exit_finding,
                        explain(e, findings)); // the target's rules refused the result
        }
        for (const MigrationStep* step : migrated->steps) o.steps.emplace_back(step->id);
        o.notes = std::move(migrated->notes);
        o.kind = *committed ? Kind::migrated : Kind::already_migrated;
        return o;
    }

    // A refusal to overwrite is a finding (exit 1); anything else the system refused is trouble
    // (exit 2), whatever the file's size, and the message names the destination.
    static Outcome write_failure(const std::string& destination, const Error& e) {
        return fail(e.code == ErrorCode::bad_usage ? k_exit_finding : k_exit_trouble,
                    "cannot write " + show_path(destination) + ": " + e.message);
    }
    static Outcome backup_failure(const Error& e) {
        return fail(e.code == ErrorCode::bad_usage ? k_exit_finding : k_exit_trouble, e.message);
    }

    // A rule the target version enforces was usually already a warning in the input (the old
    // reader tolerated it): point at that warning, whose offset is in the user's file.
    static std::string explain(const Error& failure, const Findings& input) {
        for (const auto& w : input.items()) {
            if (w.code == failure.code && w.path == failure.path) {
                std::string rule = w.message.substr(0, w.message.find(" (the v"));
                Error at_input = w;
                at_input.message = failure.message.substr(0, failure.message.find(": ") + 2) + rule;
                return at_input.describe();
            }
        }
        return failure.describe();
    }

  public:
    // Where this input's output goes: the input itself (in place), -o FILE, or DIR/<path
    // relative to the argument it was found under>. Empty when nothing is written.
    Result<fs::path> destination_of(const FileList::Entry& entry) const {
        if (o_.in_place) {
            if (entry.path == "-")
                return make_error(ErrorCode::bad_usage,
                                  "standard input cannot be migrated in place");
            return fs::path(entry.path);
        }
        if (!o_.output.empty()) return fs::path(o_.output);
        if (o_.output_dir.empty()) return fs::path();
        fs::path relative = entry.from_directory
                                ? fs::path(entry.path).lexically_relative(entry.root)
                                : fs::path(entry.path).filename();
        if (entry.path == "-") relative = "stdin.out";
        fs::path dest = fs::path(o_.output_dir) / relative;
        if (same_file(dest, entry.path))
            return make_error(ErrorCode::bad_usage,
                              "the output " + show_path(dest.string()) +
                                  " is the input itself; use --in-place to replace it");
        return dest;
    }

  private:
    // Re-reads what was written: it must be a valid file of the target version. A rule it breaks
    // comes back with its code and node path (as migrate() reports it), for explain().
    static std::function<Result<void>(std::string_view)> verifier(const FormatInfo& format,
                                                                  std::uint32_t to) {
        return [&format, to](std::string_view written) -> Result<void> {
            Summary s = format.summarize(written);
            if (const Error* e = s.findings.first_error()) {
                Error failed = *e;
                failed.offset = k_no_offset;
                failed.message = fmt::format("the v{} rules refuse the result: {}", to, e->message);
                return failed;
            }
            if (s.version != to)
                return make_error(
                    ErrorCode::internal,
                    fmt::format("the written file reads as v{}, not v{}", s.version, to));
            return {};
        };
    }

    // FILE.v<old>.bak beside the file a link names, with the original's bytes, permission bits,
    // owner, times and extended attributes. It belongs to `migrated` (the write that replaces the
    // original) until that commits: if the migration does not complete, it is removed again, so
    // a retry is not refused. An existing backup is never overwritten; one that already holds
    // exactly the original (left by a run killed before its rename) is kept and used.
    Result<void> write_backup(const Input& in, std::uint32_t old_version,
                              AtomicFile& migrated) const {
        const fs::path& target = migrated.target();
        fs::path backup = backup_name(target.string(), old_version);
        std::error_code ec;
        if (fs::exists(fs::symlink_status(backup, ec))) {
            struct stat st {};
            if (::lstat(backup.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                static_cast<std::uint64_t>(st.st_size) == in.source->view().size()) {
                auto existing = read_file(backup, in.source->view().size());
                if (existing && (*existing)->view() == in.source->view()) return {};
            }
            return make_error(ErrorCode::bad_usage,
                              "the backup " + show_path(backup.string()) +
                                  " exists and is never overwritten: file not migrated");
        }
        AtomicWriteOptions options;
        options.replace_existing = false; // the backup is durable before the original is replaced
        options.metadata_from = target;
        options.keep_times = true;
        options.companion_of = &migrated;
        auto r = write_file_atomic(backup, in.source->view(), options);
        if (!r)
            return make_error(ErrorCode::io_error, "cannot write the backup " +
                                                       show_path(backup.string()) + ": " +
                                                       r.error().message);
        return {};
    }

    const MigrateOptions& o_;
    // Every output's directory, made durable once when the batch ends.
    mutable DirectorySyncs syncs_;

  public:
    Result<void> sync_directories() const { return syncs_.sync(); }
};

// One line per file: a label padded to one width, the path, what happened.
std::string report(const std::string& path, const Outcome& o, const MigrateOptions& opt,
                   bool color) {
    auto label = [&](Style style, std::string_view text) {
        return paint(style, fmt::format("{:<13}", text), color) + " " + show_path(path) + ": ";
    };
    const std::string dest = o.destination.empty() || o.destination == path
                                 ? std::string()
                                 : " -> " + show_path(o.destination);
    switch (o.kind) {
    case Kind::failed:
        return label(Style::fail, "FAIL") + o.reason + "\n";
    case Kind::up_to_date:
        return label(Style::dim, "up to date") + fmt::format("{} v{}\n", o.format, o.from);
    case Kind::copied:
        return label(Style::dim, "up to date") +
               fmt::format("{} v{}, copied{}\n", o.format, o.from, dest);
    case Kind::already_migrated:
        return label(Style::dim, "up to date") +
               fmt::format("{} v{}{} already holds the v{} result\n", o.format, o.from, dest, o.to);
    case Kind::needs_migration:
        return label(Style::warning, "outdated") +
               fmt::format("{} v{}, needs migration to v{}\n", o.format, o.from, o.to);
    case Kind::migrated:
        break;
    }
    std::string line = label(Style::ok, opt.dry_run ? "would migrate" : "migrated") +
                       fmt::format("{} v{} -> v{}{}\n", o.format, o.from, o.to, dest);
    if (opt.dry_run) {
        std::string steps;
        for (const auto& s : o.steps) steps += (steps.empty() ? "" : ", ") + s;
        line += "      steps: " + steps + "\n";
    }
    for (const auto& n : o.notes) line += "      note: " + n + "\n";
    return line;
}

int run_migrate(const MigrateOptions& o) {
    if (o.list) return list_steps();
    const int modes = int(o.in_place) + int(!o.output.empty()) + int(!o.output_dir.empty());
    auto usage = [](const std::string& text) {
        message(text);
        return k_exit_trouble;
    };
    if (o.paths.empty())
        return usage("migrate: give the files or directories to migrate (or --list)");
    if (o.dry_run && o.check) return usage("migrate: --dry-run and --check cannot be combined");
    if (modes > 1)
        return usage("migrate: choose one output mode: --in-place, -o FILE or --output-dir DIR");
    if (modes == 0 && !o.dry_run && !o.check)
        return usage("migrate: choose an output mode: --in-place, -o FILE or --output-dir DIR (or "
                     "--dry-run, --check)");
    if (o.backup && !o.in_place) return usage("migrate: --backup goes with --in-place");

    FileList list = collect_files(o.paths);
    if (!o.output.empty() && (list.files.size() != 1 || list.files[0].from_directory))
        return usage("migrate: -o FILE takes exactly one input file; use --output-dir for several");
    const bool to_stdout = o.output == "-";
    const bool color = to_stdout ? color_stderr() : color_stdout();
    Migrator migrator(o);
    // Every input's destination, decided before any is written: a second input that maps to the
    // output of another (two arguments holding the same relative path, one file named twice) is
    // refused rather than let the two race for one name.
    std::vector<Result<fs::path>> destinations;
    destinations.reserve(list.files.size());
    std::map<std::string, std::size_t> claimed;
    for (std::size_t i = 0; i < list.files.size(); ++i) {
        auto d = migrator.destination_of(list.files[i]);
        if (d && !d->empty() && !(o.dry_run || o.check) &&
            list.files[i].role == FileList::Role::save) {
            std::error_code ec;
            fs::path key = fs::weakly_canonical(*d, ec);
            if (ec) key = d->lexically_normal();
            auto [at, fresh] = claimed.emplace(key.string(), i);
            if (!fresh)
                d = make_error(ErrorCode::bad_usage,
                               fmt::format("another input maps to this output ({}, from {})",
                                           show_path(d->string()),
                                           show_path(list.files[at->second].path)));
        }
        destinations.push_back(std::move(d));
    }
    std::vector<Outcome> outcomes(list.files.size());
    std::size_t migrated = 0, up_to_date = 0, failed = 0, outdated = 0, skipped = 0, left_alone = 0;
    const std::size_t unreadable = list.problems.size();
    int exit_code = list.problems.size() ? k_exit_trouble : k_exit_ok;
    auto emit = [&](const std::string& text) {
        if (!to_stdout) {
            // Each file's line goes out at once: a closed pipe (`migrate ... | head -1`) is
            // noticed at the next file, so no new work starts after it (CLI.md "Everywhere").
            out(text);
            out_flush();
            return;
        }
        out_flush();
        std::fwrite(text.data(), 1, text.size(), stderr);
    };
    Progress progress(o.check ? "checking" : "migrating", list.files.size());
    parallel_for_ordered(
        list.files.size(), o.jobs,
        [&](std::size_t i) { outcomes[i] = migrator.run(list.files[i], destinations[i]); },
        [&](std::size_t i) {
            Outcome& r = outcomes[i];
            progress.step(list.files[i].path);
            progress.clear();
            if (r.skipped || (r.companion && list.files[i].from_directory)) {
                ++(r.skipped ? skipped : left_alone);
                r = Outcome{};
                return;
            }
            switch (r.kind) {
            case Kind::migrated:
                ++migrated;
                break;
            case Kind::already_migrated:
            case Kind::up_to_date:
            case Kind::copied:
                ++up_to_date;
                break;
            case Kind::needs_migration:
                ++outdated;
                record_status(k_exit_finding);
                break;
            case Kind::failed:
                ++failed;
                exit_code = std::max(exit_code, r.exit_code);
                record_status(r.exit_code);
                break;
            }
            if (!r.stdout_bytes.empty()) {
                out(r.stdout_bytes);
                out_flush();
            }
            if (r.kind == Kind::failed && r.unreadable)
                message(show_path(list.files[i].path), r.reason); // like every command: stderr
            else
                emit(report(list.files[i].path, r, o, color));
            r = Outcome{};
        });
    progress.clear();
    if (auto synced = migrator.sync_directories(); !synced) {
        message(synced.error().message);
        exit_code = std::max(exit_code, k_exit_trouble);
    }
    std::string summary;
    if (o.check)
        summary = fmt::format("{} need migration, {} up to date, {} failed", outdated, up_to_date,
                              failed);
    else if (o.dry_run)
        summary = fmt::format("{} would be migrated, {} up to date, {} would fail", migrated,
                              up_to_date, failed);
    else
        summary =
            fmt::format("{} migrated, {} up to date, {} failed", migrated, up_to_date, failed);
    if (skipped) summary += fmt::format(", {} skipped (no known format)", skipped);
    if (left_alone)
        summary += fmt::format(", {} engine {} left alone (.spark_save.bak, .spark_save.tmp)",
                               left_alone, left_alone == 1 ? "companion" : "companions");
    if (!list.stale_temps.empty())
        summary +=
            fmt::format(", {} skipped (stale temporary {} of an interrupted sparksave write)",
                        list.stale_temps.size(), list.stale_temps.size() == 1 ? "file" : "files");
    if (unreadable) summary += fmt::format(", {} unreadable", unreadable);
    emit(summary + "\n");
    out_flush();
    if (o.check && outdated) exit_code = std::max(exit_code, k_exit_finding);
    return exit_code;
}

} // namespace

void setup_migrate(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<MigrateOptions>();
    CLI::App* cmd = app.add_subcommand(
        "migrate", "Bring saves up to the version the current engine loads, safely");
    cmd->add_flag("--list", o->list, "List the migration steps of every format and exit");
    cmd->add_option("--to", o->to,
                    "Target version (default: the newest of each file's format); no downgrades");
    cmd->add_flag("--in-place", o->in_place,
                  "Replace each file (keeps its permission bits; a symbolic link stays a link)");
    cmd->add_flag("--backup", o->backup,
                  "With --in-place: keep the original as FILE.v<old>.bak (never overwrites one)");
    cmd->add_option(
        "-o,--output", o->output,
        "Write the one input to FILE (an existing different FILE is never overwritten; - "
        "writes to standard output, the report to standard error)");
    cmd->add_option(
        "--output-dir", o->output_dir,
        "Write every input under DIR at its path relative to the argument it was found under; "
        "up-to-date files are copied so DIR is complete");
    cmd->add_flag("--dry-run", o->dry_run,
                  "Print each file's plan (the steps that would run) and write nothing");
    cmd->add_flag("--check", o->check,
                  "Write nothing; exit 1 when any file is below the target (for CI)");
    cmd->add_option("-j,--jobs", o->jobs, "Files migrated in parallel (default: one per core)")
        ->check(jobs_check());
    cmd->add_option("PATH", o->paths, "Save files or directories (walked recursively)");
    cmd->footer("Each output is written to a temporary file beside its destination, flushed, read "
                "back and verified,\n"
                "then renamed into place: on any failure the input and any existing output stay as "
                "they were.\n"
                "Exit status: 0 nothing failed, 1 a file could not be migrated (or, with --check, "
                "needs migration),\n"
                "2 bad usage or a path that cannot be read or written.");
    cmd->callback([o, &exit_code] { exit_code = run_migrate(*o); });
}

} // namespace sparksave::app
