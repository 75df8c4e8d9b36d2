// ring_schedules.cpp: the schedules of steps 03, 04, 06 and 07 for the CPU ring model.
// Each function writes, per agent, the barrier operations of the step's gemm.cu in
// program order, with the same stage/phase bookkeeping. Edit them freely (the step 04
// and 07 exercises start here); `ladder-ring` runs them.
#include "ring_schedules.h"

#include <string>

namespace ladder::ring {

namespace {

constexpr long A_BOX_BYTES = 128 * 64 * 2;  // BM x BK bf16: 16 KB (every step)
constexpr long B_BOX_BYTES = 256 * 64 * 2;  // BN x BK bf16: 32 KB (every step)
static_assert(A_BOX_BYTES + B_BOX_BYTES == STEP_STAGE_BYTES, "a stage is one A and one B box");

// The ring's position: slot `stage`, `phase` the parity of the slot's current use.
// (06_warp_specialized/warp_specialization.cuh: advance(); steps 03 and 04 spell it out.)
void advance(int& stage, uint32_t& phase, int stages, const Faults& f) {
    if (++stage == stages) {
        stage = 0;
        if (!f.no_flip) phase ^= 1u;
    }
}

// One k-block's copies, as the step's producer issues them (03, 04, 06: two boxes).
void issue(Agent& producer, const Protocol& p, int stage, int kb, const Faults& f) {
    producer.expect_tx(p.full(producer.cta, stage), STEP_STAGE_BYTES + f.tx_delta, kb);
    producer.load(stage, A_BOX_BYTES, kb);
    producer.load(stage, B_BOX_BYTES, kb);
}

Protocol base(const char* name, int ctas, int stages, uint32_t full_count, uint32_t empty_count,
              const Faults& f) {
    Protocol p;
    p.name = name;
    p.ctas = ctas;
    p.stages = stages;
    p.full_count = static_cast<uint32_t>(static_cast<int>(full_count) + f.full_count_delta);
    p.empty_count = empty_count == 0 ? 0
                                     : static_cast<uint32_t>(static_cast<int>(empty_count) +
                                                             f.empty_count_delta);
    p.stage_bytes = STEP_STAGE_BYTES;
    return p;
}

}  // namespace

// Step 03: one slot, 8 warps; thread 0 (in warp 0) is also the producer. The slot is
// guarded by __syncthreads(): nobody refills it before every warp has read it.
Protocol schedule_step03(int k_blocks, const Faults& f) {
    constexpr int WARPS = 8;
    Protocol p = base("step 03 (one stage, __syncthreads)", 1, 1, 1, 0, f);
    for (int w = 0; w < WARPS; ++w) p.add("warp " + std::to_string(w), 0);
    issue(p.agents[0], p, 0, 0, f);
    for (int w = 0; w < WARPS; ++w) {
        Agent& warp = p.agents[static_cast<size_t>(w)];
        int stage = 0;
        uint32_t phase = 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
            warp.wait(p.full(0, stage), phase ^ f.full_parity_xor, kb);
            warp.read_begin(stage, kb);
            warp.read_end(stage, kb);
            warp.sync_threads(kb);
            if (w == 0 && kb + 1 < k_blocks) issue(warp, p, stage, kb + 1, f);
            advance(stage, phase, 1, f);
        }
    }
    return p;
}

// Step 04: a ring of STAGES = 4 slots, full and empty barriers; 8 consumer warps, each
// arriving on empty[s] when done; thread 0 (in warp 0) refills slot s with k-block
// kb + STAGES once all 8 have.
Protocol schedule_step04(int k_blocks, const Faults& f) {
    constexpr int STAGES = 4;  // 04_tma_multistage/gemm.cu
    constexpr int WARPS = 8;
    Protocol p = base("step 04 (ring of 4, full/empty)", 1, STAGES, 1, WARPS, f);
    for (int w = 0; w < WARPS; ++w) p.add("warp " + std::to_string(w), 0);
    for (int kb = 0; kb < STAGES && kb < k_blocks; ++kb) issue(p.agents[0], p, kb, kb, f);
    for (int w = 0; w < WARPS; ++w) {
        Agent& warp = p.agents[static_cast<size_t>(w)];
        int stage = 0;
        uint32_t phase = 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
            warp.wait(p.full(0, stage), phase ^ f.full_parity_xor, kb);
            warp.read_begin(stage, kb);
            if (f.release_before_reads) warp.arrive(p.empty(0, stage), kb);
            warp.read_end(stage, kb);
            if (!f.release_before_reads) warp.arrive(p.empty(0, stage), kb);
            if (w == 0 && kb + STAGES < k_blocks) {
                warp.wait(p.empty(0, stage), phase ^ f.empty_parity_xor, kb);
                issue(warp, p, stage, kb + STAGES, f);
            }
            advance(stage, phase, STAGES, f);
        }
    }
    return p;
}

