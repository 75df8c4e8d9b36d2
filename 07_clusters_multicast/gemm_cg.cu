// =====================================================================================
// Step 07: clusters, TMA multicast, a persistent grid and a TMA-store epilogue
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 06 (its cooperative schedule, the same 128x256 tile and
// the same three warpgroups): four things only Hopper has, or that only pay off with them.
//   * Thread-block clusters. The two CTAs of a cluster (CLUSTER = 2) compute vertically
//     adjacent tiles of C, which need the SAME 256 rows of B. Each CTA loads half of that
//     B box and TMA multicast writes the half into the shared memory of both CTAs: B
//     crosses L2 -> SM once per cluster instead of once per CTA.
//   * The empty barriers count the whole cluster. Both CTAs write into every stage of both
//     CTAs, so a consumer hands a stage back to every CTA of its cluster (a remote mbarrier
//     arrival through distributed shared memory), and the cluster synchronises after the
//     barriers are initialised and before it exits.
//   * A persistent grid: as many clusters as can be resident at once, each walking output
//     tiles in a grouped order (GROUP_M_TILES rows of tiles at a time) so that the tiles in
//     flight share A and B in L2. Stage and phase carry over from tile to tile, so the
//     producer loads the next tile while the consumers store this one.
//   * A TMA-store epilogue: accumulators -> bf16 in a 128B-swizzled shared-memory tile
//     (conflict-free) -> fence.proxy.async -> one cp.async.bulk.tensor store per 64x64
//     box. The TMA unit clips what lies outside C. Its tensor map needs rows of C that
//     start 16-byte aligned (N % 8 == 0); for other N the kernel keeps step 06's direct
//     stores.
// Edges stay simple: every box is issued whole, and TMA fills what lies outside A or B with
// zeros (and still counts those bytes), so a tile at the edge runs exactly as any other.
//
// Why it is faster: the persistent grid removes the launch and prologue of every tile after
// the first on an SM, and its producer loads the next tile during this tile's epilogue.
// The TMA store hands the copy to C to the TMA unit: the consumers write shared memory and
// move on. Multicast cuts what a CTA pulls from L2 per k-block from 48 KB to 16 KB of A +
// 16 KB of B.
// The every-shape kernel beside this file (every_shape/every_shape.cu, step 07's default variant)
// adds what lets one kernel serve every shape of problem well: a tile chosen per problem,
// C^T for problems of few columns, edge boxes, stream-K for the last wave, and the rule
// for when to launch clusters at all.
//
// Measured: the "Predict, then measure" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-7 && ./build/step-7 --variant lesson
// =====================================================================================
// VARIANT BEGIN: this file is step 07 spelled with cooperative groups
// Variant "cg" (step-7 --variant cg, ladder_gemm_variant(7, "cg", ...)): the lesson kernel
// of gemm.cu with the cluster spelled through cooperative groups, as the CUDA programming
// guide ("Distributed Shared Memory") spells it, instead of PTX special registers, mapa
// and barrier.cluster:
//   %cluster_ctarank                       -> cooperative_groups::this_cluster().block_rank()
//   mapa.shared::cluster (inline PTX)      -> cluster.map_shared_rank(empty_barrier, r)
//   barrier.cluster.arrive + wait          -> cluster.sync()
// The remote arrival itself has no cooperative-groups spelling; it is CCCL's
// cuda::ptx::mbarrier_arrive on the mapped pointer, here in its .release.cluster form
// (cluster.cuh's DSMEM rule 3 says why gemm.cu avoids that form; this file shows what it
// costs; CUDA 13.0's CCCL also has a .relaxed.cluster form, PTX ISA 8.6). Everything outside the VARIANT regions is gemm.cu line for line
// (common/scripts/exercises.py checks it and `exercises.py sync` carries gemm.cu's changes over),
// so `diff gemm.cu gemm_cg.cu` is exactly the spelling that changed.
#include <cooperative_groups.h>
// VARIANT END
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "cluster.cuh"  // written out beside this file: the cluster and TMA multicast
#include "layout.h"  // swizzled_offset, wgmma_acc_row/col, tile_place
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
#include "tma_store.cuh"  // written out beside this file: the TMA store
#include "warp_specialization.cuh"  // setmaxnreg, named barriers, store_pair: taught in step 06
#include "wgmma.cuh"  // smem_descriptor, wgmma_*, fence_accumulators: taught in step 05

// VARIANT BEGIN: its own namespace (registered as step 07's "cg" at the end of the file)
namespace ladder::step07_cg {
// VARIANT END

// -------------------------------------------------------------------------------------
// Tile configuration
// -------------------------------------------------------------------------------------
// The instruction: wgmma.mma_async m64nNk16. One warpgroup computes a 64 x N block of C,
// N a multiple of 8 up to 256; K is 16 per instruction for bf16.
constexpr int WGMMA_M = 64;
constexpr int WGMMA_N = 256;
constexpr int WGMMA_K = 16;
constexpr int WARPGROUP_THREADS = 128;

// Registers decide the tile. The 64 x N fp32 accumulator is spread over the warpgroup's
// 128 threads: 64 * N / 128 = N / 2 registers each, 128 for the widest N = 256. A thread
// may hold at most 255 registers and an SM has 65536. With ~40 more per thread for
// addresses, loop state and the epilogue (ptxas -v reports the real count):
//   2 warpgroups: 256 threads * 168 = 43008 registers   fits, one CTA per SM
//   3 warpgroups: 384 threads * 168 = 64512 registers   only just, and BM = 192
//   4 warpgroups: 512 threads * 168 = 86016 registers   does not fit
// So 2 warpgroups, each owning 64 rows: BM = 128, BN = 256. The widest wgmma also
// means each warpgroup reads its 64 rows of A once per k-step for all 256 columns.
// New is a third warpgroup, the producer, which holds no accumulators: the CTA is the 384
// threads of the "only just" line, and __launch_bounds__(384, 1) starts every thread at
// 65536/384 = 170 -> 168 registers (allocation granularity 8). setmaxnreg then re-balances:
// producer 40, consumers 232, 128 * 40 + 256 * 232 = 5120 + 59392 = 64512 <= 65536. 40 is
// more than the producer's loop needs (a stage index, a phase, two tensor-map pointers,
// coordinates); 232 leaves the consumer ~100 registers above its accumulators so the
// compiler never spills them (ptxas -v reports 0 bytes spill for this kernel).
constexpr int CONSUMER_WARPGROUPS = 2;
constexpr int BM = CONSUMER_WARPGROUPS * WGMMA_M;  // 128
constexpr int BN = WGMMA_N;                        // 256
constexpr int BK = 64;                             // one 128-byte swizzle row of bf16
constexpr int THREADS = (1 + CONSUMER_WARPGROUPS) * WARPGROUP_THREADS;  // 384: + the producer
constexpr int K_STEPS = BK / WGMMA_K;                                // 4 wgmmas per k-block
constexpr int ACC_REGS = WGMMA_M * WGMMA_N / WARPGROUP_THREADS;      // 128 fp32 per thread
constexpr int PRODUCER_REGISTERS = 40;
constexpr int CONSUMER_REGISTERS = 232;
static_assert(PRODUCER_REGISTERS % 8 == 0 && CONSUMER_REGISTERS % 8 == 0,
              "setmaxnreg counts are multiples of 8");
static_assert(PRODUCER_REGISTERS >= 24 && CONSUMER_REGISTERS <= 256, "setmaxnreg range is 24..256");
// setmaxnreg only moves registers within what the CTA was launched with (65536 / THREADS,
// rounded down to a multiple of 8, per thread): a consumer's setmaxnreg.inc waits until
// the producer's .dec has handed enough back, and would wait forever if it asked for more.
static_assert(WARPGROUP_THREADS * PRODUCER_REGISTERS +
                      CONSUMER_WARPGROUPS * WARPGROUP_THREADS * CONSUMER_REGISTERS <=
                  65536 / THREADS / 8 * 8 * THREADS,
              "the re-balanced registers must fit the CTA's launch allocation (168 x 384)");
static_assert(CONSUMER_REGISTERS >= ACC_REGS + 64, "room above the accumulators");

// The cluster: CLUSTER CTAs stacked along M share one B box; CTA r of the cluster loads
// rows [r * B_SLICE_ROWS, +B_SLICE_ROWS) of it and multicasts them to every CTA.
constexpr int CLUSTER = 2;
constexpr int B_SLICE_ROWS = BN / CLUSTER;  // 128
constexpr uint16_t CLUSTER_MASK = (1u << CLUSTER) - 1u;  // multicast to every CTA of the cluster
// Grouped rasterization: tiles are walked GROUP_M_TILES rows of tiles at a time, down each
// column of the group before moving right. See tile_origin.
constexpr int GROUP_M_TILES = 16;

// Shared memory decides the stages. One stage holds a k-block of both operands, one TMA
// box each: A 128 x 64 x 2 B = 16 KB, B 256 x 64 x 2 B = 32 KB, 48 KB per stage. A CTA may
// opt in to 227 KB (232448 bytes) on an H100; 1 KB of that goes to aligning the base to
// 1024 bytes and 1 KB to the barriers (the struct pads them to its 1024-byte alignment):
//   (232448 - 2048 - 2 * 16384) / 49152 = 4.02  ->  STAGES = 4, beside the TMA store's
//   staging (new): a 64 x 128 bf16 tile per consumer, 16 KB each; a consumer's 64 x 256
//   piece goes out in two halves through it.
constexpr int C_BOX = 64;  // a TMA store box is 64x64 bf16: 128-byte rows, one swizzle span
constexpr int EPI_N = 128;  // columns of C a consumer stages at a time: two boxes
constexpr int A_ROWS = BM;  // both consumers read every stage: the A box is all rows of the tile
constexpr uint32_t EMPTY_ARRIVALS = CONSUMER_WARPGROUPS * CLUSTER;  // every consumer of the cluster
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr int A_TILE_BYTES = A_ROWS * ROW_BYTES;               // 16384
constexpr int B_TILE_BYTES = BN * ROW_BYTES;                   // 32768
constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;       // 49152 = the expect_tx count
constexpr int C_STAGE_BYTES = WGMMA_M * EPI_N * static_cast<int>(sizeof(__nv_bfloat16));  // 16384
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
constexpr int STAGES = static_cast<int>((SMEM_OPTIN_BYTES - 2048 - 2 * C_STAGE_BYTES) / STAGE_BYTES);  // 4

static_assert(ROW_BYTES == 128,
              "a k-block row must be exactly one 128-byte swizzle span");
static_assert(BK % WGMMA_K == 0, "a k-block is whole wgmma k-steps");
static_assert(BM <= 256 && BN <= 256, "a TMA box has at most 256 rows");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "every tile starts on a 1024-byte boundary, where the swizzle pattern starts");
static_assert(B_SLICE_ROWS % 8 == 0, "a B slice is whole 8-row swizzle atoms (1024 bytes)");
static_assert(C_BOX * sizeof(__nv_bfloat16) == 128 && EPI_N % C_BOX == 0 && BN % EPI_N == 0,
              "a C box row is one 128-byte swizzle span, and whole boxes per round");
static_assert(STAGE_BYTES < (1 << 20), "an mbarrier transaction count must stay below 2^20");
static_assert(ACC_REGS == 128, "the register budget above assumes 128 accumulators");

// The shared memory of one CTA. 128B-swizzled TMA destinations must be 1024-byte
// aligned: the XOR takes address bits 7-9 (the row within a group of 8 rows of 128 bytes)
// into bits 4-6, so a tile must start where that group starts. wgmma applies the same
// XOR to the addresses it reads, so the same alignment lets its descriptors say
// "base offset 0".
struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[STAGES][A_ROWS * BK];
    alignas(1024) __nv_bfloat16 b[STAGES][BN * BK];
    alignas(1024) __nv_bfloat16 c[CONSUMER_WARPGROUPS][WGMMA_M * EPI_N];  // two 64x64 boxes each
    uint64_t full_barrier[STAGES];  // phase completes when A and every B slice have landed HERE
    uint64_t empty_barrier[STAGES];  // phase completes when every consumer of the cluster is done
};
// The dynamic shared memory base is only guaranteed 16-byte aligned: allocate 1 KB more
// and round the base up. 4 stages: 196608 + 32768 + 64 -> sizeof 230400 (padded to 1024)
// + 1024 = 231424 bytes (226 KB), over the 48 KB default, so the host opts in.
constexpr int SMEM_BYTES = static_cast<int>(sizeof(SharedStorage)) + 1024;
static_assert(SMEM_BYTES <= SMEM_OPTIN_BYTES, "fits the opt-in limit");
static_assert(STAGES >= 2, "a consumer holds one stage while it waits for the next: at least two");

