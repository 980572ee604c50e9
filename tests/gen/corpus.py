"""The one corpus writer of tests/gen/*_corpus.py.

A generator declares the folders of testdata/<format>/ it owns (valid/, invalid/, ...), builds
its whole corpus in memory through Corpus.write, and hands it to run(), which then

- writes every file (only those whose bytes changed) and removes every other file of the owned
  folders that git tracks (a file it made before and makes no more: git can bring it back), so
  a run is reproducible: the owned folders hold exactly what the generator makes; a file git
  does not know (a new hand-written file put there by mistake) is left alone, named, and the
  run fails (outside a git checkout, e.g. with --out, every other file is removed);
- never looks at any other folder: hand-written files live in testdata/<format>/hand/<kind>/
  and the engines' own files (../shared/fixtures/real, copied under their names, never edited)
  in testdata/<format>/real/<kind>/, with the same kinds and checks as the generated ones
  (tests/corpus/test_corpus.cpp);
- with --check writes nothing and fails unless the checked-in owned folders are exactly what the
  generator makes (ctest runs this as corpus/gen/<format>); with --out DIR writes
  DIR/<format>/ instead of testdata/<format>/ (a scratch copy to compare).

Each .expect file lists the findings the reader must report, in order, one a line, in the one
format the corpus test compares with:

    <severity> <code> <where> <node path, or ->

where <where> is an offset in hex (binary formats), line:column (text formats) or -.
"""
import argparse
import os
import re
import subprocess
import sys

TESTDATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                         "testdata"))
SEVERITIES = ("error", "warning", "note")
# The folders of testdata/<format>/ no generator may own.
NOT_GENERATED = ("hand", "real", "golden")


def expect_line(finding):
    """One line of a .expect file. `finding` is (severity, code, where, node), where `where` is an
    int offset (written in hex), a "line:column" string, or None, and `node` a path or None; or
    the same four fields already written as one line."""
    if isinstance(finding, str):
        fields = finding.rstrip("\n").split(" ", 3)
        if len(fields) != 4:
            raise ValueError(f"expected '<severity> <code> <where> <node>', found {finding!r}")
        finding = fields
    severity, code, where, node = finding
    if isinstance(where, int):
        where = f"{where:#x}"
    where = "-" if where is None else where
    node = "-" if node is None or node == "" else node
    if severity not in SEVERITIES:
        raise ValueError(f"expected a severity ({', '.join(SEVERITIES)}), found {severity!r}")
    if not re.fullmatch(r"[a-z0-9_]+", code):
        raise ValueError(f"expected a finding code, found {code!r}")
    if not re.fullmatch(r"-|0x[0-9a-f]+|0|[0-9]+:[0-9]+", where):
        raise ValueError(f"expected an offset in hex, line:column or -, found {where!r}")
    if "\n" in node:
        raise ValueError(f"expected a node path on one line, found {node!r}")
    return f"{severity} {code} {where} {node}\n"


