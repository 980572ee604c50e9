// `.spark_save` reader, writer and checks: the real engine files decoded field by field against
// formats/README.md, hand-made byte arrays for the tricky cases, and generated saves of every
// version.
#include <doctest/doctest.h>

#include "spark_save/metadata.hpp"
#include "spark_save/rules.hpp"
#include "spark_save/spec.hpp"
#include "support.hpp"

#include "spark_save/api.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <type_traits>

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

// An encoder written from formats/README.md §1.1, independent of the writer under test.
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

TEST_CASE("real v1 file: every field as formats/README.md describes it") {
    auto p = parse(
        test::read_bytes(test::testdata() / "spark_save/real/valid/v1-screenshotless.spark_save"));
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
    auto p = parse(test::read_bytes(
        test::testdata() / "spark_save/real/valid/v2-screenshot-without-hierarchy.spark_save"));
    CHECK_FALSE(p.findings.has_errors());
    CHECK(p.doc.version() == 2);
    CHECK(value_at(p.doc, "metadata.screenshotPath") == "Screenshots/legacy.png");
    CHECK(value_at(p.doc, "entities[0].Transform.px") == "12.500000");
    CHECK_FALSE(resolve(p.doc, *NodePath::parse("entities[0].Transform.parent")));
}

TEST_CASE("real v3 file: eleven fps.profile keys, empty strings, no warnings") {
    auto p = parse(
        test::read_bytes(test::testdata() / "spark_save/real/valid/v3-fps-profile.spark_save"));
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

TEST_CASE("v1 limits: names of 4096 bytes pass, 4097 warn (the v1-era cap); v3 takes 65535") {
    for (std::size_t len : {4096u, 4097u, 65535u}) {
        Encoder e;
        e.out = header(1, meta(1));
        e.u32(1);
        e.str(std::string(len, 'n'));
        e.u16(0);
        e.u32(0);
        {
            // A v2 component type of the same length.
            Encoder t;
            t.out = header(2, meta(2));
            t.u32(1);
            t.str("p");
            t.u16(1);
            t.str(std::string(len, 't'));
            t.u16(0);
            t.u32(0);
            auto pt = parse(t.out);
            CHECK_FALSE(pt.findings.has_errors());
            CHECK(pt.findings.warning_count() == (len > 4096 ? 2u : 1u));
            CHECK(*ss::write(pt.doc) == t.out);
        }
        // 1.4: the v1-era reader refused more than 4096 bytes, the later v1..v2 reader took
        // any u16 length: accepted, with a warning past 4096.
        auto p = parse(e.out);
        CHECK_FALSE(p.findings.has_errors());
        CHECK(p.findings.warning_count() == (len > 4096 ? 2u : 1u));
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
    auto v3 =
        test::read_bytes(test::testdata() / "spark_save/real/valid/v3-fps-profile.spark_save");
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

// summarize applies the same rules as read, over the corpus of every format:
// tests/corpus/test_corpus.cpp.

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
    auto p = parse(
        test::read_bytes(test::testdata() / "spark_save/real/valid/v3-fps-profile.spark_save"));
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
    // A v4 save above k_parallel_crc (rules.hpp), built from many copies of one entity.
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

// ---------------------------------------------------------------------------------------------
// Metadata numbers as the engine's `stream >> field` reads them (formats/README.md §1.2). The
// oracle is std::istringstream itself, the very code the engine's ParseMetadataBlock runs: this
// test runs on libstdc++ (the engine's Linux build), the library the reader models.

namespace {

// What `>>` into T does from the start of `text`: success, where it stopped, the value.
template <class T> struct Streamed {
    bool ok = false;
    std::size_t end = 0;
    T value{};
};

template <class T> Streamed<T> stream_extract(const std::string& text) {
    std::istringstream in(text);
    Streamed<T> r;
    in >> r.value;
    r.ok = !in.fail();
    // eofbit: stage 2 ran to the end of the text (tellg would fail then).
    r.end = in.eof() ? text.size() : static_cast<std::size_t>(in.tellg());
    return r;
}

template <class T> void check_against_stream(const std::string& text, ValueType type) {
    CAPTURE(text);
    const Streamed<T> want = stream_extract<T>(text);
    const ss::Extraction got = ss::extract_number(text, 0, type);
    REQUIRE(got.ok() == want.ok);
    if (!want.ok) return;
    CHECK(got.end == want.end);
    if constexpr (std::is_same_v<T, float>) {
        CHECK(std::memcmp(&got.f, &want.value, sizeof(float)) == 0); // -0 is not 0
    } else if constexpr (std::is_same_v<T, int>) {
        CHECK(got.i == want.value);
    } else {
        CHECK(got.u == want.value);
    }
}

// A random number-ish word: signs, leading zeros, digits, a point, an exponent, and the odd
// character no number has.
std::string random_number(std::mt19937& rng) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    static const char* const k_special[] = {"nan",
                                            "inf",
                                            "0x1p3",
                                            "-0x10",
                                            "1e39",
                                            "-1e39",
                                            "1e-50",
                                            "1e-40",
                                            "2147483647",
                                            "2147483648",
                                            "-2147483648",
                                            "-2147483649",
                                            "18446744073709551615",
                                            "18446744073709551616",
                                            "-18446744073709551615",
                                            "-18446744073709551616",
                                            "9223372036854775808",
                                            "1,000",
                                            "1_000",
                                            ".",
                                            "-",
                                            "+",
                                            "e5",
                                            ".e5",
                                            "1e",
                                            "1e+",
                                            "+-1",
                                            "--1",
                                            "3.40282347e38",
                                            "3.40282357e38",
                                            "1.17549435e-38",
                                            "0.000001e-32"};
    if (pick(8) == 0) return k_special[pick(static_cast<int>(std::size(k_special)))];
    std::string s;
    switch (pick(6)) {
    case 0:
        s += '+';
        break;
    case 1:
        s += '-';
        break;
    default:
        break;
    }
    for (int i = pick(4) == 0 ? pick(4) : 0; i > 0; --i) s += '0';
    for (int i = pick(8); i > 0; --i) s += static_cast<char>('0' + pick(10));
    if (pick(3) == 0) {
        s += '.';
        for (int i = pick(5); i > 0; --i) s += static_cast<char>('0' + pick(10));
    }
    if (pick(4) == 0) {
        s += pick(2) ? 'e' : 'E';
        if (pick(2)) s += pick(2) ? '+' : '-';
        for (int i = pick(3); i > 0; --i) s += static_cast<char>('0' + pick(10));
    }
    if (pick(10) == 0) s += "x.,e+-a"[pick(7)];
    return s;
}

// Mostly numbers every field type reads (so that blocks load often), sometimes anything.
std::string plausible_number(std::mt19937& rng) {
    if (rng() % 25 == 0) return random_number(rng);
    std::string s;
    if (rng() % 4 == 0) s += rng() % 2 ? '+' : '-';
    if (rng() % 4 == 0) s += "00";
    s += static_cast<char>('0' + rng() % 10);
    for (int i = static_cast<int>(rng() % 4); i > 0; --i) s += static_cast<char>('0' + rng() % 10);
    if (rng() % 6 == 0) s += ".5";
    if (rng() % 8 == 0) s += rng() % 2 ? "e+2" : "E-3";
    return s;
}

std::string random_separator(std::mt19937& rng) {
    static const char* const k_separators[] = {"\n", "\n",   "\n",    " ",    "",
                                               "\t", "\r\n", "  \n ", "\n\n", "\v\f"};
    return k_separators[rng() % std::size(k_separators)];
}

// The engine's ParseMetadataBlock, written from its source (formats/README.md §1.8) with the same
// standard-library calls, plus the CR check its load applies (ValidateSaveDataShape).
struct EngineMetadata {
    bool ok = false;
    std::string strings[4];
    std::uint64_t timestamp = 0;
    float floats[6] = {};
    int kills = 0, deaths = 0;
};

EngineMetadata engine_parse(const std::string& block, int string_lines) {
    EngineMetadata m;
    std::istringstream stream(block);
    for (int i = 0; i < string_lines; ++i)
        if (!std::getline(stream, m.strings[i])) return m;
    stream >> m.timestamp;
    for (float& f : m.floats) stream >> f;
    stream >> m.kills >> m.deaths;
    if (!stream) return m;
    for (float f : m.floats)
        if (!std::isfinite(f)) return m;
    stream >> std::ws;
    if (!stream.eof()) return m;
    for (int i = 0; i < string_lines; ++i)
        if (m.strings[i].find_first_of("\r\n") != std::string::npos) return m;
    m.ok = true;
    return m;
}

} // namespace

TEST_CASE("metadata numbers: the reader's `>>` model agrees with std::istringstream") {
    using sparksave::ValueType;
    // The rules of formats/README.md §1.2, one by one.
    for (const char* t : {"+5", "007", "-0", "-1", "42.5", "4-1", "18446744073709551615",
                          "18446744073709551616", "-18446744073709551615", "0x10", " \n\t7"})
        check_against_stream<std::uint64_t>(t, ValueType::unsigned_integer);
    for (const char* t : {"+5", "007", "-0", "4-1", "4.5", "2147483647", "2147483648",
                          "-2147483648", "-2147483649", "99999999999999999999", "+-5", "- 5"})
        check_against_stream<int>(t, ValueType::integer);
    for (const char* t : {".5",   "5.",    "0042.5", "1E5",   "1e+5x", "-0",  "+.5",
                          "1e39", "1e-50", "1e-40",  "0x1p3", "nan",   "inf", "1e",
                          "1e+",  ".",     ".e5",    "1.5.5", "1e5.5", "2-3", "1,5"})
        check_against_stream<float>(t, ValueType::floating);
    // And random words, with something after them.
    std::mt19937 rng(12);
    for (int i = 0; i < 20000; ++i) {
        std::string text = random_number(rng) + random_separator(rng) + random_number(rng);
        check_against_stream<std::uint64_t>(text, ValueType::unsigned_integer);
        check_against_stream<int>(text, ValueType::integer);
        check_against_stream<float>(text, ValueType::floating);
    }
    // The build differences are flagged: underflow, and the x of a hex float.
    CHECK(ss::extract_number("1e-50", 0, ValueType::floating).underflow);
    CHECK(ss::extract_number("1e-40", 0, ValueType::floating).underflow);
    CHECK_FALSE(ss::extract_number("0.000", 0, ValueType::floating).underflow);
    CHECK(ss::extract_number("0x1p3", 0, ValueType::floating).hex_prefix);
    CHECK_FALSE(ss::extract_number("0.5x", 0, ValueType::floating).hex_prefix);
}

TEST_CASE("metadata blocks: random separators, signs, zeros and exponents against the engine's "
          "own parse") {
    std::mt19937 rng(20261201);
    int loaded = 0, refused = 0;
    for (int round = 0; round < 6000; ++round) {
        const std::uint32_t version = 3 + rng() % 2;
        std::string block = "Name\nScene\nClass\nshot.png";
        if (rng() % 40 == 0) block.insert(2, "\r");
        block += '\n';
        int numbers = 9; // sometimes one too few or too many
        if (rng() % 5 == 0) numbers += static_cast<int>(rng() % 3) - 1;
        for (int i = 0; i < numbers; ++i) {
            block += plausible_number(rng);
            block += i + 1 < numbers ? random_separator(rng) : std::string(rng() % 2, '\n');
        }
        if (rng() % 30 == 0) block += "tail";
        CAPTURE(block);
        const EngineMetadata want = engine_parse(block, 4);
        ss::MetadataBlock meta;
        bool refused_by_reader = false;
        auto refuse = [&](std::size_t, std::string, std::string) { refused_by_reader = true; };
        auto ignore = [](std::size_t, std::string, std::string) {};
        ss::parse_metadata_block(block, 0, version, meta, refuse, ignore, ignore);
        REQUIRE(refused_by_reader == !want.ok);
        // The whole file: the engine's verdict is the same.
        Encoder e;
        e.out = header(version, block);
        e.u32(0);
        e.u32(0);
        std::string file = version == 4 ? with_crc(e.out) : e.out;
        const Summary s = ss::summarize(file);
        CHECK(s.engine_loads == want.ok);
        if (!want.ok) {
            ++refused;
            continue;
        }
        ++loaded;
        REQUIRE(meta.count == 13);
        CHECK(meta.fields[4].u == want.timestamp);
        for (int i = 0; i < 6; ++i)
            CHECK(std::memcmp(&meta.fields[5 + i].f, &want.floats[i], sizeof(float)) == 0);
        CHECK(meta.fields[11].i == want.kills);
        CHECK(meta.fields[12].i == want.deaths);
    }
    MESSAGE("blocks the engine loads: ", loaded, ", refuses: ", refused);
    CHECK(loaded > 1000);
    CHECK(refused > 1000);
}

TEST_CASE("info shows metadata numbers as the engine reads them") {
    const std::string block =
        "Name\nScene\nClass\nshot.png\n+01700000000\n.5\n007\n+5\n1 2-3\n-0\n+4\n";
    const Summary s = ss::summarize(with_crc(header(4, block) + std::string(8, '\0')));
    REQUIRE(s.engine_loads);
    auto field = [&](std::string_view key) -> const InfoField* {
        for (const auto& f : s.metadata)
            if (f.key == key) return &f;
        return nullptr;
    };
    REQUIRE(field("timestampUnix"));
    CHECK(field("timestampUnix")->text == "1700000000");
    CHECK(field("playTimeSeconds")->text == "0.5");
    CHECK(field("playerHealth")->text == "7");
    CHECK(field("playerHealth")->numeric);
    CHECK(field("playerArmor")->text == "5");
    CHECK(field("position")->text == "1 2 -3");
    CHECK(field("playerKills")->text == "0");
    CHECK(field("playerDeaths")->text == "4");
    // A negative timestamp wraps, with a warning (the engine's next save writes the big value).
    const Summary w = ss::summarize(
        with_crc(header(4, "N\nS\nC\nP\n-1\n1\n1\n1\n1 2 3\n1\n1\n") + std::string(8, '\0')));
    CHECK(w.engine_loads);
    CHECK_FALSE(w.findings.has_errors());
    CHECK(w.findings.warning_count() == 1);
    CHECK(w.metadata[5].text == "18446744073709551615");
}

TEST_CASE(
    "the metadata table is formats/README.md §1.2, and the parser, layout and info follow it") {
    // 1.2's field lists, written out here independently of the table.
    const std::vector<std::string> v1 = {"saveName",    "sceneName",    "playerClass", "timestamp",
                                         "playTime",    "playerHealth", "playerArmor", "position",
                                         "playerKills", "playerDeaths"};
    std::vector<std::string> v2 = v1;
    v2.insert(v2.begin() + 3, "screenshotPath");
    for (std::uint32_t version = 1; version <= ss::k_current_version; ++version) {
        CAPTURE(version);
        std::vector<std::string> names;
        for (const auto& f : ss::k_meta_fields)
            if (ss::in_version(f, version)) names.emplace_back(f.name);
        CHECK(names == (version == 1 ? v1 : v2));
        // The parsed tokens laid out again are the writer's block (the fixture is laid out so).
        const std::string block = meta(version);
        ss::MetadataBlock m;
        auto refuse = [](std::size_t, std::string, std::string message) { FAIL(message); };
        ss::parse_metadata_block(block, 0, version, m, refuse, refuse, refuse);
        REQUIRE(m.complete);
        REQUIRE(m.count == names.size() + 2); // position's three parts
        std::vector<std::string_view> texts;
        for (std::size_t i = 0; i < m.count; ++i) texts.push_back(m.fields[i].text);
        CHECK(ss::layout_block(texts, version) == block);
        // The tree: one node per field, position's parts x y z under it.
        std::string file = header(version, block) + std::string(8, '\0');
        if (version == ss::k_current_version) file = with_crc(file);
        const Parsed p = parse(file);
        CHECK(value_at(p.doc, "metadata.position.z") == "3");
        CHECK(value_at(p.doc, "metadata.playerDeaths") == "1");
        // info: each field once, by its table label, in block order.
        const Summary s = ss::summarize(file);
        CHECK_FALSE(s.findings.has_errors());
        std::vector<std::string> keys, labels;
        for (const auto& f : s.metadata)
            if (!f.label.empty()) keys.push_back(f.key), labels.push_back(f.label);
        CHECK(keys == names);
        CHECK(labels.front() == "save name");
        CHECK(labels.back() == "deaths");
    }
    // A v1 block rendered for v2 gets the field it lacks, in its place (1.6).
    ss::MetadataBlock m;
    auto ignore = [](std::size_t, std::string, std::string) {};
    const std::string v1_block = meta(1); // the parsed fields are views into it
    ss::parse_metadata_block(v1_block, 0, 1, m, ignore, ignore);
    CHECK(ss::render_metadata(m, v1_block, "shot.png") == meta(2));
}

TEST_CASE("the engine verdict is a field of the summary, not cut from engine_note") {
    const Summary v2 = ss::summarize(header(2, meta(2)) + std::string(8, '\0'));
    CHECK_FALSE(v2.engine_loads);
    CHECK(v2.engine_verdict == "needs migration");
    CHECK(v2.engine_note == "needs migration (the current engine loads v3 and v4 only)");
    const Summary v3 = ss::summarize(header(3, meta(3)) + std::string(8, '\0'));
    CHECK(v3.engine_loads);
    CHECK(v3.engine_verdict == "loads it");
    // Every format sets it, for every file of its corpus (info prints it; nothing cuts the note).
    for (const FormatInfo& format : format_table())
        for (const char* kind : {"valid", "invalid"})
            for (const auto& file : test::corpus_files(test::testdata() / format.name, kind, "")) {
                if (file.extension() == ".expect") continue;
                CAPTURE(file);
                const Summary s = format.summarize(test::read_bytes(file));
                CHECK_FALSE(s.engine_verdict.empty());
                CHECK_FALSE(s.engine_note.empty());
            }
}

TEST_CASE("shifted metadata: the engine loads it, reads other fields, and the error says what") {
    // The classic: a v1 block (no screenshotPath) under a version field that says 3.
    const std::string v1_block = meta(1);
    const Summary s = ss::summarize(header(3, v1_block) + std::string(8, '\0'));
    CHECK(s.engine_loads);
    REQUIRE(s.findings.error_count() == 1);
    const Error& e = s.findings.items().front();
    CHECK(e.code == ErrorCode::bad_metadata);
    CHECK(e.path == "metadata.timestamp");
    for (const char* part : {"10 lines of a v1 block", "timestamp = 42,", "playTime = 0.5",
                             "playerHealth = 75", "position.x = 1", "playerDeaths = 1"})
        CHECK_MESSAGE(e.message.find(part) != std::string::npos, part);
    // The same numbers, each on its own line, read as written: no finding.
    const Summary ok = ss::summarize(header(3, meta(3)) + std::string(8, '\0'));
    CHECK(ok.engine_loads);
    CHECK(ok.findings.items().empty());
    // Blank lines and blanks around numbers do not shift anything; `2-3` inside position does
    // not either (all three come from the position line).
    const Summary blanks = ss::summarize(
        header(3, "N\nS\nC\nP\n\n 1700000000 \n\n42.5\n75\n25\n1 2-3\n4\n1") + std::string(8, 0));
    CHECK(blanks.findings.items().empty());
    // A v1 file with a v2 block is refused by the stricter reader (a warning), not shifted.
    const Summary v1 = ss::summarize(header(1, meta(2)) + std::string(8, '\0'));
    CHECK_FALSE(v1.findings.has_errors());
    CHECK(v1.findings.warning_count() == 2); // needs_migration, and the timestamp "shot.png"
}

TEST_CASE("a CR in a metadata string: refused by v3/v4, a warning for v1/v2") {
    std::string block = meta(4);
    block.insert(3, "\r");
    const Summary v4 = ss::summarize(with_crc(header(4, block) + std::string(8, '\0')));
    CHECK_FALSE(v4.engine_loads);
    CHECK(v4.findings.error_count() == 1);
    const Summary v2 = ss::summarize(header(2, block) + std::string(8, '\0'));
    CHECK_FALSE(v2.findings.has_errors());
    CHECK(v2.findings.warning_count() == 2);
}

TEST_CASE("Transform parent is read with std::from_chars") {
    CHECK(ss::parse_parent_index("1") == 1);
    CHECK(ss::parse_parent_index("01") == 1);
    CHECK(ss::parse_parent_index("-01") == -1);
    CHECK(ss::parse_parent_index("-0") == 0);
    CHECK(ss::parse_parent_index("9223372036854775807") == INT64_MAX);
    for (const char* bad : {"+1", " 1", "1 ", "\t1", "1\n", "", "-", "+-1", "1.0", "0x1",
                            "9223372036854775808", "1e2"})
        CHECK_MESSAGE(!ss::parse_parent_index(bad), bad);
    // Through the reader: an error in v4, a warning in v2 (its reader has no hierarchy).
    auto file = [](std::uint32_t version, const std::string& parent) {
        Encoder e;
        e.out = header(version, meta(version));
        e.u32(2);
        for (const std::string& p : {std::string("-1"), parent}) {
            e.str("e");
            e.u16(1);
            e.str("Transform");
            e.u16(1);
            e.str("parent");
            e.str(p);
        }
        e.u32(0);
        return version == 4 ? with_crc(e.out) : e.out;
    };
    CHECK(ss::summarize(file(4, "0")).engine_loads);
    CHECK(ss::summarize(file(4, "00")).engine_loads);
    for (const char* bad : {"+0", " 0", "0 "}) {
        const Summary s = ss::summarize(file(4, bad));
        CHECK_FALSE(s.engine_loads);
        CHECK(s.findings.error_count() == 1);
        const Summary old = ss::summarize(file(2, bad));
        CHECK_FALSE(old.findings.has_errors());
    }
}

TEST_CASE("the engine verdict over the corpus: only shifted metadata loads among invalid files") {
    for (const char* dir : {"valid", "invalid"}) {
        for (const auto& file :
             test::corpus_files(test::testdata() / "spark_save", dir, ".spark_save")) {
            CAPTURE(file.filename().string());
            const std::string bytes = test::read_bytes(file);
            const Summary s = ss::summarize(bytes);
            const std::string name = file.filename().string();
            const bool legacy = s.version_known && s.version < 3;
            const bool shifted = name.find("shifted") != std::string::npos ||
                                 name.find("one-line") != std::string::npos;
            // Valid v3/v4 files load; v1/v2 need migration; of the invalid ones only those the
            // engine loads but misreads (shifted metadata) load.
            const bool loads = !legacy && (std::string_view(dir) == "valid" || shifted);
            CHECK(s.engine_loads == loads);
        }
    }
}

TEST_CASE("stream: an item whose children the consumer declines comes as its node alone, read and "
          "checked all the same") {
    // What a consumer saw of each item: its name, span and child count, and the findings.
    struct Seen : Parts {
        bool bare_odd = false;
        std::vector<std::string> items;
        Result<void> head(Document&, std::uint64_t) override { return {}; }
        Result<void> item(Document& doc, NodeId item, std::uint64_t index) override {
            const Span s = doc.node(item).span;
            items.push_back(fmt::format("{} {} {}+{} {}", index, doc.name(item), s.offset, s.length,
                                        doc.child_count(item)));
            return {};
        }
        Result<void> tail(Document&) override { return {}; }
        bool wants_children(std::uint64_t index) override { return !bare_odd || index % 2 == 0; }
    };
    std::mt19937 rng(26);
    int bare = 0;
    for (int round = 0; round < 60; ++round) {
        std::string bytes = test::random_spark_save(rng, 1 + static_cast<std::uint32_t>(round % 4));
        if (round % 3 == 1) bytes.resize(bytes.size() * 2 / 3); // cut short: stopped part way
        auto source = std::make_shared<const Source>(bytes);
        Seen full, odd;
        odd.bare_odd = true;
        const PartsRead a = ss::stream(source, full), b = ss::stream(source, odd);
        CHECK(a.findings.items().size() == b.findings.items().size());
        CHECK(a.findings.error_count() == b.findings.error_count());
        REQUIRE(full.items.size() == odd.items.size());
        for (std::size_t i = 0; i < full.items.size(); ++i) {
            if (i % 2 == 0) {
                CHECK(odd.items[i] == full.items[i]);
                continue;
            }
            // The same name and span, no children.
            const std::string& f = full.items[i];
            CHECK(odd.items[i] == f.substr(0, f.rfind(' ')) + " 0");
            ++bare;
        }
    }
    CHECK(bare > 20);
}
