// probe.cu: ladder-probe, which measures on the GPU at hand the constants the planner's
// time model uses (planner.h, predict()) and writes them to a machine file:
//
//   ./build/ladder-probe                       -> results/<gpu>/machine.json in the source tree
//   ./build/ladder-probe --out FILE            -> FILE (its folder checked before measuring)
//   ladder-probe (installed)                   -> ./machine.json
//
// Every test is a small kernel whose work is checked afterwards (a checksum each thread or
// block stores, compared with the value the host replays, which depends on every address
// the test read), so a broken test fails instead of reporting a number. Work the compiler
// could prove redundant (a load from an unchanged address, a store a later one overwrites)
// is kept out of the timed loops by construction. Instruction rates come from one CTA per
// SM, the cycles it counts (clock64), checked against %globaltimer; bandwidths from CUDA
// events around the launch; latencies are the median of repeated single operations. Every
// result is checked against a physical bound (the dense bf16 peak, 128 bytes per clock
// through shared memory, the DRAM interface), and one outside it fails the run. The last
// section holds tensor-core loops and TMA streams (from the L2, from DRAM) for seconds each
// while NVML reads board power and clock (the power model of the planner). The whole run
// takes about two minutes.
//
// Exit codes: 0 written, 1 a CUDA call, a checksum or a bound failed (nothing written), 2 bad
// arguments or not a Hopper GPU (the tests use TMA and wgmma, sm_90a only), 77 no GPU.
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clock_witness.cuh"
#include "planner.h"
#include "step_api.h"  // no_gpu_message
#include "tensor_map.h"
#include "tma.cuh"
#include "wgmma.cuh"

#if !defined(LADDER_SOURCE_DIR) || !defined(LADDER_BINARY_DIR)
#error "LADDER_SOURCE_DIR and LADDER_BINARY_DIR must name the repository root and the build folder (common/models/CMakeLists.txt)"
#endif

namespace {

using ladder::arrive_expect_tx;
using ladder::tma_load_2d;
using ladder::wait_barrier;

// ---- Host-side checks -------------------------------------------------------------------
void check(cudaError_t err, const char* call, int line) {
    if (err == cudaSuccess) return;
    std::fprintf(stderr, "ladder-probe: %s (probe.cu:%d) failed: %s\n", call, line, cudaGetErrorString(err));
    std::exit(1);
}
#define CHECK(call) check((call), #call, __LINE__)

void require(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "ladder-probe: check failed: %s (the measured kernel did not do its work)\n", what);
    std::exit(1);
}

// A measured rate above what the hardware can do means the measurement is wrong (work not
// counted, work elided, or time taken over the wrong span): fail instead of writing it.
void require_at_most(double value, double bound, const char* what, const char* why) {
    if (std::isfinite(value) && value > 0 && value <= bound) return;
    std::fprintf(stderr,
                 "ladder-probe: check failed: %s measured %.4g, outside (0, %.4g] (%s); the measurement is "
                 "wrong, nothing written\n",
                 what, value, bound, why);
    std::exit(1);
}

void require_at_least(double value, double bound, const char* what, const char* why) {
    if (std::isfinite(value) && value >= bound) return;
    std::fprintf(stderr, "ladder-probe: check failed: %s measured %.4g, below %.4g (%s); the measurement is wrong, "
                 "nothing written\n", what, value, bound, why);
    std::exit(1);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Milliseconds one launch of `launch` takes, timed with events (the best of `repeats`).
template <typename Launch>
float time_ms(Launch launch, int repeats = 3) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float best = 1e30f;
    for (int r = 0; r < repeats; ++r) {
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, ms);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return best;
}

__device__ __forceinline__ uint64_t globaltimer_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

constexpr uint32_t kOnePair = 0x3f803f80u;  // two bf16 1.0

// Where and when a CTA ran: thread 0 reads the SM's cycle counter and %globaltimer once all
// threads have reached the measured loop and again once all have left it. The CUDA
// Programming Guide documents clock64() as a per-multiprocessor counter, so a rate taken
// from one CTA's cycles is that SM's rate only if no other CTA shared the SM: the host checks
// with %smid that every SM ran exactly one CTA (spans_rate()), and cross-checks the cycles
// against %globaltimer, which all SMs share.
struct CtaSpan {
    long long clock0, clock1, ns0, ns1;
    uint32_t sm, unused;
};

__device__ __forceinline__ void span_begin(CtaSpan* span) {
    __syncthreads();
    if (threadIdx.x == 0) {
        span[blockIdx.x].clock0 = clock64();
        span[blockIdx.x].ns0 = static_cast<long long>(globaltimer_ns());
    }
}

__device__ __forceinline__ void span_end(CtaSpan* span) {
    __syncthreads();
    if (threadIdx.x == 0) {
        span[blockIdx.x].clock1 = clock64();
        span[blockIdx.x].ns1 = static_cast<long long>(globaltimer_ns());
        uint32_t sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        span[blockIdx.x].sm = sm;
    }
}

// ---- 1. mma.sync m16n8k16 bf16 -> f32, operands in registers ------------------------------
// One CTA of 16 warps per SM (4 per scheduler), eight independent accumulators per warp, so
// consecutive mma.sync do not wait on each other. Every product is 1 x 1, so after `iters`
// rounds each accumulator holds 16 * iters. The SASS of the loop is kMmaChains
// HMMA.16816.F32.BF16 per round (unrolled 4 times), nothing else but the loop counter.
constexpr int kMmaChains = 8;
constexpr int kPeakThreads = 512;
__global__ void __launch_bounds__(kPeakThreads, 1) mma_sync_peak(int iters, float* out, CtaSpan* span) {
    const uint32_t a[4] = {kOnePair, kOnePair, kOnePair, kOnePair}, b[2] = {kOnePair, kOnePair};
    float acc[kMmaChains][4] = {};
    span_begin(span);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaChains; ++j) ladder::timed_mma_m16n8k16_bf16(acc[j], a, b);
    }
    span_end(span);
    float sum = 0;
#pragma unroll
    for (int j = 0; j < kMmaChains; ++j) sum += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // 4 * kMmaChains * 16 * iters
}

// ---- 2. wgmma m64n256k16 bf16 -> f32, operands in shared memory ---------------------------
// Two warpgroups, each with its 64x256 fp32 accumulator (128 registers per thread), one CTA
// per SM: the shape of steps 05-07. Shared memory holds bf16 ones, so each wgmma adds 16 to
// every accumulator, exactly while the sums stay at or below 2^28 (fp32's spacing there is 16).
constexpr int kWgmmaOperandBytes = (64 + 256) * 128;  // A 64x64 + B 256x64 bf16
constexpr int kWgmmaMaxIters = 1 << 22;               // 4 wgmma x 16 x 2^22 = 2^28
// The operands: bf16 ones, written by ordinary stores and read by wgmma through the async
// proxy, hence the fence.
__device__ __forceinline__ void fill_operands(uint8_t* operands) {
    uint32_t* words = reinterpret_cast<uint32_t*>(operands);
    for (int i = threadIdx.x; i < kWgmmaOperandBytes / 4; i += blockDim.x) words[i] = kOnePair;
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
}

// One iteration: a k-block of 64 as 4 wgmma m64n256k16 in one commit group, with at most one
// group in flight behind it (steps 05-07's main loop). Adds 4 x 16 = 64 to every accumulator.
__device__ __forceinline__ void wgmma_iteration(float (&acc)[ladder::WGMMA_M64N256_ACC_REGS], uint32_t a_addr,
                                                uint32_t b_addr) {
    ladder::wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k)
        ladder::wgmma_m64n256k16(acc, ladder::smem_descriptor(a_addr + 32 * k),
                                 ladder::smem_descriptor(b_addr + 32 * k), 1);
    ladder::wgmma_commit_group();
    ladder::wgmma_wait_group<1>();
}

__global__ void __launch_bounds__(256, 1) wgmma_peak(int iters, float* out, CtaSpan* span) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    fill_operands(base);
    const uint32_t a_addr = static_cast<uint32_t>(__cvta_generic_to_shared(base));
    const uint32_t b_addr = a_addr + 64 * 128;
    float acc[ladder::WGMMA_M64N256_ACC_REGS];
#pragma unroll
    for (int i = 0; i < ladder::WGMMA_M64N256_ACC_REGS; ++i) acc[i] = 0.0f;
    span_begin(span);
    for (int i = 0; i < iters; ++i) wgmma_iteration(acc, a_addr, b_addr);
    ladder::wgmma_wait_group<0>();
    ladder::fence_accumulators(acc);
    span_end(span);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0] + acc[ladder::WGMMA_M64N256_ACC_REGS - 1];  // 128 * iters
}

// ---- 3. ldmatrix.x4: shared memory -> registers -------------------------------------------
// PTX ISA "ldmatrix": with .x4, lane t names the 16-byte row t % 8 of matrix t / 8, and
// receives in register m the 32-bit word t % 4 of row t / 4 of matrix m (two b16, columns
// 2 (t % 4) and +1, low half first: the word as it lies in memory). The tile holds word w = w,
// so what each lane adds up depends on every address, and the host replays the same rows
// (ldmatrix_expected()). Each warp's 32 rows are 512 contiguous bytes, so each 8-row matrix
// covers all 32 banks once. The rows move by `row_step` (a kernel argument, a multiple of 8)
// every round: ptxas treats ldmatrix as a load, and would reuse the registers of an earlier
// ldmatrix from an address it can prove unchanged instead of loading again.
constexpr int kTileRows = 2048;  // 32 KiB of 16-byte rows
__global__ void __launch_bounds__(kPeakThreads, 1) ldmatrix_peak(int iters, uint32_t row_step, uint32_t* out,
                                                                  CtaSpan* span) {
    extern __shared__ __align__(16) uint32_t tile[];
    for (int i = threadIdx.x; i < kTileRows * 4; i += blockDim.x) tile[i] = static_cast<uint32_t>(i);
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    uint32_t row = threadIdx.x;  // warp w, lane t: row 32 w + t
    uint32_t sum = 0;
    span_begin(span);
    for (int i = 0; i < iters; ++i) {
        uint32_t r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                     : "r"(base + (row % kTileRows) * 16));
        sum += r0 + r1 + r2 + r3;
        row += row_step;
    }
    span_end(span);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// What lane `thread % 32` of every CTA must have summed in ldmatrix_peak (mod 2^32).
uint32_t ldmatrix_expected(int thread, int iters, uint32_t row_step) {
    const int warp_row0 = thread / 32 * 32, t = thread % 32;
    uint32_t sum = 0;
    for (int i = 0; i < iters; ++i)
        for (int m = 0; m < 4; ++m) {
            const uint32_t row = (warp_row0 + 8 * m + t / 4 + static_cast<uint32_t>(i) * row_step) % kTileRows;
            sum += row * 4 + t % 4;
        }
    return sum;
}

// The load tests below read a source matrix of 128-byte rows whose every 32-bit word holds
// its row index, so a checksum of words read from shared memory names the rows that arrived.

// The rate of one SM from the spans of a launch of one CTA per SM: `work` per CTA over its
// cycles, the median over SMs. Fails unless every SM ran exactly one CTA (each of them asks
// for more than half of an SM's shared memory) and unless the same work over the launch's
// %globaltimer span, at the clock the CTAs counted, gives the same rate within 10%: two
// clocks that disagree mean the span does not hold the work. `clock_mhz` gets the median
// over CTAs of cycles per nanosecond.
double spans_rate(const std::vector<CtaSpan>& spans, int sms, double work, const char* what, double* clock_mhz) {
    std::vector<uint32_t> ids;
    std::vector<double> rates, clocks;
    long long first_ns = spans[0].ns0, last_ns = spans[0].ns1;
    for (const CtaSpan& s : spans) {
        if (s.clock1 <= s.clock0 || s.ns1 <= s.ns0) {
            std::fprintf(stderr, "ladder-probe: check failed: %s: a CTA's clock64 or %%globaltimer did not advance\n",
                         what);
            std::exit(1);
        }
        ids.push_back(s.sm);
        rates.push_back(work / static_cast<double>(s.clock1 - s.clock0));
        clocks.push_back(static_cast<double>(s.clock1 - s.clock0) / static_cast<double>(s.ns1 - s.ns0) * 1e3);
        first_ns = std::min(first_ns, s.ns0);
        last_ns = std::max(last_ns, s.ns1);
    }
    std::sort(ids.begin(), ids.end());
    if (static_cast<int>(spans.size()) != sms || std::adjacent_find(ids.begin(), ids.end()) != ids.end()) {
        std::fprintf(stderr, "ladder-probe: check failed: %s: %zu CTAs on %d SMs, not one CTA on each SM\n", what,
                     spans.size(), sms);
        std::exit(1);
    }
    const double rate = median(rates);
    *clock_mhz = median(clocks);
    const double wall_rate = work * sms / (static_cast<double>(last_ns - first_ns) * *clock_mhz * 1e-3) / sms;
    if (!(std::fabs(wall_rate / rate - 1.0) <= 0.10)) {
        std::fprintf(stderr,
                     "ladder-probe: check failed: %s: %.4g per clock per SM from clock64, %.4g from %%globaltimer at "
                     "%.0f MHz; the timed span does not hold the work\n",
                     what, rate, wall_rate, *clock_mhz);
        std::exit(1);
    }
    return rate;
}

