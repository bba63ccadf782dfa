# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_skid: two-entry skid buffer, registered m_valid/m_data and s_ready.

Reference model (from the module header, not from the RTL): a FIFO of at most two entries. Every
cycle, from the handshakes seen so far: m_valid is high exactly when the model holds a beat, m_data
is the oldest beat, and s_ready is high exactly when the model holds fewer than two (so the buffer
never stalls a source it has room for and never shows a bubble). Beats come out in order, each
once; nothing changes on the output while m_valid && !m_ready. The source drives random garbage
on s_data while s_valid is low.

Tests: random beats under no stalls, source idle, sink backpressure and both; full rate (one
beat per cycle, latency 1); two entries exactly (fill with m_ready low); no combinational path
from m_ready to s_ready or from s_valid/s_data to m_valid/m_data (flip the inputs mid-cycle);
reset in the middle of traffic (idle and ready afterwards, later beats intact).
BERYL_LONG=1 runs more beats and every width the NIC instantiates.
"""
import os
import random
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, RisingEdge, Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
DATA_W = int(os.environ.get("PARAM_DATA_W", "8"))
DEPTH = 2        # entries, from the module header
LATENCY = 1      # cycles from input handshake to output handshake with the sink ready


class TB:
    """One coroutine per clock drives both sides, samples both handshakes and checks the model."""

    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.cycle = 0
        self.idle_prob = 0.0       # source: chance of no beat in a cycle
        self.ready_prob = 1.0      # sink: chance of ready in a cycle
        self.probe_prob = 0.0      # chance per cycle of the mid-cycle combinational-path probe
        self.to_send = deque()     # beats not offered yet
        self.in_valid = 0
        self.in_data = 0
        self.ready = 0
        self.model = deque()       # beats inside the buffer: (sequence number, data)
        self.seq = 0
        self.expect_next = 0       # sequence number of the next beat out
        self.in_log = []           # (sequence number, cycle) accepted
        self.out_log = []          # (sequence number, cycle) delivered
        self.full_cycles = 0       # cycles the model held two beats
        self.probes = 0
        self.errors = []
        self.reset_req = None
        self.reset_done = None
        self.reset_hits = []       # beats inside the buffer at each reset
        self.quiet = 0             # samples after a reset that must show an empty buffer
        self.quiet_armed = False
        dut.rst.value = 1
        dut.s_valid.value = 0
        dut.s_data.value = 0
        dut.m_ready.value = 0
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def send(self, count):
        for _ in range(count):
            self.to_send.append((self.seq, self.rng.getrandbits(DATA_W)))
            self.seq += 1

    async def start(self):
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        rst_left = 0
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            in_rst = rst_left > 0
            s_ready = int(dut.s_ready.value)
            m_valid = int(dut.m_valid.value)
            if self.quiet:
                # the first sample in reset still shows the old state; later ones an empty buffer
                if self.quiet_armed and (m_valid or not s_ready):
                    self.err(f"after reset: m_valid {m_valid} s_ready {s_ready}, expected 0 and 1")
                self.quiet_armed = True
                self.quiet -= 1
            if not in_rst:
                self._check_and_update(s_ready, m_valid)
            # --- reset requested by a test
            if rst_left:
                rst_left -= 1
                if not rst_left:
                    dut.rst.value = 0
                    self.reset_done.set()
            if self.reset_req is not None:
                rst_left, quiet = self.reset_req
                self.reset_req = None
                dut.rst.value = 1
                # the beat on offer is withdrawn (offered again later); whatever the buffer holds is gone
                self.reset_hits.append(len(self.model))
                self.model.clear()
                if self.in_valid:
                    self.in_valid = 0
                self.expect_next = self.to_send[0][0] if self.to_send else self.seq
                self.quiet = rst_left + quiet
                self.quiet_armed = False
            # --- drive
            if not self.in_valid:
                if (self.to_send and not rst_left and not self.quiet
                        and not (self.idle_prob and self.rng.random() < self.idle_prob)):
                    self.in_valid = 1
                    self.in_data = self.to_send[0][1]
                else:
                    self.in_data = self.rng.getrandbits(DATA_W)   # garbage while idle
            dut.s_valid.value = self.in_valid
            dut.s_data.value = self.in_data
            self.ready = 0 if rst_left else int(self.ready_prob >= 1.0 or self.rng.random() < self.ready_prob)
            dut.m_ready.value = self.ready
            if not rst_left and self.probe_prob and self.rng.random() < self.probe_prob:
                await self._probe()

    def _check_and_update(self, s_ready, m_valid):
        """Compare the outputs sampled at this edge with the model, then apply the handshakes."""
        dut = self.dut
        n = len(self.model)
        if m_valid != int(n > 0):
            self.err(f"m_valid {m_valid} with {n} beats inside (expected {int(n > 0)})")
        if s_ready != int(n < DEPTH):
            self.err(f"s_ready {s_ready} with {n} beats inside (expected {int(n < DEPTH)})")
        if n == DEPTH:
            self.full_cycles += 1
        if m_valid and n:
            seq, data = self.model[0]
            got = int(dut.m_data.value)
            if got != data:
                self.err(f"beat {seq}: m_data {got:#x}, expected {data:#x}")
        if m_valid and self.ready and n:
            seq, _ = self.model.popleft()
            if seq != self.expect_next:
                self.err(f"beat {seq} out, expected beat {self.expect_next}")
            self.expect_next = seq + 1
            self.out_log.append((seq, self.cycle))
        if self.in_valid and s_ready:
            seq, data = self.to_send.popleft()
            self.model.append((seq, data))
            self.in_log.append((seq, self.cycle))
            self.in_valid = 0

    async def _probe(self):
        """Mid-cycle, flip m_ready, s_valid and s_data: s_ready, m_valid, m_data must not move."""
        dut = self.dut
        await Timer(1, "ns")
        before = (int(dut.s_ready.value), int(dut.m_valid.value), int(dut.m_data.value))
        dut.m_ready.value = 1 - self.ready
        dut.s_valid.value = 1 - self.in_valid
        dut.s_data.value = self.in_data ^ ((1 << DATA_W) - 1)
        await Timer(1, "ns")
        after = (int(dut.s_ready.value), int(dut.m_valid.value), int(dut.m_data.value))
        moved = [name for name, b, a in zip(("s_ready", "m_valid", "m_data"), before, after) if a != b]
        if moved:
            self.err(f"{', '.join(moved)} moved when m_ready, s_valid and s_data were flipped mid-cycle "
                     f"(combinational path)")
        # put the cycle's real values back before the edge
        dut.m_ready.value = self.ready
        dut.s_valid.value = self.in_valid
        dut.s_data.value = self.in_data
        self.probes += 1

    async def reset(self, cycles, quiet=4):
        self.reset_done = Event()
        done = self.reset_done
        self.reset_req = (cycles, quiet)
        await done.wait()

    async def drain(self, timeout=50000):
        for _ in range(timeout):
            if not self.to_send and not self.model and not self.in_valid:
                break
            await RisingEdge(self.dut.clk)
        else:
            raise AssertionError(f"timeout after {timeout} cycles: {len(self.to_send)} beats not "
                                 f"accepted, {len(self.model)} not delivered, errors: {self.errors[:3]}")
        await ClockCycles(self.dut.clk, 6)
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])


@cocotb.test()
async def test_random_streams(dut):
    """Random beats under no stalls, source idle, sink backpressure and both, with probes."""
    tb = TB(dut, seed=21)
    await tb.start()
    tb.probe_prob = 0.05
    n = 2000 if LONG else 400
    for mode in range(12 if LONG else 8):
        tb.idle_prob = (0.2 + 0.6 * tb.rng.random()) if mode & 1 else 0.0
        tb.ready_prob = (0.1 + 0.8 * tb.rng.random()) if mode & 2 else 1.0
        first = tb.seq
        tb.send(n)
        await tb.drain()
        got = [s for s, _ in tb.out_log if s >= first]
        assert got == list(range(first, tb.seq)), f"mode {mode}: beats lost, duplicated or reordered"
        dut._log.info("mode %d (idle %.2f, ready %.2f): %d beats ok, full %d cycles, %d probes", mode,
                      tb.idle_prob, tb.ready_prob, n, tb.full_cycles, tb.probes)
    assert tb.full_cycles > 0, "backpressure never filled both entries"
    assert tb.probes > 0


@cocotb.test()
async def test_full_rate(dut):
    """Source always valid, sink always ready: one beat per cycle, each LATENCY cycles later."""
    tb = TB(dut, seed=22)
    await tb.start()
    n = 500
    tb.send(n)
    await tb.drain()
    cycles = tb.in_log[-1][1] - tb.in_log[0][1] + 1
    assert cycles == n, f"{n} beats took {cycles} cycles to enter: the buffer stalled a free-running stream"
    in_at = dict(tb.in_log)
    for seq, c in tb.out_log:
        assert c - in_at[seq] == LATENCY, f"beat {seq}: out {c - in_at[seq]} cycles after in, not {LATENCY}"
    dut._log.info("%d beats in %d cycles, latency %d", n, cycles, LATENCY)


@cocotb.test()
async def test_two_entries(dut):
    """With m_ready low the buffer takes exactly two beats, then holds them and releases in order."""
    tb = TB(dut, seed=23)
    await tb.start()
    for rep in range(4):
        tb.ready_prob = 0.0
        base = len(tb.in_log)
        tb.send(5)
        await ClockCycles(dut.clk, 12)
        assert len(tb.in_log) - base == DEPTH, f"took {len(tb.in_log) - base} beats with the sink stalled"
        assert not int(dut.s_ready.value) and int(dut.m_valid.value)
        tb.ready_prob = 1.0
        await tb.drain()
    assert not tb.errors, tb.errors[:4]


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset with zero, one or two beats inside and beats on offer: afterwards m_valid low, s_ready
    high, and the beats sent after the reset arrive intact and in order."""
    tb = TB(dut, seed=24)
    await tb.start()
    for rep in range(24 if LONG else 12):
        tb.idle_prob = 0.3 if rep & 1 else 0.0
        tb.ready_prob = [1.0, 0.5, 0.1][rep % 3]
        tb.send(60)
        for _ in range(tb.rng.randint(3, 30)):
            await RisingEdge(dut.clk)
        await tb.reset(tb.rng.randint(1, 3))
        after = tb.expect_next
        await tb.drain()
        got = [s for s, _ in tb.out_log if s >= after]
        assert got == list(range(after, tb.seq)), f"reset {rep}: beats after the reset lost or reordered"
    dut._log.info("resets with %s beats inside: all ok", tb.reset_hits)
    assert DEPTH in tb.reset_hits and 1 in tb.reset_hits, "no reset with the buffer full or half full"


@pytest.mark.parametrize("data_w", [
    1,      # narrowest
    661,    # inside beryl_pcie_us_strip, CQ at 512 bits (512 + 16 + 2 + 131)
    548,    # inside beryl_pcie_us_prepend, RQ at 512 bits (512 + 16 + 4 + 2 * 4 + 8)
] + ([
    64, 65, 256, 512,
    397,    # strip, CQ at 256 bits
    663,    # strip, RC at 512 bits
    399,    # strip, RC at 256 bits
    541,    # prepend, CC at 512 bits
    275,    # prepend, CC at 256 bits
    282,    # prepend, RQ at 256 bits
] if LONG else []))
def test_beryl_pcie_us_skid(data_w):
    beryl_sim.run("beryl_pcie_us_skid", "rtl/pcie/beryl_pcie_us_skid.f", "test_beryl_pcie_us_skid",
                  Path(__file__).parent, parameters={"DATA_W": data_w})
