// A batch migration, one file at a time (migrate.hpp BatchMigrator): the work behind
// `sparksave migrate`. Every output is written to a temporary file beside its destination,
// flushed, read back and checked, and only then renamed into place; a file that fails leaves the
// input and any existing output exactly as they were.
#include "content_rules_data.hpp"
#include "file_io_os.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"
#include "sparksave/input.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <shared_mutex>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE

namespace {

// Files at least this large are migrated part by part when their format can (bounded memory).
constexpr std::size_t k_parts_threshold = 1u << 20;

using Kind = FileOutcome::Kind;

// A failure with its report text as the message (code kept for scripts).
Failure failure(Failure::Kind kind, std::string text, ErrorCode code = ErrorCode::bad_value) {
    return {kind, make_error(code, std::move(text))};
}

FileOutcome failed(Failure f, Kind kind = Kind::failed) {
    FileOutcome o;
    o.kind = kind;
    o.failure = std::move(f);
    return o;
}
FileOutcome finding(std::string text, ErrorCode code = ErrorCode::bad_value) {
    return failed(failure(Failure::Kind::finding, std::move(text), code));
}
FileOutcome trouble(std::string text, ErrorCode code = ErrorCode::io_error) {
    return failed(failure(Failure::Kind::trouble, std::move(text), code));
}

// The device and inode (Windows: the volume serial number and file index).
bool same_file(const fs::path& a, const fs::path& b) {
    const os::Status sa = os::status_of(a), sb = os::status_of(b);
    return sa.kind != os::Kind::missing && sb.kind != os::Kind::missing &&
           (sa.identity.device != 0 || sa.identity.inode != 0) &&
           sa.identity.device == sb.identity.device && sa.identity.inode == sb.identity.inode;
}

} // namespace

class BatchMigrator::Impl {
  public:
    explicit Impl(BatchOptions o) : o_(std::move(o)) {}

    // A file that runs out of memory fails alone: its writes are undone as they unwind, the
    // others go on. When other files were being migrated at that moment (--jobs), what they held
    // may be why: it is tried once more, alone (the other threads wait before their next file),
    // so it fails only for its own need.
    FileOutcome run(const InputList::Entry& entry, const Outcome<Destination>& destination) const {
        {
            std::shared_lock shared(alone_);
            struct Running {
                std::atomic<unsigned>& n;
                ~Running() { --n; }
            } running{running_};
            const bool others = ++running_ > 1;
            try {
                return run_known(entry, destination);
            } catch (const std::bad_alloc&) {
                if (!others && running_.load() == 1) return trouble("out of memory");
            }
        }
        std::unique_lock alone(alone_);
        try {
            return run_known(entry, destination);
        } catch (const std::bad_alloc&) {
            return trouble("out of memory");
        }
    }

  private:
    // What run_file knew of a file when it failed: a failure is told with the format and the
    // versions (sparksave-migrate(1) --json).
    struct Known {
        std::string_view format;
        std::uint32_t from = 0, to = 0;
    };
    FileOutcome run_known(const InputList::Entry& entry,
                          const Outcome<Destination>& destination) const {
        Known known;
        FileOutcome r = run_file(entry, destination, known);
        if (r.failure && r.format.empty() && !known.format.empty()) {
            r.format = known.format;
            r.from = known.from;
            r.to = known.to;
        }
        return r;
    }

