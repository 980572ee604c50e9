#!/usr/bin/env python3
"""Instruction counts of every bench command (valgrind --tool=callgrind), on mid-size inputs.

Unlike timings, instruction counts repeat exactly on a noisy machine: this is how a change is
judged "no worse". Generates the inputs once with the first build's gen_saves (into
bench/out/callgrind/: a v4 save of 20,000 entities, the same as v1, an edited copy with 100
changes, the v4 save's JSON dump), then runs each command under callgrind with each build given,
and prints a Markdown table (one column of counts a build, and their ratio when there are two).

    python3 bench/callgrind.py --build-dir build/bench [--build-dir OTHER] [--entities N]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out", "callgrind")


def instructions(cmd):
    cg = os.path.join(OUT, "callgrind.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if os.path.exists(cg):
        os.remove(cg)
    for line in r.stderr.splitlines():
        if "Collected" in line:
            return int(line.split()[-1].replace(",", ""))
    raise SystemExit(f"no count from callgrind: {' '.join(cmd)}\n{r.stderr}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", action="append", required=True,
                    help="a release build with sparksave and bench/gen_saves (repeat to compare)")
    ap.add_argument("--entities", type=int, default=20000)
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    builds = [os.path.abspath(b) for b in args.build_dir]
    gen = os.path.join(builds[0], "bench", "gen_saves")
    first = os.path.join(builds[0], "sparksave")
    v4 = os.path.join(OUT, "mid-v4.spark_save")
    v1 = os.path.join(OUT, "mid-v1.spark_save")
    edited = os.path.join(OUT, "mid-v4-edited.spark_save")
    dump = os.path.join(OUT, "mid-v4.json")
    tag = os.path.join(OUT, f"generated-{args.entities}")
    if not os.path.exists(tag):
        subprocess.run([gen, "big", v4, "4", str(args.entities)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "big", v1, "1", str(args.entities)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "edit", v4, edited, "100"], check=True, stdout=subprocess.DEVNULL)
        with open(dump, "wb") as f:
            subprocess.run([first, "dump", "--json", v4], check=True, stdout=f)
        open(tag, "w").close()
    out = os.path.join(OUT, "out.spark_save")
    workloads = [
        ("verify", ["verify", v4], v4),
        ("info", ["info", v4], v4),
        ("dump --json", ["dump", "--json", v4], v4),
        ("dump (text)", ["dump", v4], v4),
        ("migrate v1 -> v4 -o", ["migrate", "-o", out, v1], v1),
        ("diff (100 changes)", ["diff", v4, edited], v4),
        ("pack", ["pack", dump, "-o", out], dump),
    ]
    rows = []
    for name, sub, measured in workloads:
        counts = []
        for b in builds:
            if os.path.exists(out):
                os.remove(out)
            counts.append(instructions([os.path.join(b, "sparksave")] + sub))
        rows.append((name, os.path.getsize(measured), counts))
        print(name, counts, file=sys.stderr)
    if os.path.exists(out):
        os.remove(out)
    head = "| command | " + " | ".join(f"instructions ({os.path.relpath(b)})" for b in builds) + " | per input byte |"
    if len(builds) == 2:
        head += " ratio |"
    print(head)
    print("|---|" + "---:|" * (len(builds) + 1 + (len(builds) == 2)))
    for name, size, counts in rows:
        line = f"| {name} | " + " | ".join(f"{n:,}" for n in counts) + f" | {counts[-1] / size:.1f} |"
        if len(builds) == 2:
            line += f" {counts[1] / counts[0]:.3f} |"
        print(line)


if __name__ == "__main__":
    main()
