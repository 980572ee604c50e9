// Shared plumbing of the subcommands.
#include "common.hpp"
#include "usage.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#ifdef _WIN32
#include <io.h>
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace fs = std::filesystem;

namespace sparksave::app {

GlobalOptions& globals() {
    static GlobalOptions options;
    return options;
}

void add_global_options(CLI::App& app) {
    std::vector<std::string> names;
    for (const auto& f : format_table()) names.emplace_back(f.name);
    one_of(app.add_option("--color", globals().color,
                          "Colour output: auto (on a terminal, unless NO_COLOR is set), always, "
                          "never"),
           {"auto", "always", "never"})
        ->default_str("auto");
    one_of(app.add_option("--input-format", globals().input_format,
                          "Read inputs as this format instead of detecting it from their "
                          "content: " +
                              format_names()),
           names);
}

CLI::Option* add_jobs_option(CLI::App& cmd, unsigned& jobs, const std::string& help) {
    return whole_number(
        cmd.add_option("-j,--jobs", jobs, help),
        fmt::format("a number of threads (0 = one per core, at most {})", k_max_jobs), 0,
        k_max_jobs, {}, fmt::format("0 (one per core) to {}", k_max_jobs));
}

void add_files_from(CLI::App& cmd, FilesFrom& from) {
    cmd.add_option("--files-from", from.list,
                   "Also the paths named in LIST, one a line (- reads them from standard input)")
        ->type_name("LIST");
    cmd.add_flag("-0,--null", from.null,
                 "The names of --files-from end with a NUL byte, not a line feed (git ls-files "
                 "-z, find -print0)");
}

std::optional<std::vector<std::string>> all_paths(std::string_view command,
                                                  const std::vector<std::string>& paths,
                                                  const FilesFrom& from, std::string_view missing) {
    if (from.null && from.list.empty()) usage_error("--null goes with --files-from LIST");
    if (from.list == "-" && std::find(paths.begin(), paths.end(), "-") != paths.end())
        usage_error("--files-from - reads the names from standard input, which - also names: "
                    "give one of them");
    std::vector<std::string> all = paths;
    if (!from.list.empty()) {
        auto names = read_name_list(from.list, from.null);
        if (!names) {
            message(show_path(from.list),
                    "cannot read the list of --files-from: " + names.error().message);
            return std::nullopt;
        }
        if (from.list == "-" && std::find(names->begin(), names->end(), "-") != names->end())
            usage_error("--files-from -: the list names - (standard input), which holds the "
                        "list");
        all.insert(all.end(), names->begin(), names->end());
    }
    if (all.empty() && from.list.empty())
        usage_error(
            missing.empty()
                ? fmt::format("missing PATH: {} takes PATH... (or --files-from LIST)", command)
                : std::string(missing));
    std::set<fs::path> seen;
    std::erase_if(all, [&](const std::string& p) {
        return !seen.insert(path_from_utf8(p).lexically_normal()).second;
    });
    return all;
}

const FormatInfo* forced_format() {
    if (globals().input_format.empty()) return nullptr;
    return format_by_name(globals().input_format);
}

namespace {

std::string& out_buffer() {
    static std::string buffer;
    return buffer;
}

constexpr std::size_t k_out_block = 1 << 20;

std::atomic<int> g_status{k_exit_ok};

// Standard output cannot take the rest: nobody can read it. sparksave(1) EXIT STATUS: a closed
// pipe ends the program quietly, with no temporary file left and no new work, and with the
// status the work so far earned (141, as SIGPIPE, when it earned 0); any other failure (a full
// disk) is said and is trouble.
[[noreturn]] void stdout_failed(bool closed_pipe, const std::string& reason) {
    if (!closed_pipe)
        std::fprintf(stderr, "sparksave: cannot write to standard output: %s\n", reason.c_str());
    abandon_writes();
    const int status = g_status.load();
    std::_Exit(!closed_pipe          ? std::max(status, k_exit_trouble)
               : status != k_exit_ok ? status
                                     : k_exit_closed_output);
}

#ifdef _WIN32
// A console takes text, not bytes: WriteFile would hand the UTF-8 bytes to the console's code
// page (the OEM one, 437 or 850: `セーブ` shown as `ã‚»ãƒ¼ãƒ–`), so a console gets the text as
// UTF-16 through WriteConsoleW (escape sequences included: colours, the progress line). A pipe
// or a file gets the bytes, exactly the POSIX build's. The output comes in blocks (out_flush);
// a character cut by a block's end waits in `pending` for the next block.
struct Console {
    HANDLE handle;
    std::string pending;
};

bool is_console(HANDLE h) {
    DWORD mode = 0;
    return h != INVALID_HANDLE_VALUE && h && ::GetConsoleMode(h, &mode);
}

// The length of `text` without an incomplete UTF-8 sequence at its end.
std::size_t complete_utf8(std::string_view text) {
    for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
        const auto c = static_cast<unsigned char>(text[text.size() - back]);
        if ((c & 0xC0) == 0x80) continue; // a continuation byte: look further back
        const std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? text.size() - back : text.size();
    }
    return text.size();
}

// False when the console refused the text (GetLastError says why).
bool write_console(Console& console, std::string_view text) {
    std::string joined;
    if (!console.pending.empty()) {
        joined = std::exchange(console.pending, {});
        joined.append(text);
        text = joined;
    }
    const std::size_t complete = complete_utf8(text);
    console.pending.assign(text.substr(complete));
    text = text.substr(0, complete);
    constexpr std::size_t k_block = 1 << 14; // bytes converted and written at once
    while (!text.empty()) {
        std::size_t n = complete_utf8(text.substr(0, k_block));
        if (n == 0) n = std::min(text.size(), k_block); // no UTF-8 there: converted to U+FFFD
        std::wstring wide(n, L'\0');
        const int units = ::MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(n),
                                                wide.data(), static_cast<int>(n));
        for (int done = 0; done < units;) {
            DWORD wrote = 0;
            if (!::WriteConsoleW(console.handle, wide.data() + done,
                                 static_cast<DWORD>(units - done), &wrote, nullptr))
                return false;
            done += static_cast<int>(wrote);
        }
        text.remove_prefix(n);
    }
    return true;
}

