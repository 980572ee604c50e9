// Reading a `.spark_save` into the Document tree (layout of the tree: spec.hpp).
#include "reader.hpp"
#include "tree_sink.hpp"

#include "api.hpp"
#include "sparksave/version.hpp"

#include <utility>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

bool detect(std::string_view head) noexcept {
    return head.starts_with(k_magic);
}

Parsed read(std::shared_ptr<const Source> source, const ReadOptions& options) {
    std::string_view bytes = source ? source->view() : std::string_view{};
    Parsed out{Document(FormatId::spark_save, 0, source), {}};
    // A large file's CRC is computed alongside the parse; when the file turns out damaged the
    // tree is read again the careful way, knowing the CRC.
    bool first = true;
    read_with_crc(
        crc_alongside(bytes), [bytes] { return whole_crc(bytes); },
        [&](const CrcHint& crc) {
            if (!std::exchange(first, false))
                out = Parsed{Document(FormatId::spark_save, 0, source), {}};
            TreeSink sink(out.doc);
            Reader<TreeSink> reader(bytes, out.findings, sink, options.salvage, crc);
            const bool whole = reader.run();
            if (reader.needs_rerun()) return false;
            out.doc.set_version(reader.version());
            out.doc.set_complete(whole);
            return true;
        });
    return out;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

PartsRead stream(std::shared_ptr<const Source> source, Parts& consumer) {
    std::string_view bytes = source ? source->view() : std::string_view{};
    Document doc(FormatId::spark_save, 0, source);
    TreeSink sink(doc, &consumer);
    return read_parts(bytes, doc, sink, consumer);
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
