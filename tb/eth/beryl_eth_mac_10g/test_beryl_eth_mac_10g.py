# SPDX-License-Identifier: MIT
"""beryl_eth_mac_10g (TX, RX and both statistics blocks) against cocotbext-eth's XGMII source/sink,
cocotbext-axi streams, scapy frames and zlib's CRC-32.

Default tier: sampled lengths. BERYL_LONG=1: every length 60..1514 (TX also 14..59) and more DIC runs.
"""
import itertools
import logging
import struct
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamMonitor, AxiStreamSource
from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

PERIOD_PS = 6400          # 156.25 MHz: 64 bits per clock = 10 Gb/s
MAX_FRAME_LEN = 9216
PRE = b"\x55" * 7 + b"\xd5"
IDLE_WORD = 0x0707070707070707


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.tx_clk, PERIOD_PS, unit="ps").start()
        Clock(dut.rx_clk, PERIOD_PS, unit="ps").start()
        self.axis_src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_tx"), dut.tx_clk, dut.tx_rst)
        self.axis_mon = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "m_axis_rx"), dut.rx_clk, dut.rx_rst)
        self.xgmii_sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.tx_clk, dut.tx_rst)
        self.xgmii_src = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.rx_clk, dut.rx_rst)
        for m in (self.axis_src, self.axis_mon, self.xgmii_sink, self.xgmii_src):
            m.log.setLevel(logging.WARNING)
        for s in (dut.tx_stat_clear, dut.rx_stat_clear, dut.tx_stat_rd_addr, dut.rx_stat_rd_addr,
                  dut.tx_ptp_ts, dut.rx_ptp_ts):
            s.value = 0
        self.tx_stats, self.rx_stats, self.tx_ts, self.pauses = [], [], [], []
        self.tx_starts, self.tx_terms, self.tx_sfd_ps, self.rx_sfd_ps = [], [], [], []
        cocotb.start_soon(self._tx_domain())
        cocotb.start_soon(self._rx_domain())

    async def _tx_domain(self):
        """Drive tx_ptp_ts with the time of the latest edge (ps); collect stats and timestamps, and
        note where /S/ and /T/ sit on xgmii_txd (byte index) and the edge time of each SFD word."""
        d = self.dut
        cycle = 0
        while True:
            await RisingEdge(d.tx_clk)
            now = int(get_sim_time("ps"))
            d.tx_ptp_ts.value = now
            cycle += 1
            if int(d.tx_rst.value):
                continue
            if int(d.tx_ts_valid.value):
                self.tx_ts.append((int(d.tx_ts.value), int(d.tx_ts_tag.value)))
            rec = ethtb.decode_stat(d.tx_stat.value)
            if rec["valid"]:
                self.tx_stats.append(rec)
            c = int(d.xgmii_txc.value)
            txd = int(d.xgmii_txd.value)
            if c and (c != 0xff or txd != IDLE_WORD):
                for lane in range(8):
                    if c >> lane & 1:
                        b = txd >> (8 * lane) & 0xff
                        if b == 0xfb:
                            self.tx_starts.append(cycle * 8 + lane)
                            self.tx_sfd_ps.append(now + (PERIOD_PS if lane == 4 else 0))
                        elif b == 0xfd:
                            self.tx_terms.append(cycle * 8 + lane)

    async def _rx_domain(self):
        d = self.dut
        while True:
            await RisingEdge(d.rx_clk)
            now = int(get_sim_time("ps"))
            d.rx_ptp_ts.value = now
            if int(d.rx_rst.value):
                continue
            rec = ethtb.decode_stat(d.rx_stat.value)
            if rec["valid"]:
                self.rx_stats.append(rec)
            if int(d.rx_pause_valid.value):
                self.pauses.append(int(d.rx_pause_quanta.value))
            c = int(d.xgmii_rxc.value)
            if c & 0x11:
                rxd = int(d.xgmii_rxd.value)
                if c & 1 and rxd & 0xff == 0xfb:
                    self.rx_sfd_ps.append(now)
                elif c & 0x10 and rxd >> 32 & 0xff == 0xfb:
                    self.rx_sfd_ps.append(now + PERIOD_PS)

    async def reset(self):
        d = self.dut
        d.tx_rst.value = 1
        d.rx_rst.value = 1
        await ClockCycles(d.tx_clk, 4)
        d.tx_rst.value = 0
        d.rx_rst.value = 0
        await ClockCycles(d.tx_clk, 4)
        for lst in (self.tx_stats, self.rx_stats, self.tx_ts, self.pauses, self.tx_starts, self.tx_terms,
                    self.tx_sfd_ps, self.rx_sfd_ps):
            lst.clear()

    async def read_counters(self, side):
        d = self.dut
        clk = getattr(d, f"{side}_clk")
        addr = getattr(d, f"{side}_stat_rd_addr")
        data = getattr(d, f"{side}_stat_rd_data")
        out = {}
        for name, idx in ethtb.CNT.items():
            addr.value = idx
            await RisingEdge(clk)
            await RisingEdge(clk)
            await RisingEdge(clk)
            out[name] = int(data.value)
        return out

    async def check_counters(self, side, records):
        got = await self.read_counters(side)
        exp = ethtb.expected_counters(records)
        assert got == exp, f"{side} counters: got {got}, expected {exp}"
        return got


