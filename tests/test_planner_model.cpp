// CPU tests of the planner's time model (planner_model.cpp): the terms of predict() against
// arithmetic done by hand, the machine file, one planner for every consumer, and step 07's
// per-shape choice. No test asserts on a measured time.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>

#include <unistd.h>  // getpid

#include "csv.h"
#include "planner.h"
#include "tile_choice.h"
#include "registry.h"

#ifndef LADDER_SOURCE_DIR
#error "LADDER_SOURCE_DIR must name the repository root"
#endif

using namespace ladder::plan;

namespace {

const Problem k4096{4096, 4096, 4096};
const std::string kH100File = std::string(LADDER_SOURCE_DIR) + "/results/h100/machine.json";
// The H100's file as it was written by hand before ladder-probe ran there: the planner's
// built-in H100 constants, with the power model's fields (a fixed text the tests below edit).
const std::string kH100HandFile = std::string(LADDER_SOURCE_DIR) + "/tests/fixtures/machine_h100_hand.json";
const std::string kH200File = std::string(LADDER_SOURCE_DIR) + "/results/h200/machine.json";

Plan step_plan(int step, const std::string& variant = "", Problem problem = k4096) {
    return plan_step(h100_sxm(), step, variant, problem);
}

// A file in the temporary folder, named for this process: ctest -j, or two builds testing at
// once, never write each other's.
std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = testing::TempDir() + "ladder_" + std::to_string(getpid()) + "_" + name;
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST(PlannerModel, StepCandidatesAreTheTilesTheStepsAreBuiltWith) {
    for (int n = 2; n <= 7; ++n) {
        const ladder::Step* step = ladder::find_step(n);
        ASSERT_NE(step, nullptr);
        if (!ladder::step_built(*step)) continue;
        const ladder::TileConfig t = step->tile_config();
        Candidate c;
        ASSERT_TRUE(step_candidate(n, "", &c)) << n;
        EXPECT_EQ(c.bm, t.bm) << "step " << n;
        EXPECT_EQ(c.bn, t.bn) << "step " << n;
        EXPECT_EQ(c.bk, t.bk) << "step " << n;
        EXPECT_EQ(c.stages, t.stages) << "step " << n;
        EXPECT_EQ(c.consumer_warpgroups, t.consumer_warpgroups) << "step " << n;
        EXPECT_EQ(c.cluster, t.cluster) << "step " << n;
        EXPECT_EQ(c.threads, t.threads) << "step " << n;
    }
    Candidate c;
    EXPECT_FALSE(step_candidate(1, "", &c));  // the naive step has no k-block loop to model
    EXPECT_FALSE(step_plan(1).fits);
}

TEST(PlannerModel, KBlockIsTheSlowestOfIssueFeedAndRing) {
    for (int n = 2; n <= 7; ++n) {
        const Prediction r = step_plan(n).prediction;
        ASSERT_TRUE(r.valid) << n;
        EXPECT_DOUBLE_EQ(r.kblock_ns, std::max({r.issue_ns, r.feed_ns, r.ring_ns})) << n;
    }
}

TEST(PlannerModel, FeedIsTheStageAtTheSmsShareOfL2Bandwidth) {
    // 48 KiB per k-block over 9.0 TB/s / 132 SMs = 68.18 bytes/ns: 720.9 ns.
    const Prediction r = step_plan(6).prediction;
    EXPECT_EQ(r.active_sms, 132);
    EXPECT_NEAR(r.feed_ns, 49152.0 / (9000.0 / 132), 1e-9);
    EXPECT_NEAR(r.feed_ns, 720.9, 0.05);
    EXPECT_EQ(r.limiter, "L2->SM bandwidth");
}

TEST(PlannerModel, FeedIsChargedAtTheRateMeasuredBesideTheTensorCores) {
    // A GEMM's boxes arrive while its wgmma run: where the machine has that rate, the feed
    // uses it; else the shared-read rate; else the own-lines rate (the H100 file's case above).
    Machine m = h100_sxm();
    m.l2_tma_shared_tbps = 18.0;
    EXPECT_NEAR(plan_step(m, 6, "", k4096).prediction.feed_ns, 49152.0 / (18000.0 / 132), 1e-9);
    m.l2_tma_shared_loaded_tbps = 12.0;
    EXPECT_NEAR(plan_step(m, 6, "", k4096).prediction.feed_ns, 49152.0 / (12000.0 / 132), 1e-9);
    // On the H200's constants the ping-pong stage (one consumer's 64 rows of A with the whole
    // B slab: 40 KiB for half the math) is feed-bound at 4096^3, the cooperative one is not.
    std::string error;
    Machine measured = h200();
    ASSERT_TRUE(read_machine_file(kH200File, &measured, &error)) << error;
    ASSERT_GT(measured.l2_tma_shared_loaded_tbps, 0);
    EXPECT_EQ(plan_step(measured, 6, "pingpong", k4096).prediction.limiter, "L2->SM bandwidth");
    EXPECT_EQ(plan_step(measured, 6, "", k4096).prediction.limiter, "wgmma issue");
}

// Rows K x 2 bytes apart straddle 128-byte lines where 2K is not a multiple of 128; step 07's
// every-shape maps then ask for 128-byte lines, and each straddling row costs two.
TEST(PlannerModel, RowsThatStraddleLinesCostTwoLineRequests) {
    EXPECT_DOUBLE_EQ(line_requests_per_row(4096), 1.0);
    EXPECT_DOUBLE_EQ(line_requests_per_row(2056), 1.875);  // 4112 bytes: every 8th row on a line
    EXPECT_DOUBLE_EQ(line_requests_per_row(2080), 1.5);    // 4160 bytes: every 2nd
    EXPECT_DOUBLE_EQ(line_requests_per_row(2064), 1.75);   // 4128 bytes: every 4th
    EXPECT_DOUBLE_EQ(line_requests_per_row(2048 + 64), 1.0);  // 4224 = 33 x 128
    EXPECT_DOUBLE_EQ(line_requests_per_row(2048 + 8), 1.875);
    const Machine m = h100_sxm();
    // Step 07's default at K = 2056 asks for lines, the lesson (256-byte requests) does not.
    const Plan odd = plan_step(m, 7, "cluster1", Problem{1000, 1992, 2056});
    const Plan even = plan_step(m, 7, "cluster1", Problem{1000, 1992, 2048});
    ASSERT_TRUE(odd.fits && even.fits);
    EXPECT_TRUE(odd.candidate.line_requests);
    EXPECT_FALSE(even.candidate.line_requests);
    EXPECT_FALSE(plan_step(m, 7, "lesson", Problem{1000, 1992, 2056}).candidate.line_requests);
    // Without clusters every byte of the stage is requested: 1.875 x the feed of aligned rows.
    ASSERT_EQ(odd.candidate.cluster, 1);
    ASSERT_EQ(odd.candidate.bm, even.candidate.bm);
    ASSERT_EQ(odd.candidate.bn, even.candidate.bn);
    EXPECT_NEAR(odd.prediction.feed_ns, 1.875 * even.prediction.feed_ns, 1e-9);
    // In a cluster of 2 an SM requests its A box and half the B box; multicast brings the
    // other half, one line per row: it pays 1.875 x (A + B/2), not 1.875 x (A + B).
    const Plan clustered = plan_step(m, 7, "", Problem{1000, 1992, 2056});
    ASSERT_EQ(clustered.candidate.cluster, 2);
    Candidate alone = clustered.candidate;
    alone.cluster = 1;
    const Prediction solo = predict(m, clustered.problem, alone, clustered.ctas_per_sm, 1980);
    const Prediction pair = predict(m, clustered.problem, clustered.candidate, clustered.ctas_per_sm, 1980);
    const double a = alone.bm, b = alone.bn;
    EXPECT_NEAR(pair.feed_ns / solo.feed_ns, (a + b / 2) / (a + b), 1e-9);
}

TEST(PlannerModel, MmaSyncIssueIsMathPlusTheExposedPartOfLdmatrix) {
    // Step 04: 2x128x256x64 FLOP / 2450 per clock = 1712.0 cycles; ldmatrix: 8 warps (2x4 of
    // 64x64) each read (64 + 64) rows x 128 bytes = 131072 bytes / 128 per clock = 1024 cycles.
    // The 8 warps are 2 per scheduler, so half of the ldmatrix time stays exposed: + 512.
    // (The model charged all 1024 cycles before; on the H200, with the mma.sync rate measured
    // there, that predicted steps 02-04 18-31% slower than measured at every large shape.)
    const Prediction r = step_plan(4).prediction;
    EXPECT_NEAR(r.issue_ns * 1.98, 4194304.0 / 2450 + 1024 / 2.0, 1e-6);
    EXPECT_EQ(r.limiter, "mma.sync + ldmatrix issue");
    // Step 02 also moves its 48 KiB of cp.async through the same pipe: + 384 / 2 cycles.
    EXPECT_NEAR(step_plan(2).prediction.issue_ns * 1.98, 4194304.0 / 2450 + (1024 + 384) / 2.0, 1e-6);
}

TEST(PlannerModel, VariantsChargeWhatTheyIssuePerKBlock) {
    const Machine m = h100_sxm();
    // 03 bulk1d: the unswizzled tile makes every ldmatrix an 8-way bank conflict, 8 x 1024 =
    // 8192 cycles of the shared-memory pipe, more than math + half of it (1712 + 4096): the
    // pipe sets the issue time. Its 384 row copies (not 2 boxes) pass the TMA unit one by
    // one before the stage's bytes flow: 384 x tma_request_ns in the fill, on every k-block
    // of a single stage. So seldom loading, the SM gets its bytes at one SM's own rate.
    const Prediction tiled = step_plan(3).prediction, rows = step_plan(3, "bulk1d").prediction;
    EXPECT_NEAR(rows.issue_ns * 1.98, 8 * 1024.0, 1e-6);
    EXPECT_NEAR(rows.fill_ns, m.tma_latency_ns + 384 * m.tma_request_ns + 49152 / m.tma_one_sm_gbps, 1e-6);
    EXPECT_GT(rows.fill_ns - tiled.fill_ns, 300 * m.tma_request_ns);
    EXPECT_NEAR(rows.kblock_ns, rows.fill_ns + rows.issue_ns + m.mbarrier_round_trip_ns, 1e-6);
    EXPECT_NEAR(step_plan(3, "barrier").prediction.total_us, tiled.total_us, 1e-9);  // same k-block
    // 02 pipeline: 48 KiB / 16 bytes / 32 lanes / 8 warps = 12 memcpy_async per warp and
    // k-block, 2 warps per scheduler: 24 x memcpy_async_issue_clk more issue cycles.
    EXPECT_NEAR((step_plan(2, "pipeline").prediction.issue_ns - step_plan(2).prediction.issue_ns) * 1.98,
                24 * m.memcpy_async_issue_clk, 1e-6);
    // 07 cg: the lesson kernel with a GPU-scope fence per k-block (it always launches
    // clusters of 2), at 4096^3 and on a skinny problem alike.
    EXPECT_NEAR(step_plan(7, "cg").prediction.issue_ns - step_plan(7, "lesson").prediction.issue_ns,
                m.gpu_fence_ns, 1e-9);
    EXPECT_EQ(step_plan(7, "cg").prediction.limiter, "wgmma issue");
    const Problem skinny{64, 4096, 4096};
    EXPECT_EQ(step_plan(7, "cg", skinny).candidate.cluster, 2);
    EXPECT_EQ(step_plan(7, "cg", skinny).candidate.bm, 128);
}

TEST(PlannerModel, Step07LaunchesAsItsKernelDecides) {
    // 64x4096x4096: 64 tiles of 64x64 on 132 SMs, 64 k-blocks: no clusters for a grid
    // smaller than the GPU. On the H200 the 64 x 64 k-blocks are shared by S CTAs (stream-K).
    // At the cost run + 12 + 4 per partial the owner adds, S = 128: 32 + 12 + 4 = 48, against
    // 64 not shared; S = 132 (32 + 12 + 3 x 4 = 56) would be dearer anyway, and a problem one
    // tile high shares by at most 2 CTAs per tile (stream_k::kOneTileRowHolders). On the H100
    // the 64 tiles already ask for more than its DRAM gives: not shared (feed_bound_wave).
    const Problem skinny{64, 4096, 4096};
    const Plan p = plan_step(h200(), 7, "cluster2", skinny);
    EXPECT_EQ(p.candidate.cluster, 1);
    EXPECT_EQ(p.candidate.bn, 64);
    EXPECT_EQ(p.candidate.stream_k, 128);
    EXPECT_EQ(step_plan(7, "cluster2", skinny).candidate.stream_k, 0);
    EXPECT_EQ(step_plan(7, "lesson", skinny).candidate.stream_k, 0);  // the lesson never shares
    EXPECT_EQ(step_plan(7, "lesson", skinny).candidate.cluster, 2);   // and always clusters
    // 4096^3: 512 tiles of 128x256 are 3.9 waves of 132 SMs, too few for a cluster launch
    // (tile_choice::kClusterWaves); 116 tiles left over, shared by all 132 CTAs a run of 57
    // k-blocks + 12 + 2 x 4 = 77 is longer than the 64 of a tile: no sharing.
    EXPECT_EQ(step_plan(7, "cluster2").candidate.stream_k, 0);
    EXPECT_EQ(step_plan(7, "cluster2").candidate.cluster, 1);
    // 8192^3: 15.5 waves, clusters of 2.
    EXPECT_EQ(step_plan(7, "cluster2", Problem{8192, 8192, 8192}).candidate.cluster, 2);
    // 1000x1992x2056: 128 tiles of 128x128 (07_clusters_multicast/every_shape/tile_choice.h), one
    // wave: nothing left over.
    EXPECT_EQ(step_plan(7, "", Problem{1000, 1992, 2056}).candidate.stream_k, 0);
    // Forced to 128x256: 64 tiles, 33 k-blocks: S = 128 costs 17 + 12 + 4 = 33, not shorter.
    EXPECT_EQ(step_plan(7, "tile128x256", Problem{1000, 1992, 2056}).candidate.stream_k, 0);
}

TEST(TileChoice, ClustersAboveSixWavesOrWhereRowsAreNotAligned) {
    using ladder::tile_choice::launches_clusters;
    EXPECT_TRUE(launches_clusters(2048, 132, 64, 8192, 2));  // 8192^3 in 128x256: 15.5 waves
    EXPECT_TRUE(launches_clusters(1152, 132, 48, 6144, 2));  // 6144^3: 8.7 waves
    EXPECT_FALSE(launches_clusters(512, 132, 32, 4096, 2));  // 4096^3: 3.9 waves, a plain launch
    EXPECT_FALSE(launches_clusters(2048, 132, 64, 8192, 1)); // cluster size 1
    EXPECT_FALSE(launches_clusters(128, 132, 8, 2048, 2));   // 1000x1992x2048: one wave, aligned
    EXPECT_TRUE(launches_clusters(128, 132, 8, 2056, 2));    // 1000x1992x2056: rows 4112 bytes apart
    EXPECT_FALSE(launches_clusters(100, 132, 10, 1200, 2));  // 1200^3: rows on 32-byte sectors, one wave
    EXPECT_FALSE(launches_clusters(18, 132, 3, 16400, 2));   // 384x768x16400 split-K: the same
    EXPECT_TRUE(launches_clusters(640, 132, 20, 1200, 2));   // 2500x7000x1200: 4.8 waves
    EXPECT_TRUE(launches_clusters(100, 132, 10, 1208, 2));   // 1208: rows 16 bytes off a sector
    EXPECT_FALSE(launches_clusters(64, 132, 1, 4104, 2));    // one row of tiles: no pair to share B
    EXPECT_FALSE(launches_clusters(896, 132, 1, 4096, 2));   // 64x28672x4096 in 64x128: one row either
    EXPECT_FALSE(launches_clusters(64, 132, 8, 520, 2));     // 512x512x520: 9 k-blocks, too short
    // Past one wave, rows off a sector take clusters at a short K too: 3028x2752x328 in
    // 128x256 (24 x 11 tiles, 6 k-blocks); not where the rows sit on sectors (K = 320).
    EXPECT_TRUE(launches_clusters(264, 132, 24, 328, 2));
    EXPECT_FALSE(launches_clusters(264, 132, 24, 320, 2));
    EXPECT_FALSE(launches_clusters(264, 132, 24, 184, 2));   // 3 k-blocks: under kClusterMinKBlocks
    // The planner predicts the launch the kernel makes.
    EXPECT_EQ(step_plan(7, "", Problem{1000, 1992, 2056}).candidate.cluster, 2);
    EXPECT_EQ(step_plan(7, "", Problem{1000, 1992, 2048}).candidate.cluster, 1);
}

TEST(TileChoice, AShortKKeepsTheTmaStoreAndOddRowsTakeClusters) {
    using ladder::tile_choice::choose;
    // Fewer than 16 k-blocks with a TMA store as given: no C^T for fuller waves alone.
    const auto given = choose(4775, 896, 256, 132, 2);
    EXPECT_FALSE(given.transposed);
    EXPECT_EQ(given.shape.columns, 128);
    EXPECT_FALSE(choose(4864, 2240, 960, 132, 2).transposed);
    // ... unless C^T pads a fifth less: 128x224 pads 4253x512's N to 672 columns.
    EXPECT_TRUE(choose(4253, 512, 904, 132, 2).transposed);
    // From 16 k-blocks on, C^T where its waves are fuller, as before (3072x1024x2048).
    EXPECT_TRUE(choose(3072, 1024, 2048, 132, 2).transposed);
    // A short odd K past one wave: 128x256 in clusters, not 128x128 in ping-pong.
    const auto odd = choose(1800, 7872, 264, 132, 2);
    EXPECT_FALSE(odd.pingpong);
    EXPECT_EQ(odd.shape.columns, 256);
    EXPECT_EQ(odd.slots, 66);
    // ... and never 192x192 at 8 k-blocks or fewer (1087x6734x264: 128x192).
    EXPECT_EQ(choose(1087, 6734, 264, 132, 2).shape.rows, 128);
    // The same K on sectors keeps ping-pong (K = 256 at 1800x7872).
    EXPECT_TRUE(choose(1800, 7872, 256, 132, 2).pingpong);
}

TEST(StreamK, AProblemOneTileHighSharesByTwoHoldersAtMost) {
    // 32 tiles of 64 k-blocks on 132 CTAs: the k-block count alone picks 128 (4 holders a
    // tile, 16 + 12 + 3 x 4 = 40 k-blocks); one tile high, B's DRAM reads bound the wave and
    // 2 holders a tile (64 CTAs) ran fastest (NOTES.md section 5).
    EXPECT_EQ(ladder::stream_k::sharing_clusters(32, 64, 132), 128);
    EXPECT_EQ(ladder::stream_k::sharing_clusters(32, 64, 132, true), 64);
    // A wave whose 2 holders would not pay stays unshared: 32 tiles of 8 k-blocks.
    EXPECT_EQ(ladder::stream_k::sharing_clusters(32, 8, 132, true), 0);
    // More than one tile row: the cap does not apply (58 of 66 clusters, 64 k-blocks: none).
    EXPECT_EQ(ladder::stream_k::sharing_clusters(58, 64, 66), 0);
}

TEST(StreamK, ANarrowWaveIsOnlySplitAndNotWhereTheDramCannotFeedIt) {
    using ladder::stream_k::feed_bound_wave;
    using ladder::stream_k::narrow_wave;
    using ladder::stream_k::sharing_clusters;
    using ladder::tile_choice::choose;
    // One wave of 64-row tiles with K of at most 64 k-blocks.
    EXPECT_TRUE(narrow_wave(64, 132, 64, 64));
    EXPECT_FALSE(narrow_wave(64, 132, 64, 128));  // 128-row tiles: wgmma bound
    EXPECT_FALSE(narrow_wave(64, 132, 65, 64));   // a longer K
    EXPECT_FALSE(narrow_wave(133, 132, 64, 64));  // more than one wave
    // One tile high or wide, 64 tiles ask 64 x 60 GB/s: more than the H100's 3352, less than
    // the H200's 4800. Two rows of tiles read the large operand twice: not feed-bound.
    EXPECT_TRUE(feed_bound_wave(1, 64, 3352));
    EXPECT_TRUE(feed_bound_wave(64, 1, 3352));
    EXPECT_FALSE(feed_bound_wave(1, 64, 4800));
    EXPECT_FALSE(feed_bound_wave(1, 32, 3352));
    EXPECT_FALSE(feed_bound_wave(2, 32, 3352));
    // 72 tiles of 64 k-blocks: the count picks all 132 (runs straddle tiles); narrow, nothing
    // (144 = 2L does not fit). 64 tiles: split in two, unless feed-bound as well.
    EXPECT_EQ(sharing_clusters(72, 64, 132), 132);
    EXPECT_EQ(sharing_clusters(72, 64, 132, false, false, true), 0);
    EXPECT_EQ(sharing_clusters(64, 64, 132, false, false, true, false), 128);
    EXPECT_EQ(sharing_clusters(64, 64, 132, true, false, true, true), 0);
    // The kernel's choices on the H100 (the default) and the H200.
    EXPECT_EQ(choose(4096, 32, 4096, 132, 2).sharing_clusters, 0);
    EXPECT_EQ(choose(4096, 32, 4096, 132, 2, true, 4800).sharing_clusters, 128);
    EXPECT_EQ(choose(64, 4096, 4096, 132, 2, true, 4800).sharing_clusters, 128);
    EXPECT_EQ(choose(160, 3072, 4096, 132, 2).sharing_clusters, 0);    // 72 tiles of 64x128
    EXPECT_EQ(choose(320, 2048, 4096, 132, 2).sharing_clusters, 0);    // 80 tiles of 64x128
    EXPECT_EQ(choose(128, 2048, 4096, 132, 2).sharing_clusters, 128);  // two rows: split in two
    EXPECT_EQ(choose(768, 320, 4096, 132, 2).sharing_clusters, 120);   // 60 tiles, split in two
    EXPECT_EQ(choose(8192, 192, 4096, 132, 2).sharing_clusters, 128);  // 64 tiles of 128x192
    EXPECT_EQ(choose(64, 4096, 16384, 132, 2).sharing_clusters, 128);  // K = 16384
    // The planner follows its machine: the H100 keeps 64x4096x4096 whole.
    EXPECT_EQ(step_plan(7, "", Problem{64, 4096, 4096}).candidate.stream_k, 0);
}

TEST(PlannerModel, ASharedTilePaysForItsPartials) {
    // 64x4096x4096 (M <= 64: the 64x64 tile, 07_clusters_multicast/every_shape/tile_choice.h)
    // shared by 128 CTAs: each of the 64 tiles in 2 runs of 32 k-blocks. A holder writes a
    // 64x64 fp32 partial (16 KiB) at its share of the 16-byte store bandwidth; the owner reads
    // the other one at one SM's L2 rate, then stores C as usual. On the H200 as measured (its
    // machine file) sharing is predicted faster, as it ran: 16.4 us shared, 18.9 us
    // data-parallel (07's NOTES.md, section 5).
    Machine m = h200();
    std::string error;
    ASSERT_TRUE(read_machine_file(kH200File, &m, &error)) << error;
    const Plan shared = plan_step(m, 7, "", Problem{64, 4096, 4096});
    Candidate unshared = shared.candidate;
    unshared.stream_k = 0;
    const Plan whole = evaluate(m, shared.problem, unshared);
    EXPECT_EQ(shared.candidate.stream_k, 128);
    const double partial = 64.0 * 64 * 4;
    EXPECT_NEAR(shared.prediction.epilogue_ns - whole.prediction.epilogue_ns,
                partial / (m.store16_tbps * 1e3 / m.sm_count) + 1 * partial / m.tma_one_sm_gbps, 1e-6);
    EXPECT_NEAR(shared.prediction.tile_ns, 32 * shared.prediction.kblock_ns + shared.prediction.epilogue_ns, 1e-6);
    EXPECT_LT(shared.prediction.total_us, whole.prediction.total_us);
    // With whole waves before it, only the last wave is shared: 8192^3 in clusters of 2 is
    // 1024 tiles on 66 clusters, 15 whole tiles each, then 34 x 128 k-blocks shared by all 66
    // in runs of 66 (66 + 19 out of step + 12 + 2 x 4 = 105 < 128).
    const Prediction big = step_plan(7, "", Problem{8192, 8192, 8192}).prediction;
    EXPECT_EQ(step_plan(7, "", Problem{8192, 8192, 8192}).candidate.stream_k, 66);
    EXPECT_EQ(big.rounds, 16);
    EXPECT_NEAR(big.tile_ns, 66 * big.kblock_ns + big.epilogue_ns, 1e-6);
    // 8192x4096x14336: 50 tiles of 224 k-blocks left over, whose operands (110 MB) exceed the
    // L2: runs of 170 cost 170 + 51 + 20 = 241 > 224, and the last wave stays whole.
    EXPECT_EQ(step_plan(7, "", Problem{8192, 4096, 14336}).candidate.stream_k, 0);
}

TEST(StreamK, RunsOutOfStepPayWhereTheLastWaveExceedsTheL2) {
    using namespace ladder::stream_k;
    // 8192x4096x14336 in clusters of 2 (256 x 256 per cluster tile): 32 x 16 cluster tiles,
    // bands of 8 rows; the last 50 cover 8 rows and columns 9..15 of the last band.
    EXPECT_EQ(last_wave_operand_bytes(512, 50, 32, 16, 8, 256, 256, 14336), (8 + 7) * 256LL * 14336 * 2);
    EXPECT_TRUE(last_wave_exceeds_l2(512, 66, 32, 16, 8, 256, 256, 14336));
    // 6144^3: the last 48 of 24 x 24 cover 8 rows and 6 columns, 44 MB: within the L2.
    EXPECT_EQ(last_wave_operand_bytes(576, 48, 24, 24, 8, 256, 256, 6144), (8 + 6) * 256LL * 6144 * 2);
    EXPECT_FALSE(last_wave_exceeds_l2(576, 66, 24, 24, 8, 256, 256, 6144));
    // Across bands: tiles 10..39 of a 5 x 8 grid in bands of 2 rows cover all 5 rows and 8
    // columns (the first band's columns 5..7 lie inside the later bands' 0..7).
    EXPECT_EQ(last_wave_operand_bytes(40, 30, 5, 8, 2, 1, 1, 1), (5 + 8) * 2);
    // Sizes at the contract's limits saturate instead of overflowing.
    EXPECT_EQ(last_wave_operand_bytes(100, 50, 10, 10, 8, 1LL << 31, 1LL << 31, 1LL << 31), LLONG_MAX);
    // Out of step beyond the L2: 50 x 224 k-blocks on 66 clusters stay whole; within it, or
    // for runs of half a tile (8192^3: 34 x 128), they are shared.
    EXPECT_EQ(sharing_clusters(50, 224, 66, false, true), 0);
    EXPECT_EQ(sharing_clusters(50, 224, 66, false, false), 66);
    EXPECT_EQ(sharing_clusters(34, 128, 66, false, true), 66);
    // Split-K keeps its slices in step: 16 tiles of 256 k-blocks on 132 CTAs, 8 slices each.
    EXPECT_EQ(sharing_clusters(16, 256, 132, false, true), sharing_clusters(16, 256, 132, false, false));
}

TEST(TileChoice, FewTilesAndALongKTakeTheWidestTileThatMakesSixteen) {
    using ladder::tile_choice::choose;
    const auto tile = [](long long m, long long n, long long k) {
        const auto e = choose(m, n, k, 132, 2);
        return std::to_string(e.shape.rows) + "x" + std::to_string(e.shape.columns);
    };
    EXPECT_EQ(tile(1024, 1024, 16384), "128x256");  // 32 tiles
    EXPECT_EQ(tile(384, 768, 16384), "128x128");    // 18 tiles (128x256: 9)
    EXPECT_EQ(tile(512, 512, 16384), "128x128");    // 16 tiles
    EXPECT_EQ(tile(256, 256, 16384), "64x64");      // 128x128 would make 4: the small tiles stay
    EXPECT_EQ(tile(1024, 1024, 8192), "64x128");    // K too short for the rule
    EXPECT_EQ(tile(128, 8192, 16384), "64x128");    // one row of 128-row tiles: the rules below
}

TEST(TileChoice, AnOddKInClustersReadsTheFewestRowsPerSm) {
    using ladder::tile_choice::choose;
    const auto tile = [](long long m, long long n, long long k) {
        const auto e = choose(m, n, k, 132, 2);
        return std::to_string(e.shape.rows) + "x" + std::to_string(e.shape.columns);
    };
    // Clusters of 2 (K % 64 != 0): 4 waves of 128 + 256 / 2 rows against 5 of 128 + 192 / 2.
    EXPECT_EQ(tile(5000, 3000, 1000), "128x256");
    EXPECT_EQ(tile(4950, 2048, 5256), "128x256");  // the fill rules gave 128x128
    EXPECT_EQ(tile(3072, 3072, 1000), "192x192");  // 2 waves of 192 + 96 rows against 3 of 128 + 96
    EXPECT_EQ(tile(2000, 3000, 1496), "128x192");  // 192x192: 2 waves of 288 rows against 2 of 224
    EXPECT_EQ(tile(2048, 2048, 2056), "128x256");  // 192x192 would make one wave: never
    EXPECT_EQ(tile(2500, 5000, 1232), "192x192");  // 3 waves, 20 k-blocks
    EXPECT_EQ(tile(7617, 2138, 2456), "128x224");  // 4 waves of 192x192 but 39 k-blocks
    EXPECT_EQ(tile(5714, 8068, 1000), "128x256");  // 192x192 would make 10 waves
    // 192x192 never shares a tile: no stream-K, no split-K.
    EXPECT_EQ(choose(3072, 3072, 1000, 132, 2).splits, 1);
    EXPECT_EQ(choose(3072, 3072, 1000, 132, 2).sharing_clusters, 0);
    EXPECT_EQ(ladder::tile_choice::estimate(128, 128, 65536, 132, 2, {192, 192}).splits, 1);
    // The shapes of test_gpu.cpp's GpuRuleShapes, which check the 192x192 tile as the rule
    // launches it: in clusters of 2 and of 4, with edge tiles, and (2100x3400) in clusters of
    // 4 with a cluster a CTA row below C.
    for (const int cluster : {2, 4})
        for (const auto& [m, n, k] : {std::tuple{3000LL, 3000LL, 1032LL}, std::tuple{2999LL, 3001LL, 1000LL}}) {
            const auto e = choose(m, n, k, 132, cluster);
            EXPECT_TRUE(e.shape.rows == 192 && e.shape.columns == 192)
                << m << "x" << n << "x" << k << " cluster " << cluster;
        }
    const auto four = choose(2100, 3400, 1480, 132, 4);
    EXPECT_TRUE(four.shape.rows == 192 && four.shape.columns == 192);
    EXPECT_EQ(four.units, 3 * 18);  // 11 rows of tiles in 3 rows of clusters of 4
    // K % 64 == 0: the fill rules decide (128x192 fills 98% of its waves, 128x256 91%).
    EXPECT_EQ(tile(3000, 5000, 2048), "128x192");
}

TEST(TileChoice, AShortKNeverTakes128x224) {
    using ladder::tile_choice::choose;
    const auto tile = [](long long m, long long n, long long k) {
        const auto e = choose(m, n, k, 132, 2);
        return std::to_string(e.shape.rows) + "x" + std::to_string(e.shape.columns);
    };
    EXPECT_EQ(tile(4608, 2304, 384), "128x128");  // 6 k-blocks: 128x224 filled 3 waves
    EXPECT_EQ(tile(3638, 4760, 384), "128x128");  // 128x192 before the ping-pong rule, never 128x224
    EXPECT_EQ(tile(1646, 2048, 2048), "128x224");  // 32 k-blocks: 128x224 keeps its place
}

// The planner evaluates a ping-pong problem's tile but gives no time: it has no model of that
// schedule (common/models/README.md), and says so instead of printing a cooperative number.
TEST(PlannerModel, PingPongOfStep07IsNotModeled) {
    const Plan pp = step_plan(7, "", Problem{2304, 4608, 512});
    EXPECT_TRUE(pp.candidate.pingpong);
    EXPECT_TRUE(pp.fits);
    EXPECT_FALSE(pp.modeled);
    EXPECT_FALSE(pp.prediction.valid);
    EXPECT_NE(one_line(pp).find("not modeled"), std::string::npos);
    const Plan forced = step_plan(7, "tile128x128", Problem{4096, 4096, 4096});
    EXPECT_TRUE(forced.candidate.pingpong);
    EXPECT_FALSE(forced.prediction.valid);
    // The cooperative tiles around it keep their prediction.
    const Plan wide = step_plan(7, "", Problem{4096, 4096, 512});
    EXPECT_FALSE(wide.candidate.pingpong);
    EXPECT_TRUE(wide.prediction.valid);
    EXPECT_TRUE(step_plan(7, "tile128x256", Problem{2304, 4608, 512}).prediction.valid);
}

// Ping-pong (tile_choice.h, pingpong_schedule): 128x128 tiles, at least 1.5 waves of them, no
// stream-K, no split-K, no clusters; a short K over many tiles takes it in place of a wider tile.
TEST(TileChoice, PingPongWhereItsEpiloguesHideAndNowhereElse) {
    using ladder::tile_choice::choose;
    struct Case {
        long long m, n, k;
        int columns;
        bool pingpong;
    };
    for (const Case& c : {
             Case{2304, 4608, 512, 128, true},   // the rules' 128x128, 4.9 waves
             Case{3000, 5000, 448, 128, true},   // 7 k-blocks: in place of 128x192
             Case{6144, 4096, 384, 128, true},   // 6 k-blocks: in place of 128x256
             Case{4096, 4096, 512, 256, false},  // 8 k-blocks: 128x256 kept
             Case{8192, 4096, 64, 256, false},   // one k-block: no main loop to hide under
             Case{2304, 4096, 2048, 192, false}, // a long K: the rules' 128x192 kept
             Case{1280, 1280, 1280, 128, false}, // 100 tiles: under 1.5 waves
             Case{384, 768, 16384, 128, false},  // split-K
         }) {
        SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
        for (int cluster : {1, 2, 4}) {
            const auto e = choose(c.m, c.n, c.k, 132, cluster);
            EXPECT_EQ(e.shape.rows, 128);
            EXPECT_EQ(e.shape.columns, c.columns);
            EXPECT_EQ(ladder::tile_choice::pingpong(e), c.pingpong);
            if (c.pingpong) {
                EXPECT_EQ(e.slots, 132);  // one CTA per unit: no clusters
                EXPECT_EQ(e.units, e.tiles);
                EXPECT_EQ(e.sharing_clusters, 0);
                EXPECT_EQ(e.splits, 1);
                EXPECT_NE(ladder::tile_choice::explain(c.m, c.n, c.k, 132, cluster).find("ping-pong"),
                          std::string::npos);
            }
        }
    }
    // A forced 128x128 runs the same schedule; a forced wider tile is never replaced.
    const auto forced = [](long long m, long long n, long long k, ladder::tile_choice::Shape s) {
        return ladder::tile_choice::pingpong_schedule(ladder::tile_choice::estimate(m, n, k, 132, 2, s), m, n, k,
                                                      132, true, false);
    };
    EXPECT_TRUE(ladder::tile_choice::pingpong(forced(4096, 4096, 4096, {128, 128})));
    EXPECT_FALSE(ladder::tile_choice::pingpong(forced(3000, 5000, 448, {128, 192})));
    EXPECT_EQ(forced(3000, 5000, 448, {128, 192}).shape.columns, 192);
}

TEST(PlannerModel, DramReadsBoundTheLoopsNotTheEpilogue) {
    // 128x8192x8192 in 128x256 tiles (tile128x256) shared by 128 CTAs (each tile in 4 runs of 32
    // k-blocks), but B (128 MiB) must come from DRAM while the loops run; the shared tiles'
    // epilogue comes after that.
    const Prediction r = step_plan(7, "tile128x256", Problem{128, 8192, 8192}).prediction;
    const double reads = (128.0 * 8192 + 8192.0 * 8192) * 2 / (h100_sxm().dram_tbps * 1e3);
    EXPECT_NEAR(r.dram_ns, reads, 1e-6);
    EXPECT_EQ(r.limiter, "DRAM bandwidth");
    EXPECT_NEAR(r.total_us * 1e3, r.launch_ns + r.prologue_ns + r.dram_ns + r.epilogue_ns, 1e-6);
}

TEST(PlannerModel, OneStageWaitsForEveryFill) {
    // Step 03: nothing overlaps, the k-block is fill + issue + barrier.
    const Prediction r = step_plan(3).prediction;
    EXPECT_NEAR(r.kblock_ns, r.fill_ns + r.issue_ns + h100_sxm().mbarrier_round_trip_ns, 1e-6);
    EXPECT_EQ(r.limiter, "load latency: too few stages ahead");
    EXPECT_GT(step_plan(3).prediction.total_us, step_plan(4).prediction.total_us);
}

TEST(PlannerModel, IssueScalesWithTheClockFeedDoesNot) {
    const Machine m = h100_sxm();
    Candidate c4, c6;
    ASSERT_TRUE(step_candidate(4, "", &c4));
    ASSERT_TRUE(step_candidate(6, "", &c6));
    const Prediction slow4 = predict(m, k4096, c4, 1, 990), fast4 = predict(m, k4096, c4, 1, 1980);
    EXPECT_NEAR(slow4.issue_ns, 2 * fast4.issue_ns, 1e-9);
    const Prediction slow6 = predict(m, k4096, c6, 1, 990), fast6 = predict(m, k4096, c6, 1, 1980);
    EXPECT_DOUBLE_EQ(slow6.feed_ns, fast6.feed_ns);
}

TEST(PlannerModel, WavesAndPersistence) {
    // 512 tiles on 132 SMs: 4 waves of tiles (06), 4 tiles on the busiest SM (07), which pays
    // the prologue once instead of once per tile.
    const Prediction w = step_plan(6).prediction, p = step_plan(7).prediction;
    EXPECT_EQ(w.rounds, 4);
    EXPECT_EQ(p.rounds, 4);
    EXPECT_NEAR(w.total_us * 1e3, w.launch_ns + 4 * w.tile_ns, 1e-6);
    EXPECT_NEAR(p.total_us * 1e3, p.launch_ns + p.prologue_ns + 4 * p.tile_ns, 1e-6);
    EXPECT_NEAR(w.tile_ns, w.prologue_ns + 64 * w.kblock_ns + w.epilogue_ns, 1e-6);
    // 1000x1992x2056 has 8 x 8 = 64 tiles: one wave on 64 SMs, each with twice the L2 share.
    const Prediction odd = step_plan(6, "", Problem{1000, 1992, 2056}).prediction;
    EXPECT_EQ(odd.rounds, 1);
    EXPECT_EQ(odd.active_sms, 64);
    EXPECT_EQ(odd.limiter, "wave quantization");
}

// A grid of one CTA per tile runs its tiles in order; where the operand a wave sweeps is
// larger than the L2, each wave reads its tiles of it from DRAM.
TEST(PlannerModel, TilesReadAgainPastTheL2ComeFromDramEachTime) {
    const Machine m = h100_sxm();  // 50 MiB of L2, 3.35 TB/s
    // Step 05 runs along N: 8192x28672x8192 has 64 x 112 tiles on 132 slots. A B tile
    // (256 x 8192 x 2 = 4 MiB) is read again by the CTA 112 launches later, the next tile
    // row; in between the grid moves 112/132 of a round's 112 B tiles, 2 + 1 A tiles (2 MiB)
    // and 132 C tiles (64 KiB): 412 MB, past the L2. So every CTA reads its B tile from
    // DRAM, and A once.
    const Prediction r = step_plan(5, "", Problem{8192, 28672, 8192}).prediction;
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.rounds, 55);
    const double tiles = 64.0 * 112;
    EXPECT_NEAR(r.dram_ns, (tiles * 4194304.0 + 8192.0 * 8192 * 2) / (m.dram_tbps * 1e3), 1);
    EXPECT_EQ(r.limiter, "DRAM bandwidth");
    // Step 06 runs along M: an A tile (128 x 8192 x 2 = 2 MiB) comes back 64 launches later,
    // the next column; in between 64/132 x (64 A tiles + 4 B tiles of 4 MiB + 132 C tiles)
    // = 74 MB, past the L2: A per column, B once.
    const Prediction w = step_plan(6, "", Problem{8192, 28672, 8192}).prediction;
    EXPECT_NEAR(w.dram_ns, (tiles * 2097152.0 + 28672.0 * 8192 * 2) / (m.dram_tbps * 1e3), 1);
    // 8192x8192x4096 along N: a B tile comes back 32 launches later, after 32/132 x (32 B
    // tiles of 2 MiB + 6 A tiles of 1 MiB + 132 C tiles) = 20 MB: still in the L2, so the
    // compulsory reads alone.
    const Prediction h = step_plan(5, "", Problem{8192, 8192, 4096}).prediction;
    EXPECT_NEAR(h.dram_ns, 2.0 * 8192 * 4096 * 2 / (m.dram_tbps * 1e3), 1);
    // 4096^3: B is 32 MiB and stays in the L2: the compulsory reads alone.
    const Prediction c = step_plan(5).prediction;
    EXPECT_NEAR(c.dram_ns, 2.0 * 4096 * 4096 * 2 / (m.dram_tbps * 1e3), 1);
}

