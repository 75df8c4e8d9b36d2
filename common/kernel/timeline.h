// timeline.h: the pipeline timeline, host side, and the record layout both sides share.
//
// Configured with -DLADDER_TIMELINE=ON, steps 03-07 write a timestamp into a device buffer
// at each point of their pipeline (a k-block's load issued, its full barrier passed, its
// MMAs started and finished, its slot released; the epilogue) for the first kRecordedCtas
// CTAs. `step-N --timeline FILE` runs one problem with the recorder attached and writes
// the events as CSV; common/scripts/plot_timeline.py draws them as a Gantt chart.
// The device side is common/kernel/timeline.cuh (it explains the design).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace ladder {
struct Step;
struct Variant;
}  // namespace ladder

namespace ladder::timeline {

// Only CTAs with blockIdx.x below this record: a few are enough to see the pipeline, and
// they run at the same time (the first wave), on different SMs.
constexpr unsigned kRecordedCtas = 4;

// What happened. The CSV writes the names of event_name().
enum class Event : uint16_t {
    LoadIssue,      // producer: the TMA copies of a k-block were issued
    LoadArrive,     // consumer: its wait on the k-block's full barrier returned (data visible)
    MmaStart,       // consumer: about to issue the k-block's MMAs
    MmaEnd,         // consumer: the k-block's MMAs are known to be complete
    Release,        // consumer: handed the k-block's slot back to the producer
    EpilogueStart,  // consumer: starts writing its accumulators to C
    EpilogueEnd,    // consumer: has issued its last store to C
};

// Who did it: lane 0 is the producer (the thread that issues the TMA loads), lane 1 + i is
// consumer i (a warp in steps 03-04, a consumer warpgroup in steps 05-07).
constexpr uint16_t kProducerLane = 0;

// One event, as the kernel writes it (32 bytes).
struct Record {
    uint64_t globaltimer_ns;  // %globaltimer: a GPU-wide nanosecond clock (coarse on some GPUs)
    int64_t clock;            // clock64(): this SM's cycle counter (fine, but per SM)
    uint32_t cta;             // blockIdx.x
    uint32_t sm;              // %smid: the SM the CTA ran on
    int32_t kblock;           // which k-block; -1 for the epilogue (a persistent kernel
                              // may number each tile's epilogue with its first k-block)
    uint16_t lane;            // kProducerLane or 1 + consumer index
    uint16_t event;           // an Event
};
static_assert(sizeof(Record) == 32, "the device writes what the host reads");

constexpr int kEventKinds = 7;

// Where the kernel writes. Every (CTA, lane, k-block, event) has its own slot, so the
// kernel needs no atomics and no counter (both would add branches and loops to the
// instrumented code, and ptxas then serializes the wgmma of steps 05-07):
//   slot = ((cta * lanes + lane) * (kblocks + 1) + row) * kEventKinds + event
// with row = kblock, or kblocks for the epilogue (kblock -1). A slot the kernel never wrote
// keeps the zeros the host cleared it to (globaltimer_ns == 0). An event that does not fit
// (lane >= lanes or kblock >= kblocks) sets *dropped instead of writing.
// All zero (records == nullptr) means "not recording".
struct Buffer {
    Record* records = nullptr;
    unsigned int* dropped = nullptr;
    unsigned int lanes = 0;    // producer + consumers (9 covers steps 03-04's 8 warps)
    unsigned int kblocks = 0;  // k-block numbers 0..kblocks-1 (more than K / BK: step 06
                               // ping-pong numbers two tiles' k-blocks, step 07 several tiles)
};

const char* event_name(Event event);

// True when this build records timelines (configured with -DLADDER_TIMELINE=ON) and
// `step` is instrumented; otherwise false with *why saying what to do.
bool available(const Step& step, std::string* why);

// Runs `variant` of `step` once on random M x N x K inputs as a warm-up, then once more
// with the recorder attached, and writes the recorded events to `csv_path`:
//   step,variant,device,m,n,k,sm_clock_mhz,cta,sm,lane,event,kblock,t_ns,cycle
// t_ns is %globaltimer relative to the earliest event of the run; cycle is clock64()
// relative to the earliest event of the same CTA (clocks of different SMs are not
// comparable). Prints a short summary. Returns false with *error on failure.
bool record_csv(const Step& step, const Variant& variant, long long M, long long N, long long K,
                uint64_t seed, const std::string& csv_path, std::string* error);

}  // namespace ladder::timeline
