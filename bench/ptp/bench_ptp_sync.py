# SPDX-License-Identifier: MIT
"""PTP synchronisation of one simulated NIC to another: beryl-sim runs two NICs whose oscillators differ
by a set frequency (--ppm 1:X), cabled by a wire of fixed delay; beryl-ptp-sync (two-step PTPv2 between
NIC 0, master, and NIC 1, slave; our PI servo) disciplines NIC 1's clock. The offset is measured
independently of the servo by the simulator itself (--ptp-probe: NIC 1's time of day minus NIC 0's, read
off both RTL clocks at the same instant of simulated time, every 500 ns).

The simulator runs with --idle-grace 512: after the last activity it clocks 512 cycles (2 us) before it
sleeps until the tool's next request, so the time the tool takes to react (host scheduling) adds at most
2 us of simulated time per step of an exchange. With the default 4096 cycles (16 us) a busy host
stretched exchanges by multiples of 16 us, the measurement-to-correction delay varied with them, and the
servo oscillated (true offsets up to 150 ns on a loaded 2-core machine; more so the faster the
simulator's idle clocking, which finishes a grace period sooner).

Reported per case: convergence time (from the first exchange to the moment after which the true offset
stays within 10 ns), and over the exchanges after the settle count: mean, RMS and max |true offset|, the
servo's own offset estimate, the path delay estimate and the slave's final frequency correction.

    python3 bench/ptp/bench_ptp_sync.py [--quick] [--cases 100,-100,20] [--count N] [--settle N]
Writes docs/figures/ptp_sync.{json,png} for the full default run, build/bench/ptp_sync.* otherwise.
"""
import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb" / "common"))
import sim_build  # noqa: E402

LIMIT_NS = 10.0


def build():
    sim = sim_build.build_sim()
    r = subprocess.run(["make", "-s", "-C", str(REPO / "sw"), "-j2"], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"sw build failed:\n{r.stdout}{r.stderr}")
    return sim, REPO / "build" / "sw" / "beryl-ptp-sync"


def run_case(sim, tool, ppm, delay_ns, count, settle, interval_us, pcap=None, init_offset_ns=0):
    """One synchronisation run; returns the exchanges (the tool's lines), its summary and the probe."""
    with tempfile.TemporaryDirectory() as td:
        sock, probe = os.path.join(td, "s.sock"), os.path.join(td, "probe.txt")
        p = subprocess.Popen([sim, "--socket", sock, "--quiet", "--nics", "2", "--ppm", f"1:{ppm}",
                              "--wire-delay-ns", str(delay_ns), "--mem-mb", "32", "--ptp-probe", probe,
                              "--ptp-probe-ns", "500", "--idle-grace", "512"], stderr=subprocess.PIPE, text=True)
        try:
            t0 = time.monotonic()
            while not (os.path.exists(sock) and os.path.exists(sock + ".1")):
                if p.poll() is not None:
                    raise RuntimeError(f"beryl-sim exited: {p.stderr.read()}")
                if time.monotonic() - t0 > 60:
                    raise RuntimeError("beryl-sim did not open its sockets")
                time.sleep(0.05)
            args = [tool, "--master", sock, "--slave", sock + ".1", "--count", str(count), "--settle", str(settle),
                    "--interval-us", str(interval_us), "--verbose", "--init-offset-ns", str(int(init_offset_ns))]
            if pcap:
                args += ["--pcap", str(pcap)]
            r = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600)
            if r.returncode:
                raise RuntimeError(f"beryl-ptp-sync failed ({r.returncode}): {r.stderr}")
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=30)
        lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
        with open(probe) as f:
            samples = [(int(a), float(b)) for a, b in (ln.split() for ln in f if ln.strip())]
    return lines[:-1], lines[-1], samples


