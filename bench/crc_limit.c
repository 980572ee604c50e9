/* The least any verifier must do: read the file and compute its CRC-32 with zlib. The
   benchmark's "limit" peer. Usage: crc_limit FILE */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    FILE* f = fopen(argv[1], "rb");
    if (!f) return 2;
    static unsigned char buf[1 << 20];
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) crc = crc32(crc, buf, (uInt)n);
    fclose(f);
    printf("%08lx\n", crc);
    return 0;
}
