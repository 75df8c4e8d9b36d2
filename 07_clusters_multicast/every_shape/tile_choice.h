// tile_choice.h: which tile step 07's every-shape kernel runs for a problem (the measurements in
// 07_clusters_multicast/NOTES.md, section 6). One rule for step 07's launch and for the planner, which predicts the kernel
// as it launches. Plain C++ (host only), a few dozen integer operations: it runs on every
// call.
//
// A tile is 64 x CONSUMERS rows (one consumer warpgroup per 64 rows) by 64 to 256 columns.
// The rule counts the tiles of the problem and how full the persistent grid's waves are;
// from those it picks the tile, and whether to compute C^T instead of C. It also says whether
// stream-K (stream_k.h beside this file) shares the last wave, which the kernel decides by the
// same rule.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

#include "stream_k.h"
#include "tile_family.h"  // Shape, the family (kFamily, in_family), stages

namespace ladder::tile_choice {

// The cluster size a tile runs, up to `cluster`: the largest whose B slices (columns /
// cluster rows each) are whole 8-row swizzle atoms of 1024 bytes. Each slice lands at its own
// place in the stage, and the 128B swizzle pattern that wgmma reads back is anchored at
// 1024-byte boundaries. 144 rows cut in 4 would be 36-row slices, so 128x144 runs clusters of
// at most 2; 168 cut in 2 would be 84, so 128x168 runs none.
constexpr int slice_cluster(Shape s, int cluster) {
    return cluster <= 1 || (s.columns / cluster) % 8 == 0 ? cluster : slice_cluster(s, cluster / 2);
}

struct Estimate {
    long long tiles;       // CTA tiles of the problem
    long long waves;       // waves of schedule units (CTAs, or clusters where they launch)
    int sharing_clusters;  // clusters that share the last wave (stream-K), 0 for none
    const char* reason;
    bool transposed;       // computed as C^T = B A^T (see choose)
    Shape shape;           // the tile: 64, 128 or 192 rows (one consumer warpgroup per 64)
    long long units;       // schedule units (cluster tiles where clusters launch, else CTA tiles)
    long long slots;       // units that run at once: resident clusters, or CTAs
    int splits;            // slices of K per tile: 1, or split-K through the reduce kernel
    bool pingpong = false;  // the ping-pong schedule (pingpong_tile below), never in clusters
};

// Whether step 07 launches clusters of `cluster` CTAs (multicasting B) for a problem of
// `cta_tiles` tiles, `tiles_m` of them down each column, on `slots` SMs, with K columns of A
// and B:
//   * above kClusterWaves waves of CTA tiles, where multicast cuts the persistent grid's L2
//     reads over many tiles per SM. Measured on the H100 (NOTES.md, "Both input regimes";
//     results/h100/step07_ablations.csv), the rule's clusters of 2 against the same tiles
//     without: 8192^3 (15.5 waves) 1.045x cuBLAS against 1.040x, 8192x8192x256 0.995x
//     against 0.989x, 6144^3 (8.7) 1.005x against 0.987x on zero inputs; but at 6 waves or
//     fewer the plain launch wins: 4096^3 (3.9) 0.999x against 0.994x, 6144x4096x384 (5.8)
//     1.025x against 1.007x, 2304x4096x2048 (3.0) 0.967x against 0.951x, 1536x4096x4096
//     0.985x against 0.970x, 4096x4096x512 1.000x against 0.975x;
//   * at or below it only where K % 64 != 0: rows of A and B are then not 128-byte aligned,
//     every box row straddles two L2 lines, and multicast halves what B costs. Measured on
//     the H200 (07_clusters_multicast/NOTES.md, section 4): 1000x1992x2056 21.9 us instead of
//     25.5, 2048x2048x2056 29.3 instead of 35.1, 160x8192x4104 34.0 instead of 43.6. It
//     takes at least kOddKClusterKBlocks k-blocks: a short K does not pay for the cluster
//     launch (512x512x520, 9 k-blocks: 8.2 us instead of 7.7). Those shapes all have K % 16
//     == 8: rows 16 bytes off a 32-byte L2 sector, so that every other box row touches five
//     sectors instead of four. Where K % 16 == 0 (kSectorElements) the rows straddle lines but
//     no sector, the L2 moves no more bytes than for K % 64 == 0, and the clusters pay only
//     over more than one wave of tiles. Measured on the H100 (NOTES.md, "Clusters for odd K:
//     sectors, not lines"; results/h100/step07_odd_k_sectors.csv), each rule in its own
//     process, two rounds: without clusters at one wave or less, 1200^3 14.3 us against 15.5,
//     1100x1100x1040 15.7 against 17.4, 2000^3 28.5 against 29.9, and under split-K
//     384x768x16400 28.3 against 35.6, 320x640x12304 21.4 against 24.7, 512x512x16400 25.6
//     against 29.1: 2.5-20% faster on all 15 such shapes; with no clusters above one wave
//     either, 3500x3500x3088 141.3 against 132.0 and 2500x5000x1232 66.5 against 63.2.
// Never with fewer rows of tiles than the cluster has CTAs: the cluster tile's other rows
// would be padding, half the SMs idle (64x28672x4096: 1.034x cuBLAS without clusters, 0.981x
// with, on the H100). Nor with fewer than kClusterMinKBlocks k-blocks: a tile of one k-block
// has nothing for the multicast to share ahead of the math, and the cluster's CTAs wait on
// each other's empty barriers. Measured on the H100 (results/h100/step07_split_k_tiles.log and
// step07_split_k_matrix.log), clusters of 2 against none: 8192x4096x64 29.5 us against 28.3
// (the first), 8192x4096x128 32.5 against 30.8 and 8192x8192x128 62.1 against 59.7 (the
// second); and level at 4 k-blocks (8192x8192x256, above).
// Past one wave of tiles, rows off a sector (K % 16 != 0) take clusters from
// kClusterMinKBlocks k-blocks on, not only from kOddKClusterKBlocks: the launch is then paid
// over several tiles per SM. Measured on the H100 (NOTES.md, "Shapes drawn at random";
// results/h100/step07_short_k_rules.csv), alternating processes, two rounds: on 20 shapes
// drawn at random from those it changes, 13% faster (geometric mean) than without
// (3288x7424x200 34.3-34.5 us against 46.7-46.8 in ping-pong, 3028x2752x328 20.5-20.6 against
// 25.3-25.5); slower where it brought 192x192 to 4 or 5 k-blocks (1087x6734x264 40.8-41.1
// against 37.4-37.6: tile192_fits now refuses a short K) and at 4288x5099x232 (128x256 in
// place of 128x192, 124.5-124.8 against 118.6-118.7). With the short-K rules of
// fuller_transposed and tile192_fits, on 26 unseen shapes the three change: 15% faster, none
// by more than 0.6% slower.
constexpr long long kClusterWaves = 6;
constexpr long long kClusterMinKBlocks = 4;
constexpr long long kOddKClusterKBlocks = 16;
constexpr long long kSectorElements = 16;  // bf16 elements in a 32-byte L2 sector
// The odd-K half of the rule: K % 64 != 0 and enough k-blocks to pay for the cluster launch.
inline bool odd_k_clusters(long long k) { return k % 64 != 0 && (k + 63) / 64 >= kOddKClusterKBlocks; }
inline bool launches_clusters(long long cta_tiles, long long slots, long long tiles_m, long long k,
                              long long cluster) {
    if (cluster <= 1 || tiles_m < cluster || (k + 63) / 64 < kClusterMinKBlocks) return false;
    if (cta_tiles > kClusterWaves * slots) return true;
    if (k % kSectorElements == 0 && cta_tiles <= slots) return false;  // lines, but no sector, straddled
    if (k % kSectorElements != 0 && cta_tiles > slots) return true;  // sectors, past one wave
    return odd_k_clusters(k);
}

// The rows of CTA tiles a band of step 07's grouped order holds (gemm.cu: GROUP_M_TILES).
constexpr long long kGroupMTiles = 16;

// The ping-pong schedule (every_shape.cu): each consumer warpgroup computes a whole tile of
// its own, every other tile of its CTA's sequence, so that one consumer's epilogue runs
// under the other's main loop. A consumer then holds all of the tile's accumulators: 128x128,
// 128 registers a thread (128x256's 256 would not fit). It needs two tiles in most
// CTAs to overlap anything (kPingPongMinWaves waves of tiles), shares no tile between CTAs
// (no stream-K, no split-K) and launches no clusters: against the same tile in clusters of 2,
// 2304x4608x512 ran 23.7 us against 24.5 and 4608x2304x384 20.7 against 21.8, and no shape was
// faster in clusters (NOTES.md, "Ping-pong").
constexpr bool pingpong_tile(Shape s) { return s.rows == 128 && s.columns == 128; }
constexpr double kPingPongMinWaves = 1.5;
inline bool pingpong(const Estimate& e) { return e.pingpong; }
// The ping-pong schedule of an m x n problem in `tile`: every tile a unit of its own, one CTA
// per SM. pingpong is false where the tile cannot or the tiles are too few.
inline Estimate pingpong_estimate(long long m, long long n, Shape tile, int sms) {
    const long long tiles = ((m + tile.rows - 1) / tile.rows) * ((n + tile.columns - 1) / tile.columns);
    Estimate e{tiles, (tiles + sms - 1) / sms, 0, "", false, tile, tiles, sms, 1};
    e.pingpong = pingpong_tile(tile) && static_cast<double>(tiles) >= kPingPongMinWaves * sms;
    return e;
}

// The schedule of a tile on a GPU of `sms` SMs with clusters of `cluster` CTAs, as step 07
// launches it (clusters where launches_clusters says so).
inline Estimate estimate(long long m, long long n, long long k, int sms, int cluster, Shape tile,
                         bool share_last_wave = true, double dram_gbps = stream_k::kH100DramGBps) {
    if (!shares(tile)) share_last_wave = false;  // 192x192: no stream-K, no split-K (tile_family.h)
    const long long tiles_m = (m + tile.rows - 1) / tile.rows;
    const long long tiles_n = (n + tile.columns - 1) / tile.columns;
    const long long tiles = tiles_m * tiles_n;
    const int runs = slice_cluster(tile, cluster);  // the cluster size this tile runs
    const long long unit =  // CTAs per schedule unit
        launches_clusters(tiles, sms, tiles_m, k, runs) ? runs : 1;
    const long long units = ((tiles_m + unit - 1) / unit) * tiles_n;
    const long long slots = sms / unit;  // resident clusters
    const long long leftover = units % slots;
    const bool exceeds_l2 = stream_k::last_wave_exceeds_l2(
        units, slots, (tiles_m + unit - 1) / unit, tiles_n, std::max(kGroupMTiles / unit, 1LL),
        tile.rows * unit, tile.columns, k);
    const int splits = share_last_wave ? stream_k::split_count(units, slots, (k + 63) / 64) : 1;
    if (splits > 1) return {tiles, 1, 0, "", false, tile, units, slots, splits};
    const int sharing =
        share_last_wave ? stream_k::last_wave(leftover, (k + 63) / 64, slots, tiles_m == 1, exceeds_l2,
                                              stream_k::narrow_wave(tiles, sms, (k + 63) / 64, tile.rows),
                                              stream_k::feed_bound_wave(tiles_m, tiles_n, dram_gbps))
                              .clusters
                        : 0;
    return {tiles, units / slots + (leftover ? 1 : 0), sharing, "", false, tile, units, slots, 1};
}

// The share of the computed columns that lie inside C: N over the tiles' columns. Rows past
// M cost little: step 07 gives the last row of tiles an A box of only the rows left. The
// columns past N are not loaded either (the last column's B box holds only the rows left),
// but they are multiplied: a wgmma computes all of its N.
inline double useful_columns(long long n, Shape tile) {
    const long long cols = (n + tile.columns - 1) / tile.columns * tile.columns;
    return static_cast<double>(n) / static_cast<double>(cols);
}

// The rows of A and B the busiest SM reads from L2 per k-block of K: each of its tiles reads
// its A box (rows) and its slice of the B box (columns / the CTAs of a cluster, which
// multicast the rest), and it runs `waves` tiles.
inline long long l2_rows_per_sm(const Estimate& e, int sms) {
    const long long cluster = sms / e.slots;
    return e.waves * (e.shape.rows + e.shape.columns / cluster);
}
// Elements of C one tile computes: in a wave, each SM's work.
inline long long tile_area(Shape tile) { return static_cast<long long>(tile.rows) * tile.columns; }

// How full the waves of a schedule are: units / (waves * slots), 1 when every wave is full.
inline double wave_fill(const Estimate& e) {
    return static_cast<double>(e.units) / static_cast<double>(e.waves * e.slots);
}

// Measured on the H200 (07_clusters_multicast/NOTES.md, section 6), each of the five tiles
// forced in one process against cuBLAS. 128x256 moves the fewest bytes per FLOP and is the
// fastest per k-block of work; the smaller tiles pay in L2 traffic (128x192: 1.13x the
// bytes per FLOP, 128x128: 1.33x, 64x128: 2x) and win only by putting more SMs to work:
//   * few tiles (at most a quarter of the SMs' worth of 128x256, or M <= 64): 64x64, eight
//     times the tiles, where they still make one wave (512^3: 0.92x against 0.89x for
//     64x128; 64x4096x4096: 0.90x against 0.87x; 16x8192x8192: 0.92x against 0.87x), else
//     64x128, four times the tiles (1024^3: 0.91x cuBLAS against 0.55x for 128x256 and
//     0.66x for 64x64; 128x8192x8192: 0.97x against 0.91x and 0.63x);
//   * up to half the SMs' worth: 128x128, twice the tiles (256x8192x4096: 0.97x against
//     0.90x; 192x8192x4096: 0.92x against 0.85x for 64x256), or 128x192 where it covers N
//     with kPaddingGain fewer padded columns;
//   * more: 128x256, unless a narrower tile's waves are fuller by kFillGain or more: 128x192
//     first (1536^3: 0.85x against 0.71x; 3072^3: 0.96x against 0.87x; 3000x5000x2048:
//     0.94x against 0.91x), else 128x128. At 5 points the gain in filled SMs outweighs a
//     narrower tile's extra bytes per FLOP on every shape measured.
// 64x256 is never the best of the five (it was before the narrower tiles existed).
constexpr long long kQuarter = 4;
// Where 64x64 tiles make more than half a wave and at most one, and M is 97 to 128 (a quarter
// of the rows padded at most), one row of 128x64 tiles instead: half the tiles, two consumer
// warpgroups on each, and each column of B read by one CTA instead of two (stream-K then
// shares each tile by two CTAs). Measured on the H200 (NOTES.md section 6,
// tile_128x64_bench.log, two rounds): 4096x128x4096 (C^T) 18.1 us (0.85-0.86x) instead of
// 18.7-18.8 (0.82x); 128x4096x4096 17.6-17.8 us (0.92-0.93x) instead of 18.2 (0.90x);
// 128x4096x8192 25.0-25.1 us (1.12x) instead of 29.8-29.9 (0.94-0.95x); 112 and 100 rows
// 3-5% faster. Not at half a wave (128x2048x4096: 15.7-15.8 us against 14.1 in 64 tiles of
// 64x64, the fix-up costing what the split saves), nor at 64 rows, where half of each
// 128x64 tile is padding (4096x64x4096 0.79x against 0.89x). Nor where K is at most
// kLongSide: there the split's fix-up costs more than the second read of B saves. Measured
// on the H100 (NOTES.md, "Both input regimes"; results/h100/skinny_tiles.csv), each tile in
// one process against cuBLAS: 128x4096x4096 19.1 us (0.97x) in 128 tiles of 64x64 against
// 21.1 (0.89x) in 128x64; 4096x128x4096 (C^T) 19.7 us (0.94x) against 21.4 (0.87x).
constexpr long long kTwoConsumerRows = 96;
// A long side, or a long K (short_side_tile below, and the 128x64 rule above).
constexpr long long kLongSide = 4096;
constexpr double kFillGain = 0.05;
// A short K: at most this many k-blocks (see 128x224 in choose_tile).
constexpr long long kShortKBlocks = 8;
// Where every tile makes one wave, 128x192 replaces 128x128 when it pads N by this much less
// (8192x192x4096: 0.90x against 0.56x).
constexpr double kPaddingGain = 0.10;

// Few tiles and a long K (at least kLongKBlocks k-blocks), more than one row of 128-row
// tiles: the widest of 128x256 and 128x128 that still makes kLongKTiles tiles, whose k-blocks
// stream-K then shares out over the SMs, instead of the small tiles below that fill the SMs
// with whole tiles but read 2 to 4 times the bytes per FLOP. Measured on the H100 (NOTES.md,
// "Both input regimes"; results/h100/class_shapes_tiles.csv), every tile forced in one
// process against cuBLAS:
// 1024x1024x16384 0.96x in 32 tiles of 128x256 against 0.87x in 64x128; 384x768x16384 0.86x
// in 18 of 128x128 against 0.54x in 64x64; 256x1024x32768 0.89x against 0.74x; 512x512x16384
// 0.80x against 0.74x; 256x4096x16384 0.96x against 0.94x. With fewer tiles than that the
// small tiles stay (256x256x16384: 4 tiles of 128x128 0.62x, 16 of 64x64 0.72x).
constexpr long long kLongKBlocks = 256;
constexpr long long kLongKTiles = 16;

// Where K % 64 != 0, 192x192 in clusters (choose_tile) at 2 waves, or at 3 to kTile192Waves
// with a K of at most kTile192KBlocks k-blocks. Both bounds are fitted to the 20 shapes whose
// tile the rule changed (NOTES.md, "A 192x192 tile, three consumers").
constexpr long long kTile192Waves = 4;
constexpr long long kTile192KBlocks = 24;
inline bool tile192_fits(const Estimate& e, int sms, long long k) {
    if (e.slots == sms || e.waves < 2) return false;  // clusters, more than one wave
    if ((k + 63) / 64 <= kShortKBlocks) return false;  // a short K (launches_clusters above)
    return e.waves == 2 || (e.waves <= kTile192Waves && (k + 63) / 64 <= kTile192KBlocks);
}

// The tile for M x N x K (the problem as computed, after any transpose).
inline Estimate choose_tile(long long m, long long n, long long k, int sms, int cluster,
                            bool share_last_wave = true, double dram_gbps = stream_k::kH100DramGBps) {
    const Estimate large = estimate(m, n, k, sms, cluster, {128, 256}, share_last_wave, dram_gbps);
    if (m > 128 && large.tiles * kQuarter <= sms && (k + 63) / 64 >= kLongKBlocks) {
        for (const Shape shape : {Shape{128, 256}, Shape{128, 128}}) {
            Estimate e = estimate(m, n, k, sms, cluster, shape, share_last_wave, dram_gbps);
            if (e.tiles >= kLongKTiles) {
                e.reason = "few tiles and a long K: the widest tile that makes 16 tiles, whose k-blocks "
                           "stream-K shares out";
                return e;
            }
        }
    }
    if (m <= 64 || large.tiles * kQuarter <= sms) {
        Estimate e = estimate(m, n, k, sms, cluster, {64, 64}, share_last_wave, dram_gbps);
        const bool one_wave = e.tiles <= sms;
        if (!one_wave) e = estimate(m, n, k, sms, cluster, {64, 128}, share_last_wave, dram_gbps);
        if (one_wave && e.tiles * 2 > sms && m > kTwoConsumerRows && m <= 128 && k > kLongSide) {
            e = estimate(m, n, k, sms, cluster, {128, 64}, share_last_wave, dram_gbps);
            e.reason = "128x256 tiles would fill at most a quarter of the SMs, and M of 97 to 128 with K "
                       "over 4096 fits one row of 128x64 tiles, two consumers each";
            return e;
        }
        if (m <= 64)
            e.reason = one_wave
                           ? "M <= 64 (half of a 128-row tile would be padding), and 64x64 tiles make one wave"
                           : "M <= 64 (half of a 128-row tile would be padding); 64x64 tiles would make "
                             "more waves";
        else
            e.reason = one_wave
                           ? "128x256 tiles would fill at most a quarter of the SMs, and 64x64 tiles make "
                             "one wave"
                           : "128x256 tiles would fill at most a quarter of the SMs; 64x64 tiles would make "
                             "more waves";
        return e;
    }
    const Estimate half = estimate(m, n, k, sms, cluster, {128, 128}, share_last_wave, dram_gbps);
    if (large.tiles * 2 <= sms) {
        // One wave whichever tile: pay for as few padded columns as possible. 128x128 unless
        // 128x192 covers N with clearly less padding, and still in one wave (8192x192x4096:
        // 128x192 fits N exactly).
        const Estimate wide = estimate(m, n, k, sms, cluster, {128, 192}, share_last_wave, dram_gbps);
        if (wide.waves == 1 &&
            useful_columns(n, wide.shape) >= useful_columns(n, half.shape) + kPaddingGain) {
            Estimate e = wide;
            e.reason = "one wave either way, and 128x192 pads N least";
            return e;
        }
        Estimate e = half;
        e.reason = "128x256 tiles would fill at most half of the SMs";
        return e;
    }
    // Where K % 64 != 0 and 128x256 launches clusters, every box row straddles two L2 lines
    // and the problem is bound by what each SM pulls from L2, not by wgmma: per k-block a CTA
    // reads its A box (rows) and its slice of the B box (columns / cluster), and the busiest
    // SM runs `waves` tiles. So of 128x256 and the narrower tiles below, the one whose
    // waves x (rows + columns / cluster) is least, the widest on a tie. Measured on the H100
    // (NOTES.md, "Launch rules"; results/h100/step07_rules.csv), 128x256 against 128x192 in
    // clusters of 2: 5000x3000x1000 58.4 us against 61.9 (4 waves of 384 rows against 5 of
    // 320), 2500x6000x1480 78.1 against 82.0; and the other way, 3072x3072x1000 44.3 against
    // 39.4 (3 waves each), 2000x3000x1496 42.1 against 37.9 (2 each).
    // 192x192 (three consumers) too, where it makes 2 waves of clusters, or 3 to
    // kTile192Waves with at most kTile192KBlocks k-blocks; it never shares the last wave.
    // Measured on the H100 (NOTES.md, "A 192x192 tile, three consumers"), the rule against
    // the 128-row tile it took before, in alternating processes: 3072x3072x1000 36.0 us
    // against 39.5 (2 waves of 288 rows against 3 of 224), 3000^3 83.5 against 92.4,
    // 4342x1806x5768 161.4 against 173.5, 2500x5000x1232 56.8 against 62.2 (3 waves),
    // 6144x3072x1000 64.5 against 69.5 (4); but 7617x2138x2456 (4 waves, 39 k-blocks) 171.1
    // against 164.0, and above 4 waves it lost by up to 7% (7369x4096x5464 540.8 against
    // 502.7, 5714x8068x1000 258.0 against 247.6). In one wave it lost too (2048x2048x2056
    // 33.6 against 31.2).
    if (k % 64 != 0 && large.slots < sms) {
        Estimate best = large;
        for (const Shape shape :
             {Shape{128, 224}, Shape{128, 192}, Shape{128, 144}, Shape{128, 128}, Shape{192, 192}}) {
            if (shape.columns == 224 && (k + 63) / 64 <= kShortKBlocks) continue;  // see 128x224 below
            const Estimate e = estimate(m, n, k, sms, cluster, shape, share_last_wave, dram_gbps);
            if (shape.rows == 192 && !tile192_fits(e, sms, k)) continue;
            if (l2_rows_per_sm(e, sms) < l2_rows_per_sm(best, sms)) best = e;
        }
        best.reason = "K % 64 != 0 in clusters: the tile whose SMs each read the fewest rows from L2";
        return best;
    }
    // Of the two narrower tiles, 128x192 first: fewer bytes per FLOP than 128x128.
    const Estimate wide = estimate(m, n, k, sms, cluster, {128, 192}, share_last_wave, dram_gbps);
    // 128x144 where its waves are fuller than 128x256's, 128x192's and 128x128's: its bytes
    // per FLOP are between 128x192's and 128x128's (1536^2: 12 x 11 = 132 tiles, one full
    // wave; 2560^3: 2.73 waves, 91% full, against 76% and 71%). Where 128x128 fills the waves
    // as well, 128x144 would only pad N (6144x1024x2048: 39.2 us in 128x128, 43.6 in 128x144).
    const Estimate exact = estimate(m, n, k, sms, cluster, {128, 144}, share_last_wave, dram_gbps);
    if (wave_fill(exact) >= std::max({wave_fill(large), wave_fill(wide), wave_fill(half)}) + kFillGain) {
        Estimate e = exact;
        e.reason = "128x144's waves are fuller than 128x256's, 128x192's and 128x128's";
        return e;
    }
    // 128x224 where its waves are fuller than 128x256's and no emptier than 128x192's and
    // 128x128's: the fewest bytes per FLOP after 128x256. Measured on the H200 (NOTES.md
    // section 6, tile_224_and_64x192_bench.log): 1792^3 (14 x 8 = 112 tiles, one wave 85%
    // full, against 98 of 128x256, 74%) in 23.0-23.1 us (0.93x) instead of 24.6 (0.87x);
    // 1792x1792x4096 0.97-0.98x instead of 0.89x; 224x14336x4096 0.96x instead of 0.91x;
    // 256x14336x4096 0.96-1.01x instead of 0.95-0.96x (128 tiles of 128x224 against 112 of
    // 128x256: one wave either way, an eighth less work per SM).
    // Not with a K of kShortKBlocks k-blocks or fewer, where a tile's time is mostly its
    // epilogue: 128x224's stores 192 of its columns through the TMA in three rounds of one
    // 64-column box and the last 32 directly, element by element (tiles.cuh: TMA_COLUMNS,
    // EPI_COLUMNS), where 128x256's stores two rounds of 128: longer, for an eighth less of C.
    // Measured on the H100 (NOTES.md, "Launch rules"; results/h100/step07_rules.csv), the
    // rule against 128x224 forced:
    // 4608x2304x384 21.6 us (128x128) against 24.6, 3638x4760x384 36.4 (128x192) against 38.8,
    // 4932x512x448 11.8 against 13.3; level at 256, 448 and 512 (6006x2923x256, 2201x6144x448,
    // 806x8192x512). With 12 k-blocks and more 128x224 keeps its place (3072x4507x768 97.1 us
    // in 128x192 against 93.7, 1646x2048x2048 27.7 in 128x256 against 26.7).
    const Estimate wider = estimate(m, n, k, sms, cluster, {128, 224}, share_last_wave, dram_gbps);
    if ((k + 63) / 64 > kShortKBlocks && wave_fill(wider) >= wave_fill(large) + kFillGain &&
        wave_fill(wider) >= std::max(wave_fill(wide), wave_fill(half))) {
        Estimate e = wider;
        e.reason = "128x224's waves are fuller than 128x256's";
        return e;
    }
    if (wave_fill(wide) >= wave_fill(large) + kFillGain) {
        Estimate e = wide;
        e.reason = "128x192's waves are fuller than 128x256's";
        return e;
    }
    if (wave_fill(half) >= wave_fill(large) + kFillGain) {
        Estimate e = half;
        e.reason = "128x128's waves are fuller than 128x256's";
        return e;
    }
    Estimate e = large;
    e.reason = "enough tiles for 128x256";
    return e;
}

// A problem whose short side (M or N) is 129 to 192 long gets a tile that fits it:
//   * with K at most kLongSide, where three rows of 64x96 tiles make one wave as launched and
//     the other side is at least kLongSide (or kThreeRowsSide, with K over kLongSide / 2):
//     those, the short side as the tiles' rows (C^T where it is N);
//   * where K % 64 != 0 pairs those rows in clusters into two waves, a short N of 145 to 192
//     against a long side of kLongSide: two columns of 64x128 tiles, as given;
// and with the other side at least kLongSide (otherwise the rules below decide):
//   * else 129 to 144: 128x144, whose few tiles stream-K shares out, the short side as the
//     tiles' columns (C^T where it is M);
//   * 145 to 160: 64x160 (one consumer warpgroup, twice the tiles) where its tiles make one
//     wave, else 128x192, which makes half as many;
//   * 161 to 192: three rows of 64x192 tiles for a short M where they make one wave, else
//     128x192; for a short M only where choose_tile would give 128-row tiles wider than
//     128, whose second row is mostly padding (see choose).
// And a short N of 193 to 256, with M at least kLongerSide, gets 128x224 up to 224, else
// 128x256 (the rules below would give 128x128, twice the tiles, but with a second column
// of tiles mostly padding);
// a short M of 193 to 256 keeps them (256x8192x4096: 128x128 0.97x cuBLAS, 128x256
// 0.89x). Measured on the H200
// (NOTES.md section 6), against the tiles the rules below give:
//   160x8192x4096  26.4 us instead of 28.0 (64x160, C^T)   8192x160x4096 25.1 instead of 29.2
//   144x8192x4096  26.4 us instead of 28.1 (128x144, C^T)  136x8192x4096 26.2 instead of 28.0
//   14336x160x4096 41.3 us instead of 44.3 (128x192 against 64x160 in two waves)
//   14336x192x4096 40.2 us instead of 55.5 (128x192 against 128x256)
//   8192x224x4096  31.9 us instead of 36.7 (128x256 against 128x128, before B's edge boxes;
//                  C^T in 128x128 tiles now beats both: 29.5 us, see fuller_transposed)
// (64x160 at 136 rows: 30.4 us, its B box zero-fills 24 of 160 rows; 128x144 cannot cover 160.)
constexpr long long kLongerSide = 8192;
constexpr long long kThreeRowsSide = 2048;
inline Shape short_side_tile(long long m, long long n, long long k, int sms, int cluster) {
    const long long side = m < n ? m : n, other = m < n ? n : m;
    if (side <= 128) return {0, 0};
    // Three rows of 64x96 tiles where they make one wave (a long side of kThreeRowsSide up to
    // 96 x sms / 3: 4224 on 132 SMs) and K is too short to pay for a split: no row padded
    // past the next 64, no column past the next 96, each tile walking all of K. The
    // short side goes down the rows either way: as C^T's rows where it is N (choose), which
    // costs C^T's element stores, about 0.5 us at 4096x192x4096 against 192x4096x4096 as
    // given. Measured on the H100 (NOTES.md, "Both input regimes";
    // results/h100/step07_three_rows.csv), two processes each, against the rules before:
    //   4096x192x4096 20.5-20.7 us (0.92-0.93x) instead of 22.2-22.3 (0.86x, two columns of 64x96)
    //   4096x160x4096 20.5 us (0.90x) instead of 21.1-21.4 (0.86x, two columns of 64x128)
    //   4096x144x4096 20.5-20.7 us (0.91x) instead of 24.8-25.1 (0.79-0.80x, 128x144 split 4 ways)
    //   144x4096x4096 20.1-20.2 us (0.92x) instead of 25.6 (0.77x, 128x144 as C^T, split 4 ways)
    //   144x4096x2048 13.8-13.9 us (0.92x) instead of 19.3-19.6 (0.65-0.66x)
    //   192x4096x4096 20.0 us (0.95x) instead of 23.0 (0.85x, 66 of 64x192 split by stream-K;
    //                 results/h100/skinny_tiles.csv)
    //   3072x192x4096 19.3-19.5 us (0.93-0.97x) instead of 19.5-20.0 (0.80-0.85x, 64x128)
    //   2048x192x4096 16.2-16.5 us (0.89-0.90x) instead of 17.6-17.8 (0.82x, 64x64), its 66
    //                 tiles each split in two
    // Not with K = 8192, whose 128x144 and 128x192 runs are long enough to pay for their
    // fix-up: 4096x144x8192 1.03x (128x144) against 0.96x (C^T in 64x128), and 4096x192x8192
    // 29.7-30.1 us against 32.4 in two columns of 64x96 (the H200, tile_96_bench.log).
    // Below a long side of kLongSide only with K over kLongSide / 2: 66 to 129 tiles that a
    // shorter K splits (or keeps whole) for less than their fix-up, where the rules below run
    // more, smaller tiles: 2048x176x1024 0.82x against 0.88-0.89x in 64x64, 3072x144x512
    // 0.85x against 0.89x, 129x2048x2048 0.81x against 0.84x. Below kThreeRowsSide the
    // tiles are too few.
    // Where K % 64 != 0 asks for clusters (odd_k_clusters, for a variant that has them), the
    // three rows count as padded to whole clusters: with clusters of 2, two rows of clusters,
    // one wave only up to 33 columns of tiles (a long side of 3168); beyond that the clusters
    // of the tiles below, multicasting B, win (for clusters of 4 too, which three rows would
    // not launch: 3742x184x2920 19.2-19.8 us in 64x128 against 25.5 in three rows).
    // Beyond that, measured on random shapes of this domain (step07_short_side_experiments.csv):
    // 3742x184x2920 27.9 us against 21.4 in 64x128, 4096x160x3000 28.4 against 21.5 in two
    // columns of 64x128; within it, 166x2328x2728 16.2 us against 21.5 in 64x64 (but
    // 2048x192x3080 20.2 against 18.7).
    const bool long_enough = other >= kLongSide || (other >= kThreeRowsSide && 2 * k > kLongSide);
    const long long rows = (side + 63) / 64, columns = (other + 95) / 96;
    const bool clustered = cluster > 1 && odd_k_clusters(k);
    const long long unit = clustered ? cluster : 1;  // CTAs per cluster tile, down the rows
    const bool one_wave = (rows + unit - 1) / unit * columns <= sms / unit;
    if (side <= 192 && long_enough && k <= kLongSide && one_wave) return {64, 96};
    // There a short N of 145 to 192 against a long side of kLongSide keeps two columns of 64x128
    // tiles as given, one wave of clusters along M.
    if (side > 144 && side <= 192 && n < m && clustered && k <= kLongSide && other >= kLongSide &&
        (m + 63) / 64 * 2 <= sms)
        return {64, 128};
    if (other < kLongSide) return {0, 0};
    if (side <= 144) return {128, 144};
    if (side <= 160) return (other + 63) / 64 <= sms ? Shape{64, 160} : Shape{128, 192};
    // A short M of 161 to 192 as three rows of 64x192 tiles, as given, where they make one
    // wave (N up to 192 x sms / 3: 8448 on 132 SMs): no row padded past the next 64, where
    // 128x128 multiplies a second row of tiles that is half padding or more. Measured on the
    // H200 (NOTES.md section 6, tile_224_and_64x192_bench.log): 192x8192x8192 45.6-45.9 us
    // (1.00x) instead of 49.5-49.9 (0.90-0.92x, 128x128); 176x8192x8192 1.01-1.05x instead
    // of 0.94-0.95x; 192x8192x4096 0.96-0.97x instead of 0.91-0.94x; 192x6144x4096
    // 0.99-1.06x instead of 0.95x. A short N gains nothing from it (8192x192x8192: 0.91x
    // against 0.92-0.93x; 6144x192x8192: 0.79x against 1.00x in 128x192 shared by stream-K).
    if (side <= 192 && m < n && (n + 191) / 192 * 3 <= sms) return {64, 192};
    if (side <= 192) return {128, 192};  // a short M only where choose() says so
    // A short N of 193 to 224 fits a 224-column tile: 14336x224x4096 in 43.6-44.4 us (0.99x)
    // instead of 46.8 (0.92x) in 128x256 (tile_224_and_64x192_bench.log).
    if (side <= 224 && n < m && m >= kLongerSide) return {128, 224};
    if (side <= 256 && n < m && m >= kLongerSide) return {128, 256};
    return {0, 0};
}

// A problem of at most 128 columns and more rows than columns is computed as its transpose,
// C^T = B A^T: A and B are both K-major, so they only swap roles, and the tiles' columns
// then run along M instead of padding N. Measured on the H200 (NOTES.md section 6),
// 8192x128x8192 ran at 0.48x cuBLAS untransposed, where 128x8192x8192 runs at 0.92x.
inline bool transposes(long long m, long long n) { return n <= 128 && m > n; }

// C^T is stored element by element (tiles.cuh: store_tile_transposed), C where N % 8 == 0
// by the TMA: with fewer k-blocks than this a tile's time is mostly its epilogue, so where C
// keeps its TMA store choose_orientation does not turn a problem round, and fuller_transposed
// only where C^T pads kShortKTransposePadding less of its columns. Measured on the H100:
// 8176x384x512 15.3 us as C^T against 14.2 (NOTES.md, "Both input regimes"); and on shapes
// drawn at random (NOTES.md, "Shapes drawn at random"; results/h100/step07_short_k_rules.csv).
constexpr long long kTransposeMinKBlocks = 16;
// Fitted to the 15 shapes of the C^T rule in that file (rows "fitting: C^T rule"): C^T stayed
// faster only where the problem as given padded a fifth more of its columns (4253x512x904:
// 128x224 tiles pad 512 columns to 672, 20.1-20.7 us as given against 18.1-18.3 as C^T in
// 128x144), and was up to 1.8x slower where C^T padded 0 to 17% less (1728x7424x192 33.9 us
// as C^T against 18.9-19.0, 4775x896x256 19.4-19.6 against 13.2-13.4).
constexpr double kShortKTransposePadding = 0.20;

// The problem as given, or C^T where the transposed problem's tiles fill the waves better
// by kFillGain or more, in no more waves, pad no more of their columns, and give each SM
// less to compute (waves x tile area): the tile grid is then the other way round, a row of
// tiles becomes a column. 14336x224x4096 stays as given in 112 tiles of 128x224: C^T's 128
// tiles of 128x224 fill the wave better but give each SM as much, and its C^T stores cost
// (44.4-44.6 us against 43.6-43.7, tile_224_and_64x192_bench.log); 14336x256x4096 goes
// C^T in 128 tiles of 128x224 (45.8 us against 47.0 in 112 of 128x256). Measured on the H200
// (NOTES.md section 6), each in one process against cuBLAS: 3072x1024x2048 in 23.5 us as
// C^T (128 tiles of 128x192, one wave 97% full) instead of 26.8 (96 of 128x256, 73%);
// 8192x224x4096 in 29.5 us (128 of 128x128) instead of 32.7 (64 of 128x256 shared by
// stream-K); 8192x256x8192 in 51.9 instead of 54.9. 192x4096x4096 stays as given: its
// transpose's 128 tiles of 64x128 fill a whole wave, but a quarter of their columns are
// padding (0.96x cuBLAS against 1.01x).
inline Estimate fuller_transposed(const Estimate& given, long long m, long long n, long long k, int sms,
                                  int cluster, bool share_last_wave, double dram_gbps) {
    if (given.tiles == 0) return given;  // an empty problem: nothing to turn round
    // One row of 128x64 tiles, each shared by two CTAs, gives each SM half a tile: as much as
    // C^T's 64x64 tiles would, with one read of B instead of two.
    if (given.shape.rows == 128 && given.shape.columns == 64) return given;
    Estimate swapped = choose_tile(n, m, k, sms, cluster, share_last_wave, dram_gbps);
    // A short K where C keeps its TMA store as given: C^T's element stores cost more than its
    // fuller waves save, unless C^T pads kShortKTransposePadding less (kTransposeMinKBlocks).
    if (n % 8 == 0 && (k + 63) / 64 < kTransposeMinKBlocks &&
        useful_columns(m, swapped.shape) < useful_columns(n, given.shape) + kShortKTransposePadding)
        return given;
    if (swapped.waves > given.waves || wave_fill(swapped) < wave_fill(given) + kFillGain ||
        useful_columns(m, swapped.shape) < useful_columns(n, given.shape) ||
        swapped.waves * tile_area(swapped.shape) >= given.waves * tile_area(given.shape))
        return given;
    swapped.transposed = true;
    swapped.reason = "the transposed problem's tiles fill the waves better";
    return swapped;
}

// The problem `given` computes (C^T where it is transposed) in another tile.
inline Estimate retiled(const Estimate& given, Shape tile, long long m, long long n, long long k, int sms,
                        int cluster, bool share_last_wave, double dram_gbps) {
    if (given.transposed) std::swap(m, n);
    Estimate e = estimate(m, n, k, sms, cluster, tile, share_last_wave, dram_gbps);
    e.transposed = given.transposed;
    return e;
}
// Whether `count` tiles of `tile` are more work than (1 + allowance) times `other_count` of
// `other` (tiles for the whole problem, or waves for what each SM computes); allowance is
// kMoreColumns unless given, 0 for "any more", -0.1 for "not 10% less".
constexpr double kMoreColumns = 0.05;
inline bool more_work(long long count, Shape tile, long long other_count, Shape other,
                      double allowance = kMoreColumns) {
    return static_cast<double>(count * tile_area(tile)) >
           (1 + allowance) * static_cast<double>(other_count * tile_area(other));
}

// Where the rules above give 128x192 tiles in a plain launch, 128x168 where it makes as
// many waves with no last wave shared by stream-K: each SM computes an eighth less in the
// same waves. Only with kNarrowerKBlocks k-blocks or more (at K = 512 the 40 columns past the
// TMA store's boxes, stored directly, cost more: 5485x1784x512 in four waves 29.4 us against
// 28.0), at most kMoreColumns more of C computed, and where 128x192's last wave is shared,
// only with K of at least kLongSide and at most kNarrowerSharedWaves waves (there its sharing
// is cheaper than the narrower tiles: 2284x2063x3072 65.4 us against 63.9, 3634x3560x4096
// 160 against 155). Not where 128x192 launches clusters (K % 64 != 0): 168 B rows do not cut
// into whole slices (slice_cluster), and the multicast of 128x192 pays more there
// (4342x1806x5768 246 us against 172). Measured on the H100 (NOTES.md, "Both input
// regimes"; results/h100/step07_tile168.csv), the rule against the code before, each in its
// own process, two rounds: 2304^3 (252 tiles of 128x168 against 216 of 128x192, two waves
// either way) 40.4-41.1 us against 42.2-42.3; 2304x2304x4096 64.4 against 74.7 (128x192's
// second wave shared over every SM); on 35 other shapes whose tile it changes, 7.1% faster
// (geometric mean) on uniform inputs and 6.3% on zeros, the worst 2.6% slower on zeros
// (2076x2352x6144, 2.5% faster on uniform inputs).
constexpr Shape kNarrowerWide{128, 168};
constexpr long long kNarrowerKBlocks = 16;
constexpr long long kNarrowerSharedWaves = 3;
inline Estimate narrower_in_same_waves(const Estimate& given, long long m, long long n, long long k, int sms,
                                       int cluster, bool share_last_wave, double dram_gbps) {
    if (given.shape.rows != 128 || given.shape.columns != 192 || given.units != given.tiles ||
        (k + 63) / 64 < kNarrowerKBlocks)
        return given;
    if (given.sharing_clusters && (k < kLongSide || given.waves > kNarrowerSharedWaves)) return given;
    Estimate e = retiled(given, kNarrowerWide, m, n, k, sms, cluster, share_last_wave, dram_gbps);
    if (e.waves != given.waves || e.sharing_clusters != 0 ||
        more_work(e.tiles, e.shape, given.tiles, given.shape))
        return given;
    e.reason = "128x168 makes as many waves as 128x192, none shared, with an eighth less per SM";
    return e;
}

// The tile and orientation for M x N x K: a short side of 129 to 192 (or a short N to 256)
// gets its fitted tile (short_side_tile); otherwise the transpose where transposes() says so, and the tile
// choose_tile() picks for the problem it then computes. What is not transposed by then
// (the short N to 256 included) is, where fuller_transposed says so.
// Except N = 64 where the problem as given gets the 64x64 tile: that tile covers N with no
// padding, and C keeps its TMA store (C^T is stored element by element). Measured on the
// H200 (NOTES.md section 6): 4096x64x4096 in 16.5 us instead of 17.1 as C^T.
inline Estimate fitted_or_transposed(long long m, long long n, long long k, int sms, int cluster,
                                     bool share_last_wave, double dram_gbps) {
    const Shape fitted = short_side_tile(m, n, k, sms, cluster);
    // The short side becomes the tiles' columns (C^T when it is M), except in 64x96 and 64x192
    // tiles, whose three rows take it (C^T when it is N).
    const bool short_rows = fitted.rows == 64 && (fitted.columns == 96 || fitted.columns == 192);
    const bool t = short_rows ? n < m : m < n;
    // A short M of 161 to 192 takes C^T in 128x192 tiles only where the rules would run two
    // rows of 128-row tiles wider than 128 (192x14336x4096: 128x256); their 128x128 or
    // 64-row tiles pay less than C^T's stores.
    const bool short_m_to_192 = t && m > 160 && fitted.columns == 192;
    const auto padded_wide = [&] {
        const Shape rules = choose_tile(m, n, k, sms, cluster, share_last_wave, dram_gbps).shape;
        return rules.rows == 128 && rules.columns > 128;
    };
    if (fitted.rows && (!short_m_to_192 || padded_wide())) {
        Estimate e = t ? estimate(n, m, k, sms, cluster, fitted, share_last_wave, dram_gbps)
                       : estimate(m, n, k, sms, cluster, fitted, share_last_wave, dram_gbps);
        e.transposed = t;
        e.reason = fitted.columns == 96    ? "a short side of 129 to 192 fits three rows of 64x96 tiles, one "
                                             "wave"
                   : fitted.columns == 128 ? "a short N of 145 to 192 with K % 64 != 0 fits two columns of "
                                             "64x128 tiles, one wave of clusters"
                   : fitted.columns == 144 ? "a short side of 129 to 144 fits one 144-column tile"
                   : fitted.columns == 160 ? "a short side of 145 to 160 fits one 160-column tile"
                   : fitted.rows == 64     ? "a short M of 161 to 192 fits three rows of 64x192 tiles, one "
                                             "wave"
                   : fitted.columns == 224 ? "a short N of 193 to 224 fits one 224-column tile"
                   : fitted.columns == 192 ? "a short side of 161 to 192, or of 145 to 160 with more than a "
                                             "wave of 64x160 tiles, fits one 192-column tile"
                                           : "a short N of 193 to 256 fits one 256-column tile";
        return fitted.columns >= 224 ? fuller_transposed(e, m, n, k, sms, cluster, share_last_wave, dram_gbps)
                                     : e;
    }
    if (!transposes(m, n))
        return fuller_transposed(choose_tile(m, n, k, sms, cluster, share_last_wave, dram_gbps), m, n, k, sms,
                                 cluster, share_last_wave, dram_gbps);
    if (n == 64) {
        const Estimate direct = choose_tile(m, n, k, sms, cluster, share_last_wave, dram_gbps);
        if (direct.shape.columns == 64) return direct;
    }
    Estimate e = choose_tile(n, m, k, sms, cluster, share_last_wave, dram_gbps);
    e.transposed = true;
    return e;
}

// Where the rules above give 128x144 tiles, 128x224 where it makes fewer waves, none of them
// shared by stream-K, for at most kMoreColumns more per SM (waves x tile area), with K of at
// least kWiderKBlocks k-blocks. A k-block of 128x224 brings 44 KB for 128 x 224 of C, one of
// 128x144 34 KB for 128 x 144: 17% fewer bytes per FLOP, which pays more than the 4% more
// each SM computes. Measured on the H100 (NOTES.md, "Both input regimes";
// results/h100/step07_tile224.csv), each tile forced in one process, two rounds: 2560^3 (240
// tiles of 128x224 in two waves against 360 of 128x144 in three) 52.8-53.1 us against
// 54.4-54.5, 51.1 against 54.3 on zero inputs; 7104x1486x4096 (three waves against five)
// 139.7 against 162.5; on the 15 such shapes the rule picks, 7.9% faster (geometric mean) on
// uniform inputs and 14.7% on zeros, each at least 0.8%. On 20 other shapes, the rule against
// the code before: 6.5% and 11.0% faster, none by more than 0.5% slower. Not at K = 1024
// (796x7473x1024: 49.5 us against 47.3), nor where 128x224's last wave is shared
// (1089x5710x6144: 156 against 146).
constexpr Shape kWiderFitted{128, 224};
constexpr long long kWiderKBlocks = 32;
inline Estimate wider_in_fewer_waves(const Estimate& given, long long m, long long n, long long k, int sms,
                                     int cluster, bool share_last_wave, double dram_gbps) {
    if (given.shape.rows != 128 || given.shape.columns != 144 || (k + 63) / 64 < kWiderKBlocks) return given;
    Estimate e = retiled(given, kWiderFitted, m, n, k, sms, cluster, share_last_wave, dram_gbps);
    if (e.waves >= given.waves || e.sharing_clusters != 0 ||
        more_work(e.waves, e.shape, given.waves, given.shape))
        return given;
    e.reason = "128x224 makes fewer waves than 128x144, none shared, for at most 5% more per SM";
    return e;
}

// fitted_or_transposed's tile, 128x168 in place of its 128x192 where narrower_in_same_waves
// says so, 128x224 in place of its 128x144 where wider_in_fewer_waves does.
inline Estimate fitted_in_between(long long m, long long n, long long k, int sms, int cluster,
                                  bool share_last_wave, double dram_gbps) {
    const Estimate e = fitted_or_transposed(m, n, k, sms, cluster, share_last_wave, dram_gbps);
    const Estimate narrower = narrower_in_same_waves(e, m, n, k, sms, cluster, share_last_wave, dram_gbps);
    return wider_in_fewer_waves(narrower, m, n, k, sms, cluster, share_last_wave, dram_gbps);
}

// What step 07 runs for M x N x K: fitted_in_between's choice, or C^T where that computes
// the problem in 128-row tiles as given and the transposed problem's 128-row tiles compute no
// more of C, in no more waves, none of them shared, and give each SM less (waves x tile area):
//   * kTransposedGain less where C's rows are not 16-byte aligned (N % 8 != 0). C has no TMA
//     store then, and its direct stores cost more than C^T's: 8071x813x1024 took 54.2 us as
//     given, 36.3 as C^T, and 8071x816x1024, with its TMA store, 29.3-29.7;
//   * kTransposedStoreGain less where C keeps a TMA store as given (N % 8 == 0), and only with
//     kTransposeMinKBlocks k-blocks or more.
// A short side of 256 to 1150 against a long one pads less as rows of 128 than as columns of
// 192 to 256 (7384x368x6144: three rows of 128x192 tiles instead of two columns of 128x256).
// Measured on the H100 (NOTES.md, "Both input regimes";
// results/h100/step07_other_orientation.csv), against the code before in alternating
// processes, two rounds, on shapes drawn at random from those the rule changes: with N % 8
// != 0, 31 and then 26 more, 27% and 28% faster (geometric mean), none more than 1.1% slower
// (543x6388x5080 on zeros); with N % 8 == 0, 25 shapes, 13% faster, the least 1.5% (8064x304x2048:
// 26.6 us against 27.0 on zeros), the most 28% (7384x368x6144: 51.6 us against 65.9).
constexpr double kTransposedGain = 0.10;
constexpr double kTransposedStoreGain = 0.25;
inline Estimate choose_orientation(long long m, long long n, long long k, int sms, int cluster,
                                   bool share_last_wave, double dram_gbps) {
    const Estimate e = fitted_in_between(m, n, k, sms, cluster, share_last_wave, dram_gbps);
    if (e.shape.rows != 128 || e.transposed) return e;
    const bool tma_store = n % 8 == 0;
    if (tma_store && (k + 63) / 64 < kTransposeMinKBlocks) return e;
    const double gain = tma_store ? kTransposedStoreGain : kTransposedGain;
    Estimate t = fitted_in_between(n, m, k, sms, cluster, share_last_wave, dram_gbps);
    if (t.shape.rows != 128 || t.transposed || t.waves > e.waves || t.sharing_clusters != 0 ||
        more_work(t.tiles, t.shape, e.tiles, e.shape, 0) ||
        more_work(t.waves, t.shape, e.waves, e.shape, -gain))
        return e;
    t.transposed = true;
    t.reason = "C^T's tiles compute no more of C in no more waves, with less per SM";
    return t;
}

// Few tiles with a long K run split-K (stream_k::split_count): each tile's slices make one
// more unit of work, and the reduce kernel reads back every slice's fp32 partial tile. There
// the smallest tile of kSplitTiles whose tiles each get kSplitMinSlices slices or more in one
// wave, and which pads C by less than a fifth, in place of the tile the rules above chose
// for stream-K: the smaller the tile, the fewer bytes of partials the same CTAs write and the
// reduce kernel reads back. Measured on the H100 (results/h100/step07_split_k_matrix.log, an
// experiment build whose split count an environment variable set), every tile of kSplitTiles
// with as many slices as make one wave, each in its own process against cuBLAS:
// the rule's tile was the fastest, or within 3% of it, on the 13 shapes it applies to
// (128x128x65536: 4 tiles of 64x64 in 33 slices 21.0 us, one of 128x128 in 128 slices 24.2;
// 384x768x16384: 128x128 in 7 slices 27.9 us, 64x128 in 3 30.0; 640x256x16384: 64x128 in 6
// slices 21.6 us, 64x64 in 3 25.9, 128x128 in 13 23.5). Where 128-row tiles would pad half of
// C (64x4096x16384) the rules above keep their 64-row tiles: 54.5 us whole (class_shapes.csv)
// against 59.7 split in 128x256. Nor a tile that makes one row or one column of tiles: that
// problem reads its other operand once, from DRAM, and the rules above already share its
// few tiles (128x4096x8192: one row of 128x64 tiles, each shared by two CTAs).
constexpr Shape kSplitTiles[] = {{64, 64}, {64, 128}, {128, 128}, {128, 256}};
constexpr double kSplitMinUseful = 0.8;
inline Estimate split_tile(const Estimate& given, long long m, long long n, long long k, int sms, int cluster,
                           bool share_last_wave, double dram_gbps) {
    if (!share_last_wave || (k + 63) / 64 < stream_k::kSplitMinTileKBlocks) return given;
    const long long cm = given.transposed ? n : m, cn = given.transposed ? m : n;
    for (const Shape shape : kSplitTiles) {
        Estimate e = estimate(cm, cn, k, sms, cluster, shape, share_last_wave, dram_gbps);
        const double useful = static_cast<double>(cm) * static_cast<double>(cn) /
                              static_cast<double>(e.tiles * tile_area(shape));
        const bool one_row_or_column = cm <= shape.rows || cn <= shape.columns;
        if (e.splits < 2 || useful < kSplitMinUseful || one_row_or_column) continue;
        if (given.splits > 1 && tile_area(given.shape) <= tile_area(shape)) return given;
        e.transposed = given.transposed;
        e.reason = "few tiles and a long K: the smallest tile whose tiles each take 6 or more slices of K "
                   "in one wave (split-K)";
        return e;
    }
    return given;
}

// Where ping-pong runs (pingpong above), after the rules above have chosen a tile:
//   * the tile they chose is 128x128: in ping-pong wherever it can (the same tile, level or
//     faster: 2304x4096x2048 68.7 us against 70.1, 4096^3 202.2 against 202.6, 3000x5000x2048
//     105.2 against 104.6; 2304x4608x512 23.6 against 25.3), but not where they share its
//     last wave (stream-K) or split its K, and not with fewer than kPingPongMinKBlocks
//     k-blocks (one k-block has no main loop to hide an epilogue under);
//   * a short K over many tiles (`replace`: the rule's choice, not a forced tile): 128x128 in
//     ping-pong in place of a wider cooperative 128-row tile without clusters. With
//     kShortKBlocks k-blocks or fewer a tile's time is mostly its epilogue, which ping-pong
//     runs under the other consumer's main loop; that pays for the narrower tile's more bytes
//     per FLOP. In place of 128x256 only with kPingPongWideKBlocks or fewer (at 8 the two are
//     level). The rule against the cooperative tile it replaces, each in its own process
//     against cuBLAS: 3000x5000x448 31.7 us against 34.6 (128x192), 3638x4760x384 31.7 against
//     36.6 (128x192), 6144x4096x384 38.5 against 40.0 (128x256), 1024x4096x256 10.9 against
//     12.2 (128x256); 4096x4096x512 34.4 against 34.0 (128x256, 8 k-blocks: kept),
//     8192x4096x64 29.5 against 28.5 (one k-block).
// Measured on the H100: NOTES.md, "Ping-pong"; results/h100/step07_pingpong.csv.
constexpr long long kPingPongWideKBlocks = 6;
constexpr long long kPingPongMinKBlocks = 2;
inline Estimate pingpong_schedule(const Estimate& given, long long m, long long n, long long k, int sms,
                                  bool share_last_wave, bool replace) {
    const long long k_blocks = (k + 63) / 64;
    if (!share_last_wave || k_blocks < kPingPongMinKBlocks || given.splits > 1 ||
        given.sharing_clusters != 0 || given.shape.rows != 128)
        return given;
    const long long cm = given.transposed ? n : m, cn = given.transposed ? m : n;
    const bool same_tile = pingpong_tile(given.shape);
    const bool clustered = given.slots < sms;  // schedule units of several CTAs
    if (!same_tile && (!replace || k_blocks > kShortKBlocks || clustered ||
                       (given.shape.columns == 256 && k_blocks > kPingPongWideKBlocks)))
        return given;
    Estimate e = pingpong_estimate(cm, cn, {128, 128}, sms);
    if (!pingpong(e)) return given;
    e.transposed = given.transposed;
    e.reason = same_tile ? given.reason
                         : "a short K over many tiles: 128x128 in ping-pong, whose epilogues run under "
                           "the other consumer's main loop";
    return e;
}

inline Estimate choose(long long m, long long n, long long k, int sms, int cluster,
                       bool share_last_wave = true, double dram_gbps = stream_k::kH100DramGBps) {
    const Estimate e = split_tile(choose_orientation(m, n, k, sms, cluster, share_last_wave, dram_gbps), m, n,
                                  k, sms, cluster, share_last_wave, dram_gbps);
    return pingpong_schedule(e, m, n, k, sms, share_last_wave, true);
}

// One line: the chosen tile, its tiles and waves, the schedule and why, e.g.
// "tile 64x128: 128 tiles, 1 wave of 132 SMs, data-parallel: 128x256 tiles would fill ...".
inline std::string explain(long long m, long long n, long long k, int sms, int cluster,
                           bool share_last_wave = true, double dram_gbps = stream_k::kH100DramGBps) {
    const Estimate e = choose(m, n, k, sms, cluster, share_last_wave, dram_gbps);
    char line[320];
    std::snprintf(line, sizeof line, "%stile %dx%d: %lld tiles, %lld wave%s of %d SMs, %s: %s",
                  e.transposed ? "C^T = B A^T, " : "", e.shape.rows,
                  e.shape.columns, e.tiles, e.waves, e.waves == 1 ? "" : "s", sms,
                  e.splits > 1 ? "split-K, then the reduce kernel"
                  : e.sharing_clusters ? "last wave shared (stream-K)"
                  : pingpong(e) ? "ping-pong" : "data-parallel", e.reason);
    return line;
}

}  // namespace ladder::tile_choice
