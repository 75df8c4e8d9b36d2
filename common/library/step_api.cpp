// step_api.cpp: argument checks and error messages shared by every step's host launch.
#include "step_api.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>
#include <utility>

namespace ladder {
namespace {

thread_local char t_message[512] = "";

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Errors after which the CUDA context is unusable: every later call fails with the same code
// until the process exits (CUDA C++ Programming Guide, "Error Checking").
bool is_sticky(cudaError_t err) {
    switch (err) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed:
            return true;
        default:
            return false;
    }
}

cudaError_t fail_unusable(const char* step, cudaError_t err) {
    return fail(err,
                "%s: the CUDA context is unusable after an earlier fault (%s: %s); the process must "
                "be restarted",
                step, cudaGetErrorName(err), cudaGetErrorString(err));
}

// A host pointer handed to a kernel would fault on the GPU, and so would one on another GPU
// (without peer access): catch both here. `name` is "A", "B" or "C" for the message.
cudaError_t check_pointer(const char* step, const char* name, const void* p, int device) {
    cudaPointerAttributes attributes{};
    if (cudaError_t err = cudaPointerGetAttributes(&attributes, p); err != cudaSuccess) {
        // Since CUDA 11 an unregistered host pointer is not an error (its type says so): a
        // failure here is the runtime's own state, most often a sticky fault.
        if (is_sticky(err)) return fail_unusable(step, err);
        cudaGetLastError();
        return fail(err, "%s: cudaPointerGetAttributes(%s): %s", step, name, cudaGetErrorString(err));
    }
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
        return fail(cudaErrorInvalidValue, "%s: A, B and C must be device memory (cudaMalloc); %s is not",
                    step, name);
    // Managed memory migrates to whichever GPU touches it; device memory stays where it was
    // allocated, and the kernel runs on the current device.
    if (attributes.type == cudaMemoryTypeDevice && attributes.device != device)
        return fail(cudaErrorInvalidDevice,
                    "%s: %s is memory of device %d but device %d is current: call cudaSetDevice(%d) "
                    "before the call, or allocate on device %d",
                    step, name, attributes.device, device, attributes.device, device);
    return cudaSuccess;
}

// Whether the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte, without
// forming an end address that could wrap around.
bool overlaps(const void* a, std::uint64_t a_bytes, const void* b, std::uint64_t b_bytes) {
    const std::uintptr_t x = reinterpret_cast<std::uintptr_t>(a);
    const std::uintptr_t y = reinterpret_cast<std::uintptr_t>(b);
    return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

}  // namespace

cudaError_t fail(cudaError_t code, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(t_message, sizeof t_message, fmt, args);
    va_end(args);
    return code;
}

std::string no_gpu_message(cudaError_t err) {
    return std::string("no usable CUDA GPU: ") + cudaGetErrorString(err == cudaSuccess ? cudaErrorNoDevice : err);
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
    if (!valid_k(K))
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

    // The kernels read A and B while other CTAs write C (C is __restrict__): C must not
    // share a byte with either. Every size is below 2^31, so the byte counts fit 64 bits.
    const std::uint64_t a_bytes = std::uint64_t(M) * std::uint64_t(K) * sizeof(bf16);
    const std::uint64_t b_bytes = std::uint64_t(N) * std::uint64_t(K) * sizeof(bf16);
    const std::uint64_t c_bytes = std::uint64_t(M) * std::uint64_t(N) * sizeof(bf16);
    const bool c_on_a = overlaps(C, c_bytes, A, a_bytes);
    if (c_on_a || overlaps(C, c_bytes, B, b_bytes))
        return fail(cudaErrorInvalidValue,
                    "%s: C (%p, %llu bytes) overlaps %s (%p, %llu bytes): C must not share memory "
                    "with A or B",
                    step, static_cast<const void*>(C), static_cast<unsigned long long>(c_bytes),
                    c_on_a ? "A" : "B", static_cast<const void*>(c_on_a ? A : B),
                    static_cast<unsigned long long>(c_on_a ? a_bytes : b_bytes));

    // 2. The GPU: there must be one, and it must have the instructions the step uses.
    // An error an earlier, unrelated call left behind (a failed cudaMalloc, say) would
    // otherwise be read back by check_launch() as this launch's failure: clear it.
    // A sticky error cannot be cleared: it is still there when asked again, and nothing can
    // run in this process any more. (Errors of a missing driver persist too: the device
    // count below reports those.)
    const cudaError_t persists = cudaGetLastError() != cudaSuccess ? cudaPeekAtLastError() : cudaSuccess;
    if (is_sticky(persists)) return fail_unusable(step, persists);
    int device = 0;
    int count = 0;
    if (const cudaError_t found = cudaGetDeviceCount(&count); found != cudaSuccess || count == 0) {
        cudaGetLastError();
        return fail(cudaErrorNoDevice, "%s: %s", step, no_gpu_message(found).c_str());
    }
    if (persists != cudaSuccess)
        return fail(persists, "%s: an earlier CUDA error persists (%s: %s)", step,
                    cudaGetErrorName(persists), cudaGetErrorString(persists));
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return is_sticky(err) ? fail_unusable(step, err)
                              : fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
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
    for (const auto& [name, pointer] : {std::pair<const char*, const void*>{"A", A}, {"B", B}, {"C", C}})
        if (cudaError_t err = check_pointer(step, name, pointer, device); err != cudaSuccess)
            return err;
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
    if (is_sticky(err)) return fail_unusable(step, err);
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
    bool in_graph = false;  // handed out while the stream was being captured into a CUDA graph
};
std::mutex g_workspace_mutex;
std::map<std::pair<int, cudaStream_t>, Workspace> g_workspaces;
// Workspaces replaced by larger ones that a CUDA graph may still launch kernels on (every
// replay reuses the addresses it was captured with): never freed.
std::vector<void*> g_retired;

// Zeroes `bytes` at `data` now, outside the capture under way on the caller's stream: a
// memset on that stream would only be recorded into the graph, and the launches after the
// capture must find the buffer zero too. A stream of its own, which takes no part in the
// capture, does it; the caller has switched this thread to the relaxed capture mode, in
// which the synchronizing calls are allowed (CUDA Runtime API, cudaStreamBeginCapture).
cudaError_t zero_outside_capture(void* data, size_t bytes) {
    cudaStream_t own = nullptr;
    if (cudaError_t err = cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking); err != cudaSuccess)
        return err;
    cudaError_t err = cudaMemsetAsync(data, 0, bytes, own);
    if (err == cudaSuccess) err = cudaStreamSynchronize(own);
    cudaStreamDestroy(own);
    return err;
}

