// spark-kv reader, writer, checks, JSON/pack and migration (formats/README.md §3): detection that
// never takes another format's file, the tree node by node, every check with its line:column,
// hand-made lines for the tricky cases, the limits, and random stores from a model of the engine's
// writer (independent of ours) that round-trip, pack back and migrate.
#include <doctest/doctest.h>

#include "spark_kv/rules.hpp"
#include "spark_kv/spec.hpp"
#include "support.hpp"

#include "spark_kv/api.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <random>

using namespace sparksave;
namespace kv = sparksave::spark_kv;

namespace {

using test::at;
using test::value_at;

Parsed parse(std::string bytes) {
    return kv::read(std::make_shared<const Source>(std::move(bytes)));
}

std::string corpus(const char* name) {
    for (const char* dir : {"valid", "invalid"}) {
        auto p = test::testdata() / "spark_kv" / dir / name;
        if (std::filesystem::exists(p)) return test::read_bytes(p);
    }
    FAIL("missing fixture ", name);
    return {};
}

// "severity:code@line:column path" for each finding.
std::string codes(const Findings& f) {
    std::string out;
    for (const auto& e : f.items())
        out += fmt::format("{}:{}@{}:{} {}\n", severity_name(e.severity), code_name(e.code), e.line,
                           e.column, e.path);
    return out;
}

std::string dump_json(const Document& doc) {
    std::string json;
    kv::to_json(doc, json);
    return json;
}

// Read, summarize, print, JSON, write and pack: the same checks either way, and every file
// (valid or not) writes back and packs back byte for byte. Returns the parse.
Parsed check_all(const std::string& bytes) {
    Parsed p = parse(bytes);
    Summary s = kv::summarize(bytes);
    CHECK(codes(p.findings) == codes(s.findings));
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    auto written = kv::write(p.doc);
    REQUIRE_MESSAGE(written, (written ? "" : written.error().describe()));
    CHECK(*written == bytes);
    auto packed = kv::from_json(dump_json(p.doc));
    REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
    CHECK(packed->bytes == bytes);
    CHECK(packed->notes.empty());
    for (const auto& f : p.findings.items()) {
        CHECK_FALSE(f.has_offset());
        CHECK(f.line >= 1);
        CHECK(f.column >= 1);
        CHECK(f.message.rfind("expected ", 0) == 0);
    }
    return p;
}

// Every record as "key=value" (escaped for reading), lines without a TAB as "#text".
std::string records(const Document& doc) {
    std::string out;
    const NodeId r = doc.child(doc.root(), kv::k_records);
    if (r == k_no_node) return out;
    for (NodeId c : doc.children(r)) {
        if (!out.empty()) out += " | ";
        if (doc.node(c).flags & kv::k_flag_no_tab)
            out += "#" + display(doc.value(doc.child(c, kv::k_text)));
        else
            out += display(doc.name(c)) + "=" + display(doc.value(c));
    }
    return out;
}

// A random store from a model of the engine's writers (formats/README.md §3), its own encoder: keys
// and values of any bytes (v2) or of what the legacy writer kept (no TAB in a key or value,
// no LF), MMO records among them, sometimes no final LF.
std::string random_store(std::mt19937& rng, std::uint32_t version) {
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const std::string alphabet[] = {"a",        "Z",    "7",  "_",  "|",  ":",  ",",
                                    "\\",       "\t",   "\n", "\r", "%1", "?0", " ",
                                    "\xc3\xa9", "\xff", "\"", "n",  "t"};
    auto text = [&](bool legacy_value, bool legacy_key) {
        std::string s;
        const std::size_t n = pick(12);
        for (std::size_t i = 0; i < n; ++i) {
            std::string piece = alphabet[pick(std::size(alphabet))];
            if ((legacy_value || legacy_key) && (piece == "\n" || (legacy_key && piece == "\t")))
                continue;
            s += piece;
        }
        return s;
    };
    std::string out = version == 2 ? "#!spark-kv-v2\n" : "";
    const std::size_t n = pick(30);
    for (std::size_t i = 0; i < n; ++i) {
        std::string key, value;
        switch (pick(5)) {
        case 0:
            key = fmt::format("character_{}", pick(5));
            value = "N|1|2|3|4|5.5|6|7|8|9|10|11|12|13|14";
            break;
        case 1:
            key = fmt::format("inventory_{}", pick(5));
            value = "1|10|5.5|2|0:1:2,3:4:5";
            break;
        default:
            key = text(false, version == 1);
            value = text(version == 1, false);
        }
        if (version == 1 && key.empty()) key = "k"; // a legacy key is one token
        if (version == 2) {
            for (char c : key)
                out += c == '\\'   ? "\\\\"
                       : c == '\t' ? "\\t"
                       : c == '\n' ? "\\n"
                                   : std::string(1, c);
            out += '\t';
            for (char c : value)
                out += c == '\\'   ? "\\\\"
                       : c == '\t' ? "\\t"
                       : c == '\n' ? "\\n"
                                   : std::string(1, c);
        } else {
            out += key + "\t" + value;
        }
        out += '\n';
    }
    if (!out.empty() && out.back() == '\n' && pick(4) == 0) {
        // No final LF, unless that leaves an empty last line (the writer's output always has a
        // line there).
        std::string cut = out.substr(0, out.size() - 1);
        if (!cut.empty() && cut.back() != '\n') out = cut;
    }
    return out;
}

} // namespace

