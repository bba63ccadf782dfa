# SPDX-License-Identifier: MIT
"""Cocotb side of the DMA throughput benchmark (bench/pcie_dma/bench_dma.py runs it).

The DUT is the UltraScale+ PCIe subsystem with its DMA RAM, behind cocotbext-pcie's root complex
and UltraScale+ device model at Gen3 x16. Time is the simulated clock (250 MHz user clock); the
link model charges every TLP its header and framing bytes at the link's symbol rate, and the
one-way link latency is set so that a read's round trip is in the 500 ns - 1 us range of a real
host (the measured round trip is reported).
"""
import json
import os
import random
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time
from cocotbext.pcie.core.tlp import TlpType

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tb" / "common"))
from beryl_pcie_tb import PcieSystemTB  # noqa: E402

RAM_SIZE = 1 << 18


async def measure_rtt(tb):
    """Cycles from a read request leaving on RQ to its first completion beat on RC."""
    dut = tb.dut
    t_rq = t_rc = None

    async def watch():
        nonlocal t_rq, t_rc
        while t_rc is None:
            await RisingEdge(dut.clk)
            if t_rq is None and int(dut.m_axis_rq_tvalid.value) and int(dut.m_axis_rq_tready.value):
                t_rq = get_sim_time("ns")
            elif t_rq is not None and int(dut.s_axis_rc_tvalid.value):
                t_rc = get_sim_time("ns")
    w = cocotb.start_soon(watch())
    src, _ = tb.alloc_host(4096)
    tb.rd.submit(src, 0, 64, 0)
    assert await tb.rd.wait(0) == 0
    await w
    return t_rc - t_rq


@cocotb.test()
async def bench_dma(dut):
    cfg = json.loads(os.environ["BENCH_CFG"])
    tb = PcieSystemTB(dut, link_delay_ns=cfg["link_delay_ns"])
    await tb.init(mps=cfg["mps_enc"], mrrs=cfg["mrrs_enc"])
    # The hard IP holds only a few TLPs before the link: without a limit the model's RQ input
    # would accept writes at the interface rate and queue them in Python without bound.
    tb.dev.rq_sink.queue_occupancy_limit_frames = 4

    # arrival time and header size of every memory write that reaches host memory
    writes = []
    for t in (TlpType.MEM_WRITE, TlpType.MEM_WRITE_64):
        orig = tb.rc.rx_tlp_handler[t]

        def hook(tlp, orig=orig):
            writes.append((get_sim_time("ns"), 16 if tlp.fmt_type == TlpType.MEM_WRITE_64 else 12))
            return orig(tlp)
        tb.rc.register_rx_tlp_handler(t, hook)

    rtt_ns = await measure_rtt(tb)
    rng = random.Random(1)
    results = []
    for size in cfg["sizes"]:
        count = max(cfg["min_count"], min(cfg["max_count"], cfg["bytes_per_point"] // size))
        total = count * size
        src, src_mem = tb.alloc_host(total)
        dst, dst_mem = tb.alloc_host(total)
        src_mem[:] = rng.randbytes(total)
        ram_of = [(i * size) % (RAM_SIZE - RAM_SIZE % size if size <= RAM_SIZE else RAM_SIZE) for i in range(count)]

        # host to device
        tb.rd.accept_ns.clear()
        tb.rd.done_ns.clear()
        tb.rd.errors.clear()
        tb.wr.errors.clear()
        for i in range(count):
            tb.rd.submit(src + i * size, ram_of[i], size, i & 0xFF)
        await tb.rd.drain()
        assert not tb.rd.errors, f"read errors (tag, code): {tb.rd.errors}"
        h2d_ns = max(tb.rd.done_ns) - tb.rd.accept_ns[0]

        # device to host, reading back what the reads left in RAM
        writes.clear()
        tb.wr.accept_ns.clear()
        for i in range(count):
            tb.wr.submit(dst + i * size, ram_of[i], size, i & 0xFF)
        await tb.wr.drain()
        await ClockCycles(dut.clk, 2000)   # let the last writes cross the link
        assert not tb.wr.errors, f"write errors (tag, code): {tb.wr.errors}"
        d2h_ns = max(t for t, _ in writes) - tb.wr.accept_ns[0]
        hdr = max(h for _, h in writes)

        # the data must be right: RAM slot k holds the last read that landed in it
        ram_last = {}
        for i in range(count):
            ram_last[ram_of[i]] = i
        for i in range(count):
            j = ram_last[ram_of[i]]
            want = src_mem[j * size:(j + 1) * size]
            assert dst_mem[i * size:(i + 1) * size] == want, f"size {size}: transfer {i} data mismatch"

        results.append({"size": size, "count": count, "bytes": total,
                        "h2d_ns": h2d_ns, "d2h_ns": d2h_ns, "wr_hdr_bytes": hdr})
        dut._log.info("size %6d x %4d: H2D %.2f GB/s, D2H %.2f GB/s", size, count,
                      total / h2d_ns, total / d2h_ns)

    out = {"config": cfg, "rtt_ns": rtt_ns, "results": results,
           "link": {"gen": 3, "lanes": tb.port.cur_link_width, "speed": tb.port.cur_link_speed}}
    Path(cfg["out"]).write_text(json.dumps(out, indent=2))
