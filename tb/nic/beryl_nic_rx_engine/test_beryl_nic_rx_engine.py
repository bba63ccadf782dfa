# SPDX-License-Identifier: MIT
"""beryl_nic_rx_engine: scapy frames (IPv4/IPv6, TCP/UDP/other, 0-2 VLAN tags, non-IP) from one or two
MAC ports, Python models of the RX queue manager (rings in host memory), the DMA read engine (writes the
descriptors into the engine's region, random delay and order), the DMA write engine (reads frames out
of the region into host memory, random delay, injected errors) and a completion sink.

An independent sequential reference (frames in the order the ingress accepted them; RSS from
rss_ref.toeplitz and the table; RFC 1071 sum from byte 14; queue rules of docs/blocks/nic_core.md)
gives the exact completion list, stat list and counters; every delivered frame must sit byte-exact
in host memory at its descriptor's buffer. Error paths: empty queue, queue with too few descriptors,
disabled queue, out-of-range queue, too-short buffer, descriptor-fetch and frame-write DMA errors,
MAC error, oversize frame, no free slot (write engine stalled; the MAC is never stalled).
Descriptor reads that fail a few times and then succeed (transient faults; a failed one writes garbage into
the region): issued again up to RX_DESC_RETRIES times; every read is logged and check_desc_reads holds each
fetch's tries to the fault model (the same read again, after the failed one's status, before any new QM
response's read), the first reads to the QM grants, and desc_retry_count. A descriptor whose latest read
failed completes with CPL_DMA_ERR. Flush while a read is retried.
Modes: no stalls (throughput reported), random source idle, random backpressure, both.

Descriptor cache: the QM model grants min(wanted, available, until the ring end) and the DMA model reads
whole batches. The reference follows the observed completion stream per queue: frame completions and
CPL_UNUSED returns (evictions) must walk each ring in pointer order with no gap or repeat; at the end a
flush (frames to DCACHE_ENTRIES out-of-range queues evicts every entry) must give every granted
descriptor back, so each posted descriptor that the QM handed out comes back exactly once."""
import ipaddress
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rss_ref import MS_KEY, toeplitz  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from beryl_seed import seed as beryl_seed  # noqa: E402
from gate_check import GateCheck  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
MODES = {"plain": (0.0, 0.0), "idle": (0.4, 0.0), "bp": (0.0, 0.4), "both": (0.4, 0.4)}

QM_OK, QM_EMPTY, QM_DISABLED, QM_BAD_IDX = 0, 1, 2, 3
CPL_OK, CPL_TOO_LONG, CPL_DMA_ERR, CPL_UNUSED = 0, 1, 2, 4
HASH_NONE, HASH_IPV4, HASH_IPV4_TCP, HASH_IPV4_UDP, HASH_IPV6, HASH_IPV6_TCP, HASH_IPV6_UDP = range(7)
NQ = 16                      # queues the QM model has; higher indices answer QM_BAD_IDX
RING_LOG = 11                # 2048-entry descriptor rings
RING_BASE = 0x10000
BUF_BASE = 0x200000
HOST_SIZE = 24 << 20


def tb_retries():
    """RX_DESC_RETRIES of the build (before a Bench exists)."""
    return int(os.environ.get("PARAM_RX_DESC_RETRIES", "2"))


# ------------------------------------------------------------------------------------ references
def ones_sum(data):
    """RFC 1071 sum, not complemented."""
    if len(data) % 2:
        data = data + b"\0"
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ref_hash(frame, key, en):
    """(hash, type) per Microsoft's RSS rules as docs/blocks/nic_offloads.md states them."""
    p = Ether(frame)
    if IP in p:
        ip = p[IP]
        frag = bool(ip.flags.MF) or ip.frag != 0
        tcp, udp = (not frag and ip.proto == 6), (not frag and ip.proto == 17)
        src, dst = ip.src, ip.dst
        bits, types = (0, 1, 2), (HASH_IPV4, HASH_IPV4_TCP, HASH_IPV4_UDP)
        a = ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed
    elif IPv6 in p:
        ip = p[IPv6]
        tcp, udp = ip.nh == 6, ip.nh == 17
        a = ipaddress.ip_address(ip.src).packed + ipaddress.ip_address(ip.dst).packed
        bits, types = (3, 4, 5), (HASH_IPV6, HASH_IPV6_TCP, HASH_IPV6_UDP)
    else:
        return 0, HASH_NONE
    if tcp or udp:
        l4 = p[TCP] if tcp else p[UDP]
        ports = l4.sport.to_bytes(2, "big") + l4.dport.to_bytes(2, "big")
        k = 1 if tcp else 2
        if (en >> bits[k]) & 1:
            return toeplitz(key, a + ports), types[k]
    if (en >> bits[0]) & 1:
        return toeplitz(key, a), types[0]
    return 0, HASH_NONE


def make_frame(rng, length):
    """A scapy frame of exactly `length` bytes (random kind that fits)."""
    a4 = lambda: ".".join(str(rng.randrange(256)) for _ in range(4))  # noqa: E731
    a6 = lambda: ":".join(f"{rng.randrange(65536):x}" for _ in range(8))  # noqa: E731
    for _ in range(20):
        stack = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
        for _t in range(rng.choice([0, 0, 0, 1, 2])):
            stack = stack / Dot1Q(vlan=rng.randrange(4096))
        sp, dp = rng.randrange(65536), rng.randrange(65536)
        l4 = rng.choice([TCP(sport=sp, dport=dp), UDP(sport=sp, dport=dp), ICMP()])
        kind = rng.choice(["ip4", "ip4", "ip6", "ip6", "ip4frag", "arp", "raw"])
        if kind == "ip4":
            pkt = stack / IP(src=a4(), dst=a4()) / l4
        elif kind == "ip4frag":
            pkt = stack / IP(src=a4(), dst=a4(), flags="MF") / l4
        elif kind == "ip6":
            # no L4 header the parser knows (next header 59, "no next header"): 2-tuple hash
            pkt = stack / IPv6(src=a6(), dst=a6(), nh=59) if isinstance(l4, ICMP) else stack / IPv6(src=a6(), dst=a6()) / l4
        elif kind == "arp":
            pkt = stack / ARP(psrc=a4(), pdst=a4())
        else:
            pkt = stack / Raw(rng.randbytes(4))
            pkt[Ether].type = 0x88B5
        hdr = len(bytes(pkt))
        if hdr + 4 <= length:
            raw = bytes(pkt / Raw(rng.randbytes(length - hdr)))
            assert len(raw) == length
            return raw
    return bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:03", type=0x88B5)
                 / Raw(rng.randbytes(length - 14)))


