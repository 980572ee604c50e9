// The engine-shaped save system (save_system.hpp) on the installed library's save_file.hpp.
#include "save_system.hpp"

#include <algorithm>
#include <chrono>
#include <system_error>

namespace engine {

namespace fs = std::filesystem;
using sparksave::ErrorCode;
using sparksave::make_error;

namespace {

World to_world(const ss::SaveView& view) {
    World world;
    world.entities.reserve(view.entities().size());
    for (const ss::Entity& e : view.entities()) {
        SavedEntity& out = world.entities.emplace_back();
        out.name = e.name;
        for (const ss::Component& c : e.components) {
            SavedComponent& comp = out.components.emplace_back();
            comp.type = c.type;
            for (const ss::Property& p : c.properties)
                comp.properties.emplace_back(std::string(p.key), std::string(p.value));
        }
    }
    for (const ss::Property& p : view.custom_state())
        world.custom_state.emplace_back(std::string(p.key), std::string(p.value));
    return world;
}

Result<void> bad_slot(std::string_view slot) {
    return make_error(ErrorCode::bad_usage, "expected a slot name of 1 to 64 characters "
                                            "A-Z a-z 0-9 _ -, found \"" +
                                                std::string(slot) + "\"");
}

} // namespace

SaveSystem::SaveSystem(fs::path directory, int max_autosaves,
                       std::optional<sparksave::RuleSet> content_rules)
    : dir_(std::move(directory)), max_autosaves_(std::max(1, max_autosaves)),
      rules_(std::move(content_rules)) {
    // Where the rotation goes on: the first missing autosave, else the oldest.
    auto slots = ss::list_slots(dir_);
    if (!slots) return; // no directory yet: start at 0
    std::vector<bool> present(static_cast<std::size_t>(max_autosaves_), false);
    std::uint64_t oldest = UINT64_MAX;
    int oldest_index = 0;
    for (const ss::SlotInfo& s : *slots) {
        if (s.role != ss::SlotRole::autosave || s.autosave_index >= max_autosaves_) continue;
        present[static_cast<std::size_t>(s.autosave_index)] = true;
        const std::uint64_t t = s.metadata ? s.metadata->timestamp : 0;
        if (t < oldest || (t == oldest && s.autosave_index < oldest_index)) {
            oldest = t;
            oldest_index = s.autosave_index;
        }
    }
    const auto missing = std::find(present.begin(), present.end(), false);
    next_autosave_ =
        missing != present.end() ? static_cast<int>(missing - present.begin()) : oldest_index;
}

fs::path SaveSystem::file(std::string_view slot, std::string_view suffix) const {
    return dir_ / (std::string(slot) + ".spark_save" + std::string(suffix));
}

Result<void> SaveSystem::Save(std::string_view slot, const World& world,
                              const ss::Metadata& metadata) {
    if (!ss::is_valid_slot_name(slot)) return bad_slot(slot);
    ss::Metadata meta = metadata;
    if (meta.timestamp == 0)
        meta.timestamp =
            static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count());
    ss::SaveWriter writer(meta);
    for (const SavedEntity& e : world.entities) {
        writer.entity(e.name);
        for (const SavedComponent& c : e.components) {
            writer.component(c.type);
            for (const auto& [key, value] : c.properties) writer.property(key, value);
        }
    }
    for (const auto& [key, value] : world.custom_state) writer.custom(key, value);
    auto bytes = writer.finish();
    if (!bytes) return std::move(bytes).error();
    // write_slot refuses to replace a newer build's save (unsupported_version), as the engine.
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)
        return make_error(ErrorCode::io_error,
                          dir_.string() + ": cannot create the save directory: " + ec.message());
    return ss::write_slot(dir_, slot, *bytes);
}

