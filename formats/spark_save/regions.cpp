// The byte map of a `.spark_save` (sparksave/regions.hpp): the reader's events (reader.hpp), each
// field at the place the reader read it, under the node path of the tree read.cpp builds.
#include "api.hpp"
#include "reader.hpp"

#include "sparksave/region_emitter.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

// formats/README.md §1.1: every string is a u16 length then its bytes, every list a count then
// its items; the views the reader hands over are where the bytes are, the length or count before
// them is the rest.
class RegionsSink : public SinkDefaults {
  public:
    explicit RegionsSink(RegionEmitter& e) : e_(e) {}

    void on_header(std::uint32_t) {
        const std::string_view d = e_.data();
        e_.field(0, 4, "", Role::magic, d.substr(0, 4));
        e_.number(4, 4, "", Role::version, load_u32(d, 4));
    }
    void on_metadata(std::string_view block, std::size_t offset, const MetadataBlock& meta) {
        e_.number(8, 4, k_metadata, Role::length, block.size());
        path_ = k_metadata;
        const std::size_t end = offset + block.size();
        for (std::size_t i = 0; i < meta.count; ++i) {
            const MetaField& f = meta.fields[i];
            if (f.offset < e_.at() || f.offset + f.text.size() > end) continue;
            e_.between(f.offset, k_metadata);
            path_.resize(k_metadata.size());
            if (f.in_position) append_path_name(path_, k_meta_fields[f.spec].name);
            append_path_name(path_, f.name);
            e_.field(f.offset, f.text.size(), path_,
                     f.type == ValueType::string ? Role::string : Role::number, f.text);
        }
        e_.between(end, k_metadata);
    }
    void on_entities_begin(std::uint32_t count, std::size_t offset) {
        e_.number(offset, 4, k_entities, Role::count, count);
    }
    void on_entity(std::string_view name, std::size_t offset, std::uint32_t index) {
        entity_.assign(k_entities);
        append_path_index(entity_, index);
        components_.clear();
        named(offset, name, entity_);
        const std::size_t at = e_.at();
        e_.number(at, 2, entity_, Role::count, u16_at(at));
    }
    void on_component(std::string_view type, std::size_t offset) {
        component_ = entity_;
        components_.append(component_, type);
        properties_.clear();
        named(offset, type, component_);
        const std::size_t at = e_.at();
        e_.number(at, 2, component_, Role::count, u16_at(at));
    }
    void on_property(std::string_view key, std::string_view value, std::size_t offset,
                     std::size_t) {
        path_ = component_;
        properties_.append(path_, key);
        pair(offset, key, value);
    }
    void on_custom_state_begin(bool present, std::uint32_t declared, std::size_t offset) {
        if (present) e_.number(offset, 4, k_custom_state, Role::count, declared);
        properties_.clear();
    }
    void on_pair(std::string_view key, std::string_view value, std::size_t offset, std::size_t) {
        path_ = k_custom_state;
        properties_.append(path_, key);
        pair(offset, key, value);
    }
    void on_trailing(std::string_view bytes, std::size_t offset) {
        e_.gap_to(offset + bytes.size(), Role::trailing);
    }
    void on_checksum(std::uint32_t stored, std::size_t offset) {
        if (offset > e_.at()) e_.gap_to(offset, Role::trailing); // extended: bytes before it
        e_.field(offset, 4, k_checksum, Role::checksum, fmt::format("{:#010x}", stored));
    }

  private:
    std::uint16_t u16_at(std::size_t at) const {
        return boost::endian::load_little_u16(
            reinterpret_cast<const unsigned char*>(e_.data().data() + at));
    }
    // A u16 length at `offset`, then `text` (a view into the file), the name of `path`.
    void named(std::size_t offset, std::string_view text, std::string_view path) {
        e_.number(offset, 2, path, Role::length, text.size());
        e_.field(offset + 2, text.size(), path, Role::name, text);
    }
    void pair(std::size_t offset, std::string_view key, std::string_view value) {
        named(offset, key, path_);
        const std::size_t at = offset + 2 + key.size();
        e_.number(at, 2, path_, Role::length, value.size());
        e_.field(at + 2, value.size(), path_, Role::string, value);
    }

    RegionEmitter& e_;
    std::string entity_, component_, path_;
    ChildSteps components_, properties_; // of the entity, of the component or custom state
};

} // namespace

Findings regions(std::string_view bytes, const RegionSink& sink) {
    RegionEmitter e(bytes, sink);
    RegionsSink regions(e);
    Findings findings;
    // As stream() reads: the CRC first, so the read goes in one pass, in file order.
    CrcHint crc;
    if (bytes.size() >= 12 && bytes.starts_with(k_magic)) crc.known = whole_crc(bytes);
    Reader<RegionsSink> reader(bytes, findings, regions, true, crc);
    reader.run();
    return findings;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
