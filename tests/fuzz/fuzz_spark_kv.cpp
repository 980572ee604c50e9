// libFuzzer target for the spark-kv reader: read, summarize (the same findings), print (text and
// JSON), write back (every input, valid or not, reproduces byte for byte: spec.hpp), pack the
// JSON dump back to the same bytes, and migrate a legacy store whose every error the step repairs
// to a v2 store without error holding what the pre-marker reader held.
#include "spark_kv/api.hpp"
#include "spark_kv/spec.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/print.hpp"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

namespace {

// Every record as the engine reads it, in order (lines without a TAB left out).
std::string records(const sparksave::Document& doc) {
    using namespace sparksave;
    std::string out;
    const NodeId records = doc.child(doc.root(), "records");
    if (records == k_no_node) return out;
    for (NodeId c : doc.children(records)) {
        if (doc.node(c).kind != NodeKind::scalar) continue;
        out += std::to_string(doc.name(c).size()) + ":";
        out += doc.name(c);
        out += std::to_string(doc.value(c).size()) + ":";
        out += doc.value(c);
    }
    return out;
}

// What the pre-marker reader (f3bb430d) holds of a legacy store: each key's last value (lines
// without a TAB skipped), in the order of the lines kept.
std::string held(const sparksave::Document& doc) {
    using namespace sparksave;
    std::map<std::string_view, NodeId> last;
    const NodeId records = doc.child(doc.root(), "records");
    if (records == k_no_node) return {};
    for (NodeId c : doc.children(records))
        if (doc.node(c).kind == NodeKind::scalar) last[doc.name(c)] = c;
    std::string out;
    for (NodeId c : doc.children(records)) {
        if (doc.node(c).kind != NodeKind::scalar || last[doc.name(c)] != c) continue;
        out += std::to_string(doc.name(c).size()) + ":";
        out += doc.name(c);
        out += std::to_string(doc.value(c).size()) + ":";
        out += doc.value(c);
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sparksave;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    auto summary = spark_kv::summarize(bytes);
    Parsed p = spark_kv::read(std::make_shared<const Source>(bytes));
    if (p.findings.items().size() != summary.findings.items().size()) std::abort();
    for (std::size_t i = 0; i < p.findings.items().size(); ++i) {
        const Error& a = p.findings.items()[i];
        const Error& b = summary.findings.items()[i];
        if (a.code != b.code || a.severity != b.severity || a.line != b.line ||
            a.column != b.column || a.path != b.path || a.message != b.message)
            std::abort();
    }
    std::string text;
    print_text(p.doc, p.doc.root(), {}, PrintOptions{true}, text);
    std::string json;
    spark_kv::to_json(p.doc, json);
    if (!p.doc.complete()) return 0; // a limit stopped the read: the tree holds part of the file
    auto written = spark_kv::write(p.doc);
    if (!written || *written != bytes) std::abort();
    auto packed = spark_kv::from_json(json);
    if (!packed || packed->bytes != bytes) std::abort();
    // The engine loads exactly the stores without error (formats/README.md §3).
    if (summary.engine_loads == p.findings.has_errors()) std::abort();
    if (p.doc.version() == 1 &&
        !unrepaired_error(p.findings, FormatId::spark_kv, 1, spark_kv::k_version_v2)) {
        auto migrated = migrate(p.doc, 2);
        if (!migrated) std::abort();
        Parsed back = spark_kv::read(std::make_shared<const Source>(migrated->bytes));
        if (back.doc.version() != 2 || back.findings.has_errors()) std::abort();
        if (held(p.doc) != records(back.doc)) std::abort();
    }
    return 0;
}