// ---- 4. L2 -> shared memory with TMA, a ring of 32 KiB boxes -------------------------------
// STAGES boxes in flight per SM: 4 (128 KiB, as step 07's 128x256 tile holds) and 6 (192
// KiB): with too few in flight the rate is the bytes in flight over the L2's latency under
// load, not the L2's bandwidth, so the probe takes the larger.
// Thread 0 adds one word of each box it waited for, one of the first four of the box's row 0
// (the 128B swizzle leaves row 0 of each 1024-byte block in place, and the box starts
// 1024-byte aligned); the host replays the box sequence.
constexpr int kStages = 4;       // cp.async's ring (section 5)
constexpr int kMostStages = 6;   // TMA's deepest ring here
constexpr int kBoxRows = 256, kBoxCols = 64;  // 256 x 128 bytes = 32 KiB, step 05-07's B box
constexpr uint32_t kBoxBytes = kBoxRows * kBoxCols * 2;
constexpr int ring_smem(int stages) { return 1024 + stages * static_cast<int>(kBoxBytes); }
static_assert(ring_smem(kMostStages) <= 227 * 1024, "the deepest ring fits in one CTA's shared memory");

// The stream itself, run by one thread: `iters` boxes through a ring of STAGES, each waited
// for and one word of it added. Each group of `group` CTAs starts at its own box, `spacing`
// boxes after the previous group's, and walks the same boxes: 1, every CTA reads its own
// lines (as no GEMM does); 8, eight SMs read each line at about the same time, as the CTAs of
// one row of a GEMM's tile grid read the same A tile. The DRAM stream of section 9 reads a
// matrix larger than the L2 as a GEMM's CTA reads an operand: `row_boxes` boxes across each
// 256-row slab (a K loop), slab after slab, each CTA round and round its own stretch
// (`spacing` boxes from the previous CTA's, `stretch` long), so that no other CTA reads a box
// while it is in the L2.
constexpr int kBoxSpacing = 7;
// Box `box` of the walk: its first column and first row (row_boxes boxes across a slab).
__host__ __device__ __forceinline__ int box_column(int box, int row_boxes) { return box % row_boxes * kBoxCols; }
__host__ __device__ __forceinline__ int box_row(int box, int row_boxes) { return box / row_boxes * kBoxRows; }
template <int STAGES>
__device__ __forceinline__ uint32_t stream_boxes(const CUtensorMap& map, uint8_t* base, uint64_t* full, int rows,
                                                 int iters, int group, int spacing = kBoxSpacing,
                                                 int row_boxes = 1, int stretch = 0) {
    const int boxes = rows / kBoxRows * row_boxes;
    const int first = static_cast<int>(static_cast<long long>(blockIdx.x / group) * spacing % boxes);
    int box = first, walked = 0;
    uint32_t sum = 0;
    const int total = iters + STAGES;
    for (int i = 0; i < total; ++i) {
        const int s = i % STAGES;
        if (i >= STAGES) {
            wait_barrier(&full[s], static_cast<uint32_t>((i / STAGES - 1) & 1), "probe tma_stream");
            sum += *reinterpret_cast<volatile uint32_t*>(base + s * kBoxBytes + (i % 4) * 4);
        }
        if (i < iters) {
            arrive_expect_tx(&full[s], kBoxBytes);
            tma_load_2d(base + s * kBoxBytes, &map, box_column(box, row_boxes), box_row(box, row_boxes), &full[s]);
            // With a stretch, back to its first box after `stretch` boxes: a CTA that walked on
            // into the next CTA's stretch would soon trail that CTA and find its boxes in the L2.
            ++walked;
            box = stretch > 0 ? first + walked % stretch : (box + 1) % boxes;
        }
    }
    return sum;
}

template <int STAGES>
__global__ void __launch_bounds__(32) tma_stream(const __grid_constant__ CUtensorMap map, int rows, int iters,
                                                 int group, uint32_t* out, int spacing = kBoxSpacing,
                                                 int row_boxes = 1, int stretch = 0) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    __shared__ uint64_t full[STAGES];
    if (threadIdx.x != 0) return;
    for (int s = 0; s < STAGES; ++s) cuda::ptx::mbarrier_init(&full[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    out[blockIdx.x] = stream_boxes<STAGES>(map, base, full, rows, iters, group, spacing, row_boxes,
                                           stretch);  // tma_stream_expected()
}

uint32_t tma_stream_expected(int block, int rows, int iters, int stages, int group) {
    const int boxes = rows / kBoxRows;
    uint32_t sum = 0;
    for (int i = stages; i < iters + stages; ++i) {
        const int box = (block / group * kBoxSpacing + (i - stages)) % boxes;
        sum += static_cast<uint32_t>(box * kBoxRows);
    }
    return sum;
}

// The memory streams of section 9 read matrices of random words (a GEMM's operands toggle
// the wires as random data does; row indices would barely): word i of the matrix, counted
// row by row, is stream_word(i).
__host__ __device__ __forceinline__ uint32_t stream_word(uint64_t i) {
    uint64_t z = i + 0x9e3779b97f4a7c15ull;  // splitmix64's finalizer
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<uint32_t>(z ^ (z >> 31));
}

// tma_stream_expected() for such a matrix (group 1): the word stream_boxes adds at step i is
// word i % 4 of the box's first row.
uint32_t random_stream_expected(int block, int rows, int iters, int stages, int spacing, int row_boxes,
                                int words_per_row, int stretch) {
    const int boxes = rows / kBoxRows * row_boxes;
    const long long first = static_cast<long long>(block) * spacing % boxes;
    uint32_t sum = 0;
    for (int i = stages; i < iters + stages; ++i) {
        const int box = static_cast<int>(stretch > 0 ? first + (i - stages) % stretch : (first + (i - stages)) % boxes);
        const uint64_t row = static_cast<uint64_t>(box_row(box, row_boxes));
        sum += stream_word(row * words_per_row + box_column(box, row_boxes) / 2 + i % 4);
    }
    return sum;
}

// ---- 4b. The same stream while the SM's tensor cores run -----------------------------------
// A GEMM's boxes arrive while its wgmma run, and the L2 -> SM feed is slower then than
// tma_stream alone measures (on the H200, 11-12.6 TB/s against 18.3 with 8 SMs reading each
// line: results/h200/step07_experiments/smem_port_wgmma_tma.log). One CTA of three
// warpgroups per SM: warpgroup 0's first thread streams the boxes exactly as tma_stream
// does (same checksum), warpgroups 1 and 2 run wgmma_peak's iterations on fixed operands
// until the last box has landed: acc[0] = 64 x the iterations a warpgroup ran, which the
// host checks.
constexpr int kLoadedThreads = 384;
constexpr int loaded_smem() { return ring_smem(kStages) + kWgmmaOperandBytes; }
static_assert(loaded_smem() <= 227 * 1024, "the ring and the wgmma operands fit one CTA's shared memory");

__global__ void __launch_bounds__(kLoadedThreads, 1) tma_stream_loaded(const __grid_constant__ CUtensorMap map,
                                                                        int rows, int iters, int group,
                                                                        uint32_t* out, float* acc_out,
                                                                        uint32_t* mma_iters) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    uint8_t* operands = base + kStages * kBoxBytes;  // 1024-aligned: kBoxBytes is 32 KiB
    __shared__ uint64_t full[kStages];
    __shared__ volatile int streaming;
    fill_operands(operands);
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) cuda::ptx::mbarrier_init(&full[s], 1);
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
        streaming = 1;
    }
    __syncthreads();
    const int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        if (threadIdx.x != 0) return;
        out[blockIdx.x] = stream_boxes<kStages>(map, base, full, rows, iters, group);  // as tma_stream
        streaming = 0;
        return;
    }
    const uint32_t a_addr = static_cast<uint32_t>(__cvta_generic_to_shared(operands));
    const uint32_t b_addr = a_addr + 64 * 128;
    float acc[ladder::WGMMA_M64N256_ACC_REGS];
#pragma unroll
    for (int i = 0; i < ladder::WGMMA_M64N256_ACC_REGS; ++i) acc[i] = 0.0f;
    // wgmma is .sync.aligned: the 128 threads of a warpgroup issue it together, so whether to
    // go on is decided once per warpgroup, every 4 iterations (about 2 us, against a stream of
    // about a millisecond): its first thread reads the flag, and a named barrier (PTX ISA
    // "bar.sync", id 1 + consumer, 128 threads) hands it to the others; the second barrier
    // keeps the first thread from overwriting it before all have read it.
    const int consumer = warpgroup - 1;
    __shared__ int go_on[2];
    uint32_t n = 0;
    for (;;) {
        if (threadIdx.x % 128 == 0) go_on[consumer] = streaming;
        asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
        const bool more = go_on[consumer] != 0;
        asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
        if (!more) break;
        for (int j = 0; j < 4; ++j, ++n) wgmma_iteration(acc, a_addr, b_addr);
    }
    ladder::wgmma_wait_group<0>();
    ladder::fence_accumulators(acc);
    if (threadIdx.x % 128 == 0) {
        acc_out[blockIdx.x * 2 + consumer] = acc[0];
        mma_iters[blockIdx.x * 2 + consumer] = n;
    }
}

// ---- 5. L2 -> shared memory with cp.async (16 bytes per thread and instruction) -----------
__global__ void __launch_bounds__(256) cp_async_stream(const uint4* src, int chunks, int iters, uint32_t* out) {
    extern __shared__ uint8_t smem_raw[];
    uint4* ring = reinterpret_cast<uint4*>(smem_raw);
    constexpr int kChunksPerStage = kBoxBytes / 16;  // 2048 chunks, 8 per thread
    int start = static_cast<int>(blockIdx.x * 7 * kChunksPerStage) % chunks;
    auto load = [&](int stage, int first) {
        for (int c = threadIdx.x; c < kChunksPerStage; c += blockDim.x) {
            const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(ring + stage * kChunksPerStage + c));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + (first + c) % chunks));
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    };
    for (int s = 0; s < kStages - 1; ++s) load(s, start + s * kChunksPerStage);
    uint32_t sum = 0;
    for (int i = 0; i < iters; ++i) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(kStages - 2) : "memory");
        __syncthreads();  // every thread's part of stage i has landed; stage i-1 is free
        sum += reinterpret_cast<const uint32_t*>(ring + (i % kStages) * kChunksPerStage)[threadIdx.x];
        load((i + kStages - 1) % kStages, start + (i + kStages - 1) * kChunksPerStage);
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // cp_async_expected()
}

// Word t of stage i lies in 16-byte chunk (first_i + t / 4) % chunks, of row chunk / 8.
uint32_t cp_async_expected(int block, int thread, int chunks, int iters) {
    constexpr int kChunksPerStage = kBoxBytes / 16;
    const int start = block * 7 * kChunksPerStage % chunks;
    uint32_t sum = 0;
    for (int i = 0; i < iters; ++i) sum += static_cast<uint32_t>((start + i * kChunksPerStage + thread / 4) % chunks / 8);
    return sum;
}

// ---- 6. Latencies: one operation in flight, clock64 around it -----------------------------
constexpr int kLatencySamples = 64;
__global__ void latencies(const __grid_constant__ CUtensorMap small_map, const uint4* src, long long* tma,
                          long long* cp_async, long long* mbarrier, uint32_t* out) {
    __shared__ __align__(1024) uint8_t box[8 * 128];  // an 8 x 64 bf16 box: 1 KiB
    __shared__ __align__(16) uint4 chunk;
    __shared__ uint64_t bar, round_trip;
    if (threadIdx.x != 0) return;
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::mbarrier_init(&round_trip, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    uint32_t sum = 0;
    // The first copy brings the box into L2; the samples after it hit L2, as the steps'
    // k-blocks mostly do.
    for (int i = 0; i <= kLatencySamples; ++i) {
        const long long t0 = clock64();
        arrive_expect_tx(&bar, 8 * 128);
        tma_load_2d(box, &small_map, 0, 8 * (1 + i % 4), &bar);  // rows 8, 16, 24, 32
        wait_barrier(&bar, static_cast<uint32_t>(i & 1), "probe latency");
        const long long t1 = clock64();
        sum += *reinterpret_cast<volatile uint32_t*>(box + 4 * (i % 32));  // a word of row 0 of the box
        if (i > 0) tma[i - 1] = t1 - t0;
    }
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&chunk));
    for (int i = 0; i <= kLatencySamples; ++i) {
        const long long t0 = clock64();
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + 8 * (1 + i % 2)));  // rows 1, 2
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        const long long t1 = clock64();
        sum += reinterpret_cast<volatile uint32_t*>(&chunk)[0];
        if (i > 0) cp_async[i - 1] = t1 - t0;
    }
    // Arrive, then wait for the phase that arrival completes: one trip through the barrier
    // unit, what each k-block of the steps pays for its full and empty barriers.
    for (int i = 0; i < kLatencySamples; ++i) {
        const long long t0 = clock64();
        (void)cuda::ptx::mbarrier_arrive(&round_trip);
        wait_barrier(&round_trip, static_cast<uint32_t>(i & 1), "probe mbarrier");
        mbarrier[i] = clock64() - t0;
    }
    out[0] = sum;  // latencies_expected()
}