// -------------------------------------------------------------------------------------
// Device helpers carried over from steps 03 to 06
// -------------------------------------------------------------------------------------
// (wait_barrier, tma_load_2d and arrive_expect_tx come from tma.cuh; smem_descriptor,
// wgmma_fence, wgmma_commit_group, wgmma_wait_group, fence_accumulators and
// wgmma_m64n256k16 from wgmma.cuh.) And from step 06's warp_specialization.cuh:
// store_pair, setmaxnreg_dec/inc, named_barrier_sync and advance.

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------
// Written out beside this file (read them next): the cluster's helpers in cluster.cuh (the
// rules of distributed shared memory, cluster_sync, release_stage to every CTA of the
// cluster, tma_load_2d_multicast), the TMA store's in tma_store.cuh (tma_store_2d,
// store_shared_bf16x2).

// VARIANT BEGIN: cluster_sync and release_stage through cooperative groups
// This file's own cluster_sync and release_stage, which hide cluster.cuh's (same names, in
// this inner namespace).
// cooperative_groups::this_cluster().sync() is barrier.cluster.arrive + barrier.cluster.wait
// (their default semantics, release and acquire), the same pair as cluster.cuh's
// cluster_sync. SASS: UCGABAR_ARV, UCGABAR_WAIT.
__device__ __forceinline__ void cluster_sync() { cooperative_groups::this_cluster().sync(); }

