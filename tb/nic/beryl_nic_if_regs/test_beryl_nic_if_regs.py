# SPDX-License-Identifier: MIT
"""Unit test of beryl_nic_if_regs, the NIC interface register block (regs/beryl_nic_if.rdl).

Software side: cocotbext-axi's AxiLiteMaster (random pauses on its five channels). Client side:
Python models of the four doorbell ports, the four queue-manager configuration ports (queue state
per type, answering after a random delay, injecting errors), the two per-queue statistics RAMs,
the RSS table/key write ports, the port counters, the interface counters and the ports' scheduler
register windows (SCHED_Q_SEL..SCHED_BAD_STS, answered after a random delay). Every client input
gets random backpressure and delays; each test runs with none, client-side only, AXI-side only
and both. Expectations come from the register description (tb/model/beryl_regs.py) and
docs/blocks/nic_core.md, not from the RTL.
"""
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, ClockCycles

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "regs"))
sys.path.insert(0, str(HERE.parents[1]))
import axil_tb  # noqa: E402
from axil_tb import read32, write32  # noqa: E402
from model import beryl_regs as R  # noqa: E402

PARAMS = {
    "TXQ_COUNT": 64, "RXQ_COUNT": 8, "CQ_COUNT": 128, "EQ_COUNT": 4, "PORT_COUNT": 3,
    "IF_INDEX": 1, "IF_COUNT": 2, "BLOCK_NEXT": 0x20200, "TX_SLOTS": 16, "RX_SLOTS": 24,
    "MAX_FRAME": 9600, "RSS_TABLE_SIZE": 128, "DESC_BATCH": 4, "CPL_BATCH": 16,
    "MAX_DESC_PER_PKT": 8, "TX_SCHED": 2, "TDMA_SLOTS_MAX": 16,
}
REGS = R.BLOCKS["nic_if"]["regs"]
OFF = {name: reg["offset"] for name, reg in REGS.items()}
DB_REGS = [("TXQ_DB", 0, 0), ("RXQ_DB", 1, 0), ("CQ_DB", 2, 0), ("CQ_DB_ARM", 2, 1),
           ("EQ_DB", 3, 0), ("EQ_DB_ARM", 3, 1)]           # register, queue type, arm
Q_FIELDS = ["Q_BASE_LO", "Q_BASE_HI", "Q_CTRL", "Q_TARGET", "Q_PROD", "Q_CONS"]  # fields 0..5
Q_STATS = ["Q_STAT_PKTS_LO", "Q_STAT_PKTS_HI", "Q_STAT_BYTES_LO", "Q_STAT_BYTES_HI",
           "Q_STAT_DROPS_LO", "Q_STAT_DROPS_HI"]
COUNTERS = [n for n, r in sorted(REGS.items(), key=lambda x: x[1]["offset"])
            if R.NIC_IF_TX_PKTS_OFFSET <= r["offset"] <= R.NIC_IF_IRQ_MERGED_OFFSET]
# (client delay/backpressure probability, AXI pause probability)
MODES = [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)]


def p(name):
    return axil_tb.param(name, PARAMS[name])


def qcount(t):
    return p(["TXQ_COUNT", "RXQ_COUNT", "CQ_COUNT", "EQ_COUNT"][t])


def bits(v, n):
    return [(v >> i) & 1 for i in range(n)]


# per-port counter inputs; register PORT_<NAME> reads <name> of the selected port
PORT_SIGS = ("port_tx_pkts", "port_tx_bytes", "port_rx_pkts", "port_rx_bytes", "port_tx_drops", "port_rx_drops")

