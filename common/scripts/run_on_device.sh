#!/usr/bin/env bash
# The one script for a GPU machine: build for sm_90a, run the GPU tests (and the
# compute-sanitizer label), benchmark every step against cuBLAS, plot, and print a short
# table last. Logs and results go to $OUT (default ./device-out).
#
#   common/scripts/run_on_device.sh [--tests-only | --bench-only] [--hang-trap] [--quick]
#                            [--probe] [--regimes] [--inputs] [--timeline] [--exercises]
#   --probe      measure the machine first (ladder-probe): results/<gpu>/machine.json, which
#                the planner's predictions in the benchmark then use; then trace the clock of
#                benchmark-shaped loops (ladder-probe --clock-trace): results/clock_trace.csv
#   --regimes    also time step 07 and cuBLAS cool (after an idle pause) and sustained (a
#                minute back to back) at 4096^3 and 8192^3: results/regimes.csv
#   --inputs     also time step 07 (default, cluster1 and lesson) and cuBLAS at the headline
#                shapes on uniform inputs (the power-capped regime) and on zero inputs (the
#                clock stays at its boost): results/input_regimes.csv; and the contract sweep
#                and the class shapes (step-7 --sizes contract|classes) in both regimes:
#                results/contract_sweep.csv, results/class_shapes.csv
#   --timeline   also build with -DLADDER_TIMELINE=ON, record steps 03-07 and draw the charts
#   --exercises  also build the exercise configuration: the stubs must fail (with hints),
#                the solutions must pass the same exercise-N tests, every mutant be rejected
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
mode=all; trap_opt=OFF; sizes_arg=""; timeline=0; exercises=0; probe=0; regimes=0; inputs=0
for arg in "$@"; do
  case $arg in
    --tests-only) mode=tests ;;
    --bench-only) mode=bench ;;
    --extras-only) mode=extras ;;  # only what --timeline / --exercises ask for
    --hang-trap) trap_opt=ON ;;
    --quick) sizes_arg="--sizes quick" ;;
    --timeline) timeline=1 ;;
    --exercises) exercises=1 ;;
    --probe) probe=1 ;;
    --regimes) regimes=1 ;;
    --inputs) inputs=1 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
build=build-device
results=$OUT/results
log() { echo "[$(date +%H:%M:%S)] $*"; }

{
  log "device"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
  nvcc --version | tail -1
  log "configure + build (LADDER_HANG_TRAP=$trap_opt)"
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_HANG_TRAP=$trap_opt \
        -DLADDER_PTXAS_VERBOSE=ON -DLADDER_RESULTS_DIR="$results" >/dev/null
  cmake --build $build -- -k 0 >"$OUT/build_full.log" 2>&1
  grep -E "error|warning|FAILED" "$OUT/build_full.log" | head -40
  # Registers, spills and shared memory of every step's kernels.
  grep -E "Compiling entry|Used [0-9]+ registers|spill" "$OUT/build_full.log" | grep -A2 "gemm_kernel" | head -60
  log "build done"
} 2>&1 | tee "$OUT/build.log"

if [ $probe = 1 ]; then
  # The machine file goes where the planner looks for it (results/<gpu>/ in the source
  # tree), and a copy with the results.
  log "probe" | tee "$OUT/probe.log"
  folder=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | grep -oE 'h[0-9]{3}' | head -1)
  mkdir -p "results/${folder:-unknown}" "$results"
  timeout 180 ./$build/ladder-probe --out "results/${folder:-unknown}/machine.json" 2>&1 | tee -a "$OUT/probe.log"
  cp "results/${folder:-unknown}/machine.json" "$results/" 2>/dev/null
  timeout 120 ./$build/ladder-probe --clock-trace "$results/clock_trace.csv" 2>&1 | tee -a "$OUT/probe.log"
fi

if [ "$mode" = all ] || [ "$mode" = tests ]; then
  log "tests" | tee "$OUT/tests.log"
  (cd $build && ctest -L cpu --output-on-failure -j8 2>&1 | tail -15) | tee -a "$OUT/tests.log"
  (cd $build && ctest -L gpu -LE "sanitizer|large" --output-on-failure -j4 2>&1 | tail -60) | tee -a "$OUT/tests.log"
  # The large-problem batches (up to ~40 GB each; their RESOURCE_LOCK runs them one at a time).
  (cd $build && ctest -L large --output-on-failure 2>&1 | tail -20) | tee -a "$OUT/tests.log"
  (cd $build && ctest -L sanitizer --output-on-failure -j4 --timeout 300 2>&1 | tail -40) | tee -a "$OUT/tests.log"
  cp $build/Testing/Temporary/LastTest.log "$OUT/ctest_last.log" 2>/dev/null
