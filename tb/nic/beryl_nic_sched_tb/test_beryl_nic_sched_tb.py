# SPDX-License-Identifier: MIT
"""beryl_nic_sched_tb (token-bucket scheduler) against the shared Python TX engine and scheduler-contract
model (../txe_model.py, docs/blocks/nic_core.md, "Scheduler interface").

The engine is a serial byte pipe of CAP bytes per cycle (wire bytes: frame bytes + OVERHEAD_BYTES per
packet) followed by a random latency, so statuses come back out of order. A command takes 1..8 frames
from the queue's backlog (a finite list from doorbells, or an endless generator of 64, 512, 1500 or
mixed sizes) and answers TXS_SENT, or TXS_EMPTY when the backlog is gone (some TXS_ERROR/TXS_DISABLED in
the round-robin test). Checked every cycle: at most one command per queue and MAX_CMDS in flight, no
command for a retired queue, a presented command held until taken, none while sched_enable is low.

Tests: rate 0 behaves as round robin (every queue served, fairness window, bogus statuses counted; no
stalls, doorbell idle, command backpressure, both); long-run rates of several queues (1 %..50 % of the
engine, different frame sizes) within 1 % (table in the log); burst after idle bounded by
burst + one command; unlimited queues take what limited ones leave; configuration readback; a burst
far below rate x command turnaround still gives the rate (tokens earned in flight are kept), every
command conforms to burst + rate x time, and the bucket read back follows a reference bucket
(BucketModel: the documented semantics in exact arithmetic), including saturation in a very long flight.

Rate measurement: a command issued long after the queue's previous status waited for tokens, so its
bucket was just above 0 when it went. Between two such commands the bytes debited equal rate x time up
to the few cycles of the wait-list check, independent of the burst and of how big the commands are
(as long as the queue can use its rate: a queue whose commands earn more during their turnaround than
they cost plus the burst loses the excess, as any token bucket loses what a full bucket cannot hold).
"""
import math
import os
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from txe_model import MODES, SchedBench  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

FRAC = 1 << 24
CAP = 4.0                      # engine capacity, wire bytes per cycle
LONG = int(os.environ.get("BERYL_LONG", "0"))


def rate_fx(frac):
    """Rate field for a fraction of the engine capacity (8.24 bytes per cycle)."""
    return round(frac * CAP * FRAC)


class BucketModel:
    """Reference token bucket of one queue, from the documented semantics (docs/blocks/nic_core.md, "Token
    bucket"), in exact units of 2^-24 bytes: refills at `rate` per cycle; at most `burst` while the queue has
    no command in flight; while one is in flight refills are not capped (its cost is still owed); the
    command's cost is debited when its status comes back and the result capped at the burst; a
    configuration write sets tokens = burst. In flight the bucket saturates at `top` bytes (2^(BURST_W+1)
    less one unit). `lost` counts tokens the cap after a debit threw away (the queue earned more during
    the command than the command cost and the burst together: it could not use its rate).
    """

    def __init__(self, rate, burst, t, top):
        self.rate, self.burst, self.tok, self.t = rate, burst * FRAC, burst * FRAC, t
        self.top = top * FRAC - 1
        self.infl = False
        self.lost = 0

    def _level(self, t):
        tok = self.tok + self.rate * (t - self.t)
        return min(tok, self.top) if self.infl else min(tok, self.burst)

    def _refill(self, t):
        self.tok = self._level(t)
        self.t = t

    def cfg(self, rate, burst, t):
        self._refill(t)
        self.rate, self.burst, self.tok = rate, burst * FRAC, burst * FRAC

    def issue(self, t):
        self._refill(t)
        self.infl = True

    def status(self, t, cost):
        self._refill(t)
        self.infl = False
        if self.rate:
            self.tok -= cost * FRAC
            if self.tok > self.burst:
                self.lost += self.tok - self.burst
                self.tok = self.burst

    def value(self, t):
        """Whole bytes (floor) at t, as the scheduler reads them back."""
        return self._level(t) // FRAC


