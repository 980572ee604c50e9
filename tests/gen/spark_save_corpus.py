#!/usr/bin/env python3
"""Writes the generated part of testdata/spark_save/: valid files of every version and the
invalid corpus (one file per rule of formats/README.md §1.4/1.5), each invalid file <name>.spark_save
with a <name>.spark_save.expect file listing the findings the reader must report, in order:

    <severity> <code> <offset in hex, or -> <node path, or ->

This encoder is written from formats/README.md alone, independently of the C++ writer, so a writer bug
cannot hide behind fixtures it produced itself. The engine's own saves are checked in under
real/valid/. Deterministic: rerunning it rewrites the same bytes. Run it from anywhere: python3
tests/gen/spark_save_corpus.py [--check] [--out DIR]; it writes through tests/gen/corpus.py, which
removes the files of valid/ and invalid/ it no longer makes and never touches hand/ or real/
(hand-written and engine files).
"""
import struct
import zlib

import corpus

CORPUS = corpus.Corpus("spark_save", ".spark_save", ("valid", "invalid"))
write = CORPUS.write


def u16(n):
    return struct.pack("<H", n)


def u32(n):
    return struct.pack("<I", n)


def s16(b):
    if isinstance(b, str):
        b = b.encode()
    return u16(len(b)) + b


def meta_text(version, name="Generated save", scene="Arena", cls="Scout", shot="shots/a.png",
              ts="1700000000", play="3725.5", hp="75", armor="25", pos="1 2 3", kills="4",
              deaths="1", tail=""):
    lines = [name, scene, cls] + ([shot] if version >= 2 else [])
    lines += [ts, play, hp, armor, pos, kills, deaths]
    return ("\n".join(lines) + "\n" + tail).encode()


class Save:
    """Builds a file and remembers where each field starts, for the .expect offsets."""

    def __init__(self, version, meta=None, stored_version=None):
        self.version = version
        self.b = bytearray(b"SPRK" + u32(stored_version if stored_version is not None else version))
        meta = meta if meta is not None else meta_text(version)
        self.b += u32(len(meta)) + meta
        self.at = {}

    def mark(self, name):
        self.at[name] = len(self.b)

    def entities(self, ents):
        self.mark("entityCount")
        self.b += u32(len(ents))
        for ei, (name, comps) in enumerate(ents):
            self.mark(f"e{ei}")
            self.b += s16(name) + u16(len(comps))
            for ci, (ctype, props) in enumerate(comps):
                self.mark(f"e{ei}c{ci}")
                self.b += s16(ctype) + u16(len(props))
                for pi, (k, v) in enumerate(props):
                    self.mark(f"e{ei}c{ci}p{pi}")
                    self.b += s16(k) + s16(v)
        return self

    def custom(self, pairs, count=None):
        self.mark("customCount")
        self.b += u32(len(pairs) if count is None else count)
        for i, (k, v) in enumerate(pairs):
            self.mark(f"pair{i}")
            self.b += s16(k) + s16(v)
        return self

    def raw(self, data):
        self.mark("raw")
        self.b += data
        return self

    def done(self, crc=None):
        out = bytes(self.b)
        if self.version == 4 and crc is not False:
            body = out
            if crc == "as4":  # CRC computed with the version field reading 4
                body = out[:4] + u32(4) + out[8:]
            out += u32(zlib.crc32(body) & 0xFFFFFFFF)
        return out


def transform(parent=None, order=("px", "py", "pz", "rx", "ry", "rz", "sx", "sy", "sz")):
    vals = {"px": "12.500000", "py": "-3.250000", "pz": "99.750000", "rx": "0.125000",
            "ry": "1.500000", "rz": "-2.250000", "sx": "2.000000", "sy": "0.500000", "sz": "3.750000"}
    props = [(k, vals[k]) for k in order]
    if parent is not None:
        props.append(("parent", parent))
    return ("Transform", props)


HEALTH = ("HealthComponent", [("current", "80.000000"), ("max", "100.000000"), ("regen", "0")])
TAGS = ("TagComponent", [("tags", "enemy,boss,flying")])

