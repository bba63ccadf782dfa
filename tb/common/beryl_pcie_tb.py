# SPDX-License-Identifier: MIT
"""Full-system harness for the PCIe subsystem: cocotbext-pcie's root complex and UltraScale+
hard-IP model on the DUT's hard-IP ports, DMA descriptor drivers for the on-chip client side,
and a driver view of BAR0 that finds register blocks by walking the chain.

Used by tb/pcie/beryl_pcie_us_top (system tests) and bench/pcie_dma (throughput benchmark).
"""
import logging
import os
import random
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, RisingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteRam
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.core.caps import PciCapId

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "model"))
import beryl_regs  # noqa: E402
from beryl_discover import discover  # noqa: E402
from usp_device import usp_device  # noqa: E402

CLK_NS = 4  # 250 MHz user clock


class DmaChannel:
    """Drives `<ch>_desc_*` and collects `<ch>_desc_status_*`.

    `submit()` queues a descriptor and returns its Event; a tag may be reused once its previous
    descriptor has reported (the driver holds a descriptor back until its tag is free).
    Times are simulation nanoseconds: `accept_ns` per descriptor, `done_ns` per status.
    """

    def __init__(self, dut, ch):
        self.dut = dut
        self.ch = ch
        self.queue = []
        self.last = {}         # tag -> Event of the latest descriptor submitted with it
        self.events = {}       # tag -> Event of the descriptor in flight with it
        self.inflight = set()
        self.accept_ns = []
        self.done_ns = []
        self.errors = []       # (tag, error code) of every descriptor that finished with an error
        self._sig = {n: getattr(dut, f"{ch}_desc_{n}") for n in
                     ("host_addr", "ram_addr", "len", "tag", "valid", "ready",
                      "status_tag", "status_error", "status_valid")}
        self._sig["valid"].value = 0
        cocotb.start_soon(self._run())

    def submit(self, host_addr, ram_addr, length, tag):
        ev = Event()
        ev.error = None
        self.queue.append((host_addr, ram_addr, length, tag, ev))
        self.last[tag] = ev
        return ev

    async def wait(self, tag, timeout_us=20000):
        """Error code of the latest descriptor submitted with `tag`."""
        ev = self.last[tag]
        await with_timeout(ev.wait(), timeout_us, "us")
        return ev.error

    async def drain(self, timeout_us=100000):
        """Wait until every queued descriptor has reported."""
        async def _d():
            while self.queue or self.inflight:
                await RisingEdge(self.dut.clk)
        await with_timeout(_d(), timeout_us, "us")

    async def _run(self):
        s = self._sig
        offered = None
        while True:
            await RisingEdge(self.dut.clk)
            now = get_sim_time("ns")
            if offered is not None and int(s["ready"].value):
                self.accept_ns.append(now)
                offered = None
            if int(s["status_valid"].value):
                tag = int(s["status_tag"].value)
                assert tag in self.inflight, f"{self.ch}: status for tag {tag} that is not in flight"
                ev = self.events.pop(tag)
                ev.error = int(s["status_error"].value)
                if ev.error:
                    self.errors.append((tag, ev.error))
                self.done_ns.append(now)
                self.inflight.discard(tag)
                ev.set()
            if offered is None and self.queue and self.queue[0][3] not in self.inflight:
                host, ram, length, tag, ev = self.queue.pop(0)
                self.inflight.add(tag)
                self.events[tag] = ev
                offered = (host, ram, length, tag)
                s["host_addr"].value, s["ram_addr"].value, s["len"].value, s["tag"].value = offered
            s["valid"].value = int(offered is not None)


