// libFuzzer target for the tess world archive reader: read (salvaging and careful), summarize
// (the same findings), print (text with offsets, JSON), and when the input is valid, check that
// writing it back and packing its JSON both give the same bytes, and that a v1 file migrates.
#include "sparksave/migrate.hpp"
#include "sparksave/print.hpp"
#include "tess_world/api.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sparksave;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    auto summary = tess_world::summarize(bytes);
    Parsed p = tess_world::read(std::make_shared<const Source>(bytes));
    if (p.findings.items().size() != summary.findings.items().size()) std::abort();
    for (std::size_t i = 0; i < p.findings.items().size(); ++i) {
        const Error& a = p.findings.items()[i];
        const Error& b = summary.findings.items()[i];
        if (a.code != b.code || a.offset != b.offset || a.path != b.path) std::abort();
    }
    Parsed careful = tess_world::read(std::make_shared<const Source>(bytes), ReadOptions{false});
    if (careful.findings.has_errors() != p.findings.has_errors()) std::abort();
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    std::string json;
    tess_world::to_json(p.doc, json);
    print_json_subtree(p.doc, p.doc.root(), text);
    if (!p.findings.has_errors()) {
        auto written = tess_world::write(p.doc);
        if (!written || *written != bytes) std::abort();
        auto packed = tess_world::from_json(json);
        if (!packed || packed->bytes != bytes) std::abort();
        if (p.doc.version() == 1) {
            auto migrated = migrate(p.doc, 2);
            if (!migrated) std::abort(); // dropping the state byte cannot break a valid archive
        }
    }
    return 0;
}
