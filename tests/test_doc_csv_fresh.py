#!/usr/bin/env python3
"""The measured blocks of the docs describe the code as it is:

    test_doc_csv_fresh.py <repository root> [CSV]

The docs' tables are generated from one CSV (results/h100/bench.csv unless another is given;
common/scripts/results_table.py). Each of its rows names, in its `commit` column, the commit
the benchmark was built from (`git describe --always --dirty`, so possibly `<hash>-dirty`).
For every step with rows, the test finds the last commit that touched the step's kernel
sources (gemm*.cu in the step's folder, every .cu in a folder below it, such as a module's
<name>/<name>.cu, and *.cuh and *.h in the step's folder and below it; not README.md, EXERCISES.md,
NOTES.md or exercise.cu, which change no measured code) and fails when a row's commit is neither that
commit nor a descendant of it, unless those sources are the same at the row's commit as at
HEAD (a change undone): the row measured older code than the docs describe, and the
benchmark (`cmake --build build --target bench-all`) must be run again and the docs
regenerated. A row whose commit is not in the history (a rewritten or foreign hash) fails too.
It skips, saying why, where there is no git history to ask (not a git checkout, or a shallow
clone that lacks the commits).
Before it reads the CSV, the check must reject a stale sample in a scratch repository.
"""
import csv
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77  # ctest's SKIP_RETURN_CODE for this test (tests/CMakeLists.txt)
SOURCE = re.compile(r"^(gemm[^/]*\.cu|[^/]*\.cuh|[^/]*\.h)$")  # in the step's folder
MODULE_SOURCE = re.compile(r"^[^/]+/(.+/)?[^/]*\.cu$")  # any .cu below it


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def kernel_sources(root, folder):
    """The step's kernel sources, in its folder and any folder below it."""
    found = []
    for p in glob.glob(os.path.join(root, folder, "**", "*"), recursive=True):
        below = os.path.relpath(p, os.path.join(root, folder)).replace(os.sep, "/")
        if SOURCE.match(os.path.basename(p)) or MODULE_SOURCE.match(below):
            found.append(os.path.relpath(p, root))
    return sorted(found)


def last_change(root, paths):
    r = git(root, "log", "-1", "--format=%H", "--", *paths)
    return r.stdout.strip() if r.returncode == 0 else ""


def stale_rows(root, rows, folders):
    """(step, commit, last change) of each step whose rows are older than its kernel sources."""
    out, seen = [], {}
    for row in rows:
        step = int(row["step"])
        commit = row.get("commit", "").strip()
        key = (step, commit)
        if key in seen or step not in folders:
            continue
        seen[key] = True
        last = last_change(root, kernel_sources(root, folders[step]))
        base = commit[:-len("-dirty")] if commit.endswith("-dirty") else commit
        if not base or not re.fullmatch(r"[0-9a-f]{7,40}", base):
            out.append((step, commit or "(none)", last, "the row names no commit"))
            continue
        full = git(root, "rev-parse", "--verify", "--quiet", base + "^{commit}")
        if full.returncode != 0:
            out.append((step, commit, last, "the commit is not in this history"))
            continue
        sources = kernel_sources(root, folders[step])
        unchanged = git(root, "diff", "--quiet", full.stdout.strip(), "HEAD", "--", *sources).returncode == 0
        if last and not unchanged and \
                git(root, "merge-base", "--is-ancestor", last, full.stdout.strip()).returncode != 0:
            out.append((step, commit, last, "the step's kernel sources changed after it"))
    return out


