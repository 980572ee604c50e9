// libFuzzer target for the spark-kv reader: read, summarize (the same findings), print (text and
// JSON), write back (every input, valid or not, reproduces byte for byte: spec.hpp), pack the
// JSON dump back to the same bytes, and migrate a clean legacy store to a v2 store that reads
// back to the same records.
#include "spark_kv/api.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/print.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

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
    bool stopped = false; // a limit stops the read: the tree then holds only part of the file
    for (const auto& f : p.findings.items())
        if (f.code == ErrorCode::too_large || f.code == ErrorCode::limit_exceeded) stopped = true;
    if (stopped) return 0;
    auto written = spark_kv::write(p.doc);
    if (!written || *written != bytes) std::abort();
    auto packed = spark_kv::from_json(json);
    if (!packed || packed->bytes != bytes) std::abort();
    if (p.doc.version() == 1 && !p.findings.has_errors()) {
        // The step fails only on a non-empty line without a TAB, and keeps every record.
        bool unmigratable = false;
        for (NodeId c : p.doc.children(p.doc.child(p.doc.root(), "records")))
            if (p.doc.node(c).kind == NodeKind::object &&
                !p.doc.value(p.doc.child(c, "text")).empty())
                unmigratable = true;
        auto migrated = migrate(p.doc, 2);
        if (migrated.has_value() == unmigratable) std::abort();
        if (migrated) {
            Parsed back = spark_kv::read(std::make_shared<const Source>(migrated->bytes));
            if (back.doc.version() != 2 || back.findings.has_errors()) std::abort();
            if (records(p.doc) != records(back.doc)) std::abort();
        }
    }
    return 0;
}
