# SPDX-License-Identifier: MIT
"""beryl_clk_gate on its own. Reference: a model of the gate's contract (an integrated clock-gating
cell), not of its code: gclk has a rising edge exactly at those rising edges of clk before which en was
high at the end of the low phase, and no other edge; a change of en during the high phase (after an
edge) never makes a pulse in that cycle. en changes at random times in both phases. With
BERYL_NO_CLK_GATE defined (as the lock-step reference of beryl-sim builds it) gclk follows clk
whatever en does."""
import os
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, Timer
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import beryl_seed  # noqa: E402

PERIOD = 4000  # ps
UNGATED = os.environ.get("BERYL_GATE_OFF") == "1"


@cocotb.test()
async def test_gate(dut):
    rng = beryl_seed.rng(7, "test_gate")
    dut.en.value = 0
    dut.clk.value = 0
    await Timer(PERIOD, "ps")
    pulses = []

    async def watch():
        while True:
            await RisingEdge(dut.gclk)
            pulses.append(cocotb.utils.get_sim_time("ps"))

    cocotb.start_soon(watch())
    expect = []
    # drive the clock by hand so that en can change anywhere in a cycle: rising edge at k * PERIOD,
    # falling edge half a period later
    en = 0
    for k in range(400):
        t_rise = cocotb.utils.get_sim_time("ps")
        dut.clk.value = 1
        if en or UNGATED:
            expect.append(t_rise)
        # high phase: en may change; it must not pulse gclk now (only the value at the end of the
        # low phase counts, for the next edge)
        if rng.random() < 0.5:
            await Timer(rng.randint(1, PERIOD // 2 - 1), "ps")
            dut.en.value = rng.getrandbits(1)
            await Timer(PERIOD // 2 - (cocotb.utils.get_sim_time("ps") - t_rise), "ps")
        else:
            await Timer(PERIOD // 2, "ps")
        dut.clk.value = 0
        # low phase: up to two changes of en; the last one before the edge counts
        for _ in range(rng.randint(0, 2)):
            await Timer(rng.randint(1, PERIOD // 8), "ps")
            dut.en.value = rng.getrandbits(1)
        await Timer(PERIOD - (cocotb.utils.get_sim_time("ps") - t_rise), "ps")
        en = int(dut.en.value)
    assert pulses == expect, f"gclk edges differ from the model at {sorted(set(pulses) ^ set(expect))[:5]}"
    assert len(expect) > (390 if UNGATED else 100), "too few enabled cycles to check anything"


def _run(gate_off):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import beryl_sim
    beryl_sim.run("beryl_clk_gate", "rtl/common/beryl_clk_gate.f", "test_beryl_clk_gate", Path(__file__).parent,
                  extra_args=["+define+BERYL_NO_CLK_GATE"] if gate_off else None,
                  extra_env={"BERYL_GATE_OFF": "1" if gate_off else "0"})


def test_beryl_clk_gate():
    _run(False)


def test_beryl_clk_gate_off():
    _run(True)


def test_no_gate_on_a_gated_clock():
    """A gate's clk must be the free-running clock (see the cell's header: a latch on a gated clock
    is not evaluated where beryl-sim expects it; the lock-step check caught one such case). Static
    check over rtl/: no instance whose clk is a gated clock (gclk) may contain a gate anywhere below."""
    import re
    repo = Path(__file__).resolve().parents[3]
    src = {p: p.read_text() for p in (repo / "rtl").rglob("*.sv")}
    # module -> modules it instantiates
    inst_re = re.compile(r"^\s*(beryl_\w+)\s*(?:#\s*\(|\w+\s*\()", re.M)
    children = {}
    for text in src.values():
        for m in re.finditer(r"^module\s+(\w+)(.*?)^endmodule", text, re.M | re.S):
            children[m.group(1)] = set(inst_re.findall(m.group(2)))

    def has_gate(mod, seen=()):
        kids = children.get(mod, set())
        return "beryl_clk_gate" in kids or any(has_gate(k, seen + (mod,)) for k in kids if k not in seen)

    assert has_gate("beryl_nic_queue_mgr"), "the check does not see the gates it should"
    bad = []
    checked = 0
    for path, text in src.items():
        for m in re.finditer(r"\.clk\s*\(\s*gclk\s*\)", text):
            # the instance this connection belongs to: the last instantiation before it
            starts = [s for s in inst_re.finditer(text, 0, m.start())]
            assert starts, f"{path}: .clk(gclk) outside an instance"
            mod = starts[-1].group(1)
            checked += 1
            if has_gate(mod):
                bad.append(f"{path.relative_to(repo)}: {mod} on gclk contains a clock gate")
    assert checked > 0, "no instance on a gated clock found: the pattern no longer matches the RTL"
    assert not bad, "\n".join(bad)
