// =====================================================================================
// VARIANT BEGIN: this file is step 07's every-shape kernel
// Step 07, the every-shape kernel: the lesson of gemm.cu, fast on every shape of problem
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// Step 07's default variant ("cluster2": what step-7, ladder_gemm(7, ...) and ladder.gemm
// run). Its kernel is gemm.cu's: a cluster of CTAs along M sharing B by multicast, a
// persistent grid in grouped order, a TMA-store epilogue. What this file adds lets that one
// kernel serve every shape of problem, each addition in a VARIANT region of its own, so that
// `diff 07_clusters_multicast/gemm.cu 07_clusters_multicast/gemm_every_shape.cu` is this
// file's lesson (README.md, "The every-shape kernel"; NOTES.md has the measurements):
//   * A tile per problem: Tile<CONSUMERS, COLUMNS>, one or two consumers (64 or 128 rows) by
//     64 to 256 columns, each with as many stages as fit (tiles.cuh), chosen by the rule of
//     tile_choice.h, which the planner shares. `step-7 --tile RxC` forces one.
//   * C^T: a problem of few columns and many rows computes C^T = B A^T instead, so that its
//     long side runs along the tiles' rows, and stores it transposed.
//   * Edge boxes: the last row of tiles and the last B slice load through tensor maps whose
//     box holds only the rows left, and a box wholly outside the matrix is not issued.
//   * Stream-K: when the last wave of tiles would leave many SMs idle, its k-blocks are
//     shared out among the clusters in equal runs, and each tile's owner adds the others'
//     partial sums (schedule.cuh, by the cost rule of stream_k.h, which also charges runs
//     that read K out of step where the last wave's operands exceed the L2).
//   * When to launch clusters: with six waves of tiles or fewer a cluster launch is slower
//     than a plain one (tile_choice.h: launches_clusters); the cluster size is a template
//     parameter (variants cluster1 and cluster4).
// Everything outside the VARIANT regions is gemm.cu line for line (common/scripts/exercises.py
// checks it, and `exercises.py sync` carries gemm.cu's changes over).
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-7 && ./build/step-7
// VARIANT END
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
// VARIANT BEGIN: what the every-shape kernel includes besides
#include <string>
#include <utility>
// VARIANT END

#include "cluster.cuh"  // written out beside this file: the cluster and TMA multicast
#include "layout.h"  // swizzled_offset, wgmma_acc_row/col, tile_place
// VARIANT BEGIN: the persistent grid's schedule and stream-K
#include "schedule.cuh"  // written out beside this file: the persistent grid's work, stream-K
// VARIANT END
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
// VARIANT BEGIN: the tile choice and the tile family
#include "tile_choice.h"  // written out beside this file: the tile and C^T per problem
#include "tiles.cuh"  // written out beside this file: the tile family
// VARIANT END
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
#include "tma_store.cuh"  // written out beside this file: the TMA store
#include "warp_specialization.cuh"  // setmaxnreg, named barriers, store_pair: taught in step 06
#include "wgmma.cuh"  // smem_descriptor, wgmma_*, fence_accumulators: taught in step 05

