// =====================================================================================
// Step 07: clusters, TMA multicast, a persistent kernel and a TMA-store epilogue
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 06 (the cooperative schedule; ping-pong is dropped, see
// README.md): four things only Hopper has, or that only pay off with them.
//   * Thread-block clusters. CLUSTER CTAs (2 by default; the cluster1 and cluster4 variants
//     run 1 and 4) take CLUSTER vertically adjacent tiles of C (128x256 on large
//     problems), which all need the SAME rows of B. Each CTA loads a 1/CLUSTER slice of
//     that B box and TMA multicast writes the slice into the shared memory of every CTA of
//     the cluster: B crosses L2 -> SM once per cluster instead of once per CTA.
//   * Consumers release a stage to EVERY CTA that writes into it (remote mbarrier
//     arrivals through the cluster's distributed shared memory window), and the cluster
//     synchronises after barrier init and before exit.
//   * A persistent grid: one cluster per CLUSTER SMs that fit, each walking output tiles in
//     a grouped order (GROUP_M_TILES rows of tiles at a time) so the tiles in flight reuse
//     A and B from L2. Stage and phase carry over from tile to tile, so the producer loads
//     the next tile's k-blocks while the consumers run the epilogue of this one.
//     With fewer tiles than SMs there is no cluster launch at all (see launch()).
//   * A TMA-store epilogue: accumulators -> bf16 in a 128B-swizzled shared-memory tile
//     (conflict-free) -> fence.proxy.async -> one cp.async.bulk.tensor store per 64x64
//     box. The TMA unit clips rows and columns outside C. It needs N % 8 == 0 (the C
//     tensor map's row pitch must be a multiple of 16 bytes); for other N the kernel
//     falls back to step 06's bounds-checked direct stores.
// And one schedule that is not Hopper's but the persistent grid's: when the last wave of
// tiles would leave many SMs idle, stream-K shares those tiles' k-blocks out among the
// clusters in equal runs, and the cluster that holds a tile's first k-block adds the
// others' partial sums (schedule.cuh beside this file; README.md section 5).
// gemm_dataparallel never shares.
//
// Why it is faster: the persistent grid removes the launch and prologue of every tile
// after the first on an SM, and its producer loads the next tile during the epilogue.
// The TMA store hands the copy to C to the TMA unit: the consumers write shared memory
// and move on, where step 06's threads moved every byte themselves. Multicast cuts what a
// CTA pulls from L2 per k-block from 48 KB to 16 KB of A + 32/CLUSTER KB of B (32 KB at
// CLUSTER = 2); on the H100 and H200 measured here that does not show in the time
// (cluster size 1 is as fast: README.md, section 1).
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-7 && ./build/step-7
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "layout.h"  // tile_place, b_slice_first_row, edge_box_rows, swizzled_offset, wgmma_acc_row/col
// Schedule, WorkCursor, the partial tiles of stream-K and make_schedule: written out beside
// this file.
#include "schedule.cuh"
#include "spin_guard.cuh"
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "tile_choice.h"  // choose: the tile and C^T per problem
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
// setmaxnreg_dec/inc, named_barrier_sync, store_pair, advance: taught in step 06
#include "warp_specialization.cuh"
#include "wgmma.cuh"  // smem_descriptor, wgmma_*, fence_accumulators: taught in step 05

namespace ladder::step07 {

// -------------------------------------------------------------------------------------
// Tile configuration
// -------------------------------------------------------------------------------------
// Registers decide the tile, exactly as in step 06: a consumer warpgroup issues wgmma
// m64n256k16 into 64*256/128 = 128 fp32 accumulators per thread, so each consumer owns 64
// rows of a 256-column tile. What this step adds is the choice of the tile per problem,
// Tile<CONSUMERS, COLUMNS>: 1 or 2 consumers (64 or 128 rows) by 64 to 256 columns (wgmma
// m64nNk16 with N = 256, 224, 192, 160, 144, 128, 96 or 64: N/2 accumulators per thread).
//   * 128x256 (step 06's tile) is the ladder's shape for large problems.
//   * The smaller tiles make more tiles: they fill the GPU when the problem has few, or
//     fill its waves better, at the price of more bytes from L2 per FLOP (128x128: 32 KB a
//     stage for half the math of 128x256's 48 KB).
//   * Some widths fit a problem: 12 x 11 = 132 tiles of 128x144 cover 1536^2 in one wave of
//     the H200's 132 SMs; a short side of 129 to 160 fits one 144- or 160-column tile; 96
//     columns cut a short N of 161 to 192 into two columns of 64x96 tiles; 64x192 tiles take
//     a short M of 161 to 192 as three rows; 224 columns fit 1792 = 8 x 224 and a short N of
//     193 to 224.
//   * 128x64 puts two consumers on an M of 97 to 128: half as many tiles as 64x64.
// The planner picks one per problem (common/kernel/tile_choice.h, README.md section 6). A third
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
// (All of a consumer's 64x256 piece would be 32 KB: it is stored in two 128-column halves
// through one 16 KB buffer, waiting for the first store to have read the buffer before
// the second, so that the stages keep the room.)
// Clusters do not change any of this: the B box of a stage is still BN rows; only who
// loads which slice of it changes. So the tile and stage shapes do not depend on CLUSTER.
constexpr int BK = 64;   // one 128-byte swizzle row of bf16
constexpr int WARPGROUP_THREADS = 128;
constexpr int WGMMA_M = 64;  // rows of C per consumer: one wgmma m64
constexpr int WGMMA_K = 16;  // K of one wgmma (bf16)
constexpr int MAX_CONSUMERS = 2;
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
constexpr int EPI_N = 128;    // columns of C a consumer stages in shared memory at a time
constexpr int C_BOX = 64;     // a TMA store box is 64x64 bf16: 128-byte rows, one swizzle span
// Grouped rasterization: tiles are walked GROUP_M_TILES rows of tiles at a time, down each
// column of the group before moving right. See tile_origin.
constexpr int GROUP_M_TILES = 16;
// Stream-K (see Schedule and make_schedule): how many clusters share the last wave is
// decided by stream_k::sharing_clusters (common/kernel/stream_k.h), from constants measured on the
// H200; the planner uses the same rule to predict this launch.
constexpr uint32_t C_STAGE_BYTES = WGMMA_M * EPI_N * sizeof(__nv_bfloat16);  // 16 KB per consumer

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
    static_assert(BN == 64 || BN == 96 || BN == 128 || BN == 144 || BN == 160 || BN == 192 ||
                      BN == 224 || BN == 256,
                  "wgmma m64n{64,96,128,144,160,192,224,256}k16 (wgmma.cuh)");
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
static_assert(ROW_BYTES == 128,
              "a k-block row must be exactly one 128-byte swizzle span");
static_assert(C_BOX * sizeof(__nv_bfloat16) == ROW_BYTES,
              "a C store box row must be exactly one 128-byte swizzle span");
static_assert(BK % WGMMA_K == 0, "a k-block is whole wgmma k-steps");
static_assert(EPI_N % C_BOX == 0, "whole store boxes per epilogue round");
static_assert(C_STAGE_BYTES % 1024 == 0, "C tiles stay 1024-aligned");
static_assert(Tile<1, 256>::STAGES == 5 && Tile<2, 256>::STAGES == 4 && Tile<1, 128>::STAGES == 8 &&
                  Tile<2, 128>::STAGES == 6,
              "the derivation above");
static_assert(Tile<1, 128>::STAGES == tile_choice::stages({64, 128}) &&
                  Tile<2, 128>::STAGES == tile_choice::stages({128, 128}) &&
                  Tile<1, 256>::STAGES == tile_choice::stages({64, 256}) &&
                  Tile<2, 256>::STAGES == tile_choice::stages({128, 256}),
              "the planner models the stages the kernel holds");
static_assert(Tile<2, 192>::STAGES == 4 && Tile<2, 192>::STAGES == tile_choice::stages({128, 192}),
              "the derivation above");
static_assert(Tile<1, 64>::STAGES == 13 && Tile<1, 64>::STAGES == tile_choice::stages({64, 64}),
              "the derivation above");
static_assert(Tile<1, 96>::STAGES == 10 && Tile<1, 96>::STAGES == tile_choice::stages({64, 96}) &&
                  Tile<1, 192>::STAGES == 6 && Tile<1, 192>::STAGES == tile_choice::stages({64, 192}) &&
                  Tile<2, 224>::STAGES == 4 && Tile<2, 224>::STAGES == tile_choice::stages({128, 224}) &&
                  Tile<2, 64>::STAGES == 8 && Tile<2, 64>::STAGES == tile_choice::stages({128, 64}),
              "the derivation above");
static_assert(Tile<2, 144>::STAGES == 5 && Tile<2, 144>::STAGES == tile_choice::stages({128, 144}) &&
                  Tile<1, 160>::STAGES == 7 && Tile<1, 160>::STAGES == tile_choice::stages({64, 160}),
              "the derivation above");

// The largest cluster, up to CLUSTER, whose B slices are whole 8-row swizzle atoms (1024
// bytes): each slice lands at its own place in the stage, and the 128B swizzle pattern
// (which wgmma reads back) is anchored at 1024-byte boundaries. 144 rows cut in 4 would be
// 36-row slices, so the 128x144 tile runs clusters of at most 2.
template <class T>
constexpr int slice_cluster(int cluster) {
    return (T::BN / cluster) % 8 == 0 ? cluster : slice_cluster<T>(cluster / 2);
}
static_assert(slice_cluster<Tile<2, 144>>(4) == 2 && slice_cluster<Tile<1, 160>>(4) == 4 &&
                  slice_cluster<Tile<1, 96>>(4) == 4 && slice_cluster<Tile<2, 224>>(4) == 4 &&
                  slice_cluster<Tile<2, 256>>(4) == 4,
              "the cluster sizes each tile runs");

// -------------------------------------------------------------------------------------
// Device helpers carried over from steps 03 to 06
// -------------------------------------------------------------------------------------
// (wait_barrier, tma_load_2d and arrive_expect_tx come from tma.cuh; smem_descriptor,
// wgmma_fence, wgmma_commit_group, wgmma_wait_group, fence_accumulators and
// wgmma_m64n256k16 from wgmma.cuh; setmaxnreg_dec/inc, named_barrier_sync, store_pair and
// advance from warp_specialization.cuh.)

// PTX ISA "bar.sync" (barrier.cta): named hardware barriers 1..15 (0 is __syncthreads)
// that complete when `count` threads have arrived. Here each consumer warpgroup has its
// own (ids 1 and 2, 128 threads) to order its epilogue's shared-memory writes against the
// TMA store that reads them, without stopping the other warpgroups. SASS: BAR.SYNC.
constexpr int EPILOGUE_BARRIER_ID = 1;  // + consumer index

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------
// (The persistent grid's schedule and stream-K's partial tiles are in schedule.cuh, beside
// this file: Schedule, WorkCursor, partial_holders, hand_over_partial, add_partials, and for
// the host resident_grid, make_schedule and stream_k_workspace.)
// Distributed shared memory (DSMEM) rules this kernel relies on (CUDA programming guide,
// "Distributed Shared Memory"; PTX ISA "State spaces: .shared::cluster"):
//   1. A CTA's shared memory is reachable by every CTA of its cluster through the
//      .shared::cluster window; mapa translates "my address of X" into "CTA r's address
//      of X" (the layouts match because every CTA runs the same code).
//   2. It exists only while that CTA runs: nobody may touch a peer's shared memory before
//      the peer has initialised it, or after it may have exited. Hence a cluster barrier
//      after mbarrier init and another before exit.
//   3. What an arrival must order. A consumer's remote arrival on a peer's empty barrier
//      carries no data; it only says "my wgmma reads of this stage are finished", and
//      wgmma.wait_group has already made that true before the arrive is issued. So the
//      arrive keeps mbarrier's default semantics (release at CTA scope) and the producer
//      its default (acquire, CTA scope) wait. The .release.cluster form would add a
//      GPU-wide memory barrier (SASS MEMBAR.ALL.GPU) to every k-block of every consumer
//      for no gain. The transfers themselves (TMA multicast into peers, their complete_tx
//      on the peers' full barriers) are ordered by the mbarrier transaction mechanism.

// Cluster-wide barrier: every thread of every CTA of the cluster arrives, then waits.
// CCCL: cuda::ptx::barrier_cluster_arrive(sem_release); cuda::ptx::barrier_cluster_wait()
// PTX:  barrier.cluster.arrive.release;  barrier.cluster.wait.acquire;
//       (PTX ISA "barrier.cluster"). It blocks in hardware: no SpinGuard can bound it.
__device__ __forceinline__ void cluster_sync() {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
    cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
}

// A consumer hands a stage back to every CTA of the cluster: each of them wrote a slice
// of B into it, so each producer must know before it overwrites its slice. Thread r of
// the warpgroup (r < CLUSTER) arrives on CTA r's empty barrier, so the CLUSTER arrivals
// go out in parallel from different lanes. With one CTA it is step 06's local arrive.
// PTX:  mapa.shared::cluster.u32 remote, local, r;       (PTX ISA "mapa")
//       mbarrier.arrive.shared::cluster.b64 _, [remote];  (SASS SYNCS.ARRIVE.TRANS64.RED)
// Written in PTX: CCCL's shared::cluster arrive only comes as .release.cluster (see
// DSMEM rule 3 for why that is not wanted here) and takes a generic pointer that it
// converts with cvta.to.shared, which is defined for this CTA's own window only.
template <int CLUSTER>
__device__ __forceinline__ void release_stage(uint64_t* empty_barrier, int thread_in_wg) {
    if constexpr (CLUSTER == 1) {
        // CCCL: cuda::ptx::mbarrier_arrive(bar)   PTX: mbarrier.arrive.shared.b64 _, [bar];
        if (thread_in_wg == 0) cuda::ptx::mbarrier_arrive(empty_barrier);
    } else {
        if (thread_in_wg < CLUSTER) {
            const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(empty_barrier));
            uint32_t remote;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                         : "=r"(remote)
                         : "r"(local), "r"(thread_in_wg));
            asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote)
                         : "memory");
        }
    }
}

