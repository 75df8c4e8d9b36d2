// check.h: the correctness rules of the harness, in plain C++ so they are unit-tested on
// machines without a GPU: bf16 conversion, the float64 CPU reference, and the comparison
// that decides pass or fail.
#pragma once

#include <cstdint>
#include <string>

namespace ladder::check {

// bf16 <-> float on the host, bit-exact with the GPU's __float2bfloat16 (round to nearest even).
float bf16_to_float(uint16_t bits);
uint16_t float_to_bf16(float value);

// Exact-as-float64 dot product of row a[0..K) and row b[0..K) (both bf16 bits), and the sum of
// |a_k * b_k| that bounds how much fp32 accumulation order can move the result.
struct DotResult {
    double value;
    double abs_sum;
};
DotResult reference_dot(const uint16_t* a_row, const uint16_t* b_row, int K);

// Full float64 reference C = A * B^T for small problems (tests, sanitizer runs).
void reference_gemm(const uint16_t* A, const uint16_t* B, double* C, int M, int N, int K);

// Tolerances, and why they are what they are:
//  - The kernel rounds its fp32 sum to bf16 once: bf16 keeps 8 significant bits, so rounding to
//    nearest moves a value by at most 2^-9 of itself. elem_rel = 2^-7 leaves a 4x margin.
//  - Where the true value is near zero, relative rounding is tiny, but the order in which
//    tensor cores add fp32 partial sums differs between kernels; measured differences are far
//    below 2^-8 of the matrix's RMS, which is elem_abs_of_rms (a lost k-block of 64 products
//    moves an element by ~8/3 x RMS/sqrt(K/64): caught).
//  - rel_fro: bf16 rounding alone gives ||err||/||ref|| <= 2^-9; 2^-8 leaves a 2x margin.
struct Tolerance {
    double elem_rel = 1.0 / 128;
    double elem_abs_of_rms = 1.0 / 256;
    double rel_fro = 1.0 / 256;
};

struct CheckResult {
    bool ok = false;
    long long elements = 0;
    long long nonfinite = 0;   // NaN or Inf in the output (the poison, or a real overflow)
    long long out_of_tol = 0;  // finite elements outside elem_rel * |want| + elem_abs
    double rel_fro = 0;        // ||got - want||_F / ||want||_F
    double max_abs_err = 0;
    long long first_bad_row = -1, first_bad_col = -1;
    double first_bad_got = 0, first_bad_want = 0;
    std::string message;       // one line: "ok ..." or what failed and where
};

// Compares got (M x N bf16 bits, row-major) with want (M x N float, row-major).
CheckResult compare(const uint16_t* got, const float* want, long long M, long long N,
                    const Tolerance& tol = Tolerance{});

// Same, against a float64 reference (full CPU reference).
CheckResult compare(const uint16_t* got, const double* want, long long M, long long N,
                    const Tolerance& tol = Tolerance{});

// One sampled element against the float64 reference: is `value` within the bound that fp32
// accumulation (2^-12 of sum|a*b|, far above the real spread, far below any indexing bug)
// plus bf16 output rounding (elem_rel of |exact|) allows?
bool sample_within(double value, const DotResult& exact, double elem_rel);

// One sampled element of an fp32 reference (cuBLAS with fp32 output) against float64: within
// 2^-16 of sum|a*b|. On the uniform random inputs of every check, fp32 accumulation stays
// orders of magnitude inside that (about 2^-24 x sqrt(K) x the partial sums); a result that
// leaves out even a few of K's columns lands outside it (8 of 65544 columns move an element
// by about sqrt(8) / 3 = 0.9, against a bound of 0.25). sample_within's 2^-12 would pass it.
bool reference_within(double value, const DotResult& exact);

}  // namespace ladder::check
