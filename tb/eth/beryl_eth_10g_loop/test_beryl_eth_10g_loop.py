# SPDX-License-Identifier: MIT
"""System loop of one 10G port: cocotbext-axi stream source -> MAC TX -> PCS TX -> serial channel
model (bit offset, bad sync headers) -> PCS RX -> MAC RX -> cocotbext-axi stream monitor. Frames are
scapy-built, lengths sampled 60..1514 plus 9000; block lock is found by slipping, lost on a burst of
bad headers and found again, and every frame sent while the link is up arrives intact and counted."""
import logging
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamMonitor, AxiStreamSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402


class Channel:
    def __init__(self, dut, offset):
        self.dut, self.bits, self.n, self.corrupt, self.slips = dut, 0, offset, 0, 0
        dut.serdes_rx_data.value = 0
        dut.serdes_rx_hdr.value = 0
        cocotb.start_soon(self.run())

    async def run(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            hdr = int(d.serdes_tx_hdr.value)
            if self.corrupt:
                hdr = 0b11
                self.corrupt -= 1
            self.bits |= (hdr | int(d.serdes_tx_data.value) << 2) << self.n
            self.n += 66
            if int(d.serdes_rx_bitslip.value):
                self.bits >>= 1
                self.n -= 1
                self.slips += 1
            if self.n >= 66:
                out = self.bits & ((1 << 66) - 1)
                self.bits >>= 66
                self.n -= 66
                d.serdes_rx_hdr.value = out & 3
                d.serdes_rx_data.value = out >> 2


async def wait_lock(dut):
    for _ in range(20000):
        await RisingEdge(dut.clk)
        if int(dut.rx_block_lock.value):
            return
    raise AssertionError("no block lock")


@cocotb.test()
async def test_loop(dut):
    Clock(dut.clk, 6400, unit="ps").start()
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_tx"), dut.clk, dut.rst)
    mon = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "m_axis_rx"), dut.clk, dut.rst)
    src.log.setLevel(logging.WARNING)
    mon.log.setLevel(logging.WARNING)
    dut.rx_stat_rd_addr.value = 0
    dut.rst.value = 1
    ch = Channel(dut, offset=41)
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    rng = ethtb.seeded("test_loop")
    await wait_lock(dut)
    await ClockCycles(dut.clk, 20)
    sent = []

    async def burst(frames):
        for data in frames:
            await src.send(AxiStreamFrame(data))
        for data in frames:
            f = await with_timeout(mon.recv(), 200, "us")
            assert bytes(f.tdata) == data.ljust(60, b"\0"), f"len {len(data)}"
            u = f.tuser[-1] if isinstance(f.tuser, list) else f.tuser
            assert u & 1 == 0, "frame flagged bad"
            sent.append(data)

    lengths = ethtb.sweep_lengths(rng, 60, 1514, sample=16) + [9000, 20, 59]
    await burst([ethtb.make_frame(n, rng) for n in lengths])
    ch.corrupt = 40
    await ClockCycles(dut.clk, 60)
    assert not int(dut.rx_block_lock.value), "40 bad sync headers must drop block lock"
    await wait_lock(dut)
    await ClockCycles(dut.clk, 20)
    await burst([ethtb.make_frame(rng.randint(60, 1514), rng) for _ in range(10)])
    await ClockCycles(dut.clk, 20)
    assert mon.empty()
    counts = {}
    for name in ("frames_good", "frames_bad", "bytes_good"):
        dut.rx_stat_rd_addr.value = ethtb.CNT[name]
        await ClockCycles(dut.clk, 3)
        counts[name] = int(dut.rx_stat_rd_data.value)
    assert counts["frames_good"] == len(sent) and counts["frames_bad"] == 0
    assert counts["bytes_good"] == sum(max(len(d), 60) + 4 for d in sent)
    dut._log.info("loop: %d frames intact, %d slips, counters %s", len(sent), ch.slips, counts)


def test_beryl_eth_10g_loop():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_10g_loop_tb", "tb/eth/beryl_eth_10g_loop/beryl_eth_10g_loop_tb.f",
                  "test_beryl_eth_10g_loop", Path(__file__).parent)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
