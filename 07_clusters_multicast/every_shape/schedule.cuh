// schedule.cuh: the persistent grid's work, stream-K for its last wave and split-K's slices
// (step 07's every-shape kernel, every_shape.cu beside this file; the measurements in
// 07_clusters_multicast/NOTES.md, section 5). The schedule is the persistent grid's, not
// Hopper's, and the kernel only asks it for the next piece of work (WorkCursor), where to put
// a partial tile and when one is ready.
//   device: Schedule, WorkUnit, WorkCursor; partial_holders, partial_slot, publish_partial,
//           hand_over_partial, add_partials, fix_up (the fix-up of a shared tile)
//   host:   sm_count and resident_grid (the grid's size), make_schedule (from the cost rule
//           of stream_k.h beside this file), flag_bytes and stream_k_workspace (where the
//           flags and the partials go)
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "spin_guard.cuh"
#include "step_api.h"  // fail, stream_workspace, PerDeviceCache
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
//
// Few tiles with a long K take another road: split-K through a second kernel. Every tile is
// cut into `splits` equal slices of K; slice s of every tile is one more data-parallel unit
// (units numbered slice by slice, so the tiles in flight at one moment read the same
// k-blocks), each unit writes its fp32 partial tile to a slot of its own, and no CTA waits
// for another. reduce_splits, launched next on the same stream, adds the slices of each
// element in slice order (fixed, so the bits do not change from run to run) and stores C.
struct Schedule {
    int tiles;        // cluster tiles of the problem
    int k_blocks;     // k-blocks per tile
    int clusters;     // clusters in the grid
    int dp_tiles;     // tiles [0, dp_tiles) are data-parallel: cluster g takes g, g + clusters, ...
    int sk_clusters;  // S: clusters [0, S) share the k-blocks of tiles [dp_tiles, tiles) (0: none)
    int splits;       // slices of K per data-parallel tile: 1, or split-K through reduce_splits
};

// One piece of work: k-blocks [kb_begin, kb_end) of cluster tile `tile`, which are slice
// `split` of its K (0 unless the schedule splits K).
struct WorkUnit {
    int tile, kb_begin, kb_end, split;
};

// Where cluster g's run of the shared k-blocks starts (numbered end to end from the first
// k-block of tile dp_tiles); g = S gives the end of the last run.
__host__ __device__ inline long long sk_start(const Schedule& s, int g) {
    return static_cast<long long>(s.tiles - s.dp_tiles) * s.k_blocks * g / s.sk_clusters;
}

// Walks one cluster's units: its data-parallel tiles, then its run of shared k-blocks cut
// at tile boundaries. Producer and consumers each run one and so see the same sequence.
struct WorkCursor {
    int dp_unit;   // next data-parallel unit: tile dp_unit % dp_tiles, slice dp_unit / dp_tiles
    int pos, end;  // what is left of this cluster's stream-K run (make_schedule: < 2^31)

