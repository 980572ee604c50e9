// JSON reading, `pack` (the inverse of `dump --json`) and `diff`.
#include <doctest/doctest.h>

#include "support.hpp"

#include "spark_save/api.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <cstring>
#include <random>

using namespace sparksave;

namespace {

Parsed parse(const std::string& bytes) {
    return spark_save::read(std::make_shared<const Source>(bytes));
}

std::string dump_json(const std::string& bytes) {
    std::string json;
    spark_save::to_json(parse(bytes).doc, json);
    return json;
}

// The differences as "op path [old->new]" joined by " | ".
std::string diff_lines(const std::string& a, const std::string& b, DiffOptions o = {}) {
    auto pa = parse(a), pb = parse(b);
    REQUIRE_FALSE(pa.findings.has_errors());
    REQUIRE_FALSE(pb.findings.has_errors());
    std::vector<std::string> out;
    auto r = diff(pa.doc, pb.doc, o, [&](const Change& c) {
        std::string line = std::string(op_name(c.op)) + " " + c.path.str();
        if (c.op == Change::Op::change && c.old_node != k_no_node)
            line += fmt::format(" {}->{}", pa.doc.value(c.old_node), pb.doc.value(c.new_node));
        out.push_back(line);
    });
    REQUIRE(r);
    std::string joined;
    for (const auto& line : out) joined += (joined.empty() ? "" : " | ") + line;
    return joined;
}

// A v3 save with the given entities, each as (name, [(type, [(key, value)])]).
using Props = std::vector<std::pair<std::string, std::string>>;
using Comps = std::vector<std::pair<std::string, Props>>;
std::string save_v3(const std::vector<std::pair<std::string, Comps>>& entities,
                    const Props& custom = {}, const std::string& play_time = "42.5") {
    std::string b = "SPRK";
    auto u16 = [&](std::size_t v) {
        b += static_cast<char>(v & 0xFF), b += static_cast<char>(v >> 8);
    };
    auto u32 = [&](std::uint64_t v) {
        for (int i = 0; i < 4; ++i) b += static_cast<char>((v >> (8 * i)) & 0xFF);
    };
    auto str = [&](const std::string& s) {
        u16(s.size());
        b += s;
    };
    u32(3);
    std::string meta = "N\nS\nC\n\n1700000000\n" + play_time + "\n75\n25\n1 2 3\n4\n1\n";
    u32(meta.size());
    b += meta;
    u32(entities.size());
    for (const auto& [name, comps] : entities) {
        str(name);
        u16(comps.size());
        for (const auto& [type, props] : comps) {
            str(type);
            u16(props.size());
            for (const auto& [k, v] : props) {
                str(k);
                str(v);
            }
        }
    }
    u32(custom.size());
    for (const auto& [k, v] : custom) {
        str(k);
        str(v);
    }
    return b;
}

} // namespace

TEST_CASE("json reader: validation with line:column") {
    struct Bad {
        const char* text;
        std::uint32_t line, column;
    };
    for (Bad bad : std::initializer_list<Bad>{{"", 1, 1},
                                              {"{", 1, 2},
                                              {"{\"a\" 1}", 1, 6},
                                              {"[1,]", 1, 4},
                                              {"[1 2]", 1, 4},
                                              {"{\"a\":1,}", 1, 8},
                                              {"\"\\q\"", 1, 2},
                                              {"\"a\nb\"", 1, 3},
                                              {"01", 1, 2},
                                              {"1.", 1, 3},
                                              {"tru", 1, 1},
                                              {"[1]\n x", 2, 2},
                                              {"\"\\ud800\"", 1, 2},
                                              {"\"\xff\"", 1, 1}}) {
        CAPTURE(bad.text);
        json::Reader r(bad.text);
        auto v = r.validate();
        REQUIRE_FALSE(v);
        CHECK(v.error().code == ErrorCode::bad_json);
        CHECK(v.error().line == bad.line);
        CHECK(v.error().column == bad.column);
    }
    std::string deep(json::Reader::k_max_depth + 1, '[');
    deep += std::string(json::Reader::k_max_depth + 1, ']');
    json::Reader r(deep);
    auto v = r.validate();
    REQUIRE_FALSE(v);
    CHECK(v.error().message ==
          fmt::format("not valid JSON: nesting deeper than {} levels", json::Reader::k_max_depth));
    CHECK(json::Reader(deep.substr(1, 2 * json::Reader::k_max_depth)).validate());
}

TEST_CASE("json reader: navigation and decoding") {
    json::Reader r(R"( {"a": [1, "x\u00e9\ud83d\ude00\n", {"b": null}], "c": true, "a": 2} )");
    auto root = r.validate();
    REQUIRE(root);
    CHECK(root->kind == json::Kind::object);
    std::vector<std::string> keys;
    r.members(*root, [&](std::string_view k, const json::Value&) {
        keys.emplace_back(k);
        return true;
    });
    CHECK(keys == std::vector<std::string>{"a", "c", "a"});
    json::Value a;
    REQUIRE(r.find(*root, "a", a));
    std::vector<json::Kind> kinds;
    r.elements(a, [&](std::size_t i, const json::Value& e) {
        kinds.push_back(e.kind);
        if (i == 1) CHECK(r.decoded(e) == "x\xc3\xa9\xf0\x9f\x98\x80\n");
        return true;
    });
    CHECK(kinds ==
          std::vector<json::Kind>{json::Kind::number, json::Kind::string, json::Kind::object});
    json::Value c;
    REQUIRE(r.find(*root, "c", c));
    CHECK(r.is_true(c));
}

