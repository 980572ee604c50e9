// tess world archives (formats/README.md §4): the real files, every check of 4.3 and its order on
// bytes made by hand, hostile sizes, columns (types, exact floats, lossless JSON), the writer,
// pack, diff by tile, and the migration v1 -> v2 of 4.4.
#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/column.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"
#include "tess_world/api.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <tuple>

using namespace sparksave;

namespace {

using test::value_at;

Parsed parse(std::string bytes, bool salvage = true) {
    return tess_world::read(std::make_shared<const Source>(std::move(bytes)), ReadOptions{salvage});
}

// A valid file of the corpus (generated, or the engine's own in real/valid/) by its name.
std::string real(const char* name) {
    for (const auto& dir : test::corpus_dirs(test::testdata() / "tess_world", "valid"))
        if (std::filesystem::exists(dir / name)) return test::read_bytes(dir / name);
    FAIL("missing fixture ", name);
    return {};
}

// "error bad_chunk chunks[1].key" lines joined by " | ".
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

// An encoder of its own, from formats/README.md §4.1 and 4.2, for corner cases made by hand.
struct Tess {
    std::uint32_t version = 2;
    std::array<std::uint64_t, 3> world{1, 1, 1};
    std::array<std::uint64_t, 3> chunk{1, 1, 1};
    std::uint32_t lattice = 0x4F525448;
    std::array<std::uint32_t, 3> library{0, 13, 0};
    std::uint8_t residency = 1;
    std::uint32_t key_layout = 1;
    std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint8_t, std::uint32_t>> fields;
    std::string records;
    std::uint64_t chunks = 0;
    std::optional<std::uint64_t> chunk_count, body_size;
    std::optional<std::uint32_t> field_count, crc;

    void field(std::uint64_t id, std::uint8_t kind, std::uint32_t width) {
        fields.emplace_back(id, 1, kind, width);
    }
    // A record: prefix, then `columns` (already encoded).
    void record(std::uint64_t key, const std::string& columns, std::uint8_t state = 1) {
        put(records, key, 8);
        if (version == 1) put(records, state, 1);
        put(records, 0xF00D, 4);
        put(records, 3, 4);
        records += columns;
        ++chunks;
    }
    std::string encode() const {
        std::string body;
        for (auto [id, v, kind, width] : fields) {
            put(body, id, 8);
            put(body, v, 4);
            put(body, kind, 1);
            put(body, width, 4);
        }
        body += records;
        std::string h = std::string("TESSWLD\0", 8);
        put(h, version, 4);
        put(h, body_size.value_or(body.size()), 8);
        put(h, 0, 4);
        for (auto v : world) put(h, v, 8);
        for (auto v : chunk) put(h, v, 8);
        put(h, lattice, 4);
        put(h, 1, 4);
        put(h, key_layout, 4);
        put(h, 0x0102030405060708, 8);
        put(h, 9, 4);
        for (auto v : library) put(h, v, 4);
        put(h, residency, 1);
        put(h, field_count.value_or(static_cast<std::uint32_t>(fields.size())), 4);
        put(h, chunk_count.value_or(chunks), 8);
        std::string all = h + body;
        const std::uint32_t c = crc.value_or(crc32_update(
            crc32(std::string_view(all).substr(0, 20)), std::string_view(all).substr(24)));
        for (int i = 0; i < 4; ++i)
            all[static_cast<std::size_t>(20 + i)] = static_cast<char>((c >> (8 * i)) & 0xFF);
        return all;
    }
};

std::string u8s(std::initializer_list<int> v) {
    std::string s;
    for (int b : v) s += static_cast<char>(b);
    return s;
}

} // namespace

TEST_CASE(
    "the real golden v2 archive reads as its README describes, and writes back byte for byte") {
    const std::string bytes = real("tess-golden-v2.tessw");
    REQUIRE(bytes.size() == 155);
    auto p = parse(bytes);
    CHECK(p.findings.items().empty());
    CHECK(p.doc.version() == 2);
    CHECK(value_at(p.doc, "header.worldSize.x") == "1");
    CHECK(value_at(p.doc, "header.lattice") == "orthogonal");
    CHECK(value_at(p.doc, "header.residency") == "dense");
    CHECK(value_at(p.doc, "header.schemaId") == "0x0102030405060708");
    CHECK(value_at(p.doc, "header.schemaVersion") == "9");
    CHECK(value_at(p.doc, "header.libraryVersion.minor") == "13");
    CHECK(value_at(p.doc, "header.checksum") == "0xa396f716");
    CHECK(value_at(p.doc, "fields[0].id") == "0x1112131415161718");
    CHECK(value_at(p.doc, "fields[0].version") == "3");
    CHECK(value_at(p.doc, "fields[0].kind") == "unsigned");
    CHECK(value_at(p.doc, "chunks[0].activeMask") == "0x01020304");
    CHECK(value_at(p.doc, "chunks[0].entityCount") == std::to_string(0x05060708));
    CHECK(value_at(p.doc, "chunks[name=0].key") == "0");
    const NodeId column = *resolve(p.doc, *NodePath::parse("chunks[0].fields[0]"));
    CHECK(p.doc.node(column).kind == NodeKind::column);
    CHECK(column_type_name(column_type(p.doc, column)) == "u8");
    CHECK(p.doc.value(column) == "\xAB");
    CHECK(p.doc.node(column).span.offset == 154);
    auto written = tess_world::write(p.doc);
    REQUIRE(written);
    CHECK(*written == bytes);

    Summary s = tess_world::summarize(bytes);
    CHECK(s.integrity == Integrity::verified);
    CHECK(s.checksum == 0xA396F716u);
    CHECK(s.engine_loads);
    std::string meta;
    for (const auto& f : s.metadata) meta += f.key + "=" + f.text + ";";
    CHECK(
        meta ==
        "worldSize=1 x 1 x 1;chunkSize=1 x 1 x 1;lattice=orthogonal, version 1;keyLayoutVersion=1;"
        "schema=0x0102030405060708, version 9;tessLibrary=0.13.0;residency=dense;"
        "fields=0x1112131415161718 v3 unsigned 1-byte;");
}

