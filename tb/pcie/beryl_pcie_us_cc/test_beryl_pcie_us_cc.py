# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_cc: neutral tx_cpl TLP stream (docs/blocks/pcie_interfaces.md) ->
UltraScale+ completer completion (CC) AXI-Stream.

Reference, independent of the RTL: completion headers are made by cocotbext-pcie's generic
`Tlp.pack_header()` (PCIe 3.0 figure 2-32, DW0 in bits [127:96]); the CC side is received by
cocotbext-pcie's `CcSink` (at 512 bits with `segments=2`, so packets are delimited by PG213's tuser
is_sop/is_eop pointers; at 256 bits by tkeep/tlast) and decoded by `Tlp_us.unpack_us_cc()` (PG213
"Completer Completion Descriptor Format"). Expected descriptor fields follow from the header by
the PCIe and PG213 rules: byte count 0 on the wire is 4096 in the 13-bit descriptor field, a
completion with data and length 0 carries 1024 dwords, a completion without data has dword count 0
(its length field is reserved), CplLk/CplDLk set the locked bit; completer ID enable and force ECRC
stay 0 (module header: the core supplies its own bus number), the reserved descriptor bits are 0,
discontinue is never set. The bench's own monitor checks the AXI-Stream side cycle by cycle: outputs
held while tvalid && !tready, tkeep exactly over the packet's dwords and contiguous, tlast on the
last beat (at 512 bits: both agree with the tuser pointers), and no tvalid gap inside a packet while
the tx_cpl source keeps valid up from sop to eop (PG213 discards such packets).

The tx_cpl source (this bench) drives random garbage in every dword outside strb, in the header's
fields the descriptor has no room for (BCM, TD, TH, LN, DW3) and on every input while valid is low.

