// The `.spark_save` reader: one pass over the bytes that applies every rule of formats/README.md
// §1.4 and 1.5 for the file's version and reports what it reads to a Sink. The tree builder, the
// summary used by `info`/`verify` and the payload scan are sinks; so every rule lives here, once.
//
// The members a sink may define are those of SinkDefaults, below.
// A sink may also define halted(): true stops the read after the entity list's start or an
// entity (a consumer of the parts failed, format.hpp Parts); run() then returns false.
#pragma once

#include "metadata.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/alongside.hpp"
#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// A cheap fingerprint of a string: its length and first and last bytes, read with whole-word
// loads (no byte copies through the stack, which stall store forwarding on a hot path). Equal
// strings have equal fingerprints; unequal fingerprints mean unequal strings.
[[gnu::always_inline]] inline std::uint64_t fingerprint(std::string_view s) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    std::uint64_t head = 0, tail = 0;
    if (n >= 8) {
        head = boost::endian::load_little_u64(p);
        tail = boost::endian::load_little_u64(p + n - 8);
    } else if (n >= 4) {
        head = boost::endian::load_little_u32(p);
        tail = boost::endian::load_little_u32(p + n - 4);
    } else if (n > 0) {
        head = p[0] | (std::uint64_t{p[n / 2]} << 8) | (std::uint64_t{p[n - 1]} << 16);
    }
    return (head * 0x9E3779B97F4A7C15ull) ^ (tail + n * 0xC2B2AE3D27D4EB4Full);
}

// Finds repeated keys among a component's properties, an entity's components or the custom
// state. For the usual handful of keys: a 64-bit filter on fingerprints says at once that a key
// is new (no scan), else the few entries are compared; hashed beyond k_linear_limit keys. The
// fast path is inline: it runs once per property of the file.
class RepeatFinder {
  public:
    static constexpr std::size_t k_new = ~std::size_t{0};
    // Returns the offset of the earlier occurrence of `key`, or k_new (and remembers it). (A
    // plain integer, not an optional: returning an optional through the stack cost a
    // store-forwarding stall per property, a quarter of a large file's read.)
    [[gnu::always_inline]] std::size_t seen(std::string_view key, std::size_t offset) {
        if (count_ == k_linear_limit) [[unlikely]] // full, or hashed (the count stays there)
            return seen_slow(key, offset);
        const std::uint64_t f = fingerprint(key);
        const std::uint64_t bit = std::uint64_t{1} << (f >> 58);
        if (filter_ & bit) {
            for (std::size_t i = 0; i < count_; ++i)
                if (small_[i].fingerprint == f && small_[i].key == key) return small_[i].offset;
        }
        filter_ |= bit;
        small_[count_++] = {f, key, offset};
        return k_new;
    }
    void clear() {
        count_ = 0;
        filter_ = 0;
        if (hashed_) {
            map_.clear();
            hashed_ = false;
        }
    }
    // The keys remembered were views into a buffer that moved from `from` to `to` (a writer's
    // output grew: SaveWriter).
    void rebase(const char* from, const char* to) {
        for (std::size_t i = 0; i < count_; ++i) small_[i].key = moved(small_[i].key, from, to);
        if (hashed_) {
            std::unordered_map<std::string_view, std::size_t> map;
            map.reserve(map_.size());
            for (const auto& [key, offset] : map_) map.emplace(moved(key, from, to), offset);
            map_.swap(map);
        }
    }
    static std::string_view moved(std::string_view s, const char* from, const char* to) {
        const auto at =
            reinterpret_cast<std::uintptr_t>(s.data()) - reinterpret_cast<std::uintptr_t>(from);
        return {to + at, s.size()};
    }

  private:
    std::size_t seen_slow(std::string_view key, std::size_t offset) {
        if (!hashed_) {
            hashed_ = true;
            map_.reserve(count_ * 4);
            for (std::size_t i = 0; i < count_; ++i) map_.emplace(small_[i].key, small_[i].offset);
        }
        auto [it, inserted] = map_.try_emplace(key, offset);
        return inserted ? k_new : it->second;
    }

    struct Entry {
        std::uint64_t fingerprint;
        std::string_view key;
        std::size_t offset;
    };
    static constexpr std::size_t k_linear_limit = 24;
    std::array<Entry, k_linear_limit> small_;
    std::size_t count_ = 0;
    std::uint64_t filter_ = 0;
    std::unordered_map<std::string_view, std::size_t> map_;
    bool hashed_ = false;
};

// Where ContentRules reports a rule broken: the reader by the file's version (ReaderBase::
// engine_rule), SaveWriter as a refusal. An interface rather than a template parameter, so that
// every reader and the writer share one copy of the rules' code; it is called only for a rule
// broken.
class RuleReport {
  public:
    virtual void broken(ErrorCode code, std::size_t offset, std::string path, std::string message,
                        std::string_view legacy_behaviour) = 0;

