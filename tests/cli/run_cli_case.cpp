// sparksave_cli_case: runs CLI cases by name (ctest runs each as `cli/<case>`), or all of them.
//     sparksave_cli_case CASE...      run these cases
//     sparksave_cli_case --all        run every case
//     sparksave_cli_case --list       print the case names
// Exit status 0 when every case matches its goldens, 1 when one differs, 2 for an unknown case.
// SPARKSAVE_REGENERATE=1 rewrites the goldens; SPARKSAVE_KEEP_SCRATCH=1 keeps each scratch
// directory (cli/cli_cases.hpp).
#include "cli/cli_cases.hpp"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace sparksave::test;
    std::vector<std::string> names(argv + 1, argv + argc);
    if (names.size() == 1 && names[0] == "--list") {
        for (const auto& name : cli_cases()) std::printf("%s\n", name.c_str());
        return 0;
    }
    if (names.size() == 1 && names[0] == "--all") names = cli_cases();
    if (names.empty()) {
        std::fprintf(stderr, "usage: sparksave_cli_case CASE... | --all | --list\n");
        return 2;
    }
    int status = 0;
    for (const auto& name : names) {
        const CliOutcome o = run_cli_case(name);
        if (!o.known) {
            std::fprintf(stderr, "cli/%s: no such case (expected testdata/cli/%s/cmd)\n",
                         name.c_str(), name.c_str());
            status = 2;
            continue;
        }
        if (!o.kept.empty())
            std::fprintf(stderr, "cli/%s: scratch kept in %s\n", name.c_str(), o.kept.c_str());
        if (o.differences.empty()) {
            std::printf("ok   cli/%s\n", name.c_str());
        } else {
            std::printf("FAIL cli/%s\n%s", name.c_str(), o.differences.c_str());
            if (status == 0) status = 1;
        }
    }
    return status;
}