class Clients:
    """Every client port of the block, driven on the falling edge and sampled in ReadOnly."""

    def __init__(self, dut, rng):
        self.dut, self.rng = dut, rng
        self.p = 0.0            # client backpressure probability and delay scale
        self.err_p = 0.0        # queue manager: probability of an error response
        self.cyc = 0
        self.dbs, self.cfg_reqs, self.stat_reqs, self.key_wr, self.tbl_wr = [], [], [], [], []
        self.qstate = [{} for _ in range(4)]      # queue manager model: (qidx, field) -> word
        self.stats = [{}, {}]                     # statistics RAM model: qidx -> (pkts, bytes, drops)
        self.violations = []
        self.pend_cfg = None    # (due cycle, type, rdata, err)
        self.pend_stat = None   # (due cycle, type, 192-bit word)
        self.db_hold = None
        self.cfg_hold = None
        self.last_err = None    # error bit of the last configuration response
        self.r_hold = None      # (rdata) presented while rvalid && !rready
        self.sch_regs = {}      # port scheduler model: (port, offset) -> word
        self.sch_reqs = []      # (port, we, offset, wdata)
        self.pend_sch = None    # (due cycle, port, rdata)

    def init_inputs(self):
        d = self.dut
        for s in ("db_ready", "cfg_req_ready", "cfg_rsp_valid", "cfg_rsp_err", "stat_req_ready",
                  "stat_rsp_valid"):
            getattr(d, s).value = 0
        d.cfg_rsp_rdata.value = 0
        d.stat_rsp_data.value = 0
        for s in PORT_SIGS + ("counters", "tx_desc_retry", "tx_data_retry", "rx_desc_retry", "sch_done", "sch_rdata"):
            getattr(d, s).value = 0

    def stat_word(self, t, q):
        if q not in self.stats[t]:
            self.stats[t][q] = tuple(self.rng.getrandbits(64) for _ in range(3))
        return self.stats[t][q]

    def ready_bits(self, n):
        return sum((self.rng.random() >= self.p) << i for i in range(n))

    def delay(self):
        return self.rng.randrange(8) if self.rng.random() < self.p else 0

    def violation(self, msg):
        self.violations.append(f"cycle {self.cyc}: {msg}")

    async def run(self):
        d, rng = self.dut, self.rng
        while True:
            await FallingEdge(d.clk)
            self.cyc += 1
            d.db_ready.value = self.ready_bits(4)
            d.cfg_req_ready.value = self.ready_bits(4)
            d.stat_req_ready.value = self.ready_bits(2)
            # response buses carry junk except in the slice of a valid response
            rdata, err, valid = rng.getrandbits(128), rng.getrandbits(4), 0
            if self.pend_cfg and self.pend_cfg[0] <= self.cyc:
                _, t, v, e = self.pend_cfg
                rdata = (rdata & ~(0xFFFFFFFF << 32 * t)) | v << 32 * t
                err = (err & ~(1 << t)) | e << t
                valid, self.pend_cfg = 1 << t, None
            d.cfg_rsp_valid.value, d.cfg_rsp_rdata.value, d.cfg_rsp_err.value = valid, rdata, err
            sdata, svalid = rng.getrandbits(384), 0
            if self.pend_stat and self.pend_stat[0] <= self.cyc:
                _, t, w = self.pend_stat
                sdata = (sdata & ~(((1 << 192) - 1) << 192 * t)) | w << 192 * t
                svalid, self.pend_stat = 1 << t, None
            d.stat_rsp_valid.value, d.stat_rsp_data.value = svalid, sdata
            pc = p("PORT_COUNT")
            xdata, xdone = rng.getrandbits(32 * pc), 0
            if self.pend_sch and self.pend_sch[0] <= self.cyc:
                _, port, v = self.pend_sch
                xdata = (xdata & ~(0xFFFFFFFF << 32 * port)) | v << 32 * port
                xdone, self.pend_sch = 1 << port, None
            d.sch_done.value, d.sch_rdata.value = xdone, xdata
            await ReadOnly()
            self.sample()

    def sample(self):
        d = self.dut
        dbv, dbr = int(d.db_valid.value), int(d.db_ready.value)
        cfv, cfr = int(d.cfg_req_valid.value), int(d.cfg_req_ready.value)
        stv, str_ = int(d.stat_req_valid.value), int(d.stat_req_ready.value)
        bvalid, rvalid = int(d.s_axil_bvalid.value), int(d.s_axil_rvalid.value)
        # AXI: information held stable while valid && !ready (AMBA AXI A3.2.1)
        if rvalid:
            rdata = int(d.s_axil_rdata.value)
            if self.r_hold is not None and self.r_hold != rdata:
                self.violation(f"rdata changed while rvalid && !rready: {self.r_hold:#x} -> {rdata:#x}")
            self.r_hold = None if int(d.s_axil_rready.value) else rdata
        elif self.r_hold is not None:
            self.violation("rvalid dropped without a handshake")
            self.r_hold = None
        for name, v in (("db_valid", dbv), ("cfg_req_valid", cfv), ("stat_req_valid", stv)):
            if v & (v - 1):
                self.violation(f"{name} not one-hot: {v:b}")
        # doorbells: data held while valid && !ready, B only after the doorbell is taken
        if dbv:
            cur = (dbv, int(d.db_qidx.value), int(d.db_ptr.value), int(d.db_arm.value))
            if self.db_hold is not None and self.db_hold != cur:
                self.violation(f"doorbell changed while stalled: {self.db_hold} -> {cur}")
            self.db_hold = cur
            if dbv & dbr:
                self.dbs.append((dbv.bit_length() - 1,) + cur[1:])
                self.db_hold = None
        elif self.db_hold is not None:
            self.violation("db_valid dropped without a handshake")
            self.db_hold = None
        if bvalid and dbv:
            self.violation("write response while a doorbell is still pending")
        # queue manager configuration port
        if cfv:
            cur = (cfv, int(d.cfg_req_we.value), int(d.cfg_req_qidx.value),
                   int(d.cfg_req_field.value), int(d.cfg_req_wdata.value))
            if self.cfg_hold is not None and self.cfg_hold != cur:
                self.violation(f"cfg request changed while stalled: {self.cfg_hold} -> {cur}")
            self.cfg_hold = cur
            if cfv & cfr:
                self.cfg_hold = None
                self.cfg_accept(cfv.bit_length() - 1, *cur[1:])
        if (bvalid or rvalid) and (cfv or self.pend_cfg or stv or self.pend_stat):
            self.violation("AXI response while a queue-manager/statistics access is in flight")
        # statistics RAMs
        if stv & str_:
            t, q = stv.bit_length() - 1, int(d.stat_req_idx.value)
            if self.pend_stat:
                self.violation("second statistics request before the response")
            self.stat_reqs.append((t, q))
            pk, by, dr = self.stat_word(t, q)
            self.pend_stat = (self.cyc + 1 + self.delay(), t, dr << 128 | by << 64 | pk)
        # ports' scheduler windows: one-cycle requests, one at a time, answered by sch_done
        xv = int(d.sch_req_valid.value)
        if xv:
            if xv & (xv - 1):
                self.violation(f"sch_req_valid not one-hot: {xv:b}")
            if self.pend_sch:
                self.violation("second scheduler request before the answer")
            port, we, off = xv.bit_length() - 1, int(d.sch_req_we.value), int(d.sch_req_off.value)
            wdata = int(d.sch_req_wdata.value)
            self.sch_reqs.append((port, we, off, wdata))
            if we:
                self.sch_regs[(port, off)] = wdata
            self.pend_sch = (self.cyc + 1 + self.delay(), port, 0 if we else self.sch_regs.get((port, off), 0))
        if (bvalid or rvalid) and self.pend_sch:
            self.violation("AXI response before the scheduler answered")
        if int(d.rss_key_wr_en.value):
            self.key_wr.append((int(d.rss_key_wr_addr.value), int(d.rss_key_wr_data.value)))
        if int(d.rss_tbl_wr_en.value):
            self.tbl_wr.append((int(d.rss_tbl_wr_addr.value), int(d.rss_tbl_wr_data.value)))

    def cfg_accept(self, t, we, q, f, wdata):
        self.cfg_reqs.append((t, we, q, f, wdata))
        if self.pend_cfg:
            self.violation("second cfg request before the response")
        if q >= qcount(t) or f > 5:
            self.violation(f"cfg request type {t} queue {q} field {f} out of range reached the manager")
        err = int(self.rng.random() < self.err_p)
        rdata = 0
        if we and not err:
            self.qstate[t][(q, f)] = wdata
        elif not we:
            rdata = 0 if err else self.qstate[t].get((q, f), 0)
        self.last_err = err
        self.pend_cfg = (self.cyc + 1 + self.delay(), t, rdata, err)


