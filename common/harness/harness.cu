// harness.cu: see harness.h.
#include "harness.h"

#include "clock_witness.cuh"
#include "sampler.h"
#include "step_api.h"  // no_gpu_message

#include <dlfcn.h>

#include <algorithm>
#include <random>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

namespace ladder::harness {

void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
    char msg[512];
    std::snprintf(msg, sizeof msg, "%s:%d: %s failed: %s (%s)", file, line, call,
                  cudaGetErrorString(err), cudaGetErrorName(err));
    throw Error(msg);
}

void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
    char msg[512];
    std::snprintf(msg, sizeof msg, "%s:%d: %s failed: cuBLAS status %d", file, line, call,
                  static_cast<int>(status));
    throw Error(msg);
}

bool gpu_available(std::string* why) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        cudaGetLastError();
        if (why) *why = ladder::no_gpu_message(err);
        return false;
    }
    return true;
}

namespace {

std::string version_string(int v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
    return buf;
}

}  // namespace

DeviceInfo device_info() {
    DeviceInfo info;
    int device = 0;
    LADDER_CUDA(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    LADDER_CUDA(cudaGetDeviceProperties(&prop, device));
    info.name = prop.name;
    info.major = prop.major;
    info.minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.l2_bytes = prop.l2CacheSize;
    info.smem_optin_bytes = static_cast<int>(prop.sharedMemPerBlockOptin);
    int clock_khz = 0;
    LADDER_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    info.peak_sm_clock_mhz = clock_khz / 1000;
    LADDER_CUDA(cudaDeviceGetAttribute(&info.mem_clock_khz, cudaDevAttrMemoryClockRate, device));
    LADDER_CUDA(cudaDeviceGetAttribute(&info.mem_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    int runtime = 0, driver = 0;
    LADDER_CUDA(cudaRuntimeGetVersion(&runtime));
    LADDER_CUDA(cudaDriverGetVersion(&driver));
    info.cuda = version_string(runtime);
    info.driver = version_string(driver);
    return info;
}

namespace {

// NVML is part of the driver, not the toolkit: load it if it is there. The entry points used
// here have had these signatures since NVML's first release.
void* nvml_symbol(const char* name) {
    using InitFn = int (*)();
    static void* lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY);
    static const bool ready = [] {
        if (lib == nullptr) return false;
        auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
        return init != nullptr && init() == 0;
    }();
    return ready ? dlsym(lib, name) : nullptr;
}

// The NVML handle of the current CUDA device, or nullptr. NVML numbers devices in PCI order;
// CUDA does too unless CUDA_DEVICE_ORDER says otherwise.
void* nvml_device() {
    using HandleFn = int (*)(unsigned, void**);
    static auto handle_of = reinterpret_cast<HandleFn>(nvml_symbol("nvmlDeviceGetHandleByIndex_v2"));
    int device = 0;
    void* handle = nullptr;
    if (handle_of == nullptr || cudaGetDevice(&device) != cudaSuccess ||
        handle_of(static_cast<unsigned>(device), &handle) != 0)
        return nullptr;
    return handle;
}

// The SM clock of an NVML device in MHz; 0 when unknown.
int sm_clock_mhz_of(void* handle) {
    using ClockFn = int (*)(void*, int, unsigned*);
    static auto clock_of = reinterpret_cast<ClockFn>(nvml_symbol("nvmlDeviceGetClockInfo"));
    unsigned mhz = 0;
    constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
    if (clock_of == nullptr || handle == nullptr || clock_of(handle, kNvmlClockSm, &mhz) != 0) return 0;
    return static_cast<int>(mhz);
}

// nvmlFieldValue_t of nvml.h (the toolkit does not ship the header): a field id in, a typed
// value out. Its layout has not changed since the field API appeared (NVML 9).
struct NvmlFieldValue {
    unsigned field_id;
    unsigned scope_id;
    long long timestamp;
    long long latency_us;
    int value_type;  // nvmlValueType_t
    int status;      // nvmlReturn_t of this field
    union {
        double d;
        unsigned ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
        int si;
    } value;
};

// The board's power right now in mW (NVML_FI_DEV_POWER_INSTANT), or -1 where the driver has
// no such field.
double instant_power_mw(void* handle) {
    using FieldsFn = int (*)(void*, int, NvmlFieldValue*);
    static auto fields_of = reinterpret_cast<FieldsFn>(nvml_symbol("nvmlDeviceGetFieldValues"));
    constexpr unsigned kPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT
    NvmlFieldValue v{};
    v.field_id = kPowerInstant;
    if (fields_of == nullptr || fields_of(handle, 1, &v) != 0 || v.status != 0) return -1;
    switch (v.value_type) {  // NVML_VALUE_TYPE_*
        case 0: return v.value.d;
        case 1: return v.value.ui;
        case 2: return static_cast<double>(v.value.ul);
        case 3: return static_cast<double>(v.value.ull);
        case 4: return static_cast<double>(v.value.sll);
        case 5: return v.value.si;
        default: return -1;
    }
}

// The board power of an NVML device in W; 0 when unknown.
double power_w_of(void* handle) {
    using PowerFn = int (*)(void*, unsigned*);
    static auto power_of = reinterpret_cast<PowerFn>(nvml_symbol("nvmlDeviceGetPowerUsage"));
    if (handle == nullptr) return 0;
    // The instantaneous reading where there is one: the averaged one trails a loop shorter than
    // a second by the idle time before it.
    if (const double mw = instant_power_mw(handle); mw > 0) return mw / 1000.0;
    unsigned milliwatts = 0;
    if (power_of == nullptr || power_of(handle, &milliwatts) != 0) return 0;
    return milliwatts / 1000.0;
}

}  // namespace

int current_sm_clock_mhz() { return sm_clock_mhz_of(nvml_device()); }

double current_power_w() { return power_w_of(nvml_device()); }

std::string today() {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &utc);
    return buf;
}

namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__global__ void fill_random_kernel(__nv_bfloat16* data, size_t count, uint64_t seed) {
    const uint64_t key = splitmix64(seed);
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        const uint32_t bits = static_cast<uint32_t>(splitmix64(key ^ i) >> 40);  // 24 bits
        data[i] = __float2bfloat16(static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f);
    }
}

