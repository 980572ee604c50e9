// `sparksave git install|doctor|diff-driver|merge-driver` (sparksave-git(1)): saves in git. install
// configures the drivers (and with --attributes the .gitattributes lines), doctor checks them; the
// two drivers are what git runs: the structural diff of two blobs, the three-way merge.
#include "commands.hpp"
#include "common.hpp"
#include "git_setup.hpp"
#include "usage.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <memory>

namespace sparksave::app {

namespace {

struct GitCli {
    bool global = false;
    bool attributes = false;
    std::vector<std::string> args;
};

int refused_on_windows(std::string_view command) {
    message(fmt::format("git {}: this build does not run git on Windows: make the settings of "
                        "sparksave-git(1) with `git config` by hand",
                        command));
    return k_exit_trouble;
}

// The end of git's message on its standard error, for ours.
std::string git_said(const GitRun& r) {
    std::string s = r.started ? r.err : r.why;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s.empty() ? fmt::format("git exited with status {}", r.status) : display(s);
}

int run_install(const GitCli& o) {
    if (!k_git_supported) return refused_on_windows("install");
    const std::string scope = o.global ? "--global" : "--local";
    std::string top;
    if (!o.global || o.attributes) {
        auto found = git_toplevel();
        if (!found) {
            message(found.error().message);
            return k_exit_trouble;
        }
        top = *found;
    }
    for (const GitSetting& s : git_settings(driver_program())) {
        GitRun r = run_git({"config", scope, "--replace-all", s.name, s.value});
        if (!r.started || r.status != 0) {
            message(fmt::format("git config {} {}: {}", scope, s.name, git_said(r)));
            return k_exit_trouble;
        }
        out(fmt::format("set {} {} = {}\n", o.global ? "global" : "local", s.name,
                        display(s.value)));
    }
    if (o.attributes) {
        std::vector<std::string> lines;
        for (const AttributeLine& a : attribute_lines()) lines.push_back(a.line);
        const std::string file = top + "/.gitattributes";
        auto added = append_missing_lines(file, lines);
        if (!added) {
            message(show_path(file), added.error().message);
            return k_exit_trouble;
        }
        for (const std::string& line : *added)
            out(fmt::format("added to {}: {}\n", show_path(file), line));
        if (added->empty()) out(fmt::format("{} has every line already\n", show_path(file)));
    }
    out_flush();
    return k_exit_ok;
}

int run_doctor() {
    if (!k_git_supported) return refused_on_windows("doctor");
    auto top = git_toplevel();
    if (!top) {
        message(top.error().message);
        return k_exit_trouble;
    }
    std::size_t missing = 0;
    auto report = [&](bool ok, const std::string& what, const std::string& fix) {
        missing += !ok;
        out(fmt::format("{:<8} {}{}\n", ok ? "ok" : "missing", what, ok ? "" : " (" + fix + ")"));
    };
    for (const GitSetting& s : git_settings(driver_program())) {
        GitRun r = run_git({"config", "--get", s.name});
        if (!r.started) {
            message(git_said(r));
            return k_exit_trouble;
        }
        std::string value = r.out;
        while (!value.empty() && value.back() == '\n') value.pop_back();
        if (r.status != 0) {
            report(false, s.name + " is not set", "run `sparksave git install`");
            continue;
        }
        const bool ok = s.suffix.empty() || (value.size() >= s.suffix.size() &&
                                             value.compare(value.size() - s.suffix.size(),
                                                           s.suffix.size(), s.suffix) == 0);
        report(ok, s.name + " = " + display(value),
               "expected " + display(s.value) + ": run `sparksave git install`");
    }
    // The attributes git gives a file of each format's name, wherever they are set.
    std::vector<std::string> args{"-C", *top, "check-attr", "diff", "merge", "--"};
    for (const AttributeLine& a : attribute_lines())
        if (!a.probe.empty()) args.push_back(a.probe);
    GitRun r = run_git(args);
    if (!r.started || r.status != 0) {
        message("git check-attr: " + git_said(r));
        return k_exit_trouble;
    }
    for (const AttributeLine& a : attribute_lines()) {
        if (a.probe.empty()) continue;
        std::string diff = "unspecified", merge = "unspecified";
        for (std::size_t at = 0; at < r.out.size();) {
            const std::size_t end = std::min(r.out.find('\n', at), r.out.size());
            const std::string_view line = std::string_view(r.out).substr(at, end - at);
            at = end + 1;
            const std::string prefix = a.probe + ": ";
            if (!line.starts_with(prefix)) continue;
            std::string_view rest = line.substr(prefix.size());
            if (rest.starts_with("diff: ")) diff = rest.substr(6);
            if (rest.starts_with("merge: ")) merge = rest.substr(7);
        }
        const std::string pattern = a.line.substr(0, a.line.find(' '));
        report(diff == "sparksave" && merge == "sparksave",
               fmt::format("{} has diff={} merge={}", pattern, display(diff), display(merge)),
               "run `sparksave git install --attributes`");
    }
    out_flush();
    if (missing) {
        message(fmt::format("{} thing{} missing", missing, missing == 1 ? "" : "s"));
        return k_exit_finding;
    }
    return k_exit_ok;
}

// git's arguments to an external diff (git(1) GIT_EXTERNAL_DIFF): PATH OLD-FILE OLD-HEX OLD-MODE
// NEW-FILE NEW-HEX NEW-MODE, two more (the new path and the rename's description) for a rename,
// or PATH alone for an unmerged path.
int run_diff_driver(const std::vector<std::string>& a) {
    if (a.size() == 1) {
        out("* Unmerged path " + display(a[0]) + "\n");
        out_flush();
        return k_exit_ok;
    }
    if (a.size() != 7 && a.size() != 9)
        usage_error(fmt::format("expected git's 7 arguments (PATH OLD-FILE OLD-HEX OLD-MODE "
                                "NEW-FILE NEW-HEX NEW-MODE; 9 for a rename, 1 for an unmerged "
                                "path), found {}",
                                a.size()));
    const std::string& path = a[0];
    const std::string& new_path = a.size() == 9 ? a[7] : a[0];
    const std::string& old_file = a[1];
    const std::string& new_file = a[4];
    out(fmt::format("sparksave diff a/{} b/{}\n", display(path), display(new_path)));
    constexpr std::string_view k_null = "/dev/null";
    if (old_file == k_null && new_file == k_null) {
        out_flush();
        return k_exit_ok;
    }
    if (old_file == k_null || new_file == k_null) {
        // Added or removed: there is no other side to compare with.
        const bool added = old_file == k_null;
        const std::string& name = added ? new_path : path;
        Checked c = check_input(added ? new_file : old_file);
        if (!c.format) {
            message(show_path(name), c.error.message);
            return k_exit_trouble;
        }
        out(fmt::format("{} save: {} v{}\n", added ? "added" : "removed", c.format->name,
                        c.summary.version));
        out_flush();
        return k_exit_ok;
    }
    const int status = print_structural_diff(old_file, new_file, "a/" + path, "b/" + new_path);
    if (status == k_exit_ok) out("no structural difference\n");
    out_flush();
    return status == k_exit_trouble ? k_exit_trouble : k_exit_ok;
}

// git's %O %A %B %P (gitattributes(5) "Defining a custom merge driver"): BASE, OURS (replaced
// by the merge), THEIRS, and the path in the repository that messages name.
int run_merge_driver(const std::vector<std::string>& a) {
    if (a.size() != 3 && a.size() != 4)
        usage_error(fmt::format("expected git's %O %A %B %P (BASE OURS THEIRS PATH; PATH may be "
                                "left out), found {} arguments",
                                a.size()));
    return merge_files(a[0], a[1], a[2], "", a.size() == 4 ? a[3] : std::string());
}

} // namespace

void setup_git(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<GitCli>();
    CLI::App* git = app.add_subcommand("git", "Saves in git: the diff and merge drivers");
    git->require_subcommand(1);
    git->footer("Run `sparksave git COMMAND -h` for a command's options, `man sparksave-git` for "
                "more.");

    CLI::App* install = git->add_subcommand(
        "install", "Configure the textconv, external diff and merge drivers (and --attributes)");
    install->add_flag("--global", o->global,
                      "Configure them in the user's git configuration, not the repository's");
    install->add_flag("--attributes", o->attributes,
                      "Also append the missing lines of every format to the repository's "
                      ".gitattributes");
    install->footer("The drivers run this sparksave by its absolute path (or `sparksave`, found "
                    "on PATH, when the\n"
                    "system does not say where it is). Each setting made is printed.\n"
                    "Exit status: 0 configured, 2 bad usage, not in a git repository (without "
                    "--global), or git\n"
                    "failed or cannot be run.");
    install->callback([o, &exit_code] { exit_code = run_install(*o); });

    CLI::App* doctor = git->add_subcommand(
        "doctor", "Check the drivers' configuration and the attributes of the current repository");
    doctor->footer("Exit status: 0 everything is configured, 1 something is missing (each is "
                   "listed), 2 not in a\n"
                   "git repository, or git cannot be run.");
    doctor->callback([&exit_code] { exit_code = run_doctor(); });

    CLI::App* diff_driver = git->add_subcommand(
        "diff-driver", "git's external diff driver: the structural diff of two versions of a save");
    diff_driver
        ->add_option("ARGS", o->args,
                     "PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE, as git gives them "
                     "(/dev/null for an added or removed file)")
        ->required();
    diff_driver->footer("Exit status: 0 a difference was shown (git takes any other status as a "
                        "failure), 2 bad usage\n"
                        "(not git's arguments) or a file that cannot be read or parsed.");
    diff_driver->callback([o, &exit_code] { exit_code = run_diff_driver(o->args); });

    CLI::App* merge_driver = git->add_subcommand(
        "merge-driver", "git's merge driver: the three-way structural merge of `sparksave merge`");
    merge_driver
        ->add_option("ARGS", o->args,
                     "%O %A %B %P: BASE, OURS (replaced by the merge), THEIRS, the path")
        ->required();
    merge_driver->footer("Exit status: 0 merged, 1 conflicts (OURS is left as it was), 2 an input "
                         "that cannot be read or\n"
                         "parsed, saves of different formats or versions, or bad usage.");
    merge_driver->callback([o, &exit_code] { exit_code = run_merge_driver(o->args); });
}

} // namespace sparksave::app
