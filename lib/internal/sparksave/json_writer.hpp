// The one small JSON writer of the project: it writes the structure (the commas, `": "`, the
// nesting, the indentation of containers laid out one member a line) and leaves every string to
// the one escaper (escape.hpp append_json_string for text, json_out.hpp append_json_bytes for
// file bytes that stay lossless). For the lossless dumps of formats/*/json.cpp and the records
// the command-line tool prints (app/printer.hpp).
#pragma once

#include "sparksave/version.hpp"

#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

class JsonWriter {
  public:
    // How a container lays out its members. inline_: `{"a": 1, "b": [2, 3]}` on one line.
    // block: one member a line, indented two spaces a level below the container's own line,
    // the closing bracket on a line of its own; an empty block container is `{}` / `[]`:
    //   [
    //     {"op": "add", "path": "a"},
    //     {"op": "remove", "path": "b"}
    //   ]
    // A block container inside an inline one indents from the line that holds it:
    //   {"id": 1, "parts": [
    //     {"n": 2}
    //   ]}
    enum class Layout { inline_, block };

    // Appends to `out`. `depth`: the indentation level of the line the first container starts
    // on (a block container inside a document already indented by `depth` levels).
    explicit JsonWriter(std::string& out, int depth = 0) : out_(out), base_depth_(depth) {}

    void begin_object(Layout layout = Layout::inline_) { open('{', layout); }
    void end_object() { close('}'); }
    void begin_array(Layout layout = Layout::inline_) { open('[', layout); }
    void end_array() { close(']'); }

    // An object member's name (UTF-8 text: escaped, never base64); its value follows.
    JsonWriter& key(std::string_view utf8) {
        // The common case in one append: the separator, a short ASCII name with nothing to
        // escape, and ": ".
        if (!after_key_ && !levels_.empty() && utf8.size() <= k_short && plain_name(utf8)) {
            char piece[k_short + k_max_separator + 4];
            std::size_t n = separator(piece);
            if (n != k_no_room) {
                n = quoted(piece, n, utf8);
                piece[n++] = ':';
                piece[n++] = ' ';
                out_.append(piece, n);
                after_key_ = true;
                return *this;
            }
        }
        before_value();
        escaped_key(utf8);
        after_key_ = true;
        return *this;
    }

    void string(std::string_view utf8); // UTF-8 text (escape.hpp append_json_string)
    void bytes(std::string_view bytes); // bytes: a string when UTF-8, else {"base64": ...}
    // `[a, b]` on one line, each as bytes(): a key-value pair of a lossless dump.
    void pair(std::string_view a, std::string_view b);
    void boolean(bool value);
    void null();
    template <std::integral T>
    requires(!std::same_as<T, bool>) void number(T value) {
        before_value();
        char digits[24];
        auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        out_.append(digits, static_cast<std::size_t>(end - digits));
    }
    // A value already written as JSON (a number's exact text, a subtree printed elsewhere).
    void raw(std::string_view json);
    // The output, for a value another function appends (print.hpp print_json_compact): call it
    // where a value goes, then append exactly one JSON value.
    std::string& raw_value() {
        before_value();
        return out_;
    }

    // The number of containers open.
    std::size_t depth() const noexcept { return levels_.size(); }

  private:
    static constexpr std::size_t k_short_key = 48, k_short_indent = 24;
    struct Level {
        bool block;
        bool empty;
        // The indentation level of the lines the members go on (block), or of the line the
        // container sits on (inline): a block container inside an inline one indents a level
        // below that line, not a level per container open.
        std::size_t line;
    };
    void open(char bracket, Layout layout) {
        before_value();
        out_ += bracket;
        const bool block = layout == Layout::block;
        const std::size_t line = levels_.empty() ? 0 : levels_.back().line;
        levels_.push_back(Level{block, true, block ? line + 1 : line});
    }
    void close(char bracket);
    // Before each value: the separator from the previous member (", " inline, ",\n" and the
    // indentation in a block), nothing after a key or for the first value of the document.
    void before_value() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (levels_.empty()) return;
        Level& level = levels_.back();
        if (level.block) {
            block_separator(level);
        } else if (!level.empty) {
            out_.append(", ", 2);
        }
        level.empty = false;
    }
    // The separator before_value() appends, into `piece` (its length), when it is the next
    // member of an open container and its indentation fits k_max_separator; else k_no_room and
    // nothing is changed. For the fast paths that write a whole member in one append.
    static constexpr std::size_t k_short = 64, k_max_separator = 2 + 40,
                                 k_no_room = ~std::size_t{0};
    std::size_t separator(char* piece) {
        Level& level = levels_.back();
        std::size_t n = 0;
        if (level.block) {
            const std::size_t spaces = (static_cast<std::size_t>(base_depth_) + level.line) * 2;
            if (spaces + 2 > k_max_separator) return k_no_room;
            if (!level.empty) piece[n++] = ',';
            piece[n++] = '\n';
            // All k_max_separator - 2 spaces in one fixed-size copy; only `spaces` are kept.
            std::memcpy(piece + n, k_spaces, k_max_separator - 2);
            n += spaces;
        } else if (!level.empty) {
            piece[n++] = ',';
            piece[n++] = ' ';
        }
        level.empty = false;
        return n;
    }
    static constexpr char k_spaces[k_max_separator - 2] = {
        ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
        ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
        ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    // `"text"` at piece[n] (text that needs no escaping); the length after it.
    static std::size_t quoted(char* piece, std::size_t n, std::string_view text) noexcept {
        piece[n++] = '"';
        text.copy(piece + n, text.size());
        n += text.size();
        piece[n++] = '"';
        return n;
    }
    static bool plain_name(std::string_view utf8) noexcept {
        bool plain = true;
        for (const char c : utf8) {
            const auto u = static_cast<unsigned char>(c);
            plain &= u >= 0x20 && u < 0x7F && c != '"' && c != '\\';
        }
        return plain;
    }
    void block_separator(const Level& level);
    void escaped_key(std::string_view utf8);
    void indent(std::size_t level);

    std::string& out_;
    int base_depth_;
    std::vector<Level> levels_;
    bool after_key_ = false;
};

SPARKSAVE_END_NAMESPACE
