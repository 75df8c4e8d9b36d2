// ring_schedules.h: the producer/consumer schedules of steps 03, 04, 06 and 07, written
// for the CPU ring model (ring_model.h), one function per step, in the same order of
// operations as the step's gemm.cu. They are meant to be edited: the implementation
// exercises of steps 03, 04, 06 and 07 can be worked out here first, then checked with
//   ./build/ladder-ring --step 4 --k-blocks 9 --seeds 2000
// before any GPU is involved. `Faults` injects the classic mistakes (the CPU tests use it
// to check that the model names each one; EXERCISES.md of step 04 asks to predict them).
#pragma once

#include "ring_model.h"

namespace ladder::ring {

struct Faults {
    uint32_t full_parity_xor = 0;      // consumers wait on the wrong parity of full[s]
    uint32_t empty_parity_xor = 0;     // the producer waits on the wrong parity of empty[s]
    bool no_flip = false;              // the phase bit never flips when the slot wraps
    int full_count_delta = 0;          // full barriers initialised with count + delta
    int empty_count_delta = 0;         // empty barriers initialised with count + delta
    long tx_delta = 0;                 // expect_tx announces bytes + delta
    bool release_before_reads = false; // a consumer releases a slot before its reads end
    bool local_release_only = false;   // step 07: consumers arrive on their own CTA only
    bool no_multicast = false;         // step 07: each B slice goes to its own CTA only
};

// The steps' constants (each must match the step's gemm.cu; the comments say where).
constexpr long STEP_STAGE_BYTES = 128 * 64 * 2 + 256 * 64 * 2;  // A + B box of a k-block: 48 KB

Protocol schedule_step03(int k_blocks, const Faults& f = {});
Protocol schedule_step04(int k_blocks, const Faults& f = {});
Protocol schedule_step06(int k_blocks, const Faults& f = {});
Protocol schedule_step07(int k_blocks, int cluster, const Faults& f = {});

// By step number (3, 4, 6, 7); cluster only for 7. Empty protocol (no agents) otherwise.
Protocol schedule_for_step(int step, int k_blocks, int cluster, const Faults& f = {});

}  // namespace ladder::ring
