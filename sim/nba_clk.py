#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drop the always-true trigger tests from the model's NBA function and dispatch the rest through a
bitmap (sim/README.md, "Speed").

Verilator 5.048's `_eval_nba` runs each clocked or combinational function of the NBA region under a
test of the trigger bits that can change its inputs: `if ((mask & __VnbaTriggered[w]) | ...)`. In
beryl-sim every NBA run includes posedge clk: the only clock is clk, and a clock gate's gclk = clk &
latch can rise only together with clk (the latch changes only while clk is low). So every test whose
masks include the clk bit is always true (in the default build about 80 of 370 tests when this was
written, about 250 instructions per simulated cycle; 13 of 434 at e4611cf, after more blocks were gated). Single-threaded models only: sim/Makefile runs it when THREADS is 1
(with --threads Verilator schedules the NBA region in its task graph).

This script rewrites, in the verilated sources, each such test in `_eval_nba` to `if (1U)` (the
compiler drops it) and puts one check at the top of the function instead: an NBA run without the
clk bit stops the simulator (VL_FATAL_MT) rather than skipping work. Every other test is kept, in
the form below. It stops with an error if the function or the clk trigger cannot be found, or if a
test has a form it does not know (anything but an OR of `mask & __VnbaTriggered[w]` terms, or one
mask over an OR of words), so a changed Verilator fails the build instead of building a wrong model.
Idempotent (a patched file is left).

The kept tests are then dispatched through a bitmap (`bitmap_tests()`): test i (in the function's
order) becomes a test of bit i of a bitmap that the function builds first, as the OR of one
precomputed row per trigger bit that is set (the row of a trigger bit has bit i set if test i's masks
include it). A test then reads one byte of a local (two instructions) instead of one or two trigger
words under 64-bit masks, and each run of adjacent tests whose bits share a byte goes under one test
of that byte, so that a simulated cycle in which none of a group's clock gates opened skips the group
with one test. Nothing inside a group changes:
whatever runs, runs in Verilator's order, under the condition it had (the original test is kept in
a comment). Callgrind, 1000 loaded frames (`bench/sim/cg_loaded.py`, line costs from
`bench/sim/cg_lines.py` summed per part, sim/README.md "Speed"): the dispatch cost about 1 520
instructions per simulated cycle with the earlier groups of 6 adjacent tests under the OR of their
masks, about 950 with the bitmap (150 to build it, 800 for the tests).

Then the clock gates' latches (`latches()`): the NBA region's tests of clk low are made false and
the input region's latch copies are skipped by fast falling edges (see the function).

And the gates' enables (`pack_gates()`): the root header declares them on consecutive lines in the
order of their trigger bits, so that the harness reads them eight to a 64-bit load (sim/main.cpp,
rise_triggers(); sim/trig_map.py checks the order and tells the harness through sim_trig.h).

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
from trig_map import act_triggers, clk_trigger, gate_order


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


ROWS = "beryl_nba_rows"
LIVE = "beryl_nba_live"
EXEC_NOTE = "// beryl-sim: the NBA functions to run, one bit per kept trigger test (sim/nba_clk.py)"
GROUP_NOTE = "// beryl-sim: {n} trigger tests grouped (sim/nba_clk.py)"
BLOCK = re.compile(r"\n    if \(((?:(?!\) \{\n).)*?__VnbaTriggered(?:(?!\) \{\n).)*?)\) \{\n(.*?)\n    \}(?=\n|$)", re.S)


