// File reading with limits, and the shared atomic write. Every rule is here once; the system
// calls are file_io_os.hpp's (file_io_posix.cpp, file_io_win32.cpp).
#include "sparksave/file_io.hpp"

#include "file_io_os.hpp"
#include "sparksave/alongside.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/version.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE

namespace {

constexpr std::uint64_t k_map_threshold = 1 << 20;
constexpr std::size_t k_write_block = 1 << 20;
// The disk is asked to take each this many bytes of a file being written (AtomicFile::put).
constexpr std::uint64_t k_writeback_block = 8 << 20;
// A file of this many bytes is checked beside its fsync and the comparison of its CRC
// (AtomicFile::commit).
constexpr std::size_t k_parallel_check = 4 << 20;

Error changed_while_read() {
    return make_error(ErrorCode::io_error, "the file changed while it was read");
}

// Reads exactly `size` bytes from the start of a regular file into `into`; a file that ended
// sooner changed while it was read.
Result<void> read_into(os::Native fd, char* into, std::size_t size) {
    std::size_t got = 0;
    while (got < size) {
        auto n = os::read_at(fd, into + got, size - got, got);
        if (!n) return n.error();
        if (*n == 0) return changed_while_read();
        got += *n;
    }
    return {};
}

Result<std::string> read_exactly(os::Native fd, std::size_t size) {
    std::string buffer(size, '\0');
    if (auto r = read_into(fd, buffer.data(), size); !r) return r.error();
    return buffer;
}

// A whole large file that is not mapped, in a buffer not zero-filled first (zeroing pack's
// 29 MB JSON cost 2 % of its instructions).
Result<std::shared_ptr<const Source>> read_whole(os::Native fd, std::size_t size) {
    auto buffer = std::make_unique_for_overwrite<char[]>(size);
    if (auto r = read_into(fd, buffer.get(), size); !r) return r.error();
    return std::make_shared<const Source>(std::move(buffer), size);
}

// The bytes of a file just written, read again from the disk.
Result<std::string> read_back(os::Native fd, std::size_t expected) {
    std::string buf(expected, '\0');
    std::size_t got = 0;
    while (got < expected) {
        auto n = os::read_at(fd, buf.data() + got, expected - got, got, "cannot read back");
        if (!n) return n.error();
        if (*n == 0) break;
        got += *n;
    }
    if (got != expected)
        return make_error(ErrorCode::io_error,
                          fmt::format("read back {} of the {} bytes written", got, expected));
    return buf;
}

// Reads a stream to its end in blocks, handing the first `head_bytes` to `limit_of` and
// refusing it as soon as it passes the limit (never more than the limit and one block held).
Result<std::shared_ptr<const Source>>
read_stream(os::Native fd, std::size_t head_bytes,
            const std::function<Result<std::uint64_t>(std::string_view)>& limit_of) {
    constexpr std::size_t k_block = 1 << 20;
    std::vector<std::string> blocks;
    std::uint64_t total = 0;
    std::optional<std::uint64_t> limit;
    std::string head; // the first head_bytes, gathered before limit_of decides
    for (;;) {
        std::string block(k_block, '\0');
        std::size_t used = 0;
        bool eof = false;
        while (used < block.size()) {
            auto n = os::read_some(fd, block.data() + used, block.size() - used);
            if (!n) return n.error();
            if (*n == 0) {
                eof = true;
                break;
            }
            used += *n;
            // Decide on the head as soon as it is there: an endless stream of something that is
            // no save is refused after its first block, not after the largest limit.
            if (!limit && total + used >= head_bytes) break;
        }
        block.resize(used);
        total += used;
        if (!limit && (eof || total >= head_bytes)) {
            for (const auto& b : blocks) head += b;
            head += block;
            if (head.size() > head_bytes) head.resize(head_bytes);
            auto l = limit_of(head);
            if (!l) return l.error();
            limit = *l;
        }
        if (limit && total > *limit)
            return make_error(ErrorCode::too_large,
                              fmt::format("expected at most {} bytes, found more", *limit));
        if (used) blocks.push_back(std::move(block));
        if (eof) break;
    }
    std::string all;
    if (blocks.size() == 1) {
        all = std::move(blocks[0]);
    } else {
        all.reserve(static_cast<std::size_t>(total));
        for (auto& b : blocks) {
            all += b;
            std::string().swap(b);
        }
    }
    return std::make_shared<const Source>(std::move(all));
}

} // namespace

