# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_rq: neutral tx_req TLP stream (memory reads/writes,
docs/blocks/pcie_interfaces.md) -> UltraScale+ requester request (RQ) AXI-Stream, with or without
the straddle at 512 bits.

Reference, independent of the RTL: request headers are made by cocotbext-pcie's generic
`Tlp.pack_header()` in the 4DW form (the neutral stream's memory request layout, DW0 in bits
[127:96]); the RQ side is received by cocotbext-pcie's `RqSink` (at 512 bits with `segments=2`, so
packets are delimited by PG213's tuser is_sop/is_eop pointers and first/last BE are taken per TLP
starting in the beat; at 256 bits by tkeep/tlast) and decoded by `Tlp_us.unpack_us_rq()` (PG213
"Requester Request Descriptor Format"). Expected: request type memory write exactly when the header
has data, 64-bit address, AT, dword count (length 0 on the wire is 1024), poisoned, tag, TC, attr,
first/last BE and the payload as sent; requester ID enable and force ECRC 0 (module header: the
core supplies its ID; the requester ID field is then don't-care), discontinue never set. TD, TH, LN
and PH are not supported (module header): the source sets them at random and they must not leak.
The bench's own monitor checks the AXI-Stream side cycle by cycle: outputs held while tvalid &&
!tready, tkeep exactly over the TLPs' dwords (a straddled beat has a hole between them), tlast when
no TLP continues (at 512 bits both from the tuser pointers), a TLP starts at dword 8 only in the
beat where the previous one ends in dwords 0..7, and no tvalid gap inside a packet while the tx_req
source keeps valid up from sop to eop (PG213 discards such packets).

The tx_req source (this bench) drives random garbage in every dword outside strb and on every input
while valid is low.

Tests: every payload length around the beat and half-beat edges plus random lengths under no
stalls, random source idle (also inside a TLP), random sink backpressure, both, and source idle
only between TLPs with backpressure (gap check); with straddle, straddled beats must occur; a
walking one through every header field bit; request kinds (reads and writes, poisoned, 1024
dwords, addresses below and above 4 GiB, TD/TH/LN/PH set); the header's full-rate claim (one beat
per cycle plus one per spilling TLP, which with straddle is shared with the next TLP's start when
the spill fits in dwords 0..7: the input stalls exactly as that rule says, the output never idles,
every TLP starts where the rule says, each TLP's first RQ beat one cycle after its first tx_req
beat); reset in the middle of traffic (output idle afterwards, later TLPs intact); illegal
parameters stop elaboration. BERYL_LONG=1 runs more TLPs.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge

from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us.interface import RqSink
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import us_conv_bench  # noqa: E402
from us_conv_bench import (LONG, N, NEUTRAL_SRC_MODES, TLP_DATA_W, AxisMonitor, NeutralToModelTB,  # noqa: E402
                           ceil_div, random_stream_rounds)

STRADDLE = bool(int(os.environ.get("PARAM_RQ_STRADDLE", "1" if TLP_DATA_W == 512 else "0")))
H = N // 2                # straddle start position
DESC_DW = 4               # PG213 RQ descriptor
LATENCY = 1               # module header, cycles
# PG213 RQ tuser (512-bit): is_sop[21:20], is_sop0/1_ptr[25:22], is_eop[27:26], is_eop0/1_ptr[35:28]
SOP, SOP_PTR, EOP, EOP_PTR = 20, 22, 26, 28


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
class Req:
    """One request: its neutral header and payload, and the RQ descriptor fields it must produce
    (as cocotbext-pcie's unpack_us_rq reports them)."""

    def __init__(self, idx, hdr, payload, expect, what):
        self.idx, self.hdr, self.payload, self.expect, self.what = idx, hdr, bytes(payload), expect, what
        self.ndw = len(payload) // 4
        self.in_beats = max(1, ceil_div(self.ndw, N))
        # started at dword 0, the RQ packet needs an extra beat
        self.spills = ceil_div(DESC_DW + self.ndw, N) > self.in_beats