// One k-block slice of B, written into the same shared-memory offset of every CTA whose
// bit is set in cta_mask, each copy signalling the barrier at `barrier`'s offset in that
// CTA (complete_tx of the bytes it delivered there).
// CCCL: cuda::ptx::cp_async_bulk_tensor(space_cluster, space_global, dst, map, {k0, row0},
//                                       bar, cta_mask)
// PTX:  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//           .multicast::cluster [dst], [map, {k0, row0}], [bar], cta_mask;
//       (PTX ISA "cp.async.bulk.tensor"; SASS: UTMALDG.2D.MULTICAST)
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int k0,
                                                      int row0, uint64_t* barrier,
                                                      uint16_t cta_mask) {
    const int32_t coords[2] = {k0, row0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                    coords, barrier, cta_mask);
}

// The reverse copy: a 64x64 box of shared memory (128B-swizzled) to C at (col0, row0).
// Box elements outside C are not written, which handles every M and N edge.
// CCCL: cuda::ptx::cp_async_bulk_tensor(space_global, space_shared, map, {col0, row0}, src)
// PTX:  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [map, {col0, row0}], [src];
//       (SASS: UTMASTG.2D). Completion is tracked by bulk groups: commit_group closes the
//       stores issued so far; wait_group.read N waits until all but N groups have finished
//       READING shared memory (the buffer may be reused); wait_group N until they are done.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int col0, int row0,
                                             const void* src) {
    const int32_t coords[2] = {col0, row0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, coords,
                                    src);
}

