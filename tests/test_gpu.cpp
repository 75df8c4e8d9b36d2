// GPU tests: every built step (and every variant) against cuBLAS on the correctness shape
// set (cli::check_shapes) and on shapes that stress each step's pipeline; every element
// written (C is poisoned with NaN first); the same inputs give the same bits twice; bad
// input leaves C untouched. Without a suitable GPU every test here is skipped with the reason.
// Built as ladder_gpu_tests_step<N> (an exercise build, LADDER_GPU_TESTS_STEP=N) with
// test_gpu_contract.cpp, it links step N's objects alone: the same cases for that step,
// without those that need another step's kernels or step 07's variants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "cli.h"
#include "harness.h"
#include "ladder.h"
#include "registry.h"

namespace {

using ladder::bf16;
using ladder::cli::Shape;
using namespace ladder::harness;

struct Case {
    int step;
    std::string variant;
    Shape shape;
};

// How GoogleTest (and so CTest's test list) prints a case: "05_wgmma 127x129x72".
void PrintTo(const Case& c, std::ostream* os) {
    *os << ladder_step_name(c.step) << (c.variant.empty() ? "" : ":" + c.variant) << " " << c.shape.M
        << "x" << c.shape.N << "x" << c.shape.K;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    const Case& c = info.param;
    std::string name = std::string(ladder_step_name(c.step)) + (c.variant.empty() ? "" : "_" + c.variant) +
                       "_" + std::to_string(c.shape.M) + "x" + std::to_string(c.shape.N) + "x" +
                       std::to_string(c.shape.K);
    return name;
}

// Shapes that stress a step's own pipeline: K of one element row chunk, of one k-block, of
// STAGES k-blocks plus and minus one, a K tail, and M and N one element past a tile. The
// last two have more tiles than an H100 has SMs (153 and 141 > 132), so step 07 runs them
// with clusters (it launches fewer tiles without): an odd number of tile rows leaves the
// last cluster a CTA below C, and N = bn/2 - 28 (100 for step 07) leaves CTAs of a cluster
// without a B slice and rows of C not 16-byte aligned (no TMA store).
std::vector<Shape> pipeline_shapes(const ladder::TileConfig& t) {
    const long long bk = t.bk > 0 ? t.bk : 64;
    const long long stages = t.stages > 0 ? t.stages : 1;
    const long long bm = t.bm, bn = t.bn;
    return {{bm, bn, 8},
            {bm, bn, bk},
            {bm, bn, std::max(1LL, stages - 1) * bk},
            {bm, bn, (stages + 1) * bk},
            {bm + 1, bn + 1, 3 * bk + 8},
            {2 * bm + 1, 3 * bn - 1, stages * bk + 24},
            {16 * bm + 1, 9 * bn - 1, (stages + 1) * bk + 8},
            {140 * bm + 5, std::max(8LL, bn / 2 - 28), 2 * bk}};
}

std::vector<Case> all_cases(bool pipeline) {
    std::vector<Case> cases;
    for (int n = 1; n <= ladder::kStepCount; ++n) {
        const ladder::Step* s = ladder::find_step(n);
        if (!ladder::step_built(*s)) continue;
        std::vector<Shape> shapes;
        for (const Shape& shape : pipeline ? pipeline_shapes(s->tile_config()) : ladder::cli::check_shapes())
            if (std::none_of(shapes.begin(), shapes.end(), [&](const Shape& t) {
                    return t.M == shape.M && t.N == shape.N && t.K == shape.K;
                }))
                shapes.push_back(shape);
        for (const ladder::Variant& v : s->variants) {
            if (v.name == nullptr || v.gemm == nullptr) break;
            for (const Shape& shape : shapes) cases.push_back({n, v.name, shape});
        }
        // The default variant forced to each tile of its family (step 07: step-7 --tile).
        for (const ladder::Variant& t : s->tiles) {
            if (t.name == nullptr) break;
            for (const Shape& shape : shapes) cases.push_back({n, t.name, shape});
        }
    }
    return cases;
}

// Skips (with the reason) unless this machine has a GPU that can run `step`.
bool skip_unless_gpu_for(int step, std::string* why) {
    if (!gpu_available(why)) return true;
    const DeviceInfo dev = device_info();
    if (ladder::find_step(step)->arch == ladder::NeedsArch::Sm90a && !(dev.major == 9 && dev.minor == 0)) {
        *why = std::string(ladder_step_name(step)) + " needs a Hopper GPU (sm_90a); this is " + dev.name;
        return true;
    }
    return false;
}

std::vector<uint16_t> run_poisoned(const Case& c, ProblemBuffers& p) {
    poison_nan(p.C.get(), p.C.count());
    const int rc = ladder_gemm_variant(c.step, c.variant.c_str(), p.A.get(), p.B.get(), p.C.get(),
                                       static_cast<int>(c.shape.M), static_cast<int>(c.shape.N),
                                       static_cast<int>(c.shape.K), nullptr);
    EXPECT_EQ(rc, 0) << ladder_last_error();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the kernel faulted";
    std::vector<uint16_t> host(p.C.count());
    EXPECT_EQ(cudaMemcpy(host.data(), p.C.get(), p.C.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
}

void check_case(const Case& c) {
    std::string why;
    if (skip_unless_gpu_for(c.step, &why)) GTEST_SKIP() << why;
    const Shape& s = c.shape;
    const uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    ProblemBuffers p(s.M, s.N, s.K);
    fill_random(p.A.get(), p.A.count(), seed);
    fill_random(p.B.get(), p.B.count(), seed + 1);
    Cublas cublas;
    std::string note;
    const std::vector<float> want =
        checked_reference(p, static_cast<int>(s.M), static_cast<int>(s.N), static_cast<int>(s.K),
                          sample_reference(p, s.M, s.N, s.K, seed + 2), cublas, &note);
    if (!note.empty()) std::printf("  %s\n", note.c_str());

    const std::vector<uint16_t> first = run_poisoned(c, p);
    if (::testing::Test::HasFailure()) return;
    const ladder::check::CheckResult result = ladder::check::compare(first.data(), want.data(), s.M, s.N);
    EXPECT_TRUE(result.ok) << result.message;
    EXPECT_EQ(result.nonfinite, 0) << "elements left unwritten (still NaN) or overflowed";
    const std::vector<uint16_t> second = run_poisoned(c, p);
    EXPECT_TRUE(first == second) << "two runs on the same inputs gave different bits: a race";
}

class GpuCheckShapes : public ::testing::TestWithParam<Case> {};
class GpuPipelineShapes : public ::testing::TestWithParam<Case> {};

// Step 07's every-shape variants on shapes where the rule runs its 192x192 tile (three
// consumers, odd K), which no check or pipeline shape reaches: clusters of 2 and of 4 (48-row
// B slices); 2999x3001 leaves edge tiles on both sides and an odd N (direct stores, no TMA
// store); 2100x3400 in clusters of 4 leaves a cluster a CTA row below C (11 tile rows).
// cluster1 runs its own tiles there. test_planner_model.cpp checks that the rule still takes
// 192x192 on these shapes, so that these cases keep covering it. 3028x2752x328 and
// 1800x7872x264 run 128x256 in clusters at 6 and 5 k-blocks, the last one 8 columns deep (a
// short odd K past one wave: tile_choice::launches_clusters).
std::vector<Case> rule_cases() {
    std::vector<Case> cases;
    const ladder::Step* s = ladder::find_step(7);
    if (s == nullptr || !ladder::step_built(*s)) return cases;
    for (const char* variant : {"cluster2", "cluster4", "cluster1"}) {
        if (ladder::find_variant(*s, variant) == nullptr) continue;
        for (const Shape& shape : {Shape{3000, 3000, 1032}, Shape{2999, 3001, 1000}, Shape{2100, 3400, 1480},
                                   Shape{3028, 2752, 328}, Shape{1800, 7872, 264}})
            cases.push_back({7, variant, shape});
    }
    return cases;
}
class GpuRuleShapes : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(GpuCheckShapes, MatchesCublas) { check_case(GetParam()); }
TEST_P(GpuPipelineShapes, MatchesCublas) { check_case(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Steps, GpuCheckShapes, ::testing::ValuesIn(all_cases(false)), case_name);
INSTANTIATE_TEST_SUITE_P(Steps, GpuPipelineShapes, ::testing::ValuesIn(all_cases(true)), case_name);
TEST_P(GpuRuleShapes, MatchesCublas) { check_case(GetParam()); }
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuRuleShapes);  // a build without step 07's variants
INSTANTIATE_TEST_SUITE_P(Steps, GpuRuleShapes, ::testing::ValuesIn(rule_cases()), case_name);

class GpuBadInput : public ::testing::TestWithParam<int> {};

// A refused call must not launch: C keeps its poison.
TEST_P(GpuBadInput, LeavesCUntouched) {
    const int step = GetParam();
    std::string why;
    if (skip_unless_gpu_for(step, &why)) GTEST_SKIP() << why;
    ProblemBuffers p(128, 128, 128);
    fill_random(p.A.get(), p.A.count(), 1);
    fill_random(p.B.get(), p.B.count(), 2);
    poison_nan(p.C.get(), p.C.count());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const bf16* A = p.A.get();
    const bf16* B = p.B.get();
    bf16* C = p.C.get();
    EXPECT_NE(ladder_gemm(step, A, B, C, 128, 128, 12, nullptr), 0);                // K % 8
    EXPECT_NE(ladder_gemm(step, A + 1, B, C, 128, 128, 120, nullptr), 0);           // misaligned A
    EXPECT_NE(ladder_gemm(step, A, B, C, 0, 128, 128, nullptr), 0);                 // M = 0
    std::vector<float> host_a(16);
    EXPECT_NE(ladder_gemm(step, host_a.data(), B, C, 8, 8, 8, nullptr), 0);         // host memory
    EXPECT_NE(std::string(ladder_last_error()).find("device memory"), std::string::npos) << ladder_last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<uint16_t> host(p.C.count());
    ASSERT_EQ(cudaMemcpy(host.data(), C, p.C.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < host.size(); ++i)
        ASSERT_EQ(host[i], 0x7fc0) << "C[" << i << "] was written by a refused call";
}

namespace {
std::vector<int> built_steps() {
    std::vector<int> steps;
    for (int n = 1; n <= ladder::kStepCount; ++n)
        if (ladder::step_built(*ladder::find_step(n))) steps.push_back(n);
    return steps;
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(Steps, GpuBadInput, ::testing::ValuesIn(built_steps()),
                         [](const ::testing::TestParamInfo<int>& info) {
                             return std::string(ladder_step_name(info.param));
                         });

#ifndef LADDER_GPU_TESTS_STEP
// The libcu++ and cooperative-groups spellings (gemm_pipeline.cu, gemm_barrier.cu,
// gemm_bulk1d.cu, gemm_cg.cu) change how tiles reach shared memory or how the cluster is
// addressed, never the arithmetic or its order: the same inputs must give the same bits as
// their twin in gemm.cu, edges and K tail included (bulk1d zeroes the tail itself,
// pipeline stores the out-of-bounds zeros; cg is the lesson kernel of step 07).
TEST(GpuVariants, LibcuxxSpellingsGiveIdenticalBits) {
    struct Twin {
        int step;
        const char* twin;     // the gemm.cu variant it spells differently
        const char* variant;  // the libcu++ / cooperative-groups spelling
    };
    int compared = 0;
    for (const Twin& t : {Twin{2, "", "pipeline"}, Twin{3, "", "barrier"}, Twin{3, "", "bulk1d"},
                          Twin{7, "lesson", "cg"}}) {
        const ladder::Step* s = ladder::find_step(t.step);
        if (!ladder::step_built(*s)) GTEST_FAIL() << "step " << t.step << " is not built";
        std::string why;
        if (skip_unless_gpu_for(t.step, &why)) continue;  // an Ampere GPU still compares step 02
        for (const Shape& shape : {Shape{1000, 1992, 2056}, Shape{129, 257, 8}, Shape{257, 511, 200},
                                   Shape{2049, 2303, 328}, Shape{4096, 4096, 4096}}) {
            ProblemBuffers p(shape.M, shape.N, shape.K);
            fill_random(p.A.get(), p.A.count(), 21);
            fill_random(p.B.get(), p.B.count(), 22);
            const std::vector<uint16_t> want = run_poisoned({t.step, t.twin, shape}, p);
            const std::vector<uint16_t> got = run_poisoned({t.step, t.variant, shape}, p);
            EXPECT_TRUE(got == want) << "step " << t.step << " variant '" << t.variant
                                     << "' differs from '" << t.twin << "' at " << shape.M << "x"
                                     << shape.N << "x" << shape.K;
            ++compared;
        }
    }
    std::string why;
    if (compared == 0 && skip_unless_gpu_for(2, &why)) GTEST_SKIP() << why;
}

// Split-K through the reduce kernel (few tiles with a long K): the same bits on every call,
// from a CUDA graph captured once and replayed twice, from two threads with streams of their
// own at once, and from a workspace the caller owns; one too small is refused by name and
// launches nothing.
TEST(GpuStep07, SplitKGivesTheSameBitsEverywhere) {
    const ladder::Step* s = ladder::find_step(7);
    if (!ladder::step_built(*s)) GTEST_FAIL() << "step 07 is not built";
    std::string why;
    if (skip_unless_gpu_for(7, &why)) GTEST_SKIP() << why;
    for (const Shape& shape : {Shape{128, 128, 16384}, Shape{240, 312, 9000}, Shape{1000, 120, 8200}}) {
        const int M = static_cast<int>(shape.M), N = static_cast<int>(shape.N), K = static_cast<int>(shape.K);
        const std::string name = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
        ProblemBuffers p(shape.M, shape.N, shape.K);
        fill_random(p.A.get(), p.A.count(), 21);
        fill_random(p.B.get(), p.B.count(), 22);
        const std::vector<uint16_t> eager = run_poisoned({7, "", shape}, p);
        ASSERT_FALSE(::testing::Test::HasFailure()) << name;
        auto read_c = [&](const bf16* C, cudaStream_t stream) {
            std::vector<uint16_t> host(p.C.count());
            EXPECT_EQ(cudaMemcpyAsync(host.data(), C, p.C.bytes(), cudaMemcpyDeviceToHost, stream), cudaSuccess);
            EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
            return host;
        };

        // A graph captured once (after a first call on the stream, which sizes its workspace)
        // and replayed twice.
        cudaStream_t stream = nullptr;
        ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
        ASSERT_EQ(ladder_gemm(7, p.A.get(), p.B.get(), p.C.get(), M, N, K, stream), 0) << ladder_last_error();
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        const int rc = ladder_gemm(7, p.A.get(), p.B.get(), p.C.get(), M, N, K, stream);
        ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
        ASSERT_EQ(rc, 0) << ladder_last_error();
        ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
        for (int replay = 0; replay < 2; ++replay) {
            poison_nan(p.C.get(), p.C.count(), stream);
            ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
            EXPECT_TRUE(read_c(p.C.get(), stream) == eager) << name << ": graph replay " << replay << " differs";
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(stream);

        // Two threads at once, each with its own stream and C, three calls each.
        std::vector<std::string> errors(2);
        std::vector<std::thread> threads;
        for (int t = 0; t < 2; ++t)
            threads.emplace_back([&, t] {
                cudaStream_t own = nullptr;
                bf16* C = nullptr;
                if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess ||
                    cudaMalloc(&C, p.C.bytes()) != cudaSuccess) {
                    errors[t] = "setup failed";
                    return;
                }
                for (int call = 0; call < 3 && errors[t].empty(); ++call) {
                    poison_nan(C, p.C.count(), own);
                    if (ladder_gemm(7, p.A.get(), p.B.get(), C, M, N, K, own) != 0)
                        errors[t] = ladder_last_error();
                    else if (read_c(C, own) != eager)
                        errors[t] = "different bits on call " + std::to_string(call);
                }
                cudaFree(C);
                cudaStreamDestroy(own);
            });
        for (std::thread& t : threads) t.join();
        for (const std::string& e : errors) EXPECT_TRUE(e.empty()) << name << ": " << e;

        // The caller's workspace: the size the library states serves; one byte fewer than a
        // call needs is refused, naming both sizes, and C stays as it was.
        size_t bytes = 0;
        ASSERT_EQ(ladder_workspace_size(7, &bytes), 0) << ladder_last_error();
        ASSERT_GT(bytes, 0u);
        DeviceBuffer<char> workspace(bytes);
        ASSERT_EQ(cudaMemset(workspace.get(), 0, bytes), cudaSuccess);
        poison_nan(p.C.get(), p.C.count());
        ASSERT_EQ(ladder_gemm_with_workspace(7, nullptr, p.A.get(), p.B.get(), p.C.get(), M, N, K, nullptr,
                                             workspace.get(), bytes),
                  0)
                << ladder_last_error();
        EXPECT_TRUE(read_c(p.C.get(), nullptr) == eager) << name << ": the caller's workspace gave other bits";
        poison_nan(p.C.get(), p.C.count());
        EXPECT_NE(ladder_gemm_with_workspace(7, nullptr, p.A.get(), p.B.get(), p.C.get(), M, N, K, nullptr,
                                             workspace.get(), 1024),
                  0);
        EXPECT_NE(std::string(ladder_last_error()).find("workspace passed is 1024 bytes"), std::string::npos)
                << ladder_last_error();
        const std::vector<uint16_t> untouched = read_c(p.C.get(), nullptr);
        EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](uint16_t v) { return (v & 0x7fc0) == 0x7fc0; }))
                << name << ": a refused call wrote C";
    }
}

// Step 07's cluster sizes change who loads which slice, never the arithmetic. Where the
// cluster variants run the same schedule, the same inputs must give the same bits.
// 1000x1992x8192 has fewer tiles than SMs: every cluster size launches the same plain grid
// and cuts each tile's k-blocks into the same two slices (stream-K). 2049x2303x584 runs
// 17 x 12 tiles of 128x192 in every size (2 and 4 launch clusters, with ragged edges: a short
// odd K past one wave) and 17925x100x128 one wave of 128x144 as C^T, both with too few
// k-blocks per tile to share, so every size runs them data-parallel. (Where the cluster
// sizes share differently, e.g. 8704x512x8192, partial sums are added in another order:
// those results are checked against cuBLAS by the shape tests instead.)
TEST(GpuStep07, EveryClusterSizeGivesIdenticalBits) {
    const ladder::Step* s = ladder::find_step(7);
    if (!ladder::step_built(*s)) GTEST_FAIL() << "step 07 is not built";
    std::string why;
    if (skip_unless_gpu_for(7, &why)) GTEST_SKIP() << why;
    for (const Shape& shape : {Shape{1000, 1992, 8192}, Shape{2049, 2303, 584}, Shape{17925, 100, 128}}) {
        ProblemBuffers p(shape.M, shape.N, shape.K);
        fill_random(p.A.get(), p.A.count(), 11);
        fill_random(p.B.get(), p.B.count(), 12);
        std::vector<uint16_t> reference;
        for (const ladder::Variant& v : s->variants) {
            if (v.name == nullptr || v.gemm == nullptr) break;
            if (std::strncmp(v.name, "cluster", 7) != 0) continue;  // same schedule only
            std::vector<uint16_t> got = run_poisoned({7, v.name, shape}, p);
            if (reference.empty()) reference = got;
            else EXPECT_TRUE(got == reference) << v.name << " differs from " << s->variants[0].name
                                               << " at " << shape.M << "x" << shape.N << "x" << shape.K;
        }
    }
}
#endif  // LADDER_GPU_TESTS_STEP
