// =====================================================================================
// Step 02: the Ampere toolset at its best (cp.async ring, ldmatrix, mma.sync)
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 01:
//   * CTA tiling through shared memory: a CTA owns a 128x256 tile of C and streams
//     128x64 slabs of A and 256x64 slabs of B through shared memory, so every element
//     of A it fetches feeds 256 multiply-adds (one per column of the tile) and every
//     element of B feeds 128, instead of one.
//   * cp.async: asynchronous global->shared copies (16 bytes per instruction) into a
//     3-stage ring, so the copies for k-blocks kb+1 and kb+2 are in flight while the
//     tensor cores chew on k-block kb.
//   * ldmatrix + mma.sync.m16n8k16: the tensor cores, fed from shared memory whose
//     16-byte chunks are XOR-swizzled so that ldmatrix never has a bank conflict.
//   * A two-level tiling: CTA tile 128x256 -> 8 warps of 64x64 -> 4x8 MMA tiles of 16x8.
//
// Why it is faster: the tensor cores do a 16x8x16 multiply-add (4096 FLOP) per warp
// instruction where step 01 did one FMA (2 FLOP) per thread instruction, and the CTA
// tile asks the memory system for 1 byte per BM*BN/(BM+BN) = 85 FLOP where step 01
// asked for 2 bytes per FLOP (README.md has the arithmetic).
//
// What it still costs (the three things Hopper removes, README.md has the details):
//   1. every thread computes addresses and issues its own 12 copies per k-block;
//   2. mma.sync is synchronous: a warp waits on its own MMAs and its own ldmatrix loads;
//   3. A/B fragments live in registers: 32 of them per thread next to 128 accumulators.
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-2 && ./build/step-2
// =====================================================================================
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "cp_async.cuh"  // written out beside this file: cp.async, its commit and wait
#include "layout.h"  // swizzled_offset, the ldmatrix lane addresses, the fragment map
#include "mma_sync.cuh"  // written out beside this file: the swizzle, ldmatrix, mma.sync
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"

