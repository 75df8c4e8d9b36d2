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
// others' partial sums (schedule.cuh beside this file; README.md section 5). The
// dataparallel variant never shares. And a tile per problem (README.md section 6): the
// family and what lets one kernel serve every shape (edge boxes, C^T) are in tiles.cuh.
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
// VARIANT BEGIN: this file is step 07 spelled with cooperative groups
// Variant "cg" (step-7 --variant cg, ladder_gemm_variant(7, "cg", ...)): the cluster-2
// kernel with the cluster spelled through cooperative groups, as the CUDA programming
// guide ("Distributed Shared Memory") spells it, instead of PTX special registers, mapa
// and barrier.cluster:
//   %cluster_ctarank                       -> cooperative_groups::this_cluster().block_rank()
//   mapa.shared::cluster (inline PTX)      -> cluster.map_shared_rank(empty_barrier, r)
//   barrier.cluster.arrive + wait          -> cluster.sync()
// The remote arrival itself has no cooperative-groups spelling; it is CCCL's
// cuda::ptx::mbarrier_arrive on the mapped pointer, which exists only as
// .release.cluster (cluster.cuh's DSMEM rule 3 says why gemm.cu avoids that form; this file
// shows what it costs). Everything outside the VARIANT regions is gemm.cu line for line
// (common/scripts/exercises.py checks it and `exercises.py sync` carries gemm.cu's changes over),
// so `diff gemm.cu gemm_cg.cu` is exactly the spelling that changed.
#include <cooperative_groups.h>
// VARIANT END
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cluster.cuh"  // written out beside this file: the cluster and TMA multicast
#include "layout.h"  // swizzled_offset, wgmma_acc_row/col
#include "schedule.cuh"  // written out beside this file: the persistent grid's work, stream-K
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "tile_choice.h"  // choose: the tile and C^T per problem
#include "tiles.cuh"  // written out beside this file: the tile per problem
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
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
constexpr int WGMMA_K = 16;
// (WGMMA_M = 64, WARPGROUP_THREADS = 128 and BK = 64, which every tile of this step shares,
// are defined in tiles.cuh beside this file.)

// Registers decide the tile. The 64 x N fp32 accumulator is spread over the warpgroup's
// 128 threads: 64 * N / 128 = N / 2 registers each, 128 for the widest N = 256. A thread
// may hold at most 255 registers and an SM has 65536. With ~40 more per thread for
// addresses, loop state and the epilogue (ptxas -v reports the real count):
//   2 warpgroups: 256 threads * 168 = 43008 registers   fits, one CTA per SM
//   3 warpgroups: 384 threads * 168 = 64512 registers   only just, and BM = 192
//   4 warpgroups: 512 threads * 168 = 86016 registers   does not fit
// So 2 warpgroups, each owning 64 rows: BM = 128, BN = 256. The widest wgmma also
// means each warpgroup reads its 64 rows of A once per k-step for all 256 columns.
// As in step 06 a third warpgroup, the producer, holds no accumulators: the CTA is the 384
// threads of the "only just" line, and __launch_bounds__(384, 1) starts every thread at
// 65536/384 = 170 -> 168 registers (allocation granularity 8). setmaxnreg then re-balances:
// producer 40, consumers 232, 128 * 40 + 256 * 232 = 5120 + 59392 = 64512 <= 65536. 40 is
// more than the producer's loop needs (a stage index, a phase, two tensor-map pointers,
// coordinates); 232 leaves the consumer ~100 registers above its accumulators so the
// compiler never spills them (ptxas -v reports 0 bytes spill for this kernel).
constexpr int K_STEPS = BK / WGMMA_K;                                // 4 wgmmas per k-block

// Shared memory decides the stages. One stage holds a k-block of both operands, one TMA
// box each: A 128 x 64 x 2 B = 16 KB, B 256 x 64 x 2 B = 32 KB, 48 KB per stage. A CTA may
// opt in to 227 KB (232448 bytes) on an H100; 1 KB of that goes to aligning the base to
// 1024 bytes and 1 KB to the barriers (the struct pads them to its 1024-byte alignment):
//   (232448 - 2048 - 2 * 16384) / 49152 = 4.02  ->  STAGES = 4, beside the two 16 KB C
//   buffers of the TMA-store epilogue (one per consumer). Clusters change none of this: a
//   stage still holds the whole B box; only who loads which slice of it changes.
// New is a tile per problem, Tile<CONSUMERS, COLUMNS>: one or two consumers (64 or 128
// rows) by 64 to 256 columns, 128x256 for large problems, each with as many stages as fit.
// tiles.cuh beside this file derives them all (read it next); the planner picks one per
// problem (common/kernel/tile_choice.h, README.md section 6). The kernel takes its tile as T.
template <int CONSUMERS, int COLUMNS>
struct Tile : TileShape<CONSUMERS, COLUMNS> {};
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
// Grouped rasterization: tiles are walked GROUP_M_TILES rows of tiles at a time, down each
// column of the group before moving right. See tile_origin.
constexpr int GROUP_M_TILES = 16;

