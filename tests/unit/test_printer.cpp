// Unit tests of the output layer: lib's JsonWriter (structure, layouts, escaping through the
// one escaper) and the command-line tool's Printer (app/printer.hpp), both back-ends.
#include <doctest/doctest.h>

#include "printer.hpp"
#include "sparksave/json_writer.hpp"

#include <string>
#include <vector>

using namespace sparksave;
using namespace sparksave::app;

TEST_CASE("json writer: inline nesting, commas and member names") {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.key("a").number(1);
    w.key("b").begin_array();
    w.number(std::uint64_t{18446744073709551615u});
    w.number(-3);
    w.begin_object();
    w.end_object();
    w.begin_array();
    w.end_array();
    w.null();
    w.end_array();
    w.key("c").begin_object();
    w.key("d").boolean(true);
    w.key("e").boolean(false);
    w.end_object();
    w.key("f").raw("12.50");
    CHECK(w.depth() == 1);
    w.end_object();
    CHECK(w.depth() == 0);
    CHECK(out == R"({"a": 1, "b": [18446744073709551615, -3, {}, [], null], "c": {"d": true, )"
                 R"("e": false}, "f": 12.50})");
}

TEST_CASE("json writer: block layout indents a level below the container's line") {
    std::string out;
    {
        JsonWriter w(out);
        w.begin_array(JsonWriter::Layout::block);
        w.begin_object();
        w.key("op").string("add");
        w.end_object();
        w.begin_object(JsonWriter::Layout::block);
        w.key("list").begin_array(JsonWriter::Layout::block);
        w.end_array(); // empty: [] on the member's line
        w.key("n").number(2);
        w.end_object();
        w.end_array();
    }
    CHECK(out == "[\n  {\"op\": \"add\"},\n  {\n    \"list\": [],\n    \"n\": 2\n  }\n]");

    // Inside a document already indented: the levels start at `depth`.
    std::string nested = "x";
    JsonWriter w(nested, 1);
    w.begin_array(JsonWriter::Layout::block);
    w.number(1);
    w.number(2);
    w.end_array();
    CHECK(nested == "x[\n    1,\n    2\n  ]");
}

TEST_CASE("json writer: a block container inside an inline one indents from that line") {
    std::string out;
    JsonWriter w(out);
    w.begin_object(JsonWriter::Layout::block);
    w.key("list").begin_array(JsonWriter::Layout::block);
    w.begin_object();
    w.key("id").number(1);
    w.key("parts").begin_array(JsonWriter::Layout::block);
    w.begin_object();
    w.key("n").number(2);
    w.end_object();
    w.number(3);
    w.end_array();
    w.end_object();
    w.begin_object();
    w.key("parts").begin_array(JsonWriter::Layout::block);
    w.end_array();
    w.end_object();
    w.end_array();
    w.end_object();
    CHECK(out == "{\n  \"list\": [\n    {\"id\": 1, \"parts\": [\n      {\"n\": 2},\n      3\n"
                 "    ]},\n    {\"parts\": []}\n  ]\n}");
}

TEST_CASE("json writer: strings through the one escaper, bytes lossless") {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.key("q\"\\\n").string("tab\tcr\r\x01 \xe2\x80\xae end");
    w.key("utf8").bytes("caf\xc3\xa9");
    w.key("raw").bytes(std::string_view("\xff\x00\x41", 3));
    w.key("plain").bytes("abc");
    w.end_object();
    CHECK(out ==
          "{\"q\\\"\\\\\\n\": \"tab\\tcr\\r\\u0001 \\u202e end\", \"utf8\": \"caf\xc3\xa9\", "
          "\"raw\": {\"base64\": \"/wBB\"}, \"plain\": \"abc\"}");
}

TEST_CASE("json writer: a value another function appends takes its place among the members") {
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.raw_value() += "[1, 2]";
    w.raw_value() += "\"x\"";
    w.end_array();
    CHECK(out == "[[1, 2], \"x\"]");
}

namespace {

// A sink that keeps each piece handed to it, to see when output goes out.
struct Pieces {
    std::vector<std::string> pieces;
    Printer::Sink sink() {
        return [this](std::string_view s) { pieces.emplace_back(s); };
    }
    std::string all() const {
        std::string s;
        for (const auto& p : pieces) s += p;
        return s;
    }
};

// One record of every kind of member, with text lines among them: what each back-end keeps.
void sample_record(Printer& p) {
    auto record = p.record();
    p.bytes("path", "dir/a\"b.sav");
    p.string("format", "spark_save");
    p.number("version", std::optional<std::uint64_t>{});
    p.number("size", std::optional<std::uint64_t>{42});
    p.boolean("ok", false);
    p.line("FAIL  dir/a\"b.sav");
    {
        auto meta = p.object("metadata");
        p.raw("count", "7");
        p.bytes("name", std::string_view("\xfe", 1));
    }
    {
        auto list = p.array("names");
        p.bytes("x");
        p.value([](std::string& out) { out += "[\"y\", 1]"; });
        auto indent = p.indent(4);
        {
            auto item = p.object();
            p.null("none");
        }
        p.line("an indented line");
        {
            auto deeper = p.indent(2);
            p.line("deeper");
        }
        p.line("back");
    }
    p.value("tree", [](std::string& out) { out += "{}"; });
    p.text([](std::string& out) { out += "a table\n"; });
}

} // namespace