TEST_CASE("detection by content: the marker, or a conservative legacy shape") {
    CHECK(kv::detect("#!spark-kv-v2\n"));
    CHECK(kv::detect("#!spark-kv-v2"));
    CHECK(kv::detect("#!spark-kv-v3\nk\tv\n"));             // meant as a marker: reported
    CHECK(kv::detect("#!spark-kv-v2\r\nk\tv\r\n"));         // CRLF: reported
    CHECK(kv::detect("\xEF\xBB\xBF#!spark-kv-v2\nk\tv\n")); // BOM: reported
    CHECK(kv::detect("character_1\tA|1|2\ncurrency_1\t5\n"));
    CHECK(kv::detect("a\t1\r\nb\t2\r\n"));             // CRLF legacy
    CHECK(kv::detect("a\t1"));                         // whole file, no final LF
    CHECK(kv::detect("a\t" + std::string(5000, 'x'))); // the head cuts the value
    CHECK(kv::detect("key\t" + std::string(k_detect_bytes - 4, 'v')));
    CHECK_FALSE(kv::detect("")); // nothing to go by
    CHECK_FALSE(kv::detect("\n"));
    CHECK(kv::detect("a\t1\n\nb\t2\n"));            // empty lines hold nothing
    CHECK(kv::detect("a\t1\nb\t2\nstray\n"));       // what verify reports: records outnumber it
    CHECK_FALSE(kv::detect("a\t1\nno tab\n"));      // but not half the lines
    CHECK_FALSE(kv::detect("stray\na\t1\nb\t2\n")); // and a store starts with a record
    CHECK_FALSE(kv::detect("a\t1\tx\n"));           // two TABs: a TSV table
    CHECK_FALSE(kv::detect("name\tlevel\tclass\n"));
    CHECK_FALSE(kv::detect("two words\tv\n"));           // keys are one token
    CHECK_FALSE(kv::detect("\tv\n"));                    // an empty key
    CHECK_FALSE(kv::detect(std::string("a\t1\0\n", 5))); // NUL: binary
    CHECK_FALSE(kv::detect("1.0.0\nplayer: __PGSA int {1}\n"));
    CHECK_FALSE(kv::detect("SPRK\x01\0\0\0"));
    CHECK_FALSE(kv::detect(std::string(5000, 'x'))); // a long first line without a TAB
    // A line the head cuts counts up to the cut.
    std::string head;
    while (head.size() < k_detect_bytes - 10) head += "key\tvalue\n";
    head += "partial_k";
    head.resize(k_detect_bytes, 'k');
    CHECK(kv::detect(head));
    head[head.size() - 3] = '\t';
    CHECK(kv::detect(head));
    head[head.size() - 5] = ' '; // now a key with a space before the TAB
    CHECK_FALSE(kv::detect(head));
}

TEST_CASE("detection never takes another format's test file, and finds every spark-kv one") {
    std::size_t others = 0, ours = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::testdata())) {
        if (!entry.is_regular_file()) continue;
        // generic_string: "/" between the names on Windows too.
        const std::string rel =
            std::filesystem::relative(entry.path(), test::testdata()).generic_string();
        const std::string bytes = test::read_bytes(entry.path());
        const FormatInfo* f = detect_format(std::string_view(bytes).substr(0, k_detect_bytes));
        CAPTURE(rel);
        if (rel.starts_with("spark_save/") || rel.starts_with("text_archive/") ||
            rel.starts_with("tess_world/") || rel.starts_with("gmsv/") ||
            rel.starts_with("saves-dir/") || rel.starts_with("migrations/spark_save/")) {
            if (f) CHECK(f->id != FormatId::spark_kv);
            ++others;
        }
        if (rel == "spark_kv/valid/legacy-two-tabs.kv") {
            CHECK_FALSE(f); // two TABs on a line: not what a legacy writer made (read.cpp)
            continue;
        }
        if ((rel.starts_with("spark_kv/valid/") || rel.starts_with("spark_kv/invalid/")) &&
            rel.ends_with(".kv") && !bytes.empty()) {
            REQUIRE(f);
            CHECK(f->id == FormatId::spark_kv);
            ++ours;
        }
    }
    CHECK(others > 50);
    CHECK(ours >= 30);
    for (const char* name :
         {"real/invalid/pg-writer-sample.sz", "real/invalid/pg-writer-edge-cases.sz"}) {
        const std::string bytes = test::read_bytes(test::testdata() / "text_archive" / name);
        REQUIRE(detect_format(bytes.substr(0, k_detect_bytes)));
        CHECK(detect_format(bytes.substr(0, k_detect_bytes))->id == FormatId::text_archive);
    }
}