class Bench(SchedBench):
    """The shared engine and contract model plus the token bucket's configuration port; with `models`
    (queue -> BucketModel, made by cfg_write(..., model=True)), every command, status and write of those
    queues also goes to their reference bucket, and every read of them is recorded with the model's value
    for check_reads()."""

    # A read is compared unless it comes within 2 x SKEW cycles after a status or write of its queue: the
    # bench sees those a few cycles before the scheduler's pipeline applies them, so the order is not known.
    # Refill differences from those few cycles are within rate x SKEW.
    SKEW = 16

    def __init__(self, dut, seed, cap=None, lat_max=20):
        super().__init__(dut, seed, cap=cap, lat_max=lat_max, batch_max=8,
                         extra_inputs=("cfg_valid", "cfg_write", "cfg_qidx", "cfg_rate", "cfg_burst"))
        self.cfg_list = deque()
        self.cfg_drv = None
        self.cfg_rsp = []
        self.models = {}
        self.model_ev = {}           # q -> edge of its last status or configuration write
        self.rd_q = deque()          # queues of the reads not answered yet, in order
        self.model_reads = []        # (q, edge, read tokens, model tokens, in flight)
        self.pres_log = {}           # q -> edges at which its commands were presented (issued the edge before)
        self.cost = {}               # q -> wire bytes of its command in flight
        self.extra_lat = {}          # q -> cycles added to the latency of its next command (once)

    async def reset(self):
        await super().reset()
        assert self.dut.cfg_ready.value == 1

    def cfg_write(self, q, rate, burst, model=False):
        self.cfg_list.append((1, q, rate, burst, model))

    def cfg_read(self, q):
        self.cfg_list.append((0, q, 0, 0, False))

    def drive(self):
        d = self.dut
        if self.cfg_drv is None and self.cfg_list:
            self.cfg_drv = self.cfg_list.popleft()
            w, q, rate, burst, _ = self.cfg_drv
            d.cfg_write.value, d.cfg_qidx.value, d.cfg_rate.value, d.cfg_burst.value = w, q, rate, burst
        d.cfg_valid.value = int(self.cfg_drv is not None)

    def sample(self):
        d = self.dut
        if self.cfg_drv is not None and d.cfg_ready.value == 1:
            w, q, rate, burst, model = self.cfg_drv
            if w:
                if model:
                    self.models[q] = BucketModel(rate, burst, self.now, 1 << (len(d.cfg_burst) + 1))
                elif q in self.models:
                    self.models[q].cfg(rate, burst, self.now)
                self.model_ev[q] = self.now
            else:
                self.rd_q.append(q)
            self.cfg_drv = None
        if d.cfg_rd_valid.value == 1:
            tok = int(d.cfg_rd_tokens.value)
            tok = tok - (1 << 32) if tok >> 31 else tok
            self.cfg_rsp.append((int(d.cfg_rd_rate.value), int(d.cfg_rd_burst.value), tok, self.now))
            q = self.rd_q.popleft()
            m = self.models.get(q)
            if m is not None and self.now - self.model_ev.get(q, -10**9) > 2 * self.SKEW:
                self.model_reads.append((q, self.now, tok, m.value(self.now), m.infl,
                                         m.rate * self.SKEW // FRAC + 2, m.burst // FRAC))

    # the reference buckets follow the contract model's events
    def on_present(self, q):
        self.pres_log.setdefault(q, []).append(self.now)
        if q in self.models:
            self.models[q].issue(self.now)

    def on_cmd(self, q):
        super().on_cmd(q)
        self.cost[q] = self.cmd_log[q][-1][1]
        extra = self.extra_lat.pop(q, 0)
        if extra:
            due, *rest = self.pending_sts[-1]
            self.pending_sts[-1] = (due + extra, *rest)

    def on_sts(self, q, res):
        super().on_sts(q, res)
        if q in self.models:
            self.models[q].status(self.now, self.cost[q])
            self.model_ev[q] = self.now

    def busy(self):
        return bool(self.cfg_list) or self.cfg_drv is not None or bool(self.rd_q)

    def check_reads(self):
        for q, t, tok, want, infl, slack, _ in self.model_reads:
            assert abs(tok - want) <= slack, \
                (f"queue {q} edge {t}: tokens {tok}, reference bucket {want} (+-{slack}), "
                 f"{'in flight' if infl else 'no command in flight'}")

    def check_conform(self, q, rate, burst, k0=0):
        """Token-bucket conformance of queue q's commands k0.. (one configuration): for any two commands i < j,
        the bytes of commands i..j-1 are at most burst + rate x (edge_j - edge_i). Holds because the bucket is
        at most the burst when a command is issued, not negative when the next one is, and all of i..j-1 are
        debited by then (one command per queue in flight). Returns the largest excess over rate x time."""
        pres = self.pres_log.get(q, [])[k0:]
        wires = [e[1] for e in self.cmd_log.get(q, [])[k0:]]
        r = rate / FRAC
        done = 0.0
        low = math.inf
        worst = -math.inf
        for t, w in zip(pres, wires):
            low = min(low, done - r * t)
            worst = max(worst, done - r * t - low)
            assert done - r * t - low <= burst + 2, \
                f"queue {q}: {done - r * t - low:.0f} bytes over rate x time before edge {t}, burst {burst}"
            done += w
        return worst

    # ------------------------------------------------------------ rate measurement
    def measure(self, q, t0, thr=100):
        """Wire bytes per cycle between the first and the last command after t0 that waited for tokens."""
        log = [e for e in self.cmd_log.get(q, []) if e[0] >= t0]
        waited = [i for i, e in enumerate(log) if e[0] - e[2] > thr]
        assert len(waited) >= 2, f"queue {q}: fewer than two commands waited for tokens"
        a, b = waited[0], waited[-1]
        nbytes = sum(e[1] for e in log[a:b])
        return nbytes / (log[b][0] - log[a][0]), b - a


FRAMES = {
    "64": lambda r: (lambda: 64),
    "512": lambda r: (lambda: 512),
    "1500": lambda r: (lambda: 1500),
    "mixed": lambda r: (lambda: r.choice([64, 64, 128, 512, 576, 1024, 1500, r.randint(60, 1514)])),
}


def table(dut, title, rows):
    dut._log.info("%s", title)
    dut._log.info("  queue  frames  set %%cap  set B/cyc   measured B/cyc   error %%   commands")
    for q, fr, frac, meas, n in rows:
        setv = rate_fx(frac) / FRAC
        dut._log.info("  %5d  %6s  %8.1f  %9.4f  %15.4f  %8.3f  %9d", q, fr, frac * 100, setv, meas,
                      (meas / setv - 1) * 100, n)


# ================================================================ tests


@cocotb.test()
async def test_unlimited_round_robin(dut):
    """Rate 0: random doorbells, out-of-order statuses, errors, disabled queues, bogus statuses, all four
    stall modes; every queue served, one command per queue, round-robin fairness."""
    b = Bench(dut, beryl_seed.seed(1, "test_unlimited_round_robin"))
    await b.reset()
    nq, r = b.nq, b.rng
    b.disabled = set(r.sample(range(nq), max(1, nq // 16)))
    b.err_rate, b.bad_rate, b.check_fair = 0.05, 0.03, True
    hot = r.sample(range(nq), 3)
    n_db = 2000 if LONG else 400
    for i, (idle, bp) in enumerate(MODES):
        b.idle, b.bp, b.lat_max = idle, bp, [30, 5, 300, 12][i]
        made = 0

        while made < n_db:
            if r.random() < 0.2:
                q = r.choice(hot) if r.random() < 0.5 else r.randrange(nq)
                b.doorbell(q, [r.randint(60, 1514) for _ in range(r.randint(0, 3))])
                made += 1
            if r.random() < 0.01:
                b.en ^= 1
            await b.step()
        b.en = 1
        await b.drain()
        b.check_end()
        dut._log.info("mode idle=%.1f bp=%.1f: %d commands, max in flight %d, edge %d",
                      idle, bp, b.cmds, b.max_inflight, b.now)
    assert b.max_inflight == b.max_cmds


async def rate_run(dut, seed, specs, unlimited=(), cycles=150000, bp=0.1, burst=65535):
    """specs: [(queue, frames, fraction of CAP)], unlimited: [(queue, frames)]; endless backlogs."""
    b = Bench(dut, seed, cap=CAP, lat_max=20)
    await b.reset()
    b.bp = bp
    for q, fr, frac in specs:
        b.cfg_write(q, rate_fx(frac), burst)
        b.gen[q] = FRAMES[fr](b.rng)
    for q, fr in unlimited:
        b.gen[q] = FRAMES[fr](b.rng)
    await b.cycles(20)
    for q, *_ in list(specs) + list(unlimited):
        b.doorbell(q, [])
    # warm-up: the initial bursts drain (65535 bytes at 1 % of 4 B/cycle take 1.6M cycles, so the
    # measurement starts at the first waited command, not at a fixed time)
    t0 = b.now + 2000
    await b.cycles(2000)
    busy0 = (b.now, b.engine_busy)
    await b.cycles(cycles)
    rows = []
    for q, fr, frac in specs:
        meas, n = b.measure(q, t0)
        rows.append((q, fr, frac, meas, n))
    return b, rows, busy0


def check_rows(rows, tol=0.01):
    for q, fr, frac, meas, n in rows:
        setv = rate_fx(frac) / FRAC
        assert abs(meas / setv - 1) <= tol, f"queue {q} ({fr}): {meas:.4f} B/cycle, set {setv:.4f}"


RATE_SPECS = [(3, "64", 0.01), (9, "mixed", 0.05), (17, "1500", 0.10), (30, "512", 0.20), (41, "1500", 0.50)]


@cocotb.test()
async def test_rates(dut):
    """Five backlogged queues at 1 %..50 % of the engine, 64/512/1500/mixed frames: each within 1 %."""
    b, rows, _ = await rate_run(dut, beryl_seed.seed(2, "test_rates"), RATE_SPECS, burst=16000,
                                cycles=1000000 if LONG else 300000)
    table(dut, "rate-limited queues only (engine %.0f B/cycle, OVERHEAD_BYTES %d)" % (CAP, b.ovh), rows)
    check_rows(rows)


@cocotb.test()
async def test_mixed_unlimited(dut):
    """Limited queues keep their rates beside unlimited ones; the unlimited ones fill the engine."""
    limited = [(5, "1500", 0.10), (6, "mixed", 0.05), (7, "512", 0.20)]
    unl = [(1, "64"), (2, "512")]
    b, rows, (tb0, busy0) = await rate_run(dut, beryl_seed.seed(3, "test_mixed_unlimited"), limited, unlimited=unl,
                                           burst=16000, cycles=600000 if LONG else 200000)
    table(dut, "limited beside unlimited queues", rows)
    check_rows(rows)
    span = CAP * (b.now - tb0)
    util = (b.engine_busy - busy0) * CAP / span
    # shares of the engine handed out in the same time (the limited ones include what is left of their
    # initial bursts)
    lim = sum(e[1] for q, *_ in limited for e in b.cmd_log[q] if e[0] >= tb0) / span
    rest = sum(e[1] for q, _ in unl for e in b.cmd_log[q] if e[0] >= tb0) / span
    dut._log.info("engine utilisation %.3f: limited queues %.3f of capacity, unlimited %.3f", util, lim, rest)
    assert util > 0.97, f"engine only {util:.3f} busy with unlimited queues backlogged"
    assert lim + rest > 0.97, "unlimited queues did not take the rest"


@cocotb.test()
async def test_burst(dut):
    """After idle a queue sends its burst at once, then the rate governs: at any command, the bytes of
    the earlier commands never exceed burst + rate x time (so at most burst + one command goes out)."""
    b = Bench(dut, beryl_seed.seed(4, "test_burst"), cap=CAP, lat_max=10)
    await b.reset()
    q, frac, burst = 12, 0.02, 20000
    rate = rate_fx(frac) / FRAC
    b.cfg_write(q, rate_fx(frac), burst)
    for rnd in range(2):
        await b.cycles(30 if rnd == 0 else int(burst / rate) + 1000)    # second round: idle long enough
        t_db = b.now + 1
        first = len(b.cmd_log.get(q, []))
        b.gen[q] = FRAMES["512"](b.rng)
        b.doorbell(q, [])
        await b.cycles(60000)
        del b.gen[q]
        await b.drain()
        log = b.cmd_log[q][first:]
        sent = 0
        waited_at = None
        for t, wire, prev in log:
            assert sent <= burst + rate * (t - t_db) + 1, \
                f"round {rnd}: {sent} bytes before edge {t}, allowed {burst + rate * (t - t_db):.0f}"
            if waited_at is None and t - prev > 100:
                waited_at = sent
            sent += wire
        assert waited_at is not None and waited_at >= burst - 8 * 1500, f"round {rnd}: burst not used"
        dut._log.info("round %d: %d bytes went before the first wait (burst %d); %d bytes in %d cycles",
                      rnd, waited_at, burst, sent, b.now - t_db)


@cocotb.test()
async def test_cfg_readback(dut):
    """Configuration writes read back; tokens = burst after a write, then debited by statuses."""
    b = Bench(dut, beryl_seed.seed(5, "test_cfg_readback"), lat_max=10)
    await b.reset()
    r = b.rng
    qs = r.sample(range(b.nq), min(b.nq, 32))
    cfg = {q: (r.randrange(1 << 32), r.randrange(1, 1 << 24)) for q in qs}
    cfg[qs[0]] = (1, 100)             # slowest rate
    for q in qs:
        b.cfg_write(q, *cfg[q])
    for q in qs:
        b.cfg_read(q)
    await b.drain()
    assert len(b.cfg_rsp) == len(qs)
    for q, (rate, burst, tok, _) in zip(qs, b.cfg_rsp):
        assert (rate, burst) == cfg[q], f"queue {q}: read {rate:#x}/{burst}, wrote {cfg[q]}"
        assert tok == burst, f"queue {q}: tokens {tok} after a write, burst {burst}"
    # latency on an idle scheduler (header comment of the RTL)
    q2 = qs[2]
    b.cfg_write(q2, 0, 0)
    await b.drain()
    b.doorbell(q2, [100])
    await b.drain()
    lat = b.cmd_log[q2][0][0] - b.last_db[q2]
    dut._log.info("doorbell to command: %d cycles", lat)
    assert lat <= 12
    # the slow queue sends a 3000-byte frame: its bucket goes to 100 - (3000 + overhead) and stays there
    q = qs[0]
    b.doorbell(q, [3000])
    await b.drain()
    b.cfg_rsp.clear()
    b.cfg_read(q)
    await b.drain()
    rate, burst, tok, t = b.cfg_rsp[0]
    want = 100 - (3000 + b.ovh)
    assert rate == 1 and burst == 100
    assert tok == want, f"tokens {tok}, expected {want}"
    # it now waits for tokens for ever, without holding up others; made unlimited, it goes at once
    b.doorbell(q, [200, 300])
    other = qs[1]
    b.cfg_write(other, 0, 0)
    b.doorbell(other, [100] * 20)
    await b.cycles(300)
    assert len(b.backlog[q]) == 2 and not b.backlog[other], "waiting queue held up another"
    b.cfg_write(q, 0, 100)
    await b.drain()
    assert not b.backlog[q], "queue made unlimited did not go"
    # reads are ordered and do not disturb other queues; unknown statuses counted
    b.bad_rate = 0.2
    await b.cycles(300)
    b.bad_rate = 0.0
    await b.drain()
    b.check_end()


@cocotb.test()
async def test_db_while_presented(dut):
    """A doorbell that comes while the queue's command is presented but not yet taken is served by that
    command (the engine reads the producer pointer when it takes it): no second command after an EMPTY or
    DISABLED status. The second doorbell 20, 3, 1 and 0 cycles before the command is taken; a rate-limited
    and an unlimited queue."""
    b = Bench(dut, beryl_seed.seed(7, "test_db_while_presented"), lat_max=10)
    await b.reset()
    q_lim, q_unl = 5, 6
    b.cfg_write(q_lim, rate_fx(0.5), 20000)
    await b.drain()
    b.disabled = {q_lim, q_unl}             # every command answers DISABLED: the queue retires
    for q in (q_lim, q_unl):
        for hold in (20, 3, 1, 0):          # cycles the command stays presented after the second doorbell
            first = len(b.cmd_log.get(q, []))
            b.bp = 1.0
            b.doorbell(q, [])
            while not (b.dut.tx_cmd_valid.value == 1 and int(b.dut.tx_cmd_qidx.value) == q):
                await b.step()
            b.doorbell(q, [])
            while b.db_list or b.db_drv is not None:
                await b.step()
            await b.cycles(hold)
            b.bp = 0.0
            await b.drain()
            n = len(b.cmd_log[q]) - first
            assert n == 1, f"queue {q}, hold {hold}: {n} commands for two doorbells, one while presented"
    b.check_end()


@cocotb.test()
async def test_turnaround(dut):
    """A burst (2000 bytes) far below rate x command turnaround: tokens earned while a command is in flight
    are kept, so the long-term rate is the setting (within 1 %; the RTL before this test capped them at
    the burst during the flight: queue 3 at -12.3 %). Every command is checked for token-bucket
    conformance (any window: burst + rate x time), and the bucket is read back every few hundred cycles
    and checked against the reference model (above the burst only while a command is in flight), through:
    backlogged 1500-byte commands with up to 2000 cycles of latency and command backpressure; small
    commands that cannot use the rate, then short latency (tokens above the burst are not saved up);
    doorbells and sched_enable toggles while in flight; a configuration write while in flight; a
    100 000-cycle turnaround at the highest rate, which saturates the bucket; idle."""
    b = Bench(dut, beryl_seed.seed(6, "test_turnaround"), cap=CAP, lat_max=2000)
    await b.reset()
    r = b.rng
    burst = 2000
    specs = [(3, "1500", 0.25), (9, "1500", 0.10)]
    for q, fr, frac in specs:
        b.cfg_write(q, rate_fx(frac), burst, model=True)
        b.gen[q] = FRAMES[fr](r)
    b.bp = 0.1
    await b.cycles(20)
    for q, *_ in specs:
        b.doorbell(q, [])

    async def run(n, reads_every=(200, 400)):
        end = b.now + n
        while b.now < end:
            nxt = min(end, b.now + r.randint(*reads_every))
            await b.cycles(nxt - b.now)
            for q, *_ in specs:
                b.cfg_read(q)

    # 1. backlogged, long latency: rates
    t0 = b.now + 2000
    await run(2000 + (1000000 if LONG else 300000))
    rows = [(q, fr, frac, *b.measure(q, t0)) for q, fr, frac in specs]
    table(dut, "burst %d B, command latency 1..%d cycles after the engine" % (burst, b.lat_max), rows)
    for q, *_ in specs:
        m = b.models[q]
        dut._log.info("queue %d: the reference bucket's cap after a debit dropped %.0f bytes; %d commands, "
                      "%d bytes", q, m.lost / FRAC, len(b.cmd_log[q]), sum(e[1] for e in b.cmd_log[q]))
    check_rows(rows)
    b.check_reads()
    # 2. queue 3: commands of 64-byte frames with long latency (the rate is out of its reach: tokens cap at
    # the burst after each debit), doorbells and enable toggles meanwhile; then 1500-byte frames, short latency
    b.gen[3] = FRAMES["64"](r)
    b.lat_max = 3000
    for _ in range(30):
        await run(2000)
        b.doorbell(3, [])
        if r.random() < 0.3:
            b.en = 0
            await b.cycles(r.randint(1, 300))
            b.en = 1
    b.gen[3] = FRAMES["1500"](r)
    b.lat_max = 10
    await run(40000, (50, 150))
    for q, fr, frac in specs:
        worst = b.check_conform(q, rate_fx(frac), burst)
        dut._log.info("queue %d: %d commands conform to burst %d + rate x time (largest excess %.0f bytes)",
                      q, len(b.cmd_log[q]), burst, worst)
    # 3. a write while a command is in flight refills to the new burst; the flight keeps earning
    q = 9
    b.extra_lat[q] = 20000
    while q not in b.inflight or b.extra_lat:
        await b.step()
    await b.cycles(1000)
    b.cfg_write(q, rate_fx(0.05), 3000)
    await run(15000, (100, 300))
    # 4. the highest rate and the largest burst through a 100000-cycle turnaround: the bucket saturates at
    # 2^(BURST_W+1) bytes in flight and is at the burst after the debit (queue 9 idles meanwhile)
    bw = len(dut.cfg_burst)
    big = (1 << bw) - 1
    del b.gen[3], b.gen[9]
    await b.drain()
    b.cfg_write(3, (1 << 32) - 1, big)
    b.extra_lat[3] = 100000
    b.doorbell(3, [1500] * 4)
    await run(110000, (5000, 10000))
    top = [e for e in b.model_reads if e[0] == 3 and e[4] and e[2] == (1 << (bw + 1)) - 1]
    assert top, "no read of a saturated bucket"
    await b.drain()
    # 5. idle: nothing saved above the burst
    for q, want in ((3, big), (9, 3000)):
        b.cfg_read(q)
        await b.drain()
        assert b.cfg_rsp[-1][2] == want, f"queue {q}: idle bucket {b.cfg_rsp[-1][2]}, burst {want}"
    b.check_end()
    b.check_reads()
    infl = [e for e in b.model_reads if e[4]]
    over = [e for e in infl if e[2] > e[6]]
    dut._log.info("%d reads checked against the reference bucket (%d in flight, %d of those above the burst, "
                  "%d saturated)", len(b.model_reads), len(infl), len(over), len(top))
    assert len(over) > 20, "too few reads of a bucket above its burst"


@pytest.mark.parametrize("queues,cmds,ovh", [(64, 8, 24)] + ([(4096, 8, 0)] if LONG else []))
def test_beryl_nic_sched_tb(queues, cmds, ovh):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_sched_tb", "rtl/nic/beryl_nic_sched_tb.f", "test_beryl_nic_sched_tb",
                  Path(__file__).parent,
                  parameters={"QUEUE_COUNT": queues, "MAX_CMDS": cmds, "OVERHEAD_BYTES": ovh})
