// CPU tests of the C API and of every step's argument checks. None of these calls reaches a
// GPU: each bad input must be refused before anything is launched, with a message that says
// what is wrong. (test_gpu.cpp checks on a GPU that C is left untouched.)
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "ladder.h"

namespace {

// Addresses that are never dereferenced: the checks must refuse the call first.
void* fake(std::uintptr_t address) { return reinterpret_cast<void*>(address); }
void* const kA = fake(0x10000);
void* const kB = fake(0x20000);
void* const kC = fake(0x30000);

std::string message() { return ladder_last_error(); }

class EveryStep : public ::testing::TestWithParam<int> {};

}  // namespace

TEST(CApi, CountsAndNamesTheSteps) {
    EXPECT_EQ(ladder_step_count(), 7);
    EXPECT_STREQ(ladder_step_name(1), "01_naive");
    EXPECT_STREQ(ladder_step_name(5), "05_wgmma");
    EXPECT_STREQ(ladder_step_name(7), "07_clusters_multicast");
    EXPECT_EQ(ladder_step_name(0), nullptr);
    EXPECT_EQ(ladder_step_name(8), nullptr);
}

TEST(CApi, RejectsStepNumbersOutOfRange) {
    for (int step : {0, -1, 8, 100}) {
        EXPECT_NE(ladder_gemm(step, kA, kB, kC, 64, 64, 64, nullptr), 0);
        EXPECT_NE(message().find("no step"), std::string::npos) << message();
    }
}

// Only step 07's default keeps a workspace: the other steps need none, and a bad step or a
// NULL result is refused by name (step 07's own bound needs a GPU: test_gpu.cpp).
TEST(CApi, WorkspaceSizeOfTheStepsWithoutOne) {
    for (int step = 1; step <= 6; ++step) {
        size_t bytes = 123;
        EXPECT_EQ(ladder_workspace_size(step, &bytes), 0) << message();
        EXPECT_EQ(bytes, 0u) << "step " << step;
    }
    size_t bytes = 123;
    for (int step : {0, 8}) {
        EXPECT_NE(ladder_workspace_size(step, &bytes), 0);
        EXPECT_NE(message().find("ladder_workspace_size: no step"), std::string::npos) << message();
        EXPECT_EQ(bytes, 0u);
    }
    EXPECT_NE(ladder_workspace_size(7, nullptr), 0);
    EXPECT_NE(message().find("bytes is NULL"), std::string::npos) << message();
}

