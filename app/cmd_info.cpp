// `sparksave info [--json] PATH...` (sparksave-info(1)): a one-screen summary of a save, or of
// every save in a directory (slots, reserved slots, .bak companions, stale .tmp files;
// formats/README.md §1.7).
#include "commands.hpp"
#include "common.hpp"
#include "records.hpp"

#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace sparksave::app {

namespace {

struct InfoOptions {
    std::vector<std::string> paths;
    FilesFrom from;
    bool json = false;
};

// A file's summary (common.hpp Checked), with what info adds.
struct FileInfo : Checked {
    std::string path;
    bool empty = false;            // not read: the file has no bytes
    std::optional<NamedFile> role; // found in a directory: what its name makes it (named_file)
};

FileInfo inspect(const std::string& path, bool walked = false) {
    FileInfo fi{check_input(path, walked), path, false, std::nullopt};
    if (!fi.format && fi.exit_code != k_exit_trouble) {
        std::error_code ec;
        const fs::path named = path_from_utf8(path);
        fi.empty = path != "-" && fs::is_regular_file(named, ec) && fs::file_size(named, ec) == 0;
    }
    return fi;
}

// A file's record (records.hpp).
InfoRecord record(const FileInfo& fi) {
    InfoRecord r{fi.path, fi.format, &fi.summary, &fi.error, fi.empty, nullptr};
    if (fi.role) r.role = &*fi.role;
    return r;
}

int run_info(const InfoOptions& o) {
    const auto paths = all_paths("info", o.paths, o.from);
    if (!paths) return k_exit_trouble;
    const auto printer = stdout_printer(o.json);
    Printer& p = *printer;
    int exit_code = k_exit_ok;
    auto note = [&](int code) { exit_code = std::max(exit_code, code); };
    for (const auto& path : *paths) {
        std::error_code ec;
        if (path != "-" && fs::is_directory(path_from_utf8(path), ec)) {
            // The walk every command shares (sparksave/input.hpp): its rules, and a directory
            // that cannot be read reported while the rest is still listed.
            FileList list = collect_files({path});
            if (!list.problems.empty()) note(k_exit_trouble);
            std::size_t skipped = 0, listed = 0;
            for (const auto& dir : by_directory(list)) {
                std::vector<FileInfo> files;
                for (const auto& [entry, role] : dir.files) {
                    FileInfo fi = inspect(entry->path, true);
                    if (fi.exit_code == k_exit_trouble) {
                        message(show_path(entry->path), fi.error.message);
                        note(k_exit_trouble);
                        continue;
                    }
                    // A stale .tmp is listed whatever it holds, and so is a file named as a save
                    // (`<slot>.spark_save`, its .bak: formats/README.md §1.7) that is none: the
                    // engine cannot read it. Other files only when they are saves.
                    const bool temp = role.kind == NamedFile::Kind::temp;
                    fi.role = role;
                    if (!fi.format && !temp && !record(fi).named_as_save()) {
                        ++skipped;
                        continue;
                    }
                    if (!temp && (!fi.format || fi.summary.findings.has_errors()))
                        note(k_exit_finding);
                    files.push_back(std::move(fi));
                }
                if (files.empty()) continue;
                listed += files.size();
                std::vector<InfoRecord> records;
                for (const auto& fi : files) records.push_back(record(fi));
                for (const auto& r : records) print(p, r); // JSON: a record each
                print_directory(p, dir.path, records);
            }
            if (!listed && list.stale_temps.empty())
                p.line(fmt::format("{}: no saves", show_path(path)));
            for (const auto& temp : list.stale_temps) print(p, TempRecord{temp});
            if (skipped)
                p.line(fmt::format("({} other {} skipped: no known format)", skipped,
                                   skipped == 1 ? "file" : "files"));
            continue;
        }
        if (path != "-" && is_temporary_name(path_to_utf8(path_from_utf8(path).filename())) &&
            std::filesystem::exists(path_from_utf8(path), ec)) {
            print(p, TempRecord{path, temporary_in_use(path_from_utf8(path))});
            continue;
        }
        FileInfo fi = inspect(path);
        if (!fi.format) {
            message(show_path(path), fi.error.message);
            note(fi.exit_code);
            print(p, record(fi)); // JSON only: text has the message
            continue;
        }
        if (fi.summary.findings.has_errors()) note(k_exit_finding);
        print(p, record(fi));
    }
    p.finish();
    out_flush();
    return exit_code;
}

} // namespace

void setup_info(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<InfoOptions>();
    CLI::App* cmd = app.add_subcommand(
        "info", "A one-screen summary of a save, or of every save in a directory");
    cmd->add_option("PATH", o->paths, "Save files or save directories; - reads standard input");
    add_files_from(*cmd, o->from);
    cmd->add_flag("--json", o->json, "One JSON object per file (JSON Lines)");
    cmd->footer("Exit status: 0 every save is valid, 1 a save is invalid or not a save, 2 bad "
                "usage or a path that cannot be read.");
    cmd->callback([o, &exit_code] { exit_code = run_info(*o); });
}

} // namespace sparksave::app
