# SPDX-License-Identifier: MIT
"""Two NICs in one beryl-sim (`--nics 2`), NIC 1's oscillator 100 ppm fast, cabled together:
  - each NIC has its own socket, host memory and registers: both answer register reads, a write
    to one NIC's scratch register leaves the other's alone; HELLO/STATS name the NIC and its clock;
  - the cycle counts over a long run (--bench-cycles) are in the ratio of the clock frequencies,
    1 + 100e-6, to within the two ends' alignment (one cycle each);
  - frames sent by NIC 0 arrive at NIC 1 and the other way round (the Python driver model on
    each socket, helpers from test_sim.py), and both NICs stay on one time line while driven;
  - wire delay = first bit out to first bit in: STATS' last_tx_sof_ps / last_rx_sof_ps of the two
    ends of a 1000 ns wire differ by 1000 ns plus less than one clock period of the receiving NIC,
    for frames of 60..1518 bytes, in both directions; on a 10 ns wire a frame is not presented
    before it has been sent completely;
  - idle, the process sleeps (no CPU, neither clock moves);
  - bad --nics / --ppm values stop the simulator with a message and a non-zero exit.
Reference for the clocks: the periods follow from the ppm alone, 4000 ps and 4000 / (1 + 100e-6) ps.
"""
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_sim as T  # noqa: E402  (sys.path: sim/, tb/model, tb/common; build_sim, raw_frame, pump)

from sim.client import SimClient  # noqa: E402

import beryl_nic as N  # noqa: E402
import beryl_regs as R  # noqa: E402
import beryl_seed  # noqa: E402

PPM = 100.0
PERIOD0_PS = 4000.0
PERIOD1_PS = 4000.0 / (1 + PPM * 1e-6)
DELAY_NS = 1000          # NIC 0 port 0 <-> NIC 1 port 0
SHORT_NS = 10            # NIC 0 port 1 <-> NIC 1 port 1: shorter than any frame's serialisation


