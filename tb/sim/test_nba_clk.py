# SPDX-License-Identifier: MIT
"""sim/nba_clk.py, which drops the NBA function's trigger tests that include posedge clk, dispatches
the others through a bitmap, takes the clock gates' latches out of the fast edges (and turns
Verilator's 32/64-bit population counts into compiler builtins). Reference: hand-written sources in
the form Verilator 5.048 emits (`_dump_triggers__act` names the triggers, `_eval_nba` tests `mask &
__VnbaTriggered[w]` terms); a test with the clk bit in any term is always true, and every other test
must select the same functions: the patched and the unpatched function are walked for random
trigger words and their calls compared. The patched model itself is checked by tb/sim/test_sim.py's
lock-step build against the ungated RTL."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "sim" / "nba_clk.py"

# clk is act trigger 2 (word 0, bit 2); the other 67 triggers are gates (two 64-bit trigger words)
def dump_entry(i):
    what = "@(posedge clk)" if i == 2 else f"@(posedge (clk & top.u_g{i}.u_gate.gate_en_l))"
    return (f"    if (({1 << (i % 64)}ULL & vlSelf->__VactTriggered[{i // 64}U])) {{\n"
            f"        VL_DBG_MSGF(\"         'act' region trigger index {i} is active: {what}\\n\");\n    }}\n")


DUMP = ("\nVL_ATTR_COLD void Vtop___024root___dump_triggers__act(Vtop___024root* vlSelf) {\n"
        + "".join(dump_entry(i) for i in range(68)) + "}\n")

NBA = r"""
void Vtop___024root___eval_nba(Vtop___024root* vlSelf) {
    VL_DEBUG_IF(VL_DBG_MSGF("+    Vtop___024root___eval_nba\n"); );
    Vtop__Syms* const __restrict vlSymsp VL_ATTR_UNUSED = vlSelf->vlSymsp;
    auto& vlSelfRef = std::ref(*vlSelf).get();
    // Locals
    CData/*0:0*/ __Vinline_x;
    __Vinline_x = 0;
    // Body
    if ((4ULL & vlSelfRef.__VnbaTriggered[0U])) {
        Vtop___024root___nba_sequent__TOP__0(vlSelf);
    }
    if ((1ULL & vlSelfRef.__VnbaTriggered[0U])) {
        Vtop___024root___nba_sequent__TOP__1(vlSelf);
    }
    if ((0x0000000000000006ULL & vlSelfRef.__VnbaTriggered[0U])) {
        Vtop___024root___nba_comb__TOP__2(vlSelf);
    }
    if (((0x0000000000000001ULL & vlSelfRef.__VnbaTriggered[1U])
         | (0x0000000000000009ULL & vlSelfRef.__VnbaTriggered[0U]))) {
        Vtop___024root___nba_comb__TOP__3(vlSelf);
    }
    if (((0x0000000000000004ULL & vlSelfRef.__VnbaTriggered[1U])
         | (0x0000000000000008ULL & vlSelfRef.__VnbaTriggered[0U]))) {
        Vtop___024root___nba_comb__TOP__4(vlSelf);
    }
    if ((4ULL & (vlSelfRef.__VnbaTriggered[1U] | vlSelfRef.__VnbaTriggered[0U]))) {
        Vtop___024root___nba_comb__TOP__5(vlSelf);
    }
    if ((2ULL & (vlSelfRef.__VnbaTriggered[1U] | vlSelfRef.__VnbaTriggered[0U]))) {
        Vtop___024root___nba_comb__TOP__6(vlSelf);
    }
    if (vlSelfRef.top__DOT__x) {
        vlSelfRef.top__DOT__y = 1U;
    }
    vlSelfRef.top__DOT__n = (0x7fU & VL_COUNTONES_Q(vlSelfRef.top__DOT__keep)) + VL_COUNTONES_I(vlSelfRef.top__DOT__k32)
        + VL_COUNTONES_W(4, vlSelfRef.top__DOT__wide);
}
"""


# the gates in trigger order (every act trigger but clk's): C names as in the root header
GATES = [f"top__DOT__u_g{i}__DOT__u_gate" for i in range(68) if i != 2]


def header(gates=GATES):
    """a root header in Verilator's form: anonymous structs of members, the gates' enables scattered
    among other members in an order other than the triggers' (every 7th gate, then the rest)"""
    order = gates[::7] + [g for k, g in enumerate(gates) if k % 7]
    members = []
    for k, g in enumerate(order):
        members.append(f"        CData/*0:0*/ top__DOT__m{k};")
        members.append(f"        CData/*0:0*/ {g}__DOT__gate_en_now;")
        members.append(f"        CData/*0:0*/ {g}__DOT__gate_en_l;")
    structs = [members[i:i + 60] for i in range(0, len(members), 60)]
    return ("class alignas(VL_CACHE_LINE_BYTES) Vtop___024root final {\n  public:\n"
            + "".join("    struct {\n" + "\n".join(m) + "\n    };\n" for m in structs)
            + "    VlUnpacked<QData/*63:0*/, 2> __VnbaTriggered;\n};\n")


