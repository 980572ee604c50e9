#!/usr/bin/env python3
"""Writes the generated part of testdata/text_archive/: valid archives (every type, deep
nesting, empty classes, empty strings, containers, values with `{`, `}`, `,`, `: ` and
leading/trailing spaces, and one file per warning) and the invalid corpus (one file per check),
each invalid file <name>.sz with a <name>.sz.expect file listing the findings the reader must
report, in order:

    <severity> <code> <line:column> <node path, or ->

The archives come from a model of the engine's own writer (PgEngine's Archive class, as formats/README.md
section 2 describes it: a pending `,` + LF + indentation before the next write, each newline of a
value written that way), written from formats/README.md alone, independently of the C++ reader and
writer, so a bug there cannot hide behind fixtures it produced itself. Expected positions are
found by searching the generated text. Also tolerated/ (files the engine reads as written, with
notes and warnings) and differential/ (mutated archives with the verdict of a model of the
engine's reader). PgEngine's own files are checked in under real/invalid/, the diff inputs under
hand/diff/. Deterministic: rerunning it rewrites the same bytes. Run it from anywhere: python3
tests/gen/text_archive_corpus.py [--check] [--out DIR]; it writes through tests/gen/corpus.py,
which removes the files of valid/, invalid/, tolerated/ and differential/ it no longer makes and
never touches hand/ or real/ (hand-written and engine files).
"""
import struct

import corpus

# differential/ holds 1,000 mutated archives and verdicts.txt (tests/unit/test_text_archive.cpp).
CORPUS = corpus.Corpus("text_archive", ".sz", ("valid", "invalid", "tolerated", "differential"))
write = CORPUS.write


class Attr:
    def __init__(self, type_, value):
        self.type = type_
        self.value = value


class Cls:
    def __init__(self, name, children):
        self.name = name
        self.children = children  # [(child name or None, Attr | Cls)]


class Archive:
    """PgEngine's Archive: a newline (and a comma, when requested) is written lazily, just
    before the next text, followed by one TAB per indentation level."""

    def __init__(self):
        self.out = []
        self.indent = 0
        self.newline = False
        self.comma = False

    def put(self, text):
        if self.newline:
            if self.comma:
                self.out.append(",")
            self.out.append("\n" + "\t" * self.indent)
            self.newline = False
        self.out.append(text)

    def endl(self):
        self.comma = True
        self.newline = True

    def start(self, class_name):
        self.put(class_name)
        self.put(" {")
        self.endl()
        self.indent += 1
        self.comma = False

    def end(self):
        self.comma = False
        self.indent -= 1
        self.put("}")
        self.endl()

    def attribute(self, value, type_):
        self.put("__PGSA")
        self.put(" ")
        self.put(type_)
        self.put(" {")
        # std::getline over the value: no line for "", none after a final newline.
        lines = value.split("\n")
        if value.endswith("\n") or value == "":
            lines = lines[:-1]
        for i, line in enumerate(lines):
            if i:
                self.endl()
            self.put(line)
        self.put("}")
        self.endl()

    def name(self, name):
        self.put(name)
        self.put(": ")

    def text(self):
        return "".join(self.out)


def serialize(archive, node):
    if isinstance(node, Attr):
        archive.attribute(node.value, node.type)
        return
    archive.start(node.name)
    for name, child in node.children:
        if name is not None:
            archive.name(name)
        serialize(archive, child)
    archive.end()


def archive(entries, version="1.0.0"):
    """The Serializer's file: the version line, then `NAME: ` + each entry + LF."""
    out = version + "\n"
    for name, node in entries:
        a = Archive()
        serialize(a, node)
        out += name + ": " + a.text() + "\n"
    return out


def f32(x):
    """std::to_string(float): the float's value with 6 fixed decimals."""
    return "%f" % struct.unpack("<f", struct.pack("<f", x))[0]


def f64(x):
    return "%f" % x


def vec(*items):
    return Cls("Vector", [(None, item) for item in items])


def umap(pairs, count=None):
    children = [("nbElements", Attr("size_t", str(len(pairs) if count is None else count)))]
    for i, (k, v) in enumerate(pairs):
        children += [(f"key{i}", k), (f"value{i}", v)]
    return Cls("UnorderedMap", children)


def element(type_, data_type, data):
    return Cls("ElementType", [("type", Attr("string", type_)), ("data", Attr(data_type, data))])


def save_data(items, count=None):
    children = [("nbValue", Attr("size_t", str(len(items) if count is None else count)))]
    for i, (ident, value) in enumerate(items):
        children += [(f"id{i}", Attr("string", ident)), (f"value{i}", value)]
    return Cls("SaveData", children)


def pos(text, needle, nth=0, delta=0):
    """1-based line:column of the nth occurrence of needle (plus delta bytes)."""
    data = text.encode("utf-8", "surrogateescape")
    needle = needle.encode("utf-8", "surrogateescape")
    at = -1
    for _ in range(nth + 1):
        at = data.index(needle, at + 1)
    at += delta
    line = data.count(b"\n", 0, at) + 1
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    return f"{line}:{column}"


