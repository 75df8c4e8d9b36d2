#!/usr/bin/env bash
# Runs one step's executable on small shapes under compute-sanitizer with one tool
# (memcheck, racecheck, synccheck or initcheck). Exit 77 (CTest: skipped) with the reason
# when there is no GPU or no compute-sanitizer; otherwise the sanitizer's verdict.
#   run_sanitizer.sh <tool> <step executable>
set -u
tool=$1
exe=$2
sanitizer=${COMPUTE_SANITIZER:-}
if [ -z "$sanitizer" ]; then
  sanitizer=$(command -v compute-sanitizer || true)
  [ -z "$sanitizer" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$sanitizer" ]; then
  echo "SKIP: compute-sanitizer is not installed"
  exit 77
fi
if [ ! -x "$sanitizer" ] && ! command -v "$sanitizer" >/dev/null; then
  echo "SKIP: COMPUTE_SANITIZER=$sanitizer is not an executable"
  exit 77
fi
# The executable itself says whether this machine has a GPU that can run the step.
"$exe" --check --m 1 --n 1 --k 8 --reference cpu >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
  "$exe" --check --m 1 --n 1 --k 8 --reference cpu | head -1
  exit 77
fi
# The float64 CPU reference keeps cuBLAS's own kernels out of the sanitizer's report.
exec "$sanitizer" --tool "$tool" --error-exitcode 1 "$exe" --check --sizes small --reference cpu --seed 7
