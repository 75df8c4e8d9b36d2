// test_layout.cpp: the layout functions the kernels call (common/kernel/layout.h) and what
// ladder-layout computes from them (common/models/layout_views.h), against answers worked out by
// hand from the PTX ISA tables and the kernels' comments. CPU only.
#include <gtest/gtest.h>

#include <climits>
#include <set>
#include <utility>
#include <vector>

#include "layout.h"
#include "layout_views.h"

namespace {

namespace L = ladder::layout;
using L::Swizzle;

// ---- swizzle -----------------------------------------------------------------------------
TEST(LayoutCeilDiv, CountsTheTilesThatCoverXWithoutOverflow) {
    EXPECT_EQ(L::ceil_div(1, 64), 1);
    EXPECT_EQ(L::ceil_div(64, 64), 1);
    EXPECT_EQ(L::ceil_div(65, 64), 2);
    EXPECT_EQ(L::ceil_div(2056, 64), 33);  // 1000x1992x2056: the last k-block holds 8 columns
    EXPECT_EQ(L::ceil_div(1000, 128), 8);
    // (x + tile - 1) / tile would overflow here; the steps take sizes up to 2147418112.
    EXPECT_EQ(L::ceil_div(INT_MAX, 256), INT_MAX / 256 + 1);
    EXPECT_EQ(L::ceil_div(2147418112, 128), 2147418112 / 128);
}

TEST(LayoutSwizzle, KernelFormIsTheTmaSwizzleOfTheAddress) {
    // The kernels' row/chunk form, the TMA's address-bit form and the tile placement agree
    // on every chunk of a 256-row k-block (the B tile of steps 02-07).
    for (int row = 0; row < 256; ++row)
        for (int chunk = 0; chunk < 8; ++chunk) {
            const uint32_t kernel = L::swizzled_offset(row, chunk);
            EXPECT_EQ(kernel, L::swizzle_address(static_cast<uint32_t>(row * 128 + chunk * 16),
                                                 Swizzle::B128));
            EXPECT_EQ(kernel, L::kmajor_tile_offset(row, chunk, 256, Swizzle::B128));
            EXPECT_EQ(kernel, L::tile_offset(row, chunk, 256, Swizzle::B128));
        }
}

TEST(LayoutSwizzle, WorkedExamples) {
    // Step 02's README table: row 1 stores chunk 0 at position 1, row 7 chunk 2 at 5.
    EXPECT_EQ(L::swizzled_offset(1, 0), 128u + 16u);
    EXPECT_EQ(L::swizzled_offset(7, 2), 7u * 128 + 5 * 16);
    EXPECT_EQ(L::swizzled_offset(8, 3), 8u * 128 + 3 * 16);  // row 8: the pattern again
    // Step 06's 512-byte staging rows: row 3, chunk 17 -> chunk 17 ^ 3 = 18.
    EXPECT_EQ(L::swizzled_offset<512>(3, 17), 3u * 512 + 18 * 16);
    // 64B: byte 128 (row 2 of 64-byte rows) has bit 7 set -> bit 4 flips: 144.
    EXPECT_EQ(L::kmajor_tile_offset(2, 0, 128, Swizzle::B64), 144u);
    // 64B: chunk 4 is in the second box of 128 x 64 bytes: 8192 + row 0.
    EXPECT_EQ(L::kmajor_tile_offset(0, 4, 128, Swizzle::B64), 8192u);
    // 32B: row 4 of 32-byte rows = byte 128 -> 144.
    EXPECT_EQ(L::kmajor_tile_offset(4, 0, 128, Swizzle::B32), 144u);
    EXPECT_EQ(L::kmajor_tile_offset(5, 3, 128, Swizzle::None), 5u * 128 + 48);
}

TEST(LayoutSwizzle, EveryModeIsAPermutationOfTheTile) {
    for (Swizzle s : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128}) {
        std::set<uint32_t> seen;
        for (int row = 0; row < 128; ++row)
            for (int chunk = 0; chunk < 8; ++chunk) {
                const uint32_t off = L::kmajor_tile_offset(row, chunk, 128, s);
                EXPECT_EQ(off % 16, 0u);
                EXPECT_LT(off, 128u * 128);
                seen.insert(off);
            }
        EXPECT_EQ(seen.size(), 128u * 8) << "mode " << static_cast<int>(s);
    }
}

