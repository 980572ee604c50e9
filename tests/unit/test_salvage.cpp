// Salvage (sparksave/salvage.hpp): known damage of each kind the issue names, then the property
// test over generated saves: every truncation point and thousands of single-byte flips; each
// output verifies (and the engine loads it), the report's regions tile the input, every entity
// entirely before the damage is kept byte for byte, salvage of the output finds nothing to do;
// and the recovery figures (printed).
#include <doctest/doctest.h>

#include "sparksave/crc32.hpp"
#include "sparksave/format.hpp"
#include "sparksave/salvage.hpp"
#include "support.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace sparksave {
// Unity builds put this file beside the other tests: its helpers have a namespace of their own.
namespace salvage_test {
namespace {

using Kind = SalvageRegion::Kind;

const FormatInfo& spark() {
    return format_info(FormatId::spark_save);
}

// A `.spark_save` of its own encoder (formats/README.md §1.1), with where each entity is.
struct Generated {
    std::string bytes;
    std::vector<std::pair<std::size_t, std::size_t>> entities; // [begin, end)
    std::size_t entities_begin = 0, entities_end = 0;
    std::uint32_t version = 0;
};

void u16(std::string& o, std::size_t v) {
    o += static_cast<char>(v & 0xff);
    o += static_cast<char>((v >> 8) & 0xff);
}
void u32(std::string& o, std::size_t v) {
    u16(o, v & 0xffff);
    u16(o, (v >> 16) & 0xffff);
}
void str(std::string& o, std::string_view s) {
    u16(o, s.size());
    o += s;
}

std::string metadata(std::uint32_t version) {
    std::string m = "Salvage test\nArena\nScout\n";
    if (version >= 2) m += "shots/a.png\n";
    return m + "1700000000\n3725.5\n75\n25\n1 2 3\n4\n1\n";
}

// `n` entities with printable names; a Transform whose parent (v3+) is an earlier entity with a
// Transform, or -1; a few more components; a custom state.
Generated generate(std::mt19937& rng, std::uint32_t version, std::size_t n) {
    auto pick = [&](std::size_t k) { return static_cast<std::size_t>(rng() % k); };
    Generated g;
    g.version = version;
    std::string& o = g.bytes;
    o = "SPRK";
    u32(o, version);
    const std::string m = metadata(version);
    u32(o, m.size());
    o += m;
    u32(o, n);
    g.entities_begin = o.size();
    std::vector<std::size_t> with_transform;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t begin = o.size();
        str(o, fmt::format("Entity_{}_{}", i, std::string(pick(6), 'x')));
        const bool transform = pick(3) != 0;
        const std::size_t more = pick(3);
        u16(o, (transform ? 1 : 0) + more);
        if (transform) {
            str(o, "Transform");
            const bool parent = version >= 3 && pick(2) == 0;
            u16(o, 9 + (parent ? 1 : 0));
            for (const char* k : {"px", "py", "pz", "rx", "ry", "rz", "sx", "sy", "sz"}) {
                str(o, k);
                str(o, fmt::format("{}.{:06}", pick(100), pick(1000000)));
            }
            if (parent) {
                str(o, "parent");
                str(o, with_transform.empty() || pick(3) == 0
                           ? std::string("-1")
                           : std::to_string(with_transform[pick(with_transform.size())]));
            }
        }
        for (std::size_t c = 0; c < more; ++c) {
            str(o, c == 0 ? "HealthComponent" : "TagComponent");
            const std::size_t props = 1 + pick(3);
            u16(o, props);
            for (std::size_t p = 0; p < props; ++p) {
                str(o, fmt::format("key{}", p));
                str(o, std::string(pick(12), static_cast<char>('a' + pick(26))));
            }
        }
        if (transform) with_transform.push_back(i);
        g.entities.emplace_back(begin, o.size());
    }
    g.entities_end = o.size();
    const std::size_t pairs = 1 + pick(4);
    u32(o, pairs);
    for (std::size_t p = 0; p < pairs; ++p) {
        str(o, fmt::format("mod.key{}", p));
        str(o, std::to_string(pick(1000)));
    }
    if (version == 4) u32(o, crc32(o));
    return g;
}

// The entities of a valid output: [begin, end) of each (a walk of §1.1; the file verified).
std::vector<std::pair<std::size_t, std::size_t>> entity_spans(std::string_view f) {
    auto at16 = [&](std::size_t p) {
        return static_cast<std::size_t>(static_cast<unsigned char>(f[p]) |
                                        (static_cast<unsigned char>(f[p + 1]) << 8));
    };
    auto at32 = [&](std::size_t p) { return at16(p) | (at16(p + 2) << 16); };
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t p = 12 + at32(8);
    const std::size_t n = at32(p);
    p += 4;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t begin = p;
        p += 2 + at16(p);
        const std::size_t components = at16(p);
        p += 2;
        for (std::size_t c = 0; c < components; ++c) {
            p += 2 + at16(p);
            const std::size_t props = at16(p);
            p += 2;
            for (std::size_t k = 0; k < props * 2; ++k) p += 2 + at16(p);
        }
        out.emplace_back(begin, p);
    }
    return out;
}

// Prints a property test's recovery figures (the closing note quotes them) and checks
// the flip target: at least 95 % of the items outside the damaged record recovered.
void recovery_figures(const char* format, const char* items, std::uint64_t cut_complete,
                      std::uint64_t cut_recovered, std::uint64_t outside, std::uint64_t recovered) {
    std::printf("salvage recovery, %s: truncation %llu/%llu complete %s; flips: %llu/%llu %s "
                "outside the damaged record (%.2f %%)\n",
                format, static_cast<unsigned long long>(cut_recovered),
                static_cast<unsigned long long>(cut_complete), items,
                static_cast<unsigned long long>(recovered),
                static_cast<unsigned long long>(outside), items,
                100.0 * static_cast<double>(recovered) / static_cast<double>(outside));
    CHECK(cut_recovered == cut_complete);
    CHECK(static_cast<double>(recovered) >= 0.95 * static_cast<double>(outside));
}

// The regions tile the input in order and the byte totals add up; false when the output was
// withheld (and is empty).
bool regions_tile(std::string_view input, const Salvaged& s) {
    std::uint64_t at = 0, kept = 0, lost = 0;
    for (const SalvageRegion& r : s.regions) {
        REQUIRE_MESSAGE(r.offset == at,
                        fmt::format("region at {:#x}, expected {:#x}", r.offset, at));
        if (r.length == 0) REQUIRE(r.kind == Kind::rebuilt);
        at += r.length;
        (r.kind == Kind::lost ? lost : kept) += r.length;
    }
    REQUIRE(at == input.size());
    REQUIRE(s.totals.bytes.kept == kept);
    REQUIRE(s.totals.bytes.lost == lost);
    if (s.withheld) {
        REQUIRE(s.bytes.empty());
        return false;
    }
    return true;
}

// The checks every salvage must pass: the regions tile the input in order, the totals add up,
// the output (unless withheld) verifies with no error and, at v3/v4, the engine loads it.
void check_salvaged(std::string_view input, const Salvaged& s) {
    if (!regions_tile(input, s)) return;
    const Summary check = spark().summarize(s.bytes);
    const Error* e = check.findings.first_error();
    REQUIRE_MESSAGE(e == nullptr, (e ? e->describe() : std::string()));
    if (s.version >= 3) REQUIRE(check.engine_loads);
    REQUIRE(check.version == s.version);
}

// Salvage of an output: nothing to do, the same bytes.
void check_idempotent(const Salvaged& s) {
    if (s.withheld) return;
    auto again = salvage(spark(), s.bytes);
    REQUIRE(again.has_value());
    REQUIRE_MESSAGE(again->exit_status() == 0,
                    (salvage_report_text(s, "first") + salvage_report_text(*again, "again")));
    REQUIRE_FALSE(again->changed_anything());
    REQUIRE(again->bytes == s.bytes);
}

