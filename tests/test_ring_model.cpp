// The CPU ring model (common/models/ring_model.h) on the schedules of steps 03, 04, 06 and 07:
// the correct ones never hang or race over many interleavings, and each classic mistake
// is named exactly (seed 0 is the deterministic in-order interleaving; the others must
// find a problem too).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ring_schedules.h"

namespace {

using namespace ladder::ring;

constexpr int kSeeds = 300;

TEST(RingModel, CorrectSchedulesNeverHangOrRace) {
    for (int k_blocks : {1, 3, 4, 5, 9, 17}) {
        for (int step : {3, 4, 6}) {
            const Verdict v = run_seeds(schedule_for_step(step, k_blocks, 1), kSeeds);
            EXPECT_TRUE(v.ok) << "step " << step << ", " << k_blocks << " k-blocks: " << v.message;
        }
        for (int cluster : {1, 2, 4}) {
            const Verdict v = run_seeds(schedule_step07(k_blocks, cluster), kSeeds);
            EXPECT_TRUE(v.ok) << "step 7, cluster " << cluster << ", " << k_blocks
                              << " k-blocks: " << v.message;
        }
    }
}

// The in-order diagnostic, and that random interleavings find a problem as well.
std::string diagnose(const Protocol& p) {
    EXPECT_FALSE(run_seeds(p, kSeeds, 1).ok) << p.name << ": no seed found the problem";
    return run(p, 0).message;
}

TEST(RingModel, WrongFullParityReadsBeforeTheDataLanded) {
    Faults f;
    f.full_parity_xor = 1;
    EXPECT_EQ(diagnose(schedule_step04(9, f)),
              "race: warp 0 reads slot 0 for k-block 0, but it holds nothing yet (0 of 49152 bytes "
              "landed): its wait passed before the copy was complete");
}

TEST(RingModel, MissingFlipOnWrapIsAStaleWait) {
    Faults f;
    f.no_flip = true;
    EXPECT_EQ(diagnose(schedule_step04(9, f)),
              "stale wait: warp 1 waits on full[0] parity 0 at k-block 4 and passes at once on phase "
              "0, which it already waited for: the parity did not change since its last wait there (a "
              "missing flip when the slot wrapped?)");
    EXPECT_EQ(diagnose(schedule_step06(9, f)).rfind("stale wait: producer waits on empty[0] parity 1 "
                                                    "at k-block 4 and passes at once on phase -1", 0),
              0u);
}

TEST(RingModel, WrongEmptyParityRefillsUnreadData) {
    Faults f;
    f.empty_parity_xor = 1;
    EXPECT_EQ(diagnose(schedule_step04(9, f)),
              "race: warp 0 refills slot 0 with k-block 4 before warp 1 has read k-block 0 there");
    EXPECT_EQ(diagnose(schedule_step06(9, f)).rfind(
                  "hang: producer waits on empty[0] parity 0 at k-block 0, which can never complete: "
                  "phase 0 still needs 2 of 2 arrivals", 0),
              0u);
}

TEST(RingModel, WrongArrivalCounts) {
    Faults too_few;
    too_few.empty_count_delta = -1;
    EXPECT_EQ(diagnose(schedule_step07(9, 2, too_few)),
              "race: producer (CTA 0) refills slot 0 of CTA 1 with k-block 4 while consumer 1 (CTA 1) "
              "still reads k-block 0 there");
    Faults too_many;
    too_many.full_count_delta = 1;
    EXPECT_EQ(diagnose(schedule_step06(9, too_many)).rfind(
                  "hang: consumer 0 waits on full[0] parity 0 at k-block 0, which can never complete: "
                  "phase 0 still needs 1 of 2 arrivals", 0),
              0u);
}

TEST(RingModel, WrongExpectTxBytes) {
    Faults f;
    f.tx_delta = -STEP_STAGE_BYTES / 3;  // 16 KB short: the A box
    EXPECT_EQ(diagnose(schedule_step03(4, f)).rfind(
                  "hang: warp 0 waits on full[0] parity 0 at k-block 0, which can never complete: "
                  "phase 0 still needs 0 of 1 arrivals (16384 bytes more have landed than were "
                  "announced", 0),
              0u);
    // Step 07's stage: the A box lands first in order, then the B slices; announcing 16 KB
    // too few lets the phase complete while a slice is still missing.
    EXPECT_EQ(diagnose(schedule_step07(9, 2, f)),
              "race: consumer 0 (CTA 0) reads slot 0 for k-block 0, but it holds k-block 0 (32768 of "
              "49152 bytes landed): its wait passed before the copy was complete");
}

TEST(RingModel, ReleaseBeforeTheReadsFinish) {
    Faults f;
    f.release_before_reads = true;
    EXPECT_EQ(diagnose(schedule_step04(9, f)),
              "race: warp 0 refills slot 0 with k-block 4 while warp 7 still reads k-block 0 there");
    EXPECT_EQ(diagnose(schedule_step06(9, f)),
              "race: producer refills slot 0 with k-block 4 while consumer 0 still reads k-block 0 there");
}

TEST(RingModel, ClusterReleaseAndMulticast) {
    Faults local;
    local.local_release_only = true;
    EXPECT_EQ(diagnose(schedule_step07(9, 2, local)).rfind(
                  "hang: producer (CTA 0) waits on empty[0] of CTA 0 parity 0 at k-block 4, which can "
                  "never complete: phase 0 still needs 2 of 4 arrivals", 0),
              0u);
    Faults own_slice;
    own_slice.no_multicast = true;
    EXPECT_EQ(diagnose(schedule_step07(9, 2, own_slice)).rfind(
                  "hang: consumer 0 (CTA 0) waits on full[0] of CTA 0 parity 0 at k-block 0, which can "
                  "never complete: phase 0 still needs 0 of 1 arrivals and 16384 bytes", 0),
              0u);
    // With one CTA there is nobody else to release to or multicast to: both are harmless.
    EXPECT_TRUE(run_seeds(schedule_step07(9, 1, local), kSeeds).ok);
    EXPECT_TRUE(run_seeds(schedule_step07(9, 1, own_slice), kSeeds).ok);
}

// A waiter that falls two phases behind. The consumer passes phase 0 of full[0], then is
// held on empty[0] while the producer completes more phases of full[0]; its next wait
// names parity 1, meaning phase 1.
Protocol two_behind(int extra_phases) {
    Protocol p;
    p.name = "two behind";
    p.stages = 1;
    p.full_count = 1;
    p.empty_count = 1;
    Agent& consumer = p.add("consumer 1", 0);
    consumer.wait(p.full(0, 0), 0, 0);
    consumer.wait(p.empty(0, 0), 0, 0);
    consumer.wait(p.full(0, 0), 1, 1);
    Agent& producer = p.add("producer", 0);
    for (int kb = 0; kb <= extra_phases; ++kb) producer.arrive(p.full(0, 0), kb);
    producer.arrive(p.empty(0, 0), 0);
    return p;
}

TEST(RingModel, FallingTwoPhasesBehindIsReported) {
    // Phases 1 and 2 completed meanwhile: phase 3 (parity 1) is current, and never ends.
    EXPECT_EQ(run(two_behind(2), 0).message,
              "hang: consumer 1 waits on full[0] parity 1 at k-block 1, which can never complete: its "
              "last wait there passed on phase 0, and the barrier is already in phase 3; it fell two "
              "phases behind, and try_wait.parity cannot tell phase 1 from phase 3");
    // Phases 1, 2 and 3 completed: the parity-1 wait passes, on phase 3 instead of 1.
    EXPECT_EQ(run(two_behind(3), 0).message,
              "stale wait: consumer 1 waits on full[0] parity 1 at k-block 1 and passes on phase 3, "
              "but its previous wait there passed on phase 0: it fell two phases behind, and "
              "try_wait.parity took phase 3 for phase 1 (same parity)");
    // One phase ahead is fine: the wait passes on phase 1.
    EXPECT_TRUE(run(two_behind(1), 0).ok);
}

// The protocol of step 04's implementation exercise (its reference solution is
// tests/fixtures/exercises/solutions/04_tma_multistage.cu): thread 0 refills, in
// iteration kb, the slot of k-block kb - 1 with k-block kb - 1 + STAGES.
Protocol step04_late_refill(int k_blocks, bool refill) {
    constexpr int STAGES = 4, WARPS = 8;
    Protocol p = schedule_step04(k_blocks);  // the same barriers and prologue
    for (Agent& a : p.agents) a.ops.clear();
    for (int kb = 0; kb < STAGES && kb < k_blocks; ++kb) {
        p.agents[0].expect_tx(p.full(0, kb), STEP_STAGE_BYTES, kb);
        p.agents[0].load(kb, STEP_STAGE_BYTES, kb);
    }
    for (int w = 0; w < WARPS; ++w) {
        Agent& warp = p.agents[static_cast<size_t>(w)];
        int stage = 0, refill_stage = 0;
        uint32_t phase = 0, refill_phase = 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
            warp.wait(p.full(0, stage), phase, kb);
            warp.read_begin(stage, kb);
            warp.read_end(stage, kb);
            warp.arrive(p.empty(0, stage), kb);
            if (kb > 0) {
                if (refill && w == 0 && kb - 1 + STAGES < k_blocks) {
                    warp.wait(p.empty(0, refill_stage), refill_phase, kb);
                    warp.expect_tx(p.full(0, refill_stage), STEP_STAGE_BYTES, kb - 1 + STAGES);
                    warp.load(refill_stage, STEP_STAGE_BYTES, kb - 1 + STAGES);
                }
                if (++refill_stage == STAGES) {
                    refill_stage = 0;
                    refill_phase ^= 1;
                }
            }
            if (++stage == STAGES) {
                stage = 0;
                phase ^= 1;
            }
        }
    }
    return p;
}

