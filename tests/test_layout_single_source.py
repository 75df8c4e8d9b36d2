#!/usr/bin/env python3
"""The layout arithmetic has one home, common/kernel/layout.h: the kernels that call it do not
write it out again (so what ladder-layout draws is what they compute).

For each file below: no code line (comments stripped) spells out the XOR swizzle or the
accumulator row formula, and the file calls layout::. Add a file once it calls the header.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CALLERS = [
    "02_cp_async_mma_sync/gemm.cu",
    "03_tma_single_stage/gemm.cu",
    "04_tma_multistage/gemm.cu",
    "05_wgmma/gemm.cu",
    "06_warp_specialized/gemm.cu",
    "06_warp_specialized/gemm_pingpong.cu",
    "07_clusters_multicast/gemm.cu",
    "07_clusters_multicast/every_shape/every_shape.cu",
    "07_clusters_multicast/every_shape/tiles.cuh",
    "02_cp_async_mma_sync/mma_sync.cuh",
]
WRITTEN_OUT = {
    "the XOR swizzle (chunk ^ (row % 8))": re.compile(r"\^\s*\(\s*row\s*%\s*8\s*\)"),
    "the accumulator row (lane / 4 + 8 * ...)": re.compile(r"lane\s*/\s*4\s*\+\s*8\s*\*"),
    "the ldmatrix lane row (lane % 16)": re.compile(r"lane\s*%\s*16"),
}

failures = []
for name in CALLERS:
    text = (ROOT / name).read_text(encoding="utf-8")
    code = [re.sub(r"//.*", "", line) for line in text.splitlines()]
    for number, line in enumerate(code, 1):
        for what, pattern in WRITTEN_OUT.items():
            if pattern.search(line):
                failures.append(f"{name}:{number}: writes out {what}; call common/kernel/layout.h instead")
    if "layout::" not in "\n".join(code):
        failures.append(f"{name}: does not call common/kernel/layout.h")
for f in failures:
    print(f"FAIL: {f}")
if failures:
    sys.exit(1)
print(f"ok: {len(CALLERS)} files take their layout arithmetic from common/kernel/layout.h")