// Two accumulators as bf16 into shared memory at a 32-bit address of the .shared window
// (PTX ISA "st"). The epilogue's tile sits in the 1024-aligned struct found by pointer
// arithmetic on the generic address, so through a pointer the compiler cannot tell it is
// shared memory and emits generic stores (SASS ST.E), each keeping its own 64-bit address
// in two registers; st.shared is SASS STS with a 32-bit address.
__device__ __forceinline__ void store_shared_bf16x2(uint32_t addr, float lo, float hi) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    const uint32_t bits = static_cast<uint32_t>(__bfloat16_as_ushort(v.x)) |
                          static_cast<uint32_t>(__bfloat16_as_ushort(v.y)) << 16;
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(bits) : "memory");
}

// How the epilogue writes C (launch_tile decides): a TMA store where C's tensor map exists,
// step 06's direct stores where it cannot (N % 8 != 0), or direct stores of the transpose
// when the kernel computes C^T = B A^T for a problem of few columns, or of 129 to 192 rows
// (README.md section 6).
enum CStore : int { kStoreTma = 0, kStoreDirect = 1, kStoreTransposed = 2 };

// The direct-store epilogue of a kernel that computes C^T: element (row, col) of C^T's
// tile is element (col, row) of C, whose rows are ldc = the kernel's M apart. In n8 block
// q a thread holds rows r and r + 8 of columns c = 8q + 2(lane % 4) and c + 1 (wgmma's D
// layout, as in the epilogue below): four 2-byte stores, at offsets 0, 8, ldc and ldc + 8
// from one pointer that moves 8 rows of C per block. The 8 lanes that share a column write
// neighbouring elements of one row of C.
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

// The cluster tiles of an M x N problem, as (rows, columns): a cluster tile is CLUSTER
// vertically adjacent CTA tiles (CLUSTER*BM rows x BN columns). The host sizes the
// schedule with it and the kernel places tiles with it, so the two always agree.
template <int CLUSTER, class T>
__host__ __device__ inline int2 cluster_tile_grid(int M, int N) {
    // EXERCISE BEGIN: which cluster tiles there are
    // TODO: the cluster now spans CLUSTER tiles along N (same rows of C, adjacent
    // columns). How many rows and columns of cluster tiles are there? tile_origin
    // receives them as (cluster_rows, tiles_n), and the host sizes the schedule with them.
    const int tiles_m = layout::ceil_div(M, T::BM);
    const int tiles_n = layout::ceil_div(N, T::BN);
    return make_int2((tiles_m + CLUSTER - 1) / CLUSTER, tiles_n);
    // EXERCISE END
}

// Persistent tile order. The grid is a fixed set of clusters; cluster c takes cluster
// tiles c, c + clusters, c + 2*clusters, ... A cluster tile is CLUSTER vertically
// adjacent CTA tiles (CLUSTER*128 rows x 256 columns with the large tile). Numbering them row by row would
// put the ~66 tiles in flight at one moment on one or two rows of tiles: the same A rows,
// but every B column of the matrix. Grouped order instead walks a band of
// GROUP_M_TILES*128 = 2048 rows column by column, so the tiles in flight form a block of
// about 2048 x 2048 of C: they share 2048 rows of A and 2048 rows of B, which stay in L2.
//
//   tile numbers, 4 rows of cluster tiles per group:      0  4  8 12 16 ...
//                                                         1  5  9 13 17 ...
//                                                         2  6 10 14 18 ...
//                                                         3  7 11 15 19 ...
//                                                        (next group below) ...
// Returns the first row and column of C of this CTA's part of cluster tile `tile`.
template <int CLUSTER, class T>
__device__ __forceinline__ int2 tile_origin(int tile, int cluster_rows, int tiles_n,
                                            uint32_t rank) {
    // EXERCISE BEGIN: where a CTA's tile lies
    // TODO: CTA rank r of a cluster tile now takes column tile (tile_col * CLUSTER + r)
    // of the cluster's row. Keep the grouped order (README section 2) over cluster tiles.
    constexpr int group_rows = GROUP_M_TILES / CLUSTER > 0 ? GROUP_M_TILES / CLUSTER : 1;
    const int tiles_per_group = group_rows * tiles_n;
    const int group = tile / tiles_per_group;
    const int first_row = group * group_rows;
    const int rows_in_group = min(group_rows, cluster_rows - first_row);
    const int in_group = tile - group * tiles_per_group;
    const int cluster_row = first_row + in_group % rows_in_group;
    const int tile_col = in_group / rows_in_group;
    return make_int2((cluster_row * CLUSTER + static_cast<int>(rank)) * T::BM, tile_col * T::BN);
    // EXERCISE END
}

