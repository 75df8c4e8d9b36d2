#!/usr/bin/env bash
# The ctest test exercise<N> (label exercise-N): the GPU correctness checks of one step,
# run against whatever file the step was built from (exercise.cu in an exercise build),
# then compute-sanitizer memcheck, racecheck and synccheck on small shapes (a solution
# that gives the right numbers by luck of timing, or breaks a barrier rule, fails here);
# each command under a time limit, and on failure a hint that says where to look.
#   run_exercise.sh <step> <source file> <ladder_gpu_tests> <step executable>
# Exit 0 pass (printing "PASS: exercise <step>"), 1 fail, also when this machine has no GPU
# for the step: an exercise that was not checked must not read as passed.
# LADDER_EXERCISE_TIMEOUT (seconds per command, default 60) bounds a hang; with
# LADDER_GPU_LOCK=<file> every command first takes that lock (flock), so that a class
# sharing one GPU runs its checks one at a time.
set -u
step=$1
source_file=$2
gpu_tests=$3
step_exe=$4
limit=${LADDER_EXERCISE_TIMEOUT:-60}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "exercise ${step}: checking step ${step} built from ${source_file}"

# Runs one command under the time limit (and the class lock), output to the terminal and
# to $log. Returns the command's exit status; 124 when it ran out of time.
run() {
  local cmd=("$@")
  if [ -n "${LADDER_GPU_LOCK:-}" ] && command -v flock >/dev/null; then
    cmd=(flock "$LADDER_GPU_LOCK" "${cmd[@]}")
  fi
  echo "+ $*"
  timeout --kill-after=10 "$limit" "${cmd[@]}" 2>&1 | tee -a "$log"
  return "${PIPESTATUS[0]}"
}

# 1. The step's own check on small shapes: it prints the first wrong element (row, col,
#    got, want) and how many elements are NaN (never written).
run "$step_exe" --check --sizes small
exe_rc=$?
if [ "$exe_rc" -eq 77 ]; then
  # Not a skip: a skipped exercise would read as "100% tests passed" although nothing was
  # checked. The student runs it again on a machine with a GPU that can run the step.
  echo "FAIL: exercise ${step} was NOT checked: no GPU here that can run step ${step} (see the"
  echo "  SKIP line above); run the exercise build on the GPU machine"
  exit 1
fi

# 2. The GoogleTest cases of this step: the check shapes, shapes that stress its pipeline
#    (K of one k-block, of STAGES +- 1 k-blocks, a K tail, M and N one past a tile), bad
#    input, and for step 7 the cluster sizes against each other.
filter="*/0${step}_*"
[ "$step" -eq 7 ] && filter="${filter}:GpuStep07.*"
run "$gpu_tests" --gtest_filter="$filter" --gtest_brief=1
tests_rc=$?

# 3. compute-sanitizer on small shapes, once the numbers are right (a hung stub under a
#    sanitizer would only be slower to fail). COMPUTE_SANITIZER may name the binary.
sanitizer_failed=""
sanitizer_timed_out=""
if [ "$exe_rc" -eq 0 ] && [ "$tests_rc" -eq 0 ]; then
  here=$(cd "$(dirname "$0")" && pwd)
  for tool in memcheck racecheck synccheck; do
    run "$here/run_sanitizer.sh" "$tool" "$step_exe"
    rc=$?
    if [ "$rc" -eq 77 ]; then
      echo "FAIL: exercise ${step}: compute-sanitizer is needed for the whole check (it ships"
      echo "  with the CUDA toolkit: put its bin/ on PATH or set COMPUTE_SANITIZER=/path/to/it)"
      exit 1
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      sanitizer_timed_out="$sanitizer_timed_out $tool"
    elif [ "$rc" -ne 0 ]; then
      sanitizer_failed="$sanitizer_failed $tool"
    fi
  done
  if [ -z "$sanitizer_failed" ] && [ -n "$sanitizer_timed_out" ]; then
    # Not a pass and not a report: the tool was stopped before it could say either.
    echo "FAIL: exercise ${step} was NOT fully checked: compute-sanitizer${sanitizer_timed_out} ran"
    echo "  past the ${limit} s a command may take (LADDER_EXERCISE_TIMEOUT) and was stopped before"
    echo "  it could report. Under the sanitizer the kernels run many times slower: configure with"
    echo "  -DLADDER_EXERCISE_TIMEOUT=120 (or more) and run the check again. If it still runs out,"
    echo "  the kernel hangs under the tool: a wait on an mbarrier that never completes."
    exit 1
  fi
  if [ -z "$sanitizer_failed" ]; then
    echo "PASS: exercise ${step}: step ${step} is correct on every tested shape, and"
    echo "  compute-sanitizer memcheck, racecheck and synccheck find nothing"
    exit 0
  fi
fi

