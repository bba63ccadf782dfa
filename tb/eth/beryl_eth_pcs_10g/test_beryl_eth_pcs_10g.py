# SPDX-License-Identifier: MIT
"""beryl_eth_pcs_10g against the clause 49 reference in ../baser_ref.py (blocks and scrambler written
from the standard), and end to end: cocotbext-eth XGMII source -> PCS TX -> serial channel model
(bit offset, slips, corrupted sync headers) -> PCS RX -> cocotbext-eth XGMII sink.

The channel model keeps the 66-bit blocks as one bit stream and hands the RX 66 bits per clock from
its current offset; a bitslip request from the PCS skips one bit, as a SerDes gearbox would.
"""
import logging
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import baser_ref as ref  # noqa: E402
import ethtb  # noqa: E402

PERIOD_PS = 6400
SLIP_WAIT = 8
IDLE_D, IDLE_C = 0x0707070707070707, 0xff


class TB:
    def __init__(self, dut, start_offset=0):
        self.dut = dut
        Clock(dut.tx_clk, PERIOD_PS, unit="ps").start()
        Clock(dut.rx_clk, PERIOD_PS, unit="ps").start()
        self.src = XgmiiSource(dut.xgmii_txd, dut.xgmii_txc, dut.tx_clk, dut.tx_rst)
        self.sink = XgmiiSink(dut.xgmii_rxd, dut.xgmii_rxc, dut.rx_clk, dut.rx_rst)
        for m in (self.src, self.sink):
            m.log.setLevel(logging.WARNING)
        dut.serdes_rx_data.value = 0
        dut.serdes_rx_hdr.value = 0
        # channel state
        self.bits = 0                  # queued serial bits, first bit in bit 0
        self.nbits = 0
        self.pending_offset = start_offset
        self.corrupt_hdr = 0           # corrupt the sync header of this many upcoming blocks
        self.insert_bits = 0           # add this many stray bits to the stream
        self.loop = True
        self.tx_log = []               # (txd, txc, data, hdr) per clock, when logging
        self.log_tx = False
        self.slips = 0
        self.lock_drops = 0
        self.error_blocks = 0
        cocotb.start_soon(self._channel())

    async def reset(self):
        d = self.dut
        d.tx_rst.value = 1
        d.rx_rst.value = 1
        await ClockCycles(d.tx_clk, 4)
        d.tx_rst.value = 0
        d.rx_rst.value = 0

    async def _channel(self):
        d = self.dut
        last_lock = 0
        while True:
            await RisingEdge(d.tx_clk)
            data, hdr = int(d.serdes_tx_data.value), int(d.serdes_tx_hdr.value)
            if self.log_tx:
                self.tx_log.append((int(d.xgmii_txd.value), int(d.xgmii_txc.value), data, hdr))
            lock = int(d.rx_block_lock.value)
            if last_lock and not lock:
                self.lock_drops += 1
            last_lock = lock
            self.error_blocks += int(d.rx_error_block.value)
            if not self.loop:
                continue
            if self.corrupt_hdr:
                hdr ^= 0b01 if self.corrupt_hdr % 2 else 0b10   # 00 or 11: never a valid header
                self.corrupt_hdr -= 1
            blk = hdr | (data << 2)
            self.bits |= blk << self.nbits
            self.nbits += 66
            if self.pending_offset:
                self.bits |= 0  # the first `offset` bits come out as zeros ahead of the stream
                self.bits <<= self.pending_offset
                self.nbits += self.pending_offset
                self.pending_offset = 0
            if self.insert_bits:
                self.bits = (self.bits << self.insert_bits) | 1
                self.nbits += self.insert_bits
                self.insert_bits = 0
            if int(d.serdes_rx_bitslip.value):
                self.bits >>= 1
                self.nbits -= 1
                self.slips += 1
            if self.nbits >= 66:
                out = self.bits & ((1 << 66) - 1)
                self.bits >>= 66
                self.nbits -= 66
                d.serdes_rx_hdr.value = out & 3
                d.serdes_rx_data.value = out >> 2

    async def wait_lock(self, limit=20000):
        for _ in range(limit):
            await RisingEdge(self.dut.rx_clk)
            if int(self.dut.rx_block_lock.value):
                return
        raise AssertionError("no block lock")


def frames_for(rng, n):
    lens = ethtb.sweep_lengths(rng, 60, 1514, sample=n)
    return [ethtb.make_frame(length, rng) for length in lens]


async def send_and_check(tb, frames, gap_cycles=0):
    for data in frames:
        await tb.src.send(XgmiiFrame.from_payload(data))
        if gap_cycles:
            await tb.src.wait()
            await ClockCycles(tb.dut.tx_clk, gap_cycles)
    for data in frames:
        rx = await with_timeout(tb.sink.recv(), 200, "us")
        assert rx.ctrl is None, "control characters inside a received frame"
        assert rx.check_fcs() and bytes(rx.get_payload()) == data