__global__ void poison_kernel(__nv_bfloat16* data, size_t count) {
    const __nv_bfloat16 nan = __ushort_as_bfloat16(0x7fc0);
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        data[i] = nan;
}

// Keeps the stream busy for `ns` nanoseconds. The timing loop puts one in front of each batch
// of timed launches: while it spins, the host enqueues the whole batch, so the GPU then runs
// them back to back and each event pair measures the kernel alone. Without it, a kernel
// shorter than its own host-side launch work (argument checks, tensor-map encoding, cuBLAS's
// heuristics: several microseconds) would be timed together with the GPU waiting for the
// host.
__global__ void hold_kernel(long long ns) {
    long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// reference_gemm_f64: a 16 x 16 tile of C per block, K in steps of 16 through shared memory,
// every product and sum in float64 (a bf16 product is exact in float, the sum is not).
constexpr int kRefTile = 16;
__global__ void reference_gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N,
                                      int K) {
    __shared__ float a[kRefTile][kRefTile + 1], b[kRefTile][kRefTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int n = blockIdx.x * kRefTile + tx;
    const int tiles_m = (M + kRefTile - 1) / kRefTile;
    for (int tile_m = blockIdx.y; tile_m < tiles_m; tile_m += gridDim.y) {  // gridDim.y <= 65535
        const int m = tile_m * kRefTile + ty;
        double acc = 0;
        for (int k0 = 0; k0 < K; k0 += kRefTile) {
            const int k = k0 + tx;
            const int a_row = tile_m * kRefTile + ty, b_row = blockIdx.x * kRefTile + ty;
            a[ty][tx] = a_row < M && k < K ? __bfloat162float(A[static_cast<size_t>(a_row) * K + k]) : 0.f;
            b[ty][tx] = b_row < N && k < K ? __bfloat162float(B[static_cast<size_t>(b_row) * K + k]) : 0.f;
            __syncthreads();
            for (int kk = 0; kk < kRefTile; ++kk) acc += static_cast<double>(a[ty][kk]) * b[tx][kk];
            __syncthreads();
        }
        if (m < M && n < N) C[static_cast<size_t>(m) * N + n] = static_cast<float>(acc);
    }
}

unsigned grid_for(size_t count) {
    return static_cast<unsigned>(std::min<size_t>((count + 255) / 256, 65536));
}

}  // namespace

void fill_random(__nv_bfloat16* data, size_t count, uint64_t seed, cudaStream_t stream) {
    fill_random_kernel<<<grid_for(count), 256, 0, stream>>>(data, count, seed);
    LADDER_CUDA(cudaGetLastError());
}

