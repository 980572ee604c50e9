// The engine-shaped SaveSystem (save_system.hpp) against the installed library: round trip,
// refusals that write nothing, the fallback to `.bak`, the autosave rotation, the in-memory
// upgrade of the v1/v2 saves of testdata, the content rules of testdata/rules applied at load,
// and the metadata of every slot. Plain checks, no test
// framework: the consumer needs only the package.
//
// usage: engine_consumer TESTDATA_DIR SCRATCH_DIR
#include "save_system.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>

namespace fs = std::filesystem;
namespace ss = sparksave::spark_save;
using engine::LoadInfo;
using engine::SaveSystem;
using engine::World;

namespace {

int g_failures = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ++g_failures;                                                                          \
            std::fprintf(stderr, "%s:%d: CHECK(%s) failed", __FILE__, __LINE__, #cond);            \
            std::fprintf(stderr, " " __VA_ARGS__);                                                 \
            std::fputc('\n', stderr);                                                              \
        }                                                                                          \
    } while (0)

// A Result that must hold a value; says its error when it does not.
#define CHECK_OK(result)                                                                           \
    do {                                                                                           \
        const auto& r_ = (result);                                                                 \
        CHECK(r_.has_value(), "%s", r_ ? "" : r_.error().describe().c_str());                      \
    } while (0)

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::set<std::string> files_in(const fs::path& dir) {
    std::set<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.insert(e.path().filename());
    return names;
}

ss::Metadata metadata(std::string name, std::uint64_t timestamp) {
    ss::Metadata m;
    m.save_name = std::move(name);
    m.scene_name = "Level03";
    m.player_class = "Soldier";
    m.screenshot_path = "Screenshots/level03.png";
    m.timestamp = timestamp;
    m.play_time = 3723.5f;
    m.player_health = 87.25f;
    m.player_armor = 40;
    m.position = {12.5f, -3, 0.125f};
    m.player_kills = 14;
    m.player_deaths = 2;
    return m;
}

// A small world as the engine's serializers write it: a hierarchy, a tag, custom state.
World sample_world(std::string marker) {
    World w;
    w.entities.push_back(
        {"Player",
         {{"Transform", {{"position", "1.000000,2.000000,3.000000"}, {"parent", "-1"}}},
          {"HealthComponent", {{"current", "87.25"}, {"max", "100"}}}}});
    w.entities.push_back({"Sword", {{"Transform", {{"parent", "0"}}}}});
    w.entities.push_back({"", {{"TagComponent", {{"tags", "loot,rare"}}}}});
    w.custom_state = {{"quest.stage", "3"}, {"marker", std::move(marker)}};
    return w;
}

bool same_metadata(const ss::Metadata& a, const ss::Metadata& b) {
    return a.save_name == b.save_name && a.scene_name == b.scene_name &&
           a.player_class == b.player_class && a.screenshot_path == b.screenshot_path &&
           a.timestamp == b.timestamp && a.play_time == b.play_time &&
           a.player_health == b.player_health && a.player_armor == b.player_armor &&
           a.position.x == b.position.x && a.position.y == b.position.y &&
           a.position.z == b.position.z && a.player_kills == b.player_kills &&
           a.player_deaths == b.player_deaths;
}

