// The escaping of formats/README.md §3, in one place: the reader decodes with it, and the writer
// and pack encode with it and check whether a line's exact text still says what the tree says.
#pragma once

#include "spec.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

// The characters a v2 writer escapes (EscapeKVField), and what follows the backslash for each;
// reading, these four sequences are decoded and nothing else (UnescapeKVField).
inline bool needs_escape(char c) noexcept {
    return c == '\\' || c == '\t' || c == '\n' || c == '\r';
}
inline bool is_known_escape(char c) noexcept {
    return c == '\\' || c == 't' || c == 'n' || c == 'r';
}
inline char unescaped(char c) noexcept {
    return c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : '\\';
}
inline char escape_letter(char c) noexcept {
    return c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
}

// The bytes `text` takes once escaped (EscapedKVFieldSize): LoadFromDisk adds them up to check the
// store budget against the store FlushToDisk would publish.
inline std::uint64_t escaped_size(std::string_view text) noexcept {
    std::uint64_t n = text.size();
    for (char c : text) n += needs_escape(c);
    return n;
}

// Decodes a v2 key or value as UnescapeKVField does (formats/README.md §3): `\\`, `\t`, `\n`,
// `\r` become a backslash, TAB, LF, CR. Any other backslash (an unknown escape, or one ending the
// text) makes the engine refuse the store; it is kept verbatim here, so the tree still shows the
// line, and bad(i) is called with its index in `raw`. Appends to `out`.
template <class Bad> void decode_v2(std::string_view raw, std::string& out, Bad&& bad) {
    std::size_t i = 0;
    while (i < raw.size()) {
        const std::size_t slash = raw.find('\\', i);
        if (slash == std::string_view::npos) {
            out.append(raw.substr(i));
            return;
        }
        out.append(raw.substr(i, slash - i));
        if (slash + 1 < raw.size() && is_known_escape(raw[slash + 1])) {
            out += unescaped(raw[slash + 1]);
            i = slash + 2;
        } else {
            bad(slash);
            out += '\\';
            i = slash + 1;
        }
    }
}

// Whether `raw`, read by the rules of `version`, is exactly `text` (no allocation).
inline bool decodes_to(std::string_view raw, std::string_view text,
                       std::uint32_t version) noexcept {
    if (version != k_version_v2) return raw == text;
    std::size_t j = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        char c = raw[i];
        if (c == '\\' && i + 1 < raw.size() && is_known_escape(raw[i + 1])) c = unescaped(raw[++i]);
        if (j >= text.size() || text[j] != c) return false;
        ++j;
    }
    return j == text.size();
}

// Appends `text` as a v2 writer writes a key or value.
inline void append_escaped(std::string& out, std::string_view text) {
    std::size_t run = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!needs_escape(c)) continue;
        out.append(text.substr(run, i - run));
        out += '\\';
        out += escape_letter(c);
        run = i + 1;
    }
    out.append(text.substr(run));
}

// Whether the line `raw` (without its LF) reads back as this key and value under `version`.
inline bool line_says(std::string_view raw, std::string_view key, std::string_view value,
                      std::uint32_t version) noexcept {
    const std::size_t tab = raw.find('\t');
    if (tab == std::string_view::npos || raw.find('\n') != std::string_view::npos) return false;
    return decodes_to(raw.substr(0, tab), key, version) &&
           decodes_to(raw.substr(tab + 1), value, version);
}

// What a legacy line cannot hold (formats/README.md §3: no escaping): empty when `key` and `value`
// fit, else what is wrong with them.
inline std::string_view legacy_misfit(std::string_view key, std::string_view value) noexcept {
    if (key.find('\t') != std::string_view::npos) return "a TAB in the key";
    if (key.find('\n') != std::string_view::npos) return "a line feed in the key";
    if (value.find('\n') != std::string_view::npos) return "a line feed in the value";
    return {};
}

// What a line without a TAB cannot hold (formats/README.md §3): a TAB or a line feed (it would read
// back as a record, or as two lines) and, as the first line of a legacy store, the v2 marker
// (the store would read back as v2). Empty when `text` fits, else the message.
inline std::string no_tab_misfit(std::string_view text, bool first_line) {
    if (text.find('\t') != std::string_view::npos || text.find('\n') != std::string_view::npos) {
        std::string m = "expected a line without a TAB to hold no TAB and no line feed, found ";
        append_display(m, text.substr(0, 48), true);
        if (text.size() > 48) m += "...";
        return m;
    }
    if (first_line && text == k_marker)
        return fmt::format("expected a legacy store not to start with the marker line {} (it "
                           "would read back as v2), found it",
                           display(k_marker, true));
    return {};
}

// An empty last line without its LF would be no line at all (formats/README.md §3).
inline constexpr std::string_view k_empty_last_line =
    "expected the last line to end with a line feed: an empty last line without one is no line "
    "at all";

// Appends a record line (without its LF) as the writer of `version` writes it. The caller has
// checked legacy_misfit() for a legacy store.
inline void append_line(std::string& out, std::string_view key, std::string_view value,
                        std::uint32_t version) {
    if (version == k_version_v2) {
        append_escaped(out, key);
        out += '\t';
        append_escaped(out, value);
    } else {
        out += key;
        out += '\t';
        out += value;
    }
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
