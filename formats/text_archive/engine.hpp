// A model of the ColumbaEngine text archive reader (formats/README.md §2.1), written from what its
// code does (repository Gallasko/ColumbaEngine, src/Engine/serialization.cpp: Serializer::readFile,
// readData, UnserializedObject::parseString, getAsAttribute, operator[]; serialization.h:
// deserializeVector, deserializeUnorderedMap; the numbers: `std::stringstream >>`). None of its
// code is copied: this is our own description of its behaviour, step for step, so that verify
// can say what the engine reads where it differs from what the file says.
//
// What the engine does, in the order it does it:
//   readFile      a 0-byte file is an empty archive. Else the first line (up to LF) is the version;
//                 the rest is handed to readData, which reads nothing unless the version is
//                 exactly 1.0.0.
//   readData      top-level lines, one entry at a time. Expecting an entry, a line without ": "
//                 stops the whole read (every later line is lost); the key is the text before the
//                 first ": ", untrimmed. A line holding "__PGSA" anywhere is a one-line attribute
//                 entry. Else a second ": " on the line stops the read; else the line opens a class
//                 entry that takes every following line up to the first line that is exactly "}"
//                 (no blank, no comma, no CR). An entry still open at the end of the file is lost.
//                 The map keeps the LAST entry of a key.
//   parseString   a class: its header line gives classChildIndent (its leading blanks, spaces or
//                 tabs, plus one), its name (trimmed text before the first ": ", which must equal
//                 the key or the name its parent gave: else the class is null) and its type
//                 (substr(pos, find(" {") - 1): see class_type()). A header holding "__PGSA" makes
//                 the object an attribute. Then each line is classified by looking at the NEXT
//                 line: a line followed by a line indented deeper than classChildIndent (a blank
//                 or empty line counts as infinitely deep), or by `}`/`},` when it holds no
//                 "__PGSA", opens a child class, which takes every line up to a `}`/`},` whose
//                 indentation is exactly classChildIndent. Otherwise a line holding "__PGSA" starts
//                 an attribute child (named by the trimmed text before the first ": " that comes
//                 before the marker), and a line without it continues the previous unnamed
//                 attribute, is silently skipped, or stops the parse (the class then reads as
//                 null), depending on a position left over from an earlier line. children[0] is
//                 always an empty null object.
//   getAsAttribute  type = the text between "__PGSA" + 1 byte and the first "{" after it, minus
//                 one byte; value = from that "{" to the LAST "}" of the whole attribute string.
//   operator[]    the FIRST child of that (trimmed) name; deserializeVector: every non-null
//                 child in order.
//
// Nothing here recurses deeper than k_max_depth classes or reads more than k_max_bytes_read
// bytes in all (it rereads a class's lines at each level): past either, the model gives up
// (available() is false) and verify falls back to the writer's grammar alone.
#pragma once

#include "sparksave/version.hpp"
#include "spec.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive::engine {

inline constexpr std::size_t npos = std::string_view::npos;
inline constexpr std::uint32_t k_no_line = ~std::uint32_t{0};

// The engine's whitespace for names and indentation: space and TAB.
inline bool blank(char c) noexcept {
    return c == ' ' || c == '\t';
}

// nbLeadingSpaces: the number of leading blanks, npos when the line is all blanks (or empty).
inline std::size_t leading_blanks(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (!blank(s[i])) return i;
    return npos;
}

inline std::string_view trim(std::string_view s) noexcept {
    std::size_t b = 0;
    while (b < s.size() && blank(s[b])) ++b;
    std::size_t e = s.size();
    while (e > b && blank(s[e - 1])) --e;
    return s.substr(b, e - b);
}

// std::string::substr's clamping, without its throw (callers check pos first).
inline std::string_view sub(std::string_view s, std::size_t pos,
                            std::size_t count = npos) noexcept {
    if (pos > s.size()) return {};
    return s.substr(pos, count);
}

