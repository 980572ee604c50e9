// The JSON rows (format.hpp FormatJson): each format's `dump --json` and `pack` functions, in the
// format table's order (formats/registry.cpp). A table apart from the format rows, in a file of
// its own, so that a link that does not call format_json() (an engine's, through
// sparksave/save_file.hpp) pulls in none of the JSON code: a static library's member is linked
// only when something references it. Adding a format means adding its row here too (the unit
// test "every format has its JSON row" checks it).
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

#include <stdexcept>

SPARKSAVE_BEGIN_NAMESPACE

std::span<const FormatJson> format_json_table() noexcept {
    static const FormatJson k_json[] = {
#if SPARKSAVE_HAS_SPARK_SAVE
        {
            .id = FormatId::spark_save,
            .to_json = spark_save::to_json,
            .from_json = spark_save::from_json,
            .json_parts = spark_save::json_parts,
            .from_json_to = spark_save::from_json_to,
        },
#endif
#if SPARKSAVE_HAS_TEXT_ARCHIVE
        {
            .id = FormatId::text_archive,
            .to_json = text_archive::to_json,
            .from_json = text_archive::from_json,
        },
#endif
#if SPARKSAVE_HAS_TESS_WORLD
        {
            .id = FormatId::tess_world,
            .to_json = tess_world::to_json,
            .from_json = tess_world::from_json,
        },
#endif
#if SPARKSAVE_HAS_GMSV
        {
            .id = FormatId::gmsv,
            .to_json = gmsv::to_json,
            .from_json = gmsv::from_json,
        },
#endif
#if SPARKSAVE_HAS_SPARK_KV
        {
            .id = FormatId::spark_kv,
            .to_json = spark_kv::to_json,
            .from_json = spark_kv::from_json,
        },
#endif
    };
    return k_json;
}

const FormatJson& format_json(FormatId id) {
    for (const auto& f : format_json_table())
        if (f.id == id) return f;
    throw std::logic_error("format not in the JSON table");
}

SPARKSAVE_END_NAMESPACE
