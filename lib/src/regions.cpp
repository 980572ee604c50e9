// The byte map of a file and its two printers (sparksave/regions.hpp; sparksave-dump(1) HEX DUMP).
#include "sparksave/regions.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/version.hpp"

#include <algorithm>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE

std::string_view role_name(Role role) noexcept {
    switch (role) {
    case Role::magic:
        return "magic";
    case Role::version:
        return "version";
    case Role::length:
        return "length";
    case Role::count:
        return "count";
    case Role::name:
        return "name";
    case Role::string:
        return "string";
    case Role::number:
        return "number";
    case Role::type:
        return "type";
    case Role::bytes:
        return "bytes";
    case Role::array:
        return "array";
    case Role::checksum:
        return "checksum";
    case Role::syntax:
        return "syntax";
    case Role::whitespace:
        return "whitespace";
    case Role::unread:
        return "unread";
    case Role::trailing:
        return "trailing";
    }
    return "bytes";
}

Findings file_regions(const FormatInfo& format, std::string_view bytes, const RegionSink& sink) {
    std::uint64_t end = 0;
    Findings findings;
    const auto& regions = format_json(format.id).regions;
    if (regions) {
        findings = regions(bytes, [&](const Region& r) {
            end = r.offset + r.length;
            sink(r);
        });
    }
    if (end < bytes.size()) sink(Region{end, bytes.size() - end, k_unread_path, Role::unread, {}});
    return findings;
}

namespace {

constexpr char k_hex_row_digits[] = "0123456789abcdef";
constexpr std::size_t k_row_size = 16;
// Where a row's fields start: offset (8), 2 blanks, 16 bytes of "hh " and a blank between the
// halves, a blank, `|` 16 characters `|`, 2 blanks.
constexpr std::size_t k_row_fields_column = 8 + 2 + 3 * k_row_size + 1 + 1 + 1 + k_row_size + 1 + 2;
// The most of a value a row shows (the JSON has all of it).
constexpr std::size_t k_row_value_shown = 48;

// The ANSI colour of a role's bytes.
std::string_view role_ansi(Role role) noexcept {
    switch (role) {
    case Role::magic:
    case Role::version:
        return "\x1b[1;35m";
    case Role::length:
    case Role::count:
        return "\x1b[36m";
    case Role::name:
        return "\x1b[1;34m";
    case Role::string:
        return "\x1b[32m";
    case Role::number:
        return "\x1b[33m";
    case Role::type:
        return "\x1b[35m";
    case Role::bytes:
    case Role::array:
        return "\x1b[34m";
    case Role::checksum:
        return "\x1b[1;33m";
    case Role::syntax:
    case Role::whitespace:
        return "\x1b[2m";
    case Role::unread:
        return "\x1b[1;31m";
    case Role::trailing:
        return "\x1b[31m";
    }
    return "";
}
constexpr std::string_view k_ansi_reset = "\x1b[0m";

// A value is shown quoted and escaped when it is text, as it is when it is a number (a type
// tag is either: a text archive's class name, a GMSV type id).
bool shown_quoted(const Region& r) noexcept {
    switch (r.role) {
    case Role::name:
    case Role::string:
    case Role::magic:
    case Role::syntax:
    case Role::whitespace:
        return true;
    case Role::type:
        return r.value.empty() || r.value.find_first_not_of("0123456789") != std::string_view::npos;
    default:
        return false;
    }
}

void append_hex_offset(std::string& out, std::uint64_t value, int digits) {
    char buf[16];
    int n = 0;
    while (n < digits || value != 0) {
        buf[n++] = k_hex_row_digits[value & 15];
        value >>= 4;
        if (n == 16) break;
    }
    while (n > 0) out += buf[--n];
}

} // namespace

HexDump::HexDump(std::string_view bytes, Options options, std::function<void(std::string_view)> out)
    : bytes_(bytes), o_(options), out_(std::move(out)) {
    o_.end = std::min<std::uint64_t>(o_.end, bytes_.size());
    text_.reserve(1 << 20);
}

void HexDump::region(const Region& r) {
    const std::uint64_t lo = std::max(r.offset, o_.begin);
    const std::uint64_t hi = std::min(r.offset + r.length, o_.end);
    if (lo >= hi) return;
    std::uint64_t row = lo - lo % k_row_size;
    if (row_open_ && row != row_) flush_row();
    // The field's line, on the row it starts in (or the first row shown, when it starts before).
    if (!row_open_) open_row(row);
    // Separators are shown by their colour alone: listed, they would outnumber the fields.
    if (r.role != Role::syntax && r.role != Role::whitespace) list(r, lo);
    // Its bytes, row by row.
    std::uint64_t at = lo;
    while (true) {
        const std::uint64_t row_end = row_ + k_row_size;
        const std::uint64_t stop = std::min(hi, row_end);
        for (std::uint64_t i = at; i < stop; ++i) roles_[i - row_] = r.role;
        if (hi <= row_end) break;
        flush_row();
        open_row(row_end);
        at = row_end;
    }
}

// Plain text goes straight to the output, the row before its fields (open_row); coloured, the
// row waits for the roles of all its bytes, so its fields wait in fields_.
void HexDump::list(const Region& r, std::uint64_t lo) {
    std::string& f = o_.color ? fields_ : text_;
    if (field_count_++) {
        f += '\n';
        if (!o_.color) f.append(k_row_fields_column, ' ');
    } else if (!o_.color) {
        f += "  ";
    }
    if (r.offset < lo) {
        f += "(from 0x";
        append_hex_offset(f, r.offset, 1);
        f += ") ";
    }
    if (r.role == Role::unread || r.role == Role::trailing) {
        f += r.path;
        f += ' ';
        f += std::to_string(r.length);
        f += r.length == 1 ? " byte" : " bytes";
    } else {
        f += r.path.empty() ? std::string_view("(file)") : r.path;
        f += " = ";
        const std::string_view shown = r.value.substr(0, k_row_value_shown);
        if (shown_quoted(r))
            append_display(f, shown, true);
        else
            append_display(f, shown);
        if (shown.size() < r.value.size()) f += "...";
    }
    f += "  (";
    if (o_.color) f += role_ansi(r.role);
    f += role_name(r.role);
    if (o_.color) f += k_ansi_reset;
    f += ')';
}