// The input entities kept byte for byte: each whose bytes are one kept region `entities[k]`, and
// the output's entity k holds exactly those bytes.
std::vector<bool> kept_exactly(const Generated& g, std::string_view input, const Salvaged& s) {
    std::vector<bool> kept(g.entities.size(), false);
    if (s.withheld || s.version != g.version) return kept;
    const auto out = entity_spans(s.bytes);
    std::size_t r = 0;
    for (std::size_t i = 0; i < g.entities.size(); ++i) {
        const auto [b, e] = g.entities[i];
        while (r < s.regions.size() && s.regions[r].offset < b) ++r;
        if (r == s.regions.size()) break;
        const SalvageRegion& x = s.regions[r];
        if (x.kind != Kind::kept || x.offset != b || x.length != e - b) continue;
        if (x.path.rfind("entities[", 0) != 0) continue;
        const std::size_t k = std::stoul(x.path.substr(9));
        REQUIRE(k < out.size());
        const std::string_view got =
            std::string_view(s.bytes).substr(out[k].first, out[k].second - out[k].first);
        REQUIRE_MESSAGE(
            got == input.substr(b, e - b),
            fmt::format("entity {} kept as {}\n{}", i, k, salvage_report_text(s, "input")));
        kept[i] = true;
    }
    return kept;
}

TEST_CASE("salvage: a valid file is written as it is, and nothing is lost") {
    for (const auto& dir : {test::testdata() / "spark_save" / "valid",
                            test::testdata() / "spark_save" / "real" / "valid"}) {
        for (const auto& path : test::files_in(dir, ".spark_save")) {
            CAPTURE(path.string());
            const std::string bytes = test::read_bytes(path);
            auto s = salvage(spark(), bytes);
            REQUIRE(s.has_value());
            check_salvaged(bytes, *s);
            if (path.filename() == "v2-truncated-pair.spark_save") {
                // Its last pair is cut short: the v2 reader ignores it; salvage reports it lost.
                CHECK(s->exit_status() == 1);
                CHECK(s->totals.bytes.lost == 4);
                continue;
            }
            CHECK(s->exit_status() == 0);
            CHECK_FALSE(s->changed_anything());
            CHECK(s->bytes == bytes);
        }
    }
}

TEST_CASE("salvage: truncation keeps every complete entity and rebuilds the custom state") {
    std::mt19937 rng(7);
    const Generated g = generate(rng, 3, 10);
    const std::size_t cut = g.entities[6].first + 5; // inside entity 6
    const std::string bytes = g.bytes.substr(0, cut);
    auto s = salvage(spark(), bytes);
    REQUIRE(s.has_value());
    check_salvaged(bytes, *s);
    check_idempotent(*s);
    CHECK(s->exit_status() == 1);
    CHECK(s->totals.entities.kept == 6);
    CHECK(s->totals.entities.lost == 4);
    const auto kept = kept_exactly(g, bytes, *s);
    for (std::size_t i = 0; i < 6; ++i) CHECK(kept[i]);
    // The entity count and the custom-state count are rebuilt; the cut entity is lost.
    bool count = false, custom = false, lost = false;
    for (const SalvageRegion& r : s->regions) {
        if (r.kind == Kind::rebuilt && r.path == "entities") count = r.value == "6";
        if (r.kind == Kind::rebuilt && r.path == "customState")
            custom = r.value == "0" && r.length == 0;
        if (r.kind == Kind::lost) lost = r.offset == g.entities[6].first && r.length == 5;
    }
    CHECK(count);
    CHECK(custom);
    CHECK(lost);
}

TEST_CASE("salvage: a wrong length resynchronises at the next entity") {
    std::mt19937 rng(11);
    Generated g = generate(rng, 3, 12);
    // Entity 4's name length made huge: its bytes no longer read.
    g.bytes[g.entities[4].first] = '\xff';
    g.bytes[g.entities[4].first + 1] = '\x7f';
    auto s = salvage(spark(), g.bytes);
    REQUIRE(s.has_value());
    check_salvaged(g.bytes, *s);
    check_idempotent(*s);
    CHECK(s->exit_status() == 1);
    const auto kept = kept_exactly(g, g.bytes, *s);
    for (std::size_t i = 0; i < 12; ++i) {
        CAPTURE(i);
        // Entities after the damage may have a parent rebuilt (an index that shifted).
        if (i < 4) CHECK(kept[i]);
        if (i == 4) CHECK_FALSE(kept[i]);
    }
    CHECK(s->totals.entities.kept == 11);
    CHECK(s->totals.entities.lost == 1);
}

TEST_CASE("salvage: a wrong entity count is rebuilt") {
    std::mt19937 rng(3);
    for (std::size_t wrong : {0u, 5u, 9u, 200u}) {
        CAPTURE(wrong);
        Generated g = generate(rng, 4, 8);
        const std::size_t at = g.entities_begin - 4;
        g.bytes[at] = static_cast<char>(wrong);
        g.bytes.resize(g.bytes.size() - 4);
        u32(g.bytes, crc32(g.bytes));
        auto s = salvage(spark(), g.bytes);
        REQUIRE(s.has_value());
        check_salvaged(g.bytes, *s);
        check_idempotent(*s);
        CHECK(s->totals.entities.kept == 8);
        CHECK(s->exit_status() == 0);
    }
}

TEST_CASE("salvage: a damaged v4 version field is rebuilt (formats/README.md 1.5)") {
    std::mt19937 rng(5);
    Generated g = generate(rng, 4, 5);
    for (char v : {'\x02', '\x03', '\x09'}) {
        std::string bytes = g.bytes;
        bytes[4] = v;
        auto s = salvage(spark(), bytes);
        REQUIRE(s.has_value());
        check_salvaged(bytes, *s);
        CHECK(s->version == 4);
        CHECK(s->exit_status() == 0);
        CHECK(s->regions[1].kind == Kind::rebuilt);
        CHECK(s->regions[1].path == "version");
        CHECK(s->bytes == g.bytes);
    }
}

TEST_CASE("salvage: a version field damaged beyond the checksum test is guessed from the layout") {
    std::mt19937 rng(8);
    for (std::uint32_t version : {1u, 3u}) {
        Generated g = generate(rng, version, 5);
        std::string bytes = g.bytes;
        bytes[5] = '\x44';
        auto s = salvage(spark(), bytes);
        REQUIRE(s.has_value());
        check_salvaged(bytes, *s);
        CHECK(s->version == version);
        CHECK(s->bytes == g.bytes);
    }
}

TEST_CASE("salvage: a v1 file whose version field says 2 or 3 is read as v1") {
    std::mt19937 rng(10);
    Generated g = generate(rng, 1, 4);
    for (char v : {'\x02', '\x03'}) {
        std::string bytes = g.bytes;
        bytes[4] = v;
        auto s = salvage(spark(), bytes);
        REQUIRE(s.has_value());
        check_salvaged(bytes, *s);
        CHECK(s->version == 1);
        CHECK(s->regions[1].kind == Kind::rebuilt);
        CHECK(s->bytes == g.bytes);
    }
}

TEST_CASE("salvage: unreadable metadata numbers are rebuilt as 0") {
    std::mt19937 rng(9);
    Generated g = generate(rng, 3, 3);
    const std::size_t at = g.bytes.find("3725.5");
    g.bytes[at] = 'x'; // playTime unreadable
    auto s = salvage(spark(), g.bytes);
    REQUIRE(s.has_value());
    check_salvaged(g.bytes, *s);
    check_idempotent(*s);
    CHECK(s->exit_status() == 0);
    bool rebuilt = false;
    for (const SalvageRegion& r : s->regions)
        if (r.kind == Kind::rebuilt && r.path == "metadata.playTime") rebuilt = r.value == "0";
    CHECK(rebuilt);
    CHECK(s->totals.entities.kept == 3);
    CHECK(s->bytes.find("\n0\n75\n") != std::string::npos);
}

