# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_dma_wr, the DMA write engine (device RAM -> host).

A Python model of the segmented RAM read port (random command backpressure, random
in-order response latency) feeds the engine; a light TLP sink with random backpressure
collects the memory-write TLPs. Every TLP is checked against PCIe rules written here
from PCIe 3.0 sections 2.2.5 (byte enables), 2.2.7 (4 KiB, MPS) and the reference split
at MPS-aligned host addresses; the enabled payload bytes must equal the RAM contents.

Set DMA_WR_SOAK=<n> for a longer random run (n descriptors per configuration).
"""
import os
import random
import sys
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from tlp_sink_simple import Cycle, TlpSinkSimple  # noqa: E402
from pcie_tlp import parse_mem_hdr  # noqa: E402
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

DMA_OK = 0
DMA_ERR_LEN = 5
MPS_BYTES = [128, 256, 512, 1024, 2048, 4096]


# ------------------------------------------------------------------------------------------
# Reference model of the PCIe rules
# ------------------------------------------------------------------------------------------
def ref_split(host, length, mps):
    """Expected TLPs (host byte address, byte count): cut at MPS-aligned host addresses."""
    out = []
    while length:
        n = min(length, mps - host % mps)
        out.append((host, n))
        host += n
        length -= n
    return out


def be_bytes(first_be, last_be, ndw):
    """Byte-enable mask over the TLP's 4 * ndw payload bytes (PCIe 3.0 section 2.2.5)."""
    en = [True] * (4 * ndw)
    for i in range(4):
        en[i] = bool(first_be >> i & 1)
    if ndw > 1:
        for i in range(4):
            en[4 * (ndw - 1) + i] = bool(last_be >> i & 1)
    return en


def check_tlp_rules(f, ndw_payload, mps):
    """Return a list of rule violations of one memory-write TLP's header."""
    errs = []
    if f["fmt"] != 0b011 or f["type"] != 0:
        errs.append(f"fmt/type {f['fmt']:#b}/{f['type']:#b} is not a 4DW MWr")
    if f["td"] or f["ep"] or f["at"]:
        errs.append("TD/EP/AT set")
    ndw = f["length"]
    if ndw != ndw_payload:
        errs.append(f"length {ndw} DW but {ndw_payload} payload DW")
    fbe, lbe = f["first_be"], f["last_be"]
    contiguous_first = {0b1111, 0b1110, 0b1100, 0b1000}
    contiguous_last = {0b0001, 0b0011, 0b0111, 0b1111}
    if ndw == 1:
        # 1-DW: Last DW BE must be 0000b; First DW BE (we require) non-zero and contiguous.
        if lbe != 0:
            errs.append(f"1-DW request with last_be {lbe:#x}")
        if fbe == 0 or fbe not in {((1 << n) - 1) << s for s in range(4) for n in range(1, 5 - s)}:
            errs.append(f"1-DW first_be {fbe:#x} empty or not contiguous")
    else:
        # Multi-DW: neither BE may be 0000b, and the enabled bytes must be contiguous.
        if fbe not in contiguous_first:
            errs.append(f"multi-DW first_be {fbe:#x}")
        if lbe not in contiguous_last:
            errs.append(f"multi-DW last_be {lbe:#x}")
    addr = f["addr"]
    if addr // 4096 != (addr + 4 * ndw - 1) // 4096:
        errs.append(f"TLP at {addr:#x} + {4 * ndw} crosses a 4 KiB boundary")
    nbytes = sum(be_bytes(fbe, lbe, ndw))
    if nbytes > mps:
        errs.append(f"{nbytes} bytes above MPS {mps}")
    if 4 * ndw > mps + 4 and ndw > 1:
        errs.append(f"{ndw} DW above MPS {mps}")
    return errs


