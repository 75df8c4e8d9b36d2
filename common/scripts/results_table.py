#!/usr/bin/env python3
"""Writes the measured numbers into the docs, from the benchmark CSV and nothing else.

    python3 common/scripts/results_table.py --csv results/h200/bench.csv           # rewrite the docs
    python3 common/scripts/results_table.py --csv results/h200/bench.csv --check   # only compare

Rewrites, between their markers, the results table of README.md (<!-- results-table -->)
and, in each step's README.md (<!-- step-numbers -->), the headline of the step's default
schedule and the table of every size and schedule; it prints a diff of every file it
changes. It never touches a source file: a step's gemm.cu says only "Measured: README.md in
this folder", so that a benchmark rerun changes no kernel source (nor the exercise.cu and
variants derived from it). Run it after committing a new bench.csv, so that every number in
the docs is one that run measured.
The docs link the CSV's folder (results/h200 for results/h200/bench.csv; --results-dir to
name another). --check writes nothing and exits 1 when a file differs from what it would
write (a CPU test runs it on the committed results).
"""
import argparse
import difflib
import math
import os
import re
import sys
from collections import defaultdict

from bench_csv import measured_on, read_rows, shape_text

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LLM = [(8192, 4096, 4096), (8192, 14336, 4096), (8192, 4096, 14336), (8192, 28672, 8192)]
ODD = (1000, 1992, 2056)
NEEDED = ["step", "name", "M", "N", "K", "ms", "tflops", "cublas_ms", "cublas_tflops",
          "speedup_vs_cublas", "predicted_tflops", "predicted_limiter", "device", "cuda", "date", "sm_clock_mhz"]


def load(path):
    rows = read_rows(path, "results_table.py", NEEDED, ints=("step",),
                     floats=("ms", "tflops", "cublas_ms", "cublas_tflops", "speedup_vs_cublas",
                             "predicted_tflops"))
    for r in rows:
        r["shape"] = (int(r["M"]), int(r["N"]), int(r["K"]))
    return rows


def provenance(rows):
    devices, cudas, dates = measured_on(rows)
    return f"{', '.join(devices)}, CUDA {', '.join(cudas)}, {', '.join(dates)}"


def index(rows):
    by = defaultdict(dict)  # (step, name) -> shape -> row
    for r in rows:
        by[(r["step"], r["name"])][r["shape"]] = r
    return by


def geomean_llm(cells):
    xs = [cells[s]["speedup_vs_cublas"] for s in LLM if s in cells]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if len(xs) == len(LLM) else None


def number(x):
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2g}"


def ratio(x):
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"


def fmt_cell(cells, shape):
    r = cells.get(shape)
    return f"{number(r['tflops'])} ({ratio(r['speedup_vs_cublas'])}×)" if r else "not timed"


def planner_heading(rows):
    """Older CSVs hold the planner's upper bound, newer ones its prediction."""
    return "planner bound" if any(r["planner_kind"] == "bound" for r in rows) else "predicted"


def planner_cell(r, with_limiter=False):
    if not r or not r["predicted_tflops"]:
        return "not modeled"
    text = f"{'≤ ' if r['planner_kind'] == 'bound' else ''}{r['predicted_tflops']:.0f}"
    return f"{text} ({r['predicted_limiter']})" if with_limiter else text


def main_table(rows, folder):
    by = index(rows)
    cube4, cube6, cube8 = (4096,) * 3, (6144,) * 3, (8192,) * 3
    lines = [
        f"Measured on {provenance(rows)}: TFLOP/s, and in brackets the speed relative to cuBLAS "
        f"timed in the same process on the same inputs (`{folder}/bench.csv`; plots in "
        f"`{folder}/`).",
        "",
        f"| step | 4096³ | 6144³ | 8192³ | 1000×1992×2056 | LLM shapes, geomean × cuBLAS | {planner_heading(rows)} at 4096³ |",
        "|---|---|---|---|---|---|---|",
    ]
    for (step, name), cells in sorted(by.items()):
        g = geomean_llm(cells)
        plan = planner_cell(cells.get(cube4))
        lines.append(f"| {step:02d} {name} | {fmt_cell(cells, cube4)} | {fmt_cell(cells, cube6)} | "
                     f"{fmt_cell(cells, cube8)} | "
                     f"{fmt_cell(cells, ODD)} | {f'{ratio(g)}×' if g else '–'} | "
                     f"{plan} |")
    cub = sorted(r["cublas_tflops"] for r in rows if r["shape"] == cube4)
    if cub:
        lines += ["", f"cuBLAS at 4096³ measured {cub[0]:.0f} to {cub[-1]:.0f} TFLOP/s across the "
                  f"{len(cub)} processes (median {cub[len(cub) // 2]:.0f}). LLM shapes: M = 8192 tokens "
                  "with N×K = 4096×4096, 14336×4096, 4096×14336 and 28672×8192."]
    lines += ["", f"![every step vs cuBLAS over the sizes]({folder}/tflops_vs_size.png)",
              "", f"![the ladder at 4096³]({folder}/ladder_4096.png)"]
    return "\n".join(lines)


