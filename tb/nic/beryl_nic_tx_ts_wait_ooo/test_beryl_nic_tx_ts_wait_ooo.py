# SPDX-License-Identifier: MIT
"""beryl_nic_tx_ts_wait_ooo: one port's TX completions waiting for their returned timestamps, returns in any
order, completions out of order across queues.

The bench plays the TX engine (frames of random queues and 1..4 beats, one first beat = one allocation, the
last beat closes it; dropped packets that need no time) and a port behind a TDMA gate: each queue's returns
come in that queue's frame order (the gate never reorders a queue), queues overtake each other at random, and
one "parked" queue's frames come back only after hundreds of other frames have passed. The CQ side pops with
random backpressure. An independent model (frames, their tags as the DUT gave them, their returned times)
checks every clock:

- every completion is a frame that may go: time known (or timed out), last beat gone, no older frame of its
  queue still waiting; it carries the time returned for its tag (0 after a timeout, alloc_ts if none needed);
- per-queue order of completions, no completion lost or doubled;
- head_valid whenever some frame may go (no completion held back), alloc_space exactly while an entry is free
  (the port never waits with a free entry), tags unique among live frames;
- timeouts between `timeout` and 1.5 x `timeout` (+ slack) after the first beat: no frame released with 0 before
  `timeout`, and by each lost frame's deadline timeout_count has counted it (the bound holds for the timeout, not
  for the release: a resolved frame is released after lower ready entries, the lowest first, and as the CQ side
  pops); spurious returns (wrong tags, returns after a timeout) counted, never touching a waiting frame unless
  the tag is exactly that frame's. A return for a lost frame's tag (a late return of an older frame: the tag's
  generation wraps) between its `timeout` and its deadline may come before or after the DUT's timeout: the
  frame must then carry 0 or that time, and the counters must follow the outcome the DUT took.
"""
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

MODES = {"plain": (0.0, 0.0), "idle": (0.5, 0.0), "bp": (0.0, 0.5), "both": (0.5, 0.5)}


class Frame:
    def __init__(self, n, key, need, beats, ts0):
        self.n, self.key, self.need, self.beats = n, key, need, beats
        self.ts0 = ts0                  # alloc_ts (used when no time is needed)
        self.tag = None
        self.t_alloc = None
        self.closed = beats == 1
        self.time = None                # the time the model returned for it (None: not yet / never)
        self.lost = False               # its return never comes (timeout)
        self.popped = False
        self.amb = []                   # times returned for its tag between its timeout and its deadline
        self.n_amb = 0
        self.zero = False               # released with 0 after its timeout (later returns are spurious)