// The type parseString derives for a class header line: substr(pos, find(" {") - 1), where pos is
// just after the first ": " (named) or the line's leading blanks (unnamed). Empty with ok=false
// when the line has no " {" (the class is null).
struct ClassType {
    std::string_view type;
    bool ok = false;
};
inline ClassType class_type(std::string_view line) noexcept {
    const std::size_t lead = leading_blanks(line); // nbLeadingSpaces("\t" + line) - 1
    std::size_t pos = line.find(": ");
    pos = pos == npos ? (lead == npos ? line.size() : lead) : pos + 2;
    const std::size_t end = line.find(" {");
    if (end == npos) return {};
    return {sub(line, pos, end - 1), true};
}

// getAsAttribute. ok=false: the engine returns the blank attribute (type "" and value "").
struct Attribute {
    std::string_view type, value;
    bool ok = false;
};
inline Attribute attribute_of(std::string_view s) noexcept {
    std::size_t p = s.find(k_marker);
    if (p == npos) return {};
    p += k_marker.size();
    const std::size_t brace = s.find('{', p);
    if (brace == npos || brace - p < 2) return {};
    Attribute a;
    a.ok = true;
    a.type = brace - p == 2 ? std::string_view{} : s.substr(p + 1, brace - p - 2);
    const std::size_t close = s.rfind('}');
    if (close == npos) return {};
    // value = substr(brace + 1, close - (brace + 1)): a `}` before the `{` makes the count wrap
    // around, so the value runs to the end of the string.
    a.value = sub(s, brace + 1, close - (brace + 1));
    return a;
}

// ---- `std::stringstream >> x` in the "C" locale (libstdc++ num_get), formats/README.md §2.1 ----

// isspace in the "C" locale: what the stream's sentry skips before a number.
inline bool stream_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

struct Extracted {
    bool fail = false;      // the stream's failbit: the target got 0, or the type's max/min
    bool underflow = false; // a float/double: a non-zero number read as 0 (no failbit)
    std::size_t end = 0;    // where extraction stopped (the rest of the text is never looked at)
    bool negative = false;  // a `-` was read
    std::uint64_t magnitude = 0;
    std::int64_t as_signed = 0;    // the value read, for int
    std::uint64_t as_unsigned = 0; // the value read, for unsigned int / size_t
    double as_double = 0;          // the value read, for float (as a float) and double
};

// Integer extraction: optional sign, decimal digits; out of range: failbit and the type's max
// (min for a negative int); no digit: failbit and 0. A `-` before an unsigned value is accepted
// and the value wraps (-5 as unsigned int reads 4294967291).
inline Extracted extract_integer(std::string_view s, bool is_signed, std::uint64_t max) noexcept {
    Extracted x;
    std::size_t i = 0;
    while (i < s.size() && stream_space(s[i])) ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        x.negative = s[i] == '-';
        ++i;
    }
    const std::size_t digits = i;
    bool overflow = false;
    // the limit the magnitude may reach: max, or max + 1 for a negative signed value
    const std::uint64_t limit = is_signed && x.negative ? max + 1 : max;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
        const std::uint64_t d = static_cast<std::uint64_t>(s[i] - '0');
        if (!overflow && (x.magnitude > (limit - d) / 10)) overflow = true;
        if (!overflow) x.magnitude = x.magnitude * 10 + d;
    }
    x.end = i;
    if (i == digits) {
        x.fail = true;
        return x;
    }
    if (overflow) {
        x.fail = true;
        x.as_signed = x.negative && is_signed ? -static_cast<std::int64_t>(max) - 1
                                              : static_cast<std::int64_t>(max);
        x.as_unsigned = max;
        return x;
    }
    if (is_signed) {
        x.as_signed = x.negative ? -static_cast<std::int64_t>(x.magnitude)
                                 : static_cast<std::int64_t>(x.magnitude);
    } else {
        // unsigned: -m is 2^N - m (N = the type's width; max = 2^N - 1)
        x.as_unsigned = x.negative && x.magnitude != 0 ? (max - x.magnitude) + 1 : x.magnitude;
    }
    return x;
}

