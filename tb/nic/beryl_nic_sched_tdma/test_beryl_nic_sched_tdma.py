# SPDX-License-Identifier: MIT
"""beryl_nic_sched_tdma against the shared Python TX engine and scheduler-contract model (../txe_model.py)
and the TDMA rules of docs/blocks/tdma.md, with the slot inputs driven from cycle-level slot programs
(../tdma_ref.py: slots, gaps, timer searches).

Checked every cycle, on top of the shared contract (one command per queue, MAX_CMDS in flight, no
command for a retired queue, commands held until taken, none after sched_enable fell):
- TDMA rule: a command is presented only if, in the slot inputs the scheduler registered (two cycles
  before it appears), a slot was valid with more than guard_ns left and the queue's mask (any value it
  had in the last few cycles, when it was just rewritten) has that slot, below slot_count;
- round robin inside each open slot: between a queue's re-queueing status (in a slot of its mask) and
  its next command no other queue gets two commands, until the slot closes;
- every queue with backlog and a slot in its mask gets a command in every long enough occurrence of
  each of its slots (leftover queues move on to their next slot when a slot closes), and backlogged
  queues of one slot share it evenly;
- at the end every frame is sent, every doorbell served, bad statuses counted.
Stimulus: random doorbells, masks over several slots (some queues with none: parked until a mask is
written), mask rewrites while queues wait, out-of-order statuses with ERROR/DISABLED and bogus ones,
sched_enable toggles, slot programs with gaps and searches, no stalls / doorbell idle / command
backpressure / both; configuration read-back (all ones after reset).
"""
import os
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tdma_ref import GAP, SEARCH, SlotProg  # noqa: E402
from txe_model import MODES, SchedBench  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

SLOTS_MAX = int(os.environ.get("PARAM_SLOTS_MAX", "8"))
LONG = int(os.environ.get("BERYL_LONG", "0"))
LAT = 2          # slot inputs of cycle n decide commands that appear in cycle n + 2
MASK_WIN = 12    # cycles a rewritten mask may still be in use


class Bench(SchedBench):
    def __init__(self, dut, seed, prog, guard=40, count=None, lat_max=20):
        super().__init__(dut, seed, lat_max=lat_max,
                         extra_inputs=("cfg_valid", "cfg_write", "cfg_qidx", "cfg_mask", "slot_valid",
                                       "slot_index", "slot_left_ns", "slot_count", "guard_ns"))
        self.prog = prog
        self.guard = guard
        self.count = count or SLOTS_MAX
        self.mask = {q: [(-100, (1 << SLOTS_MAX) - 1)] for q in range(self.nq)}    # (edge, mask) history
        self.hist = {}                           # edge -> (open, index, occurrence, kind)
        self.cfg_list = deque()
        self.cfg_drv = None
        self.cfg_rsp = []
        self.cfg_idle = 0.0
        self.check_fair = True
        self.presented = {}                      # occurrence -> {q: commands presented}
        self.tdma_checked = 0

    # ------------------------------------------------------------ configuration
    def set_mask(self, q, m):
        self.cfg_list.append((1, q, m))

    def read_mask(self, q):
        self.cfg_list.append((0, q, 0))

    def masks_near(self, q, edge):
        """Masks q may have had in use at `edge` (the last one before, and any written shortly before)."""
        h = self.mask[q]
        out = [m for t, m in h if edge - MASK_WIN <= t <= edge]
        before = [m for t, m in h if t < edge - MASK_WIN]
        if before:
            out.append(before[-1])
        return out

    def eff(self, m):
        return m & ((1 << self.count) - 1)

    def mask_now(self, q):
        return self.mask[q][-1][1]

    # ------------------------------------------------------------ hooks
    def drive(self):
        d, r = self.dut, self.rng
        valid, idx, _, left, occ, kind = self.prog.step()
        d.slot_valid.value, d.slot_index.value, d.slot_left_ns.value = valid, idx, left
        d.slot_count.value, d.guard_ns.value = self.count, self.guard
        self.hist[self.now] = (bool(valid and left > self.guard), idx, occ, kind)
        # the scheduler's view (inputs of two cycles ago): a fairness round ends when its slot closes
        a, b = self.hist.get(self.now - LAT), self.hist.get(self.now - LAT - 1)
        if a and b and (a[0], a[1]) != (b[0], b[1]):
            self.windows.clear()
        if self.cfg_drv is None and self.cfg_list and r.random() >= self.cfg_idle:
            self.cfg_drv = self.cfg_list.popleft()
            w, q, m = self.cfg_drv
            d.cfg_write.value, d.cfg_qidx.value, d.cfg_mask.value = w, q, m
        d.cfg_valid.value = int(self.cfg_drv is not None)

    def sample(self):
        d = self.dut
        if self.cfg_drv is not None and d.cfg_ready.value == 1:
            w, q, m = self.cfg_drv
            if w:
                self.mask[q].append((self.now, m))
                self.windows.pop(q, None)        # a rewritten mask may move the queue to another slot's list
            self.cfg_drv = None
        if d.cfg_rd_valid.value == 1:
            self.cfg_rsp.append(int(d.cfg_rd_mask.value))

    def on_present(self, q):
        view = self.hist.get(self.now - LAT)
        assert view is not None
        is_open, idx, occ, kind = view
        assert is_open, f"edge {self.now}: command for queue {q} while no slot was open (slot {kind})"
        assert idx < self.count, f"edge {self.now}: slot {idx} beyond slot_count {self.count}"
        ok = [m for m in self.masks_near(q, self.now) if (m >> idx) & 1]
        assert ok, (f"edge {self.now}: command for queue {q} in slot {idx}, not in its mask "
                    f"{self.masks_near(q, self.now)}")
        self.presented.setdefault(occ, {}).setdefault(q, 0)
        self.presented[occ][q] += 1
        self.tdma_checked += 1

    def on_sts(self, q, res):
        super().on_sts(q, res)
        # a round-robin window only where the queue goes back into the list being served
        view = self.hist.get(self.now)
        if q in self.windows and not (view and view[0] and (self.mask_now(q) >> view[1]) & 1):
            del self.windows[q]

    def busy(self):
        # work that waits for a slot: frames, or a doorbell not yet answered by a command
        # (a disabled queue's frames stay: the engine answers DISABLED)
        waiting = any(((self.backlog[q] and q not in self.disabled) or self.last_cmd.get(q, -1) < t)
                      and self.eff(self.mask_now(q)) for q, t in self.last_db.items())
        return waiting or bool(self.cfg_list) or self.cfg_drv is not None


