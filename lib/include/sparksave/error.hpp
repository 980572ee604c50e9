// Errors as values: the stable error codes, a finding (an error or a warning with its place in
// the file), and Result<T>, a small std::expected-shaped type (C++20 has no std::expected).
// Parsing hostile input is expected, not exceptional: readers return these, never throw.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/export.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

// Stable codes: scripts read them from `verify --json`. Append only; never renumber or rename.
// Every error code, with what it means: the one list that the enum and code_name() are made
// from (a code is added here only).
#define SPARKSAVE_ERROR_CODES(X)                                                                   \
    X(io_error, "the file could not be read or written")                                           \
    X(too_large, "the input is larger than any save this format allows")                           \
    X(unknown_format, "no known format recognises the content")                                    \
    X(truncated, "the data ends inside a field")                                                   \
    X(bad_magic, "the signature is not the format's")                                              \
    X(unsupported_version, "a version this reader does not know")                                  \
    X(damaged_version, "the version field was corrupted (formats/README.md §1.5)")                 \
    X(checksum_mismatch, "a stored checksum disagrees with the bytes")                             \
    X(trailing_bytes, "bytes after the end of the data")                                           \
    X(limit_exceeded, "a count or length above the format's limit")                                \
    X(bad_metadata, "the metadata block breaks its grammar")                                       \
    X(duplicate_component, "the same component type twice in one entity")                          \
    X(duplicate_key, "the same key twice in one map")                                              \
    X(name_component, "an explicit NameComponent record")                                          \
    X(bad_parent, "a Transform parent that is not a valid entity index")                           \
    X(needs_migration, "the current engine refuses this version")                                  \
    X(bad_value, "a value that does not fit its type")                                             \
    X(bad_json, "JSON that is not a valid dump")                                                   \
    X(bad_usage, "a request the library cannot honour (bad path, bad option)")                     \
    X(internal, "a bug: please report it")                                                         \
    X(dropped_pairs, "custom-state pairs the engine silently drops (formats/README.md §1.4)")      \
    X(bad_syntax, "a text line that breaks the grammar (braces, commas, line shape)")              \
    X(bad_indent, "text indentation that is not the nesting depth")                                \
    X(multiline_value, "a value the writer spread over several lines (formats/README.md §2)")      \
    X(count_mismatch, "a declared element count that disagrees with the elements present")         \
    X(name_cut, "a name the engine reads only up to its first " : " (formats/README.md §2)")       \
    X(marker_in_value, "the attribute marker __PGSA inside a value (formats/README.md §2)")        \
    X(type_alias, "a type name the engine accepts only as an alias of another")                    \
    X(unknown_type, "a type name no standard reader of the engine accepts")                        \
    X(bad_escape, "a v2 spark-kv escape the engine refuses the store for (formats/README.md §3)")  \
    X(missing_tab,                                                                                 \
      "a spark-kv line without a TAB, which the engine refuses (formats/README.md §3)")            \
    X(carriage_return, "a CR ending a spark-kv line: the builds differ (formats/README.md §3)")    \
    X(placeholder_token,                                                                           \
      "an unsubstituted %N / ?N query token in a key or value (formats/README.md §3)")             \
    X(record_shape,                                                                                \
      "an MMO record that does not have its documented shape (formats/README.md §3)")              \
    X(bad_descriptor,                                                                              \
      "a bad tess field descriptor: kind, width, repeated id (formats/README.md §4.3)")            \
    X(bad_chunk,                                                                                   \
      "a tess chunk key out of range or order, a missing chunk (formats/README.md §4.3)")          \
    X(size_mismatch, "declared sizes that do not add up (tess records)")

enum class ErrorCode : std::uint16_t {
#define SPARKSAVE_ERROR_CODE_ENUM(name, meaning) name,
    SPARKSAVE_ERROR_CODES(SPARKSAVE_ERROR_CODE_ENUM)
#undef SPARKSAVE_ERROR_CODE_ENUM
};

SPARKSAVE_API std::string_view code_name(ErrorCode code) noexcept;

// sparksave-verify(1) SEVERITY: an error fails the file (the engine refuses it or misreads it); a
// warning is a risk (--strict fails the file); a note is a difference from the engine's writer that
// its reader tolerates with no effect, and never fails a file.
enum class Severity : std::uint8_t { warning, error, note };

SPARKSAVE_API std::string_view severity_name(Severity severity) noexcept;

inline constexpr std::uint64_t k_no_offset = ~std::uint64_t{0};

