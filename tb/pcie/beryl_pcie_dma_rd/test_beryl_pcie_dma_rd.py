# SPDX-License-Identifier: MIT
"""Unit test of the DMA read engine against a Python completer written from the PCIe rules.

The completer answers each read request with completions split at random RCB boundaries,
interleaves completions of different tags in random order, and can inject UR, CA, poisoned data,
unexpected tags, lost completions and completions the PCIe core discontinued (rx_cpl_tlp_bad). A
Python model of the segmented RAM takes the writes with random backpressure; the RAM contents are
compared byte for byte with host memory.
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
        # host address range start -> (end, fault kind) for the request starting in it: 'ur', 'ca', 'poison',
        # 'drop', or discontinued (bad): 'bad_only' (one completion), 'bad_mid' (a middle one of completions
        # split at every RCB), 'bad_last', 'ur_bad', 'ca_bad', 'poison_bad' (EP and bad on the last)
        self.fault_addr = {}
        self.outstanding_tags = set()
        self.inject_unexpected = 0
        self.unexpected = []     # (tag, length in DW, bad) of unexpected completions to send next
        self.unexpected_sent = 0
        self.bad_sent = 0        # completions sent with rx_cpl_tlp_bad
        self.unchecked = []      # host byte ranges [lo, hi) whose RAM contents are not defined
        self.bad_noise = False   # drive rx_cpl_tlp_bad at random while no beat is offered
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
        d.rx_cpl_tlp_bad.value = 0
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
        if kind in ("ur", "ca", "ur_bad", "ca_bad"):
            c = Cpl(status=CPL_UR if kind.startswith("ur") else CPL_CA, byte_count=n, lower_addr=lo & 0x7F,
                    tag=req.tag)
            bad = kind.endswith("_bad")
            self.bad_sent += bad
            self.unchecked.append((lo, lo + n))    # the request ends without data
            return [[(c.pack(), b"", True, True, bad)]]
        if kind == "bad_only":
            pieces = [(lo, n)]
        elif kind == "bad_mid":
            # every RCB boundary (PCIe 3.0 section 2.3.1.1 allows it): enough completions for a middle one
            cuts = [lo] + list(range((lo // self.rcb + 1) * self.rcb, lo + n, self.rcb)) + [lo + n]
            pieces = [(a, b - a) for a, b in zip(cuts, cuts[1:])]
            assert len(pieces) >= 2, f"bad_mid: request {lo:#x}+{n} gives one completion"
        else:
            pieces = split_completions(lo, n, self.rcb, self.mps, self.rng)
        bad_i = {"bad_only": 0, "bad_mid": len(pieces) // 2 if len(pieces) > 2 else 0,
                 "bad_last": len(pieces) - 1, "poison_bad": len(pieces) - 1}.get(kind)
        tlps = []
        remaining = n
        for i, (a, cnt) in enumerate(pieces):
            dw_start = a & ~3
            dw_end = (a + cnt + 3) & ~3
            payload = bytes(self.host[dw_start - HOST_BASE:dw_end - HOST_BASE])
            ep = 1 if (kind in ("poison", "poison_bad") and i == len(pieces) - 1) else 0
            bad = i == bad_i
            if bad:
                self.bad_sent += 1
                self.unchecked.append((a, a + cnt))
            c = Cpl(status=CPL_SC, byte_count=remaining, lower_addr=a & 0x7F, tag=req.tag,
                    length_dw=len(payload) // 4, ep=ep)
            remaining -= cnt
            beats = []
            for off in range(0, len(payload), self.beat_bytes):
                chunk = payload[off:off + self.beat_bytes]
                last = off + self.beat_bytes >= len(payload)
                beats.append((c.pack(), chunk, off == 0, last, bad and last))
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
                if self.unexpected:
                    tag, ndw, bad = self.unexpected.pop(0)
                    self.unexpected_sent += 1
                    self.bad_sent += bad
                    c = Cpl(status=CPL_SC, byte_count=4 * ndw, lower_addr=0, tag=tag, length_dw=ndw)
                    payload = b"\x5a" * (4 * ndw)
                    cur = [(c.pack(), payload[o:o + self.beat_bytes], o == 0, o + self.beat_bytes >= len(payload),
                            bad and o + self.beat_bytes >= len(payload))
                           for o in range(0, len(payload), self.beat_bytes)]
                elif self.inject_unexpected:
                    self.inject_unexpected -= 1
                    free = [t for t in range(256) if t not in self.outstanding_tags]
                    c = Cpl(status=CPL_SC, byte_count=4, lower_addr=0, tag=rng.choice(free), length_dw=1)
                    cur = [(c.pack(), b"\xaa" * 4, True, True, False)]
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
                hdr, chunk, sop, eop, bad = cur[0]
                d.rx_cpl_tlp_hdr.value = hdr
                d.rx_cpl_tlp_data.value = int.from_bytes(chunk.ljust(self.beat_bytes, b"\0"), "little")
                d.rx_cpl_tlp_strb.value = (1 << (len(chunk) // 4)) - 1
                d.rx_cpl_tlp_sop.value = int(sop)
                d.rx_cpl_tlp_eop.value = int(eop)
                d.rx_cpl_tlp_bad.value = int(bad)
                d.rx_cpl_tlp_valid.value = 1
                drive_valid = True
            else:
                d.rx_cpl_tlp_valid.value = 0
                d.rx_cpl_tlp_bad.value = int(self.bad_noise and rng.random() < 0.5)

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


async def discontinued(dut, seed, idle, bp):
    """Completions the PCIe core discontinued (rx_cpl_tlp_bad with the last beat), with many descriptors in
    flight: bad on a request's only completion, on a middle one of a request split at every RCB, on the last
    one (of a middle request and of the descriptor's last request), with EP, on a UR or CA completion (the
    status wins), and on completions for tags that are not outstanding. Each discontinued completion is
    counted; its descriptor finishes with POISON (unless it already had an error) after all its requests,
    whose other data is in the RAM; the good descriptors in between finish OK with their data."""
    tb = Bench(dut, seed, idle=idle, backpressure=bp, mrrs=1, rcb=64)   # 256-byte requests
    tb.bad_noise = True
    await tb.reset()
    rng = tb.rng
    tag_count = int(os.environ.get("PARAM_PCIE_TAG_COUNT", "64"))
    # before any request, completions for tags that are all idle: discarded and counted, nothing written
    tb.unexpected = [(0, 1, 1), (5, tb.beat_bytes // 4 + 1, 1), (9, 2, 0)]
    for _ in range(5000):
        if tb.unexpected_sent == 3 and not tb.unexpected:
            break
        await RisingEdge(dut.clk)
    await ClockCycles(dut.clk, 20)
    assert tb.ram == bytearray(tb.ram_size), "a completion for an idle tag wrote to the RAM"
    # (fault, request index) -> expected status; requests are 256 bytes from the 256-byte boundary
    faults = [("bad_only", 0, DMA_ERR_POISON, 200),    # a one-request descriptor: its only completion
              ("bad_only", 1, DMA_ERR_POISON, 1024),   # the only completion of a middle request
              ("bad_mid", 1, DMA_ERR_POISON, 1024),    # a middle completion: the rest goes on
              ("bad_mid", 0, DMA_ERR_POISON, 700),
              ("bad_last", 1, DMA_ERR_POISON, 1024),
              ("bad_last", -1, DMA_ERR_POISON, 1024),  # the descriptor's last completion of all
              ("poison_bad", 2, DMA_ERR_POISON, 1024),
              ("ur_bad", 1, DMA_ERR_UR, 1024),         # UR already: stays UR
              ("ca_bad", 0, DMA_ERR_CA, 600)]
    plan = [f for f in faults for _ in range(2)] + [None] * 16
    rng.shuffle(plan)
    expect, status_want = {}, {}
    ram_cursor = 0
    most_in_flight = 0
    for i, f in enumerate(plan):
        area = HOST_BASE + 0x2000 * i
        if f is None:
            length = rng.choice([1, 63, 256, 257, 1000, rng.randint(1, 4000)])
            host = area + rng.randint(0, 255)
        else:
            kind, j, _, length = f
            # a request 0 that must fit one request (bad_only) or split into three or more (bad_mid) starts
            # early in its 256 bytes
            host = area + (rng.randint(0, 56) if j == 0 else rng.randint(0, 255))
            if j < 0:
                j = (host - area + length - 1) // 256
            tb.fault_addr[area + 256 * j] = (area + 256 * (j + 1), kind)
        ram = ram_cursor + rng.randint(0, 127)
        ram_cursor = ram + length
        expect[i] = (host, ram, length)
        status_want[i] = f[2] if f else DMA_OK
        await tb.submit(host, ram, length, i)
        most_in_flight = max(most_in_flight, i + 1 - len(tb.status))
        if i % 8 == 3:   # among the traffic: a completion for a tag the engine does not have, discontinued
            tb.unexpected.append((rng.randrange(tag_count, 256), rng.randint(1, 2 * tb.beat_bytes // 4), 1))
    await tb.wait_status(len(plan))
    await ClockCycles(dut.clk, 50)
    assert most_in_flight >= 4, f"at most {most_in_flight} descriptors were in flight at once"
    got = dict(tb.status)
    assert len(tb.status) == len(plan), f"{len(tb.status)} statuses for {len(plan)} descriptors"
    wrong = {t: (plan[t], got.get(t), w) for t, w in status_want.items() if got.get(t) != w}
    assert not wrong, f"tag: (fault, status, expected) {wrong}"
    # every byte of a descriptor is in the RAM but those of the discontinued completions and of UR/CA requests
    covered = []
    for tag, (host, ram, length) in expect.items():
        want = tb.host[host - HOST_BASE:host - HOST_BASE + length]
        have = bytes(tb.ram[ram:ram + length])
        skip = [(max(lo, host) - host, min(hi, host + length) - host) for lo, hi in tb.unchecked
                if lo < host + length and hi > host]
        assert bool(skip) == (status_want[tag] != DMA_OK), f"tag {tag}: unchecked ranges {skip}"
        for k in range(length if have != want else 0):
            if have[k] != want[k] and not any(a <= k < b for a, b in skip):
                raise AssertionError(f"tag {tag} ({plan[tag]}): host {host:#x} ram {ram:#x} len {length}: "
                                     f"mismatch at {k}")
        covered.append((ram, ram + length))
    # nothing written outside the descriptors (the unexpected completions included)
    covered.sort()
    prev = 0
    for a, b in covered + [(tb.ram_size, tb.ram_size)]:
        assert tb.ram[prev:a] == bytearray(a - prev), f"RAM written in the gap {prev:#x}..{a:#x}"
        prev = b
    n_bad = sum(1 for f in plan if f)
    n_unexp = 3 + len([i for i in range(len(plan)) if i % 8 == 3])
    assert tb.unexpected_sent == n_unexp
    assert tb.bad_sent == n_bad + n_unexp - 1, "the bench sent one bad completion per fault and unexpected one"
    counters = {k: int(getattr(dut, "stat_" + k).value)
                for k in ("cpl_discarded", "err_poison", "err_ur", "err_ca", "err_timeout", "cpl_unexpected",
                          "desc_done")}
    want = {"cpl_discarded": tb.bad_sent,
            "err_poison": sum(1 for v in status_want.values() if v == DMA_ERR_POISON),
            "err_ur": sum(1 for v in status_want.values() if v == DMA_ERR_UR),
            "err_ca": sum(1 for v in status_want.values() if v == DMA_ERR_CA),
            "err_timeout": 0, "cpl_unexpected": n_unexp, "desc_done": len(plan)}
    assert counters == want, f"counters {counters} != {want}"
    # and the engine goes on: a good descriptor after all of that
    tb.status.clear()
    tb.fault_addr.clear()
    await tb.submit(HOST_BASE + 0xF0003, ram_cursor + 65, 3000, 200)
    await tb.wait_status(1)
    check(tb, {200: (HOST_BASE + 0xF0003, ram_cursor + 65, 3000)})
    assert int(dut.stat_cpl_discarded.value) == tb.bad_sent
    dut._log.info("%d descriptors (up to %d in flight), %d discontinued completions, %d cycles", len(plan) + 1,
                  most_in_flight, tb.bad_sent, tb.cycle)


@cocotb.test()
async def test_discontinued_no_stalls(dut):
    await discontinued(dut, beryl_seed.seed(9, "test_discontinued_no_stalls"), 0.0, 0.0)


@cocotb.test()
async def test_discontinued_idle(dut):
    await discontinued(dut, beryl_seed.seed(10, "test_discontinued_idle"), 0.5, 0.0)


@cocotb.test()
async def test_discontinued_backpressure(dut):
    await discontinued(dut, beryl_seed.seed(11, "test_discontinued_backpressure"), 0.0, 0.5)


@cocotb.test()
async def test_discontinued_idle_and_backpressure(dut):
    await discontinued(dut, beryl_seed.seed(12, "test_discontinued_idle_and_backpressure"), 0.3, 0.3)


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
