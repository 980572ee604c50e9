// The tess world archive reader: one pass over the bytes that applies every check of
// formats/README.md §4.3 in its order and reports what it reads to a Sink. The tree builder
// (read.cpp) and the summary for `info`/`verify` (summarize.cpp) are sinks, so every rule lives
// here, once.
//
// The members a sink may define are those of SinkDefaults, below.
#pragma once

#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/column.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/error.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

// What a Sink is told, in file order (offsets are file offsets). Each member does nothing here: a
// sink derives from SinkDefaults and defines the members it needs (its own hide these). The
// reader is a template over the sink, so every call is resolved at compile time and an empty
// one costs nothing. A read that stops early leaves containers open; the sink closes them when
// it is done.
struct SinkDefaults {
    void on_header(const Header&) {} // the 121-byte header, before any check on it
    void on_descriptors_begin(std::size_t /*offset*/) {}
    void on_descriptor(const Descriptor&, std::size_t /*offset*/) {}
    void on_descriptors_end(std::size_t /*end*/) {}
    void on_chunks_begin(std::size_t /*offset*/) {}
    void on_chunk(const ChunkPrefix&, std::size_t /*offset*/) {}
    void on_column(std::size_t /*field*/, ColumnType, std::string_view /*bytes*/,
                   std::size_t /*offset*/) {}
    void on_chunk_end(std::size_t /*end*/) {}
    void on_chunks_end(std::size_t /*end*/) {}
};

