// schedule.cuh: the persistent grid's work, and stream-K for its last wave (step 07,
// README.md section 5). Written out beside step 07's gemm.cu, which includes it: the
// schedule is the persistent grid's, not Hopper's, and the kernel only asks it for the
// next piece of work (WorkCursor), where to put a partial tile and when one is ready.
//   device: Schedule, WorkUnit, WorkCursor; partial_holders, partial_slot, publish_partial,
//           await_partial (the fix-up of a shared tile)
//   host:   make_schedule, from the cost rule of common/kernel/stream_k.h
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>

#include "spin_guard.cuh"
#include "stream_k.h"  // sharing_clusters: the cost rule of make_schedule
#include "warp_specialization.cuh"  // named_barrier_sync: taught in step 06

namespace ladder {

// The work of the persistent grid. A problem of T cluster tiles on G clusters runs
// floor(T/G) whole waves of tiles, one tile per cluster at a time (data-parallel). The
// L = T mod G tiles left over would keep only L clusters busy in a last wave while the
// rest idle: 32 tiles (1024^3, or 128x8192x8192) keep 32 of 132 SMs busy, each walking
// all of K alone. Stream-K lays the leftover tiles' k-blocks end to end, L*k_blocks of them,
// and gives each of S clusters (L < S <= G) an equal run of them: the last wave takes
// L*k_blocks/S k-blocks instead of k_blocks. A run may start or end inside a tile, so a
// tile may be shared by a few clusters, each holding a partial sum of it. The cluster
// whose run holds the tile's first k-block owns it: the others write their fp32 partials
// to a workspace and raise a flag; the owner waits for the flags, adds the partials in
// cluster order (a fixed order, so the bits do not change from run to run) and stores C.
// With S a multiple of L every tile is cut into S/L equal slices: split-K.
// Why no cluster waits forever: a run that does not start at a tile's first k-block has
// that piece first, and publishes it before it waits for anything; the owner only waits
// for those first pieces. Every cluster of the grid is resident at once, so the waits end.
struct Schedule {
    int tiles;        // cluster tiles of the problem
    int k_blocks;     // k-blocks per tile
    int clusters;     // clusters in the grid
    int dp_tiles;     // tiles [0, dp_tiles) are data-parallel: cluster g takes g, g + clusters, ...
    int sk_clusters;  // S: clusters [0, S) share the k-blocks of tiles [dp_tiles, tiles) (0: none)
};

// One piece of work: k-blocks [kb_begin, kb_end) of cluster tile `tile`.
struct WorkUnit {
    int tile, kb_begin, kb_end;
};

// Where cluster g's run of the shared k-blocks starts (numbered end to end from the first
// k-block of tile dp_tiles); g = S gives the end of the last run.
__host__ __device__ inline long long sk_start(const Schedule& s, int g) {
    return static_cast<long long>(s.tiles - s.dp_tiles) * s.k_blocks * g / s.sk_clusters;
}

// Walks one cluster's units: its data-parallel tiles, then its run of shared k-blocks cut
// at tile boundaries. Producer and consumers each run one and so see the same sequence.
struct WorkCursor {
    int dp_tile;   // next data-parallel tile
    int pos, end;  // what is left of this cluster's stream-K run (make_schedule: < 2^31)

