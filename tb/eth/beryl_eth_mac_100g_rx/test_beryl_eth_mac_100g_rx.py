# SPDX-License-Identifier: MIT
"""beryl_eth_mac_100g_rx on its own. No third-party 100G model exists, so the wire side comes from
ethtb.cgmii_words (a generator written from the documented word format, not from the RTL); frames are
built with scapy and the FCS with zlib; the segmented output is read by segtb.SegParser (written from the
seg format rules in docs/blocks/eth.md), which also checks those rules (ena contiguous, one sop/eop, sop
right after eop, no empty word inside a frame).

The output has no ready (the wire cannot wait), so there is no sink backpressure to vary; the source
side varies the gaps: minimum (line rate with a deficit idle count: nothing may be dropped) and random.
Every delivered frame is compared with what was sent, in order, with its record and timestamp
(rx_ptp_ts of the wire word holding the SFD, and the SFD's column); frames missing from the output must be
exactly the ones counted by rx_drop_count or rx_short_count, and only frames too short to fill 4 segments
(< 53 bytes) may be dropped."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402
import segtb  # noqa: E402

PERIOD_PS = 5120   # 195.3125 MHz
MAX_FRAME_LEN = int(os.environ.get("PARAM_MAX_FRAME_LEN", "9216"))
PTP_TS_W = int(os.environ.get("PARAM_PTP_TS_W", "96"))
_IDLE = (int.from_bytes(bytes([ethtb.CG_IDLE]) * 64, "little"), (1 << 64) - 1)
TS0 = (0x1234_5678_9abc << 40) & ((1 << PTP_TS_W) - 1)


def ts_of(idx):
    """rx_ptp_ts driven with wire word number idx (a 96-bit time, ns.frac like, distinct per clock)."""
    return (TS0 + idx * 0x1_4000_0000_0000 + idx) & ((1 << PTP_TS_W) - 1)


class TB:
    """Drives one CGMII word and its timestamp per clock, reads the segmented output at falling edges."""

    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.words = []
        self.wpos = 0
        self.widx = 0           # number of the next word driven
        self.seg = segtb.SegParser()
        self.stats = []
        self.pauses = []
        dut.cgmii_rxd.value, dut.cgmii_rxc.value = _IDLE
        dut.rx_ptp_ts.value = ts_of(0)
        cocotb.start_soon(self._run())

    async def _run(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            ena = int(d.m_seg_ena.value)
            self.seg.now = self.widx
            if ena:
                self.seg.feed(int(d.m_seg_data.value), ena, int(d.m_seg_sop.value), int(d.m_seg_eop.value),
                              int(d.m_seg_mty.value), int(d.m_seg_err.value), ts=int(d.m_seg_ts.value),
                              col=int(d.m_seg_ts_col.value))
            else:
                self.seg.feed(0, 0, int(d.m_seg_sop.value), int(d.m_seg_eop.value), 0, int(d.m_seg_err.value))
            rec = ethtb.decode_stat(d.rx_stat.value)
            if rec["valid"]:
                self.stats.append(rec)
            if int(d.rx_pause_valid.value):
                self.pauses.append(int(d.rx_pause_quanta.value))
            if self.wpos < len(self.words):
                w = self.words[self.wpos]
                self.wpos += 1
            else:
                w = _IDLE
            d.cgmii_rxd.value, d.cgmii_rxc.value = w
            d.rx_ptp_ts.value = ts_of(self.widx)
            self.widx += 1

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def run(self, words):
        """Send `words`; returns the number of the wire word that carries words[0]."""
        await FallingEdge(self.dut.clk)
        await ClockCycles(self.dut.clk, 1, rising=False)   # let _run drive first at this falling edge
        base = self.widx
        self.words, self.wpos = words, 0
        while self.wpos < len(self.words):
            await ClockCycles(self.dut.clk, 32)
        await ClockCycles(self.dut.clk, 20)
        return base


def tight_words(frames, rng):
    """Like ethtb.cgmii_words but with gaps below the minimum: the next /S/ on the first column at least
    1..4 bytes after the /T/ (the /T/ counted), which no DIC transmitter produces. Returns (words, meta)."""
    data, ctrl, meta = bytearray([ethtb.CG_IDLE]) * 16, bytearray([1]) * 16, []
    for wire, _ in frames:
        start = len(data)
        data += bytes([ethtb.CG_START]) + ethtb.PREAMBLE[1:] + wire + bytes([ethtb.CG_TERM])
        ctrl += b"\x01" + bytes(7 + len(wire)) + b"\x01"
        meta.append({"start": start, "end": start + 8 + len(wire), "start_word": start // 64,
                     "end_word": (start + 8 + len(wire)) // 64, "len": len(wire)})
        nxt = -(-(len(data) - 1 + rng.randint(1, 4)) // 8) * 8
        data += bytes([ethtb.CG_IDLE]) * (nxt - len(data))
        ctrl += bytes([1]) * (nxt - len(ctrl))
    pad = (-len(data)) % 64 + 128
    data += bytes([ethtb.CG_IDLE]) * pad
    ctrl += bytes([1]) * pad
    words = [(int.from_bytes(data[i:i + 64], "little"),
              sum(f << k for k, f in enumerate(ctrl[i:i + 64]))) for i in range(0, len(data), 64)]
    return words, meta


def eff_len(wire, e_at):
    return len(wire) if e_at is None else e_at


def expect(wire, e_at):
    """(payload delivered or None = only a prefix checked, error flag, stat fields that must match)."""
    L = len(wire)
    if e_at is not None:
        return None, 1, {"good": 0, "err_ctrl": 1, "len": e_at}
    good_fcs = wire[-4:] == ethtb.fcs(wire[:-4])
    if L > MAX_FRAME_LEN:
        return None, 1, {"good": 0, "oversize": 1}
    runt = L < 64
    bad = runt or not good_fcs
    rec = {"good": int(not bad), "runt": int(runt), "bad_fcs": int(not good_fcs), "oversize": 0,
           "err_ctrl": 0, "len": L, "bcast": int(wire[:6] == b"\xff" * 6),
           "mcast": int(bool(wire[0] & 1) and wire[:6] != b"\xff" * 6)}
    return (wire[:-4] if L > 4 else wire[:1]), int(bad), rec


async def check_stream(tb, frames, gap, rng, bad_sfd=(), may_drop=53):
    """Send `frames` ((wire, e_at) pairs), then check delivery, order, flags, records, timestamps and
    counters. Only frames of fewer than `may_drop` bytes may be dropped (53: they fit in 3 segments).
    gap "tight": tight_words. bad_sfd: indices of frames whose SFD is replaced by 0xd4."""
    d = tb.dut
    drop0, short0 = int(d.rx_drop_count.value), int(d.rx_short_count.value)
    tb.seg.frames.clear()
    tb.stats.clear()
    if gap == "tight":
        words, meta = tight_words(frames, rng)
    else:
        words, meta = ethtb.cgmii_words(frames, rng, gap=gap)
    for i in bad_sfd:
        pos = meta[i]["start"] + 7
        w, c = words[pos // 64]
        words[pos // 64] = (w ^ (0x01 << (8 * (pos % 64))), c)
    base = await tb.run(words)
    drops = int(d.rx_drop_count.value) - drop0
    shorts = int(d.rx_short_count.value) - short0
    assert not tb.seg.errors, tb.seg.errors[:6]
    assert tb.seg.cur is None, "a frame is still open at the end"
    want = [(f, m, i in bad_sfd) for i, (f, m) in enumerate(zip(frames, meta)) if m["start_word"] != m["end_word"]]
    assert shorts == len(frames) - len(want), f"short frames counted {shorts}, want {len(frames) - len(want)}"
    got = list(zip(tb.seg.frames, tb.stats))
    assert len(tb.seg.frames) == len(tb.stats), "one statistics record per delivered frame"
    k = 0
    missing = 0
    lat = set()
    for (wire, e_at), m, sfd in want:
        payload, err, rec = expect(wire, e_at)
        if sfd:
            err = 1
            rec.update({"good": 0, "err_ctrl": 1})
        if k < len(got):
            g, grec = got[k]
            data = g["data"]
            if payload is not None:
                match = g["err"] == err and data == payload
            else:
                match = g["err"] == 1 and len(data) > 0 and wire.startswith(data)
            if match:
                for key, v in rec.items():
                    assert grec[key] == v, f"frame len {len(wire)} e_at {e_at}: record {key}={grec[key]}, want {v}"
                want_ts = ts_of(base + m["start_word"])
                want_col = (m["start"] % 64) // 8
                assert g["ts"] == want_ts and g["col"] == want_col, \
                    f"frame len {len(wire)}: ts {g['ts']:x} col {g['col']}, want {want_ts:x} col {want_col}"
                # clocks from the edge that registers the /S/ word, and from the one that registers the word
                # with the frame's end, to the edge that registers the sop / eop output word
                lat.add((g["sop_at"] - 1 - (base + m["start_word"]), g["eop_at"] - 1 - (base + m["end_word"])))
                k += 1
                continue
        if eff_len(wire, e_at) >= may_drop:
            info = ""
            if k < len(got):
                g = got[k][0]
                dpos = next((i for i, (a, b) in enumerate(zip(g["data"], wire)) if a != b), None)
                info = (f": got {len(g['data'])} bytes err {g['err']} col {g['col']}, first difference at {dpos}; "
                        f"sent start {m['start']} end {m['end']}; record {got[k][1]}")
            assert False, f"frame len {len(wire)} (e_at {e_at}) missing or wrong at output {k}{info}"
        missing += 1
    assert k == len(got), f"{len(got) - k} unexpected frames at the end"
    assert missing == drops, f"{missing} frames missing, rx_drop_count says {drops}"
    if lat:
        tb.dut._log.info("latency /S/ word -> sop word %s, end word -> eop word %s",
                         sorted({a for a, _ in lat}), sorted({b for _, b in lat}))
    return drops, len(got)


def dst_for(i):
    return ["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01"][i % 3]


def good(n, rng, i=0):
    data = ethtb.make_frame(n, rng, dst=dst_for(i))
    data = data.ljust(60, b"\0") if n >= 60 else data
    return data + ethtb.fcs(data), None


def line_rate_lengths(rng):
    """User lengths (frame = length + 4 bytes of FCS): every one 60..1514 (about 15 s of simulation)."""
    return list(range(60, 1515))


@cocotb.test()
async def test_line_rate(dut):
    """Line rate (minimum gaps with a deficit idle count) at every frame length 64..1518 and 9000 + FCS,
    runs of 3 frames of one length (8 under BERYL_LONG=1) and a shuffled mix: no frame dropped."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_line_rate")
    lengths = line_rate_lengths(rng)
    run = 8 if ethtb.LONG else 3
    frames = [good(n, rng, i) for i, n in enumerate(lengths) for _ in range(run)] + [good(9000, rng)] * 2
    drops, n = await check_stream(tb, frames, "min", rng)
    assert drops == 0
    order = lengths[:] + [9000]
    rng.shuffle(order)
    drops, n2 = await check_stream(tb, [good(n, rng, i) for i, n in enumerate(order)], "min", rng)
    assert drops == 0
    dut._log.info("line rate: %d + %d frames delivered, none dropped", n, n2)


