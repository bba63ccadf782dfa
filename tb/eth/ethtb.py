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
