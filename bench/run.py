#!/usr/bin/env python3
"""sparksave benchmark: every workload of the performance issue, side by side with the peers
(the read + zlib CRC-32 limit, a Kaitai Struct parser run with node, a Python struct reader),
on the same generated files, in one invocation. Prints a Markdown table (and writes it to
bench/out/full/results.md, or bench/out/quick/ with --quick).

    python3 bench/run.py            # full size: ~256 MB saves, 10,000 small files
    python3 bench/run.py --quick    # tiny inputs, to keep the bench from rotting (CI)
    python3 bench/run.py --only dump-hex   # one row alone (on the big save)
    python3 bench/run.py --only dump       # the floor and the dump rows (big save, textconv file)
    python3 bench/run.py --only salvage    # salvage of the big save cut short, alone
    python3 bench/run.py --only migrate    # migrate and the content rules, beside the write floor

Needs an optimised build with the benchmark programs (made with `cmake --preset bench` unless
--build-dir is given), gcc
and zlib for the limit peer, node + npm for the Kaitai peer (installed into bench/node_modules),
valgrind for instruction counts. Timings are wall-clock, best of --repeat runs, hot page cache;
peak memory is the child's max RSS. Every row measured in bytes is also given as a multiple of
the floor (bench/floor.cpp: map the big v4 save and walk its length prefixes with bounds checks,
nothing else), timed in the same run: the floor's MB/s over the row's MB/s of its own input.
The rows that write a file durably (migrate, salvage) are also given as a multiple of the write
floor (`floor --write`: the same number of bytes written to a new file and fsync'd).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT_ROOT = os.path.join(HERE, "out")


LAST_CPU = []  # the CPU seconds (user + system) of each run() since best_cpu() cleared it


def run(cmd, stdout=subprocess.DEVNULL, check=True, env=None):
    """Runs cmd; returns (seconds, max RSS in bytes, exit code); its CPU time goes to LAST_CPU."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    LAST_CPU.append(usage.ru_utime + usage.ru_stime)
    if check and code not in (0, 1):
        raise SystemExit(f"failed ({code}): {' '.join(cmd)}\n{err}")
    return elapsed, usage.ru_maxrss * 1024, code


def best(cmd, repeat, **kw):
    results = [run(cmd, **kw) for _ in range(repeat)]
    return min(r[0] for r in results), max(r[1] for r in results)


def best_cpu(cmd, repeat, **kw):
    """best() and the least CPU time (user + system) of the runs: on a loaded machine the wall
    clock mostly measures the wait for a core."""
    LAST_CPU.clear()
    t, rss = best(cmd, repeat, **kw)
    return t, rss, min(LAST_CPU)


def mb(n):
    return n / 1e6


