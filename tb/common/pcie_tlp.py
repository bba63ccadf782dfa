# SPDX-License-Identifier: MIT
"""TLP header codec for the vendor-neutral TLP stream, written from PCIe Base Spec 3.0 section 2.2.

Headers are 128-bit integers with DW0 in bits [127:96] (the wire order of the spec's figures).
This is the test benches' own reference: it shares no code with the RTL.
"""
from dataclasses import dataclass

FMT_3DW_NODATA, FMT_4DW_NODATA, FMT_3DW_DATA, FMT_4DW_DATA = 0, 1, 2, 3
TYPE_MEM, TYPE_CPL = 0x00, 0x0A
CPL_SC, CPL_UR, CPL_CRS, CPL_CA = 0, 1, 2, 4


def _dw0(fmt, typ, length, ep=0, td=0, tc=0, attr=0):
    """Header DW0; `attr` is 3 bits: bit 2 is Attr[2] (ID-based ordering) in DW0 bit 18."""
    return ((fmt & 7) << 29) | ((typ & 0x1F) << 24) | ((tc & 7) << 20) | (((attr >> 2) & 1) << 18) | \
           ((td & 1) << 15) | ((ep & 1) << 14) | ((attr & 3) << 12) | (length & 0x3FF)


@dataclass
class MemReq:
    fmt: int
    addr: int
    length_dw: int          # 1..1024
    first_be: int
    last_be: int
    tag: int
    requester_id: int = 0
    ep: int = 0

    @property
    def is_write(self):
        return bool(self.fmt & 2)

    def pack(self):
        dw0 = _dw0(self.fmt, TYPE_MEM, self.length_dw & 0x3FF, self.ep)
        dw1 = (self.requester_id << 16) | (self.tag << 8) | (self.last_be << 4) | self.first_be
        return (dw0 << 96) | (dw1 << 64) | (self.addr & ~3 & (2**64 - 1))

    @classmethod
    def unpack(cls, hdr):
        dw0, dw1 = (hdr >> 96) & 0xFFFFFFFF, (hdr >> 64) & 0xFFFFFFFF
        fmt, typ = dw0 >> 29, (dw0 >> 24) & 0x1F
        assert typ == TYPE_MEM, f"not a memory request: type {typ:#x}"
        length = dw0 & 0x3FF or 1024
        if fmt & 1:
            addr = hdr & (2**64 - 1) & ~3
        else:
            addr = (hdr >> 32) & 0xFFFFFFFC
        return cls(fmt=fmt, addr=addr, length_dw=length, first_be=dw1 & 0xF, last_be=(dw1 >> 4) & 0xF,
                   tag=(dw1 >> 8) & 0xFF, requester_id=dw1 >> 16, ep=(dw0 >> 14) & 1)

    def byte_range(self):
        """(first byte address, byte count) this request covers, per its byte enables."""
        fb, lb = self.first_be, self.last_be
        if self.length_dw == 1:
            assert lb == 0, "1-DW request must have last BE 0"
            assert fb != 0 and (fb & (fb + (fb & -fb))) == 0, f"first BE {fb:#x} not contiguous"
            lo = (fb & -fb).bit_length() - 1
            hi = fb.bit_length()
            return self.addr + lo, hi - lo
        assert fb != 0 and lb != 0, "multi-DW request needs non-zero first and last BE"
        assert fb in (0xF, 0xE, 0xC, 0x8), f"first BE {fb:#x} not contiguous to the end"
        assert lb in (0xF, 0x7, 0x3, 0x1), f"last BE {lb:#x} not contiguous from the start"
        lo = (fb & -fb).bit_length() - 1
        hi = lb.bit_length()
        return self.addr + lo, self.length_dw * 4 - lo - (4 - hi)


@dataclass
class Cpl:
    status: int
    byte_count: int          # 1..4096, remaining including this TLP
    lower_addr: int
    tag: int
    length_dw: int = 0       # 0 for a completion without data
    requester_id: int = 0
    completer_id: int = 0
    ep: int = 0
    bcm: int = 0

    def pack(self):
        fmt = FMT_3DW_DATA if self.length_dw else FMT_3DW_NODATA
        dw0 = _dw0(fmt, TYPE_CPL, self.length_dw & 0x3FF, self.ep)
        dw1 = (self.completer_id << 16) | (self.status << 13) | (self.bcm << 12) | (self.byte_count & 0xFFF)
        dw2 = (self.requester_id << 16) | (self.tag << 8) | (self.lower_addr & 0x7F)
        return (dw0 << 96) | (dw1 << 64) | (dw2 << 32)

    @classmethod
    def unpack(cls, hdr):
        dw0, dw1, dw2 = (hdr >> 96) & 0xFFFFFFFF, (hdr >> 64) & 0xFFFFFFFF, (hdr >> 32) & 0xFFFFFFFF
        assert (dw0 >> 24) & 0x1F == TYPE_CPL, "not a completion"
        has_data = (dw0 >> 29) & 2
        return cls(status=(dw1 >> 13) & 7, byte_count=(dw1 & 0xFFF) or 4096, lower_addr=dw2 & 0x7F,
                   tag=(dw2 >> 8) & 0xFF, length_dw=((dw0 & 0x3FF) or 1024) if has_data else 0,
                   requester_id=dw2 >> 16, completer_id=dw1 >> 16, ep=(dw0 >> 14) & 1, bcm=(dw1 >> 12) & 1)


