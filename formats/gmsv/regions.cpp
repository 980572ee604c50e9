// The byte map of a GMSV save (sparksave/regions.hpp): the reader's events (reader.hpp), each
// field at its offset of spec.hpp (formats/README.md §5), under the node paths of the tree
// read.cpp builds.
#include "api.hpp"
#include "reader.hpp"

#include "sparksave/region_emitter.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

class RegionsSink : public SinkDefaults {
  public:
    explicit RegionsSink(RegionEmitter& e) : e_(e) {}

    void on_header(std::uint32_t version, std::int64_t timestamp) {
        e_.field(0, k_magic.size(), "", Role::magic, k_magic);
        e_.number(k_off_version, 2, "", Role::version, version);
        e_.field(k_off_timestamp, 8, k_timestamp, Role::number, fmt::format("{}", timestamp));
    }
    void on_entities_begin(std::uint32_t count, std::size_t offset) {
        e_.number(offset, 4, k_entities, Role::count, count);
    }
    void on_entity(std::string_view guid, std::size_t offset) {
        entity_.assign(k_entities);
        append_path_index(entity_, entities_++);
        components_.clear();
        e_.field(offset, k_guid_size, entity_, Role::name, guid_text(guid));
        e_.number(offset + k_guid_size, 2, entity_, Role::count,
                  boost::endian::load_little_u16(reinterpret_cast<const unsigned char*>(
                      e_.data().data() + offset + k_guid_size)));
    }
    void on_component(std::uint16_t type, std::string_view data, std::size_t offset, std::size_t) {
        path_ = entity_;
        components_.append(path_, component_name(type));
        e_.number(offset, 2, path_, Role::type, type);
        e_.number(offset + 2, 4, path_, Role::length, data.size());
        // The design's debug builds write JSON text, its release builds packed binary (§5).
        if (data.starts_with('{') && is_valid_utf8(data))
            e_.field(offset + 6, data.size(), path_, Role::string, data);
        else
            e_.field(offset + 6, data.size(), path_, Role::bytes, byte_count(data.size()));
    }
    void on_checksum(std::uint32_t stored, std::size_t offset) {
        e_.field(offset, 4, k_checksum, Role::checksum, fmt::format("{:#010x}", stored));
    }
    void on_trailing(std::string_view bytes, std::size_t offset) {
        e_.gap_to(offset + bytes.size(), Role::trailing);
    }

  private:
    RegionEmitter& e_;
    std::string entity_, path_;
    std::uint64_t entities_ = 0;
    ChildSteps components_;
};

} // namespace

Findings regions(std::string_view bytes, const RegionSink& sink) {
    RegionEmitter e(bytes, sink);
    RegionsSink regions(e);
    Findings findings;
    Reader<RegionsSink> reader(bytes, findings, regions);
    reader.run();
    return findings;
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
