// The JSON rows (format.hpp FormatJson): each format's `dump --json` and `pack` functions, in the
// format table's order (formats/registry.cpp). A table apart from the format rows, in a file of
// its own, so that a link that does not call format_json() (an engine's, through
// sparksave/save_file.hpp) pulls in none of the JSON code: a static library's member is linked
// only when something references it. Each format defines its JSON row in its json.cpp (the unit
// test "every format has its JSON row" checks that each is listed).
#include "sparksave_format_rows.hpp"

#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

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

SPARKSAVE_END_NAMESPACE