// Floating-point extraction: the stream gathers [sign] digits [. digits] [e [sign] digits] (an `e`
// only after a digit; no inf, nan or hex) and converts what it gathered with strtof/strtod
// (libstdc++'s __convert_to_v, config/locale/gnu/c_locale.cc): if the conversion does not use
// all of it (`1e`, `.`, `-`), failbit and 0; an infinite result (`1e39` as float), failbit and
// the largest finite value of that sign. errno is never looked at, so an underflow (ERANGE)
// sets no failbit: the target holds what strtof/strtod returned, the nearest denormal (`1e-40`
// as float: 9.99995e-41) or a zero of the number's sign (`1e-50` as float, `1e-400` as double:
// `underflow`, formats/README.md §2.1).
inline Extracted extract_float(std::string_view s, bool is_float) {
    Extracted x;
    std::size_t i = 0;
    while (i < s.size() && stream_space(s[i])) ++i;
    std::string acc;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) acc += s[i++];
    bool mantissa = false, dot = false, exp = false, nonzero = false;
    while (i < s.size()) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            acc += c;
            mantissa = true;
            nonzero = nonzero || (c != '0' && !exp);
        } else if (c == '.' && !dot && !exp) {
            acc += c;
            dot = true;
        } else if ((c == 'e' || c == 'E') && !exp && mantissa) {
            acc += 'e';
            exp = true;
            if (i + 1 < s.size() && (s[i + 1] == '+' || s[i + 1] == '-')) acc += s[++i];
        } else {
            break;
        }
        ++i;
    }
    x.end = i;
    char* stop = nullptr;
    double v = 0;
    if (is_float) {
        const float f = std::strtof(acc.c_str(), &stop);
        v = f;
        if (!acc.empty() && stop == acc.c_str() + acc.size() && std::isinf(f)) {
            x.fail = true;
            v = f > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
            x.as_double = v;
            return x;
        }
    } else {
        v = std::strtod(acc.c_str(), &stop);
        if (!acc.empty() && stop == acc.c_str() + acc.size() && std::isinf(v)) {
            x.fail = true;
            x.as_double =
                v > 0 ? std::numeric_limits<double>::max() : -std::numeric_limits<double>::max();
            return x;
        }
    }
    if (acc.empty() || stop != acc.c_str() + acc.size()) {
        x.fail = true;
        x.as_double = 0;
        return x;
    }
    x.as_double = v;
    x.underflow = nonzero && v == 0;
    return x;
}

// ---- the reader ----

enum class Null : std::uint8_t {
    none,
    placeholder,   // children[0], or a child the engine does not have
    no_brace,      // the header line has no " {"
    name_mismatch, // the header's trimmed name is not the name it was looked up by
    no_end,        // the header is the only line
    parse_error,   // a line stopped the parse (error_line)
    two_names,     // a class line with a second ": " (error_line)
    threw,         // the engine's substr throws std::out_of_range (error_line)
};

struct Object {
    std::string_view name;
    std::string_view type;             // a class's derived type
    std::string_view attr;             // an attribute's string, for getAsAttribute
    std::uint32_t first = 0, last = 0; // its lines in the file (0-based; line 0 is the version)
    std::uint32_t child_begin = 0, child_count = 0;
    std::uint32_t error_line = k_no_line;
    std::uint32_t unclosed = k_no_line; // a child class that never ended: dropped
    bool is_class = false;
    Null null = Null::none;
    bool deep = false; // past k_max_depth: not modelled
    bool is_null() const noexcept { return null != Null::none; }
};

// Why readData stopped before the end of the file.
enum class Stop : std::uint8_t { none, no_separator, two_names };

// A top-level entry as readData stored it.
struct Top {
    std::string_view key;
    std::uint32_t first = 0, last = 0;
    bool attribute = false;
};

class Model {
  public:
    // The engine rereads a class's lines once per level of nesting; past this many bytes read
    // in all (four times the largest file), the model gives up.
    static constexpr std::uint64_t k_max_bytes_read = 256u << 20;

    // data: the whole file.
    explicit Model(std::string_view data) {
        if (data.empty()) return; // a 0-byte file: an empty archive
        for (std::size_t pos = 0; pos < data.size();) {
            const std::size_t nl = data.find('\n', pos);
            starts_.push_back(static_cast<std::uint32_t>(pos));
            pos = nl == npos ? data.size() : nl + 1;
        }
        // one past the last line's LF (as if there were one)
        starts_.push_back(static_cast<std::uint32_t>(data.size() + (data.back() == '\n' ? 0 : 1)));
        data_ = data;
        version_ok_ = line(0) == k_version_line;
        if (!version_ok_) return;
        read_data();
    }

