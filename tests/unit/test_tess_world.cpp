// tess world archives (FORMATS.md 4): the real files, every check of 4.3 and its order on bytes
// made by hand, hostile sizes, columns (types, exact floats, lossless JSON), the writer, pack,
// diff by tile, and the migration v1 -> v2 of 4.4.
#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/column.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"
#include "sparksave/tess_world.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <random>
#include <tuple>

using namespace sparksave;

namespace {

using test::value_at;

Parsed parse(std::string bytes, bool salvage = true) {
    return tess_world::read(std::make_shared<const Source>(std::move(bytes)), ReadOptions{salvage});
}

std::string real(const char* name) {
    return test::read_bytes(test::testdata() / "tess_world/valid" / name);
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

// An encoder of its own, from FORMATS.md 4.1 and 4.2, for corner cases made by hand.
struct Tess {
    std::uint32_t version = 2;
    std::array<std::uint64_t, 3> world{1, 1, 1};
    std::array<std::uint64_t, 3> chunk{1, 1, 1};
    std::uint32_t lattice = 0x4F525448;
    std::array<std::uint32_t, 3> library{0, 13, 0};
    std::uint8_t residency = 1;
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
        put(h, 1, 4);
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
    CHECK(s.integrity == "verified");
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
    CHECK(m->notes ==
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
    CHECK(m->notes == std::vector<std::string>{
                          "dropped the chunk-state byte of 3 chunks (values: 0 x1, 1 x1, 2 x1)"});
    auto out = parse(m->bytes);
    REQUIRE(out.findings.items().empty());
    CHECK(m->bytes.size() == input.size() - 3);
    for (const char* path :
         {"chunks[0].fields[0]", "chunks[1].fields[1]", "chunks[2].key", "chunks[2].activeMask",
          "header.libraryVersion.patch", "header.residency", "fields[1].kind"})
        CHECK_MESSAGE(value_at(out.doc, path) == value_at(in.doc, path), path);
    CHECK_FALSE(resolve(out.doc, *NodePath::parse("chunks[0].state")));
    // The input document is untouched (steps work on a copy).
    CHECK(value_at(in.doc, "chunks[1].state") == "2");
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
    // 2^64 - 1 chunks declared in a sparse archive with no record.
    Tess a;
    a.residency = 2;
    a.world = {1ull << 40, 1ull << 20, 1};
    a.chunk = {1, 1, 1};
    a.chunk_count = ~std::uint64_t{0};
    CHECK(findings(parse(a.encode()).findings) == "error truncated chunks[0]");
    // A dense archive whose logical chunk count overflows 64 bits can never be complete.
    Tess b;
    b.world = {1ull << 40, 1ull << 40, 1};
    CHECK(findings(parse(b.encode()).findings) == "error bad_chunk header.chunkCount");
    // tiles x width overflows: 2^21 cubed tiles of 8 bytes.
    Tess c;
    c.residency = 2;
    c.world = c.chunk = {1ull << 21, 1ull << 21, 1ull << 21};
    c.field(1, 3, 8);
    CHECK(findings(parse(c.encode()).findings) == "error size_mismatch chunks");
    // tiles alone overflow, but with no field the record is only its prefix: valid.
    Tess d;
    d.residency = 2;
    d.world = d.chunk = {1ull << 32, 1ull << 32, 1};
    CHECK(findings(parse(d.encode()).findings).empty());
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

TEST_CASE("pack: every valid archive's dump packs back to it; edits are checked with their path") {
    for (const auto& file : test::files_in(test::testdata() / "tess_world/valid", "")) {
        CAPTURE(file.filename().string());
        const std::string bytes = test::read_bytes(file);
        std::string json;
        tess_world::to_json(parse(bytes).doc, json);
        auto packed = tess_world::from_json(json);
        REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
        CHECK(packed->bytes == bytes);
    }
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
