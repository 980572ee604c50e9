#!/usr/bin/env python3
"""The test git_drivers: saves in a real git repository with sparksave's drivers
(sparksave-git(1)). Builds a repository in a temporary directory (HOME pointed there too, so
--global touches only it), runs `sparksave git install --attributes` and `git doctor`, commits
saves copied from testdata/ and variants made with the tool itself (dump --json, an edit,
pack), and checks: `git log -p` and `git diff --no-ext-diff` show the text dump (textconv,
cached), `git diff` the structural diff (the external driver, /dev/null sides included),
`git diff --no-ext-diff --no-textconv --binary | git apply` round-trips, a merge of branches that
changed different entities merges cleanly and verifies, a conflicting merge leaves OURS as it
was and the driver exits 1. Prints one line a check; exits 1 on a failure, 77 (ctest's skip)
when git is not installed.

    check_git.py SPARKSAVE TESTDATA
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

if shutil.which("git") is None:
    print("git is not installed: skipped")
    sys.exit(77)

sparksave = os.path.abspath(sys.argv[1])
testdata = os.path.abspath(sys.argv[2])
failed = False


def check(what, ok, detail=""):
    global failed
    if ok:
        print(f"ok   {what}")
    else:
        failed = True
        print(f"FAIL {what}" + (f"\n{detail}" if detail else ""))


tmp = tempfile.mkdtemp(prefix="sparksave-git-")
home = os.path.join(tmp, "home")
repo = os.path.join(tmp, "repo")
os.makedirs(home)
os.makedirs(repo)
env = dict(os.environ)
env.update({
    "HOME": home,
    "XDG_CONFIG_HOME": os.path.join(home, ".config"),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CEILING_DIRECTORIES": tmp,
    "LC_ALL": "C",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
})
for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "NO_COLOR", "GIT_EXTERNAL_DIFF"):
    env.pop(name, None)
env["PATH"] = os.path.dirname(sparksave) + os.pathsep + env.get("PATH", "")


def run(*args, cwd=repo, stdin=None, binary=False):
    r = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, input=stdin,
                       text=not binary)
    return r


def git(*args, **kw):
    return run("git", *args, **kw)


def must(r, what):
    if r.returncode != 0:
        check(what, False, f"exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")
        print("stopped")
        sys.exit(1)
    return r


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def variant(source, edits, target):
    """`source` with its JSON dump edited (each (old, new) replaced once) packed to `target`."""
    dump = must(run(sparksave, "dump", "--json", source), f"dump --json {source}").stdout
    for old, new in edits:
        if old not in dump:
            check(f"variant of {os.path.basename(source)}: {old} in the dump", False)
            sys.exit(1)
        dump = dump.replace(old, new, 1)
    must(run(sparksave, "pack", "-o", target, "-", stdin=dump), f"pack {target}")


try:
    slot = os.path.join(repo, "slot1.spark_save")
    world = os.path.join(repo, "world.gmsv")
    base_save = os.path.join(testdata, "spark_save/valid/v4-hierarchy.spark_save")

    # Outside a repository, doctor and a local install are trouble.
    check("doctor outside a repository exits 2", run(sparksave, "git", "doctor", cwd=home).returncode == 2)
    check("install outside a repository exits 2",
          run(sparksave, "git", "install", cwd=home).returncode == 2)

    must(git("-c", "init.defaultBranch=main", "init", "-q"), "git init")
    must(git("config", "user.name", "sparksave test"), "git config user.name")
    must(git("config", "user.email", "test@example.invalid"), "git config user.email")
    must(git("config", "commit.gpgsign", "false"), "git config commit.gpgsign")

    r = run(sparksave, "git", "doctor")
    check("doctor before install exits 1, listing what is missing",
          r.returncode == 1 and r.stdout.count("missing") == 9, r.stdout + r.stderr)

    # install --attributes: every setting printed, every line appended once.
    r = must(run(sparksave, "git", "install", "--attributes"), "git install --attributes")
    settings = re.findall(r"^set local (\S+) = ", r.stdout, re.M)
    check("install prints each setting it made",
          settings == ["diff.sparksave.textconv", "diff.sparksave.cachetextconv",
                       "diff.sparksave.command", "merge.sparksave.name", "merge.sparksave.driver"],
          r.stdout)
    textconv = must(git("config", "--get", "diff.sparksave.textconv"), "config").stdout.strip()
    check("the textconv driver is this sparksave's dump", textconv == sparksave + " dump", textconv)
    check("cachetextconv is on",
          git("config", "--get", "diff.sparksave.cachetextconv").stdout.strip() == "true")
    check("the merge driver takes %O %A %B %P",
          git("config", "--get", "merge.sparksave.driver").stdout.strip() ==
          sparksave + " git merge-driver %O %A %B %P")
    attributes = read(os.path.join(repo, ".gitattributes")).decode()
    for line in ("*.spark_save diff=sparksave merge=sparksave", "*.sz diff=sparksave merge=sparksave",
                 "*.tessw diff=sparksave merge=sparksave", "*.gmsv diff=sparksave merge=sparksave"):
        check(f".gitattributes has {line}", attributes.splitlines().count(line) == 1, attributes)
    check(".gitattributes has a commented line for spark-kv stores",
          any(l.startswith("#") and "kv" in l for l in attributes.splitlines()), attributes)
    r = must(run(sparksave, "git", "install", "--attributes"), "install again")
    check("install again appends nothing",
          read(os.path.join(repo, ".gitattributes")).decode() == attributes and
          "has every line already" in r.stdout, r.stdout)
    r = must(run(sparksave, "git", "install", "--global"), "install --global")
    gitconfig = read(os.path.join(home, ".gitconfig")).decode()
    check("install --global writes the user's configuration (HOME here)",
          "[diff \"sparksave\"]" in gitconfig and "git merge-driver" in gitconfig and
          "set global diff.sparksave.command" in r.stdout, gitconfig)
    r = run(sparksave, "git", "doctor")
    check("doctor after install exits 0", r.returncode == 0 and "missing" not in r.stdout,
          r.stdout + r.stderr)

    # Commits of saves: the text dump in `git log -p` (textconv).
    shutil.copyfile(base_save, slot)
    shutil.copyfile(os.path.join(testdata, "gmsv/valid/v3-json.gmsv"), world)
    must(git("add", "."), "git add")
    must(git("commit", "-q", "-m", "base"), "commit base")
    variant(base_save, [('["current", "80.000000"]', '["current", "50.000000"]')], slot)
    must(git("commit", "-q", "-am", "hurt the player"), "commit")
    log = must(git("log", "-p", "-1"), "git log -p").stdout
    check("git log -p shows the text dump (textconv)",
          re.search(r'^-\s+current: "80\.000000"$', log, re.M) is not None and
          re.search(r'^\+\s+current: "50\.000000"$', log, re.M) is not None, log)
    check("the textconv is cached (refs/notes/textconv/sparksave)",
          git("show-ref", "--verify", "-q", "refs/notes/textconv/sparksave").returncode == 0)
    again = must(git("log", "-p", "-1"), "git log -p again").stdout
    check("git log -p again (from the cache) gives the same text", again == log)
    dumps = [run(sparksave, "dump", slot).stdout for _ in range(2)]
    check("the text dump is deterministic", dumps[0] == dumps[1] and dumps[0])

    # A change in the work tree: git diff runs the external driver, --no-ext-diff the textconv.
    variant(slot, [('"meshes/sword.mesh"', '"meshes/axe.mesh"')], slot)
    edited = read(slot)
    r = must(git("diff"), "git diff")
    check("git diff shows the structural diff (external driver)",
          "sparksave diff a/slot1.spark_save b/slot1.spark_save" in r.stdout and
          '~ entities[name=sword].MeshRenderer.mesh: "meshes/sword.mesh" \u2192 "meshes/axe.mesh"'
          in r.stdout, r.stdout + r.stderr)
    r = must(git("diff", "--no-ext-diff"), "git diff --no-ext-diff")
    check("git diff --no-ext-diff shows the text dump",
          re.search(r'^-\s+mesh: "meshes/sword\.mesh"$', r.stdout, re.M) is not None and
          re.search(r'^\+\s+mesh: "meshes/axe\.mesh"$', r.stdout, re.M) is not None, r.stdout)
    patch = must(git("diff", "--no-ext-diff", "--no-textconv", "--binary", binary=True),
                 "git diff --binary").stdout
    must(git("checkout", "--", "slot1.spark_save"), "git checkout")
    r = git("apply", stdin=patch, binary=True)
    check("git diff --no-ext-diff --no-textconv --binary | git apply round-trips",
          r.returncode == 0 and read(slot) == edited, r.stderr.decode(errors="replace"))
    must(git("checkout", "--", "slot1.spark_save"), "git checkout")

    # An added and a removed file: /dev/null on one side.
    shutil.copyfile(os.path.join(testdata, "gmsv/valid/v3-binary.gmsv"),
                    os.path.join(repo, "extra.gmsv"))
    must(git("add", "extra.gmsv"), "git add extra")
    r = must(git("diff", "--cached"), "git diff --cached")
    check("an added save: the driver says so", "added save: gmsv v3" in r.stdout, r.stdout)
    must(git("commit", "-q", "-m", "extra"), "commit extra")
    must(git("rm", "-q", "extra.gmsv"), "git rm")
    r = must(git("diff", "--cached"), "git diff --cached (removed)")
    check("a removed save: the driver says so", "removed save: gmsv v3" in r.stdout, r.stdout)
    must(git("commit", "-q", "-m", "no extra"), "commit no extra")

    # Two branches that changed different entities: merged cleanly, and the result verifies.
    must(git("checkout", "-q", "-b", "feature"), "branch feature")
    variant(slot, [('"meshes/sword.mesh"', '"meshes/axe.mesh"')], slot)
    variant(world, [('"Current":75', '"Current":90')], world)
    must(git("commit", "-q", "-am", "feature: axe, healed"), "commit feature")
    must(git("checkout", "-q", "main"), "checkout main")
    variant(slot, [('"enemy,boss,flying"', '"enemy,boss"')], slot)
    variant(world, [('"X":0,', '"X":7,')], world)
    must(git("commit", "-q", "-am", "main: tags, moved"), "commit main")
    r = git("merge", "-q", "--no-edit", "feature")
    check("a merge of branches that changed different entities merges cleanly",
          r.returncode == 0, r.stdout + r.stderr)
    d = run(sparksave, "diff", base_save, slot).stdout
    check("the merged save holds both sides' changes",
          '"meshes/axe.mesh"' in d and '"enemy,boss"' in d and '"50.000000"' in d, d)
    w = run(sparksave, "diff", os.path.join(testdata, "gmsv/valid/v3-json.gmsv"), world).stdout
    check("the merged GMSV save holds both sides' changes",
          "Health.Current: 75 \u2192 90" in w and "Position.X: 0 \u2192 7" in w, w)
    r = run(sparksave, "verify", slot, world)
    check("the merged saves verify", r.returncode == 0, r.stdout + r.stderr)

    # A conflicting merge: one value changed differently. OURS is left as it was.
    must(git("checkout", "-q", "-b", "rival"), "branch rival")
    variant(slot, [('["current", "50.000000"]', '["current", "60.000000"]')], slot)
    must(git("commit", "-q", "-am", "rival: 60"), "commit rival")
    must(git("checkout", "-q", "main"), "checkout main")
    variant(slot, [('["current", "50.000000"]', '["current", "70.000000"]')], slot)
    must(git("commit", "-q", "-am", "main: 70"), "commit main 70")
    ours = read(slot)
    r = git("merge", "--no-edit", "rival")
    check("a conflicting merge fails", r.returncode != 0, r.stdout + r.stderr)
    check("the conflicts are printed (path, base, ours, theirs)",
          "conflict entities[name=player].HealthComponent.current: changed on both sides"
          in r.stdout and 'base:   "50.000000"' in r.stdout and 'ours:   "70.000000"' in r.stdout
          and 'theirs: "60.000000"' in r.stdout, r.stdout + r.stderr)
    check("OURS is left byte for byte as it was", read(slot) == ours)
    status = git("status", "--porcelain").stdout
    check("git marks the save conflicted", "UU slot1.spark_save" in status, status)
    stages = {n: git("show", f":{n}:slot1.spark_save", binary=True).stdout for n in (1, 2, 3)}
    for n in stages:
        write(os.path.join(tmp, f"stage{n}"), stages[n])
    ours_copy = os.path.join(tmp, "stage2")
    r = run(sparksave, "git", "merge-driver", os.path.join(tmp, "stage1"), ours_copy,
            os.path.join(tmp, "stage3"), "slot1.spark_save")
    check("the merge driver exits 1 on the conflict and leaves OURS as it was",
          r.returncode == 1 and read(ours_copy) == stages[2], r.stdout + r.stderr)
    must(git("merge", "--abort"), "git merge --abort")
    leftovers = [n for n in os.listdir(repo) if "sparksave" in n or n.startswith(".merge_file")]
    check("no temporary file is left in the work tree", not leftovers, str(leftovers))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(1 if failed else 0)
