// File reading with limits, and the shared atomic write.
#include "sparksave/file_io.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/version.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace sparksave::inline SPARKSAVE_ABI {

namespace {

Error io_error(const fs::path&, std::string_view what, int err) {
    return make_error(ErrorCode::io_error, fmt::format("{}: {}", what, std::strerror(err)),
                      k_no_offset);
}

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            if (fd_ >= 0) ::close(fd_);
            fd_ = other.release();
        }
        return *this;
    }
    int get() const noexcept { return fd_; }
    int release() noexcept {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }

  private:
    int fd_;
};

Result<void> write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return make_error(ErrorCode::io_error,
                              fmt::format("cannot write: {}", std::strerror(errno)));
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

Result<std::string> read_back(int fd, std::size_t expected) {
    std::string buf(expected, '\0');
    std::size_t got = 0;
    while (got < expected) {
        ssize_t n = ::pread(fd, buf.data() + got, expected - got, static_cast<off_t>(got));
        if (n < 0) {
            if (errno == EINTR) continue;
            return make_error(ErrorCode::io_error,
                              fmt::format("cannot read back: {}", std::strerror(errno)));
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got != expected)
        return make_error(ErrorCode::io_error,
                          fmt::format("read back {} of the {} bytes written", got, expected));
    return buf;
}

constexpr std::uint64_t k_map_threshold = 1 << 20;
constexpr std::size_t k_write_block = 1 << 20;

// The process's umask, read once (reading it means setting it, twice: not per file).
mode_t current_umask() {
    static const mode_t mask = [] {
        mode_t m = ::umask(0);
        ::umask(m);
        return m;
    }();
    return mask;
}

} // namespace

namespace {

FileIdentity identity_of(const struct stat& st) {
    FileIdentity id;
    id.device = static_cast<std::uint64_t>(st.st_dev);
    id.inode = static_cast<std::uint64_t>(st.st_ino);
    id.size = static_cast<std::uint64_t>(st.st_size);
    id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    id.regular = S_ISREG(st.st_mode);
    return id;
}

Error changed_while_read() {
    return make_error(ErrorCode::io_error, "the file changed while it was read");
}

// Files mapped by read_input, for handle_mapping_fault() in a SIGBUS handler: fixed slots of
// atomics, so the handler needs no allocation and no lock. A slot is free (0), being filled
// (1) or holding a mapping (2).
constexpr int k_map_slots = 256;
struct MapSlot {
    std::atomic<int> state{0};
    std::atomic<std::uintptr_t> base{0};
    std::atomic<std::size_t> size{0};
    std::atomic<bool> changed{false};
};
MapSlot g_maps[k_map_slots];
std::atomic<std::size_t> g_faults{0};
std::size_t g_page_size = 4096;

void unmap_registered(const char* data, std::size_t size) {
    const auto base = reinterpret_cast<std::uintptr_t>(data);
    for (auto& slot : g_maps) {
        if (slot.state.load() == 2 && slot.base.load() == base) {
            ::munmap(const_cast<char*>(data), size);
            slot.state.store(0);
            return;
        }
    }
    ::munmap(const_cast<char*>(data), size);
}

// Maps a regular file whose size is known, registered for handle_mapping_fault; nullptr when
// no slot is free or the mapping fails (the caller reads the file instead).
std::shared_ptr<const Source> map_file(int fd, std::size_t size) {
    MapSlot* slot = nullptr;
    for (auto& s : g_maps) {
        int expected = 0;
        if (s.state.compare_exchange_strong(expected, 1)) {
            slot = &s;
            break;
        }
    }
    if (!slot) return nullptr;
    g_page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        slot->state.store(0);
        return nullptr;
    }
    ::madvise(p, size, MADV_SEQUENTIAL);
    slot->base.store(reinterpret_cast<std::uintptr_t>(p));
    slot->size.store(size);
    slot->changed.store(false);
    slot->state.store(2);
    return std::make_shared<const Source>(std::string_view(static_cast<const char*>(p), size),
                                          unmap_registered, &slot->changed);
}

