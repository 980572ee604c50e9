// Printing a Document for people (the `dump` text tree) and a generic JSON form of any subtree
// (`dump --select --json`). Every byte taken from the file goes through escape.hpp.
#pragma once

#include "sparksave/document.hpp"

#include <string>
#include <string_view>

namespace sparksave {

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
void print_text(const Document& doc, NodeId node, std::string_view label, const PrintOptions& options,
                std::string& out);

// Appends the subtree of `node` as JSON: objects as JSON objects (arrays of [name, value] pairs
// when names repeat), lists as arrays (named items as {"name": ..., "value": ...}), strings
// as JSON strings or {"base64": ...}. Not the lossless format of `dump --json` for a whole file.
void print_json_subtree(const Document& doc, NodeId node, std::string& out);

// The subtree of `node` as JSON on one line (diff's "old" and "new"): objects as arrays of
// [name, value] pairs, lists as arrays, scalars as strings or {"base64": ...}.
void print_json_compact(const Document& doc, NodeId node, std::string& out);

} // namespace sparksave