class Bench:
    def __init__(self, dut, seed, idle=0.0, bp=0.0, timeout=0):
        self.dut, self.rng = dut, random.Random(seed)
        self.idle, self.bp, self.timeout = idle, bp, timeout
        self.depth = int(os.environ["PARAM_DEPTH"])
        self.tag_w = int(os.environ["PARAM_TAG_W"])
        self.ent_w = len(dut.alloc_ent)
        self.frames = []
        self.live = []                  # allocated, not popped (allocation order)
        self.by_key = {}                # key -> frames not popped, allocation order
        self.cpl = []                   # popped frames in pop order
        self.now = 0
        self.spurious = 0
        self.timeouts = 0
        self.max_live = 0
        self.rlog = []
        self.ooo = 0                    # pops that overtook an older live frame (of another queue)
        self.lost_f = []                # frames whose own return never comes, in first-beat order
        self.lost_seen = 0              # how many of them are past their timeout deadline
        self.lost_due = 0               # ... of those, how many got no time (a stale return may give one)

    async def reset(self):
        d = self.dut
        for s in ("alloc_valid", "alloc_ent", "alloc_key", "alloc_need", "alloc_ts", "alloc_open", "close_valid",
                  "ret_valid", "ret_tag", "ret_ts", "head_pop"):
            getattr(d, s).value = 0
        d.timeout.value = self.timeout
        d.rst.value = 1
        await ClockCycles(d.clk, 3)
        d.rst.value = 0
        await FallingEdge(d.clk)

    def may_go(self, f):
        if f.popped or not f.closed:
            return False
        if f.need and f.time is None:
            return False
        return self.by_key[f.key][0] is f

    def tmo_max(self):
        """Latest timeout: ticks every ceil(T/2) clocks, 0 at the third, one expired entry per clock."""
        return 3 * ((self.timeout + 1) // 2) + 2 + self.depth + 2

    def may_go_late(self, f):
        """A lost frame's timeout may have resolved it (its age is past the timeout)."""
        return (not f.popped and f.closed and f.need and f.time is None and f.lost and self.timeout
                and self.now - f.t_alloc > self.timeout and self.by_key[f.key][0] is f)

    async def run(self, gen, port):
        """gen: iterator of Frame to send; port: the return model (plan(f), pick(now) -> (tag, ts) or None)."""
        d, rng = self.dut, self.rng
        cur = None                      # frame being streamed: beats left
        pending = next(gen, None)
        while pending is not None or cur is not None or self.live or port.busy():
            # ---- outputs of the state after the last edge
            hv = int(d.head_valid.value)
            space = int(d.alloc_space.value)
            assert space == int(len(self.live) < self.depth), \
                f"{self.now}: alloc_space {space} with {len(self.live)} of {self.depth} entries live"
            # every lost frame past its deadline has been given its 0 (counted), released or not; unless a late
            # return of an older frame with the same tag (the generation wraps) came before its timeout and gave
            # it that time (f.time), or came between its timeout and its deadline (n_amb: either outcome)
            while self.timeout and self.lost_seen < len(self.lost_f) and \
                    self.now - self.lost_f[self.lost_seen].t_alloc >= self.tmo_max():
                self.lost_due += self.lost_f[self.lost_seen].time is None and not self.lost_f[self.lost_seen].n_amb
                self.lost_seen += 1
            assert int(d.timeout_count.value) >= self.lost_due, \
                f"{self.now}: {int(d.timeout_count.value)} timeouts, {self.lost_due} lost frames past the deadline"
            can = [f for f in self.live if self.may_go(f)]
            if can:
                assert hv, f"{self.now}: no head while frame {can[0].n} may go"
            pop = None
            if hv:
                n = int(d.head_ent.value)
                cand = [f for f in self.live if f.n == n]
                assert cand, f"{self.now}: head names frame {n}, not waiting"
                f = cand[0]
                late = self.may_go_late(f)
                assert self.may_go(f) or late, f"{self.now}: frame {n} (queue {f.key}) released too early"
                if late and f.amb:
                    # a return for its tag came after `timeout` but before the deadline: the DUT took the first
                    # (no timeout yet) or had given 0 (the returns were spurious); either is legal
                    got = int(d.head_ts.value)
                    assert got in (0, f.amb[0]), \
                        f"{self.now}: frame {n} (tag {f.tag:#x}): ts {got:#x}, neither 0 nor {f.amb[0]:#x}"
                    self.spurious += len(f.amb) - (got != 0)
                    if got:
                        f.time = got
                    f.amb = []
                    late = self.may_go_late(f)
                if late:
                    f.zero = True
                want = 0 if late else (f.time if f.need else f.ts0)
                assert int(d.head_ts.value) == want, \
                    f"{self.now}: frame {n} (tag {f.tag:#x}, lost {f.lost}, first beat {f.t_alloc}): ts " \
                    f"{int(d.head_ts.value):#x} != {want:#x}; returns {[r for r in self.rlog if r[1] == f.tag][-4:]}"
                if rng.random() >= self.bp:
                    pop = f
            d.head_pop.value = int(pop is not None)
            # ---- the engine side: a first beat (allocation) or the next beat of the open frame
            d.alloc_valid.value = 0
            d.close_valid.value = 0
            if cur is not None:
                if rng.random() >= self.idle:
                    cur[1] -= 1
                    if cur[1] == 0:
                        d.close_valid.value = 1
                        cur[0].closed = True
                        cur = None
            elif pending is not None and space and rng.random() >= self.idle:
                f = pending
                pending = next(gen, None)
                f.tag = int(d.alloc_tag.value)
                assert all(g.tag != f.tag for g in self.live), f"tag {f.tag:#x} of a live frame reused"
                f.t_alloc = self.now
                d.alloc_valid.value = 1
                d.alloc_ent.value = f.n
                d.alloc_key.value = f.key
                d.alloc_need.value = int(f.need)
                d.alloc_ts.value = f.ts0
                d.alloc_open.value = int(f.beats > 1)
                self.frames.append(f)
                self.live.append(f)
                self.by_key.setdefault(f.key, []).append(f)
                self.max_live = max(self.max_live, len(self.live))
                if f.beats > 1:
                    cur = [f, f.beats - 1]
                if f.need:
                    port.plan(f, self.now)
                    if f.lost:
                        self.lost_f.append(f)
            # ---- returns
            r = port.pick(self.now, self)
            d.ret_valid.value = int(r is not None)
            if r is not None:
                tag, ts = r
                d.ret_tag.value = tag
                d.ret_ts.value = ts
                self.rlog.append((self.now, tag, ts))
                # the live frame waiting with exactly this tag (lost frames past their timeout may be resolved;
                # a frame whose first beat leaves in this cycle is not waiting yet)
                w = [f for f in self.live if f.tag == tag and f.need and f.time is None and f.t_alloc < self.now]
                if w and not (w[0].lost and self.timeout and self.now - w[0].t_alloc > self.timeout):
                    w[0].time = ts
                elif w and not w[0].zero and self.now - w[0].t_alloc <= self.tmo_max():
                    # a late return of an older frame with this tag (the generation wraps) after this lost frame's
                    # timeout, before its deadline: the DUT may or may not have timed it out yet (see the release)
                    w[0].amb.append(ts)
                    w[0].n_amb += 1
                    port.ambiguous += 1
                else:
                    self.spurious += 1
            # ---- the edge
            if pop is not None:
                if any(g is not pop and g.key != pop.key for g in self.live[:self.live.index(pop)]):
                    self.ooo += 1
                pop.popped = True
                if pop.need and pop.time is None:
                    self.timeouts += 1
                self.live.remove(pop)
                assert self.by_key[pop.key][0] is pop
                self.by_key[pop.key].pop(0)
                self.cpl.append(pop)
            await FallingEdge(d.clk)
            self.now += 1
            assert self.now < 400000, "bench timed out"
        # the end: everything out, in per-queue order, counters
        for s in ("alloc_valid", "close_valid", "ret_valid", "head_pop"):
            getattr(d, s).value = 0
        for _ in range(4):
            assert int(d.head_valid.value) == 0
            await FallingEdge(d.clk)
        assert int(d.empty.value) == 1
        assert len(self.cpl) == len(self.frames)
        for k in self.by_key:
            got = [f.n for f in self.cpl if f.key == k]
            assert got == sorted(got), f"queue {k}: completions out of ring order"
        assert int(d.mismatch_count.value) == 0
        assert int(d.timeout_count.value) == self.timeouts, (int(d.timeout_count.value), self.timeouts)
        assert not any(f.amb for f in self.frames)
        assert int(d.spurious_count.value) == self.spurious, (int(d.spurious_count.value), self.spurious)


class GatePort:
    """Per-queue FIFOs of returns (a queue's times come back in its frame order), queues in any order, one
    return per clock. Frames of `parked` queues wait until `release_at` frames have been allocated."""
    def __init__(self, rng, delay=30, parked=(), release_at=0, lost_p=0.0, badtag_p=0.0, late_after=None):
        self.rng, self.delay = rng, delay
        self.q = {}                     # key -> [[due, frame], ...]
        self.parked, self.release_at = set(parked), release_at
        self.lost_p, self.badtag_p = lost_p, badtag_p
        self.late_after = late_after    # a lost frame's return comes this many clocks after its first beat
        self.late = []                  # [due, tag, ts]
        self.n_alloc = 0
        self.ambiguous = 0

    def busy(self):
        return any(self.q.values()) or bool(self.late)

    def plan(self, f, now):
        self.n_alloc += 1
        if self.rng.random() < self.lost_p:
            f.lost = True
            if self.late_after is not None:
                self.late.append([now + self.late_after, f.tag, self.rng.getrandbits(64) | 1])
            return
        self.q.setdefault(f.key, []).append([now + 1 + self.rng.randint(0, self.delay), f])

    def pick(self, now, tb):
        if self.rng.random() < tb.idle * 0.5:
            return None
        if self.late and self.late[0][0] <= now:
            _, tag, ts = self.late.pop(0)
            return tag, ts
        if self.badtag_p and self.rng.random() < self.badtag_p:
            # a tag no live frame has (a wrong tag from a MAC)
            tags = {f.tag for f in tb.live}
            t = self.rng.randrange(1 << tb.tag_w)
            if t not in tags:
                return t, self.rng.getrandbits(64)
        ready = [k for k, l in self.q.items() if l and l[0][0] <= now
                 and (k not in self.parked or self.n_alloc >= self.release_at)]
        if not ready:
            return None
        k = self.rng.choice(ready)
        _, f = self.q[k].pop(0)
        return f.tag, self.rng.getrandbits(64) | 1


def frames(rng, count, keys, drop_p=0.05, start=0, key_fn=None):
    for i in range(count):
        k = key_fn(i) if key_fn else rng.choice(keys)
        yield Frame(start + i, k, rng.random() >= drop_p, rng.choice([1, 1, 2, 4]), rng.getrandbits(64))


@cocotb.test()
async def test_random_order(dut):
    """Returns in random order across queues (in order within each), random idle and backpressure, drops."""
    Clock(dut.clk, 4, unit="ns").start()
    depth = int(os.environ["PARAM_DEPTH"])
    for i, (mode, (idle, bp)) in enumerate(MODES.items()):
        tb = Bench(dut, seed=beryl_seed.seed(10 + i, f"test_random_order {mode}"), idle=idle, bp=bp)
        await tb.reset()
        port = GatePort(tb.rng, delay=3 * depth)
        await tb.run(frames(tb.rng, 1500, list(range(6))), port)
        assert tb.ooo > 0, "no completion ever overtook another"
        dut._log.info("%s: %d frames, %d cycles, up to %d live, %d out of order", mode, len(tb.frames), tb.now,
                      tb.max_live, tb.ooo)


@cocotb.test()
async def test_parked(dut):
    """One queue's frames (and a dropped packet behind them) come back only after many other frames passed:
    the other queues' completions leave meanwhile; the port waits only once every entry is taken."""
    Clock(dut.clk, 4, unit="ns").start()
    depth = int(os.environ["PARAM_DEPTH"])
    for i, (mode, (idle, bp)) in enumerate(MODES.items()):
        tb = Bench(dut, seed=beryl_seed.seed(20 + i, f"test_parked {mode}"), idle=idle, bp=bp)
        await tb.reset()
        rng = tb.rng
        n = 3 * depth + 300
        # queue 7: frames 0 and 1 (the second a dropped packet: no time, must still wait for the first), then
        # frame 5; the rest on queues 0..3. Queue 7's times come back after 2 x DEPTH + 200 allocations.
        fs = list(frames(rng, n, [0, 1, 2, 3]))
        for j, need in ((0, True), (1, False), (5, True)):
            fs[j].key, fs[j].need = 7, need
        port = GatePort(rng, delay=8, parked={7}, release_at=2 * depth + 200)
        await tb.run(iter(fs), port)
        c7 = [f.n for f in tb.cpl if f.key == 7]
        assert c7 == [0, 1, 5]
        pos = [f.n for f in tb.cpl].index(0)
        assert pos >= port.release_at - depth, f"{mode}: the parked frame completed after only {pos} others"
        dut._log.info("%s: parked frame completed after %d others, %d cycles", mode, pos, tb.now)


@cocotb.test()
async def test_lost_and_wrong(dut):
    """Returns lost (timeout gives 0, between timeout and 1.5 x timeout), wrong tags and late returns after a
    timeout (spurious, no waiting frame touched), with random order, idle and backpressure."""
    Clock(dut.clk, 4, unit="ns").start()
    depth = int(os.environ["PARAM_DEPTH"])
    for i, (mode, (idle, bp)) in enumerate(MODES.items()):
        tmo = 200 + 3 * depth
        tb = Bench(dut, seed=beryl_seed.seed(30 + i, f"test_lost_and_wrong {mode}"), idle=idle, bp=bp, timeout=tmo)
        await tb.reset()
        port = GatePort(tb.rng, delay=depth, lost_p=0.05, badtag_p=0.02, late_after=2 * tmo)
        await tb.run(frames(tb.rng, 1200, list(range(5))), port)
        assert tb.timeouts > 10 and tb.spurious > 10, (tb.timeouts, tb.spurious)
        dut._log.info("%s: %d frames, %d timeouts, %d spurious, %d returns either side of a timeout", mode,
                      len(tb.frames), tb.timeouts, tb.spurious, port.ambiguous)


@pytest.mark.parametrize("params", [
    {"DEPTH": 256, "TAG_W": 9, "KEY_W": 4, "ENT_W": 16},
    {"DEPTH": 16, "TAG_W": 5, "KEY_W": 3, "ENT_W": 16},
    {"DEPTH": 4, "TAG_W": 4, "KEY_W": 4, "ENT_W": 16},
], ids=["d256", "d16", "d4"])
def test_beryl_nic_tx_ts_wait_ooo(params):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_tx_ts_wait_ooo", "rtl/nic/beryl_nic_tx_ts_wait_ooo.f", "test_beryl_nic_tx_ts_wait_ooo",
                  Path(__file__).parent, parameters=params)
