// JSON validation (iterative, bounded depth) and lazy navigation.
#include "sparksave/json_reader.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace json {

namespace {

std::uint32_t hex4(std::string_view t, std::size_t at) noexcept {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k)
        v = v * 16 + static_cast<std::uint32_t>(hex_value(t[at + k]));
    return v;
}

// The bytes that matter when skipping over a validated container: quotes and brackets.
constexpr auto k_structural = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : {'"', '{', '}', '[', ']'}) t[c] = true;
    return t;
}();

} // namespace

std::string_view kind_name(Kind kind) noexcept {
    switch (kind) {
    case Kind::object:
        return "an object";
    case Kind::array:
        return "an array";
    case Kind::string:
        return "a string";
    case Kind::number:
        return "a number";
    case Kind::boolean:
        return "a boolean";
    case Kind::null:
        return "null";
    }
    return "a value";
}

void Reader::line_column(std::size_t offset, std::uint32_t& line,
                         std::uint32_t& column) const noexcept {
    line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i)
        if (text_[i] == '\n') ++line, line_start = i + 1;
    column = static_cast<std::uint32_t>(offset - line_start + 1);
}

Result<void> Reader::dump_members(const Value& root, std::string_view format,
                                  std::span<const std::string_view> names, std::span<Value> values,
                                  std::span<bool> present) const {
    if (root.kind != Kind::object)
        return error_at(root, "",
                        "expected an object (the output of `sparksave dump --json`), found " +
                            std::string(kind_name(root.kind)));
    std::string about = "a " + std::string(format) + " dump has schemaVersion";
    for (const std::string_view name : names) about += ", " + std::string(name);
    return take(root, "", names, values, present, about, true);
}

Result<void> Reader::check_schema_version(const Value& version) const {
    const std::string_view t = raw(version);
    // A JSON number of digits alone has no sign, fraction or exponent, and no leading zero.
    const bool integer = version.kind == Kind::number &&
                         t.find_first_not_of("0123456789") == std::string_view::npos && t != "0";
    if (!integer) {
        const std::string found =
            version.kind == Kind::object || version.kind == Kind::array
                ? std::string(kind_name(version.kind))
                : (t.size() <= 48 ? display(t) : display(t.substr(0, 48)) + "...");
        return error_at(version, "schemaVersion",
                        fmt::format("expected a positive integer (the version of the dump's "
                                    "layout, {} for this sparksave), found {}",
                                    k_json_schema_version, found));
    }
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (ec == std::errc() && end == t.data() + t.size() && n <= k_json_schema_version) return {};
    return error_at(
        version, "schemaVersion",
        fmt::format("refused: the dump's layout is version {}, newer than this "
                    "sparksave's {} (a newer sparksave wrote it, and its members may "
                    "mean what this one does not know): pack it with that sparksave",
                    t.size() <= 24 ? std::string(t) : std::string(t.substr(0, 24)) + "...",
                    k_json_schema_version));
}

Result<void> Reader::check_complete(const Value& complete) const {
    if (complete.kind != Kind::boolean)
        return error_at(complete, "complete",
                        "expected false (the dump of a file whose read stopped part-way) or no "
                        "member, found " +
                            std::string(kind_name(complete.kind)));
    if (!is_true(complete))
        return error_at(complete, "complete",
                        "refused: this is the dump of a file whose read stopped part-way at an "
                        "error (\"complete\": false): what the read did not reach is not in it, "
                        "so the file packed from it would silently lack it; repair the file, or "
                        "remove the member to pack what was read");
    return {};
}

Result<void> Reader::take_members(const Value& object, const std::string& path,
                                  std::span<const std::string_view> names, std::span<Value> values,
                                  std::span<bool> present, std::string_view expected) const {
    return take(object, path, names, values, present,
                expected.empty() ? std::string() : "expected " + std::string(expected), false);
}

Result<void> Reader::only_members(const Value& object, const std::string& path,
                                  std::initializer_list<std::string_view> allowed) const {
    constexpr std::size_t k_most = 16;
    std::array<Value, k_most> values;
    std::array<bool, k_most> present{};
    const std::size_t n = std::min(allowed.size(), k_most);
    return take(object, path, std::span(allowed.begin(), n), std::span(values.data(), n),
                std::span(present.data(), n), {}, false);
}

