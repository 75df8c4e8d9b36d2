// tiles.cuh: the tiles of step 07's every-shape kernel (every_shape.cu beside this file), one
// chosen per problem. The kernel there is compiled once per tile of the family
// (tile_family.h); this file holds what each tile derives, and what lets one kernel serve
// every shape of problem. Read it before every_shape.cu.
//   device: Tile<CONSUMERS, COLUMNS> (each tile's stages, shared memory, registers and
//           whether it may be shared,
//           derived below), B_SLICE_ROWS/BYTES, slice_cluster, wgmma_tile (the wgmma of the
//           tile's width), b_edge_slice and stage_tx_bytes (what a stage receives where a
//           box is cut short at C's edge), CStore, store_tile_direct and
//           store_tile_transposed (the epilogue's direct stores, of C and of C^T)
//   host:   with_tile (the planner's Shape -> the compiled tile), OperandMaps and
//           make_operand_maps (the tensor maps of A and B with their edge boxes)
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "layout.h"  // wgmma_acc_row/col
#include "tensor_map.h"  // make_tensor_map_2d
#include "step_api.h"  // fail
#include "tile_choice.h"  // slice_cluster: the planner's model of these tiles
#include "tile_family.h"  // the family's table (LADDER_EVERY_SHAPE_TILES), stages
#include "warp_specialization.cuh"  // store_pair: taught in step 06
#include "wgmma_shapes.cuh"  // beside this file: wgmma_m64n{64,96,128,144,160,192,224}k16

