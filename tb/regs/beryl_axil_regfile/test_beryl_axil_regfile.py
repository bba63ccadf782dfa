# SPDX-License-Identifier: MIT
"""Unit test of the generic register file behind cocotbext-axi's AxiLiteMaster.

The bench drives reg_rd_data with changing words and records every reg_wr_en pulse. Checked:
the header comes from the parameters whatever the input's header slots hold; each word reads
what the input holds; words past REG_COUNT read 0; a write to a writable word gives exactly one
one-cycle pulse on that word with the write's data and strobes, and a write to any other word
gives none; every response is OKAY; the same holds with random pauses on all channels.
"""
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import Combine, RisingEdge, ReadOnly, with_timeout

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import axil_tb  # noqa: E402
from axil_tb import AxiResp, read32, write32  # noqa: E402

PARAMS = {
    "ADDR_W": 6,                  # 16-word window
    "REG_COUNT": 11,
    "BLOCK_TYPE": 0x425200aa,
    "BLOCK_VERSION": 0x01020003,
    "BLOCK_NEXT": 0x00000300,
    "WR_MASK": 0b10100001000,     # words 3, 8 and 10
}


class Bench:
    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.n = axil_tb.param("REG_COUNT")
        self.wr_mask = axil_tb.param("WR_MASK")
        self.words = [rng.getrandbits(32) for _ in range(self.n)]
        self.pulses = []  # (cycle, word index, data, strb)
        self.cycle = 0
        self.drive()
        cocotb.start_soon(self.monitor())

    def drive(self):
        v = 0
        for i, w in enumerate(self.words):
            v |= w << (32 * i)
        self.dut.reg_rd_data.value = v

    def expected(self, i):
        hdr = [axil_tb.param("BLOCK_TYPE"), axil_tb.param("BLOCK_VERSION"), axil_tb.param("BLOCK_NEXT")]
        if i < 3:
            return hdr[i]
        return self.words[i] if i < self.n else 0

    async def monitor(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            self.cycle += 1
            en = int(self.dut.reg_wr_en.value)
            if en:
                assert en & (en - 1) == 0, f"reg_wr_en 0b{en:b} is not one-hot"
                self.pulses.append((self.cycle, en.bit_length() - 1, int(self.dut.reg_wr_data.value),
                                    int(self.dut.reg_wr_strb.value)))


@cocotb.test()
async def test_reads(dut):
    m = await axil_tb.start(dut)
    tb = Bench(dut, axil_tb.rng_for("rf_reads"))
    for rnd in range(3):
        tb.words = [tb.rng.getrandbits(32) for _ in range(tb.n)]
        tb.drive()
        for i in range(1 << (axil_tb.param("ADDR_W") - 2)):
            v, resp = await read32(m, 4 * i)
            assert resp == AxiResp.OKAY
            assert v == tb.expected(i), f"round {rnd} word {i}: 0x{v:08x} != 0x{tb.expected(i):08x}"


@cocotb.test()
async def test_writes(dut):
    m = await axil_tb.start(dut)
    tb = Bench(dut, axil_tb.rng_for("rf_writes"))
    window = 1 << (axil_tb.param("ADDR_W") - 2)
    for i in range(window):
        for lane, nbytes in [(0, 4), (1, 1), (2, 2)]:
            data = tb.rng.getrandbits(8 * nbytes)
            tb.pulses.clear()
            assert await write32(m, 4 * i + lane, data, nbytes) == AxiResp.OKAY
            for _ in range(3):
                await RisingEdge(dut.clk)
            if i < tb.n and tb.wr_mask >> i & 1:
                assert len(tb.pulses) == 1, f"word {i}: {len(tb.pulses)} pulses"
                _, idx, wdata, strb = tb.pulses[0]
                exp_strb = ((1 << nbytes) - 1) << lane
                assert idx == i and strb == exp_strb
                for b in range(4):
                    if exp_strb >> b & 1:
                        assert (wdata >> 8 * b) & 0xff == (data >> 8 * (b - lane)) & 0xff
            else:
                assert tb.pulses == [], f"write to read-only word {i} pulsed {tb.pulses}"
    # Header slots of the input never show through.
    assert (await read32(m, 0))[0] == axil_tb.param("BLOCK_TYPE")


@cocotb.test()
async def test_random_pauses(dut):
    m = await axil_tb.start(dut)
    rng = axil_tb.rng_for("rf_pauses")
    tb = Bench(dut, rng)
    axil_tb.set_pauses(axil_tb.master_channels(m), rng, 0.5)
    writable = [i for i in range(tb.n) if tb.wr_mask >> i & 1]
    sent = []

    async def reader():
        for _ in range(80):
            i = rng.randrange(1 << (axil_tb.param("ADDR_W") - 2))
            v, resp = await read32(m, 4 * i)
            assert (v, resp) == (tb.expected(i), AxiResp.OKAY), f"word {i}"

    async def writer():
        for _ in range(40):
            i = rng.randrange(tb.n)
            d = rng.getrandbits(32)
            assert await write32(m, 4 * i, d) == AxiResp.OKAY
            if i in writable:
                sent.append((i, d))

    await with_timeout(Combine(cocotb.start_soon(reader()), cocotb.start_soon(writer())), 100, "us")
    for _ in range(3):
        await RisingEdge(dut.clk)
    assert [(p[1], p[2]) for p in tb.pulses] == sent


def test_beryl_axil_regfile():
    sys.path.insert(0, str(HERE.parents[1] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_axil_regfile", "rtl/regs/beryl_axil_regfile.f", "test_beryl_axil_regfile", HERE,
                  parameters=PARAMS)