async def setup(dut, seed):
    rng = axil_tb.rng_for(f"{seed}")
    c = Clients(dut, rng)
    c.init_inputs()
    m = await axil_tb.start(dut)
    cocotb.start_soon(c.run())
    return m, c, rng


def set_mode(m, c, rng, mode):
    c.p, axi_p = mode
    axil_tb.set_pauses(axil_tb.master_channels(m), rng, axi_p)


def check_clean(c):
    assert not c.violations, "\n".join(c.violations[:10])


async def rd(m, name):
    v, resp = await read32(m, OFF[name] if isinstance(name, str) else name)
    assert resp == axil_tb.AxiResp.OKAY
    return v


async def wr(m, name, v):
    resp = await write32(m, OFF[name] if isinstance(name, str) else name, v)
    assert resp == axil_tb.AxiResp.OKAY


# ---------------------------------------------------------------------------------------------
@cocotb.test(timeout_time=2, timeout_unit="ms")
async def test_params(dut):
    """Header and build parameters equal the model and the build; RO and WO registers and the
    holes read 0 / ignore writes."""
    m, c, rng = await setup(dut, "params")
    exp = {"TYPE": R.NIC_IF_BLOCK_TYPE, "VERSION": R.NIC_IF_BLOCK_VERSION, "NEXT": p("BLOCK_NEXT"),
           "FEATURES": R.NIC_IF_FEATURES_TX_CSUM_MASK | R.NIC_IF_FEATURES_RX_CSUM_MASK
           | R.NIC_IF_FEATURES_RSS_MASK | R.NIC_IF_FEATURES_TX_SG_MASK | R.NIC_IF_FEATURES_PTP_TS_MASK}
    for k in PARAMS:
        if k in OFF:
            exp[k] = p(k)
    assert set(exp) == {n for n, r in REGS.items() if r["offset"] <= OFF["TDMA_SLOTS_MAX"]}
    assert (R.NIC_IF_BLOCK_TYPE, R.NIC_IF_BLOCK_VERSION) == (REGS["TYPE"]["reset"], REGS["VERSION"]["reset"])
    used = {r["offset"] for r in REGS.values()}
    holes = [o for o in range(0, R.BLOCKS["nic_if"]["window"], 4) if o not in used]
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for name, v in exp.items():
            assert await rd(m, name) == v, name
        for name, _, _ in DB_REGS:      # write-only doorbells read as 0 and raise no doorbell
            assert await rd(m, name) == 0, name
        for o in holes:
            assert await rd(m, o) == 0, f"hole {o:#x}"
        for name in exp:                # read-only: writes ignored
            await wr(m, name, rng.getrandbits(32))
            assert await rd(m, name) == exp[name], name
        for o in rng.sample(holes, 8):
            await wr(m, o, rng.getrandbits(32))
    assert not c.dbs and not c.cfg_reqs and not c.stat_reqs and not c.key_wr and not c.tbl_wr
    check_clean(c)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def test_doorbells(dut):
    """Each doorbell register gives exactly one doorbell on its type's port, arm only for *_ARM,
    the write response only after the port took it."""
    m, c, rng = await setup(dut, "doorbells")
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(60):
            name, t, arm = rng.choice(DB_REGS)
            q, ptr = rng.getrandbits(16), rng.getrandbits(16)
            n = len(c.dbs)
            await wr(m, name, ptr << 16 | q)
            assert c.dbs[n:] == [(t, q, ptr, arm)], f"{name} q {q} ptr {ptr}: got {c.dbs[n:]}"
    check_clean(c)


