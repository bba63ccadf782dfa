# SPDX-License-Identifier: MIT
"""Shared pieces of the register-block benches: clock and reset, an AxiLiteMaster from
cocotbext-axi (the independent bus model) and random pauses on its channels.

Pauses on AW/W/AR make the master idle at random; pauses on B/R drop bready/rready at random,
which is backpressure on the design's responses.
"""
import os
import random
import sys
from pathlib import Path

from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiResp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import beryl_seed  # noqa: E402

__all__ = ["AxiResp", "start", "set_pauses", "read32", "write32", "param", "pause_gen"]


def param(name, default=None):
    """Value of a top-level parameter the pytest side passed to the build (PARAM_<name>)."""
    v = os.environ.get(f"PARAM_{name}")
    return default if v is None else int(v, 0)


def pause_gen(rng, p):
    while True:
        yield rng.random() < p


def set_pauses(channels, rng, p):
    for ch in channels:
        if p:
            ch.set_pause_generator(pause_gen(rng, p))
        else:
            ch.clear_pause_generator()


def master_channels(m):
    return [m.write_if.aw_channel, m.write_if.w_channel, m.write_if.b_channel,
            m.read_if.ar_channel, m.read_if.r_channel]


async def start(dut, prefix="s_axil"):
    """Start the clock, build the master on `prefix`, reset the design; return the master."""
    Clock(dut.clk, 4, "ns").start()
    master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, prefix), dut.clk, dut.rst)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    return master


async def read32(master, addr):
    """(value, resp) of one 32-bit read."""
    r = await master.read(addr, 4)
    return int.from_bytes(r.data, "little"), r.resp


async def write32(master, addr, value, nbytes=4):
    """Write the low `nbytes` bytes of `value` starting at byte address `addr`; return resp."""
    r = await master.write(addr, (value & ((1 << 8 * nbytes) - 1)).to_bytes(nbytes, "little"))
    return r.resp


def rng_for(name):
    """A generator seeded from the test name (and BERYL_SEED when set, tb/common/beryl_seed.py)."""
    return random.Random(f"{name}:{beryl_seed.seed(1, name)}")