// One TMA box of a matrix whose rows lie 8 KiB apart (a GEMM operand with K = 4096), from
// lines no kernel has touched since they left the L2: sample i loads the 8 x 64 box at row
// i x kDramLatencyRowStep, each in its own stretch of the matrix, so each comes from DRAM.
// What the first fill of a GEMM waits for: a benchmark's inputs are never in the L2.
constexpr int kDramLatencyRowStep = 1024;  // 8 MiB apart
__global__ void dram_latency(const __grid_constant__ CUtensorMap map, long long* tma, uint32_t* out) {
    __shared__ __align__(1024) uint8_t box[8 * 128];
    __shared__ uint64_t bar;
    if (threadIdx.x != 0) return;
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    uint32_t sum = 0;
    for (int i = 0; i < kLatencySamples; ++i) {
        const long long t0 = clock64();
        arrive_expect_tx(&bar, 8 * 128);
        tma_load_2d(box, &map, 0, i * kDramLatencyRowStep, &bar);
        wait_barrier(&bar, static_cast<uint32_t>(i & 1), "probe DRAM latency");
        const long long t1 = clock64();
        sum += *reinterpret_cast<volatile uint32_t*>(box + 4 * (i % 32));
        tma[i] = t1 - t0;
    }
    out[0] = sum;  // kLatencySamples x the fill word
}

uint32_t latencies_expected() {
    uint32_t sum = 0;
    for (int i = 0; i <= kLatencySamples; ++i) sum += 8 * (1 + i % 4) + (1 + i % 2);
    return sum;
}

// ---- 7. Storing C: 16-byte rows, 4-byte accumulator pairs, TMA stores ---------------------
// Each CTA writes its own slice of a 48 MiB buffer `reps` times, the last time with the
// value `reps`, which the host checks. The stores are inline PTX: an ordinary store that a
// later pass overwrites is a dead store the compiler may drop, and then only the last pass
// would be timed.
__device__ __forceinline__ void store_global(uint4* p, uint32_t v) {
    asm volatile("st.global.v4.u32 [%0], {%1,%1,%1,%1};" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void store_global(uint32_t* p, uint32_t v) {
    asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void __launch_bounds__(256) store16(uint4* dst, long long per_cta, int reps) {
    uint4* slice = dst + blockIdx.x * per_cta;
    for (int r = 1; r <= reps; ++r)
        for (long long i = threadIdx.x; i < per_cta; i += blockDim.x) store_global(slice + i, r);
}

// The mma.sync / wgmma accumulator layout: lane l holds two adjacent bf16 of row l/4, so one
// warp instruction writes 8 rows x 16 bytes. A warp walks a 64-column (128-byte) row block.
__global__ void __launch_bounds__(256) store4(uint32_t* dst, long long per_cta, int reps) {
    uint32_t* slice = dst + blockIdx.x * per_cta;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    const long long blocks = per_cta / (8 * 32);  // 8 rows x 32 words (128 bytes) each
    for (int r = 1; r <= reps; ++r)
        for (long long b = warp; b < blocks; b += warps)
#pragma unroll
            for (int col = 0; col < 32; col += 4) store_global(slice + b * 256 + (lane / 4) * 32 + col + lane % 4, r);
}

constexpr int kStoreBoxRows = 128, kStoreBoxCols = 64;  // 16 KiB, a quarter of a 128x256 C tile
__global__ void __launch_bounds__(128) tma_store(const __grid_constant__ CUtensorMap map, int rows_per_cta, int reps) {
    __shared__ __align__(1024) uint32_t tile[kStoreBoxRows * kStoreBoxCols / 2];
    for (int r = 1; r <= reps; ++r) {
        if (threadIdx.x == 0) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
        __syncthreads();
        for (int i = threadIdx.x; i < kStoreBoxRows * kStoreBoxCols / 2; i += blockDim.x) tile[i] = r;
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // generic writes -> TMA reads
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int row = 0; row < rows_per_cta; row += kStoreBoxRows) {
                const int32_t coords[2] = {0, static_cast<int32_t>(blockIdx.x * rows_per_cta + row)};
                cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &map, coords, tile);
            }
            cuda::ptx::cp_async_bulk_commit_group();
        }
    }
    if (threadIdx.x == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
}

// ---- 9. Power: tensor-core loops held for seconds, with NVML reading power and clock -------
// The same wgmma k-block as section 2, on operands that are all zero or random bf16 in
// [-1, 1) (what a benchmark's "zero" and "uniform" inputs feed the tensor cores), optionally
// followed by `gap_clk` cycles of waiting so that the tensor pipe is busy only part of the
// time. The loop runs a fixed count of k-blocks sized on the host to last a few seconds, long
// enough for the board's power limiter to settle the clock. Every CTA computes the same
// product, so every CTA's accumulators must agree (the host checks).
__device__ __forceinline__ uint32_t operand_hash(uint32_t i) {
    i ^= i >> 16, i *= 0x7feb352du, i ^= i >> 15, i *= 0x846ca68bu, i ^= i >> 16;
    return i;
}

// A bf16 in [-1, 1) from 8 random mantissa bits and an exponent of 2^-1..2^-8, or 0.
__device__ __forceinline__ uint16_t random_bf16(uint32_t i, bool zero) {
    if (zero) return 0;
    const uint32_t h = operand_hash(i);
    const uint32_t sign = (h >> 31) << 15, exponent = 126 - (h >> 28 & 7), mantissa = h & 0x7f;
    return static_cast<uint16_t>(sign | exponent << 7 | mantissa);
}

__global__ void __launch_bounds__(256, 1) wgmma_sustained(long long iters, int gap_clk, int zero, float* out,
                                                          CtaSpan* span) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    uint16_t* halves = reinterpret_cast<uint16_t*>(base);
    for (int i = threadIdx.x; i < kWgmmaOperandBytes / 2; i += blockDim.x) halves[i] = random_bf16(i, zero != 0);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    const uint32_t a_addr = static_cast<uint32_t>(__cvta_generic_to_shared(base));
    const uint32_t b_addr = a_addr + 64 * 128;
    float acc[ladder::WGMMA_M64N256_ACC_REGS];
#pragma unroll
    for (int i = 0; i < ladder::WGMMA_M64N256_ACC_REGS; ++i) acc[i] = 0.0f;
    span_begin(span);
    for (long long i = 0; i < iters; ++i) {
        wgmma_iteration(acc, a_addr, b_addr);
        if (gap_clk > 0) {
            // The wait starts once this k-block's wgmma are done, so the tensor pipe idles
            // through it (wait_group 1 alone would leave them running beside the wait).
            ladder::wgmma_wait_group<0>();
            const long long t0 = clock64();
            while (clock64() - t0 < gap_clk) {
            }
        }
    }
    ladder::wgmma_wait_group<0>();
    ladder::fence_accumulators(acc);
    span_end(span);
    float sum = 0;
#pragma unroll
    for (int i = 0; i < ladder::WGMMA_M64N256_ACC_REGS; ++i) sum += acc[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// mma.sync m16n8k16 as in section 1, each of the 8 chains on its own operand registers
// (random bf16 or zeros, the same in every warp), so that consecutive MMAs see other data.
__global__ void __launch_bounds__(kPeakThreads, 1) mma_sync_sustained(long long iters, int zero, float* out,
                                                                       CtaSpan* span) {
    const int lane = threadIdx.x % 32;
    uint32_t a[kMmaChains][4], b[kMmaChains][2];
#pragma unroll
    for (int j = 0; j < kMmaChains; ++j) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
            a[j][r] = random_bf16((j * 6 + r) * 64 + 2 * lane, zero != 0) |
                      uint32_t{random_bf16((j * 6 + r) * 64 + 2 * lane + 1, zero != 0)} << 16;
#pragma unroll
        for (int r = 0; r < 2; ++r)
            b[j][r] = random_bf16((j * 6 + 4 + r) * 64 + 2 * lane, zero != 0) |
                      uint32_t{random_bf16((j * 6 + 4 + r) * 64 + 2 * lane + 1, zero != 0)} << 16;
    }
    float acc[kMmaChains][4] = {};
    span_begin(span);
    for (long long i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaChains; ++j) ladder::timed_mma_m16n8k16_bf16(acc[j], a[j], b[j]);
    }
    span_end(span);
    float sum = 0;
#pragma unroll
    for (int j = 0; j < kMmaChains; ++j) sum += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void empty_kernel() {}

// One warp per SM waiting out `cycles` of its SM's clock: the memory streams' baseline, a
// kernel on every SM whose warp issues a little and moves no bytes (as tma_stream's thread
// does while it waits on its barriers).
__global__ void __launch_bounds__(32) spin(long long cycles, long long* spun) {
    const long long t0 = clock64();
    long long t = t0;
    while (t - t0 < cycles) t = clock64();
    if (threadIdx.x == 0) spun[blockIdx.x] = t - t0;
}

// The memory streams' matrices: word i is stream_word(i).
__global__ void fill_random_words(uint32_t* p, size_t words) {
    for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < words; i += size_t{gridDim.x} * blockDim.x)
        p[i] = stream_word(i);
}

// Counts the words of p[0, words) that differ from `value` (the DRAM copy's check: reading a
// GiB back to the host would take longer than the copy).
__global__ void count_mismatches(const uint32_t* p, size_t words, uint32_t value, unsigned long long* bad) {
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < words; i += size_t{gridDim.x} * blockDim.x)
        mine += p[i] != value;
    if (mine != 0) atomicAdd(bad, mine);
}

// ---- NVML, opened at run time --------------------------------------------------------------
// libnvidia-ml ships with the driver, not the toolkit, so the probe opens it with dlopen
// instead of linking it: a build machine without a driver still builds the probe.
struct Nvml {
    using InitFn = int (*)();
    using ByPciFn = int (*)(const char*, void**);
    using UnsignedFn = int (*)(void*, unsigned*);
    using ClockFn = int (*)(void*, int, unsigned*);
    void* device = nullptr;
    UnsignedFn power_mw = nullptr, limit_mw = nullptr;
    ClockFn clock_mhz = nullptr;
    static constexpr int kClockSm = 1;  // NVML_CLOCK_SM

    // False with *error naming what is missing.
    bool open(int cuda_device, std::string* error) {
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
        if (lib == nullptr) {
            *error = "cannot open libnvidia-ml.so.1 (NVML, installed with the NVIDIA driver)";
            return false;
        }
        const auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
        const auto by_pci = reinterpret_cast<ByPciFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
        power_mw = reinterpret_cast<UnsignedFn>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
        limit_mw = reinterpret_cast<UnsignedFn>(dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit"));
        clock_mhz = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
        if (!init || !by_pci || !power_mw || !limit_mw || !clock_mhz) {
            *error = "libnvidia-ml.so.1 lacks an NVML function the probe needs";
            return false;
        }
        char bus_id[32] = {};
        if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess || init() != 0 ||
            by_pci(bus_id, &device) != 0) {
            *error = "NVML cannot find the CUDA device (PCI bus " + std::string(bus_id) + ")";
            return false;
        }
        return true;
    }
    double power_w() const {
        unsigned mw = 0;
        return power_mw(device, &mw) == 0 ? mw * 1e-3 : 0.0;
    }
    double limit_w() const {
        unsigned mw = 0;
        return limit_mw(device, &mw) == 0 ? mw * 1e-3 : 0.0;
    }
    double sm_mhz() const {
        unsigned mhz = 0;
        return clock_mhz(device, kClockSm, &mhz) == 0 ? static_cast<double>(mhz) : 0.0;
    }
};

// Board power and SM clock while a kernel runs: NVML's power reading is an average over the
// last second (Ampere and later), so both are sampled every 50 ms from `settle_s` after the
// launch until the kernel ends, and the medians kept.
struct Sustained {
    double power_w = 0, clock_mhz = 0, seconds = 0;
    int samples = 0;
};

template <typename Launch>
Sustained sample_while(const Nvml& nvml, Launch launch, double settle_s) {
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(done));
    std::vector<double> power, clock;
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    while (cudaEventQuery(done) == cudaErrorNotReady) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (elapsed() < settle_s || cudaEventQuery(done) != cudaErrorNotReady) continue;
        power.push_back(nvml.power_w());
        clock.push_back(nvml.sm_mhz());
    }
    // cudaEventQuery's cudaErrorNotReady is a status, not an error; clear it so that the next
    // launch's cudaGetLastError() sees only that launch.
    (void)cudaGetLastError();
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaEventDestroy(done));
    Sustained s;
    s.seconds = elapsed();
    s.samples = static_cast<int>(power.size());
    s.power_w = median(power);
    s.clock_mhz = median(clock);
    return s;
}

// ---- The machine file ---------------------------------------------------------------------
struct Constant {
    std::string key;
    double value;
    std::string unit, how;
};