TEST_CASE("salvage: a checksum mismatch with intact structure needs accept_checksum") {
    std::mt19937 rng(13);
    Generated g = generate(rng, 4, 4);
    std::string bytes = g.bytes;
    bytes[g.entities[1].first + 3] ^= 0x01; // a name byte: the structure still reads
    auto s = salvage(spark(), bytes);
    REQUIRE(s.has_value());
    check_salvaged(bytes, *s);
    CHECK(s->unverified);
    CHECK(s->withheld);
    CHECK(s->bytes.empty());
    CHECK(s->exit_status() == 1);
    SalvageOptions accept;
    accept.accept_checksum = true;
    auto a = salvage(spark(), bytes, accept);
    REQUIRE(a.has_value());
    check_salvaged(bytes, *a);
    check_idempotent(*a);
    CHECK(a->unverified);
    CHECK_FALSE(a->withheld);
    CHECK(a->exit_status() == 0);
    CHECK(a->bytes.substr(0, bytes.size() - 4) == bytes.substr(0, bytes.size() - 4));
}

TEST_CASE("salvage: a v1 or v2 file is salvaged and migrated in one step") {
    std::mt19937 rng(17);
    for (std::uint32_t version : {1u, 2u}) {
        Generated g = generate(rng, version, 6);
        const std::string bytes = g.bytes.substr(0, g.entities[4].first + 3);
        SalvageOptions to4;
        to4.to = 4;
        auto s = salvage(spark(), bytes, to4);
        REQUIRE(s.has_value());
        check_salvaged(bytes, *s);
        check_idempotent(*s);
        CHECK(s->from == version);
        CHECK(s->version == 4);
        CHECK(s->totals.entities.kept == 4);
        CHECK_FALSE(s->notes.empty());
        // A downgrade or an unknown version is refused.
        SalvageOptions bad;
        bad.to = 9;
        CHECK_FALSE(salvage(spark(), bytes, bad).has_value());
    }
    std::mt19937 rng4(1);
    SalvageOptions down;
    down.to = 3;
    auto refused = salvage(spark(), generate(rng4, 4, 2).bytes, down);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == ErrorCode::bad_usage);
}

TEST_CASE("salvage: what the engine would refuse is dropped or rebuilt") {
    for (const char* name : {"v4-duplicate-component", "v4-duplicate-key", "v4-name-component",
                             "v3-duplicate-custom-key", "v4-parent-self", "v4-parent-out-of-range",
                             "v4-parent-not-a-number", "v3-metadata-crlf", "v4-metadata-nan"}) {
        CAPTURE(name);
        const std::string bytes = test::read_bytes(test::testdata() / "spark_save" / "invalid" /
                                                   (std::string(name) + ".spark_save"));
        auto s = salvage(spark(), bytes);
        REQUIRE(s.has_value());
        check_salvaged(bytes, *s);
        check_idempotent(*s);
    }
}

TEST_CASE("salvage: nothing recoverable is an error, with a report") {
    for (std::string bytes :
         {std::string(), std::string("SPRK"), std::string("XXXX\3\0\0\0\0\0\0\0", 12),
          std::string("SPRK\3\0\0\0\1\0\0", 11)}) {
        CAPTURE(bytes.size());
        auto s = salvage(spark(), bytes);
        REQUIRE_FALSE(s.has_value());
        // Its report: the whole input one lost region, the error its reason, no output, exit 2.
        auto none = nothing_recovered(FormatId::spark_save, bytes, s.error());
        REQUIRE(none.has_value());
        CHECK_FALSE(none->recovered);
        CHECK_FALSE(none->has_output());
        CHECK(none->exit_status() == 2);
        REQUIRE(none->regions.size() == 1);
        CHECK(none->regions[0].kind == SalvageRegion::Kind::lost);
        CHECK(none->regions[0].length == bytes.size());
        CHECK(none->regions[0].reason == s.error().describe());
        CHECK(none->totals.bytes.lost == bytes.size());
        const std::string json = salvage_report_json(*none, "x", bytes, "out");
        CHECK(json.find("\"recovered\": false") != std::string::npos);
        CHECK(json.find("\"output\": null") != std::string::npos);
        CHECK(salvage_report_text(*none, "x").find("nothing could be recovered") !=
              std::string::npos);
    }
    // Failures that are not the input's have no such report.
    CHECK_FALSE(nothing_recovered(FormatId::spark_save, "", make_error(ErrorCode::bad_usage, "u")));
    CHECK_FALSE(nothing_recovered(FormatId::spark_save, "", make_error(ErrorCode::internal, "i")));
}

TEST_CASE("salvage: hostile data after the header is lost, and the rest still verifies") {
    std::mt19937 rng(41);
    for (char fill : {'A', '\0', '\xff', '\x01'}) {
        CAPTURE(static_cast<int>(fill));
        Generated g = generate(rng, 3, 2);
        std::string bytes = g.bytes.substr(0, g.entities_end);
        bytes += std::string(1 << 20, fill);
        auto s = salvage(spark(), bytes);
        REQUIRE(s.has_value());
        check_salvaged(bytes, *s);
        CHECK(s->totals.entities.kept >= 2);
        CHECK(s->exit_status() == 1);
    }
}

TEST_CASE("salvage: the reports") {
    std::mt19937 rng(21);
    Generated g = generate(rng, 3, 3);
    const std::string bytes = g.bytes.substr(0, g.entities[2].first + 2);
    auto s = salvage(spark(), bytes);
    REQUIRE(s.has_value());
    const std::string text = salvage_report_text(*s, "damaged.spark_save");
    CHECK(text.find("salvage damaged.spark_save: spark_save v3 -> v3") == 0);
    CHECK(text.find("lost     at offset") != std::string::npos);
    CHECK(text.find("entities 2 kept, 1 lost") != std::string::npos);
    const std::string json = salvage_report_json(*s, "damaged.spark_save", bytes, "out.spark_save");
    CHECK(json.find("\"schemaVersion\": 1") != std::string::npos);
    CHECK(json.find(fmt::format(
              "\"hex\": \"{:02x}{:02x}\"", static_cast<unsigned char>(bytes[bytes.size() - 2]),
              static_cast<unsigned char>(bytes[bytes.size() - 1]))) != std::string::npos);
}

