// Reading JSON (what `pack` takes) without building a DOM: validate() checks the whole text
// once (RFC 8259 grammar, a nesting limit, nothing after the value); Values are then just
// extents in the text, and members() / elements() walk them lazily. A dump of a large save
// becomes no allocation per value, only the decoded strings the caller asks for.
#pragma once

#include "sparksave/error.hpp"
#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace json {

enum class Kind : std::uint8_t { object, array, string, number, boolean, null };

std::string_view kind_name(Kind kind) noexcept; // "an object", "a string", ...

// A JSON value: its kind and its extent [begin, end) in the text.
struct Value {
    Kind kind = Kind::null;
    std::size_t begin = 0;
    std::size_t end = 0;
};

class Reader {
  public:
    // Deeper nesting than this is refused. The deepest schema is the text archive's: two levels
    // per class (the item and its children array) under the root object and the entries
    // array, so its 256 nested classes and an attribute in the innermost take 515.
    static constexpr std::size_t k_max_depth = 1024;

    explicit Reader(std::string_view text) : text_(text) {}

    // Validates the whole text: exactly one value, whitespace around it. The error has
    // line:column and says what was expected.
    Result<Value> validate();

    // Calls fn(key, value) for each member of an object, in text order; fn returns false to
    // stop. `key` is the decoded key (valid during the call).
    template <class F> void members(const Value& object, F&& fn) const;
    // Calls fn(index, value) for each element of an array; fn returns false to stop.
    template <class F> void elements(const Value& array, F&& fn) const;
    // Calls fn(index, value) -> Result<void> for each element of an array, stopping at the
    // first error, which it returns.
    template <class F> Result<void> each(const Value& array, F&& fn) const;
    // The first member named `key` into `out`; false when there is none.
    bool find(const Value& object, std::string_view key, Value& out) const;

    // Appends the decoded bytes of a string value (UTF-8; \u escapes, surrogate pairs).
    void decode(const Value& string, std::string& out) const;
    std::string decoded(const Value& string) const {
        std::string s;
        decode(string, s);
        return s;
    }
    std::string_view raw(const Value& v) const noexcept {
        return text_.substr(v.begin, v.end - v.begin);
    }
    bool is_true(const Value& v) const noexcept {
        return v.kind == Kind::boolean && text_[v.begin] == 't';
    }

    // The element count of an array that is a member of the root object, noted by validate().
    std::optional<std::size_t> known_count(const Value& array) const noexcept;

    // Walking forward from a position in validated text, for one-pass readers (pack):
    std::size_t skip_space_at(std::size_t at) const noexcept { return skip_space(at); }
    // The end of the value that starts at `at`, and its kind.
    std::size_t end_of(std::size_t at, Kind& kind) const noexcept { return value_end(at, kind); }
    // The end of the string that starts (with its quote) at `at`.
    std::size_t string_end_at(std::size_t at) const noexcept { return string_end(at); }
    char at(std::size_t offset) const noexcept { return text_[offset]; }

    // 1-based line and column of a text offset, for messages.
    void line_column(std::size_t offset, std::uint32_t& line, std::uint32_t& column) const noexcept;
    // An error at `v`: code bad_json, its line:column, `path` (the JSON path) and the message.
    Error error_at(const Value& v, std::string path, std::string message) const;
    // The members of a dump's root object by name, as take_members(): values[i] and present[i]
    // for names[i], besides "schemaVersion" (check_schema_version()) and "complete"
    // (check_complete()). Refuses a root that is not an object, an unknown member (saying which
    // members a `format` dump has) and a member given twice.
    Result<void> dump_members(const Value& root, std::string_view format,
                              std::span<const std::string_view> names, std::span<Value> values,
                              std::span<bool> present) const;
    // The root member "schemaVersion" (version.hpp k_json_schema_version): the layout of the
    // dump. A dump without it (written before it existed) is read as version 1, as is 1; a
    // greater version (a dump of a newer sparksave, whose members may mean something else) is
    // refused, and so is anything but a positive integer.
    Result<void> check_schema_version(const Value& version) const;
    // The root member "complete" (json_out.hpp k_json_incomplete): false marks the dump of a file
    // whose read stopped part-way, which pack refuses (the file it built would silently lack
    // what the read did not reach); true is accepted; anything else is refused.
    Result<void> check_complete(const Value& complete) const;
    // Each named member once, unknown ones refused (a typo in an edited dump is an error, not
    // ignored), in one pass: values[i] and present[i] for names[i] (present all false on entry).
    // The error is at the member in question, its path `path`.key: "unknown member \"x\"
    // (expected <`expected`, or the names>)" or "expected each member once, found \"x\" again".
    Result<void> take_members(const Value& object, const std::string& path,
                              std::span<const std::string_view> names, std::span<Value> values,
                              std::span<bool> present, std::string_view expected = {}) const;
    // The same check, keeping no value (look members up with find()); at most 16 names.
    Result<void> only_members(const Value& object, const std::string& path,
                              std::initializer_list<std::string_view> allowed) const;

