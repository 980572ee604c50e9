// `pack` for GMSV saves: the JSON of `dump --json` (schema: json.cpp) back to file bytes,
// streamed without building a tree. The CRC-32 is recomputed; the caller reads the result back
// with the reader, which applies every check, so this only gets the shape and the types right.
#include "dotnet.hpp"
#include "rules.hpp"
#include "tree.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/gmsv.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"

#include <algorithm>
#include <charconv>

namespace sparksave::gmsv {

namespace {

using json::Kind;
using json::Value;

class Packer {
  public:
    explicit Packer(const json::Reader& r) : r_(r) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_members[] = {"format",   "version",  "timestamp",
                                                         "entities", "trailing", "checksum"};
        Value members[std::size(k_members)];
        bool present[std::size(k_members)] = {};
        if (auto r = r_.dump_members(root, "gmsv", k_members, members, present); !r)
            return r.error();
        for (std::size_t i : {1, 2, 3})
            if (!present[i])
                return r_.error_at(
                    root, "", fmt::format("expected a member \"{}\", found none", k_members[i]));
        if (present[0] && (members[0].kind != Kind::string || r_.decoded(members[0]) != "gmsv"))
            return r_.error_at(members[0], "format", "expected \"gmsv\"");
        auto version = unsigned_integer(members[1], "version", 0xFFFF);
        if (!version) return version.error();

