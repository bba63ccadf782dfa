# SPDX-License-Identifier: MIT
"""beryl_axis_async_fifo with two unrelated clocks (writer 6.4 ns and reader 4.001 ns, then the
reader slower at 9.7 ns) and cocotbext-axi source/sink (third party) in all four stream modes: no
stalls, random source idle, random sink backpressure, both.

Per build: FRAME_EN=0 (beat FIFO), FRAME_EN=1 (store-and-forward with backpressure; frames longer
than DEPTH are dropped and counted), FRAME_EN=1 + DROP_WHEN_FULL_EN=1 (the writer is never stalled;
frames that meet a full FIFO are dropped whole and counted). Checks: frames out equal frames in
(data, tkeep, per-beat tuser), in order, or in drop mode an in-order subsequence with the missing ones
equal to s_drop_count; in frame mode no frame leaves with a gap (tvalid never falls inside a frame);
with no stalls and a faster reader the writer is never stalled."""
import logging
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, SimTimeoutError, Timer, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "eth"))
import ethtb  # noqa: E402

DEPTH = int(os.environ.get("PARAM_DEPTH", "32"))
FRAME_EN = int(os.environ.get("PARAM_FRAME_EN", "0"))
DROP = int(os.environ.get("PARAM_DROP_WHEN_FULL_EN", "0"))
USER_W = int(os.environ.get("PARAM_USER_W", "4"))
BYTES = 8


class TB:
    def __init__(self, dut, s_ps, m_ps):
        self.dut = dut
        Clock(dut.s_clk, s_ps, unit="ps").start()
        Clock(dut.m_clk, m_ps, unit="ps").start()
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.s_clk, dut.s_rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.m_clk, dut.m_rst)
        for m in (self.src, self.sink):
            m.log.setLevel(logging.WARNING)
        self.gaps = 0
        self.stalls = 0
        cocotb.start_soon(self._watch_out())
        cocotb.start_soon(self._watch_in())

    async def _watch_out(self):
        d, inside = self.dut, False
        while True:
            await RisingEdge(d.m_clk)
            v = int(d.m_axis_tvalid.value)
            if inside and not v:
                self.gaps += 1
            if v and int(d.m_axis_tready.value):
                inside = not int(d.m_axis_tlast.value)

    async def _watch_in(self):
        d = self.dut
        while True:
            await RisingEdge(d.s_clk)
            if int(d.s_axis_tvalid.value) and not int(d.s_axis_tready.value):
                self.stalls += 1

    async def reset(self):
        d = self.dut
        d.s_rst.value = 1
        d.m_rst.value = 1
        await Timer(100, "ns")
        d.s_rst.value = 0
        d.m_rst.value = 0
        await Timer(50, "ns")


def pauser(rng, p):
    while True:
        yield int(rng.random() < p)


