// build_info.hpp: the versions come from the headers this file is compiled with, which are the
// ones the library is built with (one build, one set of include directories). toml++'s version
// header is included alone: none of its parser comes with it.
#include "sparksave/build_info.hpp"

#include <boost/version.hpp>
#include <fmt/format.h>

#if __has_include(<toml++/impl/version.hpp>)
#include <toml++/impl/version.hpp>
#elif __has_include(<toml++/impl/version.h>)
#include <toml++/impl/version.h> // toml++ 3.3 (Debian 12, 13)
#endif

SPARKSAVE_BEGIN_NAMESPACE

std::vector<std::pair<std::string_view, std::string>> build_components() {
    std::vector<std::pair<std::string_view, std::string>> out;
#if defined(__clang__)
    out.emplace_back(
        "Clang", fmt::format("{}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__));
#elif defined(__GNUC__)
    out.emplace_back("GCC", fmt::format("{}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__));
#elif defined(_MSC_VER)
    out.emplace_back("MSVC", fmt::format("{}", _MSC_FULL_VER));
#endif
    out.emplace_back("fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                                        FMT_VERSION % 100));
    out.emplace_back("Boost", fmt::format("{}.{}.{}", BOOST_VERSION / 100000,
                                          BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100));
#if defined(TOML_LIB_MAJOR)
    out.emplace_back("toml++",
                     fmt::format("{}.{}.{}", TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH));
#endif
    return out;
}

SPARKSAVE_END_NAMESPACE
