# SPDX-License-Identifier: MIT
"""beryl_eth_seg_to_axis: the 100G MAC's RX seg stream -> frame-aligned 512-bit AXI-Stream.

Input: frames of random bytes (scapy headers from ethtb.make_frame) packed into seg words by segtb.pack
(written from the seg rules in docs/blocks/eth.md, not from this RTL: the next frame's sop right after an
eop in the same word whenever the rules allow), with idle clocks only between words where no frame is
open (the MAC never leaves a gap inside a frame). Each sop word carries its own random s_seg_ts.
Output: read beat by beat (random tready where a test says so) and checked against the AXI-Stream rules
the NIC port expects (tkeep contiguous from bit 0, all ones except on the last beat, tuser only on the
last beat, m_axis_ts constant within a frame), then frame by frame against the frames sent: in order,
bytes, the MAC error flag as tuser, the frame's timestamp. Under overload the output must be an in-order
subsequence of the input where each frame is intact or a strict prefix of whole beats marked bad, and
sent = intact + cut + dropped with cut = the cut_count increase and dropped = the drop_count increase."""
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

PERIOD_PS = 3104   # ~322 MHz
TS_W = int(os.environ.get("PARAM_TS_W", "64"))
FIFO_WORDS = int(os.environ.get("PARAM_FIFO_WORDS", "64"))
MAX_FRAME = int(os.environ.get("PARAM_MAX_FRAME", "9024"))
IDLE = {"data": 0, "ena": 0, "sop": 0, "eop": 0, "mty": 0, "err": 0, "tag": 0}


def open_after(w, was_open):
    """Is a frame open after seg word w (None = idle clock)?"""
    if w is None or not w["ena"]:
        return was_open
    sop, eop = w["sop"], w["eop"]
    if sop and (not eop or sop > eop):     # a start after the last end (or no end)
        return True
    if eop:
        return False
    return was_open


