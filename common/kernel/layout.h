// layout.h: the layout arithmetic of the ladder in one place: where a 16-byte chunk of a
// k-block sits in swizzled shared memory, which lane's ldmatrix row address points where,
// which thread and register of an MMA accumulator hold which element of C, which CTA of a
// cluster loads which slice of B, and in which order a persistent grid walks the tiles.
//
// Steps 02-06 call these functions (03 and 04 get them through mma_sync.cuh), and so does
// the host tool ladder-layout (common/models/layout_main.cpp), which prints the layouts and writes
// the data for the pictures (common/scripts/plot_layouts.py): a picture cannot drift away from the
// code it shows. Step 07's tile_origin, B slices and C-box swizzle are the same arithmetic
// as tile_place, b_slice_first_row, edge_box_rows and swizzled_offset here. Plain C++ (constexpr,
// __host__ __device__ under nvcc), so tests/test_layout.cpp checks it on the CPU.
#pragma once

#include <cstdint>

#if !defined(LADDER_HOST_DEVICE)
#if defined(__CUDACC__)
#define LADDER_HOST_DEVICE __host__ __device__
#else
#define LADDER_HOST_DEVICE
#endif
#endif

namespace ladder::layout {

// How many tiles of size `tile` cover x >= 1 elements (rows, columns, k-blocks): every
// step's grid and k-loop count with it. (x + tile - 1) / tile would overflow int for x
// close to INT_MAX.
LADDER_HOST_DEVICE constexpr int ceil_div(int x, int tile) { return (x - 1) / tile + 1; }

// -------------------------------------------------------------------------------------
// Shared memory: banks and the XOR swizzle
// -------------------------------------------------------------------------------------
// Shared memory has 32 banks of 4 bytes; 128 consecutive bytes touch every bank once. A
// 16-byte chunk covers 4 banks, a "bank group": byte b is in bank (b / 4) % 32 and bank
// group (b / 16) % 8.
constexpr int kBanks = 32;
constexpr int kBankBytes = 4;
constexpr int kChunkBytes = 16;
constexpr int kSwizzleRowBytes = 128;  // a k-block row of 64 bf16: one 128-byte swizzle span

LADDER_HOST_DEVICE constexpr int bank_of(uint32_t byte) {
    return static_cast<int>((byte / kBankBytes) % kBanks);
}
LADDER_HOST_DEVICE constexpr int bank_group_of(uint32_t byte) {
    return static_cast<int>((byte / kChunkBytes) % (kBanks * kBankBytes / kChunkBytes));
}

// The chunk position that chunk `chunk` of row `row` is stored at: chunk ^ (row % 8).
// Chunk c of 8 consecutive rows then lands on 8 different bank groups.
LADDER_HOST_DEVICE constexpr int swizzle_chunk(int row, int chunk) { return chunk ^ (row % 8); }

// Byte offset of chunk `chunk` of row `row` in a tile of ROW_BYTES-byte rows, XOR-swizzled.
// With ROW_BYTES = 128 (every k-block of A and B, and step 07's C boxes) this is the layout
// CU_TENSOR_MAP_SWIZZLE_128B makes the TMA write into a 1024-byte aligned tile, and the one
// wgmma reads through a 128B-swizzle descriptor (swizzle_address below, mode B128, is the
// same thing written on address bits). Step 06 stages 512-byte rows of C with it.
template <int ROW_BYTES = kSwizzleRowBytes>
LADDER_HOST_DEVICE constexpr uint32_t swizzled_offset(int row, int chunk) {
    return static_cast<uint32_t>(row * ROW_BYTES + (swizzle_chunk(row, chunk) * kChunkBytes));
}

// The TMA swizzle modes (CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B}); the value is how many
// bits of the 16-byte chunk index the XOR changes.
enum class Swizzle : int { None = 0, B32 = 1, B64 = 2, B128 = 3 };

// Bytes per row of a box in that mode: the box's inner dimension is at most this (none: a
// row of the ladder's k-block, 128 bytes).
LADDER_HOST_DEVICE constexpr int swizzle_span_bytes(Swizzle s) {
    return s == Swizzle::None ? kSwizzleRowBytes : kChunkBytes << static_cast<int>(s);
}

// The swizzle as the TMA unit and wgmma apply it to a byte offset inside a 1024-byte
// aligned tile: address bits 4.. (the chunk within a span) XOR bits 7.. (the 128-byte row
// within a group of 8), 3 bits for 128B, 2 for 64B, 1 for 32B, none for None. The pattern
// repeats every 1024 bytes, which is why swizzled tiles start 1024-byte aligned.
LADDER_HOST_DEVICE constexpr uint32_t swizzle_address(uint32_t offset, Swizzle s) {
    const uint32_t mask = (1u << static_cast<int>(s)) - 1u;
    return offset ^ (((offset >> 7) & mask) << 4);
}

// Where the TMA puts chunk `chunk` (k = 8*chunk..8*chunk+7) of row `row` of a K-major
// `rows` x 64 bf16 tile: one box per swizzle span of K (a 64-byte span splits the 128-byte
// rows into two boxes of `rows` x 32, stored one after the other), then the swizzle.
LADDER_HOST_DEVICE constexpr uint32_t kmajor_tile_offset(int row, int chunk, int rows, Swizzle s) {
    const int span = swizzle_span_bytes(s);
    const int byte_in_row = chunk * kChunkBytes;
    const uint32_t linear =
        static_cast<uint32_t>(byte_in_row / span * rows * span + row * span + byte_in_row % span);
    return swizzle_address(linear, s);
}

// -------------------------------------------------------------------------------------
// ldmatrix.x4 (step 02): which row and chunk each lane gives the address of
// -------------------------------------------------------------------------------------
// PTX ISA "ldmatrix": lanes 8q..8q+7 give the 8 row addresses of matrix q (16 bytes each),
// and the hardware reads one matrix per phase. Relative to the top-left of the fragment,
// in rows and 16-byte chunks of the k-step (a k-step of 16 bf16 is 2 chunks):
//   A, one 16x16 tile: matrix q = rows 8*(q%2).., chunk q/2 -> a[0..3] of mma.m16n8k16.
//   B, two n8 tiles (n x k): matrix q = n rows 8*(q/2).., chunk q%2 -> b[0], b[1] of the
//   first n8 tile, then of the second.
LADDER_HOST_DEVICE constexpr int ldmatrix_a_row(int lane) { return lane % 16; }
LADDER_HOST_DEVICE constexpr int ldmatrix_a_chunk(int lane) { return lane / 16; }
LADDER_HOST_DEVICE constexpr int ldmatrix_b_row(int lane) { return lane % 8 + 8 * (lane / 16); }
LADDER_HOST_DEVICE constexpr int ldmatrix_b_chunk(int lane) { return (lane / 8) % 2; }

// -------------------------------------------------------------------------------------
// Accumulator fragments: (thread, register) -> (row, column) of the MMA's D tile
// -------------------------------------------------------------------------------------
// mma.sync.m16n8k16 .f32 (PTX ISA "Matrix Fragments for mma.m16n8k16", the D figure):
// lane l holds d[0], d[1] at row l/4, columns 2*(l%4) and +1; d[2], d[3] 8 rows lower.
LADDER_HOST_DEVICE constexpr int mma_acc_row(int lane, int reg) { return lane / 4 + 8 * (reg / 2); }
LADDER_HOST_DEVICE constexpr int mma_acc_col(int lane, int reg) { return 2 * (lane % 4) + reg % 2; }

// wgmma m64nNk16 .f32 (PTX ISA, wgmma "Register Fragments", the D matrix figure): warp w of
// the warpgroup owns rows 16w..16w+15; register j of lane l is the mma.sync layout of
// n8 block j/4, register j%4:
//   acc[j] -> row 16w + l/4 + 8*((j/2)%2),  col 8*(j/4) + 2*(l%4) + j%2.
LADDER_HOST_DEVICE constexpr int wgmma_acc_row(int warp, int lane, int reg) {
    return 16 * warp + lane / 4 + 8 * ((reg / 2) % 2);
}
LADDER_HOST_DEVICE constexpr int wgmma_acc_col(int lane, int reg) {
    return 8 * (reg / 4) + 2 * (lane % 4) + reg % 2;
}

// -------------------------------------------------------------------------------------
// Step 07: which CTA of a cluster loads which slice of the B box
// -------------------------------------------------------------------------------------
// A cluster of `cluster` CTAs computes vertically adjacent tiles that need the same B box
// of `box_rows` rows. CTA `rank` loads rows [first, first + rows) of it and multicasts the
// slice to the same place in every CTA's stage; CTA `rank` computes rows
// (cluster_row * cluster + rank) * BM.. of C.
LADDER_HOST_DEVICE constexpr int b_slice_rows(int box_rows, int cluster) {
    return box_rows / cluster;
}
LADDER_HOST_DEVICE constexpr int b_slice_first_row(int rank, int box_rows, int cluster) {
    return rank * b_slice_rows(box_rows, cluster);
}

// The box that loads the last, partial piece of `rows` rows cut into boxes of `box_rows`:
// only the rows left, rounded up to whole 8-row swizzle atoms (1024 bytes), because TMA's
// zero fill of rows past the matrix is not free. Step 07 loads A's last row of tiles
// (edge_box_rows(M, BM)) and the B slice that holds C's last column
// (edge_box_rows(N % BN, slice rows)) with such boxes. Whole boxes keep their size.
LADDER_HOST_DEVICE constexpr int edge_box_rows(int rows, int box_rows) {
    return rows % box_rows ? ceil_div(rows % box_rows, 8) * 8 : box_rows;
}

// -------------------------------------------------------------------------------------
// Step 07: the persistent tile order
// -------------------------------------------------------------------------------------
// Cluster c of a persistent grid takes cluster tiles c, c + clusters, c + 2 * clusters, ...
// (wave w = tiles w * clusters .. (w + 1) * clusters - 1 run at the same time). A cluster
// tile is `cluster` vertically adjacent CTA tiles; `cluster_rows` rows of them cover M,
// `tiles_n` columns cover N. The order maps a cluster tile number to its place:
//   RowMajor: row by row. The tiles of one wave share a row or two of A but need every
//     column of B.
//   Grouped:  bands of `group_rows` cluster rows, each walked column by column, so the
//     tiles in flight form a block of C and reuse both A and B from L2.
enum class TileOrder : int { RowMajor = 0, Grouped = 1 };

struct TilePlace {
    int cluster_row;  // row of cluster tiles (CTA tile row = cluster_row * cluster + rank)
    int tile_col;     // column of tiles
};

LADDER_HOST_DEVICE constexpr TilePlace tile_place(TileOrder order, int tile, int cluster_rows,
                                                  int tiles_n, int group_rows) {
    if (order == TileOrder::RowMajor) return {tile / tiles_n, tile % tiles_n};
    const int tiles_per_group = group_rows * tiles_n;
    const int group = tile / tiles_per_group;
    const int first_row = group * group_rows;
    const int rows_left = cluster_rows - first_row;
    const int rows_in_group = group_rows < rows_left ? group_rows : rows_left;
    const int in_group = tile - group * tiles_per_group;
    return {first_row + in_group % rows_in_group, in_group / rows_in_group};
}

// Step 07's grouping: GROUP_M_TILES CTA-tile rows per band, i.e. group_m_tiles / cluster
// rows of cluster tiles (at least one).
LADDER_HOST_DEVICE constexpr int group_rows_for(int group_m_tiles, int cluster) {
    return group_m_tiles / cluster > 0 ? group_m_tiles / cluster : 1;
}

}  // namespace ladder::layout
