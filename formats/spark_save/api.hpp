// Internal to the library (not installed): the functions of the format's row.
// SparkEngine `.spark_save` (formats/README.md §1): read, check, write, describe.
// The tree these functions build and take is documented in formats/spark_save/spec.hpp.
#pragma once

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// True when `head` starts with the magic "SPRK".
bool detect(std::string_view head) noexcept;

// Reads every version (1..4), applying that version's rules (1.4, 1.5). Rules the file's own
// version tolerates but the current engine refuses are warnings; the rest are errors.
Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options = {});

// Reading a large file part by part (format.hpp Parts): the head holds metadata and the
// empty `entities` list; each item is one entity under an `entities` node; the tail holds
// customState, trailing and checksum. The CRC is checked before the first part. Findings as
// read() gives them.
PartsRead stream(std::shared_ptr<const Source> source, Parts& consumer);

// The same checks as read(), building no tree: counts, metadata and findings for info/verify.
Summary summarize(std::string_view bytes);

// Writes the tree back: reading a valid file and writing it gives identical bytes; a v4
// checksum is recomputed. Fails (with the node path) when the tree cannot be encoded.
Result<std::string> write(const Document& doc);

// Appends the lossless JSON form (`dump --json`); schema in man/sparksave-dump.1.
void to_json(const Document& doc, std::string& out);

// The same JSON, part by part (format.hpp Parts): to_json() is these over a whole tree.
std::unique_ptr<Parts> json_parts(std::string& out);
// The whole-file `dump` or `dump --json` from the reader's events (dump.cpp; FormatJson::dump).
PartsRead dump(std::shared_ptr<const Source> source, bool json,
               const std::function<void(std::string_view)>& write);

// The bytes a JSON dump describes (`pack`): the dump read into the tree part by part, each part
// handed to the writer (part_writer); the checksum is recomputed. The result still has to be read
// back to check the format's rules.
Result<Packed> from_json(std::string_view json);
// The same, handing the bytes to `emit` in blocks as they are made (Packed::bytes stays empty).
Result<Packed> from_json_to(std::string_view json,
                            const std::function<Result<void>(std::string_view)>& emit);
// The writer part by part (format.hpp Parts): bytes go to `emit` in blocks of about 1 MiB.
std::unique_ptr<Parts> part_writer(std::function<Result<void>(std::string_view)> emit);

// The format's save directory (slot_names.cpp, formats/README.md §1.7): what a file's name makes
// it there (format.hpp NamedFile), the rules list_slots applies too.
NamedFile name_in_directory(std::string_view filename);
extern const DirectoryModel k_directory;

// The verdict of SaveView::parse(bytes, Accept::any_version) and the file's version, building no
// views (save_file.cpp; the slots' check of a whole file, slots.cpp): the whole-file CRC-32 first
// (a v4 file whose trailer fails, or a damaged version field, stops there), then one pass of the
// reader over the structure with every rule of the file's version. `crc`: whole_crc(bytes)
// (rules.hpp), when the caller has computed it.
Result<std::uint32_t> check_save(std::string_view bytes,
                                 std::optional<std::uint32_t> crc = std::nullopt);

// The reader's findings on a whole file and the version it read it as, building nothing: what
// summarize() finds (the same reader, salvage on, the CRC-32 alongside a large file's read),
// without its counts and description, on the one structure-only instantiation of the reader
// (reader.hpp NullSink). The read-back check of SaveWriter and of upgrade()'s migration
// (save_file.cpp).
ReadBack read_back(std::string_view bytes);

// The format as upgrade() migrates it (migrate.hpp MigrationTarget): write() and read_back(),
// not the format's row (which would link summarize() and the part-by-part read into an engine).
extern const MigrationTarget k_migration_target;

// Salvage of a damaged file (salvage.cpp; sparksave/salvage.hpp): the candidate of the input's
// version (as read, or as repaired: formats/README.md §1.5), its report and totals.
Result<Salvaged> salvage(std::string_view bytes, const SalvageOptions& options);

// The format's row of the format table (format.cpp).
extern const FormatInfo k_format;
// Its JSON row (json.cpp; format.hpp FormatJson, apart so that an engine links no JSON code).
// The byte map of `dump --hex` (regions.cpp; sparksave/regions.hpp) and the read's findings.
Findings regions(std::string_view bytes, const std::function<void(const Region&)>& sink);

extern const FormatJson k_json;

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
