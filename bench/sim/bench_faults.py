#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the NIC delivers under injected PCIe faults: `beryl-sim --cpl-discontinue P` discontinues a
random share P of the host's completions with data (sim/README.md, fault injection), and the same
traffic as tb/sim/test_sim_faults.py's multi-descriptor case runs at each P: random frames of 60-1514
bytes, each cut into 2-6 descriptors at random, 16 in flight, interface 0 -> wire -> interface 1
through the Python driver model (tb/model/beryl_nic.py), default simulator build (failed descriptor
and packet data reads retried twice, docs/blocks/nic_core.md "Failed TX descriptor reads").

Per P it prints: completions discontinued; TX descriptor-read retries (TX_DESC_RETRY); TX packets
whose data was read again (TX_DATA_RETRY, rounds); TX packets dropped with CPL_DMA_ERR (a data or
descriptor read still failed after its retries) and the extra error completions inside failed
packets the driver consumed (descriptor reads that failed for good); RX descriptor-read retries
(RX_DESC_RETRY); RX frames dropped with CPL_DMA_ERR (their batch's descriptor read failed three
times); frames delivered. Every run also checks what the test checks (run_traffic + check_delivery
of tb/sim/test_sim_faults.py): every delivered frame byte-identical to one sent, none twice, nothing
lost without a counted reason; a run that breaks one of those stops the benchmark.

  bench_faults.py [--frames 640] [--p 0 0.001 0.01 0.02 0.05 0.1 0.2] [--out DIR]

Writes <out>/faults.json (default build/bench). Uses the tests' simulator build and beryl CLI.
"""
import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tb" / "sim"))
import test_sim_faults as F  # noqa: E402
from test_sim import raw_frame  # noqa: E402


def traffic(seed, count):
    rng = random.Random(seed)
    frames = [raw_frame(rng, rng.randrange(60, 1515), k) for k in range(count)]
    pieces = []
    for f in frames:
        cuts = sorted(rng.sample(range(1, len(f)), rng.randint(1, 5)))
        pieces.append([e - s for s, e in zip([0] + cuts, cuts + [len(f)])])
    return frames, pieces


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=640)
    ap.add_argument("--p", type=float, nargs="+", default=[0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.2])
    ap.add_argument("--seed", type=int, default=int(os.environ.get("BERYL_SEED", "1")))
    ap.add_argument("--out", default=str(ROOT / "build" / "bench"))
    a = ap.parse_args()
    frames, pieces = traffic(a.seed, a.frames)
    rows = []
    for p in a.p:
        with tempfile.TemporaryDirectory() as tmp:
            r = F.run_traffic(Path(tmp), f"bench_p{p}", p, [], frames, pieces, log_size=7)
        ca = F.check_delivery(r, frames, expect_drops=False)
        cb = r["cli"]["interfaces"][1]["counters"]
        delivered = sum(1 for _, c in r["rx"] if c.status == F.N.CPL_OK)
        rows.append(dict(p=p, frames=a.frames, discontinued=r["sim"]["pcie"]["cpl_discontinued"],
                         down_tlps=r["sim"]["pcie"]["down_tlps"], tx_retries=ca["tx_desc_retry"], tx_data_retries=ca["tx_data_retry"],
                         tx_err_pkts=len(r["tx_err"]), tx_inside=r["inside"], rx_retries=cb["rx_desc_retry"],
                         rx_dma_err=cb["rx_dma_err"],
                         delivered=delivered))
        if p == 0:
            assert delivered == a.frames, f"{delivered} of {a.frames} frames without faults"
    print(f"\n{a.frames} frames of 60-1514 bytes in 2-6 descriptors, interface 0 -> 1 (seed {a.seed})\n")
    print("| P | completions discontinued | TX descriptor-read retries | TX packets read again "
          "| TX packets dropped (DMA error) "
          "| error completions inside failed packets (descriptor reads failed 3 times) | RX descriptor-read retries "
          "| RX frames dropped (DMA error) "
          "| frames delivered |")
    print("|---|---|---|---|---|---|---|---|---|")
    for w in rows:
        print(f"| {w['p']} | {w['discontinued']} of {w['down_tlps']} TLPs | {w['tx_retries']} | {w['tx_data_retries']} "
              f"| {w['tx_err_pkts']} "
              f"| {w['tx_inside']} | {w['rx_retries']} | {w['rx_dma_err']} "
              f"| {w['delivered']} ({100 * w['delivered'] / w['frames']:.1f} %) |")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "faults.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"\nwrote {out / 'faults.json'}")


if __name__ == "__main__":
    main()
