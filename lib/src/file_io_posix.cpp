// file_io_os.hpp for POSIX systems (Linux first): descriptors, mmap, fsync of the file and of
// its directory, rename(2) and link(2), and SIGBUS recovery for mapped inputs.
#ifndef _WIN32

#include "file_io_os.hpp"
#include "sparksave/version.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE

namespace {

Error errno_error(std::string_view what, int err) {
    return make_error(ErrorCode::io_error, fmt::format("{}: {}", what, std::strerror(err)),
                      k_no_offset);
}

FileIdentity identity_of(const struct stat& st) {
    FileIdentity id;
    id.device = static_cast<std::uint64_t>(st.st_dev);
    id.inode = static_cast<std::uint64_t>(st.st_ino);
    id.size = static_cast<std::uint64_t>(st.st_size);
    id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    id.regular = S_ISREG(st.st_mode);
    return id;
}

os::Status status_from(const struct stat& st) {
    os::Status s;
    s.kind = S_ISREG(st.st_mode)   ? os::Kind::regular
             : S_ISDIR(st.st_mode) ? os::Kind::directory
                                   : os::Kind::other;
    s.identity = identity_of(st);
    return s;
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

struct timespec to_timespec(std::int64_t ns) {
    struct timespec t {};
    t.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    t.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    return t;
}

} // namespace

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

namespace os {

Native no_file() noexcept {
    return -1;
}

Result<void> File::close() noexcept {
    if (h_ < 0) return {};
    const int fd = h_;
    h_ = -1;
    if (::close(fd) != 0) return errno_error("cannot close", errno);
    return {};
}

Error last_error(std::string_view what) {
    return errno_error(what, errno);
}

Result<File> open_for_reading(const fs::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot open", errno);
    return File(fd);
}

Native standard_input() noexcept {
    return STDIN_FILENO;
}

Result<Status> status_of(Native file) {
    struct stat st {};
    if (::fstat(file, &st) != 0) return errno_error("cannot stat", errno);
    return status_from(st);
}

Status status_of(const fs::path& path, bool follow) noexcept {
    struct stat st {};
    if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return {};
    return status_from(st);
}

Result<std::size_t> read_some(Native file, char* into, std::size_t size) {
    for (;;) {
        ssize_t n = ::read(file, into, size);
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno != EINTR) return errno_error("cannot read", errno);
    }
}

Result<std::size_t> read_at(Native file, char* into, std::size_t size, std::uint64_t offset,
                            std::string_view what) {
    for (;;) {
        ssize_t n = ::pread(file, into, size, static_cast<off_t>(offset));
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno != EINTR) return errno_error(what, errno);
    }
}

// Registered for handle_mapping_fault; nullptr when no slot is free or the mapping fails.
std::shared_ptr<const Source> map_input(Native fd, std::size_t size) {
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

View::~View() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
}

Result<View> map_written(Native file, std::size_t size) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED | MAP_POPULATE, file, 0);
    if (p == MAP_FAILED) return errno_error("cannot read back", errno);
    return View(static_cast<const char*>(p), size);
}

bool read_kept(const fs::path& path, Kept& kept) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    kept.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
    kept.uid = static_cast<std::uint32_t>(st.st_uid);
    kept.gid = static_cast<std::uint32_t>(st.st_gid);
    kept.atime = static_cast<std::int64_t>(st.st_atim.tv_sec) * 1'000'000'000 + st.st_atim.tv_nsec;
    kept.mtime = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    return true;
}

Result<void> apply_kept(Native file, const Kept* kept, int mode, const fs::path& attributes_from) {
    const mode_t bits = kept        ? static_cast<mode_t>(kept->mode)
                        : mode >= 0 ? static_cast<mode_t>(mode)
                                    : (0666 & ~current_umask());
    if (kept) // keep the owner too; only root may, so failing is fine
        (void)::fchown(file, static_cast<uid_t>(kept->uid), static_cast<gid_t>(kept->gid));
    if (::fchmod(file, bits) != 0) return errno_error("cannot set permissions", errno);
    if (kept) copy_xattrs(attributes_from, file);
    return {};
}

Result<void> apply_times(Native file, const Kept& kept) {
    const struct timespec times[2] = {to_timespec(kept.atime), to_timespec(kept.mtime)};
    if (::futimens(file, times) != 0) return errno_error("cannot set times", errno);
    return {};
}

std::size_t max_name_length(const fs::path& dir) {
    long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
    return name_max > 0 ? static_cast<std::size_t>(name_max) : 255;
}

namespace {

// Linux: a temporary file born held. An unnamed file (O_TMPFILE) is locked (flock), then linked
// into the directory under a unique name, so a walk never meets the name of a temporary file
// that is not yet held (temporary_held would call it stale). -1 (errno set) where the file
// system has no unnamed files or /proc is not mounted: the caller falls back to mkostemp.
int create_held_unnamed(std::string& name) {
#ifdef O_TMPFILE
    const std::size_t slash = name.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : name.substr(0, slash + 1);
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return -1;
    }
    const std::string self = fmt::format("/proc/self/fd/{}", fd);
    struct timespec now {};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    thread_local std::uint64_t state = static_cast<std::uint64_t>(now.tv_nsec) ^
                                       (static_cast<std::uint64_t>(::getpid()) << 32) ^
                                       reinterpret_cast<std::uintptr_t>(&now);
    constexpr std::string_view k_chars =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const std::string original = name;
    for (int tries = 0; tries < 100; ++tries) {
        for (std::size_t i = name.size() - 6; i < name.size(); ++i) {
            state = state * 6364136223846793005u + 1442695040888963407u; // an LCG step
            name[i] = k_chars[(state >> 33) % k_chars.size()];
        }
        if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
            return fd;
        if (errno != EEXIST) break;
    }
    const int err = errno;
    ::close(fd);
    name = original;
    errno = err;
#else
    (void)name;
    errno = EOPNOTSUPP;
#endif
    return -1;
}

} // namespace