    FileOutcome run_file(const InputList::Entry& entry, const Outcome<Destination>& destination,
                         Known& known) const {
        const bool walked = entry.from_directory;
        if (entry.role != InputList::Role::save) {
            // formats/README.md §1.7: the engine's own companions are what they are, never saves to
            // bring forward (the engine falls back to a .bak as it is; a .tmp is a torn write).
            if (walked) return failed({}, Kind::left_alone);
            return finding(entry.role == InputList::Role::engine_backup
                               ? "the engine's backup of a slot (<slot>.spark_save.bak) is never "
                                 "migrated: migrate the slot's save"
                               : "an interrupted engine write (<slot>.spark_save.tmp) is never "
                                 "migrated");
        }
        // Held until the output is renamed into place (output.hpp open_locked).
        auto opened = writes_nothing()
                          ? open_input(entry.path, o_.forced, walked).transform([](Input in) {
                                return LockedInput{std::move(in), FileLock()};
                            })
                          : open_locked(entry.path, o_.forced, walked);
        if (!opened) {
            const Error& e = opened.error();
            if (walked && e.code == ErrorCode::unknown_format) return failed({}, Kind::skipped);
            if (e.code == ErrorCode::io_error)
                return failed(failure(Failure::Kind::trouble, e.message, e.code), Kind::unreadable);
            return finding(e.message, e.code);
        }
        std::optional<Input> loaded(std::move(opened->input));
        const Input& in = *loaded;
        const FormatInfo& format = *in.format;
        FileOutcome o;
        o.format = format.name;
        o.to = o_.to.value_or(format.current_version);
        known = {format.name, 0, o.to};
        if (o.to > format.current_version)
            return finding(fmt::format("{} has no version {} (the newest is {})", format.name, o.to,
                                       format.current_version));
        if (!destination) return failed(destination.failure());
        const Destination& dest = *destination;
        // As named (in place, -o), or built under --output-dir: then shown with `/` on every
        // system, as every path the library builds itself.
        o.destination = path_to_utf8(dest.path, dest.mode == Destination::Mode::replace);

        // A large file of a format that reads part by part goes through the steps part by part,
        // in bounded memory, parsed once; a smaller one is read whole (and --dry-run and --check
        // always are: they report on the whole file; so is one bound for standard output, which
        // is checked before a byte of it is printed).
        const bool ruled = has_rules(format);
        if (format.stream && format.part_writer && !writes_nothing() &&
            dest.mode != Destination::Mode::standard_output &&
            in.source->view().size() >= k_parts_threshold) {
            std::optional<FileOutcome> done =
                ruled ? rules_by_parts(loaded, dest, o) : migrate_by_parts(loaded, dest, o);
            if (done) return std::move(*done);
        }

        Parsed parsed = format.read(in.source, ReadOptions{false});
        o.from = parsed.doc.version();
        known.from = o.from;
        if (auto changed = changed_while_read(in)) return trouble(changed->message);
        // An error blocks the file unless a step of its plan repairs it (MigrationStep::repairs);
        // --strict refuses those too.
        if (auto e = unrepaired_error(parsed.findings, format.id, o.from, o.to))
            return finding("does not parse: " + e->describe(), e->code);
        if (const Error* e = parsed.findings.first_error(); e && o_.strict)
            return finding("--strict: not migrated, since the migration would change what the "
                           "file holds (see --dry-run without --strict): " +
                               e->describe(),
                           e->code);
        if (o.from > o.to)
            return finding(fmt::format("{} v{} is newer than the target v{}: no downgrades",
                                       format.name, o.from, o.to));
        if (ruled) return apply_rules(in, dest, std::move(o));
        if (o.from == o.to) return up_to_date(in, dest, std::move(o));
        if (o_.check) {
            o.kind = Kind::needs_migration;
            return o;
        }
        auto migrated = migrate(parsed.doc, o.to);
        if (!migrated) return finding(explain(migrated.error(), parsed.findings));
        for (const MigrationStep* step : migrated->steps) o.steps.emplace_back(step->id);
        o.notes = std::move(migrated->notes);
        o.kind = Kind::migrated;
        if (o_.dry_run) return o;
        if (dest.mode == Destination::Mode::standard_output) {
            o.bytes = std::move(migrated->bytes);
            return o;
        }
        return write_migrated(in, dest, std::move(o), migrated->bytes);
    }

    // The write of a migrated file's bytes (o.kind migrated), and what it came to.
    FileOutcome write_migrated(const Input& in, const Destination& dest, FileOutcome o,
                               std::string_view bytes) const {
        const OutputOptions options = output_options(in, dest, o.from);
        auto written = Output::write(options, bytes);
        if (!written) return failed(std::move(written).failure());
        if (*written == Committed::identical)
            o.kind = Kind::already_migrated;
        else if (options.backup)
            o.backup = path_to_utf8(options.backup->path);
        return o;
    }

    // Whether the rule set has a rule for this format: its files go through RuleSet::apply.
    bool has_rules(const FormatInfo& format) const {
        if (!o_.rules) return false;
        for (const RuleInfo& rule : o_.rules->rules())
            if (rule.format == format.name) return true;
        return false;
    }

