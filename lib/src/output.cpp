// The write model (output.hpp): every rule of where a result goes and how it gets there, once.
#include "sparksave/output.hpp"

#include "file_io_os.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE

namespace {

std::string shown(const fs::path& path) {
    return display(path_to_utf8(path, true));
}

// The system refused to write `dest`: trouble, naming it.
Failure cannot_write(const fs::path& dest, const Error& e) {
    Error out = e;
    out.code = ErrorCode::io_error;
    out.message = "cannot write " + shown(dest) + ": " + e.message;
    return Failure::trouble(std::move(out));
}

Failure never_overwritten(const fs::path& dest) {
    return cannot_write(dest, make_error(ErrorCode::io_error,
                                         "the destination exists and differs; it is never "
                                         "overwritten"));
}

// Whether `path` is a regular file holding exactly `bytes` (it is never opened when it is not a
// regular file: a FIFO would block, a device would take it).
bool holds_exactly(const fs::path& path, std::string_view bytes) {
    const os::Status st = os::status_of(path);
    if (st.kind != os::Kind::regular || st.identity.size != bytes.size()) return false;
    auto existing = read_file(path, bytes.size());
    return existing && (*existing)->view() == bytes;
}

// Whether two regular files hold the same bytes, compared in blocks.
bool same_contents(const fs::path& a, const fs::path& b) {
    const os::Status sa = os::status_of(a), sb = os::status_of(b);
    if (sa.kind != os::Kind::regular || sb.kind != os::Kind::regular ||
        sa.identity.size != sb.identity.size)
        return false;
    auto fa = os::open_for_reading(a);
    auto fb = os::open_for_reading(b);
    if (!fa || !fb) return false;
    constexpr std::size_t k_block = 1 << 20;
    std::string ba(k_block, '\0'), bb(k_block, '\0');
    for (std::uint64_t at = 0;;) {
        auto na = os::read_at(fa->get(), ba.data(), k_block, at);
        auto nb = os::read_at(fb->get(), bb.data(), k_block, at);
        if (!na || !nb || *na != *nb) return false;
        if (*na == 0) return at == sa.identity.size;
        if (std::string_view(ba).substr(0, *na) != std::string_view(bb).substr(0, *nb))
            return false;
        at += *na;
    }
}

bool backup_holds(const Backup& b) {
    return b.copy_of.empty() ? holds_exactly(b.path, b.bytes) : same_contents(b.path, b.copy_of);
}

// Writes the backup: its bytes, or a copy of `copy_of` made in blocks.
Result<void> write_backup(const Backup& b, const AtomicWriteOptions& options) {
    auto file = AtomicFile::create(b.path, options);
    if (!file) return file.error();
    if (b.copy_of.empty()) {
        if (auto r = (*file)->write(b.bytes); !r) return r;
    } else {
        auto from = os::open_for_reading(b.copy_of);
        if (!from) return from.error();
        constexpr std::size_t k_block = 1 << 20;
        std::string block(k_block, '\0');
        for (std::uint64_t at = 0;;) {
            auto n = os::read_at(from->get(), block.data(), k_block, at);
            if (!n) return n.error();
            if (*n == 0) break;
            if (auto r = (*file)->write(std::string_view(block).substr(0, *n)); !r) return r;
            at += *n;
        }
    }
    auto committed = (*file)->commit();
    if (!committed) return committed.error();
    return {};
}

} // namespace

struct Output::State {
    OutputOptions options;
    std::unique_ptr<AtomicFile> file;
    std::optional<Error> refusal; // the result check refused the bytes read back: a finding
    std::optional<Failure> backup_failure;
    bool identical = false; // the destination already held the bytes read back
};

Output::Output(std::unique_ptr<State> state) : s_(std::move(state)) {}
Output::~Output() = default;

