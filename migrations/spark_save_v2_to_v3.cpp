// spark_save 2 -> 3 (formats/README.md §1.6): v3 added the Transform hierarchy. A v3 reader treats
// a Transform without `parent` as a root; sparksave makes that explicit with parent = -1 as the
// last property. v3 also makes the custom-state count mandatory and refuses bytes after the
// data, so what the v2 reader ignored is dropped here, and said so. The Transforms are in the
// items, the rest in the tail (migrate.hpp MigrationStep).
#include "steps.hpp"

#include "spark_save/spec.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

// Each entity (an item of the list).
Result<void> spark_save_v2_to_v3_item(Document& doc, NodeId entity, std::uint64_t, Notes& notes) {
    std::size_t added = 0;
    Str parent_name, root_index; // made once an entity needs them
    for (NodeId component : doc.children(entity)) {
        if (doc.name(component) != spark_save::k_transform) continue;
        if (doc.child(component, spark_save::k_parent) != k_no_node) continue;
        if (added++ == 0) {
            parent_name = doc.text(spark_save::k_parent);
            root_index = doc.text("-1");
        }
        doc.append(component, NodeKind::scalar, parent_name, root_index, {}, ValueType::string);
    }
    if (added) notes.push_back({"Transforms given parent=-1", added});
    return {};
}

// What follows the entities: the trailing bytes and the custom state.
Result<void> spark_save_v2_to_v3_tail(Document& doc, Notes& notes) {
    const NodeId root = doc.root();
    if (NodeId trailing = doc.child(root, spark_save::k_trailing); trailing != k_no_node) {
        notes.push_back(
            {fmt::format("dropped {} bytes after the end of the save, which the v2 reader ignored",
                         doc.value(trailing).size())});
        doc.unlink(root, trailing);
    }
    if (NodeId custom = doc.child(root, spark_save::k_custom_state); custom != k_no_node) {
        Node& n = doc.node(custom);
        if (n.flags & k_flag_absent) {
            notes.push_back(
                {"wrote the custom-state count the v2 file did not have (v3 requires it)"});
            n.flags = static_cast<std::uint8_t>(n.flags & ~k_flag_absent);
        }
        if (!doc.value(custom).empty()) {
            notes.push_back(
                {fmt::format("custom state: the file declared {} pairs but held {}; the v2 reader "
                             "dropped the rest, and so does the migration",
                             doc.value(custom), doc.child_count(custom))});
            n.value = {};
        }
    } else {
        doc.append(root, NodeKind::object, doc.text(spark_save::k_custom_state));
    }
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
