// layout_main.cpp: ladder-layout, the layouts of the ladder's kernels, computed by the
// kernels' own functions (layout.h) on the CPU.
//
//   ladder-layout                         every layout as a grid of numbers (--text)
//   ladder-layout --only swizzle          one of: swizzle conflicts mma wgmma multicast tiles
//   ladder-layout --csv DIR               the data for the pictures (common/scripts/plot_layouts.py)
//   ladder-layout --m 8192 --n 4096 --cluster 4 --sms 132 --order row   the schedule shown
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "layout_views.h"

namespace {

using namespace ladder::layout;

// Step 07's large tile and grouping (BM and BN of Tile<2, 256> in 07_clusters_multicast/
// tiles.cuh, GROUP_M_TILES in its gemm.cu); the B box of a stage is BN rows.
constexpr int kStep07BM = 128;
constexpr int kStep07BN = 256;
constexpr int kStep07GroupMTiles = 16;
constexpr int kWgmmaN = 256;  // steps 05-07: wgmma m64n256k16
constexpr int kMaxTilesDrawn = 1 << 20;

struct Options {
    bool text = false;
    std::string csv_dir;
    std::string only;
    int m = 4096, n = 4096, cluster = 2, sms = 132, clusters = 0;
    TileOrder order = TileOrder::Grouped;
};

const char* kViews[] = {"swizzle", "conflicts", "mma", "wgmma", "multicast", "tiles"};

const char* swizzle_name(Swizzle s) {
    switch (s) {
        case Swizzle::None:
            return "none";
        case Swizzle::B32:
            return "32B";
        case Swizzle::B64:
            return "64B";
        case Swizzle::B128:
            return "128B";
    }
    return "?";
}
const char* order_name(TileOrder o) { return o == TileOrder::Grouped ? "grouped" : "row"; }

bool parse_int(const std::string& text, int lo, int hi, int* out) {
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) return false;
    *out = static_cast<int>(v);
    return true;
}

std::string usage() {
    return "usage: ladder-layout [--text] [--csv DIR] [--only VIEW] [--m M] [--n N]\n"
           "                     [--cluster 1|2|4] [--sms S] [--clusters C] [--order grouped|row]\n"
           "  VIEW: swizzle conflicts mma wgmma multicast tiles (default: all)\n"
           "  --text prints grids (the default without --csv); --csv DIR writes the picture data.\n"
           "  The schedule view: an M x N problem on step 07's 128x256 tiles and the grid its\n"
           "  launch picks: `clusters` persistent clusters (default sms / cluster), and no\n"
           "  cluster launch at all when there are no more tiles than SMs.\n";
}

bool parse(int argc, char** argv, Options* o, std::string* error) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](std::string* out) {
            if (i + 1 >= argc) {
                *error = arg + " needs a value";
                return false;
            }
            *out = argv[++i];
            return true;
        };
        auto number = [&](int lo, int hi, int* out) {
            std::string v;
            if (!value(&v)) return false;
            if (!parse_int(v, lo, hi, out)) {
                *error = arg + " takes a whole number in " + std::to_string(lo) + ".." +
                         std::to_string(hi) + ", not '" + v + "'";
                return false;
            }
            return true;
        };
        if (arg == "--text") {
            o->text = true;
        } else if (arg == "--csv") {
            if (!value(&o->csv_dir)) return false;
        } else if (arg == "--only") {
            if (!value(&o->only)) return false;
            bool known = false;
            for (const char* v : kViews) known = known || o->only == v;
            if (!known) {
                *error = "unknown view '" + o->only + "'";
                return false;
            }
        } else if (arg == "--m") {
            if (!number(1, 1 << 20, &o->m)) return false;
        } else if (arg == "--n") {
            if (!number(1, 1 << 20, &o->n)) return false;
        } else if (arg == "--cluster") {
            if (!number(1, 4, &o->cluster)) return false;
            if (o->cluster == 3) {
                *error = "--cluster must divide the 256-row B box: 1, 2 or 4";
                return false;
            }
        } else if (arg == "--sms") {
            if (!number(1, 1024, &o->sms)) return false;
        } else if (arg == "--clusters") {
            if (!number(1, 1024, &o->clusters)) return false;
        } else if (arg == "--order") {
            std::string v;
            if (!value(&v)) return false;
            if (v == "grouped") {
                o->order = TileOrder::Grouped;
            } else if (v == "row") {
                o->order = TileOrder::RowMajor;
            } else {
                *error = "--order is grouped or row, not '" + v + "'";
                return false;
            }
        } else if (arg == "--help" || arg == "-h") {
            std::printf("%s", usage().c_str());
            std::exit(0);
        } else {
            *error = "unknown argument '" + arg + "'";
            return false;
        }
    }
    const long long tiles_m = (o->m - 1) / kStep07BM + 1;
    const long long tiles = tiles_m * ((o->n - 1) / kStep07BN + 1);
    if (tiles > kMaxTilesDrawn) {
        *error = "M x N has " + std::to_string(tiles) + " tiles; at most " +
                 std::to_string(kMaxTilesDrawn) + " are drawn";
        return false;
    }
    // The grid step 07's launch() picks: with no more tiles than SMs no cluster launch (one
    // CTA per tile); otherwise as many clusters as are resident (--clusters: the driver's
    // answer; default one CTA per SM), never more than there are cluster tiles.
    if (o->cluster > 1 && tiles <= o->sms) {
        o->cluster = 1;
        o->clusters = static_cast<int>(tiles);
    } else {
        const long long resident = o->clusters > 0 ? o->clusters : std::max(1, o->sms / o->cluster);
        const long long cluster_tiles = (tiles / tiles_m) * ((tiles_m - 1) / o->cluster + 1);
        o->clusters = static_cast<int>(std::min(resident, cluster_tiles));
    }
    if (!o->text && o->csv_dir.empty()) o->text = true;
    return true;
}

