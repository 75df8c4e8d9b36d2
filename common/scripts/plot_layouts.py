#!/usr/bin/env python3
"""plot_layouts.py: the pictures of the kernels' layouts, drawn from ladder-layout's data.

    python3 common/scripts/plot_layouts.py --tool build/ladder-layout --out results/layouts
    python3 common/scripts/plot_layouts.py --data DIR --out DIR     (CSVs from ladder-layout --csv DIR)

Every number drawn (offsets, bank groups, wavefronts, fragment maps, tile order) comes from
ladder-layout, which computes it with the kernels' own functions (common/kernel/layout.h); this
script only places and colours it. Writes swizzle.png, ldmatrix_conflicts.png,
wgmma_conflicts.png, epilogue_conflicts.png, mma_fragment.png, wgmma_fragment.png,
multicast.png and tile_order.png.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from bench_csv import need_pyplot, pyplot, read_rows

TOOL = "plot_layouts.py"
plt = pyplot()  # files only, no display; None without matplotlib (main() then says so)
GROUP_COLOURS = plt.get_cmap("Set2").colors + plt.get_cmap("Dark2").colors if plt else ()

def cell(ax, x, y, colour, text="", size=7, text_colour="black", edge="white"):
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colour, edgecolor=edge, linewidth=0.6))
    if text:
        ax.text(x + 0.5, y + 0.5, text, ha="center", va="center", fontsize=size, color=text_colour)


def grid_axes(ax, cols, rows, xlabel, ylabel, xticks=None, yticks=None):
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    xt = xticks if xticks is not None else range(cols)
    yt = yticks if yticks is not None else range(rows)
    ax.set_xticks([t + 0.5 for t in xt])
    ax.set_xticklabels([str(t) for t in xt], fontsize=7)
    ax.set_yticks([t + 0.5 for t in yt])
    ax.set_yticklabels([str(t) for t in yt], fontsize=7)
    ax.tick_params(length=0)


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}")


# ---- swizzle ---------------------------------------------------------------------------
SWIZZLE_TITLES = {
    "none": "no swizzle: chunk c of every row\non bank group c",
    "32B": "32B swizzle (four boxes of\n128 rows x 16 bf16)",
    "64B": "64B swizzle (two boxes of\n128 rows x 32 bf16)",
    "128B": "128B swizzle (steps 02-07):\nchunk c of row r at c ^ (r % 8)",
}


def plot_swizzle(data, out):
    rows = read_rows(os.path.join(data, "swizzle.csv"), TOOL, ["swizzle", "row", "chunk", "bank_group"],
                     ints=("row", "chunk", "bank_group"))
    modes = ["none", "32B", "64B", "128B"]
    shown = 16
    fig, axes = plt.subplots(1, 4, figsize=(15, 6.2))
    for ax, mode in zip(axes, modes):
        for r in rows:
            if r["swizzle"] == mode and r["row"] < shown:
                g = r["bank_group"]
                cell(ax, r["chunk"], r["row"], GROUP_COLOURS[g], str(g), size=8)
        grid_axes(ax, 8, shown, "16-byte chunk c (k = 8c .. 8c+7)", "row of the tile")
        ax.set_title(SWIZZLE_TITLES[mode], fontsize=10)
    fig.suptitle("K-major 128x64 bf16 tile in shared memory, first 16 rows: the number and colour of "
                 "each chunk is its bank group (banks 4g .. 4g+3)\nA column of one colour is a chunk "
                 "that 8 rows keep on the same 4 banks: reading it down 8 rows is an 8-way conflict",
                 fontsize=11, y=1.06)
    save(fig, out, "swizzle.png")


# ---- who reads what in one cycle --------------------------------------------------------
def plot_reads(data, out, view, name, tile_rows, tile_title, who="lane"):
    rows = read_rows(os.path.join(data, "reads.csv"), TOOL,
                     ["view", "what", "swizzle", "wavefronts", "thread", "row", "chunk", "byte", "bytes"],
                     ints=("wavefronts", "thread", "row", "chunk", "byte", "bytes"))
    rows = [r for r in rows if r["view"] == view]
    if not rows:
        sys.exit(f"{TOOL}: reads.csv has no rows for {view}")
    fig, axes = plt.subplots(2, 2, figsize=(15, 8.5), gridspec_kw={"width_ratios": [1, 3.2]})
    threads = sorted({r["thread"] for r in rows})
    colour = {t: plt.get_cmap("tab20")(i % 20) for i, t in enumerate(threads)}
    for line, mode in enumerate(["none", "128B"]):
        acc = [r for r in rows if r["swizzle"] == mode]
        waves = acc[0]["wavefronts"]
        # Left: where the accessed chunks sit in shared memory, 128 bytes (all 32 banks) a line.
        ax = axes[line][0]
        for rr in range(tile_rows):
            for c in range(8):
                cell(ax, c, rr, "#eeeeee")
        for r in acc:
            # 4-byte accesses: four lanes share a chunk; label it once, with its first lane.
            if r["bytes"] == 16 or r["byte"] % 16 == 0:
                cell(ax, r["byte"] % 128 // 16, r["byte"] // 128, colour[r["thread"]],
                         f"{r['thread']}\nr{r['row']}c{r['chunk']}", size=5.5)
        grid_axes(ax, 8, tile_rows, "16 bytes = banks 4g .. 4g+3", "128-byte line")
        ax.set_title(f"{tile_title}\n({who}; row r, chunk c of the tile)", fontsize=9)
        # Right: the banks they hit; words stacked when one bank must deliver several.
        ax = axes[line][1]
        stack = {}
        for r in acc:
            for word in range(r["byte"] // 4, (r["byte"] + r["bytes"]) // 4):
                bank = word % 32
                level = stack.setdefault(bank, [])
                if word not in level:
                    level.append(word)
                cell(ax, bank, level.index(word), colour[r["thread"]], str(r["thread"]), size=6)
        grid_axes(ax, 32, max(8, waves), "bank", "wavefront")
        verdict = "conflict-free" if waves == 1 else f"{waves}-way bank conflict"
        ax.set_title(f"swizzle {mode}: {waves} wavefront{'s' if waves > 1 else ''} ({verdict})",
                     fontsize=11, color="darkred" if waves > 1 else "darkgreen")
    fig.suptitle(f"{rows[0]['what']}: who touches what in one cycle (numbers: {who})", fontsize=12)
    fig.subplots_adjust(hspace=0.35)
    save(fig, out, name)


# ---- fragments --------------------------------------------------------------------------
def lane_colour(lane):
    return plt.get_cmap("tab20")(lane % 20) if lane < 20 else plt.get_cmap("tab20b")(lane - 20)


def plot_mma_fragment(data, out):
    rows = read_rows(os.path.join(data, "mma_fragment.csv"), TOOL, ["lane", "reg", "row", "col"],
                     ints=("lane", "reg", "row", "col"))
    fig, ax = plt.subplots(figsize=(7, 11))
    for r in rows:
        cell(ax, r["col"], r["row"], lane_colour(r["lane"]), f"T{r['lane']}\nd{r['reg']}", size=8)
    grid_axes(ax, 8, 16, "column n of the 16x8 D tile", "row m")
    ax.set_title("mma.sync m16n8k16 accumulator: thread T (lane) and register d\n"
                 "d0, d1 at row lane/4, columns 2(lane%4), +1; d2, d3 eight rows lower\n"
                 "step 02's epilogue stores each (d0,d1) and (d2,d3) pair as one bf16x2", fontsize=10)
    save(fig, out, "mma_fragment.png")


def plot_wgmma_fragment(data, out):
    rows = read_rows(os.path.join(data, "wgmma_fragment.csv"), TOOL, ["warp", "lane", "reg", "row", "col"],
                     ints=("warp", "lane", "reg", "row", "col"))
    cols = 16
    fig, axes = plt.subplots(1, 2, figsize=(16, 17), gridspec_kw={"width_ratios": [1, 1.6]})
    ax = axes[0]
    for r in rows:
        if r["col"] < cols:
            colour = plt.get_cmap("Pastel1")(r["warp"]) if r["lane"] % 2 else plt.get_cmap("Set1")(r["warp"])
            cell(ax, r["col"], r["row"], colour, f"{r['lane']}\n{r['reg']}", size=5.5)
    grid_axes(ax, cols, 64, f"column n (first {cols} of 256)", "row m", yticks=range(0, 64, 4))
    ax.set_title("wgmma m64n256k16 accumulator: lane (top) and register acc[j] (bottom)\n"
                 "colour = warp of the warpgroup (rows 16w .. 16w+15)", fontsize=10)
    ax = axes[1]
    stores = plt.get_cmap("viridis")
    cols = 32
    for r in rows:
        if r["warp"] == 0 and r["col"] < cols:
            i = r["reg"] // 2
            cell(ax, r["col"], r["row"], stores(i / 15), str(i), size=6,
                 text_colour="white" if i < 8 else "black")
    grid_axes(ax, cols, 16, "column n (first 32 of 256)", "row m (warp 0)", xticks=range(0, cols, 4))
    ax.set_title("the epilogue's stores (steps 05-07), warp 0: store instruction i writes\n"
                 "acc[2i], acc[2i+1] of all 32 lanes = 8 rows x 8 columns (one 16-byte chunk\n"
                 "of 8 rows); i runs down then right, 128 registers = 64 stores per thread", fontsize=10)
    save(fig, out, "wgmma_fragment.png")


# ---- step 07: multicast and the tile order ------------------------------------------------
def plot_multicast(data, out):
    from matplotlib.patches import Rectangle

    rows = read_rows(os.path.join(data, "multicast.csv"), TOOL,
                     ["cluster", "rank", "b_first_row", "b_rows", "box_rows", "bm"],
                     ints=("cluster", "rank", "b_first_row", "b_rows", "box_rows", "bm"))
    sizes = sorted({r["cluster"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(18, 6.5), gridspec_kw={"width_ratios": sizes})
    for ax, size in zip(axes, sizes):
        slices = [r for r in rows if r["cluster"] == size]
        box, bm = slices[0]["box_rows"], slices[0]["bm"]
        for cta in range(size):
            x = cta * 3
            ax.add_patch(Rectangle((x, 0), 1, bm, facecolor=lane_colour(2 * cta + 1), edgecolor="black"))
            ax.text(x + 0.5, bm / 2, f"A\nrows\n{bm * cta}..\n+{bm - 1}", ha="center", va="center", fontsize=7)
            for s in slices:
                ax.add_patch(Rectangle((x + 1.2, s["b_first_row"]), 1, s["b_rows"],
                                       facecolor=lane_colour(2 * s["rank"]), edgecolor="black"))
                ax.text(x + 1.7, s["b_first_row"] + s["b_rows"] / 2,
                        f"B {s['b_first_row']}..{s['b_first_row'] + s['b_rows'] - 1}\nfrom\nCTA {s['rank']}",
                        ha="center", va="center", fontsize=6.5)
            ax.text(x + 1.1, -12, f"CTA {cta}", ha="center", fontsize=9, weight="bold")
        ax.set_xlim(-0.3, 3 * size - 0.7)
        ax.set_ylim(box + 5, -25)
        ax.set_xticks([])
        ax.set_ylabel("row of the stage")
        ax.set_title(f"cluster of {size}: each CTA loads {box // size} of the {box} B rows\n"
                     f"and multicasts them into every CTA's stage" if size > 1 else
                     "no cluster: the CTA loads all of B itself", fontsize=10)
    fig.suptitle("Step 07, one stage of each CTA of a cluster: its own A box (rows of C it computes,\n"
                 "relative to the cluster's first row) and the B box, coloured by the CTA whose TMA loaded it",
                 fontsize=11, y=1.06)
    save(fig, out, "multicast.png")


def plot_tile_order(data, out):
    rows = read_rows(os.path.join(data, "tiles.csv"), TOOL,
                     ["order", "m", "n", "bm", "bn", "cluster", "clusters", "tile_row", "tile_col",
                      "cluster_tile", "cluster_id", "wave", "rank"],
                     ints=("m", "n", "bm", "bn", "cluster", "clusters", "tile_row", "tile_col",
                           "cluster_tile", "cluster_id", "wave", "rank"))
    first = rows[0]
    tiles_m = max(r["tile_row"] for r in rows) + 1
    tiles_n = max(r["tile_col"] for r in rows) + 1
    orders = [o for o in ("row", "grouped") if any(r["order"] == o for r in rows)]
    waves = max(r["wave"] for r in rows) + 1
    fig, axes = plt.subplots(1, len(orders), figsize=(7.5 * len(orders), 0.32 * tiles_m + 3))
    if len(orders) == 1:
        axes = [axes]
    cmap = plt.get_cmap("tab10")
    for ax, order in zip(axes, orders):
        for r in rows:
            if r["order"] != order:
                continue
            shade = 0.55 if r["cluster_id"] == 0 else 1.0
            c = cmap(r["wave"] % 10)
            colour = tuple(min(1.0, v * shade) for v in c[:3])
            label = str(r["cluster_tile"]) if tiles_m * tiles_n <= 1024 else ""
            cell(ax, r["tile_col"], r["tile_row"], colour, label, size=5.5, edge="white")
        grid_axes(ax, tiles_n, tiles_m, f"tile column ({first['bn']} columns of C)",
                  f"tile row ({first['bm']} rows of C)", xticks=range(0, tiles_n, 2), yticks=range(0, tiles_m, 2))
        ax.set_title(f"{'row by row' if order == 'row' else 'grouped (step 07)'}", fontsize=11)
    fig.suptitle(f"Step 07's persistent schedule, M={first['m']} N={first['n']}: cluster tile numbers, "
                 f"colour = wave ({waves} waves of {first['clusters']} clusters of {first['cluster']}; whole tiles);\n"
                 f"darker = the tiles of cluster 0. A wave's tiles need the A rows and B columns they cover: "
                 f"grouped, they form a block", fontsize=11)
    save(fig, out, "tile_order.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--tool", help="the ladder-layout executable (run with --csv into a temporary folder)")
    src.add_argument("--data", help="a folder with ladder-layout --csv output")
    ap.add_argument("--out", required=True, help="folder for the PNGs")
    ap.add_argument("tool_args", nargs="*", help="extra ladder-layout arguments (after --), e.g. --m 8192")
    args = ap.parse_args()
    if args.data and not os.path.isdir(args.data):
        sys.exit(f"{TOOL}: --data {args.data} is not a folder (ladder-layout --csv DIR writes one)")
    if args.tool and shutil.which(args.tool) is None:
        sys.exit(f"{TOOL}: --tool {args.tool} is not an executable (build it: cmake --build build "
                 "--target ladder-layout)")
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data
        if args.tool:
            run = subprocess.run([args.tool, "--csv", tmp] + args.tool_args, capture_output=True, text=True)
            if run.returncode != 0:
                why = (run.stderr.strip().splitlines() or ["no message"])[0]
                sys.exit(f"{TOOL}: {args.tool} exited {run.returncode}: {why}")
            data = tmp
        need_pyplot(plt, TOOL)
        os.makedirs(args.out, exist_ok=True)
        plot_swizzle(data, args.out)
        plot_reads(data, args.out, "ldmatrix_a", "ldmatrix_conflicts.png", 16, "the A tile in shared memory")
        plot_reads(data, args.out, "wgmma_a", "wgmma_conflicts.png", 16, "the A slice in shared memory",
                   who="row of the core matrix")
        plot_reads(data, args.out, "epilogue_store", "epilogue_conflicts.png", 16, "the C box in shared memory")
        plot_mma_fragment(data, args.out)
        plot_wgmma_fragment(data, args.out)
        plot_multicast(data, args.out)
        plot_tile_order(data, args.out)


if __name__ == "__main__":
    main()
