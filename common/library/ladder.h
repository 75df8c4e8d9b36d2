/* ladder.h: the C API of libladder.so, so that Python (ctypes) or any language can
 * call any step of the ladder.
 *
 *   C[M,N] = A[M,K] * B[N,K]^T, all row-major and packed, A/B/C bf16, fp32 accumulation.
 *   A, B, C are device pointers (16-byte aligned); stream is a cudaStream_t or NULL.
 *
 * Every function is safe to call on a machine without a GPU: it returns an error. */
#ifndef LADDER_H
#define LADDER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs step `step` (1..ladder_step_count()). Returns 0 on success, nonzero on error
 * (the cudaError_t value); ladder_last_error() then says why. Nothing is launched on
 * error. A step whose folder was not built answers "not available". */
int ladder_gemm(int step, const void* A, const void* B, void* C, int M, int N, int K,
                void* stream);

/* The same for a named variant of a step ("pingpong" of step 6, "cluster1" or "lesson" of
 * step 7); NULL or "" is the step's default. Step 7's default variant forced to one tile of
 * its family is named "tile<R>x<C>", e.g. "tile128x128" (step-7 --help lists them). */
int ladder_gemm_variant(int step, const char* variant, const void* A, const void* B, void* C,
                        int M, int N, int K, void* stream);

/* ladder_gemm_variant with a device workspace the caller owns, instead of the one the
 * library keeps per stream (allocated on a stream's first call that needs one): nothing is
 * allocated. Zero the buffer (cudaMemset) before its first use; the kernels leave it as
 * they need to find it again, so it can serve any number of calls, but one at a time: give
 * each stream that runs at once a buffer of its own. A buffer smaller than the call needs is
 * an error that names both sizes, and nothing is launched. */
int ladder_gemm_with_workspace(int step, const char* variant, const void* A, const void* B,
                               void* C, int M, int N, int K, void* stream, void* workspace,
                               size_t workspace_bytes);

/* In *bytes, the most workspace any call of step `step` needs on the current device (0 for
 * the steps that never use one): what to allocate for ladder_gemm_with_workspace. Returns 0,
 * or nonzero with ladder_last_error() saying why. */
int ladder_workspace_size(int step, size_t* bytes);

/* The message of the last failed call on this thread, "" after a success. */
const char* ladder_last_error(void);

/* Number of steps in the ladder (7), built or not. */
int ladder_step_count(void);

/* "01_naive" ... "07_clusters_multicast", or NULL for a number out of range or a step
 * not built into this library (a step registers its folder name when it is built). */
const char* ladder_step_name(int step);

/* 1 if the step's code is built into this library, else 0. */
int ladder_step_available(int step);

/* The name of variant `index` of a built step: index 0 is the step's default ("" where its
 * default schedule has no name), then the others in the order step-N lists them; NULL for
 * an index past the last, a step out of range or a step not built. Step 07's "tile<R>x<C>"
 * names are not variants of their own and are not listed. */
const char* ladder_variant_name(int step, int index);

#ifdef __cplusplus
}
#endif

#endif /* LADDER_H */
