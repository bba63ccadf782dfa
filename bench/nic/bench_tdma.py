#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TDMA benchmark: how far after a slot closes the last byte of that slot's traffic leaves the MAC.

Harness bench/nic/beryl_nic_tdma_bench_tb.sv (Verilator, 250 MHz, 4 ns per clock, 512-bit stream):
beryl_ptp_clock -> beryl_ptp_tdma_timer (period 200 us, two slots of 100 us, starting 20 us after a ToD
of 1000.99999 s, so the schedule also crosses a second boundary) -> beryl_nic_sched_tdma -> a TX engine
model with the defaults of beryl_nic_tx_engine (4 commands taken, up to 8 frames per command, 32 packet
slots between walk and MAC, 1-3 us DMA delay from walk to stream) -> beryl_nic_tx_gate -> a wire model
at 100G (0.08 ns/byte) or 10G (0.8 ns/byte): a byte leaves no earlier than 20 ns (MAC latency) after
its beat is taken, a beat is taken while less than 20 ns + 128 bytes of wire time are queued (preamble 8,
padding to 60, FCS 4, IFG 12). Queue set A (4 queues, mask slot 0) and set B (4 queues, slot 1), continuous backlog,
frame sizes (with FCS) uniform in 64..1518 or 64..9000.

For every slot occurrence after the first period: the frames of the slot's queue set released by the
gate between this opening of the slot and its next opening; lateness = last byte of them on the wire -
slot close (negative: before the edge). Utilisation = wire time (frame + 24 bytes) of the set's frames
inside the slot / slot length; intrusion = the same for the other set's frames inside this slot.

Configurations (table): the reference design's behaviour (queues closed at the slot edge, no gate: what
is in the datapath spills); a guard sized like the reference design's accounting of the datapath drain
(here: the longest DMA delay, 3 us, + 32 packet slots x (mean frame + 20 bytes) x ns/byte) without the
gate; guard and gate, frames that do not fit waiting (parked, 16 KiB) for a slot of their own queue's mask
or for the next slot; the gate without a guard. Sweep (second table and plot): guard 0..2 x that value,
without and with the gate (own slot).

  bench_tdma.py [--quick] [--periods N] [--no-sweep]
