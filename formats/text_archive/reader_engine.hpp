// The text archive reader's comparison with what the engine reads (formats/README.md §2.1): the
// entries, classes and attributes the engine's parse keeps (engine.hpp's model), checked
// against what the file says. Members of Reader (reader.hpp), defined apart from its line
// grammar; included by reader.hpp only.
#pragma once

#include "reader.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

template <class Sink> std::string_view Reader<Sink>::stop_text(engine::Stop why) noexcept {
    return why == engine::Stop::two_names ? "a class line with a second \": \""
                                          : "a line without \": \" where an entry begins";
}

template <class Sink>
const engine::Object* Reader<Sink>::engine_top(std::string_view name, bool named, Pos start,
                                               const PathRef& path) {
    if (!engine_on() || !named) return nullptr; // unnamed: reported by line()
    engine::Model& m = *model_;
    const std::uint32_t line = start.line - 1;
    const std::size_t cut = name.find(k_name_separator);
    const std::string_view key = cut == npos ? name : name.substr(0, cut);
    if (m.stop_line() != engine::k_no_line && m.stop_line() <= line) {
        if (m.stop_line() < line) // at this very line: reported by class_line()
            error(ErrorCode::bad_syntax, start, path,
                  fmt::format("expected the engine to read this entry, found that it stops "
                              "reading the archive at line {} ({}) and loses this entry and "
                              "every later one",
                              m.stop_line() + 1, stop_text(m.stop_reason())));
        return nullptr;
    }
    const engine::Top* t = m.top(key);
    if (t && t->first == line) return m.entry(*t);
    if (t && t->first > line) {
        error(ErrorCode::duplicate_key, start, path,
              fmt::format("expected each top-level name once, found {}{} again at line {}: "
                          "the engine keeps only the last entry of a name and drops this one",
                          excerpt(key), key != name ? " (as the engine reads it)" : "",
                          t->first + 1));
        return nullptr;
    }
    if (const engine::Top* h = m.top_holding(line); h && h->first < line) {
        error(ErrorCode::bad_syntax, start, path,
              fmt::format("expected this line to begin an entry, found that the engine reads "
                          "it as part of the entry {} begun at line {} (a class entry ends "
                          "only at a line that is exactly `}}`)",
                          excerpt(h->key), h->first + 1));
        return nullptr;
    }
    if (m.open_line() != engine::k_no_line && m.open_line() <= line) {
        error(ErrorCode::bad_syntax, start, path,
              m.open_line() == line
                  ? std::string("expected a line that is exactly `}` (no indentation, comma "
                                "or CR) to end this entry, found none: the engine never "
                                "stores it and loses it")
                  : fmt::format("expected this line to begin an entry, found that the engine "
                                "reads it as part of the entry begun at line {}, which never "
                                "ends with a line that is exactly `}}`: the engine loses both",
                                m.open_line() + 1));
        return nullptr;
    }
    // The engine's key is the line's text before its first ": ", blanks included.
    const std::string_view raw = m.line(line);
    if (const std::size_t sep = raw.find(k_name_separator); sep != npos) {
        const engine::Top* r = m.top(raw.substr(0, sep));
        if (r && r->first == line) {
            error(ErrorCode::name_cut, start, path,
                  fmt::format("expected the engine to read this entry as {}, found that it "
                              "keeps it under the key {} (the text before the line's first "
                              "\": \", indentation included): a game asking for {} gets a "
                              "default",
                              excerpt(key), excerpt(raw.substr(0, sep)), excerpt(key)));
            return nullptr;
        }
    }
    error(ErrorCode::bad_syntax, start, path,
          "expected the engine to read this entry, found that it keeps none at this line");
    return nullptr;
}

