# SPDX-License-Identifier: MIT
"""Bench machinery shared by the unit tests of valid/ready stream blocks.

One coroutine per clock samples the input handshake and the output, drives the source (random
idle) and the sink (random ready), and runs the resets a test asks for (what is in flight dropped,
rst held, then a quiet period with no input in which the output must stay idle). `err()` collects
errors; `drain()` waits with a timeout until all sent came out and fails on any error.

- `StreamBench`: clock, rng, `err`, `stall_mode`, `reset`, `drain` and the per-clock loop, which
  calls the hooks `sample(in_rst)`, `on_reset()` and `drive_source()`.
- `PacketBench`: a queue of packets (`.idx`, `.beats`); random garbage on the inputs named in
  `garbage` while valid is low; output beats checked held while valid && !ready, accepted ones go
  to `compare()`. The bench writes `drive_beat`, `read_output`, `compare`, `after_reset`, `pending`.
- `BufferBench`: numbered random words (`send`) into a FIFO-like DUT of `depth` entries: model
  checks (`check_buffer`, `model_pop`, `model_push`) and a mid-cycle combinational-path `probe`.
  The bench writes `sample`; one with another loop (falling-edge drive) overrides `start`/`_run`.

A bench subclasses one, names its DUT signals in the constructor and keeps its own beat format,
reference model and comparison:

    class TB(PacketBench):
        def __init__(self, dut, seed):
            super().__init__(dut, seed, s_valid="s_tlp_valid", s_ready="s_tlp_ready",
                             m_valid="m_axis_tvalid", m_ready="m_axis_tready",
                             garbage={"s_tlp_data": DATA_W, "s_tlp_strb": N, ...})

    tb = TB(dut, seed=51); await tb.start()
    tb.stall_mode(mode, idle=(0.2, 0.5), ready=(0.3, 0.5)); tb.make(...); await tb.drain()
"""
from collections import deque
from types import SimpleNamespace

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, RisingEdge, Timer

import beryl_seed


