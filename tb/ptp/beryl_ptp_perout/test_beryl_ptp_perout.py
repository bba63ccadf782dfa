# SPDX-License-Identifier: MIT
"""beryl_ptp_perout with tod driven by the bench (any increment, jitter, steps), against a model that
knows only the definition: edges E_k = start + k * period as exact integers in 2^-PFNS_W ns, out high
in the cycle after the first cycle whose tod >= E_k, low in the cycle after the first cycle whose
tod >= E_k + width (a new edge wins), out low after a step.

Normal operation is checked exactly, every clock (out, skip_cnt, cfg_err). After a step or when armed
with a start in the past (a resync), the passed edges are skipped: out must stay low; the first pulse
must be a fresh crossing (tod(c-1) < E_m <= tod(c), no step in c) of an edge m >= the pending one, all
edges before it are counted in skip_cnt (saturating at 2^32 - 1), and the search must end within
(log2(n) + 3)^2 + 8 + 4 / (1 - r) clocks for n skipped edges
(tod moving r periods per clock): a fresh crossing after that window must fire. When a
resync has nothing to skip the model stays exact.

Tests: integer and fractional periods with constant and jittery tod increments (every edge's cycle),
periods above one second and 1 PPS, width 0 / width >= period, forward steps past a few and ~10^10
edges, backward steps, steps during a pulse and during a resync, enable/disable and re-arm with a
past start, illegal configurations, random soup.
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

PFNS_W = int(os.environ.get("PARAM_PFNS_W", "32"))
LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
NS = 1 << PFNS_W
SEC = 10**9 * NS
SAT = (1 << 32) - 1


def tod_to_u(w):
    """tod word {sec48, ns32, fns16} -> model units 2^-PFNS_W ns."""
    return (w >> 48) * SEC + ((w >> 16) & 0xFFFFFFFF) * NS + ((w & 0xFFFF) << (PFNS_W - 16))


def u_to_tod(t16):
    """a time in 2^-16 ns -> tod word."""
    sec, r = divmod(t16, 10**9 << 16)
    return (sec << 48) | r


class Cfg:
    def __init__(self, start=(0, 0), period=(0, 1000, 0), width=100):
        self.start, self.period, self.width = start, period, width

    def bad(self):
        return (self.start[1] >= 10**9 or self.period[1] >= 10**9 or self.width >= 10**9
                or self.period == (0, 0, 0))

    def e(self, k):
        return self.start[0] * SEC + self.start[1] * NS + k * self.p()

    def p(self):
        return self.period[0] * SEC + self.period[1] * NS + self.period[2]


class Model:
    def __init__(self, log):
        self.log = log
        self.armed = False
        self.en_prev = 0
        self.out = 0
        self.skip = 0
        self.cfg_err = 0
        self.tod_prev = None
        self.resync = None      # (start cycle, window, unknown) while the search may be running
        self.rs_max_tod = 0
        self.k = 0
        self.fall = 0
        self.fires = []         # (cycle, edge index)
        self.resync_lens = []

    def first_edge_after(self, t):
        """index of the first edge > t (t in model units)."""
        c = self.cfg
        if t < c.e(0):
            return 0
        return (t - c.e(0)) // c.p() + 1

    def start_resync(self, cyc, tod):
        n = self.first_edge_after(tod) - self.k
        window = (n.bit_length() + 3) ** 2 + 8
        if self.resync is not None:
            # a step while a search runs: the block's pending edge is somewhere past edge k. Give the
            # new search its own window on top; after a step back below the latest tod of the search
            # the pending edge is unknown, so only "no pulse except at a fresh edge >= k" and the skip
            # count are checked until the next pulse.
            rs, w, unknown = self.resync
            self.resync = (rs, w + (cyc - rs) + window, unknown or tod < self.rs_max_tod)
            self.rs_max_tod = max(tod, self.rs_max_tod)
        elif n <= 0:
            self.resync = None           # nothing to skip: the block stays exact
        else:
            self.resync = (cyc, window, False)
            self.rs_incr = 0
            self.rs_max_tod = tod

    def process(self, cyc, inp, obs):
        """inputs of cycle cyc (tod word, step, enable, cfg) and the outputs seen in cycle cyc + 1."""
        tod_w, step, en, cfg = inp
        tod = tod_to_u(tod_w)
        got_out, got_skip, got_err = obs
        want_out = self.out
        if not en:
            self.armed, want_out, self.cfg_err, self.resync = False, 0, 0, None
        elif not self.en_prev:
            self.cfg = cfg
            self.cfg_err = int(cfg.bad())
            self.armed = not cfg.bad()
            want_out, self.skip, self.k = 0, 0, 0
            self.arm_cycle = cyc + 1
        elif self.armed:
            fresh = None
            m = self.first_edge_after(self.tod_prev)
            if (not step and cyc != self.arm_cycle and m >= self.k and self.cfg.e(m) <= tod):
                fresh = m
            if step or cyc == self.arm_cycle:
                self.start_resync(cyc, tod)
                want_out = 0 if step else want_out
            if self.resync is None:
                e = self.cfg.e(self.k)
                if not step and e <= tod:
                    assert fresh == self.k, f"cycle {cyc}: model invariant broken"
                    want_out = 1
                    self.fires.append((cyc, self.k))
                    self.fall = e + self.cfg.width * NS
                    self.k += 1
                    assert self.cfg.e(self.k) > tod, "bench: period must exceed the tod increment"
                elif want_out and tod >= self.fall:
                    want_out = 0
            else:
                rs, window, unknown = self.resync
                self.rs_max_tod = max(self.rs_max_tod, tod)
                # tod moving at r periods per clock: the last edges are caught at (1 - r) per clock
                self.rs_incr = max(self.rs_incr, tod - self.tod_prev) if not step else self.rs_incr
                r = self.rs_incr / self.cfg.p()
                window = window + (4 / (1 - r) if r < 1 else float("inf"))
                if got_out:
                    assert fresh is not None, f"cycle {cyc}: pulse during resync is not a fresh edge"
                    self.skip = min(SAT, self.skip + fresh - self.k)
                    self.k = fresh + 1
                    self.fall = self.cfg.e(fresh) + self.cfg.width * NS
                    self.fires.append((cyc, fresh))
                    self.resync_lens.append(cyc - rs)
                    self.resync = None
                    want_out = 1
                else:
                    assert fresh is None or unknown or cyc - rs <= window, \
                        (f"cycle {cyc}: edge {fresh} crossed {cyc - rs} clocks after the resync began, not fired "
                         f"(period {self.cfg.period}, r {r:.3f}, k {self.k}, start {self.cfg.start}, tod {tod})")
                    want_out = 0
        self.out = want_out
        self.en_prev = en
        self.tod_prev = tod
        assert got_out == want_out, f"cycle {cyc}: out {got_out}, want {want_out}"
        assert got_err == self.cfg_err, f"cycle {cyc}: cfg_err {got_err}, want {self.cfg_err}"
        if self.resync is None and self.armed:
            assert got_skip == self.skip, f"cycle {cyc}: skip_cnt {got_skip}, want {self.skip}"


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.model = Model(dut._log)
        Clock(dut.clk, 4, unit="ns").start()
        self.cyc = 0
        self.t16 = 0                   # bench tod in 2^-16 ns
        self.en = 0
        self.cfg = Cfg()
        self.prev = None
        self.drive_cfg()
        dut.enable.value = 0
        dut.tod.value = 0
        dut.tod_step.value = 0

    def drive_cfg(self):
        d, c = self.dut, self.cfg
        d.start_sec.value, d.start_ns.value = c.start
        d.period_sec.value, d.period_ns.value, d.period_fns.value = c.period
        d.width_ns.value = c.width

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        await FallingEdge(self.dut.clk)
        self.dut.rst.value = 0

    async def cycle(self, incr16, step_to=None):
        """One clock: tod advances by incr16 (2^-16 ns) or jumps to step_to (with tod_step)."""
        d = self.dut
        if self.prev is not None:
            obs = (int(d.out.value), int(d.skip_cnt.value), int(d.cfg_err.value))
            self.model.process(self.cyc - 1, self.prev, obs)
        step = step_to is not None
        self.t16 = step_to if step else self.t16 + incr16
        d.tod.value = u_to_tod(self.t16)
        d.tod_step.value = int(step)
        d.enable.value = self.en
        self.drive_cfg()
        self.prev = (u_to_tod(self.t16), int(step), self.en, self.cfg)
        await FallingEdge(d.clk)
        self.cyc += 1

    async def run(self, n, incr16, jitter=0, rng=None):
        for _ in range(n):
            await self.cycle(incr16 + (rng.randrange(-jitter, jitter + 1) if jitter else 0))

    async def arm(self, cfg, incr16):
        self.en = 0
        await self.cycle(incr16)
        self.cfg = cfg
        self.en = 1
        await self.cycle(incr16)


def ns16(ns, frac=0):
    return (ns << 16) + frac


@cocotb.test()
async def test_periods(dut):
    """Integer / fractional / multi-second periods and 1 PPS: every edge at its exact cycle, widths."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(3, "test_periods")
    n = 4 if LONG else 1
    cases = [  # (start offset from now in 2^-16 ns, period, width, tod incr 2^-16 ns, jitter, cycles)
        (ns16(500), (0, 1000, 0), 300, ns16(37, 0x4000), 0, 3000),
        (ns16(77), (0, 333, NS // 3), 100, ns16(6, 0x6666), 0, 3000),         # 333.333.. ns
        (ns16(10), (0, 100, 1), 0, ns16(13, 0x1234), ns16(5), 3000),          # width 0: one-clock pulses
        (ns16(10), (0, 250, NS // 2), 10**6, ns16(31), ns16(7), 2000),          # width > period: stays high
        (ns16(3000), (0, 49, NS - 1), 20, ns16(17), ns16(3), 3000),
        (0, (1, 0, 0), 100_000_000, ns16(9_876_543, 0x8000), 0, 1200),          # 1 PPS, 100 ms
        (ns16(999_000_000), (1, 500_000_001, NS // 7), 999_999_999, ns16(25_000_000), ns16(9_000_000), 1500),
    ]
    for off, per, width, incr, jit, cyc in cases:
        start16 = tb.t16 + 4 * (incr + jit) + off
        sec, r = divmod(start16 >> 16, 10**9)
        await tb.arm(Cfg((sec, r), per, width), incr)
        nf0 = len(tb.model.fires)
        await tb.run(cyc * n, incr, jit, rng)
        edges = len(tb.model.fires) - nf0
        dut._log.info("period %s width %d: %d edges", per, width, edges)
        assert edges >= 10
        assert int(dut.skip_cnt.value) == 0


@cocotb.test()
async def test_steps(dut):
    """Forward steps past a few and ~10^10 edges, backward steps, steps in a pulse and in a resync."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(5, "test_steps")
    incr = ns16(4)
    await tb.arm(Cfg((0, 1000), (0, 100, NS // 4), 30), incr)
    await tb.run(300, incr)
    plan = [ns16(7 * 100 + 3),           # past ~7 edges
            ns16(20),                    # small forward, maybe no edge passed
            -ns16(5000),                 # backward: the pending edge waits where it is
            ns16(3600 * 10**9),          # 1 hour at 100.25 ns: ~3.6e10 edges, skip_cnt saturates
            ns16(1000), -ns16(300), ns16(10**6)]
    for jump in plan:
        await tb.run(rng.randrange(5, 40), incr)
        await tb.cycle(0, step_to=tb.t16 + jump)
        await tb.run(400, incr)
    # a step every few clocks, some while a pulse is high, some while a resync runs
    for _ in range(60):
        await tb.run(rng.randrange(1, 30), incr)
        await tb.cycle(0, step_to=tb.t16 + rng.choice([ns16(rng.randrange(0, 10**6)), -ns16(rng.randrange(0, 2000)),
                                                        ns16(rng.randrange(0, 10**12))]))
    await tb.run(400, incr)
    assert int(dut.skip_cnt.value) == SAT
    # same again with a long period: skip counts exact (no saturation)
    await tb.arm(Cfg((0, 0), (0, 999_999_999, NS - 3), 1000), incr)
    await tb.run(50, incr)
    for jump in [ns16(10**9 * 3600 * 24), ns16(10**9 * 5 + 7), ns16(500_000_000)]:
        await tb.cycle(0, step_to=tb.t16 + jump)
        await tb.run(100, ns16(20_000_000))
    lens = tb.model.resync_lens
    dut._log.info("resyncs: %d, longest %d clocks; skip_cnt %d", len(lens), max(lens), int(dut.skip_cnt.value))
    assert 0 < int(dut.skip_cnt.value) < SAT


@cocotb.test()
async def test_enable(dut):
    """Disable drops out at once; re-arm with a past start skips (counts) the passed edges; bad configs."""
    tb = TB(dut)
    await tb.reset()
    incr = ns16(11, 0x1111)
    tb.t16 = ns16(5 * 10**9)
    await tb.arm(Cfg((5, 2000), (0, 200, 0), 150), incr)
    await tb.run(200, incr)
    for _ in range(3):
        # disable in the middle of a pulse
        while int(dut.out.value) == 0:
            await tb.cycle(incr)
        tb.en = 0
        await tb.run(50, incr)
        assert int(dut.out.value) == 0
        # re-arm with the old start, now in the past: ~N edges skipped, then exact
        await tb.arm(Cfg((5, 2000), (0, 200, 0), 150), incr)
        await tb.run(100, incr)
        assert int(dut.skip_cnt.value) > 0
    for bad in [Cfg((5, 10**9), (0, 200, 0), 1), Cfg((5, 0), (0, 10**9, 0), 1), Cfg((5, 0), (0, 200, 0), 10**9),
                Cfg((5, 0), (0, 0, 0), 1)]:
        await tb.arm(bad, incr)
        await tb.run(30, incr)
        assert int(dut.cfg_err.value) == 1 and int(dut.out.value) == 0
    # config changes while enabled are ignored
    await tb.arm(Cfg((6, 0), (0, 300, 0), 10), incr)
    tb.cfg = Cfg((6, 0), (0, 10**9, 0), 10)
    await tb.run(20, incr)
    tb.cfg = Cfg((6, 0), (0, 300, 0), 10)   # the model reads its config at arming only; keep equal
    await tb.run(200, incr)


@cocotb.test()
async def test_random(dut):
    """Random configs, jittery tod, steps and enable toggles."""
    tb = TB(dut)
    await tb.reset()
    rng = beryl_seed.rng(4, "test_random")
    rounds = 40 if LONG else 12
    for _ in range(rounds):
        incr = rng.choice([ns16(4), ns16(6, 0x6666), ns16(rng.randrange(1, 200), rng.randrange(1 << 16))])
        jit = rng.choice([0, incr // 4])
        pmin = ((incr + jit) >> 16) + 2
        per = rng.choice([(0, rng.randrange(pmin, 4 * pmin), rng.randrange(NS)),
                          (0, rng.randrange(pmin, 100 * pmin), 0),
                          (0, rng.randrange(pmin, 10**9), rng.randrange(NS))])
        width = rng.choice([0, rng.randrange(10**9), per[1] // 2])
        now = tb.t16 >> 16
        start = now + rng.randrange(-10 * per[1], 10 * per[1])
        await tb.arm(Cfg(divmod(max(start, 0), 10**9), per, width), incr)
        for _ in range(rng.randrange(200, 600)):
            r = rng.random()
            if r < 0.005:
                await tb.cycle(0, step_to=max(0, tb.t16 + rng.randrange(-ns16(50 * per[1]), ns16(50 * per[1]))))
            elif r < 0.007:
                tb.en = 0
                await tb.run(3, incr)
                tb.en = 1
            else:
                await tb.run(1, incr, jit, rng)
    dut._log.info("random: %d edges, %d resyncs", len(tb.model.fires), len(tb.model.resync_lens))
    # coverage (seeds 1-5 and the default: 208-595 edges, 10-21 resyncs), each checked by the model
    assert len(tb.model.fires) >= 100 and len(tb.model.resync_lens) >= 4, "random run covered too little"


@pytest.mark.parametrize("pfns_w", [32, 16])
def test_beryl_ptp_perout(pfns_w):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_ptp_perout", "rtl/ptp/beryl_ptp_perout.f", "test_beryl_ptp_perout",
                  Path(__file__).parent, parameters={"PFNS_W": pfns_w})
