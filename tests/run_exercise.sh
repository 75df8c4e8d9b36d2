#!/usr/bin/env bash
# The ctest test exercise<N> (label exercise-N): the GPU correctness checks of one step,
# run against whatever file the step was built from (exercise.cu in an exercise build),
# then compute-sanitizer memcheck, racecheck and synccheck on small shapes (a solution
# that gives the right numbers by luck of timing, or breaks a barrier rule, fails here);
# each command under a time limit, and on failure a hint that says where to look.
#   run_exercise.sh <step> <source file> <ladder_gpu_tests_step<step> or -> <step executable>
# Exit 0 pass (printing "PASS: exercise <step>"), 1 fail, also when this machine has no GPU
# for the step: an exercise that was not checked must not read as passed.
# Before anything runs, the source file must differ from the step's reference solution only
# inside its EXERCISE regions (exercises.py frame): the exercise build's delay points
# (tests/exercise_delay.cuh) sit outside them and must stay.
# LADDER_EXERCISE_TIMEOUT (seconds per command, default 120) bounds a command; a command that
# runs out is reported as such ("ran out of time after N s"), apart from the hang trap (a
# barrier wait stopped after ~2 s, which prints LADDER_HANG_TRAP): the barrier hints appear
# only when the trap fired or the numbers were wrong. Each command's time is printed after
# it. With LADDER_GPU_LOCK=<file> every command first takes that lock (flock), so that a
# class sharing one GPU runs its checks one at a time.
set -u
step=$1
source_file=$2
gpu_tests=$3
step_exe=$4
limit=${LADDER_EXERCISE_TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "exercise ${step}: checking step ${step} built from ${source_file}"

# 0. Only the regions edited. (gemm.cu itself, the instructor's check of a GPU, has none.)
folder=$(cd "$root" && ls -d "0${step}"_* 2>/dev/null | head -1)
if [ "$(basename "$source_file")" != gemm.cu ]; then
  if [ ! -f "$source_file" ]; then
    echo "FAIL: exercise ${step}: ${source_file} does not exist"
    exit 1
  fi
  # LADDER_EXERCISE_FRAME: the file to compare with (the grader gives the handed-out
  # exercise.cu, so that a student's process needs no access to the solutions).
  frame=${LADDER_EXERCISE_FRAME:-$root/tests/fixtures/exercises/solutions/${folder}.cu}
  if ! "${PYTHON:-python3}" "$root/common/scripts/exercises.py" frame "$source_file" \
       --against "$frame"; then
    echo "FAIL: exercise ${step}: ${source_file} is changed outside its EXERCISE regions (above)."
    echo "  Only the lines between '// EXERCISE BEGIN' and '// EXERCISE END' are yours; a"
    echo "  LADDER_EXERCISE_DELAY line outside them belongs to the check. Copy your regions"
    echo "  aside, put the file back (git checkout -- ${folder}/exercise.cu), paste them in."
    exit 1
  fi
fi

# The step's default variant only: the other variants are built from their own files.
case "$step" in
  6) variant=(--variant cooperative); gtest_filter="*/06_warp_specialized_cooperative_*" ;;
  7) variant=(--variant lesson); gtest_filter="*/07_clusters_multicast_lesson_*" ;;
  *) variant=(--variants default); gtest_filter="*/${folder}_*" ;;
esac
case "$step" in
  2) gtest_filter="${gtest_filter}-*_pipeline_*" ;;
  3) gtest_filter="${gtest_filter}-*_barrier_*:*_bulk1d_*" ;;
esac

timed_out=""   # one line per command stopped by the time limit
# Runs one command under the time limit (and the class lock), output to the terminal and
# to $log, then says how long it took. Returns the command's exit status; 124 or 137 when
# it ran out of time.
run() {
  local cmd=("$@")
  if [ -n "${LADDER_GPU_LOCK:-}" ] && command -v flock >/dev/null; then
    cmd=(flock "$LADDER_GPU_LOCK" "${cmd[@]}")
  fi
  echo "+ $*"
  local started=$SECONDS
  timeout --kill-after=10 "$limit" "${cmd[@]}" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    timed_out="${timed_out}TIME LIMIT: $(basename "$1") ${2:-} ran out of time after ${limit} s and was stopped
"
  else
    echo "  ($(basename "$1") ${2:-}: $((SECONDS - started)) s of the ${limit} s it may take)"
  fi
  return "$rc"
}