TEST_CASE("the MMO store: records in file order, escapes decoded, views of MMO records") {
    Parsed p = check_all(corpus("mmo-v2.kv"));
    CHECK(p.findings.items().empty());
    const Document& d = p.doc;
    CHECK(d.version() == 2);
    CHECK(d.child_count(d.child(d.root(), "records")) == 16);
    CHECK(d.name(d.child_at(d.child(d.root(), "records"), 0)) == "__schema_characters");
    CHECK(value_at(d, "records.meta_next_character_id") == "4");
    CHECK(value_at(d, "records.guild_motto_1") == "Stand fast.\nNever yield.\tOr else.");
    CHECK(value_at(d, "records.save_dir") == "C:\\Games\\Spark\\new");
    // Views: 15 named fields, typed by their text; spans inside the line.
    CHECK(value_at(d, "records.character_1.name") == "Aria");
    CHECK(value_at(d, "records.character_1.accountId") == "1001");
    CHECK(value_at(d, "records.character_1.level") == "12");
    CHECK(value_at(d, "records.character_1.posZ") == "-33.25");
    CHECK(value_at(d, "records.character_1.currency") == "1450");
    CHECK(d.node(at(d, "records.character_1.level")).type == ValueType::integer);
    CHECK(d.node(at(d, "records.character_1.rotY")).type == ValueType::floating);
    CHECK(d.node(at(d, "records.character_3.name")).type == ValueType::string);
    CHECK((d.node(at(d, "records.character_1.level")).flags & kv::k_flag_view) != 0);
    const Span level = d.node(at(d, "records.character_1.level")).span;
    CHECK(d.source_bytes().substr(level.offset, level.length) == "12");
    CHECK(d.child_count(at(d, "records.character_1")) == 15);
    CHECK(value_at(d, "records.inventory_1.slotCount") == "3");
    CHECK(d.child_count(at(d, "records.inventory_1.slots")) == 3);
    CHECK(value_at(d, "records.inventory_1.slots[1].itemDefId") == "2042");
    CHECK(value_at(d, "records.inventory_1.slots[2].count") == "20");
    CHECK(d.child_count(at(d, "records.inventory_2.slots")) == 0);
    CHECK(d.child_count(at(d, "records.currency_1")) == 0); // no documented layout: no views
    // Strings are views into the file unless an escape was decoded.
    CHECK((d.node(at(d, "records.character_1")).value.off & Str::k_arena_bit) == 0);
    CHECK((d.node(at(d, "records.guild_motto_1")).value.off & Str::k_arena_bit) != 0);
    // The legacy store holds the same records, the values the legacy writer cut short cut.
    Parsed legacy = check_all(corpus("mmo-legacy.kv"));
    CHECK(legacy.doc.version() == 1);
    CHECK(value_at(legacy.doc, "records.guild_motto_1") == "Stand fast.");
    CHECK(value_at(legacy.doc, "records.save_dir") == "C:\\Games\\Spark\\new");
    CHECK(value_at(legacy.doc, "records.character_2.maxMana") == "50");
}

TEST_CASE("dump: records with their views, a line without a TAB as what it is") {
    Parsed p =
        parse("a\t1\nnot a record\ncharacter_7\tOld|5|900|2|1|2|3|0|200|200|80|80|3600|10\n");
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{}, text);
    CHECK(text == "records:\n"
                  "  a: \"1\"\n"
                  "  \"\": line without a TAB (skipped by the engine)\n"
                  "    text: \"not a record\"\n"
                  "  character_7: \"Old|5|900|2|1|2|3|0|200|200|80|80|3600|10\"\n"
                  "    name: \"Old\"\n"
                  "    level: 5\n"
                  "    xp: 900\n"
                  "    areaId: 2\n"
                  "    posX: 1\n"
                  "    posY: 2\n"
                  "    posZ: 3\n"
                  "    rotY: 0\n"
                  "    health: 200\n"
                  "    maxHealth: 200\n"
                  "    mana: 80\n"
                  "    maxMana: 80\n"
                  "    playTime: 3600\n"
                  "    currency: 10\n");
    CHECK(codes(p.findings) == "warning:missing_tab@2:1 records[1]\n"
                               "warning:record_shape@3:13 records.character_7\n");
}

TEST_CASE("v2 escapes: known ones decoded, unknown ones kept verbatim and reported") {
    Parsed p = check_all("#!spark-kv-v2\nk\\\\e\\ty\\n\tv\\\\\\t\\n\\r\\q\\\n");
    CHECK(records(p.doc) == "k\\\\e\\ty\\n=v\\\\\\t\\n\\\\r\\\\q\\\\");
    CHECK(codes(p.findings) == "error:bad_escape@2:18 records[\"k\\\\e\\ty\\n\"]\n");
    CHECK(p.findings.items()[0].message == "expected `\\\\`, `\\t` or `\\n` after a backslash, "
                                           "found \"\\\\r\": the engine keeps an unknown "
                                           "escape as it is (both characters), so a writer that "
                                           "meant an escape gets its value mangled "
                                           "(2 more in this value)");
    // The same text in a legacy store is literal.
    Parsed legacy = check_all("k\\e\tv\\n\\q\n");
    CHECK(records(legacy.doc) == "k\\\\e=v\\\\n\\\\q");
    CHECK(legacy.findings.items().empty());
    // A trailing backslash in a key and in a value.
    Parsed trailing = check_all("#!spark-kv-v2\nk\\\tv\\\n");
    CHECK(codes(trailing.findings) ==
          "error:bad_escape@2:2 records[\"k\\\\\"]\nerror:bad_escape@2:5 records[\"k\\\\\"]\n");
    CHECK(trailing.findings.items()[0].message ==
          "expected `\\\\`, `\\t` or `\\n` after a backslash, found the end of the key: the engine "
          "keeps the "
          "lone backslash");
}

