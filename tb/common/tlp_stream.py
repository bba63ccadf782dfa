# SPDX-License-Identifier: MIT
"""Drive and observe Beryl's vendor-neutral TLP stream (docs/blocks/pcie_interfaces.md).

A stream `<p>_tlp_*` carries a 128-bit header beside DW-aligned payload:
`hdr` (DW0 in bits [127:96]), `data`, `strb` (one bit per DW), `sop`, `eop`, `valid`,
`ready`, and optional per-TLP sidebands sampled on the sop beat (`bar_id`, ...).

    src = TlpStreamSource(dut, "tx_req", dut.clk, dut.rst)
    src.idle_prob = 0.3                 # random idle cycles
    await src.send(hdr, payload)        # payload: bytes, padded to whole DWs

    sink = TlpStreamSink(dut, "rx_req", dut.clk, dut.rst, sideband=["bar_id"])
    sink.backpressure_prob = 0.3        # random ready deassertion
    tlp = await sink.recv()             # TlpFrame(hdr, payload, side); unpacks as hdr, payload

Python work per clock edge is kept small: one coroutine per stream, a few signal reads.
"""
import random
from collections import deque

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import Event, RisingEdge


class TlpFrame:
    """One TLP: `hdr` (128-bit int, DW0 in the top bits), `payload` (bytes), `side` (dict)."""

    def __init__(self, hdr, payload=b"", side=None):
        self.hdr = hdr
        self.payload = bytes(payload)
        self.side = dict(side or {})

    def __iter__(self):
        """Unpacks as `hdr, payload = await sink.recv()`."""
        return iter((self.hdr, self.payload))

    def hdr_dw(self, i):
        """Header DW i (0 = first DW on the wire)."""
        return (self.hdr >> (96 - 32 * i)) & 0xFFFFFFFF

    def __repr__(self):
        return (f"TlpFrame(hdr={self.hdr:032x}, len={len(self.payload)}, "
                f"side={self.side}, payload={self.payload[:16].hex()}...)")


def _sig(dut, prefix, name):
    return getattr(dut, f"{prefix}_tlp_{name}")


