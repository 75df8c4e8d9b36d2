// clock_witness.cuh: the clock an SM runs tensor-core work at, measured where the work is.
//
// NVML's SM clock is the clock generator's setting, refreshed about every 100 ms; on the H200
// an SM whose tensor cores are busy counts about 9% fewer cycles per second than that
// (common/models/README.md, "What NVML's clock is not"). The witness measures the rate itself: one CTA of four warps
// (one per SM sub-partition) runs chains of mma.sync m16n8k16 on random bf16 in registers
// for about 30 us, while thread 0 counts its SM's cycles (clock64) against %globaltimer.
// Launched right after other work, it finds the GPU as that work left it: the power
// limiter's state, the board's temperature. The benchmark launches one after each batch of
// timed launches (common/harness/harness.cu); ladder-probe --clock-trace checks it against
// the cycles the loaded SMs count themselves.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>

namespace ladder {

struct WitnessSpan {
    long long cycles, ns;
};

constexpr int kWitnessThreads = 128;  // four warps: one per SM sub-partition
constexpr int kWitnessChains = 8;     // independent accumulators per warp, so the MMAs overlap
constexpr int kWitnessRounds = 2048;  // about 30 us at 1.8 GHz; %globaltimer ticks each microsecond

namespace {

// mma.sync m16n8k16 (bf16 in, fp32 accumulated into d) as asm volatile, so that the MMAs of a
// timed loop stay between the clock reads around it; ladder-probe's tensor-core loops use it
// too. Step 02's mma_m16n8k16_bf16 is the lesson's, free to be scheduled with its loads.
__device__ __forceinline__ void timed_mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4],
                                                        const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9},"
        " {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// A bf16 in [-1, 1) from 16 hashed bits: random operands draw the power that the
// benchmark's uniform inputs draw (zeros draw far less).
__device__ __forceinline__ uint32_t witness_pair(uint32_t i) {
    i ^= i >> 16, i *= 0x7feb352du, i ^= i >> 15, i *= 0x846ca68bu, i ^= i >> 16;
    const float lo = static_cast<float>(i & 0xffff) * (2.0f / 65536.0f) - 1.0f;
    const float hi = static_cast<float>(i >> 16) * (2.0f / 65536.0f) - 1.0f;
    return uint32_t{__bfloat16_as_ushort(__float2bfloat16(lo))} |
           uint32_t{__bfloat16_as_ushort(__float2bfloat16(hi))} << 16;
}

// Writes *span (cycles and nanoseconds of the measured loop) and one float per thread to
// sink[0, kWitnessThreads): the products are used, so the compiler keeps them.
__global__ void __launch_bounds__(kWitnessThreads, 1) clock_witness_kernel(WitnessSpan* span, float* sink) {
    uint32_t a[kWitnessChains][4], b[kWitnessChains][2];
#pragma unroll
    for (int j = 0; j < kWitnessChains; ++j) {
#pragma unroll
        for (int r = 0; r < 4; ++r) a[j][r] = witness_pair((threadIdx.x * kWitnessChains + j) * 6 + r);
#pragma unroll
        for (int r = 0; r < 2; ++r) b[j][r] = witness_pair((threadIdx.x * kWitnessChains + j) * 6 + 4 + r);
    }
    float acc[kWitnessChains][4] = {};
    __syncthreads();
    const long long clock0 = clock64();
    long long ns0, ns1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns0));
    for (int i = 0; i < kWitnessRounds; ++i)
#pragma unroll
        for (int j = 0; j < kWitnessChains; ++j) timed_mma_m16n8k16_bf16(acc[j], a[j], b[j]);
    __syncthreads();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns1));
    if (threadIdx.x == 0) *span = {clock64() - clock0, ns1 - ns0};
    float sum = 0;
#pragma unroll
    for (int j = 0; j < kWitnessChains; ++j) sum += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
    sink[threadIdx.x] = sum;
}

}  // namespace

}  // namespace ladder
