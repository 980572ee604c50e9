// Component nodes of the GMSV tree (spec.hpp): the payload's form (JSON or binary), its JSON
// members as a subtree, and the names of component types. Shared by the reader's tree sink and
// the migrations, so a component node is made in one place.
#pragma once

#include "spec.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

// Whether component data is the JSON form: exactly one JSON object (RFC 8259, so UTF-8) with
// nothing before or after it, nesting at most k_max_json_depth levels. System.Text.Json writes
// every component (a record struct) as an object; a binary payload almost never starts with
// `{` and parses as one.
bool is_json_payload(std::string_view data);

// "Position", "Health", "Inventory", "StableId", or "type<N>" for another id.
std::string component_name(std::uint16_t type);
// The inverse; nullopt for a name that is neither.
std::optional<std::uint16_t> component_type(std::string_view name);

// Makes `component` (whose value is its data) a JSON object node tagged "json" with the
// object's members as children when the data is JSON, else a bytes node. Existing children
// are dropped.
void set_payload(Document& doc, NodeId component);
// Replaces a component's data (a migration): the node's value becomes `data` (in the arena), its
// span is dropped, and its children are rebuilt.
void replace_payload(Document& doc, NodeId component, std::string_view data);

// Re-encodes a JSON component's data from its members, after content rules edited them
// (format.hpp ContentModel::commit): `{"X":42.5,"Y":1E3}`, compact, members in order. A member with
// a span keeps its exact text in the save (and its key's, when its name is still that key); a
// scalar without one (a value a rule set) is written as JSON of its type: a string quoted, a
// number or literal as its text. Then replace_payload(). A binary component is left as it is.
Result<void> reencode(Document& doc, NodeId component);

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
