// The format's row of the format table (formats/registry.cpp lists the rows in detection
// order).
// GMSV save (formats/README.md §5, the ECS save-system design of seed 003): the magic "GMSV".
#include "api.hpp"
#include "sparksave/version.hpp"
#include "spec.hpp"
#include "tree.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

std::string_view component_problem(std::string_view name) {
    if (component_type(name)) return {};
    return "GMSV writes a component's type id, so its name must be Position, Health, Inventory, "
           "StableId or type<N> for an unregistered id N";
}

Result<void> commit(Document& doc, std::span<const NodeId> components) {
    for (NodeId c : components)
        if (auto r = reencode(doc, c); !r) return r;
    return {};
}

} // namespace

// Content rules (format.hpp ContentModel, formats/README.md §5): entities -> components named by
// type; a JSON component's members are its properties, a binary one has none to edit; no custom
// state.
const ContentModel k_content = {
    .entities = k_entities,
    .opaque_components = true,
    .nested_properties = true,
    .saves = "GMSV saves",
    .value_type = ValueType::string,
    .typed = true,
    .true_text = "true",
    .false_text = "false",
    .json_floats = true,
    .component_problem = component_problem,
    .commit = commit,
};

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
    .content = &k_content,
    .salvage = salvage,
};

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
