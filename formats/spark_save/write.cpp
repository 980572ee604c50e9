// Writing the tree back to `.spark_save` bytes (layout: spec.hpp, FORMATS.md 1.1).
#include "spec.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/spark_save.hpp"

#include <charconv>
#include <fmt/format.h>

namespace sparksave::spark_save {

namespace {

class Writer {
  public:
    explicit Writer(const Document& doc)
        : doc_(doc), w_(doc.source_bytes().size() + 64) {}

    Result<std::string> run() {
        const std::uint32_t version = doc_.version();
        if (version < 1 || version > k_current_version)
            return fail({}, fmt::format("expected a version from 1 to {}, found {}",
                                        k_current_version, version));
        const NodeId root = doc_.root();
        const NodeId metadata = doc_.child(root, k_metadata);
        const NodeId entities = doc_.child(root, k_entities);
        if (metadata == k_no_node) return fail(std::string(k_metadata), "expected a metadata node");
        if (entities == k_no_node) return fail(std::string(k_entities), "expected an entities node");

        w_.bytes(k_magic);
        w_.u32(version);
        const std::string_view raw = doc_.value(metadata);
        w_.u32(static_cast<std::uint32_t>(raw.size()));
        w_.bytes(raw);

        const std::size_t entity_count = doc_.child_count(entities);
        if (entity_count > 0xFFFF'FFFFu)
            return fail(std::string(k_entities), "too many entities for a 32-bit count");
        w_.u32(static_cast<std::uint32_t>(entity_count));
        std::uint64_t index = 0;
        for (NodeId entity : doc_.children(entities)) {
            std::string path(k_entities);
            append_path_index(path, index++);
            if (auto r = string16(doc_.name(entity), path, "entity name"); !r) return r.error();
            if (auto r = count16(doc_.child_count(entity), path, "components"); !r) return r.error();
            for (NodeId component : doc_.children(entity)) {
                std::string cpath = path;
                append_path_name(cpath, doc_.name(component));
                if (auto r = string16(doc_.name(component), cpath, "component type"); !r)
                    return r.error();
                if (auto r = count16(doc_.child_count(component), cpath, "properties"); !r)
                    return r.error();
                for (NodeId property : doc_.children(component))
                    if (auto r = pair(property, cpath); !r) return r.error();
            }
        }

        const NodeId custom = doc_.child(root, k_custom_state);
        const bool absent = custom == k_no_node ||
                            ((doc_.node(custom).flags & k_flag_absent) && doc_.child_count(custom) == 0);
        if (!absent || current_rules(version)) {
            std::uint64_t count = custom == k_no_node ? 0 : doc_.child_count(custom);
            if (custom != k_no_node && !doc_.value(custom).empty()) {
                // A v1/v2 file whose last pair was cut short keeps its declared count (spec.hpp).
                std::string_view declared = doc_.value(custom);
                auto [p, ec] = std::from_chars(declared.data(), declared.data() + declared.size(), count);
                if (ec != std::errc() || p != declared.data() + declared.size() || count > 0xFFFF'FFFFu)
                    return fail(std::string(k_custom_state),
                                "expected a declared count, found " + display(declared, true));
            }
            w_.u32(static_cast<std::uint32_t>(count));
            if (custom != k_no_node)
                for (NodeId p : doc_.children(custom))
                    if (auto r = pair(p, std::string(k_custom_state)); !r) return r.error();
        }
        if (NodeId trailing = doc_.child(root, k_trailing); trailing != k_no_node)
            w_.bytes(doc_.value(trailing));
        if (version == k_current_version) w_.u32(crc32(w_.view()));
        return std::move(w_).take();
    }

  private:
    Result<void> string16(std::string_view s, const std::string& path, std::string_view what) {
        if (s.size() > k_max_u16)
            return fail(path, fmt::format("expected a {} of at most {} bytes, found {}", what,
                                          k_max_u16, s.size()));
        w_.u16(static_cast<std::uint16_t>(s.size()));
        w_.bytes(s);
        return {};
    }
    Result<void> count16(std::size_t n, const std::string& path, std::string_view what) {
        if (n > k_max_u16)
            return fail(path, fmt::format("expected at most {} {}, found {}", k_max_u16, what, n));
        w_.u16(static_cast<std::uint16_t>(n));
        return {};
    }
    Result<void> pair(NodeId node, std::string path) {
        append_path_name(path, doc_.name(node));
        if (auto r = string16(doc_.name(node), path, "key"); !r) return r;
        return string16(doc_.value(node), path, "value");
    }
    Error fail(std::string path, std::string message) {
        return make_error(ErrorCode::bad_value, std::move(message), k_no_offset, std::move(path));
    }

    const Document& doc_;
    ByteWriter w_;
};

} // namespace

Result<std::string> write(const Document& doc) { return Writer(doc).run(); }

} // namespace sparksave::spark_save
