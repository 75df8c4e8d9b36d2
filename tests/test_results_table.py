#!/usr/bin/env python3
"""results_table.py: --check passes on the committed results, fails (writing nothing) on a CSV
whose numbers the docs do not show (the top README's ladder table, results/README.md, the
step's README), names only README and NOTES.md files then (the kernel sources hold no
measured numbers, so a benchmark rerun never touches a .cu file), and reads CSVs with and
without the reproduction columns (seed, runs, min_ms, max_ms, commit), and names a CSV that is
not there."""
import csv
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, ".."))
script = os.path.join(root, "common", "scripts", "results_table.py")
committed = os.path.join(root, "results", "h100", "bench.csv")
docs = [os.path.join(root, "README.md"), os.path.join(root, "results", "README.md")] + [
    os.path.join(root, d, f) for d in sorted(os.listdir(root)) if d[:2].isdigit()
    for f in ("README.md", "NOTES.md", "gemm.cu") if os.path.isfile(os.path.join(root, d, f))]


def check(csv_path, *extra):
    return subprocess.run([sys.executable, script, "--csv", csv_path, "--check", *extra],
                          capture_output=True, text=True)


def snapshot():
    return {p: open(p).read() for p in docs}


# A CSV that is not there is named, before anything is worked out from where it would be.
r = check(os.path.join(os.sep, "nonexistent.csv"))
if r.returncode == 0 or f"{os.sep}nonexistent.csv does not exist" not in r.stderr or "Traceback" in r.stderr:
    sys.exit(f"FAIL: a missing CSV was not named:\n{r.stderr}")
print("ok: a missing CSV is named")

r = check(committed)
print(r.stdout[-2000:], r.stderr[-2000:])
if r.returncode != 0:
    sys.exit("FAIL: the docs differ from results/h100/bench.csv: run "
             "`python3 common/scripts/results_table.py --csv results/h100/bench.csv` and commit the result")

with open(committed, newline="") as f:
    rows = list(csv.DictReader(f))
fields = list(rows[0].keys())
before = snapshot()
with tempfile.TemporaryDirectory() as tmp:
    # One number changed: --check must say which file differs, and change nothing.
    changed = os.path.join(tmp, "bench.csv")
    hit = next(r for r in rows if r["step"] == "5" and r["M"] == r["N"] == r["K"] == "4096")
    with open(changed, "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows([dict(r, tflops="1.00") if r is hit else r for r in rows])
    r = check(changed, "--results-dir", "results/h100")
    if r.returncode == 0 or "differs: README.md" not in r.stdout:
        sys.exit(f"FAIL: a changed number was not reported in the ladder table by --check:\n{r.stdout}{r.stderr}")
    for doc in ("results/README.md", "05_wgmma/README.md"):
        if f"differs: {doc}" not in r.stdout:
            sys.exit(f"FAIL: the changed step-05 number was not reported in {doc}:\n{r.stdout}")
    sources = [line for line in r.stdout.splitlines() if line.startswith("differs:")
               and not (line.endswith("README.md") or line.endswith("NOTES.md"))]
    if sources:
        sys.exit(f"FAIL: results_table.py would rewrite a file other than a README or NOTES.md: {sources}")
    if snapshot() != before:
        sys.exit("FAIL: --check wrote to the docs")
    print("ok: --check reports a changed number in the READMEs and NOTES.md only, and writes nothing")

    # The ladder table's row of a named schedule ("07 `lesson`") draws from that schedule.
    lesson = os.path.join(tmp, "lesson.csv")
    hit = next(r for r in rows if r["name"].endswith(":lesson") and r["M"] == r["N"] == r["K"] == "4096")
    with open(lesson, "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows([dict(r, tflops="1.00") if r is hit else r for r in rows])
    r = check(lesson, "--results-dir", "results/h100")
    if r.returncode == 0 or "differs: README.md" not in r.stdout or "| 07 `lesson` |" not in r.stdout:
        sys.exit(f"FAIL: a changed number of step 07's lesson kernel was not reported in its ladder row:\n{r.stdout}")
    print("ok: the ladder table's row of a named schedule draws from that schedule")

    # The reproduction columns at the end do not change what is read.
    extended = os.path.join(tmp, "extended.csv")
    with open(extended, "w", newline="") as f:
        w = csv.DictWriter(f, fields + ["seed", "runs", "min_ms", "max_ms", "commit"])
        w.writeheader()
        w.writerows(dict(r, seed="42", runs="20", min_ms=r["ms"], max_ms=r["ms"], commit="abc1234")
                    for r in rows)
    r = check(extended, "--results-dir", "results/h100")
    if r.returncode != 0:
        sys.exit(f"FAIL: a CSV with the reproduction columns was not read:\n{r.stdout}{r.stderr}")
    print("ok: CSVs with and without the reproduction columns read alike")

    # A CSV outside the repository needs to be told which folder the docs link.
    r = check(extended)
    if r.returncode == 0 or "--results-dir" not in r.stderr:
        sys.exit(f"FAIL: a CSV outside the repository was accepted without --results-dir:\n{r.stderr}")
    print("ok: the docs' results folder comes from the CSV or --results-dir")
print("PASS")