namespace ladder::step02 {

// -------------------------------------------------------------------------------------
// Tile configuration
// -------------------------------------------------------------------------------------
// Level 1, the CTA tile: BM x BN of C, walked along K in k-blocks of BK.
//   A k-block of A is BM x BK bf16 = 128 x 64 x 2 B = 16 KB, of B it is BN x BK = 32 KB.
//   One stage of the ring holds both: 48 KB; STAGES = 3 stages: 144 KB of shared memory
//   (fits the 227 KB of an H100 and the 163 KB of an A100; one CTA per SM).
//   BK = 64 makes a shared-memory row exactly 128 bytes = 8 chunks of 16 bytes, the
//   geometry the XOR swizzle (mma_sync.cuh; TMA's 128-byte swizzle in later steps) is built on.
constexpr int BM = 128;
constexpr int BN = 256;
constexpr int BK = 64;
constexpr int STAGES = 3;

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
//   on 240, no spills). 256 threads x 255 = 65280 <= 65536 registers: one CTA per SM.
constexpr int ACC_REGS = MMA_TILES_M * MMA_TILES_N * 4;

// Copies: one cp.async moves a 16-byte chunk = 8 bf16. A row of a k-block is 8 chunks, so
// the 256 threads cover 32 rows per pass: 4 passes for A, 8 for B, 12 cp.async per thread.
constexpr int CHUNK_BYTES = 16;                                           // one swizzle unit
constexpr int CHUNK_ELEMS = CHUNK_BYTES / static_cast<int>(sizeof(__nv_bfloat16));  // 8
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr int CHUNKS_PER_ROW = ROW_BYTES / CHUNK_BYTES;                   // 8
constexpr int A_TILE_BYTES = BM * ROW_BYTES;                   // 16384
constexpr int B_TILE_BYTES = BN * ROW_BYTES;                   // 32768
constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;       // 49152
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES;               // 147456
constexpr int COPY_ROW_STEP = THREADS / CHUNKS_PER_ROW;  // 32 rows copied per pass of the CTA
constexpr int A_COPIES = BM / COPY_ROW_STEP;              // 4 cp.async per thread per k-block
constexpr int B_COPIES = BN / COPY_ROW_STEP;              // 8

static_assert(BM % (WARPS_M * MMA_M) == 0 && BN % (WARPS_N * MMA_N) == 0, "warps tile the CTA");
static_assert(MMA_TILES_N % 2 == 0, "one ldmatrix.x4 loads the B fragments of two n8 tiles");
static_assert(BK % MMA_K == 0, "a k-block is whole k-steps");
static_assert(ROW_BYTES == 128 && CHUNKS_PER_ROW == 8,
              "the 128-byte swizzle XORs a 3-bit chunk index: rows must be 8 chunks of 16 bytes");
static_assert(WARP_TILE_M % 8 == 0 && WARP_TILE_N % 8 == 0 && MMA_M % 8 == 0 && MMA_N % 8 == 0,
              "ldmatrix row groups start on a multiple of 8 rows (so row % 8 == lane % 8)");
static_assert(THREADS % CHUNKS_PER_ROW == 0, "a thread copies the same chunk column every time");
static_assert(BM % COPY_ROW_STEP == 0 && BN % COPY_ROW_STEP == 0,
              "every thread issues the same number of copies");
static_assert(COPY_ROW_STEP % 8 == 0, "copy i keeps the row % 8 (the swizzle) of copy 0");
static_assert(STAGES >= 3, "the ring keeps two k-blocks in flight while computing on a third");
static_assert(SMEM_BYTES <= 163 * 1024, "fits an A100 (163 KB) and an H100 (227 KB)");
static_assert(ACC_REGS == 128, "the register budget above assumes 128 accumulators");

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------

// Written out beside this file, with the text that explains them: in cp_async.cuh (read
// it first) cp_async_16, cp_async_commit_group and cp_async_wait_group; in mma_sync.cuh
// (read it next) swizzled_offset, ldmatrix_x4 and mma_m16n8k16_bf16.
// swizzled_offset (common/kernel/layout.h) assumes this step's row geometry:
static_assert(ROW_BYTES == layout::kSwizzleRowBytes && CHUNK_BYTES == layout::kChunkBytes,
              "layout::swizzled_offset assumes 128-byte rows of 16-byte chunks");

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// __launch_bounds__(THREADS, 1): one CTA per SM, so ptxas may give each thread up to 255
// registers (the 128 accumulators need them).
__global__ void __launch_bounds__(THREADS, 1)
gemm_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
            __nv_bfloat16* __restrict__ C, int M, int N, int K) {
    // ---- setup: which tile of C, which warp tile, where the ring lives -----------------
    // 128-byte alignment keeps the bank arithmetic of swizzled_offset() exact.
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));

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

    const int k_blocks = layout::ceil_div(K, BK);

    // ---- producer: every thread issues its 4 + 8 copies of a k-block ------------------
    // Thread t always copies chunk t % 8 of tile rows t / 8, t / 8 + 32, t / 8 + 64, ...:
    // a warp copies 4 whole 128-byte rows, so each global access is full aligned lines.
    // Everything that does not change from k-block to k-block is computed once, here; this
    // per-thread bookkeeping is the cost that TMA later takes off the threads entirely.
    const int copy_row = static_cast<int>(threadIdx.x) / CHUNKS_PER_ROW;    // 0..31
    const int copy_chunk = static_cast<int>(threadIdx.x) % CHUNKS_PER_ROW;  // 0..7
    // Copy i lands COPY_ROW_STEP rows further down; COPY_ROW_STEP % 8 == 0 keeps row % 8,
    // so its swizzled offset is this one plus a constant.
    const uint32_t copy_smem_offset = swizzled_offset(copy_row, copy_chunk);
    const size_t copy_global_step = static_cast<size_t>(COPY_ROW_STEP) * K;  // elements
    const size_t a_copy_offset = static_cast<size_t>(m0 + copy_row) * K + copy_chunk * CHUNK_ELEMS;
    const size_t b_copy_offset = static_cast<size_t>(n0 + copy_row) * K + copy_chunk * CHUNK_ELEMS;
    const int a_rows_left = M - (m0 + copy_row);  // copy i is in bounds if i*32 < rows left
    const int b_rows_left = N - (n0 + copy_row);

    // Out of bounds, src would point past the matrix: the copy then reads 0 bytes, and we
    // hand it the matrix base instead so that not even an unused address is wild.
    auto issue_k_block = [&](int kb) {
        const int k0 = kb * BK;
        const bool col_in_bounds = k0 + copy_chunk * CHUNK_ELEMS < K;  // K % 8 == 0: whole chunks
        const uint32_t a_stage = smem_base + (kb % STAGES) * STAGE_BYTES + copy_smem_offset;
        const uint32_t b_stage = a_stage + A_TILE_BYTES;
#pragma unroll
        for (int i = 0; i < A_COPIES; ++i) {
            const bool in_bounds = col_in_bounds && i * COPY_ROW_STEP < a_rows_left;
            const __nv_bfloat16* src = A + a_copy_offset + i * copy_global_step + k0;
            cp_async_16(a_stage + i * COPY_ROW_STEP * ROW_BYTES, in_bounds ? src : A, in_bounds);
        }
#pragma unroll
        for (int i = 0; i < B_COPIES; ++i) {
            const bool in_bounds = col_in_bounds && i * COPY_ROW_STEP < b_rows_left;
            const __nv_bfloat16* src = B + b_copy_offset + i * copy_global_step + k0;
            cp_async_16(b_stage + i * COPY_ROW_STEP * ROW_BYTES, in_bounds ? src : B, in_bounds);
        }
    };

    // Fill the ring: k-blocks 0..STAGES-2 in flight before any math. One commit group per
    // k-block, even an empty one past the end of K, so "group i = k-block i" always holds.