def analyse(ex, summary, samples, settle, interval_us):
    t_first = ex[0]["sim_ps"]
    t_settle = ex[settle]["sim_ps"]
    t_end = ex[-1]["sim_ps"] + int(interval_us * 1e6)
    run = [(t, o) for t, o in samples if t_first <= t <= t_end]
    after = [o for t, o in run if t >= t_settle]
    # convergence: the first sample after which every sample of the run stays within the limit
    conv = None
    for i in range(len(run) - 1, -1, -1):
        if abs(run[i][1]) >= LIMIT_NS:
            conv = run[i + 1][0] if i + 1 < len(run) else None
            break
    else:
        conv = run[0][0] if run else None
    return {
        "initial_offset_ns": run[0][1] if run else None,
        "convergence_us": None if conv is None else (conv - t_first) / 1e6,
        "convergence_exchanges": None if conv is None else sum(1 for e in ex if e["sim_ps"] < conv),
        "true_mean_ns": sum(after) / len(after),
        "true_rms_ns": math.sqrt(sum(o * o for o in after) / len(after)),
        "true_max_abs_ns": max(abs(o) for o in after),
        "probe_samples": len(after),
        "servo_mean_abs_ns": summary["mean_abs_offset_ns"],
        "servo_max_abs_ns": summary["max_abs_offset_ns"],
        "delay_ns": summary["mean_delay_ns"],
        "slave_freq_ppb": summary["slave_freq_ppb"],
        "mean_freq_ppb": summary["mean_freq_ppb"],
        "interval_us": (ex[-1]["sim_ps"] - ex[0]["sim_ps"]) / 1e6 / (len(ex) - 1),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="100,-100,20", help="NIC 1's oscillator error, ppm, comma separated")
    ap.add_argument("--delay-ns", type=float, default=500)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--settle", type=int, default=20)
    ap.add_argument("--interval-us", type=float, default=100)
    ap.add_argument("--init-offset-ns", type=float, default=1e6, help="slave clock stepped by this before the first exchange")
    ap.add_argument("--quick", action="store_true", help="one case, 40 exchanges")
    a = ap.parse_args()
    if a.quick:
        a.cases, a.count = "100", 40
    default = not a.quick and (a.cases, a.delay_ns, a.count, a.settle, a.interval_us, a.init_offset_ns) == \
        ("100,-100,20", 500, 100, 20, 100, 1e6)
    sim, tool = build()
    rows, traces = [], {}
    for c in a.cases.split(","):
        ppm = float(c)
        ex, summary, samples = run_case(sim, tool, ppm, a.delay_ns, a.count, a.settle, a.interval_us,
                                        init_offset_ns=a.init_offset_ns)
        res = analyse(ex, summary, samples, a.settle, a.interval_us)
        res.update(ppm=ppm, wire_delay_ns=a.delay_ns, exchanges=a.count, settle=a.settle,
                   init_offset_ns=a.init_offset_ns)
        rows.append(res)
        t0 = ex[0]["sim_ps"]
        traces[c] = {"probe": [((t - t0) / 1e6, o) for t, o in samples if t >= t0],
                     "servo": [((e["sim_ps"] - t0) / 1e6, e["offset_ns"]) for e in ex]}
    hdr = ("| NIC 1 oscillator | initial offset | wire delay | exchanges (interval) | convergence to 10 ns | true mean | "
           "true RMS | true max abs | servo's max abs estimate | path delay estimate | slave frequency correction (mean) |")
    print(hdr)
    print("|---" * (hdr.count("|") - 1) + "|")
    for r in rows:
        conv = "never" if r["convergence_us"] is None else \
            f"{r['convergence_us']:.0f} us ({r['convergence_exchanges']} exchanges)"
        print(f"| {r['ppm']:+g} ppm | {r['init_offset_ns'] / 1e3:g} us | {r['wire_delay_ns']:g} ns | {r['exchanges']} ({r['interval_us']:.1f} us) | "
              f"{conv} | {r['true_mean_ns']:+.3f} ns | {r['true_rms_ns']:.3f} ns | {r['true_max_abs_ns']:.3f} ns | "
              f"{r['servo_max_abs_ns']:.3f} ns | {r['delay_ns']:.3f} ns | {r['mean_freq_ppb'] / 1000:+.3f} ppm |")
    out = REPO / ("docs/figures" if default else "build/bench")
    out.mkdir(parents=True, exist_ok=True)
    (out / "ptp_sync.json").write_text(json.dumps({"rows": rows, "command": " ".join(sys.argv)}, indent=1) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib missing: no plot)")
        return
    fig, ax = plt.subplots(2, 1, figsize=(9, 7))
    for c, tr in traces.items():
        xs, ys = zip(*tr["probe"])
        ax[0].plot(xs, ys, lw=0.8, label=f"{float(c):+g} ppm")
        ax[1].plot(xs, ys, lw=0.8, label=f"{float(c):+g} ppm (simulator probe)")
        sx, sy = zip(*tr["servo"])
        ax[1].plot(sx, sy, ".", ms=3, label=f"{float(c):+g} ppm (servo's estimate)")
    ax[0].set_ylabel("NIC 1 - NIC 0 (ns)")
    ax[0].set_title("PTP sync in beryl-sim: true offset (read off both RTL clocks)")
    ax[0].set_yscale("symlog", linthresh=10)
    ax[1].set_ylim(-12, 12)
    ax[1].axhline(10, color="k", lw=0.5)
    ax[1].axhline(-10, color="k", lw=0.5)
    for x in ax:
        x.set_xlabel("simulated time from the first exchange (us)")
        x.legend(fontsize=7)
    ax[1].set_ylabel("offset (ns), zoomed")
    fig.tight_layout()
    fig.savefig(out / "ptp_sync.png", dpi=110)
    print(f"wrote {out / 'ptp_sync.json'} and .png")


if __name__ == "__main__":
    main()