# 1. The step's own check on small shapes: it prints the first wrong element (row, col,
#    got, want) and how many elements are NaN (never written). Then K long enough that every
#    ring (STAGES <= 8 slots, and a refill position that lags by one) wraps at least twice,
#    with M and N one past a tile edge.
run "$step_exe" --check --sizes small "${variant[@]}"
exe_rc=$?
if [ "$exe_rc" -eq 77 ]; then
  # Not a skip: a skipped exercise would read as "100% tests passed" although nothing was
  # checked. The student runs it again on a machine with a GPU that can run the step.
  echo "FAIL: exercise ${step} was NOT checked: no GPU here that can run step ${step} (see the"
  echo "  SKIP line above); run the exercise build on the GPU machine"
  exit 1
fi
if [ "$exe_rc" -eq 0 ]; then
  run "$step_exe" --check --sizes 129x257x1096,257x300x2056 "${variant[@]}"
  exe_rc=$?
fi

# 2. The GoogleTest cases of this step's default variant: the check shapes, shapes that
#    stress its pipeline (K of one k-block, of STAGES +- 1 k-blocks, a K tail, M and N one
#    past a tile), and every case twice (the two runs must agree bit for bit).
tests_rc=-1  # not run: the step executable failed first
if [ "$exe_rc" -eq 0 ] && [ "$gpu_tests" = - ]; then
  # No GoogleTest binary (a mutant, a graded submission built alone): the executable runs
  # shapes of the same kinds instead: K of one element chunk, of one k-block, with a tail,
  # past STAGES k-blocks; M and N one past a tile and odd.
  run "$step_exe" --check --sizes 129x257x8,257x129x64,300x520x200,129x300x328,520x129x584 "${variant[@]}"
  tests_rc=$?
elif [ "$exe_rc" -eq 0 ]; then
  run "$gpu_tests" --gtest_filter="$gtest_filter" --gtest_brief=1
  tests_rc=$?
fi

# 3. compute-sanitizer on small shapes, once the numbers are right (a hung stub under a
#    sanitizer would only be slower to fail). COMPUTE_SANITIZER may name the binary.
sanitizer_failed=""
sanitizer_timed_out=""
if [ "$exe_rc" -eq 0 ] && [ "$tests_rc" -eq 0 ]; then
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
    case "$rc" in
      0) echo "sanitizer $tool: clean" ;;
      124|137) echo "sanitizer $tool: stopped by the time limit" ;;
      *) echo "sanitizer $tool: REPORTED" ;;
    esac
  done
  if [ -z "$sanitizer_failed" ] && [ -n "$sanitizer_timed_out" ]; then
    # Not a pass and not a report: the tool was stopped before it could say either.
    echo "FAIL: exercise ${step} was NOT fully checked: compute-sanitizer${sanitizer_timed_out} ran"
    echo "  out of time after ${limit} s (LADDER_EXERCISE_TIMEOUT) and was stopped before it could"
    echo "  report. Under the sanitizer the kernels run many times slower: configure with"
    echo "  -DLADDER_EXERCISE_TIMEOUT=240 (or more) and run the check again."
    if grep -q "LADDER_HANG_TRAP" "$log"; then
      echo "  The hang trap fired under the tool (LADDER_HANG_TRAP above): a barrier wait never completed."
    fi
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
    echo "  barrier orders (a __syncthreads, a named barrier) or a shared-memory hazard between a"
    echo "  thread's writes and other threads' reads. (Races through mbarriers and TMA copies are"
    echo "  caught by the delays of the exercise build as wrong values, not by racecheck.)" ;; esac
  case "$sanitizer_failed" in *synccheck*)
    echo "synccheck: a barrier used against its rules, e.g. \"Divergent thread(s) in block\": some"
    echo "  threads of a warp reach a barrier that the whole warp must reach together (bar.sync,"
    echo "  a named barrier, barrier.cluster), or a count that the threads arriving do not match."
    [ "$step" -eq 7 ] && echo "  Step 7: README.md, \"The cluster of one\", explains the report for gemm_kernel<1>." ;; esac
  echo "Stuck? EXERCISES.md in the step's folder."
  exit 1
fi
tests_said="exit ${tests_rc}"
[ "$tests_rc" -eq -1 ] && tests_said="not run"
echo "FAIL: exercise ${step} (step executable: exit ${exe_rc}, GPU tests: ${tests_said})"
printf "%s" "$timed_out"
trap_fired=""
grep -q "LADDER_HANG_TRAP" "$log" && trap_fired=yes
if [ -n "$trap_fired" ]; then
  echo "hang trap fired: a wait on an mbarrier never completed (the exercise build stops a"
  echo "  wait after ~2 s; the LADDER_HANG_TRAP line above names the barrier and the block)."
  echo "  A phase that never completes: a parity that waits for a phase not yet started, an"
  echo "  arrival count larger than the arrivals that come, or more bytes announced than land."
