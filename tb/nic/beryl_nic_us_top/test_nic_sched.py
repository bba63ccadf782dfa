# SPDX-License-Identifier: MIT
"""The transmit schedulers in the full NIC (TX_SCHED 1 token bucket, 2 TDMA): the RTL on the
cocotbext-pcie model, driven through the Python driver model, every TX port drained by the wrapper's
100G line-rate sink (LOOP = 2).

The reference is this test's own monitor on the NIC's port: it records, per frame, the clock cycle and
the NIC's PTP time of day (the wrapper's ptp_tod output, sampled in that cycle) of every accepted beat,
and replays the sink's wire: bytes leave at 12.5 bytes/ns, each frame adds preamble+SFD (8) before and
FCS (4) after its bytes and 12 bytes of gap after. A frame's "end" is when its last FCS byte leaves.

- test_rate_limit (TX_SCHED 1): two queues limited to 1.0 and 3.0 bytes per clock with 2000-byte
  bursts, 1000-byte and mixed 60..1514-byte frames. A queue sends in clumps (one scheduler command,
  up to DESC_BATCH frames); each clump after the first starts when the bucket refilled to above 0, so
  bytes between two clump starts / cycles between them is the rate. (A gap of more than 300 cycles
  between two of a queue's frames marks a clump start: other queues' commands in between take less.) Within 1 % of the setting; the
  first clump is at most the burst plus one command; an unlimited queue is not held back.
- test_tdma (TX_SCHED 2): 20 us period, two 10 us slots, queue 0 in slot 0 and queue 1 in slot 1,
  backlog larger than a slot holds. With the gate on (own slot) every frame starts and ends inside a
  slot of its queue; the schedule's slots are computed here from the programmed start and the sampled
  PTP time. With the gate off and no guard, frames run past the slot edge (the check has teeth), and
  the spill is reported. Every TX completion's timestamp equals the PTP time the monitor sampled at its
  frame's first beat on the port; a second monitor on the TX engine's stream (before the gate) shows
  that frames held by the gate carry the later (release) time.
"""
import json
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "common"))
sys.path.insert(0, str(HERE))
import beryl_seed  # noqa: E402
from model import beryl_nic as N  # noqa: E402
from model import beryl_regs as R  # noqa: E402
from test_beryl_nic_us_top import FirstBeatMonitor, raw_frame, setup as nic_setup, tod_units  # noqa: E402

FX = 1 << 24


def frame(rng, q, length):
    """The system test's local-EtherType frame with byte 14 naming its queue."""
    f = bytearray(raw_frame(rng, length))
    f[14] = q
    return bytes(f)


