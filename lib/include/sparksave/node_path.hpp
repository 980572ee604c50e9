// Node paths: the one syntax used by `dump --select`, error messages, diff output, `--ignore`
// and migration reports (sparksave(1) NODE PATHS).
//
//   metadata.saveName                   a child by name
//   entities[3]                         a child by index
//   entities[name=legacy-player]        the first child whose name is legacy-player
//   customState["quest.main.stage"]     a name quoted because it has characters other than
//                                       [A-Za-z0-9_-]; escapes: \" \\ \n \t \r \0 \xNN \u{H..}
//   entities[*].Transform.**            patterns (--ignore): * one step, ** any number of steps
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/document.hpp"
#include "sparksave/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

struct PathStep {
    static constexpr std::uint64_t k_no_position = ~std::uint64_t{0};
    enum class Kind : std::uint8_t { name, index, name_match, any_one, any_depth };
    Kind kind = Kind::name;
    std::string text;        // name or name_match value
    std::uint64_t index = 0; // index
    // A concrete path may know both ways of naming the child (diff sets them): a name step its
    // index under the parent, an index step the child's name (empty: unnamed). They are not
    // printed; path_matches() uses them, so `entities[3]` and `entities[name=orc]` both match
    // the one entity whichever way the path shows it.
    std::uint64_t position = k_no_position; // name / name_match steps
    std::string known_name;                 // index steps
    bool operator==(const PathStep&) const = default;
};

class NodePath {
  public:
    std::vector<PathStep> steps;

    NodePath& name(std::string_view text);
    NodePath& index(std::uint64_t i);
    NodePath& name_match(std::string_view text);
    bool empty() const noexcept { return steps.empty(); }
    bool operator==(const NodePath&) const = default;

    // The printed form; parse(str()) gives the same path back.
    std::string str() const;
    static Result<NodePath> parse(std::string_view text);
};

// The characters of a bare name: ASCII letters, digits, `_` and `-`.
constexpr bool is_bare_char(char c) noexcept {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}
// True when `name` can be written bare (`.name`) rather than quoted (`["name"]`). Inline: the
// text dump asks it of every property key.
inline bool is_bare_name(std::string_view name) noexcept {
    bool bare = !name.empty();
    for (const char c : name) bare &= is_bare_char(c);
    return bare;
}
// Appends one name step: `.name` (no dot when first) or `["escaped name"]`.
void append_path_name(std::string& out, std::string_view name);
// Appends `[i]`.
void append_path_index(std::string& out, std::uint64_t i);

// The node a path names (patterns are refused). The error names the first step that matched
// nothing.
Result<NodeId> resolve(const Document& doc, const NodePath& path);

// The path of `target` in `doc`, found by walking from the root (O(nodes); for messages).
// Children of a list are printed by index, other children by name.
std::string path_of(const Document& doc, NodeId target);

// Whether a concrete path matches a pattern with `*` (one step) and `**` (zero or more steps).
// `*` matches any one step; a name step `x` and `[name=x]` match each other; an index pattern
// `[3]` matches a name step whose position is 3, a name pattern an index step of that known name.
bool path_matches(const NodePath& pattern, const NodePath& path);

SPARKSAVE_END_NAMESPACE
