// The byte encoding of `.spark_save` (formats/README.md §1.1, layout in spec.hpp): every byte
// sparksave writes in this format comes from an Encoder, for write() and part_writer (write.cpp,
// from a tree) and for SaveWriter (save_file.cpp, from the caller's strings as they come).
#pragma once

#include "spec.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/error.hpp"
#include "sparksave/huge_pages.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// The writer's refusals of what a u16 field cannot hold (1.1), with the node path: a string of
// more than 65535 bytes (`what`: "entity name", "key", ...), more than 65535 of `what`.
Error too_long(std::string path, std::string_view what, std::size_t size);
Error too_many(std::string path, std::string_view what, std::size_t n);

// Bytes appended to one buffer: each write is a bounds test and a store or memcpy, no library
// call per field. The buffer's capacity grows geometrically; its string size (the part that may
// be written: the tail beyond size() is room, not data) follows in steps of at most k_step, so
// a growth copies only the bytes written and no page is touched (zero-filled) long before it is
// written: a large output costs its own pages and the smaller buffers it grew through, in huge
// pages where the system gives them (huge_pages.hpp).
class Encoder {
  public:
    // `reserve`: the capacity to start with (the expected size, or less).
    explicit Encoder(std::size_t reserve = 0) {
        buf_.reserve(reserve);
        prefer_huge_pages(buf_.data(), buf_.capacity());
    }

    // magic, version, metaSize, the block (1.1). The caller checked the block's size.
    void head(std::uint32_t version, std::string_view block) {
        bytes(k_magic);
        u32(version);
        u32(static_cast<std::uint32_t>(block.size()));
        bytes(block);
    }
    void u16(std::uint16_t v) { boost::endian::store_little_u16(room(2), v); }
    void u32(std::uint32_t v) { boost::endian::store_little_u32(room(4), v); }
    void bytes(std::string_view s) {
        if (!s.empty()) std::memcpy(room(s.size()), s.data(), s.size());
    }
    // `u16 length, bytes` (names, types, keys, values); false, writing nothing, above 65535.
    bool string16(std::string_view s) {
        if (s.size() > k_max_u16) return false;
        unsigned char* p = room(2 + s.size());
        boost::endian::store_little_u16(p, static_cast<std::uint16_t>(s.size()));
        copy(p + 2, s);
        return true;
    }
    // A key/value pair: `u16 keyLen, key, u16 valueLen, value`. 0 when written; else nothing
    // is written and 1 says the key is above 65535 bytes, 2 the value.
    int pair16(std::string_view key, std::string_view value) {
        if (key.size() > k_max_u16) return 1;
        if (value.size() > k_max_u16) return 2;
        unsigned char* p = room(4 + key.size() + value.size());
        boost::endian::store_little_u16(p, static_cast<std::uint16_t>(key.size()));
        copy(p + 2, key);
        p += 2 + key.size();
        boost::endian::store_little_u16(p, static_cast<std::uint16_t>(value.size()));
        copy(p + 2, value);
        return 0;
    }
    // A count written before what it counts was known.
    void patch_u16(std::size_t at, std::uint16_t v) {
        boost::endian::store_little_u16(reinterpret_cast<unsigned char*>(buf_.data() + at), v);
    }
    void patch_u32(std::size_t at, std::uint32_t v) {
        boost::endian::store_little_u32(reinterpret_cast<unsigned char*>(buf_.data() + at), v);
    }
    // The v4 trailer (1.5): the CRC-32 of everything before it; `crc` is that of the bytes
    // already handed out (a writer that emits blocks), 0 otherwise.
    void trailer(std::uint32_t crc = 0) { u32(crc32_update(crc, view())); }

    std::size_t size() const noexcept { return size_; }
    std::string_view view() const noexcept { return {buf_.data(), size_}; }
    void clear() noexcept { size_ = 0; }
    std::string take() && {
        buf_.resize(size_);
        size_ = 0;
        return std::move(buf_);
    }

  private:
    // memcpy, with the short strings of a save (names, keys, numbers) copied inline by two
    // overlapping loads and stores that stay inside [s, s + size).
    static void copy(unsigned char* to, std::string_view s) {
        const std::size_t n = s.size();
        const char* from = s.data();
        if (n >= 8 && n <= 16) {
            std::uint64_t a, b;
            std::memcpy(&a, from, 8);
            std::memcpy(&b, from + n - 8, 8);
            std::memcpy(to, &a, 8);
            std::memcpy(to + n - 8, &b, 8);
        } else if (n >= 4 && n < 8) {
            std::uint32_t a, b;
            std::memcpy(&a, from, 4);
            std::memcpy(&b, from + n - 4, 4);
            std::memcpy(to, &a, 4);
            std::memcpy(to + n - 4, &b, 4);
        } else if (n > 0 && n < 4) {
            to[0] = static_cast<unsigned char>(from[0]);
            to[n / 2] = static_cast<unsigned char>(from[n / 2]);
            to[n - 1] = static_cast<unsigned char>(from[n - 1]);
        } else if (n > 16) {
            std::memcpy(to, from, n);
        }
    }
    unsigned char* room(std::size_t n) {
        if (buf_.size() - size_ < n) [[unlikely]]
            grow(n);
        auto* p = reinterpret_cast<unsigned char*>(buf_.data() + size_);
        size_ += n;
        return p;
    }
    [[gnu::noinline]] void grow(std::size_t n) {
        const std::size_t need = size_ + n;
        if (need > buf_.capacity()) {
            std::size_t capacity = std::max(buf_.capacity() * 2, need + k_step);
            // Past 1 MiB, straight to a buffer that huge pages can back.
            if (capacity > k_huge_page_min / 4) capacity = std::max(capacity, k_huge_page_min);
            std::string next;
            next.reserve(capacity);
            prefer_huge_pages(next.data(), next.capacity()); // before a byte of it is touched
            next.append(buf_.data(), size_);                 // only the bytes written
            buf_.swap(next);
        }
        buf_.resize(std::min(buf_.capacity(), std::max(need, size_ + k_step)));
    }

    static constexpr std::size_t k_step = std::size_t{64} << 10;

    std::string buf_;
    std::size_t size_ = 0;
};

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
