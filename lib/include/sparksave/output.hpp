// The one write model of every command and API that writes a save (`migrate`, `pack`, the
// engine's write_slot; salvage, rule migrations and merge to come): where the result goes, the
// identical-bytes check, the backup and its companion rule, the per-file lock and the identity
// check before an in-place rename, the read-back check, and the typed outcome. Each of these is
// decided here once; a command only says what it made and where it goes. Built on
// file_io.hpp's AtomicFile (temporary file, fsync, read back, rename).
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/error.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/input.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

SPARKSAVE_BEGIN_NAMESPACE

// Why one file's work failed, decided where it failed (sparksave(1) EXIT STATUS): a finding
// (exit 1: the input is invalid, a difference, a conflict between inputs) or trouble (exit 2:
// the system refused a read or a write, a refusal to overwrite, out of memory).
struct Failure {
    enum class Kind : std::uint8_t { finding, trouble };
    Kind kind = Kind::trouble;
    Error error;
    static Failure finding(Error e) { return {Kind::finding, std::move(e)}; }
    static Failure trouble(Error e) { return {Kind::trouble, std::move(e)}; }
    int exit_status() const noexcept { return kind == Kind::finding ? 1 : 2; }
};

// A value or a Failure (Result<T> with the failure's kind).
template <class T> class [[nodiscard]] Outcome {
  public:
    Outcome(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Outcome(Failure failure) : v_(std::in_place_index<1>, std::move(failure)) {}
    bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }
    T& operator*() & { return *std::get_if<0>(&v_); }
    const T& operator*() const& { return *std::get_if<0>(&v_); }
    T* operator->() { return std::get_if<0>(&v_); }
    const T* operator->() const { return std::get_if<0>(&v_); }
    const Failure& failure() const& { return *std::get_if<1>(&v_); }
    Failure&& failure() && { return std::move(*std::get_if<1>(&v_)); }

  private:
    std::variant<T, Failure> v_;
};

// Where one result goes.
struct Destination {
    enum class Mode : std::uint8_t {
        in_place,        // replaces its input (OutputOptions::input), which must be unchanged
        new_file,        // -o FILE: an existing file that differs is never overwritten
        replace,         // --output-dir, pack -o: an existing file that differs is replaced
        standard_output, // -o -: nothing is written here; the caller prints the checked bytes
        none,            // --dry-run, --check: nothing is written
    };
    Mode mode = Mode::new_file;
    std::filesystem::path path; // the file written (in place: the input's path)
    bool make_parents = false;  // create its missing folders (--output-dir mirrors a tree)
};

// A backup of the file an output replaces, made durable before the rename.
struct Backup {
    std::filesystem::path path;
    // sparksave's FILE.v<N>.bak (migrate --backup) is never overwritten (one that already holds
    // exactly these bytes, left by a dead run, is kept and used) and belongs to the write it was
    // made for: removed again when that does not complete. The engine's <slot>.spark_save.bak
    // (write_slot) is replaced by each new revision and stays whatever happens next.
    enum class Policy : std::uint8_t { never_overwrite, replace };
    Policy policy = Policy::never_overwrite;
    std::string_view bytes; // what it holds (the file replaced, as it was read), unless:
    // when set, the backup is a copy of this file as it is when the backup is made, read in
    // blocks (a large input already let go); the identity check before the rename proves it was
    // the file that was read.
    std::filesystem::path copy_of;
    bool keep_times = true; // the replaced file's access and modification times
};

// Checks the bytes of a result read back from the disk before it takes its name. Its error is
// a finding: the result breaks a rule (a migration the target refuses, a JSON that describes an
// invalid save).
using ResultCheck = std::function<Result<void>(std::string_view written)>;

struct OutputOptions {
    Destination destination;
    // The file the result was made from: in place, the one replaced (it must still be this file
    // at the rename, FileIdentity); otherwise the new file gets its permission bits, owner and
    // extended attributes. Null: the new file gets those of the file it replaces, or defaults.
    const Input* input = nullptr;
    std::optional<Backup> backup;
    ResultCheck check;               // null: the bytes were checked before they were handed on
    std::filesystem::path temporary; // a program's own temporary name (write_slot's .tmp)
    DirectorySyncs* syncs = nullptr; // a batch: the directories are made durable at its end
};

// What a committed output did.
enum class Committed : std::uint8_t {
    written,   // renamed into place
    identical, // the destination already held exactly these bytes: left alone, mtime and all
};

// One output being written. Destroyed without a successful commit(), it leaves the destination
// (and any backup it would have made) as it was, and no temporary file.
class Output {
  public:
    // A result held whole: compared with the destination first (an identical one is left alone
    // and no temporary file is made), else written, read back, checked and renamed.
    static Outcome<Committed> write(const OutputOptions& options, std::string_view bytes);
    // A result made piece by piece (migrate part by part, pack streamed): write() as the pieces
    // come, then commit().
    static Outcome<std::unique_ptr<Output>> open(const OutputOptions& options);
    ~Output();
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    // The system refused the write: trouble.
    Result<void> write(std::string_view bytes);
    // The backup to make before the rename, when it could only be named once the result was made
    // (instead of OutputOptions::backup).
    void keep_backup(Backup backup);
    Outcome<Committed> commit();

    struct State;

  private:
    explicit Output(std::unique_ptr<State> state);
    std::unique_ptr<State> s_;
};

// An input a write will replace or be made from, read under its FileLock (file_io.hpp), which
// the caller holds until the output is renamed into place: another sparksave writing the file is
// waited for, and the file is then read as it left it. The file read is the file locked (a path
// replaced in between is locked again). Standard input and what is not a regular file are read
// unlocked. Errors as open_input's.
struct LockedInput {
    Input input;
    FileLock lock;
};
Result<LockedInput> open_locked(const std::string& path, const FormatInfo* forced, bool walked);

SPARKSAVE_END_NAMESPACE
