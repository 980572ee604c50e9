// Every migration step, grouped by format, in chain order (README "How it is built": one explicit
// table). tests/unit/test_migrate.cpp proves each format's chain is contiguous up to its current
// version.
#include "steps.hpp"

#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

namespace sparksave::inline SPARKSAVE_ABI {

namespace {

const MigrationStep k_steps[] = {
    {.format = FormatId::spark_save,
     .from = 1,
     .to = 2,
     .id = "spark_save_v1_to_v2",
     .summary = "insert an empty screenshotPath line after playerClass (metadata one field a line)",
     .head = migrations::spark_save_v1_to_v2_head},
    {.format = FormatId::spark_save,
     .from = 2,
     .to = 3,
     .id = "spark_save_v2_to_v3",
     .summary = "add parent=-1 as the last property of every Transform without one",
     .item = migrations::spark_save_v2_to_v3_item,
     .tail = migrations::spark_save_v2_to_v3_tail},
    {.format = FormatId::spark_save,
     .from = 3,
     .to = 4,
     .id = "spark_save_v3_to_v4",
     .summary =
         "enforce the v4 rules (duplicates, metadata, parents) and append the CRC-32 trailer",
     .tail = migrations::spark_save_v3_to_v4_tail},
    {.format = FormatId::spark_kv,
     .from = 1,
     .to = 2,
     .id = "spark_kv_v1_to_v2",
     .summary = "legacy store to v2: add the #!spark-kv-v2 marker line, escape every key and value",
     .whole = migrations::spark_kv_v1_to_v2},
    {.format = FormatId::tess_world,
     .from = 1,
     .to = 2,
     .id = "tess_world_v1_to_v2",
     .summary =
         "drop the retired chunk-state byte of every record; body size and CRC-32 recomputed",
     .whole = migrations::tess_world_v1_to_v2},
    {.format = FormatId::gmsv,
     .from = 1,
     .to = 2,
     .id = "gmsv_v1_to_v2",
     .summary = "add an empty Inventory (type 3) to every entity without one",
     .whole = migrations::gmsv_v1_to_v2},
    {.format = FormatId::gmsv,
     .from = 2,
     .to = 3,
     .id = "gmsv_v2_to_v3",
     .summary = "Position from int to float (JSON X/Y literals, or the 8-byte binary form); CRC-32 "
                "recomputed",
     .whole = migrations::gmsv_v2_to_v3},
};

} // namespace

std::span<const MigrationStep> migration_steps() noexcept {
    return k_steps;
}

} // namespace sparksave