class PortMonitor:
    """Frames leaving port 0 with their cycles, PTP times and wire end times (see the module doc)."""

    def __init__(self, dut):
        self.dut = dut
        self.nspb = 8 / int(os.environ.get("PARAM_LINE_GBPS", "100"))   # ns per byte of the sink
        self.frames = []        # dict(q, len, c0, c1, t0, t_end) per frame
        self.cur = None
        self.cycle = 0
        self.wire_ns = 0.0      # when the replayed wire is free
        cocotb.start_soon(self.run())

    async def run(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            self.cycle += 1
            if not (int(d.tx_tvalid.value) & 1 and int(d.tx_tready.value) & 1):
                continue
            tod = int(d.ptp_tod.value)
            t = (tod >> 48) * N.NS_PER_S + ((tod >> 16) & 0xFFFFFFFF) + (tod & 0xFFFF) / 65536
            nbytes = bin(int(d.tx_tkeep.value) & ((1 << 64) - 1)).count("1")
            if self.cur is None:
                data = (int(d.tx_tdata.value) & ((1 << 512) - 1)).to_bytes(64, "little")
                self.cur = dict(q=data[14], len=0, c0=self.cycle, t0=t, u0=tod_units(tod))
                self.wire_ns = max(self.wire_ns, t) + 8 * self.nspb       # preamble + SFD
            self.cur["len"] += nbytes
            self.wire_ns = max(self.wire_ns, t) + nbytes * self.nspb
            if int(d.tx_tlast.value) & 1:
                pad = max(0, 60 - self.cur["len"])
                self.wire_ns += (pad + 4) * self.nspb                    # padding, FCS
                self.cur.update(c1=self.cycle, t_end=self.wire_ns)
                self.wire_ns += 12 * self.nspb                           # gap
                self.frames.append(self.cur)
                self.cur = None


async def setup(dut, seed):
    dut.gen_start.value = 0          # LOOP = 2: the RX generator stays idle
    dut.gen_len.value = 64
    dut.gen_count.value = 0
    return await nic_setup(dut, seed)


async def q_cmd(nif, op, queue):
    await nif.wr("SCHED_Q_SEL", queue)
    await nif.wr("SCHED_Q_CMD", op)
    cmd = await nif.rd("SCHED_Q_CMD")
    assert cmd & R.NIC_IF_SCHED_Q_CMD_ERR_MASK == 0, f"scheduler refused op {op} for queue {queue}"


async def post_and_wait(dut, nif, per_q, timeout_cycles=2000000):
    """Post every queue's frames, keeping the rings topped up as completions come back (one doorbell
    per queue and round), and wait for all TX completions."""
    todo = {q: list(frames) for q, frames in per_q.items()}
    want = sum(len(f) for f in per_q.values())
    got = []
    for _ in range(timeout_cycles // 500):
        for q, frames in todo.items():
            n = 0
            while frames and await nif.send(frames[0], txq=q, ring_doorbell=False) is not None:
                frames.pop(0)
                n += 1
            if n:
                await nif.kick(q)
        got += await nif.poll_tx()
        if len(got) >= want:
            break
        await ClockCycles(dut.clk, 500)
    assert len(got) == want, f"{len(got)}/{want} TX completions"
    assert all(c.status == 0 for c in got)
    return got


@cocotb.test()
async def test_rate_limit(dut):
    tb, dev = await setup(dut, seed=beryl_seed.seed(5, "test_rate_limit"))
    nif = dev.interfaces[0]
    assert await nif.rd("TX_SCHED") == 1
    await nif.start(txq_count=3, rxq_count=1, log_size=8)
    rates = {0: 1.0, 1: 3.0}            # bytes per clock; queue 2 unlimited
    burst = 2000
    await nif.wr("PORT_SEL", 0)
    for q, r in rates.items():
        await nif.wr("SCHED_Q_RATE", round(r * FX))
        await nif.wr("SCHED_Q_BURST", burst)
        await q_cmd(nif, 1, q)
        await nif.wr("SCHED_Q_RATE", 0)
        await nif.wr("SCHED_Q_BURST", 0)
        await q_cmd(nif, 2, q)
        assert await nif.rd("SCHED_Q_RATE") == round(r * FX)
        assert await nif.rd("SCHED_Q_BURST") == burst
        assert await nif.rd("SCHED_Q_TOKENS") == burst          # refilled by the write, no traffic
    rng = tb.rng
    # about 50000 cycles of each limited queue: a clump's start moves by up to a few hundred cycles
    # with what the other queues have in the engine, which must stay well below 1 % of the window
    per_q = {0: [frame(rng, 0, 1000) for _ in range(56)],
             1: [frame(rng, 1, rng.randrange(60, 1515)) for _ in range(200)],
             2: [frame(rng, 2, 1500) for _ in range(24)]}
    mon = PortMonitor(dut)
    await post_and_wait(dut, nif, per_q)
    await ClockCycles(dut.clk, 50)
    sent = {q: [f for f in mon.frames if f["q"] == q] for q in per_q}
    for q in per_q:
        assert [f["len"] for f in sent[q]] == [len(x) for x in per_q[q]], f"queue {q}: frames"
    # the unlimited queue is not held back: far above the limited queues' rates
    assert sum(f["len"] for f in sent[2]) / (sent[2][-1]["c1"] - sent[2][0]["c0"]) > 10
    for q, r in rates.items():
        fr = sent[q]
        # a clump starts after a wait for tokens; other queues' frames in between (a command of 8
        # line-rate frames takes < 300 cycles) are no wait
        starts = [0] + [k for k in range(1, len(fr)) if fr[k]["c0"] - fr[k - 1]["c1"] > 300]
        assert len(starts) >= 4, f"queue {q}: only {len(starts)} clumps"
        first = sum(f["len"] for f in fr[:starts[1]])
        assert first <= burst + 8 * 1514, f"queue {q}: first clump {first} bytes"
        a, b = starts[1], starts[-1]
        nbytes = sum(f["len"] for f in fr[a:b])
        meas = nbytes / (fr[b]["c0"] - fr[a]["c0"])
        dut._log.info("queue %d: rate %.4f bytes/clock measured over %d bytes (%d clumps), set %.4f (%+.2f %%)",
                      q, meas, nbytes, len(starts) - 2, r, 100 * (meas / r - 1))
        assert abs(meas / r - 1) < 0.01, f"queue {q}: {meas:.4f} bytes/clock, set {r}"
    assert await nif.rd("SCHED_BAD_STS") == 0


async def tdma_run(dut, tb, dev, nif, gate, guard_ns, n_frames, period=20000, slot=10000, max_len=1514):
    """Program the schedule (start 4 us from now), post the backlog, wait; returns (frames, start)."""
    rng = tb.rng
    gbps = int(os.environ.get("PARAM_LINE_GBPS", "100"))
    await nif.wr("PORT_SEL", 0)
    await nif.wr("TDMA_CTRL", 0)
    for q in (0, 1):
        await nif.wr("SCHED_Q_SLOTS", 1 << q)
        await q_cmd(nif, 1, q)
        await nif.wr("SCHED_Q_SLOTS", 0)
        await q_cmd(nif, 2, q)
        assert await nif.rd("SCHED_Q_SLOTS") == 1 << q
    sec, ns, _ = await dev.ptp.get_time()
    start = sec * N.NS_PER_S + ns + 4000
    await nif.wr("TDMA_START_SEC_LO", (start // N.NS_PER_S) & 0xFFFFFFFF)
    await nif.wr("TDMA_START_SEC_HI", start // N.NS_PER_S >> 32)
    await nif.wr("TDMA_START_NS", start % N.NS_PER_S)
    await nif.wr("TDMA_PERIOD_NS", period)
    await nif.wr("TDMA_SLOT_NS", slot)
    await nif.wr("TDMA_SLOT_COUNT", 2)
    await nif.wr("TDMA_GUARD_NS", guard_ns)
    await nif.wr("TDMA_GATE_RATE", -(-(8 << 24) // gbps))  # ns per byte, 8.24, rounded up
    await nif.wr("TDMA_GATE_CFG", 24 << 16 | 24)          # margin 24 ns, overhead 24 bytes
    await nif.wr("TDMA_CTRL", 1 | gate << 1 | gate << 2)   # enable, gate, own slot
    ctrl = await nif.rd("TDMA_CTRL")
    assert ctrl & R.NIC_IF_TDMA_CTRL_CFG_ERR_MASK == 0
    per_q = {q: [frame(rng, q, rng.randrange(60, max_len + 1)) for _ in range(n_frames)] for q in (0, 1)}
    mon = PortMonitor(dut)
    # the TX engine's stream into port 0's scheduler block (the gate), before any hold
    u_if = dut.u_nic.g_if[0].u_if
    eng = FirstBeatMonitor(dut, u_if.e_tvalid, u_if.e_tready, u_if.e_tlast, bit=0, data=u_if.e_tdata)
    cpls = await post_and_wait(dut, nif, per_q)
    # a TX completion waits for the time its frame's first beat leaves the port (after the gate), so
    # every frame has started on the port once its completion is in; the monitor records a frame at its
    # last beat, which at 10G can be a microsecond later (bounded wait: far more than one frame)
    want = sum(len(f) for f in per_q.values())
    for _ in range(20000):
        if len(mon.frames) >= want and mon.cur is None:
            break
        await RisingEdge(dut.clk)
    assert len(mon.frames) == want, f"{len(mon.frames)} frames on the port, {want} completions"
    await ClockCycles(dut.clk, 50)
    for q in (0, 1):
        assert [f["len"] for f in mon.frames if f["q"] == q] == [len(x) for x in per_q[q]]
    # each TX completion's timestamp is the PTP time of the cycle its frame's first beat left the port
    # (the queue's k-th completion is its k-th frame: the gate keeps a queue's order)
    holds = []
    for q in (0, 1):
        fr = [f for f in mon.frames if f["q"] == q]
        cq = [c for c in cpls if c.queue == q]
        eq = [t for t, b in eng.starts if b == q]
        assert len(cq) == len(fr) == len(eq)
        for k, (c, f, te) in enumerate(zip(cq, fr, eq)):
            u = N.ts_units(c.timestamp, sec)
            assert u == f["u0"], f"queue {q} frame {k}: TX timestamp {(u - f['u0']) / 65536} ns off the port's time"
            assert f["u0"] - te >= 4 << 16, f"queue {q} frame {k}: left the port before the gate's register stage"
            holds.append((f["u0"] - te) / 65536)
    return mon.frames, start, period, slot, holds


def own_spill(frames, start, period, slot):
    """Per frame of queue q (slot q is its slot): its end minus the end of the latest slot-q instance
    that opened at or before the frame started; the maximum over all frames (> 0: after the edge)."""
    worst = None
    for f in frames:
        n = (f["t0"] - start - f["q"] * slot) // period
        end = start + n * period + (f["q"] + 1) * slot
        worst = f["t_end"] - end if worst is None else max(worst, f["t_end"] - end)
    return worst


def slot_of(t, start, period, slot):
    """(period number, slot index, slot end) of time t, or None outside every slot."""
    if t < start:
        return None
    n, k = divmod(t - start, period)
    if k >= 2 * slot:
        return None
    i = int(k // slot)
    return int(n), i, start + n * period + (i + 1) * slot


@cocotb.test()
async def test_tdma(dut):
    tb, dev = await setup(dut, seed=beryl_seed.seed(6, "test_tdma"))
    nif = dev.interfaces[0]
    assert await nif.rd("TX_SCHED") == 2 and await nif.rd("TDMA_SLOTS_MAX") >= 2
    await nif.start(txq_count=2, rxq_count=1, log_size=8)
    # an illegal schedule (no slots) is refused
    await nif.wr("PORT_SEL", 0)
    await nif.wr("TDMA_SLOT_COUNT", 0)
    await nif.wr("TDMA_CTRL", 1)
    await ClockCycles(dut.clk, 4)
    assert await nif.rd("TDMA_CTRL") & R.NIC_IF_TDMA_CTRL_CFG_ERR_MASK

    # gate on, own slot: every frame inside a slot of its queue
    # a short guard: the TX engine still holds frames at the edges, the gate has to hold them back
    frames, start, period, slot, holds = await tdma_run(dut, tb, dev, nif, gate=1, guard_ns=300, n_frames=240)
    edges = set()
    for k, f in enumerate(frames):
        s0, s1 = slot_of(f["t0"], start, period, slot), slot_of(f["t_end"], start, period, slot)
        assert s0 is not None and s0[1] == f["q"], f"frame {k} of queue {f['q']} starts outside its slot: {s0}"
        assert s1 == s0, f"frame {k} of queue {f['q']} ends {f['t_end'] - s0[2]:.1f} ns after its slot closed"
        edges.add(s0[:2])
    late = max(f["t_end"] - slot_of(f["t0"], start, period, slot)[2] for f in frames)
    dut._log.info("gate on: %d frames in %d slots; the last byte of a slot's traffic left %.1f ns or more "
                  "before the slot closed", len(frames), len(edges), -late)
    assert len(edges) >= 4, "the backlog should need several slots"
    hold, park = await nif.rd("TDMA_HOLD"), await nif.rd("TDMA_PARK")
    dut._log.info("gate counters: hold %d, park %d, offslot %d, overrun %d", hold, park,
                  await nif.rd("TDMA_OFFSLOT"), await nif.rd("TDMA_OVERRUN"))
    assert hold + park > 0, "the gate never held a frame: the edges were not exercised"
    assert await nif.rd("TDMA_OVERRUN") == 0 and await nif.rd("SCHED_BAD_STS") == 0
    # the timestamps (= the port's times, checked in tdma_run) include the time frames waited in the gate
    held = [h for h in holds if h > 100]
    dut._log.info("gate on: TX engine to port %.0f ns (min), %d frames held by the gate, %.0f..%.0f ns, "
                  "in their timestamps", min(holds), len(held), min(held, default=0), max(holds))
    assert held and max(holds) > 1000, "no frame's timestamp shows a hold by the gate"
    ts_err = [await nif.rd(k) for k in ("PORT_TX_TS_MISMATCH", "PORT_TX_TS_TIMEOUT", "PORT_TX_TS_SPURIOUS")]
    assert ts_err == [0, 0, 0], f"timestamp return counters {ts_err}"

    # gate off, no guard: what the engine holds when a slot closes leaves after the edge
    frames, start, period, slot, holds = await tdma_run(dut, tb, dev, nif, gate=0, guard_ns=0, n_frames=240)
    dut._log.info("gate off: TX engine to port %.0f..%.0f ns", min(holds), max(holds))
    assert all(f["t0"] >= start for f in frames), "a frame left before the schedule started"
    spill = own_spill(frames, start, period, slot)
    dut._log.info("gate off, no guard: spill past the slot edge up to %.1f ns", spill)
    assert spill > 0, "without gate and guard the backlog should cross a slot edge"


@cocotb.test()
async def tdma_bench(dut):
    """Benchmark (bench/nic/bench_tdma_nic.py, not a test): the issue's schedule, 200 us period and two
    100 us slots, at this build's line rate; reference (no gate, no guard) and the gate with the
    guards in BENCH_GUARDS; spill past the own slot's edge and slot utilisation to BENCH_OUT (JSON)."""
    tb, dev = await setup(dut, seed=7)
    nif = dev.interfaces[0]
    await nif.start(txq_count=2, rxq_count=1, log_size=10)
    gbps = int(os.environ["PARAM_LINE_GBPS"])
    period, slot = 200000, 100000
    n_frames = int(2.5 * slot / (8 / gbps) / 787)          # 2.5 slots of mixed frames per queue
    out = []
    names = ("TDMA_HOLD", "TDMA_PARK", "TDMA_OFFSLOT", "TDMA_OVERRUN")
    for gate, guard in [(0, 0)] + [(1, int(g)) for g in os.environ["BENCH_GUARDS"].split(",")]:
        # the gate's counters run on over the runs of this bench: each row gets its own run's increase
        before = {k: await nif.rd(k) for k in names}
        frames, start, _, _, _ = await tdma_run(dut, tb, dev, nif, gate, guard, n_frames, period, slot)
        spill = own_spill(frames, start, period, slot)
        busy = sum((f["len"] + 24) * 8 / gbps for f in frames)
        span = max(f["t_end"] for f in frames) - start
        counters = {k: (await nif.rd(k) - before[k]) & 0xFFFFFFFF for k in names}
        out.append(dict(gbps=gbps, gate=gate, guard_ns=guard, frames=len(frames), spill_ns=spill,
                        wire_busy_pct=100 * busy / span, **counters))
        dut._log.info("%s", out[-1])
    Path(os.environ["BENCH_OUT"]).write_text(json.dumps(out, indent=1))


CONFIGS = {
    "token_bucket": dict(IF_COUNT=1, PORT_COUNT=1, TXQ_COUNT=16, RXQ_COUNT=4, CQ_COUNT=32, EQ_COUNT=4,
                         TX_SLOTS=16, RX_SLOTS=16, MAX_FRAME=16384, LOOP=2, LINE_GBPS=100, TX_SCHED=1),
    "tdma": dict(IF_COUNT=1, PORT_COUNT=1, TXQ_COUNT=16, RXQ_COUNT=4, CQ_COUNT=32, EQ_COUNT=4,
                 TX_SLOTS=16, RX_SLOTS=16, MAX_FRAME=16384, LOOP=2, LINE_GBPS=100, TX_SCHED=2),
}


@pytest.mark.parametrize("cfg", list(CONFIGS))
def test_nic_sched(cfg):
    import beryl_sim
    tests = {"token_bucket": "test_rate_limit", "tdma": "test_tdma"}
    beryl_sim.run("tb_beryl_nic_us_top", "tb/nic/beryl_nic_us_top/tb_beryl_nic_us_top.f", "test_nic_sched", HERE,
                  parameters=CONFIGS[cfg], testcase=[tests[cfg]])
