// The tess world archive rules the reader, the writer and pack share (formats/README.md §4): the
// header and descriptor records, the size arithmetic of 4.2, path builders and message helpers. The
// reader template (reader.hpp) includes this; files that only need a helper include this alone.
#pragma once

#include "common/finding.hpp"
#include "spec.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/column.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

// The header fields (4.1).
struct Header {
    std::uint32_t version = 0;
    std::uint64_t body_size = 0;
    std::uint32_t checksum = 0;
    std::array<std::uint64_t, 3> world{};
    std::array<std::uint64_t, 3> chunk{};
    std::uint32_t lattice = 0;
    std::uint32_t lattice_version = 0;
    std::uint32_t key_layout_version = 0;
    std::uint64_t schema_id = 0;
    std::uint32_t schema_version = 0;
    std::array<std::uint32_t, 3> library{};
    std::uint8_t residency = 0;
    std::uint32_t field_count = 0;
    std::uint64_t chunk_count = 0;
};

// Reads the header fields of `data` (at least k_header_size bytes).
inline Header parse_header(std::string_view data) {
    ByteReader r(as_bytes(data), k_off_version);
    Header h;
    h.version = r.u32();
    h.body_size = r.u64();
    h.checksum = r.u32();
    for (auto& v : h.world) v = r.u64();
    for (auto& v : h.chunk) v = r.u64();
    h.lattice = r.u32();
    h.lattice_version = r.u32();
    h.key_layout_version = r.u32();
    h.schema_id = r.u64();
    h.schema_version = r.u32();
    for (auto& v : h.library) v = r.u32();
    h.residency = r.u8();
    h.field_count = r.u32();
    h.chunk_count = r.u64();
    return h;
}

// One field descriptor (4.2).
struct Descriptor {
    std::uint64_t id = 0;
    std::uint32_t version = 0;
    std::uint8_t kind = 0;
    std::uint32_t width = 0;
};

// The column type of a descriptor (invalid when its kind and width make none).
inline ColumnType descriptor_type(std::uint32_t kind, std::uint64_t width) noexcept {
    switch (kind) {
    case k_kind_unsigned:
        return make_column_type(ValueType::unsigned_integer, width);
    case k_kind_signed:
        return make_column_type(ValueType::integer, width);
    case k_kind_float:
        return make_column_type(ValueType::floating, width);
    case k_kind_bool:
        return make_column_type(ValueType::boolean, width);
    default:
        return {};
    }
}

// The prefix of one chunk record (4.2).
struct ChunkPrefix {
    std::uint64_t key = 0;
    std::optional<std::uint8_t> state; // v1 only
    std::uint32_t active_mask = 0;
    std::uint32_t entity_count = 0;
};

// a * b, or nullopt when it does not fit in 64 bits (checked by division, never by wrapping).
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) return std::nullopt;
    return a * b;
}

// tiles = chunk.x * chunk.y * chunk.z (4.2); nullopt when it overflows.
inline std::optional<std::uint64_t> tiles_of(const Header& h) noexcept {
    std::optional<std::uint64_t> t = 1;
    for (std::uint64_t c : h.chunk)
        if (t) t = checked_mul(*t, c);
    return t;
}

// The logical chunk count prod(size / chunk) (4.2); nullopt when it overflows or a chunk
// dimension is zero.
inline std::optional<std::uint64_t> logical_chunks(const Header& h) noexcept {
    std::optional<std::uint64_t> n = 1;
    for (std::size_t i = 0; i < 3; ++i) {
        if (h.chunk[i] == 0) return std::nullopt;
        if (n) n = checked_mul(*n, h.world[i] / h.chunk[i]);
    }
    return n;
}

// "1 tile", "4 tiles"; "more than 2^64 tiles" for a count that overflowed.
inline std::string tile_count(std::optional<std::uint64_t> n) {
    if (!n) return "more than 2^64 tiles";
    return fmt::format("{} {}", *n, *n == 1 ? "tile" : "tiles");
}

// "chunks[3]", "chunks[3].fields[1][17]".
inline std::string chunk_path(std::uint64_t chunk) {
    std::string p(k_chunks);
    append_path_index(p, chunk);
    return p;
}

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