TEST_CASE("json reader: a byte string is a string or an object with the one member base64") {
    struct Case {
        const char* json;
        const char* bytes; // nullptr: refused
        const char* path;
        const char* message;
    };
    const Case cases[] = {
        {R"("a\u00e9")", "a\xc3\xa9", "", ""},
        {R"({"base64": "/w=="})", "\xff", "", ""},
        {R"({"base64": ""})", "", "", ""},
        {R"({"base64": "Zm9vYmFy"})", "foobar", "", ""},
        {"7", nullptr, "v", "expected a string or {\"base64\": \"...\"}, found 7"},
        {"[]", nullptr, "v", "expected a string or {\"base64\": \"...\"}, found an array"},
        {"{}", nullptr, "v",
         "expected a string or {\"base64\": \"...\"}, found an object with no member"},
        {R"({"base64": "QQ==", "x": 1})", nullptr, "v",
         "expected a string or {\"base64\": \"...\"}, found an object with the member \"x\""},
        {R"({"x": 1, "base64": "QQ=="})", nullptr, "v",
         "expected a string or {\"base64\": \"...\"}, found an object with the member \"x\""},
        {R"({"base64": "QQ==", "base64": "QQ=="})", nullptr, "v",
         "expected a string or {\"base64\": \"...\"}, found an object with \"base64\" twice"},
        {R"({"base64": 1})", nullptr, "v.base64", "expected a string of standard base64, found 1"},
        {R"({"base64": "Zm9"})", nullptr, "v.base64", "expected standard base64"},
        {R"({"base64": "Zm9v\n"})", nullptr, "v.base64", "expected standard base64"},
        {R"({"base64": "QR=="})", nullptr, "v.base64", "expected standard base64"}, // bits
        {R"({"base64": "Zm-v"})", nullptr, "v.base64", "expected standard base64"}, // url-safe
    };
    for (const Case& c : cases) {
        CAPTURE(c.json);
        json::Reader r(c.json);
        auto v = r.validate();
        REQUIRE(v);
        std::string out = "old";
        auto got = r.bytes(*v, "v", out);
        if (c.bytes) {
            REQUIRE_MESSAGE(got.has_value(), (got.has_value() ? "" : got.error().describe()));
            CHECK(out == c.bytes);
            continue;
        }
        REQUIRE_FALSE(got.has_value());
        CHECK(got.error().code == ErrorCode::bad_json);
        CHECK(got.error().path == c.path);
        CHECK(got.error().line == 1);
        CHECK_MESSAGE(got.error().message.starts_with(c.message), got.error().message);
        CHECK(out.empty());
    }
}

// pack(dump --json x) == x for the valid corpus of every format: tests/corpus/test_corpus.cpp.

TEST_CASE("pack(dump --json x) == x for generated saves of every version") {
    std::mt19937 rng(1129);
    int checked = 0;
    for (std::uint32_t version = 1; version <= 4; ++version) {
        for (int i = 0; i < 75; ++i) {
            const std::string bytes = test::random_spark_save(rng, version);
            auto packed = spark_save::from_json(dump_json(bytes));
            REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
            REQUIRE_MESSAGE(packed->bytes == bytes, "v", version, " #", i);
            ++checked;
        }
    }
    CHECK(checked == 300);
}

TEST_CASE("pack(dump --json x) == x for a v1/v2 block that lacks fields; editing one refuses") {
    // Found by fuzz_pack: the dump shows the fields the block has, and pack took that for an
    // edit, tried to rebuild the block from them and refused the unedited dump.
    for (std::uint32_t version : {1u, 2u}) {
        CAPTURE(version);
        const std::string block = version == 1 ? "a\nb\nc\n1700000000\n" : "a\nb\nc\n";
        std::string bytes = "SPRK";
        for (std::uint32_t n : {version, static_cast<std::uint32_t>(block.size())})
            for (int i = 0; i < 4; ++i) bytes += static_cast<char>(n >> (8 * i) & 0xff);
        bytes += block + std::string(8, '\0'); // no entity, no custom-state pair
        REQUIRE_FALSE(parse(bytes).findings.has_errors());
        std::string json = dump_json(bytes);
        auto packed = spark_save::from_json(json);
        REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
        CHECK(packed->bytes == bytes);
        CHECK(packed->notes.empty());
        // An edit of such fields has no complete block to rebuild from.
        const auto at = json.find("\"saveName\": \"a\"");
        REQUIRE(at != std::string::npos);
        json.replace(at, 15, "\"saveName\": \"z\"");
        auto edited = spark_save::from_json(json);
        REQUIRE_FALSE(edited);
        CHECK(edited.error().message.rfind("expected this field", 0) == 0);
    }
}

TEST_CASE("pack: an edited field rebuilds the metadata block; the checksum is recomputed") {
    const std::string bytes =
        test::read_bytes(test::testdata() / "spark_save/valid/v4-hierarchy.spark_save");
    std::string json = dump_json(bytes);
    auto at = json.find("\"playTime\": \"3725.5\"");
    REQUIRE(at != std::string::npos);
    json.replace(at, 20, "\"playTime\": \"99\"");
    auto packed = spark_save::from_json(json);
    REQUIRE(packed);
    REQUIRE(packed->notes.size() == 1);
    auto p = parse(packed->bytes);
    CHECK(p.findings.items().empty()); // the new CRC verifies
    CHECK(p.doc.value(p.doc.child(p.doc.child(p.doc.root(), "metadata"), "playTime")) == "99");
}

