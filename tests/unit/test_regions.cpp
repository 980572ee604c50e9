// The byte map of `dump --hex` (sparksave/regions.hpp): over every file of testdata/ and of the
// fuzz corpus (tests/fuzz/corpus/*/), read as each format of the table, the regions tile the file
// (in order from 0, no gap, no overlap, no empty region, up to its size) and every region that is
// not a gap names a node of the tree the format's reader builds of the same file. Then the two
// printers on a known file.
#include <doctest/doctest.h>

#include "sparksave/format.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/regions.hpp"
#include "support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sparksave {
namespace {

namespace fs = std::filesystem;

// Every file under the folders the test reads, each once, sorted.
std::vector<fs::path> all_inputs() {
    std::vector<fs::path> files;
    const fs::path roots[] = {test::testdata(),
                              fs::path(SPARKSAVE_SOURCE_DIR) / "tests" / "fuzz" / "corpus",
                              fs::path(SPARKSAVE_SOURCE_DIR) / "tests" / "corpus"};
    for (const auto& root : roots) {
        if (!fs::is_directory(root)) continue;
        for (const auto& entry : fs::recursive_directory_iterator(root))
            if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The first problem of the regions of `bytes` read as `format` ("" when there is none).
std::string tiling_problem(const FormatInfo& format, const std::string& bytes) {
    auto source = std::make_shared<const Source>(bytes);
    const Parsed parsed = format.read(source, ReadOptions{});
    std::string problem;
    std::uint64_t at = 0;
    std::size_t count = 0;
    std::map<std::string, bool> resolved; // a path's answer, asked once
    file_regions(format, source->view(), [&](const Region& r) {
        ++count;
        if (!problem.empty()) return;
        const std::string where =
            fmt::format("region {} ({} at {:#x}+{}, {})", count, std::string(r.path), r.offset,
                        r.length, role_name(r.role));
        if (r.offset != at) {
            problem = fmt::format("{}: expected it at {:#x}, where the last one ended: {}", where,
                                  at, r.offset < at ? "an overlap" : "a gap");
            return;
        }
        if (r.length == 0) {
            problem = where + ": an empty region";
            return;
        }
        at = r.offset + r.length;
        if (at > bytes.size()) {
            problem = fmt::format("{}: past the end of the file ({} bytes)", where, bytes.size());
            return;
        }
        if (r.role == Role::unread || r.role == Role::trailing) {
            const std::string_view want = r.role == Role::unread ? k_unread_path : k_trailing_path;
            if (r.path != want)
                problem = where + ": a gap named otherwise than " + std::string(want);
            return;
        }
        auto [it, inserted] = resolved.try_emplace(std::string(r.path), false);
        if (inserted) {
            auto path = NodePath::parse(r.path);
            it->second = r.path.empty() || (path && resolve(parsed.doc, *path).has_value());
        }
        if (!it->second) problem = where + ": its path names no node of the tree";
    });
    if (problem.empty() && at != bytes.size())
        problem = fmt::format("the regions end at {:#x}, the file at {:#x}", at, bytes.size());
    return problem;
}

void check_format(FormatId id) {
    const FormatInfo& format = format_info(id);
    std::size_t files = 0, with_fields = 0;
    for (const auto& path : all_inputs()) {
        const std::string bytes = test::read_bytes(path);
        if (bytes.size() > format.max_file_size) continue;
        ++files;
        const std::string problem = tiling_problem(format, bytes);
        if (!problem.empty())
            FAIL_CHECK(path.string() << " read as " << format.name << ": " << problem);
        if (detect_format(bytes.substr(0, k_detect_bytes)) == &format) ++with_fields;
    }
    MESSAGE(format.name << ": " << files << " files, " << with_fields << " of the format");
    CHECK(with_fields > 10); // the corpus has files of the format: the test saw some
}

} // namespace

TEST_CASE("regions tile every file: spark_save") {
    check_format(FormatId::spark_save);
}
TEST_CASE("regions tile every file: text_archive") {
    check_format(FormatId::text_archive);
}
TEST_CASE("regions tile every file: spark_kv") {
    check_format(FormatId::spark_kv);
}
TEST_CASE("regions tile every file: tess_world") {
    check_format(FormatId::tess_world);
}
TEST_CASE("regions tile every file: gmsv") {
    check_format(FormatId::gmsv);
}

TEST_CASE("regions of a v4 save: the fields the reader read, then the checksum") {
    const std::string bytes =
        test::read_bytes(test::testdata() / "spark_save" / "valid" / "v4-hierarchy.spark_save");
    std::vector<std::string> seen;
    file_regions(format_info(FormatId::spark_save), bytes, [&](const Region& r) {
        seen.push_back(fmt::format("{:#x}+{} {} {} {}", r.offset, r.length, std::string(r.path),
                                   role_name(r.role), std::string(r.value)));
    });
    REQUIRE(seen.size() > 10);
    CHECK(seen[0] == "0x0+4  magic SPRK");
    CHECK(seen[1] == "0x4+4  version 4");
    CHECK(seen[2] == "0x8+4 metadata length 73");
    CHECK(seen[3] == "0xc+14 metadata.saveName string Generated save");
    CHECK(seen[4] == "0x1a+1 metadata whitespace \n");
    CHECK(seen.back() == "0x369+4 checksum checksum 0xe66622e7");
    // entities[0].Transform.px at 0x74: key length, key, value length, value.
    auto at = std::find(seen.begin(), seen.end(), "0x74+2 entities[0].Transform.px length 2");
    REQUIRE(at != seen.end());
    CHECK(at[1] == "0x76+2 entities[0].Transform.px name px");
    CHECK(at[2] == "0x78+2 entities[0].Transform.px length 9");
    CHECK(at[3] == "0x7a+9 entities[0].Transform.px string 12.500000");
}

TEST_CASE("regions of a damaged file end in <unread> from where the reading stopped") {
    std::string bytes =
        test::read_bytes(test::testdata() / "spark_save" / "valid" / "v4-hierarchy.spark_save");
    bytes.resize(0x80); // inside the value of entities[0].Transform.px
    std::vector<Region> seen;
    std::vector<std::string> paths;
    const Findings findings =
        file_regions(format_info(FormatId::spark_save), bytes, [&](const Region& r) {
            seen.push_back(r);
            paths.emplace_back(r.path);
        });
    CHECK(findings.has_errors());
    REQUIRE(seen.size() > 2);
    CHECK(seen.back().role == Role::unread);
    CHECK(paths.back() == "<unread>");
    CHECK(seen.back().offset + seen.back().length == bytes.size());
}

TEST_CASE("hex rows: offset, hex, ASCII and the fields that start in the row") {
    const std::string bytes =
        test::read_bytes(test::testdata() / "spark_save" / "valid" / "v4-hierarchy.spark_save");
    std::string text;
    HexDump dump(bytes, {0, 0x20, false}, [&](std::string_view t) { text += t; });
    file_regions(format_info(FormatId::spark_save), bytes,
                 [&](const Region& r) { dump.region(r); });
    dump.finish();
    const std::string first = text.substr(0, text.find('\n'));
    CHECK(first ==
          "00000000  53 50 52 4b 04 00 00 00  49 00 00 00 47 65 6e 65  |SPRK....I...Gene|  "
          "(file) = \"SPRK\"  (magic)");
    CHECK(text.find("\n" + std::string(80, ' ') + "(file) = 4  (version)\n") != std::string::npos);
    CHECK(text.find("metadata.saveName = \"Generated save\"  (string)") != std::string::npos);
    // Two rows, nothing after 0x20.
    CHECK(text.find("00000010  ") != std::string::npos);
    CHECK(text.find("00000020  ") == std::string::npos);
}

} // namespace sparksave