# ------------------------------------------------------------------------------------ bench
class Bench:
    def __init__(self, dut, rng, idle, bp, seed=0):
        self.dut, self.rng, self.idle, self.bp = dut, rng, idle, bp
        self.ports = len(dut.s_axis_rx_tvalid)
        self.slots = int(os.environ.get("PARAM_SLOTS", "32"))
        self.slot_bytes = int(os.environ.get("PARAM_SLOT_BYTES", "16384"))
        self.seg_addr_w = len(dut.ram_wr_cmd_addr) // 2
        self.qi_w = len(dut.default_queue)
        self.depth = 1 << len(dut.rss_tbl_wr_addr)
        self.host = bytearray(HOST_SIZE)
        self.next_buf = BUF_BASE
        self.cache = {}
        # QM model: per queue dict(enable, base, prod, cons, target)
        self.q = {i: dict(enable=True, base=RING_BASE + i * (16 << RING_LOG), prod=0, cons=0,
                          target=100 + i) for i in range(NQ)}
        self.rd_err_addrs, self.wr_err_addrs = set(), set()
        self.rd_failed = set()    # descriptor addresses whose latest read failed (a retry that succeeds clears them)
        self.retries = tb_retries()
        self.rd_flaky = {}        # transient faults: descriptor address -> reads of it still to fail
        self.rd_flaky0 = {}       # the same as injected
        self.rd_log = []          # every descriptor read the DMA model accepted, in order (check_desc_reads)
        self.rd_valid_t = None    # first cycle the pending read request was valid
        self.rd_block = False     # hold rd_desc_ready low
        self.qm_ok = []           # (host address, bytes) of every QM_OK response the engine took, in order
        # garbage a failed transient read writes into the region: its own generator, the others' streams stay put
        self.grng = random.Random(f"garbage {seed}")
        self.qm_rsp = []          # [time, fields]
        self.rd_pend = []         # [time, host_addr, ram_addr, len left, tag, err, first host_addr, rd_log record]
        self.rd_stat = []         # [time, tag, err, rd_log record]
        self.wr_jobs = []         # [time, host, ram, len, tag]
        self.wr_act = []          # write jobs reading the region (up to 4, pipelined)
        self.wr_stat = []
        self.wr_stall = False
        self.cpls, self.stats = [], []
        self.sent = [[] for _ in range(self.ports)]    # per port: [(frame, bad)]
        self.src = [None] * self.ports                 # per port: [beats, idx, frame id, driving]
        self.order = []           # frame ids in ingress order
        self.frames = []          # id -> (frame, bad, port)
        self.started = 0
        self.throttle = True
        self.rd_lat = 1           # DMA read latency, cycles (plus random when bp)
        self.pace = 0.0           # minimum cycles between frame starts (line-rate pacing), 0 = none
        self.next_start = 0.0
        self.entries = int(os.environ.get("PARAM_DCACHE_ENTRIES", "4"))
        self.qm_ops = 0
        self.count_no_slot = False    # frames dropped at ingress count as retired (rate test)
        self.cycle = 0
        self.beats_in = 0
        self.first_beat = None
        self.last_beat = None
        self.flush_req = []       # [(qidx, callback or None)], one per cycle, to the flush port
        self.wr_log = []          # host address of every DMA write the engine asked for

    def dump(self):
        d = self.dut
        for n in ["wp_q", "asgp_q", "txp_q", "donep_q", "c_valid_q", "c_req_q", "c_empty_q", "c_nack_q",
                  "c_demand_q", "c_busy", "a_valid", "a_hit", "a_ready", "a_e", "a_q", "vic_ok", "vic_e",
                  "ret_wp_q", "ret_rp_q", "opf_wp_q", "opf_rp_q", "f_want"]:
            try:
                d._log.info("%s = %s", n, getattr(d, n).value)
            except Exception as e:  # noqa: BLE001
                d._log.info("%s: %s", n, e)
        for n in ["c_hd_q", "c_tl_q", "c_used_q", "c_held_q", "c_level_q", "c_qidx_q"]:
            try:
                d._log.info("%s = %s", n, [int(getattr(d, n)[i].value) for i in range(self.entries)])
            except Exception as e:  # noqa: BLE001
                d._log.info("%s: %s", n, e)
        d._log.info("b_st_q = %s", [int(d.b_st_q[i].value) for i in range(64)])
        d._log.info("models: qm %s rd %s rdst %s", self.qm_rsp, self.rd_pend, self.rd_stat)

    def set(self, name, val):
        if self.cache.get(name) != val:
            self.cache[name] = val
            getattr(self.dut, name).value = val

    async def reset(self, key, en, table, rss_enable, default_queue):
        d = self.dut
        Clock(d.clk, 4, unit="ns").start()
        for n in ["s_axis_rx_tdata", "s_axis_rx_tkeep", "s_axis_rx_tvalid", "s_axis_rx_tlast", "s_axis_rx_tuser",
                  "rss_key_wr_en", "rss_tbl_wr_en", "op_req_ready", "op_rsp_valid", "rd_desc_ready",
                  "rd_desc_status_valid", "ram_wr_cmd_valid", "wr_desc_ready", "wr_desc_status_valid",
                  "ram_rd_cmd_valid", "ram_rd_resp_ready", "cpl_ready", "op_rsp_status", "op_rsp_addr",
                  "op_rsp_ptr", "op_rsp_count", "op_rsp_target", "op_rsp_qidx", "rd_desc_status_tag",
                  "rd_desc_status_error", "wr_desc_status_tag", "wr_desc_status_error", "ram_wr_cmd_addr",
                  "ram_wr_cmd_be", "ram_wr_cmd_data", "ram_rd_cmd_addr", "rss_key_wr_addr", "rss_key_wr_data",
                  "rss_tbl_wr_addr", "rss_tbl_wr_data", "flush_valid", "flush_qidx"]:
            self.set(n, 0)
        d.rss_enable.value = int(rss_enable)
        d.default_queue.value = default_queue
        d.rss_hash_en.value = en
        d.rst.value = 1
        await ClockCycles(d.clk, 4)
        d.rst.value = 0
        for i in range(10):
            await FallingEdge(d.clk)
            self.set("rss_key_wr_en", 1)
            self.set("rss_key_wr_addr", i)
            self.set("rss_key_wr_data", int.from_bytes(key[4 * i:4 * i + 4], "little"))
        for a, qv in enumerate(table):
            await FallingEdge(d.clk)
            self.set("rss_key_wr_en", 0)
            self.set("rss_tbl_wr_en", 1)
            self.set("rss_tbl_wr_addr", a)
            self.set("rss_tbl_wr_data", qv)
        await FallingEdge(d.clk)
        self.set("rss_tbl_wr_en", 0)

    # host side helpers
    def post(self, qi, buf_len, n, wr_err=False, rd_err=False):
        """Post n descriptors with buffers of buf_len bytes to queue qi."""
        q = self.q[qi]
        for _ in range(n):
            addr = self.next_buf + self.rng.randrange(64)
            self.next_buf = (addr + buf_len + 127) & ~63
            assert self.next_buf < HOST_SIZE
            self.host[addr:addr + buf_len] = b"\xee" * buf_len
            slot = q["prod"] % (1 << RING_LOG)
            da = q["base"] + 16 * slot
            self.host[da:da + 16] = addr.to_bytes(8, "little") + buf_len.to_bytes(4, "little") + b"\0" * 4
            if wr_err:
                self.wr_err_addrs.add(addr)
            if rd_err:
                self.rd_err_addrs.add(da)
            q["prod"] = (q["prod"] + 1) & 0xFFFF

    def flaky(self, da, k):
        """The reads of descriptor address da fail the next k times (a read carrying several such descriptors
        counts one for each)."""
        self.rd_flaky[da] = self.rd_flaky0[da] = k

    def send(self, port, frame, bad=False):
        fid = len(self.frames)
        self.frames.append((frame, bad, port))
        self.sent[port].append(fid)

    def r(self, p):
        return self.rng.random() < p

    def freed(self):
        d = self.dut
        return (self.n_stats + int(d.drop_mac_err_count.value) + int(d.drop_oversize_count.value)
                + (int(d.drop_no_slot_count.value) if self.count_no_slot else 0))

    async def run(self, until, limit=400000):
        d = self.dut
        self.n_stats = len(self.stats)
        start_cycle = self.cycle
        while not until():
            await FallingEdge(d.clk)
            self.cycle += 1
            if self.cycle - start_cycle >= limit:
                self.dump()
            assert self.cycle - start_cycle < limit, "bench timed out"
            t = self.cycle
            # ---- queue flush (a register write to the queue's configuration); the callback changes the
            # QM model in the same cycle, as the register write does
            fl = self.flush_req.pop(0) if self.flush_req else None
            self.set("flush_valid", int(fl is not None))
            if fl is not None:
                self.set("flush_qidx", fl[0])
                if fl[1]:
                    fl[1]()
            # ---- MAC sources
            tv = 0
            tdata = tkeep = tlast = tuser = 0
            inflight = self.started - self.freed()
            for p in range(self.ports):
                s = self.src[p]
                if s is None and self.sent[p] and t >= self.next_start:
                    if not self.throttle or inflight < self.slots:
                        self.next_start = max(self.next_start + self.pace, t) if self.pace else 0
                        fid = self.sent[p].pop(0)
                        fr = self.frames[fid][0]
                        bts = [int.from_bytes(fr[i:i + 64], "little") for i in range(0, len(fr), 64)]
                        s = self.src[p] = [bts, 0, fid, False]
                        self.started += 1
                        inflight += 1
                if s is not None:
                    if not s[3] and not self.r(self.idle):
                        s[3] = True
                    if s[3]:
                        fr = self.frames[s[2]][0]
                        i = s[1]
                        last = i == len(s[0]) - 1
                        nb = len(fr) - 64 * i if last else 64
                        tv |= 1 << p
                        tdata |= s[0][i] << (512 * p)
                        tkeep |= ((1 << nb) - 1) << (64 * p)
                        tlast |= int(last) << p
                        tuser |= int(last and self.frames[s[2]][1]) << p
            self.set("s_axis_rx_tvalid", tv)
            if tv:
                self.set("s_axis_rx_tdata", tdata)
                self.set("s_axis_rx_tkeep", tkeep)
                self.set("s_axis_rx_tlast", tlast)
                self.set("s_axis_rx_tuser", tuser)
            # ---- QM
            self.set("op_req_ready", int(not self.r(self.bp)))
            rsp = self.qm_rsp[0] if self.qm_rsp and self.qm_rsp[0][0] <= t else None
            self.set("op_rsp_valid", int(rsp is not None))
            if rsp:
                st, addr, ptr, target, qidx, cnt = rsp[1]
                self.set("op_rsp_status", st)
                self.set("op_rsp_addr", addr)
                self.set("op_rsp_ptr", ptr)
                self.set("op_rsp_target", target)
                self.set("op_rsp_count", cnt)
                self.set("op_rsp_qidx", qidx)
            # ---- DMA read engine: descriptor, RAM write, status
            self.set("rd_desc_ready", int(not self.r(self.bp) and not self.rd_block))
            ready = [x for x in self.rd_pend if x[0] <= t]
            if ready:
                # one read at a time writes up to a segment (64 bytes) per cycle; reads finish in any order
                x = self.rng.choice(ready)
                _, ha, ra, ln, tag, err = x[:6]
                row, seg, off = ra >> 7, (ra >> 6) & 1, ra & 63
                n = min(64 - off, ln)
                if x[7]["flaky"]:
                    # a transient fault: the completions carried garbage (only a retry makes the batch usable)
                    data = self.grng.getrandbits(8 * n) << (8 * off)
                else:
                    data = int.from_bytes(self.host[ha:ha + n], "little") << (8 * off)
                self.set("ram_wr_cmd_addr", row << (self.seg_addr_w * seg))
                self.set("ram_wr_cmd_be", ((1 << n) - 1) << (off + 64 * seg))
                self.set("ram_wr_cmd_data", data << (512 * seg))
                self.set("ram_wr_cmd_valid", 1 << seg)
                err |= any(a in self.rd_err_addrs for a in range(ha, ha + n, 16))
                x[1:6] = [ha + n, ra + n, ln - n, tag, err]
                if x[3] == 0:
                    # one status per read: an error fails every descriptor the read carried, a success (a
                    # retry) makes them good again
                    if err:
                        self.rd_failed.update(range(x[6], x[1], 16))
                    else:
                        self.rd_failed.difference_update(range(x[6], x[1], 16))
                    x[7]["err"] = bool(err)
                    self.rd_pend.remove(x)
                    self.rd_stat.append([t + 1 + (self.rng.randrange(8) if self.bp else 0), tag, int(err), x[7]])
            else:
                self.set("ram_wr_cmd_valid", 0)
            rs = [x for x in self.rd_stat if x[0] <= t]
            if rs:
                x = self.rng.choice(rs)
                self.rd_stat.remove(x)
                x[3]["done"] = t
                self.set("rd_desc_status_tag", x[1])
                self.set("rd_desc_status_error", x[2])
            self.set("rd_desc_status_valid", int(bool(rs)))
            # ---- DMA write engine: jobs in order read the region (per segment in order), write host memory
            self.set("wr_desc_ready", int(not self.wr_stall and not self.r(self.bp)))
            if len(self.wr_act) < 4 and self.wr_jobs and self.wr_jobs[0][0] <= t:
                _, ha, ra, ln, tag = self.wr_jobs.pop(0)
                nbeat = (ln + 63) // 64
                segk = [[k for k in range(nbeat) if ((ra >> 6) + k) % 2 == s] for s in (0, 1)]
                self.wr_act.append(dict(ha=ha, ra=ra, ln=ln, tag=tag, nbeat=nbeat, cmd=[list(x) for x in segk],
                                        resp={}, want=[list(x) for x in segk]))
            cv, ca, cjob = 0, 0, [None, None]
            for s in (0, 1):
                w = next((j for j in self.wr_act if j["cmd"][s]), None)
                if w is not None and not self.r(self.bp):
                    k = w["cmd"][s][0]
                    cv |= 1 << s
                    ca |= ((w["ra"] + 64 * k) >> 7) << (self.seg_addr_w * s)
                    cjob[s] = w
            self.set("ram_rd_cmd_valid", cv)
            if cv:
                self.set("ram_rd_cmd_addr", ca)
            rr = 0 if self.r(self.bp) else 3
            self.set("ram_rd_resp_ready", rr)
            ws = [x for x in self.wr_stat if x[0] <= t]
            if ws:
                x = ws[0]
                self.wr_stat.remove(x)
                self.set("wr_desc_status_tag", x[1])
                self.set("wr_desc_status_error", x[2])
            self.set("wr_desc_status_valid", int(bool(ws)))
            # ---- completion sink
            self.set("cpl_ready", int(not self.r(self.bp)))

            await ReadOnly()
            # ---- sample handshakes
            trdy = int(d.s_axis_rx_tready.value)
            for p in range(self.ports):
                s = self.src[p]
                if s is not None and s[3]:
                    if (trdy >> p) & 1:
                        self.beats_in += 1
                        if self.first_beat is None:
                            self.first_beat = t
                        self.last_beat = t
                        s[1] += 1
                        s[3] = False
                        if s[1] == len(s[0]):
                            self.order.append(s[2])
                            self.src[p] = None
            if d.op_req_valid.value == 1 and self.cache["op_req_ready"]:
                qi = int(d.op_req_qidx.value)
                want = int(d.op_req_count.value)
                assert 1 <= want <= 8
                self.qm_ops += 1
                if qi >= NQ:
                    f = (QM_BAD_IDX, 0, 0, 0, qi, 0)
                else:
                    q = self.q[qi]
                    if not q["enable"]:
                        f = (QM_DISABLED, 0, 0, 0, qi, 0)
                    elif q["prod"] == q["cons"]:
                        f = (QM_EMPTY, 0, 0, 0, qi, 0)
                    else:
                        slot = q["cons"] % (1 << RING_LOG)
                        n = min(want, (q["prod"] - q["cons"]) & 0xFFFF, (1 << RING_LOG) - slot)
                        f = (QM_OK, q["base"] + 16 * slot, q["cons"], q["target"], qi, n)
                        q["cons"] = (q["cons"] + n) & 0xFFFF
                lat = self.qm_rsp[-1][0] if self.qm_rsp else 0
                self.qm_rsp.append([max(lat, t + 1 + (self.rng.randrange(6) if self.bp else 0)), f])
            if rsp is not None and d.op_rsp_ready.value == 1:
                self.qm_rsp.pop(0)
                if rsp[1][0] == QM_OK:
                    self.qm_ok.append((rsp[1][1], 16 * rsp[1][5]))
            if d.rd_desc_valid.value == 1 and self.rd_valid_t is None:
                self.rd_valid_t = t
            if d.rd_desc_valid.value == 1 and self.cache["rd_desc_ready"]:
                ln = int(d.rd_desc_len.value)
                assert ln % 16 == 0 and 16 <= ln <= 128
                ha = int(d.rd_desc_host_addr.value)
                tag = int(d.rd_desc_tag.value)
                assert all(x[4] != tag for x in self.rd_pend) and all(x[1] != tag for x in self.rd_stat), \
                    f"descriptor read {ha:#x} with tag {tag}: a read with that tag is still in flight"
                # a transient fault fails the whole read; each faulty descriptor it carries counts one failure
                fl = [a for a in range(ha, ha + ln, 16) if self.rd_flaky.get(a, 0) > 0]
                for a in fl:
                    self.rd_flaky[a] -= 1
                rec = dict(host=ha, len=ln, ram=int(d.rd_desc_ram_addr.value), tag=tag,
                           flaky=bool(fl), err=None, valid=self.rd_valid_t, t=t, done=None)
                self.rd_log.append(rec)
                self.rd_valid_t = None
                self.rd_pend.append([t + self.rd_lat + (self.rng.randrange(20) if self.bp else 0),
                                     ha, rec["ram"], ln, rec["tag"], bool(fl), ha, rec])
            if d.wr_desc_valid.value == 1 and self.cache["wr_desc_ready"]:
                wa, wl = int(d.wr_desc_host_addr.value), int(d.wr_desc_len.value)
                assert BUF_BASE <= wa and wa + wl <= self.next_buf, f"DMA write to {wa:#x}+{wl}: no posted buffer"
                self.wr_log.append(wa)
                self.wr_jobs.append([t + 1 + (self.rng.randrange(10) if self.bp else 0),
                                     int(d.wr_desc_host_addr.value), int(d.wr_desc_ram_addr.value),
                                     int(d.wr_desc_len.value), int(d.wr_desc_tag.value)])
            if self.wr_act:
                crdy = int(d.ram_rd_cmd_ready.value)
                rv = int(d.ram_rd_resp_valid.value)
                if rv & rr:
                    rdata = int(d.ram_rd_resp_data.value)
                    for s in (0, 1):
                        if (rv & rr) >> s & 1:
                            w = next(j for j in self.wr_act if j["want"][s])
                            k = w["want"][s].pop(0)
                            w["resp"][k] = (rdata >> (512 * s)) & ((1 << 512) - 1)
                for s in (0, 1):
                    if (cv >> s) & 1 and (crdy >> s) & 1:
                        cjob[s]["cmd"][s].pop(0)
            while self.wr_act and len(self.wr_act[0]["resp"]) == self.wr_act[0]["nbeat"]:
                w = self.wr_act.pop(0)
                blob = b"".join(w["resp"][k].to_bytes(64, "little") for k in range(w["nbeat"]))
                err = int(w["ha"] in self.wr_err_addrs)
                if not err:
                    self.host[w["ha"]:w["ha"] + w["ln"]] = blob[:w["ln"]]
                self.wr_stat.append([t + 1 + (self.rng.randrange(10) if self.bp else 0), w["tag"], err])
            if d.cpl_valid.value == 1 and self.cache["cpl_ready"]:
                self.cpls.append((int(d.cpl_qidx.value), int(d.cpl_data.value)))
            if d.stat_valid.value == 1:
                self.stats.append((int(d.stat_qidx.value), int(d.stat_drop.value), int(d.stat_bytes.value)))
                self.n_stats += 1

    def idle_done(self):
        return (all(s is None for s in self.src) and not any(self.sent) and not self.qm_rsp and not self.rd_pend
                and not self.rd_stat and not self.wr_jobs and not self.wr_act and not self.wr_stat)


