// Helpers every format's reader and writer share, written once: the counted nouns and file
// excerpts of messages (sparksave-verify(1) SEVERITY: messages say expected vs found) and the
// places and builders of findings (at a byte offset in a binary file, at line:column in a text
// file).
#pragma once

#include "sparksave/error.hpp"
#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE

// "1 byte", "2 bytes".
std::string byte_count(std::uint64_t n);

// File text for a message: escaped, quoted, cut after `max` bytes (then "..." follows).
std::string excerpt(std::string_view text, std::size_t max = 48);

// A place in a text file, 1-based; the column counts bytes.
struct Pos {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
};

// A finding at byte `offset` (and node `path`) of a binary file.
inline void add_at(Findings& findings, Severity severity, ErrorCode code, std::size_t offset,
                   std::string path, std::string message) {
    findings.add(Error{code, severity, offset, 0, 0, std::move(path), std::move(message)});
}

// A warning of a rule an older version's reader tolerated: the rule, then in brackets what that
// reader does and what follows (Error::rule() is the rule alone).
inline void add_with_consequence(Findings& findings, Severity severity, ErrorCode code,
                                 std::size_t offset, std::string path, std::string rule,
                                 std::string_view consequence) {
    Error e{code, severity, offset, 0, 0, std::move(path), std::move(rule)};
    e.rule_end = static_cast<std::uint32_t>(e.message.size());
    e.message.append(" (").append(consequence).append(")");
    findings.add(std::move(e));
}

// A finding at line:column `pos` (and node `path`) of a text file.
inline void add_at(Findings& findings, Severity severity, ErrorCode code, Pos pos, std::string path,
                   std::string message) {
    findings.add(Error{code, severity, k_no_offset, pos.line, pos.column, std::move(path),
                       std::move(message)});
}

SPARKSAVE_END_NAMESPACE
