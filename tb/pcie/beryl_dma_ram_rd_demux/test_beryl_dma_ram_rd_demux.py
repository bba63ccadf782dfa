# SPDX-License-Identifier: MIT
"""beryl_dma_ram_rd_demux: client RAMs (Python, one per client and segment) are filled with random
writes, then random reads on both segments (random engine idle) go through the demux. Each client
accepts commands with random backpressure and answers in order after its own random latency (clients
differ, so a later read to a fast client is ready before an earlier one to a slow client); the engine
takes responses with random backpressure. Checks: each engine read becomes exactly one read at the
client the top row bits name, with the low bits as address; responses reach the engine in command order
per segment with the data of a flat Python memory model; reads outstanding never exceed FIFO_DEPTH (and
reach it); in every cycle resp_any says whether a read is outstanding and resp_sel names the client of
the oldest. No stalls, idle, backpressure, both. With DATA=0 the demux's data output stays 0 and the
bench selects the client data by resp_any/resp_sel, as beryl_nic_if does."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

MODES = [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)]
SEG = 2


def sl(v, i, w):
    return (v >> (i * w)) & ((1 << w) - 1)


@cocotb.test()
async def test_reads(dut):
    d = dut
    ports = len(d.m_ram_rd_cmd_valid) // SEG
    aw = len(d.s_ram_rd_cmd_addr) // SEG
    caw = len(d.m_ram_rd_cmd_addr) // (SEG * ports)
    dw = len(d.s_ram_rd_resp_data) // SEG
    depth = int(os.environ["PARAM_FIFO_DEPTH"])
    data_sel = int(os.environ.get("PARAM_DATA", "1"))   # 0: the bench selects the data
    iw = max(1, (ports - 1).bit_length())
    assert caw == aw - (ports - 1).bit_length()
    rng = beryl_seed.rng(ports * 7 + depth, "test_reads")
    Clock(d.clk, 4, unit="ns").start()
    d.s_ram_rd_cmd_valid.value = 0
    d.s_ram_rd_resp_ready.value = 0
    d.m_ram_rd_cmd_ready.value = 0
    d.m_ram_rd_resp_valid.value = 0
    d.m_ram_rd_resp_data.value = 0
    d.rst.value = 1
    await ClockCycles(d.clk, 3)
    d.rst.value = 0

    # random writes into a flat model; each client RAM holds its slice (row = client << caw | client row)
    flat = [dict() for _ in range(SEG)]
    for _ in range(4 * (1 << aw)):
        s, a = rng.randrange(SEG), rng.randrange(1 << aw)
        flat[s][a] = rng.getrandbits(dw)
    client = [[{a & ((1 << caw) - 1): w for a, w in flat[s].items() if a >> caw == p} for s in range(SEG)]
              for p in range(ports)]
    lat = [(1, 1), (1, 12), (2, 5), (4, 20)] * 4       # per-client latency range, cycles
    max_out = 0
    now = 0
    for idle, bp in MODES:
        todo = [[rng.randrange(1 << aw) for _ in range(300)] for _ in range(SEG)]
        cur = [None] * SEG                             # engine command on the bus
        exp = [[] for _ in range(SEG)]                 # expected responses, command order
        cq = [[[] for _ in range(SEG)] for _ in range(ports)]   # client read queues: (due, data)
        last_due = [[0] * SEG for _ in range(ports)]
        done = 0
        while done < SEG * 300:
            await FallingEdge(d.clk)
            now += 1
            assert now < 100000, "timeout"
            av, vv = 0, 0
            for s in range(SEG):
                if cur[s] is None and todo[s] and rng.random() >= idle:
                    cur[s] = todo[s].pop(0)
                av |= (cur[s] if cur[s] is not None else rng.randrange(1 << aw)) << (aw * s)
                vv |= int(cur[s] is not None) << s
            d.s_ram_rd_cmd_addr.value = av
            d.s_ram_rd_cmd_valid.value = vv
            rr = 0
            for s in range(SEG):
                rr |= int(rng.random() >= bp) << s
            d.s_ram_rd_resp_ready.value = rr
            crdy, cval, cdat = 0, 0, 0
            for p in range(ports):
                for s in range(SEG):
                    i = p * SEG + s
                    crdy |= int(rng.random() >= bp) << i
                    q = cq[p][s]
                    if q and q[0][0] <= now:
                        cval |= 1 << i
                        cdat |= q[0][1] << (dw * i)
                    else:
                        cdat |= rng.getrandbits(dw) << (dw * i)   # data without valid must not leak
            d.m_ram_rd_cmd_ready.value = crdy
            d.m_ram_rd_resp_valid.value = cval
            d.m_ram_rd_resp_data.value = cdat
            await ReadOnly()
            s_crdy = int(d.s_ram_rd_cmd_ready.value)
            m_cval = int(d.m_ram_rd_cmd_valid.value)
            m_caddr = int(d.m_ram_rd_cmd_addr.value)
            s_rval = int(d.s_ram_rd_resp_valid.value)
            s_rdat = int(d.s_ram_rd_resp_data.value)
            m_rrdy = int(d.m_ram_rd_resp_ready.value)
            r_any = int(d.resp_any.value)
            r_sel = int(d.resp_sel.value)
            for s in range(SEG):
                # commands
                hs = [p for p in range(ports) if (m_cval & crdy) >> (p * SEG + s) & 1]
                vs = [p for p in range(ports) if m_cval >> (p * SEG + s) & 1]
                if cur[s] is None:
                    assert not vs, f"seg {s}: client read valid with no engine read"
                else:
                    a = cur[s]
                    pe = a >> caw
                    assert vs in ([pe], []), f"seg {s} row {a:#x}: valid to clients {vs}, expected {pe}"
                    if not vs:
                        assert len(exp[s]) == depth, "command held back with room in the order FIFO"
                    if s_crdy >> s & 1:
                        assert hs == [pe]
                        ca = sl(m_caddr, pe * SEG + s, caw)
                        assert ca == a & ((1 << caw) - 1)
                        due = max(last_due[pe][s], now + rng.randint(*lat[pe]))
                        last_due[pe][s] = due
                        cq[pe][s].append((due, client[pe][s].get(ca, 0)))
                        exp[s].append((flat[s].get(a, 0), pe))
                        cur[s] = None
                    else:
                        assert not hs
                # responses (exp as it was before this cycle's command: resp_any/resp_sel are the
                # FIFO's state, a command taken now counts from the next cycle)
                out = exp[s][:-1] if hs and s_crdy >> s & 1 else exp[s]
                assert (r_any >> s & 1) == int(bool(out)), f"seg {s}: resp_any {r_any >> s & 1} with {len(out)} out"
                if out:
                    assert sl(r_sel, s, iw) == out[0][1], f"seg {s}: resp_sel {sl(r_sel, s, iw)}, expected {out[0][1]}"
                if not data_sel:
                    assert sl(s_rdat, s, dw) == 0, f"seg {s}: data output not 0 with DATA=0"
                pops = [p for p in range(ports) if (cval & m_rrdy) >> (p * SEG + s) & 1]
                if (s_rval & rr) >> s & 1:
                    assert len(pops) == 1, f"seg {s}: engine took a response, clients popped {pops}"
                    got = sl(s_rdat, s, dw) if data_sel else sl(cdat, sl(r_sel, s, iw) * SEG + s, dw)
                    assert exp[s], f"seg {s}: response with no read outstanding"
                    want, _ = exp[s].pop(0)
                    assert got == want, f"seg {s}: read data {got:#x}, expected {want:#x}"
                    cq[pops[0]][s].pop(0)
                    done += 1
                else:
                    assert not pops, f"seg {s}: client {pops} popped without the engine taking it"
                max_out = max(max_out, len(exp[s]))
                assert len(exp[s]) <= depth
        dut._log.info("idle %.1f bp %.1f: done at cycle %d", idle, bp, now)
    assert max_out == depth


# PORTS=1 (no decode) only in the long run: the contract asks for 2 and 4
@pytest.mark.parametrize("ports,depth,data", [(2, 8, 1), (4, 4, 1), (4, 4, 0)] +
                         ([(1, 2, 1), (2, 8, 0)] if int(os.environ.get("BERYL_LONG", "0")) else []))
def test_beryl_dma_ram_rd_demux(ports, depth, data):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_dma_ram_rd_demux", "rtl/pcie/beryl_dma_ram_rd_demux.f", "test_beryl_dma_ram_rd_demux",
                  Path(__file__).parent,
                  parameters={"PORTS": ports, "SEG_DATA_W": 64, "SEG_ADDR_W": 6, "FIFO_DEPTH": depth, "DATA": data})
