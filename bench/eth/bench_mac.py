#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throughput of the MACs: back-to-back frames through MAC TX, and through MAC TX -> wire loop -> MAC RX,
for frame sizes 64..9000 bytes (DA through FCS):
- 10G and 25G: beryl_eth_mac_10g (64-bit XGMII at 156.25 / 390.625 MHz), bench/eth/beryl_eth_mac_bench_tb.sv;
- 100G: beryl_eth_mac_100g_tx -> beryl_eth_mac_100g_rx (512-bit CGMII-like word at 195.3125 MHz), fed
  with segmented words packed as densely as the seg rules allow, bench/eth/beryl_eth_mac_100g_bench_tb.sv.

The frame generators and the timing counters are RTL, so the simulation runs without Python per clock.
Rate = bits of frames (DA..FCS) between the first and the last statistics record / simulated time
between them (simulated cycles x clock period); ideal = L / (L + 20) of the bit rate (preamble 8 +
average IFG 12 bytes per frame).

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
BUS_BITS = {"10G": 64, "25G": 64, "100G": 512}
# 100G adds sizes where a 512-bit word holds the end of one frame and the start of the next in every
# possible place (65, 69: worst case of a one-frame-per-beat AXI-Stream user side, 69.5 %)
SIZES_100G = [64, 65, 69, 100, 128, 129, 256, 512, 1024, 1518, 9000]
HZ_100G = 195.3125e6

if os.environ.get("COCOTB_TEST_MODULES"):
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, Timer

    def frames_for(size, bus_bytes=8):
        # about 25k cycles of traffic per size; the DIC deficit left at the end of the window (0..3
        # bytes at 10G/25G, 0..7 at 100G) can put a result up to that / ((frames - 1) * (L + 20)) above
        # the ideal
        return max(40, min(1000 * bus_bytes // 8, 25000 * bus_bytes // (size + 20)))

    async def run_size(dut, size, n, period_ps):
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
        return {
            "size": size, "frames": n, "clock_ps": period_ps,
            "tx_frames": tx_n, "rx_good": rx_n, "rx_bad": int(dut.rx_bad.value),
            "tx_underflow": int(dut.tx_underflow.value),
            "tx_gbps": (tx_n - 1) * size * 8 / (tx_cyc * period_ps * 1e-12) / 1e9,
            "rx_gbps": (rx_n - 1) * size * 8 / (rx_cyc * period_ps * 1e-12) / 1e9,
            "cycles": tx_cyc,
        }

    @cocotb.test()
    async def bench100(dut):
        """100G: beryl_eth_mac_100g_bench_tb (period 5120 ps exactly)."""
        period_ps = round(1e12 / HZ_100G)
        clk = Clock(dut.clk, period_ps, unit="ps")
        clk.start()
        dut.start.value = 0
        dut.frame_len.value = 64
        dut.frame_count.value = 0
        dut.rst.value = 1
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 4)
        out = []
        for size in SIZES_100G:
            r = await run_size(dut, size, frames_for(size, 64), period_ps)
            r.update(speed="100G", rx_drop=int(dut.rx_drop.value))
            out.append(r)
        clk.stop()
        Path(os.environ["BENCH_OUT"]).write_text(json.dumps(out))

    @cocotb.test()
    async def bench(dut):
        """10G and 25G: beryl_eth_mac_bench_tb."""
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
                r = await run_size(dut, size, frames_for(size), period_ps)
                r["speed"] = speed
                out.append(r)
            clk.stop()
        Path(os.environ["BENCH_OUT"]).write_text(json.dumps(out))


def main():
    sys.path.insert(0, str(REPO / "tb" / "common"))
    import beryl_sim
    out_dir = REPO / "build" / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = out_dir / "eth_mac_raw.json"
    rows = []
    for top, test in (("beryl_eth_mac_bench_tb", "bench"), ("beryl_eth_mac_100g_bench_tb", "bench100")):
        beryl_sim.run(top, f"bench/eth/{top}.f", "bench_mac", HERE, testcase=test,
                      extra_env={"BENCH_OUT": str(raw), "PYTHONPATH": str(HERE)})
        rows += json.loads(raw.read_text())
        raw.unlink()
    for r in rows:
        line_bps = BUS_BITS[r["speed"]] * 1e12 / r["clock_ps"]
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
    print("bit rate = 64 bits x clock (10G: 6400 ps, 25G: 2560 ps), 512 bits x clock (100G: 5120 ps); "
          "ideal = L/(L+20) of it;\na result may differ from ideal by up to (d + w)/((frames-1)(L+20)): DIC deficit "
          "left at the end of the window (d <= 3 bytes at 10G/25G, <= 7 at 100G) and record times counted in whole "
          "clocks (w = 8 bytes at 10G/25G, 64 at 100G)")
    bad = [r for r in rows if r["rx_bad"] or r["tx_underflow"] or r["rx_good"] != r["frames"] or r.get("rx_drop")]
    (out_dir / "eth_mac.json").write_text(json.dumps(rows, indent=2))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for speed in list(SPEEDS) + ["100G"]:
            rs = [r for r in rows if r["speed"] == speed]
            ax.plot([r["size"] for r in rs], [r["ideal_gbps"] for r in rs], "k--", lw=0.8)
            ax.plot([r["size"] for r in rs], [r["tx_gbps"] for r in rs], "o-", label=f"{speed} TX")
            ax.plot([r["size"] for r in rs], [r["rx_gbps"] for r in rs], "x:", label=f"{speed} TX->RX loop")
        ax.set_xscale("log")
        ax.set_xticks(SIZES)
        ax.set_xticklabels([str(s) for s in SIZES])
        ax.set_xlabel("frame size, bytes (DA..FCS)")
        ax.set_ylabel("Gb/s of frames")
        ax.set_yscale("log")
        ax.set_title("Ethernet MACs, back-to-back throughput (dashed: L/(L+20) ideal)")
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