template <class Sink> class Reader {
  public:
    Reader(std::string_view data, Findings& findings, Sink& sink, bool salvage = true)
        : data_(data), findings_(findings), sink_(sink), salvage_(salvage) {}

    // Reads the whole file; false when an error ended the read.
    bool run() {
        const std::size_t size = data_.size();
        if (size < k_magic.size())
            return fail(
                ErrorCode::truncated, Status::truncated, 0, {},
                fmt::format("expected at least 8 bytes (the magic \"TESSWLD\\0\"), found {}",
                            byte_count(size)));
        if (data_.substr(0, k_magic.size()) != k_magic)
            return fail(ErrorCode::bad_magic, Status::invalid_magic, 0, {},
                        "expected the magic \"TESSWLD\\0\", found " +
                            display(data_.substr(0, k_magic.size()), true));
        if (size > k_max_file_size)
            return fail(ErrorCode::too_large, Status::ok, 0, {},
                        fmt::format("expected at most {} bytes (256 MiB, a sparksave limit: tess "
                                    "sets none), found {}",
                                    k_max_file_size, size));
        if (size < k_off_version + 4)
            return fail(ErrorCode::truncated, Status::truncated, k_off_version,
                        std::string(k_version),
                        fmt::format("expected the 4-byte format version at offset 8, found {}",
                                    byte_count(size - 8)));
        ByteReader r(as_bytes(data_), k_off_version);
        version_ = r.u32();
        if (version_ == k_retired_version) {
            // 4.3: tess refuses it like any other version, but it is an old archive, not garbage.
            warning(ErrorCode::needs_migration, k_off_version, std::string(k_version),
                    "version 1: retired format: run `sparksave migrate` to bring it to version 2 "
                    "(tess loads "
                    "only version 2 and returns UnsupportedFormat)");
        } else if (version_ != k_current_version) {
            return fail(
                ErrorCode::unsupported_version, Status::unsupported_format, k_off_version,
                std::string(k_version),
                fmt::format("expected format version 2 (or the retired 1), found {}", version_));
        }
        if (size < k_header_size) return short_header(size);

        header_ = parse_header(data_);
        header_read_ = true;
        sink_.on_header(header_);

        // 4.3 step 3: tess computes 121 + bodySize first and calls an overflow Corrupt, before
        // it compares the sum with the file's size.
        const std::uint64_t body = size - k_header_size;
        if (header_.body_size > std::numeric_limits<std::uint64_t>::max() - k_header_size)
            return fail(ErrorCode::size_mismatch, Status::corrupt, k_off_body_size,
                        header_path(k_body_size),
                        fmt::format("expected a body size that fits in 64 bits with the 121-byte "
                                    "header on top, found {} (121 + it overflows)",
                                    header_.body_size));
        if (header_.body_size > body)
            return fail(ErrorCode::truncated, Status::truncated, size, header_path(k_body_size),
                        fmt::format("expected a body of {} after the 121-byte header, found {}",
                                    byte_count(header_.body_size), byte_count(body)));
        if (header_.body_size < body)
            return fail(
                ErrorCode::trailing_bytes, Status::corrupt, k_header_size + header_.body_size,
                header_path(k_body_size),
                fmt::format(
                    "expected the file to end after the {} body the header declares (at offset "
                    "{:#x}), found {} more",
                    byte_count(header_.body_size), k_header_size + header_.body_size,
                    byte_count(body - header_.body_size)));

        // 4.1: the CRC-32 covers everything but its own four bytes.
        const std::uint32_t computed =
            crc32_update(crc32(data_.substr(0, k_off_checksum)), data_.substr(k_off_checksum + 4));
        crc_checked_ = true;
        crc_ok_ = computed == header_.checksum;
        if (!crc_ok_) {
            report(
                Severity::error, ErrorCode::checksum_mismatch, Status::corrupt, k_off_checksum,
                header_path(k_checksum),
                fmt::format(
                    "expected CRC-32 {:#010x} (of bytes [0,0x14) and [0x18,{:#x})), found {:#010x}",
                    computed, size, header_.checksum));
            if (!salvage_) return false;
        }
        return parse_body();
    }

    std::uint32_t version() const noexcept { return version_; }
    bool header_read() const noexcept { return header_read_; }
    const Header& header() const noexcept { return header_; }
    bool crc_checked() const noexcept { return crc_checked_; }
    bool crc_ok() const noexcept { return crc_ok_; }
    std::optional<std::uint64_t> tiles() const noexcept { return tiles_; }
    std::optional<std::uint64_t> logical() const noexcept { return logical_; }
    // True when the only error is one tess's inspection does not see but its load does (a bool
    // byte other than 0 or 1, 4.3 step 9).
    bool only_load_refuses() const noexcept { return only_load_refuses_; }

  private:
    // 4.3 after the checksum, in tess's order (parse_world_archive): the header's values, the
    // descriptors one by one, the record-size equation, the logical chunk count, the dense count,
    // the records; then the scalars, which only the load decodes.
    bool parse_body() {
        const Header& h = header_;
        if (h.field_count > k_max_fields)
            return fail(
                ErrorCode::limit_exceeded, Status::corrupt, k_off_field_count,
                header_path(k_field_count),
                fmt::format("expected at most {} fields, found {}", k_max_fields, h.field_count));
        for (std::size_t i = 0; i < 6; ++i) {
            const bool world = i < 3;
            const std::uint64_t v = world ? h.world[i] : h.chunk[i - 3];
            if (v == 0)
                return fail(
                    ErrorCode::bad_value, Status::corrupt,
                    (world ? k_off_world : k_off_chunk) + 8 * (i % 3),
                    axis_path(world ? k_world_size : k_chunk_size, i % 3),
                    fmt::format("expected a non-zero {} size, found 0", world ? "world" : "chunk"));
        }
        for (std::size_t i = 0; i < 3; ++i) {
            if (h.world[i] % h.chunk[i] != 0)
                return fail(ErrorCode::bad_value, Status::corrupt, k_off_world + 8 * i,
                            axis_path(k_world_size, i),
                            fmt::format("expected a world size divisible by the chunk size {} "
                                        "(chunkSize.{}), found {}",
                                        h.chunk[i], k_axes[i], h.world[i]));
        }
        if (h.residency != k_residency_dense && h.residency != k_residency_sparse)
            return fail(ErrorCode::bad_value, Status::corrupt, k_off_residency,
                        header_path(k_residency),
                        fmt::format("expected a residency of 1 (dense) or 2 (sparse), found {}",
                                    h.residency));
        // Known from here for info's counts; checked below, where tess checks them.
        logical_ = logical_chunks(h);
        tiles_ = tiles_of(h);

        // Descriptors (4.2), read one by one as tess does: the body ending inside one is Corrupt
        // (the envelope's size already passed), and so is a bad one before it.
        const std::size_t end = data_.size();
        sink_.on_descriptors_begin(k_header_size);
        ByteReader r(as_bytes(data_), k_header_size);
        descriptors_.reserve(h.field_count); // <= 1024
        std::uint64_t row = 0;               // bytes of one tile across all fields (<= 1024 * 8)
        for (std::uint32_t i = 0; i < h.field_count; ++i) {
            const std::size_t at = r.pos();
            if (end - at < k_descriptor_size) {
                std::string path(k_fields);
                append_path_index(path, i);
                return fail(ErrorCode::truncated, Status::corrupt, at, std::move(path),
                            fmt::format("expected field descriptor {} of the {} the header "
                                        "declares ({} bytes), found {} left in the body",
                                        i, h.field_count, k_descriptor_size, byte_count(end - at)));
            }
            Descriptor d;
            d.id = r.u64();
            d.version = r.u32();
            d.kind = r.u8();
            d.width = r.u32();
            sink_.on_descriptor(d, at);
            if (!check_descriptor(d, i, at)) return false;
            descriptors_.push_back(d);
            row += d.width;
        }
        sink_.on_descriptors_end(r.pos());

        // The record-size equation (4.3 step 6): tiles, then tiles x (sum of widths), then the
        // prefix on top, then chunkCount records, each product checked, and the total must be
        // exactly the rest of the body. tess checks it before any record, so a missing or short
        // record, or whole records left over, is Corrupt, never InvalidChunk.
        const std::uint64_t prefix = prefix_size(version_);
        const std::size_t area_at = r.pos();
        const std::uint64_t area = end - area_at;
        if (!tiles_)
            return fail(ErrorCode::size_mismatch, Status::corrupt, k_off_chunk,
                        header_path(k_chunk_size),
                        fmt::format("expected a chunk of at most 2^64 - 1 tiles, found {} x {} x "
                                    "{} (the product overflows 64 bits)",
                                    h.chunk[0], h.chunk[1], h.chunk[2]));
        const std::optional<std::uint64_t> columns = checked_mul(*tiles_, row);
        if (!columns || *columns > std::numeric_limits<std::uint64_t>::max() - prefix)
            return fail(
                ErrorCode::size_mismatch, Status::corrupt, area_at, std::string(k_chunks),
                fmt::format("expected chunk records whose size fits in 64 bits, found a {}-byte "
                            "prefix and {} of {} each",
                            prefix, tile_count(tiles_), byte_count(row)));
        record_ = prefix + *columns;
        const std::optional<std::uint64_t> total = checked_mul(h.chunk_count, record_);
        if (!total || *total != area)
            return fail(
                ErrorCode::size_mismatch, Status::corrupt, area_at, std::string(k_chunks),
                fmt::format(
                    "expected the {} chunk records the header declares after the descriptors, {} "
                    "each (a {}-byte prefix and {} of {} each), {} in all, found {}",
                    h.chunk_count, byte_count(record_), prefix, tile_count(tiles_), byte_count(row),
                    total ? byte_count(*total) : std::string("more than 2^64 bytes"),
                    fmt::format("{}: {} whole record{}{}", byte_count(area), area / record_,
                                area / record_ == 1 ? "" : "s",
                                area % record_ == 0
                                    ? std::string()
                                    : fmt::format(" and {} more", byte_count(area % record_)))));

        // 4.3 step 7: the logical chunk count, prod(size / chunk), must fit in 64 bits, sparse
        // or dense.
        if (!logical_)
            return fail(
                ErrorCode::limit_exceeded, Status::corrupt, k_off_world, header_path(k_world_size),
                fmt::format("expected a logical chunk count (worldSize / chunkSize on each axis) "
                            "of at most 2^64 - 1, found {} x {} x {} (the product overflows 64 "
                            "bits)",
                            h.world[0] / h.chunk[0], h.world[1] / h.chunk[1],
                            h.world[2] / h.chunk[2]));
        if (h.residency == k_residency_dense && h.chunk_count != *logical_)
            return fail(ErrorCode::bad_chunk, Status::invalid_chunk, k_off_chunk_count,
                        header_path(k_chunk_count),
                        fmt::format("expected {} chunks (a dense archive holds every logical "
                                    "chunk: {} x {} x {}), found {}",
                                    *logical_, h.world[0] / h.chunk[0], h.world[1] / h.chunk[1],
                                    h.world[2] / h.chunk[2], h.chunk_count));
        return parse_records(area_at);
    }

    bool check_descriptor(const Descriptor& d, std::uint32_t i, std::size_t at) {
        std::string path(k_fields);
        append_path_index(path, i);
        if (kind_name(d.kind).empty())
            return fail(ErrorCode::bad_descriptor, Status::corrupt, at + 12, path + ".kind",
                        fmt::format("expected a field kind of 1 (unsigned), 2 (signed), 3 (float) "
                                    "or 4 (bool), found {}",
                                    d.kind));
        if (d.width != 1 && d.width != 2 && d.width != 4 && d.width != 8)
            return fail(ErrorCode::bad_descriptor, Status::corrupt, at + 13, path + ".width",
                        fmt::format("expected a width of 1, 2, 4 or 8 bytes, found {}", d.width));
        if (d.kind == k_kind_bool && d.width != 1)
            return fail(ErrorCode::bad_descriptor, Status::corrupt, at + 13, path + ".width",
                        fmt::format("expected a width of 1 for a bool field, found {}", d.width));
        if (d.kind == k_kind_float && d.width != 4 && d.width != 8)
            return fail(
                ErrorCode::bad_descriptor, Status::corrupt, at + 13, path + ".width",
                fmt::format("expected a width of 4 or 8 for a float field, found {}", d.width));
        for (std::size_t j = 0; j < descriptors_.size(); ++j) {
            if (descriptors_[j].id != d.id) continue;
            return fail(
                ErrorCode::bad_descriptor, Status::corrupt, at, path + ".id",
                fmt::format(
                    "expected each field id once, found {:#018x} again (first as fields[{}])", d.id,
                    j));
        }
        return true;
    }

    // The records (4.3 step 8). The record-size equation holds, so every record is whole and
    // none is left after the last: what remains are the keys and, in v1, the chunk state.
    bool parse_records(std::size_t at) {
        const Header& h = header_;
        sink_.on_chunks_begin(at);
        struct BadBool {
            std::size_t offset;
            std::string path;
            unsigned value;
        };
        std::optional<BadBool> bad_bool;
        std::uint64_t previous = 0;
        for (std::uint64_t i = 0; i < h.chunk_count; ++i) {
            ByteReader r(as_bytes(data_), at);
            ChunkPrefix p;
            p.key = r.u64();
            if (version_ == k_retired_version) p.state = r.u8();
            p.active_mask = r.u32();
            p.entity_count = r.u32();
            if (p.key >= *logical_)
                return fail(ErrorCode::bad_chunk, Status::invalid_chunk, at, chunk_path(i) + ".key",
                            fmt::format("expected a key below the logical chunk count {}, found {}",
                                        *logical_, p.key));
            if (i > 0 && p.key <= previous)
                return fail(
                    ErrorCode::bad_chunk, Status::invalid_chunk, at, chunk_path(i) + ".key",
                    fmt::format(
                        "expected a key above the previous chunk's {} (keys strictly increase), "
                        "found {}",
                        previous, p.key));
            // The retired v1 reader (tess 0.12) refused a state that is no ChunkState.
            if (p.state && *p.state > k_chunk_state_max)
                return fail(ErrorCode::bad_chunk, Status::invalid_chunk, at + 8,
                            chunk_path(i) + "." + std::string(k_state),
                            fmt::format("expected a chunk state of 0 (sleeping) or 1 (active), "
                                        "found {}",
                                        *p.state));
            sink_.on_chunk(p, at);
            std::size_t column_at = r.pos();
            for (std::size_t f = 0; f < descriptors_.size(); ++f) {
                const Descriptor& d = descriptors_[f];
                const std::size_t length =
                    static_cast<std::size_t>(*tiles_ * d.width); // fits: the equation holds
                const std::string_view bytes = data_.substr(column_at, length);
                sink_.on_column(f, descriptor_type(d.kind, d.width), bytes, column_at);
                if (d.kind == k_kind_bool && !bad_bool) {
                    for (std::size_t t = 0; t < bytes.size(); ++t) {
                        const auto b = static_cast<unsigned char>(bytes[t]);
                        if (b <= 1) continue;
                        std::string path = chunk_path(i) + "." + std::string(k_fields);
                        append_path_index(path, f);
                        append_path_index(path, t);
                        bad_bool = BadBool{column_at + t, std::move(path), b};
                        break;
                    }
                }
                column_at += length;
            }
            sink_.on_chunk_end(column_at);
            at = column_at;
            previous = p.key;
        }
        sink_.on_chunks_end(at);
        // 4.3 step 9: inspect_world_archive decodes no scalar and says Ok; load_world_archive
        // decodes every one before it writes any and refuses the archive.
        if (bad_bool) {
            only_load_refuses_ = !findings_.has_errors();
            return fail(ErrorCode::bad_value, Status::corrupt, bad_bool->offset, bad_bool->path,
                        fmt::format("expected a bool byte of 0 or 1, found {}: the inspection "
                                    "(inspect_world_archive) reads it and says Ok, the load "
                                    "(load_world_archive) refuses it",
                                    bad_bool->value));
        }
        return true;
    }

    // A file of 12..120 bytes: name the header field it ends in.
    bool short_header(std::size_t size) {
        struct Field {
            std::size_t offset;
            std::string_view name;
        };
        static constexpr Field k_fields_in_order[] = {
            {k_off_body_size, k_body_size},
            {k_off_checksum, k_checksum},
            {k_off_world, k_world_size},
            {k_off_chunk, k_chunk_size},
            {k_off_lattice, k_lattice},
            {k_off_lattice_version, k_lattice_version},
            {k_off_key_layout, k_key_layout_version},
            {k_off_schema_id, k_schema_id},
            {k_off_schema_version, k_schema_version},
            {k_off_library, k_library_version},
            {k_off_residency, k_residency},
            {k_off_field_count, k_field_count},
            {k_off_chunk_count, k_chunk_count},
        };
        Field in = k_fields_in_order[0];
        for (const auto& f : k_fields_in_order)
            if (f.offset <= size) in = f;
        return fail(ErrorCode::truncated, Status::truncated, in.offset, header_path(in.name),
                    fmt::format("expected the 121-byte header, found {} (the data ends in {})",
                                byte_count(size), in.name));
    }

    static std::string header_path(std::string_view field) {
        std::string p(k_header);
        append_path_name(p, field);
        return p;
    }
    static std::string axis_path(std::string_view field, std::size_t axis) {
        std::string p = header_path(field);
        append_path_name(p, k_axes[axis]);
        return p;
    }

    void report(Severity severity, ErrorCode code, Status status, std::size_t offset,
                std::string path, std::string message) {
        if (status != Status::ok) message += fmt::format(" (tess: {})", status_name(status));
        add_at(findings_, severity, code, offset, std::move(path), std::move(message));
    }
    bool fail(ErrorCode code, Status status, std::size_t offset, std::string path,
              std::string message) {
        report(Severity::error, code, status, offset, std::move(path), std::move(message));
        return false;
    }
    void warning(ErrorCode code, std::size_t offset, std::string path, std::string message) {
        add_at(findings_, Severity::warning, code, offset, std::move(path), std::move(message));
    }

    std::string_view data_;
    Findings& findings_;
    Sink& sink_;
    bool salvage_;
    std::uint32_t version_ = 0;
    Header header_;
    bool header_read_ = false;
    bool crc_checked_ = false;
    bool crc_ok_ = false;
    std::optional<std::uint64_t> tiles_;
    std::optional<std::uint64_t> logical_;
    std::uint64_t record_ = 0;
    std::vector<Descriptor> descriptors_;
    bool only_load_refuses_ = false;
};

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
