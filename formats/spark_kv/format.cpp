// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
// spark-kv (formats/README.md §3): a v2 store is recognised by its marker line `#!spark-kv-v2`;
// a legacy store has no signature at all, so it is recognised conservatively, by the shape of
// every line of the head (one `key<TAB>value` each, keys without spaces, no NUL byte; see
// formats/spark_kv/read.cpp). That rule must never take another format's file: keep this row
// after every format that has a magic number or a fixed first line.
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

const FormatInfo k_format = {
    .id = FormatId::spark_kv,
    .name = "spark_kv",
    .title = "SparkEngine spark-kv store (AsyncDatabase file)",
    .max_file_size = k_max_file_size,
    .current_version = k_current_version,
    .detect = detect,
    .signature = has_signature,
    .read = read,
    .summarize = summarize,
    .write = write,
    .salvage = salvage,
};

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