TEST_CASE("the marker: exactly the first line, else the store is legacy (loudly)") {
    Parsed v2 = check_all("#!spark-kv-v2\na\\tb\t1\n");
    CHECK(v2.doc.version() == 2);
    CHECK(records(v2.doc) == "a\\tb=1");
    for (const char* first :
         {"#!spark-kv-v2\r", "#!spark-kv-v3", "\xEF\xBB\xBF#!spark-kv-v2", "#!spark-kv"}) {
        CAPTURE(first);
        Parsed p = check_all(std::string(first) + "\na\\tb\t1\n");
        CHECK(p.doc.version() == 1);
        CHECK(codes(p.findings) ==
              "error:unsupported_version@1:1 \n"); // the line itself: not also missing_tab
        CHECK(records(p.doc) == "#" + display(first) + " | a\\\\tb=1");
    }
    Parsed crlf = parse("#!spark-kv-v2\r\n");
    CHECK(crlf.findings.items()[0].message == "expected the marker line \"#!spark-kv-v2\", found "
                                              "\"#!spark-kv-v2\\r\" (CRLF line ends: the engine "
                                              "writes LF only): the engine does not recognise it, "
                                              "skips it as a line without a TAB and reads the "
                                              "store as legacy, decoding no escape");
    // A later line equal to the marker is an ordinary line without a TAB.
    Parsed later = check_all("a\t1\n#!spark-kv-v2\n");
    CHECK(codes(later.findings) == "warning:missing_tab@2:1 records[1]\n");
}

TEST_CASE("warnings: each with its place, what was expected and what was found") {
    Parsed tab = check_all("a\t1\n\nno tab\n\n");
    CHECK(codes(tab.findings) ==
          "warning:missing_tab@3:1 records[2]\n"); // empty lines hold nothing
    CHECK(tab.findings.items()[0].message == "expected KEY<TAB>VALUE, found a line without a TAB "
                                             "(\"no tab\"): the engine silently skips it, so "
                                             "this text is lost when the store is next written");

    Parsed dup = check_all("#!spark-kv-v2\nk\t1\nx\t2\nk\t3\nk\t4\n");
    CHECK(codes(dup.findings) ==
          "warning:duplicate_key@4:1 records.k\nwarning:duplicate_key@5:1 records.k\n");
    CHECK(dup.findings.items()[0].message == "expected each key once, found \"k\" again (it is on "
                                             "line 2 too): the engine keeps the last line of a "
                                             "key, so line 2 is lost");
    CHECK(dup.findings.items()[1].message.find("so line 4 is lost") != std::string::npos);
    // v2 keys are compared as the engine reads them.
    CHECK(codes(check_all("#!spark-kv-v2\na\\tb\t1\na\tb\t2\n").findings) == "");
    CHECK(codes(check_all("#!spark-kv-v2\na\\\\\t1\na\\\\\t2\n").findings) ==
          "warning:duplicate_key@3:1 records[\"a\\\\\"]\n");

    Parsed cr = check_all("k\tv\r\nk2\ta\rb\nc\rr\tx\n");
    CHECK(codes(cr.findings) ==
          "warning:carriage_return@1:4 records.k\nwarning:carriage_return@2:5 records.k2\n"
          "warning:carriage_return@3:2 records[\"c\\rr\"]\n");
    CHECK(cr.findings.items()[0].message ==
          "expected no CR in a value, found one at its end: the engine keeps it as part of the "
          "value (CR is "
          "not escaped); the file was probably converted to CRLF line ends");
    CHECK(cr.findings.items()[2].message == "expected no CR in a key, found one inside it: the "
                                            "engine keeps it as part of the key (CR is not "
                                            "escaped)");

    Parsed token = check_all("#!spark-kv-v2\ncharacter_%1\tx\nq\tselect ?12 and %3\npct\t100%\n");
    CHECK(codes(token.findings) == "warning:placeholder_token@2:11 records[\"character_%1\"]\n"
                                   "warning:record_shape@2:14 records[\"character_%1\"]\n"
                                   "warning:placeholder_token@3:10 records.q\n");
    CHECK(token.findings.items()[0].message.rfind(
              "expected no unsubstituted query parameter, found \"%1\" in "
              "the key",
              0) == 0);
    CHECK(token.findings.items()[2].message == "expected no unsubstituted query parameter, found "
                                               "\"?12\" in the value: the token was stored instead "
                                               "of the data it stands for");
}

