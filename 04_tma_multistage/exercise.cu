// =====================================================================================
// Step 04: a ring of TMA stages with full and empty mbarriers (math still mma.sync)
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 03: the ring. Step 03's one stage becomes STAGES = 4
// slots, and the __syncthreads() that guarded the slot becomes a pair of mbarriers per
// slot, in the acquire/release style of CUTLASS's PipelineTmaAsync:
//   * full_barrier[s]: the producer (thread 0) arrives with expect_tx(48 KB); the copy
//     engine completes the phase when the bytes have landed. Consumers WAIT on it.
//   * empty_barrier[s]: each of the 8 warps ARRIVES once it has finished reading slot s;
//     the producer waits on it before it lets the copy engine overwrite the slot.
//   * A phase bit per pass over the ring: k-block kb lives in slot kb % STAGES and is
//     pass kb / STAGES, so every wait names parity (kb / STAGES) & 1 (README.md explains
//     the rule and the hang and the race it prevents).
// The prologue fills all STAGES slots; the main loop waits full[s], computes, arrives on
// empty[s], and thread 0 waits empty[s] and refills slot s with k-block kb + STAGES.
// Tile loads, math and epilogue are step 03's; `diff` against it shows only the ring.
//
// Why it is faster: while the warps compute k-block kb, the copies of kb+1..kb+3 are
// already in flight or landed, so the copy engine and the tensor cores work at the same
// time (step 03 did one, then the other). The refill of a slot is issued as soon as the
// last warp has read it, and is needed STAGES-1 = 3 k-blocks of math later (each is
// 128x256x64 x 2 = 4.2 MFLOP per CTA): 1.5x the slack of step 02's ring, whose copies
// have two k-blocks. And no CTA-wide barrier per k-block any more: a warp waits only for
// its data, and only thread 0 (the producer) waits for the slowest warp.
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-4 && ./build/step-4
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "mma_sync.cuh"  // swizzled_offset, ldmatrix_x4, mma_m16n8k16_bf16: taught in step 02
#include "pipeline.cuh"  // written out beside this file: warp_arrive
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03

namespace ladder::step04 {

// -------------------------------------------------------------------------------------
// Tile configuration
// -------------------------------------------------------------------------------------
// Level 1, the CTA tile: BM x BN of C, walked along K in k-blocks of BK.
//   A k-block of A is BM x BK bf16 = 128 x 64 x 2 B = 16 KB, of B it is BN x BK = 32 KB.
//   One stage holds both: 48 KB. STAGES = 4: 192 KB, the most that fits in the 227 KB
//   one block may use on an H100 (5 stages would need 240 KB). Two already overlap: while
//   the warps read k-block kb in one slot, k-block kb+1 lands in the other (a slot is
//   refilled as soon as its last warp has read it). Each stage past two gives every copy
//   one more k-block of math to hide behind; at 4096^3 two, three and four stages measured
//   within 1% of each other, because the copy already hides behind one k-block (README.md,
//   "Four slots").
//   BK = 64 makes a shared-memory row exactly 128 bytes, the span of TMA's 128-byte
//   swizzle, so one box per operand per k-block is a whole k-block: {64 columns, BM or
//   BN rows} (a box has at most 256 rows, which BN = 256 just meets).
constexpr int BM = 128;
constexpr int BN = 256;
constexpr int BK = 64;
constexpr int STAGES = 4;

// Level 2, the warp tile: 8 warps arranged 2 (along M) x 4 (along N), each owning 64x64.
// A square warp tile is the best ratio of MMAs to fragment loads: per 16-wide k-step a
// warp loads 4 A fragments and 8 B fragments (8 ldmatrix.x4) and issues 4 x 8 = 32 MMAs.
constexpr int WARPS_M = 2;
constexpr int WARPS_N = 4;
constexpr int WARPS = WARPS_M * WARPS_N;
constexpr int THREADS = WARPS * 32;
constexpr int WARP_TILE_M = BM / WARPS_M;  // 64
constexpr int WARP_TILE_N = BN / WARPS_N;  // 64

// Level 3, the MMA tile: mma.sync.m16n8k16 multiplies a 16x16 A tile by a 16x8 B tile.
constexpr int MMA_M = 16;
constexpr int MMA_N = 8;
constexpr int MMA_K = 16;
constexpr int MMA_TILES_M = WARP_TILE_M / MMA_M;  // 4
constexpr int MMA_TILES_N = WARP_TILE_N / MMA_N;  // 8
constexpr int K_STEPS = BK / MMA_K;               // 4 k-steps per k-block

// Registers per thread (a warp's 32 threads share each MMA's operands evenly):
//   accumulators: 4 x 8 MMA tiles x (16*8 fp32 / 32 threads = 4)      = 128 registers
//   A fragments:  4 MMA tiles x (16*16 bf16 / 32 threads = 8 bf16 = 4 regs) = 16 registers
//   B fragments:  8 MMA tiles x (16*8 bf16 / 32 threads = 4 bf16 = 2 regs)  = 16 registers
//   160 registers of data, plus addresses and loop state (ptxas from CUDA 13.0 settles
//   on 232, no spills). 256 threads x 255 = 65280 <= 65536 registers: one CTA per SM.
//   The copies take no registers now: step 02 kept source offsets and bounds per thread.
constexpr int ACC_REGS = MMA_TILES_M * MMA_TILES_N * 4;

// One TMA box per operand per k-block. The byte count is what the full barrier expects.
constexpr int CHUNK_BYTES = 16;                                           // one swizzle unit
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr int CHUNKS_PER_ROW = ROW_BYTES / CHUNK_BYTES;                   // 8
constexpr int A_TILE_BYTES = BM * ROW_BYTES;                   // 16384
constexpr int B_TILE_BYTES = BN * ROW_BYTES;                   // 32768
constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;       // 49152 = the expect_tx count

static_assert(BM % (WARPS_M * MMA_M) == 0 && BN % (WARPS_N * MMA_N) == 0, "warps tile the CTA");
static_assert(MMA_TILES_N % 2 == 0, "one ldmatrix.x4 loads the B fragments of two n8 tiles");
static_assert(BK % MMA_K == 0, "a k-block is whole k-steps");
static_assert(ROW_BYTES == 128 && CHUNKS_PER_ROW == 8,
              "the 128-byte swizzle XORs a 3-bit chunk index: rows must be 8 chunks of 16 bytes");
static_assert(WARP_TILE_M % 8 == 0 && WARP_TILE_N % 8 == 0 && MMA_M % 8 == 0 && MMA_N % 8 == 0,
              "ldmatrix row groups start on a multiple of 8 rows (so row % 8 == lane % 8)");
static_assert(BM <= 256 && BN <= 256, "a TMA box has at most 256 rows");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "every tile starts on a 1024-byte boundary, where the swizzle pattern starts");
static_assert(STAGE_BYTES < (1 << 20), "an mbarrier transaction count must stay below 2^20");
static_assert(ACC_REGS == 128, "the register budget above assumes 128 accumulators");

