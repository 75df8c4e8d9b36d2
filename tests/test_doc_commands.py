#!/usr/bin/env python3
"""Every command line the docs give, tried against a build folder:

    test_doc_commands.py <repository root> <build folder>

The docs: every README.md, NOTES.md and EXERCISES.md of the repository (the top README, the
step folders, common/*/, results/, tests/), but those listed in PENDING.

- `./build/ladder-plan ...` and `./build/ladder-ring ...` run (CPU only) and must exit 0; a
  choice in braces (`--step {3,4,6,7}`) is tried with its first value. `ladder-ring --fault F`
  shows a seeded mistake being caught: it must exit 1 (the fault found), not 0 or 2 (usage).
  Where such a line in a fenced block has a comment, every number with a unit the comment
  quotes (`# issue 670 ns, 210.3 us = 654 TFLOP/s`) must be in what the tool prints.
- `./build/<other> ...` (the executables that need a GPU to do work) must exist, and
  `<other> <documented arguments> --help` must exit 0: the arguments parse and the usage prints.
- `--variant NAME` of `./build/step-N`, and `--step N:NAME` of ladder-plan, must name a
  variant that `step-N --help` lists.
- `cmake --build <any build folder> --target T` and `make T` must name a target of the build
  (a dry run, -n).
- `ctest --test-dir build -R NAME` must select at least one test.
- `cmake --preset P`, `cmake --build --preset P`, `ctest --preset P` must name a preset of
  CMakePresets.json.
- `diff A B` runs from the repository root and must exit 0 or 1 (2: a path is wrong).
The docs say `build/`; the build folder given here stands in for it.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

root, build = (os.path.abspath(a) for a in sys.argv[1:3])

# Docs being rewritten elsewhere, left out until they are (none now).
PENDING = set()


def all_docs():
    found = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "__pycache__")))
        if rel.startswith("tests" + os.sep + "fixtures"):
            continue
        for f in sorted(files):
            if f in ("README.md", "NOTES.md", "EXERCISES.md"):
                path = os.path.normpath(os.path.join(rel, f))
                if path not in PENDING:
                    found.append(path)
    return found


CPU_TOOLS = ("ladder-plan", "ladder-ring")
FENCE = re.compile(r"^```")
CHOICE = re.compile(r"^\{([^,{}]+),[^{}]*\}$")
SPAN = re.compile(r"`([^`\n]+)`")
QUOTED = re.compile(r"(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|TFLOP/s|TB/s)\b")


def command_lines(text):
    """(command, comment) of the lines of fenced blocks and of inline code spans; the
    comment is what follows ` # ` on a fenced line (empty for a span)."""
    lines, in_block = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            in_block = not in_block
            continue
        lines += [(line, True)] if in_block else [(span, False) for span in SPAN.findall(line)]
    out = []
    for line, fenced in lines:
        m = re.search(r"\s#\s(.*)$", line)
        comment = m.group(1) if m and fenced else ""
        line = line[:m.start()] if m else line
        parts = [part.strip() for part in re.split(r"&&|;", line.strip()) if part.strip()]
        # A comment belongs to the last command of its line.
        out += [(part, comment if i == len(parts) - 1 else "") for i, part in enumerate(parts)]
    return out


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


failures, tried = [], 0


def expect(ok, where, what, detail=""):
    global tried
    tried += 1
    print(f"{'ok  ' if ok else 'FAIL'} {where}: {what}")
    if not ok:
        failures.append(f"{where}: {what}\n{detail}")


variant_lists = {}


def variants_of(step):
    """The variant names `step-N --help` lists ("" for an unnamed default), or None."""
    if step not in variant_lists:
        exe = os.path.join(build, f"step-{step}")
        names = None
        if os.access(exe, os.X_OK):
            r = run([exe, "--help"])
            m = re.search(r"Variants of step \d+ \(--variant\): (.*)", r.stdout + r.stderr)
            if m:
                names = {""}
                for item in m.group(1).split(","):
                    item = item.strip()
                    if item in ("only the default", "the default (no name)"):
                        continue
                    names.add(item.replace(" (default)", ""))
        variant_lists[step] = names
    return variant_lists[step]


def check_variant(where, step, name, cmd):
    names = variants_of(step)
    if names is None:
        expect(False, where, f"{cmd}: variants of step {step}",
               f"{build}/step-{step} --help lists no variants: the step is not built")
    else:
        expect(name in names, where, f"step {step} has a variant '{name}'",
               f"`{cmd}` names variant '{name}' of step {step}; step-{step} --help lists: "
               f"{', '.join(sorted(n or '(default)' for n in names))}")


def targets_exist(where, targets):
    for target in targets:
        r = run(["cmake", "--build", build, "--target", target, "--", "-n"])
        expect(r.returncode == 0, where, f"target {target} exists", r.stdout + r.stderr)


for where in all_docs():
    for cmd, comment in command_lines(open(os.path.join(root, where), encoding="utf-8").read()):
        try:
            words = shlex.split(cmd)
        except ValueError:
            continue
        if not words:
            continue
        # `flock LOCK ./build/step-4 ...`, `ncu ... ./build/step-2 ...`: the part from ./build/ on.
        exe_at = next((i for i, w in enumerate(words) if w.startswith("./build/")), None)
        if exe_at is not None:
            name, args = words[exe_at][len("./build/"):], []
            for w in words[exe_at + 1:]:
                if CHOICE.match(w):
                    w = CHOICE.match(w).group(1)
                if "$" in w:  # a shell variable of a loop (--variant $v): leave the option out
                    if args and args[-1].startswith("--"):
                        args.pop()
                    continue
                args.append(w)
            exe = os.path.join(build, name)
            if not os.access(exe, os.X_OK):
                expect(False, where, cmd, f"{exe} does not exist: the docs name an executable the build does not make there")
                continue
            argv = [exe] + args if name in CPU_TOOLS else [exe] + args + ["--help"]
            r = run(argv, cwd=root)  # the docs' commands run from the repository root
            want = 1 if name == "ladder-ring" and "--fault" in args else 0
            shown = " ".join(["./build/" + name] + argv[1:])
            expect(r.returncode == want, where, shown, r.stdout + r.stderr)
            step_exe = re.fullmatch(r"step-(\d+)", name)
            if step_exe and "--variant" in args[:-1]:
                check_variant(where, int(step_exe.group(1)), args[args.index("--variant") + 1], cmd)
            if name == "ladder-plan" and "--step" in args[:-1]:
                step_arg = re.fullmatch(r"(\d+):(\S+)", args[args.index("--step") + 1])
                if step_arg:
                    check_variant(where, int(step_arg.group(1)), step_arg.group(2), cmd)
            if name in CPU_TOOLS and comment:
                printed = (r.stdout + r.stderr).replace("µs", "us")
                for number, unit in QUOTED.findall(comment):
                    unit = unit.replace("µs", "us")
                    expect(re.search(rf"(?<![\d.]){re.escape(number)} ?{re.escape(unit)}", printed) is not None,
                           where, f"{shown} prints {number} {unit}, as its comment says",
                           f"the comment `# {comment}` quotes {number} {unit}; the tool printed:\n{r.stdout}")
        elif words[:2] == ["cmake", "--build"] and "--target" in words and "--preset" not in words:
            targets_exist(where, words[words.index("--target") + 1:words.index("--target") + 2])
        elif words[0] == "make" and len(words) > 1:
            targets_exist(where, [w for w in words[1:] if not w.startswith("-")])
        elif "--preset" in words and words[0] in ("cmake", "ctest"):
            preset = words[words.index("--preset") + 1]
            lister = words[:words.index("--preset")] + ["--list-presets"]
            r = run(lister, cwd=root)
            expect(f'"{preset}"' in r.stdout, where, f"{' '.join(lister[:-1])} preset {preset} exists",
                   r.stdout + r.stderr)
        elif words[:3] == ["ctest", "--test-dir", "build"] and "-R" in words:
            name = words[words.index("-R") + 1]
            r = run(["ctest", "--test-dir", build, "-N", "-R", name])
            found = re.search(r"Total Tests: ([1-9]\d*)", r.stdout)
            expect(found is not None, where, f"ctest -R {name} selects a test", r.stdout + r.stderr)
        elif words[0] == "diff" and len(words) >= 3:
            r = run(words, cwd=root)
            expect(r.returncode in (0, 1), where, f"{cmd} runs from the repository root",
                   f"exit {r.returncode}: {r.stderr}")

if failures:
    sys.exit("FAIL: documented commands that do not work as written:\n\n" + "\n\n".join(failures))
if tried < 10:
    sys.exit(f"FAIL: only {tried} documented commands found: did the docs' format change?")
print(f"PASS: {tried} documented commands work")