def decode_cpl(v):
    return dict(queue=v & 0xFFFF, index=(v >> 16) & 0xFFFF, port=(v >> 32) & 0xFF, status=(v >> 40) & 0xFF,
                hash_type=(v >> 48) & 7, flags=(v >> 56) & 0xFF, rss_hash=(v >> 64) & 0xFFFFFFFF,
                csum=(v >> 96) & 0xFFFF, len=(v >> 112) & 0xFFFF, rest=v >> 128)


class Ref:
    """Sequential reference: frames in ingress order -> expected completions, stats, counters."""

    def __init__(self, tb, key, en, table, rss_enable, default_queue, qcfg):
        self.tb, self.key, self.en, self.table = tb, key, en, table
        self.rss_enable, self.default_queue = rss_enable, default_queue
        self.q = {i: dict(c) for i, c in qcfg.items()}   # snapshot of the QM model before traffic
        self.cpls, self.stats, self.deliver = [], [], []
        self.got, self.gi = [], 0     # observed completions (qidx, decoded): followed for CPL_UNUSED
        self.cnt = dict(pkt=0, bytes=0, no_desc=0, disabled=0, too_long=0, oversize=0, mac=0, dma=0)
        self.port_pkt = [0] * tb.ports
        self.port_bytes = [0] * tb.ports
        self.port_drop = [0] * tb.ports     # frames of the port not delivered, any reason but no slot

    def frame(self, frame, bad, port):
        tb, c = self.tb, self.cnt
        ln = len(frame)
        if bad:
            c["mac"] += 1
            self.port_drop[port] += 1
            return
        if ln > tb.slot_bytes:
            c["oversize"] += 1
            self.port_drop[port] += 1
            return
        h, ht = ref_hash(frame, self.key, self.en)
        qi = self.table[h % tb.depth] if (self.rss_enable and ht != HASH_NONE) else self.default_queue
        self.take_unused()
        if qi >= NQ or not self.q[qi]["enable"]:
            c["disabled"] += 1
            self.port_drop[port] += 1
            self.stats.append((qi, 1, None))
            return
        q = self.q[qi]
        if q["prod"] == q["cons"]:
            c["no_desc"] += 1
            self.port_drop[port] += 1
            self.stats.append((qi, 1, None))
            return
        ptr = q["cons"]
        q["cons"] = (q["cons"] + 1) & 0xFFFF
        da = q["base"] + 16 * (ptr % (1 << RING_LOG))
        baddr = int.from_bytes(tb.host[da:da + 8], "little")
        blen = int.from_bytes(tb.host[da + 8:da + 12], "little")
        exp = dict(queue=qi, index=ptr, port=port, status=CPL_OK, hash_type=ht,
                   flags=1 | (2 if ht != HASH_NONE else 0), rss_hash=h, csum=ones_sum(frame[14:]), len=ln, rest=0)
        if da in tb.rd_failed:
            exp.update(status=CPL_DMA_ERR, len=0)
            c["dma"] += 1
        elif blen < ln:
            exp.update(status=CPL_TOO_LONG, len=0)
            c["too_long"] += 1
        elif baddr in tb.wr_err_addrs:
            exp.update(status=CPL_DMA_ERR, len=0)
            c["dma"] += 1
        else:
            c["pkt"] += 1
            c["bytes"] += ln
            self.port_pkt[port] += 1
            self.port_bytes[port] += ln
            self.deliver.append((baddr, frame))
        if exp["status"] != CPL_OK:
            self.port_drop[port] += 1
        self.cpls.append((q["target"], exp))
        self.gi += 1
        self.stats.append((qi, int(exp["status"] != CPL_OK), ln if exp["status"] == CPL_OK else None))


    def take_unused(self):
        """Accept the CPL_UNUSED returns at the head of the observed stream: each must be its queue's next
        ring pointer (nothing skipped, nothing repeated), with length 0 and the queue's CQ."""
        while self.gi < len(self.got) and self.got[self.gi][1]["status"] == CPL_UNUSED:
            cq, g = self.got[self.gi]
            assert g["queue"] < NQ, f"CPL_UNUSED for queue {g['queue']}"
            q = self.q[g["queue"]]
            assert g["index"] == q["cons"], f"CPL_UNUSED {g}: queue's next pointer is {q['cons']}"
            assert (q["prod"] - q["cons"]) & 0xFFFF > 0, f"CPL_UNUSED {g} beyond the producer pointer"
            q["cons"] = (q["cons"] + 1) & 0xFFFF
            self.cpls.append((q["target"], dict(queue=g["queue"], index=g["index"], port=0, status=CPL_UNUSED,
                                                hash_type=0, flags=0, rss_hash=0, csum=0, len=0, rest=0)))
            self.gi += 1


