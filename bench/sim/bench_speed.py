# SPDX-License-Identifier: MIT
"""Speed of the C++ simulator (sim/) in simulated clock cycles per second, default build.

    python3 bench/sim/bench_speed.py [--cycles N] [--frames N] [--len BYTES] [--binary PATH]
    python3 bench/sim/bench_speed.py --binary A --compare B [--rounds N] [--cycles N] [--frames N]

Rows:
  idle-clocking  the clock runs with nothing to do (beryl-sim --bench-cycles N, no driver)
  idle-clocking, 2 NICs   the same with two NIC instances (--nics 2 --ppm 1:100): cycles of NIC 0,
                 each of which comes with one (1.0001) of NIC 1
  loaded         interface 0 sends frames to interface 1 over the simulated wire, driven by the
                 Python driver model through sim/client.py; cycles counted while the simulator
                 was clocking (STATS busy_cycles / busy_wall_s), plus per CPU-second of the
                 simulator process (the machine is shared: wall time includes waiting for a core)
Prints a table; the machine's processor and load average are printed with it (this project's machines
differ from one day to the next: figures from two of them compare only through the processor named).

--compare B: an A/B comparison of two builds on a machine whose speed drifts (this shared one: the same
binary by up to 40 % within minutes). Each round runs the idle-clocking and loaded rows of both
binaries, A then B in even rounds and B then A in odd ones (ABBA), and takes the ratio B / A within
the round; the table gives each binary's median and range and the median of the per-round ratios,
which a slow drift moves much less than the medians.
"""
import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tb" / "model"))
sys.path.insert(0, str(ROOT / "tb" / "common"))
from sim.client import SimClient  # noqa: E402

import beryl_nic as N  # noqa: E402
import sim_build  # noqa: E402


def machine(cpuinfo="/proc/cpuinfo"):
    """the processor as /proc/cpuinfo names it, with family and model (virtual machines often give only a
    generic name), e.g. 'Intel(R) Xeon(R) Processor (family 6, model 207)'; 'unknown processor' elsewhere"""
    info = {}
    try:
        with open(cpuinfo) as f:
            for line in f:
                if not line.strip():
                    break   # the first processor's block
                k, _, v = line.partition(":")
                info[k.strip()] = v.strip()
    except OSError:
        pass
    name = info.get("model name", "unknown processor")
    if "cpu family" in info and "model" in info:
        name += f" (family {info['cpu family']}, model {info['model']})"
    return name


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def build():
    return sim_build.build_sim()


def idle_row(binary, cycles, nics=1):
    t0 = os.times()
    extra = ["--nics", "2", "--ppm", "1:100"] if nics == 2 else []
    out = subprocess.run([binary, "--bench-cycles", str(cycles), "--quiet", *extra], capture_output=True, text=True,
                         check=True).stdout
    t1 = os.times()
    r = json.loads(out.strip().splitlines()[-1])
    cpu = (t1.children_user + t1.children_system) - (t0.children_user + t0.children_system)
    return {"mode": "idle-clocking" + (", 2 NICs" if nics == 2 else ""), "cycles": r["cycles"], "wall_s": r["wall_s"],
            "cycles_per_s": r["cycles_per_s"], "cycles_per_cpu_s": r["cycles"] / cpu if cpu else 0, "note": ""}


# the loaded row gives up when no frame was sent or received for this long (wall clock; a healthy run
# moves frames every millisecond, a run under valgrind every few)
STALL_S = 60.0


