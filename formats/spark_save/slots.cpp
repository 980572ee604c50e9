// The files of a save directory (FORMATS.md §1.7): which name is a slot's save, the engine's
// backup of it, or its interrupted write.
#include "sparksave/spark_save.hpp"

namespace sparksave::spark_save {

SlotFile slot_file_kind(std::string_view name) noexcept {
    constexpr std::string_view k_ext = ".spark_save";
    auto has_stem = [&](std::string_view suffix) {
        return name.size() > suffix.size() && name.ends_with(suffix);
    };
    if (has_stem(".spark_save.bak")) return SlotFile::backup;
    if (has_stem(".spark_save.tmp")) return SlotFile::temp;
    if (has_stem(k_ext)) return SlotFile::primary;
    return SlotFile::other;
}

} // namespace sparksave::spark_save
