# SPDX-License-Identifier: MIT
"""beryl_eth_mac_100g_tx -> beryl_eth_mac_100g_rx, wire looped in one clock. The TX source is kept
always valid (frames back to back, the TX at its full rate: wire-bound or user-side-bound per size), runs
of frames of each size: lengths 20..1514 sampled (every one 20..1514 under BERYL_LONG=1) and 9000, scapy
frames. Every frame must come out intact, in order, flagged good and recorded, nothing dropped, and the
receiver keeps up: its output of each run ends within a fixed latency of the run's last /T/ on the wire."""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

PERIOD_PS = 5120
RUN = 8            # frames per size


class TB:
    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.queue = []
        self.cycle = 0
        self.rx = []            # (cycle of last beat, bytes, err)
        self.cur = bytearray()
        self.stats = []
        self.parser = ethtb.CgmiiParser()
        self.ends = []          # cycle each frame's end was seen on the wire
        dut.s_axis_tx_tvalid.value = 0
        cocotb.start_soon(self._run())

    def send(self, data):
        for off in range(0, len(data), 64):
            self.queue.append((data[off:off + 64], off + 64 >= len(data)))

    async def _run(self):
        d = self.dut
        shown = None
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            if int(d.rst.value):
                continue
            nf = len(self.parser.frames)
            self.parser.feed(d.cgmii_d.value, d.cgmii_c.value)
            self.ends += [self.cycle] * (len(self.parser.frames) - nf)
            if int(d.m_axis_rx_tvalid.value):
                n = int(d.m_axis_rx_tkeep.value).bit_length()
                self.cur += int(d.m_axis_rx_tdata.value).to_bytes(64, "little")[:n]
                if int(d.m_axis_rx_tlast.value):
                    self.rx.append((self.cycle, bytes(self.cur), int(d.m_axis_rx_tuser.value) & 1))
                    self.cur = bytearray()
            rec = ethtb.decode_stat(d.rx_stat.value)
            if rec["valid"]:
                self.stats.append(rec)
            # the beat shown during the last clock was taken if tready was high at that edge
            if shown is not None and self.took:
                self.queue.pop(0)
            shown = None
            if self.queue:
                chunk, last = self.queue[0]
                d.s_axis_tx_tdata.value = int.from_bytes(chunk.ljust(64, b"\0"), "little")
                d.s_axis_tx_tkeep.value = (1 << len(chunk)) - 1
                d.s_axis_tx_tlast.value = int(last)
                d.s_axis_tx_tuser.value = 0
                d.s_axis_tx_tvalid.value = 1
                shown = chunk
                self.took = bool(int(d.s_axis_tx_tready.value))   # tready from flops only
            else:
                d.s_axis_tx_tvalid.value = 0
                self.took = False


@cocotb.test()
async def test_loop(dut):
    tb = TB(dut)
    tb.took = False
    dut.rst.value = 1
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)
    rng = ethtb.seeded("test_loop")
    sizes = ethtb.sweep_lengths(rng, 20, 1514, sample=24) + [9000]
    sent = []
    for n in sizes:
        for i in range(RUN):
            data = ethtb.make_frame(n, rng, dst=["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff"][i % 2])
            sent.append(data)
            tb.send(data)
    for _ in range(100000):
        if len(tb.rx) >= len(sent) and not tb.queue:
            break
        await ClockCycles(dut.clk, 32)
    await ClockCycles(dut.clk, 20)
    assert len(tb.rx) == len(sent), f"{len(tb.rx)} frames out, {len(sent)} sent"
    assert not tb.parser.errors, tb.parser.errors[:4]
    assert int(dut.rx_drop_count.value) == 0 and int(dut.rx_short_count.value) == 0
    lat = set()
    for k, (data, (cyc, got, err), rec) in enumerate(zip(sent, tb.rx, tb.stats)):
        want = data.ljust(60, b"\0")
        assert got == want and err == 0, f"frame {k} len {len(data)}: intact {got == want}, err {err}"
        assert rec["good"] == 1 and rec["len"] == len(want) + 4, f"frame {k}: record {rec}"
        lat.add(cyc - tb.ends[k])
    assert len(tb.stats) == len(sent)
    # full rate: each frame leaves the RX a fixed few clocks after its /T/ (one or two values: whether
    # the frame's last beat shared its clock with the next frame's first beat and waited one clock)
    assert max(lat) - min(lat) <= 2 and max(lat) <= 8, f"RX latency after /T/ varies: {sorted(lat)}"
    dut._log.info("loop: %d frames of %d sizes intact, latency after /T/ %s clocks", len(sent), len(sizes),
                  sorted(lat))


def test_beryl_eth_mac_100g_loop():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_100g_loop_tb", "tb/eth/beryl_eth_mac_100g_loop/beryl_eth_mac_100g_loop_tb.f",
                  "test_beryl_eth_mac_100g_loop", Path(__file__).parent)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
