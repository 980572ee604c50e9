// Migrations: the chain is contiguous, each step does what formats/README.md §1.6 says and nothing
// else, the real v1/v2/v3 engine files migrate to the checked-in v4 goldens, migrating is
// idempotent, and generated saves of every version keep every entity, component, property and pair.
#include <doctest/doctest.h>

#include "spark_save/spec.hpp"
#include "support.hpp"

#include "common/finding.hpp"
#include "spark_save/api.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <map>
#include <random>

using namespace sparksave;
namespace fs = std::filesystem;

namespace {

using test::value_at;

Parsed parse(const std::string& bytes) {
    return spark_save::read(std::make_shared<const Source>(bytes));
}

// Every entity/component/property and custom pair as "path=value" lines, in order.
std::vector<std::string> contents(const Document& doc) {
    std::vector<std::string> out;
    NodeId entities = doc.child(doc.root(), "entities");
    std::size_t e = 0;
    for (NodeId entity : doc.children(entities)) {
        for (NodeId comp : doc.children(entity))
            for (NodeId prop : doc.children(comp))
                out.push_back(fmt::format("{}/{}/{}/{}={}", e, doc.name(entity), doc.name(comp),
                                          doc.name(prop), doc.value(prop)));
        out.push_back(fmt::format("{}/{}", e, doc.name(entity)));
        ++e;
    }
    for (NodeId pair : doc.children(doc.child(doc.root(), "customState")))
        out.push_back(fmt::format("cs/{}={}", doc.name(pair), doc.value(pair)));
    return out;
}

} // namespace

TEST_CASE("each format's migration chain is contiguous up to its current version") {
    for (const auto& format : format_table()) {
        std::uint32_t expected_from = 0;
        for (const auto& step : migration_steps()) {
            if (step.format != format.id) continue;
            if (expected_from != 0) CHECK_MESSAGE(step.from == expected_from, step.id);
            CHECK(step.to == step.from + 1);
            CHECK_FALSE(step.summary.empty());
            expected_from = step.to;
        }
        if (expected_from != 0) CHECK(expected_from == format.current_version);
        // Every version from the oldest with a step can be planned to the current one.
        auto plan = plan_migration(format.id, format.current_version, format.current_version);
        REQUIRE(plan);
        CHECK(plan->empty());
    }
    auto plan = plan_migration(FormatId::spark_save, 1, 4);
    REQUIRE(plan);
    CHECK(plan->size() == 3);
    auto down = plan_migration(FormatId::spark_save, 4, 3);
    REQUIRE_FALSE(down);
    CHECK(down.error().message == "cannot migrate down from v4 to v3: no downgrades");
}