    __device__ WorkCursor(const Schedule& s, int g) : dp_tile(g), pos(0), end(0) {
        if (g < s.sk_clusters) {
            pos = static_cast<int>(sk_start(s, g));
            end = static_cast<int>(sk_start(s, g + 1));
        }
    }
    __device__ bool next_unit(const Schedule& s, WorkUnit& u) {
        if (dp_tile < s.dp_tiles) {
            u = {dp_tile, 0, s.k_blocks};
            dp_tile += s.clusters;
            return true;
        }
        if (pos >= end) return false;
        const int tile = pos / s.k_blocks;
        const int first = pos % s.k_blocks;
        const int last = end - pos < s.k_blocks - first ? first + (end - pos) : s.k_blocks;
        u = {s.dp_tiles + tile, first, last};
        pos += last - first;
        return true;
    }
};

// The owner of shared tile `tile` is cluster g; the clusters after it whose runs start
// before the tile ends hold the rest of it. Returns how many there are.
__device__ inline int partial_holders(const Schedule& s, int g, int tile) {
    const long long tile_end = static_cast<long long>(tile - s.dp_tiles + 1) * s.k_blocks;
    int holders = 0;
    while (g + holders + 1 < s.sk_clusters && sk_start(s, g + holders + 1) < tile_end) ++holders;
    return holders;
}

// A consumer's partial tile in the workspace: 64 x BN fp32, stored in the accumulators'
// own register order (thread t's acc[4q..4q+3] at float4 q*128 + t), so that writing and
// reading it back are both fully coalesced 16-byte accesses and no layout is involved.
// Slot = the CTA that wrote it (a cluster publishes at most one partial: the first piece
// of its run) and the consumer.
template <class T>
__device__ __forceinline__ float4* partial_slot(float* partials, int cta, int consumer) {
    return reinterpret_cast<float4*>(partials +
                                     (static_cast<size_t>(cta) * T::CONSUMER_WARPGROUPS + consumer) *
                                         T::PARTIAL_FLOATS);
}

// Publishing and collecting a partial tile across CTAs (CUDA C++ memory model; libcu++
// cuda::atomic_ref). The writer's 128 threads store, meet at the warpgroup's named barrier,
// and one thread raises the flag with a release store at device scope: everything the
// warpgroup wrote before the barrier is visible to whoever acquires the flag. The reader
// spins with acquire loads, lowers the flag again for the next launch, and releases its
// warpgroup through the same barrier before anyone reads. Partials are read with ld.cg
// (L2, not the SM's L1, which is not coherent with other SMs' stores).
template <int WARPGROUP_THREADS>
__device__ __forceinline__ void publish_partial(int* flag, int barrier_id, int thread_in_wg) {
    named_barrier_sync(barrier_id, WARPGROUP_THREADS);
    if (thread_in_wg == 0)
        cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
}
template <int WARPGROUP_THREADS>
__device__ __forceinline__ void await_partial(int* flag, int barrier_id, int thread_in_wg) {
    if (thread_in_wg == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> ready(*flag);
        SpinGuard guard;
        while (ready.load(cuda::memory_order_acquire) == 0) guard.check("stream-K partial flag");
        ready.store(0, cuda::memory_order_relaxed);
    }
    named_barrier_sync(barrier_id, WARPGROUP_THREADS);
}

// The schedule of `tiles` (cluster) tiles of `k_blocks` on at most `max_clusters`
// resident clusters (see Schedule). Data-parallel, the last wave takes a whole tile's
// time. Shared among S clusters, it takes L*k_blocks/S plus the cost of sharing: a fix-up
// and a read per further cluster that holds part of a tile. stream_k::sharing_clusters
// tries every S that cuts the tiles evenly (split-K, S = j*L) and all of the grid (S = G),
// and keeps the cheapest only where it beats the data-parallel last wave; a problem one tile
// high, bound by reading B from DRAM, by no more than two clusters per tile.
inline Schedule make_schedule(int tiles, int k_blocks, int max_clusters, bool share_last_wave,
                       bool one_tile_row) {
    Schedule s{tiles, k_blocks, tiles < max_clusters ? tiles : max_clusters, tiles, 0};
    const int leftover = tiles % max_clusters;  // tiles of the last, partial wave
    if (!share_last_wave || leftover == 0) return s;
    if (static_cast<long long>(leftover) * k_blocks > INT_MAX) return s;  // WorkCursor counts in int
    const int sharing = stream_k::sharing_clusters(leftover, k_blocks, max_clusters, one_tile_row);
    if (sharing == 0) return s;
    s.dp_tiles = tiles - leftover;
    s.sk_clusters = sharing;
    s.clusters = s.dp_tiles > 0 ? max_clusters : sharing;
    return s;
}

}  // namespace ladder
