// What every subcommand shares: exit codes, buffered output, colour, messages on stderr,
// loading an input with format detection, walking directories, the progress line.
#pragma once

#include "sparksave/error.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparksave::app {

// Exit status, the same for every command (CLI.md "Everywhere").
inline constexpr int k_exit_ok = 0;      // valid / identical / up to date / written
inline constexpr int k_exit_finding = 1; // invalid file, difference, needs migration, failed
inline constexpr int k_exit_trouble = 2; // bad usage, unreadable path, internal error
inline constexpr int k_exit_closed_output = 141; // standard output closed, nothing else wrong

// Options that apply to every command.
struct GlobalOptions {
    std::string color = "auto";
    std::string input_format;
};
GlobalOptions& globals();
void add_global_options(CLI::App& app);

// The format forced by --input-format, or nullptr (detect from content).
const FormatInfo* forced_format();

// Standard output, buffered in large blocks. A closed pipe ends the program quietly.
void out(std::string_view text);
void out_flush();

// Colour (--color, NO_COLOR, only on a terminal by default).
bool color_stdout();
bool color_stderr();
enum class Style { ok, fail, error, warning, added, removed, changed, dim };
std::string paint(Style style, std::string_view text, bool enabled);

// "sparksave: PATH: MESSAGE" on stderr (PATH already escaped by the caller via show_path).
void message(std::string_view path, std::string_view text);
void message(std::string_view text);
// A path made safe to print.
std::string show_path(std::string_view path);
// "error: at offset ...: ..." / "warning: ..." (coloured when `color`).
std::string describe_finding(const Error& finding, bool color);

// An input file read into memory with its format.
struct Input {
    std::string path;
    std::shared_ptr<const Source> source;
    const FormatInfo* format = nullptr;
    FileIdentity identity; // the file that was read (for an in-place rename)
};

// Reading a named file: the Input, or why not. `exit_code` is k_exit_trouble when the path
// cannot be read, k_exit_finding when it is not a save of a known format (or too large).
struct Loaded {
    std::optional<Input> input;
    Error error;
    int exit_code = k_exit_ok;
};
// The path is opened once (a pipe or FIFO is read as a stream) and the format detected on the
// bytes read, unless --input-format forces one. `walked`: the file was found in a directory
// walk, where a format without a signature is only taken when --input-format names it
// (CLI.md "Everywhere").
Loaded load_input(const std::string& path, bool walked = false);
// True when `loaded` failed only because a file found in a walk is of no known format: skipped
// and counted, not an error.
bool skipped_in_walk(const Loaded& loaded, bool walked);
// After the input was used: an error when the file was cut short while it was read (a mapped
// file truncated by another program): what was read is not the file.
std::optional<Error> changed_while_read(const Input& input);
// True when an input was cut short while it was read and no command reported it through
// changed_while_read (main() then reports it and exits 2).
bool unreported_changes();

// The files under the command-line PATHs: a file as given, a directory walked recursively
// (sorted, so output is stable), taking regular files only (CLI.md "Everywhere": FIFOs, sockets
// and devices are not opened, links to directories not followed), never sparksave's own backups
// (FILE.v<N>.bak) and temporary files. A temporary file left by an interrupted write is listed
// apart; the engine's companions of a slot (<slot>.spark_save.bak / .tmp) are marked. A
// directory that cannot be read is reported at once, counted in `errors`, and the walk goes on.
struct FileList {
    enum class Role : std::uint8_t { save, engine_backup, engine_temp };
    struct Entry {
        std::string path;
        bool from_directory = false;
        std::string root; // the command-line argument it was found under
        Role role = Role::save;
    };
    std::vector<Entry> files;
    std::vector<std::string> stale_temps; // temporary files of interrupted sparksave writes
    std::size_t errors = 0;               // directories or entries that could not be read
};
FileList collect_files(const std::vector<std::string>& paths);

// What the work done so far earned, for a closed standard output (CLI.md "Everywhere": the
// program then ends quietly with 1 when a finding was known, 2 for trouble, else 141). Commands
// record each file's status as they learn it, before they print it.
void record_status(int exit_code);

// A progress line on stderr, shown only when stderr is a terminal and there is enough work.
class Progress {
  public:
    Progress(std::string_view verb, std::size_t total);
    ~Progress();
    void step(std::string_view path);
    void clear();

  private:
    std::string verb_;
    std::size_t total_;
    std::size_t done_ = 0;
    bool enabled_;
    bool shown_ = false;
};

// Runs `work(i)` for i in [0, count) on `jobs` threads (0: one per core) and calls `done(i)`
// on the calling thread in index order as results become ready.
void parallel_for_ordered(std::size_t count, unsigned jobs,
                          const std::function<void(std::size_t)>& work,
                          const std::function<void(std::size_t)>& done);

} // namespace sparksave::app