TEST(RingModel, Step04ExerciseProtocol) {
    for (int k_blocks : {1, 4, 5, 8, 9, 17}) {
        const Verdict v = run_seeds(step04_late_refill(k_blocks, true), kSeeds);
        EXPECT_TRUE(v.ok) << k_blocks << " k-blocks: " << v.message;
    }
    // The stub (no refill) is right for one lap and hangs after it.
    EXPECT_TRUE(run_seeds(step04_late_refill(4, false), kSeeds).ok);
    EXPECT_EQ(run(step04_late_refill(5, false), 0).message.rfind(
                  "hang: warp 0 waits on full[0] parity 1 at k-block 4, which can never complete", 0),
              0u);
}

// The protocol of step 07's implementation exercise (reference solution:
// tests/fixtures/exercises/solutions/07_clusters_multicast.cu): the cluster along N, CTA
// kb % cluster multicasts the A box of k-block kb, every CTA loads its own B box.
Protocol step07_along_n(int k_blocks, int cluster) {
    constexpr int STAGES = 4, CONSUMERS = 2;
    constexpr long A_BYTES = 128 * 64 * 2, B_BYTES = 256 * 64 * 2;
    const uint32_t everyone = (1u << cluster) - 1u;
    Protocol p = schedule_step07(k_blocks, cluster);  // the same barriers and counts
    p.agents.clear();
    for (int r = 0; r < cluster; ++r) {
        const std::string cta = " (CTA " + std::to_string(r) + ")";
        Agent& producer = p.add("producer" + cta, r);
        int stage = 0;
        uint32_t phase = 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
            producer.wait(p.empty(r, stage), phase ^ 1u, kb);
            producer.expect_tx(p.full(r, stage), A_BYTES + B_BYTES, kb);
            if (kb % cluster == r) producer.load(stage, A_BYTES, kb, everyone);
            producer.load(stage, B_BYTES, kb);
            if (++stage == STAGES) {
                stage = 0;
                phase ^= 1u;
            }
        }
        for (int c = 0; c < CONSUMERS; ++c) {
            Agent& consumer = p.add("consumer " + std::to_string(c) + cta, r);
            int cstage = 0, previous = -1;
            uint32_t cphase = 0;
            auto release = [&](int slot, int kb) {
                for (int q = 0; q < cluster; ++q) consumer.arrive(p.empty(q, slot), kb);
            };
            for (int kb = 0; kb < k_blocks; ++kb) {
                consumer.wait(p.full(r, cstage), cphase, kb);
                consumer.read_begin(cstage, kb);
                if (previous >= 0) {
                    consumer.read_end(previous, kb - 1);
                    release(previous, kb - 1);
                }
                previous = cstage;
                if (++cstage == STAGES) {
                    cstage = 0;
                    cphase ^= 1u;
                }
            }
            consumer.read_end(previous, k_blocks - 1);
            release(previous, k_blocks - 1);
        }
    }
    return p;
}