TEST_CASE("the real v1 archive is a retired format that needs migration, not garbage") {
    auto p = parse(real("tess-canonical-v1.tessw"));
    REQUIRE(p.findings.items().size() == 1);
    const Error& w = p.findings.items()[0];
    CHECK(w.severity == Severity::warning);
    CHECK(w.code == ErrorCode::needs_migration);
    CHECK(w.message.find("retired format: run `sparksave migrate`") != std::string::npos);
    CHECK(w.message.find("UnsupportedFormat") != std::string::npos);
    CHECK(p.doc.version() == 1);
    CHECK(value_at(p.doc, "chunks[0].state") == "1");
    CHECK(value_at(p.doc, "chunks[0].fields[0]") == "\xAB");
    Summary s = tess_world::summarize(real("tess-canonical-v1.tessw"));
    CHECK_FALSE(s.engine_loads);
    CHECK(s.engine_note.starts_with("needs migration"));
}

TEST_CASE("4.4: the real v1 file migrates to the golden v2 file but for the library version and "
          "the CRC") {
    const std::string golden = real("tess-golden-v2.tessw");
    auto in = parse(real("tess-canonical-v1.tessw"));
    auto m = migrate(in.doc, 2);
    REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
    REQUIRE(m->steps.size() == 1);
    CHECK(m->steps[0]->id == "tess_world_v1_to_v2");
    CHECK(test::note_texts(m->notes) ==
          std::vector<std::string>{"dropped the chunk-state byte of 1 chunk (values: 1 x1)"});
    const std::string& out = m->bytes;
    REQUIRE(out.size() == golden.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        const bool checksum = i >= 20 && i < 24;
        const bool library = i >= 96 && i < 108;
        if (!checksum && !library) CHECK_MESSAGE(out[i] == golden[i], "byte ", i);
    }
    // The library version stays the v1 file's 0.12.0 (4.4); the golden says 0.13.0.
    CHECK(out.substr(96, 12) == u8s({0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0}));
    CHECK(golden.substr(96, 12) == u8s({0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0}));
    // With the golden's library version, the result is the golden file exactly.
    std::string patched = out;
    patched[100] = 13;
    auto again = parse(patched);
    REQUIRE(again.findings.items().size() == 1); // the CRC no longer matches the patched byte
    auto rewritten = tess_world::write(again.doc);
    REQUIRE(rewritten);
    CHECK(*rewritten == golden);
    auto check = parse(out);
    CHECK(check.findings.items().empty());
    CHECK(check.doc.version() == 2);
    std::string diff = test::check_golden(
        test::testdata() / "migrations/tess_world/tess-canonical-v1.v2.tessw", out);
    CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("4.4: a generated v1 archive keeps every value and loses only its chunk states") {
    const std::string input = real("v1-sparse-states.tessw");
    auto in = parse(input);
    auto m = migrate(in.doc, 2);
    REQUIRE(m);
    CHECK(
        test::note_texts(m->notes) ==
        std::vector<std::string>{"dropped the chunk-state byte of 3 chunks (values: 0 x2, 1 x1)"});
    auto out = parse(m->bytes);
    REQUIRE(out.findings.items().empty());
    CHECK(m->bytes.size() == input.size() - 3);
    for (const char* path :
         {"chunks[0].fields[0]", "chunks[1].fields[1]", "chunks[2].key", "chunks[2].activeMask",
          "header.libraryVersion.patch", "header.residency", "fields[1].kind"})
        CHECK_MESSAGE(value_at(out.doc, path) == value_at(in.doc, path), path);
    CHECK_FALSE(resolve(out.doc, *NodePath::parse("chunks[0].state")));
    // The input document is untouched (steps work on a copy).
    CHECK(value_at(in.doc, "chunks[1].state") == "1");
    std::string diff = test::check_golden(
        test::testdata() / "migrations/tess_world/v1-sparse-states.v2.tessw", m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
    // Migrating a v2 file: nothing to do.
    CHECK(plan_migration(FormatId::tess_world, 2, 2)->empty());
}

TEST_CASE("4.3: the checks run in their order and the first failure wins") {
    Tess t;
    t.field(1, 1, 1);
    t.record(0, "\x05");
    REQUIRE(findings(parse(t.encode()).findings).empty());

    // Body too long is checked before the CRC: a file with both reports only the length.
    Tess a = t;
    a.crc = 1;
    a.body_size = 10;
    CHECK(findings(parse(a.encode()).findings) == "error trailing_bytes header.bodySize");
    // Field count before dimensions, dimensions before divisibility, before residency.
    Tess b = t;
    b.field_count = 2000;
    b.world = {0, 1, 1};
    b.residency = 9;
    CHECK(findings(parse(b.encode()).findings) == "error limit_exceeded header.fieldCount");
    b.field_count.reset();
    CHECK(findings(parse(b.encode()).findings) == "error bad_value header.worldSize.x");
    b.world = {3, 1, 1};
    b.chunk = {2, 1, 1};
    CHECK(findings(parse(b.encode()).findings) == "error bad_value header.worldSize.x");
    b.world = {2, 1, 1};
    CHECK(findings(parse(b.encode()).findings) == "error bad_value header.residency");
    // Residency before descriptors; descriptors before the record size.
    Tess c = t;
    c.fields = {{1, 1, 9, 1}};
    c.residency = 0;
    CHECK(findings(parse(c.encode()).findings) == "error bad_value header.residency");
    c.residency = 1;
    c.records += "xyz";
    CHECK(findings(parse(c.encode()).findings) == "error bad_descriptor fields[0].kind");
    // The record size before the dense count and the keys.
    Tess d = t;
    d.records += "x";
    d.chunk_count = 7;
    CHECK(findings(parse(d.encode()).findings) == "error size_mismatch chunks");
    // Every message names the tess status.
    const Parsed corrupt = parse(d.encode());
    for (const auto& e : corrupt.findings.items()) CHECK(e.message.ends_with("(tess: Corrupt)"));
    // A CRC mismatch: salvaging goes on, the careful read (diff, migrate) stops.
    Tess e = t;
    e.crc = 7;
    e.residency = 5;
    CHECK(findings(parse(e.encode()).findings) ==
          "error checksum_mismatch header.checksum | error bad_value header.residency");
    CHECK(findings(parse(e.encode(), false).findings) == "error checksum_mismatch header.checksum");
    // Every truncation of a valid file is a clean Truncated (or bad magic below 8 bytes: never).
    const std::string good = t.encode();
    for (std::size_t cut = 0; cut < good.size(); ++cut) {
        auto p = parse(good.substr(0, cut));
        REQUIRE(p.findings.has_errors());
        const ErrorCode code = p.findings.first_error()->code;
        CHECK_MESSAGE((code == ErrorCode::truncated || code == ErrorCode::bad_magic), cut);
        if (cut >= 8) CHECK(code == ErrorCode::truncated);
    }
}

TEST_CASE(
    "hostile sizes: huge counts and overflowing products are refused without work or memory") {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    // 2^64 - 1 chunks declared in a sparse archive with no record: the record-size equation.
    Tess a;
    a.residency = 2;
    a.world = {1ull << 40, 1ull << 20, 1};
    a.chunk = {1, 1, 1};
    a.chunk_count = ~std::uint64_t{0};
    CHECK(findings(parse(a.encode()).findings) == "error size_mismatch chunks");
    // A logical chunk count that overflows 64 bits is Corrupt before the dense count is compared.
    Tess b;
    b.world = {1ull << 40, 1ull << 40, 1};
    CHECK(findings(parse(b.encode()).findings) == "error limit_exceeded header.worldSize");
    // tiles x width overflows: 2^21 cubed tiles of 8 bytes.
    Tess c;
    c.residency = 2;
    c.world = c.chunk = {1ull << 21, 1ull << 21, 1ull << 21};
    c.field(1, 3, 8);
    CHECK(findings(parse(c.encode()).findings) == "error size_mismatch chunks");
    // tiles alone overflow: tess computes them before it looks at the fields, so even with no
    // field (a record of only its prefix) it is Corrupt.
    Tess d;
    d.residency = 2;
    d.world = d.chunk = {1ull << 32, 1ull << 32, 1};
    CHECK(findings(parse(d.encode()).findings) == "error size_mismatch header.chunkSize");
    // tiles x width fits (2^64 - 8), the 16-byte prefix on top does not.
    Tess e;
    e.residency = 2;
    e.world = e.chunk = {(1ull << 61) - 1, 1, 1};
    e.field(1, 1, 8);
    CHECK(findings(parse(e.encode()).findings) == "error size_mismatch chunks");
    // 1024 fields is the limit, 1025 is not.
    Tess f;
    f.residency = 2;
    for (std::uint64_t i = 0; i < 1024; ++i) f.field(i, 1, 1);
    CHECK(findings(parse(f.encode()).findings).empty());
    f.field(5000, 1, 1);
    CHECK(findings(parse(f.encode()).findings) == "error limit_exceeded header.fieldCount");
    CHECK(clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("columns: every element type, exact floats, lossless JSON both ways") {
    CHECK(column_type_name(make_column_type(ValueType::floating, 4)) == "f32");
    CHECK_FALSE(make_column_type(ValueType::boolean, 2).valid());
    CHECK_FALSE(make_column_type(ValueType::floating, 2).valid());
    CHECK(column_type_from_name("i16") == ColumnType{ValueType::integer, 2});
    CHECK_FALSE(column_type_from_name("u3").valid());
    auto text = [](ColumnType t, const std::string& bytes, std::size_t i) {
        std::string s;
        append_column_element(s, t, bytes, i);
        return s;
    };
    auto json = [](ColumnType t, const std::string& bytes, std::size_t i) {
        std::string s;
        append_column_element_json(s, t, bytes, i);
        return s;
    };
    const ColumnType f32 = column_type_from_name("f32"), f64 = column_type_from_name("f64");
    std::string f;
    for (std::uint32_t bits : {0x3DCCCCCDu, 0x80000000u, 0x00000001u, 0x7F800000u, 0xFF800000u,
                               0x7FC00001u, 0x7F7FFFFFu})
        put(f, bits, 4);
    CHECK(text(f32, f, 0) == "0.1");
    CHECK(text(f32, f, 1) == "-0");
    CHECK(text(f32, f, 2) == "1e-45");
    CHECK(text(f32, f, 3) == "inf");
    CHECK(text(f32, f, 4) == "-inf");
    CHECK(text(f32, f, 5) == "nan(0x7fc00001)");
    CHECK(text(f32, f, 6) == "3.4028235e+38");
    CHECK(json(f32, f, 3) == "\"0x7f800000\"");
    CHECK(json(f32, f, 5) == "\"0x7fc00001\"");
    std::string d;
    put(d, std::bit_cast<std::uint64_t>(0.1), 8);
    put(d, 0x7FF8000000000001ull, 8);
    CHECK(text(f64, d, 0) == "0.1");
    CHECK(text(f64, d, 1) == "nan(0x7ff8000000000001)");
    const ColumnType i8 = column_type_from_name("i8"), u64 = column_type_from_name("u64"),
                     b = column_type_from_name("bool");
    CHECK(text(i8, "\x80\x7f\xff", 0) == "-128");
    CHECK(text(i8, "\x80\x7f\xff", 2) == "-1");
    CHECK(text(u64, std::string(8, '\xff'), 0) == "18446744073709551615");
    CHECK(text(b, u8s({0, 1, 2}), 2) == "bool(2)");
    CHECK(json(b, u8s({0, 1, 2}), 1) == "true");

    // Every element type, random bit patterns: JSON and back gives the same bytes.
    std::mt19937_64 rng(7);
    for (const char* name : {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"}) {
        const ColumnType t = column_type_from_name(name);
        for (int i = 0; i < 2000; ++i) {
            std::string bytes;
            put(bytes, rng(), t.width);
            std::string out, expected;
            REQUIRE(parse_column_element(t, json(t, bytes, 0), out, expected));
            CHECK_MESSAGE(out == bytes, name, " ", json(t, bytes, 0));
        }
    }
    std::string out, expected;
    CHECK_FALSE(parse_column_element(column_type_from_name("u8"), "256", out, expected));
    CHECK(expected == "an integer from 0 to 255");
    CHECK_FALSE(parse_column_element(column_type_from_name("i16"), "-32769", out, expected));
    CHECK_FALSE(parse_column_element(f32, "1e39", out, expected));
    CHECK_FALSE(parse_column_element(f32, "\"0x1ffffffff\"", out, expected));
    CHECK_FALSE(parse_column_element(b, "\"true\"", out, expected));
    CHECK(out.empty());
}

TEST_CASE("the text dump prints columns decoded, 16 values a line with their own offsets") {
    auto p = parse(real("forty-tiles.tessw"));
    REQUIRE(p.findings.items().empty());
    const NodeId column = *resolve(p.doc, *NodePath::parse("chunks[0].fields[1]"));
    std::string text;
    print_text(p.doc, column, "chunks[0].fields[1]", PrintOptions{true}, text);
    CHECK(text ==
          "chunks[0].fields[1]: f32[40]  @0xfb+160\n"
          "  [0..15]: -3 -2.75 -2.5 -2.25 -2 -1.75 -1.5 -1.25 -1 -0.75 -0.5 -0.25 0 0.25 0.5 0.75  "
          "@0xfb+64\n"
          "  [16..31]: 1 1.25 1.5 1.75 2 2.25 2.5 2.75 3 3.25 3.5 3.75 4 4.25 4.5 4.75  @0x13b+64\n"
          "  [32..39]: 5 5.25 5.5 5.75 6 6.25 6.5 6.75  @0x17b+32\n");
    std::string json;
    print_json_subtree(p.doc, *resolve(p.doc, *NodePath::parse("chunks[0].fields[0]")), json);
    CHECK(json.starts_with("[0, 100, 200, "));
}

TEST_CASE("the writer recomputes the body size and the CRC, and refuses what v2 cannot hold") {
    auto p = parse(real("sparse-hex-axial.tessw"));
    REQUIRE(p.findings.items().empty());
    Document doc = p.doc;
    // Drop a chunk and change a tile: the body shrinks, the CRC follows.
    const NodeId chunks = doc.child(doc.root(), "chunks");
    doc.unlink(chunks, doc.child_at(chunks, 1));
    const NodeId column = *resolve(doc, *NodePath::parse("chunks[1].fields[0]"));
    doc.node(column).value = doc.text(u8s({1, 2, 3, 4}));
    auto bytes = tess_world::write(doc);
    REQUIRE(bytes);
    auto back = parse(*bytes);
    CHECK(back.findings.items().empty());
    CHECK(value_at(back.doc, "header.chunkCount") == "2");
    CHECK(value_at(back.doc, "chunks[1].key") == "7");
    CHECK(value_at(back.doc, "chunks[1].fields[0]") == u8s({1, 2, 3, 4}));
    // A v2 record has no state byte.
    Document with_state = p.doc;
    const NodeId first = with_state.child_at(with_state.child(with_state.root(), "chunks"), 0);
    with_state.append(first, NodeKind::scalar, with_state.text("state"), with_state.text("1"));
    auto refused = tess_world::write(with_state);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().path == "chunks[0].state");
}

// Every valid archive's dump packs back to it: tests/corpus/test_corpus.cpp.
TEST_CASE("tess world pack: edits of a dump are checked with their path") {
    std::string json;
    tess_world::to_json(parse(real("tess-golden-v2.tessw")).doc, json);
    auto edit = [&](std::string_view from, std::string_view to) {
        std::string j = json;
        const auto at = j.find(from);
        REQUIRE(at != std::string::npos);
        j.replace(at, from.size(), to);
        return tess_world::from_json(j);
    };
    auto changed = edit("[171]", "[172]");
    REQUIRE(changed);
    auto p = parse(changed->bytes);
    CHECK(p.findings.items().empty()); // CRC recomputed
    CHECK(value_at(p.doc, "chunks[0].fields[0]") == "\xAC");
    auto too_many = edit("[171]", "[171, 1]");
    REQUIRE_FALSE(too_many);
    CHECK(too_many.error().path == "chunks[0].fields[0]");
    CHECK(too_many.error().message ==
          "expected a value for each tile (1 tile: 1 x 1 x 1), found 2");
    auto too_big = edit("[171]", "[256]");
    REQUIRE_FALSE(too_big);
    CHECK(too_big.error().path == "chunks[0].fields[0][0]");
    auto with_state = edit("\"key\": 0,", "\"key\": 0, \"state\": 1,");
    REQUIRE_FALSE(with_state);
    CHECK(with_state.error().path == "chunks[0].state");
    auto hex_lattice = edit("\"orthogonal\"", "\"0x48455841\"");
    REQUIRE(hex_lattice);
    CHECK(value_at(parse(hex_lattice->bytes).doc, "header.lattice") == "hex-axial");
    CHECK_FALSE(edit("\"residency\": \"dense\"", "\"residency\": \"dense\", \"extra\": 1"));
    CHECK_FALSE(edit("\"version\": 2", "\"version\": 3"));
}

TEST_CASE("diff compares headers, descriptors and chunks by key, and columns tile by tile") {
    auto a = parse(real("sparse-hex-axial.tessw"));
    REQUIRE(a.findings.items().empty());
    Document b = a.doc;
    const NodeId column = *resolve(b, *NodePath::parse("chunks[1].fields[1]"));
    std::string v(b.value(column));
    v[8] = 5; // tile 2 of the u32 column of the chunk with key 4
    b.node(column).value = b.text(v);
    const NodeId chunks = b.child(b.root(), "chunks");
    b.unlink(chunks, b.child_at(chunks, 2)); // the chunk with key 7
    b.node(*resolve(b, *NodePath::parse("header.libraryVersion.minor"))).value = b.text("3");
    b.node(*resolve(b, *NodePath::parse("fields[0].version"))).value = b.text("8");
    auto written = tess_world::write(b);
    REQUIRE(written);
    auto c = parse(*written);
    REQUIRE(c.findings.items().empty());
    auto changes = [&](const DiffOptions& o) {
        std::string joined;
        auto r = diff(a.doc, c.doc, o, [&](const Change& ch) {
            std::string line = std::string(op_name(ch.op)) + " " + ch.path.str();
            if (ch.op == Change::Op::change)
                line += ch.old_node == k_no_node ? " " + ch.old_text + "->" + ch.new_text
                                                 : " " + std::string(a.doc.value(ch.old_node)) +
                                                       "->" + std::string(c.doc.value(ch.new_node));
            joined += line + "\n";
        });
        REQUIRE(r);
        return joined;
    };
    // The body size, the CRC-32 and the counts are derived (left out unless asked for).
    CHECK(changes({}) == "change header.libraryVersion.minor 2->3\n"
                         "change fields[0].version 7->8\n"
                         "change chunks[name=4].fields[1][2] 4294967295->4294967045\n"
                         "remove chunks[name=7]\n");
    DiffOptions derived;
    derived.derived = true;
    CHECK(changes(derived) == "change header.bodySize 142->106\n"
                              "change header.checksum 0x6c3d434e->" +
                                  value_at(c.doc, "header.checksum") +
                                  "\n"
                                  "change header.libraryVersion.minor 2->3\n"
                                  "change header.chunkCount 3->2\n"
                                  "change fields[0].version 7->8\n"
                                  "change chunks[name=4].fields[1][2] 4294967295->4294967045\n"
                                  "remove chunks[name=7]\n");
}

TEST_CASE("diff of columns: epsilon, ignore patterns, NaN bits and element types") {
    Tess t;
    t.world = t.chunk = {4, 1, 1};
    t.field(1, 3, 4);
    std::string cols;
    for (float x : {1.0f, 2.0f, 3.0f, 4.0f}) put(cols, std::bit_cast<std::uint32_t>(x), 4);
    t.record(0, cols);
    Tess u = t;
    u.records.clear();
    u.chunks = 0;
    std::string cols2;
    for (std::uint32_t bits :
         {std::bit_cast<std::uint32_t>(1.0f), std::bit_cast<std::uint32_t>(2.25f), 0x7FC00000u,
          std::bit_cast<std::uint32_t>(4.0f)})
        put(cols2, bits, 4);
    u.record(0, cols2);
    auto a = parse(t.encode()), b = parse(u.encode());
    auto paths = [&](DiffOptions o) { // header.checksum: derived, left out
        std::string out;
        REQUIRE(diff(a.doc, b.doc, o, [&](const Change& c) {
            out += c.path.str() + " " + c.old_text + "->" + c.new_text + ";";
        }));
        return out;
    };
    CHECK(paths({}) ==
          "chunks[name=0].fields[0][1] 2->2.25;chunks[name=0].fields[0][2] 3->nan(0x7fc00000);");
    DiffOptions eps;
    eps.epsilon = 0.5;
    CHECK(paths(eps) == "chunks[name=0].fields[0][2] 3->nan(0x7fc00000);");
    DiffOptions ignore;
    ignore.ignore.push_back(*NodePath::parse("chunks[*].fields[0][2]"));
    CHECK(paths(ignore) == "chunks[name=0].fields[0][1] 2->2.25;");
    // Another element type: the column changes as a whole.
    Tess w = t;
    w.fields = {{1, 1, 1, 4}};
    auto c = parse(w.encode());
    std::vector<Change> changes;
    REQUIRE(diff(a.doc, c.doc, {}, [&](const Change& ch) { changes.push_back(ch); }));
    REQUIRE(changes.size() == 2);
    CHECK(changes[0].path.str() == "fields[0].kind");
    CHECK(changes[1].path.str() == "chunks[name=0].fields[0]");
    CHECK(changes[1].old_node != k_no_node);
}

namespace {

// The tess status a finding's message ends with: "... (tess: Corrupt)" -> "Corrupt".
std::string tess_status(const Error& e) {
    const auto at = e.message.rfind("(tess: ");
    if (at == std::string::npos || !e.message.ends_with(")")) return "?";
    return e.message.substr(at + 7, e.message.size() - at - 8);
}

// The first error's tess status, or "Ok".
std::string first_status(const Findings& f) {
    const Error* e = f.first_error();
    return e ? tess_status(*e) : "Ok";
}

} // namespace

TEST_CASE("4.3: the record-size equation comes before the records: a missing, short or extra "
          "record is Corrupt, never InvalidChunk") {
    Tess t;
    t.residency = 2;
    t.world = {8, 1, 1};
    t.field(1, 1, 1);
    t.record(1, "\x01");
    t.record(2, "\x02");
    REQUIRE(findings(parse(t.encode()).findings).empty());
    // One record declared more than there are.
    Tess missing = t;
    missing.chunk_count = 3;
    auto p = parse(missing.encode());
    CHECK(findings(p.findings) == "error size_mismatch chunks");
    CHECK(first_status(p.findings) == "Corrupt");
    CHECK(p.findings.first_error()->offset == 121 + 17);
    CHECK(p.findings.first_error()->message.find("3 chunk records") != std::string::npos);
    // The last record cut short.
    Tess cut = t;
    cut.records.pop_back();
    CHECK(findings(parse(cut.encode()).findings) == "error size_mismatch chunks");
    // A record more than declared (tess: Corrupt, before it reads a key).
    Tess extra = t;
    extra.chunk_count = 1;
    CHECK(findings(parse(extra.encode()).findings) == "error size_mismatch chunks");
    // Even a bad key in the first record does not come first: the equation does.
    Tess bad_key = missing;
    bad_key.records.replace(0, 1, "\x09");
    CHECK(findings(parse(bad_key.encode()).findings) == "error size_mismatch chunks");
    // A dense archive with a record missing: the equation still holds, so the dense count speaks.
    Tess dense;
    dense.world = {2, 1, 1};
    dense.field(1, 1, 1);
    dense.record(0, "\x01");
    p = parse(dense.encode());
    CHECK(findings(p.findings) == "error bad_chunk header.chunkCount");
    CHECK(first_status(p.findings) == "InvalidChunk");
}

TEST_CASE("4.3: 121 + bodySize overflowing 64 bits is Corrupt, not Truncated") {
    Tess t;
    t.field(1, 1, 1);
    t.record(0, "\x05");
    for (std::uint64_t body : {~std::uint64_t{0}, ~std::uint64_t{0} - 120}) {
        Tess o = t;
        o.body_size = body;
        auto p = parse(o.encode());
        CHECK(findings(p.findings) == "error size_mismatch header.bodySize");
        CHECK(first_status(p.findings) == "Corrupt");
        CHECK(p.findings.first_error()->offset == 12);
    }
    // The largest body size whose sum fits is an ordinary Truncated.
    Tess fits = t;
    fits.body_size = ~std::uint64_t{0} - 121;
    auto p = parse(fits.encode());
    CHECK(findings(p.findings) == "error truncated header.bodySize");
    CHECK(first_status(p.findings) == "Truncated");
}

TEST_CASE("4.3: a logical chunk count that overflows 64 bits is Corrupt, sparse too, and such a "
          "v1 file does not migrate") {
    Tess t;
    t.residency = 2;
    t.world = {1ull << 40, 1ull << 40, 1};
    t.field(1, 1, 1);
    t.record(5, "\x01");
    auto p = parse(t.encode());
    CHECK(findings(p.findings) == "error limit_exceeded header.worldSize");
    CHECK(first_status(p.findings) == "Corrupt");
    Summary s = tess_world::summarize(t.encode());
    CHECK_FALSE(s.engine_loads);
    // 2^32 x 2^32 x 1 = 2^64 does not fit either; 2^32 x (2^32 - 1) x 1 does.
    t.world = {1ull << 32, 1ull << 32, 1};
    CHECK(findings(parse(t.encode()).findings) == "error limit_exceeded header.worldSize");
    t.world = {1ull << 32, (1ull << 32) - 1, 1};
    CHECK(findings(parse(t.encode()).findings).empty());
    // The same archive in v1: the read refuses it, so it is not migrated.
    Tess v1 = t;
    v1.version = 1;
    v1.world = {1ull << 40, 1ull << 40, 1};
    v1.records.clear();
    v1.chunks = 0;
    v1.record(5, "\x01", 1);
    auto in = parse(v1.encode());
    CHECK(findings(in.findings) ==
          "warning needs_migration version | error limit_exceeded header.worldSize");
    REQUIRE(in.findings.has_errors()); // what `migrate` refuses before any step ("does not parse")
    CHECK_FALSE(migrate(in.doc, 2));   // and the partial tree of the refused read does not migrate
}

TEST_CASE("v1: a chunk state above 1 is InvalidChunk (the 0.12 reader), after the key checks, and "
          "is not migrated") {
    Tess t;
    t.version = 1;
    t.library = {0, 12, 0};
    t.residency = 2;
    t.world = {4, 1, 1};
    t.field(1, 1, 1);
    t.record(0, "\x01", 0);
    t.record(1, "\x01", 1);
    auto ok = parse(t.encode());
    REQUIRE(findings(ok.findings) == "warning needs_migration version");
    REQUIRE(migrate(ok.doc, 2));
    for (int state : {2, 3, 0x80, 0xFF}) {
        Tess bad = t;
        bad.record(2, "\x01", static_cast<std::uint8_t>(state));
        auto p = parse(bad.encode());
        CHECK(findings(p.findings) == "warning needs_migration version | error bad_chunk "
                                      "chunks[2].state");
        CHECK(first_status(p.findings) == "InvalidChunk");
        CHECK(p.findings.first_error()->offset == 121 + 17 + 2 * 18 + 8);
        CHECK_FALSE(tess_world::summarize(bad.encode()).engine_loads);
    }
    // In one record the key comes first: out of range, then out of order, then the state.
    Tess order = t;
    order.record(7, "\x01", 2);
    CHECK(findings(parse(order.encode()).findings) ==
          "warning needs_migration version | error bad_chunk chunks[2].key");
    Tess repeat = t;
    repeat.record(1, "\x01", 2);
    CHECK(findings(parse(repeat.encode()).findings) ==
          "warning needs_migration version | error bad_chunk chunks[2].key");
    // The migration step itself refuses a state above 1 in a tree (a tree made by pack, say).
    Document doc = ok.doc;
    const NodeId state = *resolve(doc, *NodePath::parse("chunks[1].state"));
    doc.node(state).value = doc.text("2");
    auto m = migrate(doc, 2);
    REQUIRE_FALSE(m);
    CHECK(m.error().code == ErrorCode::bad_chunk);
    CHECK(m.error().path == "chunks[1].state");
    CHECK(m.error().message.find("InvalidChunk") != std::string::npos);
}

TEST_CASE("tess loads it: not where no tess world can, and the note says which rule") {
    Tess t;
    t.world = {4, 2, 1};
    t.chunk = {2, 2, 1};
    t.field(1, 1, 1);
    t.record(0, std::string(4, '\0'));
    t.record(1, std::string(4, '\0'));
    Summary s = tess_world::summarize(t.encode());
    REQUIRE(s.findings.items().empty());
    CHECK(s.engine_loads);
    CHECK(s.engine_note == "loads it");
    auto verdict = [](const Tess& x) {
        Summary v = tess_world::summarize(x.encode());
        CHECK_MESSAGE(!v.findings.has_errors(), findings(v.findings)); // the inspection passes
        return std::pair{v.engine_loads, v.engine_note};
    };
    // Chunk dimensions that are not powers of two (tess::Shape).
    Tess npot;
    npot.world = {6, 1, 1};
    npot.chunk = {3, 1, 1};
    npot.field(1, 1, 1);
    npot.record(0, std::string(3, '\0'));
    npot.record(1, std::string(3, '\0'));
    auto [loads, note] = verdict(npot);
    CHECK_FALSE(loads);
    CHECK(note == "no tess world loads it: chunk size 3 x 1 x 1 is not a power of two on every "
                  "axis (tess::Shape refuses it: ShapeMismatch for every world)");
    // A world axis above 2^63 - 1 (ShapeTraits); 2^63 - 1 itself is fine.
    Tess axis;
    axis.residency = 2;
    axis.world = {1, 1ull << 63, 1};
    axis.field(1, 1, 1);
    std::tie(loads, note) = verdict(axis);
    CHECK_FALSE(loads);
    CHECK(note == "no tess world loads it: world size y is 9223372036854775808, above 2^63 - 1 "
                  "(ShapeTraits refuses it: ShapeMismatch for every world)");
    axis.world = {1, (1ull << 63) - 1, 1};
    CHECK(verdict(axis).first);
    // A key layout other than 1.
    Tess layout = t;
    layout.key_layout = 0;
    std::tie(loads, note) = verdict(layout);
    CHECK_FALSE(loads);
    CHECK(note ==
          "no tess world loads it: key layout version 0, tess knows only 1 (KeyLayoutMismatch)");
    // No fields.
    Tess none;
    none.world = {2, 1, 1};
    none.record(0, "");
    none.record(1, "");
    std::tie(loads, note) = verdict(none);
    CHECK_FALSE(loads);
    CHECK(note == "no tess world loads it: no fields (a PersistenceSchema declares at least one: "
                  "FieldMismatch for every schema)");
    // Several at once, in the order load_world_archive compares them.
    Tess all = none;
    all.chunk = {1, 1, 1};
    all.world = {1ull << 63, 1, 1};
    all.residency = 2;
    all.records.clear();
    all.chunks = 0;
    all.key_layout = 7;
    std::tie(loads, note) = verdict(all);
    CHECK_FALSE(loads);
    CHECK(note == "no tess world loads it: world size x is 9223372036854775808, above 2^63 - 1 "
                  "(ShapeTraits refuses it: ShapeMismatch for every world); key layout version "
                  "7, tess knows only 1 (KeyLayoutMismatch); no fields (a PersistenceSchema "
                  "declares at least one: FieldMismatch for every schema)");
    // A v1 file says both: it needs migration, and after it no world loads it either.
    Tess v1 = none;
    v1.version = 1;
    v1.records.clear();
    v1.chunks = 0;
    v1.record(0, "", 1);
    v1.record(1, "", 0);
    std::tie(loads, note) = verdict(v1);
    CHECK_FALSE(loads);
    CHECK(note.starts_with("needs migration ("));
    CHECK(note.ends_with("; and then no tess world loads it: no fields (a PersistenceSchema "
                         "declares at least one: FieldMismatch for every schema)"));
    // The corpus files of each rule.
    for (const char* name :
         {"no-fields.tessw", "forty-tiles.tessw", "key-layout-2.tessw", "world-axis-2-63.tessw"}) {
        Summary c = tess_world::summarize(real(name));
        CHECK_MESSAGE(!c.findings.has_errors(), name);
        CHECK_MESSAGE(!c.engine_loads, name);
        CHECK_MESSAGE(c.engine_note.starts_with("no tess world loads it: "), name);
    }
    for (const char* name : {"tess-golden-v2.tessw", "dense-every-kind.tessw",
                             "sparse-hex-axial.tessw", "sparse-empty.tessw"})
        CHECK_MESSAGE(tess_world::summarize(real(name)).engine_loads, name);
}

TEST_CASE("4.3: a bool byte other than 0 or 1: the inspection says Ok, the load Corrupt, and the "
          "finding and the verdict say so") {
    Tess t;
    t.world = {2, 2, 1};
    t.chunk = {2, 2, 1};
    t.field(1, 1, 1);
    t.field(2, 4, 1);
    t.record(0, u8s({1, 2, 3, 4}) + u8s({1, 0, 1, 0}));
    REQUIRE(tess_world::summarize(t.encode()).engine_loads);
    for (int b : {2, 0x7F, 0xFF}) {
        Tess bad = t;
        bad.records[16 + 4 + 2] = static_cast<char>(b);
        auto p = parse(bad.encode());
        CHECK(findings(p.findings) == "error bad_value chunks[0].fields[1][2]");
        const Error& e = *p.findings.first_error();
        CHECK(e.offset == 121 + 34 + 16 + 4 + 2);
        CHECK(tess_status(e) == "Corrupt");
        CHECK(e.message.find(fmt::format("found {}", b)) != std::string::npos);
        CHECK(e.message.find("inspect_world_archive) reads it and says Ok") != std::string::npos);
        CHECK(e.message.find("load_world_archive) refuses it") != std::string::npos);
        Summary s = tess_world::summarize(bad.encode());
        CHECK_FALSE(s.engine_loads);
        CHECK(s.engine_note == "refuses to load it: a bool byte other than 0 or 1 "
                               "(inspect_world_archive says Ok, load_world_archive says Corrupt)");
    }
    // Any structural error comes first, and then the verdict is the ordinary one.
    Tess both = t;
    both.records[16 + 4 + 2] = 2;
    both.crc = 3;
    Summary s = tess_world::summarize(both.encode());
    CHECK(s.findings.first_error()->code == ErrorCode::checksum_mismatch);
    CHECK(s.engine_note == "refuses it: the file is invalid");
}

namespace {

// A model of formats/README.md §4.3, written for this test from the order of tess's
// parse_world_archive (0.13 for version 2, 0.12 for version 1) and load_world_archive, with 128-bit
// arithmetic instead of the reader's checked products. It returns the status tess's inspection
// returns and, when that is Ok, whether the load of a world that matches the header refuses the
// scalars ("Ok/Corrupt"), and whether any tess world can load it.
struct ModelVerdict {
    std::string status; // "Corrupt", ..., "Ok", or "Ok/Corrupt"
    bool world_loads = false;
};

ModelVerdict model(std::string_view b) {
    __extension__ typedef unsigned __int128 u128; // GCC and Clang; the reader uses none
    constexpr u128 k_max = std::numeric_limits<std::uint64_t>::max();
    auto le = [&](std::size_t at, int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i)
            v |= std::uint64_t{static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)])}
                 << (8 * i);
        return v;
    };
    auto is = [](const char* s) { return ModelVerdict{s, false}; };
    if (b.size() < 8) return is("Truncated");
    if (b.substr(0, 8) != std::string_view("TESSWLD\0", 8)) return is("InvalidMagic");
    if (b.size() < 12) return is("Truncated");
    const std::uint64_t version = le(8, 4);
    if (version != 1 && version != 2) return is("UnsupportedFormat");
    if (b.size() < 121) return is("Truncated");
    const std::uint64_t body = le(12, 8);
    if (u128{121} + body > k_max) return is("Corrupt");
    if (b.size() < 121 + body) return is("Truncated");
    if (b.size() != 121 + body) return is("Corrupt");
    if (crc32_update(crc32(b.substr(0, 20)), b.substr(24)) != le(20, 4)) return is("Corrupt");
    std::uint64_t world[3], chunk[3];
    for (int i = 0; i < 3; ++i) {
        world[i] = le(24 + 8 * static_cast<std::size_t>(i), 8);
        chunk[i] = le(48 + 8 * static_cast<std::size_t>(i), 8);
    }
    const std::uint64_t key_layout = le(80, 4), residency = le(108, 1), fields = le(109, 4),
                        count = le(113, 8);
    if (fields > 1024) return is("Corrupt");
    for (int i = 0; i < 3; ++i)
        if (world[i] == 0 || chunk[i] == 0 || world[i] % chunk[i] != 0) return is("Corrupt");
    if (residency != 1 && residency != 2) return is("Corrupt");
    std::size_t at = 121;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> descriptors; // id, kind << 8 | width
    u128 row = 0;
    for (std::uint64_t i = 0; i < fields; ++i, at += 17) {
        if (b.size() - at < 17) return is("Corrupt");
        const std::uint64_t id = le(at, 8), kind = le(at + 12, 1), width = le(at + 13, 4);
        const bool width_ok = width == 1 || width == 2 || width == 4 || width == 8;
        if (kind < 1 || kind > 4 || !width_ok || (kind == 4 && width != 1) ||
            (kind == 3 && width < 4))
            return is("Corrupt");
        for (const auto& d : descriptors)
            if (d.first == id) return is("Corrupt");
        descriptors.emplace_back(id, kind << 8 | width);
        row += width;
    }
    u128 tiles = u128{chunk[0]} * chunk[1];
    if (tiles > k_max) return is("Corrupt");
    tiles *= chunk[2];
    if (tiles > k_max) return is("Corrupt");
    const u128 record = (version == 1 ? 17 : 16) + tiles * row; // < 2^64 * 8193: fits
    if (record > k_max) return is("Corrupt");
    const u128 total = record * count; // both < 2^64: fits
    if (total + at != b.size()) return is("Corrupt");
    u128 logical = u128{world[0] / chunk[0]} * (world[1] / chunk[1]);
    if (logical > k_max) return is("Corrupt");
    logical *= world[2] / chunk[2];
    if (logical > k_max) return is("Corrupt");
    if (residency == 1 && count != logical) return is("InvalidChunk");
    bool bad_bool = false;
    std::uint64_t previous = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::size_t r = at + static_cast<std::size_t>(record * i);
        const std::uint64_t key = le(r, 8);
        if (key >= logical || (i > 0 && key <= previous)) return is("InvalidChunk");
        if (version == 1 && le(r + 8, 1) > 1) return is("InvalidChunk");
        previous = key;
        std::size_t column = r + (version == 1 ? 17 : 16);
        for (const auto& d : descriptors) {
            const std::uint64_t width = d.second & 0xFF;
            for (std::uint64_t t = 0; t < tiles; ++t)
                if ((d.second >> 8) == 4 && le(column + t, 1) > 1) bad_bool = true;
            column += static_cast<std::size_t>(tiles * width);
        }
    }
    if (bad_bool) return is("Ok/Corrupt");
    bool shape_ok = true;
    for (int i = 0; i < 3; ++i)
        shape_ok = shape_ok && (chunk[i] & (chunk[i] - 1)) == 0 &&
                   world[i] <= std::uint64_t{std::numeric_limits<std::int64_t>::max()};
    return {"Ok", version == 2 && shape_ok && key_layout == 1 && fields > 0};
}