Result<void> Reader::take(const Value& object, const std::string& path,
                          std::span<const std::string_view> names, std::span<Value> values,
                          std::span<bool> present, std::string_view about, bool dump_root) const {
    std::optional<Error> problem;
    bool schema_version = false; // seen (dump_root)
    auto member_path = [&](std::string_view key) {
        std::string p = path;
        // A key of any length names the path only when it is short enough to read.
        if (key.size() <= 256) append_path_name(p, key);
        return p;
    };
    auto shown_key = [](std::string_view key) {
        return key.size() <= 48 ? display(key, true) : display(key.substr(0, 48), true) + "...";
    };
    members(object, [&](std::string_view key, const Value& v) {
        if (dump_root && key == "schemaVersion") {
            if (schema_version) {
                problem = error_at(v, member_path(key),
                                   "expected each member once, found " + shown_key(key) + " again");
                return false;
            }
            schema_version = true;
            if (auto r = check_schema_version(v); !r) {
                problem = r.error();
                return false;
            }
            return true;
        }
        if (dump_root && key == "complete") {
            if (auto r = check_complete(v); !r) {
                problem = r.error();
                return false;
            }
            return true;
        }
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] != key) continue;
            if (present[i]) {
                problem = error_at(v, member_path(key),
                                   "expected each member once, found " + shown_key(key) + " again");
                return false;
            }
            values[i] = v;
            present[i] = true;
            return true;
        }
        std::string list(about);
        if (list.empty()) {
            list = "expected ";
            for (std::size_t i = 0; i < names.size(); ++i)
                list += (i == 0 ? "" : ", ") + std::string(names[i]);
        }
        problem =
            error_at(v, member_path(key), "unknown member " + shown_key(key) + " (" + list + ")");
        return false;
    });
    if (problem) return *problem;
    return {};
}

std::string Reader::member_path(std::string_view path, std::string_view member) {
    std::string p(path);
    append_path_name(p, member);
    return p;
}

Result<void> Reader::bytes(const Value& v, const std::string& path, std::string& out) const {
    out.clear();
    if (v.kind == Kind::string) {
        decode(v, out);
        return {};
    }
    auto shown = [&](const Value& x) {
        if (x.kind == Kind::object || x.kind == Kind::array) return std::string(kind_name(x.kind));
        const std::string_view t = raw(x);
        return t.size() <= 48 ? display(t) : display(t.substr(0, 48)) + "...";
    };
    constexpr std::string_view k_expected = "expected a string or {\"base64\": \"...\"}";
    if (v.kind != Kind::object)
        return error_at(v, path, fmt::format("{}, found {}", k_expected, shown(v)));
    Value b64;
    std::size_t count = 0;
    std::string other;
    members(v, [&](std::string_view key, const Value& m) {
        ++count;
        if (key == "base64" && count == 1) {
            b64 = m;
            return true;
        }
        if (key != "base64" && other.empty()) other = display(key.substr(0, 64), true);
        return true;
    });
    if (count != 1 || !other.empty())
        return error_at(v, path,
                        fmt::format("{}, found an object with {}", k_expected,
                                    count == 0      ? std::string("no member")
                                    : other.empty() ? std::string("\"base64\" twice")
                                                    : "the member " + other));
    std::string b64_path = path;
    b64_path += path.empty() ? "base64" : ".base64";
    if (b64.kind != Kind::string)
        return error_at(b64, std::move(b64_path),
                        "expected a string of standard base64, found " + shown(b64));
    const std::string text = decoded(b64);
    if (!base64_decode(text, out) || base64_encode(out) != text) {
        out.clear();
        return error_at(b64, std::move(b64_path),
                        "expected standard base64 (A-Z a-z 0-9 + / and = padding, the unused bits "
                        "of the last character zero), found " +
                            shown(b64));
    }
    return {};
}

Error Reader::error_at(const Value& v, std::string path, std::string message) const {
    Error e = make_error(ErrorCode::bad_json, std::move(message), k_no_offset, std::move(path));
    line_column(v.begin, e.line, e.column);
    return e;
}

std::size_t Reader::string_end(std::size_t at) const noexcept {
    // Validated text: the closing quote is the first '"' not escaped by an odd run of '\\'.
    const char* base = text_.data();
    const char* p = base + at + 1;
    const char* end = base + text_.size();
    for (;;) {
        p = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
        const char* q = p;
        while (q > base && q[-1] == '\\') --q;
        if (((p - q) & 1) == 0) return static_cast<std::size_t>(p - base) + 1;
        ++p;
    }
}

