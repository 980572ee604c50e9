// The engine-facing API (sparksave/save_file.hpp) on the one reader (reader.hpp), the one
// metadata table and parser (metadata.hpp), the writer (write.cpp), the migration chain
// (migrate.hpp) and the file reads (file_io.hpp); the slots on disk are in slots.cpp. No format
// rule is written again here: each check is the reader's, or a writer rule of formats/README.md
// §1.2 that the engine's writer (BuildMetadataBlock) applies and no reader can see.
#include "reader.hpp"
#include "spec.hpp"
#include "write.hpp"

#include "api.hpp"
#include "io_errors.hpp"
#include "sparksave/content_rules.hpp"
#include "sparksave/document.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/huge_pages.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <vector>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

std::string_view view_of(std::span<const std::byte> bytes) noexcept {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// --- The typed metadata, from the reader's parse of the block (metadata.hpp) ---------------

// Every field of the table k_meta_fields has its member in Metadata (a new row fails here).
constexpr bool bound(std::string_view name) {
    constexpr std::string_view names[] = {
        "saveName",     "sceneName",   "playerClass", "screenshotPath", "timestamp",   "playTime",
        "playerHealth", "playerArmor", "position",    "playerKills",    "playerDeaths"};
    for (std::string_view n : names)
        if (n == name) return true;
    return false;
}
static_assert([] {
    for (const MetaFieldSpec& f : k_meta_fields)
        if (!bound(f.name)) return false;
    return true;
}());

std::string* string_member(Metadata& m, std::string_view name) {
    if (name == "saveName") return &m.save_name;
    if (name == "sceneName") return &m.scene_name;
    if (name == "playerClass") return &m.player_class;
    if (name == "screenshotPath") return &m.screenshot_path;
    return nullptr;
}
float* float_member(Metadata& m, std::string_view name, std::string_view part) {
    if (name == "playTime") return &m.play_time;
    if (name == "playerHealth") return &m.player_health;
    if (name == "playerArmor") return &m.player_armor;
    if (name == "position") {
        if (part == "x") return &m.position.x;
        if (part == "y") return &m.position.y;
        if (part == "z") return &m.position.z;
    }
    return nullptr;
}
std::int32_t* int_member(Metadata& m, std::string_view name) {
    if (name == "playerKills") return &m.player_kills;
    if (name == "playerDeaths") return &m.player_deaths;
    return nullptr;
}

// The values the engine reads, from a block the reader accepted (meta.complete).
Result<Metadata> typed(const MetadataBlock& block, std::uint32_t version) {
    Metadata out;
    out.version = version;
    for (std::size_t i = 0; i < block.count; ++i) {
        const MetaField& f = block.fields[i];
        const std::string_view name = k_meta_fields[f.spec].name;
        bool stored = false;
        switch (f.type) {
        case ValueType::string:
            if (std::string* s = string_member(out, name)) *s = f.text, stored = true;
            break;
        case ValueType::unsigned_integer:
            if (name == "timestamp") out.timestamp = f.u, stored = true;
            break;
        case ValueType::integer:
            if (std::int32_t* v = int_member(out, name);
                v && f.i >= std::numeric_limits<std::int32_t>::min() &&
                f.i <= std::numeric_limits<std::int32_t>::max())
                *v = static_cast<std::int32_t>(f.i), stored = true;
            break;
        case ValueType::floating:
            if (float* v = float_member(out, name, f.in_position ? f.name : std::string_view{}))
                *v = f.f, stored = true;
            break;
        default:
            break;
        }
        if (!stored)
            return make_error(ErrorCode::internal,
                              fmt::format("metadata field {} has no typed member", f.name));
    }
    return out;
}

// --- read_metadata ------------------------------------------------------------------------

// The 12-byte header: magic, version, metaSize (formats/README.md §1.1).
constexpr std::size_t k_header_size = 12;
constexpr std::size_t k_first_read = 4096;

// The typed metadata of a structure-only read (reader.hpp NullSink), when its block was complete.
std::optional<Result<Metadata>> typed_metadata(const NullSink& sink) {
    if (!sink.block || !sink.block->complete) return std::nullopt;
    return typed(*sink.block, sink.version);
}

Error truncated_prefix(std::size_t have, std::uint64_t need, std::string_view what) {
    return make_error(ErrorCode::truncated,
                      fmt::format("expected the first {} bytes ({}), found {}: pass at least {} "
                                  "bytes to read the metadata",
                                  need, what, byte_count(have), need),
                      have);
}

} // namespace

