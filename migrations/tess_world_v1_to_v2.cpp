// tess_world 1 -> 2 (formats/README.md §4.4): drop the chunk-state byte from every record prefix.
// The version becomes 2 (migrate() sets it) and the writer recomputes the body size and the CRC-32;
// every other header field, the tess library version included, stays as it was. A chunk state
// above 1 is refused (4.3: the v1 reader said InvalidChunk), so only files tess 0.12 loaded move.
#include "steps.hpp"

#include "tess_world/spec.hpp"

#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <map>

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

Result<void> tess_world_v1_to_v2(Document& doc, Notes& notes) {
    const NodeId chunks = doc.child(doc.root(), tess_world::k_chunks);
    if (chunks == k_no_node)
        return make_error(ErrorCode::bad_value, "expected the chunk list", k_no_offset,
                          std::string(tess_world::k_chunks));
    std::map<std::string, std::uint64_t> states; // what was dropped, by value
    std::uint64_t dropped = 0;
    std::uint64_t index = 0;
    for (NodeId chunk : doc.children(chunks)) {
        const std::uint64_t i = index++;
        const NodeId state = doc.child(chunk, tess_world::k_state);
        if (state == k_no_node) continue;
        // 4.3: the v1 reader refused a state that is no ChunkState (InvalidChunk); such a file is
        // invalid and is not migrated (dropping the byte would hide the damage).
        const std::string_view value = doc.value(state);
        if (value != "0" && value != "1") {
            std::string path(tess_world::k_chunks);
            append_path_index(path, i);
            append_path_name(path, tess_world::k_state);
            return make_error(ErrorCode::bad_chunk,
                              fmt::format("expected a chunk state of 0 (sleeping) or 1 (active), "
                                          "found {}: the v1 reader refused it (tess: InvalidChunk)",
                                          value),
                              k_no_offset, std::move(path));
        }
        ++states[std::string(value)];
        ++dropped;
        doc.unlink(chunk, state);
    }
    if (dropped) {
        std::string values;
        for (const auto& [value, count] : states)
            values += fmt::format("{}{} x{}", values.empty() ? "" : ", ", value, count);
        notes.push_back({fmt::format("dropped the chunk-state byte of {} chunk{} (values: {})",
                                     dropped, dropped == 1 ? "" : "s", values)});
    }
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
