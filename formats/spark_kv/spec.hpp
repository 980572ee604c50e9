// spark-kv store (the SparkEngine AsyncDatabase file fallback): the grammar, the limits, the
// checks and the tree sparksave builds from it. Source of truth: formats/README.md section 3,
// written from the engine's own code (SparkEngine/Source/Engine/Persistence/AsyncDatabase.cpp and
// .h at 79bbd474: SQLiteConnection::LoadFromDisk, FlushToDisk, EscapeKVField, UnescapeKVField).
//
// Grammar (formats/README.md §3):
//
//   v2:      "#!spark-kv-v2\n" { escape(key) "\t" escape(value) "\n" }
//   legacy:  { key "\t" value "\n" }                    no marker line, no escaping
//
//   escape:  `\` -> `\\`, TAB -> `\t`, LF -> `\n`, CR -> `\r` (EscapeKVField); reading, exactly
//            these four sequences are decoded and any other backslash refuses the store
//            (UnescapeKVField).
//   line:    everything up to the next LF (std::getline); line 1 is the first line, the marker
//            when there is one. The key is the text before the line's FIRST TAB, the value
//            everything after it (a second TAB stays in the value, in v2 too).
//
// Versions (Document::version(), `migrate --to`): 1 = legacy (no marker line), 2 = v2 (the first
// line is exactly `#!spark-kv-v2`). Any other first line is a line of a legacy store.
//
// The current engine is fail-closed (LoadFromDisk): one bad line and Open() fails, the whole store
// is refused and left untouched, and the MMO module's Initialize fails ("Failed to open MMO
// database"): the server does not start. Every refusal is an error on its line, with the engine's
// own reason; Summary::engine_loads is exactly that verdict (the POSIX build's).
//
//   errors (the engine refuses the store)          code                 LoadFromDisk says
//   ---------------------------------------------  -------------------  ----------------------
//   the file above the store budget                too_large            size ... exceeds the
//                                                                       store budget
//   the last line without its LF (checked before   truncated            is not newline-
//     anything else on that line)                                      terminated
//   a line without a TAB, an empty one too         missing_tab          has no key/value
//                                                                       separator
//   a first line that is almost the marker         unsupported_version  (the same: no TAB)
//     (`#!spark-kv` plus anything: another
//     version, a CR, a byte order mark)
//   v2: a backslash that does not start `\\`,      bad_escape           contains an escape
//     `\t`, `\n` or `\r` (a lone one at the end                       sequence the writer
//     of a key or value too): the first of each                         never produces
//     key and value, with the count of the others
//   the line that brings the rewritten store       too_large            brings the rewritten
//     (marker line + every record escaped) over                         store over the store
//     the budget: once                                                  budget
//   a key seen before (compared decoded: `k<CR>`   duplicate_key        repeats a key
//     raw and `k\r` are one key)
//   more lines than sparksave reads                limit_exceeded       (a sparksave limit: the
//                                                                       verdict is not known)
//
//   warnings (the current POSIX engine loads it, but another build reads it otherwise)
//   ---------------------------------------------  -------------------
//   a CR ending a record's line: the POSIX build   carriage_return
//     keeps it as the value's last character, the
//     Windows build (LoadFromDisk's #ifdef _WIN32
//     step) strips it
//   the marker and a CR: the Windows build reads   carriage_return
//     it as the marker (v2), the POSIX build
//     refuses it (the error above)
//   legacy store: where the pre-marker reader      missing_tab,
//     (f3bb430d, which wrote legacy stores)        duplicate_key,
//     reads a refused line: it skipped a line      truncated
//     without a TAB, kept the last line of a key,
//     read a last line without its LF; this is
//     what `migrate` carries over
//   an unsubstituted `%<digits>` or `?<digits>`    placeholder_token
//     in a key or value: the database layer only
//     substitutes ?N tokens that have a bound
//     parameter, and the MMO code's %N tokens
//     pass through verbatim (all characters
//     collide on one literal key such as
//     `character_%1`); the first of each key and
//     value is reported
//   an MMO record that does not have its           record_shape
//     documented shape (below)
//
// The checks of a line follow LoadFromDisk's order (LF, TAB, escapes, budget, repeated key); a
// line without its LF gets no other check (the engine never looks at it), and a line with a bad
// escape no budget or repeated-key check (the engine stops at it). sparksave goes on after an
// error, so every refused line of the store is reported.
//
// MMO record conventions (formats/README.md §3). <id> is a decimal id, or an unsubstituted token
// (the placeholder bug above writes `character_%1` as a character record):
//   character_<id>   15 `|`-separated fields: name|accountId|level|xp|areaId|posX|posY|posZ|
//                    rotY|health|maxHealth|mana|maxMana|playTime|currency. 14 fields is the
//                    legacy form without accountId (a warning of its own: the current module
//                    expects 15); any other count is a warning.
//   inventory_<id>   `1|maxSlots|maxWeight|slotCount|slot:itemDefId:count,...`: 5 fields, the
//                    first `1`, slotCount a decimal count equal to the number of slot entries,
//                    each entry three decimal numbers separated by `:`. An empty slot list
//                    is 0 entries; one trailing comma after the last entry is accepted.
//   Other MMO keys (currency_<id>, rep_<c>_<faction>, ach_, craft_, recipe_, meta_next_
//   character_id, __schema_characters) have no documented value layout and are not checked.
//
// Findings carry line:column (1-based; the column counts bytes of the line, a TAB is one) and a
// node path (cut after 1 KiB: keys can be any length); their byte offset is left unset.
//
// The tree (lib/include/sparksave/document.hpp):
//
//   root          object; Document::version() 1 or 2; flag k_flag_no_final_newline when the
//                 file's last line has no LF (the writer then leaves it off). The marker line
//                 is not a node: version 2 means it is there.
//   records       object; one child per line after the marker, in file order (duplicates and
//                 lines without a TAB kept where they are). Span: from the first line after
//                 the marker to the end of the file.
//     <key>       a record: NodeKind::scalar named by its key, value = its value, both as the
//                 engine reads them (v2 escapes decoded; a bad escape, which the engine refuses,
//                 kept as its characters; a view into the file when the text holds no escape,
//                 a copy in the document's arena when it does). Type string.
//                 Span: the whole line without its LF. The writer reuses that exact text
//                 while it still reads back as the node's key and value (a literal TAB or CR in
//                 a v2 value, a bad escape), so any file is reproduced byte for byte; a
//                 migration clears the span to have the record written canonically.
//       views     MMO records also get children that are VIEWS of the value, flagged
//                 k_flag_view, for people and `dump --select records["character_7"].level`:
//                 character_<id> (14 or 15 fields): one scalar per field, named as above
//                 (the 14-field form has no accountId); inventory_<id> (5 fields): version,
//                 maxSlots, maxWeight, slotCount, and slots, a list of objects {slot, itemDefId,
//                 count} (an entry of another shape is a scalar with its text). Numbers are
//                 typed integer or floating by their text. The writer, the JSON and diff
//                 (which compares a record's value) never look at views; at most
//                 k_max_view_nodes are built per file.
//     ""          a line without a TAB: NodeKind::object with an empty name, flag
//                 k_flag_no_tab, tag k_no_tab_tag, and one scalar child `text` holding the
//                 line exactly. Findings name it by index: records[3].
//
// So node paths read as the engine names things: records["character_7"],
// records["character_7"].level, records.meta_next_character_id.
#pragma once

