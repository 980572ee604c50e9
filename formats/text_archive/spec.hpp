// PgEngine / ColumbaEngine text archive (`.sz`): the grammar, the limits, the checks and the
// tree sparksave builds from it. Source of truth: formats/README.md §2.
//
// Grammar (formats/README.md §2), as the engine's Serializer writes it:
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
//     FIRST `: __PGSA ` (a name may itself contain `: `, formats/README.md §2 edge cases);
//   - a line ending in ` {` is a class header; its name is the text before the first `: `
//     (the engine splits there too), the rest is the class name (which may contain spaces);
//   - anything else breaks the grammar.
//   TYPE is the text between `__PGSA ` and the first `{`, minus the one space before the `{`.
//
// What verify reports (formats/README.md §2.1; sparksave-verify(1) SEVERITY). Two readings of every
// file are compared: the tree of the writer's grammar above ("what the file says") and what the
// engine's own reader makes of the same bytes (a model of its code: engine.hpp). Where they differ,
// an error on the entry concerned says what the engine reads.
//
//   errors (the engine loses or misreads data)     code
//   ---------------------------------------------  -------------------
//   the version line is not exactly 1.0.0: the     unsupported_version
//     engine reads the archive as EMPTY, silently
//   a multi-line string value, written by the      multiline_value
//     engine as `,` + LF + indent per newline
//   an entry or child the engine does not read:    bad_syntax
//     its reading stopped earlier (a line without
//     ": ", a class line with two, the doubled-name
//     bug's `name: name: CLASS {`), a class entry
//     without a line that is exactly `}`, a line
//     taken into another child (a line indented
//     deeper after a child, a blank line), a class
//     the engine reads as null, an unnamed top-
//     level entry, a line of no known shape
//   a child or entry read under another name:      name_cut
//     cut at its first ": ", trimmed of blanks,
//     cut at a "__PGSA" in it, empty (the lookup
//     finds every class's empty placeholder), a
//     top-level key with the line's indentation
//   a repeated name: the engine reads the FIRST    duplicate_key
//     child of a name and the LAST top-level entry;
//     an UnorderedMap keeps the last pair of a key,
//     a SaveData the first of an id
//   a value the engine reads otherwise: another    bad_value
//     type or value from getAsAttribute, a number
//     `stringstream >>` reads as another number
//     (the message says which: 12abc reads 12,
//     1e-50 as float reads 0), bool not true/false;
//     in the containers, a field of a type their
//     reader refuses; an ElementType (or any
//     SaveData value<i>) whose type is not float,
//     int, size_t, string or bool (double too)
//   nbElements / nbValue disagreeing with the      count_mismatch
//     pairs present, or pairs out of order
//   more nesting, nodes or distinct names than     limit_exceeded
//     the limits below (reading stops there)
//   The writer-grammar findings below (bad_syntax, bad_indent, truncated) are errors too when
//   the engine misreads the entry they are in (or the next entry, outside one).
//
//   warnings (the engine reads it, but at risk)
//   ---------------------------------------------  -------------------
//   `__PGSA` inside a value                        marker_in_value
//   an integer type aliased for another            type_alias
//   a type name outside the seven above            unknown_type
//   text after a value's last `}` (ignored; lost   bad_syntax
//     when the engine saves the entry again); a
//     class name the engine derives otherwise
//     (getObjectType(): a blank class name of an
//     unnamed item, ` {` in a name)
//   the doubled-name mark on an attribute entry    name_cut
//
//   notes (the engine reads it as the file says; its writer would not write it)
//   ---------------------------------------------  -------------------
//   a missing or extra comma, blanks, a CR or      bad_syntax
//     commas after a value or a ` {`, a blank or
//     unknown line the engine skips, a stray `}`
//     at the end
//   indentation of attributes and closing braces   bad_indent
//     that the engine reads through
//   no final LF, a 0-byte file, the version line   truncated
//     alone
//   a number the engine reads as the file says     bad_value
//     from a form its writer does not write
//     (blanks around it, `+`, leading zeros, `-0`)
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

#include "sparksave/version.hpp"

#include <cstdint>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

// The one version line the engine reads (formats/README.md §2); Document::version() 1.
inline constexpr std::string_view k_version_line = "1.0.0";
inline constexpr std::uint32_t k_current_version = 1;

inline constexpr std::string_view k_marker = "__PGSA"; // the attribute marker
inline constexpr std::string_view k_attribute_prefix = "__PGSA ";
inline constexpr std::string_view k_named_attribute = ": __PGSA ";
inline constexpr std::string_view k_name_separator = ": ";

// The writer's type names (formats/README.md §2).
inline constexpr std::string_view k_type_bool = "bool";
inline constexpr std::string_view k_type_int = "int";
inline constexpr std::string_view k_type_unsigned = "unsigned int";
inline constexpr std::string_view k_type_size_t = "size_t";
inline constexpr std::string_view k_type_float = "float";
inline constexpr std::string_view k_type_double = "double";
inline constexpr std::string_view k_type_string = "string";

// Container classes (formats/README.md §2).
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

// What a line cannot hold (formats/README.md §2): text the reader would read back as something
// else, by the way it tells line shapes apart (above). Each returns why, or nothing when the text
// can be written. A line feed is refused everywhere apart from these (every line ends at LF and
// there is no escaping). `pack` refuses such text; the engine's own files never hold it.
inline std::string_view name_problem(std::string_view name, bool attribute) noexcept {
    if (name.starts_with('\t'))
        return "a name starting with a TAB (the reader takes it for indentation)";
    if (attribute && name.starts_with(k_attribute_prefix))
        return "an attribute name starting with `__PGSA ` (the reader takes the line for an "
               "unnamed attribute)";
    if (attribute && name.find(k_named_attribute) != std::string_view::npos)
        return "an attribute name holding `: __PGSA ` (the reader ends the name at the first one)";
    if (!attribute && name.find(k_name_separator) != std::string_view::npos)
        return "a class's name holding \": \" (the reader splits a class line at its first \": \")";
    return {};
}
// A type name: the value starts at the first `{` after `__PGSA `.
inline std::string_view type_problem(std::string_view type) noexcept {
    if (type.find('{') != std::string_view::npos)
        return "a type name with `{` (the value starts at the first `{`)";
    return {};
}
// A class name (`named`: the class has a name before it).
inline std::string_view class_problem(std::string_view class_name, bool named) noexcept {
    if (class_name.find(k_name_separator) != std::string_view::npos)
        return "a class name with \": \" (the reader splits a class line at its first \": \")";
    if (!named && class_name.starts_with('\t'))
        return "an unnamed class's class name starting with a TAB (the reader takes it for "
               "indentation)";
    return {};
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
