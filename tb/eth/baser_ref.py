# SPDX-License-Identifier: MIT
"""Reference model of the 10GBASE-R PCS (IEEE 802.3 clause 49), written from the standard and not
from the RTL: 64b/66b block formats as lane-role tables (figure 49-7), the control-code map
(table 49-1) and a bit-serial self-synchronous scrambler x^58 + x^39 + 1 (figure 49-8).

A block is (hdr, payload): hdr is the 2-bit sync header with bit 0 sent first (data 0b10, control
0b01 as integers), payload the 64-bit block, bit 0 sent first; the block type field is payload[7:0].
"""

SYNC_DATA = 0b10
SYNC_CTRL = 0b01

# XGMII control character <-> 7-bit 10GBASE-R control code (table 49-1)
CODE_OF = {0x07: 0x00, 0x06: 0x06, 0xfe: 0x1e, 0x1c: 0x2d, 0x3c: 0x33, 0x7c: 0x4b, 0xbc: 0x55,
           0xdc: 0x66, 0xf7: 0x78}
CHAR_OF = {v: k for k, v in CODE_OF.items()}
O_CODE_OF = {0x9c: 0x0, 0x5c: 0xf}
O_CHAR_OF = {v: k for k, v in O_CODE_OF.items()}
START, TERM, ERROR, IDLE = 0xfb, 0xfd, 0xfe, 0x07

# lane roles per block type and the payload fields after the type byte, in bit order.
# Roles: C control, O ordered set, S start, T terminate, D data. Fields: (kind, lane or bits)
FORMATS = {
    0x1e: ("CCCCCCCC", [("C", i) for i in range(8)]),
    0x2d: ("CCCCODDD", [("C", 0), ("C", 1), ("C", 2), ("C", 3), ("O", 4), ("D", 5), ("D", 6), ("D", 7)]),
    0x33: ("CCCCSDDD", [("C", 0), ("C", 1), ("C", 2), ("C", 3), ("Z", 4), ("D", 5), ("D", 6), ("D", 7)]),
    0x66: ("ODDDSDDD", [("D", 1), ("D", 2), ("D", 3), ("O", 0), ("Z", 4), ("D", 5), ("D", 6), ("D", 7)]),
    0x55: ("ODDDODDD", [("D", 1), ("D", 2), ("D", 3), ("O", 0), ("O", 4), ("D", 5), ("D", 6), ("D", 7)]),
    0x78: ("SDDDDDDD", [("D", i) for i in range(1, 8)]),
    0x4b: ("ODDDCCCC", [("D", 1), ("D", 2), ("D", 3), ("O", 0), ("C", 4), ("C", 5), ("C", 6), ("C", 7)]),
}
for _k, _t in enumerate([0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff]):
    FORMATS[_t] = ("D" * _k + "T" + "C" * (7 - _k),
                   [("D", i) for i in range(_k)] + [("Z", 7 - _k)] + [("C", i) for i in range(_k + 1, 8)])
WIDTH = {"C": 7, "O": 4, "D": 8}

E_BLOCK = (SYNC_CTRL, 0x1e | sum(0x1e << (8 + 7 * i) for i in range(8)))


def lanes(d, c):
    return [(d >> (8 * i)) & 0xff for i in range(8)], [(c >> i) & 1 for i in range(8)]


def role_ok(role, byte, ctrl):
    if role == "D":
        return not ctrl
    if not ctrl:
        return False
    return {"C": byte in CODE_OF, "O": byte in O_CODE_OF, "S": byte == START, "T": byte == TERM}[role]


def encode(d, c):
    """One XGMII word -> (hdr, payload); a word no format fits becomes the error block."""
    b, k = lanes(d, c)
    if not any(k):
        return SYNC_DATA, d
    for btype, (roles, fields) in FORMATS.items():
        if all(role_ok(r, b[i], k[i]) for i, r in enumerate(roles)):
            p, pos = btype, 8
            for kind, arg in fields:
                if kind == "Z":
                    pos += arg
                    continue
                v = {"C": lambda i: CODE_OF[b[i]], "O": lambda i: O_CODE_OF[b[i]], "D": lambda i: b[i]}[kind](arg)
                p |= v << pos
                pos += WIDTH[kind]
            assert pos == 64, hex(btype)
            return SYNC_CTRL, p
    return E_BLOCK


