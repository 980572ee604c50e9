// CLI cases (zstd cli-tests style): each testdata/cli/<case>/cmd is a shell command run from
// testdata/ with the built `sparksave` first on PATH and $SCRATCH an empty directory of its own;
// its stdout, stderr and exit status must equal the case's `stdout`, `stderr` and `status` files.
// ctest runs each case as its own test, `cli/<case>` (tests/CMakeLists.txt), through
// `sparksave_cli_case <case>`. SPARKSAVE_REGENERATE=1 rewrites the goldens instead of comparing;
// SPARKSAVE_KEEP_SCRATCH=1 keeps the case's scratch directory (its path is printed).
#pragma once

#include "sparksave/version.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace sparksave::test {

// The names of the testdata/cli directories, sorted (each should have a `cmd`).
std::vector<std::string> cli_cases();

struct CliOutcome {
    bool known = false;         // testdata/cli/<case>/cmd exists
    std::string differences;    // empty when the goldens match (or were rewritten)
    std::filesystem::path kept; // the scratch directory when SPARKSAVE_KEEP_SCRATCH=1
};

// Runs one case against the built binary and compares (or rewrites) its three goldens.
CliOutcome run_cli_case(const std::string& name);

} // namespace sparksave::test
