// Errors as values: the stable error codes, a finding (an error or a warning with its place in
// the file), and Result<T>, a small std::expected-shaped type (C++20 has no std::expected).
// Parsing hostile input is expected, not exceptional: readers return these, never throw.
#pragma once

#include "sparksave/version.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace sparksave {

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
    X(damaged_version, "the version field was corrupted (FORMATS.md 1.5)")                         \
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
    X(dropped_pairs, "custom-state pairs the engine silently drops (FORMATS.md 1.4)")              \
    X(bad_syntax, "a text line that breaks the grammar (braces, commas, line shape)")              \
    X(bad_indent, "text indentation that is not the nesting depth")                                \
    X(multiline_value, "a value the writer spread over several lines (FORMATS.md 2)")              \
    X(count_mismatch, "a declared element count that disagrees with the elements present")         \
    X(name_cut, "a name the engine reads only up to its first " : " (FORMATS.md 2)")               \
    X(marker_in_value, "the attribute marker __PGSA inside a value (FORMATS.md 2)")                \
    X(type_alias, "a type name the engine accepts only as an alias of another")                    \
    X(unknown_type, "a type name no standard reader of the engine accepts")                        \
    X(bad_escape, "a v2 spark-kv backslash the engine keeps verbatim (FORMATS.md 3)")              \
    X(missing_tab, "a spark-kv line without a TAB: the engine skips it (FORMATS.md 3)")            \
    X(carriage_return, "a CR inside a spark-kv key or value (FORMATS.md 3)")                       \
    X(placeholder_token, "an unsubstituted %N / ?N query token in a key or value (FORMATS.md 3)")  \
    X(record_shape, "an MMO record that does not have its documented shape (FORMATS.md 3)")        \
    X(bad_descriptor, "a bad tess field descriptor: kind, width, repeated id (FORMATS.md 4.3)")    \
    X(bad_chunk, "a tess chunk key out of range or order, a missing chunk (FORMATS.md 4.3)")       \
    X(size_mismatch, "declared sizes that do not add up (tess records)")

enum class ErrorCode : std::uint16_t {
#define SPARKSAVE_ERROR_CODE_ENUM(name, meaning) name,
    SPARKSAVE_ERROR_CODES(SPARKSAVE_ERROR_CODE_ENUM)
#undef SPARKSAVE_ERROR_CODE_ENUM
};

std::string_view code_name(ErrorCode code) noexcept;

// CLI.md "Severity": an error fails the file (the engine refuses it or misreads it); a warning is
// a risk (--strict fails the file); a note is a difference from the engine's writer that its
// reader tolerates with no effect, and never fails a file.
enum class Severity : std::uint8_t { warning, error, note };

std::string_view severity_name(Severity severity) noexcept;

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
    std::string path;    // node path (docs: CLI.md "Node paths"), empty when not in a node
    std::string message; // what was expected, what was found

    bool has_offset() const noexcept { return offset != k_no_offset; }
    // "at offset 0x1a4 (420), entities[3].Transform.parent: expected ..., found ..."
    std::string describe() const;
};

using Finding = Error;

Error make_error(ErrorCode code, std::string message, std::uint64_t offset = k_no_offset,
                 std::string path = {});

// Findings of one read: every error, warning and note, in the order they were found. Bounded (the
// first k_max_kept of each severity are kept, the rest only counted) so a hostile file with
// millions of duplicates cannot make the list grow without limit.
class Findings {
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
template <class T> class [[nodiscard]] Result {
  public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

    bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    const Error& error() const& { return std::get<1>(v_); }
    Error&& error() && { return std::get<1>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

  private:
    std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
template <> class [[nodiscard]] Result<void> {
  public:
    Result() = default;
    Result(Error error) : error_(std::move(error)), failed_(true) {}
    bool has_value() const noexcept { return !failed_; }
    explicit operator bool() const noexcept { return !failed_; }
    const Error& error() const& { return error_; }
    Error&& error() && { return std::move(error_); }

  private:
    Error error_;
    bool failed_ = false;
};

} // namespace sparksave
