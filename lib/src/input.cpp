// Opening inputs once and walking directories.
#include "sparksave/input.hpp"

#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE

Result<Input> open_input(const std::string& path, const FormatInfo* forced, bool walked) {
    const FormatInfo* format = forced;
    auto opened = read_input(
        path_from_utf8(path), k_detect_bytes, [&](std::string_view head) -> Result<std::uint64_t> {
            if (!format) format = detect_format(head, walked);
            if (!format) {
                // The rule, then the formats known (for a table row, the rule alone: rule()).
                constexpr std::string_view rule = "not a save file of any known format";
                Error e = make_error(ErrorCode::unknown_format,
                                     std::string(rule) + " (" + format_names() + ")");
                e.rule_end = static_cast<std::uint32_t>(rule.size());
                return e;
            }
            return format->max_file_size;
        });
    if (!opened) return std::move(opened).error();
    return Input{path, std::move(opened->source), format, opened->identity};
}

namespace {
std::atomic<std::size_t> g_changes_reported{0};
}

std::optional<Error> changed_while_read(const Input& input) {
    if (!input.source->changed()) return std::nullopt;
    g_changes_reported.fetch_add(1);
    return make_error(ErrorCode::io_error,
                      "the file changed while it was read (another program truncated it): what "
                      "was read is not the file");
}

std::size_t changes_reported() noexcept {
    return g_changes_reported.load();
}

namespace {

// The engine's companions of a save, by the directory model of the format that names them
// (format.hpp named_file).
InputList::Role role_of(std::string_view name) {
    switch (named_file(name).kind) {
    case NamedFile::Kind::backup:
        return InputList::Role::engine_backup;
    case NamedFile::Kind::temp:
        return InputList::Role::engine_temp;
    default:
        return InputList::Role::save;
    }
}

// One directory of a walk: its entries sorted, each regular file (or link to one) taken as the
// walk's rules say, each subdirectory (not a link to one) walked after. The directory is read
// whole and closed before its subdirectories are opened: one descriptor at a time.
void walk_directory(const fs::path& dir, const std::string& root, InputList& list) {
    std::vector<std::pair<std::string, bool>> entries; // name, is a directory
    {
        std::error_code ec;
        fs::directory_iterator it(dir, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            std::error_code sec;
            const fs::file_status link = it->symlink_status(sec);
            if (sec) continue;
            if (fs::is_directory(link)) {
                entries.emplace_back(path_to_utf8(it->path().filename()), true);
                continue;
            }
            // A link is followed to what it names: a regular file is taken, a directory not.
            const fs::file_status st = fs::is_symlink(link) ? it->status(sec) : link;
            if (!sec && fs::is_regular_file(st))
                entries.emplace_back(path_to_utf8(it->path().filename()), false);
        }
        // What was read before an error is still walked.
        if (ec)
            list.problems.push_back(
                {path_to_utf8(dir, true), "cannot read the directory: " + ec.message()});
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& [name, is_dir] : entries) {
        const fs::path p = dir / path_from_utf8(name);
        if (is_dir) {
            walk_directory(p, root, list);
        } else if (is_temporary_name(name)) {
            // Another run's write in progress is no leftover: only a dead write's file is listed.
            if (!temporary_in_use(p)) list.stale_temps.push_back(path_to_utf8(p, true));
        } else if (!is_backup_name(name)) { // sparksave's own backup: never a save to process
            list.files.push_back({path_to_utf8(p, true), true, root, role_of(name)});
        }
    }
}

} // namespace

InputList collect_inputs(const std::vector<std::string>& paths) {
    InputList list;
    for (const auto& path : paths) {
        std::error_code ec;
        const fs::path named = path_from_utf8(path);
        if (path == "-" || !fs::is_directory(named, ec))
            list.files.push_back({path, false, path, role_of(path_to_utf8(named.filename()))});
        else
            walk_directory(named, path, list);
    }
    std::set<fs::path> seen;
    std::erase_if(list.files, [&](const InputList::Entry& e) {
        return !seen.insert(path_from_utf8(e.path).lexically_normal()).second;
    });
    return list;
}

Result<std::vector<std::string>> read_name_list(const std::string& list, bool null_separated) {
    auto source = read_file(path_from_utf8(list), k_max_name_list);
    if (!source) return std::move(source).error();
    std::vector<std::string> names;
    const std::string_view text = (*source)->view();
    const char separator = null_separated ? '\0' : '\n';
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find(separator, at);
        if (end == std::string_view::npos) end = text.size();
        if (end > at) names.emplace_back(text.substr(at, end - at));
        at = end + 1;
    }
    return names;
}

std::vector<DirectoryFiles> by_directory(const InputList& list) {
    std::map<std::string, std::vector<std::pair<const InputList::Entry*, NamedFile>>> dirs;
    for (const auto& entry : list.files) {
        const fs::path p = path_from_utf8(entry.path);
        dirs[path_to_utf8(p.parent_path())].emplace_back(&entry,
                                                         named_file(path_to_utf8(p.filename())));
    }
    std::vector<DirectoryFiles> out;
    for (auto& [path, files] : dirs) {
        std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
            return listed_before(a.second, b.second);
        });
        out.push_back({path, std::move(files)});
    }
    return out;
}

SPARKSAVE_END_NAMESPACE
