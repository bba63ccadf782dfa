# SPDX-License-Identifier: MIT
"""beryl_pcie_us_if: UltraScale+ hard-IP shim <-> vendor-neutral TLP streams.

Reference: cocotbext-pcie's RootComplex + UltraScalePlusPcieDevice (Xilinx PG213 model),
dword-aligned, client tags, RQ/RC straddle as the DUT's RQ_STRADDLE/RC_STRADDLE (512-bit only). The neutral side is driven and checked with
tb/common/tlp_stream.py. Each traffic test runs five phases: no stalls, random source
idle, random sink backpressure, both, and both with source idle only between TLPs.
"""
import logging
import os
import sys
from pathlib import Path

import pytest

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout

from cocotbext.axi import AxiStreamBus
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.core.caps import PciCapId
from cocotbext.pcie.core.tlp import TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us.interface import CqSource, RcSource, RqSink, CcSink
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

from cocotbext.axi.address_space import MemoryRegion

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from tlp_stream import TlpStreamSource, TlpStreamSink  # noqa: E402
from usp_device import usp_device  # noqa: E402
from pcie_tlp import (FMT_3DW_NODATA, FMT_4DW_NODATA, FMT_3DW_DATA, FMT_4DW_DATA, TYPE_MEM,  # noqa: E402
                      TYPE_CPL, CPL_SC, CPL_UR, mem_hdr, parse_mem_hdr, cpl_hdr, parse_cpl_hdr,
                      be_for, be_byte_count)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

# (source idle, sink backpressure, idle only between TLPs). PG213 nullifies an RQ/CC packet
# whose tvalid drops mid-TLP, so the last phase also checks that the shim adds no such gap
# when its tx_req/tx_cpl sources keep valid up from sop to eop.
PHASES = [(0.0, 0.0, False), (0.3, 0.0, False), (0.0, 0.3, False), (0.3, 0.3, False),
          (0.3, 0.3, True)]

BAR0_SIZE = 2**16
BAR2_SIZE = 2**16
HI_MEM_BASE = 0x0000_0012_3400_0000  # 64-bit host memory for DMA above 4 GiB
HI_MEM_SIZE = 2**16

def dut_param(dut, name, default):
    """A DUT parameter: from the simulator if it exposes it, else from the runner's PARAM_ env."""
    try:
        return int(getattr(dut, name).value)
    except AttributeError:
        return int(os.environ.get(f"PARAM_{name}", default))


class StraddleCounter:
    """Counts 512-bit RQ/RC beats that carry parts of two TLPs, from PG213's tuser fields:
    two sops, two eops, or an eop in front of a sop."""

    # tuser bit of is_sop[0], is_sop0_ptr (2 bits, 128-bit units), is_eop[0], is_eop0_ptr (4 bits)
    FIELDS = {"m_axis_rq": (20, 22, 26, 28), "s_axis_rc": (64, 68, 76, 80)}

    def __init__(self, dut):
        self.count = {p: 0 for p in self.FIELDS}
        if len(dut.s_axis_cq_tdata) == 512:
            for p in self.FIELDS:
                cocotb.start_soon(self._run(dut, p))

    async def _run(self, dut, p):
        sop, sop_ptr, eop, eop_ptr = self.FIELDS[p]
        valid, ready, user = (getattr(dut, f"{p}_{s}") for s in ("tvalid", "tready", "tuser"))
        edge = RisingEdge(dut.clk)
        while True:
            await edge
            if int(valid.value) and int(ready.value):
                u = int(user.value)
                sops = bin((u >> sop) & 3).count("1")
                eops = bin((u >> eop) & 3).count("1")
                first_eop_before_sop = ((u >> eop_ptr) & 0xF) < 4 * ((u >> sop_ptr) & 3)
                if sops == 2 or eops == 2 or (sops == 1 and eops == 1 and first_eop_before_sop):
                    self.count[p] += 1


