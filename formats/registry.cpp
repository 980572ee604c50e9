// The format table: every format sparksave reads, in detection order (DESIGN.md: an explicit
// table, not self-registering statics). Adding a format means adding its row here.
#include "spark_save/spec.hpp"
#include "text_archive/spec.hpp"

#include "sparksave/format.hpp"
#include "sparksave/spark_save.hpp"
#include "sparksave/text_archive.hpp"

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
        .from_json = spark_save::from_json,
    },
    {
        .id = FormatId::text_archive,
        .name = "text_archive",
        .title = "PgEngine text archive (.sz)",
        .max_file_size = text_archive::k_max_file_size,
        .current_version = text_archive::k_current_version,
        .detect = text_archive::detect,
        .read = text_archive::read,
        .summarize = text_archive::summarize,
        .write = text_archive::write,
        .to_json = text_archive::to_json,
        .from_json = nullptr, // pack of text archives: not written yet
    },
};

} // namespace

std::span<const FormatInfo> format_table() noexcept { return k_formats; }

} // namespace sparksave
