// `pack` for tess world archives: the JSON of `dump --json` (schema: json.cpp) back to file
// bytes, streamed without building a tree. The body size and the CRC-32 are recomputed; the
// caller reads the result back with the reader, which applies every check of FORMATS.md 4.3,
// so this only gets the shape and the types right (and the column lengths, to name the place).
#include "rules.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/tess_world.hpp"

#include <algorithm>
#include <charconv>

namespace sparksave::tess_world {

namespace {

using json::Kind;
using json::Value;

class Packer {
  public:
    explicit Packer(const json::Reader& r) : r_(r) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_members[] = {"format", "version",  "header",  "fields",
                                                         "chunks", "trailing", "checksum"};
        Value members[std::size(k_members)];
        bool present[std::size(k_members)] = {};
        if (auto r = r_.dump_members(root, "tess_world", k_members, members, present); !r)
            return r.error();
        for (std::size_t i : {1, 2, 3, 4})
            if (!present[i])
                return r_.error_at(
                    root, "", fmt::format("expected a member \"{}\", found none", k_members[i]));
        if (present[0] &&
            (members[0].kind != Kind::string || r_.decoded(members[0]) != "tess_world"))
            return r_.error_at(members[0], "format", "expected \"tess_world\"");
        auto version = integer(members[1], "version", 0xFFFF'FFFFu);
        if (!version) return version.error();
        if (*version != k_current_version && *version != k_retired_version)
            return r_.error_at(members[1], "version",
                               fmt::format("expected 1 or 2, found {}", *version));
        version_ = static_cast<std::uint32_t>(*version);

        w_.bytes(k_magic);
        w_.u32(version_);
        w_.u64(0); // body size, patched below
        w_.u32(0); // CRC-32, patched below
        if (auto r = header(members[2]); !r) return r.error();
        if (auto r = fields(members[3]); !r) return r.error();
        w_.patch_u32(k_off_field_count, static_cast<std::uint32_t>(types_.size()));
        auto count = chunks(members[4]);
        if (!count) return count.error();
        w_.patch_u32(k_off_chunk_count, static_cast<std::uint32_t>(*count));
        w_.patch_u32(k_off_chunk_count + 4, static_cast<std::uint32_t>(*count >> 32));
        if (present[5]) {
            std::string bytes;
            if (members[5].kind != Kind::string || !hex_decode(r_.decoded(members[5]), bytes))
                return r_.error_at(members[5], "trailing", "expected a string of hex digits");
            w_.bytes(bytes);
        }
        if (present[6] && members[6].kind != Kind::string)
            return r_.error_at(members[6], "checksum", "expected a string such as \"0x1a2b3c4d\"");

        const std::uint64_t body = w_.size() - k_header_size;
        w_.patch_u32(k_off_body_size, static_cast<std::uint32_t>(body));
        w_.patch_u32(k_off_body_size + 4, static_cast<std::uint32_t>(body >> 32));
        const std::string_view bytes = w_.view();
        w_.patch_u32(k_off_checksum, crc32_update(crc32(bytes.substr(0, k_off_checksum)),
                                                  bytes.substr(k_off_checksum + 4)));
        Packed out;
        out.bytes = std::move(w_).take();
        return out;
    }

  private:
    // An unsigned integer: a JSON number, or a string of decimal digits or of hex after 0x.
    Result<std::uint64_t> integer(const Value& v, const std::string& path, std::uint64_t max) {
        std::string text = v.kind == Kind::string ? r_.decoded(v) : std::string(r_.raw(v));
        std::string_view t = text;
        int base = 10;
        if (v.kind == Kind::string && t.starts_with("0x")) {
            t.remove_prefix(2);
            base = 16;
        }
        std::uint64_t n = 0;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n, base);
        if ((v.kind != Kind::number && v.kind != Kind::string) || t.empty() || ec != std::errc() ||
            p != t.data() + t.size() || n > max)
            return r_.error_at(
                v, path,
                fmt::format("expected an integer from 0 to {}, found {}", max, display(r_.raw(v))));
        return n;
    }

    // A coded value: one of `names` (their codes in `codes`) or an integer.
    Result<std::uint64_t> coded(const Value& v, const std::string& path, std::uint64_t max,
                                std::initializer_list<std::uint32_t> codes,
                                std::string_view (*name_of)(std::uint32_t)) {
        if (v.kind == Kind::string) {
            const std::string text = r_.decoded(v);
            for (std::uint32_t code : codes)
                if (text == name_of(code)) return code;
        }
        return integer(v, path, max);
    }

