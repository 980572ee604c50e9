#!/usr/bin/env python3
"""Fault suite for the sparksave CLI (issue 11, "Tests"): disk full, no inode, immutable files,
read-only mounts, unreadable directories, memory and thread limits, signals and kill -9 at random
moments, files truncated or rewritten while they are read, special destinations, closed pipes,
streams, long names and metadata.

Every case builds its own scratch tree, hashes every file in it before and after, and checks that
inputs and outputs changed only where the case expects it, that no temporary file
(`.NAME.sparksave-XXXXXX`) and no other stray file is left, and the exit status. After kill -9 a
temporary file may remain; the next run must recognise it. A case the machine has no means for
(not root, no tmpfs, no chattr, no setpriv) is skipped, never failed.

    python3 tests/fault/run.py --binary build/dev/sparksave [--tries N] [--only SUBSTR]...

Output: `PASS name` / `FAIL name: why` / `SKIP name: why`, then `N passed, N failed, N skipped`.
Exit 1 when a case failed. Python 3 standard library only.
"""
import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TESTDATA = os.path.join(REPO, "testdata")

# A temporary file of sparksave's atomic writer: `.NAME.sparksave-XXXXXX` (mkstemp's six
# characters); a long NAME may be shortened, so only the shape is matched.
TEMP_RE = re.compile(r"^\..*\.sparksave-[A-Za-z0-9_]{6}")
BACKUP_RE = re.compile(r"\.v\d+\.bak$")

# Exact message texts the CLI uses (matched as substrings only).
MSG_WALK = "cannot read the directory"
MSG_TWO_INPUTS = "another input maps to this output"
MSG_CHANGED_MIGRATING = "changed while it was being migrated"
MSG_NOT_REGULAR = "is not a regular file"
MSG_CHANGED_READ = "the file changed while it was read"
MSG_STALE = "stale temporary file of an interrupted sparksave write"

CRASH_TEXTS = ("terminate called", "Aborted", "AddressSanitizer", "runtime error:",
               "Segmentation fault", "std::bad_alloc", "core dumped")
CRASH_SIGNALS = {signal.SIGABRT, signal.SIGBUS, signal.SIGSEGV, signal.SIGFPE, signal.SIGILL}

ARGS = None
BINARY = None


class Skip(Exception):
    pass


class Fail(Exception):
    pass


def check(cond, why):
    if not cond:
        raise Fail(why)


def log(msg):
    if ARGS.verbose:
        print("    " + msg, flush=True)


# --------------------------------------------------------------------------------------------
# Running the binary


class Res:
    def __init__(self, argv, status, out, err, maxrss_kb, timed_out):
        self.argv = argv
        self.signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        # The status as a shell shows it: 128 + N for a process ended by signal N.
        self.rc = 128 + self.signal if self.signal else os.WEXITSTATUS(status)
        self.out = out.decode("utf-8", "replace")
        self.err = err.decode("utf-8", "replace")
        self.outb = out
        self.maxrss_kb = maxrss_kb
        self.timed_out = timed_out

    @property
    def text(self):
        return self.out + self.err

    def describe(self):
        tail = (self.err.strip() or self.out.strip()).splitlines()[-3:]
        argv = self.argv
        wrapper = ""
        if BINARY in argv and argv.index(BINARY) > 0:
            i = argv.index(BINARY)
            wrapper = " ".join(a for a in argv[:i] if a.startswith(("RLIMIT", "--re")) or
                               a.isdigit())
            wrapper = "[%s] " % wrapper if wrapper else ""
            argv = argv[i:]
        cmd = wrapper + " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(argv))
        if len(cmd) > 160:
            cmd = cmd[:160] + "..."
        return "`%s` exit %d%s%s" % (cmd, self.rc, " (timed out)" if self.timed_out else "",
                                     (": " + " | ".join(tail)) if tail else "")


class Proc:
    """A started process; stdout/stderr go to files so rusage can be read with wait4."""

    def __init__(self, argv, cwd=None, stdin=None, stdout_pipe=False, env=None):
        self.argv = argv
        self.fo = tempfile.TemporaryFile()
        self.fe = tempfile.TemporaryFile()
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=stdin if stdin is not None else
                                  subprocess.DEVNULL,
                                  stdout=subprocess.PIPE if stdout_pipe else self.fo,
                                  stderr=self.fe, env=env)
        self.pid = self.p.pid
        self.started = time.monotonic()

    def kill(self, sig):
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

    def wait(self, timeout=120):
        timed_out = []

        def on_timeout():
            timed_out.append(True)
            self.kill(signal.SIGKILL)

        timer = threading.Timer(timeout, on_timeout)
        timer.start()
        try:
            _, status, ru = os.wait4(self.pid, 0)
        finally:
            timer.cancel()
        self.p.returncode = 0  # reaped here; keep Popen from waiting again
        if self.p.stdout:
            with contextlib.suppress(Exception):
                rest = self.p.stdout.read()
                self.fo.write(rest)
            self.p.stdout.close()
        self.fo.seek(0)
        self.fe.seek(0)
        r = Res(self.argv, status, self.fo.read(), self.fe.read(), ru.ru_maxrss, bool(timed_out))
        self.fo.close()
        self.fe.close()
        return r


def _alive(pid):
    """True while the child has not exited (it is not reaped)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def run(args, cwd=None, stdin=None, timeout=120, prefix=(), env=None):
    """Runs sparksave ARGS (prefix: a wrapper such as setpriv); returns a Res."""
    argv = list(prefix) + [BINARY] + list(args)
    return Proc(argv, cwd=cwd, stdin=stdin, env=env).wait(timeout)


def limited(resource_name, value):
    """A wrapper that sets one resource limit (as `ulimit` does) and execs the rest."""
    return [sys.executable, "-c", "import os, resource, sys; v = int(sys.argv[2]); "
            "resource.setrlimit(getattr(resource, sys.argv[1]), (v, v)); "
            "os.execv(sys.argv[3], sys.argv[3:])", resource_name, str(value)]


def run_argv(argv, cwd=None, timeout=120, stdin=None):
    return Proc(list(argv), cwd=cwd, stdin=stdin).wait(timeout)


def no_crash(r, what=""):
    check(not r.timed_out, "%s hung: %s" % (what, r.describe()))
    check(r.signal not in CRASH_SIGNALS and r.rc not in (132, 134, 135, 136, 139),
          "%s crashed: %s" % (what, r.describe()))
    for t in CRASH_TEXTS:
        check(t not in r.text, "%s printed %r: %s" % (what, t, r.describe()))


def expect_rc(r, allowed, what=""):
    no_crash(r, what)
    allowed = (allowed,) if isinstance(allowed, int) else tuple(allowed)
    check(r.rc in allowed, "%s: expected exit %s, got %s" %
          (what or "command", "/".join(map(str, allowed)), r.describe()))


# --------------------------------------------------------------------------------------------
# Scratch trees, hashes, temporary files


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def snapshot(root):
    """relpath -> sha256 for regular files, 'dir' / 'fifo' / 'chr 1,3' / ... for the rest."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                try:
                    snap[rel] = sha(p)
                except OSError as e:
                    snap[rel] = "unreadable " + e.strerror
            elif stat.S_ISDIR(st.st_mode):
                snap[rel] = "dir"
            elif stat.S_ISFIFO(st.st_mode):
                snap[rel] = "fifo"
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                snap[rel] = "dev %d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
            elif stat.S_ISLNK(st.st_mode):
                snap[rel] = "link " + os.readlink(p)
            else:
                snap[rel] = "other"
    return snap


