#!/usr/bin/env python3
"""ctest json_schemas: every JSON record sparksave prints validates against its JSON Schema in
man/schemas/ (sparksave(1) JSON OUTPUT), over the whole test corpus: verify --json and
info --json of every file of testdata/ (valid, invalid, real, ...) and of its directories, diff
--json and diff --stat --json of pairs of saves of each format, migrate --json (--dry-run,
--check, and a run with --backup in a scratch copy, content rules included), --version --json,
salvage --report of every file of every format (again with --to V --accept-checksum, V the
format's newest version),
dump --json of every file verify reads (damaged ones too: what could be read, "complete":
false) against dump-<format>.schema.json of the format verify names, which the dump must name
too (each format's dumps are counted, and a format with none fails the check), and dump --hex
--json of a sample of testdata/ (25 files a folder).

    check_schemas.py SPARKSAVE TESTDATA SCHEMAS

Needs the jsonschema module (Debian: python3-jsonschema): when the python3 running it lacks it,
Debian's /usr/bin/python3 is tried. Prints what it validated; exits 1 on the first invalid record.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("json_schemas: the jsonschema module is missing (apt-get install python3-jsonschema)")
    sys.exit(1)

sparksave, testdata, schema_dir = (os.path.abspath(a) for a in sys.argv[1:4])
schemas = {}
for name in os.listdir(schema_dir):
    if name.endswith(".schema.json"):
        with open(os.path.join(schema_dir, name)) as f:
            schemas[name] = json.load(f)


def validator(name):
    """A validator of schemas[name] that resolves the others by their $id (the file name)."""
    cls = jsonschema.validators.validator_for(schemas[name])
    cls.check_schema(schemas[name])
    try:
        from referencing import Registry, Resource  # jsonschema 4.18 and later
        registry = Registry().with_resources(
            (n, Resource.from_contents(s)) for n, s in schemas.items())
        return cls(schemas[name], registry=registry)
    except ImportError:  # Debian 12's jsonschema 4.10
        resolver = jsonschema.RefResolver(base_uri=name, referrer=schemas[name],
                                          store=dict(schemas))
        return cls(schemas[name], resolver=resolver)


validators = {n: validator(n) for n in schemas if n != "common.schema.json"}
counts = {}


def records(output, whole):
    if whole:
        return [json.loads(output)] if output.strip() else []
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def check(schema, args, whole=False, cwd=testdata):
    """Validates each record of `sparksave ARGS` against `schema`; returns the records."""
    r = subprocess.run([sparksave] + args, cwd=cwd, capture_output=True)
    if r.returncode not in (0, 1, 2):
        print(f"json_schemas: sparksave {' '.join(args[:4])} ...: exit {r.returncode}")
        sys.exit(1)
    found = records(r.stdout.decode("utf-8"), whole)
    for record in found:
        errors = sorted(validators[schema].iter_errors(record), key=lambda e: list(e.path))
        if errors:
            e = errors[0]
            print(f"json_schemas: {schema}: sparksave {' '.join(args[:4])} ...: "
                  f"{list(e.absolute_path)}: {e.message}\n{json.dumps(record)[:600]}")
            sys.exit(1)
        counts[schema] = counts.get(schema, 0) + 1
    return found


files, dirs = [], []
for root, subdirs, names in os.walk(testdata):
    subdirs[:] = sorted(d for d in subdirs if d != "cli")
    rel = os.path.relpath(root, testdata)
    if rel != ".":
        dirs.append(rel)
    files += [os.path.join(rel, n) for n in sorted(names)]

verified = check("verify.schema.json", ["verify", "--json"] + files)
check("verify.schema.json", ["verify", "--json", "--strict", "."])
check("info.schema.json", ["info", "--json"] + files)
check("info.schema.json", ["info", "--json"] + dirs)
formats = ("spark_save", "text_archive", "tess_world", "gmsv", "spark_kv")
for fmt in formats:
    saves = [f for f in files if f.startswith(fmt + os.sep) and os.sep + "valid" + os.sep in f]
    for a, b in zip(saves, saves[1:]):
        check("diff.schema.json", ["diff", "--json", a, b], whole=True)
        check("diff.schema.json", ["diff", "--stat", "--json", a, b], whole=True)
check("migrate.schema.json", ["migrate", "--json", "--dry-run", "."])
check("migrate.schema.json", ["migrate", "--json", "--check", "."])
check("migrate.schema.json", ["migrate", "--json", "--dry-run", "--rules", "rules", "rules"])
with tempfile.TemporaryDirectory() as tmp:
    copy = os.path.join(tmp, "saves")
    shutil.copytree(os.path.join(testdata, "spark_save"), copy)
    check("migrate.schema.json", ["migrate", "--json", "--in-place", "--backup", "saves"], cwd=tmp)
    check("migrate.schema.json", ["migrate", "--json", "--output-dir", "out", "saves"], cwd=tmp)
check("version.schema.json", ["--version", "--json"], whole=True)
# salvage --report FILE: the report of every file of every format in testdata/ (valid ones,
# damaged ones), with --to (the format's newest version) and
# --accept-checksum for a second report of each.
with tempfile.TemporaryDirectory() as tmp:
    out, report = os.path.join(tmp, "out.spark_save"), os.path.join(tmp, "report.json")
    for f in files:
        newest = {"spark_save": "4", "spark_kv": "2", "gmsv": "3", "tess_world": "2",
                  "text_archive": "1"}
        top = f.split(os.sep, 1)[0]
        if top not in newest:
            continue
        for extra in ([], ["--to", newest[top], "--accept-checksum"]):
            for stale in (out, report):
                if os.path.exists(stale):
                    os.remove(stale)
            r = subprocess.run([sparksave, "salvage", f, "-o", out, "--report", report] + extra,
                               cwd=testdata, capture_output=True)
            if r.returncode not in (0, 1, 2):
                print(f"json_schemas: sparksave salvage {f}: exit {r.returncode}")
                sys.exit(1)
            if not os.path.exists(report):
                continue
            with open(report, encoding="utf-8") as j:
                record = json.load(j)
            errors = list(validators["salvage.schema.json"].iter_errors(record))
            if errors:
                print(f"json_schemas: salvage.schema.json: salvage {f}: "
                      f"{list(errors[0].absolute_path)}: {errors[0].message}")
                sys.exit(1)
            counts["salvage.schema.json"] = counts.get("salvage.schema.json", 0) + 1
# dump --hex --json: a record of every region of a file, so a sample: the first 25 files of each
# folder of testdata/ (valid, invalid, real, ... of each format).
sampled = {}
for f in files:
    folder = os.path.dirname(f)
    sampled[folder] = sampled.get(folder, 0) + 1
    if sampled[folder] <= 25:
        check("dump-hex.schema.json", ["dump", "--hex", "--json", f], whole=True)

# dump --json of every file verify reads (a format named), against its format's schema.
dumps = {fmt: 0 for fmt in formats}
for record in verified:
    fmt, path = record["format"], record["path"]
    if fmt is None:
        continue
    found = check(f"dump-{fmt}.schema.json", ["dump", "--json", path], whole=True)
    for dump in found:
        if dump["format"] != fmt:
            print(f"json_schemas: dump --json {path}: format {dump['format']}, verify says {fmt}")
            sys.exit(1)
        dumps[fmt] += 1
    if not found and record["ok"]:
        print(f"json_schemas: dump --json {path} (valid, {fmt}) printed no dump")
        sys.exit(1)
if 0 in dumps.values():
    print(f"json_schemas: no dump checked of {[f for f in formats if dumps[f] == 0]}")
    sys.exit(1)

for schema in sorted(counts):
    print(f"json_schemas: {schema}: {counts[schema]} records valid")
missing = sorted(set(validators) - set(counts))
if missing:
    print(f"json_schemas: no record checked against {missing}")
    sys.exit(1)
