// =====================================================================================
// Step 03: TMA copies into a single shared-memory stage (math still ldmatrix + mma.sync)
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 02: only the way tiles reach shared memory. The CTA
// tile, the warp tiles, ldmatrix + mma.sync and the epilogue are step 02's, line for line.
//   * The Tensor Memory Accelerator (TMA), Hopper's copy engine. A tensor map per operand,
//     encoded once on the host (make_tensor_map_2d, explained above gemm() below), is
//     passed to the kernel as `const __grid_constant__ CUtensorMap`.
//   * ONE thread asks for a whole k-block: "the 128x64 box of A at (k0, m0) and the
//     256x64 box of B at (k0, n0), into these buffers". Step 02 needed all 256 threads to
//     compute addresses, test bounds and issue 12 16-byte cp.async copies each.
//   * The boxes land in the 128-byte swizzled layout (CU_TENSOR_MAP_SWIZZLE_128B), which
//     is the same XOR step 02 applied by hand, so swizzled_offset() and the ldmatrix
//     addresses do not change: the hardware now does the swizzling.
//   * Box elements outside the matrix arrive as zeros: M and N that are not multiples of
//     the tile and the K tail need no code on the load path. Only the epilogue checks.
//   * Completion is an mbarrier with a transaction count: the issuing thread announces
//     "48 KB are coming" (arrive.expect_tx), the copy engine counts the bytes off as they
//     land, and the barrier's phase completes when the count reaches zero.
//
// Why it is not faster than step 02: there is one stage, so each k-block is
// load -> wait -> compute -> __syncthreads -> load. While the copy is in flight the
// tensor cores idle; while they compute, the copy engine idles. Step 02's three-stage
// cp.async ring overlaps the two and wins. What TMA buys regardless: no copy instructions
// and no address or bounds arithmetic in 255 of 256 threads, hardware bounds handling, and
// fewer registers. Step 04 puts the ring back, this time with TMA and mbarriers.
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-3 && ./build/step-3
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "mma_sync.cuh"  // swizzled_offset, ldmatrix_x4, mma_m16n8k16_bf16: taught in step 02
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // written out beside this file: the TMA copy and the mbarrier wait

namespace ladder::step03 {

// -------------------------------------------------------------------------------------
// Tile configuration
// -------------------------------------------------------------------------------------
// Level 1, the CTA tile: BM x BN of C, walked along K in k-blocks of BK.
//   A k-block of A is BM x BK bf16 = 128 x 64 x 2 B = 16 KB, of B it is BN x BK = 32 KB.
//   One stage holds both: 48 KB. STAGES = 1: one buffer, filled, consumed, refilled.
//   BK = 64 makes a shared-memory row exactly 128 bytes, the span of TMA's 128-byte
//   swizzle, so one box per operand per k-block is a whole k-block: {64 columns, BM or
//   BN rows} (a box has at most 256 rows, which BN = 256 just meets).
constexpr int BM = 128;
constexpr int BN = 256;
constexpr int BK = 64;
constexpr int STAGES = 1;

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
//   on 223, no spills). 256 threads x 255 = 65280 <= 65536 registers: one CTA per SM.
//   The copies take no registers now: step 02 kept source offsets and bounds per thread.
constexpr int ACC_REGS = MMA_TILES_M * MMA_TILES_N * 4;

// One TMA box per operand per k-block. The byte count is what the full barrier expects.
constexpr int CHUNK_BYTES = 16;                                           // one swizzle unit
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr int CHUNKS_PER_ROW = ROW_BYTES / CHUNK_BYTES;                   // 8
constexpr int A_TILE_BYTES = BM * ROW_BYTES;                   // 16384
constexpr int B_TILE_BYTES = BN * ROW_BYTES;                   // 32768
constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;       // 49152 = the expect_tx count
// EXERCISE BEGIN: B in two boxes of half height
// B arrives as two TMA boxes of B_BOX_ROWS rows, stacked in the stage's B tile: the upper
// box holds rows n0 onwards, the lower one rows n0 + B_BOX_ROWS onwards. Each half starts
// on a 1024-byte boundary, so the 128-byte swizzle (anchored there) is the same as for one
// box, and the MMA loop reads the tile exactly as before.
constexpr int B_BOX_ROWS = BN / 2;                  // 128
constexpr int B_BOX_BYTES = B_BOX_ROWS * ROW_BYTES;  // 16384
static_assert(B_BOX_BYTES % 1024 == 0, "the lower box starts where a swizzle pattern starts");
// EXERCISE END

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
};
// The dynamic shared memory base is only guaranteed 16-byte aligned: allocate 1 KB more
// and round the base up. 1 stage: 49152 + 8 -> sizeof 50176 (padded to 1024) + 1024 =
// 51200 bytes, over the 48 KB default, so the host opts in.
constexpr int SMEM_BYTES = static_cast<int>(sizeof(SharedStorage)) + 1024;
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
static_assert(SMEM_BYTES <= SMEM_OPTIN_BYTES, "fits the opt-in limit");