// Reads exactly `size` bytes from the start of a regular file; a file that ended sooner
// changed while it was read.
Result<std::string> read_exactly(int fd, std::size_t size, const fs::path& path) {
    std::string buffer(size, '\0');
    std::size_t got = 0;
    while (got < size) {
        ssize_t n = ::pread(fd, buffer.data() + got, size - got, static_cast<off_t>(got));
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(path, "cannot read", errno);
        }
        if (n == 0) return changed_while_read();
        got += static_cast<std::size_t>(n);
    }
    return buffer;
}

// Reads a stream to its end in blocks, handing the first `head_bytes` to `limit_of` and
// refusing it as soon as it passes the limit (never more than the limit and one block held).
Result<std::shared_ptr<const Source>>
read_stream(int fd, const fs::path& path, std::size_t head_bytes,
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
            ssize_t n = ::read(fd, block.data() + used, block.size() - used);
            if (n < 0) {
                if (errno == EINTR) continue;
                return io_error(path, "cannot read", errno);
            }
            if (n == 0) {
                eof = true;
                break;
            }
            used += static_cast<std::size_t>(n);
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
           const std::function<Result<std::uint64_t>(std::string_view)>& limit_of) {
    OpenedFile out;
    Fd owned(-1);
    int fd = STDIN_FILENO;
    if (path != "-") {
        owned = Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (owned.get() < 0) return io_error(path, "cannot open", errno);
        fd = owned.get();
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) return io_error(path, "cannot stat", errno);
    if (S_ISDIR(st.st_mode)) return make_error(ErrorCode::io_error, "is a directory");
    out.identity = identity_of(st);
    if (!S_ISREG(st.st_mode)) {
        auto source = read_stream(fd, path, head_bytes, limit_of);
        if (!source) return source.error();
        out.source = std::move(*source);
        return out;
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    std::string small;
    std::string_view head;
    if (size < k_map_threshold) {
        auto whole = read_exactly(fd, static_cast<std::size_t>(size), path);
        if (!whole) return whole.error();
        small = std::move(*whole);
        head = std::string_view(small).substr(0, head_bytes);
    } else {
        auto first = read_exactly(fd, std::min<std::size_t>(head_bytes, size), path);
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
        out.source = map_file(fd, static_cast<std::size_t>(size));
        if (!out.source) {
            auto whole = read_exactly(fd, static_cast<std::size_t>(size), path);
            if (!whole) return whole.error();
            out.source = std::make_shared<const Source>(std::move(*whole));
        }
    } else {
        out.source = std::make_shared<const Source>(std::move(small));
    }
    // Written meanwhile (grown, shrunk, rewritten): what was read is not one version of it.
    struct stat after {};
    if (::fstat(fd, &after) == 0 && identity_of(after) != out.identity) return changed_while_read();
    return out;
}

Result<std::shared_ptr<const Source>> read_file(const fs::path& path, std::uint64_t max_bytes) {
    auto opened = read_input(
        path, 0, [max_bytes](std::string_view) -> Result<std::uint64_t> { return max_bytes; });
    if (!opened) return opened.error();
    return std::move(opened->source);
}

bool handle_mapping_fault(const void* address) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    for (auto& slot : g_maps) {
        if (slot.state.load() != 2) continue;
        const std::uintptr_t base = slot.base.load();
        const std::size_t size = slot.size.load();
        if (a < base || a - base >= size) continue;
        const std::uintptr_t page = a & ~(static_cast<std::uintptr_t>(g_page_size) - 1);
        void* p = ::mmap(reinterpret_cast<void*>(page), base + size - page, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p == MAP_FAILED) return false;
        if (!slot.changed.exchange(true)) g_faults.fetch_add(1);
        return true;
    }
    return false;
}