namespace ladder {

// -------------------------------------------------------------------------------------
// The tile family
// -------------------------------------------------------------------------------------
// Step 07's gemm.cu derives its large tile, 128x256 with 4 stages, as step 06 does. What
// the every-shape kernel adds is the choice of the tile per problem, Tile<CONSUMERS, COLUMNS>
// (the rows of tile_family.h's table): 1, 2 or 3 consumers (64, 128 or 192 rows) by 64 to
// 256 columns (wgmma m64nNk16 with N = 256, 224, 192, 168, 160, 144, 128, 96 or 64: N/2
// accumulators per thread).
//   * 128x256 (step 06's tile) is the ladder's shape for large problems.
//   * The smaller tiles make more tiles: they fill the GPU when the problem has few, or
//     fill its waves better, at the price of more bytes from L2 per FLOP (128x128: 32 KB a
//     stage for half the math of 128x256's 48 KB).
//   * Some widths fit a problem: 12 x 11 = 132 tiles of 128x144 cover 1536^2 in one wave of
//     the H200's 132 SMs; a short side of 129 to 160 fits one 144- or 160-column tile; 64x96
//     tiles take a short side of 129 to 192 as three rows of tiles, and 64x192 tiles a short
//     M of 161 to 192; 224 columns fit 1792 = 8 x 224 and a short N of 193 to 224.
//   * Some widths fill the waves of mid-size problems: 128x168 makes as many waves as
//     128x192 with an eighth less per SM (2304^2: 252 tiles against 216, two waves either
//     way), 128x224 fewer than 128x144 with fewer bytes per FLOP (2560^2: two waves
//     against three).
//   * 128x64 puts two consumers on an M of 97 to 128: half as many tiles as 64x64.
//   * 192x192 (three consumers) reads 288 rows from L2 per k-block in clusters of 2 for 1.5x
//     the math of 128x192's 224: where K % 64 != 0 the problem is bound by those reads
//     (NOTES.md, "A 192x192 tile, three consumers").
// The planner picks one per problem (tile_choice.h beside this file). Three consumers are
// 512 threads, which start with 65536/512 = 128 registers each, and ptxas allocates the
// whole kernel within that (setmaxnreg moves registers at run time only): 192x192's 96
// accumulators fit, with no stream-K or split-K code compiled (SHARES below: the fix-up
// keeps up to 32 float4 loads in flight); 192x256's 128 do not (ptxas error C7602).
//
// Shared memory (227 KB = 232448 bytes a CTA may opt in to): C staging for the TMA store
// (one 64 x EPI_COLUMNS bf16 tile per consumer, 16 or 8 KB each), the barriers and 2 KB of alignment
// slack; then as many stages of A (BM x 64) and B (BN x 64) as fit (tile_choice::stages in
// tile_family.h, which the planner reads too): 128x256 holds 32 KB + 4 stages x 48 KB =
// 224 KB, 64x64 16 KB + 13 stages x 16 KB = 224 KB; `ladder-plan --step 7 --tile RxC`
// prints any tile's. (All of a consumer's 64x256 piece would be 32 KB: it is stored in two
// 128-column halves through one 16 KB buffer, waiting for the first store to have read the
// buffer before the second, so that the stages keep the room.) None of this depends on the
// cluster size.
constexpr int BK = tile_choice::kBlockColumns;  // 64: one 128-byte swizzle row of bf16
constexpr int WARPGROUP_THREADS = 128;
constexpr int WGMMA_M = 64;  // rows of C per consumer: one wgmma m64
constexpr int MAX_CONSUMERS = 3;
// The most consumers of a tile that stream-K and split-K share (tile_choice::shares): the
// workspace holds a partial tile for each.
constexpr int SHARING_CONSUMERS = 2;
constexpr size_t SMEM_OPTIN_BYTES = tile_choice::kSmemOptinBytes;  // 227 KB on an H100
constexpr int EPI_N = 128;    // the most columns of C a consumer stages in shared memory at a time
constexpr int C_BOX = 64;     // a TMA store box is 64x64 bf16: 128-byte rows, one swizzle span

// One tile of the family: everything the kernel and its launch derive from its shape.
template <int CONSUMERS, int COLUMNS>
struct Tile {
    static constexpr int CONSUMER_WARPGROUPS = CONSUMERS;
    static constexpr int BM = WGMMA_M * CONSUMERS;  // rows of C per CTA
    static constexpr int BN = COLUMNS;  // columns of C per CTA (one B box, shared by the cluster)
    static constexpr int ACC_REGS = WGMMA_M * BN / WARPGROUP_THREADS;  // fp32 accumulators per thread
    static constexpr int THREADS = (1 + CONSUMERS) * WARPGROUP_THREADS;
    static constexpr uint32_t A_TILE_BYTES = BM * BK * sizeof(__nv_bfloat16);
    static constexpr uint32_t B_TILE_BYTES = BN * BK * sizeof(__nv_bfloat16);
    // A consumer's partial tile for stream-K: 64 x BN fp32 (64 KB at BN = 256).
    static constexpr int PARTIAL_FLOATS = WGMMA_M * BN;
    // Columns the TMA store writes: whole 64-column boxes. The rest of a width that is not
    // a multiple of 64 (the last 16 of 144, the last 32 of 160, 96 and 224) is stored directly.
    static constexpr int TMA_COLUMNS = BN / C_BOX * C_BOX;
    // Columns the epilogue stages per round through the consumer's C buffer: 128, or one
    // 64-column box at a time where 128 does not divide them (the 192 of 192 and of 224).
    static constexpr int EPI_COLUMNS = TMA_COLUMNS % EPI_N == 0 ? EPI_N : C_BOX;
    // Stream-K and split-K may share this tile (tile_family.h: one or two consumers).
    static constexpr bool SHARES = tile_choice::shares({BM, BN});
    // The most stages that fit beside the C staging, the barriers and the alignment slack
    // (one formula for the kernel and the planner: tile_family.h).
    static constexpr int STAGES = tile_choice::stages({BM, BN});
    // setmaxnreg: the producer keeps what issuing TMA needs, the consumers take the rest of
    // the CTA's launch allocation. With one consumer every thread already has the most a
    // thread can hold (255), so there is nothing to move.
    static constexpr int LAUNCH_REGISTERS = 65536 / THREADS / 8 * 8;  // per thread, at launch
    static constexpr int PRODUCER_REGISTERS = 40;
    static constexpr int CONSUMER_REGISTERS =  // 232 with two consumers, 152 with three
        std::min(232, (LAUNCH_REGISTERS * THREADS / WARPGROUP_THREADS - PRODUCER_REGISTERS) / CONSUMERS / 8 * 8);
    static constexpr bool MOVES_REGISTERS = CONSUMERS > 1;
    // Ping-pong (every_shape.cu): one consumer holds the whole BM x BN tile, two 64-row
    // blocks of ACC_REGS accumulators, with room above them.
    static constexpr bool PINGPONG_CAPABLE = tile_choice::pingpong_tile({BM, BN});

    struct SharedStorage {
        // Every tile is a multiple of 1024 bytes, so with the struct 1024-aligned every tile
        // is too (the 128B swizzle pattern, and wgmma's and TMA's reading of it, are
        // anchored there). The B slices a cluster's CTAs multicast start at multiples of 64
        // rows = 8 KB.
        alignas(1024) __nv_bfloat16 a[STAGES][BM * BK];
        alignas(1024) __nv_bfloat16 b[STAGES][BN * BK];
        alignas(1024) __nv_bfloat16 c[CONSUMERS][WGMMA_M * EPI_COLUMNS];  // one or two 64x64 boxes each
        uint64_t full_barrier[STAGES];   // "A and every B slice have landed in THIS CTA"
        uint64_t empty_barrier[STAGES];  // "every consumer of the cluster is done reading"
    };
    static constexpr size_t SMEM_BYTES = sizeof(SharedStorage) + 1024;

