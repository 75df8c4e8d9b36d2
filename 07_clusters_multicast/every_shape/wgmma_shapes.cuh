// wgmma_shapes.cuh: the wgmma shapes and descriptor halves that only step 07's every-shape
// kernel uses (every_shape.cu, through tiles.cuh), written out beside them: the same
// instruction as step 05's wgmma.cuh with N = 224, 192, 168, 160, 144, 128, 96 and 64
// (N/2 accumulators per thread), and the descriptor split in two halves for a main loop that
// only moves the start address.
#pragma once

#include <cstdint>

#include "wgmma.cuh"  // LADDER_ACC32, wgmma_m64n256k16: taught in step 05

namespace ladder {

// Four accumulator operands, for a width that ends in half an n16 block (N = 168).
#define LADDER_ACC4(i) "+f"(acc[(i) + 0]), "+f"(acc[(i) + 1]), "+f"(acc[(i) + 2]), "+f"(acc[(i) + 3])

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

// The same instruction with N = 128: a 64 x 128 piece of D in 64 registers of each thread,
// for step 07's narrow tile (a 128-row B box). SASS: HGMMA.64x128x16.F32.BF16.
constexpr int WGMMA_M64N128_ACC_REGS = 64 * 128 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n128k16(float (&acc)[WGMMA_M64N128_ACC_REGS],
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
        : LADDER_ACC32(0), LADDER_ACC32(32)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 192: a 64 x 192 piece of D in 96 registers of each thread, for step 07's 128x192 tile.
// SASS: HGMMA.64x192x16.F32.BF16.
constexpr int WGMMA_M64N192_ACC_REGS = 64 * 192 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n192k16(float (&acc)[WGMMA_M64N192_ACC_REGS],
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
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC32(64)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 64: a 64 x 64 piece of D in 32 registers of each thread, for step 07's 64x64 tile
// (problems of at most 64 rows, whose few columns of tiles must still fill the GPU).
// SASS: HGMMA.64x64x16.F32.BF16.
constexpr int WGMMA_M64N64_ACC_REGS = 64 * 64 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n64k16(float (&acc)[WGMMA_M64N64_ACC_REGS],
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
        : LADDER_ACC32(0)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 160: a 64 x 160 piece of D in 80 registers of each thread, for step 07's 64x160 tile
// (C^T of a problem of 129 to 160 rows: the rows become the tile's 160 columns, unpadded).
// SASS: HGMMA.64x160x16.F32.BF16.
constexpr int WGMMA_M64N160_ACC_REGS = 64 * 160 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n160k16(float (&acc)[WGMMA_M64N160_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %82, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
        " %50, %51, %52, %53, %54, %55, %56, %57, %58, %59,"
        " %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        " %70, %71, %72, %73, %74, %75, %76, %77, %78, %79},"
        " %80, %81, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC8(64), LADDER_ACC8(72)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 144: a 64 x 144 piece of D in 72 registers of each thread, for step 07's 128x144 tile
// (12 x 11 = 132 tiles of 1536^2: one tile per SM of the H200). SASS: HGMMA.64x144x16.F32.BF16.
constexpr int WGMMA_M64N144_ACC_REGS = 64 * 144 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n144k16(float (&acc)[WGMMA_M64N144_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %74, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
        " %50, %51, %52, %53, %54, %55, %56, %57, %58, %59,"
        " %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        " %70, %71},"
        " %72, %73, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC8(64)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 96: a 64 x 96 piece of D in 48 registers of each thread, for step 07's 64x96 tile
// (a short side of 129 to 192 as three rows of tiles, each tile walking all of K: 129 tiles
// of 192x4096, or of 4096x192 as C^T, in one wave, no split of K). SASS: HGMMA.64x96x16.F32.BF16.
constexpr int WGMMA_M64N96_ACC_REGS = 64 * 96 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n96k16(float (&acc)[WGMMA_M64N96_ACC_REGS],
                                                uint64_t desc_a, uint64_t desc_b,
                                                uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %50, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47},"
        " %48, %49, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : LADDER_ACC32(0), LADDER_ACC8(32), LADDER_ACC8(40)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 224: a 64 x 224 piece of D in 112 registers of each thread, for step 07's 224-column
// tiles (1792 = 8 x 224: 14 x 8 = 112 tiles of 1792^2, none padded). SASS: HGMMA.64x224x16.F32.BF16.
constexpr int WGMMA_M64N224_ACC_REGS = 64 * 224 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n224k16(float (&acc)[WGMMA_M64N224_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %114, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16 "
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
        " %110, %111},"
        " %112, %113, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC32(64), LADDER_ACC8(96), LADDER_ACC8(104)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

// N = 168: a 64 x 168 piece of D in 84 registers of each thread, for step 07's 128x168 tile
// (2304 = 13.7 x 168: 18 x 14 = 252 tiles of 2304^2, two waves 95% full, where 128x192's 216
// make 1.6). N is a multiple of 8, not of 16: the last n8 block gives 4 registers.
// SASS: HGMMA.64x168x16.F32.BF16.
constexpr int WGMMA_M64N168_ACC_REGS = 64 * 168 / 128;  // fp32 accumulators per thread
__device__ __forceinline__ void wgmma_m64n168k16(float (&acc)[WGMMA_M64N168_ACC_REGS],
                                                 uint64_t desc_a, uint64_t desc_b,
                                                 uint32_t accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %86, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n168k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9,"
        " %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
        " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29,"
        " %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
        " %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
        " %50, %51, %52, %53, %54, %55, %56, %57, %58, %59,"
        " %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        " %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        " %80, %81, %82, %83},"
        " %84, %85, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : LADDER_ACC32(0), LADDER_ACC32(32), LADDER_ACC8(64), LADDER_ACC8(72), LADDER_ACC4(80)
        : "l"(desc_a), "l"(desc_b), "r"(accumulate)
        : "memory");
}

}  // namespace ladder
