// The text archive rules the reader, pack and the tests share (formats/README.md §2): the seven
// types, the predicates on lines, the events a reader reports and message helpers. The reader
// template (reader.hpp) includes this; files that only need a helper include this alone.
#pragma once

#include "common/finding.hpp"
#include "spec.hpp"

#include "sparksave/document.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

// The writer's seven types (formats/README.md §2), and everything else.
enum class Type : std::uint8_t { boolean, int32, uint32, size, float32, float64, string, unknown };

inline Type type_of(std::string_view name) noexcept {
    if (name == k_type_bool) return Type::boolean;
    if (name == k_type_int) return Type::int32;
    if (name == k_type_unsigned) return Type::uint32;
    if (name == k_type_size_t) return Type::size;
    if (name == k_type_float) return Type::float32;
    if (name == k_type_double) return Type::float64;
    if (name == k_type_string) return Type::string;
    return Type::unknown;
}

inline std::string_view type_name(Type type) noexcept {
    switch (type) {
    case Type::boolean:
        return k_type_bool;
    case Type::int32:
        return k_type_int;
    case Type::uint32:
        return k_type_unsigned;
    case Type::size:
        return k_type_size_t;
    case Type::float32:
        return k_type_float;
    case Type::float64:
        return k_type_double;
    case Type::string:
        return k_type_string;
    case Type::unknown:
        break;
    }
    return "?";
}

// The tree's ValueType for a type name (spec.hpp).
inline ValueType value_type_of(Type type) noexcept {
    switch (type) {
    case Type::boolean:
        return ValueType::boolean;
    case Type::int32:
        return ValueType::integer;
    case Type::uint32:
    case Type::size:
        return ValueType::unsigned_integer;
    case Type::float32:
    case Type::float64:
        return ValueType::floating;
    case Type::string:
        return ValueType::string;
    case Type::unknown:
        break;
    }
    return ValueType::none;
}

// formats/README.md §2: the engine's integer readers accept int, unsigned int and size_t alike.
inline bool is_integer(Type type) noexcept {
    return type == Type::int32 || type == Type::uint32 || type == Type::size;
}

inline std::string pairs_text(std::uint64_t n) {
    return fmt::format("{} {}", n, n == 1 ? "pair" : "pairs");
}

inline std::string tabs_text(std::size_t n) {
    return fmt::format("{} {}", n, n == 1 ? "tab" : "tabs");
}

// Does the first line look like a version number (digits and dots, an optional `v`, blanks and
// a UTF-8 byte order mark around it)? Used to recognise an archive whose version line is wrong.
inline bool looks_like_version(std::string_view line) noexcept {
    if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
        line.remove_suffix(1);
    if (!line.empty() && (line.front() == 'v' || line.front() == 'V')) line.remove_prefix(1);
    if (line.empty() || line.size() > 32) return false;
    bool digit = false;
    for (char c : line) {
        if (c >= '0' && c <= '9') {
            digit = true;
        } else if (c == '.' && digit) {
            digit = false;
        } else {
            return false;
        }
    }
    return digit;
}

struct AttributeEvent {
    std::string_view name;
    bool named = false;
    std::string_view type;
    std::string_view value;
    std::size_t offset = 0; // span: the child's text after its indentation ...
    std::size_t end = 0;    // ... up to and including the value's `}`
    ValueType value_type = ValueType::none;
    std::size_t depth = 0; // 0: a top-level entry
};

struct ClassEvent {
    std::string_view name;
    bool named = false;
    std::string_view class_name;
    std::size_t offset = 0;
    bool list = false; // a `Vector`
    std::size_t depth = 0;
};

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
