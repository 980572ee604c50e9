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

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

inline std::string entity_path(std::uint64_t e) {
    std::string p(k_entities);
    append_path_index(p, e);
    return p;
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
