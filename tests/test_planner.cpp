// CPU tests of the tile planner (common/models/planner.h) against examples worked out by hand.
// Every expected number has its arithmetic in a comment, so a failing test says which
// step of the paper calculation changed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner.h"

using namespace ladder::plan;

namespace {

Candidate tile(int bm, int bn, int bk, int stages, int wgs, int cluster) {
    Candidate c;
    c.bm = bm, c.bn = bn, c.bk = bk, c.stages = stages, c.consumer_warpgroups = wgs, c.cluster = cluster;
    c.threads = 0;
    return c;
}

const Problem k4096{4096, 4096, 4096};

bool parses(const std::vector<std::string>& args, CliOptions* options = nullptr) {
    CliOptions scratch;
    std::string error;
    const bool ok = parse_cli(args, options ? options : &scratch, &error);
    EXPECT_EQ(ok, error.empty()) << "an error message comes exactly with a failure: " << error;
    return ok;
}

}  // namespace

// ---- Three worked examples: shared memory, registers, wave quantization ----------------------

TEST(Planner, SharedMemoryOf128x256x64AtFourStagesIs192KiB) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 1));
    // One stage: (128 + 256) rows x 64 bf16 x 2 bytes = 384 x 128 = 49152 B = 48 KiB.
    EXPECT_EQ(p.smem_per_stage_bytes, 49152);
    // Four stages: 4 x 49152 = 196608 B = 192 KiB.
    EXPECT_EQ(p.smem_operand_bytes, 196608);
    EXPECT_EQ(p.smem_operand_bytes, 192 * 1024);
    // Plus 2 mbarriers x 8 B per stage = 64 B, plus 1024 B to align the base: 197696 B.
    EXPECT_EQ(p.smem_barrier_bytes, 64);
    EXPECT_EQ(p.smem_align_pad_bytes, 1024);
    EXPECT_EQ(p.smem_total_bytes, 197696);
    // Opt-in limit 232448 B: (232448 - 1024) / (49152 + 16) = 231424 / 49168 = 4.7 -> 4 stages.
    EXPECT_EQ(p.max_stages_that_fit, 4);
    // Two CTAs would need 2 x (197696 + 1024 reserved) > 233472 B per SM -> one CTA per SM.
    EXPECT_EQ(p.ctas_per_sm, 1);
    EXPECT_TRUE(p.fits);
}

TEST(Planner, AccumulatorsOf128x256OverTwoWarpgroupsAre128PerThread) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 1));
    // 128 x 256 = 32768 fp32 accumulators over 2 warpgroups x 128 threads = 256 threads:
    // 32768 / 256 = 128 registers per thread.
    EXPECT_EQ(p.acc_regs_per_thread, 128);
    // Threads: 2 consumer warpgroups + 1 producer warpgroup = 384.
    EXPECT_EQ(p.threads_per_cta, 384);
    // setmaxnreg: the producer keeps 40 x 128 = 5120 registers; (65536 - 5120) / 256 = 236,
    // rounded down to a multiple of 8 = 232 per consumer thread.
    EXPECT_EQ(p.reg_budget_per_thread, 232);
}

TEST(Planner, WaveQuantizationOf4096CubedWith128x256TilesOn132Sms) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 1));
    // 4096 / 128 = 32 tiles along M, 4096 / 256 = 16 along N: 512 tiles.
    EXPECT_EQ(p.tiles_m, 32);
    EXPECT_EQ(p.tiles_n, 16);
    EXPECT_EQ(p.tiles, 512);
    // One CTA per SM: 132 slots. 512 / 132 = 3.8788 waves -> 4 waves, the last has
    // 512 - 3 x 132 = 116 tiles for 132 SMs.
    EXPECT_EQ(p.slots, 132);
    EXPECT_NEAR(p.waves, 512.0 / 132.0, 1e-12);
    EXPECT_NEAR(p.waves, 3.88, 0.005);
    EXPECT_EQ(p.full_waves, 4);
    EXPECT_EQ(p.last_wave_tiles, 116);
    // Efficiency: 512 / (4 x 132) = 512 / 528 = 0.9697.
    EXPECT_NEAR(p.wave_efficiency, 512.0 / 528.0, 1e-12);
    EXPECT_NEAR(p.wave_efficiency, 0.9697, 1e-4);
    EXPECT_NEAR(p.tiles_per_sm, 3.8788, 1e-4);
    EXPECT_DOUBLE_EQ(p.edge_efficiency, 1.0);
}