// The property test. Generated saves of each version (v1/v2 salvaged with --to 4), every
// truncation point and random single-byte flips.
TEST_CASE("salvage property: every truncation point and random byte flips") {
    std::mt19937 rng(2024);
    std::uint64_t cut_complete = 0, cut_recovered = 0;
    std::uint64_t flip_outside = 0, flip_recovered = 0, flips = 0;
    for (std::uint32_t version : {1u, 2u, 3u, 4u}) {
        for (int save = 0; save < 2; ++save) {
            const Generated g = generate(rng, version, 20 + rng() % 10);
            SalvageOptions options;
            if (version < 3) options.to = 4;
            options.accept_checksum = true;
            // Every truncation point.
            for (std::size_t cut = 0; cut < g.bytes.size(); ++cut) {
                CAPTURE(version);
                CAPTURE(cut);
                const std::string bytes = g.bytes.substr(0, cut);
                auto s = salvage(spark(), bytes, options);
                if (!s) {
                    // Only a cut before the metadata's first line can leave nothing.
                    REQUIRE(cut < 12 + 14);
                    continue;
                }
                check_salvaged(bytes, *s);
                if (cut % 7 == 0) check_idempotent(*s);
                SalvageOptions same = options;
                same.to.reset();
                auto own = salvage(spark(), bytes, same);
                REQUIRE(own.has_value());
                const auto kept = kept_exactly(g, bytes, *own);
                for (std::size_t i = 0; i < g.entities.size(); ++i) {
                    if (g.entities[i].second > cut) continue;
                    ++cut_complete;
                    if (kept[i]) ++cut_recovered;
                    REQUIRE_MESSAGE(kept[i], fmt::format("entity {} before the cut not kept", i));
                }
            }
            // Random single-byte flips.
            for (int f = 0; f < 800; ++f) {
                std::string bytes = g.bytes;
                const std::size_t at = rng() % bytes.size();
                bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1 + rng() % 255));
                CAPTURE(version);
                CAPTURE(at);
                auto s = salvage(spark(), bytes, options);
                REQUIRE(s.has_value());
                check_salvaged(bytes, *s);
                if (f % 5 == 0) check_idempotent(*s);
                ++flips;
                SalvageOptions same = options;
                same.to.reset();
                auto own = salvage(spark(), bytes, same);
                REQUIRE(own.has_value());
                const auto kept = kept_exactly(g, bytes, *own);
                for (std::size_t i = 0; i < g.entities.size(); ++i) {
                    const auto [b, e] = g.entities[i];
                    if (at >= b && at < e) continue; // the damaged record
                    ++flip_outside;
                    if (kept[i]) ++flip_recovered;
                    // An entity entirely before the damage is kept byte for byte (a flip in the
                    // header or metadata is before every entity: those are not counted here).
                    if (e <= at && at >= g.entities_begin)
                        REQUIRE_MESSAGE(kept[i], fmt::format("entity {} before the flip lost", i));
                }
            }
        }
    }
    const double cut_rate =
        100.0 * static_cast<double>(cut_recovered) / static_cast<double>(cut_complete);
    const double flip_rate =
        100.0 * static_cast<double>(flip_recovered) / static_cast<double>(flip_outside);
    std::printf(
        "salvage recovery: truncation %llu/%llu complete entities before the cut (%.2f %%); "
        "%llu single-byte flips: %llu/%llu entities outside the damaged record (%.2f %%)\n",
        static_cast<unsigned long long>(cut_recovered),
        static_cast<unsigned long long>(cut_complete), cut_rate,
        static_cast<unsigned long long>(flips), static_cast<unsigned long long>(flip_recovered),
        static_cast<unsigned long long>(flip_outside), flip_rate);
    CHECK(cut_rate == 100.0);
    CHECK(flip_rate >= 95.0);
}

// The support generator's saves (tests/support.hpp random_spark_save: binary names, strings of
// the maximum length, parents that point forward, v1/v2 trailing bytes or no custom-state count):
// a truncation point in every few and random flips. An entity entirely before the damage is kept
// byte for byte, or only its Transform parent is rebuilt (the parent was lost, or moved).
TEST_CASE("salvage property: the corner-case saves of random_spark_save") {
    std::mt19937 rng(77);
    for (std::uint32_t version : {1u, 2u, 3u, 4u}) {
        for (int save = 0; save < 6; ++save) {
            Generated g;
            g.version = version;
            g.bytes = test::random_spark_save(rng, version);
            g.entities = entity_spans(g.bytes);
            SalvageOptions accept;
            accept.accept_checksum = true;
            auto before_damage = [&](std::string_view bytes, const Salvaged& s, std::size_t at) {
                const auto kept = kept_exactly(g, bytes, s);
                for (std::size_t i = 0; i < g.entities.size(); ++i) {
                    const auto [b, e] = g.entities[i];
                    if (e > at || kept[i]) continue;
                    bool parent = false;
                    for (const SalvageRegion& r : s.regions)
                        parent |= r.kind == Kind::rebuilt && r.offset >= b && r.offset < e &&
                                  r.path.ends_with("Transform.parent");
                    REQUIRE_MESSAGE(
                        parent, fmt::format("entity {} [{:#x}, {:#x}) before the damage lost\n{}",
                                            i, b, e, salvage_report_text(s, "input")));
                }
            };
            const std::size_t step = std::max<std::size_t>(1, g.bytes.size() / 300);
            for (std::size_t cut = 0; cut < g.bytes.size(); cut += step) {
                CAPTURE(version);
                CAPTURE(cut);
                const std::string bytes = g.bytes.substr(0, cut);
                auto s = salvage(spark(), bytes, accept);
                if (!s) continue;
                check_salvaged(bytes, *s);
                check_idempotent(*s);
                before_damage(bytes, *s, cut);
            }
            for (int f = 0; f < 150; ++f) {
                std::string bytes = g.bytes;
                const std::size_t at = rng() % bytes.size();
                bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1 + rng() % 255));
                CAPTURE(version);
                CAPTURE(at);
                auto s = salvage(spark(), bytes, accept);
                if (!s) {
                    REQUIRE(at < 4); // only a magic no longer recognisable
                    continue;
                }
                check_salvaged(bytes, *s);
                check_idempotent(*s);
                if (!g.entities.empty() && at >= g.entities.front().first)
                    before_damage(bytes, *s, at);
            }
        }
    }
}

// spark-kv (formats/README.md §3): a store of records, v2 (escaped) or legacy.
struct Store {
    std::string bytes;
    std::vector<std::pair<std::size_t, std::size_t>> lines; // the records' lines, [begin, end)
};

Store generate_store(std::mt19937& rng, std::uint32_t version, std::size_t n) {
    Store st;
    if (version == 2) st.bytes = "#!spark-kv-v2\n";
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t begin = st.bytes.size();
        std::string value = fmt::format("name{}|{}|{}|{}", i, rng() % 1000, rng() % 100, rng() % 7);
        if (version == 2 && rng() % 4 == 0) value += "\\tab\\n"; // escaped TAB and LF
        st.bytes += fmt::format("character_{}\t{}\n", i, value);
        st.lines.emplace_back(begin, st.bytes.size());
    }
    return st;
}

// The checks of a text format's salvage: the regions tile the input, each with its line, the
// output verifies, the engine loads it, and a salvage of it finds nothing to do.
void check_store(std::string_view input, const Salvaged& s,
                 const FormatInfo& format = format_info(FormatId::spark_kv)) {
    for (const SalvageRegion& r : s.regions) REQUIRE(r.line >= 1);
    if (!regions_tile(input, s)) return;
    const Summary check = format.summarize(s.bytes);
    const Error* e = check.findings.first_error();
    REQUIRE_MESSAGE(e == nullptr, (e ? e->describe() : std::string()));
    REQUIRE_MESSAGE(check.engine_loads, check.engine_note);
    auto again = salvage(format, s.bytes);
    REQUIRE(again.has_value());
    REQUIRE_MESSAGE(!again->changed_anything(), salvage_report_text(*again, "again"));
    REQUIRE(again->bytes == s.bytes);
}

TEST_CASE("salvage, spark-kv: each line the engine refuses is lost, the rest kept") {
    const FormatInfo& kv = format_info(FormatId::spark_kv);
    const std::string bytes = "#!spark-kv-v2\na\t1\nno tab here\nb\t\\q\na\t2\nc\t3\nd\t4";
    auto s = salvage(kv, bytes);
    REQUIRE(s.has_value());
    check_store(bytes, *s);
    CHECK(s->bytes == "#!spark-kv-v2\na\t1\nc\t3\n");
    CHECK(s->exit_status() == 1);
    CHECK(s->totals.entities.kept == 2);
    CHECK(s->totals.entities.lost == 4);
    const std::string text = salvage_report_text(*s, "store.kv");
    CHECK(text.find("lost     at line 3:1 (offset 0x12), 12 bytes") != std::string::npos);
    // A damaged marker is rebuilt.
    const std::string marker = "#!spXrk-kv-v2\na\t1\n";
    auto m = salvage(kv, marker);
    REQUIRE(m.has_value());
    check_store(marker, *m);
    CHECK(m->bytes == "#!spark-kv-v2\na\t1\n");
    CHECK(m->exit_status() == 0);
}

