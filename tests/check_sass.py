#!/usr/bin/env python3
"""Checks the machine code (SASS) a step compiled to: the instructions its lesson claims must
be there, and the ones it replaced must not be.

    check_sass.py --cuobjdump PATH --arch sm_90a OBJECT --require HGMMA --forbid HMMA ...
                  [--elf sm_80 --elf sm_90a --ptx sm_80]

With --elf/--ptx, the object must hold exactly those GPU codes (cuobjdump --list-elf and
--list-ptx): the architectures CMake's CUDA_ARCHITECTURES asked for, no more, no fewer.

A pattern matches an instruction's opcode with its modifiers (e.g. "UTMALDG" matches
"UTMALDG.2D", "HMMA.16816.F32.BF16" needs those modifiers). Exit 0 when every --require is
found and no --forbid is, 1 otherwise (with the counts), 2 when cuobjdump fails on an
object, 77 (ctest: skipped, with the reason) when there is no cuobjdump to run: a missing tool
is not a wrong kernel. cuobjdump is looked for at --cuobjdump, then on PATH, then in the bin/
of the pip wheel nvidia-cuda-cuobjdump (site-packages/nvidia/cu13/bin or cu12/bin).

--require-near A,B (--forbid-near A,B): some (no) instruction matching B follows one
matching A within NEAR instructions of the same kernel, e.g. a memory barrier right before
an mbarrier arrive: what a stronger memory-order qualifier compiles to.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

SKIP = 77

OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]*)")


def opcodes(sass_text):
    counts = collections.Counter()
    for line in sass_text.splitlines():
        m = OPCODE.search(line)
        if m:
            counts[m.group(1)] += 1
    return counts


def matches(op, pattern):
    return op == pattern or op.startswith(pattern + ".")


def matching(counts, pattern):
    return sum(n for op, n in counts.items() if matches(op, pattern))


NEAR = 4


def near_pairs(sass_text, first, then):
    """How many instructions matching `then` come at most NEAR instructions after one
    matching `first` (in the order cuobjdump lists them, within one kernel)."""
    found, since_first = 0, None
    for line in sass_text.splitlines():
        if "Function :" in line:
            since_first = None
        m = OPCODE.search(line)
        if not m:
            continue
        op = m.group(1)
        if since_first is not None:
            since_first += 1
            if since_first > NEAR:
                since_first = None
        if since_first is not None and matches(op, then):
            found += 1
        if matches(op, first):
            since_first = 0
    return found


def wheel_bins():
    """The bin/ folders of NVIDIA's pip wheels (nvidia-cuda-cuobjdump and friends)."""
    try:
        import nvidia  # a namespace package: no __file__, only __path__
    except ImportError:
        return []
    return [os.path.join(root, cu, "bin") for root in nvidia.__path__ for cu in ("cu13", "cu12")]


def find_cuobjdump(given):
    """The cuobjdump to run and None, or None and why none was found."""
    if given and os.path.sep in given:
        if os.access(given, os.X_OK):
            return given, None
        return None, f"cuobjdump not found at {given} (LADDER_CUOBJDUMP)"
    found = shutil.which(given or "cuobjdump")
    for folder in [] if found else wheel_bins():
        if os.access(os.path.join(folder, "cuobjdump"), os.X_OK):
            found = os.path.join(folder, "cuobjdump")
            break
    if found:
        return found, None
    return None, ("cuobjdump not found on PATH nor in a pip wheel: install the toolkit's "
                  "cuobjdump, or `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`, "
                  "or configure with -DLADDER_CUOBJDUMP=/path/to/cuobjdump")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("object", nargs="+")
    ap.add_argument("--cuobjdump", default="", help="path or name (default: search, see above)")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--require", action="append", default=[])
    ap.add_argument("--forbid", action="append", default=[])
    ap.add_argument("--require-near", action="append", default=[], metavar="A,B")
    ap.add_argument("--forbid-near", action="append", default=[], metavar="A,B")
    ap.add_argument("--elf", action="append", default=[], help="an architecture the object must hold code for")
    ap.add_argument("--ptx", action="append", default=[], help="an architecture the object must hold PTX for")
    args = ap.parse_args()

    cuobjdump, why_not = find_cuobjdump(args.cuobjdump)
    if cuobjdump is None:
        print(f"SKIP: {why_not}")
        return SKIP
    ok = True
    if args.elf or args.ptx:
        for obj in args.object:
            for kind, want in (("elf", args.elf), ("ptx", args.ptx)):
                listed = subprocess.run([cuobjdump, f"--list-{kind}", obj], capture_output=True, text=True)
                have = sorted(set(re.findall(rf"\.(sm_\w+)\.{'cubin' if kind == 'elf' else 'ptx'}\b",
                                             listed.stdout)))
                match = have == sorted(set(want))
                print(f"{'ok  ' if match else 'FAIL'} {kind} {' '.join(have) or 'none'} (want {' '.join(sorted(set(want))) or 'none'})")
                ok &= match
    text = ""
    for obj in args.object:
        out = subprocess.run([cuobjdump, "--dump-sass", "--gpu-architecture", args.arch, obj],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"FAIL: {cuobjdump} --dump-sass {obj} exited {out.returncode}:\n{out.stderr}")
            return 2
        text += out.stdout

    counts = opcodes(text)
    if not counts:
        print(f"FAIL: no {args.arch} SASS found in {' '.join(args.object)}")
        return 1
    for pattern in args.require:
        n = matching(counts, pattern)
        print(f"{'ok  ' if n else 'FAIL'} require {pattern:24s} found {n}")
        ok &= n > 0
    for pattern in args.forbid:
        n = matching(counts, pattern)
        print(f"{'ok  ' if n == 0 else 'FAIL'} forbid  {pattern:24s} found {n}")
        ok &= n == 0
    for pair, want in [(p, True) for p in args.require_near] + [(p, False) for p in args.forbid_near]:
        first, _, then = pair.partition(",")
        if not then:
            print(f"FAIL: --require-near/--forbid-near take A,B, not '{pair}'")
            return 2
        n = near_pairs(text, first, then)
        good = n > 0 if want else n == 0
        print(f"{'ok  ' if good else 'FAIL'} {'require' if want else 'forbid '} {then} within "
              f"{NEAR} after {first}: found {n}")
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
