// Deterministic generator of realistic `.spark_save` files for the benchmark (issue: a big
// v4 save of ~256 MiB with some 400,000 entities, the same content as v1, and many small saves
// of mixed versions). Written from formats/README.md with its own encoder, not the library's
// writer.
//
//   gen_saves big   OUT VERSION [ENTITIES] [SEED]   one save (default 400000 entities)
//   gen_saves small DIR COUNT [SEED]                COUNT ~20 KB saves, versions 1..4
//   gen_saves edit  IN OUT CHANGES [SEED]           a copy of IN (v4) with CHANGES values changed
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

struct Out {
    std::string b;
    void u16(std::size_t v) {
        b += static_cast<char>(v & 0xFF), b += static_cast<char>((v >> 8) & 0xFF);
    }
    void u32(std::uint64_t v) {
        for (int i = 0; i < 4; ++i) b += static_cast<char>((v >> (8 * i)) & 0xFF);
    }
    void str(const std::string& s) {
        u16(s.size());
        b += s;
    }
};

std::uint32_t crc32(const std::string& s) {
    static std::uint32_t table[256];
    if (!table[1])
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
            table[i] = c;
        }
    std::uint32_t c = 0xFFFFFFFFu;
    for (unsigned char ch : s) c = table[(c ^ ch) & 0xFF] ^ (c >> 8);
    return ~c;
}

std::string fixed6(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    return buf;
}

using Props = std::vector<std::pair<std::string, std::string>>;

// One entity's components; `transform_parent` is "-1", an index, or empty (v1/v2: no parent).
std::vector<std::pair<std::string, Props>> components(std::mt19937_64& rng,
                                                      const std::string& parent) {
    std::uniform_real_distribution<double> pos(-500, 500), unit(0, 1);
    std::vector<std::pair<std::string, Props>> out;
    Props t = {{"px", fixed6(pos(rng))},
               {"py", fixed6(pos(rng))},
               {"pz", fixed6(pos(rng))},
               {"rx", fixed6(unit(rng) * 360)},
               {"ry", fixed6(unit(rng) * 360)},
               {"rz", fixed6(unit(rng) * 360)},
               {"sx", "1.000000"},
               {"sy", "1.000000"},
               {"sz", "1.000000"}};
    if (!parent.empty()) t.emplace_back("parent", parent);
    std::shuffle(t.begin(), t.end(), rng); // the engine writes hash order
    out.emplace_back("Transform", std::move(t));
    static const char* meshes[] = {"meshes/crate.mesh", "meshes/barrel.mesh",
                                   "meshes/tree_oak_03.mesh", "meshes/rock_large.mesh"};
    const std::size_t extra = 2 + rng() % 4; // 3..6 components in all
    std::vector<int> kinds = {0, 1, 2, 3, 4, 5, 6};
    std::shuffle(kinds.begin(), kinds.end(), rng);
    for (std::size_t k = 0; k < extra; ++k) {
        switch (kinds[k]) {
        case 0:
            out.push_back({"HealthComponent",
                           {{"current", fixed6(unit(rng) * 100)},
                            {"max", "100.000000"},
                            {"regen", fixed6(unit(rng))},
                            {"armor", fixed6(unit(rng) * 50)},
                            {"invulnerable", "0"},
                            {"lastDamageSource", "entity_" + std::to_string(rng() % 400000)}}});
            break;
        case 1:
            out.push_back({"MeshRenderer",
                           {{"mesh", meshes[rng() % 4]},
                            {"material", "materials/environment/default_lit.mat"},
                            {"visible", "1"},
                            {"castShadows", std::to_string(rng() % 2)},
                            {"receiveShadows", "1"},
                            {"lod", std::to_string(rng() % 3)}}});
            break;
        case 2:
            out.push_back({"RigidBody",
                           {{"mass", fixed6(unit(rng) * 50)},
                            {"vx", fixed6(pos(rng) / 100)},
                            {"vy", fixed6(pos(rng) / 100)},
                            {"vz", fixed6(pos(rng) / 100)},
                            {"wx", fixed6(unit(rng))},
                            {"wy", fixed6(unit(rng))},
                            {"wz", fixed6(unit(rng))},
                            {"drag", "0.050000"},
                            {"angularDrag", "0.050000"},
                            {"useGravity", "1"},
                            {"isKinematic", "0"}}});
            break;
        case 3:
            out.push_back({"AudioSource",
                           {{"clip", "audio/ambient_" + std::to_string(rng() % 40) + ".ogg"},
                            {"volume", fixed6(unit(rng))},
                            {"loop", "1"}}});
            break;
        case 4:
            out.push_back({"LightComponent",
                           {{"color", "1 0.9 0.8"},
                            {"intensity", fixed6(unit(rng) * 5)},
                            {"range", fixed6(unit(rng) * 30)}}});
            break;
        case 5:
            out.push_back({"TagComponent",
                           {{"tags", rng() % 2 ? "enemy,patrol,zone_" + std::to_string(rng() % 64)
                                               : "prop,static,lod2"}}});
            break;
        default:
            out.push_back({"ScriptComponent",
                           {{"script", "scripts/ai/patrol_" + std::to_string(rng() % 16) + ".lua"},
                            {"state", "{\"waypoint\":" + std::to_string(rng() % 100) +
                                          ",\"alert\":" + fixed6(unit(rng)) +
                                          ",\"target\":\"entity_" + std::to_string(rng() % 400000) +
                                          "\",\"timer\":" + fixed6(unit(rng) * 60) + "}"},
                            {"enabled", "1"}}});
            break;
        }
        std::shuffle(out.back().second.begin(), out.back().second.end(), rng);
    }
    return out;
}

