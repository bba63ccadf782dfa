# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_cq: UltraScale+ completer request (CQ) AXI-Stream -> neutral rx_req
TLP stream (docs/blocks/pcie_interfaces.md).

Reference, independent of the RTL: requests are cocotbext-pcie `Tlp_us` objects, packed into PG213
CQ descriptors by `Tlp_us.pack_us_cq()` and driven by cocotbext-pcie's `CqSource` (PG213 tuser
layout: first/last BE, is_sop/is_eop, byte enables, parity, discontinue). The expected rx_req header
is cocotbext-pcie's generic `Tlp.pack_header()` of the same request in its 4DW form (the neutral
stream's memory request layout, `tlp_mem_hdr_t`, DW0 in bits [127:96]); PCIe 3.0 table 2-3 gives the
Fmt/Type the module's header promises for the other request types. The bench adds random garbage in
every dword outside tkeep and in the tuser byte-enable and parity fields (the module must take BEs
from first/last BE only).

Every rx_req TLP is compared with the reference: all 128 header bits (fmt/type, TC, attr, AT, length
with 1024 -> 0, requester id, tag, first/last BE, 64-bit address, every reserved bit zero), bar_id,
payload bytes; the sink checks the stream rules on every beat (strb contiguous from bit 0, full beats
before eop, sop/eop framing, header and bar_id constant over a TLP, a header-only TLP is one strb-0
beat, outputs held while valid && !ready, valid never dropped without a handshake). In every test
rx_req_tlp_bad is checked on every beat: 0 before eop and, with eop, 1 exactly for the requests of
which some accepted CQ beat had the tuser discontinue bit (PG213; bit 96 at 512 bits, 41 at 256),
the bench's reference taken from the CQ beats themselves; so every request sent without
discontinue must come out with bad 0.

