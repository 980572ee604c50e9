#!/usr/bin/env python3
"""The straightforward .spark_save reader a team would write with Python's struct module
(formats/README.md §1.1): reads every field into dicts, checks the v4 CRC-32 with zlib, checks nothing
else. A peer for the benchmark, not part of sparksave. Usage: spark_save_struct.py FILE"""
import struct
import sys
import zlib


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"SPRK":
        raise ValueError("bad magic")
    version, meta_size = struct.unpack_from("<II", data, 4)
    end = len(data)
    if version >= 4:
        end -= 4
        (stored,) = struct.unpack_from("<I", data, end)
        if zlib.crc32(data[:end]) != stored:
            raise ValueError("checksum mismatch")
    pos = 12
    metadata = data[pos:pos + meta_size].decode("utf-8", "replace").split("\n")
    pos += meta_size

    def lstr():
        nonlocal pos
        (n,) = struct.unpack_from("<H", data, pos)
        s = data[pos + 2:pos + 2 + n]
        pos += 2 + n
        return s

    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    entities = []
    for _ in range(count):
        name = lstr()
        (ncomp,) = struct.unpack_from("<H", data, pos)
        pos += 2
        comps = {}
        for _ in range(ncomp):
            ctype = lstr()
            (nprop,) = struct.unpack_from("<H", data, pos)
            pos += 2
            props = {}
            for _ in range(nprop):
                k = lstr()
                props[k] = lstr()
            comps[ctype] = props
        entities.append((name, comps))
    custom = {}
    if pos + 4 <= end:
        (ncustom,) = struct.unpack_from("<I", data, pos)
        pos += 4
        for _ in range(ncustom):
            k = lstr()
            custom[k] = lstr()
    return version, metadata, entities, custom


if __name__ == "__main__":
    version, metadata, entities, custom = read(sys.argv[1])
    print(f"v{version} entities {len(entities)} custom {len(custom)}")
