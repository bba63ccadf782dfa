# SPDX-License-Identifier: MIT
"""beryl_eth_mac_100g_tx -> beryl_eth_mac_100g_rx, wire looped in one clock, one PTP time for both.

Frames are built with scapy and packed into seg words by segtb.pack (written from the seg rules in
docs/blocks/eth.md); the wire is read by ethtb.CgmiiParser (preamble/SFD, FCS against zlib) and the RX
output by segtb.SegParser (seg rules checked on every word).

- test_back_to_back: runs of frames of one size with the source always holding a word (the TX at full
  rate), sizes 14..59 (padded) and 60..1514 sampled (every one under BERYL_LONG=1) and 9000. Every frame
  arrives intact, in order, good and recorded, nothing dropped; every IFG 5..19 with the running deficit
  0..7 over the whole stream (so no wire byte is lost); per size the wire span of the run equals
  (L + 20) bytes per frame to the deficit (line rate: L / (L + 20)), printed as a table with the wire
  words per frame; the RX output follows the wire at a constant latency.
- test_random_idle: random sizes (and a few jumbo) with random idle clocks of the source between frames.
Both check the timestamps across the loop: one TX timestamp per frame with its tag, the RX timestamp of
the same frame is TX ts + the fixed loop delay (one clock: the RX samples the time with the wire word one
register later) and the SFD column is the same on both sides."""
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402
import segtb  # noqa: E402

PERIOD_PS = 5120   # 195.3125 MHz x 512 bits = 100 Gb/s
TS_BASE = 0x1234_5678_9abc_0000_0000   # above 64 bits: the whole 96-bit path is used
LOOP_DELAY_TS = PERIOD_PS              # RX ts - TX ts: one clock of time (the RX input register)


def ts_at(cycle):
    return (TS_BASE + cycle * PERIOD_PS) & ((1 << 96) - 1)


class TB:
    """One coroutine per clock: drives the seg word and the time, samples wire, RX output, statistics
    and timestamps at the falling edge."""

    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.entries = []
        self.cycle = 0
        self.wire = ethtb.CgmiiParser()
        self.wire_cycle = []    # cycle each wire word was sampled
        self.rx = segtb.SegParser()
        self.tx_ts = []         # (ts, tag, col)
        self.tx_stats = []
        self.rx_stats = []
        self.stalls = 0
        d = dut
        for s in ("s_seg_ena", "s_seg_sop", "s_seg_eop", "s_seg_mty", "s_seg_err", "s_seg_tag", "s_seg_data"):
            getattr(d, s).value = 0
        d.ptp_ts.value = ts_at(0)
        cocotb.start_soon(self._run())

    async def _run(self):
        d = self.dut
        cur = None
        took = False
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            if int(d.rst.value):
                cur, took = None, False
                d.s_seg_ena.value = 0
                d.ptp_ts.value = ts_at(self.cycle)
                continue
            self.wire_cycle.append(self.cycle)
            self.wire.feed(d.cgmii_d.value, d.cgmii_c.value)
            self.rx.now = self.cycle
            ena = int(d.m_seg_ena.value)
            if ena:
                self.rx.feed(int(d.m_seg_data.value), ena, int(d.m_seg_sop.value), int(d.m_seg_eop.value),
                             int(d.m_seg_mty.value), int(d.m_seg_err.value), ts=int(d.m_seg_ts.value),
                             col=int(d.m_seg_ts_col.value))
            else:
                self.rx.feed(0, 0, int(d.m_seg_sop.value), int(d.m_seg_eop.value), 0, int(d.m_seg_err.value))
            if int(d.tx_ts_valid.value):
                self.tx_ts.append((int(d.tx_ts.value), int(d.tx_ts_tag.value), int(d.tx_ts_col.value)))
            for sig, lst in ((d.tx_stat, self.tx_stats), (d.rx_stat, self.rx_stats)):
                rec = ethtb.decode_stat(sig.value)
                if rec["valid"]:
                    lst.append(rec)
            d.ptp_ts.value = ts_at(self.cycle)
            if cur is not None and took:
                cur = None
            took = False
            if cur is None and self.entries:
                cur = self.entries.pop(0)
                if cur is None:             # an idle clock of the source
                    d.s_seg_ena.value = 0
                    continue
            if cur is None:
                d.s_seg_ena.value = 0
                continue
            segtb.drive(d, cur)
            took = bool(int(d.s_seg_ready.value))    # ready from flops only: valid for the coming edge
            self.stalls += not took

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def run(self, words, nframes, limit=1 << 20):
        self.entries.extend(words)
        for _ in range(limit):
            if len(self.rx.frames) >= nframes and not self.entries:
                break
            await ClockCycles(self.dut.clk, 32)
        await ClockCycles(self.dut.clk, 16)


