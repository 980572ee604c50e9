// The format table: every format sparksave reads, in detection order (README "How it is built": an
// explicit table, not self-registering statics). Adding a format means adding its row here.
#include "gmsv/spec.hpp"
#include "spark_kv/spec.hpp"
#include "spark_save/spec.hpp"
#include "tess_world/spec.hpp"
#include "text_archive/spec.hpp"

#include "sparksave/format.hpp"
#include "sparksave/gmsv.hpp"
#include "sparksave/spark_kv.hpp"
#include "sparksave/spark_save.hpp"
#include "sparksave/tess_world.hpp"
#include "sparksave/text_archive.hpp"

#include <algorithm>

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
        .items = spark_save::k_entities,
        .stream = spark_save::stream,
        .json_parts = spark_save::json_parts,
        .part_writer = spark_save::part_writer,
        .from_json_to = spark_save::from_json_to,
    },
    {
        .id = FormatId::text_archive,
        .name = "text_archive",
        .title = "PgEngine text archive (.sz)",
        .max_file_size = text_archive::k_max_file_size,
        .current_version = text_archive::k_current_version,
        .detect = text_archive::detect,
        .signature = text_archive::has_signature,
        .read = text_archive::read,
        .summarize = text_archive::summarize,
        .write = text_archive::write,
        .to_json = text_archive::to_json,
        .from_json = text_archive::from_json,
    },
    // tess world archive (formats/README.md §4): the 8-byte magic "TESSWLD\0".
    {
        .id = FormatId::tess_world,
        .name = "tess_world",
        .title = "tess world archive",
        .max_file_size = tess_world::k_max_file_size,
        .current_version = tess_world::k_current_version,
        .detect = tess_world::detect,
        .read = tess_world::read,
        .summarize = tess_world::summarize,
        .write = tess_world::write,
        .to_json = tess_world::to_json,
        .from_json = tess_world::from_json,
    },
    // GMSV save (formats/README.md §5, the ECS save-system design of seed 003): the magic "GMSV".
    {
        .id = FormatId::gmsv,
        .name = "gmsv",
        .title = "GMSV save (ECS save-system design)",
        .max_file_size = gmsv::k_max_file_size,
        .current_version = gmsv::k_current_version,
        .detect = gmsv::detect,
        .read = gmsv::read,
        .summarize = gmsv::summarize,
        .write = gmsv::write,
        .to_json = gmsv::to_json,
        .from_json = gmsv::from_json,
    },
    // spark-kv (formats/README.md §3): a v2 store is recognised by its marker line `#!spark-kv-v2`;
    // a legacy store has no signature at all, so it is recognised conservatively, by the shape of
    // every line of the head (one `key<TAB>value` each, keys without spaces, no NUL byte; see
    // formats/spark_kv/read.cpp). That rule must never take another format's file: keep this row
    // after every format that has a magic number or a fixed first line.
    {
        .id = FormatId::spark_kv,
        .name = "spark_kv",
        .title = "SparkEngine spark-kv store (AsyncDatabase file)",
        .max_file_size = spark_kv::k_max_file_size,
        .current_version = spark_kv::k_current_version,
        .detect = spark_kv::detect,
        .signature = spark_kv::has_signature,
        .read = spark_kv::read,
        .summarize = spark_kv::summarize,
        .write = spark_kv::write,
        .to_json = spark_kv::to_json,
        .from_json = spark_kv::from_json,
    },
};

} // namespace

std::span<const FormatInfo> format_table() noexcept {
    return k_formats;
}

std::vector<std::pair<std::string, std::uint64_t>>
most_common(std::vector<std::pair<std::string, std::uint64_t>> counts, std::size_t most) {
    std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (counts.size() > most) counts.resize(most);
    return counts;
}

} // namespace sparksave
