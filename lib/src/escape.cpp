// Escaping of file text for terminals and JSON.
#include "sparksave/escape.hpp"
#include "sparksave/plain_scan.hpp"
#include "sparksave/version.hpp"

#include <cstdint>

SPARKSAVE_BEGIN_NAMESPACE

namespace {

constexpr char k_hex[] = "0123456789abcdef";

// Decodes one UTF-8 sequence at s[i]; returns its length (0 when invalid) and the code point.
std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& cp) noexcept {
    auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    std::size_t len;
    char32_t min;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2, cp = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3, cp = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4, cp = b0 & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (s.size() - i < len) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

// Code points a terminal may act on: C1 controls, bidirectional overrides and isolates, line
// and paragraph separators, the byte order mark.
bool unsafe_code_point(char32_t cp) noexcept {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0xFEFF;
}

bool plain_ascii(unsigned char c, bool quoted) noexcept {
    return c >= 0x20 && c < 0x7F && c != '\\' && !(quoted && c == '"');
}

// The length of the leading run of bytes that need no escaping in any context.
std::size_t plain_run(std::string_view s) noexcept {
    return plain_scan::run(s);
}

void append_hex_byte(std::string& out, unsigned char c) {
    out += "\\x";
    out += k_hex[c >> 4];
    out += k_hex[c & 15];
}

void append_code_point_escape(std::string& out, char32_t cp) {
    out += "\\u{";
    char buf[8];
    int n = 0;
    do {
        buf[n++] = k_hex[cp & 15];
        cp >>= 4;
    } while (cp);
    while (n) out += buf[--n];
    out += '}';
}

} // namespace

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

bool has_terminal_controls(std::string_view s) noexcept {
    for (std::size_t i = plain_prefix(s); i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return true;
            ++i;
            continue;
        }
        char32_t cp;
        const std::size_t n = decode_utf8(s, i, cp);
        if (n == 0 || unsafe_code_point(cp)) return true;
        i += n;
    }
    return false;
}

std::size_t plain_prefix(std::string_view bytes) noexcept {
    return plain_run(bytes);
}

std::size_t plain_prefix_in(std::string_view bytes, const char* readable_end) noexcept {
    return plain_scan::run_in(bytes, readable_end);
}

bool is_valid_utf8(std::string_view bytes) noexcept {
    std::size_t i = 0;
    while (i < bytes.size()) {
        // Fast path over ASCII, eight bytes at a time.
        while (i + 8 <= bytes.size()) {
            std::uint64_t w;
            __builtin_memcpy(&w, bytes.data() + i, 8);
            if (w & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= bytes.size()) break;
        char32_t cp;
        std::size_t n = decode_utf8(bytes, i, cp);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

void append_display(std::string& out, std::string_view s, bool quoted) {
    if (quoted) out += '"';
    std::size_t i = plain_prefix(s);
    out.append(s.data(), i);
    while (i < s.size()) {
        // Quoted, the plain bytes are those of the scan; unquoted, '"' is plain too.
        std::size_t run = quoted ? i + plain_run(s.substr(i)) : i;
        while (run < s.size() && plain_ascii(static_cast<unsigned char>(s[run]), quoted)) ++run;
        out.append(s.data() + i, run - i);
        i = run;
        if (i >= s.size()) break;
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '"':
                out += "\\\"";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                append_hex_byte(out, c);
            }
            ++i;
            continue;
        }
        char32_t cp;
        std::size_t n = decode_utf8(s, i, cp);
        if (n == 0) {
            append_hex_byte(out, c);
            ++i;
        } else if (unsafe_code_point(cp)) {
            append_code_point_escape(out, cp);
            i += n;
        } else {
            out.append(s.data() + i, n);
            i += n;
        }
    }
    if (quoted) out += '"';
}

std::string display(std::string_view bytes, bool quoted) {
    std::string out;
    out.reserve(bytes.size() + 2);
    append_display(out, bytes, quoted);
    return out;
}

bool parse_escaped(std::string_view t, std::string& out) {
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] != '\\') {
            out += t[i];
            continue;
        }
        if (++i >= t.size()) return false;
        switch (t[i]) {
        case '\\':
            out += '\\';
            break;
        case '"':
            out += '"';
            break;
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case '0':
            out += '\0';
            break;
        case 'x': {
            if (i + 2 >= t.size()) return false;
            int hi = hex_value(t[i + 1]), lo = hex_value(t[i + 2]);
            if (hi < 0 || lo < 0) return false;
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
            break;
        }
        case 'u': {
            if (i + 1 >= t.size() || t[i + 1] != '{') return false;
            std::size_t j = i + 2;
            char32_t cp = 0;
            std::size_t digits = 0;
            while (j < t.size() && t[j] != '}') {
                int h = hex_value(t[j]);
                if (h < 0 || ++digits > 6) return false;
                cp = cp * 16 + static_cast<char32_t>(h);
                ++j;
            }
            if (j >= t.size() || digits == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                return false;
            append_utf8(out, cp);
            i = j;
            break;
        }
        default:
            return false;
        }
    }
    return true;
}

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    std::size_t i = plain_prefix(s);
    out.append(s.data(), i);
    while (i < s.size()) {
        const std::size_t run = i + plain_run(s.substr(i));
        out.append(s.data() + i, run - i);
        i = run;
        if (i >= s.size()) break;
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                out += "\\u00";
                out += k_hex[c >> 4];
                out += k_hex[c & 15];
            }
            ++i;
            continue;
        }
        char32_t cp;
        std::size_t n = decode_utf8(s, i, cp);
        if (n == 0) {
            out += "\\ufffd";
            ++i;
        } else if (unsafe_code_point(cp)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(cp >> shift) & 15];
            i += n;
        } else {
            out.append(s.data() + i, n);
            i += n;
        }
    }
    out += '"';
}

SPARKSAVE_END_NAMESPACE
