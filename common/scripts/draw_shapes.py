#!/usr/bin/env python3
"""draw_shapes.py: GEMM shapes drawn at random, to check a rule on shapes it was not fitted to.

    python3 common/scripts/draw_shapes.py --seed 20261128 --count 44
    ./build/step-7 --bench --variant cluster2 --sizes $(python3 common/scripts/draw_shapes.py --seed 777)

Prints one line, the shapes as step-N's --sizes LIST takes them (MxNxK, comma-separated).
M and N are drawn log-uniform between --min-side and --max-side, K log-uniform between
--min-k and --max-k and rounded down to a multiple of 8 (the ladder's contract); then each of M
and N is rounded down to a multiple of 64 with probability 1/2, and K with probability 0.4,
so that about half of the sides are whole tiles and the rest are odd. The same seed gives the
same shapes (Python's random.Random). 07_clusters_multicast/NOTES.md, "Shapes drawn at random",
names the seeds of its draws.
"""
import argparse
import math
import random
import sys


def draw(seed, count, min_side=640, max_side=8192, min_k=256, max_k=8192):
    """`count` (M, N, K) tuples from `seed`, as the module docstring says."""
    rng = random.Random(seed)

    def log_uniform(lo, hi):
        return math.exp(rng.uniform(math.log(lo), math.log(hi)))

    shapes = []
    for _ in range(count):
        m = int(log_uniform(min_side, max_side))
        n = int(log_uniform(min_side, max_side))
        k = int(log_uniform(min_k, max_k)) // 8 * 8
        if rng.random() < 0.5:
            m = m // 64 * 64
        if rng.random() < 0.5:
            n = n // 64 * 64
        if rng.random() < 0.4:
            k = k // 64 * 64
        shapes.append((m, n, k))
    return shapes


def main(argv=None):
    p = argparse.ArgumentParser(description="GEMM shapes drawn at random, as a --sizes LIST")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, default=44)
    p.add_argument("--min-side", type=int, default=640)
    p.add_argument("--max-side", type=int, default=8192)
    p.add_argument("--min-k", type=int, default=256)
    p.add_argument("--max-k", type=int, default=8192)
    a = p.parse_args(argv)
    if a.count < 1:
        p.error("--count must be at least 1")
    if not 64 <= a.min_side <= a.max_side:
        p.error("--min-side must be at least 64 and at most --max-side")
    if not 64 <= a.min_k <= a.max_k:
        p.error("--min-k must be at least 64 and at most --max-k")
    shapes = draw(a.seed, a.count, a.min_side, a.max_side, a.min_k, a.max_k)
    print(",".join(f"{m}x{n}x{k}" for m, n, k in shapes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