    // The format migration to the newest version and the content rules (RuleSet::apply, which
    // checks its result as migrate() does), then the same write as a migration's.
    FileOutcome apply_rules(const Input& in, const Destination& dest, FileOutcome o) const {
        const FormatInfo& format = *in.format;
        if (o.to != format.current_version)
            return finding(fmt::format("content rules bring a save to the newest {} version (v{}), "
                                       "not v{}",
                                       format.name, format.current_version, o.to),
                           ErrorCode::bad_usage);
        const std::string_view view = in.source->view();
        auto applied = o_.rules->apply(std::span<const std::byte>(
            reinterpret_cast<const std::byte*>(view.data()), view.size()));
        if (!applied) return finding(applied.error().describe(), applied.error().code);
        RulesApplied& a = *applied;
        o.ruled = true;
        o.rules_run = std::move(a.rules_run);
        o.rules_left_alone = std::move(a.left_alone);
        o.rule_steps = std::move(a.steps);
        if (!a.changed) return up_to_date(in, dest, std::move(o));
        if (o_.check) {
            o.kind = Kind::needs_migration;
            return o;
        }
        if (o.from < o.to)
            if (auto plan = plan_migration(format.id, o.from, o.to))
                for (const MigrationStep* step : *plan) o.steps.emplace_back(step->id);
        for (std::string& note : a.migration_notes) o.notes.push_back({std::move(note)});
        o.kind = Kind::migrated;
        if (o_.dry_run) return o;
        if (dest.mode == Destination::Mode::standard_output) {
            o.bytes = std::move(a.bytes);
            return o;
        }
        return write_migrated(in, dest, std::move(o), a.bytes);
    }

    // Up to date: in place there is nothing to do (the file is not rewritten: bytes and mtime
    // stay). -o and --output-dir get a copy, so the output tree is complete.
    FileOutcome up_to_date(const Input& in, const Destination& dest, FileOutcome o) const {
        o.kind = Kind::up_to_date;
        if (dest.mode == Destination::Mode::in_place || dest.mode == Destination::Mode::none ||
            writes_nothing())
            return o;
        if (dest.mode == Destination::Mode::standard_output) {
            o.bytes = std::string(in.source->view());
            o.kind = Kind::copied;
            return o;
        }
        OutputOptions options = output_options(in, dest, 0);
        auto written = Output::write(options, in.source->view());
        if (!written) return failed(std::move(written).failure());
        if (*written == Committed::written) o.kind = Kind::copied;
        return o;
    }

    // The write model's options for this input's output: in place, the file keeps its
    // permission bits, owner and extended attributes, and is only replaced while it is still the
    // file that was read; with --backup the original is kept first, FILE.v<old>.bak beside the
    // file a link names.
    // `copied`: the backup is copied from the file, whose bytes are no longer held.
    OutputOptions output_options(const Input& in, const Destination& dest, std::uint32_t from,
                                 bool copied = false) const {
        OutputOptions options;
        options.destination = dest;
        options.input = &in;
        options.syncs = &syncs_;
        if (o_.backup && dest.mode == Destination::Mode::in_place && from != 0) {
            auto target = follow_symlinks(dest.path);
            const fs::path original = target ? *target : dest.path;
            options.backup = Backup{path_from_utf8(backup_name(path_to_utf8(original), from)),
                                    Backup::Policy::never_overwrite,
                                    copied ? std::string_view() : in.source->view(),
                                    copied ? original : fs::path()};
        }
        return options;
    }

    // A result made part by part, into the destination's temporary file: opened at the first
    // bytes (none for a result that is never made), a write the system refuses kept as trouble.
    // Made part by part, the result was never checked whole: it is, as it is read back (the
    // check names the plan's last step, known once the read is done).
    struct PartOutput {
        PartOutput(const Impl& batch, const Input& in, const Destination& dest,
                   const FileOutcome& o)
            : options(batch.output_options(in, dest, 0)), destination(o.destination) {
            options.check = [this, &format = *in.format, to = o.to](std::string_view written) {
                return check_result(format, written, to, last_step);
            };
        }
        PartOutput(const PartOutput&) = delete;
        PartOutput& operator=(const PartOutput&) = delete;

