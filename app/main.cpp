// sparksave: the command-line tool. A thin layer over the library: each subcommand lives in
// its own cmd_<name>.cpp.
#include "commands.hpp"
#include "common.hpp"
#include "usage.hpp"

#include "records.hpp"

#include "sparksave/build_info.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <shellapi.h>

#include <vector>
#else
#include <pthread.h>
#include <signal.h>
#endif

using namespace sparksave::app;

namespace {

// The exit status of a stop (128 + the signal's number), set by the thread that takes it before
// it abandons the writes: a run whose last files failed as "interrupted" ends with it even when
// the main thread gets to its end before the stopping thread's _Exit (main()).
std::atomic<int> g_stop_status{0};

#ifdef _WIN32

// Ctrl+C or Ctrl+Break, the console closed, the user logging off, the system shutting down:
// Windows runs this handler on a new thread of its own, as the POSIX build's signal thread, so
// it may take the lock: every write in progress is abandoned (its temporary file, and a backup
// made for it, removed; no rename after this), then the program exits with the status the POSIX
// build gives for the matching signal: 130 (SIGINT) for Ctrl+C and Ctrl+Break, 129 (SIGHUP) for
// a closed console, 143 (SIGTERM) for logoff and shutdown. Windows has no SIGBUS to handle
// (file_io.hpp handle_mapping_fault) and no SIGPIPE: a closed pipe is an error of the write,
// handled as EPIPE is (common.cpp).
BOOL WINAPI on_console_event(DWORD event) {
    int status = 143;
    if (event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT)
        status = 130;
    else if (event == CTRL_CLOSE_EVENT)
        status = 129;
    g_stop_status.store(status);
    sparksave::abandon_writes();
    std::_Exit(status);
}

void install_signal_handlers() {
    ::SetConsoleCtrlHandler(on_console_event, TRUE);
    // Bytes in, bytes out, as on POSIX: no CRLF translation of standard output (dumps, JSON,
    // `pack` to stdout), standard error or standard input (`-`).
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
}

#else

constexpr int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

// Interrupted (SIGINT, SIGTERM, SIGHUP): every write in progress is abandoned (its temporary
// file, and a backup made for it, removed; no rename after this), then the program exits with
// 128 + the signal's number. The signals are blocked in every thread and taken by this one, so
// no worker can create or rename a file once it has begun.
void wait_for_stop_signal(sigset_t set) {
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {}
    g_stop_status.store(128 + sig);
    sparksave::abandon_writes();
    std::_Exit(128 + sig);
}

// When no thread could be started for that: the same from a handler, without the lock.
extern "C" void on_stop_signal(int sig) {
    sparksave::remove_temporary_files();
    std::_Exit(128 + sig);
}

// A file mapped for reading and truncated by another program meanwhile: its lost pages read as
// zeros and the read is reported as "the file changed while it was read" (file_io.hpp); any
// other SIGBUS is a real fault.
extern "C" void on_bus_error(int sig, siginfo_t* info, void*) {
    if (info && sparksave::handle_mapping_fault(info->si_addr)) return;
    sparksave::remove_temporary_files();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install_signal_handlers() {
    // A closed pipe (`sparksave dump big | head`) surfaces as EPIPE, which ends output quietly.
    std::signal(SIGPIPE, SIG_IGN);
    // A file-size limit surfaces as EFBIG from write(), which fails that one file cleanly.
    std::signal(SIGXFSZ, SIG_IGN);
    struct sigaction bus {};
    bus.sa_sigaction = on_bus_error;
    bus.sa_flags = SA_SIGINFO;
    sigemptyset(&bus.sa_mask);
    sigaction(SIGBUS, &bus, nullptr);

    sigset_t set;
    sigemptyset(&set);
    for (int sig : k_stop_signals) sigaddset(&set, sig);
    // Blocked before any other thread exists, so every worker inherits the mask.
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    try {
        std::thread(wait_for_stop_signal, set).detach();
    } catch (const std::exception&) {
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
        for (int sig : k_stop_signals) std::signal(sig, on_stop_signal);
    }
}

#endif // _WIN32

#ifdef _WIN32

// The command line as UTF-8 (file_io.hpp path_from_utf8: every path the tool holds as text is
// UTF-8). main()'s argv is in the ANSI code page, where a name outside it (`セーブ.spark_save` on a
// Western system) arrives as `???`: the command line is taken as UTF-16 instead (GetCommandLineW,
// split by CommandLineToArgvW as the C runtime splits argv) and each argument converted once,
// here; nothing else reads the command line.
class Utf8Arguments {
  public:
    Utf8Arguments(int argc, char** argv) {
        int n = 0;
        if (LPWSTR* wide = ::CommandLineToArgvW(::GetCommandLineW(), &n)) {
            for (int i = 0; i < n; ++i) text_.push_back(utf8(wide[i]));
            ::LocalFree(wide);
        } else { // no memory for it: the ANSI arguments, as before
            text_.assign(argv, argv + argc);
        }
        for (auto& t : text_) pointers_.push_back(t.data());
        pointers_.push_back(nullptr);
    }
    int argc() const { return static_cast<int>(text_.size()); }
    char** argv() { return pointers_.data(); }

  private:
    static std::string utf8(const wchar_t* arg) {
        const int bytes = ::WideCharToMultiByte(CP_UTF8, 0, arg, -1, nullptr, 0, nullptr, nullptr);
        if (bytes <= 1) return {};
        std::string out(static_cast<std::size_t>(bytes), '\0');
        ::WideCharToMultiByte(CP_UTF8, 0, arg, -1, out.data(), bytes, nullptr, nullptr);
        out.pop_back(); // the NUL
        return out;
    }
    std::vector<std::string> text_;
    std::vector<char*> pointers_;
};

#endif // _WIN32

// What `sparksave --version` prints (records.hpp VersionRecord), as text or JSON.
std::string version_text(bool json) {
    VersionRecord r;
    r.version = SPARKSAVE_VERSION;
    r.formats = sparksave::format_table();
    r.crc32 = sparksave::crc32_implementation();
    r.built_with = sparksave::build_components();
    r.built_with.emplace_back("CLI11", CLI11_VERSION);
    std::string text;
    auto p = json ? json_printer([&](std::string_view s) { text += s; })
                  : text_printer([&](std::string_view s) { text += s; }, false);
    print(*p, r);
    p->finish();
    return text;
}

// `sparksave --version --json` (either order, nothing else): the version as JSON. CLI11 reads
// `--version` itself otherwise (the text form), wherever it is before a command.
bool version_json(int argc, char** argv) {
    bool version = false, json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--version") {
            version = true;
        } else if (arg == "--json") {
            json = true;
        } else {
            return false;
        }
    }
    return version && json;
}

