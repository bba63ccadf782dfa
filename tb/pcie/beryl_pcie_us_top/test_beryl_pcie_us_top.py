# SPDX-License-Identifier: MIT
"""System test of the PCIe subsystem through cocotbext-pcie's root complex and UltraScale+ model.

The host side is the third-party model: enumeration, BAR accesses, host memory, MSI-X delivery
and its UR/CA completions. The test acts as the driver: it finds register blocks by walking the
chain, and moves data host -> device RAM -> host with random sizes and alignments, comparing the
returned copy with the source byte for byte.
"""
import os
import random
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge, Timer, with_timeout
from cocotbext.axi import Region
from cocotbext.pcie.core.caps import PciCapId

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "model"))
import beryl_regs as R  # noqa: E402
import beryl_seed  # noqa: E402
from beryl_pcie_tb import PcieSystemTB  # noqa: E402

DMA_OK, DMA_ERR_TIMEOUT, DMA_ERR_UR, DMA_ERR_CA, DMA_ERR_POISON, DMA_ERR_LEN = range(6)
GIT_HASH = 0x1234ABCD


class GapMonitor:
    """Counts mid-TLP tvalid gaps on RQ and CC: PG213 discards such packets."""

    def __init__(self, dut):
        self.gaps = 0
        for p in ("m_axis_rq", "m_axis_cc"):
            cocotb.start_soon(self._run(dut, p))

    async def _run(self, dut, p):
        valid, ready, last = (getattr(dut, f"{p}_{s}") for s in ("tvalid", "tready", "tlast"))
        in_pkt = False
        while True:
            await RisingEdge(dut.clk)
            v = int(valid.value)
            if in_pkt and not v:
                self.gaps += 1
            if v and int(ready.value):
                in_pkt = not int(last.value)


class SlowRegion(Region):
    """Host memory that answers reads only after `delay_us`: the DMA engine must time out."""

    def __init__(self, size, delay_us):
        super().__init__(size)
        self.delay_us = delay_us

    async def read(self, addr, length, **kwargs):
        await Timer(self.delay_us, "us")
        return bytearray(length)

    async def write(self, addr, data, **kwargs):
        pass


class BrokenRegion(Region):
    """Host memory whose reads fail: the root complex answers with Completer Abort."""

    async def read(self, addr, length, **kwargs):
        raise IOError("read fails")

    async def write(self, addr, data, **kwargs):
        pass


async def setup(dut, **kw):
    tb = PcieSystemTB(dut, **kw)
    tb.gaps = GapMonitor(dut)
    await tb.init()
    return tb