void HexDump::open_row(std::uint64_t row) {
    row_ = row;
    row_open_ = true;
    if (!o_.color) row_text();
}

void HexDump::row_text() {
    std::string& t = text_;
    const std::uint64_t first = std::max(row_, o_.begin);
    const std::uint64_t last = std::min(row_ + k_row_size, o_.end);
    if (!o_.color && first == row_ && last == row_ + k_row_size) {
        // The common row, whole and plain: built in place.
        char line[k_row_fields_column - 2];
        char* p = line;
        for (int d = 7; d >= 0; --d) *p++ = k_hex_row_digits[(row_ >> (4 * d)) & 15];
        *p++ = ' ';
        *p++ = ' ';
        char* ascii = line + 8 + 2 + 3 * k_row_size + 1 + 1;
        *ascii++ = '|';
        for (std::size_t i = 0; i < k_row_size; ++i) {
            if (i == 8) *p++ = ' ';
            const auto b = static_cast<unsigned char>(bytes_[row_ + i]);
            *p++ = k_hex_row_digits[b >> 4];
            *p++ = k_hex_row_digits[b & 15];
            *p++ = ' ';
            *ascii++ = b >= 0x20 && b < 0x7f ? static_cast<char>(b) : '.';
        }
        *p = ' ';
        *ascii = '|';
        t.append(line, sizeof line);
    } else {
        append_hex_offset(t, row_, 8);
        t += "  ";
        bool in_color = false;
        Role painted = Role::unread;
        auto paint = [&](std::size_t i) {
            if (o_.color && (!in_color || painted != roles_[i])) {
                t += role_ansi(roles_[i]);
                painted = roles_[i];
                in_color = true;
            }
        };
        auto unpaint = [&] {
            if (in_color) t += k_ansi_reset;
            in_color = false;
        };
        for (std::size_t i = 0; i < k_row_size; ++i) {
            const std::uint64_t at = row_ + i;
            if (i == 8) t += ' ';
            if (at >= first && at < last) {
                paint(i);
                const auto b = static_cast<unsigned char>(bytes_[at]);
                t += k_hex_row_digits[b >> 4];
                t += k_hex_row_digits[b & 15];
                t += ' ';
            } else {
                unpaint();
                t += "   ";
            }
        }
        unpaint();
        t += " |";
        for (std::size_t i = 0; i < k_row_size; ++i) {
            const std::uint64_t at = row_ + i;
            if (at >= first && at < last) {
                paint(i);
                const auto b = static_cast<unsigned char>(bytes_[at]);
                t += b >= 0x20 && b < 0x7f ? static_cast<char>(b) : '.';
            } else {
                unpaint();
                t += ' ';
            }
        }
        unpaint();
        t += '|';
    }
}

void HexDump::flush_row() {
    if (!row_open_) return;
    std::string& t = text_;
    if (!o_.color) {
        t += '\n';
    } else {
        row_text();
        if (field_count_ == 0) {
            t += '\n';
        } else {
            t += "  ";
            std::size_t from = 0;
            while (true) {
                const std::size_t nl = fields_.find('\n', from);
                t.append(fields_, from, nl == std::string::npos ? std::string::npos : nl - from);
                t += '\n';
                if (nl == std::string::npos) break;
                t.append(k_row_fields_column, ' ');
                from = nl + 1;
            }
        }
    }
    fields_.clear();
    field_count_ = 0;
    row_open_ = false;
    if (t.size() >= (1u << 20)) drain();
}

void HexDump::drain() {
    out_(text_);
    text_.clear();
}

void HexDump::finish() {
    flush_row();
    drain();
}

HexJson::HexJson(std::string_view format, std::uint64_t size, std::uint64_t begin,
                 std::uint64_t end, std::uint64_t schema_version,
                 std::function<void(std::string_view)> out)
    : out_(std::move(out)), begin_(begin), end_(std::min(end, size)) {
    text_.reserve(1 << 20);
    text_ += "{\n  \"schemaVersion\": ";
    text_ += std::to_string(schema_version);
    text_ += ",\n  \"format\": ";
    append_json_string(text_, format);
    text_ += ",\n  \"size\": ";
    text_ += std::to_string(size);
    text_ += ",\n  \"regions\": [";
}

void HexJson::region(const Region& r) {
    if (r.offset + r.length <= begin_ || r.offset >= end_) return;
    text_ += first_ ? "\n    " : ",\n    ";
    first_ = false;
    text_ += "{\"offset\": ";
    text_ += std::to_string(r.offset);
    text_ += ", \"length\": ";
    text_ += std::to_string(r.length);
    text_ += ", \"path\": ";
    append_json_bytes(text_, r.path);
    text_ += ", \"role\": \"";
    text_ += role_name(r.role);
    text_ += "\", \"value\": ";
    if (r.role == Role::unread || r.role == Role::trailing)
        text_ += "null";
    else
        append_json_bytes(text_, r.value);
    text_ += '}';
    if (text_.size() >= (1u << 20)) {
        out_(text_);
        text_.clear();
    }
}

void HexJson::finish() {
    text_ += first_ ? "]\n}\n" : "\n  ]\n}\n";
    out_(text_);
    text_.clear();
}

SPARKSAVE_END_NAMESPACE