class TB:
    def __init__(self, dut, model=True):
        self.dut = dut
        self.log = logging.getLogger("cocotb.tb")
        self.log.setLevel(logging.INFO)
        self.width = len(dut.s_axis_cq_tdata)
        self.rng = beryl_seed.rng(1, "beryl_pcie_us_if")
        self.rq_straddle = bool(dut_param(dut, "RQ_STRADDLE", self.width == 512))
        self.rc_straddle = bool(dut_param(dut, "RC_STRADDLE", self.width == 512))
        self.log.info("RQ straddle %s, RC straddle %s", self.rq_straddle, self.rc_straddle)

        # the stream models' idle and backpressure patterns follow the knob too
        self.rx_req = TlpStreamSink(dut, "rx_req", dut.clk, dut.rst, sideband=["bar_id"],
                                    seed=beryl_seed.seed(1, "beryl_pcie_us_if rx_req"))
        self.tx_cpl = TlpStreamSource(dut, "tx_cpl", dut.clk, dut.rst,
                                      seed=beryl_seed.seed(2, "beryl_pcie_us_if tx_cpl"))
        self.tx_req = TlpStreamSource(dut, "tx_req", dut.clk, dut.rst,
                                      seed=beryl_seed.seed(3, "beryl_pcie_us_if tx_req"))
        self.rx_cpl = TlpStreamSink(dut, "rx_cpl", dut.clk, dut.rst, sideband=["err_code", "req_done"],
                                    seed=beryl_seed.seed(4, "beryl_pcie_us_if rx_cpl"))
        self.streams_src = [self.tx_cpl, self.tx_req]
        self.streams_sink = [self.rx_req, self.rx_cpl]

        # Mid-TLP tvalid gaps on RQ/CC: PG213 nullifies such packets, so count them.
        self.tx_gaps = {"rq": 0, "cc": 0}
        cocotb.start_soon(self._watch_gaps("m_axis_rq", "rq"))
        cocotb.start_soon(self._watch_gaps("m_axis_cc", "cc"))
        self.straddled = StraddleCounter(dut)

        if not model:
            return

        self.rc = RootComplex()
        self.dev = usp_device(dut, rq_straddle=self.rq_straddle, rc_straddle=self.rc_straddle,
                              msix_table_size=3, msix_table_offset=0x8000, msix_pba_offset=0x9000)
        self.dev.log.setLevel(logging.WARNING)
        self.rc.log.setLevel(logging.WARNING)
        self.dev.functions[0].configure_bar(0, BAR0_SIZE)
        self.dev.functions[0].configure_bar(2, BAR2_SIZE, ext=True, prefetch=True)
        self.rc.make_port().connect(self.dev)

        # Device-side BAR memories served by the Python completer below
        self.bar_mem = {0: bytearray(BAR0_SIZE), 2: bytearray(BAR2_SIZE)}
        self.bar_reqs = []  # parsed rx_req headers, for field checks

        self.hi_mem = MemoryRegion(HI_MEM_SIZE)
        self.rc.mem_address_space.register_region(self.hi_mem, HI_MEM_BASE)

    async def _watch_gaps(self, prefix, key):
        valid = getattr(self.dut, f"{prefix}_tvalid")
        last = getattr(self.dut, f"{prefix}_tlast")
        ready = getattr(self.dut, f"{prefix}_tready")
        in_pkt = False
        edge = RisingEdge(self.dut.clk)
        while True:
            await edge
            v = int(valid.value)
            if in_pkt and not v:
                self.tx_gaps[key] += 1
            if v and int(ready.value):
                in_pkt = not int(last.value)

    def set_phase(self, idle, bp, tlp_only):
        self.check_phase()
        for s in self.streams_src:
            s.idle_prob = idle
            s.idle_between_tlps_only = tlp_only
        for s in self.streams_sink:
            s.backpressure_prob = bp
        self.gap_free_phase = tlp_only
        self.tx_gaps = {k: 0 for k in self.tx_gaps}

    def check_phase(self):
        """End of a phase: with gap-free sources the RQ/CC streams must be gap-free too."""
        if getattr(self, "gap_free_phase", False):
            assert self.tx_gaps == {"rq": 0, "cc": 0}, f"mid-TLP tvalid gaps: {self.tx_gaps}"

    async def init(self):
        await with_timeout(self._init(), 200, "us")

    async def _init(self):
        await ClockCycles(self.dut.clk, 5)
        while int(self.dut.rst.value):
            await RisingEdge(self.dut.clk)
        await self.rc.enumerate()
        self.ep = self.rc.find_device(self.dev.functions[0].pcie_id)
        await self.ep.enable_device()
        await self.ep.set_master()
        self.bar0 = self.ep.bar_window[0]
        self.bar2 = self.ep.bar_window[2]
        self.bar_base = {0: self.ep.bar_addr[0], 2: self.ep.bar_addr[2]}
        cocotb.start_soon(self._completer())
        await ClockCycles(self.dut.clk, 10)

    # ---- device side: serve BAR requests arriving on rx_req through tx_cpl ----

    async def _completer(self):
        while True:
            tlp = await self.rx_req.recv()
            h = parse_mem_hdr(tlp.hdr)
            bar = tlp.side["bar_id"]
            self.bar_reqs.append((h, bar, len(tlp.payload)))
            assert h["type"] == TYPE_MEM, h
            assert bar in self.bar_mem, f"request on BAR {bar}"
            mem = self.bar_mem[bar]
            assert h["addr"] - self.bar_base[bar] < len(mem), (hex(h["addr"]), bar)
            off = h["addr"] & (len(mem) - 1)
            n = h["length"]
            if h["fmt"] == FMT_4DW_DATA:
                assert len(tlp.payload) == 4 * n, (h, len(tlp.payload))
                for i in range(n):
                    be = h["first_be"] if i == 0 else (h["last_be"] if i == n - 1 else 0xF)
                    for b in range(4):
                        if be >> b & 1:
                            mem[off + 4 * i + b] = tlp.payload[4 * i + b]
            else:
                assert h["fmt"] == FMT_4DW_NODATA and len(tlp.payload) == 0, h
                await self._complete_read(h, mem, off)

    async def _complete_read(self, h, mem, off):
        n, fbe, lbe = h["length"], h["first_be"], h["last_be"]
        byte_count = be_byte_count(n, fbe, lbe)
        lo = (fbe & -fbe).bit_length() - 1 if fbe else 0
        data = bytes(mem[off:off + 4 * n])
        mps = 128 << int(self.dut.max_payload_size.value)
        # Split into completions that end on 64-byte (RCB) boundaries, each <= MPS.
        cur, end = h["addr"], h["addr"] + 4 * n
        remaining = byte_count
        first = True
        while cur < end:
            lim = cur + mps
            if lim < end:
                lim &= ~63
            chunk_end = min(end, lim)
            ndw = (chunk_end - cur) // 4
            la = (cur & 0x7F) | (lo if first else 0)
            hdr = cpl_hdr(ndw, CPL_SC, remaining, h["req_id"], h["tag"], la)
            k = cur - h["addr"]
            await self.tx_cpl.send(hdr, data[k:k + 4 * ndw])
            remaining -= 4 * ndw - (lo if first else 0)
            first = False
            cur = chunk_end

    # ---- DMA helpers on tx_req / rx_cpl ----

    async def dma_write(self, addr, data):
        start, ndw, fbe, lbe = be_for(addr, len(data))
        payload = bytes(addr & 3) + bytes(data)
        payload += bytes(4 * ndw - len(payload))
        await self.tx_req.send(mem_hdr(True, start, ndw, fbe, lbe), payload)

    async def dma_read_issue(self, addr, nbytes, tag):
        start, ndw, fbe, lbe = be_for(addr, nbytes)
        await self.tx_req.send(mem_hdr(False, start, ndw, fbe, lbe, tag=tag))


