// The JSON writer's structure: commas, member names, nesting, block indentation.
#include "sparksave/json_writer.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/version.hpp"

#include <cassert>

namespace sparksave::inline SPARKSAVE_ABI {

void JsonWriter::indent(std::size_t level) {
    out_.append((static_cast<std::size_t>(base_depth_) + level) * 2, ' ');
}

void JsonWriter::block_separator(const Level& level) {
    out_ += level.empty ? "\n" : ",\n";
    indent(level.line);
}

void JsonWriter::open(char bracket, Layout layout) {
    before_value();
    out_ += bracket;
    const bool block = layout == Layout::block;
    const std::size_t line = levels_.empty() ? 0 : levels_.back().line;
    levels_.push_back(Level{block, true, block ? line + 1 : line});
}

void JsonWriter::close(char bracket) {
    assert(!levels_.empty() && !after_key_);
    const Level level = levels_.back();
    levels_.pop_back();
    if (level.block && !level.empty) {
        out_ += '\n';
        indent(level.line - 1);
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

} // namespace sparksave