    static_assert(CONSUMERS >= 1 && CONSUMERS <= MAX_CONSUMERS, "64, 128 or 192 rows");
    static_assert(EPI_COLUMNS == tile_choice::staging_columns({BM, BN}),
                  "the stage count (tile_family.h) sets aside the C staging this kernel holds");
    static_assert(!SHARES || CONSUMERS <= SHARING_CONSUMERS, "the workspace holds every sharing consumer's partials");
    static_assert(tile_choice::in_family({BM, BN}), "a tile of the family (tile_family.h)");
    static_assert(TMA_COLUMNS % EPI_COLUMNS == 0 && EPI_COLUMNS % C_BOX == 0,
                  "whole store boxes per round");
    static_assert(BM <= 256, "a TMA box has at most 256 rows");
    static_assert(STAGES >= 2, "a consumer holds one stage while it waits for the next: at least two");
    static_assert(SMEM_BYTES <= SMEM_OPTIN_BYTES, "fits the opt-in limit");
    static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
                  "every tile starts on a 1024-byte boundary, where the swizzle pattern starts");
    static_assert(PRODUCER_REGISTERS % 8 == 0 && CONSUMER_REGISTERS % 8 == 0,
                  "setmaxnreg counts are multiples of 8");
    static_assert(PRODUCER_REGISTERS >= 24 && CONSUMER_REGISTERS <= 256,
                  "setmaxnreg range is 24..256");
    // setmaxnreg only moves registers within what the CTA was launched with: a consumer's
    // setmaxnreg.inc waits until the producer's .dec has handed enough back, and would
    // wait forever if it asked for more.
    static_assert(!MOVES_REGISTERS ||
                      WARPGROUP_THREADS * (PRODUCER_REGISTERS + CONSUMERS * CONSUMER_REGISTERS) <=
                          LAUNCH_REGISTERS * THREADS,
                  "the re-balanced registers must fit the CTA's launch allocation");
    static_assert(CONSUMER_REGISTERS >= ACC_REGS + 56, "room above the accumulators (192x192: 96 in 152)");
    static_assert(!PINGPONG_CAPABLE || (CONSUMERS == 2 && CONSUMER_REGISTERS >= 2 * ACC_REGS + 64),
                  "room above a ping-pong consumer's two blocks of accumulators");
    static_assert(A_TILE_BYTES + B_TILE_BYTES < (1u << 20),
                  "an mbarrier transaction count must stay below 2^20");
};

// Rows of the BN-row B box that one CTA of a cluster loads and multicasts.
template <int CLUSTER, class T>
constexpr int B_SLICE_ROWS = T::BN / CLUSTER;
template <int CLUSTER, class T>
constexpr uint32_t B_SLICE_BYTES = B_SLICE_ROWS<CLUSTER, T> * BK * sizeof(__nv_bfloat16);

static_assert(WGMMA_M == 64, "each consumer issues wgmma with M = 64");
static_assert(C_BOX * sizeof(__nv_bfloat16) == 128,
              "a C store box row must be exactly one 128-byte swizzle span");
static_assert(EPI_N % C_BOX == 0, "whole store boxes per epilogue round");
static_assert(WGMMA_M * C_BOX * sizeof(__nv_bfloat16) % 1024 == 0, "C tiles stay 1024-aligned");

// The cluster size a tile runs, up to CLUSTER (tile_choice::slice_cluster: whole 8-row
// swizzle atoms per B slice).
template <class T>
constexpr int slice_cluster(int cluster) {
    return tile_choice::slice_cluster({T::BM, T::BN}, cluster);
}
static_assert(slice_cluster<Tile<2, 144>>(4) == 2 && slice_cluster<Tile<1, 160>>(4) == 4 &&
                  slice_cluster<Tile<1, 96>>(4) == 4 && slice_cluster<Tile<2, 224>>(4) == 4 &&
                  slice_cluster<Tile<2, 256>>(4) == 4 &&
                  slice_cluster<Tile<2, 168>>(2) == 1,
              "the cluster sizes each tile runs");

