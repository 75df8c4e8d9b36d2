// =====================================================================================
// Step 05: wgmma, Hopper's asynchronous warpgroup MMA, reading operands from shared memory
// =====================================================================================
// C[M,N] = A[M,K] * B[N,K]^T   (bf16 in, fp32 accumulate, bf16 out; all row-major)
//
// What this step adds over step 04: the math instruction, and nothing else of substance.
// The TMA ring (full/empty mbarriers, thread 0 issuing the copies, 128-byte swizzle, the
// 128x256x64 tile, 4 stages, 8 warps) is step 04's. What changes:
//   * mma.sync (one warp, 16x8x16, operands in registers, loaded by ldmatrix) becomes
//     wgmma.mma_async (one warpgroup = 4 warps = 128 threads, 64x256x16) whose A and B
//     are read by the tensor cores straight out of shared memory. No ldmatrix, no
//     fragment registers, no swizzle arithmetic in the kernel: each operand is named by
//     one 64-bit matrix descriptor (wgmma_descriptor.h) and the hardware walks the tile.
//     The 8 warps become 2 warpgroups, each owning 64 rows x all 256 columns.
//   * wgmma is asynchronous: issued, then waited for later (wgmma.fence, commit_group,
//     wait_group). One k-block's MMAs stay in flight while the warps go on to wait for
//     the next k-block's data, so a slot is released one k-block later than in step 04:
//     only once the MMAs that read it are known to have completed.
//
// Why it is faster: for each 64x256x16 piece of C a warpgroup issues ONE instruction per
// warp, where step 04's four warps issued 64*256*16 / (16*8*16) = 128 mma.sync plus the
// 32 ldmatrix.x4 that fed them (4 for A and 4 for B per warp per k-step) and held 32
// fragment registers per thread. Per k-block of the CTA: 1280 warp instructions of
// loads and math before, 32 HGMMA (+ a fence, a commit and a wait per warp) now. The
// operands go from shared memory to the tensor cores without passing through the
// register file, so instruction issue and register traffic stop being the limit, and
// the MMAs of one k-block run while the next one is awaited.
//
// Measured: the "Measured" section of README.md in this folder.
//
// Build and run (from the repository root):
//   cmake -S . -B build -G Ninja && cmake --build build --target step-5 && ./build/step-5
// =====================================================================================
#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "layout.h"  // wgmma_acc_row/col: the accumulator map
#include "pipeline.cuh"  // warp_arrive: taught in step 04
#include "registry.h"  // the registration statement at the end of the file
#include "step_api.h"
#include "tensor_map.h"
#include "timeline.cuh"  // pipeline timestamps, only in -DLADDER_TIMELINE builds
#include "tma.cuh"  // wait_barrier, tma_load_2d, arrive_expect_tx: taught in step 03
#include "wgmma.cuh"  // written out beside this file: the descriptor and the wgmma call

