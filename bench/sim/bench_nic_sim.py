#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NIC throughput against frame size in the C++ simulator, side by side with the cocotbext-pcie bench.

The same benchmark as bench/nic/bench_nic.py (TX only, RX only, both; frame sizes with the 4-byte
FCS; 100G line rate charging 20 more bytes per frame), run in beryl-sim (sim/) with its C++ PCIe
host model instead of cocotbext-pcie, driven by the Python driver model (tb/model/beryl_nic.py)
through sim/client.py:

- build: IF_COUNT=1, TX_SLOTS = RX_SLOTS = 64 (as bench_nic), Gen3 x16, MPS 256, MRRS 512;
- link: `--link-delay-ns 340` (bench_nic's one-way delay, charged to every TLP each way as
  cocotbext-pcie does) and `--rd-latency-ns 4`, so that a 64-byte DMA read's round trip as the
  cocotb bench measures it (RQ handshake -> first RC beat) is its 692 ns: request 24 B on the
  Gen3 x16 link 1.6 ns + 340 ns, completion 84 B 5.4 ns + 340 ns, + 4 ns = 691 ns, the RC beat at
  the next 4 ns clock edge (STATS rd_rtt_ns, printed, times the completion's arrival);
  flow control as cocotbext-pcie's root port does it (64 posted headers, 1024 posted data, 64
  non-posted headers, beryl-sim's defaults): credits freed when the host takes the TLP
  (`--credit-return-ns 0`) and returned in an UpdateFC DLLP when the update timer, started by the
  first credit freed since the last UpdateFC, expires (`--fc-update-ns 146.5`: cocotbext-pcie's
  timer, the PCIe maximum update latency at x16 Gen3 for its 128-byte setting, 144.25 symbol
  times), flying the 340 ns link delay back (probe_cocotb_nic.py measures that loop in cocotb);
- link overhead: beryl-sim's default `--dllp-pct 2` (ACK/UpdateFC DLLPs and SKP ordered sets);
  cocotbext-pcie puts its ACK and UpdateFC DLLPs on the wire (8 bytes each) and no SKP. No point
  here is bound by the link's bandwidth (9018 B both ways: 87% of the downstream link);
- MAC side: the port's TX drains into the simulator's line-rate TX pacing (a `--no-wire` port:
  frames counted and dropped), its RX is fed by the simulator's GEN generator at line rate;
- driver: 8 TX queues of 512 descriptors, 1 RX queue of 4096, 9216-byte buffers (as
  cocotb_bench_nic.py's start()); per point all TX frames are queued first, then one doorbell per
  queue and the generator start; nothing is polled until the point is over;
- rates, in simulated time, as cocotb_bench_nic.py: TX = (N - 1) / (t_N - t_1) over the frames the
  port transmitted (cycle of each frame's last beat); RX = the generator's rate over the run times
  (frames delivered to host memory: the NIC's RX_PKTS counter) / (frames generated).

Prints a table with both models' Gbps and % of line rate and the difference in percentage points
(cocotb figures from docs/figures/nic.json, or --ref) and writes the results (JSON, with each
point's PCIe traffic, credit waits and read round trip) and a plot: docs/figures/nic_sim.{json,png}
for the full default run, build/bench/nic_sim.* for any other (or --out).

  bench_nic_sim.py [--quick] [--sizes 64 1518] [--modes tx rx both] [--ref FILE] [--binary PATH]
"""
import argparse
import asyncio
import json
import os
import shutil
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

SIZES = [64, 128, 256, 512, 1024, 1518, 4096, 9018]
QUICK_SIZES = [64, 256, 1518, 9018]
TXQ = 8
RTT_TARGET_NS = 692          # bench_nic's measured read round trip (cocotbext-pcie, 340 ns one way)


def frame(size, k):
    """The AXI-Stream frame of `size` bytes (wire frame minus FCS), as cocotb_bench_nic.frame()."""
    hdr = bytes([0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0xB5])
    body = (k.to_bytes(4, "little") * ((size + 3) // 4))[:size - len(hdr)]
    return hdr + body


def build(args):
    # DESC_BATCH as the NIC top's default, like bench_nic (the simulator's default build uses 32)
    return sim_build.build_sim("IF_COUNT=1", f"TX_SLOTS={args.slots}", f"RX_SLOTS={args.slots}",
                               f"DESC_BATCH={args.desc_batch}")


class Bench:
    def __init__(self, c, nif, clk_ns, line_gbps):
        self.c, self.nif, self.clk_ns, self.line_gbps = c, nif, clk_ns, line_gbps

    async def counters(self):
        rd = self.nif.rd
        return (await rd("RX_PKTS"), await rd("RX_DROP_NO_DESC") + await rd("RX_DROP_NO_SLOT"))

    def rate(self, n, first, last):
        """(n - 1) / (t_n - t_1) in frames per second, the times in cycles."""
        return (n - 1) / ((last - first) * self.clk_ns * 1e-9) if n > 1 and last > first else 0.0

    async def point(self, size, mode, count, timeout_s):
        c, nif = self.c, self.nif
        want_tx, want_rx = mode in ("tx", "both"), mode in ("rx", "both")
        rx0, drop0 = await self.counters()
        if want_tx:
            for k in range(count):
                assert await nif.send(frame(size - 4, k), txq=k % TXQ, ring_doorbell=False) is not None
        s0 = c.stats()
        c.gen(0, count if want_rx else 0, length=size - 4)     # also restarts the port's TX window
        if want_tx:
            for q in range(TXQ):
                await nif.kick(q)
        deadline = time.monotonic() + timeout_s
        while True:
            p = c.port_stats(0)
            tx_done = not want_tx or p["win_tx_frames"] >= count
            gen_done = not want_rx or p["gen_left"] == 0
            if tx_done and gen_done:
                rx, drop = await self.counters()
                rx, drop = (rx - rx0) & 0xFFFFFFFF, (drop - drop0) & 0xFFFFFFFF
                if not want_rx or rx + drop >= count:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"bench_nic_sim: point {size} B {mode} timed out: {p}")
            time.sleep(0.003)
        s1 = c.stats()
        res = {"size": size, "mode": mode, "count": count, "sim_cycles": s1["cycles"] - s0["cycles"],
               "wall_s": round(s1["busy_wall_s"] - s0["busy_wall_s"], 3)}
        # PCIe traffic of the point (link TLPs and busy time each way, DMA requests), for the analysis
        pa, pb = s0["pcie"], s1["pcie"]
        res["pcie"] = {k: round(pb[k] - pa[k], 1) for k in pb if isinstance(pb[k], (int, float))}
        ra, rb = pa["rd_rtt_ns"], pb["rd_rtt_ns"]
        if rb["count"] > ra["count"]:      # DMA read round trip (RQ acceptance -> first completion) of the point
            res["pcie"]["rd_rtt_avg_ns"] = round((rb["avg"] * rb["count"] - ra["avg"] * ra["count"]) /
                                                 (rb["count"] - ra["count"]), 1)
        if want_tx:
            res["tx_pps"] = self.rate(p["win_tx_frames"], p["win_tx_first_cycle"], p["win_tx_last_cycle"])
            res["tx_frames"] = p["win_tx_frames"]
        if want_rx:
            res["rx_pps"] = self.rate(p["gen_sent"], p["gen_first_cycle"], p["gen_last_cycle"]) * rx / count
            res["rx_gen_pps"] = self.rate(p["gen_sent"], p["gen_first_cycle"], p["gen_last_cycle"])
            res["rx_drops"] = drop
            res["rx_delivered"] = rx
        # drain: take the completions, the RX ring is refilled for the next point
        got_rx = 0
        while time.monotonic() < deadline:
            await nif.poll_tx()
            got_rx += sum(1 for _, cp in await nif.poll_rx() if cp.status == N.CPL_OK)
            if all(not (r.prod - r.cons) & 0xFFFF for r in nif.txq.values()) and got_rx >= res.get("rx_delivered", 0):
                break
            time.sleep(0.002)
        else:
            raise SystemExit(f"bench_nic_sim: point {size} B {mode}: the rings did not drain")
        if want_rx:
            res["rx_host_frames"] = got_rx       # frames the driver took (cross-check of RX_PKTS)
        return res


def run(args):
    binary = args.binary or build(args)
    tmp = tempfile.mkdtemp(prefix="beryl-bench-nic-")
    sock = os.path.join(tmp, "sim.sock")
    cmd = [binary, "--socket", sock, "--mem-mb", "160", "--gen", "3", "--width", "16", "--mps", str(args.mps),
           "--mrrs", str(args.mrrs), "--link-delay-ns", str(args.link_delay_ns), "--rd-latency-ns",
           str(args.rd_latency_ns), "--credit-return-ns", str(args.credit_return_ns), "--fc-update-ns", str(args.fc_update_ns), "--line-gbps", str(args.line_gbps),
           "--no-wire"] + args.sim_arg
    log = open(os.path.join(tmp, "sim.log"), "w+")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    t0 = time.time()
    try:
        c = SimClient(sock, timeout=120)
        if c.info["if_count"] != 1:
            raise SystemExit("bench_nic_sim: needs an IF_COUNT=1 build")
        quick = args.quick
        bpp, cmin, cmax = ((192 << 10), 64, 1000) if quick else ((1 << 20), 200, 4000)

        async def go():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            nif = dev.interfaces[0]
            await nif.start(txq_count=TXQ, rxq_count=1, log_size=9, rx_log_size=12, rx_buf_size=9216,
                            tx_buf_size=9216)
            b = Bench(c, nif, 1e9 / c.info["clock_hz"], args.line_gbps)
            rtt_idle = c.stats()["pcie"]["rd_rtt_ns"]
            rows = []
            for size in args.sizes:
                count = max(cmin, min(cmax, bpp // size))
                for mode in args.modes:
                    r = await b.point(size, mode, count, args.timeout)
                    print(f"  {size:5d} B {mode:4s}: " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                                                 for k, v in r.items() if k not in ("size", "mode", "pcie")),
                          flush=True)
                    rows.append(r)
            return rows, rtt_idle
        rows, rtt_idle = asyncio.run(go())
        st = c.stats()
        c.close()
    except BaseException:
        print(f"bench_nic_sim: the simulator's output is in {log.name}", file=sys.stderr)
        raise
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    log.seek(0)
    sim_log = log.read()[-2000:]
    log.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return {"rows": rows, "wall_s": round(time.time() - t0, 1), "slots": args.slots, "mps": args.mps,
            "mrrs": args.mrrs, "link_delay_ns": args.link_delay_ns, "rd_latency_ns": args.rd_latency_ns,
            "credit_return_ns": args.credit_return_ns, "fc_update_ns": args.fc_update_ns,
            "line_gbps": args.line_gbps, "quick": args.quick, "rd_rtt_ns_idle": rtt_idle,
            "rd_rtt_ns": st["pcie"]["rd_rtt_ns"], "sim_cmd": " ".join(cmd[1:]), "build": c.info["build"],
            "sim_log": sim_log}


def git_describe():
    """HEAD's short hash, with -dirty when the RTL sources, the simulator, the driver model or this bench
    differ from it."""
    try:
        h = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                           check=True).stdout.strip()
        d = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", ":(glob)rtl/**/*.sv",
                            ":(glob)rtl/**/*.svh", ":(glob)rtl/**/*.f", "sim", "bench/sim", "tb/model"],
                           capture_output=True, text=True, check=True).stdout.strip()
        return h + ("-dirty" if d else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def table(sim, ref, line_gbps):
    def line_pps(size):
        return line_gbps * 1e9 / ((size + 20) * 8)

    refrows = {(r["size"], r["mode"]): r for r in (ref or {}).get("rows", [])}
    rtt = sim["rd_rtt_ns"]
    lines = [f"NIC throughput, C++ host model (beryl-sim: Gen3 x16, MPS {sim['mps']}, MRRS {sim['mrrs']}, "
             f"one-way link {sim['link_delay_ns']:g} ns, host read latency {sim['rd_latency_ns']:g} ns, " +
             (f"credits freed {sim['credit_return_ns']:g} ns after arrival and returned by UpdateFC after a "
              f"{sim['fc_update_ns']:g} ns timer" if sim.get("fc_update_ns") else
              f"credits back {sim['credit_return_ns']:g} ns after arrival") +
             f"; shortest read "
             f"round trip {rtt['min']:.0f} ns) vs cocotbext-pcie (bench_nic, docs/figures/nic.json); "
             f"{line_gbps:g}G line rate, {TXQ} TX queues, 1 RX queue; commit {sim.get('commit', '?')}",
             "",
             "| frame B | mode | TX Gbps sim | TX Gbps cocotb | TX % sim | TX % cocotb | TX diff pp "
             "| RX Gbps sim | RX Gbps cocotb | RX % sim | RX % cocotb | RX diff pp | RX drops sim/cocotb |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    comp = []
    for r in sim["rows"]:
        s, m = r["size"], r["mode"]
        ref_r = refrows.get((s, m), {})
        cells = [str(s), m]
        entry = {"size": s, "mode": m}
        for key in ("tx_pps", "rx_pps"):
            if key not in r:
                cells += ["-"] * 5
                continue
            a = r[key]
            b = ref_r.get(key)
            pa = 100 * a / line_pps(s)
            cells += [f"{a * s * 8 / 1e9:.1f}", f"{b * s * 8 / 1e9:.1f}" if b is not None else "-", f"{pa:.1f}"]
            if b is not None:
                pb = 100 * b / line_pps(s)
                cells += [f"{pb:.1f}", f"{pa - pb:+.1f}"]
                entry[key[:2] + "_pct_diff"] = round(pa - pb, 2)
            else:
                cells += ["-", "-"]
            entry[key[:2] + "_pct_sim"] = round(pa, 2)
        if "rx_pps" in r:
            cells.append(f"{r['rx_drops']}/{ref_r.get('rx_drops', '-')}")
        else:
            cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
        comp.append(entry)
    return "\n".join(lines), comp


def plot(sim, ref, path, line_gbps):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def pct(r, key):
        return 100 * r[key] * (r["size"] + 20) * 8 / (line_gbps * 1e9)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharey=True)
    for ax, mode in zip(axes, ("tx", "rx", "both")):
        # the two models lie on top of each other: filled small markers for beryl-sim, large hollow
        # ones for cocotbext-pcie, one colour per direction
        for src, rows, style, ms, fill in (("beryl-sim", sim["rows"], "-", 4, None),
                                           ("cocotbext-pcie", (ref or {}).get("rows", []), "--", 10, "none")):
            for key, mark, color in (("tx_pps", "o", "C0"), ("rx_pps", "s", "C3")):
                pts = [r for r in rows if r["mode"] == mode and key in r]
                if pts:
                    kw = {"markerfacecolor": fill} if fill else {}
                    ax.plot([r["size"] for r in pts], [pct(r, key) for r in pts], mark + style, color=color,
                            markersize=ms, label=f"{key[:2].upper()} {src}", **kw)
        ax.set_title(mode)
        ax.set_xscale("log", base=2)
        sizes = sorted({r["size"] for r in sim["rows"]})
        ax.set_xticks(sizes, [str(x) for x in sizes], fontsize=7)
        ax.minorticks_off()
        ax.set_xlabel("frame size, bytes (with FCS)")
        ax.set_ylim(0, 105)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel(f"% of {line_gbps:g}G line rate")
    fig.suptitle(f"Beryl NIC throughput: beryl-sim C++ host model vs cocotbext-pcie (commit {sim.get('commit', '?')})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    global TXQ
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"fewer frames per point, sizes {QUICK_SIZES}")
    ap.add_argument("--sizes", type=int, nargs="+")
    ap.add_argument("--modes", nargs="+", default=["tx", "rx", "both"], choices=["tx", "rx", "both"])
    ap.add_argument("--mps", type=int, default=256)
    ap.add_argument("--mrrs", type=int, default=512)
    ap.add_argument("--link-delay-ns", type=float, default=340, help="one-way link delay (bench_nic: 340)")
    ap.add_argument("--rd-latency-ns", type=float, default=4,
                    help=f"host memory read latency (default 4: a 64-byte read's round trip is then {RTT_TARGET_NS} ns, "
                    "as bench_nic measures it)")
    ap.add_argument("--credit-return-ns", type=float, default=0,
                    help="host frees a TLP's flow-control credits this long after it arrived (default 0: "
                    "cocotbext-pcie's root complex frees them when it takes the TLP)")
    ap.add_argument("--fc-update-ns", type=float, default=146.5,
                    help="UpdateFC timer: freed credits go back in one DLLP when it expires, then fly the link "
                    "delay (default 146.5: cocotbext-pcie's, the PCIe maximum update latency for x16 Gen3 at "
                    "its 128-byte setting, 144.25 symbol times; 0: fixed --credit-return-ns instead)")
    ap.add_argument("--sim-arg", action="append", default=[], help="more beryl-sim options (repeat)")
    ap.add_argument("--line-gbps", type=float, default=100)
    ap.add_argument("--slots", type=int, default=64, help="TX_SLOTS = RX_SLOTS of the build")
    ap.add_argument("--desc-batch", type=int, default=8, help="DESC_BATCH of the build (default 8, as bench_nic)")
    ap.add_argument("--txqs", type=int, default=TXQ, help=f"TX queues the frames are spread over (default {TXQ}; "
                    "1: what one queue, e.g. one TCP flow, reaches)")
    ap.add_argument("--binary", help="a beryl-sim binary (IF_COUNT=1 build) instead of building one")
    ap.add_argument("--ref", default=str(ROOT / "docs" / "figures" / "nic.json"), help="cocotb bench results")
    ap.add_argument("--timeout", type=float, default=600, help="wall seconds per point")
    ap.add_argument("--replot", action="store_true", help="print the last results again, no simulation")
    ap.add_argument("--out", help="results JSON (the PNG goes beside it); default docs/figures/nic_sim.json for the "
                    "full default run, build/bench/nic_sim.json otherwise")
    args = ap.parse_args()
    TXQ = args.txqs
    if args.sizes is None:
        args.sizes = QUICK_SIZES if args.quick else SIZES
    # the full default run is the published figure; a partial or quick run must not replace it
    full = (not args.quick and args.sizes == SIZES and args.modes == ["tx", "rx", "both"] and not args.sim_arg
            and args.txqs == 8 and args.desc_batch == 8)
    out = Path(args.out) if args.out else ROOT / ("docs/figures" if full else "build/bench") / "nic_sim.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.replot:
        sim = json.loads(out.read_text())
    else:
        print("running beryl-sim (one interface, --no-wire) ...", flush=True)
        sim = run(args)
        sim["commit"] = git_describe()
    try:
        ref = json.loads(Path(args.ref).read_text())
    except FileNotFoundError:
        ref = None
        print(f"no reference results at {args.ref}: cocotb columns empty")
    text, comp = table(sim, ref, sim["line_gbps"])
    sim["comparison"] = comp
    sim["ref"] = args.ref
    out.write_text(json.dumps(sim, indent=1))
    print(text)
    try:
        plot(sim, ref, out.with_suffix(".png"), sim["line_gbps"])
        print(f"plot: {out.with_suffix('.png')}")
    except ImportError:
        print("matplotlib missing: no plot")
    print(f"\nwall time {sim['wall_s']} s; DMA read round trip over the run: avg {sim['rd_rtt_ns']['avg']:.0f} ns, "
          f"min {sim['rd_rtt_ns']['min']:.0f}, max {sim['rd_rtt_ns']['max']:.0f}; data: {out}")


if __name__ == "__main__":
    main()