def valid():
    # A v4 save with a hierarchy, several component types, unordered properties.
    ents = [
        ("world-root", [transform("-1")]),
        ("player", [transform("0", order=("rz", "px", "py", "rx", "pz", "ry", "sx", "sy", "sz")),
                    HEALTH, TAGS]),
        ("sword", [transform("1"), ("MeshRenderer", [("mesh", "meshes/sword.mesh"), ("visible", "1")])]),
        ("", [("LightComponent", [("color", "1 0.9 0.8"), ("intensity", "3.000000")])]),
    ]
    write("valid", "v4-hierarchy", Save(4).entities(ents).custom(
        [("quest.main.stage", "3"), ("fps.profile.version", "1"), ("difficulty", "hard")]).done())
    # Empty everything: no entities, no custom state, empty metadata strings.
    write("valid", "v4-empty", Save(4, meta_text(4, name="", scene="", cls="", shot="")).entities([]).custom([]).done())
    # Strings that are not plain ASCII: UTF-8, control characters, invalid UTF-8, a terminal
    # escape sequence, and a key that needs quoting in a node path.
    ents = [("h\u00e9ros-\u00e9p\u00e9e".encode(), [("Inventory", [
        (b"slot 1", "potion \u2014 rouge".encode()),
        (b"raw", b"\xff\xfe\x00bytes"),
        (b"ansi", b"\x1b[31mred\x1b[0m"),
        (b"multi\nline", b"tab\there"),
    ])])]
    write("valid", "v4-strings", Save(4).entities(ents).custom([(b"k\x00ey", b"\xc3")]).done())
    # v3 with a hierarchy (the engine migrates it to v4 in memory).
    ents = [("root", [transform("-1")]), ("child", [transform("0")]), ("plain", [transform()])]
    write("valid", "v3-hierarchy", Save(3).entities(ents).custom([("a", "1")]).done())
    # v1 quirks the v1 reader tolerated: trailing bytes after the last pair...
    write("valid", "v1-trailing-bytes",
          Save(1).entities([("p", [transform()])]).custom([("k", "v")]).raw(b"\x00\x01junk").done())
    # ... no custom-state count at all ...
    write("valid", "v1-no-custom-count", Save(1).entities([("p", [transform()])]).done())
    # ... a custom-state list cut short inside a pair ...
    s = Save(2).entities([("p", [HEALTH])])
    s.custom([("kept", "1")], count=3).raw(u16(4) + b"lo")
    write("valid", "v2-truncated-pair", s.done())
    # ... and duplicates (last wins in v1), an explicit NameComponent, a v1 parent.
    ents = [("dup", [transform(), ("HealthComponent", [("current", "1"), ("current", "2")]),
                     ("HealthComponent", [("max", "3")]), ("NameComponent", [("name", "dup")])])]
    write("valid", "v1-duplicates", Save(1).entities(ents).custom([("k", "1"), ("k", "2")]).done())
    # Metadata the v1 reader never checked: nan, and text after playerDeaths.
    write("valid", "v1-loose-metadata",
          Save(1, meta_text(1, play="nan", tail="extra words\n")).entities([]).custom([]).done())
    # Numbers the engine's `>>` reads although its writer never spells them so (1.2): `+`,
    # leading zeros, `.5`, `5.`, an exponent, `-0`, no separator between position's y and z,
    # blanks around the numbers and a blank line. Each field is still on its own line.
    meta = meta_text(4, ts="+01700000000", play=".5", hp="0075.", armor="2.5E1", pos="  -0 2-3 ",
                     kills="+007\n", deaths="\t-01", tail="  \n")
    write("valid", "v4-metadata-stream-numbers", Save(4, meta).entities([]).custom([]).done())
    # Loads, with a warning (1.2): a negative timestamp wraps (the engine reads and would save
    # 18446744073709551615); a float that underflows reads 0 on Linux, MSVC most likely refuses it.
    write("valid", "v4-metadata-negative-timestamp",
          Save(4, meta_text(4, ts="-1")).entities([]).custom([]).done())
    write("valid", "v4-metadata-underflow",
          Save(4, meta_text(4, armor="1e-50", pos="1 1e-40 3")).entities([]).custom([]).done())
    # (Names and types above the v1-era reader's 4096 bytes, accepted with a warning since the
    # later v1..v2 reader took them (1.4), are tested in tests/unit/test_spark_save.cpp: a 4 KiB
    # file here would add seconds to the every-truncation-and-flip corpus test.)
    # Transform parents by from_chars (1.4): leading zeros are fine, `-01` is -1, `-0` is 0.
    ents = [("root", [transform("-01")]), ("child", [transform("00")]), ("grandchild", [transform("01")]),
            ("other", [transform("-0")])]
    write("valid", "v4-parent-leading-zeros", Save(4).entities(ents).custom([]).done())


