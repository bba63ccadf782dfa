# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_tlp_mux: N-to-1 TLP arbiter, whole TLPs, round robin, full rate.

Random TLPs (header-only and 1..7 beats) from every input with random idle (also inside a
TLP) and random sink backpressure must arrive whole, unchanged and in per-input order.
With all inputs busy and no backpressure the output must carry one beat per cycle and
rotate between inputs TLP by TLP.
"""
import os
import random
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from tlp_sink_simple import Cycle, TlpSinkSimple  # noqa: E402
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402


class MultiSource:
    """Drives all PORTS inputs of the flattened `s_tlp_*` bus from one coroutine per clock."""

    def __init__(self, dut, ports, data_w, cycle, seed=1):
        self.dut = dut
        self.ports = ports
        self.data_w = data_w
        self.beat_dw = data_w // 32
        self.cycle = cycle
        self.rng = random.Random(seed)
        self.queues = [deque() for _ in range(ports)]   # per port: list of beats per TLP
        self.idle_prob = 0.0
        self.sent = [[] for _ in range(ports)]          # per port: (hdr, payload) sent
        self.first_valid_cycle = None

    def make_tlp(self, port, seq, max_beats=7):
        hdr = (port << 120) | (seq << 96) | self.rng.getrandbits(96)
        if self.rng.random() < 0.2:
            beats = [(0, 0)]                              # header only: strb 0, sop = eop
            payload = b""
        else:
            ndw = self.rng.randint(1, max_beats * self.beat_dw)
            beats = []
            payload = bytearray()
            left = ndw
            while left:
                n = min(left, self.beat_dw)
                data = self.rng.getrandbits(self.data_w)
                beats.append(((1 << n) - 1, data))
                payload += data.to_bytes(self.data_w // 8, "little")[:4 * n]
                left -= n
        self.queues[port].append((hdr, beats))
        self.sent[port].append((hdr, bytes(payload)))

    async def run(self):
        dut = self.dut
        P = self.ports
        cur = [None] * P          # (hdr, beats, index) of the TLP in progress
        valid = 0
        beat_words = [None] * P
        while True:
            await RisingEdge(dut.clk)
            if valid:
                acc = valid & int(dut.s_tlp_ready.value)
                for p in range(P):
                    if acc >> p & 1:
                        hdr, beats, i = cur[p]
                        cur[p] = None if i + 1 == len(beats) else (hdr, beats, i + 1)
                        valid &= ~(1 << p)
            # Start or continue beats, with random idle; hold anything not yet accepted.
            changed = False
            for p in range(P):
                if valid >> p & 1:
                    continue
                if cur[p] is None:
                    if not self.queues[p]:
                        continue
                    hdr, beats = self.queues[p].popleft()
                    cur[p] = (hdr, beats, 0)
                if self.idle_prob and self.rng.random() < self.idle_prob:
                    continue
                hdr, beats, i = cur[p]
                strb, data = beats[i]
                beat_words[p] = (hdr, data, strb, int(i == 0), int(i + 1 == len(beats)))
                valid |= 1 << p
                changed = True
            if changed:
                hv = dv = sv = sop = eop = 0
                for p in range(P):
                    if beat_words[p] is None:
                        continue
                    h, d, s, so, eo = beat_words[p]
                    hv |= h << (128 * p)
                    dv |= d << (self.data_w * p)
                    sv |= s << (self.beat_dw * p)
                    sop |= so << p
                    eop |= eo << p
                dut.s_tlp_hdr.value = hv
                dut.s_tlp_data.value = dv
                dut.s_tlp_strb.value = sv
                dut.s_tlp_sop.value = sop
                dut.s_tlp_eop.value = eop
                if self.first_valid_cycle is None:
                    self.first_valid_cycle = self.cycle.n
            dut.s_tlp_valid.value = valid


class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.ports = int(os.environ.get("PARAM_PORTS", "3"))
        self.data_w = int(os.environ.get("PARAM_TLP_DATA_W", "512"))
        self.cycle = Cycle()
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())
        self.src = MultiSource(dut, self.ports, self.data_w, self.cycle, seed=seed)
        self.sink = TlpSinkSimple(dut, "m", dut.clk, self.data_w, cycle=self.cycle, seed=seed + 1)

    async def reset(self):
        dut = self.dut
        dut.rst.value = 1
        dut.s_tlp_valid.value = 0
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0
        await RisingEdge(dut.clk)
        cocotb.start_soon(self._count())
        cocotb.start_soon(self.src.run())
        self.sink.start()

    async def _count(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle.n += 1

    async def drain(self, timeout=100000):
        total = sum(len(s) for s in self.src.sent)
        for _ in range(timeout):
            if len(self.sink.tlps) >= total and not any(self.src.queues):
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"timeout: {len(self.sink.tlps)} of {total} TLPs")

    def offers(self, p):
        """Uneven load: input p offers a TLP in a round with probability 1 - p / (2 * ports)."""
        return self.src.rng.random() < 1 - p / (2 * self.ports)

    def check(self):
        assert not self.sink.errors, self.sink.errors[:5]
        got = [[] for _ in range(self.ports)]
        for t in self.sink.tlps:
            got[t.hdr >> 120].append((t.hdr, t.payload))
        for p in range(self.ports):
            assert got[p] == self.src.sent[p], f"input {p}: TLPs lost, changed or reordered"


@cocotb.test()
async def test_random_streams(dut):
    """All four stall modes: no stalls, source idle, sink backpressure, both."""
    tb = TB(dut, seed=beryl_seed.seed(7, "test_random_streams"))
    await tb.reset()
    n = int(os.environ.get("TLP_MUX_SOAK", "0")) or 60
    for mode in range(4):
        tb.src.idle_prob = 0.4 if mode & 1 else 0.0
        tb.sink.ready_prob = 0.5 if mode & 2 else 1.0
        for seq in range(n):
            for p in range(tb.ports):
                if tb.offers(p):
                    tb.src.make_tlp(p, seq)
        await tb.drain()
        await ClockCycles(dut.clk, 4)
        tb.check()
        dut._log.info("mode %d: %d TLPs ok", mode, len(tb.sink.tlps))
        tb.sink.tlps.clear()
        tb.src.sent = [[] for _ in range(tb.ports)]


@cocotb.test()
async def test_full_rate_round_robin(dut):
    """All inputs busy, no stalls: one beat per cycle and strict rotation between inputs."""
    tb = TB(dut, seed=beryl_seed.seed(8, "test_full_rate_round_robin"))
    await tb.reset()
    per_port = 40
    for seq in range(per_port):
        for p in range(tb.ports):
            tb.src.make_tlp(p, seq, max_beats=4)
    beats = sum(len(b) for q in tb.src.queues for _, b in q)
    await tb.drain()
    tb.check()
    cycles = tb.sink.last_beat_cycle - tb.sink.first_beat_cycle + 1
    dut._log.info("%d ports: %d beats in %d cycles = %.3f beats/cycle",
                  tb.ports, beats, cycles, beats / cycles)
    assert cycles == beats, f"{beats} beats took {cycles} cycles: bubbles in the output"
    order = [t.hdr >> 120 for t in tb.sink.tlps]
    # Every input stays busy until near the end, so the grant must rotate strictly.
    busy = order[:tb.ports * (per_port - 1)]
    for i, p in enumerate(busy):
        assert p == (order[0] + i) % tb.ports, f"TLP {i} from input {p}: not round robin ({busy[:12]})"


@pytest.mark.parametrize("ports,data_w", [(3, 512), (1, 256), (4, 256)])
def test_beryl_pcie_tlp_mux(ports, data_w):
    beryl_sim.run("beryl_pcie_tlp_mux", "rtl/pcie/beryl_pcie_tlp_mux.f", "test_beryl_pcie_tlp_mux",
                  Path(__file__).parent, parameters={"PORTS": ports, "TLP_DATA_W": data_w})
