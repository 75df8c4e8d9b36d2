#!/usr/bin/env python3
"""Draws the pipeline timeline CSV of `step-N --timeline FILE` as Gantt charts.

    python3 common/scripts/plot_timeline.py --csv timeline_step04.csv --out results/h100/timeline_step04.png

One PNG per step (and variant), one panel per recorded CTA (the first --ctas of them):
  * the producer lane: a bar per k-block from "load issued" to "load arrived" (the first
    consumer's full-barrier wait returned). Bars that overlap are loads in flight at the
    same time, drawn in sub-rows: one row deep means no overlap, four rows deep a ring of 4.
  * one lane per consumer (a warp in steps 03-04, a warpgroup in 05-07): a bar per k-block
    from "MMA started" to "MMA known complete"; a thin red bar where it waited for data
    (from its previous event to the full barrier passing), a thin grey bar where it waited
    to hand the slot back; the epilogue in purple. White gaps are time nobody recorded work.
The x axis is the CTA's own SM clock (clock64) in microseconds at the CSV's sm_clock_mhz,
or %globaltimer with --clock globaltimer. Measured data only: the CSV comes from the GPU.

With --predicted STEP[:VARIANT]=NS (the k-block time `ladder-plan --step STEP` predicts, in
ns), each panel also counts k-blocks on a right-hand axis: a solid line for the measured
starts of the first consumer's k-blocks, a dashed one for the predicted pace from the same
first k-block, so the slopes compare the two k-block times.
"""
import argparse
import os
import sys
from collections import defaultdict

from bench_csv import need_pyplot, pyplot
from bench_csv import read_rows as read_csv

plt = pyplot()  # files only, no display; None without matplotlib (main() then says so)

NEEDED = ["step", "variant", "device", "m", "n", "k", "sm_clock_mhz", "cta", "sm", "lane",
          "event", "kblock", "t_ns", "cycle"]

COLORS = {
    "load": "#4C72B0",      # producer: a k-block's copy in flight
    "mma": "#DD8452",       # consumer: a k-block's MMAs
    "wait": "#C44E52",      # consumer: waiting for a k-block to arrive
    "release": "#8C8C8C",   # consumer: waiting to hand a slot back
    "epilogue": "#8172B3",  # consumer: writing C
}


def read_rows(path):
    return read_csv(path, "plot_timeline.py", NEEDED,
                    ints=("step", "m", "n", "k", "sm_clock_mhz", "cta", "sm", "kblock", "t_ns", "cycle"))


def lane_order(lane):
    """producer first, then consumer0, consumer1, ..."""
    return (-1, 0) if lane == "producer" else (0, int(lane.replace("consumer", "") or 0))


def lane_label(lane, step):
    if lane == "producer":
        return "producer"
    i = int(lane.replace("consumer", ""))
    return f"warp {i}" if step <= 4 else f"consumer wg {i}"


def pack(intervals):
    """Greedy interval packing: the sub-row of each (start, end), and how many sub-rows."""
    row_ends = []
    rows = []
    for start, end in intervals:
        for i, row_end in enumerate(row_ends):
            if start >= row_end:
                row_ends[i] = end
                rows.append(i)
                break
        else:
            row_ends.append(end)
            rows.append(len(row_ends) - 1)
    return rows, max(1, len(row_ends))


def cta_bars(events, time_of):
    """From one CTA's events: bars per lane as lists of (kind, start, end, kblock)."""
    at = {}  # (lane, event, kblock) -> time
    for e in events:
        at[(e["lane"], e["event"], e["kblock"])] = time_of(e)
    lanes = sorted({e["lane"] for e in events}, key=lane_order)
    consumers = [lane for lane in lanes if lane != "producer"]
    bars = defaultdict(list)

    arrived = defaultdict(list)  # kblock -> arrival times seen by the consumers
    for (lane, event, kb), t in at.items():
        if event == "load_arrive":
            arrived[kb].append(t)
    for (lane, event, kb), t in sorted(at.items(), key=lambda item: item[1]):
        if lane == "producer" and event == "load_issue" and arrived.get(kb):
            bars["producer"].append(("load", t, min(arrived[kb]), kb))

    for lane in consumers:
        mine = sorted(((t, event, kb) for (ln, event, kb), t in at.items() if ln == lane))
        previous = None  # time of this consumer's previous event
        for t, event, kb in mine:
            if event == "load_arrive" and previous is not None and t > previous:
                bars[lane].append(("wait", previous, t, kb))
            elif event == "mma_start" and (lane, "mma_end", kb) in at:
                bars[lane].append(("mma", t, at[(lane, "mma_end", kb)], kb))
            elif event == "release" and (lane, "mma_end", kb) in at:
                end_of_mma = at[(lane, "mma_end", kb)]
                if t > end_of_mma:
                    bars[lane].append(("release", end_of_mma, t, kb))
            elif event == "epilogue_start" and (lane, "epilogue_end", kb) in at:
                # kblock -1, or (a persistent kernel) one number per tile
                bars[lane].append(("epilogue", t, at[(lane, "epilogue_end", kb)], kb))
            previous = t
    return lanes, bars