def write_model(d, nba=NBA, hdr=None):
    (d / "Vtop___024root__0.cpp").write_text(DUMP)
    (d / "Vtop___024root__1.cpp").write_text(nba)
    (d / "Vtop___024root.h").write_text(header() if hdr is None else hdr)


def run(d):
    return subprocess.run([sys.executable, str(SCRIPT), str(d), "top"], capture_output=True, text=True)


def bitmap_table(src):
    """the rows and live masks of the bitmap table the script writes: ([[word, ...] per trigger bit], [mask per word])"""
    body = re.search(r"beryl_nba_rows\[\d+\]\[\d+\] = \{(.*?)\n\};", src, re.S).group(1)
    rows = [[int(x, 16) for x in re.findall(r"0x([0-9a-f]+)ULL", r)] for r in re.findall(r"\{([^{}]*)\}", body)]
    live = [int(x, 16) for x in re.findall(r"0x([0-9a-f]+)ULL", re.search(r"beryl_nba_live\[\d+\] = \{(.*?)\};", src).group(1))]
    return rows, live


def calls_under_test(src):
    """{called function: its test's text} of the patched _eval_nba"""
    out = {}
    body = src[src.index("_eval_nba(Vtop___024root* vlSelf) {"):]
    for m in re.finditer(r"if \(([^;{}]*?)\) \{\s*(Vtop___024root___\w+)\(vlSelf\);", body):
        out[m.group(2)] = " ".join(m.group(1).split())
    return out


def test_clk_tests_removed(tmp_path):
    write_model(tmp_path)
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "3 trigger tests with posedge clk removed, 4 kept" in r.stdout
    src = (tmp_path / "Vtop___024root__1.cpp").read_text()
    t = calls_under_test(src)
    # clk alone and clk with a gate: always true
    assert t["Vtop___024root___nba_sequent__TOP__0"].startswith("1U")
    assert t["Vtop___024root___nba_comb__TOP__2"].startswith("1U")
    # gates only (bit 0 of word 1 is trigger 64, not clk): kept, as a test of their bit in the bitmap
    # (test i in the function's order: bit i % 8 of byte i // 8), the original test in a comment
    assert t["Vtop___024root___nba_sequent__TOP__1"] == \
        "__Vbx8[0U] & 0x01U /* (1ULL & vlSelfRef.__VnbaTriggered[0U]) */"
    assert t["Vtop___024root___nba_comb__TOP__3"].startswith("__Vbx8[0U] & 0x02U /* ((0x0000000000000001ULL")
    assert t["Vtop___024root___nba_comb__TOP__4"].startswith("__Vbx8[0U] & 0x04U /* ((0x0000000000000004ULL")
    # one mask over both words: bit 2 of word 0 is clk (always true); bit 1 of either word is not
    assert t["Vtop___024root___nba_comb__TOP__5"].startswith("1U")
    assert t["Vtop___024root___nba_comb__TOP__6"] == \
        "__Vbx8[0U] & 0x08U /* (2ULL & (vlSelfRef.__VnbaTriggered[1U] | vlSelfRef.__VnbaTriggered[0U])) */"
    # the bitmap's rows: per trigger bit (word * 64 + bit), the tests whose masks include it
    rows, live = bitmap_table(src)
    assert rows[0][0] == 0x3 and rows[3][0] == 0x6 and rows[1][0] == 0x8 and rows[64 + 1][0] == 0x8
    assert rows[64][0] == 0x2 and rows[64 + 2][0] == 0x4 and rows[2] == [0] * 4   # bit 2: clk, no kept test
    assert live == [0b1011, 0b111]
    # the check in place of the removed tests, after vlSelfRef is set up; other code untouched
    head = src[src.index("auto& vlSelfRef"):src.index("// Locals")]
    assert "__VnbaTriggered[0U] & (1ULL << 2)" in head and "VL_FATAL_MT" in head
    assert "if (vlSelfRef.top__DOT__x) {" in src
    # 32- and 64-bit population counts as builtins, wider ones left
    assert "(0x7fU & __builtin_popcountll(vlSelfRef.top__DOT__keep)) + __builtin_popcount(vlSelfRef.top__DOT__k32)" in src
    assert "VL_COUNTONES_W(4, vlSelfRef.top__DOT__wide)" in src and "VL_COUNTONES_Q" not in src
    assert "2 population counts as compiler builtins" in r.stdout