TEST_CASE("MMO shapes: characters of 15 fields (14: legacy), inventories whose slots add up") {
    auto shape = [](const std::string& line) {
        return codes(check_all("#!spark-kv-v2\n" + line + "\n").findings);
    };
    const std::string fifteen = "A|1|2|3|4|5|6|7|8|9|10|11|12|13|14";
    CHECK(shape("character_1\t" + fifteen) == "");
    CHECK(shape("character_1\tA|2|3|4|5|6|7|8|9|10|11|12|13|14") ==
          "warning:record_shape@2:13 records.character_1\n");
    CHECK(shape("character_1\t" + fifteen + "|15") ==
          "warning:record_shape@2:13 records.character_1\n");
    CHECK(shape("character_1\t") == "warning:record_shape@2:13 records.character_1\n");
    CHECK(shape("character_\tx") == "");   // no id: not an MMO key
    CHECK(shape("character_1a\tx") == ""); // nor this
    CHECK(shape("my_character_1\tx") == "");
    Parsed legacy_form = parse("#!spark-kv-v2\ncharacter_1\tA|2|3|4|5|6|7|8|9|10|11|12|13|14\n");
    CHECK(legacy_form.findings.items()[0].message.find(
              "found 14: the legacy form without accountId") != std::string::npos);
    CHECK(legacy_form.doc.child(at(legacy_form.doc, "records.character_1"), "accountId") ==
          k_no_node);
    CHECK(value_at(legacy_form.doc, "records.character_1.level") == "2");

    CHECK(shape("inventory_1\t1|10|5|2|0:1:1,1:2:3") == "");
    CHECK(shape("inventory_1\t1|10|5|0|") == "");
    CHECK(shape("inventory_1\t1|10|5|2|0:1:1,1:2:3,") == ""); // one trailing comma
    CHECK(shape("inventory_1\t1|10|5|3|0:1:1,1:2:3") ==
          "warning:record_shape@2:20 records.inventory_1.slotCount\n");
    CHECK(shape("inventory_1\t1|10|5|2|0:1:1,,1:2:3") ==
          "warning:record_shape@2:28 records.inventory_1.slots[1]\n"
          "warning:record_shape@2:20 records.inventory_1.slotCount\n");
    CHECK(shape("inventory_1\t1|10|5|1|0:1") ==
          "warning:record_shape@2:22 records.inventory_1.slots[0]\n");
    CHECK(shape("inventory_1\t2|10|5|0|") ==
          "warning:record_shape@2:13 records.inventory_1.version\n");
    CHECK(shape("inventory_1\t1|10|5|x|") ==
          "warning:record_shape@2:20 records.inventory_1.slotCount\n");
    CHECK(shape("inventory_1\t1|10|5") == "warning:record_shape@2:13 records.inventory_1\n");
    CHECK(shape("inventory_1\t1|10|5|99999999999999999999999|") ==
          "warning:record_shape@2:20 records.inventory_1.slotCount\n");
    Parsed mismatch = parse("#!spark-kv-v2\ninventory_1\t1|10|5|3|0:1:1,1:2:3\n");
    CHECK(mismatch.findings.items()[0].message == "expected 3 slot entries (slotCount), found 2");
    // With escapes, a field's place is the value's start.
    CHECK(shape("inventory_1\t1|10|5|3|0:1:1\\\\") ==
          "warning:record_shape@2:13 records.inventory_1.slots[0]\nwarning:record_shape@2:13 "
          "records.inventory_1.slotCount\n");
}

TEST_CASE("summarize: marker, counts, key prefixes and what the engine does") {
    Summary s = kv::summarize(corpus("mmo-v2.kv"));
    CHECK(s.version == 2);
    CHECK(s.version_known);
    CHECK(s.integrity == Integrity::none);
    CHECK(s.engine_loads);
    CHECK(s.engine_note == "loads it");
    REQUIRE(s.metadata.size() == 1);
    CHECK(s.metadata[0].text == "#!spark-kv-v2");
    REQUIRE(s.counts.size() == 3);
    CHECK(s.counts[0].text == "16");
    CHECK(s.counts[1].text == "16");
    CHECK(s.counts[2].text == "0");
    REQUIRE(s.common_types.size() >= 3);
    CHECK(s.common_types[0] == std::pair<std::string, std::uint64_t>{"character_", 3});
    CHECK(s.common_types[1] == std::pair<std::string, std::uint64_t>{"inventory_", 3});
    Summary legacy = kv::summarize("k\t1\nk\t2\n__schema_x\t1\nno tab\n\n");
    CHECK(legacy.version == 1);
    CHECK(legacy.metadata[0].text == "none (legacy store)");
    CHECK(legacy.counts[0].text == "3");
    CHECK(legacy.counts[1].text == "2");
    CHECK(legacy.counts[2].text == "1");
    CHECK(legacy.common_types[0] == std::pair<std::string, std::uint64_t>{"k", 2});
    CHECK(legacy.common_types[1] == std::pair<std::string, std::uint64_t>{"__schema_", 1});
    CHECK(legacy.engine_note.rfind("loads it (a legacy store", 0) == 0);
    // The engine refuses no store (formats/README.md §3): with errors it loads it and misreads it.
    Summary bad = kv::summarize(corpus("bad-escape-unknown.kv"));
    CHECK(bad.engine_loads);
    CHECK(bad.engine_note.rfind("loads it but misreads it", 0) == 0);
    Summary marker = kv::summarize(corpus("marker-v3.kv"));
    CHECK(marker.engine_loads);
    CHECK(marker.engine_note.find("decodes no escape") != std::string::npos);
}

