// Salvage (`sparksave salvage`, sparksave-salvage(1)): what a damaged save still holds, written as
// a save the engine loads, with a report that accounts for every byte of the input. A format
// salvages through the optional entry of its row (format.hpp FormatInfo::salvage), which reads
// the damaged bytes as far as they go, resynchronises where the format allows and makes the
// candidate file of the input's version, read back with the format's own reader until it finds
// no error; salvage() here is the one driver around it: the options checked, the migration to
// --to (migrate.hpp, which reads its result back as the target version). The file itself is
// written by the caller, through the write model (output.hpp), whose check reads it back from the
// disk once more before it takes its name.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/error.hpp"
#include "sparksave/format.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

struct SalvageOptions {
    // The version of the output (a later one: the salvaged file is migrated, migrate.hpp);
    // default: the input's own version.
    std::optional<std::uint32_t> to;
    // Write the output of a file whose structure reads completely but whose checksum fails (its
    // content is unverified); without it such a file gets a report and no output.
    bool accept_checksum = false;
};

// One region of the input, in the report. Regions are in input order and tile it exactly:
// every byte is in one kept, rebuilt or lost region. A rebuilt region of length 0 is a field
// the input lacks (a truncated file's custom-state count), written at `offset`.
struct SalvageRegion {
    enum class Kind : std::uint8_t {
        kept,    // the bytes went to the output unchanged, as the node `path`
        rebuilt, // a field that was unreadable or wrong: `path` now holds `value`
        lost,    // dropped: the bytes are in the report only (`reason`; JSON: their hex)
    };
    Kind kind = Kind::kept;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::string path;   // kept, rebuilt: the node path in the output; lost: where it was, if known
    std::string value;  // rebuilt: the value written (its text)
    std::string reason; // rebuilt, lost: why
    // In a text format, where the region starts: 1-based line and column (0: a binary format).
    std::uint32_t line = 0;
    std::uint32_t column = 0;
};
std::string_view salvage_kind_name(SalvageRegion::Kind kind) noexcept;

struct SalvageCount {
    std::uint64_t kept = 0;
    std::uint64_t lost = 0;
};

struct SalvageTotals {
    SalvageCount entities;   // the format's items (spark_save entities, tess chunks, ...)
    SalvageCount components; // their components
    SalvageCount properties; // the components' properties and the custom-state pairs
    SalvageCount bytes;      // input bytes kept (kept and rebuilt regions) and lost
};

// What a salvage made of a file.
struct Salvaged {
    FormatId format = FormatId::spark_save;
    std::uint32_t from = 0;       // the input's version, as salvage read it
    std::uint32_t version = 0;    // the output's
    std::uint64_t input_size = 0; // the regions' total length
    // The output (a file of `version` the format's reader finds no error in), unless withheld.
    std::string bytes;
    std::vector<SalvageRegion> regions;
    SalvageTotals totals;
    // The stored checksum disagrees with the bytes (v4 CRC-32): what was kept is unverified.
    bool unverified = false;
    // Nothing was damaged but the checksum, and SalvageOptions::accept_checksum was not given:
    // no output (bytes is empty).
    bool withheld = false;
    // False in the report of a salvage that recovered nothing (nothing_recovered()): no output,
    // the whole input one lost region, `from` and `version` 0 (unknown).
    bool recovered = true;
    // What the migration to SalvageOptions::to did (migrate.hpp MigrationNote::describe()).
    std::vector<std::string> notes;

    // Input bytes were lost, or records the file declared that are not in it any more (a file
    // cut at a record's end: its count said more).
    bool lost_anything() const noexcept {
        return totals.bytes.lost != 0 || totals.entities.lost != 0 || totals.components.lost != 0 ||
               totals.properties.lost != 0;
    }
    bool changed_anything() const noexcept;
    // There is an output to write (bytes): something was recovered and it is not withheld.
    bool has_output() const noexcept { return recovered && !withheld; }
    // sparksave-salvage(1) EXIT STATUS: 0 nothing lost (the output holds everything), 1 something
    // was lost or the output was withheld, 2 nothing could be recovered.
    int exit_status() const noexcept {
        if (!recovered) return 2;
        return lost_anything() || withheld ? 1 : 0;
    }
};

// Salvages `bytes` as `format`. Errors: the format has no salvage (bad_usage), --to is not a
// version the format can migrate the file to (bad_usage), nothing could be recovered (the file
// is not recognisably of the format: its error, with the offset), or a bug (internal: the
// candidate failed its read-back check).
Result<Salvaged> salvage(const FormatInfo& format, std::string_view bytes,
                         const SalvageOptions& options = {});

// The report of a salvage of `bytes` as `format` that recovered nothing, for the reports
// (`--report` is written all the same): salvage() failed with `why`, the whole input is one lost
// region with `why` as its reason. Nothing when `why` is not such a failure (bad_usage: the
// options; internal: a bug), which has no report.
std::optional<Salvaged> nothing_recovered(FormatId format, std::string_view bytes,
                                          const Error& why);

// The report for people (stdout of `sparksave salvage`): a header line, each rebuilt and lost
// region (kept regions are summed up), the totals and the verdict. `name`: the input as shown.
std::string salvage_report_text(const Salvaged& s, std::string_view name);

// The report as JSON (`--report FILE`, man/schemas/salvage.schema.json): schemaVersion, the
// input's name and format, versions, totals, flags and every region (a lost one with its bytes in
// hex, taken from `input`, the bytes salvaged).
std::string salvage_report_json(const Salvaged& s, std::string_view name, std::string_view input,
                                std::string_view output);

SPARKSAVE_END_NAMESPACE