void round_trip(const fs::path& dir) {
    SaveSystem saves(dir);
    const World world = sample_world("round trip");
    const ss::Metadata meta = metadata("Before Boss Fight", 1'800'000'000);
    CHECK_OK(saves.Save("slot1", world, meta));
    CHECK(saves.SaveExists("slot1"));
    CHECK(files_in(dir) == std::set<std::string>{"slot1.spark_save"}, "(no .tmp, no .bak yet)");
    World loaded;
    LoadInfo info;
    CHECK_OK(saves.Load("slot1", loaded, &info));
    CHECK(loaded == world, "(the loaded world differs from the saved one)");
    CHECK(!info.used_backup && info.file_version == ss::k_current_version);
    auto read = saves.GetSaveMetadata("slot1");
    CHECK_OK(read);
    if (read) CHECK(same_metadata(*read, meta), "(metadata changed on the way)");

    // The quicksave: an empty name becomes the engine's "Quick Save".
    CHECK_OK(saves.QuickSave(sample_world("quick"), metadata("", 1'800'000'100)));
    World quick;
    CHECK_OK(saves.QuickLoad(quick));
    CHECK(quick == sample_world("quick"));
    auto qm = saves.GetSaveMetadata("__quicksave");
    CHECK(qm && qm->save_name == "Quick Save");

    // A timestamp of 0 is the time of the save.
    CHECK_OK(saves.Save("now", world, metadata("Now", 0)));
    auto now = saves.GetSaveMetadata("now");
    CHECK(now && now->timestamp > 1'700'000'000);
}

// Each refusal: an error with the node path (or the slot name), and no file written.
void refusals(const fs::path& dir) {
    SaveSystem saves(dir);
    const World world = sample_world("refused");
    for (const char* bad : {"", "a/b", "..", "two words", "slot.spark_save",
                            "x123456789x123456789x123456789x123456789x123456789x123456789xxxxx"}) {
        auto r = saves.Save(bad, world, metadata("ok", 1));
        CHECK(!r && r.error().code == sparksave::ErrorCode::bad_usage, "slot \"%s\"", bad);
    }
    ss::Metadata line = metadata("two\nlines", 1);
    auto r = saves.Save("line", world, line);
    CHECK(!r && r.error().path == "metadata.saveName", "%s",
          r ? "saved" : r.error().describe().c_str());
    ss::Metadata cr = metadata("ok", 1);
    cr.scene_name = "Level\r03";
    r = saves.Save("cr", world, cr);
    CHECK(!r && r.error().path == "metadata.sceneName");
    for (float f :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        ss::Metadata nan = metadata("ok", 1);
        nan.play_time = f;
        r = saves.Save("nan", world, nan);
        CHECK(!r && r.error().path == "metadata.playTime", "%s",
              r ? "saved" : r.error().describe().c_str());
        nan = metadata("ok", 1);
        nan.position.z = -f;
        r = saves.Save("nan", world, nan);
        CHECK(!r && r.error().path == "metadata.position.z");
    }
    World named = world;
    named.entities[1].components.push_back({"NameComponent", {{"name", "Sword"}}});
    r = saves.Save("named", named, metadata("ok", 1));
    CHECK(!r && r.error().path == "entities[1].NameComponent", "%s",
          r ? "saved" : r.error().describe().c_str());
    World orphan = world;
    orphan.entities[1].components[0].properties[0].second = "7";
    r = saves.Save("orphan", orphan, metadata("ok", 1));
    CHECK(!r && r.error().path == "entities[1].Transform.parent", "%s",
          r ? "saved" : r.error().describe().c_str());
    CHECK(files_in(dir).empty(), "(a refused save wrote %zu files)", files_in(dir).size());

    // A refused save leaves the slot's last save as it was.
    CHECK_OK(saves.Save("keep", world, metadata("kept", 5)));
    const std::string before = read_bytes(dir / "keep.spark_save");
    CHECK(!saves.Save("keep", world, line));
    CHECK(read_bytes(dir / "keep.spark_save") == before);
    CHECK(files_in(dir) == std::set<std::string>{"keep.spark_save"});
}

// A damaged primary: Load falls back to the previous good revision, kept as .bak.
void fallback(const fs::path& dir) {
    SaveSystem saves(dir);
    CHECK_OK(saves.Save("fb", sample_world("revision 1"), metadata("one", 10)));
    CHECK_OK(saves.Save("fb", sample_world("revision 2"), metadata("two", 20)));
    CHECK(files_in(dir) == (std::set<std::string>{"fb.spark_save", "fb.spark_save.bak"}));
    World w;
    LoadInfo info;
    CHECK_OK(saves.Load("fb", w, &info));
    CHECK(!info.used_backup && w == sample_world("revision 2"));

    std::string bytes = read_bytes(dir / "fb.spark_save");
    bytes[bytes.size() / 2] ^= 0x20; // the CRC-32 no longer matches
    write_bytes(dir / "fb.spark_save", bytes);
    CHECK_OK(saves.Load("fb", w, &info));
    CHECK(info.used_backup, "(the damaged primary was loaded)");
    CHECK(w == sample_world("revision 1"), "(not the backup's world)");

    // Both damaged: an error, naming what was wrong with each.
    std::string bak = read_bytes(dir / "fb.spark_save.bak");
    bak.resize(bak.size() - 1);
    write_bytes(dir / "fb.spark_save.bak", bak);
    auto none = saves.Load("fb", w, &info);
    CHECK(!none && none.error().code == sparksave::ErrorCode::checksum_mismatch &&
              none.error().message.find("backup") != std::string::npos,
          "%s", none ? "loaded" : none.error().describe().c_str());

    // A primary lost (a crash between two renames, a user's delete): the backup is the slot.
    CHECK_OK(saves.Save("lost", sample_world("lost 1"), metadata("lost one", 30)));
    CHECK_OK(saves.Save("lost", sample_world("lost 2"), metadata("lost two", 31)));
    fs::remove(dir / "lost.spark_save");
    CHECK(saves.SaveExists("lost"));
    CHECK_OK(saves.Load("lost", w, &info));
    CHECK(info.used_backup && w == sample_world("lost 1"));
    auto slots = saves.GetSaveSlots();
    CHECK_OK(slots);
    bool listed = false;
    if (slots)
        for (const auto& s : *slots)
            if (s.slot == "lost") listed = s.from_backup && s.metadata.save_name == "lost one";
    CHECK(listed, "(a slot with only its backup is listed from the backup's metadata)");
    // ... but not when that backup does not load: one byte of its entities flipped, its
    // metadata still reads and its CRC-32 fails (Load() would refuse it).
    {
        std::string bak = read_bytes(dir / "lost.spark_save.bak");
        const std::size_t at = bak.size() - 8; // past the metadata, before the trailer
        bak[at] = static_cast<char>(bak[at] ^ 0x01);
        write_bytes(dir / "lost.spark_save.bak", bak);
        CHECK(ss::read_metadata(dir / "lost.spark_save.bak"), "(the metadata still reads)");
        CHECK(!saves.Load("lost", w));
        slots = saves.GetSaveSlots();
        CHECK_OK(slots);
        listed = false;
        if (slots)
            for (const auto& s : *slots) listed |= s.slot == "lost";
        CHECK(!listed, "(a slot whose only file is a damaged backup is listed)");
    }
    CHECK_OK(saves.DeleteSave("lost"));
    CHECK(!saves.SaveExists("lost") && !saves.Load("lost", w));

    // A save of a newer build (a v5 header, no v4 trailer): neither overwritten nor passed over
    // for its backup. A v4 save whose version field reads 5 is damaged (formats/README.md §1.5):
    // the backup is loaded, and the next save replaces it.
    CHECK_OK(saves.Save("newer", sample_world("newer 1"), metadata("newer one", 40)));
    CHECK_OK(saves.Save("newer", sample_world("newer 2"), metadata("newer two", 41)));
    std::string v5 = read_bytes(dir / "newer.spark_save");
    v5[4] = 5;
    write_bytes(dir / "newer.spark_save", v5);
    CHECK_OK(saves.Load("newer", w, &info));
    CHECK(info.used_backup && w == sample_world("newer 1"), "(a damaged v4 is not a newer save)");
    v5.back() ^= 1; // the trailer verifies with no version now
    write_bytes(dir / "newer.spark_save", v5);
    auto refused = saves.Load("newer", w, &info);
    CHECK(!refused && refused.error().code == sparksave::ErrorCode::unsupported_version &&
              !info.used_backup,
          "%s", refused ? "loaded" : refused.error().describe().c_str());
    auto kept = saves.Save("newer", sample_world("newer 3"), metadata("newer three", 42));
    CHECK(!kept && kept.error().message.find("newer build") != std::string::npos);
    CHECK(read_bytes(dir / "newer.spark_save") == v5);
    CHECK_OK(saves.DeleteSave("newer"));
    CHECK_OK(saves.DeleteSave("lost")); // deleting a missing slot is fine
}

void autosave_rotation(const fs::path& dir) {
    {
        SaveSystem saves(dir, 3);
        CHECK(saves.NextAutoSaveIndex() == 0);
        for (int i = 1; i <= 4; ++i)
            CHECK_OK(saves.AutoSave(
                sample_world("auto " + std::to_string(i)),
                metadata("Auto Save " + std::to_string(i), 1'000 + static_cast<std::uint64_t>(i))));
        CHECK(saves.NextAutoSaveIndex() == 1);
        // Saves 1, 2, 3 went to __autosave_0, 1, 2; save 4 over the oldest, __autosave_0.
        const std::map<std::string, std::string> expected = {{"__autosave_0", "Auto Save 4"},
                                                             {"__autosave_1", "Auto Save 2"},
                                                             {"__autosave_2", "Auto Save 3"}};
        for (const auto& [slot, name] : expected) {
            auto m = saves.GetSaveMetadata(slot);
            CHECK(m && m->save_name == name, "%s: %s", slot.c_str(),
                  m ? m->save_name.c_str() : m.error().describe().c_str());
        }
        CHECK(!saves.SaveExists("__autosave_3"));
        World w;
        CHECK_OK(saves.Load("__autosave_0", w));
        CHECK(w == sample_world("auto 4"));
        LoadInfo info;
        CHECK_OK(saves.Load("__autosave_0", w, &info));
        CHECK(!info.used_backup);
    }
    // A new session (the engine restarted) goes on with the oldest autosave, __autosave_1.
    SaveSystem again(dir, 3);
    CHECK(again.NextAutoSaveIndex() == 1, "found %d", again.NextAutoSaveIndex());
    CHECK_OK(again.AutoSave(sample_world("auto 5"), metadata("Auto Save 5", 1'005)));
    auto m = again.GetSaveMetadata("__autosave_1");
    CHECK(m && m->save_name == "Auto Save 5");
    CHECK(again.NextAutoSaveIndex() == 2);
    // A missing one is filled first.
    CHECK_OK(again.DeleteSave("__autosave_0"));
    CHECK(SaveSystem(dir, 3).NextAutoSaveIndex() == 0);
}

// The v1 and v2 saves of testdata, copied into a save directory as a player's old slots: Load
// upgrades them in memory, to the world `sparksave migrate` makes of them.
void upgrade_old_saves(const fs::path& testdata, const fs::path& dir) {
    fs::create_directories(dir);
    SaveSystem saves(dir);
    const struct {
        const char* file;
        const char* slot;
        std::uint32_t version;
    } old_saves[] = {{"v1-screenshotless", "old_v1", 1},
                     {"v2-screenshot-without-hierarchy", "old_v2", 2},
                     {"v3-fps-profile", "old_v3", 3}};
    for (const auto& old : old_saves) {
        const std::string original = read_bytes(testdata / "spark_save" / "real" / "valid" /
                                                (std::string(old.file) + ".spark_save"));
        CHECK(!original.empty(), "%s: not found under %s", old.file, testdata.c_str());
        // A good v4 backup beside it: the old primary, not the backup, is what Load() upgrades.
        const fs::path primary = dir / (std::string(old.slot) + ".spark_save");
        const fs::path backup = dir / (std::string(old.slot) + ".spark_save.bak");
        CHECK_OK(saves.Save(old.slot, sample_world("a v4 backup"), metadata("backup", 9)));
        write_bytes(backup, read_bytes(primary));
        write_bytes(primary, original);

        World w;
        LoadInfo info;
        CHECK_OK(saves.Load(old.slot, w, &info));
        CHECK(info.file_version == old.version, "%s: version %u", old.slot, info.file_version);
        CHECK(!info.used_backup);
        if (old.version >= ss::k_oldest_loadable)
            CHECK(info.upgrade_notes.empty(), "%s: upgraded, though the engine loads it", old.slot);
        // What `sparksave migrate` writes for it (testdata/migrations, checked by the unit tests).
        const std::string migrated = read_bytes(testdata / "migrations" / "spark_save" /
                                                (std::string(old.file) + ".v4.spark_save"));
        auto expected = ss::SaveView::parse(ss::as_save_bytes(migrated));
        CHECK_OK(expected);
        if (!expected) continue;
        World want;
        for (const ss::Entity& e : expected->entities()) {
            engine::SavedEntity& out = want.entities.emplace_back();
            out.name = e.name;
            for (const ss::Component& c : e.components) {
                auto& comp = out.components.emplace_back();
                comp.type = c.type;
                for (const ss::Property& p : c.properties)
                    comp.properties.emplace_back(p.key, p.value);
            }
        }
        for (const ss::Property& p : expected->custom_state())
            want.custom_state.emplace_back(p.key, p.value);
        CHECK((!want.entities.empty() || !want.custom_state.empty()) && w == want,
              "%s: not the migrated world", old.slot);
        // The file on disk is as it was; the menu shows its metadata as its version has it.
        CHECK(read_bytes(dir / (std::string(old.slot) + ".spark_save")) == original);
        auto m = saves.GetSaveMetadata(old.slot);
        CHECK(m && m->version == old.version && same_metadata(*m, expected->metadata()), "%s",
              old.slot);
        // The next save writes it as v4, and keeps the old file as the backup (it loads).
        CHECK_OK(saves.Save(old.slot, w, *m));
        auto now = saves.GetSaveMetadata(old.slot);
        CHECK(now && now->version == ss::k_current_version);
        CHECK(read_bytes(backup) == original, "%s: the old save is not the backup", old.slot);
    }
    // v1 with screenshotless metadata: the v2 line is empty after the upgrade.
    auto m = saves.GetSaveMetadata("old_v1");
    CHECK(m && m->screenshot_path.empty() && m->save_name == "Legacy screenshotless save");
}

// The game's content rules (testdata/rules: fps.profile.version 1 -> 2 -> 3), loaded once at
// start-up: Load of a save at fps.profile.version 1 returns the upgraded content; a save no
// rule applies to is what it was; a rule's conflict is Load's error, with the node path.
void content_rules_at_load(const fs::path& testdata, const fs::path& dir) {
    const fs::path rule_dir = testdata / "rules";
    auto rules = sparksave::RuleSet::load(std::span<const fs::path>(&rule_dir, 1));
    CHECK_OK(rules);
    if (!rules) return;
    auto tested = rules->test();
    CHECK(tested && tested->run == 2, "%s", tested ? "" : tested.error().describe().c_str());
    fs::create_directories(dir);
    SaveSystem saves(dir, 3, *rules);
    const std::string original = read_bytes(testdata / "rules" / "saves" / "profile-1.spark_save");
    write_bytes(dir / "profile.spark_save", original);

    World w;
    LoadInfo info;
    CHECK_OK(saves.Load("profile", w, &info));
    CHECK(info.file_version == 3 && !info.used_backup);
    CHECK((info.rules_run == std::vector<std::string>{"fps-profile-2", "fps-profile-3"}));
    using engine::SavedComponent;
    const SavedComponent transform0{
        "Transform",
        {{"px", "0.000000"}, {"py", "2.000000"}, {"pz", "-5.000000"}, {"parent", "-1"}}};
    World want;
    want.entities = {
        {"player",
         {transform0,
          {"Health", {{"hp", "85"}, {"max", "100.000000"}, {"regen", "0"}}},
          {"TagComponent", {{"tags", "player,hero"}, {"team", "1"}}}}},
        {"grunt",
         {{"Transform",
           {{"px", "4.500000"}, {"py", "0.000000"}, {"pz", "1.250000"}, {"parent", "-1"}}},
          {"Health", {{"max", "75.000000"}, {"hp", "50"}, {"regen", "2"}}},
          {"TagComponent", {{"team", "2"}, {"tags", "enemy"}}}}},
        {"crate",
         {{"Transform",
           {{"px", "1.000000"}, {"py", "0.000000"}, {"pz", "0.000000"}, {"parent", "0"}}},
          {"TagComponent", {{"team", "neutral"}}}}}};
    want.custom_state = {{"fps.profile.version", "3"},
                         {"fps.profile.experience", "37"},
                         {"fps.profile.difficulty", "normal"}};
    CHECK(w == want, "(not the content the rules make of fps.profile.version 1)");
    CHECK(read_bytes(dir / "profile.spark_save") == original, "(Load wrote the file)");
    // The next Save writes the upgraded content; loaded again, no rule applies to it.
    auto m = saves.GetSaveMetadata("profile");
    CHECK_OK(m);
    if (m) CHECK_OK(saves.Save("profile", w, *m));
    World again;
    CHECK_OK(saves.Load("profile", again, &info));
    CHECK(again == want && info.rules_run.empty());

    // A save out of every chain's scope (no fps.profile.version) comes back as it was saved.
    const World plain = sample_world("no profile");
    CHECK_OK(saves.Save("plain", plain, metadata("plain", 7)));
    CHECK_OK(saves.Load("plain", w, &info));
    CHECK(w == plain && info.rules_run.empty());

    // A rename onto a component the entity has already: Load fails with the node path.
    write_bytes(dir / "conflict.spark_save",
                read_bytes(testdata / "rules" / "saves" / "conflict.spark_save"));
    auto refused = saves.Load("conflict", w, &info);
    CHECK(!refused && refused.error().path == "entities[1].Health", "%s",
          refused ? "loaded" : refused.error().describe().c_str());
}

// GetSaveSlots: every slot with its metadata, newest first; slots that cannot load left out.
void metadata_of_every_slot(const fs::path& dir) {
    SaveSystem saves(dir);
    std::map<std::string, ss::Metadata> saved;
    const char* names[] = {"slot1", "checkpoint_02", "__quicksave", "__autosave_0", "z-last"};
    std::uint64_t t = 2'000;
    for (const char* slot : names) {
        ss::Metadata m = metadata(std::string("Save of ") + slot, t);
        t -= 100;
        CHECK_OK(saves.Save(slot, sample_world(slot), m));
        saved[slot] = m;
    }
    // Not slots: another file, a bad slot name, a damaged save with no backup, a stale tmp.
    write_bytes(dir / "notes.txt", "x");
    write_bytes(dir / "bad name.spark_save", read_bytes(dir / "slot1.spark_save"));
    write_bytes(dir / "broken.spark_save", "SPRK");
    write_bytes(dir / "crashed.spark_save.tmp", "SPRK");
    auto slots = saves.GetSaveSlots();
    CHECK_OK(slots);
    if (!slots) return;
    CHECK(slots->size() == saved.size(), "%zu slots listed", slots->size());
    std::uint64_t previous = UINT64_MAX;
    for (const engine::SlotEntry& s : *slots) {
        CHECK(saved.count(s.slot) == 1, "unexpected slot %s", s.slot.c_str());
        if (!saved.count(s.slot)) continue;
        CHECK(same_metadata(s.metadata, saved[s.slot]), "%s", s.slot.c_str());
        CHECK(s.metadata.version == ss::k_current_version && !s.from_backup);
        CHECK(s.metadata.timestamp <= previous, "(not newest first at %s)", s.slot.c_str());
        previous = s.metadata.timestamp;
        auto one = saves.GetSaveMetadata(s.slot);
        CHECK(one && same_metadata(*one, s.metadata));
        CHECK((s.role == ss::SlotRole::quicksave) == (s.slot == "__quicksave"));
        CHECK((s.role == ss::SlotRole::autosave) == (s.autosave_index == 0));
    }
    CHECK(slots->front().slot == "slot1" && slots->back().slot == "z-last");
    CHECK(!saves.GetSaveMetadata("broken"));
    // An empty or missing directory: no slots.
    auto none = SaveSystem(dir / "missing").GetSaveSlots();
    CHECK(none && none->empty());
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s TESTDATA_DIR SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    const fs::path testdata = argv[1];
    const fs::path scratch = argv[2];
    fs::remove_all(scratch);
    round_trip(scratch / "round_trip");
    refusals(scratch / "refusals");
    fallback(scratch / "fallback");
    autosave_rotation(scratch / "autosave");
    upgrade_old_saves(testdata, scratch / "upgrade");
    content_rules_at_load(testdata, scratch / "content_rules");
    metadata_of_every_slot(scratch / "slots");
    if (g_failures) {
        std::fprintf(stderr, "%d checks failed\n", g_failures);
        return 1;
    }
#ifdef _GLIBCXX_DEBUG
    std::puts("engine consumer: all checks passed (_GLIBCXX_DEBUG)");
#else
    std::puts("engine consumer: all checks passed");
#endif
    return 0;
}