def test_pack_gates(tmp_path):
    """the gates' enables end up on consecutive lines in trigger order, where the first of them was;
    nothing else in the header changes (sim/main.cpp rise_triggers() reads them as a byte array)"""
    sys.path.insert(0, str(ROOT / "sim"))
    import trig_map
    write_model(tmp_path)
    before = (tmp_path / "Vtop___024root.h").read_text()
    assert not trig_map.packed(before, GATES)
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "the enables of 67 clock gates declared as one byte array" in r.stdout
    after = (tmp_path / "Vtop___024root.h").read_text()
    assert trig_map.packed(after, GATES)
    assert not trig_map.packed(after, GATES[::-1]) and not trig_map.packed(after, GATES[1:] + GATES[:1])
    lines = after.splitlines()
    en = [i for i, l in enumerate(lines) if l.strip().endswith("__DOT__gate_en_now;")]
    assert en == list(range(en[0], en[0] + 67))
    assert [lines[i].split()[1] for i in en] == [f"{g}__DOT__gate_en_now;" for g in GATES]
    # in the struct of the first enable, at its place, with its indentation
    assert lines[en[0] - 1].strip().startswith("// beryl-sim: the clock gates' enables")
    assert lines[en[0] - 2].strip() == "CData/*0:0*/ top__DOT__m0;" and lines[en[0]].startswith("        CData")
    # every other line kept, in order
    rest = lambda text: [l for l in text.splitlines() if "gate_en_now" not in l and "beryl-sim" not in l]
    assert rest(after) == rest(before)
    # idempotent: a second run leaves the header
    assert run(tmp_path).returncode == 0 and (tmp_path / "Vtop___024root.h").read_text() == after


def test_pack_gates_missing(tmp_path):
    """a gate whose enable the header does not declare stops the script, and nothing is written"""
    write_model(tmp_path, hdr=header(GATES[:-1]))
    before = {p.name: p.read_text() for p in tmp_path.iterdir()}
    r = run(tmp_path)
    assert r.returncode != 0 and f"declares {GATES[-1]}__DOT__gate_en_now 0 times" in r.stderr
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == before


def test_idempotent(tmp_path):
    write_model(tmp_path)
    assert run(tmp_path).returncode == 0
    once = (tmp_path / "Vtop___024root__1.cpp").read_text()
    r = run(tmp_path)
    assert r.returncode == 0 and r.stdout == ""
    assert (tmp_path / "Vtop___024root__1.cpp").read_text() == once


@pytest.mark.parametrize("bad, msg", [
    # a trigger test that is not an OR of mask & __VnbaTriggered terms
    (NBA.replace("(0x0000000000000006ULL & vlSelfRef.__VnbaTriggered[0U])",
                 "(0x0000000000000006ULL & vlSelfRef.__VnbaTriggered[0U] & vlSelfRef.top__DOT__en)"),
     "unknown form"),
    # no test includes clk: Verilator changed the scheme
    (NBA.replace("4ULL & vlSelfRef", "16ULL & vlSelfRef").replace("0x0000000000000006ULL", "0x0000000000000002ULL")
     .replace("4ULL & (vlSelfRef", "16ULL & (vlSelfRef"),
     "no trigger test includes posedge clk"),
    # no _eval_nba at all
    (NBA.replace("_eval_nba", "_eval_other"), "expected one definition"),
])
def test_unknown_source_fails(tmp_path, bad, msg):
    write_model(tmp_path, bad)
    before = (tmp_path / "Vtop___024root__1.cpp").read_text()
    r = run(tmp_path)
    assert r.returncode != 0 and msg in r.stderr and "nba_clk.py" in r.stderr
    assert (tmp_path / "Vtop___024root__1.cpp").read_text() == before


