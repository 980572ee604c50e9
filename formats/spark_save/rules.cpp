#include "rules.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/version.hpp"

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

std::uint32_t crc_as_version4(std::string_view data, std::size_t end) {
    unsigned char head[8];
    std::memcpy(head, data.data(), 4);
    boost::endian::store_little_u32(head + 4, k_current_version);
    std::uint32_t crc = crc32_update(0, {reinterpret_cast<const char*>(head), 8});
    return crc32_update(crc, data.substr(8, end - 8));
}

std::uint32_t whole_crc(std::string_view data) {
    const std::size_t size = data.size();
    return load_u32(data, 4) == k_current_version ? crc32(data.substr(0, size - 4))
                                                  : crc_as_version4(data, size - 4);
}

bool crc_alongside(std::string_view data) noexcept {
    if (data.size() < k_parallel_crc || data.size() > k_max_file_size) return false;
    if (!data.starts_with(k_magic)) return false;
    const std::uint32_t version = load_u32(data, 4);
    return version >= 1 && version <= k_current_version;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