Outcome<std::unique_ptr<Output>> Output::open(const OutputOptions& options) {
    const Destination& d = options.destination;
    if (d.mode == Destination::Mode::standard_output || d.mode == Destination::Mode::none)
        return Failure::trouble(make_error(ErrorCode::internal, "no file to write"));
    if (d.make_parents && !d.path.parent_path().empty()) {
        std::error_code ec;
        fs::create_directories(d.path.parent_path(), ec);
        if (ec)
            return cannot_write(d.path, make_error(ErrorCode::io_error,
                                                   "cannot create " + shown(d.path.parent_path()) +
                                                       ": " + ec.message()));
    }
    auto state = std::make_unique<State>();
    state->options = options;
    State* s = state.get();
    AtomicWriteOptions atomic;
    atomic.replace_existing = d.mode != Destination::Mode::new_file;
    atomic.temporary = options.temporary;
    atomic.directory_syncs = options.syncs;
    if (d.mode == Destination::Mode::in_place) {
        if (options.input && options.input->identity.regular)
            atomic.expect_unchanged = options.input->identity;
    } else if (options.input) {
        atomic.metadata_from = path_from_utf8(options.input->path);
    }
    // After the temporary file was flushed and read back: the check (beside the comparison of
    // what was read back), then before the rename the identical-bytes test, then the backup (so
    // a write that fails earlier never makes one).
    if (options.check)
        atomic.check = [s](std::string_view written) -> Result<void> {
            auto r = s->options.check(written);
            if (!r) s->refusal = r.error();
            return r;
        };
    atomic.before_rename = [s](std::string_view written) -> Result<bool> {
        const Destination& dest = s->options.destination;
        if (dest.mode != Destination::Mode::in_place && holds_exactly(dest.path, written)) {
            s->identical = true;
            return false;
        }
        if (const auto& b = s->options.backup) {
            const fs::path& target = s->file->target();
            std::error_code ec;
            if (b->policy == Backup::Policy::never_overwrite &&
                fs::exists(fs::symlink_status(b->path, ec))) {
                if (backup_holds(*b)) return true; // a dead run's: kept, used
                s->backup_failure = Failure::trouble(make_error(
                    ErrorCode::io_error, "the backup " + shown(b->path) +
                                             " exists and is never overwritten: file not "
                                             "migrated"));
                return s->backup_failure->error;
            }
            AtomicWriteOptions backup;
            backup.replace_existing = b->policy == Backup::Policy::replace;
            backup.metadata_from = target;
            backup.keep_times = b->keep_times;
            if (b->policy == Backup::Policy::never_overwrite) backup.companion_of = s->file.get();
            if (auto r = write_backup(*b, backup); !r) {
                s->backup_failure = Failure::trouble(
                    make_error(ErrorCode::io_error, "cannot write the backup " + shown(b->path) +
                                                        ": " + r.error().message));
                return s->backup_failure->error;
            }
        }
        return true;
    };
    auto file = AtomicFile::create(d.path, atomic);
    if (!file) return cannot_write(d.path, file.error());
    s->file = std::move(*file);
    return std::unique_ptr<Output>(new Output(std::move(state)));
}

Result<void> Output::write(std::string_view bytes) {
    return s_->file->write(bytes);
}

void Output::keep_backup(Backup backup) {
    s_->options.backup = std::move(backup);
}

Outcome<Committed> Output::commit() {
    State& s = *s_;
    auto committed = s.file->commit();
    if (!committed) {
        // The check ran beside the comparison of the bytes read back, which fails first: the
        // refusal is the failure only when commit() returned it.
        const Error& e = committed.error();
        if (s.refusal && e.code == s.refusal->code && e.message == s.refusal->message)
            return Failure::finding(*s.refusal);
        if (s.backup_failure) return *s.backup_failure;
        return cannot_write(s.options.destination.path, committed.error());
    }
    return s.identical ? Committed::identical : Committed::written;
}

Outcome<Committed> Output::write(const OutputOptions& options, std::string_view bytes) {
    const Destination& d = options.destination;
    // Known whole: an identical destination is left alone without a temporary file (a rerun
    // over an up-to-date output tree writes nothing), a different one refused before any write.
    if (d.mode == Destination::Mode::new_file || d.mode == Destination::Mode::replace) {
        if (holds_exactly(d.path, bytes)) return Committed::identical;
        if (d.mode == Destination::Mode::new_file &&
            os::status_of(d.path).kind == os::Kind::regular)
            return never_overwritten(d.path);
    }
    auto out = open(options);
    if (!out) return std::move(out).failure();
    if (auto r = (*out)->write(bytes); !r) return cannot_write(d.path, r.error());
    return (*out)->commit();
}

Result<LockedInput> open_locked(const std::string& path, const FormatInfo* forced, bool walked) {
    // A path replaced on every try (a program renaming new files over it in a loop) is read
    // unlocked after this many: the identity check before the rename still guards it.
    constexpr int k_tries = 100;
    FileLock lock;
    for (int tries = 0;; ++tries) {
        lock = FileLock(); // never held while waiting for another
        if (path != "-")
            if (auto l = FileLock::acquire(path_from_utf8(path))) lock = std::move(*l);
        auto opened = open_input(path, forced, walked);
        if (!opened) return std::move(opened).error();
        if (!lock.held() || tries == k_tries ||
            (opened->identity.device == lock.identity().device &&
             opened->identity.inode == lock.identity().inode))
            return LockedInput{std::move(*opened), std::move(lock)};
    }
}

SPARKSAVE_END_NAMESPACE