Result<File> create_temporary(fs::path& pattern, bool exact) {
    std::string name = pattern.native();
    int fd = -1;
    if (exact) {
        fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    } else {
        fd = create_held_unnamed(name);
        if (fd < 0) {
            fd = ::mkostemp(name.data(), O_CLOEXEC);
            if (fd >= 0) (void)::flock(fd, LOCK_EX | LOCK_NB); // held from just after its birth
        }
    }
    if (fd < 0) {
        fs::path dir = pattern.parent_path();
        return errno_error(
            "cannot create a temporary file in " + (dir.empty() ? "." : dir.string()), errno);
    }
    pattern = name;
    return File(fd);
}

Result<void> write_all(Native file, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(file, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno_error("cannot write", errno);
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

void start_writeback(Native file, std::uint64_t offset, std::uint64_t length) noexcept {
#ifdef __linux__
    // Errors are of no consequence: sync_file reports what matters.
    (void)::sync_file_range(file, static_cast<off_t>(offset), static_cast<off_t>(length),
                            SYNC_FILE_RANGE_WRITE);
#else
    (void)file;
    (void)offset;
    (void)length;
#endif
}

Result<void> sync_file(Native file, const fs::path&) {
    if (::fsync(file) != 0) return errno_error("cannot flush to disk", errno);
    return {};
}

Result<void> rename_replace(const fs::path& from, const fs::path& to) {
    if (::rename(from.c_str(), to.c_str()) != 0)
        return errno_error("cannot rename into place", errno);
    return {};
}

Result<void> rename_new(const fs::path& from, const fs::path& to, bool& existed) {
    // link() fails with EEXIST if the destination appeared meanwhile: never clobber it.
    if (::link(from.c_str(), to.c_str()) != 0) {
        const int err = errno;
        existed = err == EEXIST;
        return errno_error("cannot create", err);
    }
    ::unlink(from.c_str());
    return {};
}

Result<void> sync_directory(const fs::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot flush the directory to disk", errno);
    File owned(fd);
    if (::fsync(fd) != 0) return errno_error("cannot flush the directory to disk", errno);
    return {};
}

void remove_file(const PathChar* path) noexcept {
    ::unlink(path);
}

// flock(2), not fcntl(2) locks: those are the process's, so another thread's close of any
// descriptor of the file would drop them, and they do not exclude the threads of one process
// (--jobs). A flock lock belongs to the open file description: each open() excludes every other.
void Lock::reset() noexcept {
    if (h_ == 0) return;
    ::close(static_cast<int>(h_ - 1)); // releases the lock
    h_ = 0;
}

Result<File> open_for_lock(const fs::path& path) {
    // O_NONBLOCK: a FIFO put where the file was must not block the open (the caller then sees
    // that it is not a regular file and takes no lock).
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot open", errno);
    return File(fd);
}

Result<Lock> lock_file(File file, const FileIdentity&) {
    Lock lock;
    for (;;) {
        if (::flock(file.get(), LOCK_EX) == 0) break;
        if (errno == EINTR) continue;
        // No locks on this file system (ENOLCK, EOPNOTSUPP; an NFS mount whose lock daemon is
        // not running): the write goes on unlocked, with its identity check before the rename.
        return lock;
    }
    lock.h_ = static_cast<std::uintptr_t>(file.get()) + 1;
    (void)file.release();
    return lock;
}

Lock hold_temporary(Native file) {
    // create_temporary locked the file's open description; a duplicate descriptor shares it,
    // and keeps it held once the write's own descriptor is closed before the rename.
    Lock lock;
    const int fd = ::fcntl(file, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return lock;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return lock;
    }
    lock.h_ = static_cast<std::uintptr_t>(fd) + 1;
    return lock;
}

bool temporary_held(const fs::path& path) noexcept {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    // Gone since the directory was read: renamed into place or removed by its write.
    if (fd < 0) return errno == ENOENT;
    bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (!held) {
        // Free now, but its write may have ended between the open and the flock: renamed into
        // place (or removed), then let go. The path no longer names the file opened: no leftover
        // (a concurrent run's write met at its last moment, the fault suite's item20). Still
        // named, the file is a dead write's: its writer holds it from its birth to its rename.
        struct stat opened {
        }, named{};
        held = ::fstat(fd, &opened) == 0 &&
               (::lstat(path.c_str(), &named) != 0 || named.st_ino != opened.st_ino ||
                named.st_dev != opened.st_dev);
    }
    ::close(fd);
    return held;
}

// A POSIX path is bytes: UTF-8 text is its name as it is (a name that is not UTF-8, met in a
// walk, is kept byte for byte and so still names its file).
fs::path path_from_utf8(std::string_view utf8) {
    return fs::path(std::string(utf8));
}

std::string path_to_utf8(const fs::path& path, bool) {
    return path.native();
}

} // namespace os

SPARKSAVE_END_NAMESPACE

#endif // !_WIN32
