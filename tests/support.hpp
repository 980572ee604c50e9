// Helpers the tests share: reading test files, goldens that regenerate on request.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace sparksave::test {

std::filesystem::path testdata();
std::string read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, const std::string& bytes);
// Files directly in `dir` whose name ends with `suffix`, sorted.
std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir,
                                            const std::string& suffix);
// The corpus folders of one kind (valid, invalid, tolerated, ...) of testdata/<format>/, in
// order: the generated <kind>/ (tests/gen/*_corpus.py), the hand-written hand/<kind>/ and the
// engines' own files, real/<kind>/ (tests/gen/corpus.py); those that exist.
std::vector<std::filesystem::path> corpus_dirs(const std::filesystem::path& format_dir,
                                               const std::string& kind);
// The files of those folders whose name ends with `suffix`, each folder's sorted.
std::vector<std::filesystem::path> corpus_files(const std::filesystem::path& format_dir,
                                                const std::string& kind, const std::string& suffix);
// True when SPARKSAVE_REGENERATE=1: golden tests rewrite their expected files instead of
// comparing (review the diff like code).
bool regenerate();

// A migration's notes as printed (MigrationNote::describe), for comparing with expected texts.
std::vector<std::string> note_texts(const Notes& notes);
// Compares `actual` with the golden file (or rewrites it when regenerating). Returns an empty
// string when equal, else a description of the first difference.
std::string check_golden(const std::filesystem::path& golden, const std::string& actual);

// The node at a node path (sparksave(1) NODE PATHS); the test fails when the path does not parse or
// names no node.
NodeId at(const Document& doc, const char* path);
// Its value text.
std::string value_at(const Document& doc, const char* path);

// A random `.spark_save` of `version`, valid by construction, with the corners the format
// allows: empty and maximum-length strings, non-UTF-8 bytes, unordered keys, a hierarchy (v3+),
// and for v1/v2 trailing bytes or no custom-state count. Its own encoder, from formats/README.md
// §1.1.
std::string random_spark_save(std::mt19937& rng, std::uint32_t version);

} // namespace sparksave::test
