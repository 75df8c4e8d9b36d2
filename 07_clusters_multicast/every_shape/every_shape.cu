// =====================================================================================
// Step 07, the every-shape kernel: the lesson of gemm.cu, fast on every shape of problem
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// Step 07's default variant ("cluster2": what step-7, ladder_gemm(7, ...) and ladder.gemm
// run). Its main loop is the lesson's (../gemm.cu: a cluster of CTAs along M sharing B by
// multicast, a persistent grid in grouped order, a TMA-store epilogue); read that first, for
// the ring, the barriers, the cluster and the registers. What this module adds, and why
// (README.md in the step's folder, "The every-shape kernel"; NOTES.md has the measurements):
//   * A tile per problem: Tile<CONSUMERS, COLUMNS> (tiles.cuh), one to three consumers (64,
//     128 or 192 rows) by 64 to 256 columns, each with as many stages as fit; the family is the
//     table of tile_family.h, and tile_choice.h picks one per problem by the rule the
//     planner shares. `step-7 --tile RxC` forces one.
//   * C^T: a problem of few columns and many rows computes C^T = B A^T instead, so that its
//     long side runs along the tiles' rows, and stores it transposed.
//   * Edge boxes: the last row of tiles and the last B slice load through tensor maps whose
//     box holds only the rows left, and a box wholly outside the matrix is not issued.
//   * Stream-K: when the last wave of tiles would leave many SMs idle, its k-blocks are
//     shared out among the clusters in equal runs, and each tile's owner adds the others'
//     partial sums (schedule.cuh, by the cost rule of stream_k.h).
//   * Split-K for few tiles with a long K: every tile in equal slices of K, each slice's fp32
//     sums in a slot of its own, and a second kernel (reduce_splits) that adds them in a
//     fixed order and stores C, launched as a programmatic dependent launch.
//   * When to launch clusters: with six waves of tiles or fewer a cluster launch is slower
//     than a plain one (tile_choice.h: launches_clusters); the cluster size is a template
//     parameter (variants cluster1 and cluster4).
//   * Ping-pong: with 128x128 tiles, and enough of them, the two consumers take turns, each
//     on a whole tile of its own, so that one's epilogue runs under the other's main loop
//     (step 06's gemm_pingpong.cu has the idea; tile_choice.h: pingpong). A short K over
//     many tiles runs 128x128 in ping-pong rather than a wider tile.
// The kernel takes its arguments in one Params struct (below).
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-7 && ./build/step-7
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cluster.cuh"  // step 07's: the cluster and TMA multicast (read_cluster_id)
#include "layout.h"  // swizzled_offset, wgmma_acc_row/col, tile_place
#include "registry.h"  // the registration statements at the end of the file
#include "schedule.cuh"  // beside this file: the persistent grid's work, stream-K, split-K
#include "step_api.h"
#include "tensor_map.h"
#include "tile_choice.h"  // beside this file: the tile and C^T per problem
#include "tile_family.h"  // beside this file: the family's table
#include "tiles.cuh"  // beside this file: Tile<CONSUMERS, COLUMNS>, edge boxes, direct stores
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
#include "tma_store.cuh"  // step 07's: the TMA store
#include "warp_specialization.cuh"  // setmaxnreg, named barriers, store_pair: taught in step 06
#include "wgmma.cuh"  // fence_accumulators, wgmma_fence/commit/wait: taught in step 05

