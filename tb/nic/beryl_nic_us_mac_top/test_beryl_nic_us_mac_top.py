# SPDX-License-Identifier: MIT
"""The NIC with 100G MACs (beryl_nic_us_mac_top) on the third-party cocotbext-pcie model, driven only
through the Python driver model: interface 0's port is cabled to interface 1's port through a wire of
WIRE_DELAY registers (tb_beryl_nic_us_mac_top.sv). TX and RX timestamps are the MACs' start-of-frame times.

Independent reference: this test's own monitor of the cable (not the RTL's timestamp path) finds every
frame's /S/ + preamble + SFD column on the CGMII words (format of docs/blocks/eth.md, "Wire side") and
reads the NIC's PTP time of day there:
- TX: the TX MAC samples the time at the clock edge that launches the word holding /S/ + SFD onto
  cgmii_txd, i.e. the time of day of the cycle before the word shows on cgmii_txd (docs/blocks/eth.md,
  Timestamps); every TX completion's timestamp must equal that time + PORT_TX_TS_CORR.
- RX: the RX MAC samples the time at the edge that registers the wire word holding the SFD (its input
  register), i.e. the time of day of the cycle the word is on cgmii_rxd; every RX completion's timestamp
  must equal that + PORT_RX_TS_CORR.
So across the cable RX - TX = (WIRE_DELAY + 1) clocks + the corrections, for every frame: the +1 is the
MAC pair's fixed stage (launch edge to capture edge, one clock even for a wire of no registers). Two
builds, WIRE_DELAY 7 and 2, so the measured delay is seen to follow the wire. Frames
(scapy, 60..1514 bytes and jumbo) go with random host-side pacing; they must arrive intact and in order.
One frame has a byte flipped on the wire: the RX MAC flags its FCS, the NIC drops it and counts it in
RX_DROP_MAC_ERR, and the frames after it keep exact timestamps. The MAC and adapter drop counters stay 0.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "common"))
sys.path.insert(0, str(HERE.parents[0]))
sys.path.insert(0, str(HERE.parents[0] / "beryl_nic_us_top"))
import beryl_seed  # noqa: E402
from model import beryl_nic as N  # noqa: E402
from test_beryl_nic_us_top import pump, send_all, setup, tod_units  # noqa: E402

WIRE_DELAY = int(os.environ.get("PARAM_WIRE_DELAY", "7"))
CLK = 4 << 16                 # one clock (4 ns) in 2^-16 ns
ALL64 = (1 << 64) - 1


class WireMonitor:
    """Every clock (after the edge, ReadOnly): finds columns holding /S/ (0xfb, control, lane 0 of the
    column) + six 0x55 + SFD 0xd5 (data) on the TX side of port 0 and the RX side of port 1, and records
    the PTP time of day (2^-16 ns) of that clock and of the clock before. Optionally XORs `xor` into the
    0 -> 1 wire during the clock after the TX /S/ of frame number `corrupt` (counted from 0)."""

    def __init__(self, dut):
        self.dut = dut
        self.tx, self.rx = [], []   # (time of the clock before, time of this clock)
        self.corrupt = None
        self.xor = 0
        dut.wire_xor.value = 0
        cocotb.start_soon(self.run())

    @staticmethod
    def starts(d, c):
        out = 0
        if c in (0, ALL64):           # all data or all control: no start column in the word
            return 0
        for col in range(8):
            if (c >> 8 * col) & 0xFF != 1:
                continue
            w = (d >> 64 * col) & ALL64
            if w == 0xD5555555555555FB:
                out += 1
        return out

    async def run(self):
        d = self.dut
        prev = 0
        pending = 0
        while True:
            hit = False
            await RisingEdge(d.clk)
            await ReadOnly()
            now = tod_units(int(d.ptp_tod.value))
            txc = int(d.cgmii_txc.value) & ALL64
            rxc = (int(d.cgmii_rxc.value) >> 64) & ALL64
            if txc not in (0, ALL64):
                n = self.starts(int(d.cgmii_txd.value) & ((1 << 512) - 1), txc)
                for _ in range(n):
                    hit |= self.corrupt is not None and len(self.tx) == self.corrupt
                    self.tx.append((prev, now))
            if rxc not in (0, ALL64):
                n = self.starts(int(d.cgmii_rxd.value) >> 512, rxc)
                self.rx += [(prev, now)] * n
            prev = now
            if pending == 2:           # the clock after the /S/ word: frame data (frames >= 128 bytes)
                await FallingEdge(d.clk)
                d.wire_xor.value = self.xor
                pending = 3
            elif pending == 3:
                await FallingEdge(d.clk)
                d.wire_xor.value = 0
                pending = 0
            if hit:
                pending = 2


def frames_of(rng, n, jumbo=0):
    out = []
    for k in range(n):
        size = [60, 64, 65, 1514][k] if k < 4 else \
            rng.choice([rng.randint(60, 130), rng.randint(60, 1514), rng.randint(1000, 1514)])
        if k >= n - jumbo:
            size = rng.randint(8000, 9014)
        eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
        pkt = eth / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1000 + k, dport=2000)
        pad = max(0, size - len(pkt))
        out.append(bytes(pkt / Raw(rng.randbytes(pad))))
    rng.shuffle(out)
    return out


@cocotb.test()
async def test_mac_timestamps(dut):
    tb, dev = await setup(dut, seed=beryl_seed.seed(21, "test_mac_timestamps"))
    rng = tb.rng
    ptp = dev.ptp
    a, b = dev.interfaces
    for nif in (a, b):
        await nif.start(txq_count=1, rxq_count=1, log_size=6, rx_buf_size=16384, tx_buf_size=16384)
    mon = WireMonitor(dut)
    sec0 = 0x2_0007
    await ptp.set_time(sec0, N.NS_PER_S - 6000)   # the second rolls over during the first run
    diffs_all = []

    async def run(frames, corr_tx, corr_rx, bad=None):
        await a.set_ts_corr(0, tx_units=corr_tx)
        await b.set_ts_corr(0, rx_units=corr_rx)
        t0 = await ptp.get_time()
        m_tx, m_rx = len(mon.tx), len(mon.rx)
        if bad is not None:
            mon.corrupt = m_tx + bad
            mon.xor = 0xFF << (8 * 20)      # lane 20 of the word after /S/
        tx = []
        for f in frames:                    # random host-side pacing
            tx += await send_all(dut, a, [f])
            if rng.random() < 0.5:
                await ClockCycles(dut.clk, rng.randint(1, 400))
        n = len(frames)
        want_rx = n - (bad is not None)
        rx, tx2 = await pump(dut, [b, a], want_rx, n - len(tx))
        tx += tx2
        await ClockCycles(dut.clk, 200)
        mon.corrupt = None
        good = [f for k, f in enumerate(frames) if k != bad]
        assert [f for _, f, _ in rx] == good, "frames lost, changed or reordered"
        assert all(c.status == N.CPL_OK for c in tx) and len(tx) == n
        txw, rxw = mon.tx[m_tx:], mon.rx[m_rx:]
        assert len(txw) == n and len(rxw) == n, f"{len(txw)} TX / {len(rxw)} RX starts on the wire for {n}"
        txu = [N.ts_units(c.timestamp, t0[0]) for c in tx]
        rxu = [N.ts_units(c.timestamp, t0[0]) for _, _, c in rx]
        for k in range(n):
            assert txu[k] - corr_tx == txw[k][0], \
                f"frame {k}: TX timestamp {(txu[k] - corr_tx - txw[k][0]) / 65536} ns off the wire's /S/ launch"
        rx_wire = [w for k, w in enumerate(rxw) if k != bad]
        tx_good = [t for k, t in enumerate(txu) if k != bad]
        diffs = []
        for k in range(want_rx):
            assert rxu[k] - corr_rx == rx_wire[k][1], \
                f"frame {k}: RX timestamp {(rxu[k] - corr_rx - rx_wire[k][1]) / 65536} ns off the wire's SFD word"
            d = (rxu[k] - corr_rx) - (tx_good[k] - corr_tx)
            diffs.append(d)
            assert d == (WIRE_DELAY + 1) * CLK, f"frame {k}: RX - TX = {d / 65536} ns"
        diffs_all.extend(diffs)
        dut._log.info("%d frames (%d received), corrections TX %+.3f RX %+.3f ns: RX - TX - corrections = %s ns",
                      n, want_rx, corr_tx / 65536, corr_rx / 65536,
                      sorted({x / 65536 for x in diffs}))
        return txu

    txu = await run(frames_of(rng, 24, jumbo=2), 0, 0)
    secs = sorted({t // (N.NS_PER_S << 16) - sec0 for t in txu})
    assert secs == [0, 1], f"the first run's frames did not straddle the second: sec0 + {secs}"
    await run(frames_of(rng, 16, jumbo=1), (100 << 16) + 0x8000, -(37 << 16) - 0x4000)
    frames = frames_of(rng, 18)
    frames[2] = bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP() / UDP() / Raw(rng.randbytes(600)))
    await run(frames, 12 << 16, -(5 << 16), bad=2)
    cnt_b = await b.counters()
    assert cnt_b["rx_drop_mac_err"] == 1, cnt_b
    others = {k: v for nif in (a, b) for k, v in (await nif.counters()).items()
              if v and ("drop" in k or "err" in k) and k != "rx_drop_mac_err"}
    assert not others, others
    for name in ("tx_underflow_count", "rx_mac_drop_count", "rx_mac_short_count", "rx_fifo_drop_count",
                 "rx_fifo_cut_count"):
        assert int(getattr(dut, name).value) == 0, f"{name} = {getattr(dut, name).value}"
    dut._log.info("RX - TX over a %d-register wire: %d frames, all exactly %.1f ns (%d clocks)", WIRE_DELAY,
                  len(diffs_all), diffs_all[0] / 65536, diffs_all[0] // CLK)


@pytest.mark.parametrize("wire_delay", [7, 2])
def test_beryl_nic_us_mac_top(wire_delay):
    import beryl_sim
    beryl_sim.run("tb_beryl_nic_us_mac_top", "tb/nic/beryl_nic_us_mac_top/tb_beryl_nic_us_mac_top.f",
                  "test_beryl_nic_us_mac_top", HERE,
                  parameters=dict(IF_COUNT=2, PORT_COUNT=1, TXQ_COUNT=16, RXQ_COUNT=4, CQ_COUNT=32, EQ_COUNT=2,
                                  TX_SLOTS=16, RX_SLOTS=16, MAX_FRAME=16384, WIRE_DELAY=wire_delay))