// tile_origin with the tile grid worked out from M and N where it is needed: the
// producer's 40 registers are full, and a few integer instructions per tile are cheaper
// than a value held for the whole kernel and spilled.
template <int CLUSTER, class T>
__device__ __forceinline__ int2 cta_origin(int tile, int M, int N, uint32_t rank) {
    asm volatile("" : "+r"(M), "+r"(N));  // opaque copies: the compiler cannot hoist the grid
    const int2 grid = cluster_tile_grid<CLUSTER, T>(M, N);
    return tile_origin<CLUSTER, T>(tile, grid.x, grid.y, rank);
}

// %clusterid.x (the CTA's index without a cluster launch), read by each warpgroup after its
// setmaxnreg: a volatile read is never merged with another one, so no value is carried
// across the register re-balancing (where the producer's 40 registers would spill it).
__device__ __forceinline__ int read_cluster_id() {
    uint32_t id;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
    return static_cast<int>(id);
}

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// Warpgroup 0 produces, warpgroups 1 and 2 consume, as in step 06. The ring protocol,
// per stage, now spans the cluster:
//   full_barrier  count 1: this CTA's producer's arrive.expect_tx, plus the bytes of its
//                 own A box and of EVERY CTA's B slice (the multicast copies signal the
//                 barrier at the same offset in each destination CTA). Bytes may land
//                 before the expect_tx; the transaction count goes negative meanwhile,
//                 and the phase cannot complete without the producer's arrival.
//   empty_barrier count 2 * CLUSTER: each consumer warpgroup of each CTA arrives once.
//                 Until then no producer of the cluster may write its slice again.
// Stage and phase run on across tiles: fill f is the f-th k-block this CTA loads, over
// all its tiles, and producer and consumers walk the same tile sequence.
// a_edge_map, a_edge_bytes: the A map of the last row of tiles, whose box holds only the
// rows left, and what one such box delivers; b_edge_map, b_edge_bytes: the same for the B
// slice that holds the last column of C, where that slice is not whole (see launch_tile).
template <int CLUSTER, class T>
__global__ void __launch_bounds__(T::THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            const __grid_constant__ CUtensorMap c_map, __nv_bfloat16* __restrict__ C, int M,
            int N, int K, int c_store, const Schedule sched, float* __restrict__ partials,
            int* __restrict__ flags, const __grid_constant__ CUtensorMap a_edge_map,
            uint32_t a_edge_bytes, const __grid_constant__ CUtensorMap b_edge_map,
            uint32_t b_edge_bytes) {
    // ---- setup: carve shared memory, find this CTA's place, initialise the barriers -----
    constexpr int STAGES = T::STAGES, CONSUMER_WARPGROUPS = T::CONSUMER_WARPGROUPS;
    constexpr int BN = T::BN, ACC_REGS = T::ACC_REGS;
    constexpr uint32_t A_TILE_BYTES = T::A_TILE_BYTES, B_TILE_BYTES = T::B_TILE_BYTES;
    constexpr int B_SLICE = B_SLICE_ROWS<CLUSTER, T>;
    static_assert(B_SLICE % 8 == 0, "whole swizzle atoms per slice (slice_cluster)");
    // Arrivals that complete an empty barrier: one per consumer warpgroup of every CTA in
    // the cluster, because every CTA of the cluster writes a slice of B into every stage.
    constexpr uint32_t EMPTY_ARRIVALS = CONSUMER_WARPGROUPS * CLUSTER;
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t smem_base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023};
    auto& s = *reinterpret_cast<typename T::SharedStorage*>(smem_base);

    const int warpgroup = threadIdx.x / WARPGROUP_THREADS;
    const int thread_in_wg = threadIdx.x % WARPGROUP_THREADS;
    // PTX special register %cluster_ctarank (CCCL get_sreg_*); %clusterid.x is read later.
    const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();

    if (threadIdx.x == 0) {
        for (int stage = 0; stage < STAGES; ++stage) {
            // CCCL: cuda::ptx::mbarrier_init(bar, count)
            // PTX:  mbarrier.init.shared.b64 [bar], count;   (PTX ISA "mbarrier.init")
            cuda::ptx::mbarrier_init(&s.full_barrier[stage], 1);
            cuda::ptx::mbarrier_init(&s.empty_barrier[stage], EMPTY_ARRIVALS);
        }
        // Make the initialised barriers visible to the async proxy (the TMA unit) and to
        // the other CTAs of the cluster.  PTX: fence.mbarrier_init.release.cluster;
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    // DSMEM rule 2: no CTA multicasts into, or arrives on, a peer's barriers before the
    // peer has initialised them. (This also does __syncthreads' job inside the CTA.)
    cluster_sync();

    if (warpgroup == 0) {
        // ---- producer: one thread keeps the ring full, tile after tile ----------------
        if constexpr (T::MOVES_REGISTERS) setmaxnreg_dec<T::PRODUCER_REGISTERS>();
        if (thread_in_wg == 0) {
            const int cluster_id = read_cluster_id();
            int stage = 0;
            uint32_t phase = 0;
            int fill = 0;  // k-blocks loaded so far, over all units (the timeline's numbering)
            WorkCursor work(sched, cluster_id);
            WorkUnit unit;
            while (work.next_unit(sched, unit)) {
                const int2 origin = cta_origin<CLUSTER, T>(unit.tile, M, N, rank);
                const int m0 = origin.x, n0 = origin.y;
                // The last row of tiles reads A through a map whose box holds only the rows
                // left (see launch_tile).
                const bool a_edge = m0 + T::BM > M;
                const CUtensorMap* a_source = a_edge ? &a_edge_map : &a_map;
                const uint32_t a_bytes = a_edge ? a_edge_bytes : A_TILE_BYTES;
                // EXERCISE BEGIN: what lands in this CTA's stage
                // TODO: with the cluster along N, which boxes land in THIS CTA's stage, and
                // how many bytes does its full barrier wait for? Which of them can be wholly
                // outside the matrix? (The B tensor map's box is B_SLICE rows in
                // a cluster launch and BN without one: launch() is unchanged. An A box
                // delivers a_bytes.)
                (void)n0, (void)B_SLICE;  // the stub's loads do not use them yet
                const uint32_t tx_bytes = a_bytes + CLUSTER * B_SLICE_BYTES<CLUSTER, T>;
                // EXERCISE END
                for (int kb = unit.kb_begin; kb < unit.kb_end; ++kb, ++fill) {
                    wait_barrier(&s.empty_barrier[stage], phase ^ 1u, "empty barrier");
                    LADDER_TIMELINE_PRODUCER(LoadIssue, fill);
                    // EXERCISE BEGIN: who loads A and B
                    // TODO: multicast A (every CTA of the cluster needs the same 128 rows);
                    // B no longer (each CTA needs its own BN rows). Who issues the A box of
                    // k-block kb, with which mask? Spread the issuing over the cluster. This
                    // stub loads this CTA's A only and no B: every full barrier waits for
                    // bytes that never come, and the consumers hang.
                    arrive_expect_tx(&s.full_barrier[stage], tx_bytes);
                    tma_load_2d(s.a[stage], a_source, kb * BK, m0, &s.full_barrier[stage]);
                    // EXERCISE END
                    advance<STAGES>(stage, phase);
                }
            }
        }
        // The other 127 producer threads have nothing to do; they wait at the final
        // cluster barrier. Warp 0 first reconverges: without clusters that barrier is
        // the CTA's bar.sync, which every thread of a warp must reach together
        // (compute-sanitizer --tool synccheck reports "Divergent thread(s) in block").
        __syncwarp();
    } else {
        if constexpr (T::MOVES_REGISTERS) setmaxnreg_inc<T::CONSUMER_REGISTERS>();
        const int consumer = warpgroup - 1;
        const int cluster_id = read_cluster_id();
        const int warp = thread_in_wg / 32;
        const int lane = thread_in_wg % 32;
        int stage = 0;
        uint32_t phase = 0;
        float acc[ACC_REGS];
        // The descriptors of stage 0, this consumer's 64 rows of A (the top or bottom half
        // of the A box) and B. Stage s, k16 step k is the same descriptor with its start
        // address field (bits 0-13, address / 16) advanced by s*stage_bytes/16 + k*32/16:
        // one add, instead of rebuilding the descriptor for every wgmma. Shared addresses
        // stay below 2^18, so the 14-bit field cannot carry into the next one.
        uint32_t a_desc0 = smem_descriptor_lo(
            static_cast<uint32_t>(__cvta_generic_to_shared(s.a[0])) + consumer * WGMMA_M * ROW_BYTES);
        uint32_t b_desc0 = smem_descriptor_lo(static_cast<uint32_t>(__cvta_generic_to_shared(s.b[0])));
        uint64_t* full_barrier = s.full_barrier;
        uint64_t* empty_barrier = s.empty_barrier;
        // These are loop invariants, but left visible the compiler re-derives them from
        // the shared-memory window on every k-block (ncu's source view at 4096^3: about 30
        // of the loop's 85 instructions per k-block and warp). Opaque copies stay in
        // registers: the consumers have 232, and the accumulators take 128.
        asm volatile("" : "+r"(a_desc0), "+r"(b_desc0), "+l"(full_barrier), "+l"(empty_barrier));
        int fill = 0;  // k-blocks consumed so far, over all units (the timeline's numbering)
        WorkCursor work(sched, cluster_id);
        WorkUnit unit;

        while (work.next_unit(sched, unit)) {
            const int2 origin = cta_origin<CLUSTER, T>(unit.tile, M, N, rank);
            const int m0 = origin.x, n0 = origin.y;

            // ---- main loop: wgmma on full stages, hand each back as soon as it is read -
            int previous_stage = -1;
            [[maybe_unused]] const int first_fill = fill;  // timeline
            for (int kb = unit.kb_begin; kb < unit.kb_end; ++kb, ++fill) {
                wait_barrier(&full_barrier[stage], phase, "full barrier");
                LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, LoadArrive, fill);
                LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, MmaStart, fill);
                const uint32_t a_desc = a_desc0 + stage * (A_TILE_BYTES >> 4);
                const uint32_t b_desc = b_desc0 + stage * (B_TILE_BYTES >> 4);
                wgmma_fence();
#pragma unroll
                for (int k = 0; k < BK / WGMMA_K; ++k) {
                    const uint32_t k_step = k * WGMMA_K * sizeof(__nv_bfloat16) >> 4;  // 32 B
                    const uint32_t accumulate = (kb > unit.kb_begin || k > 0) ? 1u : 0u;
                    const uint64_t a = smem_descriptor_with_lo(a_desc + k_step);
                    const uint64_t b = smem_descriptor_with_lo(b_desc + k_step);
                    // The tile's width is the wgmma's N (wgmma.cuh has each shape).
                    if constexpr (BN == 256) wgmma_m64n256k16(acc, a, b, accumulate);
                    else if constexpr (BN == 224) wgmma_m64n224k16(acc, a, b, accumulate);
                    else if constexpr (BN == 192) wgmma_m64n192k16(acc, a, b, accumulate);
                    else if constexpr (BN == 160) wgmma_m64n160k16(acc, a, b, accumulate);
                    else if constexpr (BN == 144) wgmma_m64n144k16(acc, a, b, accumulate);
                    else if constexpr (BN == 96) wgmma_m64n96k16(acc, a, b, accumulate);
                    else if constexpr (BN == 128) wgmma_m64n128k16(acc, a, b, accumulate);
                    else wgmma_m64n64k16(acc, a, b, accumulate);
                }
                wgmma_commit_group();
                // Keep this k-block's wgmma running and wait only for the previous one:
                // once it is done, its stage can be refilled, by every CTA of the cluster.
                wgmma_wait_group<1>();
                fence_accumulators(acc);
                LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > unit.kb_begin, consumer, MmaEnd,
                                         fill - 1);
                if (previous_stage >= 0)
                    release_stage<CLUSTER>(&empty_barrier[previous_stage], thread_in_wg);
                LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > unit.kb_begin, consumer, Release,
                                         fill - 1);
                previous_stage = stage;
                advance<STAGES>(stage, phase);
            }
            wgmma_wait_group<0>();
            fence_accumulators(acc);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, MmaEnd, fill - 1);
            release_stage<CLUSTER>(&empty_barrier[previous_stage], thread_in_wg);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, Release, fill - 1);
            // From here on the producer is already loading the next tile into the stages
            // just released: this epilogue overlaps those loads.

            // ---- epilogue: accumulators -> bf16 -> swizzled smem -> TMA store ----------
            // wgmma's D layout: warp w of the warpgroup owns rows 16w..16w+15; in each n8
            // column block j/4, lane l holds rows l/4 and l/4 + 8, columns 2(l%4), +1:
            //   acc[j] -> row 16w + l/4 + 8*((j/2)%2),  col 8*(j/4) + 2*(l%4) + j%2.
            const int row0 = m0 + consumer * WGMMA_M;  // first row of this consumer's piece
            if (row0 >= M) continue;  // the whole piece is below C (uniform per warpgroup)

            // ---- stream-K: hand a partial tile to its owner, or collect the others' ----
            const int cta = cluster_id * CLUSTER + static_cast<int>(rank);
            const int barrier_id = EPILOGUE_BARRIER_ID + consumer;
            if (unit.kb_begin > 0) {
                // Not the tile's first k-block: the owner finishes the tile. Publish and go on.
                hand_over_partial<T, WARPGROUP_THREADS>(partials, flags, cta, consumer, barrier_id,
                                                        thread_in_wg, acc);
                continue;
            }
            if (unit.kb_end < sched.k_blocks)  // the owner: the next clusters hold the rest
                add_partials<T, CLUSTER, WARPGROUP_THREADS>(
                    partials, flags, cluster_id, static_cast<int>(rank),
                    partial_holders(sched, cluster_id, unit.tile), consumer, barrier_id, thread_in_wg,
                    acc);
            // Timeline: each tile's epilogue keeps its own slot, under the tile's first fill.
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueStart, first_fill);
            if (c_store == kStoreTma) {
                const void* c_tile = s.c[consumer];  // for the TMA store
                const uint32_t c_smem = static_cast<uint32_t>(__cvta_generic_to_shared(c_tile));
                constexpr int EPI_COLUMNS = T::EPI_COLUMNS;
                constexpr int PART_REGS = EPI_COLUMNS / 2;  // accumulators per round: 4 per n8 block
#pragma unroll
                for (int part = 0; part < T::TMA_COLUMNS / EPI_COLUMNS; ++part) {
                    // The buffer is free once the previous store has finished reading it.
                    // CCCL: cuda::ptx::cp_async_bulk_wait_group_read(n32_t<0>)
                    // PTX:  cp.async.bulk.wait_group.read 0;
                    if (thread_in_wg == 0)
                        cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
                    named_barrier_sync(EPILOGUE_BARRIER_ID + consumer, WARPGROUP_THREADS);
                    // Columns [EPI_COLUMNS*part, +EPI_COLUMNS) of the piece = two 64x64 boxes
                    // (one for the 128x192 tile's 64-column rounds), each stored
                    // 128B-swizzled like the TMA loads: 16-byte chunk c of row r sits at
                    // chunk c ^ (r % 8). A warp's 32 four-byte stores for one j cover 8
                    // rows x one chunk, which the XOR spreads over all 32 banks.
#pragma unroll
                    for (int j = part * PART_REGS; j < (part + 1) * PART_REGS; j += 2) {
                        const int row = layout::wgmma_acc_row(warp, lane, j);
                        const int n8 = (j / 4) % (EPI_COLUMNS / 8);  // n8 block inside this part
                        const int box = n8 / (C_BOX / 8);      // which 64x64 box
                        const int chunk = n8 % (C_BOX / 8);    // 16-byte chunk in the box row
                        const uint32_t offset =
                            box * C_BOX * C_BOX * 2 + layout::swizzled_offset(row, chunk) + 4 * (lane % 4);
                        store_shared_bf16x2(c_smem + offset, acc[j], acc[j + 1]);
                    }
                    // Ordinary stores, read next by the async proxy (TMA): fence, then make
                    // sure all 128 threads' stores are in before one thread issues the copy.
                    // CCCL: cuda::ptx::fence_proxy_async(space_shared)
                    // PTX:  fence.proxy.async.shared::cta;
                    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
                    named_barrier_sync(EPILOGUE_BARRIER_ID + consumer, WARPGROUP_THREADS);
                    if (thread_in_wg == 0) {
#pragma unroll
                        for (int box = 0; box < EPI_COLUMNS / C_BOX; ++box) {
                            const int col0 = n0 + part * EPI_COLUMNS + box * C_BOX;
                            if (col0 < N)
                                tma_store_2d(&c_map, col0, row0,
                                             static_cast<const uint8_t*>(c_tile) + box * C_BOX * C_BOX * 2);
                        }
                        // PTX: cp.async.bulk.commit_group;
                        cuda::ptx::cp_async_bulk_commit_group();
                    }
                }
                // The columns past the last whole 64-column box, stored directly (as step 06).
#pragma unroll
                for (int j = T::TMA_COLUMNS / 2; j < ACC_REGS; j += 2) {
                    const int row = layout::wgmma_acc_row(warp, lane, j);
                    const int col = layout::wgmma_acc_col(lane, j);
                    store_pair(C + static_cast<size_t>(row0) * N + n0, N, M - row0, N - n0, row, col,
                               acc[j], acc[j + 1]);
                }
            } else {
                // No C tensor map (N % 8 != 0, or C^T computed): direct stores.
                const int rows_left = M - row0;
                const int cols_left = N - n0;
                if (c_store == kStoreTransposed) {
                    store_tile_transposed(C + static_cast<size_t>(n0) * M + row0, M, rows_left,
                                          cols_left, warp, lane, acc);
                } else {
                    __nv_bfloat16* c_tile = C + static_cast<size_t>(row0) * N + n0;
#pragma unroll
                    for (int j = 0; j < ACC_REGS; j += 2) {
                        const int row = layout::wgmma_acc_row(warp, lane, j);
                        const int col = layout::wgmma_acc_col(lane, j);
                        store_pair(c_tile, N, rows_left, cols_left, row, col, acc[j], acc[j + 1]);
                    }
                }
            }
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueEnd, first_fill);
        }
        // The last stores must be complete before the CTA's shared memory goes away.
        // PTX: cp.async.bulk.wait_group 0;
        if (thread_in_wg == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
        __syncwarp();
    }

    // DSMEM rule 2 again: the last remote arrivals on a peer's empty barriers must land
    // before that peer exits, so nobody leaves until everybody is here.
    cluster_sync();
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
constexpr const char* kStep = "07_clusters_multicast";

