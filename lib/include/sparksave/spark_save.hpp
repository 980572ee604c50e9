// SparkEngine `.spark_save` (FORMATS.md section 1): read, check, write, describe.
// The tree these functions build and take is documented in formats/spark_save/spec.hpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace sparksave::spark_save {

// True when `head` starts with the magic "SPRK".
bool detect(std::string_view head) noexcept;

// Reads every version (1..4), applying that version's rules (1.4, 1.5). Rules the file's own
// version tolerates but the current engine refuses are warnings; the rest are errors.
Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options = {});

// The same checks as read(), building no tree: counts, metadata and findings for info/verify.
Summary summarize(std::string_view bytes);

// Writes the tree back: reading a valid file and writing it gives identical bytes; a v4
// checksum is recomputed. Fails (with the node path) when the tree cannot be encoded.
Result<std::string> write(const Document& doc);

// Appends the lossless JSON form (`dump --json`); schema in man/sparksave-dump.1.
void to_json(const Document& doc, std::string& out);

// The bytes a JSON dump describes (`pack`); the checksum is recomputed. The result still has to
// be read back to check the format's rules.
Result<Packed> from_json(std::string_view json);

} // namespace sparksave::spark_save