// -------------------------------------------------------------------------------------
// Device helpers carried over from step 02
// -------------------------------------------------------------------------------------
// (swizzled_offset, ldmatrix_x4 and mma_m16n8k16_bf16 come from mma_sync.cuh.)

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------

// Written out in tma.cuh beside this file, the lesson of this step (read it next):
// wait_barrier, tma_load_2d and arrive_expect_tx.

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
            // EXERCISE BEGIN: the arrivals a phase of the full barrier needs
            // One arrival per phase, as in gemm.cu. Change it only if your producer arrives
            // more (or less) than once per k-block.
            cuda::ptx::mbarrier_init(&s.full_barrier[stage], 1);
            // EXERCISE END
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
        // EXERCISE BEGIN: issue the A box and both B boxes of a k-block
        // TODO: B's tensor map now has boxes of B_BOX_ROWS = 128 rows (see the host code),
        // so the 256 rows of the B tile take two boxes. Issue the lower one too: where in
        // the stage does it land, which rows of B does it bring, and how many bytes must
        // the full barrier expect in all? Mind the edges: for N = 100 no row of the lower
        // box exists (issue it anyway, as step 07's gemm.cu does with every box, or skip it
        // as every_shape/every_shape.cu does: either way, what does the barrier expect?), for
        // N = 129 one does. This stub announces and issues the A box and the UPPER B box
        // only: the lower half of the B tile is never written, so columns 128..255 of
        // every tile of C come out wrong (garbage or NaN); N <= 128 passes.
        arrive_expect_tx(&s.full_barrier[stage], A_TILE_BYTES + B_BOX_BYTES);
        tma_load_2d(s.a[stage], &a_map, kb * BK, m0, &s.full_barrier[stage]);
        tma_load_2d(s.b[stage], &b_map, kb * BK, n0, &s.full_barrier[stage]);
        // EXERCISE END
    };

    // Fill the ring. With STAGES = 1 it is a single slot: k-block 0.
    if (threadIdx.x == 0) {
        for (int kb = 0; kb < STAGES && kb < k_blocks; ++kb) issue_k_block(kb, kb);
    }

    // ---- main loop: wait for k-block kb, 4 k-steps of 32 MMAs, free the slot, refill --
    // `stage` is the slot of k-block kb, `phase` the parity of the full barrier's phase
    // that k-block completes; it flips whenever `stage` wraps (with one stage: every time).
    float acc[MMA_TILES_M][MMA_TILES_N][4] = {};

    int stage = 0;
    uint32_t phase = 0;
    for (int kb = 0; kb < k_blocks; ++kb) {
        wait_barrier(&s.full_barrier[stage], phase, "full barrier");
        // Timeline (lane 0 of each warp speaks for the warp, consumer `warp`).
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, LoadArrive, kb);
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, MmaStart, kb);

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

        // Every warp must have finished reading the slot before the copy engine overwrites
        // it: a CTA-wide barrier, then the refill. The copy of k-block kb+1 starts only
        // now, and all 8 warps will sit in the next wait_barrier until it has landed.
        __syncthreads();
        LADDER_TIMELINE_CONSUMER(lane == 0, warp, Release, kb);
        if (threadIdx.x == 0 && kb + STAGES < k_blocks) issue_k_block(kb + STAGES, stage);

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
// make_tensor_map_2d(map, base, rows, cols, box_rows, box_cols, swizzle, step) fills a
// CUtensorMap through cuTensorMapEncodeTiled for the row-major bf16 matrix base[rows][cols]:
//   base      the matrix in global memory (A or B; 16-byte aligned)
//   rows      its outer dimension: M for A, N for B. Box rows at or past it arrive as zeros.
//   cols      its inner, contiguous dimension: K for both. The row pitch is cols * 2 bytes,
//             a multiple of 16 because K % 8 == 0. Box columns at or past K arrive as
//             zeros: that is the K tail.
//   box_rows  rows one copy brings: BM for A, BN for B (at most 256)
//   box_cols  columns one copy brings: BK = 64 bf16 = 128 bytes, the swizzle span
//   swizzle   CU_TENSOR_MAP_SWIZZLE_128B: the layout swizzled_offset() describes
//   step      the name that error messages carry
// Inside, the driver is told the dimensions innermost first ({K, M}), the one stride
// (K * 2 bytes per row), element strides of 1, no interleave, 256-byte L2 promotion and
// zero fill for out-of-bounds elements (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE means zeros;
// the alternative fills NaN).
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "03_tma_single_stage";
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
    // EXERCISE BEGIN: B's boxes are half as tall
    if (cudaError_t err =
            make_tensor_map_2d(&b_map, B, N, K, B_BOX_ROWS, BK, CU_TENSOR_MAP_SWIZZLE_128B, kStep);
        err != cudaSuccess)
        return err;
    // EXERCISE END

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

}  // namespace ladder::step03