    bool version_ok() const noexcept { return version_ok_; }
    bool available() const noexcept { return !gave_up_; }
    std::uint32_t line_count() const noexcept {
        return starts_.empty() ? 0 : static_cast<std::uint32_t>(starts_.size() - 1);
    }
    std::string_view line(std::uint32_t i) const noexcept {
        if (i + 1 >= starts_.size()) return {};
        return data_.substr(starts_[i], starts_[i + 1] - 1 - starts_[i]);
    }

    // Where readData stopped (k_no_line: it read to the end) and why.
    std::uint32_t stop_line() const noexcept { return stop_line_; }
    Stop stop_reason() const noexcept { return stop_reason_; }
    // A class entry still open at the end of the file (k_no_line: none): lost.
    std::uint32_t open_line() const noexcept { return open_line_; }

    // The entry the engine keeps under `key`, or nullptr.
    const Top* top(std::string_view key) const {
        auto it = tops_.find(key);
        return it == tops_.end() ? nullptr : &it->second;
    }
    // The stored entry (kept or replaced) whose lines hold `line`, or nullptr.
    const Top* top_holding(std::uint32_t line) const noexcept {
        std::size_t lo = 0, hi = ranges_.size();
        while (lo < hi) { // first range with first > line
            const std::size_t mid = (lo + hi) / 2;
            if (ranges_[mid].first <= line)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0) return nullptr;
        const Top& t = ranges_[lo - 1];
        return t.last >= line ? &t : nullptr;
    }

    // Parses a stored entry (UnserializedObject(string, key)); the object lives until the next
    // call. nullptr when the model gave up.
    const Object* entry(const Top& t) {
        if (gave_up_) return nullptr;
        if (entry_line_ == t.first && !objects_.empty()) return &objects_[0];
        objects_.clear();
        pool_.clear();
        index_.clear();
        entry_line_ = t.first;
        objects_.emplace_back();
        if (t.attribute) {
            Object& o = objects_[0];
            o.name = t.key;
            o.attr = line(t.first);
            o.first = o.last = t.first;
        } else {
            parse_class(0, t.first, t.last, t.key, 0);
        }
        if (gave_up_) return nullptr;
        return &objects_[0];
    }

    const Object& child(const Object& o, std::uint32_t i) const {
        return objects_[o.child_begin + i];
    }

    // operator[](name): the first child of that name (children[0], the null placeholder, is
    // named ""), or nullptr.
    const Object* named(const Object& o, std::string_view name) {
        const Index& ix = index_of(o);
        auto it = ix.by_name.find(name);
        return it == ix.by_name.end() ? nullptr : &objects_[it->second];
    }
    // The child whose first line is `line`, or nullptr.
    const Object* at_line(const Object& o, std::uint32_t line) {
        const Index& ix = index_of(o);
        auto it = ix.by_line.find(line);
        return it == ix.by_line.end() ? nullptr : &objects_[it->second];
    }
    // The child whose lines hold `line`, or nullptr.
    const Object* holding(const Object& o, std::uint32_t line) const {
        for (std::uint32_t i = 0; i < o.child_count; ++i) {
            const Object& c = child(o, i);
            if (c.null == Null::placeholder) continue;
            if (c.first <= line && line <= c.last) return &c;
        }
        return nullptr;
    }
    // deserializeVector's n-th item: the n-th non-null child, or nullptr.
    const Object* item(const Object& o, std::uint64_t n) {
        const Index& ix = index_of(o);
        return n < ix.items.size() ? &objects_[ix.items[n]] : nullptr;
    }
    std::size_t item_count(const Object& o) { return index_of(o).items.size(); }

  private:
    struct Index {
        std::unordered_map<std::string_view, std::uint32_t> by_name; // first of each name
        std::unordered_map<std::uint32_t, std::uint32_t> by_line;
        std::vector<std::uint32_t> items;
    };

    const Index& index_of(const Object& o) {
        const auto id = static_cast<std::uint32_t>(&o - objects_.data());
        auto [it, fresh] = index_.try_emplace(id);
        if (fresh) {
            for (std::uint32_t i = 0; i < o.child_count; ++i) {
                const std::uint32_t c = o.child_begin + i;
                const Object& k = objects_[c];
                it->second.by_name.try_emplace(k.name, c);
                if (k.null == Null::placeholder) continue;
                it->second.by_line.try_emplace(k.first, c);
                if (!k.is_null()) it->second.items.push_back(c);
            }
        }
        return it->second;
    }