        std::function<Result<void>(std::string_view)> emitter() {
            return [this](std::string_view bytes) -> Result<void> {
                if (!out) {
                    auto opened = Output::open(options);
                    if (!opened) {
                        failure = std::move(opened).failure();
                        return Result<void>(failure->error);
                    }
                    out = std::move(*opened);
                }
                auto r = out->write(bytes);
                if (!r && !failure)
                    failure = sparksave::failure(Failure::Kind::trouble,
                                                 "cannot write " + display(destination) + ": " +
                                                     r.error().message,
                                                 ErrorCode::io_error);
                return r;
            };
        }

        OutputOptions options;
        std::string destination;
        std::string last_step;
        std::unique_ptr<Output> out;
        std::optional<Failure> failure;
    };

    // After the parts went to `po`: the backup named (its name holds the old version, known
    // now), the input let go before the result is mapped to be checked, the rename.
    FileOutcome commit_parts(std::optional<Input>& loaded, const Destination& dest, FileOutcome o,
                             PartOutput& po, const MigratedParts& migrated) const {
        std::optional<Backup> backup = output_options(*loaded, dest, o.from, true).backup;
        if (backup) po.out->keep_backup(*backup);
        if (!migrated.steps.empty()) po.last_step = migrated.steps.back()->id;
        loaded.reset(); // unmap the input before the output is mapped to be checked
        auto committed = po.out->commit();
        if (!committed) {
            Failure f = std::move(committed).failure();
            if (f.kind == Failure::Kind::finding) // the target's rules refused the result
                f.error.message = explain(f.error, migrated.findings);
            return failed(std::move(f));
        }
        for (const MigrationStep* step : migrated.steps) o.steps.emplace_back(step->id);
        o.kind = *committed == Committed::written ? Kind::migrated : Kind::already_migrated;
        if (backup && o.kind == Kind::migrated) o.backup = path_to_utf8(backup->path);
        return o;
    }

    // Migrates part by part into the destination's temporary file: the input is parsed once, let
    // go before the result is read back and checked, so memory stays near one file's size.
    // nullopt: the file is at the target or newer (its head said so): the caller reads it whole.
    std::optional<FileOutcome> migrate_by_parts(std::optional<Input>& loaded,
                                                const Destination& dest, FileOutcome& o) const {
        const Input& in = *loaded;
        const FormatInfo& format = *in.format;
        PartOutput po(*this, in, dest, o);
        auto migrated = migrate_parts(format, in.source, o.to, po.emitter());
        if (po.failure) return failed(std::move(*po.failure));
        if (auto changed = changed_while_read(in)) return trouble(changed->message);
        if (!migrated) return finding(explain(migrated.error(), {}));
        if (migrated->steps.empty()) return std::nullopt; // at the target: checked whole
        o.from = migrated->from;
        // The read stopped at an error: read whole, where a step may repair it (or not).
        if (migrated->findings.first_error()) return std::nullopt;
        o.notes = std::move(migrated->notes);
        return commit_parts(loaded, dest, std::move(o), po, *migrated);
    }

    // The format migration and the content rules part by part (content_rules::apply_by_parts),
    // into the destination's temporary file, as migrate_by_parts. nullopt: the file is read whole
    // (apply_rules).
    std::optional<FileOutcome> rules_by_parts(std::optional<Input>& loaded, const Destination& dest,
                                              FileOutcome& o) const {
        const Input& in = *loaded;
        const FormatInfo& format = *in.format;
        if (o.to != format.current_version) return std::nullopt; // apply_rules refuses it
        PartOutput po(*this, in, dest, o);
        auto applied = content_rules::apply_by_parts(*o_.rules, format, in.source, po.emitter());
        if (po.failure) return failed(std::move(*po.failure));
        if (auto changed = changed_while_read(in)) return trouble(changed->message);
        if (!applied) return finding(explain(applied.error(), {}), applied.error().code);
        if (!*applied) return std::nullopt;
        content_rules::PartsApplied& a = **applied;
        o.from = a.migrated.from;
        o.ruled = true;
        o.rules_run = std::move(a.applied.rules_run);
        o.rules_left_alone = std::move(a.applied.left_alone);
        o.rule_steps = std::move(a.applied.steps);
        if (!a.applied.changed) { // nothing written, or the same bytes: dropped
            po.out.reset();
            return up_to_date(in, dest, std::move(o));
        }
        o.notes = std::move(a.migrated.notes);
        return commit_parts(loaded, dest, std::move(o), po, a.migrated);
    }