// The GPU's SM count, asked once per device: the planner's tile choice
// needs it on every call, and the persistent grid's size.
inline cudaError_t sm_count(int* sms) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", kStep, cudaGetErrorString(err));
    static PerDeviceCache<int> cache;
    return cache.get(device, sms, [&](int* out) {
        if (cudaError_t err = cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device);
            err != cudaSuccess)
            return fail(err, "%s: cudaDeviceGetAttribute: %s", kStep, cudaGetErrorString(err));
        return cudaSuccess;
    });
}

// One tile height and cluster size. With `transposed` the caller has swapped A with B and M
// with N: the kernel computes C^T = B A^T and stores it transposed into C.
template <int CLUSTER, class T>
cudaError_t launch_tile(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M,
                        int N, int K, cudaStream_t stream, bool share_last_wave, bool transposed) {
    constexpr int BM = T::BM, BN = T::BN, THREADS = T::THREADS;
    constexpr size_t SMEM_BYTES = T::SMEM_BYTES;
    // Tile origins are int: check_gemm_args keeps M and N 2^16 below 2^31, far more than
    // (tiles + one cluster of padding) * 128 needs.
    const int2 grid = cluster_tile_grid<CLUSTER, T>(M, N);
    const int2 plain_grid = cluster_tile_grid<1, T>(M, N);  // CTA tiles
    const long long cta_tiles = static_cast<long long>(plain_grid.x) * plain_grid.y;
    if (cta_tiles > INT_MAX / 2)
        return fail(cudaErrorInvalidValue, "%s: %d x %d tiles are too many", kStep, plain_grid.x,
                    plain_grid.y);
    const int cluster_tiles = grid.x * grid.y;

    // More than 48 KB of dynamic shared memory must be asked for (common/library/step_api.h).
    // Both kernels may be launched: gemm_kernel<1, T> is the one without a cluster launch.
    if (cudaError_t err =
            allow_dynamic_smem(kStep, gemm_kernel<CLUSTER, T>, static_cast<int>(SMEM_BYTES));
        err != cudaSuccess)
        return err;
    if (cudaError_t err = allow_dynamic_smem(kStep, gemm_kernel<1, T>, static_cast<int>(SMEM_BYTES));
        err != cudaSuccess)
        return err;

    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = CLUSTER;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = SMEM_BYTES;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;

    // Persistent grid: as many CTAs (or clusters) as can be resident at once (schedule.cuh).
    // Never more than there are tiles.
    Resident resident{};
    if (cudaError_t err =
            resident_grid<gemm_kernel<1, T>, gemm_kernel<CLUSTER, T>>(kStep, config, sm_count, &resident);
        err != cudaSuccess)
        return err;
    const int resident_ctas = resident.ctas;
    const int resident_clusters = resident.clusters;

    // Clusters when there are more tiles than SMs (tile_choice::launches_clusters). A
    // cluster launch places the CTAs of a cluster together in one GPC; measured, a grid
    // smaller than the GPU then runs slower than with a plain launch (by 4% with multicast,
    // 25% at cluster size 1: README.md, "Cluster launch or not"), most likely because it is
    // packed onto fewer SMs' shared resources instead of spread out. With fewer tiles than
    // SMs the L2 traffic multicast saves is not the limit, except where K % 64 != 0: then
    // every row of a box straddles two L2 lines, and halving B's pays (1000x1992x2056 in
    // 21.9 us instead of 25.5). Other problems, and cluster size 1, run gemm_kernel<1, T>
    // with a plain <<<>>> launch.
    const bool clustered =
        CLUSTER > 1 && tile_choice::launches_clusters(cta_tiles, resident_ctas, plain_grid.x, K);

    // A box: the CTA's BM rows. B box: this CTA's slice, BN/CLUSTER of the BN rows, or all
    // BN without clusters. C box: 64x64, stored from 128B-swizzled shared memory.
    // Where K % 64 != 0 the rows of A and B are not 128-byte aligned (K = 2056: 4112 bytes
    // apart), every 128-byte box row straddles two L2 lines, and the default 256-byte L2
    // requests fetch about twice what the box needs: measured, 128-byte requests ran
    // 1000x1992x2056 in 25.3 us instead of 28.9 (README.md, section 6).
    const CUtensorMapL2promotion promotion =
        K % BK == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    // An operand's map (boxes of box_rows rows by BK) and its edge map, whose box holds
    // edge_rows rows: the same map where the box is whole.
    auto operand_maps = [&](const __nv_bfloat16* base, int rows, int box_rows, int edge_rows,
                            CUtensorMap* whole, CUtensorMap* edge) {
        if (cudaError_t err = make_tensor_map_2d(whole, base, rows, K, box_rows, BK,
                                                 CU_TENSOR_MAP_SWIZZLE_128B, kStep, promotion);
            err != cudaSuccess)
            return err;
        *edge = *whole;
        if (edge_rows == box_rows) return cudaSuccess;
        return make_tensor_map_2d(edge, base, rows, K, edge_rows, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep,
                                  promotion);
    };
    CUtensorMap a_map{}, a_edge_map{}, b_map{}, b_edge_map{}, c_map{};
    // The last row of tiles gets an A map of its own whose box holds only the rows left
    // (rounded up to whole 8-row swizzle atoms): TMA's zero fill of the rows past M is not
    // free. The stage keeps its BM rows; the ones no box writes feed only rows of C that are
    // never stored. Measured (README.md, section 6): 16x8192x8192 in 38.5 us instead of 48.9
    // (64x64 tiles), 160x8192x4096 in 28.2 us instead of 40.7 (128x128 tiles).
    const int a_edge_rows = layout::edge_box_rows(M, BM);
    const uint32_t a_edge_bytes = static_cast<uint32_t>(a_edge_rows) * BK * sizeof(__nv_bfloat16);
    if (cudaError_t err = operand_maps(A, M, BM, a_edge_rows, &a_map, &a_edge_map); err != cudaSuccess)
        return err;
    // Likewise the B slice that holds the last column of C, where N is not whole tiles and
    // that slice is not whole: its box holds the rows left in it (the kernel picks it out).
    // Measured (README.md, section 6): 1920x1080x4096 in 30.0 us instead of 36.0 (128x144
    // tiles, the last column's box half zeros), 4096x224x4096 in 20.2 instead of 27.8,
    // 14336x160x4096 in 39.8 instead of 41.9 (32 of 192 rows zero-filled in every tile).
    const int b_box_rows = clustered ? B_SLICE_ROWS<CLUSTER, T> : BN;
    const int b_edge_rows = layout::edge_box_rows(N % BN, b_box_rows);
    const uint32_t b_edge_bytes = static_cast<uint32_t>(b_edge_rows) * BK * sizeof(__nv_bfloat16);
    if (cudaError_t err = operand_maps(B, N, b_box_rows, b_edge_rows, &b_map, &b_edge_map);
        err != cudaSuccess)
        return err;
    // The C map's row pitch N*2 bytes must be a multiple of 16: N % 8 == 0. Otherwise, and
    // for C^T, the kernel stores directly (and never touches c_map, left zeroed).
    const int c_store = transposed ? kStoreTransposed : N % 8 == 0 ? kStoreTma : kStoreDirect;
    if (c_store == kStoreTma) {
        if (cudaError_t err = make_tensor_map_2d(&c_map, C, M, N, C_BOX, C_BOX,
                                                 CU_TENSOR_MAP_SWIZZLE_128B, kStep);
            err != cudaSuccess)
            return err;
    }

    // Without clusters every CTA is a cluster of one (%clusterid = %ctaid), and the
    // schedule counts CTA tiles.
    const int k_blocks = layout::ceil_div(K, BK);
    const bool one_tile_row = plain_grid.x == 1;  // stream_k::kOneTileRowHolders
    const Schedule sched =
        clustered ? make_schedule(cluster_tiles, k_blocks, resident_clusters, share_last_wave, one_tile_row)
                  : make_schedule(static_cast<int>(cta_tiles), k_blocks, resident_ctas, share_last_wave,
                                  one_tile_row);
    // Where the CTAs that share a tile leave their partials, and the flags (schedule.cuh).
    float* partials = nullptr;
    int* flags = nullptr;
    if (cudaError_t err = stream_k_workspace<T>(kStep, stream, sched, clustered ? CLUSTER : 1, resident_ctas,
                                                MAX_CONSUMERS, &partials, &flags);
        err != cudaSuccess)
        return err;

    if (!clustered) {
        gemm_kernel<1, T><<<static_cast<unsigned>(sched.clusters), THREADS, SMEM_BYTES, stream>>>(
            a_map, b_map, c_map, C, M, N, K, c_store, sched, partials, flags, a_edge_map, a_edge_bytes,
            b_edge_map, b_edge_bytes);
        return check_launch(kStep);
    }
    config.gridDim = dim3(static_cast<unsigned>(sched.clusters * CLUSTER));
    if (cudaError_t err = cudaLaunchKernelEx(&config, gemm_kernel<CLUSTER, T>, a_map, b_map, c_map, C,
                                             M, N, K, c_store, sched, partials, flags, a_edge_map, a_edge_bytes,
                                             b_edge_map, b_edge_bytes);
        err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (cluster size %d): %s", kStep, CLUSTER,
                    cudaGetErrorString(err));
    return check_launch(kStep);
}

