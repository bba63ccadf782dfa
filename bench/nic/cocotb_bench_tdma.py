# SPDX-License-Identifier: MIT
"""cocotb side of bench/nic/bench_tdma.py: configures beryl_nic_tdma_bench_tb for each run of BENCH_CFG
(JSON), lets it run for the requested periods without Python per clock, and writes the counters of each
run to BENCH_CFG["out"]. The harness logs every frame to tdma_frames.log (working directory)."""
import json
import os
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, Timer


async def pulse_inputs(dut, items, valid, ready):
    """Present items (a list of dicts of input values) one at a time on a valid/ready handshake."""
    for it in items:
        await FallingEdge(dut.clk)
        for k, v in it.items():
            getattr(dut, k).value = v
        getattr(dut, valid).value = 1
        while True:
            await ReadOnly()
            taken = getattr(dut, ready).value == 1
            await FallingEdge(dut.clk)
            if taken:
                break
        getattr(dut, valid).value = 0


@cocotb.test()
async def bench_tdma(dut):
    cfg = json.loads(os.environ["BENCH_CFG"])
    Clock(dut.clk, 4, unit="ns").start()
    out = []
    for i, run in enumerate(cfg["runs"]):
        d = dut
        d.rst.value = 1
        for name in ("set_tod_valid", "tmr_enable", "sched_enable", "db_evt_valid", "cfg_valid", "log_en"):
            getattr(d, name).value = 0
        d.run_id.value = i
        d.seed.value = run["seed"]
        d.start_sec.value, d.start_ns.value = run["start"]
        d.period_ns.value, d.slot_ns.value, d.slot_count.value = run["period_ns"], run["slot_ns"], 2
        d.guard_ns.value = run["guard_ns"]
        d.gate_enable.value, d.hold_own.value = run["gate"], run["hold_own"]
        d.rate_nspb.value, d.overhead_bytes.value, d.margin_ns.value = run["nspb"], run["overhead"], run["margin_ns"]
        d.size_min.value, d.size_max.value = run["size_min"], run["size_max"]
        d.dma_min.value, d.dma_span.value = run["dma_min"], run["dma_span"]
        d.ps_per_byte.value, d.buf_ps.value, d.lat_ps.value = run["ps_per_byte"], run["buf_ps"], run["lat_ps"]
        await ClockCycles(d.clk, 4)
        await FallingEdge(d.clk)
        d.rst.value = 0
        # time of day, then wait for the scheduler's and the gate's RAMs to clear
        sec, ns = run["tod"]
        d.set_tod.value = (sec << 48) | (ns << 16)
        d.set_tod_valid.value = 1
        await FallingEdge(d.clk)
        d.set_tod_valid.value = 0
        await ClockCycles(d.clk, 80)
        await FallingEdge(d.clk)
        d.tmr_enable.value = 1
        d.sched_enable.value = 1
        d.log_en.value = 1
        await pulse_inputs(d, [{"cfg_qidx": q, "cfg_mask": m} for q, m in run["masks"]], "cfg_valid", "cfg_ready")
        await pulse_inputs(d, [{"db_evt_qidx": q} for q, _ in run["masks"]], "db_evt_valid", "db_evt_ready")
        # no Python per clock: sleep until the end of the measured periods
        await Timer(run["run_ns"], "ns")
        await ReadOnly()
        res = {k: int(getattr(d, k).value) for k in ("frames_out", "hold_count", "offslot_count", "overrun_count",
                                                      "park_count", "bad_sts_count")}
        res["end_ps"] = int(d.now_ps.value)
        out.append(res)
        dut._log.info("run %d (%s): %s", i, run["name"], res)
        await FallingEdge(d.clk)
    Path(cfg["out"]).write_text(json.dumps(out))
