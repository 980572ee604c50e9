// libFuzzer target for the `.spark_save` reader: read, summarize, print, and when the input is
// valid, check that writing it back gives the same bytes. The direct dump (dump.cpp, what
// `sparksave dump` runs) gives the JSON of the tree, and its text dump runs too.
#include "spark_save/api.hpp"
#include "sparksave/print.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sparksave;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    auto summary = spark_save::summarize(bytes);
    Parsed p = spark_save::read(std::make_shared<const Source>(bytes));
    if (p.findings.has_errors() != summary.findings.has_errors()) std::abort();
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    std::string json;
    spark_save::to_json(p.doc, json);
    auto source = std::make_shared<const Source>(bytes);
    std::string direct;
    const auto collect = [&](std::string_view block) { direct.append(block); };
    spark_save::dump(source, true, collect);
    if (direct != json) std::abort();
    direct.clear();
    spark_save::dump(source, false, collect);
    if (!p.findings.has_errors()) {
        auto written = spark_save::write(p.doc);
        if (!written || *written != bytes) std::abort();
    }
    return 0;
}
