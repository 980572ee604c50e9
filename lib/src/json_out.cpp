// JSON output helpers and base64.
#include "sparksave/json_out.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/version.hpp"

#include <cstdint>

SPARKSAVE_BEGIN_NAMESPACE

namespace {
constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

void begin_dump(JsonWriter& w, std::string_view format) {
    w.begin_object(JsonWriter::Layout::block);
    w.key("schemaVersion").number(k_json_schema_version);
    w.key("format").string(format);
}

void append_json_bytes(std::string& out, std::string_view bytes) {
    const std::size_t plain = plain_prefix(bytes);
    if (plain == bytes.size()) { // the common case: nothing to escape or validate
        out += '"';
        out.append(bytes);
        out += '"';
        return;
    }
    if (is_valid_utf8(bytes.substr(plain))) {
        append_json_string(out, bytes);
        return;
    }
    out += "{\"base64\": \"";
    out += base64_encode(bytes);
    out += "\"}";
}

std::string base64_encode(std::string_view in) {
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    auto b = [&](std::size_t k) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(in[k]));
    };
    for (; i + 3 <= in.size(); i += 3) {
        std::uint32_t v = b(i) << 16 | b(i + 1) << 8 | b(i + 2);
        out += k_alphabet[v >> 18];
        out += k_alphabet[(v >> 12) & 63];
        out += k_alphabet[(v >> 6) & 63];
        out += k_alphabet[v & 63];
    }
    if (in.size() - i == 1) {
        std::uint32_t v = b(i) << 16;
        out += k_alphabet[v >> 18];
        out += k_alphabet[(v >> 12) & 63];
        out += "==";
    } else if (in.size() - i == 2) {
        std::uint32_t v = b(i) << 16 | b(i + 1) << 8;
        out += k_alphabet[v >> 18];
        out += k_alphabet[(v >> 12) & 63];
        out += k_alphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

bool hex_decode(std::string_view text, std::string& out) {
    if (text.size() % 2) return false;
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out += static_cast<char>(hi * 16 + lo);
    }
    return true;
}

bool base64_decode(std::string_view text, std::string& out) {
    if (text.size() % 4 != 0) return false;
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    for (std::size_t i = 0; i < text.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            char c = text[i + k];
            if (c == '=' && i + 4 == text.size() && k >= 2) {
                v[k] = 0;
                ++pad;
            } else {
                if (pad) return false;
                v[k] = value(c);
                if (v[k] < 0) return false;
            }
        }
        std::uint32_t n = static_cast<std::uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        out += static_cast<char>(n >> 16);
        if (pad < 2) out += static_cast<char>((n >> 8) & 0xFF);
        if (pad < 1) out += static_cast<char>(n & 0xFF);
    }
    return true;
}

SPARKSAVE_END_NAMESPACE
