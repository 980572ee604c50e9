// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

namespace {

std::string_view type_tag(ValueType type) {
    switch (type) {
    case ValueType::boolean:
        return k_type_bool;
    case ValueType::integer:
        return k_type_int;
    case ValueType::unsigned_integer:
        return k_type_unsigned;
    case ValueType::floating:
        return k_type_float;
    default:
        return k_type_string;
    }
}

std::string_view class_name_problem(std::string_view name) {
    if (name.find('\n') != std::string_view::npos) return "a class name with a line feed";
    return class_problem(name, false);
}

std::string_view attribute_problem(std::string_view name) {
    if (name.find('\n') != std::string_view::npos) return "a name with a line feed";
    return name_problem(name, true);
}

std::string_view value_problem(std::string_view text) {
    if (text.find('\n') != std::string_view::npos)
        return "a value with a line feed (the engine's writer breaks it, formats/README.md §2)";
    return {};
}

} // namespace

// Content rules (format.hpp ContentModel, formats/README.md §2): a class instance is a component
// of its class wherever it is, its attributes the properties; the top-level entries are the
// entities and the top-level attributes the custom state; values keep their `__PGSA` type.
const ContentModel k_content = {
    .custom_at_root = true,
    .by_class = true,
    .paths = true,
    .saves = "text archives",
    .value_type = ValueType::string,
    .typed = true,
    .true_text = "true",
    .false_text = "false",
    .component_problem = class_name_problem,
    .property_problem = attribute_problem,
    .value_problem = value_problem,
    .type_tag = type_tag,
};

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
    .content = &k_content,
    .salvage = salvage,
};

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
