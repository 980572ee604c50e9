// File reading with limits, and the shared atomic write.
#include "sparksave/file_io.hpp"

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
    return make_error(ErrorCode::io_error,
                      fmt::format("{}: {}", what, std::strerror(err)), k_no_offset);
}

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
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
Result<std::shared_ptr<const Source>> read_stream(int fd, const fs::path& path, std::uint64_t limit) {
    std::string buf;
    std::size_t used = 0;
    const std::uint64_t cap = limit + 1; // one byte more than allowed tells "too large"
    for (;;) {
        if (used == buf.size()) {
            if (used >= cap) break;
            buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(cap, std::max<std::size_t>(1 << 16, used * 2))));
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
        return make_error(ErrorCode::too_large, fmt::format("expected at most {} bytes, found more", limit));
    buf.resize(used);
    return std::make_shared<const Source>(std::move(buf));
}

Result<void> write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return make_error(ErrorCode::io_error, fmt::format("cannot write: {}", std::strerror(errno)));
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
            return make_error(ErrorCode::io_error, fmt::format("cannot read back: {}", std::strerror(errno)));
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

void unmap(const char* data, std::size_t size) { ::munmap(const_cast<char*>(data), size); }

mode_t current_umask() {
    mode_t m = ::umask(0);
    ::umask(m);
    return m;
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
            return std::make_shared<const Source>(std::string_view(static_cast<const char*>(p), size), unmap);
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
        if (ec) return make_error(ErrorCode::io_error, "cannot read the symbolic link: " + ec.message());
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
    return make_error(ErrorCode::io_error, "too many levels of symbolic links");
}

Result<void> write_file_atomic(const fs::path& target_in, std::string_view bytes,
                               const AtomicWriteOptions& options) {
    auto followed = follow_symlinks(target_in);
    if (!followed) return followed.error();
    const fs::path target = *followed;
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";

    struct stat existing {};
    const bool exists = ::stat(target.c_str(), &existing) == 0;
    if (exists && !options.replace_existing)
        return make_error(ErrorCode::io_error, "the destination exists (it is never overwritten)");
    if (exists && S_ISDIR(existing.st_mode)) return make_error(ErrorCode::io_error, "the destination is a directory");

    std::string tmpl = (dir / ("." + target.filename().string() + ".sparksave-XXXXXX")).string();
    Fd fd(::mkostemp(tmpl.data(), O_CLOEXEC));
    if (fd.get() < 0) return io_error(dir, "cannot create a temporary file in " + dir.string(), errno);
    const std::string tmp = tmpl;
    TempRegistration registration(tmp);
    auto fail = [&](Error e) -> Result<void> {
        ::unlink(tmp.c_str());
        return e;
    };

    mode_t mode = (exists && options.keep_mode) ? (existing.st_mode & 07777)
                  : options.mode >= 0           ? static_cast<mode_t>(options.mode)
                                                : (0666 & ~current_umask());
    if (exists && options.keep_mode) // keep the owner too; only root may, so failing is fine
        (void)::fchown(fd.get(), existing.st_uid, existing.st_gid);
    if (::fchmod(fd.get(), mode) != 0) return fail(io_error(tmp, "cannot set permissions", errno));
    if (auto r = write_all(fd.get(), bytes); !r) return fail(r.error());
    if (::fsync(fd.get()) != 0) return fail(io_error(tmp, "cannot flush to disk", errno));
    if (options.verify) {
        auto back = read_back(fd.get(), bytes.size());
        if (!back) return fail(back.error());
        if (*back != bytes) return fail(make_error(ErrorCode::io_error, "the bytes read back differ from the bytes written"));
        if (auto r = options.verify(*back); !r) return fail(r.error());
    }
    if (::close(fd.release()) != 0) return fail(io_error(tmp, "cannot close", errno));

    if (options.replace_existing) {
        if (::rename(tmp.c_str(), target.c_str()) != 0) return fail(io_error(target, "cannot rename into place", errno));
    } else {
        // link() fails with EEXIST if the destination appeared meanwhile: never clobber it.
        if (::link(tmp.c_str(), target.c_str()) != 0) {
            int err = errno;
            return fail(err == EEXIST ? make_error(ErrorCode::io_error, "the destination exists (it is never overwritten)")
                                      : io_error(target, "cannot create", err));
        }
        ::unlink(tmp.c_str());
    }
    // Make the rename itself durable.
    Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.get() >= 0) ::fsync(dfd.get());
    return {};
}

} // namespace sparksave