fi

if [ $regimes = 1 ]; then
  log "regimes: cool and sustained, step 07 and cuBLAS alternating" | tee "$OUT/regimes.log"
  mkdir -p "$results"
  rm -f "$results/regimes.csv"
  for shape in 4096 8192; do
    ./$build/step-7 --bench --variant cluster2 --sizes $shape --regime cool --csv "$results/regimes.csv" 2>&1 | grep -E "^bench|FAIL"
    ./$build/step-7 --bench --variant cluster2 --sizes $shape --regime sustained --csv "$results/regimes.csv" 2>&1 | grep -E "^bench|FAIL"
  done 2>&1 | sed 's/clusters_multicast://' | tee -a "$OUT/regimes.log"
fi

if [ $inputs = 1 ]; then
  log "inputs: step 07 and cuBLAS alternating, uniform then zero inputs" | tee "$OUT/input_regimes.log"
  mkdir -p "$results"
  rm -f "$results/input_regimes.csv"
  headline=4096,6144,8192,8192x4096x4096,8192x14336x4096,8192x4096x14336,8192x28672x8192
  for in in uniform zero; do
    for variant in cluster2 cluster1 lesson; do
      ./$build/step-7 --bench --variant $variant --sizes $headline --inputs $in \
        --csv "$results/input_regimes.csv" 2>&1 | grep -E "^bench|FAIL|wrong"
    done
  done 2>&1 | sed 's/clusters_multicast://' | tee -a "$OUT/input_regimes.log"
  # The contract sweep and the four classes of shapes (step-7 --sizes contract|classes): the
  # default, and on uniform inputs the variants it must not trail, each in its own process.
  rm -f "$results/contract_sweep.csv" "$results/class_shapes.csv"
  for in in uniform zero; do
    for variant in cluster2 cluster1 lesson; do
      [ $in = zero ] && [ $variant != cluster2 ] && continue
      ./$build/step-7 --bench --variant $variant --sizes contract --inputs $in \
        --csv "$results/contract_sweep.csv" >"$OUT/contract_${in}_$variant.log" 2>&1
      ./$build/step-7 --bench --variant $variant --sizes classes --inputs $in \
        --csv "$results/class_shapes.csv" >"$OUT/classes_${in}_$variant.log" 2>&1
    done
  done
  grep -hE "FAIL|wrong" "$OUT"/contract_*.log "$OUT"/classes_*.log | tee -a "$OUT/input_regimes.log"
fi

if [ $timeline = 1 ]; then
  log "timeline build" | tee "$OUT/timeline.log"
  mkdir -p "$results"
  {
    cmake -S . -B build-timeline -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_TIMELINE=ON \
          -DLADDER_BUILD_TESTS=OFF >/dev/null && cmake --build build-timeline >/dev/null || echo "timeline build FAILED"
    for s in 3 4 5 6 7; do
      ./build-timeline/step-$s --check --sizes small | tail -1
      ./build-timeline/step-$s --timeline "$results/timeline_step0$s.csv" | tail -2
    done
    ./build-timeline/step-6 --variant pingpong --timeline "$results/timeline_step06_pingpong.csv" | tail -1
    for f in "$results"/timeline_step0*.csv; do python3 common/scripts/plot_timeline.py --csv "$f" --out "${f%.csv}.png"; done
  } 2>&1 | tee -a "$OUT/timeline.log"
fi

