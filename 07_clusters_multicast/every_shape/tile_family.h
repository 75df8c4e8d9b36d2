// tile_family.h: the tiles of step 07's every-shape kernel, in one table. Plain C++ (host
// and device), so that the kernel (every_shape.cu, tiles.cuh) and the planner
// (common/models, through tile_choice.h) read the same list and the same stage count.
//
// LADDER_EVERY_SHAPE_TILES(X) calls X(ROWS, COLUMNS) once per tile of the family. From it:
//   * kFamily and in_family below (the tiles the planner models, `ladder-plan --tile`);
//   * with_tile in tiles.cuh (the planner's Shape -> the compiled kernel; a shape not in the
//     table is refused with an error, never run as another tile);
//   * the forced tiles every_shape.cu registers, "tile<ROWS>x<COLUMNS>" (`step-7 --tile`).
// Rows are 64, 128 or 192 (one consumer warpgroup per 64). A width needs its wgmma m64nNk16
// (wgmma_shapes.cuh); why each tile is here: tiles.cuh, "The tile family".
#pragma once

#define LADDER_EVERY_SHAPE_TILES(X)                                                        \
    X(64, 64) X(64, 96) X(64, 128) X(64, 160) X(64, 192) X(64, 256) X(128, 64) X(128, 128) \
    X(128, 144) X(128, 168) X(128, 192) X(128, 224) X(128, 256) X(192, 192)

namespace ladder::tile_choice {

// A tile's rows and columns.
struct Shape {
    int rows, columns;
};

#define LADDER_TILE_SHAPE(R, C) Shape{R, C},
constexpr Shape kFamily[] = {LADDER_EVERY_SHAPE_TILES(LADDER_TILE_SHAPE)};
#undef LADDER_TILE_SHAPE

// Consumer warpgroups: one per 64 rows.
constexpr int consumers(Shape s) { return s.rows / 64; }
// Whether stream-K and split-K may share the tile's k-blocks between CTAs: with one or two
// consumers. Three consumers (512 threads) are compiled within 128 registers a thread, and
// their 96 accumulators leave no room for the fix-up's loads in flight (tiles.cuh).
constexpr bool shares(Shape s) { return consumers(s) <= 2; }

constexpr bool in_family(Shape s) {
    for (const Shape& t : kFamily)
        if (t.rows == s.rows && t.columns == s.columns) return true;
    return false;
}

// The columns of C a consumer stages per round of its epilogue (tiles.cuh: EPI_COLUMNS):
// 128, or one 64-column box where 128 does not divide the columns the TMA stores (whole
// boxes: the 192 of 192 and of 224, the 64 of 96).
constexpr int staging_columns(Shape s) { return (s.columns / 64 * 64) % 128 == 0 ? 128 : 64; }

// The stages a tile holds, for the kernel (TileShape::STAGES) and the planner alike: as many
// k-blocks of A (rows x 64) and B (columns x 64) bf16 as fit in the 227 KB a CTA may opt in
// to on an H100, beside the epilogue's C staging (a 64 x staging_columns bf16 buffer, 8 or
// 16 KB, per consumer), the barriers and 2 KB of alignment slack (1 KB to round the base up
// to 1024 bytes, 1 KB for the barriers, padded to the storage's 1024-byte alignment).
constexpr int kBlockColumns = 64;  // BK: one 128-byte swizzle row of bf16
constexpr long long kSmemOptinBytes = 232448;  // MaxSharedMemoryPerBlockOptin
constexpr long long kSlackBytes = 2048;
constexpr int stages(Shape s) {
    return static_cast<int>((kSmemOptinBytes - consumers(s) * 64LL * staging_columns(s) * 2 - kSlackBytes) /
                            ((s.rows + s.columns) * kBlockColumns * 2));
}
// The lesson's number (gemm.cu, STAGES): its 128x256 tile holds 4.
static_assert(stages({128, 256}) == 4, "128x256 holds the lesson's 4 stages");
static_assert(stages({192, 192}) == 4 && stages({128, 192}) == 5, "192-column tiles stage 64 columns of C");

}  // namespace ladder::tile_choice
