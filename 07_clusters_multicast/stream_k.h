// stream_k.h: how many clusters share the last wave's k-blocks (taught in step 07, README.md
// section 5). One rule for step 07's make_schedule() and for the planner, which predicts
// the kernel as it launches. Plain C++ (host only).
#pragma once

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
inline LastWave last_wave(long long leftover, long long k_blocks, long long max_clusters,
                          bool one_tile_row = false) {
    LastWave best{0, leftover > 0 ? k_blocks : 0};
    if (leftover <= 0) return best;
    const long long shared_kblocks = leftover * k_blocks;
    for (long long clusters = 2 * leftover; clusters <= max_clusters + leftover; clusters += leftover) {
        const long long S = clusters <= max_clusters ? clusters : max_clusters;
        if (S <= leftover) break;
        if (one_tile_row && S > kOneTileRowHolders * leftover) break;
        const long long run = (shared_kblocks + S - 1) / S;
        if (run < kMinKBlocks) break;
        const long long cost = run + kFixupKBlocks + kPeerKBlocks * holders(S, leftover);
        if (cost < best.k_blocks) best = {static_cast<int>(S), cost};
        if (S == max_clusters) break;
    }
    return best;
}

// make_schedule's question: how many clusters share the last wave (0: none).
inline int sharing_clusters(long long leftover, long long k_blocks, long long max_clusters,
                            bool one_tile_row = false) {
    return last_wave(leftover, k_blocks, max_clusters, one_tile_row).clusters;
}

}  // namespace ladder::stream_k