  protected:
    ~RuleReport() = default;
};

// The rules on what entities and custom state hold (formats/README.md §1.3, 1.4): no
// NameComponent, each component type once per entity, each key once per component and in the
// custom state, a Transform parent an index >= -1 of another entity with a Transform. The reader
// applies them to what it reads, SaveWriter (save_file.cpp) to what it writes: one
// implementation. Each check takes the RuleReport told of a rule broken. The strings given are
// views that stay alive while the entity is read (or are moved with rebase).
class ContentRules {
  public:
    void begin_entities(std::uint64_t count) {
        has_transform_.assign(count, 0);
        entity_count_ = count;
    }
    void entity(std::uint64_t e) {
        entity_ = e;
        components_seen_.clear();
    }
    // A writer's next entity, the count not known before the end (SaveWriter).
    void next_entity() {
        entity(has_transform_.size());
        has_transform_.push_back(0);
        entity_count_ = has_transform_.size();
    }
    // The type of the component being read (named in paths from here on).
    void type(std::string_view type) { type_ = type; }
    // Component-level rules: explicit NameComponent, duplicate type (1.3, 1.4).
    void component(std::size_t offset, RuleReport& rule) {
        if (type_ == k_name_component) {
            rule.broken(
                ErrorCode::name_component, offset, component_path(),
                "expected no NameComponent record (the entity name field carries the name), "
                "found one",
                "accepts it");
        }
        if (const std::size_t first = components_seen_.seen(type_, offset);
            first != RepeatFinder::k_new) {
            rule.broken(ErrorCode::duplicate_component, offset, component_path(),
                        fmt::format("expected each component type once per entity, found {} again "
                                    "(first at offset {:#x})",
                                    display(type_, true), first),
                        "keeps the last one");
        }
        transform_ = type_ == k_transform;
        keys_seen_.clear();
    }
    [[gnu::always_inline]] void property(std::string_view key, std::string_view value,
                                         std::size_t offset, RuleReport& rule) {
        if (const std::size_t first = keys_seen_.seen(key, offset); first != RepeatFinder::k_new)
            repeated_key(key, offset, first, rule);
        if (transform_ && key == k_parent) parent_text(key, value, offset, rule);
    }
    void component_end() {
        if (transform_) has_transform_[entity_] = 1;
    }
    // 1.3: a parent names a different entity of this file that has a Transform.
    void end_entities(RuleReport& rule) {
        for (const auto& p : parents_) {
            if (p.parent < entity_count_ && p.parent != p.entity && has_transform_[p.parent])
                continue;
            std::string path = entity_path(p.entity);
            append_path_name(path, k_transform);
            append_path_name(path, k_parent);
            if (p.parent >= entity_count_) {
                rule.broken(ErrorCode::bad_parent, p.offset, std::move(path),
                            fmt::format("expected the index of an entity (0..{}), found {}",
                                        entity_count_ == 0 ? 0 : entity_count_ - 1, p.parent),
                            "ignores it");
            } else if (p.parent == p.entity) {
                rule.broken(ErrorCode::bad_parent, p.offset, std::move(path),
                            fmt::format("expected another entity, found the entity's own index {}",
                                        p.parent),
                            "ignores it");
            } else if (!has_transform_[p.parent]) {
                rule.broken(
                    ErrorCode::bad_parent, p.offset, std::move(path),
                    fmt::format("expected a parent entity with a Transform, found entity {} "
                                "without one",
                                p.parent),
                    "ignores it");
            }
        }
        parents_.clear();
    }
    void begin_pairs() { pairs_seen_.clear(); }
    void pair(std::string_view key, std::size_t offset, RuleReport& rule) {
        if (const std::size_t first = pairs_seen_.seen(key, offset); first != RepeatFinder::k_new) {
            std::string path(k_custom_state);
            append_path_name(path, key);
            rule.broken(ErrorCode::duplicate_key, offset, std::move(path),
                        fmt::format("expected each custom-state key once, found {} again "
                                    "(first at offset {:#x})",
                                    display(key, true), first),
                        "keeps the last value");
        }
    }
    // The views given moved from `from` to `to` (SaveWriter's output grew).
    void rebase(const char* from, const char* to) {
        components_seen_.rebase(from, to);
        keys_seen_.rebase(from, to);
        type_ = RepeatFinder::moved(type_, from, to);
    }

    std::string entity_path(std::uint64_t e) const {
        std::string p(k_entities);
        append_path_index(p, e);
        return p;
    }
    std::string entity_path() const { return entity_path(entity_); }
    std::string component_path() const {
        std::string p = entity_path();
        append_path_name(p, type_);
        return p;
    }
    std::string property_path(std::string_view key) const {
        std::string p = component_path();
        append_path_name(p, key);
        return p;
    }