// ---- bank conflicts ------------------------------------------------------------------------
TEST(LayoutConflicts, WavefrontCounting) {
    std::vector<L::Access> a;
    for (int t = 0; t < 32; ++t) a.push_back({t, 0, 0, static_cast<uint32_t>(4 * t), 4});
    EXPECT_EQ(L::wavefronts(a), 1);  // 32 consecutive words: every bank once
    for (auto& x : a) x.byte = 0;
    EXPECT_EQ(L::wavefronts(a), 1);  // one word for everyone: a broadcast
    a = {{0, 0, 0, 0, 4}, {1, 0, 0, 128, 4}, {2, 0, 0, 256, 4}};
    EXPECT_EQ(L::wavefronts(a), 3);  // three words of bank 0
}

TEST(LayoutConflicts, LdmatrixColumnReadIsEightWayWithoutSwizzleAndFreeWithIt) {
    for (char operand : {'A', 'B'})
        for (int ks = 0; ks < 4; ++ks)
            for (int phase = 0; phase < 4; ++phase) {
                EXPECT_EQ(L::wavefronts(L::ldmatrix_phase(operand, ks, phase, Swizzle::None)), 8)
                    << operand << " ks " << ks << " phase " << phase;
                EXPECT_EQ(L::wavefronts(L::ldmatrix_phase(operand, ks, phase, Swizzle::B128)), 1)
                    << operand << " ks " << ks << " phase " << phase;
            }
}

TEST(LayoutConflicts, WgmmaCoreMatricesAreEightWayWithoutSwizzleAndFreeWithIt) {
    for (int ks = 0; ks < 4; ++ks)
        for (int core_row = 0; core_row < 8; ++core_row)
            for (int core_k = 0; core_k < 2; ++core_k) {
                EXPECT_EQ(L::wavefronts(L::wgmma_core_matrix(ks, core_row, core_k, Swizzle::None)),
                          8);
                EXPECT_EQ(L::wavefronts(L::wgmma_core_matrix(ks, core_row, core_k, Swizzle::B128)),
                          1);
            }
}

TEST(LayoutConflicts, EpilogueStoresAreEightWayWithoutSwizzleAndFreeWithIt) {
    for (int warp = 0; warp < 4; ++warp)
        for (int reg = 0; reg < 128; reg += 2) {
            EXPECT_EQ(L::wavefronts(L::epilogue_store(warp, reg, Swizzle::None)), 8);
            EXPECT_EQ(L::wavefronts(L::epilogue_store(warp, reg, Swizzle::B128)), 1);
        }
}

TEST(LayoutConflicts, Step06StagingRowsOf512BytesBehaveTheSame) {
    // Step 06 stages 512-byte rows of C: one store instruction = 8 rows x one chunk.
    for (int reg = 0; reg < 128; reg += 2) {
        std::vector<L::Access> plain, swizzled;
        for (int lane = 0; lane < 32; ++lane) {
            const int row = L::wgmma_acc_row(0, lane, reg);
            const int chunk = reg / 4;
            const uint32_t in_chunk = 4 * (lane % 4);
            plain.push_back(
                {lane, row, chunk, static_cast<uint32_t>(row * 512 + chunk * 16) + in_chunk, 4});
            swizzled.push_back(
                {lane, row, chunk, L::swizzled_offset<512>(row, chunk) + in_chunk, 4});
        }
        EXPECT_EQ(L::wavefronts(plain), 8);
        EXPECT_EQ(L::wavefronts(swizzled), 1);
    }
}