Result<Metadata> read_metadata(std::span<const std::byte> bytes) {
    const std::string_view data = view_of(bytes);
    if (data.size() < k_header_size) {
        const std::string_view head = data.substr(0, std::min<std::size_t>(4, data.size()));
        if (!k_magic.starts_with(head))
            return make_error(ErrorCode::bad_magic,
                              "expected the magic \"SPRK\", found " + display(head, true), 0);
        return truncated_prefix(data.size(), k_header_size,
                                "the header: magic, version and metadata size");
    }
    const std::uint32_t meta_size = load_u32(data, 8);
    const std::uint64_t need = k_header_size + std::uint64_t{meta_size};
    const bool whole_block = data.size() >= need;
    // The reader runs on the header and the block (or the header alone, when the block is not
    // all there) followed by four zero bytes: an empty entity list, or for v4 a "trailer". The
    // whole-file checks of 1.5 cannot be made on a part of a file: `known_crc` is given so that
    // the reader neither computes a CRC-32 of the part nor finds one to agree (v4: the zero
    // trailer, v1..v3: not it). Only its findings inside the real bytes are kept: what it says
    // about the made-up end is not about the file.
    const std::size_t kept = whole_block ? static_cast<std::size_t>(need) : k_header_size;
    std::string part(data.substr(0, kept));
    part.append(4, '\0');
    CrcHint known_crc;
    known_crc.known = load_u32(data, 4) == k_current_version ? 0u : 1u;
    Findings findings;
    NullSink sink;
    Reader<NullSink> reader(part, findings, sink, true, known_crc);
    (void)reader.run();
    const Error* block_problem = nullptr;
    for (const Error& f : findings.items()) {
        // A block that ends too soon is reported at its end, where the made-up bytes begin.
        const bool at_block_end = whole_block && f.offset == kept && f.path.starts_with(k_metadata);
        if (!f.has_offset() || (f.offset >= kept && !at_block_end)) continue;
        if (f.code == ErrorCode::needs_migration) continue; // Metadata::version says it
        if (f.code == ErrorCode::limit_exceeded && f.path == k_metadata) {
            // 1.4: the engine's metadata-only read caps the block at 64 KiB for every version.
            Error e = f;
            e.severity = Severity::error;
            if (f.severity != Severity::error)
                e.message += " (the metadata-only read refuses a block above 64 KiB)";
            return e;
        }
        if (f.severity == Severity::error) return f;
        if (f.code == ErrorCode::bad_metadata && !block_problem) block_problem = &f;
    }
    if (!whole_block)
        return truncated_prefix(data.size(), need,
                                fmt::format("the {}-byte header and the {}-byte metadata block",
                                            k_header_size, meta_size));
    if (!sink.block)
        return make_error(ErrorCode::internal, "the reader reported no metadata block", 8);
    if (!sink.block->complete) {
        // v1/v2: their own reader did not check the block, but its numbers have no values.
        if (block_problem) {
            Error e = *block_problem;
            e.severity = Severity::error;
            return e;
        }
        return make_error(ErrorCode::bad_metadata, "expected a metadata block whose fields read",
                          k_header_size, std::string(k_metadata));
    }
    return typed(*sink.block, sink.version);
}