    __device__ WorkCursor(const Schedule& s, int g) : dp_unit(g), pos(0), end(0) {
        if (g < s.sk_clusters) {
            pos = static_cast<int>(sk_start(s, g));
            end = static_cast<int>(sk_start(s, g + 1));
        }
    }
    __device__ bool next_unit(const Schedule& s, WorkUnit& u) {
        if (dp_unit < s.dp_tiles * s.splits) {
            const int split = dp_unit / s.dp_tiles;
            u = {dp_unit - split * s.dp_tiles, split * s.k_blocks / s.splits,
                 (split + 1) * s.k_blocks / s.splits, split};
            dp_unit += s.clusters;
            return true;
        }
        if (pos >= end) return false;
        const int tile = pos / s.k_blocks;
        const int first = pos % s.k_blocks;
        const int last = end - pos < s.k_blocks - first ? first + (end - pos) : s.k_blocks;
        u = {s.dp_tiles + tile, first, last, 0};
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
// (add_partials) spins with acquire loads, lowers the flag again for the next launch, and
// releases its warpgroup through the same barrier before anyone reads. Partials are read
// with ld.cg (L2, not the SM's L1, which is not coherent with other SMs' stores).
template <int WARPGROUP_THREADS>
__device__ __forceinline__ void publish_partial(int* flag, int barrier_id, int thread_in_wg) {
    named_barrier_sync(barrier_id, WARPGROUP_THREADS);
    if (thread_in_wg == 0)
        cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
}

// A consumer's piece of a tile that another cluster finishes: its accumulators into its
// slot (thread t stores float4 q at q * 128 + t: every store a whole coalesced row), then
// the flag.
template <class T, int WARPGROUP_THREADS>
__device__ __forceinline__ void hand_over_partial(float* partials, int* flags, int cta, int consumer,
                                                  int barrier_id, int thread_in_wg,
                                                  const float (&acc)[T::ACC_REGS]) {
    float4* slot = partial_slot<T>(partials, cta, consumer);
#pragma unroll
    for (int q = 0; q < T::ACC_REGS / 4; ++q)
        slot[q * WARPGROUP_THREADS + thread_in_wg] =
            make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    publish_partial<WARPGROUP_THREADS>(&flags[cta * T::CONSUMER_WARPGROUPS + consumer], barrier_id,
                                       thread_in_wg);
}

// The float4 loads of one partial per round in add_partials: the most, up to 16, that divide
// a consumer's float4s into whole rounds (all 16 at 64x128, 14 of 28 at 64x224, 7 of 21 at
// 64x168).
constexpr int loads_per_round(int float4s) {
    for (int n = float4s < 16 ? float4s : 16; n > 1; --n)
        if (float4s % n == 0) return n;
    return 1;
}
static_assert(loads_per_round(32) == 16 && loads_per_round(28) == 14 && loads_per_round(24) == 12 &&
                  loads_per_round(18) == 9 && loads_per_round(8) == 8 && loads_per_round(21) == 7,
              "the rounds of the family's widths");

// Split-K's slot of one consumer's slice of one CTA tile, in the register order of
// partial_slot: slice `split` of CTA tile `cta_tile` (cluster tile * cluster size + rank) of
// `cta_tiles`. Every unit writes its own, so nobody waits and no flag is needed.
template <class T>
__device__ __forceinline__ float4* slice_slot(float* partials, int split, int cta_tiles, int cta_tile,
                                              int consumer) {
    return partial_slot<T>(partials, split * cta_tiles + cta_tile, consumer);
}

// A consumer's slice of a tile under split-K: its accumulators into its slot, as
// hand_over_partial stores them (whole coalesced 16-byte rows), without a flag: the reduce
// kernel runs after this whole grid has finished.
template <class T, int WARPGROUP_THREADS>
__device__ __forceinline__ void store_slice(float4* slot, int thread_in_wg, const float (&acc)[T::ACC_REGS]) {
#pragma unroll
    for (int q = 0; q < T::ACC_REGS / 4; ++q)
        __stcg(&slot[q * WARPGROUP_THREADS + thread_in_wg],
               make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
}

// The owner of a shared tile adds the partials of the next `holders` clusters (the CTA of
// its own rank in each). The holders finish their runs at about the same time, so the owner
// does not take them one by one: it waits for all their flags at once (thread h - 1 of the
// warpgroup watches holder h's), then reads the partials with as many 16-byte loads in
// flight per thread as its registers allow (IN_FLIGHT float4 of one partial, from up to
// HOLDERS_IN_FLIGHT holders at a time: 64 registers beside 128 accumulators, 128 beside 64
// or fewer). Each round trip to L2 then brings several partials, not one. The sums are
// still added holder after holder, in cluster order, so the bits do not change from run to
// run (nor from the one-by-one order they replace).
template <class T, int CLUSTER, int WARPGROUP_THREADS>
__device__ __forceinline__ void add_partials(float* partials, int* flags, int cluster_id, int rank,
                                             int holders, int consumer, int barrier_id,
                                             int thread_in_wg, float (&acc)[T::ACC_REGS]) {
    constexpr int ACC_REGS = T::ACC_REGS;
    constexpr int IN_FLIGHT = loads_per_round(ACC_REGS / 4);
    constexpr int BUDGET = ACC_REGS <= 64 ? 32 : 16;  // float4 loads in flight per thread
    constexpr int HOLDERS_IN_FLIGHT = BUDGET / IN_FLIGHT > 0 ? BUDGET / IN_FLIGHT : 1;
    static_assert((ACC_REGS / 4) % IN_FLIGHT == 0, "whole rounds of loads");
    static_assert(HOLDERS_IN_FLIGHT * IN_FLIGHT <= BUDGET, "loads in flight within the budget");
    auto peer_of = [&](int h) { return (cluster_id + h) * CLUSTER + rank; };
    for (int h = 1 + thread_in_wg; h <= holders; h += WARPGROUP_THREADS) {
        cuda::atomic_ref<int, cuda::thread_scope_device> ready(
            flags[peer_of(h) * T::CONSUMER_WARPGROUPS + consumer]);
        SpinGuard guard;
        while (ready.load(cuda::memory_order_acquire) == 0) guard.check("stream-K partial flag");
        ready.store(0, cuda::memory_order_relaxed);  // lowered for the next launch
    }
    // Every flag seen by some thread of the warpgroup before any thread reads a partial.
    named_barrier_sync(barrier_id, WARPGROUP_THREADS);
    for (int h0 = 1; h0 <= holders; h0 += HOLDERS_IN_FLIGHT) {
#pragma unroll
        for (int q0 = 0; q0 < ACC_REGS / 4; q0 += IN_FLIGHT) {
            float4 v[HOLDERS_IN_FLIGHT][IN_FLIGHT];
#pragma unroll
            for (int g = 0; g < HOLDERS_IN_FLIGHT; ++g) {
                if (h0 + g > holders) break;
                const float4* slot = partial_slot<T>(partials, peer_of(h0 + g), consumer);
#pragma unroll
                for (int i = 0; i < IN_FLIGHT; ++i)
                    v[g][i] = __ldcg(&slot[(q0 + i) * WARPGROUP_THREADS + thread_in_wg]);
            }
#pragma unroll
            for (int g = 0; g < HOLDERS_IN_FLIGHT; ++g) {
                if (h0 + g > holders) break;
#pragma unroll
                for (int i = 0; i < IN_FLIGHT; ++i) {
                    acc[4 * (q0 + i)] += v[g][i].x;
                    acc[4 * (q0 + i) + 1] += v[g][i].y;
                    acc[4 * (q0 + i) + 2] += v[g][i].z;
                    acc[4 * (q0 + i) + 3] += v[g][i].w;
                }
            }
        }
    }
}

// A consumer's epilogue after its main loop over `unit`: a unit that does not start at its
// tile's first k-block hands its partial sums over and returns false (nothing to store);
// the tile's owner adds those of the clusters that hold the rest, if any, and returns true
// (it stores the tile, as does every unit of a tile nobody shares). barrier_id: the
// consumer's own named barrier.
template <class T, int CLUSTER, int WARPGROUP_THREADS>
__device__ __forceinline__ bool fix_up(const Schedule& sched, const WorkUnit& unit, float* partials,
                                       int* flags, int cluster_id, uint32_t rank, int consumer,
                                       int barrier_id, int thread_in_wg, float (&acc)[T::ACC_REGS]) {
    const int cta = cluster_id * CLUSTER + static_cast<int>(rank);
    if (unit.kb_begin > 0) {
        hand_over_partial<T, WARPGROUP_THREADS>(partials, flags, cta, consumer, barrier_id,
                                                thread_in_wg, acc);
        return false;
    }
    if (unit.kb_end < sched.k_blocks)  // the owner: the next clusters hold the rest
        add_partials<T, CLUSTER, WARPGROUP_THREADS>(
            partials, flags, cluster_id, static_cast<int>(rank),
            partial_holders(sched, cluster_id, unit.tile), consumer, barrier_id, thread_in_wg, acc);
    return true;
}

// The schedule of `tiles` (cluster) tiles of `k_blocks` on at most `max_clusters`
// resident clusters (see Schedule). Data-parallel, the last wave takes a whole tile's
// time. Shared among S clusters, it takes L*k_blocks/S plus the cost of sharing: a fix-up
// and a read per further cluster that holds part of a tile. stream_k::sharing_clusters
// tries every S that cuts the tiles evenly (split-K, S = j*L) and all of the grid (S = G),
// and keeps the cheapest only where it beats the data-parallel last wave; a problem one tile
// high, bound by reading B from DRAM, by no more than two clusters per tile; runs out of step
// with one another cost more where the last wave's operands exceed the L2 (exceeds_l2); and a
// single wave of 64-row tiles with a short K (narrow) is only split, and not even that where
// it is one tile high or wide and its CTAs already ask the DRAM for more than it gives (feed_bound;
// stream_k::narrow_wave and feed_bound_wave).
// With `splits` > 1 (stream_k::split_count) every tile is data-parallel, in that many
// slices of K, and nothing is shared.
inline Schedule make_schedule(int tiles, int k_blocks, int max_clusters, bool share_last_wave,
                              bool one_tile_row, bool exceeds_l2, bool narrow, bool feed_bound,
                              int splits = 1) {
    if (splits > 1) {
        const long long units = static_cast<long long>(tiles) * splits;
        return {tiles, k_blocks, static_cast<int>(units < max_clusters ? units : max_clusters), tiles, 0,
                splits};
    }
    Schedule s{tiles, k_blocks, tiles < max_clusters ? tiles : max_clusters, tiles, 0, 1};
    const int leftover = tiles % max_clusters;  // tiles of the last, partial wave
    if (!share_last_wave || leftover == 0) return s;
    if (static_cast<long long>(leftover) * k_blocks > INT_MAX) return s;  // WorkCursor counts in int
    const int sharing =
        stream_k::sharing_clusters(leftover, k_blocks, max_clusters, one_tile_row, exceeds_l2, narrow, feed_bound);
    if (sharing == 0) return s;
    s.dp_tiles = tiles - leftover;
    s.sk_clusters = sharing;
    s.clusters = s.dp_tiles > 0 ? max_clusters : sharing;
    return s;
}

// The GPU's SM count, asked once per device (shared by every host thread): the planner's
// tile choice needs it on every call, and the persistent grid's size.
inline cudaError_t sm_count(const char* step, int* sms) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
    static PerDeviceCache<int> cache;
    return cache.get(device, sms, [&](int* out) {
        if (cudaError_t err = cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device);
            err != cudaSuccess)
            return fail(err, "%s: cudaDeviceGetAttribute: %s", step, cudaGetErrorString(err));
        return cudaSuccess;
    });
}

// The DRAM bandwidth of this device in GB/s, 2 x memory clock x bus width (device
// attributes), asked once per device: stream_k::feed_bound_wave weighs a wave's CTAs against it.
inline cudaError_t dram_gbps(const char* step, double* gbps) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
    static PerDeviceCache<double> cache;
    return cache.get(device, gbps, [&](double* out) {
        int khz = 0, bits = 0;
        cudaError_t err = cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device);
        if (err == cudaSuccess) err = cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device);
        if (err != cudaSuccess)
            return fail(err, "%s: cudaDeviceGetAttribute: %s", step, cudaGetErrorString(err));
        *out = 2.0 * khz * 1e3 * (bits / 8.0) * 1e-9;
        return cudaSuccess;
    });
}