// Ping-pong (06 gemm_pingpong.cu) runs a tile's two 64-row halves one after the other:
// 2 x 64 fills of 64 x 256 x 64 at 4096^3, each 40 KiB with all 5 stages ahead, and only the
// second half's epilogue (32 KiB of C in 4-byte stores) exposed.
TEST(PlannerModel, PingPongRunsTheTwoHalvesOfATileOneAfterTheOther) {
    const Machine m = h100_sxm();
    const Plan plan = step_plan(6, "pingpong");
    const Prediction& r = plan.prediction;
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.k_blocks, 128);
    EXPECT_NEAR(r.issue_ns, (2.0 * 64 * 256 * 64 / m.wgmma_flop_per_clk + m.wgmma_kblock_overhead_clk) /
                                (m.load_clock_mhz * 1e-3), 1e-9);
    EXPECT_NEAR(r.epilogue_ns, 64.0 * 256 * 2 / (m.store4_tbps * 1e3 / m.sm_count), 1e-9);
    EXPECT_NEAR(r.tile_ns, r.prologue_ns + 128 * r.kblock_ns + r.epilogue_ns, 1e-6);
    // The ring: (fill + issue + barrier) over the 5 stages ahead.
    EXPECT_NEAR(r.ring_ns, (r.fill_ns + r.issue_ns + m.mbarrier_round_trip_ns) / 5, 1e-9);
    // M <= 64: the lower half of every tile lies below C, and the kernel skips it.
    EXPECT_EQ(step_plan(6, "pingpong", Problem{64, 4096, 4096}).prediction.k_blocks, 64);
    EXPECT_EQ(step_plan(6, "pingpong", Problem{65, 4096, 4096}).prediction.k_blocks, 128);
}

