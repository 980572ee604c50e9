// GMSV saves (formats/README.md §5, seed 003): .NET GUIDs and timestamps, the reader's checks, JSON
// data as a tree, the writer, pack, diff, and the design's two migrations with their goldens.
#include <doctest/doctest.h>

#include "gmsv/dotnet.hpp"
#include "gmsv/tree.hpp"
#include "support.hpp"

#include "gmsv/api.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cstring>

using namespace sparksave;

namespace {

using test::value_at;

Parsed parse(std::string bytes) {
    return gmsv::read(std::make_shared<const Source>(std::move(bytes)));
}

std::string file(const char* name) {
    return test::read_bytes(test::testdata() / "gmsv/valid" / name);
}

std::string findings(const Findings& f) {
    std::string out;
    for (const auto& e : f.items())
        out += fmt::format("{}{} {} {}", out.empty() ? "" : " | ", severity_name(e.severity),
                           code_name(e.code), e.path.empty() ? "-" : e.path);
    return out;
}

void put(std::string& out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// A save of its own, from formats/README.md §5: entities as (16-byte GUID, [(type, data)]).
std::string
save(std::uint16_t version,
     const std::vector<std::pair<std::string, std::vector<std::pair<int, std::string>>>>& entities,
     std::int64_t timestamp = 0x4000000000000000) {
    std::string data;
    put(data, entities.size(), 4);
    for (const auto& [guid, comps] : entities) {
        data += guid;
        put(data, comps.size(), 2);
        for (const auto& [type, bytes] : comps) {
            put(data, static_cast<std::uint64_t>(type), 2);
            put(data, bytes.size(), 4);
            data += bytes;
        }
    }
    std::string out = "GMSV";
    put(out, version, 2);
    put(out, static_cast<std::uint64_t>(timestamp), 8);
    out += data;
    put(out, crc32(data), 4);
    return out;
}

std::string guid(char fill) {
    return std::string(16, fill);
}

std::string i32s(std::int32_t a, std::int32_t b) {
    std::string s;
    put(s, static_cast<std::uint32_t>(a), 4);
    put(s, static_cast<std::uint32_t>(b), 4);
    return s;
}

} // namespace

TEST_CASE("GUIDs: the .NET Guid.ToByteArray() layout, printed 8-4-4-4-12") {
    std::string bytes;
    for (int b : {0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
                  0xdd, 0xee, 0xff})
        bytes += static_cast<char>(b);
    CHECK(gmsv::guid_text(bytes) == "00112233-4455-6677-8899-aabbccddeeff");
    CHECK(gmsv::guid_bytes("00112233-4455-6677-8899-aabbccddeeff") == bytes);
    CHECK(gmsv::guid_bytes("00112233-4455-6677-8899-AABBCCDDEEFF") == bytes);
    for (const char* bad :
         {"", "00112233-4455-6677-8899-aabbccddeef", "00112233-4455-6677-8899_aabbccddeeff",
          "0011223-34455-6677-8899-aabbccddeeff", "00112233-4455-6677-8899-aabbccddeefg",
          "{00112233-4455-6677-8899-aabbccddeeff}", "00112233-4455-6677-8899-+abbccddeeff"})
        CHECK_FALSE_MESSAGE(gmsv::guid_bytes(bad), bad);
}

TEST_CASE("timestamps: DateTime.ToBinary() kinds decoded to ISO-8601") {
    using gmsv::DotNetTime;
    // 2023-11-14T22:13:20Z is 638355968000000000 ticks.
    const std::int64_t ticks = 638355968000000000;
    auto utc = gmsv::from_binary(ticks | (std::int64_t{1} << 62));
    CHECK(utc.kind == DotNetTime::Kind::utc);
    CHECK(utc.valid);
    CHECK(gmsv::iso8601(utc) == "2023-11-14T22:13:20.0000000Z");
    auto unspecified = gmsv::from_binary(ticks + 1234567);
    CHECK(unspecified.kind == DotNetTime::Kind::unspecified);
    CHECK(gmsv::iso8601(unspecified) == "2023-11-14T22:13:20.1234567");
    // Local: the stored ticks are UTC (ToBinary subtracted the offset); shown as the UTC instant.
    auto local = gmsv::from_binary(
        static_cast<std::int64_t>(static_cast<std::uint64_t>(ticks) | (1ull << 63)));
    CHECK(local.kind == DotNetTime::Kind::local);
    CHECK(gmsv::iso8601(local) == "2023-11-14T22:13:20.0000000Z");
    // A local time just after 0001-01-01 in a zone east of UTC: ToBinary wrapped it by 2^62.
    const std::int64_t wrapped = (std::int64_t{1} << 62) - 36000000000; // -1 hour
    auto early = gmsv::from_binary(
        static_cast<std::int64_t>(static_cast<std::uint64_t>(wrapped) | (1ull << 63)));
    CHECK(early.ticks == -36000000000);
    CHECK_FALSE(early.valid);
    CHECK(gmsv::iso8601(gmsv::from_binary(0)) == "0001-01-01T00:00:00.0000000");
    auto max = gmsv::from_binary(gmsv::k_max_ticks | (std::int64_t{1} << 62));
    CHECK(max.valid);
    CHECK(gmsv::iso8601(max) == "9999-12-31T23:59:59.9999999Z");
    CHECK_FALSE(gmsv::from_binary((gmsv::k_max_ticks + 1) | (std::int64_t{1} << 62)).valid);
    CHECK(gmsv::iso8601(gmsv::from_binary((std::int64_t{1} << 62) |
                                          (951868800LL * 10000000 + 621355968000000000LL))) ==
          "2000-03-01T00:00:00.0000000Z");
}

TEST_CASE("a v3 save with JSON data: every component, the GUIDs, the time, a byte-exact rewrite") {
    const std::string bytes = file("v3-json.gmsv");
    auto p = parse(bytes);
    CHECK(p.findings.items().empty());
    CHECK(p.doc.version() == 3);
    CHECK(value_at(p.doc, "timestamp.time") == "2023-11-14T22:13:20.0000000Z");
    CHECK(value_at(p.doc, "timestamp.kind") == "utc");
    CHECK(value_at(p.doc, "entities[0].Position.X") == "42.5");
    CHECK(value_at(p.doc,
                   "entities[name=00112233-4455-6677-8899-aabbccddeeff].Inventory.ItemIds[2]") ==
          "7");
    CHECK(value_at(p.doc, "entities[0].Position") == "{\"X\":42.5,\"Y\":-17.3}");
    const NodeId position = *resolve(p.doc, *NodePath::parse("entities[0].Position"));
    CHECK(p.doc.node(position).kind == NodeKind::object);
    CHECK(p.doc.tag(position) == "json");
    CHECK(p.doc.child_count(*resolve(p.doc, *NodePath::parse("entities[2]"))) == 0);
    auto written = gmsv::write(p.doc);
    REQUIRE(written);
    CHECK(*written == bytes);

    Summary s = gmsv::summarize(bytes);
    CHECK(s.integrity == Integrity::verified);
    CHECK(s.engine_loads);
    std::string counts;
    for (const auto& f : s.counts) counts += f.key + "=" + f.text + ";";
    CHECK(counts == "entities=3;components=6;jsonData=6;binaryData=0;");
    REQUIRE(s.common_types.size() == 4);
    CHECK(s.common_types[0] == std::pair<std::string, std::uint64_t>{"Position", 2});
}

TEST_CASE(
    "JSON data: exactly one object, nothing around it, bounded depth; everything else is bytes") {
    CHECK(gmsv::is_json_payload("{}"));
    CHECK(gmsv::is_json_payload("{\"X\":1}"));
    CHECK(gmsv::is_json_payload("{\n  \"X\": [1, {\"a\": null}]\n}"));
    for (const char* no : {"", "{", " {}", "{} ", "[1]", "1", "\"x\"", "{\"X\":1,}", "{\"X\":1}{}",
                           "{\"a\":\"\xff\"}"})
        CHECK_FALSE_MESSAGE(gmsv::is_json_payload(no), no);
    std::string deep = "{\"a\":" + std::string(63, '[') + std::string(63, ']') + "}";
    CHECK(gmsv::is_json_payload(deep));
    deep = "{\"a\":" + std::string(64, '[') + std::string(64, ']') + "}";
    CHECK_FALSE(gmsv::is_json_payload(deep));
    // A deep payload reads as bytes, and prints and dumps without deep recursion.
    std::string huge = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
    auto p = parse(save(3, {{guid('g'), {{1, huge}}}}));
    CHECK(p.findings.items().empty());
    CHECK(p.doc.node(*resolve(p.doc, *NodePath::parse("entities[0].Position"))).kind ==
          NodeKind::bytes);
}

TEST_CASE("the reader's checks on bytes made by hand") {
    CHECK(findings(parse(save(3, {})).findings).empty());
    // A CRC-32 over the data section only: the header is outside it.
    std::string s = save(3, {{guid('a'), {{2, "xy"}}}});
    std::string other_time = s;
    other_time[8] ^= 0x40;
    CHECK(findings(parse(other_time).findings).empty());
    std::string flipped = s;
    flipped[0x12] ^= 1;
    CHECK(findings(parse(flipped).findings) == "error checksum_mismatch checksum");
    // Bytes after the CRC are a warning, kept by the writer.
    auto trailing = parse(s + "zz");
    CHECK(findings(trailing.findings) == "warning trailing_bytes -");
    CHECK(*gmsv::write(trailing.doc) == s + "zz");
    // A version outside 1..3 is an error; the rest is still read.
    auto v9 = parse(save(9, {{guid('a'), {{2, "xy"}}}}));
    CHECK(findings(v9.findings) == "error unsupported_version version");
    CHECK(value_at(v9.doc, "entities[0].Health") == "xy");
    // Unknown type ids are reported, duplicates refused, GUIDs on two entities reported.
    auto p = parse(save(2, {{guid('a'), {{7, ""}, {2, ""}, {2, "1"}}}, {guid('a'), {}}}));
    CHECK(findings(p.findings) ==
          "warning unknown_type entities[0].type7 | error duplicate_component entities[0].Health | "
          "warning duplicate_key entities[1]");
    // Hostile counts are refused at once, without allocating for them.
    const auto start = std::chrono::steady_clock::now();
    std::string big = save(3, {});
    big[0x0E] = '\xff';
    big[0x0F] = '\xff';
    big[0x10] = '\xff';
    big[0x11] = '\x7f';
    CHECK(findings(parse(big).findings) == "error truncated entities");
    std::string many = save(3, {{guid('b'), {}}});
    many[0x22] = '\xff';
    many[0x23] = '\xff';
    CHECK(findings(parse(many).findings) == "error truncated entities[0]");
    // 10000 components of distinct unknown types in one entity: linear, not quadratic.
    std::vector<std::pair<int, std::string>> comps;
    for (int t = 100; t < 10100; ++t) comps.emplace_back(t, "");
    auto wide = parse(save(3, {{guid('c'), comps}}));
    CHECK(wide.findings.warning_count() == 10000);
    CHECK_FALSE(wide.findings.has_errors());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

// Every valid save's dump packs back to it: tests/corpus/test_corpus.cpp.
TEST_CASE("gmsv pack: edits of a dump are checked with their path") {
    std::string json;
    gmsv::to_json(parse(file("v3-json.gmsv")).doc, json);
    auto edit = [&](std::string_view from, std::string_view to) {
        std::string j = json;
        const auto at = j.find(from);
        REQUIRE(at != std::string::npos);
        j.replace(at, from.size(), to);
        return gmsv::from_json(j);
    };
    auto moved = edit("{\"X\":42.5,\"Y\":-17.3}", "{\"X\": 1.5, \"Y\": 2}");
    REQUIRE(moved);
    auto p = parse(moved->bytes);
    CHECK(p.findings.items().empty()); // the CRC is recomputed
    CHECK(value_at(p.doc, "entities[0].Position") == "{\"X\": 1.5, \"Y\": 2}");
    auto binary = edit("\"json\": {\"X\":42.5,\"Y\":-17.3}", "\"hex\": \"0000c03f00000040\"");
    REQUIRE(binary);
    CHECK(value_at(parse(binary->bytes).doc, "entities[0].Position") ==
          std::string("\0\0\xc0\x3f\0\0\0\x40", 8));
    auto both = edit("\"json\": {\"X\":42.5,\"Y\":-17.3}", "\"json\": {}, \"hex\": \"\"");
    REQUIRE_FALSE(both);
    CHECK(both.error().path == "entities[0].components[0]");
    auto bad_id = edit("00112233-4455-6677-8899-aabbccddeeff", "00112233-4455-6677-8899");
    REQUIRE_FALSE(bad_id);
    CHECK(bad_id.error().path == "entities[0].id");
    auto bad_hex = edit("\"json\": {\"X\":42.5,\"Y\":-17.3}", "\"hex\": \"0g\"");
    REQUIRE_FALSE(bad_hex);
    CHECK(bad_hex.error().path == "entities[0].components[0].hex");
}

TEST_CASE("diff matches entities by GUID and compares JSON data member by member") {
    auto a = parse(file("v3-json.gmsv"));
    std::string j;
    gmsv::to_json(a.doc, j);
    j.replace(j.find("\"Y\":-17.3"), 9, "\"Y\":-17.5");
    auto b = parse(gmsv::from_json(j)->bytes);
    std::vector<std::string> lines;
    REQUIRE(diff(a.doc, b.doc, {}, [&](const Change& c) {
        lines.push_back(std::string(op_name(c.op)) + " " + c.path.str());
    }));
    CHECK(lines == std::vector<std::string>{
                       "change entities[name=00112233-4455-6677-8899-aabbccddeeff].Position.Y"});
    // The CRC-32 is derived: reported only with DiffOptions::derived (--derived).
    lines.clear();
    DiffOptions derived;
    derived.derived = true;
    REQUIRE(diff(a.doc, b.doc, derived, [&](const Change& c) {
        lines.push_back(std::string(op_name(c.op)) + " " + c.path.str());
    }));
    CHECK(lines == std::vector<std::string>{
                       "change entities[name=00112233-4455-6677-8899-aabbccddeeff].Position.Y",
                       "change checksum"});
}

TEST_CASE("migration v1 -> v3 of JSON data: an empty Inventory for each entity lacking one, float "
          "positions") {
    auto in = parse(file("v1-json.gmsv"));
    REQUIRE(in.findings.items().empty());
    auto m = migrate(in.doc, 3);
    REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
    REQUIRE(m->steps.size() == 2);
    CHECK(test::note_texts(m->notes) ==
          std::vector<std::string>{"added an empty Inventory ({\"ItemIds\":[]}) to 2 of 3 entities",
                                   "Position int -> float in 2 components (2 JSON, 0 binary)",
                                   "entities[1].Position.Y = 16777217 became 16777216.0 (float has "
                                   "24 bits of precision)"});
    auto out = parse(m->bytes);
    CHECK(out.findings.items().empty());
    CHECK(out.doc.version() == 3);
    CHECK(value_at(out.doc, "entities[0].Position") == "{\"X\":1.0,\"Y\":2.0}");
    CHECK(value_at(out.doc, "entities[0].Inventory") == "{\"ItemIds\":[]}");
    CHECK(value_at(out.doc, "entities[1].Position") == "{\"X\":-2147483648.0,\"Y\":16777216.0}");
    CHECK(value_at(out.doc, "entities[2].Inventory") == "{\"ItemIds\":[1]}"); // it had one: kept
    // Order: the new Inventory comes after the entity's other components.
    const NodeId e0 = *resolve(out.doc, *NodePath::parse("entities[0]"));
    std::string order;
    for (NodeId c : out.doc.children(e0)) order += std::string(out.doc.name(c)) + " ";
    CHECK(order == "Position Health Inventory ");
    // The timestamp and GUIDs are kept; the CRC-32 is recomputed (the file reads back clean).
    CHECK(value_at(out.doc, "timestamp.binary") == value_at(in.doc, "timestamp.binary"));
    std::string diff =
        test::check_golden(test::testdata() / "migrations/gmsv/v1-json.v3.gmsv", m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE(
    "migration v1 -> v3 of binary data: a 4-byte empty Inventory, int32 pairs become float32") {
    auto in = parse(file("v1-binary.gmsv"));
    auto m = migrate(in.doc, 3);
    REQUIRE(m);
    auto out = parse(m->bytes);
    CHECK(out.findings.items().empty());
    CHECK(value_at(out.doc, "entities[0].Inventory") == std::string(4, '\0'));
    auto floats = [](std::string_view v) {
        std::pair<float, float> xy;
        std::memcpy(&xy.first, v.data(), 4);
        std::memcpy(&xy.second, v.data() + 4, 4);
        return xy;
    };
    CHECK(floats(value_at(out.doc, "entities[0].Position")) == std::pair{1.0f, 2.0f});
    CHECK(floats(value_at(out.doc, "entities[1].Position")) == std::pair{-3.0f, 2147483648.0f});
    CHECK(value_at(out.doc, "entities[0].Health") == value_at(in.doc, "entities[0].Health"));
    std::string diff =
        test::check_golden(test::testdata() / "migrations/gmsv/v1-binary.v3.gmsv", m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("migration v2 -> v3: other members, key order and decimals stay; an indented file stays "
          "indented") {
    auto in = parse(file("v2-json.gmsv"));
    auto m = migrate(in.doc, 3);
    REQUIRE(m);
    auto out = parse(m->bytes);
    CHECK(value_at(out.doc, "entities[1].Position") == "{\"Y\":7.0,\"X\":8.0,\"Z\":9}");
    CHECK(value_at(out.doc, "entities[0].Inventory") == "{\"ItemIds\":[]}");
    std::string diff =
        test::check_golden(test::testdata() / "migrations/gmsv/v2-json.v3.gmsv", m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
    auto bin = migrate(parse(file("v2-binary.gmsv")).doc, 3);
    REQUIRE(bin);
    diff = test::check_golden(test::testdata() / "migrations/gmsv/v2-binary.v3.gmsv", bin->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
    // v1 with indented JSON gets an indented Inventory; 1.5 is already a float and stays.
    auto indented = parse(save(1, {{guid('i'), {{1, "{\n  \"X\": 1.5,\n  \"y\": 3\n}"}}}}));
    auto mi = migrate(indented.doc, 3);
    REQUIRE(mi);
    auto oi = parse(mi->bytes);
    CHECK(value_at(oi.doc, "entities[0].Inventory") == "{\n  \"ItemIds\": []\n}");
    CHECK(value_at(oi.doc, "entities[0].Position") == "{\n  \"X\": 1.5,\n  \"y\": 3.0\n}");
    // Step by step equals all at once.
    auto v2 = migrate(in.doc, 3);
    auto once = migrate(parse(file("v1-json.gmsv")).doc, 3);
    auto twice = migrate(parse(migrate(parse(file("v1-json.gmsv")).doc, 2)->bytes).doc, 3);
    REQUIRE(once);
    REQUIRE(twice);
    CHECK(once->bytes == twice->bytes);
    CHECK(v2);
}

TEST_CASE(
    "migration refuses Position data it cannot convert, naming the place and changing nothing") {
    auto short_binary = parse(save(2, {{guid('a'), {{1, "1234"}}}}));
    auto m = migrate(short_binary.doc, 3);
    REQUIRE_FALSE(m);
    CHECK(m.error().path == "entities[0].Position");
    CHECK(m.error().message.find("step gmsv_v2_to_v3") == 0);
    auto string_x = parse(save(2, {{guid('a'), {{1, "{\"X\":\"1\",\"Y\":2}"}}}}));
    auto ms = migrate(string_x.doc, 3);
    REQUIRE_FALSE(ms);
    CHECK(ms.error().path == "entities[0].Position.X");
    auto too_big = parse(save(2, {{guid('a'), {{1, "{\"X\":2147483648,\"Y\":2}"}}}}));
    REQUIRE_FALSE(migrate(too_big.doc, 3));
    // An empty file migrates (nothing to add), and an entity without Position is untouched.
    auto empty = migrate(parse(save(1, {})).doc, 3);
    REQUIRE(empty);
    CHECK(empty->notes.empty());
    auto binary_int = parse(save(2, {{guid('a'), {{1, i32s(5, -6)}}}}));
    auto mb = migrate(binary_int.doc, 3);
    REQUIRE(mb);
    const std::string v = value_at(parse(mb->bytes).doc, "entities[0].Position");
    CHECK(v.substr(0, 4) == std::string("\0\0\xa0\x40", 4)); // 5.0f
    CHECK(v.substr(4) == std::string("\0\0\xc0\xc0", 4));    // -6.0f
}