@cocotb.test()
async def test_random_gaps(dut):
    """Random gaps, lengths 64..1518 sampled and 9000: every frame delivered."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_random_gaps")
    order = ethtb.sweep_lengths(rng, 60, 1514, sample=40) + [9000]
    rng.shuffle(order)
    drops, n = await check_stream(tb, [good(n, rng, i) for i, n in enumerate(order)], "random", rng)
    assert drops == 0


@cocotb.test()
async def test_runts_line_rate(dut):
    """Runts (1..63 bytes with FCS) mixed with good frames at line rate and with random gaps: flagged;
    frames within one wire word counted as short; only runts that would share an output word's end
    with the frame before may be dropped, each one counted."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_runts_line_rate")
    for gap in ("min", "random"):
        frames = []
        for i in range(600 if ethtb.LONG else 120):
            frames.append(good(rng.randint(1, 59), rng, i))
            if rng.random() < 0.5:
                frames.append(good(rng.randint(60, 300), rng, i))
        drops, n = await check_stream(tb, frames, gap, rng)
        dut._log.info("runts, gap %s: %d delivered, %d dropped", gap, n, drops)


@cocotb.test()
async def test_bad_frames(dut):
    """Bad FCS, runts, oversize, /E/ at a random byte: flagged and counted, each followed by a good frame
    that must be intact; minimum and random gaps."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_bad_frames")
    frames = []
    for i in range(40):     # counts below assume 40
        kind = i % 4
        n = rng.randint(60, 600)
        wire, _ = good(n, rng, i)
        if kind == 0:
            wire = wire[:-1] + bytes([wire[-1] ^ 0x10])
            frames.append((wire, None))
        elif kind == 1:
            frames.append(good(rng.randint(1, 59), rng, i))
        elif kind == 2:
            frames.append((wire, rng.randrange(0, len(wire))))
        else:
            frames.append(good(MAX_FRAME_LEN + rng.randint(1, 300) - 4, rng, i))
        frames.append(good(rng.randint(60, 1514), rng, i))
    for gap in ("random", "min"):
        drops, n = await check_stream(tb, frames, gap, rng)
        dut._log.info("bad frames, gap %s: %d delivered, %d dropped", gap, n, drops)
        recs = tb.stats
        assert sum(r["oversize"] for r in recs) == 10
        assert sum(r["bad_fcs"] and not r["runt"] and not r["err_ctrl"] for r in recs) >= 10


@cocotb.test()
async def test_pause(dut):
    """A PAUSE frame (type 0x8808, opcode 1) is recognised and its quanta reported, at every SFD column."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_pause")
    frames = []
    for i in range(16):
        q = rng.getrandbits(16)
        pay = bytes.fromhex("0180c2000001" "020000000001" "8808" "0001") + q.to_bytes(2, "big") + bytes(42)
        frames += [(pay + ethtb.fcs(pay), None), good(60 + 8 * i + rng.randrange(8), rng)]
        tb.pauses.clear()
    qs = [int.from_bytes(f[0][16:18], "big") for f in frames[::2]]
    await check_stream(tb, frames, "min", rng)
    assert tb.pauses == qs and all(r["pause"] for r in tb.stats[::2]) and not any(r["pause"] for r in tb.stats[1::2])


@cocotb.test()
async def test_bad_sfd_and_tight_gaps(dut):
    """A wrong SFD: the frame is delivered flagged (err_ctrl), the next intact. Gaps of 1..4 bytes (below
    what a DIC transmitter sends): still only frames under 53 bytes may be dropped, each one counted."""
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("test_bad_sfd_and_tight_gaps")
    frames = [good(rng.randint(60, 300), rng, i) for i in range(40)]
    await check_stream(tb, frames, "min", rng, bad_sfd=range(0, 40, 2))
    assert sum(r["err_ctrl"] for r in tb.stats) == 20
    for lo, hi in ((60, 300), (1, 200)):
        frames = [good(rng.randint(lo, hi), rng, i) for i in range(200)]
        drops, n = await check_stream(tb, frames, "tight", rng)
        dut._log.info("tight gaps, lengths %d..%d: %d delivered, %d dropped", lo + 4, hi + 4, n, drops)


def test_beryl_eth_mac_100g_rx():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_100g_rx", "rtl/eth/beryl_eth_mac_100g_rx.f", "test_beryl_eth_mac_100g_rx",
                  Path(__file__).parent, parameters={"MAX_FRAME_LEN": 9216, "PTP_TS_W": 96})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
