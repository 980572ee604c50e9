// Out-of-line parts of the byte writer.
#include "sparksave/bytes.hpp"
#include "sparksave/version.hpp"

#include <boost/endian/conversion.hpp>

SPARKSAVE_BEGIN_NAMESPACE

namespace endian = boost::endian;

void ByteReader::fail(std::size_t count) noexcept {
    if (!failed_) {
        failed_ = true;
        failed_at_ = pos_;
        wanted_ = count;
    }
}

void ByteWriter::u16(std::uint16_t v) {
    unsigned char b[2];
    endian::store_little_u16(b, v);
    out_.append(reinterpret_cast<const char*>(b), 2);
}

void ByteWriter::u32(std::uint32_t v) {
    unsigned char b[4];
    endian::store_little_u32(b, v);
    out_.append(reinterpret_cast<const char*>(b), 4);
}

void ByteWriter::u64(std::uint64_t v) {
    unsigned char b[8];
    endian::store_little_u64(b, v);
    out_.append(reinterpret_cast<const char*>(b), 8);
}

void ByteWriter::patch_u16(std::size_t at, std::uint16_t v) {
    endian::store_little_u16(reinterpret_cast<unsigned char*>(out_.data() + at), v);
}

void ByteWriter::patch_u32(std::size_t at, std::uint32_t v) {
    endian::store_little_u32(reinterpret_cast<unsigned char*>(out_.data() + at), v);
}

SPARKSAVE_END_NAMESPACE
