// planner_model.cpp: the time model of the planner (predict()), the machine file reader and
// step 07's per-shape choice. Read predict() top to bottom: one k-block, then one tile, then
// the whole grid. Every constant it uses is a field of Machine, measured by ladder-probe
// (common/models/probe.cu) on the GPU at hand or, for the H100, taken from
// results/h100/machine.json.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "planner.h"
#include "stream_k.h"
#include "tile_choice.h"

namespace ladder::plan {
namespace {

constexpr int kBytesPerElement = 2;  // bf16 A, B and C
constexpr int kWarpTile = 64;        // steps 02-04: each warp owns a 64x64 piece of the CTA tile
constexpr double kWorthNaming = 0.90;
constexpr int kSchedulersPerSm = 4;  // Hopper (and Ampere): 4 SM sub-partitions, one warp scheduler each
// Dense bf16 FLOP per clock per SM of Hopper's tensor cores (4 x 512 FMA): the full rate the
// power model's busy fraction is measured against, as ladder-probe measures it.
constexpr double kDensePeakFlopPerClk = 4096;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

bool uses_mma_sync(Structure s) { return s == Structure::MmaSyncCpAsync || s == Structure::MmaSyncTma; }

}  // namespace

const char* structure_name(Structure s) {
    switch (s) {
        case Structure::MmaSyncCpAsync: return "cp.async + mma.sync";
        case Structure::MmaSyncTma: return "TMA + mma.sync";
        case Structure::WgmmaInline: return "wgmma, consumers refill";
        case Structure::WarpSpecialized: return "warp-specialized";
        case Structure::PingPong: return "warp-specialized ping-pong";
        case Structure::Persistent: return "persistent, TMA store";
    }
    return "?";
}

bool structure_of_step(int number, const std::string& variant, Structure* out) {
    switch (number) {
        case 2: *out = Structure::MmaSyncCpAsync; return true;
        case 3:
        case 4: *out = Structure::MmaSyncTma; return true;
        case 5: *out = Structure::WgmmaInline; return true;
        case 6: *out = variant == "pingpong" ? Structure::PingPong : Structure::WarpSpecialized; return true;
        case 7: *out = Structure::Persistent; return true;
        default: return false;
    }
}

bool step_candidate(int number, const std::string& variant, Candidate* out) {
    Candidate c;
    if (!structure_of_step(number, variant, &c.structure)) return false;
    // The constants at the top of each step's gemm.cu (a CPU test compares them with the
    // tile_config() of every step built): a 128x256x64 tile everywhere.
    c.bm = 128, c.bn = 256, c.bk = 64, c.cluster = 1;
    switch (number) {
        case 2: c.stages = 3, c.consumer_warpgroups = 0, c.threads = 256; break;
        case 3: c.stages = 1, c.consumer_warpgroups = 0, c.threads = 256; break;
        case 4: c.stages = 4, c.consumer_warpgroups = 0, c.threads = 256; break;
        case 5: c.stages = 4, c.consumer_warpgroups = 2, c.threads = 256; break;
        case 6: c.stages = variant == "pingpong" ? 5 : 4, c.consumer_warpgroups = 2, c.threads = 384; break;
        default:
            c.stages = 4, c.consumer_warpgroups = 2, c.threads = 384;
            c.cluster = variant == "cluster1" ? 1 : variant == "cluster4" ? 4 : 2;
    }
    // The variants that change what a k-block issues (each variant file's VARIANT comments):
    // 02 pipeline copies through cuda::memcpy_async; 03 bulk1d issues one 1-D bulk copy per
    // 128-byte row (BM + BN of them) into an unswizzled tile, which ldmatrix reads with 8-way
    // bank conflicts; 07 cg releases each stage to the cluster with a .release.cluster
    // arrive, a GPU-wide MEMBAR per k-block (with clusters only: alone a CTA arrives locally).
    if (number == 2 && variant == "pipeline") c.memcpy_async = true;
    if (number == 3 && variant == "bulk1d") c.copies_per_kblock = c.bm + c.bn, c.smem_conflict_ways = 8;
    if (number == 7 && variant == "cg") c.gpu_fence_per_kblock = true;
    *out = c;
    return true;
}

// Step 07's default variant (every_shape/every_shape.cu) chooses its launch per shape: clusters where
// tile_choice::launches_clusters says so (more than six waves of tiles, or rows of A and B not 128-byte
// aligned), and the L tiles of the last, partial wave have their k-blocks laid end to end and
// shared by S clusters (stream-K) where stream_k::sharing_clusters (stream_k.h, the kernel's
// own rule) says so, or, for few tiles with a long K, every tile in slices of K (split-K,
// stream_k::split_count). It also computes C^T = B A^T for a problem of few columns (tile_choice.h):
// then `problem` is swapped to the one the kernel computes. The tile is the rule's, or the one
// a "tile<R>x<C>" variant name forces (step-7 --tile RxC), with the stages the kernel's Tile
// holds. The lesson kernel (gemm.cu, and gemm_cg.cu spelled with cooperative groups) has none
// of this: 128x256 tiles, always clusters of 2, every tile whole.
bool step07_forced_tile(const std::string& variant, tile_choice::Shape* tile) {
    int rows = 0, columns = 0;
    char end = 0;
    if (variant.rfind("tile", 0) != 0 ||
        std::sscanf(variant.c_str() + 4, "%dx%d%c", &rows, &columns, &end) != 2)
        return false;
    if (!tile_choice::in_family({rows, columns})) return false;
    *tile = {rows, columns};
    return true;
}

Candidate step07_launch(const Machine& machine, const std::string& variant, Problem* swapped, Candidate c) {
    if (variant == "lesson" || variant == "cg") return c;
    Problem& problem = *swapped;
    const tile_choice::Estimate choice =
        tile_choice::choose(problem.m, problem.n, problem.k, machine.sm_count, c.cluster, true);
    if (choice.transposed) std::swap(problem.m, problem.n);
    tile_choice::Shape tile = choice.shape;
    const bool forced = step07_forced_tile(variant, &tile);
    // The schedule the kernel runs (every_shape.cu, launch): a forced tile's own.
    c.pingpong = tile_choice::pingpong(
        forced ? tile_choice::pingpong_schedule(tile_choice::estimate(problem.m, problem.n, problem.k,
                                                                      machine.sm_count, c.cluster, tile, true),
                                                problem.m, problem.n, problem.k, machine.sm_count, true, false)
               : choice);
    c.bm = tile.rows, c.bn = tile.columns, c.consumer_warpgroups = tile.rows / 64;
    c.threads = (c.consumer_warpgroups + 1) * 128;
    c.stages = tile_choice::stages(tile);
    // Its tensor maps ask for 128-byte L2 requests where K % 64 != 0 (tiles.cuh: with 256, a
    // straddling row fetched twice the bytes the box takes).
    c.line_requests = problem.k % 64 != 0;
    const long long cta_tiles = ceil_div(problem.m, c.bm) * ceil_div(problem.n, c.bn);
    if (!tile_choice::launches_clusters(cta_tiles, machine.sm_count, ceil_div(problem.m, c.bm), problem.k,
                                        c.cluster))
        c.cluster = 1;
    if (machine.sm_count < c.cluster) return c;
    const long long tiles = ceil_div(ceil_div(problem.m, c.bm), c.cluster) * ceil_div(problem.n, c.bn);
    const long long resident = resident_clusters(machine, c.cluster);
    const long long leftover = tiles % resident, k_blocks = ceil_div(problem.k, c.bk);
    // Few tiles with a long K: split-K in one wave (stream_k::split_count, the kernel's rule),
    // which the model counts as every tile cut into that many slices. The reduce kernel that
    // follows (a programmatic dependent launch: its launch overlaps this grid's tail) is
    // charged as a shared tile's fixup (predict(): every slice's fp32 partials stored, and
    // read back one slice after another at the rate one SM loads), not as a kernel of its own.
    if (!tile_choice::shares(tile)) return c;  // 192x192 shares no tile (tile_family.h)
    if (const int splits = stream_k::split_count(tiles, resident, k_blocks); splits > 1) {
        c.split_k = splits;
        return c;
    }
    if (leftover == 0) return c;
    const bool one_tile_row = ceil_div(problem.m, c.bm) == 1;
    const bool exceeds_l2 = stream_k::last_wave_exceeds_l2(
        tiles, resident, ceil_div(ceil_div(problem.m, c.bm), c.cluster), ceil_div(problem.n, c.bn),
        std::max(tile_choice::kGroupMTiles / c.cluster, 1LL), static_cast<long long>(c.bm) * c.cluster, c.bn,
        problem.k);
    const bool narrow = stream_k::narrow_wave(cta_tiles, machine.sm_count, k_blocks, c.bm);
    const bool feed_bound =
        stream_k::feed_bound_wave(ceil_div(problem.m, c.bm), ceil_div(problem.n, c.bn),
                                  machine.dram_tbps > 0 ? machine.dram_tbps * 1e3 : stream_k::kH100DramGBps);
    const int sharing =
        stream_k::sharing_clusters(leftover, k_blocks, resident, one_tile_row, exceeds_l2, narrow, feed_bound);
    if (sharing > 0) c.stream_k = sharing;
    return c;
}

Plan plan_step(const Machine& machine, int number, const std::string& variant, const Problem& problem) {
    Candidate c;
    if (!step_candidate(number, variant, &c)) {
        Plan p;
        p.machine = machine;
        p.problem = problem;
        p.limiter = "not modeled";
        return p;
    }
    Problem launched = problem;
    if (number == 7) c = step07_launch(machine, variant, &launched, c);
    Plan p = evaluate(machine, launched, c);
    if (c.pingpong && p.fits) {  // the tile's resources as evaluated, but no time
        p.modeled = false;
        p.prediction = Prediction{};
        p.limiter = "the every-shape kernel's ping-pong schedule";
    }
    return p;
}

double line_requests_per_row(long long k) {
    // Row r starts at r x 2K bytes: on a line boundary every 128 / gcd(2K, 128) rows.
    long long a = 2 * k, b = 128;
    while (b != 0) a %= b, std::swap(a, b);
    return 2.0 - static_cast<double>(a) / 128.0;
}

// ---- predict(): one k-block, one tile, the grid ---------------------------------------------
namespace {
Prediction predict_at(const Machine& m, const Problem& problem, const Candidate& c, int ctas_per_sm,
                      double clock_mhz) {
    Prediction r;
    const double clock = clock_mhz > 0 ? clock_mhz : m.load_clock_mhz;
    const bool mma_sync = uses_mma_sync(c.structure);
    const double flop_rate = mma_sync ? m.mma_sync_flop_per_clk : m.wgmma_flop_per_clk;
    if (clock <= 0 || flop_rate <= 0 || m.l2_tma_tbps <= 0 || m.tma_one_sm_gbps <= 0 || c.bk <= 0 ||
        c.stages <= 0 || ctas_per_sm <= 0 || c.split_k < 1 || m.sm_count <= 0)
        return r;
    r.clock_mhz = clock;
    const double ghz = clock * 1e-3;
    const int split = c.split_k;

    // Work units: output tiles (times the split of K). Ping-pong (06 gemm_pingpong.cu) runs
    // a tile's two 64-row halves one after the other through one ring, each half's K loop on
    // its own consumer: its unit is the tile, and what the model calls its k-block is one
    // fill, a half's k-block (64 x BN x BK), 2 x K/BK of them per tile, or K/BK where the
    // lower half lies wholly below C (M <= 64: the kernel skips it).
    // The persistent grid (07) shares only the k-blocks of its last, partial wave's tiles:
    // its clusters run full_rounds whole tiles each, then `sharing` of them a run of
    // k_blocks of the leftover tiles (split_k > 1 without stream_k: each cut in split_k).
    const long long tiles_m = ceil_div(ceil_div(problem.m, c.bm), c.cluster) * c.cluster;
    const long long tiles = tiles_m * ceil_div(problem.n, c.bn);
    const long long full_k_blocks = ceil_div(problem.k, c.bk);
    const long long resident = std::max(1, resident_clusters(m, c.cluster));
    const long long leftover = tiles / c.cluster % resident;
    long long sharing = 0;
    if (c.structure == Structure::Persistent && leftover > 0)
        sharing = c.stream_k > 0 ? c.stream_k : split > 1 ? std::min(leftover * split, resident) : 0;
    const long long cut = c.structure == Structure::Persistent ? 1 : split;  // slices of every tile
    const long long full_rounds = sharing > 0 ? tiles / c.cluster / resident : 0;
    const long long units = sharing > 0 ? sharing * c.cluster : tiles * cut;
    const bool pingpong = c.structure == Structure::PingPong;
    const long long halves = !pingpong ? 1 : problem.m <= c.bm / 2 ? 1 : 2;
    const long long tile_k_blocks = full_k_blocks * halves;  // a tile's k-blocks (fills, for ping-pong)
    const long long k_blocks =
        sharing > 0 ? ceil_div(leftover * full_k_blocks, sharing) : ceil_div(full_k_blocks, cut) * halves;
    const long long partials_read = sharing > 0 ? stream_k::holders(sharing, leftover) : cut - 1;
    const long long slots = static_cast<long long>(m.sm_count) * ctas_per_sm;
    // The persistent grid (07) runs on the SMs its resident clusters hold.
    const long long grid_sms = c.structure == Structure::Persistent ? resident * c.cluster : m.sm_count;
    r.active_sms = full_rounds > 0 ? static_cast<int>(grid_sms)
                                   : static_cast<int>(std::min<long long>(grid_sms, ceil_div(units, ctas_per_sm)));

    // 1. One k-block on one SM (all CTAs of the SM together).
    const double a_rows = pingpong ? c.bm / 2.0 : c.bm, b_rows = c.bn;
    const double flops = 2.0 * a_rows * c.bn * c.bk * ctas_per_sm;
    // Every CTA receives its whole stage into its own shared memory (`bytes`); the L2 reads
    // less where a cluster multicasts: each CTA of a cluster loads 1/cluster of the B tile
    // and the TMA unit delivers it to all of them (`l2_bytes`).
    const double bytes = (a_rows + b_rows) * c.bk * kBytesPerElement * ctas_per_sm;
    const double l2_bytes = (a_rows + b_rows / std::max(1, c.cluster)) * c.bk * kBytesPerElement * ctas_per_sm;
    double issue_clk = flops / flop_rate;
    if (mma_sync) {
        // mma.sync runs on the tensor pipe, ldmatrix (and 02's cp.async) on the shared-memory
        // pipe: two pipes, fed by the same warps. A warp's MMAs wait for its own fragments,
        // so a scheduler's tensor pipe idles only while every warp it holds waits on loads:
        // with W warps per scheduler taking turns, 1/W of the shared-memory pipe's time
        // stays exposed (W = 1: the sum; many warps: the larger of the two).
        // ldmatrix: each warp reads its 64-row slab of A and of B per k-block.
        const int warps = std::max(1, c.threads / 32);
        const double warps_per_scheduler = std::max(1.0, static_cast<double>(warps) / kSchedulersPerSm);
        const int warps_m = std::max(1, c.bm / kWarpTile);
        const int warps_n = std::max(1, warps / warps_m);
        const double ldsm = static_cast<double>(c.bk) * kBytesPerElement * (c.bm * warps_n + c.bn * warps_m);
        // cp.async (02) goes through the same shared-memory pipe as ldmatrix: its bytes add.
        const double copied = c.structure == Structure::MmaSyncCpAsync
                                  ? (a_rows + b_rows) * c.bk * kBytesPerElement : 0.0;
        // An n-way bank conflict replays each ldmatrix n times: the pipe moves the bytes n
        // times over (03 bulk1d's unswizzled tile: 8 rows 128 bytes apart share 4 banks). The
        // pipe's own time is a floor: once it exceeds W x the math, no warp hides it.
        const double smem_clk = (ldsm * std::max(1, c.smem_conflict_ways) + copied) * ctas_per_sm /
                                m.ldmatrix_bytes_per_clk;
        issue_clk = std::max(issue_clk + smem_clk / warps_per_scheduler, smem_clk);
        if (c.memcpy_async && c.structure == Structure::MmaSyncCpAsync) {
            // cuda::memcpy_async (02 pipeline) checks at run time that its generic pointers
            // are global and shared, and branches per 16-byte chunk where cp.async takes a
            // predicate: memcpy_async_issue_clk more issue slots per warp-wide copy, in the
            // same warps' instruction stream as the MMAs. A scheduler's W warps issue
            // (A + B bytes) / 16 / 32 / warps copies each per k-block.
            const double copies_per_warp = (a_rows + b_rows) * c.bk * kBytesPerElement / 16.0 / 32.0 / warps;
            issue_clk += warps_per_scheduler * copies_per_warp * m.memcpy_async_issue_clk * ctas_per_sm;
        }
    }
    // wgmma steps: each k-block also pays the consumers' turn between two k-blocks (wait for
    // the full barrier, wgmma.fence, commit, wait_group, release the slot), cycles in which
    // the tensor pipe idles (wgmma_kblock_overhead_clk, planner.h).
    if (!mma_sync) issue_clk += m.wgmma_kblock_overhead_clk;
    r.issue_ns = issue_clk / ghz;
    // 07 cg with clusters: a GPU-scope release fence between two k-blocks of each consumer
    // (SASS MEMBAR.ALL.GPU before the remote arrive) waits until the warpgroup's earlier
    // memory operations are visible GPU-wide before the next k-block's wgmma issues. The
    // model takes it that the tensor pipe idles for the whole fence every k-block (not
    // hidden under the wgmma still running): the cg rows measure that, not a probe.
    if (c.gpu_fence_per_kblock && c.cluster > 1) r.issue_ns += m.gpu_fence_ns;
    // The feed: the L2's read bandwidth, shared by the SMs that are loading, for the bytes
    // the L2 reads; and no more into one SM than one SM can take in alone.
    // A GEMM's CTAs read each A and B tile several at a time (the CTAs of one tile row or
    // column): the L2 delivers such reads at l2_tma_shared_tbps, twice what it gives SMs
    // that each read their own lines (l2_tma_tbps) on the H200, where it is measured. And
    // they read while their tensor cores run, which slows the same stream by 30% there
    // (l2_tma_shared_loaded_tbps): the rate the model charges where the probe measured it.
    double l2_tbps = m.l2_tma_shared_loaded_tbps > 0 ? m.l2_tma_shared_loaded_tbps
                     : m.l2_tma_shared_tbps > 0      ? m.l2_tma_shared_tbps
                                                     : m.l2_tma_tbps;
    if (c.structure == Structure::MmaSyncCpAsync && m.l2_cp_async_tbps > 0) l2_tbps = m.l2_cp_async_tbps;
    // Rows of A and B are K x 2 bytes apart. Where that is not a multiple of the 128-byte L2
    // line, a box's 128-byte row straddles two lines unless it happens to start on one
    // (every 128 / gcd(2K, 128)-th row does), and with 128-byte requests (line_requests) the
    // TMA unit and the L2 move both lines for it: what the SM requests (its A box and its
    // slice of the cluster's B box) costs `lines` times its bytes, in the SM's TMA unit and in
    // the L2; what multicast delivers into its shared memory from its peers' requests does
    // not. With 256-byte requests the second line of a straddling row is the next k-block's,
    // fetched once: no extra cost.
    const double lines = c.line_requests ? line_requests_per_row(problem.k) : 1.0;
    auto feed = [&](double sms_loading) {  // ns for one k-block's bytes
        return std::max(std::max(bytes, lines * l2_bytes) / m.tma_one_sm_gbps,
                        lines * l2_bytes / (l2_tbps * 1e3 / sms_loading));
    };
    r.feed_ns = feed(r.active_sms);
    const double latency = c.structure == Structure::MmaSyncCpAsync && m.cp_async_latency_ns > 0
                               ? m.cp_async_latency_ns : m.tma_latency_ns;
    // Little's law for the ring: a stage goes round fill -> math -> release; the k-block rate
    // is the stages ahead of the math over that round trip. The producer warpgroup (06, 07)
    // and the TMA thread of 03-04 refill a slot as soon as it is released: all stages. With
    // cp.async (02) the warps issue the next copy before waiting for the oldest: stages - 1.
    // In 05 the consumers refill a slot only once wait_group 1 says the wgmma that read it is
    // done, one k-block later: stages - 2 ahead of the math.
    // Ping-pong: a stage is one fill with one reader, refilled by the producer as soon as its
    // consumer releases it: all stages ahead, as in the cooperative schedule.
    double ahead = c.stages;
    if (c.structure == Structure::MmaSyncCpAsync) ahead = c.stages - 1;
    if (c.structure == Structure::WgmmaInline) ahead = c.stages - 2;
    ahead = std::max(ahead, 1.0);
    const double stage_bytes = bytes;
    // A TMA stage is the copy requests one CTA issues for it: two boxes, or one 1-D bulk copy
    // per row (03 bulk1d), each passing the SM's TMA unit one after the other before the
    // bytes flow (tma_request_ns each). cp.async (02) has no such unit: its copies are the
    // shared-memory pipe's bytes above.
    const double requests_ns = c.structure == Structure::MmaSyncCpAsync
                                   ? 0.0 : c.copies_per_kblock * ctas_per_sm * m.tma_request_ns;
    // A stage's fill is the latency plus its bytes at the rate this SM gets: the L2 bandwidth
    // shared by the SMs loading at that moment, each loading for the fraction `busy` of a
    // k-block (1 when the ring streams, a third for step 03's single stage), never more than
    // one SM alone. The fill and the k-block time depend on each other: iterate to agreement.
    r.kblock_ns = std::max(r.issue_ns, r.feed_ns);
    for (int i = 0; i < 50; ++i) {
        const double busy = std::min(1.0, r.feed_ns / r.kblock_ns);
        r.fill_ns = latency + requests_ns + feed(r.active_sms * busy) * stage_bytes / bytes;
        r.ring_ns = (r.fill_ns + r.issue_ns + m.mbarrier_round_trip_ns) / ahead;
        r.kblock_ns = std::max({r.issue_ns, r.feed_ns, r.ring_ns});
    }

    // 2. One tile: the first stage's fill, the k-blocks, the epilogue. The epilogue's store
    // rate is the SM's share of the GPU-wide store bandwidth of the way the step stores C:
    // bf16 pairs straight from the accumulators (02-05), 16-byte rows staged through shared
    // memory (06), TMA stores (07).
    double store_tbps = m.store4_tbps, store_one_sm = m.store4_one_sm_gbps;
    if (c.structure == Structure::WarpSpecialized) store_tbps = m.store16_tbps, store_one_sm = m.store16_one_sm_gbps;
    if (c.structure == Structure::Persistent) store_tbps = m.tma_store_tbps, store_one_sm = m.tma_store_one_sm_gbps;
    // The stores of a tile are predicated on C's bounds (a TMA store clips its box): a problem
    // narrower than the tile stores only its rows and columns, on every SM, so its busiest
    // SM's epilogue writes min(BM, M) x min(BN, N) elements. Wider problems have whole tiles.
    const double stored_rows = std::min<double>(c.bm, problem.m), stored_columns = std::min<double>(c.bn, problem.n);
    const double c_bytes = stored_rows * stored_columns * kBytesPerElement;
    // Ping-pong stores straight from the accumulators (4-byte stores: its ring is still in
    // use), and only the second half's store is exposed: the first runs under the second
    // half's K loop. Its 64 rows are those of C below the first half's (all of the tile's
    // where M <= 64: the lower half is skipped, the upper one is the last).
    const double exposed_bytes =
        !pingpong ? c_bytes
                  : (halves == 1 ? stored_rows : std::min(c.bm / 2.0, stored_rows - c.bm / 2.0)) * stored_columns *
                        kBytesPerElement;
    // An epilogue takes the longer of two times. The GPU's: its store rate is shared by the
    // SMs storing at once, all of them in a full wave, only the busiest wave's in a grid of
    // few tiles (where the probe measured what one SM stores alone; else as if every SM
    // stored). The SM's own, where the probe measured it: 06 and 07 first stage C in shared
    // memory, each consumer writing its bf16 piece of the tile there from the accumulators
    // and waiting at a barrier, then 06 reads it back as 16-byte rows and 07's TMA store
    // reads it as it stores; that pass through the SM's shared-memory pipe
    // (ldmatrix_bytes_per_clk: the tile's bytes twice in 06, once in 07) comes before the
    // SM's stores, which go at most at the rate one SM stores alone. Where many SMs store,
    // the GPU's rate is the longer: while one SM stages, the others' stores keep it busy.
    // Where few do, each SM's own time is: staging is a third of 06's epilogue at 512^3.
    const double tile_bytes = static_cast<double>(c.bm) * c.bn * kBytesPerElement;
    auto store_ns = [&](double stored) {
        if (store_tbps <= 0) return 0.0;
        if (store_one_sm <= 0) return stored / (store_tbps * 1e3 / m.sm_count);
        const double gpu_ns = stored / (store_tbps * 1e3 / std::max(1, r.active_sms));
        double staging_ns = 0;
        if (m.ldmatrix_bytes_per_clk > 0 && c.structure == Structure::WarpSpecialized)
            staging_ns = (tile_bytes + stored) / m.ldmatrix_bytes_per_clk / ghz;
        if (m.ldmatrix_bytes_per_clk > 0 && c.structure == Structure::Persistent)
            staging_ns = tile_bytes / m.ldmatrix_bytes_per_clk / ghz;
        return std::max(gpu_ns, stored / store_one_sm + staging_ns);
    };
    r.epilogue_ns = ctas_per_sm * store_ns(exposed_bytes);
    if (partials_read > 0) {
        // A shared tile (07's stream-K, or split-K): every holder but the owner writes its
        // fp32 partial tile with 16-byte stores, all SMs at once; then the owner reads the
        // partials one after the other at the rate one SM loads from L2 alone, adds, and
        // stores C.
        const double partial_bytes = static_cast<double>(c.bm) * c.bn * 4.0;
        r.epilogue_ns += partial_bytes / (m.store16_tbps * 1e3 / m.sm_count) +
                         partials_read * partial_bytes / m.tma_one_sm_gbps;
    }
    r.prologue_ns = r.fill_ns;
    r.k_blocks = k_blocks;
    const double loop_ns = static_cast<double>(k_blocks) * r.kblock_ns;

    // 3. The grid. A grid of one CTA per tile runs in waves, each as long as a tile; the
    // persistent grid of 07 pays the prologue once per SM and hides the next tile's fill
    // behind the epilogue, so its busiest SM runs ceil(units / SMs) loops and epilogues
    // (after its full_rounds whole tiles, when the last wave is shared).
    r.launch_ns = m.launch_us * 1e3;
    // The first fill of the grid comes from DRAM: a run's inputs are not in the L2 (the
    // benchmark cycles input sets three times the L2's size). Where the probe measured a TMA
    // load's latency from DRAM, the first fill waits that long instead of an L2 hit's; the
    // later fills find most of their lines in the L2, or are hidden behind the ring.
    const double cold_ns = m.tma_dram_latency_ns > latency ? m.tma_dram_latency_ns - latency : 0.0;
    if (c.structure == Structure::Persistent) {
        r.rounds = full_rounds + ceil_div(units, grid_sms);
        r.tile_ns = loop_ns + r.epilogue_ns;
        const double whole_tile_ns = full_k_blocks * r.kblock_ns + store_ns(c_bytes);
        r.total_us = (r.launch_ns + cold_ns + r.prologue_ns + full_rounds * whole_tile_ns +
                      ceil_div(units, grid_sms) * r.tile_ns) * 1e-3;
    } else {
        r.rounds = ceil_div(units, slots);
        r.tile_ns = r.prologue_ns + loop_ns + r.epilogue_ns;
        r.total_us = (r.launch_ns + cold_ns + r.rounds * r.tile_ns) * 1e-3;
    }
    // Compulsory DRAM traffic sets a floor: A and B are read once, while the k-loops run, so
    // the loops take at least that long; the first fill comes before them and the last
    // epilogue (which writes C) after them.
    const double M = static_cast<double>(problem.m), N = static_cast<double>(problem.n),
                 K = static_cast<double>(problem.k);
    double dram_bytes = (M * K + N * K) * kBytesPerElement;
    // A grid of one CTA per tile launches its tiles in order, one dimension fastest (02-05:
    // along N, 06: along M): a tile of the fast dimension's operand is read again by the CTA
    // F = (its tiles) launches later, the next row (column) of tiles. In between, the grid
    // moves through the L2 F / slots of what it moves per round of slots CTAs: the fast
    // operand's tiles in flight, the other operand's tiles of the rows those span, and the
    // C tiles written. Where that reuse distance exceeds the L2, the tile is gone by then
    // and every CTA reads its fast-operand tile from DRAM (the other operand's tiles, reused
    // by the next CTA, stay); else the fast operand comes from DRAM once.
    if (c.structure != Structure::Persistent && m.l2_bytes > 0 && r.rounds > 1) {
        const bool n_fastest = c.structure != Structure::WarpSpecialized && !pingpong;
        const long long fast_tiles = n_fastest ? ceil_div(problem.n, c.bn) : tiles_m;
        const double fast_tile = (n_fastest ? c.bn : c.bm) * K * kBytesPerElement;
        const double slow_tile = (n_fastest ? c.bm : c.bn) * K * kBytesPerElement;
        const double c_tile = static_cast<double>(c.bm) * c.bn * kBytesPerElement;
        const double per_round = std::min<double>(fast_tiles, slots) * fast_tile +
                                 (ceil_div(slots, fast_tiles) + 1) * slow_tile + slots * c_tile;
        const double reuse_bytes = static_cast<double>(fast_tiles) / slots * per_round;
        if (reuse_bytes > static_cast<double>(m.l2_bytes))
            dram_bytes = std::max(dram_bytes, static_cast<double>(tiles) * fast_tile + (n_fastest ? M : N) * K *
                                                                                           kBytesPerElement);
    }
    // At the rate a GEMM's reads get from DRAM where the probe measured it: rows of A and B
    // 2 x K bytes apart, 128 bytes of each per box, do not stream as a copy does.
    const double dram_read_tbps = m.dram_read_tbps > 0 ? m.dram_read_tbps : m.dram_tbps;
    r.dram_ns = dram_read_tbps > 0 ? dram_bytes / (dram_read_tbps * 1e3) : 0;
    const double dram_floor_ns = r.launch_ns + cold_ns + r.prologue_ns + r.dram_ns + r.epilogue_ns;
    const bool dram_bound = dram_floor_ns > r.total_us * 1e3;
    if (dram_bound) r.total_us = dram_floor_ns * 1e-3;
    r.tflops = 2.0 * M * N * K / (r.total_us * 1e-6) * 1e-12;

    // 4. The limiter: the term that sets the k-block time, unless the grid loses more.
    if (dram_bound) {
        r.limiter = "DRAM bandwidth";
    } else {
        if (r.kblock_ns == r.issue_ns)
            r.limiter = mma_sync ? "mma.sync + ldmatrix issue" : "wgmma issue";
        else if (r.kblock_ns == r.feed_ns)
            r.limiter = "L2->SM bandwidth";
        else
            r.limiter = "load latency: too few stages ahead";
        // busy: the k-blocks of work over what the SMs could run in the rounds they take.
        const double capacity = static_cast<double>(c.structure == Structure::Persistent ? grid_sms : slots) *
                                (full_rounds * full_k_blocks + (r.rounds - full_rounds) * k_blocks);
        const double busy = static_cast<double>(tiles) * tile_k_blocks / capacity;
        // loop_share: the busiest SM's k-loops over its time after the launch.
        const double loops_ns = (full_rounds * full_k_blocks + (r.rounds - full_rounds) * k_blocks) * r.kblock_ns;
        const double loop_share = loops_ns / (r.total_us * 1e3 - r.launch_ns);
        if (busy < kWorthNaming && busy <= loop_share)
            r.limiter = "wave quantization";
        else if (loop_share < kWorthNaming)
            r.limiter += ", then prologue/epilogue";
    }
    // The tensor pipe's busy fraction over the run: the FLOP it executes (whole tiles, edge
    // tiles padded) over what all SMs could do at this clock in that time.
    const double executed = 2.0 * tiles_m * c.bm * ceil_div(problem.n, c.bn) * c.bn * full_k_blocks * c.bk;
    r.tensor_busy = executed / (r.total_us * 1e-6 * m.sm_count * clock * 1e6 * kDensePeakFlopPerClk);
    // The memory traffic over the run, which draws power too: every k-block's stage read from
    // the L2 (a multicast B slab once per cluster: the L2 reads it once, the crossbar carries
    // it once to the cluster's GPC), and the DRAM reads above plus C written once.
    const double l2_stage_bytes = lines * (a_rows + b_rows / std::max(1, c.cluster)) * c.bk * kBytesPerElement;
    r.l2_traffic_tbps = static_cast<double>(tiles) * tile_k_blocks * l2_stage_bytes / (r.total_us * 1e6);
    r.dram_traffic_tbps = (dram_bytes + M * N * kBytesPerElement) / (r.total_us * 1e6);
    r.valid = true;
    return r;
}
}  // namespace

Prediction predict(const Machine& m, const Problem& problem, const Candidate& c, int ctas_per_sm,
                   double clock_mhz) {
    if (clock_mhz > 0 || !has_power_model(m)) return predict_at(m, problem, c, ctas_per_sm, clock_mhz);
    // The clock where board power meets the limit: the run's tensor-pipe activity at clock f
    // comes from the time model at f (memory-bound terms do not speed up with the clock).
    const bool mma_sync = uses_mma_sync(c.structure);
    auto activity = [](const Prediction& at) {
        return at.valid ? Activity(at.tensor_busy, at.l2_traffic_tbps, at.dram_traffic_tbps) : Activity();
    };
    const double clock = clock_under_power_limit(m, mma_sync, problem.zero_inputs, [&](double f) {
        return activity(predict_at(m, problem, c, ctas_per_sm, f));
    });
    Prediction r = predict_at(m, problem, c, ctas_per_sm, clock);
    r.power_limited = clock < m.sm_clock_max_mhz;
    r.power_w = board_power_w(m, clock, activity(r), mma_sync, problem.zero_inputs);
    return r;
}

double loop_power_w(const Machine& m, const std::vector<LoopKernel>& kernels, double idle_ns_per_round,
                    double f) {
    if (!has_power_model(m) || kernels.empty()) return 0;
    // A round's energy over its time at clock f: each kernel's time and power from the time
    // model at f (a memory-bound kernel's time does not follow f), the idle part at P_idle.
    double joules = m.power_idle_w * idle_ns_per_round, ns = idle_ns_per_round;
    for (const LoopKernel& k : kernels) {
        const Prediction r = predict_at(m, k.problem, k.candidate, k.ctas_per_sm, f);
        if (!r.valid) continue;
        const Activity a(r.tensor_busy, r.l2_traffic_tbps, r.dram_traffic_tbps);
        joules += board_power_w(m, f, a, uses_mma_sync(k.candidate.structure), k.problem.zero_inputs) *
                  r.total_us * 1e3;
        ns += r.total_us * 1e3;
    }
    return ns > 0 ? joules / ns : 0.0;
}

double loop_clock_mhz(const Machine& m, const std::vector<LoopKernel>& kernels, double idle_ns_per_round) {
    if (!has_power_model(m) || kernels.empty()) return 0;
    auto average_power = [&](double f) { return loop_power_w(m, kernels, idle_ns_per_round, f); };
    const double top = m.sm_clock_max_mhz;
    if (average_power(top) <= m.power_limit_w) return top;
    double lo = 0.2 * top, hi = top;  // as clock_under_power_limit
    for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (lo + hi);
        (average_power(mid) > m.power_limit_w ? hi : lo) = mid;
    }
    return lo;
}

