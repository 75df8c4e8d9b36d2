// tiles.cuh: the tiles of step 07's every-shape kernel, one chosen per problem. Written out
// beside gemm_every_shape.cu, which includes it. The kernel there is gemm.cu's lesson kernel
// compiled once per tile of a family; this file holds what lets that one kernel serve every
// shape of problem. Read it after the tile configuration of gemm_every_shape.cu.
//   device: TileShape<CONSUMERS, COLUMNS> (each tile's stages, shared memory and registers,
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

#include <cstddef>
#include <cstdint>

#include "layout.h"  // wgmma_acc_row/col
#include "tensor_map.h"  // make_tensor_map_2d
#include "tile_choice.h"  // Shape, stages: the planner's model of these tiles
#include "warp_specialization.cuh"  // store_pair: taught in step 06
#include "wgmma_shapes.cuh"  // beside this file: wgmma_m64n{64,96,128,144,160,192,224}k16

namespace ladder {

// -------------------------------------------------------------------------------------
// The tile family
// -------------------------------------------------------------------------------------
// Step 07's gemm.cu derives its large tile, 128x256 with 4 stages, as step 06 does. What
// step 07 adds is the choice of the tile per problem, Tile<CONSUMERS, COLUMNS>: 1 or 2
// consumers (64 or 128 rows) by 64 to 256 columns (wgmma m64nNk16 with N = 256, 224, 192,
// 168, 160, 144, 128, 96 or 64: N/2 accumulators per thread).
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
// The planner picks one per problem (tile_choice.h beside this file). A third
// consumer (192x256, 22% fewer bytes per FLOP) does not compile: 512 threads start with
// 65536/512 = 128 registers each, ptxas allocates the whole kernel within that, and a
// wgmma m64n256 with its 128 accumulators needs at least 154 (error C7602).
//
// Shared memory (227 KB = 232448 bytes a CTA may opt in to): C staging for the TMA store
// (one 64x128 bf16 tile per consumer, 16 KB each), the barriers and 2 KB of alignment
// slack; then as many stages of A (BM x 64) and B (BN x 64) as fit:
//   64x256:  16 KB + 5 stages x 40 KB = 216 KB      64x128:  16 KB + 8 stages x 24 KB = 208 KB
//   128x256: 32 KB + 4 stages x 48 KB = 224 KB      128x128: 32 KB + 6 stages x 32 KB = 224 KB
//   128x192: 32 KB + 4 stages x 40 KB = 192 KB     64x64:   16 KB + 13 stages x 16 KB = 224 KB
//   128x144: 32 KB + 5 stages x 34 KB = 202 KB     64x160:  16 KB + 7 stages x 28 KB = 212 KB
//   128x224: 32 KB + 4 stages x 44 KB = 208 KB     64x96:   16 KB + 10 stages x 20 KB = 216 KB
//   128x64:  32 KB + 8 stages x 24 KB = 224 KB     64x192:  16 KB + 6 stages x 32 KB = 208 KB
//   128x168: 32 KB + 5 stages x 37 KB = 217 KB
// (All of a consumer's 64x256 piece would be 32 KB: it is stored in two 128-column halves
// through one 16 KB buffer, waiting for the first store to have read the buffer before
// the second, so that the stages keep the room.) None of this depends on the cluster size.
constexpr int BK = 64;   // one 128-byte swizzle row of bf16
constexpr int WARPGROUP_THREADS = 128;
constexpr int WGMMA_M = 64;  // rows of C per consumer: one wgmma m64
constexpr int MAX_CONSUMERS = 2;
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
constexpr int EPI_N = 128;    // columns of C a consumer stages in shared memory at a time
constexpr int C_BOX = 64;     // a TMA store box is 64x64 bf16: 128-byte rows, one swizzle span
constexpr uint32_t C_STAGE_BYTES = WGMMA_M * EPI_N * sizeof(__nv_bfloat16);  // 16 KB per consumer

// Step 07's gemm.cu names each tile Tile<CONSUMERS, COLUMNS>, a TileShape of its own.
template <int CONSUMERS, int COLUMNS>
struct TileShape {
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
    // Columns the epilogue stages per round through the consumer's 64x128 C buffer: 128,
    // or one 64-column box at a time where 128 does not divide them (the 192 of 192 and of 224).
    static constexpr int EPI_COLUMNS = TMA_COLUMNS % EPI_N == 0 ? EPI_N : C_BOX;
    // The most stages that fit beside the C staging, the barriers and the alignment slack.
    static constexpr int STAGES =
        static_cast<int>((SMEM_OPTIN_BYTES - CONSUMERS * C_STAGE_BYTES - 2048) /
                         (A_TILE_BYTES + B_TILE_BYTES));
    // setmaxnreg: the producer keeps what issuing TMA needs, the consumers take the rest of
    // the CTA's launch allocation. With one consumer every thread already has the most a
    // thread can hold (255), so there is nothing to move.
    static constexpr int LAUNCH_REGISTERS = 65536 / THREADS / 8 * 8;  // per thread, at launch
    static constexpr int PRODUCER_REGISTERS = 40;
    static constexpr int CONSUMER_REGISTERS = 232;
    static constexpr bool MOVES_REGISTERS = CONSUMERS > 1;