    bool visit(std::uint64_t n) {
        visits_ += n;
        if (visits_ > k_max_bytes_read) gave_up_ = true;
        return !gave_up_;
    }

    void read_data() {
        bool expect_entry = true;
        Top open;
        for (std::uint32_t i = 1; i < line_count(); ++i) {
            const std::string_view l = line(i);
            if (expect_entry) {
                const std::size_t p = l.find(": ");
                if (p == npos) {
                    stop(i, Stop::no_separator);
                    return;
                }
                const std::string_view key = l.substr(0, p);
                if (l.find(k_marker) != npos) {
                    store({key, i, i, true});
                    continue;
                }
                if (l.find(": ", p + 2) != npos) {
                    stop(i, Stop::two_names);
                    return;
                }
                open = {key, i, i, false};
                expect_entry = false;
            } else if (l == "}") {
                open.last = i;
                store(open);
                expect_entry = true;
            }
        }
        if (!expect_entry) open_line_ = open.first;
    }

    void stop(std::uint32_t line, Stop why) {
        stop_line_ = line;
        stop_reason_ = why;
    }
    void store(const Top& t) {
        tops_[t.key] = t;
        ranges_.push_back(t);
    }

    struct Kid {
        bool is_class;
        std::uint32_t first, last;
        std::string_view name;
        std::string_view attr;
    };

    // parseString of the class whose string is the file lines [a, b], looked up as `name`.
    void parse_class(std::uint32_t id, std::uint32_t a, std::uint32_t b, std::string_view name,
                     std::size_t depth) {
        {
            Object& o = objects_[id];
            o.name = name;
            o.first = a;
            o.last = b;
            o.is_class = true;
        }
        if (!visit(starts_[b + 1] - starts_[a])) return;
        if (depth > k_max_depth) {
            objects_[id].deep = true;
            return;
        }
        std::string_view cur = line(a);
        const std::size_t lead = leading_blanks(cur);
        const std::size_t cci = lead == npos ? npos : lead + 1; // nbLeadingSpaces("\t" + line)
        if (cur.find(k_marker) != npos) {
            Object& o = objects_[id];
            o.is_class = false;
            o.attr = join(a, b, {});
            return;
        }
        std::size_t pos = cur.find(": ");
        std::string_view own = pos == npos ? std::string_view{} : trim(cur.substr(0, pos));
        if (pos == npos)
            pos = cci > 0 ? cci - 1 : 0;
        else
            pos += 2;
        const ClassType ct = class_type(cur);
        if (!ct.ok) {
            objects_[id].null = Null::no_brace;
            return;
        }
        objects_[id].type = ct.type;
        if (own != name) {
            objects_[id].null = Null::name_mismatch;
            return;
        }
        if (a == b) {
            objects_[id].null = Null::no_end;
            return;
        }
        std::vector<Kid> kids;
        kids.push_back({false, a, a, {}, {}}); // children[0]: the empty null object
        cur = line(a + 1);
        if (trim(cur) == "}") {
            place(id, kids, depth);
            return;
        }
        bool start_class = false, in_class = false, in_attr = false, failed = false;
        Null why = Null::none;
        std::uint32_t error_line = k_no_line;
        std::size_t cur_indent = 0;
        std::string_view class_name, attr_name;
        std::uint32_t class_first = 0, attr_first = 0;
        std::vector<std::string_view> attr_more;
        auto emit_attr = [&] {
            kids.push_back({false, attr_first,
                            attr_first + static_cast<std::uint32_t>(attr_more.size()), attr_name,
                            join(attr_first, attr_first, attr_more)});
            attr_more.clear();
            in_attr = false;
        };
        for (std::uint32_t i = a + 2; i <= b; ++i) {
            const std::uint32_t cur_line = i - 1;
            const std::string_view next = line(i);
            const std::size_t next_indent = leading_blanks(next);
            const bool free = !start_class && !in_class;
            if (next_indent > cci && free) start_class = true;
            // (the engine computes these on every line; only these cases look at them)
            std::size_t marker = npos;
            if (free) {
                marker = cur.find(k_marker);
                if (marker == npos && !start_class) {
                    const std::string_view next_trim = trim(next);
                    if (next_trim == "}" || next_trim == "},") start_class = true;
                }
            }
            if (start_class) {
                if (in_attr) emit_attr();
                pos = cur.find(": ");
                class_name = pos == npos ? std::string_view{} : trim(cur.substr(0, pos));
                pos = cur.find(": ", pos + 2); // npos + 2 wraps to 1, as in the engine
                if (pos != npos) {
                    failed = true;
                    why = Null::two_names;
                    error_line = cur_line;
                    break;
                }
                class_first = cur_line;
                start_class = false;
                in_class = true;
            } else if (in_class) {
                const std::string_view t = cci == cur_indent ? trim(cur) : std::string_view{};
                if (t == "}" || t == "},") {
                    kids.push_back({true, class_first, cur_line, class_name, {}});
                    in_class = false;
                }
            } else if (marker != npos) {
                if (in_attr) emit_attr();
                const std::string_view before = cur.substr(0, marker);
                pos = before.find(": ");
                attr_name = pos == npos ? std::string_view{} : trim(before.substr(0, pos));
                attr_first = cur_line;
                in_attr = true;
            } else if (pos == npos && !in_attr) {
                failed = true;
                why = Null::parse_error;
                error_line = cur_line;
                break;
            } else if (pos == npos && in_attr) {
                if (cur_indent > cur.size()) { // substr past the end: std::out_of_range
                    failed = true;
                    why = Null::threw;
                    error_line = cur_line;
                    break;
                }
                attr_more.push_back(cur.substr(cur_indent));
            }
            cur = next;
            cur_indent = next_indent;
        }
        if (in_attr) emit_attr();
        const bool open_class = in_class && !failed;
        place(id, kids, depth);
        if (open_class) objects_[id].unclosed = class_first;
        if (failed) {
            objects_[id].null = why;
            objects_[id].error_line = error_line;
        }
    }