std::size_t Reader::value_end(std::size_t at, Kind& kind) const noexcept {
    switch (text_[at]) {
    case '"':
        kind = Kind::string;
        return string_end(at);
    case 't':
        kind = Kind::boolean;
        return at + 4;
    case 'f':
        kind = Kind::boolean;
        return at + 5;
    case 'n':
        kind = Kind::null;
        return at + 4;
    case '{':
    case '[': {
        kind = text_[at] == '{' ? Kind::object : Kind::array;
        for (const auto& known : counts_) // a large array under the root: its end is known
            if (known.begin == at) return known.end;
        std::size_t depth = 0;
        const auto* t = reinterpret_cast<const unsigned char*>(text_.data());
        for (;;) {
            while (!k_structural[t[at]]) ++at; // validated: a closing bracket comes
            char c = text_[at];
            if (c == '"') {
                at = string_end(at);
                continue;
            }
            if (c == '{' || c == '[') ++depth;
            if (c == '}' || c == ']') {
                if (--depth == 0) return at + 1;
            }
            ++at;
        }
    }
    default: {
        kind = Kind::number;
        while (at < text_.size() &&
               (text_[at] == '-' || text_[at] == '+' || text_[at] == '.' || text_[at] == 'e' ||
                text_[at] == 'E' || (text_[at] >= '0' && text_[at] <= '9')))
            ++at;
        return at;
    }
    }
}

std::optional<std::size_t> Reader::known_count(const Value& array) const noexcept {
    for (const auto& known : counts_)
        if (known.begin == array.begin) return known.count;
    return std::nullopt;
}

bool Reader::find(const Value& object, std::string_view key, Value& out) const {
    bool found = false;
    members(object, [&](std::string_view k, const Value& v) {
        if (k != key) return true;
        out = v;
        found = true;
        return false;
    });
    return found;
}

void Reader::decode(const Value& v, std::string& out) const {
    std::size_t i = v.begin + 1;
    const std::size_t end = v.end - 1;
    while (i < end) {
        std::size_t run = i;
        while (run < end && text_[run] != '\\') ++run;
        out.append(text_.data() + i, run - i);
        i = run;
        if (i >= end) break;
        char c = text_[i + 1];
        i += 2;
        switch (c) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'u': {
            char32_t cp = hex4(text_, i);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) { // validated: a low surrogate follows
                char32_t low = hex4(text_, i + 2);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            }
            append_utf8(out, cp);
            break;
        }
        default:
            out += c; // " \ /
        }
    }
}

