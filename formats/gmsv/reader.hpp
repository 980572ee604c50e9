// The GMSV reader: one pass over the bytes that applies every check of spec.hpp (formats/README.md
// §5) and reports what it reads to a Sink. The tree builder (read.cpp) and the summary for
// `info`/`verify` (summarize.cpp) are sinks, so every rule lives here, once.
//
// The members a sink may define are those of SinkDefaults, below.
#pragma once

#include "dotnet.hpp"
#include "rules.hpp"
#include "spec.hpp"
#include "tree.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/error.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

// What a Sink is told, in file order (offsets are file offsets). Each member does nothing here: a
// sink derives from SinkDefaults and defines the members it needs (its own hide these). The
// reader is a template over the sink, so every call is resolved at compile time and an empty
// one costs nothing. A read that stops early leaves containers open; the sink closes them when
// it is done.
struct SinkDefaults {
    // After the 14-byte header.
    void on_header(std::uint32_t /*version*/, std::int64_t /*timestamp*/) {}
    void on_entities_begin(std::uint32_t /*count*/, std::size_t /*offset*/) {}
    void on_entity(std::string_view /*guid_bytes*/, std::size_t /*offset*/) {}
    // One component record [offset, end).
    void on_component(std::uint16_t /*type*/, std::string_view /*data*/, std::size_t /*offset*/,
                      std::size_t /*end*/) {}
    void on_entity_end(std::size_t /*end*/) {}
    void on_entities_end(std::size_t /*end*/) {}
    void on_checksum(std::uint32_t /*stored*/, std::size_t /*offset*/) {}
    void on_trailing(std::string_view /*bytes*/, std::size_t /*offset*/) {}
};

