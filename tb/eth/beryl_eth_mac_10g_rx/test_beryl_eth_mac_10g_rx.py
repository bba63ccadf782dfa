# SPDX-License-Identifier: MIT
"""beryl_eth_mac_10g_rx on its own: cocotbext-eth XgmiiSource (third party) in, cocotbext-axi
AxiStreamMonitor (third party) out, scapy frames, FCS from zlib; the statistics record, PAUSE outputs
and the timestamp in tuser checked directly.

Stream modes: "none" (minimum legal IFG, frames back to back) and "idle" (random IFG 5..40 and
lane-4 starts). The output has no tready (the wire cannot wait), so there is no sink backpressure.
MAX_FRAME_LEN is 1518 here so oversize frames are short to simulate."""
import logging
import os
import struct
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamMonitor
from cocotbext.eth import XgmiiFrame, XgmiiSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

PERIOD_PS = 6400
MAX_FRAME_LEN = int(os.environ.get("PARAM_MAX_FRAME_LEN", "1518"))


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.src = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
        self.mon = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "m_axis_rx"), dut.clk, dut.rst)
        for m in (self.src, self.mon):
            m.log.setLevel(logging.WARNING)
        dut.rx_ptp_ts.value = 0
        self.stats, self.pauses, self.sfd_ps = [], [], []
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            now = int(get_sim_time("ps"))
            d.rx_ptp_ts.value = now + PERIOD_PS // 2     # time of the coming rising edge
            if int(d.rst.value):
                continue
            rec = ethtb.decode_stat(d.rx_stat.value)
            if rec["valid"]:
                self.stats.append(rec)
            if int(d.rx_pause_valid.value):
                self.pauses.append(int(d.rx_pause_quanta.value))
            c = int(d.xgmii_rxc.value)
            if c & 0x11:
                rxd = int(d.xgmii_rxd.value)
                # the word carrying the SFD is registered at the next rising edge (lane 0 start) or
                # the one after (lane 4 start)
                if c & 1 and rxd & 0xff == 0xfb:
                    self.sfd_ps.append(now + PERIOD_PS // 2)
                elif c & 0x10 and rxd >> 32 & 0xff == 0xfb:
                    self.sfd_ps.append(now + PERIOD_PS // 2 + PERIOD_PS)

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 4)
        for lst in (self.stats, self.pauses, self.sfd_ps):
            lst.clear()

    async def expect(self, data, bad):
        f = await with_timeout(self.mon.recv(), 200, "us")
        u = f.tuser[-1] if isinstance(f.tuser, list) else f.tuser
        assert bytes(f.tdata) == data, f"payload mismatch: len {len(data)} sent, {len(f.tdata)} received"
        assert u & 1 == bad, f"tuser[0] {u & 1}, expected {bad} (len {len(data)})"
        if isinstance(f.tuser, list):
            assert len({x >> 1 for x in f.tuser}) == 1, "timestamp must be the same on every beat"
        return u >> 1


def xgmii_frame(data, good_fcs=True):
    return XgmiiFrame.from_raw_payload(data + (ethtb.fcs(data) if good_fcs else b"\xa5" * 4))


def rec_of(data, good=True, **flags):
    r = {"good": int(good), "len": len(data) + 4, "bad_fcs": 0, "runt": 0, "oversize": 0, "err_ctrl": 0,
         "bcast": int(data[:6] == b"\xff" * 6), "mcast": int(bool(data[0] & 1) and data[:6] != b"\xff" * 6)}
    r.update(flags)
    return r


KEYS = ("good", "len", "bad_fcs", "runt", "oversize", "err_ctrl", "bcast", "mcast")


def cmp_records(got, want):
    g = [tuple(r[k] for k in KEYS) for r in got]
    w = [tuple(r.get(k, 0) for k in KEYS) for r in want]
    assert g == w, f"records\n got  {g}\n want {w}"


@cocotb.test()
async def test_frames(dut):
    """Lengths 60..1514 in both stream modes with lane-0 and lane-4 starts: payload intact, FCS
    stripped, no error flag, one record per frame, timestamp at a fixed distance from the SFD."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_rx_frames")
    for mode in ("none", "idle"):
        lengths = ethtb.sweep_lengths(rng, 60, 1514, sample=16)
        rng.shuffle(lengths)
        sent = []
        for i, n in enumerate(lengths):
            data = ethtb.make_frame(n, rng, dst=["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff",
                                                 "01:00:5e:00:00:01"][i % 3])
            tb.src.ifg = 5 if mode == "none" else rng.choice([5, 8, 12, 20, 40])
            tb.src.force_offset_start = mode == "idle" and rng.random() < 0.4
            await tb.src.send(xgmii_frame(data))
            sent.append(data)
        ts = [await tb.expect(d, 0) for d in sent]
        await ClockCycles(dut.clk, 10)
        cmp_records(tb.stats, [rec_of(d) for d in sent])
        offs = {s - t for s, t in zip(tb.sfd_ps, ts)}
        assert len(tb.sfd_ps) == len(sent) and len(offs) == 1, f"{mode}: SFD-timestamp offsets {offs}"
        dut._log.info("%s: %d frames, SFD minus timestamp %s ps", mode, len(sent), offs)
        await tb.reset()


@cocotb.test()
async def test_bad_frames(dut):
    """Bad FCS, runts, a 4-byte frame, oversize (cut at MAX_FRAME_LEN), /E/ inside a frame, /S/
    without SFD; a good frame after each arrives intact; records match. Back to back (IFG 5)."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_rx_bad")
    tb.src.ifg = 5
    want = []

    async def good():
        data = ethtb.make_frame(rng.randint(60, 300), rng)
        await tb.src.send(xgmii_frame(data))
        await tb.expect(data, 0)
        want.append(rec_of(data))

    for n in (60, 61, 64, 67, 500):
        data = ethtb.make_frame(n, rng)
        await tb.src.send(xgmii_frame(data, good_fcs=False))
        await tb.expect(data, 1)
        want.append(rec_of(data, good=False, bad_fcs=1))
        await good()
    for n, ok in ((20, True), (59, True), (1, False), (33, False)):
        data = ethtb.make_frame(n, rng)
        await tb.src.send(xgmii_frame(data, good_fcs=ok))
        await tb.expect(data, 1)
        want.append(rec_of(data, good=False, runt=1, bad_fcs=int(not ok)))
        await good()
    await tb.src.send(XgmiiFrame.from_raw_payload(b"\x01\x02\x03\x04"))
    want.append({"good": 0, "len": 4, "runt": 1, "bad_fcs": 1})
    await good()
    data = ethtb.make_frame(MAX_FRAME_LEN + 50, rng)
    await tb.src.send(xgmii_frame(data))
    await tb.expect(data[:MAX_FRAME_LEN - MAX_FRAME_LEN % 8], 1)
    want.append({"good": 0, "len": MAX_FRAME_LEN - MAX_FRAME_LEN % 8 + 8, "oversize": 1})
    await good()
    data = ethtb.make_frame(MAX_FRAME_LEN - 4, rng)
    await tb.src.send(xgmii_frame(data))
    await tb.expect(data, 0)
    want.append(rec_of(data))
    for pos in (30, 64, 101, 104, 105):
        data = ethtb.make_frame(200, rng)
        f = xgmii_frame(data)
        f.normalize()
        f.data[8 + pos] = 0xfe
        f.ctrl[8 + pos] = 1
        await tb.src.send(f)
        await tb.expect(data[:pos - 4], 1)
        want.append({"good": 0, "len": pos, "err_ctrl": 1, "bad_fcs": 1, "runt": int(pos < 64)})
        await good()
    f = xgmii_frame(ethtb.make_frame(80, rng))
    f.data[7] = 0x55
    await tb.src.send(f)
    want.append({"good": 0, "len": 0, "err_ctrl": 1})
    await good()
    await ClockCycles(dut.clk, 20)
    assert tb.mon.empty()
    cmp_records(tb.stats, want)


@cocotb.test()
async def test_pause(dut):
    """PAUSE (type 0x8808, opcode 1) reported with its quanta and counted in the record; another
    opcode and a PAUSE with a bad FCS are not."""
    tb = TB(dut)
    await tb.reset()
    da, sa = bytes.fromhex("0180c2000001"), bytes.fromhex("020000000001")
    cases = [(1, 0x1234, True), (2, 0x0001, True), (1, 0xffff, False), (1, 0x0007, True)]
    for op, q, ok in cases:
        data = (da + sa + struct.pack(">HHH", 0x8808, op, q)).ljust(60, b"\0")
        await tb.src.send(xgmii_frame(data, good_fcs=ok))
        await tb.expect(data, int(not ok))
    await ClockCycles(dut.clk, 10)
    assert tb.pauses == [0x1234, 0x0007]
    assert [r["pause"] for r in tb.stats] == [1, 0, 0, 1]


def test_beryl_eth_mac_10g_rx():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_10g_rx", "rtl/eth/beryl_eth_mac_10g_rx.f", "test_beryl_eth_mac_10g_rx",
                  Path(__file__).parent, parameters={"MAX_FRAME_LEN": 1518})
