#!/usr/bin/env python3
"""Writes testdata/gmsv/: valid GMSV saves of every version (JSON and binary component data, the
three DateTime kinds) and the invalid corpus (one file per rule of formats/gmsv/spec.hpp), each
invalid file <name>.gmsv with a <name>.gmsv.expect file listing the findings the reader must
report, in order:

    <severity> <code> <offset in hex, or -> <node path, or ->

No engine ships this format (formats/README.md §5), so there are no real files: this encoder follows the
layout of formats/README.md §5 and seed 003 alone (BinaryWriter: little-endian; Guid.ToByteArray();
DateTime.ToBinary(); System.Text.Json for JSON data), independently of the C++ writer.
Deterministic: rerunning it rewrites the same bytes. Run it from anywhere: python3
tests/gen/gmsv_corpus.py [--check] [--out DIR]; it writes through tests/gen/corpus.py, which
removes the files of valid/ and invalid/ it no longer makes and never touches hand/ or real/
(hand-written and engine files).
"""
import datetime
import struct
import uuid
import zlib

import corpus

CORPUS = corpus.Corpus("gmsv", ".gmsv", ("valid", "invalid"))

POSITION, HEALTH, INVENTORY, STABLE_ID = 1, 2, 3, 4
TICKS_PER_SECOND = 10_000_000
EPOCH = datetime.datetime(1, 1, 1)


def ticks(dt):
    d = dt - EPOCH
    return (d.days * 86400 + d.seconds) * TICKS_PER_SECOND + d.microseconds * 10


def to_binary(dt, kind="utc", offset_hours=0, extra_ticks=0):
    """DateTime.ToBinary(): Utc sets bit 62; Local stores the UTC ticks with bit 63; Unspecified none."""
    t = ticks(dt) + extra_ticks
    if kind == "utc":
        return t | (1 << 62)
    if kind == "local":
        utc = t - offset_hours * 3600 * TICKS_PER_SECOND
        if utc < 0:
            utc += 1 << 62
        return utc | (1 << 63)
    return t


def guid(text):
    """Guid.ToByteArray() of a GUID written as text (the mixed-endian .NET layout)."""
    return uuid.UUID(text).bytes_le


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def i32(*values):
    return struct.pack("<%di" % len(values), *values)


class Save:
    def __init__(self, version, timestamp):
        self.version = version
        self.timestamp = timestamp
        self.entities = []  # (guid bytes, [(type, data)])
        self.count = None
        self.crc = None
        self.extra = b""
        self.cut = None

    def entity(self, gid, *components):
        self.entities.append((guid(gid) if isinstance(gid, str) else gid, list(components)))

    def data(self):
        b = bytearray(struct.pack("<i", len(self.entities) if self.count is None else self.count))
        for gid, comps in self.entities:
            b += gid + struct.pack("<H", len(comps))
            for ctype, data in comps:
                if isinstance(data, str):
                    data = data.encode()
                b += struct.pack("<Hi", ctype, len(data)) + data
        return bytes(b)

    def encode(self):
        data = self.data()
        crc = zlib.crc32(data) & 0xFFFFFFFF if self.crc is None else self.crc
        out = b"GMSV" + struct.pack("<HQ", self.version, self.timestamp & 0xFFFFFFFFFFFFFFFF) + data + struct.pack("<I", crc) + self.extra
        return out if self.cut is None else out[:self.cut]


