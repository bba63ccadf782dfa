# SPDX-License-Identifier: MIT
"""Unit test of beryl_nic_tx_ts_wait: one port's TX completions waiting, in frame order, for the start-of-frame
times returned for their tags (docs/blocks/ptp.md, "TX timestamp return").

Reference model (from the module header and the outcome table in ptp.md, not from the RTL): a list of the live
frames (first beat left, completion not popped), oldest first, each with its tag, whether it needs a time, the
time returned for it and whether its last beat has left. Per clock:
- a frame's tag is the count of allocations since reset modulo 2^TAG_W (alloc_tag); alloc_space is high
  exactly while fewer than DEPTH frames are live; empty exactly while none is;
- a return names a frame if its tag is that of a live frame not resolved yet that needs a time and has none;
  the frame takes the returned time. Any other return (a frame resolved or released, a frame that needs no
  time, a frame that already has its time, a tag not given out, the frame whose first beat leaves in the same
  cycle) is dropped and counted in spurious_count; with RET_EN 0 every return is ignored and never counted,
  and every frame carries alloc_ts;
- frames are resolved in frame order, at most one per clock. The oldest unresolved frame is resolved with its
  own time (also one returned in this cycle); else (IN_ORDER 1) with 0 and a mismatch if a later frame got
  its time in an earlier cycle; else with 0 and a timeout once it has waited `timeout` cycles as the oldest
  unresolved frame (the return may still come in the cycle its wait reaches `timeout`: a frame that becomes
  the oldest waiting one in cycle c takes a return up to cycle c + timeout and completes in c + timeout + 1
  at the earliest); timeout 0 waits forever. A frame that needs no time resolves with alloc_ts when reached;
- head_valid is high exactly when the oldest live frame is resolved and its last beat has left (close_valid,
  or a single-beat frame); head_ent/head_ts are its alloc_ent and time; head_pop releases it.
Outputs and counters are compared with the model every clock, the stimulus does not depend on the DUT.

On top of the model, checks that do not use it: directed scenarios with the outcomes written out by hand
(mismatch for lost returns, duplicate, late and wrong-tag returns, a wrong tag that names a later frame, a
return in the frame's own first-beat cycle, dropped packets between waiting frames, the exact timeout
boundary in both directions, mismatch against timeout in the same cycle, timeout 0, open frames, full,
reset); and after random traffic: every frame released once, in order; a frame that needed a time carries
one the port returned for its tag while it was live, or 0; frames given 0 = mismatch + timeout counts;
spurious count = returns - frames that took one.

Random traffic: frames of 1..4 beats in bursts (gaps long enough for timeouts), dropped packets (no time
needed), the port returning in frame order (IN_ORDER 1) or in any order (IN_ORDER 0) after random delays,
with lost, late, duplicated and wrong-tag returns, returns of tags never given and returns in a frame's own
first-beat cycle; the CQ side pops with random backpressure (and, with backpressure, stretches with none
popped); modes no stalls / engine idle / backpressure / both, and one with timeout 0. head_pop is only
driven with a completion there (the header gives no outcome for a pop without one).
"""
import heapq
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
ENT_W = int(os.environ.get("PARAM_ENT_W", "64"))
TAG_W = int(os.environ.get("PARAM_TAG_W", "8"))
DEPTH = int(os.environ.get("PARAM_DEPTH", "16"))
RET_EN = int(os.environ.get("PARAM_RET_EN", "1"))
IN_ORDER = int(os.environ.get("PARAM_IN_ORDER", "1"))
TAGS = 1 << TAG_W
# the directed scenarios keep up to 8 frames live and need returns to count
DIRECTED = DEPTH >= 8 and RET_EN


class Frame:
    def __init__(self, n, ent, need_in, ts0, beats):
        self.n, self.ent, self.need_in, self.ts0, self.beats = n, ent, need_in, ts0, beats
        self.need = bool(need_in and RET_EN)
        self.tag = None
        self.closed = beats == 1
        self.time = None          # the time a return gave it
        self.resolved = None      # "time", "none" (needs none), "mm", "to"
        self.ts = None            # the time it completes with
        self.t_alloc = None
        self.t_pop = None
        self.sent = []            # (cycle, ts) returns the port sent with its tag while it was live


