// The names of a save directory's files (formats/README.md §1.7): which name is a slot's save, the
// engine's backup of it, or its interrupted write; which slot names are valid, and their roles.
// The format's directory model (format.hpp DirectoryModel) is these rules, so the walk, `info DIR`
// and list_slots classify a file alike.
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

NamedFile name_in_directory(std::string_view name) {
    NamedFile named;
    std::string_view stem = name;
    switch (slot_file_kind(name)) {
    case SlotFile::other:
        return named;
    case SlotFile::primary:
        named.kind = NamedFile::Kind::save;
        break;
    case SlotFile::backup:
        named.kind = NamedFile::Kind::backup;
        stem.remove_suffix(4); // ".bak"
        break;
    case SlotFile::temp:
        named.kind = NamedFile::Kind::temp;
        stem.remove_suffix(4); // ".tmp"
        break;
    }
    named.save_file = std::string(stem);
    stem.remove_suffix(std::string_view(".spark_save").size());
    named.group = std::string(stem);
    named.valid_name = is_valid_slot_name(stem);
    // A companion is listed with its slot: the slot's role is the group's.
    int index = -1;
    switch (slot_role(stem, &index)) {
    case SlotRole::user:
        named.role = "slot";
        break;
    case SlotRole::quicksave:
        named.role = "quicksave";
        named.rank = 1;
        break;
    case SlotRole::autosave:
        named.role = "autosave";
        named.rank = 2;
        named.index = static_cast<std::uint32_t>(index);
        break;
    }
    return named;
}

const DirectoryModel k_directory = {.name = name_in_directory,
                                    .pattern = "<slot>.spark_save",
                                    .companions = ".spark_save.bak, .spark_save.tmp"};

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
