// The engine's save slots on disk (formats/README.md §1.7): list_slots, write_slot, load_slot of
// sparksave/save_file.hpp, on the engine-facing reader (SaveView, read_metadata: save_file.cpp),
// the slot-file names (slot_names.cpp) and the atomic write (file_io.hpp).
#include "rules.hpp"
#include "spec.hpp"

#include "api.hpp"
#include "io_errors.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/output.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <map>
#include <optional>
#include <system_error>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// --- Slots (formats/README.md §1.7)
// ---------------------------------------------------------------

namespace {

constexpr std::string_view k_primary_suffix = ".spark_save";

fs::path slot_path(const fs::path& dir, std::string_view slot, std::string_view extra = {}) {
    std::string name(slot);
    name += k_primary_suffix;
    name += extra;
    return dir / name;
}

Error bad_slot_name(std::string_view slot) {
    return make_error(ErrorCode::bad_usage,
                      fmt::format("expected a slot name of 1 to 64 characters A-Z a-z 0-9 _ -, "
                                  "found {}",
                                  display(slot, true)));
}

// What one of a slot's files is to load_slot (formats/README.md §1.7, with §1.4-1.6).
struct Revision {
    enum class Kind {
        loads,       // the engine loads it: as it is (v3, v4), or after upgrade() (v1, v2)
        newer_build, // a save of a newer build (a version above 4 that is no damaged v4)
        refused,     // anything else: missing, unreadable, damaged, or refused by the rules
    };
    Kind kind = Kind::refused;
    std::string bytes; // when it loads
    Error error;       // when it does not
    std::uint32_t version = 0;
};

// The version a refused file declares when it is a newer build's save, else 0. formats/README.md
// §1.5: a version above 4 whose trailer verifies as v4 is corruption (the reader's
// damaged_version), one whose trailer does not is a newer format (unsupported_version); the
// engine draws the same line (SaveFileCodec.cpp, IsNewerFormatSaveBytes). Version 0 is no
// build's.
std::uint32_t newer_build_version(std::string_view bytes, const Error& refusal) {
    if (refusal.code != ErrorCode::unsupported_version || bytes.size() < 8) return 0;
    const std::uint32_t version = load_u32(bytes, 4);
    return version > k_current_version ? version : 0;
}

Error newer_build_error(const fs::path& path, std::uint32_t version, std::string_view then) {
    return make_error(ErrorCode::unsupported_version,
                      fmt::format("{}: expected a save of version 1 to {}, found version {}, "
                                  "a newer build's save: {}",
                                  display(path_to_utf8(path), true), k_current_version, version,
                                  then),
                      4, "version");
}

// Reads the whole file at `path` and says whether it loads (formats/README.md §1.4-1.6: every
// rule of its version, the v4 CRC-32 and the damaged-version test included): check_save, the
// reader's verdict without building views. `verdict_only` (list_slots): the bytes are not kept,
// and a v4 file whose CRC-32 fails is refused at once, without the reader's diagnosis (which
// reads the structure to tell a mismatch from bytes after a valid trailer).
Revision examine(const fs::path& path, bool verdict_only = false) {
    Revision r;
    auto source = read_file(path, k_max_file_size);
    if (!source) {
        r.error = with_path(std::move(source).error(), path);
        return r;
    }
    const std::string_view bytes = (*source)->view();
    std::optional<std::uint32_t> crc;
    if (verdict_only && bytes.size() >= 12 && bytes.starts_with(k_magic) &&
        load_u32(bytes, 4) == k_current_version) {
        crc = whole_crc(bytes);
        if (*crc != load_u32(bytes, bytes.size() - 4)) {
            r.error = make_error(ErrorCode::checksum_mismatch, "the CRC-32 does not match",
                                 bytes.size() - 4, "checksum");
            return r;
        }
    }
    // 1.4: a v1/v2 save is read by its own version's rules; the engine loads it once migrated
    // (1.6), which upgrade() does in memory. Its caller upgrade()s the bytes load_slot returns.
    auto version = check_save(bytes, crc);
    if (!version) {
        r.error = std::move(version).error();
        if ((r.version = newer_build_version(bytes, r.error)) != 0)
            r.kind = Revision::Kind::newer_build;
        return r;
    }
    r.version = *version;
    if (r.version < k_oldest_loadable) {
        auto upgraded = upgrade(as_save_bytes(bytes));
        if (!upgraded) {
            r.error = std::move(upgraded).error();
            return r;
        }
    }
    r.kind = Revision::Kind::loads;
    if (!verdict_only) r.bytes = std::string(bytes);
    return r;
}

} // namespace