Result<Metadata> read_metadata(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return io_error_at(file, "cannot open", errno);
    std::string buf(k_first_read, '\0');
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.bad()) return io_error_at(file, "cannot read", errno);
    buf.resize(static_cast<std::size_t>(in.gcount()));
    if (buf.size() == k_first_read) {
        const std::uint64_t need = k_header_size + std::uint64_t{load_u32(buf, 8)};
        if (need > buf.size() && need <= k_header_size + k_max_meta_size) {
            const std::size_t have = buf.size();
            buf.resize(static_cast<std::size_t>(need));
            in.read(buf.data() + have, static_cast<std::streamsize>(need - have));
            if (in.bad()) return io_error_at(file, "cannot read", errno);
            buf.resize(have + static_cast<std::size_t>(in.gcount()));
        }
    }
    return read_metadata(as_save_bytes(buf));
}

// --- SaveView -----------------------------------------------------------------------------

// Not in an anonymous namespace: SaveView::Data, a class of the library, holds them.
namespace view_storage {

// Storage for the views that never moves: blocks of raw memory that grow geometrically, each
// object constructed as it is appended (no zero-filled or copied array: a parse touches only the
// pages it writes, once, in huge pages where the system gives them: huge_pages.hpp). A run (one
// component's properties, one entity's components) stays contiguous, as its span needs: when a
// block fills inside a run, the run so far moves to the next block (at most 65535 elements,
// formats/README.md §1.1 u16 counts).
template <class T> class Blocks {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

  public:
    // `first`: the first block's size in elements (a bound or an estimate; later blocks double).
    Blocks() = default;
    explicit Blocks(std::size_t first) : next_(std::max<std::size_t>(first, 16)) {}

    void begin_run() noexcept { run_ = used_; }
    T& push(const T& v) {
        if (used_ == cap_) [[unlikely]]
            grow();
        return *std::construct_at(cur_ + used_++, v);
    }
    T& back() noexcept { return cur_[used_ - 1]; }
    std::span<const T> run() const noexcept { return {cur_ + run_, used_ - run_}; }

  private:
    struct Free {
        void operator()(T* p) const noexcept { ::operator delete(p); }
    };
    [[gnu::noinline]] void grow() {
        const std::size_t keep = used_ - run_;
        const std::size_t size = std::max(next_, keep * 2);
        std::unique_ptr<T, Free> block(static_cast<T*>(::operator new(size * sizeof(T))));
        prefer_huge_pages(block.get(), size * sizeof(T));
        for (std::size_t i = 0; i < keep; ++i) std::construct_at(block.get() + i, cur_[run_ + i]);
        cur_ = block.get();
        blocks_.push_back(std::move(block));
        cap_ = size;
        used_ = keep;
        run_ = 0;
        next_ = size * 2;
    }

    std::vector<std::unique_ptr<T, Free>> blocks_;
    T* cur_ = nullptr;
    std::size_t cap_ = 0, used_ = 0, run_ = 0, next_ = 16;
};

} // namespace view_storage

struct SaveView::Data {
    Metadata metadata;
    std::vector<Entity> entities;
    view_storage::Blocks<Component> components; // each entity's, in a run
    view_storage::Blocks<Property> properties;  // each component's, in a run
    std::vector<Property> custom;
    std::vector<Error> warnings;
    std::span<const std::byte> bytes; // what it was parsed from (the caller's)
};

namespace {

// A Reader sink that collects views. Each span is set when its run ends: the blocks never move.
struct ViewSink : SinkDefaults {
    SaveView::Data* d;
    std::uint32_t version = 0;
    bool complete = false;
    std::optional<Result<Metadata>> meta;

