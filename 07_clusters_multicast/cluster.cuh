// cluster.cuh: step 07's lesson on thread-block clusters, written out beside its gemm.cu:
// the rules of distributed shared memory, the cluster barrier, a consumer handing a stage
// back to every CTA of its cluster, the TMA multicast load that fills one slice of B into
// every CTA at once, and the cluster's index. Read it after the tile configuration of
// 07_clusters_multicast/gemm.cu. gemm_cg.cu spells cluster_sync and release_stage with
// cooperative groups instead (its own, which hide these).
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing from libcuda is linked)
#include <cuda/ptx>

#include <cstdint>

#include "warp_specialization.cuh"  // release_stage (the local arrive): taught in step 06

namespace ladder {

// Distributed shared memory (DSMEM) rules step 07's kernel relies on (CUDA programming guide,
// "Distributed Shared Memory"; PTX ISA "State spaces: .shared::cluster"):
//   1. A CTA's shared memory is reachable by every CTA of its cluster through the
//      .shared::cluster window; mapa translates "my address of X" into "CTA r's address
//      of X" (the layouts match because every CTA runs the same code).
//   2. It exists only while that CTA runs: nobody may touch a peer's shared memory before
//      the peer has initialised it, or after it may have exited. Hence a cluster barrier
//      after mbarrier init and another before exit.
//   3. What an arrival must order. A consumer's remote arrival on a peer's empty barrier
//      carries no data; it only says "my wgmma reads of this stage are finished", and
//      wgmma.wait_group has already made that true before the arrive is issued. So the
//      arrive keeps mbarrier's default semantics (release at CTA scope) and the producer
//      its default (acquire, CTA scope) wait. The .release.cluster form would add a
//      GPU-wide memory barrier (SASS MEMBAR.ALL.GPU) to every k-block of every consumer
//      for no gain. The transfers themselves (TMA multicast into peers, their complete_tx
//      on the peers' full barriers) are ordered by the mbarrier transaction mechanism.

// Cluster-wide barrier: every thread of every CTA of the cluster arrives, then waits.
// CCCL: cuda::ptx::barrier_cluster_arrive(sem_release); cuda::ptx::barrier_cluster_wait()
// PTX:  barrier.cluster.arrive.release;  barrier.cluster.wait.acquire;
//       (PTX ISA "barrier.cluster"). It blocks in hardware: no SpinGuard can bound it.
__device__ __forceinline__ void cluster_sync() {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
    cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
}

// A consumer hands a stage back to every CTA of the cluster: each of them wrote a slice
// of B into it, so each producer must know before it overwrites its slice. Thread r of
// the warpgroup (r < CLUSTER) arrives on CTA r's empty barrier, so the CLUSTER arrivals
// go out in parallel from different lanes. With one CTA it is step 06's local arrive.
// PTX:  mapa.shared::cluster.u32 remote, local, r;       (PTX ISA "mapa")
//       mbarrier.arrive.shared::cluster.b64 _, [remote];  (SASS SYNCS.ARRIVE.TRANS64.RED)
// Written in PTX: CCCL's shared::cluster arrive (CUDA 13.0, CCCL 3.0) comes as
// .release.cluster (MEMBAR.ALL.CTA + MEMBAR.ALL.GPU before the arrive; see DSMEM rule 3
// for why that is not wanted here) or, from PTX ISA 8.6, .relaxed.cluster (the same SASS
// as the arrive below, no MEMBAR), not in the default CTA-scope release written here; and
// it takes a generic pointer that it converts with cvta.to.shared.
template <int CLUSTER>
__device__ __forceinline__ void release_stage(uint64_t* empty_barrier, int thread_in_wg) {
    if constexpr (CLUSTER == 1) {
        if (thread_in_wg == 0) ladder::release_stage(empty_barrier);  // step 06's
    } else {
        if (thread_in_wg < CLUSTER) {
            const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(empty_barrier));
            uint32_t remote;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                         : "=r"(remote)
                         : "r"(local), "r"(thread_in_wg));
            asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote)
                         : "memory");
        }
    }
}

// One k-block slice of B, written into the same shared-memory offset of every CTA whose
// bit is set in cta_mask, each copy signalling the barrier at `barrier`'s offset in that
// CTA (complete_tx of the bytes it delivered there).
// CCCL: cuda::ptx::cp_async_bulk_tensor(space_cluster, space_global, dst, map, {k0, row0},
//                                       bar, cta_mask)
// PTX:  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//           .multicast::cluster [dst], [map, {k0, row0}], [bar], cta_mask;
//       (PTX ISA "cp.async.bulk.tensor"; SASS: UTMALDG.2D.MULTICAST)
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int k0,
                                                      int row0, uint64_t* barrier,
                                                      uint16_t cta_mask) {
    const int32_t coords[2] = {k0, row0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                    coords, barrier, cta_mask);
}

// %clusterid.x (the CTA's index without a cluster launch), read by each warpgroup after its
// setmaxnreg: a volatile read is never merged with another one, so no value is carried
// across the register re-balancing (where the producer's 40 registers would spill it).
__device__ __forceinline__ int read_cluster_id() {
    uint32_t id;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
    return static_cast<int>(id);
}

}  // namespace ladder