class TB:
    def __init__(self, dut, seed, timeout=0, bp=0.0):
        self.dut = dut
        self.rng = random.Random(seed)
        self.timeout = timeout
        self.bp = bp
        self.cycle = 0
        self.frames = []          # every frame allocated since the last reset
        self.done = []            # frames popped, in pop order
        self.live = []
        self.n_res = 0            # live[:n_res] are resolved
        self.age = 0              # cycles the oldest unresolved frame has waited as the oldest
        self.count = 0            # allocations since reset
        self.mm = self.to = self.sp = 0
        self.returns = 0          # returns driven while RET_EN (since reset)
        self.hits = 0
        self.stat = dict(full=0, open_held=0, mm_over_to=0, pop_bp=0)
        self.errors = []

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def new_frame(self, need=True, beats=1, ts0=None):
        f = Frame(len(self.frames), self.rng.getrandbits(ENT_W), need,
                  self.rng.getrandbits(64) if ts0 is None else ts0, beats)
        return f

    def head_valid(self):
        return self.n_res > 0 and self.live[0].closed

    async def reset(self, cycles=2):
        for _ in range(cycles):
            await self.step(rst=1)

    async def step(self, alloc=None, close=False, ret=None, pop="auto", rst=0):
        """One clock. alloc: a Frame whose first beat leaves; close: the open frame's last beat leaves; ret:
        (tag, ts) returned; pop: True/False, or "auto" (pop a completion, with random backpressure)."""
        dut, rng = self.dut, self.rng
        await FallingEdge(dut.clk)
        self.cycle += 1
        if rst:
            pop = False
        elif pop == "auto":
            pop = self.head_valid() and rng.random() >= self.bp
            if self.head_valid() and not pop:
                self.stat["pop_bp"] += 1
        dut.rst.value = rst
        dut.timeout.value = self.timeout
        dut.alloc_valid.value = int(alloc is not None)
        dut.alloc_ent.value = alloc.ent if alloc is not None else rng.getrandbits(ENT_W)
        dut.alloc_need.value = int(alloc.need_in) if alloc is not None else rng.getrandbits(1)
        dut.alloc_ts.value = alloc.ts0 if alloc is not None else rng.getrandbits(64)
        dut.alloc_open.value = int(alloc.beats > 1) if alloc is not None else rng.getrandbits(1)
        dut.close_valid.value = int(close)
        dut.ret_valid.value = int(ret is not None)
        dut.ret_tag.value = ret[0] if ret is not None else rng.randrange(TAGS)
        dut.ret_ts.value = ret[1] if ret is not None else rng.getrandbits(64)
        dut.head_pop.value = int(bool(pop))
        await ReadOnly()
        if rst:
            # outputs during reset are not specified (the first cycle shows the state before it)
            self.live, self.n_res, self.age, self.count = [], 0, 0, 0
            self.mm = self.to = self.sp = self.returns = self.hits = 0
            self.frames, self.done = [], []
            return
        self.check()
        self.edge(alloc, close, ret, bool(pop))

    def check(self):
        d = self.dut
        live = self.live
        exp = dict(alloc_space=int(len(live) < DEPTH), alloc_tag=self.count % TAGS, empty=int(not live),
                   head_valid=int(self.head_valid()), mismatch_count=self.mm, timeout_count=self.to,
                   spurious_count=self.sp)
        if self.head_valid():
            exp["head_ent"] = live[0].ent
            exp["head_ts"] = live[0].ts
        for k, v in exp.items():
            got = int(getattr(d, k).value)
            if got != v:
                head = live[0] if live else None
                self.err(f"{k} {got:#x}, expected {v:#x} ({len(live)} live, {self.n_res} resolved, oldest: "
                         + (f"frame {head.n} tag {head.tag:#x} {head.resolved} closed {head.closed})"
                            if head else "none)"))
        if len(live) == DEPTH:
            self.stat["full"] += 1
        if self.n_res and not live[0].closed:
            self.stat["open_held"] += 1

    def resolve(self, f, how, ts):
        f.resolved, f.ts = how, ts
        self.n_res += 1
        self.age = 0

    def edge(self, alloc, close, ret, pop):
        live = self.live
        # state before this clock: a later frame (after the oldest unresolved one) already has its time
        later_got = any(f.time is not None for f in live[self.n_res + 1:])
        # the return
        if ret is not None and RET_EN:
            tag, ts = ret
            self.returns += 1
            for f in live:
                if f.tag == tag and f.resolved is None:
                    f.sent.append((self.cycle, ts))
            hit = [f for f in live[self.n_res:] if f.tag == tag and f.need and f.time is None]
            if hit:
                hit[0].time = ts
                self.hits += 1
            else:
                self.sp += 1
        # the oldest unresolved frame
        if self.n_res < len(live):
            f = live[self.n_res]
            if not f.need:
                self.resolve(f, "none", f.ts0)
            elif f.time is not None:
                self.resolve(f, "time", f.time)
            elif IN_ORDER and later_got:
                if self.timeout and self.age >= self.timeout:
                    self.stat["mm_over_to"] += 1
                self.mm += 1
                self.resolve(f, "mm", 0)
            elif self.timeout and self.age >= self.timeout:
                self.to += 1
                self.resolve(f, "to", 0)
            else:
                self.age += 1
        else:
            self.age = 0
        # release
        if pop:
            assert self.head_valid(), "bench: pop without a completion"
            f = live.pop(0)
            self.n_res -= 1
            f.t_pop = self.cycle
            self.done.append(f)
        # the engine
        if alloc is not None:
            alloc.tag = self.count % TAGS
            alloc.t_alloc = self.cycle
            self.count += 1
            self.frames.append(alloc)
            live.append(alloc)
        elif close:
            assert live and not live[-1].closed, "bench: close without an open frame"
            live[-1].closed = True

    # ---- helpers for directed scenarios
    async def alloc(self, need=True, beats=1, ts0=None, ret=None):
        f = self.new_frame(need, beats, ts0)
        await self.step(alloc=f, ret=ret)
        return f

    async def ret(self, what, ts):
        await self.step(ret=(what.tag if isinstance(what, Frame) else what, ts))

    async def idle(self, n=1):
        for _ in range(n):
            await self.step()

    async def drain(self, limit=20000):
        for _ in range(limit):
            if not self.live:
                break
            await self.step()
        else:
            raise AssertionError(f"{len(self.live)} frames never completed")
        await self.idle(3)
        self.assert_ok()

    def assert_ok(self):
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])

    def outcome(self, frames):
        return [(f.n, f.resolved, f.ts) for f in frames]

    def conservation(self):
        """Checks on the frames released, independent of the cycle model."""
        assert [f.n for f in self.done] == list(range(len(self.done))), "completions out of frame order"
        zero = 0
        for f in self.done:
            if not f.need:
                assert f.ts == f.ts0, f"frame {f.n} (no time needed): ts {f.ts:#x}, alloc_ts {f.ts0:#x}"
            elif f.ts == 0:
                zero += 1
            else:
                assert f.ts in [t for _, t in f.sent], \
                    f"frame {f.n}: ts {f.ts:#x} not returned for its tag {f.tag:#x} while it waited"
        assert zero == self.mm + self.to, f"{zero} frames with 0, mismatch {self.mm} + timeout {self.to}"
        if RET_EN:
            assert self.sp == self.returns - self.hits


