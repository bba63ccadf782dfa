# SPDX-License-Identifier: MIT
"""beryl_nic_rx_parse: scapy-built frames of every kind (0, 1 or 2 VLAN tags of 0x8100/0x88a8 and a
triple-tagged one; IPv4 with 0..40 option bytes, IPv4 fragments, IPv6, IPv6 with an extension
header, ARP and other EtherTypes; TCP, UDP, ICMP; 60 bytes to 9014-byte jumbos) pass through
unchanged, and each metadata record equals what scapy's own dissector finds in the same bytes; frames
cut short at 1..130 bytes give the record of what lies inside them.
Each test runs with no stalls, random source idle, random backpressure (stream and metadata) and
both."""
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrHopByHop, IPv6ExtHdrFragment
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.layers.inet import IPOption_NOP
from scapy.packet import Raw

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from nictb import MODES, PassBench  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))


def decode(v):
    """Unpack beryl_nic_pkg::rx_meta_t (first field in the top bits)."""
    f = {}
    for name, w in reversed([("vlan_cnt", 2), ("l3", 2), ("l4", 2), ("l3_off", 8), ("l4_off", 8),
                             ("ip_src", 128), ("ip_dst", 128), ("sport", 16), ("dport", 16)]):
        f[name] = v & ((1 << w) - 1)
        v >>= w
    return f


def expect(raw):
    """The record scapy's dissector implies for `raw` (L3/L4 codes of beryl_nic_pkg)."""
    e = dict(vlan_cnt=0, l3=0, l4=0, l3_off=0, l4_off=0, ip_src=0, ip_dst=0, sport=0, dport=0)
    p = Ether(raw)
    layer, tags = p.payload, 0
    while isinstance(layer, (Dot1Q, Dot1AD)):
        tags += 1
        layer = layer.payload
    e["vlan_cnt"] = min(tags, 2)
    if tags > 2:
        return e
    off = len(raw) - len(bytes(layer))
    if isinstance(layer, IP):
        e.update(l3=1, l3_off=off, l4_off=off + layer.ihl * 4,
                 ip_src=int.from_bytes(bytes(map(int, layer.src.split("."))), "big"),
                 ip_dst=int.from_bytes(bytes(map(int, layer.dst.split("."))), "big"))
        frag = layer.flags.MF or layer.frag != 0
        l4 = layer.payload
    elif isinstance(layer, IPv6):
        import ipaddress
        e.update(l3=2, l3_off=off, l4_off=off + 40,
                 ip_src=int(ipaddress.IPv6Address(layer.src)), ip_dst=int(ipaddress.IPv6Address(layer.dst)))
        frag = False
        l4 = layer.payload
    else:
        return e
    if not frag and isinstance(l4, (TCP, UDP)):
        assert len(raw) - len(bytes(l4)) == e["l4_off"]
        e.update(l4=1 if isinstance(l4, TCP) else 2, sport=l4.sport, dport=l4.dport)
    return e


def expect_cut(raw):
    """The record for a frame cut short (a runt, not padded): the parser reads bytes past the end as
    zero, and reports an IP header only when it lies wholly inside the frame and ports only when
    their 4 bytes do (the fields of a layer it does not report are 0)."""
    e = expect(raw + bytes(160))
    n = len(raw)
    if e["l3"] and n < e["l4_off"]:
        e.update(l3=0, l3_off=0, l4_off=0, ip_src=0, ip_dst=0)
    if e["l4"] and (not e["l3"] or n < e["l4_off"] + 4):
        e.update(l4=0, sport=0, dport=0)
    return e


def random_frame(rng):
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    tags = rng.choice([0, 0, 1, 1, 2, 2, 3])
    stack = eth
    for i in range(tags):
        if i == 0 and tags >= 2 and rng.random() < 0.5:
            stack = stack / Dot1AD(vlan=rng.randrange(4096))
        else:
            stack = stack / Dot1Q(vlan=rng.randrange(4096), prio=rng.randrange(8))
    kind = rng.choice(["ip4", "ip4", "ip4opt", "ip4frag", "ip6", "ip6", "ip6ext", "arp", "other"])
    sport, dport = rng.randrange(65536), rng.randrange(65536)
    l4 = rng.choice([TCP(sport=sport, dport=dport), UDP(sport=sport, dport=dport), ICMP()])
    plen = rng.choice([0, 1, rng.randrange(0, 64), rng.randrange(0, 1500)])
    if rng.random() < 0.01:
        plen = 8950
    pay = Raw(rng.randbytes(plen))
    a4 = lambda: ".".join(str(rng.randrange(256)) for _ in range(4))  # noqa: E731
    a6 = lambda: ":".join(f"{rng.randrange(65536):x}" for _ in range(8))  # noqa: E731
    if kind == "ip4":
        pkt = stack / IP(src=a4(), dst=a4()) / l4 / pay
    elif kind == "ip4opt":
        pkt = stack / IP(src=a4(), dst=a4(), options=[IPOption_NOP()] * rng.randint(1, 40)) / l4 / pay
    elif kind == "ip4frag":
        if rng.random() < 0.5:
            ip = IP(src=a4(), dst=a4(), flags="MF")
        else:
            ip = IP(src=a4(), dst=a4(), frag=rng.randint(1, 8000), proto=6)
        pkt = stack / ip / l4 / pay
    elif kind == "ip6":
        pkt = stack / IPv6(src=a6(), dst=a6()) / l4 / pay
    elif kind == "ip6ext":
        ext = rng.choice([IPv6ExtHdrHopByHop(), IPv6ExtHdrFragment()])
        pkt = stack / IPv6(src=a6(), dst=a6()) / ext / l4 / pay
    elif kind == "arp":
        pkt = stack / ARP()
    else:
        pkt = stack / Raw(rng.randbytes(max(plen, 50)))
        if tags == 0:
            pkt[Ether].type = rng.choice([0x88f7, 0x8847, 0x0801])
    raw = bytes(pkt)
    if len(raw) < 60:
        raw += bytes(60 - len(raw))
    return raw