def check_loop(tb, sent, tags):
    """Every frame intact on the wire (zlib FCS) and at the RX output, in order, good, one record each
    side; timestamps consistent across the loop. Returns per-frame (wire start byte, sop latency)."""
    d = tb.dut
    assert not tb.wire.errors, tb.wire.errors[:4]
    assert not tb.rx.errors, tb.rx.errors[:4]
    assert tb.rx.cur is None
    assert int(d.rx_drop_count.value) == 0 and int(d.rx_short_count.value) == 0
    assert int(d.tx_underflow_count.value) == 0
    assert len(tb.wire.frames) == len(sent), f"{len(tb.wire.frames)} frames on the wire, {len(sent)} sent"
    assert len(tb.rx.frames) == len(sent), f"{len(tb.rx.frames)} frames out of the RX, {len(sent)} sent"
    assert len(tb.tx_ts) == len(sent) and len(tb.tx_stats) == len(sent) and len(tb.rx_stats) == len(sent)
    lat = []
    for k, (data, wf, rf, (txts, tag, txcol), txr, rxr) in enumerate(
            zip(sent, tb.wire.frames, tb.rx.frames, tb.tx_ts, tb.tx_stats, tb.rx_stats)):
        want = data.ljust(60, b"\0")
        ethtb.cgmii_check_frame(wf, data)
        assert rf["data"] == want and rf["err"] == 0, \
            f"frame {k} len {len(data)}: RX output intact {rf['data'] == want}, err {rf['err']}"
        assert txr["good"] and rxr["good"] and txr["len"] == rxr["len"] == len(want) + 4, \
            f"frame {k}: records {txr} {rxr}"
        assert tag == tags[k], f"frame {k}: TX timestamp tag {tag:#x}, want {tags[k]:#x} (order)"
        assert rf["ts"] - txts == LOOP_DELAY_TS, \
            f"frame {k}: RX ts - TX ts = {rf['ts'] - txts}, want {LOOP_DELAY_TS} (fixed loop delay)"
        assert rf["col"] == txcol == (wf["start"] % 64) // 8, f"frame {k}: SFD column TX {txcol} RX {rf['col']}"
        lat.append((wf["start"], rf["sop_at"] - tb.wire_cycle[wf["start"] // 64]))
    return lat


def check_dic(frames):
    """Back to back over the whole stream: every IFG 5..19 and after k gaps their sum is 12 k minus a
    deficit of 0..7 (no byte of wire lost anywhere)."""
    part = 0
    for k in range(len(frames) - 1):
        g = frames[k + 1]["start"] - frames[k]["end"]
        assert 5 <= g <= 19, f"gap {k}: {g}"
        part += g
        assert 12 * (k + 1) - 7 <= part <= 12 * (k + 1), f"deficit after gap {k}: {12 * (k + 1) - part}"


@cocotb.test()
async def test_back_to_back(dut):
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac100_loop_b2b")
    sizes = [14, 20, 33, 48, 49, 59] + ethtb.sweep_lengths(rng, 60, 1514, sample=100) + [9000]
    sent, tags, runs = [], [], []
    for n in sizes:
        count = 4 if n > 2000 else 8
        runs.append((n, len(sent), count))
        for i in range(count):
            sent.append(ethtb.make_frame(n, rng, dst=["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff"][i % 2]))
            tags.append(rng.getrandbits(16))
    words = segtb.pack(sent, rng, tags=tags)
    await tb.run(words, len(sent))
    lat = check_loop(tb, sent, tags)
    check_dic(tb.wire.frames)
    assert tb.stalls > 0, "the source never waited: the TX was not driven at full rate"
    rows = []
    for n, first, count in runs:
        fr = tb.wire.frames[first:first + count]
        L = max(n, 60) + 4
        span = fr[-1]["start"] - fr[0]["start"]          # wire bytes of count - 1 frames
        ideal = (L + 20) * (count - 1)
        # line rate: the DIC deficit carried into and out of the run is the only difference (<= 7 bytes)
        assert abs(span - ideal) <= 7, f"size {n}: {span} wire bytes for {count - 1} frames, want {ideal} +- 7"
        # the RX output keeps pace: the run's sop words are as far apart as its /S/ words (+- 1 clock)
        sops = [f["sop_at"] for f in tb.rx.frames[first:first + count]]
        w0 = tb.wire_cycle[fr[0]["start"] // 64]
        w1 = tb.wire_cycle[fr[-1]["start"] // 64]
        assert abs((sops[-1] - sops[0]) - (w1 - w0)) <= 1, f"size {n}: RX output falls behind the wire"
        rows.append((n, L, span / (count - 1) / 64, (L + 20) / 64, L * (count - 1) / span, L / (L + 20)))
    lats = sorted({x for _, x in lat})
    assert max(lats) - min(lats) <= 1, f"RX sop latency after the /S/ word varies: {lats}"
    dut._log.info("back to back, 100 Gb/s loop (%d frames, %d sizes, %d source stall clocks); RX sop "
                  "latency after the /S/ word %s clocks; RX ts - TX ts = %d ps for every frame\n%s",
                  len(sent), len(sizes), tb.stalls, lats, LOOP_DELAY_TS,
                  "\n".join(["  user_len  L(DA..FCS)  words/frame  ideal   frames/wire  ideal"] +
                            [f"  {n:8d}  {L:10d}  {w:11.4f}  {wi:6.4f}  {e:11.4f}  {ei:6.4f}"
                             for n, L, w, wi, e, ei in rows]))
    dut._log.info("worst frames/wire ratio relative to ideal: %.5f", min(e / ei for *_, e, ei in rows))


@cocotb.test()
async def test_random_idle(dut):
    tb = TB(dut)
    await tb.reset()
    rng = ethtb.seeded("mac100_loop_idle")
    n = 800 if ethtb.LONG else 200
    lengths = [rng.choice([rng.randint(14, 128), rng.randint(60, 1514), rng.randint(60, 1514)]) for _ in range(n)]
    for k in rng.sample(range(n), 3):
        lengths[k] = rng.randint(8000, 9000)
    sent = [ethtb.make_frame(m, rng, dst=["02:00:00:00:00:02", "01:00:5e:00:00:01"][i % 2])
            for i, m in enumerate(lengths)]
    tags = [rng.getrandbits(16) for _ in sent]
    words = segtb.pack(sent, rng, idle_p=0.4, tags=tags, max_idle=5)
    await tb.run(words, len(sent))
    lat = check_loop(tb, sent, tags)
    for k in range(len(tb.wire.frames) - 1):
        assert tb.wire.frames[k + 1]["start"] - tb.wire.frames[k]["end"] >= 5
    lats = sorted({x for _, x in lat})
    assert max(lats) - min(lats) <= 1, f"RX sop latency after the /S/ word varies: {lats}"
    dut._log.info("random idle: %d frames %d..%d bytes intact, RX sop latency %s clocks", len(sent),
                  min(lengths), max(lengths), lats)


def test_beryl_eth_mac_100g_loop():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_100g_loop_tb", "tb/eth/beryl_eth_mac_100g_loop/beryl_eth_mac_100g_loop_tb.f",
                  "test_beryl_eth_mac_100g_loop", Path(__file__).parent)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
