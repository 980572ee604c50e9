// `sparksave info [--json] PATH...` (CLI.md): a one-screen summary of a save, or of every save
// in a directory (slots, reserved slots, .bak companions, stale .tmp files; FORMATS.md 1.7).
#include "commands.hpp"
#include "common.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/spark_save.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace sparksave::app {

namespace {

struct InfoOptions {
    std::vector<std::string> paths;
    bool json = false;
};

// What a file is in a save directory, from its name (FORMATS.md 1.7).
struct SlotRole {
    enum class Kind { slot, quicksave, autosave, backup, temp, other };
    Kind kind = Kind::other;
    std::string slot;      // the slot name (for backup/temp: the slot it belongs to)
    unsigned autosave = 0; // N of __autosave_N
    bool valid_name = false;
};

SlotRole role_of(std::string_view name) {
    constexpr std::string_view ext = ".spark_save";
    SlotRole r;
    std::string_view stem = name;
    switch (spark_save::slot_file_kind(name)) { // FORMATS.md 1.7, the one place of the rule
    case spark_save::SlotFile::backup:
        r.kind = SlotRole::Kind::backup;
        stem.remove_suffix(4);
        break;
    case spark_save::SlotFile::temp:
        r.kind = SlotRole::Kind::temp;
        stem.remove_suffix(4);
        break;
    case spark_save::SlotFile::primary:
        r.kind = SlotRole::Kind::slot;
        break;
    case spark_save::SlotFile::other:
        r.slot = std::string(name);
        return r;
    }
    stem.remove_suffix(ext.size());
    r.slot = std::string(stem);
    r.valid_name = spark_save::is_valid_slot_name(stem); // FORMATS.md 1.7
    if (r.kind == SlotRole::Kind::slot) {
        int index = -1;
        switch (spark_save::slot_role(stem, &index)) { // 1.7: the reserved slots
        case spark_save::SlotRole::quicksave:
            r.kind = SlotRole::Kind::quicksave;
            break;
        case spark_save::SlotRole::autosave:
            r.kind = SlotRole::Kind::autosave;
            r.autosave = static_cast<unsigned>(index);
            break;
        case spark_save::SlotRole::user:
            break;
        }
    }
    return r;
}

std::string_view role_name(SlotRole::Kind k) {
    switch (k) {
    case SlotRole::Kind::slot:
        return "slot";
    case SlotRole::Kind::quicksave:
        return "quicksave";
    case SlotRole::Kind::autosave:
        return "autosave";
    case SlotRole::Kind::backup:
        return "backup";
    case SlotRole::Kind::temp:
        return "temp";
    case SlotRole::Kind::other:
        return "file";
    }
    return "file";
}

struct FileInfo {
    std::string path;
    const FormatInfo* format = nullptr;
    Summary summary;
    Error load_error;
    int load_exit = k_exit_ok;
    bool empty = false;           // the file has no bytes
    std::optional<SlotRole> role; // set when found in a directory
};

FileInfo inspect(const std::string& path, bool walked = false) {
    FileInfo fi;
    fi.path = path;
    Loaded loaded = load_input(path, walked);
    if (!loaded.input) {
        fi.load_error = loaded.error;
        fi.load_exit = loaded.exit_code;
        std::error_code ec;
        fi.empty = path != "-" && fs::is_regular_file(path, ec) && fs::file_size(path, ec) == 0;
        return fi;
    }
    fi.format = loaded.input->format;
    fi.summary = fi.format->summarize(loaded.input->source->view());
    if (auto changed = changed_while_read(*loaded.input)) {
        fi.format = nullptr;
        fi.load_error = *changed;
        fi.load_exit = k_exit_trouble;
    }
    return fi;
}

// A temporary file left by an interrupted sparksave write (kill -9, a power cut) is never read
// as a save: it is named for what it is.
constexpr std::string_view k_stale_temp = "stale temporary file of an interrupted sparksave write";

std::string stale_temp_line(const std::string& path, bool json) {
    if (!json)
        return fmt::format("{}: {} (not a save; it can be removed)\n", show_path(path),
                           k_stale_temp);
    std::string line = "{\"path\": ";
    append_json_bytes(line, path);
    line += ", \"format\": null, \"staleTemporary\": true, \"note\": ";
    append_json_string(line, k_stale_temp);
    return line + "}\n";
}

const InfoField* field(const std::vector<InfoField>& fields, std::string_view key) {
    for (const auto& f : fields)
        if (f.key == key) return &f;
    return nullptr;
}

std::string integrity_text(const FileInfo& fi) {
    const Summary& s = fi.summary;
    if (s.integrity == "verified")
        return fmt::format("checksum verified (crc32 {:#010x})", s.checksum.value_or(0));
    if (s.integrity == "mismatch") return "CHECKSUM MISMATCH";
    if (s.integrity == "none")
        return fmt::format("no checksum ({} v{} has none)", fi.format->name, s.version);
    return s.integrity;
}

// Whether a file's name makes it a save of the directory (FORMATS.md 1.7): `<slot>.spark_save`
// (reserved slots included) or its `.bak`, which the engine reads as a save whatever it holds.
bool named_as_save(const SlotRole& r) {
    return r.kind != SlotRole::Kind::other && r.kind != SlotRole::Kind::temp;
}

// Why a file named as a save is none, for people.
std::string unreadable_text(const FileInfo& fi) {
    const std::string& m = fi.load_error.message;
    return "not a readable save (" +
           (fi.empty ? std::string("an empty file") : m.substr(0, m.find(" ("))) + ")";
}

std::string status_text(const FileInfo& fi) {
    if (!fi.format) {
        // A file named as a save that is none (empty, another magic): the engine cannot read it.
        if (fi.role && named_as_save(*fi.role)) return "INVALID: " + unreadable_text(fi);
        return fi.load_error.message;
    }
    const Summary& s = fi.summary;
    if (s.findings.has_errors()) {
        const Error* e = s.findings.first_error();
        return "INVALID: " + std::string(code_name(e->code));
    }
    return s.engine_loads ? "ok" : "ok, " + std::string(engine_verdict(s));
}

void append_fields_json(std::string& line, std::string_view key,
                        const std::vector<InfoField>& fields) {
    line += fmt::format(", \"{}\": {{", key);
    bool first = true;
    for (const auto& f : fields) {
        if (!first) line += ", ";
        first = false;
        append_json_string(line, f.key);
        line += ": ";
        if (f.numeric)
            line += f.text;
        else
            append_json_bytes(line, f.text);
    }
    line += '}';
}

std::string json_line(const FileInfo& fi) {
    std::string line = "{\"path\": ";
    append_json_bytes(line, fi.path);
    if (fi.role) {
        line += ", \"role\": ";
        append_json_string(line, role_name(fi.role->kind));
        line += ", \"slot\": ";
        append_json_bytes(line, fi.role->slot);
        if (fi.role->kind == SlotRole::Kind::autosave)
            line += fmt::format(", \"autosaveIndex\": {}", fi.role->autosave);
    }
    if (!fi.format) {
        line += ", \"format\": null";
        if (fi.role && named_as_save(*fi.role)) {
            // Named as a save of the directory (FORMATS.md 1.7): the engine would try it.
            line += ", \"valid\": false, \"engineLoads\": false, \"engine\": ";
            append_json_string(line, "cannot read it: " + unreadable_text(fi));
        }
        line += ", \"error\": ";
        append_json_string(line, fi.load_error.message);
        line += "}\n";
        return line;
    }
    const Summary& s = fi.summary;
    line += ", \"format\": ";
    append_json_string(line, fi.format->name);
    line += ", \"version\": ";
    line += s.version_known ? std::to_string(s.version) : "null";
    line += fmt::format(", \"size\": {}, \"integrity\": \"{}\"", s.size, s.integrity);
    if (s.checksum) line += fmt::format(", \"checksum\": \"{:#010x}\"", *s.checksum);
    line +=
        fmt::format(", \"valid\": {}, \"engineLoads\": {}, \"engine\": ",
                    s.findings.has_errors() ? "false" : "true", s.engine_loads ? "true" : "false");
    append_json_string(line, s.engine_note);
    append_fields_json(line, "metadata", s.metadata);
    append_fields_json(line, "counts", s.counts);
    line += ", \"commonTypes\": [";
    for (std::size_t i = 0; i < s.common_types.size(); ++i) {
        if (i) line += ", ";
        line += "{\"type\": ";
        append_json_bytes(line, s.common_types[i].first);
        line += fmt::format(", \"count\": {}}}", s.common_types[i].second);
    }
    line += "], \"findings\": [";
    bool first = true;
    for (const auto& f : s.findings.items()) {
        if (!first) line += ", ";
        first = false;
        line += "{\"severity\": ";
        append_json_string(line, severity_name(f.severity));
        line += ", \"code\": ";
        append_json_string(line, code_name(f.code));
        line += ", \"message\": ";
        append_json_string(line, f.message);
        line += fmt::format(", \"offset\": {}", f.has_offset() ? std::to_string(f.offset) : "null");
        if (f.line != 0)
            line += fmt::format(", \"line\": {}, \"column\": {}", f.line, f.column); // text formats
        line += ", \"path\": ";
        append_json_string(line, f.path);
        line += '}';
    }
    line += "]}\n";
    return line;
}

std::string file_text(const FileInfo& fi, bool color) {
    std::string t = show_path(fi.path) + "\n";
    auto row = [&](std::string_view label, std::string_view value) {
        t += fmt::format("  {:<14}{}\n", std::string(label) + ":", value);
    };
    const Summary& s = fi.summary;
    row("format", s.version_known ? fmt::format("{} v{}", fi.format->name, s.version)
                                  : std::string(fi.format->name));
    row("size", fmt::format("{} bytes", s.size));
    row("integrity", integrity_text(fi));
    row("engine", s.engine_note);
    for (const auto& f : s.metadata)
        if (!f.label.empty()) row(f.label, display(f.text));
    for (const auto& f : s.counts) row(f.label, f.text);
    if (!s.common_types.empty()) {
        std::string types;
        for (const auto& [type, n] : s.common_types) {
            if (!types.empty()) types += ", ";
            types += fmt::format("{} ({})", display(type), n);
        }
        row("common types", types);
    }
    for (const auto& f : s.findings.items()) t += "  " + describe_finding(f, color) + "\n";
    if (s.findings.dropped())
        t += fmt::format("  ... and {} more findings\n", s.findings.dropped());
    return t;
}

// Slot order: user slots, __quicksave, autosaves in rotation order, then other files; each
// slot followed by its .bak and .tmp companions.
void order_slots(std::vector<FileInfo>& files) {
    auto order_key = [](const FileInfo& fi) {
        const SlotRole& r = *fi.role;
        int group = r.kind == SlotRole::Kind::quicksave  ? 1
                    : r.kind == SlotRole::Kind::autosave ? 2
                    : r.kind == SlotRole::Kind::other    ? 3
                                                         : 0;
        int companion = r.kind == SlotRole::Kind::backup ? 1
                        : r.kind == SlotRole::Kind::temp ? 2
                                                         : 0;
        if (r.kind == SlotRole::Kind::backup || r.kind == SlotRole::Kind::temp) {
            SlotRole primary = role_of(r.slot + ".spark_save");
            group = primary.kind == SlotRole::Kind::quicksave  ? 1
                    : primary.kind == SlotRole::Kind::autosave ? 2
                                                               : 0;
            return std::tuple(group, primary.autosave, r.slot, companion);
        }
        return std::tuple(group, r.autosave, r.slot, companion);
    };
    std::stable_sort(files.begin(), files.end(), [&](const FileInfo& a, const FileInfo& b) {
        return order_key(a) < order_key(b);
    });
}

// One directory's saves as a table (already in slot order).
std::string directory_table(const std::string& dir, const std::vector<FileInfo>& files,
                            bool color) {

    std::vector<std::array<std::string, 7>> rows;
    rows.push_back({"SLOT", "FORMAT", "VER", "SAVE NAME", "TIME", "SIZE", "STATUS"});
    std::optional<std::string> primary; // the slot of the last primary row
    for (const auto& fi : files) {
        const SlotRole& r = *fi.role;
        const bool companion = r.kind == SlotRole::Kind::backup || r.kind == SlotRole::Kind::temp;
        if (!companion) {
            primary = r.slot;
        } else if (primary != r.slot) {
            // A .bak or .tmp whose save is not there: its slot gets a row of its own, so it is
            // not read as a companion of the slot above it.
            rows.push_back({display(r.slot), "", "", "", "", "",
                            "no " + display(r.slot) + ".spark_save: only the companions below"});
            primary = r.slot;
        }
        std::array<std::string, 7> row;
        switch (r.kind) {
        case SlotRole::Kind::backup:
            row[0] = "  .bak";
            break;
        case SlotRole::Kind::temp:
            row[0] = "  .tmp";
            break;
        default:
            row[0] = display(r.slot);
        }
        if (fi.format) {
            row[1] = fi.format->name;
            row[2] = fi.summary.version_known ? std::to_string(fi.summary.version) : "?";
            if (auto f = field(fi.summary.metadata, "saveName")) {
                row[3] = display(f->text);
                if (row[3].size() > 32) row[3] = row[3].substr(0, 29) + "...";
            }
            if (auto f = field(fi.summary.metadata, "timestamp")) row[4] = f->text;
            row[5] = std::to_string(fi.summary.size);
        }
        std::string status = status_text(fi);
        switch (r.kind) {
        case SlotRole::Kind::quicksave:
            status += " (quicksave)";
            break;
        case SlotRole::Kind::autosave:
            status += fmt::format(" (autosave {})", r.autosave);
            break;
        case SlotRole::Kind::backup:
            // FORMATS.md 1.7: the engine falls back to the .bak with its own reader, which
            // refuses what it does not load (v1/v2: needs migration, 1.4).
            if (!fi.format)
                status = "backup: " + status + ": the engine cannot fall back to it";
            else if (fi.summary.findings.has_errors())
                status = "backup: INVALID, the engine cannot fall back to it";
            else if (!fi.summary.engine_loads)
                status = "backup: valid, but the engine cannot fall back to it (" +
                         std::string(engine_verdict(fi.summary)) + ")";
            else
                status = "backup: valid, the engine can fall back to it";
            break;
        case SlotRole::Kind::temp:
            status = "stale temp file: a save was interrupted";
            break;
        case SlotRole::Kind::slot:
            if (!r.valid_name) status += " (not a valid slot name: the engine cannot address it)";
            break;
        case SlotRole::Kind::other:
            status += " (not named <slot>.spark_save)";
            break;
        }
        row[6] = status;
        rows.push_back(std::move(row));
    }
    std::array<std::size_t, 7> width{};
    for (const auto& row : rows)
        for (std::size_t c = 0; c < 6; ++c) width[c] = std::max(width[c], row[c].size());
    std::string t = show_path(dir) + ":\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        std::string line = "  ";
        for (std::size_t c = 0; c < 6; ++c)
            line += fmt::format(fmt::runtime(c == 5 ? "{:>{}}  " : "{:<{}}  "), row[c], width[c]);
        std::string status = row[6];
        if (i > 0 && color) {
            bool bad = status.find("INVALID") != std::string::npos || status.starts_with("stale") ||
                       status.find("cannot") != std::string::npos || status.starts_with("no ");
            status = paint(bad ? Style::fail : Style::ok, status, true);
        }
        t += line + status + "\n";
    }
    return t;
}

