# SPDX-License-Identifier: MIT
"""beryl_nic_rss_toeplitz: Microsoft's RSS verification vectors (IPv4 and IPv6, with and without
TCP; the UDP types hash the same bytes) must match exactly; then random keys, random tuples of every
L3/L4 class and random hash-enable masks against the Python reference in ../rss_ref.py, which is
itself first checked against the same vectors. No stalls, random idle, random backpressure, both."""
import ipaddress
import os
import random
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import rss_ref  # noqa: E402
from rss_ref import MS_KEY, MS_V4, MS_V6, toeplitz  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
L3_IPV4, L3_IPV6 = 1, 2
L4_TCP, L4_UDP = 1, 2
NONE, IPV4, IPV4_TCP, IPV4_UDP, IPV6, IPV6_TCP, IPV6_UDP = range(7)
ALL_EN = 0x3F


def expect(t, key, en):
    """(hash, type) per the RSS rules: 4-tuple if enabled for this L4, else IP-only if enabled."""
    l3, l4, src, dst, sp, dp = t
    if l3 not in (L3_IPV4, L3_IPV6):
        return 0, NONE
    base = 0 if l3 == L3_IPV4 else 3
    ip_only, tcp, udp = base + 1, base + 2, base + 3
    if l4 == L4_TCP and en >> (base + 1) & 1:
        typ = tcp
    elif l4 == L4_UDP and en >> (base + 2) & 1:
        typ = udp
    elif en >> base & 1:
        typ = ip_only
    else:
        return 0, NONE
    n = 4 if l3 == L3_IPV4 else 16
    data = src.to_bytes(n, "big") + dst.to_bytes(n, "big")
    if typ != ip_only:
        data += sp.to_bytes(2, "big") + dp.to_bytes(2, "big")
    return toeplitz(key, data), typ


class TB:
    def __init__(self, dut, idle=0.0, bp=0.0, seed=1):
        self.dut, self.idle, self.bp = dut, idle, bp
        self.rng = random.Random(seed)
        dut.key_wr_en.value = 0
        dut.key_wr_addr.value = 0
        dut.key_wr_data.value = 0
        dut.hash_en.value = ALL_EN
        dut.tup_valid.value = 0
        dut.hash_ready.value = 0

    async def reset(self):
        d = self.dut
        Clock(d.clk, 4, unit="ns").start()
        d.rst.value = 1
        await ClockCycles(d.clk, 3)
        d.rst.value = 0

    async def write_key(self, key):
        d = self.dut
        for i in range(10):
            await FallingEdge(d.clk)
            d.key_wr_en.value = 1
            d.key_wr_addr.value = i
            d.key_wr_data.value = int.from_bytes(key[4 * i:4 * i + 4], "little")
        await FallingEdge(d.clk)
        d.key_wr_en.value = 0

    async def run(self, tuples):
        """Send every tuple, return the (hash, type) outputs in order."""
        d = self.dut
        out, i, driving, cycles = [], 0, False, 0
        while len(out) < len(tuples):
            await FallingEdge(d.clk)
            cycles += 1
            assert cycles < 20 * len(tuples) + 100, "timeout"
            if not driving and i < len(tuples) and self.rng.random() >= self.idle:
                l3, l4, src, dst, sp, dp = tuples[i]
                d.tup_l3.value, d.tup_l4.value = l3, l4
                d.tup_ip_src.value, d.tup_ip_dst.value = src, dst
                d.tup_sport.value, d.tup_dport.value = sp, dp
                driving = True
            d.tup_valid.value = int(driving)
            d.hash_ready.value = int(self.rng.random() >= self.bp)
            await ReadOnly()
            if driving and d.tup_ready.value == 1:
                driving, i = False, i + 1
            if d.hash_valid.value == 1 and d.hash_ready.value == 1:
                out.append((int(d.hash.value), int(d.hash_type.value)))
        self.cycles = cycles
        await FallingEdge(d.clk)   # leave the ReadOnly phase
        d.tup_valid.value = 0
        return out


def ms_tuples():
    """Each published vector as TCP, UDP and ICMP (IP-only) tuples, with the published hash."""
    ts, exp = [], []
    for vecs, l3, base in ((MS_V4, L3_IPV4, IPV4), (MS_V6, L3_IPV6, IPV6)):
        for dst, dport, src, sport, h_ip, h_tcp in vecs:
            s, t = int(ipaddress.ip_address(src)), int(ipaddress.ip_address(dst))
            ts += [(l3, L4_TCP, s, t, sport, dport), (l3, L4_UDP, s, t, sport, dport), (l3, 0, s, t, 0, 0)]
            exp += [(h_tcp, base + 1), (h_tcp, base + 2), (h_ip, base)]
    return ts, exp


def random_tuple(rng):
    l3 = rng.choice([0, L3_IPV4, L3_IPV4, L3_IPV6, L3_IPV6, 3])
    l4 = rng.choice([0, L4_TCP, L4_UDP]) if l3 in (L3_IPV4, L3_IPV6) else 0
    bits = 32 if l3 == L3_IPV4 else 128
    src, dst = rng.getrandbits(bits), rng.getrandbits(bits)
    sp, dp = (rng.getrandbits(16), rng.getrandbits(16)) if l4 else (0, 0)
    return (l3, l4, src, dst, sp, dp)


@cocotb.test()
async def test_microsoft_vectors(dut):
    rss_ref.test_reference()
    for mode, (idle, bp) in enumerate([(0, 0), (0.4, 0), (0, 0.4), (0.4, 0.4)]):
        tb = TB(dut, idle, bp, seed=beryl_seed.seed(mode, f"test_microsoft_vectors {mode}"))
        if mode == 0:
            await tb.reset()
        await tb.write_key(MS_KEY)
        ts, exp = ms_tuples()
        got = await tb.run(ts)
        for t, g, e in zip(ts, got, exp):
            assert g == e, f"tuple {t}: got {g[0]:08x}/{g[1]}, published {e[0]:08x}/{e[1]}"
        if mode == 0:
            assert tb.cycles <= len(ts) + 4, "not one tuple per cycle"


@cocotb.test()
async def test_random_keys_and_tuples(dut):
    n = 3000 if LONG else 300
    first = True
    for mode, (idle, bp) in enumerate([(0, 0), (0.4, 0), (0, 0.4), (0.4, 0.4)]):
        rng = beryl_seed.rng(100 + mode, f"test_random_keys_and_tuples {mode}")
        tb = TB(dut, idle, bp, seed=beryl_seed.seed(mode + 10, f"test_random_keys_and_tuples {mode} stalls"))
        if first:
            await tb.reset()
            first = False
        for _ in range(2):
            key = rng.randbytes(40)
            en = rng.choice([ALL_EN, rng.getrandbits(6)])
            await tb.write_key(key)
            dut.hash_en.value = en
            ts = [random_tuple(rng) for _ in range(n // 2)]
            got = await tb.run(ts)
            for t, g in zip(ts, got):
                assert g == expect(t, key, en), f"key {key.hex()} en {en:02x} tuple {t}: got {g}"


def test_beryl_nic_rss_toeplitz():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_rss_toeplitz", "rtl/nic/beryl_nic_rss_toeplitz.f", "test_beryl_nic_rss_toeplitz",
                  Path(__file__).parent)