def decode(hdr, p):
    """(hdr, payload) -> (d, c) XGMII word, or None for an invalid block."""
    if hdr == SYNC_DATA:
        return p, 0
    if hdr != SYNC_CTRL or (p & 0xff) not in FORMATS:
        return None
    roles, fields = FORMATS[p & 0xff]
    b = [None] * 8
    pos = 8
    for kind, arg in fields:
        if kind == "Z":
            pos += arg
            continue
        v = (p >> pos) & ((1 << WIDTH[kind]) - 1)
        pos += WIDTH[kind]
        if kind == "C":
            if v not in CHAR_OF:
                return None
            b[arg] = CHAR_OF[v]
        elif kind == "O":
            if v not in O_CHAR_OF:
                return None
            b[arg] = O_CHAR_OF[v]
        else:
            b[arg] = v
    d = c = 0
    for i, r in enumerate(roles):
        if r == "S":
            b[i] = START
        if r == "T":
            b[i] = TERM
        d |= b[i] << (8 * i)
        c |= (r != "D") << i
    return d, c


class Scrambler:
    """Bit-serial x^58 + x^39 + 1 scrambler: each output bit is the input bit XOR the scrambled bits
    sent 39 and 58 bits earlier."""

    def __init__(self, seed=(1 << 58) - 1):
        self.s = seed   # bit 0: most recent scrambled bit

    def __call__(self, p):
        out = 0
        for i in range(64):
            o = ((p >> i) & 1) ^ ((self.s >> 38) & 1) ^ ((self.s >> 57) & 1)
            self.s = ((self.s << 1) | o) & ((1 << 58) - 1)
            out |= o << i
        return out


class Descrambler:
    def __init__(self):
        self.s = 0

    def __call__(self, p):
        out = 0
        for i in range(64):
            x = (p >> i) & 1
            out |= (x ^ ((self.s >> 38) & 1) ^ ((self.s >> 57) & 1)) << i
            self.s = ((self.s << 1) | x) & ((1 << 58) - 1)
        return out


def self_check():
    """Round trips over every format with random content, plus the scrambler pair."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
    import beryl_seed
    rng = beryl_seed.rng(1, "baser_ref self_check")
    for btype, (roles, _) in FORMATS.items():
        for _ in range(50):
            d = c = 0
            for i, r in enumerate(roles):
                byte = {"D": rng.getrandbits(8), "C": rng.choice(list(CODE_OF)), "O": rng.choice(list(O_CODE_OF)),
                        "S": START, "T": TERM}[r]
                d |= byte << (8 * i)
                c |= (r != "D") << i
            h, p = encode(d, c)
            assert h == SYNC_CTRL and p & 0xff == btype
            assert decode(h, p) == (d, c)
    s, ds = Scrambler(rng.getrandbits(58)), Descrambler()
    words = [rng.getrandbits(64) for _ in range(20)]
    out = [ds(s(w)) for w in words]
    assert out[1:] == words[1:]


self_check()


# ------------------------------------------------------------------------------------------------
# Sequence checks (figures 49-14 and 49-15) as rtl/eth documents them: between frames only C or S
# blocks are legal, inside a frame only D or T; an illegal block, an all-control word holding an /E/ or
# an unencodable word is sent as the error block. After an error any block is accepted again (E: C -> C, S/D -> in
# frame, T -> between frames). The receive side has no look-ahead past a /T/ block.
# ------------------------------------------------------------------------------------------------
S_TYPES = {0x78, 0x33, 0x66}
T_TYPES = {0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff}


def word_type(d, c):
    """T_TYPE / R_TYPE of an XGMII word: 'C', 'S', 'D', 'T' or 'E'."""
    if c == 0:
        return "D"
    b, k = lanes(d, c)
    # only the all-control type excludes /E/ (an all-control word with an /E/ is an error block); /E/
    # among the control characters of a T, S or ordered-set block is ordinary control content
    h, p = encode(d, c)
    if (h, p) == E_BLOCK or (p & 0xff == 0x1e and any(bb == ERROR for bb in b)):
        return "E"
    t = p & 0xff
    return "S" if t in S_TYPES else ("T" if t in T_TYPES else "C")


class SeqCheck:
    """Returns True when a word of the given type must be replaced by /E/."""

    def __init__(self):
        self.st = "C"

    def __call__(self, t):
        if t == "E":
            self.st = "E"
            return True
        bad = (self.st == "C" and t in "DT") or (self.st == "D" and t in "CS")
        self.st = "E" if bad else ("D" if t in "SD" else "C")
        return bad
