# SPDX-License-Identifier: MIT
"""Python client of beryl-sim (protocol: docs/sim_protocol.md).

    from sim.client import SimClient
    c = SimClient("/tmp/beryl-sim.sock")     # connects and says HELLO
    v = c.read32(0)                           # BAR0 read
    c.write32(0x20000, 1)                     # BAR0 write (posted)
    addr, buf = c.alloc(4096)                 # host memory: bus address + writable memoryview
    vec = c.wait_irq(timeout=5.0)             # MSI-X vector, or None
    c.stats()                                 # dict
    c.gen(port=0, count=1000, length=1514)    # port 0 RX: 1000 frames at line rate (GEN)
    c.port_stats(0)                           # STATS of one port (generator, TX window)
    c.close()                                 # BYE
    c1 = SimClient("/tmp/beryl-sim.sock.1")   # NIC 1 of `beryl-sim --nics 2` (its own BAR0, memory, ports)

For the async driver model (tb/model/beryl_nic.py): `c.aread32`, `c.awrite32`, `c.alloc`.
The shared-memory allocator is a bump allocator with 64-byte alignment (free() is not needed
for tests; `reset_alloc()` starts over).
"""
import collections
import json
import mmap
import os
import select
import socket
import struct
import time

PROTO_VERSION = 1
HELLO, READ32, WRITE32, IRQ, STATS, ERROR, BYE, GEN = range(1, 9)
_HDR = struct.Struct("<IIQQ")


class SimError(Exception):
    """The simulator refused something or went away."""


class SimClient:
    def __init__(self, path="/tmp/beryl-sim.sock", timeout=60.0, connect_timeout=10.0):
        self.timeout = timeout
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.sock.close()
                if time.monotonic() > deadline:
                    raise SimError(f"no simulator listening on {path}")
                time.sleep(0.05)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        self.buf = bytearray()
        self.irqs = collections.deque()
        self.info = self._hello()
        fd = os.open(self.info["shm"], os.O_RDWR)
        try:
            self.mem = mmap.mmap(fd, self.info["mem_size"])
        finally:
            os.close(fd)
        self.view = memoryview(self.mem)
        self.mem_base = self.info["mem_base"]
        self._next = 0

    # ------------------------------------------------------------------ transport
    def _send(self, typ, addr=0, data=0, payload=b""):
        self.sock.sendall(_HDR.pack(typ, len(payload), addr, data) + payload)

    def _recv_msg(self, timeout):
        """One message (type, addr, data, payload), or None on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 24:
                typ, ln, addr, data = _HDR.unpack_from(self.buf)
                if len(self.buf) >= 24 + ln:
                    payload = bytes(self.buf[24:24 + ln])
                    del self.buf[:24 + ln]
                    if typ == ERROR:
                        raise SimError(payload.decode(errors="replace"))
                    return typ, addr, data, payload
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return None
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise SimError("simulator closed the connection")
            self.buf += chunk

    def _reply(self, want):
        """Next reply of type `want`; IRQs met on the way are queued."""
        while True:
            m = self._recv_msg(self.timeout)
            if m is None:
                raise SimError(f"no reply (type {want}) within {self.timeout} s")
            if m[0] == IRQ:
                self.irqs.append(m[2])
                continue
            if m[0] != want:
                raise SimError(f"expected reply type {want}, got {m[0]}")
            return m

    def _hello(self):
        self._send(HELLO, data=PROTO_VERSION)
        _, _, ver, payload = self._reply(HELLO)
        if ver != PROTO_VERSION:
            raise SimError(f"simulator speaks protocol {ver}, this client {PROTO_VERSION}")
        return json.loads(payload)

    # ------------------------------------------------------------------ API
    def read32(self, addr):
        self._send(READ32, addr=addr)
        return self._reply(READ32)[2] & 0xFFFFFFFF

    def write32(self, addr, val):
        self._send(WRITE32, addr=addr, data=val & 0xFFFFFFFF)

    async def aread32(self, addr):
        return self.read32(addr)

    async def awrite32(self, addr, val):
        self.write32(addr, val)

    def stats(self):
        self._send(STATS)
        return json.loads(self._reply(STATS)[3])

    def gen(self, port, count, length=None, frame=None):
        """Start port `port`'s RX frame generator: `count` frames back to back at line rate, each
        `length` bytes (the frame without FCS; a default frame with the frame number at byte 14)
        or the bytes of `frame`. Also restarts the port's measurement window (STATS ports[port]
        win_tx_* and gen_*). count 0 only restarts the window. Posted: no reply."""
        payload = b"" if frame is None else bytes(frame)
        if frame is None and count and length is None:
            raise ValueError("gen() needs length or frame")
        ln = len(payload) if frame is not None else (length or 0)
        self._send(GEN, addr=port, data=(count & 0xFFFFFFFF) | (ln & 0xFFFFFFFF) << 32, payload=payload)

    def port_stats(self, port):
        """STATS of one port, with cycle stamps also in ns (`*_ns`, None where the cycle is -1)."""
        s = self.stats()
        p = dict(s["ports"][port])
        ns = 1e9 / s["clock_hz"]
        for k in ("win_tx_first", "win_tx_last", "gen_first", "gen_last"):
            c = p.get(k + "_cycle", -1)
            p[k + "_ns"] = None if c < 0 else c * ns
        p["cycles"] = s["cycles"]
        return p

    def poll_irqs(self):
        """Take the IRQs that have arrived so far (without blocking)."""
        while True:
            m = self._recv_msg(0)
            if m is None:
                break
            if m[0] == IRQ:
                self.irqs.append(m[2])
        out = list(self.irqs)
        self.irqs.clear()
        return out

    def wait_irq(self, timeout=10.0):
        """Next MSI-X vector, or None after `timeout` seconds."""
        if self.irqs:
            return self.irqs.popleft()
        deadline = time.monotonic() + timeout
        while True:
            m = self._recv_msg(max(0.0, deadline - time.monotonic()))
            if m is None:
                return None
            if m[0] == IRQ:
                return m[2]

    def alloc(self, size, align=64):
        """(bus address, writable memoryview) of `size` zeroed bytes of host memory."""
        off = (self._next + align - 1) & ~(align - 1)
        if off + size > len(self.mem):
            raise SimError(f"host memory exhausted ({len(self.mem)} bytes)")
        self._next = off + size
        v = self.view[off:off + size]
        v[:] = bytes(size)
        return self.mem_base + off, v

    def reset_alloc(self):
        self._next = 0

    def close(self):
        try:
            self._send(BYE)
        except OSError:
            pass
        self.sock.close()
        try:
            self.view.release()
            self.mem.close()
        except BufferError:   # the caller still holds slices of host memory
            pass
