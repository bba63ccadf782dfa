# SPDX-License-Identifier: MIT
"""sim/nba_clk.py, which drops the NBA function's trigger tests that include posedge clk (and turns
Verilator's 32/64-bit population counts into compiler builtins). Reference:
hand-written sources in the form Verilator 5.048 emits (`_dump_triggers__act` names the triggers,
`_eval_nba` tests `mask & __VnbaTriggered[w]` terms); what each rewritten test must become follows
from the rule (a test with the clk bit in any term is always true, every other test stays). The
patched model itself is checked by tb/sim/test_sim.py's lock-step build against the ungated RTL."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "sim" / "nba_clk.py"

# clk is act trigger 2 (word 0, bit 2); triggers 0, 1, 3 are gates
DUMP = r"""
VL_ATTR_COLD void Vtop___024root___dump_triggers__act(Vtop___024root* vlSelf) {
    if ((1ULL & vlSelf->__VactTriggered[0U])) {
        VL_DBG_MSGF("         'act' region trigger index 0 is active: @(posedge (clk & top.u_a.u_gate.gate_en_l))\n");
    }
    if ((2ULL & vlSelf->__VactTriggered[0U])) {
        VL_DBG_MSGF("         'act' region trigger index 1 is active: @(posedge (clk & top.u_b.u_gate.gate_en_l))\n");
    }
    if ((4ULL & vlSelf->__VactTriggered[0U])) {
        VL_DBG_MSGF("         'act' region trigger index 2 is active: @(posedge clk)\n");
    }
    if ((8ULL & vlSelf->__VactTriggered[0U])) {
        VL_DBG_MSGF("         'act' region trigger index 3 is active: @(posedge (clk & top.u_c.u_gate.gate_en_l))\n");
    }
}
"""

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


def write_model(d, nba=NBA):
    (d / "Vtop___024root__0.cpp").write_text(DUMP)
    (d / "Vtop___024root__1.cpp").write_text(nba)


def run(d):
    return subprocess.run([sys.executable, str(SCRIPT), str(d), "top"], capture_output=True, text=True)


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
    # gates only (bit 0 of word 1 is trigger 64, not clk): kept as they were
    assert t["Vtop___024root___nba_sequent__TOP__1"] == "(1ULL & vlSelfRef.__VnbaTriggered[0U])"
    assert "0x0000000000000009ULL" in t["Vtop___024root___nba_comb__TOP__3"]
    assert "0x0000000000000004ULL" in t["Vtop___024root___nba_comb__TOP__4"]
    # one mask over both words: bit 2 of word 0 is clk (always true); bit 1 of either word is not
    assert t["Vtop___024root___nba_comb__TOP__5"].startswith("1U")
    assert t["Vtop___024root___nba_comb__TOP__6"] == \
        "(2ULL & (vlSelfRef.__VnbaTriggered[1U] | vlSelfRef.__VnbaTriggered[0U]))"
    # the check in place of the removed tests, after vlSelfRef is set up; other code untouched
    head = src[src.index("auto& vlSelfRef"):src.index("// Locals")]
    assert "__VnbaTriggered[0U] & (1ULL << 2)" in head and "VL_FATAL_MT" in head
    assert "if (vlSelfRef.top__DOT__x) {" in src
    # 32- and 64-bit population counts as builtins, wider ones left
    assert "(0x7fU & __builtin_popcountll(vlSelfRef.top__DOT__keep)) + __builtin_popcount(vlSelfRef.top__DOT__k32)" in src
    assert "VL_COUNTONES_W(4, vlSelfRef.top__DOT__wide)" in src and "VL_COUNTONES_Q" not in src
    assert "2 population counts as compiler builtins" in r.stdout


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
    out, stack, cond = [], [True], None
    for line in body.split("\n")[1:]:
        s = line.split("//")[0].strip()
        if cond is not None or s.startswith("if ("):
            cond = (cond or "") + " " + s
            if not s.endswith("{"):
                continue
            c = cond.strip()[len("if ("):-len(") {")]
            c = c.replace("vlSelfRef.__VnbaTriggered[0U]", "t0").replace("vlSelfRef.__VnbaTriggered[1U]", "t1")
            c = re.sub(r"(0x[0-9a-fA-F]+|\d+)U?LL|(\d+)U", lambda m: m.group(1) or m.group(2), c)
            c = re.sub(r"/\*.*?\*/", "", c).replace("vlSelfRef.top__DOT__x", "0")
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
    assert "in 3 groups of up to 6" in r.stdout     # 6 + 3 of the run, 2 (TOP__3, TOP__4) before it
    src = (tmp_path / "Vtop___024root__1.cpp").read_text()
    heads = re.findall(r"if \(([^{}]*?)\) \{   // beryl-sim: (\d+) trigger tests grouped", src)
    assert [n for _, n in heads] == ["2", "6", "3"]
    # a group's test is the OR of its members' masks per word (the first: TOP__6 and five of the run)
    w = [0, 0]
    for m, words in [(0x2, [0, 1])] + RUN_SPECS[:5]:
        for x in words:
            w[x] |= m
    assert heads[1][0] == (f"(0x{w[0]:016x}ULL & vlSelfRef.__VnbaTriggered[0U]) | "
                           f"(0x{w[1]:016x}ULL & vlSelfRef.__VnbaTriggered[1U])")
    assert w == [0x2b, 0x12]
    # the single test after the plain statement is not grouped
    assert "vlSelfRef.top__DOT__z = 0U;\n    if ((0x0000000000000100ULL" in src
    # the same functions run, in the same order, for any trigger words (clk, bit 2 of word 0, always set)
    rng = __import__("random").Random(5)
    for _ in range(300):
        t0 = rng.getrandbits(12) & rng.getrandbits(12) | 4
        t1 = rng.getrandbits(12) & rng.getrandbits(12)
        assert called(src, t0, t1) == called(before, t0, t1)
    assert called(src, 4, 0) == ["Vtop___024root___nba_sequent__TOP__0", "Vtop___024root___nba_comb__TOP__2",
                                 "Vtop___024root___nba_comb__TOP__5"]
