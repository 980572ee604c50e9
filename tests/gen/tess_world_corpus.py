#!/usr/bin/env python3
"""Writes the generated part of testdata/tess_world/: valid archives of both versions and the
invalid corpus (one file per check of formats/README.md §4.3), each invalid file <name>.tessw with a
<name>.tessw.expect file listing the findings the reader must report, in order:

    <severity> <code> <offset in hex, or -> <node path, or ->

The real files of ../shared/fixtures/real/ (tess-*.tessw) are checked in, under their own names,
in real/valid/ and real/invalid/; no generator writes them.

This encoder is written from formats/README.md §4 alone, independently of the C++ writer, so a
writer bug cannot hide behind fixtures it produced itself. Deterministic: rerunning it rewrites
the same bytes; it builds the whole corpus in memory before it writes a byte. Run it from
anywhere: python3 tests/gen/tess_world_corpus.py [--check] [--out DIR]; it writes through
tests/gen/corpus.py, which removes the files of valid/ and invalid/ it no longer makes and never
touches hand/ or real/ (hand-written and engine files).
"""
import struct
import zlib

import corpus

CORPUS = corpus.Corpus("tess_world", ".tessw", ("valid", "invalid"))

ORTH = 0x4F525448
HEXA = 0x48455841
DENSE, SPARSE = 1, 2
UNSIGNED, SIGNED, FLOAT, BOOL = 1, 2, 3, 4
FMT = {(UNSIGNED, 1): "<B", (UNSIGNED, 2): "<H", (UNSIGNED, 4): "<I", (UNSIGNED, 8): "<Q",
       (SIGNED, 1): "<b", (SIGNED, 2): "<h", (SIGNED, 4): "<i", (SIGNED, 8): "<q",
       (FLOAT, 4): "<f", (FLOAT, 8): "<d", (BOOL, 1): "<B"}


def bits32(u):
    """A float32 given by its IEEE bits, as raw bytes."""
    return struct.pack("<I", u)


def bits64(u):
    return struct.pack("<Q", u)


class Archive:
    """An archive described field by field; encode() lays it out as 4.1/4.2 say."""

    def __init__(self, version=2, world=(1, 1, 1), chunk=(1, 1, 1), lattice=ORTH, lattice_version=1,
                 key_layout=1, schema=0x0102030405060708, schema_version=9, library=(0, 13, 0),
                 residency=DENSE):
        self.version = version
        self.world = world
        self.chunk = chunk
        self.lattice = lattice
        self.lattice_version = lattice_version
        self.key_layout = key_layout
        self.schema = schema
        self.schema_version = schema_version
        self.library = library
        self.residency = residency
        self.fields = []  # (id, version, kind, width)
        self.chunks = []  # (key, state, mask, entities, [column bytes])
        # Overrides for the invalid corpus.
        self.field_count = None
        self.chunk_count = None
        self.body_size = None
        self.crc = None
        self.extra = b""

    def tiles(self):
        return self.chunk[0] * self.chunk[1] * self.chunk[2]

    def field(self, fid, kind, width, version=1):
        self.fields.append((fid, version, kind, width))

    def add(self, key, columns, mask=0, entities=0, state=1):
        """columns: one list of values per field (or raw bytes)."""
        raw = []
        for (fid, fv, kind, width), values in zip(self.fields, columns):
            if isinstance(values, bytes):
                raw.append(values)
            else:
                raw.append(b"".join(v if isinstance(v, bytes) else struct.pack(FMT[(kind, width)], v)
                                    for v in values))
        self.chunks.append((key, state, mask, entities, raw))

    def body(self):
        b = bytearray()
        for fid, fv, kind, width in self.fields:
            b += struct.pack("<QIBI", fid, fv, kind, width)
        for key, state, mask, entities, raw in self.chunks:
            b += struct.pack("<Q", key)
            if self.version == 1:
                b += struct.pack("<B", state)
            b += struct.pack("<II", mask, entities)
            for r in raw:
                b += r
        return bytes(b) + self.extra

    def encode(self):
        body = self.body()
        h = bytearray(b"TESSWLD\0")
        h += struct.pack("<I", self.version)
        h += struct.pack("<Q", len(body) if self.body_size is None else self.body_size)
        h += b"\0\0\0\0"
        h += struct.pack("<3Q", *self.world) + struct.pack("<3Q", *self.chunk)
        h += struct.pack("<IIIQI", self.lattice, self.lattice_version, self.key_layout, self.schema,
                         self.schema_version)
        h += struct.pack("<3I", *self.library)
        h += struct.pack("<BIQ", self.residency,
                         len(self.fields) if self.field_count is None else self.field_count,
                         len(self.chunks) if self.chunk_count is None else self.chunk_count)
        assert len(h) == 121
        data = bytes(h) + body
        crc = zlib.crc32(data[:20] + data[24:]) & 0xFFFFFFFF
        if self.crc is not None:
            crc = self.crc
        return data[:20] + struct.pack("<I", crc) + data[24:]


