#!/usr/bin/env bash
# CPU test of run_exercise.sh's verdicts, with stand-ins for the step executable, the GPU
# tests and compute-sanitizer: right numbers and clean sanitizers pass; right numbers with
# a synccheck report fail with its hint; no compute-sanitizer fails (the check is whole);
# a sanitizer stopped by the time limit fails as not checked, not as a report; a command
# stopped by the time limit is reported as that (with the limit), the barrier hints only
# when the hang trap printed or the numbers were wrong; each command's time is printed; a
# file edited outside its regions is refused before anything runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$dir/ok"
printf '#!/bin/sh\nsleep 5\nexit 0\n' >"$dir/slow"
printf '#!/bin/sh\necho "step-7: 1 check(s) FAILED"\nsleep 5\nexit 1\n' >"$dir/wrong_then_slow"
printf '#!/bin/sh\necho "LADDER_HANG_TRAP: full barrier: block (0,0,0) thread 128 waited > ~2 s"\nexit 1\n' >"$dir/trap"
solution="$here/fixtures/exercises/solutions/07_clusters_multicast.cu"
sed 's/^constexpr int STAGES = /constexpr int STAGES = 1 + /' "$solution" >"$dir/outside.cu"
cat >"$dir/sanitizer" <<'SH'
#!/bin/sh
# --tool <tool> --error-exitcode 1 <exe> ...: report a divergent barrier under synccheck
# when FAKE_SYNCCHECK_ERROR is set, else nothing.
if [ "$2" = synccheck ] && [ -n "${FAKE_SYNCCHECK_ERROR:-}" ]; then
  echo "========= Barrier error detected. Divergent thread(s) in block"
  exit 1
fi
# Under racecheck, with FAKE_RACECHECK_SLOW, run past the time limit, clean: a slow tool.
if [ "$2" = racecheck ] && [ -n "${FAKE_RACECHECK_SLOW:-}" ]; then
  sleep 5
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
fi
exit 0
SH
chmod +x "$dir/ok" "$dir/slow" "$dir/wrong_then_slow" "$dir/trap" "$dir/sanitizer"
failures=0
exe=ok
source_file=$solution
expect() {  # expect <wanted exit> <wanted text> <env...>: step 7, $source_file, $exe
  local want_rc=$1 want_text=$2
  shift 2
  out=$(env "$@" "$here/run_exercise.sh" 7 "$source_file" "$dir/ok" "$dir/$exe" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want_text" <<<"$out"; then
    echo "FAILED: $* -> exit $rc (want $want_rc), output lacks '$want_text':"
    echo "$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
}
expect 0 "PASS: exercise 7" COMPUTE_SANITIZER="$dir/sanitizer"
expect 0 "(ok --check: 0 s of the 120 s it may take)" COMPUTE_SANITIZER="$dir/sanitizer"
expect 1 "compute-sanitizer objects: synccheck" COMPUTE_SANITIZER="$dir/sanitizer" FAKE_SYNCCHECK_ERROR=1
expect 1 "The cluster of one" COMPUTE_SANITIZER="$dir/sanitizer" FAKE_SYNCCHECK_ERROR=1
expect 1 "compute-sanitizer is needed" COMPUTE_SANITIZER="$dir/missing" PATH=/usr/bin:/bin
expect 1 "compute-sanitizer racecheck ran" COMPUTE_SANITIZER="$dir/sanitizer" FAKE_RACECHECK_SLOW=1 \
  LADDER_EXERCISE_TIMEOUT=1
not_expect() {  # not_expect <text> <env...>: the last output must not contain it
  if grep -qF -- "$1" <<<"$out"; then
    echo "FAILED: output has '$1' where it must not:"
    echo "$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
}
# Out of time with nothing wrong before: that, the limit, and no barrier hint (neither the
# trap's nor the step's, which speaks of hang traps on the full barrier).
exe=slow
expect 1 "TIME LIMIT: slow --check ran out of time after 1 s" COMPUTE_SANITIZER="$dir/sanitizer" \
  LADDER_EXERCISE_TIMEOUT=1
expect 1 "No hang trap fired" COMPUTE_SANITIZER="$dir/sanitizer" LADDER_EXERCISE_TIMEOUT=1
not_expect "hang trap fired:"
not_expect "hint (step 7)"
not_expect "full barrier"
# Wrong values, then out of time: the step's hint too.
exe=wrong_then_slow
expect 1 "ran out of time after 1 s" COMPUTE_SANITIZER="$dir/sanitizer" LADDER_EXERCISE_TIMEOUT=1
expect 1 "hint (step 7)" COMPUTE_SANITIZER="$dir/sanitizer" LADDER_EXERCISE_TIMEOUT=1
not_expect "hang trap fired:"
exe=trap
expect 1 "hang trap fired" COMPUTE_SANITIZER="$dir/sanitizer"
expect 1 "hint (step 7)" COMPUTE_SANITIZER="$dir/sanitizer"
not_expect "TIME LIMIT"
exe=ok
source_file=$dir/outside.cu
expect 1 "changed outside its EXERCISE regions" COMPUTE_SANITIZER="$dir/sanitizer"
not_expect "PASS"
source_file=$dir/missing.cu
expect 1 "does not exist" COMPUTE_SANITIZER="$dir/sanitizer"
[ "$failures" -eq 0 ] && echo "run_exercise.sh: all verdicts as expected"
exit "$failures"
