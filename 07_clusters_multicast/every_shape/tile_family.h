// tile_family.h: the tiles of step 07's every-shape kernel, in one table. Plain C++ (host
// and device), so that the kernel (every_shape.cu, tiles.cuh) and the planner
// (common/models, through tile_choice.h) read the same list and the same stage count.
//
// LADDER_EVERY_SHAPE_TILES(X) calls X(ROWS, COLUMNS) once per tile of the family. From it:
//   * kFamily and in_family below (the tiles the planner models, `ladder-plan --tile`);
//   * with_tile in tiles.cuh (the planner's Shape -> the compiled kernel; a shape not in the
//     table is refused with an error, never run as another tile);
//   * the forced tiles every_shape.cu registers, "tile<ROWS>x<COLUMNS>" (`step-7 --tile`).
// Rows are 64 or 128 (one consumer warpgroup per 64). A width needs its wgmma m64nNk16
// (wgmma_shapes.cuh); why each width is here: tiles.cuh, "The tile family".
#pragma once

#define LADDER_EVERY_SHAPE_TILES(X)                                                        \
    X(64, 64) X(64, 96) X(64, 128) X(64, 160) X(64, 192) X(64, 256) X(128, 64) X(128, 128) \
    X(128, 144) X(128, 168) X(128, 192) X(128, 224) X(128, 256)

namespace ladder::tile_choice {

// A tile's rows and columns.
struct Shape {
    int rows, columns;
};

#define LADDER_TILE_SHAPE(R, C) Shape{R, C},
constexpr Shape kFamily[] = {LADDER_EVERY_SHAPE_TILES(LADDER_TILE_SHAPE)};
#undef LADDER_TILE_SHAPE

constexpr bool in_family(Shape s) {
    for (const Shape& t : kFamily)
        if (t.rows == s.rows && t.columns == s.columns) return true;
    return false;
}

// The stages a tile holds, for the kernel (TileShape::STAGES) and the planner alike: as many
// k-blocks of A (rows x 64) and B (columns x 64) bf16 as fit in the 227 KB a CTA may opt in
// to on an H100, beside the epilogue's C staging (a 64x128 bf16 buffer, 16 KB, per 64 rows),
// the barriers and 2 KB of alignment slack (1 KB to round the base up to 1024 bytes, 1 KB
// for the barriers, padded to the storage's 1024-byte alignment).
constexpr int kBlockColumns = 64;  // BK: one 128-byte swizzle row of bf16
constexpr long long kSmemOptinBytes = 232448;  // MaxSharedMemoryPerBlockOptin
constexpr long long kCStagingBytesPer64Rows = 64 * 128 * 2;
constexpr long long kSlackBytes = 2048;
constexpr int stages(Shape s) {
    return static_cast<int>((kSmemOptinBytes - (s.rows / 64) * kCStagingBytesPer64Rows - kSlackBytes) /
                            ((s.rows + s.columns) * kBlockColumns * 2));
}
// The lesson's number (gemm.cu, STAGES): its 128x256 tile holds 4.
static_assert(stages({128, 256}) == 4, "128x256 holds the lesson's 4 stages");

}  // namespace ladder::tile_choice
