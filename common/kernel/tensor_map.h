// tensor_map.h: encoding a TMA tensor map for a row-major bf16 matrix (host side).
//
// Step 03 introduces the Tensor Memory Accelerator; this is its host half, shared by
// every TMA step. A tensor map (CUtensorMap, 128 bytes) describes a 2D global array and
// the box that one cp.async.bulk.tensor copies; the kernel receives it by value as a
// `const __grid_constant__ CUtensorMap` parameter so it lives in parameter space, which
// is where the copy engine may read it from.
//
// The encoder is a driver API function. We fetch it through the runtime's driver entry
// point so the program links against libcudart only (no -lcuda).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only; nothing from libcuda is linked)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "step_api.h"

namespace ladder {

// Describes the row-major matrix `base[rows][cols]` (bf16, leading dimension `cols`) and a
// box of box_rows x box_cols elements. Elements of a box that fall outside the matrix
// (past the last row, or past column `cols`) are not read, and arrive in shared memory as
// zeros: that is how the TMA steps handle M, N and K that are not multiples of the tile.
//
// Constraints from the CUDA driver API (cuTensorMapEncodeTiled): the base is 16-byte
// aligned, the row pitch cols*2 is a multiple of 16 bytes, box dimensions are 1..256, and
// with a swizzle mode the inner box extent in bytes (box_cols*2) is at most the swizzle span
// (128 bytes for CU_TENSOR_MAP_SWIZZLE_128B, i.e. 64 bf16). `promotion` sets the size of the
// requests the TMA unit makes to the L2 (256 bytes: each also brings the next 128 bytes of
// the row, the next k-block's, into L2; step 07 asks for 128 where that does not pay).
inline cudaError_t make_tensor_map_2d(CUtensorMap* map, const void* base, uint64_t rows,
                                      uint64_t cols, uint32_t box_rows, uint32_t box_cols,
                                      CUtensorMapSwizzle swizzle, const char* step,
                                      CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
    // Looked up once per process; a function-local static is initialized exactly once even
    // when several host threads get here first together (C++11 [stmt.dcl]).
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        cudaDriverEntryPointQueryResult found{};
        void* fn = nullptr;
        cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                           cudaEnableDefault, &found);
        if (err != cudaSuccess || found != cudaDriverEntryPointSuccess) {
            cudaGetLastError();
            fn = nullptr;
        }
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    if (encode == nullptr)
        return fail(cudaErrorNotSupported,
                    "%s: the driver does not provide cuTensorMapEncodeTiled (needs CUDA 12+)", step);
    const cuuint64_t global_dim[2] = {cols, rows};               // innermost dimension first
    const cuuint64_t global_stride[1] = {cols * sizeof(__nv_bfloat16)};  // bytes; dim 0 is packed
    const cuuint32_t box_dim[2] = {box_cols, box_rows};
    const cuuint32_t element_stride[2] = {1, 1};
    CUresult res = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base),
                          global_dim, global_stride, box_dim, element_stride,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (res != CUDA_SUCCESS)
        return fail(cudaErrorInvalidValue,
                    "%s: cuTensorMapEncodeTiled failed (CUresult %d) for a %llux%llu matrix with a "
                    "%ux%u box",
                    step, static_cast<int>(res), static_cast<unsigned long long>(rows),
                    static_cast<unsigned long long>(cols), box_rows, box_cols);
    return cudaSuccess;
}

}  // namespace ladder