# a run of eight kept tests (one with a mask over both words) after NBA's TOP__6, then a statement that
# is not a trigger test, then a single kept test: groups of 6 and 3 in that run of nine, the single one
# left as it is.
# (mask, words) of the run's tests; bit 2 of word 0 is clk, which no kept test has
RUN_SPECS = [(0x1, [0]), (0x2, [1]), (0x8, [0]), (0x10, [1]), (0x20, [0]), (0x40, [0, 1]), (0x80, [1]), (0x200, [0])]


def run_test(k, mask, words):
    if len(words) == 1:
        cond = f"(0x{mask:016x}ULL & vlSelfRef.__VnbaTriggered[{words[0]}U])"
    else:
        cond = f"(0x{mask:016x}ULL & (vlSelfRef.__VnbaTriggered[1U] | vlSelfRef.__VnbaTriggered[0U]))"
    return f"    if ({cond}) {{\n        Vtop___024root___nba_comb__TOP__{10 + k}(vlSelf);\n    }}\n"


RUN = "".join(run_test(k, m, w) for k, (m, w) in enumerate(RUN_SPECS))
NBA_RUN = NBA.replace("    if (vlSelfRef.top__DOT__x) {", RUN + """    vlSelfRef.top__DOT__z = 0U;
    if ((0x0000000000000100ULL & vlSelfRef.__VnbaTriggered[0U])) {
        Vtop___024root___nba_comb__TOP__30(vlSelf);
    }
    if (vlSelfRef.top__DOT__x) {""")


def called(src, t0, t1):
    """the functions the _eval_nba in src calls for trigger words t0, t1: its if/brace structure walked
    with each condition evaluated as a Python expression (independent of how the script groups)"""
    body = src[src.index("// Body"):]
    env = {"t0": t0, "t1": t1}
    if "beryl_nba_rows" in src:
        # the bitmap the patched function builds before its tests, as its C code does: the OR of the
        # rows of the trigger bits that are set and live, read by bytes (little-endian)
        rows, live = bitmap_table(src)
        ex = [0] * len(rows[0])
        for w, t in enumerate((t0, t1)):
            for b in range(64):
                if (t & live[w]) >> b & 1:
                    ex = [x | y for x, y in zip(ex, rows[64 * w + b])]
        env["__Vbx8"] = [x >> (8 * k) & 0xff for x in ex for k in range(8)]
    out, stack, cond = [], [True], None
    for line in body.split("\n")[1:]:
        s = line.split("//")[0].strip()
        if cond is not None or s.startswith("if ("):
            cond = (cond or "") + " " + s
            if not s.endswith("{"):
                continue
            c = cond.strip()[len("if ("):-len(") {")]
            c = c.replace("vlSelfRef.__VnbaTriggered[0U]", "t0").replace("vlSelfRef.__VnbaTriggered[1U]", "t1")
            c = re.sub(r"/\*.*?\*/", "", c).replace("vlSelfRef.top__DOT__x", "0")
            c = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)(?:U?LL|U)\b", r"\1", c)
            stack.append(stack[-1] and bool(eval(c, {}, env)))
            cond = None
        elif s == "}":
            if len(stack) == 1:   # the end of the function
                break
            stack.pop()
        elif stack[-1] and s.startswith("Vtop___024root___nba_"):
            out.append(s.split("(")[0])
    return out


