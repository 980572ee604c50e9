// CLI tests against the built binary. The testdata/cli cases run one ctest test each
// (`cli/<case>`, through sparksave_cli_case: cli/cli_cases.hpp); here their layout is checked,
// and SPARKSAVE_REGENERATE=1 sparksave_tests runs them all to rewrite their goldens.
#include <doctest/doctest.h>

#include "cli/cli_cases.hpp"
#include "support.hpp"

#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace sparksave;

TEST_CASE("cli cases: each testdata/cli/<case> has its cmd and its three goldens") {
    const auto cases = test::cli_cases();
    REQUIRE(cases.size() >= 30);
    for (const auto& name : cases) {
        CAPTURE(name);
        for (const char* file : {"cmd", "stdout", "stderr", "status"})
            CHECK_MESSAGE(fs::exists(test::testdata() / "cli" / name / file), file);
    }
}

#ifdef SPARKSAVE_BINARY
// ctest runs each case on its own; this case runs them all, only when regenerating (skipped
// otherwise, so ctest does not list it).
TEST_CASE("cli cases: all in one run, to regenerate their goldens" *
          doctest::skip(!test::regenerate())) {
    for (const auto& name : test::cli_cases()) {
        CAPTURE(name);
        const test::CliOutcome o = test::run_cli_case(name);
        CHECK(o.known);
        CHECK_MESSAGE(o.differences.empty(), o.differences);
    }
}
#endif

#ifdef SPARKSAVE_BINARY
#include "sparksave/json_reader.hpp"

#include <cstdio>

TEST_CASE("diff --json output parses back as the documented array") {
    const std::string cmd =
        std::string(SPARKSAVE_BINARY) + " diff --json " +
        (test::testdata() / "spark_save/real/valid/v1-screenshotless.spark_save").string() + " " +
        (test::testdata() / "migrations/spark_save/v1-screenshotless.v4.spark_save").string();
    std::string out;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = ::pclose(pipe);
    CHECK(WEXITSTATUS(status) == 1);
    json::Reader r(out);
    auto root = r.validate();
    REQUIRE_MESSAGE(root, out);
    REQUIRE(root->kind == json::Kind::array);
    std::vector<std::string> seen;
    r.elements(*root, [&](std::size_t, const json::Value& change) {
        json::Value op, path, old_value, new_value;
        REQUIRE(r.find(change, "op", op));
        REQUIRE(r.find(change, "path", path));
        const std::string o = r.decoded(op);
        CHECK(r.find(change, "old", old_value) == (o != "add"));
        CHECK(r.find(change, "new", new_value) == (o != "remove"));
        seen.push_back(o + " " + r.decoded(path));
        return true;
    });
    CHECK(seen == std::vector<std::string>{"change version", "add metadata.screenshotPath",
                                           "add entities[name=legacy-player].Transform.parent"});
}
#endif

#ifdef SPARKSAVE_BINARY
#include "spark_save/api.hpp"
#include "sparksave/content_rules.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/print.hpp"

namespace {

// A v1 save of a few MiB: large enough for the part-by-part paths of dump and migrate.
std::string large_v1_save() {
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
    u32(1);
    const std::string meta = "Big\nScene\nClass\n1700000000\n1.5\n75\n25\n1 2 3\n4\n1\n";
    u32(meta.size());
    b += meta;
    const std::size_t entities = 20000;
    u32(entities);
    for (std::size_t e = 0; e < entities; ++e) {
        str("entity-" + std::to_string(e));
        u16(2);
        str("Transform");
        u16(9);
        for (const char* k : {"rz", "px", "py", "rx", "pz", "ry", "sx", "sy", "sz"}) {
            str(k);
            str(std::to_string(e % 97) + ".500000");
        }
        str("Health");
        u16(1);
        str("hp");
        str(e % 3 ? "\xff raw" : "100");
    }
    u32(1);
    str("k");
    str("v");
    return b;
}

std::string run_binary(const std::string& args, int& status) {
    std::string out;
    FILE* pipe = ::popen((std::string(SPARKSAVE_BINARY) + " " + args).c_str(), "r");
    REQUIRE(pipe);
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    status = WEXITSTATUS(::pclose(pipe));
    return out;
}

} // namespace

