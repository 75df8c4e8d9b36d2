#!/usr/bin/env python3
"""Plots the ladder's benchmark CSV (the rows the step executables write).

    python3 common/scripts/plot.py --csv results/h100/bench.csv --out results/h100

Writes three PNGs that read without the README:
  tflops_vs_size.png  TFLOP/s of every step and of cuBLAS over the benchmark sizes
  ladder_4096.png     the ladder at 4096^3 as bars, each labelled with its speed vs cuBLAS
  families.png        the top step's default schedule, one chart per family of shapes
                      (squares, odd, skinny, LLM), measured beside the planner's prediction
                      and cuBLAS
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

from bench_csv import measured_on, need_pyplot, pyplot, shape_text
from bench_csv import read_rows as read_csv

plt = pyplot()  # files only, no display; None without matplotlib (main() then says so)

NEEDED = ["step", "name", "M", "N", "K", "tflops", "cublas_tflops", "speedup_vs_cublas",
          "predicted_tflops", "device", "cuda", "date"]
# The LLM projections of the default benchmark (M = 8192 tokens): N x K.
LLM_NK = {(4096, 4096), (14336, 4096), (4096, 14336), (28672, 8192)}


def read_rows(path):
    return read_csv(path, "plot.py", NEEDED, ints=("step", "M", "N", "K"),
                    floats=("tflops", "cublas_tflops", "speedup_vs_cublas", "predicted_tflops"),
                    hint=" (run the bench target first)")


def label(r):
    return f"{r['step']:02d} {r['name']}"


def shape(r):
    return (r["M"], r["N"], r["K"])


def subtitle(rows):
    devices, cudas, dates = measured_on(rows)
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    return f"{', '.join(devices)} · CUDA {', '.join(cudas)} · {when} · bf16 in, fp32 accumulate"


def is_square(s):
    return s[0] == s[1] == s[2]


def size_axis(rows):
    """The x positions: the square sizes in order, then the other shapes in order of work."""
    shapes = sorted({shape(r) for r in rows},
                    key=lambda s: (not is_square(s), s[0] * s[1] * s[2]))
    return {s: i for i, s in enumerate(shapes)}


def size_series(points, x):
    """One series' {shape: TFLOP/s} as (line_x, line_y, marker_x, marker_y). Only the square
    sizes are a line: they are one family, growing in size. A square size the series was not
    timed on is a gap (None), never bridged. The other shapes are unrelated to each other and
    to the squares: markers only."""
    squares = [s for s in sorted(x, key=x.get) if is_square(s)]
    line_x = [x[s] for s in squares]
    line_y = [points.get(s) for s in squares]
    others = [s for s in sorted(points, key=x.get) if not is_square(s)]
    return line_x, line_y, [x[s] for s in others], [points[s] for s in others]


def draw_series(ax, points, x, **style):
    line_x, line_y, marker_x, marker_y = size_series(points, x)
    nan = float("nan")
    (line,) = ax.plot(line_x, [nan if y is None else y for y in line_y], marker="o", **style)
    ax.plot(marker_x, marker_y, linestyle="none", marker=line.get_marker(), color=line.get_color(),
            markersize=line.get_markersize())


def plot_sizes(rows, out):
    x = size_axis(rows)
    shapes = sorted(x, key=x.get)
    fig, ax = plt.subplots(figsize=(11, 6))
    by_step = defaultdict(dict)
    for r in rows:
        by_step[label(r)][shape(r)] = r["tflops"]
    for name in sorted(by_step):
        draw_series(ax, by_step[name], x, label=name)
    # cuBLAS was timed in every step's process: show the median of those measurements.
    cublas = defaultdict(list)
    for r in rows:
        cublas[shape(r)].append(r["cublas_tflops"])
    draw_series(ax, {s: statistics.median(v) for s, v in cublas.items()}, x, color="k",
                linestyle="--", linewidth=2, label="cuBLAS (median of its runs)")
    squares = sum(1 for s in shapes if is_square(s))
    if 0 < squares < len(shapes):
        ax.axvline(squares - 0.5, color="grey", linewidth=1)
        ax.text(squares - 0.45, 1.0, "other shapes: markers only", transform=ax.get_xaxis_transform(),
                va="top", fontsize=8, color="grey")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([shape_text(s) for s in shapes], rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("TFLOP/s (log scale)")
    ax.set_xlabel("problem M×N×K (squares joined by lines; a gap: not timed)")
    ax.set_title("bf16 GEMM C = A·Bᵀ: every step of the ladder vs cuBLAS\n" + subtitle(rows), fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path = os.path.join(out, "tflops_vs_size.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def significant(value):
    """A number that never reads as 0: whole numbers from 10 on, else two significant digits."""
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def bar_text(tflops, speedup):
    """TFLOP/s over × cuBLAS; the axis label says what the two lines are, so that the label
    stays about as narrow as a bar of a 16-bar chart."""
    speed = f"{speedup:.2f}" if speedup >= 0.1 else significant(speedup)
    return f"{significant(tflops)}\n{speed}×"


def fits_inside(label_width, bar_width):
    """Whether a label (its drawn width, in the bar's units) fits across the bar, with a
    margin of a tenth of the bar on each side."""
    return label_width <= 0.8 * bar_width


LABEL_HEIGHT = 0.12  # a two-line label at fontsize 8, as a fraction of the y range (6 in tall)


def bar_label_place(height, cublas, ymax, inside_allowed=True):
    """Where a bar's label goes: (y of its bottom edge, inside the bar?). Tall bars carry it
    inside at their base (unless inside_allowed is False: a label wider than its bar), short
    ones above their top, moved above the cuBLAS line when it would cross it."""
    label = LABEL_HEIGHT * ymax
    base = 0.02 * ymax
    if inside_allowed and height >= 2 * label and not base <= cublas <= base + label:
        return base, True
    y = height + 0.01 * ymax
    if y <= cublas <= y + label:
        y = cublas + 0.01 * ymax
    return y, False


def plot_ladder(rows, out, size=4096):
    at = [r for r in rows if shape(r) == (size, size, size)]
    if not at:
        sys.exit(f"plot.py: no rows at {size}x{size}x{size} for the ladder chart")
    at.sort(key=lambda r: (r["step"], r["name"]))
    cublas = statistics.median(r["cublas_tflops"] for r in at)
    fig, ax = plt.subplots(figsize=(11, 6))
    names = [label(r) for r in at]
    bars = ax.bar(range(len(at)), [r["tflops"] for r in at], color="tab:blue")
    ax.axhline(cublas, color="k", linestyle="--", label=f"cuBLAS {cublas:.0f} TFLOP/s (median of its runs)")
    ymax = max(max(r["tflops"] for r in at), cublas) * 1.2
    labels = []
    for bar, r in zip(bars, at):
        y, inside = bar_label_place(r["tflops"], cublas, ymax)
        # The ratio from the row's TFLOP/s columns: the speed-up column's 3 decimals round
        # step 01 to 0.001.
        speedup = r["tflops"] / r["cublas_tflops"] if r["cublas_tflops"] > 0 else r["speedup_vs_cublas"]
        text = ax.annotate(bar_text(r["tflops"], speedup),
                           (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom", fontsize=8,
                           color="white" if inside else "black")
        labels.append((text, bar, r["tflops"], inside))
    ax.set_xticks(range(len(at)))
    ax.set_xticklabels(names, rotation=20, ha="right")
    ax.set_ylabel("TFLOP/s (bar labels: TFLOP/s, and × cuBLAS below it)")
    ax.set_ylim(0, ymax)
    ax.set_title(f"The ladder at {size}³ (speed vs cuBLAS timed in the same process)\n" + subtitle(at),
                 fontsize=11)
    ax.legend(loc="upper left")
    fig.tight_layout()
    # A label wider than its bar (many schedules, a narrow chart) goes above the bar, in black,
    # instead of spilling over the bars beside it.
    renderer = fig.canvas.get_renderer()
    for text, bar, height, inside in labels:
        if inside and not fits_inside(text.get_window_extent(renderer).width, bar.get_window_extent(renderer).width):
            y, _ = bar_label_place(height, cublas, ymax, inside_allowed=False)
            text.xy = (text.xy[0], y)
            text.set_color("black")
    path = os.path.join(out, f"ladder_{size}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def family(s):
    """The benchmark's four families of shapes (common/harness/cli.cpp, default_bench_shapes)."""
    m, n, k = s
    if m == n == k:
        return "squares"
    if m == 8192 and (n, k) in LLM_NK:
        return "LLM projections (M = 8192)"
    if min(m, n) <= 256:
        return "skinny (M or N <= 256)"
    return "odd sizes"


FAMILIES = ["squares", "odd sizes", "skinny (M or N <= 256)", "LLM projections (M = 8192)"]


def plot_families(rows, out):
    """The top step's default schedule (its first row name) on every shape, one panel per
    family: measured TFLOP/s, the planner's prediction beside it, and cuBLAS's."""
    top = max(r["step"] for r in rows)
    default = next(r["name"] for r in rows if r["step"] == top)
    mine = {shape(r): r for r in rows if r["step"] == top and r["name"] == default}
    present = [f for f in FAMILIES if any(family(s) == f for s in mine)]
    fig, axes = plt.subplots(1, len(present), figsize=(4 + 3.2 * len(present), 5.5), squeeze=False)
    for ax, fam in zip(axes[0], present):
        shapes = sorted((s for s in mine if family(s) == fam), key=lambda s: s[0] * s[1] * s[2])
        xs = range(len(shapes))
        width = 0.27
        ax.bar([x - width for x in xs], [mine[s]["tflops"] for s in shapes], width,
               color="tab:blue", label=f"{top:02d} {default}, measured")
        ax.bar(list(xs), [mine[s]["predicted_tflops"] for s in shapes], width, color="none",
               edgecolor="tab:blue", hatch="//", label="planner's prediction")
        ax.bar([x + width for x in xs], [mine[s]["cublas_tflops"] for s in shapes], width,
               color="0.35", label="cuBLAS, same process")
        for x, s in zip(xs, shapes):
            r = mine[s]
            ax.annotate(f"{r['tflops'] / r['cublas_tflops']:.2f}×", (x - width, r["tflops"]),
                        ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([shape_text(s) for s in shapes], rotation=30, ha="right", fontsize=8)
        ax.set_title(fam, fontsize=10)
        ax.set_ylabel("TFLOP/s")
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=3)
    fig.suptitle(f"Step {top:02d} ({default}) by family of shapes: measured, predicted, cuBLAS "
                 f"(× = measured / cuBLAS)\n" + subtitle(list(mine.values())), fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = os.path.join(out, "families.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description="Plot the ladder's benchmark CSV.")
    ap.add_argument("--csv", required=True, help="bench.csv written by the step executables")
    ap.add_argument("--out", required=True, help="folder for the PNGs")
    args = ap.parse_args()
    if not os.path.exists(args.csv):
        sys.exit(f"plot.py: {args.csv} does not exist (run the bench target first)")
    rows = read_rows(args.csv)
    need_pyplot(plt, "plot.py")
    os.makedirs(args.out, exist_ok=True)
    for path in (plot_sizes(rows, args.out), plot_ladder(rows, args.out), plot_families(rows, args.out)):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