TEST_CASE("salvage, spark-kv: the corpus: a store the engine loads is written as it is") {
    const FormatInfo& kv = format_info(FormatId::spark_kv);
    for (const char* kind : {"valid", "invalid"}) {
        for (const auto& path : test::corpus_files(test::testdata() / "spark_kv", kind, ".kv")) {
            CAPTURE(path.string());
            const std::string bytes = test::read_bytes(path);
            auto s = salvage(kv, bytes);
            REQUIRE(s.has_value());
            check_store(bytes, *s);
            if (kv.summarize(bytes).engine_loads) {
                CHECK(s->bytes == bytes);
                CHECK(s->exit_status() == 0);
            }
        }
    }
}

// The figures of a property test.
struct Figures {
    std::uint64_t cut_complete = 0, cut_recovered = 0, outside = 0, recovered = 0;
};

// The property test of a text format, whose records are whole lines (`st.lines`): every
// truncation point and `flips` random byte flips; each salvage passes check_store, every record
// entirely before the damage (after the first `header` bytes) is kept byte for byte.
void line_property(const FormatInfo& format, const Store& st, std::mt19937& rng, int flips,
                   std::size_t header, Figures& fig) {
    auto kept_records = [&](const Salvaged& s, std::string_view input) {
        std::vector<bool> kept(st.lines.size(), false);
        for (const SalvageRegion& r : s.regions)
            for (std::size_t i = 0; i < st.lines.size(); ++i)
                if (r.kind == Kind::kept && r.offset == st.lines[i].first &&
                    r.length == st.lines[i].second - st.lines[i].first &&
                    s.bytes.find(input.substr(r.offset, r.length)) != std::string::npos)
                    kept[i] = true;
        return kept;
    };
    for (std::size_t cut = 0; cut <= st.bytes.size(); ++cut) {
        CAPTURE(cut);
        const std::string bytes = st.bytes.substr(0, cut);
        auto s = salvage(format, bytes);
        REQUIRE(s.has_value());
        check_store(bytes, *s, format);
        const auto kept = kept_records(*s, bytes);
        for (std::size_t i = 0; i < st.lines.size(); ++i) {
            if (st.lines[i].second > cut) continue;
            ++fig.cut_complete;
            REQUIRE(kept[i]);
            ++fig.cut_recovered;
        }
    }
    for (int f = 0; f < flips; ++f) {
        std::string bytes = st.bytes;
        const std::size_t at = rng() % bytes.size();
        bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1 + rng() % 255));
        CAPTURE(at);
        auto s = salvage(format, bytes);
        REQUIRE(s.has_value());
        check_store(bytes, *s, format);
        const auto kept = kept_records(*s, bytes);
        for (std::size_t i = 0; i < st.lines.size(); ++i) {
            const auto [b, e] = st.lines[i];
            if (at >= b && at < e) continue;
            // A flipped LF joins two lines: the line after it is the damaged record too; so is
            // the record before a first byte that no longer starts one (a text archive's entry).
            if ((at + 1 == b && st.bytes[at] == '\n') || at == e) continue;
            ++fig.outside;
            if (kept[i]) ++fig.recovered;
            if (e <= at && at >= header)
                REQUIRE_MESSAGE(kept[i], (salvage_report_text(*s, "flipped") + bytes));
        }
    }
}

TEST_CASE("salvage property, spark-kv: every truncation point and random byte flips") {
    std::mt19937 rng(99);
    Figures fig;
    for (std::uint32_t version : {1u, 2u})
        line_property(format_info(FormatId::spark_kv), generate_store(rng, version, 40), rng, 1500,
                      0, fig);
    recovery_figures("spark-kv", "records", fig.cut_complete, fig.cut_recovered, fig.outside,
                     fig.recovered);
}

// GMSV (formats/README.md §5): its own encoder, entities with random GUIDs and JSON data.
Generated generate_gmsv(std::mt19937& rng, std::size_t n) {
    Generated g;
    g.version = 3;
    std::string& o = g.bytes;
    o = "GMSV";
    u16(o, 3);
    u32(o, 0x11223344);
    u32(o, 0x08d9aabb);
    u32(o, n);
    g.entities_begin = o.size();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t begin = o.size();
        for (int b = 0; b < 16; ++b) o += static_cast<char>(rng());
        const std::size_t count = 1 + rng() % 3;
        u16(o, count);
        for (std::size_t c = 0; c < count; ++c) {
            u16(o, c + 1);
            const std::string data = fmt::format("{{\"X\":{},\"Y\":{}}}", rng() % 100, rng() % 100);
            u32(o, data.size());
            o += data;
        }
        g.entities.emplace_back(begin, o.size());
    }
    g.entities_end = o.size();
    u32(o, crc32(std::string_view(o).substr(0x0e)));
    return g;
}

TEST_CASE("salvage: a file cut at a record's end loses what its counts declared after it") {
    std::mt19937 rng(29);
    // .spark_save, cut right after entity 5 of 10: every byte read is kept, yet 4 entities the
    // count declared are gone.
    const Generated g = generate(rng, 4, 10);
    const std::string cut = g.bytes.substr(0, g.entities[6].first);
    auto s = salvage(spark(), cut);
    REQUIRE(s.has_value());
    check_salvaged(cut, *s);
    check_idempotent(*s);
    CHECK(s->totals.bytes.lost == 0);
    CHECK(s->totals.entities.kept == 6);
    CHECK(s->totals.entities.lost == 4);
    CHECK(s->lost_anything());
    CHECK(s->exit_status() == 1);
    CHECK(salvage_report_text(*s, "cut").find("result   something was lost") != std::string::npos);
    // Its custom state cut after the first of three pairs: two pairs lost.
    const Generated v3 = generate(rng, 3, 4);
    std::string pairs = v3.bytes.substr(0, v3.entities_end);
    u32(pairs, 3);
    str(pairs, "checkpoint");
    str(pairs, "7");
    auto p = salvage(spark(), pairs);
    REQUIRE(p.has_value());
    check_salvaged(pairs, *p);
    check_idempotent(*p);
    CHECK(p->totals.bytes.lost == 0);
    CHECK(p->totals.entities.lost == 0);
    CHECK(p->totals.properties.lost == 2);
    CHECK(p->exit_status() == 1);
    // GMSV, cut after entity 1 of 5, the CRC-32 gone with the rest: 3 entities lost.
    const FormatInfo& gmsv = format_info(FormatId::gmsv);
    const Generated m = generate_gmsv(rng, 5);
    const std::string gm = m.bytes.substr(0, m.entities[2].first);
    auto t = salvage(gmsv, gm);
    REQUIRE(t.has_value());
    CHECK(t->totals.entities.kept == 2);
    CHECK(t->totals.entities.lost == 3);
    CHECK(t->exit_status() == 1);
    auto again = salvage(gmsv, t->bytes);
    REQUIRE(again.has_value());
    CHECK(again->exit_status() == 0);
    CHECK(again->bytes == t->bytes);
    // A whole file is not cut: nothing lost.
    auto whole = salvage(gmsv, m.bytes);
    REQUIRE(whole.has_value());
    CHECK(whole->exit_status() == 0);
}

