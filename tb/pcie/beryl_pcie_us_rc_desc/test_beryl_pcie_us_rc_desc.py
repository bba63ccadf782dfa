# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_rc_desc: UltraScale+ requester completion (RC) descriptor -> neutral
completion header (beryl_pcie_pkg::tlp_cpl_hdr_t), error code and "request completed" flag.

Reference model, written here from the two specifications and the module's comments (not from the
RTL): `rc_desc()` packs descriptor fields into the 96 bits of PG213's "Requester Completion
Descriptor Format"; `cpl_hdr()` packs the same fields into the 12 header bytes of a PCIe 3.0
completion (figure 2-32, byte 0 first, i.e. DW0 in bits [127:96], DW3 zero) with the wire's
wrap-arounds (dword count 1024 -> length 0, byte count 4096 -> 0, 7-bit lower address). Fmt is
"with data" exactly when the dword count is non-zero, the type is CplLk for a locked read
completion. The module's own rule on top: a completion the core reports with status SC but an
error code other than normal termination or poisoned is reported as completer abort. Both
encoders are checked against cocotbext-pcie's Tlp_us (pack_us_rc / pack_header) before the
bench runs, so the model does not rest on this file alone.

Tests (combinational: drive `desc`, wait, read): every value of every small field (error code,
status, tc, attr, locked, request completed, poisoned) and the corner values of the counts and the
lower address, each with the other fields random; a walking one through every id, tag and count
bit (catches swapped or shifted fields); every error code against every status with and without
poison; random descriptors with the reserved bits set at random (they must not matter).
BERYL_LONG=1 runs more random descriptors.
"""
import os
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))

# PG213 "Requester Completion Error Codes"
ERR_NORMAL, ERR_POISONED, ERR_BAD_STATUS, ERR_BAD_LEN, ERR_MISMATCH = 0b0000, 0b0001, 0b0010, 0b0011, 0b0100
ERR_BAD_ADDR, ERR_BAD_TAG, ERR_FLR, ERR_TIMEOUT = 0b0101, 0b0110, 0b1000, 0b1001
ERR_NAMES = {ERR_NORMAL: "normal", ERR_POISONED: "poisoned", ERR_BAD_STATUS: "bad status",
             ERR_BAD_LEN: "invalid length", ERR_MISMATCH: "mismatch", ERR_BAD_ADDR: "invalid address",
             ERR_BAD_TAG: "invalid tag", ERR_FLR: "FLR", ERR_TIMEOUT: "timeout"}
# PCIe 3.0 section 2.2.9 completion status
CPL_SC, CPL_UR, CPL_CRS, CPL_CA = 0b000, 0b001, 0b010, 0b100

# descriptor fields and their widths in the RC descriptor
FIELDS = {"lower_addr": 12, "err": 4, "byte_count": 13, "locked": 1, "req_done": 1,
          "dword_count": 11, "status": 3, "poisoned": 1, "requester_id": 16,
          "tag": 8, "completer_id": 16, "tc": 3, "attr": 3}
# reserved descriptor bits: DW0[31], DW1[15], DW2[24], DW2[31]
RSVD_BITS = (31, 32 + 15, 64 + 24, 64 + 31)


# ------------------------------------------------------------------------------------------
# Reference model
# ------------------------------------------------------------------------------------------
def rc_desc(f, rsvd=0):
    """The 96-bit RC descriptor (DW0 in bits [31:0]) of fields `f`; `rsvd`: reserved bits to set."""
    dw0 = (f["lower_addr"] | f["err"] << 12 | f["byte_count"] << 16 | f["locked"] << 29
           | f["req_done"] << 30)
    dw1 = f["dword_count"] | f["status"] << 11 | f["poisoned"] << 14 | f["requester_id"] << 16
    dw2 = f["tag"] | f["completer_id"] << 8 | f["tc"] << 25 | f["attr"] << 28
    desc = dw0 | dw1 << 32 | dw2 << 64
    for i, b in enumerate(RSVD_BITS):
        if rsvd >> i & 1:
            desc |= 1 << b
    return desc


def cpl_hdr(f, status):
    """The completion header the descriptor stands for, as tlp_cpl_hdr_t bits (byte 0 at the top)."""
    with_data = f["dword_count"] != 0
    fmt = 0b010 if with_data else 0b000             # 3DW with / without data
    typ = 0b01011 if f["locked"] else 0b01010       # CplLk / Cpl (CplD, CplDLk by fmt)
    length = f["dword_count"] & 0x3FF               # 1024 is 0 on the wire
    b = bytearray(16)
    b[0] = fmt << 5 | typ
    b[1] = f["tc"] << 4 | (f["attr"] >> 2) << 2     # T9 0, TC, T8 0, Attr[2], LN 0, TH 0
    b[2] = f["poisoned"] << 6 | (f["attr"] & 3) << 4 | length >> 8   # TD 0, EP, Attr[1:0], AT 0
    b[3] = length & 0xFF
    b[4:6] = f["completer_id"].to_bytes(2, "big")
    bc = f["byte_count"] & 0xFFF                    # 4096 is 0 on the wire
    b[6] = status << 5 | bc >> 8                    # BCM 0
    b[7] = bc & 0xFF
    b[8:10] = f["requester_id"].to_bytes(2, "big")
    b[10] = f["tag"]
    b[11] = f["lower_addr"] & 0x7F                  # R 0, lower address[6:0]
    return int.from_bytes(b, "big")


def expected(f):
    """(header, error code, request completed) the module should output for fields `f`."""
    status = f["status"]
    # the module's rule: an error the core found in an SC completion must not pass as good data
    if status == CPL_SC and f["err"] not in (ERR_NORMAL, ERR_POISONED):
        status = CPL_CA
    return cpl_hdr(f, status), f["err"], f["req_done"]


def random_fields(rng):
    return {
        "lower_addr": rng.getrandbits(12), "err": rng.getrandbits(4),
        "byte_count": rng.randint(0, 4096), "locked": rng.getrandbits(1), "req_done": rng.getrandbits(1),
        "dword_count": rng.randint(0, 1024), "status": rng.getrandbits(3),
        "poisoned": rng.getrandbits(1), "requester_id": rng.getrandbits(16), "tag": rng.getrandbits(8),
        "completer_id": rng.getrandbits(16), "tc": rng.getrandbits(3), "attr": rng.getrandbits(3),
    }


HDR_FIELDS = [  # tlp_cpl_hdr_t fields, (name, msb, lsb), for readable mismatch messages
    ("fmt", 127, 125), ("type", 124, 120), ("t9", 119, 119), ("tc", 118, 116), ("t8", 115, 115),
    ("attr2", 114, 114), ("ln", 113, 113), ("th", 112, 112), ("td", 111, 111), ("ep", 110, 110),
    ("attr", 109, 108), ("at", 107, 106), ("length", 105, 96), ("completer_id", 95, 80),
    ("status", 79, 77), ("bcm", 76, 76), ("byte_count", 75, 64), ("requester_id", 63, 48),
    ("tag", 47, 40), ("r", 39, 39), ("lower_addr", 38, 32), ("dw3", 31, 0)]


def hdr_diff(exp, got):
    out = []
    for name, msb, lsb in HDR_FIELDS:
        mask = (1 << (msb - lsb + 1)) - 1
        e, g = exp >> lsb & mask, got >> lsb & mask
        if e != g:
            out.append(f"{name} expected {e:#x} got {g:#x}")
    return ", ".join(out)


# ------------------------------------------------------------------------------------------
# Bench
# ------------------------------------------------------------------------------------------
class TB:
    def __init__(self, dut):
        self.dut = dut
        self.count = 0
        self.errors = []

    async def check(self, f, rsvd=0, what=""):
        dut = self.dut
        desc = rc_desc(f, rsvd)
        dut.desc.value = desc
        await Timer(1, "ns")
        got = (int(dut.hdr.value), int(dut.err_code.value), int(dut.req_done.value))
        exp = expected(f)
        self.count += 1
        if got != exp:
            msg = (f"{what}: desc {desc:024x} fields {f}: "
                   + "; ".join(x for x in (hdr_diff(exp[0], got[0]),
                                            f"err_code expected {exp[1]} got {got[1]}" if exp[1] != got[1] else "",
                                            f"req_done expected {exp[2]} got {got[2]}" if exp[2] != got[2] else "")
                                if x))
            if len(self.errors) < 10:
                dut._log.error(msg)
            self.errors.append(msg)

    def done(self):
        assert not self.errors, f"{len(self.errors)} of {self.count} descriptors wrong, first: {self.errors[0]}"
        self.dut._log.info("%d descriptors decoded as expected", self.count)


@cocotb.test()
async def test_field_values(dut):
    """Every value of each small field and the corners of the counts, the other fields random."""
    tb, rng = TB(dut), beryl_seed.rng(31, "test_field_values")
    sweeps = {
        "err": range(16), "status": range(8), "tc": range(8), "attr": range(8),
        "locked": range(2), "req_done": range(2), "poisoned": range(2),
        "dword_count": [0, 1, 2, 3, 255, 256, 511, 512, 513, 1022, 1023, 1024],
        "byte_count": [0, 1, 2, 3, 4, 127, 128, 2047, 2048, 4094, 4095, 4096],
        "lower_addr": list(range(0, 128)) + [0x80, 0x7F, 0xFFF, 0xF80, 0x800, 0x555, 0xAAA],
        "tag": [0, 1, 0x80, 0xFF], "requester_id": [0, 0xFFFF], "completer_id": [0, 0xFFFF],
    }
    for name, values in sweeps.items():
        for v in values:
            for _ in range(4):
                f = random_fields(rng)
                f[name] = v
                await tb.check(f, rng.getrandbits(4), f"{name} = {v}")
    tb.done()


@cocotb.test()
async def test_walking_one(dut):
    """All fields zero but one bit: each bit lands in its own header bit (no swap, no shift)."""
    tb = TB(dut)
    zero = {k: 0 for k in FIELDS}
    for name, width in FIELDS.items():
        for bit in range(width):
            v = 1 << bit
            if name == "dword_count" and v > 1024:
                continue        # above the largest legal count
            if name == "byte_count" and v > 4096:
                continue
            f = dict(zero)
            f[name] = v
            await tb.check(f, 0, f"{name} bit {bit}")
            # and the same bit cleared with everything else set
            g = {k: (1 << w) - 1 for k, w in FIELDS.items()}
            g["dword_count"], g["byte_count"] = 1024, 4095
            if name not in ("dword_count", "byte_count"):
                g[name] &= ~v
                await tb.check(g, 0xF, f"all but {name} bit {bit}")
    # the reserved bits alone
    for i in range(len(RSVD_BITS)):
        await tb.check(dict(zero), 1 << i, f"reserved bit {RSVD_BITS[i]}")
    tb.done()


@cocotb.test()
async def test_error_codes(dut):
    """Every error code (PG213's and the reserved ones) with every status, poisoned or not."""
    tb, rng = TB(dut), beryl_seed.rng(32, "test_error_codes")
    seen = set()
    for err in range(16):
        for status in range(8):
            for poisoned in range(2):
                for _ in range(3):
                    f = random_fields(rng)
                    f.update(err=err, status=status, poisoned=poisoned)
                    await tb.check(f, rng.getrandbits(4),
                                   f"error code {err} ({ERR_NAMES.get(err, 'reserved')}), status {status}")
                    seen.add(expected(f)[0] >> 77 & 7)
    assert seen == set(range(8)), "not every header status came out"
    tb.done()


@cocotb.test()
async def test_random(dut):
    """Random legal descriptors with random reserved bits."""
    tb, rng = TB(dut), beryl_seed.rng(33, "test_random")
    for _ in range(20000 if LONG else 3000):
        await tb.check(random_fields(rng), rng.getrandbits(4), "random")
    tb.done()


# ------------------------------------------------------------------------------------------
# pytest
# ------------------------------------------------------------------------------------------
def test_reference_matches_cocotbext_pcie():
    """The two encoders above agree with cocotbext-pcie's UltraScale RC descriptor and TLP header
    packing (outside reference; no simulation)."""
    from cocotbext.pcie.core.tlp import TlpType
    from cocotbext.pcie.core.utils import PcieId
    from cocotbext.pcie.xilinx.us.tlp import Tlp_us
    rng = beryl_seed.rng(34, "test_reference_matches_cocotbext_pcie")
    for n in range(3000):
        f = random_fields(rng)
        if n < 40:      # the corners first
            f["dword_count"] = [0, 1, 1023, 1024][n % 4]
            f["byte_count"] = [0, 1, 4095, 4096][n // 4 % 4]
        t = Tlp_us()
        t.fmt_type = {(0, 0): TlpType.CPL, (1, 0): TlpType.CPL_DATA, (0, 1): TlpType.CPL_LOCKED,
                      (1, 1): TlpType.CPL_LOCKED_DATA}[(int(f["dword_count"] != 0), f["locked"])]
        t.length = f["dword_count"]
        t.byte_count = f["byte_count"]
        t.lower_address = f["lower_addr"]
        t.status = f["status"]
        t.ep = bool(f["poisoned"])
        t.requester_id = PcieId.from_int(f["requester_id"])
        t.completer_id = PcieId.from_int(f["completer_id"])
        t.tag = f["tag"]
        t.tc = f["tc"]
        t.attr = f["attr"]
        t.error_code = f["err"]
        t.request_completed = bool(f["req_done"])
        d = t.pack_us_rc().data
        assert d[0] | d[1] << 32 | d[2] << 64 == rc_desc(f), f"RC descriptor differs for {f}"
        # pack_header encodes the 10-bit length field; 1024 is 0 there too
        assert cpl_hdr(f, f["status"]) >> 32 == int.from_bytes(t.pack_header(), "big"), \
            f"completion header differs for {f}"


def test_beryl_pcie_us_rc_desc():
    beryl_sim.run("beryl_pcie_us_rc_desc", "rtl/pcie/beryl_pcie_us_rc_desc.f", "test_beryl_pcie_us_rc_desc",
                  Path(__file__).parent)