    void on_header(std::uint32_t v) { version = v; }
    void on_metadata(std::string_view, std::size_t, const MetadataBlock& m) {
        complete = m.complete;
        if (m.complete) meta = typed(m, version);
    }
    void on_entities_begin(std::uint32_t count, std::size_t) {
        d->entities.reserve(count); // the reader checked the count against the bytes left
    }
    void on_entity(std::string_view name, std::size_t, std::uint32_t) {
        d->entities.push_back({name, {}});
        d->components.begin_run();
    }
    void on_component(std::string_view type, std::size_t) {
        d->components.push({type, {}});
        d->properties.begin_run();
    }
    void on_property(std::string_view key, std::string_view value, std::size_t, std::size_t) {
        d->properties.push({key, value});
    }
    void on_component_end(std::size_t) { d->components.back().properties = d->properties.run(); }
    void on_entity_end(std::size_t) { d->entities.back().components = d->components.run(); }
    void on_pair(std::string_view key, std::string_view value, std::size_t, std::size_t) {
        d->custom.push_back({key, value});
    }
};

// The first block sizes, from the file's size: its bytes hold at most size / 4 components and
// as many properties (formats/README.md §1.1: each is at least 4 bytes), and a save's are mostly
// longer, so the estimate is a fraction of that bound (a file of shorter ones grows the blocks),
// and at most 2^20 views (32 MiB: a large file's blocks double from there, never far above what
// is used).
std::size_t first_block(std::size_t file_size, std::size_t min_size, std::size_t typical) {
    return std::min({file_size / min_size, file_size / typical + 16, std::size_t{1} << 20});
}

// What a whole file's read says (a ViewSink's or a NullSink's): the reader's first error, else
// the typed metadata.
Result<Metadata> verdict(const Findings& findings, std::optional<Result<Metadata>> meta) {
    if (const Error* e = findings.first_error()) return *e;
    if (!meta) {
        // v1/v2 (their reader did not check the block): a block whose numbers do not read.
        for (const Error& f : findings.items())
            if (f.code == ErrorCode::bad_metadata) {
                Error e = f;
                e.severity = Severity::error;
                return e;
            }
        return make_error(ErrorCode::bad_metadata, "expected a metadata block whose fields read", 8,
                          std::string(k_metadata));
    }
    return std::move(*meta);
}

} // namespace

Result<std::uint32_t> check_save(std::string_view bytes, std::optional<std::uint32_t> crc) {
    Findings findings;
    NullSink sink;
    // The reader computes the whole-file CRC-32 (unless given) before it reads the structure,
    // and without salvage stops at a mismatch (or a damaged version field) there.
    CrcHint hint;
    hint.known = crc;
    Reader<NullSink> reader(bytes, findings, sink, false, hint);
    (void)reader.run();
    auto meta = verdict(findings, typed_metadata(sink));
    if (!meta) return std::move(meta).error();
    return meta->version;
}

ReadBack read_back(std::string_view bytes) {
    ReadBack out;
    read_with_crc(
        crc_alongside(bytes), [bytes] { return whole_crc(bytes); },
        [&](const CrcHint& crc) {
            out = ReadBack{};
            NullSink sink;
            Reader<NullSink> reader(bytes, out.findings, sink, true, crc);
            (void)reader.run();
            if (reader.needs_rerun()) return false; // damaged: read again, knowing the CRC
            // As summarize(): the version the payload was read as, else the header's.
            if (sink.version != 0) {
                out.version = sink.version;
                out.version_known = true;
            } else if (bytes.size() >= 8 && bytes.starts_with(k_magic)) {
                out.version = load_u32(bytes, 4);
                out.version_known = true;
            }
            return true;
        });
    return out;
}

const MigrationTarget k_migration_target = {
    .id = FormatId::spark_save,
    .name = k_format_name,
    .items = k_entities,
    .write = write,
    .read_back = read_back,
};

SaveView::SaveView(std::shared_ptr<const Data> data) noexcept : d_(std::move(data)) {}

