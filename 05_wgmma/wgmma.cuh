// wgmma.cuh: step 05's lesson, written out beside its gemm.cu. Hopper's warpgroup
// matrix multiply-accumulate (wgmma.mma_async), the descriptor that names its operands in
// shared memory, and the fences around it. Read it after the tile configuration of
// 05_wgmma/gemm.cu; the kernel there uses everything in the first part. Steps 06 and 07
// include it from here (their include path has the folders of the steps before them).
//
// Part 1, step 05: smem_descriptor, wgmma_fence, wgmma_commit_group, wgmma_wait_group,
// fence_accumulators, wgmma_m64n256k16.
// Part 2, steps 06 and 07: the same instruction with an `accumulate` predicate (no zero
// fill). (Step 07's every-shape kernel adds the narrower shapes in its own folder:
// 07_clusters_multicast/wgmma_shapes.cuh.)
#pragma once

#include <cstdint>

#include "wgmma_descriptor.h"

namespace ladder {

// =====================================================================================
// Part 1: step 05
// =====================================================================================

// The shared-memory layout wgmma reads (PTX ISA "Shared Memory Matrix Layout" for wgmma,
// K-major with 128-byte swizzle) is exactly what the TMA wrote: rows of 128 bytes (64 bf16
// of K), 16-byte chunk c of row r stored at chunk c ^ (r % 8), 8 rows = 1024 bytes = one
// "swizzle atom", atoms stacked along M (or N):
//
//   byte in row    0   16   32   48   64   80   96  112  128   (cN = k 8N .. 8N+7)
//   row 0  (+0)    | c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 |
//   row 1  (+128)  | c1 | c0 | c3 | c2 | c5 | c4 | c7 | c6 |
//   row 2  (+256)  | c2 | c3 | c0 | c1 | c6 | c7 | c4 | c5 |    atom 0: 1024 bytes
//   ...
//   row 7  (+896)  | c7 | c6 | c5 | c4 | c3 | c2 | c1 | c0 |
//   row 8  (+1024) | c0 | c1 | ...                             atom 1: the pattern again
//
// Reading one 8x8 core matrix (chunk c of 8 consecutive rows) touches 8 different 16-byte
// bank groups, all 32 banks once: no bank conflicts, and no padding.
//
// So every descriptor here says: 128B swizzle, stride byte offset (atom to atom along
// M/N) 1024, leading byte offset unused (a k16 step never leaves a 128-byte row), start
// address = the tile + 32 bytes per k16 step. wgmma_descriptor.h has the bit layout.
__device__ __forceinline__ uint64_t smem_descriptor(uint32_t smem_addr) {
    return wgmma::make_kmajor_sw128_descriptor(smem_addr);
}

// PTX ISA "wgmma.fence": orders this warpgroup's earlier accesses to registers before
// the wgmma.mma_async that follow it. Required before the first wgmma that uses
// accumulators other instructions wrote (in step 05: the zero fill before the loop). wgmmas of
// the same shape chained on the same accumulators need none between them; we issue one
// per k-block anyway, at the head of each batch, so the rule holds by construction
// (it costs one instruction, SASS WARPGROUP.ARRIVE, per 4 HGMMAs).
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

// PTX ISA "wgmma.commit_group": closes the wgmma.mma_async issued since the last commit
// into one "wgmma-group", the unit wait_group counts. Here: one group per k-block.
__device__ __forceinline__ void wgmma_commit_group() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// PTX ISA "wgmma.wait_group N": blocks until at most N of this warpgroup's committed
// groups are still pending. Every older group has then finished: its accumulators are
// written and its shared-memory operands are no longer read. SASS: WARPGROUP.DEPBAR.LE.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// A fence for the COMPILER, not the hardware: it emits no instruction, but claims to read
// and write every accumulator, so nvcc can move no accumulator access across it. Used
// before wgmma_fence (so the zero fill cannot sink past the hardware fence, between it and
// the first wgmma: ptxas would then serialize the wgmmas) and after wgmma_wait_group<0>
// (so the epilogue cannot read an accumulator early: to the compiler a register is ready
// the moment the asm statement that writes it has issued, but wgmma writes it later).
template <int REGS>
__device__ __forceinline__ void fence_accumulators(float (&acc)[REGS]) {
#pragma unroll
    for (int i = 0; i < REGS; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

// PTX ISA "wgmma.mma_async": wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
//   acc[64 x 256] += A[64 x 16] * B[256 x 16]^T, A and B in shared memory (descriptors).
// The operands after the descriptors: scale-d = 1 (add to acc; 0 would overwrite it),
// imm-scale-a = imm-scale-b = 1 (no negation), imm-trans-a = imm-trans-b = 0 (both
// K-major, the layout above). acc is this thread's 128 fp32 registers of the 64 x 256
// result; step 05's epilogue says which element each one is. SASS: HGMMA.64x256x16.F32.BF16.
// In the asm, %0..%127 are acc[0..127] (the "+f" list: read and written), %128 and %129
// the two descriptors. LADDER_ACC32(i) lists the operands acc[i] .. acc[i + 31]: part 2
// spells its shapes with it, and it stays defined for a wgmma of another shape spelled in
// a step's gemm.cu (step 05's exercise).
#define LADDER_ACC8(i)                                                                     \
    "+f"(acc[(i) + 0]), "+f"(acc[(i) + 1]), "+f"(acc[(i) + 2]), "+f"(acc[(i) + 3]),        \
        "+f"(acc[(i) + 4]), "+f"(acc[(i) + 5]), "+f"(acc[(i) + 6]), "+f"(acc[(i) + 7])
#define LADDER_ACC32(i) \
    LADDER_ACC8(i), LADDER_ACC8((i) + 8), LADDER_ACC8((i) + 16), LADDER_ACC8((i) + 24)
constexpr int WGMMA_M64N256_ACC_REGS = 64 * 256 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n256k16(float (&acc)[WGMMA_M64N256_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7,\n"
        " %8, %9, %10, %11, %12, %13, %14, %15,\n"
        " %16, %17, %18, %19, %20, %21, %22, %23,\n"
        " %24, %25, %26, %27, %28, %29, %30, %31,\n"
        " %32, %33, %34, %35, %36, %37, %38, %39,\n"
        " %40, %41, %42, %43, %44, %45, %46, %47,\n"
        " %48, %49, %50, %51, %52, %53, %54, %55,\n"
        " %56, %57, %58, %59, %60, %61, %62, %63,\n"
        " %64, %65, %66, %67, %68, %69, %70, %71,\n"
        " %72, %73, %74, %75, %76, %77, %78, %79,\n"
        " %80, %81, %82, %83, %84, %85, %86, %87,\n"
        " %88, %89, %90, %91, %92, %93, %94, %95,\n"
        " %96, %97, %98, %99, %100, %101, %102, %103,\n"
        " %104, %105, %106, %107, %108, %109, %110, %111,\n"
        " %112, %113, %114, %115, %116, %117, %118, %119,\n"
        " %120, %121, %122, %123, %124, %125, %126, %127},\n"
        " %128, %129, 1, 1, 1, 0, 0;\n"
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC32(64), LADDER_ACC32(96)
        : "l"(desc_a), "l"(desc_b)
        : "memory");
}

// =====================================================================================
// Part 2: steps 06 and 07
// =====================================================================================

// The same instruction with scale-d a predicate instead of the immediate 1 (steps 06 and
// 07): accumulate = 0 makes D = A*B (the first k16 step of a tile), 1 makes D += A*B, so
// a tile needs no zero fill, and a persistent CTA none between its tiles.
// SASS: HGMMA.64x256x16.F32.BF16 (with the predicate as its scale-d operand).
__device__ __forceinline__ void wgmma_m64n256k16(float (&acc)[WGMMA_M64N256_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
        " %50, %51, %52, %53, %54, %55, %56, %57, %58, %59,"
        " %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        " %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89,"
        " %90, %91, %92, %93, %94, %95, %96, %97, %98, %99,"
        " %100, %101, %102, %103, %104, %105, %106, %107, %108, %109,"
        " %110, %111, %112, %113, %114, %115, %116, %117, %118, %119,"
        " %120, %121, %122, %123, %124, %125, %126, %127},"
        " %128, %129, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC32(64), LADDER_ACC32(96)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

}  // namespace ladder