@cocotb.test()
async def test_enumeration_and_registers(dut):
    tb = await setup(dut)
    names = [b.name for b in tb.blocks]
    assert names == ["id", "pcie", "msix"], names
    for b in tb.blocks:
        assert b.type == R.BLOCKS[b.name]["type"]
        assert b.version == R.BLOCKS[b.name]["version"]

    # identity
    pci_id = await tb.read_reg("id", "pci_id")
    assert pci_id & 0xFFFF == 0x1234 and pci_id >> 16 == 0xBE01, hex(pci_id)
    assert await tb.read_reg("id", "git_hash") == GIT_HASH
    assert await tb.read_reg("id", "beryl_version") == R.BERYL_RELEASE
    await tb.write32(tb.reg("id", "scratch"), 0xA5A55A5A)
    assert await tb.read_reg("id", "scratch") == 0xA5A55A5A

    # PCIe block: build parameters and what enumeration negotiated
    cap = tb.dev.functions[0].pcie_cap
    assert await tb.read_reg("pcie", "tlp_data_w") == tb.width
    assert await tb.read_reg("pcie", "dma_tag_count") == 256
    assert await tb.read_reg("pcie", "dma_rd_len_max") == 65536
    assert await tb.read_reg("pcie", "ram_size") == 1 << len(dut.rd_desc_ram_addr)
    link = await tb.read_reg("pcie", "link_status")
    assert link & 0xF == 3 and (link >> 4) & 0x3F == (16 if tb.width == 512 else 8), hex(link)
    host = await tb.read_reg("pcie", "host_cfg")
    assert host & 7 == cap.max_payload_size
    assert (host >> 4) & 7 == cap.max_read_request_size
    assert (host >> 8) & 1 == 1 and (host >> 9) & 1 == 1, hex(host)

    # MSI-X block
    assert await tb.read_reg("msix", "vector_count") == 32
    assert await tb.read_reg("msix", "table_offset") == R.MSIX_TABLE_BASE
    assert await tb.read_reg("msix", "pba_offset") == R.MSIX_PBA_BASE

    # every register of every block reads; read-only registers ignore writes
    for b in tb.blocks:
        regs = [k for k in dir(R) if k.startswith(b.name.upper() + "_") and k.endswith("_OFFSET")
                and not k.endswith("_BLOCK_OFFSET")]
        assert len(regs) >= 3
        for k in regs:
            off = b.offset + getattr(R, k)
            before = await tb.read32(off)
            if k in ("ID_SCRATCH_OFFSET", "MSIX_TEST_IRQ_OFFSET"):
                continue
            await tb.write32(off, ~before & 0xFFFFFFFF)
            after = await tb.read32(off)
            if "COUNT" in k or "BYTES" in k:
                continue     # counters may move
            assert after == before, f"{k}: RO register changed {before:#x} -> {after:#x}"

    # unmapped space: reads return all-ones, writes vanish, both counted
    rd0 = await tb.read_reg("pcie", "unmapped_rd_count")
    wr0 = await tb.read_reg("pcie", "unmapped_wr_count")
    assert await tb.read32(0x0F00) == 0xFFFFFFFF
    assert await tb.read32(R.MSIX_TABLE_BASE + 0x2000) == 0xFFFFFFFF   # past the MSI-X window
    await tb.write32(0x0F00, 0x12345678)
    assert await tb.read_reg("pcie", "unmapped_rd_count") == rd0 + 2
    assert await tb.read_reg("pcie", "unmapped_wr_count") == wr0 + 1
    # application window: the harness put a third-party AXI-Lite RAM there; reach it through BAR0
    ram = tb.app_ram
    await tb.write32(R.APP_BASE + 0x1234 * 4, 0xCAFEF00D)
    assert await tb.read32(R.APP_BASE + 0x1234 * 4) == 0xCAFEF00D   # the read also flushes the write
    assert ram.read_dword(0x1234 * 4) == 0xCAFEF00D
    ram.write_dword(0x10, 0x0BADBEEF)
    assert await tb.read32(R.APP_BASE + 0x10) == 0x0BADBEEF
    assert tb.gaps.gaps == 0


async def dma_round_trips(tb, count, max_len, seed, in_flight=4):
    """Host src -> device RAM -> host dst with random sizes and alignments; compare dst to src."""
    rng = random.Random(seed)
    ram_size = 1 << len(tb.dut.rd_desc_ram_addr)
    slot = ram_size // in_flight
    dslot = min(max_len, slot) + 128          # in-flight writes never overlap in host memory
    src, src_mem = tb.alloc_host(1 << 18)
    dst, dst_mem = tb.alloc_host(in_flight * dslot)
    src_mem[:] = rng.randbytes(len(src_mem))
    done = 0
    tag = 0
    while done < count:
        batch = []
        for k in range(min(in_flight, count - done)):
            n = rng.choice([1, 2, 3, 4, 7, 64, 65, 511, 512, 4095, 4096, 4097,
                            rng.randint(1, max_len), rng.randint(1, max_len)])
            n = min(n, max_len, slot - 128)
            so = rng.randint(0, len(src_mem) - n)
            do = k * dslot + rng.randint(0, 127)
            ro = k * slot + rng.randint(0, 127)
            batch.append((n, so, do, ro, tag))
            tag = (tag + 1) & 0xFF
        for n, so, do, ro, t in batch:
            tb.rd.submit(src + so, ro, n, t)
        for n, so, do, ro, t in batch:
            assert await tb.rd.wait(t) == DMA_OK, f"read tag {t} failed"
        for n, so, do, ro, t in batch:
            tb.wr.submit(dst + do, ro, n, t)
        for n, so, do, ro, t in batch:
            assert await tb.wr.wait(t) == DMA_OK, f"write tag {t} failed"
        # posted writes: a read from the host side after the status sees them (the model
        # delivers them in order before any later completion)
        await ClockCycles(tb.dut.clk, 200)
        for n, so, do, ro, t in batch:
            got, want = bytes(dst_mem[do:do + n]), bytes(src_mem[so:so + n])
            if got != want:
                bad = next(i for i in range(n) if got[i] != want[i])
                raise AssertionError(f"len {n} src+{so:#x} ram {ro:#x} dst+{do:#x}: first bad byte {bad}")
        done += len(batch)
    return done