def temps(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            if TEMP_RE.match(name):
                found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(found)


def check_no_temp(root, what="", allowed=()):
    left = [t for t in temps(root) if t not in allowed]
    check(not left, "%stemporary file left: %s" % (what + ": " if what else "", ", ".join(left[:5])))


def check_same(before, after, what="", only=None, ignore=()):
    """Files of `before` (or of `only`) are byte-identical in `after`, no file appeared."""
    keys = only if only is not None else before.keys()
    for k in keys:
        if k in ignore:
            continue
        check(k in after, "%s%s disappeared" % (what + ": " if what else "", k))
        check(after[k] == before[k], "%s%s changed" % (what + ": " if what else "", k))
    if only is None:
        new = sorted(k for k in after if k not in before and k not in ignore)
        check(not new, "%snew files: %s" % (what + ": " if what else "", ", ".join(new[:5])))


class Scratch:
    def __init__(self, name):
        self.root = tempfile.mkdtemp(prefix="sparksave-fault-%s-" % name, dir=ARGS.tmpdir)
        self.cleanups = []

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def on_cleanup(self, fn):
        self.cleanups.append(fn)

    def close(self):
        for fn in reversed(self.cleanups):
            with contextlib.suppress(Exception):
                fn()
        if ARGS.keep:
            print("    kept " + self.root)
            return
        subprocess.run(["chattr", "-R", "-i", self.root], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL) if shutil.which("chattr") else None
        shutil.rmtree(self.root, ignore_errors=True)


def write(path, data, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def copy_tree(src, dst):
    shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)


# --------------------------------------------------------------------------------------------
# Sample saves


def s16(b):
    return struct.pack("<H", len(b)) + b


def make_v1(entities, seed=0, distinct=400):
    """A v1 .spark_save (formats/README.md §1.1/1.2) with ENTITIES entities; entity records repeat after
    DISTINCT so big files are quick to build. Valid for the v1 reader and migrates to v4."""
    rnd = random.Random(seed)
    meta = ("Fault save %d\nFaultScene\nRanger\n%d\n42.5\n75\n25\n1 2 3\n4\n1\n" %
            (seed, 1700000000 + seed)).encode()
    keys = [b"rz", b"px", b"py", b"rx", b"pz", b"ry", b"sx", b"sy", b"sz"]
    blobs = []
    for i in range(min(entities, distinct)):
        props = [s16(k) + s16(b"%.6f" % rnd.uniform(-500, 500)) for k in keys]
        comps = [s16(b"Transform") + struct.pack("<H", len(props)) + b"".join(props),
                 s16(b"HealthComponent") + struct.pack("<H", 2) + s16(b"current") +
                 s16(b"%d" % rnd.randrange(100)) + s16(b"max") + s16(b"100")]
        blobs.append(s16(b"entity_%d_%d" % (seed, i)) + struct.pack("<H", len(comps)) +
                     b"".join(comps))
    out = [b"SPRK", struct.pack("<II", 1, len(meta)), meta, struct.pack("<I", entities)]
    if blobs:
        whole, part = divmod(entities, len(blobs))
        out.append(b"".join(blobs) * whole + b"".join(blobs[:part]))
    custom = [(b"quest.stage", b"%d" % (seed % 7)), (b"fault.seed", b"%d" % seed)]
    out.append(struct.pack("<I", len(custom)))
    out.extend(s16(k) + s16(v) for k, v in custom)
    return b"".join(out)


def sample(*parts):
    p = os.path.join(TESTDATA, *parts)
    if not os.path.exists(p):
        raise Skip("testdata file missing: " + os.path.relpath(p, REPO))
    return read(p)


SAMPLES = {
    # name in a scratch tree -> path under testdata
    "v1-screenshotless.spark_save": ("spark_save", "real", "valid", "v1-screenshotless.spark_save"),
    "v1-loose-metadata.spark_save": ("spark_save", "valid", "v1-loose-metadata.spark_save"),
    "v4-hierarchy.spark_save": ("spark_save", "valid", "v4-hierarchy.spark_save"),
    "tess-canonical-v1.tessw": ("tess_world", "real", "valid", "tess-canonical-v1.tessw"),
    "v1-sparse-states.tessw": ("tess_world", "valid", "v1-sparse-states.tessw"),
    "mmo-legacy.kv": ("spark_kv", "valid", "mmo-legacy.kv"),
    "mmo-v2.kv": ("spark_kv", "valid", "mmo-v2.kv"),
    "v1-binary.gmsv": ("gmsv", "valid", "v1-binary.gmsv"),
    "every-type.sz": ("text_archive", "valid", "every-type.sz"),
}


class Fixtures:
    """Pristine inputs built once per run and copied into each case's scratch tree."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="sparksave-fault-fixtures-", dir=ARGS.tmpdir)
        self._cache = {}
        self._refs = {}

    def close(self):
        if not ARGS.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def bytes(self, kind):
        if kind not in self._cache:
            if kind == "big":  # ~10 MiB v1, mapped and migrated part by part
                data = make_v1(18000, seed=7)
            elif kind == "mid":  # ~3 MiB v1 (over the 1 MiB part-by-part threshold)
                data = make_v1(5200, seed=3)
            elif kind == "small":
                data = make_v1(12, seed=1)
            elif kind in SAMPLES:
                data = sample(*SAMPLES[kind])
            else:
                raise KeyError(kind)
            self._cache[kind] = data
        return self._cache[kind]

    def batch(self, dst, count=200, formats=True):
        """COUNT small v1 saves (plus v1 tess and gmsv saves) under DST, in a few folders."""
        for i in range(count):
            write(os.path.join(dst, "d%d" % (i % 4), "slot_%03d.spark_save" % i),
                  make_v1(3 + i % 17, seed=100 + i))
        if formats:
            for name in ("tess-canonical-v1.tessw", "v1-sparse-states.tessw", "v1-binary.gmsv",
                         "v1-screenshotless.spark_save"):
                write(os.path.join(dst, "formats", name), self.bytes(name))

    def reference(self, data):
        """The bytes `migrate` writes for DATA (deterministic), or None when it cannot."""
        key = hashlib.sha256(data).hexdigest()
        if key not in self._refs:
            d = tempfile.mkdtemp(dir=self.root)
            write(os.path.join(d, "in", "x.spark_save"), data)
            os.makedirs(os.path.join(d, "out"))
            run(["migrate", "--output-dir", os.path.join(d, "out"), os.path.join(d, "in")])
            out = os.path.join(d, "out", "x.spark_save")
            self._refs[key] = sha(out) if os.path.exists(out) else None
            shutil.rmtree(d, ignore_errors=True)
        return self._refs[key]


FIX = None


def verify_json(paths, prefix=()):
    """path -> verify --json object for each path (one run)."""
    res = {}
    for i in range(0, len(paths), 200):
        r = run(["verify", "--json"] + paths[i:i + 200], prefix=prefix)
        no_crash(r, "verify")
        for line in r.out.splitlines():
            with contextlib.suppress(ValueError):
                obj = json.loads(line)
                res[obj.get("path")] = obj
    return res


def fully_migrated(obj):
    return bool(obj) and obj.get("ok") and not any(
        f.get("code") == "needs_migration" for f in obj.get("findings", []))


def check_migrated_or_original(root, before, backup=False, what="", candidates=None):
    """After an in-place run over ROOT: every file of BEFORE holds its original bytes or is a
    valid, fully migrated file; with --backup a migrated FILE has FILE.v<N>.bak with the original
    bytes and a file left as it was has no backup made by this run (issue item 6). Returns the
    number of migrated files."""
    after = snapshot(root)
    changed = []
    for rel, h in before.items():
        if h in ("dir",) or not isinstance(h, str) or h.startswith(("fifo", "dev", "link")):
            continue
        if candidates is not None and rel not in candidates:
            continue
        check(rel in after, "%s: %s disappeared" % (what, rel))
        if after[rel] != h:
            changed.append(rel)
    unverified = []
    for rel in changed:
        ref = FIX._refs.get(before[rel] + "-ref") if FIX else None
        if ref is None or after[rel] != ref:
            unverified.append(rel)
    if unverified:
        objs = verify_json([os.path.join(root, rel) for rel in unverified])
        for rel in unverified:
            obj = objs.get(os.path.join(root, rel))
            check(fully_migrated(obj), "%s: %s is neither the original bytes nor a valid migrated "
                  "file (%s)" % (what, rel, json.dumps(obj)[:200] if obj else "unreadable"))
    if backup:
        for rel, h in before.items():
            if h == "dir" or BACKUP_RE.search(rel):
                continue
            baks = [k for k in after if k.startswith(rel + ".v") and BACKUP_RE.search(k) and
                    k not in before]
            if rel in changed:
                check(baks, "%s: %s was migrated but has no backup" % (what, rel))
                check(after[baks[0]] == h, "%s: the backup %s does not hold the original bytes"
                      % (what, baks[0]))
            else:
                check(not baks, "%s: %s was not migrated but this run left its backup %s "
                      "(item 6)" % (what, rel, baks[0] if baks else ""))
    new = [k for k in after if k not in before and not (backup and BACKUP_RE.search(k))]
    check(not new, "%s: unexpected new files: %s" % (what, ", ".join(sorted(new)[:5])))
    return len(changed)


def remember_refs(root, before):
    """Reference migrated hashes for every file of BEFORE (keyed by original hash), from one
    `migrate --output-dir` run over a copy of the files not seen yet."""
    todo = {}
    for rel, h in before.items():
        p = os.path.join(root, rel)
        if h != "dir" and (h + "-ref") not in FIX._refs and h not in todo and \
                os.path.isfile(p) and not os.path.islink(p) and not TEMP_RE.match(
                    os.path.basename(rel)) and not BACKUP_RE.search(rel):
            todo[h] = p
    if not todo:
        return
    d = tempfile.mkdtemp(dir=FIX.root)
    names = {}
    for i, (h, p) in enumerate(sorted(todo.items())):
        name = "f%05d%s" % (i, os.path.splitext(p)[1])
        shutil.copyfile(p, os.path.join(d, name))
        names[h] = name
    out = d + ".out"
    os.makedirs(out)
    run(["migrate", "--jobs", "2", "--output-dir", out, d], timeout=300)
    for h, name in names.items():
        o = os.path.join(out, name)
        FIX._refs[h + "-ref"] = sha(o) if os.path.isfile(o) else None
    shutil.rmtree(d, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Means the machine may lack


def need_root():
    if os.geteuid() != 0:
        raise Skip("not root")


def need_tool(name):
    if not shutil.which(name):
        raise Skip("no %s on this machine" % name)


@contextlib.contextmanager
def tmpfs(s, name, options):
    need_root()
    mnt = s.path(name)
    os.makedirs(mnt, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", mnt],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise Skip("no tmpfs mount permitted: " + r.stdout.decode(errors="replace").strip())

    def umount():
        if subprocess.run(["umount", mnt], stderr=subprocess.DEVNULL).returncode != 0:
            subprocess.run(["umount", "-l", mnt], stderr=subprocess.DEVNULL)

    try:
        yield mnt
    finally:
        umount()


def remount(mnt, options):
    r = subprocess.run(["mount", "-o", "remount," + options, mnt], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise Skip("cannot remount the tmpfs with %s: %s" % (options, r.stdout.decode().strip()))


def fill_to(mnt, free_bytes):
    """Shrinks the tmpfs at MNT so that about FREE_BYTES stay free."""
    st = os.statvfs(mnt)
    used = (st.f_blocks - st.f_bfree) * st.f_frsize
    size = used + max(free_bytes, 0)
    size = (size + 4095) // 4096 * 4096
    remount(mnt, "size=%d" % size)


def setpriv_prefix():
    need_root()
    need_tool("setpriv")
    try:
        import pwd
        import grp
        pwd.getpwnam("nobody")
        group = "nogroup"
        try:
            grp.getgrnam(group)
        except KeyError:
            group = "nobody"
            grp.getgrnam(group)
    except (KeyError, ImportError):
        raise Skip("no user nobody / group nogroup")
    return ["setpriv", "--reuid=nobody", "--regid=" + group, "--clear-groups"]


def nobody_can_reach(s, prefix):
    os.chmod(s.root, 0o755)
    probe = write(s.path("probe"), b"x", 0o644)
    r = run_argv(prefix + ["cat", probe])
    os.unlink(probe)
    if r.rc != 0:
        raise Skip("the scratch directory %s is not reachable by nobody (%s)" %
                   (s.root, r.err.strip()))
    r = run_argv(prefix + [BINARY, "--version"])
    if r.rc != 0:
        raise Skip("nobody cannot run %s (%s)" % (BINARY, r.err.strip()))


def chattr(flag, path):
    need_root()
    need_tool("chattr")
    r = subprocess.run(["chattr", flag, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise Skip("chattr %s not supported here: %s" % (flag, r.stdout.decode().strip()))


# --------------------------------------------------------------------------------------------
# Cases. One function per case, named after the issue item it covers.

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def inplace_failure_checks(s, root, before, r, dests, what, backup):
    """A write that failed: exit 2 (item 17), the destination named, inputs intact, no temp, no
    backup left by this run (item 6), nothing new."""
    expect_rc(r, 2, what)
    for d in dests:
        check(d in r.text or os.path.basename(d) in r.text,
              "%s: the message does not name the destination %s: %s" % (what, d, r.describe()))
    check_no_temp(root, what)
    check_migrated_or_original(root, before, backup=backup, what=what)


@case
def item06_17_disk_full_big_in_place():
    """tmpfs size= small: migrate --in-place [--backup] of a ~3 MiB v1 save cannot write its
    temporary file: exit 2 naming the file, input intact, no temp, no backup left."""
    s = Scratch("diskfull-big")
    try:
        for backup in (False, True):
            with tmpfs(s, "mnt%d" % backup, "size=64m") as mnt:
                data = FIX.bytes("mid")
                f = write(os.path.join(mnt, "big.spark_save"), data)
                # --backup: room for the backup, not for the migrated file as well
                fill_to(mnt, (len(data) if backup else 0) + len(data) // 2)
                before = snapshot(mnt)
                r = run(["migrate", "--in-place"] + (["--backup"] if backup else []) + [f])
                inplace_failure_checks(s, mnt, before, r, [f],
                                       "--backup" if backup else "no backup", backup)
                check(snapshot(mnt) == before, "the tree changed")
    finally:
        s.close()


@case
def item06_17_disk_full_batch():
    """tmpfs size= small: a batch of small v1 saves and one big one, --in-place [--backup]: the
    small ones are migrated, the big one fails alone (exit 2, named, intact, no backup left)."""
    s = Scratch("diskfull-batch")
    try:
        for backup in (False, True):
            with tmpfs(s, "mnt%d" % backup, "size=64m") as mnt:
                FIX.batch(mnt, count=12, formats=False)
                big = write(os.path.join(mnt, "big", "big.spark_save"), FIX.bytes("mid"))
                small_total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in
                                  os.walk(mnt) for f in fs if f.startswith("slot"))
                n = len(FIX.bytes("mid"))
                fill_to(mnt, 3 * small_total + 64 * 4096 + (n if backup else 0) + n // 2)
                before = snapshot(mnt)
                remember_refs(mnt, before)
                # one job: the big file's temporary file must not starve a small one meanwhile
                r = run(["migrate", "--jobs", "1", "--in-place"] + (["--backup"] if backup else [])
                        + [mnt])
                what = "batch" + (" --backup" if backup else "")
                inplace_failure_checks(s, mnt, before, r, [big], what, backup)
                after = snapshot(mnt)
                rel = os.path.relpath(big, mnt)
                check(after[rel] == before[rel], "%s: the big save changed" % what)
                smalls = [k for k in before if k.endswith(".spark_save") and "slot" in k]
                not_done = [k for k in smalls if after[k] == before[k]]
                check(not not_done, "%s: small saves not migrated although there was room: %s "
                      "(%s)" % (what, ", ".join(not_done[:3]), r.describe()))
        # --output-dir onto a full tmpfs: the message names the destination, not the input
        with tmpfs(s, "out", "size=1m") as out:
            src = s.path("src")
            write(os.path.join(src, "big.spark_save"), FIX.bytes("mid"))
            write(os.path.join(src, "small.spark_save"), FIX.bytes("small"))
            before = snapshot(s.root)
            r = run(["migrate", "--output-dir", out, src])
            dest = os.path.join(out, "big.spark_save")
            expect_rc(r, 2, "--output-dir on a full tmpfs")
            check(dest in r.text, "--output-dir: the message does not name the destination %s: "
                  "%s" % (dest, r.describe()))
            check_no_temp(s.root, "--output-dir")
            check(not os.path.exists(dest), "--output-dir: a partial %s was left" % dest)
            check(os.path.exists(os.path.join(out, "small.spark_save")),
                  "--output-dir: the small save was not written")
            check_same(before, snapshot(s.root), "--output-dir", only=[
                k for k in before if k.startswith("src")])
    finally:
        s.close()


@case
def item06_no_inode_for_the_temp():
    """tmpfs nr_inodes= small: no inode for the temporary file (nor for the backup's)."""
    s = Scratch("inodes")
    try:
        for kind in ("small", "mid"):
            for backup in (False, True):
                with tmpfs(s, "mnt-%s-%d" % (kind, backup), "size=64m,nr_inodes=64") as mnt:
                    f = write(os.path.join(mnt, "a.spark_save"), FIX.bytes(kind))
                    st = os.statvfs(mnt)
                    used = st.f_files - st.f_ffree
                    # --backup: one inode more (tmpfs takes one per link(), so the backup's
                    # own write fails part-way; a backup that completed is covered by the
                    # immutable-file and disk-full cases)
                    remount(mnt, "nr_inodes=%d" % (used + (1 if backup else 0)))
                    before = snapshot(mnt)
                    r = run(["migrate", "--in-place"] + (["--backup"] if backup else []) + [f])
                    inplace_failure_checks(s, mnt, before, r, [f], "%s%s" % (
                        kind, " --backup" if backup else ""), backup)
                    check(snapshot(mnt) == before, "the tree changed")
    finally:
        s.close()


@case
def item06_immutable_file():
    """chattr +i on the save: the rename fails; nothing changed, the backup removed, exit 2."""
    s = Scratch("immutable")
    try:
        for kind in ("small", "mid"):
            for backup in (False, True):
                d = s.path("%s-%d" % (kind, backup))
                f = write(os.path.join(d, "a.spark_save"), FIX.bytes(kind))
                write(os.path.join(d, "b.spark_save"), FIX.bytes("small"))
                chattr("+i", f)
                s.on_cleanup(lambda f=f: subprocess.run(["chattr", "-i", f]))
                before = snapshot(d)
                remember_refs(d, before)
                r = run(["migrate", "--in-place"] + (["--backup"] if backup else []) + [d])
                what = kind + (" --backup" if backup else "")
                inplace_failure_checks(s, d, before, r, [f], what, backup)
                after = snapshot(d)
                check(after["a.spark_save"] == before["a.spark_save"], what + ": a changed")
                check(after["b.spark_save"] != before["b.spark_save"],
                      what + ": the other file was not migrated")
                subprocess.run(["chattr", "-i", f])
    finally:
        s.close()


@case
def item17_read_only_bind_mount():
    """A read-only bind mount: in-place, --backup and --output-dir onto it fail with exit 2,
    naming the path; nothing changes; verify still reads it."""
    need_root()
    s = Scratch("robind")
    try:
        src = s.path("src")
        write(os.path.join(src, "a.spark_save"), FIX.bytes("small"))
        write(os.path.join(src, "big.spark_save"), FIX.bytes("mid"))
        ro = s.path("ro")
        os.makedirs(ro)
        r = subprocess.run(["mount", "--bind", src, ro], stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Skip("no bind mount permitted: " + r.stderr.decode().strip())
        s.on_cleanup(lambda: subprocess.run(["umount", "-l", ro]))
        r = subprocess.run(["mount", "-o", "remount,ro,bind", ro], stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Skip("cannot remount read-only: " + r.stderr.decode().strip())
        before = snapshot(s.root)
        for args in (["--in-place"], ["--in-place", "--backup"]):
            for name in ("a.spark_save", "big.spark_save"):
                p = os.path.join(ro, name)
                r = run(["migrate"] + args + [p])
                what = " ".join(args) + " " + name
                expect_rc(r, 2, what)
                check(p in r.text, "%s: the message does not name %s: %s" % (what, p,
                                                                            r.describe()))
        r = run(["migrate", "--output-dir", os.path.join(ro, "out"), s.path("src")])
        expect_rc(r, 2, "--output-dir onto the read-only mount")
        r = run(["verify", ro])
        expect_rc(r, 0, "verify of the read-only mount")
        check_same(before, snapshot(s.root), "read-only mount")
        check_no_temp(s.root)
    finally:
        s.close()


def unreadable_tree(s):
    prefix = setpriv_prefix()
    nobody_can_reach(s, prefix)
    t = s.path("tree")
    write(os.path.join(t, "a.spark_save"), FIX.bytes("v4-hierarchy.spark_save"), 0o644)
    write(os.path.join(t, "locked", "old.spark_save"), FIX.bytes("small"), 0o644)
    write(os.path.join(t, "z", "b.spark_save"), FIX.bytes("v4-hierarchy.spark_save"), 0o644)
    for d in (t, os.path.join(t, "z")):
        os.chmod(d, 0o755)
    os.chmod(os.path.join(t, "locked"), 0o700)  # root's: nobody cannot list it
    return prefix, t


@case
def item07_unreadable_directory_verify():
    """verify as nobody over a tree with an unreadable subdirectory: a message naming it, exit 2,
    the other files still verified."""
    s = Scratch("walk-verify")
    try:
        prefix, t = unreadable_tree(s)
        before = snapshot(s.root)
        r = run(["verify", t], prefix=prefix)
        expect_rc(r, 2, "verify")
        lines = [l for l in r.text.splitlines() if MSG_WALK in l]
        check(lines, "no %r message: %s" % (MSG_WALK, r.describe()))
        check(any("locked" in l for l in lines), "the message does not name the directory: " +
              lines[0])
        for f in ("a.spark_save", os.path.join("z", "b.spark_save")):
            check(any(l.startswith("OK") and f in l for l in r.out.splitlines()),
                  "%s was not verified: %s" % (f, r.describe()))
        check_same(before, snapshot(s.root))
    finally:
        s.close()


@case
def item07_unreadable_directory_migrate_check():
    """migrate --check as nobody: the unread v1 save is not "0 need migration", exit 2."""
    s = Scratch("walk-check")
    try:
        prefix, t = unreadable_tree(s)
        before = snapshot(s.root)
        r = run(["migrate", "--check", t], prefix=prefix)
        expect_rc(r, 2, "migrate --check")
        check(any(MSG_WALK in l and "locked" in l for l in r.text.splitlines()),
              "no %r message naming the directory: %s" % (MSG_WALK, r.describe()))
        r = run(["migrate", "--in-place", t], prefix=prefix)
        expect_rc(r, 2, "migrate --in-place")
        check(MSG_WALK in r.text, "migrate --in-place: no %r message" % MSG_WALK)
        check_same(before, snapshot(s.root))
        check_no_temp(s.root)
    finally:
        s.close()


@case
def item07_too_many_open_files_deep_tree():
    """ulimit -n low over a deep tree: either every file is verified, or the walk error is a
    message with exit 2; never exit 0 with files left out."""
    s = Scratch("emfile")
    try:
        t = s.path("tree")
        d = t
        files = 0
        for depth in range(40):
            d = os.path.join(d, "l%d" % depth)
            write(os.path.join(d, "s%d.spark_save" % depth), FIX.bytes("v4-hierarchy.spark_save"))
            files += 1
        before = snapshot(s.root)
        for limit in (8, 12, 20):
            r = run_argv(limited("RLIMIT_NOFILE", limit) + [BINARY,
                          "verify", t])
            no_crash(r, "ulimit -n %d" % limit)
            if r.rc == 0:
                ok = sum(1 for l in r.out.splitlines() if l.startswith("OK"))
                check(ok == files,
                      "ulimit -n %d: exit 0 but not all %d files verified: %s" %
                      (limit, files, r.describe()))
            else:
                check(r.rc == 2 and r.err.strip(), "ulimit -n %d: %s" % (limit, r.describe()))
        check_same(before, snapshot(s.root))
    finally:
        s.close()


def probe_as_limit(s, tree):
    """About the smallest RLIMIT_AS (KiB, to 4 MiB) with which `migrate --jobs 2 --in-place` of a
    fresh copy of TREE completes (exit 0); None when even 1 GiB is not enough."""
    def works(kb):
        work = s.path("probe")
        copy_tree(tree, work)
        r = run_argv(limited("RLIMIT_AS", kb * 1024) + [BINARY, "migrate", "--jobs", "2",
                                                       "--in-place", work], timeout=60)
        shutil.rmtree(work)
        return r.rc == 0
    lo, hi = 4 * 1024, 1024 * 1024
    if not works(hi):
        return None
    while hi - lo > 4 * 1024:
        mid = (lo + hi) // 2
        if works(mid):
            hi = mid
        else:
            lo = mid
    return hi


@case
def item12_out_of_memory_jobs_2():
    """ulimit -v low with --jobs 2: no abort (exit 134), no "terminate called"; the files that
    can get memory are migrated, one that cannot fails alone."""
    s = Scratch("ulimit-v")
    try:
        t = s.path("tree")
        FIX.batch(t, count=8, formats=False)
        base = probe_as_limit(s, t)
        if base is None:
            raise Skip("the batch does not run even under a 1 GiB ulimit -v")
        log("the batch needs about %d MiB of address space" % (base // 1024))
        # a save whose mapping alone is beyond every limit tried below
        big_n = (base + 96 * 1024) * 1024
        write(os.path.join(t, "zz", "huge.spark_save"), make_v1(big_n // 560 + 1, seed=9))
        before = snapshot(t)
        remember_refs(t, {k: v for k, v in before.items() if "huge" not in k})
        for extra in (8 * 1024, 24 * 1024, 64 * 1024):
            work = s.path("w%d" % extra)
            copy_tree(t, work)
            b = snapshot(work)
            lim = base + extra
            r = run_argv(limited("RLIMIT_AS", lim * 1024) + [BINARY, "migrate",
                          "--jobs", "2", "--in-place", work], timeout=120)
            what = "ulimit -v %d KiB" % lim
            expect_rc(r, (0, 1, 2), what)
            check_no_temp(work, what)
            check_migrated_or_original(work, b, what=what)  # the huge one: failed or migrated
            a = snapshot(work)
            left = [k for k in b if "slot" in k and a[k] == b[k]]
            check(not left, "%s: small saves not migrated (the batch stopped at the first out of "
                  "memory?): %s" % (what, ", ".join(left[:3])))
            shutil.rmtree(work)
    finally:
        s.close()


@case
def item12_no_thread_ulimit_u():
    """ulimit -u 1 as nobody: no worker thread can start; the batch still completes (fewer
    workers), no "terminate called", exit 0."""
    s = Scratch("ulimit-u")
    try:
        prefix = setpriv_prefix()
        nobody_can_reach(s, prefix)
        t = s.path("tree")
        FIX.batch(t, count=24, formats=True)
        for dirpath, dirnames, filenames in os.walk(s.root):
            for n in dirnames + filenames:
                os.chown(os.path.join(dirpath, n), 65534, 65534)
        os.chown(s.root, 65534, 65534)
        before = snapshot(t)
        remember_refs(t, before)
        # The probe is the binary itself, through the same wrapper: where nobody cannot reach
        # the wrapper's interpreter or the binary (a checkout in a 0700 directory), skip.
        r = run_argv(prefix + limited("RLIMIT_NPROC", 1) + [BINARY, "--version"])
        if r.rc != 0:
            raise Skip("nobody cannot run the binary with ulimit -u set: " +
                       (r.err.strip().splitlines() or [""])[-1])
        for cmd in (["verify", "--jobs", "4", t], ["migrate", "--jobs", "4", "--check", t],
                    ["migrate", "--jobs", "4", "--in-place", t]):
            r = run_argv(prefix + limited("RLIMIT_NPROC", 1) + [BINARY] + cmd,
                         timeout=120)
            what = "ulimit -u 1 " + " ".join(cmd[:1] + cmd[3:-1])
            expect_rc(r, 1 if "--check" in cmd else 0, what)
        check_no_temp(t)
        n = check_migrated_or_original(t, before, what="ulimit -u")
        left = [k for k, v in snapshot(t).items() if k.endswith(".spark_save") and
                before.get(k) == v]
        check(not left, "not migrated with no thread to spare: " + ", ".join(left[:3]))
        check(n > 0, "nothing was migrated")
    finally:
        s.close()


def signal_tries(tree_builder, name, backup_every=2):
    """Shared by the signal cases: N tries of `migrate --jobs 4 --in-place` interrupted at a
    random moment by SIGINT/SIGTERM/SIGHUP in turn."""
    s = Scratch(name)
    try:
        pristine = s.path("pristine")
        tree_builder(pristine)
        before = snapshot(pristine)
        remember_refs(pristine, before)
        # how long a whole run takes (the longer of two), to spread the signals over it
        duration = 0
        for _ in range(2):
            work = s.path("calib")
            copy_tree(pristine, work)
            t0 = time.monotonic()
            r = run(["migrate", "--jobs", "4", "--in-place", work])
            duration = max(duration, time.monotonic() - t0)
            expect_rc(r, 0, "an uninterrupted run")
            shutil.rmtree(work)
        sigs = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
        late = interrupted = 0
        for i in range(ARGS.tries):
            sig = sigs[i % 3]
            backup = backup_every and i % backup_every == 1
            work = s.path("try%d" % i)
            copy_tree(pristine, work)
            p = Proc([BINARY, "migrate", "--jobs", "4", "--in-place"] +
                     (["--backup"] if backup else []) + [work])
            time.sleep(random.uniform(0, duration * 0.9))
            was_alive = _alive(p.pid)
            p.kill(sig)
            r = p.wait(120)
            what = "try %d (%s%s after %.0f ms)" % (i + 1, signal.Signals(sig).name,
                                                   " --backup" if backup else "",
                                                   (time.monotonic() - p.started) * 1000)
            no_crash(r, what)
            if r.rc == 0 or not was_alive:
                late += 1
                check(r.rc == 0, "%s: %s" % (what, r.describe()))
            else:
                interrupted += 1
                check(r.rc == 128 + sig, "%s: expected exit %d, got %s" % (
                    what, 128 + sig, r.describe()))
            check_no_temp(work, what)
            check_migrated_or_original(work, before, backup=backup, what=what)
            shutil.rmtree(work)
        log("%d interrupted, %d finished before the signal; a whole run takes %.0f ms" %
            (interrupted, late, duration * 1000))
        check(interrupted > 0, "no try was interrupted (a run takes %.0f ms)" % (duration * 1000))
        return interrupted, late
    finally:
        s.close()


@case
def item11_signals_batch():
    """SIGINT/TERM/HUP at random moments of `migrate --jobs 4 --in-place` over ~200 small v1
    saves: exit 130/143/129, no temporary file, every file original or fully migrated."""
    signal_tries(lambda d: FIX.batch(d, count=200), "sig-batch")


@case
def item11_signals_big():
    """The same over one ~20 MiB v1 save (migrated part by part)."""
    signal_tries(lambda d: write(os.path.join(d, "big.spark_save"), FIX.bytes("big")),
                 "sig-big")


def next_run_recognises_stale(work, stale, what):
    """After kill -9: the next runs recognise the stale temporary files STALE (relative to WORK):
    verify skips and counts them, info names them, migrate never copies or migrates them."""
    b = snapshot(work)
    r = run(["verify", work])
    no_crash(r, what + " verify")
    for t in stale:
        name = os.path.basename(t)
        check(not any(l.startswith("FAIL") and name in l for l in r.out.splitlines()),
              "%s: verify fails the stale temporary file %s: %s" % (what, t, r.describe()))
        check(not any(l.startswith("OK") and name in l for l in r.out.splitlines()),
              "%s: verify reads the stale temporary file %s as a save" % (what, t))
    check(r.rc == 0, "%s: verify of the tree after kill -9: %s" % (what, r.describe()))
    summary = r.out.strip().splitlines()[-1] if r.out.strip() else ""
    check("stale" in summary or "skipped" in summary,
          "%s: verify does not count the stale temporary file: %r" % (what, summary))
    r = run(["info", work])
    no_crash(r, what + " info DIR")
    check(MSG_STALE in r.text, "%s: info of the directory does not say %r" % (what, MSG_STALE))
    for t in stale[:2]:  # named on the command line, too
        r = run(["info", os.path.join(work, t)])
        no_crash(r, what + " info")
        check(MSG_STALE in r.text, "%s: info %s (named on the command line) does not say %r: %s"
              % (what, t, MSG_STALE, r.describe()))
    out = work + ".out"
    r = run(["migrate", "--output-dir", out, work])
    no_crash(r, what + " migrate --output-dir")
    copied = [f for d, _, fs in os.walk(out) for f in fs if ".sparksave-" in f]
    check(not copied, "%s: migrate --output-dir copied the stale temporary file: %s" %
          (what, copied[:3]))
    shutil.rmtree(out, ignore_errors=True)
    r = run(["migrate", "--in-place", work])  # no --backup: a kill -9 may have left one
    no_crash(r, what + " migrate --in-place")
    a = snapshot(work)
    for t in stale:
        check(a.get(t) in (b[t], None), "%s: migrate --in-place rewrote the stale temporary file "
              "%s" % (what, t))
        check(not any(k.startswith(t + ".v") for k in a),
              "%s: migrate --in-place backed up the stale temporary file %s" % (what, t))
    check_no_temp(work, what + " the next runs", allowed=stale)
    check(r.rc == 0, "%s: migrate --in-place of a tree with a stale temporary file: %s" %
          (what, r.describe()))


@case
def item14_kill_9_then_next_run():
    """kill -9 at random moments of in-place runs (batch and big save): every file original or
    fully migrated; the next runs recognise whatever temporary file is left."""
    s = Scratch("kill9")
    try:
        tries = max(4, ARGS.tries // 2)
        for kind in ("batch", "big"):
            pristine = s.path("pristine-" + kind)
            if kind == "batch":
                FIX.batch(pristine, count=60, formats=False)
            else:
                write(os.path.join(pristine, "big.spark_save"), FIX.bytes("big"))
            # a stale temporary file holding a whole valid v1 save: the worst case
            write(os.path.join(pristine, ".slot_x.spark_save.sparksave-Ab12Cd"),
                  FIX.bytes("small"))
            before = snapshot(pristine)
            remember_refs(pristine, before)
            work = s.path("calib")
            copy_tree(pristine, work)
            t0 = time.monotonic()
            run(["migrate", "--jobs", "4", "--in-place", work])
            duration = time.monotonic() - t0
            shutil.rmtree(work)
            real_temps = 0
            for i in range(tries):
                work = s.path("%s-try%d" % (kind, i))
                copy_tree(pristine, work)
                p = Proc([BINARY, "migrate", "--jobs", "4", "--in-place"] +
                         (["--backup"] if i % 2 else []) + [work])
                time.sleep(random.uniform(0, duration))
                p.kill(signal.SIGKILL)
                r = p.wait(60)
                what = "%s try %d" % (kind, i + 1)
                check(r.signal in (signal.SIGKILL, None), "%s: %s" % (what, r.describe()))
                stale = temps(work)
                real_temps += len(stale) - 1
                orig = {k: v for k, v in before.items() if not TEMP_RE.match(os.path.basename(k))}
                cand = [k for k in orig if not BACKUP_RE.search(k)]
                # a backup may be left by a kill -9 (it is complete: written atomically)
                after = snapshot(work)
                for k in after:
                    if BACKUP_RE.search(k) and k not in before:
                        check(after[k] == before.get(BACKUP_RE.sub("", k)),
                              "%s: the backup %s is not the original" % (what, k))
                for k in cand:
                    if before[k] == "dir":
                        continue
                    check(k in after, "%s: %s disappeared" % (what, k))
                changed = [k for k in cand if before[k] != "dir" and after[k] != before[k]]
                objs = verify_json([os.path.join(work, k) for k in changed])
                for k in changed:
                    check(fully_migrated(objs.get(os.path.join(work, k))) or
                          after[k] == FIX._refs.get(before[k] + "-ref"),
                          "%s: %s is torn (neither original nor migrated)" % (what, k))
                next_run_recognises_stale(work, stale, what)
                shutil.rmtree(work)
                shutil.rmtree(work + ".out", ignore_errors=True)
            log("%s: %d real temporary files left by kill -9" % (kind, real_temps))
    finally:
        s.close()


def concurrent_tree(dst, count):
    """COUNT small v1 saves under DST in 8 folders (distinct bytes, so a backup names its file)."""
    for i in range(count):
        write(os.path.join(dst, "d%d" % (i % 8), "s%04d.spark_save" % i),
              make_v1(1 + i % 5, seed=5000 + i, distinct=8))


def summary_counts(r):
    """(migrated, up to date, failed) from a migrate run's last line."""
    m = re.search(r"(\d+) migrated, (\d+) up to date, (\d+) failed", r.out)
    check(m, "no summary line: %s" % r.describe())
    return tuple(int(x) for x in m.groups())


def check_concurrent_result(work, out, before, backup, what):
    """After runs over WORK (in place when OUT is None, else into OUT): every file is the
    reference migration, with --backup every original in exactly one backup, no stray file."""
    check_no_temp(work, what)
    after = snapshot(out or work)
    saves = [k for k, h in before.items() if h != "dir"]
    for k in saves:
        check(after.get(k) == FIX._refs.get(before[k] + "-ref"),
              "%s: %s is not the migrated file" % (what, k))
    baks = [k for k in after if BACKUP_RE.search(k)]
    if backup:
        check(len(baks) == len(saves), "%s: %d backups for %d files" % (what, len(baks),
                                                                       len(saves)))
        for k in saves:
            check(after.get(k + ".v1.bak") == before[k],
                  "%s: the original of %s is in no backup" % (what, k))
    else:
        check(not baks, "%s: backups without --backup: %s" % (what, baks[:3]))
    extra = [k for k in after if k not in before and not BACKUP_RE.search(k)]
    check(not extra, "%s: unexpected files: %s" % (what, extra[:5]))
    if out:
        check(snapshot(work) == before, "%s: an input changed" % what)


@case
def item20_concurrent_runs():
    """Two and three `migrate --jobs 2` runs at once over one tree of 2,000 v1 saves, in place
    (with and without --backup) and into one --output-dir, 0-0.2 s apart: every run exits 0,
    every file migrated exactly once (the runs' counts add up to 2,000), every original in exactly
    one .v1.bak, no temporary file left and none counted as stale. Try i runs combination i % 6
    (3 modes x 2 and 3 runs): --tries 120 runs each combination 20 times."""
    s = Scratch("concurrent-runs")
    try:
        pristine = s.path("pristine")
        concurrent_tree(pristine, 2000)
        before = snapshot(pristine)
        remember_refs(pristine, before)
        modes = [("in-place --backup", ["--in-place", "--backup"]), ("in-place", ["--in-place"]),
                 ("output-dir", None)]
        for i in range(ARGS.tries):
            for name, args in [modes[i % 6 // 2]]:
                n = 2 + i % 2
                work = s.path("w")
                copy_tree(pristine, work)
                out = s.path("out") if args is None else None
                argv = args if args is not None else ["--output-dir", out]
                procs = []
                for _ in range(n):
                    procs.append(Proc([BINARY, "migrate", "--jobs", "2"] + argv + [work]))
                    time.sleep(random.uniform(0, 0.2))
                what = "try %d, %d runs %s" % (i + 1, n, name)
                total = 0
                for p in procs:
                    r = p.wait(300)
                    expect_rc(r, 0, what)
                    check("stale" not in r.out, "%s: another run's temporary file counted as "
                          "stale: %s" % (what, r.out.strip().splitlines()[-1]))
                    migrated, up, failed = summary_counts(r)
                    check(failed == 0 and migrated + up == 2000, "%s: %s" % (what, r.describe()))
                    total += migrated
                check(total == 2000, "%s: %d files migrated in all (2000 expected: each once)"
                      % (what, total))
                check_concurrent_result(work, out, before, "--backup" in argv, what)
                shutil.rmtree(work)
                if out:
                    shutil.rmtree(out)
    finally:
        s.close()


@case
def item20_concurrent_runs_one_killed():
    """Two runs at once as above, one killed with kill -9 half-way: the survivor exits 0, a next
    run exits 0, and the tree ends fully migrated with every original in exactly one backup;
    only the dead run's temporary file may be left, and the next run counts it as stale. Tries
    alternate in place with --backup and --output-dir."""
    s = Scratch("concurrent-kill")
    try:
        pristine = s.path("pristine")
        concurrent_tree(pristine, 2000)
        before = snapshot(pristine)
        remember_refs(pristine, before)
        work = s.path("calib")
        copy_tree(pristine, work)
        t0 = time.monotonic()
        expect_rc(run(["migrate", "--jobs", "2", "--in-place", work], timeout=300), 0, "calib")
        duration = time.monotonic() - t0
        shutil.rmtree(work)
        kinds = (("in-place --backup", ["--in-place", "--backup"]), ("output-dir", None))
        for i in range(max(4, ARGS.tries // 2)):
            for name, args in [kinds[i % 2]]:
                work = s.path("w")
                copy_tree(pristine, work)
                out = s.path("out") if args is None else None
                argv = args if args is not None else ["--output-dir", out]
                victim = Proc([BINARY, "migrate", "--jobs", "2"] + argv + [work])
                time.sleep(random.uniform(0, 0.2))
                survivor = Proc([BINARY, "migrate", "--jobs", "2"] + argv + [work])
                time.sleep(random.uniform(0.2, 0.8) * duration)
                victim.kill(signal.SIGKILL)
                what = "try %d %s" % (i + 1, name)
                victim.wait(300)
                expect_rc(survivor.wait(300), 0, what + ": the survivor")
                r = run(["migrate", "--jobs", "2"] + argv + [work], timeout=300)
                expect_rc(r, 0, what + ": the next run")
                left = temps(out or work)
                if left:  # the walk of the tree that holds them counts them
                    v = run(["verify", out or work], timeout=300)
                    check("stale temporary" in v.out, "%s: the dead run's temporary files %s "
                          "are not counted as stale: %s" % (what, left[:2], v.describe()))
                for t in left:
                    os.unlink(os.path.join(out or work, t))
                check_concurrent_result(work, out, before, "--backup" in argv, what)
                shutil.rmtree(work)
                if out:
                    shutil.rmtree(out)
    finally:
        s.close()


@case
def item10_truncated_while_read():
    """A ~20 MiB save truncated while verify / migrate / dump read it (mapped): exit 2 with "the
    file changed while it was read" (or a finding when the cut came first), never SIGBUS (135),
    no temporary file."""
    s = Scratch("truncate")
    try:
        data = FIX.bytes("big")
        tries = max(3, ARGS.tries // 4)
        hits = {}
        for cmd in (["verify"], ["migrate", "--output-dir", "OUT"], ["migrate", "--in-place"],
                    ["dump"]):
            name = " ".join(c for c in cmd if c != "OUT")
            hits[name] = 0
            d = s.path("calib")
            f = write(os.path.join(d, "big.spark_save"), data)
            out = s.path("out")
            argv = [BINARY] + [out if c == "OUT" else c for c in cmd] + [f]
            t0 = time.monotonic()
            p = Proc(argv)
            p.wait(120)
            duration = time.monotonic() - t0
            shutil.rmtree(d)
            shutil.rmtree(out, ignore_errors=True)
            for i in range(tries):
                f = write(os.path.join(d, "big.spark_save"), data)
                os.makedirs(out, exist_ok=True)
                p = Proc(argv)
                time.sleep(random.uniform(0.05, 0.9) * duration)
                alive = _alive(p.pid)
                os.truncate(f, 1 << 20 if i % 2 else 4096)
                r = p.wait(120)
                what = "%s try %d (cut %s)" % (name, i + 1, "while running" if alive else "late")
                no_crash(r, what)
                check(r.rc in (0, 1, 2), "%s: %s" % (what, r.describe()))
                if r.rc == 2:
                    check(MSG_CHANGED_READ in r.text or MSG_CHANGED_MIGRATING in r.text,
                          "%s: exit 2 without %r: %s" % (what, MSG_CHANGED_READ, r.describe()))
                    hits[name] += 1
                check_no_temp(d, what)
                check_no_temp(out, what)
                for dp, _, fs in os.walk(out):
                    for fn in fs:
                        obj = verify_json([os.path.join(dp, fn)]).get(os.path.join(dp, fn))
                        check(fully_migrated(obj), "%s: a bad output %s was left" % (what, fn))
                shutil.rmtree(d)
                shutil.rmtree(out, ignore_errors=True)
        log("changed-while-read detected: %s" % hits)
    finally:
        s.close()


def wait_for_open(pid, path, timeout=20):
    """Waits until process PID holds PATH open; False when it ended or never did."""
    fd_dir = "/proc/%d/fd" % pid
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            return False
        for fd in fds:
            with contextlib.suppress(OSError):
                if os.readlink(os.path.join(fd_dir, fd)) == path:
                    return True
    return False


def big_dump(s):
    """The JSON of `dump --json` of the ~10 MiB v1 save (~30 MB, mapped if pack mapped it) and the
    bytes `pack` builds from it."""
    save = write(s.path("src", "big.spark_save"), FIX.bytes("big"))
    r = run(["dump", "--json", save])
    expect_rc(r, 0, "dump --json of the big save")
    ref = s.path("src", "ref.spark_save")
    json_path = write(s.path("src", "big.json"), r.outb)
    expect_rc(run(["pack", "-o", ref, json_path]), 0, "pack of the whole dump")
    return r.outb, read(ref)


@case
def item20_pack_truncated_while_read():
    """`pack -o OUT IN.json` while another program truncates IN.json (~30 MB, to 1 MiB or 4 KiB at
    a random moment): never SIGSEGV/SIGBUS; exit 2 with "the file changed while it was read" (or
    1 "not valid JSON" when the cut came before pack opened it, or 0 with exactly the bytes of
    the whole dump when it came after the read); OUT untouched on failure (absent, or an older
    OUT kept byte for byte); no temporary file. --tries N tries (the issue's bar: 100)."""
    s = Scratch("pack-truncate")
    try:
        dump, packed = big_dump(s)
        d = s.path("work")
        src = write(os.path.join(d, "in.json"), dump)
        out = os.path.join(d, "out.spark_save")
        t0 = time.monotonic()
        expect_rc(run(["pack", "-o", out, src]), 0, "calibration")
        duration = time.monotonic() - t0
        counts = {}
        for i in range(ARGS.tries):
            shutil.rmtree(d)
            write(os.path.join(d, "in.json"), dump)
            old = b"an older OUT, kept\n" if i % 3 == 2 else None
            if old is not None:
                write(out, old)
            p = Proc([BINARY, "pack", "-o", out, src])
            # Three cuts in four as soon as pack holds IN.json open (its read, a few ms), the
            # fourth at any moment (a mapped JSON was read all along).
            if i % 4 < 3 and wait_for_open(p.pid, src):
                time.sleep(random.uniform(0.0, 0.004))
            else:
                time.sleep(random.uniform(0.0, 1.2) * duration)
            os.truncate(src, 1 << 20 if i % 2 else 4096)
            r = p.wait(120)
            what = "try %d" % (i + 1)
            no_crash(r, what)
            check(r.rc in (0, 1, 2), "%s: %s" % (what, r.describe()))
            counts[r.rc] = counts.get(r.rc, 0) + 1
            if r.rc == 2:
                check(MSG_CHANGED_READ in r.err, "%s: exit 2 without %r: %s" %
                      (what, MSG_CHANGED_READ, r.describe()))
            if r.rc == 1:
                check("not valid JSON" in r.err, "%s: exit 1 but not a JSON error: %s" %
                      (what, r.describe()))
            if r.rc == 0:
                check(read(out) == packed, "%s: exit 0 but OUT is not the pack of the whole dump"
                      % what)
            elif old is not None:
                check(read(out) == old, "%s: the older OUT changed: %s" % (what, r.describe()))
            else:
                check(not os.path.exists(out), "%s: an OUT was left: %s" % (what, r.describe()))
            check_no_temp(d, what)
        log("pack exit statuses over %d tries: %s" % (ARGS.tries, counts))
    finally:
        s.close()


@case
def item20_pack_disk_full():
    """`pack -o OUT` onto a full tmpfs: exit 2 naming OUT (a write failure), not 1 naming the
    JSON; no temporary file, OUT absent or an older OUT untouched. A ~30 MB dump of a big save
    (written as it is built) with the JSON outside and on the full tmpfs, and a text archive
    dump (built in memory, then written)."""
    s = Scratch("pack-diskfull")
    try:
        dump, packed = big_dump(s)
        outside = s.path("src", "big.json")
        ta = s.path("src", "ta.json")
        r = run(["dump", "--json", os.path.join(TESTDATA, "text_archive", "valid",
                                                  "every-type.sz")])
        expect_rc(r, 0, "dump --json of a text archive")
        write(ta, r.outb)
        for json_inside in (False, True):
            for old in (None, b"an older OUT, kept\n"):
                with tmpfs(s, "mnt", "size=64m") as mnt:
                    src = write(os.path.join(mnt, "in.json"), dump) if json_inside else outside
                    out = os.path.join(mnt, "out.spark_save")
                    if old is not None:
                        write(out, old)
                    fill_to(mnt, len(packed) // 2)
                    before = snapshot(mnt)
                    r = run(["pack", "-o", out, src])
                    what = "pack, JSON %s the full tmpfs%s" % (
                        "on" if json_inside else "off", ", an older OUT" if old else "")
                    expect_rc(r, 2, what)
                    check(out + ":" in r.err or "cannot write " + out in r.err,
                          "%s: the message does not name OUT: %s" % (what, r.describe()))
                    check(src + ":" not in r.err, "%s: the message names the JSON: %s" %
                          (what, r.describe()))
                    check_no_temp(mnt, what)
                    check(snapshot(mnt) == before, "%s: the tmpfs changed" % what)
        with tmpfs(s, "mnt2", "size=1m") as mnt:
            write(os.path.join(mnt, "fill"), b"\0" * ((1 << 20) - 4096))
            fill_to(mnt, 0)
            out = os.path.join(mnt, "out.sz")
            before = snapshot(mnt)
            r = run(["pack", "-o", out, ta])
            expect_rc(r, 2, "pack of a text archive onto a full tmpfs")
            check(out in r.err and ta + ":" not in r.err,
                  "text archive: the message does not name OUT alone: %s" % r.describe())
            check_no_temp(mnt, "text archive")
            check(snapshot(mnt) == before, "text archive: the tmpfs changed")
    finally:
        s.close()


@case
def item24_salvage_disk_full():
    """`salvage DAMAGED -o OUT [--report FILE]` onto a full tmpfs (issue 24): exit 2 naming the
    file that could not be written; DAMAGED unchanged, no temporary file, OUT and the report
    absent (or an older OUT untouched), whichever of the two could not be written. A ~3 MiB v1
    save cut short, DAMAGED outside the tmpfs and on it."""
    s = Scratch("salvage-diskfull")
    try:
        data = make_v1(20000, seed=24)
        damaged = data[:len(data) - len(data) // 3]
        outside = write(s.path("src", "cut.spark_save"), damaged)
        for damaged_inside in (False, True):
            for old in (None, b"an older OUT, kept\n"):
                for with_report in (False, True):
                    with tmpfs(s, "mnt", "size=64m") as mnt:
                        src = (write(os.path.join(mnt, "cut.spark_save"), damaged)
                               if damaged_inside else outside)
                        out = os.path.join(mnt, "out.spark_save")
                        report = os.path.join(mnt, "report.json")
                        if old is not None:
                            write(out, old)
                        # Room for the report (about 20 bytes an entity's region) but not the
                        # save, or for neither.
                        fill_to(mnt, len(damaged) // 2)
                        before = snapshot(mnt)
                        args = ["salvage", src, "-o", out] + (["--force"] if old else [])
                        if with_report:
                            args += ["--report", report]
                        r = run(args)
                        what = "salvage, DAMAGED %s the full tmpfs%s%s" % (
                            "on" if damaged_inside else "off", ", an older OUT" if old else "",
                            ", --report" if with_report else "")
                        expect_rc(r, 2, what)
                        check("cannot write " + out in r.err or "cannot write " + report in r.err,
                              "%s: the message names neither output: %s" % (what, r.describe()))
                        check_no_temp(mnt, what)
                        check(snapshot(mnt) == before, "%s: the tmpfs changed" % what)
                        check(read(outside) == damaged, "%s: DAMAGED changed" % what)
    finally:
        s.close()


@case
def item24_salvage_disk_full_every_format():
    """The same for the other formats salvage reads (a tess world, a GMSV save, a spark-kv file,
    a text archive, each cut short): with no room left on the tmpfs, `salvage` exits 2 naming
    the file it could not write, and the tmpfs (DAMAGED on it, an older OUT) is as it was, no
    temporary file behind. Each cut file salvages (exit 1) where there is room."""
    s = Scratch("salvage-diskfull-formats")
    try:
        for name in ("tess-canonical-v1.tessw", "v1-binary.gmsv", "mmo-v2.kv", "every-type.sz"):
            data = FIX.bytes(name)
            damaged = data[:len(data) - 7]  # its last record cut
            roomy = s.path("roomy", name)
            write(roomy, damaged)
            r = run(["salvage", roomy, "-o", roomy + ".out"])
            expect_rc(r, 1, "salvage of %s cut short, with room" % name)
            for old in (None, b"an older OUT, kept\n"):
                for with_report in (False, True):
                    with tmpfs(s, "mnt", "size=4m") as mnt:
                        src = write(os.path.join(mnt, name), damaged)
                        out = os.path.join(mnt, "out-" + name)
                        report = os.path.join(mnt, "report.json")
                        if old is not None:
                            write(out, old)
                        fill_to(mnt, 0)
                        before = snapshot(mnt)
                        args = ["salvage", src, "-o", out] + (["--force"] if old else [])
                        if with_report:
                            args += ["--report", report]
                        r = run(args)
                        what = "salvage of %s, no room%s%s" % (
                            name, ", an older OUT" if old else "", ", --report" if with_report else "")
                        expect_rc(r, 2, what)
                        check("cannot write " + out in r.err or "cannot write " + report in r.err,
                              "%s: the message names neither output: %s" % (what, r.describe()))
                        check_no_temp(mnt, what)
                        check(snapshot(mnt) == before, "%s: the tmpfs changed" % what)
    finally:
        s.close()


@case
def item03_file_changed_during_in_place():
    """Another process appends to or replaces (write + rename, as the engine saves) a ~20 MiB save
    while `migrate --in-place` works on it: the other writer's bytes are never lost; a detected
    change fails that file with "changed while it was being migrated"."""
    s = Scratch("concurrent")
    try:
        data = FIX.bytes("big")
        mark = b"\x00OTHER-WRITER-%d\x00" % os.getpid()
        replacement = FIX.bytes("v4-hierarchy.spark_save")
        d = s.path("calib")
        f = write(os.path.join(d, "big.spark_save"), data)
        t0 = time.monotonic()
        run(["migrate", "--in-place", f])
        duration = time.monotonic() - t0
        shutil.rmtree(d)
        appended_ref = None
        detected = lost = 0
        tries = max(4, ARGS.tries // 2)
        for i in range(tries):
            f = write(os.path.join(d, "big.spark_save"), data)
            p = Proc([BINARY, "migrate", "--in-place", f])
            time.sleep(random.uniform(0.1, 0.98) * duration)
            append = i % 2 == 0
            if append:
                with open(f, "ab") as h:
                    h.write(mark)
            else:
                tmp = os.path.join(d, "big.spark_save.tmp")
                write(tmp, replacement)
                os.rename(tmp, f)
            r = p.wait(120)
            what = "try %d (%s)" % (i + 1, "append" if append else "replace")
            no_crash(r, what)
            final = read(f)
            if append:
                ok = final.endswith(mark)
                if not ok:
                    if appended_ref is None:
                        appended_ref = FIX.reference(data + mark) or ""
                    ok = hashlib.sha256(final).hexdigest() == appended_ref
            else:
                ok = final == replacement
            if not ok:
                lost += 1
            check(ok, "%s: the other writer's bytes were lost (%s)" % (what, r.describe()))
            if r.rc != 0:
                check(MSG_CHANGED_MIGRATING in r.text or MSG_CHANGED_READ in r.text,
                      "%s: failed without %r: %s" % (what, MSG_CHANGED_MIGRATING, r.describe()))
                detected += 1
            check_no_temp(d, what)
            left = [n for n in os.listdir(d) if n != "big.spark_save"]
            check(not left, "%s: stray files %s" % (what, left))
            shutil.rmtree(d)
        log("%d of %d tries detected the change" % (detected, tries))
    finally:
        s.close()


@case
def item04_special_destinations():
    """pack -o / migrate -o / --output-dir onto a FIFO or a device node: refused with exit 2 ("is
    not a regular file"), the node unchanged; `-o -` writes to standard output."""
    s = Scratch("special")
    try:
        need_root()
        v4 = write(s.path("in", "v4.spark_save"), FIX.bytes("v4-hierarchy.spark_save"))
        v1 = write(s.path("in", "v1.spark_save"), FIX.bytes("small"))
        js = s.path("in", "v4.json")
        r = run(["dump", "--json", v4])
        expect_rc(r, 0, "dump --json")
        write(js, r.outb)
        nodes = s.path("nodes")
        os.makedirs(nodes)
        fifo = os.path.join(nodes, "fifo")
        os.mkfifo(fifo)
        null = os.path.join(nodes, "null")
        try:
            os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except OSError as e:
            raise Skip("mknod not permitted: " + e.strerror)
        outdir = s.path("outdir")
        os.makedirs(outdir)
        os.mkfifo(os.path.join(outdir, "v1.spark_save"))
        os.mknod(os.path.join(outdir, "v4.spark_save"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        before = snapshot(s.root)
        for node in (fifo, null):
            for args in (["pack", "-o", node, js], ["migrate", "-o", node, v1],
                         ["migrate", "-o", node, v4]):
                r = run(args, timeout=5)
                what = " ".join(args[:2]) + " " + os.path.basename(node) + " " + \
                    os.path.basename(args[-1])
                expect_rc(r, 2, what)
                check(MSG_NOT_REGULAR in r.text, "%s: no %r: %s" % (what, MSG_NOT_REGULAR,
                                                                    r.describe()))
        r = run(["migrate", "--output-dir", outdir, s.path("in")], timeout=5)
        expect_rc(r, 2, "--output-dir over a FIFO and a device node")
        check(MSG_NOT_REGULAR in r.text, "--output-dir: no %r: %s" % (MSG_NOT_REGULAR,
                                                                      r.describe()))
        check_same(before, snapshot(s.root), "special nodes")
        check_no_temp(s.root)
        # -o - is standard output
        cwd = s.path("cwd")
        os.makedirs(cwd)
        r = run(["pack", "-o", "-", js], cwd=cwd)
        expect_rc(r, 0, "pack -o -")
        check(r.outb == read(v4), "pack -o - did not write the save to standard output")
        r = run(["migrate", "-o", "-", v1], cwd=cwd)
        expect_rc(r, 0, "migrate -o -")
        check(hashlib.sha256(r.outb).hexdigest() == FIX.reference(read(v1)),
              "migrate -o - did not write the migrated save to standard output")
        check(not os.listdir(cwd), "-o - wrote files: %s" % os.listdir(cwd))
    finally:
        s.close()


def read_first_line_then_close(argv):
    p = Proc(argv, stdout_pipe=True)
    first = p.p.stdout.readline()
    p.p.stdout.close()
    p.p.stdout = None
    return first, p.wait(120)


@case
def item08_closed_stdout():
    """`verify many | head -1` and `migrate --in-place big-tree | head -1`: quiet, no temporary
    file, non-zero (1 when a finding was known, else 141)."""
    s = Scratch("closed-stdout")
    try:
        many = s.path("many")
        for i in range(800):
            write(os.path.join(many, "s%04d.spark_save" % i), make_v1(1, seed=i))
        bad = write(s.path("bad.spark_save"), b"SPRK\x09\x00\x00\x00garbage")
        before = snapshot(s.root)
        first, r = read_first_line_then_close([BINARY, "verify", many])
        no_crash(r, "verify many | head -1")
        check(r.rc == 141, "verify many | head -1 (no finding): expected 141, got %s" %
              r.describe())
        check(not r.err.strip(), "verify | head -1 is not quiet: " + r.err.strip()[:200])
        first, r = read_first_line_then_close([BINARY, "verify", bad, many])
        no_crash(r, "verify bad many | head -1")
        check(first.startswith(b"FAIL"), "the first line is not the failure: %r" % first)
        check(r.rc == 1, "verify bad many | head -1 (a finding known): expected 1, got %s" %
              r.describe())
        check_same(before, snapshot(s.root), "verify")
        for jobs in ("1", "4"):
            work = s.path("work" + jobs)
            copy_tree(many, work)
            b = snapshot(work)
            first, r = read_first_line_then_close([BINARY, "migrate", "--jobs", jobs,
                                                   "--in-place", work])
            what = "migrate --jobs %s --in-place tree | head -1" % jobs
            no_crash(r, what)
            check_no_temp(work, what)
            n = check_migrated_or_original(work, b, what=what)
            if not (r.rc == 0 and n == len(b)):
                check(r.rc == 141, "%s: expected 141 (%d of %d migrated), got %s" %
                      (what, n, len(b), r.describe()))
            check(not r.err.strip(), "%s is not quiet: %s" % (what, r.err.strip()[:200]))
            log("%s: %d of %d migrated, exit %d" % (what, n, len(b), r.rc))
    finally:
        s.close()


def pipe_variants(s, f, hung):
    """(cmd, how, Res) of `verify --json` / `info --json` / `dump` over F read five ways; a way
    that hung once (in HUNG) is not tried again."""
    have_bash = shutil.which("bash")
    for cmd in (["verify", "--json"], ["info", "--json"], ["dump"]):
        yield cmd, "file", run(cmd + [f])
        cat = subprocess.Popen(["cat", f], stdout=subprocess.PIPE)
        yield cmd, "/dev/stdin on a pipe", run(cmd + ["/dev/stdin"], stdin=cat.stdout)
        cat.stdout.close()
        cat.wait()
        cat = subprocess.Popen(["cat", f], stdout=subprocess.PIPE)
        yield cmd, "- on a pipe", run(cmd + ["-"], stdin=cat.stdout)
        cat.stdout.close()
        cat.wait()
        if (cmd[0], "a FIFO") in hung:
            continue
        fifo = s.path("fifo")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(fifo)
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", 'cat "$0" > "$1"', f, fifo])
        yield cmd, "a FIFO", run(cmd + [fifo], timeout=3)
        writer.kill()
        writer.wait()
        if have_bash and (cmd[0], "<(cat file)") not in hung:
            yield cmd, "<(cat file)", run_argv(
                ["bash", "-c", 'F="$1"; shift 1; exec "$0" "$@" <(cat "$F")', BINARY, f] + cmd,
                timeout=3)


def normalise(cmd, r):
    if cmd[0] == "dump":
        return (r.rc, r.out)
    objs = []
    for line in r.out.splitlines():
        with contextlib.suppress(ValueError):
            o = json.loads(line)
            o.pop("path", None)
            objs.append(o)
    return (r.rc, json.dumps(objs, sort_keys=True))


@case
def item09_pipes_read_once():
    """verify/info/dump of a save through a pipe, /dev/stdin, `-`, a FIFO and <(cat save): the same
    result as the file itself; diff <(cat f) f is identical."""
    s = Scratch("pipes")
    try:
        names = ["v1-screenshotless.spark_save", "v4-hierarchy.spark_save",
                 "tess-canonical-v1.tessw", "mmo-legacy.kv", "mmo-v2.kv", "v1-binary.gmsv",
                 "every-type.sz"]
        files = [write(s.path("in", n), FIX.bytes(n)) for n in names]
        files.append(write(s.path("in", "mid.spark_save"), make_v1(60, seed=5)))  # > 4 KiB
        before = snapshot(s.path("in"))
        problems = []
        hung = set()
        for f in files:
            expected = {}
            for cmd, how, r in pipe_variants(s, f, hung):
                if r.timed_out:
                    hung.add((cmd[0], how))
                try:
                    no_crash(r, "%s %s via %s" % (cmd[0], os.path.basename(f), how))
                except Fail as e:
                    problems.append(str(e)[:200])
                    continue
                key = cmd[0]
                if how == "file":
                    expected[key] = normalise(cmd, r)
                    continue
                if normalise(cmd, r) != expected[key]:
                    problems.append("%s %s via %s: %s" % (cmd[0], os.path.basename(f), how,
                                                          r.describe()[:200]))
            if shutil.which("bash"):
                r = run_argv(["bash", "-c", 'exec "$0" diff <(cat "$1") "$1"', BINARY, f],
                             timeout=3)
                if r.rc != 0:
                    problems.append("diff <(cat %s) %s: %s" % (os.path.basename(f),
                                                               os.path.basename(f),
                                                               r.describe()[:200]))
        check(not problems, "%d differ from the file itself; %s" % (len(problems),
                                                                   " || ".join(problems[:4])))
        check_same(before, snapshot(s.path("in")))
    finally:
        s.close()


def mem_available_kb():
    with contextlib.suppress(OSError, ValueError):
        for line in open("/proc/meminfo"):
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return None


@case
def item13_unbounded_reads():
    """`yes | verify --input-format spark_save -` and `pack -o x /dev/zero`: a clear error at the
    format's size limit; peak memory near the limit, not unbounded."""
    s = Scratch("unbounded")
    try:
        avail = mem_available_kb()
        if avail is not None and avail < 3 * 1024 * 1024:
            raise Skip("less than 3 GiB of memory available")
        if not os.path.exists("/dev/zero"):
            raise Skip("no /dev/zero")
        limit_kb = 512 * 1024  # formats/README.md §1.4: a .spark_save is at most 512 MiB
        problems = []
        yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
        r = run(["verify", "--input-format", "spark_save", "-"], stdin=yes.stdout, timeout=120)
        yes.stdout.close()
        yes.kill()
        yes.wait()
        what = "yes | verify --input-format spark_save -"
        try:
            expect_rc(r, (1, 2), what)
            check(r.err.strip() or "FAIL" in r.out, "%s: no message" % what)
            log("%s: peak %d MiB, exit %d: %s" % (what, r.maxrss_kb // 1024, r.rc,
                                                  r.text.strip()[:120]))
            check(r.maxrss_kb < limit_kb + limit_kb // 4 + 64 * 1024,
                  "%s: peak memory %d MiB, the limit is %d MiB" % (what, r.maxrss_kb // 1024,
                                                                 limit_kb // 1024))
        except Fail as e:
            problems.append(str(e))
        # pack: under a 3 GiB address-space guard so a doubling buffer cannot take the machine
        x = s.path("x")
        r = run_argv(limited("RLIMIT_AS", 3 << 30) + [BINARY,
                      "pack", "-o", x, "/dev/zero"], timeout=120)
        what = "pack -o x /dev/zero"
        try:
            expect_rc(r, (1, 2), what)
            check(r.err.strip(), "%s: no message" % what)
            log("%s: peak %d MiB: %s" % (what, r.maxrss_kb // 1024, r.err.strip()[:120]))
            check(not os.path.exists(x), "%s: wrote %s" % (what, x))
            check_no_temp(s.root, what)
            check("out of memory" not in r.err.lower() and "bad_alloc" not in r.err,
                  "%s: ran out of memory (under a 3 GiB guard) instead of stopping at a limit: %s"
                  % (what, r.describe()))
            check(r.maxrss_kb < 1024 * 1024, "%s: peak memory %d MiB" % (what,
                                                                       r.maxrss_kb // 1024))
        except Fail as e:
            problems.append(str(e))
        check(not problems, "; ".join(problems))
    finally:
        s.close()


@case
def item15_long_file_names():
    """Names of 239 and 255 bytes migrated in place (the temporary name must fit wherever the
    target's fits); 239 bytes with --backup (the backup name still fits)."""
    s = Scratch("longname")
    try:
        for length, backup in ((239, False), (239, True), (255, False)):
            d = s.path("n%d%s" % (length, "b" if backup else ""))
            name = "s" * (length - len(".spark_save")) + ".spark_save"
            for kind in ("small", "mid"):
                write(os.path.join(d, kind, name), FIX.bytes(kind))
            before = snapshot(d)
            remember_refs(d, before)
            r = run(["migrate", "--in-place"] + (["--backup"] if backup else []) + [d])
            what = "%d-byte name%s" % (length, " --backup" if backup else "")
            expect_rc(r, 0, what)
            check_no_temp(d, what)
            n = check_migrated_or_original(d, before, backup=backup, what=what)
            check(n == 2, "%s: %d of 2 files migrated" % (what, n))
    finally:
        s.close()


def xattr(path, name):
    try:
        return os.getxattr(path, name)
    except OSError:
        return None


def encode_acl(entries):
    """system.posix_acl_access value: version 2, then (tag u16, perm u16, id u32) entries."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)


@case
def item16_metadata_kept():
    """--in-place keeps xattrs and an ACL; the backup keeps owner, mode, mtime and xattrs;
    --output-dir keeps a 0600 mode."""
    s = Scratch("metadata")
    try:
        need_root()
        problems = []
        for kind in ("small", "mid"):
            d = s.path(kind)
            f = write(os.path.join(d, "a.spark_save"), FIX.bytes(kind))
            try:
                os.setxattr(f, "user.sparksave-test", b"kept")
            except OSError as e:
                raise Skip("no user xattrs here: " + e.strerror)
            acl_ok = True
            if shutil.which("setfacl"):
                acl_ok = subprocess.run(["setfacl", "-m", "u:65534:rw", f]).returncode == 0
            else:
                try:  # user::rw- user:65534:rw- group::r-- mask::rw- other::r--
                    os.setxattr(f, "system.posix_acl_access", encode_acl(
                        [(0x01, 6, 0xFFFFFFFF), (0x02, 6, 65534), (0x04, 4, 0xFFFFFFFF),
                         (0x10, 6, 0xFFFFFFFF), (0x20, 4, 0xFFFFFFFF)]))
                except OSError:
                    acl_ok = False
            acl = os.getxattr(f, "system.posix_acl_access") if acl_ok else None
            log("%s: %s" % (kind, "ACL set" if acl_ok else "no ACL support here: ACL not tested"))
            os.chown(f, 65534, 65534)
            os.chmod(f, 0o640) if not acl_ok else None
            os.utime(f, ns=(1000000000 * 10 ** 9, 1000000000 * 10 ** 9))
            st0 = os.stat(f)
            r = run(["migrate", "--in-place", "--backup", f])
            expect_rc(r, 0, kind + " --in-place --backup")
            st1 = os.stat(f)
            bak = f + ".v1.bak"
            check(os.path.exists(bak), kind + ": no backup")
            stb = os.stat(bak)
            if xattr(f, "user.sparksave-test") != b"kept":
                problems.append(kind + ": --in-place dropped the user xattr")
            if acl_ok and xattr(f, "system.posix_acl_access") != acl:
                problems.append(kind + ": --in-place dropped the ACL")
            if (st1.st_mode & 0o7777) != (st0.st_mode & 0o7777):
                problems.append(kind + ": --in-place changed the mode %o -> %o" %
                                (st0.st_mode & 0o7777, st1.st_mode & 0o7777))
            if (st1.st_uid, st1.st_gid) != (st0.st_uid, st0.st_gid):
                problems.append(kind + ": --in-place changed the owner")
            if (stb.st_uid, stb.st_gid) != (st0.st_uid, st0.st_gid):
                problems.append(kind + ": the backup is owned by %d:%d, not %d:%d" %
                                (stb.st_uid, stb.st_gid, st0.st_uid, st0.st_gid))
            if (stb.st_mode & 0o7777) != (st0.st_mode & 0o7777):
                problems.append(kind + ": the backup's mode is %o, not %o" %
                                (stb.st_mode & 0o7777, st0.st_mode & 0o7777))
            if stb.st_mtime_ns != st0.st_mtime_ns:
                problems.append(kind + ": the backup's mtime is new")
            if xattr(bak, "user.sparksave-test") != b"kept":
                problems.append(kind + ": the backup dropped the user xattr")
            if sha(bak) != hashlib.sha256(FIX.bytes(kind)).hexdigest():
                problems.append(kind + ": the backup is not the original bytes")
            # --output-dir keeps 0600 (a migrated file and a copied up-to-date one)
            src = s.path(kind + "-src")
            a = write(os.path.join(src, "a.spark_save"), FIX.bytes(kind), 0o600)
            b = write(os.path.join(src, "b.spark_save"), FIX.bytes("v4-hierarchy.spark_save"),
                      0o600)
            out = s.path(kind + "-out")
            old = os.umask(0o022)
            try:
                r = run(["migrate", "--output-dir", out, src])
            finally:
                os.umask(old)
            expect_rc(r, 0, kind + " --output-dir")
            for n in ("a.spark_save", "b.spark_save"):
                p = os.path.join(out, n)
                if not os.path.exists(p):
                    problems.append("%s: --output-dir wrote no %s" % (kind, n))
                elif os.stat(p).st_mode & 0o777 != 0o600:
                    problems.append("%s: --output-dir made %s %o, not 600" % (
                        kind, n, os.stat(p).st_mode & 0o777))
            check_no_temp(s.root)
        check(not problems, "; ".join(problems))
    finally:
        s.close()


@case
def item02_two_inputs_one_output():
    """migrate --output-dir out a/x b/x: the second fails ("another input maps to this output"),
    exit 1, the output is one input's migration."""
    s = Scratch("two-inputs")
    try:
        a = write(s.path("a", "x.spark_save"), make_v1(5, seed=1))
        b = write(s.path("b", "x.spark_save"), make_v1(5, seed=2))
        for args in ([a, b], [s.path("a"), s.path("b")]):
            out = s.path("out")
            before = snapshot(s.root)
            r = run(["migrate", "--jobs", "4", "--output-dir", out] + args)
            expect_rc(r, 1, "two inputs, one output")
            check(MSG_TWO_INPUTS in r.text, "no %r: %s" % (MSG_TWO_INPUTS, r.describe()))
            h = sha(os.path.join(out, "x.spark_save"))
            check(h in (FIX.reference(read(a)), FIX.reference(read(b))),
                  "the output is neither input's migration")
            check_same(before, snapshot(s.root), only=[k for k in before])
            check_no_temp(s.root)
            shutil.rmtree(out)
    finally:
        s.close()


@case
def item01_walk_skips_backups_and_temps():
    """A second in-place run over a tree with backups, the engine's .bak/.tmp and a stale temp
    never migrates or backs them up."""
    s = Scratch("walk-backups")
    try:
        d = s.path("d")
        write(os.path.join(d, "a.spark_save"), make_v1(5, seed=1))
        write(os.path.join(d, "slot1.spark_save.bak"), make_v1(5, seed=2))
        write(os.path.join(d, "slot1.spark_save.tmp"), make_v1(5, seed=3))
        engine = {k: v for k, v in snapshot(d).items() if "slot1" in k}
        r = run(["migrate", "--in-place", "--backup", d])
        expect_rc(r, 0, "first run")
        before = snapshot(d)
        check_same(engine, before, "the engine's .bak/.tmp on the first run", only=list(engine))
        check("a.spark_save.v1.bak" in before, "no backup after the first run")
        for args in (["--in-place"], ["--in-place", "--backup"]):
            r = run(["migrate"] + args + [d])
            expect_rc(r, 0, "second run " + " ".join(args))
            check_same(before, snapshot(d), "second run " + " ".join(args))
        check_no_temp(d)
    finally:
        s.close()


# --------------------------------------------------------------------------------------------


def main():
    global ARGS, BINARY, FIX
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "dev", "sparksave"))
    ap.add_argument("--tries", type=int, default=20,
                    help="random interruptions per signal case (issue bar: 100)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only the cases whose name contains this (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: time)")
    ap.add_argument("--tmpdir", default=None, help="where scratch trees go (default: $TMPDIR)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch trees")
    ap.add_argument("-v", "--verbose", action="store_true")
    ARGS = ap.parse_args()
    if ARGS.list:
        for fn in CASES:
            print(fn.__name__ + ": " + " ".join(fn.__doc__.split()))
        return 0
    BINARY = os.path.abspath(ARGS.binary)
    if not os.access(BINARY, os.X_OK):
        print("sparksave binary not found: " + BINARY, file=sys.stderr)
        return 2
    seed = ARGS.seed if ARGS.seed is not None else int(time.time())
    random.seed(seed)
    print("fault suite: %s, seed %d, %d tries" % (BINARY, seed, ARGS.tries), flush=True)
    FIX = Fixtures()
    passed = failed = skipped = 0
    t_all = time.monotonic()
    try:
        for fn in CASES:
            name = fn.__name__
            if ARGS.only and not any(o in name for o in ARGS.only):
                continue
            t0 = time.monotonic()
            try:
                fn()
            except Skip as e:
                skipped += 1
                print("SKIP %s: %s" % (name, e), flush=True)
                continue
            except Fail as e:
                failed += 1
                print("FAIL %s: %s" % (name, e), flush=True)
                continue
            except Exception as e:  # a bug of the suite itself is a failure, with its trace
                failed += 1
                print("FAIL %s: the case itself broke: %r" % (name, e), flush=True)
                traceback.print_exc()
                continue
            finally:
                log("%s: %.1f s" % (name, time.monotonic() - t0))
            passed += 1
            print("PASS %s" % name, flush=True)
    finally:
        FIX.close()
    log("whole run: %.1f s" % (time.monotonic() - t_all))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
