#include "common/finding.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

SPARKSAVE_BEGIN_NAMESPACE

std::string byte_count(std::uint64_t n) {
    return fmt::format("{} {}", n, n == 1 ? "byte" : "bytes");
}

std::string excerpt(std::string_view text, std::size_t max) {
    if (text.size() <= max) return display(text, true);
    return display(text.substr(0, max), true) + "...";
}

SPARKSAVE_END_NAMESPACE
