# SPDX-License-Identifier: MIT
"""beryl_nic_rss_indir: a randomly programmed table; random hashes and types (HASH_NONE goes to
queue 0) give queue = table[hash mod depth], with hash and type passed along, in order. The table
is reprogrammed between runs. No stalls, random idle, random backpressure, both."""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402


async def start(dut):
    """Clock, inputs idle, reset for three cycles."""
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.tbl_wr_en.value = 0
    dut.hash_valid.value = 0
    dut.rss_ready.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0


async def run(dut, rng, idle, bp, items):
    out, i, driving = [], 0, False
    while len(out) < len(items):
        await FallingEdge(dut.clk)
        if not driving and i < len(items) and rng.random() >= idle:
            dut.hash.value, dut.hash_type.value = items[i]
            driving = True
        dut.hash_valid.value = int(driving)
        dut.rss_ready.value = int(rng.random() >= bp)
        await ReadOnly()
        if driving and dut.hash_ready.value == 1:
            driving, i = False, i + 1
        if dut.rss_valid.value == 1 and dut.rss_ready.value == 1:
            out.append((int(dut.rss_queue.value), int(dut.rss_hash.value), int(dut.rss_hash_type.value)))
    await FallingEdge(dut.clk)
    dut.hash_valid.value = 0
    return out


@cocotb.test()
async def test_lookup(dut):
    depth = 1 << len(dut.tbl_wr_addr)
    qw = len(dut.tbl_wr_data)
    await start(dut)
    rng = beryl_seed.rng(1, "test_lookup")
    for idle, bp in [(0, 0), (0.4, 0), (0, 0.4), (0.4, 0.4)]:
        table = [rng.getrandbits(qw) for _ in range(depth)]
        for a, q in enumerate(table):
            await FallingEdge(dut.clk)
            dut.tbl_wr_en.value, dut.tbl_wr_addr.value, dut.tbl_wr_data.value = 1, a, q
        await FallingEdge(dut.clk)
        dut.tbl_wr_en.value = 0
        items = [(rng.getrandbits(32), rng.randrange(7)) for _ in range(400)]
        got = await run(dut, rng, idle, bp, items)
        for (h, t), g in zip(items, got):
            assert g == ((table[h % depth] if t else 0), h, t), f"hash {h:08x} type {t}: got {g}"


@cocotb.test()
async def test_gate_closed_while_waiting(dut):
    """A result held for rss_ready with the next hash waiting behind it moves no flop: the clock gate
    is closed (a C++ model then skips the block; sim/README.md, "Clock gates"), and both results come
    out in order once rss_ready rises."""
    await start(dut)
    await FallingEdge(dut.clk)
    dut.tbl_wr_en.value, dut.tbl_wr_addr.value, dut.tbl_wr_data.value = 1, 5, 77
    await FallingEdge(dut.clk)
    dut.tbl_wr_en.value, dut.tbl_wr_addr.value, dut.tbl_wr_data.value = 1, 6, 88
    await FallingEdge(dut.clk)
    dut.tbl_wr_en.value = 0
    dut.hash.value, dut.hash_type.value, dut.hash_valid.value = 5, 1, 1
    await FallingEdge(dut.clk)            # taken at the edge before
    dut.hash.value = 6                    # the next one waits behind the held result
    for _ in range(5):
        await ReadOnly()
        assert dut.rss_valid.value == 1 and dut.hash_ready.value == 0
        assert dut.u_gate.gate_en_now.value == 0, "the gate is open while nothing can move"
        await FallingEdge(dut.clk)
    got = []
    dut.rss_ready.value = 1
    for _ in range(8):
        await ReadOnly()
        if dut.rss_valid.value == 1:
            got.append(int(dut.rss_queue.value))
        taken = dut.hash_valid.value == 1 and dut.hash_ready.value == 1
        await FallingEdge(dut.clk)
        if taken:
            dut.hash_valid.value = 0
    assert got == [77, 88], got


@pytest.mark.parametrize("depth", [128, 512])
def test_beryl_nic_rss_indir(depth):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_rss_indir", "rtl/nic/beryl_nic_rss_indir.f", "test_beryl_nic_rss_indir",
                  Path(__file__).parent, parameters={"TABLE_DEPTH": depth, "QUEUE_W": 12})
