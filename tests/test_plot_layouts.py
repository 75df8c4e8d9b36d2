#!/usr/bin/env python3
"""plot_layouts.py draws every layout picture from ladder-layout's data, and they are real
PNGs; a ladder-layout that fails is reported, not drawn around, and so are a missing tool or
data folder and a missing matplotlib (one line each). Without matplotlib the checks that need
none run, and the test then skips (exit 77).

    test_plot_layouts.py LADDER_LAYOUT OUT_DIR
"""
import os
import subprocess
import sys

from png_check import check_png, refused, refuses_without_matplotlib, skip_without_matplotlib

PICTURES = ("swizzle.png", "ldmatrix_conflicts.png", "wgmma_conflicts.png", "epilogue_conflicts.png",
            "mma_fragment.png", "wgmma_fragment.png", "multicast.png", "tile_order.png")

if len(sys.argv) != 3:
    sys.exit("usage: test_plot_layouts.py LADDER_LAYOUT OUT_DIR")
tool, out = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "..", "common", "scripts", "plot_layouts.py")


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


# Bad arguments for the tool: the script must stop and say why.
refused(run("--tool", tool, "--out", out, "--", "--cluster", "3"), "--cluster")
refused(run("--tool", os.path.join(out, "no-such-tool"), "--out", out), "is not an executable")
refused(run("--data", os.path.join(out, "no-such-folder"), "--out", out), "is not a folder")
refuses_without_matplotlib(script, "--tool", tool, "--out", out)
print("ok: a failing ladder-layout, a missing tool or folder and a missing matplotlib are reported")

skip_without_matplotlib("drawing the layouts")
for name in PICTURES:
    if os.path.exists(os.path.join(out, name)):
        os.remove(os.path.join(out, name))
result = run("--tool", tool, "--out", out)
print(result.stdout, result.stderr)
if result.returncode != 0:
    sys.exit(f"FAIL: plot_layouts.py exited {result.returncode}")
for name in PICTURES:
    check_png(os.path.join(out, name))