def valid():
    # Every type at its limits, as std::to_string writes them.
    write("valid", "every-type", archive([
        ("flags", Cls("Flags", [("on", Attr("bool", "true")), ("off", Attr("bool", "false"))])),
        ("ints", Cls("Ints", [
            ("min", Attr("int", "-2147483648")), ("max", Attr("int", "2147483647")),
            ("zero", Attr("int", "0")),
            ("umax", Attr("unsigned int", "4294967295")),
            ("smax", Attr("size_t", "18446744073709551615")),
        ])),
        ("floats", Cls("Floats", [
            ("half", Attr("float", f32(42.5))), ("neg", Attr("float", f32(-2.0))),
            ("tiny", Attr("float", f32(1e-7))), ("big", Attr("float", f32(3.4e38))),
            ("d", Attr("double", f64(0.1))), ("dbig", Attr("double", f64(1e300))),
        ])),
        ("text", Attr("string", "hello world")),
        ("empty", Attr("string", "")),
        ("utf8", Attr("string", "h\u00e9ros \u2014 \u00e9p\u00e9e")),
        ("binary", Attr("string", "raw \udcff\udcfe bytes")),
        ("ansi", Attr("string", "\x1b[31mred\x1b[0m\ttab \"quoted\" back\\slash")),
        ("name with spaces", Attr("int", "1")),
    ]))
    # Values the grammar keeps verbatim: the value runs to the LAST `}` of the line.
    write("valid", "odd-values", archive([
        ("braces", Cls("Odd", [
            ("open", Attr("string", "{")), ("close", Attr("string", "}")),
            ("pair", Attr("string", "{}")), ("many", Attr("string", "}}{{")),
            ("comma", Attr("string", ",")), ("ends", Attr("string", "x},")),
            ("colon", Attr("string", ": ")), ("mixed", Attr("string", "a {b}, c: d}")),
            ("spaces", Attr("string", "  lead and trail  ")), ("blank", Attr("string", " ")),
            ("empty", Attr("string", "")),
            ("name {with} braces", Attr("string", "v")),
        ])),
        ("top {", Attr("string", "}")),
        ("colonless", Attr("string", "a: b: c")),
    ]))
    # Containers as the engine writes them (formats/README.md §2).
    inner = Cls("Inner", [("hp", Attr("int", "7")), ("name", Attr("string", "bob"))])
    write("valid", "containers", archive([
        ("ints", vec(Attr("int", "1"), Attr("int", "2"), Attr("int", "3"))),
        ("classes", vec(inner, Cls("Inner", [("hp", Attr("int", "-1")),
                                              ("name", Attr("string", ""))]))),
        ("none", vec()),
        ("map", umap([(Attr("string", "a"), Attr("int", "1")),
                      (Attr("string", "b"), inner),
                      (Attr("int", "3"), vec(Attr("float", f32(0.5))))])),
        ("nomap", umap([])),
        ("v2", Cls("Vector 2D", [("x", Attr("float", f32(1.5))), ("y", Attr("float", f32(-2)))])),
        ("v3", Cls("Vector 3D", [("x", Attr("float", f32(1))), ("y", Attr("float", f32(2))),
                                 ("z", Attr("float", f32(3)))])),
        ("v4", Cls("Vector 4D", [("x", Attr("float", f32(0))), ("y", Attr("float", f32(0))),
                                 ("z", Attr("float", f32(0))), ("w", Attr("float", f32(1)))])),
        ("savedata", save_data([
            ("f", element("float", "float", f32(2.5))),
            ("i", element("int", "int", "-4")),
            ("s", element("size_t", "size_t", "9")),
            ("t", element("string", "string", "text")),
            ("b", element("bool", "bool", "true")),
        ])),
    ]))
    # Deep nesting: 40 classes, siblings after each nested class (`},`).
    node = Cls("Leaf", [("value", Attr("int", "40"))])
    for depth in range(39, 0, -1):
        node = Cls(f"Level{depth}", [("before", Attr("int", str(depth))), ("next", node),
                                     ("after", Attr("string", f"after {depth}"))])
    write("valid", "deep-nesting", archive([("deep", node), ("tail", Attr("bool", "false"))]))
    # Empty classes at every level, and a class holding only empty classes.
    write("valid", "empty-classes", archive([
        ("e", Cls("Empty", [])),
        ("holder", Cls("Holder", [("a", Cls("Empty", [])), ("b", Cls("Empty", [])),
                                  ("v", vec()), ("m", umap([]))])),
        ("nested", Cls("Outer", [("inner", Cls("Middle", [("deepest", Cls("Empty", []))]))])),
        ("named", Cls("Unnamed children", [(None, Cls("Empty", [])), (None, Attr("int", "1"))])),
    ]))
    # An archive with no entries at all.
    write("valid", "no-entries", archive([]))
    # Warnings: the engine loads these files but loses or bends something (formats/README.md §2).
    # formats/README.md §2.1: the doubled-name bug's mark on an attribute entry (read as `hp`).
    write("valid", "warn-doubled-name", archive([("hp: hp", Attr("int", "3"))]))
    # formats/README.md §2.1: class names the engine derives otherwise (getObjectType()): a blank class
    # name of an unnamed Vector item, a name holding ` {`.
    write("valid", "warn-class-name", archive([
        ("v", Cls("Vector", [(None, Cls(" ", []))])),
        ("obj", Cls("S", [("a {b", Cls("C", []))])),
    ]))
    # formats/README.md §2.1: numbers in the denormal range read as the nearest denormal (an
    # underflow, but no failbit and not a zero), a zero written small is a zero.
    write("valid", "denormal-floats", archive([
        ("small", Cls("S", [("f", Attr("float", "1e-40")), ("g", Attr("float", "-1.4e-45")),
                            ("d", Attr("double", "1e-310")), ("z", Attr("float", "0e-99")),
                            ("n", Attr("double", "-0.000000"))])),
    ]))
    # formats/README.md §2.1: deserialize<SaveData> reads each value<i> as an ElementType,
    # whatever its class name.
    other = element("int", "int", "7")
    other.name = "Element"
    write("valid", "savedata-value-class", archive([("savedata", save_data([("k", other)]))]))
    write("valid", "warn-marker-in-value", archive([
        ("obj", Cls("S", [("c", Attr("string", "x__PGSA y"))])),
        ("top", Attr("string", "__PGSA int {1}")),
    ]))
    m = umap([(Attr("string", "a"), Attr("int", "1"))])
    m.children[0] = ("nbElements", Attr("int", "1"))
    write("valid", "warn-type-alias", archive([
        ("map", m),
        ("data", save_data([("n", element("int", "size_t", "5"))])),
    ]))
    write("valid", "warn-unknown-type", archive([
        ("model", Cls("Model Info", [(None, Attr("Verticies", "[ 0.000000 1.000000 ]")),
                                     (None, Attr("Indicies", "[ 0 1 2 ]"))])),
    ]))


