# SPDX-License-Identifier: MIT
"""beryl_eth_pcs_10g_w32 end to end: cocotbext-eth XgmiiSource (64-bit, tx_clk) -> PCS TX -> 32-bit
SerDes side (serdes_tx_clk = 2 x tx_clk) -> serial channel model -> 32-bit SerDes side (serdes_rx_clk) ->
PCS RX -> XgmiiSink (rx_clk).

The channel turns the 32-bit TX stream into one line bit stream (a half with hdr_valid gives its 2 header
bits then 32 data bits, any other half 32 data bits). The receive gearbox model cuts that stream into 66-bit
blocks from its current bit offset and presents each as two halves, header + payload[31:0] with
hdr_valid, then payload[63:32]; a slip pulse drops one line bit. As a gearbox may after a slip, every
`STRAY_EVERY`-th slip also puts one stray half (hdr_valid 0) between two blocks, which moves the header
to the other half of rx_clk; a test also starts the gearbox on the other half. The PCS must still reach
block lock by slipping, frames must arrive intact, corrupted sync headers must give error blocks and lose
(16 in a window) or keep (15) block lock as on the 64-bit interface, and lock must come back after stray
line bits.
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
import ethtb  # noqa: E402

P_PS = 3200            # 2f (SerDes side) period; f = 2 x P_PS
SLIP_WAIT = 8
STRAY_EVERY = 5
PREFILL_BITS = 400     # line bits queued ahead of the first block (room for slips)
M32 = (1 << 32) - 1


class TB:
    def __init__(self, dut, start_offset=0, start_stray=False):
        self.dut = dut
        Clock(dut.serdes_tx_clk, P_PS, unit="ps").start()
        Clock(dut.tx_clk, 2 * P_PS, unit="ps").start()
        Clock(dut.serdes_rx_clk, P_PS, unit="ps").start()
        Clock(dut.rx_clk, 2 * P_PS, unit="ps").start()
        self.src = XgmiiSource(dut.xgmii_txd, dut.xgmii_txc, dut.tx_clk, dut.tx_rst)
        self.sink = XgmiiSink(dut.xgmii_rxd, dut.xgmii_rxc, dut.rx_clk, dut.rx_rst)
        for m in (self.src, self.sink):
            m.log.setLevel(logging.WARNING)
        dut.serdes_rx_data.value = 0
        dut.serdes_rx_hdr.value = 0
        dut.serdes_rx_hdr_valid.value = 0
        # line: queued serial bits, first bit in bit 0
        self.bits = 0
        self.nbits = PREFILL_BITS + start_offset
        self.corrupt_hdr = 0           # corrupt the sync header of this many upcoming blocks
        self.insert_bits = 0           # add this many stray bits to the line
        # receive gearbox
        self.second = None             # payload[63:32] still to present
        self.stray = int(start_stray)  # stray halves to present before the next block
        self.slips = 0
        self.strays = 0
        # rx_clk monitors
        self.lock_drops = 0
        self.error_blocks = 0
        self.fill_blocks = 0
        cocotb.start_soon(self._channel())
        cocotb.start_soon(self._monitor())

    async def reset(self):
        d = self.dut
        for s in ("tx_rst", "rx_rst", "serdes_tx_rst", "serdes_rx_rst"):
            getattr(d, s).value = 1
        await ClockCycles(d.tx_clk, 4)
        for s in ("tx_rst", "rx_rst", "serdes_tx_rst", "serdes_rx_rst"):
            getattr(d, s).value = 0

    async def _channel(self):
        d = self.dut
        rng = ethtb.seeded("channel")
        while True:
            await RisingEdge(d.serdes_tx_clk)
            # transmit side onto the line
            data, hdr, hv = (int(d.serdes_tx_data.value), int(d.serdes_tx_hdr.value),
                             int(d.serdes_tx_hdr_valid.value))
            if hv:
                if self.corrupt_hdr:
                    hdr ^= 0b01 if self.corrupt_hdr % 2 else 0b10   # 00 or 11: never a valid header
                    self.corrupt_hdr -= 1
                self.bits |= (hdr | (data << 2)) << self.nbits
                self.nbits += 34
            else:
                self.bits |= data << self.nbits
                self.nbits += 32
            if self.insert_bits:
                self.bits = (self.bits << self.insert_bits) | 1
                self.nbits += self.insert_bits
                self.insert_bits = 0
            # receive gearbox
            if int(d.serdes_rx_bitslip.value):
                self.bits >>= 1
                self.nbits -= 1
                self.slips += 1
                if self.slips % STRAY_EVERY == 0:
                    self.stray += 1
            if self.second is not None:
                d.serdes_rx_data.value, d.serdes_rx_hdr_valid.value = self.second, 0
                d.serdes_rx_hdr.value = rng.getrandbits(2)     # junk: read only with hdr_valid
                self.second = None
            elif self.stray or self.nbits < 66:
                d.serdes_rx_data.value, d.serdes_rx_hdr_valid.value = rng.getrandbits(32), 0
                self.stray = max(0, self.stray - 1)
                self.strays += 1
            else:
                blk = self.bits & ((1 << 66) - 1)
                self.bits >>= 66
                self.nbits -= 66
                d.serdes_rx_hdr.value = blk & 3
                d.serdes_rx_data.value = (blk >> 2) & M32
                d.serdes_rx_hdr_valid.value = 1
                self.second = blk >> 34

    async def _monitor(self):
        d = self.dut
        last_lock = 0
        while True:
            await RisingEdge(d.rx_clk)
            lock = int(d.rx_block_lock.value)
            if last_lock and not lock:
                self.lock_drops += 1
            last_lock = lock
            self.error_blocks += int(d.rx_error_block.value)
            self.fill_blocks += int(d.rx_fill_block.value)

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
        rx = await with_timeout(tb.sink.recv(), 400, "us")
        assert rx.ctrl is None, "control characters inside a received frame"
        assert rx.check_fcs() and bytes(rx.get_payload()) == data


async def lock_and_frames(dut, tb, rng):
    await tb.reset()
    await tb.wait_lock()
    dut._log.info("locked after %d slips, %d stray halves, half shift %d", tb.slips, tb.strays,
                  int(dut.rx_half_shift.value))
    assert tb.slips > 0
    await ClockCycles(dut.rx_clk, 10)
    tb.sink.clear()
    fills, errs = tb.fill_blocks, tb.error_blocks
    await send_and_check(tb, frames_for(rng, 8) + [ethtb.make_frame(9000, rng)])
    assert tb.fill_blocks == fills and tb.error_blocks == errs, "fill or error blocks on a clean locked link"


@cocotb.test()
async def test_lock_and_frames_even(dut):
    """Bit offset 23, gearbox starting on one half: lock by slipping, frames 60..1514 and 9000 intact."""
    tb = TB(dut, start_offset=23)
    await lock_and_frames(dut, tb, ethtb.seeded("test_lock_and_frames_even"))


@cocotb.test()
async def test_lock_and_frames_odd(dut):
    """Bit offset 50, gearbox starting on the other half."""
    tb = TB(dut, start_offset=50, start_stray=True)
    await lock_and_frames(dut, tb, ethtb.seeded("test_lock_and_frames_odd"))


@cocotb.test()
async def test_bad_headers_and_slips(dut):
    """15 bad sync headers: error blocks, lock holds; 32: lock lost and regained; stray line bits (1, 7,
    33) during traffic: lock lost, regained by slipping (stray halves on the way); frames intact after."""
    tb = TB(dut, start_offset=41)
    rng = ethtb.seeded("test_bad_headers_and_slips")
    await tb.reset()
    await tb.wait_lock()
    await ClockCycles(dut.rx_clk, 10)
    tb.sink.clear()
    await send_and_check(tb, frames_for(rng, 4))
    drops, errs = tb.lock_drops, tb.error_blocks
    tb.corrupt_hdr = 15
    await ClockCycles(dut.rx_clk, 100)
    assert tb.lock_drops == drops and int(dut.rx_block_lock.value), "15 bad headers must not drop lock"
    assert tb.error_blocks - errs >= 15, f"{tb.error_blocks - errs} error blocks for 15 bad headers"
    tb.sink.clear()
    await send_and_check(tb, frames_for(rng, 4))
    errs = tb.error_blocks
    tb.corrupt_hdr = 32
    await ClockCycles(dut.rx_clk, 60)
    assert tb.lock_drops == drops + 1, "16 bad sync headers in a window must drop block lock"
    assert tb.error_blocks - errs >= 15
    await tb.wait_lock()
    await ClockCycles(dut.rx_clk, 10)
    tb.sink.clear()
    await send_and_check(tb, frames_for(rng, 4))
    for extra in (1, 7, 33):
        slips, strays = tb.slips, tb.strays
        for data in frames_for(rng, 2):
            await tb.src.send(XgmiiFrame.from_payload(data))
        await ClockCycles(dut.tx_clk, 30)
        tb.insert_bits = extra
        await tb.src.wait()
        await ClockCycles(dut.rx_clk, 200)
        await tb.wait_lock()
        dut._log.info("%d stray bits: lock drops %d, slips %d, stray halves %d, half shift %d", extra,
                      tb.lock_drops, tb.slips - slips, tb.strays - strays, int(dut.rx_half_shift.value))
        await ClockCycles(dut.rx_clk, 10)
        tb.sink.clear()
        await send_and_check(tb, frames_for(rng, 4), gap_cycles=1)
    assert tb.lock_drops == drops + 4
    assert tb.strays > 0 and tb.fill_blocks > 0, "the header never moved to the other half"
    dut._log.info("slips %d, stray halves %d, fill blocks %d, error blocks %d", tb.slips, tb.strays,
                  tb.fill_blocks, tb.error_blocks)


def test_beryl_eth_pcs_10g_w32():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import beryl_sim
    beryl_sim.run("beryl_eth_pcs_10g_w32", "rtl/eth/beryl_eth_pcs_10g_w32.f", "test_beryl_eth_pcs_10g_w32",
                  Path(__file__).parent, parameters={"SLIP_WAIT": SLIP_WAIT})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
