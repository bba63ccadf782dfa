#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The main job: real Linux traffic through the NIC RTL.

Builds the C++ simulator (the NIC RTL under Verilator, two interfaces cabled to each other) and
the user-space driver, starts the simulator, bridges each NIC interface to a TAP device with
`beryl-tap`, moves the two TAPs into two network namespaces of their own, then runs ping, an
iperf3 TCP run, an iperf3 UDP run and a checksummed TCP transfer between them. Prints what it
measured, the NIC's own counters and the simulator's speed, and removes everything it created,
also on failure or Ctrl-C.

Without root (namespaces and TAP devices need it) it says so and runs the in-simulator traffic
test instead: frames from interface 0 over the simulated wire to interface 1, checked byte for byte.

  demo.py [--seconds 5] [--udp-mbps 20] [--transfer-mb 4] [--mtu 9000] [--json PATH] [--sim-var NAME=VALUE ...]

The TAPs get MTU 9000 by default (jumbo frames, which the NIC carries up to MAX_FRAME): one TCP flow
is one TX queue, and a queue moves DESC_BATCH frames per descriptor fetch, so bigger frames carry
more bytes per fetch and per simulated cycle. --mtu 1500 runs the standard MTU.

--sim-var runs another simulator build (e.g. --sim-var DESC_BATCH=32), made up to date first like the
default one.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NS = ("beryl-demo-a", "beryl-demo-b")
ADDR = ("10.203.0.1", "10.203.0.2")
PREFIX = "bdemo"


def log(msg):
    print(f"demo: {msg}", flush=True)


def sh(*cmd, check=True, capture=False, timeout=120):
    r = subprocess.run(cmd, check=False, text=True, timeout=timeout,
                       stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE if capture else None)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {(r.stderr or '').strip()}")
    return r


def build(sim_vars=()):
    """The simulator (the default build, or the one with these sim/Makefile variables, e.g.
    DESC_BATCH=32) and the driver, each brought up to date by make: a variant's binary run directly
    may predate the RTL it is supposed to test."""
    log("building the simulator (RTL -> C++ with Verilator; minutes the first time) and the driver ...")
    t0 = time.time()
    sys.path.insert(0, str(REPO / "tb" / "common"))
    import sim_build      # the shared, locked simulator build (tests may be building it too)
    # the demo reports the simulator's speed: a variant gets the default build's PGO unless asked otherwise
    if sim_vars and not any(v.startswith("PGO=") for v in sim_vars):
        sim_vars = (*sim_vars, "PGO=1")
    sim_bin = sim_build.build_sim(*sim_vars)               # the RTL -> C++ build takes minutes
    sh("make", "-s", "-C", str(REPO / "sw"), timeout=600)
    log(f"built in {time.time() - t0:.0f} s: {sim_bin}")
    return Path(sim_bin), REPO / "build" / "sw"


