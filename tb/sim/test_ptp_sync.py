# SPDX-License-Identifier: MIT
"""PTP synchronisation across a simulated wire (issue 6): two NICs in beryl-sim, NIC 1's oscillator
100 ppm fast, a 500 ns wire; beryl-ptp-sync disciplines NIC 1 to NIC 0. The verdict comes from the
simulator's own record of both RTL clocks (--ptp-probe), not from the servo: after 15 exchanges the true
offset stays within 10 ns. The path-delay estimate gives the wire back (within one clock), and the PTP
frames the tool sent decode in tshark as the PTPv2 messages they claim to be, with the Follow_Up
carrying the Sync's TX timestamp.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "ptp"))
sys.path.insert(0, str(REPO / "tb" / "common"))


@pytest.fixture(scope="module")
def tools():
    import bench_ptp_sync as B
    try:
        return B.build()
    except FileNotFoundError:
        pytest.skip("no C++ compiler: the simulator cannot be built")


def test_sync_100ppm(tools, tmp_path):
    import bench_ptp_sync as B
    sim, tool = tools
    pcap = tmp_path / "ptp.pcap"
    ex, summary, samples = B.run_case(sim, tool, 100, 500, 40, 15, 100, pcap=pcap)
    assert len(ex) == 40 and all(e["sim_ps"] > 0 for e in ex)
    r = B.analyse(ex, summary, samples, 15, 100)
    # before the servo acts the clocks drift apart at 100 ppm: the probe sees it
    early = [o for t, o in samples if t < ex[1]["sim_ps"]]
    assert max(early) - min(early) > 5, "no drift before the first correction: is NIC 1 really 100 ppm fast?"
    assert r["true_max_abs_ns"] < B.LIMIT_NS, r
    assert r["probe_samples"] > 1000
    assert r["convergence_exchanges"] is not None and r["convergence_exchanges"] <= 15, r
    assert abs(r["delay_ns"] - 500) <= 4, r
    # the slave's correction cancels the oscillator: (1 + 100e-6)(1 + f) = 1 for f averaged over the
    # settled exchanges, to within 5 ppm (docs/figures/ptp_sync.json: 0.2 ppm). Not the last setting: the
    # proportional term moves it by offset / interval with every sample (1.7 ns / 100 us = 17 ppm), and the
    # exchanges' spacing in simulated time depends on how the two processes are scheduled (simulated time
    # runs while the tool waits): the last setting was 25 ppm off on a loaded machine
    assert abs((1 + 100e-6) * (1 + r["mean_freq_ppb"] * 1e-9) - 1) < 5e-6, r

    if not shutil.which("tshark"):
        pytest.skip("tshark not installed: PTP frame decoding not checked")
    out = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-e", "ptp.v2.messagetype",
                          "-e", "ptp.v2.sequenceid", "-e", "ptp.v2.flags.twostep",
                          "-e", "ptp.v2.fu.preciseorigintimestamp.seconds",
                          "-e", "ptp.v2.fu.preciseorigintimestamp.nanoseconds"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [ln.split("\t") for ln in out.stdout.splitlines()]
    types = [int(r[0], 0) for r in rows]
    assert types[:4] == [0x0, 0x8, 0x1, 0x9] and len(rows) == 4 * 40, types[:8]
    # each Follow_Up carries the TX time of the Sync before it (the pcap stamps each frame with it)
    recs = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-e", "frame.time_epoch"],
                          capture_output=True, text=True, timeout=120).stdout.split()
    for k in range(0, len(rows), 4):
        sync_t = recs[k]
        fu_sec, fu_ns = int(rows[k + 1][3]), int(rows[k + 1][4])
        assert f"{fu_sec}.{fu_ns:09d}" == sync_t[:len(f"{fu_sec}.{fu_ns:09d}")], (k, sync_t, fu_sec, fu_ns)
        assert int(rows[k][1]) == int(rows[k + 1][1]) == k // 4
        assert rows[k][2] in ("1", "True")
