#!/usr/bin/env python3
"""Each step's lesson as a diff: the previous step's gemm.cu against this step's, without the
timeline's probes.

    python3 common/scripts/lesson_diff.py            # 01 -> 02, 02 -> 03, ..., 06 -> 07
    python3 common/scripts/lesson_diff.py --step 5   # 04 -> 05 only
    cmake --build build --target lesson-diff         # the same as the first line

The timeline (common/kernel/timeline.cuh, -DLADDER_TIMELINE builds only) records timestamps
from probes that steps 03-07 carry in their kernels; they are no part of any lesson. `diff -I
LADDER_TIMELINE` leaves a probe in wherever it shares a hunk with a real change; this script
takes them out of both files before it compares them:
- every statement that names a LADDER_TIMELINE macro (up to its closing parenthesis, over
  several lines), and the `//` comment lines right above it when the first says "Timeline";
- the declaration of `first_fill`, which only the probes read, and a comment line right above
  it that speaks of the timeline;
- the timeline hook in the registration (`set_timeline` reads as `nullptr`, what steps 01-02
  pass).
The steps come from the ladder_add_step lines of CMakeLists.txt. Exit status 0 (whether or not
the files differ), 2 on a bad argument.
"""
import argparse
import difflib
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def steps():
    cmake = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    return [(int(n), folder) for n, folder in
            re.findall(r"^\s*ladder_add_step\((\d+)\s+(\S+)\s+\w+\)", cmake, re.M)]


def without_probes(lines):
    """The lines of a kernel file with the timeline's probes taken out."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        code = line.split("//", 1)[0]
        if "LADDER_TIMELINE" in line:
            # The comment block right above, when it is the probe's own ("// Timeline ...").
            j = len(out)
            while j > 0 and out[j - 1].lstrip().startswith("//"):
                j -= 1
            if j < len(out) and out[j].lstrip().startswith("// Timeline"):
                del out[j:]
            # The statement, to its closing parenthesis.
            depth = code.count("(") - code.count(")")
            while depth > 0 and i + 1 < len(lines):
                i += 1
                depth += lines[i].count("(") - lines[i].count(")")
            i += 1
            continue
        if re.search(r"\bconst int first_fill\b", code):
            if out and out[-1].lstrip().startswith("//") and "timeline" in out[-1].lower():
                out.pop()
            i += 1
            continue
        if re.match(r"\s*LADDER_REGISTER_", line):
            line = line.replace("set_timeline", "nullptr")
        out.append(line)
        i += 1
    return out


def lesson_diff(before, after, context):
    a = without_probes(open(os.path.join(ROOT, before, "gemm.cu")).read().splitlines())
    b = without_probes(open(os.path.join(ROOT, after, "gemm.cu")).read().splitlines())
    return list(difflib.unified_diff(a, b, f"{before}/gemm.cu", f"{after}/gemm.cu", n=context, lineterm=""))


def main():
    ladder = steps()
    numbers = [n for n, _ in ladder]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--step", type=int, help=f"the step whose lesson to show ({numbers[1]}..{numbers[-1]}): "
                                             "its gemm.cu against the previous step's")
    ap.add_argument("--context", type=int, default=3, help="lines of context (default 3)")
    args = ap.parse_args()
    if args.step is not None and args.step not in numbers[1:]:
        ap.error(f"--step {args.step}: the steps with a previous step are {numbers[1]}..{numbers[-1]}")
    if args.context < 0:
        ap.error("--context must be 0 or more")
    pairs = list(zip(ladder, ladder[1:]))
    for (_, before), (n, after) in pairs:
        if args.step is not None and n != args.step:
            continue
        print(f"==== step {n:02d}: {before}/gemm.cu -> {after}/gemm.cu, without the timeline's probes")
        for line in lesson_diff(before, after, args.context):
            print(line)


if __name__ == "__main__":
    main()
