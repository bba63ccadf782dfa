#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Token-bucket rate limiter (TX_SCHED=1) measured through the full NIC in the C++ simulator, over a
range of rates and frame sizes (issue 6: "measured rate within 1 % of the setting").

The NIC RTL in beryl-sim (sim/, build IF_COUNT=1 TX_SCHED=1, otherwise the simulator's defaults and
its default host model), driven by the Python driver model (tb/model/beryl_nic.py) through
sim/client.py, as bench_nic_sim.py does. Interface 0, port 0 is a `--no-wire` port: its TX is drained
at 100G line rate and counted by the simulator, whose STATS measurement window gives the cycle of the
first and the last frame the port transmitted since the window was restarted (GEN with count 0).

What "rate" is. SCHED_Q_RATE is bytes per core clock (8.24 fixed point); the scheduler charges a command
the bytes of its frames as the host wrote them (the descriptors' lengths: no FCS, preamble, gap or
padding; beryl_nic_sched_tb's OVERHEAD_BYTES is 0 in the NIC). So a "64-byte frame" here (sizes are
wire frames with their 4-byte FCS, as in bench_nic_sim.py) is 60 bytes posted and charged, and rates
are Gbit/s of those bytes: setting = SCHED_Q_RATE / 2^24 * 8 * clock (read back from the register).

How it is measured (one queue). The scheduler lets a queue send one command (up to DESC_BATCH = 8
frames) while its bucket is not negative and debits the command's bytes when its status comes back,
so a queue sends in clumps of 8 frames, the first clumps in the burst. A point is two runs that are
identical up to the end of the shorter one: each run rewrites the rate and burst (which refills the
bucket), restarts the ring at entry 0, posts all its frames at once (so every command takes 8 frames),
restarts the port's window and rings one doorbell. Run A is m_a clumps (enough to use up the burst)
and one more single frame; run B is m_b > m_a clumps of the same frames and the same single frame.
The last frame is alone in the last command in both runs, so its end is the same time after that
command's start: (t_last - t_first)_B - (t_last - t_first)_A is the time the queue took for the
clumps m_a+1 .. m_b, and their bytes over it is the measured rate. The burst, the first frames and
the command latency cancel; what is left is the scheduler's 16-cycle wait-list poll at the two
command starts. Every run's frames are checked against the port's byte counter.

Unlimited reference: the same two runs with rate 0, per frame size. A queue has one command in
flight, so one queue is bound by the command turnaround (descriptor fetch, data reads: 8 frames per
about 1.5 us here) before the 100G line; a setting at or above 97 % of that unlimited rate is marked
"engine/line-bound" (the bucket is not what limits it there; those rates fall short by design).

Two queues and an unlimited one on the same port (one run): the simulator's window is per port, so
each queue's rate comes from the TX completion timestamps (PTP time of a frame's first beat on the
port; test_nic_sched.py checks them against its own port monitor): bytes from the first command after
the burst to the last command over the time between their first frames. The same estimate is computed
for every single-queue point (column "one-run ts %") to show it agrees with the simulator's window.

Prints a table and writes JSON + plot: docs/figures/rate_sim.{json,png} for the full default run,
build/bench/rate_sim.* for any other (or --out).

  bench_rate_sim.py [--quick] [--rates 1 10] [--sizes 64 1518 mixed] [--burst B] [--binary PATH]