// Registered as step 07's default variant at the end of the file.
namespace ladder::step07_every_shape {

// What the kernel takes besides the tile (tiles.cuh: BK, WGMMA_M, WARPGROUP_THREADS, C_BOX,
// MAX_CONSUMERS and each Tile's own constants).
constexpr int WGMMA_K = 16;                                          // k per wgmma for bf16
constexpr int K_STEPS = BK / WGMMA_K;                                // 4 wgmmas per k-block
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
// Grouped rasterization: tiles are walked GROUP_M_TILES rows of tiles at a time, down each
// column of the group before moving right (gemm.cu's order; the planner's kGroupMTiles).
constexpr int GROUP_M_TILES = 16;
static_assert(GROUP_M_TILES == tile_choice::kGroupMTiles, "the planner's grouped order is the kernel's");
static_assert(ROW_BYTES == 128, "a k-block row must be exactly one 128-byte swizzle span");
static_assert(BK % WGMMA_K == 0, "a k-block is whole wgmma k-steps");
// The TMA-store epilogue's named barriers: each consumer warpgroup has its own (ids 1 to
// 3, 128 threads) to order its shared-memory writes against the TMA store that reads them,
// without stopping the other warpgroups.
constexpr int EPILOGUE_BARRIER_ID = 1;  // + consumer index
// Ping-pong's order barriers (ids 4 and 5, both consumers' 256 threads): consumer c waits at
// ORDER_BARRIER_ID + c for its turn at the tensor cores, and the other consumer arrives there
// when its main loop is issued.
constexpr int ORDER_BARRIER_ID = EPILOGUE_BARRIER_ID + MAX_CONSUMERS;

// The kernel's arguments. The tensor maps must live in parameter (or constant or global)
// memory for TMA to read them: the struct is passed as one `const __grid_constant__`
// parameter, and the kernel takes the maps' addresses inside it.
//   a, b: the operands' tensor maps (tiles.cuh: make_operand_maps). `whole`: A's boxes of the
//     tile's rows, B's boxes (a slice of BN/CLUSTER rows with a cluster launch, all BN
//     without); `edge`: the map of the last, partial box, with the bytes one delivers.
//   c_map: C's 64x64 store boxes where c_store is kStoreTma (left zeroed otherwise).
//   sched: the persistent grid's work (schedule.cuh); partials and flags: stream-K's and
//     split-K's workspace (nullptr where the schedule shares nothing).
struct Params {
    OperandMaps a, b;
    CUtensorMap c_map;
    __nv_bfloat16* C;
    int M, N, K;
    int c_store;  // CStore (tiles.cuh)
    Schedule sched;
    float* partials;
    int* flags;
};

// The cluster tiles of an M x N problem, as (rows, columns): a cluster tile is CLUSTER
// vertically adjacent CTA tiles. The host sizes the grid with it and the kernel walks the
// tiles with it, so the two always agree.
template <int CLUSTER, class T>
__host__ __device__ inline int2 cluster_tile_grid(int M, int N) {
    const int tiles_m = layout::ceil_div(M, T::BM);
    const int tiles_n = layout::ceil_div(N, T::BN);
    return make_int2((tiles_m + CLUSTER - 1) / CLUSTER, tiles_n);
}

// The persistent tile order is the lesson's (gemm.cu, tile_origin: cluster c takes cluster
// tiles c, c + clusters, ..., in bands of GROUP_M_TILES rows of tiles walked column by
// column, so that the tiles in flight share A and B in L2), for any tile and cluster size.
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

// PTX ISA "bar.arrive" (barrier.cta): counts this thread on a named barrier and moves on
// (SASS: BAR.ARV); the threads that bar.sync on it wait for the count. Ping-pong's order
// barriers (step 06's gemm_pingpong.cu has the same).
__device__ __forceinline__ void named_barrier_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// Warpgroup 0 produces, warpgroups 1 to CONSUMERS consume. The ring protocol, per stage:
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
// A kernel per tile T, cluster size and schedule; every argument is in p (Params above).
//   PINGPONG false (cooperative): every consumer works on every tile, on 64 rows each, and
//     reads every stage.
//   PINGPONG true: the consumers take turns. Consumer c computes all BM rows of every other
//     tile of the CTA's sequence (units c, c + 2, ...), so each stage has one reader, and
//     one consumer's epilogue runs while the other's main loop has the tensor cores. The
//     order barriers keep the main loops in turn: were they to run together, both tiles
//     would end together and both epilogues would leave the tensor cores idle again.
template <int CLUSTER, class T, bool PINGPONG>
__global__ void __launch_bounds__(T::THREADS, 1) gemm_kernel(const __grid_constant__ Params p) {
    // ---- setup: which tile of C, which warpgroup, shared storage and its barriers -----
    constexpr int STAGES = T::STAGES, CONSUMER_WARPGROUPS = T::CONSUMER_WARPGROUPS;
    constexpr int BN = T::BN, ACC_REGS = T::ACC_REGS;
    constexpr uint32_t A_TILE_BYTES = T::A_TILE_BYTES, B_TILE_BYTES = T::B_TILE_BYTES;
    constexpr int B_SLICE = ladder::B_SLICE_ROWS<CLUSTER, T>;
    static_assert(B_SLICE % 8 == 0, "whole swizzle atoms per slice (slice_cluster)");
    static_assert(!PINGPONG || T::PINGPONG_CAPABLE, "ping-pong holds BM x BN accumulators per consumer");
    // Every CTA of the cluster writes a slice of B into every stage, and every consumer that
    // reads the stage (one with ping-pong) hands it back to all of them.
    constexpr uint32_t EMPTY_ARRIVALS = (PINGPONG ? 1 : CONSUMER_WARPGROUPS) * CLUSTER;
    // 64-row blocks of C a consumer accumulates per tile: its own, or all of them in turn.
    constexpr int BLOCKS = PINGPONG ? CONSUMER_WARPGROUPS : 1;
    using SharedStorage = typename T::SharedStorage;

    extern __shared__ uint8_t smem_raw[];
    const uintptr_t smem_base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023};
    SharedStorage& s = *reinterpret_cast<SharedStorage*>(smem_base);

