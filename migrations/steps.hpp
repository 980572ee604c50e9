// The migration steps, one per file in this folder; registry.cpp lists them in order.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"

#include <string>
#include <vector>

namespace sparksave::migrations {

Result<void> spark_save_v1_to_v2(Document& doc, std::vector<std::string>& notes);
Result<void> spark_save_v2_to_v3(Document& doc, std::vector<std::string>& notes);
Result<void> spark_save_v3_to_v4(Document& doc, std::vector<std::string>& notes);
Result<void> spark_kv_v1_to_v2(Document& doc, std::vector<std::string>& notes);
Result<void> tess_world_v1_to_v2(Document& doc, std::vector<std::string>& notes);
Result<void> gmsv_v1_to_v2(Document& doc, std::vector<std::string>& notes);
Result<void> gmsv_v2_to_v3(Document& doc, std::vector<std::string>& notes);

} // namespace sparksave::migrations
