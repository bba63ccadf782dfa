# SPDX-License-Identifier: MIT
"""The Python driver model's TX completion handling (tb/model/beryl_nic.py, poll_tx) against a fake
completion queue: completions written into host memory by the test as the TX engine would
(docs/blocks/nic_core.md, "Failed TX descriptor reads"), no device."""
import asyncio
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from model import beryl_nic as N  # noqa: E402


class FakeDev:
    """Host memory and a BAR0 that takes writes (doorbells) and reads 0."""

    def __init__(self):
        self.next_addr = 0x10000
        self.writes = []

    def alloc(self, size):
        addr, self.next_addr = self.next_addr, self.next_addr + size
        return addr, bytearray(size)

    async def read32(self, addr):
        return 0

    async def write32(self, addr, val):
        self.writes.append((addr, val))


class TxQueue:
    """One TX queue (8 descriptors of 256 bytes) of a model interface, its CQ filled by hand."""

    def __init__(self):
        self.dev = FakeDev()
        self.nif = N.NicInterface(self.dev, 0)
        self.nif.tx_buf_size = 256
        ring = N.Ring(self.dev.alloc, 3, N.DESC_BYTES)
        ring.bufs = N.buffers(self.dev.alloc, ring.size, 256)
        self.nif.txq[0], self.nif.cq[0], self.nif.txq_cq[0] = ring, N.Ring(self.dev.alloc, 3, N.CPL_BYTES), 0
        self.cq_prod = 0

    def send(self, length):
        return asyncio.run(self.nif.send(bytes(length)))

    def cpl(self, index, status):
        """The device writes a TX completion (phase bit 1 on the first pass)."""
        cq = self.nif.cq[0]
        e = bytearray(struct.pack("<HHBBBBIHHQ", 0, index, 0, status, 0, 0, 0, 0, 0, 0).ljust(N.CPL_BYTES, b"\0"))
        e[-1] = 0x80 if not (self.cq_prod >> cq.log_size) & 1 else 0
        off = cq.slot(self.cq_prod)
        cq.mem[off:off + N.CPL_BYTES] = e
        self.cq_prod += 1

    def poll(self):
        return [(c.index, c.status) for c in asyncio.run(self.nif.poll_tx(0))]


def test_failed_fetch_completions_consumed():
    """Frames of 3, 2, 1 and 2 descriptors (0..2, 3..4, 5, 6..7); the fetch of 1..3 failed for good:
    P0 (open) completes at 0, each descriptor of the batch at its own index (3 is P1's start), the
    resync skips 4 (the rest of P1); P2 and P3 complete OK. The driver returns one completion per
    packet and consumes the three inside P0 and P1."""
    q = TxQueue()
    assert [q.send(n) for n in (600, 400, 100, 500)] == [0, 3, 5, 6]
    for idx in (0, 1, 2, 3, 4):
        q.cpl(idx, N.CPL_DMA_ERR)
    q.cpl(5, N.CPL_OK)
    assert q.poll() == [(0, N.CPL_DMA_ERR), (3, N.CPL_DMA_ERR), (5, N.CPL_OK)]
    assert q.nif.tx_cpl_inside == 3
    ring = q.nif.txq[0]
    assert ring.cons == 6 and ring.free() == 6
    # the CQ consumer pointer went to the device, inside completions included
    assert q.dev.writes[-1][1] >> 16 == 6
    q.cpl(6, N.CPL_OK)
    assert q.poll() == [(6, N.CPL_OK)] and ring.cons == 8 and ring.free() == 8
    assert q.send(300) == 8        # the ring goes on (wraps)


def test_inside_ok_packet_is_an_error():
    q = TxQueue()
    q.send(600)
    q.cpl(0, N.CPL_OK)
    assert q.poll() == [(0, N.CPL_OK)]
    q.cpl(1, N.CPL_DMA_ERR)
    with pytest.raises(N.NicError, match="index 1 .*matches no packet sent"):
        q.poll()


def test_ok_inside_failed_packet_is_an_error():
    q = TxQueue()
    q.send(600)
    q.send(100)
    q.cpl(0, N.CPL_DMA_ERR)
    q.cpl(1, N.CPL_DMA_ERR)
    assert q.poll() == [(0, N.CPL_DMA_ERR)] and q.nif.tx_cpl_inside == 1
    q.cpl(2, N.CPL_OK)
    with pytest.raises(N.NicError, match="index 2 .*matches no packet sent"):
        q.poll()
    assert q.nif.txq[0].cons == 3, "cons moved back"


def test_inside_failed_packet_after_a_later_one_is_an_error():
    """Completions come in ring order: once a later packet completed, nothing more lies inside an
    earlier one."""
    q = TxQueue()
    q.send(600)
    q.send(100)
    q.cpl(0, N.CPL_DMA_ERR)
    q.cpl(3, N.CPL_OK)
    assert q.poll() == [(0, N.CPL_DMA_ERR), (3, N.CPL_OK)]
    q.cpl(2, N.CPL_DMA_ERR)
    with pytest.raises(N.NicError):
        q.poll()
