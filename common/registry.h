// registry.h: the list of steps, their variants and their tile configurations,
// as the C API, the step executables, the tests and the planner see them.
#pragma once

#include <string>

#include "step_api.h"

namespace ladder {

constexpr int kStepCount = 7;
constexpr int kMaxVariants = 10;

struct Variant {
    const char* name;        // "" for a step with a single schedule
    GemmFn gemm;             // nullptr when the step's folder is not built
};

struct Step {
    int number;              // 1..7
    const char* name;        // short name, e.g. "wgmma"
    const char* folder;      // e.g. "05_wgmma"
    NeedsArch arch;
    TileConfig (*tile_config)();  // nullptr when not built
    Variant variants[kMaxVariants];  // the first one is the step's default
    // One line on what the default variant runs for M x N x K when that depends on the
    // problem (step 07's tile), or nullptr.
    std::string (*describe)(int M, int N, int K) = nullptr;
};

// The step with this number (1..kStepCount), or nullptr for any other number.
const Step* find_step(int number);

// True when the step's code is linked in (its folder was added in CMakeLists.txt).
bool step_built(const Step& step);

// The variant named `name` ("" or nullptr: the default), or nullptr.
const Variant* find_variant(const Step& step, const char* name);

// The step's variant names for a message: "cluster2 (default), cluster1, cluster4", or
// "only the default" for a step with a single schedule.
std::string variant_names(const Step& step);

}  // namespace ladder
