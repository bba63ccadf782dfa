# SPDX-License-Identifier: MIT
"""Unit test of beryl_axis_in_reg: a one-entry input register for a valid/ready stream.

Reference model (from the module header, not from the RTL): a buffer of at most one beat. At every
edge, from the handshakes seen so far: m_tvalid is high exactly when the model holds a beat, the
m_t* fields are that beat, s_tready is high exactly when the model is empty or the sink is ready in
this cycle (the ready passes through), and while the model is empty the m_t* fields still show the
last beat taken (the payload loads only with a valid beat). Beats come out in order, each once. The
source drives random garbage on every s_t* field while s_tvalid is low.

Tests: random beats under no stalls, source idle, sink backpressure and both, with mid-cycle probes
(flipping s_tvalid and the s_t* fields must move nothing; flipping m_tready may move s_tready only, as
!m_tvalid || m_tready); full rate (one beat per cycle, latency 1); reset in the middle of traffic
(idle and ready afterwards, later beats intact). The clock gate inside is the real one (cocotb builds
do not define BERYL_NO_CLK_GATE), so a cycle it wrongly skips shows as a lost or stale beat.
Parameterised over the widths the NIC instantiates (RC, CQ, Ethernet RX) and a narrow one.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_sim  # noqa: E402
from stream_bench import BufferBench  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
DATA_W = int(os.environ.get("PARAM_DATA_W", "32"))
KEEP_W = int(os.environ.get("PARAM_KEEP_W", "4"))
USER_W = int(os.environ.get("PARAM_USER_W", "3"))
# the beat as one number: tdata in the low bits, then tkeep, tlast, tuser
FIELDS = (("tdata", DATA_W), ("tkeep", KEEP_W), ("tlast", 1), ("tuser", USER_W))
BEAT_W = DATA_W + KEEP_W + 1 + USER_W
LATENCY = 1      # cycles from input handshake to output handshake with the sink ready


class TB(BufferBench):
    QUIET = 4
    SETTLE = 6

    def __init__(self, dut, seed):
        super().__init__(dut, seed, depth=1, data_w=BEAT_W, s_valid="s_tvalid", s_ready="s_tready",
                         m_valid="m_tvalid", m_ready="m_tready")
        self.last_taken = None     # data of the last beat the register took (it keeps it when empty)
        for name, _ in FIELDS:
            getattr(dut, "s_" + name).value = 0

    def put(self, word):
        for name, width in FIELDS:
            getattr(self.dut, "s_" + name).value = word & ((1 << width) - 1)
            word >>= width

    def out_word(self):
        word, shift = 0, 0
        for name, width in FIELDS:
            word |= int(getattr(self.dut, "m_" + name).value) << shift
            shift += width
        return word

    def drive_beat(self):
        self.in_data = self.to_send[0][1]
        self.port.s_valid.value = 1
        self.put(self.in_data)

    def drive_idle(self):
        self.in_data = self.rng.getrandbits(BEAT_W)
        self.port.s_valid.value = 0
        self.put(self.in_data)

    def sample(self, in_rst):
        s_ready = int(self.dut.s_tready.value)
        m_valid = int(self.dut.m_tvalid.value)
        self.check_quiet(m_valid or not s_ready,
                         f"after reset: m_tvalid {m_valid} s_tready {s_ready}, expected 0 and 1")
        if in_rst:
            return
        n = len(self.model)
        if m_valid != int(n > 0):
            self.err(f"m_tvalid {m_valid} with {n} beats inside")
        want_ready = int(n == 0 or self.ready)
        if s_ready != want_ready:
            self.err(f"s_tready {s_ready} with {n} beats inside and m_tready {self.ready} "
                     f"(expected {want_ready})")
        if n and not self.ready:
            self.full_cycles += 1      # a beat held by backpressure
        got = self.out_word()
        if n:
            seq, data = self.model[0]
            if got != data:
                self.err(f"beat {seq}: output {got:#x}, expected {data:#x}")
        elif self.last_taken is not None and got != self.last_taken:
            self.err(f"empty register: output {got:#x} changed from the last beat taken {self.last_taken:#x}")
        if m_valid and self.ready and n:
            self.model_pop()
        if self.in_valid and s_ready:
            self.last_taken = self.to_send[0][1]
            self.model_push()
            self.in_valid = 0

    async def probe(self):
        """Mid-cycle: flip s_tvalid and every s_t* field (nothing may move), then also m_tready
        (only s_tready may move, to !m_tvalid || m_tready)."""
        d = self.dut
        await Timer(1, "ns")
        outs = ["s_tready", "m_tvalid"] + ["m_" + n for n, _ in FIELDS]
        before = {o: int(getattr(d, o).value) for o in outs}
        d.s_tvalid.value = 1 - self.in_valid
        self.put(self.in_data ^ ((1 << BEAT_W) - 1))
        await Timer(1, "ns")
        moved = [o for o in outs if int(getattr(d, o).value) != before[o]]
        if moved:
            self.err(f"{', '.join(moved)} moved when s_tvalid and the s_t* fields were flipped mid-cycle")
        d.m_tready.value = 1 - self.ready
        await Timer(1, "ns")
        moved = [o for o in outs[1:] if int(getattr(d, o).value) != before[o]]
        if moved:
            self.err(f"{', '.join(moved)} moved when m_tready was flipped mid-cycle")
        want = int(not before["m_tvalid"] or (1 - self.ready))
        if int(d.s_tready.value) != want:
            self.err(f"s_tready {int(d.s_tready.value)} with m_tvalid {before['m_tvalid']} and m_tready "
                     f"{1 - self.ready} (expected {want})")
        d.m_tready.value = self.ready
        d.s_tvalid.value = self.in_valid
        self.put(self.in_data)
        self.probes += 1


@cocotb.test()
async def test_random_streams(dut):
    """Random beats under no stalls, source idle, sink backpressure and both, with probes."""
    tb = TB(dut, seed=31)
    await tb.start()
    tb.probe_prob = 0.05
    await tb.run_stall_modes(2000 if LONG else 400, 12 if LONG else 8)
    assert tb.full_cycles > 0, "backpressure never held a beat"
    assert tb.probes > 0


@cocotb.test()
async def test_full_rate(dut):
    """Source always valid, sink always ready: one beat per cycle, each LATENCY cycles later."""
    tb = TB(dut, seed=32)
    await tb.start()
    await tb.run_full_rate(300, LATENCY)


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset with the register empty or full and beats on offer: afterwards m_tvalid low, s_tready
    high, and the beats sent after the reset arrive intact and in order."""
    tb = TB(dut, seed=33)
    await tb.start()
    await tb.run_resets(24 if LONG else 12, 40, idle=0.8)
    assert 1 in tb.reset_hits and 0 in tb.reset_hits, "no reset with the register full and empty"


@pytest.mark.parametrize("data_w,keep_w,user_w", [
    (32, 4, 3),       # narrow
    (512, 16, 161),   # RC at 512 bits (beryl_pcie_us_rc)
] + ([
    (512, 16, 183),   # CQ at 512 bits (beryl_pcie_us_cq)
    (512, 64, 65),    # Ethernet RX port with its 64-bit time stamp in tuser (beryl_nic_if)
    (256, 8, 75),     # RC at 256 bits
] if LONG else []))
def test_beryl_axis_in_reg(data_w, keep_w, user_w):
    beryl_sim.run("beryl_axis_in_reg", "rtl/common/beryl_axis_in_reg.f", "test_beryl_axis_in_reg",
                  Path(__file__).parent, parameters={"DATA_W": data_w, "KEEP_W": keep_w, "USER_W": user_w})