def rx_user(frame):
    u = frame.tuser[-1] if isinstance(frame.tuser, list) else frame.tuser
    return u & 1, u >> 1


def dst_for(i):
    return ["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01"][i % 3]


def tx_record(data, good=True, **flags):
    wire = max(len(data), 60) + 4
    rec = {"good": int(good), "len": wire, "bcast": int(data[:6] == b"\xff" * 6),
           "mcast": int(bool(data[0] & 1) and data[:6] != b"\xff" * 6)}
    rec.update(flags)
    return rec


# ------------------------------------------------------------------------------------------------
# Transmit
# ------------------------------------------------------------------------------------------------

@cocotb.test()
async def test_tx_frames(dut):
    """Lengths 14..1514 (padding below 60) and jumbo 9000: preamble, padding, FCS, tags, timestamps,
    counters. Half of the frames follow a random idle gap on the user stream."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_tx_frames")
    lengths = ethtb.sweep_lengths(rng, 14, 1514) + [9000]
    rng.shuffle(lengths)
    sent = []
    for i, n in enumerate(lengths):
        data = ethtb.make_frame(n, rng, dst=dst_for(i))
        await tb.axis_src.send(AxiStreamFrame(data, tuser=(i & 0xffff) << 1))
        sent.append(data)
        if rng.random() < 0.5:
            await tb.axis_src.wait()
            await ClockCycles(dut.tx_clk, rng.randint(1, 24))
    lanes = set()
    for i, data in enumerate(sent):
        rx = await with_timeout(tb.xgmii_sink.recv(), 200, "us")
        assert rx.ctrl is None, f"frame {i} len {len(data)}: control characters: {bytes(rx.data[-12:]).hex()} {rx.ctrl[-12:]}"
        assert bytes(rx.data[:8]) == PRE, f"frame {i}: bad preamble"
        assert rx.check_fcs(), f"frame {i} (len {len(data)}): bad FCS"
        assert bytes(rx.get_payload()) == data.ljust(60, b"\0"), f"frame {i} (len {len(data)}): payload"
        assert bytes(rx.get_fcs()) == ethtb.fcs(data.ljust(60, b"\0"))
        lanes.add(rx.start_lane)
        # TX timestamp: one per frame, in order, with its tag, at a fixed distance from the SFD
        ts, tag = tb.tx_ts[i]
        assert tag == i & 0xffff
        tb.tx_ts[i] = (tb.tx_sfd_ps[i] - ts, tag)
    offsets = {o for o, _ in tb.tx_ts[:len(sent)]}
    assert len(offsets) == 1, f"TX timestamp to SFD offset not constant: {offsets}"
    dut._log.info("TX: %d frames, start lanes %s, SFD-cycle minus timestamp %s ps",
                  len(sent), sorted(lanes), offsets)
    await ClockCycles(dut.tx_clk, 10)
    exp = [tx_record(d) for d in sent]
    assert [(r["good"], r["len"]) for r in tb.tx_stats] == [(1, e["len"]) for e in exp]
    await tb.check_counters("tx", exp)


async def run_back_to_back(tb, n, count):
    """Queue `count` frames of `n` bytes at once; return the IFGs (bytes, /T/ included) and the
    measured data rate as a fraction of the line rate."""
    rng = ethtb.seeded(f"b2b{n}")
    for _ in range(count):
        tb.axis_src.send_nowait(AxiStreamFrame(ethtb.make_frame(n, rng)))
    tb.tx_starts.clear()
    tb.tx_terms.clear()
    for _ in range(count):
        f = await with_timeout(tb.xgmii_sink.recv(), 500, "us")
        assert f.ctrl is None and f.check_fcs()
    await ClockCycles(tb.dut.tx_clk, 4)
    s, t = tb.tx_starts, tb.tx_terms
    assert len(s) == count and len(t) == count
    gaps = [s[k + 1] - t[k] for k in range(count - 1)]
    span = s[-1] - s[0]
    wire = max(n, 60) + 4
    return gaps, wire * (count - 1) / span


@cocotb.test()
async def test_tx_ifg_dic(dut):
    """Back-to-back frames: every IFG in 9..15 bytes, the running sum within the deficit (0..3) of
    12 per gap, so the rate equals line rate with preamble and IFG accounted."""
    tb = TB(dut)
    await tb.reset()
    sizes = list(range(60, 76)) + [100, 127, 128, 256, 511, 512, 1024, 1500, 1514]
    if ethtb.LONG:
        sizes = list(range(60, 200)) + list(range(1400, 1515))
    count = 24
    rows = []
    for n in sizes:
        gaps, rate = await run_back_to_back(tb, n, count)
        assert min(gaps) >= 9 and max(gaps) <= 15, f"len {n}: IFG outside 9..15: {gaps}"
        total = sum(gaps)
        assert 12 * len(gaps) - 3 <= total <= 12 * len(gaps), f"len {n}: IFG sum {total} for {len(gaps)} gaps"
        for k in range(len(gaps)):
            part = sum(gaps[:k + 1])
            assert 12 * (k + 1) - 3 <= part <= 12 * (k + 1), f"len {n}: deficit out of 0..3 after gap {k}"
        wire = max(n, 60) + 4
        theory = wire / (wire + 20)
        rows.append((n, total / len(gaps), rate, theory))
        assert abs(rate - theory) <= 3 / (wire + 20) / (count - 1) + 1e-9, f"len {n}: rate {rate} vs {theory}"
    dut._log.info("frame(no FCS)  avg IFG  measured  line-rate share (10G: x10 Gb/s)")
    for n, ifg, rate, theory in rows:
        dut._log.info("%13d  %7.3f  %8.5f  %8.5f", n, ifg, rate, theory)


@cocotb.test()
async def test_tx_underflow_and_abort(dut):
    """A user stream that stalls mid-frame: the frame ends in /E/ and counts as underflow; an
    aborted frame (tuser[0] on the last beat) ends in /E/; frames after either are intact."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_tx_underflow")
    tb.axis_src.set_pause_generator(itertools.cycle([0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1]))
    sent = [ethtb.make_frame(rng.randint(60, 300), rng) for _ in range(12)]
    for data in sent:
        await tb.axis_src.send(AxiStreamFrame(data))
    await tb.axis_src.wait()
    tb.axis_src.clear_pause_generator()
    tb.axis_src.pause = False   # clearing the generator keeps its last value
    aborted = [ethtb.make_frame(rng.randint(60, 200), rng) for _ in range(4)]
    for data in aborted:
        await tb.axis_src.send(AxiStreamFrame(data, tuser=[0] * (len(data) - 1) + [1]))
    clean = [ethtb.make_frame(rng.randint(60, 1514), rng) for _ in range(6)]
    for data in clean:
        await tb.axis_src.send(AxiStreamFrame(data))
    exp = []
    n_under = 0
    for data in sent + aborted + clean:
        rx = await with_timeout(tb.xgmii_sink.recv(), 200, "us")
        if rx.ctrl is None:
            assert rx.check_fcs() and bytes(rx.get_payload()) == data.ljust(60, b"\0")
            exp.append(tx_record(data))
        else:
            assert rx.data[-1] == 0xfe and rx.ctrl[-1], "frame with control characters must end in /E/"
            if data in aborted:
                exp.append(tx_record(data, good=False, err_ctrl=1))
            else:
                n_under += 1
                exp.append(None)
    assert n_under > 0, "pause pattern produced no underflow"
    assert all(e is not None and e["good"] for e in exp[-len(clean):])
    assert sum(1 for e in exp if e and e.get("err_ctrl")) == len(aborted)
    await ClockCycles(dut.tx_clk, 10)
    assert len(tb.tx_stats) == len(exp) and len(tb.tx_ts) == len(exp)
    recs = []
    for e, r in zip(exp, tb.tx_stats):
        if e is None:
            assert r["underflow"] and not r["good"]
            recs.append(r)
        else:
            assert (r["good"], r["len"], r["err_ctrl"]) == (e["good"], e["len"], e.get("err_ctrl", 0))
            recs.append(e)
    got = await tb.check_counters("tx", recs)
    dut._log.info("TX underflows %d, aborts %d, counters %s", got["underflow"], got["err_ctrl"], got)