namespace ladder::step05 {

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
constexpr int CONSUMER_WARPGROUPS = 2;
constexpr int BM = CONSUMER_WARPGROUPS * WGMMA_M;  // 128
constexpr int BN = WGMMA_N;                        // 256
constexpr int BK = 64;                             // one 128-byte swizzle row of bf16
constexpr int WARPS = CONSUMER_WARPGROUPS * WARPGROUP_THREADS / 32;  // 8
constexpr int THREADS = WARPS * 32;                                  // 256
constexpr int K_STEPS = BK / WGMMA_K;                                // 4 wgmmas per k-block
constexpr int ACC_REGS = WGMMA_M * WGMMA_N / WARPGROUP_THREADS;      // 128 fp32 per thread
constexpr int OTHER_REGS_ESTIMATE = 40;
constexpr int REGISTER_FILE = 65536;
constexpr int MAX_REGS_PER_THREAD = 255;
static_assert(ACC_REGS + OTHER_REGS_ESTIMATE <= MAX_REGS_PER_THREAD,
              "the accumulators must fit one thread's registers with room to spare");
static_assert(THREADS * (ACC_REGS + OTHER_REGS_ESTIMATE) <= REGISTER_FILE,
              "the CTA's registers must fit the SM's register file");
static_assert(2 * THREADS * (ACC_REGS + OTHER_REGS_ESTIMATE) > REGISTER_FILE,
              "twice the warpgroups would not fit: this is the largest power-of-two BM");

// Shared memory decides the stages. One stage holds a k-block of both operands, one TMA
// box each: A 128 x 64 x 2 B = 16 KB, B 256 x 64 x 2 B = 32 KB, 48 KB per stage. A CTA may
// opt in to 227 KB (232448 bytes) on an H100; 1 KB of that goes to aligning the base to
// 1024 bytes and 1 KB to the barriers (the struct pads them to its 1024-byte alignment):
//   (232448 - 2048) / 49152 = 4.69  ->  STAGES = 4  (192 KB of tiles, as in step 04).
constexpr int CHUNK_BYTES = 16;                                           // one swizzle unit
constexpr int ROW_BYTES = BK * static_cast<int>(sizeof(__nv_bfloat16));  // 128
constexpr int CHUNKS_PER_ROW = ROW_BYTES / CHUNK_BYTES;                   // 8
constexpr int A_TILE_BYTES = BM * ROW_BYTES;                   // 16384
constexpr int B_TILE_BYTES = BN * ROW_BYTES;                   // 32768
constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;       // 49152 = the expect_tx count
constexpr size_t SMEM_OPTIN_BYTES = 232448;  // 227 KB: H100's MaxSharedMemoryPerBlockOptin
constexpr int STAGES = static_cast<int>((SMEM_OPTIN_BYTES - 2 * 1024) / STAGE_BYTES);  // 4

static_assert(ROW_BYTES == 128 && CHUNKS_PER_ROW == 8,
              "the 128-byte swizzle XORs a 3-bit chunk index: rows must be 8 chunks of 16 bytes");
static_assert(BK % WGMMA_K == 0, "a k-block is whole wgmma k-steps");
static_assert(BM <= 256 && BN <= 256, "a TMA box has at most 256 rows");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "every tile starts on a 1024-byte boundary, where the swizzle pattern starts");
static_assert((WGMMA_M * ROW_BYTES) % 1024 == 0,
              "each warpgroup's 64 rows of A start on a swizzle atom (descriptor base offset 0)");
static_assert(STAGE_BYTES < (1 << 20), "an mbarrier transaction count must stay below 2^20");
static_assert(ACC_REGS == 128, "the register budget above assumes 128 accumulators");

// The shared memory of one CTA. 128B-swizzled TMA destinations must be 1024-byte
// aligned: the XOR takes address bits 7-9 (the row within a group of 8 rows of 128 bytes)
// into bits 4-6, so a tile must start where that group starts. wgmma applies the same
// XOR to the addresses it reads, so the same alignment lets its descriptors say
// "base offset 0".
struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[STAGES][BM * BK];
    alignas(1024) __nv_bfloat16 b[STAGES][BN * BK];
    uint64_t full_barrier[STAGES];  // phase completes when both boxes of the stage have landed
    uint64_t empty_barrier[STAGES];  // phase completes when every wgmma that read the stage is done
};
// The dynamic shared memory base is only guaranteed 16-byte aligned: allocate 1 KB more
// and round the base up. 4 stages: 196608 + 64 -> sizeof 197632 (padded to 1024) + 1024
// = 198656 bytes (194 KB), over the 48 KB default, so the host opts in.
constexpr int SMEM_BYTES = static_cast<int>(sizeof(SharedStorage)) + 1024;
static_assert(SMEM_BYTES <= SMEM_OPTIN_BYTES, "fits the opt-in limit");
// Two stages already overlap the copy of k-block kb+1 with the math on kb, even with the
// release one k-block late (below): slot (kb-1) % 2 is refilled with kb+1 once the wgmma of
// kb-1 are done, while those of kb run. Steps 06 and 07 assert the same bound.
static_assert(STAGES >= 2, "one slot read while the next k-block lands in another: at least two");

// -------------------------------------------------------------------------------------
// Device helpers carried over from steps 02 to 04
// -------------------------------------------------------------------------------------
// (wait_barrier, tma_load_2d and arrive_expect_tx come from tma.cuh; warp_arrive from
// pipeline.cuh.)

