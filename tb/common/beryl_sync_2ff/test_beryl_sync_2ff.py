# SPDX-License-Identifier: MIT
"""beryl_sync_2ff on its own: reset value held during and right after reset; an input written from an
unrelated time (any picosecond within the 6.4 ns destination period) appears on the output after two or three
destination edges, unchanged and in order (every value held long enough to be seen is seen); a single
bit toggle from the slow side is never missed. No handshake, so the stream modes do not apply."""
import os
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

WIDTH = int(os.environ.get("PARAM_WIDTH", "8"))
RESET_VAL = int(os.environ.get("PARAM_RESET_VAL", "165"))


@cocotb.test()
async def test_sync(dut):
    Clock(dut.clk, 6400, unit="ps").start()
    rng = beryl_seed.rng(5, "test_sync")
    dut.in_async.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    assert int(dut.out_sync.value) == RESET_VAL
    dut.rst.value = 0
    await FallingEdge(dut.clk)
    assert int(dut.out_sync.value) == RESET_VAL, "output must keep the reset value until the input has passed"
    # values held for 3..6 destination clocks, changed at arbitrary times (not on a destination edge)
    seen, sent = [], []
    cyc = 0

    async def watch():
        last = None
        while True:
            await RisingEdge(dut.clk)
            await FallingEdge(dut.clk)
            v = int(dut.out_sync.value)
            if v != last:
                seen.append((cyc, v))
                last = v

    cocotb.start_soon(watch())
    for _ in range(200):
        v = rng.getrandbits(WIDTH)
        await cocotb.triggers.Timer(rng.randint(1, 6399), "ps")
        dut.in_async.value = v
        sent.append(v)
        await ClockCycles(dut.clk, rng.randint(3, 6))
    await ClockCycles(dut.clk, 4)
    vals = [v for _, v in seen]
    if vals and vals[0] == RESET_VAL:
        vals = vals[1:]
    # consecutive equal values collapse on the output; compare the de-duplicated sequences
    seq = [0] + sent
    dedup = [v for i, v in enumerate(seq) if i == 0 or v != seq[i - 1]]
    assert vals == dedup, f"output sequence differs from input: {vals[:8]} vs {dedup[:8]}"


@cocotb.test()
async def test_latency(dut):
    """A change right after a destination edge shows after exactly two more edges."""
    Clock(dut.clk, 6400, unit="ps").start()
    dut.in_async.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)
    for v in (1, 2, 3, (1 << WIDTH) - 1, 0):
        await RisingEdge(dut.clk)
        await cocotb.triggers.Timer(100, "ps")
        prev = int(dut.out_sync.value)
        dut.in_async.value = v
        await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        assert int(dut.out_sync.value) == prev, "a value must not pass in one edge"
        await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        assert int(dut.out_sync.value) == v, f"value {v} not out two edges after it changed"


def test_beryl_sync_2ff():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import beryl_sim
    beryl_sim.run("beryl_sync_2ff", "rtl/common/beryl_sync_2ff.f", "test_beryl_sync_2ff", Path(__file__).parent,
                  parameters={"WIDTH": WIDTH, "RESET_VAL": RESET_VAL})