TEST_CASE("pack: a field text the rebuilt block reads otherwise is refused") {
    // Found by fuzz_pack: `"playerArmor": " 25"` and `"playerHealth": "75/"` were written into
    // the rebuilt block, where `>>` reads 25, and 75 (leaving `/` to playerArmor), so the dump of
    // the result showed other texts than the input.
    const std::string bytes =
        test::read_bytes(test::testdata() / "spark_save/valid/v4-empty.spark_save");
    const std::string json = dump_json(bytes);
    struct Case {
        const char* from;
        const char* to;
        const char* path;
        const char* reads; // what the reader takes there instead
    };
    for (Case c : std::initializer_list<Case>{
             {R"("playerArmor": "25")", R"("playerArmor": " 25")", "metadata.fields.playerArmor",
              "\"25\""},
             {R"("playerArmor": "25")", R"("playerArmor": "25\t")", "metadata.fields.playerArmor",
              "\"25\""},
             {R"("playerHealth": "75")", R"("playerHealth": "75/")", "metadata.fields.playerHealth",
              "\"75\""},
             {R"("timestamp": "1700000000")", R"("timestamp": "\r1700000000")",
              "metadata.fields.timestamp", "\"1700000000\""},
             {R"(["1", "2", "3"])", R"(["1", "2 ", "3"])", "metadata.fields.position[1]", "\"2\""},
             {R"(["1", "2", "3"])", R"(["1", "2-3", "3"])", "metadata.fields.position[1]", "\"2\""},
             {R"("playerDeaths": "1")", R"("playerDeaths": "")", "metadata.fields.playerDeaths",
              "the block ends before this field"},
         }) {
        CAPTURE(c.to);
        for (bool with_raw : {true, false}) {
            CAPTURE(with_raw);
            std::string edited = json;
            const auto at = edited.find(c.from);
            REQUIRE(at != std::string::npos);
            edited.replace(at, std::strlen(c.from), c.to);
            if (!with_raw) {
                const auto raw = edited.find("\"raw\": ");
                REQUIRE(raw != std::string::npos);
                edited.erase(raw, edited.find('\n', raw) + 1 - raw);
            }
            auto packed = spark_save::from_json(edited);
            REQUIRE_FALSE(packed);
            CHECK(packed.error().code == ErrorCode::bad_json);
            CHECK(packed.error().path == c.path);
            CHECK(packed.error().message.rfind("expected a text that the block rebuilt", 0) == 0);
            CHECK(packed.error().message.find(c.reads) != std::string::npos);
        }
    }
    // A string field is its getline line, blanks and all.
    std::string edited = json;
    const auto at = edited.find(R"("saveName": "")");
    REQUIRE(at != std::string::npos);
    edited.replace(at, 14, R"("saveName": " a\t")");
    auto packed = spark_save::from_json(edited);
    REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
    CHECK(packed->bytes.find(" a\t\n") != std::string::npos);

    // A v1 block whose numbers `>>` fails on: the dump shows the words after the failure, and an
    // edit rebuilds a block that reads them back the same (`75/` here is a word, not 75).
    const std::string v1_block = "a\nb\nc\n1700000000\n1\nabc\n75/\n1 2 3\n4\n1\n";
    std::string v1 = "SPRK";
    for (std::uint32_t n : {1u, static_cast<std::uint32_t>(v1_block.size())})
        for (int i = 0; i < 4; ++i) v1 += static_cast<char>(n >> (8 * i) & 0xff);
    v1 += v1_block + std::string(8, '\0');
    REQUIRE_FALSE(parse(v1).findings.has_errors());
    std::string v1_json = dump_json(v1);
    REQUIRE(v1_json.find(R"("playerArmor": "75/")") != std::string::npos);
    const auto name = v1_json.find(R"("saveName": "a")");
    REQUIRE(name != std::string::npos);
    v1_json.replace(name, 15, R"("saveName": "z")");
    auto v1_packed = spark_save::from_json(v1_json);
    REQUIRE_MESSAGE(v1_packed, (v1_packed ? "" : v1_packed.error().describe()));
    CHECK(v1_packed->bytes.substr(12, v1_block.size()) == "z" + v1_block.substr(1));
}

TEST_CASE("pack: JSON that is not a dump gets an error at the JSON path") {
    struct Case {
        const char* json;
        const char* path;
        const char* message_start;
    };
    for (
        Case c : std::initializer_list<Case>{
            {"[]", "", "expected an object"},
            {R"({"format": "spark_save", "metadata": {"raw": ""}, "entities": []})", "",
             "expected a member \"version\""},
            {R"({"version": 9, "metadata": {"raw": ""}, "entities": []})", "version",
             "expected an integer from 1 to 4"},
            {R"({"version": "4", "metadata": {"raw": ""}, "entities": []})", "version",
             "expected an integer from 1 to 4"},
            {R"({"version": 3, "metadata": {"raw": 5}, "entities": []})", "metadata.raw",
             "expected a string or {\"base64\""},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": {}})", "entities",
             "expected an array of entities"},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "a"}]})",
             "entities[0]", "expected a member \"components\""},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "a", "components": [{"type": "T", "properties": [["k"]]}]}]})",
             "entities[0].components[0].properties[0]",
             "expected a [key, value] pair, found 1 elements"},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [], "extra": 1})", "extra",
             "unknown member \"extra\""},
            {R"({"version": 3, "metadata": {"raw": {"base64": "!!"}}, "entities": []})",
             "metadata.raw.base64", "expected standard base64"},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [], "customStateAbsent": true})",
             "customStateAbsent", "v3 files always"},
            {R"({"version": 3, "metadata": {"fields": {}}, "entities": []})",
             "metadata.fields.saveName", "expected this field"},
            {R"({"format": "text_archive", "version": 3, "metadata": {"raw": ""}, "entities": []})",
             "format", "expected \"spark_save\""},
            // Found by fuzz_pack: an unknown or repeated member below the root was dropped in
            // silence (the first of a repeated one counted).
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "a", "bogus": 1, "components": []}]})",
             "entities[0].bogus", "unknown member \"bogus\" (expected name, components)"},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "a", "components": [], "name": "b"}]})",
             "entities[0].name", "expected each member once, found \"name\" again"},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "a", "components": [{"type": "T", "properties": [], "extra": []}]}]})",
             "entities[0].components[0].extra",
             "unknown member \"extra\" (expected type, properties)"},
            {R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "a", "components": [{"properties": [], "type": "T", "properties": [["k", "v"]]}]}]})",
             "entities[0].components[0].properties", "expected each member once"},
            {R"({"version": 3, "metadata": {"raw": "", "bogus": 1}, "entities": []})",
             "metadata.bogus", "unknown member \"bogus\""},
            {R"({"version": 3, "metadata": {"raw": "", "raw": "x"}, "entities": []})",
             "metadata.raw", "expected each member once"},
            {R"({"version": 1, "metadata": {"fields": {"saveName": "a", "screenshotPath": ""}}, "entities": []})",
             "metadata.fields.screenshotPath", "unknown member \"screenshotPath\""},
            {R"({"version": 3, "metadata": {"fields": {"saveName": "a", "saveName": "b"}}, "entities": []})",
             "metadata.fields.saveName", "expected each member once"},
        }) {
        CAPTURE(c.json);
        auto packed = spark_save::from_json(c.json);
        REQUIRE_FALSE(packed);
        CHECK(packed.error().code == ErrorCode::bad_json);
        CHECK(packed.error().path == c.path);
        CHECK(packed.error().message.rfind(c.message_start, 0) == 0);
        CHECK(packed.error().line >= 1);
    }
}

