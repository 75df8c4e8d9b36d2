// wgmma.cuh: Hopper's warpgroup matrix multiply-accumulate (wgmma.mma_async) and the
// fences around it, for the steps after the one that teaches it.
//
// Taught in step 05 (05_wgmma/gemm.cu): the descriptor, the fences, the asynchronous
// accumulators and the m64n256k16 shape are explained there in full. Used by steps 06
// and 07. Unlike step 05's wgmma_m64n256k16, this one takes an `accumulate` predicate, so
// the first k16 step of a tile overwrites the accumulators instead of needing a zero fill.
#pragma once

#include <cstdint>

#include "wgmma_descriptor.h"

namespace ladder {

// The wgmma shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format") of a
// K-major tile with 128-byte rows written by TMA with the 128B swizzle, starting 1024-byte
// aligned: SBO 1024 bytes (one 8-row swizzle atom), LBO unused, swizzle mode 128B.
// Moving k16 along K inside a row is +32 bytes on `smem_addr`. wgmma_descriptor.h has
// the bit layout (and tests/test_wgmma_descriptor.cpp checks it).
__device__ __forceinline__ uint64_t smem_descriptor(uint32_t smem_addr) {
    return wgmma::make_kmajor_sw128_descriptor(smem_addr);
}

// The same descriptor in two halves, for a main loop that only moves the start address:
// the high 32 bits (SBO, swizzle mode) are the same for every such tile, so the loop keeps
// the low half (start address and LBO) in one register and adds (bytes / 16) to it.
__device__ __forceinline__ uint32_t smem_descriptor_lo(uint32_t smem_addr) {
    return static_cast<uint32_t>(wgmma::make_kmajor_sw128_descriptor(smem_addr));
}
__device__ __forceinline__ uint64_t smem_descriptor_with_lo(uint32_t lo) {
    constexpr uint64_t kHigh = wgmma::make_kmajor_sw128_descriptor(0) & 0xFFFFFFFF00000000ull;
    return kHigh | lo;
}

// PTX ISA "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group" (asynchronous warpgroup
// level matrix instructions).
// fence: orders this warpgroup's earlier register and shared-memory accesses before the
//        wgmma that follow (needed before the first wgmma, and whenever the accumulators
//        were touched by ordinary instructions in between). SASS: WARPGROUP.ARRIVE.
// commit_group: closes the wgmma issued so far into one group.
// wait_group N: returns when at most N of this warpgroup's groups are still running.
//        SASS: WARPGROUP.DEPBAR.LE.
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit_group() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// A fence for the compiler, not the hardware (no instruction): the compiler does not know
// that wgmma writes the accumulators asynchronously, until wait_group. This empty asm
// "uses and redefines" each of the REGS accumulators where it is placed, so no read or
// write of them can be moved across it.
template <int REGS>
__device__ __forceinline__ void fence_accumulators(float (&d)[REGS]) {
#pragma unroll
    for (int i = 0; i < REGS; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// PTX ISA "wgmma.mma_async", shape m64n256k16, bf16 x bf16 -> f32, both operands
// K-major in shared memory (the two trailing 0s: no transpose). The whole warpgroup
// issues it; D (64 x 256 fp32) lives in 128 registers of each of its 128 threads.
// accumulate = 0 makes D = A*B (first k16 step of a tile), 1 makes D += A*B.
// SASS: HGMMA.64x256x16.F32.BF16.
constexpr int WGMMA_M64N256_ACC_REGS = 64 * 256 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[WGMMA_M64N256_ACC_REGS],
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
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
          "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
          "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
          "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
          "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
          "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
          "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
          "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]),
          "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
          "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
          "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),
          "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// The same instruction with N = 128: a 64 x 128 piece of D in 64 registers of each thread,
// for step 07's narrow tile (a 128-row B box). SASS: HGMMA.64x128x16.F32.BF16.
constexpr int WGMMA_M64N128_ACC_REGS = 64 * 128 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[WGMMA_M64N128_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
        " %50, %51, %52, %53, %54, %55, %56, %57, %58, %59,"
        " %60, %61, %62, %63},"
        " %64, %65, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
          "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
          "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
          "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
          "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 192: a 64 x 192 piece of D in 96 registers of each thread, for step 07's 128x192 tile.
// SASS: HGMMA.64x192x16.F32.BF16.
constexpr int WGMMA_M64N192_ACC_REGS = 64 * 192 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n192k16(float (&d)[WGMMA_M64N192_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
        " %50, %51, %52, %53, %54, %55, %56, %57, %58, %59,"
        " %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        " %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89,"
        " %90, %91, %92, %93, %94, %95},"
        " %96, %97, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
          "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
          "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
          "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
          "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
          "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
          "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
          "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 64: a 64 x 64 piece of D in 32 registers of each thread, for step 07's 64x64 tile
// (problems of at most 64 rows, whose few columns of tiles must still fill the GPU).
// SASS: HGMMA.64x64x16.F32.BF16.
constexpr int WGMMA_M64N64_ACC_REGS = 64 * 64 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[WGMMA_M64N64_ACC_REGS],
                                                uint64_t desc_a, uint64_t desc_b,
                                                uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31},"
        " %32, %33, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
          "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
          "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

}  // namespace ladder
