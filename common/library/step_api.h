// step_api.h: the contract every step of the ladder implements, and the few
// shared pieces every step's host launch uses (argument checks, error text).
//
// The problem (same for every step):
//   C[M,N] = A[M,K] * B[N,K]^T    A, B, C row-major and densely packed
//   A, B bf16; accumulate in fp32; C written as bf16   ("TN" GEMM, both operands K-major)
// Every step accepts M >= 1, N >= 1, K >= 8 with K % 8 == 0 (rows of 16 bytes), none of
// them above kMaxDimension, and 16-byte aligned pointers, and computes the right answer
// for all of them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "arg_parse.h"  // printable, kMaxDimension, valid_k

#include <mutex>
#include <string>

namespace ladder {

using bf16 = __nv_bfloat16;

// The launch signature every step exposes as ladder::stepNN::gemm.
using GemmFn = cudaError_t (*)(const bf16* A, const bf16* B, bf16* C, int M, int N, int K,
                               cudaStream_t stream);

// kMaxDimension, the largest M, N or K a step accepts, and valid_k(): arg_parse.h, so that
// the command lines without CUDA (ladder-plan) take problems by the same rules.

// What GPU a step's code needs. Steps 01-02 use instructions every GPU since Ampere has;
// steps 03-07 use TMA (sm_90) and wgmma / setmaxnreg (sm_90a), so they need a Hopper GPU.
enum class NeedsArch { Sm80, Sm90a };

// The tile configuration a step was compiled with: printed next to its measured numbers
// and fed to the planner (common/models/planner.h) so prediction and measurement sit side by side.
struct TileConfig {
    int bm;                   // rows of C per CTA tile
    int bn;                   // columns of C per CTA tile
    int bk;                   // K extent of one k-block (one pipeline stage)
    int stages;               // shared-memory stages in the ring (1 = no pipelining, 0 = no smem)
    int consumer_warpgroups;  // warpgroups doing math (0 for steps without warpgroups)
    int cluster;              // CTAs per thread-block cluster (1 = no clusters)
    int threads;              // threads per CTA
};

// Validates the problem contract above and that the current GPU can run a step that
// needs `arch`. On failure it records a message (see last_error) naming `step` and
// returns the error code to hand back to the caller, having launched nothing.
// What it checks beyond the sizes: no null or misaligned pointer, C sharing no byte with A
// or B, every pointer device (or managed) memory of the current device, and a CUDA context
// that still works. It clears an error an earlier call left pending, so that check_launch()
// reports this launch's own. It cannot check the stream or that the buffers are as large
// as M, N and K say.
cudaError_t check_gemm_args(const char* step, const bf16* A, const bf16* B, const bf16* C,
                            int M, int N, int K, NeedsArch arch);

// Checks that the current GPU lets one block use `bytes` of shared memory (its opt-in
// limit), with a message naming `step` when it does not.
cudaError_t check_smem_optin(const char* step, int bytes);

// After a launch: turns cudaGetLastError() into a recorded message and returns it
// (check_gemm_args cleared what was pending before the launch).
cudaError_t check_launch(const char* step);

// Records a failure message for ladder_last_error() / last_error() and returns `code`.
cudaError_t fail(cudaError_t code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// printable(text), for echoing user input in a message: arg_parse.h.

// "no usable CUDA GPU: <the runtime's words>" for what cudaGetDeviceCount returned (`err`;
// cudaErrorNoDevice where it counted none): the one message the C API, the step executables
// and ladder-probe give when there is no GPU, or no driver, to run on.
std::string no_gpu_message(cudaError_t err);

// The message of the last failure on this thread ("" if none since clear_error()).
const char* last_error();
void clear_error();

// A device buffer of at least `bytes`, zero when first handed out, for the launches on
// `stream` of the current device. It is kept and handed out again to every later launch
// on the same stream (which run one after another, so they may share it); another stream
// gets its own. A kernel that uses it must leave it as it needs to find it again (step
// 07's stream-K lowers every flag it waits for). Safe to call from several host threads.
// Inside a CallerWorkspace's scope (ladder_gemm_with_workspace) the caller's buffer is handed
// out instead, on this thread, or the call fails with both sizes where it is too small.
cudaError_t stream_workspace(const char* step, cudaStream_t stream, size_t bytes, void** out);

// The caller's own workspace for the calls this thread makes while the object lives: no
// allocation, and whatever stream the call runs on. Zero before its first use; the kernels
// leave it as they need to find it again.
class CallerWorkspace {
  public:
    CallerWorkspace(void* data, size_t bytes);
    ~CallerWorkspace();
    CallerWorkspace(const CallerWorkspace&) = delete;
    CallerWorkspace& operator=(const CallerWorkspace&) = delete;
};

// Lets `kernel` use `bytes` of dynamic shared memory on the current GPU. More than 48 KB
// must be asked for with cudaFuncSetAttribute (CUDA C++ Programming Guide, "Shared Memory").
// Done on every launch: it is cheap, and a "done" flag would miss a second GPU of the process.
template <typename Kernel>
cudaError_t allow_dynamic_smem(const char* step, Kernel* kernel, int bytes) {
    if (cudaError_t err = check_smem_optin(step, bytes); err != cudaSuccess) return err;
    if (cudaError_t err =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        err != cudaSuccess)
        return fail(err, "%s: cannot raise dynamic shared memory to %d bytes: %s", step, bytes,
                    cudaGetErrorString(err));
    return cudaSuccess;
}

// A value that depends only on the device (SM count, occupancy), computed once per device
// and shared by every host thread. Declare one as a function-local static; get() is safe to
// call from several threads at once, on several devices.
template <typename T>
class PerDeviceCache {
  public:
    // Returns in *out the value for `device`, calling compute(&value) (a cudaError_t) the
    // first time; a failed compute is returned and not remembered.
    template <typename Compute>
    cudaError_t get(int device, T* out, Compute&& compute) {
        if (device < 0 || device >= kDevices) return compute(out);
        std::lock_guard<std::mutex> lock(mutex_);
        if (!known_[device]) {
            if (cudaError_t err = compute(&values_[device]); err != cudaSuccess) return err;
            known_[device] = true;
        }
        *out = values_[device];
        return cudaSuccess;
    }

  private:
    static constexpr int kDevices = 64;  // more than any one machine has; others are not cached
    std::mutex mutex_;
    bool known_[kDevices] = {};
    T values_[kDevices] = {};
};

}  // namespace ladder
