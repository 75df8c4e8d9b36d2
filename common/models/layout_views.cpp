// layout_views.cpp: see layout_views.h.
#include "layout_views.h"

#include <algorithm>

namespace ladder::layout {

int wavefronts(const std::vector<Access>& accesses) {
    // Distinct words per bank; at most 32 threads x 4 words, so a flat list is enough.
    std::vector<uint32_t> words[kBanks];
    for (const Access& a : accesses) {
        for (uint32_t word = a.byte / kBankBytes; word < (a.byte + a.bytes) / kBankBytes; ++word) {
            std::vector<uint32_t>& bank = words[word % kBanks];
            if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
        }
    }
    size_t most = 0;
    for (const std::vector<uint32_t>& bank : words) most = std::max(most, bank.size());
    return static_cast<int>(most);
}

uint32_t tile_offset(int row, int chunk, int rows, Swizzle s) {
    if (s == Swizzle::B128) return swizzled_offset(row, chunk);
    return kmajor_tile_offset(row, chunk, rows, s);
}

std::vector<Access> ldmatrix_phase(char operand, int ks, int phase, Swizzle s) {
    // Step 02's k-blocks: 128 rows of A, 256 of B; a k-step is 2 chunks.
    const int rows = operand == 'A' ? 128 : 256;
    std::vector<Access> out;
    for (int lane = 8 * phase; lane < 8 * phase + 8; ++lane) {
        const int row = operand == 'A' ? ldmatrix_a_row(lane) : ldmatrix_b_row(lane);
        const int chunk =
            2 * ks + (operand == 'A' ? ldmatrix_a_chunk(lane) : ldmatrix_b_chunk(lane));
        out.push_back({lane, row, chunk, tile_offset(row, chunk, rows, s), kChunkBytes});
    }
    return out;
}

std::vector<Access> wgmma_core_matrix(int ks, int core_row, int core_k, Swizzle s) {
    std::vector<Access> out;
    for (int r = 0; r < 8; ++r) {
        const int row = 8 * core_row + r;
        const int chunk = 2 * ks + core_k;
        out.push_back({r, row, chunk, tile_offset(row, chunk, 64, s), kChunkBytes});
    }
    return out;
}

std::vector<Access> epilogue_store(int warp, int reg, Swizzle s) {
    std::vector<Access> out;
    for (int lane = 0; lane < 32; ++lane) {
        const int row = wgmma_acc_row(warp, lane, reg);
        const int chunk = wgmma_acc_col(lane, reg) / 8 % 8;  // 8 bf16 per chunk, 8 per box row
        const uint32_t byte = tile_offset(row, chunk, 64, s) + 4 * (lane % 4);
        out.push_back({lane, row, chunk, byte, 4});
    }
    return out;
}

Schedule persistent_schedule(TileOrder order, int M, int N, int bm, int bn, int cluster,
                             int clusters, int group_m_tiles) {
    Schedule s{};
    s.tiles_m = (M - 1) / bm + 1;
    s.tiles_n = (N - 1) / bn + 1;
    s.cluster_rows = (s.tiles_m - 1) / cluster + 1;
    s.clusters = clusters;
    s.tiles.assign(static_cast<size_t>(s.tiles_m) * s.tiles_n, ScheduledTile{});
    const int cluster_tiles = s.cluster_rows * s.tiles_n;
    const int group_rows = group_rows_for(group_m_tiles, cluster);
    for (int t = 0; t < cluster_tiles; ++t) {
        const TilePlace place = tile_place(order, t, s.cluster_rows, s.tiles_n, group_rows);
        for (int rank = 0; rank < cluster; ++rank) {
            const int row = place.cluster_row * cluster + rank;
            if (row >= s.tiles_m) continue;  // the last cluster row may hang below C
            s.tiles[static_cast<size_t>(row) * s.tiles_n + place.tile_col] = {
                row, place.tile_col, t, t % clusters, t / clusters, rank};
        }
    }
    return s;
}

}  // namespace ladder::layout
