// tile_choice.h: which tile step 07 runs for a problem (07_clusters_multicast/README.md,
// section 6). One rule for step 07's launch and for the planner, which predicts the kernel
// as it launches. Plain C++ (host only), a few dozen integer operations: it runs on every
// call.
//
// A tile is 64 x CONSUMERS rows by 256 columns (one consumer warpgroup per 64 rows). The
// rule counts the tiles of the problem, the waves the persistent grid runs, and whether
// stream-K (common/stream_k.h) shares the last one; from those it picks the height.
#pragma once

#include <cstdio>
#include <string>

#include "stream_k.h"

namespace ladder::tile_choice {

// Measured on the H200 (07_clusters_multicast/README.md, section 6), each height forced in
// one process against cuBLAS: a 64-row tile doubles the CTAs, but a k-block of it costs
// almost what a 128-row one does (its 32 KB B box is most of the 40 KB a stage loads), and
// on a full GPU it moves 1.67x the bytes per FLOP. So it pays in two cases only:
//   * M <= 64: the same number of tiles either way, and half of a 128-row tile is padding
//     (64x4096x4096: 0.69x cuBLAS instead of 0.65x);
//   * the 128-row grid would keep at most a quarter of the SMs busy and stream-K cannot
//     spread its k-blocks (K too short for the runs to pay, common/stream_k.h): 1024^3,
//     32 tiles of 16 k-blocks, 0.76x instead of 0.54x.
// Elsewhere the 64-row tile lost: 1000x1992x2056 (64 tiles) 0.61x against 0.73x, 4096x64x4096
// (32 tiles, shared by stream-K) 0.40x against 0.48x, 4096^3 0.93x against 0.99x.
constexpr long long kQuarter = 4;

struct Estimate {
    int consumers;         // 1 (64x256) or 2 (128x256)
    long long tiles;       // CTA tiles of the problem
    long long waves;       // waves of schedule units (CTAs, or clusters above one wave)
    int sharing_clusters;  // clusters that share the last wave (stream-K), 0 for none
    const char* reason;
    bool transposed;       // computed as C^T = B A^T (see transposes)
};

// The schedule of a tile of `consumers` x 64 rows on a GPU of `sms` SMs with clusters of
// `cluster` CTAs, as step 07 launches it (clusters only above one wave of CTA tiles).
inline Estimate estimate(long long m, long long n, long long k, int sms, int cluster,
                         int consumers, bool share_last_wave = true) {
    const long long bm = 64LL * consumers;
    const long long tiles_m = (m + bm - 1) / bm, tiles_n = (n + 255) / 256;
    const long long tiles = tiles_m * tiles_n;
    const long long unit = cluster > 1 && tiles > sms ? cluster : 1;  // CTAs per schedule unit
    const long long units = ((tiles_m + unit - 1) / unit) * tiles_n;
    const long long slots = sms / unit;  // resident clusters
    const long long leftover = units % slots;
    const int sharing =
        share_last_wave ? stream_k::last_wave(leftover, (k + 63) / 64, slots).clusters : 0;
    return {consumers, tiles, units / slots + (leftover ? 1 : 0), sharing, "", false};
}

// The height for M x N x K: 128x256 unless one of the two cases above holds.
inline Estimate choose_height(long long m, long long n, long long k, int sms, int cluster,
                              bool share_last_wave = true) {
    Estimate tall = estimate(m, n, k, sms, cluster, 2, share_last_wave);
    if (m <= 64) {
        Estimate e = estimate(m, n, k, sms, cluster, 1, share_last_wave);
        e.reason = "M <= 64: half of a 128-row tile would be padding";
        return e;
    }
    if (tall.tiles * kQuarter <= sms && tall.sharing_clusters == 0) {
        Estimate e = estimate(m, n, k, sms, cluster, 1, share_last_wave);
        e.reason = "128-row tiles would fill at most a quarter of the SMs, and K is too short "
                   "for stream-K";
        return e;
    }
    tall.reason = tall.tiles * kQuarter <= sms ? "stream-K spreads the k-blocks of few tiles"
                                               : "enough tiles for 128 rows";
    return tall;
}

// A problem of at most 128 columns and more rows than columns is computed as its transpose,
// C^T = B A^T: A and B are both K-major, so they only swap roles, and the tiles' 256
// columns then run along M instead of padding N. Measured on the H200 (README.md section 6),
// 8192x128x8192 ran at 0.48x cuBLAS untransposed, where 128x8192x8192 runs at 0.92x.
inline bool transposes(long long m, long long n) { return n <= 128 && m > n; }

// What step 07 runs for M x N x K: the transpose where transposes() says so, and the height
// choose_height() picks for the problem it then computes.
inline Estimate choose(long long m, long long n, long long k, int sms, int cluster,
                       bool share_last_wave = true) {
    if (!transposes(m, n)) return choose_height(m, n, k, sms, cluster, share_last_wave);
    Estimate e = choose_height(n, m, k, sms, cluster, share_last_wave);
    e.transposed = true;
    return e;
}

// One line: the chosen tile, its tiles and waves, the schedule and why, e.g.
// "tile 64x256: 64 tiles, 1 wave of 132 SMs, data-parallel: 128-row tiles would fill ...".
inline std::string explain(long long m, long long n, long long k, int sms, int cluster,
                           bool share_last_wave = true) {
    const Estimate e = choose(m, n, k, sms, cluster, share_last_wave);
    char line[320];
    std::snprintf(line, sizeof line, "%stile %dx256: %lld tiles, %lld wave%s of %d SMs, %s: %s",
                  e.transposed ? "C^T = B A^T (N <= 128 < M), " : "", 64 * e.consumers, e.tiles,
                  e.waves, e.waves == 1 ? "" : "s", sms,
                  e.sharing_clusters ? "last wave shared (stream-K)" : "data-parallel", e.reason);
    return line;
}

}  // namespace ladder::tile_choice
