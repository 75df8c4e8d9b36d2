#!/usr/bin/env python3
"""lesson_diff.py shows every step's gemm.cu against the previous step's with the timeline's
probes taken out, and only those:

    test_lesson_diff.py

- on a sample, a probe spread over two lines, its "// Timeline" comment, a `first_fill`
  declaration and the registration's hook go, and every other line stays;
- over the ladder, one diff per step after the first, none of whose changed lines names a
  probe (LADDER_TIMELINE, first_fill, set_timeline, a "// Timeline" comment); each diff is
  not empty;
- `--step 1` (no previous step) is refused with exit status 2 and says which steps exist.
"""
import importlib.util
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "..", "common", "scripts", "lesson_diff.py")
spec = importlib.util.spec_from_file_location("lesson_diff", script)
lesson_diff = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lesson_diff)

sample = """    wait(full);
    // Timeline (lane 0 speaks for the warp).
    LADDER_TIMELINE_CONSUMER(lane == 0, warp,
                             LoadArrive, kb);
    // The math.
    mma();
    // This tile's first fill (the timeline numbers k-blocks by fill).
    [[maybe_unused]] const int first_fill = tile * k_blocks;
    keep();
LADDER_TIMELINE_HOOK()  // set_timeline()
LADDER_REGISTER_STEP(tile_config, nullptr, set_timeline, {"", gemm});""".splitlines()
kept = lesson_diff.without_probes(sample)
expected = ["    wait(full);", "    // The math.", "    mma();", "    keep();",
            'LADDER_REGISTER_STEP(tile_config, nullptr, nullptr, {"", gemm});']
if kept != expected:
    sys.exit("FAIL: the sample's probes were not taken out exactly:\n" + "\n".join(kept))
print("ok: a sample's probes, and nothing else, are taken out")

r = subprocess.run([sys.executable, script], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"FAIL: lesson_diff.py exited {r.returncode}:\n{r.stderr}")
diffs = re.split(r"^==== ", r.stdout, flags=re.M)[1:]
steps = lesson_diff.steps()
if len(diffs) != len(steps) - 1:
    sys.exit(f"FAIL: {len(diffs)} diffs for {len(steps)} steps")
PROBE = re.compile(r"LADDER_TIMELINE|\bfirst_fill\b|\bset_timeline\b|^[-+]\s*// Timeline")
for d, (n, folder) in zip(diffs, steps[1:]):
    changed = [l for l in d.splitlines()[1:] if l[:1] in "+-" and not l.startswith(("+++", "---"))]
    if not changed:
        sys.exit(f"FAIL: the diff of step {n} is empty")
    probes = [l for l in changed if PROBE.search(l)]
    if probes:
        sys.exit(f"FAIL: the diff of step {n} ({folder}) still shows probes:\n" + "\n".join(probes))
print(f"ok: {len(diffs)} diffs, none of whose changed lines is a probe")

r = subprocess.run([sys.executable, script, "--step", "1"], capture_output=True, text=True)
if r.returncode != 2 or f"{steps[1][0]}..{steps[-1][0]}" not in r.stderr:
    sys.exit(f"FAIL: --step 1 was not refused with the steps named:\n{r.stderr}")
print("PASS")