def make_frames(rng, n, max_beats):
    out = []
    for _ in range(n):
        nbytes = rng.randint(1, max_beats * BYTES)
        beats = -(-nbytes // BYTES)
        data = bytes(rng.getrandbits(8) for _ in range(nbytes))
        user = [rng.getrandbits(USER_W) for _ in range(beats)]
        # cocotbext-axi keeps tuser per byte; every byte of a beat carries that beat's value
        out.append(AxiStreamFrame(data, tuser=[user[i // BYTES] for i in range(nbytes)]))
    return out


def beat_users(f):
    n = len(f.tdata)
    u = f.tuser if isinstance(f.tuser, list) else [f.tuser] * n
    return u[::BYTES]


def same(a, b):
    return bytes(a.tdata) == bytes(b.tdata) and beat_users(a) == beat_users(b)


async def run_mode(tb, rng, mode, frames):
    src_idle = mode in ("idle", "both")
    sink_bp = mode in ("backpressure", "both")
    if src_idle:
        tb.src.set_pause_generator(pauser(rng, 0.4))
    else:
        tb.src.clear_pause_generator()
        tb.src.pause = False     # clearing the generator leaves the last value in place
    if sink_bp:
        tb.sink.set_pause_generator(pauser(rng, 0.6 if DROP else 0.4))
    else:
        tb.sink.clear_pause_generator()
        tb.sink.pause = False
    drops0 = int(tb.dut.s_drop_count.value)
    for f in frames:
        tb.src.send_nowait(f)
    await tb.src.wait()
    # drain: wait until nothing arrives for a while
    got, idle = [], 0
    while idle < 400:
        await RisingEdge(tb.dut.m_clk)
        if tb.sink.empty():
            idle += 1
        else:
            got.append(tb.sink.recv_nowait())
            idle = 0
    drops = int(tb.dut.s_drop_count.value) - drops0
    return got, drops


def check_subsequence(sent, got):
    """got must be sent with some frames removed, order kept; returns the number removed."""
    i = 0
    for g in got:
        while i < len(sent) and not same(sent[i], g):
            i += 1
        assert i < len(sent), (f"a received frame is not an in-order frame of the input: "
                               f"{bytes(g.tdata).hex()[:40]} {beat_users(g)}")
        i += 1
    return len(sent) - len(got)


async def exercise(dut, s_ps, m_ps, name):
    tb = TB(dut, s_ps, m_ps)
    await tb.reset()
    rng = ethtb.seeded(name)
    n = 120 if ethtb.LONG else 40
    for mode in ("none", "idle", "backpressure", "both"):
        tb.gaps = tb.stalls = 0
        if FRAME_EN and not DROP:
            frames = make_frames(rng, n, DEPTH // 2)
            frames[n // 2:n // 2] = make_frames(rng, 2, 2 * DEPTH)   # some too long for the FIFO
            long_ones = sum(1 for f in frames if -(-len(f.tdata) // BYTES) > DEPTH)
        else:
            frames = make_frames(rng, n, DEPTH // 2 if FRAME_EN else 2 * DEPTH)
            long_ones = 0
        try:
            got, drops = await with_timeout(run_mode(tb, rng, mode, frames), 2, "ms")
        except SimTimeoutError:
            d = tb.dut
            raise AssertionError(f"{mode}: stuck: s_wr {int(d.s_wr_ptr_q.value)} s_rd {int(d.s_rd_ptr.value)} "
                                 f"m_rd {int(d.m_rd_ptr_q.value)} m_wr {int(d.m_wr_ptr.value)} "
                                 f"s_tvalid {int(d.s_axis_tvalid.value)} s_tready {int(d.s_axis_tready.value)} "
                                 f"m_tvalid {int(d.m_axis_tvalid.value)} m_tready {int(d.m_axis_tready.value)} "
                                 f"sink queue {tb.sink.count()}")
        missing = check_subsequence(frames, got)
        assert missing == drops, f"{mode}: {missing} frames missing, drop counter says {drops}"
        if not DROP:
            assert missing == long_ones, f"{mode}: {missing} frames missing, only {long_ones} too long"
        if FRAME_EN:
            assert tb.gaps == 0, f"{mode}: {tb.gaps} gaps inside frames on the output"
        if DROP:
            assert tb.stalls == 0, f"{mode}: writer stalled {tb.stalls} times in drop mode"
        if mode == "none" and m_ps < s_ps and not FRAME_EN:
            assert tb.stalls == 0, f"writer stalled {tb.stalls} times with a faster, never-stalling reader"
        dut._log.info("%s s=%dps m=%dps %-12s: %d frames in, %d out, %d dropped, %d writer stalls",
                      name, s_ps, m_ps, mode, len(frames), len(got), drops, tb.stalls)
        if DROP and mode == "backpressure":
            assert drops > 0, "backpressure should have filled the FIFO"


@cocotb.test()
async def test_fast_reader(dut):
    await exercise(dut, 6400, 4002, "fifo_fast_reader")


@cocotb.test()
async def test_slow_reader(dut):
    await exercise(dut, 6400, 9700, "fifo_slow_reader")


@pytest.mark.parametrize("frame_en,drop", [(0, 0), (1, 0), (1, 1)])
def test_beryl_axis_async_fifo(frame_en, drop):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import beryl_sim
    beryl_sim.run("beryl_axis_async_fifo", "rtl/common/beryl_axis_async_fifo.f", "test_beryl_axis_async_fifo",
                  Path(__file__).parent, parameters={"DATA_W": 64, "USER_W": USER_W, "DEPTH": DEPTH,
                                                     "FRAME_EN": frame_en, "DROP_WHEN_FULL_EN": drop})
