# SPDX-License-Identifier: MIT
"""beryl_eth_mac_stats on its own: random per-frame records (every flag combination, lengths across
all RMON buckets, runts and oversize) at random spacing, including one per clock; the counters read
back equal the Python expectation of ../ethtb.py (the counter map of beryl_eth_pkg, RMON RFC 2819
buckets). stat_clear zeroes everything and wins over a record in the same clock; addresses past the
last counter read zero; with CNT_W = 16 the counters wrap modulo 2^16.

The record input has no handshake (one record per clock at most), so "random source idle" is the
random record spacing and there is no backpressure."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

CNT_W = int(os.environ.get("PARAM_CNT_W", "64"))


def encode_stat(rec):
    v = 0
    for name in ethtb.STAT_FIELDS:
        v = (v << 1) | int(rec.get(name, 0))
    return (v << ethtb.STAT_LEN_W) | rec["len"]


def random_record(rng):
    kind = rng.random()
    if kind < 0.5:
        n = rng.choice([64, 65, 127, 128, 255, 256, 511, 512, 1023, 1024, 1518, 1519, 9216,
                        rng.randint(64, 9216)])
        rec = {"good": 1, "len": n}
    else:
        n = rng.randint(0, 16383)
        rec = {"good": 0, "len": n}
        rec["bad_fcs"] = int(rng.random() < 0.4)
        rec["runt"] = int(n < 64)
        rec["oversize"] = int(n > 9216)
        rec["err_ctrl"] = int(rng.random() < 0.2)
        rec["underflow"] = int(rng.random() < 0.1)
    rec["pause"] = int(rec["good"] and rng.random() < 0.1)
    r = rng.random()
    rec["bcast"] = int(r < 0.2)
    rec["mcast"] = int(0.2 <= r < 0.4)
    rec["valid"] = 1
    return rec


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, 6400, unit="ps").start()
        dut.mac_stat.value = 0
        dut.stat_clear.value = 0
        dut.stat_rd_addr.value = 0

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        self.dut.rst.value = 0

    async def push(self, recs, rng, idle_p):
        for rec in recs:
            while rng.random() < idle_p:
                await RisingEdge(self.dut.clk)
                self.dut.mac_stat.value = 0
            await RisingEdge(self.dut.clk)
            self.dut.mac_stat.value = encode_stat(rec)
        await RisingEdge(self.dut.clk)
        self.dut.mac_stat.value = 0

    async def read(self, addr):
        await RisingEdge(self.dut.clk)
        self.dut.stat_rd_addr.value = addr
        await RisingEdge(self.dut.clk)
        await FallingEdge(self.dut.clk)
        return int(self.dut.stat_rd_data.value)

    async def read_all(self):
        return {name: await self.read(i) for name, i in ethtb.CNT.items()}


def expect(recs):
    return {k: v % (1 << CNT_W) for k, v in ethtb.expected_counters(recs).items()}


@cocotb.test()
async def test_counters(dut):
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_stats")
    recs = []
    for idle_p in (0.0, 0.5, 0.9):
        batch = [random_record(rng) for _ in range(300 if ethtb.LONG else 120)]
        await tb.push(batch, rng, idle_p)
        recs += batch
        got = await tb.read_all()
        assert got == expect(recs), f"idle {idle_p}: got {got}\nwant {expect(recs)}"
    for addr in range(len(ethtb.CNT), 32):
        assert await tb.read(addr) == 0, f"address {addr} past the last counter must read 0"
    dut._log.info("%d records counted; CNT_W %d; bytes_all %d", len(recs), CNT_W, got["bytes_all"])


@cocotb.test()
async def test_clear(dut):
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac_stats_clear")
    await tb.push([random_record(rng) for _ in range(20)], rng, 0.0)
    # clear in the same clock as a record: the record is lost, every counter reads 0
    await RisingEdge(dut.clk)
    dut.mac_stat.value = encode_stat({"valid": 1, "good": 1, "len": 100})
    dut.stat_clear.value = 1
    await RisingEdge(dut.clk)
    dut.mac_stat.value = 0
    dut.stat_clear.value = 0
    got = await tb.read_all()
    assert all(v == 0 for v in got.values()), got
    recs = [random_record(rng) for _ in range(30)]
    await tb.push(recs, rng, 0.3)
    assert await tb.read_all() == expect(recs)


@pytest.mark.parametrize("cnt_w", [64, 16])
def test_beryl_eth_mac_stats(cnt_w):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_stats", "rtl/eth/beryl_eth_mac_stats.f", "test_beryl_eth_mac_stats",
                  Path(__file__).parent, parameters={"CNT_W": cnt_w})