  private:
    // 1.3, 1.4: a key repeated in a component. Out of line and cold: the property path (once a
    // property of the file) stays short.
    [[gnu::cold, gnu::noinline]] void repeated_key(std::string_view key, std::size_t offset,
                                                   std::size_t first, RuleReport& rule) const {
        rule.broken(ErrorCode::duplicate_key, offset, property_path(key),
                    fmt::format("expected each property key once per component, found {} again "
                                "(first at offset {:#x})",
                                display(key, true), first),
                    "keeps the last value");
    }
    // 1.3/1.4: a Transform parent is an integer >= -1 with nothing after it.
    void parent_text(std::string_view key, std::string_view value, std::size_t offset,
                     RuleReport& rule) {
        auto index = parse_parent_index(value);
        if (!index || *index < -1) {
            rule.broken(ErrorCode::bad_parent, offset, property_path(key),
                        fmt::format("expected an entity index >= -1 as std::from_chars reads "
                                    "it (an optional -, decimal digits, nothing before or "
                                    "after), found {}",
                                    display(value, true)),
                        "ignores it");
            return;
        }
        if (*index >= 0) parents_.push_back({entity_, static_cast<std::uint64_t>(*index), offset});
    }

    struct PendingParent { // of a Transform
        std::uint64_t entity;
        std::uint64_t parent;
        std::size_t offset;
    };

    std::uint64_t entity_ = 0;
    std::uint64_t entity_count_ = 0;
    std::string_view type_;
    bool transform_ = false;
    RepeatFinder components_seen_;
    RepeatFinder keys_seen_;
    RepeatFinder pairs_seen_;
    std::vector<std::uint8_t> has_transform_;
    std::vector<PendingParent> parents_;
};

// What a Sink is told, in file order (offsets are file offsets). Each member does nothing here: a
// sink derives from SinkDefaults and defines the members it needs (its own hide these). The
// reader is a template over the sink, so every call is resolved at compile time and an empty
// one costs nothing.
struct SinkDefaults {
    void on_header(std::uint32_t /*version*/) {} // the version the payload is read as
    void on_metadata(std::string_view /*block*/, std::size_t /*offset*/, const MetadataBlock&) {}
    void on_entities_begin(std::uint32_t /*count*/, std::size_t /*offset*/) {}
    void on_entity(std::string_view /*name*/, std::size_t /*offset*/, std::uint32_t /*index*/) {}
    void on_component(std::string_view /*type*/, std::size_t /*offset*/) {}
    void on_property(std::string_view /*key*/, std::string_view /*value*/, std::size_t /*offset*/,
                     std::size_t /*end*/) {}
    void on_component_end(std::size_t /*end*/) {}
    void on_entity_end(std::size_t /*end*/) {}
    void on_entities_end(std::size_t /*end*/) {}
    void on_custom_state_begin(bool /*present*/, std::uint32_t /*declared*/,
                               std::size_t /*offset*/) {}
    void on_pair(std::string_view /*key*/, std::string_view /*value*/, std::size_t /*offset*/,
                 std::size_t /*end*/) {}
    void on_custom_state_end(std::size_t /*end*/, std::uint32_t /*complete_pairs*/) {}
    void on_trailing(std::string_view /*bytes*/, std::size_t /*offset*/) {}
    void on_checksum(std::uint32_t /*stored*/, std::size_t /*offset*/) {}
};

// What every reader shares, whatever its sink: the state of a read, the header and CRC-32 checks
// before the payload (start), the metadata block's read, the content rules and every finding's
// message. Not a template, so that its code is one copy for all the sinks (each sink type is a
// copy of Reader<Sink>'s: only the parse that calls the sink is).
class ReaderBase : private RuleReport {
  public:
    ReaderBase(std::string_view data, Findings& findings, bool salvage, const CrcHint& crc)
        : data_(data), findings_(findings), salvage_(salvage), known_crc_(crc.known),
          await_crc_(crc.await ? &crc.await : nullptr) {}

    bool needs_rerun() const noexcept { return needs_rerun_; }
    // Errors that are misreadings of a file the engine still loads (shifted metadata fields);
    // every other error is a refusal.
    std::size_t misreads() const noexcept { return misreads_; }
    std::uint32_t crc() const noexcept { return crc_; }
    std::uint32_t version() const noexcept { return version_; }
    // Where the payload (everything before a v4 trailer) ended, when it was read to the end.
    std::optional<std::size_t> payload_end() const noexcept { return payload_end_; }

  protected:
    ~ReaderBase() = default;

    // What the header and the CRC-32 say (start()): stop (an error ended the read), or read the
    // payload up to `payload_end` (then the trailer at `trailer_at`, if any), with the CRC-32
    // being computed alongside (`alongside`: finish_alongside() decides afterwards).
    struct Start {
        bool stop = false;
        bool alongside = false;
        std::size_t payload_end = 0;
        std::optional<std::size_t> trailer_at;
    };