T = to_binary(datetime.datetime(2023, 11, 14, 22, 13, 20))
G1 = "00112233-4455-6677-8899-aabbccddeeff"
G2 = "0f8fad5b-d9cb-469f-a165-70867728950e"
G3 = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def valid_files():
    out = {}
    # v3, compact JSON as JsonSerializer.SerializeToUtf8Bytes writes it.
    s = Save(3, T)
    s.entity(G1, (POSITION, '{"X":42.5,"Y":-17.3}'), (HEALTH, '{"Current":75,"Max":100}'),
             (INVENTORY, '{"ItemIds":[3,7,7]}'), (STABLE_ID, '{"Id":"%s"}' % G1))
    s.entity(G2, (POSITION, '{"X":0,"Y":1E3}'), (HEALTH, '{"Current":0.1,"Max":1}'))
    s.entity(G3)
    out["v3-json.gmsv"] = s.encode()

    # v3, release-build binary data; a ticks value with a fraction of a second.
    s = Save(3, to_binary(datetime.datetime(2024, 2, 29, 23, 59, 59, 999999), extra_ticks=9))
    s.entity(G1, (POSITION, f32(42.5, -17.25)), (HEALTH, f32(75.0, 100.0)), (INVENTORY, i32(2, 3, 7)),
             (STABLE_ID, guid(G1)))
    s.entity(G2, (HEALTH, b""))
    out["v3-binary.gmsv"] = s.encode()

    # v3, WriteIndented JSON: nesting, escapes, non-ASCII, literals.
    s = Save(3, to_binary(datetime.datetime(2030, 1, 2, 3, 4, 5), kind="local", offset_hours=2))
    s.entity(G2, (POSITION, '{\n  "X": 1.25,\n  "Y": -2\n}'),
             (9, '{\n  "Name": "Caf\\u00E9 \\"Z\\"\\n",\n  "Tags": [\n    "a",\n    "\u00e9t\u00e9"\n  ],\n'
                 '  "Owner": null,\n  "Alive": true,\n  "Dead": false,\n  "Nested": {\n    "Deep": {}\n  },\n'
                 '  "Empty": []\n}'))
    out["v3-indented-json.gmsv"] = s.encode()

    # v3 with no entity at all.
    out["v3-empty.gmsv"] = Save(3, T).encode()

    # v1 (Position and Health only; int positions), JSON; a local-time timestamp.
    s = Save(1, to_binary(datetime.datetime(2021, 6, 1, 12, 0, 0), kind="local", offset_hours=-5))
    s.entity(G1, (POSITION, '{"X":1,"Y":2}'), (HEALTH, '{"Current":50,"Max":100}'))
    s.entity(G2, (POSITION, '{"X":-2147483648,"Y":16777217}'))
    s.entity(G3, (HEALTH, '{"Current":1,"Max":1}'), (INVENTORY, '{"ItemIds":[1]}'))
    out["v1-json.gmsv"] = s.encode()

    # v1, binary: two int32 per Position.
    s = Save(1, to_binary(datetime.datetime(2021, 6, 1, 12, 0, 0), kind="unspecified"))
    s.entity(G1, (POSITION, i32(1, 2)), (HEALTH, f32(50, 100)))
    s.entity(G2, (POSITION, i32(-3, 2147483647)))
    out["v1-binary.gmsv"] = s.encode()

    # v2 (Inventory added), JSON with int positions.
    s = Save(2, T)
    s.entity(G1, (POSITION, '{"X":10,"Y":-20}'), (INVENTORY, '{"ItemIds":[]}'))
    s.entity(G2, (INVENTORY, '{"ItemIds":[5]}'), (POSITION, '{"Y":7,"X":8,"Z":9}'))
    out["v2-json.gmsv"] = s.encode()

    # v2, binary.
    s = Save(2, T)
    s.entity(G1, (POSITION, i32(10, -20)), (INVENTORY, i32(0)))
    out["v2-binary.gmsv"] = s.encode()

    # Warnings only: an unknown type id, a GUID on two entities, an out-of-range timestamp, bytes
    # after the checksum.
    s = Save(3, (1 << 62) | 3155378976000000000)
    s.entity(G1, (POSITION, f32(1, 2)), (77, b"\x01\x02"))
    s.entity(G1, (HEALTH, f32(1, 1)))
    s.extra = b"junk"
    out["v3-warnings.gmsv"] = s.encode()
    return out


