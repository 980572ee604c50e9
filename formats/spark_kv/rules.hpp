// The spark-kv rules the reader, the writer and the tests share (formats/README.md §3): the
// predicates on keys, values and slots, the events a reader reports and message helpers. The reader
// template (reader.hpp) includes this; files that only need a helper include this alone.
#pragma once

#include "common/finding.hpp"
#include "spec.hpp"

#include "sparksave/document.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

// The MMO record conventions of formats/README.md §3 (spec.hpp).
enum class Mmo : std::uint8_t { none, character, inventory };

inline bool is_digits(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// An unsubstituted query parameter: `%` or `?` and digits (formats/README.md §3).
inline bool is_token(std::string_view s) noexcept {
    return s.size() >= 2 && (s[0] == '%' || s[0] == '?') && is_digits(s.substr(1));
}

// The index of the first `%<digit>` or `?<digit>` in `text`, or npos; `length` is the token's
// length (the sign and every digit after it).
inline std::size_t find_token(std::string_view text, std::size_t& length) noexcept {
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        if ((text[i] != '%' && text[i] != '?') || text[i + 1] < '0' || text[i + 1] > '9') continue;
        std::size_t end = i + 1;
        while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
        length = end - i;
        return i;
    }
    return std::string_view::npos;
}

// Which documented MMO record a key names: `character_<id>` or `inventory_<id>`, <id> decimal
// or an unsubstituted token.
inline Mmo mmo_kind(std::string_view key) noexcept {
    auto id_of = [&](std::string_view prefix) -> bool {
        if (!key.starts_with(prefix)) return false;
        const std::string_view id = key.substr(prefix.size());
        return is_digits(id) || is_token(id);
    };
    if (id_of(k_character_prefix)) return Mmo::character;
    if (id_of(k_inventory_prefix)) return Mmo::inventory;
    return Mmo::none;
}

// Calls fn(field) for each `separator`-separated field of `text` (an empty text is one empty
// field), in order.
template <class F> void for_each_field(std::string_view text, char separator, F&& fn) {
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(separator, start);
        if (end == std::string_view::npos) {
            fn(text.substr(start));
            return;
        }
        fn(text.substr(start, end - start));
        start = end + 1;
    }
}

inline std::size_t field_count(std::string_view text, char separator) noexcept {
    std::size_t n = 1;
    for (char c : text) n += c == separator;
    return n;
}

// The slot entries of an inventory's slots field (spec.hpp): comma-separated, none when the
// field is empty, one trailing comma accepted.
template <class F> void for_each_slot(std::string_view slots, F&& fn) {
    if (!slots.empty() && slots.back() == k_slot_separator) slots.remove_suffix(1);
    if (slots.empty()) return;
    for_each_field(slots, k_slot_separator, fn);
}

inline std::size_t slot_count(std::string_view slots) noexcept {
    std::size_t n = 0;
    for_each_slot(slots, [&](std::string_view) { ++n; });
    return n;
}

// A slot entry `slot:itemDefId:count`, three decimal numbers.
inline bool is_slot_entry(std::string_view entry) noexcept {
    if (field_count(entry, k_slot_part_separator) != 3) return false;
    bool ok = true;
    for_each_field(entry, k_slot_part_separator,
                   [&](std::string_view part) { ok = ok && is_digits(part); });
    return ok;
}

// What a view's text looks like, for printing: a decimal integer, another finite number, or text.
inline ValueType view_type(std::string_view text) noexcept {
    if (text.empty()) return ValueType::string;
    if (is_digits(text[0] == '-' ? text.substr(1) : text)) return ValueType::integer;
    double v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && p == text.data() + text.size() && std::isfinite(v))
        return ValueType::floating;
    return ValueType::string;
}

// Is a first line that is not the marker meant as one (another version, a CR, a BOM)?
inline bool looks_like_marker(std::string_view line) noexcept {
    if (line.find('\t') != std::string_view::npos) return false;
    if (line.starts_with(k_utf8_bom)) line.remove_prefix(k_utf8_bom.size());
    return line.starts_with(k_marker_stem);
}

// A line with a TAB.
struct RecordEvent {
    // As the engine reads them: views into the file when the text holds no escape (in_file),
    // else into the reader's buffer (valid until the read ends).
    std::string_view key;
    std::string_view value;
    bool key_in_file = true;
    bool value_in_file = true;
    std::string_view raw;         // the line without its LF (a view into the file)
    std::size_t offset = 0;       // the line's first byte
    std::size_t value_offset = 0; // the raw value's first byte
    std::uint32_t line = 0;
    std::uint64_t index = 0; // among the records node's children
    Mmo mmo = Mmo::none;
    bool repeated = false; // the key was on an earlier line too
};

// A line without a TAB.
struct LineEvent {
    std::string_view text;
    std::size_t offset = 0;
    std::uint32_t line = 0;
    std::uint64_t index = 0;
};

// The most of a key a node path quotes (a sparksave limit).
inline constexpr std::size_t k_max_path_text = 1024;

// `records["key"]`, the key cut after k_max_path_text bytes (a hostile file's keys can be
// megabytes long; a finding needs to say where, not to copy them).
inline std::string record_path(std::string_view key) {
    std::string p(k_records);
    if (key.size() > k_max_path_text) {
        append_path_name(p, key.substr(0, k_max_path_text));
        p += "...";
    } else {
        append_path_name(p, key);
    }
    return p;
}
inline std::string index_path(std::uint64_t index) {
    std::string p(k_records);
    append_path_index(p, index);
    return p;
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