        w_.bytes(k_magic);
        w_.u16(static_cast<std::uint16_t>(*version));
        if (members[2].kind != Kind::object)
            return r_.error_at(members[2], "timestamp", "expected an object {binary, ...}");
        if (auto r = r_.only_members(members[2], "timestamp", {k_binary, k_kind, k_time}); !r)
            return r.error();
        Value binary;
        if (!r_.find(members[2], k_binary, binary))
            return r_.error_at(members[2], "timestamp",
                               "expected a member \"binary\" (the stored DateTime.ToBinary())");
        const std::string text =
            binary.kind == Kind::string ? r_.decoded(binary) : std::string(r_.raw(binary));
        std::int64_t stamp = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), stamp);
        if ((binary.kind != Kind::string && binary.kind != Kind::number) || text.empty() ||
            ec != std::errc() || p != text.data() + text.size())
            return r_.error_at(binary, "timestamp.binary",
                               "expected a 64-bit integer, found " + display(r_.raw(binary)));
        w_.u64(static_cast<std::uint64_t>(stamp));
        if (auto r = entities(members[3]); !r) return r.error();
        w_.u32(crc32(w_.view().substr(k_off_data)));
        if (present[4]) {
            std::string bytes;
            if (members[4].kind != Kind::string || !hex_decode(r_.decoded(members[4]), bytes))
                return r_.error_at(members[4], "trailing", "expected a string of hex digits");
            w_.bytes(bytes);
        }
        if (present[5] && members[5].kind != Kind::string)
            return r_.error_at(members[5], "checksum", "expected a string such as \"0x1a2b3c4d\"");
        Packed out;
        out.bytes = std::move(w_).take();
        return out;
    }

  private:
    Result<std::uint64_t> unsigned_integer(const Value& v, const std::string& path,
                                           std::uint64_t max) {
        const std::string_view t = r_.raw(v);
        std::uint64_t n = 0;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (v.kind != Kind::number || ec != std::errc() || p != t.data() + t.size() || n > max)
            return r_.error_at(
                v, path,
                fmt::format("expected an integer from 0 to {}, found {}", max, display(t)));
        return n;
    }

    Result<void> entities(const Value& list) {
        if (list.kind != Kind::array)
            return r_.error_at(list, "entities", "expected an array of entities");
        const std::size_t count_at = w_.size();
        w_.u32(0);
        std::optional<Error> problem;
        std::uint64_t n = 0;
        r_.elements(list, [&](std::size_t i, const Value& e) {
            ++n;
            auto r = entity(e, entity_path(i));
            if (!r) problem = r.error();
            return r.has_value();
        });
        if (problem) return *problem;
        if (n > 0x7FFF'FFFF)
            return r_.error_at(list, "entities", "too many entities for a 32-bit count");
        w_.patch_u32(count_at, static_cast<std::uint32_t>(n));
        return {};
    }

    Result<void> entity(const Value& e, const std::string& path) {
        if (e.kind != Kind::object)
            return r_.error_at(e, path, "expected an entity {id, components}");
        if (auto r = r_.only_members(e, path, {"id", "components"}); !r) return r;
        Value id, components;
        if (!r_.find(e, "id", id) || id.kind != Kind::string)
            return r_.error_at(e, path + ".id",
                               "expected a member \"id\": the entity's GUID as a string");
        auto guid = guid_bytes(r_.decoded(id));
        if (!guid)
            return r_.error_at(id, path + ".id",
                               "expected a GUID of the form 00112233-4455-6677-8899-aabbccddeeff");
        w_.bytes(*guid);
        if (!r_.find(e, "components", components) || components.kind != Kind::array)
            return r_.error_at(e, path + ".components",
                               "expected a member \"components\": an array");
        const std::size_t count_at = w_.size();
        w_.u16(0);
        std::optional<Error> problem;
        std::uint64_t n = 0;
        r_.elements(components, [&](std::size_t i, const Value& c) {
            ++n;
            auto r = component(c, fmt::format("{}.components[{}]", path, i));
            if (!r) problem = r.error();
            return r.has_value();
        });
        if (problem) return *problem;
        if (n > 0xFFFF)
            return r_.error_at(components, path + ".components",
                               fmt::format("expected at most 65535 components, found {}", n));
        w_.patch_u16(count_at, static_cast<std::uint16_t>(n));
        return {};
    }

    Result<void> component(const Value& c, const std::string& path) {
        if (c.kind != Kind::object)
            return r_.error_at(c, path, "expected a component {type, json | jsonText | hex}");
        if (auto r = r_.only_members(c, path, {"type", "name", "json", "jsonText", "hex"}); !r)
            return r;
        Value type, data;
        if (!r_.find(c, "type", type))
            return r_.error_at(c, path, "expected a member \"type\" (the type id)");
        auto id = unsigned_integer(type, path + ".type", 0xFFFF);
        if (!id) return id.error();
        const bool has_json = r_.find(c, "json", data);
        Value text_value, hex_value;
        const bool has_text = r_.find(c, "jsonText", text_value);
        const bool has_hex = r_.find(c, "hex", hex_value);
        if (int{has_json} + int{has_text} + int{has_hex} != 1)
            return r_.error_at(c, path,
                               "expected exactly one of \"json\" (JSON data), \"jsonText\" (JSON "
                               "data as a string) and \"hex\" (binary data)");
        std::string bytes;
        if (has_json) {
            bytes = std::string(r_.raw(data)); // the data is the JSON text itself
        } else if (has_text) {
            if (text_value.kind != Kind::string)
                return r_.error_at(text_value, path + ".jsonText",
                                   "expected a string (the component's JSON data), found " +
                                       std::string(json::kind_name(text_value.kind)));
            r_.decode(text_value, bytes);
        } else if (hex_value.kind != Kind::string || !hex_decode(r_.decoded(hex_value), bytes)) {
            return r_.error_at(hex_value, path + ".hex", "expected a string of hex digits");
        }
        if (bytes.size() > 0x7FFF'FFFF)
            return r_.error_at(c, path, "component data too large for a 32-bit length");
        w_.u16(static_cast<std::uint16_t>(*id));
        w_.u32(static_cast<std::uint32_t>(bytes.size()));
        w_.bytes(bytes);
        return {};
    }

    const json::Reader& r_;
    ByteWriter w_;
};

} // namespace

Result<Packed> from_json(std::string_view text) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    return Packer(reader).run(*root);
}

} // namespace sparksave::gmsv
