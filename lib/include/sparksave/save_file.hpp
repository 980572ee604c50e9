// The engine-facing API of `.spark_save` (formats/README.md §1): a typed metadata read that
// touches only the head of a file, a checked zero-copy view of a whole save, the in-memory
// upgrade of old versions, a writer from plain data, and the engine's save slots on disk.
//
// Everything here is built on the library's one reader, writer and migration chain: a file
// this API accepts is one `sparksave verify` accepts, and the reverse, with one exception: a
// v1/v2 file whose metadata numbers do not all read (its own reader never looked; verify warns
// that its migration will fail) has no typed Metadata, so read_metadata and SaveView::parse
// refuse it with that warning as their error.
//
// Errors are values (Result<T>, error.hpp): nothing here throws across the API except
// std::bad_alloc when memory runs out. Calling value() on a Result that holds an error is a bug
// of the caller and aborts with the error's description (error.hpp).
//
// Thread safety: every function may be called from any number of threads at once (no global
// state is written, except by the file functions, which write only the files they name). A
// SaveView is immutable: any number of threads may read one at once, and copies share their
// data. A SaveWriter is one thread's at a time.
//
// This header includes no fmt, Boost or CLI11 header.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/error.hpp"
#include "sparksave/export.hpp"
#include "sparksave/spark_save_version.hpp"
#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// k_current_version (4) and k_oldest_loadable (3): spark_save_version.hpp.

struct Position {
    float x = 0, y = 0, z = 0;
};

// The metadata block (formats/README.md §1.2), typed: parsed and checked once, by the reader's own
// parser (numbers as the engine's `stream >> field` reads them). A v1 file has no screenshot
// path (empty here).
struct Metadata {
    std::uint32_t version = k_current_version;                        // the file's version
    std::string save_name, scene_name, player_class, screenshot_path; // screenshot: v2+
    std::uint64_t timestamp = 0;                                      // Unix seconds
    float play_time = 0, player_health = 0, player_armor = 0;         // play time: seconds
    Position position;
    std::int32_t player_kills = 0, player_deaths = 0;
};

// Views into the bytes a SaveView was parsed from (valid while those bytes are).
struct Property {
    std::string_view key, value;
};
struct Component {
    std::string_view type;
    std::span<const Property> properties; // file order
};
struct Entity {
    std::string_view name;
    std::span<const Component> components; // file order
};

// Which versions a parse accepts. engine: what the current engine loads (3 and 4); a v1/v2
// file is refused with ErrorCode::needs_migration (upgrade() it). any_version: 1..4, each read
// by its own version's rules (formats/README.md §1.4), the risks in warnings().
enum class Accept { engine, any_version };

// `bytes` as the std::byte span the functions below take.
inline std::span<const std::byte> as_save_bytes(std::string_view bytes) noexcept {
    return {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()};
}

// The metadata of a save of any version (1..4; Metadata::version says which), reading only the
// 12-byte header (magic, version, metadata size) and the metadata block, never the entities.
// `bytes` may be the whole file or its first part: when it is shorter than the header and the
// block, the error (ErrorCode::truncated) says how many bytes are needed ("expected the first
// N bytes ..."). The block is at most 64 KiB (formats/README.md §1.4: the metadata-only read caps
// it), so the first 12 + 65536 bytes always suffice.
//
// Checked as the reader checks it: the magic, the version (1..4), the block size, and the block
// itself (1.2: an error for a block the engine refuses or reads shifted; for v1/v2, whose own
// reader did not check the block, a block whose numbers do not all read is refused too, since
// its fields have no values). Not checked, because they need the whole file: the v4 CRC-32 and
// the damaged-version test (1.5); SaveView::parse and load_slot make them. So a load-game menu
// (list_slots) may show the metadata of a file whose CRC-32 fails; loading it (load_slot)
// checks the whole file and falls back to the backup.
// Errors: truncated, bad_magic, unsupported_version, limit_exceeded, bad_metadata.
SPARKSAVE_API Result<Metadata> read_metadata(std::span<const std::byte> bytes);

// The same for a file: reads at most its first 65,548 bytes (12 + 64 KiB), and usually 4 KiB
// (one read of 4,096 bytes, a second only when the block is longer). An I/O error
// (ErrorCode::io_error) names the path.
SPARKSAVE_API Result<Metadata> read_metadata(const std::filesystem::path& file);

// A whole save, read and checked by the reader (every rule of formats/README.md §1.4 and 1.5 for
// its version): the metadata, the entities and the custom state as views into `bytes`, which must
// outlive the view (and its copies). Zero-copy: no name, key or value is copied.
class SaveView {
  public:
    // Refuses (with the reader's first error: code, offset, node path, message) every file the
    // reader finds an error in, including files the engine loads but misreads (a shifted
    // metadata block, formats/README.md §1.2), and under Accept::engine every v1/v2 file that
    // has no such error (needs_migration, whatever its block holds: the engine refuses the
    // version first). Under Accept::any_version, also a v1/v2 file whose block has no typed
    // metadata (read_metadata). Thread-safe: any number of threads may parse at once.
    SPARKSAVE_API static Result<SaveView> parse(std::span<const std::byte> bytes,
                                                Accept accept = Accept::engine);