TEST_CASE("diff: identical files, reordered properties, changed values") {
    const Comps player = {{"Transform", {{"px", "1.000000"}, {"py", "2.000000"}, {"parent", "-1"}}},
                          {"Health", {{"hp", "10"}}}};
    const std::string a = save_v3({{"player", player}, {"tree", {}}}, {{"k", "v"}});
    CHECK(diff_lines(a, a) == "");
    const Comps reordered = {
        {"Health", {{"hp", "10"}}},
        {"Transform", {{"parent", "-1"}, {"py", "2.000000"}, {"px", "1.000000"}}}};
    const std::string b = save_v3({{"tree", {}}, {"player", reordered}}, {{"k", "v"}});
    CHECK(diff_lines(a, b) == "");
    DiffOptions order;
    order.order = true;
    CHECK(diff_lines(a, b, order) ==
          "order entities | order entities[name=player] | order entities[name=player].Transform");
    const Comps changed = {{"Transform", {{"px", "1.5"}, {"py", "2"}, {"parent", "-1"}}},
                           {"Health", {{"hp", "10"}}}};
    const std::string c = save_v3({{"player", changed}, {"tree", {}}}, {{"k", "w"}}, "42.50");
    CHECK(diff_lines(a, c) ==
          "change entities[name=player].Transform.px 1.000000->1.5 | change customState.k v->w");
    DiffOptions eps;
    eps.epsilon = 0.5;
    CHECK(diff_lines(a, c, eps) == "change customState.k v->w");
    DiffOptions ignore;
    ignore.ignore.push_back(*NodePath::parse("entities.*.Transform.**"));
    ignore.ignore.push_back(*NodePath::parse("customState"));
    CHECK(diff_lines(a, c, ignore) == "");
}

TEST_CASE("diff: entities added and removed, duplicate names matched in order") {
    const Comps t = {{"Transform", {{"parent", "-1"}}}};
    const std::string a =
        save_v3({{"orc", {{"Hp", {{"v", "1"}}}}}, {"orc", {{"Hp", {{"v", "2"}}}}}, {"elf", t}});
    const std::string b =
        save_v3({{"orc", {{"Hp", {{"v", "1"}}}}}, {"orc", {{"Hp", {{"v", "3"}}}}}, {"dwarf", t}});
    CHECK(diff_lines(a, b) ==
          "change entities[1].Hp.v 2->3 | remove entities[name=elf] | add entities[name=dwarf]");
}

TEST_CASE(
    "diff across versions: a v1 save and its migrated v4 differ by exactly what migration adds") {
    const std::string v1 =
        test::read_bytes(test::testdata() / "spark_save/real/valid/v1-screenshotless.spark_save");
    auto migrated = migrate(parse(v1).doc, 4);
    REQUIRE(migrated);
    auto lines = diff_lines(v1, migrated->bytes);
    CHECK(lines == "change version | add metadata.screenshotPath | add "
                   "entities[name=legacy-player].Transform.parent");
    // The v4 checksum is derived from the rest: reported only when asked for (sparksave-diff(1)
    // --derived).
    DiffOptions derived;
    derived.derived = true;
    CHECK(diff_lines(v1, migrated->bytes, derived) ==
          "change version | add metadata.screenshotPath | add "
          "entities[name=legacy-player].Transform.parent | add checksum");
}

namespace {

// Every change of diff() of the whole trees, or of diff_streamed(), as text with its values.
std::vector<std::string> all_changes(const std::string& a, const std::string& b, bool streamed,
                                     const DiffOptions& o) {
    std::vector<std::string> out;
    auto record = [&](const Change& c) {
        std::string line = std::string(op_name(c.op)) + " " + c.path.str() + " ";
        if (c.old_node != k_no_node) print_json_compact(*c.old_doc, c.old_node, line);
        line += c.old_text + " -> ";
        if (c.new_node != k_no_node) print_json_compact(*c.new_doc, c.new_node, line);
        line += c.new_text;
        out.push_back(line);
    };
    if (streamed) {
        auto r = diff_streamed(format_info(FormatId::spark_save), std::make_shared<const Source>(a),
                               std::make_shared<const Source>(b), o, record);
        REQUIRE(r);
        REQUIRE_FALSE(r->a_findings.has_errors());
        REQUIRE_FALSE(r->b_findings.has_errors());
    } else {
        auto pa = parse(a), pb = parse(b);
        REQUIRE_FALSE(pa.findings.has_errors());
        REQUIRE_FALSE(pb.findings.has_errors());
        REQUIRE(diff(pa.doc, pb.doc, o, record));
    }
    return out;
}

} // namespace

