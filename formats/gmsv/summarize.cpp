// `info` and `verify` for GMSV saves: every check of the reader, no tree; the version, the time
// and the entities for people.
#include "reader.hpp"

#include "api.hpp"
#include "common/summarize.hpp"
#include "sparksave/version.hpp"

#include <unordered_map>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

class SummarySink : public SinkDefaults {
  public:
    void on_header(std::uint32_t, std::int64_t timestamp) { timestamp_ = timestamp; }
    void on_entity(std::string_view, std::size_t) { ++entities_; }
    void on_component(std::uint16_t type, std::string_view data, std::size_t, std::size_t) {
        ++components_;
        ++(is_json_payload(data) ? json_ : binary_);
        ++types_[type];
    }
    void on_trailing(std::string_view bytes, std::size_t) { trailing_ = bytes.size(); }

    void finish(Summary& s) const {
        if (timestamp_) {
            const DotNetTime time = from_binary(*timestamp_);
            // The keys of a spark_save summary where they mean the same (info's directory table).
            s.metadata.push_back(
                {"timestamp", "saved at",
                 time.valid ? iso8601(time) : fmt::format("invalid ({} ticks)", time.ticks),
                 false});
            s.metadata.push_back(
                {"timeKind", "time kind", std::string(kind_name(time.kind)), false});
            s.metadata.push_back({"timestampBinary", "", fmt::format("{}", *timestamp_), true});
        }
        s.counts.push_back({"entities", "entities", fmt::format("{}", entities_), true});
        s.counts.push_back({"components", "components", fmt::format("{}", components_), true});
        s.counts.push_back({"jsonData", "JSON data", fmt::format("{}", json_), true});
        s.counts.push_back({"binaryData", "binary data", fmt::format("{}", binary_), true});
        if (trailing_)
            s.counts.push_back({"trailingBytes", "trailing", fmt::format("{}", trailing_), true});
        // Most common first; ties by type id.
        std::vector<std::pair<std::uint16_t, std::uint64_t>> types(types_.begin(), types_.end());
        std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        if (types.size() > 8) types.resize(8);
        for (const auto& [type, n] : types) s.common_types.emplace_back(component_name(type), n);
    }

  private:
    std::optional<std::int64_t> timestamp_;
    std::uint64_t entities_ = 0, components_ = 0, json_ = 0, binary_ = 0, trailing_ = 0;
    std::unordered_map<std::uint16_t, std::uint64_t> types_;
};

} // namespace

Summary summarize(std::string_view bytes) {
    return summarize_with<Reader, SummarySink>(
        FormatId::gmsv, bytes, [&](const auto& reader, bool /*ran*/, Summary& s) {
            s.version = reader.version();
            s.version_known = reader.version_known();
            s.checksum = reader.stored_crc();
            s.integrity = !reader.crc_checked() ? Integrity::unknown
                          : reader.crc_ok()     ? Integrity::verified
                                                : Integrity::mismatch;
            if (s.findings.has_errors()) {
                s.engine_loads = false;
                s.engine_note = s.engine_verdict = "refuses it: the file is invalid";
            } else if (s.version < k_current_version) {
                s.engine_loads = true;
                s.engine_verdict = "loads it";
                s.engine_note = fmt::format(
                    "loads it (the design's VersionMigrator upgrades v{} to v3 in memory)",
                    s.version);
            } else {
                s.engine_loads = true;
                s.engine_note = s.engine_verdict = "loads it";
            }
        });
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