def check(tb, ref):
    d = tb.dut
    got = [(qi, decode_cpl(v)) for qi, v in tb.cpls]
    assert len(got) == len(ref.cpls), f"{len(got)} completions, expected {len(ref.cpls)}"
    for i, (g, e) in enumerate(zip(got, ref.cpls)):
        assert g == e, f"completion {i}: got {g}, expected {e}"
    for baddr, fr in ref.deliver:
        assert bytes(tb.host[baddr:baddr + len(fr)]) == fr, f"frame at {baddr:#x} differs in host memory"
    assert len(tb.stats) == len(ref.stats), f"{len(tb.stats)} stats, expected {len(ref.stats)}"
    for i, (g, e) in enumerate(zip(tb.stats, ref.stats)):
        assert g[0] == e[0] and g[1] == e[1] and (e[2] is None or g[2] == e[2]), f"stat {i}: {g} != {e}"
    c = ref.cnt
    cnts = dict(pkt=d.pkt_count, bytes=d.byte_count, no_desc=d.drop_no_desc_count,
                disabled=d.drop_disabled_count, too_long=d.drop_too_long_count, oversize=d.drop_oversize_count,
                mac=d.drop_mac_err_count, dma=d.dma_err_count)
    for k, sig in cnts.items():
        assert int(sig.value) == c[k], f"counter {k}: {int(sig.value)} != {c[k]}"
    pp, pb = int(d.port_pkt_count.value), int(d.port_byte_count.value)
    for p in range(tb.ports):
        assert (pp >> (32 * p)) & 0xFFFFFFFF == ref.port_pkt[p], f"port {p} packets"
        assert (pb >> (32 * p)) & 0xFFFFFFFF == ref.port_bytes[p], f"port {p} bytes"
    # per-port drops: the reference's by port, plus the frames dropped for want of a slot (the
    # reference does not model ingress timing: those are checked in total)
    pd = [(int(d.port_drop_count.value) >> (32 * p)) & 0xFFFFFFFF for p in range(tb.ports)]
    no_slot = int(d.drop_no_slot_count.value)
    assert sum(pd) == sum(ref.port_drop) + no_slot, f"port drops {pd}, reference {ref.port_drop} + {no_slot} no slot"
    if not no_slot:
        assert pd == ref.port_drop, f"port drops {pd}, reference {ref.port_drop}"


