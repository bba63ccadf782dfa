#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drop the always-true trigger tests from the model's NBA function and group the rest (sim/README.md,
"Speed").

Verilator 5.048's `_eval_nba` runs each clocked or combinational function of the NBA region under a
test of the trigger bits that can change its inputs: `if ((mask & __VnbaTriggered[w]) | ...)`. In
beryl-sim every NBA run includes posedge clk: the only clock is clk, and a clock gate's gclk = clk &
latch can rise only together with clk (the latch changes only while clk is low). So every test whose
masks include the clk bit is always true (in the default build about 80 of 370 tests when this was
written, about 250 instructions per simulated cycle; 13 of 434 at e4611cf, after more blocks were gated). Single-threaded models only: sim/Makefile runs it when THREADS is 1
(with --threads Verilator schedules the NBA region in its task graph).

This script rewrites, in the verilated sources, each such test in `_eval_nba` to `if (1U)` (the
compiler drops it) and puts one check at the top of the function instead: an NBA run without the
clk bit stops the simulator (VL_FATAL_MT) rather than skipping work. Every other test is kept as it
is. It stops with an error if the function or the clk trigger cannot be found, or if a test has a
form it does not know (anything but an OR of `mask & __VnbaTriggered[w]` terms, or one mask over an
OR of words), so a changed Verilator fails the build instead of building a wrong model. Idempotent (a
patched file is left).

The kept tests are then grouped: each run of up to GROUP adjacent kept tests goes under one test of
the OR of their masks (`group_tests()`), so that a simulated cycle in which none of a group's clock
gates opened skips the group with one test instead of one per function. Nothing inside a group
changes, so whatever runs, runs in Verilator's order. A one-off count (the harness temporarily
patched to write every rising edge's trigger words to a file during a loaded `bench_speed.py` run; the
patch is not kept) found about 94 of the 421 kept tests true per loaded cycle, so that groups of 6
leave about 286 tests evaluated instead of 421 (groups of 4 to 16: 286-289), and about 80 in an idle
cycle. A group's test costs more than a member's when its masks span both trigger words; the
reproducible figures are the callgrind instruction counts in sim/README.md.

It also turns Verilator's population counts of up to 64 bits (`VL_COUNTONES_I`, `VL_COUNTONES_Q`:
portable bit tricks, about 15 instructions per 32 bits, which the RX path runs on every beat) into the
compiler's builtins (one instruction with the POPCNT of every x86-64-v2 and later CPU, a library call
without it); wider counts (`VL_COUNTONES_W`) are left.

    nba_clk.py VDIR TOP
