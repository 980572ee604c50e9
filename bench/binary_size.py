#!/usr/bin/env python3
"""The size of an engine's executable (bench/README.md "Binary size").

Builds the library alone, Release, twice (-DSPARKSAVE_FORMATS=spark_save, and every format) into
bench/out/size/, links three engine-shaped programs against each libsparksave.a (the package
consumer tests/package/consumer/main.cpp; sparksave(3)'s EXAMPLE tests/consumer/example.cpp;
the SaveSystem and its test, tests/consumer/{save_system,test_save_system}.cpp), with
--gc-sections as the sparksave::sparksave target asks and without, strips them and prints their
sizes, then what each object file of the library keeps in the spark_save-only EXAMPLE (from the
link map). fmt is linked shared, as Debian ships it: its code is not counted.

    python3 bench/binary_size.py [--out DIR] [--objects N]
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = {
    "package consumer": ["tests/package/consumer/main.cpp"],
    "sparksave(3) EXAMPLE": ["tests/consumer/example.cpp"],
    "SaveSystem + its test": ["tests/consumer/save_system.cpp", "tests/consumer/test_save_system.cpp"],
}
VARIANTS = {"spark_save": "spark_save", "all formats": ""}


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def build_library(out, formats):
    build = os.path.join(out, "build")
    args = ["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            "-DSPARKSAVE_BUILD_APP=OFF", "-DSPARKSAVE_BUILD_TESTS=OFF", "-DSPARKSAVE_BUILD_BENCH=OFF"]
    if formats:
        args.append("-DSPARKSAVE_FORMATS=" + formats)
    if shutil.which("ccache"):
        args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    run(args)
    run(["cmake", "--build", build, "--target", "sparksave", "-j", "2"])
    return build


def link(build, sources, exe, gc, cxx):
    objects = []
    for src in sources:
        obj = os.path.join(os.path.dirname(exe), os.path.basename(src) + ".o")
        run([cxx, "-O3", "-DNDEBUG", "-std=c++20", "-I", os.path.join(ROOT, "lib/include"), "-c",
             os.path.join(ROOT, src), "-o", obj])
        objects.append(obj)
    cmd = [cxx] + objects + ["-o", exe, os.path.join(build, "libsparksave.a"), "-lfmt", "-pthread",
                             "-Wl,-Map," + exe + ".map"]
    if gc:
        cmd.append("-Wl,--gc-sections")
    run(cmd)
    run(["strip", "-o", exe + ".stripped", exe])
    return os.path.getsize(exe + ".stripped")


def objects_kept(map_path):
    """Bytes each input file contributes to the file's sections, from a GNU ld map (.bss and
    .tbss take no room in the file and are left out)."""
    sizes = collections.Counter()
    text = open(map_path, encoding="utf-8", errors="replace").read()
    text = text[text.index("Linker script and memory map"):]
    pending = None
    for line in text.split("\n"):
        m = re.match(r"^ (\.\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m:
            if not m.group(1).startswith((".bss", ".tbss")):
                sizes[m.group(3)] += int(m.group(2), 16)
            pending = None
            continue
        m = re.match(r"^ (\.\S+)$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m and pending and not pending.startswith((".bss", ".tbss")):
            sizes[m.group(2)] += int(m.group(1), 16)
        pending = None
    named = collections.Counter()
    for name, size in sizes.items():
        m = re.search(r"libsparksave\.a\((.*)\)$", name)
        named[m.group(1) if m else "(not the library)"] += size
    return named


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/out/size"))
    ap.add_argument("--objects", type=int, default=20, help="object files listed (largest first)")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    o = ap.parse_args()
    sizes = {}
    maps = {}
    for variant, formats in VARIANTS.items():
        out = os.path.join(o.out, formats or "all")
        build = build_library(out, formats)
        for program, sources in PROGRAMS.items():
            for gc in (True, False):
                exe = os.path.join(out, re.sub(r"\W+", "_", program).strip("_") + ("_gc" if gc else ""))
                sizes[(variant, program, gc)] = link(build, sources, exe, gc, o.cxx)
                if gc:
                    maps[(variant, program)] = exe + ".map"
    print("| program | spark_save only, --gc-sections | spark_save only, no GC | every format, --gc-sections | every format, no GC |")
    print("|---|---:|---:|---:|---:|")
    for program in PROGRAMS:
        cells = [f"{sizes[(v, program, gc)]:,}" for v in VARIANTS for gc in (True, False)]
        print(f"| {program} | " + " | ".join(cells) + " |")
    print()
    kept = {p: objects_kept(maps[("spark_save", p)]) for p in PROGRAMS}
    print("spark_save only, --gc-sections: bytes each object file keeps in the program "
          "(unstripped; .bss left out)")
    print()
    print("| object | " + " | ".join(PROGRAMS) + " |")
    print("|---|" + "---:|" * len(PROGRAMS))
    order = collections.Counter()
    for k in kept.values():
        order.update(k)
    for name, _ in order.most_common(o.objects):
        print(f"| {name} | " + " | ".join(f"{kept[p][name]:,}" for p in PROGRAMS) + " |")
    print("| total | " + " | ".join(f"{sum(kept[p].values()):,}" for p in PROGRAMS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