// The caller's workspace of this thread's current call (CallerWorkspace), if any.
thread_local Workspace t_caller{};
thread_local bool t_caller_active = false;

}  // namespace

CallerWorkspace::CallerWorkspace(void* data, size_t bytes) {
    t_caller = {data, bytes};
    t_caller_active = true;
}

CallerWorkspace::~CallerWorkspace() {
    t_caller = {};
    t_caller_active = false;
}

cudaError_t stream_workspace(const char* step, cudaStream_t stream, size_t bytes, void** out) {
    if (t_caller_active) {
        if (t_caller.data == nullptr || t_caller.bytes < bytes)
            return fail(cudaErrorInvalidValue,
                        "%s: the workspace passed is %zu bytes and this call needs %zu "
                        "(ladder_workspace_size gives what any call of the step needs)",
                        step, t_caller.data == nullptr ? size_t{0} : t_caller.bytes, bytes);
        *out = t_caller.data;
        return cudaSuccess;
    }
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaError_t err = cudaStreamIsCapturing(stream, &capture); err != cudaSuccess)
        return fail(err, "%s: cudaStreamIsCapturing: %s", step, cudaGetErrorString(err));
    const bool capturing = capture != cudaStreamCaptureStatusNone;
    std::lock_guard<std::mutex> lock(g_workspace_mutex);
    Workspace& w = g_workspaces[{device, stream}];
    if (w.bytes < bytes) {
        if (w.data != nullptr) {
            if (w.in_graph || capturing) {
                // A graph holds its address, or launches queued before this capture may still
                // run on it (and a capture cannot wait for them): keep it.
                g_retired.push_back(w.data);
            } else {
                // Earlier launches on this stream may still be using the smaller buffer.
                if (cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess)
                    return fail(err, "%s: cudaStreamSynchronize: %s", step, cudaGetErrorString(err));
                if (cudaError_t err = cudaFree(w.data); err != cudaSuccess)
                    return fail(err, "%s: cudaFree: %s", step, cudaGetErrorString(err));
            }
            w = {};
        }
        // During a capture in the global mode (PyTorch's default), cudaMalloc is refused as
        // potentially unsafe: this thread allows it for the allocation and the zeroing.
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        if (capturing) cudaThreadExchangeStreamCaptureMode(&mode);
        void* data = nullptr;
        cudaError_t err = cudaMalloc(&data, bytes);
        const char* what = "cudaMalloc";
        if (err == cudaSuccess) {
            // Zero before the first kernel that uses it: ordered on the same stream.
            err = capturing ? zero_outside_capture(data, bytes) : cudaMemsetAsync(data, 0, bytes, stream);
            what = "zeroing it";
            if (err != cudaSuccess) cudaFree(data);
        }
        if (capturing) cudaThreadExchangeStreamCaptureMode(&mode);
        if (err != cudaSuccess) {
            cudaGetLastError();  // out of memory is not sticky: leave no trace for the next call
            return fail(err, "%s: cannot allocate a %zu-byte workspace on device %d (%s): %s", step, bytes,
                        device, what, cudaGetErrorString(err));
        }
        w = {data, bytes};
    }
    w.in_graph = w.in_graph || capturing;
    *out = w.data;
    return cudaSuccess;
}

}  // namespace ladder
