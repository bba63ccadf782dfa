# SPDX-License-Identifier: MIT
"""beryl_nic_sched_rr against the shared Python TX engine and scheduler-contract model (../txe_model.py,
docs/blocks/nic_core.md, "Scheduler interface").

A doorbell adds 0-3 packets to the queue (before its event reaches the scheduler, as the queue manager
does). A command takes 1-4 packets (or none: EMPTY; disabled queues answer DISABLED; 5 % of commands fail
with ERROR) and answers after a random latency, so statuses come back out of order. Random doorbells hit
queued, in-flight and idle queues; bogus statuses are mixed in.

Checked every cycle: at most one command per queue and at most MAX_CMDS in flight; no command for a
queue the contract says is retired (EMPTY/DISABLED with no doorbell since it was issued); no new command
while sched_enable is low; a presented command is held until taken; round-robin fairness: between a
queue's re-queueing status and its next command every other queue gets at most one command. At the
end: all packets of enabled queues sent, every doorbell followed by a command, the scheduler idle,
bad_sts_count equal to the bogus statuses. Runs with no stalls, doorbell idle, command backpressure,
and both.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from txe_model import MODES, SchedBench  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402


class Bench(SchedBench):
    """The shared engine model with round robin's settings: 1-4 frames per command, 5 % ERROR, fairness."""

    def __init__(self, dut, seed):
        super().__init__(dut, seed, batch_max=4)
        self.err_rate = 0.05
        self.check_fair = True

    def doorbell(self, q, n):
        super().doorbell(q, [700] * n)

    async def run(self, n_db, idle, bp, gen_rate=0.3, hot=(), en_toggle=0.0, bad_rate=0.03):
        r = self.rng
        self.idle, self.bp, self.bad_rate = idle, bp, bad_rate
        made = 0
        while made < n_db:
            # new doorbells (packets appear in the queue before the event)
            if r.random() < gen_rate:
                q = r.choice(hot) if hot and r.random() < 0.5 else r.randrange(self.nq)
                self.doorbell(q, r.randint(0, 3))
                made += 1
            if en_toggle and r.random() < en_toggle:
                self.en ^= 1
            await self.step()
        self.en = 1
        await self.drain()


@cocotb.test()
async def test_random(dut):
    """Random doorbells (a few hot queues), out-of-order statuses, all four stall modes."""
    b = Bench(dut, beryl_seed.seed(1, "test_random"))
    await b.reset()
    nq = b.nq
    b.disabled = set(b.rng.sample(range(nq), max(1, nq // 16)))
    hot = b.rng.sample(range(nq), 3)
    n_db = int(os.environ.get("SCHED_N_DB", "1500"))
    for i, (idle, bp) in enumerate(MODES):
        b.lat_max = [30, 5, 60, 12][i]
        await b.run(n_db, idle, bp, hot=hot, en_toggle=0.01)
        b.check_end()
        dut._log.info("mode idle=%.1f bp=%.1f: %d commands, max in flight %d, edge %d",
                      idle, bp, b.cmds, b.max_inflight, b.now)
    # with slow statuses the in-flight limit must be reached, and never passed (checked per command)
    assert b.max_inflight == b.max_cmds


@cocotb.test()
async def test_burst_all_queues(dut):
    """Doorbells for many queues while disabled, then enable: every queue served, FIFO order fair."""
    b = Bench(dut, beryl_seed.seed(2, "test_burst_all_queues"))
    await b.reset()
    b.lat_max = 20
    b.en = 0
    n = min(b.nq, 512)
    for q in b.rng.sample(range(b.nq), n):
        b.doorbell(q, b.rng.randint(1, 6))
    # schedule disabled: doorbells recorded, nothing issued (the shared step checks that no command appears
    # while sched_enable is low)
    while b.db_list or b.db_drv is not None:
        assert not await b.step(), "command while sched_enable is low"
    await b.run(0, 0.0, 0.2, bad_rate=0.1)
    b.check_end()


@pytest.mark.parametrize("queues,cmds", [(64, 4), (32768, 8)])
def test_beryl_nic_sched_rr(queues, cmds):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    env = {}
    if queues > 1024 and not int(os.environ.get("BERYL_LONG", "0")):
        env["SCHED_N_DB"] = "150"
    beryl_sim.run("beryl_nic_sched_rr", "rtl/nic/beryl_nic_sched_rr.f", "test_beryl_nic_sched_rr",
                  Path(__file__).parent, parameters={"QUEUE_COUNT": queues, "MAX_CMDS": cmds},
                  extra_env=env)
