// Running one CLI case: the shell command, its outputs, the comparison with its goldens.
#include "cli/cli_cases.hpp"

#include "sparksave/version.hpp"
#include "support.hpp"

#include <algorithm>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sparksave::test {

namespace {

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

bool keep_scratch() {
    const char* v = std::getenv("SPARKSAVE_KEEP_SCRATCH");
    return v && std::string(v) == "1";
}

} // namespace

std::vector<std::string> cli_cases() {
    std::vector<std::string> cases;
    for (const auto& e : fs::directory_iterator(testdata() / "cli"))
        if (e.is_directory()) cases.push_back(e.path().filename().string());
    std::sort(cases.begin(), cases.end());
    return cases;
}

CliOutcome run_cli_case(const std::string& name) {
    CliOutcome outcome;
    const fs::path case_dir = testdata() / "cli" / name;
    if (name.empty() || name.find('/') != std::string::npos || !fs::exists(case_dir / "cmd"))
        return outcome;
    outcome.known = true;
    std::string cmd = read_bytes(case_dir / "cmd");
    while (!cmd.empty() && (cmd.back() == '\n' || cmd.back() == '\r')) cmd.pop_back();

    // A scratch directory per case and process: cases run in parallel under ctest.
    const fs::path scratch =
        fs::temp_directory_path() / ("sparksave-cli-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(scratch);
    fs::create_directories(scratch / "work");
    const fs::path bin = fs::path(SPARKSAVE_BINARY).parent_path();
    const fs::path out = scratch / "stdout", err = scratch / "stderr";
    std::string script = "cd " + shell_quote(testdata().string()) +
                         " && export PATH=" + shell_quote(bin.string()) +
                         ":\"$PATH\" LC_ALL=C SCRATCH=" + shell_quote((scratch / "work").string()) +
                         " && unset NO_COLOR && (" + cmd + ") >" + shell_quote(out.string()) +
                         " 2>" + shell_quote(err.string()) + " </dev/null";
    const int rc = std::system(script.c_str()); // /bin/sh -c script
    const int status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);

    for (const auto& [golden, actual] :
         {std::pair{case_dir / "stdout", read_bytes(out)},
          std::pair{case_dir / "stderr", read_bytes(err)},
          std::pair{case_dir / "status", std::to_string(status) + "\n"}}) {
        const std::string d = check_golden(golden, actual);
        if (!d.empty()) outcome.differences += d + "\n";
    }
    if (keep_scratch())
        outcome.kept = scratch;
    else
        fs::remove_all(scratch);
    return outcome;
}

} // namespace sparksave::test