elif [ -n "$timed_out" ]; then
  echo "  No hang trap fired, so no barrier wait was stuck: the program ran slowly or looped"
  echo "  (a loop that never ends, a kernel far slower than it should be). The time limit is"
  echo "  LADDER_EXERCISE_TIMEOUT: if the reference solution also runs out on this machine"
  echo "  (a GPU shared with other work), configure with a larger -DLADDER_EXERCISE_TIMEOUT."
  if ! grep -q "FAILED" "$log"; then
    # Nothing was wrong before the limit: the step's hints (about wrong values and barriers)
    # would point at mistakes nobody saw.
    echo "Stuck? EXERCISES.md in the step's folder."
    exit 1
  fi
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
  1) echo "hint (step 1): NaN in C: some of a thread's four outputs are never written. Wrong only"
     echo "  in the last rows or columns (M = 9, N = 33, ...): which of a thread's rows and columns"
     echo "  exist there, and does the kernel read or write the others? (memcheck names a read of"
     echo "  A or B past its end.)" ;;
  2) echo "hint (step 2): all of C NaN: nothing reaches C. Wrong values in a pattern of 8 rows or"
     echo "  8 columns: the layout the fragments are written in and the one the rows are read back"
     echo "  from disagree (read swizzled_offset and the fragment map above mma_m16n8k16_bf16)."
     echo "  Wrong only for N = 129 or 500: which stores need N % 8 == 0? racecheck: which"
     echo "  threads still read the ring, and which read what other threads wrote?" ;;
  3) echo "hint (step 3): wrong in columns 128..255 of each tile (N > 128): the second half of the"
     echo "  B tile is missing, lands in the wrong place, or brings the wrong rows. A hang trap on"
     echo "  the full barrier: it expects more arrivals or bytes than come (for every N: which"
     echo "  boxes are issued?). Wrong values that move between runs: it expects fewer bytes than"
     echo "  land, so the phase completes before the last box (the exercise build issues boxes"
     echo "  microseconds apart, so this fails every time)." ;;
  4) echo "hint (step 4): correct for short K but a hang trap beyond: the ring is never refilled,"
     echo "  or a refill waits on a phase of its empty barrier that has not started. Wrong values:"
     echo "  a refill overwrote a slot a slower warp was still reading (the exercise build makes"
     echo "  warp w sleep before its reads, so a refill that does not wait for every release of"
     echo "  that use of the slot always lands too early), or a k-block went to the wrong slot."
     echo "  Run your schedule on the CPU: schedule_step04 in common/models/ring_schedules.cpp,"
     echo "  ./build/ladder-ring --step 4" ;;
  5) echo "hint (step 5): wrong only where N > 128: the columns 128..255 of a tile come from the"
     echo "  wrong rows of B, land in the wrong accumulators, or are never computed. Compare the"
     echo "  register fragment of the N = 128 and N = 256 shapes (PTX ISA, wgmma \"Register"
     echo "  Fragments\") with where the epilogue reads column block j." ;;
  6) echo "hint (step 6): wrong values, no hang: a consumer read a B (or A) tile before it landed,"
     echo "  or a producer refilled a stage the consumers were still reading (the exercise build"
     echo "  delays the second producer and the releases, so either fails every run). A hang trap"
     echo "  on a full barrier: its arrival count or byte count is not what one fill delivers to"
     echo "  it; on an empty barrier: a producer waits on a phase that has not started." ;;
  7) echo "hint (step 7): a hang trap on the full barrier: some CTA's stage never receives every"
     echo "  byte its producer announced. Count what lands in each CTA per k-block (the A box, from"
     echo "  whichever CTA issues it, and its own B rows) and the multicast mask (bit r = CTA rank"
     echo "  r). Wrong values or NaN: the tile walk (which columns rank r computes, how many"
     echo "  cluster tiles there are) or boxes of the wrong rows. The CPU model checks the"
     echo "  protocol: schedule_step07 in common/models/ring_schedules.cpp,"
     echo "  ./build/ladder-ring --step 7 --cluster 2" ;;
esac
echo "Stuck? EXERCISES.md in the step's folder, then diff exercise.cu against gemm.cu."
exit 1
