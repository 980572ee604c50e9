// Golden corpus (README "Tests"), one case for every format of the format table, each format
// a subcase (a failure names the format and the file). Each kind of file (valid, invalid) comes
// from three folders of testdata/<format>/, with the same checks: <kind>/ (written by
// tests/gen/<format>_corpus.py, corpus/gen/<format> checks it reproduces them), hand/<kind>/
// (written by hand) and real/<kind>/ (the engines' own files); test::corpus_files.
// - testdata/<format>/valid/* parse without errors, write back byte for byte, dump to the
//   checked-in goldens (text and JSON), and pack(dump --json x) == x, from the dump and from
//   the golden JSON, with no notes;
// - read and summarize give identical findings for every valid and invalid file;
// - every testdata/<format>/invalid/<file> reports exactly the findings in <file>.expect, one a
//   line:
//     <severity> <code> <offset in hex, line:column for text formats, or -> <node path or ->
// - every truncation and single-byte flip of every valid file gives a clean result.
// SPARKSAVE_REGENERATE=1 rewrites the goldens.
#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/format.hpp"
#include "sparksave/print.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>

using namespace sparksave;
namespace fs = std::filesystem;

namespace {

Parsed parse(const FormatInfo& format, std::string bytes) {
    return format.read(std::make_shared<const Source>(std::move(bytes)), ReadOptions{});
}

// "valid/x", "hand/invalid/y": the file within testdata/<format>/.
std::string corpus_name(const fs::path& dir, const fs::path& file) {
    return fs::relative(file, dir).generic_string();
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

// The least a format's corpus holds (valid files, invalid files); a format not named here
// needs at least 3 and 10.
struct Minimum {
    std::size_t valid = 3, invalid = 10;
};
Minimum corpus_minimum(std::string_view name) {
    static const std::map<std::string_view, Minimum> k_minimum = {
        {"spark_save", {12, 40}}, {"text_archive", {3, 15}}, {"tess_world", {3, 30}},
        {"gmsv", {3, 18}},        {"spark_kv", {3, 12}},
    };
    auto it = k_minimum.find(name);
    return it == k_minimum.end() ? Minimum{} : it->second;
}

// Valid files: no errors, write(read(x)) == x, the golden dumps, pack(dump --json x) == x.
void check_valid(const FormatInfo& format, const fs::path& dir, std::size_t at_least) {
    auto files = test::corpus_files(dir, "valid", "");
    REQUIRE(files.size() >= at_least);
    for (const auto& file : files) {
        const std::string file_name = corpus_name(dir, file);
        CAPTURE(file_name);
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
        format_json(format.id).to_json(p.doc, json);
        const fs::path golden_json = dir / "golden" / (file.filename().string() + ".json");
        diff = test::check_golden(golden_json, json);
        CHECK_MESSAGE(diff.empty(), diff);

        // pack is the inverse of dump --json: of the dump, and of the checked-in golden JSON
        // (what users edit).
        for (const std::string& source : {json, test::read_bytes(golden_json)}) {
            auto packed = format_json(format.id).from_json(source);
            REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
            CHECK(packed->bytes == bytes);
            CHECK(packed->notes.empty());
        }
    }
}

// Valid and invalid files: summarize applies the same rules as read; the tree prints and
// dumps whatever the file.
void check_summarize(const FormatInfo& format, const fs::path& dir) {
    for (const char* kind : {"valid", "invalid"}) {
        for (const auto& file : test::corpus_files(dir, kind, "")) {
            if (file.extension() == ".expect") continue;
            const std::string file_name = corpus_name(dir, file);
            CAPTURE(file_name);
            const std::string bytes = test::read_bytes(file);
            Parsed p = parse(format, bytes);
            Summary s = format.summarize(bytes);
            CHECK(findings_text(p.findings) == findings_text(s.findings));
            std::string text;
            print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
            format_json(format.id).to_json(p.doc, text);
        }
    }
}

// Invalid files: exactly the findings of their .expect.
void check_invalid(const FormatInfo& format, const fs::path& dir, std::size_t at_least) {
    auto expects = test::corpus_files(dir, "invalid", ".expect");
    REQUIRE(expects.size() >= at_least);
    // Every data file has its .expect, and every .expect its data file.
    for (const auto& file : test::corpus_files(dir, "invalid", ""))
        if (file.extension() != ".expect")
            CHECK_MESSAGE(fs::exists(file.string() + ".expect"),
                          (file.string() + " has no .expect"));
    for (const auto& expect : expects) {
        fs::path file = expect;
        file.replace_extension(); // <file>.expect -> <file>
        const std::string file_name = corpus_name(dir, file);
        CAPTURE(file_name);
        REQUIRE(fs::exists(file));
        Parsed p = parse(format, test::read_bytes(file));
        CHECK(p.findings.has_errors());
        CHECK(findings_text(p.findings) == test::read_bytes(expect));
        for (const auto& f : p.findings.items()) CHECK_FALSE(f.message.empty());
    }
}

// Every truncation and single-byte flip of every valid file: read and summarize agree on
// errors, the tree prints, and a variant read without error writes back byte for byte.
std::size_t check_variants(const FormatInfo& format, const fs::path& dir) {
    std::size_t cases = 0;
    for (const auto& file : test::corpus_files(dir, "valid", "")) {
        const std::string file_name = corpus_name(dir, file);
        CAPTURE(file_name);
        const std::string bytes = test::read_bytes(file);
        auto check = [&](std::string variant) {
            Parsed p = parse(format, variant);
            Summary s = format.summarize(variant);
            CHECK(p.findings.has_errors() == s.findings.has_errors());
            std::string text;
            print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
            // Notes (sparksave-verify(1) SEVERITY) mark bytes the engine's writer would not write,
            // which the writer does not reproduce; so does a bad_syntax warning (text the engine
            // ignores, formats/README.md §2.1).
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
    return cases;
}

// A file name is in one folder of its kind only: the goldens (golden/<name>.dump) and the tests
// that name a file know it by its name.
void check_names_unique(const fs::path& dir) {
    for (const char* kind : {"valid", "invalid"}) {
        std::map<std::string, std::string> seen;
        for (const auto& file : test::corpus_files(dir, kind, "")) {
            auto [it, inserted] = seen.emplace(file.filename().string(), corpus_name(dir, file));
            CHECK_MESSAGE(inserted, (corpus_name(dir, file) + " has the name of " + it->second));
        }
    }
}

} // namespace

// sparksave_corpus_tests runs these cases (ctest: corpus/<format>); sparksave_tests holds them
// too, skipped unless SPARKSAVE_REGENERATE=1, so that it still rewrites every golden.
#ifdef SPARKSAVE_CORPUS_ONLY_TO_REGENERATE
#define SPARKSAVE_CORPUS_CASE(name) TEST_CASE(name* doctest::skip(!test::regenerate()))
#else
#define SPARKSAVE_CORPUS_CASE(name) TEST_CASE(name)
#endif

// The folders ctest runs as corpus/<format> (tests/CMakeLists.txt) are the formats of the table.
SPARKSAVE_CORPUS_CASE("corpus folders: testdata/<format>/valid exists exactly for the formats of "
                      "the table") {
    std::set<std::string> table, folders;
    for (const FormatInfo& format : format_table()) table.emplace(format.name);
    for (const auto& e : fs::directory_iterator(test::testdata()))
        if (fs::is_directory(e.path() / "valid")) folders.insert(e.path().filename().string());
    auto names = [](const std::set<std::string>& set) {
        std::string out;
        for (const auto& name : set) out += name + " ";
        return out;
    };
    CHECK(names(table) == names(folders));
}

SPARKSAVE_CORPUS_CASE("corpus of each format: valid, invalid, goldens, pack(dump(x)) == x, read "
                      "and summarize agree, every truncation and flip handled") {
    REQUIRE(format_table().size() >= 5);
    for (const FormatInfo& format : format_table()) {
        const std::string format_name(format.name);
        SUBCASE(format_name.c_str()) {
            CAPTURE(format_name);
            const fs::path dir = test::testdata() / format_name;
            const Minimum minimum = corpus_minimum(format.name);
            check_names_unique(dir);
            check_valid(format, dir, minimum.valid);
            check_summarize(format, dir);
            check_invalid(format, dir, minimum.invalid);
            const std::size_t cases = check_variants(format, dir);
            MESSAGE(format_name, ": files checked: valid ",
                    test::corpus_files(dir, "valid", "").size(), ", invalid ",
                    test::corpus_files(dir, "invalid", ".expect").size(),
                    "; variants checked: ", cases);
        }
    }
}
