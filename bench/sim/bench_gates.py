#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Clock gates under load: per gate, the share of cycles it is open, and open with nothing in its
block changed (sim/README.md, "Clock gates").

    python3 bench/sim/bench_gates.py [--frames N] [--top N] [--binary PATH]

Builds the simulator with the gate statistics (`make -C sim GATE_STATS=1`, sim/gate_stats.py: around
every rising edge it copies and compares the variables of each block whose gate is open; slow), runs
bench_speed.py's loaded row (interface 0 sends --frames 1514-byte frames to interface 1) with
`--gate-stats`, and prints the gates by the share of cycles open for nothing. Cycles are all the
simulator clocked (reset, the driver's set-up and the frames). A gate open for nothing is either a
loose enable (work waiting is not work: see the enables of e309470) or a block whose changed
flops are its outputs, which Verilator names after the parent's signals: read the enable before
changing it, and check it with the lock-step build (`tb/sim`) and the block's unit test
(`tb/common/gate_check.py`).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tb" / "common"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_speed  # noqa: E402
import sim_build  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=3000)
    ap.add_argument("--top", type=int, default=30, help="rows of the table (0: all)")
    ap.add_argument("--binary", help="a beryl-sim built with GATE_STATS=1 (default: build it)")
    args = ap.parse_args()
    binary = args.binary or sim_build.build_sim("GATE_STATS=1")
    tmp = tempfile.mkdtemp(prefix="beryl-gates-")
    out = os.path.join(tmp, "gates.jsonl")
    try:
        row = bench_speed.loaded_row(binary, args.frames, 1514, extra=["--gate-stats", out])
        with open(out) as f:
            gates = [json.loads(line) for line in f]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not gates or not gates[0]["cycles"]:
        sys.exit("bench_gates.py: the simulator wrote no gate statistics")
    # a gate whose scope holds no variable (all its flops named in the parent, e.g. an input register)
    # cannot be judged: last, with "-"
    gates.sort(key=lambda g: (g["bytes"] == 0, -g["unchanged"], -g["open"]))
    cyc = gates[0]["cycles"]
    print(f"clock gates of {os.path.basename(os.path.dirname(binary))}: {len(gates)} gates, {cyc} cycles "
          f"({row['note']})")
    print("| gate | open | open, nothing in the block changed | block variables (bytes) |")
    print("|---|---|---|---|")
    for g in gates[:args.top or None]:
        name = g["gate"].removeprefix("beryl_nic_us_top.")
        same = f"{100 * g['unchanged'] / cyc:.1f} %" if g["bytes"] else "-"
        print(f"| {name} | {100 * g['open'] / cyc:.1f} % | {same} | {g['bytes']} |")


if __name__ == "__main__":
    main()