@cocotb.test()
async def test_tx_blocks(dut):
    """PCS TX output, descrambled by the reference, equals the reference encoding of the XGMII input
    (idle, frames of every lane alignment, ordered sets, error characters)."""
    tb = TB(dut)
    tb.loop = False
    await tb.reset()
    rng = ethtb.seeded("test_tx_blocks")
    tb.log_tx = True
    tb.src.set_seq_os(0x000001)   # local fault ordered sets in the idle gaps
    await ClockCycles(dut.tx_clk, 20)
    tb.src.set_seq_os(None)
    for data in frames_for(rng, 16):
        f = XgmiiFrame.from_payload(data)
        if rng.random() < 0.2:
            f.normalize()
            f.data[20] = ref.ERROR
            f.ctrl[20] = 1
        tb.src.ifg = rng.choice([5, 12, 12, 17])
        await tb.src.send(f)
    await tb.src.wait()
    await ClockCycles(dut.tx_clk, 10)
    tb.log_tx = False
    log = tb.tx_log
    ds = ref.Descrambler()
    got = [(h, ds(p)) for _, _, p, h in log]
    want = [ref.encode(d, c) for d, c, _, _ in log]
    types = {p & 0xff for h, p in want if h == ref.SYNC_CTRL}
    for lag in range(0, 5):
        if all(got[i + lag] == want[i] for i in range(2, len(log) - lag)):
            break
    else:
        bad = next(i for i in range(2, len(log) - 2) if got[i + 2] != want[i])
        raise AssertionError(f"block {bad}: got {got[bad + 2]}, want {want[bad]}")
    dut._log.info("TX: %d blocks match the reference at lag %d; block types seen %s",
                  len(log), lag, sorted(hex(t) for t in types))
    assert {0x1e, 0x78, 0x33}.issubset(types) and len(types & {0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff}) >= 6


@cocotb.test()
async def test_tx_sequence_errors(dut):
    """XGMII sequences that are not legal frames leave the TX as /E/ blocks (figure 49-14)."""
    tb = TB(dut)
    tb.loop = False
    await tb.reset()
    d = dut
    ds = ref.Descrambler()
    words = [(IDLE_D, IDLE_C)] * 4 + [
        (0x0102030405060708, 0x00),                     # data between frames: E
        (IDLE_D, IDLE_C),
        (0xd5555555555555fb, 0x01),                     # start
        (0x1111111111111111, 0x00),
        (IDLE_D, IDLE_C),                               # idle inside a frame: E
        (0x07070707070707fd, 0xff),                     # terminate right after an error: passes (TX_E -> TX_T)
        (0x0707070707fd0000, 0xfc),                     # terminate with no frame open: E
        (IDLE_D, IDLE_C),
        (0x07070707070707fe, 0xff),                     # /E/ character: E block
        (0x07070707070709fb, 0x01),                     # start + data
        (0x0707fb0707070707, 0xff),                     # /S/ outside lanes 0/4: not encodable: E
    ] + [(IDLE_D, IDLE_C)] * 6
    outs = []
    for w in words:
        d.xgmii_txd.value, d.xgmii_txc.value = w
        await RisingEdge(d.tx_clk)
        outs.append((int(d.serdes_tx_hdr.value), int(d.serdes_tx_data.value)))
    for _ in range(4):
        await RisingEdge(d.tx_clk)
        outs.append((int(d.serdes_tx_hdr.value), int(d.serdes_tx_data.value)))
    blocks = [(h, ds(p)) for h, p in outs]
    # find the lag from the first non-idle block
    idle_blk = ref.encode(IDLE_D, IDLE_C)
    lag = next(i for i, b in enumerate(blocks[3:], 3) if b != idle_blk) - 4
    seq = [blocks[i + lag] for i in range(4, 4 + 11)]
    e = ref.E_BLOCK
    want = [e, idle_blk, ref.encode(*words[6]), ref.encode(*words[7]), e, ref.encode(*words[9]),
            e, idle_blk, e, ref.encode(*words[13]), e]
    assert seq == want, f"\n got  {[(h, hex(p)) for h, p in seq]}\n want {[(h, hex(p)) for h, p in want]}"


