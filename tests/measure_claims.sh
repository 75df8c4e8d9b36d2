#!/usr/bin/env bash
# The GPU measurements that tests/claims.md lists under "To measure": each claim of the
# lessons that no file of results/ holds yet. Run from the repository root on a machine with
# an H100, CUDA 13.0 and compute-sanitizer:
#
#   bash tests/measure_claims.sh [stages|stages05|parity|tile-order|all]
#
# Each part builds only the step it needs (-DLADDER_ONLY_STEPS, build-claims-* folders),
# from a copy of the step's gemm.cu with one change made by sed, and writes its logs and
# CSVs under $OUT (default: results/h100/claims). A sed that matches nothing stops the part
# with an error: the copy would be the unchanged kernel. Exit status: 0 when every part
# ran; 1 when a part could not build or its change did not apply. What each result means
# for the claim is in tests/claims.md.
set -euo pipefail
OUT=${OUT:-results/h100/claims}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d)
jobs=$(nproc)

# edit FILE SED_EXPR PATTERN: apply the sed, then require PATTERN in the result.
edit() {
  sed -i "$2" "$1"
  if ! grep -qF -- "$3" "$1"; then
    echo "measure_claims: the change '$2' did not apply to $1" >&2
    exit 1
  fi
}

# build STEP SOURCE DIR [CMAKE_ARGS...]: step-STEP from SOURCE in DIR. A folder is reused
# from one source to the next (only the step's object is compiled again); the hang trap is
# off unless the arguments turn it on.
build() {
  local step=$1 source=$2 dir=$3
  shift 3
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_BUILD_TESTS=OFF \
        -DLADDER_ONLY_STEPS="$step" -DLADDER_STEP${step}_SOURCE="$source" -DLADDER_HANG_TRAP=OFF \
        "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" --target step-"$step" >/dev/null
}

# Step 04 with 2, 3 and 4 stages at 4096^3: the README's "Four slots" (430, 431, 429 TFLOP/s,
# all passing --check, in an earlier run). Pass: every --check passes; the three times are
# within a few percent of each other.
stages() {
  for s in 2 3 4; do
    cp 04_tma_multistage/gemm.cu "$work/step4_s$s.cu"
    edit "$work/step4_s$s.cu" "s/^constexpr int STAGES = 4;/constexpr int STAGES = $s;/" \
         "constexpr int STAGES = $s;"
    build 4 "$work/step4_s$s.cu" build-claims-4
    ./build-claims-4/step-4 --check --sizes small >"$OUT/step04_stages_$s.log" 2>&1 || echo "STAGES = $s: --check FAILED"
    tail -1 "$OUT/step04_stages_$s.log"
    ./build-claims-4/step-4 --bench --m 4096 --n 4096 --k 4096 --csv "$OUT/step04_stages_$s.csv" \
      2>&1 | tee -a "$OUT/step04_stages_$s.log" | grep "bench"
  done
}

# Step 05 with 2 stages (its static_assert allows it): correct, and how slow (the planner:
# ./build/ladder-plan --step 5 --candidate 128x256x64:2:2:1 --machine results/h200/machine.json
# predicts 388 TFLOP/s). Pass: --check passes.
stages05() {
  cp 05_wgmma/gemm.cu "$work/step5_s2.cu"
  edit "$work/step5_s2.cu" 's/^constexpr int STAGES = static_cast<int>((SMEM_OPTIN_BYTES - 2 \* 1024) \/ STAGE_BYTES);  \/\/ 4$/constexpr int STAGES = 2;/' \
       "constexpr int STAGES = 2;"
  build 5 "$work/step5_s2.cu" build-claims-5
  ./build-claims-5/step-5 --check --sizes small >"$OUT/step05_stages_2.log" 2>&1 || echo "step 05, STAGES = 2: --check FAILED"
  tail -1 "$OUT/step05_stages_2.log"
  ./build-claims-5/step-5 --bench --m 4096 --n 4096 --k 4096 --csv "$OUT/step05_stages_2.csv" \
    2>&1 | tee -a "$OUT/step05_stages_2.log" | grep "bench"
}