// One problem found in a file: where (byte offset or line:column, and the node path), what
// (a stable code) and a message that says what was expected and what was found. Text taken
// from the file is already escaped in `message`, so it is safe to print.
struct Error {
    ErrorCode code = ErrorCode::internal;
    Severity severity = Severity::error;
    std::uint64_t offset = k_no_offset; // byte offset, when the format is binary
    std::uint32_t line = 0;             // 1-based line:column, when the format is text
    std::uint32_t column = 0;
    std::string path;    // node path (sparksave(1) NODE PATHS), empty when not in a node
    std::string message; // what was expected, what was found (and the context, as printed)
    // Where the rule itself lies in `message`, for a message that says more than its rule: a
    // migration's refusal puts its context first ("the v4 rules refuse the result of step X: "),
    // a warning of an older version's rule its consequence after it (" (the v2 reader keeps the
    // last one; ...)"). rule() is that part alone; by default the whole message.
    std::uint32_t rule_begin = 0;
    std::uint32_t rule_end = k_rule_to_end;
    static constexpr std::uint32_t k_rule_to_end = 0xffffffff;

    bool has_offset() const noexcept { return offset != k_no_offset; }
    std::string_view rule() const noexcept {
        const std::string_view m = message;
        const std::size_t begin = rule_begin < m.size() ? rule_begin : m.size();
        if (rule_end == k_rule_to_end) return m.substr(begin);
        return m.substr(begin, rule_end > begin ? rule_end - begin : 0);
    }
    // "at offset 0x1a4 (420), entities[3].Transform.parent: expected ..., found ..."
    SPARKSAVE_API std::string describe() const;
};

SPARKSAVE_API Error make_error(ErrorCode code, std::string message,
                               std::uint64_t offset = k_no_offset, std::string path = {});

// Findings of one read: every error, warning and note, in the order they were found. Bounded (the
// first k_max_kept of each severity are kept, the rest only counted) so a hostile file with
// millions of duplicates cannot make the list grow without limit.
class SPARKSAVE_API Findings {
  public:
    static constexpr std::size_t k_max_kept = 1000;

    void add(Error finding);
    const std::vector<Error>& items() const noexcept { return items_; }
    std::size_t error_count() const noexcept { return errors_; }
    std::size_t warning_count() const noexcept { return warnings_; }
    std::size_t note_count() const noexcept { return notes_; }
    // The findings of this severity so far (kept or not).
    std::size_t count(Severity severity) const noexcept;
    std::size_t dropped() const noexcept { return dropped_; }
    bool has_errors() const noexcept { return errors_ != 0; }
    // The first error, or nullptr.
    const Error* first_error() const noexcept;

  private:
    std::vector<Error> items_;
    std::size_t errors_ = 0;
    std::size_t warnings_ = 0;
    std::size_t notes_ = 0;
    std::size_t dropped_ = 0;
};

// A value or an Error, shaped like std::expected<T, Error>.
//
// value() (and *, ->) on a Result that holds an error is a bug of the caller: it does not throw
// std::bad_variant_access but calls bad_result_access(), which writes the error's describe() to
// standard error and aborts. Check has_value() first, or use value_or / error_or.
template <class T> class Result;

// Writes "sparksave: value() of a Result holding an error: <describe()>" to standard error and
// aborts (std::abort). Never returns.
[[noreturn]] SPARKSAVE_API void bad_result_access(const Error& error) noexcept;

namespace detail {
template <class R> struct IsResult : std::false_type {};
template <class U> struct IsResult<Result<U>> : std::true_type {};
} // namespace detail

