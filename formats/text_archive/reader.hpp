// The text archive reader: one pass over the lines that applies every rule of formats/README.md §2
// (the list is in spec.hpp) and reports what it reads to a Sink. The tree builder and the summary
// of `info`/`verify` are sinks, so every rule lives here, once.
//
// The reader never recurses: open classes are an explicit stack bounded by k_max_depth. Every
// line is looked at a constant number of times, so reading is linear in the file size.
//
// The members a sink may define are those of SinkDefaults, below.
#pragma once

#include "engine.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

// What a Sink is told, in file order (offsets are file offsets). Each member does nothing here: a
// sink derives from SinkDefaults and defines the members it needs (its own hide these). The
// reader is a template over the sink, so every call is resolved at compile time and an empty
// one costs nothing.
struct SinkDefaults {
    // The first line; known: it is exactly 1.0.0.
    void on_version(std::string_view /*line*/, bool /*known*/) {}
    void on_attribute(const AttributeEvent&) {}
    void on_class(const ClassEvent&) {} // ... its children ... on_close(end)
    void on_close(std::size_t /*end*/) {}
};

template <class Sink> class Reader {
  public:
    Reader(std::string_view data, Findings& findings, Sink& sink)
        : data_(data), findings_(findings), sink_(sink) {}

    // Reads the whole archive; false when a limit (or the size) stopped the read before the end.
    bool run() {
        if (data_.size() > k_max_file_size) {
            error(ErrorCode::too_large, {1, 1}, {},
                  fmt::format("expected at most {} bytes (64 MiB), found {}", k_max_file_size,
                              data_.size()));
            sink_.on_version({}, false);
            return false;
        }
        if (data_.empty()) {
            // formats/README.md §2.1: a fresh archive; the engine's next save writes the version
            // line.
            note(ErrorCode::truncated, {1, 1}, {},
                 "expected the version line \"1.0.0\", found an empty file: the engine reads an "
                 "empty archive");
            sink_.on_version({}, false);
            return true;
        }
        const std::size_t nl = data_.find('\n');
        const std::string_view version = data_.substr(0, nl == npos ? data_.size() : nl);
        const bool known = version == k_version_line;
        if (!known) {
            std::string_view hint;
            if (version.size() == k_version_line.size() + 1 &&
                version.starts_with(k_version_line) && version.back() == '\r')
                hint = " (CRLF line ends: the engine writes LF only)";
            error(ErrorCode::unsupported_version, {1, 1}, {},
                  fmt::format("expected the version line \"1.0.0\", found {}{}: the engine would "
                              "read this file as empty (it silently ignores every entry of an "
                              "archive whose first line is not exactly 1.0.0)",
                              excerpt(version), hint));
        }
        sink_.on_version(version, known);
        if (known) {
            model_.emplace(data_);
            hold_ = true;
        }
        if (nl == npos) {
            note(ErrorCode::truncated, {1, col(version.size())}, {},
                 "expected a line feed after the version line, found the end of the file");
            release();
            return true;
        }
        Frame root;
        root.top = true;
        frames_.push_back(root);

        std::size_t pos = nl + 1;
        line_no_ = 1;
        bool final_lf = true;
        while (pos < data_.size()) {
            ++line_no_;
            line_start_ = pos;
            std::size_t end = data_.find('\n', pos);
            final_lf = end != npos;
            if (!final_lf) end = data_.size();
            line_length_ = end - pos;
            if (!line(data_.substr(pos, end - pos))) {
                stopped_ = true;
                break;
            }
            pos = final_lf ? end + 1 : end;
        }
        finish(final_lf);
        return !stopped_;
    }

  private:
    static constexpr std::size_t npos = std::string_view::npos;
    static constexpr std::size_t k_max_path_text = 1024;

    enum class Special : std::uint8_t { none, counted_map, vector_nd, element };

    // A node path for a finding (see path_text()).
    struct PathRef {
        std::size_t prefix = 0; // bytes of path_
        bool has_step = false;
        bool named = false;
        std::string_view name;
        std::uint64_t index = 0;
    };

    struct KeySeen {
        std::uint64_t index = 0;
        std::string_view name;
        Pos pos;
    };

    // An open class (or the top level, frames_[0]).
    struct Frame {
        std::string_view class_name;
        Pos header;
        std::size_t path_len = 0; // path_ is this class's path while it is the innermost
        bool top = false;
        bool list = false;
        // The previous child, for the comma rules (formats/README.md §2).
        std::uint64_t children = 0;
        std::string_view last_name;
        bool last_named = false;
        bool last_comma = false;
        Pos last_end;       // just after the previous child's body, where a comma goes
        Pos last_comma_pos; // its comma, when it has one
        // Containers with a layout the engine's readers rely on (spec.hpp).
        Special special = Special::none;
        std::string_view count_name, key_prefix; // counted map: UnorderedMap, SaveData
        bool count_seen = false, count_ok = false;
        std::uint64_t count = 0;
        Pos count_pos;
        std::uint64_t next_index = 0, pairs = 0;
        bool expect_value = false, order_reported = false;
        std::uint8_t dims = 0, seen = 0;                                  // Vector 2D/3D/4D
        bool type_seen = false, data_seen = false, data_is_class = false; // ElementType
        std::string_view element_type, data_type;
        Pos element_type_pos, data_type_pos;
        // The engine's object for this class (formats/README.md §2.1), nullptr when there is none
        // to compare with (the engine reads none, already reported, or the model is off).
        const engine::Object* en = nullptr;
        // Counted maps: each key as the engine reads it, for the duplicate rules.
        std::shared_ptr<std::unordered_map<std::string, KeySeen>> keys;
    };

    // The attribute being read: kept until the next line shows whether its value goes on
    // (a multi-line value, formats/README.md §2) or the next child starts.
    struct Pending {
        bool active = false;
        std::string_view name;
        bool named = false;
        std::string_view type;
        Pos type_pos;
        std::size_t offset = 0; // span start
        Pos start;
        std::size_t value_begin = 0; // after the `{`
        std::size_t value_end = 0;   // the closing `}` (or the end of the text read so far)
        bool brace = false;          // value_end is at the value's closing `}`
        Pos value_pos;
        std::uint32_t first_line = 0, last_line = 0;
        bool open = false;      // no closing `}` yet: the next line may continue the value
        bool multiline = false; // the value spans lines
        bool comma = false;     // the line ends in `},`
        Pos end_pos;            // just after the value's `}`
        Pos comma_pos;
        // A top-level line ending in `},`: a stray comma, unless the next line continues the
        // value (then it was the writer's `,` + LF inside a multi-line value).
        bool top_comma = false;
        std::size_t top_brace = 0;
    };

    // What a line's text (after its indentation) is.
    struct Shape {
        enum Kind : std::uint8_t { other, attribute, class_header } kind = other;
        std::string_view name;
        bool named = false;
        std::size_t body = 0; // where the body starts in the text
        std::size_t end = 0;  // a class header: where its ` {` ends (blanks, CR or `,` may follow)
    };

    static Shape shape_of(std::string_view text) noexcept {
        Shape s;
        if (text.starts_with(k_attribute_prefix)) {
            s.kind = Shape::attribute;
            return s;
        }
        if (std::size_t p = text.find(k_named_attribute); p != npos) {
            s.kind = Shape::attribute;
            s.name = text.substr(0, p);
            s.named = true;
            s.body = p + k_name_separator.size();
            return s;
        }
        // formats/README.md §2.1: the engine looks for the first " {" of a header line; what
        // follows the last one (blanks, a CR, a comma) changes nothing but the class name it
        // derives.
        std::string_view core = text;
        while (!core.empty() && (core.back() == ' ' || core.back() == '\t' || core.back() == '\r' ||
                                 core.back() == ','))
            core.remove_suffix(1);
        if (core.ends_with(" {")) {
            s.kind = Shape::class_header;
            s.end = core.size();
            std::string_view head = core.substr(0, core.size() - 2);
            if (std::size_t p = head.find(k_name_separator); p != npos) {
                s.name = head.substr(0, p);
                s.named = true;
                s.body = p + k_name_separator.size();
            }
        }
        return s;
    }

    static std::size_t leading_tabs(std::string_view text) noexcept {
        std::size_t n = 0;
        while (n < text.size() && text[n] == '\t') ++n;
        return n;
    }

    static std::uint32_t col(std::size_t zero_based) noexcept {
        return static_cast<std::uint32_t>(zero_based + 1);
    }
    // The place of a byte of the current line.
    Pos here(std::size_t offset) const noexcept { return {line_no_, col(offset - line_start_)}; }

    // One line (without its LF). False stops the read (a limit was reached).
    bool line(std::string_view text) {
        if (pending_.active && continues(text)) return true;
        flush(false);
        const std::size_t tabs = leading_tabs(text);
        // formats/README.md §2.1: the engine trims blanks off a closing brace's line, and finds an
        // attribute's marker wherever it is: blanks there are indentation to it.
        const std::string_view bare = engine::trim(text);
        if (bare == "}" || bare == "},") {
            if (bare.size() != text.size() - tabs)
                tolerable(ErrorCode::bad_indent, {line_no_, 1}, class_ref(),
                          fmt::format("expected {} alone after the indentation, found blanks "
                                      "around it",
                                      bare.size() == 2 ? "`},`" : "`}`"));
            return close_line(tabs, bare.size() == 2);
        }
        std::size_t lead = tabs;
        while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t')) ++lead;
        const bool blank_lead = lead > tabs && text.substr(lead).starts_with(k_attribute_prefix);
        const std::string_view content = text.substr(blank_lead ? lead : tabs);
        const std::size_t at = line_start_ + (blank_lead ? lead : tabs);

        const Shape shape = shape_of(content);
        const std::size_t depth = frames_.size() - 1;
        if (shape.kind == Shape::other) {
            // formats/README.md §2.1: the engine skips, or stops at, such a line; what it loses is
            // reported on the entries concerned.
            if (depth == 0)
                tolerable(ErrorCode::bad_syntax, here(at), {},
                          "expected a top-level entry (`NAME: __PGSA TYPE {VALUE}` or `NAME: CLASS "
                          "{`), found " +
                              excerpt(content));
            else
                tolerable(
                    ErrorCode::bad_syntax, here(at), class_ref(),
                    fmt::format("expected a child of {} (`NAME: __PGSA TYPE {{VALUE}}`, `NAME: "
                                "CLASS {{`, unnamed in a Vector) or its closing `}}`, found {}",
                                excerpt(frames_.back().class_name), excerpt(content)));
            return true;
        }

        const PathRef child = child_ref(shape.name, shape.named);
        if (tabs != depth || blank_lead) {
            tolerable(ErrorCode::bad_indent, {line_no_, 1}, child,
                      depth == 0
                          ? fmt::format("expected a top-level entry at the start of the line, "
                                        "found {} before it",
                                        tabs_text(tabs) + (blank_lead ? " and spaces" : ""))
                          : fmt::format("expected {} before a child of {} (opened at line {}), "
                                        "found {}",
                                        tabs_text(depth), excerpt(frames_.back().class_name),
                                        frames_.back().header.line,
                                        tabs_text(tabs) + (blank_lead ? " and spaces" : "")));
        }
        check_comma_before_child();
        if (depth == 0 && !shape.named) {
            error(ErrorCode::bad_syntax, here(at), {},
                  "expected `NAME: ` before a top-level entry, found none: the engine stops "
                  "reading the archive at this line and loses every later entry");
        }
        if (++nodes_ > k_max_nodes) {
            error(ErrorCode::limit_exceeded, here(at), child,
                  fmt::format("expected at most {} attributes and classes, found more: reading "
                              "stops here",
                              k_max_nodes));
            return false;
        }
        if (shape.kind == Shape::attribute) return attribute_line(content, at, shape, child);
        return class_line(content, at, shape, child);
    }

    // A `NAME: __PGSA TYPE {VALUE}` line (its first line, when the value spans several).
    bool attribute_line(std::string_view content, std::size_t at, const Shape& shape,
                        const PathRef& child) {
        const bool top = frames_.size() == 1;
        const std::size_t type_begin = shape.body + k_attribute_prefix.size();
        const std::size_t brace = content.find('{', type_begin);
        if (brace == npos || brace == type_begin || content[brace - 1] != ' ') {
            error(ErrorCode::bad_syntax, here(at + std::min(type_begin, content.size())), child,
                  "expected the type and ` {` after `__PGSA `, found " +
                      excerpt(content.substr(std::min(type_begin, content.size()))));
            return true;
        }
        if (shape.named && shape.name.find(k_name_separator) != npos) {
            const std::string_view cut = shape.name.substr(0, shape.name.find(k_name_separator));
            if (top && shape.name.size() == 2 * cut.size() + k_name_separator.size() &&
                shape.name.ends_with(cut)) {
                // formats/README.md §2.1: the doubled-name bug's mark; on an attribute, the engine
                // still reads the entry under its (single) name.
                warning(ErrorCode::name_cut, here(at), child,
                        fmt::format("expected the name {} once, found it twice: the mark of "
                                    "the engine's doubled-name bug (an entry it loaded but was "
                                    "not asked to save is written back as `name: name: ...`); "
                                    "the engine reads this entry as {}, but a class entry with "
                                    "this mark stops its reading",
                                    excerpt(cut), excerpt(cut)));
            } else
                // formats/README.md §2: a game asking for the whole name gets a default.
                error(
                    ErrorCode::name_cut, here(at), child,
                    fmt::format("expected a name without \": \", found {}: the engine cuts a name "
                                "at its first \": \" and reads this {} as {}",
                                excerpt(shape.name), top ? "entry" : "attribute", excerpt(cut)));
        }
        Pending p;
        p.active = true;
        p.name = shape.name;
        p.named = shape.named;
        p.type = content.substr(type_begin, brace - 1 - type_begin);
        p.type_pos = here(at + type_begin);
        if (!intern(p.type, p.type_pos, child)) return false;
        p.offset = at;
        p.start = here(at);
        p.value_begin = at + brace + 1;
        p.value_pos = here(p.value_begin);
        p.first_line = p.last_line = line_no_;
        const std::size_t close = content.rfind('}');
        if (close != npos && close > brace) {
            const std::string_view tail = content.substr(close + 1);
            p.value_end = at + close;
            p.brace = true;
            p.end_pos = here(at + close + 1);
            if (tail.empty()) {
                // complete, last child (or a top-level entry)
            } else if (tail.size() > 1 && tail.find_first_not_of(',') == npos) {
                // formats/README.md §2.1: the engine's value ends at the last `}`; commas after it
                // are ignored.
                p.comma = !top;
                p.comma_pos = here(at + close + 1);
                tolerable(ErrorCode::bad_syntax, here(at + close + 1), child,
                          fmt::format("expected {} after the value, found {} commas",
                                      top ? "nothing" : "one `,`", tail.size()));
            } else if (tail == "," && !top) {
                p.comma = true;
                p.comma_pos = here(at + close + 1);
            } else if (tail == ",") {
                p.top_comma = true;
                p.top_brace = at + close;
                p.comma_pos = here(at + close + 1);
                open_value(p, at + content.size());
            } else if (tail.find_first_not_of(" \t\r,") == npos &&
                       tail.find_first_of(" \t\r") != npos) {
                // formats/README.md §2.1: the engine's value ends at the last `}`; blanks, a CR
                // (CRLF line ends) or commas after it change nothing.
                p.comma = !top && tail.find(',') != npos;
                p.comma_pos = here(at + close + 1);
                tolerable(ErrorCode::bad_syntax, here(at + close + 1), child,
                          "expected the line to end after the value" +
                              std::string(top ? "" : " (and its `,`)") + ", found " +
                              excerpt(tail) + ": the engine reads the value all the same");
            } else if (content.ends_with(',')) {
                // `,` + LF ends the line inside the value: the writer's multi-line form
                open_value(p, at + content.size());
            } else {
                // formats/README.md §2.1: ignored by the engine, lost by its next save of the
                // entry.
                warning(ErrorCode::bad_syntax, here(at + close + 1), child,
                        "expected `,` or the end of the line after the value's closing `}`, "
                        "found " +
                            excerpt(tail) +
                            ": the engine ignores it, and a later save of this entry drops it");
            }
        } else if (content.ends_with(',')) {
            open_value(p, at + content.size());
        } else {
            p.value_end = at + content.size();
            p.end_pos = here(p.value_end);
            error(ErrorCode::bad_syntax, here(at + content.size()), child,
                  "expected `}` at the end of the value, found the end of the line");
        }
        pending_ = p;
        return true;
    }

    void open_value(Pending& p, std::size_t line_end) {
        p.open = true;
        p.brace = false;
        p.value_end = line_end;
        p.end_pos = here(line_end);
    }

    // Does this line carry on the pending attribute's value? The writer writes each newline of
    // a value as `,` + LF + the indentation (formats/README.md §2), so the value's later lines end
    // in
    // `,` and its last one in `}` (or `},` when a sibling follows).
    bool continues(std::string_view text) {
        Pending& p = pending_;
        if (!p.open) {
            // A value whose first line happened to end in `},`: a following line of no known
            // shape that ends like a value line is the rest of it.
            if (!p.comma) return false;
            const std::string_view content = text.substr(leading_tabs(text));
            if (content == "}" || content == "}," || shape_of(content).kind != Shape::other)
                return false;
            if (!text.ends_with('}') && !text.ends_with(',')) return false;
        } else if (!text.ends_with('}') && !text.ends_with(',')) {
            return false;
        } else if (p.top_comma && !p.multiline && leading_tabs(text) == 0 &&
                   shape_of(text).kind != Shape::other) {
            // formats/README.md §2.1: at the top level the engine takes every line for an entry of
            // its own; a line shaped like one is one, and the `,` before it a stray comma.
            return false;
        }
        const bool top = frames_.size() == 1;
        p.multiline = true;
        p.last_line = line_no_;
        const std::size_t line_end = line_start_ + text.size();
        if (text.ends_with('}') || (text.ends_with("},") && !top)) {
            const std::size_t brace = text.ends_with('}') ? text.size() - 1 : text.size() - 2;
            p.open = false;
            p.brace = true;
            p.value_end = line_start_ + brace;
            p.end_pos = here(p.value_end + 1);
            p.comma = text.ends_with(',');
            p.comma_pos = p.end_pos;
        } else {
            p.comma = false;
            open_value(p, line_end);
        }
        return true;
    }

    // Reports the pending attribute to the sink and applies the value rules.
    void flush(bool at_eof) {
        if (!pending_.active) return;
        Pending p = pending_;
        pending_.active = false;
        const PathRef path = child_ref(p.name, p.named);
        if (p.multiline) {
            error(ErrorCode::multiline_value, p.value_pos, path,
                  fmt::format("expected the value to end on line {}, found it continuing to line "
                              "{}: the engine's writer turns each newline of a string into `,`, "
                              "a line feed and the indentation, and the engine cannot read such a "
                              "value back",
                              p.first_line, p.last_line));
        }
        if (p.open && p.top_comma && !p.multiline) {
            // Nothing continued the value: the `}` ended it and the comma is stray.
            p.open = false;
            p.brace = true;
            p.value_end = p.top_brace;
            p.end_pos = p.comma_pos;
            tolerable(ErrorCode::bad_syntax, p.comma_pos, path,
                      "expected the line to end after a top-level entry's value, found `,`");
        } else if (p.open) {
            if (at_eof)
                error(ErrorCode::truncated, p.end_pos, path,
                      fmt::format("expected `}}` ending the value begun at line {}, found the end "
                                  "of the file",
                                  p.first_line));
            else
                error(ErrorCode::bad_syntax, p.end_pos, path,
                      fmt::format("expected `}}` ending the value begun at line {}, found the end "
                                  "of line {} and no line continuing the value",
                                  p.first_line, p.last_line));
        }
        const std::string_view value = data_.substr(p.value_begin, p.value_end - p.value_begin);
        const Type type = type_of(p.type);
        if (type == Type::unknown) {
            warning(ErrorCode::unknown_type, p.type_pos, path,
                    fmt::format("expected one of the types bool, int, unsigned int, size_t, "
                                "float, double, string, found {}: no standard reader of the "
                                "engine accepts it",
                                excerpt(p.type)));
        } else if (!p.multiline && !p.open) {
            value_check(type, p.type, value, p.value_pos, path);
        }
        {
            const engine::Object* eo = frames_.size() == 1
                                           ? engine_top(p.name, p.named, p.start, path)
                                           : engine_child(p.name, p.named, p.start, path);
            if (!p.multiline) engine_attribute(eo, p, value, path);
        }
        if (std::size_t m = value.find(k_marker); m != npos) {
            const Pos at = p.multiline ? p.value_pos
                                       : Pos{p.value_pos.line,
                                             p.value_pos.column + static_cast<std::uint32_t>(m)};
            warning(ErrorCode::marker_in_value, at, path,
                    "expected no \"__PGSA\" in a value, found one: it is the engine's attribute "
                    "marker; the engine reads the value back only while it stays on one line "
                    "and its writer is meant to refuse it");
        }
        AttributeEvent e;
        e.name = p.name;
        e.named = p.named;
        e.type = p.type;
        e.value = value;
        e.offset = p.offset;
        e.end = p.brace ? p.value_end + 1 : p.value_end;
        e.value_type = value_type_of(type);
        e.depth = frames_.size() - 1;
        sink_.on_attribute(e);

        Frame& f = frames_.back();
        note_child(f, p.name, p.named, false, p.type, p.type_pos, value, p.value_pos, p.start,
                   path);
        // An unfinished value's line ended in `,`: count it as the comma, not a second error.
        f.last_comma = p.comma || p.open;
        f.last_end = p.end_pos;
        f.last_comma_pos = p.comma_pos;
        if (f.top) release();
    }

    // A `NAME: CLASS {` line.
    bool class_line(std::string_view content, std::size_t at, const Shape& shape,
                    const PathRef& child) {
        const bool top = frames_.size() == 1;
        const std::string_view class_name = content.substr(shape.body, shape.end - 2 - shape.body);
        if (shape.end < content.size())
            tolerable(ErrorCode::bad_syntax, here(at + shape.end), child,
                      "expected the line to end after the class's ` {`, found " +
                          excerpt(content.substr(shape.end)));
        if (const std::size_t second = class_name.find(k_name_separator);
            top && shape.named && second != npos && class_name.substr(0, second) == shape.name) {
            // formats/README.md §2.1: the engine's save path writes a loaded entry it was not asked
            // to save again with its key once more in front.
            error(ErrorCode::bad_syntax, here(at + shape.body), child,
                  fmt::format("expected `{}: CLASS {{`, found the name twice ({}): the mark of the "
                              "engine's doubled-name bug (an entry it loaded but was not asked to "
                              "save is written back as `name: name: ...`); the engine stops "
                              "reading at this line and loses this entry and every later one",
                              excerpt(shape.name), excerpt(content)));
        } else if (shape.named && content.find(k_name_separator, shape.body) != npos) {
            // formats/README.md §2.1: readData and parseString look for a second ": " anywhere
            // after the first (find(": ", p + 2)), " {" included: a class name ending in ':'
            // makes one with the space before the brace.
            error(ErrorCode::bad_syntax, here(at + shape.body), child,
                  fmt::format("expected one \": \" in a class line (between the name and the "
                              "class name), found more in {}: the engine refuses the line and {}",
                              excerpt(content),
                              top ? "stops reading the archive, losing this entry and every later "
                                    "one"
                                  : "fails to read the enclosing class"));
        }
        if (content.find(k_marker) != npos) {
            error(ErrorCode::bad_syntax, here(at), child,
                  "expected no \"__PGSA\" in a class line, found one: the engine takes any line "
                  "holding its attribute marker for an attribute and misreads the class");
        }
        if (frames_.size() - 1 >= k_max_depth) {
            error(ErrorCode::limit_exceeded, here(at), child,
                  fmt::format("expected at most {} nested classes, found more: reading stops "
                              "here",
                              k_max_depth));
            return false;
        }
        if (!intern(class_name, here(at + shape.body), child)) return false;

        Frame nf;
        nf.class_name = class_name;
        nf.header = here(at);
        nf.list = class_name == k_class_vector;
        if (!top && save_data_value(frames_.back(), shape.name, shape.named)) {
            // formats/README.md §2.1: deserialize<SaveData> reads each value<i> with
            // deserialize<ElementType>, whatever its class name.
            nf.special = Special::element;
        } else if (class_name == k_class_map) {
            nf.special = Special::counted_map;
            nf.count_name = k_map_count;
            nf.key_prefix = k_map_key;
        } else if (class_name == k_class_save_data) {
            nf.special = Special::counted_map;
            nf.count_name = k_save_data_count;
            nf.key_prefix = k_save_data_key;
        } else if (class_name == k_class_vector_2d || class_name == k_class_vector_3d ||
                   class_name == k_class_vector_4d) {
            nf.special = Special::vector_nd;
            nf.dims = static_cast<std::uint8_t>(class_name[7] - '0');
        } else if (class_name == k_class_element) {
            nf.special = Special::element;
        }

        {
            const engine::Object* eo = top ? engine_top(shape.name, shape.named, here(at), child)
                                           : engine_child(shape.name, shape.named, here(at), child);
            nf.en =
                engine_class(eo, here(at), child, at + shape.end, at - line_start_ + shape.body);
        }
        if (nf.special == Special::counted_map)
            nf.keys = std::make_shared<std::unordered_map<std::string, KeySeen>>();

        ClassEvent e;
        e.name = shape.name;
        e.named = shape.named;
        e.class_name = class_name;
        e.offset = at;
        e.list = nf.list;
        e.depth = frames_.size() - 1;
        sink_.on_class(e);

        note_child(frames_.back(), shape.name, shape.named, true, {}, nf.header, {}, nf.header,
                   nf.header, child);
        frames_.back().last_comma = false; // set when the class closes

        // The class's path: its parent's and one step (built once, so reading stays linear).
        if (child.named)
            append_path_name(path_, child.name);
        else
            append_path_index(path_, child.index);
        nf.path_len = path_.size();
        frames_.push_back(nf);
        return true;
    }

    // `}` or `},` with `tabs` of indentation.
    bool close_line(std::size_t tabs, bool comma) {
        const std::size_t depth = frames_.size() - 1; // open classes
        const std::size_t at = line_start_ + tabs;
        if (depth == 0) {
            tolerable(ErrorCode::bad_syntax, here(at), {},
                      "expected a top-level entry, found a closing brace with no class open");
            return true;
        }
        if (tabs + 1 < depth) {
            // The brace sits where an outer class closes: the inner ones lack theirs.
            const Frame& f = frames_.back();
            tolerable(ErrorCode::bad_syntax, here(at), class_ref(),
                      fmt::format("expected `}}` closing {} (opened at line {}) with {} before it, "
                                  "found a brace with {}: a closing brace is missing",
                                  excerpt(f.class_name), f.header.line, tabs_text(depth - 1),
                                  tabs_text(tabs)));
            while (frames_.size() - 1 > tabs + 1) close_frame(line_start_, false, {}, false);
        } else if (tabs + 1 > depth) {
            const Frame& f = frames_.back();
            tolerable(ErrorCode::bad_indent, {line_no_, 1}, class_ref(),
                      fmt::format("expected {} before the `}}` closing {} (opened at line {}), "
                                  "found {}",
                                  tabs_text(depth - 1), excerpt(f.class_name), f.header.line,
                                  tabs_text(tabs)));
        }
        close_frame(at + 1, comma, here(at + 1), true);
        return true;
    }

    // Closes the innermost class at `end`; `comma`: its brace is followed by `,`.
    void close_frame(std::size_t end, bool comma, Pos after_brace, bool check) {
        {
            Frame& f = frames_.back();
            if (check && f.children > 0 && f.last_comma)
                tolerable(ErrorCode::bad_syntax, f.last_comma_pos, last_child_ref(f),
                          fmt::format("expected no comma after the last child of {}, found one "
                                      "(the class closes on line {})",
                                      excerpt(f.class_name), line_no_));
            if (check) finish_special(f);
            if (check && f.en && f.list && engine_on()) {
                const std::size_t items = model_->item_count(*f.en);
                if (items > f.children)
                    error(ErrorCode::bad_syntax, f.header, class_ref(),
                          fmt::format("expected the engine to read {} {}, found that it reads {}",
                                      f.children, f.children == 1 ? "item" : "items", items));
            }
        }
        sink_.on_close(end);
        frames_.pop_back();
        path_.resize(frames_.back().path_len);
        Frame& parent = frames_.back();
        parent.last_comma = comma;
        parent.last_end = after_brace;
        parent.last_comma_pos = after_brace;
        if (parent.top && comma)
            tolerable(
                ErrorCode::bad_syntax, after_brace, last_child_ref(parent),
                "expected the line to end after a top-level entry's closing brace, found `,`");
        if (parent.top) release();
    }

    // formats/README.md §2: a comma after every child but the last.
    void check_comma_before_child() {
        const Frame& f = frames_.back();
        if (f.top || f.children == 0 || f.last_comma) return;
        tolerable(ErrorCode::bad_syntax, f.last_end, last_child_ref(f),
                  fmt::format("expected `,` after this child (another child of {} follows on line "
                              "{}), found the end of the line",
                              excerpt(f.class_name), line_no_));
    }

    // Bookkeeping for a new child of `f`, and the container rules that depend on its name.
    // `start`: where the child's text starts; `value_pos`: its value (its start, for a class).
    void note_child(Frame& f, std::string_view name, bool named, bool is_class,
                    std::string_view type, Pos type_pos, std::string_view value, Pos value_pos,
                    Pos start, const PathRef& path) {
        ++f.children;
        f.last_name = name;
        f.last_named = named;
        if (f.top) return;
        switch (f.special) {
        case Special::none:
            return;
        case Special::counted_map:
            map_child(f, name, named, is_class, type, type_pos, value, value_pos, start, path);
            return;
        case Special::vector_nd:
            if (named && name.size() == 1) {
                const std::size_t i = k_vector_components.find(name[0]);
                if (i == npos || i >= f.dims) return;
                f.seen = static_cast<std::uint8_t>(f.seen | (1u << i));
                const std::string what = fmt::format("{} of a {}", name, f.class_name);
                if (is_class)
                    error(ErrorCode::bad_value, start, path,
                          fmt::format("expected {} to be a float attribute, found a class: the "
                                      "engine reads 0",
                                      what));
                else
                    read_as(Type::float32, type, type_pos, path, what);
            }
            return;
        case Special::element:
            if (named && name == k_element_type && !f.type_seen) {
                f.type_seen = true;
                f.element_type = value;
                f.element_type_pos = value_pos;
                if (is_class)
                    error(ErrorCode::bad_value, start, path,
                          "expected the type of an ElementType to be a string attribute, found a "
                          "class: the engine reads the element as empty");
                else
                    read_as(Type::string, type, type_pos, path, "the type of an ElementType");
            } else if (named && name == k_element_data && !f.data_seen) {
                f.data_seen = true;
                f.data_is_class = is_class;
                f.data_type = type;
                f.data_type_pos = type_pos;
            }
            return;
        }
    }

    // formats/README.md §2.1: the child of `f` that deserialize<SaveData> reads with
    // deserialize<ElementType> (the value<i> of the next pair), whatever it is.
    static bool save_data_value(const Frame& f, std::string_view name, bool named) noexcept {
        return f.special == Special::counted_map && f.key_prefix == k_save_data_key &&
               f.expect_value && named && is_indexed(name, k_map_value, f.next_index);
    }

    // UnorderedMap / SaveData: the count attribute, then key0, value0, key1, value1, ...
    void map_child(Frame& f, std::string_view name, bool named, bool is_class,
                   std::string_view type, Pos type_pos, std::string_view value, Pos value_pos,
                   Pos start, const PathRef& path) {
        if (named && name == f.count_name && !f.count_seen) {
            f.count_seen = true;
            f.count_pos = value_pos;
            if (is_class) {
                error(ErrorCode::bad_value, start, path,
                      fmt::format("expected {} to be a size_t attribute, found a class: the "
                                  "engine reads the {} as empty",
                                  f.count_name, f.class_name));
                return;
            }
            read_as(Type::size, type, type_pos, path, std::string(f.count_name));
            // the engine's map reader: deserialize<size_t>, `stringstream >>` (formats/README.md
            // §2.1)
            const engine::Extracted x = engine::extract_integer(value, false, UINT64_MAX);
            f.count_ok = is_integer(type_of(type)) && !x.fail;
            f.count = x.as_unsigned;
            return;
        }
        const std::string_view prefix = f.expect_value ? k_map_value : f.key_prefix;
        if (named && is_indexed(name, prefix, f.next_index)) {
            if (!f.expect_value && f.key_prefix == k_save_data_key && !is_class)
                read_as(Type::string, type, type_pos, path, "a SaveData id");
            if (!is_class && save_data_value(f, name, named))
                error(ErrorCode::bad_value, start, path,
                      fmt::format("expected {} to be a class holding `type` and `data` (the "
                                  "engine reads a SaveData's values with "
                                  "deserialize<ElementType>), found an attribute: the engine "
                                  "finds no `type` in it and reads this element as empty (an "
                                  "int 0)",
                                  name));
            if (!f.expect_value && !is_class && f.keys) key_seen(f, name, type, value, start, path);
            if (f.expect_value) {
                ++f.pairs;
                ++f.next_index;
            }
            f.expect_value = !f.expect_value;
            return;
        }
        if (f.order_reported) return;
        f.order_reported = true;
        error(ErrorCode::count_mismatch, start, path,
              fmt::format("expected {}{} (a {} holds {}, then {}0, {}0, {}1, {}1, ... in order), "
                          "found {}: the engine looks its pairs up by these names and never "
                          "reads this child",
                          prefix, f.next_index, f.class_name, f.count_name, f.key_prefix,
                          k_map_value, f.key_prefix, k_map_value,
                          named ? excerpt(name) : std::string("an unnamed child")));
    }

    // formats/README.md §2.1: two keys an UnorderedMap reads as equal (its map keeps the LAST
    // pair), two ids of a SaveData (emplace keeps the FIRST). The engine's own writer makes such
    // pairs: distinct float keys std::to_string writes alike.
    void key_seen(Frame& f, std::string_view name, std::string_view type, std::string_view value,
                  Pos start, const PathRef& path) {
        const Type t = type_of(type);
        std::string key = is_integer(t) || t == Type::float32 || t == Type::float64
                              ? stream_read(t, value)
                              : std::string(value);
        auto [it, fresh] = f.keys->try_emplace(std::move(key), KeySeen{f.next_index, name, start});
        if (fresh) return;
        if (f.key_prefix == k_save_data_key) {
            error(ErrorCode::duplicate_key, start, path,
                  fmt::format("expected each id once in a SaveData, found {} again ({} at line "
                              "{}): the engine keeps the first pair of an id and drops this one",
                              excerpt(value), excerpt(it->second.name), it->second.pos.line));
            return;
        }
        error(ErrorCode::duplicate_key, it->second.pos,
              PathRef{f.path_len, true, true, it->second.name, 0},
              fmt::format("expected distinct keys in an UnorderedMap, found this key and {} (line "
                          "{}) equal as the engine reads them ({}): its map keeps the last pair "
                          "of a key and drops this one",
                          excerpt(name), start.line, excerpt(value)));
        it->second = KeySeen{f.next_index, name, start};
    }

    static bool is_indexed(std::string_view name, std::string_view prefix,
                           std::uint64_t index) noexcept {
        if (!name.starts_with(prefix)) return false;
        const std::string_view digits = name.substr(prefix.size());
        if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return false;
        std::uint64_t n = 0;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        return ec == std::errc() && p == digits.data() + digits.size() && n == index;
    }

    // The checks a container makes when it closes.
    void finish_special(const Frame& f) {
        switch (f.special) {
        case Special::none:
            return;
        case Special::counted_map: {
            const PathRef count_path = step_ref(f.count_name);
            if (f.expect_value)
                error(ErrorCode::count_mismatch, {line_no_, 1}, class_ref(),
                      fmt::format("expected {}{} after {}{}, found the end of the {}", k_map_value,
                                  f.next_index, f.key_prefix, f.next_index, f.class_name));
            if (f.count_seen && f.count_ok && f.count != f.pairs) {
                error(ErrorCode::count_mismatch, f.count_pos, count_path,
                      fmt::format("expected {} to be {}, the number of key/value pairs present, "
                                  "found {}: {}",
                                  f.count_name, f.pairs, f.count,
                                  f.count > f.pairs
                                      ? fmt::format("the engine looks for {} that {} not there "
                                                    "and reads {} as empty",
                                                    pairs_text(f.count - f.pairs),
                                                    f.count - f.pairs == 1 ? "is" : "are",
                                                    f.count - f.pairs == 1 ? "it" : "them")
                                      : fmt::format("the engine reads only the first {} and "
                                                    "drops the other {}",
                                                    f.count, f.pairs - f.count)));
            } else if (!f.count_seen && f.pairs > 0) {
                error(ErrorCode::count_mismatch, f.header, class_ref(),
                      fmt::format("expected a {} attribute, found none: the engine reads this {} "
                                  "as empty and drops its {}",
                                  f.count_name, f.class_name, pairs_text(f.pairs)));
            }
            return;
        }
        case Special::vector_nd:
            for (std::size_t i = 0; i < f.dims; ++i) {
                if (f.seen & (1u << i)) continue;
                error(ErrorCode::bad_value, f.header, step_ref(k_vector_components.substr(i, 1)),
                      fmt::format("expected a float attribute {} in a {}, found none: the "
                                  "engine reads 0",
                                  k_vector_components[i], f.class_name));
            }
            return;
        case Special::element: {
            // A SaveData's value<i> of another class name is read as an ElementType all the same.
            const std::string as_element =
                f.class_name == k_class_element
                    ? std::string()
                    : fmt::format(" (deserialize<SaveData> reads this {} as an ElementType)",
                                  excerpt(f.class_name));
            if (!f.type_seen) {
                error(ErrorCode::bad_value, f.header, class_ref(),
                      fmt::format("expected a `type` attribute naming the element's type, found "
                                  "none{}: the engine reads this element as empty (an int 0)",
                                  as_element));
                return;
            }
            // formats/README.md §2.1: deserialize<ElementType> branches on float, int, size_t,
            // string and bool, exactly; anything else logs "Error in casting a string to
            // UnionType" and returns the default element, an int 0 that isEmpty().
            const Type t = type_of(f.element_type);
            if (t == Type::unknown || t == Type::uint32 || t == Type::float64) {
                error(ErrorCode::bad_value, f.element_type_pos, step_ref(k_element_type),
                      fmt::format("expected the element type float, int, size_t, string or "
                                  "bool, found {}{}: {}the engine reads this element as empty "
                                  "(an int 0)",
                                  excerpt(f.element_type), as_element,
                                  t == Type::float64
                                      ? "deserialize<ElementType> has no double branch (an "
                                        "ElementType of this engine holds no double: it stores "
                                        "one as a float and writes type float), so "
                                      : ""));
                return;
            }
            const PathRef p = step_ref(k_element_data);
            if (!f.data_seen)
                error(ErrorCode::bad_value, f.header, p,
                      "expected a `data` attribute, found none: the engine reads a default "
                      "value");
            else if (f.data_is_class)
                error(ErrorCode::bad_value, f.data_type_pos, p,
                      "expected `data` to be an attribute, found a class: the engine reads a "
                      "default value");
            else
                read_as(t, f.data_type, f.data_type_pos, p,
                        fmt::format("the data of a {} element", f.element_type));
            return;
        }
        }
    }

    // formats/README.md §2 reader type checks, where the reader's type is known: integer types
    // alias one another (a warning), any other difference makes the engine read a default (an
    // error).
    void read_as(Type expected, std::string_view actual_name, Pos pos, const PathRef& path,
                 const std::string& what) {
        const Type actual = type_of(actual_name);
        if (actual == expected) return;
        if (is_integer(expected) && is_integer(actual)) {
            warning(ErrorCode::type_alias, pos, path,
                    fmt::format("expected type {} (the engine reads {} as {}), found {}: accepted "
                                "only because the engine's integer readers take int, unsigned "
                                "int and size_t for one another",
                                type_name(expected), what, type_name(expected), actual_name));
            return;
        }
        error(ErrorCode::bad_value, pos, path,
              fmt::format("expected type {} (the engine reads {} as {}), found {}: the engine "
                          "refuses it and reads a default value",
                          type_name(expected), what, type_name(expected), excerpt(actual_name)));
    }

    // ---- What the engine reads, compared with what the file says (formats/README.md §2.1) ----

    bool engine_on() const noexcept {
        return model_ && model_->version_ok() && model_->available();
    }

    static std::string_view stop_text(engine::Stop why) noexcept;

    // The entry the engine keeps for a top-level child that starts at `start`; nullptr (and
    // reported) when it keeps none, or when there is nothing to compare with.
    const engine::Object* engine_top(std::string_view name, bool named, Pos start,
                                     const PathRef& path);

    // The engine's object for a child of the innermost class that starts at `start` (before
    // note_child() counts it); nullptr (and reported) when the engine reads none there.
    const engine::Object* engine_child(std::string_view name, bool named, Pos start,
                                       const PathRef& path);

    static std::string null_text(const engine::Object& o);

    // The engine's object for a class of the file, checked: nullptr when the engine reads it as
    // empty (reported) or there is nothing to compare with. `line_end`: the end of the header
    // line; `name_at`: where its class name starts in the line.
    const engine::Object* engine_class(const engine::Object* o, Pos start, const PathRef& path,
                                       std::size_t line_end, std::size_t name_at);

    // An attribute as the engine reads it (getAsAttribute), against the file's type and value.
    void engine_attribute(const engine::Object* o, const Pending& p, std::string_view value,
                          const PathRef& path);

    // What `std::stringstream >>` reads from a value (formats/README.md §2.1), as text; empty for
    // types it does not read.
    static std::string stream_read(Type type, std::string_view value);

    static bool stream_rest_blank(std::string_view value, std::size_t from) noexcept;

    // formats/README.md §2.1 value fit: what the engine's typed reader makes of the value. An error
    // when it reads something other than the file's number (saying what it reads), a note when
    // it reads that number from a form its writer would not write (blanks around it, `+`,
    // leading zeros, `-0` unsigned).
    void value_check(Type type, std::string_view type_text, std::string_view value, Pos pos,
                     const PathRef& path) {
        std::string_view expected;
        engine::Extracted x;
        switch (type) {
        case Type::boolean:
            if (value != "true" && value != "false")
                error(ErrorCode::bad_value, pos, path,
                      fmt::format("expected true or false ({}), found {}: the engine reads false",
                                  type_text, excerpt(value)));
            return;
        case Type::int32:
            expected = "an integer from -2147483648 to 2147483647";
            x = engine::extract_integer(value, true, INT32_MAX);
            break;
        case Type::uint32:
            expected = "an integer from 0 to 4294967295";
            x = engine::extract_integer(value, false, UINT32_MAX);
            break;
        case Type::size:
            expected = "an integer from 0 to 18446744073709551615";
            x = engine::extract_integer(value, false, UINT64_MAX);
            break;
        case Type::float32:
            expected = "a number within the range of a float";
            x = engine::extract_float(value, true);
            break;
        case Type::float64:
            expected = "a number within the range of a double";
            x = engine::extract_float(value, false);
            break;
        case Type::string:
        case Type::unknown:
            return;
        }
        const std::string read = stream_read(type, value);
        const bool wraps =
            is_integer(type) && type != Type::int32 && x.negative && x.magnitude != 0;
        if (x.fail || wraps || !stream_rest_blank(value, x.end)) {
            error(ErrorCode::bad_value, pos, path,
                  fmt::format("expected {} ({}), found {}: the engine reads {}", expected,
                              type_text, excerpt(value), read));
            return;
        }
        if (x.underflow) { // formats/README.md §2.1: no failbit, the nearest value is a zero
            error(ErrorCode::bad_value, pos, path,
                  fmt::format("expected {} ({}), found {}: a number other than 0 too small for a "
                              "{}, which rounds to zero (an underflow), so the engine reads {}",
                              expected, type_text, excerpt(value), type_name(type), read));
            return;
        }
        std::size_t b = 0, e = value.size();
        while (b < e && engine::stream_space(value[b])) ++b;
        while (e > b && engine::stream_space(value[e - 1])) --e;
        const std::string_view core = value.substr(b, e - b);
        if (core.size() != value.size() || (is_integer(type) && core != read))
            note(ErrorCode::bad_value, pos, path,
                 fmt::format("expected {} as the engine's writer writes it, found {}: the engine "
                             "reads {}, as the file says",
                             is_integer(type) ? read : std::string(core), excerpt(value), read));
    }

    // Remembers a class or type name (a tag of the tree); false past k_max_names.
    bool intern(std::string_view name, Pos pos, const PathRef& path) {
        if (names_.count(name)) return true;
        if (names_.size() >= k_max_names || name_bytes_ + name.size() > k_max_name_bytes) {
            error(ErrorCode::limit_exceeded, pos, path,
                  fmt::format("expected at most {} distinct class and type names of {} bytes in "
                              "all, found more: reading stops here",
                              k_max_names, k_max_name_bytes));
            return false;
        }
        names_.insert(name);
        name_bytes_ += name.size();
        return true;
    }

    void finish(bool final_lf) {
        const bool value_open = pending_.active && pending_.open;
        if (!stopped_) flush(true);
        if (!stopped_) {
            const Pos eof = final_lf ? Pos{line_no_ + 1, 1} : Pos{line_no_, col(line_length_)};
            if (frames_.size() > 1) {
                const Frame& f = frames_.back();
                const std::size_t more = frames_.size() - 2;
                tolerable(
                    ErrorCode::truncated, eof, class_ref(),
                    fmt::format("expected `}}` closing {} (opened at line {}){}, found the end "
                                "of the file",
                                excerpt(f.class_name), f.header.line,
                                more == 0 ? std::string()
                                          : fmt::format(" and {} enclosing {}", more,
                                                        more == 1 ? "class" : "classes")));
            } else if (!final_lf && !value_open) {
                tolerable(ErrorCode::truncated, eof, {},
                          "expected a line feed at the end of the last line, found the end of the "
                          "file");
            }
        }
        while (frames_.size() > 1) {
            sink_.on_close(data_.size());
            frames_.pop_back();
        }
        release();
    }

    // A node path for a finding, made into text only when the finding is kept: a prefix of
    // path_ (the innermost open class's path) and at most one more step. Children are named
    // by name, or by index when they have none (Vector items: `player.v[2]`).
    PathRef class_ref() const noexcept {
        PathRef r;
        r.prefix = path_.size();
        return r;
    }
    PathRef step_ref(std::string_view name) const noexcept {
        return {path_.size(), true, true, name, 0};
    }
    PathRef child_ref(std::string_view name, bool named) const noexcept {
        return {path_.size(), true, named, name, frames_.back().children};
    }
    PathRef last_child_ref(const Frame& f) const noexcept {
        return {f.path_len, true, f.last_named, f.last_name, f.children - 1};
    }

    // A path's text, cut after k_max_path_text bytes (a hostile file's names can be megabytes
    // long; a finding needs to say where, not to copy them).
    std::string path_text(const PathRef& r) const {
        std::string p;
        if (r.prefix > k_max_path_text) {
            std::size_t cut = k_max_path_text;
            while (cut > 0 && (static_cast<unsigned char>(path_[cut]) & 0xC0) == 0x80) --cut;
            p.assign(path_, 0, cut);
            p += "...";
        } else {
            p.assign(path_, 0, r.prefix);
        }
        if (!r.has_step) return p;
        if (!r.named) {
            append_path_index(p, r.index);
        } else if (r.name.size() > k_max_path_text) {
            append_path_name(p, r.name.substr(0, k_max_path_text));
            p += "...";
        } else {
            append_path_name(p, r.name);
        }
        return p;
    }

    // Findings are held from the end of one top-level entry to the end of the next, then passed
    // on (release()); a tolerable one (a difference from the writer's grammar the engine's reader
    // may well take in its stride) becomes a note when nothing in its window is an error, i.e.
    // the engine reads the entry exactly as the file says (formats/README.md §2.1 "tolerates"), and
    // stays an error otherwise. Without the engine model (a wrong version line, or a file past
    // the model's bounds) nothing is held and a tolerable finding is an error.
    struct Held {
        Error e;
        bool tolerable = false;
    };

    void add(ErrorCode code, Severity severity, Pos pos, const PathRef& path, std::string message,
             bool tolerable = false) {
        const bool hold = hold_ && held_.size() < k_max_held;
        std::size_t kept = findings_.count(severity);
        if (hold) kept += severity == Severity::error ? held_errors_ : 0;
        Error e{code, severity, k_no_offset, pos.line, pos.column, {}, {}};
        if (kept < Findings::k_max_kept) { // past it, only counted: skip building its text
            e.path = path_text(path);
            e.message = std::move(message);
        }
        if (!hold) {
            findings_.add(std::move(e));
            return;
        }
        if (severity == Severity::error && !tolerable) window_ok_ = false;
        if (severity == Severity::error) ++held_errors_;
        held_.push_back({std::move(e), tolerable});
    }
    void release() {
        const bool ok = window_ok_ && model_ && model_->available();
        for (Held& h : held_) {
            if (h.tolerable && ok) h.e.severity = Severity::note;
            findings_.add(std::move(h.e));
        }
        held_.clear();
        held_errors_ = 0;
        window_ok_ = true;
    }
    void error(ErrorCode code, Pos pos, const PathRef& path, std::string message) {
        add(code, Severity::error, pos, path, std::move(message));
    }
    void warning(ErrorCode code, Pos pos, const PathRef& path, std::string message) {
        add(code, Severity::warning, pos, path, std::move(message));
    }
    void note(ErrorCode code, Pos pos, const PathRef& path, std::string message) {
        add(code, Severity::note, pos, path, std::move(message));
    }
    void tolerable(ErrorCode code, Pos pos, const PathRef& path, std::string message) {
        add(code, Severity::error, pos, path, std::move(message), true);
    }

    static constexpr std::size_t k_max_held = 4 * Findings::k_max_kept;

    std::string_view data_;
    Findings& findings_;
    Sink& sink_;
    std::optional<engine::Model> model_;
    bool hold_ = false;
    std::vector<Held> held_;
    std::size_t held_errors_ = 0;
    bool window_ok_ = true;
    std::vector<Frame> frames_;
    std::string path_;
    Pending pending_;
    std::unordered_set<std::string_view> names_;
    std::size_t name_bytes_ = 0;
    std::uint64_t nodes_ = 0;
    std::size_t line_start_ = 0;
    std::size_t line_length_ = 0;
    std::uint32_t line_no_ = 1;
    bool stopped_ = false;
};

} // namespace text_archive
SPARKSAVE_END_NAMESPACE

// The engine comparison (formats/README.md §2.1), defined apart: reader_engine.hpp.
#include "reader_engine.hpp"