def invalid_files():
    cases = []

    def case(name, data, *lines):
        cases.append((name, data, list(lines)))

    def small():
        s = Save(3, T)
        s.entity(G1, (POSITION, '{"X":1.0,"Y":2.0}'), (HEALTH, f32(1, 2)))
        return s

    good = small().encode()
    case("too-short", b"GMS", "error truncated 0x0 -")
    case("bad-magic", b"GMSW" + good[4:], "error bad_magic 0x0 -")
    case("no-version", good[:5], "error truncated 0x4 version")
    case("short-timestamp", good[:10], "error truncated 0x6 timestamp")
    s = small()
    s.version = 0
    case("version-0", s.encode(), "error unsupported_version 0x4 version")
    s = small()
    s.version = 4
    case("version-4", s.encode(), "error unsupported_version 0x4 version")
    case("no-entity-count", good[:16], "error truncated 0xe entities")
    s = small()
    s.count = -1
    case("negative-entity-count", s.encode(), "error bad_value 0xe entities")
    s = small()
    s.count = 100
    case("entity-count-beyond-file", s.encode(), "error truncated 0xe entities")
    # Two entities: the first is 18 + 6 + 17 bytes, so the count check (18 bytes an entity) passes
    # and the data ends inside the second GUID, at 0x3b.
    s = Save(3, T)
    s.entity(G1, (POSITION, '{"X":1.0,"Y":2.0}'))
    s.entity(G2)
    case("truncated-guid", s.encode()[:0x3B + 10], "error truncated 0x3b entities[1]")
    s = Save(3, T)
    s.entities.append((guid(G1), []))
    raw = bytearray(s.encode())
    raw[0x12 + 16:0x12 + 18] = struct.pack("<H", 5000)
    case("component-count-beyond-file", bytes(raw), f"error truncated {hex(0x12 + 16)} entities[0]")
    # The second record (Health) starts at 0x3b: 0x24 + 6 + 17 bytes of Position JSON.
    case("truncated-component-header", good[:0x3B + 1], "error truncated 0x3b entities[0]")
    case("truncated-component-length", good[:0x3B + 3], "error truncated 0x3d entities[0].Health")
    s = small()
    raw = bytearray(s.encode())
    raw[0x12 + 18 + 2:0x12 + 18 + 6] = struct.pack("<i", -5)
    case("negative-data-length", bytes(raw), "error bad_value 0x26 entities[0].Position")
    s = small()
    raw = bytearray(s.encode())
    raw[0x12 + 18 + 2:0x12 + 18 + 6] = struct.pack("<i", 1000)
    case("data-length-beyond-file", bytes(raw), "error truncated 0x2a entities[0].Position")
    case("missing-checksum", good[:-2], f"error truncated {hex(len(good) - 4)} checksum")
    s = small()
    s.crc = 0xDEADBEEF
    case("checksum-mismatch", s.encode(), f"error checksum_mismatch {hex(len(good) - 4)} checksum")
    s = Save(3, T)
    s.entity(G1, (POSITION, f32(1, 2)), (HEALTH, f32(1, 2)), (POSITION, f32(3, 4)))
    case("duplicate-component", s.encode(), f"error duplicate_component {hex(0x12 + 18 + 14 + 14)} entities[0].Position")
    s = Save(3, T)
    s.entity(G1, (12, b""), (12, b"x"))
    case("duplicate-unknown-component", s.encode(),
         f"warning unknown_type {hex(0x12 + 18)} entities[0].type12",
         f"warning unknown_type {hex(0x12 + 18 + 6)} entities[0].type12",
         f"error duplicate_component {hex(0x12 + 18 + 6)} entities[0].type12")
    return cases


def generate():
    for name, data in valid_files().items():
        CORPUS.write_file("valid", name, data)
    for name, data, expect in invalid_files():
        CORPUS.write("invalid", name, data, expect)


if __name__ == "__main__":
    corpus.run(CORPUS, generate, description=__doc__.splitlines()[0])
