// stub_cudart.cpp: see stub_cudart.h. Linked instead of libcudart, so each entry point here
// has the runtime's own signature (from cuda_runtime_api.h) and C linkage.
#include "stub_cudart.h"

#include <cuda.h>

#include <chrono>
#include <thread>

namespace stub {

Runtime& runtime() {
    static Runtime state;
    return state;
}

void reset() {
    Runtime& r = runtime();
    r.device_count = 1;
    r.current_device = 0;
    r.cc_major = 9;
    r.cc_minor = 0;
    r.pending = cudaSuccess;
    r.sticky = cudaSuccess;
    r.allocation_count = 0;
    r.entry_point_queries = 0;
}

void add_allocation(const void* base, size_t bytes, cudaMemoryType type, int device) {
    Runtime& r = runtime();
    if (r.allocation_count < Runtime::kMaxAllocations)
        r.allocations[r.allocation_count++] = {base, bytes, type, device};
}

}  // namespace stub

namespace {

// What the real runtime does with a failing call: the error is also left pending.
cudaError_t record(cudaError_t err) {
    if (err != cudaSuccess && stub::runtime().pending == cudaSuccess) stub::runtime().pending = err;
    return err;
}

CUresult fake_encode(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                     const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
    return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

cudaError_t cudaGetLastError(void) {
    stub::Runtime& r = stub::runtime();
    if (r.sticky != cudaSuccess) return r.sticky;
    const cudaError_t err = r.pending;
    r.pending = cudaSuccess;
    return err;
}

cudaError_t cudaPeekAtLastError(void) {
    const stub::Runtime& r = stub::runtime();
    return r.sticky != cudaSuccess ? r.sticky : r.pending;
}

const char* cudaGetErrorString(cudaError_t err) {
    switch (err) {
        case cudaSuccess: return "no error";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        default: return "some error";
    }
}

const char* cudaGetErrorName(cudaError_t err) {
    switch (err) {
        case cudaSuccess: return "cudaSuccess";
        case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
        case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
        default: return "cudaErrorUnknown";
    }
}

cudaError_t cudaGetDeviceCount(int* count) {
    const stub::Runtime& r = stub::runtime();
    *count = r.device_count;
    return record(r.device_count > 0 ? cudaSuccess : cudaErrorNoDevice);
}

cudaError_t cudaGetDevice(int* device) {
    *device = stub::runtime().current_device;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int) {
    const stub::Runtime& r = stub::runtime();
    if (r.sticky != cudaSuccess) return r.sticky;
    *value = attr == cudaDevAttrComputeCapabilityMajor   ? r.cc_major
             : attr == cudaDevAttrComputeCapabilityMinor ? r.cc_minor
                                                         : 232448;
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* p) {
    const stub::Runtime& r = stub::runtime();
    if (r.sticky != cudaSuccess) return r.sticky;
    *attributes = {};
    attributes->type = cudaMemoryTypeUnregistered;
    for (int i = 0; i < r.allocation_count; ++i) {
        const stub::Allocation& a = r.allocations[i];
        const char* base = static_cast<const char*>(a.base);
        if (static_cast<const char*>(p) >= base && static_cast<const char*>(p) < base + a.bytes) {
            attributes->type = a.type;
            attributes->device = a.device;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char*, void** fn, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
    ++stub::runtime().entry_point_queries;
    // Slow, as a first driver call can be: threads that arrive meanwhile must wait for this
    // answer, not ask again.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    *fn = reinterpret_cast<void*>(&fake_encode);
    *status = cudaDriverEntryPointSuccess;
    return cudaSuccess;
}

// stream_workspace() (step_api.cpp) allocates through these; the tests here never call it,
// and an allocation that is never used must still not pretend to succeed.
cudaError_t cudaMalloc(void** p, size_t) {
    *p = nullptr;
    return record(cudaErrorMemoryAllocation);
}
cudaError_t cudaFree(void*) { return cudaSuccess; }
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return record(cudaErrorInvalidValue); }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus* status) {
    *status = cudaStreamCaptureStatusNone;
    return cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode*) { return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
    *s = nullptr;
    return record(cudaErrorInvalidValue);
}
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }

}  // extern "C"
