// `.spark_save` reader, writer and checks: the real engine files decoded field by field against
// FORMATS.md, hand-made byte arrays for the tricky cases, and generated saves of every version.
#include <doctest/doctest.h>

#include "spark_save/spec.hpp"
#include "support.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"
#include "sparksave/spark_save.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

using namespace sparksave;
namespace ss = sparksave::spark_save;

namespace {

using test::value_at;

Parsed parse(std::string bytes) {
    return ss::read(std::make_shared<const Source>(std::move(bytes)));
}

std::string codes(const Findings& f) {
    std::string out;
    for (const auto& e : f.items())
        out += fmt::format("{}:{}@{} ", severity_name(e.severity), code_name(e.code), e.offset);
    return out;
}

// An encoder written from FORMATS.md 1.1, independent of the writer under test.
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

std::string meta(std::uint32_t version) {
    std::string m = "Name\nScene\nClass\n";
    if (version >= 2) m += "shot.png\n";
    return m + "1700000000\n42.5\n75\n25\n1 2 3\n4\n1\n";
}

std::string header(std::uint32_t version, const std::string& m) {
    Encoder e;
    e.out = "SPRK";
    e.u32(version);
    e.u32(m.size());
    e.out += m;
    return e.out;
}

std::string with_crc(std::string s) {
    Encoder e;
    e.out = std::move(s);
    e.u32(crc32(e.out));
    return e.out;
}

} // namespace

TEST_CASE("real v1 file: every field as FORMATS.md describes it") {
    auto p =
        parse(test::read_bytes(test::testdata() / "spark_save/valid/v1-screenshotless.spark_save"));
    CHECK_FALSE(p.findings.has_errors());
    REQUIRE(p.findings.items().size() == 1);
    CHECK(p.findings.items()[0].code == ErrorCode::needs_migration);
    CHECK(p.doc.version() == 1);
    CHECK(value_at(p.doc, "metadata.saveName") == "Legacy screenshotless save");
    CHECK(value_at(p.doc, "metadata.sceneName") == "LegacyScene");
    CHECK(value_at(p.doc, "metadata.playerClass") == "Ranger");
    CHECK(value_at(p.doc, "metadata.timestamp") == "1700000000");
    CHECK(value_at(p.doc, "metadata.playTime") == "42.5");
    CHECK(value_at(p.doc, "metadata.position.z") == "3");
    CHECK(value_at(p.doc, "metadata.playerDeaths") == "1");
    CHECK(resolve(p.doc, *NodePath::parse("metadata.screenshotPath")).has_value() == false);
    CHECK(p.doc.value(p.doc.child(p.doc.root(), "metadata")).size() == 78);
    CHECK(value_at(p.doc, "entities[0].Transform.px") == "12.500000");
    CHECK(value_at(p.doc, "entities[name=legacy-player].Transform.rz") == "-2.250000");
    // Properties keep the engine's hash order.
    auto transform = *resolve(p.doc, *NodePath::parse("entities[0].Transform"));
    std::string order;
    for (NodeId c : p.doc.children(transform)) order += std::string(p.doc.name(c)) + " ";
    CHECK(order == "rz px py rx pz ry sx sy sz ");
    CHECK(value_at(p.doc, "customState[\"legacy.key\"]") == "legacy-value");
    CHECK(p.doc.child(p.doc.root(), "checksum") == k_no_node);
}

TEST_CASE("real v2 file: the screenshot path, no parent") {
    auto p = parse(test::read_bytes(test::testdata() /
                                    "spark_save/valid/v2-screenshot-without-hierarchy.spark_save"));
    CHECK_FALSE(p.findings.has_errors());
    CHECK(p.doc.version() == 2);
    CHECK(value_at(p.doc, "metadata.screenshotPath") == "Screenshots/legacy.png");
    CHECK(value_at(p.doc, "entities[0].Transform.px") == "12.500000");
    CHECK_FALSE(resolve(p.doc, *NodePath::parse("entities[0].Transform.parent")));
}

TEST_CASE("real v3 file: eleven fps.profile keys, empty strings, no warnings") {
    auto p =
        parse(test::read_bytes(test::testdata() / "spark_save/valid/v3-fps-profile.spark_save"));
    CHECK(p.findings.items().empty());
    CHECK(p.doc.version() == 3);
    CHECK(value_at(p.doc, "metadata.playerClass").empty());
    CHECK(value_at(p.doc, "metadata.screenshotPath").empty());
    CHECK(value_at(p.doc, "metadata.playTime") == "0.0318721");
    CHECK(p.doc.child_count(p.doc.child(p.doc.root(), "entities")) == 0);
    CHECK(p.doc.child_count(p.doc.child(p.doc.root(), "customState")) == 11);
    CHECK(value_at(p.doc, "customState[\"fps.profile.version\"]") == "1");
}

