#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PCIe DMA throughput benchmark: host-to-device and device-to-host against transfer size.

Runs the UltraScale+ PCIe subsystem RTL (Verilator) behind cocotbext-pcie's root complex and
UltraScale+ model at Gen3 x16, 512-bit, 250 MHz, with a realistic read round trip, and prints
GB/s and the percentage of the link's theoretical payload bandwidth at each size. Writes JSON and
a PNG plot to build/bench/. Times are simulated time at the RTL clock, not wall-clock.

  bench_dma.py [--mps 512 256] [--quick] [--link-delay-ns 340]
"""
import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb" / "common"))

GEN3_LANE_GBPS = 8.0 * 128 / 130          # Gb/s per lane after 128b/130b encoding
FRAMING = 8                               # bytes per TLP the model charges: STP token + LCRC
CPL_HDR = 12                              # completion header (3 DW)
SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
ENC = {128: 0, 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


def theoretical(size, tlp_payload, hdr, lanes=16):
    """GB/s of payload the link could carry for aligned transfers of `size` bytes, when every TLP
    carries at most `tlp_payload` bytes and costs `hdr` + FRAMING bytes more on the wire."""
    raw = GEN3_LANE_GBPS * lanes / 8      # GB/s
    tlps = math.ceil(size / tlp_payload)
    return raw * size / (size + tlps * (hdr + FRAMING))


def run_point(mps, mrrs, link_delay_ns, sizes, quick):
    import beryl_sim
    out = REPO / "build" / "bench" / f"pcie_dma_mps{mps}.raw.json"
    log = out.with_suffix(".log")
    out.unlink(missing_ok=True)
    print(f"running MPS {mps}: RTL build and simulation (log: {log}) ...", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    cfg = {"mps_enc": ENC[mps], "mrrs_enc": ENC[mrrs], "link_delay_ns": link_delay_ns, "sizes": sizes,
           "bytes_per_point": (256 << 10) if quick else (2 << 20), "min_count": 16 if quick else 64,
           "max_count": 1024 if quick else 4096, "out": str(out)}
    t0 = time.time()
    beryl_sim.run("tb_beryl_pcie_us_top", "tb/pcie/beryl_pcie_us_top/tb_beryl_pcie_us_top.f",
                  "cocotb_bench_dma", Path(__file__).parent,
                  parameters={"TLP_DATA_W": 512, "RAM_ADDR_W": 18, "TIMEOUT_CYCLES": 20000,
                              "GIT_HASH": 0x1234ABCD},
                  extra_env={"BENCH_CFG": json.dumps(cfg)}, log_file=str(log))
    try:
        raw = json.loads(out.read_text())
    except FileNotFoundError:
        raise SystemExit(f"bench_dma: the simulation wrote no results; see {log}")
    raw["wall_s"] = round(time.time() - t0, 1)
    return raw


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mps", type=int, nargs="+", default=[512, 256], help="max payload sizes to run")
    ap.add_argument("--mrrs", type=int, default=512, help="max read request size")
    ap.add_argument("--link-delay-ns", type=float, default=340.0, help="one-way link latency")
    ap.add_argument("--quick", action="store_true", help="fewer bytes per point (rougher figures)")
    ap.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    ap.add_argument("--replot", action="store_true", help="print and plot the last results, no simulation")
    args = ap.parse_args()

    out = REPO / "build" / "bench" / "pcie_dma.json"
    if args.replot:
        report(json.loads(out.read_text())["runs"], out)
        return

    runs = []
    for mps in args.mps:
        raw = run_point(mps, args.mrrs, args.link_delay_ns, args.sizes, args.quick)
        rows = []
        for r in raw["results"]:
            s = r["size"]
            h2d = r["bytes"] / r["h2d_ns"]
            d2h = r["bytes"] / r["d2h_ns"]
            th_h2d = theoretical(s, min(mps, args.mrrs), CPL_HDR)
            th_d2h = theoretical(s, mps, r["wr_hdr_bytes"])
            rows.append({"size": s, "h2d_gbs": h2d, "h2d_pct": 100 * h2d / th_h2d, "h2d_theory": th_h2d,
                         "d2h_gbs": d2h, "d2h_pct": 100 * d2h / th_d2h, "d2h_theory": th_d2h,
                         "count": r["count"]})
        runs.append({"mps": mps, "mrrs": args.mrrs, "rtt_ns": raw["rtt_ns"], "wall_s": raw["wall_s"],
                     "rows": rows})

    out.write_text(json.dumps({"link": "Gen3 x16", "clock_mhz": 250, "tlp_data_w": 512,
                               "link_delay_ns": args.link_delay_ns, "runs": runs}, indent=2))
    report(runs, out)


def report(runs, out):
    for run in runs:
        print(f"\nPCIe DMA throughput, Gen3 x16 (15.75 GB/s raw), 512-bit @ 250 MHz, MPS {run['mps']}, "
              f"MRRS {run['mrrs']}, read round trip {run['rtt_ns']:.0f} ns (simulated; {run['wall_s']} s wall)")
        print("| size (B) | H2D GB/s | H2D % of theory | D2H GB/s | D2H % of theory | theory H2D / D2H GB/s |")
        print("|---:|---:|---:|---:|---:|---:|")
        for r in run["rows"]:
            print(f"| {r['size']} | {r['h2d_gbs']:.2f} | {r['h2d_pct']:.1f} | {r['d2h_gbs']:.2f} | "
                  f"{r['d2h_pct']:.1f} | {r['h2d_theory']:.2f} / {r['d2h_theory']:.2f} |")
    try:
        plot(runs, REPO / "build" / "bench" / "pcie_dma.png")
        print(f"\nplot: {REPO / 'build' / 'bench' / 'pcie_dma.png'}, data: {out}")
    except ImportError:
        print("matplotlib missing: no plot")


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for run in runs:
        sizes = [r["size"] for r in run["rows"]]
        ax.plot(sizes, [r["h2d_gbs"] for r in run["rows"]], "o-", label=f"host to device, MPS {run['mps']}")
        ax.plot(sizes, [r["d2h_gbs"] for r in run["rows"]], "s-", label=f"device to host, MPS {run['mps']}")
        ax.plot(sizes, [r["d2h_theory"] for r in run["rows"]], ":", color="gray",
                label="link payload bandwidth (theory)" if run is runs[0] else None)
    ax.axhline(GEN3_LANE_GBPS * 16 / 8, color="black", lw=0.8, ls="--", label="Gen3 x16 raw (15.75 GB/s)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("transfer size (bytes)")
    ax.set_ylabel("GB/s")
    ax.set_title("Beryl PCIe DMA, simulated Gen3 x16 (cocotbext-pcie model)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