std::string save(std::uint32_t version, std::size_t entities, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Out o;
    o.b = "SPRK";
    o.u32(version);
    std::string meta = "Benchmark world\nbench_scene\nRanger\n";
    if (version >= 2) meta += "Screenshots/bench.png\n";
    meta += "1700000000\n3725.5\n75\n25\n1 2 3\n4\n1\n";
    o.u32(meta.size());
    o.b += meta;
    o.b.reserve(entities * 700);
    o.u32(entities);
    for (std::size_t e = 0; e < entities; ++e) {
        std::string parent;
        if (version >= 3) parent = (e == 0 || rng() % 4 == 0) ? "-1" : std::to_string(rng() % e);
        o.str("world/zone_" + std::to_string(e % 64) + "/entity_" + std::to_string(e));
        auto comps = components(rng, parent);
        o.u16(comps.size());
        for (const auto& [type, props] : comps) {
            o.str(type);
            o.u16(props.size());
            for (const auto& [k, v] : props) {
                o.str(k);
                o.str(v);
            }
        }
    }
    o.u32(3);
    o.str("quest.main.stage");
    o.str("7");
    o.str("fps.profile.version");
    o.str("1");
    o.str("world.seed");
    o.str(std::to_string(seed));
    if (version == 4) o.u32(crc32(o.b));
    return o.b;
}

void write(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
}

} // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "big" && argc >= 4) {
        std::size_t entities = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 400000;
        std::uint64_t seed = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 42;
        std::string bytes = save(static_cast<std::uint32_t>(std::atoi(argv[3])), entities, seed);
        write(argv[2], bytes);
        std::printf("%s: %zu bytes\n", argv[2], bytes.size());
        return 0;
    }
    if (mode == "small" && argc >= 4) {
        std::size_t count = std::strtoull(argv[3], nullptr, 10);
        std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 7;
        // VERSION 0: versions 1 to 4 in turn. 30 entities make ~20 KB, 75 ~50 KB.
        std::uint32_t only = argc > 5 ? static_cast<std::uint32_t>(std::atoi(argv[5])) : 0;
        std::size_t entities = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 30;
        std::filesystem::create_directories(argv[2]);
        for (std::size_t i = 0; i < count; ++i) {
            std::uint32_t version = only ? only : 1 + static_cast<std::uint32_t>(i % 4);
            char name[64];
            std::snprintf(name, sizeof name, "slot_%05zu.spark_save", i);
            write(std::filesystem::path(argv[2]) / name, save(version, entities, seed + i));
        }
        std::printf("%s: %zu files\n", argv[2], count);
        return 0;
    }
    if (mode == "edit" && argc >= 5) {
        std::ifstream in(argv[2], std::ios::binary);
        std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::size_t changes = std::strtoull(argv[4], nullptr, 10);
        std::mt19937_64 rng(argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 99);
        // Change digits inside "N.NNNNNN" values: same length, so the layout stays valid.
        std::size_t done = 0;
        for (std::size_t tries = 0; done < changes && tries < changes * 1000; ++tries) {
            std::size_t at = 200 + rng() % (b.size() - 300);
            if (b[at] == '.' && b[at - 1] >= '0' && b[at - 1] <= '9' && b[at + 1] >= '0' &&
                b[at + 1] <= '9') {
                b[at + 1] = static_cast<char>('0' + (b[at + 1] - '0' + 1) % 10);
                ++done;
            }
        }
        if (b.size() >= 8 && b[4] == 4) {
            b.resize(b.size() - 4);
            std::uint32_t c = crc32(b);
            for (int i = 0; i < 4; ++i) b += static_cast<char>((c >> (8 * i)) & 0xFF);
        }
        write(argv[3], b);
        std::printf("%s: %zu values changed\n", argv[3], done);
        return 0;
    }
    std::fprintf(stderr, "usage: gen_saves big OUT VERSION [ENTITIES] [SEED] | small DIR COUNT "
                         "[SEED] [VERSION] [ENTITIES] | edit IN OUT CHANGES [SEED]\n");
    return 2;
}