Tests: every payload length around the beat edges (input and output) plus random lengths and every
request kind, under no stalls, random source idle (also inside a TLP), random sink backpressure and
both; a walking one through every header field bit; every PG213 request type code (memory, IO,
atomics, locked read keep their PCIe type; configuration and message codes must not look like a
request); the header's full-rate claim (CQ never stalled with rx_req ready, output beat j of every
TLP exactly 2 cycles after input beat j); reset in the middle of traffic (output idle afterwards,
later TLPs intact); discontinue (the bit from CqSource's `frame.discontinue` on every beat of a
request, or from the bench on its last beat only, as PG213 describes it, or on its first beat
only, which must be kept until the last): every request comes out whole and in order, flagged bad
exactly as above, single- and multi-beat requests, bad ones back to back, a good one right after a
bad one not flagged, under the four stall modes; illegal parameters stop elaboration.
BERYL_LONG=1 runs more TLPs.
"""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge

from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us.interface import CqSource, UsPcieFrame
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import us_conv_bench  # noqa: E402
from pcie_tlp import parse_mem_hdr  # noqa: E402
from us_conv_bench import LONG, N, TLP_DATA_W, GarbageSource, ModelToNeutralTB  # noqa: E402

DESC_DW = 4               # PG213 CQ descriptor
LATENCY = 3               # module header: input beat j -> output beat j, cycles (input register + strip)

# Request kinds: (type on CQ, neutral type it must come out as). The neutral stream carries
# memory requests (and everything in the tlp_mem_hdr_t layout) in the 4DW form; IO requests keep
# their 3DW Fmt (PCIe 3.0 table 2-3: IO is always 3DW) in the same layout.
KINDS = {
    "MRd":     (TlpType.MEM_READ,           TlpType.MEM_READ_64),
    "MRd64":   (TlpType.MEM_READ_64,        TlpType.MEM_READ_64),
    "MWr":     (TlpType.MEM_WRITE,          TlpType.MEM_WRITE_64),
    "MWr64":   (TlpType.MEM_WRITE_64,       TlpType.MEM_WRITE_64),
    "MRdLk":   (TlpType.MEM_READ_LOCKED,    TlpType.MEM_READ_LOCKED_64),
    "MRdLk64": (TlpType.MEM_READ_LOCKED_64, TlpType.MEM_READ_LOCKED_64),
    "IORd":    (TlpType.IO_READ,            TlpType.IO_READ),
    "IOWr":    (TlpType.IO_WRITE,           TlpType.IO_WRITE),
    "FAdd":    (TlpType.FETCH_ADD,          TlpType.FETCH_ADD_64),
    "FAdd64":  (TlpType.FETCH_ADD_64,       TlpType.FETCH_ADD_64),
    "Swap":    (TlpType.SWAP,               TlpType.SWAP_64),
    "Swap64":  (TlpType.SWAP_64,            TlpType.SWAP_64),
    "CAS":     (TlpType.CAS,                TlpType.CAS_64),
    "CAS64":   (TlpType.CAS_64,             TlpType.CAS_64),
}
KINDS_BY_TYPE = {v[0]: v[1] for v in KINDS.values()}
# Fmt/Type codes (DW0[31:24]) a consumer acts on: memory, locked read, IO, atomics, completions.
ACTED_ON = {(f, t) for f in range(8) for t in (0x00, 0x01, 0x02, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E)}


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
def has_data(tlp_type):
    return tlp_type.value[0] in (2, 3)


def rand_request(rng, kind, ndw, **fields):
    """A Tlp_us request of `kind` with `ndw` dwords (payload for writes/atomics, requested length
    for reads), every other field random unless given in `fields`."""
    t = Tlp_us()
    t.fmt_type = KINDS[kind][0]
    three_dw = t.fmt_type.value[0] in (0, 2)
    t.address = rng.getrandbits(30 if three_dw or rng.random() < 0.2 else 62) << 2
    t.at = rng.randrange(4)
    t.requester_id = PcieId.from_int(rng.getrandbits(16))
    t.tag = rng.getrandbits(8)
    t.completer_id = PcieId(0, 0, rng.randrange(8))   # target function: not used by the module
    t.bar_id = rng.randrange(8)
    t.bar_aperture = rng.getrandbits(6)              # not used by the module
    t.tc = rng.randrange(8)
    t.attr = rng.randrange(8)
    t.first_be = rng.getrandbits(4)
    t.last_be = rng.getrandbits(4)
    if has_data(t.fmt_type):
        t.set_data(rng.randbytes(4 * ndw))
    else:
        t.length = ndw
    for k, v in fields.items():
        setattr(t, k, v)
    return t


class Expect:
    """One rx_req TLP the module must produce: header (128-bit int), payload, bar_id (its
    rx_req_tlp_bad is the bench's, from the CQ beats)."""

    def __init__(self, hdr, payload, bar_id, what):
        self.hdr, self.payload, self.bar_id, self.what = hdr, bytes(payload), bar_id, what

    def diff(self, frame):
        errs = []
        if frame.hdr != self.hdr:
            e, g = parse_mem_hdr(self.hdr), parse_mem_hdr(frame.hdr)
            fields = [k for k in e if e[k] != g[k]] or ["reserved bits"]
            errs.append(f"header {frame.hdr:032x}, expected {self.hdr:032x} (fields {fields})")
        if frame.side["bar_id"] != self.bar_id:
            errs.append(f"bar_id {frame.side['bar_id']}, expected {self.bar_id}")
        if frame.payload != self.payload:
            k = next((i for i in range(min(len(frame.payload), len(self.payload)))
                      if frame.payload[i] != self.payload[i]), None)
            errs.append(f"payload {len(frame.payload)} bytes, expected {len(self.payload)}"
                        + (f", first difference at byte {k}" if k is not None else ""))
        return errs


def expect_for(t, what=""):
    """The rx_req TLP for request `t`, from cocotbext-pcie's PCIe header packer."""
    out_type = KINDS_BY_TYPE[t.fmt_type]
    e = Tlp(t)
    e.ph = 0
    io = out_type in (TlpType.IO_READ, TlpType.IO_WRITE)
    # IO has no 4DW form: pack the layout as a 4DW memory request, then put IO's Fmt/Type in.
    e.fmt_type = (TlpType.MEM_WRITE_64 if has_data(out_type) else TlpType.MEM_READ_64) if io else out_type
    hdr = int.from_bytes(e.pack_header(), "big")
    assert hdr >> 128 == 0
    if io:
        fmt, typ = out_type.value
        hdr = (hdr & ((1 << 120) - 1)) | (int(fmt) << 125) | (typ << 120)
    return Expect(hdr, t.data if has_data(t.fmt_type) else b"", t.bar_id,
                  what or f"{out_type.name} len {t.length}")



def raw_request(rng, req_type, ndw):
    """A CQ packet with PG213 request type code `req_type` (configuration and message codes have
    no Tlp_us packer): descriptor fields random in the memory layout, `ndw` payload dwords."""
    f = UsPcieFrame()
    addr = rng.getrandbits(62) << 2
    tag, rid, bar = rng.getrandbits(8), rng.getrandbits(16), rng.randrange(8)
    tc, attr, length = rng.randrange(8), rng.randrange(8), rng.randrange(1, 1025)
    if req_type in (12, 13, 14, 15) and rng.random() < 0.3:
        length = 0          # a message without data (dword count 0)
    f.data = [addr & 0xFFFFFFFF, addr >> 32, length | req_type << 11 | rid << 16,
              tag | bar << 16 | tc << 25 | attr << 28]
    payload = rng.randbytes(4 * ndw)
    f.data += [int.from_bytes(payload[i:i + 4], "little") for i in range(0, len(payload), 4)]
    f.byte_en = [0] * len(f.data)
    f.first_be, f.last_be = rng.getrandbits(4), rng.getrandbits(4)
    f.update_parity()
    # PCIe 3.0 table 2-3: configuration reads/writes type 0/1; messages (plain, vendor-defined, ATS)
    # Msg/MsgD by the dword count with the routing not decoded; the reserved code is no request type
    fmt, typ = {8: (0, 0x04), 9: (0, 0x05), 10: (2, 0x04), 11: (2, 0x05)}.get(
        req_type, (3 if length else 1, 0x10 if req_type < 15 else 0x1F))
    assert (fmt, typ) not in ACTED_ON     # none of them a type the BAR bridge acts on
    # the other fields as for a memory request with those fields (the neutral header's one layout)
    d0 = (fmt << 29) | (typ << 24) | (tc << 20) | ((attr >> 2) << 18) | ((attr & 3) << 12) | (length & 0x3FF)
    d1 = (rid << 16) | (tag << 8) | (f.last_be << 4) | f.first_be
    hdr = (d0 << 96) | (d1 << 64) | addr
    return f, Expect(hdr, payload, bar, f"request type code {req_type:#06b}")


def edge_lengths():
    """Payload dwords around every point where a TLP's end crosses an input or output beat edge,
    plus the longest TLP (1024 dwords, length field 0)."""
    return us_conv_bench.edge_lengths(DESC_DW, 1)


# ------------------------------------------------------------------------------------------
# Bench (the machinery is tb/common/us_conv_bench.py)
# ------------------------------------------------------------------------------------------
class GarbageCqSource(GarbageSource, CqSource):
    """CqSource with random garbage in the dwords outside tkeep and in the tuser byte enables and
    parity, which the module must ignore."""
    # tuser fields the module must ignore (PG213 CQ): per-dword byte enables and parity
    BYTE_EN_OFF, PARITY_OFF = (16, 119) if TLP_DATA_W == 512 else (8, 53)


DISC_BIT = 96 if TLP_DATA_W == 512 else 41    # PG213 CQ tuser discontinue


class TB(ModelToNeutralTB):
    def __init__(self, dut, seed, name):
        super().__init__(dut, seed, name, in_prefix="s_axis_cq", in_name="CQ", source_cls=GarbageCqSource,
                         out_prefix="rx_req", side=["bar_id"], disc_bit=DISC_BIT)

    def send_tlp(self, t, disc=(), **kw):
        self.send(t.pack_us_cq(), expect_for(t, **kw), disc=disc)


def sweep(tb, count):
    """Writes of every edge length, then `count` random requests of every kind, shuffled."""
    rng = tb.rng
    jobs = [rand_request(rng, rng.choice(["MWr", "MWr64"]), n) for n in edge_lengths()]
    for _ in range(count):
        kind = rng.choice(list(KINDS))
        n = rng.choice([rng.randint(1, 4 * N), rng.randint(1, 8), rng.randint(1, 1024)])
        jobs.append(rand_request(rng, kind, n))
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
    """Edge and random lengths, every request kind, under the four stall modes."""
    tb = TB(dut, 21, "beryl_pcie_us_cq.random_streams")
    await tb.start()
    for rnd in range(6 if LONG else 2):
        for mode in range(4):
            tb.set_mode(mode)
            n = sweep(tb, 400 if LONG else 150)
            await tb.drain()
            dut._log.info("round %d, %s (idle %.2f, backpressure %.2f): %d TLPs ok", rnd, MODES[mode],
                          tb.src_idle, tb.sink.bp, n)


@cocotb.test()
async def test_field_walk(dut):
    """A walking one (and a walking zero) through every header field bit, so a swapped,
    shifted or stuck bit shows; with backpressure and idle."""
    tb = TB(dut, 22, "beryl_pcie_us_cq.field_walk")
    await tb.start()
    tb.set_mode(3)
    rng = tb.rng
    widths = {"address": 64, "requester_id": 16, "tag": 8, "tc": 3, "attr": 3, "at": 2, "bar_id": 3,
              "first_be": 4, "last_be": 4, "length": 11}
    zero = dict(address=0, requester_id=PcieId(0, 0, 0), tag=0, tc=0, attr=0, at=0, bar_id=0,
                first_be=0, last_be=0)
    ones = dict(address=(1 << 64) - 4, requester_id=PcieId.from_int(0xFFFF), tag=0xFF, tc=7, attr=7,
                at=3, bar_id=7, first_be=0xF, last_be=0xF)
    n = 0
    for field, w in widths.items():
        for bit in range(2 if field == "address" else 0, w):
            for base in (zero, ones):
                f = dict(base)
                if field == "length":
                    # dword count: walking one 1..1024, walking zero inside 1023
                    length = 1 << bit if base is zero else 1023 ^ (1 << bit) if bit < 10 else 1023
                    t = rand_request(rng, "MRd64", length, **f)
                elif field == "requester_id":
                    v = int(base[field]) ^ (1 << bit)
                    f[field] = PcieId.from_int(v)
                    t = rand_request(rng, "MWr64", rng.randint(1, 3), **f)
                else:
                    f[field] = base[field] ^ (1 << bit)
                    t = rand_request(rng, rng.choice(["MWr64", "MRd64"]), rng.randint(1, 3), **f)
                tb.send_tlp(t, what=f"{field} bit {bit} ({'one' if base is zero else 'zero'})")
                n += 1
    await tb.drain()
    dut._log.info("%d walking-bit TLPs ok", n)


@cocotb.test()
async def test_request_types(dut):
    """Every PG213 request type code: memory, locked read, IO and atomics keep their PCIe
    Fmt/Type; configuration requests come out as CfgRd/CfgWr type 0/1 and messages as Msg/MsgD
    (by the dword count), neither a type the BAR bridge acts on, with their payload and the
    stream intact."""
    tb = TB(dut, 23, "beryl_pcie_us_cq.request_types")
    await tb.start()
    rng = tb.rng
    for mode in range(4):
        tb.set_mode(mode)
        jobs = []
        for kind in KINDS:
            for _ in range(3):
                n = {"IORd": 1, "IOWr": 1}.get(kind) or rng.choice([1, 2, 4, 8, N - DESC_DW + 1])
                jobs.append(("tlp", rand_request(rng, kind, n)))
        for code in range(8, 16):
            for _ in range(2):
                jobs.append(("raw", raw_request(rng, code, rng.choice([0, 1, 2, N, 2 * N + 3]))))
        jobs += [("tlp", rand_request(rng, "MWr64", rng.randint(1, 3 * N))) for _ in range(20)]
        rng.shuffle(jobs)
        for kind, job in jobs:
            if kind == "tlp":
                tb.send_tlp(job)
            else:
                tb.send(*job)
        await tb.drain()
        dut._log.info("%s: %d TLPs of every request type ok", MODES[mode], len(jobs))


@cocotb.test()
async def test_full_rate(dut):
    """No idle, no backpressure: CQ is never stalled and output beat j of every TLP leaves
    exactly LATENCY cycles after input beat j (one beat per cycle, no bubbles)."""
    tb = TB(dut, 24, "beryl_pcie_us_cq.full_rate")
    await tb.start()
    rng = tb.rng
    jobs = [rand_request(rng, "MWr64", n) for n in edge_lengths() if n < 4 * N]
    jobs += [rand_request(rng, rng.choice(list(KINDS)), rng.randint(1, 3 * N)) for _ in range(150)]
    rng.shuffle(jobs)
    for t in jobs:
        tb.send_tlp(t)
    await tb.drain()
    assert tb.stalls == 0, f"CQ stalled {tb.stalls} cycles with rx_req always ready"
    cycles = [c for c, _ in tb.in_beats]
    assert cycles[-1] - cycles[0] + 1 == len(cycles), "the CQ source itself was not back to back"
    # input beats per TLP, delimited by tlast
    us_conv_bench.assert_beat_latency(tb.in_beats, tb.done, len(jobs), LATENCY)
    dut._log.info("%d TLPs, %d CQ beats in %d cycles, every output beat %d cycles after its input",
                  len(jobs), len(cycles), cycles[-1] - cycles[0] + 1, LATENCY)


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset at random points (CQ mid-packet, rx_req stalled or moving): afterwards rx_req stays
    idle until new CQ input, and the TLPs sent after the reset come out intact."""
    tb = TB(dut, 25, "beryl_pcie_us_cq.reset")
    await tb.start()
    rng = tb.rng
    for rep in range(30 if LONG else 10):
        tb.set_mode(rep % 4)
        for _ in range(20):
            tb.send_tlp(rand_request(rng, rng.choice(["MWr64", "MWr", "MRd64"]), rng.randint(N, 5 * N)))
        await ClockCycles(dut.clk, rng.randint(3, 40))
        for _ in range(1000):
            if tb.in_mid:
                break
            await RisingEdge(dut.clk)
        await tb.reset(rng.randint(1, 3))
        await ClockCycles(dut.clk, 8)          # quiet: rx_req must stay idle
        sweep_n = rng.randint(5, 15)
        for _ in range(sweep_n):
            tb.send_tlp(rand_request(rng, rng.choice(list(KINDS)), rng.randint(1, 3 * N)))
        await tb.drain()
        mid, valid, out_mid = tb.reset_hits[-1]
        dut._log.info("reset %d (CQ %s, rx_req %s): %d TLPs after it ok", rep,
                      "mid-packet" if mid else "between packets",
                      "mid-TLP" if out_mid else ("valid" if valid else "idle"), sweep_n)
    assert any(h[0] and h[1] for h in tb.reset_hits), "no reset hit a CQ packet with rx_req valid"


@cocotb.test()
async def test_discontinue(dut):
    """PG213: the core flags a CQ request it found an uncorrectable error in with discontinue; the
    module passes the request on whole and flags it with rx_req_tlp_bad on its last beat, and the
    consumer discards it. The bit comes from CqSource (`frame.discontinue`: every beat of the
    request) or from the bench (the last beat only, as PG213 describes it, or the first beat only,
    which the module must keep until the last). Every request must come out intact and in order,
    flagged exactly when one of its CQ beats had the bit: single- and multi-beat requests, bad
    ones back to back, good ones right after bad ones, in the four stall modes."""
    tb = TB(dut, 26, "beryl_pcie_us_cq.discontinue")
    await tb.start()
    rng = tb.rng
    one = N - DESC_DW         # most payload dwords of a one-beat write
    total = None
    for mode in range(4):
        tb.set_mode(mode)
        # units of one or two requests, shuffled: each bad kind once for sure, followed by a good
        # multi-beat write, then random requests with random discontinue
        units = [[(rand_request(rng, "MWr64", n), how), (rand_request(rng, "MWr64", rng.randint(one + 1, 3 * N)),
                                                         "clean")]
                 for n in (rng.randint(1, one), rng.randint(one + 1, 3 * N)) for how in list(us_conv_bench.DISC_HOW)[1:]]
        for _ in range(80 if LONG else 50):
            n = rng.choice([rng.randint(1, one), rng.randint(one + 1, 3 * N), rng.randint(1, 4 * N)])
            how = rng.choice(list(us_conv_bench.DISC_HOW) + ["clean"] * 2)
            units.append([(rand_request(rng, rng.choice(["MWr64", "MWr", "MRd64"]), n), how)])
        rng.shuffle(units)
        jobs = [job for u in units for job in u]
        ndone = len(tb.done)
        for t, how in jobs:
            t.discontinue = how == "every beat"
            tb.send_tlp(t, disc=us_conv_bench.DISC_HOW[how],
                        what=f"{KINDS_BY_TYPE[t.fmt_type].name} len {t.length} ({how})")
        await tb.drain()
        cases = us_conv_bench.discontinue_cases(tb.done[ndone:], [how for _, how in jobs])
        dut._log.info("%s: %d TLPs intact, bad flags right: %s", MODES[mode], len(jobs), cases)
        total = cases if total is None else {k: total[k] + v for k, v in cases.items()}
    for k, v in total.items():
        if k != "good, marked by a beat shared with a bad one":   # straddle only (not on CQ)
            assert v >= 4, f"discontinue case not covered enough: {k} ({v})"
    assert not total["good, marked by a beat shared with a bad one"]


@pytest.mark.parametrize("tlp_data_w", [512, 256])
def test_beryl_pcie_us_cq(tlp_data_w):
    us_conv_bench.run("beryl_pcie_us_cq", Path(__file__).parent, {"TLP_DATA_W": tlp_data_w})


@pytest.mark.parametrize("params", [{"TLP_DATA_W": 512, "AXIS_CQ_USER_W": 88},
                                    {"TLP_DATA_W": 256, "AXIS_CQ_USER_W": 183},
                                    {"TLP_DATA_W": 128, "AXIS_CQ_USER_W": 88}])
def test_beryl_pcie_us_cq_rejects_bad_params(params):
    """A width/tuser combination PG213 does not have stops elaboration with the module's message."""
    r = us_conv_bench.elab("beryl_pcie_us_cq", params)
    assert r.returncode != 0 and "is not a PG213 CQ configuration" in r.stdout + r.stderr, r.stdout + r.stderr