if [ $exercises = 1 ]; then
  log "exercises: stubs must fail with hints, solutions must pass" | tee "$OUT/exercises.log"
  {
    cmake -S . -B build-ex -G Ninja -DLADDER_EXERCISES=ON -DLADDER_EXERCISE_TIMEOUT=120 >/dev/null &&
      cmake --build build-ex >/dev/null || echo "exercise build FAILED"
    (cd build-ex && ctest -L 'exercise-[1-7]' --timeout 400 --output-on-failure >"$OUT/exercises_stubs_full.log" 2>&1)
    # One line per exercise (it must FAIL on the stub) and the hints it printed.
    grep -E "^ *[0-9]+/[0-9]+ Test|^hint|hang trap fired|TIME LIMIT|never written|race" "$OUT/exercises_stubs_full.log" | grep -v "Google Test trace" | cut -c1-160 | head -40
    # The reference solutions (tests/fixtures/exercises/solutions/, else gemm.cu), built
    # exactly as the students' files are (hang trap on): every exercise-N must PASS,
    # sanitizers included.
    cmake -S . -B build-sol -G Ninja -DLADDER_EXERCISES=ON -DLADDER_EXERCISE_SOLUTIONS=ON \
          -DLADDER_EXERCISE_MUTANTS=ON -DLADDER_EXERCISE_TIMEOUT=120 >/dev/null &&
      cmake --build build-sol >/dev/null || echo "solution build FAILED"
    (cd build-sol && ctest -L 'exercise-[1-7]' --timeout 400 --output-on-failure >"$OUT/exercises_solutions_full.log" 2>&1)
    grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|^PASS|^FAIL" "$OUT/exercises_solutions_full.log" | head -30
    # The mutants (tests/fixtures/exercises/mutants/): every exercise<N>_mutant_* test must
    # pass, i.e. the check rejected that wrong solution with the hint its patch names.
    (cd build-sol && ctest -L exercise-mutants -j 4 --timeout 700 --output-on-failure >"$OUT/exercises_mutants_full.log" 2>&1)
    grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|MUTANT PASSED|WITHOUT THE EXPECTED" "$OUT/exercises_mutants_full.log" | head -50
    # Wrong solutions the check must reject (tests/fixtures/exercises/rejected/): each
    # exercise-N must FAIL on them.
    shopt -s nullglob  # none may be kept
    for wrong in tests/fixtures/exercises/rejected/*.cu; do
      n=$(basename "$wrong" | sed -E 's/^0?([0-9]+)_.*/\1/')
      cmake -S . -B build-rej -G Ninja -DLADDER_EXERCISES=ON -DLADDER_EXERCISE_STEPS="$n" \
            -DLADDER_STEP${n}_SOURCE="$PWD/$wrong" -DLADDER_EXERCISE_TIMEOUT=120 >/dev/null &&
        cmake --build build-rej --target step-$n ladder_gpu_tests_step$n >/dev/null || echo "build of $wrong FAILED"
      log_file="$OUT/exercises_rejected_$(basename "$wrong" .cu).log"
      if (cd build-rej && ctest -L "exercise-$n" --timeout 400 --output-on-failure >"$log_file" 2>&1); then
        echo "NOT REJECTED (the check passed it): $wrong"
      else
        echo "rejected as it must be: $wrong"
      fi
      grep -E "^FAIL|^PASS|Barrier error|Divergent|ERROR SUMMARY|synccheck" "$log_file" | head -12
    done
  } 2>&1 | tee -a "$OUT/exercises.log"
fi

if [ "$mode" = all ] || [ "$mode" = bench ]; then
  mkdir -p "$results"
  rm -f "$results/bench.csv"
  for exe in $(ls $build/step-[0-9] | sort); do
    log "bench $exe"
    timeout 400 "$exe" --bench $sizes_arg --csv "$results/bench.csv" 2>&1 | grep -E "^bench|FAILED|error|SKIP"
  done 2>&1 | tee "$OUT/bench.log"
  python3 common/scripts/plot.py --csv "$results/bench.csv" --out "$results" 2>&1 | tee -a "$OUT/bench.log"
  cp "$results"/bench.csv "$OUT"/ 2>/dev/null
  echo
  echo "== summary (TFLOP/s; x = speed vs cuBLAS in the same process) =="
  python3 - "$results/bench.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
shapes = []
for r in rows:
    s = f"{r['M']}x{r['N']}x{r['K']}"
    if s not in shapes: shapes.append(s)
names = []
for r in rows:
    if r['name'] not in names: names.append(r['name'])
print(f"{'step':30s}" + "".join(f"{s:>20s}" for s in shapes))
for n in names:
    cells = {f"{r['M']}x{r['N']}x{r['K']}": r for r in rows if r['name'] == n}
    line = f"{n:30s}"
    for s in shapes:
        r = cells.get(s)
        line += f"{float(r['tflops']):10.1f} {float(r['speedup_vs_cublas']):5.2f}x   " if r else f"{'-':>20s}"
    print(line)
PY
fi

# Everything above in one archive (the device tool brings back only a few files).
tar czf "$OUT/run.tar.gz" -C "$OUT" --exclude=run.tar.gz . 2>/dev/null
