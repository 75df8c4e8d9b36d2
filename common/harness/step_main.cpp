// step_main.cpp: the executable of one step (compiled once per step with LADDER_STEP=N).
// It checks the step against cuBLAS (validated at float64 samples, else a float64 GEMM on the
// GPU) or a float64 CPU reference, then times the step and cuBLAS side by side on the same
// inputs, in the same process. See cli.h for the options.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "cli.h"
#include "csv.h"
#include "harness.h"
#include "planner_bridge.h"
#include "registry.h"
#include "timeline.h"

#ifndef LADDER_STEP
#error "compile with -DLADDER_STEP=<step number>"
#endif
#ifndef LADDER_GIT_COMMIT
#define LADDER_GIT_COMMIT "unknown"
#endif

namespace {

using ladder::bf16;
using ladder::cli::Shape;
using namespace ladder::harness;

constexpr int kExitSkip = 77;  // CTest's SKIP_RETURN_CODE: no GPU that can run this step

struct Runner {
    const ladder::Step& step;
    const ladder::Variant& variant;
    std::string label() const {
        return variant.name[0] ? std::string(step.name) + ":" + variant.name : step.name;
    }
    cudaError_t run(const bf16* A, const bf16* B, bf16* C, const Shape& s, cudaStream_t stream = nullptr) const {
        return variant.gemm(A, B, C, static_cast<int>(s.M), static_cast<int>(s.N),
                            static_cast<int>(s.K), stream);
    }
};

std::string shape_text(const Shape& s) {
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

std::vector<uint16_t> to_host(const DeviceBuffer<bf16>& buffer) {
    std::vector<uint16_t> host(buffer.count());
    LADDER_CUDA(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return host;
}

// Runs one variant on poisoned C and returns C, or throws with the step's own message.
std::vector<uint16_t> run_once(const Runner& r, ProblemBuffers& p, const Shape& s) {
    poison_nan(p.C.get(), p.C.count());
    cudaError_t err = r.run(p.A.get(), p.B.get(), p.C.get(), s);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
        throw Error(r.label() + " " + shape_text(s) + ": " +
                    (ladder::last_error()[0] ? ladder::last_error() : cudaGetErrorString(err)));
    return to_host(p.C);
}

// Returns the number of failures.
int check_shape(const std::vector<Runner>& runners, const Shape& s, uint64_t seed, bool cpu_reference,
                bool gpu_reference, Cublas& cublas) {
    ProblemBuffers p(s.M, s.N, s.K);
    fill_random(p.A.get(), p.A.count(), seed);
    fill_random(p.B.get(), p.B.count(), seed + 1);

    // The full reference: cuBLAS with fp32 output, float64 on the CPU for small shapes, or the
    // harness's float64 GEMM on the GPU (--reference gpu: no cuBLAS kernel in a sanitizer's run).
    std::vector<float> want_f32;
    std::vector<double> want_f64;
    const Samples samples = sample_reference(p, s.M, s.N, s.K, seed + 2);
    int failures = 0;
    if (cpu_reference) {
        std::vector<uint16_t> A = to_host(p.A), B = to_host(p.B);
        want_f64.resize(static_cast<size_t>(s.M * s.N));
        ladder::check::reference_gemm(A.data(), B.data(), want_f64.data(), static_cast<int>(s.M),
                                      static_cast<int>(s.N), static_cast<int>(s.K));
    } else if (gpu_reference) {
        DeviceBuffer<float> ref(static_cast<size_t>(s.M * s.N));
        reference_gemm_f64(p.A.get(), p.B.get(), ref.get(), static_cast<int>(s.M), static_cast<int>(s.N),
                           static_cast<int>(s.K));
        want_f32.resize(ref.count());
        LADDER_CUDA(cudaMemcpy(want_f32.data(), ref.get(), ref.bytes(), cudaMemcpyDeviceToHost));
    } else {
        std::string note;
        want_f32 = checked_reference(p, static_cast<int>(s.M), static_cast<int>(s.N), static_cast<int>(s.K),
                                     samples, cublas, &note);
        if (!note.empty()) std::printf("  %s %s\n", shape_text(s).c_str(), note.c_str());
    }

    const ladder::check::Tolerance tol;
    for (const Runner& r : runners) {
        std::vector<uint16_t> got = run_once(r, p, s);
        ladder::check::CheckResult result =
            cpu_reference ? ladder::check::compare(got.data(), want_f64.data(), s.M, s.N, tol)
                          : ladder::check::compare(got.data(), want_f32.data(), s.M, s.N, tol);
        std::string verdict = result.message;
        bool ok = result.ok;
        for (size_t i = 0; ok && i < samples.where.size(); ++i) {
            auto [m, n] = samples.where[i];
            const double g = ladder::check::bf16_to_float(got[m * s.N + n]);
            if (!ladder::check::sample_within(g, samples.exact[i], tol.elem_rel)) {
                ok = false;
                char line[200];
                std::snprintf(line, sizeof line, "FAILED: C[%lld,%lld] = %.6g, float64 reference %.6g",
                              m, n, g, samples.exact[i].value);
                verdict = line;
            }
        }
        // The same inputs must give the same bits: a difference means a race.
        if (ok && got != run_once(r, p, s)) {
            ok = false;
            verdict = "FAILED: a second run on the same inputs gave different bits (a race?)";
        }
        std::printf("check %-28s %-20s %s\n", r.label().c_str(), shape_text(s).c_str(), verdict.c_str());
        if (!ok) ++failures;
    }
    return failures;
}

// Benchmarks every runner and cuBLAS on one shape; appends CSV rows. Returns failures.
int bench_shape(const std::vector<Runner>& runners, const Shape& s, uint64_t seed, int min_runs,
                double budget_ms, const ladder::cli::Options& opt, Cublas& cublas,
                const DeviceInfo& dev, std::vector<ladder::csv::Row>* rows) {
    // Enough input sets that one pass over them is 3x the L2: no launch finds its inputs cached.
    std::vector<ProblemBuffers> sets;
    // In double: M*N + N*K + M*K bytes can exceed 2^63 for sizes no GPU holds.
    const double set_bytes = 2.0 * (static_cast<double>(s.M) * s.K + static_cast<double>(s.N) * s.K +
                                    static_cast<double>(s.M) * s.N);
    size_t free_bytes = 0, total_bytes = 0;
    LADDER_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double wanted = std::ceil(3.0 * static_cast<double>(dev.l2_bytes) / set_bytes);
    const double affordable = std::max(1.0, std::floor(static_cast<double>(free_bytes) / 2 / set_bytes));
    const int set_count = static_cast<int>(std::clamp(wanted, 1.0, std::min(affordable, 64.0)));
    for (int i = 0; i < set_count; ++i) {
        sets.emplace_back(s.M, s.N, s.K);
        fill_random(sets.back().A.get(), sets.back().A.count(), seed + 10 * i);
        fill_random(sets.back().B.get(), sets.back().B.count(), seed + 10 * i + 1);
    }
    const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
    const double flop = 2.0 * s.M * s.N * s.K;

    // The reference for verifying what was timed (set 0), and cuBLAS's own bf16 result checked
    // against it once: a baseline that computes something else is worth knowing about.
    std::string note;
    std::vector<float> want =
        checked_reference(sets[0], M, N, K, sample_reference(sets[0], s.M, s.N, s.K, seed + 2), cublas, &note);
    if (!note.empty()) std::printf("note  %s %s\n", shape_text(s).c_str(), note.c_str());
    {
        poison_nan(sets[0].C.get(), sets[0].C.count());
        cublas.gemm(sets[0].A.get(), sets[0].B.get(), sets[0].C.get(), M, N, K);
        LADDER_CUDA(cudaDeviceSynchronize());
        const ladder::check::CheckResult own = ladder::check::compare(to_host(sets[0].C).data(), want.data(), s.M, s.N);
        if (!own.ok)
            std::printf("note  %s cuBLAS's own bf16 result is wrong (%s); it is still timed as the baseline\n",
                        shape_text(s).c_str(), own.message.c_str());
    }

    // Where the default variant picks its configuration per problem, say which and why.
    if (!runners.empty() && runners.front().step.describe != nullptr)
        std::printf("plan  %-28s %-20s %s\n", runners.front().step.name, shape_text(s).c_str(),
                    runners.front().step.describe(M, N, K).c_str());

    // --inputs zero: each kernel is checked on the random inputs first; then every input set
    // is zeroed, the timed runs multiply zeros, and what was timed is checked against zeros.
    int failures = 0;
    const bool zero_inputs = opt.inputs == "zero";
    std::vector<bool> checked(runners.size(), true);
    if (zero_inputs) {
        for (size_t i = 0; i < runners.size(); ++i) {
            const std::vector<uint16_t> got = run_once(runners[i], sets[0], s);
            const ladder::check::CheckResult result = ladder::check::compare(got.data(), want.data(), s.M, s.N);
            if (!result.ok) {
                std::printf("bench %s %s: wrong on random inputs, not timed: %s\n", runners[i].label().c_str(),
                            shape_text(s).c_str(), result.message.c_str());
                checked[i] = false;
                ++failures;
            }
        }
        for (ProblemBuffers& set : sets) {
            LADDER_CUDA(cudaMemset(set.A.get(), 0, set.A.bytes()));
            LADDER_CUDA(cudaMemset(set.B.get(), 0, set.B.bytes()));
        }
        std::fill(want.begin(), want.end(), 0.0f);
    }
    for (size_t runner = 0; runner < runners.size(); ++runner) {
        const Runner& r = runners[runner];
        if (!checked[runner]) continue;
        // The step and cuBLAS alternate launch by launch (see time_alternating), eagerly or
        // (--graph) each replaying the CUDA graph its launch was captured into.
        const std::vector<std::function<cudaError_t(int, cudaStream_t)>> on_stream = {
            [&](int i, cudaStream_t st) { return r.run(sets[i].A.get(), sets[i].B.get(), sets[i].C.get(), s, st); },
            [&](int i, cudaStream_t st) {
                cublas.gemm(sets[i].A.get(), sets[i].B.get(), sets[i].C.get(), M, N, K, st);
                return cudaSuccess;
            }};
        std::unique_ptr<GraphLaunches> graphs;
        if (opt.graph) graphs = std::make_unique<GraphLaunches>(on_stream, set_count);
        const std::vector<std::function<cudaError_t(int)>> launches =
            graphs ? graphs->replays()
                   : std::vector<std::function<cudaError_t(int)>>{
                             [&](int i) { return on_stream[0](i, nullptr); },
                             [&](int i) { return on_stream[1](i, nullptr); }};
        const std::vector<Timing> timed =
            opt.regime.empty() ? time_alternating(launches, set_count, min_runs, budget_ms)
                               : time_regime(launches, set_count, opt.regime == "sustained",
                                             opt.regime_seconds);
        const Timing& t = timed[0];
        const Timing& base = timed[1];
        if (t.runs == 0) {
            std::printf("bench %-28s %-20s not timed: one launch takes %.0f ms, so %d runs would "
                        "exceed the %.0f s budget of this shape set (time it with --sizes MxNxK)\n",
                        r.label().c_str(), shape_text(s).c_str(), std::max(t.estimate_ms, base.estimate_ms), min_runs,
                        budget_ms / 1000);
            continue;
        }
        // The clock and power the timed loop ran at (means of samples taken while it ran); one
        // reading now where there were none. The reading now is printed beside the mean: under
        // the power limit the two differ.
        const int clock_after_mhz = current_sm_clock_mhz();
        const int clock_mhz = t.sm_clock_mhz > 0 ? static_cast<int>(std::lround(t.sm_clock_mhz)) : clock_after_mhz;
        const double power_w = t.power_w > 0 ? t.power_w : current_power_w();
        std::vector<uint16_t> got = run_once(r, sets[0], s);
        ladder::check::CheckResult result = ladder::check::compare(got.data(), want.data(), s.M, s.N);
        if (!result.ok) {
            std::printf("bench %s %s: the timed kernel's output is wrong: %s\n", r.label().c_str(),
                        shape_text(s).c_str(), result.message.c_str());
            ++failures;
            continue;  // a wrong kernel's time is not a result
        }
        ladder::csv::Row row;
        row.step = r.step.number;
        row.name = r.label() + (opt.regime.empty() ? "" : "@" + opt.regime) + (opt.graph ? "@graph" : "") +
                   (zero_inputs ? "@zero" : "");
        row.inputs = opt.inputs;
        row.power_w = power_w;
        row.tensor_clock_mhz = t.tensor_clock_mhz;
        row.M = s.M, row.N = s.N, row.K = s.K;
        row.ms = t.median_ms;
        row.tflops = flop / (t.median_ms * 1e9);
        row.cublas_ms = base.median_ms;
        row.cublas_tflops = flop / (base.median_ms * 1e9);
        row.speedup_vs_cublas = base.median_ms / t.median_ms;
        row.device = dev.name;
        row.sm_clock_mhz = clock_mhz ? clock_mhz : dev.peak_sm_clock_mhz;
        row.cuda = dev.cuda;
        row.driver = dev.driver;
        row.date = today();
        row.seed = seed;
        row.runs = t.runs;
        row.min_ms = t.min_ms;
        row.max_ms = t.max_ms;
        row.commit = LADDER_GIT_COMMIT;
        ladder::plan_for(r.step, r.variant.name, dev, s, &row.predicted_tflops, &row.predicted_limiter);
        std::printf("bench %-28s %-20s %9.4f ms %7.1f TFLOP/s | cuBLAS %9.4f ms %7.1f TFLOP/s | %5.2fx"
                    " | %d runs, %d input sets, SM %d MHz (%d after; tensor %.0f), %.0f W\n",
                    row.name.c_str(), shape_text(s).c_str(), row.ms, row.tflops, row.cublas_ms,
                    row.cublas_tflops, row.speedup_vs_cublas, t.runs, set_count, row.sm_clock_mhz,
                    clock_after_mhz, row.tensor_clock_mhz, row.power_w);
        std::fflush(stdout);
        rows->push_back(row);
    }
    return failures;
}

// Whether rows can be appended to `path`: asked before the benchmark, not after it. Opening
// creates a missing file, which the probe removes again, so that a run that writes no row
// (no GPU, every check failed) leaves no empty CSV behind for the plots to trip on.
bool can_append(const std::string& path) {
    std::error_code ignored;
    const bool existed = std::filesystem::exists(path, ignored);
    if (!std::ofstream(path, std::ios::app)) return false;
    if (!existed) std::filesystem::remove(path, ignored);
    return true;
}

void print_table(const std::vector<ladder::csv::Row>& rows) {
    if (rows.empty()) return;
    std::printf("\n%-32s %-20s %10s %9s %10s %9s %8s %9s\n", "step", "M x N x K", "ms", "TFLOP/s",
                "cuBLAS ms", "cuBLAS", "x cuBLAS", "predicted");
    for (const auto& r : rows) {
        char shape[64];
        std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", r.M, r.N, r.K);
        std::printf("%-32s %-20s %10.4f %9.1f %10.4f %9.1f %8.2f %9.0f\n",
                    (std::to_string(r.step) + " " + r.name).c_str(), shape, r.ms, r.tflops,
                    r.cublas_ms, r.cublas_tflops, r.speedup_vs_cublas, r.predicted_tflops);
    }
}

}  // namespace

int main(int argc, char** argv) {
    ladder::cli::Options opt;
    std::string error;
    if (!ladder::cli::parse(argc, argv, &opt, &error)) {
        std::fprintf(stderr, "step-%d: %s\n%s", LADDER_STEP, error.c_str(), ladder::cli::usage(argv[0]).c_str());
        return 2;
    }
    // Everything about the arguments is settled here, before anything touches the GPU.
    const ladder::Step* step = ladder::find_step(LADDER_STEP);
    if (step == nullptr || !ladder::step_built(*step)) {
        std::fprintf(stderr, "step-%d: not available in this build\n", LADDER_STEP);
        return 1;
    }
    if (opt.help) {
        std::printf("%sVariants of step %d (--variant): %s\n", ladder::cli::usage(argv[0]).c_str(),
                    LADDER_STEP, ladder::variant_names(*step).c_str());
        if (!ladder::tile_names(*step).empty())
            std::printf("Tiles of its default variant (--tile): %s\n", ladder::tile_names(*step).c_str());
        return 0;
    }
    std::vector<Runner> runners;
    if (!opt.tile.empty()) {
        // --tile: the default variant's kernel forced to one tile (or to each, "all").
        for (const ladder::Variant& t : step->tiles) {
            if (t.name == nullptr) break;
            if (opt.tile == "all" || ladder::find_tile(*step, opt.tile.c_str()) == &t)
                runners.push_back({*step, t});
        }
        if (runners.empty()) {
            const std::string tiles = ladder::tile_names(*step);
            std::fprintf(stderr, "step-%d: no tile '%s' (%s)\n", LADDER_STEP,
                         ladder::printable(opt.tile.c_str()).c_str(),
                         tiles.empty() ? "this step has no tile family"
                                       : ("tiles of step " + std::to_string(LADDER_STEP) + ": " + tiles + ", all").c_str());
            return 2;
        }
    }
    for (const ladder::Variant& v : step->variants) {
        if (!opt.tile.empty() || v.name == nullptr || v.gemm == nullptr) break;
        if (ladder::cli::selects_variant(opt, LADDER_STEP, v.name, &v == &step->variants[0]))
            runners.push_back({*step, v});
    }
    if (opt.variants == "compared")
        for (const std::string& name : ladder::cli::compared_variants(LADDER_STEP))
            if (ladder::find_variant(*step, name.c_str()) == nullptr)
                std::printf("note: step-%d has no variant '%s' in this build: not run\n", LADDER_STEP,
                            name.c_str());
    if (runners.empty()) {
        std::fprintf(stderr, "step-%d: no variant '%s' (variants of step %d: %s)\n", LADDER_STEP,
                     ladder::printable(opt.variant.c_str()).c_str(), LADDER_STEP,
                     ladder::variant_names(*step).c_str());
        return 2;
    }
    // A CSV file that cannot be written is found now, not after the whole benchmark.
    if (!opt.csv.empty() && !can_append(opt.csv)) {
        std::fprintf(stderr, "step-%d: --csv: cannot open '%s' for appending\n", LADDER_STEP,
                     ladder::printable(opt.csv.c_str()).c_str());
        return 2;
    }

    std::string why;
    if (!opt.timeline.empty() && !ladder::timeline::available(*step, &why)) {
        std::fprintf(stderr, "step-%d: %s\n", LADDER_STEP, why.c_str());
        return 2;
    }
    if (!gpu_available(&why)) {
        std::printf("SKIP: step-%d: %s\n", LADDER_STEP, why.c_str());
        return kExitSkip;
    }
    try {
        const DeviceInfo dev = device_info();
        const bool hopper = dev.major == 9 && dev.minor == 0;
        if (step->arch == ladder::NeedsArch::Sm90a && !hopper) {
            std::printf("SKIP: step-%d (%s) needs a Hopper GPU (sm_90a); this is %s (sm_%d%d)\n",
                        LADDER_STEP, step->folder, dev.name.c_str(), dev.major, dev.minor);
            return kExitSkip;
        }
        if (dev.major < 8) {
            std::printf("SKIP: step-%d needs sm_80 or newer; this is %s (sm_%d%d)\n", LADDER_STEP,
                        dev.name.c_str(), dev.major, dev.minor);
            return kExitSkip;
        }
        const uint64_t seed = opt.seed_given ? opt.seed : std::random_device{}();
        const ladder::TileConfig tc = step->tile_config();
        std::printf("step %d (%s) on %s, %d SMs, CUDA %s, driver %s; seed %llu\n", step->number,
                    step->folder, dev.name.c_str(), dev.sm_count, dev.cuda.c_str(), dev.driver.c_str(),
                    static_cast<unsigned long long>(seed));
        std::printf("tile %dx%dx%d, %d stages, %d consumer warpgroups, cluster %d, %d threads\n", tc.bm,
                    tc.bn, tc.bk, tc.stages, tc.consumer_warpgroups, tc.cluster, tc.threads);
        ladder::print_plan(*step, dev, opt.bench ? opt.bench_shapes.front()
                                       : opt.check ? opt.check_shapes.front() : opt.timeline_shape);

        Cublas cublas;
        int failures = 0;
        if (opt.check)
            for (size_t i = 0; i < opt.check_shapes.size(); ++i)
                failures += check_shape(runners, opt.check_shapes[i], seed + 1000 * i, opt.cpu_reference,
                                        opt.gpu_reference, cublas);
        std::vector<ladder::csv::Row> rows;
        if (opt.bench)
            for (size_t i = 0; i < opt.bench_shapes.size(); ++i)
                failures += bench_shape(runners, opt.bench_shapes[i], seed + 7919 * i, opt.min_runs,
                                        opt.bench_budget_ms, opt,
                                        cublas, dev, &rows);
        print_table(rows);
        if (!opt.timeline.empty()) {
            const Shape& s = opt.timeline_shape;
            if (!ladder::timeline::record_csv(*step, runners.front().variant, s.M, s.N, s.K, seed,
                                              opt.timeline, &error)) {
                std::fprintf(stderr, "step-%d: %s\n", LADDER_STEP, error.c_str());
                return 1;
            }
        }
        if (!opt.csv.empty() && !rows.empty() && !ladder::csv::append_rows(opt.csv, rows, &error)) {
            std::fprintf(stderr, "step-%d: %s\n", LADDER_STEP, error.c_str());
            return 1;
        }
        if (failures) {
            std::printf("step-%d: %d check(s) FAILED\n", LADDER_STEP, failures);
            return 1;
        }
        std::printf("step-%d: all checks passed\n", LADDER_STEP);
        return 0;
    } catch (const Error& e) {
        std::fprintf(stderr, "step-%d: %s\n", LADDER_STEP, e.what());
        return 1;
    }
}
