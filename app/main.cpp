// sparksave: the command-line tool. A thin layer over the library: each subcommand lives in
// its own cmd_<name>.cpp.
#include "commands.hpp"
#include "common.hpp"

#include "sparksave/file_io.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <optional>
#include <string>
#include <string_view>

#ifndef SPARKSAVE_VERSION
#define SPARKSAVE_VERSION "unknown"
#endif

using namespace sparksave::app;

namespace {

extern "C" void on_fatal_signal(int sig) {
    sparksave::remove_temporary_files();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

// CLI11 reports a mistyped command as "a subcommand is required"; say what was wrong instead.
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg == "--color" || arg == "--input-format") {
            ++i; // the option's value
            continue;
        }
        if (arg.starts_with("-")) continue;
        std::string names;
        for (const CLI::App* sub : app.get_subcommands({})) {
            if (sub->get_name() == arg) return std::nullopt;
            names += (names.empty() ? "" : ", ") + sub->get_name();
        }
        return "unknown command '" + std::string(arg) + "' (commands: " + names + ")";
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    // A closed pipe (`sparksave dump big | head`) surfaces as EPIPE, which ends output quietly.
    std::signal(SIGPIPE, SIG_IGN);
    // A file-size limit surfaces as EFBIG from write(), which fails that one file cleanly.
    std::signal(SIGXFSZ, SIG_IGN);
    // Interrupted: remove the temporary files of writes in progress, then die of the signal.
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_fatal_signal);

    CLI::App app{"sparksave: read, check, dump, migrate and diff game save files", "sparksave"};
    app.set_version_flag("--version", "sparksave " SPARKSAVE_VERSION);
    app.require_subcommand(1);
    app.fallthrough();
    app.footer("Run `sparksave COMMAND -h` for a command's options, `man sparksave` for more.\n"
               "Exit status: 0 success, 1 a finding (invalid file, difference, ...), 2 trouble.");
    add_global_options(app);
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return "sparksave: " + std::string(e.what()) +
               "\nRun `sparksave --help` for more information.\n";
    });

    int exit_code = k_exit_ok;
    setup_info(app, exit_code);
    setup_dump(app, exit_code);
    setup_verify(app, exit_code);
    setup_migrate(app, exit_code);
    setup_diff(app, exit_code);
    setup_pack(app, exit_code);

    if (auto unknown = unknown_command(app, argc, argv)) {
        message(*unknown);
        return k_exit_trouble;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? k_exit_ok : k_exit_trouble;
    } catch (const std::bad_alloc&) {
        message("out of memory");
        return k_exit_trouble;
    } catch (const std::exception& e) {
        message(std::string("internal error: ") + e.what());
        return k_exit_trouble;
    }
    out_flush();
    return exit_code;
}
