// Every migration step, grouped by format, in chain order (DESIGN.md: one explicit table).
// tests/unit/test_migrate.cpp proves each format's chain is contiguous up to its current version.
#include "steps.hpp"

#include "sparksave/migrate.hpp"

namespace sparksave {

namespace {

const MigrationStep k_steps[] = {
    {FormatId::spark_save, 1, 2, "spark_save_v1_to_v2",
     "insert an empty screenshotPath line after playerClass (metadata one field a line)",
     migrations::spark_save_v1_to_v2},
    {FormatId::spark_save, 2, 3, "spark_save_v2_to_v3",
     "add parent=-1 as the last property of every Transform without one",
     migrations::spark_save_v2_to_v3},
    {FormatId::spark_save, 3, 4, "spark_save_v3_to_v4",
     "enforce the v4 rules (duplicates, metadata, parents) and append the CRC-32 trailer",
     migrations::spark_save_v3_to_v4},
};

} // namespace

std::span<const MigrationStep> migration_steps() noexcept { return k_steps; }

} // namespace sparksave