    [[gnu::noinline]] Start start() {
        const std::size_t size = data_.size();
        Start s;
        s.stop = true;
        if (size < k_min_file_size) {
            error(ErrorCode::truncated, 0, {},
                  fmt::format("expected at least {} bytes (magic and version), found {}",
                              k_min_file_size, size));
            return s;
        }
        if (size > k_max_file_size) {
            error(ErrorCode::too_large, 0, {},
                  fmt::format("expected at most {} bytes (512 MiB), found {}", k_max_file_size,
                              size));
            return s;
        }
        if (data_.substr(0, 4) != k_magic) {
            error(ErrorCode::bad_magic, 0, {},
                  "expected the magic \"SPRK\", found " + display(data_.substr(0, 4), true));
            return s;
        }
        const std::uint32_t stored_version = load_u32(data_, 4);
        version_ = stored_version;
        s.payload_end = size;
        // The CRC-32 of bytes [0, size-4) read as a v4 file: the v4 check, and for other
        // version fields the damaged-version test (1.5).
        auto whole = [this] { return whole_crc(data_); };

        if (!known_crc_ && await_crc_) {
            // A large file (crc_alongside): its CRC is being computed on another thread. Parse
            // on the assumption that the checksum is right, check it afterwards.
            if (stored_version == k_current_version) {
                s.payload_end = size - 4;
                s.trailer_at = size - 4;
            }
            s.stop = false;
            s.alongside = true;
            return s;
        }

        if (stored_version != k_current_version) {
            // 1.5: a v1..v3 (or >4) field over a file whose trailer verifies as v4 is a damaged
            // v4 save; parsing it as the older version would skip the checksum.
            if (size >= 12 && crc(whole) == load_u32(data_, size - 4)) {
                error(ErrorCode::damaged_version, 4, "version",
                      fmt::format("expected version 4, found {}: the file ends in a CRC-32 that "
                                  "verifies only with version 4, so this is a v4 save whose "
                                  "version field was damaged",
                                  stored_version));
                if (!salvage_) return s;
                version_ = k_current_version;
                s.payload_end = size - 4;
                s.trailer_at = size - 4;
            } else if (stored_version == 0 || stored_version > k_current_version) {
                error(ErrorCode::unsupported_version, 4, "version",
                      fmt::format("expected a version from 1 to {}, found {}", k_current_version,
                                  stored_version));
                return s;
            }
        } else {
            if (size < 12) {
                error(ErrorCode::truncated, size, "checksum",
                      fmt::format("expected at least 12 bytes in a v4 save (magic, version, "
                                  "metadata size, checksum), found {}",
                                  size));
                return s;
            }
            s.payload_end = size - 4;
            s.trailer_at = size - 4;
            const std::uint32_t stored = load_u32(data_, size - 4);
            const std::uint32_t computed = crc(whole);
            if (stored != computed) {
                // A valid trailer followed by more bytes ("extended") is told apart from a
                // plain mismatch by finding where the payload really ends.
                auto end = scan_payload_end();
                if (end && *end + 4 < size &&
                    crc32(data_.substr(0, *end)) == load_u32(data_, *end)) {
                    error(ErrorCode::trailing_bytes, *end + 4, "checksum",
                          fmt::format("expected the file to end after the CRC-32 trailer at "
                                      "offset {:#x}, found {} more",
                                      *end, byte_count(size - *end - 4)));
                    s.payload_end = *end;
                    s.trailer_at = *end;
                } else {
                    error(
                        ErrorCode::checksum_mismatch, size - 4, "checksum",
                        fmt::format("expected CRC-32 {:#010x} (of bytes 0..{:#x}), found {:#010x}",
                                    computed, size - 4, stored));
                }
                if (!salvage_) return s;
            }
        }
        s.stop = false;
        return s;
    }

    // After a parse with the CRC-32 computed alongside: false when the CRC shows the file is not
    // what the parse assumed (a checksum mismatch or a damaged version field; needs_rerun()),
    // else the parse's `ok`.
    [[gnu::noinline]] bool finish_alongside(bool ok) {
        const std::size_t size = data_.size();
        crc_ = (*await_crc_)();
        const bool as_assumed =
            (load_u32(data_, 4) == k_current_version) == (crc_ == load_u32(data_, size - 4));
        if (!as_assumed) {
            needs_rerun_ = true;
            return false;
        }
        return ok;
    }

    // The whole-file CRC: the known one, or computed now (once).
    template <class F> std::uint32_t crc(F&& compute) {
        if (!known_crc_) known_crc_ = compute();
        crc_ = *known_crc_;
        return crc_;
    }

    // The version's own finding, before the payload.
    [[gnu::noinline]] void check_version() {
        if (!current_rules(version_)) {
            warning(ErrorCode::needs_migration, 4, "version",
                    fmt::format("version {}: the current engine refuses this version (it loads "
                                "v3 and v4): run `sparksave migrate`",
                                version_));
        }
    }

