// registry.cpp: the one table that names every step. Adding a step is one line in
// CMakeLists.txt (ladder_add_step) and one row here.
//
// Each step's entry points are declared weak: a step whose folder is not built leaves
// them unresolved, the linker sets their addresses to null, and the C API then answers
// "not available" instead of failing to link.
#include "registry.h"

#include <cstring>

#define LADDER_DECLARE_STEP(ns, ...)                                                      \
    namespace ladder::ns {                                                                \
    __attribute__((weak)) cudaError_t gemm(const bf16*, const bf16*, bf16*, int, int, int, \
                                           cudaStream_t);                                 \
    __attribute__((weak)) TileConfig tile_config();                                       \
    __VA_ARGS__                                                                           \
    }

#define LADDER_DECLARE_VARIANT(fn)                                                        \
    __attribute__((weak)) cudaError_t fn(const bf16*, const bf16*, bf16*, int, int, int, \
                                         cudaStream_t);

LADDER_DECLARE_STEP(step01)
LADDER_DECLARE_STEP(step02)
LADDER_DECLARE_STEP(step02_pipeline)  // 02_cp_async_mma_sync/gemm_pipeline.cu
LADDER_DECLARE_STEP(step03)
LADDER_DECLARE_STEP(step03_barrier)  // 03_tma_single_stage/gemm_barrier.cu
LADDER_DECLARE_STEP(step03_bulk1d)   // 03_tma_single_stage/gemm_bulk1d.cu
LADDER_DECLARE_STEP(step04)
LADDER_DECLARE_STEP(step05)
LADDER_DECLARE_STEP(step06)
LADDER_DECLARE_STEP(step06_pingpong)  // 06_warp_specialized/gemm_pingpong.cu
LADDER_DECLARE_STEP(step07, LADDER_DECLARE_VARIANT(gemm_cluster1)
                                LADDER_DECLARE_VARIANT(gemm_cluster4)
                                LADDER_DECLARE_VARIANT(gemm_dataparallel)
                                LADDER_DECLARE_VARIANT(gemm_bm64)
                                LADDER_DECLARE_VARIANT(gemm_bm128)
                                LADDER_DECLARE_VARIANT(gemm_bm64n128)
                                LADDER_DECLARE_VARIANT(gemm_bm128n128)
                                LADDER_DECLARE_VARIANT(gemm_bm128n192)
                                __attribute__((weak)) std::string describe(int, int, int);)
LADDER_DECLARE_STEP(step07_cg)  // 07_clusters_multicast/gemm_cg.cu

namespace ladder {
namespace {

const Step kSteps[kStepCount] = {
    {1, "naive", "01_naive", NeedsArch::Sm80, step01::tile_config, {{"", step01::gemm}}},
    {2, "cp_async_mma_sync", "02_cp_async_mma_sync", NeedsArch::Sm80, step02::tile_config, {{"", step02::gemm}, {"pipeline", step02_pipeline::gemm}}},
    {3, "tma_single_stage", "03_tma_single_stage", NeedsArch::Sm90a, step03::tile_config, {{"", step03::gemm}, {"barrier", step03_barrier::gemm}, {"bulk1d", step03_bulk1d::gemm}}},
    {4, "tma_multistage", "04_tma_multistage", NeedsArch::Sm90a, step04::tile_config, {{"", step04::gemm}}},
    {5, "wgmma", "05_wgmma", NeedsArch::Sm90a, step05::tile_config, {{"", step05::gemm}}},
    {6, "warp_specialized", "06_warp_specialized", NeedsArch::Sm90a, step06::tile_config, {{"cooperative", step06::gemm}, {"pingpong", step06_pingpong::gemm}}},
    {7, "clusters_multicast", "07_clusters_multicast", NeedsArch::Sm90a, step07::tile_config, {{"cluster2", step07::gemm}, {"cluster1", step07::gemm_cluster1}, {"cluster4", step07::gemm_cluster4}, {"dataparallel", step07::gemm_dataparallel}, {"bm64", step07::gemm_bm64}, {"bm128", step07::gemm_bm128}, {"bm64n128", step07::gemm_bm64n128}, {"bm128n128", step07::gemm_bm128n128}, {"bm128n192", step07::gemm_bm128n192}, {"cg", step07_cg::gemm}}, step07::describe},
};

}  // namespace

const Step* find_step(int number) {
    if (number < 1 || number > kStepCount) return nullptr;
    return &kSteps[number - 1];
}

bool step_built(const Step& step) { return step.variants[0].gemm != nullptr; }

const Variant* find_variant(const Step& step, const char* name) {
    for (const Variant& v : step.variants) {
        if (v.name == nullptr) break;
        bool is_default = (name == nullptr || name[0] == '\0') && &v == &step.variants[0];
        if (is_default || (name != nullptr && std::strcmp(v.name, name) == 0))
            return v.gemm ? &v : nullptr;
    }
    return nullptr;
}

std::string variant_names(const Step& step) {
    if (step.variants[0].name == nullptr || step.variants[0].name[0] == '\0') return "only the default";
    std::string names;
    for (const Variant& v : step.variants) {
        if (v.name == nullptr) break;
        names += names.empty() ? std::string(v.name) + " (default)" : std::string(", ") + v.name;
    }
    return names;
}

}  // namespace ladder
