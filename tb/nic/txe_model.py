# SPDX-License-Identifier: MIT
"""The TX engine side of the scheduler interface (docs/blocks/nic_core.md, "Scheduler interface") and a
checker of the scheduler contract, shared by the scheduler unit tests (round robin, token bucket, TDMA).

Engine model: a queue's backlog is a list of frame sizes (added by a doorbell before its event reaches
the scheduler, as the queue manager does) or an endless generator. A command takes 1..batch_max frames
(or none: EMPTY; a disabled queue answers DISABLED; with err_rate, some commands fail with ERROR) and
answers after a random latency, so statuses come back out of order; with `cap` set, frames go through a
serial pipe of `cap` wire bytes per cycle (frame + `ovh` bytes) before the latency. One status per cycle,
a random one among those due; bogus statuses (for queues with no command in flight) at `bad_rate`.

Contract, checked every cycle: at most one command per queue and at most MAX_CMDS in flight; no command
for a retired queue (EMPTY/DISABLED with no doorbell since the command was taken); a presented command is
held until taken; no new command while sched_enable was low; with `check_fair`, round robin: between a
queue's re-queueing status and its next command every other queue gets at most one command. At the end:
every frame of an enabled queue sent, every doorbell followed by a command, bad_sts_count equal to the
bogus statuses sent.

Subclasses drive their own inputs in `drive()` (before the clock edge), observe in `sample()` and check
each newly presented command in `on_present(q)`; `windows` can be cleared by a subclass when its notion
of a fairness round restarts.
"""
import math
import os
import random
from collections import deque

from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

TXS_SENT, TXS_EMPTY, TXS_DISABLED, TXS_ERROR = 0, 1, 2, 3
MODES = [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)]     # (doorbell idle, command backpressure)

_INPUTS = ("db_evt_valid", "db_evt_qidx", "tx_cmd_ready", "tx_sts_valid", "tx_sts_qidx", "tx_sts_result",
           "tx_sts_pkts", "tx_sts_bytes")


