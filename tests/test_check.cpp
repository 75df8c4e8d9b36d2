// CPU tests of the correctness rules: bf16 conversion, the float64 reference, and the
// comparison that must reject planted errors and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "check.h"

using namespace ladder::check;

TEST(Bf16, ConvertsExactValuesBothWays) {
    EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
    EXPECT_EQ(float_to_bf16(-2.0f), 0xC000);
    EXPECT_EQ(float_to_bf16(0.0f), 0x0000);
    EXPECT_FLOAT_EQ(bf16_to_float(0x3F80), 1.0f);
    EXPECT_FLOAT_EQ(bf16_to_float(0x4040), 3.0f);
}

TEST(Bf16, RoundsHalfToEven) {
    // bf16 has 7 stored mantissa bits: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
    EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);              // down, to even
    EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);          // up, to even
    EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3F81);
}

TEST(Bf16, KeepsNaN) {
    EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
    EXPECT_TRUE(std::isinf(bf16_to_float(float_to_bf16(INFINITY))));
}

TEST(Reference, DotMatchesHandComputation) {
    // a = 1..8, b = (1, -1, 1, -1, ...): 1 - 2 + 3 - 4 + 5 - 6 + 7 - 8 = -4; sum |a*b| = 36.
    std::vector<uint16_t> a, b;
    for (int k = 1; k <= 8; ++k) {
        a.push_back(float_to_bf16(static_cast<float>(k)));
        b.push_back(float_to_bf16(k % 2 ? 1.0f : -1.0f));
    }
    DotResult r = reference_dot(a.data(), b.data(), 8);
    EXPECT_DOUBLE_EQ(r.value, -4.0);
    EXPECT_DOUBLE_EQ(r.abs_sum, 36.0);
}

TEST(Reference, GemmIsATimesBTransposed) {
    // A = [[1,2,...,8],[0.5 x 8]], B = [[1 x 8],[k == 0 ? 2 : 0]]:
    // C = [[36, 2], [4, 1]].
    std::vector<uint16_t> A(16), B(16);
    for (int k = 0; k < 8; ++k) {
        A[k] = float_to_bf16(static_cast<float>(k + 1));
        A[8 + k] = float_to_bf16(0.5f);
        B[k] = float_to_bf16(1.0f);
        B[8 + k] = float_to_bf16(k == 0 ? 2.0f : 0.0f);
    }
    std::vector<double> C(4);
    reference_gemm(A.data(), B.data(), C.data(), 2, 2, 8);
    EXPECT_DOUBLE_EQ(C[0], 36.0);
    EXPECT_DOUBLE_EQ(C[1], 2.0);
    EXPECT_DOUBLE_EQ(C[2], 4.0);
    EXPECT_DOUBLE_EQ(C[3], 1.0);
}

namespace {

// A 64 x 48 reference with values of both signs and a few near zero, and "got" = the
// reference rounded to bf16, which is what a correct kernel produces.
struct Fixture {
    static constexpr int M = 64, N = 48;
    std::vector<float> want;
    std::vector<uint16_t> got;
    Fixture() : want(M * N), got(M * N) {
        for (int i = 0; i < M * N; ++i) {
            want[i] = 10.0f * std::sin(0.37f * i) + (i % 97 == 0 ? 1e-3f : 0.0f);
            got[i] = float_to_bf16(want[i]);
        }
    }
};

}  // namespace

TEST(Compare, AcceptsBf16RoundingOfTheReference) {
    Fixture f;
    CheckResult r = compare(f.got.data(), f.want.data(), Fixture::M, Fixture::N);
    EXPECT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.out_of_tol, 0);
    EXPECT_LE(r.rel_fro, std::ldexp(1.0, -9));
}

