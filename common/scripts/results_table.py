#!/usr/bin/env python3
"""Writes the measured numbers into the docs, from the benchmark CSV and nothing else.

    python3 common/scripts/results_table.py --csv results/h100/bench.csv           # rewrite the docs
    python3 common/scripts/results_table.py --csv results/h100/bench.csv --check   # only compare

Rewrites, between their markers:
- README.md, <!-- ladder-table -->: the line saying where the numbers come from, and in the
  ladder's table (one row per step, the step's number first) the cells of the columns headed
  "TFLOP/s at 4096³" and "× cuBLAS", from the step's default schedule, or from the schedule a
  row names in backticks after the number ("07 `lesson`"); the other cells are prose and stay
  as written;
- results/README.md, <!-- results-table -->: each step's default schedule and the variants
  of its variant files (ladder_add_variant lines of CMakeLists.txt) at the headline sizes;
- in each step folder's README.md and NOTES.md, <!-- step-numbers -->: the headline of the
  step's default schedule and the table of every size and schedule; <!-- step-numbers:
  4096³ 1000×1992×2056 -->: every schedule of the step at the sizes named, in that order (a
  short table for the lesson); <!-- step-numbers: 4096³ 8192³ | cluster2 lesson -->: only
  the schedules named (the part of the CSV's name after the colon, "default" for a name
  without one), in that order; a named schedule with no rows in the CSV is left out, and a
  line under the table says so. Every step folder needs at least one such block.
It prints a diff of every file it changes. It never touches a source file: a step's gemm.cu
says only "Measured: README.md in this folder", so that a benchmark rerun changes no kernel
source (nor the exercise.cu and variants derived from it). Run it after committing a new
bench.csv, so that every number in the docs is one that run measured.
The docs link the CSV's folder (results/h100 for results/h100/bench.csv; --results-dir to
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


def file_variants():
    """(step, name) of every variant file (ladder_add_variant lines of CMakeLists.txt)."""
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    return {(int(n), name) for n, name in re.findall(r"^\s*ladder_add_variant\((\d+)\s+(\w+)\)", text, re.M)}


def main_table(rows, folder):
    """Every step's default schedule and the variants of its variant files (gemm_<name>.cu),
    at the headline sizes; every other row stays in the CSV."""
    defaults = {}
    for r in rows:
        defaults.setdefault(r["step"], r["name"])  # the step's default schedule comes first
    files = file_variants()
    by = {(step, name): cells for (step, name), cells in index(rows).items()
          if name == defaults[step] or (step, name.split(":", 1)[-1]) in files}
    cube4, cube6, cube8 = (4096,) * 3, (6144,) * 3, (8192,) * 3
    lines = [
        f"Measured on {provenance(rows)}: TFLOP/s, and in brackets the speed relative to cuBLAS "
        f"timed in the same process on the same inputs (`{folder}/bench.csv`; plots in "
        f"`{folder}/`).",
        "",
        f"| step | 4096³ | 6144³ | 8192³ | 1000×1992×2056 | LLM shapes, geomean × cuBLAS | {planner_heading(rows)} at 4096³ |",
        "|---|---|---|---|---|---|---|",
    ]
    for (step, name), cells in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1] != defaults[kv[0][0]])):
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
    lines += ["", f"The plots of the same run: `{folder}/tflops_vs_size.png` (every step against cuBLAS "
              f"over the sizes), `{folder}/ladder_4096.png` (every schedule at 4096³)."]
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


def parse_shape(text, path):
    """'4096³' or '1000×1992×2056' (x also accepted) as (M, N, K)."""
    t = text.strip()
    m = re.fullmatch(r"(\d+)³", t)
    if m:
        return (int(m.group(1)),) * 3
    parts = re.split(r"[×x]", t)
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        sys.exit(f"results_table.py: {path}: '{text}' in a step-numbers marker is not a size "
                 "(4096³ or 1000×1992×2056)")
    return tuple(int(p) for p in parts)


def schedule_name(r):
    """The schedule of a row as the short tables show it: the part of its name after the
    colon, "default" for a step without variants."""
    return r["name"].split(":", 1)[1] if ":" in r["name"] else "default"


def short_table(rows, step, shapes, folder, path, names=None):
    """Every schedule of the step at the named sizes (or only the schedules in `names`, in
    that order): the table of a step README's "Predict, then measure" section."""
    mine = [r for r in rows if r["step"] == step]
    if not mine:
        return None
    lines = [f"Measured on {provenance(mine)}, cuBLAS timed in the same process on the same inputs "
             f"(rows of `{folder}/bench.csv`):", "",
             "| M×N×K | schedule | time | TFLOP/s | × cuBLAS | SM MHz |",
             "|---|---|---|---|---|---|"]
    for shape in shapes:
        hits = [r for r in mine if r["shape"] == shape]
        if names is not None:
            hits = [r for name in names for r in hits if schedule_name(r) == name]
        if not hits:
            sys.exit(f"results_table.py: {path}: step {step} has no row at {shape_text(shape)} in the CSV"
                     + (f" for {', '.join(names)}" if names else ""))
        for r in hits:
            time = f"{r['ms'] * 1000:.1f} µs" if r["ms"] < 1 else f"{r['ms']:.2f} ms"
            lines.append(f"| {shape_text(shape)} | {schedule_name(r)} | {time} | {number(r['tflops'])} | "
                         f"{ratio(r['speedup_vs_cublas'])}× | {r['sm_clock_mhz']} |")
    absent = [name for name in names or [] if not any(schedule_name(r) == name for r in mine)]
    if absent:
        lines += ["", "Not in this CSV (no rows of step " + str(step) + "): " +
                  ", ".join(f"`{name}`" for name in absent) + "."]
    return "\n".join(lines)


