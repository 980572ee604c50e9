// Every migration step, grouped by format, in chain order (README "How it is built": one explicit
// table). tests/unit/test_migrate.cpp proves each format's chain is contiguous up to its current
// version. A build lists only the steps of the formats of SPARKSAVE_FORMATS (CMakeLists.txt, the
// generated sparksave_formats.hpp), whose files are the only ones it compiles.
#include "sparksave_formats.hpp"
#include "steps.hpp"

#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE

namespace {

#define SPARKSAVE_HAS_STEPS                                                                        \
    (SPARKSAVE_HAS_SPARK_SAVE || SPARKSAVE_HAS_SPARK_KV || SPARKSAVE_HAS_TESS_WORLD ||             \
     SPARKSAVE_HAS_GMSV)

#if SPARKSAVE_HAS_SPARK_KV
// formats/README.md §3: what the current engine refuses in a legacy store and the pre-marker reader
// read (migrations/spark_kv_v1_to_v2.cpp carries it over as that reader read it).
constexpr ErrorCode k_spark_kv_repairs[] = {ErrorCode::truncated, ErrorCode::missing_tab,
                                            ErrorCode::duplicate_key};
#endif

#if SPARKSAVE_HAS_STEPS
const MigrationStep k_steps[] = {
#if SPARKSAVE_HAS_SPARK_SAVE
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
#endif
#if SPARKSAVE_HAS_SPARK_KV
    {.format = FormatId::spark_kv,
     .from = 1,
     .to = 2,
     .id = "spark_kv_v1_to_v2",
     .summary = "legacy store to v2: the marker line, every key and value escaped; what the old "
                "reader skipped dropped, the last line of a key kept",
     .whole = migrations::spark_kv_v1_to_v2,
     .repairs = k_spark_kv_repairs},
#endif
#if SPARKSAVE_HAS_TESS_WORLD
    {.format = FormatId::tess_world,
     .from = 1,
     .to = 2,
     .id = "tess_world_v1_to_v2",
     .summary =
         "drop the retired chunk-state byte of every record; body size and CRC-32 recomputed",
     .whole = migrations::tess_world_v1_to_v2},
#endif
#if SPARKSAVE_HAS_GMSV
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
#endif
};
#endif

} // namespace

std::span<const MigrationStep> migration_steps() noexcept {
#if SPARKSAVE_HAS_STEPS
    return k_steps;
#else
    return {}; // text_archive alone: it has no migrations
#endif
}

SPARKSAVE_END_NAMESPACE