bool has_memory_power(const Machine& m) { return m.power_l2_w_per_tbps > 0 || m.power_dram_w_per_tbps > 0; }

bool has_power_model(const Machine& m) {
    return m.sm_clock_max_mhz > 0 && m.power_limit_w > 0 && m.power_idle_w > 0 && m.power_idle_w < m.power_limit_w &&
           m.power_busy_w >= 0 && m.power_wgmma_random_w > 0 && m.power_busy_w + m.power_wgmma_zero_w >= 0 &&
           m.power_mma_sync_random_w > 0 && m.power_busy_w + m.power_mma_sync_zero_w >= 0;
}

double board_power_w(const Machine& m, double clock_mhz, const Activity& a, bool mma_sync, bool zero_inputs) {
    // Dynamic power is switched capacitance x V^2 x f; along the GPU's voltage-frequency curve
    // V rises about in proportion to f in the range a power-limited GEMM runs in, hence f^3.
    // A byte moved costs energy C V^2 whatever the clock: the L2's bytes, taken to be on the
    // SMs' voltage, cost (f / f_max)^2 of what they cost at f_max; DRAM's, on HBM's fixed
    // voltage, the same at every SM clock.
    const double op = mma_sync ? (zero_inputs ? m.power_mma_sync_zero_w : m.power_mma_sync_random_w)
                               : (zero_inputs ? m.power_wgmma_zero_w : m.power_wgmma_random_w);
    const double scale = clock_mhz / m.sm_clock_max_mhz;
    return m.power_idle_w + scale * scale * scale * (m.power_busy_w + a.tensor_busy * op) +
           scale * scale * m.power_l2_w_per_tbps * a.l2_tbps + m.power_dram_w_per_tbps * a.dram_tbps;
}