TEST_CASE("printer, JSON back-end: a record a line, written when it ends, text ignored") {
    Pieces got;
    auto p = json_printer(got.sink());
    CHECK_FALSE(p->color());
    p->line("not in JSON");
    p->text([](std::string& out) { out += "nor this"; });
    CHECK(got.pieces.empty());
    {
        auto record = p->record();
        p->string("a", "1");
        CHECK(got.pieces.empty()); // not before the record ends
    }
    REQUIRE(got.pieces.size() == 1);
    CHECK(got.pieces[0] == "{\"a\": \"1\"}\n");
    sample_record(*p);
    REQUIRE(got.pieces.size() == 2);
    CHECK(got.pieces[1] ==
          "{\"path\": \"dir/a\\\"b.sav\", \"format\": \"spark_save\", \"version\": null, "
          "\"size\": 42, \"ok\": false, \"metadata\": {\"count\": 7, \"name\": {\"base64\": "
          "\"/g==\"}}, \"names\": [\"x\", [\"y\", 1], {\"none\": null}], \"tree\": {}}\n");
    p->finish();
    CHECK(got.pieces.size() == 2); // nothing left
}

TEST_CASE("printer, JSON back-end: one array of records, a record a line") {
    {
        Pieces got;
        auto p = json_printer(got.sink(), Printer::JsonLayout::array);
        p->finish();
        CHECK(got.all() == "[]\n");
    }
    Pieces got;
    auto p = json_printer(got.sink(), Printer::JsonLayout::array);
    for (std::string_view op : {"add", "remove"}) {
        auto record = p->record();
        p->string("op", op);
        auto list = p->array("new");
        p->bytes("a");
    }
    CHECK(got.pieces.size() == 2); // streamed record by record
    p->finish();
    CHECK(got.all() == "[\n  {\"op\": \"add\", \"new\": [\"a\"]},\n"
                       "  {\"op\": \"remove\", \"new\": [\"a\"]}\n]\n");
}

TEST_CASE("printer, JSON back-end: a value with no record open is a document of its own") {
    Pieces got;
    auto p = json_printer(got.sink());
    p->value([](std::string& out) { out += "{\n  \"format\": \"x\"\n}\n"; });
    REQUIRE(got.pieces.size() == 1);
    CHECK(got.pieces[0] == "{\n  \"format\": \"x\"\n}\n");
}

TEST_CASE("printer, text back-end: lines at the indentation of the scopes, JSON ignored") {
    Pieces got;
    auto p = text_printer(got.sink(), true);
    CHECK(p->color());
    p->line("outside a record");
    CHECK(got.pieces.size() == 1); // at once
    sample_record(*p);
    REQUIRE(got.pieces.size() == 2); // the record's lines together, when it ends
    CHECK(got.pieces[1] == "FAIL  dir/a\"b.sav\n    an indented line\n      deeper\n    back\n"
                           "a table\n");
    {
        auto record = p->record();
        auto indent = p->indent(2);
        p->line("x");
        CHECK(got.pieces.size() == 2);
    }
    CHECK(got.pieces.back() == "  x\n");
    p->finish();
    CHECK(got.pieces.size() == 3);
}

TEST_CASE("printer: one function prints a finding for both back-ends") {
    Error binary =
        make_error(ErrorCode::bad_magic, "expected \"SPKS\", found \"\\x00\"", 0, "magic");
    Error text;
    text.code = ErrorCode::bad_escape;
    text.severity = Severity::warning;
    text.line = 3;
    text.column = 7;
    text.message = "a \u202e b";
    Error note;
    note.severity = Severity::note;
    note.message = "hidden";

    Pieces json;
    auto j = json_printer(json.sink());
    {
        auto record = j->record();
        auto findings = j->array("findings");
        print_finding(*j, binary);
        print_finding(*j, text);
        print_finding(*j, note, false); // hidden from text only
    }
    CHECK(json.all() ==
          "{\"findings\": [{\"severity\": \"error\", \"code\": \"bad_magic\", \"message\": "
          "\"expected \\\"SPKS\\\", found \\\"\\\\x00\\\"\", \"offset\": 0, \"path\": \"magic\"}, "
          "{\"severity\": \"warning\", \"code\": \"bad_escape\", \"message\": \"a \\u202e b\", "
          "\"offset\": null, \"line\": 3, \"column\": 7, \"path\": \"\"}, {\"severity\": "
          "\"note\", \"code\": \"internal\", \"message\": \"hidden\", \"offset\": null, "
          "\"path\": \"\"}]}\n");

    Pieces lines;
    auto t = text_printer(lines.sink(), false);
    {
        auto record = t->record();
        auto indent = t->indent(2);
        print_finding(*t, binary);
        print_finding(*t, text);
        print_finding(*t, note, false);
    }
    CHECK(lines.all() == "  error: at offset 0x0 (0), in magic: expected \"SPKS\", found "
                         "\"\\x00\"\n  warning: at 3:7: a \u202e b\n");

    Pieces colored;
    auto c = text_printer(colored.sink(), true);
    print_finding(*c, binary);
    CHECK(colored.all().starts_with("\x1b[31merror\x1b[0m: at offset 0x0 (0)"));
}