def valid_files():
    out = {}

    # Dense 4x4x1 world of 2x2x1 chunks (4 chunks of 4 tiles), one field of every kind.
    a = Archive(world=(4, 4, 1), chunk=(2, 2, 1), schema=0xCAFEF00D00000001, schema_version=2)
    a.field(0x10, UNSIGNED, 1, version=1)
    a.field(0x20, SIGNED, 2, version=2)
    a.field(0x30, FLOAT, 4, version=3)
    a.field(0x40, BOOL, 1, version=1)
    a.field(0x50, UNSIGNED, 8, version=1)
    a.field(0x60, FLOAT, 8, version=1)
    a.field(0x70, SIGNED, 8, version=1)
    for key in range(4):
        a.add(key, [
            [key, 255, 0, 17],
            [-32768, -1, 0, 32767],
            [0.1, -0.0, 1.5, bits32(0x00000001)] if key == 0 else
            [bits32(0x7FC00001), bits32(0x7F800000), bits32(0xFF800000), 3.4028234663852886e38],
            [1, 0, 1, 1 if key % 2 else 0],
            [0, 2**64 - 1, 2**53 + 1, key],
            [0.1, -2.5e-300, 1e300, bits64(0x7FF8000000000001)] if key == 2 else [1.0, 2.0, 3.0, -4.0],
            [-2**63, 2**63 - 1, -1, 0],
        ], mask=(1 << key) | 0x100, entities=key * 3)
    out["dense-every-kind.tessw"] = a.encode()

    # Sparse hex-axial world: 3 of 8 logical chunks (keys 1, 4, 7), 2x1x2 chunks.
    a = Archive(world=(4, 2, 4), chunk=(2, 1, 2), lattice=HEXA, lattice_version=2, residency=SPARSE,
                library=(1, 2, 3))
    a.field(0xAA00000000000001, SIGNED, 1, version=7)
    a.field(0xAA00000000000002, UNSIGNED, 4, version=1)
    for key in (1, 4, 7):
        a.add(key, [[-128, 127, -key, key], [key, 1000000, 0xFFFFFFFF, 0]], mask=0xFFFFFFFF, entities=key)
    out["sparse-hex-axial.tessw"] = a.encode()

    # No fields at all: two dense chunks of bare prefixes.
    a = Archive(world=(2, 1, 1), chunk=(1, 1, 1))
    a.add(0, [], mask=1, entities=0)
    a.add(1, [], mask=2, entities=5)
    out["no-fields.tessw"] = a.encode()

    # A sparse archive that holds no chunk.
    a = Archive(world=(8, 8, 8), chunk=(4, 4, 4), residency=SPARSE)
    a.field(1, FLOAT, 4)
    out["sparse-empty.tessw"] = a.encode()

    # 40 tiles per chunk: the dump prints 16 values a line.
    a = Archive(world=(5, 4, 2), chunk=(5, 4, 2), residency=DENSE)
    a.field(0x77, UNSIGNED, 2)
    a.field(0x78, FLOAT, 4)
    a.add(0, [list(range(0, 4000, 100)), [i / 4 - 3 for i in range(40)]], mask=0xABCDEF01, entities=40)
    out["forty-tiles.tessw"] = a.encode()

    # A retired v1 archive of its own: sparse, chunk states 0 (sleeping) and 1 (active), the
    # only two the v1 reader accepted.
    a = Archive(version=1, world=(3, 1, 1), chunk=(1, 1, 1), residency=SPARSE, library=(0, 12, 4))
    a.field(5, UNSIGNED, 2)
    a.field(6, BOOL, 1)
    for key, state in ((0, 0), (1, 1), (2, 0)):
        a.add(key, [[1000 + key], [key % 2]], mask=key, entities=key, state=state)
    out["v1-sparse-states.tessw"] = a.encode()

    # Archives tess inspects as Ok but no tess world loads (4.3 "tess loads it"); no-fields and
    # forty-tiles (chunk 5 x 4 x 2, not powers of two) above are two more.
    a = base()
    a.key_layout = 2
    out["key-layout-2.tessw"] = a.encode()
    a = Archive(world=(2**63, 1, 1), chunk=(1, 1, 1), residency=SPARSE)
    a.field(0x99, UNSIGNED, 1)
    a.add(2**63 - 1, [[1]])
    out["world-axis-2-63.tessw"] = a.encode()
    return out


