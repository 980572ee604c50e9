// sparksave/save_file.hpp stands alone and brings in no fmt, Boost or CLI11 header (issue 14):
// this file includes it before anything else and looks for their version macros.
#include "sparksave/save_file.hpp"

#if defined(FMT_VERSION) || defined(BOOST_VERSION) || defined(BOOST_CONFIG_HPP) ||                 \
    defined(CLI11_VERSION)
#error "sparksave/save_file.hpp must not include fmt, Boost or CLI11 headers"
#endif

#include <doctest/doctest.h>

#include <type_traits>

namespace ss = sparksave::spark_save;

TEST_CASE("save_file.hpp: self-contained; its types are plain values") {
    static_assert(ss::k_current_version == 4 && ss::k_oldest_loadable == 3);
    static_assert(std::is_copy_constructible_v<ss::SaveView>);
    static_assert(std::is_nothrow_move_constructible_v<ss::SaveView>);
    static_assert(!std::is_default_constructible_v<ss::SaveView>);
    ss::Metadata m;
    CHECK(m.version == ss::k_current_version);
    CHECK(ss::as_save_bytes("SPRK").size() == 4);
}