double memory_power_w_per_tbps(double idle_w, double clock_max_mhz, double base_w, const PowerSample& sample,
                               double tbps, double known_w, bool follows_sm_voltage) {
    const double scale = sample.clock_mhz / clock_max_mhz;
    const double left = sample.power_w - idle_w - scale * scale * scale * base_w - known_w;
    return left / (tbps * (follows_sm_voltage ? scale * scale : 1.0));
}

double power_at_peak_clock_w(double idle_w, double clock_max_mhz, const PowerSample& sample) {
    const double scale = sample.clock_mhz / clock_max_mhz;
    return (sample.power_w - idle_w) / (scale * scale * scale);
}

bool fit_busy_and_op_power(double idle_w, double clock_max_mhz, const PowerSample& a, const PowerSample& b,
                           double* busy_w, double* op_w, std::string* why) {
    if (!(std::fabs(a.tensor_busy - b.tensor_busy) >= 0.2 * std::max(a.tensor_busy, b.tensor_busy))) {
        *why = "the two busy fractions are too close to separate P_busy from P_op";
        return false;
    }
    const double ya = power_at_peak_clock_w(idle_w, clock_max_mhz, a), yb = power_at_peak_clock_w(idle_w, clock_max_mhz, b);
    *op_w = (ya - yb) / (a.tensor_busy - b.tensor_busy);
    *busy_w = ya - a.tensor_busy * *op_w;
    if (!(*op_w > 0) || !(*busy_w >= 0)) {
        char text[160];
        std::snprintf(text, sizeof text, "P_busy %.4g W and P_op %.4g W: the power does not grow with the busy fraction",
                      *busy_w, *op_w);
        *why = text;
        return false;
    }
    return true;
}

