# SPDX-License-Identifier: MIT
"""Unit test of the DMA read engine against a Python completer written from the PCIe rules.

The completer answers each read request with completions split at random RCB boundaries,
interleaves completions of different tags in random order, and can inject UR, CA, poisoned data,
unexpected tags and lost completions. A Python model of the segmented RAM takes the writes with
random backpressure; the RAM contents are compared byte for byte with host memory.
"""
import os
import random
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, ClockCycles

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from pcie_tlp import MemReq, Cpl, CPL_SC, CPL_UR, CPL_CA, split_completions  # noqa: E402
import beryl_seed  # noqa: E402

DMA_OK, DMA_ERR_TIMEOUT, DMA_ERR_UR, DMA_ERR_CA, DMA_ERR_POISON, DMA_ERR_LEN = range(6)
HOST_BASE = 0x1_2340_0000   # above 4 GiB: 64-bit addressing is exercised
HOST_SIZE = 1 << 20


class Bench:
    def __init__(self, dut, seed, idle=0.0, backpressure=0.0, mrrs=2, rcb=64, mps=256):
        self.dut = dut
        self.rng = random.Random(seed)
        self.idle, self.bp = idle, backpressure
        self.dw = len(dut.rx_cpl_tlp_data)
        self.beat_bytes = self.dw // 8
        self.seg_be = len(dut.ram_wr_cmd_be) // 2
        self.seg_addr_w = len(dut.ram_wr_cmd_addr) // 2
        self.ram_size = 1 << len(dut.rd_desc_ram_addr)
        self.ram = bytearray(self.ram_size)
        self.host = bytearray(self.rng.randbytes(HOST_SIZE))
        self.mrrs, self.rcb, self.mps = mrrs, rcb, mps
        self.pending = []        # requests waiting to be answered: [tag, list of beats]
        self.cpl_beats = []      # beats of the completion being sent
        self.status = []
        self.requests = []
        self.fault = {}          # tag -> 'ur' | 'ca' | 'poison' | 'drop', for the next request
        self.fault_addr = {}     # host address range start -> fault kind
        self.outstanding_tags = set()
        self.inject_unexpected = 0
        self.cycle = 0

    async def reset(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 4, "ns").start())
        d.rst.value = 1
        d.rd_desc_valid.value = 0
        d.tx_rd_req_tlp_ready.value = 0
        d.rx_cpl_tlp_valid.value = 0
        d.rx_cpl_tlp_data.value = 0
        d.rx_cpl_tlp_strb.value = 0
        d.rx_cpl_tlp_hdr.value = 0
        d.rx_cpl_tlp_sop.value = 0
        d.rx_cpl_tlp_eop.value = 0
        d.ram_wr_cmd_ready.value = 0
        d.max_read_req_size.value = self.mrrs
        d.ext_tag_en.value = 1
        d.bus_master_en.value = 1
        await ClockCycles(d.clk, 5)
        d.rst.value = 0
        await ClockCycles(d.clk, 2)
        cocotb.start_soon(self._run())

    def _answer(self, req):
        """Build the completion TLPs for one request as lists of beats."""
        lo, n = req.byte_range()
        kind = None
        for start, (end, k) in self.fault_addr.items():
            if start <= lo < end:
                kind = k
        if kind == "drop":
            return []
        if kind in ("ur", "ca"):
            c = Cpl(status=CPL_UR if kind == "ur" else CPL_CA, byte_count=n, lower_addr=lo & 0x7F, tag=req.tag)
            return [[(c.pack(), b"", True, True)]]
        tlps = []
        pieces = split_completions(lo, n, self.rcb, self.mps, self.rng)
        remaining = n
        for i, (a, cnt) in enumerate(pieces):
            dw_start = a & ~3
            dw_end = (a + cnt + 3) & ~3
            payload = bytes(self.host[dw_start - HOST_BASE:dw_end - HOST_BASE])
            ep = 1 if (kind == "poison" and i == len(pieces) - 1) else 0
            c = Cpl(status=CPL_SC, byte_count=remaining, lower_addr=a & 0x7F, tag=req.tag,
                    length_dw=len(payload) // 4, ep=ep)
            remaining -= cnt
            beats = []
            for off in range(0, len(payload), self.beat_bytes):
                chunk = payload[off:off + self.beat_bytes]
                beats.append((c.pack(), chunk, off == 0, off + self.beat_bytes >= len(payload)))
            tlps.append(beats)
        return tlps

    async def _run(self):
        d = self.dut
        rng = self.rng
        seg_mask = (1 << self.seg_addr_w) - 1
        cur = None           # beats of the completion TLP being driven
        drive_valid = False
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            # ---- sample what happened at this edge
            if int(d.tx_rd_req_tlp_valid.value) and int(d.tx_rd_req_tlp_ready.value):
                req = MemReq.unpack(int(d.tx_rd_req_tlp_hdr.value))
                assert not req.is_write
                lo, n = req.byte_range()
                assert HOST_BASE <= lo and lo + n <= HOST_BASE + HOST_SIZE, f"read outside buffer {lo:#x}+{n}"
                assert n <= 128 << self.mrrs, f"request of {n} bytes exceeds MRRS"
                assert lo // 4096 == (lo + n - 1) // 4096, f"request {lo:#x}+{n} crosses 4 KiB"
                assert req.tag not in self.outstanding_tags, f"tag {req.tag} reused while outstanding"
                self.outstanding_tags.add(req.tag)
                self.requests.append(req)
                tlps = self._answer(req)
                if not tlps:
                    self.outstanding_tags.discard(req.tag)  # lost: the engine must time out
                else:
                    self.pending.append([self.cycle + rng.randint(2, 60), req.tag, tlps])
            if drive_valid and int(d.rx_cpl_tlp_ready.value):
                cur.pop(0)
                drive_valid = False
            wr_valid = int(d.ram_wr_cmd_valid.value)
            wr_ready = int(d.ram_wr_cmd_ready.value)
            if wr_valid & wr_ready:
                addr = int(d.ram_wr_cmd_addr.value)
                be = int(d.ram_wr_cmd_be.value)
                data = int(d.ram_wr_cmd_data.value).to_bytes(2 * self.seg_be, "little")
                for s in range(2):
                    if (wr_valid & wr_ready) >> s & 1:
                        row = (addr >> (s * self.seg_addr_w)) & seg_mask
                        base = (row * 2 + s) * self.seg_be
                        for b in range(self.seg_be):
                            if be >> (s * self.seg_be + b) & 1:
                                self.ram[base + b] = data[s * self.seg_be + b]
            if int(d.rd_desc_status_valid.value):
                self.status.append((int(d.rd_desc_status_tag.value), int(d.rd_desc_status_error.value)))

            # ---- drive the next cycle
            d.tx_rd_req_tlp_ready.value = int(rng.random() >= self.bp)
            d.ram_wr_cmd_ready.value = rng.getrandbits(2) if self.bp and rng.random() < self.bp else 3
            if cur is not None and not cur:
                cur = None
            if cur is None:
                if self.inject_unexpected:
                    self.inject_unexpected -= 1
                    free = [t for t in range(256) if t not in self.outstanding_tags]
                    c = Cpl(status=CPL_SC, byte_count=4, lower_addr=0, tag=rng.choice(free), length_dw=1)
                    cur = [(c.pack(), b"\xaa" * 4, True, True)]
                else:
                    ready = [p for p in self.pending if p[0] <= self.cycle]
                    if ready:
                        p = rng.choice(ready)     # any tag: completions of different tags reorder
                        cur = p[2].pop(0)         # ... but one tag's completions stay in order
                        if not p[2]:
                            self.pending.remove(p)
                            self.outstanding_tags.discard(p[1])
            # a beat once offered stays offered until taken; idle only goes between beats
            if cur and (drive_valid or rng.random() >= self.idle):
                hdr, chunk, sop, eop = cur[0]
                d.rx_cpl_tlp_hdr.value = hdr
                d.rx_cpl_tlp_data.value = int.from_bytes(chunk.ljust(self.beat_bytes, b"\0"), "little")
                d.rx_cpl_tlp_strb.value = (1 << (len(chunk) // 4)) - 1
                d.rx_cpl_tlp_sop.value = int(sop)
                d.rx_cpl_tlp_eop.value = int(eop)
                d.rx_cpl_tlp_valid.value = 1
                drive_valid = True
            else:
                d.rx_cpl_tlp_valid.value = 0

    async def submit(self, host_addr, ram_addr, length, tag):
        d = self.dut
        d.rd_desc_host_addr.value = host_addr
        d.rd_desc_ram_addr.value = ram_addr
        d.rd_desc_len.value = length
        d.rd_desc_tag.value = tag
        d.rd_desc_valid.value = 1
        while True:
            await RisingEdge(d.clk)
            if int(d.rd_desc_ready.value):
                break
        d.rd_desc_valid.value = 0

    async def wait_status(self, count, timeout=200000):
        for _ in range(timeout):
            if len(self.status) >= count:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"timed out waiting for {count} statuses, have {len(self.status)}")


def max_len(dut):
    return 1 << (len(dut.rd_desc_len) - 1)


async def run_random(dut, seed, count, idle, bp, max_size):
    tb = Bench(dut, seed, idle=idle, backpressure=bp, mrrs=tb_mrrs(seed), rcb=random.Random(seed).choice([64, 128]))
    await tb.reset()
    rng = random.Random(seed + 1)
    expect = {}
    ram_cursor = 0
    for i in range(count):
        length = rng.choice([1, 2, 3, 4, 5, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097,
                             rng.randint(1, max_size), rng.randint(1, 512)])
        length = min(length, max_size)
        host = HOST_BASE + rng.randint(0, HOST_SIZE - length - 1)
        if ram_cursor + length + 256 > tb.ram_size:
            ram_cursor = 0
            await tb.wait_status(len(expect))
            check(tb, expect)
            expect.clear()
            tb.status.clear()
        ram = ram_cursor + rng.randint(0, 127)
        ram_cursor = ram + length
        expect[i & 0xFF] = (host, ram, length)
        await tb.submit(host, ram, length, i & 0xFF)
    await tb.wait_status(len(expect))
    check(tb, expect)
    assert int(dut.stat_err_timeout.value) == 0
    dut._log.info("seed %d: %d requests, %d bytes, %d cycles", seed, len(tb.requests),
                  int(dut.stat_bytes.value), tb.cycle)
    return tb


def tb_mrrs(seed):
    return random.Random(seed).choice([0, 1, 2, 3, 5])


def check(tb, expect):
    got = dict(tb.status)
    assert sorted(got) == sorted(expect), f"status tags {sorted(got)} != {sorted(expect)}"
    for tag, (host, ram, length) in expect.items():
        assert got[tag] == DMA_OK, f"tag {tag}: error {got[tag]}"
        want = tb.host[host - HOST_BASE:host - HOST_BASE + length]
        have = bytes(tb.ram[ram:ram + length])
        if have != want:
            bad = next(i for i in range(length) if have[i] != want[i])
            raise AssertionError(f"tag {tag}: host {host:#x} ram {ram:#x} len {length}: first mismatch at {bad}")


@cocotb.test()
async def test_random_no_stalls(dut):
    await run_random(dut, beryl_seed.seed(1, "test_random_no_stalls"), 40, 0.0, 0.0, min(max_len(dut), 16384))


@cocotb.test()
async def test_random_idle_and_backpressure(dut):
    await run_random(dut, beryl_seed.seed(2, "test_random_idle_and_backpressure"), 40, 0.3, 0.3,
                     min(max_len(dut), 16384))


@cocotb.test()
async def test_random_idle(dut):
    await run_random(dut, beryl_seed.seed(3, "test_random_idle"), 30, 0.5, 0.0, min(max_len(dut), 8192))


@cocotb.test()
async def test_random_backpressure(dut):
    await run_random(dut, beryl_seed.seed(4, "test_random_backpressure"), 30, 0.0, 0.5, min(max_len(dut), 8192))


@cocotb.test()
async def test_max_length_and_many_tags(dut):
    """Two maximum-size descriptors back to back; every tag gets used, none reused early."""
    # 128-byte requests: 512 requests per 64 KiB
    tb = Bench(dut, beryl_seed.seed(5, "test_max_length_and_many_tags"), mrrs=0)
    await tb.reset()
    n = max_len(dut)
    await tb.submit(HOST_BASE + 3, 1, n, 7)
    await tb.submit(HOST_BASE + 0x20001, n + 5, n, 8)
    await tb.wait_status(2, timeout=400000)
    check(tb, {7: (HOST_BASE + 3, 1, n), 8: (HOST_BASE + 0x20001, n + 5, n)})
    tags = {r.tag for r in tb.requests}
    assert len(tags) >= 32, f"only {len(tags)} distinct tags used"
    assert int(dut.stat_desc_done.value) == 2
    assert int(dut.stat_bytes.value) == 2 * n


@cocotb.test()
async def test_errors_and_recovery(dut):
    """UR, CA, poisoned data, lost completion and unexpected completions: each descriptor gets
    its error status and counter, and traffic after them completes correctly."""
    tb = Bench(dut, beryl_seed.seed(6, "test_errors_and_recovery"), mrrs=1)
    await tb.reset()
    kinds = {"ur": DMA_ERR_UR, "ca": DMA_ERR_CA, "poison": DMA_ERR_POISON, "drop": DMA_ERR_TIMEOUT}
    expect_err = {}
    for i, kind in enumerate(kinds):
        host = HOST_BASE + 0x10000 * (i + 1)
        tb.fault_addr[host + 256] = (host + 512, kind)    # second request of a 1 KiB read fails
        await tb.submit(host, 0x100 * i, 1024, 10 + i)
        expect_err[10 + i] = kinds[kind]
    tb.inject_unexpected = 3
    await tb.submit(HOST_BASE, 0, 0, 20)                   # zero length
    expect_err[20] = DMA_ERR_LEN
    await tb.submit(HOST_BASE, 0, max_len(dut) + 1, 21)    # too long
    expect_err[21] = DMA_ERR_LEN
    timeout = int(os.environ.get("PARAM_TIMEOUT_CYCLES", "2500000"))
    await tb.wait_status(len(expect_err), timeout=2 * timeout + 10000)
    got = dict(tb.status)
    assert got == expect_err, f"{got} != {expect_err}"
    assert int(dut.stat_err_ur.value) == 1
    assert int(dut.stat_err_ca.value) == 1
    assert int(dut.stat_err_poison.value) == 1
    assert int(dut.stat_err_timeout.value) == 1
    assert int(dut.stat_cpl_unexpected.value) == 3
    assert int(dut.stat_desc_done.value) == 6    # four failed transfers and two bad lengths
    # the engine keeps working after all of that
    tb.status.clear()
    tb.fault_addr.clear()
    await tb.submit(HOST_BASE + 0x5555, 0x3003, 9000, 30)
    await tb.submit(HOST_BASE + 0x9999, 0x8001, 300, 31)
    await tb.wait_status(2)
    check(tb, {30: (HOST_BASE + 0x5555, 0x3003, 9000), 31: (HOST_BASE + 0x9999, 0x8001, 300)})


@cocotb.test()
async def test_no_requests_without_bus_master(dut):
    tb = Bench(dut, beryl_seed.seed(7, "test_no_requests_without_bus_master"))
    await tb.reset()
    dut.bus_master_en.value = 0
    cocotb.start_soon(tb.submit(HOST_BASE, 0, 512, 1))
    await ClockCycles(dut.clk, 200)
    assert not tb.requests, "requests issued with bus mastering disabled"
    dut.bus_master_en.value = 1
    await tb.wait_status(1)
    check(tb, {1: (HOST_BASE, 0, 512)})


@cocotb.test()
async def test_without_extended_tags(dut):
    tb = Bench(dut, beryl_seed.seed(8, "test_without_extended_tags"), mrrs=0)
    await tb.reset()
    dut.ext_tag_en.value = 0
    await tb.submit(HOST_BASE + 1, 2, 16384, 1)
    await tb.wait_status(1)
    check(tb, {1: (HOST_BASE + 1, 2, 16384)})
    assert max(r.tag for r in tb.requests) < 32


# ---------------------------------------------------------------- pytest entry
import pytest  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))


@pytest.mark.parametrize("data_w", [512, 256])
def test_beryl_pcie_dma_rd(data_w):
    import beryl_sim
    beryl_sim.run("beryl_pcie_dma_rd", "rtl/pcie/beryl_pcie_dma_rd.f", "test_beryl_pcie_dma_rd",
                  Path(__file__).parent,
                  parameters={"TLP_DATA_W": data_w, "RAM_ADDR_W": 18, "PCIE_TAG_COUNT": 64,
                              "TIMEOUT_CYCLES": 20000})
