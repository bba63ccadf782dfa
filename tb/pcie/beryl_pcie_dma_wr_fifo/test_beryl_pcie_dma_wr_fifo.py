# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_dma_wr_fifo: first-word-fall-through FIFO of DEPTH entries in flops.

Reference model (from the module header and ports, not from the RTL): a Python deque of at most DEPTH
entries. Every cycle, from the handshakes seen so far:
- out_valid is high exactly when the model holds an entry (the empty flag), out_data is the oldest entry;
- in_ready is high exactly when the model holds fewer than DEPTH entries (the full flag), whatever out_ready
  does this cycle (no combinational path from out_ready to in_ready; a full FIFO takes nothing in the cycle
  it gives one out);
- a push shows at the output the next cycle (never in its own cycle: out_valid does not follow in_valid).
The module has no level output: the level is the model's count, and the two flags are checked against it
every cycle (capacity exactly DEPTH, not DEPTH - 1).

Overflow and underflow attempts are ignored: in_valid high while in_ready is low stores nothing (the source
drives a poison word that must never come out), out_ready high while out_valid is low takes nothing (the
count does not wrap). The sink's ready is random also while the FIFO is empty, and the source drives random
garbage on in_data while in_valid is low.

Tests: random traffic under no stalls, source idle, sink backpressure and both, with overflow and underflow
attempts and mid-cycle probes for combinational paths; full rate (one entry per cycle, latency 1); fill to
exactly DEPTH, then pop while the source keeps offering; reset in the middle of traffic (empty afterwards,
the entries inside are gone, later entries intact). BERYL_LONG=1 runs more entries and more widths/depths.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_sim  # noqa: E402
from stream_bench import BufferBench  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
WIDTH = int(os.environ.get("PARAM_WIDTH", "8"))
DEPTH = int(os.environ.get("PARAM_DEPTH", "4"))
PERIOD = 10  # ns


class TB(BufferBench):
    """Inputs are driven just after the falling edge; outputs are read at ReadOnly of that half cycle (the
    state after the last rising edge and the combinational response to the new inputs); the model then
    applies the handshakes the coming rising edge takes. So this bench runs its own per-clock loop on
    stream_bench's parts (reset, model, probe, drain)."""
    NOUN, NOUNS = "entry", "entries"
    EDGE = FallingEdge
    QUIET = 0                  # no quiet period: the flags are checked against the model every cycle
    SETTLE = 4
    TIMEOUT = 100000

    def __init__(self, dut, seed):
        super().__init__(dut, seed, depth=DEPTH, data_w=WIDTH, s_valid="in_valid", s_ready="in_ready",
                         s_data="in_data", m_valid="out_valid", m_ready="out_ready", m_data="out_data",
                         period_ns=PERIOD)
        self.over_prob = 0.0       # chance of a poison word with in_valid while in_ready is low
        self.max_level = 0
        self.overflows = 0         # poison words offered while full
        self.underflows = 0        # out_ready while empty
        self.simul = 0             # cycles with a push and a pop
        self.hold = False          # the sink is forced not ready (fill tests)
        self.poison = set()
        self.poisoned = False      # this cycle's word is poison

    async def start(self):
        await ClockCycles(self.dut.clk, 3)
        await FallingEdge(self.dut.clk)
        self.dut.rst.value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        while True:
            await FallingEdge(dut.clk)
            self.cycle += 1
            if self.reset_req is not None:
                # reset from this cycle on: whatever the FIFO holds is gone at the next rising edge
                self.begin_reset()
            in_rst = self.rst_left > 0
            if not in_rst and self.reset_done is not None:
                self.end_reset()
            # --- drive this cycle's inputs (the draws every cycle, not stream_bench's, keep the stimulus
            # of these seeds)
            self.in_valid, self.in_data, self.poisoned = 0, self.rng.getrandbits(WIDTH), False
            n = len(self.model)
            if not in_rst and self.to_send and self.rng.random() >= self.idle_prob:
                if n < DEPTH:
                    self.in_valid, self.in_data = 1, self.to_send[0][1]
                elif self.rng.random() < self.over_prob:
                    # overflow attempt: the FIFO is full (in_ready low), this word must be dropped
                    self.in_valid, self.poisoned = 1, True
            self.ready = 0 if (in_rst or self.hold) else int(self.rng.random() < self.ready_prob)
            dut.in_valid.value = self.in_valid
            dut.in_data.value = self.in_data
            dut.out_ready.value = self.ready
            if not in_rst and self.probe_prob and self.rng.random() < self.probe_prob:
                await self.probe()
            await ReadOnly()
            if in_rst:
                self.rst_left -= 1
                continue
            self._check_and_update()

    def _check_and_update(self):
        n = self.check_buffer(int(self.dut.out_valid.value), int(self.dut.in_ready.value))
        if self.poisoned:
            self.overflows += 1
            self.poison.add(self.in_data)
        if self.ready and not n:
            self.underflows += 1
        # the edge: model handshakes (from the model's flags, so a wrong flag cannot hide a wrong count)
        push = self.in_valid and n < DEPTH
        pop = self.ready and n > 0
        if push and pop:
            self.simul += 1
        if pop:
            self.model_pop()
        if push:
            self.model_push()
        self.max_level = max(self.max_level, len(self.model))

    def data_note(self, got):
        return " (a word offered while full)" if got in self.poison else ""


