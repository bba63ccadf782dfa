# SPDX-License-Identifier: MIT
"""Light 512-bit AXI-Stream pass-through bench for the NIC offload unit tests.

One coroutine does everything, so nothing races: at each falling clock edge it drives the inputs
for the coming rising edge (source beat with random idle, sink tready and side-channel ready with
random backpressure), waits for ReadOnly and records the handshakes that the rising edge will make.
Lighter than cocotbext-axi's models, which matters at 512 bits (see docs/toolchain.md).
Frames are bytes; byte 0 travels in tdata bits 7:0.
"""
import random

from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

BEAT = 64
MODES = {"plain": (0.0, 0.0), "idle": (0.4, 0.0), "bp": (0.0, 0.4), "both": (0.4, 0.4)}


def beats(frame):
    """Split a frame into (data int, keep int, last) beats."""
    out = []
    for i in range(0, len(frame), BEAT):
        chunk = frame[i:i + BEAT]
        out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, i + BEAT >= len(frame)))
    return out


class PassBench:
    """Drives s_axis_*, receives m_axis_* and a side channel `<side>` / `<side>_valid` / `<side>_ready`.

    `first_hook(dut, side_data)` drives per-frame inputs together with the first beat."""

    def __init__(self, dut, side, idle=0.0, bp=0.0, seed=1, first_hook=None):
        self.dut, self.side = dut, side
        self.idle, self.bp = idle, bp
        self.rng = random.Random(seed)
        self.queue = []          # (frame, side data)
        self.cur = []            # beats of the frame being sent
        self.cur_side = None
        self.first = True
        self.rx_frames = []
        self.rx_cur = bytearray()
        self.side_out = []
        self.first_hook = first_hook
        self.cycles = 0
        dut.s_axis_tvalid.value = 0
        dut.s_axis_tdata.value = 0
        dut.s_axis_tkeep.value = 0
        dut.s_axis_tlast.value = 0
        dut.m_axis_tready.value = 0
        getattr(dut, f"{side}_ready").value = 0

    async def reset(self):
        d = self.dut
        Clock(d.clk, 4, unit="ns").start()
        d.rst.value = 1
        await ClockCycles(d.clk, 4)
        d.rst.value = 0

    def send(self, frame, side=None):
        self.queue.append((frame, side))

    async def run_until_done(self, n_frames, limit=200000):
        d = self.dut
        side_valid = getattr(d, f"{self.side}_valid")
        side_ready = getattr(d, f"{self.side}_ready")
        side_sig = getattr(d, self.side)
        driving = False
        while len(self.side_out) < n_frames or len(self.rx_frames) < n_frames:
            await FallingEdge(d.clk)
            self.cycles += 1
            assert self.cycles < limit, "bench timed out"
            if not driving:
                if not self.cur and self.queue:
                    f, self.cur_side = self.queue.pop(0)
                    self.cur, self.first = beats(f), True
                if self.cur and self.rng.random() >= self.idle:
                    dt, k, last = self.cur[0]
                    d.s_axis_tdata.value, d.s_axis_tkeep.value, d.s_axis_tlast.value = dt, k, int(last)
                    if self.first and self.first_hook:
                        self.first_hook(d, self.cur_side)
                    driving = True
            d.s_axis_tvalid.value = int(driving)
            d.m_axis_tready.value = int(self.rng.random() >= self.bp)
            side_ready.value = int(self.rng.random() >= self.bp)
            await ReadOnly()
            if driving and d.s_axis_tready.value == 1:
                self.cur.pop(0)
                self.first = False
                driving = False
            if d.m_axis_tvalid.value == 1 and d.m_axis_tready.value == 1:
                k = int(d.m_axis_tkeep.value)
                n = k.bit_length()
                assert k == (1 << n) - 1, "tkeep not contiguous"
                self.rx_cur += int(d.m_axis_tdata.value).to_bytes(BEAT, "little")[:n]
                if d.m_axis_tlast.value == 1:
                    self.rx_frames.append(bytes(self.rx_cur))
                    self.rx_cur = bytearray()
            if side_valid.value == 1 and side_ready.value == 1:
                self.side_out.append(int(side_sig.value))