    Result<void> member_u32(const Value& object, std::string_view name, const std::string& path) {
        Value v;
        if (!r_.find(object, name, v))
            return r_.error_at(object, path, fmt::format("expected a member \"{}\"", name));
        auto n = integer(v, path + "." + std::string(name), 0xFFFF'FFFFu);
        if (!n) return n.error();
        w_.u32(static_cast<std::uint32_t>(*n));
        return {};
    }

    // An array of three integers, each at most `max`; `out` gets them.
    Result<void> three(const Value& object, std::string_view name, std::uint64_t max,
                       std::array<std::uint64_t, 3>& out) {
        const std::string path = "header." + std::string(name);
        Value v;
        if (!r_.find(object, name, v))
            return r_.error_at(object, "header", fmt::format("expected a member \"{}\"", name));
        if (v.kind != Kind::array)
            return r_.error_at(v, path, "expected an array of three integers");
        std::size_t n = 0;
        std::optional<Error> problem;
        r_.elements(v, [&](std::size_t i, const Value& e) {
            if (++n > 3) return false;
            auto x = integer(e, fmt::format("{}[{}]", path, i), max);
            if (!x) {
                problem = x.error();
                return false;
            }
            out[i] = *x;
            return true;
        });
        if (problem) return *problem;
        if (n != 3)
            return r_.error_at(v, path, fmt::format("expected three integers, found {}", n));
        return {};
    }

    Result<void> header(const Value& h) {
        if (h.kind != Kind::object) return r_.error_at(h, "header", "expected an object");
        if (auto r = r_.only_members(h, "header",
                                     {k_world_size, k_chunk_size, k_lattice, k_lattice_version,
                                      k_key_layout_version, k_schema_id, k_schema_version,
                                      k_library_version, k_residency});
            !r)
            return r;
        std::array<std::uint64_t, 3> world{}, library{};
        if (auto r = three(h, k_world_size, ~std::uint64_t{0}, world); !r) return r;
        if (auto r = three(h, k_chunk_size, ~std::uint64_t{0}, chunk_); !r) return r;
        for (auto v : world) w_.u64(v);
        for (auto v : chunk_) w_.u64(v);
        Value v;
        if (!r_.find(h, k_lattice, v))
            return r_.error_at(h, "header", "expected a member \"lattice\"");
        auto lattice =
            coded(v, "header.lattice", 0xFFFF'FFFFu, {k_lattice_orthogonal, k_lattice_hex_axial},
                  [](std::uint32_t c) { return lattice_name(c); });
        if (!lattice) return lattice.error();
        w_.u32(static_cast<std::uint32_t>(*lattice));
        if (auto r = member_u32(h, k_lattice_version, "header"); !r) return r;
        if (auto r = member_u32(h, k_key_layout_version, "header"); !r) return r;
        if (!r_.find(h, k_schema_id, v))
            return r_.error_at(h, "header", "expected a member \"schemaId\"");
        auto schema = integer(v, "header.schemaId", ~std::uint64_t{0});
        if (!schema) return schema.error();
        w_.u64(*schema);
        if (auto r = member_u32(h, k_schema_version, "header"); !r) return r;
        if (auto r = three(h, k_library_version, 0xFFFF'FFFFu, library); !r) return r;
        for (auto part : library) w_.u32(static_cast<std::uint32_t>(part));
        if (!r_.find(h, k_residency, v))
            return r_.error_at(h, "header", "expected a member \"residency\"");
        auto residency = coded(v, "header.residency", 0xFF, {k_residency_dense, k_residency_sparse},
                               [](std::uint32_t c) { return residency_name(c); });
        if (!residency) return residency.error();
        w_.u8(static_cast<std::uint8_t>(*residency));
        w_.u32(0); // field count, patched
        w_.u64(0); // chunk count, patched
        Header shape;
        shape.chunk = chunk_;
        tiles_ = tiles_of(shape);
        return {};
    }

    Result<void> fields(const Value& list) {
        if (list.kind != Kind::array)
            return r_.error_at(list, "fields", "expected an array of field descriptors");
        std::optional<Error> problem;
        r_.elements(list, [&](std::size_t i, const Value& d) {
            auto r = descriptor(d, fmt::format("fields[{}]", i));
            if (!r) problem = r.error();
            return r.has_value();
        });
        if (problem) return *problem;
        return {};
    }

    Result<void> descriptor(const Value& d, const std::string& path) {
        if (d.kind != Kind::object)
            return r_.error_at(d, path, "expected a descriptor {id, version, kind, width}");
        if (auto r = r_.only_members(d, path, {k_id, k_version, k_kind, k_width}); !r) return r;
        Value id, kind;
        if (!r_.find(d, k_id, id)) return r_.error_at(d, path, "expected a member \"id\"");
        auto n = integer(id, path + ".id", ~std::uint64_t{0});
        if (!n) return n.error();
        w_.u64(*n);
        if (auto r = member_u32(d, k_version, path); !r) return r;
        if (!r_.find(d, k_kind, kind)) return r_.error_at(d, path, "expected a member \"kind\"");
        auto k = coded(kind, path + ".kind", 0xFF,
                       {k_kind_unsigned, k_kind_signed, k_kind_float, k_kind_bool},
                       [](std::uint32_t c) { return kind_name(c); });
        if (!k) return k.error();
        w_.u8(static_cast<std::uint8_t>(*k));
        Value width;
        if (!r_.find(d, k_width, width)) return r_.error_at(d, path, "expected a member \"width\"");
        auto wd = integer(width, path + ".width", 0xFFFF'FFFFu);
        if (!wd) return wd.error();
        w_.u32(static_cast<std::uint32_t>(*wd));
        types_.push_back(descriptor_type(static_cast<std::uint32_t>(*k), *wd));
        if (types_.size() > k_max_fields)
            return r_.error_at(d, path, fmt::format("expected at most {} fields", k_max_fields));
        return {};
    }

    Result<std::uint64_t> chunks(const Value& list) {
        if (list.kind != Kind::array)
            return r_.error_at(list, "chunks", "expected an array of chunk records");
        std::optional<Error> problem;
        std::uint64_t count = 0;
        r_.elements(list, [&](std::size_t i, const Value& c) {
            auto r = chunk(c, chunk_path(i));
            if (!r) problem = r.error();
            ++count;
            return r.has_value();
        });
        if (problem) return *problem;
        return count;
    }

    Result<void> chunk(const Value& c, const std::string& path) {
        if (c.kind != Kind::object)
            return r_.error_at(c, path,
                               "expected a chunk record {key, activeMask, entityCount, fields}");
        if (auto r =
                r_.only_members(c, path, {k_key, k_state, k_active_mask, k_entity_count, k_fields});
            !r)
            return r;
        Value v;
        if (!r_.find(c, k_key, v)) return r_.error_at(c, path, "expected a member \"key\"");
        auto key = integer(v, path + ".key", ~std::uint64_t{0});
        if (!key) return key.error();
        w_.u64(*key);
        const bool has_state = r_.find(c, k_state, v);
        if (version_ == k_retired_version) {
            if (!has_state)
                return r_.error_at(c, path,
                                   "expected a member \"state\" (v1 records have a chunk state)");
            auto state = integer(v, path + ".state", 0xFF);
            if (!state) return state.error();
            w_.u8(static_cast<std::uint8_t>(*state));
        } else if (has_state) {
            return r_.error_at(v, path + ".state",
                               "expected no chunk state: version 2 records have none");
        }
        if (auto r = member_u32(c, k_active_mask, path); !r) return r;
        if (auto r = member_u32(c, k_entity_count, path); !r) return r;
        Value columns;
        if (!r_.find(c, k_fields, columns) || columns.kind != Kind::array)
            return r_.error_at(c, path + ".fields", "expected an array of columns, one per field");
        std::optional<Error> problem;
        std::size_t n = 0;
        r_.elements(columns, [&](std::size_t f, const Value& column) {
            ++n;
            const std::string cpath = fmt::format("{}.fields[{}]", path, f);
            if (f >= types_.size()) {
                problem = r_.error_at(
                    column, cpath,
                    fmt::format("expected {} columns (one per field), found more", types_.size()));
                return false;
            }
            auto r = values(column, cpath, types_[f]);
            if (!r) problem = r.error();
            return r.has_value();
        });
        if (problem) return *problem;
        if (n != types_.size())
            return r_.error_at(
                columns, path + ".fields",
                fmt::format("expected {} columns (one per field), found {}", types_.size(), n));
        return {};
    }

    Result<void> values(const Value& column, const std::string& path, ColumnType type) {
        if (!type.valid())
            return r_.error_at(
                column, path,
                "the field's descriptor has no valid kind and width for these values");
        if (column.kind != Kind::array)
            return r_.error_at(column, path, "expected an array of values, one per tile");
        std::optional<Error> problem;
        std::uint64_t n = 0;
        std::string expected;
        r_.elements(column, [&](std::size_t t, const Value& e) {
            ++n;
            if (!parse_column_element(type, r_.raw(e), scratch_, expected)) {
                problem = r_.error_at(e, fmt::format("{}[{}]", path, t),
                                      fmt::format("expected {} ({}), found {}", expected,
                                                  column_type_name(type), display(r_.raw(e))));
                return false;
            }
            return true;
        });
        if (problem) return *problem;
        if (!tiles_ || n != *tiles_)
            return r_.error_at(
                column, path,
                fmt::format("expected a value for each tile ({}: {} x {} x {}), found {}",
                            tile_count(tiles_), chunk_[0], chunk_[1], chunk_[2], n));
        w_.bytes(scratch_);
        scratch_.clear();
        return {};
    }

    const json::Reader& r_;
    ByteWriter w_;
    std::uint32_t version_ = 0;
    std::array<std::uint64_t, 3> chunk_{};
    std::optional<std::uint64_t> tiles_;
    std::vector<ColumnType> types_;
    std::string scratch_;
};

} // namespace

Result<Packed> from_json(std::string_view text) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    return Packer(reader).run(*root);
}

} // namespace sparksave::tess_world
