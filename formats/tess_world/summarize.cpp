// `info` and `verify` for tess world archives: every check of the reader, no tree; the shape,
// lattice, schema, residency and fields for people.
#include "reader.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"

#include <algorithm>
#include <bit>
#include <limits>

SPARKSAVE_BEGIN_NAMESPACE
namespace tess_world {

namespace {

class SummarySink : public SinkDefaults {
  public:
    void on_descriptor(const Descriptor& d, std::size_t) { descriptors_.push_back(d); }
    void on_chunk(const ChunkPrefix&, std::size_t) { ++chunks_; }

    const std::vector<Descriptor>& descriptors() const noexcept { return descriptors_; }
    std::uint64_t chunks() const noexcept { return chunks_; }

  private:
    std::vector<Descriptor> descriptors_;
    std::uint64_t chunks_ = 0;
};

std::string coded(std::string_view name, std::uint64_t value, std::string_view hex_format) {
    if (!name.empty()) return std::string(name);
    return fmt::format(fmt::runtime(hex_format), value);
}

// "0x1112131415161718 v3 unsigned 1-byte".
std::string describe(const Descriptor& d) {
    return fmt::format("{:#018x} v{} {} {}-byte", d.id, d.version,
                       coded(kind_name(d.kind), d.kind, "kind {}"), d.width);
}

// Why no tess world can load an archive that passes every check of 4.3 (formats/README.md §4.3,
// "tess loads it"), in the order load_world_archive compares: the shape (tess::Shape wants
// power-of-two chunk dimensions, ShapeTraits world axes that fit int64), the key layout, the fields
// (a PersistenceSchema declares at least one). Empty when some world can.
std::vector<std::string> why_no_world_loads(const Header& h) {
    std::vector<std::string> why;
    auto shape = [](const std::array<std::uint64_t, 3>& v) {
        return fmt::format("{} x {} x {}", v[0], v[1], v[2]);
    };
    if (!std::all_of(h.chunk.begin(), h.chunk.end(),
                     [](std::uint64_t c) { return std::has_single_bit(c); }))
        why.push_back(fmt::format("chunk size {} is not a power of two on every axis (tess::Shape "
                                  "refuses it: ShapeMismatch for every world)",
                                  shape(h.chunk)));
    constexpr std::uint64_t k_axis_max = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < 3; ++i)
        if (h.world[i] > k_axis_max)
            why.push_back(fmt::format("world size {} is {}, above 2^63 - 1 (ShapeTraits refuses "
                                      "it: ShapeMismatch for every world)",
                                      k_axes[i], h.world[i]));
    if (h.key_layout_version != 1)
        why.push_back(fmt::format("key layout version {}, tess knows only 1 (KeyLayoutMismatch)",
                                  h.key_layout_version));
    if (h.field_count == 0)
        why.push_back("no fields (a PersistenceSchema declares at least one: FieldMismatch for "
                      "every schema)");
    return why;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out;
}

} // namespace

Summary summarize(std::string_view bytes) {
    Summary s;
    s.format = FormatId::tess_world;
    s.size = bytes.size();
    SummarySink sink;
    Reader<SummarySink> reader(bytes, s.findings, sink, true);
    reader.run();
    s.version = reader.version();
    s.version_known = bytes.size() >= k_off_version + 4 && bytes.starts_with(k_magic);
    if (reader.header_read()) s.checksum = reader.header().checksum;
    s.integrity = !reader.crc_checked() ? Integrity::unknown
                  : reader.crc_ok()     ? Integrity::verified
                                        : Integrity::mismatch;

    if (reader.header_read()) {
        const Header& h = reader.header();
        auto shape = [](const std::array<std::uint64_t, 3>& v) {
            return fmt::format("{} x {} x {}", v[0], v[1], v[2]);
        };
        s.metadata.push_back({"worldSize", "world size", shape(h.world), false});
        s.metadata.push_back({"chunkSize", "chunk size", shape(h.chunk), false});
        s.metadata.push_back(
            {"lattice", "lattice",
             fmt::format("{}, version {}", coded(lattice_name(h.lattice), h.lattice, "{:#010x}"),
                         h.lattice_version),
             false});
        s.metadata.push_back(
            {"keyLayoutVersion", "key layout", fmt::format("{}", h.key_layout_version), true});
        s.metadata.push_back({"schema", "schema",
                              fmt::format("{:#018x}, version {}", h.schema_id, h.schema_version),
                              false});
        s.metadata.push_back({"tessLibrary", "tess library",
                              fmt::format("{}.{}.{}", h.library[0], h.library[1], h.library[2]),
                              false});
        s.metadata.push_back({"residency", "residency",
                              coded(residency_name(h.residency), h.residency, "{}"), false});
        std::string fields;
        const auto& ds = sink.descriptors();
        for (std::size_t i = 0; i < ds.size() && i < 8; ++i)
            fields += (i ? ", " : "") + describe(ds[i]);
        if (ds.size() > 8) fields += fmt::format(", ... ({} more)", ds.size() - 8);
        if (!fields.empty()) s.metadata.push_back({"fields", "fields", fields, false});

        s.counts.push_back({"fields", "field count", fmt::format("{}", h.field_count), true});
        s.counts.push_back({"chunks", "chunks", fmt::format("{}", sink.chunks()), true});
        if (reader.logical())
            s.counts.push_back(
                {"logicalChunks", "world chunks", fmt::format("{}", *reader.logical()), true});
        if (reader.tiles())
            s.counts.push_back(
                {"tilesPerChunk", "tiles/chunk", fmt::format("{}", *reader.tiles()), true});
        std::vector<std::pair<std::string, std::uint64_t>> kinds;
        for (const auto& d : ds) {
            std::string name = std::string(column_type_name(descriptor_type(d.kind, d.width)));
            if (name.empty()) continue;
            auto it = std::find_if(kinds.begin(), kinds.end(),
                                   [&](const auto& k) { return k.first == name; });
            if (it == kinds.end())
                kinds.emplace_back(name, 1);
            else
                ++it->second;
        }
        std::stable_sort(kinds.begin(), kinds.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        s.common_types = std::move(kinds);
    }

    const std::vector<std::string> why =
        reader.header_read() ? why_no_world_loads(reader.header()) : std::vector<std::string>{};
    if (reader.only_load_refuses()) {
        s.engine_loads = false;
        s.engine_verdict = "refuses to load it: a bool byte other than 0 or 1";
        s.engine_note = s.engine_verdict + " (inspect_world_archive says Ok, load_world_archive "
                                           "says Corrupt)";
    } else if (s.findings.has_errors()) {
        s.engine_loads = false;
        s.engine_note = s.engine_verdict = "refuses it: the file is invalid";
    } else if (s.version == k_retired_version) {
        s.engine_loads = false;
        s.engine_verdict = "needs migration";
        s.engine_note =
            s.engine_verdict + " (tess loads format version 2 only; version 1 is retired)";
        if (!why.empty()) s.engine_note += "; and then no tess world loads it: " + joined(why);
    } else if (!why.empty()) {
        s.engine_loads = false;
        s.engine_note = s.engine_verdict = "no tess world loads it: " + joined(why);
    } else {
        s.engine_loads = true;
        s.engine_note = s.engine_verdict = "loads it";
    }
    return s;
}

} // namespace tess_world
SPARKSAVE_END_NAMESPACE
