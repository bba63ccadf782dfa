# SPDX-License-Identifier: MIT
"""Unit test of the BAR to AXI-Lite bridge.

Host requests are built with the test benches' own TLP codec; the AXI-Lite side is a Python
responder with a memory below MAPPED bytes and DECERR above, stalling every channel at random.
Completions are checked against the PCIe rules for byte count and lower address. The clock gate's
enable is checked every cycle of the random traffic: closed exactly while a state waits for its
handshake (tb/common/gate_check.py).
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
from gate_check import GateCheck  # noqa: E402

MAPPED = 0x4000
BAR_BASE = 0xF000_0000


class Bench:
    def __init__(self, dut, seed, stall):
        self.dut, self.rng, self.stall = dut, random.Random(seed), stall
        self.dwb = len(dut.rx_req_tlp_data) // 32
        self.mem = bytearray(self.rng.randbytes(MAPPED))
        self.cpls = []
        self.src = []     # beats to send: (hdr, data_int, strb, sop, eop, bar, bad)
        self.axil_log = []   # AXI-Lite accesses in order: ("r", addr) or ("w", addr, strb)
        self.bad_noise = False   # drive rx_req_tlp_bad at random while no beat is offered

    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 4, "ns").start())
        d.rst.value = 1
        for s in ("rx_req_tlp_valid", "rx_req_tlp_bad", "tx_cpl_tlp_ready", "m_axil_awready", "m_axil_wready",
                  "m_axil_bvalid", "m_axil_arready", "m_axil_rvalid"):
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
                hdr, data, strb, sop, eop, bar, bad = self.src[0]
                d.rx_req_tlp_hdr.value = hdr
                d.rx_req_tlp_data.value = data
                d.rx_req_tlp_strb.value = strb
                d.rx_req_tlp_sop.value = sop
                d.rx_req_tlp_eop.value = eop
                d.rx_req_tlp_bar_id.value = bar
                d.rx_req_tlp_bad.value = bad
                d.rx_req_tlp_valid.value = 1
                offered = True
            else:
                d.rx_req_tlp_valid.value = 0
                d.rx_req_tlp_bad.value = int(self.bad_noise and self.rng.random() < 0.5)

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
                self.axil_log.append(("w", aw, w[1]))
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
                self.axil_log.append(("r", a))
                rpend = (int.from_bytes(self.mem[a:a + 4], "little"), 0) if a + 4 <= MAPPED else (0x12345678, 3)
            d.m_axil_arready.value = int(rpend is None and self.go())
            if rpend is not None:
                d.m_axil_rvalid.value = 1 if int(d.m_axil_rvalid.value) else int(self.go())
                d.m_axil_rdata.value, d.m_axil_rresp.value = rpend
            else:
                d.m_axil_rvalid.value = 0

    def send(self, hdr, payload, bar=0, bad=0):
        """Queue one TLP: its payload cut into beats, `bad` (discontinued) with the last one."""
        beats = [payload[i:i + self.dwb * 4] for i in range(0, len(payload), self.dwb * 4)] or [b""]
        for i, b in enumerate(beats):
            last = i == len(beats) - 1
            self.src.append((hdr, int.from_bytes(b, "little"), (1 << (len(b) // 4)) - 1, int(i == 0),
                             int(last), bar, int(bad and last)))
        return len(beats)

    def write(self, off, payload_dw, fb, lb, bar=0, bad=0):
        n = len(payload_dw) // 4
        hdr = MemReq(fmt=FMT_4DW_DATA, addr=BAR_BASE + off, length_dw=n, first_be=fb, last_be=lb, tag=0).pack()
        return self.send(hdr, payload_dw, bar, bad)

    def read(self, off, n, fb, lb, tag, bar=0, bad=0):
        hdr = MemReq(fmt=FMT_4DW_NODATA, addr=BAR_BASE + off, length_dw=n, first_be=fb, last_be=lb, tag=tag,
                     requester_id=0x0100).pack()
        self.send(hdr, b"", bar, bad)

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


# the bridge's states (state_t), and what each one waits for: no flop changes while it waits
S_IDLE, S_RD_ADDR, S_RD_DATA, S_WR_ADDR, S_WR_RESP, S_WR_NEXT, S_CPL, S_DRAIN = range(8)


def gate_check(dut):
    v = lambda name: int(getattr(dut, name).value)  # noqa: E731

    def waits():
        st = v("state_q")
        return ((st in (S_IDLE, S_DRAIN) and not v("rx_req_tlp_valid"))
                or (st == S_RD_ADDR and not v("m_axil_arready"))
                or (st == S_RD_DATA and not v("m_axil_rvalid"))
                or (st == S_WR_ADDR and v("dw_be") != 0 and not v("m_axil_awready") and not v("m_axil_wready"))
                or (st == S_WR_RESP and not v("m_axil_bvalid"))
                or (st == S_CPL and not v("tx_cpl_tlp_ready")))
    return GateCheck(dut, moving=lambda: v("rst") or not waits(),
                     waiting=lambda: v("state_q") != S_IDLE and waits())


async def random_traffic(dut, seed, stall):
    tb = Bench(dut, seed, stall)
    gc = gate_check(dut)
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
    gc.check(min_closed_waits=20 if stall else 0)


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
        tb.send(hdr, tb.rng.randbytes(4 * n))
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


def raw_hdr(fmt, typ, length, tag, off=0x80):
    """Header of a request of any type (PCIe 3.0 table 2-3), requester 0x0100."""
    dw0 = (fmt << 29) | (typ << 24) | (length & 0x3FF)
    dw1 = (0x0100 << 16) | (tag << 8) | ((0xF if length > 1 else 0) << 4) | 0xF
    return (dw0 << 96) | (dw1 << 64) | (BAR_BASE + off)


class DiscardModel:
    """What the bridge should do with each request queued through it, discontinued or not, written
    from the rules in the module header: the registers and the AXI-Lite accesses they see, the
    completions in order, and every counter."""

    def __init__(self, tb):
        self.tb, self.dwb = tb, tb.dwb
        self.mem = bytearray(tb.mem)
        self.cpls = []    # (status, tag, length_dw, data)
        self.log = []     # like Bench.axil_log
        self.discarded = self.unsupported = self.rd_unmapped = self.wr_unmapped = 0

    def write(self, off, n, fb, lb, bar=0, bad=0):
        data = self.tb.rng.randbytes(4 * n)
        beats = self.tb.write(off, data, fb, lb, bar=bar, bad=bad)
        if bar != 0:                          # unsupported and posted: dropped, never answered
            if bad and beats == 1:
                self.discarded += 1           # discarded whole before it is looked at
            else:
                self.unsupported += 1
                self.discarded += bad
            return
        self.discarded += bad
        # carried out beat by beat: a discontinued write loses the DWs of its last beat only
        done = (beats - 1) * self.dwb if bad else n
        for k in range(done):
            be = fb if k == 0 else lb if k == n - 1 else 0xF
            if not be:
                continue
            a = off + 4 * k
            self.log.append(("w", a, be))
            if a + 4 > MAPPED:
                self.wr_unmapped += 1
                continue
            for b in range(4):
                if be >> b & 1:
                    self.mem[a + b] = data[4 * k + b]

    def read(self, off, n, fb, lb, tag, bar=0, bad=0):
        self.tb.read(off, n, fb, lb, tag, bar=bar, bad=bad)
        if bad:                               # a read is one beat: discarded whole, not even UR
            self.discarded += 1
            return
        if bar != 0 or n > self.dwb:
            self.unsupported += 1
            self.cpls.append((CPL_UR, tag, 0, b""))
            return
        data = b""
        for k in range(n):
            a = off + 4 * k
            self.log.append(("r", a))
            if a + 4 <= MAPPED:
                data += bytes(self.mem[a:a + 4])
            else:
                data += b"\xff" * 4
                self.rd_unmapped += 1
        self.cpls.append((CPL_SC, tag, n, data))

    def other(self, fmt, typ, n, tag, posted, bad=0):
        """A request other than a memory read or write with n payload DW: unsupported."""
        beats = self.tb.send(raw_hdr(fmt, typ, max(n, 1), tag), self.tb.rng.randbytes(4 * n), bad=bad)
        if bad and beats == 1:
            self.discarded += 1
            return
        self.unsupported += 1                 # counted at its first beat, drained to its last
        self.discarded += bad
        if not posted and not bad:
            self.cpls.append((CPL_UR, tag, 0, b""))

    async def check(self, what):
        tb, dut = self.tb, self.tb.dut
        await tb.idle()
        await ClockCycles(dut.clk, 300)       # generous: a completion owed to a discarded request shows up
        got = [(c.status, c.tag, c.length_dw, data) for c, data in tb.cpls]
        assert got == self.cpls, f"{what}: completions\n got  {got}\n want {self.cpls}"
        assert tb.axil_log == self.log, f"{what}: AXI-Lite accesses\n got  {tb.axil_log}\n want {self.log}"
        assert tb.mem == self.mem, f"{what}: register contents differ"
        counters = {k: int(getattr(dut, "stat_" + k).value)
                    for k in ("req_discarded", "req_unsupported", "rd_unmapped", "wr_unmapped")}
        want = {"req_discarded": self.discarded, "req_unsupported": self.unsupported,
                "rd_unmapped": self.rd_unmapped, "wr_unmapped": self.wr_unmapped}
        assert counters == want, f"{what}: counters {counters} != {want}"


async def discontinued_traffic(dut, seed, stall):
    """Requests the core discontinued (rx_req_tlp_bad with the last beat) among good ones, back to back:
    a one-beat request is discarded whole (no access, no completion, not counted unsupported), a longer
    write loses its last beat's DWs only, a drained unsupported request gets no UR; each is counted
    once in stat_req_discarded and the request after it is served normally."""
    tb = Bench(dut, seed, stall)
    tb.bad_noise = True
    await tb.start()
    m, dwb, rng = DiscardModel(tb), tb.dwb, tb.rng
    # one case of each rule, each followed by a good request that shows the bridge went on
    m.read(0x100, 1, 0xF, 0, tag=1, bad=1)                       # one-beat read
    m.read(0x100, 1, 0xF, 0, tag=2)
    m.write(0x200, dwb, 0xF, 0xF, bad=1)                         # one-beat write, a full beat
    m.read(0x200, dwb, 0xF, 0xF, tag=3)                          # ... the registers kept their values
    m.write(0x300, 1, 0x6, 0, bad=1)                             # one-beat write, one DW
    m.write(0x300, 1, 0x6, 0)
    m.read(0x300, 1, 0xF, 0, tag=4)
    m.write(0x400, 2 * dwb + 3, 0xE, 0x7, bad=1)                 # three beats: the first two written
    for k in range(3):
        m.read(0x400 + 4 * dwb * k, dwb, 0xF, 0xF, tag=5 + k)
    m.write(0x800, 2 * dwb, 0xF, 0xF, bad=1)                     # two full beats: the first written
    m.write(0xA00, dwb + 1, 0xC, 0x3)                            # a good two-beat write after it
    m.read(0xA00, dwb, 0xF, 0xF, tag=8)
    m.read(0xA00 + 4 * dwb, 1, 0xF, 0, tag=9)
    m.other(FMT_4DW_DATA, 0x0E, dwb + 2, tag=10, posted=False, bad=1)   # CAS over two beats: no UR
    m.read(0x100, 2, 0xF, 0xF, tag=11)
    m.other(FMT_4DW_DATA, 0x10, dwb + 1, tag=12, posted=True, bad=1)    # message over two beats
    m.other(FMT_4DW_NODATA, 0x1F, 2 * dwb, tag=13, posted=False, bad=1)  # no-data header, payload beats
    m.other(FMT_4DW_DATA, 0x0E, dwb + 2, tag=14, posted=False)          # the same, not discontinued: UR
    m.other(FMT_3DW_NODATA, 0x02, 0, tag=15, posted=False, bad=1)       # one-beat IO read: discarded whole
    m.read(0x40, 1, 0xF, 0, tag=16, bar=2, bad=1)                # one-beat read to another BAR
    m.read(0x40, dwb + 1, 0xF, 0xF, tag=17, bad=1)               # one-beat read longer than a beat
    m.write(0x40, dwb + 2, 0xF, 0xF, bar=2, bad=1)               # two-beat write to another BAR
    m.read(0x40, 1, 0xF, 0, tag=18, bar=2)                       # ... and a UR for a good one
    m.read(MAPPED + 0x10, 1, 0xF, 0, tag=19, bad=1)              # unmapped: no access, not counted
    m.write(MAPPED + 0x20, 1, 0xF, 0, bad=1)
    m.write(MAPPED - 4 * dwb, dwb + 2, 0xF, 0xF, bad=1)          # first beat mapped, last beat not
    m.read(MAPPED + 0x10, 1, 0xF, 0, tag=20)
    await m.check("fixed cases")
    # a random mix of the same, queued all at once: a discarded request is followed at once by the next
    for i in range(60):
        tag, bad = 32 + i, int(rng.random() < 0.4)
        kind = rng.choice(["rd", "rd", "wr", "wr", "wr_long", "rd_ur", "wr_bar", "cas", "msg", "io"])
        n = rng.choice([1, 2, dwb]) if kind in ("rd", "wr") else rng.choice([dwb + 1, 2 * dwb, 2 * dwb + 3])
        top = MAPPED + 0x100 if rng.random() < 0.1 else MAPPED   # now and then past the mapped registers
        off = rng.randrange(0, top - 4 * n, 4)
        fb, lb = rand_bes(rng, n)
        if kind == "rd":
            m.read(off, n, fb, lb, tag, bad=bad)
        elif kind == "rd_ur":
            m.read(off, n, 0xF, 0xF, tag, bar=rng.choice([0, 2]), bad=bad)   # longer than a beat
        elif kind in ("wr", "wr_long"):
            m.write(off, n, fb, lb, bad=bad)
        elif kind == "wr_bar":
            m.write(off, n, fb, lb, bar=rng.choice([1, 2, 5]), bad=bad)
        elif kind == "cas":
            m.other(FMT_4DW_DATA, 0x0E, n, tag, posted=False, bad=bad)
        elif kind == "msg":
            m.other(FMT_4DW_DATA, 0x10, n, tag, posted=True, bad=bad)
        else:
            m.other(FMT_3DW_NODATA, 0x02, 0, tag, posted=False, bad=bad)
    await m.check("random mix")
    dut._log.info("discarded %d, unsupported %d, %d completions", m.discarded, m.unsupported, len(m.cpls))


@cocotb.test()
async def test_discontinued_no_stalls(dut):
    await discontinued_traffic(dut, beryl_seed.seed(5, "test_discontinued_no_stalls"), 0.0)


@cocotb.test()
async def test_discontinued_stalls(dut):
    await discontinued_traffic(dut, beryl_seed.seed(6, "test_discontinued_stalls"), 0.5)


@pytest.mark.parametrize("data_w", [512, 256])
def test_beryl_pcie_axil_master(data_w):
    import beryl_sim
    beryl_sim.run("beryl_pcie_axil_master", "rtl/pcie/beryl_pcie_axil_master.f", "test_beryl_pcie_axil_master",
                  Path(__file__).parent, parameters={"TLP_DATA_W": data_w, "AXIL_ADDR_W": 16})