TEST(RingModel, Step07ExerciseProtocol) {
    for (int cluster : {1, 2, 4})
        for (int k_blocks : {1, 2, 5, 9, 17}) {
            const Verdict v = run_seeds(step07_along_n(k_blocks, cluster), kSeeds);
            EXPECT_TRUE(v.ok) << "cluster " << cluster << ", " << k_blocks << " k-blocks: " << v.message;
        }
}

// The protocol of step 03's implementation exercise (reference solution:
// tests/fixtures/exercises/solutions/03_tma_single_stage.cu): B in two boxes of half
// height on the one full barrier. The lower box is issued only where it holds rows of B;
// without it a k-block is fewer bytes (the model tracks bytes, not rows).
struct Step03Producer {
    bool lower_rows = true;         // the lower box holds rows of B
    bool issue_lower = true;        // ... and the producer issues it
    long expected = 0;              // bytes of the one arrive.expect_tx per k-block
    bool arrival_per_box = false;   // instead: one arrive.expect_tx per box (on a count of 1)
};

Protocol step03_two_b_boxes(int k_blocks, const Step03Producer& s) {
    constexpr int WARPS = 8;
    constexpr long A_BYTES = 128 * 64 * 2, B_HALF_BYTES = 128 * 64 * 2;
    Protocol p = schedule_step03(k_blocks);  // the same barrier and warps
    p.stage_bytes = A_BYTES + (s.lower_rows ? 2 : 1) * B_HALF_BYTES;
    for (Agent& a : p.agents) a.ops.clear();
    auto issue = [&](Agent& producer, int kb) {
        std::vector<long> boxes = {A_BYTES, B_HALF_BYTES};
        if (s.issue_lower) boxes.push_back(B_HALF_BYTES);
        if (!s.arrival_per_box) producer.expect_tx(p.full(0, 0), s.expected, kb);
        for (long bytes : boxes) {
            if (s.arrival_per_box) producer.expect_tx(p.full(0, 0), bytes, kb);
            producer.load(0, bytes, kb);
        }
    };
    issue(p.agents[0], 0);
    for (int w = 0; w < WARPS; ++w) {
        Agent& warp = p.agents[static_cast<size_t>(w)];
        for (int kb = 0; kb < k_blocks; ++kb) {
            warp.wait(p.full(0, 0), static_cast<uint32_t>(kb) & 1u, kb);
            warp.read_begin(0, kb);
            warp.read_end(0, kb);
            warp.sync_threads(kb);
            if (w == 0 && kb + 1 < k_blocks) issue(warp, kb + 1);
        }
    }
    return p;
}

