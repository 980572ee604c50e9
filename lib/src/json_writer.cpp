// The JSON writer's structure: commas, member names, nesting, block indentation.
#include "sparksave/json_writer.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/version.hpp"

#include <cassert>

SPARKSAVE_BEGIN_NAMESPACE

namespace {
// A separator and up to 64 spaces of indentation, for one append.
constexpr std::string_view k_lines =
    ",\n                                                                ";
} // namespace

void JsonWriter::indent(std::size_t level) {
    out_.append((static_cast<std::size_t>(base_depth_) + level) * 2, ' ');
}

void JsonWriter::block_separator(const Level& level) {
    const std::size_t spaces = (static_cast<std::size_t>(base_depth_) + level.line) * 2;
    if (spaces + 2 <= k_lines.size()) {
        if (level.empty)
            out_.append(k_lines.data() + 1, 1 + spaces);
        else
            out_.append(k_lines.data(), 2 + spaces);
        return;
    }
    out_ += level.empty ? "\n" : ",\n";
    indent(level.line);
}

void JsonWriter::close(char bracket) {
    assert(!levels_.empty() && !after_key_);
    const Level level = levels_.back();
    levels_.pop_back();
    if (level.block && !level.empty) {
        const std::size_t spaces = (static_cast<std::size_t>(base_depth_) + level.line - 1) * 2;
        if (spaces + 2 <= k_lines.size()) {
            out_.append(k_lines.data() + 1, 1 + spaces);
        } else {
            out_ += '\n';
            indent(level.line - 1);
        }
    }
    out_ += bracket;
}

// Any other name: escaped by the one escaper.
void JsonWriter::escaped_key(std::string_view utf8) {
    append_json_string(out_, utf8);
    out_ += ": ";
}

void JsonWriter::string(std::string_view utf8) {
    before_value();
    append_json_string(out_, utf8);
}

void JsonWriter::bytes(std::string_view bytes) {
    before_value();
    append_json_bytes(out_, bytes);
}

void JsonWriter::pair(std::string_view a, std::string_view b) {
    // The common case in one append: two short strings with nothing to escape or validate.
    constexpr std::size_t k_short_pair = 192;
    if (!after_key_ && !levels_.empty() && a.size() + b.size() <= k_short_pair &&
        plain_prefix(a) == a.size() && plain_prefix(b) == b.size()) {
        char piece[k_short_pair + k_max_separator + 8];
        std::size_t n = separator(piece);
        if (n != k_no_room) {
            piece[n++] = '[';
            n = quoted(piece, n, a);
            piece[n++] = ',';
            piece[n++] = ' ';
            n = quoted(piece, n, b);
            piece[n++] = ']';
            out_.append(piece, n);
            return;
        }
    }
    before_value();
    out_ += '[';
    append_json_bytes(out_, a);
    out_.append(", ", 2);
    append_json_bytes(out_, b);
    out_ += ']';
}

void JsonWriter::boolean(bool value) {
    before_value();
    out_.append(value ? "true" : "false", value ? 4 : 5);
}

void JsonWriter::null() {
    before_value();
    out_.append("null", 4);
}

void JsonWriter::raw(std::string_view json) {
    before_value();
    out_ += json;
}

SPARKSAVE_END_NAMESPACE