@cocotb.test(timeout_time=6, timeout_unit="ms")
async def test_queue_config(dut):
    """Q_BASE_LO..Q_CONS become field 0..5 requests on the selected type's port; reads return the
    manager's answer; Q_STATUS.ERR follows the manager's error and an out-of-range Q_SEL, which
    sends nothing to the manager."""
    m, c, rng = await setup(dut, "qcfg")
    c.err_p = 0.15
    exp = {}            # (type, queue, field) -> word, as the software wrote it
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(25):
            t = rng.randrange(4)
            bad = rng.random() < 0.25
            if bad:
                q = rng.choice([qcount(t), qcount(t) + rng.randrange(1000), (1 << 24) - 1,
                                0x10000 | rng.randrange(qcount(t))])   # low 16 bits in range
            else:
                q = rng.randrange(qcount(t))
            sel = t << R.NIC_IF_Q_SEL_TYPE_LSB | q
            await wr(m, "Q_SEL", sel | rng.getrandbits(2) << 24)   # bits 27:24 are not stored
            assert await rd(m, "Q_SEL") == sel
            for _ in range(4):
                f = rng.randrange(6)
                we = rng.random() < 0.5
                v = rng.getrandbits(32)
                n = len(c.cfg_reqs)
                if we:
                    await wr(m, Q_FIELDS[f], v)
                else:
                    got = await rd(m, Q_FIELDS[f])
                reqs = c.cfg_reqs[n:]
                if bad:
                    assert reqs == [], f"out-of-range Q_SEL {sel:#x} reached the manager: {reqs}"
                    err = 1
                    if not we:
                        assert got == 0
                else:
                    assert len(reqs) == 1 and reqs[0][:4] == (t, int(we), q, f), \
                        f"{'write' if we else 'read'} {Q_FIELDS[f]} sel {sel:#x}: requests {reqs}"
                    if we:
                        assert reqs[0][4] == v
                    err = c.last_err
                    if we and not err:
                        exp[(t, q, f)] = v
                    if not we:
                        assert got == (0 if err else exp.get((t, q, f), 0)), \
                            f"type {t} q {q} {Q_FIELDS[f]}: {got:#x}"
                assert await rd(m, "Q_STATUS") == err, f"Q_STATUS after {Q_FIELDS[f]} sel {sel:#x}"
    assert any(r[1] == 1 for r in c.cfg_reqs) and any(r[1] == 0 for r in c.cfg_reqs)
    check_clean(c)


