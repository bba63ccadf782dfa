# SPDX-License-Identifier: MIT
"""beryl_eth_pcs_serdes_w32: the 66-bit block <-> 32-bit SerDes width converter.

Clocks: serdes_*_clk period P, tx_clk / rx_clk 2P, started together so every f edge is a 2f edge.
TX: a random 66-bit block per tx_clk -> the 32-bit stream, checked half by half against the format
(first half = header + payload[31:0] with hdr_valid, on the 2f edge in the middle of the tx_clk cycle;
second half = payload[63:32]) and deserialized back into the same blocks.
RX: 32-bit streams built here from random blocks, starting on either half, with stray halves (the header
moves by one half) and lost halves (a block broken): every rx_clk output against the documented
selection rule (model `rx_expect`), and the delivered non-fill blocks equal the unbroken input blocks in
order. Slip requests (random, back to back included) come out as one 2f pulse each, 1.5 rx_clk later.
"""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

P_PS = 3200            # 2f period (312.5 MHz); f = 156.25 MHz
M32 = (1 << 32) - 1
T0 = [0]               # sim time at which this test's clocks started (tests share one simulation)


def edge_index():
    """Index n of the current 2f edge (time n * P); even n are the edges shared with the f clock."""
    t = int(get_sim_time("ps")) - T0[0]
    assert t % P_PS == 0, f"2f edge at {t} ps is off the grid"
    return t // P_PS


async def start(dut):
    T0[0] = int(get_sim_time("ps"))
    Clock(dut.serdes_tx_clk, P_PS, unit="ps").start()
    Clock(dut.tx_clk, 2 * P_PS, unit="ps").start()
    Clock(dut.serdes_rx_clk, P_PS, unit="ps").start()
    Clock(dut.rx_clk, 2 * P_PS, unit="ps").start()
    for s in ("tx_rst", "rx_rst", "serdes_tx_rst", "serdes_rx_rst"):
        getattr(dut, s).value = 1
    dut.pcs_tx_data.value = 0
    dut.pcs_tx_hdr.value = 0
    dut.serdes_rx_data.value = 0
    dut.serdes_rx_hdr.value = 0
    dut.serdes_rx_hdr_valid.value = 0
    dut.pcs_rx_bitslip.value = 0
    await ClockCycles(dut.tx_clk, 4)
    for s in ("tx_rst", "rx_rst", "serdes_tx_rst", "serdes_rx_rst"):
        getattr(dut, s).value = 0


# ---------------------------------------------------------------------------------------------------
# TX

def serialize(blocks):
    """The 32-bit format: per block (hdr, data) two halves (data, hdr, hdr_valid)."""
    out = []
    for hdr, d in blocks:
        out.append((d & M32, hdr, 1))
        out.append((d >> 32, hdr, 0))
    return out


def deserialize(halves):
    """Blocks from a 32-bit stream: a half with hdr_valid, then one without."""
    blocks, first = [], None
    for d, h, hv in halves:
        if hv:
            first = (h, d)
        elif first is not None:
            blocks.append((first[0], first[1] | (d << 32)))
            first = None
    return blocks


@cocotb.test()
async def test_tx(dut):
    """Random blocks at tx_clk -> 32-bit stream equal to the format, half by half and as blocks."""
    await start(dut)
    rng = ethtb.seeded("test_tx")
    driven = {}     # 2f edge index of the tx_clk edge that launched a block -> block
    seen = []       # (edge index, data, hdr, hdr_valid) after each 2f edge
    for _ in range(2 * 600):
        await RisingEdge(dut.serdes_tx_clk)
        n = edge_index()
        if n % 2 == 0:   # a tx_clk edge: the PCS's output register takes the next block
            b = (rng.getrandbits(2), rng.getrandbits(64))
            dut.pcs_tx_hdr.value, dut.pcs_tx_data.value = b
            driven[n] = b
        await ReadOnly()
        assert int(dut.tx_clk.value) == (n % 2 == 0), "clocks not phase aligned"
        seen.append((n, int(dut.serdes_tx_data.value), int(dut.serdes_tx_hdr.value),
                     int(dut.serdes_tx_hdr_valid.value)))
    checked = 0
    for n, d, h, hv in seen:
        if n % 2 == 1 and n - 1 in driven:        # mid edge: first half of the block from edge n - 1
            bh, bd = driven[n - 1]
            assert (d, h, hv) == (bd & M32, bh, 1), f"edge {n}: first half {(hex(d), h, hv)}"
            checked += 1
        elif n % 2 == 0 and n - 2 in driven:      # shared edge: second half of the block from n - 2
            bh, bd = driven[n - 2]
            assert (d, h, hv) == (bd >> 32, bh, 0), f"edge {n}: second half {(hex(d), h, hv)}"
            checked += 1
    assert checked > 1100
    # the stream as a whole, read by the format model
    got = deserialize([(d, h, hv) for _, d, h, hv in seen])
    want = [driven[n] for n in sorted(driven)]
    k = want.index(got[0])
    assert got == want[k:k + len(got)] and len(got) >= len(want) - 2
    assert deserialize(serialize(got)) == got
    dut._log.info("TX: %d halves checked, %d blocks deserialized", checked, len(got))


# ---------------------------------------------------------------------------------------------------
# RX