def base():
    """A small valid dense v2 archive: 2x1x1 world of 1x1x1 chunks, one u8 field."""
    a = Archive(world=(2, 1, 1), chunk=(1, 1, 1))
    a.field(0x99, UNSIGNED, 1)
    a.add(0, [[7]])
    a.add(1, [[8]])
    return a


def sparse_base():
    a = Archive(world=(8, 1, 1), chunk=(1, 1, 1), residency=SPARSE)
    a.field(0x99, UNSIGNED, 1)
    return a


def invalid_files():
    """(name, bytes, expect lines)."""
    cases = []

    def case(name, data, *lines):
        cases.append((name, data, list(lines)))

    good = base().encode()
    case("too-short", b"TESSW", "error truncated 0x0 -")
    case("no-version", good[:10], "error truncated 0x8 version")
    a = base()
    a.version = 3
    case("version-3", a.encode(), "error unsupported_version 0x8 version")
    case("short-header", good[:60], "error truncated 0x30 header.chunkSize")
    case("v1-short-header", base_v1().encode()[:100],
         "warning needs_migration 0x8 version", "error truncated 0x60 header.libraryVersion")
    a = base()
    a.body_size = len(a.body()) + 1
    case("body-shorter-than-declared", a.encode(), f"error truncated {hex(len(a.encode()))} header.bodySize")
    a = base()
    a.body_size = len(a.body()) - 1
    case("body-longer-than-declared", a.encode(), f"error trailing_bytes {hex(121 + a.body_size)} header.bodySize")
    a = base()
    a.crc = 0x12345678
    case("checksum-mismatch", a.encode(), "error checksum_mismatch 0x14 header.checksum")
    a = sparse_base()
    a.add(3, [[1]])
    a.add(2, [[2]])
    a.crc = 0  # after a mismatch the read goes on (salvage, as dump does) and finds more
    case("checksum-mismatch-then-key", a.encode(), "error checksum_mismatch 0x14 header.checksum",
         f"error bad_chunk {hex(121 + 17 + 17)} chunks[1].key")
    a = base()
    a.field_count = 1025
    case("too-many-fields", a.encode(), "error limit_exceeded 0x6d header.fieldCount")
    a = base()
    a.world = (2, 0, 1)
    case("zero-world-size", a.encode(), "error bad_value 0x20 header.worldSize.y")
    a = base()
    a.chunk = (1, 1, 0)
    case("zero-chunk-size", a.encode(), "error bad_value 0x40 header.chunkSize.z")
    a = base()
    a.world = (3, 1, 1)
    a.chunk = (2, 1, 1)
    case("world-not-divisible", a.encode(), "error bad_value 0x18 header.worldSize.x")
    a = base()
    a.residency = 3
    case("bad-residency", a.encode(), "error bad_value 0x6c header.residency")
    a = base()
    a.chunks = []
    a.field_count = 3
    a.residency = SPARSE
    case("descriptors-past-body", a.encode(), f"error truncated {hex(121 + 17)} fields[1]")
    for name, kind, width, at, path in (("bad-kind", 5, 1, 121 + 12, "fields[0].kind"),
                                        ("bad-width", UNSIGNED, 3, 121 + 13, "fields[0].width"),
                                        ("bool-width-2", BOOL, 2, 121 + 13, "fields[0].width"),
                                        ("float-width-2", FLOAT, 2, 121 + 13, "fields[0].width")):
        a = sparse_base()
        a.fields = [(0x99, 1, kind, width)]
        case(name, a.encode(), f"error bad_descriptor {hex(at)} {path}")
    a = sparse_base()
    a.field(0x99, SIGNED, 2)
    case("repeated-field-id", a.encode(), f"error bad_descriptor {hex(121 + 17)} fields[1].id")
    a = base()
    a.extra = b"\0\0\0"
    case("record-size-mismatch", a.encode(), f"error size_mismatch {hex(121 + 17)} chunks")
    # tiles x width fits (2^64 - 8), the 16-byte prefix on top does not.
    a = Archive(world=(2**61 - 1, 1, 1), chunk=(2**61 - 1, 1, 1), residency=SPARSE)
    a.field(1, UNSIGNED, 8)
    case("record-size-overflow", a.encode(), f"error size_mismatch {hex(121 + 17)} chunks")
    # The tiles of one chunk overflow 64 bits: Corrupt even with no field to store.
    a = Archive(world=(2**32, 2**32, 1), chunk=(2**32, 2**32, 1), residency=SPARSE)
    case("tiles-overflow", a.encode(), "error size_mismatch 0x30 header.chunkSize")
    # chunkCount x record size overflows 64 bits.
    a = sparse_base()
    a.chunk_count = 2**64 - 1
    case("record-count-overflow", a.encode(), f"error size_mismatch {hex(121 + 17)} chunks")
    # 121 + bodySize overflows 64 bits: Corrupt, not Truncated.
    a = base()
    a.body_size = 2**64 - 1
    case("body-size-overflow", a.encode(), "error size_mismatch 0xc header.bodySize")
    # A sparse archive whose logical chunk count (2^40 x 2^40 x 1) overflows: tess says Corrupt
    # even though every record is whole and its key is small.
    a = Archive(world=(2**40, 2**40, 1), chunk=(1, 1, 1), residency=SPARSE)
    a.field(0x99, UNSIGNED, 1)
    a.add(5, [[1]])
    case("logical-count-overflow", a.encode(), "error limit_exceeded 0x18 header.worldSize")
    a = base()
    a.chunks = a.chunks[:1]
    case("dense-missing-chunk", a.encode(), "error bad_chunk 0x71 header.chunkCount")
    a = sparse_base()
    a.add(1, [[1]])
    a.add(2, [[2]])
    a.chunk_count = 3
    # The record-size equation comes before the records: Corrupt, never InvalidChunk.
    case("short-record", a.encode(), f"error size_mismatch {hex(121 + 17)} chunks")
    a = sparse_base()
    a.add(1, [[1]])
    a.add(2, [[2]])
    a.extra = b"\0" * 7  # the last record cut short, as much as a 17-byte record is long
    a.chunk_count = 3
    case("cut-record", a.encode(), f"error size_mismatch {hex(121 + 17)} chunks")
    a = sparse_base()
    a.add(8, [[1]])
    case("key-out-of-range", a.encode(), f"error bad_chunk {hex(121 + 17)} chunks[0].key")
    a = sparse_base()
    a.add(3, [[1]])
    a.add(2, [[2]])
    case("key-out-of-order", a.encode(), f"error bad_chunk {hex(121 + 17 + 17)} chunks[1].key")
    a = sparse_base()
    a.add(3, [[1]])
    a.add(3, [[2]])
    case("key-repeated", a.encode(), f"error bad_chunk {hex(121 + 17 + 17)} chunks[1].key")
    a = sparse_base()
    a.add(1, [[1]])
    a.add(2, [[2]])
    a.chunk_count = 1
    case("leftover-records", a.encode(), f"error size_mismatch {hex(121 + 17)} chunks")
    a = Archive(world=(2, 2, 1), chunk=(2, 2, 1))
    a.field(1, UNSIGNED, 1)
    a.field(2, BOOL, 1)
    a.add(0, [[1, 2, 3, 4], [1, 2, 0, 1]])
    case("bool-byte-2", a.encode(), f"error bad_value {hex(121 + 34 + 16 + 4 + 1)} chunks[0].fields[1][1]")
    # v1: a chunk state above 1 (the v1 reader refused it: InvalidChunk; never migrated).
    a = Archive(version=1, world=(3, 1, 1), chunk=(1, 1, 1), residency=SPARSE, library=(0, 12, 0))
    a.field(0x99, UNSIGNED, 1)
    a.add(0, [[1]], state=1)
    a.add(2, [[2]], state=2)
    case("v1-chunk-state-2", a.encode(), "warning needs_migration 0x8 version",
         f"error bad_chunk {hex(121 + 17 + 18 + 8)} chunks[1].state")
    # v1: the key checks come before the state in one record.
    a = Archive(version=1, world=(3, 1, 1), chunk=(1, 1, 1), residency=SPARSE, library=(0, 12, 0))
    a.field(0x99, UNSIGNED, 1)
    a.add(3, [[1]], state=9)
    case("v1-key-before-state", a.encode(), "warning needs_migration 0x8 version",
         f"error bad_chunk {hex(121 + 17)} chunks[0].key")
    a = base_v1()
    a.crc = 1
    case("v1-checksum-mismatch", a.encode(), "warning needs_migration 0x8 version",
         "error checksum_mismatch 0x14 header.checksum")
    return cases


def base_v1():
    a = base()
    a.version = 1
    a.library = (0, 12, 0)
    return a


def generate():
    for name, data in valid_files().items():
        CORPUS.write_file("valid", name, data)
    for name, data, expect in invalid_files():
        CORPUS.write("invalid", name, data, expect)


if __name__ == "__main__":
    corpus.run(CORPUS, generate, description=__doc__.splitlines()[0])