def check_desc_reads(tb):
    """Every descriptor read the DMA model saw, against the fault model and RX_DESC_RETRIES. Per tag (cache batch)
    in issue order: a fetch's first read, then while it failed and tries are left the same read again (host
    address, length, RAM address, tag), issued only after the failed read's status, RX_DESC_RETRIES + 1 tries
    at most; the errors of the tries are what the faults say (permanent: every try; transient failing k times:
    the first k). The first reads are the QM_OK grants the engine took, in order (so no extra read, none
    missing); no descriptor is fetched by two grants; a QM response is not turned into a read while a retry is
    waiting (the retry goes first). desc_retry_count = the reads beyond the first of each fetch.
    Returns the fetches: [reads] per fetch."""
    rt = tb.retries
    by_tag = {}
    for r in tb.rd_log:
        by_tag.setdefault(r["tag"], []).append(r)
    key = lambda r: (r["host"], r["len"], r["ram"], r["tag"])  # noqa: E731
    fmt = lambda r: f"read {r['host']:#x}+{r['len']} ram {r['ram']:#x} tag {r['tag']} at {r['t']}"  # noqa: E731
    fetches, seen = [], set()
    for tag, rs in by_tag.items():
        i = 0
        while i < len(rs):
            r0 = rs[i]
            assert r0["err"] is not None, f"{fmt(r0)}: no status"
            das = range(r0["host"], r0["host"] + r0["len"], 16)
            assert not (seen & set(das)), f"{fmt(r0)}: a descriptor fetched twice"
            seen |= set(das)
            k = max([tb.rd_flaky0.get(a, 0) for a in das])
            if any(a in tb.rd_err_addrs for a in das) or k > rt:
                want = [True] * (rt + 1)        # the batch becomes an error batch
            else:
                want = [True] * k + [False]
            ch = rs[i:i + len(want)]
            assert len(ch) == len(want), f"{fmt(r0)}: {len(ch)} tries, expected {len(want)} (errors {want})"
            for a, b in zip(ch, ch[1:]):
                assert key(b) == key(a), f"{fmt(r0)}: try {ch.index(b)} is a different {fmt(b)}"
                assert a["done"] is not None and b["valid"] > a["done"], \
                    f"{fmt(b)} issued again before the failed try's status (cycle {a['done']})"
            assert [r["err"] for r in ch] == want, f"{fmt(r0)}: tries failed {[r['err'] for r in ch]}, faults {want}"
            fetches.append(ch)
            i += len(ch)
    heads = sorted((ch[0] for ch in fetches), key=lambda r: r["t"])
    assert [(r["host"], r["len"]) for r in heads] == tb.qm_ok, \
        "first reads of the fetches are not the QM grants (a read too many, missing or changed)"
    # a retry waiting (from the cycle after its status is taken) goes before any new fetch's read
    for ch in fetches:
        for a, b in zip(ch, ch[1:]):
            late = [h for h in heads if a["done"] + 2 <= h["valid"] < b["valid"]]
            assert not late, f"{fmt(late[0])} of a QM response went before the retry {fmt(b)}"
    n_rty = sum(len(ch) - 1 for ch in fetches)
    assert int(tb.dut.desc_retry_count.value) == n_rty, \
        f"desc_retry_count {int(tb.dut.desc_retry_count.value)}, expected {n_rty}"
    return fetches


async def setup(dut, seed, mode, rss_enable=True, default_queue=1, en=0x3F, qrange=(0, 8), key=None):
    seed = beryl_seed(seed, f"rx_engine {mode}")
    rng = random.Random(seed)
    idle, bp = MODES[mode]
    tb = Bench(dut, rng, idle, bp, seed)
    key = key or (MS_KEY if seed % 2 else rng.randbytes(40))
    table = [rng.randrange(*qrange) for _ in range(tb.depth)]
    await tb.reset(key, en, table, rss_enable, default_queue)
    return tb, rng, dict(key=key, en=en, table=table, rss_enable=rss_enable, default_queue=default_queue)


async def quiesce(tb):
    """Run until every frame that got a slot has retired and the models and prefetches are idle."""
    def done():
        return (tb.idle_done() and not any(tb.sent) and tb.freed() == len(tb.order)
                and tb.dut.cpl_valid.value == 0 and tb.dut.op_req_valid.value == 0
                and tb.dut.rd_desc_valid.value == 0)
    quiet = 0
    while quiet < 30:
        await tb.run(done)
        quiet = 0
        while quiet < 30 and done():
            c0 = tb.cycle
            await tb.run(lambda: tb.cycle > c0)
            quiet += 1
    await FallingEdge(tb.dut.clk)


async def finish(tb, ref_args, qcfg):
    """Run until everything retired, then check against the reference and the conservation flush."""
    await quiesce(tb)
    ref = Ref(tb, qcfg=qcfg, **ref_args)
    ref.got = [(qi, decode_cpl(v)) for qi, v in tb.cpls]
    for fid in tb.order:
        ref.frame(*tb.frames[fid])
    ref.take_unused()
    check(tb, ref)
    await flush(tb, ref)
    check_desc_reads(tb)
    return ref


async def flush(tb, ref):
    """Evict every cache entry (frames to DCACHE_ENTRIES distinct out-of-range queues that no traffic
    used, so none of them can hit an entry): every descriptor the QM granted must now be back, as a
    frame completion or CPL_UNUSED (conservation)."""
    d = tb.dut
    n0 = len(tb.cpls)
    await FallingEdge(d.clk)
    d.rss_enable.value = 0
    # the errors test routes traffic to out-of-range queues too (QM_BAD_IDX entries are cached)
    used = {decode_cpl(v)["queue"] for _, v in tb.cpls} | set(ref.table) | {ref.default_queue, NQ - 1}
    first = max(used) + 1
    assert first + tb.entries <= 1 << tb.qi_w
    for i in range(tb.entries):
        await FallingEdge(d.clk)
        d.default_queue.value = first + i
        tb.send(0, make_frame(tb.rng, 60))
        await quiesce(tb)
    got = [(qi, decode_cpl(v)) for qi, v in tb.cpls[n0:]]
    assert all(g["status"] == CPL_UNUSED for _, g in got), "flush frames completed"
    ref.got, ref.gi = got, 0
    ref.take_unused()
    for qi in range(NQ):
        assert ref.q[qi]["cons"] == tb.q[qi]["cons"], \
            f"queue {qi}: {(tb.q[qi]['cons'] - ref.q[qi]['cons']) & 0xFFFF} granted descriptors never came back"
    tb.dut._log.info("conservation: %d CPL_UNUSED returns in traffic, %d at the flush, %d QM ops",
                     sum(1 for _, v in tb.cpls[:n0] if decode_cpl(v)["status"] == CPL_UNUSED), len(got), tb.qm_ops)


def snapshot(tb):
    return {i: dict(c) for i, c in tb.q.items()}