Result<std::vector<SlotInfo>> list_slots(const fs::path& dir) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return io_error_at(dir, "cannot list the save directory", ec.value());
    struct Files {
        bool primary = false, backup = false, temp = false;
    };
    std::map<std::string, Files> slots;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        // 1.7, the directory model `info DIR` and the walk use too (slot_names.cpp).
        const NamedFile named = name_in_directory(path_to_utf8(it->path().filename()));
        if (named.kind == NamedFile::Kind::other || !named.valid_name) continue;
        Files& f = slots[named.group];
        f.primary |= named.kind == NamedFile::Kind::save;
        f.backup |= named.kind == NamedFile::Kind::backup;
        f.temp |= named.kind == NamedFile::Kind::temp;
    }
    if (ec) return io_error_at(dir, "cannot list the save directory", ec.value());
    std::vector<SlotInfo> out;
    out.reserve(slots.size());
    for (auto& [slot, files] : slots) {
        SlotInfo info;
        info.slot = slot;
        info.role = slot_role(slot, &info.autosave_index);
        info.path = slot_path(dir, slot);
        // The header and the metadata block of each file only (read_metadata): no CRC-32, no
        // entities; load_slot checks the whole file.
        info.metadata = files.primary
                            ? read_metadata(info.path)
                            : Result<Metadata>(io_error_at(info.path, "cannot open", ENOENT));
        if (!info.metadata && info.metadata.error().code == ErrorCode::unsupported_version) {
            // 1.5: a version above 4 is a newer build's save or a damaged v4 one; only the
            // whole file's CRC-32 tells which (such files are rare: the cost is theirs).
            Revision primary = examine(info.path, true);
            if (primary.kind == Revision::Kind::newer_build)
                info.metadata = newer_build_error(
                    info.path, primary.version,
                    "whose metadata this build does not read: load it with that build "
                    "(load_slot refuses it and does not use the backup instead)");
            else if (primary.kind == Revision::Kind::refused)
                info.metadata = std::move(primary.error);
        }
        info.has_backup = files.backup;
        // The backup as load_slot checks it (the whole file: the CRC-32 first, then the
        // structure), so a menu offers no fallback that load_slot would refuse.
        info.backup_loads = files.backup && examine(slot_path(dir, slot, ".bak"), true).kind ==
                                                Revision::Kind::loads;
        info.stale_tmp = files.temp;
        out.push_back(std::move(info));
    }
    return out;
}

Result<void> write_slot(const fs::path& dir, std::string_view slot, std::string_view bytes) {
    if (!is_valid_slot_name(slot)) return bad_slot_name(slot);
    auto view = SaveView::parse(as_save_bytes(bytes));
    if (!view) return std::move(view).error();
    if (view->metadata().version != k_current_version)
        return make_error(ErrorCode::needs_migration,
                          fmt::format("expected a v{} save (the version the engine writes), found "
                                      "v{}: upgrade() it first",
                                      k_current_version, view->metadata().version),
                          4, "version");
    const fs::path primary = slot_path(dir, slot);
    const fs::path backup = slot_path(dir, slot, ".bak");
    // The current primary, read before any file is touched: a newer build's save is not
    // replaced (the player's progress in it would be lost; the engine refuses too); one that
    // loads becomes the backup; any other is corruption, replaced and not kept.
    std::optional<Revision> current;
    std::error_code ec;
    if (fs::is_regular_file(primary, ec)) {
        current = examine(primary);
        if (current->kind == Revision::Kind::newer_build)
            return newer_build_error(
                primary, current->version,
                fmt::format("not overwritten (nor kept as the backup {}): load it with that "
                            "build, or delete it to discard it",
                            display(path_to_utf8(backup.filename()), true)));
    }
    // The write model (output.hpp): the engine's own temporary name, and the current primary,
    // when it loads, kept as the backup just before the new one is renamed into place (between
    // the temporary file's fsync and its rename); any other is not a good revision, and the
    // backup there stays.
    OutputOptions options;
    options.destination = {Destination::Mode::in_place, primary};
    options.temporary = slot_path(dir, slot, ".tmp");
    if (current && current->kind == Revision::Kind::loads)
        options.backup = Backup{backup, Backup::Policy::replace, current->bytes, {}, false};
    auto written = Output::write(options, bytes);
    if (!written) return std::move(written).failure().error;
    return {};
}

Result<std::string> load_slot(const fs::path& dir, std::string_view slot, bool* used_backup) {
    if (used_backup) *used_backup = false;
    if (!is_valid_slot_name(slot)) return bad_slot_name(slot);
    const fs::path backup_path = slot_path(dir, slot, ".bak");
    Revision primary = examine(slot_path(dir, slot));
    if (primary.kind == Revision::Kind::loads) return std::move(primary.bytes);
    if (primary.kind == Revision::Kind::newer_build)
        return newer_build_error(
            slot_path(dir, slot), primary.version,
            fmt::format("not loaded: load it with that build; the backup {} is an older "
                        "revision and is not loaded instead (a save over it would lose the "
                        "newer one)",
                        display(path_to_utf8(backup_path.filename()), true)));
    Revision backup = examine(backup_path);
    if (backup.kind == Revision::Kind::loads) {
        if (used_backup) *used_backup = true;
        return std::move(backup.bytes);
    }
    Error e = std::move(primary.error);
    e.message += fmt::format(
        " (and the backup {}: {})", display(path_to_utf8(backup_path.filename()), true),
        backup.error.code == ErrorCode::io_error ? backup.error.message : backup.error.describe());
    return e;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