# ------------------------------------------------------------------------------------------------
# Receive
# ------------------------------------------------------------------------------------------------

def xgmii_frame(data, good_fcs=True, done=None):
    raw = data + (ethtb.fcs(data) if good_fcs else bytes(4 * [0xa5]))
    return XgmiiFrame.from_raw_payload(raw, tx_complete=done)


async def rx_expect(tb, data, bad, ts_log=None):
    f = await with_timeout(tb.axis_mon.recv(), 200, "us")
    err, ts = rx_user(f)
    assert bytes(f.tdata) == data, f"RX payload mismatch (len {len(data)} vs {len(f.tdata)})"
    assert err == bad, f"RX tuser error bit {err}, expected {bad} (len {len(data)})"
    if ts_log is not None:
        ts_log.append(ts)
    return f


@cocotb.test()
async def test_rx_frames(dut):
    """Lengths 60..1514 and jumbo 9000 with IFGs from 5 to 20 and lane-0/lane-4 starts: payload,
    FCS stripped, no error flag, timestamps at a fixed distance from the SFD, counters."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_rx_frames")
    lengths = ethtb.sweep_lengths(rng, 60, 1514) + [9000]
    rng.shuffle(lengths)
    sent, done, recs = [], [], []
    for i, n in enumerate(lengths):
        data = ethtb.make_frame(n, rng, dst=dst_for(i))
        tb.xgmii_src.ifg = rng.choice([5, 8, 12, 12, 12, 20])
        tb.xgmii_src.force_offset_start = rng.random() < 0.25
        await tb.xgmii_src.send(xgmii_frame(data, done=done.append))
        sent.append(data)
        recs.append(tx_record(data))
        while tb.xgmii_src.count() > 2:
            await RisingEdge(dut.rx_clk)
    ts_log = []
    for data in sent:
        await rx_expect(tb, data, 0, ts_log)
    offsets = {sfd - ts for sfd, ts in zip(tb.rx_sfd_ps, ts_log)}
    assert len(tb.rx_sfd_ps) == len(ts_log)
    assert len(offsets) == 1, f"RX timestamp to SFD offset not constant: {offsets}"
    lanes = {f.start_lane for f in done}
    dut._log.info("RX: %d frames, start lanes %s, SFD-cycle minus timestamp %s ps", len(sent), lanes, offsets)
    assert lanes == {0, 4}
    await ClockCycles(dut.rx_clk, 10)
    await tb.check_counters("rx", recs)


@cocotb.test()
async def test_rx_bad_frames(dut):
    """Bad FCS, runts (with good and bad FCS), a frame of 4 bytes, oversize, /E/ inside a frame and
    /S/ without SFD: each flagged (or dropped) and counted, and the good frame after each intact."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_rx_bad_frames")
    recs = []

    async def good():
        data = ethtb.make_frame(rng.randint(60, 200), rng)
        await tb.xgmii_src.send(xgmii_frame(data))
        await rx_expect(tb, data, 0)
        recs.append(tx_record(data))

    await good()
    # bad FCS
    for n in (60, 61, 64, 65, 67, 500):
        data = ethtb.make_frame(n, rng)
        await tb.xgmii_src.send(xgmii_frame(data, good_fcs=False))
        await rx_expect(tb, data, 1)
        recs.append(tx_record(data, good=False, bad_fcs=1))
        await good()
    # runts: wire length (with FCS) below 64, good and bad FCS
    for n, ok in ((20, True), (40, True), (59, True), (3, True), (1, False), (33, False)):
        data = ethtb.make_frame(n, rng)
        await tb.xgmii_src.send(xgmii_frame(data, good_fcs=ok))
        await rx_expect(tb, data, 1)
        recs.append(tx_record(data, good=False, runt=1, bad_fcs=int(not ok)) | {"len": n + 4})
        await good()
    # four bytes between /S/ and /T/: nothing left once the FCS is stripped, dropped and counted
    await tb.xgmii_src.send(XgmiiFrame.from_raw_payload(b"\x01\x02\x03\x04"))
    recs.append({"good": 0, "len": 4, "runt": 1, "bad_fcs": 1})
    await good()
    # oversize: cut at MAX_FRAME_LEN, flagged, the rest skipped
    data = ethtb.make_frame(MAX_FRAME_LEN + 100, rng)
    await tb.xgmii_src.send(xgmii_frame(data))
    await rx_expect(tb, data[:MAX_FRAME_LEN], 1)
    recs.append({"good": 0, "len": MAX_FRAME_LEN + 8, "oversize": 1})
    await good()
    # MAX_FRAME_LEN exactly is fine
    data = ethtb.make_frame(MAX_FRAME_LEN - 4, rng)
    await tb.xgmii_src.send(xgmii_frame(data))
    await rx_expect(tb, data, 0)
    recs.append(tx_record(data))
    # /E/ inside a frame: the frame ends there, flagged
    for pos in (30, 64, 101, 102, 103, 104, 105):
        data = ethtb.make_frame(200, rng)
        f = xgmii_frame(data)
        f.normalize()
        f.data[8 + pos] = 0xfe
        f.ctrl[8 + pos] = 1
        await tb.xgmii_src.send(f)
        await rx_expect(tb, data[:pos - 4], 1)
        recs.append({"good": 0, "len": pos, "err_ctrl": 1, "bad_fcs": 1, "runt": int(pos < 64)})
        await good()
    # /S/ followed by a broken SFD: no frame delivered, counted
    f = xgmii_frame(ethtb.make_frame(80, rng))
    f.data[7] = 0x55
    await tb.xgmii_src.send(f)
    recs.append({"good": 0, "len": 0, "err_ctrl": 1})
    await good()
    await ClockCycles(dut.rx_clk, 20)
    assert tb.axis_mon.empty(), "unexpected frames delivered"
    got = [(r["good"], r["len"], r["bad_fcs"], r["runt"], r["oversize"], r["err_ctrl"]) for r in tb.rx_stats]
    want = [(r["good"], r["len"], r.get("bad_fcs", 0), r.get("runt", 0), r.get("oversize", 0),
             r.get("err_ctrl", 0)) for r in recs]
    assert got == want, f"RX records\n got  {got}\n want {want}"
    counters = await tb.check_counters("rx", tb.rx_stats)
    dut._log.info("RX counters after bad frames: %s", counters)