// -------------------------------------------------------------------------------------
// Device helpers new to this step
// -------------------------------------------------------------------------------------
// Written out in wgmma.cuh beside this file, the lesson of this step (read it next):
// smem_descriptor, wgmma_fence, wgmma_commit_group, wgmma_wait_group, fence_accumulators
// and wgmma_m64n256k16.

// -------------------------------------------------------------------------------------
// Kernel
// -------------------------------------------------------------------------------------
// __launch_bounds__(THREADS, 1): one CTA per SM, so ptxas may give each thread up to 255
// registers (the 128 accumulators need them).
__global__ void __launch_bounds__(THREADS, 1)
gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            __nv_bfloat16* C, int M, int N, int K) {
    // ---- setup: which tile of C, which warpgroup, shared storage and its barriers -----
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
    const int warpgroup = warp / 4;
    const int warp_m0 = warpgroup * WGMMA_M;  // first row of this warpgroup's 64 x 256 piece

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

    // ---- main loop: wait for k-block kb, issue its 4 wgmmas, retire k-block kb-1 -------
    // `stage` is the slot of k-block kb, `phase` the parity of the full barrier's phase
    // that k-block completes; it flips whenever `stage` wraps. k-block kb is the
    // (kb / STAGES)-th use of its slot, so both of the slot's barriers are in phase
    // kb / STAGES for it. The difference from step 04: the slot released in iteration kb
    // is the PREVIOUS k-block's (previous_stage, with its parity previous_phase), because
    // only then is the wgmma that read it known to be finished. Per warpgroup:
    //
    //   wait full[kb] | fence | 4 x wgmma (async) | commit | wait_group 1 | release kb-1
    //                           '-- group kb runs on the tensor cores ------------------>
    //                                                 next iteration: wait full[kb+1] ...
    float acc[ACC_REGS];
#pragma unroll
    for (int i = 0; i < ACC_REGS; ++i) acc[i] = 0.0f;
    // Timeline builds only (nothing otherwise): an opaque fence after the zero fill. Without
    // it the timestamps after the loop lead the compiler to a second copy of the zero fill
    // on the path that skips the loop, which ptxas counts as writing the accumulators of
    // wgmma in flight, and it would serialize every wgmma (warning C7515).
    LADDER_TIMELINE_ONLY(fence_accumulators(acc));

    int stage = 0;
    uint32_t phase = 0;
    int previous_stage = 0;       // slot of k-block kb-1 (valid from kb = 1 on)
    uint32_t previous_phase = 0;  // its parity
    for (int kb = 0; kb < k_blocks; ++kb) {
        wait_barrier(&s.full_barrier[stage], phase, "full barrier");
        // Timeline (the first thread of each warpgroup speaks for it, consumer `warpgroup`).
        LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0, warpgroup, LoadArrive, kb);

        // This warpgroup's 64 rows of A start 64 * 128 bytes into the A tile (a whole
        // number of 1024-byte swizzle atoms); B is shared by both warpgroups. Each k16
        // step moves 16 bf16 = 32 bytes along the 128-byte rows of both.
        const uint32_t a_tile = static_cast<uint32_t>(__cvta_generic_to_shared(s.a[stage])) +
                                warp_m0 * ROW_BYTES;
        const uint32_t b_tile = static_cast<uint32_t>(__cvta_generic_to_shared(s.b[stage]));
        LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0, warpgroup, MmaStart, kb);
        fence_accumulators(acc);  // compiler: keep the zero fill above the hardware fence
        wgmma_fence();            // hardware: register writes before here precede the wgmmas
