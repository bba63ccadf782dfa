# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_rc: UltraScale+ requester completion (RC) AXI-Stream -> neutral
rx_cpl TLP stream (docs/blocks/pcie_interfaces.md), with or without the 2-TLP straddle at 512 bits.

Reference, independent of the RTL: completions are cocotbext-pcie `Tlp_us` objects, packed into
PG213 RC descriptors by `Tlp_us.pack_us_rc()` and driven by cocotbext-pcie's `RcSource` (PG213
tuser: byte enables, is_sop/is_eop and their pointers, discontinue, parity; `segments=2` is the
2-TLP straddle, which starts a TLP at dword 0 or 8 of a beat). The expected rx_cpl header is
cocotbext-pcie's generic `Tlp.pack_header()` of the same completion (PCIe 3.0 figure 2-32, DW0 in
bits [127:96], DW3 zero) with the wire's wrap-arounds (length 1024 -> 0, byte count 4096 -> 0,
7-bit lower address); Fmt is "with data" exactly when the descriptor's dword count is non-zero and
the type is CplLk for a locked read completion. The module's documented rules on top (module header
and beryl_pcie_us_rc_desc): every RC packet, error reports included, yields a header; a completion
the core reports with status SC and an error code other than normal or poisoned comes out as
completer abort; err_code and req_done carry the descriptor's error code and request-completed bit.
The bench adds random garbage in every dword outside the TLPs and in the tuser byte enables and
parity, which the module must ignore.

Every rx_cpl TLP is compared with the reference: all 128 header bits, err_code, req_done and payload
bytes; the sink checks the stream rules on every beat (strb contiguous, full beats before eop,
sop/eop framing, header and sidebands constant over a TLP, a header-only TLP is one strb-0 beat,
outputs held while valid && !ready). In every test rx_cpl_tlp_bad is checked on every beat: 0 before
eop and, with eop, 1 exactly for the TLPs of which some accepted RC beat (one the TLP has dwords in)
had the tuser discontinue bit (PG213; bit 96 at 512 bits, 42 at 256), the bench's reference taken
from the RC beats themselves (with straddle, from the is_sop/is_eop framing of each beat: a beat
with the bit marks both TLPs it carries); so every TLP sent without discontinue, and sharing no
beat with one sent with it, must come out with bad 0.