std::size_t mapping_faults() noexcept {
    return g_faults.load();
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
    std::atomic<const char*> tmp{nullptr};
    std::atomic<const char*> companion{nullptr};
};
constexpr int k_temp_slots = 4096; // two per parallel job (a backup and its file) and to spare
TempSlot g_temps[k_temp_slots];
std::mutex g_writes;
bool g_abandoned = false; // guarded by g_writes: abandon_writes() was called

// Copies the extended attributes (ACLs are kept in them) of `from` to the open file `fd`. Best
// effort, as `cp -a`: a file system without them, or an attribute only a privileged process
// may set, leaves that attribute out.
void copy_xattrs(const fs::path& from, int fd) {
    ssize_t n = ::listxattr(from.c_str(), nullptr, 0);
    if (n <= 0) return;
    std::string names(static_cast<std::size_t>(n), '\0');
    n = ::listxattr(from.c_str(), names.data(), names.size());
    if (n <= 0) return;
    names.resize(static_cast<std::size_t>(n));
    for (std::size_t at = 0; at < names.size();) {
        const char* name = names.c_str() + at;
        at += std::strlen(name) + 1;
        ssize_t size = ::getxattr(from.c_str(), name, nullptr, 0);
        if (size < 0) continue;
        std::string value(static_cast<std::size_t>(size), '\0');
        size = ::getxattr(from.c_str(), name, value.data(), value.size());
        if (size < 0) continue;
        (void)::fsetxattr(fd, name, value.data(), static_cast<std::size_t>(size), 0);
    }
}

// `.NAME.sparksave-XXXXXX` in `dir`, with NAME cut short when the whole would be longer than
// the directory allows: the temporary name fits wherever the target's name fits.
std::string temporary_template(const fs::path& dir, const std::string& name) {
    constexpr std::string_view k_suffix = ".sparksave-XXXXXX";
    long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
    if (name_max <= 0) name_max = 255;
    std::string kept = name;
    const std::size_t room = static_cast<std::size_t>(name_max) - 1 - k_suffix.size();
    if (kept.size() > room) kept.resize(room);
    return (dir / ("." + kept + std::string(k_suffix))).string();
}

} // namespace

struct AtomicFile::State {
    fs::path target;
    fs::path dir;
    std::string tmp;       // never changed once registered: its slot points at its characters
    std::string companion; // a file made for this write (a backup), removed unless it commits
    int slot = -1;
    Fd fd{-1};
    AtomicWriteOptions options;
    struct stat meta {}; // the file whose mode, owner, attributes (and times) the new one gets
    bool have_meta = false;
    std::string buffer;
    std::uint32_t crc = 0;
    std::uint64_t size = 0;
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

    struct stat existing {};
    const bool exists = ::stat(state->target.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode))
        return make_error(ErrorCode::io_error, "the destination is a directory");
    // sparksave(1) INPUTS: a FIFO or a device is never replaced by a regular file (`-o /dev/null`
    // as root).
    if (exists && !S_ISREG(existing.st_mode))
        return make_error(ErrorCode::io_error,
                          "the destination exists and is not a regular file (a FIFO, socket or "
                          "device): it is never replaced");
    if (exists && !options.replace_existing && !options.skip_identical)
        return make_error(ErrorCode::io_error, "the destination exists (it is never overwritten)");
    if (options.keep_mode) {
        if (!options.metadata_from.empty())
            state->have_meta = ::stat(options.metadata_from.c_str(), &state->meta) == 0;
        else if (exists)
            state->meta = existing, state->have_meta = true;
    }

    std::string tmpl = temporary_template(state->dir, state->target.filename().string());
    {
        std::lock_guard lock(g_writes);
        if (g_abandoned) return make_error(ErrorCode::io_error, "interrupted");
        int slot = -1;
        for (int i = 0; i < k_temp_slots && slot < 0; ++i)
            if (!g_temps[i].tmp.load()) slot = i;
        if (slot < 0)
            return make_error(ErrorCode::io_error, "too many files being written at once");
        if (!options.temporary.empty()) tmpl = options.temporary.string();
        int fd =
            options.temporary.empty()
                ? ::mkostemp(tmpl.data(), O_CLOEXEC)
                : ::open(tmpl.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            return io_error(state->dir, "cannot create a temporary file in " + state->dir.string(),
                            errno);
        state->fd = Fd(fd);
        state->tmp = std::move(tmpl);
        state->slot = slot;
        g_temps[slot].tmp.store(state->tmp.c_str());
    }
    std::unique_ptr<AtomicFile> file(new AtomicFile(std::move(state)));
    State& s = *file->s_;

    mode_t mode = s.have_meta         ? (s.meta.st_mode & 07777)
                  : options.mode >= 0 ? static_cast<mode_t>(options.mode)
                                      : (0666 & ~current_umask());
    if (s.have_meta) // keep the owner too; only root may, so failing is fine
        (void)::fchown(s.fd.get(), s.meta.st_uid, s.meta.st_gid);
    if (::fchmod(s.fd.get(), mode) != 0) return io_error(s.tmp, "cannot set permissions", errno);
    if (s.have_meta)
        copy_xattrs(options.metadata_from.empty() ? s.target : options.metadata_from, s.fd.get());
    s.buffer.reserve(k_write_block);
    return file;
}

