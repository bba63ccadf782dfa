# SPDX-License-Identifier: MIT
"""beryl_ptp_tdma_timer with tod driven by the bench (any increment, jitter, steps) against a model that
knows only the definition of the schedule: with t = tod - start (exact integers in 2^-16 ns), no slot
while t < 0; otherwise k, r = divmod(t, period) and slot r // slot_ns while r < slot_count * slot_ns,
else the gap. slot_left_ns = floor(end of that interval - tod) in ns (for the gap and before the start:
until the next slot begins), saturated at 2^32 - 1.

Every clock the outputs (which describe tod of two clocks earlier) are compared with the model:
- `searching` = 0: slot_valid, slot_index, slot_left_ns exact; slot_start exactly in the first cycle
  of each shown slot (a slot interval = (period number, slot); also after any invalid cycle);
- `searching` = 1: no slot shown, and only within a bounded window after arming or a step (the
  remainder search, 81 clocks, plus the walk to the slot);
- a step landing in the same interval, or the next one, never searches (a servo's small offsets do
  not blank the schedule);
- cfg_err exactly for illegal configurations.

Tests: schedules with and without a gap, one slot, SLOTS_MAX slots, the benchmark's 200 us / 2 x
100 us; start in the future and in the past (a year, and 2^47 s); periods crossing second
boundaries; forward/backward steps (within a slot, to the next interval, across many periods,
before the start, during a search); enable/re-arm; bad configurations; a random mix.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

SLOTS_MAX = int(os.environ.get("PARAM_SLOTS_MAX", "8"))
LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
NS = 1 << 16
SEC = 10**9 * NS
SAT = (1 << 32) - 1
LAT = 2                          # outputs describe tod of two clocks earlier


def u_to_tod(t16):
    sec, r = divmod(t16, SEC)
    return (sec << 48) | r


class Cfg:
    def __init__(self, start=(0, 0), period=1000, slot=300, count=3):
        self.start, self.period, self.slot, self.count = start, period, slot, count

    def bad(self):
        return (self.start[1] >= 10**9 or self.period == 0 or self.slot == 0 or self.count == 0
                or self.count > SLOTS_MAX or self.count * self.slot > self.period)

    def where(self, t16):
        """(interval id, valid, index, left) for an absolute tod t16 (2^-16 ns)."""
        s16 = (self.start[0] * 10**9 + self.start[1]) * NS
        rel = t16 - s16
        if rel < 0:
            return ("pre",), 0, 0, min(SAT, (s16 - t16) // NS)
        k, r = divmod(rel, self.period * NS)
        i = r // (self.slot * NS)
        if i < self.count:
            end = s16 + k * self.period * NS + (i + 1) * self.slot * NS
            return (k, i), 1, i, min(SAT, (end - t16) // NS)
        end = s16 + (k + 1) * self.period * NS
        return (k, "gap"), 0, 0, min(SAT, (end - t16) // NS)

    def min_interval(self):
        gap = self.period - self.count * self.slot
        return min(self.slot, gap) if gap else self.slot


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, 4, unit="ns").start()
        self.cyc = 0
        self.t16 = 0
        self.en = 0
        self.cfg = Cfg()
        self.hist = []                  # per cycle: (t16, step, en, cfg)
        self.armed_cfg = None
        self.cfg_err = 0
        self.prev_shown = None          # interval id shown valid in the previous cycle
        self.search_from = None         # cycle of the arm/step that may start a search
        self.search_bound = 0
        self.searches = []              # lengths of observed search windows
        self.in_search = None
        self.starts = 0
        self.exact = 0
        self.max_incr = NS
        dut.enable.value = 0
        dut.tod.value = 0
        dut.tod_step.value = 0
        self.drive_cfg()

    def drive_cfg(self):
        d, c = self.dut, self.cfg
        d.start_sec.value, d.start_ns.value = c.start[0], c.start[1] & ((1 << 30) - 1)
        d.period_ns.value, d.slot_ns.value, d.slot_count.value = c.period, c.slot, c.count

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        await FallingEdge(self.dut.clk)
        self.dut.rst.value = 0

    def bound(self, cfg):
        # arming/step pipeline + 81-clock search + the walk: up to slot_count + 1 intervals from the period
        # start, plus the intervals the tod passes meanwhile
        walk = cfg.count + 2 + (100 * self.max_incr) // (max(1, cfg.min_interval()) * NS) + 2
        return 6 + 81 + walk + 4

    def check(self):
        """Compare the outputs of this cycle (tod of cycle - LAT) with the model."""
        d, c = self.dut, self.cyc
        got = (int(d.slot_valid.value), int(d.slot_index.value), int(d.slot_start.value),
               int(d.slot_left_ns.value), int(d.searching.value), int(d.cfg_err.value))
        if c - LAT < 0:
            return
        t16, step, en, _ = self.hist[c - LAT]
        en_now = self.hist[c - 1][2]
        valid, idx, start, left, searching, err = got
        if not self.armed_cfg or not en or not en_now:
            assert (valid, start) == (0, 0), f"cycle {c}: slot shown while disabled"
            self.prev_shown = None
            self.in_search = None
            return
        cfg = self.armed_cfg
        if cfg.bad():
            assert (valid, searching) == (0, 0) and (err == 1 or not en_now), f"cycle {c}: bad cfg not flagged"
            return
        assert err == 0, f"cycle {c}: cfg_err for a legal configuration"
        if searching:
            assert (valid, start, left) == (0, 0, 0), f"cycle {c}: output while searching"
            assert self.search_from is not None and c - self.search_from <= self.search_bound, \
                f"cycle {c}: searching {c - self.search_from if self.search_from else None} cycles after the last " \
                f"arm/step (bound {self.search_bound})"
            if self.in_search is None:
                self.in_search = c
            self.prev_shown = None
            return
        if self.in_search is not None:
            self.searches.append(c - self.in_search)
            self.in_search = None
        iid, wv, wi, wl = cfg.where(t16)
        assert (valid, idx, left) == (wv, wi, wl), \
            f"cycle {c}: got valid {valid} idx {idx} left {left}, want {wv} {wi} {wl} (t16 {t16}, {iid})"
        want_start = int(wv and self.prev_shown != iid)
        assert start == want_start, f"cycle {c}: slot_start {start}, want {want_start} ({iid})"
        self.starts += start
        self.exact += 1
        self.prev_shown = iid if wv else None

    async def cycle(self, incr16, step_to=None):
        d = self.dut
        step = step_to is not None
        prev_t = self.t16
        self.t16 = step_to if step else self.t16 + incr16
        assert self.t16 >= 0
        if not step:
            self.max_incr = max(self.max_incr, incr16)
        d.tod.value = u_to_tod(self.t16)
        d.tod_step.value = int(step)
        d.enable.value = self.en
        self.drive_cfg()
        # arming: the configuration is taken when enable rises
        if self.en and (not self.hist or not self.hist[-1][2]):
            self.armed_cfg = self.cfg
            self.search_from = self.cyc
            self.search_bound = self.bound(self.cfg)
        elif step and self.armed_cfg and self.en:
            a = self.armed_cfg
            old, new = a.where(prev_t)[0], a.where(self.t16)[0]
            nxt = a.where(self.next_boundary(a, prev_t))[0]
            busy = self.search_from is not None and self.cyc - self.search_from <= self.search_bound
            if new not in (old, nxt) or busy:
                self.search_from = self.cyc
            if os.environ.get("TDMA_DEBUG"):
                self.dut._log.info("cycle %d: step %s -> %s (next %s), search expected %s", self.cyc, old, new, nxt,
                                   new not in (old, nxt) or busy)
                self.search_bound = self.bound(a)
        self.hist.append((self.t16, int(step), self.en, self.cfg))
        await FallingEdge(d.clk)
        self.cyc += 1
        self.check()

    @staticmethod
    def next_boundary(cfg, t16):
        """First tod >= t16 in the interval after t16's."""
        s16 = (cfg.start[0] * 10**9 + cfg.start[1]) * NS
        rel = t16 - s16
        if rel < 0:
            return s16
        k, r = divmod(rel, cfg.period * NS)
        i = r // (cfg.slot * NS)
        if i < cfg.count:
            return s16 + k * cfg.period * NS + (i + 1) * cfg.slot * NS
        return s16 + (k + 1) * cfg.period * NS

    async def run(self, n, incr16, jitter=0, rng=None):
        for _ in range(n):
            await self.cycle(incr16 + (rng.randrange(-jitter, jitter + 1) if jitter else 0))

    async def arm(self, cfg, incr16):
        self.en = 0
        await self.cycle(incr16)
        await self.cycle(incr16)
        self.cfg = cfg
        self.en = 1
        await self.cycle(incr16)


