# SPDX-License-Identifier: MIT
"""Unit test of the AXI-Lite decoder, between cocotbext-axi models on both sides.

Bench top tb_beryl_axil_decode.sv: the decoder with four slaves, three cocotbext-axi AxiLiteRam
models (sized to the whole 64 KiB address space, so an address that is not reduced to the
window offset lands in the wrong place and is caught) and one beryl_id_block (a slave that
waits for AWVALID and WVALID together). Checked: data lands at the window offset of the right
slave and nowhere else; holes answer DECERR, reads of holes return all-ones, writes to holes
change nothing; unmapped_rd/unmapped_wr pulse once per hole access; with random pauses on all
channels of the master and of the RAM slaves, concurrent reads and writes never hang.
Also (no simulator): illegal window parameters stop Verilator's elaboration.
"""
import subprocess
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import Combine, RisingEdge, ReadOnly, with_timeout
from cocotbext.axi import AxiLiteBus, AxiLiteRam

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1]))
import axil_tb  # noqa: E402
from axil_tb import AxiResp, read32, write32  # noqa: E402
from model import beryl_regs as R  # noqa: E402

# (base, window bytes) of slaves 0..3, as in tb_beryl_axil_decode.sv; slave 3 is the id block.
RAM_SLAVES = [(0x0000, 0x100), (0x0100, 0x100), (0x1000, 0x1000)]
ID_BASE, ID_WIN = 0x0400, 0x100
ID_GIT_HASH = 0x600dcafe


def locate(addr):
    """('ram', i, offset), ('id', None, offset) or ('hole', None, None) for a byte address."""
    for i, (base, win) in enumerate(RAM_SLAVES):
        if base <= addr < base + win:
            return "ram", i, addr - base
    if ID_BASE <= addr < ID_BASE + ID_WIN:
        return "id", None, addr - ID_BASE
    return "hole", None, None