// A consumer hands a stage back to every CTA of the cluster, as cluster.cuh's release_stage
// does. cluster.map_shared_rank(p, r): the generic address of CTA r's copy of *p (mapa on a
// generic address, PTX ISA "mapa"). The arrival on it is CCCL's
// cuda::ptx::mbarrier_arrive(sem_release, scope_cluster, space_cluster, bar):
//   mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar];
// CCCL turns the generic pointer into a .shared::cluster address with cvta.to.shared, as
// its own helpers do for remote shared memory (__as_ptr_remote_dsmem).
template <int CLUSTER>
__device__ __forceinline__ void release_stage(uint64_t* empty_barrier, int thread_in_wg) {
    if constexpr (CLUSTER == 1) {
        if (thread_in_wg == 0) ladder::release_stage(empty_barrier);  // step 06's
    } else {
        if (thread_in_wg < CLUSTER) {
            uint64_t* remote =
                cooperative_groups::this_cluster().map_shared_rank(empty_barrier, thread_in_wg);
            cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                       cuda::ptx::space_cluster, remote);
        }
    }
}

// VARIANT END
// The TMA-store epilogue's named barriers: each consumer warpgroup has its own (ids 1 and
// 2, 128 threads) to order its shared-memory writes against the TMA store that reads them,
// without stopping the other warpgroups.
constexpr int EPILOGUE_BARRIER_ID = 1;  // + consumer index

