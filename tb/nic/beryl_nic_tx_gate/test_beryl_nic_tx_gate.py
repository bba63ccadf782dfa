# SPDX-License-Identifier: MIT
"""beryl_nic_tx_gate against the gate rule of docs/blocks/tdma.md, computed here from its definition
(../tdma_ref.py): a frame may start when ceil((max(len, 60) + overhead) x ns_per_byte) + margin <=
slot_left_ns, in a valid slot (with hold_own: a slot of its queue's mask, or any slot if the mask has
none below slot_count); a frame that does not fit in the first cycle of a slot goes then (overrun).

The bench knows which beat sits in the gate's register stage (beats in minus beats out), so it checks
m_axis_tvalid exactly every clock: a first beat is presented iff the rule allows it this clock (or it was
presented before and not yet taken: valid stays up), other beats iff present. So a frame is neither
released early nor held longer than the rule says. Also: frames come out intact and in order with their
len/qidx sidebands on every beat; hold/offslot/overrun counters equal the model's; with enable low the
gate is a one-clock pass-through at one beat per clock. Slot inputs come from slot programs (slots of
random lengths, gaps, timer searches); lengths 1..9000 bytes at 0.08, 0.8 and odd ns/byte; all four
stall modes (source idle, sink backpressure); mask writes while frames flow.
"""
import os
import random
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tdma_ref import GAP, SEARCH, SlotProg, gate_need_ns, nspb_fx  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = int(os.environ.get("BERYL_LONG", "0"))
QI_W = int(os.environ.get("PARAM_QI_W", "6"))
SLOTS_MAX = int(os.environ.get("PARAM_SLOTS_MAX", "8"))
QMASK_EN = int(os.environ.get("PARAM_QMASK_EN", "1"))
PARK = int(os.environ.get("PARAM_PARK_BEATS", "0"))
BEAT = 64
MODES = [(0.0, 0.0), (0.4, 0.0), (0.0, 0.4), (0.4, 0.4)]