class Corpus:
    """The files one generator makes under testdata/<format>/, in memory until run() writes."""

    def __init__(self, format_name, ext, folders):
        for folder in folders:
            if folder.split("/")[0] in NOT_GENERATED or not folder or ".." in folder:
                raise ValueError(f"a generator cannot own testdata/{format_name}/{folder}")
        self.format = format_name
        self.ext = ext
        self.folders = tuple(folders)
        self.files = {}  # path relative to testdata/<format>/ -> bytes

    def write_file(self, sub, file_name, data):
        """testdata/<format>/<sub>/<file_name>, exactly as named."""
        if sub not in self.folders:
            raise ValueError(f"{self.format}: {sub}/ is not a folder of this generator "
                             f"({', '.join(self.folders)})")
        if "/" in file_name or file_name.startswith("."):
            raise ValueError(f"{self.format}: expected a plain file name, found {file_name!r}")
        rel = sub + "/" + file_name
        if rel in self.files:
            raise ValueError(f"{self.format}: {rel} written twice")
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        self.files[rel] = bytes(data)
        return rel

    def write(self, sub, name, data, expect=None):
        """<sub>/<name><ext>, and with `expect` (a list of findings, see expect_line; [] for none)
        its <name><ext>.expect."""
        rel = self.write_file(sub, name + self.ext, data)
        if expect is not None:
            self.write_file(sub, name + self.ext + ".expect",
                            "".join(expect_line(f) for f in expect))
        return rel

    def _on_disk(self, root):
        """The files of the owned folders under root/<format>/ (relative path -> full path)."""
        out = {}
        for folder in self.folders:
            top = os.path.join(root, self.format, folder)
            for dirpath, _, names in os.walk(top):
                for n in names:
                    full = os.path.join(dirpath, n)
                    out[os.path.relpath(full, os.path.join(root, self.format)).replace(os.sep, "/")] = full
        return out

    def differences(self, root):
        """What root/<format>/ holds that differs from this corpus, one line each."""
        out = []
        on_disk = self._on_disk(root)
        for rel, data in sorted(self.files.items()):
            if rel not in on_disk:
                out.append(f"missing   {rel}")
            else:
                with open(on_disk[rel], "rb") as f:
                    if f.read() != data:
                        out.append(f"differs   {rel}")
        for rel in sorted(set(on_disk) - set(self.files)):
            out.append(f"not made  {rel} (hand-written files go in hand/, engine files in real/)")
        return out

    def _tracked(self, root):
        """The files of the owned folders git tracks (relative paths), or None outside a git
        checkout."""
        try:
            r = subprocess.run(["git", "ls-files", "-z", "--"] + list(self.folders),
                               cwd=os.path.join(root, self.format), capture_output=True)
        except OSError:
            return None
        if r.returncode != 0:
            return None
        return {p for p in r.stdout.decode("utf-8", "surrogateescape").split("\0") if p}

    def commit(self, root):
        """Writes the corpus under root/<format>/ and removes the other files of the owned
        folders that git tracks (all of them outside a checkout). Returns (files, changed,
        removed, kept): kept are the files neither made nor tracked, left alone."""
        on_disk = self._on_disk(root)
        tracked = self._tracked(root) if os.path.isdir(os.path.join(root, self.format)) else None
        changed = removed = 0
        kept = []
        for rel, data in sorted(self.files.items()):
            path = os.path.join(root, self.format, *rel.split("/"))
            if rel in on_disk:
                with open(path, "rb") as f:
                    if f.read() == data:
                        continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            changed += 1
        for rel in sorted(set(on_disk) - set(self.files)):
            if tracked is not None and rel not in tracked:
                print(f"kept {self.format}/{rel}: not made by this generator and not in git; "
                      f"hand-written files go in {self.format}/hand/{rel.split('/')[0]}/")
                kept.append(rel)
                continue
            os.remove(on_disk[rel])
            print(f"removed {self.format}/{rel} (not made by this generator)")
            removed += 1
        return len(self.files), changed, removed, kept


def run(corpus, *generate, description=None):
    """The command line of every generator: runs the generate functions (each fills `corpus`),
    then writes, or with --check compares, testdata/<format>/."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 unless testdata/ holds exactly this corpus")
    parser.add_argument("--out", metavar="DIR",
                        help="write DIR/<format>/ instead of testdata/<format>/")
    args = parser.parse_args()
    for g in generate:
        g()
    if not corpus.files:
        raise SystemExit(f"{corpus.format}: the generator made no file; nothing was written")
    where = ", ".join(f"{corpus.format}/{f}/" for f in corpus.folders)
    if args.check:
        diffs = corpus.differences(TESTDATA)
        for d in diffs:
            print(f"{corpus.format}: {d}")
        if diffs:
            print(f"{len(diffs)} differences between testdata/ ({where}) and what "
                  f"{os.path.basename(sys.argv[0])} makes: rerun it and review `git status` "
                  "(hand-written files go in hand/<kind>/)")
            sys.exit(1)
        print(f"testdata/ holds exactly the {len(corpus.files)} files of {where}")
        return
    root = os.path.abspath(args.out) if args.out else TESTDATA
    if not os.path.isdir(root):
        raise SystemExit(f"expected the directory {root}; nothing was written")
    files, changed, removed, kept = corpus.commit(root)
    print(f"{files} files under {os.path.join(root, corpus.format)} ({where}): "
          f"{changed} written, {removed} removed, {files - changed} unchanged")
    if kept:
        sys.exit(f"{len(kept)} files in the generated folders were not made by the generator "
                 "(kept; move them to hand/<kind>/ or delete them)")
