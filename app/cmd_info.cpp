// `sparksave info [--json] PATH...` (sparksave-info(1)): a one-screen summary of a save, or of
// every save in a directory (slots, reserved slots, .bak companions, stale .tmp files;
// formats/README.md §1.7).
#include "commands.hpp"
#include "common.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/version.hpp"

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

// What a file is in a save directory, from its name (formats/README.md §1.7).
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
    switch (spark_save::slot_file_kind(name)) { // formats/README.md §1.7, the one place of the rule
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
    r.valid_name = spark_save::is_valid_slot_name(stem); // formats/README.md §1.7
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
        const fs::path named = path_from_utf8(path);
        fi.empty = path != "-" && fs::is_regular_file(named, ec) && fs::file_size(named, ec) == 0;
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

constexpr std::string_view k_live_temp = "temporary file of a sparksave write in progress";

// A temporary file named on the command line: a dead write's, or one another run is writing.
void print_stale_temp(Printer& p, const std::string& path, bool in_use = false) {
    auto record = p.record();
    p.bytes("path", path);
    p.null("format");
    p.boolean("staleTemporary", !in_use);
    p.string("note", in_use ? k_live_temp : k_stale_temp);
    p.line([&](std::string& line) {
        line += in_use ? fmt::format("{}: {} (not a save; leave it)", show_path(path), k_live_temp)
                       : fmt::format("{}: {} (not a save; it can be removed)", show_path(path),
                                     k_stale_temp);
    });
}

const InfoField* field(const std::vector<InfoField>& fields, std::string_view key) {
    for (const auto& f : fields)
        if (f.key == key) return &f;
    return nullptr;
}

std::string integrity_text(const FileInfo& fi) {
    const Summary& s = fi.summary;
    switch (s.integrity) {
    case Integrity::verified:
        return fmt::format("checksum verified (crc32 {:#010x})", s.checksum.value_or(0));
    case Integrity::mismatch:
        return "CHECKSUM MISMATCH";
    case Integrity::none:
        return fmt::format("no checksum ({} v{} has none)", fi.format->name, s.version);
    case Integrity::unknown:
        break;
    }
    return std::string(integrity_name(s.integrity));
}

// Whether a file's name makes it a save of the directory (formats/README.md §1.7):
// `<slot>.spark_save` (reserved slots included) or its `.bak`, which the engine reads as a save
// whatever it holds.
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
    return s.engine_loads ? "ok" : "ok, " + s.engine_verdict;
}

void print_fields(Printer& p, std::string_view key, const std::vector<InfoField>& fields) {
    auto object = p.object(key);
    for (const auto& f : fields) {
        if (f.numeric)
            p.raw(f.key, f.text);
        else
            p.bytes(f.key, f.text);
    }
}