TEST_CASE("large files: dump and migrate part by part give what the whole tree gives") {
    const std::string input = large_v1_save();
    REQUIRE(input.size() > (2u << 20));
    const fs::path dir =
        fs::temp_directory_path() / ("sparksave-large-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    test::write_bytes(dir / "big.spark_save", input);
    auto parsed = spark_save::read(std::make_shared<const Source>(input));
    REQUIRE_FALSE(parsed.findings.has_errors());

    int status = 0;
    std::string json;
    spark_save::to_json(parsed.doc, json);
    CHECK(run_binary("dump --json " + (dir / "big.spark_save").string(), status) == json);
    CHECK(status == 0);
    std::string text = "format: spark_save\nversion: 1\n";
    print_text(parsed.doc, parsed.doc.root(), {}, PrintOptions{}, text);
    CHECK(run_binary("dump " + (dir / "big.spark_save").string(), status) == text);

    auto expected = migrate(parsed.doc, 4);
    REQUIRE(expected);
    run_binary("migrate -o " + (dir / "big.v4.spark_save").string() + " " +
                   (dir / "big.spark_save").string(),
               status);
    CHECK(status == 0);
    CHECK(test::read_bytes(dir / "big.v4.spark_save") == expected->bytes);

    // diff of two large files of one version reads them part by part; with --order (and across
    // versions, where every entity differs) it compares the whole trees: the same changes.
    std::string edited = input;
    const std::size_t at = edited.rfind(std::string("\x03\x00"
                                                    "100",
                                                    5));
    REQUIRE(at != std::string::npos);
    edited[at + 4] = '1';
    test::write_bytes(dir / "edited.spark_save", edited);
    const std::string pair =
        (dir / "big.spark_save").string() + " " + (dir / "edited.spark_save").string();
    const std::string streamed = run_binary("diff --json " + pair, status);
    CHECK(status == 1);
    CHECK(streamed == run_binary("diff --json --order " + pair, status));
    CHECK(streamed.find("\"path\": \"entities[name=entity-19998].Health.hp\", \"old\": \"100\", "
                        "\"new\": \"101\"") != std::string::npos);
    CHECK(run_binary("diff " + pair, status) ==
          "~ entities[name=entity-19998].Health.hp: \"100\" \u2192 \"101\"\n");
    const std::string across = run_binary("diff --stat " + (dir / "big.spark_save").string() + " " +
                                              (dir / "big.v4.spark_save").string(),
                                          status);
    CHECK(status == 1);
    // The v4 checksum is derived (left out without --derived).
    CHECK(across.find("20002 differences: 20001 added, 0 removed, 1 changed") != std::string::npos);

    // migrate --rules of a large file goes part by part: the bytes RuleSet::apply gives, of the v1
    // file and of the v4 one; a second run in place finds the save at its module's newest version
    // and leaves the file as it is.
    const std::string rule = "id = \"big\"\nsummary = \"s\"\nformat = \"spark_save\"\n"
                             "module = { key = \"k\", from = 0, to = 1 }\n"
                             "[[step]]\nop = \"rename-property\"\ncomponent = \"Health\"\n"
                             "from = \"hp\"\nto = \"current\"\n"
                             "[[step]]\nop = \"set-custom\"\nkey = \"note\"\nvalue = \"x\"\n";
    test::write_bytes(dir / "big.toml", rule);
    const RuleText rule_text{"big.toml", rule, {}};
    auto set = RuleSet::parse({&rule_text, 1});
    REQUIRE(set);
    std::string at_zero = input; // the module key at 0: the custom state's one pair "k" = "v"
    at_zero.replace(at_zero.size() - 1, 1, "0");
    test::write_bytes(dir / "rules.spark_save", at_zero);
    for (const char* in : {"rules.spark_save", "big.v4.spark_save"}) {
        CAPTURE(in);
        std::string save = test::read_bytes(dir / in);
        if (std::string(in) == "big.v4.spark_save") { // its pair "k" = "v" set to "0", resealed
            auto v = spark_save::read(std::make_shared<const Source>(save));
            const NodeId custom = v.doc.child(v.doc.root(), "customState");
            REQUIRE(custom != k_no_node);
            const NodeId first = v.doc.node(custom).first_child;
            REQUIRE(first != k_no_node);
            v.doc.node(first).value = v.doc.text("0");
            v.doc.node(first).span = Span{};
            auto w = spark_save::write(v.doc);
            REQUIRE(w);
            save = *w;
            test::write_bytes(dir / in, save);
        }
        auto want = set->apply(std::span<const std::byte>(
            reinterpret_cast<const std::byte*>(save.data()), save.size()));
        REQUIRE(want);
        REQUIRE(want->changed);
        fs::remove(dir / "ruled.spark_save");
        const std::string report =
            run_binary("migrate --rules " + (dir / "big.toml").string() + " -o " +
                           (dir / "ruled.spark_save").string() + " " + (dir / in).string(),
                       status);
        CHECK(status == 0);
        CHECK(report.find(", k 0 -> 1 -> ") != std::string::npos);
        CHECK(test::read_bytes(dir / "ruled.spark_save") == want->bytes);
        // The same in place, then again: up to date, the file as the first run left it.
        run_binary("migrate --rules " + (dir / "big.toml").string() + " --in-place " +
                       (dir / in).string(),
                   status);
        CHECK(status == 0);
        CHECK(test::read_bytes(dir / in) == want->bytes);
        const auto mtime = fs::last_write_time(dir / in);
        const std::string again = run_binary("migrate --rules " + (dir / "big.toml").string() +
                                                 " --in-place " + (dir / in).string(),
                                             status);
        CHECK(status == 0);
        CHECK(again.find("1 up to date") != std::string::npos);
        CHECK(fs::last_write_time(dir / in) == mtime);
    }
    fs::remove_all(dir);
}
#endif