    // A byte string of a dump (json_out.hpp append_json_bytes) into `out` (replacing it): a JSON
    // string, whose decoded UTF-8 are the bytes, or an object with exactly the one member
    // "base64" holding standard base64 (RFC 4648 section 4: A-Z a-z 0-9 + /, `=` padding to a
    // multiple of 4, no blanks or line breaks, and the unused bits of the last character zero, so
    // that each byte string has one spelling). Anything else is refused: at `path` (the JSON path
    // of `v`), or at `path`.base64 for the base64 text.
    Result<void> bytes(const Value& v, const std::string& path, std::string& out) const;
    // The same for the member `member` of the object at `path`, whose path is built only for an
    // error (a dump has millions of strings).
    Result<void> bytes(const Value& v, std::string_view path, std::string_view member,
                       std::string& out) const {
        if (v.kind == Kind::string) {
            out.clear();
            decode(v, out);
            return {};
        }
        return bytes(v, member_path(path, member), out);
    }

    std::string_view text() const noexcept { return text_; }

  private:
    static std::string member_path(std::string_view path, std::string_view member);
    std::size_t skip_space(std::size_t at) const noexcept {
        while (at < text_.size() &&
               (text_[at] == ' ' || text_[at] == '\n' || text_[at] == '\t' || text_[at] == '\r'))
            ++at;
        return at;
    }
    // take_members(), and dump_members() (`dump_root`: the root's "schemaVersion" and
    // "complete" are checked);
    // `about`: what the unknown-member message says in parentheses (empty: the names).
    Result<void> take(const Value& object, const std::string& path,
                      std::span<const std::string_view> names, std::span<Value> values,
                      std::span<bool> present, std::string_view about, bool dump_root) const;
    // The end of the (already validated) value starting at `at`, and its kind.
    std::size_t value_end(std::size_t at, Kind& kind) const noexcept;
    std::size_t string_end(std::size_t at) const noexcept; // at: the opening quote

    std::string_view text_;
    struct KnownArray {
        std::size_t begin, end, count;
    };
    std::vector<KnownArray> counts_; // arrays under the root: extent and elements (known_count)
};

template <class F> void Reader::members(const Value& object, F&& fn) const {
    std::size_t at = skip_space(object.begin + 1);
    if (text_[at] == '}') return;
    std::string key;
    for (;;) {
        const std::size_t key_end = string_end(at);
        key.clear();
        decode(Value{Kind::string, at, key_end}, key);
        at = skip_space(key_end);
        at = skip_space(at + 1); // ':'
        Value v;
        v.begin = at;
        v.end = value_end(at, v.kind);
        if (!fn(std::string_view(key), v)) return;
        at = skip_space(v.end);
        if (text_[at] == '}') return;
        at = skip_space(at + 1); // ','
    }
}

template <class F> void Reader::elements(const Value& array, F&& fn) const {
    std::size_t at = skip_space(array.begin + 1);
    if (text_[at] == ']') return;
    for (std::size_t index = 0;; ++index) {
        Value v;
        v.begin = at;
        v.end = value_end(at, v.kind);
        if (!fn(index, v)) return;
        at = skip_space(v.end);
        if (text_[at] == ']') return;
        at = skip_space(at + 1); // ','
    }
}

template <class F> Result<void> Reader::each(const Value& array, F&& fn) const {
    Result<void> out;
    elements(array, [&](std::size_t index, const Value& v) {
        out = fn(index, v);
        return out.has_value();
    });
    return out;
}

} // namespace json
SPARKSAVE_END_NAMESPACE
