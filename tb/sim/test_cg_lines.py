# SPDX-License-Identifier: MIT
"""bench/sim/cg_lines.py, the simulator's line-level profile: its reading of callgrind files.
Reference: hand-written callgrind files in the documented format (valgrind's callgrind format
specification: name compression, relative and "*" positions, the inclusive cost line after
"calls="), and for --binary the addresses nm reports for two functions of a small program built
here with gcc -g, resolved by addr2line."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "sim"))
import cg_lines  # noqa: E402

ROOT_CPP = "/x/Vtop___024root__0.cpp"


def test_line_positions(tmp_path):
    f = tmp_path / "cg.out"
    f.write_text(f"""# callgrind format
version: 1
positions: line
events: Ir
fl=(1) {ROOT_CPP}
fn=(1) f
10 5
+2 3
cfn=(2) g
calls=1 50
* 100
* 7
fi=(2) verilated_funcs.h
200 4
fe=(1)
-1 2
fn=(3) h
fl=(1)
20 1
""")
    cost = cg_lines.line_costs(str(f))
    assert cost == {(ROOT_CPP, 10): 5, (ROOT_CPP, 12): 10, ("verilated_funcs.h", 200): 4,
                    (ROOT_CPP, 199): 2, (ROOT_CPP, 20): 1}


def test_instr_positions_need_the_line_column(tmp_path):
    # the same costs with "instr line" positions: line_costs reads the second column
    f = tmp_path / "cg.out"
    f.write_text(f"""positions: instr line
events: Ir
ob=(1) /x/beryl-sim
fl=(1) {ROOT_CPP}
fn=(1) f
0x1000 10 5
+4 +2 3
cfn=(2) g
calls=1 0x2000 50
* * 100
+2 * 7
""")
    cost = cg_lines.line_costs(str(f))
    assert cost == {(ROOT_CPP, 10): 5, (ROOT_CPP, 12): 10}


@pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("nm") and shutil.which("addr2line")),
                    reason="needs gcc, nm and addr2line (binutils)")
def test_binary_attribution(tmp_path):
    src = tmp_path / "t___024root__0.c"
    src.write_text("int a(int x) { return x + 1; }\n"
                   "int b(int x) { return x * 3; }\n"
                   "int main(int c, char **v) { (void)v; return a(c) + b(c); }\n")
    exe = tmp_path / "t"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(exe), str(src)], check=True)
    syms = {}
    for line in subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout.split("\n"):
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("a", "b"):
            syms[parts[2]] = int(parts[0], 16)
    f = tmp_path / "cg.out"
    f.write_text(f"""positions: instr line
events: Ir
ob=(1) {exe}
fl=(1) {src}
fn=(1) a
{hex(syms["a"])} 1 11
fn=(2) b
{hex(syms["b"])} 2 13
+1 * 2
ob=(2) /lib/libc.so.6
fl=(2) memcpy.S
fn=(3) memcpy
0x99 0 5
ob=(1)
fl=(1)
fn=(1)
{hex(syms["a"])} 1 4
""")
    # ids are per kind: ob=(1) is the program and fl=(1) its source, fl=(2) is not object (2)
    cost = cg_lines.instr_costs(str(f), str(exe))
    by_line = {(Path(k[0]).name, k[1]): v for k, v in cost.items()}
    assert by_line == {(src.name, 1): 15, (src.name, 2): 15, ("memcpy.S", 0): 5}


CG_EVENTS = f"""positions: line
events: Ir I1mr Bcm
fl=(1) {{cpp}}
fn=(1) f
1 10 2 1
+1 4 1
cfn=(2) g
calls=1 50
* 100 30 9
+1 6
fn=(3) h
2 1 0 1
"""


def test_event_column(tmp_path):
    # a named event is read from its own column; trailing zero events may be left out of a line; the
    # inclusive cost after calls= is skipped whatever the event; an unknown event stops with a message
    f = tmp_path / "cg.out"
    f.write_text(CG_EVENTS.format(cpp=ROOT_CPP))
    assert cg_lines.line_costs(str(f)) == {(ROOT_CPP, 1): 10, (ROOT_CPP, 2): 5, (ROOT_CPP, 3): 6}
    assert cg_lines.line_costs(str(f), "I1mr") == {(ROOT_CPP, 1): 2, (ROOT_CPP, 2): 1, (ROOT_CPP, 3): 0}
    assert cg_lines.line_costs(str(f), "Bcm") == {(ROOT_CPP, 1): 1, (ROOT_CPP, 2): 1, (ROOT_CPP, 3): 0}
    with pytest.raises(SystemExit, match="no event Dr"):
        cg_lines.line_costs(str(f), "Dr")


def test_match_sums_matching_lines(tmp_path):
    # --match: the total of the generated lines whose text matches, per the chosen event
    vobj = tmp_path / "vobj"
    vobj.mkdir()
    cpp = vobj / "Vtop___024root__0.cpp"
    cpp.write_text("    if (__Vbx8[0U] & 1U) {\n"
                   "        vlSelfRef.top__DOT__a = 1U;\n"
                   "    if (__Vbx8[0U] & 2U) {\n")
    f = tmp_path / "cg.out"
    f.write_text(CG_EVENTS.format(cpp=cpp))
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "sim" / "cg_lines.py"), str(f), str(vobj),
                          "--cycles", "2", "--event", "I1mr", "--match", "__Vbx"],
                         capture_output=True, text=True, check=True).stdout
    assert "total 3 I1mr" in out
    assert "lines matching '__Vbx': 2 I1mr, 1.0 per cycle, 66.7 %" in out
