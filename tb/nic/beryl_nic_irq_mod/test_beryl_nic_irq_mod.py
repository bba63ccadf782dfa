# SPDX-License-Identifier: MIT
"""beryl_nic_irq_mod: random events (bursts, sparse traffic, a quiet gap longer than the time counter's
wrap, out-of-range sources) for event queues with random minimum intervals and distinct vectors.
Checked against the rules, cycle by cycle: per queue, a request is decided at least interval*256
cycles after the previous one was taken; every request answers at least one new event (merging, no
spurious requests); every event is answered by a request decided no earlier than the event and no
later than max(event, previous taken + interval*256) + EQ_COUNT + a few cycles + cycles the output
was busy; counters irq_count and merged_count. Runs with no stalls, random source idle, random
irq_ready backpressure, and both. With a 64-bit time (the NIC's build) the block must also sleep: its
clock gate is closed at the end, once no queue is pending."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

MODES = {"plain": (0.0, 0.0), "idle": (0.4, 0.0), "bp": (0.0, 0.4), "both": (0.4, 0.4)}


async def run_mode(dut, rng, idle, bp, eq_count, time_w):
    nsrc = 1 << len(dut.evt_source)
    vecs = rng.sample(range(1 << len(dut.irq_index)), nsrc)   # distinct: a vector names its queue
    max_ivl = min(7, (1 << (time_w - 9)) - 1)
    ivls = [rng.choice([0, 1, 2, max_ivl]) for _ in range(nsrc)]
    vec2eq = {v: e for e, v in enumerate(vecs)}
    # traffic phases: (cycles, event probability per cycle)
    phases = [(1500, 0.5), (1500, 0.03)]
    if time_w < 16:
        phases.append(((1 << time_w) + 900, 0.0))   # long quiet gap: the time counter wraps
    phases += [(800, 0.3), (max_ivl * 256 + eq_count + 200, 0.0)]

    await FallingEdge(dut.clk)
    dut.rst.value = 1
    dut.evt_valid.value = 0
    dut.irq_ready.value = 0
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0

    events = [[] for _ in range(nsrc)]      # sample index of accepted events
    pres = [[] for _ in range(nsrc)]        # sample index where a new request first shows
    taken = [[] for _ in range(nsrc)]       # sample index of the handshake
    busy = [0]                              # cumulative samples with irq_valid
    k, prev_taken, prev_valid, ignored = 0, False, False, 0
    for cycles, p in phases:
        for _ in range(cycles):
            await FallingEdge(dut.clk)
            k += 1
            drv = rng.random() < p * (1.0 - idle)
            if drv:
                if nsrc > eq_count and rng.random() < 0.05:
                    e = rng.randrange(eq_count, nsrc)   # no such queue: ignored
                else:
                    e = rng.randrange(eq_count)
                dut.evt_source.value = e
                dut.evt_target.value = (ivls[e] << 16) | (rng.getrandbits(16 - len(dut.irq_index)) <<
                                                         len(dut.irq_index)) | vecs[e]
            dut.evt_valid.value = int(drv)
            dut.irq_ready.value = int(rng.random() >= bp)
            await ReadOnly()
            if drv and dut.evt_ready.value == 1:
                if e < eq_count:
                    events[e].append(k)
                else:
                    ignored += 1
            v = dut.irq_valid.value == 1
            busy.append(busy[-1] + int(v))
            if v:
                vec = int(dut.irq_index.value)
                assert vec in vec2eq and vec2eq[vec] < eq_count, f"request for unknown vector {vec}"
                e_out = vec2eq[vec]
                if not prev_valid or prev_taken:
                    pres[e_out].append(k)
                prev_taken = dut.irq_ready.value == 1
                if prev_taken:
                    taken[e_out].append(k)
            prev_valid = v
    assert dut.irq_valid.value == 0, "request still waiting at the end"
    if time_w == 64:
        # nothing pending, nothing at the input: the scan stops and the clock gate closes
        assert int(dut.pending_q.value) == 0, "queue still pending at the end"
        assert dut.gate_en.value == 0, "clock gate open with nothing to do"

    n_evt = n_irq = 0
    for e in range(eq_count):
        gap = ivls[e] * 256
        ev, pr, tk = events[e], pres[e], taken[e]
        assert len(pr) == len(tk)
        n_evt += len(ev)
        n_irq += len(tk)
        # spacing: decided (one sample before it shows) at least interval*256 after the previous handshake
        for i in range(1, len(pr)):
            assert (pr[i] - 1) - tk[i - 1] >= gap, f"eq {e}: request at {pr[i]}, previous taken {tk[i - 1]}"
        # every request answers an event not covered by the previous one
        j = 0
        for i, p in enumerate(pr):
            lo = pr[i - 1] if i else -1
            while j < len(ev) and ev[j] <= lo - 1:
                j += 1
            assert j < len(ev) and ev[j] <= p - 1, f"eq {e}: request at {p} without a new event"
        # every event is answered in time
        i = 0
        for t in ev:
            while i < len(pr) and pr[i] - 1 < t:
                i += 1
            assert i < len(pr), f"eq {e}: event at {t} never answered"
            ready = max(t, tk[i - 1] + gap) if i else t
            slack = eq_count + 4 + (busy[pr[i]] - busy[ready])
            assert pr[i] - ready <= slack, f"eq {e}: event {t} ready {ready} answered at {pr[i]} (slack {slack})"
    assert int(dut.irq_count.value) == n_irq, "irq_count"
    assert int(dut.merged_count.value) == n_evt - n_irq, "merged_count"
    return n_evt, n_irq, ignored, k


@cocotb.test()
async def test_moderation(dut):
    Clock(dut.clk, 4, unit="ns").start()
    eq_count = int(os.environ["PARAM_EQ_COUNT"])
    time_w = int(os.environ.get("PARAM_TIME_W", "25"))
    reps = 4 if os.environ.get("BERYL_LONG") else 1
    for i, (name, (idle, bp)) in enumerate(MODES.items()):
        for r in range(reps):
            rng = beryl_seed.rng(100 * i + r, f"test_moderation {name} {r}")
            n_evt, n_irq, ign, cyc = await run_mode(dut, rng, idle, bp, eq_count, time_w)
            dut._log.info(f"{name}: {n_evt} events -> {n_irq} requests ({n_evt - n_irq} merged), "
                          f"{ign} out-of-range ignored, {cyc} cycles")
            assert n_irq > 0 and n_evt > n_irq


@pytest.mark.parametrize("cfg", [
    {"EQ_COUNT": 6, "TIME_W": 12},
    {"EQ_COUNT": 32},
    {"EQ_COUNT": 4, "TIME_W": 64},
])
def test_beryl_nic_irq_mod(cfg):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_irq_mod", "rtl/nic/beryl_nic_irq_mod.f", "test_beryl_nic_irq_mod",
                  Path(__file__).parent, parameters=cfg)