// CLI11 reports a mistyped command as "a subcommand is required"; say what was wrong instead.
// After an unknown option (`--colour never verify`) the parse says what was meant (usage.hpp).
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg == "--color" || arg == "--input-format") {
            ++i; // the option's value
            continue;
        }
        if (arg.starts_with("--color=") || arg.starts_with("--input-format=") || arg == "-h" ||
            arg == "--help" || arg == "--version")
            continue;
        if (arg.starts_with("-")) return std::nullopt;
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

// The program, but for how a stop ends it (main()).
static int run(int argc, char** argv) {
    install_signal_handlers();
#ifdef _WIN32
    Utf8Arguments utf8(argc, argv);
    argc = utf8.argc();
    argv = utf8.argv();
#endif

    CLI::App app{"sparksave: read, check, dump, migrate and diff game save files", "sparksave"};
    if (version_json(argc, argv)) {
        out(version_text(true));
        out_flush();
        return k_exit_ok;
    }
    app.set_version_flag(
        "--version",
        [] {
            std::string text = version_text(false);
            text.pop_back(); // CLI11 ends the line
            return text;
        },
        "Print the version, the formats and their versions, the CRC-32 code in use and the "
        "build's compiler and libraries, then exit (with --json: as JSON)");
    app.require_subcommand(1);
    // Options are `-x` and `--name` everywhere (sparksave(1)): CLI11 would take `/name` as an
    // option on Windows, and so an absolute path such as `/saves/a.spark_save` (the subcommands
    // inherit this setting).
    app.allow_windows_style_options(false);
    app.fallthrough();
    app.footer("Run `sparksave COMMAND -h` for a command's options, `man sparksave` for more.\n"
               "Exit status: 0 success, 1 a finding (invalid file, difference, ...), 2 trouble\n"
               "(bad usage, said on stderr with the command's help; a path that cannot be read or\n"
               "written).");
    add_global_options(app);

    int exit_code = k_exit_ok;
    setup_info(app, exit_code);
    setup_dump(app, exit_code);
    setup_verify(app, exit_code);
    setup_migrate(app, exit_code);
    setup_diff(app, exit_code);
    setup_pack(app, exit_code);
    setup_salvage(app, exit_code);
    setup_merge(app, exit_code);
    setup_git(app, exit_code);
    setup_completion(app, exit_code);

    if (auto unknown = unknown_command(app, argc, argv)) return report_program_usage(*unknown);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Usage errors: usage.hpp. Help and --version go out as every other output (common.hpp).
        if (e.get_exit_code() != 0) return report_parse_error(app, e);
        std::ostringstream help, usage;
        app.exit(e, help, usage);
        out(help.str());
        out_flush();
        err(usage.str());
        return k_exit_ok;
    } catch (const UsageError& e) {
        return report_usage(app, e);
    } catch (const std::bad_alloc&) {
        message("out of memory");
        return k_exit_trouble;
    } catch (const std::exception& e) {
        message(std::string("internal error: ") + e.what());
        return k_exit_trouble;
    }
    out_flush();
    if (unreported_changes()) {
        message("the file changed while it was read (another program truncated an input): what "
                "was read is not the file");
        return k_exit_trouble;
    }
    return exit_code;
}

int main(int argc, char** argv) {
    const int code = run(argc, argv);
    // Stopped while the work ended: the status of the stop, whichever thread gets here first.
    if (const int status = g_stop_status.load()) std::_Exit(status);
    return code;
}