std::string json_escape(const std::string& text) {
    std::string out;
    for (char ch : text) {
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch;
    }
    return out;
}

bool write_machine_file(const std::string& path, const cudaDeviceProp& prop, const std::vector<Constant>& constants,
                        std::string* error) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        *error = "cannot write '" + path + "': " + std::strerror(errno);
        return false;
    }
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    std::fprintf(f, "{\n  \"device\": \"%s\",\n", json_escape(prop.name).c_str());
    std::fprintf(f, "  \"written_by\": \"ladder-probe (common/models/probe.cu)\",\n");
    std::fprintf(f, "  \"cuda_runtime\": %d,\n  \"cuda_driver\": %d,\n", runtime, driver);
    std::fprintf(f, "  \"constants\": {\n");
    for (size_t i = 0; i < constants.size(); ++i) {
        const Constant& c = constants[i];
        std::fprintf(f, "    \"%s\": {\"value\": %.6g, \"unit\": \"%s\", \"measured\": true, \"how\": \"%s\"}%s\n",
                     c.key.c_str(), c.value, json_escape(c.unit).c_str(), json_escape(c.how).c_str(),
                     i + 1 < constants.size() ? "," : "");
    }
    std::fprintf(f, "  }\n}\n");
    const bool ok = std::fclose(f) == 0;
    if (!ok) *error = "cannot finish writing '" + path + "'";
    return ok;
}

// ---- --clock-trace: the clock of a benchmark loop, three ways ------------------------------
// (common/models/README.md, "What NVML's clock is not".) Loops shaped like the benchmark's
// (harness.cu, time_alternating): batches of 32 pairs of launches behind a hold of 1.92 ms,
// each launch section 9's wgmma loop on every SM for about 190 us (as long as step 07 takes at
// 4096^3), 500 pairs; then the same launches back to back for 4 s. Three readings: per launch,
// the cycles its SMs counted over %globaltimer (its CtaSpans); after each batch, the
// benchmark's witness (clock_witness.cuh); every millisecond, NVML's SM clock and power from
// a thread. Rows: loop (quoted), source (launch, witness, nvml), seconds from the loop's first
// launch (a witness: its number), MHz, the launch's event time, the board power.
__global__ void hold_ns(long long ns) {
    const long long t0 = static_cast<long long>(globaltimer_ns());
    while (static_cast<long long>(globaltimer_ns()) - t0 < ns) {
    }
}

__global__ void read_globaltimer(long long* out) { *out = static_cast<long long>(globaltimer_ns()); }

long long realtime_ns() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct TraceLoop {
    const char* name;
    int zero, pairs;
    bool held;  // batches behind a hold, as the benchmark's loop; else back to back
};

