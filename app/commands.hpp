// The subcommands: each file cmd_<name>.cpp adds its subcommand to the app and runs it.
#pragma once

#include "sparksave/version.hpp"

#include <CLI/CLI.hpp>

namespace sparksave::app {

void setup_info(CLI::App& app, int& exit_code);
void setup_dump(CLI::App& app, int& exit_code);
void setup_verify(CLI::App& app, int& exit_code);
void setup_migrate(CLI::App& app, int& exit_code);
void setup_pack(CLI::App& app, int& exit_code);
void setup_diff(CLI::App& app, int& exit_code);
// Last: it describes the commands set up before it.
void setup_completion(CLI::App& app, int& exit_code);

} // namespace sparksave::app
