#!/usr/bin/env python3
"""Plots the ladder's benchmark CSV (the rows the step executables write).

    python3 common/plot.py --csv results/h100/bench.csv --out results/h100

Writes two PNGs that read without the README:
  tflops_vs_size.png  TFLOP/s of every step and of cuBLAS over the benchmark sizes
  ladder_4096.png     the ladder at 4096^3 as bars, each labelled with its speed vs cuBLAS
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from bench_csv import measured_on, shape_text  # noqa: E402
from bench_csv import read_rows as read_csv  # noqa: E402

NEEDED = ["step", "name", "M", "N", "K", "tflops", "cublas_tflops", "speedup_vs_cublas",
          "device", "cuda", "date"]


def read_rows(path):
    return read_csv(path, "plot.py", NEEDED, ints=("step", "M", "N", "K"),
                    floats=("tflops", "cublas_tflops", "speedup_vs_cublas"))


def label(r):
    return f"{r['step']:02d} {r['name']}"


def shape(r):
    return (r["M"], r["N"], r["K"])


def subtitle(rows):
    devices, cudas, dates = measured_on(rows)
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    return f"{', '.join(devices)} · CUDA {', '.join(cudas)} · {when} · bf16 in, fp32 accumulate"


def plot_sizes(rows, out):
    # Squares in size order first, then the other shapes in order of their work.
    shapes = sorted({shape(r) for r in rows},
                    key=lambda s: (not (s[0] == s[1] == s[2]), s[0] * s[1] * s[2]))
    x = {s: i for i, s in enumerate(shapes)}
    fig, ax = plt.subplots(figsize=(11, 6))
    by_step = defaultdict(list)
    for r in rows:
        by_step[label(r)].append(r)
    for name in sorted(by_step):
        pts = sorted(by_step[name], key=lambda r: x[shape(r)])
        ax.plot([x[shape(r)] for r in pts], [r["tflops"] for r in pts], marker="o", label=name)
    # cuBLAS was timed in every step's process: show the median of those measurements.
    cublas = defaultdict(list)
    for r in rows:
        cublas[shape(r)].append(r["cublas_tflops"])
    ax.plot([x[s] for s in shapes], [statistics.median(cublas[s]) for s in shapes], "k--",
            marker="s", linewidth=2, label="cuBLAS (median of its runs)")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([shape_text(s) for s in shapes], rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("TFLOP/s (log scale)")
    ax.set_xlabel("problem M×N×K")
    ax.set_title("bf16 GEMM C = A·Bᵀ: every step of the ladder vs cuBLAS\n" + subtitle(rows), fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path = os.path.join(out, "tflops_vs_size.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


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
    for bar, r in zip(bars, at):
        ax.annotate(f"{r['tflops']:.0f}\n{r['speedup_vs_cublas']:.2f}× cuBLAS",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(at)))
    ax.set_xticklabels(names, rotation=20, ha="right")
    ax.set_ylabel("TFLOP/s")
    ax.set_ylim(0, max(max(r["tflops"] for r in at), cublas) * 1.2)
    ax.set_title(f"The ladder at {size}³ (speed vs cuBLAS timed in the same process)\n" + subtitle(at),
                 fontsize=11)
    ax.legend(loc="upper left")
    fig.tight_layout()
    path = os.path.join(out, f"ladder_{size}.png")
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
    os.makedirs(args.out, exist_ok=True)
    rows = read_rows(args.csv)
    for path in (plot_sizes(rows, args.out), plot_ladder(rows, args.out)):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
