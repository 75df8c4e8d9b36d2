// stream_k.h: how many clusters share the last wave's k-blocks (step 07's every-shape kernel;
// the measurements in 07_clusters_multicast/NOTES.md, section 5). One rule for step 07's make_schedule() and for the planner, which predicts
// the kernel as it launches. Plain C++ (host only).
#pragma once

#include <algorithm>
#include <climits>

namespace ladder::stream_k {

// Measured on the H200 (07_clusters_multicast/NOTES.md, section 5), in k-blocks of wgmma
// time: a run is at least kMinKBlocks long; sharing costs kFixupKBlocks (partial tiles
// written and published, the owner's wait) plus kPeerKBlocks for every partial the owner
// reads back and adds. Sharing the last wave of 4096^3 (58 tiles of 64 k-blocks over 66
// clusters, 57 k-blocks each) ran 2.6% slower than not sharing, about 14 k-blocks of cost
// per tile; 1000x1992x2056 split in two (17 k-blocks a slice instead of 33) ran 4% slower.
constexpr long long kMinKBlocks = 8;
constexpr long long kFixupKBlocks = 12;
constexpr long long kPeerKBlocks = 4;

// A problem one tile high (M within one tile's rows; after step 07 computes C^T for few
// columns, N) reads every element of B once, from DRAM, and its one wave is as long as
// DRAM takes for B, however short the runs: a further holder of a tile adds its fix-up and
// saves nothing. Measured on the H200 (NOTES.md section 5), 64x4096x4096 in 64x128 tiles:
// 17.0 us with each tile shared by 2 CTAs, 17.9 by 3, 18.7 by 4 (what the k-block count
// alone picks), 20.3 not shared. Such a wave is shared by at most 2 holders per tile.
constexpr long long kOneTileRowHolders = 2;

// A single wave of 64-row tiles (one consumer warpgroup each) with K of at most
// kNarrowKBlocks k-blocks (narrow_wave) is bound by how fast its CTAs pull A and B in, not by
// wgmma (a 64x64 k-block is 128 cycles of it), and two things of the k-block count's rule do
// not hold there. Measured on the H100 (NOTES.md, "Both input regimes";
// results/h100/step07_narrow_wave.csv), shared as the count picks against not shared, in one
// process, three rounds:
//   * Runs that straddle tiles (S = all the SMs, not a multiple of L) cost far more than the
//     count says: 160x3072x4096 (72 tiles of 64x128 over 132 CTAs) 0.72-0.78x cuBLAS
//     against 0.85-0.94x not shared; 320x2048x4096 (80 tiles) 0.69-0.70x against 0.99-1.00x;
//     1024x320x4096 (80 of 64x64) 0.58-0.61x against 0.72-0.76x. Such a wave tries split-K
//     only (S a multiple of L), which still pays: 128x2048x4096 (64 tiles of 64x64 in two
//     rows, split in two) 0.90-0.96x against 0.75-0.81x; 768x320x4096 0.85x against 0.67x;
//     2048x96x4096 (as C^T) 0.86-0.87x against 0.72x.
//   * One tile high or wide, the wave reads the large operand exactly once from DRAM, and where its
//     CTAs already ask for more than the DRAM gives (kNarrowTileGBps each, feed_bound_wave),
//     more CTAs on the same bytes only add the fix-up: 4096x32x4096 (64 tiles of 64x64 as
//     C^T, split in two) 0.87-0.88x against 0.92x; 64x4096x4096 0.90-0.91x against
//     0.96-0.97x. On the H200 (4.8 TB/s; NOTES.md section 5) the same 64x4096x4096 ran in
//     16.4 us split against 18.9 whole: 60 GB/s per CTA lies between the H100's 3352 / 64 =
//     52 and the H200's 4800 / 64 = 75.
// A 128-row tile's wave keeps the count's rule (8192x192x4096, 64 tiles of 128x192 split in
// two: 0.94-0.95x against 0.80x), as does a longer K (64x4096x16384 split in two: 1.08x, in
// results/h100/class_shapes.csv).
constexpr long long kNarrowKBlocks = 64;
constexpr double kNarrowTileGBps = 60;
inline bool narrow_wave(long long cta_tiles, long long slots, long long k_blocks, int tile_rows) {
    return tile_rows == 64 && cta_tiles <= slots && k_blocks <= kNarrowKBlocks;
}
inline bool feed_bound_wave(long long tiles_m, long long tiles_n, double dram_gbps) {
    return (tiles_m == 1 || tiles_n == 1) && static_cast<double>(tiles_m * tiles_n) * kNarrowTileGBps > dram_gbps;
}

// The H100 SXM's DRAM bandwidth (2 x 2619 MHz x 5120 bits), the planner's default where no
// device is asked.
constexpr double kH100DramGBps = 3352;

// Runs that start and end inside tiles (S not a multiple of L) read K out of step with one
// another: the clusters on one row of tiles no longer read the same k-block of A at about
// the same time, nor those on one column the same k-block of B, so the L2 keeps their
// operands only where all of them fit at once. Where the last wave's rows of A and columns
// of B, over all of K, exceed kL2Bytes, a shared k-block costs kOutOfStepTenths / 10 more.
// Measured on the H100 (NOTES.md, "Both input regimes"; results/h100/step07_ablations.csv),
// each shape shared and not shared in one process: 8192x4096x14336 (50 leftover tiles over 66
// clusters, 110 MB of operands) 0.95x cuBLAS shared against 1.00x not; 8192x4096x8192
// (63 MB) 0.96x against 1.00x; 4096x4096x14336 (117 MB) 0.84x against 1.00x; but 8192^3
// (52 MB, runs of half a tile) 1.045x against 1.022x and 8192x8192x12288 (82 MB) 1.041x
// against 1.024x. A penalty of 2 to 7 tenths of a k-block fits those; 3 keeps sharing
// where runs are short. Split-K (S a multiple of L) keeps its slices in step. kL2Bytes is
// the H100's 50 MB (the H200 has 60), a constant so that the planner and the kernel agree.
constexpr long long kL2Bytes = 50LL << 20;
constexpr long long kOutOfStepTenths = 3;

// Step 07's grouped tile order (gemm.cu: GROUP_M_TILES CTA-tile rows per band) as far as the
// last wave needs it: the bytes of A rows and B columns that the last `leftover` of `tiles`
// tile numbers read over all of K, tiles of unit_rows x unit_columns on a grid of
// cluster_rows x tiles_n, group_rows rows per band. Tiles in a band go column by column,
// so a band's run of tiles covers min(count, its rows) rows and a range of columns; later
// bands start again at column 0.
inline long long last_wave_operand_bytes(long long tiles, long long leftover, long long cluster_rows,
                                         long long tiles_n, long long group_rows, long long unit_rows,
                                         long long unit_columns, long long k) {
    long long rows = 0, first_lo = -1, first_hi = -1, later_hi = -1;
    for (long long t = tiles - leftover; t < tiles && leftover > 0;) {
        const long long band = t / (group_rows * tiles_n);
        const long long band_first = band * group_rows * tiles_n;
        const long long band_rows = std::min(group_rows, cluster_rows - band * group_rows);
        const long long band_end = std::min(tiles, band_first + band_rows * tiles_n);
        rows += std::min(band_end - t, band_rows);
        const long long lo = (t - band_first) / band_rows, hi = (band_end - 1 - band_first) / band_rows;
        if (first_lo < 0) first_lo = lo, first_hi = hi;
        else later_hi = std::max(later_hi, hi);
        t = band_end;
    }
    // Columns: the first band's [first_lo, first_hi], and [0, later_hi] of the others.
    const long long columns = later_hi < 0 ? first_hi - first_lo + 1
                                           : later_hi + 1 + std::max(0LL, first_hi - std::max(first_lo, later_hi + 1) + 1);
    const long long elements = rows * unit_rows + columns * unit_columns;  // rows of A and B
    return elements > LLONG_MAX / 2 / std::max(k, 1LL) ? LLONG_MAX : elements * k * 2;
}

// Whether the last, partial wave of `tiles` tiles on `max_clusters` clusters reads more A
// and B than kL2Bytes (the grid and tile as in last_wave_operand_bytes).
inline bool last_wave_exceeds_l2(long long tiles, long long max_clusters, long long cluster_rows,
                                 long long tiles_n, long long group_rows, long long unit_rows,
                                 long long unit_columns, long long k) {
    if (max_clusters <= 0) return false;
    return last_wave_operand_bytes(tiles, tiles % max_clusters, cluster_rows, tiles_n, group_rows, unit_rows,
                                   unit_columns, k) > kL2Bytes;
}

// Partials the owner of a shared tile adds when S clusters share L tiles' k-blocks: about
// S/L clusters hold a piece of each tile, one more where S is not a multiple of L and runs
// straddle tile boundaries.
inline long long holders(long long S, long long L) {
    return (S + L - 1) / L - 1 + (S % L != 0 ? 1 : 0);
}

// The L = leftover tiles of the last, partial wave, of k_blocks each, on at most
// max_clusters clusters. Data-parallel, that wave takes k_blocks. Shared among S clusters it
// takes L*k_blocks/S plus the cost of sharing. Tries every S that cuts the tiles evenly
// (split-K, S = j*L) and all of the grid (S = max_clusters); returns the cheapest S
// (clusters, 0 where no S beats the data-parallel wave) and what the wave then costs, in
// k-blocks.
struct LastWave {
    int clusters;
    long long k_blocks;
};
// A narrow wave (narrow_wave) tries split-K only, and none where it is feed_bound
// (feed_bound_wave).
inline LastWave last_wave(long long leftover, long long k_blocks, long long max_clusters,
                          bool one_tile_row = false, bool exceeds_l2 = false, bool narrow = false,
                          bool feed_bound = false) {
    LastWave best{0, leftover > 0 ? k_blocks : 0};
    if (leftover <= 0 || (narrow && feed_bound)) return best;
    const long long shared_kblocks = leftover * k_blocks;
    for (long long clusters = 2 * leftover; clusters <= max_clusters + leftover; clusters += leftover) {
        const long long S = clusters <= max_clusters ? clusters : max_clusters;
        if (S <= leftover || (narrow && S % leftover != 0)) break;
        if (one_tile_row && S > kOneTileRowHolders * leftover) break;
        const long long run = (shared_kblocks + S - 1) / S;
        if (run < kMinKBlocks) break;
        const long long out_of_step = exceeds_l2 && S % leftover != 0 ? run * kOutOfStepTenths / 10 : 0;
        const long long cost = run + out_of_step + kFixupKBlocks + kPeerKBlocks * holders(S, leftover);
        if (cost < best.k_blocks) best = {static_cast<int>(S), cost};
        if (S == max_clusters) break;
    }
    return best;
}

// Few tiles with a long K: split-K through a reduce kernel (schedule.cuh, reduce_splits).
// Where at least kSplitMinSlices slices of every tile fit in one wave of the grid's slots
// and K is at least kSplitMinTileKBlocks k-blocks long, each tile is cut into as many equal
// slices of K as the slots hold (one wave), none shorter than kSplitMinKBlocks k-blocks. Such a problem reads
// its operands once from DRAM and is bound by that read, not by wgmma: what counts is how
// many SMs pull operands at once. Stream-K's shared tiles (last_wave above) wait for one
// another inside the kernel; the slices of split-K never wait, and their fp32 partials
// (in L2) are added by a second kernel.
constexpr long long kSplitMinKBlocks = 8;
constexpr long long kSplitMinSlices = 6;
constexpr long long kSplitMinTileKBlocks = 128;
inline int split_count(long long tiles, long long slots, long long k_blocks) {
    if (tiles <= 0 || tiles * kSplitMinSlices > slots || k_blocks < kSplitMinTileKBlocks) return 1;
    const long long by_slots = slots / tiles;
    const long long by_k = k_blocks / kSplitMinKBlocks;
    const long long splits = by_slots < by_k ? by_slots : by_k;
    return splits >= 2 ? static_cast<int>(splits) : 1;
}

// make_schedule's question: how many clusters share the last wave (0: none).
inline int sharing_clusters(long long leftover, long long k_blocks, long long max_clusters,
                            bool one_tile_row = false, bool exceeds_l2 = false, bool narrow = false,
                            bool feed_bound = false) {
    return last_wave(leftover, k_blocks, max_clusters, one_tile_row, exceeds_l2, narrow, feed_bound).clusters;
}

}  // namespace ladder::stream_k
