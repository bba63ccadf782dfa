#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NIC throughput benchmark: TX only, RX only and both at once, against frame size.

Runs the whole NIC RTL (UltraScale+ PCIe shim, DMA engines, one interface) under Verilator behind
cocotbext-pcie's root complex at Gen3 x16, 512-bit, 250 MHz, with a realistic read round trip
(one-way link delay 340 ns: 692 ns measured read round trip, as in bench/pcie_dma). On the MAC
side the TX port drains into a sink that accepts exactly 100G line rate and the RX port is fed at
100G line rate. Prints Gbps, Mpps and the percentage of 100G line rate per frame size (sizes
include the 4-byte FCS the MAC adds; line rate charges 20 more bytes per frame for preamble, SFD
and gap), writes JSON and a PNG plot to build/bench/. Times are simulated time at the RTL clock.

  bench_nic.py [--quick] [--sizes 64 256 1514] [--modes tx rx both] [--replot]
"""
import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb" / "common"))

SIZES = [64, 128, 256, 512, 1024, 1518, 4096, 9018]
ENC = {128: 0, 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}
LINE_GBPS = 100


def line_pps(size):
    return LINE_GBPS * 1e9 / ((size + 20) * 8)


def run(args):
    import beryl_sim
    out = REPO / "build" / "bench" / "nic.raw.json"
    log = out.with_suffix(".log")
    out.unlink(missing_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    cfg = {"mps_enc": ENC[args.mps], "mrrs_enc": ENC[args.mrrs], "link_delay_ns": args.link_delay_ns,
           "sizes": args.sizes, "modes": args.modes,
           "bytes_per_point": (192 << 10) if args.quick else (1 << 20),
           "min_count": 64 if args.quick else 200, "max_count": 1000 if args.quick else 4000, "out": str(out)}
    print(f"running: RTL build and simulation (log: {log}) ...", flush=True)
    t0 = time.time()
    beryl_sim.run("tb_beryl_nic_us_top", "tb/nic/beryl_nic_us_top/tb_beryl_nic_us_top.f",
                  "cocotb_bench_nic", Path(__file__).parent,
                  parameters={"IF_COUNT": 1, "PORT_COUNT": 1, "TXQ_COUNT": 256, "RXQ_COUNT": 16, "CQ_COUNT": 512,
                              "EQ_COUNT": 4, "TX_SLOTS": args.slots, "RX_SLOTS": args.slots, "MAX_FRAME": 16384, "LOOP": 2},
                  extra_env={"BENCH_CFG": json.dumps(cfg)}, log_file=str(log))
    try:
        raw = json.loads(out.read_text())
    except FileNotFoundError:
        raise SystemExit(f"bench_nic: the simulation wrote no results; see {log}")
    raw.update(wall_s=round(time.time() - t0, 1), slots=args.slots, mps=args.mps, mrrs=args.mrrs, link_delay_ns=args.link_delay_ns)
    return raw


def table(raw):
    lines = [f"NIC throughput, Gen3 x16 PCIe model (MPS {raw['mps']}, MRRS {raw['mrrs']}, one-way link "
             f"{raw['link_delay_ns']} ns), 512-bit at 250 MHz, 100G line-rate MAC side; 8 TX queues",
             "",
             "| frame B | mode | TX Gbps | TX Mpps | TX % line | RX Gbps | RX Mpps | RX % line | RX drops |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in raw["rows"]:
        s = r["size"]
        cells = [str(s), r["mode"]]
        for key in ("tx_pps", "rx_pps"):
            if key in r:
                pps = r[key]
                cells += [f"{pps * s * 8 / 1e9:.1f}", f"{pps / 1e6:.2f}", f"{100 * pps / line_pps(s):.1f}"]
            else:
                cells += ["-", "-", "-"]
        cells.append(str(r["rx_drops"]) if "rx_pps" in r else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(raw, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for mode, key, mark in (("tx", "tx_pps", "o-"), ("rx", "rx_pps", "s-"), ("both", "tx_pps", "^--"),
                            ("both", "rx_pps", "v--")):
        rows = [r for r in raw["rows"] if r["mode"] == mode and key in r]
        if rows:
            ax.plot([r["size"] for r in rows], [100 * r[key] / line_pps(r["size"]) for r in rows], mark,
                    label=f"{key[:2].upper()} ({mode})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("frame size, bytes (with FCS)")
    ax.set_ylabel("% of 100G line rate")
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title("Beryl NIC throughput through the Gen3 x16 PCIe model")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer frames per point")
    ap.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    ap.add_argument("--modes", nargs="+", default=["tx", "rx", "both"], choices=["tx", "rx", "both"])
    ap.add_argument("--mps", type=int, default=256, choices=sorted(ENC))
    ap.add_argument("--mrrs", type=int, default=512, choices=sorted(ENC))
    ap.add_argument("--link-delay-ns", type=int, default=340)
    ap.add_argument("--slots", type=int, default=64, help="TX and RX packets in flight (TX_SLOTS, RX_SLOTS)")
    ap.add_argument("--replot", action="store_true", help="print and plot the last results, no simulation")
    args = ap.parse_args()
    out = REPO / "build" / "bench" / "nic.json"
    raw = json.loads(out.read_text()) if args.replot else run(args)
    out.write_text(json.dumps(raw, indent=1))
    print(table(raw))
    if not args.replot:
        print(f"\nwall time {raw['wall_s']} s")
    try:
        plot(raw, out.with_suffix(".png"))
        print(f"plot: {out.with_suffix('.png')}, data: {out}")
    except ImportError:
        print("matplotlib missing: no plot")


if __name__ == "__main__":
    main()
