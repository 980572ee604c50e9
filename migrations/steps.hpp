// The migration steps, one per file in this folder; registry.cpp lists them in order.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <string>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

// spark_save steps apply by parts (migrate.hpp MigrationStep): large files are migrated part by
// part.
Result<void> spark_save_v1_to_v2_head(Document& doc, Notes& notes);
Result<void> spark_save_v2_to_v3_item(Document& doc, NodeId entity, std::uint64_t index,
                                      Notes& notes);
Result<void> spark_save_v2_to_v3_tail(Document& doc, Notes& notes);
Result<void> spark_save_v3_to_v4_tail(Document& doc, Notes& notes);
// The other formats' steps take the whole tree.
Result<void> spark_kv_v1_to_v2(Document& doc, Notes& notes);
Result<void> tess_world_v1_to_v2(Document& doc, Notes& notes);
Result<void> gmsv_v1_to_v2(Document& doc, Notes& notes);
Result<void> gmsv_v2_to_v3(Document& doc, Notes& notes);

} // namespace migrations
SPARKSAVE_END_NAMESPACE
