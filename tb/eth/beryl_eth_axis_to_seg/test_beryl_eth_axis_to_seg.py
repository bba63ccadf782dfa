# SPDX-License-Identifier: MIT
"""beryl_eth_axis_to_seg: frame-aligned 512-bit AXI-Stream (with a per-frame tag) -> seg words.

The output is read by segtb.SegParser (written from the seg rules of docs/blocks/eth.md, not from the RTL),
which checks every word against the rules; the frames it rebuilds (bytes, abort flag, tag from the sop
word) must equal what was sent, in order. Frames of every size class: 1..17 (partial first segment), one to
four segments exactly and one byte either side (16, 32, 48, 64, 65, ...), two and three words, 60..1514
sampled, 1514 and 9000. Modes: no stalls, random source idle between frames, random sink backpressure
(m_seg_ready), both; and a run with idle clocks inside frames, which the block passes on as empty words
(allowed only in that run: SegParser's allow_gaps). Every word taken by the sink is fed to the parser, and
while a frame is open every clock without a word is fed as an empty word, so a gap the block made would be
caught in the strict runs."""
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadWrite

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import segtb  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

FIELDS = ("data", "ena", "sop", "eop", "mty", "err", "tag")


def beats(frame):
    """AXI-Stream beats of a frame: (data, keep, last)."""
    out = []
    for off in range(0, len(frame), 64):
        chunk = frame[off:off + 64]
        out.append((int.from_bytes(chunk + bytes(64 - len(chunk)), "little"), (1 << len(chunk)) - 1,
                    int(off + 64 >= len(frame))))
    return out


def sizes(rng):
    s = list(range(1, 18)) + [31, 32, 33, 47, 48, 49, 60, 63, 64, 65, 79, 80, 81, 127, 128, 129, 191, 192, 193]
    s += [rng.randint(60, 1514) for _ in range(30)] + [1514, 9000]
    rng.shuffle(s)
    return s


class Bench:
    """Drives and samples at falling edges: the outputs are flops (stable then), the input handshake is
    computed from them and the ready just driven (tready = no word held or m_seg_ready)."""

    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        Clock(dut.clk, 4000, unit="ps").start()

    async def reset(self):
        d = self.dut
        d.rst.value = 1
        for n, v in (("tvalid", 0), ("tdata", 0), ("tkeep", 0), ("tlast", 0), ("tuser", 0), ("tag", 0)):
            getattr(d, "s_axis_" + n).value = v
        d.m_seg_ready.value = 1
        await ClockCycles(d.clk, 3)
        await FallingEdge(d.clk)
        d.rst.value = 0

    async def run(self, frames, errs, tags, idle_p=0.0, bp_p=0.0, mid_idle_p=0.0):
        d, rng = self.dut, self.rng
        plan = []
        for f, e, t in zip(frames, errs, tags):
            if rng.random() < idle_p:
                plan += [None] * rng.randint(1, 4)
            for k, (data, keep, last) in enumerate(beats(f)):
                if k and rng.random() < mid_idle_p:
                    plan.append(None)
                # the tag is read with the first beat only: later beats carry junk there
                plan.append((data, keep, last, int(e and last), t if k == 0 else rng.getrandbits(16)))
        parser = segtb.SegParser(allow_gaps=mid_idle_p > 0)
        k, cur, cycles, held = 0, None, 0, None
        while len(parser.frames) < len(frames):
            await FallingEdge(d.clk)
            cycles += 1
            assert cycles < 50 * len(plan) + 1000, "stuck"
            assert not parser.errors, parser.errors
            out = {x: int(getattr(d, "m_seg_" + x).value) for x in FIELDS}
            if held is not None:
                assert out == held, "a word not taken changed"
            ready = int(rng.random() >= bp_p)
            held = out if out["ena"] and not ready else None
            d.m_seg_ready.value = ready
            if out["ena"] and ready:
                parser.feed(**{x: out[x] for x in FIELDS[:-1]}, tag=out["tag"])
            elif not out["ena"] and parser.cur is not None:
                parser.feed(0, 0, 0, 0, 0, 0)
            if cur is None and k < len(plan):
                cur = plan[k]
                k += 1
                if cur is None:
                    d.s_axis_tvalid.value = 0        # one idle clock
                else:
                    d.s_axis_tvalid.value = 1
                    for n, v in zip(("tdata", "tkeep", "tlast", "tuser", "tag"), cur):
                        getattr(d, "s_axis_" + n).value = v
            elif cur is None:
                d.s_axis_tvalid.value = 0
            in_ready = out["ena"] == 0 or ready
            await ReadWrite()
            assert int(d.s_axis_tready.value) == in_ready, "tready is not (no word held or m_seg_ready)"
            if cur is None or in_ready:
                cur = None
        assert not parser.errors, parser.errors
        got = [(f["data"], f["err"], f["tag"]) for f in parser.frames]
        want = [(f, int(e), t) for f, e, t in zip(frames, errs, tags)]
        for n, (g, w) in enumerate(zip(got, want)):
            assert g == w, f"frame {n} (len {len(w[0])}): got len {len(g[0])} err {g[1]} tag {g[2]:x}, " \
                           f"want err {w[1]} tag {w[2]:x}"
        return cycles


@cocotb.test()
async def test_modes(dut):
    """Every size class in the four stream modes, some frames aborted; then idle inside frames."""
    tb = Bench(dut, beryl_seed.seed(1, "test_modes"))
    await tb.reset()
    rng = tb.rng
    for idle_p, bp_p in ((0, 0), (0.5, 0), (0, 0.4), (0.5, 0.4)):
        s = sizes(rng)
        frames = [rng.randbytes(n) for n in s]
        errs = [rng.random() < 0.15 for _ in s]
        tags = [rng.getrandbits(16) for _ in s]
        cycles = await tb.run(frames, errs, tags, idle_p=idle_p, bp_p=bp_p)
        beats_n = sum(-(-n // 64) for n in s)
        dut._log.info("idle %.1f backpressure %.1f: %d frames, %d beats in %d clocks", idle_p, bp_p, len(s),
                      beats_n, cycles)
        if idle_p == 0 and bp_p == 0:
            assert cycles <= beats_n + 2, "a beat per clock without stalls"
    s = sizes(rng)
    frames = [rng.randbytes(n) for n in s]
    await tb.run(frames, [False] * len(s), list(range(len(s))), idle_p=0.3, bp_p=0.3, mid_idle_p=0.3)


def test_beryl_eth_axis_to_seg():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_axis_to_seg", "rtl/eth/beryl_eth_axis_to_seg.f", "test_beryl_eth_axis_to_seg",
                  Path(__file__).parent, parameters={"TAG_W": 16})
