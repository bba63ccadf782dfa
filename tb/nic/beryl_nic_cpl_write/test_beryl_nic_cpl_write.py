# SPDX-License-Identifier: MIT
"""beryl_nic_cpl_write against Python models of a MODE 1 queue manager (rings with prod/cons, size,
phase, armed, enable; one disabled queue, one out-of-range queue) and of the DMA write engine (reads
the writer's RAM through the segmented read port, writes a host-memory bytearray, returns statuses
after random delays, out of order, sometimes with an error, plus stray statuses that must be ignored).
A host model consumes entries by phase bit, checks each against the entry the model granted at that
ring pointer (right slot, right phase, per-queue order), re-arms queues and sometimes pauses so rings
fill. Checked: every request asks exactly for the leading same-queue FIFO entries present (coalescing
without waiting), DMA descriptors match the grants in order, drop counters equal the refused entries,
events come exactly for armed grants, in order, after their DMA status; dma_err_count.
Runs with no stalls, random source idle, random sink backpressure, and both."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

QM_OK, QM_EMPTY, QM_DISABLED, QM_BAD_IDX = 0, 1, 2, 3
ENT = 32
P255 = 1 << 255


class Queue:
    def __init__(self, base, log_size, enable, armed, target):
        self.base, self.log, self.enable, self.armed, self.target = base, log_size, enable, armed, target
        self.prod = self.cons = 0


class Grant:
    def __init__(self, q, n, addr, ptr, armed, target):
        self.q, self.n, self.addr, self.ptr, self.armed, self.target = q, n, addr, ptr, armed, target
        self.status_sent = False


class Bench:
    def __init__(self, dut, rng, idle, bp, err_p, nq):
        self.dut, self.rng, self.idle, self.bp, self.err_p = dut, rng, idle, bp, err_p
        self.batch = int(os.environ["PARAM_BATCH"])
        self.slots = int(os.environ["PARAM_SLOTS"])
        self.segw = int(os.environ.get("PARAM_SEG_DATA_W", "512"))
        self.segb = self.segw // 8
        self.tag_w = len(dut.wr_desc_tag)
        self.nq = nq
        self.mem = bytearray(0x10000 * (nq + 1))
        # queue nq-2 disabled, queue nq-1 out of range (BAD_IDX); the others small rings that wrap
        self.qs = [Queue(0x10000 * (q + 1), rng.randint(1, 4), q < nq - 2, rng.random() < 0.5,
                         rng.getrandbits(32)) for q in range(nq - 1)]
        self.cyc = 0
        # source side
        self.items, self.item_i, self.cpl_drv = [], 0, False
        self.accepted = []            # (q, data, sample index) in acceptance order
        self.proc = 0                 # entries of `accepted` the DUT has dealt with (granted or dropped)
        self.stream_next = [0] * nq   # per queue: entries dealt with
        self.stream = [[] for _ in range(nq)]
        self.expect = [dict() for _ in range(nq)]   # ring pointer -> expected entry
        # queue manager
        self.req_seen = False
        self.rspq, self.rsp_drv = [], False
        self.drop_full = self.drop_dis = 0
        self.grants_wait_desc = []
        self.evt_expect = []
        self.requests = 0
        # DMA model
        self.dmaq, self.cur = [], None
        self.seg_cmdq, self.seg_resp = [[], []], [[], []]
        self.outstanding = {}         # tag -> grant (descriptor taken, status not yet sent)
        self.statuses = []            # (due, tag, err)
        self.descs = 0
        self.errs = 0
        self.sts_drv = None
        # host
        self.paused = False
        self.pause_p = 0.01
        self.granted_entries = 0
        self.events = 0

    # ------------------------------------------------------------ queue-manager model (MODE 1)
    def qm_op(self, q, count):
        assert 1 <= count <= self.batch, f"op count {count}"
        if q >= len(self.qs):
            st, n, g = QM_BAD_IDX, 0, None
        elif not self.qs[q].enable:
            st, n, g = QM_DISABLED, 0, None
        else:
            Q = self.qs[q]
            size = 1 << Q.log
            space = size - ((Q.prod - Q.cons) & 0xffff)
            n = min(count, space, size - (Q.prod % size))
            if n == 0:
                st, g = QM_EMPTY, None
            else:
                st = QM_OK
                g = Grant(q, n, Q.base + (Q.prod % size) * ENT, Q.prod, Q.armed, Q.target)
                phase = 1 - ((Q.prod >> Q.log) & 1)
                for i in range(n):
                    d = self.stream[q][self.stream_next[q] + i]
                    self.expect[q][(Q.prod + i) & 0xffff] = (d & ~P255) | (phase << 255)
                rsp = (st, g.addr, Q.prod, n, phase, Q.armed, Q.target)
                Q.armed = False
                Q.prod = (Q.prod + n) & 0xffff
                self.granted_entries += n
                self.grants_wait_desc.append(g)
                if g.armed:
                    self.evt_expect.append(g)
        if st != QM_OK:
            n = count
            if st == QM_EMPTY:
                self.drop_full += n
            else:
                self.drop_dis += n
            rsp = (st, self.rng.getrandbits(64), 0, 0, 0, 0, 0)
        self.stream_next[q] += n
        self.proc += n
        self.rspq.append((self.cyc + self.rng.randint(1, 4), q, rsp))

    # ------------------------------------------------------------ host (software) model
    def host(self):
        # pauses (rings fill up, entries are dropped) start rarely and end soon
        if self.rng.random() < (4 * self.pause_p if self.paused else self.pause_p):
            self.paused = not self.paused and self.item_i < len(self.items)
        if self.paused or self.rng.random() < 0.3:
            return
        q = self.rng.randrange(self.nq - 2)
        Q = self.qs[q]
        size = 1 << Q.log
        for _ in range(self.rng.randint(1, 4)):
            off = Q.base + (Q.cons % size) * ENT
            e = int.from_bytes(self.mem[off:off + ENT], "little")
            if (e >> 255) != 1 - ((Q.cons >> Q.log) & 1):
                break
            want = self.expect[q].pop(Q.cons)
            assert e == want, f"queue {q} ptr {Q.cons}: got {e:064x} want {want:064x}"
            Q.cons = (Q.cons + 1) & 0xffff
        if self.rng.random() < 0.3:
            Q.armed = True

    # ------------------------------------------------------------ DMA model
    def dma_start(self):
        if self.cur is None and self.dmaq:
            self.cur = self.dmaq.pop(0)
            ra, ln = self.cur["ram"], self.cur["len"]
            chunks = list(range(ra // self.segb, (ra + ln - 1) // self.segb + 1))
            self.cur["chunks"] = chunks
            self.seg_cmdq = [[c // 2 for c in chunks if c % 2 == s] for s in range(2)]
            self.seg_resp = [[], []]

    def dma_finish(self):
        c = self.cur
        if len(self.seg_resp[0]) + len(self.seg_resp[1]) < len(c["chunks"]):
            return
        it = [iter(self.seg_resp[0]), iter(self.seg_resp[1])]
        buf = b"".join(next(it[ch % 2]).to_bytes(self.segb, "little") for ch in c["chunks"])
        off = c["ram"] - c["chunks"][0] * self.segb
        g = c["grant"]
        self.mem[g.addr:g.addr + c["len"]] = buf[off:off + c["len"]]
        for i in range(g.n):
            e = int.from_bytes(buf[off + i * ENT:off + (i + 1) * ENT], "little")
            want = self.expect[g.q][(g.ptr + i) & 0xffff]
            assert e == want, f"DMA of queue {g.q} ptr {g.ptr + i}: {e:064x}, want {want:064x}"
        err = self.rng.randrange(1, 16) if self.rng.random() < self.err_p else 0
        self.statuses.append((self.cyc + self.rng.randint(1, 12), c["tag"], err))
        self.cur = None
        self.dma_start()

    # ------------------------------------------------------------ per cycle
    def drive(self):
        d, rng = self.dut, self.rng
        if not self.cpl_drv and self.item_i < len(self.items) and rng.random() >= self.idle:
            q, data = self.items[self.item_i]
            d.cpl_qidx.value, d.cpl_data.value = q, data
            self.cpl_drv = True
        d.cpl_valid.value = int(self.cpl_drv)
        d.op_req_ready.value = int(rng.random() >= self.bp)
        if not self.rsp_drv and self.rspq and self.rspq[0][0] <= self.cyc and rng.random() >= self.idle:
            _, q, (st, addr, ptr, n, ph, armed, tgt) = self.rspq[0]
            d.op_rsp_qidx.value, d.op_rsp_status.value, d.op_rsp_addr.value = q, st, addr
            d.op_rsp_ptr.value, d.op_rsp_count.value, d.op_rsp_phase.value = ptr, n, ph
            d.op_rsp_armed.value, d.op_rsp_target.value = int(armed), tgt
            self.rsp_drv = True
        d.op_rsp_valid.value = int(self.rsp_drv)
        d.wr_desc_ready.value = int(rng.random() >= self.bp)
        addr, val = 0, 0
        for s in range(2):
            if self.seg_cmdq[s]:
                addr |= self.seg_cmdq[s][0] << (s * len(d.ram_rd_cmd_addr) // 2)
                val |= 1 << s
        d.ram_rd_cmd_addr.value, d.ram_rd_cmd_valid.value = addr, val
        d.ram_rd_resp_ready.value = (int(rng.random() >= self.bp)) | (int(rng.random() >= self.bp) << 1)
        self.sts_drv = None
        due = [x for x in self.statuses if x[0] <= self.cyc]
        if due:
            self.sts_drv = due[0]
            self.statuses.remove(due[0])
            d.wr_desc_status_tag.value, d.wr_desc_status_error.value = due[0][1], due[0][2]
            d.wr_desc_status_valid.value = 1
        elif rng.random() < 0.03:
            # stray status: a tag with no descriptor waiting for its status must be ignored
            busy = set(self.outstanding) | set(t for _, t, _ in self.statuses)
            if int(d.wr_desc_valid.value):
                busy.add(int(d.wr_desc_tag.value))
            free = [t for t in range(1 << self.tag_w) if t not in busy]
            if free:
                d.wr_desc_status_tag.value, d.wr_desc_status_error.value = rng.choice(free), rng.randrange(16)
            d.wr_desc_status_valid.value = int(bool(free))
        else:
            d.wr_desc_status_valid.value = 0
        d.evt_ready.value = int(rng.random() >= self.bp)
        self.host()

    def sample(self, k):
        d = self.dut
        if self.cpl_drv and d.cpl_ready.value == 1:
            q, data = self.items[self.item_i]
            self.accepted.append((q, k))
            self.stream[q].append(data)
            self.item_i += 1
            self.cpl_drv = False
        if d.op_req_valid.value == 1:
            if not self.req_seen:
                # decided at the previous edge from the FIFO as it was before that edge
                self.req_seen = True
                q, cnt = int(d.op_req_qidx.value), int(d.op_req_count.value)
                head = self.accepted[self.proc]
                assert head[1] <= k - 2 and q == head[0], f"request for {q}, FIFO head {head}"
                run = 0
                while (run < self.batch and self.proc + run < len(self.accepted) and
                       self.accepted[self.proc + run][0] == q and self.accepted[self.proc + run][1] <= k - 2):
                    run += 1
                assert cnt == run, f"request count {cnt}, leading same-queue entries {run}"
            if d.op_req_ready.value == 1:
                self.req_seen = False
                self.requests += 1
                self.qm_op(int(d.op_req_qidx.value), int(d.op_req_count.value))
        if self.rsp_drv and d.op_rsp_ready.value == 1:
            self.rspq.pop(0)
            self.rsp_drv = False
        if d.wr_desc_valid.value == 1 and d.wr_desc_ready.value == 1:
            assert self.grants_wait_desc, "DMA descriptor without a grant"
            g = self.grants_wait_desc.pop(0)
            ha, ra, ln, tag = (int(d.wr_desc_host_addr.value), int(d.wr_desc_ram_addr.value),
                               int(d.wr_desc_len.value), int(d.wr_desc_tag.value))
            assert (ha, ln) == (g.addr, g.n * ENT), f"desc {ha:x}/{ln} for grant {g.addr:x}/{g.n}"
            assert tag < self.slots and tag not in self.outstanding, f"tag {tag}"
            self.outstanding[tag] = g
            self.dmaq.append({"grant": g, "ram": ra, "len": ln, "tag": tag})
            self.descs += 1
            self.dma_start()
        if self.cur is not None:
            cv, cr = int(d.ram_rd_cmd_valid.value), int(d.ram_rd_cmd_ready.value)
            rv, rr = int(d.ram_rd_resp_valid.value), int(d.ram_rd_resp_ready.value)
            data = int(d.ram_rd_resp_data.value) if rv & rr else 0
            for s in range(2):
                if (cv >> s) & (cr >> s) & 1:
                    self.seg_cmdq[s].pop(0)
                if (rv >> s) & (rr >> s) & 1:
                    self.seg_resp[s].append((data >> (s * self.segw)) & ((1 << self.segw) - 1))
            self.dma_finish()
        if self.sts_drv is not None:
            _, tag, err = self.sts_drv
            g = self.outstanding.pop(tag)
            g.status_sent = True
            self.errs += err != 0
        if d.evt_valid.value == 1 and d.evt_ready.value == 1:
            assert self.evt_expect, "event without an armed grant"
            g = self.evt_expect.pop(0)
            got = (int(d.evt_target.value), int(d.evt_source.value))
            assert got == (g.target, g.q), f"event {got}, want {(g.target, g.q)}"
            assert g.status_sent, "event before the DMA status"
            self.events += 1

    def idle_done(self):
        return (self.item_i == len(self.items) and self.proc == len(self.accepted) and not self.rspq
                and not self.grants_wait_desc and self.cur is None and not self.dmaq and not self.statuses
                and not self.outstanding and not self.evt_expect and not self.req_seen
                and all(Q.cons == Q.prod for Q in self.qs if Q.enable))

    async def run(self, items, max_cycles):
        self.items += items
        d = self.dut
        k = 0
        while not self.idle_done():
            await FallingEdge(d.clk)
            self.cyc += 1
            k += 1
            assert k < max_cycles, "timeout"
            self.drive()
            await ReadOnly()
            self.sample(self.cyc)
        # a few quiet cycles: nothing more may come out
        for _ in range(20):
            await FallingEdge(d.clk)
            self.cyc += 1
            self.drive()
            await ReadOnly()
            assert d.evt_valid.value == 0 and d.op_req_valid.value == 0 and d.wr_desc_valid.value == 0
            self.sample(self.cyc)


async def reset(dut):
    await FallingEdge(dut.clk)
    dut.rst.value = 1
    for s in ["cpl_valid", "op_req_ready", "op_rsp_valid", "wr_desc_ready", "wr_desc_status_valid",
              "ram_rd_cmd_valid", "ram_rd_resp_ready", "evt_ready"]:
        getattr(dut, s).value = 0
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0


def gen_items(rng, nq, count, burst):
    """Runs of one queue (mostly enabled queues, sometimes the disabled or out-of-range one)."""
    out = []
    while len(out) < count:
        q = rng.randrange(nq - 2) if rng.random() < 0.85 else rng.choice([nq - 2, nq - 1])
        for _ in range(rng.randint(1, burst)):
            out.append((q, rng.getrandbits(256)))
    return out[:count]


MODES = {"plain": (0.0, 0.0), "idle": (0.4, 0.0), "bp": (0.0, 0.4), "both": (0.4, 0.4)}


@cocotb.test()
async def test_modes(dut):
    """Random traffic in every stall mode: entries, drops, events, DMA errors."""
    Clock(dut.clk, 4, unit="ns").start()
    nq = 1 << len(dut.cpl_qidx)
    batch = int(os.environ["PARAM_BATCH"])
    n = 5000 if os.environ.get("BERYL_LONG") else 600
    for i, (name, (idle, bp)) in enumerate(MODES.items()):
        await reset(dut)
        rng = beryl_seed.rng(10 + i, f"test_modes {name}")
        b = Bench(dut, rng, idle, bp, 0.1 if bp else 0.0, nq)
        await b.run(gen_items(rng, nq, n, 2 * batch), 400 * n)
        assert int(dut.drop_full_count.value) == b.drop_full, "drop_full_count"
        assert int(dut.drop_disabled_count.value) == b.drop_dis, "drop_disabled_count"
        assert int(dut.dma_err_count.value) == b.errs, "dma_err_count"
        assert b.drop_full > 0 and b.drop_dis > 0 and b.events > 0
        dut._log.info(f"{name}: {b.granted_entries} entries in {b.descs} DMA writes, {b.requests} requests, "
                      f"drops full {b.drop_full} disabled {b.drop_dis}, {b.events} events, "
                      f"{b.errs} DMA errors, {b.cyc} cycles")


@cocotb.test()
async def test_coalesce(dut):
    """Back-to-back bursts for one queue at a time with a fast host: DMA writes carry several entries."""
    Clock(dut.clk, 4, unit="ns").start()
    nq = 1 << len(dut.cpl_qidx)
    batch = int(os.environ["PARAM_BATCH"])
    await reset(dut)
    rng = beryl_seed.rng(99, "test_coalesce")
    b = Bench(dut, rng, 0.0, 0.0, 0.0, nq)
    for Q in b.qs:
        Q.log = 5 if Q.enable else Q.log
    b.pause_p = 0.0
    items = []
    for _ in range(40):
        q = rng.randrange(nq - 2)
        items += [(q, rng.getrandbits(256)) for _ in range(batch)]
    await b.run(items, 100 * len(items))
    dut._log.info(f"coalesce: {b.granted_entries} entries in {b.descs} DMA writes")
    assert b.granted_entries == len(items) and b.drop_full == 0
    assert b.descs * 2 <= b.granted_entries, "no coalescing"


@pytest.mark.parametrize("cfg", [
    {"QI_W": 3, "BATCH": 4, "SLOTS": 4, "TAG_W": 3},
    {"QI_W": 4, "BATCH": 8, "SLOTS": 2, "TAG_W": 1, "SEG_DATA_W": 256},
])
def test_beryl_nic_cpl_write(cfg):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_cpl_write", "rtl/nic/beryl_nic_cpl_write.f", "test_beryl_nic_cpl_write",
                  Path(__file__).parent, parameters=cfg)