namespace {

// Steps 06 and 07: one consumer warpgroup's loop. It holds two slots at a time: the
// wgmma of k-block kb is still reading when it waits for kb - 1's to finish, and only
// then releases kb - 1's slot (to every CTA in `release_to`).
void consumer_loop(Agent& c, const Protocol& p, int stages, int k_blocks, uint32_t release_to,
                   const Faults& f) {
    auto release = [&](int slot, int kb) {
        for (int r = 0; r < p.ctas; ++r)
            if (release_to & (1u << r)) c.arrive(p.empty(r, slot), kb);
    };
    int stage = 0;
    uint32_t phase = 0;
    int previous = -1;
    for (int kb = 0; kb < k_blocks; ++kb) {
        c.wait(p.full(c.cta, stage), phase ^ f.full_parity_xor, kb);
        c.read_begin(stage, kb);
        if (f.release_before_reads) release(stage, kb);  // before its wgmma is done
        if (previous >= 0) {
            c.read_end(previous, kb - 1);
            if (!f.release_before_reads) release(previous, kb - 1);
        }
        previous = stage;
        advance(stage, phase, stages, f);
    }
    if (previous >= 0) {
        c.read_end(previous, k_blocks - 1);
        if (!f.release_before_reads) release(previous, k_blocks - 1);
    }
}

}  // namespace

// Step 06 (cooperative): a producer warpgroup (one thread issues) and two consumer
// warpgroups that each read the whole stage (their halves of A, all of B).
Protocol schedule_step06(int k_blocks, const Faults& f) {
    constexpr int STAGES = 4;       // 06_warp_specialized/gemm.cu, cooperative: 227 KB / 48 KB
    constexpr int CONSUMERS = 2;    // EMPTY_ARRIVALS<Cooperative>
    Protocol p = base("step 06 (producer + 2 consumers)", 1, STAGES, 1, CONSUMERS, f);
    Agent& producer = p.add("producer", 0);
    int stage = 0;
    uint32_t phase = 0;
    for (int kb = 0; kb < k_blocks; ++kb) {
        // A fresh barrier counts its "previous" phase (parity 1) as complete: the first
        // lap's waits pass at once.
        producer.wait(p.empty(0, stage), phase ^ 1u ^ f.empty_parity_xor, kb);
        issue(producer, p, stage, kb, f);
        advance(stage, phase, STAGES, f);
    }
    for (int c = 0; c < CONSUMERS; ++c)
        consumer_loop(p.add("consumer " + std::to_string(c), 0), p, STAGES, k_blocks, 1u, f);
    return p;
}

// Step 07: a cluster of `cluster` CTAs along M. Each CTA's producer loads its A box into
// its own stage and one slice (BN / cluster rows) of the shared B box into the same
// stage of EVERY CTA (multicast); each CTA's full barrier therefore counts its A box and
// all the slices. A stage may be refilled only when both consumers of every CTA are done
// with it: empty count 2 * cluster, each consumer arrives on every CTA's empty barrier.
Protocol schedule_step07(int k_blocks, int cluster, const Faults& f) {
    constexpr int STAGES = 4;       // 07_clusters_multicast/gemm.cu (the lesson kernel)
    constexpr int CONSUMERS = 2;
    const uint32_t everyone = (1u << cluster) - 1u;
    const long slice_bytes = B_BOX_BYTES / cluster;  // B_SLICE_BYTES<CLUSTER>
    Protocol p = base("step 07 (cluster, multicast B)", cluster, STAGES, 1,
                      static_cast<uint32_t>(CONSUMERS * cluster), f);
    for (int r = 0; r < cluster; ++r) {
        const std::string cta = cluster > 1 ? " (CTA " + std::to_string(r) + ")" : "";
        Agent& producer = p.add("producer" + cta, r);
        int stage = 0;
        uint32_t phase = 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
            producer.wait(p.empty(r, stage), phase ^ 1u ^ f.empty_parity_xor, kb);
            producer.expect_tx(p.full(r, stage), A_BOX_BYTES + cluster * slice_bytes + f.tx_delta, kb);
            producer.load(stage, A_BOX_BYTES, kb);
            producer.load(stage, slice_bytes, kb, f.no_multicast ? (1u << r) : everyone);
            advance(stage, phase, STAGES, f);
        }
        for (int c = 0; c < CONSUMERS; ++c)
            consumer_loop(p.add("consumer " + std::to_string(c) + cta, r), p, STAGES, k_blocks,
                          f.local_release_only ? (1u << r) : everyone, f);
    }
    return p;
}

Protocol schedule_for_step(int step, int k_blocks, int cluster, const Faults& f) {
    switch (step) {
    case 3: return schedule_step03(k_blocks, f);
    case 4: return schedule_step04(k_blocks, f);
    case 6: return schedule_step06(k_blocks, f);
    case 7: return schedule_step07(k_blocks, cluster, f);
    default: return Protocol{};
    }
}

}  // namespace ladder::ring
