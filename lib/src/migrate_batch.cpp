// A batch migration, one file at a time (migrate.hpp BatchMigrator): the work behind
// `sparksave migrate`. Every output is written to a temporary file beside its destination,
// flushed, read back and checked, and only then renamed into place; a file that fails leaves the
// input and any existing output exactly as they were.
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

namespace sparksave::inline SPARKSAVE_ABI {

namespace {

// Files at least this large are migrated part by part when their format can (bounded memory).
constexpr std::size_t k_parts_threshold = 1u << 20;

using Kind = FileOutcome::Kind;

FileOutcome fail(bool trouble, std::string reason) {
    FileOutcome o;
    o.kind = Kind::failed;
    o.trouble = trouble;
    o.reason = std::move(reason);
    return o;
}

} // namespace

// The device and inode (Windows: the volume serial number and file index).
bool same_file(const fs::path& a, const fs::path& b) {
    const os::Status sa = os::status_of(a), sb = os::status_of(b);
    return sa.kind != os::Kind::missing && sb.kind != os::Kind::missing &&
           (sa.identity.device != 0 || sa.identity.inode != 0) &&
           sa.identity.device == sb.identity.device && sa.identity.inode == sb.identity.inode;
}

// Writes `bytes` to `dest` unless it already holds exactly them (then it is left alone, mtime
// and all). `replace`: whether a different existing file may be replaced. The new file gets the
// permission bits, owner and extended attributes of `like` (the input it was made from). The
// bytes were checked before (migrate() reads its result back in memory; a copy is the input
// that was read): the write only makes sure the disk holds them.
Result<bool> write_output(const fs::path& dest, std::string_view bytes, bool replace,
                          DirectorySyncs& syncs, const std::string& like) {
    const os::Status st = os::status_of(dest);
    if (st.kind != os::Kind::missing) {
        // Never opened when it is not a regular file: a FIFO would block, a device would take it.
        if (st.kind == os::Kind::regular && st.identity.size == bytes.size()) {
            auto existing = read_file(dest, bytes.size());
            if (existing && (*existing)->view() == bytes) return false;
        }
        if (st.kind == os::Kind::regular && !replace)
            return make_error(ErrorCode::bad_usage,
                              "the destination exists and differs; it is never overwritten");
    }
    if (!dest.parent_path().empty()) {
        std::error_code ec;
        fs::create_directories(dest.parent_path(), ec);
        if (ec)
            return make_error(ErrorCode::io_error, "cannot create " +
                                                       path_to_utf8(dest.parent_path(), true) +
                                                       ": " + ec.message());
    }
    AtomicWriteOptions options;
    options.replace_existing = replace;
    options.metadata_from = path_from_utf8(like);
    options.directory_syncs = &syncs;
    if (auto r = write_file_atomic(dest, bytes, options); !r) return r.error();
    return true;
}

class BatchMigrator::Impl {
  public:
    explicit Impl(BatchOptions o) : o_(std::move(o)) {}

    // A file that runs out of memory fails alone: its writes are undone as they unwind, the
    // others go on. When other files were being migrated at that moment (--jobs), what they held
    // may be why: it is tried once more, alone (the other threads wait before their next file),
    // so it fails only for its own need.
    FileOutcome run(const InputList::Entry& entry, const Result<fs::path>& destination) const {
        {
            std::shared_lock shared(alone_);
            struct Running {
                std::atomic<unsigned>& n;
                ~Running() { --n; }
            } running{running_};
            const bool others = ++running_ > 1;
            try {
                return run_file(entry, destination);
            } catch (const std::bad_alloc&) {
                if (!others && running_.load() == 1) return fail(true, "out of memory");
            }
        }
        std::unique_lock alone(alone_);
        try {
            return run_file(entry, destination);
        } catch (const std::bad_alloc&) {
            return fail(true, "out of memory");
        }
    }

