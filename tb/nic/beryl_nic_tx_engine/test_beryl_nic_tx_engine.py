# SPDX-License-Identifier: MIT
"""beryl_nic_tx_engine: Python models of the TXQ manager (MODE 0 rings in a Python host memory),
the DMA read engine (host memory -> segmented RAM writes, random split into beats, random order
and delay between descriptors, injected errors), a scheduler (one command in flight per queue,
re-issue on SENT/ERROR), per-port sinks and a completion sink with random backpressure.

Expected results come from an obviously-correct model: walk each ring's descriptors into packets
(MORE chains), apply the bad-descriptor rules, concatenate the host buffers and insert the RFC 1071
checksum (Linux CHECKSUM_PARTIAL). Frames are scapy-built (Ether/[Dot1Q]/IP/TCP|UDP) and checksummed
frames are re-verified with scapy. Checked: frames per port (in completion order), completions
(queue, index, port, status, len, CQ) in ring order per queue, one status per command with the
right packet/byte sums, stats and counters. BERYL_LONG=1 sweeps every length 60..1514.

TX timestamps (TS_RET_EN = 1): a port model takes each frame's tag from its first beat and returns
(tag, a random time) after a random delay, in frame order; every completion must carry exactly the
time the model returned for its frame (dropped packets: 0). test_ts_errors leaves returns out, sends
wrong tags and late returns, and checks each frame's outcome and the mismatch / timeout / spurious
counters against the rules of docs/blocks/ptp.md applied to the model's own log.

Failed descriptor reads (docs/blocks/nic_core.md): the DMA model fails reads of poisoned host ranges always
and of flaky ranges the first k times, and logs every descriptor read. The reference (Bench.walk) knows the
QM model's grants (each queue's descriptors are posted before its first command), plays the reads with their
retries (DESC_RETRIES) and walks the rules: error batch, open packet, resync skip. Checked on top: every
descriptor read (a retry is the same read: host address, length, RAM address, tag), desc_retry_count, and
each command's status (result, pkts, bytes).

Failed data reads: a packet walked as good whose data read failed is read again whole, round after round,
up to DATA_RETRIES times (Bench.data_rounds plays the rounds per packet through the same fault model; flaky
data ranges lie inside one packet's buffers, so the interleaving with other packets' reads does not
matter). A failed data read writes a random prefix of garbage into the slot first, as a DMA engine that
got part of the completions would. Checked on top: every data read (each round the same reads as the
first, in descriptor order, only after the round before finished; other packets' buffers read at most
once) and data_retry_count.
"""
import os
import random
import struct
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

from scapy.layers.inet import IP, TCP, UDP, in4_chksum
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from inet_ref import ones_sum  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
MORE, CSUM = 1, 2
QM_OK, QM_EMPTY, QM_DISABLED, QM_BAD_IDX = 0, 1, 2, 3
TXS_SENT, TXS_EMPTY, TXS_DISABLED, TXS_ERROR = 0, 1, 2, 3
CPL_OK, CPL_DMA_ERR, CPL_BAD_DESC = 0, 2, 3
MODES = {"plain": (0.0, 0.0), "idle": (0.4, 0.0), "bp": (0.0, 0.4), "both": (0.4, 0.4)}




def csum_insert(frame, start, off):
    """Reference: ~fold(sum of frame[start:]) written big-endian at start + off; a result of 0 is
    written as 0xffff (RFC 768 for UDP; the same value for TCP and the others)."""
    f = bytearray(frame)
    c = (~ones_sum(bytes(f[start:]))) & 0xFFFF or 0xFFFF
    f[start + off:start + off + 2] = c.to_bytes(2, "big")
    return bytes(f)


def make_frame(rng, length, vlan=None, udp=None):
    """scapy frame of `length` bytes; returns (frame with pseudo-header sum prefilled, l4 off, csum off)."""
    vlan = rng.random() < 0.3 if vlan is None else vlan
    udp = rng.random() < 0.5 if udp is None else udp
    p = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    if vlan:
        p = p / Dot1Q(vlan=rng.randrange(1, 4095))
    p = p / IP(src=f"10.0.{rng.randrange(256)}.{rng.randrange(256)}", dst="10.1.2.3")
    l4 = UDP(sport=rng.randrange(65536), dport=rng.randrange(65536)) if udp else \
        TCP(sport=rng.randrange(65536), dport=rng.randrange(65536), seq=rng.getrandbits(32))
    hdr = len(p / l4)
    pay = bytes(rng.getrandbits(8) for _ in range(max(0, length - hdr)))
    p = p / l4 / Raw(pay)
    raw = bytearray(bytes(p))
    assert len(raw) == length, (len(raw), length)
    l3 = 18 if vlan else 14
    l4off = l3 + 20
    coff = 6 if udp else 16
    # Linux CHECKSUM_PARTIAL: the field holds the folded (not complemented) pseudo-header sum
    l4len = length - l4off
    ph = raw[l3 + 12:l3 + 20] + bytes([0, 17 if udp else 6]) + l4len.to_bytes(2, "big")
    raw[l4off + coff:l4off + coff + 2] = ones_sum(bytes(ph)).to_bytes(2, "big")
    return bytes(raw), l4off, coff


def scapy_csum_ok(frame, l4off, coff):
    """scapy's own checksum of the transmitted L4 segment (field zeroed) against the inserted one."""
    ip = Ether(frame)[IP]
    seg = bytearray(frame[l4off:])
    got = int.from_bytes(seg[coff:coff + 2], "big")
    seg[coff:coff + 2] = b"\0\0"
    ref = in4_chksum(ip.proto, ip, bytes(seg))
    return got == ref or {got, ref} == {0, 0xFFFF}


class Queue:
    def __init__(self, idx, base, log_size, cq, aux, enable=True):
        self.idx, self.base, self.log_size = idx, base, log_size
        self.cq, self.aux, self.enable = cq, aux, enable
        self.prod = self.cons = 0
        self.descs = []         # (ptr, addr, len, flags, cs_start, cs_off) in posting order


