// What `sparksave git install` sets up and `git doctor` checks (sparksave-git(1)), in one place:
// the git settings of the drivers, the .gitattributes lines, running git itself, and appending
// lines to .gitattributes with the library's atomic write. POSIX only: on Windows the tool does
// not start programs (k_git_supported is false, and install and doctor say so).
#pragma once

#include "sparksave/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparksave::app {

#ifdef _WIN32
inline constexpr bool k_git_supported = false;
#else
inline constexpr bool k_git_supported = true;
#endif

// One git setting of the drivers: its name, the value install gives it, and what doctor accepts
// (a value that ends with `suffix`: the driver's command after whichever sparksave it names).
struct GitSetting {
    std::string name;
    std::string value;
    std::string suffix;
};
// The settings, with `program` (shell-quoted as needed) as the command of each driver:
// diff.sparksave.textconv, diff.sparksave.cachetextconv, diff.sparksave.command,
// merge.sparksave.name, merge.sparksave.driver.
std::vector<GitSetting> git_settings(std::string_view program);

// The program the drivers run: the absolute path of the running executable when the system says
// it (Linux: /proc/self/exe), else `sparksave` (found on PATH when git runs it).
std::string driver_program();

// The .gitattributes lines install --attributes appends, one a format (a commented one for
// spark-kv stores, which have no usual name), and the sample file names doctor asks git about.
struct AttributeLine {
    std::string line;
    std::string probe; // empty: nothing to check (the commented line)
};
const std::vector<AttributeLine>& attribute_lines();

// What a git command did: whether it could be started, its exit status and its output.
struct GitRun {
    bool started = false;
    int status = -1;
    std::string out, err;
    std::string why; // when it could not be started
};
GitRun run_git(const std::vector<std::string>& args);

// The top directory of the current repository's work tree, or the error (not a repository, git
// cannot be run) as git or the system says it.
Result<std::string> git_toplevel();

// Appends the lines of `lines` that `file` does not hold yet (compared without trailing blanks),
// atomically (a file that ends without a newline gets one first); returns the lines appended.
Result<std::vector<std::string>> append_missing_lines(const std::string& file,
                                                      const std::vector<std::string>& lines);

} // namespace sparksave::app
