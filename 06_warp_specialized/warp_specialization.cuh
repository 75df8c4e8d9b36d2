// warp_specialization.cuh: the pieces of a warp-specialized kernel (a producer warpgroup
// feeding consumer warpgroups through a ring of stages) that are not the pipeline itself.
//
// Taught in step 06 (06_warp_specialized/gemm.cu): setmaxnreg, named barriers, the
// ring position and the guarded epilogue store are explained there in full. Used by
// step 07.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace ladder {

// PTX ISA "setmaxnreg": change how many registers each thread of this warpgroup owns.
// All 128 threads execute it (.sync.aligned). dec returns registers to the SM's pool; inc
// blocks until the pool can supply the new count. The kernel must start with a known
// per-thread count (__launch_bounds__(THREADS, 1)), and the counts must be multiples of 8
// in 24..256. SASS: USETMAXREG.
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// PTX ISA "bar.sync" (barrier.cta): named hardware barriers 1..15 (0 is __syncthreads)
// that complete when `count` threads have arrived; bar.sync counts this thread and waits.
// SASS: BAR.SYNC.
__device__ __forceinline__ void named_barrier_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

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