def invalid():
    v4 = lambda: Save(4).entities([("p", [transform("-1")])]).custom([("k", "v")])
    # Header (1.1, 1.5).
    write("invalid", "bad-magic", b"SPRX" + Save(4).entities([]).custom([]).done()[4:],
          [("error", "bad_magic", 0, None)])
    write("invalid", "too-short", b"SPRK\x04\x00", [("error", "truncated", 0, None)])
    write("invalid", "version-0", Save(1, stored_version=0).entities([]).custom([]).done(),
          [("error", "unsupported_version", 4, "version")])
    write("invalid", "version-7", Save(1, stored_version=7).entities([]).custom([]).done(),
          [("error", "unsupported_version", 4, "version")])
    good = v4().done()
    write("invalid", "v4-short", good[:8] + b"\x00\x00", [("error", "truncated", 10, "checksum")])
    bad = bytearray(good)
    bad[-1] ^= 0x01
    write("invalid", "v4-crc-mismatch", bytes(bad), [("error", "checksum_mismatch", len(bad) - 4, "checksum")])
    flip = bytearray(good)
    flip[40] ^= 0x20  # a byte inside the payload: the trailer no longer matches
    write("invalid", "v4-payload-flip", bytes(flip), [("error", "checksum_mismatch", len(flip) - 4, "checksum")])
    write("invalid", "v4-trailing-byte", good + b"\x00",
          [("error", "trailing_bytes", len(good), "checksum")])
    s = Save(4).entities([]).custom([]).raw(b"xyz")
    write("invalid", "v4-bytes-before-trailer", s.done(), [("error", "trailing_bytes", s.at["raw"], None)])
    # Damaged version field: a v4 file whose version reads 2 (or 9).
    for stored in (2, 9):
        s = Save(4, stored_version=stored).entities([("p", [transform("-1")])]).custom([])
        write("invalid", f"v4-damaged-version-{stored}", s.done(crc="as4"),
              [("error", "damaged_version", 4, "version")])
    # Truncated at each field of a v3 file (no trailer to get in the way).
    full = Save(3).entities([("name", [("Type", [("key", "value")])])]).custom([("ck", "cv")])
    data = full.done()
    at = full.at
    # A count whose items cannot fit in the bytes left is reported at the count, before any
    # item is read; a field cut short after that check is reported where the field starts.
    cuts = [
        ("meta-size", 10, 8, "metadata"),
        ("metadata-block", 20, 12, "metadata"),
        ("entity-count", at["entityCount"] + 2, at["entityCount"], "entities"),
        ("entity-name-length", at["e0"] + 1, at["entityCount"], "entities"),
        ("entity-name", at["e0"] + 4, at["e0"] + 2, "entities[0]"),
        ("component-count", at["e0"] + 7, at["e0"] + 6, "entities[0]"),
        ("component-type-length", at["e0c0"] + 1, at["e0"] + 6, "entities[0]"),
        ("component-type", at["e0c0"] + 3, at["e0"] + 6, "entities[0]"),
        ("property-count", at["e0c0"] + 7, at["e0c0"] + 6, "entities[0].Type"),
        ("property-key", at["e0c0p0"] + 3, at["e0c0"] + 6, "entities[0].Type"),
        ("property-key-long", at["e0c0p0"] + 4, at["e0c0p0"] + 2, "entities[0].Type"),
        ("property-value-length", at["e0c0p0"] + 6, at["e0c0p0"] + 5, "entities[0].Type.key"),
        ("property-value", at["e0c0p0"] + 9, at["e0c0p0"] + 7, "entities[0].Type.key"),
        ("custom-state-count", at["customCount"] + 3, at["customCount"], "customState"),
        ("custom-state-pair", at["pair0"] + 5, at["pair0"] + 4, "customState.ck"),
    ]
    for name, cut, off, node in cuts:
        write("invalid", "v3-truncated-" + name, data[:cut], [("error", "truncated", off, node)])
    # Over the limits (1.4).
    big_meta = meta_text(3, tail=" " * 70000)
    write("invalid", "v3-metadata-too-large", Save(3, big_meta).entities([]).custom([]).done(),
          [("error", "limit_exceeded", 8, "metadata")])
    s = Save(3)
    s.mark("entityCount")
    s.b += u32(1_000_001)
    write("invalid", "entity-count-over-limit", s.done(), [("error", "limit_exceeded", s.at["entityCount"], "entities")])
    s = Save(3)
    s.mark("entityCount")
    s.b += u32(500) + b"\x00" * 100
    write("invalid", "entity-count-beyond-file", s.done(), [("error", "truncated", s.at["entityCount"], "entities")])
    s = Save(3).entities([])
    s.mark("customCount")
    s.b += u32(100_001)
    write("invalid", "custom-state-count-over-limit", s.done(),
          [("error", "limit_exceeded", s.at["customCount"], "customState")])
    # Duplicates and NameComponent (1.3, 1.4).
    s = Save(4).entities([("p", [HEALTH, HEALTH])]).custom([])
    write("invalid", "v4-duplicate-component", s.done(),
          [("error", "duplicate_component", s.at["e0c1"], "entities[0].HealthComponent")])
    s = Save(4).entities([("p", [("HealthComponent", [("max", "1"), ("cur", "2"), ("max", "3")])])]).custom([])
    write("invalid", "v4-duplicate-key", s.done(),
          [("error", "duplicate_key", s.at["e0c0p2"], "entities[0].HealthComponent.max")])
    s = Save(3).entities([]).custom([("a.b", "1"), ("c", "2"), ("a.b", "3")])
    write("invalid", "v3-duplicate-custom-key", s.done(),
          [("error", "duplicate_key", s.at["pair2"], 'customState["a.b"]')])
    s = Save(4).entities([("p", [("NameComponent", [("name", "p")])])]).custom([])
    write("invalid", "v4-name-component", s.done(),
          [("error", "name_component", s.at["e0c0"], "entities[0].NameComponent")])
    # Transform parent (1.3, 1.4).
    parents = [
        ("not-a-number", "abc", [transform("-1")]),
        ("below-minus-one", "-2", [transform("-1")]),
        ("text-after", "0x", [transform("-1")]),
        ("out-of-range", "5", [transform("-1")]),
        ("no-transform", "0", [HEALTH]),
        ("plus", "+0", [transform("-1")]),      # from_chars takes no `+` ...
        ("leading-space", " 0", [transform("-1")]),  # ... and no whitespace, before ...
        ("trailing-space", "0 ", [transform("-1")]),  # ... or after
        ("empty", "", [transform("-1")]),
        ("overflow", "9223372036854775808", [transform("-1")]),
    ]
    for name, parent, first_comps in parents:
        s = Save(4).entities([("a", first_comps), ("b", [transform(parent)])]).custom([])
        write("invalid", "v4-parent-" + name, s.done(),
              [("error", "bad_parent", s.at["e1c0p9"], "entities[1].Transform.parent")])
    s = Save(4).entities([("a", [transform("0")])]).custom([])
    write("invalid", "v4-parent-self", s.done(), [("error", "bad_parent", s.at["e0c0p9"], "entities[0].Transform.parent")])
    # Metadata (1.2): v3/v4 require finite numbers and nothing after playerDeaths.
    for name, meta, node, off_field in [
        ("nan", meta_text(4, play="nan"), "metadata.playTime", "nan"),
        ("infinite", meta_text(4, hp="1e999"), "metadata.playerHealth", "1e999"),
        ("bad-int", meta_text(4, kills="four"), "metadata.playerKills", "four"),
        ("bad-position", meta_text(4, pos="1 two 3"), "metadata.position.y", "two"),
    ]:
        s = Save(4, meta).entities([]).custom([])
        write("invalid", "v4-metadata-" + name, s.done(),
              [("error", "bad_metadata", 12 + meta.index(off_field.encode()), node)])
    meta = meta_text(3, tail="surplus\n")
    write("invalid", "v3-metadata-text-after", Save(3, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + meta.index(b"surplus"), "metadata")])
    meta = b"Only\nthree\nlines\n"
    write("invalid", "v3-metadata-missing-fields", Save(3, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + len(meta), "metadata.screenshotPath")])
    # Numbers as `>>` reads them (1.2): an integer field stops at `.`, so the rest of the
    # number becomes the next field (here `.5`, which no int can start: the block is refused).
    meta = meta_text(4, kills="4.5")
    write("invalid", "v4-metadata-int-stops-at-dot", Save(4, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + meta.index(b".5\n1\n"), "metadata.playerDeaths")])
    for name, fields, node, found in [
        ("timestamp-overflow", dict(ts="18446744073709551616"), "metadata.timestamp", "18446744073709551616"),
        ("int-overflow", dict(deaths="2147483648"), "metadata.playerDeaths", "2147483648"),
        ("float-overflow", dict(armor="1e39"), "metadata.playerArmor", "1e39"),
        ("sign-only", dict(hp="+"), "metadata.playerHealth", "+\n"),
        ("exponent-without-digits", dict(play="1e+"), "metadata.playTime", "1e+"),
        ("thousands-separator", dict(kills="1,000"), "metadata.playerDeaths", ",000"),
    ]:
        meta = meta_text(4, **fields)
        write("invalid", "v4-metadata-" + name, Save(4, meta).entities([]).custom([]).done(),
              [("error", "bad_metadata", 12 + meta.index(found.encode()), node)])
    # A hexadecimal float: libstdc++ reads 0 and stops at the x (the next field fails); MSVC's
    # library reads 8 (a warning names the build difference).
    meta = meta_text(4, play="0x1p3")
    write("invalid", "v4-metadata-hex-float", Save(4, meta).entities([]).custom([]).done(),
          [("warning", "bad_metadata", 12 + meta.index(b"0x1p3"), "metadata.playTime"),
           ("error", "bad_metadata", 12 + meta.index(b"x1p3"), "metadata.playerHealth")])
    # Shifted fields (1.2): the engine loads these blocks but reads fields from other lines.
    # The classic: a v1 block (no screenshotPath line) under a version field that says 3.
    meta = meta_text(1)
    write("invalid", "v3-metadata-shifted-v1-block", Save(3, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + meta.index(b"3725.5"), "metadata.timestamp")])
    write("invalid", "v2-metadata-shifted-v1-block", Save(2, meta).entities([]).custom([]).done(),
          [("warning", "needs_migration", 4, "version"),
           ("error", "bad_metadata", 12 + meta.index(b"3725.5"), "metadata.timestamp")])
    # Kills and deaths on one line without a separator: `4-1` reads 4 and -1.
    meta = meta_text(4, kills="4-1", deaths="")[:-1]
    write("invalid", "v4-metadata-kills-deaths-one-line", Save(4, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + meta.index(b"4-1"), "metadata.playerKills")])
    # Every number on one line.
    meta = b"Generated save\nArena\nScout\nshots/a.png\n1700000000 3725.5 75 25 1 2 3 4 1\n"
    write("invalid", "v4-metadata-numbers-on-one-line", Save(4, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + meta.index(b"1700000000"), "metadata.timestamp")])
    # A CR in a string field (1.2): decoded, then refused by the engine's ValidateSaveDataShape.
    meta = meta_text(4, scene="Are\rna")
    write("invalid", "v4-metadata-cr-in-string", Save(4, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + meta.index(b"\r"), "metadata.sceneName")])
    # CRLF line ends: every string keeps its CR (the numbers skip it as whitespace).
    meta = meta_text(3).replace(b"\n", b"\r\n")
    crs = [i for i, c in enumerate(meta) if c == 13][:4]
    write("invalid", "v3-metadata-crlf", Save(3, meta).entities([]).custom([]).done(),
          [("error", "bad_metadata", 12 + at, "metadata." + f)
           for at, f in zip(crs, ["saveName", "sceneName", "playerClass", "screenshotPath"])])
    # v3/v4 refuse bytes after the custom state.
    s = Save(3).entities([]).custom([]).raw(b"!")
    write("invalid", "v3-trailing-bytes", s.done(), [("error", "trailing_bytes", s.at["raw"], None)])


if __name__ == "__main__":
    corpus.run(CORPUS, valid, invalid, description=__doc__.splitlines()[0])
