// The format table: the one explicit list of formats sparksave knows, how each is recognised
// from its content, and the operations every command calls through it.
// Detection is by content (magic bytes / first line), never by file name (sparksave(1) DIRECTORY
// WALKS).
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

struct Region;         // sparksave/regions.hpp
struct Salvaged;       // sparksave/salvage.hpp
struct SalvageOptions; // sparksave/salvage.hpp

struct ReadOptions {
    // Keep reading after a checksum or version-field problem, so that `dump` can still show
    // what the file holds. The problem is reported either way.
    bool salvage = true;
};

// What a reader made of a file: the tree (complete, or as far as the data allowed) and every
// finding. The file is valid when findings has no error.
struct Parsed {
    Document doc;
    Findings findings;
};

// One line of `info`: a key for JSON, a label for people (empty: JSON only), the value as text.
struct InfoField {
    std::string key;
    std::string label;
    std::string text;
    bool numeric = false; // the text is a JSON number
};

// What a file's checksum says: it matches, it does not, the format has none, or it could not be
// checked (the read stopped before it). `info --json` prints integrity_name().
enum class Integrity : std::uint8_t { unknown, verified, mismatch, none };
std::string_view integrity_name(Integrity integrity) noexcept;

// What `info` and `verify` show about a file; computed without building a tree.
struct Summary {
    FormatId format = FormatId::spark_save;
    std::uint32_t version = 0;
    std::uint64_t size = 0;
    bool version_known = false;
    Integrity integrity = Integrity::unknown;
    std::optional<std::uint32_t> checksum; // the stored checksum, when the format has one
    bool engine_loads = false;             // would the current engine load it?
    std::string engine_note;               // why not / what it needs
    std::string engine_verdict;            // the verdict alone, without engine_note's reason
                                           // ("needs migration"); every format sets it
    std::vector<InfoField> metadata;       // the save's own description (name, time, ...)
    std::vector<InfoField> counts;         // entities, components, ...
    std::vector<std::pair<std::string, std::uint64_t>> common_types; // most common first
    Findings findings;
};

// Summary::common_types from counts by name: the `most` highest counts, most common first,
// ties by name.
std::vector<std::pair<std::string, std::uint64_t>>
most_common(std::vector<std::pair<std::string, std::uint64_t>> counts, std::size_t most = 8);

// The one part-by-part protocol, for a file too large to hold as a tree (bounded memory). A
// producer (a format's stream() reading a file, pack reading a dump) fills one Document in turn
// with the head (everything before the file's main list, and that list's node, empty), each item
// of the list (under a copy of the list node), then the tail, and hands each part to a consumer:
// the JSON and text printers of `dump`, the part writer, migration, diff. Document::part() says
// which part it is. A part is valid only during its call; a consumer may change it (migration
// does, before handing it on). A consumer's error stops the producer: no call follows, and the
// producer returns that error. When the read stops early at an error in the file, the part it
// stopped in is handed over as far as it got (Document::complete() false), then stopped() is
// called, last: the parts are only what was read before the error.
struct Parts {
    virtual ~Parts() = default;
    virtual Result<void> head(Document& doc, std::uint64_t item_count) = 0;
    virtual Result<void> item(Document& doc, NodeId item, std::uint64_t index) = 0;
    virtual Result<void> tail(Document& doc) = 0;
    virtual void stopped() {}
    // Asked by a producer that can (spark_save's stream()) as an item begins: false, and the item
    // comes with its own node alone (its name and span, no children), read and checked all the
    // same. For a consumer that needs no more of some items (diff's index of a file).
    virtual bool wants_children(std::uint64_t index) {
        (void)index;
        return true;
    }
};

// What reading a file part by part found: its findings, as read() gives them, and the error of
// the consumer that stopped the read, if one did.
struct PartsRead {
    Findings findings;
    std::optional<Error> consumer_error;
};

// What `pack` made of a JSON dump: the file's bytes (not yet checked against the format's
// rules: the caller reads them back) and notes on what it had to decide.
struct Packed {
    std::string bytes;
    std::vector<std::string> notes;
};

// What a file is in a directory of a format's saves, from its name alone, as the engine names
// them (spark_save: formats/README.md §1.7, a slot's save and the engine's companions of it). One
// model a format: the directory walk marks companions by it (input.hpp), `info DIR` groups and
// orders by it, the engine's load menu (spark_save::list_slots) is built on it.
struct NamedFile {
    enum class Kind : std::uint8_t { other, save, backup, temp };
    Kind kind = Kind::other;
    std::string group;       // the slot a save or a companion belongs to (other: the file name)
    std::string save_file;   // the name of the group's save ("slot1.spark_save"; other: empty)
    std::string_view role;   // the group's role: "slot", "quicksave", "autosave" (other: "file")
    std::uint32_t rank = 0;  // where the role is listed: the model's order of roles, others last
    std::uint32_t index = 0; // the group's place within its role (an autosave's N)
    bool valid_name = false; // the group's name is one the engine can address
};