async def traffic(dut, mode, seed, en=0x3F, rss_enable=True):
    tb, rng, args = await setup(dut, seed, mode, en=en, rss_enable=rss_enable)

    # The ingress gate (u_gate_in) is open exactly when a beat is taken at an input port or the join
    # takes a frame record; the engine's main gate (u_gate) needs no beat past a frame's first, so it
    # is closed for some of them (for those the rest of the engine has no work either).
    def taken():
        return int(dut.s_axis_rx_tvalid.value) & int(dut.s_axis_rx_tready.value)

    gc = GateCheck(dut, gate=dut.u_gate_in.gate_en_now,
                   moving=lambda: taken() or int(dut.join_fire.value) or int(dut.rst.value),
                   waiting=lambda: int(dut.s_axis_rx_tvalid.value) & ~int(dut.s_axis_rx_tready.value))
    later_beats = {"n": 0, "main_closed": 0}

    async def count_main_gate():
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()
            if taken() and int(dut.in_frame_q.value):
                later_beats["n"] += 1
                later_beats["main_closed"] += int(dut.u_gate.gate_en_now.value) == 0

    counter = cocotb.start_soon(count_main_gate())
    n = 1455 if LONG else 150
    lengths = list(range(60, 1515)) if LONG else rng.sample(range(60, 1515), n)
    lengths += [9014, 64, 65, 128, 129]
    for qi in (range(8) if rss_enable else [args["default_queue"]]):
        tb.post(qi, 9100, 8)                      # some jumbo-capable buffers first
        tb.post(qi, 2048, (600 if LONG else 170) if rss_enable else len(lengths))
    qcfg = snapshot(tb)
    # jumbo frames go only where a big buffer is ready: reference decides; both buffer kinds are fine
    for ln in lengths:
        tb.send(rng.randrange(tb.ports), make_frame(rng, ln))
    await finish(tb, args, qcfg)
    counter.kill()
    gc.check(min_closed_waits=0)   # input beats wait only when the offload chain stalls
    dut._log.info("%s: main gate closed for %d of %d beats past a frame's first", mode,
                  later_beats["main_closed"], later_beats["n"])
    if mode in ("plain", "idle"):   # (with output backpressure per-frame work is nearly always pending)
        assert later_beats["main_closed"] > later_beats["n"] // 10, later_beats
    span = tb.last_beat - tb.first_beat + 1
    dut._log.info("%s: %d frames, %d beats in %d cycles: ingress %.3f beats/cycle, %d completions",
                  mode, len(lengths), tb.beats_in, span, tb.beats_in / span, len(tb.cpls))
    nframe = sum(1 for _, v in tb.cpls if decode_cpl(v)["status"] != CPL_UNUSED)
    assert nframe >= len(lengths) - 8     # at most a jumbo or two too long
    types = sorted({decode_cpl(v)["hash_type"] for _, v in tb.cpls if decode_cpl(v)["status"] != CPL_UNUSED})
    queues = sorted({decode_cpl(v)["queue"] for _, v in tb.cpls if decode_cpl(v)["status"] != CPL_UNUSED})
    dut._log.info("hash types seen %s, queues seen %s", types, queues)
    exp_types = {0x3F: 7, 0x09: 3}[en]      # IP-only enables: none, IPv4, IPv6
    assert len(types) == exp_types and len(queues) == (8 if rss_enable else 1)
    pp = int(dut.port_pkt_count.value)
    assert all((pp >> (32 * p)) & 0xFFFFFFFF > 0 for p in range(tb.ports)), "a port carried nothing"


@cocotb.test()
async def test_traffic_plain(dut):
    await traffic(dut, "plain", 1)


@cocotb.test()
async def test_traffic_idle(dut):
    await traffic(dut, "idle", 2, en=0x09)      # 4-tuples disabled: fall back to the 2-tuple


@cocotb.test()
async def test_traffic_bp(dut):
    await traffic(dut, "bp", 3)
    await traffic(dut, "bp", 5, rss_enable=False)       # RSS off: everything to default_queue


@cocotb.test()
async def test_traffic_both(dut):
    await traffic(dut, "both", 4)


@cocotb.test()
async def test_small_frames(dut):
    """Back-to-back 60..128-byte frames with zero-delay models: results and ingress rate. One-beat
    frames are bound by the checksum block's 4 pending results against the parse/RSS latency."""
    for lo, hi, seed in [(60, 64, 6), (65, 128, 7)]:
        tb, rng, args = await setup(dut, seed, "plain")
        for qi in range(8):
            tb.post(qi, 2048, 200)
        qcfg = snapshot(tb)
        for _ in range(300):
            tb.send(rng.randrange(tb.ports), make_frame(rng, rng.randint(lo, hi)))
        await finish(tb, args, qcfg)
        span = tb.last_beat - tb.first_beat + 1
        dut._log.info("%d..%d-byte frames: %d beats in %d cycles: ingress %.3f beats/cycle, %.3f frames/cycle",
                      lo, hi, tb.beats_in, span, tb.beats_in / span, 300 / span)


async def errors(dut, mode, seed):
    """Every drop reason mixed with good traffic; other queues keep flowing."""
    tb, rng, args = await setup(dut, seed, mode, default_queue=0, qrange=(0, 10))
    # 0, 1: normal; 2: empty; 3: disabled; 4: 100-byte buffers; 5: write errors; 6: 5 descriptors;
    # 7: some descriptor fetch errors; 8, 9 in the table become 16, 17: out of range (QM_BAD_IDX)
    for qi in (0, 1):
        tb.post(qi, 2048, 200)
    tb.q[3]["enable"] = False
    tb.post(3, 2048, 10)
    tb.post(4, 100, 200)
    for _ in range(200):
        tb.post(5, 2048, 1, wr_err=rng.random() < 0.5)
    tb.post(6, 2048, 5)
    for _ in range(200):
        tb.post(7, 2048, 1, rd_err=rng.random() < 0.3)
    qcfg = snapshot(tb)
    args["table"] = [q if q < 8 else q + NQ - 8 for q in args["table"]]
    for a, qv in enumerate(args["table"]):
        await FallingEdge(dut.clk)
        tb.set("rss_tbl_wr_en", 1)
        tb.set("rss_tbl_wr_addr", a)
        tb.set("rss_tbl_wr_data", qv)
    await FallingEdge(dut.clk)
    tb.set("rss_tbl_wr_en", 0)
    for _ in range(160):
        ln = rng.choice([60, 64, 90, 100, 101, 200, rng.randint(60, 1514)])
        bad = rng.random() < 0.08
        if rng.random() < 0.03:
            ln = tb.slot_bytes + rng.choice([1, 64, 200])      # oversize
        tb.send(rng.randrange(tb.ports), make_frame(rng, ln), bad)
    ref = await finish(tb, args, qcfg)
    dut._log.info("errors %s: %s", mode, ref.cnt)
    for k in ("pkt", "no_desc", "disabled", "too_long", "oversize", "mac", "dma"):
        assert ref.cnt[k] > 0, f"scenario did not exercise {k}"
    assert tb.q[6]["cons"] == 5, "the limited queue took exactly its descriptors"


@cocotb.test()
async def test_errors_plain(dut):
    await errors(dut, "plain", 11)


@cocotb.test()
async def test_errors_both(dut):
    await errors(dut, "both", 12)


@cocotb.test()
async def test_no_slot(dut):
    """Write engine stalled: SLOTS frames fill the slots, the next are dropped at ingress with the MAC
    never stalled; then the stall lifts and the first SLOTS frames are delivered."""
    tb, rng, args = await setup(dut, 21, "plain")
    for qi in range(8):
        tb.post(qi, 2048, 64)
    qcfg = snapshot(tb)
    tb.throttle = False
    tb.wr_stall = True
    extra = 6
    n = tb.slots + extra
    for i in range(n):
        tb.send(0, make_frame(rng, rng.randint(60, 300)))
    await tb.run(lambda: len(tb.order) == n)
    # engine filled every slot and dropped the rest; the MAC saw tready high on every dropped beat
    assert int(dut.drop_no_slot_count.value) == extra
    # a dropped frame: tready high while its beats were offered (no refused beat after the slots filled)
    first_cycle = tb.cycle
    tb.send(0, make_frame(rng, 1000))
    await tb.run(lambda: len(tb.order) == n + 1)
    assert tb.cycle - first_cycle == (1000 + 63) // 64, "no-slot frame was stalled"
    assert int(dut.drop_no_slot_count.value) == extra + 1
    tb.wr_stall = False
    dropped = set(tb.order[tb.slots:])
    tb.order = [f for f in tb.order if f not in dropped]
    await finish(tb, args, qcfg)
    assert sum(1 for _, v in tb.cpls if decode_cpl(v)["status"] != CPL_UNUSED) == tb.slots


