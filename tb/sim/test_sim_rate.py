# SPDX-License-Identifier: MIT
"""The token-bucket rate limiter (TX_SCHED=1) through the full NIC in the C++ simulator, a few points of
bench/sim/bench_rate_sim.py (its method: the module doc there).

Build: `TX_SCHED=1` with the simulator's other defaults, the build tb/sw/test_sw.py's
test_sim_sched_rate already makes, so this adds no build. Interface 0, port 0 unwired (`--no-wire`: TX
drained at 100G line rate by the simulator).

Reference: the rate read back from SCHED_Q_RATE (bytes of frames as posted per clock, 8.24) against
what the simulator's port counted: the bytes of the frames and the cycles between them from its STATS
measurement window (nothing from the RTL's own counters or timestamps). Each point must be below what
one unlimited queue carries with that frame size (else the engine, not the bucket, sets the rate),
and within 1 % of the setting. Bad input: a SCHED_Q_CMD for a queue beyond the build's TX queues is
refused (ERR) and changes no queue (queue TXQ_COUNT does not alias queue 0).
"""
import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "sim"))
sys.path.insert(0, str(ROOT / "tb" / "common"))
import sim_build  # noqa: E402

POINTS = [(1518, 5.0), (64, 1.0), ("mixed", 20.0)]     # (wire frame size or 64..1518 mix, Gbit/s)
BURST = 32768


@pytest.fixture(scope="module")
def bench():
    try:
        binary = sim_build.build_sim("TX_SCHED=1")
    except FileNotFoundError as e:
        pytest.skip(str(e))
    import bench_rate_sim as B
    sim = B.Sim(binary, mem_mb=64)
    try:
        b = B.RateBench(sim.c, timeout_s=120)
        asyncio.run(b.open())
        yield B, b
    finally:
        sim.close()
        print(sim.log_tail)


@pytest.mark.parametrize("size,gbps", POINTS, ids=[f"{s}B_{g:g}G" for s, g in POINTS])
def test_rate(bench, size, gbps):
    B, b = bench
    row = asyncio.run(b.point(size, gbps, BURST, t_min=100000))
    print({k: row[k] for k in ("label", "set_gbps", "meas_gbps", "err_pct", "frames", "cycles", "plan_unlimited_gbps")})
    assert row["set_gbps"] == pytest.approx(gbps, rel=1e-6)     # the register holds the rate exactly
    # the bucket, not the TX engine, must be what limits this point (probe run: one unlimited queue)
    assert row["plan_unlimited_gbps"] > 1.5 * gbps, row
    assert row["cycles"] >= 100000 and row["frames"] >= 4 * B.BATCH, row
    assert abs(row["err_pct"]) < 1.0, f"{row['label']} B at {gbps} Gbit/s: measured {row['meas_gbps']:.4f}"


def test_bad_queue(bench):
    B, b = bench
    nif = b.nif

    async def go():
        n = nif.p["TXQ_COUNT"]
        fx = b.fx(3.0)
        await b.set_queue(0, fx, 4000)
        # a queue beyond the build's: refused for a write and a read, and nothing changed
        for op in (1, 2):
            await nif.wr("SCHED_Q_RATE", b.fx(7.0))
            await nif.wr("SCHED_Q_BURST", 1234)
            assert await b.q_cmd(op, n), f"op {op} on queue {n} of {n} was not refused"
        assert await b.q_cmd(2, n - 1) is False                  # the last queue is fine; ERR cleared
        assert not await b.q_cmd(2, 0)
        assert (await nif.rd("SCHED_Q_RATE"), await nif.rd("SCHED_Q_BURST")) == (fx, 4000)
        await b.set_queue(0, 0, 0)
    asyncio.run(go())