Result<SaveView> SaveView::parse(std::span<const std::byte> bytes, Accept accept) {
    const std::string_view data = view_of(bytes);
    auto d = std::make_shared<Data>();
    Findings findings;
    ViewSink sink;
    // A large file's CRC-32 is computed alongside the parse (read_with_crc, as read() does).
    read_with_crc(
        crc_alongside(data), [data] { return whole_crc(data); },
        [&](const CrcHint& crc) {
            *d = Data{};
            d->components = view_storage::Blocks<Component>(
                first_block(data.size(), k_min_component_size, 128));
            d->properties =
                view_storage::Blocks<Property>(first_block(data.size(), k_min_pair_size, 16));
            findings = Findings{};
            sink = ViewSink{};
            sink.d = d.get();
            Reader<ViewSink> reader(data, findings, sink, false, crc);
            (void)reader.run();
            return !reader.needs_rerun(); // damaged: read again, knowing the CRC
        });
    if (const Error* e = findings.first_error()) return *e;
    // The engine refuses a v1/v2 file for its version, before it looks at the block.
    if (accept == Accept::engine && !current_rules(sink.version))
        return make_error(ErrorCode::needs_migration,
                          fmt::format("expected version {} or {} (the versions the current engine "
                                      "loads), found {}: upgrade() it first",
                                      k_oldest_loadable, k_current_version, sink.version),
                          4, "version");
    auto meta = verdict(findings, std::move(sink.meta));
    if (!meta) return std::move(meta).error();
    d->metadata = std::move(*meta);
    d->bytes = bytes;
    for (const Error& f : findings.items())
        if (f.severity == Severity::warning) d->warnings.push_back(f);
    return SaveView(std::move(d));
}

const Metadata& SaveView::metadata() const noexcept {
    return d_->metadata;
}
std::span<const Entity> SaveView::entities() const noexcept {
    return d_->entities;
}
std::span<const Property> SaveView::custom_state() const noexcept {
    return d_->custom;
}
std::span<const Error> SaveView::warnings() const noexcept {
    return d_->warnings;
}
std::span<const std::byte> SaveView::bytes() const noexcept {
    return d_->bytes;
}

// --- upgrade ------------------------------------------------------------------------------

Result<std::string> upgrade(std::span<const std::byte> old_bytes, std::vector<std::string>* notes) {
    const std::string_view data = view_of(old_bytes);
    auto source = std::make_shared<const Source>(std::string(data));
    try {
        Parsed parsed = read(source);
        if (const Error* e = parsed.findings.first_error()) return *e;
        if (parsed.doc.version() == k_current_version) return std::string(data);
        auto migrated = migrate(parsed.doc, k_current_version, k_migration_target);
        if (!migrated) return std::move(migrated).error();
        if (notes)
            for (const MigrationNote& note : migrated->notes) notes->push_back(note.describe());
        return std::move(migrated->bytes);
    } catch (const std::length_error& e) {
        // A Document full (2 GiB of text, 2^32 nodes): unreachable below the 512 MiB file
        // limit, but nothing but bad_alloc leaves the API.
        return make_error(ErrorCode::too_large, e.what());
    }
}

// --- SaveWriter ---------------------------------------------------------------------------

