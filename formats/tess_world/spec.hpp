// tess world archive: the grammar, the checks, the limits and the tree sparksave builds from it.
// Source of truth: formats/README.md §4 (sections cited below).
//
// Header (4.1), 121 bytes, the same in v1 and v2; all integers little-endian:
//
//   offset  size  field
//     0      8    magic 54 45 53 53 57 4C 44 00 ("TESSWLD\0")
//     8      4    format version u32                  2 current, 1 retired
//    12      8    body size u64                       = file size - 121
//    20      4    CRC-32 of bytes [0,20) then [24,end) (its own slot left out)
//    24     24    world size x, y, z                  u64 each
//    48     24    chunk size x, y, z                  u64 each
//    72      4    lattice id u32                      0x4F525448 orthogonal, 0x48455841 hex-axial
//    76      4    lattice version u32
//    80      4    key layout version u32              (1)
//    84      8    application schema id u64
//    92      4    application schema version u32
//    96     12    tess library version major, minor, patch (u32 each)
//   108      1    residency u8                        1 dense, 2 sparse
//   109      4    field count u32                     <= 1024
//   113      8    chunk count u64
//
// Body (4.2), from offset 121:
//
//   descriptor x fieldCount (17 bytes each):
//     id u64, version u32, kind u8 (1 unsigned, 2 signed, 3 float, 4 bool), width u32
//   record x chunkCount:
//     v2 prefix (16 bytes): key u64, active mask u32, entity count u32
//     v1 prefix (17 bytes): key u64, chunk state u8, active mask u32, entity count u32
//     then for each field, in descriptor order: tiles x width bytes of little-endian scalars,
//     tiles = chunk.x * chunk.y * chunk.z
//
// Checks (4.3), in this order, tess's own (parse_world_archive, then load_world_archive, in
// include/tess/persistence/archive.h of kindjie/tess); the first failure ends the read (a CRC
// mismatch does not when salvaging, so `dump` can still show the data). Each message ends with
// the tess status:
//
//   fewer than 8 bytes                               truncated          Truncated
//   wrong magic                                      bad_magic          InvalidMagic
//   fewer than 12 bytes                              truncated          Truncated
//   version 1                                        needs_migration    (warning; tess 0.13:
//                                                                        UnsupportedFormat; the
//                                                                        rest is read by the
//                                                                        0.12 reader's rules)
//   version other than 1 or 2                        unsupported_version UnsupportedFormat
//   fewer than 121 bytes                             truncated          Truncated
//   121 + bodySize overflows 64 bits                 size_mismatch      Corrupt
//   shorter than the declared body                   truncated          Truncated
//   longer than the declared body                    trailing_bytes     Corrupt
//   CRC-32 mismatch                                  checksum_mismatch  Corrupt
//   field count > 1024                               limit_exceeded     Corrupt
//   a zero world or chunk dimension                  bad_value          Corrupt
//   a world size not divisible by the chunk size     bad_value          Corrupt
//   residency not 1 or 2                             bad_value          Corrupt
//   descriptors, one by one: the body ends inside
//   one                                              truncated          Corrupt
//   a kind not 1..4, a width not 1/2/4/8, a bool
//   not 1 wide, a float not 4 or 8 wide, a repeated id bad_descriptor   Corrupt
//   the record-size equation, before any record:
//   tiles (chunk.x * chunk.y * chunk.z) overflow     size_mismatch      Corrupt
//   one record's size overflows                      size_mismatch      Corrupt
//   chunkCount x record size overflows or is not
//   the body after the descriptors (a missing or
//   short record, whole records left over)           size_mismatch      Corrupt
//   the logical chunk count prod(size/chunk)
//   overflows 64 bits (sparse too)                   limit_exceeded     Corrupt
//   a dense archive whose chunk count is not the
//   logical chunk count                              bad_chunk          InvalidChunk
//   per record: a key >= the logical chunk count, a
//   key not above the previous one, (v1) a chunk
//   state above 1                                    bad_chunk          InvalidChunk
//   a bool byte other than 0 or 1: the inspection
//   says Ok, the load refuses                        bad_value          Corrupt
//
// Beyond the checks, `info`'s verdict "tess loads it" is false, with the reason, where no tess
// world can load an archive that passes them (summarize.cpp): chunk dimensions that are not
// powers of two, a world axis above 2^63 - 1 (tess::Shape / ShapeTraits: ShapeMismatch), a key
// layout version other than 1 (KeyLayoutMismatch), no fields (FieldMismatch).
//
// The tree (lib/include/sparksave/document.hpp), root children in this order:
//
//   header            object, span [0,121); children in file order:
//     bodySize        unsigned (decimal)                  the writer recomputes it
//     checksum        unsigned, 0x%08x                    the writer recomputes it
//     worldSize       object: x y z (unsigned, decimal)
//     chunkSize       object: x y z
//     lattice         string: "orthogonal", "hex-axial", or the id as 0x%08x when unknown
//     latticeVersion  unsigned
//     keyLayoutVersion unsigned
//     schemaId        unsigned, 0x%016x
//     schemaVersion   unsigned
//     libraryVersion  object: major minor patch (unsigned)
//     residency       string: "dense", "sparse", or the byte in decimal when unknown
//     fieldCount      unsigned                            the writer counts `fields`
//     chunkCount      unsigned                            the writer counts `chunks`
//   fields            list, one object per descriptor:
//     [i]             id (0x%016x), version, kind ("unsigned", "signed", "float", "bool"),
//                     width (bytes)
//   chunks            list, one object per record, named by its key in decimal (so diff
//                     matches chunks by key: chunks[name=5])
//     [i] "<key>"     key, state (v1 only), activeMask (0x%08x), entityCount, then
//       fields        list of columns in descriptor order: NodeKind::column nodes whose value
//                     is the column's bytes in the file (column.hpp: type and tag give the
//                     element kind and width, "u8" ... "f64", "bool")
//   trailing          bytes after the last record: the reader never makes it (the
//                     record-size equation refuses such a file first), `pack` accepts it to
//                     build invalid files
//
// Node paths: header.worldSize.x, fields[0].kind, chunks[12].fields[0] (the column of field 0
// in the 13th record), and in diff chunks[name=12].fields[0][17] (tile 17 of that column).
// The file's version is Document::version(), not a node.
#pragma once