double fit_op_power(double idle_w, double clock_max_mhz, double busy_w, const PowerSample& sample) {
    return (power_at_peak_clock_w(idle_w, clock_max_mhz, sample) - busy_w) / sample.tensor_busy;
}

// ---- Machine files --------------------------------------------------------------------------
std::string device_folder(const std::string& name) {
    std::istringstream in(name);
    std::string word;
    while (in >> word) {
        std::string lower;
        for (char ch : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (lower == "nvidia") continue;
        std::string folder;
        for (char ch : lower)
            if (std::isalnum(static_cast<unsigned char>(ch))) folder += ch;
        if (!folder.empty()) return folder;
    }
    return "unknown";
}

namespace {

// The number after "value": in the object that follows "key" (a flat, hand-written format:
// "key": {"value": 1.5, "unit": "...", "measured": true, "how": "..."}).
bool find_constant(const std::string& text, const std::string& key, double* value, bool* measured) {
    const size_t at = text.find("\"" + key + "\"");
    if (at == std::string::npos) return false;
    const size_t open = text.find('{', at), close = text.find('}', at);
    if (open == std::string::npos || close == std::string::npos || open > close) return false;
    const std::string object = text.substr(open, close - open);
    const size_t v = object.find("\"value\"");
    if (v == std::string::npos) return false;
    const size_t colon = object.find(':', v);
    if (colon == std::string::npos) return false;
    const char* start = object.c_str() + colon + 1;
    char* end = nullptr;
    const double parsed = std::strtod(start, &end);
    if (end == start || !std::isfinite(parsed)) return false;
    *value = parsed;
    *measured = object.find("\"measured\": false") == std::string::npos &&
                object.find("\"measured\":false") == std::string::npos;
    return true;
}

}  // namespace

bool read_machine_file(const std::string& path, Machine* machine, std::string* error) {
    std::ifstream in(path);
    if (!in) {
        *error = "cannot open machine file '" + path + "'";
        return false;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    if (text.find("\"constants\"") == std::string::npos) {
        *error = "'" + path + "' is not a machine file (no \"constants\" object; write one with ladder-probe)";
        return false;
    }
    Machine m = *machine;
    m.not_measured.clear();
    // Each constant with the range a GPU's value can take: a value outside it (a typo, a unit
    // slip, a hand edit) is refused with the range, before it can divide by zero or overflow
    // an int further on. `whole`: a count; `zero_ok`: a power term that may be 0.
    struct Field {
        const char* key;
        double* value;
        bool required;
        double lo, hi;
        bool whole = false, zero_ok = false;
    };
    double sm_count = m.sm_count;
    double clusters_of_2 = m.resident_clusters_of_2, clusters_of_4 = m.resident_clusters_of_4;
    constexpr double kMhz = 10000, kTbps = 1000, kNs = 1e6, kWatts = 1e5;
    const Field fields[] = {
        // 4: the largest cluster a step launches must fit on the GPU.
        {"sm_count", &sm_count, true, 4, 4096, true},
        {"sm_clock_under_load_mhz", &m.load_clock_mhz, true, 1, kMhz},
        {"mma_sync_flop_per_clk_per_sm", &m.mma_sync_flop_per_clk, true, 1, 65536},
        {"wgmma_flop_per_clk_per_sm", &m.wgmma_flop_per_clk, true, 1, 65536},
        {"ldmatrix_bytes_per_clk_per_sm", &m.ldmatrix_bytes_per_clk, false, 1, 4096},
        {"dram_tbps", &m.dram_tbps, true, 1e-3, kTbps},
        {"dram_tma_read_tbps", &m.dram_read_tbps, false, 1e-3, kTbps},
        {"l2_tma_tbps", &m.l2_tma_tbps, true, 1e-3, kTbps},
        {"l2_tma_shared_tbps", &m.l2_tma_shared_tbps, false, 1e-3, kTbps},
        {"l2_tma_shared_loaded_tbps", &m.l2_tma_shared_loaded_tbps, false, 1e-3, kTbps},
        {"l2_cp_async_tbps", &m.l2_cp_async_tbps, true, 1e-3, kTbps},
        {"tma_latency_ns", &m.tma_latency_ns, true, 1e-3, kNs},
        {"tma_one_sm_gbps", &m.tma_one_sm_gbps, true, 1e-3, 1e6},
        {"tma_dram_latency_ns", &m.tma_dram_latency_ns, false, 1e-3, kNs},
        {"cp_async_latency_ns", &m.cp_async_latency_ns, true, 1e-3, kNs},
        {"mbarrier_round_trip_ns", &m.mbarrier_round_trip_ns, true, 1e-3, kNs},
        {"store16_tbps", &m.store16_tbps, true, 1e-3, kTbps},
        {"store4_tbps", &m.store4_tbps, true, 1e-3, kTbps},
        {"tma_store_tbps", &m.tma_store_tbps, true, 1e-3, kTbps},
        {"store16_one_sm_gbps", &m.store16_one_sm_gbps, false, 1e-3, 1e6},
        {"store4_one_sm_gbps", &m.store4_one_sm_gbps, false, 1e-3, 1e6},
        {"tma_store_one_sm_gbps", &m.tma_store_one_sm_gbps, false, 1e-3, 1e6},
        {"launch_us", &m.launch_us, true, 1e-3, 1e6},
        {"tma_request_ns", &m.tma_request_ns, false, 1e-3, kNs},
        {"gpu_fence_ns", &m.gpu_fence_ns, false, 1e-3, kNs},
        {"memcpy_async_issue_clk", &m.memcpy_async_issue_clk, false, 1e-3, 1e6},
        {"wgmma_kblock_overhead_clk", &m.wgmma_kblock_overhead_clk, false, 1e-3, 1e6},
        {"resident_clusters_of_2", &clusters_of_2, false, 1, 2048, true},
        {"resident_clusters_of_4", &clusters_of_4, false, 1, 1024, true},
        {"sm_clock_max_mhz", &m.sm_clock_max_mhz, false, 1, kMhz},
        {"power_limit_w", &m.power_limit_w, false, 1, kWatts},
        {"power_idle_w", &m.power_idle_w, false, 1, kWatts},
        {"power_busy_w", &m.power_busy_w, false, 0, kWatts, false, true},
        {"power_wgmma_random_w", &m.power_wgmma_random_w, false, 0, kWatts, false, true},
        // Zero operands may draw less than the busy term's random data (probe.cu): below 0, down
        // to -power_busy_w (has_power_model).
        {"power_wgmma_zero_w", &m.power_wgmma_zero_w, false, -kWatts, kWatts},
        {"power_mma_sync_random_w", &m.power_mma_sync_random_w, false, 0, kWatts, false, true},
        {"power_mma_sync_zero_w", &m.power_mma_sync_zero_w, false, -kWatts, kWatts},
        // Optional even with the power model (a file the probe wrote before it measured them).
        {"power_l2_w_per_tbps", &m.power_l2_w_per_tbps, false, 0, kWatts, false, true},
        {"power_dram_w_per_tbps", &m.power_dram_w_per_tbps, false, 0, kWatts, false, true},
    };
    auto number = [](double v) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%g", v);
        return std::string(buffer);
    };
    for (const Field& f : fields) {
        double value = 0;
        bool measured = true;
        const std::string where = "machine file '" + path + "': \"" + f.key + "\" ";
        if (!find_constant(text, f.key, &value, &measured)) {
            if (!f.required && text.find(std::string("\"") + f.key + "\"") == std::string::npos) continue;
            *error = where + (f.required ? "is missing or has no numeric \"value\""
                                         : "has no numeric \"value\" (a finite number)");
            return false;
        }
        const bool in_range = f.zero_ok ? value >= 0 && value <= f.hi : value >= f.lo && value <= f.hi;
        if (!in_range || (f.whole && value != std::floor(value))) {
            *error = where + "is " + number(value) + "; it must be " + (f.whole ? "a whole number " : "a number ") +
                     "from " + number(f.zero_ok ? 0 : f.lo) + " to " + number(f.hi);
            return false;
        }
        *f.value = value;
        if (!measured) m.not_measured.push_back(f.key);
    }
    for (const auto& [cluster, count] : {std::pair<int, double>{2, clusters_of_2}, {4, clusters_of_4}})
        if (count * cluster > sm_count) {
            *error = "machine file '" + path + "': \"resident_clusters_of_" + std::to_string(cluster) + "\" is " +
                     number(count) + ", more clusters of " + std::to_string(cluster) + " than " + number(sm_count) +
                     " SMs hold";
            return false;
        }
    // The power model takes all its constants or none: a partial set would predict at a clock
    // no measurement supports.
    const double power[] = {m.sm_clock_max_mhz, m.power_limit_w, m.power_idle_w};
    const bool any_power = std::any_of(std::begin(power), std::end(power), [](double v) { return v > 0; }) ||
                           text.find("\"power_busy_w\"") != std::string::npos || has_memory_power(m);
    if (any_power && !has_power_model(m)) {
        *error = "machine file '" + path + "': the power model needs sm_clock_max_mhz, power_limit_w, power_idle_w "
                 "(below the limit), power_busy_w, power_wgmma_random_w (above 0), power_wgmma_zero_w, "
                 "power_mma_sync_random_w (above 0) and power_mma_sync_zero_w (each zero-operand one at least "
                 "-power_busy_w) together (ladder-probe writes them)";
        return false;
    }
    m.sm_count = static_cast<int>(sm_count);
    m.resident_clusters_of_2 = static_cast<int>(clusters_of_2);
    m.resident_clusters_of_4 = static_cast<int>(clusters_of_4);
    const size_t device = text.find("\"device\"");
    if (device != std::string::npos) {
        const size_t q1 = text.find('"', text.find(':', device) + 1);
        const size_t q2 = q1 == std::string::npos ? q1 : text.find('"', q1 + 1);
        if (q2 != std::string::npos) m.name = text.substr(q1 + 1, q2 - q1 - 1);
    }
    m.source = "machine file " + path;
    *machine = m;
    return true;
}

int resident_clusters(const Machine& machine, int cluster) {
    if (cluster == 2 && machine.resident_clusters_of_2 > 0) return machine.resident_clusters_of_2;
    if (cluster == 4 && machine.resident_clusters_of_4 > 0) return machine.resident_clusters_of_4;
    return machine.sm_count / std::max(1, cluster);
}

// ---- Step 07 per shape ----------------------------------------------------------------------
std::vector<Candidate> step07_candidates(const Machine& machine) {
    std::vector<Candidate> out;
    const int shapes[3][3] = {{128, 256, 2}, {128, 128, 2}, {64, 256, 1}};  // BM, BN, consumer warpgroups
    for (const auto& s : shapes)
        for (int cluster : {1, 2})
            for (int split : {1, 2, 4}) {
                Candidate c;
                c.bm = s[0], c.bn = s[1], c.bk = 64, c.consumer_warpgroups = s[2];
                c.cluster = cluster, c.split_k = split;
                c.threads = (s[2] + 1) * 128;
                c.structure = Structure::Persistent;
                c.stages = std::max(1, max_stages_that_fit(machine, c, 1));
                out.push_back(c);
            }
    return out;
}

Choice choose_config(long long m, long long n, long long k, const Machine& machine,
                     const std::vector<Candidate>& candidates) {
    Choice best;
    bool found = false;
    for (const Candidate& c : candidates) {
        const Plan p = evaluate(machine, Problem{m, n, k}, c);
        if (!p.fits || !p.prediction.valid) continue;
        if (!found || p.prediction.total_us < best.plan.prediction.total_us) {
            best = Choice{c, p};
            found = true;
        }
    }
    return best;
}

}  // namespace ladder::plan