    // Where the payload ends when `data_` is read as v4 with no trailer cut off; nullopt when
    // its structure does not parse. Reports nothing.
    std::optional<std::size_t> scan_payload_end();

    // The metadata size and block (1.2), parsed into `meta`; false (reported) when the read
    // stops here.
    [[gnu::noinline]] bool read_metadata(ByteReader& r, std::string_view& block,
                                         std::size_t& offset, MetadataBlock& meta) {
        const bool current = current_rules(version_);
        const std::uint32_t meta_size = r.u32();
        if (!r.ok()) return truncated(r, "the metadata size", "metadata");
        if (meta_size > k_max_meta_size) {
            if (current) {
                error(ErrorCode::limit_exceeded, 8, "metadata",
                      fmt::format("expected a metadata size of at most {} bytes, found {}",
                                  k_max_meta_size, meta_size));
                return false;
            }
            warning(ErrorCode::limit_exceeded, 8, "metadata",
                    fmt::format("the metadata block is {} bytes, above the {} the engine's save "
                                "list reads and the current engine accepts: migration will fail",
                                meta_size, k_max_meta_size));
        }
        if (!r.has(meta_size)) {
            error(ErrorCode::truncated, r.pos(), "metadata",
                  fmt::format("expected a {}-byte metadata block, found {}", meta_size,
                              byte_count(r.remaining())));
            return false;
        }
        offset = r.pos();
        block = r.bytes(meta_size);
        parse_metadata(block, offset, meta);
        return true;
    }

    [[gnu::noinline]] void parse_metadata(std::string_view block, std::size_t base,
                                          MetadataBlock& meta) {
        parse_metadata_block(
            block, base, version_, meta,
            [this](std::size_t offset, std::string path, std::string message) {
                metadata_problem(offset, std::move(path), std::move(message));
            },
            [this](std::size_t offset, std::string path, std::string message) {
                warning(ErrorCode::bad_metadata, offset, std::move(path), std::move(message));
            },
            [this](std::size_t offset, std::string path, std::string message) {
                // sparksave-verify(1) SEVERITY: read, but not as written: an error the engine still
                // loads.
                error(ErrorCode::bad_metadata, offset, std::move(path), std::move(message));
                ++misreads_;
            });
    }

    [[gnu::noinline]] void metadata_problem(std::size_t offset, std::string path,
                                            std::string message) {
        if (current_rules(version_)) {
            error(ErrorCode::bad_metadata, offset, std::move(path), std::move(message));
        } else {
            warning_because(ErrorCode::bad_metadata, offset, std::move(path), std::move(message),
                            fmt::format("the v{}-era reader does not check this and loads the "
                                        "file; the later v1..v2 reader and the current engine "
                                        "refuse it, so migration will fail",
                                        version_));
        }
    }

    // A v1/v2 name or type above the v1-era reader's 4096 bytes (1.4): accepted by the later
    // v1..v2 reader and the current engine, refused by the first one.
    [[gnu::cold, gnu::noinline]] void legacy_length(std::size_t offset, std::string path,
                                                    std::string_view what, std::size_t length) {
        warning(ErrorCode::limit_exceeded, offset, std::move(path),
                fmt::format("{} of {} bytes: the v{}-era reader refuses more than {} (the later "
                            "v1..v2 reader and the current engine accept up to 65535)",
                            what, length, version_, k_max_legacy_string));
    }

    // A count the bytes left cannot hold (1.4: each item takes at least `min_size` bytes).
    [[gnu::cold, gnu::noinline]] bool no_room(std::size_t offset, std::string path,
                                              std::uint64_t count, std::string_view what,
                                              std::uint64_t min_size, std::size_t remaining) {
        error(ErrorCode::truncated, offset, std::move(path),
              fmt::format("expected room for {} {} (at least {} bytes), found {}", count, what,
                          count * min_size, byte_count(remaining)));
        return false;
    }

    // 1.4: more components or properties in all than the current engine takes.
    [[gnu::cold, gnu::noinline]] bool too_many_in_all(std::size_t offset, std::string path,
                                                      std::string_view what) {
        error(ErrorCode::limit_exceeded, offset, std::move(path),
              fmt::format("expected at most {} {} in all, found more", k_max_aggregate, what));
        return false;
    }