def rand_req(rng, idx, write, length, **fields):
    """A memory request of `length` dwords (the payload for a write), the other header fields
    random unless given in `fields`."""
    t = Tlp()
    t.fmt_type = TlpType.MEM_WRITE_64 if write else TlpType.MEM_READ_64   # neutral: always 4DW
    t.address = rng.getrandbits(30 if rng.random() < 0.3 else 62) << 2
    t.at = rng.randrange(3)
    t.attr = rng.randrange(8)
    t.tc = rng.randrange(8)
    t.ep = rng.random() < 0.1
    t.tag = rng.getrandbits(8)
    t.requester_id = PcieId.from_int(rng.getrandbits(16))
    t.first_be = rng.getrandbits(4)
    t.last_be = rng.getrandbits(4)
    # not supported by the module (header): random, must not leak into anything
    t.td, t.th, t.ln = (bool(rng.getrandbits(1)) for _ in range(3))
    t.ph = rng.getrandbits(2)
    t.length = length
    for k, v in fields.items():
        setattr(t, k, v)
    payload = rng.randbytes(4 * length) if write else b""
    hdr = int.from_bytes(t.pack_header(), "big")
    assert hdr >> 128 == 0
    expect = dict(write=write, address=t.address, at=t.at, length=length, ep=bool(t.ep), tag=t.tag, tc=t.tc,
                  attr=t.attr, first_be=t.first_be, last_be=t.last_be, requester_id_enable=False,
                  data=payload)
    return Req(idx, hdr, payload, expect, f"TLP {idx} ({'MWr' if write else 'MRd'}, {length} dwords)")


def check_rq(frame, r):
    """Differences between an RQ packet and what request `r` must produce."""
    errs = []
    if len(frame.data) != DESC_DW + r.ndw:
        errs.append(f"{len(frame.data)} dwords, expected descriptor + {r.ndw}")
    if len(frame.data) < DESC_DW:
        return errs
    req_type = frame.data[2] >> 11 & 0xF
    if req_type != int(r.expect["write"]):
        errs.append(f"request type {req_type:#06b}, expected memory {'write' if r.expect['write'] else 'read'}")
        return errs
    try:
        t = Tlp_us.unpack_us_rq(frame)
    except Exception as exc:   # a field value cocotbext-pcie's decoder rejects
        return errs + [f"descriptor does not decode: {exc!r}"]
    got = dict(write=t.fmt_type in (TlpType.MEM_WRITE, TlpType.MEM_WRITE_64), address=t.address, at=int(t.at),
               length=t.length, ep=bool(t.ep), tag=t.tag, tc=int(t.tc), attr=int(t.attr), first_be=t.first_be,
               last_be=t.last_be, requester_id_enable=t.requester_id_enable, data=bytes(t.data))
    for k, v in r.expect.items():
        if got[k] != v:
            errs.append(f"{k} {got[k]!r}, expected {v!r}" if k != "data" else "payload differs")
    if frame.data[3] >> 31:
        errs.append("force ECRC set")
    if frame.discontinue:
        errs.append("discontinue set")
    return errs


def edge_lengths():
    """Write payload dwords around every point where a TLP's end crosses an input beat or an
    output beat or half-beat edge, for a TLP starting at dword 0 or N/2, plus 1023 and 1024."""
    return us_conv_bench.edge_lengths(DESC_DW, 1, half=True)


def full_rate_plan(reqs):
    """Source never idle, sink always ready, straight from the module header: (input stall
    cycles, output beats, straddled beats, start dword of every TLP). A TLP whose RQ packet needs
    one beat more than its input ('spill') takes an extra beat; with straddle, when that beat's
    dwords fit in dwords 0..7, the next TLP starts at dword 8 of it; otherwise the next TLP's first
    beat waits one cycle."""
    stalls = beats = shares = 0
    start, starts = 0, []
    for i, r in enumerate(reqs):
        starts.append(start)
        total = start + DESC_DW + r.ndw
        n_out = ceil_div(total, N)
        spill = n_out > r.in_beats
        last = total - (n_out - 1) * N          # dwords in the last output beat
        has_next = i + 1 < len(reqs)
        if spill and STRADDLE and last <= H and has_next:
            start = H
            beats += n_out - 1
            shares += 1
        else:
            start = 0
            beats += n_out
            stalls += spill and has_next
    return stalls, beats, shares, starts


# ------------------------------------------------------------------------------------------
# Bench (the machinery is tb/common/us_conv_bench.py)
# ------------------------------------------------------------------------------------------
class RqMonitor(AxisMonitor):
    """RQ side: the AxisMonitor's checks plus the module's straddle rule; counts straddled beats."""

    def __init__(self, tb, dut, prefix):
        super().__init__(tb, dut, prefix, "RQ", (SOP, SOP_PTR, EOP, EOP_PTR), "TLP")

    def check_starts(self, sops, eops):
        for p in sops:
            if p == 0:
                continue
            if not STRADDLE or p != H or not (self.in_pkt and eops and min(eops) < H):
                self.tb.err(f"RQ TLP start at dword {p} (straddle {STRADDLE}) not right after a TLP "
                            f"ending in dwords 0..{H - 1}")
            self.straddled += 1


