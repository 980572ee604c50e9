// sparksave(3) EXAMPLE: save a game into a slot, list the slots, load the slot back.
#include <sparksave/save_file.hpp>

#include <cstdio>
#include <filesystem>

namespace ss = sparksave::spark_save;

static int fail(const char* what, const sparksave::Error& error) {
    std::fprintf(stderr, "%s: %s\n", what, error.describe().c_str());
    return 1;
}

int main(int argc, char** argv) {
    const std::filesystem::path dir = argc > 1 ? argv[1] : "Saves";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);

    ss::Metadata meta;
    meta.save_name = "Before Boss Fight";
    meta.scene_name = "Level03";
    meta.player_class = "Soldier";
    meta.timestamp = 1800000000;
    meta.play_time = 3723.5f;
    meta.player_health = 87.25f;

    ss::SaveWriter writer(meta);
    writer.entity("Player").component("Transform").property("position", "1,2,3");
    writer.property("parent", "-1");
    writer.component("HealthComponent").property("current", "87.25");
    writer.entity("Sword").component("Transform").property("parent", "0");
    writer.custom("quest.stage", "3");
    sparksave::Result<std::string> bytes = writer.finish(); // every v4 rule checked
    if (!bytes) return fail("not saved", bytes.error());
    if (auto written = ss::write_slot(dir, "slot1", *bytes); !written)
        return fail("not saved", written.error());

    // A load-game menu: the metadata of every slot; the entities are not read.
    auto slots = ss::list_slots(dir);
    if (!slots) return fail("no slots", slots.error());
    for (const ss::SlotInfo& slot : *slots)
        if (slot.metadata)
            std::printf("%s: %s, %s, %.1f s\n", slot.slot.c_str(), slot.metadata->save_name.c_str(),
                        slot.metadata->scene_name.c_str(), slot.metadata->play_time);

    // The primary, or its backup when the primary is damaged. An old build's v1/v2 save is
    // returned as it is: upgrade it in memory.
    bool used_backup = false;
    auto loaded = ss::load_slot(dir, "slot1", &used_backup);
    if (!loaded) return fail("not loaded", loaded.error());
    if (auto head = ss::read_metadata(ss::as_save_bytes(*loaded));
        head && head->version < ss::k_oldest_loadable) {
        loaded = ss::upgrade(ss::as_save_bytes(*loaded));
        if (!loaded) return fail("not upgraded", loaded.error());
    }
    auto view = ss::SaveView::parse(ss::as_save_bytes(*loaded));
    if (!view) return fail("not loaded", view.error());
    for (const ss::Entity& entity : view->entities()) {
        std::printf("%.*s:", static_cast<int>(entity.name.size()), entity.name.data());
        for (const ss::Component& component : entity.components)
            std::printf(" %.*s(%zu)", static_cast<int>(component.type.size()),
                        component.type.data(), component.properties.size());
        std::printf("\n");
    }
    std::printf("backup used: %s\n", used_backup ? "yes" : "no");
    return 0;
}
