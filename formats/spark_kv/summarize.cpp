// `info` and `verify` for spark-kv stores: every check of the reader, no tree; counts of
// records, distinct keys and skipped lines, the marker, and the most common key prefixes.
#include "reader.hpp"

#include "api.hpp"
#include "common/summarize.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

namespace {

// A key's prefix, what `info` groups records by: the key up to and including its first `_`,
// `.`, `:` or `/` that follows another character (`character_7` -> `character_`, `rep_3_12` ->
// `rep_`, `__schema_characters` -> `__schema_`); a key without one is its own prefix.
std::string_view key_prefix(std::string_view key) noexcept {
    bool seen_other = false;
    for (std::size_t i = 0; i < key.size(); ++i) {
        const char c = key[i];
        const bool separator = c == '_' || c == '.' || c == ':' || c == '/';
        if (separator && seen_other) return key.substr(0, i + 1);
        if (!separator) seen_other = true;
    }
    return key;
}

class SummarySink : public SinkDefaults {
  public:
    void on_start(std::uint32_t version, std::size_t) { version_ = version; }
    void on_record(const RecordEvent& e) {
        ++records_;
        if (e.repeated) ++repeats_;
        ++prefixes_[key_prefix(e.key)];
    }
    void on_no_tab(const LineEvent&) { ++skipped_; }

    void finish(Summary& s) const {
        s.version = version_;
        s.version_known = true;
        s.metadata.push_back(
            {"marker", "marker",
             version_ == k_version_v2 ? std::string(k_marker) : std::string("none (legacy store)"),
             false});
        s.counts = {
            {"records", "records", std::to_string(records_), true},
            {"keys", "unique keys", std::to_string(records_ - repeats_), true},
            {"noTabLines", "no-TAB lines", std::to_string(skipped_), true},
        };
        std::vector<std::pair<std::string, std::uint64_t>> prefixes;
        prefixes.reserve(prefixes_.size());
        for (const auto& [prefix, n] : prefixes_) prefixes.emplace_back(std::string(prefix), n);
        s.common_types = most_common(std::move(prefixes));
    }

  private:
    std::uint32_t version_ = k_version_legacy;
    std::uint64_t records_ = 0, repeats_ = 0, skipped_ = 0;
    // Views into the file or the reader's buffer: summarize() keeps the reader alive until
    // finish() has copied them.
    std::unordered_map<std::string_view, std::uint64_t> prefixes_;
};

} // namespace

Summary summarize(std::string_view bytes) {
    return summarize(bytes, k_store_budget);
}

Summary summarize(std::string_view bytes, std::uint64_t budget) {
    return summarize_with<Reader, SummarySink>(
        FormatId::spark_kv, bytes,
        [&](const auto& reader, bool ran, Summary& s) {
            s.integrity = Integrity::none; // formats/README.md §3: the format has no checksum
            // formats/README.md §3: the engine is fail-closed, so its verdict is the first line it
            // refuses (the reader keeps LoadFromDisk's reason); past sparksave's line limit it is
            // not known.
            if (!reader.refusal().empty()) {
                s.engine_loads = false;
                s.engine_verdict = "refuses it";
                s.engine_note =
                    fmt::format("refuses it: {} (LoadFromDisk), so the MMO server does not "
                                "start",
                                reader.refusal());
                bool repairable = s.version == k_version_legacy;
                for (const auto& f : s.findings.items())
                    if (f.severity == Severity::error && f.code != ErrorCode::truncated &&
                        f.code != ErrorCode::missing_tab && f.code != ErrorCode::duplicate_key)
                        repairable = false;
                if (repairable)
                    s.engine_note +=
                        "; `sparksave migrate` makes it a store the engine loads, holding "
                        "what the pre-marker reader (f3bb430d) read";
            } else if (!ran) {
                s.engine_loads = false;
                s.engine_note = s.engine_verdict = fmt::format(
                    "not checked: the store has more lines than sparksave reads ({})", k_max_lines);
            } else {
                s.engine_loads = true;
                s.engine_verdict = "loads it";
                s.engine_note =
                    s.version == k_version_v2
                        ? "loads it"
                        : "loads it (a legacy store: no escaping; `sparksave migrate` makes it v2)";
            }
        },
        budget);
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