def invalid():
    E, W, N = "error", "warning", "note"
    base = archive([("title", Attr("string", "hello")), ("count", Attr("int", "5"))])

    # The version line (formats/README.md §2: anything but 1.0.0 is read as an empty archive).
    text = base.replace("1.0.0", "1.0.1", 1)
    write("invalid", "version-1.0.1", text, [(E, "unsupported_version", "1:1", None)])
    text = base.replace("1.0.0\n", "1.0.0\r\n", 1)
    write("invalid", "version-crlf", text, [(E, "unsupported_version", "1:1", None)])
    text = base[len("1.0.0\n"):]
    write("invalid", "version-missing", text, [(E, "unsupported_version", "1:1", None)])

    # Multi-line values, as the engine's writer corrupts them.
    text = archive([("player", Cls("P", [("note", Attr("string", "line1\nline2 {x}, y: z\nend")),
                                         ("hp", Attr("int", "1"))]))])
    write("invalid", "multiline-value", text,
          [(E, "multiline_value", pos(text, "line1"), "player.note")])
    text = archive([("note", Attr("string", "first\nsecond")), ("after", Attr("int", "1"))])
    write("invalid", "multiline-value-top-level", text,
          [(E, "multiline_value", pos(text, "first"), "note"),
           (E, "bad_syntax", pos(text, "after"), "after")])
    # The first line ends in `},` like a complete attribute; the next line gives it away.
    text = archive([("obj", Cls("S", [("v", Attr("string", "a}\nb")), ("w", Attr("int", "2"))]))])
    write("invalid", "multiline-value-brace-first", text,
          [(E, "multiline_value", pos(text, "a}"), "obj.v")])
    # Lines made of empty value lines: `,` alone.
    text = archive([("obj", Cls("S", [("v", Attr("string", "a\n\n\nb"))]))])
    write("invalid", "multiline-value-empty-lines", text,
          [(E, "multiline_value", pos(text, "{a", delta=1), "obj.v")])

    good = archive([("obj", Cls("S", [("a", Attr("int", "1")), ("b", Attr("int", "2")),
                                      ("c", Cls("Inner", [("x", Attr("int", "3"))]))]))])
    # Commas (formats/README.md §2: after every child but the last).
    text = good.replace("{1},", "{1}", 1)
    write("tolerated", "missing-comma", text,
          [(N, "bad_syntax", pos(text, "{1}", delta=3), "obj.a")])
    text = good.replace("\t\tx: __PGSA int {3}", "\t\tx: __PGSA int {3},", 1)
    write("tolerated", "trailing-comma", text,
          [(N, "bad_syntax", pos(text, "{3},", delta=3), "obj.c.x")])
    text = good.replace("{2},\n", "{2},\n\td: Empty {\n\t}\n", 1)
    write("tolerated", "missing-comma-after-class", text,
          [(N, "bad_syntax", pos(text, "\t}\n", delta=2), "obj.d")])
    # A top-level class must end at a line that is exactly `}` (formats/README.md §2.1): with `},` the
    # engine never stores the entry.
    text = good.replace("\n}\n", "\n},\n", 1)
    write("invalid", "top-level-comma", text,
          [(E, "bad_syntax", "2:1", "obj"), (E, "bad_syntax", pos(text, "\n},", delta=2), "obj")])
    # Braces.
    # A child class ends only at a `}` indented like its line (formats/README.md §2.1).
    text = good.replace("\t\tx: __PGSA int {3}\n\t}\n", "\t\tx: __PGSA int {3}\n", 1)
    write("invalid", "missing-closing-brace", text,
          [(E, "bad_syntax", pos(text, "\tc:", delta=1), "obj.c"),
           (E, "bad_syntax", pos(text, "\n}\n", delta=1), "obj.c")])
    text = good[:good.rindex("}\n")]
    write("invalid", "unclosed-class", text,
          [(E, "bad_syntax", "2:1", "obj"),
           (E, "truncated", f"{text.count(chr(10)) + 1}:1", "obj")])
    text = good + "}\n"
    write("tolerated", "extra-closing-brace", text,
          [(N, "bad_syntax", f"{good.count(chr(10)) + 1}:1", None)])
    # ... but before another entry it stops the engine's reading (formats/README.md §2.1).
    text = good + "}\n" + "after: __PGSA int {1}\n"
    write("invalid", "extra-closing-brace-then-entry", text,
          [(E, "bad_syntax", f"{good.count(chr(10)) + 1}:1", None),
           (E, "bad_syntax", pos(text, "after:"), "after")])
    text = base[:-1]
    write("tolerated", "no-final-newline", text,
          [(N, "truncated", pos(text, "{5}", delta=3), None)])
    # Indentation: a line indented deeper than its siblings makes the engine take the line
    # before it for a class header, which swallows what follows (formats/README.md §2.1).
    text = good.replace("\tb: __PGSA", "\t\tb: __PGSA", 1)
    write("invalid", "bad-indent-child", text,
          [(E, "bad_value", pos(text, "\ta:", delta=1), "obj.a"),
           (E, "bad_indent", pos(text, "\t\tb:"), "obj.b"),
           (E, "bad_syntax", pos(text, "\t\tb:", delta=2), "obj.b"),
           (E, "bad_syntax", pos(text, "\tc:", delta=1), "obj.c")])
    text = good.replace("\t\tx: __PGSA int {3}\n\t}", "\t\tx: __PGSA int {3}\n\t\t}", 1)
    write("invalid", "bad-indent-brace", text,
          [(E, "bad_syntax", pos(text, "\tc:", delta=1), "obj.c"),
           (E, "bad_indent", pos(text, "\t\t}"), "obj.c")])
    text = good.replace("\tb: __PGSA", "    b: __PGSA", 1)
    write("invalid", "spaces-for-tabs", text,
          [(E, "bad_value", pos(text, "\ta:", delta=1), "obj.a"),
           (E, "bad_indent", pos(text, "    b:"), 'obj["    b"]'),
           (E, "bad_syntax", pos(text, "    b:"), 'obj["    b"]'),
           (E, "bad_syntax", pos(text, "\tc:", delta=1), "obj.c")])
    # Any indentation of an attribute that does not follow a sibling is tolerated.
    text = good.replace("\ta: __PGSA", "\t\t\ta: __PGSA", 1)
    write("tolerated", "attribute-indent", text,
          [(N, "bad_indent", pos(text, "\t\t\ta:"), "obj.a")])
    text = good.replace("\tb: __PGSA", "b: __PGSA", 1)
    write("tolerated", "attribute-indent-less", text,
          [(N, "bad_indent", pos(text, "\nb:", delta=1), "obj.b")])
    # Blank lines: after a class header or at the end, tolerated; after a child, the engine
    # takes the child for a class header (formats/README.md §2.1); between entries, it stops reading.
    text = good.replace("obj: S {\n", "obj: S {\n\n", 1)
    write("tolerated", "blank-line-after-header", text, [(N, "bad_syntax", "3:1", "obj")])
    text = good + "\n\n"
    lines = good.count("\n")
    write("tolerated", "blank-lines-at-end", text,
          [(N, "bad_syntax", f"{lines + 1}:1", None), (N, "bad_syntax", f"{lines + 2}:1", None)])
    text = good.replace("{1},\n", "{1},\n\n", 1)
    write("invalid", "blank-line-after-child", text,
          [(E, "bad_value", pos(text, "\ta:", delta=1), "obj.a"),
           (E, "bad_syntax", pos(text, "\n\n", delta=1), "obj"),
           (E, "bad_syntax", pos(text, "\tb:", delta=1), "obj.b"),
           (E, "bad_syntax", pos(text, "\tc:", delta=1), "obj.c")])
    text = archive([("a", Attr("int", "1"))]) + "\n" + "b: __PGSA int {2}\n"
    write("invalid", "blank-line-between-entries", text,
          [(E, "bad_syntax", "3:1", None), (E, "bad_syntax", "4:1", "b")])
    # Lines of no known shape inside a class: the engine skips them.
    text = good.replace("\ta: __PGSA int {1},\n", "\ta: __PGSA int {1},\n\tjust some text\n", 1)
    write("tolerated", "unknown-line", text, [(N, "bad_syntax", pos(text, "just"), "obj")])
    text = base.replace("count: ", "", 1)
    write("invalid", "unnamed-top-level", text,
          [(E, "bad_syntax", pos(text, "__PGSA int"), None)])
    text = good.replace("obj: S {", "obj: extra: S {", 1)
    write("invalid", "class-two-separators", text,
          [(E, "bad_syntax", pos(text, "extra"), "obj")])
    text = good.replace("\ta: __PGSA int {1},", "\ta: __PGSA int{1},", 1)
    write("invalid", "attribute-no-space-before-brace", text,
          [(E, "bad_syntax", pos(text, "int{1}"), "obj.a")])
    # UnorderedMap / SaveData counts (formats/README.md §2).
    pairs = [(Attr("string", "a"), Attr("int", "1")), (Attr("string", "b"), Attr("int", "2"))]
    text = archive([("m", umap(pairs, count=3))])
    write("invalid", "nbelements-too-many", text,
          [(E, "count_mismatch", pos(text, "{3}", delta=1), "m.nbElements")])
    text = archive([("m", umap(pairs, count=1))])
    write("invalid", "nbelements-too-few", text,
          [(E, "count_mismatch", pos(text, "{1}", delta=1), "m.nbElements")])
    m = umap(pairs)
    m.children = m.children[1:]
    text = archive([("m", m)])
    write("invalid", "nbelements-missing", text, [(E, "count_mismatch", "2:1", "m")])
    m = umap(pairs)
    m.children[3] = ("key2", m.children[3][1])
    m.children[4] = ("value2", m.children[4][1])
    text = archive([("m", m)])
    write("invalid", "map-pairs-out-of-order", text,
          [(E, "count_mismatch", pos(text, "key2"), "m.key2"),
           (E, "count_mismatch", pos(text, "{2}", delta=1), "m.nbElements")])
    text = archive([("savedata", save_data([("a", element("int", "int", "1"))], count=2))])
    write("invalid", "nbvalue-mismatch", text,
          [(E, "count_mismatch", pos(text, "{2}", delta=1), "savedata.nbValue")])
    # Values that do not fit their type (formats/README.md §2 reader type checks).
    for name, type_, value in [
        ("bool-not-true-false", "bool", "yes"),
        ("int-not-a-number", "int", "12abc"),
        ("int-out-of-range", "int", "2147483648"),
        ("unsigned-negative", "unsigned int", "-1"),
        ("size-t-fraction", "size_t", "1.5"),
        ("float-infinite", "float", "inf"),
        ("float-nan", "float", "nan"),
        ("float-out-of-range", "float", "1e39"),
        # formats/README.md §2.1: an underflow sets no failbit; the engine reads a zero.
        ("float-underflow", "float", "1e-50"),
        ("float-underflow-negative", "float", "-1e-46"),
        ("double-underflow", "double", "1e-400"),
        ("double-not-a-number", "double", "abc"),
        ("int-fraction", "int", "3.7"),
        ("float-exponent-alone", "float", "1e"),
        ("float-hex", "float", "0x1p3"),
        ("bool-blank", "bool", "true "),
    ]:
        text = archive([("obj", Cls("S", [("before", Attr("int", "0")), ("v", Attr(type_, value))]))])
        write("invalid", "value-" + name, text,
              [(E, "bad_value", pos(text, "{" + value + "}", delta=1), "obj.v")])
    # Container fields the engine reads with a fixed type.
    v = Cls("Vector 2D", [("x", Attr("double", f64(1.5))), ("y", Attr("float", f32(2)))])
    text = archive([("v", v)])
    write("invalid", "vector2d-double", text, [(E, "bad_value", pos(text, "double"), "v.x")])
    v = Cls("Vector 2D", [("x", Attr("float", f32(1.5))), ("y", Attr("float", "2e-50"))])
    text = archive([("v", v)])
    write("invalid", "vector2d-underflow", text,
          [(E, "bad_value", pos(text, "2e-50"), "v.y")])
    v = Cls("Vector 3D", [("x", Attr("float", f32(1))), ("y", Attr("float", f32(2)))])
    text = archive([("v", v)])
    write("invalid", "vector3d-missing-z", text, [(E, "bad_value", "2:1", "v.z")])
    text = archive([("savedata", save_data([("a", element("float", "int", "1"))]))])
    write("invalid", "element-type-mismatch", text,
          [(E, "bad_value", pos(text, "int {1}"), "savedata.value0.data")])
    text = archive([("savedata", save_data([("a", element("long", "int", "1"))]))])
    write("invalid", "element-type-unknown", text,
          [(E, "bad_value", pos(text, "long"), "savedata.value0.type")])
    # formats/README.md §2.1: deserialize<ElementType> has no double branch; it reads every
    # value<i> of a SaveData, whatever its class name (here `Element`), and an attribute there
    # holds no `type`.
    text = archive([("savedata", save_data([("d", element("double", "double", f64(0.25)))]))])
    write("invalid", "element-type-double", text,
          [(E, "bad_value", pos(text, "{double}", delta=1), "savedata.value0.type")])
    other = element("double", "double", f64(0.25))
    other.name = "Element"
    text = archive([("savedata", save_data([("f", element("float", "float", f32(1))),
                                            ("d", other)]))])
    write("invalid", "element-type-double-other-class", text,
          [(E, "bad_value", pos(text, "{double}", delta=1), "savedata.value1.type")])
    text = archive([("savedata", save_data([("n", Attr("int", "5"))]))])
    write("invalid", "element-attribute", text,
          [(E, "bad_value", pos(text, "value0"), "savedata.value0")])

    # Numbers the engine's `stringstream >>` reads as the file says, from forms its writer does
    # not write (formats/README.md §2.1): notes.
    for name, type_, value in [
        ("int-with-space", "int", " 5"),
        ("int-plus", "int", "+5"),
        ("int-leading-zeros", "int", "007"),
        ("unsigned-minus-zero", "unsigned int", "-0"),
        ("float-with-spaces", "float", " 1.500000 "),
    ]:
        text = archive([("obj", Cls("S", [("before", Attr("int", "0")), ("v", Attr(type_, value))]))])
        write("tolerated", "value-" + name, text,
              [(N, "bad_value", pos(text, "{" + value + "}", delta=1), "obj.v")])
    # The empty file (a fresh archive), the version line alone, a comma after a top-level
    # value, a CR after an attribute (formats/README.md §2.1).
    write("tolerated", "empty-file", "", [(N, "truncated", "1:1", None)])
    write("tolerated", "version-only", "1.0.0", [(N, "truncated", "1:6", None)])
    text = base.replace("{5}\n", "{5},\n", 1)
    write("tolerated", "top-level-attribute-comma", text,
          [(N, "bad_syntax", pos(text, "{5},", delta=3), "count")])
    text = good.replace("{1},\n", "{1},\r\n", 1)
    write("tolerated", "attribute-cr", text,
          [(N, "bad_syntax", pos(text, "{1},", delta=3), "obj.a")])
    # Text after a value's last `}`: ignored, lost when the engine saves the entry again.
    text = good.replace("{3}\n", "{3} junk\n", 1)
    write("tolerated", "junk-after-value", text,
          [(W, "bad_syntax", pos(text, " junk"), "obj.c.x")])

    # Names the engine reads otherwise (formats/README.md §2.1): trimmed, cut at the first "__PGSA".
    text = archive([("obj", Cls("S", [("trail ", Attr("int", "1")), ("b", Attr("int", "2"))]))])
    write("invalid", "name-trailing-blank", text,
          [(E, "name_cut", pos(text, "trail"), 'obj["trail "]')])
    text = archive([("obj", Cls("S", [(" lead", Attr("int", "1"))]))])
    write("invalid", "name-leading-blank", text,
          [(E, "name_cut", pos(text, " lead"), 'obj[" lead"]')])
    text = archive([("obj ", Cls("S", [("a", Attr("int", "1"))]))])
    write("invalid", "top-level-name-blank", text, [(E, "bad_syntax", "2:1", '["obj "]')])
    text = archive([("obj", Cls("S", [("x__PGSA", Attr("int", "5"))]))])
    write("invalid", "marker-in-name", text, [(E, "name_cut", pos(text, "x__PGSA"), "obj.x__PGSA")])
    text = archive([("x__PGSA", Attr("int", "5"))])
    write("invalid", "marker-in-top-level-name", text, [(E, "bad_value", "2:1", "x__PGSA")])
    text = archive([("obj", Cls("S", [("", Attr("int", "5"))]))])
    write("invalid", "name-empty", text, [(E, "name_cut", pos(text, ": __PGSA"), 'obj[""]')])
    # Repeated names: a class's first child of a name wins, the archive's last entry.
    text = archive([("obj", Cls("S", [("a", Attr("int", "1")), ("a", Attr("int", "2"))]))])
    write("invalid", "duplicate-child-names", text,
          [(E, "duplicate_key", pos(text, "\ta:", nth=1, delta=1), "obj.a")])
    text = archive([("hp", Attr("int", "1")), ("other", Attr("int", "2")), ("hp", Attr("int", "3")),
                    ("hp: cut", Attr("int", "4"))])
    write("invalid", "duplicate-top-level-names", text,
          [(E, "duplicate_key", "2:1", "hp"), (E, "duplicate_key", "4:1", "hp"),
           (E, "name_cut", "5:1", '["hp: cut"]')])
    # UnorderedMap: the last pair of a key wins; the engine's writer makes such pairs from
    # distinct float keys (1e-7 and 2e-7 both write 0.000000). SaveData: the first id wins.
    text = archive([("m", umap([(Attr("float", f32(1e-7)), Attr("int", "1")),
                                (Attr("float", f32(2e-7)), Attr("int", "2"))]))])
    write("invalid", "map-duplicate-keys", text,
          [(E, "duplicate_key", pos(text, "key0"), "m.key0")])
    text = archive([("savedata", save_data([("a", element("int", "int", "1")),
                                            ("a", element("int", "int", "2"))]))])
    write("invalid", "savedata-duplicate-ids", text,
          [(E, "duplicate_key", pos(text, "id1"), "savedata.id1")])
    # The doubled-name bug on a class entry: the engine stops reading there.
    text = archive([("save", Cls("SaveData", [("nbValue", Attr("size_t", "0"))])),
                    ("after", Attr("int", "1"))]).replace("save: SaveData", "save: save: SaveData")
    write("invalid", "doubled-name-class", text,
          [(E, "bad_syntax", pos(text, "save: SaveData"), "save"),
           (E, "bad_syntax", pos(text, "after"), "after")])
    # A CR after a class's closing brace: the entry never ends for the engine.
    text = good.replace("\n}\n", "\n}\r\n", 1)
    write("invalid", "class-brace-cr", text,
          [(E, "bad_syntax", "2:1", "obj"), (E, "bad_syntax", pos(text, "}\r"), "obj"),
           (E, "truncated", f"{text.count(chr(10)) + 1}:1", "obj")])


