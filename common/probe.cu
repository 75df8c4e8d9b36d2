// probe.cu: ladder-probe, which measures on the GPU at hand the constants the planner's
// time model uses (planner.h, predict()) and writes them to a machine file:
//
//   ./build/ladder-probe                       -> results/<gpu>/machine.json in the source tree
//   ./build/ladder-probe --out FILE            -> FILE
//
// Every test is a small kernel whose work is checked afterwards (a checksum each thread or
// block stores, compared with the value the arithmetic must give), so the compiler cannot
// drop it and a broken test fails instead of reporting a number. Rates are taken from the
// cycles each CTA counts (clock64) or from CUDA events around the launch; latencies are the
// median of repeated single operations. The whole run takes well under a minute.
//
// Exit codes: 0 written, 1 a CUDA call or a checksum failed, 2 bad arguments or not a
// Hopper GPU (the tests use TMA and wgmma, sm_90a only), 77 no GPU.
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "planner.h"
#include "tensor_map.h"
#include "tma.cuh"
#include "wgmma.cuh"

#ifndef LADDER_SOURCE_DIR
#error "LADDER_SOURCE_DIR must name the repository root (set by common/CMakeLists.txt)"
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

// ---- 1. mma.sync m16n8k16 bf16 -> f32, operands in registers ------------------------------
// Eight independent accumulators per warp, so consecutive mma.sync do not wait on each
// other. Every product is 1 x 1, so after `iters` rounds each accumulator holds 16 * iters.
constexpr int kMmaChains = 8;
__global__ void __launch_bounds__(256) mma_sync_peak(int iters, float* out, long long* cycles) {
    const uint32_t a0 = kOnePair, a1 = kOnePair, a2 = kOnePair, a3 = kOnePair, b0 = kOnePair, b1 = kOnePair;
    float acc[kMmaChains][4] = {};
    __syncthreads();
    const long long t0 = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaChains; ++j)
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9},"
                " {%0,%1,%2,%3};\n"
                : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    __syncthreads();
    const long long t1 = clock64();
    float sum = 0;
#pragma unroll
    for (int j = 0; j < kMmaChains; ++j) sum += acc[j][0] + acc[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // 2 * kMmaChains * 16 * iters
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// ---- 2. wgmma m64n256k16 bf16 -> f32, operands in shared memory ---------------------------
// Two warpgroups, each with its 64x256 fp32 accumulator (128 registers per thread), one CTA
// per SM: the shape of steps 05-07. Shared memory holds bf16 ones, so each wgmma adds 16 to
// every accumulator. Thread 0 also reads clock64 and %globaltimer: the SM clock under load.
constexpr int kWgmmaSmem = 1024 + (64 + 256) * 128;  // alignment + A 64x64 + B 256x64 bf16
__global__ void __launch_bounds__(256, 1) wgmma_peak(int iters, float* out, long long* cycles, long long* ns) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    uint32_t* words = reinterpret_cast<uint32_t*>(base);
    for (int i = threadIdx.x; i < (64 + 256) * 128 / 4; i += blockDim.x) words[i] = kOnePair;
    // The operands were written by ordinary stores; wgmma reads through the async proxy.
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    const uint32_t a_addr = static_cast<uint32_t>(__cvta_generic_to_shared(base));
    const uint32_t b_addr = a_addr + 64 * 128;
    float acc[ladder::WGMMA_M64N256_ACC_REGS];
#pragma unroll
    for (int i = 0; i < ladder::WGMMA_M64N256_ACC_REGS; ++i) acc[i] = 0.0f;
    const long long t0 = clock64();
    const uint64_t g0 = globaltimer_ns();
    for (int i = 0; i < iters; ++i) {
        ladder::wgmma_fence();
#pragma unroll
        for (int k = 0; k < 4; ++k)
            ladder::wgmma_m64n256k16(acc, ladder::smem_descriptor(a_addr + 32 * k),
                                     ladder::smem_descriptor(b_addr + 32 * k), 1);
        ladder::wgmma_commit_group();
        ladder::wgmma_wait_group<1>();
    }
    ladder::wgmma_wait_group<0>();
    ladder::fence_accumulators(acc);
    const long long t1 = clock64();
    const uint64_t g1 = globaltimer_ns();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0] + acc[ladder::WGMMA_M64N256_ACC_REGS - 1];  // 128 * iters
    if (threadIdx.x == 0) {
        cycles[blockIdx.x] = t1 - t0;
        ns[blockIdx.x] = static_cast<long long>(g1 - g0);
    }
}