    // A rule the target version enforces was usually already a warning in the input (the old
    // reader tolerated it): point at that warning, whose offset is in the user's file.
    // The failure's context (refused_result) stays; the rule is the input's, whose offsets
    // ("first at offset 0xf6") are in the user's file too.
    static std::string explain(const Error& failure, const Findings& input) {
        for (const auto& w : input.items()) {
            if (w.code == failure.code && w.path == failure.path) {
                Error at_input = w;
                at_input.message = failure.message.substr(0, failure.rule_begin);
                at_input.message += w.rule();
                return at_input.describe();
            }
        }
        return failure.describe();
    }

  public:
    // Where this input's output goes: the input itself (in place), -o FILE, or DIR/<path
    // relative to the argument it was found under>. An empty path when nothing is written.
    Outcome<Destination> destination_of(const InputList::Entry& entry) const {
        using Mode = Destination::Mode;
        if (o_.in_place) {
            if (entry.path == "-")
                return failure(Failure::Kind::finding,
                               "standard input cannot be migrated in place; use -o FILE or -o -",
                               ErrorCode::bad_usage);
            return Destination{Mode::in_place, path_from_utf8(entry.path)};
        }
        if (o_.output == "-") return Destination{Mode::standard_output, {}};
        if (!o_.output.empty()) return Destination{Mode::new_file, path_from_utf8(o_.output)};
        if (o_.output_dir.empty()) return Destination{Mode::none, {}};
        const fs::path input = path_from_utf8(entry.path);
        fs::path relative = entry.from_directory
                                ? input.lexically_relative(path_from_utf8(entry.root))
                                : input.filename();
        if (entry.path == "-") relative = "stdin.out";
        fs::path dest = path_from_utf8(o_.output_dir) / relative;
        if (same_file(dest, input))
            return failure(Failure::Kind::finding,
                           "the output " + display(path_to_utf8(dest, true)) +
                               " is the input itself; use --in-place to replace it",
                           ErrorCode::bad_usage);
        return Destination{Mode::replace, dest, true};
    }

  private:
    BatchOptions o_;
    // Every output's directory, made durable once when the batch ends.
    mutable DirectorySyncs syncs_;
    // run(): files migrate under a shared lock; a retry after running out of memory takes it
    // alone. The number of files being migrated now.
    mutable std::shared_mutex alone_;
    mutable std::atomic<unsigned> running_{0};

  public:
    Result<void> sync_directories() const { return syncs_.sync(); }
    bool writes_nothing() const { return o_.dry_run || o_.check; }
};

BatchMigrator::BatchMigrator(BatchOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
BatchMigrator::~BatchMigrator() = default;

std::vector<Outcome<Destination>>
BatchMigrator::destinations(std::span<const InputList::Entry> files) const {
    std::vector<Outcome<Destination>> out;
    out.reserve(files.size());
    std::map<std::string, std::size_t> claimed;
    const bool writes = !impl_->writes_nothing();
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto d = impl_->destination_of(files[i]);
        if (d && !d->path.empty() && writes && files[i].role == InputList::Role::save) {
            std::error_code ec;
            fs::path key = fs::weakly_canonical(d->path, ec);
            if (ec) key = d->path.lexically_normal();
            auto [at, fresh] = claimed.emplace(path_to_utf8(key), i);
            if (!fresh)
                d = failure(Failure::Kind::finding,
                            fmt::format("another input maps to this output ({}, from {})",
                                        display(path_to_utf8(d->path)),
                                        display(files[at->second].path)),
                            ErrorCode::bad_usage);
        }
        out.push_back(std::move(d));
    }
    return out;
}

FileOutcome BatchMigrator::migrate_file(const InputList::Entry& file,
                                        const Outcome<Destination>& destination) const {
    return impl_->run(file, destination);
}

Result<void> BatchMigrator::sync_directories() {
    return impl_->sync_directories();
}

SPARKSAVE_END_NAMESPACE
