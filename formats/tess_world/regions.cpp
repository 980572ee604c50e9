// The byte map of a tess world archive (sparksave/regions.hpp): the reader's events (reader.hpp),
// each header field at its offset of spec.hpp, each descriptor's and chunk prefix's fields and
// each column, under the node paths of the tree read.cpp builds.
#include "api.hpp"
#include "reader.hpp"

#include "sparksave/region_emitter.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

namespace {

class RegionsSink : public SinkDefaults {
  public:
    explicit RegionsSink(RegionEmitter& e) : e_(e) {}

    void on_header(const Header& h) {
        e_.field(0, k_magic.size(), "", Role::magic, k_magic);
        e_.number(k_off_version, 4, "", Role::version, h.version);
        header(k_body_size, k_off_body_size, 8, Role::length, h.body_size);
        e_.field(k_off_checksum, 4, path(k_header, k_checksum), Role::checksum,
                 fmt::format("{:#010x}", h.checksum));
        for (std::size_t i = 0; i < 3; ++i)
            e_.number(k_off_world + 8 * i, 8, path(k_header, k_world_size, k_axes[i]), Role::number,
                      h.world[i]);
        for (std::size_t i = 0; i < 3; ++i)
            e_.number(k_off_chunk + 8 * i, 8, path(k_header, k_chunk_size, k_axes[i]), Role::number,
                      h.chunk[i]);
        header(k_lattice, k_off_lattice, 4, Role::type, h.lattice);
        header(k_lattice_version, k_off_lattice_version, 4, Role::version, h.lattice_version);
        header(k_key_layout_version, k_off_key_layout, 4, Role::version, h.key_layout_version);
        header(k_schema_id, k_off_schema_id, 8, Role::number, h.schema_id);
        header(k_schema_version, k_off_schema_version, 4, Role::version, h.schema_version);
        for (std::size_t i = 0; i < 3; ++i)
            e_.number(k_off_library + 4 * i, 4,
                      path(k_header, k_library_version, k_library_parts[i]), Role::version,
                      h.library[i]);
        header(k_residency, k_off_residency, 1, Role::type, h.residency);
        header(k_field_count, k_off_field_count, 4, Role::count, h.field_count);
        header(k_chunk_count, k_off_chunk_count, 8, Role::count, h.chunk_count);
    }

    void on_descriptor(const Descriptor& d, std::size_t offset) {
        item_.assign(k_fields);
        append_path_index(item_, descriptors_++);
        e_.number(offset, 8, sub(k_id), Role::number, d.id);
        e_.number(offset + 8, 4, sub(k_version), Role::version, d.version);
        e_.number(offset + 12, 1, sub(k_kind), Role::type, d.kind);
        e_.number(offset + 13, 4, sub(k_width), Role::length, d.width);
    }

    void on_chunk(const ChunkPrefix& p, std::size_t offset) {
        item_.assign(k_chunks);
        append_path_index(item_, chunks_++);
        e_.number(offset, 8, sub(k_key), Role::number, p.key);
        std::size_t at = offset + 8;
        if (p.state) e_.number(at++, 1, sub(k_state), Role::number, *p.state);
        e_.number(at, 4, sub(k_active_mask), Role::number, p.active_mask);
        e_.number(at + 4, 4, sub(k_entity_count), Role::count, p.entity_count);
    }
    void on_column(std::size_t field, ColumnType type, std::string_view bytes, std::size_t offset) {
        std::string p = item_;
        append_path_name(p, k_fields);
        append_path_index(p, field);
        const std::size_t width = type.valid() ? type.width : 1;
        e_.field(offset, bytes.size(), p, Role::array,
                 fmt::format("{}[{}]", column_type_name(type), bytes.size() / width));
    }

  private:
    void header(std::string_view name, std::size_t offset, std::size_t length, Role role,
                std::uint64_t value) {
        e_.number(offset, length, path(k_header, name), role, value);
    }
    static std::string path(std::string_view a, std::string_view b, std::string_view c = {}) {
        std::string p(a);
        append_path_name(p, b);
        if (!c.empty()) append_path_name(p, c);
        return p;
    }
    const std::string& sub(std::string_view name) {
        scratch_ = item_;
        append_path_name(scratch_, name);
        return scratch_;
    }

    RegionEmitter& e_;
    std::string item_, scratch_;
    std::uint64_t descriptors_ = 0, chunks_ = 0;
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

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
