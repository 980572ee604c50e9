// The `.spark_save` versions the current engine writes and loads (formats/README.md §1.4): shared
// by the engine-facing API (save_file.hpp) and the format's reader, so the numbers exist once.
#pragma once

#include <cstdint>
#include <sparksave/version.hpp>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// The version the engine writes, and the oldest it loads (its "N and N-1" window, 1.4).
inline constexpr std::uint32_t k_current_version = 4;
inline constexpr std::uint32_t k_oldest_loadable = 3;

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