Tests: every payload length around the beat edges (input and output) plus random lengths under no
stalls, random source idle (also inside a TLP), random sink backpressure, both, and source idle
only between TLPs with backpressure (gap check); a walking one through every header field bit;
every completion kind (status x poisoned x locked x data, byte count 4096, 1024 dwords, reserved
length of a completion without data); the header's full-rate claim (one beat per cycle plus one per
spilling TLP: the input stalls exactly once per spill, the output never idles, each TLP's first CC
beat one cycle after its first tx_cpl beat); reset in the middle of traffic (output idle
afterwards, later TLPs intact); illegal parameters stop elaboration. BERYL_LONG=1 runs more TLPs.
"""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge

from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us.interface import CcSink
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import us_conv_bench  # noqa: E402
from us_conv_bench import (LONG, N, NEUTRAL_SRC_MODES, AxisMonitor, NeutralToModelTB, ceil_div,  # noqa: E402
                           random_stream_rounds)

DESC_DW = 3               # PG213 CC descriptor
LATENCY = 1               # module header, cycles
# PG213 CC tuser (512-bit): is_sop[1:0], is_sop0/1_ptr[5:2], is_eop[7:6], is_eop0/1_ptr[15:8]
SOP, SOP_PTR, EOP, EOP_PTR = 0, 2, 6, 8
CPL_SC, CPL_UR, CPL_CRS, CPL_CA = 0, 1, 2, 4
STATUSES = [CPL_SC, CPL_UR, CPL_CRS, CPL_CA]   # the values PCIe defines (others are reserved)


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
class Cpl:
    """One completion: its neutral header and payload, and the CC descriptor fields it must
    produce (as cocotbext-pcie's unpack_us_cc reports them)."""

    def __init__(self, idx, hdr, payload, expect, what):
        self.idx, self.hdr, self.payload, self.expect, self.what = idx, hdr, bytes(payload), expect, what
        self.ndw = len(payload) // 4
        self.in_beats = max(1, ceil_div(self.ndw, N))
        self.out_beats = ceil_div(DESC_DW + self.ndw, N)
        self.spills = self.out_beats > self.in_beats   # the CC packet needs an extra beat


def rand_cpl(rng, idx, ndw, data=None, **fields):
    """A completion with `ndw` payload dwords (`data`: with data; default ndw > 0), the other
    header fields random unless given in `fields`."""
    data = ndw > 0 if data is None else data
    locked = fields.pop("locked", rng.random() < 0.1)
    t = Tlp()
    t.fmt_type = {(False, False): TlpType.CPL, (False, True): TlpType.CPL_DATA,
                  (True, False): TlpType.CPL_LOCKED, (True, True): TlpType.CPL_LOCKED_DATA}[(locked, data)]
    t.status = rng.choice(STATUSES) if rng.random() < 0.3 else CPL_SC
    t.ep = rng.random() < 0.1
    t.byte_count = rng.randint(1, 4096)
    t.lower_address = rng.getrandbits(7)
    t.requester_id = PcieId.from_int(rng.getrandbits(16))
    t.completer_id = PcieId.from_int(rng.getrandbits(16))
    t.tag = rng.getrandbits(8)
    t.tc = rng.randrange(8)
    t.attr = rng.randrange(8)
    t.at = rng.randrange(3)
    # fields the CC descriptor has no room for: the module must ignore them
    t.bcm, t.td, t.th, t.ln = (bool(rng.getrandbits(1)) for _ in range(4))
    payload = rng.randbytes(4 * ndw)
    # length: the payload's dwords (1024 -> 0 on the wire); without data it is reserved: random
    t.length = ndw if data else rng.getrandbits(10)
    for k, v in fields.items():
        setattr(t, k, v)
    hdr = int.from_bytes(t.pack_header(), "big") << 32 | rng.getrandbits(32)   # DW3: reserved
    assert hdr >> 128 == 0
    expect = dict(fmt_type=t.fmt_type, lower_address=t.lower_address & 0x7F, at=t.at,
                  byte_count=(t.byte_count & 0xFFF) or 4096, length=ndw if data else 0,
                  status=t.status, ep=bool(t.ep), requester_id=int(t.requester_id),
                  completer_id=int(t.completer_id), tag=t.tag, tc=t.tc, attr=t.attr,
                  completer_id_enable=False, data=payload if data else b"")
    return Cpl(idx, hdr, payload, expect, f"TLP {idx} ({t.fmt_type.name}, {ndw} dwords)")


def check_cc(frame, c):
    """Differences between a CC packet and what completion `c` must produce."""
    errs = []
    if len(frame.data) != DESC_DW + c.ndw:
        errs.append(f"{len(frame.data)} dwords, expected descriptor + {c.ndw}")
    if len(frame.data) < DESC_DW:
        return errs
    try:
        t = Tlp_us.unpack_us_cc(frame)
    except Exception as exc:   # a field value cocotbext-pcie's decoder rejects
        return errs + [f"descriptor does not decode: {exc!r}"]
    got = dict(fmt_type=t.fmt_type, lower_address=t.lower_address, at=int(t.at), byte_count=t.byte_count,
               length=t.length, status=int(t.status), ep=bool(t.ep), requester_id=int(t.requester_id),
               completer_id=int(t.completer_id), tag=t.tag, tc=int(t.tc), attr=int(t.attr),
               completer_id_enable=t.completer_id_enable, data=bytes(t.data))
    for k, v in c.expect.items():
        if got[k] != v:
            errs.append(f"{k} {got[k]!r}, expected {v!r}" if k != "data" else "payload differs")
    d0, d1, d2 = frame.data[:3]
    rsvd = (d0 >> 30, d0 >> 10 & 0x3F, d0 >> 7 & 1, d1 >> 15 & 1, d2 >> 31)
    if any(rsvd):
        errs.append(f"reserved/force-ECRC descriptor bits set: {rsvd}")
    if frame.discontinue:
        errs.append("discontinue set")
    return errs


def edge_lengths():
    """Payload dwords around every point where a TLP's end crosses an input or output beat edge
    (0 = completion without data), plus 1023 and 1024 (length field 0)."""
    return us_conv_bench.edge_lengths(DESC_DW, 0)


def full_rate_plan(cpls):
    """Source never idle, sink always ready, straight from the module header: (input stall
    cycles, output beats). A TLP whose CC packet needs one beat more than its input ('spill')
    holds the next TLP's first beat for one cycle."""
    stalls = sum(c.spills for c in cpls[:-1])
    return stalls, sum(c.out_beats for c in cpls)


# ------------------------------------------------------------------------------------------
# Bench (the machinery is tb/common/us_conv_bench.py)
# ------------------------------------------------------------------------------------------
class CcMonitor(AxisMonitor):
    """CC side: the AxisMonitor's checks; CC packets start at dword 0 only (no straddle)."""

    def __init__(self, tb, dut, prefix):
        super().__init__(tb, dut, prefix, "CC", (SOP, SOP_PTR, EOP, EOP_PTR), "packet")

    def check_starts(self, sops, eops):
        if len(sops) > 1 or (sops and sops[0] != 0):
            self.tb.err(f"CC packet start at dword {sops}: CC does not straddle")


class TB(NeutralToModelTB):
    def __init__(self, dut, seed, name):
        super().__init__(dut, seed, name, in_prefix="tx_cpl", out_prefix="m_axis_cc", out_name="CC",
                         sink_cls=CcSink, monitor=CcMonitor, make_fn=rand_cpl, check=check_cc)


def sweep(tb, count):
    rng = tb.rng
    jobs = [tb.make(n) for n in edge_lengths()]
    for _ in range(count):
        jobs.append(tb.make(rng.choice([0, rng.randint(1, 8), rng.randint(0, 4 * N), rng.randint(1, 1024)])))
    rng.shuffle(jobs)
    for c in jobs:
        tb.send(c)
    return len(jobs)


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
MODES = NEUTRAL_SRC_MODES


@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under the four stall modes, plus idle only between TLPs; with a
    source that keeps valid up inside TLPs, CC must have no tvalid gap inside a packet."""
    tb = TB(dut, 31, "beryl_pcie_us_cc.random_streams")
    await tb.start()
    await random_stream_rounds(tb, sweep, "CC", 6 if LONG else 2, 400 if LONG else 150)


@cocotb.test()
async def test_field_walk(dut):
    """A walking one (and a walking zero) through every header field bit, so a swapped, shifted
    or stuck bit shows; with backpressure and idle."""
    tb = TB(dut, 32, "beryl_pcie_us_cc.field_walk")
    await tb.start()
    tb.set_mode(3)
    rng = tb.rng
    widths = {"lower_address": 7, "byte_count": 12, "requester_id": 16, "completer_id": 16, "tag": 8,
              "tc": 3, "attr": 3, "at": 1, "length": 11}
    zero = dict(lower_address=0, byte_count=0, requester_id=PcieId(0, 0, 0), completer_id=PcieId(0, 0, 0),
                tag=0, tc=0, attr=0, at=0, status=CPL_SC, ep=False, locked=False)
    ones = dict(lower_address=0x7F, byte_count=0xFFF, requester_id=PcieId.from_int(0xFFFF),
                completer_id=PcieId.from_int(0xFFFF), tag=0xFF, tc=7, attr=7, at=1, status=CPL_CA, ep=True,
                locked=True)
    n = 0
    for field, w in widths.items():
        for bit in range(w):
            for base in (zero, ones):
                f = dict(base)
                ndw = rng.randint(0, 3)
                if field == "length":
                    ndw = 1 << bit if base is zero else (1023 ^ (1 << bit) if bit < 10 else 1023)
                elif field in ("requester_id", "completer_id"):
                    f[field] = PcieId.from_int(int(base[field]) ^ (1 << bit))
                else:
                    f[field] = base[field] ^ (1 << bit)
                c = tb.make(ndw, **f)
                c.what += f" {field} bit {bit} ({'one' if base is zero else 'zero'})"
                tb.send(c)
                n += 1
    for base in (zero, ones):      # the one-bit fields, both ways
        for field in ("ep", "locked", "status"):
            for v in ([False, True] if field != "status" else STATUSES):
                f = dict(base)
                f[field] = v
                tb.send(tb.make(rng.randint(0, 3), **f))
                n += 1
    await tb.drain()
    dut._log.info("%d walking-bit TLPs ok", n)


@cocotb.test()
async def test_completion_kinds(dut):
    """Every status (SC, UR, CRS, CA) x poisoned x locked x with/without data, byte count 4096
    (0 on the wire) and 1..4096, 1024-dword completions, and completions without data whose
    (reserved) length field is not zero: the descriptor's dword count must be 0 for them."""
    tb = TB(dut, 33, "beryl_pcie_us_cc.kinds")
    await tb.start()
    rng = tb.rng
    jobs = []
    for status in STATUSES:
        for ep in (False, True):
            for locked in (False, True):
                for ndw in (0, 1, rng.randint(2, 2 * N)):
                    jobs.append(tb.make(ndw, status=status, ep=ep, locked=locked))
    jobs += [tb.make(rng.randint(0, N), byte_count=4096) for _ in range(8)]
    jobs += [tb.make(1024) for _ in range(3)]
    jobs += [tb.make(0, length=rng.randint(1, 1023)) for _ in range(8)]
    rng.shuffle(jobs)
    for mode in range(4):
        tb.set_mode(mode)
        for c in jobs[mode::4]:
            tb.send(c)
        await tb.drain()
        dut._log.info("%s: %d TLPs ok", MODES[mode], len(jobs[mode::4]))


@cocotb.test()
async def test_full_rate(dut):
    """Source never idle, sink always ready: the input stalls exactly once per TLP whose CC
    packet needs one more beat than its input (not after the last one), the CC side carries a
    beat in every cycle, and each TLP's first CC beat leaves LATENCY cycle after its first tx_cpl
    beat; no tvalid gap inside a packet."""
    tb = TB(dut, 34, "beryl_pcie_us_cc.full_rate")
    await tb.start()
    rng = tb.rng
    jobs = [tb.make(n) for n in edge_lengths() if n < 4 * N]
    jobs += [tb.make(rng.choice([0, rng.randint(1, 3 * N)])) for _ in range(200)]
    rng.shuffle(jobs)
    for c in jobs:
        tb.send(c)
    await tb.drain()
    stalls, out_beats = full_rate_plan(jobs)
    assert tb.src.stalls == stalls, f"tx_cpl stalled {tb.src.stalls} cycles, the header says {stalls}"
    cycles = [c for c, _ in tb.mon.log]
    assert len(cycles) == out_beats, f"{len(cycles)} CC beats, expected {out_beats}"
    assert cycles[-1] - cycles[0] + 1 == len(cycles), "CC idle cycles in a back-to-back run"
    assert tb.mon.gaps == 0
    us_conv_bench.assert_first_beat_latency(tb, len(jobs), LATENCY)
    dut._log.info("%d TLPs: %d tx_cpl stall cycles (one per spill), %d CC beats back to back",
                  len(jobs), tb.src.stalls, len(cycles))


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points: tx_cpl mid-TLP, or in the cycle the last beat of a TLP whose CC
    packet needs an extra beat goes in (that beat still pending), CC stalled or moving.
    Afterwards CC stays idle until new input, and the TLPs sent after the reset come out intact."""
    tb = TB(dut, 35, "beryl_pcie_us_cc.reset")
    await tb.start()
    rng = tb.rng
    for rep in range(40 if LONG else 16):
        tb.set_mode(rep % 4)
        for _ in range(20):
            spill = rng.randint(1, 4) * N - rng.randrange(DESC_DW)    # a length whose CC packet spills
            tb.send(tb.make(rng.choice([0, rng.randint(N, 5 * N), spill])))
        await ClockCycles(dut.clk, rng.randint(3, 40))
        on_spill = rep % 2 == 1
        for _ in range(1000):
            if on_spill or tb.src.mid:
                break
            await RisingEdge(dut.clk)
        await tb.reset(rng.randint(1, 3), on_spill)
        await ClockCycles(dut.clk, 8)
        after = rng.randint(5, 15)
        for _ in range(after):
            tb.send(tb.make(rng.choice([0, rng.randint(1, 3 * N)])))
        await tb.drain()
        mid, valid, out_mid, spill = tb.reset_hits[-1]
        dut._log.info("reset %d (tx_cpl %s, CC %s): %d TLPs after it ok", rep,
                      "mid-TLP" if mid else ("right after a spilling eop" if spill else "between TLPs"),
                      "mid-packet" if out_mid else ("valid" if valid else "idle"), after)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a tx_cpl TLP with CC valid"
    assert sum(h[3] for h in tb.reset_hits) >= 3, "too few resets with a spill beat pending"


@pytest.mark.parametrize("tlp_data_w", [512, 256])
def test_beryl_pcie_us_cc(tlp_data_w):
    us_conv_bench.run("beryl_pcie_us_cc", Path(__file__).parent, {"TLP_DATA_W": tlp_data_w})


@pytest.mark.parametrize("params", [{"TLP_DATA_W": 512, "AXIS_CC_USER_W": 33},
                                    {"TLP_DATA_W": 256, "AXIS_CC_USER_W": 81}])
def test_beryl_pcie_us_cc_rejects_bad_params(params):
    """A width/tuser combination PG213 does not have stops elaboration with the module's message."""
    r = us_conv_bench.elab("beryl_pcie_us_cc", params)
    assert r.returncode != 0 and "is not a PG213 CC configuration" in r.stdout + r.stderr, r.stdout + r.stderr
