# SPDX-License-Identifier: MIT
"""beryl_eth_mac_100g_tx on its own. No third-party 100G model exists, so the wire side is read by
ethtb.CgmiiParser (a receiver written from the documented word format, not from the RTL); frames are
built with scapy and the FCS is checked with zlib.

Stream modes: "none" (frames queued back to back) and "idle" (random idle cycles between frames) for
every check. Idle inside a frame is not legal input (underflow, tested separately). The wire side has no
ready, so there is no sink backpressure. DIC_EN = 1: every IFG 5..19 bytes, deficit 0..7 (average 12);
DIC_EN = 0: IFG 12..19."""
import os
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ethtb  # noqa: E402

PERIOD_PS = 5120   # 195.3125 MHz: 512 bits x 195.3125 MHz = 100 Gb/s
DIC_EN = int(os.environ.get("PARAM_DIC_EN", "1"))


class TB:
    """Drives the 512-bit AXI-Stream and samples the CGMII words at falling edges (one coroutine for
    both keeps the Python cost per clock low)."""

    def __init__(self, dut):
        self.dut = dut
        Clock(dut.clk, PERIOD_PS, unit="ps").start()
        self.queue = []         # beats: (data bytes, keep count, last, abort)
        self.idle_p = 0.0       # probability of source idle per clock between frames
        self.mid_idle_p = 0.0   # ... inside frames (underflow test only)
        self.rng = None
        self.parser = ethtb.CgmiiParser()
        self.stats = []
        self.cycle = 0
        self.stalls = 0         # clocks with tvalid && !tready
        self.accept = []        # cycle of every accepted beat
        self.was_accepted = False
        self.dut.s_axis_tx_tvalid.value = 0
        cocotb.start_soon(self._run())

    def send(self, data, abort=False):
        for off in range(0, max(len(data), 1), 64):
            chunk = data[off:off + 64]
            last = off + 64 >= len(data)
            self.queue.append((chunk, last, abort and last, off == 0))

    async def _run(self):
        d = self.dut
        cur = None          # beat presented
        first_pending = True
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            if int(d.rst.value):
                cur = None
                d.s_axis_tx_tvalid.value = 0
                continue
            self.parser.feed(d.cgmii_txd.value, d.cgmii_txc.value)
            rec = ethtb.decode_stat(d.tx_stat.value)
            if rec["valid"]:
                self.stats.append(rec)
            if cur is not None and self.was_accepted:
                self.accept.append(self.cycle)
                first_pending = cur[1]
                cur = None
            if cur is None and self.queue:
                p = self.idle_p if first_pending else self.mid_idle_p
                if not (p and self.rng.random() < p):
                    cur = self.queue.pop(0)
            if cur is None:
                d.s_axis_tx_tvalid.value = 0
                self.was_accepted = False
                continue
            chunk, last, abort, _ = cur
            d.s_axis_tx_tdata.value = int.from_bytes(chunk.ljust(64, b"\0"), "little")
            d.s_axis_tx_tkeep.value = (1 << len(chunk)) - 1
            d.s_axis_tx_tlast.value = int(last)
            d.s_axis_tx_tuser.value = int(abort)
            d.s_axis_tx_tvalid.value = 1
            ready = int(d.s_axis_tx_tready.value)   # from flops only: valid for the coming edge
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
        self.accept.clear()
        self.stalls = 0

    async def drain(self, nframes, limit=200000):
        for _ in range(limit):
            if len(self.parser.frames) >= nframes and not self.queue and self.parser.frame is None:
                break
            await ClockCycles(self.dut.clk, 16)
        await ClockCycles(self.dut.clk, 8)
        assert len(self.parser.frames) == nframes, f"{len(self.parser.frames)} frames on the wire, want {nframes}"


def gaps_of(frames):
    return [frames[k + 1]["start"] - frames[k]["end"] for k in range(len(frames) - 1)]


