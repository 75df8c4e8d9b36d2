// registry.h: the list of steps, their variants and their tile configurations, as the C
// API, the step executables, the tests and the planner see them.
//
// Nothing here names a step: each step's file registers itself with one statement at the
// end of its namespace, and a variant file (gemm_<name>.cu) registers its own variants:
//
//   LADDER_REGISTER_STEP(tile_config, describe, set_timeline, {"lesson", gemm}, ...);
//   LADDER_REGISTER_VARIANT(set_timeline, {"cg", gemm});
//   LADDER_REGISTER_DEFAULT_VARIANT(describe, set_timeline, {"cluster2", gemm}, ...);
//   LADDER_REGISTER_TILES(set_timeline, {"tile64x64", gemm_tile<64, 64>}, ...);
//   LADDER_REGISTER_WORKSPACE(workspace_bytes);
//
// A step's default variant is the first one gemm.cu lists, unless a variant file of the step
// registers with LADDER_REGISTER_DEFAULT_VARIANT (step 07: gemm.cu is the lesson kernel, and
// every_shape/every_shape.cu's kernel is what the step runs by default); that file's variants then
// come first, and its describe function is the step's. A step may also register tiles: the
// default kernel forced to one tile of its family (step-7 --tile 128x128), listed apart from
// the variants.
//
// The step's number, folder and arch come from its line in CMakeLists.txt,
// ladder_add_step(<number> <folder> <SM80|SM90A>), which compiles the file with
// LADDER_STEP_NUMBER, LADDER_STEP_FOLDER and LADDER_STEP_ARCH (ladder_step_object in
// common/CMakeLists.txt); its short name is the folder without the number ("05_wgmma":
// "wgmma"). A step whose folder is not built registers nothing, and the C API then
// answers "not available" for it.
#pragma once

#include <initializer_list>
#include <string>

#include "step_api.h"

namespace ladder {

namespace timeline {
struct Buffer;
}

constexpr int kStepCount = 7;     // the ladder's length, built or not
constexpr int kMaxVariants = 8;  // per step; one more fails at startup, with a message
constexpr int kMaxTiles = 16;    // per step, likewise

// A file's timeline hook, set_timeline (timeline.cuh: LADDER_TIMELINE_HOOK), or nullptr.
using TimelineHook = cudaError_t (*)(const timeline::Buffer&);
// One line on what the default variant runs for M x N x K (step 07's tile), or nullptr.
using DescribeFn = std::string (*)(int M, int N, int K);
// The most workspace any call of the step needs on the current device, in *bytes (0 where
// its kernels need none): what a caller that owns the workspace allocates
// (ladder_workspace_size). nullptr for a step that never asks for one.
using WorkspaceFn = cudaError_t (*)(size_t* bytes);

struct Variant {
    const char* name;  // "" for a step with a single schedule
    GemmFn gemm;
    // The hook of the file the variant's kernel lives in: a variant file's kernel records
    // into its own file's buffer. nullptr where the file has none (steps 01-02) and in a
    // build without -DLADDER_TIMELINE.
    TimelineHook set_timeline = nullptr;
};

struct Step {
    int number;              // 1..kStepCount
    const char* name;        // short name, e.g. "wgmma" ("" when the step is not built)
    const char* folder;      // e.g. "05_wgmma" ("" when the step is not built)
    NeedsArch arch;
    TileConfig (*tile_config)();     // nullptr when not built
    Variant variants[kMaxVariants];  // the first one is the step's default; then name nullptr
    DescribeFn describe;             // or nullptr
    Variant tiles[kMaxTiles];        // "tile<R>x<C>": the default kernel on one tile; then nullptr
    WorkspaceFn workspace_bytes;     // or nullptr
};

// The step with this number (1..kStepCount), built or not, or nullptr for any other number.
const Step* find_step(int number);

// True when the step registered itself (its folder was added in CMakeLists.txt).
bool step_built(const Step& step);

// The variant named `name` ("" or nullptr: the default), or nullptr.
const Variant* find_variant(const Step& step, const char* name);

// The tile named `name` ("64x64" or "tile64x64"), or nullptr.
const Variant* find_tile(const Step& step, const char* name);

// The step's tiles for a message, "64x64, 64x96, ..." (without the "tile"), or "" if none.
std::string tile_names(const Step& step);

// The step's variant names for a message: "cluster2 (default), cluster1, cluster4",
// "the default (no name), pipeline" where the default schedule has no name, or "only the
// default" for a step with a single schedule.
std::string variant_names(const Step& step);

// What the two statements below expand to: an object at namespace scope whose constructor
// adds the file's entries to the registry before main() (or when libladder.so is loaded).
// The registry itself is a function-local static, so the order in which files initialize
// does not matter. A step's variants are listed in a fixed order whatever that order:
// gemm.cu's, as its statement lists them (the default first), then each variant file's,
// in the order of the ladder_add_variant lines (`file_order`: 0 for gemm.cu, then 1, 2...).
// A mistake (a step registered twice, a number out of range, a repeated variant name, more
// than kMaxVariants) prints what is wrong and aborts.
struct StepRegistration {
    StepRegistration(int number, const char* folder, NeedsArch arch, TileConfig (*tile_config)(),
                     DescribeFn describe, TimelineHook set_timeline,
                     std::initializer_list<Variant> variants);
};

struct VariantRegistration {
    VariantRegistration(int number, int file_order, TimelineHook set_timeline,
                        std::initializer_list<Variant> variants);
    // The default variant's file (file_order -1: before gemm.cu's), with the step's describe.
    VariantRegistration(int number, DescribeFn describe, TimelineHook set_timeline,
                        std::initializer_list<Variant> variants);
};

struct TileRegistration {
    TileRegistration(int number, TimelineHook set_timeline, std::initializer_list<Variant> tiles);
};

struct WorkspaceRegistration {
    WorkspaceRegistration(int number, WorkspaceFn workspace_bytes);
};

}  // namespace ladder

