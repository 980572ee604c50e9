// Writing the tree back to `.spark_save` bytes (layout: spec.hpp, formats/README.md §1.1), with
// the one encoder (write.hpp).
#include "write.hpp"

#include "spec.hpp"

#include "api.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <cassert>
#include <charconv>
#include <fmt/format.h>
#include <functional>
#include <memory>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

// The writer, part by part: head (magic, version, metadata, entity count), each entity, tail
// (custom state, trailing bytes, the v4 CRC over everything written). With an emit function
// the bytes go out in blocks as they are made (migrating a large file); without, they collect
// for write(). Node paths are built only for an error.
class Writer final : public Parts {
  public:
    explicit Writer(std::size_t reserve, std::function<Result<void>(std::string_view)> emit = {})
        : w_(reserve), emit_(std::move(emit)) {}

    Result<void> head(Document& doc, std::uint64_t entity_count) override {
        return write_head(doc, entity_count);
    }
    Result<void> item(Document& doc, NodeId entity, std::uint64_t index) override {
        return write_item(doc, entity, index);
    }
    Result<void> tail(Document& doc) override { return write_tail(doc); }

    Result<void> write_head(const Document& doc, std::uint64_t entity_count) {
        version_ = doc.version();
        if (version_ < 1 || version_ > k_current_version)
            return fail({}, fmt::format("expected a version from 1 to {}, found {}",
                                        k_current_version, version_));
        const NodeId metadata = doc.child(doc.root(), k_metadata);
        if (metadata == k_no_node) return fail(std::string(k_metadata), "expected a metadata node");
        if (entity_count > 0xFFFF'FFFFu)
            return fail(std::string(k_entities), "too many entities for a 32-bit count");
        const std::string_view raw = doc.value(metadata);
        if (raw.size() > 0xFFFF'FFFFu)
            return fail(std::string(k_metadata), "the block is too large");
        w_.head(version_, raw);
        w_.u32(static_cast<std::uint32_t>(entity_count));
        return drain(false);
    }

    Result<void> write_item(const Document& doc, NodeId entity, std::uint64_t index) {
        // An entity as read, not edited since (a migration that leaves it alone): its bytes are
        // its encoding, the same in every version (formats/README.md §1.1), copied. The debug
        // build encodes it all the same and checks that the two agree.
        const bool as_read = doc.part() == Document::Part::item && doc.unedited();
        const Span span = doc.node(entity).span;
#ifdef NDEBUG
        if (as_read) {
            w_.bytes(doc.source_bytes().substr(span.offset, span.length));
            return drain(false);
        }
#else
        const std::size_t start = w_.size();
#endif
        auto path = [&](NodeId component, NodeId property) {
            std::string p(k_entities);
            append_path_index(p, index);
            if (component != k_no_node) append_path_name(p, doc.name(component));
            if (property != k_no_node) append_path_name(p, doc.name(property));
            return p;
        };
        if (!string16(doc.name(entity)))
            return too_long(path(k_no_node, k_no_node), "entity name", doc.name(entity).size());
        // One pass over the children: each count is written as a placeholder, then patched.
        const std::size_t components_at = w_.size();
        w_.u16(0);
        std::size_t components = 0;
        for (NodeId component : doc.children(entity)) {
            if (++components > k_max_u16)
                return too_many(path(k_no_node, k_no_node), "components", doc.child_count(entity));
            if (!string16(doc.name(component)))
                return too_long(path(component, k_no_node), "component type",
                                doc.name(component).size());
            const std::size_t properties_at = w_.size();
            w_.u16(0);
            std::size_t properties = 0;
            for (NodeId property : doc.children(component)) {
                if (++properties > k_max_u16)
                    return too_many(path(component, k_no_node), "properties",
                                    doc.child_count(component));
                const std::string_view key = doc.name(property), value = doc.value(property);
                if (const int refused = w_.pair16(key, value); refused != 0)
                    return too_long(path(component, property), refused == 1 ? "key" : "value",
                                    refused == 1 ? key.size() : value.size());
            }
            w_.patch_u16(properties_at, static_cast<std::uint16_t>(properties));
        }
        w_.patch_u16(components_at, static_cast<std::uint16_t>(components));
#ifndef NDEBUG
        // (Unless the file was cut short under its mapping while it was read: then neither is
        // the file's, and the caller drops the output: changed_while_read.)
        assert(!as_read || (doc.source() && doc.source()->changed()) ||
               w_.view().substr(start) == doc.source_bytes().substr(span.offset, span.length));
#endif
        return drain(false);
    }

    Result<void> write_tail(const Document& doc) {
        const NodeId root = doc.root();
        const NodeId custom = doc.child(root, k_custom_state);
        const bool absent = custom == k_no_node || ((doc.node(custom).flags & k_flag_absent) &&
                                                    doc.child_count(custom) == 0);
        if (!absent || current_rules(version_)) {
            std::uint64_t count = custom == k_no_node ? 0 : doc.child_count(custom);
            if (custom != k_no_node && !doc.value(custom).empty()) {
                // A v1/v2 file whose last pair was cut short keeps its declared count (spec.hpp).
                std::string_view declared = doc.value(custom);
                auto [p, ec] =
                    std::from_chars(declared.data(), declared.data() + declared.size(), count);
                if (ec != std::errc() || p != declared.data() + declared.size() ||
                    count > 0xFFFF'FFFFu)
                    return fail(std::string(k_custom_state),
                                "expected a declared count, found " + display(declared, true));
            }
            w_.u32(static_cast<std::uint32_t>(count));
            if (custom != k_no_node) {
                for (NodeId p : doc.children(custom)) {
                    std::string path(k_custom_state);
                    if (!string16(doc.name(p))) {
                        append_path_name(path, doc.name(p));
                        return too_long(path, "key", doc.name(p).size());
                    }
                    if (!string16(doc.value(p))) {
                        append_path_name(path, doc.name(p));
                        return too_long(path, "value", doc.value(p).size());
                    }
                }
            }
        }
        if (NodeId trailing = doc.child(root, k_trailing); trailing != k_no_node)
            w_.bytes(doc.value(trailing));
        return drain(true);
    }

    std::string take() && {
        return std::move(w_).take();
    }

  private:
    // Hands full blocks to emit (keeping the running CRC); at the end, appends the v4 trailer.
    Result<void> drain(bool end) {
        if (end && version_ == k_current_version) w_.trailer(crc_);
        if (!emit_ || (!end && w_.size() < (1u << 20))) return {};
        crc_ = crc32_update(crc_, w_.view());
        auto r = emit_(w_.view());
        w_.clear();
        return r;
    }
    bool string16(std::string_view s) {
        return w_.string16(s);
    }
    static Error fail(std::string path, std::string message) {
        return make_error(ErrorCode::bad_value, std::move(message), k_no_offset, std::move(path));
    }

    Encoder w_;
    std::function<Result<void>(std::string_view)> emit_;
    std::uint32_t version_ = 0;
    std::uint32_t crc_ = 0;
};

} // namespace

Error too_long(std::string path, std::string_view what, std::size_t size) {
    return make_error(
        ErrorCode::bad_value,
        fmt::format("expected a {} of at most {} bytes, found {}", what, k_max_u16, size),
        k_no_offset, std::move(path));
}

Error too_many(std::string path, std::string_view what, std::size_t n) {
    return make_error(ErrorCode::bad_value,
                      fmt::format("expected at most {} {}, found {}", k_max_u16, what, n),
                      k_no_offset, std::move(path));
}

Result<std::string> write(const Document& doc) {
    const NodeId entities = doc.child(doc.root(), k_entities);
    if (entities == k_no_node)
        return make_error(ErrorCode::bad_value, "expected an entities node", k_no_offset,
                          std::string(k_entities));
    Writer w(doc.source_bytes().size() + 64);
    if (auto r = w.write_head(doc, doc.child_count(entities)); !r) return r.error();
    std::uint64_t index = 0;
    for (NodeId entity : doc.children(entities))
        if (auto r = w.write_item(doc, entity, index++); !r) return r.error();
    if (auto r = w.write_tail(doc); !r) return r.error();
    return std::move(w).take();
}

std::unique_ptr<Parts> part_writer(std::function<Result<void>(std::string_view)> emit) {
    return std::make_unique<Writer>(std::size_t{2} << 20, std::move(emit));
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