int clock_trace(const std::string& path, int sms, int smem) {
    Nvml nvml;
    std::string error;
    if (!nvml.open(0, &error)) {
        std::fprintf(stderr, "ladder-probe: %s; the clock trace needs it. Nothing written.\n", error.c_str());
        return 1;
    }
    CHECK(cudaFuncSetAttribute(wgmma_sustained, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    constexpr int kBatch = 32, kMaxPairs = 12000;
    float* fout = nullptr;
    CtaSpan* spans = nullptr;
    ladder::WitnessSpan* witness = nullptr;
    long long* stamp = nullptr;
    CHECK(cudaMalloc(&fout, sms * 256 * sizeof(float)));
    CHECK(cudaMalloc(&spans, size_t{2} * kMaxPairs * sms * sizeof(CtaSpan)));
    CHECK(cudaMalloc(&witness, (kMaxPairs / kBatch + 1) * sizeof(ladder::WitnessSpan)));
    CHECK(cudaMalloc(&stamp, sizeof(long long)));
    // %globaltimer against the host's realtime clock: the launch with the shortest round trip.
    long long offset = 0, best = 1LL << 62;
    for (int i = 0; i < 20; ++i) {
        const long long h0 = realtime_ns();
        read_globaltimer<<<1, 1>>>(stamp);
        CHECK(cudaDeviceSynchronize());
        const long long h1 = realtime_ns();
        long long g = 0;
        CHECK(cudaMemcpy(&g, stamp, sizeof g, cudaMemcpyDeviceToHost));
        if (h1 - h0 < best) best = h1 - h0, offset = g - (h0 + h1) / 2;
    }
    // Launches of about 190 us at the unthrottled clock (zero operands draw too little to be
    // throttled).
    const long long trial = 2000;
    const float trial_ms = time_ms([&] { wgmma_sustained<<<sms, 256, smem>>>(trial, 0, 1, fout, spans); }, 3);
    const long long iters = std::max(1LL, static_cast<long long>(trial * 0.19 / trial_ms));
    const TraceLoop loops[] = {{"random, benchmark loop", 0, 500, true},
                               {"zero, benchmark loop", 1, 500, true},
                               {"random, back to back", 0, kMaxPairs, false}};
    std::ofstream out(path);
    out << "loop,source,t_s,mhz,event_ms,power_w\n";
    std::printf("clock trace on %d SMs, launches of %lld k-blocks; globaltimer - realtime = %lld ns (+- %lld)\n",
                sms, iters, offset, best / 2);
    for (const TraceLoop& loop : loops) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // from an idle board
        struct Sample {
            long long t;
            double mhz, watts;
        };
        std::vector<Sample> samples;
        samples.reserve(20000);
        std::atomic<bool> stop{false};
        std::thread sampler([&] {
            while (!stop.load()) {
                samples.push_back({realtime_ns(), nvml.sm_mhz(), nvml.power_w()});
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        const int launches = 2 * loop.pairs;
        std::vector<cudaEvent_t> events(2 * launches);
        for (cudaEvent_t& e : events) CHECK(cudaEventCreate(&e));
        const long long t0 = realtime_ns();
        int witnesses = 0;
        for (int first = 0; first < loop.pairs; first += kBatch) {
            const int last = std::min(loop.pairs, first + kBatch);
            if (loop.held) hold_ns<<<1, 1>>>(30000LL * 2 * (last - first));
            for (int l = 2 * first; l < 2 * last; ++l) {
                CHECK(cudaEventRecord(events[2 * l]));
                wgmma_sustained<<<sms, 256, smem>>>(iters, 0, loop.zero, fout, spans + size_t{1} * l * sms);
                CHECK(cudaEventRecord(events[2 * l + 1]));
            }
            ladder::clock_witness_kernel<<<1, ladder::kWitnessThreads>>>(witness + witnesses++, fout);
        }
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        const long long t_end = realtime_ns();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        stop = true;
        sampler.join();
        std::vector<CtaSpan> hs(size_t{1} * launches * sms);
        std::vector<ladder::WitnessSpan> hw(witnesses);
        CHECK(cudaMemcpy(hs.data(), spans, hs.size() * sizeof(CtaSpan), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hw.data(), witness, hw.size() * sizeof(ladder::WitnessSpan), cudaMemcpyDeviceToHost));
        // Per launch: all its SMs' cycles over all their nanoseconds, at the mean of their midpoints.
        std::vector<double> launch_mhz(launches);
        double launch_sum = 0, witness_sum = 0, after_sum = 0;
        for (int l = 0; l < launches; ++l) {
            double cycles = 0, ns = 0, mid = 0;
            for (int s = 0; s < sms; ++s) {
                const CtaSpan& x = hs[size_t{1} * l * sms + s];
                require(x.ns1 > x.ns0 && x.clock1 > x.clock0, "clock trace: every CTA's span advanced");
                cycles += static_cast<double>(x.clock1 - x.clock0), ns += static_cast<double>(x.ns1 - x.ns0);
                mid += 0.5 * static_cast<double>(x.ns0 + x.ns1);
            }
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, events[2 * l], events[2 * l + 1]));
            launch_mhz[l] = cycles / ns * 1e3;
            launch_sum += launch_mhz[l];
            char line[160];
            std::snprintf(line, sizeof line, "\"%s\",launch,%.6f,%.1f,%.4f,\n", loop.name,
                          (mid / sms - static_cast<double>(offset + t0)) * 1e-9, launch_mhz[l], ms);
            out << line;
        }
        for (int w = 0; w < witnesses; ++w) {
            require(hw[w].ns > 0 && hw[w].cycles > 0, "clock trace: every witness's span advanced");
            const double mhz = static_cast<double>(hw[w].cycles) / static_cast<double>(hw[w].ns) * 1e3;
            // The launch the witness followed: the last of its batch.
            const int before = std::min(launches, 2 * kBatch * (w + 1)) - 1;
            witness_sum += mhz, after_sum += launch_mhz[before];
            char line[160];
            std::snprintf(line, sizeof line, "\"%s\",witness,%d,%.1f,,\n", loop.name, w, mhz);
            out << line;
        }
        double nvml_sum = 0;
        int nvml_count = 0;
        for (const Sample& s : samples) {
            char line[160];
            std::snprintf(line, sizeof line, "\"%s\",nvml,%.6f,%.0f,,%.1f\n", loop.name, (s.t - t0) * 1e-9, s.mhz, s.watts);
            out << line;
            if (s.t >= t0 && s.t <= t_end) nvml_sum += s.mhz, ++nvml_count;
        }
        for (cudaEvent_t& e : events) CHECK(cudaEventDestroy(e));
        std::printf("  %-24s %5d launches at %4.0f MHz as their SMs count it; %3d witnesses at %4.0f MHz (%+.2f%% "
                    "against the launch before each); NVML %4.0f MHz (mean of %d samples)\n",
                    loop.name, launches, launch_sum / launches, witnesses, witness_sum / witnesses,
                    100 * (witness_sum / after_sum - 1), nvml_count ? nvml_sum / nvml_count : 0.0, nvml_count);
    }
    CHECK(cudaFree(fout));
    CHECK(cudaFree(spans));
    CHECK(cudaFree(witness));
    CHECK(cudaFree(stamp));
    out.close();
    if (!out) {
        std::fprintf(stderr, "ladder-probe: writing %s failed\n", path.c_str());
        return 1;
    }
    std::printf("wrote %s\n", path.c_str());
    return 0;
}

std::string usage() {
    return "usage: ladder-probe [--out FILE] | --clock-trace FILE\n"
           "Measures the constants of the planner's time model on the GPU at hand (a Hopper GPU)\n"
           "and writes them to FILE (default: results/<gpu>/machine.json in the source tree it was\n"
           "built from, or ./machine.json for an installed probe). It takes about a minute.\n"
           "--clock-trace FILE: instead, traces the SM clock through loops shaped like the\n"
           "benchmark's, as the SMs count it, as the benchmark's witness counts it and as NVML\n"
           "reports it, into the CSV FILE (about 15 s; common/models/README.md).\n";
}

// Whether this executable runs from the build tree it was built in (then its default output
// is the source tree's results/ folder) rather than from an installed copy.
bool runs_from_build_tree() {
    char exe[4096] = {}, build[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || realpath(LADDER_BINARY_DIR, build) == nullptr) return false;
    std::string folder(exe, static_cast<size_t>(n));
    folder = folder.substr(0, folder.rfind('/'));
    return folder == build;
}

// Empty when `path` can be written: its folder exists and is writable, and the file, if it
// exists, is a writable regular file. Checked before measuring, which takes a minute.
std::string unwritable(const std::string& path) {
    const size_t slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    struct stat st {};
    if (path.empty() || path.back() == '/') return "'" + path + "' names a folder, not a file";
    if (stat(folder.c_str(), &st) != 0) return "folder '" + folder + "' does not exist";
    if (!S_ISDIR(st.st_mode)) return "'" + folder + "' is not a folder";
    if (access(folder.c_str(), W_OK) != 0) return "folder '" + folder + "' is not writable";
    if (stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return "'" + path + "' is a folder";
        if (access(path.c_str(), W_OK) != 0) return "'" + path + "' exists and is not writable";
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_path, trace_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::printf("%s", usage().c_str());
            return 0;
        }
        if (arg == "--out" && i + 1 < argc) {
            out_path = argv[++i];
            const std::string why = unwritable(out_path);
            if (!why.empty()) {
                std::fprintf(stderr, "ladder-probe: --out %s: %s; nothing measured\n", out_path.c_str(), why.c_str());
                return 2;
            }
            continue;
        }
        if (arg == "--clock-trace" && i + 1 < argc) {
            trace_path = argv[++i];
            const std::string why = unwritable(trace_path);
            if (!why.empty()) {
                std::fprintf(stderr, "ladder-probe: --clock-trace %s: %s; nothing measured\n", trace_path.c_str(),
                             why.c_str());
                return 2;
            }
            continue;
        }
        std::fprintf(stderr, "ladder-probe: unknown or incomplete argument '%s'\n%s", arg.c_str(), usage().c_str());
        return 2;
    }

    if (!trace_path.empty() && !out_path.empty()) {
        std::fprintf(stderr, "ladder-probe: --clock-trace writes no machine file; give --out or --clock-trace\n");
        return 2;
    }
    int devices = 0;
    const cudaError_t found = cudaGetDeviceCount(&devices);
    if (found != cudaSuccess || devices == 0) {
        std::printf("SKIP: ladder-probe: %s\n", ladder::no_gpu_message(found).c_str());
        return 77;
    }
    int device = 0;
    CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, device));
    if (prop.major != 9 || prop.minor != 0) {
        std::fprintf(stderr,
                     "ladder-probe: %s is sm_%d%d; the probe measures TMA and wgmma, which need a Hopper GPU "
                     "(sm_90a). Nothing written.\n",
                     prop.name, prop.major, prop.minor);
        return 2;
    }
    if (!trace_path.empty())
        return clock_trace(trace_path, prop.multiProcessorCount, static_cast<int>(prop.sharedMemPerBlockOptin));
    if (out_path.empty() && !runs_from_build_tree()) out_path = "machine.json";
    if (out_path.empty()) {
        const std::string folder = std::string(LADDER_SOURCE_DIR) + "/results/" + ladder::plan::device_folder(prop.name);
        if (mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
            std::fprintf(stderr, "ladder-probe: cannot create %s: %s\n", folder.c_str(), std::strerror(errno));
            return 1;
        }
        out_path = folder + "/machine.json";
    }
    if (const std::string why = unwritable(out_path); !why.empty()) {
        std::fprintf(stderr, "ladder-probe: cannot write %s: %s; nothing measured\n", out_path.c_str(), why.c_str());
        return 2;
    }
    const int sms = prop.multiProcessorCount;
    int peak_khz = 0;
    CHECK(cudaDeviceGetAttribute(&peak_khz, cudaDevAttrClockRate, device));
    std::printf("ladder-probe on %s: %d SMs, peak SM clock %d MHz\n", prop.name, sms, peak_khz / 1000);
    std::vector<Constant> constants;
    constants.push_back({"sm_count", static_cast<double>(sms), "SMs", "cudaDeviceProp::multiProcessorCount"});

    // Scratch for the kernels' checksums and spans.
    float* fout = nullptr;
    uint32_t* uout = nullptr;
    CtaSpan* spans = nullptr;
    const int max_threads = sms * kPeakThreads;
    CHECK(cudaMalloc(&fout, max_threads * sizeof(float)));
    CHECK(cudaMalloc(&uout, max_threads * sizeof(uint32_t)));
    CHECK(cudaMalloc(&spans, sms * sizeof(CtaSpan)));
    std::vector<float> hf(max_threads);
    std::vector<uint32_t> hu(max_threads);
    std::vector<CtaSpan> hs(sms);
    auto fetch_spans = [&] { CHECK(cudaMemcpy(hs.data(), spans, sms * sizeof(CtaSpan), cudaMemcpyDeviceToHost)); };

    // The rate tests run one CTA per SM: each asks for more shared memory than half an SM has,
    // so no SM can hold two (spans_rate() checks where they ran).
    const int one_per_sm_smem = static_cast<int>(prop.sharedMemPerBlockOptin);
    if (2 * prop.sharedMemPerBlockOptin <= prop.sharedMemPerMultiprocessor) {
        std::fprintf(stderr, "ladder-probe: %zu bytes of shared memory per CTA cannot keep a second CTA off an SM\n",
                     prop.sharedMemPerBlockOptin);
        return 1;
    }
    const double peak_mhz = peak_khz * 1e-3;
    // Hopper's dense bf16 tensor-core peak: 4 tensor cores x 512 FMA per clock per SM (989 TFLOP/s
    // on 132 SMs at 1830 MHz in the H100 whitepaper).
    constexpr double kBf16DensePeak = 4096;
    // Shared memory moves at most 32 banks x 4 bytes per clock; everything that enters or
    // leaves an SM here (ldmatrix, TMA and cp.async fills, stores) passes through that width.
    constexpr double kSmBytesPerClock = 128;
    const double slack = 1.02;  // rounding of clocks and timers

    // 1. mma.sync: 16 warps (4 per scheduler) on every SM.
    double mma_rate = 0;
    {
        const int iters = 32768;  // 4 x 8 x 16 x 32768 = 2^24: every partial sum exact in fp32
        CHECK(cudaFuncSetAttribute(mma_sync_peak, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm_smem));
        for (int run = 0; run < 2; ++run) {  // the first run warms the clock up
            mma_sync_peak<<<sms, kPeakThreads, one_per_sm_smem>>>(iters, fout, spans);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
        }
        CHECK(cudaMemcpy(hf.data(), fout, sms * kPeakThreads * sizeof(float), cudaMemcpyDeviceToHost));
        fetch_spans();
        const float expected = 4.0f * kMmaChains * 16 * iters;
        for (int i = 0; i < sms * kPeakThreads; ++i) require(hf[i] == expected, "mma.sync accumulators");
        const double flops = (kPeakThreads / 32) * static_cast<double>(iters) * kMmaChains * (2.0 * 16 * 8 * 16);
        double mhz = 0;
        mma_rate = spans_rate(hs, sms, flops, "mma.sync", &mhz);
        require_at_most(mma_rate, kBf16DensePeak * slack, "mma.sync FLOP/clock/SM", "the dense bf16 peak");
        constants.push_back({"mma_sync_flop_per_clk_per_sm", mma_rate, "FLOP/clock/SM",
                             "mma.sync.m16n8k16 bf16->f32, operands in registers, 8 independent accumulators "
                             "per warp, one CTA of 16 warps on every SM; FLOP over clock64 cycles, median over SMs"});
        std::printf("  mma.sync    %.0f FLOP/clk/SM at %.0f MHz\n", mma_rate, mhz);
    }

    // 2. wgmma and the clock under load: first a short run to size a ~0.3 s one.
    double load_clock_mhz = 0;
    {
        CHECK(cudaFuncSetAttribute(wgmma_peak, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm_smem));
        int iters = 4096;
        const float ms = time_ms([&] { wgmma_peak<<<sms, 256, one_per_sm_smem>>>(iters, fout, spans); }, 1);
        iters = static_cast<int>(std::min<double>(kWgmmaMaxIters, std::max(4096.0, iters * 300.0 / std::max(ms, 1e-3f))));
        wgmma_peak<<<sms, 256, one_per_sm_smem>>>(iters, fout, spans);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hf.data(), fout, sms * 256 * sizeof(float), cudaMemcpyDeviceToHost));
        fetch_spans();
        for (int i = 0; i < sms * 256; ++i) require(hf[i] == 128.0f * iters, "wgmma accumulators");
        const double flops = 2.0 * 4 * iters * (2.0 * 64 * 256 * 16);
        const double rate = spans_rate(hs, sms, flops, "wgmma", &load_clock_mhz);
        require_at_most(rate, kBf16DensePeak * slack, "wgmma FLOP/clock/SM", "the dense bf16 peak");
        require_at_most(mma_rate, rate * slack, "mma.sync FLOP/clock/SM",
                        "wgmma's measured rate: mma.sync uses the same tensor cores and cannot be faster");
        require_at_most(load_clock_mhz, peak_mhz * slack, "SM clock under load (MHz)", "the peak SM clock");
        constants.push_back({"wgmma_flop_per_clk_per_sm", rate, "FLOP/clock/SM",
                             "wgmma.m64n256k16 bf16->f32 from shared memory, 2 warpgroups per SM with their "
                             "own accumulators, 4 wgmma per commit group, wait_group 1; about 0.3 s on all SMs"});
        constants.push_back({"sm_clock_under_load_mhz", load_clock_mhz, "MHz",
                             "median over SMs of clock64 cycles / %globaltimer ns during the wgmma test"});
        std::printf("  wgmma       %.0f FLOP/clk/SM, SM clock under load %.0f MHz\n", rate, load_clock_mhz);
    }

    // 3. ldmatrix: 16 warps on every SM.
    {
        const int iters = 65536;
        const uint32_t row_step = 8 * 17;  // whole 8-row matrices, not a power of two
        CHECK(cudaFuncSetAttribute(ldmatrix_peak, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm_smem));
        ldmatrix_peak<<<sms, kPeakThreads, one_per_sm_smem>>>(iters, row_step, uout, spans);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hu.data(), uout, sms * kPeakThreads * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        fetch_spans();
        for (int t = 0; t < kPeakThreads; ++t) {
            const uint32_t expected = ldmatrix_expected(t, iters, row_step);
            for (int b = 0; b < sms; ++b) require(hu[b * kPeakThreads + t] == expected, "ldmatrix sums");
        }
        double mhz = 0;
        const double rate = spans_rate(hs, sms, (kPeakThreads / 32) * static_cast<double>(iters) * 512, "ldmatrix", &mhz);
        require_at_most(rate, kSmBytesPerClock * slack, "ldmatrix bytes/clock/SM", "32 banks x 4 bytes per clock");
        constants.push_back({"ldmatrix_bytes_per_clk_per_sm", rate, "bytes/clock/SM",
                             "ldmatrix.x4 (512 bytes per warp, conflict-free), one CTA of 16 warps on every SM"});
        std::printf("  ldmatrix    %.0f B/clk/SM\n", rate);
    }

    // 4. DRAM: a 1 GiB device-to-device copy, bytes read + written.
    int mem_khz = 0, bus_bits = 0;
    CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
    CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    const double dram_from_clock = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) * 1e-12;
    require_at_least(dram_from_clock, 0.1, "DRAM TB/s from the memory clock and bus width",
                     "the device attributes that bound the copy");
    {
        const size_t bytes = size_t{1} << 30;
        void *a = nullptr, *b = nullptr;
        unsigned long long* bad = nullptr;
        CHECK(cudaMalloc(&a, bytes));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMalloc(&bad, sizeof(unsigned long long)));
        CHECK(cudaMemset(a, 1, bytes));
        CHECK(cudaMemset(b, 0, bytes));
        CHECK(cudaMemset(bad, 0, sizeof(unsigned long long)));
        const float ms = time_ms([&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, 5);
        count_mismatches<<<4 * sms, 256>>>(static_cast<const uint32_t*>(b), bytes / 4, 0x01010101u, bad);
        CHECK(cudaGetLastError());
        unsigned long long mismatches = 1;
        CHECK(cudaMemcpy(&mismatches, bad, sizeof(mismatches), cudaMemcpyDeviceToHost));
        require(mismatches == 0, "device-to-device copy");
        const double tbps = 2.0 * bytes / (ms * 1e-3) * 1e-12;
        require_at_most(tbps, dram_from_clock * slack, "DRAM TB/s", "2 x memory clock x bus width");
        constants.push_back({"dram_tbps", tbps, "TB/s", "cudaMemcpyAsync device to device of 1 GiB, bytes read + "
                                                       "written over the event time, best of 5"});
        std::printf("  DRAM        %.2f TB/s\n", tbps);
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(bad));
    }

    // An L2-resident source for the load tests: 12 MiB, 64 bf16 columns wide, each 32-bit word
    // holding its row index.
    const int rows = 96 * 1024;
    const size_t src_bytes = static_cast<size_t>(rows) * 128;
    uint32_t* src = nullptr;
    CHECK(cudaMalloc(&src, src_bytes));
    {
        std::vector<uint32_t> row_words(src_bytes / 4);
        for (size_t i = 0; i < row_words.size(); ++i) row_words[i] = static_cast<uint32_t>(i / 32);
        CHECK(cudaMemcpy(src, row_words.data(), src_bytes, cudaMemcpyHostToDevice));
    }
    CUtensorMap stream_map, small_map;
    CHECK(ladder::make_tensor_map_2d(&stream_map, src, rows, 64, kBoxRows, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B,
                                     "ladder-probe"));
    CHECK(ladder::make_tensor_map_2d(&small_map, src, rows, 64, 8, 64, CU_TENSOR_MAP_SWIZZLE_128B, "ladder-probe"));

    // 5. L2 -> SM: TMA from all SMs, TMA from one SM, cp.async from all SMs.
    {
        CHECK(cudaFuncSetAttribute(tma_stream<kStages>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   ring_smem(kStages)));
        CHECK(cudaFuncSetAttribute(tma_stream<kMostStages>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   ring_smem(kMostStages)));
        CHECK(cudaFuncSetAttribute(cp_async_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kStages * kBoxBytes));
        const int iters = 2048;
        auto tma_rate = [&](int grid, int stages, int group = 1) {
            const float ms = time_ms([&] {
                if (stages == kStages)
                    tma_stream<kStages><<<grid, 32, ring_smem(kStages)>>>(stream_map, rows, iters, group, uout);
                else
                    tma_stream<kMostStages>
                        <<<grid, 32, ring_smem(kMostStages)>>>(stream_map, rows, iters, group, uout);
            });
            CHECK(cudaMemcpy(hu.data(), uout, grid * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            for (int b = 0; b < grid; ++b)
                require(hu[b] == tma_stream_expected(b, rows, iters, stages, group), "TMA checksums");
            return static_cast<double>(grid) * iters * kBoxBytes / (ms * 1e-3);  // bytes per second
        };
        const double all4 = tma_rate(sms, kStages), all6 = tma_rate(sms, kMostStages);
        const double one4 = tma_rate(1, kStages), one6 = tma_rate(1, kMostStages);
        const double all = std::max(all4, all6), one = std::max(one4, one6);
        const double shared8 = tma_rate(sms, kStages, 8), shared_all = tma_rate(sms, kStages, sms);
        // The group-8 stream again, with both consumer warpgroups of every SM running wgmma.
        CHECK(cudaFuncSetAttribute(tma_stream_loaded, cudaFuncAttributeMaxDynamicSharedMemorySize, loaded_smem()));
        const float loaded_ms = time_ms([&] {
            tma_stream_loaded<<<sms, kLoadedThreads, loaded_smem()>>>(stream_map, rows, iters, 8, uout, fout,
                                                                      uout + sms);
        });
        CHECK(cudaMemcpy(hu.data(), uout, 3 * sms * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hf.data(), fout, 2 * sms * sizeof(float), cudaMemcpyDeviceToHost));
        for (int b = 0; b < sms; ++b) require(hu[b] == tma_stream_expected(b, rows, iters, kStages, 8), "TMA checksums");
        for (int w = 0; w < 2 * sms; ++w)
            require(hu[sms + w] > 0 && hf[w] == 64.0f * static_cast<float>(hu[sms + w]),
                    "wgmma accumulators beside the TMA stream");
        const double loaded8 = static_cast<double>(sms) * iters * kBoxBytes / (loaded_ms * 1e-3);
        std::printf("  L2->SM      TMA, the same boxes read by 8 SMs at a time while every SM runs wgmma: %.2f TB/s\n",
                    loaded8 * 1e-12);
        std::printf("  L2->SM      TMA, all SMs, 4 boxes in flight, the same boxes read by 8 SMs at a time: %.2f TB/s, "
                    "by all: %.2f TB/s\n",
                    shared8 * 1e-12, shared_all * 1e-12);
        std::printf("  L2->SM      TMA, all SMs: %.2f TB/s with %d boxes in flight, %.2f with %d; one SM: %.0f and "
                    "%.0f GB/s\n",
                    all4 * 1e-12, kStages, all6 * 1e-12, kMostStages, one4 * 1e-9, one6 * 1e-9);
        const float ms = time_ms([&] {
            cp_async_stream<<<sms, 256, kStages * kBoxBytes>>>(reinterpret_cast<const uint4*>(src),
                                                                static_cast<int>(src_bytes / 16), iters, uout);
        });
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(hu.data(), uout, sms * 256 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        const int chunks = static_cast<int>(src_bytes / 16);
        for (int i = 0; i < sms * 256; ++i)
            require(hu[i] == cp_async_expected(i / 256, i % 256, chunks, iters), "cp.async checksums");
        const double cp = static_cast<double>(sms) * iters * kBoxBytes / (ms * 1e-3);
        // Per SM and per clock at the peak clock, the most any of them could run at.
        const double per_sm_clock = sms * peak_mhz * 1e6;
        require_at_most(all / per_sm_clock, kSmBytesPerClock * slack, "L2->SM TMA bytes/clock/SM",
                        "shared memory takes 128 bytes per clock");
        require_at_most(loaded8 / per_sm_clock, kSmBytesPerClock * slack, "L2->SM TMA bytes/clock/SM beside wgmma",
                        "shared memory takes 128 bytes per clock");
        require_at_most(one / (peak_mhz * 1e6), kSmBytesPerClock * slack, "one-SM TMA bytes/clock",
                        "shared memory takes 128 bytes per clock");
        require_at_most(cp / per_sm_clock, kSmBytesPerClock * slack, "L2->SM cp.async bytes/clock/SM",
                        "shared memory takes 128 bytes per clock");
        constants.push_back({"l2_tma_tbps", all * 1e-12, "TB/s",
                             "one CTA per SM streams 32 KiB TMA boxes from a 12 MiB L2-resident matrix, bytes "
                             "over the event time, best of 3; the larger of 4 and 6 boxes in flight"});
        constants.push_back({"tma_one_sm_gbps", one * 1e-9, "GB/s (bytes/ns)", "the same with one CTA on one SM"});
        constants.push_back({"l2_tma_shared_tbps", shared8 * 1e-12, "TB/s",
                             "as l2_tma_tbps (4 in flight), each box read by 8 SMs at about the same time, as the "
                             "CTAs of a GEMM read their tile row's A and their tile column's B"});
        constants.push_back({"l2_tma_shared_loaded_tbps", loaded8 * 1e-12, "TB/s",
                             "as l2_tma_shared_tbps while two warpgroups of every SM run wgmma m64n256k16 "
                             "on operands in the same shared memory until the stream ends: a GEMM's feed"});
        constants.push_back({"l2_cp_async_tbps", cp * 1e-12, "TB/s",
                             "one CTA of 256 threads per SM streams 32 KiB stages with 16-byte cp.async.cg "
                             "(3 in flight) from the same matrix"});
        std::printf("  L2->SM      TMA %.2f TB/s all SMs, %.0f GB/s one SM; cp.async %.2f TB/s\n", all * 1e-12,
                    one * 1e-9, cp * 1e-12);

        // How many clusters of 2 and of 4 CTAs, one CTA per SM, the GPU holds at once: a
        // cluster's CTAs must share a GPC, and an SM that is left over in its GPC runs none
        // (step 07 sizes its persistent grid with the same query).
        for (int size : {2, 4}) {
            cudaLaunchAttribute attribute{};
            attribute.id = cudaLaunchAttributeClusterDimension;
            attribute.val.clusterDim.x = size;
            attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
            cudaLaunchConfig_t config{};
            config.gridDim = dim3(sms);
            config.blockDim = dim3(32);
            config.dynamicSmemBytes = ring_smem(kMostStages);
            config.attrs = &attribute;
            config.numAttrs = 1;
            int clusters = 0;
            CHECK(cudaOccupancyMaxActiveClusters(&clusters, tma_stream<kMostStages>, &config));
            require(clusters >= 1 && clusters * size <= sms, "resident clusters within the SMs");
            constants.push_back({"resident_clusters_of_" + std::to_string(size), static_cast<double>(clusters),
                                 "clusters",
                                 "cudaOccupancyMaxActiveClusters, clusters of " + std::to_string(size) +
                                     " CTAs with one CTA per SM (" + std::to_string(ring_smem(kMostStages)) +
                                     " bytes of shared memory each)"});
            std::printf("  clusters    %d of %d CTAs resident (%d of %d SMs)\n", clusters, size, clusters * size, sms);
        }
    }

    // 6. Latencies, in cycles of the unloaded clock (the kernel runs alone on one SM).
    {
        long long *tma = nullptr, *cp = nullptr, *bar = nullptr;
        CHECK(cudaMalloc(&tma, kLatencySamples * sizeof(long long)));
        CHECK(cudaMalloc(&cp, kLatencySamples * sizeof(long long)));
        CHECK(cudaMalloc(&bar, kLatencySamples * sizeof(long long)));
        latencies<<<1, 32>>>(small_map, reinterpret_cast<const uint4*>(src), tma, cp, bar, uout);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<long long> t(kLatencySamples), c(kLatencySamples), b(kLatencySamples);
        CHECK(cudaMemcpy(t.data(), tma, t.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(c.data(), cp, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(b.data(), bar, b.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hu.data(), uout, sizeof(uint32_t), cudaMemcpyDeviceToHost));
        require(hu[0] == latencies_expected(), "latency checksums");
        // An L2 round trip takes hundreds of cycles; well under 100 means the clock was read
        // before the data had arrived. An mbarrier trip takes at least a few cycles.
        const auto cycles = [](const std::vector<long long>& v) { return median(std::vector<double>(v.begin(), v.end())); };
        require_at_least(cycles(t), 100, "TMA latency (cycles)", "an L2 round trip");
        require_at_least(cycles(c), 100, "cp.async latency (cycles)", "an L2 round trip");
        require_at_least(cycles(b), 4, "mbarrier round trip (cycles)", "a trip through the barrier unit");
        const double peak_ghz = peak_khz * 1e-6;
        auto ns = [&](const std::vector<long long>& v) {
            return median(std::vector<double>(v.begin(), v.end())) / peak_ghz;
        };
        const char* at = " cycles at the peak SM clock (the GPU is otherwise idle)";
        constants.push_back({"tma_latency_ns", ns(t), "ns",
                             std::string("one 1 KiB TMA load (8x64 bf16 box, L2 hit) in flight: issue to mbarrier "
                                         "complete, median of 64, clock64") + at});
        constants.push_back({"cp_async_latency_ns", ns(c), "ns",
                             std::string("one 16-byte cp.async.cg (L2 hit) + commit + wait_group 0, median of 64") + at});
        constants.push_back({"mbarrier_round_trip_ns", ns(b), "ns",
                             std::string("mbarrier.arrive then try_wait.parity on the phase it completes, median of 64") + at});
        std::printf("  latency     TMA %.0f ns, cp.async %.0f ns, mbarrier round trip %.0f ns\n", ns(t), ns(c), ns(b));
        // From DRAM: a 1 GiB matrix of 8 KiB rows, filled, then 64 MiB written after it so
        // that none of the sampled lines (in its first 512 MiB) is still in the L2.
        {
            const size_t matrix_bytes = size_t{1} << 30, flush_bytes = size_t{64} << 20;
            const uint64_t rows = matrix_bytes / 8192;
            uint8_t *matrix = nullptr, *flush = nullptr;
            CHECK(cudaMalloc(&matrix, matrix_bytes));
            CHECK(cudaMalloc(&flush, flush_bytes));
            CHECK(cudaMemset(matrix, 0x01, matrix_bytes));
            CHECK(cudaMemset(flush, 0, flush_bytes));
            CUtensorMap dram_map;
            CHECK(ladder::make_tensor_map_2d(&dram_map, matrix, rows, 4096, 8, 64, CU_TENSOR_MAP_SWIZZLE_128B,
                                             "ladder-probe"));
            dram_latency<<<1, 32>>>(dram_map, tma, uout);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            std::vector<long long> d(kLatencySamples);
            CHECK(cudaMemcpy(d.data(), tma, d.size() * sizeof(long long), cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(hu.data(), uout, sizeof(uint32_t), cudaMemcpyDeviceToHost));
            require(hu[0] == static_cast<uint32_t>(kLatencySamples) * 0x01010101u, "DRAM latency checksum");
            // A DRAM access takes longer than an L2 hit: a sample that came back as fast came
            // from the L2, and the matrix was not flushed.
            require_at_least(cycles(d), cycles(t), "TMA latency from DRAM (cycles)", "the TMA latency of an L2 hit");
            constants.push_back({"tma_dram_latency_ns", ns(d), "ns",
                                 std::string("one 1 KiB TMA load (8x64 bf16 box, rows 8 KiB apart) of lines no kernel "
                                             "touched since they left the L2 (each 8 MiB from the last): issue to "
                                             "mbarrier complete, median of 64, clock64") + at});
            std::printf("  latency     TMA from DRAM %.0f ns\n", ns(d));
            CHECK(cudaFree(matrix));
            CHECK(cudaFree(flush));
        }
        CHECK(cudaFree(tma));
        CHECK(cudaFree(cp));
        CHECK(cudaFree(bar));
    }

    // 7. Stores: 48 MiB in per-CTA slices, 4 passes, 2 CTAs per SM (1 for TMA stores).
    {
        const size_t bytes = size_t{48} << 20;
        const int reps = 4, blocks = 2 * sms;
        uint32_t* dst = nullptr;
        CHECK(cudaMalloc(&dst, bytes));
        std::vector<uint32_t> back(bytes / 4);
        auto verify = [&](size_t words, const char* what) {
            CHECK(cudaMemcpy(back.data(), dst, words * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < words; ++i) require(back[i] == static_cast<uint32_t>(reps), what);
        };
        const long long per_cta16 = static_cast<long long>(bytes / 16 / blocks);
        CHECK(cudaMemset(dst, 0, bytes));
        const float ms16 = time_ms([&] { store16<<<blocks, 256>>>(reinterpret_cast<uint4*>(dst), per_cta16, reps); });
        verify(static_cast<size_t>(per_cta16) * blocks * 4, "16-byte stores");
        const long long per_cta4 = static_cast<long long>(bytes / 4 / blocks) / 256 * 256;
        CHECK(cudaMemset(dst, 0, bytes));
        const float ms4 = time_ms([&] { store4<<<blocks, 256>>>(dst, per_cta4, reps); });
        verify(static_cast<size_t>(per_cta4) * blocks, "4-byte stores");
        const int rows_per_cta = static_cast<int>(bytes / 128 / sms) / kStoreBoxRows * kStoreBoxRows;
        CUtensorMap store_map;
        CHECK(ladder::make_tensor_map_2d(&store_map, dst, static_cast<uint64_t>(rows_per_cta) * sms, 64, kStoreBoxRows,
                                         kStoreBoxCols, CU_TENSOR_MAP_SWIZZLE_NONE, "ladder-probe"));
        CHECK(cudaMemset(dst, 0, bytes));
        const float ms_tma = time_ms([&] { tma_store<<<sms, 128>>>(store_map, rows_per_cta, reps); });
        verify(static_cast<size_t>(rows_per_cta) * sms * 32, "TMA stores");
        const double tb16 = static_cast<double>(per_cta16) * blocks * 16 * reps / (ms16 * 1e-3) * 1e-12;
        const double tb4 = static_cast<double>(per_cta4) * blocks * 4 * reps / (ms4 * 1e-3) * 1e-12;
        const double tbt = static_cast<double>(rows_per_cta) * sms * 128 * reps / (ms_tma * 1e-3) * 1e-12;
        // Terabytes per second per SM per clock, at the peak clock.
        const double tb_per_sm_clock = sms * peak_mhz * 1e6 * 1e-12;
        require_at_most(tb16 / tb_per_sm_clock, kSmBytesPerClock * slack, "16-byte store bytes/clock/SM",
                        "an SM moves at most 128 bytes per clock");
        require_at_most(tb4 / tb_per_sm_clock, kSmBytesPerClock * slack, "4-byte store bytes/clock/SM",
                        "an SM moves at most 128 bytes per clock");
        require_at_most(tbt / tb_per_sm_clock, kSmBytesPerClock * slack, "TMA store bytes/clock/SM",
                        "an SM moves at most 128 bytes per clock");
        // One SM storing alone (one CTA, a 4 MiB slice written 4 times): what an epilogue gets
        // where few SMs store at once, a grid of few tiles, rather than its share of the above.
        const long long one16 = (4LL << 20) / 16, one4 = (4LL << 20) / 4 / 256 * 256;
        const int one_rows = (4 << 20) / 128 / kStoreBoxRows * kStoreBoxRows;
        CHECK(cudaMemset(dst, 0, bytes));
        const float one_ms16 = time_ms([&] { store16<<<1, 256>>>(reinterpret_cast<uint4*>(dst), one16, reps); });
        verify(static_cast<size_t>(one16) * 4, "16-byte stores, one SM");
        CHECK(cudaMemset(dst, 0, bytes));
        const float one_ms4 = time_ms([&] { store4<<<1, 256>>>(dst, one4, reps); });
        verify(static_cast<size_t>(one4), "4-byte stores, one SM");
        CHECK(cudaMemset(dst, 0, bytes));
        const float one_ms_tma = time_ms([&] { tma_store<<<1, 128>>>(store_map, one_rows, reps); });
        verify(static_cast<size_t>(one_rows) * 32, "TMA stores, one SM");
        const double one_gb16 = static_cast<double>(one16) * 16 * reps / (one_ms16 * 1e-3) * 1e-9;
        const double one_gb4 = static_cast<double>(one4) * 4 * reps / (one_ms4 * 1e-3) * 1e-9;
        const double one_gbt = static_cast<double>(one_rows) * 128 * reps / (one_ms_tma * 1e-3) * 1e-9;
        const double gb_per_clock = peak_mhz * 1e6 * 1e-9;  // GB/s per byte per clock, at the peak clock
        for (const auto& [gbps, what] : {std::pair<double, const char*>{one_gb16, "16-byte store bytes/clock, one SM"},
                                         {one_gb4, "4-byte store bytes/clock, one SM"},
                                         {one_gbt, "TMA store bytes/clock, one SM"}})
            require_at_most(gbps / gb_per_clock, kSmBytesPerClock * slack, what, "an SM moves at most 128 bytes per clock");
        constants.push_back({"store16_tbps", tb16, "TB/s", "16-byte st.global, 2 CTAs of 256 threads per SM, each "
                                                          "writing its slice of 48 MiB 4 times, best of 3"});
        constants.push_back({"store4_tbps", tb4, "TB/s", "4-byte stores in the mma/wgmma accumulator layout (a warp "
                                                        "writes 8 rows x 16 bytes), otherwise as store16_tbps"});
        constants.push_back({"tma_store_tbps", tbt, "TB/s", "TMA stores of 128x64 bf16 boxes from shared memory, one "
                                                           "CTA per SM, bulk groups, otherwise as store16_tbps"});
        constants.push_back({"store16_one_sm_gbps", one_gb16, "GB/s (bytes/ns)",
                             "16-byte st.global, one CTA of 256 threads on one SM writing a 4 MiB slice 4 times, "
                             "best of 3"});
        constants.push_back({"store4_one_sm_gbps", one_gb4, "GB/s (bytes/ns)",
                             "4-byte stores in the accumulator layout, otherwise as store16_one_sm_gbps"});
        constants.push_back({"tma_store_one_sm_gbps", one_gbt, "GB/s (bytes/ns)",
                             "TMA stores of 128x64 bf16 boxes, one CTA of 128 threads on one SM, otherwise as "
                             "store16_one_sm_gbps"});
        std::printf("  stores      16-byte %.2f TB/s, 4-byte %.2f TB/s, TMA %.2f TB/s; one SM alone %.1f, %.1f, %.1f "
                    "GB/s\n",
                    tb16, tb4, tbt, one_gb16, one_gb4, one_gbt);
        CHECK(cudaFree(dst));
    }

    // 8. Launch: back-to-back empty kernels, as the benchmark's repeated runs launch.
    {
        const int launches = 2000;
        const float ms = time_ms([&] {
            for (int i = 0; i < launches; ++i) empty_kernel<<<sms, 128>>>();
        });
        // A launch goes through the driver, a doorbell and the front end: 100 ns is far below it.
        require_at_least(ms * 1e3 / launches, 0.1, "launch (us)", "the time of one kernel launch");
        constants.push_back({"launch_us", ms * 1e3 / launches, "us",
                             "2000 empty kernels of one CTA per SM launched back to back, event time / 2000"});
        std::printf("  launch      %.2f us\n", ms * 1e3 / launches);
    }
    // 9. The clock under the power limit (common/models/README.md, "The clock under the power
    // limit"): board power P = P_idle + (f / f_max)^3 (P_busy + u P_op), with u the tensor
    // pipe's busy fraction (FLOP per clock per SM over 4096) and P_op the power of a fully
    // busy tensor pipe at f_max for one kind of instruction and operands. Five loops of a few
    // seconds each give five (P, f, u); the wgmma loop on random operands, run twice at two
    // values of u, gives P_busy and P_op for it, and each other loop its own P_op. Then two
    // TMA streams and their baseline give the memory traffic's terms (below).
    {
        Nvml nvml;
        std::string nvml_error;
        if (!nvml.open(device, &nvml_error)) {
            std::fprintf(stderr, "ladder-probe: %s; the power constants need it. Nothing written.\n",
                         nvml_error.c_str());
            return 1;
        }
        const double limit_w = nvml.limit_w();
        require_at_least(limit_w, 50, "enforced power limit (W)", "NVML's enforced power limit of a data-center GPU");
        // Idle: NVML averages over the last second, so wait for the earlier tests to leave it.
        CHECK(cudaDeviceSynchronize());
        std::this_thread::sleep_for(std::chrono::milliseconds(2000));
        std::vector<double> idle;
        for (int i = 0; i < 20; ++i) {
            idle.push_back(nvml.power_w());
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        const double idle_w = median(idle);
        require_at_least(idle_w, 1, "idle board power (W)", "a powered board");
        require_at_most(idle_w, limit_w, "idle board power (W)", "the enforced power limit");

        CHECK(cudaFuncSetAttribute(wgmma_sustained, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm_smem));
        CHECK(cudaFuncSetAttribute(mma_sync_sustained, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   one_per_sm_smem));
        constexpr double kTargetMs = 3000, kSettleS = 1.8;
        // Every held run (tensor loops, memory streams, their baseline) was sampled long enough,
        // at a clock and a power a board can have; all but the baseline, whose one waiting warp
        // per SM may read within NVML's noise of idle, draw more than the idle board.
        auto check_sustained = [&](const Sustained& run, bool above_idle = true) {
            require_at_least(run.samples, 5, "NVML samples during a sustained run",
                             "a run sized to last about 3 s, sampled every 50 ms after 1.8 s");
            require_at_most(run.clock_mhz, peak_mhz * slack, "SM clock in a sustained run (MHz)", "the peak SM clock");
            require_at_most(run.power_w, 1.25 * limit_w, "board power in a sustained run (W)",
                            "the enforced power limit, with room for the limiter's overshoot");
            if (above_idle)
                require_at_least(run.power_w, idle_w, "board power in a sustained run (W)", "the idle power");
        };
        struct Loop {
            const char* what;
            bool wgmma;
            int zero, gap_clk;
            Sustained s;
            double u = 0;
        };
        Loop loops[] = {{"wgmma, random operands", true, 0, 0, {}},
                        {"wgmma, random operands, a 1000-cycle wait after each k-block", true, 0, 1000, {}},
                        {"wgmma, zero operands", true, 1, 0, {}},
                        {"mma.sync, random operands", false, 0, 0, {}},
                        {"mma.sync, zero operands", false, 1, 0, {}}};
        std::printf("  power       idle %.0f W, enforced limit %.0f W, peak SM clock %.0f MHz\n", idle_w, limit_w,
                    peak_mhz);
        for (Loop& loop : loops) {
            const int threads = loop.wgmma ? 256 : kPeakThreads;
            auto launch = [&](long long iters) {
                if (loop.wgmma)
                    wgmma_sustained<<<sms, threads, one_per_sm_smem>>>(iters, loop.gap_clk, loop.zero, fout, spans);
                else
                    mma_sync_sustained<<<sms, threads, one_per_sm_smem>>>(iters, loop.zero, fout, spans);
            };
            // Size the loop: a short run at the unthrottled clock, scaled to kTargetMs.
            const long long trial = loop.wgmma ? 20000 : 40000;
            const float trial_ms = time_ms([&] { launch(trial); }, 1);
            const long long iters =
                static_cast<long long>(trial * kTargetMs / std::max(static_cast<double>(trial_ms), 1e-3));
            loop.s = sample_while(nvml, [&] { launch(iters); }, kSettleS);
            CHECK(cudaMemcpy(hf.data(), fout, sms * threads * sizeof(float), cudaMemcpyDeviceToHost));
            fetch_spans();
            bool nonzero = false;
            for (int i = 0; i < sms * threads; ++i) {
                const float want = hf[i % threads];
                require(std::isfinite(hf[i]) && std::fabs(hf[i] - want) <= 1e-3f * std::fabs(want) + 1e-3f,
                        "sustained loop: every CTA's accumulators agree");
                nonzero = nonzero || hf[i] != 0.0f;
            }
            require(nonzero != (loop.zero != 0), "sustained loop: zero operands give zero sums, random ones do not");
            const double flops = loop.wgmma ? 2.0 * 4 * iters * (2.0 * 64 * 256 * 16)
                                            : (kPeakThreads / 32) * static_cast<double>(iters) * kMmaChains *
                                                  (2.0 * 16 * 8 * 16);
            double span_mhz = 0;
            loop.u = spans_rate(hs, sms, flops, loop.what, &span_mhz) / kBf16DensePeak;
            check_sustained(loop.s);
            std::printf("  power       %-62s %4.0f W at %4.0f MHz (%4.0f over the whole loop), tensor pipe %.2f busy, "
                        "%.1f s\n",
                        loop.what, loop.s.power_w, loop.s.clock_mhz, span_mhz, loop.u, loop.s.seconds);
        }
        // (P - P_idle) / (f / f_max)^3 = P_busy + u P_op for each loop (planner_model.cpp).
        auto sample = [](const Loop& l) { return ladder::plan::PowerSample{l.s.power_w, l.s.clock_mhz, l.u}; };
        double busy = 0, wgmma_random = 0;
        std::string why;
        if (!ladder::plan::fit_busy_and_op_power(idle_w, peak_mhz, sample(loops[0]), sample(loops[1]), &busy,
                                                 &wgmma_random, &why)) {
            std::fprintf(stderr, "ladder-probe: check failed: the two wgmma loops on random operands: %s; the "
                         "measurement is wrong, nothing written\n", why.c_str());
            return 1;
        }
        auto op_power = [&](const Loop& l) { return ladder::plan::fit_op_power(idle_w, peak_mhz, busy, sample(l)); };
        const double wgmma_zero = op_power(loops[2]), mma_random = op_power(loops[3]), mma_zero = op_power(loops[4]);
        // P_op of zero operands may come out below 0: zeros toggle less than random data in
        // every part that the busy term lumps together (shared-memory reads, the operand
        // paths), not only in the multipliers. What cannot be negative is the dynamic power of
        // a fully busy pipe, P_busy + P_op.
        require_at_least(mma_random, 0, "P_op of mma.sync on random operands (W)", "power cannot be negative");
        for (double w : {wgmma_zero, mma_zero})
            require_at_least(busy + w, 0, "P_busy + P_op of zero operands (W)",
                             "the dynamic power of a busy pipe cannot be negative");
        std::printf("  power       P_busy %.0f W; P_op at f_max: wgmma random %.0f W, zero %.0f W; mma.sync random %.0f W, "
                    "zero %.0f W\n",
                    busy, wgmma_random, wgmma_zero, mma_random, mma_zero);
        // The memory traffic's share: TMA streams with the tensor pipe idle (u = 0), held like the
        // loops above, against a baseline of the same shape that moves no bytes: one warp per SM
        // waiting on its clock (spin), whose P gives P_warp = (P - P_idle) / (f / f_max)^3, what
        // the SMs draw running such a kernel. (P_busy, from the wgmma loops' two warpgroups, is
        // more than a one-warp stream draws besides its bytes.) First every SM streams its own
        // boxes of the 12 MiB L2-resident matrix (section 5's stream, group 1): what is left of P
        // once P_idle and (f / f_max)^3 P_warp are taken off, over the stream's TB/s and
        // (f / f_max)^2 (the L2 and the crossbar taken to run on the SMs' voltage), is
        // power_l2_w_per_tbps. Then the same stream from a 2 GiB matrix,
        // each CTA round and round its own stretch of it (spacing: its boxes over the SMs; a CTA
        // that walked on into the next stretch would trail that CTA and read its boxes from the
        // L2: 12 TB/s on the H100), so every box comes from DRAM and passes the L2 once a round:
        // what is left once the L2's share is also taken off, over the TB/s, is
        // power_dram_w_per_tbps (HBM's clock and voltage are fixed).
        // The DRAM stream reads its matrix as a GEMM's CTAs read an operand of K = 4096: boxes of
        // 256 rows x 128 bytes, 64 of them across each 8 KiB row (a K loop), slab after slab;
        // its rate is dram_tma_read_tbps, the DRAM rate of a GEMM's reads (rows 8 KiB apart
        // do not stream as a copy does).
        // Both matrices hold random words (stream_word), as a GEMM's operands on random inputs
        // toggle the wires; the L2 one is as large as section 5's source (12 MiB, 64 columns).
        struct Stream {
            const char* what;
            CUtensorMap map;
            int rows, columns, spacing;
            int stretch;  // boxes a CTA walks before it starts its stretch again (0: on through the matrix)
            Sustained s;
            double tbps = 0;
            int row_boxes() const { return columns / kBoxCols; }
        };
        constexpr int kDramColumns = 4096;
        const size_t dram_matrix_bytes = size_t{2} << 30;
        const int dram_rows = static_cast<int>(dram_matrix_bytes / (kDramColumns * 2));
        // Each CTA's stretch starts at a slab: its boxes over the SMs, in whole slabs.
        const int dram_spacing = dram_rows / kBoxRows / sms * (kDramColumns / kBoxCols);
        uint32_t *l2_matrix = nullptr, *dram_matrix = nullptr;
        CHECK(cudaMalloc(&l2_matrix, src_bytes));
        CHECK(cudaMalloc(&dram_matrix, dram_matrix_bytes));
        fill_random_words<<<4 * sms, 256>>>(l2_matrix, src_bytes / 4);
        fill_random_words<<<4 * sms, 256>>>(dram_matrix, dram_matrix_bytes / 4);
        CHECK(cudaGetLastError());
        Stream streams[] = {{"TMA stream from the L2, every SM its own boxes", {}, rows, 64, kBoxSpacing, 0, {}},
                            {"TMA stream from DRAM (2 GiB, K loops of 4096), every SM its own stretch", {},
                             dram_rows, kDramColumns, dram_spacing, dram_spacing, {}}};
        CHECK(ladder::make_tensor_map_2d(&streams[0].map, l2_matrix, rows, 64, kBoxRows, kBoxCols,
                                         CU_TENSOR_MAP_SWIZZLE_128B, "ladder-probe"));
        CHECK(ladder::make_tensor_map_2d(&streams[1].map, dram_matrix, dram_rows, kDramColumns, kBoxRows, kBoxCols,
                                         CU_TENSOR_MAP_SWIZZLE_128B, "ladder-probe"));
        long long* spun = nullptr;
        CHECK(cudaMalloc(&spun, sms * sizeof(long long)));
        CHECK(cudaMemset(spun, 0, sms * sizeof(long long)));  // a CTA that did not run fails the check
        CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_smem(kStages)));
        const long long spin_cycles = static_cast<long long>(kTargetMs * 1e-3 * peak_mhz * 1e6);
        const Sustained spin_s =
            sample_while(nvml, [&] { spin<<<sms, 32, ring_smem(kStages)>>>(spin_cycles, spun); }, kSettleS);
        {
            std::vector<long long> spun_host(sms);
            CHECK(cudaMemcpy(spun_host.data(), spun, sms * sizeof(long long), cudaMemcpyDeviceToHost));
            for (long long c : spun_host) require(c >= spin_cycles, "baseline warps waited out their cycles");
        }
        CHECK(cudaFree(spun));
        check_sustained(spin_s, false);
        const double warp_w = std::max(
            0.0, ladder::plan::power_at_peak_clock_w(idle_w, peak_mhz,
                                                     ladder::plan::PowerSample{spin_s.power_w, spin_s.clock_mhz, 0}));
        std::printf("  power       %-62s %4.0f W at %4.0f MHz, %.1f s\n", "one warp per SM waiting (the baseline)",
                    spin_s.power_w, spin_s.clock_mhz, spin_s.seconds);
        for (Stream& st : streams) {
            auto launch = [&](int iters) {
                tma_stream<kStages><<<sms, 32, ring_smem(kStages)>>>(st.map, st.rows, iters, 1, uout, st.spacing,
                                                                     st.row_boxes(), st.stretch);
            };
            const int trial = 4096;
            const float trial_ms = time_ms([&] { launch(trial); }, 1);
            int iters = static_cast<int>(
                std::min(2e9, trial * kTargetMs / std::max(static_cast<double>(trial_ms), 1e-3)));
            st.s = sample_while(nvml, [&] { launch(iters); }, kSettleS);
            // A run that ended before it could be sampled (its trial ran at another rate than
            // the run kept) is sized again from the run itself.
            for (int retry = 0; retry < 3 && st.s.samples < 5; ++retry) {
                iters = static_cast<int>(std::min(2e9, iters * kTargetMs / std::max(st.s.seconds * 1e3, 1.0)));
                st.s = sample_while(nvml, [&] { launch(iters); }, kSettleS);
            }
            CHECK(cudaMemcpy(hu.data(), uout, sms * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            for (int b = 0; b < sms; ++b)
                require(hu[b] == random_stream_expected(b, st.rows, iters, kStages, st.spacing, st.row_boxes(),
                                                        st.columns / 2, st.stretch),
                        "sustained TMA stream checksums");
            st.tbps = static_cast<double>(sms) * iters * kBoxBytes / st.s.seconds * 1e-12;
            check_sustained(st.s);
            std::printf("  power       %-62s %4.0f W at %4.0f MHz, %.2f TB/s, %.1f s\n", st.what, st.s.power_w,
                        st.s.clock_mhz, st.tbps, st.s.seconds);
        }
        // A DRAM stream faster than the DRAM can deliver read its boxes from the L2, not from
        // DRAM: neither its rate nor its power then says what DRAM traffic costs, and the
        // machine file goes without both (every other constant is still written).
        const bool dram_stream_from_dram = streams[1].tbps <= dram_from_clock * slack;
        if (!dram_stream_from_dram)
            std::fprintf(stderr, "ladder-probe: the DRAM stream read %.2f TB/s, more than the %.2f TB/s the memory "
                         "clock and bus allow: its boxes came from the L2, so the machine file has no memory term "
                         "and no dram_tma_read_tbps\n", streams[1].tbps, dram_from_clock);
        CHECK(cudaFree(l2_matrix));
        CHECK(cudaFree(dram_matrix));
        auto stream_sample = [](const Stream& st) { return ladder::plan::PowerSample{st.s.power_w, st.s.clock_mhz, 0}; };
        const double l2_w = ladder::plan::memory_power_w_per_tbps(idle_w, peak_mhz, warp_w, stream_sample(streams[0]),
                                                                  streams[0].tbps, 0, true);
        const double dram_scale = streams[1].s.clock_mhz / peak_mhz;
        const double dram_w = ladder::plan::memory_power_w_per_tbps(
            idle_w, peak_mhz, warp_w, stream_sample(streams[1]), streams[1].tbps,
            dram_scale * dram_scale * l2_w * streams[1].tbps, false);
        std::printf("  power       memory traffic at f_max: %.1f W per TB/s from the L2, %.1f W per TB/s from DRAM\n",
                    l2_w, dram_w);
        // Moving bytes cannot give power back: a term below 0 means the streams' power is not
        // what the model says, and the machine file then goes without the memory term (the
        // planner predicts the clock from the tensor pipe alone) rather than with a wrong one;
        // every other constant is still written.
        const bool memory_term = dram_stream_from_dram && l2_w >= 0 && dram_w >= 0;
        if (dram_stream_from_dram && !memory_term)
            std::fprintf(stderr, "ladder-probe: the memory streams give %.1f W per TB/s from the L2 and %.1f from "
                         "DRAM; one is below 0, so the machine file has no memory term\n", l2_w, dram_w);
        const std::string model = "P = P_idle + (f / sm_clock_max_mhz)^3 (P_busy + u P_op), u the tensor pipe's busy "
                                  "fraction (common/models/README.md)";
        char loop_text[5][160];
        for (int i = 0; i < 5; ++i)
            std::snprintf(loop_text[i], sizeof loop_text[i], "%s: %.0f W at %.0f MHz, u %.3f", loops[i].what,
                          loops[i].s.power_w, loops[i].s.clock_mhz, loops[i].u);
        constants.push_back({"sm_clock_max_mhz", peak_mhz, "MHz",
                             "cudaDevAttrClockRate: the SM clock where the power limit does not bind"});
        constants.push_back({"power_limit_w", limit_w, "W", "nvmlDeviceGetEnforcedPowerLimit"});
        constants.push_back({"power_idle_w", idle_w, "W",
                             "nvmlDeviceGetPowerUsage with no kernel running, 2 s after the last one, median of 20"});
        const std::string sampled = "; NVML power and SM clock sampled every 50 ms after 1.8 s of a loop of about 3 s "
                                    "on every SM, medians";
        constants.push_back({"power_busy_w", busy, "W",
                             model + ": P_busy from the two wgmma loops on random operands (" + loop_text[0] + "; " +
                                 loop_text[1] + ")" + sampled});
        constants.push_back({"power_wgmma_random_w", wgmma_random, "W", model + ": P_op of the same two loops" + sampled});
        constants.push_back({"power_wgmma_zero_w", wgmma_zero, "W",
                             model + ": P_op of wgmma m64n256k16 on zero operands (" + loop_text[2] + ")" + sampled});
        constants.push_back({"power_mma_sync_random_w", mma_random, "W",
                             model + ": P_op of mma.sync m16n8k16 on random operands in registers (" + loop_text[3] +
                                 ")" + sampled});
        constants.push_back({"power_mma_sync_zero_w", mma_zero, "W",
                             model + ": P_op of the same on zero operands (" + loop_text[4] + ")" + sampled});
        char stream_text[2][160];
        for (int i = 0; i < 2; ++i)
            std::snprintf(stream_text[i], sizeof stream_text[i], "%s: %.0f W at %.0f MHz, %.2f TB/s", streams[i].what,
                          streams[i].s.power_w, streams[i].s.clock_mhz, streams[i].tbps);
        char baseline[160];
        std::snprintf(baseline, sizeof baseline, "; against one warp per SM waiting, %.0f W at %.0f MHz",
                      spin_s.power_w, spin_s.clock_mhz);
        const std::string memory = model + " + (f / sm_clock_max_mhz)^2 power_l2_w_per_tbps x L2->SM TB/s + "
                                           "power_dram_w_per_tbps x DRAM TB/s, the tensor pipe idle: ";
        if (memory_term)
            constants.push_back({"power_l2_w_per_tbps", l2_w, "W per TB/s",
                                 memory + "the L2 term of one CTA per SM streaming 32 KiB TMA boxes (4 in flight) "
                                          "from a 12 MiB L2-resident matrix (" + stream_text[0] + ")" + baseline +
                                     sampled});
        if (dram_stream_from_dram)
            constants.push_back({"dram_tma_read_tbps", streams[1].tbps, "TB/s",
                                 "one CTA per SM reads a 2 GiB matrix of 8 KiB rows with TMA as a GEMM reads an "
                                 "operand (256x64 bf16 boxes along each 256-row slab, 4 in flight), each CTA its "
                                 "own stretch, bytes over about 3 s, the tensor pipe idle"});
        if (memory_term)
            constants.push_back({"power_dram_w_per_tbps", dram_w, "W per TB/s",
                                 memory + "the DRAM term of the same stream from a 2 GiB matrix, each CTA on its "
                                          "own stretch, its L2 share taken off (" + stream_text[1] + ")" + baseline +
                                     sampled});
    }
    CHECK(cudaFree(src));
    CHECK(cudaFree(fout));
    CHECK(cudaFree(uout));
    CHECK(cudaFree(spans));

    constants.push_back({"dram_tbps_from_clock", dram_from_clock, "TB/s",
                         "2 x memory clock x bus width (device attributes), for comparison with dram_tbps"});
    std::string error;
    if (!write_machine_file(out_path, prop, constants, &error)) {
        std::fprintf(stderr, "ladder-probe: %s\n", error.c_str());
        return 1;
    }
    std::printf("wrote %s\n", out_path.c_str());
    return 0;
}
