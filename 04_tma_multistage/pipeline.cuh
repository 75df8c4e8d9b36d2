// pipeline.cuh: step 04's lesson on the consumer side of a multi-stage TMA ring's empty
// barrier, written out beside its gemm.cu. Read it after the tile configuration of
// 04_tma_multistage/gemm.cu. Step 05 includes it from here (its include path has the
// folders of the steps before it).
#pragma once

#include <cuda/ptx>

#include <cstdint>

namespace ladder {

// The consumer side of the empty barrier: one arrival per warp, once all 32 lanes are
// done with the slot. ldmatrix is a warp-wide instruction, so the warp, not the thread,
// is the reader; __syncwarp() orders every lane's reads before lane 0's arrival, and the
// arrival has release semantics, so the producer's acquiring wait on the completed phase
// comes after all of them. Hence the empty barrier is initialised with WARPS arrivals.
// (Every thread arriving, count THREADS, is also correct: 256 arrivals per slot instead
// of 8, for nothing.)
//   CCCL: cuda::ptx::mbarrier_arrive(barrier)
//   PTX:  mbarrier.arrive.shared.b64 state, [barrier];   (.release.cta is the default)
__device__ __forceinline__ void warp_arrive(uint64_t* barrier, int lane) {
    __syncwarp();
    if (lane == 0) cuda::ptx::mbarrier_arrive(barrier);
}

}  // namespace ladder
