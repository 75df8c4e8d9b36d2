// =====================================================================================
// Step 06: warp specialization — a producer warpgroup feeds two consumer warpgroups
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 05: roles. In step 05 the same threads issued the TMA
// loads and the wgmma math, so a thread that had to refill a stage did it between two
// k-blocks of math, and the refill waited behind the math (and the math behind the refill's
// wait on the "slot is free" condition). Here the CTA has three warpgroups (384 threads):
//   * warpgroup 0, the PRODUCER: one elected thread issues every TMA load of the CTA. It
//     never does math, so it runs as far ahead as the stage ring allows.
//   * warpgroups 1 and 2, the CONSUMERS: they only wait for full stages, issue wgmma, and
//     hand each stage back the moment the wgmma that read it has completed.
//   * setmaxnreg moves registers from the producer (which needs ~30) to the consumers
//     (which hold 128 fp32 accumulators each), so each consumer still owns a 64x256 piece
//     of C and the CTA keeps step 05's 128x256 tile, although a third warpgroup now
//     shares the register file.
//   * The cooperative schedule: both consumers work on one 128x256 tile, each on 64 of its
//     rows, and both read every stage. (The other schedule, ping-pong, is the variant
//     gemm_pingpong.cu: the consumers take turns on 64x256 tiles of their own, and one
//     writes its results while the other computes. README.md compares the two.)
//   * A staged epilogue: once the K loop is over the stage ring is idle, so each consumer
//     writes its bf16 results into it (XOR-swizzled, no bank conflicts) and reads them
//     back as whole rows: 16-byte stores that fill every memory sector, instead of step
//     05's 4-byte stores straight from the wgmma register layout.
//
// Why it is faster: the tensor cores are fed by a thread that does nothing else, so loads
// are issued as soon as a slot frees up instead of when a math thread gets around to it;
// and the staged epilogue writes C in about a third of the time (2.0 instead of 5.6-6.2 us
// per tile in the H100's timelines, results/h100/timeline_step06.csv and
// timeline_step05.csv). What it keeps from step 05 despite the
// extra warpgroup (setmaxnreg pays for it): the 128x256 tile (arithmetic intensity
// 2*128*256 / ((128+256)*2) = 85 FLOP per smem byte loaded) and one m64n256k16 wgmma per
// k16 step per warpgroup, the widest tensor-core instruction Hopper has.
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-6 && ./build/step-6
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "layout.h"  // swizzled_offset, wgmma_acc_row/col
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
#include "warp_specialization.cuh"  // written out beside this file: setmaxnreg, named barriers
#include "wgmma.cuh"  // smem_descriptor, wgmma_*, fence_accumulators: taught in step 05

namespace ladder::step06 {

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

// Shared memory decides the stages. One stage holds a k-block of both operands, one TMA
// box each: A 128 x 64 x 2 B = 16 KB, B 256 x 64 x 2 B = 32 KB, 48 KB per stage. A CTA may
// opt in to 227 KB (232448 bytes) on an H100; 1 KB of that goes to aligning the base to
// 1024 bytes and 1 KB to the barriers (the struct pads them to its 1024-byte alignment):
//   (232448 - 2048) / 49152 = 4.69  ->  STAGES = 4  (192 KB of tiles, as in step 04).
constexpr int A_ROWS = BM;  // both consumers read every stage: the A box is all rows of the tile
constexpr uint32_t EMPTY_ARRIVALS = CONSUMER_WARPGROUPS;  // one arrival from each consumer
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr int A_TILE_BYTES = A_ROWS * ROW_BYTES;               // 16384
constexpr int B_TILE_BYTES = BN * ROW_BYTES;                   // 32768
constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;       // 49152 = the expect_tx count
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
constexpr int STAGES = static_cast<int>((SMEM_OPTIN_BYTES - 2 * 1024) / STAGE_BYTES);  // 4

static_assert(ROW_BYTES == 128,
              "a k-block row must be exactly one 128-byte swizzle span");
static_assert(BK % WGMMA_K == 0, "a k-block is whole wgmma k-steps");
static_assert(BM <= 256 && BN <= 256, "a TMA box has at most 256 rows");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "every tile starts on a 1024-byte boundary, where the swizzle pattern starts");
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
    uint64_t full_barrier[STAGES];  // phase completes when both boxes of the stage have landed
    // EXERCISE BEGIN: a second full barrier per stage, for B
    // With the exercise done, full_barrier counts the A box only and this one the B box.
    uint64_t full_b_barrier[STAGES];
    // EXERCISE END
    uint64_t empty_barrier[STAGES];  // phase completes when every wgmma that read the stage is done
};
// The dynamic shared memory base is only guaranteed 16-byte aligned: allocate 1 KB more
// and round the base up. 4 stages: 196608 + 64 -> sizeof 197632 (padded to 1024) + 1024
// = 198656 bytes (194 KB), over the 48 KB default, so the host opts in.
constexpr int SMEM_BYTES = static_cast<int>(sizeof(SharedStorage)) + 1024;
static_assert(SMEM_BYTES <= SMEM_OPTIN_BYTES, "fits the opt-in limit");
static_assert(STAGES >= 2, "a consumer holds one stage while it waits for the next: at least two");