class Port:
    """Returns times for the frames that need one: IN_ORDER 1 in frame order, else in any order, after random
    delays, at most one per clock. Per frame: lost (never), late (long after), duplicated, or a wrong tag; and
    now and then a tag out of nowhere."""

    def __init__(self, rng, delay, lost=0.0, late=0.0, dup=0.0, wrong=0.0, noise=0.0, late_after=100, early=0.0):
        self.rng, self.delay = rng, delay
        self.lost, self.late, self.dup, self.wrong, self.noise = lost, late, dup, wrong, noise
        self.early = early        # chance of a return with the tag of a frame in its first-beat cycle
        self.late_after = late_after
        self.q = []               # heap of (due, seq, tag, ts)
        self.seq = 0
        self.last_due = 0
        self.n = dict(lost=0, late=0, dup=0, wrong=0, noise=0, early=0)

    def _add(self, due, tag):
        heapq.heappush(self.q, (due, self.seq, tag, self.rng.getrandbits(63) << 1 | 1))   # never 0
        self.seq += 1

    def plan(self, f, now):
        if not f.need_in:
            return
        r = self.rng.random()
        if r < self.lost:
            self.n["lost"] += 1
            return
        r -= self.lost
        if r < self.late:
            self.n["late"] += 1
            self._add(now + self.late_after + self.rng.randint(0, self.late_after), f.tag)
            return
        r -= self.late
        tag = f.tag
        if r < self.wrong:
            self.n["wrong"] += 1
            tag = self.rng.randrange(TAGS)
        due = now + 1 + self.rng.randint(0, self.delay)
        if IN_ORDER:
            due = max(due, self.last_due + 1)
            self.last_due = due
        self._add(due, tag)
        if self.rng.random() < self.dup:
            self.n["dup"] += 1
            self._add(due + self.rng.randint(1, 8), tag)

    def pick(self, now):
        if self.q and self.q[0][0] <= now:
            return heapq.heappop(self.q)[2:]
        if self.noise and self.rng.random() < self.noise:
            self.n["noise"] += 1
            return self.rng.randrange(TAGS), self.rng.getrandbits(64)
        return None

    def busy(self):
        return bool(self.q)


