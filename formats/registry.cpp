// The format table: every format sparksave reads, in detection order (DESIGN.md: an explicit
// table, not self-registering statics). Adding a format means adding its row here.
#include "spark_save/spec.hpp"

#include "sparksave/format.hpp"
#include "sparksave/spark_save.hpp"

namespace sparksave {

namespace {

const FormatInfo k_formats[] = {
    {
        .id = FormatId::spark_save,
        .name = "spark_save",
        .title = "SparkEngine save (.spark_save)",
        .max_file_size = spark_save::k_max_file_size,
        .current_version = spark_save::k_current_version,
        .detect = spark_save::detect,
        .read = spark_save::read,
        .summarize = spark_save::summarize,
        .write = spark_save::write,
        .to_json = spark_save::to_json,
    },
};

} // namespace

std::span<const FormatInfo> format_table() noexcept { return k_formats; }

} // namespace sparksave
