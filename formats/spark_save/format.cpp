// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// spec.hpp: entities -> entity objects -> component objects -> string scalars; customState.
const ContentModel k_content = {
    .entities = k_entities,
    .custom_state = k_custom_state,
    .saves = "spark_save saves",
    .value_type = ValueType::string,
};

const FormatInfo k_format = {
    .id = FormatId::spark_save,
    .name = k_format_name,
    .title = "SparkEngine save (.spark_save)",
    .max_file_size = k_max_file_size,
    .current_version = k_current_version,
    .detect = detect,
    .read = read,
    .summarize = summarize,
    .write = write,
    .items = k_entities,
    .directory = &k_directory,
    .stream = stream,
    .part_writer = part_writer,
    .content = &k_content,
    .salvage = salvage,
};

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
