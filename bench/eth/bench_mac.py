#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throughput of the 10G/25G MAC (beryl_eth_mac_10g): back-to-back frames through MAC TX, and
through MAC TX -> XGMII loop -> MAC RX, at 10G (64-bit XGMII, 156.25 MHz) and 25G (the same datapath
at 390.625 MHz), for frame sizes 64..9000 bytes (DA through FCS).

The frame generator and the timing counters are RTL (bench/eth/beryl_eth_mac_bench_tb.sv), so the
simulation runs without Python per clock. Rate = bits of frames (DA..FCS) between the first and the
last statistics record / simulated time between them; ideal = L / (L + 20) of the bit rate (preamble
8 + average IFG 12 bytes per frame).

Usage: .venv/bin/python bench/eth/bench_mac.py   (prints a table, writes build/bench/eth_mac.json and
build/bench/eth_mac.png)
"""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SIZES = [64, 128, 256, 512, 1024, 1518, 9000]
SPEEDS = {"10G": 156.25e6, "25G": 390.625e6}
BUS_BITS = 64

if os.environ.get("COCOTB_TEST_MODULES"):
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, Timer

    def frames_for(size):
        # about 25k cycles of traffic per size; the DIC deficit left at the end of the window (0..3
        # bytes) can put a result up to 3 / ((frames - 1) * (L + 20)) above the ideal
        return max(40, min(1000, 200000 // (size + 20)))

    @cocotb.test()
    async def bench(dut):
        out = []
        for speed, hz in SPEEDS.items():
            period_ps = round(1e12 / hz)
            period_ps += period_ps % 2               # cocotb wants an even period
            clk = Clock(dut.clk, period_ps, unit="ps")
            clk.start()
            dut.start.value = 0
            dut.frame_len.value = 64
            dut.frame_count.value = 0
            dut.rst.value = 1
            await ClockCycles(dut.clk, 4)
            dut.rst.value = 0
            await ClockCycles(dut.clk, 4)
            for size in SIZES:
                n = frames_for(size)
                dut.frame_len.value = size - 4
                dut.frame_count.value = n
                dut.start.value = 1
                await ClockCycles(dut.clk, 1)
                dut.start.value = 0
                await ClockCycles(dut.clk, 2)          # counters cleared by start
                # no per-clock Python: sleep in large steps until the loop has delivered every frame
                while int(dut.rx_good.value) + int(dut.rx_bad.value) < n:
                    await Timer(period_ps * 2000, "ps")
                await ClockCycles(dut.clk, 40)
                tx_n, rx_n = int(dut.tx_frames.value), int(dut.rx_good.value)
                tx_cyc = int(dut.tx_last.value) - int(dut.tx_first.value)
                rx_cyc = int(dut.rx_last.value) - int(dut.rx_first.value)
                t_ps = period_ps                        # the clock actually simulated
                out.append({
                    "speed": speed, "size": size, "frames": n, "clock_ps": t_ps,
                    "tx_frames": tx_n, "rx_good": rx_n, "rx_bad": int(dut.rx_bad.value),
                    "tx_underflow": int(dut.tx_underflow.value),
                    "tx_gbps": (tx_n - 1) * size * 8 / (tx_cyc * t_ps * 1e-12) / 1e9,
                    "rx_gbps": (rx_n - 1) * size * 8 / (rx_cyc * t_ps * 1e-12) / 1e9,
                    "cycles": tx_cyc,
                })
            clk.stop()
        Path(os.environ["BENCH_OUT"]).write_text(json.dumps(out))


def main():
    sys.path.insert(0, str(REPO / "tb" / "common"))
    import beryl_sim
    out_dir = REPO / "build" / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = out_dir / "eth_mac_raw.json"
    beryl_sim.run("beryl_eth_mac_bench_tb", "bench/eth/beryl_eth_mac_bench_tb.f", "bench_mac", HERE,
                  extra_env={"BENCH_OUT": str(raw), "PYTHONPATH": str(HERE)})
    rows = json.loads(raw.read_text())
    raw.unlink()
    for r in rows:
        line_bps = BUS_BITS * 1e12 / r["clock_ps"]
        r["line_gbps"] = line_bps / 1e9
        r["ideal_gbps"] = r["line_gbps"] * r["size"] / (r["size"] + 20)
        r["tx_pct"] = 100 * r["tx_gbps"] / r["ideal_gbps"]
        r["rx_pct"] = 100 * r["rx_gbps"] / r["ideal_gbps"]
    hdr = (f"{'speed':>5} {'frame B':>7} {'frames':>6} {'TX Gb/s':>8} {'loop RX Gb/s':>12} "
           f"{'ideal Gb/s':>10} {'TX %':>7} {'RX %':>7}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print(f"{r['speed']:>5} {r['size']:>7} {r['frames']:>6} {r['tx_gbps']:>8.3f} {r['rx_gbps']:>12.3f} "
              f"{r['ideal_gbps']:>10.3f} {r['tx_pct']:>7.2f} {r['rx_pct']:>7.2f}")
    print("bit rate = 64 bits x clock (10G: 6400 ps, 25G: 2560 ps); ideal = L/(L+20) of it; a result may sit up "
          "to 3/((frames-1)(L+20)) above ideal (DIC deficit left at the end of the window)")
    bad = [r for r in rows if r["rx_bad"] or r["tx_underflow"] or r["rx_good"] != r["frames"]]
    (out_dir / "eth_mac.json").write_text(json.dumps(rows, indent=2))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for speed in SPEEDS:
            rs = [r for r in rows if r["speed"] == speed]
            ax.plot([r["size"] for r in rs], [r["ideal_gbps"] for r in rs], "k--", lw=0.8)
            ax.plot([r["size"] for r in rs], [r["tx_gbps"] for r in rs], "o-", label=f"{speed} TX")
            ax.plot([r["size"] for r in rs], [r["rx_gbps"] for r in rs], "x:", label=f"{speed} TX->RX loop")
        ax.set_xscale("log")
        ax.set_xticks(SIZES)
        ax.set_xticklabels([str(s) for s in SIZES])
        ax.set_xlabel("frame size, bytes (DA..FCS)")
        ax.set_ylabel("Gb/s of frames")
        ax.set_title("beryl_eth_mac_10g back-to-back throughput (dashed: L/(L+20) ideal)")
        ax.grid(True, which="both", lw=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out_dir / "eth_mac.png", dpi=120)
    except ImportError:
        print("matplotlib missing: no plot")
    print(f"wrote {out_dir / 'eth_mac.json'} and {out_dir / 'eth_mac.png'}")
    if bad:
        raise SystemExit(f"bench: frames lost or bad: {[(r['speed'], r['size']) for r in bad]}")


if __name__ == "__main__":
    main()
