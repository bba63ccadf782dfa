# SPDX-License-Identifier: MIT
"""beryl_eth_mac_10g_tx on its own: cocotbext-axi AxiStreamSource (third party) in, cocotbext-eth
XgmiiSink (third party) out, scapy frames, FCS from zlib; the per-frame statistics record and the
timestamp/tag outputs checked directly.

Stream modes: "none" (frames queued back to back) and "idle" (random idle cycles between frames) for
every check. Idle inside a frame is not legal input (the MAC needs the frame without gaps; see the
underflow test, which does exactly that). XGMII has no ready, so there is no sink backpressure to apply.
DIC_EN = 1: every IFG in 9..15 bytes with the deficit within 0..3 (average 12); DIC_EN = 0: IFG >= 12
always, 12..15."""
import itertools
import logging
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource
from cocotbext.eth import XgmiiSink

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

PERIOD_PS = 6400
DIC_EN = int(os.environ.get("PARAM_DIC_EN", "1"))
PRE = b"\x55" * 7 + b"\xd5"
IDLE_WORD = 0x0707070707070707


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_tx"), dut.clk, dut.rst)
        self.sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
        for m in (self.src, self.sink):
            m.log.setLevel(logging.WARNING)
        dut.tx_ptp_ts.value = 0
        self.stats, self.ts, self.starts, self.terms, self.sfd_ps = [], [], [], [], []
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        """tx_ptp_ts = time of the coming edge; collect records, timestamps, /S/ and /T/ byte
        positions and the edge time at which each SFD word appears."""
        d, cycle = self.dut, 0
        while True:
            await FallingEdge(d.clk)
            now = int(get_sim_time("ps"))
            d.tx_ptp_ts.value = now + PERIOD_PS // 2
            cycle += 1
            if int(d.rst.value):
                continue
            if int(d.tx_ts_valid.value):
                self.ts.append((int(d.tx_ts.value), int(d.tx_ts_tag.value)))
            rec = ethtb.decode_stat(d.tx_stat.value)
            if rec["valid"]:
                self.stats.append(rec)
            c, txd = int(d.xgmii_txc.value), int(d.xgmii_txd.value)
            if c and (c != 0xff or txd != IDLE_WORD):
                for lane in range(8):
                    if c >> lane & 1:
                        b = txd >> (8 * lane) & 0xff
                        if b == 0xfb:
                            self.starts.append(cycle * 8 + lane)
                            edge = now - PERIOD_PS // 2
                            self.sfd_ps.append(edge + (PERIOD_PS if lane == 4 else 0))
                        elif b == 0xfd:
                            self.terms.append(cycle * 8 + lane)

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 4)
        for lst in (self.stats, self.ts, self.starts, self.terms, self.sfd_ps):
            lst.clear()


def wire_rec(data):
    return (1, max(len(data), 60) + 4, int(data[:6] == b"\xff" * 6),
            int(bool(data[0] & 1) and data[:6] != b"\xff" * 6))


def dst_for(i):
    return ["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01"][i % 3]


