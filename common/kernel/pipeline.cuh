// pipeline.cuh: the consumer side of a multi-stage TMA ring's empty barrier.
//
// Taught in step 04 (04_tma_multistage/gemm.cu): warp_arrive is explained there in full.
// Used by step 05.
#pragma once

#include <cuda/ptx>

#include <cstdint>

namespace ladder {

// One arrival per warp on `barrier`, once all 32 lanes are done with the slot: __syncwarp()
// orders every lane's reads before lane 0's arrival, and the arrival has release
// semantics, so the producer's acquiring wait comes after all of them. The empty barrier
// is therefore initialised with one arrival per consumer warp.
//   CCCL: cuda::ptx::mbarrier_arrive(barrier)
//   PTX:  mbarrier.arrive.shared.b64 state, [barrier];   (.release.cta is the default)
__device__ __forceinline__ void warp_arrive(uint64_t* barrier, int lane) {
    __syncwarp();
    if (lane == 0) cuda::ptx::mbarrier_arrive(barrier);
}

}  // namespace ladder