def spaced(words, frames, rate, rng, extra_idle=0.0):
    """Insert idle clocks between frames (never inside one) so that the output's beats (ceil(len / 64)
    per frame) fit at `rate` beats per clock on average; extra_idle: chance of 1..3 more idle clocks."""
    out, owed, clocks, was_open, ended = [], 0.0, 0, False, 0
    for w in words:
        out.append(w)
        clocks += 1
        if w is not None and w["eop"]:
            owed += -(-len(frames[ended]) // 64) / rate
            ended += 1
        was_open = open_after(w, was_open)
        if not was_open:
            while clocks < owed:
                out.append(None)
                clocks += 1
            if extra_idle and rng.random() < extra_idle:
                n = rng.randint(1, 3)
                out += [None] * n
                clocks += n
    return out


class TB:
    """At every falling edge: drive the next seg word (with its random timestamp, recorded per frame
    by the word's tag = frame index) and tready, and take the output beat if tvalid and tready."""

    def __init__(self, dut, rng):
        self.dut, self.rng = dut, rng
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.words, self.wpos = [], 0
        self.ready_p = 1.0            # chance of tready per clock
        self.ts = {}                  # frame index -> ts driven with its sop word
        self.beats = []               # (data, keep, last, user, ts) of the current output frame
        self.out = []                 # output frames: dict data, bad, ts
        self.errors = []
        self.rst_at = None            # index of the first word sampled after a reset
        self.out_at_rst = 0           # output frames complete before it
        self.rst_req = 0
        self.reset_at_word = None     # reset for 3 clocks from the clock that would drive this word
        self.beat_count = 0
        self.clock = 0
        self.first_beat_at = None
        self.start_clock = 0
        for k in IDLE:
            if k != "tag":
                getattr(dut, "s_seg_" + k).value = 0
        dut.s_seg_ts.value = 0
        dut.m_axis_tready.value = 0
        dut.rst.value = 0
        cocotb.start_soon(self._run())

    def _err(self, msg):
        if len(self.errors) < 10:
            self.errors.append(msg)

    async def _run(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            self.clock += 1
            if self.wpos == self.reset_at_word:
                self.rst_req, self.reset_at_word = 3, None
            in_rst = self.rst_req > 0
            if in_rst:
                d.rst.value = 1
                self.rst_req -= 1
                self.beats = []
                if not self.rst_req:
                    self.rst_at = self.wpos + 1     # the first word sampled with rst low
                    self.out_at_rst = len(self.out)
            else:
                d.rst.value = 0
            ready = self.rng.random() < self.ready_p
            d.m_axis_tready.value = int(ready)
            if not in_rst and ready and int(d.m_axis_tvalid.value):
                self._beat()
            w = self.words[self.wpos] if self.wpos < len(self.words) else None
            if self.wpos == 0:
                self.start_clock = self.clock     # the clock that drives words[0]
            self.wpos += 1
            if w is None:
                w = IDLE
            self._drive(w)
            ts = self.rng.getrandbits(TS_W)
            if w["sop"]:
                self.ts[w["tag"]] = ts
            d.s_seg_ts.value = ts

    def _drive(self, w):
        d = self.dut
        d.s_seg_data.value = w["data"]
        d.s_seg_ena.value = w["ena"]
        d.s_seg_sop.value = w["sop"]
        d.s_seg_eop.value = w["eop"]
        d.s_seg_mty.value = w["mty"]
        d.s_seg_err.value = w["err"]

    def _beat(self):
        d = self.dut
        if self.first_beat_at is None:
            self.first_beat_at = self.clock
        self.beat_count += 1
        keep = int(d.m_axis_tkeep.value)
        last = int(d.m_axis_tlast.value)
        user = int(d.m_axis_tuser.value)
        ts = int(d.m_axis_ts.value)
        n = keep.bit_length()
        if keep == 0 or keep != (1 << n) - 1:
            self._err(f"tkeep {keep:016x} not contiguous from bit 0")
        if not last and n != 64:
            self._err(f"tkeep {keep:016x} not all ones on a beat that is not the last")
        if user and not last:
            self._err("tuser on a beat that is not the last")
        if self.beats and ts != self.beats[0][1]:
            self._err("m_axis_ts changes inside a frame")
        data = int(d.m_axis_tdata.value).to_bytes(64, "little")[:n]
        self.beats.append((data, ts))
        if last:
            self.out.append({"data": b"".join(b for b, _ in self.beats), "bad": user, "ts": self.beats[0][1],
                             "beats": len(self.beats)})
            self.beats = []

    async def reset(self):
        self.rst_req = 4
        while self.rst_req:
            await FallingEdge(self.dut.clk)
        await ClockCycles(self.dut.clk, 2)

    async def send(self, words, drain=True):
        """Drive `words` (a list of seg words, None = idle) from the next falling edge, then wait for
        the output to go quiet (tready kept as set)."""
        await FallingEdge(self.dut.clk)
        self.words, self.wpos = list(words), 0
        while self.wpos < len(self.words):
            await ClockCycles(self.dut.clk, 16)
        if drain:
            quiet = 0
            while quiet < 8 * FIFO_WORDS:
                await ClockCycles(self.dut.clk, 8)
                quiet = quiet + 8 if not int(self.dut.m_axis_tvalid.value) else 0


def make_frames(lengths, rng):
    return [ethtb.make_frame(n, rng, dst="ff:ff:ff:ff:ff:ff" if i % 5 == 0 else "02:00:00:00:00:02")
            if n >= 14 else bytes(rng.getrandbits(8) for _ in range(n)) for i, n in enumerate(lengths)]


def check(tb, frames, errs, first=0, may_lose=False, drops=0, cuts=0):
    """Compare tb.out with frames[first:] (error flags errs). Without may_lose every frame must come out
    intact, else the output is matched as an in-order subsequence of intact frames and cut prefixes.
    Returns (intact, cut, dropped)."""
    assert not tb.errors, tb.errors
    assert not tb.beats, "an output frame is still open"
    out = tb.out
    intact = cut = dropped = 0
    j = first
    for k, g in enumerate(out):
        while True:
            assert j < len(frames), f"output frame {k} ({len(g['data'])} bytes) matches no frame sent"
            f = frames[j]
            if g["data"] == f:
                assert g["bad"] == int(errs[j]), f"frame {j} ({len(f)} bytes): tuser {g['bad']}, want {errs[j]}"
                intact += 1
                break
            if (may_lose or len(f) > MAX_FRAME) and g["bad"] and len(g["data"]) < len(f) \
                    and len(g["data"]) % 64 == 0 and f.startswith(g["data"]):
                cut += 1
                break
            if not may_lose:
                dpos = next((i for i, (a, b) in enumerate(zip(g["data"], f)) if a != b), None)
                assert False, (f"frame {j}: sent {len(f)} bytes, got {len(g['data'])} bad {g['bad']}, "
                               f"first difference at byte {dpos}")
            dropped += 1
            j += 1
        assert g["ts"] == tb.ts[j], f"frame {j}: ts {g['ts']:x}, want {tb.ts[j]:x}"
        j += 1
    dropped += len(frames) - j
    if not may_lose:
        assert dropped == 0, f"{dropped} frames missing at the end"
    assert int(tb.dut.drop_count.value) - drops == dropped, \
        f"drop_count says {int(tb.dut.drop_count.value) - drops}, {dropped} frames missing"
    assert int(tb.dut.cut_count.value) - cuts == cut, f"cut_count says {int(tb.dut.cut_count.value) - cuts}, {cut} cut"
    assert intact + cut + dropped == len(frames) - first
    return intact, cut, dropped


async def run_case(tb, frames, errs=None, rate=1.0, extra_idle=0.0, may_lose=False, words=None, idle_p=0.0):
    errs = errs or [0] * len(frames)
    d = tb.dut
    drops, cuts = int(d.drop_count.value), int(d.cut_count.value)
    tb.out, tb.ts = [], {}
    if words is None:
        words = segtb.pack(frames, tb.rng, errs=errs, idle_p=idle_p)
        assert [f[0] for f in segtb.parse(words)] == frames
        words = spaced(words, frames, rate, tb.rng, extra_idle)
    await tb.send(words)
    return check(tb, frames, errs, may_lose=may_lose, drops=drops, cuts=cuts)


def sizes_all_segments(rng):
    """Every length 14..600 (14..1514 under BERYL_LONG=1), 100 sampled up to 1514, lengths around beat and
    segment edges, a few jumbo: frames end in every segment of a word and of a beat."""
    top = 1515 if ethtb.LONG else 601
    out = list(range(14, top)) + [rng.randint(top, 1514) for _ in range(100)]
    out += [64 * n + r for n in (2, 5, 23) for r in (0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63)]
    out += [1514, 1515, 4000, 9000]
    rng.shuffle(out)
    return out


def seg_coverage(words):
    """(sop segments, eop segments, words holding an eop and the next frame's sop) of a word list."""
    sops, eops, shared = set(), set(), 0
    for w in words:
        if w is None:
            continue
        sops |= {i for i in range(4) if (w["sop"] >> i) & 1}
        eops |= {i for i in range(4) if (w["eop"] >> i) & 1}
        shared += bool(w["sop"] and w["eop"])
    return sops, eops, shared


@cocotb.test()
async def test_latency(dut):
    """Empty buffer, tready high: a beat is on m_axis 4 clocks after the edge that samples the input word
    completing it (for a frame starting in segment k > 0, the word after its sop word)."""
    rng = ethtb.seeded("test_latency")
    tb = TB(dut, rng)
    await tb.reset()
    beats_at = []
    orig = tb._beat

    def rec():
        beats_at.append(tb.clock)
        orig()
    tb._beat = rec
    for k in range(4):
        # frame 0 (sop in segment 0 of word 0) ends in segment k - 1 of word 1; frame 1 starts in segment k
        frames = make_frames([64 + 16 * k - 8 if k else 128, 300], rng)
        words = segtb.pack(frames, rng)
        assert (words[1]["sop"] == 1 << k) if k else (words[2]["sop"] == 1)
        beats_at.clear()
        tb.out, tb.ts = [], {}
        await tb.send(words)
        check(tb, frames, [0, 0])
        # clocks are counted at falling edges; rising edge c comes after falling edge c. Word n is driven
        # at falling edge start + n and sampled at rising edge start + n; a beat taken at falling edge b
        # was put on m_axis at rising edge b - 1. Beats 0, 1 (frame 0) and 2 (frame 1) complete with
        # words 0, 1, 2.
        lat = [b - 1 - (tb.start_clock + n) for n, b in enumerate(beats_at[:3])]
        assert lat == [4, 4, 4], (k, lat)
    tb._beat = orig
    dut._log.info("latency: edge sampling the word that completes a beat -> beat on m_axis: 4 clocks")


@cocotb.test()
async def test_back_to_back(dut):
    """Frames of 14..9000 bytes packed as densely as the seg rules allow (sop after eop in one word), ending
    and starting in every segment, 5 % with the MAC error flag, tready always high, idle clocks only where
    the output's beats would outrun the clocks (beats <= clocks overall): every frame intact, in order,
    with its timestamp and error flag."""
    rng = ethtb.seeded("test_back_to_back")
    tb = TB(dut, rng)
    await tb.reset()
    frames = make_frames(sizes_all_segments(rng), rng)
    errs = [int(rng.random() < 0.05) for _ in frames]
    words = spaced(segtb.pack(frames, rng, errs=errs), frames, 1.0, rng)
    sops, eops, shared = seg_coverage(words)
    assert sops == {0, 1, 2, 3} and eops == {0, 1, 2, 3} and shared > len(frames) // 3, (sops, eops, shared)
    intact, cut, dropped = await run_case(tb, frames, errs, words=words)
    dut._log.info("back to back: %d frames intact, %d words with an eop and the next sop", intact, shared)


@cocotb.test()
async def test_burst_dense(dut):
    """Runs of short frames packed densely with no idle at all (two beats for some input words): the
    buffer absorbs bursts of FIFO_WORDS - 8 frames of 65..80 bytes (2 beats per frame, 1.25 words per
    frame: a backlog of about 0.6 x FIFO_WORDS beats) and nothing is lost."""
    rng = ethtb.seeded("test_burst_dense")
    tb = TB(dut, rng)
    await tb.reset()
    for _ in range(4):
        frames = make_frames([rng.randint(65, 80) for _ in range(FIFO_WORDS - 8)], rng)
        words = segtb.pack(frames, rng) + [None] * 8
        await run_case(tb, frames, words=words)


@cocotb.test()
async def test_random_idle_backpressure(dut):
    """Random idle between words and random tready, input load the output can carry: idle added so output
    beats / clocks <= 0.7 at tready 75 % (frames up to 9000 bytes) and <= 0.45 at tready 50 % (up to 3000
    bytes: a longer frame arrives faster than half a beat per clock and could fill the buffer on its own).
    Half the frames start a new word after 1..3 idle clocks (so idle can be inserted there), the others
    share a word with the previous frame's end. Every frame intact, with its MAC error flag; no drop, no cut."""
    rng = ethtb.seeded("test_random_idle_backpressure")
    tb = TB(dut, rng)
    await tb.reset()
    for ready_p, rate in ((1.0, 1.0), (0.75, 0.7), (0.5, 0.45)):
        tb.ready_p = ready_p
        big = 9000 if ready_p > 0.6 else 3000
        lengths = [rng.choice([rng.randint(14, 200), rng.randint(60, 1514), rng.randint(1, big) if
                               rng.random() < 0.05 else 128]) for _ in range(120)]
        frames = make_frames(lengths, rng)
        errs = [int(rng.random() < 0.1) for _ in frames]
        intact, cut, dropped = await run_case(tb, frames, errs, rate=rate, extra_idle=0.3, idle_p=0.5)
        dut._log.info("tready %.2f, load %.2f: %d frames intact", ready_p, rate, intact)


@cocotb.test()
async def test_overload(dut):
    """tready held low for a long time while frames keep coming, then random tready: every frame sent is
    delivered intact, delivered cut (bad, a prefix of whole beats) or dropped whole, counted exactly; the
    traffic after the overload is intact."""
    rng = ethtb.seeded("test_overload")
    tb = TB(dut, rng)
    await tb.reset()
    for rep in range(3):
        lengths = [rng.choice([rng.randint(14, 300), rng.randint(300, 3000)]) for _ in range(60)]
        frames = make_frames(lengths, rng)
        errs = [int(rng.random() < 0.1) for _ in frames]
        words = spaced(segtb.pack(frames, rng, errs=errs), frames, 1.0, rng, extra_idle=0.2)
        drops, cuts = int(dut.drop_count.value), int(dut.cut_count.value)
        tb.out, tb.ts = [], {}
        tb.ready_p = 0.0

        async def release():
            await ClockCycles(dut.clk, len(words) // 2)
            tb.ready_p = 0.3 if rep == 0 else 0.02
        cocotb.start_soon(release())
        await tb.send(words, drain=False)
        tb.ready_p = 1.0
        await tb.send([])
        intact, cut, dropped = check(tb, frames, errs, may_lose=True, drops=drops, cuts=cuts)
        dut._log.info("overload %d: %d sent, %d intact, %d cut, %d dropped", rep, len(frames), intact, cut, dropped)
        assert cut > 0 and dropped > 0
        # clean traffic afterwards
        frames = make_frames([rng.randint(14, 1514) for _ in range(30)], rng)
        await run_case(tb, frames, rate=1.0)


@cocotb.test()
async def test_oversize_and_errors(dut):
    """Frames longer than MAX_FRAME: the first MAX_FRAME bytes delivered marked bad and counted in
    cut_count; MAC errors (s_seg_err with eop) as tuser on the frame's last beat; frames around them intact."""
    rng = ethtb.seeded("test_oversize_and_errors")
    tb = TB(dut, rng)
    await tb.reset()
    lengths, errs = [], []
    for i in range(12):
        lengths += [MAX_FRAME + rng.choice([1, 15, 16, 17, 64, 65, rng.randint(1, 500)]), rng.randint(14, 300),
                    MAX_FRAME, rng.randint(60, 300)]
        errs += [int(i % 3 == 0), 0, 0, int(rng.random() < 0.5)]
    frames = make_frames(lengths, rng)
    intact, cut, dropped = await run_case(tb, frames, errs, rate=0.9)
    assert cut == 12 and dropped == 0 and intact == len(frames) - 12
    for g, n in zip(tb.out[::4], lengths[::4]):
        assert g["bad"] and len(g["data"]) == MAX_FRAME, (len(g["data"]), n)


@cocotb.test()
async def test_reset_mid_traffic(dut):
    """Reset in the middle of a frame (input keeps flowing, the rest of that frame arrives without its
    sop): after reset only frames whose sop came after it are delivered, all intact."""
    rng = ethtb.seeded("test_reset_mid_traffic")
    tb = TB(dut, rng)
    await tb.reset()
    for rep in range(3):
        tb.ready_p = 0.7
        frames = make_frames([rng.randint(14, 2000) for _ in range(40)], rng)
        errs = [0] * len(frames)
        words = spaced(segtb.pack(frames, rng, idle_p=0.5), frames, 0.6, rng)
        tb.out, tb.ts = [], {}
        # reset while a frame is open and continues past the reset (rep 1: its sop word is the last one
        # before the reset; rep 2: its end shares a word with the next frame's sop after the reset)
        opened, was = [], False
        for w in words:
            was = open_after(w, was)
            opened.append(was)
        last_sop = max(i for i, w in enumerate(words) if w is not None and w["sop"])
        cands = [i for i in range(len(words) // 4, last_sop - 3) if opened[i - 1] and opened[i + 2]
                 and words[i] is not None and not words[i]["eop"]]
        if rep == 1:
            cands = [i for i in cands if words[i - 1]["sop"]] or cands
        if rep == 2:
            cands = [i for i in cands if words[i + 3] is not None and words[i + 3]["sop"] and words[i + 3]["eop"]] \
                or cands
        tb.reset_at_word = rng.choice(cands)
        await tb.send(words)
        # frames whose sop word was sampled after the reset
        first = next(w["tag"] for w in words[tb.rst_at:] if w is not None and w["sop"])
        tb.out = tb.out[tb.out_at_rst:]
        check(tb, frames, errs, first=first, drops=0, cuts=0)
        assert len(tb.out) == len(frames) - first
        dut._log.info("reset at word %d: frames %d.. intact", tb.rst_at, first)


def _run(parameters, testcase=None):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_seg_to_axis", "rtl/eth/beryl_eth_seg_to_axis.f", "test_beryl_eth_seg_to_axis",
                  Path(__file__).parent, parameters=parameters, testcase=testcase)


def test_beryl_eth_seg_to_axis():
    _run({"TS_W": 64, "FIFO_WORDS": 64, "MAX_FRAME": 9024})


def test_beryl_eth_seg_to_axis_small():
    """The smallest buffer, a short MAX_FRAME and an odd timestamp width: the tests whose load does not
    depend on a 64-beat buffer."""
    _run({"TS_W": 20, "FIFO_WORDS": 16, "MAX_FRAME": 1024},
         testcase=["test_latency", "test_burst_dense", "test_oversize_and_errors", "test_overload"])


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
