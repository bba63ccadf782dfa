#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TDMA in the full NIC (issue 6's measurement): how far after a slot closes the last byte of that slot's
traffic leaves the port, with the RTL TX engine, DMA and PCIe (cocotbext-pcie model), at 100G and 10G.

Runs the cocotb bench `tdma_bench` of tb/nic/beryl_nic_us_top/test_nic_sched.py on the NIC top built with
TX_SCHED=2 (TDMA) and the wrapper's line-rate sink at 100 or 10 Gbit/s: 200 us period, two 100 us slots,
TX queue 0 in slot 0 and queue 1 in slot 1, each with 2.5 slots of backlog (frames uniform in
60..1514 bytes without FCS). The bench's own monitor samples the NIC's PTP time at every beat and replays
the wire (preamble 8, padding to 60, FCS 4, gap 12 at the line rate). Spill = the latest end of a frame
minus the end of its queue's slot instance that opened at or before the frame started (negative: every
frame ended before its edge). Rows: the reference (gate off, no guard: the queues close at the edge and
what the datapath holds spills) and the gate (own slot) with the guards given.

  bench_tdma_nic.py [--guards 0,1000]
Prints a table; writes docs/figures/tdma_nic.json (rows of the rates run replace that file's rows of the
same rates; each row keeps the command and commit that made it).
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tb" / "common"))
sys.path.insert(0, str(REPO / "tb" / "nic" / "beryl_nic_us_top"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--guards", default="0,1000", help="gate runs: guard ns, comma separated")
    ap.add_argument("--rates", default="100,10", help="line rates, Gbit/s")
    args = ap.parse_args()
    import beryl_sim
    from test_nic_sched import CONFIGS

    rows = []
    (REPO / "build" / "bench").mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for gbps in [int(x) for x in args.rates.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out.json"
            beryl_sim.run("tb_beryl_nic_us_top", "tb/nic/beryl_nic_us_top/tb_beryl_nic_us_top.f", "test_nic_sched",
                          REPO / "tb" / "nic" / "beryl_nic_us_top",
                          parameters=dict(CONFIGS["tdma"], LINE_GBPS=gbps), testcase=["tdma_bench"],
                          extra_env=dict(BENCH_OUT=str(out), BENCH_GUARDS=args.guards),
                          log_file=str(REPO / "build" / "bench" / f"tdma_nic_{gbps}g.log"))
            rows += json.loads(out.read_text())
    print(f"\nTDMA in the full NIC: 200 us period, 2 x 100 us slots, 60..1514-byte frames ({time.time() - t0:.0f} s)")
    print("| line | gate | guard (ns) | frames | spill past the edge (ns) | one 1538-byte frame (ns) | wire busy % | "
          "held | parked | overrun |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['gbps']}G | {'on (own slot)' if r['gate'] else 'off'} | {r['guard_ns']} | {r['frames']} | "
              f"{r['spill_ns']:.1f} | {1538 * 8 / r['gbps']:.0f} | {r['wire_busy_pct']:.1f} | "
              f"{r['TDMA_HOLD']} | {r['TDMA_PARK']} | {r['TDMA_OVERRUN']} |")
    dst = REPO / "docs" / "figures" / "tdma_nic.json"
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    for r in rows:
        r.update(command="python3 bench/nic/bench_tdma_nic.py " + " ".join(sys.argv[1:]), commit=commit)
    old = json.loads(dst.read_text()).get("rows", []) if dst.exists() else []
    run = {r["gbps"] for r in rows}
    keep = [r for r in old if r["gbps"] not in run]
    dst.write_text(json.dumps(dict(rows=sorted(keep + rows, key=lambda r: -r["gbps"])), indent=1) + "\n")
    print(f"wrote {dst.relative_to(REPO)}")


if __name__ == "__main__":
    main()
