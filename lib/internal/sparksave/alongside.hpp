// Work on a second thread, written once: diff reads its two files at once, and the reader of a
// checksummed format computes a large file's CRC-32 while it parses it (formats/README.md §1.5),
// then reads the file again, the careful way, when the CRC shows the parse assumed wrong.
#pragma once

#include "sparksave/version.hpp"

#include <cstdint>
#include <functional>
#include <optional>

SPARKSAVE_BEGIN_NAMESPACE

// Runs `there` on a second thread while `here` runs on this one; returns when both are done.
// When no thread can be started (`ulimit -u`, no memory), both run on this thread, `there`
// first.
void alongside(const std::function<void()>& here, const std::function<void()>& there);

// What one read of a checksummed file is told about the file's CRC-32 (read_with_crc).
struct CrcHint {
    // The CRC, when it was computed before this read.
    std::optional<std::uint32_t> known;
    // Set on the first read of a large file: waits for the CRC computed on another thread
    // meanwhile and returns it. The read parses on the assumption that the file verifies, then
    // checks that assumption against it.
    std::function<std::uint32_t()> await;
};

// The parallel-CRC read of a checksummed file. `read(hint)` reads the whole file afresh (its
// own sink and findings) and returns false when the CRC shows that the file is not what the
// read assumed; `crc()` computes the CRC. With `parallel` (a large file), crc() runs on a second
// thread while the first read parses, and a read that returns false is done again, once, with
// the CRC known. Without `parallel`, the file is read once: the read computes the CRC when it
// needs it. When no thread can be started, the CRC is computed first and the file read once.
void read_with_crc(bool parallel, const std::function<std::uint32_t()>& crc,
                   const std::function<bool(const CrcHint&)>& read);

SPARKSAVE_END_NAMESPACE