// ---- More hand-worked numbers ----------------------------------------------------------------

TEST(Planner, IntensityOf128x128x64Is64FlopPerByte) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 128, 64, 4, 2, 1));
    // 2 x 128 x 128 x 64 = 2097152 FLOP over (128 + 128) x 64 x 2 = 32768 B: 64 FLOP/B
    // (in general BM x BN / (BM + BN) = 16384 / 256).
    EXPECT_DOUBLE_EQ(p.kblock_flops, 2097152.0);
    EXPECT_DOUBLE_EQ(p.intensity, 64.0);
    // Machine balance: 989.4e12 FLOP/s / 3.35e12 B/s = 295 FLOP/B: far above 64, so the
    // re-reads of A and B must come from L2, not DRAM.
    EXPECT_NEAR(p.dram_balance, 295.35, 0.05);
    EXPECT_LT(p.intensity, p.dram_balance);
}

TEST(Planner, DatasheetPeakIs132SmsTimes4096FlopPerClockAt1p83GHz) {
    const Machine m = h100_sxm();
    // 132 x 4096 x 1.83e9 = 989.43e12 FLOP/s: NVIDIA's 989.4 dense bf16 TFLOP/s.
    EXPECT_NEAR(m.dense_bf16_tflops, 989.4, 0.05);
    EXPECT_EQ(m.smem_per_block_optin_bytes, 232448);  // 227 KiB
    EXPECT_EQ(h200().sm_count, 132);
    EXPECT_DOUBLE_EQ(h200().dram_tbps, 4.8);
    EXPECT_EQ(dense_bf16_flop_per_clk_per_sm(9, 0), 4096);
    EXPECT_EQ(dense_bf16_flop_per_clk_per_sm(8, 0), 2048);
    EXPECT_EQ(dense_bf16_flop_per_clk_per_sm(12, 0), 0);
}

TEST(Planner, MachineFromDeviceUsesWhatTheDeviceReports) {
    DeviceFacts f;
    f.name = "NVIDIA H100 80GB HBM3";
    f.cc_major = 9, f.cc_minor = 0;
    f.sm_count = 132;
    f.sm_clock_khz = 1980000;
    f.mem_clock_khz = 2619000;
    f.mem_bus_width_bits = 5120;
    const Machine m = machine_from_device(f);
    // Peak at the reported maximum clock: 132 x 4096 x 1.98e9 = 1070.5e12 FLOP/s.
    EXPECT_NEAR(m.dense_bf16_tflops, 1070.5, 0.1);
    // DRAM: 2 edges x 2.619e9 x 5120 / 8 bytes = 3.352e12 B/s.
    EXPECT_NEAR(m.dram_tbps, 3.352, 0.001);
    // Fields left at 0 keep the H100 defaults.
    EXPECT_EQ(m.regs_per_sm, 65536);
    EXPECT_EQ(m.smem_per_block_optin_bytes, 232448);
}

TEST(Planner, FiveStagesOf128x256x64DoNotFitInSharedMemory) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 5, 2, 1));
    // 5 x 49152 + 5 x 16 + 1024 = 246864 B = 241.1 KiB > 227 KiB.
    EXPECT_EQ(p.smem_total_bytes, 246864);
    EXPECT_FALSE(p.fits);
    EXPECT_EQ(p.limiter.rfind("shared memory: does not fit", 0), 0u) << p.limiter;
    EXPECT_EQ(p.upper_bound_tflops, 0.0);
    EXPECT_NE(one_line(p).find("does not fit"), std::string::npos) << one_line(p);
}