STEP_BLOCK = re.compile(r"<!-- step-numbers(?::([^>]*))? -->\n.*?<!-- /step-numbers -->", re.S)


def step_blocks(text, rows, step, folder, path):
    """The text with every step-numbers block of one step rewritten, and how many there were."""
    def body(m):
        if m.group(1) is None:
            table = step_table(rows, step, folder)
            begin = "<!-- step-numbers -->"
        else:
            sizes, _, schedules = m.group(1).partition("|")
            shapes = [parse_shape(t, path) for t in sizes.split()]
            table = short_table(rows, step, shapes, folder, path,
                                schedules.split() if schedules.strip() else None)
            begin = f"<!-- step-numbers:{m.group(1)} -->"
        return f"{begin}\n{table}\n<!-- /step-numbers -->"
    return STEP_BLOCK.subn(body, text)


def ladder_cells(text, rows, path):
    """The ladder table of README.md: its "Measured on" line, and in each row of a step the
    cells under "TFLOP/s at 4096³" and "× cuBLAS", from the step's default schedule."""
    lines = text.split("\n")
    columns = None
    for i, line in enumerate(lines):
        if line.startswith("Measured on "):
            lines[i] = (f"Measured on {provenance(rows)}, cuBLAS timed in the same process on the "
                        "same inputs; each step's default schedule at 4096³:")
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "TFLOP/s at 4096³" in cells:
            columns = (cells.index("TFLOP/s at 4096³"), cells.index("× cuBLAS"))
            continue
        step = re.match(r"\[?0?(\d+)\b", cells[0])
        if columns is None or not step:
            continue
        mine = [r for r in rows if r["step"] == int(step.group(1))]
        if not mine:
            sys.exit(f"results_table.py: {path}: the CSV has no rows of step {step.group(1)}")
        # A row that names a schedule in backticks after the step's number ("07 `lesson`")
        # is that schedule's; a row that links the step's folder is its default schedule's.
        named = re.match(r"0?\d+\s+`([\w-]+)`", cells[0])
        default = mine[0]["name"]  # the step's default schedule comes first
        want = (lambda r: schedule_name(r) == named.group(1)) if named else (lambda r: r["name"] == default)
        if named and not any(want(r) for r in mine):
            sys.exit(f"results_table.py: {path}: the CSV has no rows of step {step.group(1)}'s "
                     f"schedule `{named.group(1)}`")
        hit = next((r for r in mine if want(r) and r["shape"] == (4096,) * 3), None)
        cells[columns[0]] = number(hit["tflops"]) if hit else "not timed"
        cells[columns[1]] = f"{ratio(hit['speedup_vs_cublas'])}×" if hit else "–"
        lines[i] = "| " + " | ".join(cells) + " |"
    if columns is None:
        sys.exit(f"results_table.py: {path}: the ladder table has no \"TFLOP/s at 4096³\" column")
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
    ap.add_argument("--csv", required=True, help="the benchmark CSV, e.g. results/h100/bench.csv")
    ap.add_argument("--results-dir", help="the folder the docs link, relative to the repository "
                                          "root (default: the CSV's folder)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file differs")
    args = ap.parse_args()
    # The CSV first: the folder the docs link is worked out from where it is.
    if not os.path.isfile(args.csv):
        sys.exit(f"results_table.py: {args.csv} does not exist (the benchmark CSV, e.g. results/h100/bench.csv)")
    folder = args.results_dir or os.path.relpath(os.path.dirname(os.path.abspath(args.csv)), ROOT)
    if folder.startswith("..") or not os.path.isdir(os.path.join(ROOT, folder)):
        sys.exit(f"results_table.py: {folder} is not a folder of the repository: the docs link the "
                 "CSV and its plots there (commit them under results/<gpu>/, or give --results-dir)")
    folder = folder.replace(os.sep, "/")
    rows = load(args.csv)
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    block = re.search(r"<!-- ladder-table -->\n(.*?)\n<!-- /ladder-table -->", text, re.S)
    if not block:
        sys.exit(f"results_table.py: {readme} has no <!-- ladder-table --> ... <!-- /ladder-table --> markers")
    differ = update(readme, text[:block.start(1)] + ladder_cells(block.group(1), rows, readme) +
                    text[block.end(1):], args.check)
    results = os.path.join(ROOT, "results", "README.md")
    text = replace_between(open(results).read(), "<!-- results-table -->", "<!-- /results-table -->",
                           main_table(rows, folder), results)
    differ |= update(results, text, args.check)
    for step_folder in sorted(d for d in os.listdir(ROOT) if re.match(r"0\d_", d)):
        step = int(step_folder[:2])
        if not any(r["step"] == step for r in rows):
            print(f"no rows for step {step}: {step_folder} left as it is")
            continue
        blocks = 0
        for name in ("README.md", "NOTES.md"):
            path = os.path.join(ROOT, step_folder, name)
            if not os.path.isfile(path):
                continue
            text, n = step_blocks(open(path).read(), rows, step, folder, path)
            blocks += n
            differ |= update(path, text, args.check)
        if not blocks:
            sys.exit(f"results_table.py: {step_folder} has no <!-- step-numbers --> ... "
                     "<!-- /step-numbers --> block in README.md or NOTES.md")
    if args.check and differ:
        sys.exit(f"results_table.py --check: the docs differ from {args.csv} (diff above): run it "
                 "without --check to write them")
    if args.check:
        print(f"ok: the docs match {args.csv}")


if __name__ == "__main__":
    main()
