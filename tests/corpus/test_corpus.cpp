// Golden corpus (DESIGN.md "Tests"): testdata/<format>/valid/* parse, round-trip byte for byte
// and dump to the checked-in goldens; every testdata/<format>/invalid/<file> reports exactly the
// findings in <file>.expect, one a line:
//     <severity> <code> <offset in hex, line:column for text formats, or -> <node path or ->
// every truncation and single-byte flip of every valid file gives a clean result.
// SPARKSAVE_REGENERATE=1 rewrites the goldens.
#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/format.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <sstream>

using namespace sparksave;
namespace fs = std::filesystem;

namespace {

Parsed parse(const FormatInfo& format, std::string bytes) {
    return format.read(std::make_shared<const Source>(std::move(bytes)), ReadOptions{});
}

std::string findings_text(const Findings& findings) {
    std::string out;
    for (const auto& f : findings.items()) {
        std::string off = f.has_offset() ? fmt::format("{:#x}", f.offset)
                          : f.line != 0  ? fmt::format("{}:{}", f.line, f.column)
                                         : "-";
        out += fmt::format("{} {} {} {}\n", severity_name(f.severity), code_name(f.code), off,
                           f.path.empty() ? "-" : f.path);
    }
    return out;
}

// Formats with a corpus so far.
const FormatInfo& corpus_format(const char* name) {
    const FormatInfo* f = format_by_name(name);
    REQUIRE(f);
    return *f;
}

} // namespace

TEST_CASE("valid corpus: no errors, byte-exact round trip, golden dumps") {
    for (const char* name : {"spark_save", "text_archive", "tess_world", "gmsv", "spark_kv"}) {
        const FormatInfo& format = corpus_format(name);
        const fs::path dir = test::testdata() / name;
        auto files = test::files_in(dir / "valid", "");
        REQUIRE(files.size() >= 3);
        for (const auto& file : files) {
            CAPTURE(file.filename().string());
            const std::string bytes = test::read_bytes(file);
            Parsed p = parse(format, bytes);
            CHECK_MESSAGE(!p.findings.has_errors(), findings_text(p.findings));
            auto written = format.write(p.doc);
            REQUIRE_MESSAGE(written.has_value(), (written ? "" : written.error().describe()));
            CHECK(*written == bytes);

            std::string text = findings_text(p.findings);
            print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
            std::string diff =
                test::check_golden(dir / "golden" / (file.filename().string() + ".dump"), text);
            CHECK_MESSAGE(diff.empty(), diff);
            std::string json;
            format.to_json(p.doc, json);
            diff = test::check_golden(dir / "golden" / (file.filename().string() + ".json"), json);
            CHECK_MESSAGE(diff.empty(), diff);
        }
    }
}

TEST_CASE("invalid corpus: each file reports exactly its expected findings") {
    for (auto [name, at_least] :
         {std::pair{"spark_save", 40}, std::pair{"text_archive", 15}, std::pair{"tess_world", 30},
          std::pair{"gmsv", 18}, std::pair{"spark_kv", 12}}) {
        const FormatInfo& format = corpus_format(name);
        const fs::path dir = test::testdata() / name / "invalid";
        auto expects = test::files_in(dir, ".expect");
        REQUIRE(expects.size() >= static_cast<std::size_t>(at_least));
        // Every data file has its .expect, and every .expect its data file.
        for (const auto& file : test::files_in(dir, ""))
            if (file.extension() != ".expect")
                CHECK_MESSAGE(fs::exists(file.string() + ".expect"),
                              (file.string() + " has no .expect"));
        for (const auto& expect : expects) {
            fs::path file = expect;
            file.replace_extension(); // <file>.expect -> <file>
            CAPTURE(file.filename().string());
            REQUIRE(fs::exists(file));
            Parsed p = parse(format, test::read_bytes(file));
            CHECK(p.findings.has_errors());
            CHECK(findings_text(p.findings) == test::read_bytes(expect));
            for (const auto& f : p.findings.items()) CHECK_FALSE(f.message.empty());
        }
    }
}

TEST_CASE("every truncation and single-byte flip of every valid file is handled cleanly") {
    std::size_t cases = 0;
    for (const char* name : {"spark_save", "text_archive", "tess_world", "gmsv", "spark_kv"}) {
        const FormatInfo& format = corpus_format(name);
        for (const auto& file : test::files_in(test::testdata() / name / "valid", "")) {
            CAPTURE(file.filename().string());
            const std::string bytes = test::read_bytes(file);
            auto check = [&](std::string variant) {
                Parsed p = parse(format, variant);
                Summary s = format.summarize(variant);
                CHECK(p.findings.has_errors() == s.findings.has_errors());
                std::string text;
                print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
                // Notes (CLI.md "Severity") mark bytes the engine's writer would not write, which
                // the writer does not reproduce; so does a bad_syntax warning (text the engine
                // ignores, FORMATS.md §2.1).
                bool writer_form = !p.findings.has_errors() && p.findings.note_count() == 0;
                for (const auto& f : p.findings.items())
                    if (f.code == ErrorCode::bad_syntax) writer_form = false;
                if (writer_form) {
                    auto written = format.write(p.doc);
                    REQUIRE(written);
                    CHECK(*written == variant);
                }
                ++cases;
            };
            for (std::size_t cut = 0; cut < bytes.size(); ++cut) check(bytes.substr(0, cut));
            for (std::size_t i = 0; i < bytes.size(); ++i) {
                for (int mask : {0x01, 0x80, 0xFF}) {
                    std::string flipped = bytes;
                    flipped[i] = static_cast<char>(flipped[i] ^ mask);
                    check(std::move(flipped));
                }
            }
        }
    }
    MESSAGE("variants checked: ", cases);
}