# ---------------------------------------------------------------------------


@cocotb.test()
async def test_config(dut):
    """Config status follows the model's config space, incl. ext tag via cfg_mgmt polling."""
    tb = TB(dut)
    await tb.init()
    ep = tb.ep
    await ClockCycles(dut.clk, 300)  # one poll period of Device Control
    cap = tb.dev.functions[0].pcie_cap
    assert int(dut.bus_master_en.value) == 1
    assert int(dut.max_payload_size.value) == cap.max_payload_size
    assert int(dut.max_read_req_size.value) == cap.max_read_request_size
    assert int(dut.rcb_128.value) == int(bool(cap.read_completion_boundary))
    assert int(dut.ext_tag_en.value) == 1 == int(cap.extended_tag_field_enable)
    assert int(dut.msix_enable.value) == 0

    devctl = await ep.capability_read_dword(PciCapId.EXP, 0x8)
    await ep.capability_write_dword(PciCapId.EXP, 0x8, (devctl & ~(1 << 8) & ~(7 << 12)) | (5 << 12))
    await ep.set_master(False)
    msixctl = await ep.capability_read_word(PciCapId.MSIX, 2)
    await ep.capability_write_word(PciCapId.MSIX, 2, msixctl | 0xC000)  # enable + function mask
    await ClockCycles(dut.clk, 300)
    assert int(dut.ext_tag_en.value) == 0
    assert int(dut.max_read_req_size.value) == 5
    assert int(dut.bus_master_en.value) == 0
    assert int(dut.msix_enable.value) == 1 and int(dut.msix_mask.value) == 1

    await ep.capability_write_dword(PciCapId.EXP, 0x8, devctl)
    await ep.set_master(True)
    await ep.capability_write_word(PciCapId.MSIX, 2, (msixctl | 0x8000) & ~0x4000)
    await ClockCycles(dut.clk, 300)
    assert int(dut.ext_tag_en.value) == 1
    assert int(dut.bus_master_en.value) == 1
    assert int(dut.msix_enable.value) == 1 and int(dut.msix_mask.value) == 0