class StreamBench:
    EDGE = RisingEdge    # the edge drain() polls on (a bench with its own loop may change it)
    QUIET = 6            # cycles after a reset with no input and the output idle
    SETTLE = 8           # cycles drain() waits after the last expected output, for extra ones
    TIMEOUT = 50000      # edges drain() waits at most
    MAX_LOGGED = 20      # errors logged as they happen (all are counted and the first four reported)

    def __init__(self, dut, seed, *, s_valid, s_ready, m_valid, m_ready, s_data=None, m_data=None,
                 period_ns=4):
        self.dut = dut
        self.rng = beryl_seed.rng(seed, dut._name)      # BERYL_SEED reseeds (tb/common/beryl_seed.py)
        roles = dict(s_valid=s_valid, s_ready=s_ready, s_data=s_data, m_valid=m_valid,
                     m_ready=m_ready, m_data=m_data)
        self.name = {role: n for role, n in roles.items() if n}        # role -> DUT signal name
        self.port = SimpleNamespace(**{role: getattr(dut, n) for role, n in self.name.items()})
        self.cycle = 0
        self.idle_prob = 0.0       # source: chance of no beat in a cycle (also inside a packet)
        self.ready_prob = 1.0      # sink: chance of ready in a cycle
        self.probe_prob = 0.0      # chance per cycle of the mid-cycle probe (benches with probe())
        self.in_valid = 0          # the source offers a beat (held until sample() takes it)
        self.ready = 0             # the sink's ready this cycle
        self.errors = []
        self.rst_left = 0          # cycles of rst still to come
        self.reset_req = None      # (cycles in reset, quiet cycles after) requested by a test
        self.reset_done = None     # set when rst drops again
        self.reset_hits = []       # per reset: what it interrupted (on_reset() records it)
        self.quiet = 0             # output must stay idle for this many more samples
        self.quiet_armed = False   # ... from the second of them on
        dut.rst.value = 1
        self.port.s_valid.value = 0
        if s_data:
            self.port.s_data.value = 0
        self.port.m_ready.value = 0
        cocotb.start_soon(Clock(dut.clk, period_ns, "ns").start())

    # --- errors and random choices
    def err(self, msg):
        if len(self.errors) < self.MAX_LOGGED:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def assert_no_errors(self):
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])

    def source_idle(self):
        """Random source idle this cycle (draws from rng only while idle_prob is above 0)."""
        return bool(self.idle_prob) and self.rng.random() < self.idle_prob

    def sink_ready(self):
        """Random sink ready this cycle (draws from rng only while ready_prob is below 1)."""
        return int(self.ready_prob >= 1.0 or self.rng.random() < self.ready_prob)

    def stall_mode(self, mode, idle, ready):
        """Set the stalls of test mode `mode`: bit 0 random source idle, bit 1 random sink
        backpressure (so modes 0-3: none, idle, backpressure, both). idle, ready: (lowest, span)
        of the probability drawn for the mode (idle draws first)."""
        self.idle_prob = (idle[0] + idle[1] * self.rng.random()) if mode & 1 else 0.0
        self.ready_prob = (ready[0] + ready[1] * self.rng.random()) if mode & 2 else 1.0

    # --- the bench coroutine
    async def start(self):
        """Hold rst for 4 cycles, release it, start the per-clock coroutine."""
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        cocotb.start_soon(self._run())

    async def _run(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle += 1
            # --- sample (the values from before the edge): input handshake, output, model
            self.sample(self.rst_left > 0)
            # --- a reset requested by a test: drop what is in flight, hold rst, then stay quiet
            if self.rst_left:
                self.rst_left -= 1
                if not self.rst_left:
                    self.end_reset()
            if self.reset_req is not None:
                self.begin_reset()
            # --- drive the source and the sink
            self.drive_source(bool(self.rst_left or self.quiet))
            self.ready = 0 if self.rst_left else self.sink_ready()
            self.port.m_ready.value = self.ready
            if not self.rst_left and self.probe_prob and self.rng.random() < self.probe_prob:
                await self.probe()

    def sample(self, in_rst):
        """Check what this edge shows and take the handshakes it makes (clear in_valid when the
        beat on offer is taken). in_rst: rst was high at this edge."""
        raise NotImplementedError

    def drive_source(self, blocked):
        """Offer the next beat unless the source is blocked (reset, quiet), out of beats or randomly
        idle; otherwise drive garbage. A beat on offer stays until sample() takes it."""
        if not self.in_valid:
            if not blocked and self.next_beat() and not self.source_idle():
                self.drive_beat()
                self.in_valid = 1
            else:
                self.drive_idle()

    async def probe(self):
        raise NotImplementedError

    # --- resets
    async def reset(self, cycles, quiet=None):
        """Reset now: rst high for `cycles` cycles, then `quiet` (QUIET) cycles with no input.
        Returns in the cycle rst drops."""
        self.reset_req = (cycles, self.QUIET if quiet is None else quiet)
        await self.reset_finished()

    async def reset_finished(self):
        """Wait for the end of a reset just requested (reset_req set now or by a trigger later)."""
        self.reset_done = Event()
        await self.reset_done.wait()

    def begin_reset(self):
        self.rst_left, quiet = self.reset_req
        self.reset_req = None
        self.dut.rst.value = 1
        self.on_reset()
        # the first edge with rst high clears the valid flags; every later sample is idle
        self.quiet = self.rst_left + quiet
        self.quiet_armed = False
        self.in_valid = 0

    def end_reset(self):
        self.dut.rst.value = 0
        if self.reset_done is not None:
            self.reset_done.set()
            self.reset_done = None

    def on_reset(self):
        """Record what the reset interrupts in reset_hits and forget what is in flight."""
        raise NotImplementedError

    def check_quiet(self, bad, msg):
        """One sample of the quiet period after a reset: the first (the first edge in reset, which
        may still show the old state) passes, from the second on `bad` is the error `msg`."""
        if self.quiet:
            if bad and self.quiet_armed:
                self.err(msg)
            self.quiet_armed = True
            self.quiet -= 1

    # --- the end of a test step
    def busy(self):
        """Something is still to be sent or to come out."""
        raise NotImplementedError

    def pending(self):
        """What busy() waits for, in words (for the timeout message)."""
        raise NotImplementedError

    async def drain(self, timeout=None):
        """Wait until everything sent came out, SETTLE cycles more for anything extra, then fail on
        any error so far."""
        timeout = timeout or self.TIMEOUT
        for _ in range(timeout):
            if not self.busy():
                break
            await self.EDGE(self.dut.clk)
        else:
            raise AssertionError(f"timeout after {timeout} cycles: {self.pending()}, "
                                 f"errors: {self.errors[:3]}")
        await ClockCycles(self.dut.clk, self.SETTLE)
        self.assert_no_errors()


class PacketBench(StreamBench):
    """The source sends `queue` (packets with .idx and .beats, one beat per cycle at most); the
    output is checked held while valid && !ready and its accepted beats go to compare()."""

    def __init__(self, dut, seed, *, garbage, **names):
        super().__init__(dut, seed, **names)
        self.garbage = garbage     # input signal name -> width: random while valid is low
        self.queue = deque()       # packets not started on the input
        self.cur = None            # [packet, next beat index] being sent
        self.in_log = []           # (packet idx, beat, cycle) accepted input beats
        self.stalled_in = 0        # cycles an offered input beat was not accepted
        self.exp = deque()         # what the output still owes, in order (the bench's reference)
        self.held = None           # output beat seen with valid && !ready

    def sample(self, in_rst):
        self.sample_input(in_rst)
        self.sample_output(in_rst)

    def sample_input(self, in_rst):
        if self.in_valid and not in_rst:
            if int(self.port.s_ready.value):
                self.accept()
                self.in_valid = 0
            else:
                self.stalled_in += 1

    def accept(self):
        """The beat on offer was taken."""
        pkt, j = self.cur
        self.in_log.append((pkt.idx, j, self.cycle))
        self.cur = None if j + 1 == len(pkt.beats) else [pkt, j + 1]

    def next_beat(self):
        if self.cur is None and self.queue:
            self.cur = [self.queue.popleft(), 0]
        return self.cur is not None

    def sample_output(self, in_rst):
        valid = int(self.port.m_valid.value)
        # counts the first in-reset edge too: the output may still show its old beat there
        self.check_quiet(valid, f"{self.name['m_valid']} high after reset with no input since")
        if in_rst:
            self.held = None
            return
        if not valid:
            if self.held is not None:
                self.err(f"{self.name['m_valid']} dropped without a handshake")
                self.held = None
            return
        beat = self.read_output()
        if self.held is not None and beat != self.held:
            self.err("output beat changed while valid && !ready")
        if not self.ready:
            self.held = beat
            return
        self.held = None
        self.compare(beat)

    def on_reset(self):
        # what the reset interrupts: an input packet part-way, an output beat, packets not sent
        self.reset_hits.append((self.cur is not None and self.cur[1] > 0,
                                int(self.port.m_valid.value), len(self.queue)))
        self.cur = None
        self.after_reset()

    def busy(self):
        return bool(self.exp or self.queue or self.cur is not None)

    def drive_idle(self):
        self.port.s_valid.value = 0
        self.drive_garbage(self.garbage)

    def drive_garbage(self, names):
        """Random values on these inputs (names from `garbage`, drawn in the order given)."""
        for name in names:
            getattr(self.dut, name).value = self.rng.getrandbits(self.garbage[name])

    # --- the bench's own parts
    def drive_beat(self):
        """Drive beat cur[1] of packet cur[0] (and valid); drive_garbage() for unused inputs."""
        raise NotImplementedError

    def read_output(self):
        """The output beat at this edge, as a value that compares equal when nothing changed."""
        raise NotImplementedError

    def compare(self, beat):
        """Check one accepted output beat against the reference (exp)."""
        raise NotImplementedError

    def after_reset(self):
        """Only packets not yet started (queue) are expected from now on: rebuild exp."""
        raise NotImplementedError


class BufferBench(StreamBench):
    """Numbered random words through a buffer of `depth` entries with one data signal each side
    (s_data, m_data); `model` holds what the DUT holds, as (seq, data)."""
    NOUN, NOUNS = "beat", "beats"    # what the messages call an entry

    def __init__(self, dut, seed, *, depth, data_w, **names):
        super().__init__(dut, seed, **names)
        self.depth = depth
        self.data_w = data_w
        self.in_data = 0
        self.to_send = deque()     # (seq, data) not accepted yet
        self.model = deque()       # (seq, data) inside the DUT
        self.seq = 0
        self.expect_next = 0       # seq of the next word out
        self.in_log = []           # (seq, cycle) accepted
        self.out_log = []          # (seq, cycle) delivered
        self.full_cycles = 0       # cycles the model held `depth` words
        self.probes = 0

    def send(self, count):
        for _ in range(count):
            self.to_send.append((self.seq, self.rng.getrandbits(self.data_w)))
            self.seq += 1

    def next_beat(self):
        return bool(self.to_send)

    def drive_beat(self):
        self.in_data = self.to_send[0][1]
        self.port.s_valid.value = 1
        self.port.s_data.value = self.in_data

    def drive_idle(self):
        self.in_data = self.rng.getrandbits(self.data_w)    # garbage while idle
        self.port.s_valid.value = 0
        self.port.s_data.value = self.in_data

    def check_buffer(self, m_valid, s_ready):
        """Compare the flags and data sampled now with the model; returns the model's count."""
        n, nm = len(self.model), self.name
        if m_valid != int(n > 0):
            self.err(f"{nm['m_valid']} {m_valid} with {n} {self.NOUNS} inside (expected {int(n > 0)})")
        if s_ready != int(n < self.depth):
            self.err(f"{nm['s_ready']} {s_ready} with {n} of {self.depth} {self.NOUNS} inside "
                     f"(expected {int(n < self.depth)})")
        if n == self.depth:
            self.full_cycles += 1
        if m_valid and n:
            seq, data = self.model[0]
            got = int(self.port.m_data.value)
            if got != data:
                self.err(f"{self.NOUN} {seq}: {nm['m_data']} {got:#x}, expected {data:#x}"
                         + self.data_note(got))
        return n

    def data_note(self, got):
        """An explanation to add to a wrong-data message."""
        return ""

    def model_pop(self):
        seq, _ = self.model.popleft()
        if seq != self.expect_next:
            self.err(f"{self.NOUN} {seq} out, expected {self.NOUN} {self.expect_next}")
        self.expect_next = seq + 1
        self.out_log.append((seq, self.cycle))

    def model_push(self):
        seq, data = self.to_send.popleft()
        self.model.append((seq, data))
        self.in_log.append((seq, self.cycle))

    def on_reset(self):
        # the word on offer is withdrawn (offered again later); whatever the buffer holds is gone
        self.reset_hits.append(len(self.model))
        self.model.clear()
        self.expect_next = self.to_send[0][0] if self.to_send else self.seq

    def busy(self):
        return bool(self.to_send or self.model)

    def pending(self):
        return f"{len(self.to_send)} {self.NOUNS} not accepted, {len(self.model)} not delivered"

    # --- test steps shared by buffer benches
    async def run_stall_modes(self, n, modes, idle=(0.2, 0.6), ready=(0.1, 0.8)):
        """Per stall mode (stall_mode()): n words through, all out once and in order."""
        for mode in range(modes):
            self.stall_mode(mode, idle=idle, ready=ready)
            first = self.seq
            self.send(n)
            await self.drain()
            got = [s for s, _ in self.out_log if s >= first]
            assert got == list(range(first, self.seq)), f"mode {mode}: {self.NOUNS} lost, duplicated or reordered"
            self.dut._log.info("mode %d (idle %.2f, ready %.2f): %d %s ok, full %d cycles, %d probes", mode,
                               self.idle_prob, self.ready_prob, n, self.NOUNS, self.full_cycles, self.probes)

    async def run_full_rate(self, n, latency):
        """Source always valid, sink always ready: n words enter in n cycles, each leaves `latency`
        cycles after it entered."""
        self.send(n)
        await self.drain()
        cycles = self.in_log[-1][1] - self.in_log[0][1] + 1
        assert cycles == n, f"{n} {self.NOUNS} took {cycles} cycles to enter: a free-running stream was stalled"
        in_at = dict(self.in_log)
        for seq, c in self.out_log:
            assert c - in_at[seq] == latency, f"{self.NOUN} {seq}: out {c - in_at[seq]} cycles after in, not {latency}"

    async def run_resets(self, reps, words, idle):
        """Resets in the middle of traffic (source idle `idle` in odd repetitions, the sink ready
        always, half or a tenth of the time): the words sent after each reset arrive intact and in
        order. What each reset found inside is in reset_hits."""
        for rep in range(reps):
            self.idle_prob = idle if rep & 1 else 0.0
            self.ready_prob = [1.0, 0.5, 0.1][rep % 3]
            self.send(words)
            for _ in range(self.rng.randint(3, 30)):
                await RisingEdge(self.dut.clk)
            await self.reset(self.rng.randint(1, 3))
            after = self.expect_next
            await self.drain()
            got = [s for s, _ in self.out_log if s >= after]
            assert got == list(range(after, self.seq)), f"reset {rep}: {self.NOUNS} after the reset lost or reordered"
        self.dut._log.info("resets with %s %s inside: all ok", self.reset_hits, self.NOUNS)

    async def probe(self):
        """Mid-cycle, flip m_ready, s_valid and s_data: s_ready, m_valid, m_data must not move."""
        p, nm = self.port, self.name
        outs = ("s_ready", "m_valid", "m_data")
        await Timer(1, "ns")
        before = [int(getattr(p, r).value) for r in outs]
        p.m_ready.value = 1 - self.ready
        p.s_valid.value = 1 - self.in_valid
        p.s_data.value = self.in_data ^ ((1 << self.data_w) - 1)
        await Timer(1, "ns")
        after = [int(getattr(p, r).value) for r in outs]
        moved = [nm[r] for r, b, a in zip(outs, before, after) if a != b]
        if moved:
            self.err(f"{', '.join(moved)} moved when {nm['m_ready']}, {nm['s_valid']} and "
                     f"{nm['s_data']} were flipped mid-cycle (combinational path)")
        # put the cycle's real values back before the edge
        p.m_ready.value = self.ready
        p.s_valid.value = self.in_valid
        p.s_data.value = self.in_data
        self.probes += 1