namespace {

// 1.2: the engine's writer formats a float with `stream << value` (default formatting,
// precision 6: printf's %g), in the classic locale; to_chars is that, whatever the locale.
std::string engine_float(float v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
    return std::string(buf, r.ptr);
}
template <class I> std::string engine_integer(I v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string metadata_path(std::string_view field, std::string_view part = {}) {
    std::string p(k_metadata);
    append_path_name(p, field);
    if (!part.empty()) append_path_name(p, part);
    return p;
}

// The block of a v4 save in the writer's layout (1.2, metadata.hpp layout_block), or the
// writer's refusal: a line break in a string, a non-finite float (BuildMetadataBlock).
Result<std::string> build_block(const Metadata& m) {
    Metadata copy = m;
    std::vector<std::string> texts;
    for (const MetaFieldSpec& f : k_meta_fields) {
        if (!in_version(f, k_current_version)) continue;
        if (f.type == ValueType::string) {
            const std::string* s = string_member(copy, f.name);
            if (!s) return make_error(ErrorCode::internal, "unbound metadata string");
            if (const std::size_t at = s->find_first_of("\r\n"); at != std::string::npos)
                return make_error(ErrorCode::bad_value,
                                  fmt::format("expected {} without a line break (the engine's "
                                              "writer refuses LF and CR in a metadata "
                                              "string), found {} at byte {} of {}",
                                              f.name, (*s)[at] == '\n' ? "an LF" : "a CR", at,
                                              display(*s, true)),
                                  k_no_offset, metadata_path(f.name));
            texts.push_back(*s);
        } else if (f.type == ValueType::floating) {
            for (std::uint8_t p = 0; p < f.parts; ++p) {
                const std::string_view part = f.parts > 1 ? k_position_parts[p] : "";
                const float* v = float_member(copy, f.name, part);
                if (!v) return make_error(ErrorCode::internal, "unbound metadata float");
                if (!std::isfinite(*v))
                    return make_error(ErrorCode::bad_value,
                                      fmt::format("expected a finite number (the engine's writer "
                                                  "refuses others), found {}",
                                                  engine_float(*v)),
                                      k_no_offset, metadata_path(f.name, part));
                texts.push_back(engine_float(*v));
            }
        } else if (f.type == ValueType::unsigned_integer && f.name == "timestamp") {
            texts.push_back(engine_integer(copy.timestamp));
        } else if (f.type == ValueType::integer && int_member(copy, f.name)) {
            texts.push_back(engine_integer(*int_member(copy, f.name)));
        } else {
            return make_error(ErrorCode::internal, "unbound metadata field");
        }
    }
    std::vector<std::string_view> views(texts.begin(), texts.end());
    return layout_block(views, k_current_version);
}

} // namespace

// What a SaveWriter holds: the file so far, encoded as the calls come (write.hpp, the one
// encoder), and the state of the reader's content rules (reader.hpp ContentRules) applied to it
// at the offsets the reader would see. The entity count and each entity's and component's
// count are patched in when known; custom-state pairs are kept apart and written at the end.
struct SaveWriter::State final : RuleReport {
    Encoder out{std::size_t{64} << 10};
    const char* base = nullptr; // where `out` was when the rules were last given views into it
    ContentRules rules;
    std::optional<Error> refusal;      // the first, in file order; nothing more is written
    std::optional<Error> meta_warning; // the reader's warning on the block: refused at the end
    std::string misuse;                // the first component()/property() with nowhere to go
    std::size_t entity_count_at = 0;
    std::uint64_t entities = 0, components = 0, properties = 0;
    bool in_entity = false, in_component = false, finished = false;
    std::size_t components_at = 0, properties_at = 0; // the current counts' offsets
    std::uint64_t entity_components = 0, component_properties = 0;
    std::string custom_text; // the custom-state pairs: key, value, key, value, ...
    std::vector<std::pair<std::size_t, std::size_t>> custom; // key and value sizes

