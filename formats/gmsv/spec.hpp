// GMSV save (the ECS save-system design of seed 003): the grammar, the checks, the limits and
// the tree sparksave builds from it. Source of truth: formats/README.md §5; the
// design itself is ../shared/seeds/003_*.txt (C#, .NET BinaryWriter, little-endian).
//
// Layout (5):
//
//   0x00  4   magic "GMSV"
//   0x04  2   schema version u16                    1..3 (the design's SaveVersion.Current: 3)
//   0x06  8   timestamp i64                         DateTime.UtcNow.ToBinary()
//   0x0E  4   entity count i32                      the data section starts here
//   0x12      entity x count:
//               16 bytes GUID (StableId)
//               u16 component count
//               component x count:
//                 u16 type id, i32 data length N,
//                 N bytes of component data        the data section ends here
//   end   4   CRC-32 of the data section (exactly the bytes from 0x0E to here)
//
// Component type ids (5): 1 Position, 2 Health, 3 Inventory, 4 StableId; ids are never reused.
// Component data is UTF-8 JSON (System.Text.Json, debug builds) or packed binary (release).
//
// GUIDs are printed in the standard 8-4-4-4-12 form from the .NET Guid.ToByteArray() layout,
// the one a C# BinaryWriter writes for a Guid: Data1 (4 bytes), Data2 and Data3 (2 bytes each)
// little-endian, then the last 8 bytes in order. So bytes 33 22 11 00 55 44 77 66 88 99 aa bb
// cc dd ee ff print as 00112233-4455-6677-8899-aabbccddeeff, as Guid.ToString() does.
//
// Timestamps (DateTime.ToBinary, 5): the top two bits are the Kind, the low 62 bits ticks of
// 100 ns since 0001-01-01T00:00:00. 00 Unspecified: local wall-clock ticks of no known zone,
// printed without a zone. 01 Utc: printed with Z. 1x Local: ToBinary stores the UTC ticks (it
// subtracts the saving machine's offset, wrapping a negative result by 2^62), so the UTC
// instant is printed with Z and the kind says "local"; the offset itself is not in the file.
// Ticks past 9999-12-31T23:59:59.9999999 (DateTime.FromBinary throws) are a warning.
//
// Checks, in file order (warn.: a warning):
//   fewer than 4 bytes, the 14-byte header or the entity count          truncated
//   magic other than "GMSV"                                             bad_magic
//   a version other than 1..3                                           unsupported_version
//   ticks outside 0001..9999 (FromBinary throws)                        bad_value (warn.)
//   a negative entity count or component data length                    bad_value
//   a count or length that runs past the end of the file                truncated
//   a component type id the design does not register (a reader
//     without it throws on _readers[typeId])                            unknown_type
//   the same component type twice in one entity (the design keys an
//     entity's components by type id)                                   duplicate_component (warn.)
//   the same GUID on two entities (EntityIdMap keeps only the last)     duplicate_key (warn.)
//   no 4-byte CRC-32 after the entity table                             truncated
//   a CRC-32 that does not match the data section                       checksum_mismatch
//   bytes after the CRC-32 (the design reader stops and ignores them)   trailing_bytes (warn.)
//
// The tree (lib/include/sparksave/document.hpp), root children in this order:
//
//   timestamp       object, span the 8 bytes:
//     binary        integer: the stored i64 in decimal (what the writer writes)
//     kind          string: "utc", "local" or "unspecified"
//     time          string: ISO-8601 with 7 fractional digits, "2023-11-14T22:13:20.0000000Z"
//                   (absent when the ticks are out of range)
//   entities        list, span from the entity count to the end of the table; one object per
//                   entity, named by its GUID (so diff matches entities by GUID)
//     [i] "<guid>"  one child per component record, in file order, named by type: Position,
//                   Health, Inventory, StableId, or type<N> for an unknown id N; span = the
//                   whole record (type id, length, data)
//       <Type>      binary data: a bytes node (value = the data)
//                   JSON data (gmsv/tree.hpp: exactly one JSON object, nothing around it): an
//                   object tagged "json" whose value is the data and whose children are the
//                   object's members as a tree (objects, lists, decoded strings, numbers with
//                   their exact text, true/false/null)
//   checksum        unsigned, 0x%08x: the stored CRC-32 (the writer recomputes it)
//   trailing        bytes after the checksum, when there are any
//
// Node paths: entities[0].Position.X, entities[name=00112233-4455-6677-8899-aabbccddeeff].Health.
// The file's version is Document::version(), not a node.
#pragma once

#include "sparksave/version.hpp"

#include <array>
#include <cstdint>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

inline constexpr std::string_view k_magic = "GMSV";
inline constexpr std::uint32_t k_current_version = 3;
inline constexpr std::uint32_t k_oldest_version = 1;

inline constexpr std::size_t k_off_version = 4;
inline constexpr std::size_t k_off_timestamp = 6;
inline constexpr std::size_t k_off_data = 0x0E; // the entity count: the CRC-32 starts here
inline constexpr std::size_t k_guid_size = 16;
inline constexpr std::size_t k_min_entity_size = 18;   // GUID + component count
inline constexpr std::size_t k_min_component_size = 6; // type id + data length

// Limits. The design sets none (its reader holds the data section in one byte[]). sparksave's:
// a file is at most 128 MiB, because the tree of JSON component data costs up to about 20 bytes
// of memory per byte of data; a save of an ECS world of that size is far beyond the design's.
// JSON data nests at most 64 levels to be shown as a tree (a record struct nests one or two);
// deeper data is shown as bytes, which keeps every recursion over the tree shallow.
inline constexpr std::uint64_t k_max_file_size = 128ull << 20;
inline constexpr std::size_t k_max_json_depth = 64;

// Component type ids (5).
inline constexpr std::uint16_t k_type_position = 1;
inline constexpr std::uint16_t k_type_health = 2;
inline constexpr std::uint16_t k_type_inventory = 3;
inline constexpr std::uint16_t k_type_stable_id = 4;
inline constexpr std::array<std::string_view, 5> k_type_names = {"", "Position", "Health",
                                                                 "Inventory", "StableId"};

// Tree node names and tags.
inline constexpr std::string_view k_timestamp = "timestamp";
inline constexpr std::string_view k_binary = "binary";
inline constexpr std::string_view k_kind = "kind";
inline constexpr std::string_view k_time = "time";
inline constexpr std::string_view k_entities = "entities";
inline constexpr std::string_view k_checksum = "checksum";
inline constexpr std::string_view k_trailing = "trailing";
inline constexpr std::string_view k_json_tag = "json";

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
