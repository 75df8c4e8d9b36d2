#!/usr/bin/env python3
"""The plot script renders the fixture CSV into the three PNGs, and they are real images; what it
cannot plot (no CSV, an empty one, missing columns, no matplotlib) it refuses in one line.
Without matplotlib the checks that need none run, and the test then skips (exit 77)."""
import os
import subprocess
import sys
import tempfile

from png_check import check_png, refused, refuses_without_matplotlib, skip_without_matplotlib

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "common", "scripts"))
plot = os.path.join(here, "..", "common", "scripts", "plot.py")
fixture = os.path.join(here, "fixtures", "bench_small.csv")


def run(*args):
    return subprocess.run([sys.executable, plot, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as out:
    # What the plot target meets before the bench target ran, or after one that wrote no row.
    refused(run("--csv", os.path.join(out, "bench.csv"), "--out", out), "run the bench target first")
    empty = os.path.join(out, "empty.csv")
    open(empty, "w").close()
    refused(run("--csv", empty, "--out", out), "run the bench target first")
    # A CSV without the columns the plots need.
    bad = os.path.join(out, "bad.csv")
    with open(bad, "w") as f:
        f.write("step,name\n1,naive\n")
    refused(run("--csv", bad, "--out", out), "missing column")
    refuses_without_matplotlib(plot, "--csv", fixture, "--out", out)

# The pieces of the charts, checked as data.
import plot as p  # noqa: E402

# Lines join only the square sizes; a square the series lacks is a gap; other shapes are markers.
rows = [{"M": m, "N": n, "K": k} for m, n, k in
        [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (1000, 1992, 2056), (8192, 4096, 14336)]]
x = p.size_axis(rows)
line_x, line_y, marker_x, marker_y = p.size_series(
    {(512, 512, 512): 1.0, (2048, 2048, 2048): 3.0, (8192, 4096, 14336): 5.0}, x)
if line_y != [1.0, None, 3.0] or line_x != [0, 1, 2]:
    sys.exit(f"FAIL: the squares' line must have a gap where not timed: {line_x} {line_y}")
if marker_x != [x[(8192, 4096, 14336)]] or marker_y != [5.0]:
    sys.exit(f"FAIL: the other shapes must be markers only: {marker_x} {marker_y}")
print("ok: squares joined with gaps, other shapes as markers")

# The families of the default benchmark: each shape in exactly the one it was chosen for.
want = {(4096, 4096, 4096): "squares", (1000, 1992, 2056): "odd sizes", (3000, 5000, 2048): "odd sizes",
        (4096, 4096, 1024): "odd sizes", (64, 4096, 4096): "skinny (M or N <= 256)",
        (8192, 128, 8192): "skinny (M or N <= 256)", (8192, 28672, 8192): "LLM projections (M = 8192)",
        (8192, 4096, 4096): "LLM projections (M = 8192)"}
for s, fam in want.items():
    if p.family(s) != fam:
        sys.exit(f"FAIL: {s} is in family {p.family(s)!r}, not {fam!r}")
print("ok: the four families")

# Step 01's bar reads as a number, not as 0.
text = p.bar_text(0.5, 0.5 / 740)
if "0.5\n" not in text or "0.00068×" not in text:
    sys.exit(f"FAIL: step 01's label must keep its digits: {text!r}")
if p.bar_text(728.4, 0.9843) != "728\n0.98×":
    sys.exit(f"FAIL: {p.bar_text(728.4, 0.9843)!r}")
print("ok: bar labels keep two significant digits")

# A label wider than its bar goes above it, never inside, and never across the cuBLAS line.
if p.fits_inside(50, 60) or not p.fits_inside(40, 60):
    sys.exit("FAIL: fits_inside must want a tenth of the bar free on each side")
for cublas in (100.0, 740.0):
    for height in (300.0, 735.0):
        ymax = max(height, cublas) * 1.2
        y, inside = p.bar_label_place(height, cublas, ymax, inside_allowed=False)
        if inside or y < height or y <= cublas <= y + p.LABEL_HEIGHT * ymax:
            sys.exit(f"FAIL: a label too wide for bar {height} (cuBLAS {cublas}) placed at {y}, inside={inside}")
print("ok: a label too wide for its bar goes above it")

# No bar label crosses the cuBLAS line.
for cublas in (5.0, 100.0, 600.0, 740.0):
    for height in (0.5, 10.0, 90.0, 100.0, 104.0, 300.0, 590.0, 735.0, 760.0):
        ymax = max(height, cublas) * 1.2
        y, inside = p.bar_label_place(height, cublas, ymax)
        top = y + p.LABEL_HEIGHT * ymax
        if y <= cublas <= top or (inside and top > height) or (not inside and y < height):
            sys.exit(f"FAIL: bar {height}, cuBLAS {cublas}: label from {y} to {top} (inside={inside})")
print("ok: bar labels stay clear of the cuBLAS line and inside or above their bar")

skip_without_matplotlib("drawing the PNGs")
# The `bench` target's CSV (--sizes short --variants compared, cli.cpp): a few rows a family,
# step 01 missing where the short set's budget leaves it out. Taken from the committed H200
# run; then the least a CSV can hold: one row at 4096^3.
SHORT = {(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
         (1000, 1992, 2056), (64, 4096, 4096), (4096, 64, 4096), (8192, 4096, 4096)}
COMPARED = {"naive", "cp_async_mma_sync", "cp_async_mma_sync:pipeline", "tma_single_stage",
            "tma_single_stage:barrier", "tma_single_stage:bulk1d", "tma_multistage", "wgmma",
            "warp_specialized:cooperative", "warp_specialized:pingpong", "clusters_multicast:cluster2",
            "clusters_multicast:cluster1"}
committed = os.path.join(here, "..", "results", "h200", "bench.csv")
with open(committed) as f:
    lines = f.read().splitlines()
header = lines[0].split(",")
at = {c: header.index(c) for c in ("step", "name", "M", "N", "K")}
short_rows = []
for line in lines[1:]:
    cells = line.split(",")
    s = tuple(int(cells[at[c]]) for c in ("M", "N", "K"))
    if s in SHORT and cells[at["name"]] in COMPARED and not (cells[at["step"]] == "1" and s[0] == 8192):
        short_rows.append(line)
with tempfile.TemporaryDirectory() as out:
    for name, rows in (("short", short_rows),
                       ("one_row", [r for r in short_rows if ",clusters_multicast:cluster2,4096,4096,4096," in r])):
        path = os.path.join(out, name + ".csv")
        with open(path, "w") as f:
            f.write("\n".join([lines[0]] + rows) + "\n")
        proc = subprocess.run([sys.executable, plot, "--csv", path, "--out", os.path.join(out, name)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"FAIL: plot.py on the {name} CSV ({len(rows)} rows) exited {proc.returncode}: {proc.stderr}")
        for png in ("tflops_vs_size.png", "ladder_4096.png", "families.png"):
            check_png(os.path.join(out, name, png))
        print(f"ok: the {name} CSV ({len(rows)} rows) plots")

with tempfile.TemporaryDirectory() as out:
    result = run("--csv", fixture, "--out", out)
    print(result.stdout, result.stderr)
    if result.returncode != 0:
        sys.exit(f"FAIL: plot.py exited {result.returncode}")
    for name in ("tflops_vs_size.png", "ladder_4096.png", "families.png"):
        check_png(os.path.join(out, name))
