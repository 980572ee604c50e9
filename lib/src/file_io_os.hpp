// The operating system's side of file_io.cpp: the few calls whose form differs between POSIX
// (file_io_posix.cpp) and Win32 (file_io_win32.cpp). file_io.cpp holds every rule of reading
// and of the atomic write once and calls these; each implementation says where its system
// cannot do what the other does. Internal: never installed.
#pragma once

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/file_io.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE
namespace os {

#ifdef _WIN32
using Native = void*; // a HANDLE
#else
using Native = int; // a file descriptor
#endif
// The character of a native path (std::filesystem::path::value_type: wchar_t on Windows).
using PathChar = std::filesystem::path::value_type;

Native no_file() noexcept;

// An open file, closed when destroyed.
class File {
  public:
    File() noexcept : h_(no_file()) {}
    explicit File(Native h) noexcept : h_(h) {}
    ~File() { (void)close(); }
    File(File&& other) noexcept : h_(other.h_) { other.h_ = no_file(); }
    File& operator=(File&& other) noexcept {
        if (this != &other) {
            (void)close();
            h_ = other.h_;
            other.h_ = no_file();
        }
        return *this;
    }
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    bool is_open() const noexcept { return h_ != no_file(); }
    Native get() const noexcept { return h_; }
    // Gives up the file without closing it.
    Native release() noexcept {
        const Native h = h_;
        h_ = no_file();
        return h;
    }
    // Closes it (an error is the system's: a write it could not complete).
    Result<void> close() noexcept;

  private:
    Native h_;
};

enum class Kind { missing, regular, directory, other };
struct Status {
    Kind kind = Kind::missing;
    FileIdentity identity; // its size when regular (identity.size), device and file number
};

// An io_error "WHAT: the system's reason" for the last failed call of this thread.
Error last_error(std::string_view what);

// --- Reading
Result<File> open_for_reading(const std::filesystem::path& path);
Native standard_input() noexcept;
Result<Status> status_of(Native file);
// The file a path names (symbolic links followed, or not with follow = false); missing when it
// cannot be looked at.
Status status_of(const std::filesystem::path& path, bool follow = true) noexcept;
// Up to `size` bytes at the current position; 0 at the end.
Result<std::size_t> read_some(Native file, char* into, std::size_t size);
// Up to `size` bytes at `offset`; 0 at the end. An error says "WHAT: the system's reason".
Result<std::size_t> read_at(Native file, char* into, std::size_t size, std::uint64_t offset,
                            std::string_view what = "cannot read");
// The first `size` bytes of an open regular file, mapped read-only: nullptr when it cannot be
// mapped (the caller reads it instead). Its Source reports changed() as handle_mapping_fault
// says.
std::shared_ptr<const Source> map_input(Native file, std::size_t size);

// A read-only view of the first `size` bytes of a file being written (read back before it is
// renamed into place), unmapped when destroyed.
class View {
  public:
    View() = default;
    View(const char* data, std::size_t size) noexcept : data_(data), size_(size) {}
    ~View();
    View(View&& other) noexcept : data_(other.data_), size_(other.size_) { other.data_ = nullptr; }
    View(const View&) = delete;
    View& operator=(const View&) = delete;
    View& operator=(View&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        return *this;
    }
    std::string_view bytes() const noexcept { return {data_, data_ ? size_ : 0}; }