@cocotb.test()
async def test_dma_random(dut):
    tb = await setup(dut)
    await dma_round_trips(tb, 24, 65536, seed=beryl_seed.seed(1, "test_dma_random 64k"))
    await dma_round_trips(tb, 16, 9000, seed=beryl_seed.seed(2, "test_dma_random 9000"), in_flight=8)
    assert tb.gaps.gaps == 0, f"{tb.gaps.gaps} mid-TLP gaps on RQ/CC"
    assert await tb.read_reg("pcie", "dma_rd_desc_count") == 40
    assert await tb.read_reg("pcie", "dma_wr_desc_count") == 40


@cocotb.test()
async def test_dma_random_stalls(dut):
    tb = await setup(dut, seed=beryl_seed.seed(1, "test_dma_random_stalls stalls"))
    tb.set_stalls(idle=0.3, backpressure=0.3)
    await dma_round_trips(tb, 16, 20000, seed=beryl_seed.seed(3, "test_dma_random_stalls both"))
    tb.set_stalls(idle=0.0, backpressure=0.6)
    await dma_round_trips(tb, 8, 8192, seed=beryl_seed.seed(4, "test_dma_random_stalls bp"))
    assert tb.gaps.gaps == 0, f"{tb.gaps.gaps} mid-TLP gaps on RQ/CC"


@cocotb.test()
async def test_dma_small_mps_and_mrrs(dut):
    """128-byte payloads and read requests, extended tags off: the engines follow config space."""
    tb = PcieSystemTB(dut)
    tb.gaps = GapMonitor(dut)
    await tb.init(mps=0, mrrs=0, ext_tag=False)
    host = await tb.read_reg("pcie", "host_cfg")
    assert host & 7 == 0 and (host >> 4) & 7 == 0 and (host >> 8) & 1 == 0, hex(host)
    await dma_round_trips(tb, 8, 16384, seed=beryl_seed.seed(5, "test_dma_small_mps_and_mrrs"))


