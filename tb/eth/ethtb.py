# SPDX-License-Identifier: MIT
"""Shared helpers for the Ethernet benches: scapy frames, the statistics record layout and
the counter map (mirrors beryl_eth_pkg), RMON buckets, and frame-length sweeps."""
import os
import random
import sys
import struct
import zlib
from pathlib import Path

from scapy.layers.l2 import Ether
from scapy.packet import Raw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))

# beryl_eth_pkg::mac_stat_t, MSB first
STAT_FIELDS = ["valid", "good", "bad_fcs", "runt", "oversize", "err_ctrl", "underflow", "pause",
               "bcast", "mcast"]
STAT_LEN_W = 14

# beryl_eth_pkg STAT_* counter indices
CNT = {name: i for i, name in enumerate([
    "frames_good", "frames_bad", "bytes_good", "bytes_all", "bad_fcs", "runt", "oversize",
    "err_ctrl", "underflow", "pause", "bcast", "mcast",
    "len_64", "len_65", "len_128", "len_256", "len_512", "len_1024", "len_1519"])}

BUCKETS = [("len_64", 64, 64), ("len_65", 65, 127), ("len_128", 128, 255), ("len_256", 256, 511),
           ("len_512", 512, 1023), ("len_1024", 1024, 1518), ("len_1519", 1519, 1 << 30)]


def decode_stat(v):
    """Split a mac_stat_t value into a dict."""
    v = int(v)
    rec = {"len": v & ((1 << STAT_LEN_W) - 1)}
    for i, name in enumerate(reversed(STAT_FIELDS)):
        rec[name] = (v >> (STAT_LEN_W + i)) & 1
    return rec


def bucket_of(wire_len):
    for name, lo, hi in BUCKETS:
        if lo <= wire_len <= hi:
            return name
    return None


def fcs(data):
    return struct.pack("<I", zlib.crc32(bytes(data)))


def make_frame(length, rng, dst="02:00:00:00:00:02", ethertype=0x88b5):
    """A scapy Ethernet frame of exactly `length` bytes (DA through payload, no FCS)."""
    hdr = Ether(dst=dst, src="02:00:00:00:00:01", type=ethertype)
    pay = bytes(rng.getrandbits(8) for _ in range(max(0, length - 14)))
    return bytes(hdr / Raw(pay))[:length]


def sweep_lengths(rng, lo=60, hi=1514, sample=24):
    """Every length lo..hi under BERYL_LONG=1, else the edges, one length per lane residue and a
    random sample."""
    if LONG:
        return list(range(lo, hi + 1))
    edge = list(range(lo, min(lo + 17, hi + 1))) + list(range(max(lo, hi - 8), hi + 1))
    return sorted(set(edge + rng.sample(range(lo, hi + 1), sample)))


def expected_counters(records):
    """Counters beryl_eth_mac_stats should hold after `records` (list of dicts as decode_stat)."""
    c = {k: 0 for k in CNT}
    for r in records:
        c["frames_good" if r["good"] else "frames_bad"] += 1
        c["bytes_all"] += r["len"]
        if r["good"]:
            c["bytes_good"] += r["len"]
        for k in ("bad_fcs", "runt", "oversize", "err_ctrl", "underflow", "pause", "bcast", "mcast"):
            c[k] += r.get(k, 0)
        if not r.get("runt") and not r.get("oversize") and r["len"] >= 64:
            c[bucket_of(r["len"])] += 1
    return c


def seeded(name):
    """random.Random for test `name`: its own fixed seed, or one made from BERYL_SEED (tb/common/beryl_seed.py)."""
    return beryl_seed.rng(zlib.crc32(name.encode()) & 0x3FFFFFFF, name)


IDLE_W = (0x0707070707070707, 0xff)
ERROR_W = (0xfefefefefefefefe, 0xff)
LF_W = (0x0100009c0100009c, 0x11)   # local fault ordered set in both columns (clause 46.3.4)


def xgmii_words(rng, nframes, corrupt=0.0, max_len=200):
    """A legal XGMII word stream (frames starting in lane 0 or 4, /T/ in any lane, idle gaps of
    5..20, sequence ordered sets in lanes 0/4 between frames), then with probability `corrupt` per
    word one word replaced by something illegal (data between frames, idle inside a frame, a random
    control word, /E/ in one lane). Returns a list of (d, c)."""
    lane = [(0x07, 1)] * 12
    for _ in range(nframes):
        while len(lane) % 4:
            lane.append((0x07, 1))
        if rng.random() < 0.2:
            lane += [(0x9c, 1), (0x00, 0), (0x00, 0), (rng.choice([1, 2]), 0)]
        lane += [(0xfb, 1)] + [(0x55, 0)] * 6 + [(0xd5, 0)]
        lane += [(rng.getrandbits(8), 0) for _ in range(rng.randint(1, max_len))]
        lane += [(0xfd, 1)] + [(0x07, 1)] * rng.randint(5, 20)
    while len(lane) % 8:
        lane.append((0x07, 1))
    words = []
    for i in range(0, len(lane), 8):
        d = sum(b << (8 * k) for k, (b, _) in enumerate(lane[i:i + 8]))
        c = sum(f << k for k, (_, f) in enumerate(lane[i:i + 8]))
        words.append((d, c))
    for i in range(len(words)):
        if rng.random() < corrupt:
            kind = rng.randrange(4)
            if kind == 0:
                words[i] = (rng.getrandbits(64), 0)
            elif kind == 1:
                words[i] = IDLE_W
            elif kind == 2:
                words[i] = (rng.getrandbits(64), rng.getrandbits(8))
            else:
                k = rng.randrange(8)
                d, c = words[i]
                words[i] = ((d & ~(0xff << 8 * k)) | (0xfe << 8 * k), c | (1 << k))
    return words