class PcieSystemTB:
    def __init__(self, dut, gen=3, seed=1, max_payload=1024, link_delay_ns=None, nic=False):
        """nic=True: the DUT is a NIC build (its own DMA clients and application window), so
        the bench drives no DMA descriptors and puts no RAM behind the window."""
        self.dut = dut
        self.log = logging.getLogger("cocotb.tb")
        self.rng = random.Random(seed)
        self.width = len(dut.s_axis_cq_tdata)
        self.msix_vectors = int(dut.MSIX_VECTORS.value) if hasattr(dut, "MSIX_VECTORS") else 32
        cocotb.start_soon(Clock(dut.clk, CLK_NS, "ns").start())

        # the model's RQ/RC straddle must match the shim's (tb wrapper parameters, on at 512 bits)
        def dut_param(name, default):
            try:
                return int(getattr(dut, name).value)
            except AttributeError:
                return int(os.environ.get(f"PARAM_{name}", default))
        self.rq_straddle = bool(dut_param("RQ_STRADDLE", self.width == 512))
        self.rc_straddle = bool(dut_param("RC_STRADDLE", self.width == 512))

        self.rc = RootComplex()
        self.dev = usp_device(dut, rq_straddle=self.rq_straddle, rc_straddle=self.rc_straddle,
                              msix_table_size=self.msix_vectors - 1,
                              msix_table_offset=beryl_regs.MSIX_TABLE_BASE,
                              msix_pba_offset=beryl_regs.MSIX_PBA_BASE,
                              max_payload=max_payload, gen=gen, user_clk_hz=1e9 / CLK_NS)
        self.dev.log.setLevel(logging.WARNING)
        self.rc.log.setLevel(logging.WARNING)
        self.bar0_size = 1 << beryl_regs.BAR0_ADDR_W
        self.dev.functions[0].configure_bar(0, self.bar0_size, ext=True)
        root_port = self.rc.make_port()
        root_port.connect(self.dev)
        self.port = root_port.downstream_port   # the link's root-side SimPort
        # the model does not train the link status fields; report the link the ports agreed on
        cap = self.dev.functions[0].pcie_cap
        cap.current_link_speed = self.port.cur_link_speed
        cap.negotiated_link_width = self.port.cur_link_width
        # applied after enumeration: the model's enumeration gives config reads only 1 us
        self.link_delay_ns = link_delay_ns

        if nic:
            return
        self.rd = DmaChannel(dut, "rd")
        self.wr = DmaChannel(dut, "wr")
        dut.irq_valid.value = 0
        dut.irq_index.value = 0
        # the application window gets a third-party AXI-Lite RAM standing in for the NIC core
        self.app_ram = AxiLiteRam(AxiLiteBus.from_prefix(dut, "m_axil_app"), dut.clk, dut.rst,
                                  size=1 << beryl_regs.APP_ADDR_W)

    def set_link_delay(self, ns):
        """One-way link latency in each direction (the model's default is 10 ns)."""
        steps = int(ns * 1e-9 * self.port.time_scale)
        self.port.link_delay_steps = steps
        self.port.other.link_delay_steps = steps

    def set_stalls(self, idle, backpressure):
        """Random idle on the model's sources (CQ, RC) and backpressure on its sinks (CC, RQ)."""
        rng = self.rng

        def gen(p):
            while True:
                yield int(rng.random() < p)
        for obj, p in ((self.dev.cq_source, idle), (self.dev.rc_source, idle),
                       (self.dev.cc_sink, backpressure), (self.dev.rq_sink, backpressure)):
            obj.set_pause_generator(gen(p) if p else None)
            if not p:
                obj.pause = False   # removing a generator leaves its last value in place

    async def init(self, mps=None, mrrs=None, ext_tag=True):
        dut = self.dut
        dut.rst.setimmediatevalue(1)
        await ClockCycles(dut.clk, 10)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 10)
        await with_timeout(self.rc.enumerate(), 1000, "us")
        self.ep = self.rc.find_device(self.dev.functions[0].pcie_id)
        await self.ep.enable_device()
        await self.ep.set_master()
        # Device Control (PCIe 3.0 section 7.8.4): MPS [7:5], Extended Tag [8], MRRS [14:12]
        devctl = await self.ep.capability_read_word(PciCapId.EXP, 0x08)
        if mps is not None:
            devctl = (devctl & ~(7 << 5)) | (mps << 5)
            self.rc.max_payload_size = mps     # the root complex splits its completions at its MPS
        if mrrs is not None:
            devctl = (devctl & ~(7 << 12)) | (mrrs << 12)
        devctl = (devctl | 0x100) if ext_tag else (devctl & ~0x100)
        await self.ep.capability_write_word(PciCapId.EXP, 0x08, devctl)
        self.bar0 = self.ep.bar_window[0]
        # the shim polls Device Control every few hundred cycles: let it catch up
        await ClockCycles(dut.clk, 600)
        self.blocks = await discover(self.read32)
        self.block = {b.name: b.offset for b in self.blocks if b.name}
        if self.link_delay_ns is not None:
            self.set_link_delay(self.link_delay_ns)

    async def read32(self, addr):
        return await self.bar0.read_dword(addr)

    async def write32(self, addr, val):
        await self.bar0.write_dword(addr, val)

    def reg(self, block, name):
        return self.block[block.lower()] + getattr(beryl_regs, f"{block.upper()}_{name.upper()}_OFFSET")

    async def read_reg(self, block, name):
        return await self.read32(self.reg(block, name))

    def alloc_host(self, size):
        addr, mem = self.rc.alloc_region(size)
        return addr, mem
