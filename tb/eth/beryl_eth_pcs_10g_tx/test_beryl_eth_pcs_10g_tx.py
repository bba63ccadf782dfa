# SPDX-License-Identifier: MIT
"""beryl_eth_pcs_10g_tx on its own: XGMII words in, every output block descrambled by the clause 49
reference (../baser_ref.py) must equal the reference encoding of the input word, or the error block
where the reference sequence check (figure 49-14 as documented) says the word is illegal.

Inputs: cocotbext-eth's XgmiiSource (third party) with random inter-frame gaps, lane-4 starts, ordered
sets and /E/ inside frames; and generated streams with random corruption (data between frames, idle
inside a frame, random control words, /E/ characters). The XGMII side has no handshake (a word every
clock, idle is the XGMII idle character), so "random source idle" is the random IFG and there is no
backpressure to apply."""
import logging
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
from cocotbext.eth import XgmiiFrame, XgmiiSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import baser_ref as ref  # noqa: E402
import ethtb  # noqa: E402


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, 6400, unit="ps").start()
        dut.xgmii_txd.value, dut.xgmii_txc.value = ethtb.IDLE_W

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        self.dut.rst.value = 0

    async def sample(self, n):
        """(txd, txc, hdr, data) at the falling edge of each of the next n clocks."""
        d, log = self.dut, []
        for _ in range(n):
            await FallingEdge(d.clk)
            log.append((int(d.xgmii_txd.value), int(d.xgmii_txc.value), int(d.serdes_tx_hdr.value),
                        int(d.serdes_tx_data.value)))
        return log


def check(log, skip=4):
    """Compare the descrambled output with the reference; returns (lag, block types seen, E count)."""
    ds = ref.Descrambler()
    got = [(h, ds(p)) for _, _, h, p in log]
    seq = ref.SeqCheck()
    want = [ref.E_BLOCK if seq(ref.word_type(d, c)) else ref.encode(d, c) for d, c, _, _ in log]
    for lag in range(1, 5):
        if all(got[i + lag] == want[i] for i in range(skip, len(log) - lag)):
            types = {p & 0xff for h, p in want if h == ref.SYNC_CTRL}
            return lag, types, sum(1 for w in want[skip:] if w == ref.E_BLOCK)
    bad = next(i for i in range(skip, len(log) - 2) if got[i + 2] != want[i])
    raise AssertionError(f"word {bad} {hex(log[bad][0])}/{log[bad][1]:02x}: got {got[bad + 2][0]}, "
                         f"{got[bad + 2][1]:#x}, want {want[bad][0]}, {want[bad][1]:#x}")


@cocotb.test()
async def test_xgmii_source_checked(dut):
    """cocotbext-eth XgmiiSource traffic, output checked block by block against the reference."""
    tb = TB(dut)
    src = XgmiiSource(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
    src.log.setLevel(logging.WARNING)
    await tb.reset()
    rng = ethtb.seeded("pcs_tx_src_checked")
    total, seen = 0, set()
    for mode in ("none", "idle"):
        frames = [ethtb.make_frame(n, rng) for n in ethtb.sweep_lengths(rng, 60, 400, sample=10)]
        for data in frames:
            f = XgmiiFrame.from_payload(data)
            if rng.random() < 0.15:
                f.normalize()
                k = rng.randint(9, len(f.data) - 1)
                f.data[k] = ref.ERROR
                f.ctrl[k] = 1
            src.ifg = 12 if mode == "none" else rng.choice([5, 9, 12, 17, 40])
            src.force_offset_start = mode == "idle" and rng.random() < 0.3
            src.send_nowait(f)
        n_cyc = sum(len(d) + 8 + 40 for d in frames) // 8 + 50
        log = await tb.sample(n_cyc)
        assert src.empty() and not src.active, "source still busy at the end of the sample window"
        lag, types, n_e = check(log)
        total += len(log)
        dut._log.info("mode %s: %d words, latency %d, types %s, %d error blocks", mode, len(log), lag,
                      sorted(hex(t) for t in types), n_e)
        seen |= types
    assert {0x1e, 0x78, 0x33}.issubset(seen), f"block types seen: {sorted(hex(t) for t in seen)}"


@cocotb.test()
async def test_random_sequences(dut):
    """Generated streams with random corruption: every block equals the reference encoding or the
    error block the reference sequence check asks for; every block type of figure 49-7 appears."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("pcs_tx_rand")
    # in front of the random stream (after the 4 unchecked words), whatever the seed: every block format
    # in a legal place and one of each illegal sequence. The random stream alone missed a format on 8
    # seeds in 2000 (ordered sets put at a fixed index fell inside a frame, /T/ lanes are random).
    illegal, n_illegal = ethtb.xgmii_illegal_words()
    forced = [ethtb.IDLE_W] * 6 + ethtb.xgmii_tour() + illegal
    words = forced + ethtb.xgmii_words(rng, 150 if ethtb.LONG else 60, corrupt=0.03, max_len=120)
    log = []

    async def drive():
        for w in words + [ethtb.IDLE_W] * 6:
            await RisingEdge(dut.clk)
            dut.xgmii_txd.value, dut.xgmii_txc.value = w

    cocotb.start_soon(drive())
    log = await tb.sample(len(words) + 6)
    lag, types, n_e = check(log)
    dut._log.info("%d words, latency %d, %d error blocks (%d forced), types %s", len(words), lag, n_e,
                  n_illegal, sorted(hex(t) for t in types))
    assert n_e > 0
    assert {0x1e, 0x2d, 0x33, 0x66, 0x55, 0x78, 0x4b}.issubset(types)
    assert len(types & ref.T_TYPES) == 8


def test_beryl_eth_pcs_10g_tx():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_pcs_10g_tx", "rtl/eth/beryl_eth_pcs_10g_tx.f", "test_beryl_eth_pcs_10g_tx",
                  Path(__file__).parent)
