// Text taken from a file never reaches a terminal or a JSON document raw. This is the one place
// that turns file bytes into printable text: control characters, escape sequences, terminal
// direction overrides and invalid UTF-8 become visible escapes (`\x1b`, `\n`, `\xff`, `\u{202e}`).
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view bytes) noexcept;
// The value of a hexadecimal digit (either case), or -1.
int hex_value(char c) noexcept;
// Appends the UTF-8 encoding of a code point.
void append_utf8(std::string& out, char32_t cp);

// Appends `bytes` with every unsafe character escaped. With `quoted`, wraps the result in
// double quotes and escapes `"` too. A backslash is always escaped, so the output is
// unambiguous and parse_escaped() below reverses it.
void append_display(std::string& out, std::string_view bytes, bool quoted = false);
std::string display(std::string_view bytes, bool quoted = false);

// Reverses append_display's escapes (`\\`, `\"`, `\n`, `\t`, `\r`, `\0`, `\xNN`, `\u{H..}`).
// Returns false on a malformed escape.
bool parse_escaped(std::string_view text, std::string& out);

// The length of the leading run of `bytes` that no escaper touches: printable ASCII other than
// `"` and `\` (checked eight bytes at a time).
std::size_t plain_prefix(std::string_view bytes) noexcept;
// plain_prefix of `bytes` that lie inside a larger buffer readable up to `readable_end` (the
// string's own end or later): the same length, found sixteen bytes at a time, reading up to 15
// bytes past the string where they are still before `readable_end` (SSE2; elsewhere
// plain_prefix). Inline for the library's own hot paths: sparksave/plain_scan.hpp.
std::size_t plain_prefix_in(std::string_view bytes, const char* readable_end) noexcept;

// Whether UTF-8 text holds a character the escapers here never pass on raw, other than LF, TAB
// and `"` / `\`: a control character (CR and ESC included), DEL, or a code point a terminal may
// act on (C1 controls, direction overrides and isolates, U+2028/U+2029, U+FEFF). Invalid UTF-8
// counts as such a character too.
bool has_terminal_controls(std::string_view bytes) noexcept;

// Appends a JSON string literal for UTF-8 text (call is_valid_utf8 first; invalid sequences
// are replaced by U+FFFD). Control and C1 characters and direction overrides use \uXXXX.
void append_json_string(std::string& out, std::string_view utf8);

SPARKSAVE_END_NAMESPACE
