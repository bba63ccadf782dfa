# SPDX-License-Identifier: MIT
"""beryl_eth_mac_10g_fifo: the MAC with its streams in a core clock unrelated to the MAC clock
(core 4.002 ns = 250 MHz, faster than the 156.25 MHz MAC; then 9.3 ns, slower than the wire).
cocotbext-axi source/sink on the core side, cocotbext-eth XGMII sink/source on the wire side, scapy
frames, FCS from zlib.

TX, stream modes "none" and "idle" (random idle also inside frames, which the bare MAC would turn into
underflows: the store-and-forward FIFO must hide them): every frame on the wire intact, no underflow,
a frame longer than the TX FIFO dropped and counted. RX, modes "none" and "backpressure": with a fast
core and no backpressure every frame arrives; otherwise the delivered frames are an in-order
subsequence of those sent, each intact, and the missing ones equal the RX FIFO drop counter, while the
MAC's own statistics saw every frame good."""
import logging
import os
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, Timer, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

MAC_PS = 6400
TX_FIFO_DEPTH = int(os.environ.get("PARAM_TX_FIFO_DEPTH", "256"))


class TB:
    def __init__(self, dut, core_ps):
        self.dut = dut
        Clock(dut.clk, core_ps, unit="ps").start()
        Clock(dut.tx_clk, MAC_PS, unit="ps").start()
        Clock(dut.rx_clk, MAC_PS, unit="ps").start()
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_tx"), dut.clk, dut.rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_rx"), dut.clk, dut.rst)
        self.xsink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.tx_clk, dut.tx_rst)
        self.xsrc = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.rx_clk, dut.rx_rst)
        for m in (self.src, self.sink, self.xsink, self.xsrc):
            m.log.setLevel(logging.WARNING)
        for s in (dut.tx_ptp_ts, dut.rx_ptp_ts, dut.tx_stat_clear, dut.rx_stat_clear, dut.tx_stat_rd_addr,
                  dut.rx_stat_rd_addr):
            s.value = 0
        self.tx_stats, self.rx_stats = [], []
        cocotb.start_soon(self._records(dut.tx_clk, dut.tx_stat, self.tx_stats))
        cocotb.start_soon(self._records(dut.rx_clk, dut.rx_stat, self.rx_stats))

    async def _records(self, clk, sig, out):
        while True:
            await RisingEdge(clk)
            r = ethtb.decode_stat(sig.value)
            if r["valid"]:
                out.append(r)

    async def reset(self):
        d = self.dut
        for r in (d.rst, d.tx_rst, d.rx_rst):
            r.value = 1
        await Timer(100, "ns")
        for r in (d.rst, d.tx_rst, d.rx_rst):
            r.value = 0
        await Timer(100, "ns")


def pauser(rng, p):
    while True:
        yield int(rng.random() < p)


async def tx_part(tb, rng, mode):
    d = tb.dut
    if mode == "idle":
        tb.src.set_pause_generator(pauser(rng, 0.3))
    else:
        tb.src.clear_pause_generator()
        tb.src.pause = False
    drops0 = int(d.s_axis_tx_drop_count.value)
    n0 = len(tb.tx_stats)
    frames = [ethtb.make_frame(n, rng) for n in ethtb.sweep_lengths(rng, 14, 1514, sample=8)]
    big = ethtb.make_frame(TX_FIFO_DEPTH * 8 + 100, rng)      # cannot fit the store-and-forward FIFO
    frames.insert(len(frames) // 2, big)
    for f in frames:
        tb.src.send_nowait(AxiStreamFrame(f))
    for f in frames:
        if f is big:
            continue
        rx = await with_timeout(tb.xsink.recv(), 500, "us")
        assert rx.ctrl is None, f"{mode}: control characters in a frame (underflow?)"
        assert bytes(rx.get_payload()) == f.ljust(60, b"\0") and rx.check_fcs()
    await ClockCycles(d.tx_clk, 20)
    recs = tb.tx_stats[n0:]
    assert len(recs) == len(frames) - 1 and all(r["good"] and not r["underflow"] for r in recs)
    assert int(d.s_axis_tx_drop_count.value) - drops0 == 1, "the oversized TX frame must be dropped and counted"
    return len(frames) - 1


async def rx_part(tb, rng, mode):
    d = tb.dut
    if mode == "backpressure":
        tb.sink.set_pause_generator(pauser(rng, 0.7))
    else:
        tb.sink.clear_pause_generator()
        tb.sink.pause = False
    drops0 = int(d.rx_fifo_drop_count.value)
    n0 = len(tb.rx_stats)
    frames = [ethtb.make_frame(n, rng) for n in ethtb.sweep_lengths(rng, 60, 1514, sample=16)]
    tb.xsrc.ifg = 12
    for f in frames:
        await tb.xsrc.send(XgmiiFrame.from_payload(f))
    await tb.xsrc.wait()
    got, idle = [], 0
    while idle < 2000:
        await RisingEdge(d.clk)
        if tb.sink.empty():
            idle += 1
        else:
            got.append(tb.sink.recv_nowait())
            idle = 0
    i = 0
    for g in got:
        while i < len(frames) and bytes(g.tdata) != frames[i]:
            i += 1
        assert i < len(frames), "a delivered frame is not an in-order frame of those sent"
        u = g.tuser[-1] if isinstance(g.tuser, list) else g.tuser
        assert u & 1 == 0, "good frame flagged bad"
        i += 1
    drops = int(d.rx_fifo_drop_count.value) - drops0
    assert len(frames) - len(got) == drops, f"{len(frames) - len(got)} missing, drop counter {drops}"
    recs = tb.rx_stats[n0:]
    assert len(recs) == len(frames) and all(r["good"] for r in recs), "the MAC must see every frame"
    return len(frames), len(got), drops


async def exercise(dut, core_ps, name):
    tb = TB(dut, core_ps)
    await tb.reset()
    rng = ethtb.seeded(name)
    for mode in ("none", "idle"):
        n = await tx_part(tb, rng, mode)
        dut._log.info("%s TX %-5s: %d frames intact on the wire, 1 oversized frame dropped", name, mode, n)
    results = {}
    for mode in ("none", "backpressure"):
        results[mode] = await rx_part(tb, rng, mode)
        dut._log.info("%s RX %-12s: %d sent, %d delivered, %d dropped", name, mode, *results[mode])
    return results


@cocotb.test()
async def test_core_faster(dut):
    r = await exercise(dut, 4002, "mac_fifo_fast_core")
    assert r["none"][2] == 0, "a 250 MHz core with no backpressure must not drop"
    assert r["backpressure"][2] > 0, "heavy backpressure should overflow the RX FIFO"


@cocotb.test()
async def test_core_slower(dut):
    r = await exercise(dut, 9300, "mac_fifo_slow_core")
    assert r["none"][2] > 0, "a core slower than the wire must drop back-to-back frames"


def test_beryl_eth_mac_10g_fifo():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_10g_fifo", "rtl/eth/beryl_eth_mac_10g_fifo.f", "test_beryl_eth_mac_10g_fifo",
                  Path(__file__).parent, parameters={"TX_FIFO_DEPTH": TX_FIFO_DEPTH, "RX_FIFO_DEPTH": 256,
                                                     "MAX_FRAME_LEN": 1518})