# ---- Differential corpus (formats/README.md §2.1) -------------------------------------------------
# A second model of the ColumbaEngine reader (Serializer::readData, UnserializedObject::
# parseString, getAsAttribute, operator[], deserializeVector, `stringstream >>`), written in
# Python from the behaviour of its code, independently of formats/text_archive/engine.hpp. Archives
# from the writer's model above are mutated in their layout only (commas, indentation, blank
# lines, CRs, braces, blanks around numbers, the final LF), so the file still says what the
# original tree says; the model then tells whether the engine reads that tree exactly. The C++
# test (tests/unit/test_text_archive.cpp) checks that verify has errors exactly when it does not.

INF = float("inf")


def _lead(s):
    for i, c in enumerate(s):
        if c not in " \t":
            return i
    return INF


def _trim(s):
    return s.strip(" \t")


class EObj:
    def __init__(self, name, is_class=True, null=False, text=None):
        self.name, self.is_class, self.null, self.text = name, is_class, null, text
        self.children = []


def _placeholder():
    return EObj("", is_class=False, null=True)


def engine_map(data):
    """readFile + readData: {key: lines}; an entry still open at the end is lost."""
    if data == "":
        return {}
    lines = data.split("\n")
    if data.endswith("\n"):
        lines = lines[:-1]
    if lines[0] != "1.0.0":
        return {}
    found, open_key, cur = {}, None, None
    for line in lines[1:]:
        if open_key is None:
            p = line.find(": ")
            if p < 0:
                break
            key = line[:p]
            if "__PGSA" in line:
                found[key] = [line]
                continue
            if line.find(": ", p + 2) >= 0:
                break
            open_key, cur = key, [line]
        else:
            cur.append(line)
            if line == "}":
                found[open_key] = cur
                open_key = None
    return found


