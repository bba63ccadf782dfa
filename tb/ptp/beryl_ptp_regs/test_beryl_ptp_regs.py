# SPDX-License-Identifier: MIT
"""beryl_ptp_regs: the PTP clock block through its AXI-Lite registers (cocotbext-axi AxiLiteMaster).

The clock arithmetic itself is checked exhaustively by tb/ptp/beryl_ptp_clock and the periodic output by
tb/ptp/beryl_ptp_perout; here the register wiring is checked against the block's own outputs and plain
integer arithmetic: header and build parameters from regs/beryl_ptp.rdl (via the generated
beryl_regs.py), a snapshot equals the `tod` output of one cycle inside the access, SET_TOD lands every
field where the map says, ADJ adds a signed offset, INCR changes the rate (read back and measured),
a refused set is flagged and counted, byte strobes, PPS and step counters, the periodic output's edges
against the time of day, and its configuration error.
"""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "model"))
import beryl_regs as R  # noqa: E402

B = R.BLOCKS["ptp"]["regs"]
SEC_NS = 10**9


def off(name):
    return B[name]["offset"]


def tod_ns(v):
    """tod word {sec48, ns32, fns16} -> ns as a float-free integer in units of 2^-16 ns."""
    return (((v >> 48) * SEC_NS + ((v >> 16) & 0xFFFFFFFF)) << 16) | (v & 0xFFFF)


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        self.hist = []           # tod of every cycle since the monitor started
        self.perout = []         # (tod, level) per cycle
        self.steps = 0
        self.pps = 0

    async def reset(self):
        Clock(self.dut.clk, 4, unit="ns").start()
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        cocotb.start_soon(self.monitor())
        await ClockCycles(self.dut.clk, 2)

    async def monitor(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            t = int(self.dut.tod.value)
            self.hist.append(t)
            self.perout.append((t, int(self.dut.perout.value)))
            self.steps += int(self.dut.tod_step.value)
            self.pps += int(self.dut.pps.value)

    async def rd(self, name):
        return int.from_bytes((await self.axil.read(off(name), 4)).data, "little")

    async def wr(self, name, v, strb=None):
        if strb is None:
            await self.axil.write(off(name), int(v & 0xFFFFFFFF).to_bytes(4, "little"))
        else:  # write only the bytes whose strobe bit is set
            for b in range(4):
                if strb >> b & 1:
                    await self.axil.write(off(name) + b, bytes([(v >> (8 * b)) & 0xFF]))

    async def snap(self):
        n0 = len(self.hist)
        await self.wr("CMD", R.PTP_CMD_SNAP_MASK)
        fns = await self.rd("SNAP_TOD_FNS")
        ns = await self.rd("SNAP_TOD_NS")
        slo = await self.rd("SNAP_TOD_SEC_LO")
        shi = await self.rd("SNAP_TOD_SEC_HI")
        v = (shi << 80) | (slo << 48) | (ns << 16) | fns
        assert v in self.hist[n0:], f"snapshot {v:#x} is not the time of day of any cycle of the access"
        return v

    async def set_tod(self, sec, ns, fns=0):
        await self.wr("SET_SEC_HI", sec >> 32)
        await self.wr("SET_SEC_LO", sec & 0xFFFFFFFF)
        await self.wr("SET_NS", ns)
        await self.wr("SET_FNS", fns)
        await self.wr("CMD", R.PTP_CMD_SET_TOD_MASK)
        await ClockCycles(self.dut.clk, 3)


@cocotb.test()
async def test_header_and_params(dut):
    tb = TB(dut)
    await tb.reset()
    assert await tb.rd("TYPE") == R.PTP_BLOCK_TYPE
    assert await tb.rd("VERSION") == R.PTP_BLOCK_VERSION
    assert await tb.rd("NEXT") == int(dut.BLOCK_NEXT.value)
    assert await tb.rd("NOM_INCR_NS") == 4
    assert await tb.rd("NOM_INCR_FNS") == 0
    assert await tb.rd("FNS_W") == 32
    assert await tb.rd("INCR_CUR_NS") == 4 and await tb.rd("INCR_CUR_FNS") == 0
    assert await tb.rd("CMD") == 0
    assert await tb.rd("PEROUT_PERIOD_SEC") == 1, "reset value from the map"


@cocotb.test()
async def test_snapshot_set_adjust(dut):
    tb = TB(dut)
    await tb.reset()
    # snapshots advance with the clock: 4 ns per cycle between two snapshots' cycles
    a = await tb.snap()
    b = await tb.snap()
    ia, ib = tb.hist.index(a), tb.hist.index(b)
    assert tod_ns(b) - tod_ns(a) == (ib - ia) * (4 << 16)
    # every field of SET lands in place (seconds above 32 bits, ns near the rollover, a fraction)
    sec, ns, fns = 0x1234_89AB_CDEF, 999_999_990, 0x8000
    steps0 = tb.steps
    await tb.set_tod(sec, ns, fns)
    await ClockCycles(dut.clk, 8)
    want = (sec << 48) | (ns << 16) | fns
    assert want in tb.hist, "the set value never appeared on tod"
    i = tb.hist.index(want)
    # the counting goes on from there and rolls into the next second
    assert tod_ns(tb.hist[i + 5]) == tod_ns(want) + 5 * (4 << 16)
    assert tb.hist[i + 5] >> 48 == sec + 1
    assert tb.steps == steps0 + 1
    s = await tb.snap()
    assert tod_ns(s) > tod_ns(want)
    # a negative offset with a fraction: -1000 ns + 0x4000 / 2^16
    await tb.wr("ADJ_NS", -1000)
    await tb.wr("ADJ_FNS", 0x4000)
    n0 = len(tb.hist)
    await tb.wr("CMD", R.PTP_CMD_ADJ_MASK)
    await ClockCycles(dut.clk, 3)
    d = [tod_ns(tb.hist[k + 1]) - tod_ns(tb.hist[k]) for k in range(n0 - 1, len(tb.hist) - 1)]
    jumps = [x for x in d if x != 4 << 16]
    assert jumps == [(4 << 16) - (1000 << 16) + 0x4000], f"deltas {d}"
    assert await tb.rd("STEP_COUNT") == tb.steps == steps0 + 2


@cocotb.test()
async def test_increment(dut):
    tb = TB(dut)
    await tb.reset()
    incr_fns = round(4e-4 * 2**32)        # +100 ppm on 4 ns
    await tb.wr("INCR_NS", 4)
    await tb.wr("INCR_FNS", incr_fns)
    await tb.wr("CMD", R.PTP_CMD_INCR_MASK)
    await ClockCycles(dut.clk, 3)
    assert await tb.rd("INCR_CUR_NS") == 4 and await tb.rd("INCR_CUR_FNS") == incr_fns
    n0 = len(tb.hist)
    await ClockCycles(dut.clk, 10000)
    t0, t1 = tod_ns(tb.hist[n0]), tod_ns(tb.hist[-1])
    n = len(tb.hist) - 1 - n0
    exact = n * ((4 << 32) + incr_fns)      # units of 2^-32 ns
    assert abs((t1 - t0) - exact / 2**16) <= 1, "rate differs from the increment by more than one fns"


@cocotb.test()
async def test_set_error_and_strobes(dut):
    tb = TB(dut)
    await tb.reset()
    await tb.set_tod(7, 10**9)                 # ns out of range: refused
    assert await tb.rd("STATUS") & R.PTP_STATUS_SET_ERR_MASK
    assert await tb.rd("SET_ERR_COUNT") == 1
    s = await tb.snap()
    assert s >> 48 == 0, "a refused set changed the time"
    await tb.set_tod(7, 5)
    assert not await tb.rd("STATUS") & R.PTP_STATUS_SET_ERR_MASK, "an accepted set clears SET_ERR"
    # byte strobes: only the strobed bytes of a staging word change
    await tb.wr("SET_NS", 0x11223344)
    await tb.wr("SET_NS", 0xAABBCCDD, strb=0b0101)
    assert await tb.rd("SET_NS") == 0x11BB33DD


@cocotb.test()
async def test_pps_counter(dut):
    tb = TB(dut)
    await tb.reset()
    await tb.set_tod(5, SEC_NS - 2000)         # 2 us before a second
    p0 = tb.pps
    c0 = await tb.rd("PPS_COUNT")
    await ClockCycles(dut.clk, 600)
    assert tb.pps == p0 + 1
    assert await tb.rd("PPS_COUNT") == c0 + 1
    # a set across a second boundary is a step, not a counted second
    await tb.set_tod(9, SEC_NS - 8)
    await tb.set_tod(11, 0)
    assert await tb.rd("PPS_COUNT") == c0 + 2, "only the second reached by counting after the first set"


@cocotb.test()
async def test_perout(dut):
    tb = TB(dut)
    await tb.reset()
    await tb.set_tod(3, 0)
    start_ns, period_ns, width = 20_000, 2_000, 500
    await tb.wr("PEROUT_START_SEC_LO", 3)
    await tb.wr("PEROUT_START_NS", start_ns)
    await tb.wr("PEROUT_PERIOD_SEC", 0)
    await tb.wr("PEROUT_PERIOD_NS", period_ns)
    await tb.wr("PEROUT_WIDTH_NS", width)
    e0 = await tb.rd("PEROUT_EDGES")
    n0 = len(tb.perout)
    await tb.wr("PEROUT_CTRL", 1)
    await ClockCycles(dut.clk, (start_ns + 5 * period_ns) // 4 + 50)
    rises, falls = [], []
    tr = tb.perout[n0:]
    # the output is registered: it shows in cycle k what the time of day of cycle k - 1 reached
    for k in range(1, len(tr)):
        if tr[k][1] and not tr[k - 1][1]:
            rises.append(tr[k - 1][0])
        if tr[k - 1][1] and not tr[k][1]:
            falls.append(tr[k - 1][0])
    assert len(rises) >= 5
    for k, t in enumerate(rises):
        edge = (3 * SEC_NS + start_ns + k * period_ns) << 16
        # the first clock whose time of day is at or past the edge
        assert edge <= tod_ns(t) < edge + (4 << 16), f"edge {k} at {tod_ns(t) / 65536} ns"
    for r, f in zip(rises, falls):
        assert width << 16 <= tod_ns(f) - tod_ns(r) < (width + 4) << 16
    assert await tb.rd("PEROUT_EDGES") - e0 == len([1 for k in range(1, len(tb.perout))
                                                     if tb.perout[k][1] and not tb.perout[k - 1][1]])
    assert not await tb.rd("STATUS") & R.PTP_STATUS_PEROUT_CFG_ERR_MASK
    # a zero period is refused when enabling
    await tb.wr("PEROUT_CTRL", 0)
    await tb.wr("PEROUT_PERIOD_NS", 0)
    await tb.wr("PEROUT_CTRL", 1)
    await ClockCycles(dut.clk, 4)
    assert await tb.rd("STATUS") & R.PTP_STATUS_PEROUT_CFG_ERR_MASK


def test_beryl_ptp_regs():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_ptp_regs", "rtl/ptp/beryl_ptp_regs.f", "test_beryl_ptp_regs",
                  Path(__file__).parent, parameters=dict(BLOCK_NEXT=0x21100))


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
