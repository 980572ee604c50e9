// Building and changing the metadata part of a `.spark_save` tree (layout: spec.hpp; the block:
// metadata.hpp). Shared by the reader's tree sink and the migrations, so the metadata nodes are
// made in one place.
#pragma once

#include "metadata.hpp"

#include "sparksave/document.hpp"
#include "sparksave/version.hpp"

#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// Adds the fields of `meta`, parsed from the block that is `metadata`'s value, as its children:
// one scalar a field, position as an object of x, y, z. With `spans`, the tokens' offsets are
// file offsets and become the nodes' spans.
void add_metadata_fields(Document& doc, NodeId metadata, const MetadataBlock& meta, bool spans);

// Replaces the block: the node's value becomes `raw` (copied to the arena) and its children are
// rebuilt from it as `version` reads it.
void replace_metadata(Document& doc, NodeId metadata, std::string_view raw, std::uint32_t version);

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