    // The 4-byte count of the custom state (1.1, 1.4) at `r`: false (reported) when the read
    // stops here; `present` false when a v1/v2 save ends without it (a warning).
    [[gnu::noinline]] bool read_custom_state_count(ByteReader& r, bool& present,
                                                   std::uint32_t& declared) {
        const bool current = current_rules(version_);
        const std::size_t cs_off = r.pos();
        present = r.has(4);
        if (!present) {
            if (current) {
                error(ErrorCode::truncated, cs_off, std::string(k_custom_state),
                      fmt::format("expected the 4-byte custom-state count, found {}",
                                  byte_count(r.remaining())));
                return false;
            }
            // 1.4: optional for the v1-era reader, mandatory for the later v1..v2 reader.
            warning(ErrorCode::truncated, cs_off, std::string(k_custom_state),
                    fmt::format("no custom-state count: the v{}-era reader lets a save end after "
                                "its entities, the later v1..v2 reader and the current engine "
                                "refuse it (migration writes a count of 0)",
                                version_));
            return true;
        }
        declared = r.u32();
        if (declared > k_max_custom_state) {
            error(ErrorCode::limit_exceeded, cs_off, std::string(k_custom_state),
                  fmt::format("expected at most {} custom-state pairs, found a count of {}",
                              k_max_custom_state, declared));
            return false;
        }
        if (current && declared > r.remaining() / k_min_pair_size)
            return no_room(cs_off, std::string(k_custom_state), declared, "custom-state pairs",
                           k_min_pair_size, r.remaining());
        return true;
    }

    // A custom-state pair the data ends inside (at `probe`, which started at `pair_off`): false
    // for v3/v4 (an error, the read stops); for v1/v2 a warning, and the list ends there.
    [[gnu::cold, gnu::noinline]] bool custom_state_cut(const ByteReader& probe,
                                                       std::size_t pair_off, std::string_view key,
                                                       std::uint32_t declared,
                                                       std::uint32_t complete) {
        if (current_rules(version_)) {
            std::string path(k_custom_state);
            if (!key.empty()) append_path_name(path, key);
            return truncated(probe, pair_field(probe, pair_off, key, "custom-state"),
                             std::move(path));
        }
        // 1.4: a truncated pair ends a v1/v2 list silently; the rest is lost.
        warning(ErrorCode::dropped_pairs, pair_off, std::string(k_custom_state),
                fmt::format("expected {} custom-state pairs, found the data ending "
                            "inside pair {}: the v{} reader keeps the first {} and "
                            "silently drops the rest",
                            declared, complete, version_, complete));
        return true;
    }

    // Bytes after the custom state (1.4): an error for v3/v4, a warning for v1/v2.
    [[gnu::cold, gnu::noinline]] void trailing_payload(std::size_t offset, std::size_t extra) {
        if (current_rules(version_)) {
            error(ErrorCode::trailing_bytes, offset, {},
                  fmt::format("expected the data to end after the custom state, found {} "
                              "more",
                              byte_count(extra)));
        } else {
            warning(ErrorCode::trailing_bytes, offset, {},
                    fmt::format("{} after the end of the save: the v{} reader ignores "
                                "them and migration drops them",
                                byte_count(extra), version_));
        }
    }

    // A rule the current engine enforces and the v1/v2 readers tolerated: an error for v3/v4,
    // a warning naming the consequence for v1/v2.
    [[gnu::noinline]] void engine_rule(ErrorCode code, std::size_t offset, std::string path,
                                       std::string message, std::string_view legacy_behaviour) {
        if (current_rules(version_)) {
            error(code, offset, std::move(path), std::move(message));
        } else {
            warning_because(code, offset, std::move(path), std::move(message),
                            fmt::format("the v{} reader {}; the current engine refuses it, so "
                                        "migration will fail until it is fixed",
                                        version_, legacy_behaviour));
        }
    }

    // ContentRules' report of a rule broken.
    RuleReport& rule() noexcept { return *this; }
    std::string entity_path() const { return rules_.entity_path(); }
    std::string component_path() const { return rules_.component_path(); }
    std::string property_path(std::string_view key) const { return rules_.property_path(key); }

    // Reads `u16 keyLen, key, u16 valueLen, value`; false when the data ends first (`key` is
    // set when the key itself was read).
    static bool read_pair(ByteReader& r, std::string_view& key, std::string_view& value) {
        const std::uint16_t key_len = r.u16();
        std::string_view k = r.bytes(key_len);
        if (r.ok()) key = k;
        const std::uint16_t value_len = r.u16();
        value = r.bytes(value_len);
        return r.ok();
    }

    // Which field of a key/value pair starting at `start` a short read stopped in.
    static std::string pair_field(const ByteReader& r, std::size_t start, std::string_view key,
                                  std::string_view kind) {
        const std::size_t at = r.failed_at();
        if (at == start) return fmt::format("the {} key length", kind);
        if (at == start + 2) return fmt::format("the {} key", kind);
        if (at == start + 2 + key.size()) return fmt::format("the {} value length", kind);
        return fmt::format("the {} value", kind);
    }

    [[gnu::cold, gnu::noinline]] bool truncated(const ByteReader& r, std::string_view what,
                                                std::string path) {
        std::size_t at = r.failed_at();
        std::size_t left = r.size() - at;
        error(ErrorCode::truncated, at, std::move(path),
              fmt::format("expected {} ({} bytes), found {}", what, r.wanted(), byte_count(left)));
        return false;
    }
    // A short read of a pair starting at `start` (a property's: key set when it was read).
    [[gnu::cold, gnu::noinline]] bool truncated_pair(const ByteReader& r, std::size_t start,
                                                     std::string_view key) {
        return truncated(r, pair_field(r, start, key, "property"),
                         key.empty() ? component_path() : property_path(key));
    }

