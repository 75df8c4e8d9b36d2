// tma_store.cuh: the two instructions of step 07's TMA-store epilogue, written out beside its
// gemm.cu: the bulk tensor copy from shared memory to C, and the 32-bit shared-memory store
// that fills the staging tile it reads. Read it after cluster.cuh. (The bulk-group waits
// and the proxy fence around them are written where the epilogue uses them.)
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>

#include <cstdint>

namespace ladder {

// The reverse copy: a 64x64 box of shared memory (128B-swizzled) to C at (col0, row0).
// Box elements outside C are not written, which handles every M and N edge.
// CCCL: cuda::ptx::cp_async_bulk_tensor(space_global, space_shared, map, {col0, row0}, src)
// PTX:  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [map, {col0, row0}], [src];
//       (SASS: UTMASTG.2D). Completion is tracked by bulk groups: commit_group closes the
//       stores issued so far; wait_group.read N waits until all but N groups have finished
//       READING shared memory (the buffer may be reused); wait_group N until they are done.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int col0, int row0,
                                             const void* src) {
    const int32_t coords[2] = {col0, row0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, coords,
                                    src);
}

// Two accumulators as bf16 into shared memory at a 32-bit address of the .shared window
// (PTX ISA "st"). The staging tile sits in the 1024-aligned struct found by pointer
// arithmetic on the generic address, so through a pointer the compiler cannot tell it is
// shared memory and emits generic stores (SASS ST.E), each keeping its own 64-bit address
// in two registers; st.shared is SASS STS with a 32-bit address.
__device__ __forceinline__ void store_shared_bf16x2(uint32_t addr, float lo, float hi) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    const uint32_t bits = static_cast<uint32_t>(__bfloat16_as_ushort(v.x)) |
                          static_cast<uint32_t>(__bfloat16_as_ushort(v.y)) << 16;
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(bits) : "memory");
}

}  // namespace ladder
