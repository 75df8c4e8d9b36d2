// timeline.cuh: the pipeline timeline, device side. An instrumentation aid, compiled in
// only when the build is configured with -DLADDER_TIMELINE=ON; otherwise every macro
// below expands to nothing (LADDER_TIMELINE_HOOK to a host-side null pointer) and a step's
// SASS is exactly what it is without this file.
//
// What a step writes (common/kernel/timeline.h has the Record layout and the Event list):
//
//   LADDER_TIMELINE_PRODUCER(LoadIssue, kb);                   // the TMA-issuing thread
//   LADDER_TIMELINE_CONSUMER(lane == 0, warp, LoadArrive, kb); // one thread per consumer
//   ...
//   LADDER_TIMELINE_HOOK()                                     // once, at namespace scope
//   LADDER_TIMELINE_ONLY(statement);        // code only timeline builds need (rarely)
//
// CONSUMER's first argument says which thread of the consumer records (one per warp or
// warpgroup), the second which consumer it is (0, 1, ...). Only CTAs with blockIdx.x
// below kRecordedCtas record. Each (CTA, lane, k-block, event) has a fixed slot in the
// buffer (timeline.h): no atomics, no loops, so the hot loops change as little as possible;
// an event with no slot is dropped (never written out of bounds) and the host says so.
//
// Why a global. The recorder needs a destination, and adding a kernel parameter would
// change every step's signature in normal builds too. So the destination is a __device__
// variable that the host sets with cudaMemcpyToSymbol before the launch. The ladder has
// no globals otherwise (a kernel's inputs are its parameters); this one is acceptable
// because it is a debug facility that exists only in -DLADDER_TIMELINE builds.
//
// Why one copy per step, and `static`. The steps are separate translation units linked
// into one libladder.so WITHOUT relocatable device code (-rdc), so a __device__ variable
// cannot be defined in one file and used from another. Instead this header defines
// `static __device__ Buffer g_buffer`: internal linkage, so every gemm.cu that includes
// it owns a private copy in its own device module, which is what its kernels see.
// LADDER_TIMELINE_HOOK() then defines ladder::stepNN::set_timeline(const Buffer&), which
// copies a Buffer into that step's g_buffer, and the file's registration statement
// (registry.h) hands set_timeline to the registry with each of the file's variants. In a
// build without LADDER_TIMELINE, set_timeline is a null pointer instead; a step without a
// hook (steps 01-02) registers nullptr; either way `--timeline` says why it cannot record.
//
// Timestamps. Each event carries both clocks: %globaltimer (nanoseconds, the same on every
// SM, but on some GPUs it only ticks every microsecond, coarser than one k-block) and
// clock64() (SM cycles: fine-grained, but each SM counts on its own). Within a CTA, which
// is what one Gantt chart shows, clock64 is the better ruler.
#pragma once

#include "timeline.h"

#ifdef LADDER_TIMELINE

namespace ladder::timeline {

// This translation unit's destination (see "Why one copy per step" above).
static __device__ Buffer g_buffer;

// Writes one Record (timeline.h) into its slot. The whole write is ONE asm statement of
// predicated instructions, with no branch: a branch here would give the compiler new
// control flow to reshape around the k-loop, and in steps 05-07 ptxas then serializes the
// wgmma ("C7515 ... wgmma.mma_async instructions are serialized"), which would change the
// very pipeline the timeline is meant to show.
// PTX ISA "Special Registers": %globaltimer (ns, GPU-wide), %clock64 (SM cycles), %smid.
__device__ __forceinline__ void record(bool is_recorder, int lane, Event event, int kblock) {
    const Buffer buffer = g_buffer;
    const bool on = is_recorder && blockIdx.x < kRecordedCtas && buffer.records != nullptr;
    const unsigned int row = kblock < 0 ? buffer.kblocks : static_cast<unsigned int>(kblock);
    const bool fits = static_cast<unsigned int>(lane) < buffer.lanes && row <= buffer.kblocks;
    const size_t slot =
        ((static_cast<size_t>(blockIdx.x) * buffer.lanes + lane) * (buffer.kblocks + 1) + row) *
            kEventKinds +
        static_cast<unsigned int>(event);
    const uint32_t write = on && fits;
    const uint32_t drop = on && !fits;  // never out of bounds: flag it, the host reports it
    asm volatile(
        "{\n"
        ".reg .pred write, drop;\n"
        ".reg .u64 now_ns, now_clock;\n"
        ".reg .u32 sm;\n"
        "setp.ne.u32 write, %0, 0;\n"
        "setp.ne.u32 drop, %1, 0;\n"
        "@write mov.u64 now_ns, %%globaltimer;\n"
        "@write mov.u64 now_clock, %%clock64;\n"
        "@write mov.u32 sm, %%smid;\n"
        "@write st.global.v2.u64 [%2], {now_ns, now_clock};\n"       // globaltimer_ns, clock
        "@write st.global.v4.u32 [%2+16], {%4, sm, %5, %6};\n"      // cta, sm, kblock, lane|event
        "@drop st.global.u32 [%3], 1;\n"
        "}\n" ::"r"(write),
        "r"(drop), "l"(__cvta_generic_to_global(buffer.records + slot)),
        "l"(__cvta_generic_to_global(buffer.dropped)), "r"(blockIdx.x), "r"(kblock),
        "r"(static_cast<uint32_t>(lane) | static_cast<uint32_t>(event) << 16)
        : "memory");
}

// Host: point this translation unit's kernels at `buffer` (Buffer{} stops recording).
static inline cudaError_t attach(const Buffer& buffer) {
    return cudaMemcpyToSymbol(g_buffer, &buffer, sizeof buffer);
}

}  // namespace ladder::timeline

#define LADDER_TIMELINE_PRODUCER(event, kblock)                                         \
    ::ladder::timeline::record(true, ::ladder::timeline::kProducerLane,                \
                               ::ladder::timeline::Event::event, (kblock))
#define LADDER_TIMELINE_CONSUMER(is_recorder, consumer, event, kblock)                  \
    ::ladder::timeline::record((is_recorder), 1 + (consumer),                          \
                               ::ladder::timeline::Event::event, (kblock))
// A statement that only timeline builds need (step 05 has one; it says why).
#define LADDER_TIMELINE_ONLY(...) __VA_ARGS__
// The step's hook, ladder::stepNN::set_timeline (expand it inside the step's namespace,
// before the registration statement that names it).
#define LADDER_TIMELINE_HOOK()                                                          \
    cudaError_t set_timeline(const ::ladder::timeline::Buffer& buffer) {                \
        return ::ladder::timeline::attach(buffer);                                      \
    }

#else  // no LADDER_TIMELINE: nothing at all

#define LADDER_TIMELINE_PRODUCER(event, kblock) \
    do {                                        \
    } while (0)
#define LADDER_TIMELINE_CONSUMER(is_recorder, consumer, event, kblock) \
    do {                                                               \
    } while (0)
#define LADDER_TIMELINE_ONLY(...)
// No hook: the registration statement (registry.h) registers a null pointer.
#define LADDER_TIMELINE_HOOK() constexpr decltype(nullptr) set_timeline = nullptr;

#endif
