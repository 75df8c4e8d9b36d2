// tma.cuh: loading tiles with the Tensor Memory Accelerator and waiting on them with an
// mbarrier transaction count.
//
// Taught in step 03 (03_tma_single_stage/gemm.cu): wait_barrier, tma_load_2d and
// arrive_expect_tx are explained there in full. Used by steps 04 to 07.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>

#include <cstdint>

#include "spin_guard.cuh"

namespace ladder {

// PTX ISA "mbarrier.try_wait": wait until the phase of `barrier` whose parity is `phase`
// has completed (try_wait.parity names only the low bit of the phase, so a waiter must
// never fall two phases behind). Acquire semantics: the bytes the phase published are
// visible afterwards. `what` names the wait when a debug build's SpinGuard traps.
//   CCCL: cuda::ptx::mbarrier_try_wait_parity(barrier, phase)
//   PTX:  mbarrier.try_wait.parity.shared::cta.b64 done, [barrier], phase;
// SASS: SYNCS.PHASECHK.TRANS64.
__device__ __forceinline__ void wait_barrier(uint64_t* barrier, uint32_t phase,
                                             const char* what) {
    SpinGuard guard;
    while (!cuda::ptx::mbarrier_try_wait_parity(barrier, phase)) guard.check(what);
}

// PTX ISA "cp.async.bulk.tensor": the copy engine fetches the box of `map` at element
// coordinates (x, y) = (column k0, row) into `dst` and counts its bytes off `barrier`'s
// transaction count. Box elements outside the matrix arrive as zeros.
//   CCCL: cuda::ptx::cp_async_bulk_tensor(space_cluster, space_global, dst, map, {x, y}, bar)
//   PTX:  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//             [dst], [map, {x, y}], [bar];
// SASS: UTMALDG.2D.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y,
                                            uint64_t* barrier) {
    const int32_t coords[2] = {x, y};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                    coords, barrier);
}

// PTX ISA "mbarrier.arrive.expect_tx": one arrival on `barrier`, and raise its pending
// transaction count by `bytes`. The phase completes when every expected arrival has come
// AND the transaction count is back to zero, i.e. when all the bytes have landed.
//   CCCL: cuda::ptx::mbarrier_arrive_expect_tx(sem_release, scope_cta, space_shared, bar, bytes)
//   PTX:  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [bar], bytes;
// SASS: SYNCS.ARRIVE.TRANS64.
__device__ __forceinline__ void arrive_expect_tx(uint64_t* barrier, uint32_t bytes) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, barrier, bytes);
}

}  // namespace ladder