    const int warpgroup = threadIdx.x / WARPGROUP_THREADS;
    const int thread_in_wg = threadIdx.x % WARPGROUP_THREADS;
    // PTX special register %cluster_ctarank (CCCL get_sreg_*); %clusterid.x is read later.
    const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();

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
    // The reduce kernel of split-K is launched next as a programmatic dependent launch: once
    // every CTA of this grid has said so, its CTAs may be placed on the SMs this grid leaves
    // free; each waits there (griddepcontrol.wait) until this grid has finished and its
    // writes are visible. PTX ISA: "Parallel Synchronization and Communication
    // Instructions: griddepcontrol".
    if (p.sched.splits > 1) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");

    if (warpgroup == 0) {
        // ---- producer: one thread keeps the ring full ---------------------------------
        if constexpr (T::MOVES_REGISTERS) setmaxnreg_dec<T::PRODUCER_REGISTERS>();
        if (thread_in_wg == 0) {
            const int cluster_id = read_cluster_id();
            int stage = 0;
            uint32_t phase = 0;
            int fill = 0;  // k-blocks loaded so far, over all units (the timeline's numbering)
            WorkCursor work(p.sched, cluster_id);
            WorkUnit unit;
            while (work.next_unit(p.sched, unit)) {
                const int2 origin = cta_origin<CLUSTER, T>(unit.tile, p.M, p.N, rank);
                const int m0 = origin.x, n0 = origin.y;
                // The last row of tiles reads A through a map whose box holds only the rows
                // left (see launch_tile).
                const bool a_edge = m0 + T::BM > p.M;
                const CUtensorMap* a_source = a_edge ? &p.a.edge : &p.a.whole;
                const uint32_t a_bytes = a_edge ? p.a.edge_bytes : A_TILE_BYTES;
                // Boxes wholly outside the matrix are not issued (and their bytes not
                // expected): when M is not a multiple of CLUSTER*BM the last CTAs of a
                // cluster may have no rows, and when N - n0 < BN the last B slices no
                // columns. The stale shared memory their consumers then multiply only
                // reaches rows and columns of C that are never stored. All CTAs of a
                // cluster share n0, so they agree on b_slices.
                const bool a_in_bounds = m0 < p.M;
                const int b_slices = min(CLUSTER, (p.N - n0 + B_SLICE - 1) / B_SLICE);
                // The slice that holds C's last column may read a shorter box, like A's last
                // row of tiles (tiles.cuh).
                const int b_edge = b_edge_slice<CLUSTER, T>(p.N - n0);
                const uint32_t tx_bytes = stage_tx_bytes<CLUSTER, T>(a_in_bounds ? a_bytes : 0u,
                                                                     b_slices, b_edge, p.b.edge_bytes);
                const CUtensorMap* b_source = static_cast<int>(rank) == b_edge ? &p.b.edge : &p.b.whole;
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
        // Cooperative: every consumer reads every fill, from fill 0 on (the timeline numbers
        // k-blocks by fill); this consumer's 64 rows are its 64-row block of each stage's
        // A box. Ping-pong: a consumer reads the fills of its own tiles and steps
        // over the other's, and multiplies all of the A box, 64 rows per wgmma.
        int stage = 0;
        uint32_t phase = 0;
        float acc[BLOCKS][ACC_REGS];
        // The descriptors of stage 0 for this consumer's rows of A and for B. Stage s, k16
        // step k is the same descriptor with its start address field (bits 0-13, address / 16)
        // advanced by s*stage_bytes/16 + k*32/16: one add, instead of rebuilding the
        // descriptor for every wgmma. Shared addresses stay below 2^18, so the 14-bit field
        // cannot carry into the next one.
        uint32_t a_desc0 = smem_descriptor_lo(static_cast<uint32_t>(__cvta_generic_to_shared(s.a[0])) +
                                              (PINGPONG ? 0 : consumer) * WGMMA_M * ROW_BYTES);
        uint32_t b_desc0 = smem_descriptor_lo(static_cast<uint32_t>(__cvta_generic_to_shared(s.b[0])));
        uint64_t* full_barrier = s.full_barrier;
        uint64_t* empty_barrier = s.empty_barrier;
        // These are loop invariants, but left visible the compiler re-derives them from
        // the shared-memory window on every k-block (ncu's source view at 4096^3: about 30
        // of the loop's 85 instructions per k-block and warp). Opaque copies stay in
        // registers: the accumulators take at most 128 of a consumer's registers (232 with two
        // consumers; three are compiled within 128, of which 96 accumulators).
        asm volatile("" : "+r"(a_desc0), "+r"(b_desc0), "+l"(full_barrier), "+l"(empty_barrier));
        int fill = 0;  // k-blocks consumed so far, over all units (the timeline's numbering)
        WorkCursor work(p.sched, cluster_id);
        WorkUnit unit;
        [[maybe_unused]] int ordinal = 0;  // ping-pong: units of the CTA's sequence so far

        while (work.next_unit(p.sched, unit)) {
            if constexpr (PINGPONG) {
                if (ordinal++ % 2 != consumer) {  // the other consumer's tile: step over its fills
                    for (int kb = unit.kb_begin; kb < unit.kb_end; ++kb, ++fill) advance<STAGES>(stage, phase);
                    continue;
                }
                // This consumer's turn at the tensor cores comes when the other has issued
                // the main loop of the tile before (the CTA's first tile waits for nothing).
                if (ordinal > 1) named_barrier_sync(ORDER_BARRIER_ID + consumer, 2 * WARPGROUP_THREADS);
            }
            const int2 origin = cta_origin<CLUSTER, T>(unit.tile, p.M, p.N, rank);
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
#pragma unroll
                    for (int block = 0; block < BLOCKS; ++block) {
                        const uint32_t rows = block * (WGMMA_M * ROW_BYTES >> 4);  // 64 rows down A
                        wgmma_tile<BN>(acc[block], smem_descriptor_with_lo(a_desc + rows + k_step),
                                       smem_descriptor_with_lo(b_desc + k_step), accumulate);
                    }
                }
                wgmma_commit_group();
                // Keep this k-block's wgmma running and wait only for the previous one:
                // once it is done, its stage can be refilled, by every CTA of the cluster.
                wgmma_wait_group<1>();
#pragma unroll
                for (int block = 0; block < BLOCKS; ++block) fence_accumulators(acc[block]);
                LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > unit.kb_begin, consumer, MmaEnd,
                                         fill - 1);
                if (previous_stage >= 0)
                    release_stage<CLUSTER>(&empty_barrier[previous_stage], thread_in_wg);
                LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > unit.kb_begin, consumer, Release,
                                         fill - 1);
                previous_stage = stage;
                advance<STAGES>(stage, phase);
            }
            if constexpr (PINGPONG) {
                // Every wgmma of this tile is issued: the other consumer's turn, if the CTA
                // has a tile after this one (an arrival nobody waits for would be left over).
                WorkCursor ahead = work;
                WorkUnit next;
                if (ahead.next_unit(p.sched, next))
                    named_barrier_arrive(ORDER_BARRIER_ID + (1 - consumer), 2 * WARPGROUP_THREADS);
            }
            wgmma_wait_group<0>();
#pragma unroll
            for (int block = 0; block < BLOCKS; ++block) fence_accumulators(acc[block]);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, MmaEnd, fill - 1);
            release_stage<CLUSTER>(&empty_barrier[previous_stage], thread_in_wg);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, Release, fill - 1);
            // From here on the producer is already loading the next tile into the stages
            // just released: this epilogue overlaps those loads.

            // ---- epilogue: accumulators -> bf16 -> swizzled smem -> TMA store ----------
            // (wgmma's D layout as in step 06: layout::wgmma_acc_row/col.)
            if constexpr (!PINGPONG && T::SHARES) {
                const int row0 = m0 + consumer * WGMMA_M;  // first row of this consumer's piece
                if (row0 >= p.M) continue;  // the whole piece is below C (uniform per warpgroup)
                // Split-K (schedule.cuh): the slice's fp32 sums go to a slot of their own, and
                // reduce_splits adds the slices and stores C.
                if (p.sched.splits > 1) {
                    store_slice<T, WARPGROUP_THREADS>(
                        slice_slot<T>(p.partials, unit.split, p.sched.tiles * CLUSTER,
                                      unit.tile * CLUSTER + static_cast<int>(rank), consumer),
                        thread_in_wg, acc[0]);
                    continue;
                }
                // Stream-K (schedule.cuh): a unit that does not start its tile hands its partial
                // sums to the tile's owner and is done; the owner adds them before it stores.
                if (!fix_up<T, CLUSTER, WARPGROUP_THREADS>(p.sched, unit, p.partials, p.flags, cluster_id,
                                                           rank, consumer, EPILOGUE_BARRIER_ID + consumer,
                                                           thread_in_wg, acc[0]))
                    continue;
            }
            // Timeline: each tile's epilogue keeps its own slot, under the tile's first fill.
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueStart, first_fill);
            // Ping-pong stores the tile's 64-row blocks one after the other through the
            // consumer's one C buffer (never split-K or stream-K: launch_tile).
