// The format table: every format sparksave reads, in detection order (README "How it is built":
// an explicit table, not self-registering statics). Each format exports its row
// (formats/<name>/format.cpp); adding a format means adding its row here, and its JSON row in
// formats/registry_json.cpp (a table apart, so that an engine links no JSON code). A build lists
// only the formats of SPARKSAVE_FORMATS (CMakeLists.txt, the generated sparksave_formats.hpp).
#include "sparksave_formats.hpp"

#if SPARKSAVE_HAS_GMSV
#include "gmsv/api.hpp"
#endif
#if SPARKSAVE_HAS_SPARK_KV
#include "spark_kv/api.hpp"
#endif
#if SPARKSAVE_HAS_SPARK_SAVE
#include "spark_save/api.hpp"
#endif
#if SPARKSAVE_HAS_TESS_WORLD
#include "tess_world/api.hpp"
#endif
#if SPARKSAVE_HAS_TEXT_ARCHIVE
#include "text_archive/api.hpp"
#endif

#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <algorithm>

SPARKSAVE_BEGIN_NAMESPACE

std::span<const FormatInfo> format_table() noexcept {
    // Detection order: spark-kv's legacy stores have no signature (they are recognised by the
    // shape of every line of the head), so its row stays after every format that has a magic
    // number or a fixed first line.
    static const FormatInfo k_formats[] = {
#if SPARKSAVE_HAS_SPARK_SAVE
        spark_save::k_format,
#endif
#if SPARKSAVE_HAS_TEXT_ARCHIVE
        text_archive::k_format,
#endif
#if SPARKSAVE_HAS_TESS_WORLD
        tess_world::k_format,
#endif
#if SPARKSAVE_HAS_GMSV
        gmsv::k_format,
#endif
#if SPARKSAVE_HAS_SPARK_KV
        spark_kv::k_format,
#endif
    };
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