// A format's save directory: its model of names, and the name of a save for people.
struct DirectoryModel {
    NamedFile (*name)(std::string_view filename);
    std::string_view pattern;    // "<slot>.spark_save"
    std::string_view companions; // the engine's companion files: ".spark_save.bak, .spark_save.tmp"
};

// Where a format's tree holds what content rules edit (sparksave/content_rules.hpp; the rule
// engine, lib/src/content_rules.cpp, works on this model only, so a further format is a row).
// Components sit in holders: with `by_class` false (spark_save, gmsv), each child of the root's
// list `entities` is an entity and the holder of its components, its children named by type (at
// most one of a name); with `by_class` true (text_archive), every class instance (an object or
// list node whose tag is its class name) is a component of that class, wherever it is: its
// holders are the root (whose children, the top-level entries, are the entities) and every class
// instance. A component's scalar children are its properties (named by key, unique; with
// nested_properties, its children of any kind). The custom state is the root's object
// `custom_state`, or, with `custom_at_root`, the root's own scalar children. Every value is the
// scalar's exact text as the format writes it. The format's own migration brings a save to
// current_version first: the model is that version's tree.
struct ContentModel {
    std::string_view entities = {};     // the root's child listing the entities (by_class: unused)
    std::string_view custom_state = {}; // empty: no object of custom state
    bool custom_at_root = false;        // the root's scalar children are the custom state
    bool by_class = false;              // components are class instances, matched by class name
    // A component child of kind bytes is a component whose properties cannot be edited (GMSV's
    // binary-encoded data): property ops on it are an error, component ops work on it.
    bool opaque_components = false;
    bool paths = false; // a step may have `path` (a subtree it is scoped to)
    // A property's value may be an object or a list (GMSV's JSON members): rename, move and drop
    // take it whole; the ops on a value (set, retype, map) take scalars only.
    bool nested_properties = false;
    std::string_view saves = {};              // the format's saves in messages ("GMSV saves")
    ValueType value_type = ValueType::string; // the type of a value a rule adds without `type`
    // A value's type is part of the save (GMSV's JSON, text_archive's `__PGSA` types): a value a
    // rule sets on a property keeps the property's type unless the step gives one. Else every
    // value is text (spark_save).
    bool typed = false;
    // How a value of a type is written: a bool's two texts; a float as 6 fixed decimals (the
    // C++ engines' std::to_string) or, with json_floats, as the shortest JSON number that reads
    // back as the float, with a fraction (`1.5`, `100.0`).
    std::string_view true_text = "1", false_text = "0";
    bool json_floats = false;
    // Optional hooks (nullptr: nothing to do). Why a component cannot be named `name` (a
    // rename-component's `to`, checked at load), or empty when it can.
    std::string_view (*component_problem)(std::string_view name) = nullptr;
    // Why a property or custom-state key cannot be named `name`, or a value cannot be `text` (a
    // line the format's reader would read back otherwise), or empty when it can; checked at load
    // on the names and values a step writes.
    std::string_view (*property_problem)(std::string_view name) = nullptr;
    std::string_view (*value_problem)(std::string_view text) = nullptr;
    // The tag a scalar of a type carries (text_archive's `__PGSA` TYPE).
    std::string_view (*type_tag)(ValueType type) = nullptr;
    // After every rule that applies to a save ran, before the writer: brings the components whose
    // properties the steps changed (each once, in the order first changed; some may have been
    // dropped since) back to a tree the writer writes (GMSV: the data re-encoded from the
    // members). A scalar whose value or type a step set has no span; the others keep theirs.
    Result<void> (*commit)(Document& doc, std::span<const NodeId> components) = nullptr;
};

struct FormatInfo {
    FormatId id;
    std::string_view name;  // the --input-format name
    std::string_view title; // for people
    // Files above this size are refused before they are read.
    std::uint64_t max_file_size;
    // The newest version: what `migrate` brings files to unless told otherwise.
    std::uint32_t current_version;
    // Does this content (the file's first k_detect_bytes bytes, or fewer) look like this format?
    bool (*detect)(std::string_view head);
    // For a file met in a directory walk (sparksave(1) DIRECTORY WALKS): does the head carry the
    // format's signature? nullptr: detect() is a signature check. A format recognised by its shape
    // alone (a legacy spark-kv store, a text archive holding only its version line) is then
    // taken only when --input-format names it, so a `scores.tsv` or a `VERSION` file is not.
    bool (*signature)(std::string_view head) = nullptr;
    // Reads and checks everything, building the tree.
    Parsed (*read)(std::shared_ptr<const Source> source, const ReadOptions& options);
    // Checks everything and summarises, building no tree (verify, info).
    Summary (*summarize)(std::string_view bytes);
    // Writes the tree back to bytes (checksums recomputed).
    Result<std::string> (*write)(const Document& doc);
    // The root's child that is the file's main list (a save's entities), or empty. A format read
    // by parts holds one item a part; migration steps declared by parts (migrate.hpp) run over
    // it; `diff --stat` counts a change inside an item under the item's member it is in.
    std::string_view items = {};
    // Optional (nullptr: the format has no save directory of its own): what a file's name makes
    // it in a directory of the format's saves.
    const DirectoryModel* directory = nullptr;
    // Optional (nullptr: the format is read whole): reading part by part (Parts), and the
    // writer part by part (the bytes of write() go to `emit` in blocks; tail() ends the file,
    // checksums included).
    PartsRead (*stream)(std::shared_ptr<const Source> source, Parts& consumer) = nullptr;
    std::unique_ptr<Parts> (*part_writer)(std::function<Result<void>(std::string_view)> emit) =
        nullptr;
    // Optional (nullptr: content rules are not available for the format): the content model.
    const ContentModel* content = nullptr;
    // Optional (nullptr: `salvage` does not support the format yet; sparksave/salvage.hpp): reads
    // damaged bytes as far as they go into a file of their version that the format's reader finds
    // no error in, with the report of every input byte kept, rebuilt or lost. salvage() there
    // migrates it to SalvageOptions::to and checks it.
    Result<Salvaged> (*salvage)(std::string_view bytes, const SalvageOptions& options) = nullptr;
};

