// What every subcommand shares: exit codes, buffered output, colour, messages on stderr,
// loading an input with format detection, walking directories, the progress line.
#pragma once

#include "printer.hpp"

#include "sparksave/error.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"
#include "sparksave/input.hpp"
#include "sparksave/version.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparksave::app {

// Exit status, the same for every command (sparksave(1) EXIT STATUS).
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

// Colour (--color, NO_COLOR, only on a terminal by default); paint() is in printer.hpp.
bool color_stdout();
bool color_stderr();

// The printer of a run's records on standard output (out()), chosen once: JSON with --json,
// else text, coloured when color_stdout().
std::unique_ptr<Printer> stdout_printer(bool json,
                                        Printer::JsonLayout layout = Printer::JsonLayout::lines);

// Text on standard error, unbuffered. Standard output and error get bytes, the POSIX build's
// exactly, except a Windows console, which gets them as text (UTF-8 shown as UTF-8).
void err(std::string_view text);

// "sparksave: PATH: MESSAGE" on stderr (PATH already escaped by the caller via show_path).
void message(std::string_view path, std::string_view text);
void message(std::string_view text);
// A path made safe to print.
std::string show_path(std::string_view path);

// Reading a named file (sparksave/input.hpp open_input, with --input-format): the Input, or
// why not. `exit_code` is k_exit_trouble when the path cannot be read, k_exit_finding when it is
// not a save of a known format (or too large).
struct Loaded {
    std::optional<Input> input;
    Error error;
    int exit_code = k_exit_ok;
};
Loaded load_input(const std::string& path, bool walked = false);
// True when `loaded` failed only because a file found in a walk is of no known format: skipped
// and counted, not an error.
bool skipped_in_walk(const Loaded& loaded, bool walked);
// A file read and checked without building a tree (FormatInfo::summarize): what verify and info
// show of it. `format` is nullptr when it was not read: `error` says why and `exit_code` what it
// earns (k_exit_trouble: unreadable, changed while read, out of memory; k_exit_finding: not a
// save of a known format, or too large); `skipped` when that is a file of no known format met in
// a walk, which is counted, not an error.
struct Checked {
    const FormatInfo* format = nullptr;
    Summary summary;
    Error error;
    int exit_code = k_exit_ok;
    bool skipped = false;
};
Checked check_input(const std::string& path, bool walked = false);
// True when an input was cut short while it was read and no command reported it through
// changed_while_read (main() then reports it and exits 2).
bool unreported_changes();

// The files under the command-line PATHs (sparksave/input.hpp collect_inputs); a directory that
// cannot be read is reported on stderr as it is met.
using FileList = InputList;
FileList collect_files(const std::vector<std::string>& paths);

// What the work done so far earned, for a closed standard output (sparksave(1) EXIT STATUS: the
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

// -j/--jobs of verify and migrate (one rule for both): 0, the default, is one worker per core;
// at most k_max_jobs (far beyond any gain: the work is reading files, and each worker holds
// one file's buffers). Anything else is a usage error (usage.hpp); --help shows the rule.
inline constexpr unsigned k_max_jobs = 1024;
CLI::Option* add_jobs_option(CLI::App& cmd, unsigned& jobs, const std::string& help);

// --files-from LIST and -0/--null of the commands that take PATH... (verify, info, migrate;
// sparksave(1) INPUTS): more paths, read from a list file (input.hpp read_name_list).
struct FilesFrom {
    std::string list; // empty: not given
    bool null = false;
};
void add_files_from(CLI::App& cmd, FilesFrom& from);
// The command line's PATHs, then the list's names, each once (a name given twice is taken
// where it first comes). Usage errors (usage.hpp), before anything is read: --null without
// --files-from, standard input both the list and a path, and no path and no list ("missing
// PATH: CMD takes PATH...", or `missing`'s text when given); an empty list is no files (a
// script's `git ls-files` that found none). A list that cannot be read is trouble: said on
// stderr, and nullopt (the command exits 2).
std::optional<std::vector<std::string>> all_paths(std::string_view command,
                                                  const std::vector<std::string>& paths,
                                                  const FilesFrom& from,
                                                  std::string_view missing = {});

// Runs `work(i)` for i in [0, count) on `jobs` threads (0: one per core) and calls `done(i)`
// on the calling thread in index order as results become ready.
void parallel_for_ordered(std::size_t count, unsigned jobs,
                          const std::function<void(std::size_t)>& work,
                          const std::function<void(std::size_t)>& done);

} // namespace sparksave::app
