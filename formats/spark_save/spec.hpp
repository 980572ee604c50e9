// SparkEngine `.spark_save`: the grammar, the limits and the tree sparksave builds from it.
// Source of truth: formats/README.md §1 (copied in spirit here, sections cited).
//
// Layout (formats/README.md §1.1), all integers little-endian:
//
//   offset 0   char[4]  "SPRK"
//   offset 4   u32      version                        1..4
//   offset 8   u32      metaSize
//   offset 12  bytes    metadata block (metaSize bytes of text, 1.2)
//              u32      entityCount
//              entity x entityCount:
//                u16 nameLen, name bytes
//                u16 componentCount
//                component x componentCount:
//                  u16 typeLen, type bytes
//                  u16 propertyCount
//                  property x propertyCount: u16 keyLen, key, u16 valueLen, value
//              u32      customStateCount              (optional in v1/v2, 1.4)
//              pair x customStateCount: u16 keyLen, key, u16 valueLen, value
//   v4 only:   u32      CRC-32 of every preceding byte (1.5)
//
// Metadata block (1.2): one field a line; strings read with getline, numbers with `>>`
// (modelled in extract.hpp). Its fields, their types and the version each appears in are the
// table k_meta_fields (metadata.hpp).
//
// The tree (lib/include/sparksave/document.hpp), root children in this order:
//
//   metadata      object; value = the raw block text (exact bytes), span = the block.
//                 children: one scalar per field of k_meta_fields in the file's version,
//                 typed as the table says; position an object of x y z; each
//                 child's value is the exact text the engine's `>>` takes for it (1.2: `4-1`
//                 is kills "4" and deaths "-1"; from the first number `>>` fails on, the
//                 whitespace-delimited word). A field the block lacks is absent.
//   entities      list; one object per entity, named by the entity name
//     <entity>    object; one object per component, named by the component type
//       <comp>    object; one string scalar per property, named by the key, in file order
//   customState   object; one string scalar per pair, in file order. Flag k_flag_absent: the
//                 file has no count (v1/v2). Value: the declared count, only when it differs
//                 from the pairs present (v1/v2 files whose last pair is cut short).
//   trailing      bytes after the data (v1/v2 only; v3/v4 files with them are invalid)
//   checksum      v4: the stored CRC-32 as 0x%08x (the writer recomputes it)
//
// The file's version is Document::version(), not a node.
#pragma once

#include "sparksave/spark_save_version.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// The format's --input-format name (its row, format.cpp, and its migration target, save_file.cpp).
inline constexpr std::string_view k_format_name = "spark_save";
inline constexpr std::string_view k_magic = "SPRK";
// k_current_version, k_oldest_loadable (1.4): sparksave/spark_save_version.hpp.

// Limits (formats/README.md §1.4), each the engine's own.
inline constexpr std::uint64_t k_min_file_size = 8;
inline constexpr std::uint64_t k_max_file_size = 512ull << 20;
inline constexpr std::uint32_t k_max_meta_size = 64u << 10; // v3/v4
inline constexpr std::uint32_t k_max_entities = 1'000'000;
inline constexpr std::uint32_t k_max_legacy_string = 4096; // the v1-era reader's name/type cap
inline constexpr std::uint32_t k_max_custom_state = 100'000;
inline constexpr std::uint64_t k_max_aggregate = (512ull << 20) / 4; // v3/v4 totals
inline constexpr std::uint16_t k_max_u16 = 0xFFFF;

// Smallest encodings, used to refuse a count before anything is allocated for it.
inline constexpr std::size_t k_min_entity_size = 4;    // nameLen + componentCount
inline constexpr std::size_t k_min_component_size = 4; // typeLen + propertyCount
inline constexpr std::size_t k_min_pair_size = 4;      // keyLen + valueLen

// Metadata fields (1.2): the table k_meta_fields in metadata.hpp.

// Component conventions (1.3).
inline constexpr std::string_view k_transform = "Transform";
inline constexpr std::string_view k_parent = "parent";
inline constexpr std::string_view k_name_component = "NameComponent";

// Tree node names.
inline constexpr std::string_view k_metadata = "metadata";
inline constexpr std::string_view k_entities = "entities";
inline constexpr std::string_view k_custom_state = "customState";
inline constexpr std::string_view k_trailing = "trailing";
inline constexpr std::string_view k_checksum = "checksum";

// Does the current engine apply the v3/v4 rules to this version (1.4)?
constexpr bool current_rules(std::uint32_t version) noexcept {
    return version >= 3;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