def at(sec, ns, frac=0):
    return (sec * 10**9 + ns) * NS + frac


@cocotb.test()
async def test_schedules(dut):
    """Start in the future: no slot, then every boundary exact, with and without a gap, 1..SLOTS_MAX slots,
    fractional and jittery increments; the benchmark's 200 us period with two 100 us slots."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(1, "test_schedules")
    tb.t16 = at(100, 5)
    n = SLOTS_MAX
    cases = [  # (period, slot, count, incr16, jitter16, cycles)
        (1000, 500, 2, 4 * NS, 0, 1500),
        (1000, 300, 3, 4 * NS, 0, 1500),                       # gap of 100 ns
        (777, 200, 1, 6 * NS + 0x6666, 0, 1500),               # one slot and a long gap
        (n * 37 + 11, 37, n, 5 * NS + 0x1234, NS, 1500),       # SLOTS_MAX slots, 11 ns gap
        (n * 40, 40, n, 7 * NS, 3 * NS, 1500),                 # no gap, jittery tod
        (200_000, 100_000, 2, 160 * NS, 40 * NS, 6000),        # 200 us / 2 x 100 us, ~4.8 periods
    ]
    for per, slot, cnt, incr, jit, cyc in cases:
        cnt = min(cnt, SLOTS_MAX)
        if cnt * slot > per:
            continue
        start = tb.t16 // NS + 300 * (incr // NS) + 17
        c = Cfg(divmod(start, 10**9), per, slot, cnt)
        s0 = tb.starts
        await tb.arm(c, incr)
        await tb.run(cyc * (3 if LONG else 1), incr, jit, rng)
        got = tb.starts - s0
        total = (tb.t16 - at(*c.start)) // NS
        want_min = (total // per) * cnt
        dut._log.info("period %d slot %d x %d: %d slot starts (>= %d)", per, slot, cnt, got, want_min)
        assert got >= want_min and got > 0


@cocotb.test()
async def test_second_rollover(dut):
    """Periods and slots that straddle second boundaries (start at x.999999500 s, periods not dividing
    10^9 ns), reached by counting and by steps to just before a second."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(2, "test_second_rollover")
    tb.t16 = at(7, 999_999_000)
    await tb.arm(Cfg((7, 999_999_500), 777, 250, min(3, SLOTS_MAX)), 4 * NS)
    await tb.run(1200, 4 * NS)
    for k in range(6):
        # step to 1.5 us before a later second boundary; counting carries the schedule over it
        sec = tb.t16 // SEC + 1 + k * 3
        await tb.cycle(0, step_to=at(sec, 999_998_500, rng.randrange(NS)))
        await tb.run(1000, 4 * NS + rng.randrange(NS), 0, rng)
    # a 333,333,333 ns period: boundaries at 1/3 s steps, crossing whole seconds every third period
    tb.t16 = at(20, 999_999_990)
    await tb.arm(Cfg((20, 999_999_999), 333_333_333, 111_111_111, min(2, SLOTS_MAX)), 4 * NS)
    await tb.run(50, 4 * NS)
    for _ in range(8):
        t = tb.t16 // NS
        k = (t - at(20, 999_999_999) // NS) // 333_333_333 + 1
        edge = at(20, 999_999_999) // NS + k * 333_333_333
        await tb.cycle(0, step_to=(edge - 600) * NS)
        await tb.run(400, 4 * NS)


@cocotb.test()
async def test_past_start(dut):
    """Start a year and 2^47 s in the past (remainder search over ~2^55 and ~2^77 ns), right at a boundary,
    and before the start by one ns."""
    tb = TB(dut)
    await tb.reset()
    year = 365 * 86400
    for start, now, per, slot, cnt in [
        ((1000, 123_456_789), at(1000 + year, 5), 200_000, 100_000, 2),
        ((0, 0), at(2**47 + 12345, 999_999_000), 999_999_937, 333_333_312, 3),
        ((50, 0), at(50 + 3600, 0), 1000, 250, 4),             # exactly on a period start
        ((60, 100), at(60, 99, NS - 1), 1000, 250, 4),          # 2^-16 ns before the start
    ]:
        cnt = min(cnt, SLOTS_MAX)
        tb.t16 = now
        await tb.arm(Cfg(start, per, slot, cnt), 4 * NS)
        await tb.run(300, 4 * NS)
        assert tb.searches, "no search observed"
    dut._log.info("search windows (clocks): %s", tb.searches)
    assert max(tb.searches) <= 81 + 2 * SLOTS_MAX + 8


@cocotb.test()
async def test_steps(dut):
    """Small steps inside a slot and into the next interval keep the schedule (no search); steps across
    periods, backwards out of the slot, before the start and during a search re-find it."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(4, "test_steps")
    tb.t16 = at(500, 0)
    cnt = min(3, SLOTS_MAX)
    c = Cfg((500, 2000), 10_000, 3000, cnt)
    await tb.arm(c, 4 * NS)
    await tb.run(700, 4 * NS)
    nsearch = len(tb.searches)
    for _ in range(12):
        # anywhere inside the current interval, or into the next one: no search (a search would run past the
        # window of the last arm/step, which the model checks)
        await tb.run(rng.randrange(50, 200), 4 * NS)
        end = tb.next_boundary(c, tb.t16)
        begin = end - (c.slot if c.where(tb.t16)[1] else c.period - c.count * c.slot) * NS
        nxt_end = tb.next_boundary(c, end)
        await tb.cycle(0, step_to=rng.choice([rng.randrange(begin, end), rng.randrange(end, nxt_end)]))
    await tb.run(100, 4 * NS)
    assert len(tb.searches) == nsearch, "a step inside the slot or into the next interval caused a search"
    plan = [7 * 10_000 + 1234,          # seven periods ahead
            -2 * 10_000,                # two periods back
            4500,                       # forward into the next interval
            -12 * 10**9,                # before the schedule start
            3 * 10**9 + 777,            # seconds ahead
            -600, 3600 * 10**9]         # a small step back across a boundary (maybe), an hour ahead
    for jump in plan:
        await tb.run(rng.randrange(5, 60), 4 * NS)
        await tb.cycle(0, step_to=max(0, tb.t16 + jump * NS))
        await tb.run(400, 4 * NS)
    # steps every few clocks, some during a search
    for _ in range(60 if LONG else 25):
        await tb.run(rng.randrange(1, 120), 4 * NS)
        j = rng.choice([rng.randrange(-20_000, 20_000), rng.randrange(0, 10**12), -rng.randrange(0, 10**6),
                        rng.randrange(-300, 300)])
        await tb.cycle(0, step_to=max(0, tb.t16 + j * NS))
    await tb.run(400, 4 * NS)
    dut._log.info("%d exact cycles, %d slot starts, %d searches (longest %d clocks)", tb.exact, tb.starts,
                  len(tb.searches), max(tb.searches))


@cocotb.test()
async def test_enable(dut):
    """Disable blanks at once; re-arm with a past start; illegal configurations; changes while enabled are
    ignored."""
    tb = TB(dut)
    await tb.reset()
    tb.t16 = at(5, 0)
    good = Cfg((5, 2000), 1000, 400, min(2, SLOTS_MAX))
    await tb.arm(good, 4 * NS)
    await tb.run(500, 4 * NS)
    for _ in range(3):
        tb.en = 0
        await tb.run(20, 4 * NS)
        assert int(dut.slot_valid.value) == 0 and int(dut.searching.value) == 0
        await tb.arm(good, 4 * NS)
        await tb.run(300, 4 * NS)
    bads = [Cfg((5, 10**9), 1000, 400, 2), Cfg((5, 0), 0, 400, 1), Cfg((5, 0), 1000, 0, 2),
            Cfg((5, 0), 1000, 100, 0), Cfg((5, 0), 1000, 501, 2), Cfg((5, 0), 10**6, 10, SLOTS_MAX + 1)]
    for bad in bads:
        if bad.count >= (1 << len(dut.slot_count)):
            continue
        await tb.arm(bad, 4 * NS)
        await tb.run(30, 4 * NS)
        assert int(dut.cfg_err.value) == 1 and int(dut.slot_valid.value) == 0
    await tb.arm(Cfg((5, 0), 1000, 1000, 1), 4 * NS)        # one slot filling the period: always valid
    await tb.run(300, 4 * NS)
    assert int(dut.slot_valid.value) == 1
    # configuration changes while enabled are ignored (the model keeps the armed one)
    tb.cfg = Cfg((9, 0), 10**6, 10, 1)
    await tb.run(300, 4 * NS)


@cocotb.test()
async def test_random(dut):
    """Random schedules, increments, jitter, steps and enable toggles."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(6, "test_random")
    tb.t16 = at(rng.randrange(1, 1 << 40), rng.randrange(10**9))
    for _ in range(30 if LONG else 10):
        incr = rng.choice([4 * NS, 6 * NS + 0x6666, rng.randrange(NS, 40 * NS)])
        jit = rng.choice([0, incr // 4])
        mn = 3 * (incr + jit) // NS + 3
        cnt = rng.randrange(1, SLOTS_MAX + 1)
        slot = rng.randrange(mn, 50 * mn)
        gap = rng.choice([0, rng.randrange(mn, 30 * mn)])
        per = cnt * slot + gap
        now = tb.t16 // NS
        start = max(0, now + rng.randrange(-1000 * per, 20 * per))
        await tb.arm(Cfg(divmod(start, 10**9), per, slot, cnt), incr)
        for _ in range(rng.randrange(300, 900)):
            r = rng.random()
            if r < 0.006:
                await tb.cycle(0, step_to=max(0, tb.t16 + rng.randrange(-5 * per * NS, 5 * per * NS)))
            elif r < 0.008:
                tb.en = 0
                await tb.run(2, incr)
                tb.en = 1
            else:
                await tb.run(1, incr, jit, rng)
    dut._log.info("random: %d exact cycles, %d slot starts, %d searches", tb.exact, tb.starts, len(tb.searches))
    # coverage (seeds 1-5 and the default: 2029-3191 exact cycles, 46-124 starts, 22-31 searches)
    assert tb.exact >= 700 and tb.starts >= 15 and len(tb.searches) >= 8, "random run covered too little"


@pytest.mark.parametrize("slots_max", [8, 3])
def test_beryl_ptp_tdma_timer(slots_max):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_ptp_tdma_timer", "rtl/ptp/beryl_ptp_tdma_timer.f", "test_beryl_ptp_tdma_timer",
                  Path(__file__).parent, parameters={"SLOTS_MAX": slots_max})
