// gmsv 2 -> 3 (formats/README.md §5, seed 003 VersionMigrator.MigrateV2ToV3): Position changes from
// int to float. In JSON data, the members X and Y (matched without regard to case, as a lenient
// System.Text.Json reader would) that are integer literals become float literals with a
// fraction, `{"X":1,"Y":2}` -> `{"X":1.0,"Y":2.0}`; everything else in the text stays byte for
// byte. The value is the int32 converted to float32, so an integer beyond 2^24 is rounded as the
// game's cast would round it (a note says so). Members that are already decimals stay as they
// are. Binary data must be the 8-byte form, two little-endian int32, which become two float32.
#include "steps.hpp"

#include "gmsv/tree.hpp"

#include "sparksave/json_reader.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <optional>

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

namespace {

bool is_axis(std::string_view key) noexcept {
    return key == "X" || key == "x" || key == "Y" || key == "y";
}

// The float32 an int32 becomes, as text with a fraction: 1 -> "1.0", 16777217 -> "16777216.0".
// (Every int32 converts to an integral float below 2^31 in magnitude, exact as an int64.)
std::string float_text(std::int32_t v) {
    return fmt::format("{}.0", static_cast<std::int64_t>(static_cast<float>(v)));
}

Result<std::string> convert_json(std::string_view data, const std::string& path,
                                 std::vector<std::string>& rounded) {
    json::Reader r(data);
    auto root = r.validate();
    if (!root || root->kind != json::Kind::object)
        return make_error(ErrorCode::bad_value, "expected Position data to be a JSON object",
                          k_no_offset, path);
    std::string out;
    std::size_t copied = 0;
    std::optional<Error> problem;
    r.members(*root, [&](std::string_view key, const json::Value& v) {
        if (!is_axis(key)) return true;
        std::string p = path;
        append_path_name(p, key);
        if (v.kind != json::Kind::number) {
            problem =
                make_error(ErrorCode::bad_value,
                           fmt::format("expected a number, found {}", json::kind_name(v.kind)),
                           k_no_offset, p);
            return false;
        }
        const std::string_view text = r.raw(v);
        if (text.find_first_of(".eE") != std::string_view::npos)
            return true; // already a float literal
        std::int32_t n = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec != std::errc() || end != text.data() + text.size()) {
            problem =
                make_error(ErrorCode::bad_value,
                           fmt::format("expected a 32-bit integer (a v2 Position), found {}", text),
                           k_no_offset, p);
            return false;
        }
        const std::string replacement = float_text(n);
        if (static_cast<double>(static_cast<float>(n)) != static_cast<double>(n))
            rounded.push_back(fmt::format("{} = {} became {} (float has 24 bits of precision)", p,
                                          n, replacement));
        out.append(data.substr(copied, v.begin - copied));
        out += replacement;
        copied = v.end;
        return true;
    });
    if (problem) return *problem;
    out.append(data.substr(copied));
    return out;
}

Result<std::string> convert_binary(std::string_view data, const std::string& path,
                                   std::vector<std::string>& rounded) {
    if (data.size() != 8)
        return make_error(ErrorCode::bad_value,
                          fmt::format("expected Position data to be JSON or 8 bytes (two int32), "
                                      "found {} bytes of binary data",
                                      data.size()),
                          k_no_offset, path);
    std::string out(8, '\0');
    for (std::size_t i = 0; i < 2; ++i) {
        std::uint32_t bits = 0;
        for (std::size_t b = 0; b < 4; ++b)
            bits |= std::uint32_t{static_cast<unsigned char>(data[4 * i + b])} << (8 * b);
        const auto n = static_cast<std::int32_t>(bits);
        const auto f = static_cast<float>(n);
        if (static_cast<double>(f) != static_cast<double>(n))
            rounded.push_back(fmt::format("{}: {} = {} became {} (float has 24 bits of precision)",
                                          path, i == 0 ? "X" : "Y", n, float_text(n)));
        const auto fbits = std::bit_cast<std::uint32_t>(f);
        for (std::size_t b = 0; b < 4; ++b)
            out[4 * i + b] = static_cast<char>((fbits >> (8 * b)) & 0xFF);
    }
    return out;
}

} // namespace

Result<void> gmsv_v2_to_v3(Document& doc, Notes& notes) {
    const NodeId entities = doc.child(doc.root(), gmsv::k_entities);
    if (entities == k_no_node)
        return make_error(ErrorCode::bad_value, "expected the entity list", k_no_offset,
                          std::string(gmsv::k_entities));
    const std::string_view position = gmsv::k_type_names[gmsv::k_type_position];
    std::uint64_t json = 0, binary = 0, index = 0;
    std::vector<std::string> rounded;
    for (NodeId entity : doc.children(entities)) {
        std::string path(gmsv::k_entities);
        append_path_index(path, index++);
        for (NodeId c : doc.children(entity)) {
            if (doc.name(c) != position) continue;
            std::string cpath = path;
            append_path_name(cpath, position);
            const std::string data(doc.value(c));
            const bool is_json = doc.node(c).kind == NodeKind::object;
            auto converted =
                is_json ? convert_json(data, cpath, rounded) : convert_binary(data, cpath, rounded);
            if (!converted) return converted.error();
            ++(is_json ? json : binary);
            if (*converted != data) gmsv::replace_payload(doc, c, *converted);
        }
    }
    if (json + binary)
        notes.push_back({fmt::format("Position int -> float in {} component{} ({} JSON, {} binary)",
                                     json + binary, json + binary == 1 ? "" : "s", json, binary)});
    for (auto& r : rounded) notes.push_back({std::move(r)});
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
