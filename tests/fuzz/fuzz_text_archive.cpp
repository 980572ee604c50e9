// libFuzzer target for the text archive reader: read, summarize (the same findings), print
// (text and JSON), and when the input is in the writer's own form, check that writing it back and
// packing its JSON dump both give the same bytes.
#include "sparksave/print.hpp"
#include "text_archive/api.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sparksave;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    auto summary = text_archive::summarize(bytes);
    Parsed p = text_archive::read(std::make_shared<const Source>(bytes));
    if (p.findings.items().size() != summary.findings.items().size()) std::abort();
    for (std::size_t i = 0; i < p.findings.items().size(); ++i) {
        const Error& a = p.findings.items()[i];
        const Error& b = summary.findings.items()[i];
        if (a.code != b.code || a.line != b.line || a.column != b.column || a.path != b.path)
            std::abort();
    }
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    std::string json;
    text_archive::to_json(p.doc, json);
    // Notes, and bad_syntax warnings (text the engine ignores), mark bytes the writer does not
    // reproduce (formats/README.md §2.1).
    bool writer_form = !p.findings.has_errors() && p.findings.note_count() == 0;
    for (const auto& f : p.findings.items())
        if (f.code == ErrorCode::bad_syntax) writer_form = false;
    if (writer_form) {
        auto written = text_archive::write(p.doc);
        if (!written || *written != bytes) std::abort();
        auto packed = text_archive::from_json(json);
        if (!packed || packed->bytes != bytes) std::abort();
    }
    return 0;
}