def t_word(k, data=0x1716151413121110):
    """A word ending a frame with /T/ in lane k: data bytes in lanes 0..k-1, idle after."""
    d = (data & ((1 << 8 * k) - 1)) | (0xfd << 8 * k)
    d |= sum(0x07 << 8 * i for i in range(k + 1, 8))
    return d, (0xff << k) & 0xff


def xgmii_tour():
    """A legal word stream with every block format of clause 49 (figure 49-7): ordered sets in every
    position, frames started in lanes 0 and 4, /T/ in each of the 8 lanes. xgmii_words reaches the
    rarer formats only by chance (a few seeds in a thousand miss one); a bench that asserts every
    format was seen puts these in front. Starts after idle and ends in idle."""
    s0 = (0xd5555555_555555fb, 0x01)
    s4 = (0x555555fb_07070707, 0x1f)                  # C0-C3 S4
    words = [(0x0100009c_07070707, 0x1f),             # C0-C3 O4
             (0x0100009c_0100009c, 0x11),             # O0 O4
             (0x07070707_0200005c, 0xf1),             # O0 C4
             (0x555555fb_0100009c, 0x11),             # O0 S4
             (0x11223344_55667788, 0), (0x070707fd_00000000, 0xf0), IDLE_W]
    for k in range(8):
        words += [s4, (0x0b0a0908_d5555555, 0)] if k % 2 else [s0]
        words += [(0x0123456789abcdef, 0), t_word(k), IDLE_W]
    return words


def xgmii_illegal_words():
    """One of each illegal sequence a clause 49 PCS replaces by /E/ (figures 49-14 and 49-15), each
    placed so that exactly one word is in error: data between frames, /E/ in an all-control word,
    idle inside a frame, an ordered set inside a frame, /S/ outside lanes 0 and 4. Starts after idle
    and ends in idle; returns (words, number of words in error)."""
    s0, d = (0xd5555555_555555fb, 0x01), (0x2726252423222120, 0)
    words = [(0x0102030405060708, 0), IDLE_W,          # data between frames
             (0x070707fe_07070707, 0xff), IDLE_W,      # /E/ among idles
             s0, d, IDLE_W, IDLE_W,                    # idle inside a frame (then idle: legal again)
             s0, d, (0x0100009c_0100009c, 0x11), d, t_word(3), IDLE_W,   # ordered set inside a frame
             (0x07070707_07fb0707, 0xff), IDLE_W]      # /S/ in lane 2: no block format
    return words, 5


# ---- 100G: 512-bit CGMII-like words (64 lanes, 8-byte columns) -----------------------------------

CG_IDLE, CG_START, CG_TERM, CG_ERROR = 0x07, 0xfb, 0xfd, 0xfe
PREAMBLE = b"\x55" * 7 + b"\xd5"


_IDLE512 = int.from_bytes(bytes([CG_IDLE]) * 64, "little")