    bool writing() const noexcept { return !refusal; }
    void refuse(Error e) {
        if (!refusal) refusal = std::move(e);
    }
    // A broken content rule (v4: an error). The offset is into bytes the caller never sees, so
    // the node path is what locates it.
    void broken(ErrorCode code, std::size_t, std::string path, std::string message,
                std::string_view) override {
        refuse(make_error(code, std::move(message), k_no_offset, std::move(path)));
    }
    RuleReport& rule() noexcept { return *this; }
    // The view of `n` bytes at `at` of the output (at + n <= its size), after telling the rules
    // if it moved.
    std::string_view written(std::size_t at, std::size_t n) {
        const char* now = out.view().data();
        if (now != base) [[unlikely]]
            moved(now);
        return {now + at, n};
    }
    [[gnu::noinline]] void moved(const char* now) {
        rules.rebase(base, now);
        base = now;
    }
    // 1.4: the reader refuses a file above 512 MiB; nothing beyond it is kept.
    void check_size() {
        if (out.size() > k_max_file_size) [[unlikely]]
            too_large();
    }
    [[gnu::cold, gnu::noinline]] void too_large() {
        refuse(make_error(
            ErrorCode::too_large,
            fmt::format("expected at most {} bytes (512 MiB), found more", k_max_file_size)));
    }
    // The refusals of property(), out of the way of its path (once a property).
    [[gnu::cold, gnu::noinline]] void misplaced_property(std::string_view key) {
        if (misuse.empty())
            misuse = fmt::format("property({}) before any component() of the current entity",
                                 display(key, true));
    }
    [[gnu::cold, gnu::noinline]] void long_pair(int refused, std::string_view key,
                                                std::string_view value) {
        refuse(too_long(rules.property_path(key), refused == 1 ? "key" : "value",
                        refused == 1 ? key.size() : value.size()));
    }
    void close_component() {
        if (!in_component) return;
        in_component = false;
        if (!writing()) return;
        if (component_properties > k_max_u16)
            return refuse(too_many(rules.component_path(), "properties", component_properties));
        out.patch_u16(properties_at, static_cast<std::uint16_t>(component_properties));
        rules.component_end();
    }
    void close_entity() {
        close_component();
        if (!in_entity) return;
        in_entity = false;
        if (!writing()) return;
        if (entity_components > k_max_u16)
            return refuse(too_many(rules.entity_path(), "components", entity_components));
        out.patch_u16(components_at, static_cast<std::uint16_t>(entity_components));
    }
};

SaveWriter::SaveWriter(const Metadata& metadata) : s_(std::make_unique<State>()) {
    State& s = *s_;
    auto block = build_block(metadata);
    if (!block) {
        s.refuse(std::move(block).error());
        return;
    }
    // The block, by the one reader: a file of the header, the block and no entities or custom
    // state. Its findings are the whole file's findings on the block.
    Encoder head;
    head.head(k_current_version, *block);
    head.u32(0);
    head.u32(0);
    head.trailer();
    const ReadBack check = read_back(head.view());
    if (const Error* e = check.findings.first_error()) {
        Error refused = *e;
        refused.offset = k_no_offset;
        s.refuse(std::move(refused));
        return;
    }
    for (const Error& f : check.findings.items())
        if (f.severity == Severity::warning) {
            Error refused = f;
            refused.severity = Severity::error;
            refused.offset = k_no_offset;
            s.meta_warning = std::move(refused);
            break;
        }
    s.out.head(k_current_version, *block);
    s.entity_count_at = s.out.size();
    s.out.u32(0);
    s.base = s.out.view().data();
}

SaveWriter::~SaveWriter() = default;
SaveWriter::SaveWriter(SaveWriter&&) noexcept = default;
SaveWriter& SaveWriter::operator=(SaveWriter&&) noexcept = default;

SaveWriter& SaveWriter::entity(std::string_view name) {
    State& s = *s_;
    s.close_entity();
    s.in_entity = true;
    ++s.entities;
    if (!s.writing()) return *this;
    s.rules.next_entity();
    if (!s.out.string16(name)) {
        s.refuse(too_long(s.rules.entity_path(), "entity name", name.size()));
        return *this;
    }
    s.components_at = s.out.size();
    s.out.u16(0);
    s.entity_components = 0;
    s.check_size();
    return *this;
}

SaveWriter& SaveWriter::component(std::string_view type) {
    State& s = *s_;
    if (!s.in_entity) {
        if (s.misuse.empty())
            s.misuse = fmt::format("component({}) before any entity()", display(type, true));
        return *this;
    }
    s.close_component();
    s.in_component = true;
    ++s.components;
    if (!s.writing()) return *this;
    ++s.entity_components;
    const std::size_t at = s.out.size();
    if (!s.out.string16(type)) {
        s.rules.type(type);
        s.refuse(too_long(s.rules.component_path(), "component type", type.size()));
        return *this;
    }
    s.rules.type(s.written(at + 2, type.size()));
    s.rules.component(at, s.rule());
    s.properties_at = s.out.size();
    s.out.u16(0);
    s.component_properties = 0;
    s.check_size();
    return *this;
}

SaveWriter& SaveWriter::property(std::string_view key, std::string_view value) {
    State& s = *s_;
    if (!s.in_component) [[unlikely]] {
        s.misplaced_property(key);
        return *this;
    }
    ++s.properties;
    if (!s.writing()) [[unlikely]]
        return *this;
    ++s.component_properties;
    const std::size_t at = s.out.size();
    if (const int refused = s.out.pair16(key, value); refused != 0) [[unlikely]] {
        s.long_pair(refused, key, value);
        return *this;
    }
    s.rules.property(s.written(at + 2, key.size()), value, at, s.rule());
    s.check_size();
    return *this;
}

SaveWriter& SaveWriter::custom(std::string_view key, std::string_view value) {
    State& s = *s_;
    if (s.custom_text.size() > k_max_file_size) [[unlikely]] {
        s.refuse(make_error(
            ErrorCode::too_large,
            fmt::format("expected at most {} bytes (512 MiB), found more", k_max_file_size)));
        return *this;
    }
    s.custom_text.append(key).append(value);
    s.custom.emplace_back(key.size(), value.size());
    return *this;
}

Result<std::string> SaveWriter::finish() {
    State& s = *s_;
    if (s.finished) return make_error(ErrorCode::bad_usage, "SaveWriter::finish() called twice");
    s.finished = true;
    s.close_entity();
    if (!s.misuse.empty()) return make_error(ErrorCode::bad_usage, s.misuse);
    // The reader's limits (1.4).
    if (s.entities > k_max_entities)
        return make_error(
            ErrorCode::limit_exceeded,
            fmt::format("expected at most {} entities, found {}", k_max_entities, s.entities),
            k_no_offset, std::string(k_entities));
    if (s.components > k_max_aggregate || s.properties > k_max_aggregate)
        return make_error(ErrorCode::limit_exceeded,
                          fmt::format("expected at most {} components and properties each in all",
                                      k_max_aggregate),
                          k_no_offset, std::string(k_entities));
    if (s.custom.size() > k_max_custom_state)
        return make_error(ErrorCode::limit_exceeded,
                          fmt::format("expected at most {} custom-state pairs, found {}",
                                      k_max_custom_state, s.custom.size()),
                          k_no_offset, std::string(k_custom_state));
    // The parents were noted as the entities came; the reader checks them after the list.
    if (s.writing()) s.rules.end_entities(s.rule());
    if (s.refusal) return std::move(*s.refusal);
    s.out.patch_u32(s.entity_count_at, static_cast<std::uint32_t>(s.entities));
    s.out.u32(static_cast<std::uint32_t>(s.custom.size()));
    s.rules.begin_pairs();
    std::size_t from = 0;
    for (const auto& [key_size, value_size] : s.custom) {
        const std::string_view key(s.custom_text.data() + from, key_size);
        const std::string_view value(s.custom_text.data() + from + key_size, value_size);
        from += key_size + value_size;
        const std::size_t at = s.out.size();
        if (!s.out.string16(key)) {
            std::string path(k_custom_state);
            append_path_name(path, key);
            return too_long(std::move(path), "key", key.size());
        }
        if (!s.out.string16(value)) {
            std::string path(k_custom_state);
            append_path_name(path, key);
            return too_long(std::move(path), "value", value.size());
        }
        s.rules.pair(key, at, s.rule()); // views into custom_text, alive to the end
        if (s.refusal) return std::move(*s.refusal);
    }
    if (s.out.size() + 4 > k_max_file_size)
        return make_error(ErrorCode::too_large,
                          fmt::format("expected at most {} bytes (512 MiB), found {}",
                                      k_max_file_size, s.out.size() + 4));
    if (s.meta_warning) return std::move(*s.meta_warning);
    s.out.trailer();
    return std::move(s.out).take();
}

} // namespace spark_save

// The content rules (sparksave/content_rules.hpp) on a parsed save: here, with the format.
Result<RulesApplied> RuleSet::apply(const spark_save::SaveView& save) const {
    return apply(save.bytes());
}

SPARKSAVE_END_NAMESPACE
