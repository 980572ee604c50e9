// Uses an installed sparksave as an engine does, through sparksave/save_file.hpp only: the
// metadata of a save, the whole save as a view, its upgrade to v4, a new save from plain data,
// and a refusal. Prints one line per step; tests/package/run.cmake checks them.
#include <sparksave/save_file.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace ss = sparksave::spark_save;

namespace {

int fail(const char* step, const sparksave::Error& error) {
    std::printf("%s failed: %s\n", step, error.describe().c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto metadata = ss::read_metadata(std::filesystem::path(argv[1]));
    if (!metadata) return fail("read_metadata", metadata.error());
    std::printf("metadata: v%u \"%s\"\n", unsigned(metadata->version), metadata->save_name.c_str());

    std::ifstream in(argv[1], std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    auto view = ss::SaveView::parse(ss::as_save_bytes(bytes));
    if (!view) return fail("parse", view.error());
    std::printf("view: v%u, %zu entities\n", unsigned(view->metadata().version),
                view->entities().size());

    auto upgraded = ss::upgrade(ss::as_save_bytes(bytes));
    if (!upgraded) return fail("upgrade", upgraded.error());
    auto current = ss::SaveView::parse(ss::as_save_bytes(*upgraded));
    if (!current) return fail("parse of the upgrade", current.error());
    std::printf("upgrade: v%u, %zu entities\n", unsigned(current->metadata().version),
                current->entities().size());

    ss::SaveWriter writer(*metadata);
    writer.entity("Player").component("Health").property("value", "100");
    auto written = writer.finish();
    if (!written) return fail("finish", written.error());
    auto back = ss::SaveView::parse(ss::as_save_bytes(*written));
    if (!back) return fail("parse of the written save", back.error());
    std::printf("writer: v%u, %zu entity\n", unsigned(back->metadata().version),
                back->entities().size());

    ss::Metadata bad = *metadata;
    bad.save_name = "two\nlines";
    auto refused = ss::SaveWriter(bad).finish();
    if (refused) {
        std::printf("a save name with a line break was written\n");
        return 1;
    }
    std::printf("refused: %s at %s\n",
                std::string(sparksave::code_name(refused.error().code)).c_str(),
                refused.error().path.c_str());

    return 0;
}