TEST_CASE("the writer: the file's own text while it holds, the engine's writer otherwise") {
    Parsed p = parse("#!spark-kv-v2\nk\tv\\q\\\\\nplain\tx\n");
    Document& d = p.doc;
    // Unchanged: byte for byte, non-canonical escapes and all.
    CHECK(*kv::write(d) == "#!spark-kv-v2\nk\tv\\q\\\\\nplain\tx\n");
    // An edited value is written as the engine writes it; the other line keeps its text.
    d.node(at(d, "records.plain")).value = d.text("two\nlines\t\\");
    CHECK(*kv::write(d) == "#!spark-kv-v2\nk\tv\\q\\\\\nplain\ttwo\\nlines\\t\\\\\n");
    // A legacy store cannot hold a line feed.
    d.set_version(1);
    auto refused = kv::write(d);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().path == "records.plain");
    CHECK(refused.error().message == "expected a key and value a legacy store can hold (it has no "
                                     "escaping), found a line feed in the value; "
                                     "migrate to v2 first");
    // A legacy store whose first line would read as the marker.
    Parsed marker = parse("#!spark-kv-v2\n#!spark-kv-v2\n");
    marker.doc.set_version(1);
    auto as_marker = kv::write(marker.doc);
    REQUIRE_FALSE(as_marker);
    CHECK(as_marker.error().path == "records[0]");
    // No final LF after an empty last line: no line at all.
    Parsed empty_last = parse("a\t1\n\n");
    empty_last.doc.node(empty_last.doc.root()).flags |= kv::k_flag_no_final_newline;
    auto no_line = kv::write(empty_last.doc);
    REQUIRE_FALSE(no_line);
    CHECK(no_line.error().path == "records[1]");
    Parsed version = parse("a\t1\n");
    version.doc.set_version(3);
    CHECK_FALSE(kv::write(version.doc));
}

TEST_CASE("JSON: records, raw text only where needed, lines without a TAB, the final newline") {
    Parsed p = parse("#!spark-kv-v2\nk\tv\\q\nt\ta\tb\n\xff\t\\t\nloose\n\n");
    CHECK(dump_json(p.doc) ==
          "{\n"
          "  \"format\": \"spark_kv\",\n"
          "  \"version\": 2,\n"
          "  \"records\": [\n"
          "    {\"key\": \"k\", \"value\": \"v\\\\q\", \"raw\": \"k\\tv\\\\q\"},\n"
          "    {\"key\": \"t\", \"value\": \"a\\tb\", \"raw\": \"t\\ta\\tb\"},\n"
          "    {\"key\": {\"base64\": \"/w==\"}, \"value\": \"\\t\"},\n"
          "    {\"line\": \"loose\"},\n"
          "    {\"line\": \"\"}\n"
          "  ]\n"
          "}\n");
    CHECK(dump_json(parse("a\t1").doc) == "{\n  \"format\": \"spark_kv\",\n  \"version\": 1,\n  "
                                          "\"records\": [\n    {\"key\": \"a\", \"value\": \"1\"}\n"
                                          "  ],\n  \"finalNewline\": false\n}\n");
    CHECK(dump_json(parse("").doc) ==
          "{\n  \"format\": \"spark_kv\",\n  \"version\": 1,\n  \"records\": []\n}\n");
}