async def random_traffic(tb, port, n_frames, idle=0.0, drop=0.05, burst=(4, 40), gap=(0, 0), stall=0):
    """The engine: frames of 1..4 beats in bursts, a first beat only when the model has space. stall: every
    `stall` cycles the CQ side stops popping for 3 x DEPTH + 40 cycles, the engine sending without pauses
    (the FIFO fills)."""
    rng = tb.rng
    bp = tb.bp
    left = n_frames
    open_beats = 0            # beats still to go of the open frame
    in_burst = rng.randint(*burst)
    pause = 0
    while left or open_beats or tb.live or port.busy():
        alloc, close = None, False
        if open_beats:
            if rng.random() >= idle:
                open_beats -= 1
                close = open_beats == 0
        elif pause:
            pause -= 1
        elif left and len(tb.live) < DEPTH and rng.random() >= idle:
            alloc = tb.new_frame(rng.random() >= drop, rng.choice([1, 1, 2, 4]))
            left -= 1
            open_beats = alloc.beats - 1
            in_burst -= 1
            if not in_burst:
                in_burst = rng.randint(*burst)
                pause = rng.randint(*gap)
        ret = port.pick(tb.cycle + 1)
        if alloc is not None and ret is None and rng.random() < port.early:
            port.n["early"] += 1
            ret = (tb.count % TAGS, rng.getrandbits(64) | 1)
        if stall:
            stalled = tb.cycle % stall < 3 * DEPTH + 40
            tb.bp = 1.0 if stalled else bp
            pause = 0 if stalled else pause
        await tb.step(alloc=alloc, close=close, ret=ret)
        if alloc is not None:
            port.plan(alloc, tb.cycle)
        assert tb.cycle < 2_000_000, "bench timed out"
    tb.bp = bp
    await tb.idle(3)
    tb.assert_ok()


def start_clock(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())


MODES = {"plain": (0.0, 0.0), "idle": (0.5, 0.0), "bp": (0.0, 0.6), "both": (0.4, 0.5)}


