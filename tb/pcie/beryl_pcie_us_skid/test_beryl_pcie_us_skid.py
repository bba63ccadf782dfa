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
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_sim  # noqa: E402
from stream_bench import BufferBench  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
DATA_W = int(os.environ.get("PARAM_DATA_W", "8"))
DEPTH = 2        # entries, from the module header
LATENCY = 1      # cycles from input handshake to output handshake with the sink ready


class TB(BufferBench):
    """One coroutine per clock (stream_bench) drives both sides, samples both handshakes and checks
    the model every cycle."""
    QUIET = 4        # samples after a reset that must show an empty buffer
    SETTLE = 6

    def __init__(self, dut, seed):
        super().__init__(dut, seed, depth=DEPTH, data_w=DATA_W, s_valid="s_valid", s_ready="s_ready",
                         s_data="s_data", m_valid="m_valid", m_ready="m_ready", m_data="m_data")

    def sample(self, in_rst):
        """Compare the outputs sampled at this edge with the model, then apply the handshakes."""
        s_ready = int(self.dut.s_ready.value)
        m_valid = int(self.dut.m_valid.value)
        # the first sample in reset still shows the old state; later ones an empty buffer
        self.check_quiet(m_valid or not s_ready,
                         f"after reset: m_valid {m_valid} s_ready {s_ready}, expected 0 and 1")
        if in_rst:
            return
        n = self.check_buffer(m_valid, s_ready)
        if m_valid and self.ready and n:
            self.model_pop()
        if self.in_valid and s_ready:
            self.model_push()
            self.in_valid = 0


@cocotb.test()
async def test_random_streams(dut):
    """Random beats under no stalls, source idle, sink backpressure and both, with probes."""
    tb = TB(dut, seed=21)
    await tb.start()
    tb.probe_prob = 0.05
    await tb.run_stall_modes(2000 if LONG else 400, 12 if LONG else 8)
    assert tb.full_cycles > 0, "backpressure never filled both entries"
    assert tb.probes > 0


@cocotb.test()
async def test_full_rate(dut):
    """Source always valid, sink always ready: one beat per cycle, each LATENCY cycles later."""
    tb = TB(dut, seed=22)
    await tb.start()
    await tb.run_full_rate(500, LATENCY)


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
    tb.assert_no_errors()


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset with zero, one or two beats inside and beats on offer: afterwards m_valid low, s_ready
    high, and the beats sent after the reset arrive intact and in order."""
    tb = TB(dut, seed=24)
    await tb.start()
    await tb.run_resets(24 if LONG else 12, 60, idle=0.3)
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
