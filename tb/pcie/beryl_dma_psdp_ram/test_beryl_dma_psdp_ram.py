# SPDX-License-Identifier: MIT
"""Unit test of beryl_dma_psdp_ram: SEG_COUNT independent banks, one write and one read per bank per cycle,
byte enables, reads answered after one cycle through an output register that holds its word until taken.

Reference model (from the module header and ports, not from the RTL), per segment: a dict of rows (value and
a mask of the bits known: the RAM has no reset, so bytes never written are not compared) and the output
register (valid, word). Every cycle, with the inputs driven after the falling edge:
- ram_wr_cmd_ready is high (a write is never refused) and ram_rd_cmd_ready is high exactly when the output
  register is empty or its word is taken in this cycle (ram_rd_resp_ready);
- ram_rd_resp_valid is the model's register, ram_rd_resp_data its word (known bits) while valid;
- at the rising edge an accepted read loads the register with the row as it was before the edge, a taken
  word empties it, and an accepted write merges its enabled bytes into its row ("writes take effect when
  accepted": a read in the next cycle sees them). Segments never see each other's rows.
Read during write (same segment, same row, same cycle): the header does not say; the bench expects the old
row (both ports sample the row at the same edge, as in the RTL), and counts those cycles in which the new
row differs from the old one in known bits, so the rule is really exercised.
Reset: the output register empties (a word held under backpressure is dropped), ram_rd_cmd_ready is high
after it; the rows keep their contents (the RAM itself has no reset); writes during reset are accepted
(ram_wr_cmd_ready stays high) and take effect.

Clock gate: the RAM clocks itself through beryl_clk_gate with an enable that must be exact. Every parameter
set is built twice, gated and with +define+BERYL_NO_CLK_GATE (gclk = clk), and both builds must match the
model every cycle; each run also writes a digest of everything it compared, and the two digests must be
equal. The stimulus includes the cycles an inexact enable would get wrong: a word taken with no command at
any input, a reset with no command, long idle stretches with a word held. The gated build also checks the
enable itself every cycle: high exactly when a row or an output register can change, so closed while a read
command waits behind a word not taken (the cycles a C++ model then skips).

Tests: random traffic (random rows, a small set of hot rows for collisions, random byte enables incl. none
and all, garbage on address/data without valid) in modes no stalls, sparse commands, backpressure, both,
full rate (every port every cycle); read-after-write and read-during-write on every segment; reset with a
held word, mid-traffic and idle. BERYL_LONG=1: more cycles and more shapes (widths, segment counts, sizes).
"""
import hashlib
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
SEG = int(os.environ.get("PARAM_SEG_COUNT", "2"))
DW = int(os.environ.get("PARAM_SEG_DATA_W", "512"))
SIZE = int(os.environ.get("PARAM_SIZE", "65536"))
BE_W = DW // 8
ROWS = SIZE // (SEG * BE_W)
AW = ROWS.bit_length() - 1
MASK = (1 << DW) - 1


def field(v, i, w):
    return (v >> (i * w)) & ((1 << w) - 1)


def be_mask(be):
    """Byte enables -> bit mask of the enabled bytes."""
    m = 0
    for b in range(BE_W):
        if be >> b & 1:
            m |= 0xFF << (8 * b)
    return m