TEST_CASE("diff_streamed emits exactly what diff of the whole trees emits, in the same order") {
    std::mt19937 rng(20261129);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const std::vector<std::string> names = {"orc", "elf", "dwarf", "", "troll", "imp", "ent"};
    auto random_entities = [&] {
        std::vector<std::pair<std::string, Comps>> entities;
        for (std::size_t i = pick(12); i > 0; --i) {
            Comps comps;
            for (std::size_t c = pick(3); c > 0; --c) {
                Props props;
                for (std::size_t k = pick(4); k > 0; --k)
                    props.emplace_back("p" + std::to_string(k), std::to_string(pick(5)));
                comps.emplace_back("C" + std::to_string(c), props);
            }
            entities.emplace_back(names[pick(names.size())], comps);
        }
        return entities;
    };
    std::size_t pairs = 0, with_changes = 0;
    DiffOptions ignore;
    ignore.ignore.push_back(*NodePath::parse("entities.*.C1.**"));
    DiffOptions epsilon;
    epsilon.epsilon = 1;
    // Index patterns match entities shown by name, and name patterns those shown by index.
    DiffOptions by_index;
    by_index.ignore.push_back(*NodePath::parse("entities[2]"));
    by_index.ignore.push_back(*NodePath::parse("entities[name=orc].**"));
    DiffOptions derived;
    derived.derived = true;
    for (int round = 0; round < 300; ++round) {
        auto ea = random_entities();
        auto eb = ea;
        // Edits: change a value, drop, add, swap entities; sometimes an unrelated file.
        for (std::size_t n = pick(4); n > 0 && !eb.empty(); --n) {
            switch (pick(4)) {
            case 0: {
                auto& comps = eb[pick(eb.size())].second;
                if (!comps.empty() && !comps[0].second.empty()) comps[0].second[0].second = "9";
                break;
            }
            case 1:
                eb.erase(eb.begin() + static_cast<std::ptrdiff_t>(pick(eb.size())));
                break;
            case 2: {
                auto more = random_entities();
                if (!more.empty())
                    eb.insert(eb.begin() + static_cast<std::ptrdiff_t>(pick(eb.size() + 1)),
                              more.front());
                break;
            }
            default:
                std::swap(eb[pick(eb.size())], eb[pick(eb.size())]);
            }
        }
        if (pick(10) == 0) eb = random_entities();
        const std::string a = save_v3(ea, {{"k", std::to_string(pick(3))}});
        const std::string b =
            save_v3(eb, {{"k", std::to_string(pick(3))}}, pick(2) ? "42.5" : "43");
        for (const DiffOptions* o : {&ignore, &epsilon, &by_index}) {
            const auto whole = all_changes(a, b, false, *o);
            CHECK(all_changes(a, b, true, *o) == whole);
            with_changes += !whole.empty();
        }
        ++pairs;
    }
    // Across versions, and generated files of every version against each other.
    for (int round = 0; round < 200; ++round) {
        const std::string a = test::random_spark_save(rng, 1 + static_cast<std::uint32_t>(pick(4)));
        std::string b;
        if (pick(2) == 0) {
            auto migrated = migrate(parse(a).doc, 4);
            if (!migrated) continue; // a generated v1/v2 may break a v4 rule
            b = migrated->bytes;
        } else {
            b = test::random_spark_save(rng, 1 + static_cast<std::uint32_t>(pick(4)));
        }
        const auto whole = all_changes(a, b, false, {});
        CHECK(all_changes(a, b, true, {}) == whole);
        CHECK(all_changes(a, b, true, derived) == all_changes(a, b, false, derived));
        with_changes += !whole.empty();
        ++pairs;
    }
    CHECK(pairs > 400);
    CHECK(with_changes > 300);
}

TEST_CASE("diff_streamed: order is refused, a file that does not parse is reported") {
    const std::string a = save_v3({{"orc", {}}});
    DiffOptions order;
    order.order = true;
    auto none = [](const Change&) { FAIL("no change expected"); };
    auto src = [](const std::string& s) { return std::make_shared<const Source>(s); };
    CHECK_FALSE(diff_streamed(format_info(FormatId::spark_save), src(a), src(a), order, none));
    auto r = diff_streamed(format_info(FormatId::spark_save), src(a),
                           src(a.substr(0, a.size() - 3)), {}, none);
    REQUIRE(r);
    CHECK_FALSE(r->a_findings.has_errors());
    CHECK(r->b_findings.has_errors());

    // More differing items than it keeps: it declines, having emitted nothing.
    const std::string b = save_v3({{"orc", {{"Hp", {{"v", "1"}}}}}});
    DiffOptions few;
    few.max_kept_items = 0;
    r = diff_streamed(format_info(FormatId::spark_save), src(a), src(b), few, none);
    REQUIRE(r);
    CHECK(r->declined);
    few.max_kept_items = 1;
    std::size_t changes = 0;
    r = diff_streamed(format_info(FormatId::spark_save), src(a), src(b), few,
                      [&](const Change&) { ++changes; });
    REQUIRE(r);
    CHECK_FALSE(r->declined);
    CHECK(changes == 1);
}

// The JSON rows live in their own table (formats/registry_json.cpp, so that an engine's link
// pulls in no JSON code): every format of the table has exactly one, in the table's order, and
// a format read by parts dumps by parts too.
TEST_CASE("every format has its JSON row") {
    const auto formats = format_table();
    const auto json = format_json_table();
    REQUIRE(json.size() == formats.size());
    for (std::size_t i = 0; i < formats.size(); ++i) {
        CAPTURE(formats[i].name);
        CHECK(json[i].id == formats[i].id);
        CHECK(&format_json(formats[i].id) == &json[i]);
        CHECK(bool(json[i].to_json));
        CHECK(bool(json[i].from_json));
        CHECK((json[i].json_parts != nullptr) == (formats[i].stream != nullptr));
    }
}

