// Inputs, the same for every command and tool: a save file opened once with its format
// recognised on the bytes read, and the directory walk (formats/README.md §1.7 for a save
// directory's files; the walk's rules are in sparksave(1), DIRECTORY WALKS).
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
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

// A file read into memory with its format.
struct Input {
    std::string path;
    std::shared_ptr<const Source> source;
    const FormatInfo* format = nullptr;
    FileIdentity identity; // the file that was read (for an in-place rename)
};

// Opens `path` once ("-": standard input; a pipe or FIFO is read as a stream, up to the size
// limit of the format its first bytes show) and recognises the format on the bytes read,
// unless `forced` names it. `walked`: the file was met in a directory walk, where a format
// without a signature is not taken (format.hpp FormatInfo::signature). Errors: io_error (the
// path cannot be read), unknown_format, too_large.
Result<Input> open_input(const std::string& path, const FormatInfo* forced = nullptr,
                         bool walked = false);

// After the input was used: an error when the file was cut short while it was read (a mapped
// file truncated by another program), so what was read is not the file.
std::optional<Error> changed_while_read(const Input& input);
// How many such changes changed_while_read() reported (compare with mapping_faults()).
std::size_t changes_reported() noexcept;

// The files under a list of paths: a file as given, a directory walked recursively in sorted
// order, one descriptor at a time whatever its depth. A walk takes regular files only (FIFOs,
// sockets and devices are not opened, links to directories are not followed) and never
// sparksave's own backups (FILE.v<N>.bak) or temporary files; a temporary file left by an
// interrupted write is listed apart, one of a write in progress (temporary_in_use: another
// sparksave run on the same folder) not at all. The engine's companions of a slot
// (<slot>.spark_save.bak, .tmp) are marked. A directory that cannot be read is listed in `problems`
// and the walk goes on.
struct InputList {
    enum class Role : std::uint8_t { save, engine_backup, engine_temp };
    struct Entry {
        std::string path;
        bool from_directory = false;
        std::string root; // the path it was found under
        Role role = Role::save;
    };
    struct Problem {
        std::string path;
        std::string message;
    };
    std::vector<Entry> files;
    std::vector<std::string> stale_temps; // temporary files of interrupted sparksave writes
    std::vector<Problem> problems;        // directories that could not be read
};
// Each file once: a file named twice, or named and also found in a walked directory, is listed
// where it first comes (paths compared in their lexically normal form: `a` and `./a` are one).
InputList collect_inputs(const std::vector<std::string>& paths);

// The names of a list file (`--files-from LIST`; "-": standard input, read once), one a line,
// or with `null_separated` each ended by a NUL byte (`git ls-files -z`, `find -print0`). Names
// are taken as given: not trimmed, not unquoted, never options; empty ones are skipped. A list
// is at most k_max_name_list bytes. Errors: io_error (with the system's reason), too_large.
inline constexpr std::uint64_t k_max_name_list = std::uint64_t{256} << 20;
Result<std::vector<std::string>> read_name_list(const std::string& list, bool null_separated);

// A walk's files by directory, for a listing of save directories (`info DIR`): the directories in
// order of their path, each one's files with what their names make them (format.hpp named_file),
// in listing order (listed_before).
struct DirectoryFiles {
    std::string path;
    std::vector<std::pair<const InputList::Entry*, NamedFile>> files;
};
std::vector<DirectoryFiles> by_directory(const InputList& list);

SPARKSAVE_END_NAMESPACE