@pytest.fixture(scope="module")
def sim2():
    binary = T.build_sim()
    tmp = tempfile.mkdtemp(prefix="beryl-sim-multi-")
    sock = os.path.join(tmp, "sim.sock")
    shm = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else tmp, f"beryl-sim-multi-{os.getpid()}")
    log = open(os.path.join(tmp, "sim.log"), "w+")
    proc = subprocess.Popen([binary, "--nics", "2", "--ppm", f"1:{PPM:g}", "--socket", sock, "--shm", shm,
                             "--mem-mb", "32", "--wire", f"0:2:{DELAY_NS}", "--wire", f"1:3:{SHORT_NS}"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc, binary, [sock, sock + ".1"]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.seek(0)
        print(log.read())
        shutil.rmtree(tmp, ignore_errors=True)
        for f in (shm, shm + ".1"):
            assert not os.path.exists(f), f"the simulator left its host memory file {f} behind"


def test_two_nics_registers(sim2):
    """Each socket is its own NIC: HELLO names it and its clock, the identity blocks answer, and
    a scratch register write reaches only the NIC it was sent to."""
    _, _, socks = sim2
    c0, c1 = SimClient(socks[0]), SimClient(socks[1])
    try:
        assert (c0.info["nic"], c1.info["nic"]) == (0, 1) and c0.info["nics"] == c1.info["nics"] == 2
        assert c0.info["shm"] != c1.info["shm"]
        assert c0.info["clock_hz"] == 250_000_000
        assert abs(c1.info["clock_hz"] - 250e6 * (1 + PPM * 1e-6)) < 1e-3
        assert c1.info["port_base"] == c1.info["if_count"] * c1.info["port_count"]
        for c in (c0, c1):
            assert c.read32(R.ID_TYPE_OFFSET) == R.ID_BLOCK_TYPE
            assert c.read32(R.ID_VERSION_OFFSET) == R.ID_BLOCK_VERSION
        c0.write32(R.ID_SCRATCH_OFFSET, 0x12345678)
        c1.write32(R.ID_SCRATCH_OFFSET, 0x9ABCDEF0)
        assert c0.read32(R.ID_SCRATCH_OFFSET) == 0x12345678
        assert c1.read32(R.ID_SCRATCH_OFFSET) == 0x9ABCDEF0
        c1.write32(R.ID_SCRATCH_OFFSET, 0)
        assert c1.read32(R.ID_SCRATCH_OFFSET) == 0 and c0.read32(R.ID_SCRATCH_OFFSET) == 0x12345678
        # a second driver on one NIC's socket is refused; the other NIC's socket is unaffected
        with pytest.raises(Exception):
            SimClient(socks[1], connect_timeout=1).read32(0)
        assert c0.read32(R.ID_TYPE_OFFSET) == R.ID_BLOCK_TYPE
    finally:
        c0.close()
        c1.close()


def test_cycle_ratio(sim2):
    """--bench-cycles with two NICs: NIC 0 makes exactly N cycles, NIC 1 (100 ppm fast) its edges
    up to NIC 0's last one: N * (1 + 100e-6), to within the alignment of the run's two ends."""
    _, binary, _ = sim2
    n = 1_000_000
    out = subprocess.run([binary, "--nics", "2", "--ppm", f"1:{PPM:g}", "--bench-cycles", str(n), "--quiet"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    c0, c1 = (x["cycles"] for x in r["nics"])
    assert r["cycles"] == c0 == n, r
    assert abs(c1 - c0 * (1 + PPM * 1e-6)) <= 1, r
    # the totals since t = 0 (both phases 0): NIC 1's edges k * P1 <= NIC 0's last one, (t0 - 1) * P0
    t0, t1 = (x["total_cycles"] for x in r["nics"])
    assert abs(t1 - ((t0 - 1) * (1 + PPM * 1e-6) + 1)) <= 1, r
    assert [x["period_ps"] for x in r["nics"]] == pytest.approx([PERIOD0_PS, PERIOD1_PS], abs=1e-9)


def _own_clock(s, period_ps):
    """A NIC's time is its cycle count times its own period (its cycle k is its edge k * period)."""
    assert abs(s["sim_time_ps"] - s["cycles"] * period_ps) <= 1, s


def _same_time_line(s0, s1):
    """STATS of both NICs taken while the clock stands (idle): their next edges lie within one
    clock period of each other, one global time."""
    _own_clock(s0, PERIOD0_PS)
    _own_clock(s1, PERIOD1_PS)
    assert abs(s0["sim_time_ps"] - s1["sim_time_ps"]) <= max(PERIOD0_PS, PERIOD1_PS), (s0, s1)


def test_traffic_both_ways_and_wire_delay(sim2):
    _, _, socks = sim2
    c0, c1 = SimClient(socks[0]), SimClient(socks[1])
    rng = beryl_seed.rng(17, "test_traffic_both_ways_and_wire_delay")

    async def one_frame(src_c, dst_c, src, dst, port, length, seq):
        """Send one frame src -> dst (interfaces of the two NICs on local port `port` of each),
        receive it, return the global times of its first TX beat and of its first RX beat (STATS)."""
        f = T.raw_frame(rng, length, seq)
        assert await src.send(f) is not None
        rx, tx = await T.pump(None, src, dst, 1, 1, timeout_s=60)
        assert [x for x, _ in rx] == [f] and tx[0].status == N.CPL_OK
        s, d = src_c.stats(), dst_c.stats()
        return s["ports"][port]["last_tx_sof_ps"], d["ports"][port]["last_rx_sof_ps"], s, d

    async def run():
        d0 = await N.NicDevice.open(c0.aread32, c0.awrite32, c0.alloc)
        d1 = await N.NicDevice.open(c1.aread32, c1.awrite32, c1.alloc)
        for d in (d0, d1):
            for nif in d.interfaces:
                await nif.start(txq_count=1, rxq_count=1, log_size=5, tx_buf_size=4096, rx_buf_size=4096)
        a0, b0 = d0.interfaces[0], d1.interfaces[0]
        # (c) frames both ways over the 1000 ns wire (NIC 0 port 0 <-> NIC 1 port 0) and
        # (d) first-beat-to-first-beat delay: 1000 ns plus the wait for the receiver's next edge
        lengths = [60, 61, 64, 65, 127, 128, 256, 500, 1000, 1500, 1514, 1518]
        for k, length in enumerate(lengths):
            for src_c, dst_c, src, dst, per in ((c0, c1, a0, b0, PERIOD1_PS), (c1, c0, b0, a0, PERIOD0_PS)):
                tx_ps, rx_ps, s, d = await one_frame(src_c, dst_c, src, dst, 0, length, k)
                lag = rx_ps - tx_ps - DELAY_NS * 1000
                print(f"{length} B NIC {src_c.info['nic']} -> NIC {dst_c.info['nic']}: first beat to first beat "
                      f"{(rx_ps - tx_ps) / 1000:.3f} ns")
                assert 0 <= lag < per, (length, src_c.info["nic"], tx_ps, rx_ps, lag)
                _own_clock(*((s, PERIOD0_PS) if src_c is c0 else (s, PERIOD1_PS)))
                _own_clock(*((d, PERIOD1_PS) if src_c is c0 else (d, PERIOD0_PS)))
        # the NICs' own counters and the simulator's agree: every frame went one way and came back
        n = len(lengths)
        for d, c in ((d0, c0), (d1, c1)):
            cnt = await d.interfaces[0].counters()
            assert cnt["tx_pkts"] == n and cnt["rx_pkts"] == n, cnt
            p = c.stats()["ports"][0]
            assert p["tx_frames"] == n and p["rx_frames"] == n and p["wire_dropped"] == 0, p
        # 10 ns wire: a frame still reaches the other NIC only after its last beat left, about
        # its serialisation time after the first one (a beat a cycle at most, 1514 + 24 bytes of
        # line time at 100 Gbit/s at most, plus the receiver's edge)
        a1, b1 = d0.interfaces[1], d1.interfaces[1]
        for src_c, dst_c, src, dst in ((c0, c1, a1, b1), (c1, c0, b1, a1)):
            tx_ps, rx_ps, _, _ = await one_frame(src_c, dst_c, src, dst, 1, 1514, 99)
            print(f"1514 B NIC {src_c.info['nic']} -> NIC {dst_c.info['nic']} over {SHORT_NS} ns: first beat to "
                  f"first beat {(rx_ps - tx_ps) / 1000:.3f} ns")
            beats = -(-1514 // 64)
            assert (beats - 1) * PERIOD1_PS <= rx_ps - tx_ps <= (1514 + 24) * 8 / 100 * 1000 + 2 * PERIOD0_PS, \
                (tx_ps, rx_ps)

    try:
        asyncio.run(run())
    finally:
        c0.close()
        c1.close()


def test_idle_sleeps_both(sim2):
    """With two drivers attached and nothing in flight the process blocks in poll(): no CPU, and
    neither NIC's clock moves; a request to either NIC wakes it."""
    proc, _, socks = sim2
    c0, c1 = SimClient(socks[0]), SimClient(socks[1])
    try:
        c0.read32(0)
        c1.read32(0)
        time.sleep(0.5)       # past both idle grace periods
        s0, s1 = c0.stats(), c1.stats()
        cpu0 = T._cpu_s(proc.pid)
        time.sleep(1.0)
        cpu1 = T._cpu_s(proc.pid)
        e0, e1 = c0.stats(), c1.stats()
        assert cpu1 - cpu0 < 0.2, f"idle simulator used {cpu1 - cpu0:.2f} s CPU in 1 s"
        assert e0["cycles"] - s0["cycles"] < 20000 and e1["cycles"] - s1["cycles"] < 20000, (s0, e0, s1, e1)
        _same_time_line(e0, e1)
        # either socket wakes the clock, and it runs for both NICs
        assert c1.read32(R.ID_TYPE_OFFSET) == R.ID_BLOCK_TYPE
        w0, w1 = c0.stats(), c1.stats()
        assert w0["cycles"] > e0["cycles"] and w1["cycles"] > e1["cycles"]
        _own_clock(w0, PERIOD0_PS)
        _own_clock(w1, PERIOD1_PS)
    finally:
        c0.close()
        c1.close()


@pytest.mark.parametrize("args, msg", [
    (["--nics", "3"], "--nics 3: beryl-sim runs 1 or 2 NICs"),
    (["--nics", "2", "--ppm", "5:10"], "--ppm 5:10: there is no NIC 5"),
    (["--ppm", "1:10"], "--ppm 1:10: there is no NIC 1"),
    (["--nics", "2", "--ppm", "1:fast"], "--ppm wants NIC:VALUE"),
    (["--nics", "2", "--wire", "0:4"], "--wire 0:4: there are ports 0..3"),
])
def test_bad_options(args, msg, tmp_path):
    binary = T.build_sim()
    r = subprocess.run([binary, "--socket", str(tmp_path / "s.sock"), "--quiet", "--bench-cycles", "1", *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and msg in r.stderr, (r.returncode, r.stderr)