class GateBench:
    def __init__(self, dut, seed, prog):
        self.dut = dut
        self.rng = random.Random(seed)
        self.prog = prog
        self.cfg = dict(enable=1, hold_own=0, nspb=nspb_fx(0.08), ovh=24, margin=20, count=SLOTS_MAX)
        self.src = deque()               # frames to send: (bytes, qidx)
        self.cur = deque()               # beats of the frame being sent: (data, keep, last, len, qidx)
        self.sent = deque()              # frames accepted by the gate, in order
        self.stage = None                # beat in the register stage: dict
        self.masks = [(1 << SLOTS_MAX) - 1] * (1 << QI_W)
        self.cfg_q = deque()
        self.rx = []
        self.rx_cur = bytearray()
        self.rx_side = None
        self.idle = 0.0
        self.bp = 0.0
        self.now = 0
        self.counts = dict(hold=0, offslot=0, overrun=0)
        self.decisions = 0
        self.holds_seen = 0
        d = dut
        for n in ("s_axis_tdata", "s_axis_tkeep", "s_axis_tvalid", "s_axis_tlast", "s_axis_len", "s_axis_qidx",
                  "m_axis_tready", "cfg_valid", "cfg_qidx", "cfg_mask", "slot_valid", "slot_index", "slot_start",
                  "slot_left_ns"):
            getattr(d, n).value = 0
        self.drive_cfg()

    def drive_cfg(self):
        d, c = self.dut, self.cfg
        d.enable.value, d.hold_own.value, d.rate_nspb.value = c["enable"], c["hold_own"], c["nspb"]
        d.overhead_bytes.value, d.margin_ns.value = c["ovh"], c["margin"]
        d.slot_count.value = c["count"]

    async def reset(self):
        d = self.dut
        Clock(d.clk, 4, unit="ns").start()
        d.rst.value = 1
        await ClockCycles(d.clk, 3)
        d.rst.value = 0
        await ClockCycles(d.clk, (1 << QI_W) + 3 if QMASK_EN else 2)
        await ReadOnly()
        assert d.s_axis_tready.value == 1 and d.m_axis_tvalid.value == 0

    def send(self, data, q):
        self.src.append((bytes(data), q))

    def set_mask(self, q, m):
        self.cfg_q.append((q, m))

    # ------------------------------------------------------------ the rule, from the definition
    def allowed(self, beat, slot):
        c = self.cfg
        valid, idx, start, left = slot
        if not c["enable"]:
            return True, None
        need = gate_need_ns(beat["len"], c["nspb"], c["ovh"], c["margin"])
        m = beat["mask"] & ((1 << c["count"]) - 1)
        ok = valid and (not (QMASK_EN and c["hold_own"]) or (m >> idx) & 1 or m == 0)
        fits = need <= left
        overrun = start and not fits
        if not ok:
            return False, "offslot" if valid else None
        if fits:
            return True, None
        if overrun:
            return True, "overrun"
        return False, "hold"

    # ------------------------------------------------------------ one clock
    async def drive_inputs(self):
        """Falling edge: next beat (random idle), output ready (random backpressure), slot program and
        configuration; then ReadOnly. Returns (beat driven or None, m_axis_tready, slot tuple, mask write
        presented or None)."""
        d, r = self.dut, self.rng
        await FallingEdge(d.clk)
        self.now += 1
        if not self.cur and self.src and r.random() >= self.idle:
            data, q = self.src.popleft()
            n = len(data)
            for i in range(0, max(n, 1), BEAT):
                chunk = data[i:i + BEAT]
                self.cur.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, i + BEAT >= n, n, q,
                                 i == 0, data))
        drive = self.cur[0] if self.cur and r.random() >= self.idle else None
        d.s_axis_tvalid.value = int(drive is not None)
        if drive is not None:
            d.s_axis_tdata.value, d.s_axis_tkeep.value, d.s_axis_tlast.value = drive[0], drive[1], int(drive[2])
            d.s_axis_len.value, d.s_axis_qidx.value = drive[3], drive[4]
        rdy = int(r.random() >= self.bp)
        d.m_axis_tready.value = rdy
        slot = tuple(self.prog.step()[:4])
        d.slot_valid.value, d.slot_index.value, d.slot_start.value, d.slot_left_ns.value = slot
        self.drive_cfg()
        cfg = self.cfg_q[0] if self.cfg_q else None
        d.cfg_valid.value = int(cfg is not None)
        if cfg is not None:
            d.cfg_qidx.value, d.cfg_mask.value = cfg
        await ReadOnly()
        return drive, rdy, slot, cfg

    async def step(self):
        d = self.dut
        drive, rdy, (valid, idx, start, left), cfg = await self.drive_inputs()
        s_fire = drive is not None and d.s_axis_tready.value == 1
        mv = d.m_axis_tvalid.value == 1
        # expected valid of the beat in the stage
        st = self.stage
        if st is None:
            assert not mv, f"edge {self.now}: m_axis_tvalid with nothing in the stage"
        elif not st["sop"] or st["committed"]:
            assert mv, f"edge {self.now}: beat in the stage not presented"
        else:
            want, why = self.allowed(st, (valid, idx, start, left))
            self.decisions += 1
            if mv != want:
                raise AssertionError(f"edge {self.now}: first beat of a {st['len']}-byte frame (queue {st['q']}) "
                                     f"{'released' if mv else 'held'}, rule says {want} ({why}); slot {valid} "
                                     f"{idx} start {start} left {left} ns, need "
                                     f"{gate_need_ns(st['len'], self.cfg['nspb'], self.cfg['ovh'], self.cfg['margin'])}"
                                     f" ns, mask {st['mask']:#x}, cfg {self.cfg}")
            if why in ("hold", "offslot") and not mv and why not in st["counted"]:
                st["counted"].add(why)
                self.counts[why] += 1
                self.holds_seen += 1
            if mv and why == "overrun":
                self.counts["overrun"] += 1
        if mv:
            b = st
            assert int(d.m_axis_tdata.value) & ((1 << (8 * bin(b["keep"]).count("1"))) - 1) == b["data"]
            assert (int(d.m_axis_tkeep.value), int(d.m_axis_tlast.value)) == (b["keep"], int(b["last"]))
            assert (int(d.m_axis_len.value), int(d.m_axis_qidx.value)) == (b["len"], b["q"]), "sideband"
        m_fire = mv and rdy
        # the edge: output first, then input into the stage
        if m_fire:
            self.rx_cur += st["data"].to_bytes(64, "little")[:bin(st["keep"]).count("1")]
            if st["last"]:
                self.rx.append((bytes(self.rx_cur), st["q"]))
                self.rx_cur = bytearray()
            self.stage = None
        elif st is not None and mv:
            st["committed"] = True
        if s_fire:
            assert self.stage is None, "gate took a beat with its stage full"
            data, keep, last, n, q, sop, frame = self.cur.popleft()
            if sop:
                self.cur_mask = self.masks[q]          # read when the first beat is taken
                self.sent.append((frame, q))
            self.stage = dict(data=data, keep=keep, last=last, len=n, q=q, sop=sop, committed=False,
                              mask=self.cur_mask, counted=set())
        if cfg is not None and d.cfg_ready.value == 1:
            self.masks[cfg[0]] = cfg[1]
            self.cfg_q.popleft()
        return m_fire

    async def run_until_empty(self, limit=2_000_000):
        t0 = self.now
        while self.src or self.cur or self.stage is not None or self.cfg_q:
            await self.step()
            assert self.now - t0 < limit, "bench timed out (a frame held for ever?)"
        for _ in range(3):
            await self.step()

    def check(self):
        d = self.dut
        assert len(self.rx) == len(self.sent), f"{len(self.rx)} frames out, {len(self.sent)} in"
        for i, (got, want) in enumerate(zip(self.rx, self.sent)):
            assert got == want, f"frame {i} differs (len {len(got[0])} vs {len(want[0])})"
        got = dict(hold=int(d.hold_count.value), offslot=int(d.offslot_count.value),
                   overrun=int(d.overrun_count.value))
        assert int(d.park_count.value) == 0, "a frame parked without a park buffer"
        assert got == self.counts, f"counters {got}, model {self.counts}"