// The step's entry (in gemm.cu, at the end of the step's namespace): its tile_config, its
// describe function or nullptr, its timeline hook (set_timeline where the file has
// LADDER_TIMELINE_HOOK(), else nullptr), then its variants as {"name", function}, the
// default first.
#define LADDER_REGISTER_STEP(tile_config, describe, set_timeline, ...)                        \
    ::ladder::StepRegistration registered_step(LADDER_STEP_NUMBER, LADDER_STEP_FOLDER,        \
                                               ::ladder::NeedsArch::LADDER_STEP_ARCH,         \
                                               tile_config, describe, set_timeline,           \
                                               {__VA_ARGS__})

// A variant file's entries (gemm_<name>.cu, compiled by ladder_add_variant): listed after
// gemm.cu's, or, with LADDER_REGISTER_DEFAULT_VARIANT, before them (the first is the step's
// default, and `describe` the step's describe function).
#define LADDER_REGISTER_VARIANT(set_timeline, ...)                                            \
    ::ladder::VariantRegistration registered_variant(LADDER_STEP_NUMBER, LADDER_VARIANT_ORDER, \
                                                     set_timeline, {__VA_ARGS__})
#define LADDER_REGISTER_DEFAULT_VARIANT(describe, set_timeline, ...)                           \
    ::ladder::VariantRegistration registered_variant(LADDER_STEP_NUMBER, describe, set_timeline, \
                                                     {__VA_ARGS__})

// The tiles a step's default kernel may be forced to, each {"tile<R>x<C>", function}.
#define LADDER_REGISTER_TILES(set_timeline, ...)                                               \
    ::ladder::TileRegistration registered_tiles(LADDER_STEP_NUMBER, set_timeline, {__VA_ARGS__})

// The step's workspace bound (WorkspaceFn), from the file whose kernels use stream_workspace.
#define LADDER_REGISTER_WORKSPACE(workspace_bytes) \
    ::ladder::WorkspaceRegistration registered_workspace(LADDER_STEP_NUMBER, workspace_bytes)