TEST(Planner, AccumulatorsOf256x256OverTwoWarpgroupsDoNotFitInRegisters) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(256, 256, 64, 3, 2, 1));
    // 65536 accumulators / 256 threads = 256 per thread: more than the 232 setmaxnreg leaves.
    EXPECT_EQ(p.acc_regs_per_thread, 256);
    EXPECT_FALSE(p.fits);
    EXPECT_EQ(p.limiter.rfind("registers", 0), 0u) << p.limiter;
}

TEST(Planner, StagesNeededFollowsLatencyPlusTransferOverMath) {
    Machine m = h100_sxm();
    m.l2_tbps = 10.0;
    m.mem_latency_ns = 800.0;
    const Plan p = evaluate(m, k4096, tile(128, 256, 64, 4, 2, 1));
    // Math per k-block: 2 x 128 x 256 x 64 = 4194304 FLOP at 989.4e12 / 132 FLOP/s per SM = 559.6 ns.
    EXPECT_NEAR(p.math_ns_per_kblock, 559.6, 0.1);
    // Transfer: 49152 B at 10e12 / 132 B/s per SM = 648.8 ns.
    EXPECT_NEAR(p.transfer_ns_per_kblock, 648.8, 0.1);
    // 1 + ceil((800 + 648.8) / 559.6) = 1 + ceil(2.59) = 4.
    EXPECT_EQ(p.stages_needed, 4);
}

TEST(Planner, StagesNeededGrowsWithLatency) {
    Machine m = h100_sxm();
    int previous = 0;
    for (double latency : {100.0, 400.0, 800.0, 1600.0, 3200.0}) {
        m.mem_latency_ns = latency;
        const Plan p = evaluate(m, k4096, tile(128, 256, 64, 4, 2, 1));
        EXPECT_GE(p.stages_needed, previous) << "latency " << latency;
        previous = p.stages_needed;
    }
    m.mem_latency_ns = 100.0;
    const int short_latency = evaluate(m, k4096, tile(128, 256, 64, 4, 2, 1)).stages_needed;
    m.mem_latency_ns = 3200.0;
    const int long_latency = evaluate(m, k4096, tile(128, 256, 64, 4, 2, 1)).stages_needed;
    EXPECT_GT(long_latency, short_latency);
}

TEST(Planner, OneStageIsLimitedByMemoryLatency) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 1, 2, 1));
    // With one stage nothing overlaps: each k-block costs latency + transfer + math.
    EXPECT_TRUE(p.fits);
    EXPECT_EQ(p.limiter, "memory latency: too few stages");
    EXPECT_GT(p.pipeline_us, 2.5 * p.math_us);
}

TEST(Planner, ClusterMulticastDividesTheSharedSlabsL2Traffic) {
    const Plan one = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 1));
    const Plan two = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 2));
    // Alone: (128 + 256) x 64 x 2 = 49152 B per k-block. Cluster of 2 along M sharing the
    // B slab: (128 + 256 / 2) x 64 x 2 = 32768 B.
    EXPECT_DOUBLE_EQ(one.kblock_bytes, 49152.0);
    EXPECT_DOUBLE_EQ(two.kblock_bytes, 32768.0);
    // L2 -> SM traffic: 512 tiles x 64 k-blocks x bytes per k-block.
    EXPECT_DOUBLE_EQ(one.l2_bytes_moved, 512.0 * 64 * 49152);
    EXPECT_DOUBLE_EQ(two.l2_bytes_moved, 512.0 * 64 * 32768);
    EXPECT_GE(two.upper_bound_tflops, one.upper_bound_tflops);
}