    // Puts a class's children side by side in objects_, then parses the classes among them.
    void place(std::uint32_t id, const std::vector<Kid>& kids, std::size_t depth) {
        const auto base = static_cast<std::uint32_t>(objects_.size());
        objects_.resize(objects_.size() + kids.size());
        objects_[id].child_begin = base;
        objects_[id].child_count = static_cast<std::uint32_t>(kids.size());
        for (std::size_t k = 0; k < kids.size(); ++k) {
            Object& c = objects_[base + k];
            c.name = kids[k].name;
            c.first = kids[k].first;
            c.last = kids[k].last;
            c.attr = kids[k].attr;
            if (k == 0) c.null = Null::placeholder;
        }
        for (std::size_t k = 1; k < kids.size() && !gave_up_; ++k)
            if (kids[k].is_class)
                parse_class(base + static_cast<std::uint32_t>(k), kids[k].first, kids[k].last,
                            kids[k].name, depth + 1);
    }

    // An attribute's string: a line range, or a first line and its continuation lines.
    std::string_view join(std::uint32_t a, std::uint32_t b,
                          const std::vector<std::string_view>& more) {
        if (a == b && more.empty()) return line(a);
        std::string& s = pool_.emplace_back();
        for (std::uint32_t i = a; i <= b; ++i) {
            s += line(i);
            s += '\n';
        }
        for (std::string_view m : more) {
            s += m;
            s += '\n';
        }
        return s;
    }

    std::string_view data_;
    std::vector<std::uint32_t> starts_; // each line's first byte, then one past the last LF
    bool version_ok_ = false;
    bool gave_up_ = false;
    std::uint64_t visits_ = 0;
    std::uint32_t stop_line_ = k_no_line;
    Stop stop_reason_ = Stop::none;
    std::uint32_t open_line_ = k_no_line;
    std::unordered_map<std::string_view, Top> tops_;
    std::vector<Top> ranges_; // every stored entry, in file order
    std::vector<Object> objects_;
    std::deque<std::string> pool_;
    std::unordered_map<std::uint32_t, Index> index_;
    std::uint32_t entry_line_ = k_no_line;
};

} // namespace text_archive::engine
SPARKSAVE_END_NAMESPACE