  private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
};
Result<View> map_written(Native file, std::size_t size);

// --- Writing
// What a new file takes from the file it replaces (or AtomicWriteOptions::metadata_from).
struct Kept {
    std::uint32_t mode = 0; // POSIX permission bits
    std::uint32_t uid = 0, gid = 0;
    std::int64_t atime = 0, mtime = 0; // the system's own units (ns on POSIX, FILETIME ticks)
};
bool read_kept(const std::filesystem::path& path, Kept& kept);
// Gives the open new file `kept`'s permission bits, owner and extended attributes (those of
// `attributes_from`), or `mode` (>= 0), or the default mode.
Result<void> apply_kept(Native file, const Kept* kept, int mode,
                        const std::filesystem::path& attributes_from);
Result<void> apply_times(Native file, const Kept& kept);

// The longest file name `dir` allows.
std::size_t max_name_length(const std::filesystem::path& dir);
// Creates a new unique file from `pattern` (its last six characters are "XXXXXX", replaced),
// held for temporary_held from its birth (POSIX: flock of its open description, Linux: before
// its name exists; Windows: no write sharing), or with exact = true the file `pattern` itself
// (created or truncated; a symbolic link there is refused). `pattern` is left as the name
// created.
Result<File> create_temporary(std::filesystem::path& pattern, bool exact);
Result<void> write_all(Native file, std::string_view bytes);
// Asks the kernel to start writing these bytes of the file to the disk now, without waiting
// (Linux: sync_file_range; elsewhere nothing): a hint, so that sync_file has less to wait for.
void start_writeback(Native file, std::uint64_t offset, std::uint64_t length) noexcept;
// Flushes the file's data and metadata to the disk (fsync, FlushFileBuffers).
Result<void> sync_file(Native file, const std::filesystem::path& path);
// Renames `from` over `to`, replacing it.
Result<void> rename_replace(const std::filesystem::path& from, const std::filesystem::path& to);
// Renames `from` to `to` only if `to` does not exist (even if it appears meanwhile); `existed`
// is set when that was why it failed.
Result<void> rename_new(const std::filesystem::path& from, const std::filesystem::path& to,
                        bool& existed);
// Makes the renames made in `dir` durable.
Result<void> sync_directory(const std::filesystem::path& dir);
// Removes a file; async-signal-safe on POSIX (the signal handler's remove_temporary_files).
void remove_file(const PathChar* path) noexcept;

// --- Advisory locks between sparksave processes (file_io.hpp FileLock, temporary_in_use)
// A lock held until it is destroyed or reset: POSIX a descriptor with flock(LOCK_EX), Windows a
// named mutex this thread owns.
class Lock {
  public:
    Lock() noexcept = default;
    ~Lock() { reset(); }
    Lock(Lock&& other) noexcept : h_(other.h_) { other.h_ = 0; }
    Lock& operator=(Lock&& other) noexcept {
        if (this != &other) {
            reset();
            h_ = other.h_;
            other.h_ = 0;
        }
        return *this;
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    bool held() const noexcept { return h_ != 0; }
    void reset() noexcept;

  private:
    friend Result<Lock> lock_file(File file, const FileIdentity& identity);
    friend Lock hold_temporary(Native file);
    std::uintptr_t h_ = 0; // POSIX: the descriptor + 1 (0: none); Windows: the mutex's HANDLE
};
// Opens the file a path names for locking, without blocking on a FIFO and without reading.
Result<File> open_for_lock(const std::filesystem::path& path);
// Waits for the lock of the regular file `file` (of `identity`) and holds it. POSIX keeps `file`
// open (flock); Windows closes it before the wait. An empty lock when the file system has none.
Result<Lock> lock_file(File file, const FileIdentity& identity);
// Marks the temporary file being written on `file` as in use until the lock is destroyed
// (POSIX: flock of a duplicate descriptor, so closing `file` before the rename keeps it held;
// Windows: an empty lock, the sharing mode of the open file says it).
Lock hold_temporary(Native file);
// Whether the temporary file at `path` is held by a write in progress (hold_temporary).
bool temporary_held(const std::filesystem::path& path) noexcept;

// --- Paths as text (file_io.hpp path_from_utf8, path_to_utf8)
std::filesystem::path path_from_utf8(std::string_view utf8);
std::string path_to_utf8(const std::filesystem::path& path, bool generic);

#ifdef _WIN32
// The name every Win32 call here is given for `path`: the path itself, or, when its full form
// is too long for the classic Win32 limit (MAX_PATH), that full form in the extended-length
// syntax `\\?\C:\...` (`\\?\UNC\server\share\...`): absolute, `.` and `..` resolved,
// backslashes only, as that syntax needs (it reaches the file system as it is).
std::wstring win32_path(const std::filesystem::path& path);
#endif

} // namespace os
SPARKSAVE_END_NAMESPACE