def headline(rows, step):
    """The step's default schedule (its first row) at 4096³ and 8192³, and its LLM-shape
    geomean: one line above the step's table."""
    mine = [r for r in rows if r["step"] == step]
    first = mine[0]  # the step's default schedule comes first
    name, cells = first["name"], index(mine)[(step, first["name"])]
    parts = [f"{shape_text(s)} {number(cells[s]['tflops'])} TFLOP/s = "
             f"{ratio(cells[s]['speedup_vs_cublas'])}× cuBLAS"
             for s in [(4096,) * 3, (8192,) * 3] if s in cells]
    g = geomean_llm(cells)
    if g:
        parts.append(f"LLM shapes geomean {ratio(g)}× cuBLAS")
    return f"Default schedule (`{name}`): " + "; ".join(parts) + "."


def step_table(rows, step, folder):
    mine = [r for r in rows if r["step"] == step]
    if not mine:
        return None
    lines = [headline(rows, step), "",
             f"Measured on {provenance(mine)}, cuBLAS timed in the same process on the same inputs "
             f"(rows of `{folder}/bench.csv`):", "",
             f"| M×N×K | schedule | ms | TFLOP/s | cuBLAS TFLOP/s | × cuBLAS | {planner_heading(mine)} | SM MHz |",
             "|---|---|---|---|---|---|---|---|"]
    for r in mine:
        variant = r["name"].split(":", 1)[1] if ":" in r["name"] else "–"
        plan = planner_cell(r, with_limiter=True)
        lines.append(f"| {shape_text(r['shape'])} | {variant} | {r['ms']:.4f} | {r['tflops']:.1f} | "
                     f"{r['cublas_tflops']:.1f} | {ratio(r['speedup_vs_cublas'])} | {plan} | {r['sm_clock_mhz']} |")
    timed = {r["shape"] for r in mine}
    missing = [s for s in [(512,) * 3, (1024,) * 3, (2048,) * 3, (4096,) * 3, (6144,) * 3, (8192,) * 3, ODD] + LLM
               if s not in timed]
    if missing:
        lines += ["", "Not timed on the default sizes (20 runs would exceed the 20 s budget per "
                  "shape): " + ", ".join(shape_text(s) for s in missing) + "."]
    return "\n".join(lines)


def replace_between(text, begin, end, body, path):
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        sys.exit(f"results_table.py: {path} has no {begin} ... {end} markers")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text, count=1)


def update(path, text, check):
    """Writes `text` to `path` when it differs (or, with check, only reports it), printing the
    diff. Returns True when the file differs."""
    old = open(path).read()
    if old == text:
        return False
    name = os.path.relpath(path, ROOT)
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                               f"a/{name}", f"b/{name}"))
    if check:
        print(f"differs: {name}")
    else:
        open(path, "w").write(text)
        print(f"updated {name}")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True, help="the benchmark CSV, e.g. results/h200/bench.csv")
    ap.add_argument("--results-dir", help="the folder the docs link, relative to the repository "
                                          "root (default: the CSV's folder)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file differs")
    args = ap.parse_args()
    # The CSV first: the folder the docs link is worked out from where it is.
    if not os.path.isfile(args.csv):
        sys.exit(f"results_table.py: {args.csv} does not exist (the benchmark CSV, e.g. results/h200/bench.csv)")
    folder = args.results_dir or os.path.relpath(os.path.dirname(os.path.abspath(args.csv)), ROOT)
    if folder.startswith("..") or not os.path.isdir(os.path.join(ROOT, folder)):
        sys.exit(f"results_table.py: {folder} is not a folder of the repository: the docs link the "
                 "CSV and its plots there (commit them under results/<gpu>/, or give --results-dir)")
    folder = folder.replace(os.sep, "/")
    rows = load(args.csv)
    readme = os.path.join(ROOT, "README.md")
    differ = update(readme, replace_between(open(readme).read(), "<!-- results-table -->",
                                            "<!-- /results-table -->", main_table(rows, folder), readme),
                    args.check)
    for step_folder in sorted(d for d in os.listdir(ROOT) if re.match(r"0\d_", d)):
        step = int(step_folder[:2])
        table = step_table(rows, step, folder)
        if table is None:
            print(f"no rows for step {step}: {step_folder} left as it is")
            continue
        path = os.path.join(ROOT, step_folder, "README.md")
        differ |= update(path, replace_between(open(path).read(), "<!-- step-numbers -->",
                                               "<!-- /step-numbers -->", table, path), args.check)
    if args.check and differ:
        sys.exit(f"results_table.py --check: the docs differ from {args.csv} (diff above): run it "
                 "without --check to write them")
    if args.check:
        print(f"ok: the docs match {args.csv}")


if __name__ == "__main__":
    main()