def make_halves(rng, nblocks, start_half, p_stray, p_lost):
    """A 32-bit stream: idle halves, optionally one stray half (start on the other half), then random
    blocks with stray halves (hdr_valid 0, random content) and lost second halves between them.
    Returns (halves, the blocks that arrive whole)."""
    halves = [(0, 0, 0)] * 4
    if start_half:
        halves.append((rng.getrandbits(32), rng.getrandbits(2), 0))
    whole = []
    broken = False
    for i in range(nblocks):
        hdr, d = rng.choice([1, 2, 3]), rng.getrandbits(64)
        if not broken and rng.random() < p_stray:
            halves.append((rng.getrandbits(32), rng.getrandbits(2), 0))
        halves.append((d & M32, hdr, 1))
        broken = i < nblocks - 1 and rng.random() < p_lost
        if broken:
            continue
        halves.append((d >> 32, rng.getrandbits(2), 0))   # header bits of a second half are junk
        whole.append((hdr, d))
    return halves + [(0, 0, 0)] * 8, whole


def rx_expect(sampled, n, prev):
    """The selection rule at the rx_clk edge n from the halves sampled on 2f edges n-1, n-2, n-3.
    `prev` = (data, shift) before this edge; returns (data, hdr, fill, shift)."""
    idle = (0, 0, 0)
    h1, h2, h3 = (sampled.get(n - k, idle) for k in (1, 2, 3))
    if h2[2] and not h1[2]:
        return (h1[0] << 32) | h2[0], h2[1], 0, 0
    if h3[2] and not h2[2]:
        return (h2[0] << 32) | h3[0], h3[1], 0, 1
    return prev[0], 0, 1, prev[1]


async def rx_run(dut, rng, halves, p_slip):
    sampled = {}    # 2f edge index -> half sampled by the converter on that edge
    outs = []       # (rx edge index, data, hdr, fill, shift)
    slip_req, slip_out = [], []
    i = 0
    while i < len(halves):
        await RisingEdge(dut.serdes_rx_clk)
        n = edge_index()
        d, h, hv = halves[i]
        dut.serdes_rx_data.value, dut.serdes_rx_hdr.value, dut.serdes_rx_hdr_valid.value = d, h, hv
        sampled[n + 1] = halves[i]
        i += 1
        if n % 2 == 0:
            s = int(rng.random() < p_slip)
            dut.pcs_rx_bitslip.value = s
            if s:
                slip_req.append(n)
        await ReadOnly()
        if int(dut.serdes_rx_bitslip.value):
            slip_out.append(n)
        if n % 2 == 0:
            outs.append((n, int(dut.pcs_rx_data.value), int(dut.pcs_rx_hdr.value),
                         int(dut.rx_fill_block.value), int(dut.rx_half_shift.value)))
    for _ in range(8):
        await RisingEdge(dut.serdes_rx_clk)
        if edge_index() % 2 == 0:     # end a request only on an rx_clk edge, as a register would
            dut.pcs_rx_bitslip.value = 0
        await ReadOnly()
        if int(dut.serdes_rx_bitslip.value):
            slip_out.append(edge_index())
    return sampled, outs, slip_req, slip_out


async def rx_test(dut, name, nblocks, start_half, p_stray, p_lost, p_slip):
    await start(dut)
    rng = ethtb.seeded(name)
    halves, whole = make_halves(rng, nblocks, start_half, p_stray, p_lost)
    sampled, outs, slip_req, slip_out = await rx_run(dut, rng, halves, p_slip)
    # every rx_clk output against the rule
    prev, started, fill_at, shifts = (None, 0), False, [], set()
    for k, (n, d, h, fill, shift) in enumerate(outs):
        ed, eh, efill, eshift = rx_expect(sampled, n, prev)
        started = started or not efill
        if started:
            assert (h, fill, shift) == (eh, efill, eshift), \
                f"rx edge {n}: got {(h, fill, shift)}, want {(eh, efill, eshift)}"
            assert d == ed, f"rx edge {n}: data {d:016x}, want {ed:016x}"
            if fill:
                fill_at.append(k)
            shifts.add(shift)
        prev = (ed if started else None, eshift if started else 0)
    last = max(k for k, o in enumerate(outs) if not o[3])
    fills = sum(k < last for k in fill_at)     # fill blocks between blocks (not the idle tail)
    # the blocks that arrived whole are delivered once each, in order
    got = [(h, d) for n, d, h, fill, _ in outs if not fill and h]
    assert got == whole, f"{len(got)} blocks delivered, {len(whole)} sent whole"
    # slip pulses: one 2f pulse per request, 3 2f clocks (1.5 rx_clk) after it
    assert slip_out == [n + 3 for n in slip_req], f"slips {slip_req[:8]} -> {slip_out[:8]}"
    dut._log.info("RX %s: %d blocks, %d fill blocks, shift states %s, %d slips", name, len(got), fills,
                  sorted(shifts), len(slip_req))
    return fills, shifts


@cocotb.test()
async def test_rx_steady_even(dut):
    """A stream starting on one half, no changes: every block delivered, no fill after the first."""
    fills, shifts = await rx_test(dut, "test_rx_steady_even", 300, 0, 0, 0, 0.1)
    assert fills == 0 and shifts == {0}


@cocotb.test()
async def test_rx_steady_odd(dut):
    """The same starting on the other half: realigned by one half, every block delivered."""
    fills, shifts = await rx_test(dut, "test_rx_steady_odd", 300, 1, 0, 0, 0.1)
    assert fills == 0 and shifts == {1}


@cocotb.test()
async def test_rx_alignment_changes(dut):
    """Stray and lost halves move the header between the two halves of rx_clk; slips back to back."""
    fills, shifts = await rx_test(dut, "test_rx_alignment_changes", 1500, 0, 0.03, 0.01, 0.4)
    assert fills > 0 and shifts == {0, 1}


def test_beryl_eth_pcs_serdes_w32():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_pcs_serdes_w32", "rtl/eth/beryl_eth_pcs_serdes_w32.f",
                  "test_beryl_eth_pcs_serdes_w32", Path(__file__).parent)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
