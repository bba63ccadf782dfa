# SPDX-License-Identifier: MIT
"""Python driver model of the Beryl NIC (test benches): what a real driver does, nothing more.

    dev = await NicDevice.open(read32, write32, alloc)
    nif = dev.interfaces[0]
    await nif.start(txq_count=4, rxq_count=4)
    await nif.send(frame, txq=1)                     # or send(frame, csum=(start, offset))
    cpls = await nif.poll_tx()                       # list of Completion
    frames = await nif.poll_rx()                     # list of (bytes, Completion)

read32/write32 are async BAR0 accessors; alloc(size) returns (bus address, writable buffer) of
zeroed host memory. Everything is found by walking the register chain, with offsets, fields and
formats from the generated register module (beryl_regs) and docs/blocks/nic_core.md:
producer-pointer doorbells, completions and events with a phase bit, no pointer reads on the
data path.
"""
import struct
from dataclasses import dataclass

try:
    from . import beryl_regs as R
    from .beryl_discover import discover
except ImportError:  # tb/model on sys.path
    import beryl_regs as R
    from beryl_discover import discover

TXQ, RXQ, CQ, EQ = range(4)
DESC_BYTES, CPL_BYTES = 16, 32
FLAG_MORE, FLAG_CSUM = 1, 2
CPL_OK, CPL_TOO_LONG, CPL_DMA_ERR, CPL_BAD_DESC, CPL_UNUSED = range(5)
FIELD = {"base_lo": "Q_BASE_LO", "base_hi": "Q_BASE_HI", "ctrl": "Q_CTRL", "target": "Q_TARGET",
         "prod": "Q_PROD", "cons": "Q_CONS"}
PARAMS = ("IF_INDEX", "IF_COUNT", "PORT_COUNT", "TXQ_COUNT", "RXQ_COUNT", "CQ_COUNT", "EQ_COUNT",
          "TX_SLOTS", "RX_SLOTS", "MAX_FRAME", "RSS_TABLE_SIZE", "DESC_BATCH", "CPL_BATCH",
          "MAX_DESC_PER_PKT", "FEATURES")
# the interface counters by reason: the registers TX_PKTS .. IRQ_MERGED (per-port ones follow them),
# and TX_DESC_RETRY, TX_DATA_RETRY, RX_DESC_RETRY (placed after the scheduler registers)
COUNTERS = [n for n, b in R.BLOCKS["nic_if"]["regs"].items()
            if R.NIC_IF_TX_PKTS_OFFSET <= b["offset"] <= R.NIC_IF_IRQ_MERGED_OFFSET] + ["TX_DESC_RETRY", "TX_DATA_RETRY", "RX_DESC_RETRY"]


class NicError(Exception):
    """Misuse or a device the model cannot drive; the message says which."""


@dataclass
class Completion:
    queue: int
    index: int
    port: int
    status: int
    hash_type: int
    flags: int
    rss_hash: int
    csum: int
    length: int
    timestamp: int

    @classmethod
    def parse(cls, b):
        q, idx, port, status, ht, flags, h, csum, ln, ts = struct.unpack_from("<HHBBBBIHHQ", b)
        return cls(q, idx, port, status, ht & 7, flags, h, csum, ln, ts)


class Ring:
    """A ring in host memory: 2**log_size entries of `stride` bytes, 16-bit free-running pointers."""

    def __init__(self, alloc, log_size, stride):
        self.size, self.stride, self.log_size = 1 << log_size, stride, log_size
        self.addr, self.mem = alloc(self.size * stride)
        self.prod = self.cons = 0

    def slot(self, ptr):
        return (ptr & (self.size - 1)) * self.stride

    def free(self):
        return self.size - ((self.prod - self.cons) & 0xFFFF)

    def entry_ready(self):
        """The entry at cons, if the device has written it (its phase bit says so)."""
        off = self.slot(self.cons)
        phase = self.mem[off + self.stride - 1] >> 7
        want = 1 ^ ((self.cons >> self.log_size) & 1)
        return bytes(self.mem[off:off + self.stride]) if phase == want else None