TEST_CASE("salvage property, gmsv: every truncation point and random byte flips") {
    std::mt19937 rng(31);
    const FormatInfo& gm = format_info(FormatId::gmsv);
    std::uint64_t complete = 0, outside = 0, recovered = 0;
    for (int save = 0; save < 3; ++save) {
        const Generated g = generate_gmsv(rng, 25);
        auto kept_exact = [&](const Salvaged& s) {
            std::vector<bool> kept(g.entities.size(), false);
            for (const SalvageRegion& r : s.regions)
                for (std::size_t i = 0; i < g.entities.size(); ++i)
                    if (r.kind == Kind::kept && r.offset == g.entities[i].first &&
                        r.length == g.entities[i].second - g.entities[i].first &&
                        s.bytes.find(g.bytes.substr(r.offset, r.length)) != std::string::npos)
                        kept[i] = true;
            return kept;
        };
        auto check = [&](std::string_view input, const Salvaged& s) {
            std::uint64_t at = 0;
            for (const SalvageRegion& r : s.regions) {
                REQUIRE(r.offset == at);
                at += r.length;
            }
            REQUIRE(at == input.size());
            if (s.withheld) return;
            const Summary sum = gm.summarize(s.bytes);
            const Error* e = sum.findings.first_error();
            REQUIRE_MESSAGE(e == nullptr, (e ? e->describe() : std::string()));
            REQUIRE(sum.engine_loads);
            auto again = salvage(gm, s.bytes);
            REQUIRE(again.has_value());
            REQUIRE_FALSE(again->changed_anything());
            REQUIRE(again->bytes == s.bytes);
        };
        SalvageOptions accept;
        accept.accept_checksum = true;
        for (std::size_t cut = 0; cut < g.bytes.size(); ++cut) {
            CAPTURE(cut);
            const std::string bytes = g.bytes.substr(0, cut);
            auto s = salvage(gm, bytes, accept);
            if (!s) {
                REQUIRE(cut < 0x0e);
                continue;
            }
            check(bytes, *s);
            const auto kept = kept_exact(*s);
            for (std::size_t i = 0; i < g.entities.size(); ++i) {
                if (g.entities[i].second > cut) continue;
                ++complete;
                REQUIRE(kept[i]);
            }
        }
        for (int f = 0; f < 1000; ++f) {
            std::string bytes = g.bytes;
            const std::size_t at = rng() % bytes.size();
            bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1 + rng() % 255));
            CAPTURE(at);
            auto s = salvage(gm, bytes, accept);
            REQUIRE_MESSAGE(s.has_value(), (s ? std::string() : s.error().describe()));
            check(bytes, *s);
            const auto kept = kept_exact(*s);
            for (std::size_t i = 0; i < g.entities.size(); ++i) {
                const auto [b, e] = g.entities[i];
                if (at >= b && at < e) continue;
                ++outside;
                if (kept[i]) ++recovered;
                if (e <= at && at >= g.entities_begin) REQUIRE(kept[i]);
            }
        }
    }
    recovery_figures("gmsv", "entities", complete, complete, outside, recovered);
}

TEST_CASE("salvage, gmsv: the corpus, and a checksum mismatch needs accept_checksum") {
    const FormatInfo& gm = format_info(FormatId::gmsv);
    for (const char* kind : {"valid", "invalid"}) {
        for (const auto& path : test::corpus_files(test::testdata() / "gmsv", kind, ".gmsv")) {
            CAPTURE(path.string());
            const std::string bytes = test::read_bytes(path);
            auto s = salvage(gm, bytes);
            if (!s) continue; // nothing recoverable (a damaged magic, a cut header)
            if (s->withheld) continue;
            CHECK_FALSE(gm.summarize(s->bytes).findings.has_errors());
            if (!gm.summarize(bytes).findings.has_errors()) CHECK(s->bytes == bytes);
        }
    }
    std::mt19937 rng(4);
    Generated g = generate_gmsv(rng, 3);
    g.bytes[g.entities[1].first + 30] ^= 1; // inside a component's data: the structure reads
    auto s = salvage(gm, g.bytes);
    REQUIRE(s.has_value());
    CHECK(s->withheld);
    CHECK(s->unverified);
    CHECK(s->exit_status() == 1);
}

// tess world (formats/README.md §4): its own encoder, a world of 4 x 4 x 4 chunks of 2 x 2 x 1
// tiles and four fields (u8, bool, f32, i16), every chunk (dense) or some in key order (sparse).
struct Tess {
    std::string bytes;
    std::vector<std::pair<std::size_t, std::size_t>> records; // [begin, end)
    std::size_t records_begin = 0;
};

void u64(std::string& o, std::uint64_t v) {
    u32(o, static_cast<std::size_t>(v & 0xffffffffu));
    u32(o, static_cast<std::size_t>(v >> 32));
}

void tess_seal(std::string& o) {
    std::string body_size;
    u64(body_size, o.size() - 121);
    o.replace(12, 8, body_size);
    std::string crc;
    u32(crc,
        crc32_update(crc32(std::string_view(o).substr(0, 20)), std::string_view(o).substr(24)));
    o.replace(20, 4, crc);
}

Tess generate_tess(std::mt19937& rng, bool dense, std::uint32_t version = 2) {
    Tess t;
    std::string& o = t.bytes;
    o = std::string("TESSWLD\0", 8);
    u32(o, version);
    u64(o, 0); // body size, sealed below
    u32(o, 0); // CRC-32
    for (std::uint64_t v : {8, 8, 4}) u64(o, v);
    for (std::uint64_t v : {2, 2, 1}) u64(o, v);
    u32(o, 0x4F525448);
    u32(o, 1);
    u32(o, 1);
    u64(o, 0x1122334455667788ull);
    u32(o, 7);
    for (std::size_t v : {0, 13, 0}) u32(o, v);
    o += static_cast<char>(dense ? 1 : 2);
    const std::pair<int, int> fields[] = {{1, 1}, {4, 1}, {3, 4}, {2, 2}}; // kind, width
    u32(o, 4);
    const std::size_t count_at = o.size();
    u64(o, 0);
    for (std::size_t f = 0; f < 4; ++f) {
        u64(o, 0x100 + f);
        u32(o, 1);
        o += static_cast<char>(fields[f].first);
        u32(o, static_cast<std::size_t>(fields[f].second));
    }
    t.records_begin = o.size();
    std::uint64_t n = 0;
    for (std::uint64_t key = 0; key < 64; ++key) {
        if (!dense && rng() % 2 == 0) continue;
        const std::size_t begin = o.size();
        u64(o, key);
        if (version == 1) o += static_cast<char>(rng() % 2);
        u32(o, rng());
        u32(o, rng() % 100);
        for (const auto& [kind, width] : fields)
            for (int tile = 0; tile < 4; ++tile)
                for (int b = 0; b < width; ++b)
                    o += static_cast<char>(kind == 4 ? rng() % 2 : rng());
        t.records.emplace_back(begin, o.size());
        ++n;
    }
    std::string count;
    u64(count, n);
    o.replace(count_at, 8, count);
    tess_seal(o);
    return t;
}

// The checks of every tess salvage: the regions tile the input, the totals add up, the output
// verifies and (v2) tess loads it, and a salvage of it finds nothing to do.
void check_tess(std::string_view input, const Salvaged& s) {
    const FormatInfo& tw = format_info(FormatId::tess_world);
    if (!regions_tile(input, s)) return;
    const Summary sum = tw.summarize(s.bytes);
    const Error* e = sum.findings.first_error();
    REQUIRE_MESSAGE(e == nullptr, (e ? e->describe() : std::string()));
    REQUIRE(sum.version == s.version);
    if (s.version == 2) REQUIRE_MESSAGE(sum.engine_loads, sum.engine_note);
    auto again = salvage(tw, s.bytes);
    REQUIRE(again.has_value());
    REQUIRE_MESSAGE(again->exit_status() == 0, salvage_report_text(*again, "again"));
    REQUIRE_FALSE(again->changed_anything());
    REQUIRE(again->bytes == s.bytes);
}

