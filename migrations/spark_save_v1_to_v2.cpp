// spark_save 1 -> 2 (formats/README.md §1.6): insert an empty screenshotPath line after
// playerClass. The block is rewritten one field a line with position on one line; every token keeps
// its text, and anything after playerDeaths is kept for the v3/v4 rules to judge. The block is in
// the file's head: the step applies to the head (migrate.hpp MigrationStep).
#include "steps.hpp"

#include "spark_save/tree.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace migrations {

Result<void> spark_save_v1_to_v2_head(Document& doc, Notes& notes) {
    const NodeId metadata = doc.child(doc.root(), spark_save::k_metadata);
    if (metadata == k_no_node)
        return make_error(ErrorCode::bad_metadata, "expected a metadata block", k_no_offset,
                          "metadata");
    const std::string raw(doc.value(metadata));
    spark_save::MetadataBlock meta;
    auto ignore = [](std::size_t, std::string, std::string) {};
    spark_save::parse_metadata_block(raw, 0, 1, meta, ignore, ignore);
    std::string block;
    if (meta.all_present) {
        block = spark_save::render_metadata(meta, raw, "");
    } else {
        // The v1 reader never checked the block; with fields missing there is no layout to
        // normalize, so only the line is inserted (after the third line, playerClass).
        std::size_t at = 0;
        for (int line = 0; line < 3; ++line) {
            at = raw.find('\n', at);
            if (at == std::string::npos)
                return make_error(ErrorCode::bad_metadata,
                                  "expected saveName, sceneName and playerClass lines to insert "
                                  "screenshotPath after, found fewer than three lines",
                                  k_no_offset, "metadata");
            ++at;
        }
        block = raw.substr(0, at) + "\n" + raw.substr(at);
        notes.push_back({"metadata: fields missing, so only the screenshotPath line was inserted"});
    }
    spark_save::replace_metadata(doc, metadata, block, 2);
    return {};
}

} // namespace migrations
SPARKSAVE_END_NAMESPACE