"""
import glob
import re
import sys

import trig_map
from trig_map import act_triggers, clk_trigger


def fail(msg):
    sys.exit(f"nba_clk.py: {msg}")


trig_map.fail = fail   # the shared parsing reports under this script's name

MARK = "// beryl-sim: trigger tests with posedge clk removed (sim/nba_clk.py)"
TERM = re.compile(r"\(*\s*(0x[0-9a-fA-F]+|\d+)ULL\s*&\s*vlSelfRef\.__VnbaTriggered\[(\d+)U\]\s*\)*")


# one mask over an OR of words, `mask & (__VnbaTriggered[1U] | __VnbaTriggered[0U])`: Verilator's form
# when two words share the mask
SHARED = re.compile(r"\(*\s*(0x[0-9a-fA-F]+|\d+)ULL\s*&\s*\(((?:\s*\|?\s*vlSelfRef\.__VnbaTriggered\[\d+U\])+)\s*\)\s*\)*")


def term_list(cond):
    """[(mask, word)] of a test that is an OR of trigger terms (or one mask over an OR of words),
    else None"""
    m = SHARED.fullmatch(cond.strip())
    if m:
        return [(int(m.group(1), 0), int(w)) for w in re.findall(r"__VnbaTriggered\[(\d+)U\]", m.group(2))]
    parts = [p.strip() for p in cond.split("|")]
    out = []
    for p in parts:
        m = TERM.fullmatch(p)
        if not m:
            return None
        out.append((int(m.group(1), 0), int(m.group(2))))
    return out


GROUP = 6
GROUP_NOTE = "// beryl-sim: {n} trigger tests grouped (sim/nba_clk.py)"
BLOCK = re.compile(r"\n    if \(((?:(?!\) \{\n).)*?__VnbaTriggered(?:(?!\) \{\n).)*?)\) \{\n(.*?)\n    \}(?=\n)", re.S)


def group_tests(body, fn):
    """body with each run of up to GROUP adjacent trigger-tested top-level blocks of the NBA function
    put under one test of the OR of their masks; the number of groups made"""
    blocks = list(BLOCK.finditer(body))
    runs, cur = [], []
    for m in blocks:
        if cur and cur[-1].end() != m.start():
            runs.append(cur)
            cur = []
        cur.append(m)
    if cur:
        runs.append(cur)
    out, pos, groups = [], 0, 0
    for run in runs:
        for a in range(0, len(run), GROUP):
            g = run[a:a + GROUP]
            if len(g) < 2:
                continue
            masks = {}
            for m in g:
                terms = term_list(m.group(1))
                if terms is None:
                    fail(f"a trigger test of unknown form in {fn}: {' '.join(m.group(1).split())[:200]}")
                for mask, w in terms:
                    masks[w] = masks.get(w, 0) | mask
            cond = " | ".join(f"(0x{masks[w]:016x}ULL & vlSelfRef.__VnbaTriggered[{w}U])" for w in sorted(masks))
            out.append(body[pos:g[0].start()])
            out.append(f"\n    if ({cond}) {{   {GROUP_NOTE.format(n=len(g))}")
            out.append(body[g[0].start():g[-1].end()])
            out.append("\n    }")
            pos = g[-1].end()
            groups += 1
    out.append(body[pos:])
    return "".join(out), groups


def patch(text, fn, clk_word, clk_bit):
    """the patched source and the number of tests removed"""
    start = text.find(f"void {fn}(")
    if start < 0 or text.find("{", start) < 0:
        fail(f"{fn} not found")
    end = text.find("\n}\n", start)
    body = text[start:end]
    out, pos, removed, kept = [], 0, 0, 0
    for m in re.finditer(r"\n(\s*)if \((.*?)\) \{", body, re.S):
        cond = m.group(2)
        if "__VnbaTriggered" not in cond:
            continue
        terms = term_list(cond)
        if terms is None:
            fail(f"a trigger test of unknown form in {fn}: {' '.join(cond.split())[:200]}")
        if any(w == clk_word and mask >> clk_bit & 1 for mask, w in terms):
            out.append(body[pos:m.start(2)])
            out.append("1U /* posedge clk */")
            pos = m.end(2)
            removed += 1
        else:
            kept += 1
    out.append(body[pos:])
    new_body = "".join(out)
    anchor = "auto& vlSelfRef = std::ref(*vlSelf).get();\n"
    i = new_body.find(anchor)
    if i < 0:
        fail(f"{fn}: no vlSelfRef line to put the check after")
    i += len(anchor)
    check = (f"    {MARK}\n"
             f"    if (VL_UNLIKELY(!(vlSelfRef.__VnbaTriggered[{clk_word}U] & (1ULL << {clk_bit})))) "
             f"VL_FATAL_MT(__FILE__, __LINE__, \"\", \"beryl-sim: NBA region run without posedge clk "
             f"(sim/nba_clk.py)\");\n")
    new_body = new_body[:i] + check + new_body[i:]
    if removed == 0:
        fail(f"{fn}: no trigger test includes posedge clk (Verilator changed?)")
    b = new_body.find("\n    // Body\n")
    if b < 0:
        fail(f"{fn}: no '// Body' line before the trigger tests")
    grouped, groups = group_tests(new_body[b:], fn)
    new_body = new_body[:b] + grouped
    return text[:start] + new_body + text[end:], removed, kept, groups


POPCOUNT = {"VL_COUNTONES_I(": "__builtin_popcount(", "VL_COUNTONES_Q(": "__builtin_popcountll("}


def popcounts(text):
    """the source with Verilator's 32- and 64-bit population counts as compiler builtins, and the count"""
    n = 0
    for a, b in POPCOUNT.items():
        n += text.count(a)
        text = text.replace(a, b)
    return text, n


def main():
    vdir, top = sys.argv[1:3]
    root = f"V{top}___024root"
    srcs = sorted(glob.glob(f"{vdir}/{root}__*.cpp"))
    if not srcs:
        fail(f"no {root}__*.cpp in {vdir}")
    texts = {p: open(p).read() for p in srcs}
    counts = {}
    for p in srcs:
        texts[p], counts[p] = popcounts(texts[p])
    clk = clk_trigger(act_triggers("".join(texts.values())))
    fn = f"{root}___eval_nba"
    defs = [p for p, t in texts.items() if re.search(rf"^void {fn}\(.*\) \{{$", t, re.M)]
    if len(defs) != 1:
        fail(f"expected one definition of {fn}, found {len(defs)}")
    path = defs[0]
    removed = None
    if MARK not in texts[path]:
        texts[path], removed, kept, groups = patch(texts[path], fn, clk // 64, clk % 64)
    # every check passed: write (a failed run leaves the sources as they were)
    for p in srcs:
        if counts[p] or (p == path and removed is not None):
            with open(p, "w") as f:
                f.write(texts[p])
        if counts[p]:
            print(f"nba_clk.py: {p}: {counts[p]} population counts as compiler builtins")
    if removed is not None:
        print(f"nba_clk.py: {path}: {removed} trigger tests with posedge clk removed, {kept} kept "
              f"(in {groups} groups of up to {GROUP})")


if __name__ == "__main__":
    main()