    SPARKSAVE_API const Metadata& metadata() const noexcept;
    // The entities in file order; each entity's components and each component's properties
    // are in file order too (formats/README.md §1.1: the order carries no meaning to the engine).
    SPARKSAVE_API std::span<const Entity> entities() const noexcept;
    SPARKSAVE_API std::span<const Property> custom_state() const noexcept;
    // What the reader found at risk but not refused (Severity::warning: a v1/v2 file that needs
    // migration, a negative timestamp, a float the engine's builds read differently, ...).
    SPARKSAVE_API std::span<const Error> warnings() const noexcept;
    // The bytes the view was parsed from (the caller's, which the view refers to): what
    // RuleSet::apply (content_rules.hpp) takes.
    SPARKSAVE_API std::span<const std::byte> bytes() const noexcept;

    struct Data; // the parsed file (internal)

  private:
    explicit SaveView(std::shared_ptr<const Data> data) noexcept;
    std::shared_ptr<const Data> d_;
};

// Any version (1..4) in, current-version (v4) bytes out, in memory, through the library's
// migration chain (formats/README.md §1.6): the result has been read back and found valid. A v4
// input is checked and returned as it is. Errors: the input's own (offsets into `old_bytes`), or a
// step's or the v4 rules' refusal of the result (with the node path, which is the input's:
// migration keeps every entity, component and property in place; no offset). `notes`, when
// given, receives what the steps did beyond their summary (bytes dropped, counts written).
SPARKSAVE_API Result<std::string> upgrade(std::span<const std::byte> old_bytes,
                                          std::vector<std::string>* notes = nullptr);

// Plain data in, checked v4 bytes out. Call entity() to start an entity, component() to start
// a component of the current entity, property() for a property of the current component;
// custom() adds a custom-state pair at any time. The strings are copied.
class SaveWriter {
  public:
    // Metadata::version is not used: the writer writes k_current_version.
    SPARKSAVE_API explicit SaveWriter(const Metadata& metadata);
    SPARKSAVE_API ~SaveWriter();
    SPARKSAVE_API SaveWriter(SaveWriter&&) noexcept;
    SPARKSAVE_API SaveWriter& operator=(SaveWriter&&) noexcept;
    SPARKSAVE_API SaveWriter& entity(std::string_view name);
    SPARKSAVE_API SaveWriter& component(std::string_view type);
    SPARKSAVE_API SaveWriter& property(std::string_view key, std::string_view value);
    SPARKSAVE_API SaveWriter& custom(std::string_view key, std::string_view value);

    // The file's bytes, after every v4 rule was checked: refused (with the node path, e.g.
    // `metadata.saveName`, `entities[2].Transform.parent`) are a line break (LF or CR) in the
    // four metadata strings, a non-finite float, a name, type, key or value over 65535 bytes,
    // more than 65535 components or properties, a NameComponent, a bad Transform parent
    // (formats/README.md §1.3), a repeated component type or key, and a component() or property()
    // with no entity or component to go in (bad_usage). The bytes are encoded as each call comes
    // and checked by the reader's own rules on entities and custom state as they are written;
    // the metadata block is read by the reader, which refuses any error or warning (a float
    // below float's normal range, which the engine's builds read differently). Floats are
    // written as the engine's writer writes them: default stream formatting, 6 significant
    // digits (`42.5`, `0.0318721`, `1e-05`). Call it once: it hands over the bytes (a second
    // call is a bad_usage error).
    SPARKSAVE_API Result<std::string> finish();

  private:
    struct State; // the bytes so far and the rules' state (internal)
    std::unique_ptr<State> s_;
};

// Slots on disk (formats/README.md §1.7), with the engine's conventions: `<dir>/<slot>.spark_save`,
// its backup `<slot>.spark_save.bak` (the previous good revision), its write in progress
// `<slot>.spark_save.tmp` (left only by a crash).
//
// What the slot functions call a file that *loads*: one the current engine loads, as it is (a
// v3 or v4 file SaveView::parse accepts) or after the in-memory upgrade (a v1 or v2 file that
// SaveView::parse with Accept::any_version accepts and that upgrade() takes; formats/README.md
// §1.4, 1.6). A v1/v2 file whose content the v4 rules refuse (a duplicate key, say) does not
// load: upgrade() refuses it. The whole file is read and checked, its v4 CRC-32 included.
//
// A *newer build's save*: a `SPRK` file whose version is above k_current_version and whose
// trailer does not verify as a v4 file's (formats/README.md §1.5: when it does, the file is a v4
// save whose version field was damaged, which is corruption). As the engine does (SparkEngine
// SAVE-230), such a primary is never replaced by write_slot, and load_slot refuses it without
// falling back to the older backup (saving over it afterwards would lose the newer progress);
// both errors are ErrorCode::unsupported_version, at offset 4 (`version`), naming the file and
// its version. Deleting the primary is the way to discard it.

