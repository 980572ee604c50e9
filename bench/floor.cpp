// The floor of every workload on a `.spark_save` (issue 26): map the file and walk its length
// prefixes (formats/README.md §1.1) with a bounds check before every read, nothing else: no
// rule, no CRC-32, no output but a line of counts (so the walk cannot be optimised away).
// bench/run.py reports each workload as a ratio to this in the same run.
//
//     floor FILE      prints "strings N bytes M" (exit 0), or where the walk stopped (exit 1)
//
// and the floor of every workload that writes a file durably (migrate, salvage): FILE's bytes
// written to a new OUT in 1 MiB blocks, then fsync (what any durable write of as many bytes
// costs on this disk, nothing else):
//
//     floor --write FILE OUT    prints "wrote N" (exit 0); OUT must not exist
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Walk {
    const unsigned char* p;
    std::size_t size;
    std::size_t at = 0;
    std::uint64_t strings = 0, bytes = 0;

    bool u16(std::uint32_t& v) {
        if (size - at < 2) return false;
        v = static_cast<std::uint32_t>(p[at] | p[at + 1] << 8);
        at += 2;
        return true;
    }
    bool u32(std::uint32_t& v) {
        if (size - at < 4) return false;
        std::memcpy(&v, p + at, 4); // little-endian hosts (the bench machines)
        at += 4;
        return true;
    }
    // A u16 length and that many bytes.
    bool string() {
        std::uint32_t n;
        if (!u16(n) || size - at < n) return false;
        at += n;
        ++strings;
        bytes += n;
        return true;
    }
    bool run() {
        std::uint32_t version, meta, entities;
        if (size < 12 || std::memcmp(p, "SPRK", 4) != 0) return false;
        at = 4;
        if (!u32(version) || !u32(meta) || size - at < meta) return false;
        at += meta;
        if (!u32(entities)) return false;
        for (std::uint32_t e = 0; e < entities; ++e) {
            std::uint32_t components;
            if (!string() || !u16(components)) return false;
            for (std::uint32_t c = 0; c < components; ++c) {
                std::uint32_t properties;
                if (!string() || !u16(properties)) return false;
                for (std::uint32_t k = 0; k < properties; ++k)
                    if (!string() || !string()) return false;
            }
        }
        std::uint32_t pairs;
        if (!u32(pairs)) return version < 3; // optional in v1/v2
        for (std::uint32_t k = 0; k < pairs; ++k)
            if (!string() || !string()) return false;
        return true;
    }
};

// floor --write: FILE's mapped bytes to OUT, then fsync.
int write_floor(const unsigned char* p, std::size_t size, const char* out) {
    const int fd = open(out, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        std::perror(out);
        return 2;
    }
    constexpr std::size_t k_block = 1 << 20;
    for (std::size_t at = 0; at < size;) {
        const ssize_t n = write(fd, p + at, size - at < k_block ? size - at : k_block);
        if (n <= 0) {
            std::perror(out);
            return 2;
        }
        at += static_cast<std::size_t>(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        std::perror(out);
        return 2;
    }
    std::printf("wrote %zu\n", size);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const bool writing = argc == 4 && std::strcmp(argv[1], "--write") == 0;
    if (argc != 2 && !writing) {
        std::fprintf(stderr, "usage: floor FILE | floor --write FILE OUT\n");
        return 2;
    }
    if (writing) ++argv;
    const int fd = open(argv[1], O_RDONLY);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        std::perror(argv[1]);
        return 2;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        std::perror("mmap");
        return 2;
    }
    if (writing) return write_floor(static_cast<const unsigned char*>(map), size, argv[2]);
    Walk w{static_cast<const unsigned char*>(map), size};
    const bool ok = w.run();
    std::printf("strings %llu bytes %llu\n", static_cast<unsigned long long>(w.strings),
                static_cast<unsigned long long>(w.bytes));
    if (!ok) std::fprintf(stderr, "%s: the walk stopped at offset %zu\n", argv[1], w.at);
    munmap(map, size);
    close(fd);
    return ok ? 0 : 1;
}
