// Writing the tree back to GMSV bytes (layout: spec.hpp, formats/README.md §5). The entity and
// component counts are the lists' lengths and the CRC-32 of the data section is recomputed;
// component data is written exactly as the nodes hold it.
#include "dotnet.hpp"
#include "rules.hpp"
#include "tree.hpp"

#include "api.hpp"
#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <charconv>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

class Writer {
  public:
    explicit Writer(const Document& doc) : doc_(doc), w_(doc.source_bytes().size() + 64) {}

    Result<std::string> run() {
        const std::uint32_t version = doc_.version();
        if (version > 0xFFFF)
            return fail("version",
                        fmt::format("expected a 16-bit schema version, found {}", version));
        const NodeId root = doc_.root();
        const NodeId timestamp = doc_.child(root, k_timestamp);
        const NodeId binary = timestamp == k_no_node ? k_no_node : doc_.child(timestamp, k_binary);
        const NodeId entities = doc_.child(root, k_entities);
        if (binary == k_no_node) return fail("timestamp.binary", "expected the stored timestamp");
        if (entities == k_no_node) return fail(std::string(k_entities), "expected the entity list");
        const std::string_view stamp = doc_.value(binary);
        std::int64_t t = 0;
        auto [p, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), t);
        if (stamp.empty() || ec != std::errc() || p != stamp.data() + stamp.size())
            return fail("timestamp.binary",
                        "expected a 64-bit integer, found " + display(stamp, true));

        w_.bytes(k_magic);
        w_.u16(static_cast<std::uint16_t>(version));
        w_.u64(static_cast<std::uint64_t>(t));
        const std::size_t count = doc_.child_count(entities);
        if (count > 0x7FFF'FFFF)
            return fail(std::string(k_entities), "too many entities for a 32-bit count");
        w_.u32(static_cast<std::uint32_t>(count));
        std::uint64_t index = 0;
        for (NodeId entity : doc_.children(entities)) {
            const std::string path = entity_path(index++);
            auto guid = guid_bytes(doc_.name(entity));
            if (!guid)
                return fail(path,
                            "expected an entity named by its GUID (8-4-4-4-12 hex digits), found " +
                                display(doc_.name(entity), true));
            w_.bytes(*guid);
            const std::size_t components = doc_.child_count(entity);
            if (components > 0xFFFF)
                return fail(path,
                            fmt::format("expected at most 65535 components, found {}", components));
            w_.u16(static_cast<std::uint16_t>(components));
            for (NodeId c : doc_.children(entity)) {
                std::string cpath = path;
                append_path_name(cpath, doc_.name(c));
                auto type = component_type(doc_.name(c));
                if (!type)
                    return fail(cpath, "expected a component named Position, Health, Inventory, "
                                       "StableId or type<N>, "
                                       "found " +
                                           display(doc_.name(c), true));
                const std::string_view data = doc_.value(c);
                if (data.size() > 0x7FFF'FFFF)
                    return fail(cpath, "component data too large for a 32-bit length");
                w_.u16(*type);
                w_.u32(static_cast<std::uint32_t>(data.size()));
                w_.bytes(data);
            }
        }
        w_.u32(crc32(w_.view().substr(k_off_data)));
        if (NodeId trailing = doc_.child(root, k_trailing); trailing != k_no_node)
            w_.bytes(doc_.value(trailing));
        return std::move(w_).take();
    }

  private:
    Error fail(std::string path, std::string message) {
        return make_error(ErrorCode::bad_value, std::move(message), k_no_offset, std::move(path));
    }

    const Document& doc_;
    ByteWriter w_;
};

} // namespace

Result<std::string> write(const Document& doc) {
    return Writer(doc).run();
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