// -------------------------------------------------------------------------------------
// Device helpers
// -------------------------------------------------------------------------------------
// The tile's width is the wgmma's N: one m64nBNk16 (wgmma_shapes.cuh beside this file has each shape).
template <int BN, int ACC_REGS>
__device__ __forceinline__ void wgmma_tile(float (&acc)[ACC_REGS], uint64_t a, uint64_t b,
                                           uint32_t accumulate) {
    if constexpr (BN == 256) wgmma_m64n256k16(acc, a, b, accumulate);
    else if constexpr (BN == 224) wgmma_m64n224k16(acc, a, b, accumulate);
    else if constexpr (BN == 192) wgmma_m64n192k16(acc, a, b, accumulate);
    else if constexpr (BN == 168) wgmma_m64n168k16(acc, a, b, accumulate);
    else if constexpr (BN == 160) wgmma_m64n160k16(acc, a, b, accumulate);
    else if constexpr (BN == 144) wgmma_m64n144k16(acc, a, b, accumulate);
    else if constexpr (BN == 128) wgmma_m64n128k16(acc, a, b, accumulate);
    else if constexpr (BN == 96) wgmma_m64n96k16(acc, a, b, accumulate);
    else if constexpr (BN == 64) wgmma_m64n64k16(acc, a, b, accumulate);
    else static_assert(BN == 64, "a width with no wgmma here: add its shape to wgmma_shapes.cuh");
}

// The edge boxes. The last row of tiles reads A through its edge map (OperandMaps::edge,
// below), whose box holds only the rows left (rounded up to whole 8-row swizzle atoms), and
// in the last column of tiles the B slice that holds C's last column reads B through B's
// edge map, likewise (launch_tile makes both with make_operand_maps, below). b_edge_slice: which slice of the tile at
// column n0 that is (cols_left = N - n0), CLUSTER where every slice is whole.
template <int CLUSTER, class T>
__device__ __forceinline__ int b_edge_slice(int cols_left) {
    constexpr int B_SLICE = B_SLICE_ROWS<CLUSTER, T>;
    return cols_left < T::BN && cols_left % B_SLICE != 0 ? cols_left / B_SLICE : CLUSTER;
}
// The bytes a CTA's full barrier expects per k-block: `a_bytes` of A, and b_slices slices
// of B, every CTA's, of which the edge slice (if any) delivers only b_edge_bytes.
template <int CLUSTER, class T>
__device__ __forceinline__ uint32_t stage_tx_bytes(uint32_t a_bytes, int b_slices, int edge_slice,
                                                   uint32_t b_edge_bytes) {
    return a_bytes + static_cast<uint32_t>(b_slices) * B_SLICE_BYTES<CLUSTER, T> -
           (edge_slice < CLUSTER ? B_SLICE_BYTES<CLUSTER, T> - b_edge_bytes : 0u);
}

// How the epilogue writes C (launch_tile decides): a TMA store where C's tensor map exists,
// step 06's direct stores where it cannot (N % 8 != 0), or direct stores of the transpose
// when the kernel computes C^T = B A^T for a problem of few columns, or of 129 to 192 rows
// (NOTES.md section 6).
enum CStore : int { kStoreTma = 0, kStoreDirect = 1, kStoreTransposed = 2 };

// Step 06's bounds-checked direct stores from the wgmma D layout, of accumulators FIRST
// and on: all of them where C has no tensor map, or the columns past the TMA store's last
// whole 64-column box. c_tile is the piece's first element, rows ldc apart.
template <int FIRST, int ACC_REGS>
__device__ __forceinline__ void store_tile_direct(__nv_bfloat16* c_tile, int ldc, int rows_left,
                                                  int cols_left, int warp, int lane,
                                                  const float (&acc)[ACC_REGS]) {
#pragma unroll
    for (int j = FIRST; j < ACC_REGS; j += 2) {
        const int row = layout::wgmma_acc_row(warp, lane, j);
        const int col = layout::wgmma_acc_col(lane, j);
        store_pair(c_tile, ldc, rows_left, cols_left, row, col, acc[j], acc[j + 1]);
    }
}

