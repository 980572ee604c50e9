// libFuzzer target for the GMSV reader: read, summarize (the same findings), print (text with
// offsets, JSON), and when the input is valid, check that writing it back and packing its JSON
// both give the same bytes, and run the migrations (which may refuse, never crash).
#include "gmsv/api.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/print.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sparksave;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    auto summary = gmsv::summarize(bytes);
    Parsed p = gmsv::read(std::make_shared<const Source>(bytes));
    if (p.findings.items().size() != summary.findings.items().size()) std::abort();
    for (std::size_t i = 0; i < p.findings.items().size(); ++i) {
        const Error& a = p.findings.items()[i];
        const Error& b = summary.findings.items()[i];
        if (a.code != b.code || a.offset != b.offset || a.path != b.path) std::abort();
    }
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    std::string json;
    gmsv::to_json(p.doc, json);
    print_json_subtree(p.doc, p.doc.root(), text);
    if (!p.findings.has_errors()) {
        auto written = gmsv::write(p.doc);
        if (!written || *written != bytes) std::abort();
        auto packed = gmsv::from_json(json);
        if (!packed || packed->bytes != bytes) std::abort();
        if (p.doc.version() < 3) {
            // May refuse (Position data it cannot convert); what it returns reads as a clean v3.
            auto migrated = migrate(p.doc, 3);
            if (migrated) {
                Summary s = gmsv::summarize(migrated->bytes);
                if (s.findings.has_errors() || s.version != 3) std::abort();
            }
        }
    }
    return 0;
}
