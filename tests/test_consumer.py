#!/usr/bin/env python3
"""Another CMake project uses the ladder:

    test_consumer.py <repository root> <ladder build folder> <CUDA compiler> <CMake generator>

1. add_subdirectory: tests/consumer configures against the source tree and gets ladder::ladder
   without the ladder's bench/plot/test targets (configure only: building would compile every
   kernel a second time).
2. find_package: `cmake --install` of the ladder build into a scratch prefix, then
   tests/consumer is configured against it, built, and run (it calls the C API).
"""
import os
import subprocess
import sys
import tempfile

root, build, nvcc, generator = sys.argv[1:5]
consumer = os.path.join(root, "tests", "consumer")


def run(argv):
    print("+", " ".join(argv), flush=True)
    r = subprocess.run(argv, capture_output=True, text=True)
    print(r.stdout[-3000:], r.stderr[-3000:])
    if r.returncode != 0:
        sys.exit(f"FAIL: exit {r.returncode}: {' '.join(argv)}")
    return r.stdout


with tempfile.TemporaryDirectory() as tmp:
    run(["cmake", "-S", consumer, "-B", os.path.join(tmp, "sub"), "-G", generator, f"-DLADDER_SOURCE_DIR={root}",
         f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCMAKE_BUILD_TYPE=Release"])
    print("ok: add_subdirectory gives ladder::ladder and no bench/plot/test targets")

    prefix = os.path.join(tmp, "prefix")
    run(["cmake", "--install", build, "--prefix", prefix])
    found = os.path.join(tmp, "found")
    run(["cmake", "-S", consumer, "-B", found, "-G", generator, f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", found])
    out = run([os.path.join(found, "consumer")])
    if "ok:" not in out:
        sys.exit("FAIL: the consumer did not report success")
    print("PASS: find_package(ladder) gives ladder::ladder, which links and runs")
