#!/usr/bin/env python3
"""The CLI case cli/completion: `sparksave completion bash|zsh|fish` offers every command and every
option of every command, as `sparksave --help` and `sparksave CMD --help` list them, and the
values of the options that have them. bash and fish run their scripts (bash: the completion
function on a simulated command line; fish: `complete -C`); zsh checks the script's syntax and
that each command's block names each of its options. Prints one line a check (the case's golden);
exits 1 on a difference. Run from testdata/ with sparksave on PATH."""
import os
import re
import subprocess
import sys
import tempfile


def run(*args, stdin=None):
    r = subprocess.run(args, capture_output=True, text=True, input=stdin)
    if r.returncode != 0:
        print(f"FAIL {' '.join(args[:3])}: exit {r.returncode}: {r.stderr.strip()}")
        sys.exit(1)
    return r.stdout


def listed_options(help_text):
    """Every spelling of every option in a --help text's Options section."""
    names, section = [], False
    for line in help_text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            section = line == "Options:"
            continue
        m = re.match(r"^  (-[^ ]+)", line) if section else None
        if m:
            names += [n for n in m.group(1).split(",") if n.startswith("-")]
    return names


def commands(help_text):
    out, section = [], False
    for line in help_text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            section = line == "Subcommands:"
            continue
        m = re.match(r"^  ([a-z][a-z-]*) ", line) if section else None
        if m:
            out.append(m.group(1))
    return out


failed = False


def check(what, got, want):
    global failed
    got, want = sorted(set(got)), sorted(set(want))
    if got == want:
        print(f"{what}: {len(want)} offered")
    else:
        failed = True
        print(f"FAIL {what}: missing {sorted(set(want) - set(got))}, extra {sorted(set(got) - set(want))}")


top_help = run("sparksave", "--help")
cmds = commands(top_help)
globals_ = [n for n in listed_options(top_help)]
inherited = [n for n in globals_ if n not in ("-h", "--help", "--version")]
options = {c: listed_options(run("sparksave", c, "--help")) + inherited for c in cmds}
# Commands with commands of their own (`git install`), and those commands' options.
subs = {c: commands(run("sparksave", c, "--help")) for c in cmds}
subs = {c: s for c, s in subs.items() if s}
sub_options = {(c, s): listed_options(run("sparksave", c, s, "--help")) + inherited
               for c in subs for s in subs[c]}

with tempfile.TemporaryDirectory() as tmp:
    scripts = {}
    for shell in ("bash", "zsh", "fish"):
        scripts[shell] = os.path.join(tmp, "sparksave." + shell)
        with open(scripts[shell], "w") as f:
            f.write(run("sparksave", "completion", shell))

    # bash: the function on a command line, the cursor at its last word.
    def bash(*words):
        line = " ".join("'" + w + "'" for w in words)
        out = run("bash", "-c", f"source {scripts['bash']}; COMP_WORDS=(sparksave {line}); "
                  f"COMP_CWORD={len(words)}; _sparksave; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        return [w for w in out.split("\n") if w]

    check("bash: the commands and the program's options", bash(""), cmds + globals_)
    for c in cmds:
        check(f"bash: {c} -", bash(c, "-"), options[c])
    for c in subs:
        check(f"bash: {c}", bash(c, ""), subs[c])
        for sub in subs[c]:
            check(f"bash: {c} {sub} -", bash(c, sub, "-"), sub_options[(c, sub)])
    check("bash: --color", bash("--color", ""), ["auto", "always", "never"])
    check("bash: verify --input-format s", bash("verify", "--input-format", "s"),
          ["spark_save", "spark_kv"])
    check("bash: completion", bash("completion", ""), ["bash", "zsh", "fish"])
    check("bash: migrate --to", bash("migrate", "--to", ""), [])
    check("bash: migrate --output-dir spark_save/va", bash("migrate", "--output-dir", "spark_save/va"),
          ["spark_save/valid"])
    check("bash: verify spark_save/valid/v4-e", bash("verify", "spark_save/valid/v4-e"),
          ["spark_save/valid/v4-empty.spark_save"])

    # fish: its own completion engine, `complete -C`.
    def fish(line):
        out = run("fish", "--no-config", "-c", f"source {scripts['fish']}; complete -C '{line}'")
        return [w.split("\t")[0] for w in out.split("\n") if w]

    run("fish", "--no-config", "--no-execute", scripts["fish"])
    check("fish: the commands", fish("sparksave "), cmds)
    for c in cmds:
        check(f"fish: {c} -", [w for w in fish(f"sparksave {c} -") if w.startswith("-")],
              options[c])
    for c in subs:
        check(f"fish: {c}", fish(f"sparksave {c} "), subs[c])
        for sub in subs[c]:
            check(f"fish: {c} {sub} -",
                  [w for w in fish(f"sparksave {c} {sub} -") if w.startswith("-")],
                  sub_options[(c, sub)])
    check("fish: --color", fish("sparksave --color "), ["auto", "always", "never"])
    check("fish: completion", fish("sparksave completion "), ["bash", "zsh", "fish"])

    # zsh: the syntax, and each command's block naming each of its options.
    run("zsh", "-n", scripts["zsh"])
    text = open(scripts["zsh"]).read()
    globals_block = re.search(r"globals=\((.*?)\n    \)", text, re.S).group(1)

    def zsh_named(spec):
        named = re.findall(r"^\s*'(--?[\w][\w-]*)\[", spec, re.M)
        for group in re.findall(r"^\s*'\([^)]*\)'\{([^}]*)\}", spec, re.M):
            named += group.split(",")
        return named + re.findall(r"'(--?[\w][\w-]*)\[", globals_block)

    for c in cmds:
        if c in subs:
            block = re.search(r"\n        " + c + r"\) if \(\( CURRENT == 2 \)\); then _arguments(.*?)"
                              r" && ret=0\n(.*?)\n        fi ;;", text, re.S)
            check(f"zsh: {c}", zsh_named(block.group(1) if block else ""), options[c])
            for sub in subs[c]:
                inner = re.search(r"\n            " + re.escape(sub) + r"\) _arguments(.*?) && ret=0 ;;",
                                  block.group(2) if block else "", re.S)
                check(f"zsh: {c} {sub}", zsh_named(inner.group(1) if inner else ""),
                      sub_options[(c, sub)])
            continue
        block = re.search(r"\n        " + c + r"\) _arguments(.*?) && ret=0 ;;", text, re.S)
        check(f"zsh: {c}", zsh_named(block.group(1) if block else ""), options[c])

sys.exit(1 if failed else 0)
