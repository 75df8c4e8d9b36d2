// CPU tests of the argument checks (common/library/step_api.cpp) against a fake CUDA runtime
// (stub_cudart.cpp): the paths that need GPUs, device memory on two devices or a faulted
// context, which no CPU-only machine has, and the per-device cache with many host threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "step_api.h"
#include "stub_cudart.h"
#include "tensor_map.h"

namespace {

using ladder::bf16;

const bf16* at(std::uintptr_t address) { return reinterpret_cast<const bf16*>(address); }

// Three 1 MiB buffers of device memory on device 0, and one on device 1.
const std::uintptr_t kA = 0x100000, kB = 0x200000, kC = 0x300000, kOther = 0x400000;
constexpr size_t kBytes = 1 << 20;

class StubRuntime : public ::testing::Test {
  protected:
    void SetUp() override {
        stub::reset();
        stub::runtime().device_count = 2;
        for (std::uintptr_t p : {kA, kB, kC})
            stub::add_allocation(at(p), kBytes, cudaMemoryTypeDevice, 0);
        stub::add_allocation(at(kOther), kBytes, cudaMemoryTypeDevice, 1);
        ladder::clear_error();
    }
    static cudaError_t check(std::uintptr_t a, std::uintptr_t b, std::uintptr_t c, int M = 64,
                             int N = 64, int K = 64) {
        return ladder::check_gemm_args("step", at(a), at(b), at(c), M, N, K, ladder::NeedsArch::Sm90a);
    }
    static std::string message() { return ladder::last_error(); }
};

TEST_F(StubRuntime, AcceptsAGoodCall) {
    EXPECT_EQ(check(kA, kB, kC), cudaSuccess) << message();
}

// A failed cudaMalloc earlier leaves its error pending: the next good call must neither
// fail on it nor report it as its own launch failure.
TEST_F(StubRuntime, AStaleErrorDoesNotFailAGoodCall) {
    stub::runtime().pending = cudaErrorMemoryAllocation;
    EXPECT_EQ(check(kA, kB, kC), cudaSuccess) << message();
    EXPECT_EQ(ladder::check_launch("step"), cudaSuccess) << message();
}

TEST_F(StubRuntime, AStickyErrorIsReportedAsItself) {
    stub::runtime().sticky = cudaErrorIllegalAddress;
    EXPECT_EQ(check(kA, kB, kC), cudaErrorIllegalAddress);
    EXPECT_NE(message().find("unusable"), std::string::npos) << message();
    EXPECT_NE(message().find("restarted"), std::string::npos) << message();
    EXPECT_NE(message().find("cudaErrorIllegalAddress"), std::string::npos) << message();
    EXPECT_EQ(message().find("device memory"), std::string::npos) << message();
}

TEST_F(StubRuntime, AStickyErrorAtLaunchIsReportedAsUnusable) {
    stub::runtime().sticky = cudaErrorLaunchFailure;
    EXPECT_EQ(ladder::check_launch("step"), cudaErrorLaunchFailure);
    EXPECT_NE(message().find("unusable"), std::string::npos) << message();
}

TEST_F(StubRuntime, RefusesMemoryOfAnotherDeviceNamingBoth) {
    for (int which = 0; which < 3; ++which) {
        const std::uintptr_t a = which == 0 ? kOther : kA, b = which == 1 ? kOther : kB,
                             c = which == 2 ? kOther : kC;
        EXPECT_EQ(check(a, b, c), cudaErrorInvalidDevice) << which;
        EXPECT_NE(message().find(std::string(1, "ABC"[which]) + " is memory of device 1"), std::string::npos)
            << message();
        EXPECT_NE(message().find("device 0 is current"), std::string::npos) << message();
    }
    stub::runtime().current_device = 1;  // the same pointers, the other device current
    EXPECT_EQ(check(kOther, kB, kC), cudaErrorInvalidDevice);
    EXPECT_NE(message().find("B is memory of device 0 but device 1 is current"), std::string::npos)
        << message();
}

TEST_F(StubRuntime, KeepsTheRulesForManagedAndHostMemory) {
    stub::add_allocation(at(0x500000), kBytes, cudaMemoryTypeManaged, 1);
    stub::add_allocation(at(0x600000), kBytes, cudaMemoryTypeHost, 0);
    EXPECT_EQ(check(0x500000, kB, kC), cudaSuccess) << message();  // managed memory migrates
    EXPECT_EQ(check(kA, 0x600000, kC), cudaErrorInvalidValue);
    EXPECT_NE(message().find("must be device memory"), std::string::npos) << message();
    EXPECT_EQ(check(kA, kB, 0x700000), cudaErrorInvalidValue);  // unregistered host memory
    EXPECT_NE(message().find("C is not"), std::string::npos) << message();
}

TEST_F(StubRuntime, RefusesCOverlappingAOrB) {
    // 64x64 bf16 = 8 KiB each; A spans [kA, kA + 8192).
    EXPECT_EQ(check(kA, kB, kA), cudaErrorInvalidValue);
    EXPECT_NE(message().find("C ("), std::string::npos) << message();
    EXPECT_NE(message().find("overlaps A"), std::string::npos) << message();
    EXPECT_EQ(check(kA, kB, kA + 8192 - 16), cudaErrorInvalidValue);
    EXPECT_NE(message().find("overlaps A"), std::string::npos) << message();
    EXPECT_EQ(check(kA, kB, kB - 8192 + 16), cudaErrorInvalidValue);  // C's end reaches into B
    EXPECT_NE(message().find("overlaps B"), std::string::npos) << message();
    // Touching but not sharing a byte is fine, either side.
    EXPECT_EQ(check(kA, kB, kA + 8192), cudaSuccess) << message();
    EXPECT_EQ(check(kA, kB, kB - 8192), cudaSuccess) << message();
    // A and B may alias each other: both are only read.
    EXPECT_EQ(check(kA, kA, kC), cudaSuccess) << message();
}

TEST_F(StubRuntime, OverlapArithmeticDoesNotWrapAtTheTopOfTheAddressSpace) {
    const std::uintptr_t top = ~std::uintptr_t{0} & ~std::uintptr_t{15};
    stub::add_allocation(at(top - kBytes + 16), kBytes, cudaMemoryTypeDevice, 0);
    // A ends at the last byte of the address space, so A + its size wraps to 0: a C inside
    // A must still be found overlapping.
    const std::uintptr_t a = top - 8192 + 16;
    EXPECT_EQ(check(a, kB, a + 16), cudaErrorInvalidValue);
    EXPECT_NE(message().find("overlaps A"), std::string::npos) << message();
}

TEST_F(StubRuntime, SaysWhenThereIsNoGpu) {
    stub::runtime().device_count = 0;
    EXPECT_EQ(check(kA, kB, kC), cudaErrorNoDevice);
    EXPECT_NE(message().find("no usable CUDA GPU: "), std::string::npos) << message();
}

TEST(PerDeviceCache, ComputesOncePerDeviceAcrossThreads) {
    ladder::PerDeviceCache<int> cache;
    std::atomic<int> computed[4] = {};
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 1000; ++i) {
                const int device = (t + i) % 4;
                int value = -1;
                const cudaError_t err = cache.get(device, &value, [&](int* v) {
                    ++computed[device];
                    *v = 100 + device;
                    return cudaSuccess;
                });
                if (err != cudaSuccess || value != 100 + device) ++wrong;
            }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong, 0);
    for (int d = 0; d < 4; ++d) EXPECT_EQ(computed[d], 1) << "device " << d;
}