// Issue 11, item 19: the dump of a file whose read stopped part-way says so ("complete": false)
// and pack refuses it; a file read to its end dumps with no such member. The stop is the
// reader's own verdict (Document::complete()), for every format; the streamed dump (format.hpp
// Parts) marks it the same way.
TEST_CASE("pack: the dump of a file whose read stopped part-way is marked and refused") {
    std::size_t partial = 0, whole = 0;
    for (const FormatInfo& format : format_table()) {
        std::size_t partial_here = 0;
        for (const char* dir : {"valid", "invalid"}) {
            for (const auto& path : test::corpus_files(test::testdata() / format.name, dir, "")) {
                if (path.extension() == ".expect") continue;
                CAPTURE(path.string());
                auto source = std::make_shared<const Source>(test::read_bytes(path));
                if (!format.detect(source->view().substr(0, k_detect_bytes))) continue;
                Parsed parsed = format.read(source, ReadOptions{});
                std::string json;
                format_json(format.id).to_json(parsed.doc, json);
                const bool marked = json.find("\"complete\": false") != std::string::npos;
                CHECK(marked == !parsed.doc.complete());
                if (parsed.doc.complete()) {
                    ++whole;
                    continue;
                }
                ++partial;
                ++partial_here;
                CHECK(parsed.findings.has_errors()); // a read stops only at an error
                CHECK(std::string_view(dir) == "invalid");
                auto packed = format_json(format.id).from_json(json);
                REQUIRE_FALSE(packed);
                CHECK(packed.error().path == "complete");
                CHECK(packed.error().message.find("stopped part-way") != std::string::npos);
                if (format_json(format.id).json_parts) {
                    std::string streamed;
                    auto parts = format_json(format.id).json_parts(streamed);
                    PartsRead read = format.stream(source, *parts);
                    CHECK_FALSE(read.consumer_error);
                    CHECK(streamed == json);
                }
            }
        }
        CAPTURE(format.name);
        // Each binary format's corpus has files whose read stops early (the text formats stop
        // only at a size or count limit).
        if (format.id != FormatId::text_archive && format.id != FormatId::spark_kv)
            CHECK(partial_here > 0);
    }
    CHECK(whole > 20);
    CHECK(partial > 10);
}

// Issue 25: every format's dump begins with "schemaVersion" (version.hpp k_json_schema_version)
// and "format", as one constant with the tool's records, and the dump part by part is the same
// text. pack takes a dump with it (1) or without it (an older dump), and refuses a greater
// version or anything but a positive integer at the member's line:column, one rule for every
// format (json::Reader::dump_members).
TEST_CASE("dump --json begins with schemaVersion; pack takes it absent or 1, refuses the rest") {
    static_assert(k_json_schema_version == 1);
    std::size_t checked = 0;
    for (const FormatInfo& format : format_table()) {
        CAPTURE(format.name);
        const FormatJson& row = format_json(format.id);
        std::size_t here = 0;
        for (const auto& path : test::corpus_files(test::testdata() / format.name, "valid", "")) {
            CAPTURE(path.string());
            const std::string bytes = test::read_bytes(path);
            auto source = std::make_shared<const Source>(bytes);
            Parsed parsed = format.read(source, ReadOptions{});
            if (parsed.findings.has_errors()) continue;
            std::string json;
            row.to_json(parsed.doc, json);
            const std::string head =
                fmt::format("{{\n  \"schemaVersion\": 1,\n  \"format\": \"{}\",\n", format.name);
            REQUIRE(json.starts_with(head));
            if (row.json_parts) {
                std::string streamed;
                auto parts = row.json_parts(streamed);
                format.stream(source, *parts);
                CHECK(streamed == json);
            }
            auto named = dump_format(json);
            REQUIRE(named);
            CHECK(*named == &format);
            // Without the member (a dump of an older sparksave): the same file.
            std::string older = json;
            older.erase(2, std::string_view("  \"schemaVersion\": 1,\n").size());
            REQUIRE(older.starts_with("{\n  \"format\""));
            auto packed = row.from_json(older);
            REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
            CHECK(packed->bytes == bytes);
            struct Case {
                const char* value;
                const char* message_part;
            };
            for (Case c : std::initializer_list<Case>{
                     {"2",
                      "refused: the dump's layout is version 2, newer than this sparksave's 1"},
                     {"18446744073709551616", "is version 18446744073709551616, newer"},
                     {"0", "expected a positive integer (the version of the dump's layout, 1 "
                           "for this sparksave), found 0"},
                     {"-1", "expected a positive integer"},
                     {"1.0", "found 1.0"},
                     {"1e0", "found 1e0"},
                     {"\"1\"", "found \"1\""},
                     {"null", "found null"},
                     {"[1]", "found an array"},
                 }) {
                CAPTURE(c.value);
                std::string edited = json;
                edited.replace(head.find('1'), 1, c.value);
                auto refused = row.from_json(edited);
                REQUIRE_FALSE(refused);
                CHECK(refused.error().code == ErrorCode::bad_json);
                CHECK(refused.error().path == "schemaVersion");
                CHECK(refused.error().line == 2);
                CHECK(refused.error().column == 20);
                CHECK_MESSAGE(refused.error().message.find(c.message_part) != std::string::npos,
                              refused.error().message);
                // The format is still found from the dump's head: the refusal is the version's.
                auto found = dump_format(edited);
                REQUIRE(found);
                CHECK(*found == &format);
            }
            // Once, as every member.
            std::string twice = json;
            twice.insert(head.size(), "  \"schemaVersion\": 1,\n");
            auto refused = row.from_json(twice);
            REQUIRE_FALSE(refused);
            CHECK(refused.error().path == "schemaVersion");
            CHECK(refused.error().line == 4);
            CHECK(refused.error().message.find("once") != std::string::npos);
            // An unknown member is still refused, and the message names the member.
            std::string unknown = json;
            unknown.insert(head.size(), "  \"schemaVersions\": 1,\n");
            auto strange = row.from_json(unknown);
            REQUIRE_FALSE(strange);
            CHECK(strange.error().path == "schemaVersions");
            CHECK(strange.error().message.find("dump has schemaVersion, format, version") !=
                  std::string::npos);
            ++here;
        }
        CHECK(here > 0);
        checked += here;
    }
    CHECK(checked > 30);
}