const Swizzle kModes[] = {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128};

// The reads and stores drawn, each without and with the 128B swizzle.
struct ReadView {
    const char* name;
    const char* what;
    std::vector<Access> (*make)(Swizzle);
};
const ReadView kReads[] = {
    {"ldmatrix_a", "step 02 ldmatrix.x4 of A, k-step 0, phase 0 (lanes 0-7 = matrix 0)",
     [](Swizzle s) { return ldmatrix_phase('A', 0, 0, s); }},
    {"ldmatrix_b", "step 02 ldmatrix.x4 of B, k-step 1, phase 3 (lanes 24-31 = matrix 3)",
     [](Swizzle s) { return ldmatrix_phase('B', 1, 3, s); }},
    {"wgmma_a", "step 05 wgmma A operand, k-step 1, core matrix (rows 0-7, k 24-31)",
     [](Swizzle s) { return wgmma_core_matrix(1, 0, 1, s); }},
    {"epilogue_store", "step 07 epilogue store into the C box, warp 0, registers 4-5",
     [](Swizzle s) { return epilogue_store(0, 4, s); }},
};

// ---- text ------------------------------------------------------------------------------
void text_swizzle() {
    std::printf(
        "== swizzle: bank group (16-byte chunk of the 32 banks) of chunk c of row r,\n"
        "   K-major 128x64 bf16 tile as the TMA writes it (first 16 rows)\n");
    for (Swizzle s : kModes) {
        std::printf("-- %s\n   row \\ chunk  0 1 2 3 4 5 6 7\n", swizzle_name(s));
        for (int row = 0; row < 16; ++row) {
            std::printf("   %3d        ", row);
            for (int chunk = 0; chunk < 8; ++chunk)
                std::printf(" %d", bank_group_of(tile_offset(row, chunk, 128, s)));
            std::printf("\n");
        }
    }
}

void text_conflicts() {
    std::printf("== bank conflicts: the accesses of one cycle, and the wavefronts they take\n");
    for (const ReadView& v : kReads) {
        for (Swizzle s : {Swizzle::None, Swizzle::B128}) {
            const std::vector<Access> a = v.make(s);
            const int w = wavefronts(a);
            std::printf("-- %s, swizzle %s: %d wavefront%s (%s)\n", v.what, swizzle_name(s), w,
                        w == 1 ? "" : "s",
                        w == 1 ? "conflict-free" : (std::to_string(w) + "-way conflict").c_str());
            std::printf("   thread row chunk  byte  banks\n");
            for (const Access& x : a)
                std::printf("   %6d %3d %5d %5u  %d-%d\n", x.thread, x.row, x.chunk, x.byte,
                            bank_of(x.byte), bank_of(x.byte + x.bytes - 1));
        }
    }
}