TEST(PlannerModel, TflopsAreTheUsefulFlopOverThePredictedTime) {
    const Prediction r = step_plan(7).prediction;
    EXPECT_NEAR(r.tflops, 2.0 * 4096 * 4096 * 4096 / (r.total_us * 1e-6) * 1e-12, 1e-9);
}

TEST(PlannerModel, TheHandWrittenH100FileHoldsTheBuiltInConstants) {
    Machine from_file = h100_sxm();
    std::string error;
    ASSERT_TRUE(read_machine_file(kH100HandFile, &from_file, &error)) << error;
    const Machine built_in = h100_sxm();
    EXPECT_EQ(from_file.sm_count, built_in.sm_count);
    EXPECT_DOUBLE_EQ(from_file.load_clock_mhz, built_in.load_clock_mhz);
    EXPECT_DOUBLE_EQ(from_file.mma_sync_flop_per_clk, built_in.mma_sync_flop_per_clk);
    EXPECT_DOUBLE_EQ(from_file.wgmma_flop_per_clk, built_in.wgmma_flop_per_clk);
    EXPECT_DOUBLE_EQ(from_file.ldmatrix_bytes_per_clk, built_in.ldmatrix_bytes_per_clk);
    EXPECT_DOUBLE_EQ(from_file.dram_tbps, built_in.dram_tbps);
    EXPECT_DOUBLE_EQ(from_file.l2_tma_tbps, built_in.l2_tma_tbps);
    EXPECT_DOUBLE_EQ(from_file.l2_cp_async_tbps, built_in.l2_cp_async_tbps);
    EXPECT_DOUBLE_EQ(from_file.tma_latency_ns, built_in.tma_latency_ns);
    EXPECT_DOUBLE_EQ(from_file.tma_one_sm_gbps, built_in.tma_one_sm_gbps);
    EXPECT_DOUBLE_EQ(from_file.cp_async_latency_ns, built_in.cp_async_latency_ns);
    EXPECT_DOUBLE_EQ(from_file.mbarrier_round_trip_ns, built_in.mbarrier_round_trip_ns);
    EXPECT_DOUBLE_EQ(from_file.store16_tbps, built_in.store16_tbps);
    EXPECT_DOUBLE_EQ(from_file.store4_tbps, built_in.store4_tbps);
    EXPECT_DOUBLE_EQ(from_file.tma_store_tbps, built_in.tma_store_tbps);
    EXPECT_DOUBLE_EQ(from_file.launch_us, built_in.launch_us);
    EXPECT_EQ(from_file.name, "NVIDIA H100 80GB HBM3");
    // Every constant the file marks "measured": false is listed as not measured (all but the SM
    // count: 15 of the time model and the 8 of the power model, fitted or provisional).
    std::ifstream in(kH100HandFile);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t marked = 0;
    for (size_t at = text.find("\"measured\": false"); at != std::string::npos;
         at = text.find("\"measured\": false", at + 1))
        ++marked;
    EXPECT_EQ(from_file.not_measured.size(), marked);
    EXPECT_TRUE(has_power_model(from_file));
}

