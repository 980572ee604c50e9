// The JSON rows (format.hpp FormatJson): each format's `dump --json` and `pack` functions, in the
// format table's order (formats/registry.cpp). A table apart from the format rows, in a file of
// its own, so that a link that does not call format_json() (an engine's, through
// sparksave/save_file.hpp) pulls in none of the JSON code: a static library's member is linked
// only when something references it. Each format defines its JSON row in its json.cpp (the unit
// test "every format has its JSON row" checks that each is listed).
#include "sparksave_format_rows.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/format.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/version.hpp"

#include <optional>
#include <stdexcept>

SPARKSAVE_BEGIN_NAMESPACE

std::span<const FormatJson> format_json_table() noexcept {
#define SPARKSAVE_JSON_ROW(name) name::k_json,
    static const FormatJson k_json[] = {SPARKSAVE_FORMAT_ROWS(SPARKSAVE_JSON_ROW)};
#undef SPARKSAVE_JSON_ROW
    return k_json;
}

const FormatJson& format_json(FormatId id) {
    for (const auto& f : format_json_table())
        if (f.id == id) return f;
    throw std::logic_error("format not in the JSON table");
}

namespace {

// The format name when the text starts like a dump does: `{ "schemaVersion": <digits>,
// "format": "<plain name>"`, or without the schemaVersion (a dump written before it existed).
// The version itself is the format's reading to check (json_reader.hpp check_schema_version).
std::optional<std::string_view> leading_format(std::string_view t) {
    std::size_t i = 0;
    auto literal = [&](std::string_view s) {
        while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r')) ++i;
        if (t.substr(i, s.size()) != s) return false;
        i += s.size();
        return true;
    };
    if (!literal("{")) return std::nullopt;
    if (literal("\"schemaVersion\"")) {
        if (!literal(":")) return std::nullopt;
        const std::size_t digits = i;
        while (i < t.size() && i - digits < 20 && t[i] >= '0' && t[i] <= '9') ++i;
        if (i == digits || !literal(",")) return std::nullopt;
    }
    if (!literal("\"format\"") || !literal(":") || !literal("\"")) return std::nullopt;
    const std::size_t start = i;
    while (i < t.size() && i - start < 32 && ((t[i] >= 'a' && t[i] <= 'z') || t[i] == '_')) ++i;
    if (i >= t.size() || t[i] != '"') return std::nullopt;
    return t.substr(start, i - start);
}

} // namespace

Result<const FormatInfo*> dump_format(std::string_view json) {
    if (auto name = leading_format(json))
        if (const FormatInfo* format = format_by_name(*name)) return format;
    json::Reader reader(json);
    auto root = reader.validate();
    if (!root) return std::move(root).error();
    json::Value value;
    if (root->kind != json::Kind::object || !reader.find(*root, "format", value) ||
        value.kind != json::Kind::string)
        return reader.error_at(*root, "",
                               "expected a dump of `sparksave dump --json`: an object with a "
                               "\"format\" string");
    const std::string name = reader.decoded(value);
    if (const FormatInfo* format = format_by_name(name)) return format;
    return reader.error_at(value, "format",
                           "expected one of " + format_names() + ", found " + display(name, true));
}

SPARKSAVE_END_NAMESPACE