// What a file name is in a save directory (formats/README.md §1.7): a slot's save
// `<slot>.spark_save`, the engine's backup of it `<slot>.spark_save.bak` (the previous good
// revision), its write in progress `<slot>.spark_save.tmp` (left only by a crash), or other.
enum class SlotFile : std::uint8_t { other, primary, backup, temp };
SPARKSAVE_API SlotFile slot_file_kind(std::string_view filename) noexcept;

enum class SlotRole { user, quicksave, autosave };

struct SlotInfo {
    std::string slot;
    SlotRole role = SlotRole::user;
    int autosave_index = -1;    // N of `__autosave_N` (the rotation order); -1 for other roles
    std::filesystem::path path; // the primary, `<dir>/<slot>.spark_save` (it may be missing)
    // read_metadata of the primary (or its error): the header and the metadata block only, so
    // a v4 file whose CRC-32 fails further on still shows its metadata (load_slot then falls
    // back to the backup). A version above 4 is the exception, told apart by the whole file's
    // CRC-32: a newer build's save (unsupported_version, "... a newer build's save ...") or a
    // damaged v4 one (damaged_version). Metadata::version may be 1 or 2: load_slot returns such
    // a file, to upgrade() in memory.
    Result<Metadata> metadata = Metadata{};
    bool has_backup = false; // `<slot>.spark_save.bak` exists
    // ... and load_slot would load it: load_slot's own check of a backup, made here (the whole
    // file and every rule of its version, the v4 CRC-32 included; a v1/v2 backup must also be
    // taken by upgrade()), building no view. So a menu offers "load from backup" only where it
    // works (for the file as it is now: load_slot checks it again). The cost grows with the
    // backup's size, unlike `metadata`'s: the v4 CRC-32 comes first, so a damaged v4 backup
    // costs a read and a checksum (~1 ms for 12 MB), and a good one (or a v3 one: no trailer)
    // a read, the checksum and one pass of the reader over its structure, building nothing
    // (~8 ms for 12 MB, ~1.5 GB/s), against ~0.01 ms for the primary's read_metadata
    // (bench/README.md "list_slots").
    bool backup_loads = false;
    bool stale_tmp = false; // `<slot>.spark_save.tmp` exists (an interrupted write)
};

// 1..64 characters of [A-Za-z0-9_-] (formats/README.md §1.7).
SPARKSAVE_API bool is_valid_slot_name(std::string_view slot) noexcept;

// The role of a slot name: `__quicksave`, `__autosave_N` (N decimal digits; `*autosave_index`
// receives N, else -1), or a user slot.
SPARKSAVE_API SlotRole slot_role(std::string_view slot, int* autosave_index = nullptr) noexcept;

// Every slot of `dir`: each valid slot name that has a primary, a backup or a temporary file
// there, sorted by name. Files of other names are not slots and are left out. For a load-game
// menu: it reads the first 4 KiB (at most 64 KiB) of each primary, never a whole primary except
// one whose version is above 4, and each backup whole (SlotInfo says what is checked): a menu
// costs about what checking its backups costs (SlotInfo::backup_loads). Errors: io_error
// (naming the directory) when it cannot be listed.
SPARKSAVE_API Result<std::vector<SlotInfo>> list_slots(const std::filesystem::path& dir);

// Writes a slot as the engine does: `<slot>.spark_save.tmp` (replacing a stale one), flushed
// and fsync'd, read back and compared; then the current primary, when it loads (as above: a
// v1/v2 primary that upgrade() takes loads too), is kept as `<slot>.spark_save.bak` (itself
// written atomically; a primary that does not load is not kept, so the last good backup stays);
// then the temporary file is renamed over the primary and the directory synced. Refuses
// (before touching any file) an invalid slot name (bad_usage), bytes that are not a loadable
// current-version save (SaveView::parse's error, or needs_migration for a v1..v3 file), and a
// slot whose primary is a newer build's save (unsupported_version: neither it nor the backup
// changes). On an error the primary is as it was. Two writers of one slot at once are not
// supported (the engine's convention has one temporary name). The current primary is read
// whole once, before the temporary file is written.
SPARKSAVE_API Result<void> write_slot(const std::filesystem::path& dir, std::string_view slot,
                                      std::string_view bytes);

// The primary's bytes when it loads (as above), else the backup's when it does (`*used_backup`
// says which was used); the bytes are the file's, of its own version. A v1/v2 file is returned
// as it is: see its version with read_metadata (or SaveView::parse with Accept::any_version)
// and upgrade() it in memory before SaveView::parse; the file on disk stays v1/v2 until the
// next write_slot, which keeps it as the backup. Errors: bad_usage for an invalid slot name;
// unsupported_version when the primary is a newer build's save (the backup is not used
// instead); else the primary's error (io_error naming the path when it is missing or
// unreadable; upgrade()'s refusal for a v1/v2 file the v4 rules refuse), its message saying
// what was wrong with the backup.
SPARKSAVE_API Result<std::string> load_slot(const std::filesystem::path& dir, std::string_view slot,
                                            bool* used_backup = nullptr);

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