template <class Sink> class Reader {
  public:
    Reader(std::string_view data, Findings& findings, Sink& sink)
        : data_(data), findings_(findings), sink_(sink) {}

    // Reads the whole file; false when an error stopped the read before the end.
    bool run() {
        const std::size_t size = data_.size();
        if (size < k_magic.size())
            return error(ErrorCode::truncated, 0, {},
                         fmt::format("expected at least 4 bytes (the magic \"GMSV\"), found {}",
                                     byte_count(size)));
        if (data_.substr(0, 4) != k_magic)
            return error(ErrorCode::bad_magic, 0, {},
                         "expected the magic \"GMSV\", found " + display(data_.substr(0, 4), true));
        if (size > k_max_file_size)
            return error(
                ErrorCode::too_large, 0, {},
                fmt::format("expected at most {} bytes (128 MiB, a sparksave limit), found {}",
                            k_max_file_size, size));
        ByteReader r(as_bytes(data_), k_off_version);
        version_ = r.u16();
        if (!r.ok()) return truncated(r, "the 2-byte schema version", "version");
        version_known_ = true;
        if (version_ < k_oldest_version || version_ > k_current_version)
            error(ErrorCode::unsupported_version, k_off_version, "version",
                  fmt::format("expected a schema version from 1 to {} (the design's "
                              "SaveVersion.Current), found {}",
                              k_current_version, version_));
        const std::int64_t timestamp = r.i64();
        if (!r.ok()) return truncated(r, "the 8-byte timestamp", std::string(k_timestamp));
        const DotNetTime time = from_binary(timestamp);
        if (!time.valid)
            warning(ErrorCode::bad_value, k_off_timestamp, std::string(k_timestamp),
                    fmt::format("expected a DateTime.ToBinary() value of 0001-01-01 to 9999-12-31, "
                                "found {} ({} "
                                "ticks, kind {}): DateTime.FromBinary throws for it",
                                timestamp, time.ticks, kind_name(time.kind)));
        sink_.on_header(version_, timestamp);

        // The data section (5): what the CRC-32 covers.
        const std::int32_t count = r.i32();
        if (!r.ok()) return truncated(r, "the 4-byte entity count", std::string(k_entities));
        if (count < 0)
            return error(ErrorCode::bad_value, k_off_data, std::string(k_entities),
                         fmt::format("expected a non-negative entity count, found {}", count));
        if (static_cast<std::uint64_t>(count) > r.remaining() / k_min_entity_size)
            return error(
                ErrorCode::truncated, k_off_data, std::string(k_entities),
                fmt::format("expected room for {} entities (at least {} bytes each), found {}",
                            count, k_min_entity_size, byte_count(r.remaining())));
        sink_.on_entities_begin(static_cast<std::uint32_t>(count), k_off_data);
        std::vector<std::pair<std::string_view, std::uint32_t>> guids; // for repeated GUIDs
        guids.reserve(static_cast<std::size_t>(count));
        entity_offsets_.reserve(static_cast<std::size_t>(count));
        for (std::int32_t e = 0; e < count; ++e) {
            const std::size_t entity_at = r.pos();
            const std::string_view guid = r.bytes(k_guid_size);
            const std::uint16_t components = r.u16();
            if (!r.ok())
                return truncated(r, "the entity's GUID and component count", entity_path(e));
            guids.emplace_back(guid, static_cast<std::uint32_t>(e));
            entity_offsets_.push_back(static_cast<std::uint32_t>(entity_at));
            if (components > r.remaining() / k_min_component_size)
                return error(
                    ErrorCode::truncated, entity_at + k_guid_size, entity_path(e),
                    fmt::format(
                        "expected room for {} components (at least {} bytes each), found {}",
                        components, k_min_component_size, byte_count(r.remaining())));
            sink_.on_entity(guid, entity_at);
            // Type ids seen in this entity: a bit each, cleared again after the entity.
            if (seen_.empty()) seen_.assign(0x10000 / 64, 0);
            for (std::uint16_t t : touched_) seen_[t / 64] = 0;
            touched_.clear();
            for (std::uint16_t c = 0; c < components; ++c) {
                const std::size_t at = r.pos();
                const std::uint16_t type = r.u16();
                const std::int32_t length = r.i32();
                auto path = [&] {
                    std::string p = entity_path(e);
                    append_path_name(p, component_name(type));
                    return p;
                };
                if (!r.ok())
                    return truncated(r, "the component's type id and data length",
                                     r.failed_at() == at ? entity_path(e) : path());
                if (length < 0)
                    return error(
                        ErrorCode::bad_value, at + 2, path(),
                        fmt::format("expected a non-negative data length, found {}", length));
                if (static_cast<std::uint64_t>(length) > r.remaining())
                    return error(ErrorCode::truncated, at + 6, path(),
                                 fmt::format("expected {} of component data, found {}",
                                             byte_count(length), byte_count(r.remaining())));
                const std::string_view payload = r.bytes(static_cast<std::size_t>(length));
                const bool known = type >= 1 && type < k_type_names.size();
                if (!known)
                    warning(ErrorCode::unknown_type, at, path(),
                            fmt::format(
                                "expected a registered component type id (1 Position, 2 Health, 3 "
                                "Inventory, 4 StableId), found {}: a reader without it throws on "
                                "_readers[typeId]",
                                type));
                const bool repeated = (seen_[type / 64] >> (type % 64)) & 1;
                if (repeated)
                    error(ErrorCode::duplicate_component, at, path(),
                          fmt::format("expected each component type once per entity, found type {} "
                                      "({}) again: the "
                                      "design keys an entity's components by type id",
                                      type, component_name(type)));
                seen_[type / 64] |= std::uint64_t{1} << (type % 64);
                touched_.push_back(type);
                sink_.on_component(type, payload, at, r.pos());
            }
            sink_.on_entity_end(r.pos());
        }
        sink_.on_entities_end(r.pos());
        repeated_guids(guids);

        const std::size_t crc_at = r.pos();
        const std::uint32_t stored = r.u32();
        if (!r.ok())
            return truncated(r, "the 4-byte CRC-32 after the entity table",
                             std::string(k_checksum));
        stored_ = stored;
        const std::uint32_t computed = crc32(data_.substr(k_off_data, crc_at - k_off_data));
        crc_checked_ = true;
        crc_ok_ = stored == computed;
        if (!crc_ok_)
            error(ErrorCode::checksum_mismatch, crc_at, std::string(k_checksum),
                  fmt::format("expected CRC-32 {:#010x} (of the data section, bytes {:#x}..{:#x}), "
                              "found {:#010x}",
                              computed, k_off_data, crc_at, stored));
        sink_.on_checksum(stored, crc_at);
        if (!r.at_end()) {
            warning(ErrorCode::trailing_bytes, r.pos(), {},
                    fmt::format("{} after the CRC-32: the design's reader stops at the checksum "
                                "and ignores them",
                                byte_count(r.remaining())));
            sink_.on_trailing(data_.substr(r.pos()), r.pos());
        }
        return true;
    }

    std::uint32_t version() const noexcept { return version_; }
    bool version_known() const noexcept { return version_known_; }
    bool crc_checked() const noexcept { return crc_checked_; }
    bool crc_ok() const noexcept { return crc_ok_; }
    std::optional<std::uint32_t> stored_crc() const noexcept { return stored_; }

  private:
    // EntityIdMap (seed 003, 4) maps each GUID to one entity: a GUID on two entities loses one.
    void repeated_guids(std::vector<std::pair<std::string_view, std::uint32_t>>& guids) {
        std::sort(guids.begin(), guids.end());
        std::vector<std::pair<std::uint32_t, std::uint32_t>> repeats; // (entity, first entity)
        for (std::size_t i = 1; i < guids.size(); ++i) {
            std::size_t first = i - 1;
            while (i < guids.size() && guids[i].first == guids[first].first)
                repeats.emplace_back(guids[i++].second, guids[first].second);
        }
        std::sort(repeats.begin(), repeats.end());
        for (const auto& [e, first] : repeats) {
            warning(ErrorCode::duplicate_key, entity_offsets_[e], entity_path(e),
                    fmt::format("expected each entity GUID once, found {} again (first on "
                                "entities[{}]): EntityIdMap "
                                "keeps only the last, so references to it resolve to one of them",
                                guid_text(data_.substr(entity_offsets_[e], k_guid_size)), first));
        }
    }

    bool truncated(const ByteReader& r, std::string_view what, std::string path) {
        return error(
            ErrorCode::truncated, r.failed_at(), std::move(path),
            fmt::format("expected {}, found {}", what, byte_count(r.size() - r.failed_at())));
    }
    bool error(ErrorCode code, std::size_t offset, std::string path, std::string message) {
        add_at(findings_, Severity::error, code, offset, std::move(path), std::move(message));
        return false;
    }
    void warning(ErrorCode code, std::size_t offset, std::string path, std::string message) {
        add_at(findings_, Severity::warning, code, offset, std::move(path), std::move(message));
    }

    std::string_view data_;
    Findings& findings_;
    Sink& sink_;
    std::uint32_t version_ = 0;
    bool version_known_ = false;
    bool crc_checked_ = false;
    bool crc_ok_ = false;
    std::optional<std::uint32_t> stored_;
    std::vector<std::uint32_t> entity_offsets_;
    std::vector<std::uint64_t> seen_;    // component type ids of the current entity, as bits
    std::vector<std::uint16_t> touched_; // the ids set in seen_
};

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