#pragma unroll
        for (int ks = 0; ks < K_STEPS; ++ks) {
            const uint32_t k_bytes = ks * WGMMA_K * sizeof(__nv_bfloat16);
            wgmma_m64n256k16(acc, smem_descriptor(a_tile + k_bytes),
                             smem_descriptor(b_tile + k_bytes));
        }
        wgmma_commit_group();  // the 4 wgmmas of k-block kb are one group
        // Leave group kb running; wait only for group kb-1. Its MMAs have then completed,
        // so its slot may be handed back to the copy engine.
        wgmma_wait_group<1>();
        LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0 && kb > 0, warpgroup, MmaEnd, kb - 1);

        // Release the slot of k-block kb-1. Then the producer (thread 0) acquires it back,
        // once all 8 warps have released it, and refills it with k-block kb-1+STAGES.
        // K-block kb-1 was use (kb-1)/STAGES of its slot: its release completes phase
        // (kb-1)/STAGES of the empty barrier, parity previous_phase. No deadlock: warp 0
        // has arrived before thread 0 waits, and while it waits, group kb of its
        // warpgroup keeps the tensor cores busy. A warp is done with the slot once its
        // wait_group has returned for the group that read it; wait_group is .sync.aligned,
        // so all 32 lanes pass it together and warp_arrive's lane 0 may speak for the warp.
        if (kb > 0) {
            warp_arrive(&s.empty_barrier[previous_stage], lane);
            LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0, warpgroup, Release, kb - 1);
            if (threadIdx.x == 0 && kb - 1 + STAGES < k_blocks) {
                wait_barrier(&s.empty_barrier[previous_stage], previous_phase, "empty barrier");
                issue_k_block(kb - 1 + STAGES, previous_stage);
            }
        }

        previous_stage = stage;
        previous_phase = phase;
        if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }
    // Drain: the last group must complete before its accumulators are read. (The last
    // slot is never released: nothing will be loaded into it again.)
    wgmma_wait_group<0>();
    fence_accumulators(acc);  // compiler: no accumulator read may move above the wait
    LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0, warpgroup, MmaEnd, k_blocks - 1);

    // ---- epilogue: fp32 accumulators -> bf16, straight from registers to C -------------
    // The wgmma accumulator layout (PTX ISA, wgmma "Register Fragments", the figure for
    // the m64nNk16 D matrix) is step 04's, repeated 32 times along n: warp w of the
    // warpgroup owns rows 16w..16w+15 of the 64, and 8-column block j = 0..31 of them is a
    // 16x8 MMA tile whose two pairs below are acc[4j], acc[4j+1] and acc[4j+2], acc[4j+3].
    // Thread (g = lane/4, t = lane%4) holds D[g][2t..2t+1] and D[g+8][2t..2t+1] of each
    // 16x8 MMA tile. Pairs go out as one 4-byte bf16x2 store when both columns exist and
    // the address is 4-byte aligned (N even); otherwise element by element.
    // (layout::wgmma_acc_row/col in common/kernel/layout.h; results/layouts/wgmma_fragment.png.)
    LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0, warpgroup, EpilogueStart, -1);
#pragma unroll
    for (int j = 0; j < WGMMA_N / 8; ++j) {
        const int col = n0 + layout::wgmma_acc_col(lane, 4 * j);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int row = m0 + warp_m0 + layout::wgmma_acc_row(warp % 4, lane, 4 * j + 2 * half);
            if (row >= M || col >= N) continue;
            const float lo = acc[4 * j + 2 * half];
            const float hi = acc[4 * j + 2 * half + 1];
            __nv_bfloat16* dst = C + static_cast<size_t>(row) * N + col;
            if (col + 1 < N && N % 2 == 0) {
                *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(lo, hi);
            } else {
                dst[0] = __float2bfloat16(lo);
                if (col + 1 < N) dst[1] = __float2bfloat16(hi);
            }
        }
    }
    LADDER_TIMELINE_CONSUMER(warp % 4 == 0 && lane == 0, warpgroup, EpilogueEnd, -1);
}

// -------------------------------------------------------------------------------------
// Host launch
// -------------------------------------------------------------------------------------
// The tensor maps are step 04's: A is M x K with a {64, 128} box, B is N x K with a
// {64, 256} box, both CU_TENSOR_MAP_SWIZZLE_128B, which is the layout the descriptors
// describe (see smem_descriptor). Out-of-bounds box elements arrive as zeros.
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                 int K, cudaStream_t stream) {
    constexpr const char* kStep = "05_wgmma";
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
    return {BM, BN, BK, STAGES, CONSUMER_WARPGROUPS, /*cluster*/ 1, THREADS};
}

LADDER_TIMELINE_HOOK()  // set_timeline(): only in -DLADDER_TIMELINE builds

// Registers the step (common/library/registry.h): its tile configuration, describe (or nullptr),
// its timeline hook (or nullptr), then its variants, the default first.
LADDER_REGISTER_STEP(tile_config, nullptr, set_timeline, {"", gemm});

}  // namespace ladder::step05