#pragma unroll
            for (int block = 0; block < BLOCKS; ++block) {
                const int row0 = m0 + (PINGPONG ? block : consumer) * WGMMA_M;  // the block's first row
                if (row0 >= p.M) break;  // this block and those below it lie below C
                const float(&piece)[ACC_REGS] = acc[block];
                if (p.c_store == kStoreTma) {
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
                            store_shared_bf16x2(c_smem + offset, piece[j], piece[j + 1]);
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
                                if (col0 < p.N)
                                    tma_store_2d(&p.c_map, col0, row0,
                                                 static_cast<const uint8_t*>(c_tile) + box * C_BOX * C_BOX * 2);
                            }
                            // PTX: cp.async.bulk.commit_group;
                            cuda::ptx::cp_async_bulk_commit_group();
                        }
                    }
                    // The columns past the last whole 64-column box, stored directly (tiles.cuh).
                    store_tile_direct<T::TMA_COLUMNS / 2>(p.C + static_cast<size_t>(row0) * p.N + n0, p.N,
                                                          p.M - row0, p.N - n0, warp, lane, piece);
                } else {
                    // No C tensor map (N % 8 != 0, or C^T computed): direct stores (tiles.cuh).
                    const int rows_left = p.M - row0;
                    const int cols_left = p.N - n0;
                    if (p.c_store == kStoreTransposed)
                        store_tile_transposed(p.C + static_cast<size_t>(n0) * p.M + row0, p.M, rows_left,
                                              cols_left, warp, lane, piece);
                    else
                        store_tile_direct<0>(p.C + static_cast<size_t>(row0) * p.N + n0, p.N, rows_left,
                                             cols_left, warp, lane, piece);
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


// Split-K's second kernel: adds the `splits` slices of every tile and stores C in bf16.
// A consumer's slice is ACC_REGS / 4 rounds of 128 float4 (slice_slot: float4 q * 128 + t
// was thread t's acc[4q..4q+3]). Block b takes REDUCE_LANES consecutive float4 of one
// consumer's piece of one CTA tile, in every slice: its `groups` x REDUCE_LANES threads each
// add every groups-th slice, in slice order, and the group sums are then added in group order
// through shared memory. The order is fixed, so the bits do not change from run to run. The
// blocks (pieces x ACC_REGS / 4 x 128 / REDUCE_LANES) spread the slices' reads over the SMs.
// Every thread loads its float4 of every slice before it asks where the float4 lies in C:
// the loads go out at once, and the check waits for the sums (asked first, it cost 0.4-1.2 us
// per call, NOTES.md "Launch rules"). A piece below C was never stored by the GEMM (its
// consumer skips it): its slots hold whatever the workspace held, which is added and dropped.
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
cudaError_t launch_reduce(const char* step, const Params& p, cudaStream_t stream) {
    // Up to 32 groups, each adding at least 2 slices.
    const int groups = std::min(32, (p.sched.splits + 1) / 2);
    constexpr int CHUNKS = T::ACC_REGS / 4 * WARPGROUP_THREADS / REDUCE_LANES;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(p.sched.tiles * CLUSTER * T::CONSUMER_WARPGROUPS * CHUNKS));
    config.blockDim = dim3(static_cast<unsigned>(groups * REDUCE_LANES));
    config.dynamicSmemBytes = static_cast<size_t>(groups - 1) * REDUCE_LANES * sizeof(float4);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    if (cudaError_t err = cudaLaunchKernelEx(&config, reduce_splits<CLUSTER, T>, p.partials, p.C, p.M, p.N,
                                             p.c_store, p.sched.tiles, p.sched.splits);
        err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (split-K reduce): %s", step, cudaGetErrorString(err));
    return check_launch(step);
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
constexpr const char* kStep = "07_clusters_multicast";

// One tile, cluster size and schedule. With `transposed` the caller has swapped A with B and
// M with N: the kernel computes C^T = B A^T and stores it transposed into C. Ping-pong
// shares no tile between CTAs: no stream-K, no split-K.
template <int CLUSTER, class T, bool PINGPONG>
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
            allow_dynamic_smem(kStep, gemm_kernel<CLUSTER, T, PINGPONG>, static_cast<int>(SMEM_BYTES));
        err != cudaSuccess)
        return err;
    if (cudaError_t err = allow_dynamic_smem(kStep, gemm_kernel<1, T, PINGPONG>, static_cast<int>(SMEM_BYTES));
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

    // Persistent grid: as many CTAs (or clusters) as can be resident at once (schedule.cuh).
    // Never more than there are tiles.
    Resident resident{};
    if (cudaError_t err =
            resident_grid<gemm_kernel<1, T, PINGPONG>, gemm_kernel<CLUSTER, T, PINGPONG>>(kStep, config, &resident);
        err != cudaSuccess)
        return err;

    // Clusters when there are many waves of tiles (tile_choice::launches_clusters, NOTES.md
    // section 4): a cluster launch places the CTAs of a cluster together in one GPC, and a
    // grid smaller than the GPU then runs slower than with a plain launch. Other problems,
    // ping-pong (tile_choice::pingpong) and cluster size 1 run gemm_kernel<1, T, PINGPONG>
    // with a plain <<<>>> launch.
    const bool clustered =
        !PINGPONG && tile_choice::launches_clusters(cta_tiles, resident.ctas, plain_grid.x, K, CLUSTER);

    Params p{};
    p.C = C;
    p.M = M;
    p.N = N;
    p.K = K;
    // The tensor maps (tiles.cuh: make_operand_maps). A box: the CTA's BM rows. B box: this
    // CTA's slice, BN/CLUSTER of the BN rows, or all BN without clusters. Each with the edge
    // map of its last box, which holds only the rows left.
    if (cudaError_t err = make_operand_maps(&p.a, A, M, K, BM, layout::edge_box_rows(M, BM), kStep);
        err != cudaSuccess)
        return err;
    const int b_box_rows = clustered ? ladder::B_SLICE_ROWS<CLUSTER, T> : BN;
    if (cudaError_t err = make_operand_maps(&p.b, B, N, K, b_box_rows,
                                            layout::edge_box_rows(N % BN, b_box_rows), kStep);
        err != cudaSuccess)
        return err;
    // C box: 64x64, stored from 128B-swizzled shared memory. The C map's row pitch N*2 bytes
    // must be a multiple of 16: N % 8 == 0. Otherwise, and for C^T, the kernel stores
    // directly (and never touches c_map, left zeroed).
    p.c_store = transposed ? kStoreTransposed : N % 8 == 0 ? kStoreTma : kStoreDirect;
    if (p.c_store == kStoreTma) {
        if (cudaError_t err = make_tensor_map_2d(&p.c_map, C, M, N, C_BOX, C_BOX,
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
    const bool exceeds_l2 = stream_k::last_wave_exceeds_l2(
        units, slots, clustered ? grid.x : plain_grid.x, grid.y, layout::group_rows_for(GROUP_M_TILES, unit),
        static_cast<long long>(BM) * unit, BN, K);
    double dram = 0;
    if (cudaError_t err = dram_gbps(kStep, &dram); err != cudaSuccess) return err;
    const int k_blocks = layout::ceil_div(K, BK);
    const bool share = share_last_wave && !PINGPONG && T::SHARES;
    const int splits = share ? stream_k::split_count(units, slots, k_blocks) : 1;
    p.sched = make_schedule(units, k_blocks, slots, share, one_tile_row, exceeds_l2,
                            stream_k::narrow_wave(cta_tiles, resident.ctas, k_blocks, BM),
                            stream_k::feed_bound_wave(plain_grid.x, plain_grid.y, dram), splits);
    // Where the CTAs that share a tile leave their partials, and the flags (schedule.cuh).
    float* partials = nullptr;
    int* flags = nullptr;
    if (cudaError_t err = stream_k_workspace<T>(kStep, stream, p.sched, clustered ? CLUSTER : 1,
                                                resident.ctas, SHARING_CONSUMERS, &partials, &flags);
        err != cudaSuccess)
        return err;
    p.partials = partials;
    p.flags = flags;

    if (!clustered) {
        gemm_kernel<1, T, PINGPONG><<<static_cast<unsigned>(p.sched.clusters), THREADS, SMEM_BYTES, stream>>>(p);
        if (cudaError_t err = check_launch(kStep); err != cudaSuccess || p.sched.splits == 1) return err;
        if constexpr (T::SHARES) return launch_reduce<1, T>(kStep, p, stream);
        return cudaSuccess;
    }
    config.gridDim = dim3(static_cast<unsigned>(p.sched.clusters * CLUSTER));
    if (cudaError_t err = cudaLaunchKernelEx(&config, gemm_kernel<CLUSTER, T, PINGPONG>, p); err != cudaSuccess)
        return fail(err, "%s: cudaLaunchKernelEx (cluster size %d): %s", kStep, CLUSTER,
                    cudaGetErrorString(err));
    if (cudaError_t err = check_launch(kStep); err != cudaSuccess || p.sched.splits == 1) return err;
    if constexpr (T::SHARES) return launch_reduce<CLUSTER, T>(kStep, p, stream);
    return cudaSuccess;
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
    // The schedule of the tile that runs (a forced one's own: its waves differ).
    const tile_choice::Estimate run =
        forced.rows ? tile_choice::pingpong_schedule(tile_choice::estimate(M, N, K, sms, CLUSTER, forced,
                                                                           share_last_wave),
                                                     M, N, K, sms, share_last_wave, false)
                    : plan;
    const bool pingpong = tile_choice::pingpong(run);
    return with_tile(kStep, run.shape, [&](auto tile) {
        using T = typename decltype(tile)::type;
        constexpr int RUNS = slice_cluster<T>(CLUSTER);
        if constexpr (T::PINGPONG_CAPABLE) {
            if (pingpong)
                return launch_tile<RUNS, T, true>(A, B, C, M, N, K, stream, share_last_wave, plan.transposed);
        }
        return launch_tile<RUNS, T, false>(A, B, C, M, N, K, stream, share_last_wave, plan.transposed);
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
    static_assert(tile_choice::in_family({ROWS, COLUMNS}), "a tile of the family (tile_family.h)");
    return launch<2>(A, B, C, M, N, K, stream, {ROWS, COLUMNS}, true);
}

// The most workspace any call needs on this device (ladder_workspace_size): the stream-K
// flags and a partial tile of the tallest, widest tile for every CTA the GPU holds at once
// (one per SM), which bounds both stream-K's grid and split-K's slices (one wave at most).
constexpr int widest_columns() {
    int widest = 0;
    for (const tile_choice::Shape& s : tile_choice::kFamily) widest = std::max(widest, s.columns);
    return widest;
}
cudaError_t workspace_bytes(size_t* bytes) {
    int sms = 0;
    if (cudaError_t err = sm_count(kStep, &sms); err != cudaSuccess) return err;
    *bytes = flag_bytes(sms, SHARING_CONSUMERS) +
             static_cast<size_t>(sms) * SHARING_CONSUMERS * WGMMA_M * widest_columns() * sizeof(float);
    return cudaSuccess;
}

// One line for the step executable: the tile the planner chose for M x N x K and why.
std::string describe(int M, int N, int K) {
    int sms = 0;
    double dram = 0;
    if (sm_count(kStep, &sms) != cudaSuccess || dram_gbps(kStep, &dram) != cudaSuccess) return "tile: no device";
    return tile_choice::explain(M, N, K, sms, 2, true, dram);
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step's default variants (common/library/registry.h): describe, the timeline
// hook, then the variants, the default first; and the tiles `step-7 --tile` may force, one
// "tile<R>x<C>" per row of the family's table (tile_family.h).
LADDER_REGISTER_DEFAULT_VARIANT(describe, set_timeline, {"cluster2", gemm},
                                {"cluster1", gemm_cluster<1>}, {"cluster4", gemm_cluster<4>});
#define LADDER_FORCED_TILE(R, C) {"tile" #R "x" #C, gemm_tile<R, C>},
LADDER_REGISTER_TILES(set_timeline, LADDER_EVERY_SHAPE_TILES(LADDER_FORCED_TILE));
#undef LADDER_FORCED_TILE
LADDER_REGISTER_WORKSPACE(workspace_bytes);

}  // namespace ladder::step07_every_shape
