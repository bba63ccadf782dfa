# SPDX-License-Identifier: MIT
"""beryl_dma_desc_mux: random descriptors from every client (random idle), engine-side backpressure,
and a Python engine that answers each descriptor with a random error code after a random delay (out of
order). Checks: every descriptor reaches the engine exactly once, unmodified, in order per client, with
tag = {client, client tag}; every status reaches its client only, once, with its tag and error code;
round robin: while a client waits, every other client gets at most one grant; the clock gate's enable
every cycle (high exactly when a flop can change). No stalls, idle, backpressure, both."""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
from gate_check import GateCheck  # noqa: E402

MODES = [(0.0, 0.0), (0.6, 0.0), (0.0, 0.5), (0.6, 0.5)]


def sl(v, i, w):
    return (v >> (i * w)) & ((1 << w) - 1)


@cocotb.test()
async def test_mux(dut):
    d = dut
    ports = len(d.s_desc_valid)
    ctw = len(d.s_desc_tag) // ports
    aw = len(d.m_desc_ram_addr)
    lw = len(d.m_desc_len)
    tw = len(d.m_desc_tag)
    sel_w = (ports - 1).bit_length() if ports > 1 else 0
    assert tw == ctw + sel_w
    rng = beryl_seed.rng(ports, "test_mux")
    Clock(d.clk, 4, unit="ns").start()
    d.s_desc_valid.value = 0
    d.m_desc_ready.value = 0
    d.m_desc_status_valid.value = 0
    d.m_desc_status_tag.value = 0
    d.m_desc_status_error.value = 0
    d.rst.value = 1
    # the clock gate's enable: high exactly when a flop can change (a client descriptor taken, the
    # output one taken, a status or its pulse, a reset), so closed while clients wait behind an
    # output descriptor not taken (tb/common/gate_check.py)
    v = lambda name: int(getattr(d, name).value)  # noqa: E731
    gc = GateCheck(d, moving=lambda: v("rst") or v("s_desc_valid") & v("s_desc_ready")
                   or (v("m_desc_valid") and v("m_desc_ready")) or v("m_desc_status_valid") or v("sts_valid_q"),
                   waiting=lambda: v("s_desc_valid"))
    await ClockCycles(d.clk, 3)
    d.rst.value = 0

    for idle, bp in MODES:
        n_per = 60
        todo = [[(rng.getrandbits(64), rng.getrandbits(aw), rng.getrandbits(lw), rng.getrandbits(ctw))
                 for _ in range(n_per)] for _ in range(ports)]
        by_host = {}                  # host addr -> (port, index in that port's list)
        for p in range(ports):
            for i, t in enumerate(todo[p]):
                assert t[0] not in by_host
                by_host[t[0]] = (p, i)
        nxt = [0] * ports             # next descriptor each client presents
        cur = [None] * ports          # descriptor on the bus
        seen = [0] * ports            # descriptors of each client received by the engine
        waiting = {}                  # port -> grants to others since it started waiting
        expect = [[] for _ in range(ports)]   # (client tag, error) each client still expects
        pend = []                     # engine: (due cycle, engine tag, error)
        got_sts = 0
        now = 0
        total = ports * n_per
        while got_sts < total or any(cur) or pend:
            await FallingEdge(d.clk)
            now += 1
            assert now < 20000, "timeout"
            vbits, hv, rv, lv, tv = 0, 0, 0, 0, 0
            for p in range(ports):
                if cur[p] is None and nxt[p] < n_per and rng.random() >= idle:
                    cur[p] = todo[p][nxt[p]]
                    nxt[p] += 1
                if cur[p] is not None:
                    h, ra, ln, tg = cur[p]
                    vbits |= 1 << p
                    hv |= h << (64 * p)
                    rv |= ra << (aw * p)
                    lv |= ln << (lw * p)
                    tv |= tg << (ctw * p)
            d.s_desc_valid.value = vbits
            d.s_desc_host_addr.value = hv
            d.s_desc_ram_addr.value = rv
            d.s_desc_len.value = lv
            d.s_desc_tag.value = tv
            d.m_desc_ready.value = int(rng.random() >= bp)
            due = [s for s in pend if s[0] <= now]
            if due:
                s = rng.choice(due)
                pend.remove(s)
                d.m_desc_status_valid.value = 1
                d.m_desc_status_tag.value = s[1]
                d.m_desc_status_error.value = s[2]
            else:
                d.m_desc_status_valid.value = 0
            await ReadOnly()
            # statuses (registered: this is the pulse for an earlier engine status)
            sv = int(d.s_desc_status_valid.value)
            assert sv & (sv - 1) == 0, "status pulse on two clients"
            for p in range(ports):
                if sv >> p & 1:
                    t = sl(int(d.s_desc_status_tag.value), p, ctw)
                    e = sl(int(d.s_desc_status_error.value), p, 4)
                    assert (t, e) in expect[p], f"client {p}: unexpected status tag {t} error {e}"
                    expect[p].remove((t, e))
                    got_sts += 1
            # engine side
            if d.m_desc_valid.value == 1 and d.m_desc_ready.value == 1:
                h = int(d.m_desc_host_addr.value)
                assert h in by_host, "descriptor the clients never sent (or sent twice)"
                p, i = by_host.pop(h)
                assert i == seen[p], f"client {p}: descriptor {i} arrived out of order"
                seen[p] += 1
                _, ra, ln, tg = todo[p][i]
                assert int(d.m_desc_ram_addr.value) == ra and int(d.m_desc_len.value) == ln
                mt = int(d.m_desc_tag.value)
                assert mt == (p << ctw) | tg, f"tag {mt:x}, client {p} tag {tg:x}"
                err = rng.randrange(16)
                expect[p].append((tg, err))
                pend.append((now + rng.randint(1, 40), mt, err))
            # client handshakes and fairness
            rdy = int(d.s_desc_ready.value)
            granted = [p for p in range(ports) if cur[p] is not None and rdy >> p & 1]
            assert len(granted) <= 1
            for p in range(ports):
                if cur[p] is not None and p not in waiting:
                    waiting[p] = {}
            for g in granted:
                for p, cnt in waiting.items():
                    if p != g:
                        cnt[g] = cnt.get(g, 0) + 1
                        assert cnt[g] <= 1, f"client {g} granted twice while client {p} waited"
                waiting.pop(g, None)
                cur[g] = None
        assert not by_host and all(not e for e in expect)
        dut._log.info("idle %.1f bp %.1f: %d descriptors in %d cycles", idle, bp, total, now)
    await FallingEdge(d.clk)
    d.s_desc_valid.value = 0
    gc.check(min_closed_waits=20)


@pytest.mark.parametrize("ports", [1, 3, 16])
def test_beryl_dma_desc_mux(ports):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_dma_desc_mux", "rtl/pcie/beryl_dma_desc_mux.f", "test_beryl_dma_desc_mux",
                  Path(__file__).parent,
                  parameters={"PORTS": ports, "RAM_ADDR_W": 20, "LEN_W": 17, "CLIENT_TAG_W": 6})
