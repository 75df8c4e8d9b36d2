#!/usr/bin/env bash
# The ctest test exercise<N>_mutant_<name> (label exercise-mutants): a plausible wrong
# solution (a patch in tests/fixtures/exercises/mutants/<folder>/, applied to the reference
# solution by the build) must be REJECTED by the exercise check, with output that matches
# the patch's `# expect:` line (the hint a student would read).
#   run_mutant.sh <step> <patch> <patched source> <step executable built from it>
# Exit 0: rejected as expected. Exit 1: the check passed it (the check has a hole), or
# rejected it without the expected hint (the hint would mislead). The GoogleTest cases are
# left out (run_exercise.sh with "-"): the step executable's check shapes and long-K shapes,
# and the sanitizers, are what must catch a mutant.
set -u
step=$1
patch=$2
source_file=$3
exe=$4
here=$(cd "$(dirname "$0")" && pwd)
mistake=$(sed -n 's/^# mistake: //p' "$patch" | head -1)
expect=$(sed -n 's/^# expect: //p' "$patch" | head -1)
echo "mutant $(basename "$patch" .patch) of exercise ${step}: ${mistake}"
echo "expected: rejected, with output matching /${expect}/"
out=$("$here/run_exercise.sh" "$step" "$source_file" - "$exe" 2>&1)
rc=$?
echo "$out"
echo "----"
if grep -q "was NOT checked" <<<"$out"; then
  echo "NOT CHECKED: the exercise check could not run here (above), so this mutant proves nothing"
  exit 1
fi
if [ "$rc" -eq 0 ]; then
  echo "MUTANT PASSED: the exercise check accepted this wrong solution (${mistake})"
  exit 1
fi
if ! grep -qE -- "$expect" <<<"$out"; then
  echo "REJECTED, BUT WITHOUT THE EXPECTED HINT: no line matches /${expect}/"
  exit 1
fi
echo "REJECTED as expected: $(grep -E -m1 -- "$expect" <<<"$out")"
exit 0
