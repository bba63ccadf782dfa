# SPDX-License-Identifier: MIT
"""beryl_eth_mac_100g_rx -> beryl_eth_seg_to_axis (harness beryl_eth_seg_to_axis_mac_tb.sv): the adapter
on the real MAC's seg output, at the MAC's clock. Wire words from ethtb.cgmii_words (written from the wire
format), scapy frames with the zlib FCS; the AXI-Stream output is checked by the unit test's beat and
frame checks (test_beryl_eth_seg_to_axis.check): frames in order without FCS, bad FCS as tuser, the
timestamp of the wire word holding the frame's SFD on every beat.

- test_line_rate: minimum gaps kept to one output beat per 64 bytes of wire (cgmii_words out_rate), i.e.
  the load one beat per clock can carry; sizes 60..1514 sampled and 9000: nothing dropped or cut.
- test_small_frames_overload: minimum gaps, frames of 65..100 bytes (two beats each in about 1.4 wire
  words: more beats than clocks at the MAC clock), tready high: the buffer fills, frames are dropped or cut
  and counted exactly, delivered frames intact or marked bad, and spaced traffic afterwards is intact."""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ethtb  # noqa: E402
import test_beryl_eth_seg_to_axis as unit  # noqa: E402

PERIOD_PS = 5120   # 195.3125 MHz
_IDLE = (int.from_bytes(bytes([ethtb.CG_IDLE]) * 64, "little"), (1 << 64) - 1)


def ts_of(idx):
    return (0x5a5a_0000_0000_0000_0000 + idx * 0x1_0000_0001) & ((1 << 96) - 1)


class MacTB(unit.TB):
    """The unit test's output side (beats checked as they are taken); the input side drives wire words
    and rx_ptp_ts = ts_of(word number)."""

    def __init__(self, dut, rng):   # noqa: super().__init__ drives seg inputs this harness does not have
        self.dut, self.rng = dut, rng
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.words, self.wpos, self.widx, self.base = [], 0, 0, 0
        self.ready_p = 1.0
        self.ts, self.beats, self.out, self.errors = {}, [], [], []
        self.beat_count, self.clock, self.first_beat_at = 0, 0, None
        dut.cgmii_rxd.value, dut.cgmii_rxc.value = _IDLE
        dut.rx_ptp_ts.value = 0
        dut.m_axis_tready.value = 0
        dut.rst.value = 1
        cocotb.start_soon(self._run())

    async def _run(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            self.clock += 1
            ready = self.rng.random() < self.ready_p
            d.m_axis_tready.value = int(ready)
            if ready and int(d.m_axis_tvalid.value):
                self._beat()
            if self.wpos == 0 and self.words:
                self.base = self.widx
            w = self.words[self.wpos] if self.wpos < len(self.words) else _IDLE
            self.wpos += 1
            d.cgmii_rxd.value, d.cgmii_rxc.value = w
            d.rx_ptp_ts.value = ts_of(self.widx)
            self.widx += 1

    async def start(self):
        for _ in range(4):
            await FallingEdge(self.dut.clk)
        self.dut.rst.value = 0
        for _ in range(2):
            await FallingEdge(self.dut.clk)


def wire_frames(lengths, rng, bad_p=0.1):
    """(wire bytes with FCS, None) pairs, payload bytes and bad flags (a flipped FCS bit)."""
    frames, pays, bad = [], [], []
    for n in lengths:
        pay = ethtb.make_frame(n, rng)
        wire = pay + ethtb.fcs(pay)
        b = rng.random() < bad_p
        if b:
            wire = wire[:-1] + bytes([wire[-1] ^ 0x04])
        frames.append((wire, None))
        pays.append(pay)
        bad.append(int(b))
    return frames, pays, bad


async def run(tb, lengths, rng, out_rate, may_lose=False):
    d = tb.dut
    frames, pays, bad = wire_frames(lengths, rng)
    words, meta = ethtb.cgmii_words(frames, rng, gap="min", out_rate=out_rate)
    drops, cuts, rxd = int(d.drop_count.value), int(d.cut_count.value), int(d.rx_drop_count.value)
    tb.out = []
    await tb.send(words)
    tb.ts = {i: ts_of(tb.base + m["start_word"]) for i, m in enumerate(meta)}
    assert int(d.rx_drop_count.value) == rxd, "the MAC dropped a frame of 64 bytes or more"
    return unit.check(tb, pays, bad, may_lose=may_lose, drops=drops, cuts=cuts)


@cocotb.test()
async def test_line_rate(dut):
    rng = ethtb.seeded("test_line_rate")
    tb = MacTB(dut, rng)
    await tb.start()
    lengths = ethtb.sweep_lengths(rng, 60, 1514, sample=80) + [9000, 9000]
    rng.shuffle(lengths)
    intact, cut, dropped = await run(tb, lengths, rng, out_rate=True)
    dut._log.info("line rate (one beat per 64 wire bytes): %d frames intact", intact)


@cocotb.test()
async def test_small_frames_overload(dut):
    rng = ethtb.seeded("test_small_frames_overload")
    tb = MacTB(dut, rng)
    await tb.start()
    intact, cut, dropped = await run(tb, [rng.randint(65, 100) for _ in range(400)], rng, out_rate=False,
                                     may_lose=True)
    dut._log.info("65..100-byte frames at line rate: %d intact, %d cut, %d dropped", intact, cut, dropped)
    assert dropped + cut > 0
    await run(tb, [rng.randint(60, 1514) for _ in range(40)], rng, out_rate=True)


def test_beryl_eth_seg_to_axis_mac():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_seg_to_axis_mac_tb", "tb/eth/beryl_eth_seg_to_axis/beryl_eth_seg_to_axis_mac_tb.f",
                  "test_beryl_eth_seg_to_axis_mac", Path(__file__).parent,
                  parameters={"PTP_TS_W": 96, "FIFO_WORDS": 64, "MAX_FRAME": 9024})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
