// Column element types, text and JSON (layout: column.hpp).
#include "sparksave/column.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

SPARKSAVE_BEGIN_NAMESPACE

namespace {

struct Named {
    std::string_view name;
    ColumnType type;
};

constexpr Named k_types[] = {
    {"u8", {ValueType::unsigned_integer, 1}},  {"u16", {ValueType::unsigned_integer, 2}},
    {"u32", {ValueType::unsigned_integer, 4}}, {"u64", {ValueType::unsigned_integer, 8}},
    {"i8", {ValueType::integer, 1}},           {"i16", {ValueType::integer, 2}},
    {"i32", {ValueType::integer, 4}},          {"i64", {ValueType::integer, 8}},
    {"f32", {ValueType::floating, 4}},         {"f64", {ValueType::floating, 8}},
    {"bool", {ValueType::boolean, 1}},
};

// Element `index` as an unsigned integer of the type's width (little-endian).
std::uint64_t load(ColumnType type, std::string_view bytes, std::size_t index) noexcept {
    ByteReader r(as_bytes(bytes), index * type.width);
    switch (type.width) {
    case 1:
        return r.u8();
    case 2:
        return r.u16();
    case 4:
        return r.u32();
    default:
        return r.u64();
    }
}

std::int64_t sign_extend(std::uint64_t v, unsigned width) noexcept {
    const unsigned shift = 64 - 8 * width;
    return static_cast<std::int64_t>(v << shift) >> shift;
}

template <class F> void append_shortest(std::string& out, F value) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, ec == std::errc() ? static_cast<std::size_t>(end - buf) : 0);
}

// A finite float as its shortest exact text; false for inf and NaN.
bool append_finite(std::string& out, ColumnType type, std::uint64_t bits) {
    if (type.width == 4) {
        const float f = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
        if (!std::isfinite(f)) return false;
        append_shortest(out, f);
    } else {
        const double d = std::bit_cast<double>(bits);
        if (!std::isfinite(d)) return false;
        append_shortest(out, d);
    }
    return true;
}

bool is_nan(ColumnType type, std::uint64_t bits) {
    return type.width == 4 ? std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                           : std::isnan(std::bit_cast<double>(bits));
}

void store(std::string& out, std::uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

} // namespace

ColumnType make_column_type(ValueType kind, std::uint64_t width) noexcept {
    for (const auto& t : k_types)
        if (t.type.kind == kind && t.type.width == width) return t.type;
    return {};
}

std::string_view column_type_name(ColumnType type) noexcept {
    for (const auto& t : k_types)
        if (t.type == type) return t.name;
    return {};
}

ColumnType column_type_from_name(std::string_view name) noexcept {
    for (const auto& t : k_types)
        if (t.name == name) return t.type;
    return {};
}

ColumnType column_type(const Document& doc, NodeId id) noexcept {
    const Node& n = doc.node(id);
    if (n.kind != NodeKind::column || n.tag == 0) return {};
    ColumnType t = column_type_from_name(doc.tag(id));
    if (!t.valid() || t.kind != n.type || n.value.len % t.width != 0) return {};
    return t;
}

void append_column_element(std::string& out, ColumnType type, std::string_view bytes,
                           std::size_t index) {
    const std::uint64_t v = load(type, bytes, index);
    switch (type.kind) {
    case ValueType::unsigned_integer:
        fmt::format_to(std::back_inserter(out), "{}", v);
        return;
    case ValueType::integer:
        fmt::format_to(std::back_inserter(out), "{}", sign_extend(v, type.width));
        return;
    case ValueType::boolean:
        if (v <= 1)
            out += v ? "true" : "false";
        else
            fmt::format_to(std::back_inserter(out), "bool({})", v);
        return;
    case ValueType::floating:
        if (append_finite(out, type, v)) return;
        if (is_nan(type, v))
            fmt::format_to(std::back_inserter(out), "nan({:#0{}x})", v, 2 + 2 * type.width);
        else
            out += (v >> (8 * type.width - 1)) ? "-inf" : "inf";
        return;
    default:
        return;
    }
}

