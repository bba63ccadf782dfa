# SPDX-License-Identifier: MIT
"""cocotb side of bench_nic.py: NIC throughput against frame size through the PCIe model.

The wrapper runs with LOOP = 2: the TX port drains into a sink that accepts at exactly 100G line
rate, the RX port is fed by a generator at 100G line rate. The driver model keeps the rings full
(one doorbell per batch). Rates are whole-run averages in simulated time:
- TX: (N - 1) / (time of the N-th transmitted frame - time of the first), from the TX engine's packet
  counter (the sink enforces line rate, so no burst can exceed it);
- RX: the generator's own rate over the run (it slows only if the NIC refuses beats) times the share
  of frames the NIC delivered to host memory (the rest were dropped and counted), so frames that wait
  in the NIC and complete late are neither lost nor counted twice.
"""
import json
import os
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb"))
sys.path.insert(0, str(REPO / "tb" / "common"))
from beryl_pcie_tb import PcieSystemTB  # noqa: E402
from model import beryl_nic as N  # noqa: E402

TXQ = 8        # TX queues used (a multi-core host spreads its traffic like this)


def frame(size, k):
    """An AXI-Stream frame of `size` bytes (the wire frame minus its 4-byte FCS)."""
    hdr = bytes([0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0xB5])
    body = (k.to_bytes(4, "little") * ((size + 3) // 4))[:size - len(hdr)]
    return hdr + body


async def run_point(dut, tb, nif, size, mode, count):
    """Returns dict(tx_pps, rx_pps, rx_drops...) measured in the steady middle of the run."""
    want_tx = mode in ("tx", "both")
    want_rx = mode in ("rx", "both")
    if want_tx:
        fs = [frame(size - 4, k) for k in range(count)]
        for k, f in enumerate(fs):
            assert await nif.send(f, txq=k % TXQ, ring_doorbell=False) is not None
    dut.gen_len.value = size - 4
    dut.gen_count.value = count if want_rx else 0
    if want_tx:
        for q in range(TXQ):
            await nif.kick(q)
    dut.gen_start.value = 1
    await RisingEdge(dut.clk)
    dut.gen_start.value = 0
    # progress from the engines' packet counters (cocotb reads them directly: sampling over
    # BAR0 would take a PCIe round trip per register and blur short runs)
    eng = dut.u_nic.g_if[0].u_if
    cnt = {"tx": eng.u_tx.pkt_count, "rx": eng.u_rx.pkt_count,
           "drop": [eng.u_rx.drop_no_slot_count, eng.u_rx.drop_no_desc_count]}

    def read():
        return (int(cnt["tx"].value), int(cnt["rx"].value), sum(int(d.value) for d in cnt["drop"]),
                int(dut.gen_sent.value))
    b_tx, b_rx, b_drop, b_gen = read()
    samples = []
    limit = 0
    while True:
        await ClockCycles(dut.clk, 16)
        tx, rx, drop, gen = read()
        tx, rx, drop = (tx - b_tx) & 0xFFFFFFFF, (rx - b_rx) & 0xFFFFFFFF, (drop - b_drop) & 0xFFFFFFFF
        samples.append((get_sim_time("ns"), tx, rx, drop, (gen - b_gen) & 0xFFFFFFFF))
        tx_done = tx >= count or not want_tx
        rx_done = rx + drop >= count or not want_rx
        limit += 1
        if (tx_done and rx_done) or limit > 200000:
            break
    res = {"size": size, "mode": mode, "count": count}

    def rate(i):
        """(N - 1) / (t_N - t_1) for counter column i, times taken at the first sample showing them
        (16-cycle sampling: +-64 ns over the run)."""
        n = max(s[i] for s in samples)
        t1 = next(s[0] for s in samples if s[i] >= 1)
        tn = next(s[0] for s in samples if s[i] >= n)
        return (n - 1) / ((tn - t1) * 1e-9) if n > 1 and tn > t1 else 0.0

    if want_tx:
        res["tx_pps"] = rate(1)
    if want_rx:
        res["rx_pps"] = rate(4) * samples[-1][2] / count
        res["rx_drops"] = samples[-1][3]
        res["rx_delivered"] = samples[-1][2]
    # drain: take completions so the rings are free for the next point
    for _ in range(2000):
        await nif.poll_tx()
        await nif.poll_rx()
        if all(not r.prod - r.cons & 0xFFFF for r in nif.txq.values()):
            break
        await ClockCycles(dut.clk, 200)
    await ClockCycles(dut.clk, 2000)
    await nif.poll_rx()
    return res


async def open_nic(dut, cfg):
    """Generator idle, root complex up with the point's MPS/MRRS and link delay, interface 0 opened
    with the bench's queues (also used by bench/sim/cocotb_probe_nic.py). Returns (tb, nif)."""
    dut.gen_start.value = 0
    dut.gen_len.value = 64
    dut.gen_count.value = 0
    tb = PcieSystemTB(dut, nic=True)
    await tb.init(mps=cfg["mps_enc"], mrrs=cfg["mrrs_enc"])
    tb.set_link_delay(cfg["link_delay_ns"])
    dev = await N.NicDevice.open(tb.read32, tb.write32, tb.alloc_host)
    nif = dev.interfaces[0]
    await nif.start(txq_count=TXQ, rxq_count=1, log_size=9, rx_log_size=12, rx_buf_size=9216, tx_buf_size=9216)
    return tb, nif


@cocotb.test()
async def bench(dut):
    cfg = json.loads(os.environ["BENCH_CFG"])
    tb, nif = await open_nic(dut, cfg)
    rows = []
    for size in cfg["sizes"]:
        count = max(cfg["min_count"], min(cfg["max_count"], cfg["bytes_per_point"] // size))
        for mode in cfg["modes"]:
            r = await run_point(dut, tb, nif, size, mode, count)
            dut._log.info("%s", r)
            rows.append(r)
    Path(cfg["out"]).write_text(json.dumps({"rows": rows}))
