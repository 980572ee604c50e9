// PgEngine / ColumbaEngine text archive (`.sz`): the grammar, the limits, the checks and the
// tree sparksave builds from it. Source of truth: ../shared/spec/FORMATS.md section 2.
//
// Grammar (FORMATS.md 2), as the engine's Serializer writes it:
//
//   file       := VERSION "\n" { entry }
//   VERSION    := "1.0.0"                               the whole first line
//   entry      := NAME ": " body "\n"                   one per top-level object
//   body       := attribute | class
//   attribute  := "__PGSA " TYPE " {" VALUE "}"
//   class      := CLASSNAME " {" "\n" [ child { ",\n" child } "\n" ] INDENT(d-1) "}"
//   child      := INDENT(d) [ NAME ": " ] ( attribute | class )
//   INDENT(d)  := d TAB characters; a top-level entry's children are at depth 1
//
// - A comma follows every child except the last of its class (also after a nested class's
//   closing brace: `},`). No comma after `{`, no trailing comma, none at the top level. LF only.
// - TYPE is bool, int, unsigned int, size_t, float, double or string (the writer's types).
// - VALUE is everything between the first `{` after the type and the LAST `}` of the line,
//   verbatim: no escaping, so `{`, `}`, `,`, `: ` and `__PGSA` survive inside one line.
// - Containers: std::vector -> class `Vector` (unnamed children); unordered_map -> class
//   `UnorderedMap` { nbElements: size_t, key0, value0, key1, value1, ... }; math types ->
//   `Vector 2D/3D/4D` { x, y[, z[, w]]: float }; the key-value save data -> `SaveData`
//   { nbValue: size_t, id0: string, value0: ElementType { type: string, data }, ... }.
//
// How the line shapes are told apart (so that every file the writer produced reads back to a
// tree that writes the same bytes):
//   - `}` or `},` after the indentation closes the innermost class;
//   - a line whose text (after the indentation) starts with `__PGSA ` is an unnamed attribute;
//     one that contains `: __PGSA ` is a named attribute whose name is the text before the
//     FIRST `: __PGSA ` (a name may itself contain `: `, FORMATS.md 2 edge cases);
//   - a line ending in ` {` is a class header; its name is the text before the first `: `
//     (the engine splits there too), the rest is the class name (which may contain spaces);
//   - anything else breaks the grammar.
//   TYPE is the text between `__PGSA ` and the first `{`, minus the one space before the `{`.
//
// What the engine's reader does with what it reads (FORMATS.md 2), and so what verify reports:
//
//   errors (the engine loses data or fails)        code
//   ---------------------------------------------  -------------------
//   the version line is not exactly 1.0.0: the     unsupported_version
//     engine reads the archive as EMPTY, silently
//   a multi-line string value, written by the      multiline_value
//     engine as `,` + LF + indent per newline:
//     the engine cannot read it back (reported at
//     the line where the value starts)
//   a missing or extra comma, a closing brace      bad_syntax
//     with no open class, a line of no known
//     shape, a class line with two `: `, an
//     unnamed top-level entry
//   indentation that is not the nesting depth      bad_indent
//   the file ends inside a class or a value, or    truncated
//     without its final LF
//   nbElements / nbValue disagreeing with the      count_mismatch
//     key/value pairs present, or pairs not named
//     key0, value0, key1, ... in order
//   a value that does not fit its type: bool not   bad_value
//     true/false, an integer out of range, a float
//     or double that is not a finite number; and
//     in the containers above, a field of a type
//     the engine's reader refuses (Vector 2D.x not
//     float, an ElementType whose data does not
//     match its type, ...)
//   more nesting, nodes or distinct names than     limit_exceeded
//     the limits below (reading stops there)
//
//   warnings (the engine loads the file, but ...)
//   ---------------------------------------------  -------------------
//   a name containing `: ` (the engine cuts it at  name_cut
//     the first `: `; the message names what it
//     reads instead)
//   `__PGSA` inside a value                        marker_in_value
//   a type name the engine's reader accepts only   type_alias
//     by aliasing: its integer readers take int,
//     unsigned int and size_t for one another.
//     Reported where the reader's type is known
//     (the container fields above): elsewhere the
//     game's own reader decides, and all three are
//     valid integer types
//   a type name outside the seven above (no        unknown_type
//     standard reader accepts it)
//   two top-level entries the engine reads under   duplicate_key
//     one name: it keeps a hash map, so the LAST
//     one wins; each earlier one is reported
//
// Value fit (bad_value), strictly on the text: bool is `true` or `false`; int, unsigned int and
// size_t are an optional sign (`-` only for int) and decimal digits within the type's range;
// float and double parse whole (std::from_chars, an optional leading `+`) to a finite value of
// the type. Whitespace around a number does not fit. string takes anything.
//
// Findings carry line:column (1-based; the column counts bytes, a TAB is one) and a node path
// (cut after 1 KiB: names can be any length); their byte offset is left unset.
//
// The tree (lib/include/sparksave/document.hpp):
//
//   root          object; value = the version line, exact (normally `1.0.0`);
//                 Document::version() is 1 when the line is 1.0.0, else 0.
//   children of the root: the top-level entries, in file order (duplicates kept).
//   attribute     NodeKind::scalar, named by its NAME; value = the exact VALUE text (for a
//                 corrupted multi-line value: every byte from after `{` to the last `}`);
//                 tag = TYPE (Document::tag_id); type = ValueType by TYPE: bool -> boolean,
//                 int -> integer, unsigned int / size_t -> unsigned_integer, float / double ->
//                 floating, string -> string, any other -> none.
//   class         NodeKind::object (NodeKind::list when CLASSNAME is `Vector`), named by its
//                 NAME, tag = CLASSNAME; children in file order.
//   Unnamed children (Vector items) have an empty name. A child written with an empty name
//   (`: __PGSA int {1}`, what the writer makes of serialize(archive, "", x)) has an empty
//   name and the flag k_flag_empty_name, so the writer can tell the two apart.
//   Spans: from the first byte of the child's text after its indentation (the name, or the
//   body when unnamed) to the end of its body (the value's `}` or the class's closing `}`);
//   the comma and LF are not part of it.
//
// So node paths address the tree as the engine names it: `player.inner.hp`, `player.v[2]`,
// `["key with: colon"]`; findings name an unnamed child by its index (`model[0]`).
#pragma once

