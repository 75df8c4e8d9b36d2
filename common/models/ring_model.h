// ring_model.h: the mbarrier ring protocol of steps 03-07, run on the CPU.
//
// A GPU hides a protocol mistake until the wrong interleaving comes along, and then shows
// it as a hang or as wrong values far from the cause. This model runs the same protocol
// with every thread group ("agent") as a list of operations, under a seeded scheduler
// that picks which agent moves next (and when each copy lands) at random, so that many
// seeds try many interleavings in milliseconds. It says what went wrong in the
// protocol's own words:
//   hang: consumer 1 waits on full[2] parity 1 at k-block 6, which can never complete ...
//   race: producer refills slot 0 with k-block 4 while warp 3 still reads k-block 0 ...
//
// What it models (PTX ISA "mbarrier"):
//   * a barrier has an expected arrival count (mbarrier.init), a pending arrival count and
//     a transaction count; its current phase completes when both are zero, then the
//     pending count is reset and the next phase begins;
//   * arrive.expect_tx = one arrival, and the transaction count goes up by the bytes;
//     a copy that lands counts its bytes off (complete_tx), before or after the expect_tx;
//   * try_wait.parity(p) passes when the phase with parity p just before the current
//     one has completed, i.e. when the current phase's parity is not p. It names only
//     the low bit, so a waiter that falls two phases behind waits for a phase that will
//     never come again (reported), and one that names the parity of a phase it already
//     waited for passes at once (reported: the usual sign of a missing flip);
//   * a slot's data: a copy writes a k-block's bytes into a slot of one or more CTAs
//     (multicast); a read of a slot needs every byte of that k-block there, and no copy
//     may write a slot that somebody still reads.
// What it does not model: timing, memory ordering beyond the barrier's acquire/release,
// and the data itself (only which k-block a slot holds and how many of its bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ladder::ring {

enum class Kind { Full, Empty };

// One barrier: full[i] or empty[i] of CTA `cta`.
struct BarrierId {
    int cta = 0;
    Kind kind = Kind::Full;
    int index = 0;
};

enum class OpCode { Wait, Arrive, ExpectTx, Load, ReadBegin, ReadEnd, SyncThreads };

struct Op {
    OpCode code;
    BarrierId barrier{};   // Wait, Arrive, ExpectTx, Load (the full barrier it signals)
    uint32_t parity = 0;   // Wait
    long bytes = 0;        // ExpectTx, Load (per destination CTA)
    int slot = 0;          // Load, ReadBegin, ReadEnd
    int k_block = 0;       // for the report; Load and ReadBegin also tag the data with it
    uint32_t cta_mask = 0; // Load: bit c = the copy lands in CTA c (0: the agent's own CTA)
};

// A thread group that runs one op after the other: a warp, a warpgroup, a producer thread.
struct Agent {
    std::string name;  // "consumer 1", "warp 3", "producer (CTA 1)"
    int cta = 0;
    std::vector<Op> ops;

    // The operations, in program order. k_block is what the report names.
    void wait(BarrierId b, uint32_t parity, int k_block) {
        ops.push_back({OpCode::Wait, b, parity & 1u, 0, 0, k_block, 0});
    }
    void arrive(BarrierId b, int k_block) { ops.push_back({OpCode::Arrive, b, 0, 0, 0, k_block, 0}); }
    void expect_tx(BarrierId b, long bytes, int k_block) {
        ops.push_back({OpCode::ExpectTx, b, 0, bytes, 0, k_block, 0});
    }
    // A TMA copy of `bytes` into `slot` of every CTA in cta_mask (0: this CTA only), each
    // copy counting off the full barrier of that slot in its own CTA.
    void load(int slot, long bytes, int k_block, uint32_t cta_mask = 0) {
        ops.push_back({OpCode::Load, BarrierId{cta, Kind::Full, slot}, 0, bytes, slot, k_block,
                       cta_mask});
    }
    void read_begin(int slot, int k_block) { ops.push_back({OpCode::ReadBegin, {}, 0, 0, slot, k_block, 0}); }
    void read_end(int slot, int k_block) { ops.push_back({OpCode::ReadEnd, {}, 0, 0, slot, k_block, 0}); }
    void sync_threads(int k_block) { ops.push_back({OpCode::SyncThreads, {}, 0, 0, 0, k_block, 0}); }
};

// A protocol: the barriers of every CTA (all CTAs alike) and the agents.
struct Protocol {
    std::string name;
    int ctas = 1;
    int stages = 1;
    uint32_t full_count = 1;   // mbarrier.init count of every full barrier
    uint32_t empty_count = 0;  // of every empty barrier (0: the protocol has none)
    long stage_bytes = 0;      // bytes one slot of one CTA holds when a k-block has landed
    std::vector<Agent> agents;

    BarrierId full(int cta, int slot) const { return {cta, Kind::Full, slot}; }
    BarrierId empty(int cta, int slot) const { return {cta, Kind::Empty, slot}; }
    Agent& add(std::string agent_name, int cta) {
        agents.push_back(Agent{std::move(agent_name), cta, {}});
        return agents.back();
    }
};

struct Verdict {
    bool ok = true;
    std::string message;  // the first problem, in the protocol's words ("" when ok)
    uint64_t seed = 0;    // the seed that found it
};

// Runs the protocol once under the interleaving that `seed` picks.
Verdict run(const Protocol& protocol, uint64_t seed);

// Runs it under seeds first_seed, first_seed + 1, ... and returns the first failure (or
// ok after all of them). Seed 0 is the "in order" interleaving: each agent runs until
// it blocks, copies land as soon as nothing else can move.
Verdict run_seeds(const Protocol& protocol, int seeds, uint64_t first_seed = 0);

// "full[2]" or "empty[0] of CTA 1" (the CTA only where the protocol has more than one).
std::string barrier_name(const Protocol& protocol, BarrierId b);

}  // namespace ladder::ring
