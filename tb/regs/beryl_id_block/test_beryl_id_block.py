# SPDX-License-Identifier: MIT
"""Unit test of the identity block through cocotbext-axi's AxiLiteMaster.

Every register's value after reset is checked against the generated register model
(tb/model/beryl_regs.py) and the parameters given to the build; every read-only register
ignores writes; SCRATCH honours byte strobes; reads past the last register return 0; a mixed
read/write run with random pauses on all five channels keeps every answer right.
"""
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import Combine, with_timeout

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1]))
import axil_tb  # noqa: E402
from axil_tb import AxiResp, read32, write32  # noqa: E402
from model import beryl_regs as R  # noqa: E402

PARAMS = {
    "VENDOR_ID": 0x1ed5,
    "DEVICE_ID": 0xbe01,
    "SUBSYS_VENDOR_ID": 0x1ed5,
    "SUBSYS_ID": 0x0042,
    "GIT_HASH": 0x1a2b3c4d,
    "BUILD_DATE": 0x20251121,
    "BUILD_TIME": 0x00134509,
}
BLOCK = R.BLOCKS["id"]
REGS = BLOCK["regs"]


def expected_values():
    """Register name -> value after reset, from the generated model and the build parameters."""
    p = {k: axil_tb.param(k) for k in PARAMS}
    return {
        "TYPE": R.ID_BLOCK_TYPE,
        "VERSION": R.ID_BLOCK_VERSION,
        "NEXT": R.ID_BLOCK_NEXT,
        "PCI_ID": p["DEVICE_ID"] << 16 | p["VENDOR_ID"],
        "PCI_SUBSYS_ID": p["SUBSYS_ID"] << 16 | p["SUBSYS_VENDOR_ID"],
        "BERYL_VERSION": R.BERYL_RELEASE,
        "GIT_HASH": p["GIT_HASH"],
        "BUILD_DATE": p["BUILD_DATE"],
        "BUILD_TIME": p["BUILD_TIME"],
        "SCRATCH": R.ID_SCRATCH_RESET,
    }


@cocotb.test()
async def test_reset_values(dut):
    m = await axil_tb.start(dut)
    exp = expected_values()
    assert set(exp) == set(REGS), "bench does not cover every register of the model"
    # Header against the model's view of the chain, independent of the flat constants.
    assert BLOCK["base"] == 0 and BLOCK["type"] >> 16 == R.BLOCK_MAGIC
    assert exp["NEXT"] == BLOCK["next"] != 0
    for name, reg in REGS.items():
        v, resp = await read32(m, reg["offset"])
        assert resp == AxiResp.OKAY, name
        assert v == exp[name], f"{name}: read 0x{v:08x}, expected 0x{exp[name]:08x}"
        if reg["reset"] is not None:
            assert v == reg["reset"], f"{name}: 0x{v:08x} differs from the RDL reset 0x{reg['reset']:08x}"
    # Fields decode as the model says.
    v, _ = await read32(m, R.ID_PCI_ID_OFFSET)
    assert (v & R.ID_PCI_ID_DEVICE_ID_MASK) >> R.ID_PCI_ID_DEVICE_ID_LSB == axil_tb.param("DEVICE_ID")
    # Unimplemented words inside the window read as zero.
    for off in range(4 * R.ID_REG_COUNT, 1 << R.ID_BLOCK_ADDR_W, 4):
        v, resp = await read32(m, off)
        assert (v, resp) == (0, AxiResp.OKAY), f"+0x{off:x}"


@cocotb.test()
async def test_writes(dut):
    m = await axil_tb.start(dut)
    rng = axil_tb.rng_for("id_writes")
    exp = expected_values()
    # Read-only registers ignore writes and still answer OKAY.
    for name, reg in REGS.items():
        if reg["access"] == "RO":
            assert await write32(m, reg["offset"], rng.getrandbits(32)) == AxiResp.OKAY
            v, _ = await read32(m, reg["offset"])
            assert v == exp[name], f"{name} changed after a write"
    # Writes past the last register go nowhere.
    assert await write32(m, 4 * R.ID_REG_COUNT, 0xdeadbeef) == AxiResp.OKAY
    assert (await read32(m, 4 * R.ID_REG_COUNT))[0] == 0
    # SCRATCH: full words, then single bytes and half words (byte strobes).
    scratch = R.ID_SCRATCH_RESET
    for _ in range(8):
        scratch = rng.getrandbits(32)
        await write32(m, R.ID_SCRATCH_OFFSET, scratch)
        assert (await read32(m, R.ID_SCRATCH_OFFSET))[0] == scratch
    for lane, nbytes in [(0, 1), (1, 1), (2, 1), (3, 1), (0, 2), (2, 2)]:
        val = rng.getrandbits(8 * nbytes)
        await write32(m, R.ID_SCRATCH_OFFSET + lane, val, nbytes)
        mask = ((1 << 8 * nbytes) - 1) << 8 * lane
        scratch = (scratch & ~mask) | (val << 8 * lane)
        assert (await read32(m, R.ID_SCRATCH_OFFSET))[0] == scratch
    # Reset brings SCRATCH back.
    dut.rst.value = 1
    await cocotb.triggers.ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    await cocotb.triggers.RisingEdge(dut.clk)
    assert (await read32(m, R.ID_SCRATCH_OFFSET))[0] == R.ID_SCRATCH_RESET


@cocotb.test()
async def test_random_pauses(dut):
    """Reads of the constant registers run beside SCRATCH write/read pairs, all channels paused at random."""
    m = await axil_tb.start(dut)
    rng = axil_tb.rng_for("id_pauses")
    axil_tb.set_pauses(axil_tb.master_channels(m), rng, 0.5)
    exp = expected_values()
    ro = [n for n, r in REGS.items() if r["access"] == "RO"]

    async def reader():
        for _ in range(60):
            name = rng.choice(ro)
            v, resp = await read32(m, REGS[name]["offset"])
            assert (v, resp) == (exp[name], AxiResp.OKAY), name

    async def scratcher():
        for _ in range(30):
            val = rng.getrandbits(32)
            assert await write32(m, R.ID_SCRATCH_OFFSET, val) == AxiResp.OKAY
            assert (await read32(m, R.ID_SCRATCH_OFFSET))[0] == val

    await with_timeout(Combine(cocotb.start_soon(reader()), cocotb.start_soon(scratcher())), 100, "us")


def test_beryl_id_block():
    sys.path.insert(0, str(HERE.parents[1] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_id_block", "rtl/regs/beryl_id_block.f", "test_beryl_id_block", HERE,
                  parameters=PARAMS)
