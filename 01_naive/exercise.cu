// =====================================================================================
// Step 01: naive GEMM, one thread per output element
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds: nothing. It is the baseline every later step is measured against,
// and the plainest statement of the arithmetic: thread (m, n) walks k = 0..K-1, loads
// A[m,k] and B[n,k] from global memory, and keeps a running fp32 sum.
//
// Why it is slow: every multiply-add needs two 2-byte loads, so the kernel does 1 FLOP
// per byte it asks of the memory system (the tensor cores need ~300 FLOP/byte of DRAM
// traffic to stay busy on an H100). Caches catch most of the re-reads, but the loads
// still cost instructions, and the math runs on the plain FMA pipe, not the tensor cores.
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-1 && ./build/step-1
// =====================================================================================
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"

namespace ladder::step01 {

// -------------------------------------------------------------------------------------
// Tile configuration
// -------------------------------------------------------------------------------------
// A "tile" here is just the thread block: BN threads along n times BM along m. Threads
// with consecutive threadIdx.x take consecutive n, so a warp reads 32 rows of B (one
// element each, K*2 bytes apart) and a single element of A (shared by the warp).
constexpr int BM = 8;
constexpr int BN = 32;
constexpr int THREADS = BM * BN;
static_assert(BN % 32 == 0, "a warp must lie inside one row of the block");
static_assert(THREADS <= 1024, "a block has at most 1024 threads");
// EXERCISE BEGIN: the block of C each thread computes
// Each thread computes a TM x TN block of C: rows m and m + BM, columns n and n + BN, so a
// block of BM x BN threads covers a (TM * BM) x (TN * BN) piece of C. Every element of A a
// thread loads then feeds TN multiply-adds and every element of B feeds TM, instead of one:
// 4 loads per 4 FMAs where gemm.cu needs 8. The rows and columns a thread owns stay BM and
// BN apart, so a warp still reads one element of A and writes 32 consecutive elements of C.
constexpr int TM = 2;
constexpr int TN = 2;
// EXERCISE END

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
__global__ void __launch_bounds__(THREADS)
gemm_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
            __nv_bfloat16* __restrict__ C, int M, int N, int K) {
    // ---- setup: which outputs this thread owns ----------------------------------------
    // Column n, and row m of every BM-row block the grid covers. The grid is at most 65535
    // blocks tall, fewer than a large M needs (M > 524,280), so each thread then walks down
    // C by the grid's height: a grid-stride loop, one pass for every smaller M.
    // EXERCISE BEGIN: a TM x TN block of C per thread
    // TODO: this thread owns rows m and m + BM and columns n and n + BN of C (see TM, TN
    // above); the grid below already has one thread per such 2 x 2 block. Compute all four
    // outputs in one pass over k, loading each element of A and B this thread needs once
    // per k. M and N need not be multiples of anything: which of the four may lie outside
    // C, and what may a thread then read and write (memcheck runs)?
    // This stub computes only C[m,n], the first of the four: the other three stay NaN.
    const int n = blockIdx.x * (TN * BN) + threadIdx.x;
    if (n >= N) return;
    const long long grid_rows = static_cast<long long>(gridDim.y) * (TM * BM);
    for (long long row = blockIdx.y * (TM * BM) + threadIdx.y; row < M; row += grid_rows) {
        const int m = static_cast<int>(row);
        const __nv_bfloat16* a_row = A + static_cast<size_t>(m) * K;
        const __nv_bfloat16* b_row = B + static_cast<size_t>(n) * K;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc = fmaf(__bfloat162float(a_row[k]), __bfloat162float(b_row[k]), acc);
        C[static_cast<size_t>(m) * N + n] = __float2bfloat16(acc);
    }
    // EXERCISE END
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "01_naive";
    if (cudaError_t err = check_gemm_args(kStep, A, B, C, M, N, K, NeedsArch::Sm80);
        err != cudaSuccess)
        return err;

    const dim3 block(BN, BM);
    // EXERCISE BEGIN: one thread per TM x TN block of C
    const int row_blocks = (M + TM * BM - 1) / (TM * BM);
    const dim3 grid((N + TN * BN - 1) / (TN * BN), row_blocks < 65535 ? row_blocks : 65535);
    // EXERCISE END
    gemm_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
    return check_launch(kStep);
}

TileConfig tile_config() {
    return {BM, BN, /*bk*/ 0, /*stages*/ 0, /*consumer_warpgroups*/ 0, /*cluster*/ 1, THREADS};
}

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
LADDER_REGISTER_STEP(tile_config, nullptr, nullptr, {"", gemm});

}  // namespace ladder::step01