TEST(RingModel, Step03ExerciseProtocol) {
    constexpr long A_BYTES = 128 * 64 * 2, B_HALF_BYTES = 128 * 64 * 2;
    // The solution: one arrival announcing the full bytes of every box issued.
    for (int k_blocks : {1, 2, 9})
        for (bool lower : {true, false}) {
            const Step03Producer s{lower, lower, A_BYTES + (lower ? 2 : 1) * B_HALF_BYTES, false};
            const Verdict v = run_seeds(step03_two_b_boxes(k_blocks, s), kSeeds);
            EXPECT_TRUE(v.ok) << k_blocks << " k-blocks, lower box " << lower << ": " << v.message;
        }
    // The lower box announced but not issued (N <= 128): a hang on the first k-block.
    const Step03Producer announced_only{false, false, A_BYTES + 2 * B_HALF_BYTES, false};
    EXPECT_EQ(run(step03_two_b_boxes(2, announced_only), 0)
                  .message.rfind("hang: warp 0 waits on full[0] parity 0 at k-block 0", 0),
              0u);
    // The stub: the lower box neither announced nor issued although it holds rows of B;
    // the warps read a slot that lacks part of the k-block.
    const Step03Producer stub{true, false, A_BYTES + B_HALF_BYTES, false};
    EXPECT_FALSE(run_seeds(step03_two_b_boxes(2, stub), kSeeds).ok);
    // One arrive.expect_tx per box on a barrier that expects one arrival per phase: the
    // phase may complete with the A box alone landed, and the other arrivals fall on a
    // phase they do not belong to.
    const Step03Producer per_box{true, true, 0, true};
    EXPECT_FALSE(run_seeds(step03_two_b_boxes(2, per_box), kSeeds).ok);
}

TEST(RingModel, ScheduleForStepNamesOnlyTheRingSteps) {
    EXPECT_TRUE(schedule_for_step(5, 9, 1).agents.empty());
    EXPECT_EQ(schedule_for_step(7, 9, 4).ctas, 4);
}

}  // namespace
