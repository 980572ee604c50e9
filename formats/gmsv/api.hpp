// Internal to the library (not installed): the functions of the format's row.
// GMSV saves (formats/README.md §5, the ECS save-system design of seed 003): read, check,
// write, describe, migrate. The tree these functions build and take is documented in
// formats/gmsv/spec.hpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <memory>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

// True when `head` starts with the magic "GMSV".
bool detect(std::string_view head) noexcept;

// Reads versions 1..3: the CRC-32 of the data section, every component record, GUIDs and the
// .NET timestamp; JSON component data becomes a subtree.
Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options = {});

// The same checks as read(), building no tree: version, time, entities for info/verify.
Summary summarize(std::string_view bytes);

// Writes the tree back: a valid file read and written gives identical bytes; the CRC-32 is
// recomputed. Fails (with the node path) when the tree cannot be encoded.
Result<std::string> write(const Document& doc);

// Appends the lossless JSON form (`dump --json`); schema in json.cpp and man/sparksave-dump.1.
void to_json(const Document& doc, std::string& out);

// The bytes a JSON dump describes (`pack`); the CRC-32 is recomputed.
Result<Packed> from_json(std::string_view json);

// The format's row of the format table (format.cpp).
extern const FormatInfo k_format;
// Its JSON row (json.cpp; format.hpp FormatJson, apart so that an engine links no JSON code).
// The byte map of `dump --hex` (regions.cpp; sparksave/regions.hpp) and the read's findings.
// Salvage of a damaged save (salvage.cpp; sparksave/salvage.hpp).
Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options);

Findings regions(std::string_view bytes, const std::function<void(const Region&)>& sink);

extern const FormatJson k_json;

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
