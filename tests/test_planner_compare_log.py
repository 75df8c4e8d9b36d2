#!/usr/bin/env python3
"""The committed planner comparison is what ladder-plan prints today.

results/<gpu>/planner_compare.log is the output of
  ladder-plan --compare results/<gpu>/bench.csv --machine results/<gpu>/machine.json
and the READMEs quote its hit rates; a change to the time model must regenerate it. With
CSV and LOG, the same for another benchmark file of the folder and its log (the sustained rows).
Usage: test_planner_compare_log.py LADDER_PLAN RESULTS_DIR [CSV LOG]
"""
import subprocess
import sys


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit("usage: test_planner_compare_log.py LADDER_PLAN RESULTS_DIR [CSV LOG]")
    plan, folder = sys.argv[1], sys.argv[2]
    csv, name = (sys.argv[3], sys.argv[4]) if len(sys.argv) == 5 else ("bench.csv", "planner_compare.log")
    log = f"{folder}/{name}"
    out = subprocess.run([plan, "--compare", f"{folder}/{csv}", "--machine", f"{folder}/machine.json"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    with open(log, encoding="utf-8") as f:
        committed = f.read().splitlines()
    for number, (want, got) in enumerate(zip(committed, out), start=1):
        if want != got:
            sys.exit(f"{log}:{number} differs from ladder-plan's output:\n  committed: {want}\n  now:       {got}\n"
                     f"regenerate it: ./build/ladder-plan --compare {folder}/{csv} "
                     f"--machine {folder}/machine.json > {log}")
    if len(committed) != len(out):
        sys.exit(f"{log} has {len(committed)} lines, ladder-plan prints {len(out)}: regenerate it")
    print(f"{log}: current ({len(out)} lines)")


if __name__ == "__main__":
    main()