"""
import argparse
import asyncio
import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_nic_sim import ROOT, N, SimClient, frame, git_describe, sim_build  # noqa: E402

import beryl_regs as R  # noqa: E402  (tb/model, on the path through bench_nic_sim)

FX = 1 << 24                       # SCHED_Q_RATE: bytes per clock, 8.24
RATES = [0.5, 1, 2, 5, 10, 25, 50, 80]
SIZES = [64, 256, 1024, 1518, 9018, "mixed"]
QUICK_RATES = [1, 10, 50]
QUICK_SIZES = [64, 1518, "mixed"]
MIX = (64, 1518)                   # mixed: uniform wire sizes in this range, fixed seed
BATCH = 8                          # DESC_BATCH of the build (checked)
BOUND = 0.97                       # setting >= BOUND * unlimited rate: engine/line-bound
LOG_SIZE = 15                      # TX rings: 32768 entries (the most a queue has)
POOL = 512                         # TX frame buffers of 9216 bytes, shared by the rings' entries
MULTI = [(0, 5.0, "mixed"), (1, 20.0, 1518), (2, None, 1518)]   # queue, Gbit/s (None: unlimited), size


def size_label(size):
    return f"{MIX[0]}..{MIX[1]}" if size == "mixed" else str(size)


def lengths(size, n, seed=1):
    """n posted frame lengths (wire size minus FCS) of a size or of the mixed pattern."""
    if size == "mixed":
        rng = random.Random(seed)
        return [rng.randrange(MIX[0], MIX[1] + 1) - 4 for _ in range(n)]
    return [size - 4] * n


def marker(size):
    """Length of the single frame that ends every run (the same in both runs of a point)."""
    return (MIX[1] if size == "mixed" else size) - 4


class Sim:
    """beryl-sim on a temporary socket, port(s) not wired, clocking without pause (a queue waiting for
    tokens is no activity for the simulator: with the default idle grace it would stop the clock)."""

    def __init__(self, binary, mem_mb=320, extra=()):
        self.tmp = tempfile.mkdtemp(prefix="beryl-bench-rate-")
        sock = os.path.join(self.tmp, "sim.sock")
        self.cmd = [binary, "--socket", sock, "--mem-mb", str(mem_mb), "--no-wire", "--idle-grace",
                    str(1 << 50), *extra]
        self.log = open(os.path.join(self.tmp, "sim.log"), "w+")
        self.proc = subprocess.Popen(self.cmd, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self.c = SimClient(sock, timeout=120)
        except Exception:
            self.close()
            raise

    def close(self):
        try:
            if getattr(self, "c", None):
                self.c.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.seek(0)
            self.log_tail = self.log.read()[-2000:]
            self.log.close()
            shutil.rmtree(self.tmp, ignore_errors=True)


class RateBench:
    """The driver side: one interface, port 0, TX queue 0 (more for the two-queue point)."""

    def __init__(self, c, timeout_s=600):
        self.c, self.timeout_s = c, timeout_s
        self.clk_hz = c.info["clock_hz"]

    async def open(self):
        self.dev = await N.NicDevice.open(self.c.aread32, self.c.awrite32, self.c.alloc)
        nif = self.nif = self.dev.interfaces[0]
        if await nif.rd("TX_SCHED") != 1:
            raise SystemExit("bench_rate_sim: needs a token-bucket build (TX_SCHED=1)")
        if nif.p["DESC_BATCH"] != BATCH:
            raise SystemExit(f"bench_rate_sim: written for DESC_BATCH {BATCH}, the build has {nif.p['DESC_BATCH']}")
        await nif.start(txq_count=0, rxq_count=1, log_size=4, rx_buf_size=2048)
        nif.tx_buf_size = 9216                            # send(): one descriptor per frame
        await nif.wr("PORT_SEL", 0)
        # frame buffers: one pool shared by all TX ring entries (entry i uses buffer i mod POOL). The bench
        # posts thousands of frames at once and checks lengths, not payloads, so a buffer may be rewritten
        # before the NIC has read it; 32768-entry rings of own 9 KB buffers would need 300 MB per queue
        self.pool = N.buffers(self.c.alloc, POOL, 9216)
        await self.open_txq(0, LOG_SIZE)

    async def open_txq(self, q, log_size):
        """TX queue q on port 0 with its own completion queue (as NicInterface.add_txq, with the pool)."""
        nif = self.nif
        cqi = 1 + q                                       # CQ 0 belongs to RX queue 0
        cq = N.Ring(self.c.alloc, log_size, N.CPL_BYTES)
        nif.cq[cqi] = cq
        await nif.setup_queue(N.CQ, cqi, cq, target=0)
        ring = N.Ring(self.c.alloc, log_size, N.DESC_BYTES)
        ring.bufs = [self.pool[i % POOL] for i in range(ring.size)]
        nif.txq[q], nif.txq_cq[q] = ring, cqi
        await nif.setup_queue(N.TXQ, q, ring, target=cqi, port=0)

    def gbps(self, fx):
        return fx / FX * self.clk_hz * 8 / 1e9

    def fx(self, gbps):
        return round(gbps * 1e9 / 8 / self.clk_hz * FX)

    async def q_cmd(self, op, q):
        """SCHED_Q_CMD op on queue q; returns the ERR bit."""
        nif = self.nif
        await nif.wr("SCHED_Q_SEL", q)
        await nif.wr("SCHED_Q_CMD", op)
        return bool(await nif.rd("SCHED_Q_CMD") & R.NIC_IF_SCHED_Q_CMD_ERR_MASK)

    async def set_queue(self, q, fx, burst):
        """Write a queue's rate and burst (refills its bucket) and read them back."""
        nif = self.nif
        await nif.wr("SCHED_Q_RATE", fx)
        await nif.wr("SCHED_Q_BURST", burst)
        if await self.q_cmd(1, q):
            raise SystemExit(f"bench_rate_sim: the scheduler refused rate {fx} burst {burst} for queue {q}")
        await nif.wr("SCHED_Q_RATE", 0)
        await nif.wr("SCHED_Q_BURST", 0)
        assert not await self.q_cmd(2, q)
        got = (await nif.rd("SCHED_Q_RATE"), await nif.rd("SCHED_Q_BURST"))
        if got != (fx, burst):
            raise SystemExit(f"bench_rate_sim: queue {q} reads back rate/burst {got}, wrote {(fx, burst)}")
        return got

    async def restart_ring(self, q):
        """Queue q's ring back to entry 0 (every command then takes DESC_BATCH frames: the queue manager
        never hands out a batch across the ring's end)."""
        nif = self.nif
        ring = nif.txq[q]
        assert ring.prod == ring.cons, f"queue {q} still has frames in flight"
        ring.prod = ring.cons = 0
        await nif.setup_queue(N.TXQ, q, ring, target=nif.txq_cq[q], port=0)

    async def run(self, plan):
        """Post every queue's frames ({q: [lengths]}) at once, restart the port's window, one doorbell per
        queue; wait until the port sent them all. Returns the window, the port's byte count and per queue
        the (first-beat PTP time in 2^-16 ns, length) of every frame from its TX completion."""
        c, nif = self.c, self.nif
        for q in plan:
            await self.restart_ring(q)
        k = 0
        for q, lens in plan.items():
            if len(lens) > nif.txq[q].size:
                raise SystemExit(f"bench_rate_sim: {len(lens)} frames do not fit queue {q}'s ring")
            for ln in lens:
                assert await nif.send(frame(ln, k), txq=q, ring_doorbell=False) is not None
                k += 1
        want = sum(len(v) for v in plan.values())
        want_bytes = sum(sum(v) for v in plan.values())
        s0 = c.stats()
        c.gen(0, 0)                                   # restart port 0's window: nothing generated
        for q in plan:
            await nif.kick(q)
        deadline = time.monotonic() + self.timeout_s
        while True:
            s1 = c.stats()
            p = s1["ports"][0]
            if p["win_tx_frames"] >= want:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"bench_rate_sim: run of {want} frames timed out: {p}")
            time.sleep(0.003)
        p0 = s0["ports"][0]
        sent = p["tx_bytes"] - p0["tx_bytes"]
        if p["win_tx_frames"] != want or p["tx_frames"] - p0["tx_frames"] != want or sent != want_bytes:
            raise SystemExit(f"bench_rate_sim: port sent {p['win_tx_frames']} frames, {sent} bytes; posted {want}, "
                             f"{want_bytes}")
        sec, _, _ = await self.dev.ptp.get_time()
        times = {q: [None] * len(v) for q, v in plan.items()}
        got = 0
        while got < want:
            for cp in await nif.poll_tx():
                if cp.status != N.CPL_OK:
                    raise SystemExit(f"bench_rate_sim: TX completion status {cp.status}")
                times[cp.queue][cp.index] = N.ts_units(cp.timestamp, sec)
                got += 1
            if time.monotonic() > deadline:
                raise SystemExit(f"bench_rate_sim: {got}/{want} TX completions")
            time.sleep(0.002)
        return {"first": p["win_tx_first_cycle"], "last": p["win_tx_last_cycle"], "frames": want, "bytes": sent,
                "cycles": s1["cycles"] - s0["cycles"], "wall_s": s1["busy_wall_s"] - s0["busy_wall_s"],
                "times": times}

    async def probe(self, size, clumps=16):
        """Unlimited rate of one queue with `size` frames, roughly: one run of `clumps` commands,
        (bytes of frames 2..N) / (t_N - t_1) in bytes per clock. Only to plan the runs."""
        await self.set_queue(0, 0, 0)
        lens = lengths(size, BATCH * clumps)
        r = await self.run({0: lens})
        return sum(lens[1:]) / (r["last"] - r["first"])

    async def point(self, size, gbps, burst, t_min, unlimited_gbps=None, min_clumps=4):
        """One queue at `gbps` (None: unlimited) with `size` frames: runs A and B (module doc). The runs are
        planned with the queue's unlimited rate E (`unlimited_gbps`, else a probe run): from a full bucket
        the queue sends at E while the bucket drains at E - R, so run A is burst * E / (E - R) bytes and two
        more commands; run B adds at least t_min cycles at min(R, E) and min_clumps commands."""
        q = 0
        ring = self.nif.txq[q].size
        fx = 0 if gbps is None else self.fx(gbps)
        pat = lengths(size, ring)
        cum = [0]
        for ln in pat:
            cum.append(cum[-1] + ln)

        def clumps_for(nbytes, start=0):
            """Smallest m > start with the bytes of commands start..m-1 >= nbytes (or the ring's most)."""
            m = start + 1
            while cum[BATCH * m] - cum[BATCH * start] < nbytes and BATCH * (m + 1) < ring:
                m += 1
            return m

        bpc = 1e9 / 8 / self.clk_hz                       # bytes per clock of 1 Gbit/s
        e_bpc = unlimited_gbps * bpc if unlimited_gbps else await self.probe(size)
        r_bpc = None if gbps is None else gbps * bpc
        if r_bpc is None or r_bpc >= BOUND * e_bpc:
            m_a = 2                                       # the bucket never runs dry: nothing to skip
        else:
            m_a = clumps_for(burst * e_bpc / (e_bpc - r_bpc)) + 2
        m_b = max(clumps_for(t_min * min(r_bpc or e_bpc, e_bpc), m_a), m_a + min_clumps)
        if BATCH * m_b + 1 > ring:
            raise SystemExit(f"bench_rate_sim: {size_label(size)} B at {gbps} Gbit/s needs more than the ring's "
                             f"{ring} frames (smaller --burst or --t-min?)")
        res = {}
        for name, m in (("a", m_a), ("b", m_b)):
            await self.set_queue(q, fx, burst)
            res[name] = await self.run({q: pat[:BATCH * m] + [marker(size)]})
        a, b = res["a"], res["b"]
        cyc = (b["last"] - b["first"]) - (a["last"] - a["first"])
        nbytes = cum[BATCH * m_b] - cum[BATCH * m_a]
        meas = nbytes * 8 / (cyc / self.clk_hz) / 1e9
        row = {"size": size, "label": size_label(size), "set_gbps": None if gbps is None else self.gbps(fx),
               "rate_fx": fx, "burst": burst, "clumps_a": m_a, "clumps_b": m_b,
               "frames": BATCH * (m_b - m_a), "bytes": nbytes, "cycles": cyc, "meas_gbps": meas,
               "plan_unlimited_gbps": e_bpc / bpc, "sim_cycles": a["cycles"] + b["cycles"],
               "wall_s": round(a["wall_s"] + b["wall_s"], 3)}
        # the same difference from the TX timestamps (first beats, PTP time)
        ta, tb = a["times"][q], b["times"][q]
        row["ts_gbps"] = nbytes * 8 / (((tb[-1] - tb[0]) - (ta[-1] - ta[0])) / 65536)
        # one run's estimate from its timestamps, as for the two-queue point: commands m_a .. m_b of run B
        row["clump_gbps"] = nbytes * 8 / ((tb[BATCH * m_b] - tb[BATCH * m_a]) / 65536)
        if gbps is not None:
            row["err_pct"] = 100 * (meas / row["set_gbps"] - 1)
            row["ts_err_pct"] = 100 * (row["ts_gbps"] / row["set_gbps"] - 1)
            row["clump_err_pct"] = 100 * (row["clump_gbps"] / row["set_gbps"] - 1)
        return row

    async def multi(self, burst, window_ns, queues=MULTI):
        """Limited queues and an unlimited one on port 0 in one run, each queue's rate from its timestamps:
        bytes from the first command after 4 bursts' worth of bytes (a limited queue at most a quarter of
        its unlimited rate drains its bucket in fewer) and two more commands, to the queue's last frame
        (alone in its command), over the time between their first beats."""
        nif = self.nif
        plan, rows, cum = {}, [], {}
        for q, g, size in queues:
            bpns = (100.0 if g is None else g) / 8          # the unlimited queue planned at the line rate
            lens = lengths(size, 1 << LOG_SIZE, seed=1 + q)
            c = [0]
            for ln in lens:
                c.append(c[-1] + ln)
            need = window_ns * bpns + (4 * burst if g else 0)
            m = next((k for k in range(1, len(lens) // BATCH) if c[BATCH * k] >= need), None)
            if m is None:
                raise SystemExit(f"bench_rate_sim: queue {q} needs more than {len(lens)} frames (shorter --multi-ns?)")
            m += 2
            if q not in nif.txq:
                await self.open_txq(q, max(8, math.ceil(math.log2(BATCH * m + 2))))
            if BATCH * m + 1 > nif.txq[q].size:
                raise SystemExit(f"bench_rate_sim: queue {q}: {BATCH * m + 1} frames do not fit its ring")
            fx = 0 if g is None else self.fx(g)
            await self.set_queue(q, fx, burst)
            plan[q] = lens[:BATCH * m] + [marker(size)]
            cum[q] = c
            rows.append({"queue": q, "size": size, "label": size_label(size), "rate_fx": fx,
                         "set_gbps": None if g is None else self.gbps(fx), "burst": burst,
                         "frames_posted": len(plan[q])})
        r = await self.run(plan)
        t0 = min(r["times"][q][0] for q in plan)
        for row in rows:
            q = row["queue"]
            t, c = r["times"][q], cum[q]
            b = len(plan[q]) - 1                          # the last frame, alone in the last command
            if row["set_gbps"] is None:
                a = BATCH
            else:
                a = BATCH * (next(k for k in range(1, b // BATCH) if c[BATCH * k] >= 4 * burst) + 2)
            nbytes = c[b] - c[a]
            span = (t[b] - t[a]) / 65536
            row.update(frames=b - a, bytes=nbytes, span_ns=span, meas_gbps=nbytes * 8 / span,
                       from_ns=(t[a] - t0) / 65536, to_ns=(t[b] - t0) / 65536, last_ns=(t[-1] - t0) / 65536)
            if row["set_gbps"] is not None:
                row["err_pct"] = 100 * (row["meas_gbps"] / row["set_gbps"] - 1)
        lim_to = max((row["to_ns"] for row in rows if row["set_gbps"] is not None), default=0)
        for row in rows:
            if row["set_gbps"] is None:
                # the unlimited queue must have been sending over the limited queues' windows
                row["covers_limited"] = row["to_ns"] >= lim_to
        return {"rows": rows, "port_frames": r["frames"], "port_bytes": r["bytes"],
                "port_gbps": r["bytes"] * 8 / ((r["last"] - r["first"]) / self.clk_hz) / 1e9,
                "sim_cycles": r["cycles"], "wall_s": round(r["wall_s"], 3)}


def build(args):
    return sim_build.build_sim("IF_COUNT=1", "TX_SCHED=1")


def run(args, cmdline, commit):
    binary = args.binary or build(args)
    sim = Sim(binary, extra=args.sim_arg)
    t0 = time.time()
    out = {"unlimited": [], "rows": [], "multi": None}
    try:
        b = RateBench(sim.c, args.timeout)

        async def go():
            await b.open()
            meta = {"cmd": cmdline, "commit": commit}
            for size in args.sizes:
                u = await b.point(size, None, args.burst, args.t_min)
                u.update(meta)
                out["unlimited"].append(u)
                print(f"  {u['label']:>8s} unlimited: {u['meas_gbps']:.3f} Gbit/s ({u['frames']} frames, "
                      f"{u['cycles']} cycles)", flush=True)
                for g in args.rates:
                    r = await b.point(size, g, args.burst, args.t_min, unlimited_gbps=u["meas_gbps"])
                    r["unlimited_gbps"] = u["meas_gbps"]
                    r["bound"] = r["set_gbps"] >= BOUND * u["meas_gbps"]
                    r.update(meta)
                    out["rows"].append(r)
                    print(f"  {r['label']:>8s} {r['set_gbps']:7.3f} Gbit/s: {r['meas_gbps']:8.4f} ({r['err_pct']:+.3f} %), "
                          f"ts {r['ts_err_pct']:+.3f} %, one-run {r['clump_err_pct']:+.3f} %, {r['frames']} frames, "
                          f"{r['cycles']} cycles{', engine/line-bound' if r['bound'] else ''}", flush=True)
            if not args.no_multi:
                m = await b.multi(args.burst, args.multi_ns)
                for r in m["rows"]:
                    r.update(meta)
                out["multi"] = m
                for r in m["rows"]:
                    print(f"  two-queue point: queue {r['queue']} {r['label']} "
                          f"{'unlimited' if r['set_gbps'] is None else format(r['set_gbps'], '.3f')}: "
                          f"{r['meas_gbps']:.4f} Gbit/s"
                          + (f" ({r['err_pct']:+.3f} %)" if 'err_pct' in r else "")
                          + f" over {r['span_ns'] / 1000:.1f} us", flush=True)
            st = sim.c.stats()
            out["sim_cycles"], out["sim_busy_wall_s"] = st["cycles"], round(st["busy_wall_s"], 1)
        asyncio.run(go())
        out["build"] = sim.c.info["build"]
        out["clock_hz"] = sim.c.info["clock_hz"]
    finally:
        sim.close()
    out.update(wall_s=round(time.time() - t0, 1), sim_cmd=" ".join(sim.cmd[1:]), burst=args.burst, t_min=args.t_min,
               multi_ns=args.multi_ns, bound=BOUND, cmd=cmdline, commit=commit)
    return out


def fmt_err(x):
    return f"{x:+.3f}"


def table(res):
    lines = [f"Token-bucket rate limiter, one TX queue, 100G port (beryl-sim, {res.get('build', '?')}); burst "
             f"{res['burst']} B; rate = Gbit/s of frame bytes as posted (no FCS); commit {res['commit']}",
             "",
             "| setting Gbit/s | frame B | frames | measured Gbit/s | error % | one-run ts % | unlimited Gbit/s | note |",
             "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in res["rows"]:
        lines.append(f"| {r['set_gbps']:g} | {r['label']} | {r['frames']} | {r['meas_gbps']:.4f} | {fmt_err(r['err_pct'])} "
                     f"| {fmt_err(r['clump_err_pct'])} | {r['unlimited_gbps']:.2f} | "
                     f"{'engine/line-bound' if r['bound'] else ''} |")
    ok = [r for r in res["rows"] if not r["bound"]]
    if ok:
        w = max(ok, key=lambda r: abs(r["err_pct"]))
        lines.append("")
        lines.append(f"{len(ok)} points below the bound: largest error {fmt_err(w['err_pct'])} % ({w['label']} B at "
                     f"{w['set_gbps']:g} Gbit/s); within 1 %: {all(abs(r['err_pct']) < 1 for r in ok)}; "
                     f"the same difference from the TX timestamps: largest deviation from the window's "
                     f"{max(abs(r['ts_err_pct'] - r['err_pct']) for r in ok):.4f} points; one-run estimate from "
                     f"timestamps (two-queue method): {max(abs(r['clump_err_pct'] - r['err_pct']) for r in ok):.3f} points")
    m = res.get("multi")
    if m:
        lines += ["", "Two limited queues and an unlimited one on port 0 (rates from TX timestamps):", "",
                  "| queue | frame B | setting Gbit/s | frames | span us | measured Gbit/s | error % |",
                  "|---:|---:|---:|---:|---:|---:|---:|"]
        for r in m["rows"]:
            lines.append(f"| {r['queue']} | {r['label']} | {'unlimited' if r['set_gbps'] is None else format(r['set_gbps'], 'g')} "
                         f"| {r['frames']} | {r['span_ns'] / 1000:.1f} | {r['meas_gbps']:.4f} | "
                         f"{fmt_err(r['err_pct']) if 'err_pct' in r else '-'} |")
        lines.append(f"\nport total {m['port_gbps']:.2f} Gbit/s over the run; the unlimited queue sent until after "
                     f"the limited queues' windows: {all(r.get('covers_limited', True) for r in m['rows'])}")
    return "\n".join(lines)


def plot(res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = list(dict.fromkeys(r["label"] for r in res["rows"]))
    for i, lab in enumerate(labels):
        pts = [r for r in res["rows"] if r["label"] == lab]
        col = f"C{i}"
        ok = [r for r in pts if not r["bound"]]
        bd = [r for r in pts if r["bound"]]
        ax0.plot([r["set_gbps"] for r in ok], [r["err_pct"] for r in ok], "o-", color=col, label=f"{lab} B")
        ax1.plot([r["set_gbps"] for r in pts], [r["meas_gbps"] for r in pts], "o-", color=col, label=f"{lab} B",
                 markersize=4)
        ax1.plot([r["set_gbps"] for r in bd], [r["meas_gbps"] for r in bd], "x", color=col, markersize=9)
        u = next((x for x in res["unlimited"] if x["label"] == lab), None)
        if u:
            ax1.axhline(u["meas_gbps"], color=col, linestyle=":", linewidth=1)
    ax0.set_xscale("log")
    ax0.set_xlabel("setting, Gbit/s (frame bytes)")
    ax0.set_ylabel("measured / setting - 1, %")
    ax0.set_title("error, points below the engine/line bound (claim: within +-1 %)")
    lim = max(0.2, max((abs(r["err_pct"]) for r in res["rows"] if not r["bound"]), default=0.2) * 1.3)
    ax0.set_ylim(-lim, lim)
    ax0.grid(True, alpha=0.3)
    ax0.legend(fontsize=8)
    rates = sorted({r["set_gbps"] for r in res["rows"]})
    ax1.plot(rates, rates, "k--", linewidth=1, label="setting")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("setting, Gbit/s")
    ax1.set_ylabel("measured, Gbit/s")
    ax1.set_title("measured (x: engine/line-bound; dotted: one queue unlimited)")
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=8)
    fig.suptitle(f"Beryl token-bucket rate limiter through the NIC, beryl-sim, 100G port (commit {res['commit']})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def parse_size(s):
    return s if s == "mixed" else int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"rates {QUICK_RATES}, sizes {QUICK_SIZES}, shorter runs")
    ap.add_argument("--rates", type=float, nargs="+", help=f"Gbit/s (default {RATES})")
    ap.add_argument("--sizes", type=parse_size, nargs="+", help="wire frame sizes with FCS, or 'mixed' "
                    f"({MIX[0]}..{MIX[1]}); default {SIZES}")
    ap.add_argument("--burst", type=int, default=32768, help="bucket size, bytes (default 32768)")
    ap.add_argument("--t-min", type=int, help="measured cycles per point at least (default 100000, quick 40000)")
    ap.add_argument("--multi-ns", type=float, help="two-queue point: time each queue sends, ns (default 2e6, quick 5e5)")
    ap.add_argument("--no-multi", action="store_true", help="skip the two-queue point")
    ap.add_argument("--binary", help="a beryl-sim binary with TX_SCHED=1 instead of building IF_COUNT=1 TX_SCHED=1")
    ap.add_argument("--sim-arg", action="append", default=[], help="more beryl-sim options (repeat)")
    ap.add_argument("--timeout", type=float, default=900, help="wall seconds per run")
    ap.add_argument("--replot", action="store_true", help="table and plot of the last results, no simulation")
    ap.add_argument("--out", help="results JSON (PNG beside it); default docs/figures/rate_sim.json for the full "
                    "default run, build/bench/rate_sim.json otherwise")
    args = ap.parse_args()
    full = (not args.quick and args.rates is None and args.sizes is None and args.burst == 32768 and args.t_min is None
            and args.multi_ns is None and not args.no_multi and not args.sim_arg and args.binary is None)
    args.rates = args.rates or (QUICK_RATES if args.quick else RATES)
    args.sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    args.t_min = args.t_min or (40000 if args.quick else 100000)
    args.multi_ns = args.multi_ns or (5e5 if args.quick else 2e6)
    out = Path(args.out) if args.out else ROOT / ("docs/figures" if full else "build/bench") / "rate_sim.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.replot:
        res = json.loads(out.read_text())
    else:
        cmdline = " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
        print("running beryl-sim (token bucket, --no-wire) ...", flush=True)
        res = run(args, cmdline, git_describe())
        out.write_text(json.dumps(res, indent=1))
    print(table(res))
    try:
        plot(res, out.with_suffix(".png"))
        print(f"plot: {out.with_suffix('.png')}")
    except ImportError:
        print("matplotlib missing: no plot")
    print(f"\nwall time {res['wall_s']} s; data: {out}")


if __name__ == "__main__":
    main()
