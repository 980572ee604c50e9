// `info` and `verify` for text archives: every check of the reader, no tree; counts of
// entries, classes and attributes by type.
#include "reader.hpp"

#include "api.hpp"
#include "common/summarize.hpp"
#include "sparksave/version.hpp"

#include <algorithm>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

namespace {

class SummarySink : public SinkDefaults {
  public:
    void on_version(std::string_view line, bool known) {
        version_line_ = line;
        known_ = known;
    }
    void on_attribute(const AttributeEvent& a) {
        ++attributes_;
        if (a.depth == 0) ++entries_;
        ++types_[a.type];
    }
    void on_class(const ClassEvent& c) {
        ++classes_;
        if (c.depth == 0) ++entries_;
    }

    void finish(Summary& s) const {
        s.version = k_current_version;
        s.version_known = known_;
        s.metadata.push_back({"versionLine", "version line", std::string(version_line_), false});
        s.counts = {
            {"entries", "entries", std::to_string(entries_), true},
            {"classes", "classes", std::to_string(classes_), true},
            {"attributes", "attributes", std::to_string(attributes_), true},
        };
        std::vector<std::pair<std::string, std::uint64_t>> types;
        types.reserve(types_.size());
        for (const auto& [type, n] : types_) types.emplace_back(std::string(type), n);
        s.common_types = most_common(std::move(types));
    }

  private:
    std::string_view version_line_;
    bool known_ = false;
    std::uint64_t entries_ = 0, classes_ = 0, attributes_ = 0;
    std::unordered_map<std::string_view, std::uint64_t> types_;
};

} // namespace

Summary summarize(std::string_view bytes) {
    return summarize_with<Reader, SummarySink>(
        FormatId::text_archive, bytes, [&](const auto& /*reader*/, bool /*ran*/, Summary& s) {
            s.integrity = Integrity::none; // formats/README.md §2: the format has no checksum
            // Summary::engine_loads: the engine's verdict (formats/README.md §2.1). It never
            // refuses an archive: it reads a wrong version line as an empty archive (every entry
            // lost), and reads anything else, perhaps misreading some entries (then errors say what
            // it reads).
            bool version_error = false, too_large = false;
            for (const auto& f : s.findings.items()) {
                if (f.code == ErrorCode::unsupported_version) version_error = true;
                if (f.code == ErrorCode::too_large) too_large = true;
            }
            if (version_error) {
                s.engine_loads = false;
                s.engine_verdict = "reads it as EMPTY: the version line is not 1.0.0";
                s.engine_note = s.engine_verdict + " (every entry is lost)";
            } else if (too_large) {
                s.engine_loads = false;
                s.engine_note = s.engine_verdict =
                    "not checked: the file is larger than any archive sparksave reads";
            } else if (s.findings.has_errors()) {
                s.engine_loads = true;
                s.engine_verdict = "loads it, but misreads it";
                s.engine_note = s.engine_verdict + " (see the errors)";
            } else {
                s.engine_loads = true;
                s.engine_note = s.engine_verdict = "loads it";
            }
        });
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
