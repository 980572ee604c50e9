// Printing a Document for people (the `dump` text tree) and a generic JSON form of any subtree
// (`dump --select --json`). Every byte taken from the file goes through escape.hpp.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"
#include "sparksave/format.hpp"

#include <cstdint>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

struct PrintOptions {
    bool offsets = false; // append "  @0x1c+9" (offset, length in bytes) to every node's line
};

// Appends `node` and its subtree as an indented text tree, one leaf per line; the root prints
// its children at the top level, another node prints under `label` (its path, say):
//   name: "string"        strings quoted and escaped
//   name: 12.5            numbers as their exact text
//   name:                 containers, children indented by two spaces
//   name: Vector 2D       a container with a tag (a text archive's class name) shows it
//   [3] "entity-name":    list items by index, with their name when they have one
//   name: <4 bytes> 0a0b0c0d   binary data in hex
//   [0]: f32[3] 1.5 -0 0.1     a column (column.hpp): element type, count, values (floats
//                              exact); more than 16 values go 16 a line, `[16..31]: ...`
//   name: "a|1|2"         a scalar with children (views of its value: a spark-kv record's
//     field: 1              decoded MMO fields) shows them indented under it
void print_text(const Document& doc, NodeId node, std::string_view label,
                const PrintOptions& options, std::string& out);

// The pieces of a text tree's lines, for a printer that writes them straight from a reader's
// events (formats/spark_save/dump.cpp): the first two lines of a whole-file dump (`format: NAME`,
// `version: N`); a name as a line labels it (bare when is_bare_name, else quoted and escaped);
// a list item's label (`[3]`, or `[3] "name"` when it has a name).
void append_text_heading(std::string& out, std::string_view format, std::uint32_t version);
void append_text_name(std::string& out, std::string_view name);
void append_item_label(std::string& out, std::uint64_t index, std::string_view name);

// The text tree of a file read part by part (format.hpp Parts): the lines print_text gives for
// the whole tree, part by part. head() prints the head's children, the (empty) item list last
// among them as its header line; item() an item under it; tail() the tail's children. Not for
// --offsets: the list's length is not known at its header.
class TextParts final : public Parts {
  public:
    TextParts(const PrintOptions& options, std::string& out);
    Result<void> head(Document& doc, std::uint64_t items) override;
    Result<void> item(Document& doc, NodeId item, std::uint64_t index) override;
    Result<void> tail(Document& doc) override;

  private:
    PrintOptions options_;
    std::string& out_;
};

// Appends the subtree of `node` as JSON, a member a line: objects as JSON objects (arrays of
// [name, value] pairs when names repeat), lists as arrays (named items as {"name": ...,
// "value": ...}), scalars as JSON strings or {"base64": ...}, columns as arrays of their values.
// Not the lossless format of `dump --json` for a whole file.
void print_json_subtree(const Document& doc, NodeId node, std::string& out);

// The subtree of `node` as JSON on one line (diff's "old" and "new"): the same shapes, except that
// objects are always arrays of [name, value] pairs.
void print_json_compact(const Document& doc, NodeId node, std::string& out);

SPARKSAVE_END_NAMESPACE