def bitmap_tests(body, fn, words):
    """body with every kept trigger test turned into a test of one bit of a bitmap that the function
    builds first, and each run of adjacent tests whose bits share a byte put under one test of that
    byte; (body, table source, exec source, tests, groups)"""
    blocks = list(BLOCK.finditer(body))
    tests = []
    for m in blocks:
        terms = term_list(m.group(1))
        if terms is None:
            fail(f"a trigger test of unknown form in {fn}: {' '.join(m.group(1).split())[:200]}")
        tests.append(terms)
    n = len(tests)
    nx = max(4, (n + 255) // 256 * 4)   # 64-bit words of the bitmap, a multiple of 4 (256-bit vectors)
    rows = [[0] * nx for _ in range(64 * words)]
    for i, terms in enumerate(tests):
        for mask, w in terms:
            if w >= words:
                fail(f"{fn}: a trigger test reads word {w} of a {words}-word trigger vector")
            for b in range(64):
                if mask >> b & 1:
                    rows[64 * w + b][i // 64] |= 1 << (i % 64)
    live = [sum(1 << b for b in range(64) if any(rows[64 * w + b])) for w in range(words)]
    # runs of adjacent blocks (nothing between them), cut where the bit index enters a new byte
    runs, cur = [], []
    for i, m in enumerate(blocks):
        if cur and (blocks[cur[-1]].end() != m.start() or cur[-1] // 8 != i // 8):
            runs.append(cur)
            cur = []
        cur.append(i)
    if cur:
        runs.append(cur)
    out, pos, groups = [], 0, 0
    for run in runs:
        byte = run[0] // 8
        if len(run) > 1:
            gmask = sum(1 << (i % 8) for i in run)
            out.append(body[pos:blocks[run[0]].start()])
            out.append(f"\n    if (__Vbx8[{byte}U] & 0x{gmask:02x}U) {{   {GROUP_NOTE.format(n=len(run))}")
            pos = blocks[run[0]].start()
            groups += 1
        for i in run:
            m = blocks[i]
            out.append(body[pos:m.start(1)])
            out.append(f"__Vbx8[{byte}U] & 0x{1 << (i % 8):02x}U /* {' '.join(m.group(1).split())} */")
            pos = m.end(1)
        if len(run) > 1:
            out.append(body[pos:blocks[run[-1]].end()])
            out.append("\n    }")
            pos = blocks[run[-1]].end()
    out.append(body[pos:])
    table = (f"// beryl-sim (sim/nba_clk.py): per trigger bit (word * 64 + bit), the kept trigger tests of\n"
             f"// {fn} whose masks include it (bit i of the row: test i in the function's order)\n"
             f"static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,\n"
             f"              \"the bitmap's bytes are read in little-endian order\");\n"
             f"alignas(64) static const uint64_t {ROWS}[{64 * words}][{nx}] = {{\n"
             + "".join("    {" + ", ".join(f"0x{x:016x}ULL" for x in r) + "},\n" for r in rows)
             + f"}};\nstatic const uint64_t {LIVE}[{words}] = {{"
             + ", ".join(f"0x{x:016x}ULL" for x in live) + "};\n")
    exe = (f"    {EXEC_NOTE}\n"
           f"    alignas(64) uint64_t __Vbx[{nx}];\n"
           f"    for (int __Vk = 0; __Vk < {nx}; __Vk++) __Vbx[__Vk] = 0;\n"
           f"    for (int __Vw = 0; __Vw < {words}; __Vw++) {{\n"
           f"        uint64_t __Vt = vlSelfRef.__VnbaTriggered[__Vw] & {LIVE}[__Vw];\n"
           f"        while (__Vt) {{\n"
           f"            const uint64_t* const __Vr = {ROWS}[__Vw * 64 + __builtin_ctzll(__Vt)];\n"
           f"            __Vt &= __Vt - 1;\n"
           f"            for (int __Vk = 0; __Vk < {nx}; __Vk++) __Vbx[__Vk] |= __Vr[__Vk];\n"
           f"        }}\n"
           f"    }}\n"
           f"    const uint8_t* const __Vbx8 = reinterpret_cast<const uint8_t*>(__Vbx);\n")
    return "".join(out), table, exe, n, groups


def patch(text, fn, clk_word, clk_bit, words):
    """the patched source, the numbers of tests removed and kept, and the number of groups"""
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
             f"(sim/nba_clk.py)\");\n"
             f"    if (VL_UNLIKELY(!vlSelfRef.clk)) VL_FATAL_MT(__FILE__, __LINE__, \"\", \"beryl-sim: NBA region run "
             f"with clk low (sim/nba_clk.py)\");\n")
    new_body = new_body[:i] + check + new_body[i:]
    if removed == 0:
        fail(f"{fn}: no trigger test includes posedge clk (Verilator changed?)")
    b = new_body.find("\n    // Body\n")
    if b < 0:
        fail(f"{fn}: no '// Body' line before the trigger tests")
    tested, table, exe, n, groups = bitmap_tests(new_body[b:], fn, words)
    if n != kept:
        fail(f"{fn}: {kept} kept trigger tests, but {n} at the top level of the function")
    new_body = new_body[:b] + "\n" + exe.rstrip("\n") + tested
    return text[:start] + table + "\n" + new_body + text[end:], removed, kept, groups


CLK_LOW = "if ((1U & (~ (IData)(vlSelfRef.clk)))) {"
NBA_LATCH = "if (0U /* clk is high in the NBA region: the gate latches are closed (sim/nba_clk.py) */) {"
ICO_FLAG = "beryl_sim_ico_no_latches"
ICO_LATCH = f"if (!{ICO_FLAG} && (1U & (~ (IData)(vlSelfRef.clk)))) {{   // sim/nba_clk.py"
FUNC = re.compile(r"^(?:VL_ATTR_COLD )?(?:void|bool) (\w+)\([^;{}\n]*\) \{\n(.*?)\n\}\n", re.S | re.M)
LATCH_COPY = re.compile(r"\s*vlSelfRef\.(\w+)__DOT__gate_en_l\s*=\s*vlSelfRef\.\1__DOT__gate_en_now;")


def latches(texts, root):
    """The clock gates' latches (rtl/common/beryl_clk_gate.sv: `if (!clk) gate_en_l = gate_en_now`),
    whose outputs only Verilator's own trigger pass reads, which beryl-sim's fast edges bypass
    (sim/main.cpp, rise_fast()). In the functions that only _eval_nba calls, the test of clk low is
    false (NBA runs at a rising edge; the function checks clk at its top): made `if (0U)`. In the input
    region's functions a test of clk low whose block holds only latch copies also tests a flag that
    the harness sets around a fast falling-edge eval (fall_fast()); full evals (the first, those of
    --check-fast-edge, builds without fast edges) still run the latches. Returns (texts, nba tests,
    ico blocks)."""
    funcs, callers = {}, {}
    for p, t in texts.items():
        for m in FUNC.finditer(t):
            funcs[m.group(1)] = p
            for c in set(re.findall(r"\b(\w+)\(vlSelf\);", m.group(2))):
                callers.setdefault(c, set()).add(m.group(1))
    nba_only = {f for f, c in callers.items() if c == {f"{root}___eval_nba"} and f in funcs}
    nba_only.add(f"{root}___eval_nba")
    ico_only = {f for f, c in callers.items() if c == {f"{root}___eval_ico"} and f in funcs}
    n_nba = n_ico = 0
    out = dict(texts)
    for p, t in texts.items():
        parts, pos = [], 0
        for m in FUNC.finditer(t):
            name, body = m.group(1), m.group(2)
            if CLK_LOW not in body or (name not in nba_only and name not in ico_only):
                continue
            if name in nba_only:
                n_nba += body.count(CLK_LOW)
                body = body.replace(CLK_LOW, NBA_LATCH)
            else:
                new, bpos = [], 0
                for b in re.finditer(r"\n( +)" + re.escape(CLK_LOW) + r"\n(.*?)\n\1\}", body, re.S):
                    if LATCH_COPY.sub("", b.group(2)).strip():
                        continue   # something other than gate latches: left as it is
                    new.append(body[bpos:b.start()] + "\n" + b.group(1) + ICO_LATCH + "\n" + b.group(2)
                               + "\n" + b.group(1) + "}")
                    bpos = b.end()
                    n_ico += 1
                body = "".join(new) + body[bpos:]
            parts.append(t[pos:m.start(2)] + body)
            pos = m.end(2)
        if parts:
            t = "".join(parts) + t[pos:]
            if n_ico and ICO_FLAG in t and f"extern bool {ICO_FLAG};" not in t:
                i = t.find(f"void {root}___ico_")
                t = (t[:i] + "// set by sim/main.cpp around a fast falling-edge eval (sim/nba_clk.py)\n"
                     f"extern bool {ICO_FLAG};\n\n" + t[i:])
            out[p] = t
    return out, n_nba, n_ico


PACK_NOTE = "// beryl-sim: the clock gates' enables, one byte each in trigger order (sim/nba_clk.py)"


def pack_gates(header, gates):
    """The root header with the gates' enables (`CData gate_en_now`, one byte each) declared on
    consecutive lines in the given order, where the first of them was: the harness then reads them as
    one byte array (8 per 64-bit load) instead of 85 scattered bytes (sim/main.cpp, rise_triggers()).
    Moving a member declaration changes only the object's layout, which the generated code reaches by
    name. Returns (header, gates moved); a header packed before is left."""
    if PACK_NOTE in header:
        return header, 0
    spans = []
    for g in gates:
        ms = list(re.finditer(rf"^([ \t]*)CData/\*0:0\*/ {g}__DOT__gate_en_now;\n", header, re.M))
        if len(ms) != 1:
            fail(f"the root header declares {g}__DOT__gate_en_now {len(ms)} times (expected once)")
        spans.append(ms[0])
    if not spans:
        return header, 0
    first = min(spans, key=lambda m: m.start())
    indent = first.group(1)
    block = (f"{indent}{PACK_NOTE}\n"
             + "".join(f"{indent}CData/*0:0*/ {g}__DOT__gate_en_now;\n" for g in gates))
    out, pos = [], 0
    for m in sorted(spans, key=lambda m: m.start()):
        out.append(header[pos:m.start()])
        if m is first:
            out.append(block)
        pos = m.end()
    out.append(header[pos:])
    return "".join(out), len(gates)


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
    act = act_triggers("".join(texts.values()))
    clk = clk_trigger(act)
    words = (len(act) + 63) // 64
    fn = f"{root}___eval_nba"
    defs = [p for p, t in texts.items() if re.search(rf"^void {fn}\(.*\) \{{$", t, re.M)]
    if len(defs) != 1:
        fail(f"expected one definition of {fn}, found {len(defs)}")
    path = defs[0]
    hpath = f"{vdir}/{root}.h"
    try:
        header = open(hpath).read()
    except OSError as e:
        fail(f"cannot read the root header: {e}")
    header_new, n_packed = pack_gates(header, [g for _, g in gate_order(act, clk)])
    removed = None
    before = dict(texts)
    if MARK not in texts[path]:
        texts[path], removed, kept, groups = patch(texts[path], fn, clk // 64, clk % 64, words)
        texts, n_nba, n_ico = latches(texts, root)
    # every check passed: write (a failed run leaves the sources as they were)
    if header_new != header:
        with open(hpath, "w") as f:
            f.write(header_new)
        print(f"nba_clk.py: {hpath}: the enables of {n_packed} clock gates declared as one byte array")
    for p in srcs:
        if texts[p] != before[p] or counts[p]:
            with open(p, "w") as f:
                f.write(texts[p])
        if counts[p]:
            print(f"nba_clk.py: {p}: {counts[p]} population counts as compiler builtins")
    if removed is not None:
        print(f"nba_clk.py: {path}: {removed} trigger tests with posedge clk removed, {kept} kept "
              f"(bitmap dispatch, {groups} groups by byte); gate latches: {n_nba} tests of clk low in NBA "
              f"functions made false, {n_ico} input-region block(s) skipped by fast falling edges")


if __name__ == "__main__":
    main()
