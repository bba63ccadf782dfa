# SPDX-License-Identifier: MIT
"""beryl_nic_queue_mgr: random mixes of config writes/reads, doorbells (valid and rejected) and
operations on a handful of queues (same-queue back-to-back requests are frequent) go through all
three request ports at once; every op response, doorbell event and config response, and the final
db_bad_count, are compared with an independent Python model of the queue state applied in request
acceptance order. No stalls, random request idle, random op_rsp/db_evt backpressure, both. A cheap
test configures queues at the highest indices. MODE 0 and 1, small and default QUEUE_COUNT, and a
32768-queue build (cheap test only)."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
M16 = 0xFFFF
M64 = (1 << 64) - 1
QM_OK, QM_EMPTY, QM_DISABLED = 0, 1, 2
F_BASE_LO, F_BASE_HI, F_CTRL, F_TARGET, F_PROD, F_CONS = range(6)


class Queue:
    def __init__(self):
        self.base = self.lsz = self.en = self.armed = self.aux = self.target = 0
        self.prod = self.cons = 0


class Model:
    """Queue state as docs/blocks/nic_core.md describes it, one request at a time."""

    def __init__(self, mode, entry_log2):
        self.mode, self.e = mode, entry_log2
        self.q = {}
        self.bad = 0

    def get(self, qi):
        return self.q.setdefault(qi, Queue())

    def cfg(self, qi, we, field, wdata):
        """-> (rdata, err)"""
        q = self.get(qi)
        if not we:
            vals = {F_BASE_LO: q.base & 0xFFFFFFFF, F_BASE_HI: q.base >> 32,
                    F_CTRL: q.en | q.armed << 1 | q.lsz << 8 | q.aux << 16,
                    F_TARGET: q.target, F_PROD: q.prod, F_CONS: q.cons}
            return (vals[field], 0) if field in vals else (0, 1)
        if field in (F_BASE_LO, F_BASE_HI):
            if q.en:
                return 0, 1
            if field == F_BASE_LO:
                q.base = (q.base & ~0xFFFFFFFF) | wdata
            else:
                q.base = (q.base & 0xFFFFFFFF) | wdata << 32
            return 0, 0
        if field == F_CTRL:
            err = 0
            new_lsz = (wdata >> 8) & 0xF
            if q.en:
                # log_size is frozen while enabled; a write that disables ignores it (no error)
                err = int(new_lsz != q.lsz and bool(wdata & 1))
            else:
                q.lsz = new_lsz
            q.en, q.armed, q.aux = wdata & 1, (wdata >> 1) & 1, (wdata >> 16) & 0xFF
            return 0, err
        if field == F_TARGET:
            q.target = wdata
        elif field == F_PROD:
            q.prod = wdata & M16
        elif field == F_CONS:
            q.cons = wdata & M16
        else:
            return 0, 1
        return 0, 0

    def db(self, qi, ptr, arm):
        """-> doorbell event (qidx, aux) or None"""
        q = self.get(qi)
        size = 1 << q.lsz
        if self.mode == 0:
            if (ptr - q.cons) & M16 > size:
                self.bad += 1
                return None
            q.prod = ptr
            return (qi, q.aux) if q.en else None
        if (q.prod - ptr) & M16 > size:
            self.bad += 1
            return None
        q.cons = ptr
        if arm:
            q.armed = 1
        return None

    def op(self, qi, count):
        q = self.get(qi)
        size = 1 << q.lsz
        used = (q.prod - q.cons) & M16
        ptr = q.cons if self.mode == 0 else q.prod
        avail = used if self.mode == 0 else max(0, size - used)
        slot = ptr % size
        if not q.en:
            status = QM_DISABLED
        elif avail == 0:
            status = QM_EMPTY
        else:
            status = QM_OK
        grant = min(count, avail, size - slot) if status == QM_OK else 0
        armed = phase = empty = 0
        if self.mode == 0:
            q.cons = (q.cons + grant) & M16
            empty = int(q.prod == q.cons)
        else:
            q.prod = (q.prod + grant) & M16
            phase = 1 - ((ptr >> q.lsz) & 1)
            if grant and q.armed:
                armed, q.armed = 1, 0
        addr = (q.base + (slot << self.e)) & M64
        return (qi, status, addr, ptr, grant, phase, armed, q.target, q.aux, q.lsz, empty)


OP_FIELDS = ["qidx", "status", "addr", "ptr", "count", "phase", "armed", "target", "aux",
             "log_size", "empty"]


class Bench:
    def __init__(self, dut, rng, idle, bp, qlist):
        self.dut, self.rng, self.idle, self.bp, self.qlist = dut, rng, idle, bp, qlist
        self.mode = int(os.environ.get("PARAM_MODE", "0"))
        self.cnt_max = 1 << (len(dut.op_req_count) - 1)
        self.model = Model(self.mode, int(os.environ.get("PARAM_ENTRY_LOG2", "4")))
        self.exp_op, self.exp_cfg, self.exp_evt = [], [], []
        self.cur = {"op": None, "db": None, "cfg": None}   # request being offered per port
        self.last_q = qlist[0]
        self.held = {}
        self.counts = {"op_ok": 0, "db_bad": 0, "evt": 0, "cfg_err": 0, "hazard": 0, "armed": 0,
                       "phase0": 0, "wrap_cut": 0}
        self.prev_acc_q = None

    async def reset(self):
        d = self.dut
        d.rst.value = 1
        for s in ("op_req_valid", "db_valid", "cfg_req_valid", "op_rsp_ready", "db_evt_ready"):
            getattr(d, s).value = 0
        await ClockCycles(d.clk, 3)
        d.rst.value = 0
        # the state RAM clears for QUEUE_COUNT cycles with every ready low
        d.op_req_valid.value = 1
        d.op_req_qidx.value = 0
        d.op_req_count.value = 1
        n = 0
        while True:
            await FallingEdge(d.clk)
            await ReadOnly()
            if d.op_req_ready.value == 1:
                break
            n += 1
        assert n >= (1 << len(d.op_req_qidx)) - 1, f"ready after {n} cycles of clearing"
        # the probe op is taken now: queue 0 is disabled like every other
        self.model = Model(self.mode, self.model.e)
        self.exp_op.append(self.model.op(0, 1))
        assert self.exp_op[-1][1] == QM_DISABLED
        await FallingEdge(d.clk)
        d.op_req_valid.value = 0

    def pick_q(self):
        if self.rng.random() < 0.5:
            return self.last_q
        self.last_q = self.rng.choice(self.qlist)
        return self.last_q

    def new_cfg(self):
        rng, qi = self.rng, self.pick_q()
        q = self.model.get(qi)
        r = rng.random()
        if r < 0.45:
            field = rng.choices([F_BASE_LO, F_BASE_HI, F_CTRL, F_TARGET, F_PROD, F_CONS, 6, 7],
                                [2, 2, 6, 2, 1, 1, 0.3, 0.3])[0]
            if field == F_CTRL:
                lsz = rng.choice([0, 1, 2, 3, 4, 15]) if rng.random() < 0.8 else q.lsz
                en = int(rng.random() < 0.75)
                wdata = en | rng.getrandbits(1) << 1 | lsz << 8 | rng.getrandbits(8) << 16
                if rng.random() < 0.2:
                    wdata |= rng.getrandbits(32) & 0xFF00F0FC   # reserved bits are ignored
            elif field == F_BASE_LO:
                wdata = rng.getrandbits(32) & ~0xFFF if rng.random() < 0.5 else rng.getrandbits(32)
            elif field in (F_PROD, F_CONS):
                wdata = (q.cons + rng.randrange(-3, 20)) & M16 if rng.random() < 0.9 else rng.getrandbits(32)
            else:
                wdata = rng.getrandbits(32)
            return (qi, 1, field, wdata)
        return (qi, 0, rng.randrange(8), rng.getrandbits(32))

    def new_db(self):
        rng, qi = self.rng, self.pick_q()
        q = self.model.get(qi)
        size = 1 << q.lsz
        if rng.random() < 0.1:
            ptr = rng.getrandbits(16)
        elif self.mode == 0:
            ptr = (q.cons + rng.randrange(0, size + (3 if rng.random() < 0.3 else 1))) & M16
        else:
            used = min((q.prod - q.cons) & M16, size)
            if rng.random() < 0.8:
                ptr = (q.prod - rng.randrange(0, used + 1)) & M16   # frees some or all
            else:
                ptr = (q.cons + rng.randrange(-3, used + 4)) & M16
        return (qi, ptr, rng.getrandbits(1))

    def new_op(self):
        return (self.pick_q(), self.rng.randrange(1, self.cnt_max + 1))

    async def run_feeds(self, feeds):
        """Send fixed request lists (one per port)."""
        its = {p: iter(v) for p, v in feeds.items()}
        makers = {p: (lambda it=it: next(it)) for p, it in its.items()}
        return await self.run({p: len(v) for p, v in feeds.items()}, 50 * max(map(len, feeds.values())) + 200,
                              makers)

    async def run(self, left, limit, makers=None):
        d, rng = self.dut, self.rng
        left = dict(left)
        makers = makers or {"op": self.new_op, "db": self.new_db, "cfg": self.new_cfg}
        cycles = 0
        drain = 0
        while True:
            await FallingEdge(d.clk)
            cycles += 1
            assert cycles < limit, f"timeout: left {left} exp {len(self.exp_op)} {len(self.exp_cfg)} {len(self.exp_evt)}"
            for p in ("op", "db", "cfg"):
                if self.cur[p] is None and left[p] and rng.random() >= self.idle:
                    self.cur[p] = makers[p]()
                    left[p] -= 1
                    v = self.cur[p]
                    if p == "op":
                        d.op_req_qidx.value, d.op_req_count.value = v
                    elif p == "db":
                        d.db_qidx.value, d.db_ptr.value, d.db_arm.value = v
                    else:
                        d.cfg_req_qidx.value, d.cfg_req_we.value, d.cfg_req_field.value, d.cfg_req_wdata.value = v
            d.op_req_valid.value = int(self.cur["op"] is not None)
            d.db_valid.value = int(self.cur["db"] is not None)
            d.cfg_req_valid.value = int(self.cur["cfg"] is not None)
            d.op_rsp_ready.value = int(rng.random() >= self.bp)
            d.db_evt_ready.value = int(rng.random() >= self.bp)
            await ReadOnly()
            # outputs first: they come from requests accepted at least two cycles ago
            self.check_outputs()
            acc = [p for p, s in (("op", d.op_req_ready), ("db", d.db_ready), ("cfg", d.cfg_req_ready))
                   if self.cur[p] is not None and s.value == 1]
            assert len(acc) <= 1, f"two requests accepted in one cycle: {acc}"
            for p in acc:
                v = self.cur[p]
                self.cur[p] = None
                if v[0] == self.prev_acc_q:
                    self.counts["hazard"] += 1
                self.prev_acc_q = v[0]
                if p == "op":
                    r = self.model.op(*v)
                    self.counts["op_ok"] += r[4] > 0
                    self.counts["armed"] += r[6]
                    self.counts["phase0"] += r[4] > 0 and r[5] == 0
                    # granted less than asked although more was available: cut at the ring end
                    self.counts["wrap_cut"] += 0 < r[4] < v[1] and (r[3] + r[4]) % (1 << r[9]) == 0
                    self.exp_op.append(r)
                elif p == "db":
                    bad0 = self.model.bad
                    e = self.model.db(*v)
                    self.counts["db_bad"] += self.model.bad - bad0
                    if e is not None:
                        self.exp_evt.append(e)
                else:
                    r = self.model.cfg(*v)
                    self.counts["cfg_err"] += r[1]
                    self.exp_cfg.append(r)
            if not acc:
                self.prev_acc_q = None
            busy = any(self.cur.values()) or any(left.values()) or self.exp_op or self.exp_cfg or self.exp_evt
            drain = 0 if busy else drain + 1
            if drain > 8:
                break
        await FallingEdge(d.clk)
        d.op_req_valid.value = d.db_valid.value = d.cfg_req_valid.value = 0
        assert int(d.db_bad_count.value) == self.model.bad, \
            f"db_bad_count {int(d.db_bad_count.value)} != model {self.model.bad}"
        return cycles

    def check_outputs(self):
        d = self.dut
        # a stalled output holds its word
        for name, sig, keys in (("op", "op_rsp", OP_FIELDS), ("evt", "db_evt", ["qidx", "aux"])):
            valid = getattr(d, f"{sig}_valid").value == 1
            ready = getattr(d, f"{sig}_ready").value == 1
            if valid:
                word = tuple(int(getattr(d, f"{sig}_{k}").value) for k in keys)
                if name in self.held:
                    assert word == self.held[name], f"{sig} changed while stalled"
                if ready:
                    self.held.pop(name, None)
                    exp = (self.exp_op if name == "op" else self.exp_evt)
                    assert exp, f"unexpected {sig}: {word}"
                    e = exp.pop(0)
                    assert word == e, f"{sig}: got {dict(zip(keys, word))}\n expected {dict(zip(keys, e))}"
                    if name == "evt":
                        self.counts["evt"] += 1
                else:
                    self.held[name] = word
            else:
                assert name not in self.held, f"{sig}_valid dropped while stalled"
        if d.cfg_rsp_valid.value == 1:
            got = (int(d.cfg_rsp_rdata.value), int(d.cfg_rsp_err.value))
            assert self.exp_cfg, f"unexpected cfg response {got}"
            e = self.exp_cfg.pop(0)
            assert got == e, f"cfg response: got {got} expected {e}"


def queue_set(dut):
    n = 1 << len(dut.op_req_qidx)
    return sorted({0, 1, n - 1, n // 2 + 1})


@cocotb.test()
async def test_random(dut):
    Clock(dut.clk, 4, unit="ns").start()
    rng = beryl_seed.rng(int(os.environ.get("PARAM_MODE", "0")) * 7 + 3, "test_random")
    n_req = 10000 if LONG else 2000
    for idle, bp in [(0, 0), (0.4, 0), (0, 0.5), (0.4, 0.5)]:
        b = Bench(dut, rng, idle, bp, queue_set(dut))
        await b.reset()
        cyc = await b.run({"op": n_req, "db": n_req, "cfg": n_req}, 40 * n_req)
        dut._log.info(f"idle {idle} bp {bp}: {cyc} cycles, {b.counts}")
        assert b.counts["op_ok"] > n_req // 10 and b.counts["db_bad"] > 0 and b.counts["cfg_err"] > 0
        assert b.counts["hazard"] > n_req // 10
        assert b.counts["wrap_cut"] > 0
        if b.mode == 0:
            assert b.counts["evt"] > n_req // 10
        else:
            assert b.counts["armed"] > 0 and b.counts["phase0"] > 0


@cocotb.test()
async def test_high_index(dut):
    """Queues at the top of the index range: set up, doorbell, ops, read back; no stalls."""
    Clock(dut.clk, 4, unit="ns").start()
    n = 1 << len(dut.op_req_qidx)
    qlist = [n - 1, n - 2, n // 2 + 3 if n > 8 else 1]
    b = Bench(dut, beryl_seed.rng(5, "test_high_index"), 0.0, 0.0, qlist)
    await b.reset()
    setup = []
    for i, qi in enumerate(qlist):
        setup += [(qi, 0, F_CTRL, 0), (qi, 1, F_BASE_LO, 0x1000 * (i + 1)), (qi, 1, F_BASE_HI, 0xabc0 + i),
                  (qi, 1, F_TARGET, 0x10000 + qi), (qi, 1, F_CTRL, 1 | 3 << 8 | (i + 5) << 16 | 2)]
    await b.run_feeds({"op": [], "db": [], "cfg": setup})
    db = [(qi, 6 if b.mode == 0 else 0, 1) for qi in qlist]
    ops = [(qi, 4) for qi in qlist for _ in range(3)]
    reads = [(qi, 0, f, 0) for qi in qlist for f in range(6)]
    await b.run_feeds({"op": ops, "db": db, "cfg": reads})
    assert b.counts["op_ok"] >= len(qlist) * 2, f"only {b.counts['op_ok']} ops granted entries"


CONFIGS = [(0, 8), (1, 4096), (0, 32768)] + ([(1, 8), (0, 4096), (1, 32768)] if LONG else [])


@pytest.mark.parametrize("mode,count", CONFIGS, ids=[f"mode{m}-q{c}" for m, c in CONFIGS])
def test_beryl_nic_queue_mgr(mode, count):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_queue_mgr", "rtl/nic/beryl_nic_queue_mgr.f", "test_beryl_nic_queue_mgr",
                  Path(__file__).parent,
                  parameters={"MODE": mode, "QUEUE_COUNT": count, "CNT_W": 4, "ENTRY_LOG2": 4 + mode},
                  testcase="test_high_index" if count > 4096 else None)
