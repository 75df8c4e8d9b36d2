// stub_cudart.h: a fake CUDA runtime for CPU tests of the argument checks
// (common/library/step_api.cpp).
// stub_cudart.cpp defines the few runtime entry points the checks call, answering from the
// state below, so a test can stage what no CPU-only machine has: GPUs, device memory on
// two devices, a pending error, a sticky fault.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>

namespace stub {

struct Allocation {
    const void* base;
    size_t bytes;
    cudaMemoryType type;
    int device;
};

struct Runtime {
    int device_count = 1;
    int current_device = 0;
    int cc_major = 9, cc_minor = 0;
    cudaError_t pending = cudaSuccess;  // cleared by cudaGetLastError (a non-sticky error)
    cudaError_t sticky = cudaSuccess;   // returned by every call, never cleared
    static constexpr int kMaxAllocations = 8;
    Allocation allocations[kMaxAllocations] = {};
    int allocation_count = 0;
    std::atomic<int> entry_point_queries{0};
};

// The state every stub entry point reads; reset() before each test.
Runtime& runtime();
void reset();
// Registers [base, base + bytes) as memory of `type` on `device`.
void add_allocation(const void* base, size_t bytes, cudaMemoryType type, int device);

}  // namespace stub