Result<void> SaveSystem::Load(std::string_view slot, World& world, LoadInfo* info) const {
    LoadInfo local;
    LoadInfo& done = info ? *info : local;
    done = LoadInfo{};
    if (!ss::is_valid_slot_name(slot)) return bad_slot(slot);
    // The primary, or its backup when the primary does not load; a newer build's save is
    // refused, its older backup not used instead (load_slot).
    auto bytes = ss::load_slot(dir_, slot, &done.used_backup);
    if (!bytes) return std::move(bytes).error();
    auto head = ss::read_metadata(ss::as_save_bytes(*bytes));
    if (!head) return std::move(head).error(); // load_slot checked it: not reached
    done.file_version = head->version;
    // The game's content rules: the format upgrade to v4 and the rules in one call, the result
    // read back and checked by the library; a save no rule applies to comes back as it was.
    if (rules_) {
        auto applied = rules_->apply(ss::as_save_bytes(*bytes));
        if (!applied) return std::move(applied).error();
        done.upgrade_notes = std::move(applied->migration_notes);
        done.rules_run = std::move(applied->rules_run);
        *bytes = std::move(applied->bytes);
    }
    // A save older than the engine loads (formats/README.md §1.4: v1, v2) comes back as it is:
    // upgraded here, in memory (the file on disk stays as it is until the next Save).
    if (!rules_ && head->version < ss::k_oldest_loadable) {
        auto upgraded = ss::upgrade(ss::as_save_bytes(*bytes), &done.upgrade_notes);
        if (!upgraded) return std::move(upgraded).error(); // load_slot checked it: not reached
        *bytes = std::move(*upgraded);
    }
    auto view = ss::SaveView::parse(ss::as_save_bytes(*bytes));
    if (!view) return std::move(view).error(); // load_slot checked it: not reached
    world = to_world(*view);
    return {};
}

Result<void> SaveSystem::QuickSave(const World& world, ss::Metadata metadata) {
    if (metadata.save_name.empty()) metadata.save_name = "Quick Save";
    return Save("__quicksave", world, metadata);
}

Result<void> SaveSystem::QuickLoad(World& world, LoadInfo* info) const {
    return Load("__quicksave", world, info);
}

Result<void> SaveSystem::AutoSave(const World& world, const ss::Metadata& metadata) {
    const int index = next_autosave_;
    next_autosave_ = (next_autosave_ + 1) % max_autosaves_;
    return Save("__autosave_" + std::to_string(index), world, metadata);
}

Result<std::vector<SlotEntry>> SaveSystem::GetSaveSlots() const {
    std::error_code ec;
    if (!fs::exists(dir_, ec)) return std::vector<SlotEntry>{}; // nothing saved yet
    auto slots = ss::list_slots(dir_);
    if (!slots) return std::move(slots).error();
    std::vector<SlotEntry> out;
    for (ss::SlotInfo& s : *slots) {
        SlotEntry entry{s.slot, s.role, s.autosave_index, {}, false};
        if (s.metadata) {
            entry.metadata = std::move(*s.metadata);
        } else if (s.metadata.error().code == ErrorCode::unsupported_version) {
            continue; // a newer build's save: Load() refuses it, and does not use its backup
        } else if (s.backup_loads) {
            auto backup = ss::read_metadata(file(s.slot, ".bak"));
            if (!backup) continue;
            entry.metadata = std::move(*backup);
            entry.from_backup = true;
        } else {
            continue; // nothing Load() could load
        }
        out.push_back(std::move(entry));
    }
    std::sort(out.begin(), out.end(), [](const SlotEntry& a, const SlotEntry& b) {
        if (a.metadata.timestamp != b.metadata.timestamp)
            return a.metadata.timestamp > b.metadata.timestamp;
        return a.slot < b.slot;
    });
    return out;
}

Result<ss::Metadata> SaveSystem::GetSaveMetadata(std::string_view slot) const {
    if (!ss::is_valid_slot_name(slot)) return bad_slot(slot).error();
    auto primary = ss::read_metadata(file(slot));
    // A version this build does not read (a newer build's save, or a damaged v4 one): not the
    // backup's metadata, since Load() does not use the backup of a newer build's save.
    if (primary || primary.error().code == ErrorCode::unsupported_version) return primary;
    auto backup = ss::read_metadata(file(slot, ".bak"));
    return backup ? backup : primary;
}

Result<void> SaveSystem::DeleteSave(std::string_view slot) {
    if (!ss::is_valid_slot_name(slot)) return bad_slot(slot);
    for (const char* suffix : {"", ".bak", ".tmp"}) {
        std::error_code ec;
        fs::remove(file(slot, suffix), ec); // false, no error: it was not there
        if (ec)
            return make_error(ErrorCode::io_error,
                              file(slot, suffix).string() + ": cannot delete: " + ec.message());
    }
    return {};
}

bool SaveSystem::SaveExists(std::string_view slot) const {
    if (!ss::is_valid_slot_name(slot)) return false;
    std::error_code ec;
    return fs::exists(file(slot), ec) || fs::exists(file(slot, ".bak"), ec);
}

} // namespace engine