template <class T> class [[nodiscard]] Result {
  public:
    using value_type = T;

    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

    bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }
    // The value; on an error: bad_result_access (see above).
    T& value() & {
        check();
        return *std::get_if<0>(&v_);
    }
    const T& value() const& {
        check();
        return *std::get_if<0>(&v_);
    }
    T&& value() && {
        check();
        return std::move(*std::get_if<0>(&v_));
    }
    // The error; on a value: bad_result_access with an internal error.
    const Error& error() const& {
        check_error();
        return *std::get_if<1>(&v_);
    }
    Error&& error() && {
        check_error();
        return std::move(*std::get_if<1>(&v_));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    // The value, or `fallback` when this holds an error.
    template <class U> T value_or(U&& fallback) const& {
        return has_value() ? *std::get_if<0>(&v_) : static_cast<T>(std::forward<U>(fallback));
    }
    template <class U> T value_or(U&& fallback) && {
        return has_value() ? std::move(*std::get_if<0>(&v_))
                           : static_cast<T>(std::forward<U>(fallback));
    }
    // The error, or `fallback` when this holds a value.
    Error error_or(Error fallback) const& {
        return has_value() ? std::move(fallback) : *std::get_if<1>(&v_);
    }
    // f(value) -> Result<U>: its result, or this error unchanged.
    template <class F> auto and_then(F&& f) const& {
        using R = std::invoke_result_t<F, const T&>;
        static_assert(detail::IsResult<R>::value, "and_then: f must return a Result");
        if (!has_value()) return R(*std::get_if<1>(&v_));
        return std::invoke(std::forward<F>(f), *std::get_if<0>(&v_));
    }
    template <class F> auto and_then(F&& f) && {
        using R = std::invoke_result_t<F, T&&>;
        static_assert(detail::IsResult<R>::value, "and_then: f must return a Result");
        if (!has_value()) return R(std::move(*std::get_if<1>(&v_)));
        return std::invoke(std::forward<F>(f), std::move(*std::get_if<0>(&v_)));
    }
    // f(value) -> U: Result<U> holding it, or this error unchanged.
    template <class F> auto transform(F&& f) const& {
        using U = std::remove_cvref_t<std::invoke_result_t<F, const T&>>;
        if (!has_value()) return Result<U>(*std::get_if<1>(&v_));
        if constexpr (std::is_void_v<U>) {
            std::invoke(std::forward<F>(f), *std::get_if<0>(&v_));
            return Result<U>();
        } else {
            return Result<U>(std::invoke(std::forward<F>(f), *std::get_if<0>(&v_)));
        }
    }
    template <class F> auto transform(F&& f) && {
        using U = std::remove_cvref_t<std::invoke_result_t<F, T&&>>;
        if (!has_value()) return Result<U>(std::move(*std::get_if<1>(&v_)));
        if constexpr (std::is_void_v<U>) {
            std::invoke(std::forward<F>(f), std::move(*std::get_if<0>(&v_)));
            return Result<U>();
        } else {
            return Result<U>(std::invoke(std::forward<F>(f), std::move(*std::get_if<0>(&v_))));
        }
    }

  private:
    void check() const noexcept {
        if (const Error* e = std::get_if<1>(&v_)) bad_result_access(*e);
    }
    void check_error() const noexcept;
    std::variant<T, Error> v_;
};

// Result<void>: success or an Error. A success holds no Error (an empty optional): returned
// once a field on the readers' paths, it costs a flag, not an Error's strings made and freed.
template <> class [[nodiscard]] Result<void> {
  public:
    using value_type = void;

    Result() = default;
    Result(Error error) : error_(std::move(error)) {}
    bool has_value() const noexcept { return !error_; }
    explicit operator bool() const noexcept { return !error_; }
    // Does nothing on success; on an error: bad_result_access.
    void value() const noexcept {
        if (error_) bad_result_access(*error_);
    }
    // The error (an internal error "no error" on success).
    const Error& error() const& { return error_ ? *error_ : no_error(); }
    Error&& error() && {
        if (!error_) error_ = no_error();
        return std::move(*error_);
    }
    // The error, or `fallback` on success.
    Error error_or(Error fallback) const& { return error_ ? *error_ : std::move(fallback); }
    // f() -> Result<U>: its result, or this error unchanged.
    template <class F> auto and_then(F&& f) const {
        using R = std::invoke_result_t<F>;
        static_assert(detail::IsResult<R>::value, "and_then: f must return a Result");
        if (error_) return R(*error_);
        return std::invoke(std::forward<F>(f));
    }
    // f() -> U: Result<U> holding it, or this error unchanged.
    template <class F> auto transform(F&& f) const {
        using U = std::remove_cvref_t<std::invoke_result_t<F>>;
        if (error_) return Result<U>(*error_);
        if constexpr (std::is_void_v<U>) {
            std::invoke(std::forward<F>(f));
            return Result<U>();
        } else {
            return Result<U>(std::invoke(std::forward<F>(f)));
        }
    }

  private:
    static const Error& no_error() {
        static const Error e{ErrorCode::internal, Severity::error, k_no_offset, 0, 0, {},
                             "no error"};
        return e;
    }
    std::optional<Error> error_;
};

template <class T> void Result<T>::check_error() const noexcept {
    if (std::get_if<1>(&v_) == nullptr)
        bad_result_access(Error{ErrorCode::internal,
                                Severity::error,
                                k_no_offset,
                                0,
                                0,
                                {},
                                "error() of a Result holding a value"});
}

SPARKSAVE_END_NAMESPACE
