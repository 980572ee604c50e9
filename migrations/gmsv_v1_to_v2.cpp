// gmsv 1 -> 2 (formats/README.md §5, seed 003 VersionMigrator.MigrateV1ToV2): every entity without
// an Inventory (type 3) gets an empty one, `new Inventory(Array.Empty<int>())`, appended after its
// other components (the design sets entity.Components[3], which a Dictionary enumerates last).
//
// "Empty" in the file's own form of component data (seed 003, "Binary vs JSON Serialization"):
//   JSON    {"ItemIds":[]}, System.Text.Json's output for Inventory(int[] ItemIds) with an empty
//           array; written indented ({\n  "ItemIds": []\n}) when the file's JSON data is indented
//           (WriteIndented = true in the design's debug serializer);
//   binary  00 00 00 00, the i32 element count a BinaryWriter writes before an int[] (none follow).
// A file whose component data is all binary gets the binary form; any other file (some JSON
// data, or no component at all: the design's generic ComponentWriter writes JSON) the JSON form.
#include "steps.hpp"

#include "gmsv/tree.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

Result<void> gmsv_v1_to_v2(Document& doc, Notes& notes) {
    const NodeId entities = doc.child(doc.root(), gmsv::k_entities);
    if (entities == k_no_node)
        return make_error(ErrorCode::bad_value, "expected the entity list", k_no_offset,
                          std::string(gmsv::k_entities));
    bool any = false, any_json = false, indented = false;
    for (NodeId entity : doc.children(entities)) {
        for (NodeId c : doc.children(entity)) {
            any = true;
            if (doc.node(c).kind != NodeKind::object) continue;
            any_json = true;
            indented |= doc.value(c).find('\n') != std::string_view::npos;
        }
    }
    const bool json = any_json || !any;
    const std::string empty = !json      ? std::string(4, '\0')
                              : indented ? "{\n  \"ItemIds\": []\n}"
                                         : "{\"ItemIds\":[]}";
    const std::string_view inventory = gmsv::k_type_names[gmsv::k_type_inventory];
    std::uint64_t added = 0, total = 0;
    for (NodeId entity : doc.children(entities)) {
        ++total;
        if (doc.child(entity, inventory) != k_no_node) continue;
        const NodeId c = doc.append(entity, NodeKind::bytes, doc.text(inventory));
        gmsv::replace_payload(doc, c, empty);
        ++added;
    }
    if (added)
        notes.push_back({fmt::format("added an empty Inventory ({}) to {} of {} entit{}",
                                     json ? empty : "binary 00000000", added, total,
                                     total == 1 ? "y" : "ies")});
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
