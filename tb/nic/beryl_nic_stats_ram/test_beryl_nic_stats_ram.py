# SPDX-License-Identifier: MIT
"""beryl_nic_stats_ram: random increments (packets with random byte counts, and drops) on a few hot
queues, so back-to-back increments of one queue are frequent, plus random register reads; every read
response equals a Python dict model that holds all increments presented before the read's cycle.
Increments every cycle or at random; reads back to back or with random idle (the read response has
no backpressure). Increments during the clear after reset are ignored and every counter reads 0
after it. A long run on one queue carries the byte counter past 2^32."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
M64 = (1 << 64) - 1


class Model:
    def __init__(self):
        self.c = {}

    def inc(self, idx, nbytes, drop):
        p, b, d = self.c.get(idx, (0, 0, 0))
        self.c[idx] = (p, b, (d + 1) & M64) if drop else ((p + 1) & M64, (b + nbytes) & M64, d)

    def get(self, idx):
        return self.c.get(idx, (0, 0, 0))


async def reset(dut):
    dut.rst.value = 1
    dut.stat_valid.value = 0
    dut.rd_req_valid.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0


async def run(dut, rng, model, cycles, p_inc, p_rd, hot, expect_clear=False):
    """Drive `cycles` cycles of traffic, then drain; check each read response against the model."""
    n = 1 << len(dut.stat_qidx)
    exp = []
    stats = {"reads": 0, "inc": 0, "ignored": 0, "same": 0}
    rd_pending = None
    last_inc = None
    prev_idx = hot[0]
    cyc = 0
    while cyc < cycles or rd_pending is not None or exp:
        await FallingEdge(dut.clk)
        cyc += 1
        assert cyc < cycles + 100, "read responses missing"
        inc = None
        if cyc < cycles and rng.random() < p_inc:
            r = rng.random()
            idx = prev_idx if r < 0.3 else rng.choice(hot) if r < 0.85 else rng.randrange(n)
            prev_idx = idx
            inc = (idx, rng.getrandbits(16) if rng.random() < 0.7 else rng.choice([0, 1, 0xFFFF]),
                   int(rng.random() < 0.25))
            dut.stat_qidx.value, dut.stat_bytes.value, dut.stat_drop.value = inc
        dut.stat_valid.value = int(inc is not None)
        if rd_pending is None and cyc < cycles and rng.random() < p_rd:
            rd_pending = rng.choice(hot) if rng.random() < 0.7 else rng.randrange(n)
            dut.rd_req_idx.value = rd_pending
        dut.rd_req_valid.value = int(rd_pending is not None)
        await ReadOnly()
        if dut.rd_rsp_valid.value == 1:
            got = (int(dut.rd_rsp_pkts.value), int(dut.rd_rsp_bytes.value), int(dut.rd_rsp_drops.value))
            assert exp, f"unexpected read response {got}"
            idx, e = exp.pop(0)
            assert got == e, f"queue {idx}: got pkts/bytes/drops {got}, expected {e}"
        ready = dut.rd_req_ready.value == 1
        if expect_clear and not ready:
            stats["ignored"] += inc is not None
        # a read sees the increments of earlier cycles, not the one presented with it
        if rd_pending is not None and ready:
            exp.append((rd_pending, model.get(rd_pending)))
            stats["reads"] += 1
            rd_pending = None
        if inc is not None and ready:
            model.inc(*inc)
            stats["inc"] += 1
            stats["same"] += last_inc == inc[0]
        last_inc = inc[0] if inc is not None else None
    await FallingEdge(dut.clk)
    dut.stat_valid.value = 0
    dut.rd_req_valid.value = 0
    return stats


@cocotb.test()
async def test_random(dut):
    Clock(dut.clk, 4, unit="ns").start()
    n = 1 << len(dut.stat_qidx)
    rng = beryl_seed.rng(11, "test_random")
    cycles = 50000 if LONG else 10000
    for p_inc, p_rd in [(1.0, 1.0), (1.0, 0.3), (0.5, 1.0), (0.5, 0.3)]:
        await reset(dut)
        model = Model()
        hot = [0, n - 1, rng.randrange(n), rng.randrange(n)]
        # traffic starts during the clear: those increments must be ignored
        st = await run(dut, rng, model, n + 50, p_inc, 0.0, hot, expect_clear=True)
        assert st["ignored"] > 0 or p_inc < 1
        # every counter reads 0 except the few touched after the clear
        await run_reads(dut, model, sorted(set(range(0, n, max(1, n // 64))) | set(hot)))
        st = await run(dut, rng, model, cycles, p_inc, p_rd, hot)
        dut._log.info(f"inc {p_inc} rd {p_rd}: {st}")
        assert st["same"] > cycles // 20 * p_inc and st["reads"] > cycles // 10
        # read everything the traffic touched, with no traffic
        await run_reads(dut, model, sorted(model.c))


async def run_reads(dut, model, idxs):
    exp = []
    todo = list(idxs)
    cyc = 0
    while todo or exp:
        await FallingEdge(dut.clk)
        cyc += 1
        assert cyc < len(idxs) + 50
        if todo:
            dut.rd_req_idx.value = todo[0]
        dut.rd_req_valid.value = int(bool(todo))
        await ReadOnly()
        if dut.rd_rsp_valid.value == 1:
            got = (int(dut.rd_rsp_pkts.value), int(dut.rd_rsp_bytes.value), int(dut.rd_rsp_drops.value))
            idx, e = exp.pop(0)
            assert got == e, f"queue {idx}: got {got}, expected {e}"
        if todo and dut.rd_req_ready.value == 1:
            exp.append((todo[0], model.get(todo[0])))
            todo.pop(0)
    await FallingEdge(dut.clk)
    dut.rd_req_valid.value = 0


@cocotb.test()
async def test_carry(dut):
    """One queue gets 0xffff bytes every cycle until its byte counter passes 2^32."""
    Clock(dut.clk, 4, unit="ns").start()
    await reset(dut)
    n = 1 << len(dut.stat_qidx)
    await ClockCycles(dut.clk, n + 2)
    model = Model()
    reps = (1 << 32) // 0xFFFF + 10
    await FallingEdge(dut.clk)
    dut.stat_valid.value, dut.stat_qidx.value, dut.stat_bytes.value, dut.stat_drop.value = 1, 1, 0xFFFF, 0
    await ClockCycles(dut.clk, reps, rising=False)
    dut.stat_valid.value = 0
    for _ in range(reps):
        model.inc(1, 0xFFFF, 0)
    assert model.get(1)[1] > 1 << 32
    await run_reads(dut, model, [1, 0])


@pytest.mark.parametrize("count", [16, 4096])
def test_beryl_nic_stats_ram(count):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_stats_ram", "rtl/nic/beryl_nic_stats_ram.f", "test_beryl_nic_stats_ram",
                  Path(__file__).parent, parameters={"COUNT": count})
