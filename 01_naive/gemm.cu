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
    const int n = blockIdx.x * BN + threadIdx.x;
    if (n >= N) return;  // the grid overhangs C when N is not a multiple of the tile
    const long long grid_rows = static_cast<long long>(gridDim.y) * BM;
    for (long long row = blockIdx.y * BM + threadIdx.y; row < M; row += grid_rows) {
        const int m = static_cast<int>(row);

        // ---- producer: none. Each thread loads its own operands from global memory. ---
        const __nv_bfloat16* a_row = A + static_cast<size_t>(m) * K;
        const __nv_bfloat16* b_row = B + static_cast<size_t>(n) * K;

        // ---- main loop: K fused multiply-adds in fp32 ----------------------------------
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc = fmaf(__bfloat162float(a_row[k]), __bfloat162float(b_row[k]), acc);

        // ---- epilogue: round to bf16 once, at the end -----------------------------------
        C[static_cast<size_t>(m) * N + n] = __float2bfloat16(acc);
    }
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
    const int row_blocks = (M + BM - 1) / BM;
    const dim3 grid((N + BN - 1) / BN, row_blocks < 65535 ? row_blocks : 65535);  // grid.y <= 65535
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
