// tess_world 1 -> 2 (FORMATS.md 4.4): drop the chunk-state byte from every record prefix. The
// version becomes 2 (migrate() sets it) and the writer recomputes the body size and the CRC-32;
// every other header field, the tess library version included, stays as it was.
#include "steps.hpp"

#include "tess_world/spec.hpp"

#include <fmt/format.h>

#include <map>

namespace sparksave::migrations {

Result<void> tess_world_v1_to_v2(Document& doc, std::vector<std::string>& notes) {
    const NodeId chunks = doc.child(doc.root(), tess_world::k_chunks);
    if (chunks == k_no_node)
        return make_error(ErrorCode::bad_value, "expected the chunk list", k_no_offset,
                          std::string(tess_world::k_chunks));
    std::map<std::string, std::uint64_t> states; // what was dropped, by value
    std::uint64_t dropped = 0;
    for (NodeId chunk : doc.children(chunks)) {
        const NodeId state = doc.child(chunk, tess_world::k_state);
        if (state == k_no_node) continue;
        ++states[std::string(doc.value(state))];
        ++dropped;
        doc.unlink(chunk, state);
    }
    if (dropped) {
        std::string values;
        for (const auto& [value, count] : states)
            values += fmt::format("{}{} x{}", values.empty() ? "" : ", ", value, count);
        notes.push_back(fmt::format("dropped the chunk-state byte of {} chunk{} (values: {})",
                                    dropped, dropped == 1 ? "" : "s", values));
    }
    return {};
}

} // namespace sparksave::migrations
