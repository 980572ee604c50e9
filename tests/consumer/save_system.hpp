// An engine's save system on the installed sparksave, shaped as SparkEngine's own SaveSystem
// (SaveSystem.h: Save, Load, QuickSave/QuickLoad, AutoSave, GetSaveSlots, GetSaveMetadata,
// DeleteSave, SaveExists), with a plain-data World in place of the engine's ECS world and
// Result<void> in place of its bool. It uses only <sparksave/save_file.hpp> and
// <sparksave/content_rules.hpp>: the slot rules, the checks, the backup, the upgrade of old
// saves and of their content (the game's rule files, loaded once at start-up, applied by Load)
// are the library's.
#pragma once

#include <sparksave/content_rules.hpp>
#include <sparksave/save_file.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine {

namespace ss = sparksave::spark_save;
using sparksave::Result;

using Pairs = std::vector<std::pair<std::string, std::string>>;

// What the engine's SerializeWorld makes of its world: entities in order, each with its
// components (type and string properties, as the component serializers write them).
struct SavedComponent {
    std::string type;
    Pairs properties;
    bool operator==(const SavedComponent&) const = default;
};
struct SavedEntity {
    std::string name;
    std::vector<SavedComponent> components;
    bool operator==(const SavedEntity&) const = default;
};
struct World {
    std::vector<SavedEntity> entities;
    Pairs custom_state; // the engine's module-owned key/value state
    bool operator==(const World&) const = default;
};

// One row of a load-game menu.
struct SlotEntry {
    std::string slot;
    ss::SlotRole role = ss::SlotRole::user;
    int autosave_index = -1;
    ss::Metadata metadata;
    bool from_backup = false; // the primary is unreadable: Load() will use the backup
};

// What Load() did.
struct LoadInfo {
    bool used_backup = false;               // the primary did not load, its .bak did
    std::uint32_t file_version = 0;         // the version of the file read
    std::vector<std::string> upgrade_notes; // a v1/v2 file upgraded in memory: what the steps did
    std::vector<std::string> rules_run; // the content rules that upgraded it in memory, in order
};

class SaveSystem {
  public:
    // Saves live in `directory` (created by the first Save). `max_autosaves` is the engine's
    // SetMaxAutoSaves (>= 1, default 3). `content_rules`: the game's rule set, loaded and
    // checked once at start-up (RuleSet::load); Load applies it to every save it reads.
    explicit SaveSystem(std::filesystem::path directory, int max_autosaves = 3,
                        std::optional<sparksave::RuleSet> content_rules = std::nullopt);

    // `world` and `metadata` as a v4 save in `<directory>/<slot>.spark_save`, the previous good
    // revision kept as `.bak`. A timestamp of 0 is replaced by the current time. Refused before
    // any file is touched: a bad slot name, anything SaveWriter::finish refuses, a slot whose
    // save a newer build wrote (as the engine refuses it).
    Result<void> Save(std::string_view slot, const World& world, const ss::Metadata& metadata);
    // The slot's save, or its backup when the primary does not load; a v1/v2 primary is
    // upgraded in memory (the file on disk stays as it is until the next Save), and with content
    // rules every save goes through them (the format upgrade first, then the rules whose module
    // version it is at): a rule's error (with the node path) is Load's error. A save of a
    // newer build is refused, and its backup not used instead (as the engine does).
    Result<void> Load(std::string_view slot, World& world, LoadInfo* info = nullptr) const;

    // The `__quicksave` slot; an empty save name becomes "Quick Save", as the engine does.
    Result<void> QuickSave(const World& world, ss::Metadata metadata);
    Result<void> QuickLoad(World& world, LoadInfo* info = nullptr) const;
    // The next of `__autosave_0` .. `__autosave_{N-1}`, in rotation. The first one after
    // construction is a missing index, else the one with the oldest save.
    Result<void> AutoSave(const World& world, const ss::Metadata& metadata);
    int NextAutoSaveIndex() const noexcept { return next_autosave_; }

    // Every slot that Load() can load, newest first (by metadata timestamp; ties by slot name),
    // from the metadata alone (the entities are not read).
    Result<std::vector<SlotEntry>> GetSaveSlots() const;
    Result<ss::Metadata> GetSaveMetadata(std::string_view slot) const;
    // Removes the slot's save, its backup and a stale temporary file; a missing slot is fine.
    Result<void> DeleteSave(std::string_view slot);
    bool SaveExists(std::string_view slot) const;

    const std::filesystem::path& directory() const noexcept { return dir_; }

  private:
    std::filesystem::path file(std::string_view slot, std::string_view suffix = {}) const;

    std::filesystem::path dir_;
    int max_autosaves_ = 3;
    int next_autosave_ = 0;
    std::optional<sparksave::RuleSet> rules_;
};

} // namespace engine