def kblock_lines(ax, events, time_of, predicted_ns, tmax):
    """The measured and predicted k-block count over time, on a right-hand axis."""
    first = min((e["lane"] for e in events if e["lane"] != "producer"), key=lane_order, default=None)
    starts = sorted(time_of(e) for e in events if e["lane"] == first and e["event"] == "mma_start")
    if len(starts) < 2:
        return None
    twin = ax.twinx()
    count = list(range(1, len(starts) + 1))
    twin.plot(starts, count, color="black", linewidth=1.0)
    step_us = predicted_ns / 1000.0
    twin.plot([starts[0] + i * step_us for i in range(len(starts))], count, color="black",
              linewidth=1.0, linestyle="--")
    measured_us = (starts[-1] - starts[0]) / (len(starts) - 1)
    twin.set_ylabel("k-blocks", fontsize=8)
    twin.tick_params(labelsize=7)
    if tmax:
        twin.set_xlim(0, tmax)
    return measured_us


def draw_cta(ax, events, time_of, step, tmax):
    lanes, bars = cta_bars(events, time_of)
    span = max((end for lane in bars for _, _, end, _ in bars[lane]), default=1.0)
    if tmax:
        span = min(span, tmax)
    yticks, ylabels = [], []
    for y, lane in enumerate(lanes):
        lane_bars = bars[lane]
        thick = [b for b in lane_bars if b[0] in ("load", "mma", "epilogue")]
        thin = [b for b in lane_bars if b[0] in ("wait", "release")]
        rows, n_rows = pack([(start, end) for _, start, end, _ in thick])
        height = 0.8 / n_rows
        for (kind, start, end, kb), row in zip(thick, rows):
            bottom = y - 0.4 + row * height
            ax.barh(bottom, end - start, left=start, height=height * 0.9, align="edge",
                    color=COLORS[kind], alpha=0.6 if kb % 2 else 0.85,
                    edgecolor="white", linewidth=0.4)
            if kind != "epilogue" and (end - start) > 0.02 * span and height > 0.15:
                ax.text((start + end) / 2, bottom + height * 0.45, str(kb), ha="center",
                        va="center", fontsize=6, color="white")
        for kind, start, end, kb in thin:
            ax.barh(y, end - start, left=start, height=0.12, color=COLORS[kind], alpha=0.9)
        yticks.append(y)
        ylabels.append(lane_label(lane, step))
    ax.set_yticks(yticks)
    ax.set_yticklabels(ylabels, fontsize=8)
    ax.set_ylim(len(lanes) - 0.5, -0.5)  # producer on top
    if tmax:
        ax.set_xlim(0, tmax)
    ax.grid(axis="x", alpha=0.3)