// The shared memory of one CTA. 128B-swizzled TMA destinations must be 1024-byte
// aligned: the XOR takes address bits 7-9 (the row within a group of 8 rows of 128 bytes)
// into bits 4-6, so a tile must start where that group starts.
struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[STAGES][BM * BK];
    alignas(1024) __nv_bfloat16 b[STAGES][BN * BK];
    uint64_t full_barrier[STAGES];  // phase completes when both boxes of the stage have landed
    uint64_t empty_barrier[STAGES];  // phase completes when all 8 warps have read the stage
};
// The dynamic shared memory base is only guaranteed 16-byte aligned: allocate 1 KB more
// and round the base up. 4 stages: 196608 + 64 -> sizeof 197632 (padded to 1024) + 1024
// = 198656 bytes (194 KB), over the 48 KB default, so the host opts in.
constexpr int SMEM_BYTES = static_cast<int>(sizeof(SharedStorage)) + 1024;
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
static_assert(SMEM_BYTES <= SMEM_OPTIN_BYTES, "fits the opt-in limit");
static_assert(STAGES >= 2, "one slot read while the next k-block lands in another: at least two");

// -------------------------------------------------------------------------------------
// Device helpers carried over from steps 02 and 03
// -------------------------------------------------------------------------------------
// (swizzled_offset, ldmatrix_x4 and mma_m16n8k16_bf16 come from mma_sync.cuh; wait_barrier,
// tma_load_2d and arrive_expect_tx from tma.cuh.)

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------
// Written out in pipeline.cuh beside this file, the lesson of this step (read it next):
// warp_arrive, the consumer side of the empty barrier.

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// __launch_bounds__(THREADS, 1): one CTA per SM, so ptxas may give each thread up to 255
// registers (the 128 accumulators need them).
__global__ void __launch_bounds__(THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            __nv_bfloat16* C, int M, int N, int K) {
    // ---- setup: which tile of C, which warp tile, shared storage and its barriers ------
    // Round the dynamic shared memory base up to 1024 bytes (SMEM_BYTES has the slack).
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t smem_raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    SharedStorage& s = *reinterpret_cast<SharedStorage*>(smem + ((1024 - smem_raw % 1024) % 1024));

    // A 1-D grid (grid.x has room for 2^31-1 tiles) walked row of tiles by row of tiles.
    const int tiles_n = layout::ceil_div(N, BN);
    const int m0 = static_cast<int>(blockIdx.x) / tiles_n * BM;
    const int n0 = static_cast<int>(blockIdx.x) % tiles_n * BN;

    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int warp_m0 = warp / WARPS_N * WARP_TILE_M;  // first row of this warp's tile
    const int warp_n0 = warp % WARPS_N * WARP_TILE_N;  // first column

    // ldmatrix.x4 addressing (see the fragment layouts above mma_m16n8k16_bf16, mma_sync.cuh).
    // A, one 16x16 MMA tile: matrix q = (rows 8*(q%2).., k 8*(q/2)..), in a[q] order.
    //   lane -> row lane % 16, chunk lane / 16 (of the two chunks of a 16-wide k-step).
    // B, two 8x16 MMA tiles (n x k): matrix q = (n 8*(q/2).., k 8*(q%2)..), so registers
    //   0,1 are b[0],b[1] of the first n8 tile and 2,3 those of the second.
    //   lane -> n row (lane % 8) + 8 * (lane / 16), chunk (lane / 8) % 2.
    //   (common/kernel/layout.h has these four functions; ladder-layout draws them.)
    const int a_lane_row = warp_m0 + layout::ldmatrix_a_row(lane);
    const int a_lane_chunk = layout::ldmatrix_a_chunk(lane);
    const int b_lane_row = warp_n0 + layout::ldmatrix_b_row(lane);
    const int b_lane_chunk = layout::ldmatrix_b_chunk(lane);

    const int k_blocks = layout::ceil_div(K, BK);  // the last one may overhang K: TMA zero-fills it

    if (threadIdx.x == 0) {
        for (int stage = 0; stage < STAGES; ++stage) {
            // One expected arrival per phase: the producer's arrive.expect_tx. The bytes
            // of the two boxes are the rest of what completes the phase.
            //   CCCL: cuda::ptx::mbarrier_init(bar, count)
            //   PTX:  mbarrier.init.shared.b64 [bar], count;
            cuda::ptx::mbarrier_init(&s.full_barrier[stage], 1);
            // One arrival per consumer warp (see warp_arrive).
            cuda::ptx::mbarrier_init(&s.empty_barrier[stage], WARPS);
        }
        // The copy engine (the "async proxy") must see the initialised barriers before it
        // signals one.  PTX: fence.mbarrier_init.release.cluster;
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();  // and no thread may wait on a barrier before it is initialised

    // ---- producer: thread 0 issues the two boxes of a k-block ---------------------------
    // The byte count is always the FULL box bytes: a box that hangs over the edge of A or
    // B still writes every element into shared memory, the outside ones as zeros.
    auto issue_k_block = [&](int kb, int stage) {
        LADDER_TIMELINE_PRODUCER(LoadIssue, kb);
        arrive_expect_tx(&s.full_barrier[stage], STAGE_BYTES);
        tma_load_2d(s.a[stage], &a_map, kb * BK, m0, &s.full_barrier[stage]);
        tma_load_2d(s.b[stage], &b_map, kb * BK, n0, &s.full_barrier[stage]);
    };

    // Fill the ring: k-blocks 0..STAGES-1 (fewer when K is short) all go in flight at
    // once, in slots 0..STAGES-1. Every slot starts empty, so nothing to wait for yet.
    if (threadIdx.x == 0) {
        for (int kb = 0; kb < STAGES && kb < k_blocks; ++kb) issue_k_block(kb, kb);
    }

    // ---- main loop: wait for k-block kb, 4 k-steps of 32 MMAs, free the slot, refill --
    // `stage` is the slot of k-block kb, `phase` the parity of the full barrier's phase
    // that k-block completes; it flips whenever `stage` wraps. k-block kb is the
    // (kb / STAGES)-th use of its slot, so both of the slot's barriers are in phase
    // kb / STAGES for it and every wait below names the same parity.
    float acc[MMA_TILES_M][MMA_TILES_N][4] = {};

    // EXERCISE BEGIN: where the late refill is in the ring
    // TODO: the consumers' position is (stage, phase) for k-block kb. Thread 0 now refills
    // a different slot than the one of kb: declare what it needs to name that slot and the
    // parity of its empty wait (no division per k-block).
    int stage = 0;
    uint32_t phase = 0;
    // EXERCISE END
    for (int kb = 0; kb < k_blocks; ++kb) {
        wait_barrier(&s.full_barrier[stage], phase, "full barrier");
        // Timeline (lane 0 of each warp speaks for the warp, consumer `warp`).
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, LoadArrive, kb);
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, MmaStart, kb);
        LADDER_EXERCISE_DELAY(1000 * warp);  // exercise build only: warp w reads w us late (exercise_delay.cuh)

        const uint32_t a_tile = static_cast<uint32_t>(__cvta_generic_to_shared(s.a[stage]));
        const uint32_t b_tile = static_cast<uint32_t>(__cvta_generic_to_shared(s.b[stage]));
#pragma unroll
        for (int ks = 0; ks < K_STEPS; ++ks) {
            uint32_t a_frag[MMA_TILES_M][4];
            uint32_t b_frag[MMA_TILES_N][2];
#pragma unroll
            for (int i = 0; i < MMA_TILES_M; ++i) {
                const int row = a_lane_row + i * MMA_M;
                ldmatrix_x4(a_frag[i], a_tile + swizzled_offset(row, 2 * ks + a_lane_chunk));
            }
#pragma unroll
            for (int j = 0; j < MMA_TILES_N; j += 2) {
                const int row = b_lane_row + j * MMA_N;
                uint32_t pair[4];
                ldmatrix_x4(pair, b_tile + swizzled_offset(row, 2 * ks + b_lane_chunk));
                b_frag[j][0] = pair[0];
                b_frag[j][1] = pair[1];
                b_frag[j + 1][0] = pair[2];
                b_frag[j + 1][1] = pair[3];
            }
#pragma unroll
            for (int i = 0; i < MMA_TILES_M; ++i)
#pragma unroll
                for (int j = 0; j < MMA_TILES_N; ++j)
                    mma_m16n8k16_bf16(acc[i][j], a_frag[i], b_frag[j]);
        }
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, MmaEnd, kb);

        // Release the slot: this warp is done reading it. Then the producer (thread 0)
        // acquires it back, once all 8 warps have released it, and refills it with the
        // k-block STAGES ahead. Lanes 1-31 of warp 0 wait for thread 0 at the end of the
        // `if` (the warp reconverges there: ldmatrix and mma.sync need all 32 lanes); the
        // other warps do not: they run ahead into the k-blocks already landed. No
        // deadlock: warp 0 has arrived on empty[stage] before thread 0 waits on it.
        warp_arrive(&s.empty_barrier[stage], lane);
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, Release, kb);
        // EXERCISE BEGIN: refill one k-block late
        // TODO: in iteration kb, thread 0 refills the slot the warps released in iteration
        // kb - 1, with the next k-block that slot holds, if there is one. By now the warps
        // have usually all released it, so thread 0 (and with it warp 0) no longer waits
        // for the slowest warp of THIS k-block. Which k-block is that, which parity of the
        // slot's empty barrier says its release has happened, and how does thread 0's
        // position move from one iteration to the next (and in iteration 0)? Write it in
        // the CPU model first (common/models/ring_schedules.cpp, schedule_step04;
        // ./build/ladder-ring --step 4). This stub never refills: right while
        // K <= STAGES * BK, the hang trap fires beyond.
        // EXERCISE END

        if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }

    // ---- epilogue: fp32 accumulators -> bf16, straight from registers to C -------------
    // Thread (g = lane/4, t = lane%4) holds D[g][2t..2t+1] and D[g+8][2t..2t+1] of each
    // 16x8 MMA tile. Pairs go out as one 4-byte bf16x2 store when both columns exist and
    // the address is 4-byte aligned (N even); otherwise element by element.
    LADDER_TIMELINE_CONSUMER(lane == 0, warp, EpilogueStart, -1);