// The input records kept byte for byte: a kept region chunks[k] over exactly the record, and the
// output's record k holds its bytes.
std::vector<bool> tess_kept(const Tess& t, std::string_view input, const Salvaged& s) {
    std::vector<bool> kept(t.records.size(), false);
    if (s.withheld) return kept;
    const std::size_t size = t.records.empty() ? 0 : t.records[0].second - t.records[0].first;
    for (const SalvageRegion& r : s.regions) {
        if (r.kind != Kind::kept || r.path.rfind("chunks[", 0) != 0) continue;
        for (std::size_t i = 0; i < t.records.size(); ++i) {
            if (r.offset != t.records[i].first || r.length != size) continue;
            const std::size_t k = std::stoul(r.path.substr(7));
            const std::size_t out = t.records_begin + k * size;
            REQUIRE(out + size <= s.bytes.size());
            REQUIRE(std::string_view(s.bytes).substr(out, size) == input.substr(r.offset, size));
            kept[i] = true;
        }
    }
    return kept;
}

TEST_CASE("salvage, tess world: a record that fails its checks is dropped (sparse) or rebuilt "
          "empty (dense)") {
    std::mt19937 rng(5);
    const FormatInfo& tw = format_info(FormatId::tess_world);
    SUBCASE("sparse: a key out of order is lost, naming the key") {
        Tess t = generate_tess(rng, false);
        REQUIRE(t.records.size() > 4);
        std::string key;
        u64(key, 63);
        t.bytes.replace(t.records[2].first, 8, key); // above the keys after it
        tess_seal(t.bytes);
        auto s = salvage(tw, t.bytes);
        REQUIRE(s.has_value());
        check_tess(t.bytes, *s);
        CHECK(s->exit_status() == 1);
        CHECK(s->totals.entities.lost == 1);
        CHECK(s->totals.entities.kept == t.records.size() - 1);
        bool named = false;
        for (const SalvageRegion& r : s->regions)
            if (r.kind == Kind::lost && r.offset == t.records[2].first)
                named = r.reason.find("chunk key 63") != std::string::npos;
        CHECK(named);
        const auto kept = tess_kept(t, t.bytes, *s);
        for (std::size_t i = 0; i < kept.size(); ++i) CHECK(kept[i] == (i != 2));
    }
    SUBCASE("dense: a bad bool byte makes the chunk empty, the others kept") {
        Tess t = generate_tess(rng, true);
        t.bytes[t.records[5].first + 16 + 4] = 7; // the bool column's first tile
        tess_seal(t.bytes);
        auto s = salvage(tw, t.bytes);
        REQUIRE(s.has_value());
        check_tess(t.bytes, *s);
        CHECK(s->totals.entities.lost == 1);
        CHECK(s->bytes.size() == t.bytes.size());
        const std::size_t size = t.records[0].second - t.records[0].first;
        CHECK(s->bytes.substr(t.records[5].first, size) ==
              std::string("\5\0\0\0\0\0\0\0", 8) + std::string(size - 8, '\0'));
        const auto kept = tess_kept(t, t.bytes, *s);
        for (std::size_t i = 0; i < kept.size(); ++i) CHECK(kept[i] == (i != 5));
    }
    SUBCASE("dense: a truncated archive gets the chunks it lacks, empty") {
        const Tess t = generate_tess(rng, true);
        const std::string cut = t.bytes.substr(0, t.records[40].first + 10);
        auto s = salvage(tw, cut);
        REQUIRE(s.has_value());
        check_tess(cut, *s);
        CHECK(s->bytes.size() == t.bytes.size());
        CHECK(s->totals.entities.kept == 40);
        CHECK(s->totals.entities.lost == 24);
        CHECK(s->bytes.substr(0, t.records[40].first).substr(121) ==
              t.bytes.substr(121, t.records[40].first - 121));
    }
    SUBCASE("a damaged version, residency and key layout are rebuilt") {
        Tess t = generate_tess(rng, true);
        t.bytes[8] = 9;
        t.bytes[108] = 5;
        t.bytes[80] = 3;
        tess_seal(t.bytes);
        auto s = salvage(tw, t.bytes);
        REQUIRE(s.has_value());
        check_tess(t.bytes, *s);
        CHECK(s->exit_status() == 0);
        CHECK(s->version == 2);
        CHECK(s->bytes[108] == 1);
        CHECK(s->bytes[80] == 1);
    }
    SUBCASE("a checksum mismatch with intact structure needs accept_checksum") {
        Tess t = generate_tess(rng, false);
        t.bytes[t.records[1].first + 17] ^= 0x40; // a u8 tile: the structure reads
        auto s = salvage(tw, t.bytes);
        REQUIRE(s.has_value());
        CHECK(s->withheld);
        CHECK(s->unverified);
        CHECK(s->exit_status() == 1);
        SalvageOptions accept;
        accept.accept_checksum = true;
        s = salvage(tw, t.bytes, accept);
        REQUIRE(s.has_value());
        CHECK_FALSE(s->withheld);
        check_tess(t.bytes, *s);
    }
    SUBCASE("a v1 archive is salvaged as v1, and migrated in one step with --to 2") {
        Tess t = generate_tess(rng, false, 1);
        t.bytes[t.records[3].first + 8] = 2; // a chunk state above 1
        tess_seal(t.bytes);
        auto s = salvage(tw, t.bytes);
        REQUIRE(s.has_value());
        check_tess(t.bytes, *s);
        CHECK(s->version == 1);
        CHECK(s->totals.entities.lost == 1);
        SalvageOptions to2;
        to2.to = 2;
        s = salvage(tw, t.bytes, to2);
        REQUIRE(s.has_value());
        CHECK(s->version == 2);
        CHECK(s->from == 1);
        const Summary sum = tw.summarize(s->bytes);
        CHECK_FALSE(sum.findings.has_errors());
        CHECK(sum.engine_loads);
    }
    SUBCASE("nothing recoverable is an error with the offset") {
        Tess t = generate_tess(rng, false);
        auto s = salvage(tw, std::string_view(t.bytes).substr(0, 100));
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code == ErrorCode::truncated);
        t.bytes[121 + 17 + 12] = 9; // fields[1].kind
        s = salvage(tw, t.bytes);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().offset == 121 + 17 + 12);
        CHECK(s.error().path == "fields[1].kind");
    }
}

TEST_CASE("salvage, tess world: the corpus: an archive tess loads is written as it is") {
    const FormatInfo& tw = format_info(FormatId::tess_world);
    for (const char* kind : {"valid", "invalid"}) {
        for (const auto& dir :
             {test::testdata() / "tess_world", test::testdata() / "tess_world" / "real"}) {
            for (const auto& path : test::corpus_files(dir, kind, ".tessw")) {
                CAPTURE(path.string());
                const std::string bytes = test::read_bytes(path);
                SalvageOptions accept;
                accept.accept_checksum = true;
                auto s = salvage(tw, bytes, accept);
                if (!s) continue; // nothing recoverable (a damaged header or descriptor)
                check_tess(bytes, *s);
                const Summary sum = tw.summarize(bytes);
                if (!sum.findings.has_errors() && sum.engine_loads) CHECK(s->bytes == bytes);
            }
        }
    }
}