// VARIANT BEGIN: its own namespace (registered as step 07's default variant at the end of the file)
namespace ladder::step07_every_shape {
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

// VARIANT BEGIN: the tile family: the kernel takes its tile as a template parameter
// The tile per problem, Tile<CONSUMERS, COLUMNS>: one or two consumers (64 or 128 rows) by
// 64 to 256 columns, 128x256 (the tile above) for large problems, each with as many stages as
// fit. tiles.cuh beside this file derives them all (read it next); tile_choice.h picks one per
// problem. The kernel takes its tile as T.
template <int CONSUMERS, int COLUMNS>
struct Tile : TileShape<CONSUMERS, COLUMNS> {};
// The family's large tile is the tile above, as gemm.cu launches it (clusters of CLUSTER).
using LargeTile = Tile<CONSUMER_WARPGROUPS, BN>;
static_assert(LargeTile::BM == BM && LargeTile::STAGES == STAGES &&
                  LargeTile::SMEM_BYTES == SMEM_BYTES && LargeTile::THREADS == THREADS &&
                  LargeTile::CONSUMER_WARPGROUPS * CLUSTER == EMPTY_ARRIVALS &&
                  ladder::B_SLICE_ROWS<CLUSTER, LargeTile> == B_SLICE_ROWS &&
                  (1u << CLUSTER) - 1u == CLUSTER_MASK,
              "the 128x256 tile of the family is gemm.cu's");

// VARIANT END
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
// VARIANT BEGIN: the headers that serve every shape
// store_shared_bf16x2). And for every shape of problem: the persistent grid's schedule and
// stream-K's partial tiles in schedule.cuh (Schedule, WorkCursor, fix_up), the tile family in
// tiles.cuh, and the rule that picks a tile in tile_choice.h.
// VARIANT END

// The TMA-store epilogue's named barriers: each consumer warpgroup has its own (ids 1 and
// 2, 128 threads) to order its shared-memory writes against the TMA store that reads them,
// without stopping the other warpgroups.
constexpr int EPILOGUE_BARRIER_ID = 1;  // + consumer index

// The cluster tiles of an M x N problem, as (rows, columns): a cluster tile is CLUSTER
// vertically adjacent CTA tiles. The host sizes the grid with it and the kernel walks the
// tiles with it, so the two always agree.
// VARIANT BEGIN: the cluster tile grid of any tile and cluster size
template <int CLUSTER, class T>
__host__ __device__ inline int2 cluster_tile_grid(int M, int N) {
    const int tiles_m = layout::ceil_div(M, T::BM);
    const int tiles_n = layout::ceil_div(N, T::BN);
    return make_int2((tiles_m + CLUSTER - 1) / CLUSTER, tiles_n);
}
// VARIANT END

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
// VARIANT BEGIN: tile_origin of any tile and cluster size
// Returns the first row and column of C of this CTA's part of cluster tile `tile`.
template <int CLUSTER, class T>
__device__ __forceinline__ int2 tile_origin(int tile, int cluster_rows, int tiles_n,
                                            uint32_t rank) {
    const layout::TilePlace place =
        layout::tile_place(layout::TileOrder::Grouped, tile, cluster_rows, tiles_n,
                           layout::group_rows_for(GROUP_M_TILES, CLUSTER));
    return make_int2((place.cluster_row * CLUSTER + static_cast<int>(rank)) * T::BM,
                     place.tile_col * T::BN);
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
// VARIANT END

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
// VARIANT BEGIN: a kernel per tile and cluster size, with the schedule, the C store mode and the edge boxes
// a_edge_map, b_edge_map and their bytes: the edge boxes of tiles.cuh (see launch_tile).
template <int CLUSTER, class T>
__global__ void __launch_bounds__(T::THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            const __grid_constant__ CUtensorMap c_map, __nv_bfloat16* __restrict__ C, int M,
            int N, int K, int c_store, const Schedule sched, float* __restrict__ partials,
            int* __restrict__ flags, const __grid_constant__ CUtensorMap a_edge_map,
            uint32_t a_edge_bytes, const __grid_constant__ CUtensorMap b_edge_map,
            uint32_t b_edge_bytes) {
    // ---- setup: which tile of C, which warpgroup, shared storage and its barriers -----
    constexpr int STAGES = T::STAGES, CONSUMER_WARPGROUPS = T::CONSUMER_WARPGROUPS;
    constexpr int BN = T::BN, ACC_REGS = T::ACC_REGS;
    constexpr uint32_t A_TILE_BYTES = T::A_TILE_BYTES, B_TILE_BYTES = T::B_TILE_BYTES;
    constexpr int B_SLICE = ladder::B_SLICE_ROWS<CLUSTER, T>;
    static_assert(B_SLICE % 8 == 0, "whole swizzle atoms per slice (slice_cluster)");
    // Every CTA of the cluster writes a slice of B into every stage.
    constexpr uint32_t EMPTY_ARRIVALS = CONSUMER_WARPGROUPS * CLUSTER;
    using SharedStorage = typename T::SharedStorage;
// VARIANT END
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t smem_base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023};
    SharedStorage& s = *reinterpret_cast<SharedStorage*>(smem_base);

    const int warpgroup = threadIdx.x / WARPGROUP_THREADS;
    const int thread_in_wg = threadIdx.x % WARPGROUP_THREADS;
    // VARIANT BEGIN: the cluster's index is read after setmaxnreg (read_cluster_id), the rest per unit
    // PTX special register %cluster_ctarank (CCCL get_sreg_*); %clusterid.x is read later.
    const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
    // VARIANT END

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
    // VARIANT BEGIN: split-K lets its reduce kernel take the SMs this grid leaves free
    // The reduce kernel of split-K is launched next as a programmatic dependent launch: once
    // every CTA of this grid has said so, its CTAs may be placed on the SMs this grid leaves
    // free; each waits there (griddepcontrol.wait) until this grid has finished and its
    // writes are visible. PTX ISA: "Parallel Synchronization and Communication
    // Instructions: griddepcontrol".
    if (sched.splits > 1) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    // VARIANT END

    if (warpgroup == 0) {
        // ---- producer: one thread keeps the ring full ---------------------------------
        // VARIANT BEGIN: the producer: setmaxnreg only where registers move; the cluster's index
        if constexpr (T::MOVES_REGISTERS) setmaxnreg_dec<T::PRODUCER_REGISTERS>();
        if (thread_in_wg == 0) {
            const int cluster_id = read_cluster_id();
        // VARIANT END
            int stage = 0;
            uint32_t phase = 0;
            // VARIANT BEGIN: the producer walks the schedule's units, with edge boxes; boxes outside the matrix are not issued
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
                // Boxes wholly outside the matrix are not issued (and their bytes not
                // expected): when M is not a multiple of CLUSTER*BM the last CTAs of a
                // cluster may have no rows, and when N - n0 < BN the last B slices no
                // columns. The stale shared memory their consumers then multiply only
                // reaches rows and columns of C that are never stored. All CTAs of a
                // cluster share n0, so they agree on b_slices.
                const bool a_in_bounds = m0 < M;
                const int b_slices = min(CLUSTER, (N - n0 + B_SLICE - 1) / B_SLICE);
                // The slice that holds C's last column may read a shorter box, like A's last
                // row of tiles (tiles.cuh).
                const int b_edge = b_edge_slice<CLUSTER, T>(N - n0);
                const uint32_t tx_bytes = stage_tx_bytes<CLUSTER, T>(a_in_bounds ? a_bytes : 0u,
                                                                     b_slices, b_edge, b_edge_bytes);
                const CUtensorMap* b_source = static_cast<int>(rank) == b_edge ? &b_edge_map : &b_map;
                for (int kb = unit.kb_begin; kb < unit.kb_end; ++kb, ++fill) {
                    wait_barrier(&s.empty_barrier[stage], phase ^ 1u, "empty barrier");
                    LADDER_TIMELINE_PRODUCER(LoadIssue, fill);
                    // The FULL bytes of every box issued to this CTA, even where a box
                    // hangs over the matrix edge: TMA writes those elements too (as zeros)
                    // and counts them. The peers' B slices count here too.
                    arrive_expect_tx(&s.full_barrier[stage], tx_bytes);
                    if (a_in_bounds)
                        tma_load_2d(s.a[stage], a_source, kb * BK, m0, &s.full_barrier[stage]);
                    if (static_cast<int>(rank) < b_slices) {
                        // This CTA's slice: rows [rank * BN/CLUSTER, +BN/CLUSTER) of the B box,
                        // at the same place in every CTA's stage.
                        const int slice_row = layout::b_slice_first_row(static_cast<int>(rank), BN, CLUSTER);
                        __nv_bfloat16* dst = &s.b[stage][slice_row * BK];
                        if constexpr (CLUSTER == 1)
                            tma_load_2d(dst, b_source, kb * BK, n0, &s.full_barrier[stage]);
                        else
                            tma_load_2d_multicast(dst, b_source, kb * BK, n0 + slice_row,
                                                  &s.full_barrier[stage],
                                                  static_cast<uint16_t>((1u << CLUSTER) - 1u));
                    }
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
            // VARIANT END

        // ---- main loop: wgmma on full stages, hand each back as soon as it is read ------
        // Both consumers read every fill, from fill 0 on (the timeline numbers k-blocks by
        // fill); this consumer's 64 rows are the top or bottom half of each stage's A box.
        int stage = 0;
        uint32_t phase = 0;
        // VARIANT BEGIN: the consumers walk the schedule's units; stream-K's fix-up; the store for every tile width, C and C^T
        float acc[ACC_REGS];
        // The descriptors of stage 0 for this consumer's rows of A and for B. Stage s, k16
        // step k is the same descriptor with its start address field (bits 0-13, address / 16)
        // advanced by s*stage_bytes/16 + k*32/16: one add, instead of rebuilding the
        // descriptor for every wgmma. Shared addresses stay below 2^18, so the 14-bit field
        // cannot carry into the next one.
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
                for (int ks = 0; ks < K_STEPS; ++ks) {
                    const uint32_t k_step = ks * WGMMA_K * sizeof(__nv_bfloat16) >> 4;  // 32 B
                    const uint32_t accumulate = (kb > unit.kb_begin || ks > 0) ? 1u : 0u;
                    wgmma_tile<BN>(acc, smem_descriptor_with_lo(a_desc + k_step),
                                   smem_descriptor_with_lo(b_desc + k_step), accumulate);
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
            // (wgmma's D layout as in step 06: layout::wgmma_acc_row/col.)
            const int row0 = m0 + consumer * WGMMA_M;  // first row of this consumer's piece
            if (row0 >= M) continue;  // the whole piece is below C (uniform per warpgroup)
            // Split-K (schedule.cuh): the slice's fp32 sums go to a slot of their own, and
            // reduce_splits adds the slices and stores C.
            if (sched.splits > 1) {
                store_slice<T, WARPGROUP_THREADS>(
                    slice_slot<T>(partials, unit.split, sched.tiles * CLUSTER,
                                  unit.tile * CLUSTER + static_cast<int>(rank), consumer),
                    thread_in_wg, acc);
                continue;
            }
            // Stream-K (schedule.cuh): a unit that does not start its tile hands its partial
            // sums to the tile's owner and is done; the owner adds them before it stores.
            if (!fix_up<T, CLUSTER, WARPGROUP_THREADS>(sched, unit, partials, flags, cluster_id, rank,
                                                       consumer, EPILOGUE_BARRIER_ID + consumer,
                                                       thread_in_wg, acc))
                continue;
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
                // The columns past the last whole 64-column box, stored directly (tiles.cuh).
                store_tile_direct<T::TMA_COLUMNS / 2>(C + static_cast<size_t>(row0) * N + n0, N,
                                                      M - row0, N - n0, warp, lane, acc);
            } else {
                // No C tensor map (N % 8 != 0, or C^T computed): direct stores (tiles.cuh).
                const int rows_left = M - row0;
                const int cols_left = N - n0;
                if (c_store == kStoreTransposed)
                    store_tile_transposed(C + static_cast<size_t>(n0) * M + row0, M, rows_left,
                                          cols_left, warp, lane, acc);
                else
                    store_tile_direct<0>(C + static_cast<size_t>(row0) * N + n0, N, rows_left,
                                         cols_left, warp, lane, acc);
            }
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueEnd, first_fill);
        }
        // VARIANT END
        // The last stores must be complete before the CTA's shared memory goes away.
        // PTX: cp.async.bulk.wait_group 0;
        if (thread_in_wg == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
        __syncwarp();
    }

    // DSMEM rule 2 again: the last remote arrivals on a peer's empty barriers must land
    // before that peer exits, so nobody leaves until everybody is here.
    cluster_sync();
}

// VARIANT BEGIN: split-K's reduce kernel
// Split-K's second kernel: adds the `splits` slices of every tile and stores C in bf16.
// A consumer's slice is ACC_REGS / 4 rounds of 128 float4 (slice_slot: float4 q * 128 + t
// was thread t's acc[4q..4q+3]). Block b takes REDUCE_LANES consecutive float4 of one
// consumer's piece of one CTA tile, in every slice: its `groups` x REDUCE_LANES threads each
// add every groups-th slice, in slice order, and the group sums are then added in group order
// through shared memory. The order is fixed, so the bits do not change from run to run. The
// blocks (pieces x ACC_REGS / 4 x 128 / REDUCE_LANES) spread the slices' reads over the SMs.
constexpr int REDUCE_LANES = 32;
template <int CLUSTER, class T>
__global__ void __launch_bounds__(1024)
reduce_splits(const float* __restrict__ partials, __nv_bfloat16* __restrict__ C, int M, int N,
              int c_store, int tiles, int splits) {
    extern __shared__ float4 group_sums[];  // [groups - 1][REDUCE_LANES]
    constexpr int CHUNKS = T::ACC_REGS / 4 * WARPGROUP_THREADS / REDUCE_LANES;  // per piece
    const int groups = static_cast<int>(blockDim.x) / REDUCE_LANES;
    const int lane_in_chunk = static_cast<int>(threadIdx.x) % REDUCE_LANES;
    const int group = static_cast<int>(threadIdx.x) / REDUCE_LANES;
    const int chunk = static_cast<int>(blockIdx.x) % CHUNKS;
    const int piece = static_cast<int>(blockIdx.x) / CHUNKS;
    const int consumer = piece % T::CONSUMER_WARPGROUPS;
    const int cta_tile = piece / T::CONSUMER_WARPGROUPS;
    const int cta_tiles = tiles * CLUSTER;
    const int position = chunk * REDUCE_LANES + lane_in_chunk;  // float4 q * 128 + t of the slot
    // The GEMM grid's partials are complete and visible only after this wait (the GEMM
    // kernel let this grid start early). PTX ISA: griddepcontrol.
    asm volatile("griddepcontrol.wait;" ::: "memory");

    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
    for (int split = group; split < splits; split += groups) {
        const float4 v = __ldcg(&slice_slot<T>(const_cast<float*>(partials), split, cta_tiles, cta_tile,
                                               consumer)[position]);
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    if (group > 0) group_sums[(group - 1) * REDUCE_LANES + lane_in_chunk] = sum;
    __syncthreads();
    if (group > 0) return;
    for (int g = 1; g < groups; ++g) {
        const float4 v = group_sums[(g - 1) * REDUCE_LANES + lane_in_chunk];
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    // float4 q of thread t holds wgmma's D elements (r, c), (r, c + 1), (r + 8, c), (r + 8, c + 1).
    const int q = position / WARPGROUP_THREADS, t = position % WARPGROUP_THREADS;
    const int2 origin = cta_origin<CLUSTER, T>(cta_tile / CLUSTER, M, N, static_cast<uint32_t>(cta_tile % CLUSTER));
    const int row = origin.x + consumer * WGMMA_M + layout::wgmma_acc_row(t / 32, t % 32, 4 * q);
    const int col = origin.y + layout::wgmma_acc_col(t % 32, 4 * q);
    const float values[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const int r = row + 8 * (e / 2), c = col + e % 2;
        if (r >= M || c >= N) continue;
        const size_t at = c_store == kStoreTransposed ? static_cast<size_t>(c) * M + r
                                                      : static_cast<size_t>(r) * N + c;
        C[at] = __float2bfloat16(values[e]);
    }
}

// Launches reduce_splits after the GEMM grid on `stream`, as a programmatic dependent launch
// (CUDA guide, "Programmatic Dependent Launch and Synchronization"): its CTAs may start
// while the GEMM's last CTAs finish, and wait for them in griddepcontrol.wait.
template <int CLUSTER, class T>
cudaError_t launch_reduce(const char* step, const float* partials, __nv_bfloat16* C, int M, int N,
                          int c_store, const Schedule& sched, cudaStream_t stream) {
    // Up to 32 groups, each adding at least 2 slices.
    const int groups = std::min(32, (sched.splits + 1) / 2);
    constexpr int CHUNKS = T::ACC_REGS / 4 * WARPGROUP_THREADS / REDUCE_LANES;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(sched.tiles * CLUSTER * T::CONSUMER_WARPGROUPS * CHUNKS));
    config.blockDim = dim3(static_cast<unsigned>(groups * REDUCE_LANES));
    config.dynamicSmemBytes = static_cast<size_t>(groups - 1) * REDUCE_LANES * sizeof(float4);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    if (cudaError_t err = cudaLaunchKernelEx(&config, reduce_splits<CLUSTER, T>, partials, C, M, N,
                                             c_store, sched.tiles, sched.splits);
        err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (split-K reduce): %s", step, cudaGetErrorString(err));
    return check_launch(step);
}

// VARIANT END
// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
// VARIANT BEGIN: launch_tile: one tile and cluster size (C^T computed when the caller swapped A and B), both kernels
constexpr const char* kStep = "07_clusters_multicast";

// One tile and cluster size. With `transposed` the caller has swapped A with B and M
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
// VARIANT END

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

    // VARIANT BEGIN: the grid, edge boxes, the schedule, a plain or a cluster launch; the tile per problem and C^T; the variants, the forced tiles, describe
    // Persistent grid: as many CTAs (or clusters) as can be resident at once (schedule.cuh).
    // Never more than there are tiles.
    Resident resident{};
    if (cudaError_t err =
            resident_grid<gemm_kernel<1, T>, gemm_kernel<CLUSTER, T>>(kStep, config, &resident);
        err != cudaSuccess)
        return err;

    // Clusters when there are many waves of tiles (tile_choice::launches_clusters, README.md
    // section 4): a cluster launch places the CTAs of a cluster together in one GPC, and a
    // grid smaller than the GPU then runs slower than with a plain launch. Other problems,
    // and cluster size 1, run gemm_kernel<1, T> with a plain <<<>>> launch.
    const bool clustered =
        tile_choice::launches_clusters(cta_tiles, resident.ctas, plain_grid.x, K, CLUSTER);

    // The tensor maps (tiles.cuh: make_operand_maps). A box: the CTA's BM rows. B box: this
    // CTA's slice, BN/CLUSTER of the BN rows, or all BN without clusters. Each with the edge
    // map of its last box, which holds only the rows left.
    OperandMaps a, b;
    if (cudaError_t err = make_operand_maps(&a, A, M, K, BM, layout::edge_box_rows(M, BM), kStep);
        err != cudaSuccess)
        return err;
    const int b_box_rows = clustered ? ladder::B_SLICE_ROWS<CLUSTER, T> : BN;
    if (cudaError_t err = make_operand_maps(&b, B, N, K, b_box_rows,
                                            layout::edge_box_rows(N % BN, b_box_rows), kStep);
        err != cudaSuccess)
        return err;
    // C box: 64x64, stored from 128B-swizzled shared memory. The C map's row pitch N*2 bytes
    // must be a multiple of 16: N % 8 == 0. Otherwise, and for C^T, the kernel stores
    // directly (and never touches c_map, left zeroed).
    CUtensorMap c_map{};
    const int c_store = transposed ? kStoreTransposed : N % 8 == 0 ? kStoreTma : kStoreDirect;
    if (c_store == kStoreTma) {
        if (cudaError_t err = make_tensor_map_2d(&c_map, C, M, N, C_BOX, C_BOX,
                                                 CU_TENSOR_MAP_SWIZZLE_128B, kStep);
            err != cudaSuccess)
            return err;
    }

    // Without clusters every CTA is a cluster of one (%clusterid = %ctaid), and the
    // schedule counts CTA tiles.
    const bool one_tile_row = plain_grid.x == 1;  // stream_k::kOneTileRowHolders
    const int units = clustered ? cluster_tiles : static_cast<int>(cta_tiles);
    const int slots = clustered ? resident.clusters : resident.ctas;
    const int unit = clustered ? CLUSTER : 1;  // CTA tiles per schedule unit, down M
    static_assert(GROUP_M_TILES == tile_choice::kGroupMTiles, "the planner's grouped order is the kernel's");
    const bool exceeds_l2 = stream_k::last_wave_exceeds_l2(
        units, slots, clustered ? grid.x : plain_grid.x, grid.y, layout::group_rows_for(GROUP_M_TILES, unit),
        static_cast<long long>(BM) * unit, BN, K);
    double dram = 0;
    if (cudaError_t err = dram_gbps(kStep, &dram); err != cudaSuccess) return err;
    const int k_blocks = layout::ceil_div(K, BK);
    const int splits = share_last_wave ? stream_k::split_count(units, slots, k_blocks) : 1;
    const Schedule sched =
        make_schedule(units, k_blocks, slots, share_last_wave, one_tile_row, exceeds_l2,
                      stream_k::narrow_wave(cta_tiles, resident.ctas, k_blocks, BM),
                      stream_k::feed_bound_wave(plain_grid.x, plain_grid.y, dram), splits);
    // Where the CTAs that share a tile leave their partials, and the flags (schedule.cuh).
    float* partials = nullptr;
    int* flags = nullptr;
    if (cudaError_t err = stream_k_workspace<T>(kStep, stream, sched, clustered ? CLUSTER : 1,
                                                resident.ctas, MAX_CONSUMERS, &partials, &flags);
        err != cudaSuccess)
        return err;

    if (!clustered) {
        gemm_kernel<1, T><<<static_cast<unsigned>(sched.clusters), THREADS, SMEM_BYTES, stream>>>(
            a.whole, b.whole, c_map, C, M, N, K, c_store, sched, partials, flags, a.edge,
            a.edge_bytes, b.edge, b.edge_bytes);
        if (cudaError_t err = check_launch(kStep); err != cudaSuccess || sched.splits == 1) return err;
        return launch_reduce<1, T>(kStep, partials, C, M, N, c_store, sched, stream);
    }
    config.gridDim = dim3(static_cast<unsigned>(sched.clusters * CLUSTER));
    if (cudaError_t err = cudaLaunchKernelEx(&config, gemm_kernel<CLUSTER, T>, a.whole, b.whole, c_map,
                                             C, M, N, K, c_store, sched, partials, flags, a.edge,
                                             a.edge_bytes, b.edge, b.edge_bytes);
        err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (cluster size %d): %s", kStep, CLUSTER,
                    cudaGetErrorString(err));
    if (cudaError_t err = check_launch(kStep); err != cudaSuccess || sched.splits == 1) return err;
    return launch_reduce<CLUSTER, T>(kStep, partials, C, M, N, c_store, sched, stream);
}

// The planner's choice for this problem on this GPU (tile_choice.h): the tile,
// and whether to compute C^T = B A^T (A and B, both K-major, swap roles: a problem of few
// columns and many rows gets them as the rows of the tiles, one of 129 to 192 rows as the
// columns of a 144-, 160- or 192-column tile, and a short side that 128-row tiles pad less
// than wide columns do as their rows). `forced`, where given, runs that tile instead
// of the planner's (the variants that measure the choice). The 128x144 tile runs clusters
// of at most 2, and 128x168 none (slice_cluster in tile_choice.h).
template <int CLUSTER>
cudaError_t launch(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                   int K, cudaStream_t stream, tile_choice::Shape forced, bool share_last_wave) {
    if (cudaError_t err = check_gemm_args(kStep, A, B, C, M, N, K, NeedsArch::Sm90a);
        err != cudaSuccess)
        return err;
    int sms = 0;
    if (cudaError_t err = sm_count(kStep, &sms); err != cudaSuccess) return err;
    const tile_choice::Estimate plan = tile_choice::choose(M, N, K, sms, CLUSTER, share_last_wave);
    if (plan.transposed) {
        std::swap(A, B);
        std::swap(M, N);
    }
    return with_tile<Tile>(forced.rows ? forced : plan.shape, [&](auto tile) {
        using T = typename decltype(tile)::type;
        return launch_tile<slice_cluster<T>(CLUSTER), T>(A, B, C, M, N, K, stream, share_last_wave,
                                                         plan.transposed);
    });
}

cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    return launch<2>(A, B, C, M, N, K, stream, {0, 0}, true);  // {0, 0}: the planner's tile
}

// The other cluster sizes (the variants cluster1 and cluster4), with the rule's tile.
template <int CLUSTER>
cudaError_t gemm_cluster(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M,
                         int N, int K, cudaStream_t stream) {
    return launch<CLUSTER>(A, B, C, M, N, K, stream, {0, 0}, true);
}

// One tile of the family forced, whatever the rule would choose (step-7 --tile RxC): to
// measure the alternatives the rule decides between.
template <int ROWS, int COLUMNS>
cudaError_t gemm_tile(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M,
                      int N, int K, cudaStream_t stream) {
    static_assert(tile_choice::in_family({ROWS, COLUMNS}), "a tile of tile_choice.h's family");
    return launch<2>(A, B, C, M, N, K, stream, {ROWS, COLUMNS}, true);
}

// The most workspace any call needs on this device (ladder_workspace_size): the stream-K
// flags and a partial tile of the tallest, widest tile for every CTA the GPU holds at once
// (one per SM), which bounds both stream-K's grid and split-K's slices (one wave at most).
cudaError_t workspace_bytes(size_t* bytes) {
    int sms = 0;
    if (cudaError_t err = sm_count(kStep, &sms); err != cudaSuccess) return err;
    const size_t flag_bytes = (static_cast<size_t>(sms) * MAX_CONSUMERS * sizeof(int) + 255) / 256 * 256;
    *bytes = flag_bytes + static_cast<size_t>(sms) * MAX_CONSUMERS * WGMMA_M * WGMMA_N * sizeof(float);
    return cudaSuccess;
}

// One line for the step executable: the tile the planner chose for M x N x K and why.
std::string describe(int M, int N, int K) {
    int sms = 0;
    double dram = 0;
    if (sm_count(kStep, &sms) != cudaSuccess || dram_gbps(kStep, &dram) != cudaSuccess) return "tile: no device";
    return tile_choice::explain(M, N, K, sms, 2, true, dram);
}
// VARIANT END

TileConfig tile_config() {
    return {BM, BN, BK, STAGES, CONSUMER_WARPGROUPS, CLUSTER, THREADS};
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// VARIANT BEGIN: registers the default variants of step 07 and its tiles
// Registers the step's default variants (common/library/registry.h): describe, the timeline
// hook, then the variants, the default first; and the tiles `step-7 --tile` may force.
LADDER_REGISTER_DEFAULT_VARIANT(describe, set_timeline, {"cluster2", gemm},
                                {"cluster1", gemm_cluster<1>}, {"cluster4", gemm_cluster<4>});
LADDER_REGISTER_TILES(set_timeline, {"tile64x64", gemm_tile<64, 64>}, {"tile64x96", gemm_tile<64, 96>},
                      {"tile64x128", gemm_tile<64, 128>}, {"tile64x160", gemm_tile<64, 160>},
                      {"tile64x192", gemm_tile<64, 192>}, {"tile64x256", gemm_tile<64, 256>},
                      {"tile128x64", gemm_tile<128, 64>}, {"tile128x128", gemm_tile<128, 128>},
                      {"tile128x144", gemm_tile<128, 144>}, {"tile128x168", gemm_tile<128, 168>},
                      {"tile128x192", gemm_tile<128, 192>},
                      {"tile128x224", gemm_tile<128, 224>}, {"tile128x256", gemm_tile<128, 256>});
LADDER_REGISTER_WORKSPACE(workspace_bytes);

}  // namespace ladder::step07_every_shape
// VARIANT END