#include "sparksave/version.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

inline constexpr std::string_view k_marker = "#!spark-kv-v2"; // the whole first line of v2
// A first line starting with this (after a UTF-8 byte order mark, if any) is meant as a marker.
inline constexpr std::string_view k_marker_stem = "#!spark-kv";
inline constexpr std::string_view k_utf8_bom = "\xEF\xBB\xBF";

inline constexpr std::uint32_t k_version_legacy = 1;
inline constexpr std::uint32_t k_version_v2 = 2;
inline constexpr std::uint32_t k_current_version = k_version_v2;

// The engine's store budget (SQLiteConnection::kMaxStoreFileBytes, 1 GiB; the pool opens its
// connection with it): LoadFromDisk refuses a larger file, and a store whose rewrite (the marker
// line and every record escaped, what FlushToDisk would publish) is larger.
inline constexpr std::uint64_t k_store_budget = 1ull << 30;
// Limits of sparksave. A file above this is refused before it is read: it is the engine's budget,
// so every store the engine could load is read, and a larger one is one it refuses.
inline constexpr std::uint64_t k_max_file_size = k_store_budget;
// Lines (records and lines without a TAB): each is a tree node (about 40 bytes) and a key in the
// duplicate map, so this bounds a read at ~200 MB however short the lines are.
inline constexpr std::uint64_t k_max_lines = 2'000'000;
// View nodes (decoded MMO fields, spec above) per file: views are for people, and an inventory
// value can list millions of slots. Past this, records get no views (nothing is reported: the
// data is all in the records).
inline constexpr std::uint64_t k_max_view_nodes = 1'000'000;

// Format-local node flags (document.hpp's shared flags use the low bits).
inline constexpr std::uint8_t k_flag_no_tab = 0x80;           // a line without a TAB
inline constexpr std::uint8_t k_flag_view = 0x40;             // a view of a record's value
inline constexpr std::uint8_t k_flag_no_final_newline = 0x20; // root: the last line has no LF

// Tree node names.
inline constexpr std::string_view k_records = "records";
inline constexpr std::string_view k_text = "text";
inline constexpr std::string_view k_no_tab_tag =
    "line without a TAB (the engine refuses the store)";

// MMO record conventions (formats/README.md §3).
inline constexpr std::string_view k_character_prefix = "character_";
inline constexpr std::string_view k_inventory_prefix = "inventory_";
inline constexpr std::array<std::string_view, 15> k_character_fields = {
    "name", "accountId", "level",     "xp",   "areaId",  "posX",     "posY",    "posZ",
    "rotY", "health",    "maxHealth", "mana", "maxMana", "playTime", "currency"};
inline constexpr std::size_t k_character_field_count = 15;
inline constexpr std::size_t k_legacy_character_field_count = 14; // without accountId
inline constexpr std::array<std::string_view, 5> k_inventory_fields = {
    "version", "maxSlots", "maxWeight", "slotCount", "slots"};
inline constexpr std::string_view k_inventory_layout = "1"; // the first field
inline constexpr std::array<std::string_view, 3> k_slot_fields = {"slot", "itemDefId", "count"};
inline constexpr char k_field_separator = '|';
inline constexpr char k_slot_separator = ',';
inline constexpr char k_slot_part_separator = ':';

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