class Mode:
    def __init__(self, name, wr, rd, ready, hot=0.6, cycles=1000):
        self.name, self.wr, self.rd, self.ready, self.hot, self.cycles = name, wr, rd, ready, hot, cycles


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.mem = [dict() for _ in range(SEG)]        # row -> (value, known bit mask)
        self.out = [(0, 0, 0)] * SEG                   # output register: (valid, value, known mask)
        self.cycle = 0
        self.errors = []
        self.digest = hashlib.sha1()
        self.hot = sorted({0, ROWS - 1} | {self.rng.randrange(ROWS) for _ in range(min(ROWS, 6))})
        self.last_wr = [None] * SEG                    # row written in the previous cycle
        self.n = dict(reads=0, known_reads=0, writes=0, rdw=0, rdw_diff=0, raw=0, held=0, take_only=0,
                      rst_drop=0, rst_wr=0, rd_refused=0, partial_be=0, gate_closed_wait=0)
        # the gated build's clock-gate enable (the ungated one, BERYL_NO_CLK_GATE, has none)
        self.gate = dut.u_gate.gate_en_now if hasattr(dut.u_gate, "gate_en_now") else None
        dut.rst.value = 1
        for s in ("ram_wr_cmd_addr", "ram_wr_cmd_be", "ram_wr_cmd_data", "ram_wr_cmd_valid", "ram_rd_cmd_addr",
                  "ram_rd_cmd_valid", "ram_rd_resp_ready"):
            getattr(dut, s).value = 0
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def row(self, s, r):
        return self.mem[s].get(r, (0, 0))

    def pick_row(self, mode):
        return self.rng.choice(self.hot) if self.rng.random() < mode.hot else self.rng.randrange(ROWS)

    def pick_be(self):
        k = self.rng.random()
        if k < 0.2:
            return (1 << BE_W) - 1
        if k < 0.25:
            return 0
        if k < 0.35:
            return 1 << self.rng.randrange(BE_W)
        return self.rng.getrandbits(BE_W)

    async def cycle_once(self, wr, rd, ready, rst=0):
        """One cycle. wr[s]: None or (row, be, data); rd[s]: None or row; ready: bit mask."""
        dut, rng = self.dut, self.rng
        await FallingEdge(dut.clk)
        self.cycle += 1
        wa = wb = wd = wv = ra = rv = 0
        for s in range(SEG):
            w = wr[s]
            row, be, data = w if w is not None else (rng.randrange(ROWS), rng.getrandbits(BE_W),
                                                     rng.getrandbits(DW))    # garbage without valid
            wa |= row << (AW * s)
            wb |= be << (BE_W * s)
            wd |= data << (DW * s)
            wv |= int(w is not None) << s
            ra |= (rd[s] if rd[s] is not None else rng.randrange(ROWS)) << (AW * s)
            rv |= int(rd[s] is not None) << s
        dut.rst.value = rst
        dut.ram_wr_cmd_addr.value = wa
        dut.ram_wr_cmd_be.value = wb
        dut.ram_wr_cmd_data.value = wd
        dut.ram_wr_cmd_valid.value = wv
        dut.ram_rd_cmd_addr.value = ra
        dut.ram_rd_cmd_valid.value = rv
        dut.ram_rd_resp_ready.value = ready
        await ReadOnly()
        wr_rdy = int(dut.ram_wr_cmd_ready.value)
        rd_rdy = int(dut.ram_rd_cmd_ready.value)
        r_val = int(dut.ram_rd_resp_valid.value)
        r_dat = int(dut.ram_rd_resp_data.value) if r_val else 0
        if wr_rdy != (1 << SEG) - 1:
            self.err(f"ram_wr_cmd_ready {wr_rdy:#x}: a write refused")
        any_cmd = wv or rv
        took_any = False
        for s in range(SEG):
            valid, word, known = self.out[s]
            rdy = ready >> s & 1
            want_rdy = int(not valid or rdy)
            if (rd_rdy >> s & 1) != want_rdy:
                self.err(f"seg {s}: ram_rd_cmd_ready {rd_rdy >> s & 1}, expected {want_rdy} "
                         f"(word held {valid}, resp_ready {rdy})")
            if (r_val >> s & 1) != valid:
                self.err(f"seg {s}: ram_rd_resp_valid {r_val >> s & 1}, expected {valid}")
            got = field(r_dat, s, DW)
            if valid and (got ^ word) & known:
                self.err(f"seg {s}: read data differs from the model in bits {(got ^ word) & known:#x}")
            # digest: what this cycle compared (the same in a gated and an ungated build)
            self.digest.update(f"{s}:{rd_rdy >> s & 1}{r_val >> s & 1}:{(got & known) if valid else 0:x};"
                               .encode())
            if valid and not rdy:
                self.n["held"] += 1
            if valid and rdy:
                took_any = True
        if took_any and not any_cmd and not rst:
            self.n["take_only"] += 1
        # the enable is exact both ways: open in every cycle in which a row or an output register can
        # change (above: the gated and ungated builds agree), closed in every other one, in particular
        # while a read command waits behind a word not taken (a C++ model then skips the block)
        if self.gate is not None:
            moving = bool(rst or wv or (rv & rd_rdy) or (r_val & ready))
            if int(self.gate.value) != moving:
                self.err(f"clock gate enable {int(self.gate.value)} in a cycle in which "
                         f"{'something' if moving else 'nothing'} changes")
            if rv and not moving:
                self.n["gate_closed_wait"] += 1
        if rst and not any_cmd and any(o[0] for o in self.out):
            self.n["rst_drop"] += 1
        # ---- the rising edge
        for s in range(SEG):
            valid, word, known = self.out[s]
            rdy = ready >> s & 1
            r = rd[s]
            if r is not None and (not valid or rdy):
                old = self.row(s, r)
                self.out[s] = (1, old[0], old[1])
                self.n["reads"] += 1
                self.n["known_reads"] += old[1] == MASK
                if wr[s] is not None and wr[s][0] == r:
                    self.n["rdw"] += 1
                    new = self.merged(s, *wr[s])
                    self.n["rdw_diff"] += bool((new[0] ^ old[0]) & old[1])
                if self.last_wr[s] == r:
                    self.n["raw"] += 1
            elif r is not None:
                self.n["rd_refused"] += 1
            elif rdy:
                self.out[s] = (0, 0, 0)
            if rst:
                self.out[s] = (0, 0, 0)
        for s in range(SEG):
            self.last_wr[s] = None
            if wr[s] is not None:
                self.mem[s][wr[s][0]] = self.merged(s, *wr[s])
                self.last_wr[s] = wr[s][0]
                self.n["writes"] += 1
                self.n["rst_wr"] += rst
                self.n["partial_be"] += 0 < wr[s][1] < (1 << BE_W) - 1

    def merged(self, s, r, be, data):
        val, known = self.row(s, r)
        m = be_mask(be)
        return (val & ~m) | (data & m), known | m

    async def traffic(self, mode, rst_at=()):
        rng = self.rng
        for i in range(mode.cycles):
            wr, rd = [None] * SEG, [None] * SEG
            for s in range(SEG):
                if rng.random() < mode.wr:
                    wr[s] = (self.pick_row(mode), self.pick_be(), rng.getrandbits(DW))
                if rng.random() < mode.rd:
                    k = rng.random()
                    if k < 0.15 and wr[s] is not None:
                        rd[s] = wr[s][0]                   # read during write
                    elif k < 0.3 and self.last_wr[s] is not None:
                        rd[s] = self.last_wr[s]            # read after write
                    else:
                        rd[s] = self.pick_row(mode)
            ready = sum(int(rng.random() < mode.ready) << s for s in range(SEG))
            rst = int(i in rst_at)
            if rst:
                rd = [None] * SEG                          # no reads offered in reset (see the docstring)
            await self.cycle_once(wr, rd, ready, rst)

    async def start(self):
        await ClockCycles(self.dut.clk, 3)
        await self.cycle_once([None] * SEG, [None] * SEG, 0, rst=1)

    def finish(self, name):
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])
        path = os.environ.get("BERYL_PSDP_DIGEST")
        if path:
            with open(path, "a") as f:
                f.write(f"{name} {self.digest.hexdigest()} {self.cycle}\n")