def plot_group(rows, out_path, ctas, clock, tmax, predicted_ns=0):
    first = rows[0]
    step, variant, device = first["step"], first["variant"], first["device"]
    mhz = first["sm_clock_mhz"]
    use_cycles = clock == "cycles" and mhz > 0
    by_cta = defaultdict(list)
    for r in rows:
        by_cta[r["cta"]].append(r)
    chosen = sorted(by_cta)[:ctas]

    lanes = [len({e["lane"] for e in by_cta[cta]}) for cta in chosen]
    fig, axes = plt.subplots(len(chosen), 1, figsize=(14, 1.2 + sum(0.8 + 0.4 * n for n in lanes)),
                             sharex=True, squeeze=False, height_ratios=[0.8 + 0.4 * n for n in lanes])
    for ax, cta in zip(axes[:, 0], chosen):
        events = by_cta[cta]
        if use_cycles:
            start = min(e["cycle"] for e in events)
            time_of = lambda e, s=start: (e["cycle"] - s) / mhz  # noqa: E731  cycles / MHz = us
        else:
            start = min(e["t_ns"] for e in events)
            time_of = lambda e, s=start: (e["t_ns"] - s) / 1000.0  # noqa: E731
        draw_cta(ax, events, time_of, step, tmax)
        title = f"CTA {cta} on SM {events[0]['sm']}"
        if predicted_ns > 0:
            measured_us = kblock_lines(ax, events, time_of, predicted_ns, tmax)
            if measured_us:
                title += (f": k-block measured {measured_us * 1000:.0f} ns (solid), "
                          f"predicted {predicted_ns:.0f} ns (dashed)")
        ax.set_title(title, fontsize=9, loc="left")
    ruler = f"clock64 at {mhz} MHz" if use_cycles else "%globaltimer"
    axes[-1, 0].set_xlabel(f"microseconds since the CTA's first event ({ruler})")
    name = f"step {step:02d}" + (f" ({variant})" if variant else "")
    fig.suptitle(f"Pipeline timeline, {name} on {device}: "
                 f"{first['m']}x{first['n']}x{first['k']}", fontsize=11)
    from matplotlib.patches import Patch

    legend = [Patch(color=COLORS["load"], label="load in flight (issue -> arrival)"),
              Patch(color=COLORS["mma"], label="MMAs of a k-block (start -> complete)"),
              Patch(color=COLORS["wait"], label="consumer waits for data"),
              Patch(color=COLORS["release"], label="consumer waits to release the slot"),
              Patch(color=COLORS["epilogue"], label="epilogue (write C)")]
    fig.legend(handles=legend, loc="upper center", ncol=5, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.96))
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(out_path, dpi=120)
    plt.close(fig)
    print(f"wrote {out_path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", required=True, nargs="+", help="CSV file(s) from step-N --timeline")
    parser.add_argument("--out", required=True,
                        help="a .png path (one step in the CSV) or a directory "
                             "(writes timeline_stepNN[_variant].png per step)")
    parser.add_argument("--ctas", type=int, default=2, help="panels: the first N CTAs (default 2)")
    parser.add_argument("--clock", choices=["cycles", "globaltimer"], default="cycles",
                        help="time axis: the SM's clock64 (default) or %%globaltimer")
    parser.add_argument("--tmax-us", type=float, default=0,
                        help="show only the first T microseconds (0: everything)")
    parser.add_argument("--predicted", nargs="+", default=[], metavar="STEP[:VARIANT]=NS",
                        help="the predicted k-block time of a step (ladder-plan --step STEP), "
                             "drawn next to the measured one")
    args = parser.parse_args()
    predicted = {}
    for item in args.predicted:
        key, _, value = item.partition("=")
        step_text, _, variant = key.partition(":")
        try:
            predicted[(int(step_text), variant)] = float(value)
        except ValueError:
            sys.exit(f"plot_timeline.py: --predicted '{item}': expected STEP[:VARIANT]=NS, e.g. 6=721")
        if not predicted[(int(step_text), variant)] > 0:
            sys.exit(f"plot_timeline.py: --predicted '{item}': the time must be positive")

    rows = [r for path in args.csv for r in read_rows(path)]
    groups = defaultdict(list)
    for r in rows:
        groups[(r["step"], r["variant"])].append(r)

    single_file = args.out.lower().endswith(".png")
    if single_file and len(groups) > 1:
        sys.exit("plot_timeline.py: the CSV has several steps; give --out a directory")
    need_pyplot(plt, "plot_timeline.py")
    if not single_file:
        os.makedirs(args.out, exist_ok=True)
    for (step, variant), group in sorted(groups.items()):
        if single_file:
            path = args.out
        else:
            suffix = f"_{variant}" if variant else ""
            path = os.path.join(args.out, f"timeline_step{step:02d}{suffix}.png")
        plot_group(group, path, max(1, args.ctas), args.clock, args.tmax_us,
                   predicted.get((step, variant), 0))


if __name__ == "__main__":
    main()
