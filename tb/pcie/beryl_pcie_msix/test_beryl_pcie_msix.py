# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_msix: MSI-X table, PBA and message sender (PCIe 3.0 section 6.8.2).

Software side through cocotbext-axi's AxiLiteMaster; messages collected by the light TLP
sink with random backpressure. The expectations (table layout, mask and PBA behaviour,
message format) are written here from the spec, not from the RTL.
"""
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from tlp_sink_simple import TlpSinkSimple  # noqa: E402
from pcie_tlp import parse_mem_hdr  # noqa: E402
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402


class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.rng = random.Random(seed)
        self.vc = int(os.environ.get("PARAM_VECTOR_COUNT", "32"))
        self.data_w = int(os.environ.get("PARAM_TLP_DATA_W", "512"))
        default_pba = 2048 if self.vc * 16 <= 2048 else (self.vc * 16 + 4095) // 4096 * 4096
        self.pba = int(os.environ.get("PARAM_PBA_OFFSET", str(default_pba)))
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        self.sink = TlpSinkSimple(dut, "tx_msix_req", dut.clk, self.data_w, seed=seed)
        self.entries = {}   # vector -> (address, data) as programmed

    async def reset(self):
        dut = self.dut
        dut.rst.value = 1
        dut.irq_valid.value = 0
        dut.irq_index.value = 0
        dut.msix_enable.value = 0
        dut.msix_mask.value = 0
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0
        await RisingEdge(dut.clk)
        self.sink.start()

    async def irq(self, vec):
        dut = self.dut
        dut.irq_index.value = vec
        dut.irq_valid.value = 1
        while True:
            await RisingEdge(dut.clk)
            if int(dut.irq_ready.value):
                break
        dut.irq_valid.value = 0

    async def program(self, vec, addr, data, masked):
        base = 16 * vec
        await self.axil.write_dword(base + 0, addr & 0xFFFFFFFF)
        await self.axil.write_dword(base + 4, addr >> 32)
        await self.axil.write_dword(base + 8, data)
        await self.axil.write_dword(base + 12, 1 if masked else 0)
        self.entries[vec] = (addr & ~3, data)

    async def set_mask(self, vec, masked):
        await self.axil.write_dword(16 * vec + 12, 1 if masked else 0)

    async def pba_bits(self):
        bits = 0
        for w in range((self.vc + 31) // 32):
            bits |= await self.axil.read_dword(self.pba + 4 * w) << (32 * w)
        return bits

    def rand_entry(self):
        addr = self.rng.choice([0xFEE0_0000 | self.rng.getrandbits(12) << 8,
                                self.rng.getrandbits(64)]) & ~3
        return addr, self.rng.getrandbits(32)

    def take_messages(self):
        """Decode received TLPs as MSI-X messages: list of (address, data)."""
        out = []
        while self.sink.tlps:
            t = self.sink.tlps.popleft()
            f = parse_mem_hdr(t.hdr)
            assert f["fmt"] == 0b011 and f["type"] == 0, "not a 4DW memory write"
            assert f["length"] == 1 and f["first_be"] == 0xF and f["last_be"] == 0, \
                f"not a full 1-DW write: {f}"
            assert f["attr"] == 0 and f["tc"] == 0, "MSI-X writes use TC0, no RO/NS"
            assert t.beats == 1 and len(t.payload) == 4
            # Message Data is sent as the DW it is: byte 0 on the wire = bits 7:0.
            out.append((f["addr"], int.from_bytes(t.payload, "little")))
        assert not self.sink.errors, self.sink.errors[:3]
        return out

    def stats(self):
        return int(self.dut.stat_msg_count.value), int(self.dut.stat_deferred_count.value)

    def sample_vectors(self, n):
        vecs = {0, self.vc - 1, min(31, self.vc - 1), min(32, self.vc - 1)}
        while len(vecs) < min(n, self.vc):
            vecs.add(self.rng.randrange(self.vc))
        return sorted(vecs)


@cocotb.test()
async def test_table_access(dut):
    """Reset values, read back, byte strobes, read-only bits, PBA read-only, holes read 0."""
    tb = TB(dut, seed=beryl_seed.seed(1, "test_table_access"))
    await tb.reset()
    vecs = tb.sample_vectors(40)
    for v in vecs:
        # Vector Control resets to masked (PCIe 3.0 section 6.8.2.3); PBA resets clear.
        assert await tb.axil.read_dword(16 * v + 12) == 1, f"vector {v} not masked at reset"
    assert await tb.pba_bits() == 0
    for v in vecs:
        addr, data = tb.rand_entry()
        await tb.program(v, addr | 3, data, masked=True)
    for v in vecs:
        addr, data = tb.entries[v]
        got = [await tb.axil.read_dword(16 * v + 4 * i) for i in range(4)]
        assert got == [addr & 0xFFFFFFFF, addr >> 32, data, 1], f"vector {v}: {got}"
    # Byte strobes: write one byte of Message Data; Vector Control keeps only bit 0.
    v = vecs[-1]
    await tb.axil.write(16 * v + 9, b"\xab")
    addr, data = tb.entries[v]
    data = (data & ~0xFF00) | 0xAB00
    tb.entries[v] = (addr, data)
    assert await tb.axil.read_dword(16 * v + 8) == data
    await tb.axil.write_dword(16 * v + 12, 0xFFFF_FFFE)
    assert await tb.axil.read_dword(16 * v + 12) == 0, "reserved Vector Control bits must read 0"
    await tb.axil.write_dword(16 * v + 12, 0xFFFF_FFFF)
    assert await tb.axil.read_dword(16 * v + 12) == 1
    # PBA is read-only.
    await tb.axil.write_dword(tb.pba, 0xFFFF_FFFF)
    assert await tb.pba_bits() == 0, "PBA must be read-only"
    # A hole between table and PBA (if any) and the PBA padding read zero.
    if tb.pba > 16 * tb.vc:
        assert await tb.axil.read_dword(16 * tb.vc) == 0
    pba_words = (tb.vc + 63) // 64 * 2
    assert await tb.axil.read_dword(tb.pba + 4 * (pba_words - 1)) == 0 or tb.vc > 32 * (pba_words - 1)
    assert tb.stats() == (0, 0)


@cocotb.test()
async def test_mask_and_pba(dut):
    """Masked vector: PBA bit set, no message; unmask: one message, PBA bit clear."""
    tb = TB(dut, seed=beryl_seed.seed(2, "test_mask_and_pba"))
    await tb.reset()
    tb.sink.ready_prob = 0.5
    dut.msix_enable.value = 1
    vecs = tb.sample_vectors(6)
    for v in vecs:
        await tb.program(v, *tb.rand_entry(), masked=True)
    for v in vecs:
        await tb.irq(v)
    await ClockCycles(dut.clk, 100)
    assert not tb.sink.tlps, "message sent for a masked vector"
    exp = sum(1 << v for v in vecs)
    assert await tb.pba_bits() == exp
    assert tb.stats() == (0, len(vecs))
    for i, v in enumerate(vecs):
        await tb.set_mask(v, False)
        await ClockCycles(dut.clk, 100)
        assert tb.take_messages() == [tb.entries[v]], f"vector {v}"
        exp &= ~(1 << v)
        assert await tb.pba_bits() == exp
    assert tb.stats() == (len(vecs), len(vecs))
    # Unmasked now: a request goes straight out, nothing deferred.
    for v in vecs:
        await tb.irq(v)
        await ClockCycles(dut.clk, 80)
        assert tb.take_messages() == [tb.entries[v]]
    assert await tb.pba_bits() == 0
    assert tb.stats() == (2 * len(vecs), len(vecs))


@cocotb.test()
async def test_function_mask_and_enable(dut):
    """Function Mask and MSI-X Enable hold every vector pending; clearing them sends each once."""
    tb = TB(dut, seed=beryl_seed.seed(3, "test_function_mask_and_enable"))
    await tb.reset()
    tb.sink.ready_prob = 0.7
    vecs = tb.sample_vectors(10)
    for v in vecs:
        await tb.program(v, *tb.rand_entry(), masked=False)
    for enable, fmask in [(1, 1), (0, 0), (0, 1)]:
        dut.msix_enable.value = enable
        dut.msix_mask.value = fmask
        deferred0 = tb.stats()[1]
        for v in vecs:
            await tb.irq(v)
        await ClockCycles(dut.clk, 200)
        assert not tb.sink.tlps, f"message sent with enable={enable} function mask={fmask}"
        assert await tb.pba_bits() == sum(1 << v for v in vecs)
        assert tb.stats()[1] - deferred0 == len(vecs)
        # Software changes an entry while it is pending: the new values must be used.
        v = vecs[0]
        await tb.program(v, *tb.rand_entry(), masked=False)
        dut.msix_enable.value = 1
        dut.msix_mask.value = 0
        await ClockCycles(dut.clk, 40 + 8 * len(vecs) + tb.vc // 8)
        got = tb.take_messages()
        assert sorted(got) == sorted(tb.entries[v] for v in vecs), "pending vectors not sent once each"
        assert await tb.pba_bits() == 0


@cocotb.test()
async def test_random_requests(dut):
    """Random requests and mask changes with sink backpressure: every request is answered."""
    tb = TB(dut, seed=beryl_seed.seed(4, "test_random_requests"))
    await tb.reset()
    tb.sink.ready_prob = 0.4
    dut.msix_enable.value = 1
    vecs = tb.sample_vectors(12)
    for v in vecs:
        await tb.program(v, tb.rng.getrandbits(64) & ~3, (v * 0x01010101 ^ 0x5A5A0000) & 0xFFFFFFFF,
                         masked=tb.rng.random() < 0.5)
    requested = {v: 0 for v in vecs}
    n_out_of_range = 0
    for _ in range(150):
        r = tb.rng.random()
        if r < 0.15:
            await tb.set_mask(tb.rng.choice(vecs), tb.rng.random() < 0.4)
        elif r < 0.2 and tb.vc < (1 << max(1, (tb.vc - 1).bit_length())):
            await tb.irq(tb.vc)       # outside the table: ignored
            n_out_of_range += 1
        else:
            v = tb.rng.choice(vecs)
            await tb.irq(v)
            requested[v] += 1
        await ClockCycles(dut.clk, tb.rng.randint(0, 6))
    for v in vecs:
        await tb.set_mask(v, False)
    await ClockCycles(dut.clk, 300 + tb.vc // 4)
    got = tb.take_messages()
    by_vec = {}
    addr_to_vec = {tb.entries[v]: v for v in vecs}
    for m in got:
        assert m in addr_to_vec, f"message {m} matches no programmed vector"
        by_vec[addr_to_vec[m]] = by_vec.get(addr_to_vec[m], 0) + 1
    for v in vecs:
        # Requests to a vector already pending merge into one message (one PBA bit).
        assert (by_vec.get(v, 0) >= 1) == (requested[v] >= 1), f"vector {v}"
        assert by_vec.get(v, 0) <= requested[v], f"vector {v}: more messages than requests"
    assert await tb.pba_bits() == 0
    assert tb.stats()[0] == len(got)
    dut._log.info("%d requests -> %d messages, %d deferred, %d out of range",
                  sum(requested.values()), len(got), tb.stats()[1], n_out_of_range)


@pytest.mark.parametrize("vector_count", [32, 100, 2048])
def test_beryl_pcie_msix(vector_count):
    beryl_sim.run("beryl_pcie_msix", "rtl/pcie/beryl_pcie_msix.f", "test_beryl_pcie_msix",
                  Path(__file__).parent, parameters={"VECTOR_COUNT": vector_count})
