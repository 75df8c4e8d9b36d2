// step_api.cpp: argument checks and error messages shared by every step's host launch.
#include "step_api.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

namespace ladder {
namespace {

thread_local char t_message[512] = "";

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// A host pointer handed to a kernel would fault on the GPU: catch it here instead.
bool is_device_pointer(const void* p) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
        cudaGetLastError();  // an unregistered host pointer may leave a sticky-free error behind
        return false;
    }
    return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

}  // namespace

cudaError_t fail(cudaError_t code, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(t_message, sizeof t_message, fmt, args);
    va_end(args);
    return code;
}

const char* last_error() { return t_message; }
void clear_error() { t_message[0] = '\0'; }

cudaError_t check_gemm_args(const char* step, const bf16* A, const bf16* B, const bf16* C, int M,
                            int N, int K, NeedsArch arch) {
    // 1. The problem contract: pure checks, no GPU needed.
    if (M < 1 || N < 1 || K < 1)
        return fail(cudaErrorInvalidValue, "%s: M, N and K must be >= 1 (got M=%d N=%d K=%d)", step,
                    M, N, K);
    // Tile origins plus tile extents (up to a few hundred) are computed in int by the kernels:
    // keep every dimension far enough below INT_MAX that they cannot overflow.
    if (M > kMaxDimension || N > kMaxDimension || K > kMaxDimension)
        return fail(cudaErrorInvalidValue, "%s: M, N and K must be <= %d (got M=%d N=%d K=%d)", step,
                    kMaxDimension, M, N, K);
    if (K < 8 || K % 8 != 0)
        return fail(cudaErrorInvalidValue,
                    "%s: K must be a multiple of 8 and >= 8 so every row is whole 16-byte chunks "
                    "(got K=%d)",
                    step, K);
    if (A == nullptr || B == nullptr || C == nullptr)
        return fail(cudaErrorInvalidValue, "%s: null pointer (A=%p B=%p C=%p)", step,
                    static_cast<const void*>(A), static_cast<const void*>(B),
                    static_cast<const void*>(C));
    if (!aligned16(A) || !aligned16(B) || !aligned16(C))
        return fail(cudaErrorMisalignedAddress,
                    "%s: A, B and C must be 16-byte aligned (A=%p B=%p C=%p)", step,
                    static_cast<const void*>(A), static_cast<const void*>(B),
                    static_cast<const void*>(C));
    // C is written with 16-byte stores by some steps: rows of C must then start aligned too,
    // which N % 8 == 0 guarantees; steps that need it fall back to narrower stores otherwise.

    // 2. The GPU: there must be one, and it must have the instructions the step uses.
    int device = 0;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        return fail(cudaErrorNoDevice, "%s: no CUDA GPU is available on this machine", step);
    }
    if (cudaGetDevice(&device) != cudaSuccess) return fail(cudaErrorNoDevice, "%s: cudaGetDevice failed", step);
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (arch == NeedsArch::Sm90a && !(major == 9 && minor == 0))
        return fail(cudaErrorNotSupported,
                    "%s: needs a Hopper GPU (sm_90a: TMA, wgmma, setmaxnreg); device %d is sm_%d%d",
                    step, device, major, minor);
    if (arch == NeedsArch::Sm80 && major < 8)
        return fail(cudaErrorNotSupported,
                    "%s: needs an Ampere or newer GPU (sm_80+: cp.async, bf16 mma); device %d is "
                    "sm_%d%d",
                    step, device, major, minor);
    if (!is_device_pointer(A) || !is_device_pointer(B) || !is_device_pointer(C))
        return fail(cudaErrorInvalidValue, "%s: A, B and C must be device memory (cudaMalloc)",
                    step);
    return cudaSuccess;
}

cudaError_t check_smem_optin(const char* step, int bytes) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
    int optin = 0;
    if (cudaError_t err =
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        err != cudaSuccess)
        return fail(err, "%s: cudaDeviceGetAttribute: %s", step, cudaGetErrorString(err));
    if (optin < bytes)
        return fail(cudaErrorNotSupported,
                    "%s: needs %d bytes of shared memory per block, device %d allows %d", step,
                    bytes, device, optin);
    return cudaSuccess;
}

cudaError_t check_launch(const char* step) {
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return fail(err, "%s: kernel launch failed: %s", step, cudaGetErrorString(err));
    return cudaSuccess;
}

namespace {

// The workspaces of stream_workspace(), one per (device, stream), kept for the life of
// the process. The mutex makes the table safe to use from several host threads.
struct Workspace {
    void* data = nullptr;
    size_t bytes = 0;
};
std::mutex g_workspace_mutex;
std::map<std::pair<int, cudaStream_t>, Workspace> g_workspaces;

}  // namespace

cudaError_t stream_workspace(const char* step, cudaStream_t stream, size_t bytes, void** out) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
    std::lock_guard<std::mutex> lock(g_workspace_mutex);
    Workspace& w = g_workspaces[{device, stream}];
    if (w.bytes < bytes) {
        if (w.data != nullptr) {
            // Earlier launches on this stream may still be using the smaller buffer.
            if (cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess)
                return fail(err, "%s: cudaStreamSynchronize: %s", step, cudaGetErrorString(err));
            if (cudaError_t err = cudaFree(w.data); err != cudaSuccess)
                return fail(err, "%s: cudaFree: %s", step, cudaGetErrorString(err));
            w = {};
        }
        void* data = nullptr;
        if (cudaError_t err = cudaMalloc(&data, bytes); err != cudaSuccess) {
            cudaGetLastError();  // out of memory is not sticky: leave no trace for the next call
            return fail(err, "%s: cannot allocate a %zu-byte workspace on device %d: %s", step,
                        bytes, device, cudaGetErrorString(err));
        }
        // Zero before the first kernel that uses it: ordered on the same stream.
        if (cudaError_t err = cudaMemsetAsync(data, 0, bytes, stream); err != cudaSuccess) {
            cudaFree(data);
            return fail(err, "%s: cudaMemsetAsync: %s", step, cudaGetErrorString(err));
        }
        w = {data, bytes};
    }
    *out = w.data;
    return cudaSuccess;
}

}  // namespace ladder
