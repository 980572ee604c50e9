// The engine's save slots on disk (formats/README.md §1.7): list_slots, write_slot, load_slot of
// sparksave/save_file.hpp, on the engine-facing reader (SaveView, read_metadata: save_file.cpp),
// the slot-file names (slot_names.cpp) and the atomic write (file_io.hpp).
#include "spec.hpp"

#include "api.hpp"
#include "io_errors.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <map>
#include <system_error>

namespace fs = std::filesystem;

namespace sparksave::inline SPARKSAVE_ABI::spark_save {

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

// The file's bytes when the engine loads them (SaveView::parse, Accept::engine).
Result<std::string> loadable(const fs::path& path) {
    auto source = read_file(path, k_max_file_size);
    if (!source) return with_path(std::move(source).error(), path);
    const std::string_view bytes = (*source)->view();
    auto view = SaveView::parse(as_save_bytes(bytes));
    if (!view) return std::move(view).error();
    return std::string(bytes);
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
        const std::string name = it->path().filename().string();
        std::string_view stem = name;
        const SlotFile kind = slot_file_kind(name); // 1.7, the one place of the rule
        if (kind == SlotFile::other) continue;
        if (kind != SlotFile::primary) stem.remove_suffix(4); // ".bak", ".tmp"
        stem.remove_suffix(k_primary_suffix.size());
        if (!is_valid_slot_name(stem)) continue;
        Files& f = slots[std::string(stem)];
        f.primary |= kind == SlotFile::primary;
        f.backup |= kind == SlotFile::backup;
        f.temp |= kind == SlotFile::temp;
    }
    if (ec) return io_error_at(dir, "cannot list the save directory", ec.value());
    std::vector<SlotInfo> out;
    out.reserve(slots.size());
    for (auto& [slot, files] : slots) {
        SlotInfo info;
        info.slot = slot;
        info.role = slot_role(slot, &info.autosave_index);
        info.path = slot_path(dir, slot);
        info.metadata = files.primary
                            ? read_metadata(info.path)
                            : Result<Metadata>(io_error_at(info.path, "cannot open", ENOENT));
        info.has_backup = files.backup;
        info.backup_loads = files.backup && loadable(slot_path(dir, slot, ".bak")).has_value();
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
    AtomicWriteOptions options;
    options.temporary = slot_path(dir, slot, ".tmp");
    // Between the temporary file's fsync and its rename (AtomicFile calls verify there): the
    // current primary, when it loads, becomes the backup.
    options.verify = [&](std::string_view) -> Result<void> {
        std::error_code ec;
        if (!fs::is_regular_file(primary, ec)) return {};
        auto current = loadable(primary);
        if (!current) return {}; // not a good revision: the backup there stays
        if (auto r = write_file_atomic(backup, *current); !r)
            return with_path(std::move(r).error(), backup);
        return {};
    };
    auto file = AtomicFile::create(primary, options);
    if (!file) return with_path(std::move(file).error(), primary);
    if (auto r = (*file)->write(bytes); !r) return with_path(std::move(r).error(), primary);
    auto committed = (*file)->commit();
    if (!committed) return with_path(std::move(committed).error(), primary);
    return {};
}

Result<std::string> load_slot(const fs::path& dir, std::string_view slot, bool* used_backup) {
    if (used_backup) *used_backup = false;
    if (!is_valid_slot_name(slot)) return bad_slot_name(slot);
    auto primary = loadable(slot_path(dir, slot));
    if (primary) return primary;
    auto backup = loadable(slot_path(dir, slot, ".bak"));
    if (backup) {
        if (used_backup) *used_backup = true;
        return backup;
    }
    Error e = std::move(primary).error();
    e.message += fmt::format(
        " (and the backup {}: {})", display(slot_path(dir, slot, ".bak").filename().string(), true),
        backup.error().code == ErrorCode::io_error ? backup.error().message
                                                   : backup.error().describe());
    return e;
}

} // namespace sparksave::spark_save