def buffers(alloc, count, size):
    """`count` host buffers of `size` bytes carved from one allocation: [(bus address, view)]."""
    addr, mem = alloc(count * size)
    view = memoryview(mem)
    return [(addr + i * size, view[i * size:(i + 1) * size]) for i in range(count)]


class NicInterface:
    def __init__(self, dev, base):
        self.dev, self.base = dev, base
        self.p = {}
        self.txq, self.rxq, self.cq = {}, {}, {}
        self.txq_cq = {}       # TX queue -> its completion queue
        self.eq = None
        self.tx_pending = {}   # (txq, first index) -> descriptors of the packet
        self.tx_failed = {}    # txq -> (first index, descriptors) of its last packet to complete, if that failed
        self.tx_cpl_inside = 0  # error completions inside a failed packet consumed (poll_tx)
        self.rx_buf_size = 0
        self.events = 0
        self.irq = False

    # ---------------------------------------------------------------- registers
    def off(self, name):
        return self.base + getattr(R, f"NIC_IF_{name}_OFFSET")

    async def rd(self, name):
        return await self.dev.read32(self.off(name))

    async def wr(self, name, val):
        await self.dev.write32(self.off(name), val & 0xFFFFFFFF)

    async def load_params(self):
        for n in PARAMS:
            self.p[n] = await self.rd(n)

    async def q_select(self, qtype, idx):
        await self.wr("Q_SEL", (qtype << R.NIC_IF_Q_SEL_TYPE_LSB) | idx)

    async def q_write(self, qtype, idx, **fields):
        await self.q_select(qtype, idx)
        for k, v in fields.items():
            await self.wr(FIELD[k], v)
            if await self.rd("Q_STATUS") & 1:
                raise NicError(f"queue {qtype}/{idx}: write of {k} refused")

    async def q_read(self, qtype, idx):
        await self.q_select(qtype, idx)
        out = {k: await self.rd(reg) for k, reg in FIELD.items()}
        if await self.rd("Q_STATUS") & 1:
            raise NicError(f"queue {qtype}/{idx}: out of range")
        ctrl = out["ctrl"]
        out.update(enable=ctrl & 1, armed=(ctrl >> 1) & 1, log_size=(ctrl >> 8) & 15, port=(ctrl >> 16) & 255,
                   base=out["base_hi"] << 32 | out["base_lo"])
        return out

    async def setup_queue(self, qtype, idx, ring, target, port=0, enable=True, armed=False):
        limit = self.p[("TXQ_COUNT", "RXQ_COUNT", "CQ_COUNT", "EQ_COUNT")[qtype]]
        if idx >= limit:
            raise NicError(f"queue {idx} out of range (this build has {limit})")
        if ring.log_size > 15:
            raise NicError(f"ring of 2^{ring.log_size} entries is too large (at most 2^15)")
        await self.q_write(qtype, idx, ctrl=0)
        await self.q_write(qtype, idx, base_lo=ring.addr, base_hi=ring.addr >> 32,
                           ctrl=ring.log_size << 8 | port << 16, target=target, prod=0, cons=0)
        await self.q_write(qtype, idx, ctrl=ring.log_size << 8 | port << 16 | int(armed) << 1 | int(enable))

    async def set_queue_enable(self, qtype, idx, enable):
        q = await self.q_read(qtype, idx)
        await self.q_write(qtype, idx, ctrl=(q["ctrl"] & ~1) | int(enable))

    async def doorbell(self, qtype, idx, ptr, arm=False):
        name = ("TXQ_DB", "RXQ_DB", "CQ_DB_ARM" if arm else "CQ_DB", "EQ_DB_ARM" if arm else "EQ_DB")[qtype]
        await self.wr(name, (ptr & 0xFFFF) << 16 | idx)

    # ---------------------------------------------------------------- bring-up
    async def start(self, txq_count=1, rxq_count=1, log_size=8, rx_buf_size=2048, tx_buf_size=2048,
                    vector=0, irq_interval=0, ports=None, irq=False, rx_log_size=None):
        """Open txq_count TX and rxq_count RX queues, each with its own completion queue; all
        completion queues report to event queue 0 (MSI-X `vector`). TX queue i transmits on
        port ports[i] (default i mod PORT_COUNT). RX rings (2^rx_log_size entries, default
        2^log_size) are filled with buffers. irq=True arms the queues (events and interrupts,
        re-armed after each poll); otherwise the driver polls and nothing is armed."""
        alloc = self.dev.alloc
        if txq_count > self.p["TXQ_COUNT"] or rxq_count > self.p["RXQ_COUNT"]:
            raise NicError("more queues asked for than the build has")
        if txq_count + rxq_count > self.p["CQ_COUNT"]:
            raise NicError("not enough completion queues")
        self.tx_buf_size, self.rx_buf_size = tx_buf_size, rx_buf_size
        self.irq = irq
        rx_log_size = log_size if rx_log_size is None else rx_log_size
        self.eq = Ring(alloc, max(log_size, rx_log_size) + 1, CPL_BYTES)
        await self.setup_queue(EQ, 0, self.eq, target=vector | irq_interval << 16, armed=irq)
        for i in range(txq_count):
            cq = Ring(alloc, log_size, CPL_BYTES)
            self.cq[i] = cq
            await self.setup_queue(CQ, i, cq, target=0, armed=irq)
            ring = Ring(alloc, log_size, DESC_BYTES)
            ring.bufs = buffers(alloc, ring.size, tx_buf_size)
            self.txq[i] = ring
            self.txq_cq[i] = i
            self.tx_failed.pop(i, None)
            port = ports[i] if ports else i % self.p["PORT_COUNT"]
            await self.setup_queue(TXQ, i, ring, target=i, port=port)
        for j in range(rxq_count):
            cqi = txq_count + j
            cq = Ring(alloc, rx_log_size, CPL_BYTES)
            self.cq[cqi] = cq
            await self.setup_queue(CQ, cqi, cq, target=0, armed=irq)
            ring = Ring(alloc, rx_log_size, DESC_BYTES)
            ring.bufs = buffers(alloc, ring.size, rx_buf_size)
            ring.cq = cqi
            self.rxq[j] = ring
            await self.setup_queue(RXQ, j, ring, target=cqi)
            await self.refill(j)

    async def add_txq(self, txq, cq, log_size=6, port=0):
        """Open one more TX queue `txq` with its own completion queue `cq` (any free indexes)."""
        alloc = self.dev.alloc
        ring = Ring(alloc, log_size, CPL_BYTES)
        self.cq[cq] = ring
        await self.setup_queue(CQ, cq, ring, target=0, armed=self.irq)
        ring = Ring(alloc, log_size, DESC_BYTES)
        ring.bufs = buffers(alloc, ring.size, self.tx_buf_size)
        self.txq[txq] = ring
        self.txq_cq[txq] = cq
        self.tx_failed.pop(txq, None)
        await self.setup_queue(TXQ, txq, ring, target=cq, port=port)

    async def refill(self, rxq, count=None):
        """Post empty buffers to RX queue rxq (all free slots, or `count`)."""
        ring = self.rxq[rxq]
        n = ring.free() if count is None else min(count, ring.free())
        for _ in range(n):
            addr, _ = ring.bufs[ring.slot(ring.prod) // DESC_BYTES]
            off = ring.slot(ring.prod)
            ring.mem[off:off + DESC_BYTES] = struct.pack("<QII", addr, self.rx_buf_size, 0)
            ring.prod = (ring.prod + 1) & 0xFFFF
        if n:
            await self.doorbell(RXQ, rxq, ring.prod)

    # ---------------------------------------------------------------- data path
    async def send(self, frame, txq=0, csum=None, segments=None, ring_doorbell=True):
        """Queue one frame on TX queue txq. csum=(start, offset) asks for checksum insertion
        (the field must hold the pseudo-header sum, as Linux leaves it). segments: list of
        buffer lengths to split the frame into (default: tx_buf_size pieces). Returns the
        ring index of the first descriptor, or None if the ring is full."""
        ring = self.txq[txq]
        frame = bytes(frame)
        if segments is None:
            segments = [min(self.tx_buf_size, len(frame) - i) for i in range(0, len(frame), self.tx_buf_size)] or [0]
        if sum(segments) != len(frame):
            raise NicError("segments do not add up to the frame length")
        if ring.free() < len(segments):
            return None
        first = ring.prod
        pos = 0
        for k, seg in enumerate(segments):
            slot = ring.slot(ring.prod)
            addr, buf = ring.bufs[slot // DESC_BYTES]
            if seg > len(buf):
                raise NicError(f"segment of {seg} bytes exceeds the {len(buf)}-byte TX buffer")
            buf[:seg] = frame[pos:pos + seg]
            flags = (FLAG_MORE if k + 1 < len(segments) else 0) | (FLAG_CSUM if csum and k == 0 else 0)
            cs, co = csum if csum and k == 0 else (0, 0)
            ring.mem[slot:slot + DESC_BYTES] = struct.pack("<QIHBB", addr, seg, flags, cs, co)
            ring.prod = (ring.prod + 1) & 0xFFFF
            pos += seg
        self.tx_pending[(txq, first)] = len(segments)
        if ring_doorbell:
            await self.doorbell(TXQ, txq, ring.prod)
        return first

    async def kick(self, txq=0):
        await self.doorbell(TXQ, txq, self.txq[txq].prod)

    def _take(self, cqi):
        cq = self.cq[cqi]
        out = []
        while True:
            e = cq.entry_ready()
            if e is None:
                return out
            out.append(Completion.parse(e))
            cq.cons = (cq.cons + 1) & 0xFFFF

    async def _ack(self, cqi):
        await self.doorbell(CQ, cqi, self.cq[cqi].cons, arm=self.irq)

    async def poll_tx(self, txq=None):
        """Completions of TX queue txq (all TX queues if None), one per packet; frees their descriptors.

        A completion names a packet's first descriptor, except after a descriptor fetch that failed
        for good: then the TX engine also completes each descriptor of the failed batch at its own
        index, and the rest of a packet the batch cut once at its first index (docs/blocks/nic_core.md,
        "Failed TX descriptor reads"). Those carry an error status and lie inside the packet that
        completed last, with an error (completions come in ring order): a completion with a status
        other than CPL_OK and an index in (first, first + descriptors) of that packet, modulo 2^16, is
        consumed here (counted in tx_cpl_inside, not returned, frees nothing). Any other completion
        that names no packet sent is a bug: NicError."""
        out = []
        for i in ([txq] if txq is not None else list(self.txq)):
            got = self._take(self.txq_cq[i])
            for c in got:
                start, nd = self.tx_failed.get(i, (0, 0))
                if c.status != CPL_OK and 0 < ((c.index - start) & 0xFFFF) < nd:
                    self.tx_cpl_inside += 1
                    continue
                n = self.tx_pending.pop((i, c.index), None)
                if n is None:
                    raise NicError(f"TX completion for queue {i} index {c.index} (status {c.status}) "
                                   "matches no packet sent")
                self.tx_failed[i] = (c.index, n if c.status != CPL_OK else 0)
                ring = self.txq[i]
                ring.cons = (c.index + n) & 0xFFFF
                out.append(c)
            if got:
                await self._ack(self.txq_cq[i])
        return out

    async def poll_rx(self, rxq=None, refill=True):
        """Frames received on RX queue rxq (all if None), as (bytes, Completion)."""
        out = []
        for j in ([rxq] if rxq is not None else list(self.rxq)):
            ring = self.rxq[j]
            got = self._take(ring.cq)
            for c in got:
                ring.cons = (c.index + 1) & 0xFFFF
                if c.status == CPL_UNUSED:
                    continue    # a prefetched descriptor handed back unused: refill posts its slot again
                _, buf = ring.bufs[ring.slot(c.index) // DESC_BYTES]
                out.append((bytes(buf[:c.length]) if c.status == CPL_OK else b"", c))
            if got:
                await self._ack(ring.cq)
                if refill:
                    await self.refill(j)
        return out

    def poll_events(self):
        """Event entries written since the last call (source completion queues)."""
        out = []
        while self.eq is not None:
            e = self.eq.entry_ready()
            if e is None:
                break
            typ, src = struct.unpack_from("<HH", e)
            out.append((typ, src))
            self.eq.cons = (self.eq.cons + 1) & 0xFFFF
        self.events += len(out)
        return out

    async def ack_events(self):
        await self.doorbell(EQ, 0, self.eq.cons, arm=self.irq)

    # ---------------------------------------------------------------- RSS, statistics
    async def set_rss(self, key=None, table=None, hash_en=0x3F, enable=True, default_queue=0):
        if key is not None:
            if len(key) != 40:
                raise NicError("the RSS key is 40 bytes")
            for i in range(10):
                await self.wr(f"RSS_KEY{i}", int.from_bytes(key[4 * i:4 * i + 4], "little"))
        if table is not None:
            if len(table) != self.p["RSS_TABLE_SIZE"]:
                raise NicError(f"the indirection table has {self.p['RSS_TABLE_SIZE']} entries")
            await self.wr("RSS_TBL_IDX", 0)
            for q in table:
                await self.wr("RSS_TBL_DATA", q)
        await self.wr("RSS_DEFAULT_QUEUE", default_queue)
        await self.wr("RSS_CTRL", int(enable) | hash_en << R.NIC_IF_RSS_CTRL_HASH_EN_LSB)

    async def get_rss_table(self):
        await self.wr("RSS_TBL_IDX", 0)
        return [await self.rd("RSS_TBL_DATA") for _ in range(self.p["RSS_TABLE_SIZE"])]

    async def queue_stats(self, qtype, idx):
        await self.q_select(qtype, idx)
        lo = await self.rd("Q_STAT_PKTS_LO")
        if await self.rd("Q_STATUS") & 1:
            raise NicError(f"no statistics for queue {qtype}/{idx}")
        words = [lo] + [await self.rd(n) for n in ("Q_STAT_PKTS_HI", "Q_STAT_BYTES_LO", "Q_STAT_BYTES_HI",
                                                     "Q_STAT_DROPS_LO", "Q_STAT_DROPS_HI")]
        return {"packets": words[1] << 32 | words[0], "bytes": words[3] << 32 | words[2],
                "drops": words[5] << 32 | words[4]}

    async def counters(self):
        return {n.lower(): await self.rd(n) for n in COUNTERS}

    async def set_ts_corr(self, port, tx_units=None, rx_units=None):
        """Timestamp corrections of a port (signed, 2^-16 ns), added to its TX / RX timestamps; None
        leaves one as it is."""
        await self.wr("PORT_SEL", port)
        if tx_units is not None:
            await self.wr("PORT_TX_TS_CORR", tx_units)
        if rx_units is not None:
            await self.wr("PORT_RX_TS_CORR", rx_units)

    async def port_counters(self, port):
        await self.wr("PORT_SEL", port)
        return {n: await self.rd(f"PORT_{n.upper()}")
                for n in ("tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes", "tx_drops", "rx_drops")}


NS_PER_S = 10**9


def ts_split(ts, ref_sec=0):
    """Completion timestamp {sec[17:0], ns[29:0], fns16} -> (seconds, time within the second in 2^-16 ns).
    The 18-bit seconds are extended to the full value nearest `ref_sec` (a clock read within 2^17 s)."""
    sec_lo, ns, fns = ts >> 46, (ts >> 16) & ((1 << 30) - 1), ts & 0xFFFF
    sec = ref_sec - ((ref_sec - sec_lo) % (1 << 18))
    if ref_sec - sec >= 1 << 17:
        sec += 1 << 18
    return sec, (ns << 16) | fns


def ts_units(ts, ref_sec=0):
    """Completion timestamp -> time of day in units of 2^-16 ns (one integer: exact differences)."""
    sec, nsf = ts_split(ts, ref_sec)
    return (sec * NS_PER_S << 16) + nsf


class PtpClock:
    """The device's PTP hardware clock (regs/beryl_ptp.rdl, docs/blocks/ptp.md)."""

    def __init__(self, dev, base):
        self.dev, self.base = dev, base
        self.nom_incr = 0      # nominal increment, 2^-32 ns

    def off(self, name):
        return self.base + getattr(R, f"PTP_{name}_OFFSET")

    async def rd(self, name):
        return await self.dev.read32(self.off(name))

    async def wr(self, name, val):
        await self.dev.write32(self.off(name), val & 0xFFFFFFFF)

    async def load(self):
        self.nom_incr = (await self.rd("NOM_INCR_NS") << 32) | await self.rd("NOM_INCR_FNS")

    async def get_time(self):
        """Atomic read: (seconds, ns, fns16) of one clock cycle."""
        await self.wr("CMD", R.PTP_CMD_SNAP_MASK)
        fns = await self.rd("SNAP_TOD_FNS")
        ns = await self.rd("SNAP_TOD_NS")
        sec = await self.rd("SNAP_TOD_SEC_LO") | (await self.rd("SNAP_TOD_SEC_HI") << 32)
        return sec, ns, fns

    async def set_time(self, sec, ns, fns=0):
        if not 0 <= ns < NS_PER_S:
            raise NicError(f"set_time: ns {ns} out of range 0..999999999")
        await self.wr("SET_SEC_HI", sec >> 32)
        await self.wr("SET_SEC_LO", sec)
        await self.wr("SET_NS", ns)
        await self.wr("SET_FNS", fns)
        await self.wr("CMD", R.PTP_CMD_SET_TOD_MASK)

    async def adj_time(self, units):
        """Step by a signed offset in 2^-16 ns units (|offset| < 2^31 ns)."""
        if not -(1 << 47) <= units < 1 << 47:
            raise NicError("adj_time: offset beyond +-2^31 ns")
        await self.wr("ADJ_NS", units >> 16)
        await self.wr("ADJ_FNS", units & 0xFFFF)
        await self.wr("CMD", R.PTP_CMD_ADJ_MASK)

    async def adj_freq(self, ppb):
        """Run the clock ppb parts per billion fast (negative: slow) relative to the nominal increment."""
        incr = round(self.nom_incr * (1 + ppb * 1e-9))
        if not 0 < incr < 256 << 32:
            raise NicError(f"adj_freq: {ppb} ppb gives an increment outside the clock's range")
        await self.wr("INCR_NS", incr >> 32)
        await self.wr("INCR_FNS", incr)
        await self.wr("CMD", R.PTP_CMD_INCR_MASK)
        return incr


class NicDevice:
    def __init__(self, read32, write32, alloc):
        self.read32, self.write32, self.alloc = read32, write32, alloc
        self.blocks = []
        self.interfaces = []
        self.ptp = None

    @classmethod
    async def open(cls, read32, write32, alloc):
        dev = cls(read32, write32, alloc)
        dev.blocks = await discover(read32)
        for b in dev.blocks:
            if b.name == "nic_if":
                if b.version >> 24 != R.NIC_IF_BLOCK_VERSION >> 24:
                    raise NicError(f"NIC interface block at 0x{b.offset:x} has version {b.version_str}, "
                                   f"this model drives major {R.NIC_IF_BLOCK_VERSION >> 24}")
                nif = NicInterface(dev, b.offset)
                await nif.load_params()
                dev.interfaces.append(nif)
            elif b.name == "ptp" and b.version >> 24 == R.PTP_BLOCK_VERSION >> 24:
                dev.ptp = PtpClock(dev, b.offset)
                await dev.ptp.load()
        if not dev.interfaces:
            raise NicError("no NIC interface block in the register chain (not a NIC build?)")
        return dev