TEST_CASE(
    "pack: edits are written canonically; JSON that is not a dump gets an error at its path") {
    auto packed = kv::from_json(R"({"format": "spark_kv", "version": 2, "records": [
        {"key": "k", "value": "new\nvalue", "raw": "k\tv\\q"}, {"key": "a\\b", "value": ""}, {"line": "x"}]})");
    REQUIRE(packed);
    CHECK(packed->bytes == "#!spark-kv-v2\nk\tnew\\nvalue\na\\\\b\t\nx\n");
    REQUIRE(packed->notes.size() == 1);
    CHECK(packed->notes[0] ==
          "records[0]: raw does not read back as key and value, so the line was written from them");
    auto legacy = kv::from_json(
        R"({"version": 1, "records": [{"key": "a", "value": "C:\\new"}], "finalNewline": false})");
    REQUIRE(legacy);
    CHECK(legacy->bytes == "a\tC:\\new");
    struct Case {
        const char* json;
        const char* path;
        const char* message_start;
    };
    for (Case c : std::initializer_list<Case>{
             {"[]", "", "expected an object"},
             {R"({"records": []})", "", "expected a member \"version\""},
             {R"({"version": 2})", "", "expected a member \"records\""},
             {R"({"version": 3, "records": []})", "version",
              "expected 1 (legacy) or 2 (v2), found 3"},
             {R"({"version": "2", "records": []})", "version", "expected 1 (legacy) or 2 (v2)"},
             {R"({"format": "spark_save", "version": 2, "records": []})", "format",
              "expected \"spark_kv\""},
             {R"({"version": 2, "records": {}})", "records", "expected an array"},
             {R"({"version": 2, "records": [5]})", "records[0]",
              "expected {\"key\", \"value\"} or {\"line\"}"},
             {R"({"version": 2, "records": [{"key": "a"}]})", "records[0]",
              "expected a member \"value\""},
             {R"({"version": 2, "records": [{"value": "a"}]})", "records[0]",
              "expected a member \"key\""},
             {R"({"version": 2, "records": [{"key": "a", "value": 1}]})", "records[0].value",
              "expected a string or"},
             {R"({"version": 2, "records": [{"key": "a", "value": "b", "line": "c"}]})",
              "records[0]", "expected either"},
             {R"({"version": 2, "records": [{"key": "a", "value": "b", "x": 1}]})", "records[0].x",
              "unknown member \"x\""},
             {R"({"version": 2, "records": [{"key": "a", "key": "b", "value": ""}]})",
              "records[0].key", "expected each member once"},
             {R"({"version": 2, "records": [{"line": "a\tb"}]})", "records[0].line",
              "expected a line without a TAB"},
             {R"({"version": 1, "records": [{"line": "#!spark-kv-v2"}]})", "records[0].line",
              "expected a legacy store not"},
             {R"({"version": 1, "records": [{"key": "a\tb", "value": ""}]})", "records[0]",
              "expected a key and value a legacy"},
             {R"({"version": 2, "records": [{"key": {"base64": "!"}, "value": ""}]})",
              "records[0].key.base64", "expected standard base64"},
             {R"({"version": 2, "records": [{"line": ""}], "finalNewline": false})", "finalNewline",
              "expected the last line"},
             {R"({"version": 2, "records": [], "finalNewline": 0})", "finalNewline",
              "expected true or false"},
             {R"({"version": 2, "records": [], "version": 2})", "version",
              "expected each member once"},
             {R"({"version": 2, "records": [], "extra": 1})", "extra", "unknown member \"extra\""},
         }) {
        CAPTURE(c.json);
        auto r = kv::from_json(c.json);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::bad_json);
        CHECK(r.error().path == c.path);
        CHECK(r.error().message.rfind(c.message_start, 0) == 0);
        CHECK(r.error().line >= 1);
        CHECK(r.error().column >= 1);
    }
}

TEST_CASE("pack(dump --json x) == x and write(read(x)) == x for the corpus and generated stores") {
    std::size_t n = 0;
    for (const char* dir : {"valid", "invalid"}) {
        for (const auto& file : test::corpus_files(test::testdata() / "spark_kv", dir, ".kv")) {
            CAPTURE(file.filename().string());
            check_all(test::read_bytes(file));
            ++n;
        }
    }
    CHECK(n >= 30);
    std::mt19937 rng(20261129);
    for (std::uint32_t version : {1u, 2u}) {
        for (int i = 0; i < 300; ++i) {
            const std::string bytes = random_store(rng, version);
            CAPTURE(display(bytes));
            Parsed p = check_all(bytes);
            CHECK_FALSE(p.findings.has_errors()); // the engine's writers make no error
            CHECK(p.doc.version() == version);
        }
    }
}

TEST_CASE("migrate legacy -> v2: marker, every key and value escaped, same records") {
    const std::string legacy = corpus("mmo-legacy.kv");
    Parsed in = parse(legacy);
    auto m = migrate(in.doc, 2);
    REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
    REQUIRE(m->steps.size() == 1);
    CHECK(m->steps[0]->id == "spark_kv_v1_to_v2");
    Parsed out = check_all(m->bytes);
    CHECK(out.doc.version() == 2);
    CHECK(records(out.doc) == records(in.doc));
    CHECK(m->bytes.rfind("#!spark-kv-v2\n__schema_characters\t3\n", 0) == 0);
    CHECK(m->bytes.find("save_dir\tC:\\\\Games\\\\Spark\\\\new\n") != std::string::npos);
    CHECK(test::note_texts(m->notes) ==
          std::vector<std::string>{"escaped the backslashes and TABs of 1 record"});
    // The golden, and migrating again is a no-op.
    const std::string golden =
        test::read_bytes(test::testdata() / "migrations/spark_kv/mmo-legacy.v2.kv");
    CHECK(m->bytes == golden);
    auto again = plan_migration(FormatId::spark_kv, out.doc.version(), 2);
    REQUIRE(again);
    CHECK(again->empty());
    // Diff: the legacy store and its migration hold the same records.
    std::vector<std::string> changes;
    REQUIRE(diff(in.doc, out.doc, {}, [&](const Change& c) { changes.push_back(c.path.str()); }));
    CHECK(changes == std::vector<std::string>{"version"});
    // A literal TAB in a legacy value, an empty line, a CR, a missing final LF.
    Parsed odd = parse("a\tx\ty\n\nb\\n\tC:\\n\r\nlast\t1");
    auto mo = migrate(odd.doc, 2);
    REQUIRE(mo);
    CHECK(mo->bytes == "#!spark-kv-v2\na\tx\\ty\nb\\\\n\tC:\\\\n\r\nlast\t1");
    CHECK(
        test::note_texts(mo->notes) ==
        std::vector<std::string>{"dropped 1 empty line (the engine skips them; they held nothing)",
                                 "escaped the backslashes and TABs of 2 records"});
    Parsed empty = parse("");
    auto me = migrate(empty.doc, 2);
    REQUIRE(me);
    CHECK(me->bytes == "#!spark-kv-v2\n");
}