TEST_CASE("salvage property, tess world: every truncation point and random byte flips") {
    std::mt19937 rng(77);
    const FormatInfo& tw = format_info(FormatId::tess_world);
    std::uint64_t complete = 0, outside = 0, recovered = 0;
    SalvageOptions accept;
    accept.accept_checksum = true;
    for (int save = 0; save < 4; ++save) {
        const Tess t = generate_tess(rng, save % 2 == 0);
        for (std::size_t cut = 0; cut < t.bytes.size(); ++cut) {
            CAPTURE(cut);
            const std::string bytes = t.bytes.substr(0, cut);
            auto s = salvage(tw, bytes, accept);
            if (!s) {
                REQUIRE(cut < t.records_begin); // the header or a descriptor cut
                continue;
            }
            check_tess(bytes, *s);
            const auto kept = tess_kept(t, bytes, *s);
            for (std::size_t i = 0; i < t.records.size(); ++i) {
                if (t.records[i].second > cut) continue;
                ++complete;
                REQUIRE(kept[i]);
            }
        }
        for (int f = 0; f < 1000; ++f) {
            std::string bytes = t.bytes;
            const std::size_t at = rng() % bytes.size();
            bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1 + rng() % 255));
            CAPTURE(at);
            auto s = salvage(tw, bytes, accept);
            if (!s) REQUIRE(at < t.records_begin); // a header or descriptor field
            if (s) check_tess(bytes, *s);
            const auto kept =
                s ? tess_kept(t, bytes, *s) : std::vector<bool>(t.records.size(), false);
            for (std::size_t i = 0; i < t.records.size(); ++i) {
                const auto [b, e] = t.records[i];
                if (at >= b && at < e) continue;
                ++outside;
                if (kept[i]) ++recovered;
                if (e <= at && at >= t.records_begin) REQUIRE(kept[i]);
            }
        }
    }
    recovery_figures("tess world", "chunks", complete, complete, outside, recovered);
}

// Text archive (formats/README.md §2): the writer's grammar, top-level attributes of each type
// and classes with children (a nested class among them), each entry with its bytes' span.
Store generate_archive(std::mt19937& rng, std::size_t n) {
    Store st;
    st.bytes = "1.0.0\n";
    auto attribute = [&](std::string& o, std::size_t i) {
        switch (rng() % 4) {
        case 0:
            o += fmt::format("__PGSA int {{{}}}", static_cast<int>(rng() % 2000) - 1000);
            break;
        case 1:
            o += fmt::format("__PGSA string {{text {}}}", rng() % 1000);
            break;
        case 2:
            o += fmt::format("__PGSA float {{{}.500000}}", rng() % 100);
            break;
        default:
            o += fmt::format("__PGSA bool {{{}}}", i % 2 ? "true" : "false");
            break;
        }
    };
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t begin = st.bytes.size();
        std::string& o = st.bytes;
        if (rng() % 2) {
            o += fmt::format("attr{}: ", i);
            attribute(o, i);
            o += '\n';
        } else {
            o += fmt::format("obj{}: Thing {{\n", i);
            const std::size_t children = 1 + rng() % 3;
            for (std::size_t c = 0; c < children; ++c) {
                o += fmt::format("\tf{}: ", c);
                attribute(o, c);
                o += ",\n";
            }
            o += "\tpos: Vector 2D {\n\t\tx: __PGSA float {1.000000},\n\t\ty: __PGSA float "
                 "{2.000000}\n\t}\n}\n";
        }
        st.lines.emplace_back(begin, st.bytes.size());
    }
    return st;
}

TEST_CASE("salvage, text archive: an entry the engine would lose is lost, with its line") {
    const FormatInfo& ta = format_info(FormatId::text_archive);
    const std::string good = "1.0.0\na: __PGSA int {1}\nb: Thing {\n\tx: __PGSA int {2}\n}\n"
                             "c: __PGSA string {s}\n";
    SUBCASE("a valid archive is written as it is") {
        auto s = salvage(ta, good);
        REQUIRE(s.has_value());
        CHECK(s->exit_status() == 0);
        CHECK_FALSE(s->changed_anything());
        CHECK(s->bytes == good);
        CHECK(s->totals.entities.kept == 3);
    }
    SUBCASE("a class that never closes is lost, the entries after it kept") {
        const std::string bad = "1.0.0\na: __PGSA int {1}\nb: Thing {\n\tx: __PGSA int {2}\n"
                                "c: __PGSA string {s}\n";
        auto s = salvage(ta, bad);
        REQUIRE(s.has_value());
        CHECK(s->exit_status() == 1);
        CHECK(s->bytes == "1.0.0\na: __PGSA int {1}\nc: __PGSA string {s}\n");
        bool named = false;
        for (const SalvageRegion& r : s->regions)
            if (r.kind == Kind::lost) named = r.path == "b" && r.line == 3 && r.column == 1;
        CHECK(named);
        CHECK_FALSE(ta.summarize(s->bytes).findings.has_errors());
    }
    SUBCASE("a damaged version line is rewritten") {
        std::string bad = good;
        bad[2] = '7';
        auto s = salvage(ta, bad);
        REQUIRE(s.has_value());
        CHECK(s->exit_status() == 0);
        CHECK(s->bytes == good);
        REQUIRE_FALSE(s->regions.empty());
        CHECK(s->regions[0].kind == Kind::rebuilt);
        CHECK(s->regions[0].line == 1);
    }
    SUBCASE("the doubled-name mark of a class entry is rewritten: the name once") {
        const std::string bad = "1.0.0\na: __PGSA int {1}\nb: b: Thing {\n\tx: __PGSA int {2}\n}\n"
                                "c: __PGSA string {s}\n";
        REQUIRE(ta.summarize(bad).findings.has_errors());
        auto s = salvage(ta, bad);
        REQUIRE(s.has_value());
        CHECK(s->exit_status() == 0);
        CHECK(s->bytes == good);
        bool rebuilt = false;
        for (const SalvageRegion& r : s->regions)
            if (r.kind == Kind::rebuilt) rebuilt = r.line == 3 && r.column == 4 && r.length == 3;
        CHECK(rebuilt);
    }
    SUBCASE("a blank line between entries is lost alone") {
        const std::string bad = "1.0.0\na: __PGSA int {1}\n\nb: Thing {\n\tx: __PGSA int {2}\n}\n"
                                "c: __PGSA string {s}\n";
        auto s = salvage(ta, bad);
        REQUIRE(s.has_value());
        if (ta.summarize(bad).findings.has_errors()) {
            CHECK(s->bytes == good);
            CHECK(s->totals.entities.kept == 3);
        } else {
            CHECK(s->bytes == bad);
        }
    }
}

TEST_CASE("salvage, text archive: the corpus: each output verifies, and salvage of it finds "
          "nothing to do") {
    const FormatInfo& ta = format_info(FormatId::text_archive);
    std::size_t files = 0;
    for (const char* kind : {"valid", "invalid", "tolerated"}) {
        for (const auto& path :
             test::corpus_files(test::testdata() / "text_archive", kind, ".sz")) {
            CAPTURE(path.string());
            const std::string bytes = test::read_bytes(path);
            auto s = salvage(ta, bytes);
            REQUIRE(s.has_value());
            check_store(bytes, *s, ta);
            if (!ta.summarize(bytes).findings.has_errors()) CHECK(s->bytes == bytes);
            ++files;
        }
    }
    CHECK(files > 20);
}

TEST_CASE("salvage property, text archive: every truncation point and random byte flips") {
    std::mt19937 rng(123);
    Figures fig;
    for (int save = 0; save < 3; ++save)
        line_property(format_info(FormatId::text_archive), generate_archive(rng, 30), rng, 1500, 6,
                      fig);
    recovery_figures("text archive", "entries", fig.cut_complete, fig.cut_recovered, fig.outside,
                     fig.recovered);
}

} // namespace
} // namespace salvage_test
} // namespace sparksave