# Step 04's producer waiting on `empty` with phase ^ 1 (EXERCISES.md, exercise 2, change 1;
# the README's "The phase-bit rule", case 2): three runs with the hang trap, then racecheck.
# Pass (the README's claim): every run ends in "LADDER_HANG_TRAP: ... full barrier", and
# racecheck prints "0 hazards".
parity() {
  cp 04_tma_multistage/gemm.cu "$work/step4_parity.cu"
  edit "$work/step4_parity.cu" 's/wait_barrier(&s.empty_barrier\[stage\], phase, "empty barrier");/wait_barrier(\&s.empty_barrier[stage], phase ^ 1, "empty barrier");/' \
       'phase ^ 1, "empty barrier"'
  build 4 "$work/step4_parity.cu" build-claims-parity -DLADDER_HANG_TRAP=ON
  for run in 1 2 3; do
    ./build-claims-parity/step-4 --check --m 256 --n 256 --k 2056 >"$OUT/step04_parity_run$run.log" 2>&1 || true
    grep -m1 -E "LADDER_HANG_TRAP|PASS|FAIL" "$OUT/step04_parity_run$run.log" || echo "run $run: see the log"
  done
  compute-sanitizer --tool racecheck ./build-claims-parity/step-4 --check --m 256 --n 256 --k 2056 \
    >"$OUT/step04_parity_racecheck.log" 2>&1 || true
  grep -E "RACECHECK SUMMARY|hazard" "$OUT/step04_parity_racecheck.log" | tail -2 || echo "racecheck: see the log"
}

# Step 06 with step 05's row-by-row tile order, against step 06 as committed, at
# 8192x28672x8192 in one process each (step 06's README, "The tile order"). The share of
# the 0.47x -> 0.97x (step 05 -> 06, H100) that the column order buys is the ratio of the
# two rows' x cuBLAS.
tile_order() {
  cp 06_warp_specialized/gemm.cu "$work/step6_rows.cu"
  edit "$work/step6_rows.cu" 's/^    const int tiles_m = layout::ceil_div(M, BM);$/    const int tiles_n = layout::ceil_div(N, BN);/' \
       "const int tiles_n = layout::ceil_div(N, BN);"
  edit "$work/step6_rows.cu" 's/^    const int m0 = static_cast<int>(blockIdx.x % tiles_m) \* BM;$/    const int m0 = static_cast<int>(blockIdx.x \/ tiles_n) * BM;/' \
       "blockIdx.x / tiles_n) * BM"
  edit "$work/step6_rows.cu" 's/^    const int n0 = static_cast<int>(blockIdx.x \/ tiles_m) \* BN;$/    const int n0 = static_cast<int>(blockIdx.x % tiles_n) * BN;/' \
       "blockIdx.x % tiles_n) * BN"
  build 6 "$work/step6_rows.cu" build-claims-6
  ./build-claims-6/step-6 --check --sizes small >"$OUT/step06_tile_order.log" 2>&1 || echo "step 06, row order: --check FAILED"
  tail -1 "$OUT/step06_tile_order.log"
  ./build-claims-6/step-6 --bench --variant cooperative --m 8192 --n 28672 --k 8192 \
    --csv "$OUT/step06_tile_order_rows.csv" 2>&1 | tee -a "$OUT/step06_tile_order.log" | grep "bench"
  build 6 "$PWD/06_warp_specialized/gemm.cu" build-claims-6
  ./build-claims-6/step-6 --bench --variant cooperative --m 8192 --n 28672 --k 8192 \
    --csv "$OUT/step06_tile_order_cols.csv" 2>&1 | tee -a "$OUT/step06_tile_order.log" | grep "bench"
}

part=${1:-all}
case $part in
  stages) stages ;;
  stages05) stages05 ;;
  parity) parity ;;
  tile-order) tile_order ;;
  all) parity; stages; stages05; tile_order ;;
  *) echo "usage: bash tests/measure_claims.sh [stages|stages05|parity|tile-order|all]" >&2; exit 2 ;;
esac
rm -rf "$work"
