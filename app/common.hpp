// What every subcommand shares: exit codes, buffered output, colour, messages on stderr,
// loading an input with format detection, walking directories, the progress line.
#pragma once

#include "sparksave/error.hpp"
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
};

// Reading a named file: the Input, or why not. `exit_code` is k_exit_trouble when the path
// cannot be read, k_exit_finding when it is not a save of a known format (or too large).
struct Loaded {
    std::optional<Input> input;
    Error error;
    int exit_code = k_exit_ok;
};
// `known`: the format, when the caller already detected it (collect_files did).
Loaded load_input(const std::string& path, const FormatInfo* known = nullptr);

// The files under the command-line PATHs: a file as given, a directory walked recursively
// (sorted, so output is stable). Files of no known format under a directory are skipped and
// counted. Unreadable entries are reported as they are met and counted in `errors`.
struct FileList {
    struct Entry {
        std::string path;
        bool from_directory = false;
        std::string root;                   // the command-line argument it was found under
        const FormatInfo* format = nullptr; // detected while walking a directory
    };
    std::vector<Entry> files;
    std::size_t skipped = 0; // files of no known format found in directories
    std::size_t errors = 0;  // paths that could not be read
};
FileList collect_files(const std::vector<std::string>& paths);

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

// --jobs of verify and migrate (one rule for both): 0, the default, is one worker per core;
// at most k_max_jobs (far beyond any gain: the work is reading files, and each worker holds
// one file's buffers). jobs_check() is the option's check, named so --help shows the rule.
inline constexpr unsigned k_max_jobs = 1024;
inline CLI::Validator jobs_check() {
    CLI::Validator range = CLI::Range(0u, k_max_jobs);
    range.description("0 (one per core) to " + std::to_string(k_max_jobs));
    return range;
}

// Runs `work(i)` for i in [0, count) on `jobs` threads (0: one per core) and calls `done(i)`
// on the calling thread in index order as results become ready.
void parallel_for_ordered(std::size_t count, unsigned jobs,
                          const std::function<void(std::size_t)>& work,
                          const std::function<void(std::size_t)>& done);

} // namespace sparksave::app
