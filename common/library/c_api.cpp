// c_api.cpp: the C API (ladder.h) over the step registry.
#include "ladder.h"

#include "registry.h"

#include <cstring>

using ladder::bf16;

namespace {

// The step numbered `step` where it is built into this library; else nullptr, with *rc the
// error recorded in `function`'s name.
const ladder::Step* built_step(const char* function, int step, int* rc) {
    const ladder::Step* s = ladder::find_step(step);
    if (s == nullptr) {
        *rc = ladder::fail(cudaErrorInvalidValue, "%s: no step %d (steps are 1..%d)", function, step,
                           ladder::kStepCount);
        return nullptr;
    }
    if (!ladder::step_built(*s)) {
        *rc = ladder::fail(cudaErrorNotSupported,
                           "%s: step %d is not available: its folder is not built into this library",
                           function, step);
        return nullptr;
    }
    return s;
}

}  // namespace

extern "C" int ladder_gemm_variant(int step, const char* variant, const void* A, const void* B,
                                   void* C, int M, int N, int K, void* stream) {
    ladder::clear_error();
    int rc = 0;
    const ladder::Step* s = built_step("ladder_gemm", step, &rc);
    if (s == nullptr) return rc;
    // A tile of the default variant's family ("tile128x128", step-7 --tile) is asked for by
    // its name too.
    const ladder::Variant* v = ladder::find_variant(*s, variant);
    if (v == nullptr && variant != nullptr && std::strncmp(variant, "tile", 4) == 0)
        v = ladder::find_tile(*s, variant);
    if (v == nullptr)
        return ladder::fail(cudaErrorInvalidValue,
                            "ladder_gemm: step %d (%s) has no variant '%s' (its variants: %s)", step,
                            s->folder, ladder::printable(variant).c_str(),
                            ladder::variant_names(*s).c_str());
    return v->gemm(static_cast<const bf16*>(A), static_cast<const bf16*>(B), static_cast<bf16*>(C),
                   M, N, K, static_cast<cudaStream_t>(stream));
}

extern "C" int ladder_gemm(int step, const void* A, const void* B, void* C, int M, int N, int K,
                           void* stream) {
    return ladder_gemm_variant(step, nullptr, A, B, C, M, N, K, stream);
}

extern "C" int ladder_gemm_with_workspace(int step, const char* variant, const void* A, const void* B,
                                          void* C, int M, int N, int K, void* stream, void* workspace,
                                          size_t workspace_bytes) {
    ladder::CallerWorkspace scope(workspace, workspace_bytes);
    return ladder_gemm_variant(step, variant, A, B, C, M, N, K, stream);
}

extern "C" int ladder_workspace_size(int step, size_t* bytes) {
    ladder::clear_error();
    if (bytes == nullptr)
        return ladder::fail(cudaErrorInvalidValue, "ladder_workspace_size: bytes is NULL");
    *bytes = 0;
    int rc = 0;
    const ladder::Step* s = built_step("ladder_workspace_size", step, &rc);
    if (s == nullptr) return rc;
    return s->workspace_bytes != nullptr ? s->workspace_bytes(bytes) : 0;
}

extern "C" const char* ladder_last_error(void) { return ladder::last_error(); }

extern "C" int ladder_step_count(void) { return ladder::kStepCount; }

extern "C" const char* ladder_step_name(int step) {
    const ladder::Step* s = ladder::find_step(step);
    return s != nullptr && ladder::step_built(*s) ? s->folder : nullptr;
}

extern "C" int ladder_step_available(int step) {
    const ladder::Step* s = ladder::find_step(step);
    return s != nullptr && ladder::step_built(*s);
}

extern "C" const char* ladder_variant_name(int step, int index) {
    const ladder::Step* s = ladder::find_step(step);
    if (s == nullptr || !ladder::step_built(*s) || index < 0 || index >= ladder::kMaxVariants)
        return nullptr;
    return s->variants[index].name;  // nullptr past the last variant (registry.h)
}