#include "sparksave/version.hpp"

#include <array>
#include <cstdint>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

inline constexpr std::string_view k_magic{"TESSWLD\0", 8};
inline constexpr std::uint32_t k_current_version = 2;
inline constexpr std::uint32_t k_retired_version = 1;

// Header layout (4.1).
inline constexpr std::size_t k_header_size = 121;
inline constexpr std::size_t k_off_version = 8;
inline constexpr std::size_t k_off_body_size = 12;
inline constexpr std::size_t k_off_checksum = 20;
inline constexpr std::size_t k_off_world = 24;
inline constexpr std::size_t k_off_chunk = 48;
inline constexpr std::size_t k_off_lattice = 72;
inline constexpr std::size_t k_off_lattice_version = 76;
inline constexpr std::size_t k_off_key_layout = 80;
inline constexpr std::size_t k_off_schema_id = 84;
inline constexpr std::size_t k_off_schema_version = 92;
inline constexpr std::size_t k_off_library = 96;
inline constexpr std::size_t k_off_residency = 108;
inline constexpr std::size_t k_off_field_count = 109;
inline constexpr std::size_t k_off_chunk_count = 113;

// Body layout (4.2).
inline constexpr std::size_t k_descriptor_size = 17;
inline constexpr std::size_t k_prefix_v2 = 16;
inline constexpr std::size_t k_prefix_v1 = 17; // the v1 chunk-state byte after the key
constexpr std::size_t prefix_size(std::uint32_t version) noexcept {
    return version == k_retired_version ? k_prefix_v1 : k_prefix_v2;
}

// Limits. tess's own (4.3): at most 1024 fields. sparksave's: a file is at most 256 MiB,
// because the tree costs up to about 12 bytes of memory per byte of a file of tiny records
// (five nodes for a 16-byte record) and the Document addresses less than 2 GiB; tess itself
// sets no size limit, and a world of that size is far beyond what a person inspects.
inline constexpr std::uint32_t k_max_fields = 1024;
inline constexpr std::uint64_t k_max_file_size = 256ull << 20;

// Lattice ids (4.1): "ORTH" and "HEXA" read as big-endian text, stored little-endian.
inline constexpr std::uint32_t k_lattice_orthogonal = 0x4F525448;
inline constexpr std::uint32_t k_lattice_hex_axial = 0x48455841;