Result<Value> Reader::validate() {
    enum class Container : std::uint8_t { object, array };
    std::vector<Container> stack;
    std::vector<std::size_t> begins, commas; // per open container: where it starts, commas seen
    counts_.clear();
    // A container closes: an array directly under the root keeps its element count.
    auto close_container = [&](bool empty, std::size_t bracket) {
        if (stack.size() == 2 && stack.back() == Container::array)
            counts_.push_back(
                KnownArray{begins.back(), bracket + 1, empty ? 0 : commas.back() + 1});
        stack.pop_back();
        begins.pop_back();
        commas.pop_back();
    };
    std::size_t at = skip_space(0);
    Value root;
    auto fail = [&](std::size_t where, std::string message) -> Error {
        Error e = make_error(ErrorCode::bad_json, "not valid JSON: " + std::move(message));
        line_column(where, e.line, e.column);
        return e;
    };
    auto found = [&](std::size_t where) -> std::string {
        if (where >= text_.size()) return "the end of the text";
        return display(text_.substr(where, 1), true);
    };
    // Scans a string starting at `at` (the quote); returns its end or an error.
    auto scan_string = [&](std::size_t& pos) -> Result<void> {
        std::size_t i = pos + 1;
        bool ascii = true;
        for (;;) {
            // Runs of printable ASCII other than '"' and '\\' need no look, eight bytes at once.
            i += plain_prefix(text_.substr(std::min(i, text_.size())));
            if (i >= text_.size()) return fail(pos, "unterminated string");
            auto c = static_cast<unsigned char>(text_[i]);
            if (c == '"') break;
            if (c >= 0x80) ascii = false;
            if (c < 0x20)
                return fail(
                    i, "a control character inside a string must be escaped (\\n, \\u0001, ...)");
            if (c == '\\') {
                if (i + 1 >= text_.size()) return fail(i, "unterminated escape");
                char e = text_[i + 1];
                if (e == 'u') {
                    if (i + 6 > text_.size()) return fail(i, "expected 4 hex digits after \\u");
                    for (std::size_t k = 2; k < 6; ++k)
                        if (hex_value(text_[i + k]) < 0)
                            return fail(i, "expected 4 hex digits after \\u");
                    std::uint32_t cp = hex4(text_, i + 2);
                    if (cp >= 0xDC00 && cp <= 0xDFFF)
                        return fail(i, "a low surrogate \\u escape without a high one");
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        if (i + 12 > text_.size() || text_[i + 6] != '\\' || text_[i + 7] != 'u')
                            return fail(
                                i, "a high surrogate \\u escape must be followed by a low one");
                        for (std::size_t k = 8; k < 12; ++k)
                            if (hex_value(text_[i + k]) < 0)
                                return fail(i + 6, "expected 4 hex digits after \\u");
                        std::uint32_t low = hex4(text_, i + 8);
                        if (low < 0xDC00 || low > 0xDFFF)
                            return fail(
                                i + 6, "a high surrogate \\u escape must be followed by a low one");
                        i += 12;
                    } else {
                        i += 6;
                    }
                    continue;
                }
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                    e != 'r' && e != 't')
                    return fail(i, "unknown escape " + display(text_.substr(i, 2), true));
                i += 2;
                continue;
            }
            ++i;
        }
        std::string_view body = text_.substr(pos + 1, i - pos - 1);
        if (!ascii && !is_valid_utf8(body))
            return fail(pos, "a string that is not valid UTF-8 (JSON text is UTF-8)");
        pos = i + 1;
        return {};
    };
    auto scan_number = [&](std::size_t& pos) -> Result<void> {
        std::size_t i = pos;
        auto digit = [&](std::size_t k) {
            return k < text_.size() && text_[k] >= '0' && text_[k] <= '9';
        };
        if (i < text_.size() && text_[i] == '-') ++i;
        if (!digit(i)) return fail(pos, "expected a number");
        if (text_[i] == '0') {
            ++i;
        } else {
            while (digit(i)) ++i;
        }
        if (i < text_.size() && text_[i] == '.') {
            ++i;
            if (!digit(i)) return fail(i, "expected a digit after the decimal point");
            while (digit(i)) ++i;
        }
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
            ++i;
            if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
            if (!digit(i)) return fail(i, "expected a digit in the exponent");
            while (digit(i)) ++i;
        }
        pos = i;
        return {};
    };

    root.begin = at;
    bool expect_key = false;
    for (;;) {
        at = skip_space(at);
        // A value (or, inside an object, a key and its value).
        if (expect_key) {
            if (at >= text_.size() || text_[at] != '"')
                return fail(at, "expected a member name (a string), found " + found(at));
            if (auto r = scan_string(at); !r) return r.error();
            at = skip_space(at);
            if (at >= text_.size() || text_[at] != ':')
                return fail(at, "expected ':' after the member name, found " + found(at));
            at = skip_space(at + 1);
            expect_key = false;
        }
        if (at >= text_.size()) return fail(at, "expected a value, found the end of the text");
        char c = text_[at];
        if (c == '{' || c == '[') {
            if (stack.size() >= k_max_depth)
                return fail(at, fmt::format("nesting deeper than {} levels", k_max_depth));
            stack.push_back(c == '{' ? Container::object : Container::array);
            begins.push_back(at);
            commas.push_back(0);
            at = skip_space(at + 1);
            char close = c == '{' ? '}' : ']';
            if (at < text_.size() && text_[at] == close) {
                close_container(true, at);
                ++at;
            } else {
                expect_key = c == '{';
                continue;
            }
        } else if (c == '"') {
            if (auto r = scan_string(at); !r) return r.error();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (auto r = scan_number(at); !r) return r.error();
        } else if (text_.substr(at, 4) == "true" || text_.substr(at, 4) == "null") {
            at += 4;
        } else if (text_.substr(at, 5) == "false") {
            at += 5;
        } else {
            return fail(
                at,
                "expected a value (object, array, string, number, true, false or null), found " +
                    found(at));
        }
        // After a value: close containers or move to the next element.
        for (;;) {
            const std::size_t stop = at;
            at = skip_space(at);
            if (stack.empty()) {
                if (at != text_.size())
                    return fail(at,
                                "expected the end of the text after the value, found " + found(at));
                root.end = stop;
                value_end(root.begin, root.kind);
                return root;
            }
            const bool object = stack.back() == Container::object;
            if (at < text_.size() && text_[at] == ',') {
                ++at;
                ++commas.back();
                expect_key = object;
                break;
            }
            if (at < text_.size() && text_[at] == (object ? '}' : ']')) {
                close_container(false, at);
                ++at;
                continue;
            }
            return fail(
                at, fmt::format("expected ',' or '{}', found {}", object ? '}' : ']', found(at)));
        }
    }
}

} // namespace json
SPARKSAVE_END_NAMESPACE