    struct SharedStorage {
        // Every tile is a multiple of 1024 bytes, so with the struct 1024-aligned every tile
        // is too (the 128B swizzle pattern, and wgmma's and TMA's reading of it, are
        // anchored there). The B slices a cluster's CTAs multicast start at multiples of 64
        // rows = 8 KB.
        alignas(1024) __nv_bfloat16 a[STAGES][BM * BK];
        alignas(1024) __nv_bfloat16 b[STAGES][BN * BK];
        alignas(1024) __nv_bfloat16 c[CONSUMERS][WGMMA_M * EPI_N];  // two 64x64 boxes each
        uint64_t full_barrier[STAGES];   // "A and every B slice have landed in THIS CTA"
        uint64_t empty_barrier[STAGES];  // "every consumer of the cluster is done reading"
    };
    static constexpr size_t SMEM_BYTES = sizeof(SharedStorage) + 1024;

    static_assert(CONSUMERS >= 1 && CONSUMERS <= MAX_CONSUMERS, "64 or 128 rows");
    static_assert(BN == 64 || BN == 96 || BN == 128 || BN == 144 || BN == 160 || BN == 168 ||
                      BN == 192 || BN == 224 || BN == 256,
                  "wgmma m64n{64,96,128,144,160,168,192,224,256}k16 (wgmma.cuh)");
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
    static_assert(CONSUMER_REGISTERS >= ACC_REGS + 64, "room above the accumulators");
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
static_assert(C_STAGE_BYTES % 1024 == 0, "C tiles stay 1024-aligned");
static_assert(TileShape<1, 256>::STAGES == 5 && TileShape<2, 256>::STAGES == 4 &&
                  TileShape<1, 128>::STAGES == 8 && TileShape<2, 128>::STAGES == 6 &&
                  TileShape<2, 192>::STAGES == 4 && TileShape<1, 64>::STAGES == 13 &&
                  TileShape<1, 96>::STAGES == 10 && TileShape<1, 192>::STAGES == 6 &&
                  TileShape<2, 224>::STAGES == 4 && TileShape<2, 64>::STAGES == 8 &&
                  TileShape<2, 144>::STAGES == 5 && TileShape<1, 160>::STAGES == 7 &&
                  TileShape<2, 168>::STAGES == 5,
              "the derivation above");
static_assert(TileShape<1, 128>::STAGES == tile_choice::stages({64, 128}) &&
                  TileShape<2, 128>::STAGES == tile_choice::stages({128, 128}) &&
                  TileShape<1, 256>::STAGES == tile_choice::stages({64, 256}) &&
                  TileShape<2, 256>::STAGES == tile_choice::stages({128, 256}) &&
                  TileShape<2, 192>::STAGES == tile_choice::stages({128, 192}) &&
                  TileShape<1, 64>::STAGES == tile_choice::stages({64, 64}) &&
                  TileShape<1, 96>::STAGES == tile_choice::stages({64, 96}) &&
                  TileShape<1, 192>::STAGES == tile_choice::stages({64, 192}) &&
                  TileShape<2, 224>::STAGES == tile_choice::stages({128, 224}) &&
                  TileShape<2, 64>::STAGES == tile_choice::stages({128, 64}) &&
                  TileShape<2, 144>::STAGES == tile_choice::stages({128, 144}) &&
                  TileShape<1, 160>::STAGES == tile_choice::stages({64, 160}) &&
                  TileShape<2, 168>::STAGES == tile_choice::stages({128, 168}),
              "the planner models the stages the kernel holds");

// The cluster size a tile runs, up to CLUSTER (tile_choice::slice_cluster: whole 8-row
// swizzle atoms per B slice).
template <class T>
constexpr int slice_cluster(int cluster) {
    return tile_choice::slice_cluster({T::BM, T::BN}, cluster);
}
static_assert(slice_cluster<TileShape<2, 144>>(4) == 2 && slice_cluster<TileShape<1, 160>>(4) == 4 &&
                  slice_cluster<TileShape<1, 96>>(4) == 4 && slice_cluster<TileShape<2, 224>>(4) == 4 &&
                  slice_cluster<TileShape<2, 256>>(4) == 4 &&
                  slice_cluster<TileShape<2, 168>>(2) == 1,
              "the cluster sizes each tile runs");

// -------------------------------------------------------------------------------------
// Device helpers
// -------------------------------------------------------------------------------------
// The tile's width is the wgmma's N: one m64nBNk16 (wgmma.cuh has each shape).
template <int BN, int ACC_REGS>
__device__ __forceinline__ void wgmma_tile(float (&acc)[ACC_REGS], uint64_t a, uint64_t b,
                                           uint32_t accumulate) {
    if constexpr (BN == 256) wgmma_m64n256k16(acc, a, b, accumulate);
    else if constexpr (BN == 224) wgmma_m64n224k16(acc, a, b, accumulate);
    else if constexpr (BN == 192) wgmma_m64n192k16(acc, a, b, accumulate);
    else if constexpr (BN == 168) wgmma_m64n168k16(acc, a, b, accumulate);
    else if constexpr (BN == 160) wgmma_m64n160k16(acc, a, b, accumulate);
    else if constexpr (BN == 144) wgmma_m64n144k16(acc, a, b, accumulate);
    else if constexpr (BN == 96) wgmma_m64n96k16(acc, a, b, accumulate);
    else if constexpr (BN == 128) wgmma_m64n128k16(acc, a, b, accumulate);
    else wgmma_m64n64k16(acc, a, b, accumulate);
}

// The edge boxes. The last row of tiles reads A through a_edge_map, whose box holds only the
// rows left (rounded up to whole 8-row swizzle atoms), and in the last column of tiles the
// B slice that holds C's last column reads B through b_edge_map, likewise (launch_tile
// makes both with make_operand_maps, below). b_edge_slice: which slice of the tile at
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
// The planner's tile as a compiled one: calls launch(TileType<Tile<CONSUMERS, COLUMNS>>{})
// with gemm.cu's Tile template, whose kernels exist for exactly these tiles: 64 rows by 64,
// 96, 128, 160, 192 or 256 columns, 128 rows by 64, 128, 144, 168, 192, 224 or 256 (another
// width runs the 256-column tile of its height).
template <class T>
struct TileType {
    using type = T;
};
template <template <int, int> class Tile, class Launch>
cudaError_t with_tile(tile_choice::Shape shape, Launch&& launch) {
    if (shape.rows == 64) {
        switch (shape.columns) {
            case 64: return launch(TileType<Tile<1, 64>>{});
            case 96: return launch(TileType<Tile<1, 96>>{});
            case 128: return launch(TileType<Tile<1, 128>>{});
            case 160: return launch(TileType<Tile<1, 160>>{});
            case 192: return launch(TileType<Tile<1, 192>>{});
            default: return launch(TileType<Tile<1, 256>>{});
        }
    }
    switch (shape.columns) {
        case 64: return launch(TileType<Tile<2, 64>>{});
        case 128: return launch(TileType<Tile<2, 128>>{});
        case 144: return launch(TileType<Tile<2, 144>>{});
        case 168: return launch(TileType<Tile<2, 168>>{});
        case 192: return launch(TileType<Tile<2, 192>>{});
        case 224: return launch(TileType<Tile<2, 224>>{});
        default: return launch(TileType<Tile<2, 256>>{});
    }
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