int run_info(const InfoOptions& o) {
    const bool color = color_stdout() && !o.json;
    int exit_code = k_exit_ok;
    auto note = [&](int code) { exit_code = std::max(exit_code, code); };
    for (const auto& path : o.paths) {
        std::error_code ec;
        if (path != "-" && fs::is_directory(path, ec)) {
            // Group the files by their directory.
            std::map<std::string, std::vector<FileInfo>> by_dir;
            // The walk every command shares (sparksave/input.hpp): its rules, and a directory
            // that cannot be read reported while the rest is still listed.
            FileList list = collect_files({path});
            if (!list.problems.empty()) note(k_exit_trouble);
            std::size_t skipped = 0;
            for (const auto& entry : list.files) {
                const std::string& file = entry.path;
                SlotRole role = role_of(fs::path(file).filename().string());
                FileInfo fi = inspect(file, true);
                if (fi.load_exit == k_exit_trouble) {
                    message(show_path(file), fi.load_error.message);
                    note(k_exit_trouble);
                    continue;
                }
                // A stale .tmp is listed whatever it holds, and so is a file named as a save
                // (`<slot>.spark_save`, its .bak: FORMATS.md 1.7) that is none: the engine
                // cannot read it. Other files only when they are saves.
                if (!fi.format && role.kind != SlotRole::Kind::temp && !named_as_save(role)) {
                    ++skipped;
                    continue;
                }
                if (role.kind != SlotRole::Kind::temp &&
                    (!fi.format || fi.summary.findings.has_errors()))
                    note(k_exit_finding);
                fi.role = role;
                by_dir[fs::path(file).parent_path().string()].push_back(std::move(fi));
            }
            for (auto& [dir, files] : by_dir) order_slots(files);
            if (o.json) {
                for (auto& [dir, files] : by_dir)
                    for (const auto& fi : files) out(json_line(fi));
                for (const auto& temp : list.stale_temps) out(stale_temp_line(temp, true));
            } else {
                for (auto& [dir, files] : by_dir) out(directory_table(dir, files, color));
                if (by_dir.empty() && list.stale_temps.empty())
                    out(fmt::format("{}: no saves\n", show_path(path)));
                for (const auto& temp : list.stale_temps) out(stale_temp_line(temp, false));
                if (skipped)
                    out(fmt::format("({} other {} skipped: no known format)\n", skipped,
                                    skipped == 1 ? "file" : "files"));
            }
            continue;
        }
        if (path != "-" && is_temporary_name(fs::path(path).filename().string())) {
            out(stale_temp_line(path, o.json));
            continue;
        }
        FileInfo fi = inspect(path);
        if (!fi.format) {
            message(show_path(path), fi.load_error.message);
            note(fi.load_exit);
            if (o.json) out(json_line(fi));
            continue;
        }
        if (fi.summary.findings.has_errors()) note(k_exit_finding);
        out(o.json ? json_line(fi) : file_text(fi, color));
    }
    out_flush();
    return exit_code;
}

} // namespace

void setup_info(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<InfoOptions>();
    CLI::App* cmd = app.add_subcommand(
        "info", "A one-screen summary of a save, or of every save in a directory");
    cmd->add_option("PATH", o->paths, "Save files or save directories; - reads standard input")
        ->required();
    cmd->add_flag("--json", o->json, "One JSON object per file (JSON Lines)");
    cmd->footer("Exit status: 0 every save is valid, 1 a save is invalid or not a save, 2 a path "
                "cannot be read.");
    cmd->callback([o, &exit_code] { exit_code = run_info(*o); });
}

} // namespace sparksave::app
