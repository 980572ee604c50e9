// spark_save 3 -> 4 (formats/README.md §1.6): the same payload with a CRC-32 trailer. The v4 rules
// of 1.4 are enforced by migrate() reading the result back with the one reader that has them, so
// this step only drops a stale checksum node (in the tail); the writer appends the trailer.
#include "steps.hpp"

#include "spark_save/spec.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

Result<void> spark_save_v3_to_v4_tail(Document& doc, Notes&) {
    // A v3 tree has no checksum; one read from a damaged file would only hold a stale value.
    if (NodeId checksum = doc.child(doc.root(), spark_save::k_checksum); checksum != k_no_node)
        doc.unlink(doc.root(), checksum);
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
