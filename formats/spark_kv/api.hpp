// Internal to the library (not installed): the functions of the format's row.
// spark-kv store, the SparkEngine AsyncDatabase file fallback (formats/README.md §3): read,
// check, write, describe. Version 1 is a legacy store (no marker line, no escaping), version 2
// a `#!spark-kv-v2` store. The tree these functions build and take is documented in
// formats/spark_kv/spec.hpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <memory>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

// True when the first line is the marker `#!spark-kv-v2` (or meant as one), or when the head
// looks like a legacy store: every line one `key<TAB>value` pair, no NUL byte (the rule is
// explained in read.cpp).
bool detect(std::string_view head) noexcept;
// The v2 marker line (or a first line meant as one); a legacy store has no signature.
bool has_signature(std::string_view head) noexcept;

// Reads and checks everything (the checks are listed in spec.hpp). Never fails: a line the
// engine refuses is kept in the tree, so `dump` shows it and the writer reproduces it.
Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options = {});

// The same checks as read(), building no tree: counts, key prefixes and findings for
// info/verify.
Summary summarize(std::string_view bytes);
// The same with another store budget than the engine's 1 GiB (k_store_budget): the budget rules
// tested on small stores.
Summary summarize(std::string_view bytes, std::uint64_t budget);

// Writes the tree back: reading any file and writing it gives identical bytes; records a
// migration or an edit changed are written the way the engine's writer of the document's
// version writes them. Fails (with the node path) when the tree holds what the version cannot.
Result<std::string> write(const Document& doc);

// Appends the lossless JSON form (`dump --json`); schema in man/sparksave-dump.1 and json.cpp.
void to_json(const Document& doc, std::string& out);

// The bytes a JSON dump describes (`pack`). The result still has to be read back to check the
// format's rules.
Result<Packed> from_json(std::string_view json);

// The format's row of the format table (format.cpp).
extern const FormatInfo k_format;
// Its JSON row (json.cpp; format.hpp FormatJson, apart so that an engine links no JSON code).
// The byte map of `dump --hex` (regions.cpp; sparksave/regions.hpp) and the read's findings.
// Salvage of a damaged store (salvage.cpp; sparksave/salvage.hpp): every line the current
// engine refuses is lost, the others kept as they are.
Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options);

Findings regions(std::string_view bytes, const std::function<void(const Region&)>& sink);

extern const FormatJson k_json;

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