def prog_random(rng, count, n=6):
    """A period of `count` slots of 60-400 cycles, a gap and sometimes a search between them."""
    pat = []
    for s in range(count):
        pat.append((s, rng.randrange(60, 400)))
        if rng.random() < 0.3:
            pat.append((SEARCH, rng.randrange(5, 90)))
    pat.append((GAP, rng.randrange(1, 100)))
    return pat


async def random_traffic(b, n_db, masks_change=True):
    r, nq = b.rng, b.nq
    made = 0
    while made < n_db:
        if r.random() < 0.2:
            q = r.randrange(nq)
            b.doorbell(q, [r.randint(60, 1514) for _ in range(r.randint(0, 3))])
            made += 1
        if masks_change and r.random() < 0.004:
            b.set_mask(r.randrange(nq), r.randrange(1 << SLOTS_MAX))
        if r.random() < 0.003:
            b.en ^= 1
        await b.step()
    b.en = 1


@cocotb.test()
async def test_random(dut):
    """Random doorbells, masks and rewrites, parked queues, errors, bogus statuses, enable toggles, slot
    programs with gaps and searches; all four stall modes."""
    seed = beryl_seed.seed(11, "test_random")
    count = min(4, SLOTS_MAX)
    b = Bench(dut, seed, None, guard=40, count=count)
    b.prog = SlotProg(prog_random(b.rng, count), seed=seed)
    await b.reset()
    r, nq = b.rng, b.nq
    b.disabled = set(r.sample(range(nq), max(1, nq // 16)))
    b.err_rate, b.bad_rate = 0.05, 0.03
    for q in r.sample(range(nq), min(nq, 40)):
        m = r.choice([1, 2, 3, 5, 8, 0, 1 << (SLOTS_MAX - 1), r.randrange(1 << SLOTS_MAX)])
        b.set_mask(q, m & ((1 << SLOTS_MAX) - 1))
    n_db = int(os.environ.get("SCHED_N_DB", "1500" if not LONG else "5000"))
    for i, (idle, bp) in enumerate(MODES):
        b.idle, b.bp, b.cfg_idle = idle, bp, idle
        b.lat_max = [30, 5, 200, 12][i]
        b.prog.set_pattern(prog_random(b.rng, count))
        await random_traffic(b, n_db)
        # queues without a slot in their mask are parked: once every doorbell is in, give each one with work
        # a slot so that all work drains
        while b.db_list or b.db_drv is not None:
            await b.step()
        for q in b.last_db:
            if (b.backlog[q] or b.last_cmd.get(q, -1) < b.last_db[q]) and not b.eff(b.mask_now(q)):
                b.set_mask(q, 1 << r.randrange(count))
        await b.drain(limit=2000000)
        b.check_end()
        dut._log.info("mode idle=%.1f bp=%.1f: %d commands (%d TDMA-checked), max in flight %d, edge %d",
                      idle, bp, b.cmds, b.tdma_checked, b.max_inflight, b.now)
    assert b.max_inflight == b.max_cmds


@cocotb.test()
async def test_every_slot(dut):
    """Backlogged queues with masks over three slots: each queue gets commands in every occurrence of every
    slot of its mask (queues left in a slot's list move on when it closes), evenly shared within a slot."""
    count = min(3, SLOTS_MAX)
    masks = [0b001, 0b010, 0b011, 0b100, 0b101, 0b111, 0b110, 0b001]
    masks = [m & ((1 << count) - 1) or 1 for m in masks]
    pat = [(0, 500), (1, 400), (GAP, 30), (2, 450)][:count + 1] if count == 3 else [(0, 500), (GAP, 20)]
    # a fixed one-cycle status latency: the share of each queue then depends on the round robin only
    seed = beryl_seed.seed(5, "test_every_slot")
    b = Bench(dut, seed, SlotProg(pat, seed=seed), guard=60, count=count, lat_max=1)
    await b.reset()
    b.check_fair = True
    qs = list(range(3, 3 + len(masks)))
    for q, m in zip(qs, masks):
        b.set_mask(q, m)
    await b.cycles(20)
    for q in qs:
        b.gen[q] = lambda: 1000
        b.doorbell(q, [])
    periods = 8 if LONG else 5
    await b.cycles(periods * sum(n for _, n in pat))
    # every occurrence after the first period: each queue whose mask has the slot got commands
    first = len(pat) + 1
    checked = 0
    last = b.prog.occ - 1                      # still running (or cut short) at the end
    for occ, per_q in sorted(b.presented.items()):
        if occ < first or occ >= last:
            continue
        kind = pat[occ % len(pat)][0]
        if kind in (GAP, SEARCH):
            continue
        want = [q for q, m in zip(qs, masks) if (m >> kind) & 1]
        got = [per_q.get(q, 0) for q in want]
        dut._log.info("occurrence %d (slot %s): commands per queue %s", occ, kind, dict(zip(want, got)))
        assert min(got) >= 1, f"occurrence {occ} of slot {kind}: a queue of its mask got no command: {got}"
        assert max(got) - min(got) <= 2, f"occurrence {occ} of slot {kind}: uneven share {got}"
        checked += 1
    assert checked >= (periods - 2) * count
    for q in qs:
        del b.gen[q]
    await b.drain()
    b.check_end()


@cocotb.test()
async def test_guard_and_latency(dut):
    """Doorbell to command latency in an open slot; a guard as long as the slot keeps it shut; shortening
    the guard opens it; sched_enable low holds everything."""
    seed = beryl_seed.seed(7, "test_guard_and_latency")
    b = Bench(dut, seed, SlotProg([(0, 3000)], seed=seed), guard=40, count=1)
    await b.reset()
    q = 5
    await b.cycles(10)
    b.doorbell(q, [100])
    t0 = b.now
    while q not in b.last_cmd:
        await b.step()
        assert b.now - t0 < 50
    lat = b.last_cmd[q] - t0
    dut._log.info("doorbell to command: %d cycles", lat)
    assert lat <= 8
    await b.drain()
    b.guard = 3000 * 4 + 10             # never more than the guard left
    b.doorbell(q, [100, 200])
    await b.cycles(7000)
    assert b.backlog[q], "commands although the guard covers the whole slot"
    b.en = 0
    b.guard = 40
    await b.cycles(4000)
    assert b.backlog[q], "commands while sched_enable is low"
    b.en = 1
    await b.drain()
    b.check_end()


@cocotb.test()
async def test_cfg_readback(dut):
    """Masks are all ones after reset; writes read back in order, with config idle."""
    seed = beryl_seed.seed(9, "test_cfg_readback")
    b = Bench(dut, seed, SlotProg([(0, 100), (GAP, 100)], seed=seed), count=1)
    await b.reset()
    r = b.rng
    b.cfg_idle = 0.5
    qs = r.sample(range(b.nq), min(b.nq, 24))
    for q in qs[:4]:
        b.read_mask(q)
    want = {q: r.randrange(1 << SLOTS_MAX) for q in qs}
    for q in qs:
        b.set_mask(q, want[q])
    for q in qs:
        b.read_mask(q)
    await b.drain()
    assert len(b.cfg_rsp) == 4 + len(qs)
    assert b.cfg_rsp[:4] == [(1 << SLOTS_MAX) - 1] * 4, f"reset masks {b.cfg_rsp[:4]}"
    assert b.cfg_rsp[4:] == [want[q] for q in qs], "masks read back differ"


@pytest.mark.parametrize("queues,cmds,slots", [(64, 8, 8), (64, 4, 3)] + ([(32768, 8, 8)] if LONG else [(4096, 8, 8)]))
def test_beryl_nic_sched_tdma(queues, cmds, slots):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    env = {}
    if queues > 1024:
        env["SCHED_N_DB"] = "150"
    beryl_sim.run("beryl_nic_sched_tdma", "rtl/nic/beryl_nic_sched_tdma.f", "test_beryl_nic_sched_tdma",
                  Path(__file__).parent, parameters={"QUEUE_COUNT": queues, "MAX_CMDS": cmds, "SLOTS_MAX": slots},
                  extra_env=env)
