# SPDX-License-Identifier: MIT
"""cocotb side of probe_cocotb_nic.py: bench_nic's points (cocotb_bench_nic.run_point, unchanged)
with probes on cocotbext-pcie's link, to explain where beryl-sim's C++ host model and
cocotbext-pcie differ. Nothing here changes the model's behaviour; the probes only record times:

- device port (UltraScale+ model, upstream): when each TLP enters and leaves the flow-control gate
  (credit wait), and when UpdateFC DLLPs arrive (the posted / non-posted header limit);
- root port (downstream side of the root complex): when each TLP arrives and when its credits are
  released (the root complex handles received TLPs one at a time, in order);
- read round trip at the device port: a read leaving the gate -> its first completion arriving.
"""
import json
import os
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import RisingEdge
from cocotb.utils import get_sim_time

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb"))
sys.path.insert(0, str(REPO / "tb" / "common"))
sys.path.insert(0, str(REPO / "bench" / "nic"))
from cocotbext.pcie.core.dllp import DllpType, FcType  # noqa: E402
import cocotb_bench_nic as B  # noqa: E402


class Probe:
    def __init__(self, dev_port, root_port):
        self.ev = {"gate": [], "arrive": [], "release": [], "upd": [], "rd": {}, "rtt": []}
        fc_dev = dev_port.fc_state[0]
        fc_root = root_port.fc_state[0]
        self.unwrap = {"ph": [fc_dev.ph.tx_credits_consumed, 0], "nph": [fc_dev.nph.tx_credits_consumed, 0],
                       "ph_lim": [fc_dev.ph.tx_credit_limit, 0], "nph_lim": [fc_dev.nph.tx_credit_limit, 0]}
        ev = self.ev

        def unw(key, val):
            last, hi = self.unwrap[key]
            if val < last:
                hi += 4096
            self.unwrap[key] = [val, hi]
            return val + hi

        gate0 = fc_dev.tx_tlp_fc_gate

        async def gate(tlp):
            t0 = get_sim_time("ns")
            await gate0(tlp)
            t1 = get_sim_time("ns")
            typ = tlp.get_fc_type()
            if typ == FcType.P:
                ev["gate"].append(("P", t0, t1, unw("ph", fc_dev.ph.tx_credits_consumed)))
            elif typ == FcType.NP:
                ev["gate"].append(("NP", t0, t1, unw("nph", fc_dev.nph.tx_credits_consumed)))
                ev["rd"][tlp.tag] = (t0, t1)
        fc_dev.tx_tlp_fc_gate = gate

        dev_recv0 = dev_port.ext_recv

        async def dev_recv(pkt):
            t = get_sim_time("ns")
            if getattr(pkt, "type", None) == DllpType.UPDATE_FC_P:
                ev["upd"].append(("P", t, unw("ph_lim", pkt.hdr_fc)))
            elif getattr(pkt, "type", None) == DllpType.UPDATE_FC_NP:
                ev["upd"].append(("NP", t, unw("nph_lim", pkt.hdr_fc)))
            elif hasattr(pkt, "fmt_type") and pkt.is_completion():
                t01 = ev["rd"].pop(pkt.tag, None)
                if t01 is not None:
                    ev["rtt"].append((t - t01[0], t - t01[1]))
            await dev_recv0(pkt)
        dev_port.ext_recv = dev_recv

        root_recv0 = root_port.ext_recv

        async def root_recv(pkt):
            if hasattr(pkt, "fmt_type"):
                ev["arrive"].append((pkt.get_fc_type().name, get_sim_time("ns")))
            await root_recv0(pkt)
        root_port.ext_recv = root_recv

        rel0 = fc_root.rx_release_fc

        def release(credit_type, dc=0):
            ev["release"].append((credit_type.name, get_sim_time("ns")))
            rel0(credit_type, dc)
        fc_root.rx_release_fc = release

    async def count_rq_stalls(self, dut):
        """Cycles the RTL offered an RQ beat and the model's RQ sink held tready low."""
        self.rq_stalls = 0
        edge = RisingEdge(dut.clk)
        while True:
            await edge
            if dut.m_axis_rq_tvalid.value and not dut.m_axis_rq_tready.value:
                self.rq_stalls += 1

    def mark(self):
        m = {k: len(v) for k, v in self.ev.items() if isinstance(v, list)}
        m["rq_stalls"] = getattr(self, "rq_stalls", 0)
        return m

    def summary(self, m0):
        """Per credit type, over the TLPs of one point: mean times in ns."""
        ev = self.ev
        out = {}
        for typ, init in (("P", 64), ("NP", 64)):
            gates = [g for g in ev["gate"][m0["gate"]:] if g[0] == typ]
            arr = [a[1] for a in ev["arrive"][m0["arrive"]:] if a[0] == typ]
            rel = [r[1] for r in ev["release"][m0["release"]:] if r[0] == typ]
            upd = [u for u in ev["upd"] if u[0] == typ]
            n = min(len(gates), len(arr), len(rel))
            if not n:
                continue
            loops, back, q_root, to_root, wait = [], [], [], [], []
            j = 0
            for k in range(n):
                _, t0, t1, cons = gates[k]
                # the TLP that made the consumed count `cons` has its credit back once the advertised
                # limit (initial allocation + credits released) reaches cons + init
                while j < len(upd) and upd[j][2] < cons + init:
                    j += 1
                wait.append(t1 - t0)
                to_root.append(arr[k] - t1)
                q_root.append(rel[k] - arr[k])
                if j < len(upd):
                    back.append(upd[j][1] - rel[k])
                    loops.append(upd[j][1] - t1)

            def avg(x):
                return round(sum(x) / len(x), 1) if x else None
            out[typ] = {"tlps": n, "gate_wait_ns": avg(wait), "gate_wait_sum_ns": round(sum(wait), 1), "gate_to_root_ns": avg(to_root),
                        "root_queue_ns": avg(q_root), "release_to_update_ns": avg(back),
                        "credit_loop_ns": avg(loops), "credit_loop_max_ns": max(loops) if loops else None}
        out["rq_stall_cycles"] = getattr(self, "rq_stalls", 0) - m0["rq_stalls"]
        rtt = ev["rtt"]
        # from the read entering the gate (with its credit wait) and from leaving it
        out["rd_rtt_gate_in_ns"] = round(sum(r[0] for r in rtt) / len(rtt), 1) if rtt else None
        out["rd_rtt_gate_out_ns"] = round(sum(r[1] for r in rtt) / len(rtt), 1) if rtt else None
        out["rd_count"] = len(rtt)
        ev["rtt"] = []
        return out


@cocotb.test()
async def probe(dut):
    cfg = json.loads(os.environ["BENCH_CFG"])
    tb, nif = await B.open_nic(dut, cfg)
    pr = Probe(tb.dev.upstream_port, tb.port)
    cocotb.start_soon(pr.count_rq_stalls(dut))
    rows = []
    for size, mode, count in cfg["points"]:
        m0 = pr.mark()
        r = await B.run_point(dut, tb, nif, size, mode, count)
        r["probe"] = pr.summary(m0)
        dut._log.info("%s", r)
        rows.append(r)
    Path(cfg["out"]).write_text(json.dumps({"rows": rows}, indent=1))