Result<OpenedFile>
read_input(const fs::path& path, std::size_t head_bytes,
           const std::function<Result<std::uint64_t>(std::string_view)>& limit_of, bool may_map) {
    OpenedFile out;
    os::File owned;
    os::Native fd = os::standard_input();
    if (path != "-") {
        auto opened = os::open_for_reading(path);
        if (!opened) return opened.error();
        owned = std::move(*opened);
        fd = owned.get();
    }
    auto st = os::status_of(fd);
    if (!st) return st.error();
    if (st->kind == os::Kind::directory) return make_error(ErrorCode::io_error, "is a directory");
    out.identity = st->identity;
    if (st->kind != os::Kind::regular) {
        auto source = read_stream(fd, head_bytes, limit_of);
        if (!source) return source.error();
        out.source = std::move(*source);
        return out;
    }
    const std::uint64_t size = st->identity.size;
    std::string small;
    std::string_view head;
    if (size < k_map_threshold) {
        auto whole = read_exactly(fd, static_cast<std::size_t>(size));
        if (!whole) return whole.error();
        small = std::move(*whole);
        head = std::string_view(small).substr(0, head_bytes);
    } else {
        auto first =
            read_exactly(fd, static_cast<std::size_t>(std::min<std::uint64_t>(head_bytes, size)));
        if (!first) return first.error();
        small = std::move(*first);
        head = small;
    }
    auto limit = limit_of(head);
    if (!limit) return limit.error();
    if (size > *limit)
        return make_error(ErrorCode::too_large,
                          fmt::format("expected at most {} bytes, found {}", *limit, size));
    if (size >= k_map_threshold) {
        // Large files are mapped, not copied: on this kind of machine a read() of 240 MB costs a
        // second of copying and page faults, a populated mapping a tenth of that
        // (bench/README.md).
        if (may_map) out.source = os::map_input(fd, static_cast<std::size_t>(size));
        if (!out.source) {
            auto whole = read_whole(fd, static_cast<std::size_t>(size));
            if (!whole) return whole.error();
            out.source = std::move(*whole);
        }
    } else {
        out.source = std::make_shared<const Source>(std::move(small));
    }
    // Written meanwhile (grown, shrunk, rewritten): what was read is not one version of it.
    auto after = os::status_of(fd);
    if (after && after->identity != out.identity) return changed_while_read();
    return out;
}

Result<std::shared_ptr<const Source>> read_file(const fs::path& path, std::uint64_t max_bytes) {
    auto opened = read_input(
        path, 0, [max_bytes](std::string_view) -> Result<std::uint64_t> { return max_bytes; });
    if (!opened) return opened.error();
    return std::move(opened->source);
}