// ---- 3. ldmatrix.x4: shared memory -> registers -------------------------------------------
// Each warp reads 512 bytes per ldmatrix.x4 from rows spread over all banks.
__global__ void __launch_bounds__(256) ldmatrix_peak(int iters, uint32_t* out, long long* cycles) {
    __shared__ __align__(16) uint32_t tile[8 * 1024];  // 32 KiB
    for (int i = threadIdx.x; i < 8 * 1024; i += blockDim.x) tile[i] = 1u;
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // Row `lane` of an 8-row matrix, 16 bytes each, rows 128 bytes apart (one per bank group).
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile)) + (warp * 32 + lane) * 16 % 32768;
    uint32_t sum = 0;
    const long long t0 = clock64();
    for (int i = 0; i < iters; ++i) {
        uint32_t r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
        sum += r0 + r1 + r2 + r3;
        addr ^= 4096;  // alternate halves so consecutive loads are independent addresses
    }
    __syncthreads();
    const long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // 4 * iters
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// ---- 4. L2 -> shared memory with TMA, a 4-stage ring of 32 KiB boxes ----------------------
constexpr int kStages = 4;
constexpr int kBoxRows = 256, kBoxCols = 64;  // 256 x 128 bytes = 32 KiB, step 05-07's B box
constexpr uint32_t kBoxBytes = kBoxRows * kBoxCols * 2;
constexpr int kRingSmem = 1024 + kStages * kBoxBytes;

__global__ void __launch_bounds__(32) tma_stream(const __grid_constant__ CUtensorMap map, int rows, int iters,
                                                 uint32_t* out) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    __shared__ uint64_t full[kStages];
    if (threadIdx.x != 0) return;
    for (int s = 0; s < kStages; ++s) cuda::ptx::mbarrier_init(&full[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    const int boxes = rows / kBoxRows;
    int box = static_cast<int>(blockIdx.x * 7) % boxes;  // CTAs start in different places
    uint32_t sum = 0;
    const int total = iters + kStages;
    for (int i = 0; i < total; ++i) {
        const int s = i % kStages;
        if (i >= kStages) {
            wait_barrier(&full[s], static_cast<uint32_t>((i / kStages - 1) & 1), "probe tma_stream");
            sum += *reinterpret_cast<volatile uint32_t*>(base + s * kBoxBytes + (i % 64) * 4);
        }
        if (i < iters) {
            arrive_expect_tx(&full[s], kBoxBytes);
            tma_load_2d(base + s * kBoxBytes, &map, 0, box * kBoxRows, &full[s]);
            box = (box + 1) % boxes;
        }
    }
    out[blockIdx.x] = sum;  // iters * kOnePair (mod 2^32)
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
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // iters * kOnePair (mod 2^32)
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
        tma_load_2d(box, &small_map, 0, 0, &bar);
        wait_barrier(&bar, static_cast<uint32_t>(i & 1), "probe latency");
        const long long t1 = clock64();
        sum += *reinterpret_cast<volatile uint32_t*>(box + 4 * (i % 32));
        if (i > 0) tma[i - 1] = t1 - t0;
    }
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&chunk));
    for (int i = 0; i <= kLatencySamples; ++i) {
        const long long t0 = clock64();
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + (i % 2)));
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
    out[0] = sum;  // 2 * (kLatencySamples + 1) * kOnePair (mod 2^32)
}