// ---- ldmatrix lanes ---------------------------------------------------------------------------
TEST(LayoutLdmatrix, LanesOfPhaseQAddressTheRowsOfMatrixQ) {
    for (int lane = 0; lane < 32; ++lane) {
        const int q = lane / 8;
        // A: matrix q = rows 8*(q%2).., chunk q/2 (a[0..3]: rows 0-7 k0, rows 8-15 k0, ...).
        EXPECT_EQ(L::ldmatrix_a_row(lane), 8 * (q % 2) + lane % 8);
        EXPECT_EQ(L::ldmatrix_a_chunk(lane), q / 2);
        // B: matrix q = n rows 8*(q/2).., chunk q%2 (b[0], b[1] of n8 tile 0, then tile 1).
        EXPECT_EQ(L::ldmatrix_b_row(lane), 8 * (q / 2) + lane % 8);
        EXPECT_EQ(L::ldmatrix_b_chunk(lane), q % 2);
    }
}

// ---- accumulator fragments -------------------------------------------------------------------
TEST(LayoutFragments, MmaM16n8k16MatchesThePtxTable) {
    // PTX ISA "Matrix Fragments for mma.m16n8k16", D (.f32): groupID = lane/4,
    // threadID_in_group = lane%4; c0, c1 at (groupID, 2*tig + {0,1}); c2, c3 at groupID + 8.
    const int expected[][4] = {
        // lane, reg, row, col
        {0, 0, 0, 0}, {0, 1, 0, 1},  {0, 2, 8, 0},   {0, 3, 8, 1},   {5, 0, 1, 2},
        {5, 3, 9, 3}, {31, 0, 7, 6}, {31, 3, 15, 7}, {14, 2, 11, 4},
    };
    for (const auto& e : expected) {
        EXPECT_EQ(L::mma_acc_row(e[0], e[1]), e[2]) << "lane " << e[0] << " reg " << e[1];
        EXPECT_EQ(L::mma_acc_col(e[0], e[1]), e[3]) << "lane " << e[0] << " reg " << e[1];
    }
    std::set<std::pair<int, int>> covered;
    for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 4; ++reg)
            covered.insert({L::mma_acc_row(lane, reg), L::mma_acc_col(lane, reg)});
    EXPECT_EQ(covered.size(), 16u * 8);
}

TEST(LayoutFragments, WgmmaM64nNk16MatchesThePtxFigure) {
    // PTX ISA wgmma "Register Fragments", D of m64nNk16: warp w rows 16w..; each n8 block is
    // the mma.sync layout, d[4j..4j+3] for block j.
    EXPECT_EQ(L::wgmma_acc_row(0, 0, 0), 0);
    EXPECT_EQ(L::wgmma_acc_col(0, 1), 1);
    EXPECT_EQ(L::wgmma_acc_row(0, 4, 2), 9);   // lane 4, d2: row 1 + 8
    EXPECT_EQ(L::wgmma_acc_col(3, 5), 15);     // lane 3, d5: block 1, column 8 + 6 + 1
    EXPECT_EQ(L::wgmma_acc_row(1, 0, 0), 16);  // warp 1 starts at row 16
    EXPECT_EQ(L::wgmma_acc_row(3, 31, 127), 63);
    EXPECT_EQ(L::wgmma_acc_col(31, 127), 255);
    // Every register of n8 block j agrees with the mma.sync map shifted by 8j columns.
    for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 128; ++reg) {
            EXPECT_EQ(L::wgmma_acc_row(2, lane, reg), 32 + L::mma_acc_row(lane, reg % 4));
            EXPECT_EQ(L::wgmma_acc_col(lane, reg), 8 * (reg / 4) + L::mma_acc_col(lane, reg % 4));
        }
    std::set<std::pair<int, int>> covered;
    for (int warp = 0; warp < 4; ++warp)
        for (int lane = 0; lane < 32; ++lane)
            for (int reg = 0; reg < 128; ++reg)
                covered.insert({L::wgmma_acc_row(warp, lane, reg), L::wgmma_acc_col(lane, reg)});
    EXPECT_EQ(covered.size(), 64u * 256);
}

