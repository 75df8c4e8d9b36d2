// warp_specialization.cuh: step 06's lesson, written out beside its gemm.cu. The pieces of
// a warp-specialized kernel (a producer warpgroup feeding consumer warpgroups through a
// ring of stages) that are not the pipeline itself: moving registers between warpgroups,
// a consumer handing a stage back, named barriers, the ring position and the guarded
// epilogue store. Read it after the tile configuration of 06_warp_specialized/gemm.cu.
// Step 07 includes it from here (its include path has the folders of the steps before it).
#pragma once

#include <cuda/ptx>
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace ladder {

// Writes one accumulator pair (row, col), (row, col+1) of C as bf16, skipping what lies
// outside the matrix. Coordinates are relative to the consumer's 64x256 piece, whose first
// element is `c_tile`; rows_left/cols_left count what remains of C from there.
__device__ __forceinline__ void store_pair(__nv_bfloat16* c_tile, int ldc, int rows_left,
                                           int cols_left, int row, int col, float v0, float v1) {
    if (row >= rows_left || col >= cols_left) return;
    __nv_bfloat16* p = c_tile + static_cast<size_t>(row) * ldc + col;
    if (col + 1 < cols_left && (reinterpret_cast<uintptr_t>(p) & 3) == 0) {
        *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v0, v1);
    } else {
        p[0] = __float2bfloat16(v0);
        if (col + 1 < cols_left) p[1] = __float2bfloat16(v1);
    }
}

// PTX ISA "setmaxnreg": change how many registers each thread of this warpgroup owns.
// All 128 threads execute it (.sync.aligned). dec returns registers to the SM's
// pool; inc blocks until the pool can supply the new count. The kernel must start with a
// known per-thread count (__launch_bounds__(THREADS, 1) fixes it: 168 for step 06's 384
// threads), and the counts must be multiples of 8 in 24..256. SASS: USETMAXREG.
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// A consumer hands a stage back to the producer: one arrival on its empty barrier.
// CCCL: cuda::ptx::mbarrier_arrive(bar)
// PTX:  mbarrier.arrive.shared.b64 state, [bar];   (PTX ISA "mbarrier.arrive")
// One elected thread per consumer warpgroup arrives, after wgmma.wait_group has reported
// that the warpgroup's wgmma reading the stage are complete; the barrier expects one such
// arrival per consumer per phase (step 06's EMPTY_ARRIVALS). Step 07 spells its own, which
// also arrives on the other CTAs of a cluster.
__device__ __forceinline__ void release_stage(uint64_t* empty_barrier) {
    cuda::ptx::mbarrier_arrive(empty_barrier);
}

// PTX ISA "bar.sync" (barrier.cta): named hardware barriers 1..15 (0 is __syncthreads)
// that complete when `count` threads have arrived; bar.sync counts this thread and waits.
// SASS: BAR.SYNC. Step 06's staged epilogue uses one to know that both consumers are done
// with the ring; step 07 gives each consumer its own for its epilogue.
__device__ __forceinline__ void named_barrier_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// Advances a position in a ring of RING stages. The phase bit flips each time the ring
// wraps: a barrier's n-th completion (n = 0, 1, ...) has parity n % 2, and fill number f
// of the ring lands in stage f % RING as that stage's (f / RING)-th completion.
template <int RING>
__device__ __forceinline__ void advance(int& stage, uint32_t& phase) {
    if (++stage == RING) {
        stage = 0;
        phase ^= 1u;
    }
}

}  // namespace ladder