@cocotb.test()
async def test_random(dut):
    """Random traffic with every kind of bad return, in four modes, with a timeout; then timeout 0."""
    start_clock(dut)
    n = 2500 if LONG else 700
    tot = dict(mm=0, to=0, sp=0, full=0, open_held=0, wrong=0, late=0)
    for i, (mode, (idle, bp)) in enumerate(MODES.items()):
        tmo = 60 + 2 * DEPTH
        tb = TB(dut, seed=beryl_seed.seed(50 + i + 7 * DEPTH, f"test_random {mode}"), timeout=tmo, bp=bp)
        await tb.reset()
        port = Port(tb.rng, delay=min(DEPTH, 24), lost=0.06, late=0.03, dup=0.03, wrong=0.03, noise=0.01,
                    late_after=tmo, early=0.02)
        await random_traffic(tb, port, n, idle=idle, gap=(0, 3 * tmo), stall=(6 * DEPTH + 800) if bp else 0)
        tb.conservation()
        assert len(tb.done) == n
        for k in ("mm", "to", "sp"):
            tot[k] += getattr(tb, k)
        for k in ("full", "open_held"):
            tot[k] += tb.stat[k]
        tot["wrong"] += port.n["wrong"]
        tot["late"] += port.n["late"]
        dut._log.info("%s: %d frames in %d cycles: mismatch %d, timeout %d, spurious %d; port %s; %s", mode,
                      n, tb.cycle, tb.mm, tb.to, tb.sp, port.n, tb.stat)
    # timeout 0: nothing lost (a lost return would wait forever), long delays, duplicates and noise
    tb = TB(dut, seed=beryl_seed.seed(59, "test_random timeout 0"), timeout=0, bp=0.3)
    await tb.reset()
    port = Port(tb.rng, delay=4 * DEPTH, dup=0.05, noise=0.02)
    await random_traffic(tb, port, n // 2, idle=0.3)
    tb.conservation()
    assert tb.to == 0
    dut._log.info("timeout 0: %d frames in %d cycles, mismatch %d, spurious %d", n // 2, tb.cycle, tb.mm, tb.sp)
    assert tot["full"] > 0 and tot["open_held"] > 0, tot
    if RET_EN:
        assert tot["to"] >= 4 and tot["sp"] >= 20, tot
        assert (tot["mm"] >= 10) == bool(IN_ORDER), tot


@cocotb.test(skip=not DIRECTED or not IN_ORDER)
async def test_mismatch_and_spurious(dut):
    """In order: lost returns give the older frames 0 (mismatch, one per frame); duplicated, late, unknown
    and wrong-tag returns are spurious; a wrong tag that names a later frame gives it that time."""
    start_clock(dut)
    tb = TB(dut, seed=beryl_seed.seed(60, "test_mismatch_and_spurious"), timeout=0)
    await tb.reset()
    f = [await tb.alloc() for _ in range(6)]
    await tb.idle(2)
    await tb.ret(f[1], 0x1111)           # frame 0's return lost
    await tb.idle(4)
    await tb.ret(f[4], 0x4444)           # frames 2 and 3 lost
    await tb.idle(6)
    await tb.ret(f[5], 0x5555)
    await tb.ret(f[5], 0x5556)           # duplicate
    await tb.ret(f[0], 0x1000)           # frame 0's, late: frame 0 has completed
    await tb.ret(f[2], 0x2000)           # frame 2's, late: resolved as a mismatch, completed
    await tb.ret((f[5].tag + 3) % TAGS, 0x7777)   # a tag not given out yet
    await tb.idle(4)
    assert tb.outcome(tb.done) == [(0, "mm", 0), (1, "time", 0x1111), (2, "mm", 0), (3, "mm", 0),
                                   (4, "time", 0x4444), (5, "time", 0x5555)]
    assert (tb.mm, tb.to, tb.sp) == (3, 0, 4)
    # a wrong tag naming a later waiting frame: it takes the time, the older ones become mismatches, and
    # their own returns (and the later frame's real one) are spurious
    g = [await tb.alloc() for _ in range(3)]
    await tb.idle(2)
    await tb.ret(g[2], 0x2222)
    await tb.idle(6)
    for x in g:
        await tb.ret(x, 0x3000 + x.n)
    await tb.idle(3)
    assert tb.outcome(g) == [(6, "mm", 0), (7, "mm", 0), (8, "time", 0x2222)]
    assert (tb.mm, tb.to, tb.sp) == (5, 0, 7)
    # a return for the frame in the cycle its first beat leaves: the frame is not waiting yet (spurious);
    # it waits for the next one
    h = await tb.alloc(ret=(tb.count % TAGS, 0x9990))
    await tb.idle(3)
    assert h.resolved is None
    await tb.ret(h, 0x9991)
    await tb.idle(3)
    assert tb.outcome([h]) == [(9, "time", 0x9991)] and tb.sp == 8
    # dropped packets (no time needed) between waiting frames: they carry alloc_ts, do not count as a later
    # frame's time, and a return with their tag is spurious
    k = [await tb.alloc(need=True), await tb.alloc(need=False, ts0=0xABC), await tb.alloc(need=True)]
    await tb.idle(3)
    await tb.ret(k[1], 0x5151)           # names the dropped packet: spurious, frame 10 keeps waiting
    await tb.idle(3)
    assert k[0].resolved is None and not tb.head_valid()
    await tb.ret(k[2], 0x1212)
    await tb.idle(4)
    assert tb.outcome(k) == [(10, "mm", 0), (11, "none", 0xABC), (12, "time", 0x1212)]
    assert (tb.mm, tb.to, tb.sp) == (6, 0, 9)
    # the same-cycle return again, the frame in the entry frame 0 had (given 0 by a mismatch, so that entry
    # still shows a frame waiting without a time until the new one is written)
    await tb.drain()
    while tb.count % DEPTH:
        await tb.alloc(need=False)
    h = await tb.alloc(ret=(tb.count % TAGS, 0x9992))
    await tb.idle(3)
    assert h.resolved is None
    await tb.ret(h, 0x9993)
    await tb.idle(3)
    assert tb.outcome([h]) == [(h.n, "time", 0x9993)] and (tb.mm, tb.to, tb.sp) == (6, 0, 10)
    await tb.drain()


@cocotb.test(skip=not DIRECTED)
async def test_timeout(dut):
    """The timeout boundary: a return in the cycle the oldest frame's wait reaches `timeout` wins, one a cycle
    later is spurious (the frame completes with 0); the next frame's wait starts when it becomes the oldest;
    a mismatch wins over a timeout in the same cycle; timeout 0 waits forever."""
    start_clock(dut)
    T = 20
    tb = TB(dut, seed=beryl_seed.seed(61, "test_timeout T"), timeout=T)
    await tb.reset()
    # alone: allocated in cycle a, the oldest waiting from a + 1; the return in a + 1 + T is in time
    f0 = await tb.alloc()
    a = tb.cycle
    await tb.idle(T)
    await tb.ret(f0, 0xF0)
    assert tb.cycle == a + 1 + T
    await tb.idle(3)
    assert tb.outcome([f0]) == [(0, "time", 0xF0)] and f0.t_pop == a + 2 + T
    # alone, no return: 0 from cycle a + 2 + T; a return in that cycle is spurious
    f1 = await tb.alloc()
    a = tb.cycle
    await tb.idle(T + 1)
    await tb.ret(f1, 0xF1)
    assert tb.cycle == a + 2 + T
    await tb.idle(2)
    assert tb.outcome([f1]) == [(1, "to", 0)] and f1.t_pop == a + 2 + T
    assert (tb.mm, tb.to, tb.sp) == (0, 1, 1)
    # two frames, no returns: the second waits as the oldest only once the first has timed out
    g = [await tb.alloc(), await tb.alloc()]
    b = g[0].t_alloc
    await tb.idle(2 * T + 6)
    assert tb.outcome(g) == [(2, "to", 0), (3, "to", 0)]
    assert g[0].t_pop == b + 2 + T and g[1].t_pop == b + 3 + 2 * T, (g[0].t_pop, g[1].t_pop, b)
    # the second frame's return comes after the first timed out: it takes its time
    g = [await tb.alloc(), await tb.alloc()]
    b = g[0].t_alloc
    await tb.idle(T + 4)
    await tb.ret(g[1], 0xB1)
    await tb.idle(3)
    assert tb.outcome(g) == [(4, "to", 0), (5, "time", 0xB1)]
    assert (tb.mm, tb.to, tb.sp) == (0, 4, 1)
    # a later frame's time one cycle before the oldest's wait reaches T: mismatch (IN_ORDER) wins over the
    # timeout; one cycle later the timeout comes first
    for lag, want in ((0, "mm" if IN_ORDER else "to"), (1, "to")):
        g = [await tb.alloc(), await tb.alloc()]
        b = g[0].t_alloc
        await tb.idle(b + T - tb.cycle - 1 + lag)
        await tb.ret(g[1], 0xC0 + lag)
        assert tb.cycle == b + T + lag
        await tb.idle(4)
        assert tb.outcome(g) == [(g[0].n, want, 0), (g[1].n, "time", 0xC0 + lag)], (lag, tb.outcome(g))
    assert tb.stat["mm_over_to"] == (1 if IN_ORDER else 0)
    assert (tb.mm, tb.to) == ((1, 5) if IN_ORDER else (0, 6))
    tb.assert_ok()
    # timeout 0: waits forever
    tb = TB(dut, seed=beryl_seed.seed(62, "test_timeout 0"), timeout=0)
    await tb.reset()
    f = await tb.alloc()
    await tb.idle(3000)
    assert f.resolved is None and not int(dut.head_valid.value)
    await tb.ret(f, 0xFE)
    await tb.idle(3)
    assert tb.outcome([f]) == [(0, "time", 0xFE)] and tb.to == 0
    tb.assert_ok()


@cocotb.test()
async def test_open_full_reset(dut):
    """A resolved frame waits for its last beat (and the frames behind it for it); DEPTH frames fill the FIFO
    (alloc_space low until one is popped); reset in the middle of traffic clears frames, tags and counters."""
    start_clock(dut)
    tb = TB(dut, seed=beryl_seed.seed(63, "test_open_full_reset"), timeout=40)
    await tb.reset()
    f = await tb.alloc(need=True, beats=3)
    await tb.ret(f, 0xA0)
    await tb.idle(5)
    assert f.resolved and not f.t_pop and not int(dut.head_valid.value)
    await tb.step(close=True)
    c = tb.cycle
    await tb.idle(2)
    assert f.t_pop == c + 1
    # full: the sink stalls
    fs = []
    for i in range(DEPTH):
        fs.append(tb.new_frame(need=False))
        await tb.step(alloc=fs[-1], pop=False)
    await tb.step(pop=False)           # (outputs are read in the ReadOnly phase step() ends in)
    assert not int(dut.alloc_space.value)
    await tb.step(pop=True)
    await tb.step(pop=False)
    assert int(dut.alloc_space.value)
    await tb.drain()
    # reset in the middle of random traffic
    for rep in range(3):
        port = Port(tb.rng, delay=DEPTH, lost=0.1, wrong=0.05, noise=0.02)
        rng = tb.rng
        for _ in range(rng.randint(20, 200)):
            alloc = None
            if len(tb.live) < DEPTH and rng.random() < 0.5:
                alloc = tb.new_frame(rng.random() < 0.9)
            await tb.step(alloc=alloc, ret=port.pick(tb.cycle + 1))
            if alloc is not None:
                port.plan(alloc, tb.cycle)
        await tb.reset(rng.randint(1, 3))
        await tb.step()
        for s, v in (("empty", 1), ("head_valid", 0), ("alloc_space", 1), ("alloc_tag", 0),
                     ("mismatch_count", 0), ("timeout_count", 0), ("spurious_count", 0)):
            assert int(getattr(dut, s).value) == v, f"after reset {rep}: {s} {int(getattr(dut, s).value)}"
        tb.bp = 0.3
        await random_traffic(tb, Port(tb.rng, delay=DEPTH, lost=0.05), 60 + 2 * DEPTH, gap=(0, 100))
        tb.conservation()
    tb.assert_ok()


# The NIC's ordered wait (beryl_nic_tx_engine, TS_RET_ORDERED 1: every build but TDMA): ENT_W = the engine's
# completion without its timestamp, 64 + QI_W (TXQ_COUNT 4096: 76), TX_TS_WAIT_DEPTH 16, TX_TS_TAG_W 5,
# TS_RET_EN 1. TDMA builds use beryl_nic_tx_ts_wait_ooo instead.
NIC = [dict(ENT_W=76, TAG_W=5, DEPTH=16, RET_EN=1, IN_ORDER=1)]
EXTRA = [
    dict(ENT_W=72, TAG_W=8, DEPTH=16, RET_EN=1, IN_ORDER=1),     # the engine's own defaults, TXQ_COUNT 256
    dict(ENT_W=76, TAG_W=5, DEPTH=16, RET_EN=1, IN_ORDER=0),     # returns in any order
    dict(ENT_W=76, TAG_W=5, DEPTH=16, RET_EN=0, IN_ORDER=1),     # returns ignored
    dict(ENT_W=1, TAG_W=2, DEPTH=2, RET_EN=1, IN_ORDER=1),       # smallest
    dict(ENT_W=8, TAG_W=16, DEPTH=4, RET_EN=1, IN_ORDER=1),      # widest tag
    dict(ENT_W=16, TAG_W=9, DEPTH=256, RET_EN=1, IN_ORDER=1),    # deepest
    dict(ENT_W=16, TAG_W=9, DEPTH=8, RET_EN=1, IN_ORDER=0),
]


@pytest.mark.parametrize("params", NIC + (EXTRA if LONG else []),
                         ids=lambda p: "d{DEPTH}t{TAG_W}e{ENT_W}r{RET_EN}o{IN_ORDER}".format(**p))
def test_beryl_nic_tx_ts_wait(params):
    beryl_sim.run("beryl_nic_tx_ts_wait", "rtl/nic/beryl_nic_tx_ts_wait.f", "test_beryl_nic_tx_ts_wait",
                  Path(__file__).parent, parameters=params)
