#!/usr/bin/env python3
"""common/scripts/draw_shapes.py draws what step 07's NOTES say it drew:

    test_draw_shapes.py <repository root>

The draws of results/h100/step07_random_shapes.csv (config column: first, second and third
draw) and the first 40 shapes of results/h200/2026-11-28/step07_random_variants.csv (each
round runs them, then 15 shapes of step07_cluster4_rounds.csv) are the script's output for
the seeds 07_clusters_multicast/NOTES.md names; every shape
keeps the contract (K a multiple of 8, sides within the bounds asked for); bad arguments exit
2 with a message.
"""
import csv
import os
import subprocess
import sys

DRAWS = {"first draw": (20261128, 44), "second draw": (777, 44), "third draw, the final rule": (31337, 48)}
H200_DRAW = (20261129, 40)  # results/h200/2026-11-28/step07_random_variants.csv


def run(root, *args):
    script = os.path.join(root, "common", "scripts", "draw_shapes.py")
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def main():
    root = sys.argv[1]
    failures = []
    with open(os.path.join(root, "results", "h100", "step07_random_shapes.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    notes = open(os.path.join(root, "07_clusters_multicast", "NOTES.md"), encoding="utf-8").read()

    def check(label, recorded, seed, count):
        out = run(root, "--seed", str(seed), "--count", str(count))
        drawn = out.stdout.strip().split(",")
        if out.returncode != 0 or recorded != drawn:
            failures.append(f"{label}: the CSV's {len(recorded)} shapes are not draw_shapes.py --seed {seed} "
                            f"--count {count} ({len(drawn)} shapes, exit {out.returncode})")
        if f"--seed {seed}" not in notes:
            failures.append(f"07's NOTES.md does not name the seed {seed} of the {label}")

    for config, (seed, count) in DRAWS.items():
        check(config, [f"{r['M']}x{r['N']}x{r['K']}" for r in rows if r["config"] == config], seed, count)
    seed, count = H200_DRAW
    with open(os.path.join(root, "results", "h200", "2026-11-28", "step07_random_variants.csv"), newline="") as f:
        h200 = [f"{r['M']}x{r['N']}x{r['K']}" for r in csv.DictReader(f)
                if r["config"] == "round 1" and r["name"].endswith(":cluster2")][:count]
    check("H200's draw", h200, seed, count)
    out = run(root, "--seed", "5", "--count", "500", "--min-side", "100", "--max-side", "300", "--min-k", "64",
              "--max-k", "100")
    for item in out.stdout.strip().split(","):
        m, n, k = map(int, item.split("x"))
        if not (64 <= m <= 300 and 64 <= n <= 300 and 64 <= k <= 100 and k % 8 == 0):
            failures.append(f"{item}: outside the bounds asked for, or K % 8 != 0")
            break
    for bad in (["--count", "0"], ["--min-side", "10"], ["--min-k", "9000"], []):
        args = bad if bad == [] else ["--seed", "1", *bad]
        out = run(root, *args)
        if out.returncode != 2 or not out.stderr.strip():
            failures.append(f"draw_shapes.py {' '.join(args)}: exit {out.returncode} without a message, expected 2")
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print(f"PASS: draw_shapes.py reproduces the {len(DRAWS)} draws of step07_random_shapes.csv and the H200's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