def split_completions(addr, nbytes, rcb, max_payload, rng):
    """Split a read of `nbytes` at `addr` into completions the way a completer may (PCIe 3.0
    section 2.3.1.1): every completion but the last ends on an RCB boundary, none exceeds
    max_payload. Returns a list of (address, byte count) pieces."""
    pieces = []
    end = addr + nbytes
    a = addr
    while a < end:
        # candidate ends: RCB boundaries after a, at most max_payload bytes (DW-rounded) away
        limit = min(end, (a & ~3) + max_payload)
        boundaries = [b for b in range((a // rcb + 1) * rcb, limit + 1, rcb) if b < end]
        if limit == end and rng.random() < 0.5 or not boundaries:
            stop = end if limit == end else boundaries[-1] if boundaries else end
        else:
            stop = rng.choice(boundaries)
        pieces.append((a, stop - a))
        a = stop
    return pieces


# ---- the same headers as plain dicts, for benches that check individual fields ----

def mem_hdr(write, addr, length_dw, first_be, last_be, tag=0, req_id=0, attr=0, tc=0):
    """4DW memory request header (the neutral stream's form)."""
    d0 = _dw0(FMT_4DW_DATA if write else FMT_4DW_NODATA, TYPE_MEM, length_dw, tc=tc, attr=attr)
    d1 = (req_id << 16) | (tag << 8) | (last_be << 4) | first_be
    return (d0 << 96) | (d1 << 64) | ((addr >> 2) << 2)


def parse_mem_hdr(h):
    """Every field of a 4DW memory request header."""
    d0, d1 = h >> 96, (h >> 64) & 0xFFFFFFFF
    return dict(fmt=d0 >> 29, type=(d0 >> 24) & 0x1F, tc=(d0 >> 20) & 7,
                attr=(((d0 >> 18) & 1) << 2) | ((d0 >> 12) & 3), td=(d0 >> 15) & 1, ep=(d0 >> 14) & 1,
                at=(d0 >> 10) & 3, length=(d0 & 0x3FF) or 1024,
                req_id=d1 >> 16, tag=(d1 >> 8) & 0xFF, last_be=(d1 >> 4) & 0xF, first_be=d1 & 0xF,
                addr=h & 0xFFFFFFFF_FFFFFFFC, ph=h & 3)


def cpl_hdr(length_dw, status, byte_count, req_id, tag, lower_addr, cpl_id=0):
    return Cpl(status=status, byte_count=byte_count, lower_addr=lower_addr, tag=tag,
               length_dw=length_dw, requester_id=req_id, completer_id=cpl_id).pack()


def parse_cpl_hdr(h):
    """Every field of a completion header (length is the raw field: 0 for no data)."""
    d0, d1, d2 = h >> 96, (h >> 64) & 0xFFFFFFFF, (h >> 32) & 0xFFFFFFFF
    return dict(fmt=d0 >> 29, type=(d0 >> 24) & 0x1F, ep=(d0 >> 14) & 1, length=d0 & 0x3FF,
                cpl_id=d1 >> 16, status=(d1 >> 13) & 7, byte_count=(d1 & 0xFFF) or 4096,
                req_id=d2 >> 16, tag=(d2 >> 8) & 0xFF, lower_addr=d2 & 0x7F)


def be_for(addr, nbytes):
    """DW-aligned address, DW count, first/last BE covering [addr, addr+nbytes)."""
    start, end = addr & ~3, (addr + nbytes + 3) & ~3
    ndw = (end - start) // 4
    first_be = (0xF << (addr & 3)) & 0xF
    last_be = 0xF >> ((-(addr + nbytes)) & 3)
    if ndw == 1:
        return start, 1, first_be & last_be, 0
    return start, ndw, first_be, last_be


def be_byte_count(ndw, first_be, last_be):
    """Byte Count a read request asks for (PCIe 3.0 section 2.3.1.1; zero-length read: 1)."""
    if ndw == 1:
        if first_be == 0:
            return 1
        lo = (first_be & -first_be).bit_length() - 1
        return first_be.bit_length() - lo
    lo = (first_be & -first_be).bit_length() - 1
    return ndw * 4 - lo - (4 - last_be.bit_length())
