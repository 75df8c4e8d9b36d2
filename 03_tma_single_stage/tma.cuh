// tma.cuh: step 03's lesson on the Tensor Memory Accelerator, written out beside its
// gemm.cu: a copy of one box of a tensor map into shared memory, counted off an mbarrier's
// transaction count, and the wait for that count. Read it after the tile configuration of
// 03_tma_single_stage/gemm.cu. Steps 04 to 07 include it from here.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>

#include <cstdint>

#include "spin_guard.cuh"

namespace ladder {

// PTX ISA "mbarrier.try_wait": wait until the phase of `barrier` whose parity is `phase`
// has completed. An mbarrier counts phases 0, 1, 2, ...; try_wait.parity only names the
// low bit, so a waiter must never fall two phases behind (the pipeline guarantees it).
//   CCCL: cuda::ptx::mbarrier_try_wait_parity(barrier, phase)
//   PTX:  mbarrier.try_wait.parity.shared::cta.b64 done, [barrier], phase;
// try_wait suspends the thread for a hardware-chosen time before answering "not yet", so
// the loop does not hammer shared memory. It has acquire semantics: what the completed
// phase published (the TMA's bytes) is visible afterwards. `what` names the wait when a
// hang-trap build's SpinGuard gives up (spin_guard.cuh). SASS: SYNCS.PHASECHK.TRANS64.
__device__ __forceinline__ void wait_barrier(uint64_t* barrier, uint32_t phase,
                                             const char* what) {
    SpinGuard guard;
    while (!cuda::ptx::mbarrier_try_wait_parity(barrier, phase)) guard.check(what);
}

// PTX ISA "cp.async.bulk.tensor": the copy engine fetches one box of a tensor map into
// shared memory and counts its bytes off `barrier`'s transaction count ("complete_tx").
//   CCCL: cuda::ptx::cp_async_bulk_tensor(space_cluster, space_global, dst, map, {x, y}, bar)
//   PTX:  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//             [dst], [map, {x, y}], [bar];
// Coordinates are elements, innermost first: x = column (k), y = row. A CTA's own shared
// memory address is a valid .shared::cluster address, so this works without clusters.
// Box elements outside the matrix arrive as zeros (and count as bytes). SASS: UTMALDG.2D.
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
// (The libcu++ spelling of the same thing is cuda::device::barrier_arrive_tx on a
// cuda::barrier<thread_scope_block>.) SASS: SYNCS.ARRIVE.TRANS64.
__device__ __forceinline__ void arrive_expect_tx(uint64_t* barrier, uint32_t bytes) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, barrier, bytes);
}

}  // namespace ladder
