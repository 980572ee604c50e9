// The format table: every format sparksave reads, in detection order (README "How it is built":
// an explicit table, not self-registering statics). Each format exports its row
// (formats/<name>/format.cpp) and its JSON row (json.cpp; formats/registry_json.cpp, a table
// apart, so that an engine links no JSON code). Both tables list the formats of SPARKSAVE_FORMATS
// in detection order (CMakeLists.txt, the generated sparksave_format_rows.hpp).
#include "sparksave_format_rows.hpp"

#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <algorithm>

SPARKSAVE_BEGIN_NAMESPACE

std::span<const FormatInfo> format_table() noexcept {
    // In detection order (sparksave_format_rows.hpp).
#define SPARKSAVE_FORMAT_ROW(name) name::k_format,
    static const FormatInfo k_formats[] = {SPARKSAVE_FORMAT_ROWS(SPARKSAVE_FORMAT_ROW)};
#undef SPARKSAVE_FORMAT_ROW
    return k_formats;
}

std::vector<std::pair<std::string, std::uint64_t>>
most_common(std::vector<std::pair<std::string, std::uint64_t>> counts, std::size_t most) {
    std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (counts.size() > most) counts.resize(most);
    return counts;
}

SPARKSAVE_END_NAMESPACE
