# SPDX-License-Identifier: MIT
"""beryl_eth_mac_100g_tx on its own. No third-party 100G model exists, so the wire side is read by
ethtb.CgmiiParser (a receiver written from the documented word format, not from the RTL); frames are
built with scapy, packed into seg words by segtb.pack (checked by segtb.parse) and the FCS is checked
with zlib.

Source modes: frames packed back to back (the source always has a word) and with random idle clocks
between frames, for every check. Idle inside a frame is not legal input (underflow, tested separately).
The wire side has no ready, so there is no sink backpressure; the MAC's s_seg_ready is the only
backpressure. DIC_EN = 1: every IFG 5..19 bytes, deficit 0..7 (average 12); DIC_EN = 0: every IFG is 12
rounded up to the next column (12..19). Every stream check also compares the TX timestamps (one per frame
started, tx_ts = the tx_ptp_ts counter value at the edge that put the SFD word on the wire, tag, column)."""
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

PERIOD_PS = 5120   # 195.3125 MHz: 512 bits x 195.3125 MHz = 100 Gb/s
DIC_EN = int(os.environ.get("PARAM_DIC_EN", "1"))
TS_BASE = 0x1234_5678_9abc_0000_0000   # > 64 bits, so every bit of the 96-bit path is exercised
CRC_POLY = 0xedb88320
CRC_SEG = {1: 0x38a70e28, 2: 0xce6670b0, 3: 0xc1f58982}   # the RTL's CRC_SEG1..3


def ts_at(cycle):
    return (TS_BASE + cycle * PERIOD_PS) & ((1 << 96) - 1)


class TB:
    """Drives the seg words and samples the CGMII words, statistics and timestamps at falling edges (one
    coroutine for all keeps the Python cost per clock low)."""

    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.entries = []       # seg words, None = one idle clock
        self.rng = None
        self.parser = ethtb.CgmiiParser()
        self.stats = []
        self.ts = []            # (ts, tag, col, word index)
        self.word_ts = []       # tx_ptp_ts sampled at the edge that produced each wire word
        self.cycle = 0
        self.stalls = 0         # clocks with a word presented and !s_seg_ready
        self.starved = 0        # clocks the source had nothing (entries empty) while the run was going
        self.was_accepted = False
        self.ts_driven = 0
        self.sop_taken = []     # wire word index produced at the edge that took each sop word
        self._idle_inputs()
        cocotb.start_soon(self._run())

    def _idle_inputs(self):
        d = self.dut
        d.s_seg_ena.value = 0
        d.s_seg_sop.value = 0
        d.s_seg_eop.value = 0
        d.s_seg_err.value = 0
        d.s_seg_mty.value = 0
        d.s_seg_data.value = 0
        d.s_seg_tag.value = 0

    def send(self, words):
        self.entries.extend(words)

    async def _run(self):
        d = self.dut
        cur = None
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            if int(d.rst.value):
                cur = None
                self._idle_inputs()
                continue
            self.parser.feed(d.cgmii_txd.value, d.cgmii_txc.value)
            widx = len(self.word_ts)
            self.word_ts.append(self.ts_driven)
            if int(d.tx_ts_valid.value):
                self.ts.append((int(d.tx_ts.value), int(d.tx_ts_tag.value), int(d.tx_ts_col.value), widx))
            rec = ethtb.decode_stat(d.tx_stat.value)
            if rec["valid"]:
                self.stats.append(rec)
            self.ts_driven = ts_at(self.cycle)
            d.tx_ptp_ts.value = self.ts_driven
            if cur is not None and self.was_accepted:
                if cur["sop"]:
                    self.sop_taken.append(widx)   # the edge just passed took it; its word index
                cur = None
            self.was_accepted = False
            if cur is None and self.entries:
                cur = self.entries.pop(0)
                if cur is None:          # an idle clock of the source
                    d.s_seg_ena.value = 0
                    continue
            if cur is None:
                d.s_seg_ena.value = 0
                continue
            segtb.drive(d, cur)
            ready = int(d.s_seg_ready.value)   # from flops only: valid for the coming edge
            self.was_accepted = bool(ready)
            if not ready:
                self.stalls += 1

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)
        self.parser = ethtb.CgmiiParser()
        self.stats.clear()
        self.ts.clear()
        self.word_ts.clear()
        self.sop_taken.clear()
        self.stalls = 0

    async def drain(self, nframes, limit=400000):
        for _ in range(limit):
            if len(self.parser.frames) >= nframes and not self.entries and self.parser.frame is None:
                break
            await ClockCycles(self.dut.clk, 16)
        await ClockCycles(self.dut.clk, 8)
        assert len(self.parser.frames) == nframes, f"{len(self.parser.frames)} frames on the wire, want {nframes}"


