// Building and changing the metadata part of a `.spark_save` tree (layout: spec.hpp). Shared by
// the reader's tree sink and the migrations, so the metadata nodes are made in one place.
#pragma once

#include "reader.hpp"

#include "sparksave/document.hpp"

#include <string>
#include <string_view>

namespace sparksave::spark_save {

// Adds the fields of `meta`, parsed from the block that is `metadata`'s value, as its children:
// one scalar a field, position as an object of x, y, z. With `spans`, the tokens' offsets are
// file offsets and become the nodes' spans.
void add_metadata_fields(Document& doc, NodeId metadata, const Metadata& meta, bool spans);

// Replaces the block: the node's value becomes `raw` (copied to the arena) and its children are
// rebuilt from it as `version` reads it.
void replace_metadata(Document& doc, NodeId metadata, std::string_view raw, std::uint32_t version);

// The block in the normalized layout of FORMATS.md 1.6: one field a line, position on one line,
// each token's text kept; `screenshot` is inserted after playerClass when `meta` has none (v1).
// Whatever followed playerDeaths in `block` (other than whitespace) is kept after it, so the
// v3/v4 rules still see it. Needs meta.all_present.
std::string render_metadata(const Metadata& meta, std::string_view block, std::string_view screenshot);

} // namespace sparksave::spark_save