Tests: every payload length around the beat and half-beat edges plus random lengths under no
stalls, random source idle (also inside a TLP), random sink backpressure and both (with straddle:
beats with two TLP starts and with an end and a start must occur); a walking one through every
descriptor field bit; every error code against every status, with and without poison, data or not;
full rate (without straddle: RC never stalled with rx_cpl ready, output beat j of every TLP
exactly 2 cycles after input beat j; with straddle: RC held off only in cycles where rx_cpl is
busy, and never for whole-block completions); reset in the middle of traffic (output idle
afterwards, later TLPs intact); discontinue (the bit from RcSource's `frame.discontinue` on every
beat a TLP occupies, or from the bench on its last beat only, as PG213 describes it, or on its
first beat only, which must be kept until the last): every TLP comes out whole and in order,
flagged bad exactly as above, single- and multi-beat TLPs, bad ones back to back, a good one right
after a bad one not flagged, with straddle a beat carrying one TLP's end and the next one's start
with the bit set (both flagged), under the four stall modes; illegal parameters stop elaboration.
BERYL_LONG=1 runs more TLPs.
"""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge

from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us.interface import RcSource
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import us_conv_bench  # noqa: E402
from pcie_tlp import parse_cpl_hdr  # noqa: E402
from us_conv_bench import LONG, N, TLP_DATA_W, GarbageSource, ModelToNeutralTB  # noqa: E402

STRADDLE = bool(int(os.environ.get("PARAM_RC_STRADDLE", "1" if TLP_DATA_W == 512 else "0")))
DESC_DW = 3               # PG213 RC descriptor
LATENCY = 3               # module header, cycles (input register + strip)
# PG213 RC tuser (512-bit) framing: is_sop[67:64], is_sop0..3_ptr[75:68], is_eop[79:76], ptrs[95:80]
SOP, SOP_PTR, EOP, EOP_PTR = 64, 68, 76, 80

# PG213 "Requester Completion Error Codes"
ERR_NORMAL, ERR_POISONED = 0b0000, 0b0001
ERR_CODES = [0b0000, 0b0001, 0b0010, 0b0011, 0b0100, 0b0101, 0b0110, 0b1000, 0b1001]
CPL_SC, CPL_UR, CPL_CRS, CPL_CA = 0, 1, 2, 4


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
def rand_cpl(rng, ndw, **fields):
    """A Tlp_us completion with `ndw` payload dwords (0: none), other fields random unless given.
    Mostly clean completions (SC, normal termination); the error paths have their own test."""
    t = Tlp_us()
    locked = rng.random() < 0.1
    if ndw:
        t.fmt_type = TlpType.CPL_LOCKED_DATA if locked else TlpType.CPL_DATA
        t.set_data(rng.randbytes(4 * ndw))
    else:
        t.fmt_type = TlpType.CPL_LOCKED if locked else TlpType.CPL
        t.length = 0
    t.lower_address = rng.getrandbits(12)
    t.byte_count = rng.randint(0, 4096)
    t.error_code = ERR_NORMAL if rng.random() < 0.8 else rng.choice(ERR_CODES)
    t.request_completed = rng.random() < 0.5
    t.status = CPL_SC if rng.random() < 0.8 else rng.randrange(8)
    t.ep = rng.random() < 0.1
    t.requester_id = PcieId.from_int(rng.getrandbits(16))
    t.completer_id = PcieId.from_int(rng.getrandbits(16))
    t.tag = rng.getrandbits(8)
    t.tc = rng.randrange(8)
    t.attr = rng.randrange(8)
    for k, v in fields.items():
        setattr(t, k, v)
    return t


class Expect:
    """One rx_cpl TLP: header (128-bit int), payload, err_code, req_done (its rx_cpl_tlp_bad is the
    bench's, from the RC beats)."""

    def __init__(self, hdr, payload, side, what):
        self.hdr, self.payload, self.side, self.what = hdr, bytes(payload), side, what

    def diff(self, frame):
        errs = []
        if frame.hdr != self.hdr:
            e, g = parse_cpl_hdr(self.hdr), parse_cpl_hdr(frame.hdr)
            fields = [k for k in e if e[k] != g[k]] or ["other bits"]
            errs.append(f"header {frame.hdr:032x}, expected {self.hdr:032x} (fields {fields})")
        if frame.side != self.side:
            errs.append(f"sideband {frame.side}, expected {self.side}")
        if frame.payload != self.payload:
            k = next((i for i in range(min(len(frame.payload), len(self.payload)))
                      if frame.payload[i] != self.payload[i]), None)
            errs.append(f"payload {len(frame.payload)} bytes, expected {len(self.payload)}"
                        + (f", first difference at byte {k}" if k is not None else ""))
        return errs


def expect_for(t, what=""):
    """The rx_cpl TLP for completion `t`, from cocotbext-pcie's PCIe header packer."""
    locked = t.fmt_type in (TlpType.CPL_LOCKED, TlpType.CPL_LOCKED_DATA)
    with_data = (t.length & 0x7FF) != 0          # the descriptor's dword count
    e = Tlp()
    e.fmt_type = {(False, False): TlpType.CPL, (False, True): TlpType.CPL_DATA,
                  (True, False): TlpType.CPL_LOCKED, (True, True): TlpType.CPL_LOCKED_DATA}[(locked, with_data)]
    e.tc, e.attr, e.ep, e.length = t.tc, t.attr, t.ep, t.length
    e.completer_id, e.requester_id, e.tag = t.completer_id, t.requester_id, t.tag
    status = t.status
    if status == CPL_SC and t.error_code not in (ERR_NORMAL, ERR_POISONED):
        status = CPL_CA                          # a faulty completion must not look like good data
    e.status = status
    e.byte_count = t.byte_count
    e.lower_address = t.lower_address
    hdr = int.from_bytes(e.pack_header(), "big") << 32
    assert hdr >> 128 == 0
    side = {"err_code": t.error_code, "req_done": int(bool(t.request_completed))}
    return Expect(hdr, t.data if with_data else b"", side,
                  what or f"cpl len {t.length} status {t.status} err {t.error_code}")


def edge_lengths():
    """Payload dwords around every point where a TLP's end crosses an input beat or half-beat
    edge (for a TLP starting at dword 0 or N/2) or an output beat edge, plus 1023 and 1024."""
    return us_conv_bench.edge_lengths(DESC_DW, 0, half=True)


def parse_framing(user, in_pkt):
    """PG213 RC straddle framing of one beat, read here from the tuser fields: (sop dwords,
    eop dwords, a TLP continues into the next beat)."""
    sops = [4 * ((user >> (SOP_PTR + 2 * k)) & 3) for k in range(2) if user >> (SOP + k) & 1]
    eops = [(user >> (EOP_PTR + 4 * k)) & 0xF for k in range(2) if user >> (EOP + k) & 1]
    last_sop, last_eop = max(sops, default=-1), max(eops, default=-1)
    if last_sop > last_eop:
        in_pkt = True
    elif last_eop >= 0:
        in_pkt = False
    return sops, eops, in_pkt


# ------------------------------------------------------------------------------------------
# Bench (the machinery is tb/common/us_conv_bench.py)
# ------------------------------------------------------------------------------------------
class GarbageRcSource(GarbageSource, RcSource):
    """RcSource with random garbage in the dwords outside tkeep (outside every TLP) and in the
    tuser byte enables and parity, which the module must ignore."""
    # tuser fields the module must ignore (PG213 RC): per-dword byte enables and parity
    BYTE_EN_OFF, PARITY_OFF = (0, 97) if TLP_DATA_W == 512 else (0, 43)
    SOP_OFF, EOP_OFF = SOP, EOP  # straddle: is_sop/is_eop[1:0], how many TLPs start/end in a beat


DISC_BIT = 96 if TLP_DATA_W == 512 else 42    # PG213 RC tuser discontinue


class TB(ModelToNeutralTB):
    def __init__(self, dut, seed, name):
        self.two_sops = 0          # straddled RC beats with two TLP starts
        self.end_start = 0         # ... with one TLP's end and the next one's start
        super().__init__(dut, seed, name, in_prefix="s_axis_rc", in_name="RC", source_cls=GarbageRcSource,
                         out_prefix="rx_cpl", side=["err_code", "req_done"], disc_bit=DISC_BIT,
                         source_kwargs={"segments": 2 if STRADDLE else 1})

    def send_tlp(self, t, disc=(), **kw):
        self.send(t.pack_us_rc(), expect_for(t, **kw), disc=disc)

    def framing_in(self):
        if not STRADDLE:
            return super().framing_in()
        sops, eops, more = parse_framing(int(self.in_sig["tuser"].value), self.in_mid)
        self.two_sops += len(sops) == 2
        self.end_start += bool(sops and eops and min(eops) < max(sops))
        return len(sops), more


def sweep(tb, count):
    """Every edge length, then `count` random ones (short ones often, so two TLPs share beats)."""
    rng = tb.rng
    jobs = [rand_cpl(rng, n) for n in edge_lengths()]
    for _ in range(count):
        n = rng.choice([rng.randint(0, 5), rng.randint(0, 4 * N), rng.randint(1, 1024)])
        jobs.append(rand_cpl(rng, n))
    rng.shuffle(jobs)
    for t in jobs:
        tb.send_tlp(t)
    return len(jobs)


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
MODES = ["no stalls", "source idle", "sink backpressure", "both"]


@cocotb.test()
async def test_random_streams(dut):
    """Edge and random lengths under the four stall modes."""
    tb = TB(dut, 41, "beryl_pcie_us_rc.random_streams")
    await tb.start()
    for rnd in range(6 if LONG else 2):
        for mode in range(4):
            tb.set_mode(mode)
            n = sweep(tb, 400 if LONG else 150)
            await tb.drain()
            dut._log.info("round %d, %s (idle %.2f, backpressure %.2f): %d TLPs ok", rnd, MODES[mode],
                          tb.src_idle, tb.sink.bp, n)
    dut._log.info("straddled RC beats: %d with two starts, %d with an end and a start",
                  tb.two_sops, tb.end_start)
    if STRADDLE:
        assert tb.two_sops > 20 and tb.end_start > 20, "straddle cases not exercised"


@cocotb.test()
async def test_field_walk(dut):
    """A walking one (and a walking zero) through every descriptor field bit, so a swapped,
    shifted or stuck bit shows. Lower address bits 7..11 and byte count bit 12 have no place in
    the PCIe header: they must not leak into it."""
    tb = TB(dut, 42, "beryl_pcie_us_rc.field_walk")
    await tb.start()
    tb.set_mode(3)
    rng = tb.rng
    widths = {"lower_address": 12, "byte_count": 13, "error_code": 4, "status": 3, "requester_id": 16,
              "completer_id": 16, "tag": 8, "tc": 3, "attr": 3, "ep": 1, "request_completed": 1,
              "length": 11}
    zero = dict(lower_address=0, byte_count=0, error_code=0, status=0, requester_id=PcieId(0, 0, 0),
                completer_id=PcieId(0, 0, 0), tag=0, tc=0, attr=0, ep=False, request_completed=False)
    ones = dict(lower_address=0xFFF, byte_count=0xFFF, error_code=0xF, status=7,
                requester_id=PcieId.from_int(0xFFFF), completer_id=PcieId.from_int(0xFFFF), tag=0xFF,
                tc=7, attr=7, ep=True, request_completed=True)
    n = 0
    for field, w in widths.items():
        for bit in range(w):
            for base in (zero, ones):
                if base is ones and field == "byte_count" and bit == 12:
                    continue     # 13-bit byte count above 4096 does not exist
                f = dict(base)
                ndw = rng.randint(0, 3)
                if field == "length":
                    ndw = 1 << bit if base is zero else (1023 ^ (1 << bit) if bit < 10 else 1023)
                elif field in ("requester_id", "completer_id"):
                    f[field] = PcieId.from_int(int(base[field]) ^ (1 << bit))
                elif field in ("ep", "request_completed"):
                    f[field] = not base[field]
                else:
                    f[field] = base[field] ^ (1 << bit)
                t = rand_cpl(rng, ndw, **f)
                tb.send_tlp(t, what=f"{field} bit {bit} ({'one' if base is zero else 'zero'})")
                n += 1
    await tb.drain()
    dut._log.info("%d walking-bit TLPs ok", n)


@cocotb.test()
async def test_error_paths(dut):
    """Every error code (PG213's and the unassigned ones) against every status value, poisoned or
    not, with and without data, plus the core's timeout report (no data, request completed): each
    yields one TLP with the status rule applied and err_code/req_done passed on."""
    tb = TB(dut, 43, "beryl_pcie_us_rc.error_paths")
    await tb.start()
    rng = tb.rng
    jobs = []
    for err in range(16):
        for status in range(8):
            for ep in (False, True):
                ndw = rng.choice([0, 0, 1, rng.randint(2, 2 * N)])
                jobs.append(rand_cpl(rng, ndw, error_code=err, status=status, ep=ep))
    for _ in range(8):
        jobs.append(rand_cpl(rng, 0, error_code=0b1001, status=CPL_SC, request_completed=True))
    rng.shuffle(jobs)
    for mode in range(4):
        tb.set_mode(mode)
        part = jobs[mode::4]
        for t in part:
            tb.send_tlp(t)
        await tb.drain()
        dut._log.info("%s: %d error-path TLPs ok", MODES[mode], len(part))


@cocotb.test()
async def test_full_rate(dut):
    """No idle, no backpressure. Without straddle: RC is never stalled and output beat j of every
    TLP leaves exactly LATENCY cycles after input beat j. With straddle: RC is held off only in
    cycles where rx_cpl is busy (up to two TLPs arrive per beat, one leaves per beat), and never
    for back-to-back whole-block completions, where rx_cpl needs fewer beats than RC."""
    tb = TB(dut, 44, "beryl_pcie_us_rc.full_rate")
    await tb.start()
    rng = tb.rng
    jobs = [rand_cpl(rng, n) for n in edge_lengths() if n < 4 * N]
    jobs += [rand_cpl(rng, rng.choice([rng.randint(0, 6), rng.randint(0, 3 * N)])) for _ in range(200)]
    rng.shuffle(jobs)
    for t in jobs:
        tb.send_tlp(t)
    await tb.drain()
    cycles = [c for c, _ in tb.in_beats]
    assert cycles[-1] - cycles[0] + 1 == len(cycles) + tb.stalls, "the RC source itself was not back to back"
    if not STRADDLE:
        assert tb.stalls == 0, f"RC stalled {tb.stalls} cycles with rx_cpl always ready"
        us_conv_bench.assert_beat_latency(tb.in_beats, tb.done, len(jobs), LATENCY)
    else:
        assert tb.stalls_idle == 0, f"RC held off {tb.stalls_idle} cycles while rx_cpl was idle"
    dut._log.info("%d TLPs: %d RC beats, %d RC stall cycles (all with rx_cpl busy), %d rx_cpl beats",
                  len(jobs), len(cycles), tb.stalls, tb.sink.beats)
    # whole 64-byte blocks (RCB-split reads): never a stall, straddled or not
    stalls0, beats0 = tb.stalls, len(tb.in_beats)
    for _ in range(60):
        tb.send_tlp(rand_cpl(rng, rng.choice([16, 32, 32, 64])))
    await tb.drain()
    assert tb.stalls == stalls0, f"RC stalled {tb.stalls - stalls0} cycles for whole-block completions"
    dut._log.info("60 whole-block completions in %d RC beats, no stall", len(tb.in_beats) - beats0)


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points (RC mid-packet, rx_cpl stalled or moving): afterwards rx_cpl stays
    idle until new RC input, and the TLPs sent after the reset come out intact."""
    tb = TB(dut, 45, "beryl_pcie_us_rc.reset")
    await tb.start()
    rng = tb.rng
    for rep in range(30 if LONG else 12):
        tb.set_mode(rep % 4)
        for _ in range(20):
            tb.send_tlp(rand_cpl(rng, rng.choice([rng.randint(0, 6), rng.randint(N, 5 * N)])))
        await ClockCycles(dut.clk, rng.randint(3, 40))
        for _ in range(1000):
            if tb.in_mid:
                break
            await RisingEdge(dut.clk)
        await tb.reset(rng.randint(1, 3))
        await ClockCycles(dut.clk, 8)
        after = rng.randint(5, 15)
        for _ in range(after):
            tb.send_tlp(rand_cpl(rng, rng.choice([rng.randint(0, 6), rng.randint(0, 3 * N)])))
        await tb.drain()
        mid, valid, out_mid = tb.reset_hits[-1]
        dut._log.info("reset %d (RC %s, rx_cpl %s): %d TLPs after it ok", rep,
                      "mid-packet" if mid else "between packets",
                      "mid-TLP" if out_mid else ("valid" if valid else "idle"), after)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit an RC packet with rx_cpl valid"


@cocotb.test()
async def test_discontinue(dut):
    """PG213: discontinue marks an RC packet the core found an uncorrectable error in; the module
    passes the TLP on whole and flags it with rx_cpl_tlp_bad on its last beat (its data must not be
    used). The bit comes from RcSource (`frame.discontinue`: every beat the TLP occupies) or from
    the bench (the last beat only, as PG213 describes it, or the first beat only, which the module
    must keep until the last). Every TLP must come out intact and in order, flagged exactly when
    one of its RC beats had the bit (with straddle the bit cannot tell the two TLPs of a beat
    apart: both are flagged): single- and multi-beat TLPs, bad ones back to back, good ones right
    after bad ones, in the four stall modes."""
    tb = TB(dut, 46, "beryl_pcie_us_rc.discontinue")
    await tb.start()
    rng = tb.rng
    one = N - DESC_DW         # most payload dwords of a one-beat completion
    total = None
    shared0 = tb.shared_disc
    for mode in range(4):
        tb.set_mode(mode)
        # units of one or two TLPs, shuffled: each bad kind once for sure, followed by a good
        # multi-beat one, then random TLPs (short ones often, to share beats) with random discontinue
        units = [[(rand_cpl(rng, n), how), (rand_cpl(rng, rng.randint(one + 1, 3 * N)), "clean")]
                 for n in (rng.randint(0, one), rng.randint(one + 1, 3 * N)) for how in list(us_conv_bench.DISC_HOW)[1:]]
        for _ in range(80 if LONG else 50):
            n = rng.choice([rng.randint(0, 5), rng.randint(0, one), rng.randint(one + 1, 3 * N)])
            how = rng.choice(list(us_conv_bench.DISC_HOW) + ["clean"] * 2)
            units.append([(rand_cpl(rng, n), how)])
        rng.shuffle(units)
        jobs = [job for u in units for job in u]
        ndone = len(tb.done)
        for t, how in jobs:
            t.discontinue = how == "every beat"
            tb.send_tlp(t, disc=us_conv_bench.DISC_HOW[how], what=f"cpl len {t.length} ({how})")
        await tb.drain()
        cases = us_conv_bench.discontinue_cases(tb.done[ndone:], [how for _, how in jobs])
        dut._log.info("%s: %d TLPs intact, bad flags right: %s", MODES[mode], len(jobs), cases)
        total = cases if total is None else {k: total[k] + v for k, v in cases.items()}
    shared = tb.shared_disc - shared0
    dut._log.info("RC beats with discontinue carrying two TLPs (both flagged): %d", shared)
    for k, v in total.items():
        if k != "good, marked by a beat shared with a bad one":
            assert v >= 4, f"discontinue case not covered enough: {k} ({v})"
    if STRADDLE:
        assert shared >= 4 and total["good, marked by a beat shared with a bad one"] >= 4, \
            "straddle: no beat with the bit carried one TLP's end and another's start"
    else:
        assert not shared and not total["good, marked by a beat shared with a bad one"]


@pytest.mark.parametrize("tlp_data_w,straddle", [(512, 1), (512, 0), (256, 0)],
                         ids=["512-straddle", "512", "256"])
def test_beryl_pcie_us_rc(tlp_data_w, straddle):
    us_conv_bench.run("beryl_pcie_us_rc", Path(__file__).parent,
                      {"TLP_DATA_W": tlp_data_w, "RC_STRADDLE": straddle})


@pytest.mark.parametrize("params,message", [
    ({"TLP_DATA_W": 512, "AXIS_RC_USER_W": 75}, "is not a PG213 RC configuration"),
    ({"TLP_DATA_W": 256, "AXIS_RC_USER_W": 161, "RC_STRADDLE": 0}, "is not a PG213 RC configuration"),
    ({"TLP_DATA_W": 256, "RC_STRADDLE": 1}, "RC_STRADDLE is supported at TLP_DATA_W 512 only"),
])
def test_beryl_pcie_us_rc_rejects_bad_params(params, message):
    """Illegal parameters stop elaboration with the module's message (no simulation)."""
    r = us_conv_bench.elab("beryl_pcie_us_rc", params)
    assert r.returncode != 0 and message in r.stdout + r.stderr, r.stdout + r.stderr