std::string hex(std::string_view bytes) {
    std::string out;
    for (char c : bytes) out += fmt::format("{:02x}", static_cast<unsigned char>(c));
    return out;
}

// A random archive aimed at the edges of 4.3: sizes and counts that overflow or nearly do,
// records missing or extra, keys out of range or order, v1 states, bool bytes, a damaged CRC.
std::string random_archive(std::mt19937_64& rng) {
    auto pick = [&](std::initializer_list<std::uint64_t> v) {
        return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size()));
    };
    auto one_in = [&](std::uint64_t n) { return rng() % n == 0; };
    Tess t;
    t.version = one_in(3) ? 1 : one_in(20) ? 3 : 2;
    t.residency = static_cast<std::uint8_t>(one_in(12) ? pick({0, 3}) : pick({1, 2}));
    t.key_layout = one_in(8) ? 2 : 1;
    for (int i = 0; i < 3; ++i) {
        const std::uint64_t c =
            one_in(6) ? pick({0, 3, 1ull << 32, (1ull << 61) - 1, 1ull << 63}) : pick({1, 1, 2, 4});
        const std::uint64_t n =
            one_in(6) ? pick({0, 1ull << 20, 1ull << 40, 1ull << 62}) : pick({1, 1, 2, 3});
        t.chunk[static_cast<std::size_t>(i)] = c;
        t.world[static_cast<std::size_t>(i)] =
            one_in(15) ? c + 1 : (c != 0 && n > ~std::uint64_t{0} / c ? c : c * n);
    }
    const std::uint64_t nfields = one_in(10) ? 0 : 1 + rng() % 3;
    for (std::uint64_t i = 0; i < nfields; ++i) {
        std::uint8_t kind = static_cast<std::uint8_t>(1 + rng() % 4);
        std::uint32_t width = kind == 4   ? 1
                              : kind == 3 ? 4
                                          : static_cast<std::uint32_t>(pick({1, 2, 4, 8}));
        if (one_in(25)) kind = static_cast<std::uint8_t>(pick({0, 5}));
        if (one_in(25)) width = static_cast<std::uint32_t>(pick({0, 2, 3}));
        t.fields.emplace_back(one_in(20) && i > 0 ? 0 : i + 1, 1, kind, width);
    }
    std::uint64_t tiles = 1, row = 0;
    for (auto c : t.chunk) tiles = c != 0 && tiles > 64 / c ? 65 : tiles * c;
    for (const auto& f : t.fields) row += std::get<3>(f);
    std::uint64_t logical = 1;
    for (std::size_t i = 0; i < 3; ++i) {
        const std::uint64_t q = t.chunk[i] ? t.world[i] / t.chunk[i] : 0;
        logical = q != 0 && logical > 6 / q ? 7 : logical * q;
    }
    if (tiles <= 64) { // small enough to write the records out
        const std::uint64_t n = t.residency == 1 && logical <= 6 ? logical : rng() % 4;
        std::uint64_t key = rng() % 2;
        for (std::uint64_t i = 0; i < n; ++i) {
            if (one_in(12)) key = pick({0, key, logical, ~std::uint64_t{0}});
            std::string columns;
            for (const auto& f : t.fields) {
                const bool is_bool = std::get<2>(f) == 4;
                for (std::uint64_t j = 0; j < tiles * std::get<3>(f); ++j)
                    columns += static_cast<char>(is_bool ? (one_in(40) ? 2 : rng() % 2) : rng());
            }
            t.record(key, columns, static_cast<std::uint8_t>(one_in(10) ? 2 : rng() % 2));
            key += 1 + rng() % 2;
        }
    }
    if (one_in(6))
        t.chunk_count = pick({0, t.chunks + 1, t.chunks ? t.chunks - 1 : 5, ~std::uint64_t{0}});
    if (one_in(30)) t.field_count = static_cast<std::uint32_t>(pick({1025, nfields + 1}));
    if (one_in(12) && !t.records.empty()) t.records.resize(t.records.size() - 1 - rng() % 3);
    if (one_in(20)) t.body_size = pick({~std::uint64_t{0}, ~std::uint64_t{0} - 100, 0});
    if (one_in(20)) t.crc = static_cast<std::uint32_t>(rng());
    std::string bytes = t.encode();
    if (one_in(30)) bytes.resize(rng() % (bytes.size() + 1));
    return bytes;
}

} // namespace