// ---- step 07: multicast slices and the tile order
// ------------------------------------------------
TEST(LayoutStep07, BSlicesCoverTheBoxOnce) {
    for (int cluster : {1, 2, 4}) {
        int next = 0;
        for (int rank = 0; rank < cluster; ++rank) {
            EXPECT_EQ(L::b_slice_first_row(rank, 256, cluster), next);
            next += L::b_slice_rows(256, cluster);
        }
        EXPECT_EQ(next, 256);
    }
}

TEST(LayoutStep07, EdgeBoxesHoldTheRowsLeftInWholeSwizzleAtoms) {
    EXPECT_EQ(L::edge_box_rows(1024, 128), 128);  // whole boxes: no edge box
    EXPECT_EQ(L::edge_box_rows(1000, 128), 104);  // 104 rows left: 13 atoms
    EXPECT_EQ(L::edge_box_rows(1001, 128), 112);  // 105 left: rounded up to 14 atoms
    EXPECT_EQ(L::edge_box_rows(2049, 128), 8);    // one row left: one atom
    // B's edge slice: 2088 = 10 x 192 + 168 columns, so the last column of 128x192 tiles
    // has 168; in clusters of 2 (96-row slices) the second slice holds 72 of them, in
    // clusters of 4 (48-row slices) the fourth holds 24; without clusters the box holds 168.
    EXPECT_EQ(L::edge_box_rows(2088 % 192, 96), 72);
    EXPECT_EQ(L::edge_box_rows(2088 % 192, 48), 24);
    EXPECT_EQ(L::edge_box_rows(2088 % 192, 192), 168);
    EXPECT_EQ(L::edge_box_rows(2304 % 192, 96), 96);  // N whole tiles
    for (int rows = 1; rows <= 600; ++rows)
        for (int box : {8, 48, 64, 72, 96, 128, 144, 160, 192, 256}) {
            const int edge = L::edge_box_rows(rows, box);
            EXPECT_EQ(edge % 8 == 0 || edge == box, true) << rows << " " << box;
            EXPECT_GE(edge, rows % box) << rows << " " << box;
            EXPECT_LE(edge, box) << rows << " " << box;
            EXPECT_LT(edge - rows % box, rows % box ? 8 : box + 1) << rows << " " << box;
        }
}

TEST(LayoutStep07, GroupedOrderAsDrawnInTheKernel) {
    // 07_clusters_multicast/gemm.cu, above tile_origin: with 4 rows per group, tiles go
    // 0 4 8 / 1 5 9 / 2 6 10 / 3 7 11 down the columns, the next group below.
    const int cluster_rows = 8, tiles_n = 5, group = 4;
    auto at = [&](int tile) {
        return L::tile_place(L::TileOrder::Grouped, tile, cluster_rows, tiles_n, group);
    };
    EXPECT_EQ(at(0).cluster_row, 0);
    EXPECT_EQ(at(1).cluster_row, 1);
    EXPECT_EQ(at(3).cluster_row, 3);
    EXPECT_EQ(at(4).cluster_row, 0);
    EXPECT_EQ(at(4).tile_col, 1);
    EXPECT_EQ(at(9).tile_col, 2);
    EXPECT_EQ(at(9).cluster_row, 1);
    EXPECT_EQ(at(20).cluster_row, 4);  // group 2
    EXPECT_EQ(at(20).tile_col, 0);
    // A short last group (6 rows, groups of 4): its 2 rows are walked column by column.
    auto short_at = [&](int tile) {
        return L::tile_place(L::TileOrder::Grouped, tile, 6, tiles_n, group);
    };
    EXPECT_EQ(short_at(21).cluster_row, 5);
    EXPECT_EQ(short_at(22).cluster_row, 4);
    EXPECT_EQ(short_at(22).tile_col, 1);
    // Row-major for comparison.
    EXPECT_EQ(L::tile_place(L::TileOrder::RowMajor, 7, cluster_rows, tiles_n, group).cluster_row,
              1);
    EXPECT_EQ(L::tile_place(L::TileOrder::RowMajor, 7, cluster_rows, tiles_n, group).tile_col, 2);
    // Step 07's group: 16 CTA rows = 8 cluster rows of 2, 16 of 1, at least 1.
    EXPECT_EQ(L::group_rows_for(16, 2), 8);
    EXPECT_EQ(L::group_rows_for(16, 1), 16);
    EXPECT_EQ(L::group_rows_for(16, 32), 1);
}

