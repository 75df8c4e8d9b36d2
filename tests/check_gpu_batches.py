#!/usr/bin/env python3
"""The GPU batches of tests/CMakeLists.txt hold every case of ladder_gpu_tests exactly once:

    check_gpu_batches.py <ladder_gpu_tests> <filter>...

Each filter is one ctest test's --gtest_filter. Listing the cases needs no GPU (GoogleTest
lists what the registry builds), so this runs on any machine: a case no batch selects would
never run, and one that two select would run twice.
"""
import subprocess
import sys

exe, filters = sys.argv[1], sys.argv[2:]


def cases(*extra):
    """The case names `exe --gtest_list_tests` prints, as Suite.Name."""
    out = subprocess.run([exe, "--gtest_list_tests", *extra], capture_output=True, text=True, check=True).stdout
    names, suite = [], ""
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            names.append(suite + line.split("#")[0].strip())
    return names


every = cases()
count = {name: 0 for name in every}
for f in filters:
    selected = cases(f"--gtest_filter={f}")
    if not selected:
        sys.exit(f"FAIL: the batch --gtest_filter={f} selects no case")
    print(f"{len(selected):4d} cases: {f}")
    for name in selected:
        count[name] += 1
missing = [name for name, n in count.items() if n == 0]
twice = [name for name, n in count.items() if n > 1]
if missing:
    sys.exit(f"FAIL: {len(missing)} case(s) in no batch, e.g. {missing[:5]}")
if twice:
    sys.exit(f"FAIL: {len(twice)} case(s) in more than one batch, e.g. {twice[:5]}")
print(f"PASS: {len(every)} cases in {len(filters)} batches, each case in one")