echo
if [ -n "$sanitizer_failed" ]; then
  echo "FAIL: exercise ${step}: the numbers are right, but compute-sanitizer objects:${sanitizer_failed}"
  case "$sanitizer_failed" in *memcheck*)
    echo "memcheck: an access outside an allocation (global) or outside this CTA's shared memory:"
    echo "  its report above names the kernel, the address and the source line." ;; esac
  case "$sanitizer_failed" in *racecheck*)
    echo "racecheck: two accesses to the same shared-memory bytes, at least one a write, that no"
    echo "  barrier orders: a slot released before its reads finished, a wait on the wrong parity"
    echo "  that passed early, or a count that lets a phase complete too soon. The right answer"
    echo "  was luck of timing. (ladder-ring models the ring protocol on the CPU.)" ;; esac
  case "$sanitizer_failed" in *synccheck*)
    echo "synccheck: a barrier used against its rules, e.g. \"Divergent thread(s) in block\": some"
    echo "  threads of a warp reach a barrier that the whole warp must reach together (bar.sync,"
    echo "  a named barrier, barrier.cluster), or a count that the threads arriving do not match."
    [ "$step" -eq 7 ] && echo "  Step 7: README.md, \"The cluster of one\", explains the report for gemm_kernel<1>." ;; esac
  echo "Stuck? EXERCISES.md in the step's folder."
  exit 1
fi
echo "FAIL: exercise ${step} (step executable: exit ${exe_rc}, GPU tests: exit ${tests_rc})"
if [ "$exe_rc" -eq 124 ] || [ "$tests_rc" -eq 124 ] || [ "$exe_rc" -eq 137 ] ||
   [ "$tests_rc" -eq 137 ] || grep -q "LADDER_HANG_TRAP" "$log"; then
  echo "hang detected: a barrier phase or arrival count is wrong"
  echo "  (a wait on an mbarrier never completed: the hang trap of the exercise build stopped"
  echo "  the kernel after ~2 s, or the command ran past ${limit} s and was killed. A"
  echo "  LADDER_HANG_TRAP line above, if any, names the barrier and the block.)"
fi
if grep -qE "FAILED: [1-9][0-9]* non-finite|left unwritten" "$log"; then
  echo "NaN in C means some elements were never written: the kernel stopped early (a trap or"
  echo "  a fault, see above), or the epilogue skipped them."
fi
if grep -q "different bits: a race" "$log"; then
  echo "Two runs gave different bits: a race. Something reads shared memory before it has"
  echo "  landed, or overwrites it while it is still being read."
fi
case "$step" in
  1) echo "hint (step 1): NaN in C: some of a thread's four outputs are never written. Each thread"
     echo "  owns rows m, m+BM and columns n, n+BN. Wrong only in the last rows or columns (M = 9,"
     echo "  N = 33, ...): the second row or column lies past C there; it must be neither stored"
     echo "  nor loaded (memcheck reports the read of A or B past its end)." ;;
  2) echo "hint (step 2): all of C NaN: nothing reaches C. Wrong values in a pattern of 8 rows or 8"
     echo "  columns: the staging layout and the read-back disagree (slab = col / 64, chunk"
     echo "  (col % 64) / 8 of that slab's row, swizzled_offset). Wrong only for N = 129 or 500: the"
     echo "  16-byte stores need N % 8 == 0. racecheck: a barrier is missing before the writes into"
     echo "  the ring (warps still in ldmatrix) or between the writes and the reads." ;;
  3) echo "hint (step 3): wrong in columns 128..255 of each tile (N > 128): the lower B box is"
     echo "  missing, lands in the wrong place (128 rows x 128 bytes into the B tile), or brings"
     echo "  the wrong rows (n0 + 128). A hang: the full barrier expects more bytes or arrivals"
     echo "  than arrive (a box not issued must not be announced; every box counts its FULL"
     echo "  bytes). Too few bytes: the phase completes early, a race." ;;
  4) echo "hint (step 4): correct for K <= 256 but a hang beyond: the ring is never refilled after"
     echo "  the prologue, or a refill waits on the wrong phase of its empty barrier. Thread 0's"
     echo "  refill position lags the warps' by one k-block, and so does its parity. Wrong or"
     echo "  changing values: a refill overwrote a slot still being read. Try your schedule on"
     echo "  the CPU: edit schedule_step04 in common/models/ring_schedules.cpp, ./build/ladder-ring --step 4" ;;
  5) echo "hint (step 5): wrong only where N > 128: the second wgmma of a k16 step is missing, reads"
     echo "  the wrong rows of B (its descriptor starts 128 rows x 128 bytes into the B tile), or"
     echo "  writes the wrong half of acc (the epilogue reads column block j from acc[4j..4j+3],"
     echo "  for all 32 blocks of the 256 columns)." ;;
  6) echo "hint (step 6): every value wrong, no hang: the B boxes are not loaded, or not waited"
     echo "  for. A hang on a full barrier: its byte count is not the bytes of the box issued on"
     echo "  it (A: A_ROWS<S> rows, 128 cooperative, 64 ping-pong; B: 256 rows), or an"
     echo "  uninitialised barrier. Values that change between runs: a consumer reads B without"
     echo "  waiting for its barrier." ;;
  7) echo "hint (step 7): a hang on the full barrier: some CTA's stage never receives every byte"
     echo "  its producer announced. Count what lands in each CTA per k-block (the A box, from"
     echo "  whichever CTA issues it, and its own B rows) and the multicast mask (bit r = CTA rank"
     echo "  r). Wrong values only in the lesson variant: the tile walk (which columns rank r"
     echo "  computes) or A boxes of the wrong rows. The CPU model checks the protocol:"
     echo "  edit schedule_step07 in common/models/ring_schedules.cpp, ./build/ladder-ring --step 7 --cluster 2" ;;
esac
echo "Stuck? EXERCISES.md in the step's folder, then diff exercise.cu against gemm.cu."
exit 1