class SchedBench:
    def __init__(self, dut, seed, cap=None, lat_max=20, batch_max=8, extra_inputs=()):
        self.dut = dut
        self.rng = random.Random(seed)
        self.nq = 1 << len(dut.tx_cmd_qidx)
        self.max_cmds = int(os.environ.get("PARAM_MAX_CMDS", "8"))
        self.ovh = int(os.environ.get("PARAM_OVERHEAD_BYTES", "0"))
        # engine
        self.cap = cap
        self.lat_max = lat_max
        self.batch_max = batch_max
        self.err_rate = 0.0
        self.backlog = [deque() for _ in range(self.nq)]
        self.gen = {}                            # q -> frame size generator (endless backlog)
        self.disabled = set()
        self.pending_sts = []                    # (due, q, result, pkts, bytes)
        self.engine_free = 0.0
        self.engine_busy = 0.0                   # wire bytes / cap handed to the engine
        # contract
        self.retired = [True] * self.nq
        self.inflight = {}                       # q -> a doorbell came while in flight
        self.db_list = deque()
        self.db_drv = None
        self.last_db = {}
        self.last_cmd = {}
        self.last_sts = {}
        self.cmd_log = {}                        # q -> [(edge, wire bytes, previous status or doorbell edge)]
        self.windows = {}
        self.check_fair = False
        self.bad_sent = 0
        self.bad_rate = 0.0
        self.settling = False                    # end of a drain: no bogus statuses (counters settle)
        self.bp = 0.0
        self.idle = 0.0
        self.en = 1
        self.now = 0
        self.max_inflight = 0
        self.cmds = 0
        self.prev = None                         # (valid, ready, qidx, enable) of the previous cycle
        for name in _INPUTS + tuple(extra_inputs):
            getattr(dut, name).value = 0
        dut.sched_enable.value = 1

    async def reset(self):
        d = self.dut
        Clock(d.clk, 4, unit="ns").start()
        d.rst.value = 1
        await ClockCycles(d.clk, 3)
        d.rst.value = 0
        # the state RAM clears for QUEUE_COUNT cycles after reset
        await ClockCycles(d.clk, self.nq + 2)
        await ReadOnly()
        assert d.db_evt_ready.value == 1
        assert d.tx_cmd_valid.value == 0

    # ------------------------------------------------------------ stimulus
    def doorbell(self, q, sizes):
        self.backlog[q].extend(sizes)
        self.db_list.append(q)

    # ------------------------------------------------------------ engine
    def engine(self, q):
        """What the engine does with a command for q (decided when it takes the command)."""
        r = self.rng
        sizes = []
        if q in self.disabled:
            res = TXS_DISABLED
        elif q in self.gen:
            sizes = [self.gen[q]() for _ in range(r.randint(1, self.batch_max))]
            res = TXS_SENT
        elif not self.backlog[q]:
            res = TXS_EMPTY
        elif r.random() < self.err_rate:
            sizes = [self.backlog[q].popleft()]
            res = TXS_ERROR
        else:
            n = min(len(self.backlog[q]), r.randint(1, self.batch_max))
            sizes = [self.backlog[q].popleft() for _ in range(n)]
            res = TXS_EMPTY if not self.backlog[q] and r.random() < 0.5 else TXS_SENT
        return res, sizes

    # ------------------------------------------------------------ contract
    def on_cmd(self, q):
        assert q not in self.inflight, f"queue {q}: second command while one is in flight"
        assert len(self.inflight) < self.max_cmds, "more than MAX_CMDS commands in flight"
        assert not self.retired[q], f"queue {q}: command for a retired queue (edge {self.now})"
        self.inflight[q] = False
        self.max_inflight = max(self.max_inflight, len(self.inflight))
        self.cmds += 1
        self.last_cmd[q] = self.now
        if self.check_fair:
            for a, cnt in self.windows.items():
                if a != q:
                    cnt[q] = cnt.get(q, 0) + 1
                    assert cnt[q] <= 1, f"unfair: queue {q} served twice while re-queued queue {a} waited"
            self.windows.pop(q, None)
        res, sizes = self.engine(q)
        nbytes = sum(sizes)
        wire = nbytes + len(sizes) * self.ovh
        r = self.rng
        if self.cap is None:
            due = self.now + r.randint(1, self.lat_max)
        else:
            start = max(float(self.now), self.engine_free)
            self.engine_free = start + wire / self.cap
            self.engine_busy += wire / self.cap
            due = math.ceil(self.engine_free) + r.randint(1, self.lat_max)
        self.pending_sts.append((due, q, res, len(sizes), nbytes))
        self.cmd_log.setdefault(q, []).append((self.now, wire, self.last_sts.get(q, self.last_db.get(q, 0))))

    def on_db(self, q):
        self.last_db[q] = self.now
        if q in self.inflight:
            self.inflight[q] = True
        else:
            if self.retired[q]:
                self.last_sts[q] = self.now      # ready since now (for the token-bucket wait measurement)
            self.retired[q] = False

    def on_sts(self, q, res):
        db = self.inflight.pop(q)
        self.last_sts[q] = self.now
        if res in (TXS_SENT, TXS_ERROR) or db:
            self.windows[q] = {}
        else:
            self.retired[q] = True

    # ------------------------------------------------------------ hooks
    def drive(self):
        """Drive subclass inputs for the coming edge."""

    def sample(self):
        """Observe subclass outputs (ReadOnly phase before the edge)."""

    def on_present(self, q):
        """A new command for q is presented this cycle."""

    # ------------------------------------------------------------ one clock cycle
    async def step(self):
        d, r = self.dut, self.rng
        await FallingEdge(d.clk)
        self.now += 1
        if self.db_drv is None and self.db_list and r.random() >= self.idle:
            self.db_drv = self.db_list.popleft()
        d.db_evt_valid.value = int(self.db_drv is not None)
        if self.db_drv is not None:
            d.db_evt_qidx.value = self.db_drv
        rdy = int(r.random() >= self.bp)       # kept: reading back an input written this phase gives the old value
        d.tx_cmd_ready.value = rdy
        d.sched_enable.value = self.en
        self.drive()
        sts = None
        bad = None
        due = [s for s in self.pending_sts if s[0] <= self.now] if self.pending_sts else []
        if due:
            sts = r.choice(due)
            self.pending_sts.remove(sts)
            d.tx_sts_valid.value = 1
            d.tx_sts_qidx.value, d.tx_sts_result.value = sts[1], sts[2]
            d.tx_sts_pkts.value, d.tx_sts_bytes.value = sts[3], sts[4]
        elif self.bad_rate and not self.settling and r.random() < self.bad_rate:
            # a queue with no command in flight, and not the one that may be taken this edge
            # (a presented command not taken yet is not in flight: a status for it is bad)
            presented = int(d.tx_cmd_qidx.value) if d.tx_cmd_valid.value == 1 else None
            cand = r.randrange(self.nq)
            if presented is not None and not rdy and r.random() < 0.3:
                cand, presented = presented, None
            if cand not in self.inflight and cand != presented:
                bad = cand
                d.tx_sts_valid.value = 1
                d.tx_sts_qidx.value, d.tx_sts_result.value = bad, r.randrange(4)
                d.tx_sts_pkts.value, d.tx_sts_bytes.value = r.randrange(256), r.randrange(1 << 32)
            else:
                d.tx_sts_valid.value = 0
        else:
            d.tx_sts_valid.value = 0
        await ReadOnly()
        valid = d.tx_cmd_valid.value == 1
        qidx = int(d.tx_cmd_qidx.value) if valid else None
        if self.prev is not None:
            pv, pr, pq, pen = self.prev
            if pv and not pr:
                assert valid and qidx == pq, "command changed or dropped before it was taken"
            elif valid:
                assert pen, "new command while sched_enable was low"
                self.on_present(qidx)
        elif valid:
            self.on_present(qidx)
        self.prev = (valid, rdy, qidx, self.en)
        self.sample()
        # handshakes of this edge, in the contract's order: command, doorbell, status
        if valid and rdy:
            self.on_cmd(qidx)
        if self.db_drv is not None and d.db_evt_ready.value == 1:
            self.on_db(self.db_drv)
            self.db_drv = None
        if sts is not None:
            self.on_sts(sts[1], sts[2])
        if bad is not None:
            self.bad_sent += 1
        return valid

    async def cycles(self, n):
        for _ in range(n):
            await self.step()

    def busy(self):
        """Subclass work still outstanding (inputs not yet presented)."""
        return False

    async def drain(self, more=lambda: False, limit=400000):
        """Run until nothing is pending or in flight for 40 cycles; the last 20 send no bogus statuses, so
        bad_sts_count has counted every one sent when this returns."""
        quiet = 0
        start = self.now
        while quiet <= 40:
            self.settling = quiet > 20
            valid = await self.step()
            assert self.now - start < limit, "bench timed out"
            busy = (valid or self.inflight or self.db_list or self.db_drv is not None or self.busy() or more())
            quiet = 0 if busy else quiet + 1
        self.settling = False

    def check_end(self):
        d = self.dut
        for q in range(self.nq):
            if q not in self.disabled:
                assert not self.backlog[q], f"queue {q}: {len(self.backlog[q])} frames never sent"
            if q in self.last_db:
                assert self.last_cmd.get(q, -1) >= self.last_db[q], f"queue {q}: doorbell not served"
        assert d.tx_cmd_valid.value == 0
        assert int(d.bad_sts_count.value) == self.bad_sent, \
            f"bad_sts_count {int(d.bad_sts_count.value)}, sent {self.bad_sent}"
