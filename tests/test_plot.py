#!/usr/bin/env python3
"""The plot script renders the fixture CSV into the two PNGs, and they are real images."""
import os
import subprocess
import sys
import tempfile

from png_check import check_png

here = os.path.dirname(os.path.abspath(__file__))
plot = os.path.join(here, "..", "common", "plot.py")
fixture = os.path.join(here, "fixtures", "bench_small.csv")

with tempfile.TemporaryDirectory() as out:
    run = subprocess.run([sys.executable, plot, "--csv", fixture, "--out", out], capture_output=True, text=True)
    print(run.stdout, run.stderr)
    if run.returncode != 0:
        sys.exit(f"FAIL: plot.py exited {run.returncode}")
    for name in ("tflops_vs_size.png", "ladder_4096.png"):
        check_png(os.path.join(out, name))

    # A CSV without the columns the plots need must be refused with a clear message.
    bad = os.path.join(out, "bad.csv")
    with open(bad, "w") as f:
        f.write("step,name\n1,naive\n")
    run = subprocess.run([sys.executable, plot, "--csv", bad, "--out", out], capture_output=True, text=True)
    if run.returncode == 0 or "missing column" not in run.stderr:
        sys.exit(f"FAIL: a CSV without the needed columns was not refused: {run.stderr}")
    print("ok: bad CSV refused")