def test_groups(tmp_path):
    write_model(tmp_path, NBA_RUN)
    before = (tmp_path / "Vtop___024root__1.cpp").read_text()
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "3 groups by byte" in r.stdout
    src = (tmp_path / "Vtop___024root__1.cpp").read_text()
    # tests in order: TOP__1 (bit 0), TOP__3, TOP__4, TOP__6 (bits 1-3), the run (bits 4-11), TOP__30
    # (bit 12). Groups: runs of adjacent tests (the clk tests and the plain statement end a run) cut at
    # byte boundaries: TOP__3 + TOP__4, TOP__6 + the run's first four, the run's last four
    heads = re.findall(r"if \(([^{}]*?)\) \{   // beryl-sim: (\d+) trigger tests grouped", src)
    assert heads == [("__Vbx8[0U] & 0x06U", "2"), ("__Vbx8[0U] & 0xf8U", "5"), ("__Vbx8[1U] & 0x0fU", "4")]
    rows, live = bitmap_table(src)
    # the run's tests: bit 4 + k for RUN_SPECS[k], in the rows of the trigger bits of its mask
    for k, (m, words) in enumerate(RUN_SPECS):
        for w in words:
            assert rows[64 * w + m.bit_length() - 1][0] >> (4 + k) & 1
    # one bit per (test, trigger bit of its masks): TOP__1 1, TOP__3 3, TOP__4 2, TOP__6 2, the run 9, TOP__30 1
    assert sum(bin(x).count("1") for r in rows for x in r) == 18
    # the single test after the plain statement is not grouped
    assert "vlSelfRef.top__DOT__z = 0U;\n    if (__Vbx8[1U] & 0x10U /* (0x0000000000000100ULL" in src
    # the same functions run, in the same order, for any trigger words (clk, bit 2 of word 0, always set)
    rng = __import__("random").Random(5)
    for _ in range(300):
        t0 = rng.getrandbits(12) & rng.getrandbits(12) | 4
        t1 = rng.getrandbits(12) & rng.getrandbits(12)
        assert called(src, t0, t1) == called(before, t0, t1)
    assert called(src, 4, 0) == ["Vtop___024root___nba_sequent__TOP__0", "Vtop___024root___nba_comb__TOP__2",
                                 "Vtop___024root___nba_comb__TOP__5"]


# the clock gates' latches (rtl/common/beryl_clk_gate.sv) in the forms Verilator 5.048 emits them: in a
# function only _eval_nba calls, in one that the settle region calls too, and in the input region
LATCH = """    if ((1U & (~ (IData)(vlSelfRef.clk)))) {
        vlSelfRef.top__DOT__u_%s__DOT__u_gate__DOT__gate_en_l 
            = vlSelfRef.top__DOT__u_%s__DOT__u_gate__DOT__gate_en_now;
    }
"""
FUNCS = ("""
void Vtop___024root___nba_comb__TOP__7(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    vlSelfRef.top__DOT__u_a__DOT__u_gate__DOT__gate_en_now = vlSelfRef.top__DOT__busy;
""" + LATCH % ("a", "a") + """}

void Vtop___024root___nba_comb__TOP__8(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
""" + LATCH % ("b", "b") + """}

void Vtop___024root___eval_stl(Vtop___024root* vlSelf) {
    Vtop___024root___nba_comb__TOP__8(vlSelf);
}

void Vtop___024root___ico_sequent__TOP__0(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    vlSelfRef.top__DOT__u_a__DOT__u_gate__DOT__gate_en_now = vlSelfRef.in_valid;
""" + LATCH % ("a", "a") + LATCH % ("c", "c") + """    if ((1U & (~ (IData)(vlSelfRef.clk)))) {
        vlSelfRef.top__DOT__user_latch = vlSelfRef.in_data;
    }
}

void Vtop___024root___eval_ico(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    if ((1ULL & vlSelfRef.__VicoTriggered[0U])) {
        Vtop___024root___ico_sequent__TOP__0(vlSelf);
    }
}
""")


def test_gate_latches(tmp_path):
    nba = NBA.replace("    if (vlSelfRef.top__DOT__x) {", "    Vtop___024root___nba_comb__TOP__7(vlSelf);\n"
                      "    Vtop___024root___nba_comb__TOP__8(vlSelf);\n" + LATCH % ("d", "d")
                      + "    if (vlSelfRef.top__DOT__x) {")
    write_model(tmp_path, nba)
    (tmp_path / "Vtop___024root__2.cpp").write_text(FUNCS)
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    # in _eval_nba itself and in TOP__7 (called only there): clk is high, the test is false
    assert "gate latches: 2 tests of clk low in NBA functions made false, 2 input-region block(s)" in r.stdout
    nba_src = (tmp_path / "Vtop___024root__1.cpp").read_text()
    funcs = (tmp_path / "Vtop___024root__2.cpp").read_text()
    body = lambda src, fn: src[src.index(f"void Vtop___024root___{fn}("):][:src[src.index(f"void Vtop___024root___{fn}("):].index("\n}\n")]
    assert "if (0U /* clk is high" in body(nba_src, "eval_nba") and "(~ (IData)(vlSelfRef.clk))" not in body(nba_src, "eval_nba")
    assert "if (0U /* clk is high" in body(funcs, "nba_comb__TOP__7")
    # TOP__8 is also called by the settle region (clk may be low there): left
    assert "if (0U" not in body(funcs, "nba_comb__TOP__8") and "(~ (IData)(vlSelfRef.clk))" in body(funcs, "nba_comb__TOP__8")
    # the NBA function stops if clk is low (the rewritten tests assume it high)
    assert "if (VL_UNLIKELY(!vlSelfRef.clk)) VL_FATAL_MT" in body(nba_src, "eval_nba")
    # input region: the blocks of latch copies (a, c) also test the harness's flag; the block with a
    # latch of the design (user_latch) is left
    ico = body(funcs, "ico_sequent__TOP__0")
    assert ico.count("if (!beryl_sim_ico_no_latches && (1U & (~ (IData)(vlSelfRef.clk)))) {") == 2
    assert ico.count("    if ((1U & (~ (IData)(vlSelfRef.clk)))) {\n        vlSelfRef.top__DOT__user_latch") == 1
    assert ico.index("beryl_sim_ico_no_latches &&") < ico.index("u_c__DOT__u_gate__DOT__gate_en_l")
    assert "extern bool beryl_sim_ico_no_latches;" in funcs
    # idempotent
    assert run(tmp_path).stdout == "" and (tmp_path / "Vtop___024root__2.cpp").read_text() == funcs