def self_test():
    """A scratch repository: a CSV row of the first commit is stale once the step's gemm.cu
    changes, or a module's kernel file below the step's folder; stays fresh when only its README
    or exercise.cu changes, and a `-dirty` hash reads as its hash."""
    with tempfile.TemporaryDirectory() as tmp:
        def run(*args):
            subprocess.run(["git", "-C", tmp, *args], check=True, capture_output=True)
        run("init", "-q")
        run("config", "user.email", "t@example.com")
        run("config", "user.name", "t")
        os.makedirs(os.path.join(tmp, "01_a", "mod"))
        for name in ("gemm.cu", "README.md", "exercise.cu", os.path.join("mod", "mod.cu")):
            open(os.path.join(tmp, "01_a", name), "w").write("x\n")
        run("add", "-A")
        run("commit", "-qm", "one")
        first = git(tmp, "rev-parse", "--short", "HEAD").stdout.strip()
        rows = [{"step": "1", "commit": first + "-dirty"}]
        open(os.path.join(tmp, "01_a", "README.md"), "w").write("y\n")
        open(os.path.join(tmp, "01_a", "exercise.cu"), "w").write("y\n")
        run("commit", "-qam", "docs only")
        assert not stale_rows(tmp, rows, {1: "01_a"}), "a change of the README or exercise.cu made the row stale"
        open(os.path.join(tmp, "01_a", "mod", "mod.cu"), "w").write("y\n")
        run("commit", "-qam", "module")
        assert stale_rows(tmp, rows, {1: "01_a"}), "a change of a module's kernel file left the row fresh"
        open(os.path.join(tmp, "01_a", "mod", "mod.cu"), "w").write("x\n")
        run("commit", "-qam", "module undone")
        open(os.path.join(tmp, "01_a", "gemm.cu"), "w").write("y\n")
        run("commit", "-qam", "code")
        assert stale_rows(tmp, rows, {1: "01_a"}), "a change of gemm.cu left the row fresh"
        open(os.path.join(tmp, "01_a", "gemm.cu"), "w").write("x\n")
        run("commit", "-qam", "code undone")
        assert not stale_rows(tmp, rows, {1: "01_a"}), "a change undone made the row stale"
        open(os.path.join(tmp, "01_a", "gemm.cu"), "w").write("z\n")
        run("commit", "-qam", "code again")
        assert stale_rows(tmp, [{"step": "1", "commit": "0123abc"}], {1: "01_a"}), \
            "a commit outside the history passed"
        head = git(tmp, "rev-parse", "--short", "HEAD").stdout.strip()
        assert not stale_rows(tmp, [{"step": "1", "commit": head}], {1: "01_a"}), "a fresh row failed"


def main():
    root = os.path.abspath(sys.argv[1])
    csv_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "results", "h100", "bench.csv")
    if not shutil.which("git") or git(root, "rev-parse", "--git-dir").returncode != 0:
        print("SKIP: not a git checkout: the rows' commits cannot be compared with the history")
        sys.exit(SKIP)
    if git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        print("SKIP: a shallow clone: the history that says which commit is older is not here "
              "(git fetch --unshallow to run this test)")
        sys.exit(SKIP)
    self_test()
    cmake = open(os.path.join(root, "CMakeLists.txt")).read()
    folders = {int(n): f for n, f in re.findall(r"^\s*ladder_add_step\((\d+)\s+(\S+)\s+\w+\)", cmake, re.M)}
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "commit" not in rows[0]:
        sys.exit(f"FAIL: {csv_path} has no rows with a commit column")
    stale = stale_rows(root, rows, folders)
    if stale:
        sys.exit(f"FAIL: rows of {os.path.relpath(csv_path, root)} are older than the code their step's docs "
                 "describe; run the benchmark again (cmake --build build --target bench-all), copy it "
                 "into results/h100/ and regenerate the docs (python3 common/scripts/results_table.py "
                 "--csv results/h100/bench.csv):\n" +
                 "\n".join(f"  step {s}: rows of {c}; {why} (last change of {folders[s]}'s kernel "
                           f"sources: {last[:12] or 'none'})" for s, c, last, why in stale))
    steps = sorted({int(r["step"]) for r in rows})
    print(f"PASS: the rows of steps {steps} in {os.path.relpath(csv_path, root)} measured their step's "
          "current kernel sources")


if __name__ == "__main__":
    main()