def engine_parse(lines, name):
    """UnserializedObject(string, name): parseString."""
    o = EObj(name)
    o.children.append(_placeholder())
    cur = lines[0]
    cci = _lead("\t" + cur)
    if "__PGSA" in cur:
        return EObj(name, is_class=False, text="\n".join(lines) + "\n")
    p = cur.find(": ")
    own = "" if p < 0 else _trim(cur[:p])
    if cur.find(" {") < 0 or own != name or len(lines) < 2:
        o.null = True
        return o
    pos = (cci - 1 if cci > 0 else 0) if p < 0 else p + 2  # None stands for npos
    cur = lines[1]
    if _trim(cur) == "}":
        return o
    start = in_class = in_attr = failed = False
    cur_indent = 0
    cls = attr = None
    cname = aname = ""
    for nxt in lines[2:]:
        nind = _lead(nxt)
        free = not start and not in_class
        if nind > cci and free:
            start = True
        mk = cur.find("__PGSA")
        if free and _trim(nxt) in ("}", "},") and mk < 0:
            start = True
        if start:
            if in_attr:
                o.children.append(EObj(aname, is_class=False, text="\n".join(attr) + "\n"))
                in_attr = False
            q = cur.find(": ")
            cname = "" if q < 0 else _trim(cur[:q])
            q2 = cur.find(": ", 1 if q < 0 else q + 2)  # npos + 2 wraps to 1
            if q2 >= 0:
                failed = True
                break
            pos = None
            cls = [cur]
            start, in_class = False, True
        elif in_class:
            cls.append(cur)
            if cci == cur_indent and _trim(cur) in ("}", "},"):
                o.children.append(engine_parse(cls, cname))
                in_class = False
        elif mk >= 0:
            if in_attr:
                o.children.append(EObj(aname, is_class=False, text="\n".join(attr) + "\n"))
            before = cur[:mk]
            q = before.find(": ")
            pos = None if q < 0 else q
            aname = "" if q < 0 else _trim(before[:q])
            attr = [cur]
            in_attr = True
        elif pos is None and not in_attr:
            failed = True
            break
        elif pos is None and in_attr:
            if cur_indent > len(cur):  # substr past the end throws
                failed = True
                break
            attr.append(cur[cur_indent:])
        cur, cur_indent = nxt, nind
    if in_attr:
        o.children.append(EObj(aname, is_class=False, text="\n".join(attr) + "\n"))
    o.null = o.null or failed
    return o


