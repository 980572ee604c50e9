// The names of a save directory's files (formats/README.md §1.7): which name is a slot's save, the
// engine's backup of it, or its interrupted write; which slot names are valid, and their roles.
// Built with every set of formats (the directory walk, lib/src/input.cpp, classifies files by
// them).
#include "api.hpp"
#include "sparksave/save_file.hpp"
#include "sparksave/version.hpp"

#include <charconv>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

SlotFile slot_file_kind(std::string_view name) noexcept {
    // The slot is the stem before the suffix, even an empty one (not a valid slot name, but
    // still a file the engine's naming made).
    if (name.ends_with(".spark_save.bak")) return SlotFile::backup;
    if (name.ends_with(".spark_save.tmp")) return SlotFile::temp;
    if (name.ends_with(".spark_save")) return SlotFile::primary;
    return SlotFile::other;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

bool is_valid_slot_name(std::string_view slot) noexcept {
    // formats/README.md §1.7: 1-64 characters of [A-Za-z0-9_-].
    if (slot.empty() || slot.size() > 64) return false;
    for (const char c : slot)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    return true;
}

SlotRole slot_role(std::string_view slot, int* autosave_index) noexcept {
    // 1.7: the reserved slots `__quicksave` and `__autosave_0` .. `__autosave_{N-1}`.
    if (autosave_index) *autosave_index = -1;
    constexpr std::string_view k_autosave = "__autosave_";
    if (slot == "__quicksave") return SlotRole::quicksave;
    if (!slot.starts_with(k_autosave)) return SlotRole::user;
    const std::string_view n = slot.substr(k_autosave.size());
    int index = 0;
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), index);
    if (n.empty() || ec != std::errc() || p != n.data() + n.size() || index < 0)
        return SlotRole::user;
    if (autosave_index) *autosave_index = index;
    return SlotRole::autosave;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