// The persistent grid's size on this device: how many CTAs (one per SM) and how many
// clusters of `cluster` CTAs (a cluster's CTAs must fit in one GPC) can be resident at
// once, for the kernel without (`Plain`) and with (`Clustered`) a cluster launch
// (`cluster_config`: its block, shared memory and one attribute, the cluster size). The
// answers depend only on the device, so each kernel pair asks once per device (shared by
// every host thread). The kernels are template arguments, not parameters: every step-07
// kernel has the same type, and each pair needs a cache of its own.
struct Resident {
    int ctas;      // without a cluster launch
    int clusters;  // with clusters of `cluster` CTAs
};
template <auto Plain, auto Clustered>
cudaError_t resident_grid(const char* step, const cudaLaunchConfig_t& cluster_config, Resident* out) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
        return fail(err, "%s: cudaGetDevice: %s", step, cudaGetErrorString(err));
    static PerDeviceCache<Resident> cache;
    return cache.get(device, out, [&](Resident* r) {
        cudaLaunchConfig_t config = cluster_config;
        const int cluster = static_cast<int>(config.attrs[0].val.clusterDim.x);
        config.gridDim = dim3(static_cast<unsigned>(cluster));  // one cluster
        int sms = 0, ctas_per_sm = 0, max_clusters = 0;
        if (cudaError_t err = sm_count(step, &sms); err != cudaSuccess) return err;
        if (cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &ctas_per_sm, Plain, static_cast<int>(config.blockDim.x), config.dynamicSmemBytes);
            err != cudaSuccess)
            return fail(err, "%s: cudaOccupancyMaxActiveBlocksPerMultiprocessor: %s", step,
                        cudaGetErrorString(err));
        if (cudaError_t err = cudaOccupancyMaxActiveClusters(&max_clusters, Clustered, &config);
            err != cudaSuccess)
            return fail(err, "%s: cudaOccupancyMaxActiveClusters (cluster size %d): %s", step, cluster,
                        cudaGetErrorString(err));
        if (ctas_per_sm < 1 || max_clusters < 1)
            return fail(cudaErrorNotSupported,
                        "%s: device %d cannot run a cluster of %d CTAs with %zu bytes of shared memory each",
                        step, device, cluster, config.dynamicSmemBytes);
        *r = {sms * ctas_per_sm, max_clusters};
        return cudaSuccess;
    });
}

