// layout_views.h: what ladder-layout draws, built on the kernels' own layout functions
// (layout.h): the shared-memory accesses of one cycle of a load or store, and how many
// bank wavefronts they take. Host C++ only; tests/test_layout.cpp checks the counts.
#pragma once

#include <cstdint>
#include <vector>

#include "layout.h"

namespace ladder::layout {

// One thread's part of a shared-memory access: `bytes` bytes from byte `byte` of the tile,
// which hold chunk `chunk` of tile row `row`.
struct Access {
    int thread;
    int row;
    int chunk;
    uint32_t byte;
    int bytes;
};

// Wavefronts a set of accesses issued together needs: the largest number of distinct
// 4-byte words any one bank must deliver (threads reading the same word share it). 1 is
// conflict-free; n is an n-way bank conflict.
int wavefronts(const std::vector<Access>& accesses);

// Byte offset of chunk `chunk` of row `row` of a K-major `rows` x 64 bf16 tile as the
// TMA lays it out in mode `s`. For B128 it is the kernels' swizzled_offset() itself.
uint32_t tile_offset(int row, int chunk, int rows, Swizzle s);

// Step 02, one phase of one ldmatrix.x4: matrix `phase` (lanes 8*phase..8*phase+7) of the
// A load (operand 'A': a 16x16 MMA tile) or B load ('B': two n8 tiles) of k-step `ks`, for
// the warp whose tile starts at row 0 of the k-block.
std::vector<Access> ldmatrix_phase(char operand, int ks, int phase, Swizzle s);

// Step 05, one 8x8 core matrix of a wgmma operand read: rows 8*core_row..+7 of the 64-row
// A slice of a warpgroup, 16-byte chunk 2*ks + core_k (k-step ks of the k-block). The
// tensor core reads its operands core matrix by core matrix, 128 bytes, the width of the
// 32 banks; the addresses within one are what can conflict.
std::vector<Access> wgmma_core_matrix(int ks, int core_row, int core_k, Swizzle s);

// Step 07, one store instruction of the TMA-store epilogue: warp `warp` of a consumer
// writes accumulator pair (reg, reg + 1) of all 32 lanes as bf16x2 into a 64x64 C box of
// 128-byte rows (step 06 stages 512-byte rows with the same XOR).
std::vector<Access> epilogue_store(int warp, int reg, Swizzle s);

// Step 07's persistent schedule for one problem: every CTA tile of C, the cluster tile it
// belongs to, the cluster that computes it and in which wave.
struct ScheduledTile {
    int tile_row;      // CTA tile row (BM rows each)
    int tile_col;      // tile column (BN columns each)
    int cluster_tile;  // number in the order
    int cluster;       // cluster_tile % clusters
    int wave;          // cluster_tile / clusters
    int rank;          // CTA of the cluster
};
struct Schedule {
    int tiles_m, tiles_n, cluster_rows, clusters;
    std::vector<ScheduledTile> tiles;  // tiles_m * tiles_n, row by row of C
};
// M, N >= 1; cluster, clusters, group_m_tiles, bm, bn >= 1 (the caller checks).
Schedule persistent_schedule(TileOrder order, int M, int N, int bm, int bn, int cluster,
                             int clusters, int group_m_tiles);

}  // namespace ladder::layout
