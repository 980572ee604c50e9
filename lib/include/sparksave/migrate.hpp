// Migrations: ordered steps that bring a save from one version of its format to the next,
// applied to the Document tree (DESIGN.md "Migrations are ordered steps"). The steps live in
// migrations/, one file each, listed in order in migrations/registry.cpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparksave {

struct MigrationStep {
    FormatId format;
    std::uint32_t from;
    std::uint32_t to;
    std::string_view id;      // "spark_save_v1_to_v2"
    std::string_view summary; // one line for `migrate --list`
    // Changes `doc` (a copy the caller owns) from version `from` to `to`. Adds to `notes` what it
    // did beyond the summary (bytes dropped, counts written). An error names the node path.
    Result<void> (*apply)(Document& doc, std::vector<std::string>& notes);
};

// Every step of every format, grouped by format, in chain order.
std::span<const MigrationStep> migration_steps() noexcept;

// The steps that take `format` from `from` to `to`, in order. Errors: a downgrade, or a gap in
// the chain.
Result<std::vector<const MigrationStep*>> plan_migration(FormatId format, std::uint32_t from,
                                                         std::uint32_t to);

struct Migrated {
    std::string bytes;                       // the new file, read back and found valid
    std::vector<const MigrationStep*> steps; // the steps that ran
    std::vector<std::string> notes;
};

// Applies the plan to a copy of `doc` (which is left unchanged), writes the result with the
// format's writer and reads it back: it must be a valid file of version `to`, else the error
// (with its node path) is returned, attributed to the last step. `doc` must be below `to`.
Result<Migrated> migrate(const Document& doc, std::uint32_t to);

} // namespace sparksave