void text_mma() {
    std::printf(
        "== mma.sync m16n8k16 accumulator: lane.register holding D[row][col]\n   row \\ col");
    for (int c = 0; c < 8; ++c) std::printf(" %5d", c);
    std::printf("\n");
    int grid[16][8];
    for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 4; ++reg)
            grid[mma_acc_row(lane, reg)][mma_acc_col(lane, reg)] = lane * 10 + reg;
    for (int r = 0; r < 16; ++r) {
        std::printf("   %3d     ", r);
        for (int c = 0; c < 8; ++c) std::printf(" %3d.%d", grid[r][c] / 10, grid[r][c] % 10);
        std::printf("\n");
    }
}

void text_wgmma() {
    std::printf(
        "== wgmma m64n256k16 accumulator (first 16 of 256 columns): warp:lane.register\n"
        "   (acc[j]: row 16w + l/4 + 8*((j/2)%%2), col 8*(j/4) + 2*(l%%4) + j%%2)\n   row \\ col");
    for (int c = 0; c < 16; ++c) std::printf(" %7d", c);
    std::printf("\n");
    int grid[64][16];
    for (int warp = 0; warp < 4; ++warp)
        for (int lane = 0; lane < 32; ++lane)
            for (int reg = 0; reg < 8; ++reg)
                grid[wgmma_acc_row(warp, lane, reg)][wgmma_acc_col(lane, reg)] =
                    (warp * 32 + lane) * 1000 + reg;
    for (int r = 0; r < 64; ++r) {
        std::printf("   %3d     ", r);
        for (int c = 0; c < 16; ++c) {
            const int t = grid[r][c] / 1000;
            std::printf(" %d:%2d.%-2d", t / 32, t % 32, grid[r][c] % 1000);
        }
        std::printf("\n");
    }
    std::printf(
        "   Epilogue store instruction i (steps 06 and 07) writes registers 2i, 2i+1 of\n"
        "   every lane: 8 rows x 8 columns of a warp's 16 rows per instruction.\n");
}

void text_multicast() {
    std::printf("== step 07 TMA multicast: which CTA loads which rows of the %d-row B box\n",
                kStep07BN);
    for (int cluster : {1, 2, 4}) {
        std::printf("-- cluster of %d:", cluster);
        for (int rank = 0; rank < cluster; ++rank) {
            const int first = b_slice_first_row(rank, kStep07BN, cluster);
            std::printf("  CTA %d loads B rows %d-%d", rank, first,
                        first + b_slice_rows(kStep07BN, cluster) - 1);
        }
        std::printf(
            "\n   each slice lands at the same rows of every CTA's stage; CTA r computes\n"
            "   C rows (cluster_row * %d + r) * %d .. +%d with its own A box\n",
            cluster, kStep07BM, kStep07BM - 1);
    }
}

void text_tiles(const Options& o) {
    const Schedule s = persistent_schedule(o.order, o.m, o.n, kStep07BM, kStep07BN, o.cluster,
                                           o.clusters, kStep07GroupMTiles);
    std::printf(
        "== step 07 persistent tile order (%s): M=%d N=%d, %dx%d tiles (%d x %d), cluster %d,\n"
        "   %d clusters; cell = cluster tile number / wave (whole tiles: the split-K of a last\n"
        "   partial wave, which step 07 chooses from K, is not drawn)\n",
        order_name(o.order), o.m, o.n, kStep07BM, kStep07BN, s.tiles_m, s.tiles_n, o.cluster,
        o.clusters);
    if (s.tiles_m > 64 || s.tiles_n > 32) {
        std::printf("   (%d x %d tiles: too many to print; use --csv)\n", s.tiles_m, s.tiles_n);
        return;
    }
    for (int r = 0; r < s.tiles_m; ++r) {
        std::printf("   ");
        for (int c = 0; c < s.tiles_n; ++c) {
            const ScheduledTile& t = s.tiles[static_cast<size_t>(r) * s.tiles_n + c];
            std::printf(" %4d/%-2d", t.cluster_tile, t.wave);
        }
        std::printf("\n");
    }
}

// ---- CSV -------------------------------------------------------------------------------
FILE* open_csv(const std::string& dir, const char* name, const char* header) {
    const std::string path = dir + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "ladder-layout: cannot write %s\n", path.c_str());
        std::exit(1);
    }
    std::fprintf(f, "%s\n", header);
    return f;
}