MODES = [
    Mode("plain", 0.7, 0.7, 1.0),
    Mode("sparse", 0.1, 0.15, 1.0),                 # mostly idle: the gate closes between commands
    Mode("backpressure", 0.7, 0.8, 0.3),
    Mode("both", 0.3, 0.4, 0.4),
    Mode("slow sink", 0.05, 0.1, 0.15),             # words held for long, taken with nothing else going on
    Mode("full rate", 1.0, 1.0, 1.0, hot=0.8),
]


@cocotb.test()
async def test_random(dut):
    """Random writes (random byte enables) and reads on all segments in every mode, checked every cycle."""
    tb = TB(dut, seed=beryl_seed.seed(41 + ROWS + SEG, "test_random"))
    await tb.start()
    scale = 4 if LONG else 1
    for m in MODES:
        m.cycles = (400 if m.name == "full rate" else 900) * scale
        before = dict(tb.n)
        await tb.traffic(m)
        delta = {k: tb.n[k] - before[k] for k in tb.n}
        dut._log.info("%s: %d cycles, %d writes, %d reads (%d of fully written rows), %d read-during-write "
                      "(%d with a changed row), %d read-after-write, %d cycles a word held, %d taken with no "
                      "command", m.name, m.cycles, delta["writes"], delta["reads"], delta["known_reads"],
                      delta["rdw"], delta["rdw_diff"], delta["raw"], delta["held"], delta["take_only"])
        if m.name == "full rate":
            assert delta["rd_refused"] == 0 and delta["reads"] == SEG * m.cycles, "a read refused at full rate"
    n = tb.n
    assert n["rdw_diff"] >= 10 * SEG and n["raw"] >= 10 * SEG and n["known_reads"] > 100
    assert n["held"] > 100 and n["take_only"] > 20 and n["rd_refused"] > 20, n
    assert n["partial_be"] > 100 or BE_W == 1, n            # (one byte lane: no partial write)
    assert tb.gate is None or n["gate_closed_wait"] > 20, n
    tb.finish("random")


@cocotb.test()
async def test_each_segment(dut):
    """Per segment alone (the others idle): fill a row byte by byte, read it back in the cycle after each write
    and during the next; the other segments' same row stays as it was."""
    tb = TB(dut, seed=beryl_seed.seed(42, "test_each_segment"))
    await tb.start()
    idle = [None] * SEG
    for s in range(SEG):
        r = tb.hot[s % len(tb.hot)]
        # a known starting row in every segment
        for t in range(SEG):
            w = list(idle)
            w[t] = (r, (1 << BE_W) - 1, tb.rng.getrandbits(DW))
            await tb.cycle_once(w, idle, 0)
        for b in tb.rng.sample(range(BE_W), min(BE_W, 16)):
            w, rd = list(idle), list(idle)
            w[s] = (r, 1 << b, tb.rng.getrandbits(DW))
            rd[s] = r                                       # during the write: the old row
            await tb.cycle_once(w, rd, (1 << SEG) - 1)
            rd = list(idle)
            rd[s] = r                                       # the cycle after: the new row
            await tb.cycle_once(idle, rd, (1 << SEG) - 1)
            others = list(idle)
            others[(s + 1) % SEG] = r
            await tb.cycle_once(idle, others, (1 << SEG) - 1)
        await tb.cycle_once(idle, idle, (1 << SEG) - 1)
    assert tb.n["rdw_diff"] >= SEG * min(BE_W, 16) // 2
    tb.finish("each_segment")


