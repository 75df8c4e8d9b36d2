// cp_async.cuh: step 02's lesson on Ampere's asynchronous copy, written out beside its
// gemm.cu: cp.async from global to shared memory, and the commit and wait groups that
// order it. Read it first, then mma_sync.cuh. Step 03 replaces all of it with TMA.
#pragma once

#include <cstdint>

namespace ladder {

// PTX ISA "cp.async": copy 16 bytes global -> shared without passing through registers.
//   cp.async.cg.shared.global [dst], [src], 16, src_size;
// .cg caches in L2 only (the data is reused from shared memory, not from L1). src_size
// is how many bytes to read (16 or 0); the rest of the 16 bytes is zero-filled, which is
// how the edges of A and B become zeros. With src_size 0 nothing is read, but we still
// pass an address inside the matrix so no tool ever sees a wild pointer.
// SASS: LDGSTS.E.BYPASS.128 [smem], [gmem], P: one instruction per 16 bytes, the data
// never touches a register, but the thread still computes both addresses and P (the
// zero-fill condition src_size becomes). BYPASS = .cg, no L1 allocation.
__device__ __forceinline__ void cp_async_16(uint32_t smem_dst, const void* gmem_src,
                                            bool in_bounds) {
    const int src_size = in_bounds ? 16 : 0;  // bytes read: the whole chunk, or none
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst),
                 "l"(gmem_src), "r"(src_size)
                 : "memory");
}

// PTX ISA "cp.async.commit_group": close the group of this thread's cp.async issued so
// far; groups complete in order. SASS: LDGDEPBAR (a dependency-barrier marker).
__device__ __forceinline__ void cp_async_commit_group() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// PTX ISA "cp.async.wait_group N": wait until at most N of this thread's groups are
// still in flight. Only this thread's copies: a __syncthreads() must follow before other
// threads read the data. SASS: DEPBAR.LE SB0, N.
template <int PENDING>
__device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

}  // namespace ladder
