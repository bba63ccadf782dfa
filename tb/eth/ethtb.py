# SPDX-License-Identifier: MIT
"""Shared helpers for the Ethernet benches: scapy frames, the statistics record layout and
the counter map (mirrors beryl_eth_pkg), RMON buckets, and frame-length sweeps."""
import os
import random
import struct
import zlib

from scapy.layers.l2 import Ether
from scapy.packet import Raw

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
    seed = int(os.environ.get("BERYL_SEED", "0")) or random.randrange(1 << 30)
    print(f"{name}: BERYL_SEED={seed}")
    return random.Random(seed)


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