@cocotb.test()
async def test_reset(dut):
    """Reset drops a held word (also with no command at any input: the gate must open for the reset), keeps
    the rows, accepts writes during it; reset in the middle of random traffic."""
    tb = TB(dut, seed=beryl_seed.seed(43 + ROWS, "test_reset"))
    await tb.start()
    idle = [None] * SEG
    full = (1 << SEG) - 1
    for rep in range(3):
        # every segment: write a row, read it, hold the word (ready low), idle a while
        rows = [tb.pick_row(MODES[0]) for _ in range(SEG)]
        await tb.cycle_once([(r, (1 << BE_W) - 1, tb.rng.getrandbits(DW)) for r in rows], idle, 0)
        await tb.cycle_once(idle, rows, 0)
        for _ in range(5):
            await tb.cycle_once(idle, idle, 0)
        # reset with nothing at the inputs (rep 0), with writes going on (rep 1), with ready high (rep 2)
        for _ in range(1 + rep):
            wr = idle if rep != 1 else [(r, tb.pick_be(), tb.rng.getrandbits(DW)) for r in rows]
            await tb.cycle_once(wr, idle, full if rep == 2 else 0, rst=1)
        for _ in range(3):
            await tb.cycle_once(idle, idle, 0)
        # the rows are still there (and the writes made in reset took effect)
        await tb.cycle_once(idle, rows, 0)
        await tb.cycle_once(idle, idle, full)
    assert tb.n["rst_drop"] >= 2 and tb.n["rst_wr"] >= SEG, tb.n
    for rep in range(4):
        m = Mode("reset", 0.5, 0.6, 0.5, cycles=200 * (2 if LONG else 1))
        await tb.traffic(m, rst_at={tb.rng.randrange(20, 180)})
    tb.finish("reset")


# Shapes the NIC builds: the completion writers' RAM (2 x 512 bits, CPL_BATCH 8 x 4 slots x 32 bytes = 1 KiB,
# 8 rows) and the TX/RX engines' packet RAMs (32 slots x 16 KiB = 512 KiB, 4096 rows; 16 slots in the sim and
# the system tests: 256 KiB).
NIC = [
    {"SEG_COUNT": 2, "SEG_DATA_W": 512, "SIZE": 1024},
    {"SEG_COUNT": 2, "SEG_DATA_W": 512, "SIZE": 1 << 19},
]
EXTRA = [
    {"SEG_COUNT": 2, "SEG_DATA_W": 512, "SIZE": 1 << 18},
    {"SEG_COUNT": 2, "SEG_DATA_W": 256, "SIZE": 8192},     # cpl_write allows 256-bit segments
    {"SEG_COUNT": 1, "SEG_DATA_W": 64, "SIZE": 64},
    {"SEG_COUNT": 4, "SEG_DATA_W": 32, "SIZE": 256},
    {"SEG_COUNT": 2, "SEG_DATA_W": 8, "SIZE": 4},          # one byte lane, one bit of row address
]


@pytest.mark.parametrize("params", NIC + (EXTRA if LONG else []),
                         ids=lambda p: f"s{p['SEG_COUNT']}w{p['SEG_DATA_W']}b{p['SIZE']}")
def test_beryl_dma_psdp_ram(params, tmp_path):
    """The same bench on the gated build and on the ungated one (+define+BERYL_NO_CLK_GATE): both pass, and
    both saw the same outputs in every cycle."""
    digests = {}
    for gate in ("gated", "ungated"):
        path = tmp_path / f"{gate}.txt"
        beryl_sim.run("beryl_dma_psdp_ram", "rtl/pcie/beryl_dma_psdp_ram.f", "test_beryl_dma_psdp_ram",
                      Path(__file__).parent, parameters=params,
                      extra_args=["+define+BERYL_NO_CLK_GATE"] if gate == "ungated" else None,
                      extra_env={"BERYL_PSDP_DIGEST": str(path)})
        digests[gate] = path.read_text().split()
    assert len(digests["gated"]) == 3 * 3, digests["gated"]
    assert digests["gated"] == digests["ungated"], "gated and ungated builds saw different outputs"
