// The GMSV rules the reader, the writer and pack share (formats/README.md §5): path builders and
// message helpers. The reader template (reader.hpp) includes this; files that only need a
// helper include this alone.
#pragma once

#include "common/finding.hpp"
#include "spec.hpp"

#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace sparksave::inline SPARKSAVE_ABI::gmsv {

inline std::string entity_path(std::uint64_t e) {
    std::string p(k_entities);
    append_path_index(p, e);
    return p;
}

} // namespace sparksave::gmsv
