// spin_guard.cuh: a bounded wait for debug builds.
//
// A kernel that hangs on the GPU almost always waits on a barrier phase that never
// completes (a wrong parity bit, a wrong arrival count, a transaction byte count that
// does not match what TMA delivers). Configure with -DLADDER_HANG_TRAP=ON (the default
// for Debug builds and for the test build on the GPU machine) and every wait loop that
// uses SpinGuard traps after about two seconds of spinning instead of hanging: the launch
// then fails with cudaErrorLaunchFailure and the message names the block and thread.
// In other builds SpinGuard compiles to nothing.
#pragma once

#include <cstdio>

namespace ladder {

struct SpinGuard {
#ifdef LADDER_HANG_TRAP
#ifdef __CUDA_ARCH__
    long long start = clock64();
#else
    long long start = 0;  // the host compilation pass sees the struct but never runs it
#endif
    __device__ __forceinline__ void check(const char* what) {
        // ~2 GHz SM clock: 4e9 cycles is about two seconds, far past any legitimate wait.
        if (clock64() - start > 4000000000LL) {
            printf("LADDER_HANG_TRAP: %s: block (%d,%d,%d) thread %d waited > ~2 s; "
                   "a barrier phase or arrival count is wrong\n",
                   what, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x);
            __trap();
        }
    }
#else
    __device__ __forceinline__ void check(const char*) {}
#endif
};

}  // namespace ladder
