#!/usr/bin/env python3
"""The timeline plot script renders the synthetic fixture CSV into real PNGs (one per step), and
refuses in one line what it cannot plot (no CSV, an empty one, missing columns, a malformed
--predicted, no matplotlib). Without matplotlib the checks that need none run, and the test
then skips (exit 77)."""
import os
import subprocess
import sys
import tempfile

from png_check import check_png, refused, refuses_without_matplotlib, skip_without_matplotlib

here = os.path.dirname(os.path.abspath(__file__))
plot = os.path.join(here, "..", "common", "scripts", "plot_timeline.py")
fixture = os.path.join(here, "fixtures", "timeline_small.csv")  # synthetic: steps 3 and 6


def run(*args):
    result = subprocess.run([sys.executable, plot, *args], capture_output=True, text=True)
    print(result.stdout, result.stderr)
    return result


with tempfile.TemporaryDirectory() as out:
    step3 = os.path.join(out, "step3.csv")
    with open(fixture) as src, open(step3, "w") as dst:
        lines = src.readlines()
        dst.writelines([lines[0]] + [l for l in lines[1:] if l.startswith("3,")])
    predicted = os.path.join(out, "predicted.png")

    refused(run("--csv", os.path.join(out, "none.csv"), "--out", out), "cannot read")
    empty = os.path.join(out, "empty.csv")
    open(empty, "w").close()
    refused(run("--csv", empty, "--out", out), "is empty")
    result = run("--csv", step3, "--out", predicted, "--predicted", "3=fast")
    if result.returncode == 0 or "STEP[:VARIANT]=NS" not in result.stderr:
        sys.exit(f"FAIL: a malformed --predicted was not refused: {result.stderr}")
    # Several steps cannot go to one PNG, and a CSV without the needed columns is refused.
    result = run("--csv", fixture, "--out", os.path.join(out, "both.png"))
    if result.returncode == 0 or "directory" not in result.stderr:
        sys.exit("FAIL: several steps into one PNG was not refused")
    bad = os.path.join(out, "bad.csv")
    with open(bad, "w") as f:
        f.write("step,cta\n3,0\n")
    result = run("--csv", bad, "--out", out)
    if result.returncode == 0 or "missing column" not in result.stderr:
        sys.exit(f"FAIL: a CSV without the needed columns was not refused: {result.stderr}")
    refuses_without_matplotlib(plot, "--csv", fixture, "--out", out)
    print("ok: bad input refused")

    skip_without_matplotlib("drawing the timelines")
    # A directory: one chart per (step, variant) in the CSV.
    if run("--csv", fixture, "--out", out).returncode != 0:
        sys.exit("FAIL: plot_timeline.py failed on the fixture")
    for name in ("timeline_step03.png", "timeline_step06_cooperative.png"):
        check_png(os.path.join(out, name))

    # One step's rows to one named PNG, with the globaltimer axis and one CTA.
    single = os.path.join(out, "single.png")
    if run("--csv", step3, "--out", single, "--clock", "globaltimer", "--ctas", "1").returncode != 0:
        sys.exit("FAIL: plot_timeline.py failed on one step to one PNG")
    check_png(single)

    # The predicted k-block time drawn next to the measured one.
    result = run("--csv", step3, "--out", predicted, "--predicted", "3=1850")
    if result.returncode != 0:
        sys.exit("FAIL: plot_timeline.py failed with --predicted")
    check_png(predicted)
