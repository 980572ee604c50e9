// The files of a save directory (FORMATS.md §1.7): which name is a slot's save, the engine's
// backup of it, or its interrupted write.
#include "sparksave/spark_save.hpp"

namespace sparksave::spark_save {

SlotFile slot_file_kind(std::string_view name) noexcept {
    // The slot is the stem before the suffix, even an empty one (not a valid slot name, but
    // still a file the engine's naming made).
    if (name.ends_with(".spark_save.bak")) return SlotFile::backup;
    if (name.ends_with(".spark_save.tmp")) return SlotFile::temp;
    if (name.ends_with(".spark_save")) return SlotFile::primary;
    return SlotFile::other;
}

} // namespace sparksave::spark_save
