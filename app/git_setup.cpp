// The git settings and attributes of sparksave's drivers, and running git (git_setup.hpp).
#include "git_setup.hpp"

#include "sparksave/file_io.hpp"

#include <filesystem>
#include <system_error>

#ifndef _WIN32
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;
#endif

namespace fs = std::filesystem;

namespace sparksave::app {

namespace {

// A word the shell git runs the drivers with takes as it is, quoted when it must be.
std::string shell_word(std::string_view word) {
    const bool plain =
        !word.empty() &&
        word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
                               "klmnopqrstuvwxyz0123456789/._-+:@") == std::string_view::npos;
    if (plain) return std::string(word);
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

std::vector<GitSetting> git_settings(std::string_view program) {
    const std::string p = shell_word(program);
    return {
        {"diff.sparksave.textconv", p + " dump", " dump"},
        {"diff.sparksave.cachetextconv", "true", "true"},
        {"diff.sparksave.command", p + " git diff-driver", " git diff-driver"},
        {"merge.sparksave.name", "sparksave structural merge of saves", ""},
        {"merge.sparksave.driver", p + " git merge-driver %O %A %B %P",
         " git merge-driver %O %A %B %P"},
    };
}

std::string driver_program() {
#ifdef __linux__
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && self.is_absolute()) return path_to_utf8(self);
#endif
    return "sparksave";
}

const std::vector<AttributeLine>& attribute_lines() {
    static const std::vector<AttributeLine> lines = {
        {"*.spark_save diff=sparksave merge=sparksave", "probe.spark_save"},
        {"*.sz diff=sparksave merge=sparksave", "probe.sz"},
        {"*.tessw diff=sparksave merge=sparksave", "probe.tessw"},
        {"*.gmsv diff=sparksave merge=sparksave", "probe.gmsv"},
        {"# spark-kv stores have no usual name: name yours, e.g. profile.kv diff=sparksave "
         "merge=sparksave",
         ""},
    };
    return lines;
}

#ifdef _WIN32

GitRun run_git(const std::vector<std::string>&) {
    GitRun r;
    r.why = "this build does not start programs on Windows";
    return r;
}

#else

GitRun run_git(const std::vector<std::string>& args) {
    GitRun r;
    int out_pipe[2], err_pipe[2];
    if (::pipe(out_pipe) != 0) {
        r.why = std::strerror(errno);
        return r;
    }
    if (::pipe(err_pipe) != 0) {
        r.why = std::strerror(errno);
        ::close(out_pipe[0]);
        ::close(out_pipe[1]);
        return r;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    // git gets the signals this program blocks (main.cpp: a stop is taken by one thread) and
    // SIGPIPE as the default, as a program started from a shell has them.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGXFSZ);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<std::string> argv_text{"git"};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, "git", &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (spawned != 0) {
        r.why = std::string("cannot run git: ") + std::strerror(spawned);
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        return r;
    }
    r.started = true;
    // Both outputs at once, so that neither pipe fills while the other is read.
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = 2;
    char buf[4096];
    while (open_fds > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) ::close(f.fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r.status == 127 && r.out.empty()) r.why = "cannot run git (is it installed?)";
    return r;
}

#endif // _WIN32

Result<std::string> git_toplevel() {
    GitRun r = run_git({"rev-parse", "--show-toplevel"});
    if (!r.started || (r.status == 127 && !r.why.empty()))
        return make_error(ErrorCode::io_error, r.why);
    if (r.status != 0) {
        std::string why = r.err;
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return make_error(ErrorCode::bad_usage,
                          why.empty() ? std::string("not in a git repository") : why);
    }
    std::string top = r.out;
    while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
    return top;
}

namespace {

std::string_view trimmed(std::string_view line) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
        line.remove_suffix(1);
    return line;
}

// A .gitattributes larger than this is not one people write: refused rather than read.
constexpr std::uint64_t k_max_attributes = 16u << 20;

} // namespace

Result<std::vector<std::string>> append_missing_lines(const std::string& file,
                                                      const std::vector<std::string>& lines) {
    const fs::path path = path_from_utf8(file);
    std::string text;
    std::error_code ec;
    if (fs::exists(path, ec)) {
        auto read = read_file(path, k_max_attributes);
        if (!read) return read.error();
        text = std::string((*read)->view());
    }
    std::vector<std::string_view> have;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        have.push_back(trimmed(std::string_view(text).substr(at, end - at)));
        at = end + 1;
    }
    std::vector<std::string> added;
    std::string more;
    for (const std::string& line : lines) {
        bool present = false;
        for (std::string_view h : have) present = present || h == trimmed(line);
        for (const std::string& a : added) present = present || a == line;
        if (present) continue;
        added.push_back(line);
        more += line + "\n";
    }
    if (added.empty()) return added;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += more;
    if (auto w = write_file_atomic(path, text); !w) return w.error();
    return added;
}

} // namespace sparksave::app
