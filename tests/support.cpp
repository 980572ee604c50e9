// Test helpers.
#include "support.hpp"

#include <algorithm>
#include <vector>

#include "sparksave/crc32.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <doctest/doctest.h>

namespace sparksave::test {

namespace {

struct Encoder {
    std::string out;
    void u16(std::size_t v) {
        out += static_cast<char>(v & 0xFF), out += static_cast<char>((v >> 8) & 0xFF);
    }
    void u32(std::uint64_t v) {
        for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
    }
    void str(const std::string& s) {
        u16(s.size());
        out += s;
    }
};

} // namespace

// A random save of `version`, valid by construction, with the corners the format allows:
// empty and maximum-length strings, non-UTF-8 bytes, unordered keys, a hierarchy, and for
// v1/v2 trailing bytes or no custom-state count.
std::string random_spark_save(std::mt19937& rng, std::uint32_t version) {
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    auto random_string = [&](std::size_t max_len) {
        std::size_t len;
        switch (pick(8)) {
        case 0:
            len = 0;
            break;
        case 1:
            len = max_len;
            break;
        default:
            len = pick(12);
        }
        std::string s(len, 'a');
        bool binary = pick(4) == 0;
        for (auto& c : s) c = binary ? static_cast<char>(rng()) : static_cast<char>('a' + pick(26));
        return s;
    };
    const std::size_t name_max = version < 3 ? 4096 : 65535;
    Encoder e;
    e.out = "SPRK";
    e.u32(version);
    std::string m = "Name\nScene\nClass\n";
    if (version >= 2) m += "shot.png\n";
    m += "1700000000\n42.5\n75\n25\n1 2 3\n4\n1\n";
    e.u32(m.size());
    e.out += m;
    const std::size_t entities = pick(6);
    e.u32(entities);
    std::vector<bool> transform(entities);
    for (auto&& t : transform) t = pick(2) == 0;
    for (std::size_t i = 0; i < entities; ++i) {
        e.str(random_string(pick(50) == 0 ? name_max : 16));
        std::vector<std::string> types;
        if (transform[i]) types.push_back("Transform");
        for (std::size_t c = pick(4); c > 0; --c) types.push_back("Comp" + std::to_string(c));
        e.u16(types.size());
        for (const auto& type : types) {
            e.str(type);
            std::vector<std::pair<std::string, std::string>> props;
            std::size_t n = pick(6);
            for (std::size_t k = 0; k < n; ++k)
                props.emplace_back("k" + std::to_string(k) + random_string(4),
                                   random_string(pick(40) == 0 ? 65535 : 20));
            if (type == "Transform" && version >= 3 && pick(2) == 0) {
                std::vector<std::size_t> parents;
                for (std::size_t j = 0; j < entities; ++j)
                    if (j != i && transform[j]) parents.push_back(j);
                std::string parent = parents.empty() || pick(3) == 0
                                         ? "-1"
                                         : std::to_string(parents[pick(parents.size())]);
                props.emplace_back("parent", parent);
            }
            std::shuffle(props.begin(), props.end(), rng);
            e.u16(props.size());
            for (const auto& [k, v] : props) {
                e.str(k);
                e.str(v);
            }
        }
    }
    const bool absent = version < 3 && pick(4) == 0;
    if (!absent) {
        std::size_t pairs = pick(5);
        e.u32(pairs);
        for (std::size_t k = 0; k < pairs; ++k) {
            e.str("ck" + std::to_string(k) + random_string(3));
            e.str(random_string(10));
        }
        if (version < 3 && pick(4) == 0) e.out += random_string(5) + "x";
    }
    if (version == 4) e.u32(crc32(e.out));
    return e.out;
}

NodeId at(const Document& doc, const char* path) {
    auto p = NodePath::parse(path);
    REQUIRE_MESSAGE(p, path);
    auto n = resolve(doc, *p);
    REQUIRE_MESSAGE(n, path);
    return *n;
}

std::string value_at(const Document& doc, const char* path) {
    return std::string(doc.value(at(doc, path)));
}

std::vector<std::string> note_texts(const Notes& notes) {
    std::vector<std::string> out;
    for (const MigrationNote& n : notes) out.push_back(n.describe());
    return out;
}

} // namespace sparksave::test
