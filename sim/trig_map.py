#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the trigger map of beryl-sim's rising-edge eval (sim/README.md "Speed", "Clock gates").

Verilator 5.048 evaluates every `posedge` of the model through its active-region triggers: on each
eval() it recomputes every clock expression (clk and, per clock gate, clk & gate_en_l), compares it
with the value it kept from the last eval, and runs the NBA functions whose trigger bits are set.
With about 60 gates that bookkeeping cost about 1 900 instructions per simulated cycle (three trigger
passes a cycle). In beryl-sim the only clock is clk, so the triggers of a rising edge are known: posedge
clk and the bit of every gate whose latch is open. main.cpp sets them directly and runs the
NBA functions once (rise_fast()); a falling-edge eval runs the input-combinational region alone
(fall_fast()), which is right only while that region has no trigger but its first iteration.

This script reads the verilated sources and writes, for each act-region trigger, its word and bit in
the trigger vector and the gate it belongs to (`--check-fast-edge` compares the mask against
Verilator's own trigger pass). It stops with
an error if the model has a trigger of any other kind (another clock, a negedge, a combinational
`@(changed)` trigger), or an active-region function, or a gate the map cannot place: the fast path
would then be wrong, and the build must fail rather than use it. If the root header declares the
gates' enables as one run of lines in trigger order (sim/nba_clk.py pack_gates()), it says so
(BERYL_SIM_GATES_PACKED, the first enable and the count), and the harness reads them as a byte array.
It also lists the inputs that the input-combinational region reads (BERYL_SIM_ICO_INPUTS): a falling-edge
eval is needed only when one of them changed (ico_inputs()).

    trig_map.py VDIR TOP OUT_H
"""
import glob
import re
import sys


def fail(msg):
    sys.exit(f"trig_map.py: {msg}")


def c_name(dotted):
    """beryl_nic_us_top.g_if[1].u_if.u_gate -> beryl_nic_us_top__DOT__g_if__BRA__1__KET____DOT__u_if__DOT__u_gate"""
    s = re.sub(r"\[(\d+)\]", r"__BRA__\1__KET__", dotted)
    return s.replace(".", "__DOT__")


def act_triggers(text):
    """{index: description} of the act-region triggers, as Verilator's debug dump names them"""
    dump = re.search(r"___dump_triggers__act\([^)]*\) \{\n.*?\n}\n", text, re.S)
    if not dump:
        fail("no _dump_triggers__act in the verilated sources (Verilator version changed?)")
    return {int(m.group(1)): m.group(2)
            for m in re.finditer(r"region trigger index (\d+) is active: (.*?)\\n", dump.group(0))}


def clk_trigger(act):
    """the index of the one act trigger @(posedge clk)"""
    clk_idx = [i for i, t in act.items() if t == "@(posedge clk)"]
    if len(clk_idx) != 1:
        fail(f"expected one act trigger @(posedge clk), found {len(clk_idx)}")
    return clk_idx[0]


GATE_TRIG = re.compile(r"@\(posedge \(clk & ([\w.\[\]]+)\.gate_en_l\)\)")


def gate_order(act, clk_idx):
    """[(act trigger index, gate C name)] of every act trigger but clk's, in index order; stops on a
    trigger that is not a clock gate's"""
    out = []
    for idx in range(len(act)):
        if idx == clk_idx:
            continue
        m = GATE_TRIG.fullmatch(act[idx])
        if not m:
            fail(f"act trigger {idx} is {act[idx]!r}: not a clock gate (clk & gate_en_l); "
                 "rise_fast() handles only clk and gated clocks")
        out.append((idx, c_name(m.group(1))))
    return out


def packed(header, gates):
    """True if the gates' enables (gate_en_now) are declared on consecutive lines of the root header in
    the given order (sim/nba_clk.py pack_gates()): one byte each, so the harness reads them as an array"""
    lines = header.splitlines()
    at = [i for i, l in enumerate(lines) if l.strip() == f"CData/*0:0*/ {gates[0]}__DOT__gate_en_now;"] if gates else []
    if len(at) != 1:
        return False
    return all(lines[at[0] + k].strip() == f"CData/*0:0*/ {g}__DOT__gate_en_now;" for k, g in enumerate(gates))


FUNC = re.compile(r"^(?:VL_ATTR_COLD )?(?:void|bool) (\w+)\([^;{}\n]*\) \{\n(.*?)\n\}\n", re.S | re.M)


def model_inputs(top_h):
    """the model's inputs as the verilated top header declares them (VL_IN8(&name, msb, lsb) ...), clk
    left out (the harness drives it itself)"""
    return [n for n in re.findall(r"^\s*VL_IN\w*\(&(\w+),", top_h, re.M) if n != "clk"]


def ico_inputs(text, root, inputs):
    """the inputs that the input-combinational region reads: each input named in _eval_ico or in a
    function it calls, at any depth. A falling-edge eval whose changed inputs are all outside this list
    would compute nothing new (main.cpp inputs_changed()): the other inputs (stream data, keep, user
    bits) are read only by clocked logic, at the rising edge. Stops if _eval_ico is missing."""
    funcs = {m.group(1): m.group(2) for m in FUNC.finditer(text)}
    start = f"{root}___eval_ico"
    if start not in funcs:
        fail(f"no {start} in the verilated sources (Verilator version changed?)")
    seen, todo = set(), [start]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo += [c for c in re.findall(rf"\b({root}___\w+)\(", funcs[f]) if c in funcs]
    body = "\n".join(funcs[f] for f in sorted(seen))
    return [i for i in inputs if re.search(rf"(?:vlSelfRef\.|vlSelf->|\bTOP\.){i}\b", body)]


def main():
    vdir, top, out = sys.argv[1:4]
    root = f"V{top}___024root"
    srcs = sorted(glob.glob(f"{vdir}/{root}__*.cpp"))
    if not srcs:
        fail(f"no {root}__*.cpp in {vdir}")
    text = "".join(open(p).read() for p in srcs)
    act = act_triggers(text)
    ico = re.search(r"___dump_triggers__ico\([^)]*\) \{\n.*?\n}\n", text, re.S)
    ico_trigs = re.findall(r"region trigger index (\d+) is active: (.*?)\\n", ico.group(0)) if ico else None
    if ico_trigs != [("0", "Internal 'ico' trigger - first iteration")]:
        fail(f"the input-combinational region has triggers {ico_trigs}; fall_fast() runs it once")
    if sorted(act) != list(range(len(act))):
        fail(f"act trigger indices are not 0..{len(act) - 1}")
    clk_idx = [clk_trigger(act)]

    # gates whose trigger expression is exactly clk & gate_en_l
    prev = {}
    for m in re.finditer(r"__Vtrigprevexpr_(h[0-9a-f]+)__0 = \(\(IData\)\(vlSelfRef\.clk\)\s*"
                         r"& \(IData\)\(vlSelfRef\.(\w+)__DOT__gate_en_l\)\);", text):
        prev[m.group(2)] = m.group(1)

    if f"{root}___eval_act(" in text:
        fail("the model has an active-region function; rise_fast() does not run it")

    rows = []
    for idx, gate in gate_order(act, clk_idx[0]):
        if gate not in prev:
            fail(f"the trigger of gate {gate} is not computed as clk & gate_en_l")
        rows.append((idx // 64, idx % 64, gate))

    gates_h = open(f"{vdir}/{root}.h").read()
    declared = set(re.findall(r"CData/\*0:0\*/ (\w+)__DOT__gate_en_l;", gates_h))
    if declared != {r[2] for r in rows}:
        fail(f"gates with a trigger ({len(rows)}) and gates declared in {root}.h ({len(declared)}) differ")

    try:
        inputs = model_inputs(open(f"{vdir}/V{top}.h").read())
    except OSError as e:
        fail(f"cannot read the top header: {e}")
    if not inputs:
        fail(f"no inputs declared in V{top}.h")
    ico_in = ico_inputs(text, root, inputs)

    words = (len(act) + 63) // 64
    vec = re.search(r"VlUnpacked<QData/\*63:0\*/, (\d+)> __VnbaTriggered;", gates_h)
    if not vec or int(vec.group(1)) != words:
        fail(f"__VnbaTriggered in {root}.h is not {words} 64-bit word(s)")
    with open(out, "w") as f:
        f.write(f"// generated by sim/trig_map.py: {len(act)} act-region triggers, clk and {len(rows)} clock gates\n")
        f.write(f"#define BERYL_SIM_TRIG_WORDS {words}\n")
        f.write(f"#define BERYL_SIM_TRIG_CLK_WORD {clk_idx[0] // 64}\n")
        f.write(f"#define BERYL_SIM_TRIG_CLK_BIT {clk_idx[0] % 64}\n")
        f.write("// X(word, bit, gate)\n")
        f.write("#define BERYL_SIM_TRIGS(X)" + "".join(f" X({w}, {b}, {g})" for w, b, g in rows) + "\n")
        f.write(f"// the {len(ico_in)} of {len(inputs)} inputs (clk aside) that the input-combinational region reads\n")
        f.write("#define BERYL_SIM_ICO_INPUTS(X)" + "".join(f" X({i})" for i in ico_in) + "\n")
        gates = [g for _, _, g in rows]
        if packed(gates_h, gates):
            f.write("// the gates' enables are consecutive bytes of the model in this order (sim/nba_clk.py)\n")
            f.write(f"#define BERYL_SIM_GATES_PACKED 1\n#define BERYL_SIM_GATE_COUNT {len(gates)}\n")
            f.write(f"#define BERYL_SIM_GATE_FIRST {gates[0]}__DOT__gate_en_now\n")


if __name__ == "__main__":
    main()
