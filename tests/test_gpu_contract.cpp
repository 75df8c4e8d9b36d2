// GPU tests of the contract's edges: element counts past 2^31, a dimension at the cap,
// several host threads and streams at once, a second device, and an error left pending by
// an unrelated call. Without a suitable GPU every test here is skipped with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "check.h"
#include "harness.h"
#include "ladder.h"
#include "registry.h"

namespace {

using ladder::bf16;
using namespace ladder::harness;

struct Runner {
    int step;
    const char* variant;
};

// The reason `step` cannot run on the current device, or "" when it can.
std::string why_not(int step) {
    std::string why;
    if (!gpu_available(&why)) return why;
    const DeviceInfo dev = device_info();
    if (ladder::find_step(step)->arch == ladder::NeedsArch::Sm90a && !(dev.major == 9 && dev.minor == 0))
        return std::string(ladder_step_name(step)) + " needs a Hopper GPU (sm_90a); this is " + dev.name;
    return "";
}

// Every variant of every built step that the current device can run.
std::vector<Runner> runnable() {
    std::vector<Runner> out;
    for (int n = 1; n <= ladder::kStepCount; ++n) {
        const ladder::Step* s = ladder::find_step(n);
        if (!ladder::step_built(*s) || !why_not(n).empty()) continue;
        for (const ladder::Variant& v : s->variants) {
            if (v.name == nullptr || v.gemm == nullptr) break;
            out.push_back({n, v.name});
        }
    }
    return out;
}

// The reason there is not room for a problem's buffers (plus 1 GiB), or "" when there is.
std::string short_of_memory(long long M, long long N, long long K) {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return "cudaMemGetInfo failed";
    const double needed = 2.0 * (M * K + N * K + M * N) + (1 << 30);
    if (needed <= static_cast<double>(free_bytes)) return "";
    return "needs " + std::to_string(needed / 1e9) + " GB of free GPU memory, " +
           std::to_string(free_bytes / 1e9) + " GB free";
}

std::vector<uint16_t> to_host(const bf16* data, size_t count) {
    std::vector<uint16_t> host(count);
    EXPECT_EQ(cudaMemcpy(host.data(), data, count * sizeof(bf16), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
}

// Runs `r` on poisoned C, then checks every element is finite (written) and sampled
// elements (the corners, the last rows and columns, random ones) against float64 dot
// products. For problems too large for a full reference.
void run_and_sample(const Runner& r, ProblemBuffers& p, long long M, long long N, long long K) {
    SCOPED_TRACE(std::string(ladder_step_name(r.step)) + ":" + r.variant + " " + std::to_string(M) +
                 "x" + std::to_string(N) + "x" + std::to_string(K));
    poison_nan(p.C.get(), p.C.count());
    ASSERT_EQ(ladder_gemm_variant(r.step, r.variant, p.A.get(), p.B.get(), p.C.get(), static_cast<int>(M),
                                  static_cast<int>(N), static_cast<int>(K), nullptr),
              0)
        << ladder_last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the kernel faulted";
    const std::vector<uint16_t> C = to_host(p.C.get(), p.C.count());
    for (size_t i = 0; i < C.size(); ++i)
        ASSERT_TRUE(std::isfinite(ladder::check::bf16_to_float(C[i])))
            << "C[" << i / N << "," << i % N << "] is not finite (never written?)";
    std::vector<std::pair<long long, long long>> where = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
    std::mt19937_64 rng(static_cast<uint64_t>(M * 31 + N * 7 + K));
    for (int i = 0; i < 200; ++i) where.push_back({static_cast<long long>(rng() % M), static_cast<long long>(rng() % N)});
    std::vector<uint16_t> a_row(K), b_row(K);
    for (auto [m, n] : where) {
        ASSERT_EQ(cudaMemcpy(a_row.data(), p.A.get() + m * K, K * 2, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(b_row.data(), p.B.get() + n * K, K * 2, cudaMemcpyDeviceToHost), cudaSuccess);
        const ladder::check::DotResult exact = ladder::check::reference_dot(a_row.data(), b_row.data(), static_cast<int>(K));
        const double got = ladder::check::bf16_to_float(C[m * N + n]);
        EXPECT_TRUE(ladder::check::sample_within(got, exact, ladder::check::Tolerance{}.elem_rel))
            << "C[" << m << "," << n << "] = " << got << ", float64 reference " << exact.value;
    }
}

struct Large {
    int step;
    long long M, N, K;
};

std::string large_name(const ::testing::TestParamInfo<Large>& info) {
    const Large& c = info.param;
    return std::string(ladder_step_name(c.step)) + "_" + std::to_string(c.M) + "x" + std::to_string(c.N) +
           "x" + std::to_string(c.K);
}

// Past 2^31 elements in A (M*K), in B (N*K) and in C (M*N), about 4.3 GB each; and for step
// 01 an M beyond its old grid limit (65535 row blocks of 8). Step 01 gets a smaller K for A
// and B (it is ~1000x slower), still past 2^31 elements.
std::vector<Large> large_cases() {
    std::vector<Large> cases;
    for (int n = 1; n <= ladder::kStepCount; ++n) {
        if (!ladder::step_built(*ladder::find_step(n))) continue;
        const long long k = n == 1 ? 4104 : 16392;
        const long long rows = (1LL << 31) / k + 64;  // rows * k > 2^31
        cases.push_back({n, rows, 136, k});
        cases.push_back({n, 136, rows, k});
        cases.push_back({n, 46341, 46341, 8});  // 46341^2 > 2^31
        cases.push_back({n, 600000, 40, 16});
    }
    return cases;
}

class GpuLarge : public ::testing::TestWithParam<Large> {};

}  // namespace

TEST_P(GpuLarge, ElementCountsPast2To31) {
    const Large& c = GetParam();
    if (std::string why = why_not(c.step); !why.empty()) GTEST_SKIP() << why;
    if (std::string why = short_of_memory(c.M, c.N, c.K); !why.empty()) GTEST_SKIP() << why;
    ProblemBuffers p(c.M, c.N, c.K);
    fill_random(p.A.get(), p.A.count(), 101);
    fill_random(p.B.get(), p.B.count(), 102);
    run_and_sample({c.step, ""}, p, c.M, c.N, c.K);
}

INSTANTIATE_TEST_SUITE_P(Steps, GpuLarge, ::testing::ValuesIn(large_cases()), large_name);

namespace {
class GpuCap : public ::testing::TestWithParam<int> {};
}  // namespace

// M exactly at the cap (2^31 - 2^16) runs and is right; one more is refused. N = 1 and
// K = 8 keep it to 34 GB for A and 4 GB for C.
TEST_P(GpuCap, MAtTheCapRunsAndOneMoreIsRefused) {
    const int step = GetParam();
    if (!ladder::step_built(*ladder::find_step(step))) GTEST_SKIP() << ladder_step_name(step) << " is not built";
    if (std::string why = why_not(step); !why.empty()) GTEST_SKIP() << why;
    const long long M = ladder::kMaxDimension, N = 1, K = 8;
    if (std::string why = short_of_memory(M, N, K); !why.empty()) GTEST_SKIP() << why;
    ProblemBuffers p(M, N, K);
    fill_random(p.A.get(), p.A.count(), 201);
    fill_random(p.B.get(), p.B.count(), 202);
    run_and_sample({step, ""}, p, M, N, K);
    EXPECT_NE(ladder_gemm(step, p.A.get(), p.B.get(), p.C.get(), static_cast<int>(M + 1), 1, 8, nullptr), 0);
    EXPECT_NE(std::string(ladder_last_error()).find("must be <="), std::string::npos) << ladder_last_error();
}

namespace {
// Every step (one that is not built skips, saying so); in ladder_gpu_tests_step<N>
// (test_gpu.cpp) the one step it holds.
std::vector<int> cap_steps() {
#ifdef LADDER_GPU_TESTS_STEP
    return {LADDER_GPU_TESTS_STEP};
#else
    std::vector<int> steps;
    for (int n = 1; n <= ladder::kStepCount; ++n) steps.push_back(n);
    return steps;
#endif
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(Steps, GpuCap, ::testing::ValuesIn(cap_steps()),
                         [](const ::testing::TestParamInfo<int>& info) { return std::string(ladder_step_name(info.param)); });

namespace {

// One problem, its inputs, and each runner's result computed alone on the default stream.
struct Serial {
    long long M, N, K;
    DeviceBuffer<bf16> A, B;
    std::vector<std::vector<uint16_t>> results;  // one per runner
};

Serial serial_results(const std::vector<Runner>& runners, long long M, long long N, long long K) {
    Serial s{M, N, K, DeviceBuffer<bf16>(static_cast<size_t>(M * K)), DeviceBuffer<bf16>(static_cast<size_t>(N * K)), {}};
    fill_random(s.A.get(), s.A.count(), 301);
    fill_random(s.B.get(), s.B.count(), 302);
    DeviceBuffer<bf16> C(static_cast<size_t>(M * N));
    for (const Runner& r : runners) {
        poison_nan(C.get(), C.count());
        EXPECT_EQ(ladder_gemm_variant(r.step, r.variant, s.A.get(), s.B.get(), C.get(), static_cast<int>(M),
                                      static_cast<int>(N), static_cast<int>(K), nullptr),
                  0)
            << ladder_last_error();
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        s.results.push_back(to_host(C.get(), C.count()));
    }
    return s;
}

// Runs every runner `rounds` times on its own stream and C, in an order of its own, and
// counts results that differ from the serial ones. Returns a description of the first.
std::string run_concurrently(const std::vector<Runner>& runners, const Serial& s, int thread, int rounds,
                             std::atomic<int>* mismatches) {
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return "cudaStreamCreate failed";
    std::string first;
    {
        bf16* C = nullptr;
        if (cudaMalloc(&C, static_cast<size_t>(s.M * s.N) * sizeof(bf16)) != cudaSuccess) return "cudaMalloc failed";
        std::vector<size_t> order(runners.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::mt19937 rng(thread);
        std::vector<uint16_t> got(static_cast<size_t>(s.M * s.N));
        for (int round = 0; round < rounds; ++round) {
            std::shuffle(order.begin(), order.end(), rng);
            for (size_t i : order) {
                const Runner& r = runners[i];
                poison_nan(C, got.size(), stream);
                const int rc = ladder_gemm_variant(r.step, r.variant, s.A.get(), s.B.get(), C, static_cast<int>(s.M),
                                                   static_cast<int>(s.N), static_cast<int>(s.K), stream);
                const bool ok = rc == 0 &&
                                cudaMemcpyAsync(got.data(), C, got.size() * 2, cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
                                cudaStreamSynchronize(stream) == cudaSuccess && got == s.results[i];
                if (!ok) {
                    ++*mismatches;
                    if (first.empty())
                        first = std::string(ladder_step_name(r.step)) + ":" + r.variant + " on thread " +
                                std::to_string(thread) + (rc ? std::string(": ") + ladder_last_error() : ": different bits");
                }
            }
        }
        cudaFree(C);
    }
    cudaStreamDestroy(stream);
    return first;
}

}  // namespace

// Several host threads, each with its own stream, call every step and variant at once; each
// result must be bit-identical to the same call made alone.
TEST(GpuConcurrency, ThreadsAndStreamsGiveTheSerialBits) {
    std::string why;
    if (!gpu_available(&why)) GTEST_SKIP() << why;
    const std::vector<Runner> runners = runnable();
    ASSERT_FALSE(runners.empty());
    // The second shape has more tiles than an H100 has SMs: step 07 launches clusters.
    for (const auto& [M, N, K] : {std::tuple<long long, long long, long long>{300, 520, 264}, {2049, 2303, 72}}) {
        const Serial s = serial_results(runners, M, N, K);
        std::atomic<int> mismatches{0};
        std::vector<std::string> firsts(6);
        std::vector<std::thread> threads;
        for (int t = 0; t < 6; ++t)
            threads.emplace_back([&, t] { firsts[t] = run_concurrently(runners, s, t, 3, &mismatches); });
        for (std::thread& t : threads) t.join();
        std::string first;
        for (const std::string& f : firsts)
            if (first.empty()) first = f;
        EXPECT_EQ(mismatches, 0) << M << "x" << N << "x" << K << ": first: " << first;
    }
}

// Memory of another device is refused with both devices named, and launches nothing; and
// two threads driving two devices at once (step 07 caches per device) get the bits one
// device gets alone.
TEST(GpuTwoDevices, RefusesAnotherDevicesMemoryAndRunsBothAtOnce) {
    std::string why;
    if (!gpu_available(&why)) GTEST_SKIP() << why;
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    if (count < 2) GTEST_SKIP() << "only one GPU on this machine: the second-device cases need two";
    cudaDeviceProp p0{}, p1{};
    ASSERT_EQ(cudaGetDeviceProperties(&p0, 0), cudaSuccess);
    ASSERT_EQ(cudaGetDeviceProperties(&p1, 1), cudaSuccess);
    if (std::string(p0.name) != p1.name)
        GTEST_SKIP() << "devices 0 and 1 differ (" << p0.name << ", " << p1.name << "): bits need not match";

    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    DeviceBuffer<bf16> other(64 * 64);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ProblemBuffers p(64, 64, 64);
    fill_random(p.B.get(), p.B.count(), 1);
    poison_nan(p.C.get(), p.C.count());
    for (const Runner& r : runnable()) {
        EXPECT_NE(ladder_gemm_variant(r.step, r.variant, other.get(), p.B.get(), p.C.get(), 64, 64, 64, nullptr), 0);
        const std::string m = ladder_last_error();
        EXPECT_NE(m.find("A is memory of device 1 but device 0 is current"), std::string::npos) << m;
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (uint16_t v : to_host(p.C.get(), p.C.count())) ASSERT_EQ(v, 0x7fc0) << "a refused call wrote C";

    const std::vector<Runner> runners = runnable();
    const Serial s0 = serial_results(runners, 2049, 2303, 72);
    std::atomic<int> mismatches{0};
    std::string firsts[2];
    std::vector<std::thread> threads;
    for (int d = 0; d < 2; ++d)
        threads.emplace_back([&, d] {
            if (cudaSetDevice(d) != cudaSuccess) { ++mismatches; return; }
            const Serial s = serial_results(runners, 2049, 2303, 72);  // same seeds: same inputs
            for (size_t i = 0; i < runners.size(); ++i)
                if (s.results[i] != s0.results[i]) {
                    ++mismatches;
                    if (firsts[d].empty()) firsts[d] = std::string(ladder_step_name(runners[i].step)) + ":" + runners[i].variant + " on device " + std::to_string(d);
                }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(mismatches, 0) << firsts[0] << " " << firsts[1];
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

// A failed cudaMalloc leaves its error pending; the next good call must run and succeed
// instead of reporting that error as its own launch failure.
TEST(GpuErrors, AStaleErrorDoesNotFailAGoodCall) {
    std::string why;
    if (!gpu_available(&why)) GTEST_SKIP() << why;
    ProblemBuffers p(128, 128, 128);
    fill_random(p.A.get(), p.A.count(), 1);
    fill_random(p.B.get(), p.B.count(), 2);
    for (const Runner& r : runnable()) {
        void* huge = nullptr;
        ASSERT_NE(cudaMalloc(&huge, size_t{1} << 60), cudaSuccess);  // leaves "out of memory" pending
        EXPECT_EQ(ladder_gemm_variant(r.step, r.variant, p.A.get(), p.B.get(), p.C.get(), 128, 128, 128, nullptr), 0)
            << ladder_step_name(r.step) << ":" << r.variant << ": " << ladder_last_error();
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
}

#ifndef LADDER_GPU_TESTS_STEP  // it faults step 01's kernel, which ladder_gpu_tests_step<N> lacks
namespace {

// In a fresh process (the death-test child): fault a kernel on purpose, then make a good
// call. Exit 0 when that call returns the fault with a message saying the context is
// unusable; 1 (with what happened on stderr) otherwise.
[[noreturn]] void fault_then_call() {
    // A reads K = the cap elements (4 GB) from a 2 MiB allocation: the kernel runs into
    // unmapped memory. C lies below A, so the 16 bytes it writes do not overlap A's range.
    void* p = nullptr;
    void* q = nullptr;
    if (cudaMalloc(&p, 2 << 20) != cudaSuccess || cudaMalloc(&q, 2 << 20) != cudaSuccess) std::_Exit(1);
    void* a = std::max(p, q);
    void* c = std::min(p, q);
    const int K = ladder::kMaxDimension;
    int rc = ladder_gemm(1, a, a, c, 1, 8, K, nullptr);
    const cudaError_t fault = cudaDeviceSynchronize();
    if (rc != 0 || fault == cudaSuccess) {
        std::fprintf(stderr, "no fault to test with (rc %d: %s; sync: %s)\n", rc, ladder_last_error(),
                     cudaGetErrorString(fault));
        std::_Exit(1);
    }
    rc = ladder_gemm(1, c, c, a, 8, 8, 8, nullptr);  // good arguments
    const std::string m = ladder_last_error();
    const bool ok = rc == static_cast<int>(fault) && m.find("unusable") != std::string::npos &&
                    m.find("device memory") == std::string::npos;
    std::fprintf(stderr, "after %s: rc %d, %s\n", cudaGetErrorName(fault), rc, m.c_str());
    std::_Exit(ok ? 0 : 1);
}

}  // namespace

// After a kernel fault every call fails: with the fault's own error and a message that the
// process must be restarted, not as "must be device memory".
TEST(GpuErrors, AStickyFaultIsReportedAsItself) {
    std::string why;
    if (!gpu_available(&why)) GTEST_SKIP() << why;
    GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: the fault poisons its context
    EXPECT_EXIT(fault_then_call(), ::testing::ExitedWithCode(0), "unusable");
}
#endif  // LADDER_GPU_TESTS_STEP