TEST_CASE("differential: random archives get the status of a model of 4.3's order, and the same "
          "verdict") {
    std::mt19937_64 rng(20261201);
    std::map<std::string, int> seen;
    for (int i = 0; i < 30000; ++i) {
        const std::string bytes = random_archive(rng);
        const ModelVerdict want = model(bytes);
        auto p = parse(bytes, false); // the careful read: the first failure ends it, as in tess
        std::string got = first_status(p.findings);
        Summary s = tess_world::summarize(bytes);
        if (got == "Corrupt" && s.engine_note.starts_with("refuses to load it: a bool byte"))
            got = "Ok/Corrupt";
        // sparksave reads v1 by the 0.12 reader's rules and warns that 0.13 needs migration.
        ++seen[want.status];
        REQUIRE_MESSAGE(got == want.status, "archive ", i, ": ", findings(p.findings), " / ",
                        hex(bytes));
        CHECK_MESSAGE(s.engine_loads == want.world_loads, "archive ", i, ": ", s.engine_note);
        CHECK(first_status(s.findings) == first_status(p.findings));
    }
    // The generator reaches every outcome the model knows (so the comparison means something).
    for (const char* status :
         {"Ok", "Ok/Corrupt", "Corrupt", "InvalidChunk", "Truncated", "UnsupportedFormat"})
        CHECK_MESSAGE(seen[status] > 50, status, ": ", seen[status]);
}
