// File reading with limits, and the shared atomic write.
#include "sparksave/file_io.hpp"

#include "sparksave/crc32.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace sparksave {

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

// Reads until EOF, refusing more than `limit` bytes (pipes, standard input).
Result<std::shared_ptr<const Source>> read_stream(int fd, const fs::path& path,
                                                  std::uint64_t limit) {
    std::string buf;
    std::size_t used = 0;
    const std::uint64_t cap = limit + 1; // one byte more than allowed tells "too large"
    for (;;) {
        if (used == buf.size()) {
            if (used >= cap) break;
            buf.resize(static_cast<std::size_t>(
                std::min<std::uint64_t>(cap, std::max<std::size_t>(1 << 16, used * 2))));
        }
        ssize_t n = ::read(fd, buf.data() + used, buf.size() - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(path, "cannot read", errno);
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    if (used > limit)
        return make_error(ErrorCode::too_large,
                          fmt::format("expected at most {} bytes, found more", limit));
    buf.resize(used);
    return std::make_shared<const Source>(std::move(buf));
}

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

// Temporary files of writes in progress, for remove_temporary_files() in a signal handler:
// fixed slots of plain char arrays, so the handler needs no allocation and no lock. A slot is
// free (0), being filled (1) or holding a path (2).
constexpr int k_temp_slots = 128;
char g_temp_paths[k_temp_slots][4096];
std::atomic<int> g_temp_state[k_temp_slots];

class TempRegistration {
  public:
    explicit TempRegistration(const std::string& path) {
        if (path.size() >= sizeof g_temp_paths[0]) return;
        for (int i = 0; i < k_temp_slots; ++i) {
            int expected = 0;
            if (!g_temp_state[i].compare_exchange_strong(expected, 1)) continue;
            std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
            g_temp_state[i].store(2);
            slot_ = i;
            return;
        }
    }
    ~TempRegistration() {
        if (slot_ >= 0) g_temp_state[slot_].store(0);
    }
    TempRegistration(const TempRegistration&) = delete;
    TempRegistration& operator=(const TempRegistration&) = delete;

  private:
    int slot_ = -1;
};

constexpr std::uint64_t k_map_threshold = 1 << 20;
constexpr std::size_t k_write_block = 1 << 20;

void unmap(const char* data, std::size_t size) {
    ::munmap(const_cast<char*>(data), size);
}

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

Result<std::shared_ptr<const Source>> read_file(const fs::path& path, std::uint64_t max_bytes) {
    if (path == "-") return read_stream(STDIN_FILENO, path, max_bytes);
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return io_error(path, "cannot open", errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return io_error(path, "cannot stat", errno);
    if (S_ISDIR(st.st_mode)) return make_error(ErrorCode::io_error, "is a directory");
    if (!S_ISREG(st.st_mode)) return read_stream(fd.get(), path, max_bytes);
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes)
        return make_error(ErrorCode::too_large,
                          fmt::format("expected at most {} bytes, found {}", max_bytes, size));
    // Large files are mapped, not copied: on this kind of machine a read() of 240 MB costs a
    // second of copying and page faults, a populated mapping a tenth of that (bench/README.md).
    if (size >= k_map_threshold) {
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
        if (p != MAP_FAILED) {
            ::madvise(p, size, MADV_SEQUENTIAL);
            return std::make_shared<const Source>(
                std::string_view(static_cast<const char*>(p), size), unmap);
        }
    }
    std::string buffer(size, '\0');
    std::size_t got = 0;
    while (got < size) {
        ssize_t n = ::read(fd.get(), buffer.data() + got, size - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(path, "cannot read", errno);
        }
        if (n == 0) break; // the file shrank while we read it: take what is there
        got += static_cast<std::size_t>(n);
    }
    buffer.resize(got);
    return std::make_shared<const Source>(std::move(buffer));
}

Result<std::string> read_head(const fs::path& path, std::size_t count) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return io_error(path, "cannot open", errno);
    std::string buf(count, '\0');
    std::size_t got = 0;
    while (got < count) {
        ssize_t n = ::read(fd.get(), buf.data() + got, count - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(path, "cannot read", errno);
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    buf.resize(got);
    return buf;
}

void remove_temporary_files() noexcept {
    for (int i = 0; i < k_temp_slots; ++i)
        if (g_temp_state[i].load() == 2) ::unlink(g_temp_paths[i]);
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

struct AtomicFile::State {
    fs::path target;
    fs::path dir;
    std::string tmp;
    Fd fd{-1};
    AtomicWriteOptions options;
    std::unique_ptr<TempRegistration> registration;
    std::string buffer;
    std::uint32_t crc = 0;
    std::uint64_t size = 0;
    bool done = false;
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
    if (exists && !options.replace_existing && !options.skip_identical)
        return make_error(ErrorCode::io_error, "the destination exists (it is never overwritten)");

    std::string tmpl =
        (state->dir / ("." + state->target.filename().string() + ".sparksave-XXXXXX")).string();
    int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0)
        return io_error(state->dir, "cannot create a temporary file in " + state->dir.string(),
                        errno);
    state->fd = Fd(fd);
    state->tmp = tmpl;
    state->registration = std::make_unique<TempRegistration>(state->tmp);
    std::unique_ptr<AtomicFile> file(new AtomicFile(std::move(state)));

    mode_t mode = (exists && options.keep_mode) ? (existing.st_mode & 07777)
                  : options.mode >= 0           ? static_cast<mode_t>(options.mode)
                                                : (0666 & ~current_umask());
    if (exists && options.keep_mode) // keep the owner too; only root may, so failing is fine
        (void)::fchown(file->s_->fd.get(), existing.st_uid, existing.st_gid);
    if (::fchmod(file->s_->fd.get(), mode) != 0)
        return io_error(file->s_->tmp, "cannot set permissions", errno);
    file->s_->buffer.reserve(k_write_block);
    return file;
}

AtomicFile::AtomicFile(std::unique_ptr<State> state) : s_(std::move(state)) {}

AtomicFile::~AtomicFile() {
    if (s_ && !s_->done) ::unlink(s_->tmp.c_str());
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
        auto existing = read_file(s.target, s.size);
        if (existing && (*existing)->view() == written) {
            s.done = true;
            ::unlink(s.tmp.c_str());
            return false;
        }
        struct stat st {};
        if (!s.options.replace_existing && ::stat(s.target.c_str(), &st) == 0)
            return make_error(ErrorCode::bad_usage,
                              "the destination exists and differs; it is never overwritten");
    }
    if (::close(s.fd.release()) != 0) return io_error(s.tmp, "cannot close", errno);

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
    s.done = true;
    // Make the rename itself durable, now or with the batch.
    if (s.options.directory_syncs) {
        s.options.directory_syncs->add(s.dir);
    } else {
        Fd dfd(::open(s.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (dfd.get() >= 0) ::fsync(dfd.get());
    }
    return true;
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