TEST_CASE(
    "migration goldens: every legacy store of the corpus migrates to its checked-in v2 file") {
    std::size_t n = 0;
    for (const auto& golden : test::files_in(test::testdata() / "migrations/spark_kv", ".v2.kv")) {
        std::string name = golden.filename().string();
        name.replace(name.size() - 6, 6, ".kv"); // x.v2.kv -> x.kv
        CAPTURE(name);
        Parsed in = parse(test::read_bytes(test::testdata() / "spark_kv/valid" / name));
        REQUIRE(in.doc.version() == 1);
        auto m = migrate(in.doc, 2);
        REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
        const std::string expected = test::read_bytes(golden);
        CHECK(m->bytes == expected);
        Parsed out = check_all(expected);
        CHECK(out.doc.version() == 2);
        CHECK_FALSE(out.findings.has_errors());
        CHECK(records(out.doc) == records(in.doc));
        ++n;
    }
    CHECK(n >= 6);
}

TEST_CASE("migrate refuses a line without a TAB, naming it, and changes nothing") {
    Parsed in = parse("a\t1\nstray text\nb\t2\n");
    const std::string before = records(in.doc);
    auto m = migrate(in.doc, 2);
    REQUIRE_FALSE(m);
    CHECK(m.error().code == ErrorCode::missing_tab);
    CHECK(m.error().path == "records[1]");
    CHECK(m.error().message.rfind(
              "step spark_kv_v1_to_v2: expected every line to be KEY<TAB>VALUE, found a line "
              "without a TAB (\"stray text\")",
              0) == 0);
    CHECK(records(in.doc) == before);
    CHECK(in.doc.version() == 1);
}

TEST_CASE("migrated generated legacy stores are valid v2 stores with the same records") {
    std::mt19937 rng(7);
    for (int i = 0; i < 200; ++i) {
        const std::string bytes = random_store(rng, 1);
        CAPTURE(display(bytes));
        Parsed in = parse(bytes);
        auto m = migrate(in.doc, 2);
        REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
        Parsed out = check_all(m->bytes);
        CHECK_FALSE(out.findings.has_errors());
        CHECK(records(out.doc) == records(in.doc));
    }
}

TEST_CASE("diff: a changed value is one change at the record; views are not compared") {
    Parsed a = parse("#!spark-kv-v2\ncharacter_1\tA|1|2|3|4|5|6|7|8|9|10|11|12|13|14\nk\tv\n");
    Parsed b =
        parse("#!spark-kv-v2\ncharacter_1\tA|1|3|3|4|5|6|7|8|9|10|11|12|13|14\nk\tv\nnew\tx\n");
    std::vector<std::string> changes;
    REQUIRE(diff(a.doc, b.doc, {}, [&](const Change& c) {
        changes.push_back(std::string(op_name(c.op)) + " " + c.path.str());
    }));
    CHECK(changes == std::vector<std::string>{"change records.character_1", "add records.new"});
}

TEST_CASE("limits: the file size, the number of lines, the view budget") {
    Parsed big = parse(std::string(kv::k_max_file_size + 1, 'x'));
    CHECK(codes(big.findings) == "error:too_large@1:1 \n");
    Summary big_summary = kv::summarize(std::string(kv::k_max_file_size + 1, 'x'));
    CHECK(big_summary.findings.has_errors());

    const std::string lines(kv::k_max_lines + 1, '\n');
    Parsed many = parse(lines);
    CHECK(codes(many.findings) == fmt::format("error:limit_exceeded@{}:1 \n", kv::k_max_lines + 1));
    CHECK(many.doc.child_count(many.doc.child(many.doc.root(), "records")) == kv::k_max_lines);

    // An inventory listing more slots than the view budget: no views, every check still made.
    std::string slots;
    for (int i = 0; i < 300'000; ++i) slots += "0:1:1,";
    const std::string store =
        "#!spark-kv-v2\ninventory_1\t1|9|9|300000|" + slots + "\ninventory_2\t1|9|9|1|0:1:1\n";
    Parsed p = parse(store);
    CHECK(p.findings.items().empty());
    CHECK(p.doc.child_count(at(p.doc, "records.inventory_1")) == 0);
    CHECK(p.doc.child_count(at(p.doc, "records.inventory_2")) == 5);
    CHECK(*kv::write(p.doc) == store);
}

TEST_CASE("many findings stay bounded and cheap") {
    std::string store;
    for (int i = 0; i < 50'000; ++i) store += "character_%1\tx\n";
    Parsed p = parse(store);
    CHECK(p.findings.items().size() == Findings::k_max_kept);
    CHECK(p.findings.warning_count() == 150'000 - 1); // token, shape, duplicate (not on the first)
    CHECK(p.findings.dropped() == p.findings.warning_count() - Findings::k_max_kept);
}