@cocotb.test()
async def test_dma_errors(dut):
    tb = await setup(dut)
    ram_size = 1 << len(dut.rd_desc_ram_addr)
    # UR: an address no host memory region covers (far above the model's memory pool)
    tb.rd.submit(0x0000_4000_0000_0000, 0, 512, 1)
    assert await tb.rd.wait(1) == DMA_ERR_UR
    # CA: host memory whose reads fail
    tb.rc.mem_address_space.register_region(BrokenRegion(0x10000), 0x50_0000_0000)
    tb.rd.submit(0x50_0000_0000 + 100, 0, 3000, 2)
    assert await tb.rd.wait(2) == DMA_ERR_CA
    # timeout: host memory that answers after 200 us (timeout is 20000 cycles = 80 us)
    tb.rc.mem_address_space.register_region(SlowRegion(0x10000, 200), 0x60_0000_0000)
    tb.rd.submit(0x60_0000_0000, 0, 256, 3)
    assert await tb.rd.wait(3) == DMA_ERR_TIMEOUT
    assert await tb.read_reg("pcie", "dma_rd_cpl_unexpected_count") == 0
    await Timer(150, "us")   # let the late completion arrive and be dropped
    # the root complex answers the 256-byte read with completions of at most its MPS, each dropped
    late_cpls = -(-256 // (128 << tb.rc.max_payload_size))
    assert await tb.read_reg("pcie", "dma_rd_cpl_unexpected_count") == late_cpls
    assert await tb.read_reg("pcie", "dma_rd_err_ur_count") == 1
    assert await tb.read_reg("pcie", "dma_rd_err_ca_count") == 1
    assert await tb.read_reg("pcie", "dma_rd_err_timeout_count") == 1
    # bad lengths
    tb.rd.submit(0x1000, 0, 0, 4)
    assert await tb.rd.wait(4) == DMA_ERR_LEN
    tb.wr.submit(0x1000, 0, 0, 5)
    assert await tb.wr.wait(5) == DMA_ERR_LEN
    # the engines recover
    await dma_round_trips(tb, 4, 20000, seed=beryl_seed.seed(6, "test_dma_errors"))
    assert ram_size


@cocotb.test()
async def test_msix(dut):
    tb = await setup(dut)
    nvec = await tb.ep.alloc_irq_vectors(32, 32)
    assert nvec == 32
    fired = []

    def handler(k):
        async def h():
            fired.append(k)
        return h
    for k in range(32):
        tb.ep.request_irq(k, handler(k))

    async def wait_fired(k, us=20):
        for _ in range(us * 250):
            if k in fired:
                return True
            await RisingEdge(dut.clk)
        return False

    # from the test-interrupt register and from the client port
    await tb.write32(tb.reg("msix", "test_irq"), 5)
    assert await wait_fired(5)
    dut.irq_index.value = 17
    dut.irq_valid.value = 1
    while True:
        await RisingEdge(dut.clk)
        if int(dut.irq_ready.value):
            break
    dut.irq_valid.value = 0
    assert await wait_fired(17)
    assert await tb.read_reg("msix", "msg_sent_count") == 2

    # vector mask: the request stays pending in the PBA until unmasked
    ctrl = R.MSIX_TABLE_BASE + 9 * 16 + 12
    await tb.write32(ctrl, 1)
    await tb.write32(tb.reg("msix", "test_irq"), 9)
    assert not await wait_fired(9, us=5)
    pba = await tb.read32(R.MSIX_PBA_BASE)
    assert pba >> 9 & 1, hex(pba)
    await tb.write32(ctrl, 0)
    assert await wait_fired(9)
    assert (await tb.read32(R.MSIX_PBA_BASE)) >> 9 & 1 == 0
    assert await tb.read_reg("msix", "msg_deferred_count") == 1

    # function mask (MSI-X capability Message Control bit 14)
    mc = await tb.ep.capability_read_word(PciCapId.MSIX, 2)
    await tb.ep.capability_write_word(PciCapId.MSIX, 2, mc | 0x4000)
    await ClockCycles(dut.clk, 20)
    await tb.write32(tb.reg("msix", "test_irq"), 3)
    assert not await wait_fired(3, us=5)
    await tb.ep.capability_write_word(PciCapId.MSIX, 2, mc & ~0x4000)
    assert await wait_fired(3)

    # a vector the table does not have is dropped, not aliased
    before = list(fired)
    await tb.write32(tb.reg("msix", "test_irq"), 40)
    await ClockCycles(dut.clk, 2000)
    assert fired == before
    assert tb.gaps.gaps == 0


@pytest.mark.parametrize("data_w", [512, 256])
def test_beryl_pcie_us_top(data_w):
    import beryl_sim
    beryl_sim.run("tb_beryl_pcie_us_top", "tb/pcie/beryl_pcie_us_top/tb_beryl_pcie_us_top.f",
                  "test_beryl_pcie_us_top", Path(__file__).parent,
                  testcase=os.environ["TESTCASE"].split(",") if os.environ.get("TESTCASE") else None,
                  parameters={"TLP_DATA_W": data_w, "RAM_ADDR_W": 18, "TIMEOUT_CYCLES": 20000,
                              "GIT_HASH": GIT_HASH})