def build(build_dir):
    if build_dir is None:
        build_dir = os.path.join(ROOT, "build", "bench")
        subprocess.run(["cmake", "--preset", "bench"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", "--preset", "bench", "--target", "sparksave_cli", "gen_saves",
                        "api_bench", "floor"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(build_dir, "sparksave"), os.path.join(build_dir, "bench", "gen_saves")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tiny inputs (CI)")
    ap.add_argument("--build-dir", help="an existing release build directory")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-peers", action="store_true", help="skip the Kaitai and Python peers")
    ap.add_argument("--only", choices=["dump-hex", "dump", "salvage", "migrate"],
                    help="run only these rows (dump: the floor, dump --json, dump, the textconv "
                         "dump of a 10 MB save, dump --hex; salvage: the big save cut at 60 %%; "
                         "migrate: v1 -> v4 and the content rules, beside the write floor), on "
                         "the big saves (generated alone when missing); prints them, leaves "
                         "results.md as it was")
    args = ap.parse_args()

    sparksave, gen = build(args.build_dir)
    global OUT
    OUT = os.path.join(OUT_ROOT, "quick" if args.quick else "full")  # inputs of each size apart
    os.makedirs(OUT, exist_ok=True)
    entities = 2000 if args.quick else 400000
    small_count = 200 if args.quick else 10000
    repeat = 1 if args.quick else args.repeat

    big4 = os.path.join(OUT, "big-v4.spark_save")
    big1 = os.path.join(OUT, "big-v1.spark_save")
    big4b = os.path.join(OUT, "big-v4-edited.spark_save")
    mid4 = os.path.join(OUT, "mid-v4.spark_save")
    small = os.path.join(OUT, "small")
    small_v1 = os.path.join(OUT, "small-v1")
    small_v1_count = 100 if args.quick else 1000
    dump_json = os.path.join(OUT, "big-v4.json")
    tag = os.path.join(OUT, f"generated-{entities}-{small_count}-{small_v1_count}")

    floor_bin = os.path.join(os.path.dirname(gen), "floor")
    textconv = os.path.join(OUT, "textconv-v4.spark_save")  # ~10 MB (issue 25: git's textconv)
    floor_rate = None  # MB/s of the floor on the big v4 save, this run

    def floor_row(add):
        """The floor: map the big save, walk its length prefixes with bounds checks (issue 26)."""
        nonlocal floor_rate
        size = os.path.getsize(big4)
        t, rss, cpu = best_cpu([floor_bin, big4], repeat)
        floor_rate = mb(size) / t
        add("floor: map + bounds-checked length walk", f"big v4 ({mb(size):.0f} MB)", t, rss, size=size,
            note=f"bench/floor.cpp; {cpu_note(size, cpu)}")

    write_floor_rate = None  # MB/s of the durable-write floor, this run
    rules = os.path.join(HERE, "rules", "big.toml")  # the content rule of the rules rows

    def write_floor_row(add):
        """The floor of a durable write: the big v1 save's bytes to a new file, then fsync."""
        nonlocal write_floor_rate
        size = os.path.getsize(big1)
        out = os.path.join(OUT, "floor-written.spark_save")

        def once():
            if os.path.exists(out):
                os.remove(out)
            return run([floor_bin, "--write", big1, out])

        results = [once() for _ in range(repeat)]
        t = min(r[0] for r in results)
        write_floor_rate = mb(size) / t
        os.remove(out)
        add("floor: write the same bytes + fsync", f"big v1 ({mb(size):.0f} MB)", t,
            max(r[1] for r in results), size=size,
            note="bench/floor.cpp --write: the disk's share of every durable write")

    def write_ratio(size, seconds):
        return f"{write_floor_rate / (mb(size) / seconds):.1f}x the write floor" if write_floor_rate else ""

    def migrate_rows(add):
        """migrate v1 -> v4 of the big save (issue 26: >= 600 MB/s) and the content rules over
        the big saves (issue 23: >= 500 MB/s with the format migration included)."""
        size4, size1 = os.path.getsize(big4), os.path.getsize(big1)
        migrated = os.path.join(OUT, "migrated.spark_save")

        def migrate_once():
            if os.path.exists(migrated):
                os.remove(migrated)
            return run([sparksave, "migrate", "-o", migrated, big1])

        results = [migrate_once() for _ in range(repeat)]
        t = min(r[0] for r in results)
        add("sparksave migrate v1 -> v4 (-o)", f"big v1 ({mb(size1):.0f} MB)", t,
            max(r[1] for r in results), size=size1, note=write_ratio(size1, t))
        # Content rules (issue 23): bench/rules/big.toml over the big saves, with the format
        # migration (v1) and without (v4). Target: >= 500 MB/s with the format migration included.
        for src, label, size in ((big4, "big v4", size4), (big1, "big v1", size1)):
            def rules_once():
                if os.path.exists(migrated):
                    os.remove(migrated)
                return run([sparksave, "migrate", "--rules", rules, "-o", migrated, src])

            results = [rules_once() for _ in range(repeat)]
            t = min(r[0] for r in results)
            add(f"sparksave migrate --rules (-o), {label[4:]} input", f"{label} ({mb(size):.0f} MB)",
                t, max(r[1] for r in results), size=size,
                note="6 steps (bench/rules/big.toml)" + (", v1 -> v4 first" if src == big1 else "") +
                     "; " + write_ratio(size, t))

    def cpu_note(size, cpu):
        return f"CPU {cpu:.3f} s: {mb(size) / cpu:,.0f} MB/s" if cpu > 0 else "CPU time not measured"

    def dump_rows(add):
        """dump --json and dump of the big save (issue 26: >= 600 MB/s, <= 2x the file in memory);
        the textconv dump of a ~10 MB save, process start included (issue 25: <= 50 ms)."""
        size = os.path.getsize(big4)
        bigv = f"big v4 ({mb(size):.0f} MB)"
        t, rss, cpu = best_cpu([sparksave, "dump", "--json", big4], repeat)
        add("sparksave dump --json > /dev/null", bigv, t, rss, size=size,
            note=f"{cpu_note(size, cpu)}; target >= 600 MB/s")
        t, rss, cpu = best_cpu([sparksave, "dump", big4], repeat)
        add("sparksave dump (text) > /dev/null", bigv, t, rss, size=size,
            note=f"{cpu_note(size, cpu)}; target >= 600 MB/s")
        if not os.path.exists(textconv):
            subprocess.run([gen, "big", textconv, "4", "16800"], check=True, stdout=subprocess.DEVNULL)
        tc_size = os.path.getsize(textconv)
        t, rss, cpu = best_cpu([sparksave, "dump", textconv], max(repeat, 5))
        add("sparksave dump (git textconv)", f"v4 ({mb(tc_size):.1f} MB)", t, rss, size=tc_size,
            note=f"{t * 1000:.1f} ms (CPU {cpu * 1000:.1f} ms), best of {max(repeat, 5)}, process start "
                 f"included (target <= 50 ms)")

    def hex_row(add):
        """dump --hex of the big save: every byte's row and field (issue 25: >= 50 MB/s)."""
        size = os.path.getsize(big4)
        t, rss, cpu = best_cpu([sparksave, "dump", "--hex", big4], repeat)
        add("sparksave dump --hex > /dev/null", f"big v4 ({mb(size):.0f} MB)", t, rss, size=size,
            note=f"{cpu_note(size, cpu)}; target >= 50 MB/s")

    def floor_ratio(rate_mb):
        return f"{floor_rate / rate_mb:,.1f}x" if floor_rate and rate_mb else ""

    def salvage_row(add):
        """salvage of the big save with one truncation (issue 24: >= 300 MB/s): the input cut at
        60 %, written to a new OUT each run (with the text report, which stdout discards)."""
        cut = os.path.join(OUT, "big-v4-cut.spark_save")
        out = os.path.join(OUT, "salvaged.spark_save")
        size = os.path.getsize(big4) * 6 // 10
        if not os.path.exists(cut) or os.path.getsize(cut) != size:
            # In blocks: a child's peak RSS (wait4) starts at this process's size when it forks,
            # so the harness must stay small (reading the 144 MB at once made every later row's
            # peak RSS 154 MiB).
            with open(big4, "rb") as f, open(cut, "wb") as o:
                left = size
                while left:
                    block = f.read(min(left, 1 << 20))
                    if not block:
                        break
                    o.write(block)
                    left -= len(block)

        def once():
            if os.path.exists(out):
                os.remove(out)
            return run([sparksave, "salvage", cut, "-o", out])

        results = [once() for _ in range(repeat)]
        t = min(r[0] for r in results)
        add("sparksave salvage -o OUT (one truncation)", f"big v4 cut at 60 % ({mb(size):.0f} MB)",
            t, max(r[1] for r in results), size=size,
            note="target >= 300 MB/s; " + write_ratio(size, t))

    if args.only:
        if not os.path.exists(big4):
            print("generating the big v4 save ...", file=sys.stderr)
            subprocess.run([gen, "big", big4, "4", str(entities)], check=True, stdout=subprocess.DEVNULL)
        if args.only in ("salvage", "migrate") and not os.path.exists(big1):
            print("generating the big v1 save ...", file=sys.stderr)
            subprocess.run([gen, "big", big1, "1", str(entities)], check=True, stdout=subprocess.DEVNULL)
        only = []

        def add_only(name, what, seconds, rss, size, note=""):
            rate = mb(size) / seconds
            only.append(f"| {name} | {what} | {seconds:.3f} s | {rate:,.0f} MB/s | {floor_ratio(rate)} | "
                        f"{rss / 2**20:,.0f} MiB | {note} |")

        floor_row(add_only)
        if args.only in ("salvage", "migrate"):
            write_floor_row(add_only)
        if args.only == "migrate":
            migrate_rows(add_only)
        if args.only == "dump":
            dump_rows(add_only)
        if args.only in ("dump", "dump-hex"):
            hex_row(add_only)
        if args.only == "salvage":
            salvage_row(add_only)
        print("| workload | input | time | throughput | x the floor | peak RSS | notes |\n"
              "|---|---|---:|---:|---:|---:|---|")
        print("\n".join(only))
        return
    if not os.path.exists(tag):
        print("generating inputs ...", file=sys.stderr)
        for f in (big4, big1, big4b, mid4):
            if os.path.exists(f):
                os.remove(f)
        shutil.rmtree(small, ignore_errors=True)
        shutil.rmtree(small_v1, ignore_errors=True)
        subprocess.run([gen, "big", big4, "4", str(entities)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "big", big1, "1", str(entities)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "edit", big4, big4b, "100"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "big", mid4, "4", str(max(entities // 20, 100))], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "small", small, str(small_count)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, "small", small_v1, str(small_v1_count), "11", "1", "75"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(dump_json, "wb") as f:
            subprocess.run([sparksave, "dump", "--json", big4], check=True, stdout=f)
        open(tag, "w").close()
    size4, size1 = os.path.getsize(big4), os.path.getsize(big1)
    json_size = os.path.getsize(dump_json)
    small_files = sorted(os.listdir(small))
    small_bytes = sum(os.path.getsize(os.path.join(small, f)) for f in small_files)

    rows = []  # (workload, input, seconds, rate text, MB/s of input or None, rss, notes)

    def add(name, what, seconds, rss, size=None, files=None, note=""):
        if files is not None:
            rate = f"{files / seconds:,.0f} files/s"
        else:
            rate = f"{mb(size) / seconds:,.0f} MB/s"
        rows.append((name, what, seconds, rate, mb(size) / seconds if size else None, rss, note))

    floor_row(add)
    write_floor_row(add)

    # The limit peer: read + zlib CRC-32.
    limit = None
    if shutil.which("gcc"):
        limit_bin = os.path.join(OUT, "crc_limit")
        if not os.path.exists(limit_bin):
            built = subprocess.run(["gcc", "-O2", "-o", limit_bin, os.path.join(HERE, "crc_limit.c"), "-lz"])
            if built.returncode != 0:
                print("the limit peer needs zlib (zlib1g-dev): skipped", file=sys.stderr)
        if os.path.exists(limit_bin):
            t, rss = best([limit_bin, big4], repeat)
            limit = t
            add("limit: read + zlib crc32", "big v4", t, rss, size=size4)

    bigv = f"big v4 ({mb(size4):.0f} MB)"
    t_verify, rss = best([sparksave, "verify", big4], repeat)
    note = f"{limit / t_verify:.2f}x the limit's speed" if limit else ""
    add("sparksave verify", bigv, t_verify, rss, size=size4, note=note)
    t, rss = best([sparksave, "info", big4], repeat)
    add("sparksave info", bigv, t, rss, size=size4)
    dump_rows(add)
    hex_row(add)
    salvage_row(add)
    migrate_rows(add)
    t, rss = best([sparksave, "diff", big4, big4b], repeat)
    add("sparksave diff (~100 differences)", "two big v4", t, rss, size=size4 + os.path.getsize(big4b))
    packed = os.path.join(OUT, "packed.spark_save")
    t, rss = best([sparksave, "pack", "-o", packed, dump_json], repeat)
    add("sparksave pack", f"big v4 dump ({mb(json_size):.0f} MB JSON)", t, rss, size=json_size,
        note=f"{mb(size4) / t:,.0f} MB/s of output")
    t, rss = best([sparksave, "verify", "--quiet", small], repeat)
    add("sparksave verify, small files", f"{len(small_files)} files", t, rss, files=len(small_files),
        size=small_bytes)
    out_dir = os.path.join(OUT, "small-migrated")

    def migrate_dir():
        shutil.rmtree(out_dir, ignore_errors=True)
        return run([sparksave, "migrate", "--output-dir", out_dir, small])

    results = [migrate_dir() for _ in range(repeat)]
    add("sparksave migrate --output-dir, small files", f"{len(small_files)} files", min(r[0] for r in results),
        max(r[1] for r in results), files=len(small_files), size=small_bytes)

    # Issue 3's batch: v1 saves of ~50 KB, all migrated to v4.
    v1_files = sorted(os.listdir(small_v1))
    v1_bytes = sum(os.path.getsize(os.path.join(small_v1, f)) for f in v1_files)
    out_v1 = os.path.join(OUT, "small-v1-migrated")

    def migrate_v1():
        shutil.rmtree(out_v1, ignore_errors=True)
        return run([sparksave, "migrate", "--output-dir", out_v1, small_v1])

    results = [migrate_v1() for _ in range(repeat)]
    t = min(r[0] for r in results)
    add("sparksave migrate --output-dir, v1 saves", f"{len(v1_files)} files ({mb(v1_bytes) / len(v1_files) * 1000:.0f} KB each)",
        t, max(r[1] for r in results), files=len(v1_files), size=v1_bytes, note=f"{mb(v1_bytes) / t:,.0f} MB/s")

    # The engine-facing API (issue 14), timed inside one process by api_bench: read_metadata over a
    # load-game menu's saves of ~1.3 MB (target: within 3x of reading each file's first 4 KiB),
    # SaveView::parse (target: the speed of verify), SaveWriter (target: >= 500 MB/s of output).
    api = os.path.join(os.path.dirname(gen), "api_bench")
    if os.path.exists(api):
        def api_run(*a):
            """(wall seconds, count, CPU seconds, peak RSS bytes) of one api_bench mode, best of --repeat."""
            out = subprocess.run([api, *a, str(repeat)], check=True, stdout=subprocess.PIPE, text=True).stdout
            t, n, cpu, rss = out.split()
            return float(t), int(n), float(cpu), int(rss)

        # A load-game menu at three save sizes (~130 KB, ~1.3 MB, ~13 MB: 200, 2,000 and 20,000
        # entities): read_metadata should not move with the size. 1,000 saves each (100 of 13 MB:
        # 1.3 GB instead of 13 GB on disk; the figure is per file).
        menus = [(200, 20 if args.quick else 1000), (2000, 20 if args.quick else 1000),
                 (20000, 5 if args.quick else 100)]
        for menu_entities, menu_count in menus:
            menu = os.path.join(OUT, f"menu-{menu_entities}")
            menu_tag = os.path.join(OUT, f"menu-{menu_entities}-{menu_count}")
            if not os.path.exists(menu_tag):
                shutil.rmtree(menu, ignore_errors=True)
                subprocess.run([gen, "small", menu, str(menu_count), "5", "4", str(menu_entities)], check=True,
                               stdout=subprocess.DEVNULL)
                open(menu_tag, "w").close()
            menu_files = os.listdir(menu)
            menu_mb = mb(sum(os.path.getsize(os.path.join(menu, f)) for f in menu_files)) / len(menu_files)
            _, _, c_head, _ = api_run("head", menu)
            t_meta, n, c_meta, rss = api_run("metadata", menu)
            what = f"{n} saves ({menu_mb:.2f} MB each)"
            add("read_metadata (load-game menu)", what, t_meta, rss, files=n,
                note=f"CPU {c_meta * 1e6 / n:.1f} us a file, {c_meta / c_head:.1f}x reading the first 4 KiB of "
                     f"each (CPU {c_head * 1e6 / n:.1f} us a file)")
        t_verify, _ = best([sparksave, "verify", mid4], repeat)
        t, n, cpu, rss = api_run("parse", mid4)
        add("SaveView::parse", f"mid v4 ({mb(n):.1f} MB)", t, rss, size=n,
            note=f"CPU {cpu * 1000:.1f} ms (both threads); `sparksave verify` of the same file: {t_verify:.3f} s, "
                 f"{mb(n) / t_verify:,.0f} MB/s (a process: start, map, print)")
        t, n, cpu, rss = api_run("rules", big4, rules)
        add("RuleSet::apply", f"big v4 ({mb(n):.0f} MB)", t, rss, size=n,
            note=f"CPU {cpu:.3f} s; 6 steps (bench/rules/big.toml)")
        t, n, cpu, rss = api_run("rules-parse", "50")
        add("RuleSet::parse, 50 steps", f"{n:,} bytes of TOML", t, rss, size=n,
            note=f"{t * 1000:.2f} ms (target <= 10 ms)")
        t, n, cpu, rss = api_run("writer", str(max(entities // 20, 100)))
        add("SaveWriter::finish (encode as built, rules as written)", f"{mb(n):.1f} MB of output", t, rss, size=n,
            note=f"CPU {cpu * 1000:.1f} ms: {mb(n) / cpu:,.0f} MB/s")

    # Peers that parse: Kaitai Struct (node) and a Python struct reader.
    peer_file, peer_name = (mid4, "mid v4") if not args.quick else (big4, "big v4")
    peer_size = os.path.getsize(peer_file)
    t_ours, rss = best([sparksave, "verify", peer_file], repeat)
    add("sparksave verify", f"{peer_name} ({mb(peer_size):.1f} MB)", t_ours, rss, size=peer_size)
    if not args.no_peers and shutil.which("node") and shutil.which("npm"):
        kaitai_dir = os.path.join(HERE, ".kaitai")
        if not os.path.exists(os.path.join(HERE, "node_modules", "kaitai-struct-compiler")):
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=HERE, check=True)
        if not os.path.exists(os.path.join(kaitai_dir, "SparkSave.js")):
            subprocess.run(["node", os.path.join(HERE, "kaitai", "compile.js"), kaitai_dir], check=True,
                           stdout=subprocess.DEVNULL)
        t, rss = best(["node", os.path.join(HERE, "kaitai", "parse.js"), kaitai_dir, peer_file], repeat)
        add("Kaitai Struct parser (node)", f"{peer_name} ({mb(peer_size):.1f} MB)", t, rss, size=peer_size,
            note=f"sparksave verify is {t / t_ours:.0f}x faster")
    if not args.no_peers:
        t, rss = best([sys.executable, os.path.join(HERE, "peers", "spark_save_struct.py"), peer_file], repeat)
        add("Python struct reader", f"{peer_name} ({mb(peer_size):.1f} MB)", t, rss, size=peer_size,
            note=f"sparksave verify is {t / t_ours:.0f}x faster")

    # Instruction counts: repeatable on a noisy machine.
    counts = []
    if shutil.which("valgrind"):
        for sub in (["verify"], ["dump", "--json"]):
            cg = os.path.join(OUT, "callgrind.out")
            r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", sparksave] + sub + [mid4],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for line in r.stderr.splitlines():
                if "Collected" in line:
                    n = int(line.split()[-1].replace(",", ""))
                    counts.append((" ".join(sub), n, n / os.path.getsize(mid4)))
                    break
            os.remove(cg)

    lines = ["| workload | input | time | throughput | x the floor | peak RSS | notes |",
             "|---|---|---:|---:|---:|---:|---|"]
    for name, what, seconds, rate, rate_mb, rss, note in rows:
        shown = f"{rss / 2**20:,.0f} MiB" if rss else "(in process)"
        lines.append(f"| {name} | {what} | {seconds:.3f} s | {rate} | {floor_ratio(rate_mb)} | {shown} | {note} |")
    if counts:
        lines += ["", f"Instruction counts (valgrind --tool=callgrind) on mid v4 ({mb(os.path.getsize(mid4)):.1f} MB):", "",
                  "| command | instructions | per input byte |", "|---|---:|---:|"]
        for sub, n, per in counts:
            lines.append(f"| sparksave {sub} | {n:,} | {per:.1f} |")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(OUT, "results.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
