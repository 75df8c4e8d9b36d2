# The bench and bench-all targets (ladder_bench_target, common/CMakeLists.txt), as a script so
# that a machine without a GPU to measure on gets one line and exit status 0 instead of the
# first step's refusal stopping the build:
#   cmake -DSTEPS=<step-N executables,...> -DCSV=<bench.csv> -DOUT=<folder> -DPYTHON=<python>
#         -DPLOT=<plot.py> -DBUILT=<what was built, for the message> -DARGS=<step-N arguments,...>
#         -P bench.cmake
# The last step (the one needing the most: sm_90a for steps 03-07) is asked for a tiny check
# first; its exit status 77 means "no GPU that can run this step" (common/harness/cli.cpp).
# Any other failure, of the probe, a step or the plot, is this script's failure too.
string(REPLACE "," ";" STEPS "${STEPS}")
string(REPLACE "," ";" ARGS "${ARGS}")
list(GET STEPS -1 probe)
execute_process(COMMAND ${probe} --check --m 64 --n 64 --k 64 --seed 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE said ERROR_VARIABLE said)
if(rc EQUAL 77)
  string(REGEX REPLACE "^SKIP: ([^\n]*).*" "\\1" why "${said}")
  message("bench: nothing measured: the benchmark needs a Hopper GPU (H100 or H200, sm_90a) and this "
          "machine has none that runs the steps (${why}). Built: ${BUILT}")
  return()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench: ${probe} --check on a 64x64x64 problem failed (exit ${rc}):\n${said}")
endif()
file(REMOVE ${CSV})
foreach(step IN LISTS STEPS)
  execute_process(COMMAND ${step} --bench ${ARGS} --csv ${CSV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bench: ${step} --bench ${ARGS} exited ${rc}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} ${PLOT} --csv ${CSV} --out ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench: plotting ${CSV} failed (exit ${rc})")
endif()