class TB(NeutralToModelTB):
    def __init__(self, dut, seed, name):
        super().__init__(dut, seed, name, in_prefix="tx_req", out_prefix="m_axis_rq", out_name="RQ",
                         sink_cls=RqSink, monitor=RqMonitor, make_fn=rand_req, check=check_rq)

    def make_rand(self, length):
        """A write of `length` dwords or, one time in four, a read of random length."""
        if self.rng.random() < 0.25:
            return self.make(False, self.rng.choice([1, self.rng.randint(1, 1024)]))
        return self.make(True, length)


def sweep(tb, count):
    rng = tb.rng
    jobs = [tb.make(True, n) for n in edge_lengths()]
    for _ in range(count):
        jobs.append(tb.make_rand(rng.choice([rng.randint(1, 8), rng.randint(1, 4 * N), rng.randint(1, 1024)])))
    rng.shuffle(jobs)
    for r in jobs:
        tb.send(r)
    return len(jobs)


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
MODES = NEUTRAL_SRC_MODES


@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under the four stall modes, plus idle only between TLPs; with a
    source that keeps valid up inside TLPs, RQ must have no tvalid gap inside a packet."""
    tb = TB(dut, 51, "beryl_pcie_us_rq.random_streams")
    await tb.start()
    await random_stream_rounds(tb, sweep, "RQ", 6 if LONG else 2, 400 if LONG else 150)
    dut._log.info("straddled RQ beats: %d", tb.mon.straddled)
    if STRADDLE:
        assert tb.mon.straddled > 50, "RQ straddle not exercised"


@cocotb.test()
async def test_field_walk(dut):
    """A walking one (and a walking zero) through every header field bit, so a swapped, shifted
    or stuck bit shows; with backpressure and idle."""
    tb = TB(dut, 52, "beryl_pcie_us_rq.field_walk")
    await tb.start()
    tb.set_mode(3)
    rng = tb.rng
    widths = {"address": 64, "tag": 8, "tc": 3, "attr": 3, "at": 1, "first_be": 4, "last_be": 4,
              "length": 11, "ep": 1}
    zero = dict(address=0, tag=0, tc=0, attr=0, at=0, first_be=0, last_be=0, ep=0, td=False, th=False,
                ln=False, ph=0)
    ones = dict(address=(1 << 64) - 4, tag=0xFF, tc=7, attr=7, at=1, first_be=0xF, last_be=0xF, ep=1,
                td=True, th=True, ln=True, ph=3)
    n = 0
    for field, w in widths.items():
        for bit in range(2 if field == "address" else 0, w):
            for base in (zero, ones):
                f = dict(base)
                length = rng.randint(1, 3)
                if field == "length":
                    length = 1 << bit if base is zero else (1023 ^ (1 << bit) if bit < 10 else 1023)
                else:
                    f[field] = base[field] ^ (1 << bit)
                f["ep"] = bool(f["ep"])
                r = tb.make(rng.random() < 0.5, length, **f)
                r.what += f" {field} bit {bit} ({'one' if base is zero else 'zero'})"
                tb.send(r)
                n += 1
    for base in (zero, ones):      # AT = 2 (translated)
        f = dict(base, at=2, ep=bool(base["ep"]))
        tb.send(tb.make(True, rng.randint(1, 3), **f))
        n += 1
    await tb.drain()
    dut._log.info("%d walking-bit TLPs ok", n)


@cocotb.test()
async def test_request_kinds(dut):
    """Reads and writes, poisoned or not, 1 and 1024 dwords, addresses below and above 4 GiB,
    with the unsupported TD/TH/LN/PH bits all set and all clear."""
    tb = TB(dut, 53, "beryl_pcie_us_rq.kinds")
    await tb.start()
    rng = tb.rng
    jobs = []
    for write in (False, True):
        for ep in (False, True):
            for length in (1, 2, N - DESC_DW, N - DESC_DW + 1, 1024):
                for hi in (False, True):
                    for junk in (False, True):
                        addr = rng.getrandbits(62 if hi else 30) << 2 | (1 << 32 if hi else 0)
                        jobs.append(tb.make(write, length, ep=ep, address=addr, td=junk, th=junk, ln=junk,
                                            ph=3 if junk else 0))
    rng.shuffle(jobs)
    for mode in range(4):
        tb.set_mode(mode)
        for r in jobs[mode::4]:
            tb.send(r)
        await tb.drain()
        dut._log.info("%s: %d TLPs ok", MODES[mode], len(jobs[mode::4]))


@cocotb.test()
async def test_full_rate(dut):
    """Source never idle, sink always ready: the input stalls exactly as the header's rule says
    (once per spill that does not straddle, never after the last TLP), the RQ side carries a beat
    in every cycle, every TLP starts at the dword the rule gives, and each TLP's first RQ beat
    leaves LATENCY cycle after its first tx_req beat; no tvalid gap inside a packet."""
    tb = TB(dut, 54, "beryl_pcie_us_rq.full_rate")
    await tb.start()
    rng = tb.rng
    jobs = [tb.make(True, n) for n in edge_lengths() if n < 4 * N]
    jobs += [tb.make_rand(rng.choice([rng.randint(1, 12), rng.randint(1, 3 * N)])) for _ in range(200)]
    rng.shuffle(jobs)
    for r in jobs:
        tb.send(r)
    await tb.drain()
    stalls, out_beats, shares, starts = full_rate_plan(jobs)
    assert tb.src.stalls == stalls, f"tx_req stalled {tb.src.stalls} cycles, the header says {stalls}"
    cycles = [c for c, _ in tb.mon.log]
    assert len(cycles) == out_beats, f"{len(cycles)} RQ beats, expected {out_beats}"
    assert cycles[-1] - cycles[0] + 1 == len(cycles), "RQ idle cycles in a back-to-back run"
    assert tb.mon.gaps == 0
    assert tb.mon.straddled == shares, f"{tb.mon.straddled} straddled beats, expected {shares}"
    if STRADDLE:
        assert shares > 20, "straddle not exercised"
    got_starts = [p for _, sops in tb.mon.log for p in sops]
    if TLP_DATA_W == 512:
        assert got_starts == starts, "TLP start positions differ from the straddle rule"
    us_conv_bench.assert_first_beat_latency(tb, len(jobs), LATENCY)
    dut._log.info("%d TLPs: %d tx_req stall cycles, %d straddled beats, %d RQ beats back to back",
                  len(jobs), tb.src.stalls, shares, len(cycles))


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points: tx_req mid-TLP, or in the cycle the last beat of a TLP whose RQ
    packet needs an extra beat goes in (that beat still pending), RQ stalled or moving.
    Afterwards RQ stays idle until new input, and the TLPs sent after the reset come out intact."""
    tb = TB(dut, 55, "beryl_pcie_us_rq.reset")
    await tb.start()
    rng = tb.rng
    for rep in range(40 if LONG else 16):
        tb.set_mode(rep % 4)
        for _ in range(20):
            spill = rng.randint(1, 4) * N - rng.randrange(DESC_DW)    # a length whose RQ packet spills
            tb.send(tb.make_rand(rng.choice([rng.randint(N, 5 * N), spill])))
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
            tb.send(tb.make_rand(rng.randint(1, 3 * N)))
        await tb.drain()
        mid, valid, out_mid, spill = tb.reset_hits[-1]
        dut._log.info("reset %d (tx_req %s, RQ %s): %d TLPs after it ok", rep,
                      "mid-TLP" if mid else ("right after a spilling eop" if spill else "between TLPs"),
                      "mid-packet" if out_mid else ("valid" if valid else "idle"), after)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a tx_req TLP with RQ valid"
    assert sum(h[3] for h in tb.reset_hits) >= 3, "too few resets with a spill beat pending"


@pytest.mark.parametrize("tlp_data_w,straddle", [(512, 1), (512, 0), (256, 0)],
                         ids=["512-straddle", "512", "256"])
def test_beryl_pcie_us_rq(tlp_data_w, straddle):
    us_conv_bench.run("beryl_pcie_us_rq", Path(__file__).parent,
                      {"TLP_DATA_W": tlp_data_w, "RQ_STRADDLE": straddle})


@pytest.mark.parametrize("params,message", [
    ({"TLP_DATA_W": 512, "AXIS_RQ_USER_W": 62}, "is not a PG213 RQ configuration"),
    ({"TLP_DATA_W": 256, "AXIS_RQ_USER_W": 137, "RQ_STRADDLE": 0}, "is not a PG213 RQ configuration"),
    ({"TLP_DATA_W": 256, "RQ_STRADDLE": 1}, "RQ_STRADDLE is supported at TLP_DATA_W 512 only"),
])
def test_beryl_pcie_us_rq_rejects_bad_params(params, message):
    """Illegal parameters stop elaboration with the module's message (no simulation)."""
    r = us_conv_bench.elab("beryl_pcie_us_rq", params)
    assert r.returncode != 0 and message in r.stdout + r.stderr, r.stdout + r.stderr