#pragma unroll
    for (int kb = 0; kb < STAGES - 1; ++kb) {
        if (kb < k_blocks) issue_k_block(kb);
        cp_async_commit_group();
    }

    // ---- main loop: wait for k-block kb, refill the ring, 4 k-steps of 32 MMAs -------
    float acc[MMA_TILES_M][MMA_TILES_N][4] = {};

    for (int kb = 0; kb < k_blocks; ++kb) {
        // kb + STAGES - 1 groups are committed; allowing STAGES - 2 to be pending means
        // groups 0..kb are complete, i.e. this thread's copies of k-block kb have landed.
        cp_async_wait_group<STAGES - 2>();
        // ...and everyone else's. The same barrier also proves that every warp has finished
        // reading k-block kb-1, whose slot the copies issued next overwrite.
        __syncthreads();
        if (kb + STAGES - 1 < k_blocks) issue_k_block(kb + STAGES - 1);
        cp_async_commit_group();

        const uint32_t a_tile = smem_base + (kb % STAGES) * STAGE_BYTES;
        const uint32_t b_tile = a_tile + A_TILE_BYTES;
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
    }

    // EXERCISE BEGIN: a staged epilogue through the idle ring
    // ---- epilogue: fp32 accumulators -> bf16 -> shared memory -> whole rows of C --------
    // TODO: write C through shared memory instead of straight from the fragments: every
    // thread puts its accumulators, as bf16 pairs, into a 128 x 256 bf16 copy of the tile
    // in the ring (64 KB of the 144 KB), and then each warp copies whole rows of the tile
    // to C, 16 bytes per lane (a row is 32 chunks of 16 bytes). Facts: swizzled_offset
    // lays out 128-byte rows (64 columns) so that 8 consecutive rows fall on different
    // banks; the fragment map is above mma_m16n8k16_bf16 (layout::mma_acc_row/col); rows
    // of C are 16-byte aligned only when N % 8 == 0 (N = 129 and 500 are in the check).
    // Questions: when may the ring be overwritten, and when may a warp read what others
    // wrote? Where does column col of row r of the tile go? Which elements lie outside C?
    // This stub writes nothing: every element of C stays NaN.
    // EXERCISE END
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "02_cp_async_mma_sync";
    if (cudaError_t err = check_gemm_args(kStep, A, B, C, M, N, K, NeedsArch::Sm80);
        err != cudaSuccess)
        return err;

    const long long tiles = static_cast<long long>(layout::ceil_div(M, BM)) * layout::ceil_div(N, BN);
    if (tiles > INT_MAX)
        return fail(cudaErrorInvalidValue,
                    "%s: M=%d N=%d needs %lld tiles, more than a grid holds", kStep, M, N, tiles);

    // More than 48 KB of dynamic shared memory must be asked for (common/library/step_api.h).
    if (cudaError_t err = allow_dynamic_smem(kStep, gemm_kernel, SMEM_BYTES);
        err != cudaSuccess)
        return err;

    gemm_kernel<<<static_cast<unsigned>(tiles), THREADS, SMEM_BYTES, stream>>>(A, B, C, M, N, K);
    return check_launch(kStep);
}

TileConfig tile_config() {
    return {BM, BN, BK, STAGES, /*consumer_warpgroups*/ 0, /*cluster*/ 1, THREADS};
}

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
LADDER_REGISTER_STEP(tile_config, nullptr, nullptr, {"", gemm});

}  // namespace ladder::step02