// A format's JSON form (`dump --json`, `pack`), in a table of its own (formats/registry_json.cpp)
// beside the format table: nothing of FormatInfo reaches it, so a program that reads, upgrades and
// writes saves but never calls these (an engine, through sparksave/save_file.hpp) links none of
// the JSON code. Every format of the table has its row.
struct FormatJson {
    FormatId id;
    // Appends the lossless JSON form of the tree (`dump --json`; the schema of each format is in
    // sparksave-dump(1) and man/schemas/dump-<format>.schema.json), which begins with
    // "schemaVersion" (version.hpp k_json_schema_version) and "format".
    void (*to_json)(const Document& doc, std::string& out);
    // The inverse of to_json (`pack`): JSON text to file bytes. Errors name the JSON path and
    // line:column.
    Result<Packed> (*from_json)(std::string_view json);
    // Optional: the JSON of to_json part by part, for a format read by parts (FormatInfo::stream;
    // `out` ends with the JSON's end after tail() or stopped()).
    std::unique_ptr<Parts> (*json_parts)(std::string& out) = nullptr;
    // Optional: the whole-file `dump` (the text tree, its `format:` and `version:` lines first)
    // or, with `json`, `dump --json`, written straight from the reader's events: the bytes that
    // TextParts and json_parts give over stream(), without a tree for each item. The text goes
    // to `write` in blocks of 1 MiB or more, and the rest at the end.
    PartsRead (*dump)(std::shared_ptr<const Source> source, bool json,
                      const std::function<void(std::string_view)>& write) = nullptr;
    // Optional: from_json handing the bytes to `emit` in blocks (pack of a large dump).
    Result<Packed> (*from_json_to)(
        std::string_view json, const std::function<Result<void>(std::string_view)>& emit) = nullptr;
    // The byte map of a file (`dump --hex`, sparksave/regions.hpp): hands the regions of the fields
    // the format's reader reads to `sink`, in file order, up to where the reading stopped (gaps:
    // `<trailing>` where the format has bytes after its structure). In this table, beside the
    // JSON, so that a program that never dumps links none of it. Returns the read's findings.
    Findings (*regions)(std::string_view bytes,
                        const std::function<void(const Region&)>& sink) = nullptr;
};

inline constexpr std::size_t k_detect_bytes = 4096;

std::span<const FormatInfo> format_table() noexcept;
// The JSON rows, in the format table's order (formats/registry_json.cpp), and the row of one
// format of the table.
std::span<const FormatJson> format_json_table() noexcept;
const FormatJson& format_json(FormatId id);
// The format a JSON dump names (`pack`'s input): the leading `{"schemaVersion": 1, "format":
// "<name>"` of a dump (`{"format": "<name>"` of an older one), read without validating the rest
// (the format's own reading validates it); else, for any other JSON, the root's "format" string
// of the validated text. Errors, with their line:column: not valid JSON, no "format" string at
// the root, a name of no format of the table.
Result<const FormatInfo*> dump_format(std::string_view json);
const FormatInfo& format_info(FormatId id);
const FormatInfo* format_by_name(std::string_view name) noexcept;
// The first format whose detect() accepts `head`, or nullptr. `signature_only`: only a format
// whose signature the head carries (a file met in a directory walk).
const FormatInfo* detect_format(std::string_view head, bool signature_only = false) noexcept;
std::string_view format_name(FormatId id) noexcept;
// "spark_save, text_archive, ..." for messages and --help.
std::string format_names();

// What a file is in a save directory, by the first format whose directory model names it; kind
// other when none does.
NamedFile named_file(std::string_view filename);
// The order of a directory's listing (`info DIR`): the roles in their rank (user slots, the
// quicksave, the autosaves by N, other files last), groups by name within a role, and each
// group's save before its backup and its temp.
bool listed_before(const NamedFile& a, const NamedFile& b) noexcept;

SPARKSAVE_END_NAMESPACE