TEST_CASE("pack: a missing mandatory member is refused, not read as empty") {
    struct Case {
        const char* json;
        const char* path;
        const char* message_part;
    };
    for (Case c : std::initializer_list<Case>{
             // 1.4: the custom-state count is mandatory in v3/v4.
             {R"({"version": 3, "metadata": {"raw": ""}, "entities": []})", "",
              "a v3 file always has its custom-state count"},
             {R"({"version": 4, "metadata": {"raw": ""}, "entities": []})", "",
              "a v4 file always has its custom-state count"},
             // v1/v2: no count is said with customStateAbsent; a missing member says nothing.
             {R"({"version": 1, "metadata": {"raw": ""}, "entities": []})", "",
              "expected a member \"customState\""},
             {R"({"version": 3, "metadata": {"raw": ""}, "entities": [], "customState": [],
                  "complete": false})",
              "complete", "refused: this is the dump of a file whose read stopped part-way"},
             {R"({"version": 3, "metadata": {"raw": ""}, "entities": [], "customState": [],
                  "complete": 0})",
              "complete", "expected false"},
         }) {
        CAPTURE(c.json);
        auto packed = spark_save::from_json(c.json);
        REQUIRE_FALSE(packed);
        CHECK(packed.error().path == c.path);
        CHECK(packed.error().message.find(c.message_part) != std::string::npos);
    }
    // What the dump of such a file says is accepted: no pairs with the absent count (v1/v2),
    // an empty list (any version), "complete": true.
    for (
        const char* ok : {
            R"({"version": 1, "metadata": {"raw": ""}, "entities": [], "customStateAbsent": true})",
            R"({"version": 3, "metadata": {"raw": ""}, "entities": [], "customState": []})",
            R"({"version": 3, "metadata": {"raw": ""}, "entities": [], "customState": [],
                 "complete": true})",
        }) {
        CAPTURE(ok);
        CHECK(spark_save::from_json(ok));
    }
    // The other formats refuse the mark the same way (their shared root-member check).
    for (const char* name : {"text_archive", "spark_kv", "tess_world", "gmsv"}) {
        CAPTURE(name);
        const std::string json =
            fmt::format(R"({{"format": "{}", "version": 1, "complete": false}})", name);
        auto packed = format_json(format_by_name(name)->id).from_json(json);
        REQUIRE_FALSE(packed);
        CHECK(packed.error().path == "complete");
    }
}

// Issue 11, item 21 (sparksave-diff(1) --derived): values derived from the rest are reported only
// when asked.
TEST_CASE("diff: derived values (checksums, counts) only with derived; property order alone is "
          "no difference") {
    const Comps player = {
        {"Transform", {{"px", "1.000000"}, {"py", "2.000000"}, {"parent", "-1"}}}};
    const Comps reordered = {
        {"Transform", {{"parent", "-1"}, {"py", "2.000000"}, {"px", "1.000000"}}}};
    auto a = migrate(parse(save_v3({{"player", player}})).doc, 4);
    auto b = migrate(parse(save_v3({{"player", reordered}})).doc, 4);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->bytes != b->bytes); // the v4 checksums differ
    CHECK(diff_lines(a->bytes, b->bytes) == "");
    DiffOptions order;
    order.order = true;
    CHECK(diff_lines(a->bytes, b->bytes, order) == "order entities[name=player].Transform");
    DiffOptions derived;
    derived.derived = true;
    CHECK(diff_lines(a->bytes, b->bytes, derived).starts_with("change checksum 0x"));

    // A text archive's map counts (formats/README.md §2) follow the pairs.
    const FormatInfo& text = format_info(FormatId::text_archive);
    auto read = [&](std::string bytes) {
        Parsed p = text.read(std::make_shared<const Source>(std::move(bytes)), ReadOptions{});
        REQUIRE_FALSE(p.findings.has_errors());
        return p;
    };
    const Parsed one = read("1.0.0\nm: UnorderedMap {\n\tnbElements: __PGSA size_t {1},\n\tkey0: "
                            "__PGSA string {a},\n\tvalue0: __PGSA int {1}\n}\n");
    const Parsed two = read("1.0.0\nm: UnorderedMap {\n\tnbElements: __PGSA size_t {2},\n\tkey0: "
                            "__PGSA string {a},\n\tvalue0: __PGSA int {1},\n\tkey1: __PGSA string "
                            "{b},\n\tvalue1: __PGSA int {2}\n}\n");
    auto paths = [&](const DiffOptions& o) {
        std::string out;
        REQUIRE(diff(one.doc, two.doc, o, [&](const Change& c) { out += c.path.str() + ";"; }));
        return out;
    };
    CHECK(paths({}) == "m.key1;m.value1;");
    CHECK(paths(derived) == "m.nbElements;m.key1;m.value1;");
}