def check_gaps(gaps, where, wire_bound=True):
    """IFG bounds. Only a wire-bound stream has an upper bound and the deficit rule; otherwise the gap is
    whatever the source leaves, and only the minimum is checked."""
    lo = 5 if DIC_EN else 12
    assert min(gaps) >= lo, f"{where}: IFG below {lo}: {sorted(set(gaps))}"
    if not wire_bound:
        return
    assert max(gaps) <= 19, f"{where}: IFG above 19: {sorted(set(gaps))}"
    if DIC_EN:
        part = 0
        for k, g in enumerate(gaps):
            part += g
            assert 12 * (k + 1) - 7 <= part <= 12 * (k + 1), f"{where}: deficit after gap {k}: {gaps[:k+1]}"


def wire_rec(data):
    return (1, max(len(data), 60) + 4, int(data[:6] == b"\xff" * 6),
            int(bool(data[0] & 1) and data[:6] != b"\xff" * 6))


def dst_for(i):
    return ["02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01"][i % 3]


@cocotb.test()
async def test_frames(dut):
    """Lengths 14..59 (padded), 60..1514 sampled (every one under BERYL_LONG=1) and 9000, back to
    back and with random source idle between frames: preamble/SFD, padding, FCS (zlib), frames equal
    the scapy input, every /S/ on an 8-byte column, only idles between frames, IFG bounds, one good
    statistics record per frame."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_frames")
    await tb.reset()
    for mode in ("none", "idle"):
        tb.idle_p = 0.0 if mode == "none" else 0.3
        lengths = [14, 20, 40, 59] + ethtb.sweep_lengths(tb.rng, 60, 1514, sample=24) + [9000]
        tb.rng.shuffle(lengths)
        sent = []
        for i, n in enumerate(lengths):
            data = ethtb.make_frame(n, tb.rng, dst=dst_for(i))
            tb.send(data)
            sent.append(data)
        await tb.drain(len(sent))
        p = tb.parser
        assert not p.errors, f"{mode}: {p.errors[:5]}"
        for f, data in zip(p.frames, sent):
            ethtb.cgmii_check_frame(f, data)
        check_gaps(gaps_of(p.frames), mode, wire_bound=False)
        got = [(r["good"], r["len"], r["bcast"], r["mcast"]) for r in tb.stats]
        assert got == [wire_rec(d) for d in sent], f"{mode}: statistics records"
        assert int(dut.tx_underflow_count.value) == 0
        dut._log.info("%s: %d frames, lengths %d..%d, intact", mode, len(sent), min(lengths), max(lengths))
        await tb.reset()


def expected_efficiency(n):
    """Fraction of line rate carried as frames (DA..FCS) for back-to-back user frames of n bytes:
    the wire needs L + 20 bytes per frame (L = DA..FCS), the user side one clock per 64-byte beat."""
    wire = max(n, 60) + 4
    beats = -(-n // 64)
    return wire / max(wire + 20, beats * 64)


@cocotb.test()
async def test_back_to_back(dut):
    """Frames queued back to back: when the wire is the bottleneck every IFG is within the DIC bounds,
    the running deficit stays in 0..7 and the long-run average gap is 12 bytes; when the 512-bit user side
    (one beat per clock) is the bottleneck, the MAC never stalls the source. Prints the efficiency
    table (frame bytes per wire byte; line-rate ideal is L / (L + 20))."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_b2b")
    await tb.reset()
    sizes = [60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 100, 124, 125, 128, 188, 252, 508, 1000, 1514]
    if ethtb.LONG:
        sizes = list(range(60, 260)) + [1500, 1514, 9000]
    count = 48
    rows = []
    for n in sizes:
        await tb.reset()
        for _ in range(count):
            tb.send(ethtb.make_frame(n, tb.rng))
        await tb.drain(count)
        p = tb.parser
        assert not p.errors, f"len {n}: {p.errors[:5]}"
        for f in p.frames:
            assert f["kind"] == "T" and len(f["data"]) == max(n, 60) + 4
        gaps = gaps_of(p.frames)
        wire = max(n, 60) + 4
        span = p.frames[-1]["start"] - p.frames[0]["start"]
        eff = wire * (count - 1) / span
        wire_bound = wire + 20 >= -(-n // 64) * 64
        if wire_bound:
            check_gaps(gaps, f"len {n}")
            avg = sum(gaps) / len(gaps)
            if DIC_EN:
                # the sum of k gaps is 12 k minus the deficit left (0..7)
                assert 12 - 7 / len(gaps) <= avg <= 12, f"len {n}: average IFG {avg}"
        else:
            check_gaps(gaps, f"len {n}", wire_bound=False)
            # user-side bound: after the first beat the source is never held off
            assert tb.stalls == 0, f"len {n}: source stalled {tb.stalls} clocks although the wire has room"
            assert abs(eff - expected_efficiency(n)) < 0.01, f"len {n}: {eff} vs {expected_efficiency(n)}"
        rows.append((n, wire, eff, wire / (wire + 20), sum(gaps) / len(gaps), "wire" if wire_bound else "user"))
    dut._log.info("DIC_EN=%d back to back, %d frames each:\n%s", DIC_EN, count,
                  "\n".join(["  user_len  wire_len  frame/wire  ideal    avg_IFG  bound"] +
                            [f"  {n:8d}  {w:8d}  {e:9.4f}  {i:7.4f}  {g:7.3f}  {b}" for n, w, e, i, g, b in rows]))
    r64 = [r for r in rows if r[1] == 64][0]
    dut._log.info("64-byte frames: %.2f %% of line rate as frames (ideal %.2f %%), %.2f Gb/s of 100",
                  100 * r64[2], 100 * r64[3], 100 * r64[2])


@cocotb.test()
async def test_underflow_and_abort(dut):
    """Source idle inside frames: a frame the packer runs out of ends in /E/ on the wire, is counted
    (record + tx_underflow_count) and its rest is skipped; aborted frames (tuser[0] on the last beat)
    end in /E/ with an err_ctrl record; clean frames afterwards are intact."""
    tb = TB(dut)
    tb.rng = ethtb.seeded("mac100_tx_underflow")
    await tb.reset()
    tb.mid_idle_p = 0.5
    under = [ethtb.make_frame(tb.rng.randint(200, 1500), tb.rng) for _ in range(10)]
    for data in under:
        tb.send(data)
    await tb.drain(len(under))
    tb.mid_idle_p = 0.0
    aborted = [ethtb.make_frame(tb.rng.randint(14, 300), tb.rng) for _ in range(4)]
    for data in aborted:
        tb.send(data, abort=True)
    clean = [ethtb.make_frame(tb.rng.randint(60, 1514), tb.rng) for _ in range(6)]
    for data in clean:
        tb.send(data)
    await tb.drain(len(under) + len(aborted) + len(clean))
    p = tb.parser
    assert not p.errors, p.errors[:5]
    fr = p.frames
    bad_u = [f for f in fr[:len(under)] if f["kind"] == "E"]
    for f, data in zip(fr[:len(under)], under):
        if f["kind"] == "T":
            ethtb.cgmii_check_frame(f, data)
        else:
            assert f["data"] == data[:len(f["data"])], "underflowed frame: bytes before /E/ wrong"
    n_u = sum(1 for r in tb.stats if r["underflow"])
    assert n_u > 0 and n_u == len(bad_u) == int(dut.tx_underflow_count.value)
    for f in fr[len(under):len(under) + len(aborted)]:
        assert f["kind"] == "E"
    for f, data in zip(fr[len(under) + len(aborted):], clean):
        ethtb.cgmii_check_frame(f, data)
    ab = [r for r in tb.stats if r["err_ctrl"]]
    assert [(r["good"], r["len"]) for r in ab] == [(0, max(len(d), 60) + 4) for d in aborted]
    dut._log.info("underflows %d of %d stalled frames, %d aborts, %d clean after", n_u, len(under), len(ab),
                  len(clean))


@pytest.mark.parametrize("dic_en", [1, 0])
def test_beryl_eth_mac_100g_tx(dic_en):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_mac_100g_tx", "rtl/eth/beryl_eth_mac_100g_tx.f", "test_beryl_eth_mac_100g_tx",
                  Path(__file__).parent, parameters={"DIC_EN": dic_en},
                  testcase=None if dic_en else ["test_back_to_back"])