@cocotb.test()
async def test_random_streams(dut):
    """Random traffic under no stalls, idle, backpressure and both; overflow/underflow attempts; probes."""
    tb = TB(dut, seed=31 + DEPTH)
    await tb.start()
    tb.probe_prob = 0.05
    tb.over_prob = 0.5
    n = 3000 if LONG else 600
    for mode in range(12 if LONG else 8):
        tb.stall_mode(mode, idle=(0.2, 0.6), ready=(0.1, 0.8))
        if mode == 6:
            tb.ready_prob = 0.3     # a slow sink: the FIFO sits full for long stretches
        first = tb.seq
        tb.send(n)
        await tb.drain()
        got = [s for s, _ in tb.out_log if s >= first]
        assert got == list(range(first, tb.seq)), f"mode {mode}: entries lost, duplicated or reordered"
        dut._log.info("mode %d (idle %.2f, ready %.2f): %d entries ok, max level %d, full %d cycles", mode,
                      tb.idle_prob, tb.ready_prob, n, tb.max_level, tb.full_cycles)
    assert tb.max_level == DEPTH and tb.full_cycles > 0, "backpressure never filled the FIFO"
    assert tb.overflows > 0 and tb.underflows > 0 and tb.simul > 0 and tb.probes > 0, \
        (tb.overflows, tb.underflows, tb.simul, tb.probes)
    dut._log.info("%d overflow attempts, %d underflow attempts, %d push+pop cycles, %d probes", tb.overflows,
                  tb.underflows, tb.simul, tb.probes)


@cocotb.test()
async def test_full_rate(dut):
    """Source always valid, sink always ready: one entry per cycle, each out the cycle after it went in."""
    tb = TB(dut, seed=32)
    await tb.start()
    n = 400
    tb.send(n)
    await tb.drain()
    cycles = tb.in_log[-1][1] - tb.in_log[0][1] + 1
    assert cycles == n, f"{n} entries took {cycles} cycles to go in: the FIFO stalled a free-running stream"
    in_at = dict(tb.in_log)
    lat = {c - in_at[s] for s, c in tb.out_log}
    assert lat == {1}, f"latency from push to pop {sorted(lat)}, expected exactly 1 cycle"
    assert tb.max_level == 1


@cocotb.test()
async def test_fill_exactly(dut):
    """Sink stalled: the FIFO takes exactly DEPTH entries and then refuses (poison offered meanwhile); with the
    sink released while the source keeps offering, in_ready stays low in the cycle an entry leaves a full FIFO
    and rises the next."""
    tb = TB(dut, seed=33)
    await tb.start()
    tb.over_prob = 1.0
    for rep in range(3):
        tb.hold = True
        base = len(tb.in_log)
        tb.send(DEPTH + 3)
        await ClockCycles(dut.clk, DEPTH + 6)
        assert len(tb.in_log) - base == DEPTH, f"took {len(tb.in_log) - base} entries with the sink stalled"
        await FallingEdge(dut.clk)
        await ReadOnly()
        assert not int(dut.in_ready.value) and int(dut.out_valid.value)
        tb.hold = False
        await tb.drain()
    assert tb.overflows >= 3 * 4


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset with the FIFO empty, partly full and full, entries on offer: afterwards empty (out_valid low,
    in_ready high), and the entries sent after the reset arrive intact and in order."""
    tb = TB(dut, seed=34 + DEPTH)
    await tb.start()
    tb.over_prob = 0.5
    for rep in range(24 if LONG else 12):
        tb.idle_prob = 0.3 if rep & 1 else 0.0
        tb.ready_prob = [1.0, 0.5, 0.1, 0.0][rep % 4]
        if rep:                 # the first reset with the FIFO empty and nothing on offer
            tb.send(3 * DEPTH + 10)
        for _ in range(tb.rng.randint(2, 4 * DEPTH + 4)):
            await FallingEdge(dut.clk)
        await tb.reset(tb.rng.randint(1, 3))
        await ReadOnly()
        assert not int(dut.out_valid.value) and int(dut.in_ready.value), "not empty after reset"
        tb.ready_prob = 0.7
        after = tb.expect_next
        await tb.drain()
        got = [s for s, _ in tb.out_log if s >= after]
        assert got == list(range(after, tb.seq)), f"reset {rep}: entries after the reset lost or reordered"
    lost = tb.reset_hits       # entries inside at each reset
    dut._log.info("resets with %s entries inside: all ok", lost)
    assert 0 in lost and DEPTH in lost and any(0 < x < DEPTH for x in lost), \
        "no reset with the FIFO empty, full or partly full"


# (WIDTH, DEPTH) of the instances inside beryl_pcie_dma_wr as the NIC builds it (512-bit TLPs, RAM_ADDR_W 22,
# LEN_W 17, TAG_W 10, RESP_FIFO_DEPTH 8): descriptors 64 + 22 + 17 + 10 + 1 = 114 x 2, beat info 27 x 16,
# TLP headers 128 + 10 + 1 + 13 = 152 x 8, RAM read responses 512 x 8.
NIC = [(114, 2), (27, 16), (512, 8)]
EXTRA = [(152, 8), (1, 2), (1, 4), (8, 256), (33, 32), (64, 64)]


@pytest.mark.parametrize("width,depth", NIC + (EXTRA if LONG else []))
def test_beryl_pcie_dma_wr_fifo(width, depth):
    # the FIFO has no source list of its own; the DMA write engine's lists it (the build takes only the top)
    beryl_sim.run("beryl_pcie_dma_wr_fifo", "rtl/pcie/beryl_pcie_dma_wr.f", "test_beryl_pcie_dma_wr_fifo",
                  Path(__file__).parent, parameters={"WIDTH": width, "DEPTH": depth})