// Issue 11, item 22: --ignore takes a path step in either form, whichever diff prints.
TEST_CASE("diff: an index pattern ignores an entity shown by name, a name pattern one shown by "
          "index") {
    const std::string a = save_v3({{"player", {{"Hp", {{"v", "1"}}}}},
                                   {"orc", {{"Hp", {{"v", "1"}}}}},
                                   {"orc", {{"Hp", {{"v", "2"}}}}}});
    const std::string b = save_v3({{"player", {{"Hp", {{"v", "5"}}}}},
                                   {"orc", {{"Hp", {{"v", "1"}}}}},
                                   {"orc", {{"Hp", {{"v", "3"}}}}}});
    CHECK(diff_lines(a, b) ==
          "change entities[name=player].Hp.v 1->5 | change entities[2].Hp.v 2->3");
    auto ignoring = [&](const char* pattern) {
        DiffOptions o;
        o.ignore.push_back(*NodePath::parse(pattern));
        return diff_lines(a, b, o);
    };
    CHECK(ignoring("entities[0]") == "change entities[2].Hp.v 2->3");
    CHECK(ignoring("entities[0].Hp.v") == "change entities[2].Hp.v 2->3");
    CHECK(ignoring("entities[1]") ==
          "change entities[name=player].Hp.v 1->5 | change entities[2].Hp.v 2->3");
    CHECK(ignoring("entities[name=orc]") == "change entities[name=player].Hp.v 1->5");
    CHECK(ignoring("entities.orc.**") == "change entities[name=player].Hp.v 1->5");
    CHECK(ignoring("entities[2]") == "change entities[name=player].Hp.v 1->5");
    // The printed paths stay what they were: they paste into dump --select.
    NodePath p = *NodePath::parse("entities[name=player]");
    p.steps.back().position = 0;
    CHECK(p.str() == "entities[name=player]");
}

// The text formats stop reading only at a limit: their dumps are marked then too.
TEST_CASE("pack: a text archive or spark-kv store whose read stopped at a limit is refused") {
    std::string deep = "1.0.0\ne: C {\n";
    for (int d = 1; d <= 300; ++d)
        deep += std::string(static_cast<std::size_t>(d), '\t') + "c: C {\n";
    for (int d = 300; d >= 0; --d) deep += std::string(static_cast<std::size_t>(d), '\t') + "}\n";
    std::string lines = "#!spark-kv-v2\n";
    for (int i = 0; i < 2'000'001; ++i) lines += fmt::format("k{}\tv\n", i); // keys unique
    for (auto [id, bytes] :
         {std::pair{FormatId::text_archive, &deep}, std::pair{FormatId::spark_kv, &lines}}) {
        const FormatInfo& format = format_info(id);
        CAPTURE(format.name);
        Parsed parsed = format.read(std::make_shared<const Source>(*bytes), ReadOptions{});
        REQUIRE(parsed.findings.first_error());
        CHECK(parsed.findings.first_error()->code == ErrorCode::limit_exceeded);
        CHECK_FALSE(parsed.doc.complete());
        std::string json;
        format_json(format.id).to_json(parsed.doc, json);
        CHECK(json.ends_with(",\n  \"complete\": false\n}\n"));
        if (id == FormatId::spark_kv) continue; // 2 million records: the refusal is tested above
        auto packed = format_json(format.id).from_json(json);
        REQUIRE_FALSE(packed);
        CHECK(packed.error().path == "complete");
    }
}

// pack reads the schema in one forward pass (json.cpp): a dump laid out otherwise (on one line,
// members in another order, escapes where a dump has none, base64 where a string would do)
// packs to the same bytes, and an error in it keeps its JSON path and line:column.
TEST_CASE("pack: any layout and member order of a dump gives the same file") {
    const std::string bytes =
        test::read_bytes(test::testdata() / "spark_save/valid/v4-hierarchy.spark_save");
    const std::string json = dump_json(bytes);
    // On one line: the whitespace between tokens dropped.
    std::string flat;
    bool in_string = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            flat += c;
            if (c == '\\')
                flat += json[++i];
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
            flat += c;
        } else if (c != ' ' && c != '\n') {
            flat += c;
        }
    }
    auto a = spark_save::from_json(flat);
    REQUIRE_MESSAGE(a, (a ? "" : a.error().describe()));
    CHECK(a->bytes == bytes);

    const std::string ordered = R"({"version": 3, "metadata": {"raw": ""}, "entities": [
        {"name": "e", "components": [{"type": "T", "properties": [["k", "v"], ["x", "y"]]}]},
        {"name": "", "components": []}], "customState": [["a", "b"]]})";
    const std::string other = R"({"customState": [["a", "b"]], "entities": [
        {"components": [{"properties": [["\u006b", {"base64": "dg=="}], ["x", "y"]],
                         "type": "T"}], "name": "e"},
        {"components": [], "name": ""}], "metadata": {"raw": ""}, "version": 3})";
    auto b = spark_save::from_json(ordered);
    auto c = spark_save::from_json(other);
    REQUIRE(b);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().describe()));
    CHECK(b->bytes == c->bytes);

    // A missing member outranks an error found inside another one, as it did member by member.
    auto d = spark_save::from_json(R"({"version": 3, "metadata": {"raw": ""}, "entities": [
        {"components": [{"type": 5, "properties": []}]}], "customState": []})");
    REQUIRE_FALSE(d);
    CHECK(d.error().path == "entities[0]");
    CHECK(d.error().message == "expected a member \"name\"");
    CHECK(d.error().line == 2);
    CHECK(d.error().column == 9);
    auto e = spark_save::from_json(R"({"version": 3, "metadata": {"raw": ""}, "entities": [
        {"components": [{"type": 5, "properties": []}], "name": "n"}], "customState": []})");
    REQUIRE_FALSE(e);
    CHECK(e.error().path == "entities[0].components[0].type");
    CHECK(e.error().message.rfind("expected a string or {\"base64\"", 0) == 0);
    CHECK(e.error().line == 2);
    CHECK(e.error().column == 34);
    // Counts the file holds in 16 bits.
    std::string many = R"({"version": 3, "metadata": {"raw": ""}, "entities": [{"name": "n",
        "components": [{"type": "T", "properties": [)";
    for (int i = 0; i < 65536; ++i) many += i ? ",[\"k\",\"v\"]" : "[\"k\",\"v\"]";
    many += "]}]}], \"customState\": []}";
    auto f = spark_save::from_json(many);
    REQUIRE_FALSE(f);
    CHECK(f.error().path == "entities[0].components[0].properties");
    CHECK(f.error().message == "expected at most 65535 properties, found 65536");
    CHECK(f.error().line == 2);
}
