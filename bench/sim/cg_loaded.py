#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Instructions per simulated cycle of beryl-sim under load, counted by callgrind over the measured
window of bench_speed.py's loaded row only.

    python3 bench/sim/cg_loaded.py BINARY [--frames N] [--out FILE] [--valgrind-arg ARG ...]

The simulator runs under `valgrind --tool=callgrind --instr-atstart=no`; instrumentation is switched on
(`callgrind_control -i on`) right after the row's first STATS reply and off right before its second,
so set-up, reset and the driver's initialisation do not count. Prints the window's simulated cycles
(STATS `cycles`), the instructions and their quotient. Whole-process counts moved by a few per cent
between runs of the same binary (presumably the number of cheap idle cycles in them, which depends
on the driver's timing); this quotient moved by 0.2-3 % (12 401 / 12 424 for one binary, 11 653-11 999
over three runs of another), so compare builds with two or three runs each. Build the binary without
`-march=native` (valgrind does not know AVX-512), e.g.

    make -C sim PGO=0 CARCH=-march=x86-64-v3 OUT=$PWD/build/cg
    python3 bench/sim/cg_loaded.py build/cg/beryl-sim --frames 1000
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_speed  # noqa: E402
import sim.client as client  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--len", type=int, default=1514)
    ap.add_argument("--out", help="callgrind output file (default: a temporary file, removed)")
    ap.add_argument("--valgrind-arg", action="append", default=[],
                    help="extra valgrind argument, e.g. --valgrind-arg=--dump-instr=yes for cg_lines.py --binary")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="beryl-cg-")
    out = args.out or os.path.join(tmp, "callgrind.out")
    wrap = os.path.join(tmp, "valgrind.sh")
    with open(wrap, "w") as f:
        f.write("#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no " + " ".join(args.valgrind_arg)
                + f" --callgrind-out-file={out} {os.path.abspath(args.binary)} \"$@\"\n")
    os.chmod(wrap, 0o755)

    state = {"pid": None, "stats": []}

    # valgrind runs the simulator about 50x slower: longer waits for its replies and its exit
    init0 = client.SimClient.__init__

    def init(self, path, timeout=600.0, connect_timeout=300.0):
        init0(self, path, timeout, connect_timeout)

    stats0 = client.SimClient.stats

    def stats(self):
        if len(state["stats"]) == 1:
            subprocess.run(["callgrind_control", "-i", "off", str(state["pid"])], capture_output=True, timeout=300)
        r = stats0(self)
        if not state["stats"]:
            subprocess.run(["callgrind_control", "-i", "on", str(state["pid"])], capture_output=True, timeout=300)
        state["stats"].append(r)
        return r

    class Proc(subprocess.Popen):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            state["pid"] = self.pid

        def terminate(self):
            pass

        def wait(self, timeout=None):
            # under valgrind a single SIGINT was seen to go unnoticed; repeat until the process exits
            for _ in range(600):
                self.send_signal(signal.SIGINT)
                try:
                    return super().wait(1)
                except subprocess.TimeoutExpired:
                    pass
            return super().wait(1)

    client.SimClient.__init__ = init
    client.SimClient.stats = stats
    bench_speed.SimClient = client.SimClient
    bench_speed.subprocess.Popen = Proc
    bench_speed.loaded_row(wrap, args.frames, args.len)
    s0, s1 = state["stats"]
    cycles = s1["cycles"] - s0["cycles"]
    with open(out) as f:
        ir = next(int(line.split()[1]) for line in f if line.startswith("summary:"))
    print(f"{args.binary}: {args.frames} x {args.len} B frames, window {cycles} cycles, {ir} instructions, "
          f"{ir / cycles:.0f} per cycle")
    if not args.out:
        os.unlink(out)
    os.unlink(wrap)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