void poison_nan(__nv_bfloat16* data, size_t count, cudaStream_t stream) {
    poison_kernel<<<grid_for(count), 256, 0, stream>>>(data, count);
    LADDER_CUDA(cudaGetLastError());
}

Cublas::Cublas() {
    LADDER_CUBLAS(cublasCreate(&handle_));
    // A workspace lets cuBLAS pick its fastest Hopper kernels (32 MiB is NVIDIA's advice for
    // Hopper in the cuBLAS documentation, cublasSetWorkspace).
    constexpr size_t kWorkspaceBytes = 32u << 20;
    LADDER_CUDA(cudaMalloc(&workspace_, kWorkspaceBytes));
    LADDER_CUBLAS(cublasSetWorkspace(handle_, workspace_, kWorkspaceBytes));
}

Cublas::~Cublas() {
    if (handle_) cublasDestroy(handle_);
    if (workspace_) cudaFree(workspace_);
}

// cuBLAS is column-major. Row-major C[M,N] is column-major C^T (N x M), and
// C^T = B * A^T, where row-major B[N,K] read column-major is B^T (so op T) and row-major
// A[M,K] read column-major is already A^T (op N).
void Cublas::gemm_into(const __nv_bfloat16* A, const __nv_bfloat16* B, void* C, cudaDataType c_type,
                       int M, int N, int K, cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    LADDER_CUBLAS(cublasSetStream(handle_, stream));
    LADDER_CUBLAS(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16BF,
                               K, A, CUDA_R_16BF, K, &beta, C, c_type, N, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT));
}

void Cublas::gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                  int K, cudaStream_t stream) {
    gemm_into(A, B, C, CUDA_R_16BF, M, N, K, stream);
}

void Cublas::gemm_f32(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N,
                      int K, cudaStream_t stream) {
    gemm_into(A, B, C, CUDA_R_32F, M, N, K, stream);
}

void reference_gemm_f64(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    const dim3 block(kRefTile, kRefTile);
    const dim3 grid(static_cast<unsigned>((N + kRefTile - 1) / kRefTile),
                    static_cast<unsigned>(std::min((M + kRefTile - 1) / kRefTile, 65535)));
    reference_gemm_kernel<<<grid, block>>>(A, B, C, M, N, K);
    LADDER_CUDA(cudaGetLastError());
    LADDER_CUDA(cudaDeviceSynchronize());
}

Samples sample_reference(const ProblemBuffers& p, long long M, long long N, long long K, uint64_t seed) {
    Samples out;
    out.where = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 60; ++i)
        out.where.push_back({static_cast<long long>(rng() % M), static_cast<long long>(rng() % N)});
    std::vector<uint16_t> a_row(K), b_row(K);
    for (auto [m, n] : out.where) {
        LADDER_CUDA(cudaMemcpy(a_row.data(), p.A.get() + m * K, K * 2, cudaMemcpyDeviceToHost));
        LADDER_CUDA(cudaMemcpy(b_row.data(), p.B.get() + n * K, K * 2, cudaMemcpyDeviceToHost));
        out.exact.push_back(check::reference_dot(a_row.data(), b_row.data(), static_cast<int>(K)));
    }
    return out;
}