@cocotb.test()
async def test_prefetch_rate(dut):
    """One queue, DMA read latency 200 cycles, frames paced at 100G line rate (size + 20 bytes of
    preamble and gap per frame; 512 bits at 250 MHz): after a warm-up burst the descriptor cache covers
    the read latency, so the burst is taken without drops. Frames/cycle and drops are reported; every
    accepted frame completes OK in ring order."""
    tb, rng, args = await setup(dut, 31, "plain", rss_enable=False, default_queue=1)
    tb.rd_lat = 200
    tb.throttle = False
    tb.count_no_slot = True
    tb.post(1, 2048, 1900)
    res = []
    for size, n in [(64, 300), (64, 400), (256, 300)]:
        tb.pace = (size + 20) / 50.0
        drops0, order0, cpl0 = int(dut.drop_no_slot_count.value), len(tb.order), len(tb.cpls)
        c0 = tb.cycle
        for _ in range(n):
            tb.send(0, make_frame(rng, size - 4))
        await tb.run(lambda: len(tb.order) == order0 + n)
        span = tb.cycle - c0
        await quiesce(tb)
        drops = int(dut.drop_no_slot_count.value) - drops0
        cp = [decode_cpl(v) for _, v in tb.cpls[cpl0:]]
        assert sum(1 for c in cp if c["status"] == CPL_OK) == n - drops
        res.append((size, n, drops, n / span, 50.0 / (size + 20)))
        dut._log.info("prefetch rate %d-byte frames: %d sent in %d cycles (%.3f frames/cycle, line rate %.3f), "
                      "%d dropped for lack of a slot", size, n, span, n / span, 50.0 / (size + 20), drops)
    idx = [c["index"] for c in (decode_cpl(v) for _, v in tb.cpls) if c["status"] == CPL_OK]
    assert idx == sorted(idx) and len(set(idx)) == len(idx), "descriptors not used in ring order"
    if tb.slots >= 32:
        assert res[1][2] == 0 and res[2][2] == 0, f"drops at line rate after warm-up: {res}"


def queue_cpls(tb, qi, start=0):
    """Decoded completions of RX queue qi from tb.cpls[start:]."""
    return [decode_cpl(v) for _, v in tb.cpls[start:] if decode_cpl(v)["queue"] == qi]


@cocotb.test()
async def test_flush(dut):
    """Flush port (a write to an RX queue's configuration): the queue's cached descriptors are discarded,
    never completed. (1) Idle cached queue: no completion follows the flush, another queue's cache is
    untouched, the next frame takes a fresh grant. (2) Flush while the queue's descriptor read is in
    flight: the read lands and is dropped; frames after the flush use fresh grants. (3) Flush together
    with a re-programmed ring (new base, pointers reset, new buffers): every frame after it goes to the
    new ring in order, none to a buffer of the old ring."""
    tb, rng, args = await setup(dut, 41, "plain", rss_enable=False, default_queue=2)
    for qi in (1, 2):
        tb.post(qi, 2048, 300)

    # (1) fill the cache for queues 1 and 2, then flush 2
    for qi in (1, 2):
        tb.set("default_queue", qi)
        for _ in range(5):
            tb.send(0, make_frame(rng, 200))
        await quiesce(tb)
    c1, granted1 = len(queue_cpls(tb, 1)), tb.q[1]["cons"]
    granted = tb.q[2]["cons"]
    assert granted > 5, "no prefetch happened"
    c0 = len(tb.cpls)
    tb.flush_req.append((2, None))
    await quiesce(tb)
    assert len(tb.cpls) == c0, f"completions after a flush: {[decode_cpl(v) for _, v in tb.cpls[c0:]]}"
    tb.send(0, make_frame(rng, 200))
    await quiesce(tb)
    got = queue_cpls(tb, 2, c0)
    assert [(c["status"], c["index"]) for c in got] == [(CPL_OK, granted)], got
    # queue 1 kept its cache: its next frame needs no QM op
    ops = tb.qm_ops
    tb.set("default_queue", 1)
    tb.send(0, make_frame(rng, 200))
    await quiesce(tb)
    assert len(queue_cpls(tb, 1)) == c1 + 1 and tb.q[1]["cons"] == granted1 and tb.qm_ops == ops
    # (2) flush while the descriptor read is in flight
    tb.set("default_queue", 2)
    tb.flush_req.append((2, None))
    await quiesce(tb)
    tb.rd_lat = 150
    c0 = len(tb.cpls)
    for _ in range(4):
        tb.send(0, make_frame(rng, 300))
    await tb.run(lambda: tb.dut.rd_desc_valid.value == 1)
    g0 = tb.q[2]["cons"]
    tb.flush_req.append((2, None))
    await tb.run(lambda: not tb.flush_req)
    for _ in range(4):
        tb.send(0, make_frame(rng, 300))
    await quiesce(tb)
    got = queue_cpls(tb, 2, c0)
    assert [c["status"] for c in got] == [CPL_OK] * 8, got
    assert all(c["index"] >= g0 for c in got), "a descriptor of the flushed read was used"
    # (3) re-program queue 2: new ring and buffers, in the same cycle as the flush
    tb.rd_lat = 1
    old_bufs = {int.from_bytes(tb.host[tb.q[2]["base"] + 16 * i:tb.q[2]["base"] + 16 * i + 8], "little")
                for i in range(300)}
    for _ in range(3):
        tb.send(0, make_frame(rng, 100))
    await tb.run(lambda: not any(tb.sent) and tb.src[0] is None)

    def reprogram():
        tb.q[2].update(base=RING_BASE + 20 * (16 << RING_LOG), prod=0, cons=0)
    tb.flush_req.append((2, reprogram))
    await quiesce(tb)
    tb.post(2, 2048, 20)
    new_bufs = {int.from_bytes(tb.host[tb.q[2]["base"] + 16 * i:tb.q[2]["base"] + 16 * i + 8], "little")
                for i in range(20)}
    c0, w0 = len(tb.cpls), len(tb.wr_log)
    frames = [make_frame(rng, rng.randint(60, 1514)) for _ in range(12)]
    for f in frames:
        tb.send(0, f)
    await quiesce(tb)
    got = queue_cpls(tb, 2, c0)
    assert [(c["status"], c["index"]) for c in got] == [(CPL_OK, i) for i in range(12)], got
    written = set(tb.wr_log[w0:])
    assert not (written & old_bufs), "a frame was written to a buffer of the old ring"
    assert written <= new_bufs
    for c, f in zip(got, frames):
        da = tb.q[2]["base"] + 16 * c["index"]
        ba = int.from_bytes(tb.host[da:da + 8], "little")
        assert bytes(tb.host[ba:ba + len(f)]) == f
    check_desc_reads(tb)


# ---------------------------------------------------------------- failed descriptor reads issued again


def grants(tb, qi):
    """The QM model's grants of queue qi's posted descriptors from its consumer pointer, all posted before
    traffic: [first pointer, count] per grant (RX_DESC_BATCH = 8 wanted, cut at the producer and the ring end)."""
    q, out = tb.q[qi], []
    p = q["cons"]
    while p != q["prod"]:
        n = min(8, (q["prod"] - p) & 0xFFFF, (1 << RING_LOG) - p % (1 << RING_LOG))
        out.append((p, n))
        p = (p + n) & 0xFFFF
    return out


def desc_addr(tb, qi, ptr):
    return tb.q[qi]["base"] + 16 * (ptr % (1 << RING_LOG))