// A call with the caller's workspace is checked as any other, before the workspace matters.
TEST(CApi, WithWorkspaceChecksTheArgumentsFirst) {
    EXPECT_NE(ladder_gemm_with_workspace(8, nullptr, kA, kB, kC, 64, 64, 64, nullptr, kC, 1024), 0);
    EXPECT_NE(message().find("ladder_gemm: no step 8"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm_with_workspace(7, "turbo", kA, kB, kC, 64, 64, 64, nullptr, kC, 1024), 0);
    EXPECT_NE(message().find("turbo"), std::string::npos) << message();
}

TEST(CApi, RejectsAnUnknownVariant) {
    EXPECT_NE(ladder_gemm_variant(1, "turbo", kA, kB, kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("turbo"), std::string::npos) << message();
}

TEST(CApi, AnUnknownVariantMessageListsTheVariantsAndEscapesTheName) {
    EXPECT_NE(ladder_gemm_variant(6, "turbo", kA, kB, kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("cooperative (default), pingpong"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm_variant(1, "\xff\xfe\n", kA, kB, kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("'\\xff\\xfe\\x0a'"), std::string::npos) << message();
    EXPECT_NE(message().find("only the default"), std::string::npos) << message();
}

TEST(CApi, NullAndEmptyVariantNamesAreTheDefault) {
    // Past the variant lookup: the argument checks of the default schedule answer.
    EXPECT_NE(ladder_gemm_variant(7, nullptr, kA, kB, kC, 64, 64, 12, nullptr), 0);
    EXPECT_NE(message().find("multiple of 8"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm_variant(7, "", kA, kB, kC, 64, 64, 12, nullptr), 0);
    EXPECT_NE(message().find("multiple of 8"), std::string::npos) << message();
}

TEST_P(EveryStep, IsBuiltIntoTheLibrary) {
    EXPECT_EQ(ladder_step_available(GetParam()), 1) << ladder_step_name(GetParam())
                                                     << " is not built into libladder";
}

TEST_P(EveryStep, RejectsNonPositiveSizes) {
    const int step = GetParam();
    const int bad[][3] = {{0, 64, 64}, {64, 0, 64}, {64, 64, 0}, {-1, 64, 64}, {64, -5, 64}, {64, 64, -8}};
    for (const auto& d : bad) {
        EXPECT_NE(ladder_gemm(step, kA, kB, kC, d[0], d[1], d[2], nullptr), 0);
        EXPECT_NE(message().find("must be >= 1"), std::string::npos) << message();
        EXPECT_NE(message().find(ladder_step_name(step)), std::string::npos) << message();
    }
}

TEST_P(EveryStep, RejectsSizesNearIntMax) {
    // A tile origin plus the tile extent would overflow the kernels' int arithmetic.
    const int huge = 2147483647;
    EXPECT_NE(ladder_gemm(GetParam(), kA, kB, kC, huge, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("must be <="), std::string::npos) << message();
    EXPECT_NE(ladder_gemm(GetParam(), kA, kB, kC, 64, huge - 100, 64, nullptr), 0);
    EXPECT_NE(ladder_gemm(GetParam(), kA, kB, kC, 64, 64, huge - 7, nullptr), 0);
    EXPECT_NE(message().find("must be <="), std::string::npos) << message();
}

TEST_P(EveryStep, AcceptsEachDimensionAtTheCapAndRefusesOneMore) {
    // Buffers 2^40 bytes apart, so that even a dimension at the cap leaves them disjoint:
    // the size check passes, and what refuses the call is the GPU or pointer check after it.
    const int step = GetParam();
    const int cap = 2147483647 - 65535;
    void* const a = fake(std::uintptr_t{1} << 40);
    void* const b = fake(std::uintptr_t{2} << 40);
    void* const c = fake(std::uintptr_t{3} << 40);
    for (const auto& d : {std::array<int, 3>{cap, 8, 8}, {8, cap, 8}, {8, 8, cap - cap % 8}}) {
        EXPECT_NE(ladder_gemm(step, a, b, c, d[0], d[1], d[2], nullptr), 0);
        EXPECT_EQ(message().find("must be <="), std::string::npos) << d[0] << "x" << d[1] << "x" << d[2] << ": " << message();
        EXPECT_EQ(message().find("overlaps"), std::string::npos) << message();
    }
    for (const auto& d : {std::array<int, 3>{cap + 1, 8, 8}, {8, cap + 1, 8}, {8, 8, cap + 8}}) {
        EXPECT_NE(ladder_gemm(step, a, b, c, d[0], d[1], d[2], nullptr), 0);
        EXPECT_NE(message().find("must be <="), std::string::npos) << d[0] << "x" << d[1] << "x" << d[2] << ": " << message();
    }
}

TEST_P(EveryStep, RejectsKThatIsNotWholeSixteenByteRows) {
    for (int K : {1, 4, 7, 12, 4100}) {
        EXPECT_NE(ladder_gemm(GetParam(), kA, kB, kC, 64, 64, K, nullptr), 0);
        EXPECT_NE(message().find("multiple of 8"), std::string::npos) << "K=" << K << ": " << message();
    }
}

TEST_P(EveryStep, RejectsNullPointers) {
    const int step = GetParam();
    EXPECT_NE(ladder_gemm(step, nullptr, kB, kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("null pointer"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm(step, kA, nullptr, kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(ladder_gemm(step, kA, kB, nullptr, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("null pointer"), std::string::npos) << message();
}

TEST_P(EveryStep, RejectsMisalignedPointers) {
    const int step = GetParam();
    EXPECT_NE(ladder_gemm(step, fake(0x10002), kB, kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("16-byte aligned"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm(step, kA, fake(0x20008), kC, 64, 64, 64, nullptr), 0);
    EXPECT_NE(ladder_gemm(step, kA, kB, fake(0x30001), 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("16-byte aligned"), std::string::npos) << message();
}

TEST_P(EveryStep, RejectsCOverlappingAOrB) {
    // 64x64 bf16 is 8 KiB (0x2000 bytes): kA + 0x1000 lies inside A, kB - 0x1000 ends inside B.
    const int step = GetParam();
    EXPECT_NE(ladder_gemm(step, kA, kB, kA, 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("overlaps A"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm(step, kA, kB, fake(0x11000), 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("overlaps A"), std::string::npos) << message();
    EXPECT_NE(ladder_gemm(step, kA, kB, fake(0x1f000), 64, 64, 64, nullptr), 0);
    EXPECT_NE(message().find("overlaps B"), std::string::npos) << message();
}

TEST_P(EveryStep, RefusesValidSizesWithoutDeviceMemory) {
    // Without a GPU: "no usable CUDA GPU". With one: these addresses are not device memory.
    // Either way the step must refuse rather than launch.
    EXPECT_NE(ladder_gemm(GetParam(), kA, kB, kC, 64, 64, 64, nullptr), 0);
    const std::string m = message();
    EXPECT_TRUE(m.find("no usable CUDA GPU: ") != std::string::npos ||
                m.find("device memory") != std::string::npos ||
                m.find("needs a Hopper GPU") != std::string::npos)
        << m;
}

INSTANTIATE_TEST_SUITE_P(Steps, EveryStep, ::testing::Range(1, 8),
                         [](const ::testing::TestParamInfo<int>& info) {
                             return std::string(ladder_step_name(info.param));
                         });