    // Out of line and cold: findings are rare, and their code kept out of the parse loop.
    [[gnu::cold, gnu::noinline]] void error(ErrorCode code, std::size_t offset, std::string path,
                                            std::string message) {
        add_at(findings_, Severity::error, code, offset, std::move(path), std::move(message));
    }
    [[gnu::cold, gnu::noinline]] void warning(ErrorCode code, std::size_t offset, std::string path,
                                              std::string message) {
        add_at(findings_, Severity::warning, code, offset, std::move(path), std::move(message));
    }

    [[gnu::cold, gnu::noinline]] void warning_because(ErrorCode code, std::size_t offset,
                                                      std::string path, std::string rule,
                                                      std::string consequence) {
        add_with_consequence(findings_, Severity::warning, code, offset, std::move(path),
                             std::move(rule), consequence);
    }

    std::string_view data_;
    Findings& findings_;
    bool salvage_;
    std::optional<std::uint32_t> known_crc_;
    const std::function<std::uint32_t()>* await_crc_;
    std::uint32_t crc_ = 0;
    bool needs_rerun_ = false;
    std::size_t misreads_ = 0;
    std::uint32_t version_ = 0;
    std::optional<std::size_t> payload_end_;
    std::uint64_t total_components_ = 0;
    std::uint64_t total_properties_ = 0;
    ContentRules rules_;

  private:
    void broken(ErrorCode code, std::size_t offset, std::string path, std::string message,
                std::string_view legacy_behaviour) override {
        engine_rule(code, offset, std::move(path), std::move(message), legacy_behaviour);
    }
};

