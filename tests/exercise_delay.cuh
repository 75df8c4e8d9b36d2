// exercise_delay.cuh: delays that make a missing wait fail every run, not by luck.
//
// Every file a step is built from other than its gemm.cu (an exercise.cu, a reference
// solution, a wrong solution under test, a student's submission) gets this header
// force-included by the build (ladder_step_object, common/CMakeLists.txt). In the exercise
// build (-DLADDER_EXERCISES=ON, which defines LADDER_EXERCISE_DELAYS unless
// -DLADDER_EXERCISE_DELAYS=OFF) it stretches the windows in which a protocol mistake matters:
//
//   * every TMA copy a kernel issues (tma_load_2d, tma_load_2d_multicast) is preceded by a
//     sleep of ISSUE_NS times (1 + the issuing warp's index modulo 2). The boxes of one
//     stage then land microseconds apart, and a second issuing warp lags the first: a
//     consumer that waits on the wrong barrier, the wrong parity, or a phase whose byte
//     count is too small reads the slot before its last box has landed, and gets stale
//     data or garbage every time instead of now and then.
//   * LADDER_EXERCISE_DELAY(ns) at named points of exercise.cu, always outside the
//     regions a student edits (the checker keeps them there: exercises.py, "fixed lines"):
//     before a warp's reads of a stage, before a consumer's release of a stage. A refill
//     that does not wait for the release, or waits on the wrong phase of the empty
//     barrier, then overwrites a stage that a slow warp is still reading.
//
// Outside the exercise build every macro here is empty and the kernels are the same code
// as without this header. The sleeps make the exercise build slow: measure speed in a
// normal build (the grader builds twice for that reason).
#pragma once

#if defined(LADDER_EXERCISE_DELAYS) && defined(__CUDACC__)

namespace ladder {
namespace exercise {

// Sleeps about `ns` nanoseconds (PTX ISA "nanosleep": the wait is approximate and capped
// at 1 ms per instruction, so a loop on the global timer measures it).
__device__ __forceinline__ void delay_ns(unsigned ns) {
#ifdef __CUDA_ARCH__
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start >= ns) break;
        __nanosleep(ns > 4000u ? 1000u : 200u);
    }
#else
    (void)ns;
#endif
}

// The sleep before every TMA copy: warps 0, 2, ... wait ISSUE_NS, warps 1, 3, ... twice that.
constexpr unsigned ISSUE_NS = 1500;
__device__ __forceinline__ void before_issue() {
#ifdef __CUDA_ARCH__
    delay_ns(ISSUE_NS * (1u + (threadIdx.x / 32u) % 2u));
#endif
}

}  // namespace exercise
}  // namespace ladder

#define LADDER_EXERCISE_DELAY(ns) ::ladder::exercise::delay_ns(static_cast<unsigned>(ns))

// The TMA issue helpers (step 03's tma.cuh, step 07's cluster.cuh), delayed. A
// function-like macro does not expand inside its own expansion, so the inner call is the
// function itself. Both headers are included first (they are #pragma once), so that the
// macro never touches their definitions. The build defines LADDER_EXERCISE_TMA for the
// sm_90a steps (03-07); cluster.cuh is on the include path of step 07 only.
#if defined(LADDER_EXERCISE_TMA)
#include "tma.cuh"
#define tma_load_2d(...) (::ladder::exercise::before_issue(), tma_load_2d(__VA_ARGS__))
#if __has_include("cluster.cuh")
#include "cluster.cuh"
#define tma_load_2d_multicast(...) \
    (::ladder::exercise::before_issue(), tma_load_2d_multicast(__VA_ARGS__))
#endif
#endif

#else

#define LADDER_EXERCISE_DELAY(ns) ((void)0)

#endif