Prints a table; writes build/bench/tdma.json and .png (and docs/figures/tdma.json/.png for the full run).
"""
import argparse
import json
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tb" / "common"))
sys.path.insert(0, str(REPO / "tb" / "nic"))
from tdma_ref import nspb_fx  # noqa: E402

PERIOD_NS = 200_000
SLOT_NS = 100_000
TOD = (1000, 999_990_000)
START = (1001, 10_000)              # TOD + 20 us
SET_A = [0, 1, 2, 3]                # mask slot 0
SET_B = [4, 5, 6, 7]                # mask slot 1
PKT_SLOTS = 32
SPEEDS = {"100G": 0.08, "10G": 0.8}
BUF_BYTES = 128
LAT_NS = 20
PAPER_NS = {"100G": 1400, "10G": 2400}      # Corundum, two frame times (9000 B at 100G, 1500 B at 10G)

DMA_MIN, DMA_SPAN = 250, 500        # clocks: 1..3 us
PARK_S, PARK_L = 256, 2048         # gate park buffer, beats of 64 B: 16 KiB (default), 128 KiB
PARK_FRAMES = {PARK_S: 32, PARK_L: 64}
MODES = [  # name, guard (x the rule), gate, hold_own, park beats
    ("reference: no guard, no gate", 0, 0, 0, PARK_S),
    ("guard, no gate", 1, 0, 0, PARK_S),
    ("guard + gate, own slot", 1, 1, 1, PARK_S),
    ("guard + gate, next slot", 1, 1, 0, PARK_S),
    ("gate, own slot, no guard", 0, 1, 1, PARK_S),
    ("guard + gate, own, park 128K", 1, 1, 1, PARK_L),
    ("gate, own, park 128K, no guard", 0, 1, 1, PARK_L),
]
SWEEP = [0.25, 0.5, 0.75, 1.25, 1.5, 2.0]     # guard x the rule (0 and 1 are in the table)
SHORT = {MODES[0][0]: "reference", MODES[1][0]: "guard", MODES[2][0]: "guard+gate own",
         MODES[3][0]: "guard+gate next", MODES[4][0]: "gate own", MODES[5][0]: "guard+gate own 128K",
         MODES[6][0]: "gate own 128K"}
COMBOS = [("100G", 64, 1518), ("100G", 64, 9000), ("10G", 64, 1518)]


def guard_ns(speed, smin, smax):
    """The datapath drain, accounted like the reference design: longest DMA delay + the packet slots' worth of
    mean-size frames at the line rate (rounded up to 0.1 us)."""
    dma = (DMA_MIN + DMA_SPAN) * 4
    return math.ceil((dma + PKT_SLOTS * ((smin + smax) / 2 + 20) * SPEEDS[speed]) / 100) * 100


def margin_ns(speed):
    # timer outputs lag the ToD by 2 clocks (8 ns); when the gate releases a first beat, the wire model may
    # still hold the MAC latency plus its buffer (128 bytes) plus the end of the previous frame's last beat,
    # FCS and gap (88 bytes); one more clock for the decision being made before the beat is taken
    nspb = SPEEDS[speed]
    return math.ceil(8 + LAT_NS + (BUF_BYTES + 88) * nspb + 4)


def make_runs(quick, periods, sweep):
    combos = [COMBOS[0], COMBOS[2]] if quick else COMBOS
    modes = [m + (False,) for m in (MODES[:3] if quick else MODES)]
    if sweep:
        for f in SWEEP:
            modes += [(f"sweep: guard x{f}, no gate", f, 0, 0, PARK_S, True),
                      (f"sweep: guard x{f}, gate", f, 1, 1, PARK_S, True),
                      (f"sweep: guard x{f}, gate, park 128K", f, 1, 1, PARK_L, True)]
    runs = []
    for speed, smin, smax in combos:
        g = guard_ns(speed, smin, smax)
        for name, gf, gate, own, park, sw in modes:
            runs.append({
                "name": name, "speed": speed, "size_min": smin, "size_max": smax, "sweep": sw, "guard_x": gf,
                "park_beats": park,
                "guard_ns": round(g * gf), "gate": gate, "hold_own": own,
                "nspb": nspb_fx(SPEEDS[speed]), "overhead": 24, "margin_ns": margin_ns(speed),
                "ps_per_byte": round(SPEEDS[speed] * 1000), "buf_ps": round(BUF_BYTES * SPEEDS[speed] * 1000),
                "lat_ps": LAT_NS * 1000, "dma_min": DMA_MIN, "dma_span": DMA_SPAN, "seed": 12345 + len(runs),
                "tod": TOD, "start": START, "period_ns": PERIOD_NS, "slot_ns": SLOT_NS,
                "masks": [(q, 1) for q in SET_A] + [(q, 2) for q in SET_B],
                "run_ns": 20_000 + (periods + 1) * PERIOD_NS + 5_000, "periods": periods,
            })
    return runs


def simulate(runs, work):
    """Run every configuration; one build (and one simulation) per park buffer size."""
    import beryl_sim
    counters, frames = [None] * len(runs), [None] * len(runs)
    for park in sorted({r["park_beats"] for r in runs}):
        idx = [i for i, r in enumerate(runs) if r["park_beats"] == park]
        sub = [runs[i] for i in idx]
        wd = work / f"park{park}"
        wd.mkdir(parents=True, exist_ok=True)
        out = wd / "counters.json"
        out.unlink(missing_ok=True)
        (wd / "tdma_frames.log").unlink(missing_ok=True)
        beryl_sim.run("beryl_nic_tdma_bench_tb", "bench/nic/beryl_nic_tdma_bench_tb.f", "cocotb_bench_tdma", wd,
                      parameters={"QI_W": 4, "PKT_SLOTS": PKT_SLOTS, "PARK_BEATS": park,
                                  "PARK_FRAMES": PARK_FRAMES[park]},
                      extra_env={"BENCH_CFG": json.dumps({"runs": sub, "out": str(out)}), "PYTHONPATH": str(HERE)},
                      log_file=str(wd / "sim.log"))
        cnt = json.loads(out.read_text())
        fr = [[] for _ in sub]
        for line in (wd / "tdma_frames.log").read_text().split("\n"):
            if line:
                rid, q, n, rel, start, end = (int(x) for x in line.split())
                fr[rid].append((q, n, rel, start, end))
        for j, i in enumerate(idx):
            counters[i], frames[i] = cnt[j], fr[j]
    return counters, frames


def overlap(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


def analyse(run, frames):
    ppb = run["ps_per_byte"]
    s_ps = (run["start"][0] * 10**9 + run["start"][1]) * 1000
    p_ps, l_ps = run["period_ns"] * 1000, run["slot_ns"] * 1000
    sets = {0: set(SET_A), 1: set(SET_B)}
    edges = []
    for k in range(1, run["periods"] + 1):
        for s in (0, 1):
            op = s_ps + k * p_ps + s * l_ps
            cl = op + l_ps
            mine = [f for f in frames if f[0] in sets[s] and op <= f[2] < op + p_ps]
            if not mine:
                edges.append({"k": k, "slot": s, "late_ns": None, "util": 0.0, "intrusion": 0.0, "frames": 0})
                continue
            late = (max(f[4] for f in mine) - cl) / 1000
            util = sum(overlap(f[3], f[4] + 12 * ppb, op, cl) for f in frames if f[0] in sets[s]) / l_ps
            intr = sum(overlap(f[3], f[4] + 12 * ppb, op, cl) for f in frames if f[0] in sets[1 - s]) / l_ps
            after = sum(1 for f in mine if f[4] > cl)
            edges.append({"k": k, "slot": s, "late_ns": late, "util": util, "intrusion": intr, "frames": len(mine),
                          "frames_after_close": after})
    lates = [e["late_ns"] for e in edges if e["late_ns"] is not None]
    ft_ns = (run["size_max"] + 20) * run["ps_per_byte"] / 1000
    return {
        "edges": edges,
        "late_max_ns": max(lates) if lates else None,
        "late_mean_ns": sum(lates) / len(lates) if lates else None,
        "late_max_frames": max(lates) / ft_ns if lates else None,
        "frame_time_ns": ft_ns,
        "util_mean": sum(e["util"] for e in edges) / len(edges),
        "intrusion_mean": sum(e["intrusion"] for e in edges) / len(edges),
        "frames_after_close": sum(e.get("frames_after_close", 0) for e in edges),
        "edges_without_traffic": sum(1 for e in edges if e["late_ns"] is None),
    }


def table(rows):
    hdr = (f"{'speed':>5} {'frames B':>8} {'configuration':<30} {'guard us':>8} {'late max ns':>11} "
           f"{'(frames)':>8} {'late mean ns':>12} {'util %':>6} {'intr %':>6} {'holds':>6} {'parked':>6} "
           f"{'overrun':>7}")
    lines = [hdr, "-" * len(hdr)]
    for r in rows:
        a = r["result"]
        lm = f"{a['late_max_ns']:.0f}" if a["late_max_ns"] is not None else "-"
        lf = f"{a['late_max_frames']:+.2f}" if a["late_max_frames"] is not None else "-"
        la = f"{a['late_mean_ns']:.0f}" if a["late_mean_ns"] is not None else "-"
        lines.append(f"{r['speed']:>5} {str(r['size_min']) + '-' + str(r['size_max']):>8} {r['name']:<30} "
                     f"{r['guard_ns'] / 1000:>8.1f} {lm:>11} {lf:>8} {la:>12} {100 * a['util_mean']:>6.1f} "
                     f"{100 * a['intrusion_mean']:>6.2f} {r['counters']['hold_count']:>6} "
                     f"{r['counters']['park_count']:>6} {r['counters']['overrun_count']:>7}")
    return "\n".join(lines)


def sweep_table(rows):
    hdr = (f"{'speed':>5} {'frames B':>8} {'guard us':>8} | {'no gate: late max ns':>20} {'util %':>6} | "
           f"{'gate 16K: late max':>17} {'util %':>6} {'parked':>6} | {'gate 128K: late max':>17} {'util %':>6} "
           f"{'parked':>6}")
    lines = [hdr, "-" * len(hdr)]
    keys = []
    for r in rows:
        k = (r["speed"], r["size_min"], r["size_max"], r["guard_ns"])
        if k not in keys and (r["sweep"] or r["name"] in (MODES[0][0], MODES[1][0])):
            keys.append(k)
    for k in sorted(keys, key=lambda k: (COMBOS.index(k[:3]), k[3])):
        rs = [r for r in rows if (r["speed"], r["size_min"], r["size_max"], r["guard_ns"]) == k]
        off = [r for r in rs if not r["gate"]]
        on = [r for r in rs if r["gate"] and r["hold_own"] and r["park_beats"] == PARK_S]
        big = [r for r in rs if r["gate"] and r["hold_own"] and r["park_beats"] == PARK_L]
        if not off or not on:
            continue
        a, b = off[0]["result"], on[0]["result"]
        c = big[0]["result"] if big else None
        fmt = lambda v: f"{v:.0f}" if v is not None else "-"  # noqa: E731
        lines.append(f"{k[0]:>5} {str(k[1]) + '-' + str(k[2]):>8} {k[3] / 1000:>8.1f} | {fmt(a['late_max_ns']):>20} "
                     f"{100 * a['util_mean']:>6.1f} | {fmt(b['late_max_ns']):>17} {100 * b['util_mean']:>6.1f} "
                     f"{on[0]['counters']['park_count']:>6} | "
                     + (f"{fmt(c['late_max_ns']):>17} {100 * c['util_mean']:>6.1f} "
                        f"{big[0]['counters']['park_count']:>6}" if c else ""))
    return "\n".join(lines)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    combos = [c for c in COMBOS if any((r["speed"], r["size_min"], r["size_max"]) == c for r in rows)]
    sweep = any(r["sweep"] for r in rows)
    fig, axes = plt.subplots(2 if sweep else 1, len(combos), figsize=(5.2 * len(combos), 8.4 if sweep else 4.4),
                             squeeze=False)
    for j, c in enumerate(combos):
        ax = axes[0][j]
        rs = [r for r in rows if (r["speed"], r["size_min"], r["size_max"]) == c and not r["sweep"]]
        for i, r in enumerate(rs):
            ls = [e["late_ns"] for e in r["result"]["edges"] if e["late_ns"] is not None]
            ax.scatter([i] * len(ls), [x / 1000 for x in ls], s=14, alpha=0.7)
            if r["result"]["late_max_ns"] is not None:
                ax.plot([i - 0.3, i + 0.3], [r["result"]["late_max_ns"] / 1000] * 2, "k-", lw=1)
        ax.axhline(0, color="k", lw=0.8)
        ax.axhline(rs[0]["result"]["frame_time_ns"] / 1000, color="g", ls="--", lw=0.8, label="one max-size frame")
        ax.axhline(PAPER_NS[c[0]] / 1000, color="r", ls=":", lw=0.8, label="Corundum, after its drain interval")
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels([SHORT.get(r["name"], r["name"]) for r in rs], fontsize=7, rotation=35, ha="right")
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylabel("last byte after slot close, us")
        ax.set_title(f"{c[0]}, frames {c[1]}-{c[2]} B (guard {rs[1]['guard_ns'] / 1000:.1f} us)")
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=7)
        if sweep:
            ax = axes[1][j]
            ax2 = ax.twinx()
            series = (("no gate", "C0", lambda r: not r["gate"]),
                      ("gate, own slot, park 16K", "C3", lambda r: r["gate"] and r["hold_own"]
                       and r["park_beats"] == PARK_S),
                      ("gate, own slot, park 128K", "C2", lambda r: r["gate"] and r["hold_own"]
                       and r["park_beats"] == PARK_L))
            table_rows = {m[0] for m in MODES if m[0] != MODES[3][0]}
            for lab, col, sel in series:
                pts = sorted((r["guard_ns"], r["result"]) for r in rows
                             if (r["speed"], r["size_min"], r["size_max"]) == c and sel(r)
                             and (r["sweep"] or r["name"] in table_rows))
                g = [p[0] / 1000 for p in pts]
                ax.plot(g, [p[1]["late_max_ns"] / 1000 if p[1]["late_max_ns"] is not None else float("nan")
                            for p in pts], "o-", color=col, label=f"late max, {lab}")
                ax2.plot(g, [100 * p[1]["util_mean"] for p in pts], "s:", color=col, label=f"utilisation, {lab}")
            ax.axhline(0, color="k", lw=0.8)
            ax.set_yscale("symlog", linthresh=1)
            ax.set_xlabel("guard, us")
            ax.set_ylabel("last byte after slot close (max), us")
            ax2.set_ylabel("slot utilisation, %")
            ax2.set_ylim(0, 100)
            ax.grid(True, which="both", lw=0.3)
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            ax.legend(h1 + h2, l1 + l2, fontsize=6, loc="lower left")
    fig.suptitle("TDMA, 200 us period, 2 x 100 us slots: slot traffic after the slot edge")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="two combinations, three configurations, 2 periods")
    ap.add_argument("--periods", type=int, default=None, help="measured periods (default 5, quick 2)")
    ap.add_argument("--no-sweep", action="store_true", help="no guard sweep")
    args = ap.parse_args()
    periods = args.periods or (2 if args.quick else 5)
    runs = make_runs(args.quick, periods, sweep=not (args.quick or args.no_sweep))
    work = REPO / "build" / "bench" / "tdma"
    print(f"running {len(runs)} configurations x {periods + 1} periods of 200 us (log: {work / 'sim.log'}) ...",
          flush=True)
    t0 = time.time()
    counters, frames = simulate(runs, work)
    rows = []
    for run, cnt, fr in zip(runs, counters, frames):
        res = analyse(run, fr)
        rows.append({k: v for k, v in run.items() if k not in ("masks",)} | {"counters": cnt, "result": res,
                                                                             "frames_logged": len(fr)})
    print(table([r for r in rows if not r["sweep"]]))
    print(f"lateness: last byte of the slot's queue set on the wire - slot close, over {2 * periods} slot edges "
          f"(after a warm-up period); (frames): in max-size frame times ((max + 20) B at the line rate); util/intr: "
          f"wire time of the slot's own / the other set's frames inside the slot; guard: 3 us DMA + 32 x mean frame "
          f"time; gate margin {margin_ns('100G')} ns at 100G, {margin_ns('10G')} ns at 10G, park buffer 16 KiB / 32 "
          f"frames (128K: 128 KiB / 64 frames). "
          f"Corundum (paper): 1.4 us at 100G (9000 B), 2.4 us at 10G (1500 B) after its drain interval "
          f"(8 us, 38 us).")
    if any(r["sweep"] for r in rows):
        print()
        print(sweep_table(rows))
    print(f"simulated in {time.time() - t0:.0f} s")
    out = {"periods": periods, "rows": rows}
    bdir = REPO / "build" / "bench"
    (bdir / "tdma.json").write_text(json.dumps(out, indent=1))
    plot(rows, bdir / "tdma.png")
    written = [bdir / "tdma.json", bdir / "tdma.png"]
    if not args.quick and args.periods is None and not args.no_sweep:
        fdir = REPO / "docs" / "figures"
        (fdir / "tdma.json").write_text(json.dumps(out, indent=1))
        plot(rows, fdir / "tdma.png")
        written += [fdir / "tdma.json", fdir / "tdma.png"]
    print("wrote " + ", ".join(str(p.relative_to(REPO)) for p in written))
    bad = [r["name"] for r in rows if r["counters"]["bad_sts_count"] or not r["frames_logged"]]
    if bad:
        raise SystemExit(f"bench_tdma: broken runs: {bad}")


if __name__ == "__main__":
    main()