def loaded_row(binary, frames, length, extra=()):
    """extra: more simulator options (bench_gates.py: --gate-stats FILE)"""
    tmp = tempfile.mkdtemp(prefix="beryl-bench-")
    sock = os.path.join(tmp, "sim.sock")
    proc = subprocess.Popen([binary, "--socket", sock, "--mem-mb", "64", *extra]
                            + ([] if os.environ.get("BENCH_VERBOSE") else ["--quiet"]))
    c = None
    try:
        c = SimClient(sock)
        rng = random.Random(1)

        async def run():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            a, b = dev.interfaces
            await a.start(txq_count=1, rxq_count=1, log_size=8, tx_buf_size=2048, rx_buf_size=2048)
            await b.start(txq_count=1, rxq_count=1, log_size=8, tx_buf_size=2048, rx_buf_size=2048)
            frame = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xB5]) + rng.randbytes(length - 14)
            s0, cpu0 = c.stats(), cpu_s(proc.pid)
            sent = got = 0
            last_progress = time.monotonic()
            while got < frames:
                if time.monotonic() - last_progress > STALL_S:
                    raise RuntimeError(f"loaded row: no frame sent or received for {STALL_S:.0f} s "
                                       f"({sent} sent, {got} of {frames} received); the simulator or the RTL "
                                       "lost frames or stopped")
                queued = 0
                while sent < frames and sent - got < 200:
                    if await a.send(frame, ring_doorbell=False) is None:
                        break
                    sent += 1
                    queued += 1
                if queued:
                    await a.kick()
                await a.poll_tx()
                n = len(await b.poll_rx())
                got += n
                if n or queued:
                    last_progress = time.monotonic()
                else:
                    time.sleep(0.0005)
            s1, cpu1 = c.stats(), cpu_s(proc.pid)
            return s0, s1, cpu1 - cpu0

        s0, s1, cpu = asyncio.run(run())
        cyc = s1["busy_cycles"] - s0["busy_cycles"]
        wall = s1["busy_wall_s"] - s0["busy_wall_s"]
        sim_ns = (s1["cycles"] - s0["cycles"]) * 1e9 / s1["clock_hz"]
        gbps = frames * length * 8 / sim_ns
        return {"mode": "loaded", "cycles": cyc, "wall_s": wall, "cycles_per_s": cyc / wall if wall else 0,
                "cycles_per_cpu_s": (s1["cycles"] - s0["cycles"]) / cpu if cpu else 0,
                "note": f"{frames} x {length} B frames, {gbps:.1f} Gbit/s simulated"}
    finally:
        # the connection first (also after an error): a simulator blocked sending to a driver that
        # no longer reads would not see the SIGTERM until then
        try:
            if c is not None:
                c.close()
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
                print(f"bench_speed.py: {binary} did not exit within 10 s of SIGTERM; killed", file=sys.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)   # the socket's directory (the simulator removes the socket)


def compare(a, b, rounds, cycles, frames, length):
    """ABBA rounds of the idle-clocking and loaded rows of binaries a and b; prints the table"""
    modes = ("idle-clocking", "loaded")
    runs = {a: {m: [] for m in modes}, b: {m: [] for m in modes}}
    ratios = {m: [] for m in modes}
    for r in range(rounds):
        got = {}
        for binary in ((a, b) if r % 2 == 0 else (b, a)):
            got[binary] = {"idle-clocking": idle_row(binary, cycles)["cycles_per_s"],
                           "loaded": loaded_row(binary, frames, length)["cycles_per_s"]}
        for m in modes:
            for binary in (a, b):
                runs[binary][m].append(got[binary][m])
            ratios[m].append(got[b][m] / got[a][m])
        print(f"round {r + 1}/{rounds}: " + ", ".join(
            f"{m} A {got[a][m]:,.0f} B {got[b][m]:,.0f}" for m in modes), file=sys.stderr, flush=True)
    print(f"beryl-sim A/B, {rounds} ABBA rounds ({frames} x {length} B frames loaded, {cycles} cycles idle), "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs, {machine()}")
    print(f"A: {a}\nB: {b}\n")
    print("| mode | A: median cycles/s (range) | B: median cycles/s (range) | B / A: median of rounds (range) |")
    print("|---|---|---|---|")
    for m in modes:
        cells = [f"{statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})" for v in (runs[a][m], runs[b][m])]
        q = ratios[m]
        print(f"| {m} | {cells[0]} | {cells[1]} | {statistics.median(q):.3f} ({min(q):.3f}-{max(q):.3f}) |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=500000)
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--len", type=int, default=1514)
    ap.add_argument("--binary")
    ap.add_argument("--compare", metavar="B", help="a second binary: ABBA comparison against --binary (A)")
    ap.add_argument("--rounds", type=int, default=6, help="rounds of the comparison (default 6)")
    args = ap.parse_args()
    binary = args.binary or build()
    if args.compare:
        if args.rounds < 1:
            ap.error("--rounds must be at least 1")
        compare(binary, args.compare, args.rounds, args.cycles, args.frames, args.len)
        return
    rows = [idle_row(binary, args.cycles), idle_row(binary, args.cycles // 2, nics=2),
            loaded_row(binary, args.frames, args.len)]
    print(f"beryl-sim speed ({Path(binary).parent.name}), load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs, {machine()}")
    print("| mode | cycles | wall s | cycles/s (wall) | cycles/s (CPU) | note |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['cycles']} | {r['wall_s']:.2f} | {r['cycles_per_s']:,.0f} | "
              f"{r['cycles_per_cpu_s']:,.0f} | {r['note']} |")


if __name__ == "__main__":
    main()
