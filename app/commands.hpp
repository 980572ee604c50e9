// The subcommands: each file cmd_<name>.cpp adds its subcommand to the app and runs it.
#pragma once

#include "sparksave/version.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace sparksave::app {

void setup_info(CLI::App& app, int& exit_code);
void setup_dump(CLI::App& app, int& exit_code);
void setup_verify(CLI::App& app, int& exit_code);
void setup_migrate(CLI::App& app, int& exit_code);
void setup_pack(CLI::App& app, int& exit_code);
void setup_salvage(CLI::App& app, int& exit_code);
void setup_diff(CLI::App& app, int& exit_code);
void setup_merge(CLI::App& app, int& exit_code);
void setup_git(CLI::App& app, int& exit_code);
// Last: it describes the commands set up before it.
void setup_completion(CLI::App& app, int& exit_code);

// `sparksave diff A B` as it prints (text) and its exit status, for `git diff-driver`; messages
// call the files `a_name` and `b_name` (empty: their paths).
int print_structural_diff(const std::string& a, const std::string& b, std::string_view a_name = {},
                          std::string_view b_name = {});

// `sparksave merge` of three files (cmd_merge.cpp), for `git merge-driver`: the result replaces
// OURS, or goes to `output` when it is not empty; messages call OURS `ours_name` (empty: its path).
int merge_files(const std::string& base, const std::string& ours, const std::string& theirs,
                const std::string& output, std::string_view ours_name = {});

} // namespace sparksave::app