@cocotb.test(timeout_time=6, timeout_unit="ms")
async def test_queue_stats(dut):
    """Reading Q_STAT_PKTS_LO snapshots all six words from the type's statistics RAM; the other
    Q_STAT registers read the snapshot without a request; CQ/EQ and out-of-range queues give ERR."""
    m, c, rng = await setup(dut, "qstat")
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(20):
            t = rng.randrange(4)
            bad = t >= 2 or rng.random() < 0.2
            q = rng.randrange(qcount(t)) if not bad or t >= 2 and rng.random() < 0.7 \
                else qcount(t) + rng.randrange(100)
            await wr(m, "Q_SEL", t << R.NIC_IF_Q_SEL_TYPE_LSB | q)
            c.stats[t % 2].pop(q, None)     # fresh counter values for this queue
            n = len(c.stat_reqs)
            lo = await rd(m, "Q_STAT_PKTS_LO")
            if bad:
                assert c.stat_reqs[n:] == [], f"type {t} q {q}: request sent"
                assert lo == 0
                assert await rd(m, "Q_STATUS") == 1
                continue
            assert c.stat_reqs[n:] == [(t, q)]
            pk, by, dr = c.stat_word(t, q)
            words = [pk & 0xFFFFFFFF, pk >> 32, by & 0xFFFFFFFF, by >> 32, dr & 0xFFFFFFFF, dr >> 32]
            assert lo == words[0]
            assert await rd(m, "Q_STATUS") == 0
            c.stats[t].pop(q)               # the counters move on; the snapshot must not
            c.stat_word(t, q)
            for i in rng.sample(range(1, 6), 5) + [rng.randrange(1, 6)]:
                assert await rd(m, Q_STATS[i]) == words[i], f"type {t} q {q} {Q_STATS[i]}"
            assert c.stat_reqs[n:] == [(t, q)], "a snapshot register read sent a request"
    assert len(c.stat_reqs) > 20
    check_clean(c)


