// `info` and `verify` for `.spark_save`: every check of the reader, no tree; counts and the
// save's own description for people.
#include "reader.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"
#include "text_util.hpp"

#include <algorithm>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

class SummarySink : public SinkDefaults {
  public:
    explicit SummarySink(Summary& s) : s_(s) {}

    void on_header(std::uint32_t version) {
        s_.version = version;
        s_.version_known = true;
    }
    void on_metadata(std::string_view, std::size_t, const MetadataBlock& meta) { meta_ = meta; }
    void on_entity(std::string_view, std::size_t, std::uint32_t) { ++entities_; }
    void on_component(std::string_view type, std::size_t) {
        ++components_;
        count_type(type);
    }
    void on_property(std::string_view, std::string_view, std::size_t, std::size_t) {
        ++properties_;
    }
    void on_pair(std::string_view, std::string_view, std::size_t, std::size_t) { ++pairs_; }
    void on_trailing(std::string_view bytes, std::size_t) { trailing_ += bytes.size(); }
    void on_checksum(std::uint32_t stored, std::size_t) { s_.checksum = stored; }

    void finish() {
        // The fields of k_meta_fields the block has, as the engine reads them (1.2): `.5` is
        // 0.5, `007` is 7; a multi-part field (position) once, its parts joined by spaces.
        for (std::size_t i = 0; i < meta_.count; ++i) {
            const MetaField& f = meta_.fields[i];
            const MetaFieldSpec& spec = k_meta_fields[f.spec];
            const std::string key(spec.name), label(spec.label);
            if (f.in_position) {
                std::string text = engine_value(f);
                for (; i + 1 < meta_.count && meta_.fields[i + 1].spec == f.spec; ++i)
                    text += ' ' + engine_value(meta_.fields[i + 1]);
                s_.metadata.push_back({key, label, text, false});
                continue;
            }
            const std::string value = engine_value(f);
            switch (spec.shown) {
            case Shown::unix_time:
                s_.metadata.push_back({key, label, iso8601_utc(value), false});
                break;
            case Shown::duration:
                s_.metadata.push_back({key, label, hours_minutes_seconds(value), false});
                break;
            case Shown::as_read:
                s_.metadata.push_back({key, label, value, f.type != ValueType::string && f.read});
                break;
            }
            if (spec.shown != Shown::as_read && f.read)
                s_.metadata.push_back({std::string(spec.raw_key), "", value, true});
        }
        s_.counts = {
            {"entities", "entities", std::to_string(entities_), true},
            {"components", "components", std::to_string(components_), true},
            {"properties", "properties", std::to_string(properties_), true},
            {"customState", "custom state", std::to_string(pairs_), true},
        };
        if (trailing_)
            s_.counts.push_back(
                {"trailingBytes", "trailing bytes", std::to_string(trailing_), true});
        std::vector<std::pair<std::string, std::uint64_t>> types;
        for (const auto& t : few_types_) types.emplace_back(std::string(t.type), t.count);
        for (auto& [type, n] : types_) types.emplace_back(std::string(type), n);
        s_.common_types = most_common(std::move(types));
    }

  private:
    // Saves have a few dozen component types: a short list of fingerprints beats hashing every
    // component's type; past k_few the rest go to a hash map.
    void count_type(std::string_view type) {
        const std::uint64_t f = fingerprint(type);
        for (auto& t : few_types_) {
            if (t.fingerprint == f && t.type == type) {
                ++t.count;
                return;
            }
        }
        if (few_types_.size() < k_few) {
            few_types_.push_back({f, type, 1});
            return;
        }
        ++types_[type];
    }

    Summary& s_;
    MetadataBlock meta_;
    std::uint64_t entities_ = 0, components_ = 0, properties_ = 0, pairs_ = 0, trailing_ = 0;
    struct TypeCount {
        std::uint64_t fingerprint;
        std::string_view type;
        std::uint64_t count;
    };
    static constexpr std::size_t k_few = 64;
    std::vector<TypeCount> few_types_;
    std::unordered_map<std::string_view, std::uint64_t> types_;
};

} // namespace

Summary summarize(std::string_view bytes) {
    Summary s;
    std::size_t misreads = 0;
    read_with_crc(
        crc_alongside(bytes), [bytes] { return whole_crc(bytes); },
        [&](const CrcHint& crc) {
            s = Summary{};
            s.format = FormatId::spark_save;
            s.size = bytes.size();
            SummarySink sink(s);
            Reader<SummarySink> reader(bytes, s.findings, sink, true, crc);
            reader.run();
            if (reader.needs_rerun()) return false; // damaged: read again, knowing the CRC
            sink.finish();
            misreads = reader.misreads();
            return true;
        });
    if (!s.version_known && bytes.size() >= 8 && bytes.starts_with(k_magic)) {
        s.version = load_u32(bytes, 4);
        s.version_known = true;
    }
    bool checksum_problem = false;
    for (const auto& f : s.findings.items())
        if (f.code == ErrorCode::checksum_mismatch || f.code == ErrorCode::damaged_version)
            checksum_problem = true;
    if (s.version == k_current_version || checksum_problem)
        s.integrity = checksum_problem ? Integrity::mismatch
                      : s.checksum     ? Integrity::verified
                                       : Integrity::unknown;
    else
        s.integrity = Integrity::none;
    // sparksave-verify(1) SEVERITY: errors are refusals, except misreadings of a file the engine
    // loads.
    if (s.findings.error_count() > misreads) {
        s.engine_loads = false;
        s.engine_note = "refuses it: the file is invalid";
        s.engine_verdict = s.engine_note;
    } else if (s.version < k_oldest_loadable) {
        s.engine_loads = false;
        s.engine_verdict = "needs migration";
        s.engine_note = s.engine_verdict + " (the current engine loads v3 and v4 only)";
    } else {
        s.engine_loads = true;
        s.engine_note = s.version == k_current_version
                            ? "loads it"
                            : "loads it (and upgrades it to v4 in memory)";
        s.engine_verdict = "loads it";
        if (misreads) {
            s.engine_note += ", but misreads it: metadata fields shifted off their lines";
            s.engine_verdict += ", but misreads it";
        }
    }
    return s;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