// A file's record: JSON, every fact of the summary; text, the one-screen summary of a file given
// on the command line (a file found in a directory is a row of its table: directory_table).
void print_file(Printer& p, const FileInfo& fi) {
    auto record = p.record();
    p.bytes("path", fi.path);
    if (fi.role) {
        p.string("role", role_name(fi.role->kind));
        p.bytes("slot", fi.role->slot);
        if (fi.role->kind == SlotRole::Kind::autosave) p.number("autosaveIndex", fi.role->autosave);
    }
    if (!fi.format) {
        p.null("format");
        if (fi.role && named_as_save(*fi.role)) {
            // Named as a save of the directory (formats/README.md §1.7): the engine would try it.
            p.boolean("valid", false);
            p.boolean("engineLoads", false);
            p.string("engine", "cannot read it: " + unreadable_text(fi));
        }
        p.string("error", fi.load_error.message);
        return;
    }
    const Summary& s = fi.summary;
    p.string("format", fi.format->name);
    p.number("version", s.version_known ? std::optional<std::uint64_t>(s.version) : std::nullopt);
    p.number("size", s.size);
    p.string("integrity", integrity_name(s.integrity));
    if (s.checksum) p.string("checksum", fmt::format("{:#010x}", *s.checksum));
    p.boolean("valid", !s.findings.has_errors());
    p.boolean("engineLoads", s.engine_loads);
    p.string("engine", s.engine_note);
    print_fields(p, "metadata", s.metadata);
    print_fields(p, "counts", s.counts);
    {
        auto types = p.array("commonTypes");
        for (const auto& [type, n] : s.common_types) {
            auto item = p.object();
            p.bytes("type", type);
            p.number("count", n);
        }
    }
    const bool text = !fi.role;
    if (text) {
        p.line(show_path(fi.path));
        auto indent = p.indent(2);
        auto row = [&](std::string_view label, std::string_view value) {
            p.line(fmt::format("{:<14}{}", std::string(label) + ":", value));
        };
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
    }
    auto findings = p.array("findings");
    auto indent = p.indent(2);
    for (const auto& f : s.findings.items()) print_finding(p, f, text);
    if (text && s.findings.dropped())
        p.line(fmt::format("... and {} more findings", s.findings.dropped()));
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
            // formats/README.md §1.7: the engine falls back to the .bak with its own reader, which
            // refuses what it does not load (v1/v2: needs migration, 1.4).
            if (!fi.format)
                status = "backup: " + status + ": the engine cannot fall back to it";
            else if (fi.summary.findings.has_errors())
                status = "backup: INVALID, the engine cannot fall back to it";
            else if (!fi.summary.engine_loads)
                status = "backup: valid, but the engine cannot fall back to it (" +
                         fi.summary.engine_verdict + ")";
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
    const auto printer = stdout_printer(o.json);
    Printer& p = *printer;
    int exit_code = k_exit_ok;
    auto note = [&](int code) { exit_code = std::max(exit_code, code); };
    for (const auto& path : o.paths) {
        std::error_code ec;
        if (path != "-" && fs::is_directory(path_from_utf8(path), ec)) {
            // Group the files by their directory.
            std::map<std::string, std::vector<FileInfo>> by_dir;
            // The walk every command shares (sparksave/input.hpp): its rules, and a directory
            // that cannot be read reported while the rest is still listed.
            FileList list = collect_files({path});
            if (!list.problems.empty()) note(k_exit_trouble);
            std::size_t skipped = 0;
            for (const auto& entry : list.files) {
                const std::string& file = entry.path;
                const fs::path named = path_from_utf8(file);
                SlotRole role = role_of(path_to_utf8(named.filename()));
                FileInfo fi = inspect(file, true);
                if (fi.load_exit == k_exit_trouble) {
                    message(show_path(file), fi.load_error.message);
                    note(k_exit_trouble);
                    continue;
                }
                // A stale .tmp is listed whatever it holds, and so is a file named as a save
                // (`<slot>.spark_save`, its .bak: formats/README.md §1.7) that is none: the engine
                // cannot read it. Other files only when they are saves.
                if (!fi.format && role.kind != SlotRole::Kind::temp && !named_as_save(role)) {
                    ++skipped;
                    continue;
                }
                if (role.kind != SlotRole::Kind::temp &&
                    (!fi.format || fi.summary.findings.has_errors()))
                    note(k_exit_finding);
                fi.role = role;
                by_dir[path_to_utf8(named.parent_path())].push_back(std::move(fi));
            }
            for (auto& [dir, files] : by_dir) order_slots(files);
            for (auto& [dir, files] : by_dir) {
                for (const auto& fi : files) print_file(p, fi); // JSON: a record each
                // Named captures: clang before 16 cannot capture a structured binding.
                p.text([&, &dir = dir, &files = files](std::string& text) {
                    text += directory_table(dir, files, p.color());
                });
            }
            if (by_dir.empty() && list.stale_temps.empty())
                p.line(fmt::format("{}: no saves", show_path(path)));
            for (const auto& temp : list.stale_temps) print_stale_temp(p, temp);
            if (skipped)
                p.line(fmt::format("({} other {} skipped: no known format)", skipped,
                                   skipped == 1 ? "file" : "files"));
            continue;
        }
        if (path != "-" && is_temporary_name(path_to_utf8(path_from_utf8(path).filename())) &&
            std::filesystem::exists(path_from_utf8(path), ec)) {
            print_stale_temp(p, path, temporary_in_use(path_from_utf8(path)));
            continue;
        }
        FileInfo fi = inspect(path);
        if (!fi.format) {
            message(show_path(path), fi.load_error.message);
            note(fi.load_exit);
            print_file(p, fi); // JSON only: text has the message
            continue;
        }
        if (fi.summary.findings.has_errors()) note(k_exit_finding);
        print_file(p, fi);
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
    cmd->add_option("PATH", o->paths, "Save files or save directories; - reads standard input")
        ->required();
    cmd->add_flag("--json", o->json, "One JSON object per file (JSON Lines)");
    cmd->footer("Exit status: 0 every save is valid, 1 a save is invalid or not a save, 2 a path "
                "cannot be read.");
    cmd->callback([o, &exit_code] { exit_code = run_info(*o); });
}

} // namespace sparksave::app