class Bench:
    def __init__(self, dut, seed=1, idle=0.0, bp=0.0, dma_delay=0, fast=False, ret_delay=None):
        self.dut = dut
        self.rng = random.Random(seed)
        self.idle, self.bp, self.dma_delay, self.fast = idle, bp, dma_delay, fast
        self.ports = len(dut.m_axis_tx_tvalid)
        self.qi_w = len(dut.tx_cmd_qidx)
        self.tag_w = len(dut.m_axis_tx_tag) // self.ports
        self.ts_ret = int(os.environ.get("PARAM_TS_RET_EN", "1")) == 1
        # TS_RET_ORDERED 0: the model returns times in any order (each after its own random delay)
        self.ts_ordered = int(os.environ.get("PARAM_TS_RET_ORDERED", "1")) == 1
        # timestamp return model: delay of each return, cycles (random 0..ret_delay after the first beat)
        self.ret_delay = (0 if fast else 3 if idle == 0 and bp == 0 else 40) if ret_delay is None else ret_delay
        self.ts_sent = [[] for _ in range(self.ports)]   # per port, per frame on the wire: dict(tag, ts, fate)
        self.ts_pend = [[] for _ in range(self.ports)]   # per port: [due cycle, tag, ts] in frame order
        self.ts_fate = None     # fn(port, frame number) -> "ok" | "drop" | "badtag" | "hold"
        self.ts_fate_q = None   # fn(queue) -> the same, by the frame's queue (overrides ts_fate)
        self.ts_held = [[] for _ in range(self.ports)]   # returns held back ("hold") for release_held()
        self.ts_log = [[] for _ in range(self.ports)]    # per port: (cycle, tag) of every return driven
        self.slot_bytes = int(os.environ.get("PARAM_SLOT_BYTES", "16384"))
        self.max_desc = int(os.environ.get("PARAM_MAX_DESC_PER_PKT", "16"))
        self.seg_addr_w = len(dut.ram_wr_cmd_addr) // 2
        self.mem = bytearray(1 << 22)
        self.brk = 0x1000
        self.queues = {}
        self.poison = []        # host ranges whose DMA reads fail
        # transient faults: [start, end, k]: the first k DMA reads overlapping [start, end) fail, later ones
        # succeed (a range lies inside one ring: the reference counts each queue's reads on their own)
        self.flaky = []
        self.flaky_hits = {}    # the DMA model's reads so far per flaky range (index into self.flaky)
        self.desc_reads = []    # every descriptor fetch the DMA model accepted (tag MSB set), in order
        self.data_reads = []    # every data read the DMA model accepted (tag MSB 0), in order; "done": its status
        self.data_retries = int(os.environ.get("PARAM_DATA_RETRIES", "2"))
        # garbage written by failed data reads: its own generator, so the other tests' random streams stay put
        self.grng = random.Random(f"garbage {seed}")
        self.desc_batch = int(os.environ.get("PARAM_DESC_BATCH", "8"))
        self.retries = int(os.environ.get("PARAM_DESC_RETRIES", "2"))
        self.now = 0
        # QM model
        self.qm_pending = []    # (ready cycle, response dict)
        self.qm_cur = None
        # DMA model
        self.dma_jobs = []      # active: dict(tag, chunks, start)
        self.dma_status = []    # (cycle, tag, err)
        # scheduler
        self.active = set()
        self.inflight = {}
        self.cmd_cur = None
        self.n_cmds = 0
        self.sts = []
        # sinks
        self.rx_cur = [bytearray() for _ in range(self.ports)]
        self.rx = [[] for _ in range(self.ports)]
        self.side_cur = [None] * self.ports     # (qidx, len) sidebands of the frame on the port
        self.rx_side = [[] for _ in range(self.ports)]
        self.cpls = []
        self.stats = []
        self.beats = 0
        self.first_beat = None
        self.last_beat = None
        self.max_cmds = 4

    # ---------------------------------------------------------------- host side
    def alloc(self, n, align=None):
        a = (self.brk + 63) & ~63
        a += self.rng.randrange(64) if align is None else align
        self.brk = a + n + 64
        assert self.brk < len(self.mem)
        return a

    def add_queue(self, idx, log_size, cq, aux, enable=True):
        base = self.alloc(16 << log_size, align=0)
        base = (base + 4095) & ~4095 if (16 << log_size) >= 4096 else \
            (base + (16 << log_size) - 1) & ~((16 << log_size) - 1)
        self.brk = max(self.brk, base + (16 << log_size))
        q = Queue(idx, base, log_size, cq, aux, enable)
        self.queues[idx] = q
        return q

    def post_desc(self, q, addr, length, flags=0, cs_start=0, cs_off=0):
        size = 1 << q.log_size
        assert (q.prod - q.cons) % 65536 < size, "ring full"
        slot = q.prod % size
        self.mem[q.base + 16 * slot:q.base + 16 * slot + 16] = struct.pack(
            "<QIHBB", addr, length, flags, cs_start, cs_off)
        q.descs.append((q.prod, addr, length, flags, cs_start, cs_off))
        q.prod = (q.prod + 1) % 65536

    def post_packet(self, q, frame, pieces=None, csum=None, extra_flags=0):
        """Split `frame` into buffers (random alignment) and post one descriptor per piece."""
        if pieces is None:
            n = self.rng.randint(1, min(4, len(frame)))
            cuts = sorted(self.rng.sample(range(1, len(frame)), n - 1)) if n > 1 else []
            pieces = [b - a for a, b in zip([0] + cuts, cuts + [len(frame)])]
        pos = 0
        for i, n in enumerate(pieces):
            a = self.alloc(max(n, 1))
            self.mem[a:a + n] = frame[pos:pos + n]
            pos += n
            fl = (MORE if i < len(pieces) - 1 else 0) | extra_flags
            cs, co = (0, 0)
            if i == 0 and csum is not None:
                fl |= CSUM
                cs, co = csum
            self.post_desc(q, a, n, fl, cs, co)
        return q.descs[-len(pieces)][0]

    def data_rounds(self, chain):
        """Reference data reads of a packet walked as good: [[error of each read] per round]. Each round reads
        every descriptor in order; a round with a failed read is followed by another, DATA_RETRIES times at
        most. The flaky hits are counted per packet (each flaky data range lies inside one packet's buffers)."""
        hits, rounds = {}, []
        while not rounds or (any(rounds[-1]) and len(rounds) <= self.data_retries):
            rounds.append([self.read_fails(c[1], c[2], hits) for c in chain])
        return rounds

    def packet(self, q, chain):
        """Reference entry of one packet (descriptors `chain`, read and walked): the bad-descriptor rules,
        data DMA errors (data_rounds: the last round failed; a bad packet is never read again), the frame with
        its checksum inserted."""
        cut = bool(chain[-1][3] & MORE)
        total = sum(c[2] for c in chain)
        first = chain[0]
        bad = cut or any(c[2] == 0 for c in chain) or total > self.slot_bytes or \
            len(chain) > self.max_desc or q.aux >= self.ports or \
            (first[3] & CSUM and first[4] + first[5] + 2 > total)
        rounds = [] if bad else self.data_rounds(chain)
        err = bool(rounds) and any(rounds[-1])
        frame = b"".join(bytes(self.mem[c[1]:c[1] + c[2]]) for c in chain)
        if not bad and first[3] & CSUM:
            frame = csum_insert(frame, first[4], first[5])
        st = CPL_BAD_DESC if bad else CPL_DMA_ERR if err else CPL_OK
        return dict(index=first[0], status=st, len=total if st == CPL_OK else 0,
                    port=q.aux, frame=frame, csum=bool(first[3] & CSUM), walk_good=not bad,
                    l4=first[4], coff=first[5], total=total, chain=[] if bad else chain, rounds=rounds)

    def dropped(self, q, desc, status):
        """Reference entry of a completion the walker makes without reading data (fetch error, resync skip)."""
        return dict(index=desc[0], status=status, len=0, port=q.aux, frame=b"", csum=False, walk_good=False,
                    l4=0, coff=0, total=0, chain=[], rounds=[])

    def batches(self, q):
        """The QM model's grants for q's descriptors, all posted before q's first command: from cons, each grant
        (a command's or a continuation's) is min(DESC_BATCH, available, up to the ring end)."""
        size, out, i = 1 << q.log_size, [], 0
        while i < len(q.descs):
            n = min(self.desc_batch, len(q.descs) - i, size - q.descs[i][0] % size)
            out.append((i, n))
            i += n
        return out

    def read_fails(self, a, n, hits):
        """Fault model of one DMA read of host [a, a + n): poison fails every read; a flaky range the first k
        reads that overlap it (`hits` counts the reads per range and is updated)."""
        err = self.poisoned(a, n)
        for k, (s, e, fails) in enumerate(self.flaky):
            if a < e and s < a + n:
                err |= hits.get(k, 0) < fails
                hits[k] = hits.get(k, 0) + 1
        return err

    def fetch_tries(self, q):
        """Reference descriptor reads of q, batch after batch: [(first desc, count, host addr, [error of each
        read])]: a failed read is issued again (same address and length), DESC_RETRIES times at most."""
        size, hits, out = 1 << q.log_size, {}, []
        for i, n in self.batches(q):
            a = q.base + 16 * (q.descs[i][0] % size)
            tries = [self.read_fails(a, 16 * n, hits)]
            while tries[-1] and len(tries) <= self.retries:
                tries.append(self.read_fails(a, 16 * n, hits))
            out.append((i, n, a, tries))
        return out

    def walk(self, q):
        """Reference model of queue q (all its descriptors posted before its first command, all consumed):
        (completions in ring order, commands as (result, pkts, bytes) in order).

        Written from the rules of docs/blocks/nic_core.md ("Failed TX descriptor reads"): packets are MORE
        chains. A batch whose every read failed: the packet open at it completes once with CPL_DMA_ERR at its
        first index (CPL_BAD_DESC if it was bad already), every descriptor of the batch with CPL_DMA_ERR, then
        the walker resyncs: the queue's next descriptors up to and including the first without MORE are one
        skipped packet, never read, CPL_DMA_ERR at its first index (CPL_BAD_DESC if the queue ends inside it).
        A command takes batches until one ends without MORE outside a skip (a failed batch always goes on) or
        the queue is empty; its result: TXS_ERROR if a batch failed or it closed no good packet, else
        TXS_EMPTY if it took the last descriptor, else TXS_SENT; pkts/bytes: good packets the walker closed
        in it. The scheduler then issues one more command (TXS_EMPTY) unless the last one said TXS_EMPTY."""
        d, out, cmds = q.descs, [], []
        pkt, skip = [], False           # the open packet's descriptors; whether it is a resync skip
        cmd = None                      # [failed, pkts, bytes] of the command being walked
        tries = self.fetch_tries(q)
        for bn, (i, n, _, tr) in enumerate(tries):
            if cmd is None:
                cmd = [False, 0, 0]
            if tr[-1]:
                if pkt:
                    ch = [d[j] for j in pkt]
                    bad = not skip and (q.aux >= self.ports or any(c[2] == 0 for c in ch)
                                        or sum(c[2] for c in ch) > self.slot_bytes or len(ch) > self.max_desc)
                    out.append(self.dropped(q, ch[0], CPL_BAD_DESC if bad else CPL_DMA_ERR))
                out += [self.dropped(q, x, CPL_DMA_ERR) for x in d[i:i + n]]
                pkt, skip, cmd[0] = [], True, True
            else:
                for j in range(i, i + n):
                    pkt.append(j)
                    if d[j][3] & MORE:
                        continue
                    if skip:
                        out.append(self.dropped(q, d[pkt[0]], CPL_DMA_ERR))
                    else:
                        out.append(self.packet(q, [d[k] for k in pkt]))
                        if out[-1]["walk_good"]:
                            cmd[1] += 1
                            cmd[2] += out[-1]["total"]
                    pkt, skip = [], False
            last = bn == len(tries) - 1
            if last or (not tr[-1] and not d[i + n - 1][3] & MORE):
                res = TXS_ERROR if cmd[0] or cmd[1] == 0 else TXS_EMPTY if last else TXS_SENT
                cmds.append((res, cmd[1], cmd[2]))
                cmd = None
        if pkt:     # the queue ends inside a packet: the continuation is refused
            out.append(self.dropped(q, d[pkt[0]], CPL_BAD_DESC) if skip else self.packet(q, [d[k] for k in pkt]))
        if not cmds or cmds[-1][0] != TXS_EMPTY:
            cmds.append((TXS_EMPTY, 0, 0))
        return out, cmds

    def expected(self, q):
        """Reference completions of queue q (see walk)."""
        return self.walk(q)[0]

    def desc_faults(self, q):
        """Whether a descriptor read of q can fail (poison or a flaky range on its ring)."""
        a, n = q.base, 16 << q.log_size
        return self.poisoned(a, n) or any(a < e and s < a + n for s, e, _ in self.flaky)

    def poisoned(self, a, n):
        return any(a < pe and ps < a + n for ps, pe in self.poison)

    # ---------------------------------------------------------------- models, one step per cycle
    def qm_accept(self, qidx, want):
        q = self.queues.get(qidx)
        r = dict(qidx=qidx, status=QM_OK, addr=0, ptr=0, count=0, target=0, aux=0, empty=1)
        if q is None:
            r["status"] = QM_BAD_IDX
        elif not q.enable:
            r.update(status=QM_DISABLED, target=q.cq, aux=q.aux)
        else:
            size = 1 << q.log_size
            avail = (q.prod - q.cons) % 65536
            r.update(target=q.cq, aux=q.aux, ptr=q.cons)
            if avail == 0:
                r["status"] = QM_EMPTY
            else:
                n = min(want, avail, size - q.cons % size)
                r.update(count=n, addr=q.base + 16 * (q.cons % size), empty=int(avail == n))
                q.cons = (q.cons + n) % 65536
        return r

    def dma_accept(self, host, ram, length, tag):
        err = self.read_fails(host, length, self.flaky_hits)
        rec = dict(host=host, len=length, ram=ram, tag=tag, err=err, t=self.now, done=None)
        if tag >> (len(self.dut.rd_desc_tag) - 1):
            self.desc_reads.append(rec)
            src, n = bytes(self.mem[host:host + length]), 0 if err else length
        else:
            self.data_reads.append(rec)
            # a failed data read: a random prefix of garbage reaches the slot before the error status
            src = bytes(self.mem[host:host + length]) if not err else \
                bytes(self.grng.getrandbits(8) for _ in range(length))
            n = length if not err else self.grng.choice([0, self.grng.randint(0, length), length])
        chunks = []
        pos = 0
        while pos < n:
            b = ram + pos
            if self.fast:
                end = min(n, (b // 64) * 64 + 128 - ram)
            else:
                end = min(n, pos + self.rng.randint(1, 64))
            chunks.append((b, src[pos:end]))
            pos = end
        delay = self.rng.randint(0, self.dma_delay) if self.dma_delay else 0
        self.dma_jobs.append(dict(tag=tag, chunks=chunks, start=self.now + delay, err=err, rec=rec))

    def ram_write_value(self, b, data):
        """One chunk (touching each segment at most once) -> (addr, be, data, valid) ints."""
        w = self.seg_addr_w
        be = dv = valid = addr = 0
        x, k = b, 0
        while k < len(data):           # one run per 64-byte block (one segment each)
            s, row, lane = (x // 64) % 2, x // 128, x % 64
            n = min(64 - lane, len(data) - k)
            assert not valid >> s & 1, "chunk touches a segment twice"
            valid |= 1 << s
            addr |= row << (s * w)
            be |= ((1 << n) - 1) << (s * 64 + lane)
            dv |= int.from_bytes(data[k:k + n], "little") << (8 * (s * 64 + lane))
            x, k = x + n, k + n
        return addr, be, dv, valid

    async def reset(self):
        d = self.dut
        await FallingEdge(d.clk)
        d.rst.value = 1
        d.tx_cmd_valid.value = 0
        d.tx_cmd_qidx.value = 0
        d.tx_cmd_port.value = 0
        d.op_req_ready.value = 0
        d.op_rsp_valid.value = 0
        for n in ("qidx", "status", "addr", "ptr", "count", "target", "aux", "empty", "phase", "armed",
                  "log_size"):
            getattr(d, f"op_rsp_{n}").value = 0
        d.rd_desc_ready.value = 0
        d.rd_desc_status_valid.value = 0
        d.rd_desc_status_tag.value = 0
        d.rd_desc_status_error.value = 0
        d.ram_wr_cmd_valid.value = 0
        d.ram_wr_cmd_addr.value = 0
        d.ram_wr_cmd_be.value = 0
        d.ram_wr_cmd_data.value = 0
        d.m_axis_tx_tready.value = 0
        d.cpl_ready.value = 0
        d.s_tx_ts_valid.value = 0
        d.s_tx_ts_tag.value = 0
        d.s_tx_ts.value = 0
        d.ts_timeout.value = 0
        await ClockCycles(d.clk, 4)
        d.rst.value = 0
        await ClockCycles(d.clk, 2)

    def schedule(self, qidxs):
        for q in qidxs:
            self.active.add(q)

    async def run(self, done, limit=400000):
        d, rng = self.dut, self.rng
        ports = self.ports
        full = (1 << ports) - 1
        wr = None
        ram_busy = False
        while not done(self):
            await FallingEdge(d.clk)
            self.now += 1
            assert self.now < limit, "bench timed out"
            # scheduler: one command in flight per queue
            if self.cmd_cur is None and len(self.inflight) < self.max_cmds and rng.random() >= self.idle:
                cand = sorted(q for q in self.active if q not in self.inflight)
                if cand:
                    q = rng.choice(cand)
                    port = self.queues[q].aux % ports if q in self.queues else 0
                    self.cmd_cur = (q, port)
                    d.tx_cmd_qidx.value = q
                    d.tx_cmd_port.value = port
            d.tx_cmd_valid.value = int(self.cmd_cur is not None)
            # QM
            d.op_req_ready.value = int(rng.random() >= self.bp)
            if self.qm_cur is None and self.qm_pending and self.qm_pending[0][0] <= self.now:
                self.qm_cur = self.qm_pending.pop(0)[1]
                for k, v in self.qm_cur.items():
                    getattr(d, f"op_rsp_{k}").value = v
            d.op_rsp_valid.value = int(self.qm_cur is not None)
            # DMA: descriptors, RAM writes, statuses
            d.rd_desc_ready.value = int(rng.random() >= self.bp)
            if not ram_busy:
                ready = [j for j in self.dma_jobs if j["start"] <= self.now]
                wr = None
                if ready and rng.random() >= self.idle:
                    j = ready[0] if self.fast else rng.choice(ready)
                    if j["chunks"]:
                        wr = (j, j["chunks"].pop(0))
                        a, be, dv, v = self.ram_write_value(*wr[1])
                        d.ram_wr_cmd_addr.value = a
                        d.ram_wr_cmd_be.value = be
                        d.ram_wr_cmd_data.value = dv
                        d.ram_wr_cmd_valid.value = v
                    if not j["chunks"]:
                        self.dma_jobs.remove(j)
                        dl = rng.randint(0, self.dma_delay) if self.dma_delay else 0
                        self.dma_status.append((self.now + 1 + dl, j["tag"], j["err"], j["rec"]))
                        self.dma_status.sort(key=lambda x: x[0])
                if wr is None:
                    d.ram_wr_cmd_valid.value = 0
            st = None
            if self.dma_status and self.dma_status[0][0] <= self.now:
                st = self.dma_status.pop(0)
                st[3]["done"] = self.now
                d.rd_desc_status_tag.value = st[1]
                d.rd_desc_status_error.value = 4 if st[2] else 0
            d.rd_desc_status_valid.value = int(st is not None)
            # sinks
            tready = 0
            for p in range(ports):
                if rng.random() >= self.bp:
                    tready |= 1 << p
            d.m_axis_tx_tready.value = tready if self.bp else full
            d.cpl_ready.value = int(rng.random() >= self.bp)
            # timestamp returns: at most one per port and cycle, in frame order
            tv_ret = tag_ret = ts_ret = 0
            for p in range(ports):
                if self.ts_pend[p] and self.ts_pend[p][0][0] <= self.now:
                    _, tag, ts = self.ts_pend[p].pop(0)
                    tv_ret |= 1 << p
                    tag_ret |= tag << (self.tag_w * p)
                    ts_ret |= ts << (64 * p)
                    self.ts_log[p].append((self.now, tag))
            d.s_tx_ts_valid.value = tv_ret
            d.s_tx_ts_tag.value = tag_ret
            d.s_tx_ts.value = ts_ret
            await ReadOnly()
            # ---- sample
            if self.cmd_cur is not None and d.tx_cmd_ready.value == 1:
                self.inflight[self.cmd_cur[0]] = self.cmd_cur[1]
                self.n_cmds += 1
                self.cmd_cur = None
            if d.op_req_valid.value == 1 and d.op_req_ready.value == 1:
                r = self.qm_accept(int(d.op_req_qidx.value), int(d.op_req_count.value))
                self.qm_pending.append((self.now + (1 if self.dma_delay == 0 else rng.randint(1, 4)), r))
            if self.qm_cur is not None and d.op_rsp_ready.value == 1:
                self.qm_cur = None
            if d.rd_desc_valid.value == 1 and d.rd_desc_ready.value == 1:
                self.dma_accept(int(d.rd_desc_host_addr.value), int(d.rd_desc_ram_addr.value),
                                int(d.rd_desc_len.value), int(d.rd_desc_tag.value))
            ram_busy = wr is not None and int(d.ram_wr_cmd_ready.value) != 3
            tv = int(d.m_axis_tx_tvalid.value)
            if tv:
                tr = int(d.m_axis_tx_tready.value)
                assert tv & (tv - 1) == 0, "two ports valid at once"
                if tv & tr:
                    p = tv.bit_length() - 1
                    k = (int(d.m_axis_tx_tkeep.value) >> (64 * p)) & ((1 << 64) - 1)
                    n = k.bit_length()
                    assert k == (1 << n) - 1, "tkeep not contiguous"
                    last = (int(d.m_axis_tx_tlast.value) >> p) & 1
                    assert last or n == 64, "partial beat before the last"
                    data = (int(d.m_axis_tx_tdata.value) >> (512 * p)) & ((1 << 512) - 1)
                    self.rx_cur[p] += data.to_bytes(64, "little")[:n]
                    side = ((int(d.m_axis_tx_qidx.value) >> (self.qi_w * p)) & ((1 << self.qi_w) - 1),
                            (int(d.m_axis_tx_len.value) >> (16 * p)) & 0xFFFF)
                    side += ((int(d.m_axis_tx_tag.value) >> (self.tag_w * p)) & ((1 << self.tag_w) - 1),)
                    if self.side_cur[p] is None:
                        self.side_cur[p] = side
                        self.ts_first_beat(p, side[2], side[0])
                    assert side == self.side_cur[p], f"port {p}: len/qidx/tag changed inside a frame"
                    self.beats += 1
                    if self.first_beat is None:
                        self.first_beat = self.now
                    self.last_beat = self.now
                    if last:
                        self.rx[p].append(bytes(self.rx_cur[p]))
                        self.rx_side[p].append(self.side_cur[p][:2])
                        self.side_cur[p] = None
                        self.rx_cur[p] = bytearray()
            if d.cpl_valid.value == 1 and d.cpl_ready.value == 1:
                c = int(d.cpl_data.value)
                self.cpls.append(dict(cq=int(d.cpl_qidx.value), queue=c & 0xFFFF, index=(c >> 16) & 0xFFFF,
                                      port=(c >> 32) & 0xFF, status=(c >> 40) & 0xFF,
                                      len=(c >> 112) & 0xFFFF, ts=(c >> 128) & ((1 << 64) - 1),
                                      rest=c & ~((1 << 48) - 1 | (0xFFFF << 112) | ((1 << 64) - 1) << 128),
                                      t=self.now))
            if d.stat_valid.value == 1:
                self.stats.append((int(d.stat_qidx.value), int(d.stat_bytes.value), int(d.stat_drop.value)))
            if d.tx_sts_valid.value == 1:
                q = int(d.tx_sts_qidx.value)
                s = dict(q=q, port=int(d.tx_sts_port.value), result=int(d.tx_sts_result.value),
                         pkts=int(d.tx_sts_pkts.value), bytes=int(d.tx_sts_bytes.value), t=self.now)
                self.sts.append(s)
                assert q in self.inflight, f"status for queue {q} without a command"
                assert s["port"] == self.inflight.pop(q)
                if s["result"] in (TXS_EMPTY, TXS_DISABLED):
                    self.active.discard(q)

    def ts_first_beat(self, p, tag, qidx):
        """The port model saw a frame's first beat with `tag`: plan its return (in frame order)."""
        n = len(self.ts_sent[p])
        fate = self.ts_fate(p, n) if self.ts_fate else "ok"
        if self.ts_fate_q:
            fate = self.ts_fate_q(qidx)
        ts = self.rng.getrandbits(64) | 1
        self.ts_sent[p].append(dict(tag=tag, ts=ts, fate=fate, t=self.now, q=qidx))
        if not self.ts_ret or fate == "drop":
            return
        if fate == "hold":
            self.ts_held[p].append((tag, ts))
            return
        if fate == "badtag":    # a tag far from every frame that can be waiting
            tag = (tag + (1 << self.tag_w) // 2) % (1 << self.tag_w)
        due = self.now + 1 + self.rng.randint(0, self.ret_delay)
        if self.ts_ordered:
            last = self.ts_pend[p][-1][0] if self.ts_pend[p] else self.now
            self.ts_pend[p].append([max(last + 1, due), tag, ts])
        else:           # sorted by due cycle; one return per cycle, so later ones slip
            self.ts_pend[p].append([due, tag, ts])
            self.ts_pend[p].sort(key=lambda x: x[0])

    def release_held(self):
        for p in range(self.ports):
            for tag, ts in self.ts_held[p]:
                last = self.ts_pend[p][-1][0] if self.ts_pend[p] else self.now
                self.ts_pend[p].append([max(last + 1, self.now + 1), tag, ts])
            self.ts_held[p] = []

    def sent_of(self, p, oks):
        """The port model's record (frame number, entry) of each OK completion of port p. In order builds the
        port's completions come in wire order; unordered builds release them out of order, each queue's in
        ring order, so a completion is the next frame on the wire of its own queue."""
        if self.ts_ordered:
            return list(enumerate(self.ts_sent[p]))
        by_q = {}
        for i, e in enumerate(self.ts_sent[p]):
            by_q.setdefault(e["q"], []).append((i, e))
        return [by_q[c["queue"]].pop(0) for c in oks]

    def check_ts(self, expect=None):
        """Every OK completion carries the time planned for its frame (the port's frames in completion
        order = wire order, per queue in unordered builds); others 0. `expect(port, frame number, entry)`
        overrides the time expected."""
        for p in range(self.ports):
            oks = [c for c in self.cpls if c["status"] == CPL_OK and c["port"] == p]
            assert len(oks) == len(self.ts_sent[p]), f"port {p}: {len(oks)} OK completions, {len(self.ts_sent[p])} frames"
            for c, (i, e) in zip(oks, self.sent_of(p, oks)):
                want = expect(p, i, e) if expect else e["ts"]
                if not self.ts_ret:
                    want = 0        # the engine's own stamp: ptp_ts is 0 in this bench
                assert c["ts"] == want, f"port {p} frame {i}: timestamp {c['ts']:#x}, expected {want:#x}"
        for c in self.cpls:
            if c["status"] != CPL_OK:
                assert c["ts"] == 0, f"dropped packet with timestamp {c['ts']:#x}"

    def ts_counts(self):
        d = self.dut
        get = lambda sig, p: (int(sig.value) >> (32 * p)) & 0xFFFFFFFF  # noqa: E731
        return [(get(d.port_ts_mismatch_count, p), get(d.port_ts_timeout_count, p),
                 get(d.port_ts_spurious_count, p)) for p in range(self.ports)]

    def idle_done(self, n_cpl):
        return lambda b: (not b.active and not b.inflight and b.cmd_cur is None
                          and len(b.cpls) >= n_cpl)

    async def finish(self):
        """Run on a while so that stray extra outputs would show up in the checks."""
        stop = self.now + 40
        await self.run(lambda b: b.now >= stop)

    def check(self, qs, fetch_err=None, ts=True, upfront=True):
        """Compare everything against the reference model of queues `qs` (walk). `upfront`: each queue's
        descriptors were all posted before its first command, so the QM grants (batch boundaries), every
        descriptor read and every command status are known exactly; False (posted in rounds): only the status
        sums are checked and no descriptor read may fail. `fetch_err`: {queue: [index]}, the test's own list of
        that queue's completions (each CPL_DMA_ERR), compared with the model's."""
        fetch_err = fetch_err or {}
        if ts:
            self.check_ts()
            assert self.ts_counts() == [(0, 0, 0)] * self.ports, f"timestamp counters {self.ts_counts()}"
        exp = {q.idx: self.walk(q) for q in qs}
        by_q = {}
        for c in self.cpls:
            by_q.setdefault(c["queue"], []).append(c)
            assert c["rest"] == 0, "reserved completion bits set"
        for q in qs:
            got = by_q.get(q.idx, [])
            e, cmds = exp[q.idx]
            if q.idx in fetch_err:
                assert [(x["index"], x["status"]) for x in e] == [(i, CPL_DMA_ERR) for i in fetch_err[q.idx]], \
                    f"queue {q.idx}: the reference model disagrees with the test's list"
            assert len(got) == len(e), f"queue {q.idx}: {len(got)} completions, expected {len(e)}"
            for g, x in zip(got, e):
                assert (g["index"], g["status"], g["len"], g["port"], g["cq"]) == \
                    (x["index"], x["status"], x["len"], x["port"], q.cq), f"queue {q.idx}: {g} vs {x}"
            sts = [s for s in self.sts if s["q"] == q.idx]
            assert sum(s["pkts"] for s in sts) == sum(x["walk_good"] for x in e), f"queue {q.idx} sts pkts"
            assert sum(s["bytes"] for s in sts) == sum(x["total"] for x in e if x["walk_good"]), \
                f"queue {q.idx} sts bytes"
            if q.enable:
                assert sts and sts[-1]["result"] == TXS_EMPTY
                if upfront:
                    assert [(s["result"], s["pkts"], s["bytes"]) for s in sts] == cmds, \
                        f"queue {q.idx}: command statuses {[(s['result'], s['pkts'], s['bytes']) for s in sts]}"
        self.check_desc_reads(qs, upfront)
        self.check_data_reads(qs, exp)
        # frames per port, in completion order (unordered builds: per queue of the port, in completion order)
        okc = {(x_q.idx, x["index"]): x for x_q in qs for x in exp[x_q.idx][0] if x["status"] == CPL_OK}
        for p in range(self.ports):
            cp = [c for c in self.cpls if c["status"] == CPL_OK and c["port"] == p]
            want = [okc[(c["queue"], c["index"])]["frame"] for c in cp]
            assert len(self.rx[p]) == len(want), f"port {p}: {len(self.rx[p])} frames, expected {len(want)}"
            got, got_side = self.rx[p], self.rx_side[p]
            if not self.ts_ordered:     # the wire order of each queue's frames, in its completions' order
                order = [i for i, _ in sorted(enumerate(got_side), key=lambda x: (x[1][0], x[0]))]
                cpo = [i for i, _ in sorted(enumerate(cp), key=lambda x: (x[1]["queue"], x[0]))]
                got, got_side = [None] * len(got), [None] * len(got)
                for i, j in zip(cpo, order):
                    got[i], got_side[i] = self.rx[p][j], self.rx_side[p][j]
            for i, (g, w) in enumerate(zip(got, want)):
                assert g == w, f"port {p} frame {i} differs (len {len(g)} vs {len(w)})"
            # the len/qidx sidebands of every frame: its length and the queue of its completion
            want_side = [(c["queue"], len(okc[(c["queue"], c["index"])]["frame"])) for c in cp]
            assert got_side == want_side, f"port {p}: frame len/qidx sidebands"
        for c in self.cpls:
            x = okc[(c["queue"], c["index"])] if (c["queue"], c["index"]) in okc else None
            if c["status"] == CPL_OK and x["csum"] and x["frame"][12:14] in (b"\x08\x00", b"\x81\x00"):
                assert scapy_csum_ok(x["frame"], x["l4"], x["coff"]), "scapy rejects the checksum"
        # one status per command
        assert len(self.sts) == self.n_cmds
        # stats and counters
        d = self.dut
        ok = [c for c in self.cpls if c["status"] == CPL_OK]
        assert len(self.stats) == len(self.cpls)
        assert sorted(self.stats) == sorted((c["queue"], c["len"], int(c["status"] != CPL_OK))
                                            for c in self.cpls)
        assert int(d.pkt_count.value) == len(ok)
        assert int(d.byte_count.value) == sum(c["len"] for c in ok) % (1 << 32)
        assert int(d.bad_desc_count.value) == sum(c["status"] == CPL_BAD_DESC for c in self.cpls)
        assert int(d.dma_err_count.value) == sum(c["status"] == CPL_DMA_ERR for c in self.cpls)
        for p in range(self.ports):
            pp = [c for c in ok if c["port"] == p]
            assert (int(d.port_pkt_count.value) >> (32 * p)) & 0xFFFFFFFF == len(pp)
            assert (int(d.port_byte_count.value) >> (32 * p)) & 0xFFFFFFFF == sum(c["len"] for c in pp)
            bad = [c for c in self.cpls if c["status"] != CPL_OK and c["port"] == p]
            assert (int(d.port_drop_count.value) >> (32 * p)) & 0xFFFFFFFF == len(bad), f"port {p} drops"


    def check_desc_reads(self, qs, upfront=True):
        """Every descriptor read the DMA model saw, per queue, against the reference (fetch_tries): the same
        host address and length for each try of a batch, and a retry also to the same RAM address with the
        same tag; desc_retry_count = the retries. No read outside the rings of `qs`."""
        n_rty = n_rd = 0
        for q in qs:
            lo, hi = q.base, q.base + (16 << q.log_size)
            got = [r for r in self.desc_reads if lo <= r["host"] < hi]
            n_rd += len(got)
            if not upfront:
                assert not self.desc_faults(q) and not any(r["err"] for r in got)
                continue
            tries = self.fetch_tries(q) if q.enable else []
            want = [(a, 16 * n, e) for _, n, a, tr in tries for e in tr]
            assert [(r["host"], r["len"], r["err"]) for r in got] == want, \
                f"queue {q.idx}: descriptor reads {[(hex(r['host']), r['len'], r['err']) for r in got]}"
            k = 0
            for _, _, _, tr in tries:
                rs = got[k:k + len(tr)]
                k += len(tr)
                assert len({(r["ram"], r["tag"]) for r in rs}) == 1, \
                    f"queue {q.idx}: a retry went to another RAM address or tag: {rs}"
                n_rty += len(tr) - 1
        assert n_rd == len(self.desc_reads), "descriptor reads outside the checked queues' rings"
        assert int(self.dut.desc_retry_count.value) == n_rty, \
            f"desc_retry_count {int(self.dut.desc_retry_count.value)}, expected {n_rty}"


    def check_data_reads(self, qs, exp):
        """Every data read the DMA model saw against the reference (data_rounds). A packet walked as good: round
        after round its descriptors in order, each round the same reads as the first (host address, length,
        RAM address = slot base + running offset, tag = slot), a round issued only after every read of the one
        before has its status, the error of each read as the fault model says. Every other packet's
        descriptors (bad, cut by a failed fetch): read at most once (never again). data_retry_count = rounds
        beyond the first. No read outside the buffers of `qs`."""
        for i, r in enumerate(self.data_reads):
            r["seq"] = i
        by_host = {}
        for r in self.data_reads:
            by_host.setdefault(r["host"], []).append(r)
        bufs = [(c[1], c[2]) for q in qs for c in q.descs if c[2]]
        assert len({a for a, _ in bufs}) == len(bufs), "bench: two descriptors share a buffer"
        blen = dict(bufs)
        for h, rs in by_host.items():
            assert h in blen and all(r["len"] == blen[h] for r in rs), \
                f"data read of {hex(h)} (len {rs[0]['len']}): no descriptor of the checked queues"
        n_rr, seen = 0, set()
        for q in qs:
            for x in exp[q.idx][0]:
                ch, rounds = x["chain"], x["rounds"]
                if not ch:
                    continue
                seen |= {c[1] for c in ch}
                n_rr += len(rounds) - 1
                nd = len(ch)
                got = sorted((r for c in ch for r in by_host.get(c[1], [])), key=lambda r: r["seq"])
                where = f"queue {q.idx} packet {x['index']}"
                assert len(got) == nd * len(rounds), \
                    f"{where}: {len(got)} data reads, expected {len(rounds)} rounds of {nd}"
                r0 = got[:nd]
                slot = r0[0]["tag"]
                assert not slot >> (len(self.dut.rd_desc_tag) - 1), f"{where}: data read with a descriptor tag"
                off = 0
                for r, c in zip(r0, ch):
                    assert (r["host"], r["len"], r["ram"], r["tag"]) == (c[1], c[2], slot * self.slot_bytes + off,
                                                                         slot), f"{where}: data read {r}"
                    off += c[2]
                for k, want in enumerate(rounds):
                    rk = got[k * nd:(k + 1) * nd]
                    assert [(r["host"], r["len"], r["ram"], r["tag"]) for r in rk] == \
                        [(r["host"], r["len"], r["ram"], r["tag"]) for r in r0], \
                        f"{where}: round {k} reads {[(hex(r['host']), r['len'], r['ram'], r['tag']) for r in rk]}"
                    assert [r["err"] for r in rk] == want, f"{where}: round {k} errors"
                    if k:
                        prev = got[(k - 1) * nd:k * nd]
                        assert all(r["done"] is not None for r in prev) and \
                            rk[0]["t"] > max(r["done"] for r in prev), \
                            f"{where}: round {k} issued before round {k - 1} finished"
        for h, rs in by_host.items():
            if h not in seen:
                assert len(rs) == 1, f"buffer {hex(h)} of a packet not walked as good read {len(rs)} times"
        assert int(self.dut.data_retry_count.value) == n_rr, \
            f"data_retry_count {int(self.dut.data_retry_count.value)}, expected {n_rr}"


def lens_fast(rng):
    return list(range(60, 1515)) if LONG else sorted(rng.sample(range(60, 1515), 150))


def post_random(tb, q):
    """A scapy frame (checksum offload half the time) or, 1 in 5, raw bytes (not IPv4: scapy is not
    asked about them) with a random checksum start (odd too; or next to a 64-byte segment boundary,
    where the checksum tap switches between zeroing the bytes before the start and taking the
    segment whole) and offset (straddling beats)."""
    rng = tb.rng
    if rng.random() < 0.2:
        cs = rng.choice([rng.randrange(34), max(0, 64 * rng.randrange(4) + rng.choice([-1, 0, 1]))])
        n = rng.randint(max(60, cs + 3), 1514)
        fr = bytes(rng.getrandbits(8) for _ in range(n))
        fr = fr[:12] + b"\x88\xb5" + fr[14:]   # local experimental ethertype
        co = rng.choice([63 - cs, 64 - cs, 127 - cs, rng.randrange(256)])
        co = max(0, min(co, 255, n - cs - 2))
        tb.post_packet(q, fr, csum=(cs, co))
    else:
        fr, l4, co = make_frame(rng, rng.randint(60, 1514))
        tb.post_packet(q, fr, csum=(l4, co) if rng.random() < 0.5 else None)


STREAMER_FLOPS = ["s_act_q", "s_beat_q", "s1_valid_q", "f_cnt_q", "f_wr_q", "f_rd_q", "s_mid_q", "p_tx_q"]


async def streamer_gate(dut, st):
    """The streamer's own clock gate (u_gate_s): in every cycle it was open, one of the streamer's
    pointers, counters or state flops moved (a gate open for nothing costs a C++ model the block's code;
    a gate closed when one had to move the packet checks find). Also counts the beats that left while
    the engine's main gate was closed: what the split is for."""
    prev = prev_en = None
    while True:
        await FallingEdge(dut.clk)
        await ReadOnly()
        snap = tuple(int(getattr(dut, n).value) for n in STREAMER_FLOPS)
        if prev_en:
            st["open"] += 1
            st["open_unmoved"] += snap == prev
        # (a reset opens the gate whether or not the flops hold their reset values already)
        prev, prev_en = snap, int(dut.u_gate_s.gate_en_now.value) and not int(dut.rst.value)
        if int(dut.m_axis_tx_tvalid.value) & int(dut.m_axis_tx_tready.value):
            st["beats"] += 1
            st["beats_main_closed"] += int(dut.u_gate.gate_en_now.value) == 0


@cocotb.test()
async def test_traffic(dut):
    """Many queues interleaved, scatter-gather, checksum, small rings (wraps and continuations)."""
    Clock(dut.clk, 4, unit="ns").start()
    st = {"open": 0, "open_unmoved": 0, "beats": 0, "beats_main_closed": 0}
    cocotb.start_soon(streamer_gate(dut, st))
    for mode, (idle, bp) in MODES.items():
        tb = Bench(dut, seed=beryl_seed.seed(list(MODES).index(mode) + 1, f"test_traffic {mode}"), idle=idle, bp=bp,
                   dma_delay=0 if mode == "plain" else 12)
        await tb.reset()
        qs = []
        for i in range(6):
            q = tb.add_queue(i * 3 + 1, tb.rng.choice([3, 4, 6]), cq=100 + i, aux=i % tb.ports)
            qs.append(q)
        for q in qs:
            for _ in range(tb.rng.randint(3, 9)):
                if (q.prod - q.cons) % 65536 + 4 > (1 << q.log_size):
                    break
                post_random(tb, q)
        tb.schedule(q.idx for q in qs)
        n = sum(len(tb.expected(q)) for q in qs)
        await tb.run(tb.idle_done(n))
        # second round on the same rings (pointers continue, rings wrap)
        for q in qs:
            for _ in range(tb.rng.randint(2, 6)):
                if (q.prod - q.cons) % 65536 + 4 > (1 << q.log_size):
                    break
                post_random(tb, q)
        tb.schedule(q.idx for q in qs)
        n = sum(len(tb.expected(q)) for q in qs)
        await tb.run(tb.idle_done(n))
        await tb.finish()
        tb.check(qs, upfront=False)
        dut._log.info("traffic %s: %d packets, %d cycles", mode, n, tb.now)
    dut._log.info("streamer gate: %s", st)
    assert st["open"] > 0 and st["open_unmoved"] == 0, st
    assert st["beats_main_closed"] > 0, st


@cocotb.test()
async def test_lengths(dut):
    """Length sweep 60..1514 (subset unless BERYL_LONG=1) plus jumbo 9014, checksum on half."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(7, "test_lengths"), fast=True)
    await tb.reset()
    rng = tb.rng
    lens = lens_fast(rng) + [9014, 9014]
    q = tb.add_queue(5, 12, cq=9, aux=0)
    for i, n in enumerate(lens):
        fr, l4, co = make_frame(rng, n, udp=bool(i % 2))
        tb.post_packet(q, fr, pieces=None if i % 3 else [n], csum=(l4, co) if i % 2 == 0 else None)
    tb.schedule([q.idx])
    await tb.run(tb.idle_done(len(lens)), limit=2_000_000)
    await tb.finish()
    tb.check([q])
    dut._log.info("lengths: %d frames, %d cycles", len(lens), tb.now)


@cocotb.test()
async def test_csum_start_boundaries(dut):
    """Checksum starts on and next to every 64-byte segment boundary of the first 256 bytes, in raw
    frames DMAed in whole aligned 128-byte rows (the checksum tap takes a segment whole when all its
    bytes count and zeroes the others byte by byte first; the frames compare with Python's
    ones'-complement sum);
    then the largest start and offset (255 + 255 + 2 = 512: a bad descriptor in a 511-byte packet)."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(23, "test_csum_start_boundaries"), fast=True)
    await tb.reset()
    rng = tb.rng
    q = tb.add_queue(6, 10, cq=10, aux=0)
    starts = [c for b in (0, 64, 128, 192) for c in (b - 1, b, b + 1) if c >= 0] + [255]
    n_pkts = 0
    for cs in starts:
        for _ in range(2):
            n = rng.randint(cs + 64, 1514)
            fr = bytearray(rng.randbytes(n))
            fr[12:14] = b"\x88\xb5"
            a = tb.alloc(n, align=0)          # aligned: the slot's rows arrive whole
            tb.mem[a:a + n] = fr
            tb.post_desc(q, a, n, CSUM, cs, rng.randrange(min(256, n - cs - 1)))
            n_pkts += 1
    # the largest start and offset: the field ends at byte 512 (in a 511-byte packet: a bad descriptor)
    for n in (511, 512, 600):
        fr = bytearray(rng.randbytes(n))
        fr[12:14] = b"\x88\xb5"
        a = tb.alloc(n, align=0)
        tb.mem[a:a + n] = fr
        tb.post_desc(q, a, n, CSUM, 255, 255)
        n_pkts += 1
    tb.schedule([q.idx])
    await tb.run(tb.idle_done(n_pkts), limit=500_000)
    await tb.finish()
    tb.check([q])


@cocotb.test()
async def test_bad_desc(dut):
    """len 0, too long, too many descriptors, checksum field beyond the packet, bad port, a chain
    cut short at an empty queue, and a long chain completed through continuation fetches."""
    Clock(dut.clk, 4, unit="ns").start()
    for mode in ("plain", "both"):
        idle, bp = MODES[mode]
        tb = Bench(dut, seed=beryl_seed.seed(11, f"test_bad_desc {mode}"), idle=idle, bp=bp,
                   dma_delay=0 if mode == "plain" else 8)
        await tb.reset()
        rng = tb.rng
        qa = tb.add_queue(2, 6, cq=3, aux=tb.ports - 1)
        qb = tb.add_queue(3, 5, cq=4, aux=0)
        qp = tb.add_queue(4, 4, cq=5, aux=7)          # port out of range
        good = lambda: make_frame(rng, rng.randint(60, 1514))[0]  # noqa: E731
        tb.post_packet(qa, good())
        tb.post_packet(qa, good(), pieces=None)
        # zero-length descriptor inside a chain
        f = good()
        tb.post_packet(qa, f, pieces=[30, 0, len(f) - 30])
        tb.post_packet(qa, good())
        # too long: 2 x 9000 > 16384
        tb.post_packet(qa, bytes(18000), pieces=[9000, 9000])
        # exactly MAX_DESC descriptors (good, crosses batches) and MAX_DESC + 1 (bad)
        tb.post_packet(qa, bytes(rng.getrandbits(8) for _ in range(64 * tb.max_desc)), pieces=[64] * tb.max_desc)
        tb.post_packet(qa, bytes(64 * (tb.max_desc + 1)), pieces=[64] * (tb.max_desc + 1))
        # checksum field beyond the packet
        fr, l4, co = make_frame(rng, 80)
        tb.post_packet(qa, fr, csum=(70, 9))
        fr, l4, co = make_frame(rng, 100)
        tb.post_packet(qa, fr, csum=(l4, co))
        tb.post_packet(qb, good())
        # cut short: MORE on the last descriptor posted
        f = good()
        tb.post_packet(qb, f, pieces=[20, len(f) - 20], extra_flags=MORE)
        tb.post_packet(qp, good())
        tb.post_packet(qp, good())
        qs = [qa, qb, qp]
        tb.schedule(q.idx for q in qs)
        n = sum(len(tb.expected(q)) for q in qs)
        await tb.run(tb.idle_done(n))
        await tb.finish()
        tb.check(qs)
        assert int(dut.bad_desc_count.value) == 7


@cocotb.test()
async def test_zero_checksum(dut):
    """Frames whose checksum computes to 0 (UDP and TCP): the field is written 0xffff (RFC 768: 0 would
    mean "no UDP checksum"; for TCP 0xffff is the same ones'-complement value); scapy accepts them."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(17, "test_zero_checksum"))
    await tb.reset()
    rng = tb.rng
    q = tb.add_queue(5, 5, cq=6, aux=0)
    posted = []
    for i in range(8):
        fr, l4, co = make_frame(rng, rng.randint(60, 1514), udp=i % 2 == 0)
        # set one payload word (even offset from the L4 start) so that the L4 sum is 0xffff
        w = l4 + 20 + 2 * rng.randrange((len(fr) - l4 - 20) // 2)
        f = bytearray(fr)
        f[w:w + 2] = b"\0\0"
        f[w:w + 2] = ((~ones_sum(bytes(f[l4:]))) & 0xFFFF).to_bytes(2, "big")
        assert (~ones_sum(bytes(f[l4:]))) & 0xFFFF == 0
        posted.append((l4, co))
        tb.post_packet(q, bytes(f), csum=(l4, co))
    tb.schedule([q.idx])
    n = len(tb.expected(q))
    await tb.run(tb.idle_done(n))
    await tb.finish()
    tb.check([q])
    for x, (l4, co) in zip(tb.expected(q), posted):
        assert x["frame"][l4 + co:l4 + co + 2] == b"\xff\xff"
        assert scapy_csum_ok(x["frame"], l4, co)


@cocotb.test()
async def test_dma_errors(dut):
    """A data DMA error that every re-read round repeats (DATA_RETRIES + 1 rounds, check_data_reads) drops that
    packet (CPL_DMA_ERR); a descriptor fetch error completes every descriptor of the batch with CPL_DMA_ERR and
    returns TXS_ERROR."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(13, "test_dma_errors"), dma_delay=6)
    await tb.reset()
    rng = tb.rng
    qa = tb.add_queue(8, 6, cq=1, aux=0)
    for i in range(12):
        fr = make_frame(rng, rng.randint(60, 1514))[0]
        tb.post_packet(qa, fr)
        if i in (2, 7, 8):
            a, n = qa.descs[-1][1], qa.descs[-1][2]
            tb.poison.append((a, a + max(n, 1)))
    qf = tb.add_queue(9, 4, cq=2, aux=0)
    for i in range(5):
        tb.post_packet(qf, make_frame(rng, 100)[0], pieces=[100])
    tb.poison.append((qf.base, qf.base + 16 * 16))
    # continuation fetch fails: a 4-descriptor packet at ring slots 6, 7 | 0, 1 of an 8-entry ring;
    # the open packet completes with CPL_DMA_ERR, then each descriptor of the failed batch
    qc = tb.add_queue(10, 3, cq=3, aux=0)
    qc.prod = qc.cons = 6
    tb.post_packet(qc, make_frame(rng, 400)[0], pieces=[100] * 4)
    tb.poison.append((qc.base, qc.base + 32))
    tb.schedule([qa.idx, qf.idx, qc.idx])
    await tb.run(tb.idle_done(12 + 5 + 3))
    await tb.finish()
    tb.check([qa, qf, qc], fetch_err={qf.idx: [x[0] for x in qf.descs], qc.idx: [6, 8, 9]})
    for q in (qf, qc):
        res = [s["result"] for s in tb.sts if s["q"] == q.idx]
        assert res[-1] == TXS_EMPTY and len(res) >= 2 and set(res[:-1]) == {TXS_ERROR}, res
    assert int(dut.dma_err_count.value) == 3 + 5 + 3


# ---------------------------------------------------------------- failed descriptor reads: retry and resync


def post_chain(tb, q, nd, more_last=False, csum=None):
    """One random frame in `nd` descriptors (random split, checksum offload half the time or as `csum` says);
    `more_last`: MORE on its last descriptor too (a packet the driver has not finished posting). Returns its
    first index."""
    rng = tb.rng
    fr, l4, co = make_frame(rng, rng.randint(max(60, nd), 1514))
    cuts = sorted(rng.sample(range(1, len(fr)), nd - 1))
    pieces = [b - a for a, b in zip([0] + cuts, cuts + [len(fr)])]
    if csum is None:
        csum = rng.random() < 0.5
    return tb.post_packet(q, fr, pieces=pieces, csum=(l4, co) if csum else None,
                          extra_flags=MORE if more_last else 0)


def ring_log(n):
    """log2 of a ring that holds n descriptors."""
    return max(4, n.bit_length())


def batch_fault(tb, q, k, fails=None):
    """The read of q's descriptor batch k (the QM model's grants) fails: always (fails None: poison) or the
    first `fails` times. Returns the batch's (first, last + 1) ring pointers."""
    i, n = tb.batches(q)[k]
    a = q.base + 16 * (q.descs[i][0] % (1 << q.log_size))
    if fails is None:
        tb.poison.append((a, a + 16 * n))
    else:
        tb.flaky.append([a, a + 16 * n, fails])
    return q.descs[i][0], q.descs[i][0] + n


def packets_of(q):
    """(first, last) ring pointer of each posted packet of q."""
    out, first = [], None
    for x in q.descs:
        first = x[0] if first is None else first
        if not x[3] & MORE:
            out.append((first, x[0]))
            first = None
    return out


def one_cut(q, lo, hi):
    """The rule for one failed batch [lo, hi) written out directly (the test's own list, checked against walk):
    packets that end before it are sent; the one open at it completes with CPL_DMA_ERR at its first index;
    each descriptor of the batch with CPL_DMA_ERR; the packet holding descriptor hi (the first after the batch,
    whole if the batch ended on a packet boundary) once with CPL_DMA_ERR at hi; the later ones are sent."""
    want = []
    for f, la in packets_of(q):
        if la < lo:
            want.append((f, CPL_OK))
        elif f < lo:
            want.append((f, CPL_DMA_ERR))
    want += [(i, CPL_DMA_ERR) for i in range(lo, hi)]
    want += [(hi, CPL_DMA_ERR) for f, la in packets_of(q) if f <= hi <= la]
    want += [(f, CPL_OK) for f, la in packets_of(q) if f > hi]
    return want


def cpl_list(tb, q):
    return [(x["index"], x["status"]) for x in tb.expected(q)]


@cocotb.test()
async def test_desc_retry(dut):
    """A descriptor batch read that fails, then succeeds within DESC_RETRIES retries, costs nothing: every packet
    is sent intact, desc_retry_count counts the retries, each retry is the same read (host address, length,
    RAM address, tag: check_desc_reads). A read failing DESC_RETRIES + 1 times makes an error batch (and a
    resync whose own read succeeds on its last retry); a retry counter not reset for the resync read, one retry
    too many or too few, or a retry that never stops all show."""
    Clock(dut.clk, 4, unit="ns").start()
    for mode in ("plain", "both"):
        idle, bp = MODES[mode]
        tb = Bench(dut, seed=beryl_seed.seed(51, f"test_desc_retry {mode}"), idle=idle, bp=bp,
                   dma_delay=0 if mode == "plain" else 8)
        await tb.reset()
        rng, nb, rt = tb.rng, tb.desc_batch, tb.retries
        # queue A: random 1..4-descriptor packets; batch 1 fails once, batch 3 DESC_RETRIES times
        qa = tb.add_queue(70, ring_log(5 * nb + 4), cq=13, aux=0)
        while len(qa.descs) < 5 * nb:
            post_chain(tb, qa, rng.randint(1, 4))
        batch_fault(tb, qa, 1, 1)
        if rt > 1:
            batch_fault(tb, qa, 3, rt)
        # queue B: 3-descriptor packets; batch 1 fails DESC_RETRIES + 1 times (error batch), then the resync
        # read of batch 2 (the same batch slot) DESC_RETRIES times
        qb = tb.add_queue(71, ring_log(5 * nb + 3), cq=14, aux=tb.ports - 1)
        while len(qb.descs) < 5 * nb:
            post_chain(tb, qb, 3)
        lo, hi = batch_fault(tb, qb, 1, rt + 1)
        batch_fault(tb, qb, 2, rt)
        # queue C: no faults, in parallel
        qc = tb.add_queue(72, 6, cq=15, aux=0)
        for _ in range(8):
            post_random(tb, qc)
        qs = [qa, qb, qc]
        assert cpl_list(tb, qb) == one_cut(qb, lo, hi)
        if rt >= 1:
            assert all(st == CPL_OK for _, st in cpl_list(tb, qa)), "reference: queue A loses nothing"
        tb.schedule(q.idx for q in qs)
        await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
        await tb.finish()
        tb.check(qs)
        assert int(dut.desc_retry_count.value) == min(1, rt) + (rt if rt > 1 else 0) + 2 * rt
        assert int(dut.dma_err_count.value) == sum(st == CPL_DMA_ERR for _, st in one_cut(qb, lo, hi)) + \
            (0 if rt >= 1 else sum(st == CPL_DMA_ERR for _, st in cpl_list(tb, qa)))
        # a retry re-reads the same batch: the tries of a batch slot's read follow each other on its tag
        errs = [r for r in tb.desc_reads if r["err"]]
        assert len(errs) == (1 + (rt if rt > 1 else 0)) + 2 * rt + 1


@cocotb.test()
async def test_desc_resync(dut):
    """A batch read that always fails in the middle of multi-descriptor packets with more posted after it:
    the open packet completes with CPL_DMA_ERR at its first index, each descriptor of the batch with
    CPL_DMA_ERR, the rest of the packet the batch cut is skipped (one CPL_DMA_ERR at its first descriptor
    after the batch, never read, nothing sent), the packets after it are sent byte for byte. The old engine
    sent that rest (descriptors 16, 17 of 3-descriptor packets, DESC_BATCH 8) as a frame of its own.
    A second queue starts near its ring's end: the failed batch is the short grant that stops at the ring
    end, and the resync reads from slot 0."""
    Clock(dut.clk, 4, unit="ns").start()
    for mode in ("plain", "both"):
        idle, bp = MODES[mode]
        tb = Bench(dut, seed=beryl_seed.seed(52, f"test_desc_resync {mode}"), idle=idle, bp=bp,
                   dma_delay=0 if mode == "plain" else 8)
        await tb.reset()
        nb = tb.desc_batch
        qa = tb.add_queue(73, ring_log(5 * nb + 3), cq=16, aux=0)
        while len(qa.descs) < 5 * nb:
            post_chain(tb, qa, 3)
        lo_a, hi_a = batch_fault(tb, qa, 1)
        # ring of 32: batch 0 ends 3 slots before the ring end, batch 1 is those 3 slots
        qw = tb.add_queue(74, 5, cq=17, aux=tb.ports - 1)
        qw.prod = qw.cons = 32 - nb - 3
        for _ in range(8):
            post_chain(tb, qw, 3)
        assert tb.batches(qw)[1][1] == 3
        lo_w, hi_w = batch_fault(tb, qw, 1)
        qn = tb.add_queue(75, 6, cq=18, aux=0)
        for _ in range(8):
            post_random(tb, qn)
        qs = [qa, qw, qn]
        assert cpl_list(tb, qa) == one_cut(qa, lo_a, hi_a)
        assert cpl_list(tb, qw) == one_cut(qw, lo_w, hi_w)
        if nb == 8:     # the example of docs/blocks/nic_core.md
            assert cpl_list(tb, qa)[:13] == [(0, CPL_OK), (3, CPL_OK), (6, CPL_DMA_ERR)] + \
                [(i, CPL_DMA_ERR) for i in range(8, 17)] + [(18, CPL_OK)]
        tb.schedule(q.idx for q in qs)
        await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
        await tb.finish()
        tb.check(qs)
        n_ok = sum(st == CPL_OK for q in qs for _, st in cpl_list(tb, q))
        assert sum(len(r) for r in tb.rx) == n_ok, "a frame on the wire that is no posted packet"


@cocotb.test()
async def test_desc_resync_boundary(dut):
    """A failed batch that ends on a packet boundary: the resync cannot know it, so the next whole packet is
    skipped (CPL_DMA_ERR at its own first index, never sent) and the ones after it are sent. Packets of
    DESC_BATCH / 2 descriptors, and single-descriptor packets (the skip is one descriptor)."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(53, "test_desc_resync_boundary"), dma_delay=4)
    await tb.reset()
    nb = tb.desc_batch
    qa = tb.add_queue(76, ring_log(5 * nb), cq=19, aux=0)
    while len(qa.descs) < 4 * nb:
        post_chain(tb, qa, max(1, nb // 2))
    lo_a, hi_a = batch_fault(tb, qa, 1)
    qb = tb.add_queue(77, ring_log(5 * nb), cq=20, aux=tb.ports - 1)
    for _ in range(4 * nb):
        post_chain(tb, qb, 1)
    lo_b, hi_b = batch_fault(tb, qb, 2)
    assert cpl_list(tb, qa) == one_cut(qa, lo_a, hi_a)
    assert cpl_list(tb, qb) == one_cut(qb, lo_b, hi_b)
    assert (hi_a, CPL_DMA_ERR) in cpl_list(tb, qa) and (hi_a + max(1, nb // 2), CPL_OK) in cpl_list(tb, qa)
    assert cpl_list(tb, qb)[3 * nb - 1:3 * nb + 2] == [(3 * nb - 1, CPL_DMA_ERR), (3 * nb, CPL_DMA_ERR),
                                                       (3 * nb + 1, CPL_OK)]
    qs = [qa, qb]
    tb.schedule(q.idx for q in qs)
    await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
    await tb.finish()
    tb.check(qs)


@cocotb.test()
async def test_desc_resync_long(dut):
    """Resync across several grants and resync reads that fail:
    A: the cut packet goes on 2 DESC_BATCH + 1 descriptors past the failed batch: two more continuations
       while skipping, one CPL_DMA_ERR for the whole run;
    B: the skip is still open when the next batch read fails too: the skipped run completes with CPL_DMA_ERR,
       then that batch's descriptors, then another resync (on a packet boundary for DESC_BATCH 8: a whole packet skipped);
    C: the queue ends inside the skipped run (the driver posted a partial packet): the refused continuation
       closes it with CPL_BAD_DESC."""
    Clock(dut.clk, 4, unit="ns").start()
    for mode in ("both",):
        idle, bp = MODES[mode]
        tb = Bench(dut, seed=beryl_seed.seed(54, f"test_desc_resync_long {mode}"), idle=idle, bp=bp, dma_delay=8)
        await tb.reset()
        nb = tb.desc_batch
        OK, E, BAD = CPL_OK, CPL_DMA_ERR, CPL_BAD_DESC
        qa = tb.add_queue(78, ring_log(4 * nb + 6), cq=21, aux=0)
        for _ in range(2 * nb - 1):
            post_chain(tb, qa, 1)
        post_chain(tb, qa, 2 * nb + 2)         # 2nb - 1 .. 4nb
        for _ in range(4):
            post_chain(tb, qa, 1)
        batch_fault(tb, qa, 1)
        assert cpl_list(tb, qa) == [(i, OK) for i in range(nb)] + [(i, E) for i in range(nb, 2 * nb + 1)] + \
            [(i, OK) for i in range(4 * nb + 1, 4 * nb + 5)]
        qb = tb.add_queue(79, ring_log(4 * nb + 12), cq=22, aux=tb.ports - 1)
        for _ in range(2 * nb - 1):
            post_chain(tb, qb, 1)
        post_chain(tb, qb, nb + 3)             # 2nb - 1 .. 3nb + 1
        while len(qb.descs) < 4 * nb + 6:
            post_chain(tb, qb, 3)
        batch_fault(tb, qb, 1)
        batch_fault(tb, qb, 3)
        s4 = [f for f, la in packets_of(qb) if f <= 4 * nb <= la][0]
        assert cpl_list(tb, qb) == [(i, OK) for i in range(nb)] + [(i, E) for i in range(nb, 2 * nb + 1)] + \
            [(i, E) for i in range(3 * nb, 4 * nb + 1)] + [(f, OK) for f, _ in packets_of(qb) if f > s4]
        qc = tb.add_queue(80, ring_log(2 * nb + 2), cq=23, aux=0)
        for _ in range(2 * nb - 1):
            post_chain(tb, qc, 1)
        post_chain(tb, qc, 3, more_last=True)  # 2nb - 1 .. 2nb + 1, MORE on the last
        batch_fault(tb, qc, 1)
        assert cpl_list(tb, qc) == [(i, OK) for i in range(nb)] + [(i, E) for i in range(nb, 2 * nb)] + \
            [(2 * nb, BAD)]
        qs = [qa, qb, qc]
        tb.schedule(q.idx for q in qs)
        await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
        await tb.finish()
        tb.check(qs)


async def random_queues_run(tb, qidx, cq, post, faults=lambda q: None):
    """Four queues (qidx.., completion queues cq..) whose rings start at a random pointer (so they wrap), each
    filled to 40 descriptors by post(q) (one packet a call) and then given faults(q); run until all of them
    completed and check everything against the reference. Returns the completions' statuses."""
    qs = []
    for k in range(4):
        q = tb.add_queue(qidx + k, 6, cq=cq + k, aux=k % tb.ports)
        q.prod = q.cons = tb.rng.randrange(64)
        while len(q.descs) < 40:
            post(q)
        faults(q)
        qs.append(q)
    tb.schedule(q.idx for q in qs)
    await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
    await tb.finish()
    tb.check(qs)
    return [st for q in qs for _, st in cpl_list(tb, q)]


@cocotb.test()
async def test_desc_faults_random(dut):
    """Random packets (1..5 descriptors, some longer than a batch), rings that wrap, random descriptor-read
    faults per batch (none, failing 1..DESC_RETRIES + 1 times, always), four queues at once, random idle and
    backpressure: everything against the reference model (walk)."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(55, "test_desc_faults_random"), idle=0.3, bp=0.3, dma_delay=10)
    await tb.reset()
    rng, nb = tb.rng, tb.desc_batch

    def post(q):
        post_chain(tb, q, rng.choice([1, 1, 2, 3, 5, nb + 1]) if len(q.descs) < 34 else 1)

    def faults(q):
        for b in range(1, len(tb.batches(q))):
            r = rng.random()
            if r < 0.25:
                batch_fault(tb, q, b)
            elif r < 0.5:
                batch_fault(tb, q, b, rng.randint(1, tb.retries + 1))

    sts = await random_queues_run(tb, 81, 24, post, faults)
    dut._log.info("desc faults random: %d completions, %d DMA_ERR, %d retries", len(sts), sts.count(CPL_DMA_ERR),
                  int(dut.desc_retry_count.value))
    assert sts.count(CPL_DMA_ERR) > 10 and sts.count(CPL_OK) > 20
    assert tb.retries == 0 or int(dut.desc_retry_count.value) > 4



# ---------------------------------------------------------------- failed data reads: the packet read again


def data_fault(tb, desc, fails=None):
    """The data reads of descriptor `desc` (its whole buffer) fail: always (fails None: poison) or the first
    `fails` times."""
    a, n = desc[1], max(desc[2], 1)
    if fails is None:
        tb.poison.append((a, a + n))
    else:
        tb.flaky.append([a, a + n, fails])


def entry_of(tb, q, first):
    return [x for x in tb.expected(q) if x["index"] == first][0]


@cocotb.test()
async def test_data_retry(dut):
    """Packets of 1..5 descriptors whose data read fails once, DATA_RETRIES times (one descriptor, or the
    first once and the last DATA_RETRIES times: every descriptor is read again each round), DATA_RETRIES + 1
    times and always: the first two are sent intact after 1 + fails rounds (checksum offload on half of them,
    checked with scapy: a failed read leaves garbage in the slot and the sum must start afresh), the others
    complete with CPL_DMA_ERR after DATA_RETRIES + 1 rounds of reads of every descriptor. data_retry_count
    exact; a packet made bad by its checksum field is not read again despite its failed read (CPL_BAD_DESC)."""
    Clock(dut.clk, 4, unit="ns").start()
    for mode in ("plain", "both"):
        idle, bp = MODES[mode]
        tb = Bench(dut, seed=beryl_seed.seed(56, f"test_data_retry {mode}"), idle=idle, bp=bp,
                   dma_delay=0 if mode == "plain" else 8)
        await tb.reset()
        rng, rt = tb.rng, tb.data_retries
        qa = tb.add_queue(90, 7, cq=30, aux=0)
        qb = tb.add_queue(91, 7, cq=31, aux=tb.ports - 1)
        want = {}       # (queue, first index) -> (status, rounds, descriptors)
        i = 0
        for nd in range(1, 6):
            for kind in ("once", "limit", "spread", "over", "poison"):
                if kind == "spread" and nd == 1:
                    continue
                q = (qa, qb)[i % 2]
                first = post_chain(tb, q, nd, csum=(i // 2) % 2 == 0)
                ch = q.descs[-nd:]
                k = {"once": 1, "limit": max(rt, 1), "spread": max(rt, 1), "over": rt + 1, "poison": 99}[kind]
                if kind == "spread":
                    data_fault(tb, ch[0], 1)
                    data_fault(tb, ch[-1], k)
                else:
                    data_fault(tb, rng.choice(ch), None if kind == "poison" else k)
                want[(q.idx, first)] = (CPL_OK if k <= rt else CPL_DMA_ERR, min(k, rt) + 1, nd)
                post_random(tb, q)      # a clean packet between
                i += 1
        # bad (checksum field beyond the packet) with a failed data read: never read again
        fr = make_frame(rng, 80)[0]
        fb = tb.post_packet(qa, fr, pieces=[40, 40], csum=(70, 9))
        data_fault(tb, qa.descs[-1], 1)
        qs = [qa, qb]
        for (qi, first), (st, nr, nd) in want.items():
            x = entry_of(tb, tb.queues[qi], first)
            assert (x["status"], len(x["rounds"])) == (st, nr), f"reference: queue {qi} packet {first}: {x}"
        assert entry_of(tb, qa, fb)["status"] == CPL_BAD_DESC
        assert not rt or any(st == CPL_OK and nr > 1 and nd > 1 and entry_of(tb, tb.queues[qi], f)["csum"]
                             for (qi, f), (st, nr, nd) in want.items())
        tb.schedule(q.idx for q in qs)
        await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
        await tb.finish()
        tb.check(qs)
        assert int(dut.data_retry_count.value) == sum(nr - 1 for _, nr, _ in want.values())
        for (qi, first), (st, nr, nd) in want.items():
            if st == CPL_DMA_ERR:       # every descriptor read DATA_RETRIES + 1 times
                hosts = {c[1] for c in entry_of(tb, tb.queues[qi], first)["chain"]}
                assert sum(r["host"] in hosts for r in tb.data_reads) == (rt + 1) * nd
        assert sum(r["host"] == qa.descs[-1][1] for r in tb.data_reads) == 1
        n_err = sum(st == CPL_DMA_ERR for st, _, _ in want.values())
        assert int(dut.dma_err_count.value) == n_err and int(dut.bad_desc_count.value) == 1


@cocotb.test()
async def test_data_faults_random(dut):
    """Random packets (1..5 descriptors, checksum offload half the time) on four queues whose rings wrap, random
    data-read faults (none, failing 1..DATA_RETRIES + 1 times, on one or two descriptors of a packet) and a few
    permanent ones, many packets in flight, random idle and backpressure: everything against the reference."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(57, "test_data_faults_random"), idle=0.3, bp=0.3, dma_delay=10)
    await tb.reset()
    rng, rt = tb.rng, tb.data_retries

    def post(q):
        nd = rng.choice([1, 1, 2, 3, 5]) if len(q.descs) < 35 else 1
        post_chain(tb, q, nd)
        ch, r = q.descs[-nd:], rng.random()
        if r < 0.35:
            data_fault(tb, rng.choice(ch), rng.randint(1, rt + 1))
        elif r < 0.45 and nd > 1:
            a, b = rng.sample(ch, 2)
            data_fault(tb, a, rng.randint(1, rt + 1))
            data_fault(tb, b, rng.randint(1, rt + 1))
        elif r < 0.5:
            data_fault(tb, rng.choice(ch))

    sts = await random_queues_run(tb, 95, 34, post)
    dut._log.info("data faults random: %d completions, %d DMA_ERR, %d data retries", len(sts),
                  sts.count(CPL_DMA_ERR), int(dut.data_retry_count.value))
    assert sts.count(CPL_DMA_ERR) >= 4 and sts.count(CPL_OK) > (40 if rt else 20)  # the mix is not degenerate
    assert rt == 0 or int(dut.data_retry_count.value) > 15


@cocotb.test()
async def test_data_desc_faults(dut):
    """Both retry mechanisms at once. 3-descriptor packets: batch 1's read fails once (retried), batch 3's
    always (error batch, resync), data reads failing in the packets around them: the packet holding batch 1's
    first descriptor (retried fetch) is read again and sent; the packet open at the failed batch (its first
    descriptor's read, issued before the batch failed, failed too) and the packet the resync skips (faults on
    its buffers) complete with CPL_DMA_ERR without a read again (the skipped one never read at all); the
    packet after the resync fails DATA_RETRIES times and is sent. A second queue of 1-descriptor packets whose
    batch reads fail DESC_RETRIES times and whose data reads fail at random, in parallel."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(58, "test_data_desc_faults"), idle=0.3, bp=0.3, dma_delay=8)
    await tb.reset()
    rng, nb, rt = tb.rng, tb.desc_batch, tb.data_retries
    qa = tb.add_queue(100, ring_log(5 * nb + 3), cq=40, aux=0)
    post_chain(tb, qa, 1)               # the 3-descriptor packets start at 1 mod 3: one is open at 3 DESC_BATCH
    while len(qa.descs) < 5 * nb:
        post_chain(tb, qa, 3)
    pk = packets_of(qa)
    pkt_at = lambda i: [(f, la) for f, la in pk if f <= i <= la][0]  # noqa: E731
    desc = lambda i: qa.descs[i - qa.descs[0][0]]  # noqa: E731
    batch_fault(tb, qa, 1, 1)
    lo, hi = batch_fault(tb, qa, 3)
    f1, _ = pkt_at(nb)                  # holds batch 1's first descriptor
    data_fault(tb, desc(f1), 1)
    fc, _ = pkt_at(lo)                  # open at the failed batch
    fs, ls = pkt_at(hi)                 # skipped by the resync
    fn = ls + 1                         # the first packet after the resync
    assert fc < lo
    data_fault(tb, desc(fc), 1)         # read (before the failed batch), fails, and is not read again
    for i in range(hi, ls + 1):
        data_fault(tb, desc(i), 1)
    data_fault(tb, desc(fn + 1), max(rt, 1))
    qb = tb.add_queue(101, ring_log(4 * nb), cq=41, aux=tb.ports - 1)
    for _ in range(3 * nb):
        post_chain(tb, qb, 1)
        if rng.random() < 0.4:
            data_fault(tb, qb.descs[-1], rng.randint(1, rt + 1))
    for b in range(1, len(tb.batches(qb)), 2):
        batch_fault(tb, qb, b, max(1, tb.retries))
    qs = [qa, qb]
    e = {x["index"]: x for x in tb.expected(qa)}
    if rt and tb.retries:
        assert (e[f1]["status"], len(e[f1]["rounds"])) == (CPL_OK, 2)
    assert e[fc]["status"] == CPL_DMA_ERR and not e[fc]["chain"]
    assert e[hi]["status"] == CPL_DMA_ERR and not e[hi]["chain"]
    assert e[fn]["status"] == (CPL_OK if rt else CPL_DMA_ERR) and len(e[fn]["rounds"]) == rt + 1
    tb.schedule(q.idx for q in qs)
    await tb.run(tb.idle_done(sum(len(tb.expected(q)) for q in qs)))
    await tb.finish()
    tb.check(qs)
    assert not any(r["host"] in {desc(i)[1] for i in range(hi, ls + 1)} for r in tb.data_reads), \
        "the skipped packet was read"
    if tb.retries:      # (DESC_RETRIES 0: batch 1 fails too, and its resync may skip packet fc)
        assert sum(r["host"] == desc(fc)[1] for r in tb.data_reads) == 1
    dut._log.info("data+desc faults: %d data retries, %d desc retries", int(dut.data_retry_count.value),
                  int(dut.desc_retry_count.value))


@cocotb.test()
async def test_empty_disabled(dut):
    """Disabled, empty and out-of-range queues: status TXS_DISABLED / TXS_EMPTY within a few cycles,
    without blocking a busy queue."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(17, "test_empty_disabled"))
    await tb.reset()
    qd = tb.add_queue(20, 4, cq=1, aux=0, enable=False)
    qe = tb.add_queue(21, 4, cq=1, aux=0)
    qg = tb.add_queue(22, 6, cq=1, aux=0)
    for _ in range(20):
        tb.post_packet(qg, make_frame(tb.rng, 1514)[0])
    tb.post_packet(qd, make_frame(tb.rng, 200)[0])
    tb.schedule([qg.idx, qd.idx, qe.idx, 4000])
    await tb.run(tb.idle_done(20))
    await tb.finish()
    res = {s["q"]: s["result"] for s in tb.sts if s["q"] != qg.idx}
    assert res == {qd.idx: TXS_DISABLED, qe.idx: TXS_EMPTY, 4000: TXS_DISABLED}, res
    for s in tb.sts:
        if s["q"] != qg.idx:
            assert s["t"] < 60, f"status for queue {s['q']} took {s['t']} cycles"
    qd.descs = []   # never consumed
    tb.check([qg, qe])


@cocotb.test()
async def test_perf(dut):
    """Zero-delay models, no backpressure: 1514-byte frames should stream near 1 beat/cycle."""
    Clock(dut.clk, 4, unit="ns").start()
    tb = Bench(dut, seed=beryl_seed.seed(19, "test_perf"), fast=True)
    await tb.reset()
    qs = [tb.add_queue(30 + i, 8, cq=1, aux=i % tb.ports) for i in range(2)]
    fr = make_frame(tb.rng, 1514)[0]
    for q in qs:
        for _ in range(60):
            tb.post_packet(q, fr, pieces=[1514])
    tb.schedule(q.idx for q in qs)
    await tb.run(tb.idle_done(120))
    await tb.finish()
    tb.check(qs)
    rate = tb.beats / (tb.last_beat - tb.first_beat + 1)
    dut._log.info("perf: %d beats in %d cycles = %.3f beats/cycle", tb.beats,
                  tb.last_beat - tb.first_beat + 1, rate)
    print(f"PERF beats/cycle = {rate:.3f}")
    assert rate > 0.85


def ts_queues(tb, per_port):
    """One queue per port with `per_port` random frames each (no checksum; post_packet splits each frame
    into 1..4 descriptors). The ring holds every frame's descriptors at the worst split: 4 x 24 frames of
    test_ts_errors, or 4 x 20 where it posts 14 more; a 64-entry ring held them only on lucky seeds."""
    qs = []
    for p in range(tb.ports):
        q = tb.add_queue(40 + p, 7, cq=7 + p, aux=p)
        for _ in range(per_port):
            tb.post_packet(q, make_frame(tb.rng, tb.rng.randint(60, 1514))[0], pieces=None)
        qs.append(q)
    return qs


@cocotb.test()
async def test_ts_errors(dut):
    """Timestamp return faults, each with its defined outcome and counter (docs/blocks/ptp.md):
    a return left out or sent with a wrong tag (the frame completes with 0 when the next frame's time
    comes: mismatch; the wrong tag is dropped: spurious), no return at all (timeout, and the late
    returns afterwards name no waiting frame: spurious), and a port whose returns are held back
    does not hold back the other port's completions."""
    if int(os.environ.get("PARAM_TS_RET_EN", "1")) != 1:
        return
    Clock(dut.clk, 4, unit="ns").start()
    n = 24
    for mode in ("plain", "both"):
        idle, bp = MODES[mode]
        # 1: returns left out and wrong tags, never two frames in a row (a 2-deep wait FIFO holds two
        # frames without their times: the next frame, whose return resolves them, could not leave), and a
        # timeout far beyond the frame spacing. Unordered returns: only the timeout (short) resolves them.
        tb = Bench(dut, seed=beryl_seed.seed(31, f"test_ts_errors {mode} 1"), idle=idle, bp=bp, dma_delay=8)
        await tb.reset()
        dut.ts_timeout.value = 50000 if tb.ts_ordered else 300
        qs = ts_queues(tb, n)
        tb.ts_fate = lambda p, i: ("ok" if i == n - 1 else "drop" if i % 6 == 2 + 2 * p  # noqa: E731
                                   else "badtag" if i % 6 == 4 - 2 * p else "ok")
        tb.schedule(q.idx for q in qs)
        await tb.run(tb.idle_done(n * tb.ports))
        await tb.finish()
        tb.check(qs, ts=False)
        tb.check_ts(lambda p, i, e: e["ts"] if e["fate"] == "ok" else 0)
        for p in range(tb.ports):
            fates = [e["fate"] for e in tb.ts_sent[p]]
            lost = fates.count("drop") + fates.count("badtag")
            want = (lost, 0, fates.count("badtag")) if tb.ts_ordered else (0, lost, fates.count("badtag"))
            assert tb.ts_counts()[p] == want, f"{mode} port {p}: counters {tb.ts_counts()[p]}, expected {want}"
            assert lost >= 6 and want[2] >= 3
        # 2: no returns within the timeout: every frame completes with 0, one timeout each, no earlier
        # than `timeout` cycles after its first beat; the late returns then count as spurious
        tmo = 100
        tb = Bench(dut, seed=beryl_seed.seed(32, f"test_ts_errors {mode} 2"), idle=idle, bp=bp, dma_delay=8)
        await tb.reset()
        dut.ts_timeout.value = tmo
        qs = ts_queues(tb, 6)
        tb.ts_fate = lambda p, i: "hold"  # noqa: E731
        tb.schedule(q.idx for q in qs)
        await tb.run(tb.idle_done(6 * tb.ports))
        await tb.finish()
        tb.check(qs, ts=False)
        tb.check_ts(lambda p, i, e: 0)
        for c in tb.cpls:
            e = tb.ts_sent[c["port"]][[x for x in tb.cpls if x["port"] == c["port"]].index(c)]
            assert c["t"] - e["t"] >= tmo, f"completed {c['t'] - e['t']} cycles after the first beat"
        assert tb.ts_counts() == [(0, 6, 0)] * tb.ports, tb.ts_counts()
        tb.release_held()
        await tb.run(lambda b: not any(b.ts_pend))
        await tb.finish()
        assert tb.ts_counts() == [(0, 6, 6)] * tb.ports, tb.ts_counts()
        # ... and prompt returns work again with the timeout running
        qs2 = [tb.add_queue(50 + p, 5, cq=9, aux=p) for p in range(tb.ports)]
        for q in qs2:
            for _ in range(8):
                tb.post_packet(q, make_frame(tb.rng, tb.rng.randint(60, 1514))[0])
        tb.ts_fate = None
        tb.schedule(q.idx for q in qs2)
        await tb.run(tb.idle_done(6 * tb.ports + 8 * tb.ports))
        await tb.finish()
        tb.check_ts(lambda p, i, e: e["ts"] if e["fate"] == "ok" else 0)
        assert tb.ts_counts() == [(0, 6, 6)] * tb.ports, tb.ts_counts()
        # 3: port 1's returns held back: port 0 completes everything meanwhile
        if tb.ports > 1:
            tb = Bench(dut, seed=beryl_seed.seed(33, f"test_ts_errors {mode} 3"), idle=idle, bp=bp, dma_delay=8)
            await tb.reset()
            qs = ts_queues(tb, 6)
            more = [tb.post_packet(qs[0], make_frame(tb.rng, 200)[0]) for _ in range(14)]
            assert more
            tb.ts_fate = lambda p, i: "hold" if p == 1 else "ok"  # noqa: E731
            tb.schedule(q.idx for q in qs)
            n0 = 20
            await tb.run(lambda b: sum(c["port"] == 0 for c in b.cpls) >= n0 and len(b.ts_sent[1]) == 6)
            await tb.run(lambda b, t=tb.now + 200: b.now >= t)
            assert sum(c["port"] == 0 for c in tb.cpls) == n0
            assert not any(c["port"] == 1 for c in tb.cpls), "port 1 completed without its timestamps"
            tb.release_held()
            await tb.run(tb.idle_done(n0 + 6))
            await tb.finish()
            tb.check(qs)


@cocotb.test()
async def test_ts_parked(dut):
    """Unordered builds (a TDMA gate parks frames): one queue's returns held back, as for frames parked in the
    gate until their slot comes again, while another queue of the same port sends several times
    TS_WAIT_DEPTH frames: those complete meanwhile (the ordered FIFO would stop the port after TS_WAIT_DEPTH);
    the held queue's completions come after their times, in ring order (check)."""
    if int(os.environ.get("PARAM_TS_RET_EN", "1")) != 1 or int(os.environ.get("PARAM_TS_RET_ORDERED", "1")):
        return
    Clock(dut.clk, 4, unit="ns").start()
    depth = int(os.environ.get("PARAM_TS_WAIT_DEPTH", "16"))
    for mode in ("plain", "both"):
        idle, bp = MODES[mode]
        tb = Bench(dut, seed=beryl_seed.seed(41, f"test_ts_parked {mode}"), idle=idle, bp=bp, dma_delay=8)
        await tb.reset()
        qa = tb.add_queue(60, 6, cq=11, aux=0)
        qb = tb.add_queue(61, 8, cq=12, aux=0)
        for _ in range(4):
            tb.post_packet(qa, make_frame(tb.rng, tb.rng.randint(60, 1514))[0])
        nb = 4 * depth
        for _ in range(nb):
            tb.post_packet(qb, make_frame(tb.rng, tb.rng.randint(60, 300))[0])
        tb.ts_fate_q = lambda q: "hold" if q == qa.idx else "ok"  # noqa: E731
        tb.schedule([qa.idx])
        await tb.run(lambda b: len(b.ts_held[0]) >= 1)
        tb.schedule([qb.idx])
        await tb.run(lambda b: sum(c["queue"] == qb.idx for c in b.cpls) >= nb and len(b.ts_held[0]) == 4)
        await tb.run(lambda b, t=tb.now + 200: b.now >= t)
        assert not any(c["queue"] == qa.idx for c in tb.cpls), "queue A completed without its timestamps"
        first_a = min(i for i, e in enumerate(tb.ts_sent[0]) if e["q"] == qa.idx)
        assert first_a < len(tb.ts_sent[0]) - depth, "queue A's frames were not overtaken by TS_WAIT_DEPTH frames"
        tb.release_held()
        await tb.run(tb.idle_done(4 + nb))
        await tb.finish()
        tb.check([qa, qb])
        dut._log.info("parked %s: %d frames of queue B completed while queue A waited", mode, nb)


@pytest.mark.parametrize("params", [
    {"PORT_COUNT": 1},
    {"PORT_COUNT": 2},
    # few packet and batch slots: the walker and the command intake wait for free slots
    # ... and a 2-frame timestamp wait FIFO per port (first beats wait for room)
    {"PORT_COUNT": 1, "PKT_SLOTS": 4, "BATCH_SLOTS": 2, "DESC_BATCH": 4, "MAX_DESC_PER_PKT": 6,
     "TS_WAIT_DEPTH": 2, "TS_TAG_W": 2},
    # the engine's own timestamps (no return path)
    {"PORT_COUNT": 2, "TS_RET_EN": 0},
    # returns in any order (a TDMA gate's park buffer reorders a port's frames)
    {"PORT_COUNT": 2, "TS_RET_ORDERED": 0},
    # no descriptor-read retry and no data-read retry (the first failure is final), batches of 16 descriptors
    {"PORT_COUNT": 2, "DESC_RETRIES": 0, "DATA_RETRIES": 0, "DESC_BATCH": 16},
], ids=["p1", "p2", "small", "p2_noret", "p2_unordered", "p2_r0_b16"])
def test_beryl_nic_tx_engine(params):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_tx_engine", "rtl/nic/beryl_nic_tx_engine.f", "test_beryl_nic_tx_engine",
                  Path(__file__).parent, parameters=params)