static_assert(ROW_BYTES == 128,
              "a k-block row must be exactly one 128-byte swizzle span");
static_assert(BK % WGMMA_K == 0, "a k-block is whole wgmma k-steps");

// -------------------------------------------------------------------------------------
// Device helpers carried over from steps 03 to 06
// -------------------------------------------------------------------------------------
// (wait_barrier, tma_load_2d and arrive_expect_tx come from tma.cuh; smem_descriptor,
// wgmma_fence, wgmma_commit_group, wgmma_wait_group, fence_accumulators and
// wgmma_m64n256k16 from wgmma.cuh; setmaxnreg_dec/inc, named_barrier_sync, store_pair and
// advance from warp_specialization.cuh.)

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------
// Written out beside this file: the cluster's helpers in cluster.cuh (read it next: the
// DSMEM rules, cluster_sync, release_stage to every CTA of the cluster,
// tma_load_2d_multicast, read_cluster_id), the persistent grid's schedule and stream-K's
// partial tiles in schedule.cuh (Schedule, WorkCursor, fix_up), and the tile per problem
// in tiles.cuh (with the TMA store's tma_store_2d and store_shared_bf16x2).

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
// vertically adjacent CTA tiles (CLUSTER*BM rows x BN columns). The host sizes the
// schedule with it and the kernel places tiles with it, so the two always agree.
template <int CLUSTER, class T>
__host__ __device__ inline int2 cluster_tile_grid(int M, int N) {
    const int tiles_m = layout::ceil_div(M, T::BM);
    const int tiles_n = layout::ceil_div(N, T::BN);
    return make_int2((tiles_m + CLUSTER - 1) / CLUSTER, tiles_n);
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

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// Warpgroup 0 produces, warpgroups 1 and 2 consume. The ring protocol, per stage:
//   full_barrier  count 1: the producer's arrive.expect_tx, plus the TMA transaction
//                 bytes of the boxes that signal it: this CTA's A box and EVERY CTA's B
//                 slice (a multicast copy signals the barrier at the same offset in each
//                 CTA it writes). Bytes may land before the expect_tx; the transaction
//                 count goes negative meanwhile, and the phase cannot complete without the
//                 producer's arrival. It completes once per fill, so consumers
//                 wait on it with the parity of the current lap.
//   empty_barrier count EMPTY_ARRIVALS: one per consumer warpgroup that reads the stage,
//                 in every CTA of the cluster: until then no producer may write its slice.
//                 The producer waits on it with the OPPOSITE parity: on its first lap the
//                 "previous phase" (parity 1) of a fresh barrier counts as complete, so
//                 the first STAGES fills go out without waiting.
// Stage and phase run on across tiles: fill f is the f-th k-block this CTA loads, over
// all its tiles, and producer and consumers walk the same tile sequence.
// a_edge_map, b_edge_map and their bytes: the edge boxes of tiles.cuh (see launch_tile).
template <int CLUSTER, class T>
__global__ void __launch_bounds__(T::THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            const __grid_constant__ CUtensorMap c_map, __nv_bfloat16* __restrict__ C, int M,
            int N, int K, int c_store, const Schedule sched, float* __restrict__ partials,
            int* __restrict__ flags, const __grid_constant__ CUtensorMap a_edge_map,
            uint32_t a_edge_bytes, const __grid_constant__ CUtensorMap b_edge_map,
            uint32_t b_edge_bytes) {
    // ---- setup: which warpgroup, which CTA of the cluster, shared storage, barriers ----
    constexpr int STAGES = T::STAGES, CONSUMER_WARPGROUPS = T::CONSUMER_WARPGROUPS;
    constexpr int BN = T::BN, ACC_REGS = T::ACC_REGS;
    constexpr uint32_t A_TILE_BYTES = T::A_TILE_BYTES, B_TILE_BYTES = T::B_TILE_BYTES;
    constexpr int B_SLICE = B_SLICE_ROWS<CLUSTER, T>;
    static_assert(B_SLICE % 8 == 0, "whole swizzle atoms per slice (slice_cluster)");
    // Every CTA of the cluster writes a slice of B into every stage.
    constexpr uint32_t EMPTY_ARRIVALS = CONSUMER_WARPGROUPS * CLUSTER;
    using SharedStorage = typename T::SharedStorage;
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t smem_base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023};
    SharedStorage& s = *reinterpret_cast<SharedStorage*>(smem_base);

    const int warpgroup = threadIdx.x / WARPGROUP_THREADS;
    const int thread_in_wg = threadIdx.x % WARPGROUP_THREADS;
    // VARIANT BEGIN: the rank through cooperative groups
    // The rank in the cluster through cooperative groups; the cluster's index
    // stays the PTX special register %clusterid.x (CCCL get_sreg_clusterid_x).
    const uint32_t rank = cooperative_groups::this_cluster().block_rank();
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

    if (warpgroup == 0) {
        // ---- producer: one thread keeps the ring full ---------------------------------
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

        // ---- main loop: wgmma on full stages, hand each back as soon as it is read ------
        // Both consumers read every fill, from fill 0 on (the timeline numbers k-blocks by
        // fill); this consumer's 64 rows are the top or bottom half of each stage's A box.
        int stage = 0;
        uint32_t phase = 0;
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

    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim = {CLUSTER, 1, 1};
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
            resident_grid<gemm_kernel<1, T>, gemm_kernel<CLUSTER, T>>(kStep, config, &resident);
        err != cudaSuccess)
        return err;

    // Clusters when there are more tiles than SMs (tile_choice::launches_clusters, README.md
    // section 4): a cluster launch places the CTAs of a cluster together in one GPC, and a
    // grid smaller than the GPU then runs slower than with a plain launch. Other problems,
    // and cluster size 1, run gemm_kernel<1, T> with a plain <<<>>> launch.
    const bool clustered =
        CLUSTER > 1 && tile_choice::launches_clusters(cta_tiles, resident.ctas, plain_grid.x, K);

    // The tensor maps (tiles.cuh: make_operand_maps). A box: the CTA's BM rows. B box: this
    // CTA's slice, BN/CLUSTER of the BN rows, or all BN without clusters. Each with the edge
    // map of its last box, which holds only the rows left.
    OperandMaps a, b;
    if (cudaError_t err = make_operand_maps(&a, A, M, K, BM, layout::edge_box_rows(M, BM), kStep);
        err != cudaSuccess)
        return err;
    const int b_box_rows = clustered ? B_SLICE_ROWS<CLUSTER, T> : BN;
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
    const Schedule sched = make_schedule(clustered ? cluster_tiles : static_cast<int>(cta_tiles),
                                         layout::ceil_div(K, BK),
                                         clustered ? resident.clusters : resident.ctas,
                                         share_last_wave, one_tile_row);
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
        return check_launch(kStep);
    }
    config.gridDim = dim3(static_cast<unsigned>(sched.clusters * CLUSTER));
    if (cudaError_t err = cudaLaunchKernelEx(&config, gemm_kernel<CLUSTER, T>, a.whole, b.whole, c_map,
                                             C, M, N, K, c_store, sched, partials, flags, a.edge,
                                             a.edge_bytes, b.edge, b.edge_bytes);
        err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (cluster size %d): %s", kStep, CLUSTER,
                    cudaGetErrorString(err));
    return check_launch(kStep);
}

// The planner's choice for this problem on this GPU (common/kernel/tile_choice.h): the tile,
// and whether to compute C^T = B A^T (A and B, both K-major, swap roles: a problem of few
// columns and many rows gets them as the rows of the tiles, one of 129 to 192 rows as the
// columns of a 144-, 160- or 192-column tile). `forced`, where given, runs that tile instead
// of the planner's (the variants that measure the choice). The 128x144 tile runs clusters
// of at most 2 (slice_cluster in tiles.cuh).
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
    if (sm_count(kStep, &sms) != cudaSuccess) return "tile: no device";
    return tile_choice::explain(M, N, K, sms, 2);
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
// VARIANT BEGIN: registers itself as variant "cg" of step 07, after gemm.cu's (registry.h)
LADDER_REGISTER_VARIANT(set_timeline, {"cg", gemm});
// VARIANT END

// VARIANT BEGIN: its own namespace
}  // namespace ladder::step07_cg
// VARIANT END