@cocotb.test()
async def test_rx_blocks(dut):
    """Reference-encoded and scrambled blocks of every type into the RX: after lock the XGMII output
    is the reference decoding; invalid block types, bad control codes and illegal sequences give /E/."""
    tb = TB(dut)
    tb.loop = False
    await tb.reset()
    rng = ethtb.seeded("test_rx_blocks")
    scr = ref.Scrambler(rng.getrandbits(58))
    d = dut
    idle = ref.encode(IDLE_D, IDLE_C)
    stream = [idle] * 80     # lock takes 64 good headers
    expect = []
    # legal: frames of both alignments, ordered sets, terminates in every lane
    for k in range(8):
        words = [(0xd5555555555555fb, 0x01), (rng.getrandbits(64), 0)]
        tail_d = rng.getrandbits(64) & ((1 << (8 * k)) - 1)
        tail_d |= 0xfd << (8 * k)
        tail_d |= sum(0x07 << (8 * i) for i in range(k + 1, 8))
        words.append((tail_d, (0xff << k) & 0xff))
        words.append((0x0100009c_07070707, 0x1f))                      # C4 O4
        words.append((0x555555fb_0100009c, 0x11))                      # O0 S4
        words.append((rng.getrandbits(64), 0))
        words.append((0x070707fd_00000000 | rng.getrandbits(32), 0xf0))
        words.append((0x0100009c_0100009c, 0x11))                      # O0 O4
        words.append((0x07070707_0100009c, 0xf1))                      # O0 C4
        words.append((0x555555fb_07070707, 0x1f))                      # C4 S4
        words.append((0x07070707_070707fd, 0xff))                      # T0
        for w in words:
            stream.append(ref.encode(*w))
            expect.append(w)
    # illegal: unknown type, bad control code, bad header, sequences
    bad_type = (ref.SYNC_CTRL, 0x00 | (rng.getrandbits(56) << 8))
    bad_code = (ref.SYNC_CTRL, 0x1e | (0x7f << 8))
    bad_hdr = (0b11, rng.getrandbits(64))
    data_blk = (ref.SYNC_DATA, rng.getrandbits(64))
    E = (0xfefefefefefefefe, 0xff)
    illegal = [(bad_type, E), (idle, (IDLE_D, IDLE_C)), (bad_code, E), (idle, (IDLE_D, IDLE_C)),
               (bad_hdr, E), (idle, (IDLE_D, IDLE_C)), (data_blk, E)]
    for blk, w in illegal:
        stream.append(blk)
        expect.append(w)
    stream += [idle] * 8
    outs = []
    for h, p in stream:
        d.serdes_rx_hdr.value = h
        d.serdes_rx_data.value = scr(p)
        await RisingEdge(d.rx_clk)
        outs.append((int(d.xgmii_rxd.value), int(d.xgmii_rxc.value), int(d.rx_block_lock.value)))
    for _ in range(4):
        await RisingEdge(d.rx_clk)
        outs.append((int(d.xgmii_rxd.value), int(d.xgmii_rxc.value), int(d.rx_block_lock.value)))
    assert outs[70][2] == 1, "no block lock after 64 good headers"
    n0 = 80
    for lag in range(0, 5):
        if all(outs[n0 + i + lag][:2] == expect[i] for i in range(len(expect))):
            break
    else:
        got = [(hex(a), hex(b)) for a, b, _ in outs[n0 + 2:n0 + 2 + len(expect)]]
        want = [(hex(a), hex(b)) for a, b in expect]
        raise AssertionError(f"RX decode mismatch\n got  {got}\n want {want}")
    dut._log.info("RX: %d blocks decoded as the reference at lag %d", len(expect), lag)


@cocotb.test()
async def test_loopback_lock_and_slips(dut):
    """XGMII source -> TX -> channel (random bit offset) -> RX -> XGMII sink: block lock by bit
    slipping, frames intact; a stray bit in the channel and bursts of bad sync headers lose lock
    (16 bad in 64) or not (fewer), lock comes back, frames afterwards intact."""
    tb = TB(dut, start_offset=23)
    await tb.reset()
    rng = ethtb.seeded("test_loopback")
    await tb.wait_lock()
    dut._log.info("locked after %d slips", tb.slips)
    assert tb.slips > 0
    await ClockCycles(dut.rx_clk, 10)
    tb.sink.clear()
    await send_and_check(tb, frames_for(rng, 12) + [ethtb.make_frame(9000, rng)])
    # 15 bad headers in a window: lock holds, frames go on
    drops = tb.lock_drops
    tb.corrupt_hdr = 15
    await ClockCycles(dut.rx_clk, 100)
    assert tb.lock_drops == drops and int(dut.rx_block_lock.value)
    tb.sink.clear()
    await send_and_check(tb, frames_for(rng, 6))
    # 32 bad headers in a row put at least 16 into one 64-block window: lock lost, regained
    tb.corrupt_hdr = 32
    await ClockCycles(dut.rx_clk, 60)
    assert tb.lock_drops == drops + 1, "16 bad sync headers in a window must drop block lock"
    await tb.wait_lock()
    await ClockCycles(dut.rx_clk, 10)
    tb.sink.clear()
    await send_and_check(tb, frames_for(rng, 6))
    # stray bits in the channel (a bit slip on the line), during traffic
    for extra in (1, 7, 33):
        slips = tb.slips
        for data in frames_for(rng, 4):
            await tb.src.send(XgmiiFrame.from_payload(data))
        await ClockCycles(dut.tx_clk, 30)
        tb.insert_bits = extra
        await tb.src.wait()
        await ClockCycles(dut.rx_clk, 200)
        await tb.wait_lock()
        dut._log.info("%d stray bits: lock drops %d, slips %d", extra, tb.lock_drops, tb.slips - slips)
        await ClockCycles(dut.rx_clk, 10)
        tb.sink.clear()
        await send_and_check(tb, frames_for(rng, 6), gap_cycles=1)
    assert tb.lock_drops == drops + 4
    dut._log.info("error blocks seen while locked: %d", tb.error_blocks)


def test_beryl_eth_pcs_10g():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_pcs_10g", "rtl/eth/beryl_eth_pcs_10g.f", "test_beryl_eth_pcs_10g",
                  Path(__file__).parent, parameters={"SLIP_WAIT": SLIP_WAIT})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