void append_column_element_json(std::string& out, ColumnType type, std::string_view bytes,
                                std::size_t index) {
    const std::uint64_t v = load(type, bytes, index);
    if (type.kind == ValueType::boolean) {
        if (v <= 1)
            out += v ? "true" : "false";
        else
            fmt::format_to(std::back_inserter(out), "{}", v);
        return;
    }
    if (type.kind == ValueType::floating && !append_finite(out, type, v)) {
        fmt::format_to(std::back_inserter(out), "\"{:#0{}x}\"", v, 2 + 2 * type.width);
        return;
    }
    if (type.kind != ValueType::floating) append_column_element(out, type, bytes, index);
}

void append_column_json(std::string& out, ColumnType type, std::string_view bytes) {
    out += '[';
    const std::size_t n = type.valid() ? bytes.size() / type.width : 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (i) out += ", ";
        append_column_element_json(out, type, bytes, i);
    }
    out += ']';
}

bool parse_column_element(ColumnType type, std::string_view raw, std::string& out,
                          std::string& expected) {
    const char* b = raw.data();
    const char* e = raw.data() + raw.size();
    switch (type.kind) {
    case ValueType::unsigned_integer: {
        const std::uint64_t max =
            type.width == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * type.width)) - 1;
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec != std::errc() || p != e || v > max) {
            expected = fmt::format("an integer from 0 to {}", max);
            return false;
        }
        store(out, v, type.width);
        return true;
    }
    case ValueType::integer: {
        const std::int64_t max = type.width == 8 ? std::numeric_limits<std::int64_t>::max()
                                                 : (std::int64_t{1} << (8 * type.width - 1)) - 1;
        const std::int64_t min = -max - 1;
        std::int64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec != std::errc() || p != e || v < min || v > max) {
            expected = fmt::format("an integer from {} to {}", min, max);
            return false;
        }
        store(out, static_cast<std::uint64_t>(v), type.width);
        return true;
    }
    case ValueType::boolean: {
        if (raw == "true" || raw == "false") {
            out += raw == "true" ? '\x01' : '\x00';
            return true;
        }
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec == std::errc() && p == e && v <= 0xFF) { // a byte other than 0/1, kept as found
            out += static_cast<char>(v);
            return true;
        }
        expected = "true or false";
        return false;
    }
    case ValueType::floating: {
        expected = type.width == 4
                       ? "a number that fits a 32-bit float, or its bits as \"0x7fc00000\""
                       : "a number that fits a 64-bit float, or its bits as \"0x7ff8000000000000\"";
        if (raw.size() >= 2 && raw.front() == '"') {
            std::string_view hex = raw.substr(1, raw.size() - 2);
            if (raw.back() != '"' || !hex.starts_with("0x") || hex.size() < 3 ||
                hex.size() > 2 + 2u * type.width)
                return false;
            std::uint64_t bits = 0;
            auto [p, ec] = std::from_chars(hex.data() + 2, hex.data() + hex.size(), bits, 16);
            if (ec != std::errc() || p != hex.data() + hex.size()) return false;
            store(out, bits, type.width);
            return true;
        }
        if (type.width == 4) {
            float f = 0;
            auto [p, ec] = std::from_chars(b, e, f);
            if (ec != std::errc() || p != e || !std::isfinite(f)) return false;
            store(out, std::bit_cast<std::uint32_t>(f), 4);
        } else {
            double d = 0;
            auto [p, ec] = std::from_chars(b, e, d);
            if (ec != std::errc() || p != e || !std::isfinite(d)) return false;
            store(out, std::bit_cast<std::uint64_t>(d), 8);
        }
        return true;
    }
    default:
        expected = "a column element";
        return false;
    }
}

SPARKSAVE_END_NAMESPACE