void close_csv(FILE* f, const std::string& dir, const char* name) {
    if (std::fclose(f) != 0) {
        std::fprintf(stderr, "ladder-layout: writing %s/%s failed\n", dir.c_str(), name);
        std::exit(1);
    }
}

void write_csv(const Options& o) {
    const std::string& d = o.csv_dir;
    FILE* f = open_csv(d, "swizzle.csv", "swizzle,row,chunk,byte,bank_group");
    for (Swizzle s : kModes)
        for (int row = 0; row < 128; ++row)
            for (int chunk = 0; chunk < 8; ++chunk) {
                const uint32_t byte = tile_offset(row, chunk, 128, s);
                std::fprintf(f, "%s,%d,%d,%u,%d\n", swizzle_name(s), row, chunk, byte,
                             bank_group_of(byte));
            }
    close_csv(f, d, "swizzle.csv");

    f = open_csv(d, "reads.csv", "view,what,swizzle,wavefronts,thread,row,chunk,byte,bytes");
    for (const ReadView& v : kReads)
        for (Swizzle s : {Swizzle::None, Swizzle::B128}) {
            const std::vector<Access> a = v.make(s);
            const int w = wavefronts(a);
            for (const Access& x : a)
                std::fprintf(f, "%s,\"%s\",%s,%d,%d,%d,%d,%u,%d\n", v.name, v.what, swizzle_name(s),
                             w, x.thread, x.row, x.chunk, x.byte, x.bytes);
        }
    close_csv(f, d, "reads.csv");

    f = open_csv(d, "mma_fragment.csv", "lane,reg,row,col");
    for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 4; ++reg)
            std::fprintf(f, "%d,%d,%d,%d\n", lane, reg, mma_acc_row(lane, reg),
                         mma_acc_col(lane, reg));
    close_csv(f, d, "mma_fragment.csv");

    f = open_csv(d, "wgmma_fragment.csv", "warp,lane,reg,row,col");
    for (int warp = 0; warp < 4; ++warp)
        for (int lane = 0; lane < 32; ++lane)
            for (int reg = 0; reg < kWgmmaN / 2; ++reg)
                std::fprintf(f, "%d,%d,%d,%d,%d\n", warp, lane, reg, wgmma_acc_row(warp, lane, reg),
                             wgmma_acc_col(lane, reg));
    close_csv(f, d, "wgmma_fragment.csv");

    f = open_csv(d, "multicast.csv", "cluster,rank,b_first_row,b_rows,box_rows,bm");
    for (int cluster : {1, 2, 4})
        for (int rank = 0; rank < cluster; ++rank)
            std::fprintf(f, "%d,%d,%d,%d,%d,%d\n", cluster, rank,
                         b_slice_first_row(rank, kStep07BN, cluster),
                         b_slice_rows(kStep07BN, cluster), kStep07BN, kStep07BM);
    close_csv(f, d, "multicast.csv");

    f = open_csv(
        d, "tiles.csv",
        "order,m,n,bm,bn,cluster,clusters,tile_row,tile_col,cluster_tile,cluster_id,wave,rank");
    for (TileOrder order : {TileOrder::RowMajor, TileOrder::Grouped}) {
        const Schedule s = persistent_schedule(order, o.m, o.n, kStep07BM, kStep07BN, o.cluster,
                                               o.clusters, kStep07GroupMTiles);
        for (const ScheduledTile& t : s.tiles)
            std::fprintf(f, "%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", order_name(order), o.m, o.n,
                         kStep07BM, kStep07BN, o.cluster, o.clusters, t.tile_row, t.tile_col,
                         t.cluster_tile, t.cluster, t.wave, t.rank);
    }
    close_csv(f, d, "tiles.csv");
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::string error;
    if (!parse(argc, argv, &o, &error)) {
        std::fprintf(stderr, "ladder-layout: %s\n\n%s", error.c_str(), usage().c_str());
        return 2;
    }
    if (!o.csv_dir.empty()) write_csv(o);
    if (o.text) {
        auto want = [&](const char* v) { return o.only.empty() || o.only == v; };
        if (want("swizzle")) text_swizzle();
        if (want("conflicts")) text_conflicts();
        if (want("mma")) text_mma();
        if (want("wgmma")) text_wgmma();
        if (want("multicast")) text_multicast();
        if (want("tiles")) text_tiles(o);
    }
    return 0;
}