# ------------------------------------------------------------------------------------------
# Test bench
# ------------------------------------------------------------------------------------------
class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.log = dut._log
        self.rng = random.Random(seed)
        self.data_w = int(os.environ.get("PARAM_TLP_DATA_W", "512"))
        self.beat_bytes = self.data_w // 8
        self.ram_addr_w = int(os.environ.get("PARAM_RAM_ADDR_W", "20"))
        self.len_w = int(os.environ.get("PARAM_LEN_W", "17"))
        self.seg_addr_w = self.ram_addr_w - (self.beat_bytes * 2).bit_length() + 1
        self.ram = bytearray(self.rng.randbytes(1 << self.ram_addr_w))
        self.cycle = Cycle()
        self.sink = TlpSinkSimple(dut, "tx_wr_req", dut.clk, self.data_w, cycle=self.cycle,
                                  seed=seed + 1)
        # RAM model knobs
        self.cmd_ready_prob = 1.0
        self.lat_min = 1
        self.lat_max = 1
        self.resp_hold_prob = 0.0   # chance a due response is held back a cycle
        self.ram_reads = 0
        # descriptor source knobs
        self.desc_idle_prob = 0.0
        self.desc_q = deque()
        self.desc_sent = []
        self.statuses = []
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    async def reset(self, mps=0):
        dut = self.dut
        dut.rst.value = 1
        dut.wr_desc_valid.value = 0
        dut.wr_desc_host_addr.value = 0
        dut.wr_desc_ram_addr.value = 0
        dut.wr_desc_len.value = 0
        dut.wr_desc_tag.value = 0
        dut.tx_wr_req_tlp_ready.value = 0
        dut.ram_rd_cmd_ready.value = 0
        dut.ram_rd_resp_valid.value = 0
        dut.ram_rd_resp_data.value = 0
        dut.max_payload_size.value = mps
        dut.bus_master_en.value = 1
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0
        await RisingEdge(dut.clk)
        self.sink.start()
        cocotb.start_soon(self._env())

    def set_mps(self, mps_bytes):
        self.mps = mps_bytes
        self.dut.max_payload_size.value = MPS_BYTES.index(mps_bytes)

    async def _env(self):
        """RAM read port model, descriptor source and status monitor, one pass per cycle."""
        dut = self.dut
        bb = self.beat_bytes
        row = 2 * bb
        amask = (1 << self.seg_addr_w) - 1
        pend = [deque(), deque()]       # (due cycle, data) per segment, in order
        cmd_ready = 0
        resp_valid = 0
        desc_valid = 0
        while True:
            await RisingEdge(dut.clk)
            self.cycle.n += 1
            now = self.cycle.n
            # ---- sample handshakes of the edge that just passed
            if desc_valid and int(dut.wr_desc_ready.value):
                self.desc_sent.append(self.desc_q.popleft())
                desc_valid = 0
            if int(dut.wr_desc_status_valid.value):
                self.statuses.append((int(dut.wr_desc_status_tag.value),
                                      int(dut.wr_desc_status_error.value), now))
            cv = int(dut.ram_rd_cmd_valid.value) & cmd_ready
            if cv:
                addrs = int(dut.ram_rd_cmd_addr.value)
                for s in range(2):
                    if cv >> s & 1:
                        r = addrs >> (s * self.seg_addr_w) & amask
                        base = r * row + s * bb
                        prev = pend[s][-1][0] if pend[s] else 0
                        due = max(prev, now + self.rng.randint(self.lat_min, self.lat_max))
                        pend[s].append((due, int.from_bytes(self.ram[base:base + bb], "little")))
                        self.ram_reads += 1
            if resp_valid:
                rr = int(dut.ram_rd_resp_ready.value) & resp_valid
                for s in range(2):
                    if rr >> s & 1:
                        pend[s].popleft()
            # ---- drive the next cycle
            resp_valid = 0
            data = 0
            for s in range(2):
                if pend[s] and pend[s][0][0] <= now and self.rng.random() >= self.resp_hold_prob:
                    resp_valid |= 1 << s
                    data |= pend[s][0][1] << (s * self.data_w)
            if resp_valid:
                dut.ram_rd_resp_data.value = data
            dut.ram_rd_resp_valid.value = resp_valid
            cmd_ready = 0
            for s in range(2):
                if self.cmd_ready_prob >= 1.0 or self.rng.random() < self.cmd_ready_prob:
                    cmd_ready |= 1 << s
            dut.ram_rd_cmd_ready.value = cmd_ready
            if not desc_valid and self.desc_q and self.rng.random() >= self.desc_idle_prob:
                host, ram, length, tag = self.desc_q[0]
                dut.wr_desc_host_addr.value = host
                dut.wr_desc_ram_addr.value = ram
                dut.wr_desc_len.value = length
                dut.wr_desc_tag.value = tag
                desc_valid = 1
            dut.wr_desc_valid.value = desc_valid

    def queue(self, host, ram, length, tag):
        self.desc_q.append((host, ram, length, tag))

    def max_len(self):
        return 1 << (self.len_w - 1)

    async def wait_done(self, count, timeout=2_000_000):
        for _ in range(timeout):
            if len(self.statuses) >= count:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"timeout: {len(self.statuses)} of {count} statuses")

    def check(self):
        """Compare everything received with the reference, descriptor by descriptor."""
        assert not self.sink.errors, self.sink.errors[:5]
        tlps = self.sink.tlps
        assert len(self.statuses) == len(self.desc_sent), \
            f"{len(self.statuses)} statuses for {len(self.desc_sent)} descriptors"
        exp_reads = 0
        for (host, ram, length, tag), (st_tag, st_err, st_cycle) in zip(self.desc_sent, self.statuses):
            assert st_tag == tag, f"status tag {st_tag:#x}, expected {tag:#x} (in order)"
            if length == 0 or length > self.max_len():
                assert st_err == DMA_ERR_LEN, f"tag {tag:#x} len {length}: status {st_err}"
                continue
            assert st_err == DMA_OK, f"tag {tag:#x}: status {st_err}"
            bb = self.beat_bytes
            exp_reads += (ram + length - 1) // bb - ram // bb + 1
            last_cycle = None
            for exp_addr, exp_n in ref_split(host, length, self.mps):
                assert tlps, f"missing TLPs for tag {tag:#x}"
                t = tlps.popleft()
                f = parse_mem_hdr(t.hdr)
                ndw = len(t.payload) // 4
                errs = check_tlp_rules(f, ndw, self.mps)
                assert not errs, f"tag {tag:#x} TLP at {f['addr']:#x}: {errs}"
                assert t.beats == -(-ndw * 4 // bb), f"{t.beats} beats for {ndw} DW"
                en = be_bytes(f["first_be"], f["last_be"], ndw)
                first = en.index(True)
                nbytes = sum(en)
                got_addr = f["addr"] + first
                assert (got_addr, nbytes) == (exp_addr, exp_n), \
                    f"tag {tag:#x}: TLP {got_addr:#x}+{nbytes}, expected {exp_addr:#x}+{exp_n}"
                off = ram + (exp_addr - host)
                got = bytes(b for b, e in zip(t.payload, en) if e)
                exp = bytes(self.ram[off:off + exp_n])
                if got != exp:
                    bad = next(i for i in range(exp_n) if got[i] != exp[i])
                    raise AssertionError(f"tag {tag:#x}: payload differs at TLP byte {bad} "
                                         f"(host {exp_addr + bad:#x}, ram {off + bad:#x})")
                last_cycle = t.last_cycle
            assert st_cycle > last_cycle, "status before the last TLP was accepted"
        assert not tlps, f"{len(tlps)} unexpected TLPs"
        assert self.ram_reads == exp_reads, \
            f"{self.ram_reads} RAM chunk reads, expected each needed chunk once: {exp_reads}"
        self.desc_sent.clear()
        self.statuses.clear()
        self.ram_reads = 0

    def rand_desc(self, length):
        host = self.rng.getrandbits(64 if self.rng.random() < 0.5 else 32)
        host = min(host, (1 << 64) - length - 1)
        ram = self.rng.randrange(0, (1 << self.ram_addr_w) - length)
        return host, ram, length

    def stats(self):
        return int(self.dut.stat_desc_count.value), int(self.dut.stat_byte_count.value)


def knobs(tb, mode):
    """mode: 0 no stalls, 1 random source idle, 2 random backpressure, 3 both."""
    idle = mode & 1
    bp = mode & 2
    tb.desc_idle_prob = 0.5 if idle else 0.0
    tb.resp_hold_prob = 0.2 if idle else 0.0
    tb.lat_min, tb.lat_max = (1, 12) if idle else (2, 2)
    tb.cmd_ready_prob = 0.6 if bp else 1.0
    tb.sink.ready_prob = 0.6 if bp else 1.0


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------
@cocotb.test()
async def test_edge_lengths(dut):
    """Edge lengths at every host/RAM byte alignment mix, MPS 128/256/512, all stall modes."""
    tb = TB(dut, seed=beryl_seed.seed(11, "test_edge_lengths"))
    await tb.reset()
    tag = 0
    bb = tb.beat_bytes
    total_bytes = 0
    ndesc = 0
    for mode, mps in [(0, 128), (3, 256), (2, 512), (1, 128)]:
        knobs(tb, mode)
        tb.set_mps(mps)
        lens = [1, 2, 3, 4, 5, 7, 8, bb - 1, bb, bb + 1, 2 * bb + 3,
                mps - 1, mps, mps + 1, 4095, 4096, 4097]
        if mode == 0:
            lens.append(65536)
        for length in lens:
            for _ in range(2):
                host = (tb.rng.getrandbits(40) & ~0xFFF) | tb.rng.choice(
                    [0, 1, 2, 3, 4, 5, mps - 1, mps - 4, 4096 - 3, 4095, tb.rng.randrange(4096)])
                ram = (tb.rng.randrange(0, (1 << tb.ram_addr_w) - 2 * 65536) & ~(2 * bb - 1)) \
                    + tb.rng.choice([0, 1, 3, bb - 1, bb, bb + 1, 2 * bb - 1, tb.rng.randrange(2 * bb)])
                tb.queue(host, ram, length, tag & 0xFF)
                tag += 1
                ndesc += 1
                total_bytes += length
        await tb.wait_done(ndesc)
        await ClockCycles(dut.clk, 5)
        tb.check()
        ndesc = 0
        dut._log.info("mode %d MPS %d: %d descriptors ok", mode, mps, len(lens) * 2)
    await ClockCycles(dut.clk, 2)
    assert tb.stats() == (tag, total_bytes & 0xFFFFFFFF), tb.stats()


@cocotb.test()
async def test_random(dut):
    """Random lengths 1..65536, random alignments, MPS 128/256/512, queued descriptors."""
    tb = TB(dut, seed=beryl_seed.seed(22, "test_random"))
    await tb.reset()
    soak = int(os.environ.get("DMA_WR_SOAK", "0"))
    tag = 0
    for mode in range(4):
        knobs(tb, mode)
        tb.set_mps(tb.rng.choice([128, 256, 512]))
        n = soak or 25
        for i in range(n):
            # Mostly short, some up to the maximum, so a default run stays short.
            r = tb.rng.random()
            if r < 0.5:
                length = tb.rng.randint(1, 600)
            elif r < 0.85:
                length = tb.rng.randint(1, 8192)
            else:
                length = tb.rng.randint(1, tb.max_len())
            host, ram, length = tb.rand_desc(length)
            tb.queue(host, ram, length, tag & 0xFF)
            tag += 1
        await tb.wait_done(n)
        await ClockCycles(dut.clk, 5)
        tb.check()
        dut._log.info("mode %d MPS %d: %d random descriptors ok", mode, tb.mps, n)


@cocotb.test()
async def test_mps_all(dut):
    """Every MPS encoding (128..4096, and reserved 6/7 treated as 4096)."""
    tb = TB(dut, seed=beryl_seed.seed(33, "test_mps_all"))
    await tb.reset()
    knobs(tb, 3)
    tag = 0
    for enc in range(8):
        mps = MPS_BYTES[min(enc, 5)]
        tb.mps = mps
        dut.max_payload_size.value = enc
        for length in [1, mps - 1, mps + 1, 3 * mps + 5, tb.rng.randint(1, 9000)]:
            host, ram, length = tb.rand_desc(length)
            tb.queue(host, ram, length, tag)
            tag += 1
        await tb.wait_done(5)
        await ClockCycles(dut.clk, 5)
        tb.check()


@cocotb.test()
async def test_len_errors(dut):
    """Length 0 and lengths above 2^(LEN_W-1) return DMA_ERR_LEN in order, without traffic."""
    tb = TB(dut, seed=beryl_seed.seed(44, "test_len_errors"))
    await tb.reset()
    knobs(tb, 3)
    tb.set_mps(256)
    big = tb.max_len() + 1
    top = (1 << tb.len_w) - 1
    plan = [0, 100, 0, big, 5000, top, 1, 0]
    for tag, length in enumerate(plan):
        host, ram, _ = tb.rand_desc(max(length, 1) if length <= tb.max_len() else 1)
        tb.queue(host, ram, length, 0x40 + tag)
    await tb.wait_done(len(plan))
    await ClockCycles(dut.clk, 5)
    tb.check()
    assert tb.stats() == (len(plan), 5101), tb.stats()


@cocotb.test()
async def test_bus_master(dut):
    """No TLP while bus_master_en = 0; queued descriptors wait and then complete."""
    tb = TB(dut, seed=beryl_seed.seed(55, "test_bus_master"))
    await tb.reset()
    knobs(tb, 0)
    tb.set_mps(128)
    dut.bus_master_en.value = 0
    for tag in range(4):
        host, ram, length = tb.rand_desc(tb.rng.randint(1, 3000))
        tb.queue(host, ram, length, tag)
    await ClockCycles(dut.clk, 200)
    assert tb.sink.beat_count == 0 and not tb.statuses, "traffic while bus mastering is off"
    dut.bus_master_en.value = 1
    await tb.wait_done(4)
    await ClockCycles(dut.clk, 5)
    tb.check()
    # Drop the enable in the middle of a long transfer: TLPs stop at a TLP boundary.
    host, ram, length = tb.rand_desc(40000)
    tb.queue(host, ram, length, 9)
    await ClockCycles(dut.clk, 60)
    dut.bus_master_en.value = 0
    await ClockCycles(dut.clk, 20)
    beats = tb.sink.beat_count
    await ClockCycles(dut.clk, 200)
    assert tb.sink.beat_count == beats, "TLP beats while bus mastering is off"
    assert tb.sink._cur is None, "a TLP was left half sent"
    dut.bus_master_en.value = 1
    await tb.wait_done(1)
    await ClockCycles(dut.clk, 5)
    tb.check()


@cocotb.test()
async def test_throughput(dut):
    """Beats per cycle, no stalls, RAM latency 3: 64 KiB descriptors and short ones (logged)."""
    tb = TB(dut, seed=beryl_seed.seed(66, "test_throughput"))
    await tb.reset()
    knobs(tb, 0)
    tb.lat_min = tb.lat_max = 3
    results = []
    for mps in [128, 256, 512]:
        tb.set_mps(mps)
        for host_off, ram_off in [(0, 0), (0, 5), (3, 0), (6, 17)]:
            length = 65536 - host_off
            host = 0x1_0000_0000 + host_off
            ram = 0x1000 + ram_off
            b0 = tb.sink.beat_count
            tb.queue(host, ram, length, 1)
            await tb.wait_done(1)
            beats = tb.sink.beat_count - b0
            cycles = tb.sink.last_beat_cycle - tb.sink.tlps[0].first_cycle + 1
            await ClockCycles(dut.clk, 5)
            tb.check()
            tb.sink.tlps.clear()
            rate = beats / cycles
            results.append((mps, host_off, ram_off, beats, cycles, rate))
    dut._log.info("TLP_DATA_W %d throughput (beats/cycle):", tb.data_w)
    for mps, ho, ro, beats, cycles, rate in results:
        dut._log.info("  MPS %4d host+%d ram+%-2d %5d beats in %5d cycles = %.3f",
                      mps, ho, ro, beats, cycles, rate)
    # The carry register spans TLP boundaries: no bubble at all, whatever the alignment.
    for mps, ho, ro, beats, cycles, rate in results:
        assert cycles == beats, f"MPS {mps} host+{ho} ram+{ro}: {beats} beats took {cycles} cycles"
    # Back-to-back short descriptors: the splitter moves to the next descriptor in the cycle
    # it emits the last TLP of the previous one, so short descriptors also run at full rate.
    tb.set_mps(256)
    for size in [64, 256, 1000]:
        b0 = tb.sink.beat_count
        for i in range(64):
            tb.queue(0x2_0000_0000 + i * 8192 + (i % 4), 0x4000 + i * 4096 + i, size, i)
        await tb.wait_done(64)
        beats = tb.sink.beat_count - b0
        cycles = tb.sink.last_beat_cycle - tb.sink.tlps[0].first_cycle + 1
        await ClockCycles(dut.clk, 5)
        tb.check()
        dut._log.info("  64 x %4d-byte descriptors: %5d beats in %5d cycles = %.3f",
                      size, beats, cycles, beats / cycles)
        assert cycles == beats, f"64 x {size}-byte descriptors: {beats} beats took {cycles} cycles"


# ------------------------------------------------------------------------------------------
# pytest entry
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data_w", [512, 256])
def test_beryl_pcie_dma_wr(data_w):
    beryl_sim.run("beryl_pcie_dma_wr", "rtl/pcie/beryl_pcie_dma_wr.f", "test_beryl_pcie_dma_wr",
                  Path(__file__).parent, parameters={"TLP_DATA_W": data_w})
