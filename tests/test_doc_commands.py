#!/usr/bin/env python3
"""Every command line README.md and the EXERCISES.md files give, tried against a build folder:

    test_doc_commands.py <repository root> <build folder>

- `./build/ladder-plan ...` and `./build/ladder-ring ...` run (CPU only) and must exit 0; a
  choice in braces (`--step {3,4,6,7}`) is tried with its first value. `ladder-ring --fault F`
  shows a seeded mistake being caught: it must exit 1 (the fault found), not 0 or 2 (usage).
- `./build/<other> ...` (the executables that need a GPU to do work) must exist, and
  `<other> <documented arguments> --help` must exit 0: the arguments parse and the usage prints.
- `cmake --build build --target T` must name a target of the build (a dry run, -n).
- `ctest --test-dir build -R NAME` must select at least one test.
- `cmake --preset P`, `cmake --build --preset P`, `ctest --preset P` must name a preset of
  CMakePresets.json.
The docs say `build/`; the build folder given here stands in for it.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

root, build = (os.path.abspath(a) for a in sys.argv[1:3])
docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "*", "EXERCISES.md")))

CPU_TOOLS = ("ladder-plan", "ladder-ring")
FENCE = re.compile(r"^```")
CHOICE = re.compile(r"^\{([^,{}]+),[^{}]*\}$")
SPAN = re.compile(r"`([^`\n]+)`")


def command_lines(text):
    """Lines of fenced blocks and inline code spans, comments removed."""
    lines, in_block = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            in_block = not in_block
            continue
        lines += [line] if in_block else SPAN.findall(line)
    out = []
    for line in lines:
        line = re.sub(r"\s#\s.*$", "", line).strip()
        out += [part.strip() for part in re.split(r"&&|;", line) if part.strip()]
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


for doc in docs:
    where = os.path.relpath(doc, root)
    for cmd in command_lines(open(doc, encoding="utf-8").read()):
        try:
            words = shlex.split(cmd)
        except ValueError:
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
            r = run(argv)
            want = 1 if name == "ladder-ring" and "--fault" in args else 0
            expect(r.returncode == want, where, " ".join(["./build/" + name] + argv[1:]), r.stdout + r.stderr)
        elif words[:3] == ["cmake", "--build", "build"] and "--target" in words:
            target = words[words.index("--target") + 1]
            r = run(["cmake", "--build", build, "--target", target, "--", "-n"])
            expect(r.returncode == 0, where, f"target {target} exists", r.stdout + r.stderr)
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

if failures:
    sys.exit("FAIL: documented commands that do not work as written:\n\n" + "\n\n".join(failures))
if tried < 10:
    sys.exit(f"FAIL: only {tried} documented commands found: did the docs' format change?")
print(f"PASS: {tried} documented commands work")
