# SPDX-License-Identifier: MIT
"""beryl_nic_csum: random frames (1..9216 bytes, random start offsets, odd and even, some next to a
beat boundary) pass through
unchanged and each reported sum equals Python's RFC 1071 ones'-complement sum of the bytes from the
start offset; scapy-built IPv4/IPv6 TCP/UDP frames with start = L4 offset give a sum that, added to
the pseudo-header sum, verifies scapy's own computed checksum (0xffff). No stalls, random idle,
random backpressure (stream and result), both."""
import os
import random
import sys
from pathlib import Path

import cocotb
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from inet_ref import ones_sum  # noqa: E402
from nictb import MODES, PassBench  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))




def add(a, b):
    s = a + b
    return (s & 0xFFFF) + (s >> 16)


def set_start(dut, start):
    dut.csum_start.value = start


async def run_frames(dut, mode, frames, seed):
    """frames: list of (bytes, start). Returns the reported sums."""
    idle, bp = MODES[mode]
    tb = PassBench(dut, "csum", idle=idle, bp=bp, seed=seed, first_hook=set_start)
    dut.csum_start.value = 0
    await tb.reset()
    for f, st in frames:
        tb.send(f, st)
    await tb.run_until_done(len(frames))
    assert tb.rx_frames == [f for f, _ in frames], "frames not passed through unchanged"
    return tb.side_out


def random_frames(rng, n):
    out = []
    for _ in range(n):
        ln = rng.choice([1, 2, 60, 63, 64, 65, 127, 128, rng.randint(1, 200), rng.randint(60, 1514)])
        if rng.random() < 0.01:
            ln = rng.choice([9014, 9216])
        f = rng.randbytes(ln)
        # starts on either side of a beat boundary: the beat holding the start has bytes zeroed
        # one by one, the beats after it are taken whole
        st = rng.choice([0, 14, 34, 54, rng.randint(0, ln + 10), 64 * rng.randint(1, 4) + rng.choice([-1, 0, 1])])
        out.append((f, st))
    return out


async def random_mode(dut, mode, seed):
    rng = random.Random(seed)
    frames = random_frames(rng, 1500 if LONG else 250)
    got = await run_frames(dut, mode, frames, seed)
    for i, ((f, st), g) in enumerate(zip(frames, got)):
        assert g == ones_sum(f[st:]), f"frame {i} len {len(f)} start {st}: {g:04x} != {ones_sum(f[st:]):04x}"


@cocotb.test()
async def test_random_plain(dut):
    await random_mode(dut, "plain", beryl_seed.seed(1, "test_random_plain"))


@cocotb.test()
async def test_random_idle(dut):
    await random_mode(dut, "idle", beryl_seed.seed(2, "test_random_idle"))


@cocotb.test()
async def test_random_backpressure(dut):
    await random_mode(dut, "bp", beryl_seed.seed(3, "test_random_backpressure"))


@cocotb.test()
async def test_random_both(dut):
    await random_mode(dut, "both", beryl_seed.seed(4, "test_random_both"))


@cocotb.test()
async def test_scapy_l4_checksums(dut):
    """Hardware sum from the L4 header + pseudo-header sum must verify scapy's TCP/UDP checksum."""
    seed = beryl_seed.seed(7, "test_scapy_l4_checksums")
    rng = random.Random(seed)
    pkts = []
    for _ in range(120):
        l4 = rng.choice([TCP, UDP])(sport=rng.randrange(65536), dport=rng.randrange(65536))
        pay = Raw(rng.randbytes(rng.choice([0, 1, 17, rng.randint(0, 1460)])))
        mac = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
        eth = Ether(**mac) / Dot1Q(vlan=5) if rng.random() < 0.3 else Ether(**mac)
        if rng.random() < 0.5:
            p = eth / IP(src=f"10.{rng.randrange(256)}.0.1", dst="192.168.1.2") / l4 / pay
        else:
            p = eth / IPv6(src=f"2001:db8::{rng.randrange(65536):x}", dst="fe80::1") / l4 / pay
        raw = bytes(p)
        p = Ether(raw)
        l4 = p[TCP] if TCP in p else p[UDP]
        off = len(raw) - len(bytes(l4))
        raw += bytes(max(0, 60 - len(raw)))   # zero padding adds nothing to the sum
        pkts.append((p, raw, off))
    got = await run_frames(dut, "both", [(r, o) for _, r, o in pkts], seed)
    for (p, raw, off), g in zip(pkts, got):
        l4 = p[TCP] if TCP in p else p[UDP]
        n = len(bytes(l4))
        proto = 6 if TCP in p else 17
        if IP in p:
            import socket
            ph = socket.inet_aton(p[IP].src) + socket.inet_aton(p[IP].dst) + bytes([0, proto]) + n.to_bytes(2, "big")
        else:
            import ipaddress
            ph = (ipaddress.ip_address(p[IPv6].src).packed + ipaddress.ip_address(p[IPv6].dst).packed
                  + n.to_bytes(4, "big") + bytes([0, 0, 0, proto]))
        assert add(g, ones_sum(ph)) == 0xFFFF, f"{p.summary()}: checksum {l4.chksum:04x} does not verify"


def test_beryl_nic_csum():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_csum", "rtl/nic/beryl_nic_csum.f", "test_beryl_nic_csum", Path(__file__).parent)