// The workspace of a launch whose schedule shares tiles or splits K (nothing otherwise): a
// flag per consumer of every CTA the GPU holds, then one partial tile per CTA of this grid
// (`cluster_ctas` CTAs per cluster), or split-K's slices. The flags come first, at a place that does not depend
// on the problem: launch after launch on this stream reuses them (the owners lower every
// flag they wait for), and a partial of a larger grid must never land on them. They are
// sized for the tallest tile (`max_consumers`), so that launches of different tile heights
// on one stream find them in the same place.
// The flags' bytes: one int per consumer of every resident CTA, rounded up to 256 bytes so
// that the partials after them start aligned. The workspace bound (every_shape.cu,
// workspace_bytes) sizes them the same way.
inline size_t flag_bytes(int resident_ctas, int max_consumers) {
    return (static_cast<size_t>(resident_ctas) * max_consumers * sizeof(int) + 255) / 256 * 256;
}

template <class T>
cudaError_t stream_k_workspace(const char* step, cudaStream_t stream, const Schedule& sched, int cluster_ctas,
                               int resident_ctas, int max_consumers, float** partials, int** flags) {
    *partials = nullptr;
    *flags = nullptr;
    if (sched.sk_clusters == 0 && sched.splits == 1) return cudaSuccess;
    const size_t flags_size = flag_bytes(resident_ctas, max_consumers);
    // Split-K: a slot for every slice of every CTA tile (slice_slot); stream-K: one for every
    // CTA of the grid.
    const size_t slots = sched.splits > 1
                             ? static_cast<size_t>(sched.splits) * sched.tiles * cluster_ctas
                             : static_cast<size_t>(sched.clusters) * cluster_ctas;
    const size_t partial_bytes = slots * T::CONSUMER_WARPGROUPS * T::PARTIAL_FLOATS * sizeof(float);
    void* workspace = nullptr;
    if (cudaError_t err = stream_workspace(step, stream, flags_size + partial_bytes, &workspace);
        err != cudaSuccess)
        return err;
    *flags = static_cast<int*>(workspace);
    *partials = reinterpret_cast<float*>(static_cast<char*>(workspace) + flags_size);
    return cudaSuccess;
}

}  // namespace ladder