@cocotb.test()
async def test_frames(dut):
    """Lengths 14..1514 (padded below 60) and 9000 in both stream modes: preamble, padding and FCS
    (zlib) on the wire, one good record per frame with length and broadcast/multicast, one timestamp
    per frame with its tag at a constant distance from the SFD."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_tx_frames")
    for mode in ("none", "idle"):
        lengths = ethtb.sweep_lengths(rng, 14, 1514, sample=12) + [9000]
        rng.shuffle(lengths)
        sent = []
        for i, n in enumerate(lengths):
            data = ethtb.make_frame(n, rng, dst=dst_for(i))
            if mode == "none":
                tb.src.send_nowait(AxiStreamFrame(data, tuser=(i & 0xffff) << 1))
            else:
                await tb.src.send(AxiStreamFrame(data, tuser=(i & 0xffff) << 1))
                await tb.src.wait()
                await ClockCycles(dut.clk, rng.randint(1, 30))
            sent.append(data)
        for i, data in enumerate(sent):
            rx = await with_timeout(tb.sink.recv(), 200, "us")
            assert rx.ctrl is None, f"{mode}: frame {i}: control characters inside the frame"
            assert bytes(rx.data[:8]) == PRE
            assert bytes(rx.get_payload()) == data.ljust(60, b"\0"), f"{mode}: frame {i} len {len(data)}"
            assert bytes(rx.get_fcs()) == ethtb.fcs(data.ljust(60, b"\0")), f"{mode}: FCS, len {len(data)}"
        await ClockCycles(dut.clk, 8)
        got = [(r["good"], r["len"], r["bcast"], r["mcast"]) for r in tb.stats]
        assert got == [wire_rec(d) for d in sent], f"{mode}: statistics records"
        assert [t for _, t in tb.ts] == list(range(len(sent))), f"{mode}: timestamp tags"
        offs = {sfd - ts for (ts, _), sfd in zip(tb.ts, tb.sfd_ps)}
        assert len(offs) == 1 and len(tb.sfd_ps) == len(sent), f"{mode}: SFD-to-timestamp offsets {offs}"
        dut._log.info("%s: %d frames, SFD minus timestamp %s ps", mode, len(sent), offs)
        await tb.reset()


@cocotb.test()
async def test_back_to_back_ifg(dut):
    """Frames queued back to back: every gap within the DIC (or no-DIC) bounds, running deficit in
    0..3, rate exactly the line rate with preamble and the 12-byte average IFG."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_tx_b2b")
    sizes = [60, 61, 62, 63, 64, 65, 66, 67, 100, 127, 255, 1024, 1514]
    if ethtb.LONG:
        sizes = list(range(60, 140)) + [1500, 1514]
    for n in sizes:
        count = 16
        tb.starts.clear()
        tb.terms.clear()
        for _ in range(count):
            tb.src.send_nowait(AxiStreamFrame(ethtb.make_frame(n, rng)))
        for _ in range(count):
            f = await with_timeout(tb.sink.recv(), 200, "us")
            assert f.ctrl is None and f.check_fcs()
        await ClockCycles(dut.clk, 4)
        s, t = tb.starts[-count:], tb.terms[-count:]
        gaps = [s[k + 1] - t[k] for k in range(count - 1)]
        if DIC_EN:
            assert min(gaps) >= 9 and max(gaps) <= 15, f"len {n}: IFG {gaps}"
            for k in range(len(gaps)):
                part = sum(gaps[:k + 1])
                assert 12 * (k + 1) - 3 <= part <= 12 * (k + 1), f"len {n}: deficit after gap {k}: {gaps}"
        else:
            assert min(gaps) >= 12 and max(gaps) <= 15, f"len {n}: IFG {gaps}"
        wire = max(n, 60) + 4
        rate = wire * (count - 1) / (s[-1] - s[0])
        if DIC_EN:
            assert abs(rate - wire / (wire + 20)) <= 3 / (wire + 20) / (count - 1) + 1e-9, f"len {n}: {rate}"
    dut._log.info("DIC_EN %d: %d sizes back to back within IFG bounds", DIC_EN, len(sizes))


@cocotb.test()
async def test_underflow_and_abort(dut):
    """Source idle inside frames (underflow): the frame ends in /E/, an underflow record; aborted
    frames (tuser[0] on the last beat) end in /E/ with an err_ctrl record; clean frames after both."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_tx_underflow")
    tb.src.set_pause_generator(itertools.cycle([0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1]))
    under = [ethtb.make_frame(rng.randint(60, 400), rng) for _ in range(8)]
    for data in under:
        await tb.src.send(AxiStreamFrame(data))
    await tb.src.wait()
    tb.src.clear_pause_generator()
    tb.src.pause = False   # clearing the generator keeps its last value
    aborted = [ethtb.make_frame(rng.randint(14, 300), rng) for _ in range(4)]
    for data in aborted:
        tb.src.send_nowait(AxiStreamFrame(data, tuser=[0] * (len(data) - 1) + [1]))
    clean = [ethtb.make_frame(rng.randint(60, 1514), rng) for _ in range(4)]
    for data in clean:
        tb.src.send_nowait(AxiStreamFrame(data))
    kinds = []
    for data in under + aborted + clean:
        rx = await with_timeout(tb.sink.recv(), 200, "us")
        if rx.ctrl is None:
            assert rx.check_fcs() and bytes(rx.get_payload()) == data.ljust(60, b"\0")
            kinds.append("good")
        else:
            assert rx.data[-1] == 0xfe and rx.ctrl[-1], "a broken frame must end in /E/"
            kinds.append("bad")
    await ClockCycles(dut.clk, 10)
    n_u = sum(1 for r in tb.stats if r["underflow"])
    assert n_u > 0 and n_u == kinds[:len(under)].count("bad")
    assert kinds[len(under):] == ["bad"] * len(aborted) + ["good"] * len(clean)
    ab = [r for r in tb.stats if r["err_ctrl"]]
    assert [(r["good"], r["len"]) for r in ab] == [(0, max(len(d), 60) + 4) for d in aborted]
    assert len(tb.stats) == len(tb.ts) == len(under) + len(aborted) + len(clean)
    dut._log.info("underflows %d of %d stalled frames, %d aborts", n_u, len(under), len(ab))


@pytest.mark.parametrize("dic_en", [1, 0])
def test_beryl_eth_mac_10g_tx(dic_en):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_10g_tx", "rtl/eth/beryl_eth_mac_10g_tx.f", "test_beryl_eth_mac_10g_tx",
                  Path(__file__).parent, parameters={"DIC_EN": dic_en},
                  testcase=None if dic_en else ["test_back_to_back_ifg"])
