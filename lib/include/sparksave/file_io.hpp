// Reading files with a size limit, and the atomic write every writer shares: a temporary file
// beside the target, written, flushed, fsync'd, optionally re-read and verified, then renamed
// into place. On any failure the target is untouched and no temporary file is left behind.
// POSIX and Windows alike (lib/src/file_io_posix.cpp, file_io_win32.cpp); where Windows differs,
// the comment below says how.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

// Which file a path named when it was read: compared again before an in-place rename, so a
// file another program replaced or wrote meanwhile is never renamed over.
struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    bool regular = false; // a regular file (not a pipe, FIFO, device or standard input stream)
    bool operator==(const FileIdentity&) const = default;
};

struct OpenedFile {
    std::shared_ptr<const Source> source;
    FileIdentity identity;
};

// Opens `path` once ("-": standard input) and reads it whole. `limit_of` gets the first
// `head_bytes` bytes (fewer when the file is shorter) before the rest is read and returns the
// largest size allowed for this content, or an error that stops the read (e.g. no known
// format). A regular file larger than the limit is refused before it is read; a stream (pipe,
// FIFO, terminal, `<(...)`) is read in blocks and refused as soon as it passes the limit, so
// memory stays near the limit. Errors: io_error (with the system's reason; "the file changed
// while it was read" when its size or time changed under the read), too_large, or what
// `limit_of` returned. A regular file of 1 MiB or more is mapped into memory rather than
// copied; if another program truncates it while it is mapped, see handle_mapping_fault.
// `may_map` false: read into memory whatever its size, for a reader that walks the bytes more
// than once and trusts what its first walk checked (pack's JSON): a truncation under a mapping
// would turn checked text into zeros between the walks; a truncation under the read is "the
// file changed while it was read".
Result<OpenedFile>
read_input(const std::filesystem::path& path, std::size_t head_bytes,
           const std::function<Result<std::uint64_t>(std::string_view head)>& limit_of,
           bool may_map = true);

// read_input with a fixed limit of `max_bytes`.
Result<std::shared_ptr<const Source>> read_file(const std::filesystem::path& path,
                                                std::uint64_t max_bytes);

// For a SIGBUS handler (async-signal-safe): when `address` lies in a file mapped by
// read_input, the rest of that mapping is replaced by zero pages, its Source reports
// changed(), and true is returned (the faulting read can go on); false for any other address.
// Call Source::changed() after reading a file to learn that what was read is not the file.
// Windows has no SIGBUS (inputs are read, not mapped, there): always false.
bool handle_mapping_fault(const void* address) noexcept;
// How many mapped files handle_mapping_fault() found cut short so far.
std::size_t mapping_faults() noexcept;

// The name of the temporary files AtomicFile creates (`.NAME.sparksave-XXXXXX`, the name cut
// short when the whole would not fit the directory): a file so named that is not being written
// was left by an interrupted write (kill -9, a power cut) and is never a save.
bool is_temporary_name(std::string_view filename) noexcept;

// The directories of a batch of atomic writes, each made durable once (fsync of the directory)
// when the batch ends rather than after every rename: a folder of 10,000 migrated files costs
// one directory sync, not 10,000. Thread-safe. Windows syncs no directory: each rename was
// made durable by MOVEFILE_WRITE_THROUGH.
class DirectorySyncs {
  public:
    void add(const std::filesystem::path& dir);
    // fsyncs every directory added since the last call; an error names the first that failed.
    Result<void> sync();

  private:
    std::mutex mutex_;
    std::set<std::string> dirs_;
};

// An advisory lock on one file, which sparksave processes and threads honour (the engine takes
// none: an in-place write still checks the file's identity before its rename). A write that
// replaces a file holds it for the whole read -> write -> rename, so two runs over one folder
// never race: the second waits (a write takes milliseconds) and then reads the file afresh.
// POSIX: flock(2) on a descriptor of the file, kept open while held (released by the kernel when
// the process dies, kill -9 included); a file system without locks (flock fails other than by
// being held) gives a lock that is not held(). Windows: a named mutex for the file's volume and
// file index (abandoned, and so free, when its process dies), no handle kept open on the file,
// since one would stop another write's rename over it; it must be released by the thread that
// took it.
class FileLock {
  public:
    // Waits until no other holder is left, then holds the lock of the regular file `path` names
    // (symbolic links followed). When the path names another file once the lock is taken (it was
    // replaced while this waited), the new file is locked instead. No lock (held() false) for a
    // path that names no regular file. Errors: io_error (the file cannot be opened).
    static Result<FileLock> acquire(const std::filesystem::path& path);
    FileLock() noexcept;
    ~FileLock();
    FileLock(FileLock&&) noexcept;
    FileLock& operator=(FileLock&&) noexcept;
    bool held() const noexcept;
    // The file locked: compare its device and inode with what was then read.
    const FileIdentity& identity() const noexcept;

    struct State;

  private:
    std::unique_ptr<State> s_;
};

// Whether the temporary file at `path` (is_temporary_name) belongs to a write in progress, of
// this process or of another sparksave that is alive: AtomicFile holds its temporary file for its
// whole life (POSIX: flock; Windows: opened without write sharing). False for a temporary file
// left by an interrupted write (a dead process), which may be removed.
bool temporary_in_use(const std::filesystem::path& path) noexcept;

class AtomicFile;