// The H100's machine file is ladder-probe's: every constant measured, the power model included.
TEST(PlannerModel, TheH100MachineFileIsMeasured) {
    Machine m = h100_sxm();
    std::string error;
    ASSERT_TRUE(read_machine_file(kH100File, &m, &error)) << error;
    EXPECT_TRUE(m.not_measured.empty()) << m.not_measured.front();
    EXPECT_TRUE(has_power_model(m));
    EXPECT_EQ(m.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(m.sm_count, 132);
}

// ladder-plan --machine FILE --step N, the step executables (planner_bridge.cpp: the device's
// machine, then the machine file) and the CSV column (that number, one decimal) agree.
TEST(PlannerModel, OnePlannerForTheCommandLineTheExecutablesAndTheCsv) {
    Machine cli = h100_sxm();
    std::string error;
    ASSERT_TRUE(read_machine_file(kH100File, &cli, &error)) << error;
    DeviceFacts f;
    f.name = "NVIDIA H100 80GB HBM3";
    f.cc_major = 9, f.cc_minor = 0;
    f.sm_count = 132;
    f.smem_per_block_optin_bytes = 232448;
    f.l2_bytes = 50LL << 20;
    f.mem_clock_khz = 2619000;
    f.mem_bus_width_bits = 5120;
    Machine bridge = machine_from_device(f);
    ASSERT_TRUE(read_machine_file(kH100File, &bridge, &error)) << error;
    // 64x4096x4096: step 07 launches it without clusters, its 16 tiles shared by 64 CTAs.
    for (const Problem& problem :
         {k4096, Problem{1000, 1992, 2056}, Problem{8192, 14336, 4096}, Problem{64, 4096, 4096}})
        for (int n = 2; n <= 7; ++n) {
            const Plan a = plan_step(cli, n, "", problem), b = plan_step(bridge, n, "", problem);
            ASSERT_TRUE(a.prediction.valid && b.prediction.valid) << n;
            EXPECT_DOUBLE_EQ(a.prediction.total_us, b.prediction.total_us) << "step " << n;
            EXPECT_EQ(a.prediction.limiter, b.prediction.limiter) << "step " << n;
            // The CSV writes the bridge's number with one decimal.
            char text[32];
            std::snprintf(text, sizeof text, ",%.1f,", a.prediction.tflops);
            ladder::csv::Row row;
            row.predicted_tflops = b.prediction.tflops;
            row.predicted_limiter = b.prediction.limiter;
            EXPECT_NE(ladder::csv::format_row(row).find(text), std::string::npos) << ladder::csv::format_row(row);
            EXPECT_NE(ladder::csv::header_line().find("predicted_tflops,predicted_limiter"), std::string::npos);
        }
}

TEST(PlannerModel, MachineFileErrorsNameTheProblem) {
    Machine m = h100_sxm();
    std::string error;
    EXPECT_FALSE(read_machine_file(testing::TempDir() + "no_such_machine.json", &m, &error));
    EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
    const std::string not_machine = write_temp("not_machine.json", "{\"device\": \"x\"}");
    EXPECT_FALSE(read_machine_file(not_machine, &m, &error));
    EXPECT_NE(error.find("not a machine file"), std::string::npos) << error;
    std::remove(not_machine.c_str());
    std::ifstream in(kH100HandFile);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string without = text.substr(0, text.find("\"launch_us\"")) + "\"x\": {}}}";
    const std::string short_machine = write_temp("short_machine.json", without);
    EXPECT_FALSE(read_machine_file(short_machine, &m, &error));
    EXPECT_NE(error.find("launch_us"), std::string::npos) << error;
    std::remove(short_machine.c_str());
    std::string zero = text;
    zero.replace(zero.find("\"value\": 4.0"), 12, "\"value\": 0");
    const std::string zero_machine = write_temp("zero_machine.json", zero);
    EXPECT_FALSE(read_machine_file(zero_machine, &m, &error));
    EXPECT_NE(error.find("\"launch_us\" is 0; it must be a number from 0.001 to 1e+06"), std::string::npos) << error;
    std::remove(zero_machine.c_str());
}

// Every field is checked against the range a GPU can have, so that no value reaches the model
// that would divide by zero or overflow an int (an sm_count of 1 or 0.5 once raised SIGFPE).
TEST(PlannerModel, MachineFileValuesOutsideTheirRangeAreRefused) {
    std::ifstream in(kH100HandFile);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto with = [&](const std::string& key, const std::string& value) {
        std::string changed = text;
        const size_t at = changed.find("\"value\": ", changed.find("\"" + key + "\"")) + 9;
        changed.replace(at, changed.find(',', at) - at, value);
        return changed;
    };
    const struct {
        const char* key;
        const char* value;
        const char* says;
    } cases[] = {
        {"sm_count", "1", "\"sm_count\" is 1; it must be a whole number from 4 to 4096"},
        {"sm_count", "0.5", "\"sm_count\" is 0.5; it must be a whole number from 4 to 4096"},
        {"sm_count", "1e30", "\"sm_count\" is 1e+30; it must be a whole number from 4 to 4096"},
        {"sm_count", "131.5", "whole number"},
        {"wgmma_flop_per_clk_per_sm", "1e9", "\"wgmma_flop_per_clk_per_sm\" is 1e+09; it must be a number from 1 to 65536"},
        {"dram_tbps", "-3", "\"dram_tbps\" is -3"},
        {"power_idle_w", "900", "power_idle_w (below the limit)"},
        {"power_busy_w", "-1", "\"power_busy_w\" is -1; it must be a number from 0 to 100000"},
        {"power_wgmma_random_w", "0", "power_wgmma_random_w (above 0)"},
        {"sm_clock_max_mhz", "nan", "\"sm_clock_max_mhz\" has no numeric \"value\""},
    };
    for (const auto& c : cases) {
        Machine m = h100_sxm();
        std::string error;
        const std::string path = write_temp("range_machine.json", with(c.key, c.value));
        EXPECT_FALSE(read_machine_file(path, &m, &error)) << c.key << " = " << c.value;
        EXPECT_NE(error.find(c.says), std::string::npos) << c.key << " = " << c.value << ": " << error;
        EXPECT_EQ(m.sm_count, h100_sxm().sm_count) << "a refused file changes nothing";
        std::remove(path.c_str());
    }
    // More resident clusters than the SMs hold.
    Machine m = h100_sxm();
    std::string error;
    const std::string clusters = write_temp(
        "clusters_machine.json",
        text.substr(0, text.rfind('}', text.rfind('}') - 1)) +
            ",\n    \"resident_clusters_of_2\": {\"value\": 67, \"unit\": \"clusters\", \"measured\": true}\n  }\n}\n");
    EXPECT_FALSE(read_machine_file(clusters, &m, &error));
    EXPECT_NE(error.find("\"resident_clusters_of_2\" is 67, more clusters of 2 than 132 SMs hold"), std::string::npos)
        << error;
    std::remove(clusters.c_str());
}

namespace {

// A machine with a power model whose numbers are easy to work by hand: at 2000 MHz the board
// draws 100 W idle + 100 W with every SM busy + 1000 W with the tensor pipe fully busy on
// wgmma with random operands; the limit is 700 W.
Machine power_machine() {
    Machine m = h100_sxm();
    m.sm_clock_max_mhz = 2000;
    m.power_limit_w = 700;
    m.power_idle_w = 100;
    m.power_busy_w = 100;
    m.power_wgmma_random_w = 1000;
    m.power_wgmma_zero_w = 400;
    m.power_mma_sync_random_w = 1500;
    m.power_mma_sync_zero_w = 600;
    return m;
}

}  // namespace

TEST(PowerModel, BoardPowerIsIdlePlusTheCubeOfTheClockTimesTheActivity) {
    const Machine m = power_machine();
    ASSERT_TRUE(has_power_model(m));
    EXPECT_FALSE(has_power_model(h100_sxm()));
    // At 2000 MHz: 100 + 100 + 0.5 x 1000 = 700 W. At 1000 MHz: 100 + (1/8)(100 + 500) = 175 W.
    EXPECT_DOUBLE_EQ(board_power_w(m, 2000, 0.5, false, false), 700);
    EXPECT_DOUBLE_EQ(board_power_w(m, 1000, 0.5, false, false), 175);
    // Zero operands: 100 + 100 + 0.5 x 400; mma.sync: 100 + 100 + 0.5 x 1500.
    EXPECT_DOUBLE_EQ(board_power_w(m, 2000, 0.5, false, true), 400);
    EXPECT_DOUBLE_EQ(board_power_w(m, 2000, 0.5, true, false), 950);
    EXPECT_DOUBLE_EQ(board_power_w(m, 2000, 0.5, true, true), 500);
}

TEST(PowerModel, TheClockSettlesWhereBoardPowerMeetsTheLimit) {
    const Machine m = power_machine();
    auto always = [](double busy) { return [busy](double) { return busy; }; };
    // Tensor pipe always busy: 100 + x^3 (100 + 1000) = 700, x^3 = 6/11, f = 2000 x 0.8171 = 1634.2 MHz.
    EXPECT_NEAR(clock_under_power_limit(m, false, false, always(1.0)), 2000 * std::cbrt(6.0 / 11.0), 0.01);
    // Half busy: 700 W exactly at 2000 MHz, the limit just met.
    EXPECT_NEAR(clock_under_power_limit(m, false, false, always(0.5)), 2000, 0.01);
    // A fifth busy: 400 W at 2000 MHz, under the limit.
    EXPECT_DOUBLE_EQ(clock_under_power_limit(m, false, false, always(0.2)), 2000);
    // Zero operands, always busy: 100 + 100 + 400 = 600 W at 2000 MHz, under the limit.
    EXPECT_DOUBLE_EQ(clock_under_power_limit(m, false, true, always(1.0)), 2000);
    // mma.sync on random operands, always busy: x^3 = 600 / 1600, f = 2000 x 0.7211 = 1442.2 MHz.
    EXPECT_NEAR(clock_under_power_limit(m, true, false, always(1.0)), 2000 * std::cbrt(600.0 / 1600.0), 0.01);
    // Memory-bound: the FLOP rate does not follow the clock, so the pipe is busy 1500/f of the
    // time (0.75 at 2000 MHz, 950 W); the clock still settles where the power meets the limit.
    const double f = clock_under_power_limit(m, false, false, [](double mhz) { return std::min(1.0, 1500.0 / mhz); });
    EXPECT_LT(f, 2000);
    EXPECT_NEAR(board_power_w(m, f, std::min(1.0, 1500.0 / f), false, false), 700, 0.01);
    // No power model: no clock (predict() then runs at the load clock).
    EXPECT_EQ(clock_under_power_limit(h100_sxm(), false, false, always(1.0)), 0);
}

// ladder-probe's arithmetic: samples drawn from the model come back as its constants.
TEST(PowerModel, TheProbesLoopsGiveBackTheConstants) {
    const Machine m = power_machine();
    // The wgmma loop on random operands, fully busy: held at the limit, 1634.2 MHz (above);
    // with a wait after each k-block, busy 0.5: 700 W at 2000 MHz.
    const double f1 = 2000 * std::cbrt(6.0 / 11.0);
    const PowerSample full{board_power_w(m, f1, 1.0, false, false), f1, 1.0};
    const PowerSample half{board_power_w(m, 2000, 0.5, false, false), 2000, 0.5};
    EXPECT_NEAR(full.power_w, 700, 1e-9);
    EXPECT_NEAR(power_at_peak_clock_w(100, 2000, full), 1100, 1e-9);  // 100 + 1000
    EXPECT_NEAR(power_at_peak_clock_w(100, 2000, half), 600, 1e-9);   // 100 + 0.5 x 1000
    double busy = 0, op = 0;
    std::string why;
    ASSERT_TRUE(fit_busy_and_op_power(100, 2000, full, half, &busy, &op, &why)) << why;
    EXPECT_NEAR(busy, 100, 1e-9);
    EXPECT_NEAR(op, 1000, 1e-9);
    // Zero operands at busy 0.9, 2000 MHz: 100 + 100 + 0.9 x 400 = 560 W.
    EXPECT_NEAR(fit_op_power(100, 2000, busy, PowerSample{560, 2000, 0.9}), 400, 1e-9);
    // mma.sync on random operands at busy 0.66, held where 100 + x^3 (100 + 990) = 700.
    const double f4 = 2000 * std::cbrt(600.0 / 1090.0);
    EXPECT_NEAR(fit_op_power(100, 2000, busy, PowerSample{700, f4, 0.66}), 1500, 1e-9);
    // Two samples at one busy fraction cannot separate P_busy from P_op.
    EXPECT_FALSE(fit_busy_and_op_power(100, 2000, full, PowerSample{650, 1700, 0.95}, &busy, &op, &why));
    EXPECT_NE(why.find("too close"), std::string::npos) << why;
    // Less power at the higher activity: no model fits.
    EXPECT_FALSE(fit_busy_and_op_power(100, 2000, PowerSample{300, 2000, 1.0}, half, &busy, &op, &why));
    EXPECT_NE(why.find("does not grow"), std::string::npos) << why;
}

TEST(PowerModel, PredictRunsAtTheClockUnderTheLimit) {
    const Machine m = power_machine();
    const Plan plan = plan_step(m, 7, "", k4096);
    ASSERT_TRUE(plan.fits);
    const Prediction& r = plan.prediction;
    ASSERT_TRUE(r.valid);
    // Step 07 at 4096^3 keeps its tensor pipe busy most of the time: the limit binds.
    EXPECT_TRUE(r.power_limited);
    EXPECT_LT(r.clock_mhz, 2000);
    EXPECT_NEAR(r.power_w, 700, 0.5);
    EXPECT_NEAR(board_power_w(m, r.clock_mhz, r.tensor_busy, false, false), 700, 0.5);
    // The same prediction as at that clock given explicitly.
    const Prediction at = predict(m, plan.problem, plan.candidate, plan.ctas_per_sm, r.clock_mhz);
    EXPECT_DOUBLE_EQ(at.total_us, r.total_us);
    EXPECT_FALSE(at.power_limited);
    // The tensor pipe's busy fraction: executed FLOP over what the SMs could do in the time.
    EXPECT_NEAR(r.tensor_busy, 2.0 * 4096 * 4096 * 4096 / (r.total_us * 1e-6 * m.sm_count * r.clock_mhz * 1e6 * 4096),
                1e-9);
    // Zero inputs draw less power: a higher clock, and no longer a time (on these built-in
    // constants the L2 feed, which does not follow the clock, then sets the pace).
    Problem zeros = k4096;
    zeros.zero_inputs = true;
    const Prediction z = plan_step(m, 7, "", zeros).prediction;
    EXPECT_GT(z.clock_mhz, r.clock_mhz);
    EXPECT_LE(z.total_us, r.total_us);
    // A small problem leaves the tensor pipe mostly idle (launch, one short wave): full clock.
    const Prediction small = plan_step(m, 7, "", Problem{512, 512, 512}).prediction;
    EXPECT_FALSE(small.power_limited);
    EXPECT_DOUBLE_EQ(small.clock_mhz, 2000);
    // Without a power model, the machine's load clock, as before.
    EXPECT_DOUBLE_EQ(plan_step(h100_sxm(), 7, "", k4096).prediction.clock_mhz, h100_sxm().load_clock_mhz);
}

// The benchmark's loop: the step, then cuBLAS, then the hold kernel's spin, over and over.
// The limiter holds a round's average power at the limit, so the clock of a loop is where
// that average meets it.
TEST(PowerModel, ALoopsClockIsWhereItsAveragePowerMeetsTheLimit) {
    Machine m = power_machine();
    m.power_l2_w_per_tbps = 20;
    m.power_dram_w_per_tbps = 50;
    const Plan plan = plan_step(m, 7, "", k4096);
    ASSERT_TRUE(plan.fits && plan.prediction.power_limited);
    const LoopKernel step{plan.problem, plan.candidate, plan.ctas_per_sm};
    // One kernel back to back: the clock of predict(), which holds the kernel's own power.
    EXPECT_NEAR(loop_clock_mhz(m, {step}, 0), plan.prediction.clock_mhz, 0.01);
    // With the spin between batches the round draws less on average: a higher clock, at
    // which the round's energy over its time is the limit.
    const double idle_ns = 2 * kBenchHoldNsPerLaunch;
    const double f = loop_clock_mhz(m, {step, step}, idle_ns);
    EXPECT_GT(f, plan.prediction.clock_mhz + 10);
    const Prediction at = predict(m, plan.problem, plan.candidate, plan.ctas_per_sm, f);
    const double busy_w =
        board_power_w(m, f, Activity(at.tensor_busy, at.l2_traffic_tbps, at.dram_traffic_tbps), false, false);
    const double kernel_ns = 2 * at.total_us * 1e3;
    EXPECT_NEAR((busy_w * kernel_ns + m.power_idle_w * idle_ns) / (kernel_ns + idle_ns), 700, 0.5);
    // loop_power_w is that average at any clock (what --compare checks a row's power_w with):
    // the limit at the loop's clock, less below it, and 0 without a power model.
    EXPECT_NEAR(loop_power_w(m, {step, step}, idle_ns, f), 700, 0.5);
    EXPECT_LT(loop_power_w(m, {step, step}, idle_ns, f - 200), 650);
    EXPECT_EQ(loop_power_w(h100_sxm(), {step, step}, idle_ns, f), 0);
    // A companion on zero inputs draws less than one on random data: a higher clock again.
    LoopKernel cool = step;
    cool.problem.zero_inputs = true;
    EXPECT_GT(loop_clock_mhz(m, {step, cool}, idle_ns), f + 10);
    // A short kernel between the spins: the average stays under the limit at the full clock.
    const Plan small = plan_step(m, 7, "", Problem{1024, 1024, 1024});
    EXPECT_DOUBLE_EQ(loop_clock_mhz(m, {{small.problem, small.candidate, small.ctas_per_sm}}, idle_ns), 2000);
    // Without a power model, no clock.
    EXPECT_EQ(loop_clock_mhz(h100_sxm(), {step}, idle_ns), 0);
}

// The planner's copy of the harness's spin per launch is the harness's: the loop's idle share
// follows it.
TEST(PowerModel, TheLoopsSpinIsTheHarnesss) {
    std::ifstream in(std::string(LADDER_SOURCE_DIR) + "/common/harness/harness.cu");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    char expected[96];
    std::snprintf(expected, sizeof expected, "constexpr long long kHostNsPerLaunch = %.0f;", kBenchHoldNsPerLaunch);
    EXPECT_NE(text.find(expected), std::string::npos) << "harness.cu no longer has '" << expected << "'";
}

// The stores are predicated on C's bounds: a problem narrower than the tile stores only its
// rows and columns, a wider one whole tiles; ping-pong exposes its second half's 64 rows.
TEST(PlannerModel, TheEpilogueStoresWhatLiesInsideC) {
    const Machine m = h100_sxm();
    const double share = m.store4_tbps * 1e3 / m.sm_count;  // bytes per ns, step 05's 4-byte stores
    EXPECT_NEAR(plan_step(m, 5, "", k4096).prediction.epilogue_ns, 128.0 * 256 * 2 / share, 1e-6);
    EXPECT_NEAR(plan_step(m, 5, "", Problem{4096, 16, 4096}).prediction.epilogue_ns, 128.0 * 16 * 2 / share, 1e-6);
    EXPECT_NEAR(plan_step(m, 5, "", Problem{16, 4096, 4096}).prediction.epilogue_ns, 16.0 * 256 * 2 / share, 1e-6);
    EXPECT_NEAR(plan_step(m, 6, "pingpong", k4096).prediction.epilogue_ns, 64.0 * 256 * 2 / share, 1e-6);
    // M = 100: the lower half holds rows 64..99; M = 48: only the upper half runs, 48 rows.
    EXPECT_NEAR(plan_step(m, 6, "pingpong", Problem{100, 4096, 4096}).prediction.epilogue_ns, 36.0 * 256 * 2 / share,
                1e-6);
    EXPECT_NEAR(plan_step(m, 6, "pingpong", Problem{48, 4096, 4096}).prediction.epilogue_ns, 48.0 * 256 * 2 / share,
                1e-6);
}

// Where the probe measured what one SM stores alone, a grid of few tiles stores at the
// GPU-wide rate shared by the SMs that store at once, never faster than one SM alone; a full
// wave keeps its share of the GPU-wide rate. Without the measurement: the share of all SMs.
TEST(PlannerModel, FewSmsStoringShareTheGpusStoreRate) {
    Machine m = h100_sxm();
    const double all_share = m.store4_tbps * 1e3 / m.sm_count;  // 4.5 TB/s over 132 SMs: 34.1 B/ns
    const Problem few{512, 512, 512};                            // 4 x 2 tiles of 128 x 256: 8 SMs store
    const Prediction before = plan_step(m, 5, "", few).prediction;
    ASSERT_EQ(before.active_sms, 8);
    EXPECT_NEAR(before.epilogue_ns, 128.0 * 256 * 2 / all_share, 1e-6);
    m.store4_one_sm_gbps = 100;  // below 4.5 TB/s / 8 = 562 B/ns: one SM's own rate caps it
    const Prediction capped = plan_step(m, 5, "", few).prediction;
    EXPECT_NEAR(capped.epilogue_ns, 128.0 * 256 * 2 / 100, 1e-6);
    EXPECT_LT(capped.total_us, before.total_us);
    m.store4_one_sm_gbps = 1000;  // above it: the 8 SMs share the GPU-wide rate
    EXPECT_NEAR(plan_step(m, 5, "", few).prediction.epilogue_ns, 128.0 * 256 * 2 / (4500.0 / 8), 1e-6);
    // A full wave: every SM stores, each its share, whatever one SM alone could do.
    const Prediction full = plan_step(m, 5, "", k4096).prediction;
    ASSERT_EQ(full.active_sms, m.sm_count);
    EXPECT_NEAR(full.epilogue_ns, 128.0 * 256 * 2 / all_share, 1e-6);
    // The machine file's keys, optional, read where present and refused outside their range.
    std::ifstream in(kH100HandFile);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto with_key = [&](const std::string& value) {
        return text.substr(0, text.rfind('}', text.rfind('}') - 1)) + ",\n    \"store4_one_sm_gbps\": {\"value\": " +
               value + ", \"unit\": \"GB/s\", \"measured\": true}\n  }\n}\n";
    };
    Machine read = h100_sxm();
    std::string error;
    const std::string good = write_temp("store_machine.json", with_key("12.5"));
    ASSERT_TRUE(read_machine_file(good, &read, &error)) << error;
    EXPECT_DOUBLE_EQ(read.store4_one_sm_gbps, 12.5);
    EXPECT_EQ(read.store16_one_sm_gbps, 0);
    const std::string bad = write_temp("store_machine_bad.json", with_key("0"));
    EXPECT_FALSE(read_machine_file(bad, &read, &error));
    EXPECT_NE(error.find("\"store4_one_sm_gbps\" is 0; it must be a number from 0.001"), std::string::npos) << error;
    std::remove(good.c_str());
    std::remove(bad.c_str());
    // Each step's store kind has its own: step 06's 16-byte stores ignore the 4-byte rate.
    EXPECT_NEAR(plan_step(m, 6, "", few).prediction.epilogue_ns, 128.0 * 256 * 2 / (m.store16_tbps * 1e3 / 132),
                1e-6);
}

// 06 and 07 stage C through shared memory: the consumers write the tile there from the
// accumulators, wait at a barrier, then 06 reads it back as 16-byte rows and 07's TMA store
// reads it as it stores. Where each SM stores at its own rate (few SMs store), the pass
// through the shared-memory pipe comes before its stores: 06 pays the tile's bytes twice at
// ldmatrix_bytes_per_clk, 07 once; 05 and 06's ping-pong store straight from the
// accumulators and pay none.
TEST(PlannerModel, StagedEpiloguesPassThroughSharedMemoryFirst) {
    Machine m = h100_sxm();
    m.store4_one_sm_gbps = m.store16_one_sm_gbps = m.tma_store_one_sm_gbps = 50;  // one SM's cap binds
    const Problem few{512, 512, 512};                                            // 8 tiles, 8 SMs store
    const double c_bytes = 128.0 * 256 * 2;
    auto pipe_ns = [&](const Prediction& p, double bytes) {
        return bytes / m.ldmatrix_bytes_per_clk / (p.clock_mhz * 1e-3);
    };
    const Prediction p05 = plan_step(m, 5, "", few).prediction;
    EXPECT_NEAR(p05.epilogue_ns, c_bytes / 50, 1e-6);
    const Prediction p06 = plan_step(m, 6, "", few).prediction;
    EXPECT_NEAR(p06.epilogue_ns, c_bytes / 50 + pipe_ns(p06, 2 * c_bytes), 1e-6);
    const Prediction lesson = plan_step(m, 7, "lesson", few).prediction;
    EXPECT_NEAR(lesson.epilogue_ns, c_bytes / 50 + pipe_ns(lesson, c_bytes), 1e-6);
    const Prediction pingpong = plan_step(m, 6, "pingpong", few).prediction;
    EXPECT_NEAR(pingpong.epilogue_ns, 64.0 * 256 * 2 / 50, 1e-6);
    // A slower shared-memory pipe lengthens the staged epilogues only.
    Machine slow = m;
    slow.ldmatrix_bytes_per_clk = m.ldmatrix_bytes_per_clk / 2;
    EXPECT_GT(plan_step(slow, 6, "", few).prediction.epilogue_ns, p06.epilogue_ns + pipe_ns(p06, 2 * c_bytes) * 0.99);
    EXPECT_DOUBLE_EQ(plan_step(slow, 5, "", few).prediction.epilogue_ns, p05.epilogue_ns);
    // A full wave: every SM stores, and the GPU's rate shared by all of them is the longer
    // time; one SM's staging runs while the others' stores keep that rate busy.
    const Prediction full = plan_step(m, 6, "", k4096).prediction;
    ASSERT_EQ(full.active_sms, m.sm_count);
    const double gpu_ns = c_bytes / (m.store16_tbps * 1e3 / m.sm_count);
    ASSERT_GT(gpu_ns, c_bytes / 50 + pipe_ns(full, 2 * c_bytes));
    EXPECT_NEAR(full.epilogue_ns, gpu_ns, 1e-6);
    // Without the one-SM rate (a machine file from before the probe measured it), every
    // epilogue is the share of all SMs, as before, staged or not.
    Machine old = h100_sxm();
    old.store16_one_sm_gbps = 0;
    EXPECT_NEAR(plan_step(old, 6, "", few).prediction.epilogue_ns, c_bytes / (old.store16_tbps * 1e3 / old.sm_count),
                1e-6);
}

// A run's inputs are not in the L2: where the probe measured a TMA load's latency from DRAM,
// the grid's first fill waits that long instead of an L2 hit's, once per run.
TEST(PlannerModel, TheFirstFillComesFromDram) {
    Machine m = h100_sxm();
    m.tma_dram_latency_ns = 900;
    const double extra_ns = 900 - m.tma_latency_ns;
    for (int step : {4, 5, 6, 7}) {
        const Prediction warm = plan_step(h100_sxm(), step, "", k4096).prediction;
        const Prediction cold = plan_step(m, step, "", k4096).prediction;
        EXPECT_NEAR(cold.total_us - warm.total_us, extra_ns * 1e-3, 1e-9) << step;  // once, not per wave
        EXPECT_DOUBLE_EQ(cold.kblock_ns, warm.kblock_ns) << step;
    }
    // A run bound by its compulsory DRAM reads waits for the first fill too.
    const Problem narrow{64, 4096, 4096};
    const Prediction warm = plan_step(h100_sxm(), 7, "", narrow).prediction;
    ASSERT_EQ(warm.limiter, "DRAM bandwidth");
    EXPECT_NEAR(plan_step(m, 7, "", narrow).prediction.total_us - warm.total_us, extra_ns * 1e-3, 1e-9);
    // The machine file's key, optional.
    std::ifstream in(kH100HandFile);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string path = write_temp(
        "dram_latency_machine.json",
        text.substr(0, text.rfind('}', text.rfind('}') - 1)) +
            ",\n    \"tma_dram_latency_ns\": {\"value\": 812.5, \"unit\": \"ns\", \"measured\": true}\n  }\n}\n");
    Machine read = h100_sxm();
    std::string error;
    ASSERT_TRUE(read_machine_file(path, &read, &error)) << error;
    EXPECT_DOUBLE_EQ(read.tma_dram_latency_ns, 812.5);
    std::remove(path.c_str());
    Machine hand = h100_sxm();
    ASSERT_TRUE(read_machine_file(kH100HandFile, &hand, &error)) << error;
    EXPECT_EQ(hand.tma_dram_latency_ns, 0);
    // cp.async (02) waits its own latency from the L2 on a warm first fill.
    EXPECT_NEAR(plan_step(m, 2, "", k4096).prediction.total_us - plan_step(h100_sxm(), 2, "", k4096).prediction.total_us,
                (900 - m.cp_async_latency_ns) * 1e-3, 1e-9);
}

// The memory traffic's term: W per TB/s from the L2 at f_max, scaled by (f / f_max)^2, and per
// TB/s of DRAM, not scaled.
TEST(PowerModel, MemoryTrafficAddsItsWattsPerTerabytePerSecond) {
    Machine m = power_machine();
    EXPECT_FALSE(has_memory_power(m));
    m.power_l2_w_per_tbps = 20;
    m.power_dram_w_per_tbps = 50;
    EXPECT_TRUE(has_memory_power(m));
    // At 2000 MHz: 100 + 100 + 0.5 x 1000 + 20 x 5 + 50 x 2 = 900 W.
    EXPECT_DOUBLE_EQ(board_power_w(m, 2000, Activity(0.5, 5, 2), false, false), 900);
    // At 1000 MHz: 100 + (1/8)(600) + (1/4)(100) + 100 = 300 W: DRAM's share does not follow the clock.
    EXPECT_DOUBLE_EQ(board_power_w(m, 1000, Activity(0.5, 5, 2), false, false), 300);
    // A busy fraction alone is an Activity without traffic: the power of the tensor terms.
    EXPECT_DOUBLE_EQ(board_power_w(m, 2000, 0.5, false, false), 700);
    // The traffic lowers the clock at the limit: 100 + x^3 1100 + x^2 100 + 100 = 700 has its
    // root below the traffic-free one, x^3 = 6/11.
    const double f = clock_under_power_limit(m, false, false, [](double) { return Activity(1.0, 5, 2); });
    EXPECT_LT(f, 2000 * std::cbrt(6.0 / 11.0));
    EXPECT_NEAR(board_power_w(m, f, Activity(1.0, 5, 2), false, false), 700, 0.01);
}

// ladder-probe's memory loops: a stream's samples drawn from the model give back its constants.
TEST(PowerModel, TheProbesStreamsGiveBackTheMemoryConstants) {
    Machine m = power_machine();
    m.power_l2_w_per_tbps = 20;
    m.power_dram_w_per_tbps = 50;
    // The L2 stream: 8 TB/s, tensor pipe idle, at 1800 MHz.
    const PowerSample l2{board_power_w(m, 1800, Activity(0, 8, 0), false, false), 1800, 0};
    const double l2_w = memory_power_w_per_tbps(100, 2000, 100, l2, 8, 0, true);
    EXPECT_NEAR(l2_w, 20, 1e-9);
    // The DRAM stream: 2.5 TB/s from DRAM through the L2, at 2000 MHz; its L2 share known.
    const PowerSample dram{board_power_w(m, 2000, Activity(0, 2.5, 2.5), false, false), 2000, 0};
    EXPECT_NEAR(memory_power_w_per_tbps(100, 2000, 100, dram, 2.5, l2_w * 2.5, false), 50, 1e-9);
}

// The power model's prediction with the memory term: the traffic the time model gives at the
// clock it settles at, and board power at the limit with it.
TEST(PowerModel, PredictChargesTheMemoryTraffic) {
    Machine m = power_machine();
    const Prediction without = plan_step(m, 7, "", k4096).prediction;
    m.power_l2_w_per_tbps = 20;
    m.power_dram_w_per_tbps = 50;
    const Plan plan = plan_step(m, 7, "", k4096);
    const Prediction& r = plan.prediction;
    ASSERT_TRUE(r.valid && r.power_limited);
    EXPECT_LT(r.clock_mhz, without.clock_mhz);
    EXPECT_GT(r.total_us, without.total_us);
    EXPECT_NEAR(r.power_w, 700, 0.5);
    EXPECT_NEAR(board_power_w(m, r.clock_mhz, Activity(r.tensor_busy, r.l2_traffic_tbps, r.dram_traffic_tbps), false,
                              false),
                700, 0.5);
    // The L2 traffic: every tile's k-blocks, each stage's A slab and its share of the cluster's
    // multicast B slab, over the time; DRAM: A and B read once, C written once.
    const Candidate& c = plan.candidate;
    const double stages = (4096.0 / c.bm) * (4096.0 / c.bn) * 64;
    EXPECT_NEAR(r.l2_traffic_tbps, stages * (c.bm + c.bn / c.cluster) * 64 * 2 / (r.total_us * 1e6), 1e-9);
    EXPECT_NEAR(r.dram_traffic_tbps, 3.0 * 4096 * 4096 * 2 / (r.total_us * 1e6), 1e-9);
}

// A machine file written before the probe measured the memory term still loads, without it;
// the term's keys are read where present, and refused without the rest of the power model or
// below 0. The DRAM rate of a GEMM's reads, where present, sets the DRAM floor.
TEST(PlannerModel, MachineFileMemoryTermIsOptional) {
    Machine old = h100_sxm();
    std::string error;
    ASSERT_TRUE(read_machine_file(kH100HandFile, &old, &error)) << error;
    EXPECT_TRUE(has_power_model(old));
    EXPECT_FALSE(has_memory_power(old));
    EXPECT_EQ(old.dram_read_tbps, 0);
    std::ifstream in(kH100HandFile);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto with_keys = [&](const std::string& source, const std::string& keys) {
        return source.substr(0, source.rfind('}', source.rfind('}') - 1)) + ",\n" + keys + "\n  }\n}\n";
    };
    const std::string keys =
        "    \"power_l2_w_per_tbps\": {\"value\": 25, \"unit\": \"W per TB/s\", \"measured\": true},\n"
        "    \"power_dram_w_per_tbps\": {\"value\": 60, \"unit\": \"W per TB/s\", \"measured\": true},\n"
        "    \"dram_tma_read_tbps\": {\"value\": 1.5, \"unit\": \"TB/s\", \"measured\": true}";
    const std::string path = write_temp("memory_machine.json", with_keys(text, keys));
    Machine m = h100_sxm();
    ASSERT_TRUE(read_machine_file(path, &m, &error)) << error;
    EXPECT_DOUBLE_EQ(m.power_l2_w_per_tbps, 25);
    EXPECT_DOUBLE_EQ(m.power_dram_w_per_tbps, 60);
    EXPECT_DOUBLE_EQ(m.dram_read_tbps, 1.5);
    // A narrow problem's floor is its compulsory reads at the slower rate of a GEMM's reads.
    const Problem narrow{64, 4096, 4096};
    const Prediction slow = plan_step(m, 7, "", narrow).prediction, fast = plan_step(old, 7, "", narrow).prediction;
    EXPECT_NEAR(slow.dram_ns, fast.dram_ns * old.dram_tbps / 1.5, 1e-6);
    EXPECT_GT(slow.total_us, fast.total_us);
    std::remove(path.c_str());
    // Below 0, or without the power model, refused.
    std::string negative = with_keys(text, keys);
    negative.replace(negative.find("\"value\": 25", negative.find("\"power_l2_w_per_tbps\"")), 12, "\"value\": -5");
    const std::string negative_path = write_temp("negative_memory.json", negative);
    EXPECT_FALSE(read_machine_file(negative_path, &m, &error));
    EXPECT_NE(error.find("\"power_l2_w_per_tbps\" is -5; it must be a number from 0 to"), std::string::npos) << error;
    std::remove(negative_path.c_str());
    std::string no_power = text.substr(0, text.find("\"sm_clock_max_mhz\""));
    no_power = no_power.substr(0, no_power.rfind(',')) + "\n  }\n}\n";
    const std::string no_power_path = write_temp("no_power.json", with_keys(no_power, keys));
    Machine plain = h100_sxm();
    EXPECT_FALSE(read_machine_file(no_power_path, &plain, &error));
    EXPECT_NE(error.find("the power model needs"), std::string::npos) << error;
    std::remove(no_power_path.c_str());
}

TEST(PlannerModel, DeviceFolderIsTheModelName) {
    EXPECT_EQ(device_folder("NVIDIA H100 80GB HBM3"), "h100");
    EXPECT_EQ(device_folder("NVIDIA H200"), "h200");
    EXPECT_EQ(device_folder("NVIDIA GH200 480GB"), "gh200");
    EXPECT_EQ(device_folder(""), "unknown");
}

TEST(PlannerModel, ChooseConfigReturnsTheFastestCandidate) {
    const Machine m = h100_sxm();
    const std::vector<Candidate> candidates = step07_candidates(m);
    ASSERT_EQ(candidates.size(), 18u);
    for (const Problem& p : {k4096, Problem{1024, 1024, 8192}, Problem{8192, 14336, 4096}}) {
        const Choice best = choose_config(p.m, p.n, p.k, m, candidates);
        ASSERT_TRUE(best.plan.fits);
        for (const Candidate& c : candidates) {
            const Plan other = evaluate(m, p, c);
            if (other.fits && other.prediction.valid)
                EXPECT_LE(best.plan.prediction.total_us, other.prediction.total_us) << label(c);
        }
    }
    // 1024x1024x8192 makes only 32 tiles of 128x256: splitting K puts more SMs to work.
    EXPECT_GT(choose_config(1024, 1024, 8192, m, candidates).candidate.split_k * 1, 1);
    EXPECT_FALSE(choose_config(4096, 4096, 4096, m, {}).plan.fits);
}

// Step 07's tile choice (07_clusters_multicast/every_shape/tile_choice.h) on the H200's 132 SMs,
// clusters of 2: the worked examples of 07_clusters_multicast/NOTES.md, section 6.
TEST(TileChoice, PicksTheTileAndTheTransposeOfTheWorkedExamples) {
    struct Case {
        long long m, n, k;
        int rows, columns;
        bool transposed;
        int sharing_clusters;
    };
    const Case cases[] = {
        {512, 512, 512, 64, 64, false, 0},         // 8 tiles of 128x256: 64 of 64x64, one wave
        {1024, 1024, 1024, 64, 128, false, 0},     // 32 of 128x256; 256 of 64x64 make 2 waves
        {1792, 1792, 1792, 128, 224, false, 0},    // 112 of 128x224 (85% full), 98 of 128x256 (74%)
        {1536, 1536, 1536, 128, 144, false, 0},    // 132 of 128x144: one full wave (72 of 128x256, 96 of 128x192)
        {2048, 1152, 4096, 128, 144, false, 0},    // 128 of 128x144 (97% full), 96 of 128x192 (73%)
        {2048, 2048, 2048, 128, 256, false, 0},    // 128 tiles: one full wave
        {3072, 3072, 3072, 128, 192, false, 0},    // 2.18 waves of 128x256, 2.91 of 128x192
        {3000, 5000, 2048, 128, 192, false, 0},    // waves 91% full in 128x256, 98% in 128x192
        {1000, 1992, 2056, 128, 128, false, 0},    // 64 of 128x256: at most half the SMs
        {256, 8192, 4096, 128, 128, false, 0},     // the same count, 128 tiles of 128x128
        {192, 8192, 4096, 64, 192, false, 0},      // M = 192: three rows of 64x192, 129 tiles, none padded
        {160, 8192, 4096, 64, 160, true, 0},       // M = 160: C^T in 128 tiles of 64x160, no padding
        {8192, 160, 4096, 64, 160, false, 0},      // N = 160: the same tiles, C stored by TMA
        {144, 8192, 4096, 128, 144, true, 128},    // M = 144: C^T, 64 tiles of 128x144, shared
        {8192, 136, 4096, 128, 144, false, 128},   // N = 136: 128x144 pads 8 columns, not 56
        {160, 2048, 4096, 64, 96, false, 132},     // a long side of 2048: 66 tiles of 64x96, each split in two
        {2048, 176, 1024, 64, 64, false, 0},       // K = 1024 is too short for that split: 96 tiles of 64x64
        {166, 2328, 2728, 64, 96, false, 0},       // odd K: clusters of 2, two rows of 25 clusters, one wave
        {3742, 184, 2920, 64, 128, false, 0},      // odd K, 39 columns would make two waves of clusters: 64x128
        {4096, 192, 4000, 64, 128, false, 0},      // the same against 4096: two columns of 64x128 as given
        {14336, 160, 4096, 128, 168, false, 0},    // 224 tiles of 64x160 would make 2 waves: 128x192, then 168
        {4096, 192, 4096, 64, 96, true, 0},        // N = 192: C^T in three rows of 64x96, one wave, no split
        {4096, 192, 8192, 128, 192, false, 128},   // K = 8192: 128x192's 32 tiles, shared (64x128 pads 64)
        {14336, 192, 4096, 128, 192, false, 0},    // 112 tiles of 128x192 instead of 128x256's padded ones
        {192, 14336, 4096, 128, 192, true, 0},     // M = 192 where the rules would pad it to 256: C^T
        {176, 8192, 8192, 64, 192, false, 0},      // M = 176: the same tiles, 16 rows padded, not 80
        {224, 14336, 4096, 128, 224, false, 0},    // 128 of 128x224, an eighth less work per SM than 128x256
        {8192, 224, 4096, 128, 128, true, 0},      // N = 224: C^T, 128 tiles of 128x128 (128x256: 64)
        {14336, 224, 4096, 128, 224, false, 0},    // N = 224 fits one 224-column tile; C^T would do as much per SM
        {14336, 256, 4096, 128, 224, true, 0},     // C^T: 128 of 128x224, less work per SM than 112 of 128x256
        {3072, 1024, 2048, 128, 192, true, 0},     // C^T: 128 tiles of 128x192 (96 of 128x256 as given)
        {4096, 1024, 2048, 128, 256, false, 0},    // 128 tiles either way: as given
        {6144, 1024, 2048, 128, 128, false, 0},    // 384 tiles of 128x128, as full as 128x144's, no padding
        {192, 4096, 4096, 64, 96, false, 0},       // K = 4096: three rows of 64x96, 129 tiles, no split
        {176, 4096, 4096, 64, 96, false, 0},       // M = 176: the same tiles, the last row's A box 48 rows
        {160, 4096, 4096, 64, 96, false, 0},       // M = 160: three rows of 64x96, the last half padding
        {4096, 160, 4096, 64, 96, true, 0},        // N = 160: C^T in three rows of 64x96, one wave, no split
        {4096, 144, 4096, 64, 96, true, 0},        // N = 144: the same, not 32 tiles of 128x144 split four ways
        {144, 4096, 4096, 64, 96, false, 0},       // M = 144: three rows of 64x96 as given
        {144, 4096, 8192, 128, 144, true, 128},    // K = 8192: 128x144 as C^T, its 32 tiles shared four ways
        {4096, 144, 8192, 128, 144, false, 128},   // the same, as given
        {144, 6144, 4096, 128, 144, true, 96},     // three rows of 64x96 would make 1.5 waves: 128x144
        {4096, 160, 8192, 64, 160, false, 128},    // K = 8192: 64 of 64x160, each shared by two CTAs
        {192, 4096, 8192, 64, 192, false, 132},    // K = 8192: 66 of 64x192, each shared by two CTAs
        {2560, 2560, 2560, 128, 224, false, 0},    // 2.73 waves of 128x144 (91%), 128x256 76%; 128x224 in two
        {8192, 192, 4096, 128, 192, false, 128},   // 128x192 fits N = 192 exactly
        {4096, 4096, 4096, 128, 256, false, 0},    // 4 waves; sharing the last one does not pay
        {64, 4096, 4096, 64, 64, false, 0},        // M <= 64: 64 tiles, more than the H100's DRAM feeds
        {4096, 64, 4096, 64, 64, false, 0},        // 64x64 covers N = 64: no C^T, C stored by TMA; one wide
        {8192, 64, 4096, 64, 64, true, 0},         // as given it would get 128x128: C^T
        {16, 8192, 8192, 64, 64, false, 0},        // 128 tiles of 64x64: one wave
        {32, 16384, 4096, 64, 128, false, 0},      // 256 of 64x64 would make 2 waves: 128 of 64x128
        {8192, 128, 8192, 64, 128, true, 0},       // C^T: 128 x 8192, 128 tiles of 64x128
        {4096, 128, 4096, 64, 64, true, 0},        // C^T: two rows of 64 tiles of 64x64, one wave, no split
        {128, 4096, 4096, 64, 64, false, 0},       // the same problem as computed above
        {128, 4096, 8192, 128, 64, false, 128},    // K = 8192: one row of 128x64, each shared by 2
        {4096, 128, 8192, 128, 64, true, 128},     // the same as C^T
        {96, 4096, 4096, 64, 64, false, 0},        // M = 96: 128x64 would pad a quarter; 64x64
        {128, 2048, 4096, 64, 64, false, 128},     // half a wave of 64x64: no 128x64 (its fix-up costs)
        {128, 8192, 8192, 64, 128, false, 0},      // the same problem as computed above
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
        const ladder::tile_choice::Estimate e = ladder::tile_choice::choose(c.m, c.n, c.k, 132, 2);
        EXPECT_EQ(e.shape.rows, c.rows);
        EXPECT_EQ(e.shape.columns, c.columns);
        EXPECT_EQ(e.transposed, c.transposed);
        EXPECT_EQ(e.sharing_clusters, c.sharing_clusters);
    }
    // The planner predicts the kernel it launches: the transposed problem, the chosen tile
    // and the stages the kernel holds for it.
    const Plan t = step_plan(7, "", Problem{8192, 128, 8192});
    EXPECT_EQ(t.problem.m, 128);
    EXPECT_EQ(t.problem.n, 8192);
    const Candidate small = step_plan(7, "", Problem{1024, 1024, 1024}).candidate;
    EXPECT_EQ(small.bm, 64);
    EXPECT_EQ(small.bn, 128);
    EXPECT_EQ(small.stages, 8);
    const Candidate forced = step_plan(7, "tile128x256", Problem{1024, 1024, 1024}).candidate;
    EXPECT_EQ(forced.bm, 128);
    EXPECT_EQ(forced.bn, 256);
    EXPECT_EQ(forced.stages, 4);
    // Each forced tile: its rows, columns and the stages its Tile holds (tile_family.h, the
    // stage count the kernel's every_shape/tiles.cuh and the planner share).
    struct Forced {
        const char* variant;
        int bm, bn, stages;
    };
    for (const Forced& f : {Forced{"tile128x128", 128, 128, 6}, Forced{"tile128x192", 128, 192, 5},
                            Forced{"tile192x192", 192, 192, 4},
                            Forced{"tile128x144", 128, 144, 5}, Forced{"tile64x160", 64, 160, 7},
                            Forced{"tile64x96", 64, 96, 10}, Forced{"tile128x224", 128, 224, 4},
                            Forced{"tile64x192", 64, 192, 6}, Forced{"tile128x64", 128, 64, 8},
                            Forced{"tile64x64", 64, 64, 13}, Forced{"tile64x128", 64, 128, 8},
                            Forced{"tile64x256", 64, 256, 5}, Forced{"tile128x256", 128, 256, 4},
                            Forced{"tile128x168", 128, 168, 5}}) {
        SCOPED_TRACE(f.variant);
        const Candidate c = step_plan(7, f.variant, Problem{4096, 4096, 4096}).candidate;
        EXPECT_EQ(c.bm, f.bm);
        EXPECT_EQ(c.bn, f.bn);
        EXPECT_EQ(c.consumer_warpgroups, f.bm / 64);
        EXPECT_EQ(c.stages, f.stages);
    }
    EXPECT_EQ(step_plan(7, "tile128x96", Problem{1024, 1024, 1024}).candidate.bn, small.bn);
    const Plan fitted = step_plan(7, "", Problem{160, 8192, 4096});
    EXPECT_EQ(fitted.problem.m, 8192);
    EXPECT_EQ(fitted.candidate.bn, 160);
}

// The kernel launches the rule's tile through with_tile (every_shape/tiles.cuh), which has a
// kernel only for the rows of the family's table and refuses any other shape: the rule must
// never pick one outside it, on any problem, GPU size or cluster size.
TEST(TileChoice, EveryTileTheRulePicksIsInTheFamilyTable) {
    const long long sides[] = {1, 16, 64, 96, 100, 128, 129, 144, 160, 161, 192, 193, 224, 256, 384,
                               768, 1000, 1536, 1792, 2048, 2304, 3000, 4096, 8192, 14336, 28672};
    const long long ks[] = {8, 64, 72, 512, 2056, 4096, 16384, 65536};
    int checked = 0;
    for (int sms : {78, 114, 132})
        for (int cluster : {1, 2, 4})
            for (long long m : sides)
                for (long long n : sides)
                    for (long long k : ks) {
                        const ladder::tile_choice::Estimate e = ladder::tile_choice::choose(m, n, k, sms, cluster);
                        ASSERT_TRUE(ladder::tile_choice::in_family(e.shape))
                            << m << "x" << n << "x" << k << " on " << sms << " SMs, clusters of " << cluster
                            << ": " << e.shape.rows << "x" << e.shape.columns;
                        ++checked;
                    }
    EXPECT_EQ(checked, 3 * 3 * 26 * 26 * 8);
}

// 128x168 in place of 128x192 where it makes as many waves, none shared (tile_choice.h,
// narrower_in_same_waves), and not where the conditions say otherwise.
TEST(TileChoice, NarrowerTilesInTheSameWaves) {
    using ladder::tile_choice::choose;
    struct Case {
        long long m, n, k;
        int columns, sharing_clusters;
    };
    for (const Case& c : {
             Case{2304, 2304, 2304, 168, 0},  // 252 of 128x168 against 216 of 128x192: two waves either way
             Case{2304, 2304, 4096, 168, 0},  // and 128x192's second wave no longer shared over every SM
             Case{1024, 2384, 4096, 168, 0},  // one wave: 120 tiles against 104
             Case{2284, 2064, 3072, 192, 132},  // 128x192's shared wave, K under 4096: kept
             Case{3648, 3560, 4096, 192, 92},   // shared, five waves: kept
             Case{5485, 1784, 512, 128, 0},     // eight k-blocks: 128x128 in ping-pong (pingpong_schedule)
             Case{2027, 2680, 4696, 192, 66},   // K % 64 != 0: 128x192 in clusters, kept
         }) {
        SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
        const auto e = choose(c.m, c.n, c.k, 132, 2);
        EXPECT_EQ(e.shape.rows, 128);
        EXPECT_EQ(e.shape.columns, c.columns);
        EXPECT_FALSE(e.transposed);
        EXPECT_EQ(e.sharing_clusters, c.sharing_clusters);
    }
    // The same problem on every variant: 128x168 runs no clusters (slice_cluster), so cluster1
    // and cluster4 get it too.
    EXPECT_EQ(choose(2304, 2304, 2304, 132, 1).shape.columns, 168);
    EXPECT_EQ(choose(2304, 2304, 2304, 132, 4).shape.columns, 168);
    EXPECT_EQ(ladder::tile_choice::slice_cluster({128, 168}, 2), 1);
    EXPECT_EQ(ladder::tile_choice::slice_cluster({128, 144}, 4), 2);
}

// 128x224 in place of 128x144 where it makes fewer waves, none shared, for at most 5% more
// per SM, with K of at least 32 k-blocks (tile_choice.h, wider_in_fewer_waves).
TEST(TileChoice, WiderTilesInFewerWaves) {
    using ladder::tile_choice::choose;
    struct Case {
        long long m, n, k;
        int columns;
        long long waves;
    };
    for (const Case& c : {
             Case{2560, 2560, 2560, 224, 2},  // 240 of 128x224 in two waves against 360 of 128x144 in three
             Case{7104, 1486, 4096, 224, 3},  // three waves against five
             Case{3529, 7264, 8192, 224, 7},  // seven waves of clusters against eleven
             Case{796, 7473, 1024, 144, 3},   // 16 k-blocks: kept
             Case{1089, 5710, 6144, 144, 3},  // 128x224's last wave would be shared: kept
         }) {
        SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
        const auto e = choose(c.m, c.n, c.k, 132, 2);
        EXPECT_EQ(e.shape.rows, 128);
        EXPECT_EQ(e.shape.columns, c.columns);
        EXPECT_EQ(e.waves, c.waves);
        EXPECT_FALSE(e.transposed);
    }
    // 1536^2 keeps its one full wave of 128x144 (12 x 11 = 132 tiles).
    EXPECT_EQ(choose(1536, 1536, 4096, 132, 2).shape.columns, 144);
}

// C^T where the transposed problem's 128-row tiles give each SM less in no more waves: 10%
// where C has no TMA store (N % 8 != 0), 25% where it has (tile_choice.h, choose).
TEST(TileChoice, TransposedWhereItGivesEachSmLess) {
    using ladder::tile_choice::choose;
    const auto rows = choose(7892, 383, 2048, 132, 2);  // 126 of 128x192 as C^T, not 124 of 128x256
    EXPECT_TRUE(rows.transposed);
    EXPECT_EQ(rows.shape.rows, 128);
    EXPECT_EQ(rows.shape.columns, 192);
    EXPECT_EQ(rows.waves, 1);
    EXPECT_TRUE(choose(7335, 737, 6144, 132, 2).transposed);  // 128x168 as C^T, none shared
    // N % 8 == 0: C^T for a quarter less per SM (7892x384x2048: 192 columns instead of 256),
    // not for 11% (562x6112x1912 keeps 128x144 and its TMA store), nor at K = 512.
    EXPECT_TRUE(choose(7892, 384, 2048, 132, 2).transposed);
    const auto stored = choose(562, 6112, 1912, 132, 2);
    EXPECT_FALSE(stored.transposed);
    EXPECT_EQ(stored.shape.columns, 144);
    EXPECT_FALSE(choose(8176, 384, 512, 132, 2).transposed);
}

TEST(TileChoice, ThreeRowsCountTheClustersThatAnOddKLaunches) {
    using ladder::tile_choice::choose;
    // K % 64 != 0 pairs the default's rows in clusters: 39 columns of three rows would make
    // two waves of clusters, so a short N keeps two columns of 64x128 (clusters along M).
    const auto paired = choose(3742, 184, 2920, 132, 2);
    EXPECT_EQ(paired.shape.rows, 64);
    EXPECT_EQ(paired.shape.columns, 128);
    EXPECT_FALSE(paired.transposed);
    // cluster1 launches no clusters: the same problem makes one wave of three rows, as C^T.
    const auto plain = choose(3742, 184, 2920, 132, 1);
    EXPECT_EQ(plain.shape.rows, 64);
    EXPECT_EQ(plain.shape.columns, 96);
    EXPECT_TRUE(plain.transposed);
    // Up to 33 columns the pairs still make one wave.
    EXPECT_EQ(choose(166, 2328, 2728, 132, 2).shape.columns, 96);
}