// -------------------------------------------------------------------------------------
// Device helpers carried over from steps 03 and 05
// -------------------------------------------------------------------------------------
// (wait_barrier, tma_load_2d and arrive_expect_tx come from tma.cuh; smem_descriptor,
// wgmma_fence, wgmma_commit_group, wgmma_wait_group, fence_accumulators and
// wgmma_m64n256k16 from wgmma.cuh.)

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------
// Written out in warp_specialization.cuh beside this file, the lesson of this step (read it
// next): store_pair, setmaxnreg_dec/inc, release_stage, named_barrier_sync and advance.

// The staged epilogue's named barrier: both consumers are done with the ring. (Id 1 is the
// order barrier of the ping-pong schedule, gemm_pingpong.cu.)
constexpr int STAGING_BARRIER_ID = 2;
constexpr int STAGING_BARRIER_THREADS = 2 * WARPGROUP_THREADS;
constexpr int STAGING_ROW_BYTES = BN * sizeof(__nv_bfloat16);  // one row of a consumer's piece
static_assert(WGMMA_M * STAGING_ROW_BYTES <= B_TILE_BYTES,
              "a consumer's 64x256 bf16 piece fits in one stage's B tile");
static_assert(STAGES >= CONSUMER_WARPGROUPS, "one B tile per consumer to stage its piece in");

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// Warpgroup 0 produces, warpgroups 1 and 2 consume. The ring protocol, per stage:
//   full_barrier  count 1: the producer's arrive.expect_tx, plus the TMA transaction
//                 bytes of the boxes that signal it (all STAGE_BYTES of a fill when both
//                 boxes signal this one barrier). It completes once per fill, so consumers
//                 wait on it with the parity of the current lap.
//   empty_barrier count EMPTY_ARRIVALS: one per consumer warpgroup that reads the stage.
//                 The producer waits on it with the OPPOSITE parity: on its first lap the
//                 "previous phase" (parity 1) of a fresh barrier counts as complete, so
//                 the first STAGES fills go out without waiting.
__global__ void __launch_bounds__(THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            __nv_bfloat16* __restrict__ C, int M, int N, int K) {
    // ---- setup: which tile of C, which warpgroup, shared storage and its barriers -----
    extern __shared__ uint8_t smem_raw[];
    const uintptr_t smem_base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023};
    SharedStorage& s = *reinterpret_cast<SharedStorage*>(smem_base);

    const int warpgroup = threadIdx.x / WARPGROUP_THREADS;
    const int thread_in_wg = threadIdx.x % WARPGROUP_THREADS;
    // Consecutive CTAs walk down M inside one column of tiles, so CTAs that run at the same
    // time share B tiles in L2. (Step 07 replaces this with a grouped, persistent order.)
    // Changed from step 05's row-by-row order: a wave there swept all of B, too big for L2.
    const int tiles_m = layout::ceil_div(M, BM);
    const int m0 = static_cast<int>(blockIdx.x % tiles_m) * BM;
    const int n0 = static_cast<int>(blockIdx.x / tiles_m) * BN;
    const int k_blocks = layout::ceil_div(K, BK);  // the last one may overhang K: TMA zero-fills it

    if (threadIdx.x == 0) {
        for (int stage = 0; stage < STAGES; ++stage) {
            // One expected arrival per phase: the producer's arrive.expect_tx. The bytes
            // of the two boxes are the rest of what completes the phase.
            //   CCCL: cuda::ptx::mbarrier_init(bar, count)
            //   PTX:  mbarrier.init.shared.b64 [bar], count;
            cuda::ptx::mbarrier_init(&s.full_barrier[stage], 1);
            // EXERCISE BEGIN: initialise the B barriers
            // TODO: how many arrivals complete one phase of full_b_barrier?
            // EXERCISE END
            cuda::ptx::mbarrier_init(&s.empty_barrier[stage], uint32_t{EMPTY_ARRIVALS});
        }
        // The copy engine (the "async proxy") must see the initialised barriers before it
        // signals one.  PTX: fence.mbarrier_init.release.cluster;
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();  // and no thread may wait on a barrier before it is initialised

    if (warpgroup == 0) {
        // ---- producer: one thread keeps the ring full ---------------------------------
        setmaxnreg_dec<PRODUCER_REGISTERS>();
        // EXERCISE BEGIN: two producers, one box each
        // TODO: thread 0 (lane 0 of warp 0) issues every A box on full_barrier, and thread 32
        // (lane 0 of warp 1) every B box on full_b_barrier, each in its own loop over the
        // k-blocks. Facts: the A box is A_ROWS = 128 rows and the B box BN = 256 rows of BK
        // bf16; a phase of a full barrier completes when its expected arrivals have come AND
        // its transaction bytes have landed; waiting on a barrier does not consume its
        // phase, so several threads may wait on the same one. Questions: which barriers must
        // each producer wait on before it overwrites its half of a stage, with which parity,
        // and how many bytes does each announce? Can one producer run a lap ahead of the
        // other, and would a parity then become ambiguous? This stub has thread 0 load the
        // A boxes alone: the B tiles are never loaded, so every value of C is wrong, but
        // nothing hangs.
        if (thread_in_wg == 0) {
            int stage = 0;
            uint32_t phase = 0;
            for (int kb = 0; kb < k_blocks; ++kb) {
                wait_barrier(&s.empty_barrier[stage], phase ^ 1u, "empty barrier");
                LADDER_TIMELINE_PRODUCER(LoadIssue, kb);
                arrive_expect_tx(&s.full_barrier[stage],
                                 A_ROWS * BK * static_cast<uint32_t>(sizeof(__nv_bfloat16)));
                tma_load_2d(s.a[stage], &a_map, kb * BK, m0, &s.full_barrier[stage]);
                advance<STAGES>(stage, phase);
            }
        }
        // EXERCISE END
        // The other 127 producer threads have nothing to do; they fall through to the end.
    } else {
        setmaxnreg_inc<CONSUMER_REGISTERS>();
        const int consumer = warpgroup - 1;

        // ---- main loop: wgmma on full stages, hand each back as soon as it is read ------
        // Both consumers read every fill, from fill 0 on (the timeline numbers k-blocks by
        // fill); this consumer's 64 rows are the top or bottom half of each stage's A box.
        int stage = 0;
        uint32_t phase = 0;
        [[maybe_unused]] const int first_fill = 0;  // timeline
        const int a_row_in_stage = consumer * WGMMA_M;

        float acc[ACC_REGS];
        int previous_stage = -1;
        for (int kb = 0; kb < k_blocks; ++kb) {
            wait_barrier(&s.full_barrier[stage], phase, "full barrier");
            // EXERCISE BEGIN: wait for the B box too
            // TODO: the wgmma below reads the B tile of this stage. Which barrier says it
            // has landed, and how many phases has that barrier completed when this
            // consumer reaches fill kb?
            // EXERCISE END
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
            // once it is done, its stage can be refilled.
            wgmma_wait_group<1>();
            fence_accumulators(acc);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > 0, consumer, MmaEnd,
                                     first_fill + kb - 1);
            LADDER_EXERCISE_DELAY(8000);  // exercise build only: a slow release (exercise_delay.cuh)
            if (previous_stage >= 0 && thread_in_wg == 0)
                release_stage(&s.empty_barrier[previous_stage]);
            LADDER_TIMELINE_CONSUMER(thread_in_wg == 0 && kb > 0, consumer, Release,
                                     first_fill + kb - 1);
            previous_stage = stage;
            advance<STAGES>(stage, phase);
        }
        wgmma_wait_group<0>();
        fence_accumulators(acc);
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, MmaEnd, first_fill + k_blocks - 1);
        if (thread_in_wg == 0) release_stage(&s.empty_barrier[previous_stage]);
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, Release, first_fill + k_blocks - 1);

        // ---- epilogue: fp32 accumulators -> bf16 -> shared memory -> rows of C ----------
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
        // Staged through shared memory where every row of C starts 16-byte aligned.
        const bool staged = N % 8 == 0;
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueStart, -1);
        if (staged) {
            // Stored straight from the D layout, one instruction of a warp writes 8 rows
            // x 16 bytes: eight half-filled 32-byte sectors, and 64 such stores per
            // thread. Staged through shared memory, the same warp writes whole 512-byte
            // rows of C with 16-byte stores: 16 per thread, every sector full.
            // Space: past this barrier both consumers have finished every wgmma (so
            // nothing reads the ring any more), each has seen every TMA copy land (so
            // nothing writes it), and the producer has nothing left to load. The ring
            // is free; consumer c stages its 64x256 bf16 piece in stage c's B tile.
            named_barrier_sync(STAGING_BARRIER_ID, STAGING_BARRIER_THREADS);
            uint8_t* staging = reinterpret_cast<uint8_t*>(s.b[consumer]);
            // Row r of the piece is 512 bytes, 32 chunks of 16; chunk c goes to position
            // c ^ (r % 8). Rows 512 bytes apart start in the same bank, so the 8 rows
            // one store instruction touches would share 4 banks; the XOR spreads them
            // over all 32 (as the 128B swizzle does for TMA tiles).
#pragma unroll
            for (int j = 0; j < ACC_REGS; j += 2) {
                const int row = layout::wgmma_acc_row(warp, lane, j);
                const int chunk = j / 4;  // = col / 8
                const uint32_t offset =
                    layout::swizzled_offset<STAGING_ROW_BYTES>(row, chunk) + 4 * (lane % 4);
                *reinterpret_cast<__nv_bfloat162*>(staging + offset) =
                    __floats2bfloat162_rn(acc[j], acc[j + 1]);
            }
            // Warp w wrote all 256 columns of rows 16w..16w+15 and reads back only
            // those, so the warp's own barrier orders the two.
            __syncwarp();
            // Lane l moves chunk l (columns 8l..8l+7) of each row. With N % 8 == 0 and
            // n0 a multiple of 256, a chunk lies wholly inside or wholly outside C,
            // and every row of C starts 16-byte aligned.
#pragma unroll 4
            for (int r = 0; r < 16; ++r) {
                const int row = 16 * warp + r;
                const int4 chunk = *reinterpret_cast<const int4*>(
                    staging + layout::swizzled_offset<STAGING_ROW_BYTES>(row, lane));
                if (row < rows_left && 8 * lane < cols_left)
                    *reinterpret_cast<int4*>(c_tile + static_cast<size_t>(row) * N + 8 * lane) =
                        chunk;
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
        LADDER_TIMELINE_CONSUMER(thread_in_wg == 0, consumer, EpilogueEnd, -1);
    }
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
// The tensor maps are step 04's: A is M x K with a {64, 128} box, B is N x K with a
// {64, 256} box, both CU_TENSOR_MAP_SWIZZLE_128B, which is the layout the descriptors
// describe (see smem_descriptor). Out-of-bounds box elements arrive as zeros.
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "06_warp_specialized";
    if (cudaError_t err = check_gemm_args(kStep, A, B, C, M, N, K, NeedsArch::Sm90a);
        err != cudaSuccess)
        return err;

    const long long tiles = static_cast<long long>(layout::ceil_div(M, BM)) * layout::ceil_div(N, BN);
    if (tiles > INT_MAX)
        return fail(cudaErrorInvalidValue,
                    "%s: M=%d N=%d needs %lld tiles, more than a grid holds", kStep, M, N, tiles);

    CUtensorMap a_map;
    CUtensorMap b_map;
    if (cudaError_t err =
            make_tensor_map_2d(&a_map, A, M, K, A_ROWS, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep);
        err != cudaSuccess)
        return err;
    if (cudaError_t err =
            make_tensor_map_2d(&b_map, B, N, K, BN, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep);
        err != cudaSuccess)
        return err;

    // More than 48 KB of dynamic shared memory must be asked for (common/library/step_api.h).
    if (cudaError_t err = allow_dynamic_smem(kStep, gemm_kernel, SMEM_BYTES);
        err != cudaSuccess)
        return err;

    gemm_kernel<<<static_cast<unsigned>(tiles), THREADS, SMEM_BYTES, stream>>>(a_map, b_map, C, M,
                                                                             N, K);
    return check_launch(kStep);
}

TileConfig tile_config() {
    return {BM, BN, BK, STAGES, CONSUMER_WARPGROUPS, /*cluster*/ 1, THREADS};
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
LADDER_REGISTER_STEP(tile_config, nullptr, set_timeline, {"cooperative", gemm});

}  // namespace ladder::step06