def engine_attribute(o):
    """getAsAttribute: (type, value), or None for the blank attribute."""
    if o is None or o.is_class or o.text is None:
        return None
    s = o.text
    p = s.find("__PGSA")
    if p < 0:
        return None
    p += 6
    b = s.find("{", p)
    if b < 0 or b - p < 2:
        return None
    t = "" if b - p == 2 else s[p + 1:b - 1]
    e = s.rfind("}")
    if e < 0:
        return None
    return t, (s[b + 1:e] if e >= b + 1 else s[b + 1:])


_INTS = ("int", "unsigned int", "size_t")


def engine_number(type_, value):
    """What `stringstream >>` reads (enough for values the writer wrote, blanks added)."""
    import re
    v = value.lstrip(" \t\n\v\f\r")
    if type_ in _INTS:
        m = re.match(r"[+-]?[0-9]+", v)
        return int(m.group()) if m else None
    m = re.match(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", v)
    return float(m.group()) if m else None


def engine_reads(o, node):
    """Does the engine read `node` (Attr or Cls) from its object `o` exactly?"""
    if isinstance(node, Attr):
        a = engine_attribute(o)
        if a is None:
            return False
        t, v = a
        if node.type in _INTS:
            return t in _INTS and engine_number(node.type, v) == int(node.value)
        if node.type in ("float", "double"):
            return t == node.type and engine_number(node.type, v) == float(node.value)
        return t == node.type and v == node.value
    if o is None or not o.is_class or o.null:
        return False
    items = [c for c in o.children if not c.null]
    if node.name == "Vector" and len(items) != len(node.children):
        return False
    for i, (name, child) in enumerate(node.children):
        if name is None:
            c = items[i] if i < len(items) else None
        else:
            c = next((c for c in o.children if c.name == name), None)
        if not engine_reads(c, child):
            return False
    return True


def engine_reads_archive(text, entries):
    found = engine_map(text)
    for name, node in entries:
        if name not in found:
            return False
        if not engine_reads(engine_parse(found[name], name), node):
            return False
    return True


def differential():
    import random
    rng = random.Random(20261201)
    serial = [0]

    def name():
        serial[0] += 1
        return rng.choice(["hp", "pos", "n", "item", "a b"]) + str(serial[0])

    def leaf():
        k = rng.randrange(5)
        if k == 0:
            return Attr("int", str(rng.randrange(-1000, 1000)))
        if k == 1:
            return Attr("size_t", str(rng.randrange(0, 10**6)))
        if k == 2:
            return Attr("float", f32(rng.randrange(-800, 800) / 8))
        if k == 3:
            return Attr("bool", rng.choice(["true", "false"]))
        return Attr("string", rng.choice(["", "x", "a {b}, c", "  pad  ", "}"]))

    def node(depth):
        if depth > 3 or rng.randrange(3) == 0:
            return leaf()
        if rng.randrange(4) == 0:
            return vec(*[node(depth + 1) for _ in range(rng.randrange(4))])
        return Cls("C" + str(depth), [(name(), node(depth + 1)) for _ in range(rng.randrange(4))])

    def mutate(text):
        lines = text.split("\n")[:-1]
        i = rng.randrange(1, len(lines)) if len(lines) > 1 else 0
        line = lines[i]
        k = rng.randrange(11)
        if k == 0 and line.endswith(","):
            lines[i] = line[:-1]
            what = "drop a comma"
        elif k == 1:
            lines[i] = line + ","
            what = "add a comma"
        elif k == 2:
            lines[i] = "\t" + line
            what = "one more tab"
        elif k == 3 and line.startswith("\t"):
            lines[i] = line[1:]
            what = "one tab less"
        elif k == 4 and line.lstrip("\t").startswith(("}", "__PGSA")):
            # (before a name it would change the name: the engine trims it, formats/README.md §2.1)
            lines[i] = " " + line
            what = "a leading space"
        elif k == 5:
            lines.insert(i, "")
            what = "a blank line before"
        elif k == 6:
            lines.insert(i + 1, "\t" * rng.randrange(3))
            what = "a blank line after"
        elif k == 7:
            lines[i] = line + "\r"
            what = "a CR"
        elif k == 8 and "{" in line and line.rstrip(",").endswith("}") and (
                " int {" in line or " size_t {" in line or " float {" in line):
            b = line.index("{", line.index("__PGSA"))
            e = line.rindex("}")
            lines[i] = line[:b + 1] + " " + line[b + 1:e] + " " + line[e:]
            what = "blanks around a number"
        elif k == 9:
            return "\n".join(lines), "no final line feed"
        else:
            lines[i] = line + " "
            what = "a trailing blank"
        return "\n".join(lines) + "\n", what

    verdicts = []
    for n in range(1000):
        entries = [(name(), node(0)) for _ in range(1 + rng.randrange(3))]
        text = archive(entries)
        assert engine_reads_archive(text, entries), text  # the writer's own form reads back
        mutated, what = mutate(text)
        if n % 2:  # a second change on half of them
            if not mutated.endswith("\n"):
                mutated += "\n"
            mutated, second = mutate(mutated)
            what += ", " + second
        exact = engine_reads_archive(mutated, entries)
        fname = write("differential", f"{n:04d}", mutated).split("/")[-1]
        verdicts.append(f"{fname} {'exact' if exact else 'misread'} {what}")
    CORPUS.write_file("differential", "verdicts.txt", "\n".join(verdicts) + "\n")


if __name__ == "__main__":
    corpus.run(CORPUS, valid, invalid, differential, description=__doc__.splitlines()[0])
