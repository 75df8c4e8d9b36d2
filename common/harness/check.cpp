// check.cpp: see check.h.
#include "check.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace ladder::check {

float bf16_to_float(uint16_t bits) {
    uint32_t word = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &word, sizeof value);
    return value;
}

uint16_t float_to_bf16(float value) {
    uint32_t word;
    std::memcpy(&word, &value, sizeof word);
    if ((word & 0x7f800000u) == 0x7f800000u && (word & 0x007fffffu) != 0)
        return static_cast<uint16_t>((word >> 16) | 0x0040u);  // keep NaN a (quiet) NaN
    const uint32_t rounding = 0x7fffu + ((word >> 16) & 1u);   // round half to even
    return static_cast<uint16_t>((word + rounding) >> 16);
}

DotResult reference_dot(const uint16_t* a_row, const uint16_t* b_row, int K) {
    DotResult r{0.0, 0.0};
    for (int k = 0; k < K; ++k) {
        const double p = static_cast<double>(bf16_to_float(a_row[k])) * bf16_to_float(b_row[k]);
        r.value += p;
        r.abs_sum += std::fabs(p);
    }
    return r;
}

void reference_gemm(const uint16_t* A, const uint16_t* B, double* C, int M, int N, int K) {
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n)
            C[static_cast<size_t>(m) * N + n] =
                reference_dot(A + static_cast<size_t>(m) * K, B + static_cast<size_t>(n) * K, K)
                    .value;
}

namespace {

template <typename Want>
CheckResult compare_impl(const uint16_t* got, const Want* want, long long M, long long N,
                         const Tolerance& tol) {
    CheckResult r;
    r.elements = M * N;
    double want_sq = 0;
    for (long long i = 0; i < r.elements; ++i) want_sq += static_cast<double>(want[i]) * want[i];
    const double rms = r.elements ? std::sqrt(want_sq / static_cast<double>(r.elements)) : 0.0;
    const double elem_abs = tol.elem_abs_of_rms * rms;

    double err_sq = 0;
    for (long long i = 0; i < r.elements; ++i) {
        const double g = bf16_to_float(got[i]);
        const double w = want[i];
        const bool finite = std::isfinite(g);
        const double err = finite ? std::fabs(g - w) : INFINITY;
        const bool bad = !finite || err > tol.elem_rel * std::fabs(w) + elem_abs;
        if (!finite) ++r.nonfinite;
        else {
            err_sq += err * err;
            if (err > r.max_abs_err) r.max_abs_err = err;
            if (bad) ++r.out_of_tol;
        }
        if (bad && r.first_bad_row < 0) {
            r.first_bad_row = i / N;
            r.first_bad_col = i % N;
            r.first_bad_got = g;
            r.first_bad_want = w;
        }
    }
    r.rel_fro = want_sq > 0 ? std::sqrt(err_sq / want_sq) : std::sqrt(err_sq);
    r.ok = r.nonfinite == 0 && r.out_of_tol == 0 && r.rel_fro <= tol.rel_fro;

    char line[512];
    if (r.ok) {
        std::snprintf(line, sizeof line, "ok: rel_fro=%.2e max_abs_err=%.3g over %lld elements",
                      r.rel_fro, r.max_abs_err, r.elements);
    } else {
        int n = std::snprintf(line, sizeof line,
                              "FAILED: %lld non-finite, %lld outside tolerance, rel_fro=%.2e "
                              "(limit %.2e)",
                              r.nonfinite, r.out_of_tol, r.rel_fro, tol.rel_fro);
        if (r.first_bad_row >= 0 && n > 0 && n < static_cast<int>(sizeof line))
            std::snprintf(line + n, sizeof line - n, "; first bad C[%lld,%lld]: got %.6g, want %.6g",
                          r.first_bad_row, r.first_bad_col, r.first_bad_got, r.first_bad_want);
    }
    r.message = line;
    return r;
}

}  // namespace

CheckResult compare(const uint16_t* got, const float* want, long long M, long long N,
                    const Tolerance& tol) {
    return compare_impl(got, want, M, N, tol);
}

CheckResult compare(const uint16_t* got, const double* want, long long M, long long N,
                    const Tolerance& tol) {
    return compare_impl(got, want, M, N, tol);
}

bool sample_within(double value, const DotResult& exact, double elem_rel) {
    if (!std::isfinite(value)) return false;
    const double bound = elem_rel * std::fabs(exact.value) + std::ldexp(exact.abs_sum, -12);
    return std::fabs(value - exact.value) <= bound;
}

bool reference_within(double value, const DotResult& exact) {
    return std::isfinite(value) && std::fabs(value - exact.value) <= std::ldexp(exact.abs_sum, -16);
}

}  // namespace ladder::check