class TlpStreamSource:
    """Drives `<prefix>_tlp_*`. `idle_prob`: chance of holding valid low in a cycle;
    with `idle_between_tlps_only` idles are inserted only before a TLP's first beat."""

    def __init__(self, dut, prefix, clock, reset=None, seed=None):
        self.clock = clock
        self.reset = reset
        self.hdr = _sig(dut, prefix, "hdr")
        self.data = _sig(dut, prefix, "data")
        self.strb = _sig(dut, prefix, "strb")
        self.sop = _sig(dut, prefix, "sop")
        self.eop = _sig(dut, prefix, "eop")
        self.valid = _sig(dut, prefix, "valid")
        self.ready = _sig(dut, prefix, "ready")
        self.width = len(self.data)
        self.dws = self.width // 32
        self.idle_prob = 0.0
        self.idle_between_tlps_only = False
        self.rng = random.Random(seed)
        self.beats = deque()
        self.idle_event = Event()
        self.idle_event.set()
        self.frames_sent = 0
        for s in (self.hdr, self.data, self.strb, self.sop, self.eop, self.valid):
            s.value = 0
        cocotb.start_soon(self._run())

    def send_nowait(self, hdr, payload=b""):
        payload = bytes(payload)
        if len(payload) % 4:
            payload += bytes(4 - len(payload) % 4)
        ndw = len(payload) // 4
        bpb = self.dws * 4
        nbeats = max(1, -(-ndw // self.dws))
        for k in range(nbeats):
            chunk = payload[k * bpb:(k + 1) * bpb]
            n = len(chunk) // 4
            self.beats.append((hdr, int.from_bytes(chunk, "little"), (1 << n) - 1,
                               int(k == 0), int(k == nbeats - 1)))
        self.idle_event.clear()

    async def send(self, hdr, payload=b""):
        self.send_nowait(hdr, payload)

    def idle(self):
        return not self.beats and not int(self.valid.value)

    async def wait(self):
        while not self.idle():
            self.idle_event.clear()
            await self.idle_event.wait()

    async def _run(self):
        driving = False
        edge = RisingEdge(self.clock)
        while True:
            await edge
            if self.reset is not None and int(self.reset.value):
                self.valid.value = 0
                driving = False
                continue
            if driving and int(self.ready.value):
                b = self.beats.popleft()
                if b[4]:
                    self.frames_sent += 1
                driving = False
            if driving:
                continue  # hold the beat until it is taken
            if self.beats:
                nxt = self.beats[0]
                may_idle = nxt[3] or not self.idle_between_tlps_only
                if not (may_idle and self.idle_prob and self.rng.random() < self.idle_prob):
                    hdr, data, strb, sop, eop = nxt
                    self.hdr.value = hdr
                    self.data.value = data
                    self.strb.value = strb
                    self.sop.value = sop
                    self.eop.value = eop
                    self.valid.value = 1
                    driving = True
                    continue
            self.valid.value = 0
            if not self.beats:
                self.idle_event.set()


class TlpStreamSink:
    """Collects TLPs from `<prefix>_tlp_*`. `backpressure_prob`: chance of holding ready
    low in a cycle. Checks the stream rules: strb contiguous from bit 0, full beats except
    the last, header and sidebands constant over a TLP, sop/eop framing."""

    def __init__(self, dut, prefix, clock, reset=None, sideband=(), seed=None):
        self.clock = clock
        self.reset = reset
        self.hdr = _sig(dut, prefix, "hdr")
        self.data = _sig(dut, prefix, "data")
        self.strb = _sig(dut, prefix, "strb")
        self.sop = _sig(dut, prefix, "sop")
        self.eop = _sig(dut, prefix, "eop")
        self.valid = _sig(dut, prefix, "valid")
        self.ready = _sig(dut, prefix, "ready")
        self.side_sigs = {name: _sig(dut, prefix, name) for name in sideband}
        self.width = len(self.data)
        self.dws = self.width // 32
        self.backpressure_prob = 0.0
        self.rng = random.Random(seed)
        self.queue = Queue()
        self.beats = 0
        self.ready.value = 0
        cocotb.start_soon(self._run())

    def count(self):
        return self.queue.qsize()

    def empty(self):
        return self.queue.empty()

    async def recv(self):
        return await self.queue.get()

    def recv_nowait(self):
        return self.queue.get_nowait()

    async def _run(self):
        edge = RisingEdge(self.clock)
        frame = None
        full = (1 << self.dws) - 1
        while True:
            await edge
            if self.reset is not None and int(self.reset.value):
                self.ready.value = 0
                frame = None
                continue
            if int(self.ready.value) and int(self.valid.value):
                self.beats += 1
                sop, eop = int(self.sop.value), int(self.eop.value)
                strb = int(self.strb.value)
                hdr = int(self.hdr.value)
                assert strb & (strb + 1) == 0, f"strb not contiguous: {strb:#x}"
                assert eop or strb == full, f"non-final beat not full: strb {strb:#x}"
                if sop:
                    assert frame is None, "sop inside a TLP"
                    side = {k: int(s.value) for k, s in self.side_sigs.items()}
                    frame = [hdr, bytearray(), side]
                else:
                    assert frame is not None, "beat without sop"
                    assert hdr == frame[0], "header changed inside a TLP"
                n = bin(strb).count("1")
                frame[1] += int(self.data.value).to_bytes(self.width // 8, "little")[:4 * n]
                if eop:
                    self.queue.put_nowait(TlpFrame(frame[0], frame[1], frame[2]))
                    frame = None
            bp = self.backpressure_prob
            self.ready.value = 0 if (bp and self.rng.random() < bp) else 1
