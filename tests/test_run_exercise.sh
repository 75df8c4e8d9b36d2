#!/usr/bin/env bash
# CPU test of run_exercise.sh's verdicts, with stand-ins for the step executable, the GPU
# tests and compute-sanitizer: right numbers and clean sanitizers pass; right numbers with
# a synccheck report fail with its hint; no compute-sanitizer fails (the check is whole);
# a sanitizer stopped by the time limit fails as not checked, not as a report.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$dir/ok"
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
chmod +x "$dir/ok" "$dir/sanitizer"
failures=0
expect() {  # expect <wanted exit> <wanted text> <env...>
  local want_rc=$1 want_text=$2
  shift 2
  out=$(env "$@" "$here/run_exercise.sh" 7 exercise.cu "$dir/ok" "$dir/ok" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want_text" <<<"$out"; then
    echo "FAILED: $* -> exit $rc (want $want_rc), output lacks '$want_text':"
    echo "$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
}
expect 0 "PASS: exercise 7" COMPUTE_SANITIZER="$dir/sanitizer"
expect 1 "compute-sanitizer objects: synccheck" COMPUTE_SANITIZER="$dir/sanitizer" FAKE_SYNCCHECK_ERROR=1
expect 1 "The cluster of one" COMPUTE_SANITIZER="$dir/sanitizer" FAKE_SYNCCHECK_ERROR=1
expect 1 "compute-sanitizer is needed" COMPUTE_SANITIZER="$dir/missing" PATH=/usr/bin:/bin
expect 1 "compute-sanitizer racecheck ran" COMPUTE_SANITIZER="$dir/sanitizer" FAKE_RACECHECK_SLOW=1 \
  LADDER_EXERCISE_TIMEOUT=1
[ "$failures" -eq 0 ] && echo "run_exercise.sh: all verdicts as expected"
exit "$failures"
