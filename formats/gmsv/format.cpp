// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
// GMSV save (formats/README.md §5, the ECS save-system design of seed 003): the magic "GMSV".
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

const FormatInfo k_format = {
    .id = FormatId::gmsv,
    .name = "gmsv",
    .title = "GMSV save (ECS save-system design)",
    .max_file_size = k_max_file_size,
    .current_version = k_current_version,
    .detect = detect,
    .read = read,
    .summarize = summarize,
    .write = write,
    .items = k_entities,
};

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
