#!/usr/bin/env python3
"""-DLADDER_ONLY_STEPS builds any subset of the steps:

    test_only_steps.py <repository root> <cmake> <CUDA compiler> [generator]

A step includes the headers of the steps before it (05's wgmma.cuh, 04's pipeline.cuh) from
their folders, whether those steps are built or not. For the subsets "5;7" (the documented
example) and "7", the test configures a scratch build (no tests, compile_commands.json on)
and runs the preprocessor (nvcc -M, the real compile command otherwise) on every step source
the build would compile, which fails exactly as the compile would on a header that is not on
the include path, in well under a minute instead of the minutes a full compile of the subset
takes. It also checks that the subset's steps, and only they, are compiled.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

root, cmake, nvcc = sys.argv[1:4]
root = os.path.abspath(root)
generator = sys.argv[4] if len(sys.argv) > 4 else "Ninja"
cmake_text = open(os.path.join(root, "CMakeLists.txt")).read()
folders = {int(n): f for n, f in re.findall(r"^\s*ladder_add_step\((\d+)\s+(\S+)\s+\w+\)", cmake_text, re.M)}


def preprocess_command(entry):
    """The compile command of a compile_commands.json entry, made to preprocess only."""
    args, out, skip = shlex.split(entry["command"]), [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT"):
            skip = True
        elif a in ("-c", "-MD", "-MMD") or a.startswith(("-MF", "-MT")):
            continue
        else:
            out.append(a)
    return out + ["-M", "-o", os.devnull]


failures = []
for subset in ("5;7", "7"):
    wanted = {int(n) for n in subset.split(";")}
    with tempfile.TemporaryDirectory() as build:
        r = subprocess.run([cmake, "-S", root, "-B", build, "-G", generator, "-DCMAKE_BUILD_TYPE=Release",
                            f"-DCMAKE_CUDA_COMPILER={nvcc}", f"-DLADDER_ONLY_STEPS={subset}",
                            "-DLADDER_BUILD_TESTS=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"LADDER_ONLY_STEPS={subset}: configure failed:\n{r.stdout[-1500:]}{r.stderr[-1500:]}")
            continue
        entries = json.load(open(os.path.join(build, "compile_commands.json")))
        compiled = {n for n, f in folders.items()
                    if any(os.path.normpath(e["file"]).startswith(os.path.join(os.path.normpath(root), f) + os.sep)
                           for e in entries)}
        if compiled != wanted:
            failures.append(f"LADDER_ONLY_STEPS={subset}: compiles the steps {sorted(compiled)}")
        steps = [e for e in entries if any(
            os.path.normpath(e["file"]).startswith(os.path.join(os.path.normpath(root), folders[n]) + os.sep)
            for n in wanted)]
        for e in steps:
            p = subprocess.run(preprocess_command(e), cwd=e["directory"], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append(f"LADDER_ONLY_STEPS={subset}: {os.path.relpath(e['file'], root)} does not "
                                f"compile (its headers):\n{p.stderr[-1500:]}")
        print(f"ok: LADDER_ONLY_STEPS={subset} configures; {len(steps)} step sources of steps "
              f"{sorted(wanted)} find their headers")
if failures:
    sys.exit("FAIL: " + "\n".join(failures))
print("PASS")