def rand_frame(r, big=True):
    n = r.choice([r.randint(1, 59), 60, r.randint(61, 200), r.randint(200, 1518), 1514, 64]
                 + ([r.randint(1519, 9000), 9000] if big else []))
    return r.randbytes(n)


def prog_for(r, count, min_slot, max_slot):
    pat = []
    for s in range(count):
        pat.append((s, r.randrange(min_slot, max_slot)))
        if r.random() < 0.25:
            pat.append((SEARCH, r.randrange(3, 60)))
    if r.random() < 0.7:
        pat.append((GAP, r.randrange(1, 80)))
    return pat


@cocotb.test(skip=PARK != 0)
async def test_rule_random(dut):
    """Random frames, rates, margins, slot programs (slots about one to a few frame times), hold_own on and off,
    mask writes; every release decision exact, frames intact, counters exact; all four stall modes."""
    seed = beryl_seed.seed(21, "test_rule_random")
    b = GateBench(dut, seed, SlotProg([(0, 100)], seed=seed))
    await b.reset()
    r = b.rng
    nq = 1 << QI_W
    rounds = 12 if LONG else 4
    for rnd in range(rounds):
        for idle, bp in MODES:
            b.idle, b.bp = idle, bp
            rate = r.choice([0.08, 0.8, 0.1234567, 0.02, 0.4])
            count = r.randrange(1, min(SLOTS_MAX, 4) + 1)
            b.cfg.update(nspb=nspb_fx(rate), ovh=r.choice([24, 24, 0, 255, 13]), margin=r.choice([0, 20, 130, 999]),
                         hold_own=r.randrange(2), count=count)
            # slots from about one frame time to several, in cycles of 4 ns
            ft = max(2, int((1518 + 24) * rate / 4))
            pat = prog_for(r, count, max(3, ft // 2), 6 * ft + 10)
            b.prog = SlotProg(pat, seed=r.randrange(1 << 30))
            for q in r.sample(range(nq), min(nq, 6)):
                b.set_mask(q, r.choice([1, 2, 3, 0, (1 << SLOTS_MAX) - 1, r.randrange(1 << SLOTS_MAX)]))
            for _ in range(60 if LONG else 30):
                b.send(rand_frame(r, big=rate <= 0.1), r.randrange(nq))
            await b.run_until_empty()
            b.check()
        dut._log.info("round %d: %d frames, %d first-beat decisions, counters %s", rnd, len(b.rx), b.decisions,
                      b.counts)
    assert b.counts["hold"] > 0 and b.counts["overrun"] > 0
    if QMASK_EN:
        assert b.counts["offslot"] > 0


@cocotb.test(skip=PARK != 0)
async def test_passthrough(dut):
    """enable = 0: no frame waits for anything; with a ready sink and a steady source each beat comes out one
    clock after it went in, one beat per clock; counters stay 0."""
    seed = beryl_seed.seed(3, "test_passthrough")
    b = GateBench(dut, seed, SlotProg([(GAP, 50), (SEARCH, 50)], seed=seed))   # never a slot
    b.cfg["enable"] = 0
    await b.reset()
    r = b.rng
    for _ in range(40):
        b.send(rand_frame(r), r.randrange(1 << QI_W))
    beats = sum(-(-max(len(f), 1) // BEAT) for f, _ in b.src)
    t0 = b.now
    first_out = None
    while b.src or b.cur or b.stage is not None:
        if await b.step() and first_out is None:
            first_out = b.now
    b.check()
    dut._log.info("%d beats in %d clocks, first beat out at clock %d", beats, b.now - t0, first_out - t0)
    assert first_out - t0 == 2, "more than one register stage"      # in at clock 1, out at clock 2
    assert b.now - t0 <= beats + 2, "not one beat per clock"
    for idle, bp in MODES:
        b.idle, b.bp = idle, bp
        for _ in range(20):
            b.send(rand_frame(r), r.randrange(1 << QI_W))
        await b.run_until_empty()
        b.check()
    assert b.counts == dict(hold=0, offslot=0, overrun=0)


@cocotb.test(skip=PARK != 0)
async def test_edges(dut):
    """Hand-picked cases: a frame that fits to the nanosecond goes, one nanosecond more waits for the next slot;
    a frame longer than any slot goes at a slot start (overrun); a runt is counted as 60 bytes; with hold_own a
    queue of slot 1 waits through slot 0; no slot (gap, search) holds everything; enable low releases at once."""
    seed = beryl_seed.seed(4, "test_edges")
    b = GateBench(dut, seed, SlotProg([(0, 250), (1, 250), (GAP, 20)], seed=seed))
    await b.reset()
    rate = nspb_fx(0.8)
    b.cfg.update(nspb=rate, ovh=24, margin=40, count=2)
    for n in (1, 59, 60, 61, 700, 1000, 1234, 1518):
        for q in (1, 2):
            b.send(bytes([n & 255]) * n, q)
    await b.run_until_empty()
    b.check()
    assert b.counts["hold"] > 0 and b.counts["overrun"] > 0    # 1234+: more than a 1000 ns slot at 0.8 ns/B
    need = gate_need_ns(59, rate, 24, 40)
    assert need == gate_need_ns(60, rate, 24, 40) == -(-(84 * rate) // (1 << 24)) + 40
    if QMASK_EN:
        b.cfg["hold_own"] = 1
        b.set_mask(5, 0b10)
        b.set_mask(6, 0)                 # no slot: goes in any
        for _ in range(100):             # more than a period of beats: some meet slot 0
            b.send(bytes(300), 5)
            b.send(bytes(100), 6)
        await b.run_until_empty()
        b.check()
        assert b.counts["offslot"] > 0
    # the timer searching / in a gap for a long time: frames wait, then enable low lets them go
    b.prog = SlotProg([(SEARCH, 10**6)], seed=5)
    b.send(bytes(100), 3)
    for _ in range(200):
        await b.step()
    assert b.stage is not None and b.stage["sop"] and not b.rx_cur, "frame went without a slot"
    b.cfg["enable"] = 0
    await b.run_until_empty()
    b.check()


class FixedSlot:
    """Slot 0 with a fixed slot_left_ns, to put a frame exactly on the boundary."""
    def __init__(self, left):
        self.left = left

    def step(self):
        return 1, 0, 0, self.left, 0, 0


@cocotb.test(skip=PARK != 0)
async def test_boundaries(dut):
    """slot_left_ns = need and need - 1 ns for runts (padded to 60 bytes), 60, 61, 1000, 1518 and 9000 bytes at
    a rate whose products are not whole ns (rounded up), margins 0 and 77 ns, overheads 24 and 0: the frame goes
    exactly when it fits."""
    b = GateBench(dut, beryl_seed.seed(6, "test_boundaries"), FixedSlot(0))
    await b.reset()
    for rate, ovh, margin in [(0.1234567, 24, 0), (0.8, 0, 77), (0.08, 24, 5)]:
        nspb = nspb_fx(rate)
        b.cfg.update(nspb=nspb, ovh=ovh, margin=margin)
        for n in (1, 30, 59, 60, 61, 1000, 1518, 9000):
            need = gate_need_ns(n, nspb, ovh, margin)
            for delta in (-1, 0):
                b.prog = FixedSlot(need + delta)
                b.send(bytes([n & 255]) * n, 1)
                for _ in range(6):
                    await b.step()
                if delta < 0:
                    assert b.stage is not None and b.stage["sop"], f"{n} bytes: went with {need + delta} ns left"
                    b.prog = FixedSlot(need)
                await b.run_until_empty()
    b.check()
    assert b.counts["hold"] == 3 * 8


# ================================================================ with a park buffer (PARK_BEATS > 0)
class ParkBench(GateBench):
    """Property checks for a gate with a park buffer, where the bench does not know which frame waits where:
    every frame presented obeys the rule in the clock it is presented; per-queue order, contents and sidebands
    kept; the oldest frame completely inside the gate never waits 3 clocks while the rule allows it and the
    output is idle; every frame leaves (run_until_empty's time limit)."""

    def __init__(self, dut, seed, prog):
        super().__init__(dut, seed, prog)
        self.inside = []                 # frames in the gate, in arrival order: dict
        self.out_cur = None              # frame being output
        self.idle_allowed = 0
        self.presented = 0
        self.parked_went = 0

    async def step(self):
        d = self.dut
        drive, rdy, slot, cfg = await self.drive_inputs()
        s_fire = drive is not None and d.s_axis_tready.value == 1
        mv = d.m_axis_tvalid.value == 1
        if mv:
            q, n = int(d.m_axis_qidx.value), int(d.m_axis_len.value)
            if self.out_cur is None:
                # a new frame: the oldest of its queue still inside, and the rule allows it now
                mine = [f for f in self.inside if f["q"] == q]
                assert mine, f"edge {self.now}: frame of queue {q} presented, none inside"
                f = mine[0]
                if not f["shown"]:
                    want, why = self.allowed(f, slot)
                    assert want, (f"edge {self.now}: {f['len']}-byte frame of queue {q} presented against the rule "
                                  f"({why}); slot {slot}, need "
                                  f"{gate_need_ns(f['len'], self.cfg['nspb'], self.cfg['ovh'], self.cfg['margin'])}")
                    f["shown"] = True
                    self.presented += 1
                    if f is not self.inside[-1] or f["complete"]:
                        self.parked_went += int(any(g["seq"] < f["seq"] for g in self.inside if g["q"] != q))
                self.out_cur, self.out_off = f, 0
            f = self.out_cur
            assert n == f["len"] and q == f["q"], f"edge {self.now}: sidebands {n}/{q}, frame {f['len']}/{f['q']}"
            chunk = f["data"][self.out_off:self.out_off + BEAT]
            assert int(d.m_axis_tkeep.value) == (1 << len(chunk)) - 1, f"edge {self.now}: tkeep"
            assert int(d.m_axis_tdata.value) & ((1 << (8 * len(chunk))) - 1) == int.from_bytes(chunk, "little")
            assert int(d.m_axis_tlast.value) == int(self.out_off + BEAT >= len(f["data"]))
        else:
            assert self.out_cur is None or self.out_off > 0 or not self.out_cur["shown"], \
                f"edge {self.now}: a presented first beat was withdrawn"
            old = self.inside[0] if self.inside else None
            if old is not None and old["complete"] and self.out_cur is None and self.allowed(old, slot)[0]:
                self.idle_allowed += 1
                assert self.idle_allowed < 3, (f"edge {self.now}: oldest frame ({old['len']} bytes, queue "
                                               f"{old['q']}) allowed for 3 clocks, output idle")
            else:
                self.idle_allowed = 0
        if mv and rdy:
            self.idle_allowed = 0
            f = self.out_cur
            self.out_off += BEAT
            if self.out_off >= len(f["data"]):
                self.inside.remove(f)
                self.rx.append((f["data"], f["q"]))
                self.out_cur = None
        if s_fire:
            data, keep, last, n, q, sop, frame = self.cur.popleft()
            if sop:
                self.seq = getattr(self, "seq", 0) + 1
                self.inside.append(dict(data=frame, len=n, q=q, mask=self.masks[q], complete=False, shown=False,
                                        seq=self.seq))
                self.sent.append((frame, q))
            if last:
                self.inside[-1]["complete"] = True
        if cfg is not None and d.cfg_ready.value == 1:
            self.masks[cfg[0]] = cfg[1]
            self.cfg_q.popleft()
        return mv and rdy

    async def run_until_empty(self, limit=2_000_000):
        t0 = self.now
        while self.src or self.cur or self.inside or self.cfg_q:
            await self.step()
            assert self.now - t0 < limit, "bench timed out (a frame held for ever?)"
        for _ in range(3):
            await self.step()

    def check(self):
        # per queue, the frames come out in the order they went in
        for q in {q for _, q in self.sent}:
            a = [f for f, qq in self.sent if qq == q]
            b = [f for f, qq in self.rx if qq == q]
            assert a[:len(b)] == b and len(a) == len(b), f"queue {q}: frames lost, changed or reordered"
        assert sorted(self.rx) == sorted(self.sent)


@cocotb.test(skip=PARK == 0)
async def test_park_random(dut):
    """Random frames, rates, margins, slot programs, hold_own on and off, mask writes, all four stall modes:
    the rule at every presentation, per-queue order and contents, no idle clock while the oldest complete frame
    may go; frames overtake parked ones of other queues."""
    seed = beryl_seed.seed(31, "test_park_random")
    b = ParkBench(dut, seed, SlotProg([(0, 100)], seed=seed))
    await b.reset()
    r = b.rng
    nq = 1 << QI_W
    for rnd in range(12 if LONG else 4):
        for idle, bp in MODES:
            b.idle, b.bp = idle, bp
            rate = r.choice([0.08, 0.8, 0.1234567, 0.02, 0.4])
            count = r.randrange(1, min(SLOTS_MAX, 4) + 1)
            b.cfg.update(nspb=nspb_fx(rate), ovh=r.choice([24, 0, 255]), margin=r.choice([0, 20, 130, 999]),
                         hold_own=r.choice([0, 1, 1]), count=count)
            ft = max(2, int((1518 + 24) * rate / 4))
            b.prog = SlotProg(prog_for(r, count, max(3, ft // 2), 6 * ft + 10), seed=r.randrange(1 << 30))
            for q in r.sample(range(nq), min(nq, 8)):
                b.set_mask(q, r.choice([1, 2, 3, 0, (1 << SLOTS_MAX) - 1, r.randrange(1 << SLOTS_MAX)]))
            for _ in range(60 if LONG else 30):
                b.send(rand_frame(r, big=rate <= 0.1), r.randrange(8))
            await b.run_until_empty()
            b.check()
        dut._log.info("round %d: %d frames, %d presented, %d went past older frames; parked %d, hold %d, "
                      "offslot %d, overrun %d", rnd, len(b.rx), b.presented, b.parked_went,
                      int(dut.park_count.value), int(dut.hold_count.value), int(dut.offslot_count.value),
                      int(dut.overrun_count.value))
    # coverage: frames were parked, and (with room for a few frames) overtaken by frames of other queues
    assert int(dut.park_count.value) > 0
    assert b.parked_went > 0 or PARK < 64


@cocotb.test(skip=PARK == 0 or QMASK_EN == 0)
async def test_park_slot_edge(dut):
    """The case the park buffer is for: queue set A (slot 0) and B (slot 1). An A frame that does not fit in
    what is left of slot 0 reaches the gate, and after slot 1 opens B frames follow it (as from the TDMA
    scheduler, which issues B's commands in slot 1). The B frames go in slot 1 (the A frame waits parked instead
    of blocking them) and the A frame goes at the start of the next slot 0."""
    seed = beryl_seed.seed(8, "test_park_slot_edge")
    b = ParkBench(dut, seed, SlotProg([(0, 250), (1, 250)], seed=seed))
    await b.reset()
    b.cfg.update(nspb=nspb_fx(0.8), ovh=24, margin=40, hold_own=1, count=2)
    b.set_mask(1, 0b01)
    b.set_mask(2, 0b10)

    def where():
        return b.prog.pattern[b.prog.pos][0], b.prog.left

    while where() != (0, 60):                      # late in slot 0: 240 ns left
        await b.step()
    b.send(bytes(range(256)) * 4, 1)               # 1024 B at 0.8 ns/B: needs 880 ns
    while where()[0] != 1:
        await b.step()
    t_open1 = b.now
    for i in range(6):
        b.send(bytes([i]) * 200, 2)
    out = []
    while b.src or b.cur or b.inside:
        before = len(b.rx)
        await b.step()
        if len(b.rx) > before:
            out.append((b.now, b.rx[-1][1]))
    b.check()
    b_times = [t for t, q in out if q == 2]
    a_time = [t for t, q in out if q == 1][0]
    dut._log.info("slot 1 opens at clock %d: B frames out at %s, A frame at %d", t_open1, b_times, a_time)
    assert all(t_open1 <= t < t_open1 + 250 for t in b_times), "B frames did not go in slot 1"
    assert t_open1 + 250 <= a_time < t_open1 + 500, "A frame did not go in the next slot 0"
    assert int(dut.park_count.value) == 1


@pytest.mark.parametrize("qmask,park", [(1, 0), (0, 0), (1, 64), (1, 256), (0, 16)])
def test_beryl_nic_tx_gate(qmask, park):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_tx_gate", "rtl/nic/beryl_nic_tx_gate.f", "test_beryl_nic_tx_gate",
                  Path(__file__).parent, parameters={"QI_W": 6, "SLOTS_MAX": 8, "QMASK_EN": qmask,
                                                     "PARK_BEATS": park, "PARK_FRAMES": 8})