@cocotb.test()
async def test_rx_pause(dut):
    """PAUSE frames (type 0x8808, opcode 1) are recognised, their quanta reported and counted;
    other MAC control opcodes and PAUSE frames with a bad FCS are not."""
    tb = TB(dut)
    await tb.reset()
    pause_da = bytes.fromhex("0180c2000001")
    sa = bytes.fromhex("020000000001")
    frames = [(pause_da + sa + struct.pack(">HHH", 0x8808, 1, 0x1234), True, True),
              (pause_da + sa + struct.pack(">HHH", 0x8808, 2, 0x0001), True, False),
              (pause_da + sa + struct.pack(">HHH", 0x8808, 1, 0xffff), False, False),
              (pause_da + sa + struct.pack(">HHH", 0x8808, 1, 0x0007), True, True)]
    for data, ok, _ in frames:
        await tb.xgmii_src.send(xgmii_frame(data.ljust(60, b"\0"), good_fcs=ok))
        await rx_expect(tb, data.ljust(60, b"\0"), int(not ok))
    await ClockCycles(dut.rx_clk, 10)
    assert tb.pauses == [0x1234, 0x0007], tb.pauses
    c = await tb.read_counters("rx")
    assert c["pause"] == 2 and c["mcast"] == 4 and c["bad_fcs"] == 1


def test_beryl_eth_mac_10g():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_10g", "rtl/eth/beryl_eth_mac_10g.f", "test_beryl_eth_mac_10g",
                  Path(__file__).parent, parameters={"MAX_FRAME_LEN": MAX_FRAME_LEN})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