std::vector<float> checked_reference(const ProblemBuffers& p, int M, int N, int K, const Samples& samples,
                                     Cublas& cublas, std::string* note) {
    note->clear();
    DeviceBuffer<float> ref(static_cast<size_t>(M) * N);
    cublas.gemm_f32(p.A.get(), p.B.get(), ref.get(), M, N, K);
    std::vector<float> want(ref.count());
    LADDER_CUDA(cudaMemcpy(want.data(), ref.get(), ref.bytes(), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < samples.where.size(); ++i) {
        const auto [m, n] = samples.where[i];
        const float got = want[static_cast<size_t>(m) * N + n];
        if (check::reference_within(got, samples.exact[i])) continue;
        char line[240];
        std::snprintf(line, sizeof line,
                      "cuBLAS's fp32 reference is off at C[%lld,%lld] (%.6g, float64 %.6g): checked against a "
                      "float64 GEMM on the GPU instead",
                      m, n, got, samples.exact[i].value);
        *note = line;
        reference_gemm_f64(p.A.get(), p.B.get(), ref.get(), M, N, K);
        LADDER_CUDA(cudaMemcpy(want.data(), ref.get(), ref.bytes(), cudaMemcpyDeviceToHost));
        break;
    }
    return want;
}

namespace {

// Samples the SM clock and board power from NVML while timed launches run (sampler.h), of
// the device current on the calling thread (the sampler's own thread has device 0 current).
Sampler nvml_sampler() {
    void* handle = nvml_device();
    return Sampler([handle] { return static_cast<double>(sm_clock_mhz_of(handle)); },
                   [handle] { return power_w_of(handle); }, std::chrono::microseconds(kSampleMicroseconds));
}

void record_samples(const SampleSummary& s, std::vector<Timing>* timings) {
    for (Timing& t : *timings) t.sm_clock_mhz = s.sm_clock_mhz, t.power_w = s.power_w;
}

// Witnesses of one timed loop (clock_witness.cuh): launch() after each batch, then mhz(): all
// their cycles over all their nanoseconds.
class ClockWitness {
public:
    ClockWitness() {
        LADDER_CUDA(cudaMalloc(&spans_, kCapacity * sizeof(ladder::WitnessSpan)));
        LADDER_CUDA(cudaMalloc(&sink_, ladder::kWitnessThreads * sizeof(float)));
    }
    ~ClockWitness() {
        cudaFree(spans_);
        cudaFree(sink_);
    }
    ClockWitness(const ClockWitness&) = delete;
    ClockWitness& operator=(const ClockWitness&) = delete;
    void launch(cudaStream_t stream) {
        if (launched_ == kCapacity) return;  // the first kCapacity witnesses speak for the loop
        ladder::clock_witness_kernel<<<1, ladder::kWitnessThreads, 0, stream>>>(spans_ + launched_++, sink_);
        LADDER_CUDA(cudaGetLastError());
    }
    // After the stream has finished the witnesses: MHz, 0 when none ran.
    double mhz() const {
        std::vector<ladder::WitnessSpan> spans(launched_);
        if (launched_ > 0)
            LADDER_CUDA(cudaMemcpy(spans.data(), spans_, launched_ * sizeof(ladder::WitnessSpan), cudaMemcpyDeviceToHost));
        double cycles = 0, ns = 0;
        for (const ladder::WitnessSpan& s : spans) cycles += static_cast<double>(s.cycles), ns += static_cast<double>(s.ns);
        return ns > 0 ? cycles / ns * 1e3 : 0.0;
    }

private:
    static constexpr int kCapacity = 8192;
    ladder::WitnessSpan* spans_ = nullptr;
    float* sink_ = nullptr;
    int launched_ = 0;
};

void record_witness(const ClockWitness& w, std::vector<Timing>* timings) {
    const double mhz = w.mhz();
    for (Timing& t : *timings) t.tensor_clock_mhz = mhz;
}

}  // namespace

std::vector<Timing> time_alternating(const std::vector<std::function<cudaError_t(int set)>>& launches,
                                     int sets, int min_runs, double budget_ms, cudaStream_t stream) {
    const int kinds = static_cast<int>(launches.size());
    auto checked = [&](int kind, int set) {
        cudaError_t err = launches[kind](set);
        if (err != cudaSuccess) throw Error(std::string("launch failed: ") + cudaGetErrorString(err));
    };
    // Launch `kind` of run i reads input set (i + kind * sets / kinds) % sets: the kinds read
    // different sets in the same run, and a set comes round again only after the others have
    // pushed it out of the L2 cache.
    auto set_of = [&](int run, int kind) { return (run + kind * sets / kinds) % sets; };

    // Warm-up: module load, lazy initialisation, clocks ramping. The second launch of each
    // kind also tells how long one launch takes, which sizes the timed loop.
    std::vector<Timing> timings(kinds);
    double estimate_sum = 0;
    for (int kind = 0; kind < kinds; ++kind) {
        cudaEvent_t probe_start, probe_stop;
        LADDER_CUDA(cudaEventCreate(&probe_start));
        LADDER_CUDA(cudaEventCreate(&probe_stop));
        checked(kind, set_of(0, kind));
        LADDER_CUDA(cudaEventRecord(probe_start, stream));
        checked(kind, set_of(1, kind));
        LADDER_CUDA(cudaEventRecord(probe_stop, stream));
        LADDER_CUDA(cudaEventSynchronize(probe_stop));
        float estimate_ms = 0;
        LADDER_CUDA(cudaEventElapsedTime(&estimate_ms, probe_start, probe_stop));
        cudaEventDestroy(probe_start);
        cudaEventDestroy(probe_stop);
        timings[kind].estimate_ms = estimate_ms;
        estimate_sum += estimate_ms;
        if (budget_ms > 0 && static_cast<double>(estimate_ms) * min_runs > budget_ms)
            return timings;  // every kind untimed (runs = 0)
    }
    if (estimate_sum < 50)  // fast kernels: a few more warm-up launches are free
        for (int i = 2; i < 7; ++i)
            for (int kind = 0; kind < kinds; ++kind) checked(kind, set_of(i, kind));

    const int runs = timed_run_count(estimate_sum, min_runs);
    std::vector<cudaEvent_t> start(static_cast<size_t>(runs) * kinds), stop(start.size());
    for (size_t i = 0; i < start.size(); ++i) {
        LADDER_CUDA(cudaEventCreate(&start[i]));
        LADDER_CUDA(cudaEventCreate(&stop[i]));
    }
    // Batches of runs, each behind a hold_kernel long enough for the host to enqueue the batch
    // (30 us of host work per launch is generous), and short enough that the launch queue
    // never fills while it spins.
    constexpr int kBatch = 32;
    constexpr long long kHostNsPerLaunch = 30000;
    // The GPU starts on the first batch as soon as it is enqueued and ends at the synchronize:
    // the samples between the two are the timed loop's.
    ClockWitness witness;
    Sampler sampler = nvml_sampler();
    sampler.start();
    for (int first = 0; first < runs; first += kBatch) {
        const int last = std::min(runs, first + kBatch);
        hold_kernel<<<1, 1, 0, stream>>>(kHostNsPerLaunch * kinds * (last - first));
        LADDER_CUDA(cudaGetLastError());
        for (int i = first; i < last; ++i)
            for (int kind = 0; kind < kinds; ++kind) {
                LADDER_CUDA(cudaEventRecord(start[i * kinds + kind], stream));
                checked(kind, set_of(i, kind));
                LADDER_CUDA(cudaEventRecord(stop[i * kinds + kind], stream));
            }
        witness.launch(stream);  // outside every event pair: it times nothing
    }
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const SampleSummary during = sampler.stop();
    for (int kind = 0; kind < kinds; ++kind) {
        std::vector<double> ms(runs);
        for (int i = 0; i < runs; ++i) {
            float t = 0;
            LADDER_CUDA(cudaEventElapsedTime(&t, start[i * kinds + kind], stop[i * kinds + kind]));
            ms[i] = t;
        }
        std::sort(ms.begin(), ms.end());
        timings[kind].runs = runs;
        timings[kind].min_ms = ms.front();
        timings[kind].max_ms = ms.back();
        timings[kind].median_ms = runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
    }
    for (size_t i = 0; i < start.size(); ++i) {
        cudaEventDestroy(start[i]);
        cudaEventDestroy(stop[i]);
    }
    record_samples(during, &timings);
    record_witness(witness, &timings);
    return timings;
}

GraphLaunches::GraphLaunches(const std::vector<std::function<cudaError_t(int, cudaStream_t)>>& launches,
                             int sets)
    : sets_(sets) {
    LADDER_CUDA(cudaStreamCreateWithFlags(&capture_, cudaStreamNonBlocking));
    try {
        capture_all(launches);
    } catch (...) {
        release();  // a constructor that throws runs no destructor
        throw;
    }
}

void GraphLaunches::capture_all(const std::vector<std::function<cudaError_t(int, cudaStream_t)>>& launches) {
    for (const auto& launch : launches)
        for (int set = 0; set < sets_; ++set) {
            if (cudaError_t err = launch(set, capture_); err != cudaSuccess)
                throw Error(std::string("launch failed before capture: ") + cudaGetErrorString(err));
            LADDER_CUDA(cudaStreamSynchronize(capture_));
            cudaGraph_t graph = nullptr;
            LADDER_CUDA(cudaStreamBeginCapture(capture_, cudaStreamCaptureModeThreadLocal));
            const cudaError_t launched = launch(set, capture_);
            const cudaError_t ended = cudaStreamEndCapture(capture_, &graph);
            if (launched != cudaSuccess || ended != cudaSuccess) {
                if (graph) cudaGraphDestroy(graph);
                throw Error(std::string("a launch could not be captured into a CUDA graph: ") +
                            cudaGetErrorString(launched != cudaSuccess ? launched : ended));
            }
            cudaGraphExec_t exec = nullptr;
            const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
            cudaGraphDestroy(graph);
            LADDER_CUDA(made);
            execs_.push_back(exec);
        }
}

void GraphLaunches::release() {
    for (cudaGraphExec_t exec : execs_) cudaGraphExecDestroy(exec);
    execs_.clear();
    if (capture_) cudaStreamDestroy(capture_);
    capture_ = nullptr;
}

GraphLaunches::~GraphLaunches() { release(); }

std::vector<std::function<cudaError_t(int)>> GraphLaunches::replays(cudaStream_t stream) const {
    std::vector<std::function<cudaError_t(int)>> out;
    for (size_t kind = 0; kind * sets_ < execs_.size(); ++kind)
        out.push_back([this, kind, stream](int set) {
            return cudaGraphLaunch(execs_[kind * sets_ + set], stream);
        });
    return out;
}

namespace {

// Median and minimum of a kind's times; `runs` how many there were.
Timing summarize(std::vector<double> ms) {
    Timing t;
    std::sort(ms.begin(), ms.end());
    const size_t n = ms.size();
    t.runs = static_cast<int>(n);
    t.min_ms = ms.front();
    t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    return t;
}

}  // namespace

std::vector<Timing> time_regime(const std::vector<std::function<cudaError_t(int set)>>& launches,
                                int sets, bool sustained, double seconds, cudaStream_t stream) {
    const int kinds = static_cast<int>(launches.size());
    auto set_of = [&](int run, int kind) { return (run + kind * sets / kinds) % sets; };
    constexpr int kBatch = 32;  // rounds enqueued between two host synchronisations
    std::vector<cudaEvent_t> start(static_cast<size_t>(kBatch) * kinds), stop(start.size());
    for (size_t i = 0; i < start.size(); ++i) {
        LADDER_CUDA(cudaEventCreate(&start[i]));
        LADDER_CUDA(cudaEventCreate(&stop[i]));
    }
    // One batch of `rounds` alternating rounds, first run number `first`; appends the times.
    std::vector<std::vector<double>> ms(kinds);
    ClockWitness witness;
    auto batch = [&](int first, int rounds, bool witnessed) {
        for (int i = 0; i < rounds; ++i)
            for (int kind = 0; kind < kinds; ++kind) {
                LADDER_CUDA(cudaEventRecord(start[i * kinds + kind], stream));
                const cudaError_t err = launches[kind](set_of(first + i, kind));
                if (err != cudaSuccess) throw Error(std::string("launch failed: ") + cudaGetErrorString(err));
                LADDER_CUDA(cudaEventRecord(stop[i * kinds + kind], stream));
            }
        if (witnessed) witness.launch(stream);
        LADDER_CUDA(cudaStreamSynchronize(stream));
        for (int i = 0; i < rounds; ++i)
            for (int kind = 0; kind < kinds; ++kind) {
                float t = 0;
                LADDER_CUDA(cudaEventElapsedTime(&t, start[i * kinds + kind], stop[i * kinds + kind]));
                ms[kind].push_back(t);
            }
    };
    // One untimed round loads the modules and creates the handles' lazy state.
    batch(0, 1, false);
    for (auto& m : ms) m.clear();
    Sampler sampler = nvml_sampler();
    SampleSummary during;
    if (!sustained) {
        // Cool: nothing runs for `seconds`, then the first 5 rounds, enqueued behind a hold
        // kernel so that the GPU, not the host, sets their pace.
        LADDER_CUDA(cudaStreamSynchronize(stream));
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
        constexpr int kRounds = 5;
        sampler.start();
        hold_kernel<<<1, 1, 0, stream>>>(30000LL * kinds * kRounds);
        LADDER_CUDA(cudaGetLastError());
        batch(1, kRounds, true);
        during = sampler.stop();
    } else {
        // Sustained: rounds back to back for `seconds` of wall time; the first half lets the
        // clock settle under the power limit, the second half is reported.
        const auto begin = std::chrono::steady_clock::now();
        int run = 1;
        auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(); };
        while (elapsed() < seconds) {
            const bool reported = elapsed() >= 0.5 * seconds;
            if (reported) sampler.start();  // the reported half (no-op once started)
            batch(run, kBatch, reported);
            run += kBatch;
        }
        during = sampler.stop();
        for (auto& m : ms) m.erase(m.begin(), m.begin() + static_cast<long>(m.size() / 2));
    }
    for (size_t i = 0; i < start.size(); ++i) {
        cudaEventDestroy(start[i]);
        cudaEventDestroy(stop[i]);
    }
    std::vector<Timing> timings;
    for (int kind = 0; kind < kinds; ++kind) timings.push_back(summarize(ms[kind]));
    record_samples(during, &timings);
    record_witness(witness, &timings);
    return timings;
}

}  // namespace ladder::harness
