// Columns (NodeKind::column, document.hpp): packed arrays of fixed-width little-endian scalars,
// such as the per-chunk field columns of a tess world archive (formats/README.md §4.2). One node
// holds the whole array, not a node per scalar: its value is the raw bytes (a reference into the
// file when it was read), its `type` the element kind and its tag the element type's name, which
// also gives the width:
//
//   u8 u16 u32 u64    ValueType::unsigned_integer
//   i8 i16 i32 i64    ValueType::integer
//   f32 f64           ValueType::floating (IEEE 754 bits, kept exactly)
//   bool              ValueType::boolean (one byte: 0 false, 1 true)
//
// This is the one place that turns a column's bytes into text (dump, diff) and JSON, and JSON
// back into bytes (pack).
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"

#include <cstdint>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

struct ColumnType {
    ValueType kind = ValueType::none;
    std::uint8_t width = 0; // bytes per element; 0: not a column type
    bool valid() const noexcept { return width != 0; }
    bool operator==(const ColumnType&) const = default;
};

// The column type of an element kind and width, or an invalid one when no type has them
// (bool is 1 byte wide, floats 4 or 8, integers 1, 2, 4 or 8).
ColumnType make_column_type(ValueType kind, std::uint64_t width) noexcept;
// "u8", "i32", "f64", "bool"; "" for an invalid type.
std::string_view column_type_name(ColumnType type) noexcept;
// The type a name from column_type_name() stands for (invalid for any other text).
ColumnType column_type_from_name(std::string_view name) noexcept;
// The element type of a column node: invalid when the node is not a column, its tag names no
// type, or its byte length is not a whole number of elements.
ColumnType column_type(const Document& doc, NodeId id) noexcept;

// Appends element `index` of `bytes` (which must hold it) for people and for diff: integers
// in decimal; floats as the shortest decimal that reads back to the very same bits (so the
// value shown is exact, never rounded to a few digits), `-0`, `inf`, `-inf`, and a NaN with its
// bits, `nan(0x7fc00001)`; bools as true / false, any other byte as `bool(2)`.
void append_column_element(std::string& out, ColumnType type, std::string_view bytes,
                           std::size_t index);

// Appends element `index` as JSON, losslessly: integers and finite floats as JSON numbers (the
// same text as above), bools as true / false (another byte value as its number), and a float
// that is not finite as a string of its IEEE bits, "0x7ff8000000000000" (JSON has no NaN).
void append_column_element_json(std::string& out, ColumnType type, std::string_view bytes,
                                std::size_t index);

// Appends the whole column as a JSON array on one line: [1, 2, 3].
void append_column_json(std::string& out, ColumnType type, std::string_view bytes);

// The inverse of append_column_element_json: the raw JSON text of one element (a number,
// true / false, or a quoted "0x..." bit pattern for a float) appended to `out` as `type.width`
// little-endian bytes. Returns false with `expected` set (what would have fit) otherwise.
bool parse_column_element(ColumnType type, std::string_view raw_json, std::string& out,
                          std::string& expected);

SPARKSAVE_END_NAMESPACE