TEST(Planner, UpperBoundIsTheSlowestOfTheLimits) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 2));
    EXPECT_TRUE(p.modeled);
    EXPECT_DOUBLE_EQ(p.bound_us, std::max({p.pipeline_us, p.l2_us, p.dram_us}));
    // Compulsory DRAM traffic: (3 x 4096 x 4096) x 2 B = 100663296 B.
    EXPECT_DOUBLE_EQ(p.dram_bytes, 100663296.0);
    // Math: 4 waves x 64 k-blocks x 559.6 ns = 143.2 us; the bound is the peak times the
    // wave efficiency: 989.43 x 512 / 528 = 959.4 TFLOP/s.
    EXPECT_NEAR(p.math_us, 143.25, 0.05);
    EXPECT_NEAR(p.upper_bound_tflops, h100_sxm().dense_bf16_tflops * 512.0 / 528.0, 1e-6);
    EXPECT_EQ(p.limiter, "tensor-core math");
}

TEST(Planner, EdgeTilesAndClustersRoundTheGridUp) {
    const Plan p = evaluate(h100_sxm(), Problem{5000, 3000, 1000}, tile(128, 256, 64, 4, 2, 2));
    // M: ceil(5000 / 128) = 40 tiles (already even for the cluster of 2); N: ceil(3000 / 256) = 12.
    EXPECT_EQ(p.tiles_m, 40);
    EXPECT_EQ(p.tiles_n, 12);
    // Useful outputs: 5000 x 3000 / (480 x 128 x 256) = 15e6 / 15728640 = 0.9537.
    EXPECT_NEAR(p.edge_efficiency, 0.9537, 1e-4);
    // K: ceil(1000 / 64) = 16 k-blocks (the last one partly zero-filled).
    EXPECT_EQ(p.k_blocks, 16);
    const Plan odd = evaluate(h100_sxm(), Problem{300, 256, 64}, tile(128, 256, 64, 4, 2, 2));
    // ceil(300 / 128) = 3 tiles along M, rounded up to whole clusters of 2: 4.
    EXPECT_EQ(odd.tiles_m, 4);
}

TEST(Planner, InvalidCandidatesAreRejectedWithAReason) {
    // Two warpgroups own 64 rows each: BM must be a multiple of 128.
    Plan p = evaluate(h100_sxm(), k4096, tile(64, 128, 64, 4, 2, 1));
    EXPECT_FALSE(p.fits);
    EXPECT_EQ(p.limiter.rfind("invalid", 0), 0u) << p.limiter;
    p = evaluate(h100_sxm(), k4096, tile(128, 128, 24, 4, 2, 1));  // BK not a multiple of 16
    EXPECT_FALSE(p.fits);
    p = evaluate(h100_sxm(), Problem{0, 4096, 4096}, tile(128, 128, 64, 4, 2, 1));
    EXPECT_FALSE(p.fits);
    p = evaluate(h100_sxm(), k4096, tile(128, 128, 64, -1, 2, 1));  // unresolved stages
    EXPECT_FALSE(p.fits);
}

TEST(Planner, StepWithoutSharedMemoryTilesIsOutsideTheModel) {
    // Step 01 reports {BM 8, BN 32, BK 0, stages 0, warpgroups 0, cluster 1, 256 threads}.
    struct FakeTileConfig {
        int bm, bn, bk, stages, consumer_warpgroups, cluster, threads;
    };
    const Candidate c = to_candidate(FakeTileConfig{8, 32, 0, 0, 0, 1, 256});
    EXPECT_EQ(c.threads, 256);
    const Plan p = evaluate(h100_sxm(), k4096, c);
    EXPECT_TRUE(p.fits);
    EXPECT_FALSE(p.modeled);
    EXPECT_EQ(p.acc_regs_per_thread, -1);
    // 4096 / 8 x 4096 / 32 = 512 x 128 = 65536 tiles; 2048 / 256 = 8 CTAs per SM.
    EXPECT_EQ(p.tiles, 65536);
    EXPECT_EQ(p.ctas_per_sm, 8);
    EXPECT_NE(one_line(p).find("outside the model"), std::string::npos) << one_line(p);
}

