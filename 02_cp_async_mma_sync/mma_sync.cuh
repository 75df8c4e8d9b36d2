// mma_sync.cuh: step 02's lesson on the Ampere tensor cores, written out beside its gemm.cu:
// the swizzled shared-memory layout, ldmatrix and mma.sync m16n8k16 with its fragment
// layout. Read it after cp_async.cuh, the cp.async helpers beside it. Steps 03 and
// 04, which still compute with ldmatrix + mma.sync, include it from here (their include
// path has the folders of the steps before them).
#pragma once

#include <cstdint>

#include "layout.h"  // swizzled_offset; steps 03 and 04 also use its ldmatrix lanes and fragment map

namespace ladder {

// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` inside one k-block of A or B.
// Rows are 128 bytes, i.e. exactly one pass over the 32 banks (4 bytes each). Unswizzled,
// chunk c of every row would sit on the same 4 banks, and ldmatrix (which reads chunk c
// of 8 consecutive rows at once) would serialize 8 ways. XOR-ing the chunk index with
// row % 8 sends chunk c of rows r..r+7 to 8 different 16-byte bank groups: conflict-free.
// It is a permutation of the chunks inside each row, so copies stay conflict-free too.
// The function lives in common/kernel/layout.h, where ladder-layout draws it
// (results/layouts/swizzle.png, ldmatrix_conflicts.png).
using layout::swizzled_offset;

// PTX ISA "ldmatrix": a warp loads four 8x8 bf16 matrices from shared memory.
//   ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0, r1, r2, r3}, [addr];
// Lanes 8q..8q+7 give the addresses of the 8 rows (16 bytes each) of matrix q; every
// lane then receives register q = row lane/4, elements 2*(lane%4) and 2*(lane%4)+1 of
// matrix q, which is exactly the register layout mma.sync wants. SASS: LDSM.16.M88.4.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

// PTX ISA "mma.sync.aligned.m16n8k16" (Matrix Fragments for mma.m16n8k16), with
// g = lane / 4 and t = lane % 4:
//   a[0..3] (16x16, row-major): a[0] = A[g][2t..2t+1],   a[1] = A[g+8][2t..2t+1],
//                               a[2] = A[g][2t+8..+9],   a[3] = A[g+8][2t+8..+9]
//   b[0..1] (16x8, "col" = stored n-major, k contiguous): b[0] = B[k=2t..2t+1][n=g],
//                                                         b[1] = B[k=2t+8..+9][n=g]
//   d[0..3] (16x8 fp32): d[0..1] = D[g][2t..2t+1], d[2..3] = D[g+8][2t..2t+1]
// Synchronous: the warp issues it, and the next instruction that needs d (the next MMA
// into the same accumulators, or the epilogue) waits for it; the tensor core is fed only
// as fast as the warps issue ldmatrix + HMMA. SASS: HMMA.16816.F32.BF16.
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4],
                                                  const uint32_t (&b)[2]) {
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

}  // namespace ladder
