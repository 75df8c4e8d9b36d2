#!/usr/bin/env python3
"""ladder.gemm from PyTorch on the GPU: every step and variant against
torch.nn.functional.linear (computed in fp32) on shapes with edges, into a new tensor and
into out=, on a non-default stream. Exit 77 (ctest: skipped) with the reason when PyTorch,
a GPU, or a GPU that can run a step is missing.

    LADDER_LIBRARY=/path/to/libladder.so test_python_gpu.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "library"))
import ladder  # noqa: E402

SKIP = 77
try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: PyTorch is not installed (pip install torch)")
    sys.exit(SKIP)
if not torch.cuda.is_available():
    print("SKIP: PyTorch sees no CUDA GPU")
    sys.exit(SKIP)

major, minor = torch.cuda.get_device_capability()
runnable = [s for s in ladder.steps() if (major, minor) == (9, 0) or (s <= 2 and major >= 8)]
if not runnable:
    print(f"SKIP: {torch.cuda.get_device_name()} (sm_{major}{minor}) runs no step of the ladder")
    sys.exit(SKIP)
# Variants the steps register (None: the step's default), and one of step 07's tiles.
VARIANTS = {2: [None, "pipeline"], 3: [None, "barrier", "bulk1d"], 6: [None, "pingpong"],
            7: [None, "cluster1", "cluster4", "lesson", "cg", "tile128x128"]}
SHAPES = [(128, 256, 64), (129, 77, 72), (1000, 1992, 2056), (2048, 4096, 1024)]

torch.manual_seed(0)
failures = []
stream = torch.cuda.Stream()
for m, n, k in SHAPES:
    a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = torch.rand(n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    want = F.linear(a.float(), b.float())
    bound = 2**-7 * want.abs() + 2**-8 * want.pow(2).mean().sqrt()  # the harness's tolerance
    for step in runnable:
        for variant in VARIANTS.get(step, [None]):
            name = f"step {step}{':' + variant if variant else ''} {m}x{n}x{k}"
            with torch.cuda.stream(stream):
                got = ladder.gemm(a, b, step=step, variant=variant)
                into = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                same = ladder.gemm(a, b, step=step, variant=variant, out=into)
            stream.synchronize()
            bad = ((got.float() - want).abs() > bound) | ~torch.isfinite(got.float())
            ok = not bad.any().item() and same is into and torch.equal(into, got)
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {int(bad.sum())} elements outside the tolerance")
            if not ok:
                failures.append(name)

# Errors on real tensors: a misaligned view and a CPU tensor.
base = torch.zeros(64 * 128 + 1, device="cuda", dtype=torch.bfloat16)
try:
    ladder.gemm(base[1:].view(64, 128), base[:64 * 128].view(64, 128), step=runnable[0])
    failures.append("a misaligned tensor was accepted")
except ValueError as e:
    print(f"ok   misaligned: {e}")

if failures:
    sys.exit("FAIL: " + ", ".join(failures))
print(f"PASS: ladder.gemm matches torch.nn.functional.linear for steps {runnable}")
