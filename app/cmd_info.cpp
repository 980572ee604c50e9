// `sparksave info [--json] PATH...` (sparksave-info(1)): a one-screen summary of a save, or of
// every save in a directory (slots, reserved slots, .bak companions, stale .tmp files;
// formats/README.md §1.7).
#include "commands.hpp"
#include "common.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace fs = std::filesystem;

namespace sparksave::app {

namespace {

struct InfoOptions {
    std::vector<std::string> paths;
    bool json = false;
};

// sparksave-info(1)'s "role": the role of a save's group, or what a companion is.
std::string_view role_name(const NamedFile& n) {
    switch (n.kind) {
    case NamedFile::Kind::backup:
        return "backup";
    case NamedFile::Kind::temp:
        return "temp";
    case NamedFile::Kind::save:
    case NamedFile::Kind::other:
        break;
    }
    return n.role;
}

bool companion(const NamedFile& n) {
    return n.kind == NamedFile::Kind::backup || n.kind == NamedFile::Kind::temp;
}

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

// Whether a file's name makes it a save of the directory (formats/README.md §1.7): a slot's
// save or its `.bak`, which the engine reads as a save whatever it holds.
bool named_as_save(const NamedFile& r) {
    return r.kind == NamedFile::Kind::save || r.kind == NamedFile::Kind::backup;
}

// Why a file named as a save is none, for people.
std::string unreadable_text(const FileInfo& fi) {
    return "not a readable save (" +
           (fi.empty ? std::string("an empty file") : std::string(fi.error.rule())) + ")";
}

std::string status_text(const FileInfo& fi) {
    if (!fi.format) {
        // A file named as a save that is none (empty, another magic): the engine cannot read it.
        if (fi.role && named_as_save(*fi.role)) return "INVALID: " + unreadable_text(fi);
        return fi.error.message;
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
        const NamedFile& n = *fi.role;
        p.string("role", role_name(n));
        p.bytes("slot", n.group);
        if (n.kind == NamedFile::Kind::save && n.role == "autosave")
            p.number("autosaveIndex", n.index);
    }
    if (!fi.format) {
        p.null("format");
        if (fi.role && named_as_save(*fi.role)) {
            // Named as a save of the directory (formats/README.md §1.7): the engine would try it.
            p.boolean("valid", false);
            p.boolean("engineLoads", false);
            p.string("engine", "cannot read it: " + unreadable_text(fi));
        }
        p.string("error", fi.error.message);
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

// A row's STATUS: its text, and its colour: a failure when the engine cannot use the file
// (invalid, unreadable, not addressable, a backup it cannot fall back to, an interrupted write, a
// slot with no save), a warning when the file is valid but the engine does not load it as it is
// (it needs migration), else ok.
struct Status {
    std::string text;
    Style style = Style::ok;
};

Status table_status(const FileInfo& fi) {
    const NamedFile& r = *fi.role;
    const bool valid = fi.format && !fi.summary.findings.has_errors();
    Status st{status_text(fi), !valid                     ? Style::fail
                               : !fi.summary.engine_loads ? Style::warning
                                                          : Style::ok};
    if (r.kind == NamedFile::Kind::backup && st.style == Style::warning) st.style = Style::fail;
    switch (r.kind) {
    case NamedFile::Kind::save:
        if (r.role == "autosave") {
            st.text += fmt::format(" (autosave {})", r.index);
        } else if (r.role != "slot") {
            st.text += fmt::format(" ({})", r.role);
        } else if (!r.valid_name) {
            st.text += " (not a valid slot name: the engine cannot address it)";
            st.style = Style::fail;
        }
        break;
    case NamedFile::Kind::backup:
        // formats/README.md §1.7: the engine falls back to the .bak with its own reader, which
        // refuses what it does not load (v1/v2: needs migration, 1.4).
        if (!fi.format)
            st.text = "backup: " + st.text + ": the engine cannot fall back to it";
        else if (fi.summary.findings.has_errors())
            st.text = "backup: INVALID, the engine cannot fall back to it";
        else if (!fi.summary.engine_loads)
            st.text = "backup: valid, but the engine cannot fall back to it (" +
                      fi.summary.engine_verdict + ")";
        else
            st.text = "backup: valid, the engine can fall back to it";
        break;
    case NamedFile::Kind::temp:
        st = {"stale temp file: a save was interrupted", Style::fail};
        break;
    case NamedFile::Kind::other:
        // A save of a format with a save directory, not named as one of its saves.
        if (fi.format && fi.format->directory)
            st.text += " (not named " + std::string(fi.format->directory->pattern) + ")";
        break;
    }
    return st;
}

// One directory's saves as a table (already in slot order).
std::string directory_table(const std::string& dir, const std::vector<FileInfo>& files,
                            bool color) {
    using Row = std::array<std::string, 6>;
    std::vector<std::pair<Row, Status>> rows;
    rows.push_back({{"SLOT", "FORMAT", "VER", "SAVE NAME", "TIME", "SIZE"}, {"STATUS"}});
    std::optional<std::string> primary; // the slot of the last primary row
    for (const auto& fi : files) {
        const NamedFile& r = *fi.role;
        if (!companion(r)) {
            primary = r.group;
        } else if (primary != r.group) {
            // A .bak or .tmp whose save is not there: its slot gets a row of its own, so it is
            // not read as a companion of the slot above it.
            rows.push_back(
                {{display(r.group)},
                 {"no " + display(r.save_file) + ": only the companions below", Style::fail}});
            primary = r.group;
        }
        Row row;
        row[0] = r.kind == NamedFile::Kind::backup ? "  .bak"
                 : r.kind == NamedFile::Kind::temp ? "  .tmp"
                                                   : display(r.group);
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
        rows.emplace_back(std::move(row), table_status(fi));
    }
    std::array<std::size_t, 6> widths{};
    for (const auto& [row, status] : rows)
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    std::string t = show_path(dir) + ":\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& [row, status] = rows[i];
        t += "  ";
        for (std::size_t c = 0; c < row.size(); ++c)
            t += fmt::format(fmt::runtime(c == 5 ? "{:>{}}  " : "{:<{}}  "), row[c], widths[c]);
        t += i > 0 ? paint(status.style, status.text, color) : status.text;
        t += '\n';
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
                    if (!fi.format && !temp && !named_as_save(role)) {
                        ++skipped;
                        continue;
                    }
                    if (!temp && (!fi.format || fi.summary.findings.has_errors()))
                        note(k_exit_finding);
                    fi.role = role;
                    files.push_back(std::move(fi));
                }
                if (files.empty()) continue;
                listed += files.size();
                for (const auto& fi : files) print_file(p, fi); // JSON: a record each
                p.text([&](std::string& text) {
                    text += directory_table(dir.path, files, p.color());
                });
            }
            if (!listed && list.stale_temps.empty())
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
            message(show_path(path), fi.error.message);
            note(fi.exit_code);
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
    cmd->footer("Exit status: 0 every save is valid, 1 a save is invalid or not a save, 2 bad "
                "usage or a path that cannot be read.");
    cmd->callback([o, &exit_code] { exit_code = run_info(*o); });
}

} // namespace sparksave::app