// The v1 chunk-state byte (4.2): tess's ChunkState, 0 ResidentSleeping, 1 ResidentActive.
inline constexpr std::uint8_t k_chunk_state_max = 1;

inline constexpr std::uint8_t k_residency_dense = 1;
inline constexpr std::uint8_t k_residency_sparse = 2;

// Field kinds (4.2).
inline constexpr std::uint8_t k_kind_unsigned = 1;
inline constexpr std::uint8_t k_kind_signed = 2;
inline constexpr std::uint8_t k_kind_float = 3;
inline constexpr std::uint8_t k_kind_bool = 4;

// The tess status names, in tess's stable order 0..13 (4.3); messages end with the one tess
// would return, "(tess: Corrupt)".
enum class Status : std::uint8_t {
    ok,
    invalid_magic,
    unsupported_format,
    truncated,
    corrupt,
    shape_mismatch,
    lattice_mismatch,
    key_layout_mismatch,
    residency_mismatch,
    schema_mismatch,
    migration_required,
    field_mismatch,
    residency_capacity_exceeded,
    invalid_chunk,
};
inline constexpr std::array<std::string_view, 14> k_status_names = {"Ok",
                                                                    "InvalidMagic",
                                                                    "UnsupportedFormat",
                                                                    "Truncated",
                                                                    "Corrupt",
                                                                    "ShapeMismatch",
                                                                    "LatticeMismatch",
                                                                    "KeyLayoutMismatch",
                                                                    "ResidencyMismatch",
                                                                    "SchemaMismatch",
                                                                    "MigrationRequired",
                                                                    "FieldMismatch",
                                                                    "ResidencyCapacityExceeded",
                                                                    "InvalidChunk"};
constexpr std::string_view status_name(Status s) noexcept {
    return k_status_names[static_cast<std::size_t>(s)];
}

// Tree node names.
inline constexpr std::string_view k_header = "header";
inline constexpr std::string_view k_body_size = "bodySize";
inline constexpr std::string_view k_checksum = "checksum";
inline constexpr std::string_view k_world_size = "worldSize";
inline constexpr std::string_view k_chunk_size = "chunkSize";
inline constexpr std::string_view k_lattice = "lattice";
inline constexpr std::string_view k_lattice_version = "latticeVersion";
inline constexpr std::string_view k_key_layout_version = "keyLayoutVersion";
inline constexpr std::string_view k_schema_id = "schemaId";
inline constexpr std::string_view k_schema_version = "schemaVersion";
inline constexpr std::string_view k_library_version = "libraryVersion";
inline constexpr std::string_view k_residency = "residency";
inline constexpr std::string_view k_field_count = "fieldCount";
inline constexpr std::string_view k_chunk_count = "chunkCount";
inline constexpr std::string_view k_fields = "fields";
inline constexpr std::string_view k_chunks = "chunks";
inline constexpr std::string_view k_id = "id";
inline constexpr std::string_view k_version = "version";
inline constexpr std::string_view k_kind = "kind";
inline constexpr std::string_view k_width = "width";
inline constexpr std::string_view k_key = "key";
inline constexpr std::string_view k_state = "state";
inline constexpr std::string_view k_active_mask = "activeMask";
inline constexpr std::string_view k_entity_count = "entityCount";
inline constexpr std::string_view k_trailing = "trailing";
inline constexpr std::array<std::string_view, 3> k_axes = {"x", "y", "z"};
inline constexpr std::array<std::string_view, 3> k_library_parts = {"major", "minor", "patch"};

// Names shown for coded values; an unknown code is shown as a number.
constexpr std::string_view lattice_name(std::uint32_t id) noexcept {
    return id == k_lattice_orthogonal ? "orthogonal" : id == k_lattice_hex_axial ? "hex-axial" : "";
}
constexpr std::string_view residency_name(std::uint32_t r) noexcept {
    return r == k_residency_dense ? "dense" : r == k_residency_sparse ? "sparse" : "";
}
constexpr std::string_view kind_name(std::uint32_t k) noexcept {
    switch (k) {
    case k_kind_unsigned:
        return "unsigned";
    case k_kind_signed:
        return "signed";
    case k_kind_float:
        return "float";
    case k_kind_bool:
        return "bool";
    default:
        return "";
    }
}

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
