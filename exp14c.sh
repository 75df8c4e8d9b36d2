#!/bin/bash
# experiment: an A map for the last row of tiles with a box of only the rows left (EXP_NOEDGE=1: full box)
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
{
echo "# $(date -u) $(nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader)"
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build-device --target step-7 >$OUT/build.log 2>&1; echo build rc $?
grep -E " error" $OUT/build.log | head
for v in cluster2 bm64 bm128 bm128n128 bm128n192 bm64n64 cluster4; do for s in "1000 1992 2056" "100 1000 1032" "300 1000 1032" "4100 4000 1032"; do set -- $s; ./build-device/step-7 --check --variant $v --m $1 --n $2 --k $3 2>&1 | tail -1 | sed "s/^/$v $1x$2x$3: /"; done; done
compute-sanitizer --tool memcheck ./build-device/step-7 --check --variant bm128n128 --m 300 --n 1000 --k 1032 2>&1 | tail -1
S=160x8192x4096,192x8192x4096,320x8192x4096,100x8192x4096,1000x1992x2048,1000x1992x2056,3000x5000x2048,1536x1536x1536,16x4096x4096
for r in 1 2; do for e in 0 1; do echo "## round $r NOEDGE=$e"; if [ $e = 1 ]; then export EXP_NOEDGE=1; else unset EXP_NOEDGE; fi; ./build-device/step-7 --bench --sizes $S 2>&1 | grep '^bench'; done; done
} 2>&1 | tee $OUT/exp14c.log