template <class Sink> class Reader final : public ReaderBase {
  public:
    // `crc`: what read_with_crc (sparksave/alongside.hpp) knows of the whole-file CRC: computed
    // before this read, or being computed alongside it (a large file), or neither (the reader
    // computes it when it needs it). The hint outlives the read.
    Reader(std::string_view data, Findings& findings, Sink& sink, bool salvage = true,
           const CrcHint& crc = {})
        : ReaderBase(data, findings, salvage, crc), sink_(sink) {}

    // Reads the whole file. Returns false when an error stopped the read early, or when the
    // CRC computed alongside the parse shows the file is not what the parse assumed (a checksum
    // mismatch or a damaged version field): then needs_rerun() is true and read_with_crc reads
    // again, with a fresh sink and findings, knowing the CRC.
    bool run() {
        const Start s = start();
        if (s.stop) return false;
        const bool ok = parse_all(s.payload_end, s.trailer_at, data_.size());
        return s.alongside ? finish_alongside(ok) : ok;
    }

  private:
    friend class ReaderBase; // its scan_payload_end reads a payload with a Reader<NullSink>

    bool halted() const {
        if constexpr (requires { sink_.halted(); })
            return sink_.halted();
        else
            return false;
    }

    // Everything after the header checks: the payload, then the trailer and what follows it.
    bool parse_all(std::size_t payload_end, std::optional<std::size_t> trailer_at,
                   std::size_t size) {
        sink_.on_header(version_);
        check_version();
        bool ok = parse_payload(data_.substr(0, payload_end));
        if (ok && trailer_at) {
            sink_.on_checksum(load_u32(data_, *trailer_at), *trailer_at);
            if (*trailer_at + 4 < size)
                sink_.on_trailing(data_.substr(*trailer_at + 4), *trailer_at + 4);
        }
        return ok;
    }

    bool parse_payload(std::string_view payload) {
        ByteReader r(as_bytes(payload), 8);
        const bool current = current_rules(version_);

        // Metadata (1.2).
        std::string_view block;
        std::size_t meta_off = 0;
        MetadataBlock meta;
        if (!read_metadata(r, block, meta_off, meta)) return false;
        sink_.on_metadata(block, meta_off, meta);

        // Entities (1.1, 1.4).
        const std::size_t count_off = r.pos();
        const std::uint32_t entity_count = r.u32();
        if (!r.ok()) return truncated(r, "the entity count", "entities");
        if (entity_count > k_max_entities) {
            error(ErrorCode::limit_exceeded, count_off, "entities",
                  fmt::format("expected at most {} entities, found a count of {}", k_max_entities,
                              entity_count));
            return false;
        }
        if (entity_count > r.remaining() / k_min_entity_size)
            return no_room(count_off, "entities", entity_count, "entities", k_min_entity_size,
                           r.remaining());
        sink_.on_entities_begin(entity_count, count_off);
        if (halted()) return false;
        rules_.begin_entities(entity_count);

        for (std::uint32_t e = 0; e < entity_count; ++e) {
            rules_.entity(e);
            const std::size_t entity_off = r.pos();
            const std::uint16_t name_len = r.u16();
            if (!r.ok()) return truncated(r, "the entity name length", entity_path());
            // 1.4: the v1-era reader capped names at 4096 bytes; the later v1..v2 reader (and
            // the current engine) take any u16 length, so a longer name is only at risk.
            if (!current && name_len > k_max_legacy_string) [[unlikely]]
                legacy_length(entity_off, entity_path(), "an entity name", name_len);
            const std::string_view name = r.bytes(name_len);
            if (!r.ok()) return truncated(r, "the entity name", entity_path());
            const std::size_t comp_count_off = r.pos();
            const std::uint16_t component_count = r.u16();
            if (!r.ok()) return truncated(r, "the component count", entity_path());
            if (component_count > r.remaining() / k_min_component_size)
                return no_room(comp_count_off, entity_path(), component_count, "components",
                               k_min_component_size, r.remaining());
            sink_.on_entity(name, entity_off, e);
            for (std::uint16_t c = 0; c < component_count; ++c) {
                const std::size_t comp_off = r.pos();
                const std::uint16_t type_len = r.u16();
                if (!r.ok()) return truncated(r, "the component type length", entity_path());
                if (!current && type_len > k_max_legacy_string) [[unlikely]]
                    legacy_length(comp_off, entity_path(), "a component type", type_len);
                const std::string_view type = r.bytes(type_len);
                if (!r.ok()) return truncated(r, "the component type", entity_path());
                rules_.type(type);
                const std::size_t prop_count_off = r.pos();
                const std::uint16_t property_count = r.u16();
                if (!r.ok()) return truncated(r, "the property count", component_path());
                if (property_count > r.remaining() / k_min_pair_size)
                    return no_room(prop_count_off, component_path(), property_count, "properties",
                                   k_min_pair_size, r.remaining());
                if (current && ++total_components_ > k_max_aggregate)
                    return too_many_in_all(comp_off, component_path(), "components");
                rules_.component(comp_off, rule());
                sink_.on_component(type, comp_off);
                for (std::uint16_t p = 0; p < property_count; ++p) {
                    const std::size_t prop_off = r.pos();
                    std::string_view key, value;
                    if (!read_pair(r, key, value)) return truncated_pair(r, prop_off, key);
                    if (current && ++total_properties_ > k_max_aggregate)
                        return too_many_in_all(prop_off, component_path(), "properties");
                    rules_.property(key, value, prop_off, rule());
                    sink_.on_property(key, value, prop_off, r.pos());
                }
                rules_.component_end();
                sink_.on_component_end(r.pos());
            }
            sink_.on_entity_end(r.pos());
            if (halted()) return false;
        }
        sink_.on_entities_end(r.pos());
        rules_.end_entities(rule());

        // Custom state (1.1, 1.4).
        const std::size_t cs_off = r.pos();
        bool present = false;
        std::uint32_t declared = 0;
        if (!read_custom_state_count(r, present, declared)) return false;
        if (!present) {
            sink_.on_custom_state_begin(false, 0, cs_off);
            sink_.on_custom_state_end(cs_off, 0);
        } else {
            sink_.on_custom_state_begin(true, declared, cs_off);
            std::uint32_t complete = 0;
            rules_.begin_pairs();
            for (; complete < declared; ++complete) {
                const std::size_t pair_off = r.pos();
                ByteReader probe = r;
                std::string_view key, value;
                if (!read_pair(probe, key, value)) {
                    if (!custom_state_cut(probe, pair_off, key, declared, complete)) return false;
                    break;
                }
                r = probe;
                rules_.pair(key, pair_off, rule());
                sink_.on_pair(key, value, pair_off, r.pos());
            }
            sink_.on_custom_state_end(r.pos(), complete);
        }

        payload_end_ = r.pos();
        if (!r.at_end()) {
            trailing_payload(r.pos(), r.remaining());
            sink_.on_trailing(payload.substr(r.pos()), r.pos());
        }
        return true;
    }

    Sink& sink_;
};

// The sink of the structure-only reads: the reader's own scan (scan_payload_end), the metadata
// read and the slots' check of a whole file (save_file.cpp), the read-back check of a migration's
// result and of SaveWriter's block (read_back). It keeps the version the payload is read as and
// the metadata block as parsed (views into the bytes read), nothing else: one instantiation of
// the reader serves them all (each sink type is a copy of the reader's code).
struct NullSink : SinkDefaults {
    std::uint32_t version = 0;
    std::optional<MetadataBlock> block;
    void on_header(std::uint32_t v) { version = v; }
    void on_metadata(std::string_view, std::size_t, const MetadataBlock& m) { block = m; }
};

inline std::optional<std::size_t> ReaderBase::scan_payload_end() {
    Findings ignored;
    NullSink null;
    Reader<NullSink> scan(data_, ignored, null, false);
    scan.version_ = k_current_version;
    scan.parse_payload(data_);
    return scan.payload_end();
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