@cocotb.test()
async def test_host_bar_access(dut):
    """Host writes/reads to BAR0 (32-bit) and BAR2 (64-bit) through CQ -> rx_req, tx_cpl -> CC."""
    tb = TB(dut)
    await tb.init()
    rng = tb.rng
    lengths = [1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 60, 64, 65, 127, 128, 200, 256, 300, 512]
    for idle, bp, tlp_only in PHASES:
        tb.set_phase(idle, bp, tlp_only)
        for bar, win in ((0, tb.bar0), (2, tb.bar2)):
            ref = bytearray(tb.bar_mem[bar])
            ops = []
            for n in rng.sample(lengths, 6) + [3, 300]:
                off = rng.randrange(0, 0x2000 - n)
                data = bytes(rng.randrange(256) for _ in range(n))
                ops.append((off, data))
            tb.bar_reqs.clear()
            for off, data in ops:
                await with_timeout(win.write(off, data), 100, "us")
                ref[off:off + len(data)] = data
            for off, data in ops:
                got = await with_timeout(win.read(off, len(data)), 100, "us")
                assert bytes(got) == bytes(ref[off:off + len(data)]), (bar, off, len(data))
            assert tb.bar_mem[bar] == ref, f"BAR{bar} memory differs after writes"
            # Header fields seen on rx_req: BAR id, address inside the BAR, requester = root port
            for h, b, _ in tb.bar_reqs:
                assert b == bar
                assert tb.bar_base[bar] <= h["addr"] < tb.bar_base[bar] + len(tb.bar_mem[bar])
                assert h["req_id"] == 0 and h["at"] == 0 and h["ep"] == 0
            if bar == 2:
                assert tb.bar_base[2] > 0xFFFFFFFF, "BAR2 expected above 4 GiB"
            assert any(h["fmt"] == FMT_4DW_NODATA for h, _, _ in tb.bar_reqs)
            assert any(h["fmt"] == FMT_4DW_DATA and h["length"] > tb.width // 32 for h, _, _ in tb.bar_reqs)
    tb.check_phase()


@cocotb.test()
async def test_dma_write(dut):
    """Device memory writes on tx_req land in host memory (32- and 64-bit addresses)."""
    tb = TB(dut)
    await tb.init()
    rng = tb.rng
    lo_mem = tb.rc.mem_pool.alloc_region(2**16)
    lo_base = lo_mem.get_absolute_address(0)
    mps = 128 << int(dut.max_payload_size.value)
    for idle, bp, tlp_only in PHASES:
        tb.set_phase(idle, bp, tlp_only)
        for base, mem in ((lo_base, lo_mem), (HI_MEM_BASE, tb.hi_mem)):
            ref = bytearray(mem[0:2**16])
            for n in [1, 2, 3, 4, 5, 8, 13, 28, 29, 60, 61, 64, 100, 124, 125, 256, 509, mps - 4, mps]:
                # any byte alignment, inside one 4 KiB page, at most MPS on the wire
                off = rng.randrange(0, 16) * 0x1000 + rng.randrange(0, 0x1000 - n - 4)
                if n > mps - 4:
                    off &= ~3
                data = bytes(rng.randrange(256) for _ in range(n))
                await tb.dma_write(base + off, data)
                ref[off:off + n] = data
            await with_timeout(tb.tx_req.wait(), 100, "us")
            for _ in range(200):
                if bytes(mem[0:2**16]) == bytes(ref):
                    break
                await ClockCycles(dut.clk, 20)
            assert bytes(mem[0:2**16]) == bytes(ref), f"host memory at {base:#x} differs"
    tb.check_phase()
    tb.log.info("straddled beats: %s", tb.straddled.count)
    if tb.rq_straddle:
        assert tb.straddled.count["m_axis_rq"] > 0, "RQ straddle not exercised"


async def _collect_cpls(tb, expect):
    """Collect rx_cpl TLPs until every tag in `expect` is complete; check each completion."""
    got = {t: bytearray() for t in expect}
    while any(len(got[t]) < expect[t]["bc"] for t in expect):
        tlp = await tb.rx_cpl.recv()
        c = parse_cpl_hdr(tlp.hdr)
        e = expect[c["tag"]]
        assert c["type"] == TYPE_CPL and c["status"] == CPL_SC and c["ep"] == 0, c
        assert tlp.side["err_code"] == 0, tlp.side
        assert c["req_id"] == int(tb.dev.functions[0].pcie_id), hex(c["req_id"])
        done = len(got[c["tag"]])
        addr = e["addr"] + done
        assert c["byte_count"] == e["bc"] - done, (c, e, done)
        assert c["lower_addr"] == addr & 0x7F, (c, e, done)
        assert len(tlp.payload) == 4 * c["length"], (c, len(tlp.payload))
        skip = addr & 3
        take = min(4 * c["length"] - skip, e["bc"] - done)
        got[c["tag"]] += tlp.payload[skip:skip + take]
        last = len(got[c["tag"]]) == e["bc"]
        assert tlp.side["req_done"] == int(last), (c, tlp.side)
    return got


@cocotb.test()
async def test_dma_read(dut):
    """Device memory reads on tx_req; split completions on rx_cpl with tag, byte count,
    lower address and data checked; several reads outstanding."""
    tb = TB(dut)
    await tb.init()
    rng = tb.rng
    lo_mem = tb.rc.mem_pool.alloc_region(2**16)
    lo_base = lo_mem.get_absolute_address(0)
    for mem in (lo_mem, tb.hi_mem):
        mem[0:2**16] = bytes(rng.randrange(256) for _ in range(2**16))
    ntags = 256 if int(dut.ext_tag_en.value) else 32
    tags = list(range(ntags))
    sizes = [1, 2, 3, 4, 5, 7, 64, 65, 100, 128, 129, 500, 1024, 1500, 2048, 4000, 4096]
    for phase, (idle, bp, tlp_only) in enumerate(PHASES):
        tb.set_phase(idle, bp, tlp_only)
        tb.rc.split_on_all_rcb = bool(phase & 1)
        for base, mem in ((lo_base, lo_mem), (HI_MEM_BASE, tb.hi_mem)):
            pending = rng.sample(sizes, len(sizes))
            while pending:
                batch, pending = pending[:4], pending[4:]
                expect = {}
                for n in batch:
                    tag = tags.pop(rng.randrange(len(tags)))
                    page = rng.randrange(0, 16) * 0x1000
                    off = page + rng.randrange(0, 0x1000 - n + 1) if n < 4096 else page
                    expect[tag] = dict(addr=base + off, off=off, bc=n)
                    await tb.dma_read_issue(base + off, n, tag)
                got = await with_timeout(_collect_cpls(tb, expect), 500, "us")
                for tag, e in expect.items():
                    assert bytes(got[tag]) == bytes(mem[e["off"]:e["off"] + e["bc"]]), (tag, e)
                    tags.append(tag)
    tb.check_phase()
    assert tb.rx_cpl.empty()
    tb.log.info("straddled beats: %s", tb.straddled.count)
    if tb.rc_straddle:
        assert tb.straddled.count["s_axis_rc"] > 0, "RC straddle not exercised"


@cocotb.test()
async def test_dma_read_ur(dut):
    """A read the root complex answers with UR still reaches rx_cpl, as a header with UR status."""
    tb = TB(dut)
    await tb.init()
    for idle, bp, tlp_only in PHASES:
        tb.set_phase(idle, bp, tlp_only)
        for tag, (addr, n) in enumerate([(0x0000_0050_0000_0000, 64), (0x0000_0060_0000_0100, 4)]):
            await tb.dma_read_issue(addr, n, tag)
            tlp = await with_timeout(tb.rx_cpl.recv(), 100, "us")
            c = parse_cpl_hdr(tlp.hdr)
            assert c["status"] == CPL_UR and c["tag"] == tag, c
            assert c["fmt"] == FMT_3DW_NODATA and c["length"] == 0 and tlp.payload == b"", c
            assert tlp.side["err_code"] == 0b0010 and tlp.side["req_done"] == 1, tlp.side
    tb.check_phase()
    # The shim keeps working afterwards
    lo_mem = tb.rc.mem_pool.alloc_region(4096)
    lo_mem[0:64] = bytes(range(64))
    await tb.dma_read_issue(lo_mem.get_absolute_address(0), 64, 7)
    got = await with_timeout(_collect_cpls(tb, {7: dict(addr=lo_mem.get_absolute_address(0), bc=64)}),
                             100, "us")
    assert bytes(got[7]) == bytes(range(64))


# ---- throughput at the shim boundary, reference packers/unpackers, no link model ----

async def _count(dut, cond, stop):
    n = 0
    edge = RisingEdge(dut.clk)
    while not stop[0]:
        await edge
        if cond():
            n += 1
    return n


def rq_packing(tlps, straddle):
    """Reference for the RQ packer: (tx_req stalls, straddled RQ beats) for back-to-back TLPs
    with `tlps` payload dwords each (0 = read). A TLP whose last input beat spills past the
    beat's room behind the descriptor needs an extra output beat, which stalls tx_req unless
    (straddle) the spill fits in dwords 0..7 and the next TLP starts at dword 8 of that beat."""
    stalls = shares = 0
    mid = False   # TLP starts at dword 8: descriptor 8..11, payload shifted by 12
    for i, n in enumerate(tlps):
        room = 16 - (12 if mid else 4)
        last = n - 16 * ((n - 1) // 16) if n else 0
        mid = False
        if last > room and i < len(tlps) - 1:
            if straddle and last - room <= 8:
                shares += 1
                mid = True
            else:
                stalls += 1
    return stalls, shares


@cocotb.test()
async def test_throughput(dut):
    """Back to back TLPs with no stalls: CQ is never backpressured; RC neither when rx_cpl has
    room (with straddle: only while rx_cpl is busy, as two short TLPs can arrive per beat);
    tx_req/tx_cpl stall exactly once per TLP whose payload spills into an extra output beat
    that cannot also carry the next TLP (RQ straddle), no mid-TLP gaps. Descriptors are
    cross-checked against cocotbext-pcie's PG213 pack/unpack."""
    tb = TB(dut, model=False)
    cocotb.start_soon(Clock(dut.clk, 4, unit="ns").start())
    for name in ("cfg_max_payload", "cfg_max_read_req", "cfg_function_status", "cfg_rcb_status",
                 "cfg_interrupt_msix_enable", "cfg_interrupt_msix_mask", "cfg_mgmt_read_data",
                 "cfg_mgmt_read_write_done"):
        getattr(dut, name).value = 0
    dut.rst.value = 1
    cq = CqSource(AxiStreamBus.from_prefix(dut, "s_axis_cq"), dut.clk, dut.rst)
    rc = RcSource(AxiStreamBus.from_prefix(dut, "s_axis_rc"), dut.clk, dut.rst,
                  segments=2 if tb.rc_straddle else 1)
    rq = RqSink(AxiStreamBus.from_prefix(dut, "m_axis_rq"), dut.clk, dut.rst,
                segments=2 if tb.rq_straddle else 1)
    cc = CcSink(AxiStreamBus.from_prefix(dut, "m_axis_cc"), dut.clk, dut.rst)
    await ClockCycles(dut.clk, 5)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 5)
    rng = tb.rng
    ndw_beat = tb.width // 32
    lens = [1, 2, 3, 4, 5, 8, 9, 12, 13, 16, 17, 20, 29, 32, 64, 100, 128, 256]

    # CQ -> rx_req and RC -> rx_cpl: the shim must never deassert tready (RC with straddle:
    # only in cycles where rx_cpl moves a beat, i.e. when rx_cpl is the bottleneck).
    stop = [False]
    cq_stall = cocotb.start_soon(_count(dut, lambda: int(dut.s_axis_cq_tvalid.value) and
                                        not int(dut.s_axis_cq_tready.value), stop))
    rc_stall = cocotb.start_soon(_count(dut, lambda: int(dut.s_axis_rc_tvalid.value) and
                                        not int(dut.s_axis_rc_tready.value), stop))
    rc_idle_stall = cocotb.start_soon(_count(dut, lambda: int(dut.s_axis_rc_tvalid.value) and
                                             not int(dut.s_axis_rc_tready.value) and
                                             not int(dut.rx_cpl_tlp_valid.value), stop))
    cq_sent, rc_sent = [], []
    for i, n in enumerate(lens * 2):
        t = Tlp_us()
        if i % 3 == 2:
            t.fmt_type = TlpType.MEM_READ_64
            t.length = n
        else:
            t.fmt_type = TlpType.MEM_WRITE_64
            t.set_data(bytes(rng.randrange(256) for _ in range(4 * n)))
        t.address = 0x1_2345_0000 + 4 * rng.randrange(0, 1000)
        t.first_be = 0xF if n > 1 else 0x6
        t.last_be = 0xE if n > 1 else 0
        t.requester_id = PcieId(0, 3, 1)
        t.tag = i
        t.tc = i & 7
        t.attr = i & 7
        t.bar_id = i % 6
        t.completer_id = PcieId(1, 0, 0)
        cq_sent.append(t)
        cq.send_nowait(t.pack_us_cq())

        c = Tlp_us()
        c.fmt_type = TlpType.CPL_DATA
        c.set_data(bytes(rng.randrange(256) for _ in range(4 * n)))
        c.byte_count = 4 * n + 4 * i
        c.lower_address = (5 * i) & 0x7F
        c.requester_id = PcieId(1, 0, 0)
        c.completer_id = PcieId(0, 0, 0)
        c.tag = i
        c.request_completed = (i & 1)
        rc_sent.append(c)
        rc.send_nowait(c.pack_us_rc())
    for t in cq_sent:
        f = await with_timeout(tb.rx_req.recv(), 20, "us")
        h = parse_mem_hdr(f.hdr)
        wr = t.fmt_type == TlpType.MEM_WRITE_64
        assert h["fmt"] == (FMT_4DW_DATA if wr else FMT_4DW_NODATA) and h["type"] == TYPE_MEM
        assert (h["addr"], h["length"], h["tag"], h["req_id"]) == (t.address, t.length, t.tag,
                                                                   int(t.requester_id))
        assert (h["first_be"], h["last_be"], h["tc"], h["attr"]) == (t.first_be, t.last_be, t.tc, t.attr)
        assert f.side["bar_id"] == t.bar_id and f.payload == bytes(t.data)
    for c in rc_sent:
        f = await with_timeout(tb.rx_cpl.recv(), 20, "us")
        h = parse_cpl_hdr(f.hdr)
        assert (h["tag"], h["byte_count"], h["lower_addr"], h["length"]) == (c.tag, c.byte_count,
                                                                            c.lower_address, c.length)
        assert h["req_id"] == int(c.requester_id) and h["status"] == CPL_SC and h["fmt"] == FMT_3DW_DATA
        assert f.side["req_done"] == int(bool(c.request_completed)) and f.payload == bytes(c.data)
    stop[0] = True
    n_rc, n_rc_idle = await rc_stall, await rc_idle_stall
    tb.log.info("RC stalls %d (with rx_cpl idle %d), straddled RC beats %d", n_rc, n_rc_idle,
                tb.straddled.count["s_axis_rc"])
    assert await cq_stall == 0, "CQ tready dropped with rx_req always ready"
    if tb.rc_straddle:
        assert n_rc_idle == 0, "RC tready dropped while rx_cpl was idle"
        assert tb.straddled.count["s_axis_rc"] > 0, "no straddled RC beat"
    else:
        assert n_rc == 0, "RC tready dropped with rx_cpl always ready"

    # Back-to-back completions of whole 64-byte blocks (RCB-split reads, MPS 256): rx_cpl
    # needs no more beats than RC, so RC must flow without a stall, straddled or not.
    stop = [False]
    rc_stall = cocotb.start_soon(_count(dut, lambda: int(dut.s_axis_rc_tvalid.value) and
                                        not int(dut.s_axis_rc_tready.value), stop))
    straddled0 = tb.straddled.count["s_axis_rc"]
    rc_sent = []
    for i in range(48):
        n = rng.choice([16, 32, 64, 64, 64])
        c = Tlp_us()
        c.fmt_type = TlpType.CPL_DATA
        c.set_data(bytes(rng.randrange(256) for _ in range(4 * n)))
        c.byte_count = 4 * n
        c.requester_id = PcieId(1, 0, 0)
        c.tag = i
        c.request_completed = 1
        rc_sent.append(c)
        rc.send_nowait(c.pack_us_rc())
    for c in rc_sent:
        f = await with_timeout(tb.rx_cpl.recv(), 20, "us")
        h = parse_cpl_hdr(f.hdr)
        assert (h["tag"], h["length"]) == (c.tag, c.length) and f.payload == bytes(c.data)
    stop[0] = True
    assert await rc_stall == 0, "RC tready dropped for whole-block completions"
    if tb.rc_straddle:
        assert tb.straddled.count["s_axis_rc"] - straddled0 > 20, "RC straddle not exercised"

    # tx_req -> RQ and tx_cpl -> CC: one stall per spilling TLP, nothing else.
    stop = [False]
    rq_stall = cocotb.start_soon(_count(dut, lambda: int(dut.tx_req_tlp_valid.value) and
                                        not int(dut.tx_req_tlp_ready.value), stop))
    cc_stall = cocotb.start_soon(_count(dut, lambda: int(dut.tx_cpl_tlp_valid.value) and
                                        not int(dut.tx_cpl_tlp_ready.value), stop))
    spill_rq, spill_cc = [], []
    rq_sent, cc_sent = [], []
    straddled0 = tb.straddled.count["m_axis_rq"]
    for i, n in enumerate(lens * 2):
        wr = i % 3 != 2
        data = bytes(rng.randrange(256) for _ in range(4 * n)) if wr else b""
        addr = (0x0000_00AB_0000_0000 if i & 1 else 0x8000_0000) + 4 * rng.randrange(0, 1000)
        fbe, lbe = (0xF, 0x7) if n > 1 else (0x3, 0)
        rq_sent.append((wr, addr, n, fbe, lbe, i & 0x1F, data))
        await tb.tx_req.send(mem_hdr(wr, addr, n, fbe, lbe, tag=i & 0x1F, attr=i & 7, tc=i & 7), data)
        last = n % ndw_beat or ndw_beat
        spill_rq.append(n if wr else 0)
        cdata = bytes(rng.randrange(256) for _ in range(4 * n))
        cc_sent.append((n, i, cdata))
        await tb.tx_cpl.send(cpl_hdr(n, CPL_SC, 4 * n + i, 0x0123, i, i & 0x7F), cdata)
        last = n % ndw_beat or ndw_beat
        spill_cc.append(last > ndw_beat - 3)
    for wr, addr, n, fbe, lbe, tag, data in rq_sent:
        t = Tlp_us.unpack_us_rq(await with_timeout(rq.recv(), 20, "us"))
        assert t.fmt_type == (TlpType.MEM_WRITE_64 if wr else TlpType.MEM_READ_64) or \
            t.fmt_type == (TlpType.MEM_WRITE if wr else TlpType.MEM_READ), t
        assert (t.address, t.length, t.first_be, t.last_be, t.tag) == (addr, n, fbe, lbe, tag), t
        assert not t.requester_id_enable and bytes(t.data) == data
    for n, i, cdata in cc_sent:
        t = Tlp_us.unpack_us_cc(await with_timeout(cc.recv(), 20, "us"))
        assert (t.length, t.byte_count, t.tag, t.lower_address) == (n, 4 * n + i, i, i & 0x7F), t
        assert int(t.requester_id) == 0x0123 and not t.completer_id_enable and bytes(t.data) == cdata
    await with_timeout(tb.tx_req.wait(), 20, "us")
    await with_timeout(tb.tx_cpl.wait(), 20, "us")
    stop[0] = True
    n_rq, n_cc = await rq_stall, await cc_stall
    # The extra beat of a spilling TLP holds the next TLP's first beat for one cycle
    # (nothing follows the final TLP, so it costs no stall); with RQ straddle the extra beat
    # carries the next TLP's start instead when the spill fits in the lower half.
    if ndw_beat == 16:
        spill_rq, straddled_rq = rq_packing(spill_rq, tb.rq_straddle)
    else:
        spill_rq = sum(n > 0 and (n - 1) % ndw_beat + 1 > ndw_beat - 4 for n in spill_rq[:-1])
        straddled_rq = 0
    spill_cc = sum(spill_cc[:-1])
    got_straddled = tb.straddled.count["m_axis_rq"] - straddled0
    tb.log.info("stalls: rq %d (expected %d), cc %d (spills %d); straddled RQ beats %d "
                "(expected %d); gaps %s", n_rq, spill_rq, n_cc, spill_cc, got_straddled,
                straddled_rq, tb.tx_gaps)
    assert n_rq == spill_rq and n_cc == spill_cc
    assert got_straddled == straddled_rq
    assert straddled_rq > 0 or not tb.rq_straddle
    assert tb.tx_gaps == {"rq": 0, "cc": 0}, tb.tx_gaps


# ---------------------------------------------------------------------------

@pytest.mark.parametrize("tlp_data_w,straddle", [(512, 1), (512, 0), (256, 0)],
                         ids=["512-straddle", "512", "256"])
def test_beryl_pcie_us_if(tlp_data_w, straddle):
    import beryl_sim
    beryl_sim.run("beryl_pcie_us_if", "rtl/pcie/beryl_pcie_us_if.f", "test_beryl_pcie_us_if",
                  Path(__file__).resolve().parent,
                  parameters={"TLP_DATA_W": tlp_data_w, "CFG_POLL_CYCLES": 64,
                              "RQ_STRADDLE": straddle, "RC_STRADDLE": straddle})