#include <cstdint>
#include <string_view>

namespace sparksave::text_archive {

// The one version line the engine reads (FORMATS.md 2); Document::version() 1.
inline constexpr std::string_view k_version_line = "1.0.0";
inline constexpr std::uint32_t k_current_version = 1;

inline constexpr std::string_view k_marker = "__PGSA"; // the attribute marker
inline constexpr std::string_view k_attribute_prefix = "__PGSA ";
inline constexpr std::string_view k_named_attribute = ": __PGSA ";
inline constexpr std::string_view k_name_separator = ": ";

// The writer's type names (FORMATS.md 2).
inline constexpr std::string_view k_type_bool = "bool";
inline constexpr std::string_view k_type_int = "int";
inline constexpr std::string_view k_type_unsigned = "unsigned int";
inline constexpr std::string_view k_type_size_t = "size_t";
inline constexpr std::string_view k_type_float = "float";
inline constexpr std::string_view k_type_double = "double";
inline constexpr std::string_view k_type_string = "string";

// Container classes (FORMATS.md 2).
inline constexpr std::string_view k_class_vector = "Vector";
inline constexpr std::string_view k_class_map = "UnorderedMap";
inline constexpr std::string_view k_map_count = "nbElements";
inline constexpr std::string_view k_map_key = "key";
inline constexpr std::string_view k_map_value = "value";
inline constexpr std::string_view k_class_save_data = "SaveData";
inline constexpr std::string_view k_save_data_count = "nbValue";
inline constexpr std::string_view k_save_data_key = "id";
inline constexpr std::string_view k_class_element = "ElementType";
inline constexpr std::string_view k_element_type = "type";
inline constexpr std::string_view k_element_data = "data";
inline constexpr std::string_view k_class_vector_2d = "Vector 2D";
inline constexpr std::string_view k_class_vector_3d = "Vector 3D";
inline constexpr std::string_view k_class_vector_4d = "Vector 4D";
inline constexpr std::string_view k_vector_components = "xyzw";

// Limits. The engine has none; these keep a hostile file from costing more than a real save.
// A file above this is refused before it is read: the engine's saves (savedata.sz, system.sz,
// scene files) are kilobytes to a few megabytes.
inline constexpr std::uint64_t k_max_file_size = 64ull << 20;
// Nesting depth (classes inside classes). Real archives nest a handful of levels (entry,
// component, container, item); 256 leaves ample room while keeping every consumer that walks
// the tree recursively (printers, path lookup) far from the stack limit. The reader itself
// does not recurse.
inline constexpr std::size_t k_max_depth = 256;
// Nodes (attributes + classes): bounds the tree's memory (about 40 bytes a node) at ~320 MB.
inline constexpr std::uint64_t k_max_nodes = 8'000'000;
// Distinct class and type names: each becomes an entry of the document's tag table, which has
// 65535 slots and a linear lookup (so their number and total size bound the time spent there);
// real archives use a few dozen short names.
inline constexpr std::size_t k_max_names = 4096;
inline constexpr std::size_t k_max_name_bytes = 64u << 10;

// Format-local node flag (document.hpp's shared flags use the low bits): the child was
// written with a name that is empty (`: __PGSA ...`), not without one.
inline constexpr std::uint8_t k_flag_empty_name = 0x80;

} // namespace sparksave::text_archive