TEST_CASE("a v4 file's checksum is checked and recomputed") {
    std::string body = header(4, meta(4));
    Encoder e;
    e.u32(0);
    e.u32(0);
    std::string file = with_crc(body + e.out);
    auto p = parse(file);
    CHECK(p.findings.items().empty());
    CHECK(value_at(p.doc, "checksum") == fmt::format("{:#010x}", crc32(body + e.out)));
    auto written = ss::write(p.doc);
    REQUIRE(written);
    CHECK(*written == file);
}

TEST_CASE("huge declared counts are refused before anything is allocated") {
    for (std::uint32_t version : {1u, 3u}) {
        Encoder e;
        e.out = header(version, meta(version));
        e.u32(0xFFFFFFFFu); // entity count
        auto p = parse(e.out);
        CHECK(p.findings.has_errors());
        CHECK(p.findings.first_error()->code == ErrorCode::limit_exceeded);
        Encoder f;
        f.out = header(version, meta(version));
        f.u32(999'999);
        auto q = parse(f.out);
        CHECK(q.findings.first_error()->code == ErrorCode::truncated);
        CHECK(q.findings.first_error()->message ==
              "expected room for 999999 entities (at least 3999996 bytes), found 0 bytes");
    }
    // A component count of 65535 with two bytes left.
    Encoder e;
    e.out = header(3, meta(3));
    e.u32(1);
    e.str("x");
    e.u16(0xFFFF);
    e.u16(0);
    auto p = parse(e.out);
    CHECK(p.findings.first_error()->code == ErrorCode::truncated);
    CHECK(p.findings.first_error()->path == "entities[0]");
}

TEST_CASE("a string cut at every position is a clean truncation error") {
    Encoder e;
    e.out = header(3, meta(3));
    e.u32(1);
    e.str("entity-name");
    e.u16(1);
    e.str("Component");
    e.u16(1);
    e.str("key");
    e.str("value");
    e.u32(0);
    const std::string full = e.out;
    REQUIRE_FALSE(parse(full).findings.has_errors());
    for (std::size_t cut = 8; cut < full.size(); ++cut) {
        auto p = parse(full.substr(0, cut));
        REQUIRE_MESSAGE(p.findings.has_errors(), cut);
        auto* err = p.findings.first_error();
        CHECK_MESSAGE((err->code == ErrorCode::truncated), cut, " ", codes(p.findings));
        CHECK(err->offset <= cut);
    }
}

TEST_CASE("v1 files may end after the entities; v3 files may not") {
    for (std::uint32_t version : {1u, 2u, 3u}) {
        Encoder e;
        e.out = header(version, meta(version));
        e.u32(0);
        auto p = parse(e.out);
        if (version < 3) {
            CHECK_FALSE(p.findings.has_errors());
            NodeId cs = p.doc.child(p.doc.root(), "customState");
            CHECK((p.doc.node(cs).flags & k_flag_absent) != 0);
            CHECK(*ss::write(p.doc) == e.out);
        } else {
            CHECK(p.findings.first_error()->code == ErrorCode::truncated);
            CHECK(p.findings.first_error()->path == "customState");
        }
    }
}

TEST_CASE("v1 limits: names and types of 4096 bytes pass, 4097 fail; v3 takes 65535") {
    for (std::size_t len : {4096u, 4097u}) {
        Encoder e;
        e.out = header(1, meta(1));
        e.u32(1);
        e.str(std::string(len, 'n'));
        e.u16(0);
        e.u32(0);
        CHECK(parse(e.out).findings.has_errors() == (len > 4096));
    }
    Encoder e;
    e.out = header(3, meta(3));
    e.u32(1);
    e.str(std::string(65535, 'n'));
    e.u16(1);
    e.str(std::string(65535, 't'));
    e.u16(1);
    e.str(std::string(65535, 'k'));
    e.str(std::string(65535, 'v'));
    e.u32(0);
    auto p = parse(e.out);
    CHECK(p.findings.items().empty());
    CHECK(*ss::write(p.doc) == e.out);
}

TEST_CASE("damaged version detection needs the whole CRC to match") {
    // A real v3 file with a last-four-bytes value that happens not to be a CRC: parsed as v3.
    auto v3 = test::read_bytes(test::testdata() / "spark_save/valid/v3-fps-profile.spark_save");
    CHECK(parse(v3).findings.items().empty());
    // The same payload written as v4, then its version field damaged to 3.
    std::string as4 = v3;
    as4[4] = 4;
    as4 = with_crc(as4);
    std::string damaged = as4;
    damaged[4] = 3;
    auto p = parse(damaged);
    REQUIRE(p.findings.has_errors());
    CHECK(p.findings.first_error()->code == ErrorCode::damaged_version);
    CHECK(p.doc.version() == 4); // read as what it is, so dump shows the content
    CHECK(p.doc.child_count(p.doc.child(p.doc.root(), "customState")) == 11);
}

TEST_CASE("summarize applies the same rules as read") {
    for (const auto& dir : {"valid", "invalid"}) {
        for (const auto& file :
             test::files_in(test::testdata() / "spark_save" / dir, ".spark_save")) {
            std::string bytes = test::read_bytes(file);
            auto p = parse(bytes);
            auto s = ss::summarize(bytes);
            CHECK_MESSAGE(codes(p.findings) == codes(s.findings), file.filename().string());
        }
    }
}

TEST_CASE("generated saves of every version parse without errors and round-trip byte for byte") {
    std::mt19937 rng(20261129);
    int checked = 0;
    for (std::uint32_t version = 1; version <= 4; ++version) {
        for (int i = 0; i < 150; ++i) {
            std::string bytes = test::random_spark_save(rng, version);
            auto p = parse(bytes);
            REQUIRE_MESSAGE(!p.findings.has_errors(), "v", version, " #", i, ": ",
                            codes(p.findings));
            auto written = ss::write(p.doc);
            REQUIRE(written);
            REQUIRE_MESSAGE(*written == bytes, "v", version, " #", i);
            std::string text, json;
            print_text(p.doc, p.doc.root(), {}, {}, text);
            ss::to_json(p.doc, json);
            CHECK_FALSE(json.empty());
            ++checked;
        }
    }
    CHECK(checked == 600);
}

TEST_CASE("the writer refuses what the format cannot hold, naming the node") {
    auto p =
        parse(test::read_bytes(test::testdata() / "spark_save/valid/v3-fps-profile.spark_save"));
    Document& doc = p.doc;
    NodeId cs = doc.child(doc.root(), "customState");
    doc.append(cs, NodeKind::scalar, doc.text("big"), doc.text(std::string(70000, 'x')), {},
               ValueType::string);
    auto w = ss::write(doc);
    REQUIRE_FALSE(w);
    CHECK(w.error().path == "customState.big");
    CHECK(w.error().message == "expected a value of at most 65535 bytes, found 70000");
}

TEST_CASE("large files (CRC checked alongside the parse) report damage exactly like small ones") {
    // A v4 save above Reader::k_parallel_crc, built from many copies of one entity.
    Encoder e;
    e.out = header(4, meta(4));
    const std::size_t entities = 60000;
    e.u32(entities);
    for (std::size_t i = 0; i < entities; ++i) {
        e.str("entity-" + std::to_string(i));
        e.u16(1);
        e.str("Transform");
        e.u16(10);
        for (const char* k : {"px", "py", "pz", "rx", "ry", "rz", "sx", "sy", "sz"}) {
            e.str(k);
            e.str("1.000000");
        }
        e.str("parent");
        e.str(i == 0 ? "-1" : std::to_string(i - 1));
    }
    e.u32(0);
    const std::string good = with_crc(e.out);
    REQUIRE(good.size() > (4u << 20));
    CHECK(parse(good).findings.items().empty());
    CHECK(ss::summarize(good).findings.items().empty());

    std::string flipped = good;
    flipped[good.size() / 2] ^= 0x01;
    for (const auto& f : {parse(flipped).findings, ss::summarize(flipped).findings}) {
        REQUIRE(f.has_errors());
        CHECK(f.items()[0].code == ErrorCode::checksum_mismatch);
        CHECK(f.items()[0].offset == good.size() - 4);
    }
    std::string damaged = good;
    damaged[4] = 2;
    auto p = parse(damaged);
    REQUIRE(p.findings.has_errors());
    CHECK(p.findings.items()[0].code == ErrorCode::damaged_version);
    CHECK(p.doc.version() == 4);
    CHECK(p.doc.child_count(p.doc.child(p.doc.root(), "entities")) == entities);
    CHECK(*ss::write(p.doc) == good);
    std::string extended = good + "x";
    auto x = ss::summarize(extended);
    REQUIRE(x.findings.has_errors());
    CHECK(x.findings.items()[0].code == ErrorCode::trailing_bytes);
}
