// harness.h: the GPU side of the harness: device facts, buffers, random inputs, the NaN
// poison, the cuBLAS reference and the timer. Steps never include this; the step
// executables (step_main.cpp) and the GPU tests do.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "check.h"

namespace ladder::harness {

// Any failed CUDA or cuBLAS call in the harness throws this, with the call and its location.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void throw_cuda(cudaError_t err, const char* call, const char* file, int line);
void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line);

#define LADDER_CUDA(call)                                                                   \
    do {                                                                                    \
        cudaError_t ladder_err_ = (call);                                                   \
        if (ladder_err_ != cudaSuccess)                                                     \
            ::ladder::harness::throw_cuda(ladder_err_, #call, __FILE__, __LINE__);          \
    } while (0)
#define LADDER_CUBLAS(call)                                                                 \
    do {                                                                                    \
        cublasStatus_t ladder_status_ = (call);                                             \
        if (ladder_status_ != CUBLAS_STATUS_SUCCESS)                                        \
            ::ladder::harness::throw_cublas(ladder_status_, #call, __FILE__, __LINE__);     \
    } while (0)

struct DeviceInfo {
    std::string name;
    int major = 0, minor = 0;
    int sm_count = 0;
    long long l2_bytes = 0;
    int smem_optin_bytes = 0;
    int peak_sm_clock_mhz = 0;
    int mem_clock_khz = 0;        // peak memory clock
    int mem_bus_width_bits = 0;
    std::string cuda;    // runtime version "13.0"
    std::string driver;  // the driver's CUDA version "13.0"
};

// True when a CUDA GPU can be used; otherwise *why says what is missing.
bool gpu_available(std::string* why);
DeviceInfo device_info();

// The SM clock right now, from NVML when the driver provides it (loaded at run time, so the
// harness does not link against it); 0 when unknown.
int current_sm_clock_mhz();
// The board's power draw right now in watts, from NVML likewise: its instantaneous reading
// where the driver has one (NVML_FI_DEV_POWER_INSTANT), else nvmlDeviceGetPowerUsage, which
// on Ampere and later is an average over the last second; 0 when unknown.
double current_power_w();

// Today's date as YYYY-MM-DD (UTC).
std::string today();

// A device allocation that frees itself.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        LADDER_CUDA(cudaMalloc(&ptr_, count * sizeof(T)));
    }
    ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) cudaFree(ptr_);
            ptr_ = o.ptr_;
            count_ = o.count_;
            o.ptr_ = nullptr;
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() const { return ptr_; }
    size_t count() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

// Uniform random bf16 in [-1, 1) from a counter-based hash of (seed, index): the same seed
// gives the same matrix on any GPU, and no two seeds share a stream of values.
void fill_random(__nv_bfloat16* data, size_t count, uint64_t seed, cudaStream_t stream = nullptr);
// Fills with NaN, so any element a kernel fails to write shows up in the check.
void poison_nan(__nv_bfloat16* data, size_t count, cudaStream_t stream = nullptr);

// One problem's device buffers: A[M,K], B[N,K], C[M,N].
struct ProblemBuffers {
    DeviceBuffer<__nv_bfloat16> A, B, C;
    ProblemBuffers(long long M, long long N, long long K)
        : A(static_cast<size_t>(M * K)), B(static_cast<size_t>(N * K)), C(static_cast<size_t>(M * N)) {}
    size_t bytes() const { return A.bytes() + B.bytes() + C.bytes(); }
};

// cuBLAS computing the same C = A * B^T (row-major) with fp32 accumulation.
class Cublas {
public:
    Cublas();
    ~Cublas();
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
    // bf16 output: what the steps are timed against.
    void gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
              cudaStream_t stream = nullptr);
    // fp32 output: the reference the steps are checked against (no output rounding).
    void gemm_f32(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                  cudaStream_t stream = nullptr);

private:
    void gemm_into(const __nv_bfloat16* A, const __nv_bfloat16* B, void* C, cudaDataType c_type,
                   int M, int N, int K, cudaStream_t stream);
    cublasHandle_t handle_ = nullptr;
    void* workspace_ = nullptr;
};

// A float64 GEMM on the GPU (C = A * B^T, rounded to float once at the end): slow, but it
// shares nothing with cuBLAS. The reference where cuBLAS's own fp32 result is off.
void reference_gemm_f64(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K);

// Sampled elements of C: the four corners and 60 random ones, with their float64 dot products
// computed on the CPU.
struct Samples {
    std::vector<std::pair<long long, long long>> where;
    std::vector<check::DotResult> exact;
};
Samples sample_reference(const ProblemBuffers& p, long long M, long long N, long long K, uint64_t seed);

