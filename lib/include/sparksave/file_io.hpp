// Reading files with a size limit, and the atomic write every writer shares: a temporary file
// beside the target, written, flushed, fsync'd, optionally re-read and verified, then renamed
// into place. On any failure the target is untouched and no temporary file is left behind.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace sparksave {

// Reads a whole file (or standard input for "-") of at most `max_bytes` bytes. Errors:
// io_error (with the system's reason), too_large. A regular file of 1 MiB or more is mapped
// into memory rather than copied; if another program truncates it while it is mapped, reading
// the lost pages raises SIGBUS (the sparksave tool reports that as an error and exits 2).
Result<std::shared_ptr<const Source>> read_file(const std::filesystem::path& path,
                                                std::uint64_t max_bytes);

// The first `count` bytes of a file (fewer when it is shorter), for format detection.
Result<std::string> read_head(const std::filesystem::path& path, std::size_t count);

// The directories of a batch of atomic writes, each made durable once (fsync of the directory)
// when the batch ends rather than after every rename: a folder of 10,000 migrated files costs
// one directory sync, not 10,000. Thread-safe.
class DirectorySyncs {
  public:
    void add(const std::filesystem::path& dir);
    // fsyncs every directory added since the last call; an error names the first that failed.
    Result<void> sync();

  private:
    std::mutex mutex_;
    std::set<std::string> dirs_;
};

struct AtomicWriteOptions {
    // When false, fail with io_error if the destination exists, and never replace it (even if
    // it appears between the check and the rename).
    bool replace_existing = true;
    // Give the new file the permission bits (and, when allowed, the owner) of the file it
    // replaces; else `mode` when set, else 0666 & ~umask.
    bool keep_mode = true;
    int mode = -1;
    // Called with the bytes read back from the temporary file after it was flushed; an error
    // stops the write before the rename.
    std::function<Result<void>(std::string_view written)> verify;
    // When the destination already holds exactly these bytes, leave it alone (mtime and all)
    // and report "not written". With replace_existing false, a destination that differs is
    // refused with bad_usage after the bytes were written and checked.
    bool skip_identical = false;
    // When set, the rename is made durable by directory_syncs->sync() at the end of the batch
    // instead of by an fsync of the directory right after it.
    DirectorySyncs* directory_syncs = nullptr;
};

// A file being written atomically: write() appends (buffered, with a running CRC-32), commit()
// flushes, fsyncs, reads the file back (mapped, no copy) and checks it against what was
// written and with options.verify, then renames it into place. Destroyed without a successful
// commit(), it removes its temporary file: the destination is never touched.
class AtomicFile {
  public:
    static Result<std::unique_ptr<AtomicFile>> create(const std::filesystem::path& target,
                                                      const AtomicWriteOptions& options = {});
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    Result<void> write(std::string_view bytes);
    // True: written and renamed into place; false: skipped (skip_identical, same bytes).
    Result<bool> commit();
    // The file the write goes to (symbolic links followed).
    const std::filesystem::path& target() const noexcept;

  private:
    struct State;
    explicit AtomicFile(std::unique_ptr<State> state);
    Result<void> flush();
    std::unique_ptr<State> s_;
};

// Writes `bytes` to `target` atomically. A symbolic link at `target` is followed: the file it
// names is replaced and the link stays a link.
Result<void> write_file_atomic(const std::filesystem::path& target, std::string_view bytes,
                               const AtomicWriteOptions& options = {});

// Removes the temporary files of writes in progress. Async-signal-safe: call it from a SIGINT /
// SIGTERM handler so an interrupted write leaves nothing behind.
void remove_temporary_files() noexcept;

// `path` with every symbolic link in its last component followed (at most 40 hops).
Result<std::filesystem::path> follow_symlinks(const std::filesystem::path& path);

} // namespace sparksave