Console* console_of(DWORD which) {
    static Console out{::GetStdHandle(STD_OUTPUT_HANDLE), {}};
    static Console err{::GetStdHandle(STD_ERROR_HANDLE), {}};
    static const bool out_is_console = is_console(out.handle);
    static const bool err_is_console = is_console(err.handle);
    if (which == STD_OUTPUT_HANDLE) return out_is_console ? &out : nullptr;
    return err_is_console ? &err : nullptr;
}

// WriteFile on the handle itself: the bytes as they are (no CRT text mode), and a closed pipe
// known by its error (ERROR_NO_DATA, ERROR_BROKEN_PIPE), Windows' EPIPE.
void write_stdout(std::string_view text) {
    if (Console* console = console_of(STD_OUTPUT_HANDLE)) {
        if (!write_console(*console, text))
            stdout_failed(false, fmt::format("Windows error {}", ::GetLastError()));
        return;
    }
    HANDLE out = ::GetStdHandle(STD_OUTPUT_HANDLE);
    while (!text.empty()) {
        DWORD wrote = 0;
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(text.size(), 1u << 30));
        if (!::WriteFile(out, text.data(), chunk, &wrote, nullptr)) {
            const DWORD err = ::GetLastError();
            stdout_failed(err == ERROR_NO_DATA || err == ERROR_BROKEN_PIPE,
                          fmt::format("Windows error {}", err));
        }
        text.remove_prefix(wrote);
    }
}

bool is_terminal(int fd) {
    return _isatty(fd) != 0;
}

