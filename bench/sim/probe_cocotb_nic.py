#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run a few bench_nic points under cocotbext-pcie with link probes (cocotb_probe_nic.py) and print
the posted / non-posted credit loop and the read round trip, for comparison with beryl-sim.

  probe_cocotb_nic.py [--points 64:rx:4000 128:tx:4000 ...]   -> build/bench/nic_cocotb_probe.json
"""
import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb" / "common"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", nargs="+", default=["64:rx:4000", "128:rx:4000", "64:tx:4000", "128:tx:4000"])
    args = ap.parse_args()
    import beryl_sim
    out = REPO / "build" / "bench" / "nic_cocotb_probe.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    pts = [(int(s), m, int(c)) for s, m, c in (p.split(":") for p in args.points)]
    # bench_nic's conditions: MPS 256 (enc 1), MRRS 512 (enc 2), 340 ns one way, 64 slots
    cfg = {"mps_enc": 1, "mrrs_enc": 2, "link_delay_ns": 340, "points": pts, "out": str(out)}
    log = out.with_suffix(".log")
    t0 = time.time()
    print(f"running cocotb (log {log}) ...", flush=True)
    beryl_sim.run("tb_beryl_nic_us_top", "tb/nic/beryl_nic_us_top/tb_beryl_nic_us_top.f",
                  "cocotb_probe_nic", Path(__file__).parent,
                  parameters={"IF_COUNT": 1, "PORT_COUNT": 1, "TXQ_COUNT": 256, "RXQ_COUNT": 16, "CQ_COUNT": 512,
                              "EQ_COUNT": 4, "TX_SLOTS": 64, "RX_SLOTS": 64, "MAX_FRAME": 16384, "LOOP": 2},
                  extra_env={"BENCH_CFG": json.dumps(cfg)}, log_file=str(log))
    res = json.loads(out.read_text())
    for r in res["rows"]:
        line = {k: v for k, v in r.items() if k != "probe"}
        print(line)
        print("   ", json.dumps(r["probe"]))
    print(f"wall {time.time() - t0:.0f} s; data: {out}")


if __name__ == "__main__":
    main()