template <class Sink>
const engine::Object* Reader<Sink>::engine_child(std::string_view name, bool named, Pos start,
                                                 const PathRef& path) {
    const Frame& f = frames_.back();
    if (!f.en || !engine_on()) return nullptr;
    engine::Model& m = *model_;
    const std::uint32_t line = start.line - 1;
    if (named && name.find(k_name_separator) != npos) return nullptr; // name_cut, above
    if (named) {
        const engine::Object* c = m.named(*f.en, name);
        if (c && c->first == line && c->null != engine::Null::placeholder) return c;
        if (c && c->null == engine::Null::placeholder) {
            error(ErrorCode::name_cut, start, path,
                  "expected a child the engine can look up, found an empty name: the "
                  "engine's lookup by name finds the empty object every class holds first, "
                  "and reads a default");
            return nullptr;
        }
        if (c && c->first < line) {
            error(ErrorCode::duplicate_key, start, path,
                  fmt::format("expected each child name once in {}, found {} also at line "
                              "{}: the engine reads the first child of a name and never this "
                              "one",
                              excerpt(f.class_name), excerpt(name), c->first + 1));
            return nullptr;
        }
    } else if (const engine::Object* c = m.item(*f.en, f.children); c && c->first == line) {
        return c;
    }
    if (const engine::Object* a = m.at_line(*f.en, line)) {
        if (named && a->name != name) {
            const bool trimmed = engine::trim(name) == a->name;
            error(ErrorCode::name_cut, start, path,
                  fmt::format("expected the engine to read this child as {}, found that it "
                              "reads its name as {}{}: a game asking for {} gets a default",
                              excerpt(name), excerpt(a->name),
                              trimmed ? " (the engine trims blanks off names)"
                              : name.find(k_marker) != npos
                                  ? " (it cuts the name at the first \"__PGSA\" of the line)"
                                  : "",
                              excerpt(name)));
        } else if (!named) {
            error(ErrorCode::bad_syntax, start, path,
                  fmt::format("expected the engine to read this as item {} of {}, found that "
                              "it reads it at another place{}",
                              f.children, excerpt(f.class_name),
                              a->is_null() ? " and as empty" : " (an item before it is lost)"));
        } else {
            error(ErrorCode::bad_syntax, start, path,
                  "expected the engine to read this child, found that it reads another one "
                  "of the same name");
        }
        return nullptr;
    }
    if (const engine::Object* h = m.holding(*f.en, line)) {
        const bool taken =
            h->first + 1 == line || (h->last > h->first && m.line(h->first).find(k_marker) != npos);
        error(ErrorCode::bad_syntax, start, path,
              fmt::format("expected the engine to read this child, found that it reads the "
                          "line as part of the child begun at line {}{}",
                          h->first + 1,
                          taken && m.line(h->first).find(k_marker) != npos
                              ? fmt::format(": it takes line {} for a class header because "
                                            "the line after it is indented deeper (or "
                                            "blank), and that class never ends where the "
                                            "file's does",
                                            h->first + 1)
                              : std::string()));
        return nullptr;
    }
    if (f.en->unclosed == line)
        error(ErrorCode::bad_syntax, start, path,
              "expected the engine to read this class, found that it drops it: the engine "
              "ends a child class only at a `}` indented exactly like the class's line, and "
              "finds none");
    else
        error(ErrorCode::bad_syntax, start, path,
              "expected the engine to read this child, found that its parse of the class "
              "skips this line");
    return nullptr;
}

template <class Sink> std::string Reader<Sink>::null_text(const engine::Object& o) {
    switch (o.null) {
    case engine::Null::no_brace:
        return "its header line has no \" {\"";
    case engine::Null::name_mismatch:
        return "the name on its header line, trimmed of blanks, is not the name it is looked "
               "up by (a top-level name with a leading or trailing blank)";
    case engine::Null::no_end:
        return "it has no line after its header";
    case engine::Null::parse_error:
        return fmt::format("line {} is neither a class, a class end nor an attribute to its "
                           "parser, which gives up there",
                           o.error_line + 1);
    case engine::Null::two_names:
        return fmt::format("line {} opens a class with a second \": \", and its parser gives "
                           "up there",
                           o.error_line + 1);
    case engine::Null::threw:
        return fmt::format("line {} (blank, continuing an unnamed attribute) makes its parser "
                           "throw std::out_of_range",
                           o.error_line + 1);
    case engine::Null::none:
    case engine::Null::placeholder:
        break;
    }
    return "it reads it as null";
}