// The planner's choice for this problem on this GPU (common/kernel/tile_choice.h): the tile, and
// whether to compute C^T = B A^T (A and B, both K-major, swap roles: a problem of few
// columns and many rows gets them as the rows of the tiles, one of 129 to 192 rows as the
// columns of a 144-, 160- or 192-column tile). `forced`, where
// given, runs that tile instead of the planner's (the variants that measure the choice).
template <int CLUSTER>
cudaError_t launch(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                   int K, cudaStream_t stream, tile_choice::Shape forced, bool share_last_wave) {
    if (cudaError_t err = check_gemm_args(kStep, A, B, C, M, N, K, NeedsArch::Sm90a);
        err != cudaSuccess)
        return err;
    int sms = 0;
    if (cudaError_t err = sm_count(&sms); err != cudaSuccess) return err;
    const tile_choice::Estimate plan = tile_choice::choose(M, N, K, sms, CLUSTER, share_last_wave);
    if (plan.transposed) {
        std::swap(A, B);
        std::swap(M, N);
    }
    const tile_choice::Shape tile = forced.rows ? forced : plan.shape;
    const bool t = plan.transposed, share = share_last_wave;
    // One compiled kernel per tile, Tile<consumers, columns>: the 64-row tiles, then the 128-row.
    if (tile.rows == 64) {
        if (tile.columns == 64)
            return launch_tile<CLUSTER, Tile<1, 64>>(A, B, C, M, N, K, stream, share, t);
        if (tile.columns == 96)
            return launch_tile<CLUSTER, Tile<1, 96>>(A, B, C, M, N, K, stream, share, t);
        if (tile.columns == 128)
            return launch_tile<CLUSTER, Tile<1, 128>>(A, B, C, M, N, K, stream, share, t);
        if (tile.columns == 160)
            return launch_tile<CLUSTER, Tile<1, 160>>(A, B, C, M, N, K, stream, share, t);
        if (tile.columns == 192)
            return launch_tile<CLUSTER, Tile<1, 192>>(A, B, C, M, N, K, stream, share, t);
        return launch_tile<CLUSTER, Tile<1, 256>>(A, B, C, M, N, K, stream, share, t);
    }
    if (tile.columns == 64)
        return launch_tile<CLUSTER, Tile<2, 64>>(A, B, C, M, N, K, stream, share, t);
    if (tile.columns == 128)
        return launch_tile<CLUSTER, Tile<2, 128>>(A, B, C, M, N, K, stream, share, t);
    if (tile.columns == 144)  // clusters of at most 2 (slice_cluster)
        return launch_tile<slice_cluster<Tile<2, 144>>(CLUSTER), Tile<2, 144>>(A, B, C, M, N, K, stream,
                                                                              share, t);
    if (tile.columns == 192)
        return launch_tile<CLUSTER, Tile<2, 192>>(A, B, C, M, N, K, stream, share, t);
    if (tile.columns == 224)
        return launch_tile<CLUSTER, Tile<2, 224>>(A, B, C, M, N, K, stream, share, t);
    return launch_tile<CLUSTER, Tile<2, 256>>(A, B, C, M, N, K, stream, share, t);
}