TEST(PerDeviceCache, DoesNotRememberAFailure) {
    ladder::PerDeviceCache<int> cache;
    int value = 0;
    EXPECT_EQ(cache.get(0, &value, [](int*) { return cudaErrorNotSupported; }), cudaErrorNotSupported);
    EXPECT_EQ(cache.get(0, &value, [](int* v) { *v = 7; return cudaSuccess; }), cudaSuccess);
    EXPECT_EQ(value, 7);
    // An ordinal past the table is computed each time, never out of bounds.
    EXPECT_EQ(cache.get(1000, &value, [](int* v) { *v = 9; return cudaSuccess; }), cudaSuccess);
    EXPECT_EQ(value, 9);
}

// The encoder is looked up once, however many threads encode their first map together.
TEST(TensorMap, LooksTheEncoderUpOnceAcrossThreads) {
    stub::reset();
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    std::atomic<bool> go{false};
    alignas(64) static bf16 matrix[64 * 64];
    for (int t = 0; t < 16; ++t)
        threads.emplace_back([&] {
            while (!go) std::this_thread::yield();
            CUtensorMap map{};
            if (ladder::make_tensor_map_2d(&map, matrix, 64, 64, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B,
                                           "step") != cudaSuccess)
                ++failures;
        });
    go = true;
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(stub::runtime().entry_point_queries, 1);
}

}  // namespace
