// Writing the tree back to tess world archive bytes (layout: spec.hpp, formats/README.md
// §4.1, 4.2). The body size and the CRC-32 are recomputed, the field and chunk counts are the
// lists' lengths; everything else comes from the tree as it is.
#include "rules.hpp"

#include "api.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <charconv>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

namespace {

class Writer {
  public:
    explicit Writer(const Document& doc) : doc_(doc), w_(doc.source_bytes().size() + 64) {}

    Result<std::string> run() {
        const std::uint32_t version = doc_.version();
        if (version != k_current_version && version != k_retired_version)
            return fail({}, fmt::format("expected format version 1 or 2, found {}", version));
        const NodeId root = doc_.root();
        const NodeId header = doc_.child(root, k_header);
        const NodeId fields = doc_.child(root, k_fields);
        const NodeId chunks = doc_.child(root, k_chunks);
        if (header == k_no_node) return fail(std::string(k_header), "expected a header node");
        if (fields == k_no_node) return fail(std::string(k_fields), "expected a fields list");
        if (chunks == k_no_node) return fail(std::string(k_chunks), "expected a chunks list");

        w_.bytes(k_magic);
        w_.u32(version);
        w_.u32(0); // body size, patched below
        w_.u32(0);
        w_.u32(0); // CRC-32, patched below
        const std::string h(k_header);
        for (std::string_view group : {k_world_size, k_chunk_size}) {
            const NodeId n = doc_.child(header, group);
            for (std::string_view axis : k_axes)
                if (auto r = u64(n, axis, h + "." + std::string(group)); !r) return r.error();
        }
        if (auto r = coded(header, k_lattice, h, 0xFFFF'FFFFu, 4); !r) return r.error();
        if (auto r = u32(header, k_lattice_version, h); !r) return r.error();
        if (auto r = u32(header, k_key_layout_version, h); !r) return r.error();
        if (auto r = u64(header, k_schema_id, h); !r) return r.error();
        if (auto r = u32(header, k_schema_version, h); !r) return r.error();
        const NodeId library = doc_.child(header, k_library_version);
        for (std::string_view part : k_library_parts)
            if (auto r = u32(library, part, h + "." + std::string(k_library_version)); !r)
                return r.error();
        if (auto r = coded(header, k_residency, h, 0xFF, 1); !r) return r.error();
        const std::size_t field_count = doc_.child_count(fields);
        if (field_count > 0xFFFF'FFFFu)
            return fail(std::string(k_fields), "too many fields for a 32-bit count");
        w_.u32(static_cast<std::uint32_t>(field_count));
        w_.u64(doc_.child_count(chunks));

        std::uint64_t index = 0;
        for (NodeId d : doc_.children(fields)) {
            std::string path(k_fields);
            append_path_index(path, index++);
            if (auto r = u64(d, k_id, path); !r) return r.error();
            if (auto r = u32(d, k_version, path); !r) return r.error();
            if (auto r = coded(d, k_kind, path, 0xFF, 1); !r) return r.error();
            if (auto r = u32(d, k_width, path); !r) return r.error();
        }
        index = 0;
        for (NodeId c : doc_.children(chunks)) {
            const std::string path = chunk_path(index++);
            if (auto r = u64(c, k_key, path); !r) return r.error();
            const NodeId state = doc_.child(c, k_state);
            if (version == k_retired_version) {
                if (auto r = coded(c, k_state, path, 0xFF, 1); !r) return r.error();
            } else if (state != k_no_node) {
                return fail(path + ".state",
                            "expected no chunk state: version 2 records have none (4.2)");
            }
            if (auto r = u32(c, k_active_mask, path); !r) return r.error();
            if (auto r = u32(c, k_entity_count, path); !r) return r.error();
            const NodeId columns = doc_.child(c, k_fields);
            if (columns == k_no_node)
                return fail(path + ".fields", "expected the chunk's column list");
            for (NodeId column : doc_.children(columns)) {
                if (doc_.node(column).kind != NodeKind::column)
                    return fail(path + ".fields", "expected columns of packed values");
                w_.bytes(doc_.value(column));
            }
        }
        if (NodeId trailing = doc_.child(root, k_trailing); trailing != k_no_node)
            w_.bytes(doc_.value(trailing));

        const std::uint64_t body = w_.size() - k_header_size;
        w_.patch_u32(k_off_body_size, static_cast<std::uint32_t>(body));
        w_.patch_u32(k_off_body_size + 4, static_cast<std::uint32_t>(body >> 32));
        const std::string_view bytes = w_.view();
        w_.patch_u32(k_off_checksum, crc32_update(crc32(bytes.substr(0, k_off_checksum)),
                                                  bytes.substr(k_off_checksum + 4)));
        return std::move(w_).take();
    }

  private:
    // The number a node's text spells: decimal, or hex after 0x (as the reader writes ids).
    Result<std::uint64_t> number(NodeId parent, std::string_view name, const std::string& path,
                                 std::uint64_t max) {
        std::string p = path;
        append_path_name(p, name);
        const NodeId n = parent == k_no_node ? k_no_node : doc_.child(parent, name);
        if (n == k_no_node) return fail(p, "expected this field, found none");
        std::string_view t = doc_.value(n);
        int base = 10;
        if (t.starts_with("0x")) {
            t.remove_prefix(2);
            base = 16;
        }
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
        if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v > max)
            return fail(p, fmt::format("expected an integer from 0 to {}, found {}", max,
                                       display(doc_.value(n), true)));
        return v;
    }
    Result<void> u64(NodeId parent, std::string_view name, const std::string& path) {
        auto v = number(parent, name, path, ~std::uint64_t{0});
        if (!v) return v.error();
        w_.u64(*v);
        return {};
    }
    Result<void> u32(NodeId parent, std::string_view name, const std::string& path) {
        auto v = number(parent, name, path, 0xFFFF'FFFFu);
        if (!v) return v.error();
        w_.u32(static_cast<std::uint32_t>(*v));
        return {};
    }
    // A coded field shown by name when known (lattice, residency, kind), else by number.
    Result<void> coded(NodeId parent, std::string_view name, const std::string& path,
                       std::uint64_t max, int width) {
        const NodeId n = doc_.child(parent, name);
        std::uint64_t v = 0;
        bool named = false;
        if (n != k_no_node) {
            const std::string_view t = doc_.value(n);
            for (std::uint32_t code : {k_lattice_orthogonal, k_lattice_hex_axial})
                if (name == k_lattice && t == lattice_name(code)) v = code, named = true;
            for (std::uint32_t code : {k_residency_dense, k_residency_sparse})
                if (name == k_residency && t == residency_name(code)) v = code, named = true;
            for (std::uint32_t code = k_kind_unsigned; code <= k_kind_bool; ++code)
                if (name == k_kind && t == kind_name(code)) v = code, named = true;
        }
        if (!named) {
            auto r = number(parent, name, path, max);
            if (!r) return r.error();
            v = *r;
        }
        if (width == 1)
            w_.u8(static_cast<std::uint8_t>(v));
        else
            w_.u32(static_cast<std::uint32_t>(v));
        return {};
    }
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

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