def hole_addrs(rng, n):
    out = []
    while len(out) < n:
        a = rng.randrange(0, 1 << 16) & ~3
        if locate(a)[0] == "hole":
            out.append(a)
    return out


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.rams = [AxiLiteRam(AxiLiteBus.from_prefix(dut, f"m{i}_axil"), dut.clk, dut.rst, size=1 << 16)
                     for i in range(len(RAM_SLAVES))]
        self.unmapped = {"rd": 0, "wr": 0}
        cocotb.start_soon(self.count())

    async def count(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            self.unmapped["rd"] += int(self.dut.unmapped_rd.value)
            self.unmapped["wr"] += int(self.dut.unmapped_wr.value)

    def ram_pauses(self, rng, p):
        for ram in self.rams:
            axil_tb.set_pauses([ram.write_if.aw_channel, ram.write_if.w_channel, ram.write_if.b_channel,
                                ram.read_if.ar_channel, ram.read_if.r_channel], rng, p)

    def ram_word(self, i, off):
        return int.from_bytes(self.rams[i].read(off, 4), "little")

    def untouched_outside(self, i, off):
        """Every RAM but slave i, and slave i's space outside its window, is still zero."""
        for j, ram in enumerate(self.rams):
            data = ram.read(0, 1 << 16)
            if j == i:
                data = data[:off] + bytes(4) + data[off + 4:]
            assert not any(data), f"stray write in RAM {j}"


@cocotb.test()
async def test_directed(dut):
    m = await axil_tb.start(dut)
    tb = Bench(dut)
    rng = axil_tb.rng_for("dec_directed")
    # One write per RAM slave, at its first, middle and last word: lands at the window offset.
    for i, (base, win) in enumerate(RAM_SLAVES):
        for off in (0, win // 2, win - 4):
            val = rng.getrandbits(32)
            assert await write32(m, base + off, val) == AxiResp.OKAY
            assert tb.ram_word(i, off) == val
            tb.untouched_outside(i, off)
            assert await read32(m, base + off) == (val, AxiResp.OKAY)
            tb.rams[i].write(off, bytes(4))
    # The id block behind the decoder: header and build parameters at their offsets.
    assert await read32(m, ID_BASE + R.ID_TYPE_OFFSET) == (R.ID_BLOCK_TYPE, AxiResp.OKAY)
    assert await read32(m, ID_BASE + R.ID_NEXT_OFFSET) == (R.ID_BLOCK_NEXT, AxiResp.OKAY)
    assert await read32(m, ID_BASE + R.ID_GIT_HASH_OFFSET) == (ID_GIT_HASH, AxiResp.OKAY)
    assert await write32(m, ID_BASE + R.ID_SCRATCH_OFFSET, 0x5a5aa5a5) == AxiResp.OKAY
    assert await read32(m, ID_BASE + R.ID_SCRATCH_OFFSET) == (0x5a5aa5a5, AxiResp.OKAY)
    # Holes: just past each window, and random ones.
    holes = [0x0200, 0x03fc, 0x0500, 0x0ffc, 0x2000, 0xfffc] + hole_addrs(rng, 10)
    for a in holes:
        assert await read32(m, a) == (0xffffffff, AxiResp.DECERR), f"read 0x{a:04x}"
        assert await write32(m, a, 0x12345678) == AxiResp.DECERR, f"write 0x{a:04x}"
    for i in range(len(RAM_SLAVES)):
        assert not any(tb.rams[i].read(0, 1 << 16)), f"a hole write reached RAM {i}"
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    assert tb.unmapped == {"rd": len(holes), "wr": len(holes)}


@cocotb.test()
async def test_random_pauses(dut):
    """Concurrent reader and writer over all slaves and holes, pauses on every channel."""
    m = await axil_tb.start(dut)
    tb = Bench(dut)
    rng = axil_tb.rng_for("dec_pauses")
    axil_tb.set_pauses(axil_tb.master_channels(m), rng, 0.4)
    tb.ram_pauses(rng, 0.4)
    # The reader owns the upper half of each RAM window (preloaded, never written);
    # the writer owns the lower half and the id block's SCRATCH.
    preload = {}
    for i, (base, win) in enumerate(RAM_SLAVES):
        for off in range(win // 2, win, 4):
            v = rng.getrandbits(32)
            tb.rams[i].write(off, v.to_bytes(4, "little"))
            preload[base + off] = v
    expect_unmapped = {"rd": 0, "wr": 0}

    async def reader():
        addrs = list(preload)
        for _ in range(80):
            kind = rng.random()
            if kind < 0.6:
                a = rng.choice(addrs)
                assert await read32(m, a) == (preload[a], AxiResp.OKAY), f"0x{a:04x}"
            elif kind < 0.8:
                assert await read32(m, ID_BASE + R.ID_TYPE_OFFSET) == (R.ID_BLOCK_TYPE, AxiResp.OKAY)
            else:
                a = hole_addrs(rng, 1)[0]
                assert await read32(m, a) == (0xffffffff, AxiResp.DECERR)
                expect_unmapped["rd"] += 1

    async def writer():
        for _ in range(40):
            kind = rng.random()
            v = rng.getrandbits(32)
            if kind < 0.6:
                i = rng.randrange(len(RAM_SLAVES))
                base, win = RAM_SLAVES[i]
                a = base + rng.randrange(0, win // 2, 4)
                assert await write32(m, a, v) == AxiResp.OKAY
                assert await read32(m, a) == (v, AxiResp.OKAY)
            elif kind < 0.8:
                assert await write32(m, ID_BASE + R.ID_SCRATCH_OFFSET, v) == AxiResp.OKAY
                assert await read32(m, ID_BASE + R.ID_SCRATCH_OFFSET) == (v, AxiResp.OKAY)
            else:
                assert await write32(m, hole_addrs(rng, 1)[0], v) == AxiResp.DECERR
                expect_unmapped["wr"] += 1

    await with_timeout(Combine(cocotb.start_soon(reader()), cocotb.start_soon(writer())), 200, "us")
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    assert tb.unmapped == expect_unmapped
    for a, v in preload.items():
        kind, i, off = locate(a)
        assert tb.ram_word(i, off) == v, f"reader-owned word 0x{a:04x} was overwritten"


def test_beryl_axil_decode():
    sys.path.insert(0, str(HERE.parents[1] / "common"))
    import beryl_sim
    beryl_sim.run("tb_beryl_axil_decode", "tb/regs/beryl_axil_decode/tb_beryl_axil_decode.f",
                  "test_beryl_axil_decode", HERE)


def _elab(params):
    verilator = Path(sys.executable).parent / "verilator"
    cmd = [str(verilator), "--lint-only", str(REPO / "rtl/common/beryl_clk_gate.sv"),
           str(REPO / "rtl/regs/beryl_axil_decode.sv"), "--top-module", "beryl_axil_decode"]
    cmd += [f"-G{k}={v}" for k, v in params.items()]
    return subprocess.run(cmd, capture_output=True, text=True)


def test_beryl_axil_decode_rejects_bad_windows():
    ok = _elab({"M_COUNT": 2, "ADDR_W": 16, "M_BASE": "32'h01000000", "M_ADDR_W": "64'h0000000800000008"})
    assert ok.returncode == 0, ok.stderr
    # Slave 1 at 0x0180 with a 256 B window: misaligned.
    r = _elab({"M_COUNT": 2, "ADDR_W": 16, "M_BASE": "32'h01800000", "M_ADDR_W": "64'h0000000800000008"})
    assert r.returncode != 0 and "not a multiple of its window" in r.stderr, r.stderr
    # Slave 1 at 0x0080 with a 128 B window, inside slave 0's 256 B.
    r = _elab({"M_COUNT": 2, "ADDR_W": 16, "M_BASE": "32'h00800000", "M_ADDR_W": "64'h0000000700000008"})
    assert r.returncode != 0 and "overlap" in r.stderr, r.stderr