template <class Sink>
const engine::Object* Reader<Sink>::engine_class(const engine::Object* o, Pos start,
                                                 const PathRef& path, std::size_t line_end,
                                                 std::size_t name_at) {
    if (!o || o->deep || !o->is_class) return nullptr; // `__PGSA` in a header: class_line()
    if (o->is_null()) {
        error(ErrorCode::bad_syntax, start, path,
              "expected the engine to read this class, found that it reads it as empty: " +
                  null_text(*o));
        return nullptr;
    }
    // getObjectType(): where the writer's line gives it the class name (or the class name
    // and " {", named), a blank or " {" in the wrong place gives another one.
    const std::string_view text = data_.substr(line_start_, line_end - line_start_);
    const std::string_view expected =
        text.size() >= 2 ? engine::sub(text, name_at, text.size() - 3) : std::string_view{};
    if (o->type != expected)
        warning(ErrorCode::bad_syntax, start, path,
                fmt::format("expected the engine to derive the class name {} from this line, "
                            "found that it derives {} (it takes the text up to the first "
                            "\" {{\", after the leading blanks): readers that pick a class "
                            "by this name, such as scene components, misread it",
                            excerpt(expected), excerpt(o->type)));
    return o;
}

template <class Sink>
void Reader<Sink>::engine_attribute(const engine::Object* o, const Pending& p,
                                    std::string_view value, const PathRef& path) {
    if (!o || o->deep || !engine_on()) return;
    const engine::Attribute a = engine::attribute_of(o->attr);
    if (!o->is_class && a.ok && a.type == p.type && a.value == value) return;
    std::string what;
    if (o->is_class || !a.ok)
        what = "no attribute at all: every reader gets its default";
    else if (a.type != p.type)
        what = fmt::format("the type {}{}: a reader of {} refuses it and gets its default",
                           excerpt(a.type),
                           p.name.find(k_marker) != npos
                               ? " (it takes the first \"__PGSA\" of the line, in the name)"
                               : "",
                           excerpt(p.type));
    else
        what = "the value " + excerpt(a.value);
    if (o->last > o->first)
        what +=
            fmt::format(" (it reads lines {} to {} as this attribute)", o->first + 1, o->last + 1);
    error(ErrorCode::bad_value, p.start, path,
          fmt::format("expected the engine to read type {} and value {}, found that it reads "
                      "{}",
                      excerpt(p.type), excerpt(value), what));
}

template <class Sink> std::string Reader<Sink>::stream_read(Type type, std::string_view value) {
    switch (type) {
    case Type::int32:
        return std::to_string(engine::extract_integer(value, true, INT32_MAX).as_signed);
    case Type::uint32:
        return std::to_string(engine::extract_integer(value, false, UINT32_MAX).as_unsigned);
    case Type::size:
        return std::to_string(engine::extract_integer(value, false, UINT64_MAX).as_unsigned);
    case Type::float32:
        return fmt::format("{}", static_cast<float>(engine::extract_float(value, true).as_double));
    case Type::float64:
        return fmt::format("{}", engine::extract_float(value, false).as_double);
    case Type::boolean:
    case Type::string:
    case Type::unknown:
        break;
    }
    return {};
}

template <class Sink>
bool Reader<Sink>::stream_rest_blank(std::string_view value, std::size_t from) noexcept {
    for (std::size_t i = from; i < value.size(); ++i)
        if (!engine::stream_space(value[i])) return false;
    return true;
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
