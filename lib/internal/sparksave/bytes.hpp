// The bounds-checked byte reader and the matching byte writer. The binary formats read and write
// through these two, so every length is checked against the bytes left before it is used; the
// Boost.Endian loads and stores are here, in lib/src/bytes.cpp, and in spark_save's hot paths,
// which check their bounds once for a whole record (formats/spark_save/reader.hpp, rules.hpp,
// write.hpp).
#pragma once

#include "sparksave/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <boost/endian/conversion.hpp>

SPARKSAVE_BEGIN_NAMESPACE

using ByteView = std::span<const std::byte>;

inline std::string_view as_chars(ByteView bytes) noexcept {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}
inline ByteView as_bytes(std::string_view text) noexcept {
    return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// A cursor over little-endian data with a sticky error (LLVM DataExtractor::Cursor): once a
// read runs past the end, that read and every later one return zero / empty and ok() is false,
// so decoding code stays straight-line and checks once. failed_at() and wanted() tell where
// the first short read happened and how many bytes it needed.
class ByteReader {
  public:
    explicit ByteReader(ByteView data, std::size_t start = 0) noexcept
        : data_(data), pos_(start <= data.size() ? start : data.size()) {}

    std::uint8_t u8() noexcept {
        auto p = take(1);
        return p ? p[0] : 0;
    }
    std::uint16_t u16() noexcept {
        auto p = take(2);
        return p ? boost::endian::load_little_u16(p) : 0;
    }
    std::uint32_t u32() noexcept {
        auto p = take(4);
        return p ? boost::endian::load_little_u32(p) : 0;
    }
    std::uint64_t u64() noexcept {
        auto p = take(8);
        return p ? boost::endian::load_little_u64(p) : 0;
    }
    std::int32_t i32() noexcept { return static_cast<std::int32_t>(u32()); }
    std::int64_t i64() noexcept { return static_cast<std::int64_t>(u64()); }
    // `count` bytes as a view into the data (no copy).
    std::string_view bytes(std::size_t count) noexcept {
        auto p = take(count);
        return p ? std::string_view(reinterpret_cast<const char*>(p), count) : std::string_view{};
    }
    // Skips `count` bytes.
    void skip(std::size_t count) noexcept { (void)bytes(count); }

    bool ok() const noexcept { return !failed_; }
    std::size_t pos() const noexcept { return pos_; }
    std::size_t size() const noexcept { return data_.size(); }
    std::size_t remaining() const noexcept { return data_.size() - pos_; }
    bool at_end() const noexcept { return pos_ == data_.size(); }
    // True when `count` bytes are left; never sets the error.
    bool has(std::size_t count) const noexcept { return count <= remaining(); }
    std::size_t failed_at() const noexcept { return failed_at_; }
    std::size_t wanted() const noexcept { return wanted_; }

  private:
    const unsigned char* take(std::size_t count) noexcept {
        if (failed_ || count > data_.size() - pos_) {
            fail(count);
            return nullptr;
        }
        auto p = reinterpret_cast<const unsigned char*>(data_.data()) + pos_;
        pos_ += count;
        return p;
    }
    void fail(std::size_t count) noexcept;

    ByteView data_;
    std::size_t pos_;
    std::size_t failed_at_ = 0;
    std::size_t wanted_ = 0;
    bool failed_ = false;
};

// Appends little-endian values to a std::string used as a byte buffer.
class ByteWriter {
  public:
    ByteWriter() = default;
    explicit ByteWriter(std::size_t reserve) { out_.reserve(reserve); }

    void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u16(std::uint16_t v);
    void u32(std::uint32_t v);
    void u64(std::uint64_t v);
    void bytes(std::string_view v) { out_.append(v); }
    // Overwrites bytes at `at` (a count or checksum patched in after the fact).
    void patch_u16(std::size_t at, std::uint16_t v);
    void patch_u32(std::size_t at, std::uint32_t v);

    std::size_t size() const noexcept { return out_.size(); }
    void clear() noexcept { out_.clear(); }
    // Drops what was written after `size` bytes.
    void truncate(std::size_t size) { out_.resize(size); }
    std::string_view view() const noexcept { return out_; }
    std::string take() && { return std::move(out_); }

  private:
    std::string out_;
};

SPARKSAVE_END_NAMESPACE
