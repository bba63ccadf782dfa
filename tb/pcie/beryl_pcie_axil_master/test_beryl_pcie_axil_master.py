# SPDX-License-Identifier: MIT
"""Unit test of the BAR to AXI-Lite bridge.

Host requests are built with the test benches' own TLP codec; the AXI-Lite side is a Python
responder with a memory below MAPPED bytes and DECERR above, stalling every channel at random.
Completions are checked against the PCIe rules for byte count and lower address.
"""
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, ClockCycles

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from pcie_tlp import (MemReq, Cpl, FMT_3DW_DATA, FMT_3DW_NODATA, FMT_4DW_DATA, FMT_4DW_NODATA,  # noqa: E402
                      CPL_SC, CPL_UR, be_byte_count)
import beryl_seed  # noqa: E402

MAPPED = 0x4000
BAR_BASE = 0xF000_0000


class Bench:
    def __init__(self, dut, seed, stall):
        self.dut, self.rng, self.stall = dut, random.Random(seed), stall
        self.dwb = len(dut.rx_req_tlp_data) // 32
        self.mem = bytearray(self.rng.randbytes(MAPPED))
        self.cpls = []
        self.src = []     # beats to send: (hdr, data_int, strb, sop, eop, bar)

    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 4, "ns").start())
        d.rst.value = 1
        for s in ("rx_req_tlp_valid", "tx_cpl_tlp_ready", "m_axil_awready", "m_axil_wready", "m_axil_bvalid",
                  "m_axil_arready", "m_axil_rvalid"):
            getattr(d, s).value = 0
        await ClockCycles(d.clk, 4)
        d.rst.value = 0
        cocotb.start_soon(self._source())
        cocotb.start_soon(self._sink())
        cocotb.start_soon(self._axil_write())
        cocotb.start_soon(self._axil_read())

    def go(self):
        return self.rng.random() >= self.stall

    async def _source(self):
        d = self.dut
        offered = False
        while True:
            await RisingEdge(d.clk)
            if offered and int(d.rx_req_tlp_ready.value):
                self.src.pop(0)
                offered = False
            if self.src and (offered or self.go()):
                hdr, data, strb, sop, eop, bar = self.src[0]
                d.rx_req_tlp_hdr.value = hdr
                d.rx_req_tlp_data.value = data
                d.rx_req_tlp_strb.value = strb
                d.rx_req_tlp_sop.value = sop
                d.rx_req_tlp_eop.value = eop
                d.rx_req_tlp_bar_id.value = bar
                d.rx_req_tlp_valid.value = 1
                offered = True
            else:
                d.rx_req_tlp_valid.value = 0

    async def _sink(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            if int(d.tx_cpl_tlp_valid.value) and int(d.tx_cpl_tlp_ready.value):
                c = Cpl.unpack(int(d.tx_cpl_tlp_hdr.value))
                data = int(d.tx_cpl_tlp_data.value).to_bytes(self.dwb * 4, "little")[:c.length_dw * 4]
                assert int(d.tx_cpl_tlp_sop.value) and int(d.tx_cpl_tlp_eop.value)
                self.cpls.append((c, data))
            d.tx_cpl_tlp_ready.value = int(self.go())

    async def _axil_write(self):
        d = self.dut
        aw = w = None
        bpend = None
        while True:
            await RisingEdge(d.clk)
            if int(d.m_axil_awvalid.value) and int(d.m_axil_awready.value):
                aw = int(d.m_axil_awaddr.value)
            if int(d.m_axil_wvalid.value) and int(d.m_axil_wready.value):
                w = (int(d.m_axil_wdata.value), int(d.m_axil_wstrb.value))
            if bpend is not None and int(d.m_axil_bready.value) and int(d.m_axil_bvalid.value):
                bpend = None
            if aw is not None and w is not None and bpend is None:
                assert aw % 4 == 0
                if aw + 4 <= MAPPED:
                    for b in range(4):
                        if w[1] >> b & 1:
                            self.mem[aw + b] = (w[0] >> (8 * b)) & 0xFF
                    bpend = 0
                else:
                    bpend = 3   # DECERR
                aw = w = None
            d.m_axil_awready.value = int(aw is None and self.go())
            d.m_axil_wready.value = int(w is None and self.go())
            d.m_axil_bvalid.value = int(bpend is not None and self.go()) if not int(d.m_axil_bvalid.value) or bpend is None else 1
            d.m_axil_bresp.value = bpend or 0

    async def _axil_read(self):
        d = self.dut
        rpend = None
        while True:
            await RisingEdge(d.clk)
            if rpend is not None and int(d.m_axil_rvalid.value) and int(d.m_axil_rready.value):
                rpend = None
            if rpend is None and int(d.m_axil_arvalid.value) and int(d.m_axil_arready.value):
                a = int(d.m_axil_araddr.value)
                rpend = (int.from_bytes(self.mem[a:a + 4], "little"), 0) if a + 4 <= MAPPED else (0x12345678, 3)
            d.m_axil_arready.value = int(rpend is None and self.go())
            if rpend is not None:
                d.m_axil_rvalid.value = 1 if int(d.m_axil_rvalid.value) else int(self.go())
                d.m_axil_rdata.value, d.m_axil_rresp.value = rpend
            else:
                d.m_axil_rvalid.value = 0

    def write(self, off, payload_dw, fb, lb, bar=0):
        n = len(payload_dw) // 4
        hdr = MemReq(fmt=FMT_4DW_DATA, addr=BAR_BASE + off, length_dw=n, first_be=fb, last_be=lb, tag=0).pack()
        beats = [payload_dw[i:i + self.dwb * 4] for i in range(0, len(payload_dw), self.dwb * 4)]
        for i, b in enumerate(beats):
            self.src.append((hdr, int.from_bytes(b, "little"), (1 << (len(b) // 4)) - 1, int(i == 0),
                             int(i == len(beats) - 1), bar))

    def read(self, off, n, fb, lb, tag, bar=0):
        hdr = MemReq(fmt=FMT_4DW_NODATA, addr=BAR_BASE + off, length_dw=n, first_be=fb, last_be=lb, tag=tag,
                     requester_id=0x0100).pack()
        self.src.append((hdr, 0, 0, 1, 1, bar))

    async def wait_cpls(self, n):
        for _ in range(100000):
            if len(self.cpls) >= n and not self.src:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"waited for {n} completions, have {len(self.cpls)}")

    async def idle(self):
        for _ in range(100000):
            if not self.src and self.dut.state_q.value == 0:
                await ClockCycles(self.dut.clk, 5)
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError("bridge did not go idle")


def rand_bes(rng, n):
    if n == 1:
        lo = rng.randint(0, 3)
        hi = rng.randint(lo, 3)
        return ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1) & 0xF, 0
    return [0xF, 0xE, 0xC, 0x8][rng.randint(0, 3)], [0xF, 0x7, 0x3, 0x1][rng.randint(0, 3)]


async def random_traffic(dut, seed, stall):
    tb = Bench(dut, seed, stall)
    await tb.start()
    rng = tb.rng
    model = bytearray(tb.mem)
    for i in range(60):
        n = rng.choice([1, 1, 1, 2, 3, tb.dwb, tb.dwb + 1, 2 * tb.dwb + 3])
        off = rng.randrange(0, MAPPED - 4 * n, 4)
        fb, lb = rand_bes(rng, n)
        if rng.random() < 0.5:
            data = rng.randbytes(4 * n)
            tb.write(off, data, fb, lb)
            for k in range(n):
                be = fb if k == 0 else lb if k == n - 1 else 0xF
                for b in range(4):
                    if be >> b & 1:
                        model[off + 4 * k + b] = data[4 * k + b]
            await tb.idle()
        else:
            n = min(n, tb.dwb)
            fb, lb = rand_bes(rng, n)
            tb.read(off, n, fb, lb, tag=i)
            await tb.wait_cpls(1)
            c, data = tb.cpls.pop()
            assert c.status == CPL_SC and c.tag == i and c.requester_id == 0x0100
            assert c.length_dw == n
            assert c.byte_count == be_byte_count(n, fb, lb), (c, n, fb, lb)
            first = (fb & -fb).bit_length() - 1 if fb else 0
            assert c.lower_addr == ((BAR_BASE + off) & 0x7C) | first
            assert data == bytes(model[off:off + 4 * n]), f"read {off:#x}+{n}DW"
    assert tb.mem == model
    assert int(dut.stat_rd_unmapped.value) == 0 and int(dut.stat_wr_unmapped.value) == 0


@cocotb.test()
async def test_random_no_stalls(dut):
    await random_traffic(dut, beryl_seed.seed(1, "test_random_no_stalls"), 0.0)


@cocotb.test()
async def test_random_stalls(dut):
    await random_traffic(dut, beryl_seed.seed(2, "test_random_stalls"), 0.5)


@cocotb.test()
async def test_unmapped_and_unsupported(dut):
    tb = Bench(dut, beryl_seed.seed(3, "test_unmapped_and_unsupported"), 0.3)
    await tb.start()
    # unmapped read: completes with all-ones, counted
    tb.read(MAPPED + 0x100, 1, 0xF, 0, tag=1)
    await tb.wait_cpls(1)
    c, data = tb.cpls.pop()
    assert c.status == CPL_SC and data == b"\xff" * 4
    assert int(dut.stat_rd_unmapped.value) == 1
    # unmapped write: dropped, counted, memory untouched
    before = bytes(tb.mem)
    tb.write(MAPPED + 0x200, b"\x11" * 8, 0xF, 0xF)
    await tb.idle()
    assert int(dut.stat_wr_unmapped.value) == 2 and bytes(tb.mem) == before
    # read longer than one completion beat: UR
    tb.read(0, tb.dwb + 1, 0xF, 0xF, tag=2)
    await tb.wait_cpls(1)
    c, _ = tb.cpls.pop()
    assert c.status == CPL_UR and c.tag == 2 and c.length_dw == 0
    # request to another BAR: UR for a read, dropped write
    tb.read(0, 1, 0xF, 0, tag=3, bar=2)
    tb.write(0, b"\x22" * 4 * (tb.dwb + 2), 0xF, 0xF, bar=2)
    await tb.wait_cpls(1)
    await tb.idle()
    c, _ = tb.cpls.pop()
    assert c.status == CPL_UR and c.tag == 3 and bytes(tb.mem) == before
    assert int(dut.stat_req_unsupported.value) == 3
    # zero-length read: one DW completion with byte count 1
    tb.read(8, 1, 0x0, 0, tag=4)
    await tb.wait_cpls(1)
    c, _ = tb.cpls.pop()
    assert c.status == CPL_SC and c.byte_count == 1 and c.length_dw == 1
    # and normal traffic still works
    tb.write(0x40, b"\xa5\x5a\x01\x02", 0xF, 0)
    tb.read(0x40, 1, 0xF, 0, tag=5)
    await tb.wait_cpls(1)
    c, data = tb.cpls.pop()
    assert data == b"\xa5\x5a\x01\x02"


@cocotb.test()
async def test_non_memory_requests(dut):
    """Requests other than memory reads/writes (PCIe 3.0 table 2-3), one or more beats: each taken whole and
    counted; the non-posted ones (atomics, IO, configuration, locked read, even a no-data header followed by
    payload beats) answered with UR in order, the posted ones (messages) dropped without a completion; nothing
    reaches AXI-Lite, and memory traffic afterwards works."""
    tb = Bench(dut, beryl_seed.seed(4, "test_non_memory_requests"), 0.3)
    await tb.start()
    dwb = tb.dwb
    # (fmt, type, payload DW sent, posted)
    cases = [(FMT_4DW_DATA, 0x0C, 1, False),          # FetchAdd
             (FMT_4DW_DATA, 0x0D, 2, False),          # Swap
             (FMT_4DW_DATA, 0x0E, dwb + 2, False),    # CAS, longer than a beat
             (FMT_3DW_DATA, 0x02, 1, False),          # IO write
             (FMT_3DW_NODATA, 0x02, 0, False),        # IO read
             (FMT_3DW_DATA, 0x04, 1, False),          # configuration write, type 0
             (FMT_3DW_NODATA, 0x05, 0, False),        # configuration read, type 1
             (FMT_4DW_NODATA, 0x01, 0, False),        # locked memory read
             (FMT_4DW_DATA, 0x10, dwb + 1, True),     # message with data, routed to the root complex
             (FMT_4DW_NODATA, 0x14, 0, True),         # message without data, local
             (FMT_4DW_NODATA, 0x1F, 2 * dwb, False)]  # a no-data header with payload beats behind it
    before = bytes(tb.mem)
    want = []
    for tag, (fmt, typ, n, posted) in enumerate(cases, start=10):
        length = max(n, 1)
        dw0 = (fmt << 29) | (typ << 24) | (length & 0x3FF)
        dw1 = (0x0100 << 16) | (tag << 8) | ((0xF if length > 1 else 0) << 4) | 0xF
        hdr = (dw0 << 96) | (dw1 << 64) | (BAR_BASE + 0x80)
        payload = tb.rng.randbytes(4 * n)
        beats = [payload[i:i + 4 * dwb] for i in range(0, len(payload), 4 * dwb)] or [b""]
        for i, b in enumerate(beats):
            tb.src.append((hdr, int.from_bytes(b, "little"), (1 << (len(b) // 4)) - 1, int(i == 0),
                           int(i == len(beats) - 1), 0))
        if not posted:
            want.append(tag)
    await tb.wait_cpls(len(want))
    await tb.idle()
    got = [(c.status, c.tag, c.length_dw) for c, _ in tb.cpls]
    assert got == [(CPL_UR, t, 0) for t in want], got
    assert all(c.requester_id == 0x0100 for c, _ in tb.cpls)
    assert int(dut.stat_req_unsupported.value) == len(cases), "each request counted once, no stray beats"
    assert bytes(tb.mem) == before
    assert int(dut.stat_rd_unmapped.value) == 0 and int(dut.stat_wr_unmapped.value) == 0
    tb.cpls.clear()
    tb.write(0x40, b"\x01\x02\x03\x04", 0xF, 0)
    tb.read(0x40, 1, 0xF, 0, tag=7)
    await tb.wait_cpls(1)
    c, data = tb.cpls.pop()
    assert c.status == CPL_SC and c.tag == 7 and data == b"\x01\x02\x03\x04"


@pytest.mark.parametrize("data_w", [512, 256])
def test_beryl_pcie_axil_master(data_w):
    import beryl_sim
    beryl_sim.run("beryl_pcie_axil_master", "rtl/pcie/beryl_pcie_axil_master.f", "test_beryl_pcie_axil_master",
                  Path(__file__).parent, parameters={"TLP_DATA_W": data_w, "AXIL_ADDR_W": 16})