async def run_mode(dut, mode, n, seed):
    idle, bp = MODES[mode]
    tb = PassBench(dut, "meta", idle=idle, bp=bp, seed=seed)
    await tb.reset()
    rng = random.Random(seed)
    frames = [random_frame(rng) for _ in range(n)]
    for f in frames:
        tb.send(f)
    await tb.run_until_done(n)
    assert tb.rx_frames == frames, "frames not passed through unchanged"
    kinds = set()
    for i, (f, m) in enumerate(zip(frames, tb.side_out)):
        got, exp = decode(m), expect(f)
        assert got == exp, f"frame {i} ({Ether(f).summary()}): got {got}, expected {exp}"
        kinds.add((exp["vlan_cnt"], exp["l3"], exp["l4"]))
    dut._log.info("%s: %d frames, %d cycles, %d (vlan,l3,l4) kinds", mode, n, tb.cycles, len(kinds))
    return tb


N = 2000 if LONG else 400


@cocotb.test()
async def test_plain(dut):
    await run_mode(dut, "plain", N, beryl_seed.seed(1, "test_plain"))


@cocotb.test()
async def test_idle(dut):
    await run_mode(dut, "idle", N, beryl_seed.seed(2, "test_idle"))


@cocotb.test()
async def test_backpressure(dut):
    await run_mode(dut, "bp", N, beryl_seed.seed(3, "test_backpressure"))


@cocotb.test()
async def test_both(dut):
    await run_mode(dut, "both", N, beryl_seed.seed(4, "test_both"))


@cocotb.test()
async def test_back_to_back_min_frames(dut):
    """60-byte frames, one beat each, no stalls: the parser takes one frame per clock."""
    seed = beryl_seed.seed(5, "test_back_to_back_min_frames")
    tb = PassBench(dut, "meta", seed=seed)
    await tb.reset()
    rng = random.Random(seed)
    frames = []
    for _ in range(64):
        f = bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=rng.randrange(65536), dport=53))
        frames.append(f + bytes(60 - len(f)))
    for f in frames:
        tb.send(f)
    await tb.run_until_done(len(frames))
    assert tb.rx_frames == frames
    assert [decode(m) for m in tb.side_out] == [expect(f) for f in frames]
    assert tb.cycles <= len(frames) + 4, f"{tb.cycles} cycles for {len(frames)} one-beat frames"


@cocotb.test()
async def test_cut_frames(dut):
    """Frames of every kind cut short at 1..130 bytes (not padded): the record follows what lies in
    the frame (bytes past its end read as zero; an IP header or ports only when wholly inside)."""
    seed = beryl_seed.seed(6, "test_cut_frames")
    rng = random.Random(seed)
    tb = PassBench(dut, "meta", idle=0.2, bp=0.2, seed=seed)
    await tb.reset()
    frames = []
    while len(frames) < (1200 if LONG else 300):
        raw = random_frame(rng)
        # cuts near the ends of the tags, the IP headers and the ports are the ones that matter
        cuts = [rng.randint(1, 130), rng.randint(12, 26), rng.randint(30, 66)]
        full = expect(raw)
        if full["l3"]:   # one byte short of, or just holding, the IP header or the ports
            cuts += [full["l4_off"] + rng.choice([-1, 0, 3, 4])] * 3
        frames.append(raw[:max(1, rng.choice(cuts))])
    for f in frames:
        tb.send(f)
    await tb.run_until_done(len(frames))
    assert tb.rx_frames == frames, "frames not passed through unchanged"
    for i, (f, m) in enumerate(zip(frames, tb.side_out)):
        got, exp = decode(m), expect_cut(f)
        assert got == exp, f"frame {i} ({len(f)} bytes, {f.hex()}): got {got}, expected {exp}"
    dut._log.info("cut frames: %d, %d bytes, %d with an IP header, %d with ports", len(frames),
                  sum(map(len, frames)), sum(1 for f in frames if expect_cut(f)["l3"]),
                  sum(1 for f in frames if expect_cut(f)["l4"]))


@cocotb.test()
async def test_gate_closed_mid_frame(dut):
    """Beats past a frame's header move no flop of the parser: over 1514-byte frames (24 beats) with
    no stalls its clock gate opens for the two header beats, the last beat, the parse and the record
    taken, not for every beat (a C++ model then skips the block; sim/README.md, "Clock gates")."""
    from cocotb.triggers import RisingEdge, ReadOnly
    seed = beryl_seed.seed(7, "test_gate_closed_mid_frame")
    tb = PassBench(dut, "meta", seed=seed)
    await tb.reset()
    frames = [bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(src="10.0.0.1", dst="10.0.0.2")
                    / UDP(sport=1000 + i, dport=53) / Raw(bytes(1472))) for i in range(8)]
    opened = [0]

    async def count():
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            opened[0] += int(dut.u_gate.gate_en_now.value)

    counter = cocotb.start_soon(count())
    for f in frames:
        tb.send(f)
    await tb.run_until_done(len(frames))
    counter.cancel()
    assert tb.rx_frames == frames
    assert [decode(m) for m in tb.side_out] == [expect(f) for f in frames]
    assert opened[0] <= 6 * len(frames), f"gate open in {opened[0]} cycles for {len(frames)} 24-beat frames"


def test_beryl_nic_rx_parse():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_nic_rx_parse", "rtl/nic/beryl_nic_rx_parse.f", "test_beryl_nic_rx_parse",
                  Path(__file__).parent)
