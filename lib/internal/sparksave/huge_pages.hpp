// Large buffers that are written once from start to end (SaveWriter's output, SaveView's views):
// on Linux, asking for transparent huge pages turns ~500 page faults a 2 MiB of such a buffer
// into one (a fault is the larger part of filling fresh memory on a VM: bench/README.md). A hint
// only: where it is refused, or on another system, nothing changes.
#pragma once

#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

SPARKSAVE_BEGIN_NAMESPACE

// Below this, a buffer is left as it is (the aligned 2 MiB inside it would be small or none).
inline constexpr std::size_t k_huge_page_min = std::size_t{4} << 20;

// Advises huge pages for the whole 2 MiB pages inside [p, p + size) that are not yet touched.
inline void prefer_huge_pages([[maybe_unused]] const void* p,
                              [[maybe_unused]] std::size_t size) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (size < k_huge_page_min) return;
    constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + size) & ~(huge - 1);
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

SPARKSAVE_END_NAMESPACE
