// Text archive reader, writer and checks: the engine's real files decoded node by node against
// formats/README.md §2, every truncation of them, hand-made lines for the tricky cases, the depth
// limit, and random archives from a model of the engine's writer (independent of ours).
#include <doctest/doctest.h>

#include "support.hpp"
#include "text_archive/engine.hpp"
#include "text_archive/rules.hpp"
#include "text_archive/spec.hpp"

#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"
#include "text_archive/api.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <random>
#include <sstream>

using namespace sparksave;
namespace ta = sparksave::text_archive;

namespace {

using test::at;
using test::value_at;

Parsed parse(std::string bytes) {
    return ta::read(std::make_shared<const Source>(std::move(bytes)));
}

// A file of the corpus (generated, hand-written or the engine's own) by its name.
std::string real(const char* name) {
    for (const char* kind : {"valid", "invalid"}) {
        for (const auto& dir : test::corpus_dirs(test::testdata() / "text_archive", kind))
            if (std::filesystem::exists(dir / name)) return test::read_bytes(dir / name);
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

// Read, summarize, print, JSON and (when valid) write: the same checks either way, and a valid
// file writes back byte for byte. Returns the parse.
Parsed check_all(const std::string& bytes) {
    Parsed p = parse(bytes);
    Summary s = ta::summarize(bytes);
    CHECK(codes(p.findings) == codes(s.findings));
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    ta::to_json(p.doc, text);
    // A file the engine reads as written, in the writer's own form (no notes), writes back byte
    // for byte; one with notes writes back in the writer's form.
    bool writer_form = !p.findings.has_errors() && p.findings.note_count() == 0;
    for (const auto& f : p.findings.items())
        if (f.code == ErrorCode::bad_syntax) writer_form = false; // text the engine ignores
    if (writer_form) {
        auto written = ta::write(p.doc);
        REQUIRE_MESSAGE(written, (written ? "" : written.error().describe()));
        CHECK(*written == bytes);
    }
    for (const auto& f : p.findings.items()) {
        CHECK_FALSE(f.has_offset());
        CHECK(f.line >= 1);
        CHECK(f.column >= 1);
        CHECK_FALSE(f.message.empty());
    }
    return p;
}

// A model of PgEngine's Archive (formats/README.md §2), written for the tests: newline, comma and
// indentation are written lazily before the next text; a value's newlines go the same way.
struct EngineArchive {
    std::string out;
    std::size_t indent = 0;
    bool newline = false, comma = false;

    void put(std::string_view s) {
        if (newline) {
            if (comma) out += ',';
            out += '\n';
            out.append(indent, '\t');
            newline = false;
        }
        out += s;
    }
    void endl() { comma = newline = true; }
    void start(std::string_view cls) {
        put(cls);
        put(" {");
        endl();
        ++indent;
        comma = false;
    }
    void end() {
        comma = false;
        --indent;
        put("}");
        endl();
    }
    void attribute(std::string_view value, std::string_view type) {
        put("__PGSA");
        put(" ");
        put(type);
        put(" {");
        std::size_t pos = 0;
        bool first = true;
        while (pos < value.size()) { // std::getline over the value
            std::size_t nl = value.find('\n', pos);
            std::string_view line =
                value.substr(pos, nl == std::string_view::npos ? value.npos : nl - pos);
            if (!first) endl();
            first = false;
            put(line);
            if (nl == std::string_view::npos) break;
            pos = nl + 1;
        }
        put("}");
        endl();
    }
    void name(std::string_view n) {
        put(n);
        put(": ");
    }
};

} // namespace

TEST_CASE("real sample: every node as formats/README.md §2 describes it") {
    Parsed p = check_all(real("pg-writer-sample.sz"));
    const Document& doc = p.doc;
    CHECK(doc.version() == 1);
    CHECK(doc.value(doc.root()) == "1.0.0");
    CHECK(doc.child_count(doc.root()) == 3);
    CHECK(value_at(doc, "title") == "hello world");
    CHECK(doc.tag(at(doc, "title")) == "string");
    CHECK(doc.node(at(doc, "title")).type == ValueType::string);
    CHECK(value_at(doc, "count") == "5");
    CHECK(doc.node(at(doc, "count")).type == ValueType::integer);
    const NodeId player = at(doc, "player");
    CHECK(doc.node(player).kind == NodeKind::object);
    CHECK(doc.tag(player) == "PositionComponent");
    CHECK(value_at(doc, "player.x") == "42.500000");
    CHECK(doc.node(at(doc, "player.x")).type == ValueType::floating);
    CHECK(value_at(doc, "player.visible") == "true");
    CHECK(doc.node(at(doc, "player.visible")).type == ValueType::boolean);
    CHECK(value_at(doc, "player.inner.hp") == "7");
    CHECK(value_at(doc, "player.inner.name") == "bob");
    CHECK(doc.node(at(doc, "player.v")).kind == NodeKind::list);
    CHECK(doc.child_count(at(doc, "player.v")) == 3);
    CHECK(value_at(doc, "player.v[2]") == "3");
    CHECK(doc.name(at(doc, "player.v[2]")).empty());
    CHECK(doc.tag(at(doc, "player.m")) == "UnorderedMap");
    CHECK(value_at(doc, "player.m.nbElements") == "1");
    CHECK(doc.tag(at(doc, "player.m.nbElements")) == "size_t");
    CHECK(doc.node(at(doc, "player.m.nbElements")).type == ValueType::unsigned_integer);
    CHECK(value_at(doc, "player.m.key0") == "a");
    CHECK(value_at(doc, "player.tricky") == "line1,\n\tline2 {x}, y: z");
    CHECK(value_at(doc, "player.d") == "0.100000");
    CHECK(doc.tag(at(doc, "player.d")) == "double");
    CHECK(doc.tag(at(doc, "player.u")) == "unsigned int");
    CHECK(doc.tag(at(doc, "player.v2")) == "Vector 2D");
    CHECK(value_at(doc, "player.v2.y") == "-2.000000");
    CHECK(doc.tag(at(doc, "player.vi[1]")) == "Inner");
    CHECK(value_at(doc, "player.vi[1].name") == "bob");
    CHECK(value_at(doc, "player.empty").empty());
    // Spans: the child's text after its indentation, comma and LF excluded.
    const std::string bytes = real("pg-writer-sample.sz");
    const Span s = doc.node(at(doc, "player.inner.hp")).span;
    CHECK(bytes.substr(s.offset, s.length) == "hp: __PGSA int {7}");
    const Span c = doc.node(at(doc, "player.v2")).span;
    CHECK(bytes.substr(c.offset, c.length) ==
          "v2: Vector 2D {\n\t\tx: __PGSA float {1.500000},\n\t\ty: __PGSA float {-2.000000}\n\t}");
    // The writer-corrupted multi-line value (lines 22-23) is the one error, where it starts.
    REQUIRE(p.findings.items().size() == 1);
    const Error& e = p.findings.items()[0];
    CHECK(e.code == ErrorCode::multiline_value);
    CHECK(e.line == 22);
    CHECK(e.column == 25);
    CHECK(e.path == "player.tricky");
    CHECK(e.message.find("line 23") != std::string::npos);
    // Invalid, but every byte is in the tree: writing it back still gives the same file.
    auto written = ta::write(doc);
    REQUIRE(written);
    CHECK(*written == bytes);
}

TEST_CASE("real edge cases: odd names and values survive, the engine's losses are reported") {
    Parsed p = check_all(real("pg-writer-edge-cases.sz"));
    const Document& doc = p.doc;
    CHECK(p.findings.error_count() == 1); // the cut name: the engine reads the entry as `key with`
    CHECK(value_at(doc, "[\"key with: colon\"]") == "3");
    CHECK(doc.child_count(at(doc, "e")) == 0);
    CHECK(doc.tag(at(doc, "e")) == "Empty");
    CHECK(value_at(doc, "obj.a") == "a {b}, c: d}");
    CHECK(value_at(doc, "obj.b") == "  lead and trail  ");
    CHECK(value_at(doc, "obj.c") == "x__PGSA y");
    CHECK(codes(p.findings) == "error:name_cut@2:1 [\"key with: colon\"]\n"
                               "warning:marker_in_value@8:21 obj.c\n");
    CHECK(p.findings.items()[0].message.find("\"key with\"") != std::string::npos);
}

TEST_CASE("every truncation of the real files: whole entries read, a cut class entry is lost") {
    for (const char* name : {"pg-writer-sample.sz", "pg-writer-edge-cases.sz"}) {
        CAPTURE(name);
        const std::string bytes = real(name);
        // The first error of each file: line 22 of the sample (inside `player`), line 2 of the
        // edge cases (a cut name).
        const std::size_t first_bad = std::string(name) == "pg-writer-sample.sz"
                                          ? bytes.find("player: ")
                                          : bytes.find('\n') + 1;
        std::size_t lost = 0;
        for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
            CAPTURE(cut);
            const std::string part = bytes.substr(0, cut);
            Parsed p = check_all(part);
            // formats/README.md §2.1: a prefix that ends where a top-level entry could start holds
            // whole entries only, read as they are (a 0-byte file is a fresh archive); one that
            // ends after a class entry's first line and before its `}` line loses that entry.
            const bool whole =
                cut == 0 || (bytes[cut - 1] == '\n' &&
                             (cut == bytes.size() || (bytes[cut] != '\t' && bytes[cut] != '}')));
            const std::size_t line = part.rfind("\n", cut == 0 ? 0 : cut - 1);
            const bool in_class = !whole && line != std::string::npos && cut > line + 1 &&
                                  (part[line + 1] == '\t' || part[line + 1] == '}');
            if (cut <= first_bad && whole) CHECK_FALSE(p.findings.has_errors());
            if (in_class) {
                CHECK(p.findings.has_errors());
                ++lost;
            }
        }
        CHECK(lost > 20);
    }
}

TEST_CASE("a 100,000-deep nesting is a clean error, not a stack overflow") {
    std::string deep = "1.0.0\n";
    for (int i = 0; i < 100'000; ++i) deep += "c: C {\n";
    for (int i = 0; i < 100'000; ++i) deep += "}\n";
    Parsed p = check_all(deep);
    CHECK(p.findings.has_errors());
    bool limit = false;
    for (const auto& f : p.findings.items())
        if (f.code == ErrorCode::limit_exceeded) limit = true;
    CHECK(limit);

    // Properly indented, one child per class (so no commas): the limit itself is fine, one
    // level more is an error.
    auto nested = [](std::size_t levels) {
        std::string s = "1.0.0\n";
        for (std::size_t i = 0; i < levels; ++i) s += std::string(i, '\t') + "c: C {\n";
        s += std::string(levels, '\t') + "leaf: __PGSA int {1}\n";
        for (std::size_t i = levels; i-- > 0;) s += std::string(i, '\t') + "}\n";
        return s;
    };
    Parsed ok = check_all(nested(ta::k_max_depth));
    CHECK_MESSAGE(!ok.findings.has_errors(), codes(ok.findings));
    Parsed over = check_all(nested(ta::k_max_depth + 1));
    REQUIRE(over.findings.items().size() == 1);
    CHECK(over.findings.items()[0].code == ErrorCode::limit_exceeded);
    CHECK(over.findings.items()[0].line == ta::k_max_depth + 2);
}

TEST_CASE("detection by content: the version line, or a version-like line and the marker") {
    CHECK(ta::detect("1.0.0\n"));
    CHECK(ta::detect("1.0.0"));
    CHECK(ta::detect("1.0.0\nx: __PGSA int {1}\n"));
    CHECK(ta::detect("1.0.1\nx: __PGSA int {1}\n"));
    CHECK(ta::detect("2.0\r\nx: __PGSA int {1}\r\n"));
    CHECK(ta::detect("\xEF\xBB\xBF"
                     "1.0.0\nx: __PGSA int {1}\n"));
    CHECK(ta::detect("v1.0.0\nx: __PGSA int {1}\n"));
    CHECK_FALSE(ta::detect(""));
    CHECK_FALSE(ta::detect("1.0.1\nno marker here\n"));
    CHECK_FALSE(ta::detect("hello\nx: __PGSA int {1}\n"));
    CHECK_FALSE(ta::detect("1..0\nx: __PGSA int {1}\n"));
    CHECK_FALSE(ta::detect("SPRK\x01\0\0\0"));
    CHECK_FALSE(ta::detect("1.0.1 __PGSA\n"));
}

TEST_CASE("the version line: anything but 1.0.0 is reported loudly") {
    Parsed p = check_all("1.0.1\nx: __PGSA int {1}\n");
    REQUIRE(p.findings.items().size() == 1);
    CHECK(p.findings.items()[0].code == ErrorCode::unsupported_version);
    CHECK(p.findings.items()[0].message.find("read this file as empty") != std::string::npos);
    CHECK(p.doc.version() == 0);
    CHECK(value_at(p.doc, "x") == "1"); // still read, so dump shows what the engine would lose
    Summary s = ta::summarize("1.0.1\nx: __PGSA int {1}\n");
    CHECK_FALSE(s.version_known);
    CHECK_FALSE(s.engine_loads);
    CHECK(check_all("1.0.0\r\nx: __PGSA int {1}\n").findings.items()[0].message.find("CRLF") !=
          std::string::npos);
    // formats/README.md §2.1: a 0-byte file is a fresh archive, the version line alone an empty
    // one.
    CHECK(codes(check_all("").findings) == "note:truncated@1:1 \n");
    CHECK(codes(check_all("1.0.0").findings) == "note:truncated@1:6 \n");
    CHECK(ta::summarize("").engine_loads);
    CHECK_FALSE(check_all("1.0.0\n").findings.has_errors());
}

// formats/README.md §2.1: the engine reads numbers with `std::stringstream >>`. Our model of it
// (text_archive/engine.hpp) against the C++ library itself, on random text made of the pieces
// that matter: signs, digits, dots, exponents, blanks, junk, out-of-range magnitudes.
TEST_CASE("numbers: the model of `stringstream >>` reads what the C++ library reads") {
    namespace en = ta::engine;
    std::mt19937 rng(20261201);
    static const char* const pieces[] = {
        "0",   "7",     "12",     "+",      "-",          ".",          "e",
        "E",   " ",     "\t",     "\r",     "x",          "a",          "inf",
        "nan", "0x1p3", "1e39",   "1e-50",  "2147483648", "4294967296", "18446744073709551616",
        "}",   "1e-40", "1e-400", "1e-310", "0e-99"};
    std::size_t compared = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string text;
        for (std::size_t n = rng() % 5; n-- > 0;) text += pieces[rng() % std::size(pieces)];
        CAPTURE(text);
        auto end_of = [&](std::istringstream& ss) {
            if (ss.eof()) return text.size();
            return static_cast<std::size_t>(ss.tellg());
        };
        {
            std::istringstream ss(text);
            int v = 0;
            ss >> v;
            const auto x = en::extract_integer(text, true, INT32_MAX);
            CHECK(x.as_signed == v);
            CHECK(x.fail == ss.fail());
            if (!ss.fail()) CHECK(x.end == end_of(ss));
        }
        {
            std::istringstream ss(text);
            unsigned int v = 0;
            ss >> v;
            const auto x = en::extract_integer(text, false, UINT32_MAX);
            CHECK(x.as_unsigned == v);
            CHECK(x.fail == ss.fail());
        }
        {
            std::istringstream ss(text);
            std::size_t v = 0;
            ss >> v;
            const auto x = en::extract_integer(text, false, UINT64_MAX);
            CHECK(x.as_unsigned == v);
            CHECK(x.fail == ss.fail());
        }
        // underflow: the library sets no failbit and reads a zero (of the number's sign), though
        // the digits taken hold one that is not 0 (formats/README.md §2.1)
        auto zero_read = [&](auto v, bool fail, std::size_t end) {
            const std::string taken = text.substr(0, end);
            const std::size_t e = taken.find_first_of("eE");
            return !fail && v == 0 &&
                   taken.substr(0, e).find_first_of("123456789") != std::string::npos;
        };
        {
            std::istringstream ss(text);
            float v = 0;
            ss >> v;
            const auto x = en::extract_float(text, true);
            CHECK(static_cast<float>(x.as_double) == v);
            CHECK(std::signbit(static_cast<float>(x.as_double)) == std::signbit(v));
            CHECK(x.fail == ss.fail());
            if (!ss.fail()) CHECK(x.end == end_of(ss));
            CHECK(x.underflow == zero_read(v, ss.fail(), x.end));
        }
        {
            std::istringstream ss(text);
            double v = 0;
            ss >> v;
            const auto x = en::extract_float(text, false);
            CHECK(x.as_double == v);
            CHECK(std::signbit(x.as_double) == std::signbit(v));
            CHECK(x.fail == ss.fail());
            CHECK(x.underflow == zero_read(v, ss.fail(), x.end));
        }
        ++compared;
    }
    CHECK(compared == 20000);
}

// What verify says of a number: what the engine reads (issue 11 item 22: never "a default"
// where the engine reads a number), an error when it is not the file's number, a note when it is
// but the engine's writer would not write it so.
TEST_CASE("numbers: verify says what the engine reads") {
    auto finding = [](std::string_view type, std::string_view value) {
        Parsed p = check_all(fmt::format("1.0.0\nv: __PGSA {} {{{}}}\n", type, value));
        if (p.findings.items().empty()) return std::string("none");
        const Error& e = p.findings.items()[0];
        return fmt::format("{} {}", severity_name(e.severity),
                           e.message.substr(e.message.find("the engine reads")));
    };
    CHECK(finding("int", "12abc") == "error the engine reads 12");
    CHECK(finding("int", "3.7") == "error the engine reads 3");
    CHECK(finding("int", "") == "error the engine reads 0");
    CHECK(finding("int", "2147483648") == "error the engine reads 2147483647");
    CHECK(finding("int", "-2147483649") == "error the engine reads -2147483648");
    CHECK(finding("unsigned int", "-5") == "error the engine reads 4294967291");
    CHECK(finding("size_t", "1.5") == "error the engine reads 1");
    CHECK(finding("float", "1e39") == "error the engine reads 3.4028235e+38");
    CHECK(finding("float", "inf") == "error the engine reads 0");
    CHECK(finding("float", "1e") == "error the engine reads 0");
    CHECK(finding("double", "0x10") == "error the engine reads 0");
    CHECK(finding("bool", "1") == "error the engine reads false");
    CHECK(finding("int", " 12") == "note the engine reads 12, as the file says");
    CHECK(finding("int", "+5") == "note the engine reads 5, as the file says");
    CHECK(finding("int", "007") == "note the engine reads 7, as the file says");
    CHECK(finding("unsigned int", "-0") == "note the engine reads 0, as the file says");
    CHECK(finding("float", " 1.500000") == "note the engine reads 1.5, as the file says");
    CHECK(finding("int", "-2147483648") == "none");
    CHECK(finding("size_t", "18446744073709551615") == "none");
    CHECK(finding("float", "42.500000") == "none");
    CHECK(finding("double", "1e308") == "none");
    // Underflow (formats/README.md §2.1): libstdc++'s `>>` sets no failbit and holds what strtof
    // or strtod returned: a zero of the number's sign (an error: the number is lost) ...
    CHECK(finding("float", "1e-50") == "error the engine reads 0");
    CHECK(finding("float", "-1e-50") == "error the engine reads -0");
    CHECK(finding("float", "7e-46") == "error the engine reads 0");     // < half 2^-149
    CHECK(finding("float", "0.7e-45") == "error the engine reads 0");   // a mantissa < 1
    CHECK(finding("double", "1e-400") == "error the engine reads 0");   // as a double too
    CHECK(finding("double", "2.4e-324") == "error the engine reads 0"); // < half 2^-1074
    CHECK(finding("float", "1e-50x") == "error the engine reads 0");    // junk: one error
    // ... or the nearest denormal, which is the file's number rounded like any other
    CHECK(finding("float", "1e-40") == "none");
    CHECK(finding("float", "7.1e-46") == "none"); // rounds up to 2^-149
    CHECK(finding("double", "1e-50") == "none");
    CHECK(finding("double", "1e-310") == "none");
    CHECK(finding("double", "4.9e-324") == "none");
    // ... and a zero written small is a zero
    CHECK(finding("float", "0e-99") == "none");
    CHECK(finding("float", "-0.000000") == "none");
    CHECK(finding("double", "0.0e-400") == "none");
    // Vector 2D/3D/4D components are floats: the same rule
    const Parsed v =
        check_all("1.0.0\nv: Vector 3D {\n\tx: __PGSA float {1e-50},\n\ty: __PGSA float "
                  "{0.000000},\n\tz: __PGSA float {-1e-45}\n}\n");
    CHECK(codes(v.findings) == "error:bad_value@3:19 v.x\n");
    REQUIRE(v.findings.items().size() == 1);
    CHECK(v.findings.items()[0].message.find("underflow") != std::string::npos);
}

TEST_CASE("names: empty vs none, the engine's cut at \": \", duplicates keep the last") {
    // serialize(archive, "", x) writes `: ` with an empty name; a Vector item has none. The
    // engine's lookup of "" finds the empty object every class holds first (formats/README.md
    // §2.1).
    const std::string bytes = "1.0.0\nobj: S {\n\t: __PGSA int {1},\n\t__PGSA int {2}\n}\n";
    Parsed p = check_all(bytes);
    CHECK(codes(p.findings) == "error:name_cut@3:2 obj[\"\"]\n");
    const NodeId obj = at(p.doc, "obj");
    const NodeId first = p.doc.child_at(obj, 0), second = p.doc.child_at(obj, 1);
    CHECK(p.doc.name(first).empty());
    CHECK(p.doc.name(second).empty());
    CHECK((p.doc.node(first).flags & ta::k_flag_empty_name) != 0);
    CHECK((p.doc.node(second).flags & ta::k_flag_empty_name) == 0);

    Parsed d = check_all("1.0.0\na: __PGSA int {1}\nb: __PGSA int {2}\na: __PGSA int {3}\n"
                         "a: cut: __PGSA int {4}\n");
    CHECK(codes(d.findings) == "error:duplicate_key@2:1 a\n"
                               "error:duplicate_key@4:1 a\n"
                               "error:name_cut@5:1 [\"a: cut\"]\n");
    CHECK(d.findings.items()[0].message.find("line 5") != std::string::npos);
    CHECK(d.findings.items()[1].message.find("line 5") != std::string::npos);
    // A class name ending in ':' makes a second ": " with the space before ` {`: the engine's
    // find(": ", p + 2) stops its read there (found by fuzz_pack: the entry was kept, so its
    // dump packed to a file read otherwise). At the top level and inside a class.
    CHECK(codes(check_all("1.0.0\nfoo: : {\n}\n").findings) == "error:bad_syntax@2:6 foo\n");
    CHECK(codes(check_all("1.0.0\no: S {\n\tv: W: {\n\t}\n}\n").findings) ==
          "error:bad_syntax@2:1 o\nerror:bad_syntax@3:5 o.v\n");
    // Inside a class, the FIRST child of a name is the one read.
    CHECK(codes(check_all("1.0.0\no: S {\n\ta: __PGSA int {1},\n\ta: __PGSA int {2}\n}\n")
                    .findings) == "error:duplicate_key@4:2 o.a\n");
}

TEST_CASE("multi-line values: every shape the writer produces is found, at its first line") {
    // Inside a class, with a sibling after it, and as the last child.
    CHECK(codes(check_all("1.0.0\no: S {\n\tv: __PGSA string {a,\n\tb},\n\tw: __PGSA int {1}\n}\n")
                    .findings) == "error:multiline_value@3:20 o.v\n");
    CHECK(codes(check_all("1.0.0\no: S {\n\tv: __PGSA string {a,\n\t,\n\tb}\n}\n").findings) ==
          "error:multiline_value@3:20 o.v\n");
    // A value ending in an empty line: its last line is the indentation and `}`.
    CHECK(codes(check_all("1.0.0\no: S {\n\tv: __PGSA string {a,\n\t}\n}\n").findings) ==
          "error:multiline_value@3:20 o.v\n");
    // The file ends inside the value.
    CHECK(codes(check_all("1.0.0\nv: __PGSA string {a,\nb,\n").findings) ==
          "error:multiline_value@2:19 v\nerror:truncated@3:3 v\n");
    // A first line ending in `,` with nothing after it.
    CHECK(codes(check_all("1.0.0\no: S {\n\tv: __PGSA string {a,\n\tw: S {\n\t}\n}\n").findings) ==
          "error:bad_syntax@3:22 o.v\nerror:bad_value@3:2 o.v\n");
}

TEST_CASE("container rules: counts, pair names, fixed field types") {
    auto map = [](std::string_view count_type, std::string_view count, std::string_view pairs) {
        return fmt::format("1.0.0\nm: UnorderedMap {{\n\tnbElements: __PGSA {} {{{}}}{}\n}}\n",
                           count_type, count, pairs);
    };
    const std::string two = ",\n\tkey0: __PGSA string {a},\n\tvalue0: __PGSA int {1},\n"
                            "\tkey1: __PGSA string {b},\n\tvalue1: __PGSA int {2}";
    CHECK(codes(check_all(map("size_t", "2", two)).findings).empty());
    CHECK(codes(check_all(map("size_t", "0", "")).findings).empty());
    CHECK(codes(check_all(map("int", "2", two)).findings) ==
          "warning:type_alias@3:21 m.nbElements\n");
    CHECK(codes(check_all(map("unsigned int", "2", two)).findings) ==
          "warning:type_alias@3:21 m.nbElements\n");
    CHECK(codes(check_all(map("float", "2.000000", two)).findings) ==
          "error:bad_value@3:21 m.nbElements\n");
    CHECK(codes(check_all(map("size_t", "3", two)).findings) ==
          "error:count_mismatch@3:29 m.nbElements\n");
    CHECK(codes(check_all(map("size_t", "1", ",\n\tkey0: __PGSA string {a}")).findings) ==
          "error:count_mismatch@5:1 m\nerror:count_mismatch@3:29 m.nbElements\n");
    // ElementType: data must be what its type names; int and size_t alias.
    auto element = [](std::string_view type, std::string_view data_type, std::string_view data) {
        return fmt::format("1.0.0\ne: ElementType {{\n\ttype: __PGSA string {{{}}},\n\tdata: "
                           "__PGSA {} {{{}}}\n}}\n",
                           type, data_type, data);
    };
    CHECK(codes(check_all(element("bool", "bool", "true")).findings).empty());
    CHECK(codes(check_all(element("int", "size_t", "1")).findings) ==
          "warning:type_alias@4:15 e.data\n");
    // formats/README.md §2.1: deserialize<ElementType> has no double branch: the element reads
    // as empty, and its data is never looked at.
    {
        const Parsed d = check_all(element("double", "double", "0.250000"));
        CHECK(codes(d.findings) == "error:bad_value@3:23 e.type\n");
        REQUIRE(d.findings.items().size() == 1);
        const std::string& m = d.findings.items()[0].message;
        CHECK(m.find("no double branch") != std::string::npos);
        CHECK(m.find("reads this element as empty (an int 0)") != std::string::npos);
        CHECK(m.find("current sources") == std::string::npos);
    }
    CHECK(codes(check_all(element("double", "float", "1.000000")).findings) ==
          "error:bad_value@3:23 e.type\n");
    CHECK(codes(check_all(element("unsigned int", "unsigned int", "1")).findings) ==
          "error:bad_value@3:23 e.type\n");
    // deserialize<SaveData> reads every value<i> with deserialize<ElementType>, whatever its
    // class name; an attribute there has no `type`: an empty element.
    auto save_data = [](std::string_view value) {
        return fmt::format("1.0.0\nsavedata: SaveData {{\n\tnbValue: __PGSA size_t {{1}},\n\tid0: "
                           "__PGSA string {{k}},\n\tvalue0: {}\n}}\n",
                           value);
    };
    CHECK(codes(check_all(save_data("Other {\n\t\ttype: __PGSA string {double},\n\t\tdata: "
                                    "__PGSA double {0.250000}\n\t}"))
                    .findings) == "error:bad_value@6:24 savedata.value0.type\n");
    CHECK(codes(check_all(save_data("Other {\n\t\ttype: __PGSA string {long},\n\t\tdata: "
                                    "__PGSA int {1}\n\t}"))
                    .findings) == "error:bad_value@6:24 savedata.value0.type\n");
    CHECK(codes(check_all(save_data("UnorderedMap {\n\t\ttype: __PGSA string {int},\n\t\tdata: "
                                    "__PGSA float {1.000000}\n\t}"))
                    .findings) == "error:bad_value@7:16 savedata.value0.data\n");
    CHECK(codes(check_all(save_data("Other {\n\t\ttype: __PGSA string {int},\n\t\tdata: "
                                    "__PGSA int {1}\n\t}"))
                    .findings)
              .empty());
    CHECK(codes(check_all(save_data("Other {\n\t}")).findings) ==
          "error:bad_value@5:2 savedata.value0\n");
    CHECK(codes(check_all(save_data("__PGSA int {5}")).findings) ==
          "error:bad_value@5:2 savedata.value0\n");
    // Outside a SaveData only the class name says a class is an ElementType.
    CHECK(codes(check_all("1.0.0\ne: Other {\n\ttype: __PGSA string {double},\n\tdata: __PGSA "
                          "double {0.250000}\n}\n")
                    .findings)
              .empty());
    CHECK(codes(check_all(element("boolean", "bool", "true")).findings) ==
          "error:bad_value@3:23 e.type\n");
    CHECK(codes(check_all("1.0.0\ne: ElementType {\n}\n").findings) == "error:bad_value@2:1 e\n");
    // Vector 4D: x y z w, all float.
    CHECK(codes(check_all("1.0.0\nv: Vector 4D {\n\tx: __PGSA float {1.000000},\n\ty: __PGSA "
                          "float {1.000000},\n\tz: __PGSA int {1},\n\tw: S {\n\t}\n}\n")
                    .findings) == "error:bad_value@5:12 v.z\nerror:bad_value@6:2 v.w\n");
}

TEST_CASE("hand-made breakage: braces, commas, indentation, line shapes") {
    CHECK(codes(check_all("1.0.0\n}\n").findings) == "note:bad_syntax@2:1 \n");
    CHECK(codes(check_all("1.0.0\n\tx: __PGSA int {1}\n").findings) ==
          "error:bad_indent@2:1 x\nerror:name_cut@2:2 x\n");
    CHECK(codes(check_all("1.0.0\nx: __PGSA int {1},\n").findings) == "note:bad_syntax@2:18 x\n");
    CHECK(codes(check_all("1.0.0\nx: __PGSA int {1},\ny: __PGSA int {2}\n").findings) ==
          "note:bad_syntax@2:18 x\n"); // the engine reads x and y: a stray comma
    CHECK(codes(check_all("1.0.0\nx: __PGSA int {1}junk\n").findings) ==
          "warning:bad_syntax@2:18 x\n");
    CHECK(codes(check_all("1.0.0\nx: __PGSA int\n").findings) == "error:bad_syntax@2:11 x\n");
    CHECK(codes(check_all("1.0.0\nx: __PGSA {1}\n").findings) == "error:bad_syntax@2:11 x\n");
    CHECK(codes(check_all("1.0.0\n\n").findings) == "note:bad_syntax@2:1 \n");
    CHECK(codes(check_all("1.0.0\nx: A__PGSA {\n}\n").findings) == "error:bad_syntax@2:1 x\n");
    CHECK(codes(check_all("1.0.0\nx: S {\n\t}\n").findings) ==
          "error:bad_syntax@2:1 x\nerror:bad_indent@3:1 x\n");
    CHECK(codes(check_all("1.0.0\nx: S {\n\ty: T {\n}\n").findings) ==
          "error:bad_syntax@3:2 x.y\nerror:bad_syntax@4:1 x.y\n");
    // An unknown type is a warning; its value is not checked.
    CHECK(codes(check_all("1.0.0\nx: __PGSA long {abc}\n").findings) ==
          "warning:unknown_type@2:11 x\n");
    // Too many distinct class names.
    std::string names = "1.0.0\n";
    for (std::size_t i = 0; i <= ta::k_max_names; ++i)
        names += fmt::format("n{}: C{} {{\n}}\n", i, i);
    Parsed p = check_all(names);
    bool limit = false;
    for (const auto& f : p.findings.items()) limit |= f.code == ErrorCode::limit_exceeded;
    CHECK(limit);
}

TEST_CASE("huge names: findings stay small and reading stays linear") {
    const std::string big(1u << 20, 'n');
    std::string file = "1.0.0\n" + big + ": C {\n";
    for (int i = 0; i < 3000; ++i) file += "\tjunk\n";
    file += "}\n";
    Parsed p = check_all(file);
    // Lines the engine's parser skips (formats/README.md §2.1): notes.
    CHECK(p.findings.note_count() == 3000);
    CHECK(p.findings.items().size() == Findings::k_max_kept);
    for (const auto& f : p.findings.items()) CHECK(f.path.size() <= 1024 + 3);
    // One class name can be long, but not all the document's tags together.
    Parsed names = check_all("1.0.0\nx: " + std::string(ta::k_max_name_bytes + 1, 'C') + " {\n}\n");
    REQUIRE(names.findings.items().size() == 1);
    CHECK(names.findings.items()[0].code == ErrorCode::limit_exceeded);
}

// summarize applies the same rules as read over the corpus (and a valid file writes back):
// tests/corpus/test_corpus.cpp. Here: every finding of the corpus is at a line:column.
TEST_CASE("the corpus's findings are at a line:column, and summarize counts") {
    for (const auto& dir : {"valid", "invalid"}) {
        for (const auto& file : test::corpus_files(test::testdata() / "text_archive", dir, ".sz")) {
            CAPTURE(file.filename().string());
            const Parsed p = parse(test::read_bytes(file));
            for (const auto& f : p.findings.items()) {
                CHECK_FALSE(f.has_offset());
                CHECK(f.line >= 1);
                CHECK(f.column >= 1);
                CHECK_FALSE(f.message.empty());
            }
        }
    }
    Summary s = ta::summarize(real("pg-writer-sample.sz"));
    CHECK(s.format == FormatId::text_archive);
    CHECK(s.version == 1);
    CHECK(s.version_known);
    CHECK(s.integrity == Integrity::none);
    CHECK(s.engine_loads); // it loads it, and misreads `player.tricky`
    REQUIRE(s.counts.size() == 3);
    CHECK(s.counts[0].text == "3");  // entries
    CHECK(s.counts[1].text == "8");  // classes
    CHECK(s.counts[2].text == "24"); // attributes
    REQUIRE(!s.common_types.empty());
    CHECK(s.common_types[0] == std::pair<std::string, std::uint64_t>{"int", 8});
    CHECK(ta::summarize(real("pg-writer-edge-cases.sz")).engine_loads);
}

TEST_CASE("random archives from the engine writer's model read without errors and write back") {
    std::mt19937 rng(20261129);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    // Names and values the grammar keeps: no LF; a name without ": " or "__PGSA" (those are
    // warnings) and not starting with a TAB.
    const std::string alphabet = "abcxyz019 _-{},:.\"\\\x01\x7f\xc3\xa9";
    auto text = [&](std::size_t max, bool value) {
        std::string s;
        const std::size_t len = pick(max + 1);
        for (std::size_t i = 0; i < len; ++i) s += alphabet[pick(alphabet.size())];
        if (!value) {
            while (s.find(": ") != std::string::npos) s.replace(s.find(": "), 2, "::");
            if (!s.empty() && s[0] == '\t') s[0] = 'a';
        }
        return s;
    };
    // A name the engine reads back as written: no blank at its ends (it trims them), unique in
    // its class (it reads the first child of a name).
    std::size_t serial = 0;
    auto name = [&] { return "n" + text(6, false) + "." + std::to_string(serial++); };
    for (int round = 0; round < 200; ++round) {
        CAPTURE(round);
        std::string file = "1.0.0\n";
        const std::size_t entries = pick(5);
        for (std::size_t e = 0; e < entries; ++e) {
            EngineArchive a;
            // A random tree, depth-first with an explicit budget.
            std::function<void(std::size_t)> node = [&](std::size_t depth) {
                if (depth > 5 || pick(3) != 0) {
                    switch (pick(5)) {
                    case 0:
                        a.attribute(std::to_string(static_cast<int>(rng())), "int");
                        break;
                    case 1:
                        a.attribute(pick(2) ? "true" : "false", "bool");
                        break;
                    case 2:
                        a.attribute(fmt::format("{:f}", static_cast<float>(rng() % 1000) / 8),
                                    "float");
                        break;
                    case 3:
                        a.attribute(std::to_string(rng()), "size_t");
                        break;
                    default:
                        a.attribute(text(12, true), "string");
                        break;
                    }
                    return;
                }
                const bool vector = pick(3) == 0;
                a.start(vector ? "Vector" : "C" + text(6, false) + "x");
                const std::size_t children = pick(4);
                for (std::size_t c = 0; c < children; ++c) {
                    if (!vector) a.name(name());
                    node(depth + 1);
                }
                a.end();
            };
            node(0);
            file += "e" + std::to_string(e) + ": " + a.out + "\n";
        }
        Parsed p = check_all(file);
        CHECK_MESSAGE(!p.findings.has_errors(), codes(p.findings), file);
    }
}

TEST_CASE("the writer refuses what the grammar cannot hold, naming the node") {
    Parsed p = parse("1.0.0\nobj: S {\n\tx: __PGSA int {1}\n}\n");
    REQUIRE_FALSE(p.findings.has_errors());
    Document doc = std::move(p.doc);
    const NodeId x = at(doc, "obj.x");
    doc.node(x).name = doc.text("bad\nname");
    auto r = ta::write(doc);
    REQUIRE_FALSE(r);
    CHECK(r.error().path == "obj[\"bad\\nname\"]");
    doc.node(x).name = doc.text("x");
    doc.node(x).tag = doc.tag_id("in{t");
    REQUIRE_FALSE(ta::write(doc));
    doc.node(x).tag = 0;
    REQUIRE_FALSE(ta::write(doc));
    doc.node(x).tag = doc.tag_id("int");
    doc.node(x).kind = NodeKind::bytes;
    REQUIRE_FALSE(ta::write(doc));
    doc.node(x).kind = NodeKind::scalar;
    auto ok = ta::write(doc);
    REQUIRE(ok);
    CHECK(*ok == "1.0.0\nobj: S {\n\tx: __PGSA int {1}\n}\n");
}

TEST_CASE("tolerated corpus: the engine reads each file as it says, with notes and warnings only") {
    // testdata/text_archive/tolerated/<file> with <file>.expect, as
    // tests/gen/text_archive_corpus.py writes them (formats/README.md §2.1 "tolerates"): what the
    // writer would not write, read as written; and those of hand/tolerated/ and real/tolerated/.
    auto expects = test::corpus_files(test::testdata() / "text_archive", "tolerated", ".expect");
    REQUIRE(expects.size() >= 20);
    for (const auto& expect : expects) {
        auto file = expect;
        file.replace_extension();
        CAPTURE(file.filename().string());
        Parsed p = check_all(test::read_bytes(file));
        CHECK_FALSE(p.findings.has_errors());
        std::string text;
        for (const auto& f : p.findings.items())
            text += fmt::format("{} {} {}:{} {}\n", severity_name(f.severity), code_name(f.code),
                                f.line, f.column, f.path.empty() ? "-" : f.path);
        CHECK(text == test::read_bytes(expect));
        Summary s = ta::summarize(test::read_bytes(file));
        CHECK(s.engine_loads);
    }
}

// formats/README.md §2.1, differentially: testdata/text_archive/differential/ holds archives of the
// writer's model with one change of layout each, and verdicts.txt what a second, independent
// model of the engine's reader (tests/gen/text_archive_corpus.py, in Python) says of each: the
// engine reads the original tree exactly, or misreads it. verify must have errors exactly for
// the misread ones (and the exact ones may carry notes or warnings only).
TEST_CASE("differential: errors exactly where an independent model of the engine misreads") {
    const auto dir = test::testdata() / "text_archive" / "differential";
    std::istringstream verdicts(test::read_bytes(dir / "verdicts.txt"));
    std::size_t files = 0, misread = 0, agree = 0;
    for (std::string line; std::getline(verdicts, line);) {
        const std::size_t sp = line.find(' ');
        REQUIRE(sp != std::string::npos);
        const std::string file = line.substr(0, sp);
        const bool expected_misread = line.compare(sp + 1, 7, "misread") == 0;
        CAPTURE(line);
        const std::string bytes = test::read_bytes(dir / file);
        Parsed p = check_all(bytes);
        CHECK_MESSAGE(p.findings.has_errors() == expected_misread, codes(p.findings), bytes);
        agree += p.findings.has_errors() == expected_misread;
        misread += expected_misread;
        ++files;
    }
    MESSAGE("differential: ", agree, " of ", files, " agree (", misread, " misread)");
    CHECK(files >= 1000);
    CHECK(misread >= 50);
    CHECK(files - misread >= 50);
}
