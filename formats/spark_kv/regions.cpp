// The byte map of a spark-kv store (sparksave/regions.hpp): the reader's events (reader.hpp), the
// marker line, each record's raw key, TAB and raw value, each line without a TAB, under the node
// paths of the tree read.cpp builds (a record by its key as the engine reads it, a line without a
// TAB by its index); line feeds are whitespace.
#include "api.hpp"
#include "reader.hpp"

#include "sparksave/region_emitter.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

namespace {

class RegionsSink : public SinkDefaults {
  public:
    explicit RegionsSink(RegionEmitter& e) : e_(e) {}

    void on_start(std::uint32_t version, std::size_t offset) {
        if (version == k_version_v2 && offset > 0)
            e_.text(e_.data().substr(0, k_marker.size()), "", Role::magic, "");
    }

    void on_record(const RecordEvent& e) {
        path_.assign(k_records);
        records_.append(path_, e.key);
        const std::size_t tab = e.value_offset - e.offset - 1;
        e_.text(e.raw.substr(0, tab), path_, Role::name, k_records);
        e_.between(e.value_offset, path_);
        e_.text(e.raw.substr(tab + 1), path_, Role::string, path_);
        e_.between(e.offset + e.raw.size(), path_);
    }

    void on_no_tab(const LineEvent& l) {
        path_.assign(k_records);
        records_.append_index(path_);
        append_path_name(path_, k_text);
        e_.text(l.text, path_, Role::string, k_records);
    }

    // After a read to the end: the last line feeds.
    void finish() { e_.between(e_.data().size(), k_records); }

  private:
    RegionEmitter& e_;
    std::string path_;
    ChildSteps records_;
};

} // namespace

Findings regions(std::string_view bytes, const RegionSink& sink) {
    RegionEmitter e(bytes, sink);
    RegionsSink regions(e);
    Findings findings;
    Reader<RegionsSink> reader(bytes, findings, regions);
    if (reader.run()) regions.finish();
    return findings;
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