def gaps_of(frames):
    return [frames[k + 1]["start"] - frames[k]["end"] for k in range(len(frames) - 1)]


def check_gaps(frames, where, wire_bound=True):
    """IFG rules. A wire-bound stream (source never starved): DIC_EN=1 every gap 5..19 and after k gaps
    the sum is 12 k minus a deficit of 0..7 (so no byte of wire is lost anywhere); DIC_EN=0 every gap is
    exactly 12 rounded up to the next column. Otherwise only the minimum is checked."""
    gaps = gaps_of(frames)
    if not gaps:
        return gaps
    lo = 5 if DIC_EN else 12
    assert min(gaps) >= lo, f"{where}: IFG below {lo}: {sorted(set(gaps))}"
    if not wire_bound:
        return gaps
    if DIC_EN:
        assert max(gaps) <= 19, f"{where}: IFG above 19: {sorted(set(gaps))}"
        part = 0
        for k, g in enumerate(gaps):
            part += g
            assert 12 * (k + 1) - 7 <= part <= 12 * (k + 1), f"{where}: deficit after gap {k}: {gaps[:k+1]}"
    else:
        for k, f in enumerate(frames[:-1]):
            want = -(-(f["end"] + 12) // 8) * 8 - f["end"]
            assert gaps[k] == want, f"{where}: gap {k} is {gaps[k]}, want {want} (12 rounded up)"
    return gaps


def wire_rec(data):
    return (1, max(len(data), 60) + 4, int(data[:6] == b"\xff" * 6),
            int(bool(data[0] & 1) and data[:6] != b"\xff" * 6))


def dst_for(i):
    return ["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01"][i % 3]


def check_ts(tb, tags, where):
    """One timestamp per frame started, in order: tx_ts = tx_ptp_ts at the edge that put the SFD's word on
    the wire, the tag given with the frame's sop, the column of its /S/."""
    fr = tb.parser.frames
    assert len(tb.ts) == len(fr), f"{where}: {len(tb.ts)} timestamps for {len(fr)} frames"
    for k, (f, (ts, tag, col, widx)) in enumerate(zip(fr, tb.ts)):
        w = f["start"] // 64
        assert widx == w, f"{where}: frame {k}: tx_ts_valid with word {widx}, SFD in word {w}"
        assert ts == tb.word_ts[w], f"{where}: frame {k}: tx_ts {ts:#x}, want {tb.word_ts[w]:#x}"
        assert col == (f["start"] % 64) // 8, f"{where}: frame {k}: col {col}, /S/ at byte {f['start']}"
        assert tag == tags[k], f"{where}: frame {k}: tag {tag:#x}, want {tags[k]:#x}"


def check_stream(tb, sent, where, tags=None, wire_bound=True):
    p = tb.parser
    assert not p.errors, f"{where}: {p.errors[:5]}"
    for f, data in zip(p.frames, sent):
        ethtb.cgmii_check_frame(f, data)
    gaps = check_gaps(p.frames, where, wire_bound=wire_bound)
    got = [(r["good"], r["len"], r["bcast"], r["mcast"]) for r in tb.stats]
    assert got == [wire_rec(d) for d in sent], f"{where}: statistics records"
    assert int(tb.dut.tx_underflow_count.value) == 0
    check_ts(tb, tags if tags is not None else list(range(len(sent))), where)
    return gaps


def _unstep(c, nbits):
    for _ in range(nbits):
        c = (((c ^ (CRC_POLY if c >> 31 else 0)) << 1) & 0xffffffff) | (c >> 31)
    return c


def test_crc_constants():
    """The RTL's start states for a frame at segment k: 16 k zero bytes of CRC-32 steps lead to 0xffffffff."""
    for k, ck in CRC_SEG.items():
        c = ck
        for _ in range(128 * k):
            c = (c >> 1) ^ (CRC_POLY if c & 1 else 0)
        assert c == 0xffffffff and _unstep(0xffffffff, 128 * k) == ck, k


def test_segtb_rules():
    """The seg helper itself: pack -> parse round trip, and the rule checker catches broken words."""
    segtb._self_check()


@cocotb.test()
async def test_frames(dut):
    """Lengths 14..59 (padded), 60..1514 sampled (every one under BERYL_LONG=1) and 9000, packed back to
    back and with random idle clocks between frames: preamble/SFD, padding, FCS (zlib), frames equal the
    scapy input, every /S/ on an 8-byte column, only idles between frames, IFG rules, one good statistics
    record per frame, timestamps and tags."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_frames")
    await tb.reset()
    for mode in ("none", "idle"):
        lengths = [14, 15, 16, 17, 20, 32, 33, 40, 48, 49, 59] + ethtb.sweep_lengths(tb.rng, 60, 1514, sample=24)
        lengths += [9000]
        tb.rng.shuffle(lengths)
        sent = [ethtb.make_frame(n, tb.rng, dst=dst_for(i)) for i, n in enumerate(lengths)]
        tags = [tb.rng.getrandbits(16) for _ in sent]
        words = segtb.pack(sent, tb.rng, idle_p=0.0 if mode == "none" else 0.4, tags=tags)
        assert [f[0] for f in segtb.parse(words)] == sent
        tb.send(words)
        await tb.drain(len(sent))
        check_stream(tb, sent, mode, tags, wire_bound=False)   # short frames: the source may be the limit
        dut._log.info("%s: %d frames, lengths %d..%d, intact, %d stall clocks", mode, len(sent), min(lengths),
                      max(lengths), tb.stalls)
        await tb.reset()


@cocotb.test()
async def test_mixed(dut):
    """Random sizes packed back to back: 49..9000 (mostly short, some jumbo), where packing never leaves a
    segment empty, with the wire as the only limit (IFG rules with no byte lost); 14..9000, where a frame
    shorter than 49 bytes may force the source to leave segments empty (then the source, not the wire, can
    be the limit: only the minimum IFG is checked), back to back and with random idle between frames.
    Every frame, record and timestamp."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_mixed")
    await tb.reset()
    nfr = 400 if ethtb.LONG else 100
    for lo, mode in ((49, "none"), (14, "none"), (14, "idle")):
        lengths = [tb.rng.choice([tb.rng.randint(lo, 128), tb.rng.randint(lo, 128), tb.rng.randint(lo, 1514)])
                   for _ in range(nfr)]
        for k in tb.rng.sample(range(nfr), 2):
            lengths[k] = tb.rng.randint(8000, 9000)
        sent = [ethtb.make_frame(n, tb.rng, dst=dst_for(i)) for i, n in enumerate(lengths)]
        tags = [tb.rng.getrandbits(16) for _ in sent]
        words = segtb.pack(sent, tb.rng, idle_p=0.0 if mode == "none" else 0.3, tags=tags)
        tb.send(words)
        await tb.drain(len(sent))
        where = f"mixed {lo}.. {mode}"
        check_stream(tb, sent, where, tags, wire_bound=lo >= 49 and mode == "none")
        dut._log.info("%s: %d frames, %d words, %d stall clocks", where, len(sent), len(words), tb.stalls)
        await tb.reset()


