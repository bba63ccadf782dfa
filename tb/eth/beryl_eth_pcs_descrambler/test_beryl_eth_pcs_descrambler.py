# SPDX-License-Identifier: MIT
"""beryl_eth_pcs_descrambler on its own: blocks scrambled by the clause 49 reference in
../baser_ref.py from a random seed come out as the original data once 58 bits have passed (it is
self-synchronous, clause 49.2.10); the output equals the reference descrambler's bit for bit; a single
flipped line bit gives exactly three output errors, 39 and 58 bits apart, and nothing after them
(the error multiplication of x^58 + x^39 + 1); sync headers pass unchanged.

No handshake (one block per clock): the stream modes of the house rule do not apply."""
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import baser_ref as ref  # noqa: E402
import ethtb  # noqa: E402


async def run_blocks(dut, line):
    outs = []
    for h, p in line + [(0, 0)] * 3:
        dut.in_hdr.value = h
        dut.in_data.value = p
        await RisingEdge(dut.clk)
        outs.append((int(dut.out_hdr.value), int(dut.out_data.value)))
    return outs


async def reset(dut):
    Clock(dut.clk, 6400, unit="ps").start()
    dut.rst.value = 1
    dut.in_data.value = 0
    dut.in_hdr.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0


@cocotb.test()
async def test_recovers_and_matches_reference(dut):
    await reset(dut)
    rng = ethtb.seeded("descrambler")
    data = [(rng.choice([0b01, 0b10, 0b11]), rng.getrandbits(64) if k % 7 else 0) for k in range(500)]
    scr = ref.Scrambler(rng.getrandbits(58))
    line = [(h, scr(p)) for h, p in data]
    outs = await run_blocks(dut, line)
    ds = ref.Descrambler()                    # zero state, as the RTL after reset
    want = [(h, ds(p)) for h, p in line]
    for lag in range(4):
        if all(outs[i + lag] == want[i] for i in range(len(want))):
            break
    else:
        raise AssertionError("output differs from the reference descrambler at every latency 0..3")
    assert [p for _, p in outs[lag + 1:lag + len(data)]] == [p for _, p in data[1:]], "data not recovered"
    dut._log.info("latency %d; data recovered from block 1 on", lag)


@cocotb.test()
async def test_error_multiplication(dut):
    await reset(dut)
    rng = ethtb.seeded("descrambler_err")
    data = [(0b10, rng.getrandbits(64)) for _ in range(40)]
    scr = ref.Scrambler(rng.getrandbits(58))
    line = [(h, scr(p)) for h, p in data]
    clean = await run_blocks(dut, line)
    for blk, bit in ((10, 0), (12, 25), (15, 63), (20, 6)):
        hit = list(line)
        hit[blk] = (hit[blk][0], hit[blk][1] ^ (1 << bit))
        outs = await run_blocks(dut, hit)
        diff = 0
        for k in range(len(line)):
            diff |= (outs[k][1] ^ clean[k][1]) << (64 * k)
        pos = [i for i in range(diff.bit_length()) if diff >> i & 1]
        assert len(pos) == 3 and pos[1] - pos[0] == 39 and pos[2] - pos[0] == 58, \
            f"flip at block {blk} bit {bit}: output errors at stream bits {pos}"


def test_beryl_eth_pcs_descrambler():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_pcs_descrambler", "rtl/eth/beryl_eth_pcs_descrambler.f",
                  "test_beryl_eth_pcs_descrambler", Path(__file__).parent)