AtomicFile::AtomicFile(std::unique_ptr<State> state) : s_(std::move(state)) {}

AtomicFile::~AtomicFile() {
    if (!s_ || s_->done) return;
    std::lock_guard lock(g_writes);
    ::unlink(s_->tmp.c_str());
    if (!s_->companion.empty()) ::unlink(s_->companion.c_str());
    s_->release_slot();
}

const fs::path& AtomicFile::target() const noexcept {
    return s_->target;
}

Result<void> AtomicFile::flush() {
    if (s_->buffer.empty()) return {};
    s_->crc = crc32_update(s_->crc, s_->buffer);
    auto r = write_all(s_->fd.get(), s_->buffer);
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
    if (bytes.size() >= k_write_block) {
        s_->crc = crc32_update(s_->crc, bytes);
        return write_all(s_->fd.get(), bytes);
    }
    s_->buffer.append(bytes);
    return {};
}

Result<bool> AtomicFile::commit() {
    State& s = *s_;
    if (auto r = flush(); !r) return r.error();
    if (s.options.keep_times && s.have_meta) {
        const struct timespec times[2] = {s.meta.st_atim, s.meta.st_mtim};
        if (::futimens(s.fd.get(), times) != 0) return io_error(s.tmp, "cannot set times", errno);
    }
    if (::fsync(s.fd.get()) != 0) return io_error(s.tmp, "cannot flush to disk", errno);
    // Read the file back from disk (a large one mapped, no copy) and check it is what was written.
    const char* back = nullptr;
    std::string small;
    if (s.size >= k_map_threshold) {
        void* p = ::mmap(nullptr, s.size, PROT_READ, MAP_SHARED | MAP_POPULATE, s.fd.get(), 0);
        if (p == MAP_FAILED) return io_error(s.tmp, "cannot read back", errno);
        back = static_cast<const char*>(p);
    } else if (s.size > 0) {
        auto r = read_back(s.fd.get(), static_cast<std::size_t>(s.size));
        if (!r) return r.error();
        small = std::move(*r);
    }
    struct Unmap {
        const char* p;
        std::uint64_t n;
        ~Unmap() {
            if (p) ::munmap(const_cast<char*>(p), n);
        }
    } unmap_back{back, s.size};
    const std::string_view written =
        back ? std::string_view(back, s.size) : std::string_view(small);
    if (crc32(written) != s.crc)
        return make_error(ErrorCode::io_error, "the bytes read back differ from the bytes written");
    if (s.options.verify)
        if (auto r = s.options.verify(written); !r) return r.error();
    if (s.options.skip_identical) {
        struct stat st {};
        const bool exists = ::stat(s.target.c_str(), &st) == 0;
        if (exists && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == s.size) {
            auto existing = read_file(s.target, s.size);
            if (existing && (*existing)->view() == written) {
                std::lock_guard lock(g_writes);
                ::unlink(s.tmp.c_str());
                s.release_slot();
                s.done = true;
                return false;
            }
        }
        if (!s.options.replace_existing && exists)
            return make_error(ErrorCode::bad_usage,
                              "the destination exists and differs; it is never overwritten");
    }
    if (::close(s.fd.release()) != 0) return io_error(s.tmp, "cannot close", errno);

    {
        // Under the lock, so that an interruption (abandon_writes) comes either before the
        // rename (nothing replaced, everything removed) or after it (the write is complete).
        std::lock_guard lock(g_writes);
        if (g_abandoned) return make_error(ErrorCode::io_error, "interrupted");
        if (s.options.expect_unchanged) {
            struct stat now {};
            if (::stat(s.target.c_str(), &now) != 0 || !S_ISREG(now.st_mode) ||
                static_cast<std::uint64_t>(now.st_dev) != s.options.expect_unchanged->device ||
                static_cast<std::uint64_t>(now.st_ino) != s.options.expect_unchanged->inode ||
                static_cast<std::uint64_t>(now.st_size) != s.options.expect_unchanged->size ||
                static_cast<std::int64_t>(now.st_mtim.tv_sec) * 1'000'000'000 +
                        now.st_mtim.tv_nsec !=
                    s.options.expect_unchanged->mtime_ns)
                return make_error(ErrorCode::io_error,
                                  "changed while it was being migrated: another program wrote or "
                                  "replaced it after it was read, so it is left as that program "
                                  "made it");
        }
        if (s.options.replace_existing) {
            if (::rename(s.tmp.c_str(), s.target.c_str()) != 0)
                return io_error(s.target, "cannot rename into place", errno);
        } else {
            // link() fails with EEXIST if the destination appeared meanwhile: never clobber it.
            if (::link(s.tmp.c_str(), s.target.c_str()) != 0) {
                int err = errno;
                if (err == EEXIST)
                    return make_error(s.options.skip_identical ? ErrorCode::bad_usage
                                                               : ErrorCode::io_error,
                                      "the destination exists (it is never overwritten)");
                return io_error(s.target, "cannot create", err);
            }
            ::unlink(s.tmp.c_str());
        }
        s.release_slot();
        s.companion.clear(); // kept: the write it was made for is complete
        s.done = true;
        if (AtomicFile* owner = s.options.companion_of; owner && !owner->s_->done) {
            owner->s_->companion = s.target.string();
            if (owner->s_->slot >= 0)
                g_temps[owner->s_->slot].companion.store(owner->s_->companion.c_str());
        }
    }
    // Make the rename itself durable, now or with the batch.
    if (s.options.directory_syncs) {
        s.options.directory_syncs->add(s.dir);
    } else {
        Fd dfd(::open(s.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (dfd.get() >= 0) ::fsync(dfd.get());
    }
    return true;
}

void abandon_writes() noexcept {
    std::lock_guard lock(g_writes);
    g_abandoned = true;
    remove_temporary_files();
}

void remove_temporary_files() noexcept {
    for (auto& slot : g_temps) {
        if (const char* p = slot.tmp.load()) ::unlink(p);
        if (const char* p = slot.companion.load()) ::unlink(p);
    }
}

void DirectorySyncs::add(const fs::path& dir) {
    std::lock_guard lock(mutex_);
    dirs_.insert(dir.string());
}

Result<void> DirectorySyncs::sync() {
    std::set<std::string> dirs;
    {
        std::lock_guard lock(mutex_);
        dirs.swap(dirs_);
    }
    Result<void> result;
    for (const auto& dir : dirs) {
        Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if ((dfd.get() < 0 || ::fsync(dfd.get()) != 0) && result)
            result = io_error(dir, "cannot flush the directory to disk", errno);
    }
    return result;
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

} // namespace sparksave