@cocotb.test()
async def test_short_packed(dut):
    """Short frames (14..48 bytes, padded) around 100-byte ones, packed back to back: a short frame that
    starts in segment 3 ends padded in segment 0 of the next word while the next frame starts in segment 1
    (the packer's largest push: 16 columns); a short frame closing its word; every frame, record and
    timestamp intact."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_short")
    await tb.reset()
    sent = []
    for s in range(14, 49):
        for big in (100, 101, 116, 60):
            sent += [ethtb.make_frame(big, tb.rng, dst=dst_for(s)), ethtb.make_frame(s, tb.rng)]
    tags = [tb.rng.getrandbits(16) for _ in sent]
    words = segtb.pack(sent, tb.rng, tags=tags)
    assert any(w["eop"] == 1 and w["sop"] == 2 for w in words)
    tb.send(words)
    await tb.drain(len(sent))
    check_stream(tb, sent, "short packed", tags, wire_bound=False)
    dut._log.info("short packed: %d frames, %d words", len(sent), len(words))


@cocotb.test()
async def test_latency(dut):
    """Idle wire: latency 2 clocks (two register stages): the sop word taken at clock edge E has its /S/
    on cgmii_txd after edge E + 1, in column 0, for each size."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_latency")
    for n in (14, 60, 64, 65, 200, 1514):
        await tb.reset()
        await ClockCycles(dut.clk, 3)
        tb.send(segtb.pack([ethtb.make_frame(n, tb.rng)], tb.rng))
        await tb.drain(1)
        f = tb.parser.frames[0]
        lat = f["start"] // 64 - tb.sop_taken[0] + 1
        assert lat == 2 and f["start"] % 64 == 0, f"len {n}: /S/ {lat} clocks after the sop word was taken"
    dut._log.info("latency sop word taken -> /S/ on the wire: 2 clocks (registers)")


