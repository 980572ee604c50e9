// `sparksave verify [--json] [--quiet] [--strict] [--jobs N] PATH...` (sparksave-verify(1)): is
// this save intact, and will the engine load it?
#include "commands.hpp"
#include "common.hpp"
#include "records.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

namespace sparksave::app {

namespace {

struct VerifyOptions {
    std::vector<std::string> paths;
    FilesFrom from;
    bool json = false;
    bool quiet = false;
    bool strict = false;
    unsigned jobs = 0;
};

struct FileResult {
    std::string path;
    const FormatInfo* format = nullptr;
    Summary summary;
    bool ok = false;
    bool unreadable = false;
    bool skipped = false; // found in a walk, of no known format
    FileList::Role role = FileList::Role::save;
    Error load_error;
};

VerifyRecord record(const FileResult& r, const VerifyOptions& o) {
    return {r.path,       r.format, &r.summary, &r.load_error, r.ok,
            r.unreadable, r.role,   o.quiet,    o.strict};
}

int run_verify(const VerifyOptions& o) {
    const auto paths = all_paths("verify", o.paths, o.from);
    if (!paths) return k_exit_trouble;
    FileList list = collect_files(*paths);
    std::vector<FileResult> results(list.files.size());
    const auto printer = stdout_printer(o.json);
    std::size_t ok = 0, failed = 0, skipped = 0, unreadable = list.problems.size();
    Progress progress("verifying", list.files.size());
    parallel_for_ordered(
        list.files.size(), o.jobs,
        [&](std::size_t i) {
            FileResult& r = results[i];
            r.path = list.files[i].path;
            r.role = list.files[i].role;
            const bool walked = list.files[i].from_directory;
            Checked c = check_input(r.path, walked);
            r.skipped = c.skipped;
            r.unreadable = c.exit_code == k_exit_trouble;
            r.load_error = std::move(c.error);
            r.format = c.format;
            r.summary = std::move(c.summary);
            r.ok = r.format && !r.summary.findings.has_errors() &&
                   !(o.strict && r.summary.findings.warning_count() > 0);
        },
        [&](std::size_t i) {
            FileResult& r = results[i];
            progress.step(r.path);
            if (r.skipped) {
                ++skipped;
            } else if (r.unreadable) {
                ++unreadable;
                record_status(k_exit_trouble);
                progress.clear();
                message(show_path(r.path), r.load_error.message);
                print(*printer, record(r, o)); // JSON only: text has the message
            } else {
                (r.ok ? ok : failed)++;
                if (!r.ok) record_status(k_exit_finding);
                progress.clear();
                print(*printer, record(r, o));
            }
            r = FileResult{}; // release the summary once printed
        });
    progress.clear();
    const std::size_t shown = list.files.size() - skipped;
    const std::size_t total = shown + list.problems.size();
    const std::size_t stale = list.stale_temps.size();
    if (total > 1 || skipped > 0 || stale > 0 || o.paths.size() > 1) {
        std::string line =
            fmt::format("{} {}: {} OK, {} FAIL", shown, shown == 1 ? "file" : "files", ok, failed);
        if (unreadable) line += fmt::format(", {} unreadable", unreadable);
        if (skipped) line += fmt::format(", {} skipped (no known format)", skipped);
        if (stale)
            line += fmt::format(", {} skipped (stale temporary {} of an interrupted sparksave "
                                "write)",
                                stale, stale == 1 ? "file" : "files");
        printer->line(line); // text only: JSON Lines has no summary
    }
    printer->finish();
    out_flush();
    if (unreadable) return k_exit_trouble;
    return failed ? k_exit_finding : k_exit_ok;
}

} // namespace

void setup_verify(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<VerifyOptions>();
    CLI::App* cmd = app.add_subcommand("verify", "Check every rule of each file's format and "
                                                 "version: is it intact, will the engine load it?");
    cmd->add_option("PATH", o->paths,
                    "Save files or directories (walked recursively); - reads standard input");
    add_files_from(*cmd, o->from);
    cmd->add_flag(
        "--json", o->json,
        "One JSON object per file (JSON Lines): path, format, version, ok, checksum, findings");
    cmd->add_flag("-q,--quiet", o->quiet, "Print failing files only");
    cmd->add_flag("--strict", o->strict, "Warnings fail a file too");
    add_jobs_option(*cmd, o->jobs, "Files checked in parallel (default: one per core)");
    cmd->footer("Exit status: 0 every file is OK, 1 a file is not, 2 bad usage or a path that "
                "cannot be read.");
    cmd->callback([o, &exit_code] { exit_code = run_verify(*o); });
}

} // namespace sparksave::app
