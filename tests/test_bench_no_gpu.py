#!/usr/bin/env python3
"""The bench target (common/scripts/bench.cmake) on a machine without a GPU that runs the steps:
one line saying that the benchmark needs a Hopper GPU and naming what was built, exit status 0,
nothing measured (no bench.csv). Exit 77 (skipped) where the last step runs here: there the
script would benchmark, which is no test.

    test_bench_no_gpu.py <repository root> <cmake> <step-1 executable> ... <step-7 executable>
"""
import os
import subprocess
import sys
import tempfile

root, cmake, *steps = sys.argv[1:]
probe = subprocess.run([steps[-1], "--check", "--m", "64", "--n", "64", "--k", "64", "--seed", "1"],
                       capture_output=True, text=True)
if probe.returncode != 77:
    print(f"SKIP: {os.path.basename(steps[-1])} runs here (exit {probe.returncode}): the bench target would measure")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    csv = os.path.join(tmp, "bench.csv")
    r = subprocess.run([cmake, f"-DSTEPS={','.join(steps)}", f"-DCSV={csv}", f"-DOUT={tmp}", f"-DPYTHON={sys.executable}",
                        f"-DPLOT={os.path.join(root, 'common', 'scripts', 'plot.py')}",
                        "-DBUILT=step-1, step-7 in build", "-DARGS=--sizes,short,--variants,compared",
                        "-P", os.path.join(root, "common", "scripts", "bench.cmake")], capture_output=True, text=True)
    said = (r.stdout + r.stderr).strip().splitlines()
    print("\n".join(said))
    ok = (r.returncode == 0 and len(said) == 1
          and said[0].startswith("bench: nothing measured: the benchmark needs a Hopper GPU (H100 or H200, sm_90a)")
          and said[0].endswith("Built: step-1, step-7 in build") and not os.path.exists(csv))
    if not ok:
        sys.exit(f"FAIL: without a GPU the bench script must print one line and exit 0 (exit {r.returncode})")

    # A failure that is not "no GPU" still fails: a step that cannot run at all.
    r = subprocess.run([cmake, f"-DSTEPS={os.path.join(tmp, 'no-such-step')}", f"-DCSV={csv}", f"-DOUT={tmp}",
                        "-DBUILT=nothing", "-P", os.path.join(root, "common", "scripts", "bench.cmake")],
                       capture_output=True, text=True)
    if r.returncode == 0 or "bench:" not in r.stderr:
        sys.exit(f"FAIL: a step that does not run must fail the bench script: exit {r.returncode} {r.stderr}")
print("PASS: without a GPU the bench target says so in one line and exits 0")