@cocotb.test()
async def test_back_to_back(dut):
    """Frames of one size packed back to back (the source always has a word): the wire is the only limit
    at every size, i.e. the IFG rules hold with no byte lost (DIC_EN=1: sum of k gaps = 12 k minus a
    deficit of 0..7; DIC_EN=0: each gap 12 rounded up). Prints the efficiency table (frame bytes per wire
    byte; line-rate ideal is L / (L + 20))."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_b2b")
    await tb.reset()
    # every size up to 132 (every residue mod 16 and 64 several times), the table sizes and a sample
    sizes = sorted(set(list(range(60, 133)) + [188, 252, 253, 508, 1000, 1513, 1514, 9000] +
                       tb.rng.sample(range(133, 1514), 12)))
    if ethtb.LONG:
        sizes = list(range(60, 1515)) + [9000]
    rows = []
    for n in sizes:
        count = 8 if n > 2000 else 48
        await tb.reset()
        sent = [ethtb.make_frame(n, tb.rng) for _ in range(count)]
        tb.send(segtb.pack(sent, tb.rng))
        await tb.drain(count)
        gaps = check_stream(tb, sent, f"len {n}")
        wire = max(n, 60) + 4
        span = tb.parser.frames[-1]["start"] - tb.parser.frames[0]["start"]
        eff = wire * (count - 1) / span
        ideal = wire / (wire + 20)
        if DIC_EN:
            # the deficit left at the end (<= 7 bytes) is the only difference from the ideal
            assert (wire + 20) * (count - 1) - 7 <= span <= (wire + 20) * (count - 1), f"len {n}: span {span}"
            assert eff >= ideal - 1e-9
        rows.append((n, wire, eff, ideal, sum(gaps) / len(gaps), tb.stalls))
    dut._log.info("DIC_EN=%d back to back:\n%s", DIC_EN,
                  "\n".join(["  user_len  wire_len  frame/wire  ideal    avg_IFG  stall_clocks"] +
                            [f"  {n:8d}  {w:8d}  {e:9.4f}  {i:7.4f}  {g:7.3f}  {s}" for n, w, e, i, g, s in rows]))


@cocotb.test()
async def test_underflow_and_abort(dut):
    """Idle clocks inside frames: a frame the packer runs out of ends in /E/ on the wire, is counted
    (record + tx_underflow_count) and its rest is skipped (a next frame starting in its last word is
    kept); aborted frames (seg_err with eop) end in /E/ with an err_ctrl record, also when packed with
    the next frame in one word; clean frames afterwards are intact; every started frame has a timestamp."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_underflow")
    await tb.reset()
    under = [ethtb.make_frame(tb.rng.randint(100, 1500), tb.rng) for _ in range(16)]
    words = segtb.pack(under, tb.rng, mid_idle_p=0.4)
    tb.send(words)
    await tb.drain(len(under))
    p = tb.parser
    assert not p.errors, p.errors[:5]
    bad_u = [f for f in p.frames if f["kind"] == "E"]
    for f, data in zip(p.frames, under):
        if f["kind"] == "T":
            ethtb.cgmii_check_frame(f, data)
        else:
            assert f["data"] == data[:len(f["data"])], "underflowed frame: bytes before /E/ wrong"
    urec = [r for r in tb.stats if r["underflow"]]
    assert len(urec) > 0 and len(urec) == len(bad_u) == int(dut.tx_underflow_count.value)
    for r, f in zip(urec, bad_u):
        assert r["len"] >= len(f["data"]) and not r["good"]
    good = [r for r in tb.stats if r["good"]]
    assert len(good) == len(under) - len(bad_u)
    check_ts(tb, list(range(len(under))), "underflow")
    n_u = len(urec)

    await tb.reset()
    nfr = 40
    lengths = [tb.rng.randint(14, 300) for _ in range(nfr)]
    errs = [tb.rng.random() < 0.4 for _ in range(nfr)]
    sent = [ethtb.make_frame(n, tb.rng, dst=dst_for(i)) for i, n in enumerate(lengths)]
    tb.send(segtb.pack(sent, tb.rng, errs=errs))
    await tb.drain(nfr)
    p = tb.parser
    assert not p.errors, p.errors[:5]
    for f, data, e in zip(p.frames, sent, errs):
        if e:
            assert f["kind"] == "E", "aborted frame without /E/"
        else:
            ethtb.cgmii_check_frame(f, data)
    got = [(r["good"], r["err_ctrl"], r["len"]) for r in tb.stats]
    assert got == [(int(not e), int(e), max(len(d), 60) + 4) for d, e in zip(sent, errs)]
    check_gaps(p.frames, "abort", wire_bound=False)
    check_ts(tb, list(range(nfr)), "abort")
    dut._log.info("underflows %d of %d frames with idle inside, %d aborts", n_u, len(under), sum(errs))


@pytest.mark.parametrize("dic_en", [1, 0])
def test_beryl_eth_mac_100g_tx(dic_en):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_100g_tx", "rtl/eth/beryl_eth_mac_100g_tx.f", "test_beryl_eth_mac_100g_tx",
                  Path(__file__).parent, parameters={"DIC_EN": dic_en},
                  testcase=None)
