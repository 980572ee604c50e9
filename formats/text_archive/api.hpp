// Internal to the library (not installed): the functions of the format's row.
// PgEngine / ColumbaEngine text archive `.sz` (formats/README.md §2): read, check, write,
// describe. The tree these functions build and take is documented in
// formats/text_archive/spec.hpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <memory>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

// True when the first line is `1.0.0`, or when it looks like a version number and a later line
// holds the attribute marker `__PGSA` (so a file with a wrong version line is still recognised
// and reported, not skipped).
bool detect(std::string_view head) noexcept;
// The version line with an archive after it: a file holding only `1.0.0` (a VERSION file) has
// no signature beyond its shape.
bool has_signature(std::string_view head) noexcept;

// Reads and checks everything (the checks are listed in spec.hpp). A file that breaks the
// grammar is read as far as possible, so `dump` can show it.
Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options = {});

// The same checks as read(), building no tree: counts and findings for info/verify.
Summary summarize(std::string_view bytes);

// Writes the tree back: reading a file the engine's writer produced and writing it gives
// identical bytes. Fails (with the node path) when the tree holds what the grammar cannot.
Result<std::string> write(const Document& doc);

// Appends the lossless JSON form (`dump --json`); schema in man/sparksave-dump.1 and json.cpp.
void to_json(const Document& doc, std::string& out);

// The inverse of to_json (`pack`): the tree the JSON describes, written by write(). Refuses
// (bad_json, with the JSON path and line:column) JSON that is not a dump and text the grammar
// cannot hold (a line feed in a value, ...); the format's rules are left to the reader, which
// the caller runs on the result. pack(dump --json X) == X for every X read without error.
Result<Packed> from_json(std::string_view json);

// Salvage of a damaged archive (salvage.cpp; sparksave/salvage.hpp): every top-level entry the
// reader finds no error in kept, the others lost; a damaged version line and the doubled-name
// mark of a class entry rewritten.
Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options);

// The format's row of the format table (format.cpp).
extern const FormatInfo k_format;
// Its JSON row (json.cpp; format.hpp FormatJson, apart so that an engine links no JSON code).
// The byte map of `dump --hex` (regions.cpp; sparksave/regions.hpp) and the read's findings.
Findings regions(std::string_view bytes, const std::function<void(const Region&)>& sink);

extern const FormatJson k_json;

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