void write_stderr(std::string_view text) {
    if (Console* console = console_of(STD_ERROR_HANDLE)) {
        (void)write_console(*console, text); // nowhere left to say it failed
        return;
    }
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
}
#else
void write_stdout(std::string_view text) {
    while (!text.empty()) {
        ssize_t n = ::write(STDOUT_FILENO, text.data(), text.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            // EPIPE (SIGPIPE ignored) or a full disk.
            const int err = errno;
            stdout_failed(err == EPIPE, std::strerror(err));
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

bool is_terminal(int fd) {
    return ::isatty(fd) == 1;
}

void write_stderr(std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
}
#endif

constexpr int k_stdout_fd = 1, k_stderr_fd = 2;

// The terminal's width in columns, 80 when unknown.
std::size_t terminal_width() {
#ifdef _WIN32
    CONSOLE_SCREEN_BUFFER_INFO info{};
    if (::GetConsoleScreenBufferInfo(::GetStdHandle(STD_ERROR_HANDLE), &info) &&
        info.srWindow.Right >= info.srWindow.Left)
        return static_cast<std::size_t>(info.srWindow.Right - info.srWindow.Left + 1);
#else
    struct winsize ws {};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
#endif
    return 80;
}

bool want_color(int fd) {
    const std::string& mode = globals().color;
    if (mode == "always") return true;
    if (mode == "never") return false;
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color && *no_color) return false;
    if (!is_terminal(fd)) return false;
#ifdef _WIN32
    // A Windows console shows colours only with virtual terminal processing on (Windows 10 and
    // later): without it the escape sequences would be printed, so no colour.
    HANDLE h = ::GetStdHandle(fd == k_stderr_fd ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE);
    DWORD console_mode = 0;
    if (!::GetConsoleMode(h, &console_mode)) return false;
    return (console_mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
           ::SetConsoleMode(h, console_mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
#else
    return true;
#endif
}

} // namespace

void record_status(int exit_code) {
    int seen = g_status.load();
    while (exit_code > seen && !g_status.compare_exchange_weak(seen, exit_code)) {}
}

void out(std::string_view text) {
    std::string& b = out_buffer();
    if (b.empty() && text.size() >= k_out_block) { // a block of its own: not copied first
        write_stdout(text);
        return;
    }
    b.append(text);
    if (b.size() >= k_out_block) out_flush();
}

void out_flush() {
    std::string& b = out_buffer();
    write_stdout(b);
    b.clear();
}

bool color_stdout() {
    return want_color(k_stdout_fd);
}
bool color_stderr() {
    return want_color(k_stderr_fd);
}

std::unique_ptr<Printer> stdout_printer(bool json, Printer::JsonLayout layout) {
    if (json) return json_printer(out, layout);
    return text_printer(out, color_stdout());
}

void err(std::string_view text) {
    write_stderr(text);
}

void message(std::string_view path, std::string_view text) {
    out_flush(); // keep stdout and stderr in order on a shared terminal
    err(fmt::format("sparksave: {}: {}\n", path, text));
}

void message(std::string_view text) {
    out_flush();
    err(fmt::format("sparksave: {}\n", text));
}

std::string show_path(std::string_view path) {
    return display(path);
}

Loaded load_input(const std::string& path, bool walked) {
    Loaded result;
    auto opened = open_input(path, forced_format(), walked);
    if (!opened) {
        result.error = std::move(opened).error();
        const ErrorCode code = result.error.code;
        result.exit_code = code == ErrorCode::too_large || code == ErrorCode::unknown_format
                               ? k_exit_finding
                               : k_exit_trouble;
        return result;
    }
    result.input = std::move(*opened);
    return result;
}

Checked check_input(const std::string& path, bool walked) {
    Checked c;
    try {
        Loaded loaded = load_input(path, walked);
        if (!loaded.input) {
            c.skipped = skipped_in_walk(loaded, walked);
            c.error = std::move(loaded.error);
            c.exit_code = loaded.exit_code;
            return c;
        }
        c.summary = loaded.input->format->summarize(loaded.input->source->view());
        if (auto changed = changed_while_read(*loaded.input)) {
            c.summary = Summary{};
            c.error = *changed;
            c.exit_code = k_exit_trouble;
            return c;
        }
        c.format = loaded.input->format;
    } catch (const std::bad_alloc&) {
        // This file fails alone; the others go on.
        c = Checked{};
        c.error = make_error(ErrorCode::io_error, "out of memory");
        c.exit_code = k_exit_trouble;
    }
    return c;
}

bool unreported_changes() {
    return mapping_faults() > changes_reported();
}

bool skipped_in_walk(const Loaded& loaded, bool walked) {
    return walked && !loaded.input && loaded.error.code == ErrorCode::unknown_format;
}

FileList collect_files(const std::vector<std::string>& paths) {
    FileList list = collect_inputs(paths);
    for (const auto& p : list.problems) message(show_path(p.path), p.message);
    return list;
}

Progress::Progress(std::string_view verb, std::size_t total)
    : verb_(verb), total_(total), enabled_(total >= 20 && is_terminal(k_stderr_fd)) {}

Progress::~Progress() {
    clear();
}

void Progress::step(std::string_view path) {
    ++done_;
    if (!enabled_) return;
    if (done_ % 16 != 0 && done_ != total_) return;
    // The line fits the terminal (a longer one wraps, and \r then rewrites only its last row):
    // at most its width less one column (some terminals wrap on the last), 80 when unknown; the
    // path keeps its end (the file name). Columns are counted as code points (display() escapes
    // every control character).
    const std::size_t width = terminal_width();
    const std::size_t room = std::max<std::size_t>(width, 2) - 1;
    auto columns = [](std::string_view s) {
        return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    };
    // The byte offset after the first `n` code points of `s`.
    auto first_columns = [](std::string_view s, std::size_t n) {
        std::size_t i = 0;
        for (; i < s.size(); ++i)
            if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n-- == 0) break;
        return i;
    };
    std::string head = fmt::format("{} {}/{}", verb_, done_, total_);
    std::string shown = display(path);
    const std::size_t path_room =
        std::min<std::size_t>(50, room > columns(head) + 1 ? room - columns(head) - 1 : 0);
    if (columns(shown) > path_room) {
        const std::size_t keep = path_room > 3 ? path_room - 3 : 0;
        const std::size_t cols = columns(shown);
        shown = keep == 0 ? std::string() : "..." + shown.substr(first_columns(shown, cols - keep));
    }
    if (columns(head) > room) head.resize(first_columns(head, room));
    err(fmt::format("\r\x1b[K{}{}{}", head, shown.empty() ? "" : " ", shown));
    shown_ = true;
}

void Progress::clear() {
    if (!shown_) return;
    err("\r\x1b[K");
    shown_ = false;
}

void parallel_for_ordered(std::size_t count, unsigned jobs,
                          const std::function<void(std::size_t)>& work,
                          const std::function<void(std::size_t)>& done) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, count));
    std::atomic<std::size_t> next{0};
    std::vector<char> ready(jobs > 1 ? count : 0, 0); // 1 done, 2 failed (see error)
    std::exception_ptr error;
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<std::thread> threads;
    if (jobs > 1) {
        threads.reserve(jobs);
        // A worker that cannot start (no thread left: `ulimit -u`, no memory) means fewer
        // workers, not a failed run.
        for (unsigned t = 0; t < jobs; ++t) {
            try {
                threads.emplace_back([&] {
                    for (;;) {
                        std::size_t i = next.fetch_add(1);
                        if (i >= count) return;
                        char state = 1;
                        try {
                            work(i);
                        } catch (...) {
                            std::lock_guard lock(mutex);
                            if (!error) error = std::current_exception();
                            state = 2;
                        }
                        {
                            std::lock_guard lock(mutex);
                            ready[i] = state;
                        }
                        cv.notify_all();
                    }
                });
            } catch (const std::exception&) {
                break;
            }
        }
    }
    if (threads.empty()) {
        for (std::size_t i = 0; i < count; ++i) {
            work(i);
            done(i);
        }
        return;
    }
    // On the first failure (of a worker or of done), no new work starts; the workers finish the
    // file they hold and are joined before the failure goes on.
    auto stop_and_join = [&] {
        next.store(count);
        for (auto& t : threads) t.join();
    };
    try {
        for (std::size_t i = 0; i < count; ++i) {
            std::unique_lock lock(mutex);
            cv.wait(lock, [&] { return ready[i] != 0; });
            if (ready[i] == 2) {
                std::exception_ptr e = error;
                lock.unlock();
                stop_and_join();
                std::rethrow_exception(e);
            }
            lock.unlock();
            done(i);
        }
    } catch (...) {
        if (threads.front().joinable()) stop_and_join();
        throw;
    }
    stop_and_join();
}

} // namespace sparksave::app
