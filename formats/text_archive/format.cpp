// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

const FormatInfo k_format = {
    .id = FormatId::text_archive,
    .name = "text_archive",
    .title = "PgEngine text archive (.sz)",
    .max_file_size = k_max_file_size,
    .current_version = k_current_version,
    .detect = detect,
    .signature = has_signature,
    .read = read,
    .summarize = summarize,
    .write = write,
};

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
