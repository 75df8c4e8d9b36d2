#!/usr/bin/env python3
"""plot_layouts.py draws every layout picture from ladder-layout's data, and they are real
PNGs; a ladder-layout that fails is reported, not drawn around.

    test_plot_layouts.py LADDER_LAYOUT OUT_DIR
"""
import os
import subprocess
import sys

from png_check import check_png

PICTURES = ("swizzle.png", "ldmatrix_conflicts.png", "wgmma_conflicts.png", "epilogue_conflicts.png",
            "mma_fragment.png", "wgmma_fragment.png", "multicast.png", "tile_order.png")

if len(sys.argv) != 3:
    sys.exit("usage: test_plot_layouts.py LADDER_LAYOUT OUT_DIR")
tool, out = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "..", "common", "scripts", "plot_layouts.py")

for name in PICTURES:
    if os.path.exists(os.path.join(out, name)):
        os.remove(os.path.join(out, name))
run = subprocess.run([sys.executable, script, "--tool", tool, "--out", out], capture_output=True, text=True)
print(run.stdout, run.stderr)
if run.returncode != 0:
    sys.exit(f"FAIL: plot_layouts.py exited {run.returncode}")
for name in PICTURES:
    check_png(os.path.join(out, name))

# Bad arguments for the tool: the script must stop and say why.
run = subprocess.run([sys.executable, script, "--tool", tool, "--out", out, "--", "--cluster", "3"],
                     capture_output=True, text=True)
if run.returncode == 0 or "--cluster" not in run.stderr:
    sys.exit(f"FAIL: a failing ladder-layout was not reported: {run.stderr}")
print("ok: a failing ladder-layout is reported")