// ---- 7. Storing C: 16-byte rows, 4-byte accumulator pairs, TMA stores ---------------------
// Each CTA writes its own slice of a 48 MiB buffer `reps` times, the last time with the
// value `reps`, which the host checks.
__global__ void __launch_bounds__(256) store16(uint4* dst, long long per_cta, int reps) {
    uint4* slice = dst + blockIdx.x * per_cta;
    for (int r = 1; r <= reps; ++r)
        for (long long i = threadIdx.x; i < per_cta; i += blockDim.x) slice[i] = make_uint4(r, r, r, r);
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
            for (int col = 0; col < 32; col += 4) slice[b * 256 + (lane / 4) * 32 + col + lane % 4] = r;
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

__global__ void empty_kernel() {}

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
    std::fprintf(f, "  \"written_by\": \"ladder-probe (common/probe.cu)\",\n");
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

std::string usage() {
    return "usage: ladder-probe [--out FILE]\n"
           "Measures the constants of the planner's time model on the GPU at hand (a Hopper GPU)\n"
           "and writes them to FILE (default: results/<gpu>/machine.json in the source tree).\n";
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::printf("%s", usage().c_str());
            return 0;
        }
        if (arg == "--out" && i + 1 < argc) {
            out_path = argv[++i];
            continue;
        }
        std::fprintf(stderr, "ladder-probe: unknown or incomplete argument '%s'\n%s", arg.c_str(), usage().c_str());
        return 2;
    }

    int devices = 0;
    const cudaError_t found = cudaGetDeviceCount(&devices);
    if (found != cudaSuccess || devices == 0) {
        std::printf("SKIP: ladder-probe needs a GPU: %s\n",
                    found != cudaSuccess ? cudaGetErrorString(found) : "no CUDA device");
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
    if (out_path.empty()) {
        const std::string folder = std::string(LADDER_SOURCE_DIR) + "/results/" + ladder::plan::device_folder(prop.name);
        if (mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
            std::fprintf(stderr, "ladder-probe: cannot create %s: %s\n", folder.c_str(), std::strerror(errno));
            return 1;
        }
        out_path = folder + "/machine.json";
    }
    const int sms = prop.multiProcessorCount;
    int peak_khz = 0;
    CHECK(cudaDeviceGetAttribute(&peak_khz, cudaDevAttrClockRate, device));
    std::printf("ladder-probe on %s: %d SMs, peak SM clock %d MHz\n", prop.name, sms, peak_khz / 1000);
    std::vector<Constant> constants;
    constants.push_back({"sm_count", static_cast<double>(sms), "SMs", "cudaDeviceProp::multiProcessorCount"});

    // Scratch for the kernels' checksums and cycle counts.
    float* fout = nullptr;
    uint32_t* uout = nullptr;
    long long *cycles = nullptr, *nanos = nullptr;
    const int max_threads = 4 * sms * 256;
    CHECK(cudaMalloc(&fout, max_threads * sizeof(float)));
    CHECK(cudaMalloc(&uout, max_threads * sizeof(uint32_t)));
    CHECK(cudaMalloc(&cycles, 4 * sms * sizeof(long long)));
    CHECK(cudaMalloc(&nanos, 4 * sms * sizeof(long long)));
    std::vector<float> hf(max_threads);
    std::vector<uint32_t> hu(max_threads);
    std::vector<long long> hc(4 * sms), hn(4 * sms);

    // 1. mma.sync: 2 CTAs of 8 warps per SM (4 warps per scheduler), all resident at once.
    {
        const int blocks = 2 * sms, iters = 16384;
        mma_sync_peak<<<blocks, 256>>>(iters, fout, cycles);  // warm-up
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        mma_sync_peak<<<blocks, 256>>>(iters, fout, cycles);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hf.data(), fout, blocks * 256 * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hc.data(), cycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int i = 0; i < blocks * 256; ++i)
            require(std::fabs(hf[i] - 2.0f * kMmaChains * 16 * iters) <= 1e-3f * 2 * kMmaChains * 16 * iters,
                    "mma.sync accumulators");
        // The rates of the CTAs sharing an SM add up: sum of (FLOP / cycles) over CTAs / SMs.
        double rate = 0;
        const double flops = 8.0 * iters * kMmaChains * (2.0 * 16 * 8 * 16);
        for (int b = 0; b < blocks; ++b) rate += flops / static_cast<double>(hc[b]);
        constants.push_back({"mma_sync_flop_per_clk_per_sm", rate / sms, "FLOP/clock/SM",
                             "mma.sync.m16n8k16 bf16->f32, operands in registers, 8 independent accumulators "
                             "per warp, 16 warps per SM on all SMs; FLOP over clock64 cycles per CTA"});
        std::printf("  mma.sync    %.0f FLOP/clk/SM\n", rate / sms);
    }

    // 2. wgmma and the clock under load: first a short run to size a ~0.3 s one.
    double load_clock_mhz = 0;
    {
        CHECK(cudaFuncSetAttribute(wgmma_peak, cudaFuncAttributeMaxDynamicSharedMemorySize, kWgmmaSmem));
        int iters = 4096;
        const float ms = time_ms([&] { wgmma_peak<<<sms, 256, kWgmmaSmem>>>(iters, fout, cycles, nanos); }, 1);
        iters = static_cast<int>(std::min(4.0e6, std::max(4096.0, iters * 300.0 / std::max(ms, 1e-3f))));
        wgmma_peak<<<sms, 256, kWgmmaSmem>>>(iters, fout, cycles, nanos);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hf.data(), fout, sms * 256 * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hc.data(), cycles, sms * sizeof(long long), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hn.data(), nanos, sms * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int i = 0; i < sms * 256; ++i)
            require(std::fabs(hf[i] - 128.0f * iters) <= 1e-3f * 128.0f * iters, "wgmma accumulators");
        double rate = 0;
        std::vector<double> clocks;
        const double flops = 2.0 * 4 * iters * (2.0 * 64 * 256 * 16);
        for (int b = 0; b < sms; ++b) {
            rate += flops / static_cast<double>(hc[b]);
            require(hn[b] > 0, "globaltimer advanced");
            clocks.push_back(static_cast<double>(hc[b]) / static_cast<double>(hn[b]) * 1e3);
        }
        load_clock_mhz = median(clocks);
        constants.push_back({"wgmma_flop_per_clk_per_sm", rate / sms, "FLOP/clock/SM",
                             "wgmma.m64n256k16 bf16->f32 from shared memory, 2 warpgroups per SM with their "
                             "own accumulators, 4 wgmma per commit group, wait_group 1; about 0.3 s on all SMs"});
        constants.push_back({"sm_clock_under_load_mhz", load_clock_mhz, "MHz",
                             "median over CTAs of clock64 cycles / %globaltimer ns during the wgmma test"});
        std::printf("  wgmma       %.0f FLOP/clk/SM, SM clock under load %.0f MHz\n", rate / sms, load_clock_mhz);
    }

    // 3. ldmatrix
    {
        const int blocks = 2 * sms, iters = 16384;
        ldmatrix_peak<<<blocks, 256>>>(iters, uout, cycles);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hu.data(), uout, blocks * 256 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hc.data(), cycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int i = 0; i < blocks * 256; ++i) require(hu[i] == 4u * iters, "ldmatrix sums");
        double rate = 0;
        for (int b = 0; b < blocks; ++b) rate += 8.0 * iters * 512 / static_cast<double>(hc[b]);
        constants.push_back({"ldmatrix_bytes_per_clk_per_sm", rate / sms, "bytes/clock/SM",
                             "ldmatrix.x4 (512 bytes per warp), 16 warps per SM on all SMs"});
        std::printf("  ldmatrix    %.0f B/clk/SM\n", rate / sms);
    }

    // 4. DRAM: a 1 GiB device-to-device copy, bytes read + written.
    {
        const size_t bytes = size_t{1} << 30;
        void *a = nullptr, *b = nullptr;
        CHECK(cudaMalloc(&a, bytes));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMemset(a, 1, bytes));
        const float ms = time_ms([&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, 5);
        unsigned char probe_byte = 0;
        CHECK(cudaMemcpy(&probe_byte, static_cast<char*>(b) + bytes - 1, 1, cudaMemcpyDeviceToHost));
        require(probe_byte == 1, "device-to-device copy");
        const double tbps = 2.0 * bytes / (ms * 1e-3) * 1e-12;
        constants.push_back({"dram_tbps", tbps, "TB/s", "cudaMemcpyAsync device to device of 1 GiB, bytes read + "
                                                       "written over the event time, best of 5"});
        std::printf("  DRAM        %.2f TB/s\n", tbps);
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
    }

    // An L2-resident source for the load tests: 12 MiB of bf16 ones, 64 columns wide.
    const int rows = 96 * 1024;
    const size_t src_bytes = static_cast<size_t>(rows) * 128;
    uint32_t* src = nullptr;
    CHECK(cudaMalloc(&src, src_bytes));
    {
        std::vector<uint32_t> ones(src_bytes / 4, kOnePair);
        CHECK(cudaMemcpy(src, ones.data(), src_bytes, cudaMemcpyHostToDevice));
    }
    CUtensorMap stream_map, small_map;
    CHECK(ladder::make_tensor_map_2d(&stream_map, src, rows, 64, kBoxRows, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B,
                                     "ladder-probe"));
    CHECK(ladder::make_tensor_map_2d(&small_map, src, rows, 64, 8, 64, CU_TENSOR_MAP_SWIZZLE_128B, "ladder-probe"));

    // 5. L2 -> SM: TMA from all SMs, TMA from one SM, cp.async from all SMs.
    {
        CHECK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kRingSmem));
        CHECK(cudaFuncSetAttribute(cp_async_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kStages * kBoxBytes));
        const int iters = 2048;
        auto tma_rate = [&](int grid) {
            const float ms = time_ms([&] { tma_stream<<<grid, 32, kRingSmem>>>(stream_map, rows, iters, uout); });
            CHECK(cudaMemcpy(hu.data(), uout, grid * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            for (int b = 0; b < grid; ++b) require(hu[b] == static_cast<uint32_t>(iters) * kOnePair, "TMA checksums");
            return static_cast<double>(grid) * iters * kBoxBytes / (ms * 1e-3);  // bytes per second
        };
        const double all = tma_rate(sms), one = tma_rate(1);
        const float ms = time_ms([&] {
            cp_async_stream<<<sms, 256, kStages * kBoxBytes>>>(reinterpret_cast<const uint4*>(src),
                                                                static_cast<int>(src_bytes / 16), iters, uout);
        });
        CHECK(cudaMemcpy(hu.data(), uout, sms * 256 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        for (int i = 0; i < sms * 256; ++i) require(hu[i] == static_cast<uint32_t>(iters) * kOnePair, "cp.async checksums");
        const double cp = static_cast<double>(sms) * iters * kBoxBytes / (ms * 1e-3);
        constants.push_back({"l2_tma_tbps", all * 1e-12, "TB/s",
                             "one CTA per SM streams 32 KiB TMA boxes (4 in flight) from a 12 MiB L2-resident "
                             "matrix, bytes over the event time, best of 3"});
        constants.push_back({"tma_one_sm_gbps", one * 1e-9, "GB/s (bytes/ns)", "the same with one CTA on one SM"});
        constants.push_back({"l2_cp_async_tbps", cp * 1e-12, "TB/s",
                             "one CTA of 256 threads per SM streams 32 KiB stages with 16-byte cp.async.cg "
                             "(3 in flight) from the same matrix"});
        std::printf("  L2->SM      TMA %.2f TB/s all SMs, %.0f GB/s one SM; cp.async %.2f TB/s\n", all * 1e-12,
                    one * 1e-9, cp * 1e-12);
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
        require(hu[0] == 2u * (kLatencySamples + 1) * kOnePair, "latency checksums");
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
        constants.push_back({"store16_tbps", tb16, "TB/s", "16-byte st.global, 2 CTAs of 256 threads per SM, each "
                                                          "writing its slice of 48 MiB 4 times, best of 3"});
        constants.push_back({"store4_tbps", tb4, "TB/s", "4-byte stores in the mma/wgmma accumulator layout (a warp "
                                                        "writes 8 rows x 16 bytes), otherwise as store16_tbps"});
        constants.push_back({"tma_store_tbps", tbt, "TB/s", "TMA stores of 128x64 bf16 boxes from shared memory, one "
                                                           "CTA per SM, bulk groups, otherwise as store16_tbps"});
        std::printf("  stores      16-byte %.2f TB/s, 4-byte %.2f TB/s, TMA %.2f TB/s\n", tb16, tb4, tbt);
        CHECK(cudaFree(dst));
    }

    // 8. Launch: back-to-back empty kernels, as the benchmark's repeated runs launch.
    {
        const int launches = 2000;
        const float ms = time_ms([&] {
            for (int i = 0; i < launches; ++i) empty_kernel<<<sms, 128>>>();
        });
        constants.push_back({"launch_us", ms * 1e3 / launches, "us",
                             "2000 empty kernels of one CTA per SM launched back to back, event time / 2000"});
        std::printf("  launch      %.2f us\n", ms * 1e3 / launches);
    }
    CHECK(cudaFree(src));
    CHECK(cudaFree(fout));
    CHECK(cudaFree(uout));
    CHECK(cudaFree(cycles));
    CHECK(cudaFree(nanos));

    int mem_khz = 0, bus_bits = 0;
    CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
    CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    constants.push_back({"dram_tbps_from_clock", 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) * 1e-12, "TB/s",
                         "2 x memory clock x bus width (device attributes), for comparison with dram_tbps"});
    std::string error;
    if (!write_machine_file(out_path, prop, constants, &error)) {
        std::fprintf(stderr, "ladder-probe: %s\n", error.c_str());
        return 1;
    }
    std::printf("wrote %s\n", out_path.c_str());
    return 0;
}