TEST(LayoutStep07, EveryOrderVisitsEveryTileOnce) {
    for (L::TileOrder order : {L::TileOrder::RowMajor, L::TileOrder::Grouped})
        for (int cluster_rows : {1, 3, 8, 17})
            for (int tiles_n : {1, 4, 7})
                for (int group : {1, 4, 8}) {
                    std::set<std::pair<int, int>> seen;
                    for (int t = 0; t < cluster_rows * tiles_n; ++t) {
                        const L::TilePlace p =
                            L::tile_place(order, t, cluster_rows, tiles_n, group);
                        ASSERT_GE(p.cluster_row, 0);
                        ASSERT_LT(p.cluster_row, cluster_rows);
                        ASSERT_GE(p.tile_col, 0);
                        ASSERT_LT(p.tile_col, tiles_n);
                        seen.insert({p.cluster_row, p.tile_col});
                    }
                    EXPECT_EQ(seen.size(), static_cast<size_t>(cluster_rows * tiles_n));
                }
}

TEST(LayoutStep07, PersistentScheduleAt4096) {
    // 4096 x 4096 on 128x256 tiles, clusters of 2, 66 clusters (132 SMs).
    const L::Schedule s =
        L::persistent_schedule(L::TileOrder::Grouped, 4096, 4096, 128, 256, 2, 66, 16);
    EXPECT_EQ(s.tiles_m, 32);
    EXPECT_EQ(s.tiles_n, 16);
    EXPECT_EQ(s.cluster_rows, 16);
    auto tile = [&](int r, int c) { return s.tiles[static_cast<size_t>(r) * s.tiles_n + c]; };
    EXPECT_EQ(tile(0, 0).cluster_tile, 0);
    EXPECT_EQ(tile(1, 0).cluster_tile, 0);
    EXPECT_EQ(tile(1, 0).rank, 1);
    EXPECT_EQ(tile(2, 0).cluster_tile, 1);
    EXPECT_EQ(tile(0, 1).cluster_tile, 8);  // 8 cluster rows per group, then the next column
    EXPECT_EQ(tile(16, 0).cluster_tile, 128);
    EXPECT_EQ(tile(16, 0).wave, 1);  // 128 / 66
    EXPECT_EQ(tile(16, 0).cluster, 128 % 66);
    EXPECT_EQ(tile(31, 15).cluster_tile, 255);
    EXPECT_EQ(tile(31, 15).wave, 3);
    // M not a multiple of the cluster: the last cluster row has one CTA tile.
    const L::Schedule odd =
        L::persistent_schedule(L::TileOrder::Grouped, 3 * 128, 256, 128, 256, 2, 4, 16);
    EXPECT_EQ(odd.tiles_m, 3);
    EXPECT_EQ(odd.cluster_rows, 2);
    EXPECT_EQ(odd.tiles[2].cluster_tile, 1);
    EXPECT_EQ(odd.tiles[2].rank, 0);
}

}  // namespace