class CgmiiParser:
    """Receiver model for beryl's 512-bit CGMII-like word stream, written from the rules in
    docs/blocks/eth.md (100G section), independent of the RTL. Feed it (txd, txc) words in wire order;
    it returns frames as dicts: start / end byte positions on the wire (end = the /T/ or first other
    control character), `pre` (8 bytes after /S/ incl. SFD), `data` (bytes after the SFD up to the
    end), `kind` "T" (normal end) or "E" (a control character other than /T/ inside the frame).
    Protocol violations (a /S/ off an 8-byte column, data bytes or non-idle control characters between
    frames, a control character in the preamble) go to `errors`."""

    def __init__(self):
        self.pos = 0            # byte position on the wire of the next lane
        self.frame = None
        self.frames = []
        self.errors = []
        self.after_err = False  # after a frame cut by /E/: further /E/ and a /T/ belong to it

    def feed(self, txd, txc):
        txd, txc = int(txd), int(txc)
        if self.frame is not None and txc == 0 and self.frame["pre_left"] == 0:
            self.frame["data"] += txd.to_bytes(64, "little")     # a whole data word, fast path
            self.pos += 64
            return
        if self.frame is None and txc == (1 << 64) - 1 and txd == _IDLE512:
            self.pos += 64
            self.after_err = False
            return
        b = txd.to_bytes(64, "little")
        for lane in range(64):
            self._byte(b[lane], (txc >> lane) & 1)
            self.pos += 1

    def _byte(self, b, c):
        f = self.frame
        if f is None:
            if c and b == CG_START:
                if self.pos % 8:
                    self.errors.append(f"/S/ at byte {self.pos}, not on an 8-byte column")
                self.frame = {"start": self.pos, "pre": bytes([b]), "data": bytearray(), "pre_left": 7}
            elif c and b == CG_IDLE:
                self.after_err = False
            elif not (c and self.after_err and b in (CG_ERROR, CG_TERM)):
                self.errors.append(f"byte {self.pos}: {'ctrl' if c else 'data'} 0x{b:02x} between frames")
            return
        if f["pre_left"]:
            if c:
                self.errors.append(f"byte {self.pos}: control 0x{b:02x} in the preamble")
            f["pre"] += bytes([b])
            f["pre_left"] -= 1
            return
        if c:
            f["end"] = self.pos
            f["kind"] = "T" if b == CG_TERM else "E"
            f["data"] = bytes(f["data"])
            del f["pre_left"]
            self.frames.append(f)
            self.frame = None
            self.after_err = f["kind"] == "E"
            if b not in (CG_TERM, CG_ERROR):
                self.errors.append(f"byte {self.pos}: control 0x{b:02x} ends a frame")
        else:
            f["data"].append(b)


def cgmii_check_frame(f, data):
    """Assert a parsed good frame carries `data` (no FCS) padded to 60 bytes with the zlib FCS."""
    want = bytes(data).ljust(60, b"\0")
    assert f["kind"] == "T", f"frame at {f['start']} ended with a control character, not /T/"
    assert f["pre"] == bytes([CG_START]) + PREAMBLE[1:], f"preamble/SFD {f['pre'].hex()}"
    assert f["data"][:-4] == want, f"payload mismatch, len {len(data)} got {len(f['data']) - 4}"
    assert f["data"][-4:] == fcs(want), f"FCS mismatch, len {len(data)}"


def cgmii_words(frames, rng=None, gap="min", out_rate=False):
    """A 512-bit CGMII-like word stream for a receiver under test, written from the format rules in
    docs/blocks/eth.md (100G section). `frames`: list of (wire bytes DA..FCS, e_at) with e_at None or the
    index of a data byte replaced by /E/ (the frame still ends with /T/). Each /S/ opens an 8-byte column.
    gap "min": the next /S/ is 12 bytes after /T/ (the /T/ counted) moved to a column boundary with a
    deficit idle count of at most 7 (IFG 5..19, average 12, i.e. line rate); "random": 12..~76 bytes,
    rounded up. out_rate: also keep each frame's /S/-to-/S/ slot >= 64 bytes per output beat of a
    one-frame-per-beat receiver (ceil((L - 4) / 64)), the bound under which no frame need be dropped.
    Returns (words as (rxd, rxc) ints, meta per frame: dict start/end byte, start_word, end_word)."""
    data = bytearray([CG_IDLE]) * 16
    ctrl = bytearray([1]) * 16
    meta = []
    deficit = 0
    prev_start = None
    for wire, e_at in frames:
        start = len(data)
        if prev_start is not None and out_rate:
            need = prev_start + 64 * max(1, -(-(meta[-1]["len"] - 4) // 64))
            if start < need:
                start = -(-need // 8) * 8
        data += bytes([CG_IDLE]) * (start - len(data))
        ctrl += bytes([1]) * (start - len(ctrl))
        data += bytes([CG_START]) + PREAMBLE[1:]
        ctrl += b"\x01" + b"\x00" * 7
        body = bytearray(wire)
        bctl = bytearray(len(body))
        if e_at is not None:
            body[e_at] = CG_ERROR
            bctl[e_at] = 1
        data += body
        ctrl += bctl
        end = len(data) if e_at is None else start + 8 + e_at
        meta.append({"start": start, "end": end, "start_word": start // 64, "end_word": end // 64,
                     "len": len(wire)})
        prev_start = start
        tpos = len(data)
        data.append(CG_TERM)
        ctrl.append(1)
        nxt = tpos + 12
        if gap == "random":
            nxt += rng.randrange(0, 64) if rng.random() < 0.5 else 0
            nxt = -(-nxt // 8) * 8
        else:
            r = nxt % 8
            if r and deficit + r <= 7:
                nxt -= r
                deficit += r
            elif r:
                nxt += 8 - r
                deficit = max(0, deficit - (8 - r))
        data += bytes([CG_IDLE]) * (nxt - len(data))
        ctrl += bytes([1]) * (nxt - len(ctrl))
    pad = (-len(data)) % 64 + 128
    data += bytes([CG_IDLE]) * pad
    ctrl += bytes([1]) * pad
    words = []
    for i in range(0, len(data), 64):
        c = 0
        for k, f in enumerate(ctrl[i:i + 64]):
            if f:
                c |= 1 << k
        words.append((int.from_bytes(data[i:i + 64], "little"), c))
    return words, meta