@cocotb.test(timeout_time=6, timeout_unit="ms")
async def test_rss(dut):
    """RSS_CTRL / RSS_DEFAULT_QUEUE read back and drive the outputs; key words pulse the key
    write port and read back; table data writes pulse the table port at RSS_TBL_IDX, which
    advances on writes and reads; reads return what was written."""
    m, c, rng = await setup(dut, "rss")
    size, rxq = p("RSS_TABLE_SIZE"), p("RXQ_COUNT")
    assert await rd(m, "RSS_CTRL") == 0 and await rd(m, "RSS_DEFAULT_QUEUE") == 0
    assert await rd(m, "RSS_TBL_IDX") == 0
    key = [0] * 10
    table = {}
    for mode in MODES:
        set_mode(m, c, rng, mode)
        v = rng.getrandbits(32)
        await wr(m, "RSS_CTRL", v)
        ctrl = v & (R.NIC_IF_RSS_CTRL_ENABLE_MASK | R.NIC_IF_RSS_CTRL_HASH_EN_MASK)
        assert await rd(m, "RSS_CTRL") == ctrl
        assert int(dut.rss_enable.value) == ctrl & 1
        assert int(dut.rss_hash_en.value) == ctrl >> R.NIC_IF_RSS_CTRL_HASH_EN_LSB
        v = rng.getrandbits(16) & ~(rxq - 1) | rng.randrange(rxq)
        await wr(m, "RSS_DEFAULT_QUEUE", v | rng.getrandbits(16) << 16)
        assert await rd(m, "RSS_DEFAULT_QUEUE") == v
        assert int(dut.rss_default_queue.value) == v % rxq
        # key
        for i in rng.sample(range(10), 10):
            key[i] = rng.getrandbits(32)
            n = len(c.key_wr)
            await wr(m, f"RSS_KEY{i}", key[i])
            assert c.key_wr[n:] == [(i, key[i])]
        for i in rng.sample(range(10), 10):
            assert await rd(m, f"RSS_KEY{i}") == key[i], f"RSS_KEY{i}"
        # table: a run of writes from a random index (wrapping past the table end)
        idx = rng.choice([size - 3, rng.randrange(1 << 16), rng.randrange(size)])
        await wr(m, "RSS_TBL_IDX", idx | rng.getrandbits(16) << 16)
        assert await rd(m, "RSS_TBL_IDX") == idx
        cnt = size if mode == MODES[0] else 24
        n = len(c.tbl_wr)
        wrote = []
        for k in range(cnt):
            q = rng.randrange(rxq)
            await wr(m, "RSS_TBL_DATA", q)
            a = (idx + k) % size
            table[a] = q
            wrote.append((a, q))
        assert c.tbl_wr[n:] == wrote
        exp_idx = (idx + cnt) & 0xFFFF
        assert await rd(m, "RSS_TBL_IDX") == exp_idx
        # read back from a random written index
        start = rng.choice(sorted(table))
        run = [(start + k) % size for k in range(16)]
        run = run[:next((k for k, a in enumerate(run) if a not in table), 16)]
        await wr(m, "RSS_TBL_IDX", start)
        for a in run:
            assert await rd(m, "RSS_TBL_DATA") == table[a], f"table entry {a}"
        assert await rd(m, "RSS_TBL_IDX") == start + len(run)
        assert len(c.tbl_wr) == n + cnt, "a read of RSS_TBL_DATA wrote the table"
    check_clean(c)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def test_ports(dut):
    """PORT_SEL selects the port of PORT_CTRL (TX enable, reset on) and the PORT_* counters;
    an out-of-range port reads 0 and ignores writes."""
    m, c, rng = await setup(dut, "ports")
    pc = p("PORT_COUNT")
    en = (1 << pc) - 1
    assert int(dut.port_tx_enable.value) == en
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(12):
            vals = {s: [rng.getrandbits(32) for _ in range(pc)] for s in PORT_SIGS}
            for s, vs in vals.items():
                getattr(dut, s).value = sum(v << 32 * i for i, v in enumerate(vs))
            sel = rng.choice(list(range(pc + 2)) + [255])
            await wr(m, "PORT_SEL", sel | rng.getrandbits(24) << 8)
            assert await rd(m, "PORT_SEL") == sel
            ok = sel < pc
            assert await rd(m, "PORT_CTRL") == ((en >> sel) & 1 if ok else 0)
            for s in PORT_SIGS:
                reg = s.upper()
                assert await rd(m, reg) == (vals[s][sel] if ok else 0), f"{reg} port {sel}"
            b = rng.getrandbits(1)
            await wr(m, "PORT_CTRL", b | rng.getrandbits(31) << 1)
            if ok:
                en = en & ~(1 << sel) | b << sel
            assert int(dut.port_tx_enable.value) == en
            assert await rd(m, "PORT_CTRL") == ((en >> sel) & 1 if ok else 0)
            # timestamp corrections: per port, out to the engines, read back; ignored out of range
            for reg, sig in (("PORT_TX_TS_CORR", "port_tx_ts_corr"), ("PORT_RX_TS_CORR", "port_rx_ts_corr")):
                before = int(getattr(dut, sig).value)
                v = rng.getrandbits(32)
                await wr(m, reg, v)
                after = before if not ok else before & ~(0xFFFFFFFF << 32 * sel) | v << 32 * sel
                assert int(getattr(dut, sig).value) == after, f"{reg} port {sel}"
                assert await rd(m, reg) == (v if ok else 0)
    check_clean(c)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def test_sched_window(dut):
    """Every register of the scheduler window goes, with its offset and data, to the scheduler of the
    port PORT_SEL selects, and a read returns that scheduler's answer; an out-of-range port reads 0
    and sends nothing. No AXI response before the scheduler answers."""
    m, c, rng = await setup(dut, "sched")
    pc = p("PORT_COUNT")
    window = [r["offset"] for r in REGS.values()
              if OFF["SCHED_Q_SEL"] <= r["offset"] <= OFF["SCHED_BAD_STS"]]
    assert len(window) == 21
    model = {}
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(40):
            sel = rng.choice(list(range(pc + 1)) + [255])
            await wr(m, "PORT_SEL", sel)
            off = rng.choice(window)
            n = len(c.sch_reqs)
            if rng.random() < 0.5:
                v = rng.getrandbits(32)
                await wr(m, off, v)
                if sel < pc:
                    assert c.sch_reqs[n:] == [(sel, 1, off, v)]
                    model[(sel, off)] = v
                else:
                    assert len(c.sch_reqs) == n
            else:
                got = await rd(m, off)
                if sel < pc:
                    assert c.sch_reqs[n:] == [(sel, 0, off, c.sch_reqs[n][3])]
                    assert got == model.get((sel, off), 0), f"port {sel} offset {off:#x}"
                else:
                    assert got == 0 and len(c.sch_reqs) == n
    assert not c.dbs and not c.cfg_reqs and not c.stat_reqs
    check_clean(c)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def test_counters(dut):
    """Each interface counter register reads its word of the `counters` input; TX_DESC_RETRY,
    TX_DATA_RETRY and RX_DESC_RETRY read the `tx_desc_retry`, `tx_data_retry` and `rx_desc_retry` inputs."""
    m, c, rng = await setup(dut, "counters")
    assert len(COUNTERS) == len(dut.counters) // 32
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(2):
            words = [rng.getrandbits(32) for _ in COUNTERS]
            dut.counters.value = sum(w << 32 * i for i, w in enumerate(words))
            retry, dretry, rretry = rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)
            dut.rx_desc_retry.value = rretry
            dut.tx_desc_retry.value = retry
            dut.tx_data_retry.value = dretry
            for i in rng.sample(range(len(COUNTERS)), len(COUNTERS)):
                assert await rd(m, COUNTERS[i]) == words[i], COUNTERS[i]
            # the TX engine's descriptor-fetch retries: a register of its own, outside the block of counters
            assert await rd(m, R.NIC_IF_TX_DESC_RETRY_OFFSET) == retry
            assert await rd(m, R.NIC_IF_TX_DATA_RETRY_OFFSET) == dretry
            assert await rd(m, R.NIC_IF_RX_DESC_RETRY_OFFSET) == rretry
    check_clean(c)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def test_overlapping_reads(dut):
    """AXI-Lite lets a master issue the next read address before taking the previous response:
    several reads in flight at once must each return their own register."""
    m, c, rng = await setup(dut, "overlap")
    key = [rng.getrandbits(32) for _ in range(10)]
    for i, k in enumerate(key):
        await wr(m, f"RSS_KEY{i}", k)
    words = [rng.getrandbits(32) for _ in COUNTERS]
    dut.counters.value = sum(w << 32 * i for i, w in enumerate(words))
    exp = {OFF[f"RSS_KEY{i}"]: k for i, k in enumerate(key)}
    exp.update({OFF[n]: w for n, w in zip(COUNTERS, words)})
    exp[OFF["IF_COUNT"]] = p("IF_COUNT")
    for mode in MODES:
        set_mode(m, c, rng, mode)
        addrs = [rng.choice(sorted(exp)) for _ in range(24)]
        tasks = [cocotb.start_soon(read32(m, a)) for a in addrs]
        got = [(await t)[0] for t in tasks]
        bad = [(f"{a:#x}", f"{g:#x}", f"{exp[a]:#x}") for a, g in zip(addrs, got) if g != exp[a]]
        assert not bad, f"(addr, got, expected): {bad[:6]}"
    await ClockCycles(dut.clk, 2)
    check_clean(c)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def test_live_counters(dut):
    """Counters and port counters that move every cycle: a read returns a value the counter had
    during the access, and RDATA stays stable while the master stalls R."""
    m, c, rng = await setup(dut, "live")
    n, pc = len(COUNTERS), p("PORT_COUNT")
    cnt = [rng.getrandbits(32) for _ in range(n)]
    port = [rng.getrandbits(32) for _ in range(pc)]

    async def tick():
        while True:
            await FallingEdge(dut.clk)
            for i in range(n):
                cnt[i] = (cnt[i] + rng.randrange(3)) & 0xFFFFFFFF
            for i in range(pc):
                port[i] = (port[i] + rng.randrange(3)) & 0xFFFFFFFF
            dut.counters.value = sum(w << 32 * i for i, w in enumerate(cnt))
            dut.port_rx_bytes.value = sum(w << 32 * i for i, w in enumerate(port))

    cocotb.start_soon(tick())
    for mode in MODES:
        set_mode(m, c, rng, mode)
        for _ in range(20):
            if rng.random() < 0.3:
                sel = rng.randrange(pc)
                await wr(m, "PORT_SEL", sel)
                lo = port[sel]
                v = await rd(m, "PORT_RX_BYTES")
                hi = port[sel]
            else:
                i = rng.randrange(n)
                lo = cnt[i]
                v = await rd(m, COUNTERS[i])
                hi = cnt[i]
            assert (v - lo) % (1 << 32) <= (hi - lo) % (1 << 32), f"read {v:#x} outside [{lo:#x}, {hi:#x}]"
    check_clean(c)


def test_beryl_nic_if_regs():
    sys.path.insert(0, str(HERE.parents[1] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_if_regs", "rtl/nic/beryl_nic_if_regs.f", "test_beryl_nic_if_regs", HERE,
                  parameters=PARAMS)
