# SPDX-License-Identifier: MIT
"""Exactness of a block's clock gate (rtl/common/beryl_clk_gate.sv, sim/README.md "Clock gates"),
checked every cycle by a unit test.

A gated block's enable must be high in every cycle in which one of its flops can change (else the
block misbehaves, which the test's reference model finds) and should be low in every other one: a
cycle with the gate open and nothing changing costs a C++ model the block's evaluation for
nothing. `GateCheck` samples, after each falling edge (when the inputs for the next rising edge are
set), the gate's `gate_en_now` and a test's own `moving()`: whether a flop can change, written from
the block's handshakes (not from its enable). Any difference is an error; `waiting()` (for
example a beat held at an input or output) counts the cycles in which the gate was closed with
work waiting, which a test asserts happened.

    gc = GateCheck(dut, moving=lambda: ..., waiting=lambda: ...)   # starts its coroutine
    ...
    gc.check(min_closed_waits=20)
"""
import cocotb
from cocotb.triggers import FallingEdge, ReadOnly


class GateCheck:
    def __init__(self, dut, moving, waiting, gate=None):
        self.dut = dut
        self.gate = gate if gate is not None else dut.u_gate.gate_en_now
        self.moving, self.waiting = moving, waiting
        self.errors, self.closed_waits, self.cycles = [], 0, 0
        self._task = cocotb.start_soon(self._run())

    async def _run(self):
        while True:
            await FallingEdge(self.dut.clk)
            await ReadOnly()
            self.cycles += 1
            moving = bool(self.moving())
            en = int(self.gate.value)
            if en != moving and len(self.errors) < 5:
                self.errors.append(f"cycle {self.cycles}: gate enable {en}, but a flop "
                                   f"{'can' if moving else 'cannot'} change")
            if not moving and self.waiting():
                self.closed_waits += 1

    def check(self, min_closed_waits=1):
        """No wrong enable so far, and the gate was closed with work waiting often enough."""
        assert not self.errors, self.errors
        assert self.closed_waits >= min_closed_waits, \
            f"the gate was closed with work waiting in only {self.closed_waits} cycles"