// The direct-store epilogue of a kernel that computes C^T: element (row, col) of C^T's
// tile is element (col, row) of C, whose rows are ldc = the kernel's M apart. In n8 block
// q a thread holds rows r and r + 8 of columns c = 8q + 2(lane % 4) and c + 1 (wgmma's D
// layout): four 2-byte stores, at offsets 0, 8, ldc and ldc + 8 from one pointer that moves
// 8 rows of C per block. The 8 lanes that share a column write neighbouring elements of
// one row of C.
template <int ACC_REGS>
__device__ __forceinline__ void store_tile_transposed(__nv_bfloat16* c_tile, int ldc, int rows_left,
                                                      int cols_left, int warp, int lane,
                                                      const float (&acc)[ACC_REGS]) {
    const int row = layout::wgmma_acc_row(warp, lane, 0);
    const int col0 = layout::wgmma_acc_col(lane, 0);
    const bool row_in = row < rows_left, row8_in = row + 8 < rows_left;
    __nv_bfloat16* p = c_tile + static_cast<size_t>(col0) * ldc + row;
#pragma unroll
    for (int q = 0; q < ACC_REGS / 4; ++q, p += static_cast<size_t>(8) * ldc) {
        const int col = col0 + 8 * q;
        if (col < cols_left) {
            if (row_in) p[0] = __float2bfloat16(acc[4 * q]);
            if (row8_in) p[8] = __float2bfloat16(acc[4 * q + 2]);
        }
        if (col + 1 < cols_left) {
            if (row_in) p[ldc] = __float2bfloat16(acc[4 * q + 1]);
            if (row8_in) p[ldc + 8] = __float2bfloat16(acc[4 * q + 3]);
        }
    }
}

// -------------------------------------------------------------------------------------
// Host helpers
// -------------------------------------------------------------------------------------
// The planner's tile as a compiled one: calls launch(TileType<Tile<ROWS / 64, COLUMNS>>{})
// for the tile of the family's table (tile_family.h) that `shape` names. A shape outside the
// table is an error, never run as another tile.
template <class T>
struct TileType {
    using type = T;
};
template <class Launch>
cudaError_t with_tile(const char* step, tile_choice::Shape shape, Launch&& launch) {
#define LADDER_LAUNCH_TILE(R, C) \
    if (shape.rows == (R) && shape.columns == (C)) return launch(TileType<Tile<(R) / WGMMA_M, (C)>>{});
    LADDER_EVERY_SHAPE_TILES(LADDER_LAUNCH_TILE)
#undef LADDER_LAUNCH_TILE
    return fail(cudaErrorInvalidValue, "%s: no %dx%d tile is compiled (the family: tile_family.h)", step,
                shape.rows, shape.columns);
}

// An operand's tensor maps: `whole`, boxes of box_rows rows by BK, and `edge`, the map of
// its last, partial box (edge_rows rows; the same map where the box is whole), with the
// bytes one edge box delivers. Both 128B-swizzled, the layout wgmma's descriptors describe.
// The edge box exists because TMA's zero fill of the rows past the matrix is not free: the
// stage keeps its rows, and those no box writes feed only rows or columns of C that are
// never stored. Measured (NOTES.md section 6): A's, 16x8192x8192 in 38.5 us instead of
// 48.9 (64x64 tiles), 160x8192x4096 in 28.2 us instead of 40.7 (128x128 tiles); B's,
// 1920x1080x4096 in 30.0 us instead of 36.0 (128x144 tiles, the last column's box half
// zeros), 4096x224x4096 in 20.2 instead of 27.8, 14336x160x4096 in 39.8 instead of 41.9.
// Where K % 64 != 0 the rows of A and B are not 128-byte aligned (K = 2056: 4112 bytes
// apart), every 128-byte box row straddles two L2 lines, and the default 256-byte L2
// requests fetch about twice what the box needs: measured, 128-byte requests ran
// 1000x1992x2056 in 25.3 us instead of 28.9 (NOTES.md section 6).
struct OperandMaps {
    CUtensorMap whole{}, edge{};
    uint32_t edge_bytes = 0;
};
inline cudaError_t make_operand_maps(OperandMaps* maps, const __nv_bfloat16* base, int rows, int K,
                                     int box_rows, int edge_rows, const char* step) {
    const CUtensorMapL2promotion promotion =
        K % BK == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    maps->edge_bytes = static_cast<uint32_t>(edge_rows) * BK * sizeof(__nv_bfloat16);
    if (cudaError_t err = make_tensor_map_2d(&maps->whole, base, rows, K, box_rows, BK,
                                             CU_TENSOR_MAP_SWIZZLE_128B, step, promotion);
        err != cudaSuccess)
        return err;
    maps->edge = maps->whole;
    if (edge_rows == box_rows) return cudaSuccess;
    return make_tensor_map_2d(&maps->edge, base, rows, K, edge_rows, BK, CU_TENSOR_MAP_SWIZZLE_128B,
                              step, promotion);
}

}  // namespace ladder
