# SPDX-License-Identifier: MIT
"""Light cocotb sink for the vendor-neutral TLP stream (docs/blocks/pcie_interfaces.md).

One coroutine per clock: it samples the handshake at the rising edge (cocotb reads the
values from before the edge), checks the stream rules beat by beat, and drives a random
`ready`. Finished TLPs collect in `tlps` as `Tlp` records. Light on purpose: per-beat
Python work bounds simulation speed, so it reads only what it needs.

Stream rules checked: sop starts a TLP and eop ends it; the header stays the same on
every beat; strb is contiguous from bit 0 and full on every beat but the last; a
header-only TLP is one beat with strb = 0; while valid && !ready nothing changes.
"""
import random
from collections import deque
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import RisingEdge


@dataclass
class Tlp:
    hdr: int                      # 128-bit header, DW0 in bits [127:96]
    payload: bytes                # payload DWs in order (len = 4 * DWs)
    beats: int                    # beats the TLP took
    first_cycle: int              # cycle its sop beat was accepted
    last_cycle: int               # cycle its eop beat was accepted
    source: int = 0               # free for test benches (e.g. mux input)
    extra: dict = field(default_factory=dict)


# header fields: pcie_tlp.parse_mem_hdr (one codec for every bench)


class Cycle:
    """Shared cycle counter, advanced once per clock by whoever owns it."""

    def __init__(self):
        self.n = 0


class TlpSinkSimple:
    """Sink for `<prefix>_tlp_{hdr,data,strb,sop,eop,valid,ready}`."""

    def __init__(self, dut, prefix, clk, data_w, cycle=None, ready_prob=1.0, seed=None):
        self.log = dut._log
        self.clk = clk
        self.data_w = data_w
        self.beat_dw = data_w // 32
        self.hdr = getattr(dut, f"{prefix}_tlp_hdr")
        self.data = getattr(dut, f"{prefix}_tlp_data")
        self.strb = getattr(dut, f"{prefix}_tlp_strb")
        self.sop = getattr(dut, f"{prefix}_tlp_sop")
        self.eop = getattr(dut, f"{prefix}_tlp_eop")
        self.valid = getattr(dut, f"{prefix}_tlp_valid")
        self.ready = getattr(dut, f"{prefix}_tlp_ready")
        self.cycle = cycle or Cycle()
        self.own_cycle = cycle is None
        self.ready_prob = ready_prob
        self.rng = random.Random(seed)
        self.tlps = deque()
        self.beat_count = 0
        self.first_beat_cycle = None
        self.last_beat_cycle = None
        self.errors = []
        self._cur = None
        self._held = None
        self.ready.value = 0
        self._task = None

    def start(self):
        self._task = cocotb.start_soon(self._run())

    def stop(self):
        if self._task:
            self._task.cancel()
            self._task = None

    def _err(self, msg):
        self.errors.append(msg)
        self.log.error("tlp sink: %s", msg)

    async def _run(self):
        ready = 0
        while True:
            await RisingEdge(self.clk)
            if self.own_cycle:
                self.cycle.n += 1
            valid = int(self.valid.value)
            if valid:
                beat = (int(self.hdr.value), int(self.data.value), int(self.strb.value),
                        int(self.sop.value), int(self.eop.value))
                if self._held is not None and beat != self._held:
                    self._err(f"beat changed while valid && !ready at cycle {self.cycle.n}")
                if ready:
                    self._held = None
                    self._accept(beat)
                else:
                    self._held = beat
            elif self._held is not None:
                self._err(f"valid dropped without a handshake at cycle {self.cycle.n}")
                self._held = None
            ready = 1 if (self.ready_prob >= 1.0 or self.rng.random() < self.ready_prob) else 0
            self.ready.value = ready

    def _accept(self, beat):
        hdr, data, strb, sop, eop = beat
        n = self.cycle.n
        self.beat_count += 1
        if self.first_beat_cycle is None:
            self.first_beat_cycle = n
        self.last_beat_cycle = n
        ndw = strb.bit_length()
        if strb != (1 << ndw) - 1:
            self._err(f"strb {strb:#x} not contiguous from bit 0")
        if sop:
            if self._cur is not None:
                self._err("sop inside a TLP")
            self._cur = {"hdr": hdr, "payload": bytearray(), "beats": 0, "first": n}
        elif self._cur is None:
            self._err("beat without sop outside a TLP")
            return
        cur = self._cur
        if hdr != cur["hdr"]:
            self._err("header changed inside a TLP")
        if cur["beats"] and cur["last_strb"] != (1 << self.beat_dw) - 1:
            self._err("a beat before the last one is not full")
        cur["beats"] += 1
        cur["last_strb"] = strb
        cur["payload"] += data.to_bytes(self.data_w // 8, "little")[:4 * ndw]
        if eop:
            if cur["beats"] > 1 and strb == 0:
                self._err("empty last beat in a multi-beat TLP")
            self.tlps.append(Tlp(hdr=cur["hdr"], payload=bytes(cur["payload"]), beats=cur["beats"],
                                 first_cycle=cur["first"], last_cycle=n))
            self._cur = None
