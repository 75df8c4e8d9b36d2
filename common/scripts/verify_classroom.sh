#!/usr/bin/env bash
# The classroom on a GPU machine, logs under $OUT. Give the parts to run, in order:
#   build      configure and build the exercise configuration from the reference solutions,
#              with every mutant (build-class/, kept between runs; the target exercise-checks)
#   solutions  exercise-1..7 on the reference solutions: each must pass, sanitizers included
#   mutants    exercise-mutants: each mutant must be rejected with the hint its patch names
#   grader     grade.py on a demonstration class of step 4 made from the fixtures: the
#              reference solution, two mutants, a file that does not compile, one that loops
#              forever and one edited outside the regions; the gradebook in $OUT/grade-step4/
# e.g. `verify_classroom.sh build solutions`, then `verify_classroom.sh mutants grader`.
# Exit 0 when everything came out as it must.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/classroom-out}
mkdir -p "$OUT"
jobs=$(nproc 2>/dev/null || echo 8)
status=0
[ $# -gt 0 ] || { echo "usage: $0 build|solutions|mutants|grader ..." >&2; exit 2; }

for part in "$@"; do
if [ "$part" = build ]; then
  echo "== build"
  cmake -S . -B build-class -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_EXERCISES=ON \
        -DLADDER_EXERCISE_SOLUTIONS=ON -DLADDER_EXERCISE_MUTANTS=ON \
        -DLADDER_EXERCISE_TIMEOUT=240 >"$OUT/configure.log" 2>&1 || { echo "configure FAILED"; tail -20 "$OUT/configure.log"; exit 1; }
  # What the exercise tests run: step-N and ladder_gpu_tests_stepN of every step, every mutant.
  cmake --build build-class -j "$jobs" --target exercise-checks >"$OUT/build.log" 2>&1 || { echo "build FAILED"; grep -E "error" "$OUT/build.log" | head -20; exit 1; }
elif [ "$part" = solutions ]; then
  echo "== the reference solutions: every exercise-N must pass"
  ctest --test-dir build-class -L 'exercise-[1-7]' -j 4 -V >"$OUT/solutions.log" 2>&1 || status=1
  grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|tests failed" "$OUT/solutions.log"
  # How long each command of each check took, four checks sharing the GPU (run_exercise.sh).
  grep -E "^[0-9]+: (exercise [1-7]: checking|  \(.* s of the [0-9]+ s it may take\))" "$OUT/solutions.log"
elif [ "$part" = mutants ]; then
  echo "== the mutants: every one must be rejected with its hint"
  ctest --test-dir build-class -L exercise-mutants -j 6 --output-on-failure >"$OUT/mutants.log" 2>&1 || status=1
  grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|tests failed" "$OUT/mutants.log"
  grep -E "MUTANT PASSED|WITHOUT THE EXPECTED" "$OUT/mutants.log" | sort | uniq -c
elif [ "$part" = grader ]; then
  echo "== the grader on a class of step 4"
  class="$OUT/class-step4"
  rm -rf "$class" && mkdir -p "$class"
  cp tests/fixtures/exercises/solutions/04_tma_multistage.cu "$class/reference_student.cu"
  for p in tests/fixtures/exercises/mutants/04_tma_multistage/refill_parity_never_flips.patch \
           tests/fixtures/exercises/mutants/04_tma_multistage/refill_without_wait.patch \
           tests/fixtures/exercises/class/04_tma_multistage/*.patch; do
    python3 common/scripts/mutants.py apply "$p" --out "$class/$(basename "$p" .patch).cu" || status=1
  done
  python3 common/scripts/grade.py --step 4 --submissions "$class" --out "$OUT/grade-step4" \
          --timeout 60 --jobs "$jobs" 2>&1 | tee "$OUT/grade.log" || status=1
  cat "$OUT/grade-step4/gradebook.md" 2>/dev/null || status=1
  # What the gradebook must say, one line per student.
  python3 - "$OUT/grade-step4/gradebook.csv" <<'PY' || status=1
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1]))}
want = {
    "reference_student": ("yes", "passed"),
    "refill_parity_never_flips": ("no", "failed"),
    "refill_without_wait": ("no", "failed"),
    "does_not_compile": ("no", "build failed"),
    "loops_forever": ("no", "failed"),
    "edits_outside": ("no", "rejected: edits outside the exercise regions"),
}
bad = 0
for student, (passed, status) in want.items():
    r = rows.get(student)
    got = (r["passed"], r["status"]) if r else None
    ok = got == (passed, status)
    if student == "loops_forever" and r:
        ok = ok and r["first hint"].startswith("TIME LIMIT")
    if student == "reference_student" and r:
        ok = ok and all(r[k] == "clean" for k in ("memcheck", "racecheck", "synccheck"))
    print(("ok   " if ok else "WRONG"), student, got, (r or {}).get("first hint", ""))
    bad += not ok
sys.exit(1 if bad else 0)
PY
else
  echo "usage: $0 build|solutions|mutants|grader ..." >&2
  exit 2
fi
done
echo "verify_classroom.sh $*: $([ $status = 0 ] && echo ALL AS EXPECTED || echo "PROBLEMS, see $OUT")"
exit $status
