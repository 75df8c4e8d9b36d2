// cli.h: the command line of the step executables (step-1 ... step-7), parsed in plain C++
// so the parsing is unit-tested without a GPU.
//
//   step-N                      check the default shape set, then benchmark the default sizes
//   step-N --check              only check          step-N --bench   only benchmark
//   --m M --n N --k K           one shape (all three: one alone is refused)
//   --sizes LIST                default | short | quick | small | check | "4096,1000x1992x2056,..." (K % 8 == 0)
//   --variant NAME              one schedule of the step (step 6: pingpong, step 7: cluster1...)
//   --variants SET              all (default) | compared (the default and what the step's README
//                               compares it with) | default
//   --tile RxC | all            the default variant forced to one tile of its family (step 7)
//   --csv FILE                  append benchmark rows to FILE
//   --seed S                    fix the input seed (default: a fresh seed, printed)
//   --reference cublas|cpu|gpu  full reference: cuBLAS on the GPU, float64 on the CPU, or the
//                               harness's float64 GEMM on the GPU (keeps cuBLAS out of a
//                               sanitizer's run on shapes too large for the CPU)
//   --timeline FILE             record the pipeline timeline of one run as CSV (the --m/--n/--k
//                               shape, default 4096^3; needs a -DLADDER_TIMELINE=ON build)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ladder::cli {

// The most timed runs --runs may ask for (each needs a pair of CUDA events).
constexpr int kMaxRuns = 100000;

struct Shape {
    long long M, N, K;
};

struct Options {
    bool check = false;
    bool bench = false;
    bool help = false;
    std::vector<Shape> check_shapes;
    std::vector<Shape> bench_shapes;
    // Per variant and shape on a named benchmark set (no --sizes: the default set, or
    // --sizes short): one whose min_runs launches would take longer is not timed. 0: time all.
    double bench_budget_ms = 0;
    std::string csv;
    std::string variant;   // "" = the variants that `variants` names
    std::string variants;  // --variants all|compared|default ("" = all)
    std::string tile;      // --tile: "" = none, "all", or "RxC" (the registry checks it)
    bool seed_given = false;
    uint64_t seed = 0;
    int min_runs = 20;
    bool cpu_reference = false;
    bool gpu_reference = false;  // --reference gpu: reference_gemm_f64 (harness.h)
    // --regime cool|sustained: time the bench shapes as a public claim would quote them
    // (see harness.h, time_regime) instead of the default median of alternating launches.
    std::string regime;                       // "" = the default timing
    // --graph: each launch is captured once per input set into a CUDA graph and the timed
    // runs replay the graphs, as an application that captures its steps would run them.
    bool graph = false;
    double regime_seconds = 0;                // --regime-seconds: idle before cool, length of sustained
    std::string timeline;                     // --timeline FILE ("" = no timeline)
    // --inputs uniform|zero: what the timed runs multiply (the checks always use random data).
    std::string inputs = "uniform";
    Shape timeline_shape{4096, 4096, 4096};  // the one problem --timeline runs
};

// The correctness set (--check, and the GPU tests): tiny, odd, skinny and one large shape.
std::vector<Shape> check_shapes();
// Squares 512..8192, odd sizes, skinny problems and LLM projections (M = 8192 tokens).
std::vector<Shape> default_bench_shapes();
// The `bench` target's sizes: a few of each family of the default set.
std::vector<Shape> short_bench_shapes();
// A few sizes that finish in seconds, for a classroom.
std::vector<Shape> quick_bench_shapes();
// The variants that step `step`'s README compares with its default (what --variants compared
// runs besides the default). Names the step does not register are not run.
std::vector<std::string> compared_variants(int step);
// Whether the options select the variant `name` of step `step` (`is_default`: its first).
bool selects_variant(const Options& o, int step, const std::string& name, bool is_default);
// Small shapes for compute-sanitizer runs (edges, a K tail, a single element).
std::vector<Shape> small_shapes();
// Step 07's contract sweep (94 shapes: skinny problems, squares and odd sizes of a few waves).
std::vector<Shape> contract_shapes();
// Shapes of the four classes where step 07 once trailed cuBLAS (few tiles with a long K,
// a short K, a short M with a long K, one to six waves).
std::vector<Shape> class_shapes();

// Parses "4096" (a cube) or "MxNxK", comma-separated, or one of the set names above.
bool parse_sizes(const std::string& text, std::vector<Shape>* out, std::string* error);

// Parses argv. Returns false with *error set on bad arguments (the caller exits with 2).
bool parse(int argc, const char* const* argv, Options* out, std::string* error);

std::string usage(const char* program);

// Whether --reference cpu may take this shape: M*N*K <= 2^31 (computed without overflow).
bool cpu_reference_fits(const Shape& s);

}  // namespace ladder::cli