constexpr tile_choice::Shape kPlannersTile{0, 0};

cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    return launch<2>(A, B, C, M, N, K, stream, kPlannersTile, true);
}

// The other variants force a cluster size, a tile or no sharing, whatever the planner would
// choose: to measure the alternatives (ROWS = 0: the planner's tile).
template <int CLUSTER, int ROWS, int COLUMNS, bool SHARE_LAST_WAVE>
cudaError_t gemm_forced(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                        int K, cudaStream_t stream) {
    return launch<CLUSTER>(A, B, C, M, N, K, stream, {ROWS, COLUMNS}, SHARE_LAST_WAVE);
}

// The default tile (128x256) for the planner's table; per problem, describe() says which
// tile the default variant runs.
TileConfig tile_config() {
    using T = Tile<2, 256>;
    return {T::BM, T::BN, BK, T::STAGES, /*consumer_warpgroups*/ 2, /*cluster*/ 2, T::THREADS};
}

// One line for the step executable: the tile the planner chose for M x N x K and why.
std::string describe(int M, int N, int K) {
    int sms = 0;
    if (sm_count(&sms) != cudaSuccess) return "tile: no device";
    return tile_choice::explain(M, N, K, sms, 2);
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
LADDER_REGISTER_STEP(tile_config, describe, set_timeline, {"cluster2", gemm},
                     {"cluster1", gemm_forced<1, 0, 0, true>}, {"cluster4", gemm_forced<4, 0, 0, true>},
                     {"dataparallel", gemm_forced<2, 0, 0, false>}, {"bm64", gemm_forced<2, 64, 256, true>},
                     {"bm128", gemm_forced<2, 128, 256, true>}, {"bm64n128", gemm_forced<2, 64, 128, true>},
                     {"bm64n64", gemm_forced<2, 64, 64, true>},
                     {"bm128n128", gemm_forced<2, 128, 128, true>},
                     {"bm128n192", gemm_forced<2, 128, 192, true>},
                     {"bm128n144", gemm_forced<2, 128, 144, true>},
                     {"bm64n160", gemm_forced<2, 64, 160, true>}, {"bm64n96", gemm_forced<2, 64, 96, true>},
                     {"bm128n224", gemm_forced<2, 128, 224, true>},
                     {"bm64n192", gemm_forced<2, 64, 192, true>},
                     {"bm128n64", gemm_forced<2, 128, 64, true>});

}  // namespace ladder::step07