// The reference of a full check, on the host: cuBLAS with fp32 output where it agrees with
// float64 at every sample (check::reference_within), else reference_gemm_f64. cuBLAS has
// shapes it gets wrong: CUDA 13.0's leaves out K's last columns at 128x128x65544 (step 07's
// NOTES.md, "A failed check at K = 65544"). *note is empty, or says where cuBLAS was off.
std::vector<float> checked_reference(const ProblemBuffers& p, int M, int N, int K, const Samples& samples,
                                     Cublas& cublas, std::string* note);

struct Timing {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
    double estimate_ms = 0;  // one launch, from the warm-up
    int runs = 0;            // 0: not timed, because min_runs launches would exceed the budget
    // NVML's SM clock and board power while the timed launches ran (every kind's loop, the
    // same for all kinds): means of samples every kSampleMicroseconds (sampler.h); 0 when
    // unknown.
    double sm_clock_mhz = 0;
    double power_w = 0;
    // The clock an SM under tensor-core load counts while the loop runs: cycles over
    // %globaltimer of a witness kernel after each batch (harness.cu, ClockWitness); 0 when
    // not measured. NVML's clock above need not be that rate (on the H200 it was about 9%
    // higher), nor is it fresh on a short loop (common/models/README.md, "What NVML's clock
    // is not").
    double tensor_clock_mhz = 0;
};

// How often the clock and power are sampled while timed launches run.
constexpr int kSampleMicroseconds = 2000;

// Times several launches (the step and cuBLAS, say) with CUDA events, one event pair per
// launch, ALTERNATING them (a, b, a, b, ...) so that every kind sees the same clocks and
// temperature: an H100 under sustained load lowers its SM clock by a quarter, and kinds
// timed one after the other would see different clocks. Warm-up launches come first. The
// timed launches are enqueued in batches behind a kernel that holds the GPU until the host
// has enqueued the batch, so a short kernel is not timed together with its host-side
// launch work (the GPU waiting for the host).
// Launches cycle through `sets` input sets so that the working set exceeds the L2 cache
// and no launch finds its inputs cached. Each kind runs at least min_runs times (more for
// short kernels, up to ~0.3 s of GPU time in all) and reports its median. With
// budget_ms > 0, when min_runs launches of any kind would take longer than that, nothing
// is timed (every runs = 0). While the timed launches run, a thread samples the SM clock and
// board power (Timing::sm_clock_mhz, power_w).
std::vector<Timing> time_alternating(const std::vector<std::function<cudaError_t(int set)>>& launches,
                                     int sets, int min_runs, double budget_ms = 0,
                                     cudaStream_t stream = nullptr);

// The same launches as CUDA graphs (--graph): each (kind, set) is run once on a stream of its
// own (a library sizes its workspace for a stream on its first call there), then captured
// once into a graph. replays() gives launches that replay those graphs on `stream`, for
// time_alternating. A launch that fails or cannot be captured throws Error.
class GraphLaunches {
public:
    GraphLaunches(const std::vector<std::function<cudaError_t(int set, cudaStream_t)>>& launches, int sets);
    ~GraphLaunches();
    GraphLaunches(const GraphLaunches&) = delete;
    GraphLaunches& operator=(const GraphLaunches&) = delete;
    std::vector<std::function<cudaError_t(int set)>> replays(cudaStream_t stream = nullptr) const;

private:
    void capture_all(const std::vector<std::function<cudaError_t(int set, cudaStream_t)>>& launches);
    void release();
    int sets_ = 0;
    cudaStream_t capture_ = nullptr;
    std::vector<cudaGraphExec_t> execs_;  // kind * sets + set
};

// The two regimes a public number is quoted in, for the same alternating launches as
// time_alternating (each launch reads another input set; the kinds alternate, so they see
// the same clocks):
//   cool       the GPU idles for `seconds`, then the first 5 launches of each kind are timed:
//              a cold board at its peak clock, like a one-off measurement;
//   sustained  the kinds run back to back for `seconds` and each reports the median of the
//              second half: the clock the power limit settles at under sustained load.
// The clock and power are sampled as in time_alternating: over the 5 rounds, or the second half.
std::vector<Timing> time_regime(const std::vector<std::function<cudaError_t(int set)>>& launches,
                                int sets, bool sustained, double seconds,
                                cudaStream_t stream = nullptr);

// How many timed runs time_alternating makes of each kind when one round of all kinds takes
// round_ms: enough for ~0.3 s of GPU time, at most 500 unless min_runs asks for more, and
// never fewer than min_runs.
inline int timed_run_count(double round_ms, int min_runs) {
    constexpr double kBudgetMs = 300;
    const double wanted = kBudgetMs / (round_ms > 1e-3 ? round_ms : 1e-3);
    const int most = min_runs > 500 ? min_runs : 500;
    return wanted < min_runs ? min_runs : wanted > most ? most : static_cast<int>(wanted);
}

}  // namespace ladder::harness