class Demo:
    def __init__(self, sim_bin, sw_dir, args):
        self.sim_bin, self.sw = sim_bin, sw_dir
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="beryl-demo-"))
        self.sock = str(self.tmp / "sim.sock")
        self.procs = []
        self.netns = []

    # ------------------------------------------------------------------ processes
    def start_sim(self):
        p = subprocess.Popen([str(self.sim_bin), "--socket", self.sock, "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=open(self.tmp / "sim.log", "w"))
        self.procs.append(p)
        for _ in range(600):
            if os.path.exists(self.sock):
                return p
            if p.poll() is not None:
                raise RuntimeError(f"simulator exited: {(self.tmp / 'sim.log').read_text()[-2000:]}")
            time.sleep(0.05)
        raise RuntimeError("simulator socket did not appear")

    def sim_stats(self):
        sys.path.insert(0, str(REPO / "sim"))
        from client import SimClient   # the simulator's Python client
        c = SimClient(self.sock)   # connects and says HELLO
        try:
            return c.stats()
        finally:
            c.close()

    def sim_stats_now(self):
        """The simulator's STATS while beryl-tap holds its socket: SIGUSR1 makes it print them on
        stderr (sim.log); None if no line came."""
        sim = self.procs[0]
        log_path = self.tmp / "sim.log"
        n0 = log_path.read_text().count("beryl-sim: stats ")
        sim.send_signal(signal.SIGUSR1)
        for _ in range(100):
            lines = [ln for ln in log_path.read_text().splitlines() if ln.startswith("beryl-sim: stats ")]
            if len(lines) > n0:
                return json.loads(lines[-1][len("beryl-sim: stats "):])
            time.sleep(0.02)
        return None

    def cleanup(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        for ns in self.netns:
            sh("ip", "netns", "del", ns, check=False, capture=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ------------------------------------------------------------------ root path
    def run_netns(self):
        a = self.args
        self.start_sim()
        tap = subprocess.Popen([str(self.sw / "beryl-tap"), "-s", self.sock, "-p", PREFIX]
                               + ["--mtu", str(a.mtu)],
                               stdout=open(self.tmp / "tap.log", "w"), stderr=subprocess.STDOUT)
        self.procs.append(tap)
        devs = [f"{PREFIX}0", f"{PREFIX}1"]
        for _ in range(600):
            if all(Path(f"/sys/class/net/{d}").exists() for d in devs):
                break
            if tap.poll() is not None:
                raise RuntimeError(f"beryl-tap exited: {(self.tmp / 'tap.log').read_text()[-2000:]}")
            time.sleep(0.05)
        else:
            raise RuntimeError("TAP devices did not appear")
        for ns, dev, ip in zip(NS, devs, ADDR):
            sh("ip", "netns", "del", ns, check=False, capture=True)
            sh("ip", "netns", "add", ns)
            self.netns.append(ns)
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
            # IPv4 only: no IPv6 router solicitations or MLD reports at random moments, so the
            # frame counts below add up exactly
            sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"net.ipv6.conf.{dev}.disable_ipv6=1",
               check=False, capture=True)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "link", "set", dev, "up")
        log(f"namespaces {NS[0]} ({ADDR[0]}) and {NS[1]} ({ADDR[1]}) wired through the simulated NIC (MTU {a.mtu})")
        res = {"mtu": a.mtu}
        # ping
        r = sh("ip", "netns", "exec", NS[0], "ping", "-c", "5", "-i", "0.2", "-W", "5", ADDR[1],
               capture=True, check=False, timeout=60)
        m = re.search(r"(\d+) received.*?\n.*?= [\d.]+/([\d.]+)/", r.stdout, re.S)
        res["ping_received"] = int(m.group(1)) if m else 0
        res["ping_rtt_ms"] = float(m.group(2)) if m else None
        log(f"ping: {res['ping_received']}/5 replies, average RTT {res['ping_rtt_ms']} ms")
        if res["ping_received"] == 0:
            raise RuntimeError(f"ping failed:\n{r.stdout}{r.stderr}")
        # iperf3 TCP and UDP
        srv = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-B", ADDR[1]],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(srv)
        time.sleep(1.0)
        s0, w0 = self.sim_stats_now(), time.time()
        r = sh("ip", "netns", "exec", NS[0], "iperf3", "-c", ADDR[1], "-t", str(a.seconds), "-J",
               capture=True, check=False, timeout=a.seconds + 60)
        s1, w1 = self.sim_stats_now(), time.time()
        if s0 and s1:
            # the simulator during the TCP run: its speed, and how busy the data port's wire was in
            # simulated time (bytes + 24 B of preamble, FCS... per frame, against the line rate)
            cyc = s1["cycles"] - s0["cycles"]
            p0 = [s1["ports"][0][k] - s0["ports"][0][k] for k in ("tx_bytes", "tx_frames")]
            line_bytes = cyc * 100e9 / 8 / s1["clock_hz"]
            res["tcp_sim"] = {"cycles": cyc, "cycles_per_s": cyc / (w1 - w0), "frames": p0[1],
                              "wire_busy_pct": 100.0 * (p0[0] + 24 * p0[1]) / line_bytes if cyc else 0.0,
                              "cycles_per_frame": cyc / p0[1] if p0[1] else None}
        tcp = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
        res["tcp_mbps"] = tcp.get("end", {}).get("sum_received", {}).get("bits_per_second", 0) / 1e6
        log(f"iperf3 TCP: {res['tcp_mbps']:.1f} Mbit/s over {a.seconds} s")
        r = sh("ip", "netns", "exec", NS[0], "iperf3", "-c", ADDR[1], "-u", "-b", f"{a.udp_mbps}M",
               "-t", str(a.seconds), "-J", capture=True, check=False, timeout=a.seconds + 60)
        udp = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
        s = udp.get("end", {}).get("sum", {})
        res["udp_mbps"] = s.get("bits_per_second", 0) / 1e6
        res["udp_lost_pct"] = s.get("lost_percent")
        res["udp_packets"], res["udp_lost_packets"] = s.get("packets"), s.get("lost_packets")
        log(f"iperf3 UDP: {res['udp_mbps']:.1f} Mbit/s offered {a.udp_mbps}, lost {res['udp_lost_pct']}%")
        srv.terminate()
        # a checksummed transfer
        res.update(self.transfer(a.transfer_mb))
        log(f"TCP transfer: {a.transfer_mb} MB, sha256 {'matches' if res['transfer_ok'] else 'DIFFERS'}"
            f" ({res['transfer_s']:.1f} s)")
        # the TAP devices' kernel counters, once the traffic has settled: a frame the stack queued
        # faster than beryl-tap read it is dropped by the tun driver (tx_dropped) before it reaches
        # the bridge or the NIC
        time.sleep(2.0)
        res["tap_kernel"] = {}
        for ns, dev in zip(NS, devs):
            r = sh("ip", "-n", ns, "-s", "-j", "link", "show", "dev", dev, capture=True, check=False)
            try:
                st = json.loads(r.stdout)[0]["stats64"]
                res["tap_kernel"][dev] = {"tx_packets": st["tx"]["packets"], "tx_dropped": st["tx"]["dropped"],
                                          "rx_packets": st["rx"]["packets"], "rx_dropped": st["rx"]["dropped"]}
            except (json.JSONDecodeError, KeyError, IndexError):
                res["tap_kernel"][dev] = {"error": (r.stderr or r.stdout).strip()[:200]}
        log("TAP kernel counters (tx = stack -> beryl-tap): " + json.dumps(res["tap_kernel"]))
        # detach the bridge, then read the NIC's counters and the simulator's speed
        tap.send_signal(signal.SIGINT)
        tap.wait(timeout=30)
        tap_log = (self.tmp / "tap.log").read_text().strip()
        print(tap_log)
        res["tap_bridge"] = parse_tap_log(tap_log)
        r = sh(str(self.sw / "beryl"), "-s", self.sock, "stats", "--json", capture=True, check=False)
        try:
            res["nic"] = json.loads(r.stdout)
        except json.JSONDecodeError:
            res["nic"] = {"error": r.stderr.strip()}
        res["sim"] = self.sim_stats()
        return res

    def transfer(self, mb):
        """TCP transfer of `mb` MB of random data from namespace a to b, sha256 on both sides."""
        data_file = self.tmp / "payload.bin"
        data_file.write_bytes(os.urandom(mb << 20))
        want = hashlib.sha256(data_file.read_bytes()).hexdigest()
        recv = (f"import socket,hashlib;s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);"
                f"s.bind(('{ADDR[1]}',5201+7));s.listen(1);c,_=s.accept();h=hashlib.sha256()\n"
                f"while True:\n d=c.recv(1<<16)\n if not d: break\n h.update(d)\nprint(h.hexdigest())")
        send = (f"import socket,sys;s=socket.create_connection(('{ADDR[1]}',5208),timeout=60);"
                f"s.sendall(open('{data_file}','rb').read());s.close()")
        t0 = time.time()
        rp = subprocess.Popen(["ip", "netns", "exec", NS[1], sys.executable, "-c", recv],
                              stdout=subprocess.PIPE, text=True)
        self.procs.append(rp)
        time.sleep(0.5)
        sh("ip", "netns", "exec", NS[0], sys.executable, "-c", send, timeout=600)
        got = rp.communicate(timeout=600)[0].strip()
        return {"transfer_ok": got == want, "transfer_s": time.time() - t0}

    # ------------------------------------------------------------------ without root
    def run_in_sim(self):
        self.start_sim()
        r = sh(str(self.sw / "loopback"), "-s", self.sock, "--count", "200", capture=True, check=False,
               timeout=600)
        print(r.stdout.strip())
        if r.returncode != 0:
            raise RuntimeError(f"in-simulator traffic test failed: {r.stderr.strip()}")
        return {"sim": self.sim_stats()}


def parse_tap_log(text):
    """beryl-tap's closing counts per TAP device (its 'stopping' summary lines)."""
    out = {}
    pat = (r"(\S+): tap->nic (\d+) frames read, (\d+) sent \((\d+) checksum offloaded\), (\d+) dropped, "
           r"(\d+) errors; nic->tap (\d+) frames \((\d+) checksums verified\), (\d+) bad completions, "
           r"(\d+) TAP write drops")
    keys = ("tap_in", "tx_sent", "tx_csum", "tx_drop", "tx_err", "rx_frames", "rx_csum_ok", "rx_err", "tap_drop")
    for m in re.finditer(pat, text):
        out[m.group(1)] = dict(zip(keys, map(int, m.groups()[1:])))
    return out


def report(res, t0):
    print("\n==== Beryl demo: results ====")
    if "ping_received" in res:
        print(f"ping            {res['ping_received']}/5 replies, average RTT {res['ping_rtt_ms']} ms")
        print(f"iperf3 TCP      {res['tcp_mbps']:.1f} Mbit/s (MTU {res['mtu']})")
        t = res.get("tcp_sim")
        if t:
            print(f"                (simulator during it: {t['cycles_per_s']:,.0f} cycles/s; port 0's wire busy "
                  f"{t['wire_busy_pct']:.1f}% of simulated time at 100G, {t['frames']} frames)")
        print(f"iperf3 UDP      {res['udp_mbps']:.1f} Mbit/s, {res['udp_lost_packets']} of {res['udp_packets']} "
              f"datagrams lost ({res['udp_lost_pct']:.1f}%)")
        print(f"TCP transfer    sha256 {'matches' if res['transfer_ok'] else 'DIFFERS'}")
    for dev, st in (res.get("tap_kernel") or {}).items():
        print(f"TAP {dev:10s} kernel counters: " + ", ".join(f"{k} {v}" for k, v in st.items()))
    if res.get("udp_lost_packets"):
        # where the loss happens: the sending TAP's queue overflows when Linux offers more than the
        # simulated NIC carries; the bridge and the NIC count their own drops separately
        print("                (UDP loss vs drops in the sender's TAP queue, tx_dropped above: the stack "
              "offered more than the simulator carries)")
    nic = res.get("nic")
    if nic:
        print("NIC counters    " + json.dumps(nic)[:2000])
    sim = res.get("sim") or {}
    if sim:
        cps = sim.get("cycles_per_s")
        print(f"simulator       {sim.get('cycles', 0)} cycles simulated"
              + (f", {cps:,.0f} cycles/s while running" if cps else ""))
    print(f"wall time       {time.time() - t0:.0f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=5, help="length of each iperf3 run")
    ap.add_argument("--udp-mbps", type=int, default=20, help="UDP rate offered by iperf3")
    ap.add_argument("--transfer-mb", type=int, default=4)
    ap.add_argument("--mtu", type=int, default=9000,
                    help="MTU of the two TAP devices (default 9000, jumbo frames; 1500 the standard)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON (tests read it)")
    ap.add_argument("--sim-var", metavar="NAME=VALUE", action="append", default=[],
                    help="simulator build variable (sim/Makefile), e.g. DESC_BATCH=32; repeatable")
    args = ap.parse_args()
    t0 = time.time()
    if not shutil.which("g++") or not shutil.which("make"):
        raise SystemExit("demo: g++ and make are needed (scripts/setup.sh installs them as root)")
    sim_bin, sw_dir = build(args.sim_var)
    demo = Demo(sim_bin, sw_dir, args)
    ok = False

    def on_term(signum, _frame):
        # `timeout`, `kill` or a CI job's stop: clean up as for Ctrl-C (namespaces, TAPs, processes)
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    try:
        if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("iperf3"):
            why = ("not root: network namespaces and TAP devices need root" if os.geteuid() != 0
                   else "iproute2 or iperf3 missing (scripts/setup.sh installs them as root)")
            log(f"{why}; running the in-simulator traffic test instead")
            res = demo.run_in_sim()
        else:
            res = demo.run_netns()
        report(res, t0)
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=1))
        ok = res.get("transfer_ok", True) and res.get("ping_received", 1) > 0
    except KeyboardInterrupt as e:
        log(f"interrupted{f' ({e})' if str(e) else ''}")
    finally:
        demo.cleanup()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