#pragma unroll
    for (int i = 0; i < MMA_TILES_M; ++i) {
#pragma unroll
        for (int j = 0; j < MMA_TILES_N; ++j) {
            const int col = n0 + warp_n0 + j * MMA_N + layout::mma_acc_col(lane, 0);
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int row = m0 + warp_m0 + i * MMA_M + layout::mma_acc_row(lane, 2 * half);
                if (row >= M || col >= N) continue;
                const float lo = acc[i][j][2 * half];
                const float hi = acc[i][j][2 * half + 1];
                __nv_bfloat16* dst = C + static_cast<size_t>(row) * N + col;
                if (col + 1 < N && N % 2 == 0) {
                    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(lo, hi);
                } else {
                    dst[0] = __float2bfloat16(lo);
                    if (col + 1 < N) dst[1] = __float2bfloat16(hi);
                }
            }
        }
    }
    LADDER_TIMELINE_CONSUMER(lane == 0, warp, EpilogueEnd, -1);
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
// The tensor maps are step 03's: A is M x K with a {64, 128} box, B is N x K with a
// {64, 256} box, both CU_TENSOR_MAP_SWIZZLE_128B, which is the layout swizzled_offset()
// describes (03_tma_single_stage/gemm.cu explains each argument of make_tensor_map_2d).
// Out-of-bounds box elements arrive as zeros.
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "04_tma_multistage";
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
            make_tensor_map_2d(&a_map, A, M, K, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep);
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
    return {BM, BN, BK, STAGES, /*consumer_warpgroups*/ 0, /*cluster*/ 1, THREADS};
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
LADDER_REGISTER_STEP(tile_config, nullptr, set_timeline, {"", gemm});

}  // namespace ladder::step04
