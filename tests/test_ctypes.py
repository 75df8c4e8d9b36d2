#!/usr/bin/env python3
"""libladder.so through Python's ctypes: the C API is callable from another language, and
bad input comes back as an error code with a message (no GPU is needed for this test).

    test_ctypes.py /path/to/libladder.so
"""
import os
import sys

# The signatures of common/library/ladder.h, declared once in common/library/ladder.py.
os.environ["LADDER_LIBRARY"] = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "library"))
import ladder  # noqa: E402

lib = ladder.library()

failures = []


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


expect(lib.ladder_step_count() == 7, "seven steps")
names = [lib.ladder_step_name(i).decode() for i in range(1, 8)]
expect(names[0] == "01_naive" and names[6] == "07_clusters_multicast", f"step names {names}")
expect(lib.ladder_step_name(0) is None, "no step 0")
for step in range(1, 8):
    rc = lib.ladder_gemm(step, 0x10000, 0x20000, 0x30000, 64, 64, 12, None)
    msg = lib.ladder_last_error().decode()
    expect(rc != 0 and "multiple of 8" in msg, f"step {step} refuses K=12: {msg}")
rc = lib.ladder_gemm(9, 0x10000, 0x20000, 0x30000, 64, 64, 64, None)
expect(rc != 0 and "no step 9" in lib.ladder_last_error().decode(), "step 9 refused")

# Variant names: NULL and "" are the default (the call gets as far as the argument checks);
# an unknown name is refused with the step's variants listed, and bytes that are not
# printable ASCII come back escaped, so the message always decodes.
for name in (None, b""):
    rc = lib.ladder_gemm_variant(6, name, 0x10000, 0x20000, 0x30000, 64, 64, 12, None)
    msg = lib.ladder_last_error().decode()
    expect(rc != 0 and "multiple of 8" in msg, f"variant {name!r} is step 6's default: {msg}")
rc = lib.ladder_gemm_variant(6, b"turbo", 0x10000, 0x20000, 0x30000, 64, 64, 64, None)
msg = lib.ladder_last_error().decode()
expect(rc != 0 and "no variant 'turbo'" in msg and "cooperative (default), pingpong" in msg,
       f"unknown variant refused with the list: {msg}")
rc = lib.ladder_gemm_variant(7, b"\xff\xfecluster\x1b[2J", 0x10000, 0x20000, 0x30000, 64, 64, 64, None)
raw = lib.ladder_last_error()
try:
    msg = raw.decode("ascii")
except UnicodeDecodeError:
    msg = None
expect(rc != 0 and msg is not None and "'\\xff\\xfecluster\\x1b[2J'" in msg,
       f"a non-UTF-8 name is escaped in the message: {raw!r}")
rc = lib.ladder_gemm_variant(7, b"cluster4", 0x10000, 0x20000, 0x10000, 64, 64, 64, None)
msg = lib.ladder_last_error().decode()
expect(rc != 0 and "overlaps A" in msg, f"C == A refused: {msg}")
sys.exit(1 if failures else 0)