TEST(Compare, RejectsAPlantedError) {
    Fixture f;
    const int row = 17, col = 5;
    f.got[row * Fixture::N + col] = float_to_bf16(f.want[row * Fixture::N + col] + 1.0f);
    CheckResult r = compare(f.got.data(), f.want.data(), Fixture::M, Fixture::N);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.out_of_tol, 1);
    EXPECT_EQ(r.first_bad_row, row);
    EXPECT_EQ(r.first_bad_col, col);
    EXPECT_NE(r.message.find("C[17,5]"), std::string::npos) << r.message;
}

TEST(Compare, RejectsNaNAndInf) {
    Fixture f;
    f.got[3] = float_to_bf16(NAN);  // an element the kernel never wrote (the poison)
    f.got[40] = float_to_bf16(INFINITY);
    CheckResult r = compare(f.got.data(), f.want.data(), Fixture::M, Fixture::N);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.nonfinite, 2);
    EXPECT_EQ(r.first_bad_row, 0);
    EXPECT_EQ(r.first_bad_col, 3);
}

TEST(Compare, RejectsASmallErrorEverywhere) {
    // Each element 1% off: inside no element's tolerance for large values, and the Frobenius
    // error (1e-2) is above its bound (2^-8).
    Fixture f;
    for (int i = 0; i < Fixture::M * Fixture::N; ++i) f.got[i] = float_to_bf16(f.want[i] * 1.01f);
    CheckResult r = compare(f.got.data(), f.want.data(), Fixture::M, Fixture::N);
    EXPECT_FALSE(r.ok);
    EXPECT_GT(r.rel_fro, 1.0 / 256);
}

TEST(Compare, WorksAgainstAFloat64Reference) {
    Fixture f;
    std::vector<double> want64(f.want.begin(), f.want.end());
    EXPECT_TRUE(compare(f.got.data(), want64.data(), Fixture::M, Fixture::N).ok);
    f.got[100] = float_to_bf16(-f.want[100]);
    EXPECT_FALSE(compare(f.got.data(), want64.data(), Fixture::M, Fixture::N).ok);
}

TEST(Sample, AnFp32ReferenceMissingAFewColumnsOfKIsOff) {
    // K = 65544 random products in [-1, 1]^2: sum|a*b| about K / 4, bound 2^-16 of it = 0.25.
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    const int K = 65544;
    std::vector<uint16_t> a(K), b(K);
    for (int k = 0; k < K; ++k) a[k] = float_to_bf16(u(rng)), b[k] = float_to_bf16(u(rng));
    const DotResult exact = reference_dot(a.data(), b.data(), K);
    float all = 0, but_last8 = 0;  // fp32 sums in order, as a plain fp32 GEMM would add them
    for (int k = 0; k < K; ++k) {
        const float p = bf16_to_float(a[k]) * bf16_to_float(b[k]);
        all += p;
        if (k < K - 8) but_last8 += p;
    }
    EXPECT_TRUE(reference_within(all, exact));
    double last8 = 0;
    for (int k = K - 8; k < K; ++k) last8 += static_cast<double>(bf16_to_float(a[k])) * bf16_to_float(b[k]);
    ASSERT_GT(std::fabs(last8), std::ldexp(exact.abs_sum, -15)) << "this seed's last 8 products nearly cancel";
    EXPECT_FALSE(reference_within(but_last8, exact)) << "the last 8 products add " << last8;
    EXPECT_TRUE(sample_within(but_last8, exact, 0.0)) << "the looser sample bound would not see it";
    EXPECT_FALSE(reference_within(NAN, exact));
}

TEST(Sample, BoundsFollowTheAccumulationAndRounding) {
    DotResult exact{100.0, 4096.0};  // bound: 2^-7 * 100 + 4096 * 2^-12 = 0.78 + 1
    EXPECT_TRUE(sample_within(101.7, exact, 1.0 / 128));
    EXPECT_FALSE(sample_within(101.9, exact, 1.0 / 128));
    EXPECT_FALSE(sample_within(NAN, exact, 1.0 / 128));
}