TEST(Planner, RankPutsTheBestBoundFirstAndBreaksTiesBySharedMemory) {
    const std::vector<Plan> plans = rank(h100_sxm(), k4096, default_candidates(h100_sxm()));
    ASSERT_FALSE(plans.empty());
    EXPECT_TRUE(plans.front().fits);
    for (size_t i = 1; i < plans.size(); ++i)
        EXPECT_GE(plans[i - 1].upper_bound_tflops, plans[i].upper_bound_tflops - 1e-9) << i;

    // With a short latency, 3 and 4 stages of the same tile are both math-bound: equal
    // bounds, and the smaller footprint (3 stages) comes first.
    Machine m = h100_sxm();
    m.mem_latency_ns = 50;
    const std::vector<Plan> tied = rank(m, k4096, {tile(128, 256, 64, 4, 2, 2), tile(128, 256, 64, 3, 2, 2)});
    ASSERT_EQ(tied.size(), 2u);
    EXPECT_DOUBLE_EQ(tied[0].upper_bound_tflops, tied[1].upper_bound_tflops);
    EXPECT_EQ(tied[0].candidate.stages, 3);
}

TEST(Planner, OneLineIsShortAndSaysTheEssentials) {
    const Plan p = evaluate(h100_sxm(), k4096, tile(128, 256, 64, 4, 2, 1));
    const std::string line = one_line(p);
    EXPECT_LT(line.size(), 130u) << line;
    for (const char* part : {"128x256x64", "x4 stages", "128 acc regs/thr", "512 tiles", "3.88 waves", "(97%)",
                             "TFLOP/s"})
        EXPECT_NE(line.find(part), std::string::npos) << part << " missing from: " << line;
    EXPECT_NE(explain(p).find("192.0 KiB"), std::string::npos) << explain(p);
}

// ---- ladder-plan's command line -------------------------------------------------------------

TEST(Planner, CliAcceptsGoodArguments) {
    CliOptions o;
    ASSERT_TRUE(parses({"--m", "4096", "--n", "2048", "--k", "512", "--machine", "h200", "--top", "3",
                        "--candidate", "128x256x64:4:2:2", "--l2-tbps", "8.5", "--latency-ns", "600"},
                       &o));
    EXPECT_EQ(o.problem.m, 4096);
    EXPECT_EQ(o.problem.n, 2048);
    EXPECT_EQ(o.problem.k, 512);
    EXPECT_EQ(o.machine, "h200");
    EXPECT_EQ(o.top, 3);
    ASSERT_TRUE(o.has_candidate);
    EXPECT_EQ(label(o.candidate), "128x256x64:4:2:2");
    EXPECT_DOUBLE_EQ(o.l2_tbps, 8.5);
    EXPECT_DOUBLE_EQ(o.latency_ns, 600.0);

    ASSERT_TRUE(parses({}, &o));  // defaults: 4096^3 on the H100
    EXPECT_EQ(o.problem.m, 4096);
    EXPECT_EQ(o.machine, "h100");
    EXPECT_FALSE(o.has_candidate);
    ASSERT_TRUE(parses({"--help"}, &o));
    EXPECT_TRUE(o.help);
}

TEST(Planner, CliCandidateLeavesOutTrailingParts) {
    Candidate c;
    std::string error;
    ASSERT_TRUE(parse_candidate("128x256x64", &c, &error)) << error;
    EXPECT_EQ(c.stages, -1);  // "the most that fit", resolved once the machine is known
    EXPECT_EQ(c.consumer_warpgroups, 2);
    EXPECT_EQ(c.cluster, 1);
    EXPECT_EQ(max_stages_that_fit(h100_sxm(), c), 4);
    ASSERT_TRUE(parse_candidate("64x128x64:6", &c, &error)) << error;
    EXPECT_EQ(c.stages, 6);
    EXPECT_EQ(c.consumer_warpgroups, 1);
    ASSERT_TRUE(parse_candidate("8x32x8:0:0:1", &c, &error)) << error;  // like step 01
    EXPECT_EQ(c.stages, 0);
    EXPECT_EQ(c.consumer_warpgroups, 0);
}