// How an AtomicFile writes. Policy (what may be replaced, backups, the identical-bytes test)
// belongs to the write model, output.hpp; these are the mechanisms it uses.
struct AtomicWriteOptions {
    // When false, fail with io_error if the destination exists when the rename is made (even if
    // it appeared meanwhile), and never replace it.
    bool replace_existing = true;
    // Give the new file the permission bits, the owner (when allowed) and the extended
    // attributes (ACLs included) of `metadata_from`, or else of the file it replaces; else
    // 0666 & ~umask. Windows: none of these (the new file gets the ACL its directory gives it,
    // as any file saved there).
    std::filesystem::path metadata_from;
    // Also give it the access and modification times of `metadata_from` (a backup).
    bool keep_times = false;
    // Called with the bytes read back from the temporary file after it was flushed, while they
    // are compared with the bytes written (on a second thread for a large file, so it must
    // change nothing: a check of the result). An error stops the write, reported after a failed
    // comparison, which comes first.
    std::function<Result<void>(std::string_view written)> check;
    // Called with the bytes read back once they compared equal and passed `check`, before the
    // rename: an error stops the write; false leaves the destination as it is (the write is
    // dropped and commit() reports "not written").
    std::function<Result<bool>(std::string_view written)> before_rename;
    // When set, the destination must still be this file when the rename is made (an in-place
    // rewrite): a file another program replaced, appended to or rewrote meanwhile is left as it
    // is and the write fails ("changed while it was being migrated").
    std::optional<FileIdentity> expect_unchanged;
    // When set, the file this write creates belongs to that other write until it commits: if
    // the other write fails or the process is interrupted first, this file is removed again (a
    // backup made for a migration that did not complete).
    AtomicFile* companion_of = nullptr;
    // When set, the rename is made durable by directory_syncs->sync() at the end of the batch
    // instead of by an fsync of the directory right after it.
    DirectorySyncs* directory_syncs = nullptr;
    // When set, the temporary file is this path (in the target's directory) instead of a unique
    // `.NAME.sparksave-XXXXXX`: a program's own convention, such as a save slot's
    // `<slot>.spark_save.tmp` (formats/README.md §1.7). It is created or truncated (a stale one
    // left by a crash is replaced; a symbolic link there is refused), so two writes with one
    // temporary name must not run at once.
    std::filesystem::path temporary;
};

// A file being written atomically: write() appends (buffered, with a running CRC-32; on Linux
// the kernel is asked to start writing each 8 MiB to the disk as it is written, so the fsync
// at the end waits for the last part only), commit() flushes, fsyncs, reads the file back
// (mapped, no copy) and checks it against what was written (options.check beside), calls
// options.before_rename, then renames it into place. Destroyed without a successful
// commit(), it removes its temporary file (and its companion): the destination is never
// touched. An existing destination that is not a regular file (a FIFO, a device) is refused.
class AtomicFile {
  public:
    static Result<std::unique_ptr<AtomicFile>> create(const std::filesystem::path& target,
                                                      const AtomicWriteOptions& options = {});
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    Result<void> write(std::string_view bytes);
    // True: written and renamed into place; false: dropped (before_rename said so).
    Result<bool> commit();
    // The file the write goes to (symbolic links followed).
    const std::filesystem::path& target() const noexcept;

    struct State;

  private:
    explicit AtomicFile(std::unique_ptr<State> state);
    Result<void> flush();
    Result<void> put(std::string_view bytes); // to the file, unbuffered
    std::unique_ptr<State> s_;
};

// Writes `bytes` to `target` atomically. A symbolic link at `target` is followed: the file it
// names is replaced and the link stays a link.
Result<void> write_file_atomic(const std::filesystem::path& target, std::string_view bytes,
                               const AtomicWriteOptions& options = {});

// Ends every write in progress for good: no temporary file is created or renamed into place
// after it returns, and the temporary files (and companions) of writes in progress are
// removed. For a program about to exit on a signal or a closed output; call it from an
// ordinary thread (it takes a lock), e.g. one that waits for signals with sigwait(), or a
// Windows console control handler (SetConsoleCtrlHandler: it runs on a thread of its own).
void abandon_writes() noexcept;

// The same without the lock, async-signal-safe, for a signal handler when no such thread could
// be started: removes the temporary files and companions of writes in progress.
void remove_temporary_files() noexcept;

// `path` with every symbolic link in its last component followed (at most 40 hops).
Result<std::filesystem::path> follow_symlinks(const std::filesystem::path& path);

// Paths as text. Every path the library and the tool hold in a std::string (Input::path,
// InputList, BatchOptions, FileOutcome::destination, command-line arguments) is UTF-8, on every
// system; these two are the only conversions between such text and a std::filesystem::path. On
// POSIX a path is bytes and nothing is converted. On Windows a path is UTF-16 (native()), and a
// narrow std::string handed to std::filesystem::path, or taken from path::string(), would go
// through the ANSI code page instead: a name outside it (`セーブ.spark_save` on a Western
// system) would name another file, or throw. Neither conversion throws: text that is not UTF-8,
// or a name with an unpaired UTF-16 surrogate, gets U+FFFD in its place.
std::filesystem::path path_from_utf8(std::string_view utf8);
// `path` in UTF-8 with its separators as they are (native), or with `/` (generic: every path
// the library builds itself and shows, e.g. a walk's files, is shown with `/`).
std::string path_to_utf8(const std::filesystem::path& path, bool generic = false);

SPARKSAVE_END_NAMESPACE
