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
    {FormatId::spark_kv, 1, 2, "spark_kv_v1_to_v2",
     "legacy store to v2: add the #!spark-kv-v2 marker line, escape every key and value",
     migrations::spark_kv_v1_to_v2},
    {FormatId::tess_world, 1, 2, "tess_world_v1_to_v2",
     "drop the retired chunk-state byte of every record; body size and CRC-32 recomputed",
     migrations::tess_world_v1_to_v2},
    {FormatId::gmsv, 1, 2, "gmsv_v1_to_v2",
     "add an empty Inventory (type 3) to every entity without one", migrations::gmsv_v1_to_v2},
    {FormatId::gmsv, 2, 3, "gmsv_v2_to_v3",
     "Position from int to float (JSON X/Y literals, or the 8-byte binary form); CRC-32 recomputed",
     migrations::gmsv_v2_to_v3},
};

} // namespace

std::span<const MigrationStep> migration_steps() noexcept {
    return k_steps;
}

} // namespace sparksave
