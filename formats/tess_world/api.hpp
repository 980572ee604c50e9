// Internal to the library (not installed): the functions of the format's row.
// tess world archive (formats/README.md §4): read, check, write, describe, migrate.
// The tree these functions build and take is documented in formats/tess_world/spec.hpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <memory>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

// True when `head` starts with the magic "TESSWLD\0".
bool detect(std::string_view head) noexcept;

// Reads v2 and the retired v1 (a warning: "needs migration"), applying every check of 4.3 in
// its order; the first failure ends the read, except a checksum mismatch when salvaging.
Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options = {});

// The same checks as read(), building no tree: shape, lattice, schema, residency and fields
// for info/verify.
Summary summarize(std::string_view bytes);

// Writes the tree back: a valid file read and written gives identical bytes; the body size and
// the CRC-32 are recomputed. Fails (with the node path) when the tree cannot be encoded.
Result<std::string> write(const Document& doc);

// Appends the lossless JSON form (`dump --json`); schema in json.cpp and man/sparksave-dump.1.
void to_json(const Document& doc, std::string& out);

// The bytes a JSON dump describes (`pack`); body size and CRC-32 are recomputed.
Result<Packed> from_json(std::string_view json);

// Salvage of a damaged archive (salvage.cpp; sparksave/salvage.hpp): every record that passes
// tess's checks kept, the others lost (sparse) or rebuilt empty (dense); the body size, chunk
// count and CRC-32 written for what was kept.
Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options);

// The format's row of the format table (format.cpp).
extern const FormatInfo k_format;
// Its JSON row (json.cpp; format.hpp FormatJson, apart so that an engine links no JSON code).
// The byte map of `dump --hex` (regions.cpp; sparksave/regions.hpp) and the read's findings.
Findings regions(std::string_view bytes, const std::function<void(const Region&)>& sink);

extern const FormatJson k_json;

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