ICO_SRC = r"""
void Vtop___024root___eval_ico(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    // Body
    if ((1ULL & vlSelfRef.__VicoTriggered[0U])) {
        Vtop___024root___ico_sequent__TOP__0(vlSelf);
    }
}

void Vtop___024root___ico_sequent__TOP__0(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    // Body
    vlSelfRef.top__DOT__u_in__DOT__u_gate__DOT__gate_en_now = ((IData)(vlSelfRef.in_valid) | (IData)(vlSelfRef.top__DOT__held));
    Vtop___024root___ico_comb__TOP__1(vlSelf);
    if ((1U & (~ (IData)(vlSelfRef.clk)))) {
        vlSelfRef.top__DOT__u_in__DOT__u_gate__DOT__gate_en_l = vlSelfRef.top__DOT__u_in__DOT__u_gate__DOT__gate_en_now;
    }
}

void Vtop___024root___ico_comb__TOP__1(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    // Body
    vlSelfRef.top__DOT__ready_q = ((IData)(vlSelf->out_ready) & (IData)(vlSelfRef.in_valid_x));
}

void Vtop___024root___nba_sequent__TOP__0(Vtop___024root* vlSelf) {
    auto& vlSelfRef = std::ref(*vlSelf).get();
    // Body
    vlSelfRef.top__DOT__data_q = vlSelfRef.in_data;
    vlSelfRef.top__DOT__last_q = vlSelfRef.in_last;
}
"""

TOP_H = """class alignas(VL_CACHE_LINE_BYTES) Vtop VL_NOT_FINAL : public VerilatedModel {
  public:
    VL_IN8(&clk,0,0);
    VL_IN8(&in_valid,0,0);
    VL_IN8(&in_valid_x,0,0);
    VL_IN8(&in_last,0,0);
    VL_INW(&in_data,511,0,16);
    VL_IN8(&out_ready,0,0);
    VL_IN64(&spare,63,0);
    VL_OUT8(&in_ready,0,0);
"""


def test_ico_inputs():
    """the inputs the input-combinational region reads: named in _eval_ico or a function it calls at any
    depth (vlSelfRef. or vlSelf->), clk left out; inputs only clocked logic reads (in_data, in_last) and
    unused ones (spare) are not listed (sim/main.cpp skips a falling-edge eval when only those changed)"""
    sys.path.insert(0, str(ROOT / "sim"))
    import trig_map
    inputs = trig_map.model_inputs(TOP_H)
    assert inputs == ["in_valid", "in_valid_x", "in_last", "in_data", "out_ready", "spare"]
    assert trig_map.ico_inputs(ICO_SRC, "Vtop___024root", inputs) == ["in_valid", "in_valid_x", "out_ready"]
    # a function outside the region's call tree does not count, even if it reads an input
    assert "in_data" not in trig_map.ico_inputs(ICO_SRC, "Vtop___024root", ["in_data"])
    with pytest.raises(SystemExit, match="no Vtop___024root___eval_ico"):
        trig_map.ico_inputs(ICO_SRC.replace("___eval_ico(", "___eval_other("), "Vtop___024root", inputs)