// The cluster tiles of an M x N problem, as (rows, columns): a cluster tile is CLUSTER
// vertically adjacent CTA tiles. The host sizes the grid with it and the kernel walks the
// tiles with it, so the two always agree.
__host__ __device__ inline int2 cluster_tile_grid(int M, int N) {
    return make_int2(layout::ceil_div(layout::ceil_div(M, BM), CLUSTER), layout::ceil_div(N, BN));
}

// Persistent tile order. The grid is a fixed set of clusters; cluster c takes cluster
// tiles c, c + clusters, c + 2*clusters, ... A cluster tile is CLUSTER vertically adjacent
// CTA tiles (256 rows x 256 columns). Numbering them row by row would put the ~66 tiles in
// flight at one moment on one or two rows of tiles: the same A rows, but every B column of
// the matrix. Grouped order instead walks a band of GROUP_M_TILES*128 = 2048 rows column by
// column, so the tiles in flight form a block of about 2048 x 2048 of C: they share 2048
// rows of A and 2048 rows of B, which stay in L2.
//
//   tile numbers, 4 rows of cluster tiles per group:      0  4  8 12 16 ...
//                                                         1  5  9 13 17 ...
//                                                         2  6 10 14 18 ...
//                                                         3  7 11 15 19 ...
//                                                        (next group below) ...
// Returns the first row and column of C of CTA `rank`'s part of cluster tile `tile`.
__device__ __forceinline__ int2 tile_origin(int tile, int M, int N, uint32_t rank) {
    const int2 grid = cluster_tile_grid(M, N);
    const layout::TilePlace place =
        layout::tile_place(layout::TileOrder::Grouped, tile, grid.x, grid.y,
                           layout::group_rows_for(GROUP_M_TILES, CLUSTER));
    return make_int2((place.cluster_row * CLUSTER + static_cast<int>(rank)) * BM,
                     place.tile_col * BN);
}

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// Warpgroup 0 produces, warpgroups 1 and 2 consume. The ring protocol, per stage:
//   full_barrier  count 1: the producer's arrive.expect_tx, plus the TMA transaction
//                 bytes of the boxes that signal it: this CTA's A box and EVERY CTA's B
//                 slice (a multicast copy signals the barrier at the same offset in each
//                 CTA it writes). It completes once per fill, so consumers
//                 wait on it with the parity of the current lap.
//   empty_barrier count EMPTY_ARRIVALS: one per consumer warpgroup that reads the stage,
//                 in every CTA of the cluster: until then no producer may write its slice.
//                 The producer waits on it with the OPPOSITE parity: on its first lap the
//                 "previous phase" (parity 1) of a fresh barrier counts as complete, so
//                 the first STAGES fills go out without waiting.
// Stage and phase run on across tiles: fill f is the f-th k-block this CTA loads, over
// all its tiles, and producer and consumers walk the same tile sequence.
__global__ void __launch_bounds__(THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            const __grid_constant__ CUtensorMap c_map,
            __nv_bfloat16* __restrict__ C, int M, int N, int K) {
    // ---- setup: which tile of C, which warpgroup, shared storage and its barriers -----
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t smem_base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023};
    SharedStorage& s = *reinterpret_cast<SharedStorage*>(smem_base);

    const int warpgroup = threadIdx.x / WARPGROUP_THREADS;
    const int thread_in_wg = threadIdx.x % WARPGROUP_THREADS;
    // VARIANT BEGIN: the rank through cooperative groups
    // The rank in the cluster through cooperative groups; the cluster's index and the
    // number of clusters stay the PTX special registers %clusterid.x and %nclusterid.x.
    const uint32_t rank = cooperative_groups::this_cluster().block_rank();
    // VARIANT END
    const int cluster_id = static_cast<int>(cuda::ptx::get_sreg_clusterid_x());
    const int clusters = static_cast<int>(cuda::ptx::get_sreg_nclusterid_x());
    const int cluster_tiles = cluster_tile_grid(M, N).x * cluster_tile_grid(M, N).y;
    const int k_blocks = layout::ceil_div(K, BK);  // the last one may overhang K: TMA zero-fills it

    if (threadIdx.x == 0) {
        for (int stage = 0; stage < STAGES; ++stage) {
            // One expected arrival per phase: the producer's arrive.expect_tx. The bytes
            // of the two boxes are the rest of what completes the phase.
            //   CCCL: cuda::ptx::mbarrier_init(bar, count)
            //   PTX:  mbarrier.init.shared.b64 [bar], count;
            cuda::ptx::mbarrier_init(&s.full_barrier[stage], 1);
            cuda::ptx::mbarrier_init(&s.empty_barrier[stage], uint32_t{EMPTY_ARRIVALS});
        }
        // The copy engine (the "async proxy") must see the initialised barriers before it
        // signals one.  PTX: fence.mbarrier_init.release.cluster;
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    // DSMEM rule 2: no CTA multicasts into, or arrives on, a peer's barriers before the
    // peer has initialised them. (This also does __syncthreads' job inside the CTA.)
    cluster_sync();

    if (warpgroup == 0) {
        // ---- producer: one thread keeps the ring full ---------------------------------
        setmaxnreg_dec<PRODUCER_REGISTERS>();
        if (thread_in_wg == 0) {
            int stage = 0;
            uint32_t phase = 0;
            // The cluster's tiles, one after another (the body keeps step 06's indentation).
            for (int tile = cluster_id; tile < cluster_tiles; tile += clusters) {
            const int2 origin = tile_origin(tile, M, N, rank);
            const int m0 = origin.x, n0 = origin.y;
            // This CTA's slice: rows [rank * B_SLICE_ROWS, +B_SLICE_ROWS) of the B box,
            // at the same place in every CTA's stage.
            const int slice_row = static_cast<int>(rank) * B_SLICE_ROWS;
            for (int kb = 0; kb < k_blocks; ++kb) {
                wait_barrier(&s.empty_barrier[stage], phase ^ 1u, "empty barrier");
                LADDER_TIMELINE_PRODUCER(LoadIssue, kb);
                // The FULL box bytes, even where the box hangs over the matrix edge:
                // TMA writes those elements too (as zeros) and counts them.
                arrive_expect_tx(&s.full_barrier[stage], STAGE_BYTES);
                tma_load_2d(s.a[stage], &a_map, kb * BK, m0, &s.full_barrier[stage]);
                tma_load_2d_multicast(&s.b[stage][slice_row * BK], &b_map, kb * BK,
                                      n0 + slice_row, &s.full_barrier[stage], CLUSTER_MASK);
                advance<STAGES>(stage, phase);
            }
            }  // tiles
        }
        // The other 127 producer threads have nothing to do; they fall through to the end.
        // cluster_sync is the non-.aligned barrier.cluster, which needs no converged warp; the
        // every-shape kernel built from this file also runs as a cluster of one, where it is
        // the CTA's bar.sync, which every thread of a warp must reach together.
        __syncwarp();
    } else {
        setmaxnreg_inc<CONSUMER_REGISTERS>();
        const int consumer = warpgroup - 1;

        // ---- main loop: wgmma on full stages, hand each back as soon as it is read ------
        // Both consumers read every fill, from fill 0 on (the timeline numbers k-blocks by
        // fill); this consumer's 64 rows are the top or bottom half of each stage's A box.
        int stage = 0;
        uint32_t phase = 0;
        const int a_row_in_stage = consumer * WGMMA_M;

        float acc[ACC_REGS];
        // The cluster's tiles, one after another (the body keeps step 06's indentation).
        for (int tile = cluster_id; tile < cluster_tiles; tile += clusters) {
        const int2 origin = tile_origin(tile, M, N, rank);
        const int m0 = origin.x, n0 = origin.y;
        // This tile's first fill (the timeline numbers k-blocks by fill).
        [[maybe_unused]] const int first_fill = (tile - cluster_id) / clusters * k_blocks;
        int previous_stage = -1;
        for (int kb = 0; kb < k_blocks; ++kb) {
            wait_barrier(&s.full_barrier[stage], phase, "full barrier");
            // Timeline (thread 0 of the warpgroup speaks for it; k-blocks numbered by fill).
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, LoadArrive, first_fill + kb);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, MmaStart, first_fill + kb);
            const uint32_t a_tile = static_cast<uint32_t>(__cvta_generic_to_shared(s.a[stage])) +
                                    a_row_in_stage * ROW_BYTES;
            const uint32_t b_tile = static_cast<uint32_t>(__cvta_generic_to_shared(s.b[stage]));
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < K_STEPS; ++ks) {
                const uint32_t k_bytes = ks * WGMMA_K * sizeof(__nv_bfloat16);
                const uint32_t accumulate = (kb > 0 || ks > 0) ? 1u : 0u;
                wgmma_m64n256k16(acc, smem_descriptor(a_tile + k_bytes),
                                 smem_descriptor(b_tile + k_bytes), accumulate);
            }
            wgmma_commit_group();
            // Keep this k-block's wgmma running and wait only for the previous one:
            // once it is done, its stage can be refilled, by every CTA of the cluster.
            wgmma_wait_group<1>();
            fence_accumulators(acc);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > 0, consumer, MmaEnd,
                                     first_fill + kb - 1);
            if (previous_stage >= 0)
                release_stage<CLUSTER>(&s.empty_barrier[previous_stage], thread_in_wg);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > 0, consumer, Release,
                                     first_fill + kb - 1);
            previous_stage = stage;
            advance<STAGES>(stage, phase);
        }
        wgmma_wait_group<0>();
        fence_accumulators(acc);
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, MmaEnd, first_fill + k_blocks - 1);
        release_stage<CLUSTER>(&s.empty_barrier[previous_stage], thread_in_wg);
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, Release, first_fill + k_blocks - 1);
        // The producer already loads the next tile into the stages just released.

        // ---- epilogue: accumulators -> bf16 -> swizzled smem -> TMA store --------------
        // wgmma's D layout: warp w of the warpgroup owns rows 16w..16w+15; in each n8
        // column block j/4, lane l holds rows l/4 and l/4 + 8, columns 2(l%4), +1:
        //   acc[j] -> row 16w + l/4 + 8*((j/2)%2),  col 8*(j/4) + 2*(l%4) + j%2.
        // (layout::wgmma_acc_row/col in common/kernel/layout.h; results/layouts/wgmma_fragment.png.)
        const int row0 = m0 + consumer * WGMMA_M;  // first row of this consumer's piece
        const int warp = thread_in_wg / 32;
        const int lane = thread_in_wg % 32;
        __nv_bfloat16* c_tile = C + static_cast<size_t>(row0) * N + n0;
        const int rows_left = M - row0;
        const int cols_left = N - n0;
        // Through the TMA unit where C has a tensor map: every row of C 16-byte aligned.
        const bool tma_store = N % 8 == 0;
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueStart, first_fill);
        if (tma_store) {
            const void* c_stage = s.c[consumer];
            const uint32_t c_smem = static_cast<uint32_t>(__cvta_generic_to_shared(c_stage));
#pragma unroll
            for (int part = 0; part < BN / EPI_N; ++part) {
                // The buffer is free once the previous store (of this tile's other half, or
                // of the last tile) has finished reading it.
                // CCCL: cuda::ptx::cp_async_bulk_wait_group_read(n32_t<0>)
                // PTX:  cp.async.bulk.wait_group.read 0;
                if (thread_in_wg == 0)
                    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
                named_barrier_sync(EPILOGUE_BARRIER_ID + consumer, WARPGROUP_THREADS);
                // Columns [EPI_N*part, +EPI_N) of the piece = two 64x64 boxes, each stored
                // 128B-swizzled like the TMA loads: 16-byte chunk c of row r sits at chunk
                // c ^ (r % 8). A warp's 32 four-byte stores for one j cover 8 rows x one
                // chunk, which the XOR spreads over all 32 banks.
#pragma unroll
                for (int j = part * (EPI_N / 2); j < (part + 1) * (EPI_N / 2); j += 2) {
                    const int row = layout::wgmma_acc_row(warp, lane, j);
                    const int n8 = (j / 4) % (EPI_N / 8);  // n8 block inside this part
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
                    for (int box = 0; box < EPI_N / C_BOX; ++box)
                        tma_store_2d(&c_map, n0 + part * EPI_N + box * C_BOX, row0,
                                     static_cast<const uint8_t*>(c_stage) + box * C_BOX * C_BOX * 2);
                    // PTX: cp.async.bulk.commit_group;
                    cuda::ptx::cp_async_bulk_commit_group();
                }
            }
        } else {
            // N % 8 != 0: rows of C are not 16-byte aligned. Store straight from the D
            // layout, as step 05 does (and gemm_pingpong.cu always does).
            // Interior pieces with an even N (every pair 4-byte aligned) skip the checks.
            const bool interior = rows_left >= WGMMA_M && cols_left >= BN && N % 2 == 0;
#pragma unroll
            for (int j = 0; j < ACC_REGS; j += 2) {
                const int row = layout::wgmma_acc_row(warp, lane, j);
                const int col = layout::wgmma_acc_col(lane, j);
                if (interior) {
                    __nv_bfloat16* p = c_tile + static_cast<size_t>(row) * N + col;
                    *reinterpret_cast<__nv_bfloat162*>(p) =
                        __floats2bfloat162_rn(acc[j], acc[j + 1]);
                } else {
                    store_pair(c_tile, N, rows_left, cols_left, row, col, acc[j], acc[j + 1]);
                }
            }
        }
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueEnd, first_fill);
        }  // tiles
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
// The tensor maps are step 04's: A is M x K with a {64, 128} box, B is N x K with a
// {64, 128} box (one of two slices), both CU_TENSOR_MAP_SWIZZLE_128B, the layout the descriptors
// describe (see smem_descriptor). Out-of-bounds box elements arrive as zeros.
// New is C's: 64x64 boxes stored from 128B-swizzled shared memory, which needs rows of C
// 16-byte aligned (N % 8 == 0); for other N the kernel stores directly (c_map stays zeroed).
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "07_clusters_multicast";
    if (cudaError_t err = check_gemm_args(kStep, A, B, C, M, N, K, NeedsArch::Sm90a);
        err != cudaSuccess)
        return err;

    const long long tiles = static_cast<long long>(layout::ceil_div(M, BM)) * layout::ceil_div(N, BN);
    if (tiles > INT_MAX)
        return fail(cudaErrorInvalidValue,
                    "%s: M=%d N=%d needs %lld tiles, more than a grid holds", kStep, M, N, tiles);
    const int cluster_tiles = cluster_tile_grid(M, N).x * cluster_tile_grid(M, N).y;

    CUtensorMap a_map;
    CUtensorMap b_map;
    CUtensorMap c_map{};
    if (cudaError_t err =
            make_tensor_map_2d(&a_map, A, M, K, A_ROWS, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep);
        err != cudaSuccess)
        return err;
    if (cudaError_t err =
            make_tensor_map_2d(&b_map, B, N, K, B_SLICE_ROWS, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep);
        err != cudaSuccess)
        return err;
    if (cudaError_t err = N % 8 != 0 ? cudaSuccess  // no C map: the kernel stores directly
                                     : make_tensor_map_2d(&c_map, C, M, N, C_BOX, C_BOX,
                                                          CU_TENSOR_MAP_SWIZZLE_128B, kStep);
        err != cudaSuccess)
        return err;

    // More than 48 KB of dynamic shared memory must be asked for (common/library/step_api.h).
    if (cudaError_t err = allow_dynamic_smem(kStep, gemm_kernel, SMEM_BYTES);
        err != cudaSuccess)
        return err;

    // The cluster's shape is a launch attribute (CUDA guide, "Thread Block Clusters"):
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim = {CLUSTER, 1, 1};
    cudaLaunchConfig_t config{};
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = SMEM_BYTES;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;

    // The persistent grid: as many clusters as are resident at once (a cluster's CTAs must fit
    // in one GPC), at most one per cluster tile. Asked once per device, not on every launch.
    static PerDeviceCache<int> resident_clusters;
    int device = 0, max_clusters = 0;
    config.gridDim = dim3(CLUSTER);
    cudaError_t occupancy = cudaGetDevice(&device);
    if (occupancy == cudaSuccess)
        occupancy = resident_clusters.get(device, &max_clusters, [&](int* n) {
            return cudaOccupancyMaxActiveClusters(n, gemm_kernel, &config);
        });
    if (occupancy != cudaSuccess || max_clusters < 1)
        return fail(occupancy != cudaSuccess ? occupancy : cudaErrorInvalidConfiguration,
                    "%s: no cluster of %d CTAs fits on this GPU", kStep, CLUSTER);
    config.gridDim = dim3(static_cast<unsigned>(std::min(cluster_tiles, max_clusters) * CLUSTER));

    if (cudaError_t err = cudaLaunchKernelEx(&config, gemm_kernel, a_map, b_map, c_map, C, M, N, K);
        err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (cluster size %d): %s", kStep, CLUSTER,
                    cudaGetErrorString(err));
    return check_launch(kStep);
}

TileConfig tile_config() {
    return {BM, BN, BK, STAGES, CONSUMER_WARPGROUPS, CLUSTER, THREADS};
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants. The step's default variant is the
// every-shape kernel of every_shape/every_shape.cu (LADDER_REGISTER_DEFAULT_VARIANT there).
// VARIANT BEGIN: registers itself as variant "cg" of step 07, after gemm.cu's (registry.h)
LADDER_REGISTER_VARIANT(set_timeline, {"cg", gemm});
// VARIANT END

// VARIANT BEGIN: its own namespace
}  // namespace ladder::step07_cg
// VARIANT END