TEST(Planner, CliRejectsBadValues) {
    const std::vector<std::vector<std::string>> bad = {
        {"--m", "abc"},        {"--m", "0"},          {"--m", "-5"},          {"--n", "12x"},
        {"--k", ""},           {"--k", "1e3"},        {"--m", "99999999999"}, {"--top", "0"},
        {"--machine", "a100"}, {"--m"},               {"--frobnicate", "1"},  {"4096"},
        {"--candidate", "128x256"},                   {"--candidate", "128x256x64:4:2:0"},
        {"--candidate", "128x256x64:four"},           {"--candidate", "0x256x64"},
        {"--candidate", "128x256x64:4:2:1:9"},        {"--candidate", "128x256x64:"},
        {"--l2-tbps", "-1"},   {"--latency-ns", "nan"}, {"--l2-tbps", "inf"},
    };
    for (const auto& args : bad) {
        CliOptions o;
        std::string error;
        EXPECT_FALSE(parse_cli(args, &o, &error)) << "accepted: " << (args.empty() ? "" : args[0]) << " "
                                                   << (args.size() > 1 ? args[1] : "");
        EXPECT_FALSE(error.empty());
    }
    std::string error;
    CliOptions o;
    EXPECT_FALSE(parse_cli({"--m", "zero"}, &o, &error));
    EXPECT_NE(error.find("--m"), std::string::npos) << "the message names the flag: " << error;
    EXPECT_NE(error.find("zero"), std::string::npos) << "and the value: " << error;
}

// The problems the step executables take (arg_parse.h), no more: a prediction for a problem
// every step refuses is no answer.
TEST(Planner, CliTakesTheProblemsEveryStepAccepts) {
    CliOptions o;
    EXPECT_TRUE(parses({"--m", "2147418112", "--n", "1", "--k", "8"}, &o));
    EXPECT_EQ(o.problem.m, 2147418112);
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"--m", "2147418113"}, {"--n", "2147483647"}, {"--k", "7"}, {"--k", "12"}, {"--k", "2147483647"}}) {
        std::string error;
        EXPECT_FALSE(parse_cli(args, &o, &error)) << "accepted: " << args[0] << " " << args[1];
        EXPECT_NE(error.find(args[0] + " must be"), std::string::npos) << error;
    }
}

TEST(Planner, CliRejectsModelNumbersOutsideAnyGpu) {
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"--l2-tbps", "1e-300"}, {"--l2-tbps", "1e300"},
                                               {"--latency-ns", "1e300"}, {"--latency-ns", "1e-9"}}) {
        CliOptions o;
        std::string error;
        EXPECT_FALSE(parse_cli(args, &o, &error)) << "accepted: " << args[0] << " " << args[1];
        EXPECT_NE(error.find(args[0] + " must be a number from"), std::string::npos) << error;
    }
}

TEST(Planner, CliRejectsACandidateTheModelCallsInvalid) {
    // Parses as three numbers, but 100 rows are not whole 64-row slabs of two warpgroups,
    // and wgmma needs BK a multiple of 16.
    for (const char* text : {"100x256x64:4:2:1", "128x256x40:4:2:1", "128x512x64:4:2:1", "128x256x64:4:2:32"}) {
        CliOptions o;
        std::string error;
        EXPECT_FALSE(parse_cli({"--candidate", text}, &o, &error)) << "accepted: " << text;
        EXPECT_NE(error.find(std::string("--candidate '") + text + "': "), std::string::npos) << error;
    }
    CliOptions o;
    std::string error;
    EXPECT_TRUE(parse_cli({"--candidate", "128x256x64"}, &o, &error)) << error;  // stages left out
}

TEST(Planner, ExtremeMachineNumbersKeepTheStageCountInRange) {
    Machine m = h100_sxm();
    m.l2_tbps = 1e-300;  // what a caller of evaluate() may still pass
    const Plan p = evaluate(m, Problem{4096, 4096, 4096}, tile(128, 256, 64, 4, 2, 1));
    EXPECT_GT(p.stages_needed, 0);
}