  private:
    FileOutcome run_file(const InputList::Entry& entry, const Result<fs::path>& destination) const {
        if (entry.role != InputList::Role::save) {
            // formats/README.md §1.7: the engine's own companions are what they are, never saves to
            // bring forward (the engine falls back to a .bak as it is; a .tmp is a torn write).
            FileOutcome o =
                fail(false, entry.role == InputList::Role::engine_backup
                                ? "the engine's backup of a slot (<slot>.spark_save.bak) is "
                                  "never migrated: migrate the slot's save"
                                : "an interrupted engine write (<slot>.spark_save.tmp) is never "
                                  "migrated");
            o.companion = true;
            return o;
        }
        const bool walked = entry.from_directory;
        auto opened = open_input(entry.path, o_.forced, walked);
        if (!opened) {
            const Error& e = opened.error();
            const bool trouble = e.code == ErrorCode::io_error;
            FileOutcome o = fail(trouble, e.message);
            o.unreadable = trouble;
            o.skipped = walked && e.code == ErrorCode::unknown_format;
            return o;
        }
        std::optional<Input> loaded(std::move(*opened));
        const Input& in = *loaded;
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
        FileOutcome o;
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
        if (auto changed = changed_while_read(in)) return fail(true, changed->message);
        o.to = o_.to.value_or(format.current_version);
        // An error blocks the file unless a step of its plan repairs it (MigrationStep::repairs);
        // --strict refuses those too.
        if (auto e = unrepaired_error(findings, format.id, o.from, o.to))
            return fail(false, "does not parse: " + e->describe());
        if (const Error* e = findings.first_error(); e && o_.strict)
            return fail(false, "--strict: not migrated, since the migration would change what "
                               "the file holds (see --dry-run without --strict): " +
                                   e->describe());
        if (o.to > format.current_version)
            return fail(false, fmt::format("{} has no version {} (the newest is {})", format.name,
                                           o.to, format.current_version));
        if (o.from > o.to)
            return fail(false, fmt::format("{} v{} is newer than the target v{}: no downgrades",
                                           format.name, o.from, o.to));

        if (!destination)
            return fail(destination.error().code == ErrorCode::bad_usage ? false : true,
                        destination.error().message);
        // As named (in place, -o), or built under --output-dir: then shown with `/` on every
        // system, as every path the library builds itself.
        o.destination = path_to_utf8(*destination, !o_.in_place && !o_.output_dir.empty());

        if (o.from == o.to) {
            o.kind = Kind::up_to_date;
            // In place there is nothing to do: the file is not rewritten (bytes and mtime stay).
            // -o and --output-dir get a copy, so the output tree is complete.
            if (o_.in_place || o_.check || o_.dry_run || o.destination.empty()) return o;
            if (to_stdout) {
                o.bytes = std::string(in.source->view());
                o.kind = Kind::copied;
                return o;
            }
            auto written = write_output(*destination, in.source->view(), !o_.output_dir.empty(),
                                        syncs_, in.path);
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
        if (!migrated) return fail(false, explain(migrated.error(), findings));
        for (const MigrationStep* step : migrated->steps) o.steps.emplace_back(step->id);
        o.notes = std::move(migrated->notes);
        o.kind = Kind::migrated;
        if (o_.dry_run) return o;
        if (to_stdout) {
            o.bytes = std::move(migrated->bytes);
            return o;
        }

        if (o_.in_place) {
            auto file = AtomicFile::create(*destination, in_place_options(in));
            if (!file) return write_failure(o.destination, file.error());
            if (o_.backup)
                if (auto r = write_backup(in, o.from, **file); !r) return backup_failure(r.error());
            if (auto r = (*file)->write(migrated->bytes); !r)
                return write_failure(o.destination, r.error());
            if (auto r = (*file)->commit(); !r) return write_failure(o.destination, r.error());
            return o;
        }
        auto written =
            write_output(*destination, migrated->bytes, !o_.output_dir.empty(), syncs_, in.path);
        if (!written) return write_failure(o.destination, written.error());
        if (!*written) o.kind = Kind::already_migrated;
        return o;
    }

    // In place: the file keeps its permission bits, owner and extended attributes, and is only
    // replaced while it is still the file that was read (FileIdentity): a save the engine wrote
    // meanwhile is left as the engine wrote it.
    AtomicWriteOptions in_place_options(const Input& in) const {
        AtomicWriteOptions options;
        options.directory_syncs = &syncs_;
        if (in.identity.regular) options.expect_unchanged = in.identity;
        return options;
    }

    // Writes the migrated file part by part into its destination's temporary file; the input is
    // let go before the result is read back and verified, so memory stays near one file's size.
    FileOutcome migrate_by_parts(std::optional<Input>& loaded, const Findings& findings,
                                 FileOutcome o, const fs::path& destination) const {
        const Input& in = *loaded;
        const FormatInfo& format = *in.format;
        AtomicWriteOptions options;
        if (o_.in_place) {
            options = in_place_options(in);
        } else {
            options.directory_syncs = &syncs_;
            options.replace_existing = !o_.output_dir.empty();
            options.skip_identical = true;
            options.metadata_from = path_from_utf8(in.path);
        }
        // Made part by part, the result was never checked whole: it is, as it is read back.
        options.verify = verifier(format, o.to);
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
        if (auto changed = changed_while_read(in)) return fail(true, changed->message);
        if (!migrated) return fail(false, explain(migrated.error(), findings));
        loaded.reset(); // unmap the input before the output is mapped to be checked
        auto committed = (*file)->commit();
        if (!committed) {
            const Error& e = committed.error();
            if (e.code == ErrorCode::io_error || e.code == ErrorCode::bad_usage)
                return write_failure(o.destination, e);
            return fail(false, explain(e, findings)); // the target's rules refused the result
        }
        for (const MigrationStep* step : migrated->steps) o.steps.emplace_back(step->id);
        o.notes = std::move(migrated->notes);
        o.kind = *committed ? Kind::migrated : Kind::already_migrated;
        return o;
    }

    // A refusal to overwrite is a finding (exit 1); anything else the system refused is trouble
    // (exit 2), whatever the file's size, and the message names the destination.
    static FileOutcome write_failure(const std::string& destination, const Error& e) {
        return fail(e.code == ErrorCode::bad_usage ? false : true,
                    "cannot write " + display(destination) + ": " + e.message);
    }
    static FileOutcome backup_failure(const Error& e) {
        return fail(e.code == ErrorCode::bad_usage ? false : true, e.message);
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
    // relative to the argument it was found under>. Empty when nothing is written.
    Result<fs::path> destination_of(const InputList::Entry& entry) const {
        if (o_.in_place) {
            if (entry.path == "-")
                return make_error(ErrorCode::bad_usage,
                                  "standard input cannot be migrated in place");
            return path_from_utf8(entry.path);
        }
        if (!o_.output.empty()) return path_from_utf8(o_.output);
        if (o_.output_dir.empty()) return fs::path();
        const fs::path input = path_from_utf8(entry.path);
        fs::path relative = entry.from_directory
                                ? input.lexically_relative(path_from_utf8(entry.root))
                                : input.filename();
        if (entry.path == "-") relative = "stdin.out";
        fs::path dest = path_from_utf8(o_.output_dir) / relative;
        if (same_file(dest, input))
            return make_error(ErrorCode::bad_usage,
                              "the output " + display(path_to_utf8(dest, true)) +
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
            if (const Error* e = s.findings.first_error()) return refused_result(*e, to, {});
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
        const fs::path backup = path_from_utf8(backup_name(path_to_utf8(target), old_version));
        std::error_code ec;
        if (fs::exists(fs::symlink_status(backup, ec))) {
            const os::Status st = os::status_of(backup, /*follow=*/false);
            if (st.kind == os::Kind::regular && st.identity.size == in.source->view().size()) {
                auto existing = read_file(backup, in.source->view().size());
                if (existing && (*existing)->view() == in.source->view()) return {};
            }
            return make_error(ErrorCode::bad_usage,
                              "the backup " + display(path_to_utf8(backup, true)) +
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
                                                       display(path_to_utf8(backup, true)) + ": " +
                                                       r.error().message);
        return {};
    }

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

std::vector<Result<fs::path>>
BatchMigrator::destinations(std::span<const InputList::Entry> files) const {
    std::vector<Result<fs::path>> out;
    out.reserve(files.size());
    std::map<std::string, std::size_t> claimed;
    const bool writes = !impl_->writes_nothing();
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto d = impl_->destination_of(files[i]);
        if (d && !d->empty() && writes && files[i].role == InputList::Role::save) {
            std::error_code ec;
            fs::path key = fs::weakly_canonical(*d, ec);
            if (ec) key = d->lexically_normal();
            auto [at, fresh] = claimed.emplace(path_to_utf8(key), i);
            if (!fresh)
                d = make_error(ErrorCode::bad_usage,
                               fmt::format("another input maps to this output ({}, from {})",
                                           display(path_to_utf8(*d)),
                                           display(files[at->second].path)));
        }
        out.push_back(std::move(d));
    }
    return out;
}

FileOutcome BatchMigrator::migrate_file(const InputList::Entry& file,
                                        const Result<fs::path>& destination) const {
    return impl_->run(file, destination);
}

Result<void> BatchMigrator::sync_directories() {
    return impl_->sync_directories();
}

} // namespace sparksave