async def desc_retry(dut, mode, seed, kinds):
    """Two queues (the second starts 3 descriptors before its ring end: a short first grant, then the wrap), about
    half of the grants carry transient read faults (one or two descriptors, failing k of `kinds` times: the
    read fails max k times); enough frames to use more than DCACHE_BATCHES batches of a queue, so cache batch
    tags are reused after a retried read. Everything against the reference (a descriptor whose latest read
    failed completes with CPL_DMA_ERR) and check_desc_reads (tries per fetch). Returns (tb, faulted fetches:
    {(queue, first pointer): (pointers, k)} of the grants the engine fetched, frame completions)."""
    tb, rng, args = await setup(dut, seed, mode, default_queue=0, qrange=(0, 2))
    rt = tb.retries
    tb.q[1].update(prod=(1 << RING_LOG) - 3, cons=(1 << RING_LOG) - 3)
    faults = {}
    for qi in (0, 1):
        tb.post(qi, 2048, 240)
        for p, n in grants(tb, qi):
            r = rng.random()
            ks = [rng.choice(kinds)] if r < 0.35 else [rng.choice(kinds) for _ in range(2)] if r < 0.5 else []
            ptrs = [(p + i) & 0xFFFF for i in range(n)]
            for k, ptr in zip(ks, rng.sample(ptrs, min(len(ks), n))):
                tb.flaky(desc_addr(tb, qi, ptr), k)
            if ks:
                faults[(qi, p)] = (ptrs, max(tb.rd_flaky0.get(desc_addr(tb, qi, x), 0) for x in ptrs))
    qcfg = snapshot(tb)
    for _ in range(300):
        tb.send(rng.randrange(tb.ports), make_frame(rng, rng.randint(60, 400)))
    await finish(tb, args, qcfg)
    fetches = check_desc_reads(tb)
    reads = {ch[0]["host"]: len(ch) for ch in fetches}
    fetched = {fk: fv for fk, fv in faults.items() if desc_addr(tb, fk[0], fk[1]) in reads}
    for (qi, p), (ptrs, k) in fetched.items():
        assert reads[desc_addr(tb, qi, p)] == min(k, rt) + 1, f"queue {qi} grant at {p} (fails {k} times)"
    assert len(fetched) >= 10, f"only {len(fetched)} faulty grants fetched"
    assert int(dut.desc_retry_count.value) == sum(min(k, rt) for _, k in fetched.values())
    # a reused cache batch tag carried a retried read before a faulty one
    tags = [ch[0]["tag"] for ch in fetches if len(ch) > 1]
    assert not rt or len(tags) > len(set(tags)), "no cache batch tag retried twice"
    cp = [decode_cpl(v) for _, v in tb.cpls if decode_cpl(v)["status"] != CPL_UNUSED]
    dut._log.info("desc retry %s kinds %s: %d frames, %d faulty grants fetched, %d retries, %d DMA errors",
                  mode, kinds, len(cp), len(fetched), int(dut.desc_retry_count.value), int(dut.dma_err_count.value))
    return tb, fetched, cp


@cocotb.test()
async def test_desc_retry(dut):
    """Descriptor reads failing once or RX_DESC_RETRIES times, no stalls and random idle + backpressure: every
    frame delivered intact (reference), no CPL_DMA_ERR, each faulty grant read min(k, RX_DESC_RETRIES) + 1
    times with the same read, desc_retry_count = the failures. RX_DESC_RETRIES = 0: the first failure is
    final (the frames that get those descriptors complete with CPL_DMA_ERR), no read issued again."""
    for mode, seed in (("plain", 61), ("both", 62)):
        tb, fetched, cp = await desc_retry(dut, mode, seed, [1, max(tb_retries(), 1)])
        if tb.retries:
            assert all(c["status"] == CPL_OK for c in cp), [c for c in cp if c["status"] != CPL_OK][:3]
            assert int(dut.dma_err_count.value) == 0
        else:
            assert int(dut.desc_retry_count.value) == 0 and int(dut.dma_err_count.value) > 0


@cocotb.test()
async def test_desc_retry_exhausted(dut):
    """Descriptor reads failing RX_DESC_RETRIES + 1 times (one descriptor; some grants with a second one failing
    once), random idle + backpressure: the read is issued RX_DESC_RETRIES + 1 times (not once more, when it
    would succeed), then every frame that gets one of that grant's descriptors completes with CPL_DMA_ERR
    (the reference's rule for a failed fetch), every other frame is delivered."""
    rt = tb_retries()
    tb, fetched, cp = await desc_retry(dut, "both", 63, [rt + 1, rt + 1, 1] if rt else [1])
    bad = {(qi, x) for (qi, _), (ptrs, k) in fetched.items() if k > rt for x in ptrs}
    assert bad
    n_err = 0
    for c in cp:
        want = CPL_DMA_ERR if (c["queue"], c["index"]) in bad else CPL_OK
        assert c["status"] == want, f"frame completion {c}: expected status {want}"
        n_err += want == CPL_DMA_ERR
    assert n_err > 0 and int(dut.dma_err_count.value) == n_err


@cocotb.test()
async def test_flush_retry(dut):
    """Flush (queue re-configuration) while a descriptor read fails and is retried: the flush taken while the
    retry waits to be issued (DMA read channel held) or while it is in flight, with a read failing
    RX_DESC_RETRIES times (the retry succeeds) or RX_DESC_RETRIES + 1 times (an error batch): nothing hangs,
    the retries go on as for any batch (check_desc_reads), the flushed batch's descriptors are never completed
    (no CPL_DMA_ERR either), frames before and after the flush take fresh grants in ring order.
    RX_DESC_RETRIES = 0: the first failure is final, the four frames waiting complete with CPL_DMA_ERR before
    the flush, the four after it take fresh grants."""
    tb, rng, args = await setup(dut, 44, "plain", rss_enable=False, default_queue=2)
    rt = tb.retries
    tb.post(2, 2048, 400)
    tb.rd_lat = 40
    for k, hold in [(max(rt, 1), True), (max(rt, 1), False), (rt + 1, True), (rt + 1, False)]:
        tb.flush_req.append((2, None))      # the queue's entry leaves: the next frame fetches at the QM pointer
        await quiesce(tb)
        p = tb.q[2]["cons"]
        tb.flaky(desc_addr(tb, 2, p + rng.randrange(8)), k)
        c0, n0 = len(tb.cpls), len(tb.rd_log)
        for _ in range(4):
            tb.send(0, make_frame(rng, 300))
        await tb.run(lambda: len(tb.rd_log) > n0 and tb.rd_log[n0]["done"] is not None)
        r0 = tb.rd_log[n0]
        assert r0["host"] == desc_addr(tb, 2, p) and r0["err"]
        same = lambda: [r for r in tb.rd_log[n0:] if (r["host"], r["tag"]) == (r0["host"], r0["tag"])]  # noqa: E731
        if not rt:
            # no retry: the failure is final, the waiting frames take the error batch before the flush
            await tb.run(lambda: len(queue_cpls(tb, 2, c0)) == 4)
        if hold:
            tb.rd_block = True
            c1 = tb.cycle
            await tb.run(lambda: tb.cycle >= c1 + 4)
            if rt:
                assert dut.rd_desc_valid.value == 1 and int(dut.rd_desc_host_addr.value) == r0["host"] and \
                    len(same()) == 1, "the retry is not waiting at the flush"
        elif rt:
            await tb.run(lambda: len(same()) == 2)
            assert same()[1]["done"] is None, "the retry is not in flight at the flush"
        g = []
        tb.flush_req.append((2, lambda: g.append(tb.q[2]["cons"])))
        await tb.run(lambda: not tb.flush_req)
        c1 = tb.cycle
        await tb.run(lambda: tb.cycle >= c1 + 4)
        tb.rd_block = False
        for _ in range(4):
            tb.send(0, make_frame(rng, 300))
        await quiesce(tb)
        got = queue_cpls(tb, 2, c0)
        pre = 0 if rt else 4
        assert [(c["status"], c["index"]) for c in got[:pre]] == [(CPL_DMA_ERR, p + i) for i in range(pre)], got
        got = got[pre:]
        assert [c["status"] for c in got] == [CPL_OK] * (8 - pre), got
        idx = [c["index"] for c in got]
        assert idx[0] >= g[0] and idx == list(range(idx[0], idx[0] + 8 - pre)), f"flush at pointer {g[0]}: {idx}"
        assert len(same()) == min(k, rt) + 1
    check_desc_reads(tb)
    assert int(dut.dma_err_count.value) == (0 if rt else 16)


# RX_DESC_RETRIES = 0 (a failed descriptor read is final, the behaviour before retries): the tests with read
# faults only
FAULT_TESTS = ["test_errors_plain", "test_errors_both", "test_flush", "test_desc_retry", "test_desc_retry_exhausted",
               "test_flush_retry"]


@pytest.mark.parametrize("ports,slots,slot_bytes,retries,tests", [(1, 32, 16384, 2, None), (2, 8, 16384, 2, None),
                                                                  (1, 8, 16384, 0, FAULT_TESTS)])
def test_beryl_nic_rx_engine(ports, slots, slot_bytes, retries, tests):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_rx_engine", "rtl/nic/beryl_nic_rx_engine.f", "test_beryl_nic_rx_engine",
                  Path(__file__).parent, testcase=tests,
                  parameters={"PORT_COUNT": ports, "SLOTS": slots, "SLOT_BYTES": slot_bytes,
                              "RX_DESC_RETRIES": retries})
