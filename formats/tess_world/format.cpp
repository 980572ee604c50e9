// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
// tess world archive (formats/README.md §4): the 8-byte magic "TESSWLD\0".
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

const FormatInfo k_format = {
    .id = FormatId::tess_world,
    .name = "tess_world",
    .title = "tess world archive",
    .max_file_size = k_max_file_size,
    .current_version = k_current_version,
    .detect = detect,
    .read = read,
    .summarize = summarize,
    .write = write,
    .salvage = salvage,
};

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