TEST_CASE("the real v1 file migrates to v4 exactly as formats/README.md §1.6 says") {
    const std::string input =
        test::read_bytes(test::testdata() / "spark_save/real/valid/v1-screenshotless.spark_save");
    auto in = parse(input);
    auto m = migrate(in.doc, 4);
    REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
    CHECK(m->steps.size() == 3);
    auto out = parse(m->bytes);
    CHECK(out.findings.items().empty());
    CHECK(out.doc.version() == 4);
    // Metadata: an empty screenshotPath after playerClass, every number's text kept.
    CHECK(value_at(out.doc, "metadata") ==
          "Legacy screenshotless save\nLegacyScene\nRanger\n\n1700000000\n42.5\n75\n25\n1 2 "
          "3\n4\n1\n");
    CHECK(value_at(out.doc, "metadata.screenshotPath").empty());
    // The Transform keeps its hash order, gains parent=-1 last.
    auto transform = *resolve(out.doc, *NodePath::parse("entities[0].Transform"));
    std::string order;
    for (NodeId c : out.doc.children(transform))
        order += std::string(out.doc.name(c)) + "=" + std::string(out.doc.value(c)) + " ";
    CHECK(order ==
          "rz=-2.250000 px=12.500000 py=-3.250000 rx=0.125000 pz=99.750000 ry=1.500000 sx=2.000000 "
          "sy=0.500000 sz=3.750000 parent=-1 ");
    CHECK(value_at(out.doc, "customState[\"legacy.key\"]") == "legacy-value");
    // The trailer is the CRC-32 of everything before it.
    const std::string& b = m->bytes;
    CHECK(boost::endian::load_little_u32(reinterpret_cast<const unsigned char*>(
              b.data() + b.size() - 4)) == crc32(std::string_view(b).substr(0, b.size() - 4)));
    // The input document is untouched (steps work on a copy).
    CHECK(in.doc.version() == 1);
    CHECK(resolve(in.doc, *NodePath::parse("entities[0].Transform.parent")).has_value() == false);
    std::string diff = test::check_golden(
        test::testdata() / "migrations/spark_save/v1-screenshotless.v4.spark_save", m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("the real v2 file keeps its screenshot path") {
    auto in = parse(test::read_bytes(
        test::testdata() / "spark_save/real/valid/v2-screenshot-without-hierarchy.spark_save"));
    auto m = migrate(in.doc, 4);
    REQUIRE(m);
    CHECK(m->steps.size() == 2);
    auto out = parse(m->bytes);
    CHECK(out.findings.items().empty());
    CHECK(value_at(out.doc, "metadata.screenshotPath") == "Screenshots/legacy.png");
    CHECK(value_at(out.doc, "metadata") == in.doc.value(in.doc.child(in.doc.root(), "metadata")));
    CHECK(value_at(out.doc, "entities[0].Transform.parent") == "-1");
    CHECK(value_at(out.doc, "entities[0].Transform.px") == "12.500000");
    CHECK(value_at(out.doc, "customState[\"legacy.key\"]") == "legacy-value");
    std::string diff = test::check_golden(
        test::testdata() / "migrations/spark_save/v2-screenshot-without-hierarchy.v4.spark_save",
        m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("the real v3 file becomes v4 with identical payload bytes plus the trailer") {
    const std::string input =
        test::read_bytes(test::testdata() / "spark_save/real/valid/v3-fps-profile.spark_save");
    auto m = migrate(parse(input).doc, 4);
    REQUIRE(m);
    const std::string& b = m->bytes;
    REQUIRE(b.size() == input.size() + 4);
    CHECK(b.substr(0, 4) == "SPRK");
    CHECK(b[4] == 4);
    CHECK(b.substr(8, input.size() - 8) == input.substr(8));
    CHECK(boost::endian::load_little_u32(reinterpret_cast<const unsigned char*>(
              b.data() + input.size())) == crc32(std::string_view(b).substr(0, input.size())));
    std::string diff = test::check_golden(
        test::testdata() / "migrations/spark_save/v3-fps-profile.v4.spark_save", m->bytes);
    CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("migrating is idempotent: a v4 file needs no step, twice equals once") {
    auto in = parse(
        test::read_bytes(test::testdata() / "spark_save/real/valid/v1-screenshotless.spark_save"));
    auto once = migrate(in.doc, 4);
    REQUIRE(once);
    auto again = parse(once->bytes);
    auto plan = plan_migration(FormatId::spark_save, again.doc.version(), 4);
    REQUIRE(plan);
    CHECK(plan->empty());
    // Step by step (1->2, then 2->4) gives the same bytes as all at once.
    auto v2 = migrate(in.doc, 2);
    REQUIRE(v2);
    auto v4 = migrate(parse(v2->bytes).doc, 4);
    REQUIRE(v4);
    CHECK(v4->bytes == once->bytes);
}

TEST_CASE("a v1 file whose content breaks a v4 rule fails with the node path, changing nothing") {
    auto in =
        parse(test::read_bytes(test::testdata() / "spark_save/valid/v1-duplicates.spark_save"));
    auto m = migrate(in.doc, 4);
    REQUIRE_FALSE(m);
    CHECK(m.error().path == "entities[0].HealthComponent.current");
    CHECK(m.error().code == ErrorCode::duplicate_key);
    CHECK(m.error().message.find("the v4 rules refuse the result of step spark_save_v3_to_v4") ==
          0);
    auto nan = migrate(
        parse(test::read_bytes(test::testdata() / "spark_save/valid/v1-loose-metadata.spark_save"))
            .doc,
        4);
    REQUIRE_FALSE(nan);
    CHECK(nan.error().path == "metadata.playTime");
    // --to 2 is fine: the v2 reader tolerates both.
    CHECK(migrate(in.doc, 2));
}

TEST_CASE("v1/v2 quirks: trailing bytes, a missing count and a cut pair are resolved for v3") {
    for (const char* name : {"v1-trailing-bytes", "v1-no-custom-count", "v2-truncated-pair"}) {
        CAPTURE(name);
        auto in = parse(test::read_bytes(test::testdata() / "spark_save/valid" /
                                         (std::string(name) + ".spark_save")));
        auto m = migrate(in.doc, 4);
        REQUIRE(m);
        CHECK_FALSE(m->notes.empty());
        auto out = parse(m->bytes);
        CHECK(out.findings.items().empty());
        CHECK(out.doc.child(out.doc.root(), "trailing") == k_no_node);
    }
}

TEST_CASE("generated saves of every version migrate to valid v4 files that keep everything") {
    std::mt19937 rng(42);
    int migrated = 0;
    for (std::uint32_t version = 1; version <= 4; ++version) {
        for (int i = 0; i < 100; ++i) {
            auto in = parse(test::random_spark_save(rng, version));
            REQUIRE(!in.findings.has_errors());
            std::vector<std::string> before = contents(in.doc);
            if (version == 4) {
                CHECK(plan_migration(FormatId::spark_save, 4, 4)->empty());
                continue;
            }
            auto m = migrate(in.doc, 4);
            REQUIRE_MESSAGE(m, (m ? "" : m.error().describe()));
            auto out = parse(m->bytes);
            REQUIRE(out.findings.items().empty());
            std::vector<std::string> after = contents(out.doc);
            // Everything that was there is there, in order; only parent=-1 lines were added.
            std::vector<std::string> without_added;
            for (const auto& line : after)
                if (version >= 3 || line.find("/Transform/parent=-1") == std::string::npos)
                    without_added.push_back(line);
            CHECK(without_added == before);
            ++migrated;
        }
    }
    CHECK(migrated == 300);
}

// A step declares how it applies (migrate.hpp MigrationStep): a format read part by part has only
// steps that apply by parts, and each step declares one way.
TEST_CASE("each migration step declares how it applies: by parts, or to the whole tree") {
    for (const auto& step : migration_steps()) {
        CAPTURE(step.id);
        const bool parts = step.head || step.item || step.tail;
        CHECK(parts != (step.whole != nullptr));
        CHECK(step.by_parts() == parts);
        if (format_info(step.format).stream) CHECK(step.by_parts());
        if (step.item) CHECK_FALSE(format_info(step.format).items.empty());
    }
}

// Every chain (each version to each later one) of every format read part by part, both ways:
// a step that touched what its part does not hold would give other bytes or notes here.
TEST_CASE("migrating part by part gives the bytes and notes of migrating the whole tree") {
    int compared = 0;
    for (const FormatInfo& format : format_table()) {
        if (!format.stream) continue;
        CAPTURE(format.name);
        std::vector<std::string> inputs;
        for (const auto& file : test::corpus_files(test::testdata() / format.name, "valid", ""))
            if (file.extension() != ".expect") inputs.push_back(test::read_bytes(file));
        if (format.id == FormatId::spark_save) {
            std::mt19937 rng(7);
            for (std::uint32_t version = 1; version <= 3; ++version)
                for (int i = 0; i < 40; ++i)
                    inputs.push_back(test::random_spark_save(rng, version));
        }
        for (const std::string& input : inputs) {
            auto source = std::make_shared<const Source>(input);
            const Parsed parsed = format.read(source, ReadOptions{});
            for (std::uint32_t to = parsed.doc.version() + 1; to <= format.current_version; ++to) {
                CAPTURE(parsed.doc.version());
                CAPTURE(to);
                auto whole = migrate(parsed.doc, to);
                std::string streamed;
                auto parts =
                    migrate_parts(format, source, to, [&](std::string_view b) -> Result<void> {
                        streamed.append(b);
                        return {};
                    });
                REQUIRE_MESSAGE(parts, (parts ? "" : parts.error().describe()));
                if (whole) {
                    CHECK(streamed == whole->bytes);
                    CHECK(parts->notes == whole->notes);
                    CHECK(parts->steps == whole->steps);
                    ++compared;
                } else {
                    // The whole-tree migration refused the result; part by part, the caller's
                    // read-back does.
                    CHECK(format.summarize(streamed).findings.has_errors());
                }
            }
        }
    }
    CHECK(compared >= 240);
    const FormatInfo& format = format_info(FormatId::spark_save);
    // A file that does not parse is refused part by part too.
    auto bad = migrate_parts(
        format,
        std::make_shared<const Source>(test::read_bytes(
            test::testdata() / "spark_save/invalid/v3-truncated-entity-name.spark_save")),
        4, [](std::string_view) -> Result<void> { return {}; });
    REQUIRE(bad); // read, and its error handed back with the findings: the output is dropped
    REQUIRE(bad->findings.first_error());
    CHECK(bad->findings.first_error()->code == ErrorCode::truncated);
    CHECK(bad->steps.empty());
    // A file at the target is not read past its head: the caller reads it whole.
    auto current =
        migrate_parts(format,
                      std::make_shared<const Source>(test::read_bytes(
                          test::testdata() / "spark_save/valid/v4-hierarchy.spark_save")),
                      4, [](std::string_view) -> Result<void> {
                          FAIL("nothing is written for a file at the target");
                          return {};
                      });
    REQUIRE(current);
    CHECK(current->from == 4);
    CHECK(current->steps.empty());
}

TEST_CASE("notes carry their counts as numbers, and merge by text") {
    Notes notes{{"Transforms given parent=-1", 2}, {"dropped 3 bytes"}};
    merge_notes(notes, {{"Transforms given parent=-1", 5},
                        {"dropped 3 bytes"},
                        {"Transforms given parent=-1: 4"}, // a text, not a count: kept apart
                        {"custom state"}});
    CHECK(test::note_texts(notes) ==
          std::vector<std::string>{"Transforms given parent=-1: 7", "dropped 3 bytes",
                                   "Transforms given parent=-1: 4", "custom state"});
    REQUIRE(notes[0].count);
    CHECK(*notes[0].count == 7);
}

TEST_CASE("a refusal puts its context before the rule, and rule() is the rule alone") {
    Findings findings;
    add_with_consequence(findings, Severity::warning, ErrorCode::bad_parent, 0x40,
                         "entities[0].Transform.parent", "expected an index, found x",
                         "the v2 reader accepts it");
    const Error& w = findings.items().front();
    CHECK(w.message == "expected an index, found x (the v2 reader accepts it)");
    CHECK(w.rule() == "expected an index, found x");

    Error refused = refused_result(w, 4, "spark_save_v3_to_v4");
    CHECK(refused.message == "the v4 rules refuse the result of step spark_save_v3_to_v4: "
                             "expected an index, found x (the v2 reader accepts it)");
    CHECK(refused.rule() == "expected an index, found x");
    CHECK_FALSE(refused.has_offset());
    CHECK(refused_result(make_error(ErrorCode::bad_parent, "r"), 4, {}).message ==
          "the v4 rules refuse the result: r");
    CHECK(make_error(ErrorCode::bad_parent, "whole").rule() == "whole");
}