bool is_temporary_name(std::string_view name) noexcept {
    constexpr std::string_view k_mark = ".sparksave-";
    if (name.size() < 1 + k_mark.size() + 6 || name[0] != '.') return false;
    const std::string_view tail = name.substr(name.size() - 6);
    if (name.substr(name.size() - 6 - k_mark.size(), k_mark.size()) != k_mark) return false;
    return std::all_of(tail.begin(), tail.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
}

struct FileLock::State {
    os::Lock lock;
    FileIdentity identity;
};

FileLock::FileLock() noexcept = default;
FileLock::~FileLock() = default;
FileLock::FileLock(FileLock&&) noexcept = default;
FileLock& FileLock::operator=(FileLock&&) noexcept = default;

bool FileLock::held() const noexcept {
    return s_ && s_->lock.held();
}

const FileIdentity& FileLock::identity() const noexcept {
    static const FileIdentity none;
    return s_ ? s_->identity : none;
}

Result<FileLock> FileLock::acquire(const fs::path& path) {
    // A path replaced on every try (a program renaming new files over it in a loop) is given up
    // on rather than chased for ever; the caller then goes on unlocked, as where no locks exist.
    constexpr int k_tries = 100;
    FileLock out;
    for (int tries = 0; tries < k_tries; ++tries) {
        auto file = os::open_for_lock(path);
        if (!file) return file.error();
        auto st = os::status_of(file->get());
        if (!st) return st.error();
        if (st->kind != os::Kind::regular) return out; // a FIFO, a device: nothing to lock
        auto lock = os::lock_file(std::move(*file), st->identity);
        if (!lock) return lock.error();
        if (!lock->held()) return out;
        // Locked: is it still the file the path names? Another write may have renamed its new
        // file over it while this one waited; then that new file is the one to lock.
        const os::Status now = os::status_of(path);
        if (now.kind == os::Kind::regular && now.identity.device == st->identity.device &&
            now.identity.inode == st->identity.inode) {
            out.s_ = std::make_unique<State>(State{std::move(*lock), st->identity});
            return out;
        }
    }
    return out;
}

bool temporary_in_use(const fs::path& path) noexcept {
    return os::temporary_held(path);
}

Result<fs::path> follow_symlinks(const fs::path& path) {
    fs::path p = path;
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        auto st = fs::symlink_status(p, ec);
        if (ec || !fs::is_symlink(st)) return p;
        fs::path target = fs::read_symlink(p, ec);
        if (ec)
            return make_error(ErrorCode::io_error,
                              "cannot read the symbolic link: " + ec.message());
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
    return make_error(ErrorCode::io_error, "too many levels of symbolic links");
}

namespace {

// Temporary files (and companions) of writes in progress. Creating, committing and abandoning
// a write take g_writes; the paths are also readable without it (atomics), for
// remove_temporary_files() in a signal handler.
struct TempSlot {
    std::atomic<const os::PathChar*> tmp{nullptr};
    std::atomic<const os::PathChar*> companion{nullptr};
};
constexpr int k_temp_slots = 4096; // two per parallel job (a backup and its file) and to spare
TempSlot g_temps[k_temp_slots];
std::mutex g_writes;
bool g_abandoned = false; // guarded by g_writes: abandon_writes() was called

// `.NAME.sparksave-XXXXXX` in `dir`, with NAME cut short when the whole would be longer than
// the directory allows: the temporary name fits wherever the target's name fits.
fs::path temporary_template(const fs::path& dir, const fs::path& name) {
    constexpr std::size_t k_suffix = std::string_view(".sparksave-XXXXXX").size();
    const std::size_t name_max = os::max_name_length(dir);
    auto kept = name.native();
    const std::size_t room = name_max > 1 + k_suffix ? name_max - 1 - k_suffix : 0;
    if (kept.size() > room) kept.resize(room);
    fs::path file = fs::path(".");
    file += kept;
    file += ".sparksave-XXXXXX";
    return dir / file;
}

} // namespace

struct AtomicFile::State {
    fs::path target;
    fs::path dir;
    fs::path tmp;       // never changed once registered: its slot points at its characters
    fs::path companion; // a file made for this write (a backup), removed unless it commits
    int slot = -1;
    os::File fd;
    os::Lock held; // the temporary file is in use (temporary_in_use) until this is released
    AtomicWriteOptions options;
    os::Kept meta; // the file whose mode, owner, attributes (and times) the new one gets
    bool have_meta = false;
    std::string buffer;
    std::uint32_t crc = 0;
    std::uint64_t size = 0;      // written (buffered or not)
    std::uint64_t put = 0;       // handed to the file
    std::uint64_t writeback = 0; // asked to be written to the disk (os::start_writeback)
    bool done = false;

    // With g_writes held: forget the temporary file (and companion) of this write.
    void release_slot() {
        if (slot < 0) return;
        g_temps[slot].tmp.store(nullptr);
        g_temps[slot].companion.store(nullptr);
        slot = -1;
    }
};

Result<std::unique_ptr<AtomicFile>> AtomicFile::create(const fs::path& target_in,
                                                       const AtomicWriteOptions& options) {
    auto followed = follow_symlinks(target_in);
    if (!followed) return followed.error();
    auto state = std::make_unique<State>();
    state->target = *followed;
    state->dir = state->target.parent_path();
    if (state->dir.empty()) state->dir = ".";
    state->options = options;

    const os::Status existing = os::status_of(state->target);
    const bool exists = existing.kind != os::Kind::missing;
    if (existing.kind == os::Kind::directory)
        return make_error(ErrorCode::io_error, "the destination is a directory");
    // sparksave(1) INPUTS: a FIFO or a device is never replaced by a regular file (`-o /dev/null`
    // as root).
    if (exists && existing.kind != os::Kind::regular)
        return make_error(ErrorCode::io_error,
                          "the destination exists and is not a regular file (a FIFO, socket or "
                          "device): it is never replaced");
    state->have_meta = os::read_kept(
        options.metadata_from.empty() ? state->target : options.metadata_from, state->meta);

    fs::path tmpl = temporary_template(state->dir, state->target.filename());
    {
        std::lock_guard lock(g_writes);
        if (g_abandoned) return make_error(ErrorCode::io_error, "interrupted");
        int slot = -1;
        for (int i = 0; i < k_temp_slots && slot < 0; ++i)
            if (!g_temps[i].tmp.load()) slot = i;
        if (slot < 0)
            return make_error(ErrorCode::io_error, "too many files being written at once");
        if (!options.temporary.empty()) tmpl = options.temporary;
        auto fd = os::create_temporary(tmpl, !options.temporary.empty());
        if (!fd) return fd.error();
        state->fd = std::move(*fd);
        state->held = os::hold_temporary(state->fd.get());
        state->tmp = std::move(tmpl);
        state->slot = slot;
        g_temps[slot].tmp.store(state->tmp.c_str());
    }
    std::unique_ptr<AtomicFile> file(new AtomicFile(std::move(state)));
    State& s = *file->s_;
    if (auto r = os::apply_kept(s.fd.get(), s.have_meta ? &s.meta : nullptr, -1,
                                options.metadata_from.empty() ? s.target : options.metadata_from);
        !r)
        return r.error();
    // No room reserved: a 300-byte save's buffer is 300 bytes; a large one grows to the block.
    return file;
}

AtomicFile::AtomicFile(std::unique_ptr<State> state) : s_(std::move(state)) {}

AtomicFile::~AtomicFile() {
    if (!s_ || s_->done) return;
    std::lock_guard lock(g_writes);
    (void)s_->fd.close(); // Windows removes no file that is open
    os::remove_file(s_->tmp.c_str());
    if (!s_->companion.empty()) os::remove_file(s_->companion.c_str());
    s_->release_slot();
}

const fs::path& AtomicFile::target() const noexcept {
    return s_->target;
}

Result<void> AtomicFile::put(std::string_view bytes) {
    State& s = *s_;
    s.crc = crc32_update(s.crc, bytes);
    // In blocks, each handed to the disk as it is written: one write() of a whole large result
    // left all of it dirty in the page cache at once (a third of a salvage's time went to
    // that copy), and the fsync then had all of it to write.
    while (!bytes.empty()) {
        const std::size_t n = std::min<std::size_t>(bytes.size(), k_writeback_block);
        if (auto r = os::write_all(s.fd.get(), bytes.substr(0, n)); !r) return r;
        bytes.remove_prefix(n);
        s.put += n;
        if (s.put - s.writeback >= k_writeback_block) {
            os::start_writeback(s.fd.get(), s.writeback, s.put - s.writeback);
            s.writeback = s.put;
        }
    }
    return {};
}

Result<void> AtomicFile::flush() {
    if (s_->buffer.empty()) return {};
    auto r = put(s_->buffer);
    s_->buffer.clear();
    return r;
}

Result<void> AtomicFile::write(std::string_view bytes) {
    s_->size += bytes.size();
    if (s_->buffer.size() + bytes.size() <= k_write_block) {
        s_->buffer.append(bytes);
        return {};
    }
    if (auto r = flush(); !r) return r;
    if (bytes.size() >= k_write_block) return put(bytes);
    s_->buffer.append(bytes);
    return {};
}

Result<bool> AtomicFile::commit() {
    State& s = *s_;
    if (auto r = flush(); !r) return r.error();
    if (s.options.keep_times && s.have_meta)
        if (auto r = os::apply_times(s.fd.get(), s.meta); !r) return r.error();
    // A large file is read back (mapped) and checked while the fsync runs, then compared with
    // what was written: the pages read are the ones the fsync puts on the disk, and nothing is
    // renamed before all three succeeded. A small one: the fsync, then the read back.
    const bool beside = s.size >= k_parallel_check;
    Result<void> synced;
    auto sync = [&] { synced = os::sync_file(s.fd.get(), s.tmp); };
    if (!beside) {
        sync();
        if (!synced) return synced.error();
    }
    bool dropped = false;
    {
        // Read the file back (a large one mapped, no copy) and check it is what was written. The
        // view ends before the file is closed and renamed (Windows renames no file with a
        // mapped view).
        os::View back;
        std::string small;
        if (s.size >= k_map_threshold) {
            auto v = os::map_written(s.fd.get(), static_cast<std::size_t>(s.size));
            if (!v) return v.error();
            back = std::move(*v);
        } else if (s.size > 0) {
            auto r = read_back(s.fd.get(), static_cast<std::size_t>(s.size));
            if (!r) return r.error();
            small = std::move(*r);
        }
        const std::string_view written = s.size >= k_map_threshold ? back.bytes() : small;
        std::uint32_t crc = 0;
        Result<void> checked;
        auto compare = [&] { crc = crc32(written); };
        auto check = [&] {
            if (s.options.check) checked = s.options.check(written);
        };
        if (beside) {
            alongside(check, [&] {
                sync();
                compare();
            });
            if (!synced) return synced.error();
        } else {
            compare();
            if (crc == s.crc) check();
        }
        if (crc != s.crc)
            return make_error(ErrorCode::io_error,
                              "the bytes read back differ from the bytes written");
        if (!checked) return checked.error();
        if (s.options.before_rename) {
            auto go_on = s.options.before_rename(written);
            if (!go_on) return go_on.error();
            dropped = !*go_on;
        }
    }
    if (dropped) { // after the view ended: Windows deletes no file with a mapped view
        std::lock_guard lock(g_writes);
        (void)s.fd.close();
        os::remove_file(s.tmp.c_str());
        s.release_slot();
        s.done = true;
        return false;
    }
    if (auto r = s.fd.close(); !r) return r.error();

    {
        // Under the lock, so that an interruption (abandon_writes) comes either before the
        // rename (nothing replaced, everything removed) or after it (the write is complete).
        std::lock_guard lock(g_writes);
        if (g_abandoned) return make_error(ErrorCode::io_error, "interrupted");
        if (s.options.expect_unchanged) {
            const os::Status now = os::status_of(s.target);
            if (now.kind != os::Kind::regular || now.identity != *s.options.expect_unchanged)
                return make_error(ErrorCode::io_error,
                                  "changed while it was being migrated: another program wrote or "
                                  "replaced it after it was read, so it is left as that program "
                                  "made it");
        }
        if (s.options.replace_existing) {
            if (auto r = os::rename_replace(s.tmp, s.target); !r) return r.error();
        } else {
            // Fails if the destination appeared meanwhile: never clobber it.
            bool existed = false;
            if (auto r = os::rename_new(s.tmp, s.target, existed); !r) {
                if (existed)
                    return make_error(ErrorCode::io_error,
                                      "the destination exists (it is never overwritten)");
                return r.error();
            }
        }
        s.release_slot();
        s.held.reset();      // the lock went with the file: it must not hold the new file's name
        s.companion.clear(); // kept: the write it was made for is complete
        s.done = true;
        if (AtomicFile* owner = s.options.companion_of; owner && !owner->s_->done) {
            owner->s_->companion = s.target;
            if (owner->s_->slot >= 0)
                g_temps[owner->s_->slot].companion.store(owner->s_->companion.c_str());
        }
    }
    // Make the rename itself durable, now or with the batch.
    if (s.options.directory_syncs)
        s.options.directory_syncs->add(s.dir);
    else
        (void)os::sync_directory(s.dir);
    return true;
}

void abandon_writes() noexcept {
    std::lock_guard lock(g_writes);
    g_abandoned = true;
    remove_temporary_files();
}

void remove_temporary_files() noexcept {
    for (auto& slot : g_temps) {
        if (const os::PathChar* p = slot.tmp.load()) os::remove_file(p);
        if (const os::PathChar* p = slot.companion.load()) os::remove_file(p);
    }
}

void DirectorySyncs::add(const fs::path& dir) {
    std::lock_guard lock(mutex_);
    dirs_.insert(path_to_utf8(dir));
}

Result<void> DirectorySyncs::sync() {
    std::set<std::string> dirs;
    {
        std::lock_guard lock(mutex_);
        dirs.swap(dirs_);
    }
    Result<void> result;
    for (const auto& dir : dirs)
        if (auto r = os::sync_directory(path_from_utf8(dir)); !r && result) result = r;
    return result;
}

fs::path path_from_utf8(std::string_view utf8) {
    return os::path_from_utf8(utf8);
}

std::string path_to_utf8(const fs::path& path, bool generic) {
    return os::path_to_utf8(path, generic);
}

Result<void> write_file_atomic(const fs::path& target, std::string_view bytes,
                               const AtomicWriteOptions& options) {
    auto file = AtomicFile::create(target, options);
    if (!file) return file.error();
    if (auto r = (*file)->write(bytes); !r) return r;
    auto committed = (*file)->commit();
    if (!committed) return committed.error();
    return {};
}

SPARKSAVE_END_NAMESPACE
