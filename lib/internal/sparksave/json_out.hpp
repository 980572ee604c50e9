// Internal helpers for writing JSON: byte strings that stay lossless.
#pragma once

#include "sparksave/version.hpp"

#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

class JsonWriter;

// The start of every format's dump (`dump --json`, sparksave-dump(1)): opens the root object, one
// member a line, and writes its first members, "schemaVersion" (version.hpp
// k_json_schema_version) and "format" (the format's name); the format's members follow.
void begin_dump(JsonWriter& w, std::string_view format);

// Appends `bytes` as a JSON string when it is valid UTF-8, else as {"base64": "..."} so that
// no byte is lost (the lossless-dump convention of every format).
void append_json_bytes(std::string& out, std::string_view bytes);

std::string base64_encode(std::string_view bytes);
// Decodes standard base64 (with padding); false on a malformed input.
bool base64_decode(std::string_view text, std::string& out);
// Appends the bytes of a string of hex digit pairs (either case); false on a malformed input.
bool hex_decode(std::string_view text, std::string& out);

// The last member of the dump of a file whose read stopped part-way (Document::complete()):
// `pack` refuses such a dump. A complete dump has no "complete" member.
inline constexpr std::string_view k_json_incomplete = ",\n  \"complete\": false";

// Appends `depth` levels of two-space indentation.
inline void indent(std::string& out, int depth) {
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
}

SPARKSAVE_END_NAMESPACE
