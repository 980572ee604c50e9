// spark-kv store (the SparkEngine AsyncDatabase file fallback): the grammar, the limits, the
// checks and the tree sparksave builds from it. Source of truth: formats/README.md
// section 3 (and the AsyncDatabase notes it was worked out from).
//
// Grammar (formats/README.md §3):
//
//   v2:      "#!spark-kv-v2\n" { escape(key) "\t" escape(value) "\n" }
//   legacy:  { key "\t" value "\n" }                    no marker line, no escaping
//
//   escape:  `\` -> `\\`, TAB -> `\t`, LF -> `\n`. CR is not escaped. On read, an unknown `\x`
//            sequence is kept verbatim (both characters); sparksave reads a backslash that ends
//            a key or value the same way (kept, as the engine keeps what it does not know).
//   line:    everything up to the next LF. The key is the text before the line's FIRST TAB,
//            the value everything after it (a second TAB stays in the value).
//
// Versions (Document::version(), `migrate --to`): 1 = legacy (no marker line), 2 = v2 (the first
// line is exactly `#!spark-kv-v2`). The engine reads any other first line as the start of a
// legacy store.
//
// What the engine does with what it reads, and so what verify reports (formats/README.md §3):
//
//   errors (the engine misreads the store)         code
//   ---------------------------------------------  -------------------
//   v2: a backslash that does not start `\\`,      bad_escape
//     `\t` or `\n` (an unknown escape, or one
//     that ends the key or value): the engine
//     keeps it verbatim, so a writer that meant
//     an escape (`\r`, `\"`, `\0`, `\x41`, a
//     legacy value given a marker without being
//     escaped) gets its text mangled. The first
//     one of each key and value is reported,
//     with the count of the others.
//   a first line that is almost the marker         unsupported_version
//     (`#!spark-kv` plus anything else: another
//     version, a CR, a byte order mark): the
//     engine does not recognise it, skips it as a
//     line without a TAB and reads the store as
//     legacy, decoding no escape
//   more than the limits below                     too_large, limit_exceeded
//
//   warnings (the engine loads the store, but ...)
//   ---------------------------------------------  -------------------
//   a non-empty line without a TAB: the engine     missing_tab
//     silently skips it (its text is lost at the
//     store's next rewrite). An empty line holds
//     nothing and is not reported.
//   a key seen before: the last line of a key      duplicate_key
//     wins; reported at the later line, naming
//     the earlier line that is lost
//   a CR in a key or value: kept by the engine     carriage_return
//     (CR is not escaped), usually a file that
//     was converted to CRLF line ends
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
//                 engine reads them (v2 escapes decoded; a view into the file when the text
//                 holds no escape, a copy in the document's arena when it does). Type string.
//                 Span: the whole line without its LF. The writer reuses that exact text
//                 while it still reads back as the node's key and value (non-canonical
//                 escapes, a literal TAB in a v2 value), so any file is reproduced byte for
//                 byte; a migration clears the span to have the record written canonically.
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

namespace sparksave::inline SPARKSAVE_ABI::spark_kv {

inline constexpr std::string_view k_marker = "#!spark-kv-v2"; // the whole first line of v2
// A first line starting with this (after a UTF-8 byte order mark, if any) is meant as a marker.
inline constexpr std::string_view k_marker_stem = "#!spark-kv";
inline constexpr std::string_view k_utf8_bom = "\xEF\xBB\xBF";

inline constexpr std::uint32_t k_version_legacy = 1;
inline constexpr std::uint32_t k_version_v2 = 2;
inline constexpr std::uint32_t k_current_version = k_version_v2;

// Limits. The engine has none; these keep a hostile file from costing more than a real store.
// A file above this is refused before it is read: the engine keeps the whole store in memory
// and rewrites it whole on every change (formats/README.md §3), so real stores (an MMO's
// characters, inventories, reputations) are kilobytes to a few megabytes.
inline constexpr std::uint64_t k_max_file_size = 64ull << 20;
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
inline constexpr std::string_view k_no_tab_tag = "line without a TAB (skipped by the engine)";

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

} // namespace sparksave::spark_kv
