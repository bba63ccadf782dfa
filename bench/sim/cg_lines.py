#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a beryl-sim cycle goes, by RTL block and signal: reads a callgrind output file of a model
built with line information and sums the cost of each line of the Verilator-generated C++ under the
RTL signal it (or the nearest line above it) assigns.

    make -C sim PGO=0 OUT=$PWD/build/lineprof EXTRA_VFLAGS="-CFLAGS -g"
    valgrind --tool=callgrind --callgrind-out-file=cg.out build/lineprof/beryl-sim --bench-cycles 40000 --quiet
    python3 bench/sim/cg_lines.py cg.out build/lineprof/vobj --cycles 40000

With --binary (a callgrind run with --dump-instr=yes), every instruction is looked up with
addr2line, so the cost of Verilator's inlined helpers (wide shifts, population counts: reported as
verilated_funcs.h otherwise) goes to the generated line that called them:

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out build/lineprof/beryl-sim ...
    python3 bench/sim/cg_lines.py cg.out build/lineprof/vobj --cycles 40000 --binary build/lineprof/beryl-sim

With --perf, the input is a time-sampled profile instead (wall clock, so instruction-cache misses
and branch mispredictions count where they happen; perf's cpu-clock event needs no hardware counters):

    perf record -e cpu-clock -F 9999 -o perf.data build/lineprof/beryl-sim ...   (or any -g build)
    perf script -i perf.data -F ip,sym,symoff,dso > perf.txt
    python3 bench/sim/cg_lines.py perf.txt build/lineprof/vobj --perf --binary build/lineprof/beryl-sim

The attribution is approximate (a line is given to the nearest signal above it), but ranks the
blocks whose per-cycle work is worth guarding. Figures are instructions per simulated cycle
(total / --cycles, start-up included). --lines N also lists the N most costly generated lines."""
import argparse
import collections
import os
import re
import subprocess
import sys


class Names:
    """callgrind's name compression: "(id) name" defines an id, "(id)" refers back to it (one
    table per kind: objects, files and functions number their names separately)."""

    def __init__(self):
        self.names = {}

    def __call__(self, s):
        m = re.match(r"\((\d+)\)(?: (.*))?", s)
        if not m:
            return s
        if m.group(2):
            self.names[m.group(1)] = m.group(2)
        return self.names.get(m.group(1), s)


def cost_lines(path, event=None):
    """(object, file, positions, cost) for each cost line of a callgrind file: positions are the
    position fields as written (absolute, +/- relative or *; "instr line" or "line"), cost the
    named event (the first if None), None for the inclusive cost line after a call (the callee reports
    its own)."""
    obj_name, file_name, fn_name = Names(), Names(), Names()
    obj = cur_file = sub_file = None
    after_calls = False
    npos = 1   # position columns ("positions: line" or "positions: instr line")
    col = 0    # the event's column after the positions
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            if line.startswith("positions:"):
                npos = len(line.split()) - 1
                continue
            if line.startswith("events:"):
                names = line.split()[1:]
                if event is not None:
                    if event not in names:
                        sys.exit(f"cg_lines.py: {path} has no event {event} (events: {' '.join(names)})")
                    col = names.index(event)
                continue
            key, _, val = line.partition("=")
            if key == "ob":
                obj = obj_name(val)
            elif key == "fl":
                cur_file, sub_file = file_name(val), None
            elif key in ("fi", "fe"):
                sub_file = file_name(val)
            elif key == "fn":
                fn_name(val)
                sub_file = None
            elif key == "cob":
                obj_name(val)
            elif key in ("cfl", "cfi"):
                file_name(val)
            elif key == "cfn":
                fn_name(val)
            elif key == "calls":
                after_calls = True   # the next cost line is the call's inclusive cost
            elif line[0] in "0123456789+-*":
                parts = line.split()
                # (trailing zero events may be left out of a cost line)
                cost = None if after_calls else (int(parts[npos + col]) if len(parts) > npos + col else 0)
                yield obj, sub_file or cur_file, parts[:npos], cost
                after_calls = False


def line_costs(path, event=None):
    """{(file, line): cost} from a callgrind file, by its line positions: the named event (the first,
    Ir, if None)."""
    cost = collections.Counter()
    last = 0
    for _, f, pos, c in cost_lines(path, event):
        p = pos[-1]
        ln = last + int(p) if p[0] in "+-" else (last if p == "*" else int(p))
        last = ln
        if c is not None:
            cost[(f, ln)] += c
    return cost


def add_sites(cost, by_addr, binary):
    """Adds each {address: cost} of `binary` to `cost` at its (file, line), resolved with addr2line -i to
    the innermost frame in the generated model (...024root...cpp), so inlined helper code counts at the
    line that called it."""
    out = subprocess.run(["addr2line", "-a", "-i", "-e", binary], input="\n".join(hex(a) for a in sorted(by_addr)),
                         capture_output=True, text=True, check=True).stdout
    frames = {}
    cur = None
    for l in out.split("\n"):
        if l.startswith("0x"):
            cur = int(l, 16)
            frames[cur] = []
        elif l and cur is not None:
            frames[cur].append(l.split(" ")[0])
    for a, c in by_addr.items():
        chain = frames.get(a, [])
        site = next((x for x in chain if "___024root" in x), chain[0] if chain else "??:0")
        f, _, ln = site.rpartition(":")
        cost[(f, int(ln) if ln.isdigit() else 0)] += c
    return cost


def instr_costs(path, binary):
    """{(file, line): instructions} from a callgrind file with instruction positions (--dump-instr=yes):
    each address of `binary` is resolved with addr2line -i to the innermost frame in the generated
    model (...024root...cpp), so inlined helper code counts at the line that called it."""
    by_addr = collections.Counter()
    other = collections.Counter()
    addr = 0
    target = os.path.realpath(binary)
    for obj, f, pos, c in cost_lines(path):
        p = pos[0]
        if p.startswith("0x"):
            addr = int(p, 16)
        elif p[0] in "+-":
            addr += int(p)
        if c is None:
            continue
        if obj and os.path.realpath(obj) == target:
            by_addr[addr] += c
        else:
            other[(f, 0)] += c
    return add_sites(collections.Counter(other), by_addr, binary)


def perf_costs(path, binary):
    """{(file, line): samples} from `perf script -F ip,sym,symoff,dso` output of a time-sampled run
    (perf record -e cpu-clock: wall-clock cost, cache misses included): each sample of `binary` is
    placed at its symbol's address (nm) plus the offset and resolved like instr_costs()."""
    target = os.path.realpath(binary)
    syms = {}
    for l in subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True, text=True,
                            check=True).stdout.split("\n"):
        f = l.split(" ", 2)
        if len(f) == 3:   # perf names functions without their argument lists
            syms.setdefault(f[2].split("(")[0], int(f[0], 16))
    by_addr = collections.Counter()
    cost = collections.Counter()
    pat = re.compile(r"^\s*[0-9a-f]+\s+(.*)\+0x([0-9a-f]+)\s+\((.*)\)$")
    with open(path) as fh:
        for l in fh:
            m = pat.match(l.rstrip("\n"))
            if not m:
                cost[("(unknown symbol)", 0)] += 1
                continue
            sym, off, dso = m.group(1), int(m.group(2), 16), m.group(3)
            sym = sym.split("(")[0]
            if os.path.realpath(dso) != target or sym not in syms:
                cost[(os.path.basename(dso), 0)] += 1
                continue
            by_addr[syms[sym] + off] += 1
    return add_sites(cost, by_addr, binary)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("callgrind_out")
    ap.add_argument("vobj", help="the model's Verilator output directory (OUT/vobj)")
    ap.add_argument("--cycles", type=int, default=1, help="divide by this many cycles")
    ap.add_argument("--top", type=int, default=30, help="rows per table")
    ap.add_argument("--binary", help="the profiled beryl-sim (callgrind run with --dump-instr=yes): "
                    "inlined helpers count at their call site")
    ap.add_argument("--perf", action="store_true", help="callgrind_out is `perf script -F ip,sym,symoff,dso` "
                    "output of a perf record -e cpu-clock run of --binary: figures are samples (wall clock)")
    ap.add_argument("--lines", type=int, default=0, help="also list this many most costly generated lines")
    ap.add_argument("--event", help="callgrind event to count instead of the first (Ir), e.g. I1mr or Bcm of "
                    "a --cache-sim=yes --branch-sim=yes run; line positions only (not with --binary/--perf)")
    ap.add_argument("--match", help="also print the total of the generated lines whose text matches this "
                    "regular expression, e.g. '__Vbx' for the NBA dispatch (sim/nba_clk.py)")
    a = ap.parse_args()
    if a.event and (a.binary or a.perf):
        ap.error("--event works on line positions only (without --binary and --perf)")

    if a.perf:
        cost = perf_costs(a.callgrind_out, a.binary)
    else:
        cost = instr_costs(a.callgrind_out, a.binary) if a.binary else line_costs(a.callgrind_out, a.event)
    total = sum(cost.values())
    sources = {}
    by_block = collections.Counter()
    by_signal = collections.Counter()
    for (f, ln), v in cost.items():
        base = os.path.basename(str(f))
        if "___024root" not in base:
            by_block["(no line information: the harness, built -g0)" if base == "??"
                     else f"(outside the RTL: {base})"] += v
            continue
        if base not in sources:
            p = os.path.join(a.vobj, base)
            sources[base] = open(p).read().split("\n") if os.path.exists(p) else []
        src = sources[base]
        sig = None
        for k in range(min(ln, len(src)) - 1, max(ln - 60, 0) - 1, -1):
            m = re.search(r"vlSelfRef\.([A-Za-z0-9_]+)", src[k])
            if m:
                sig = m.group(1)
                break
        if sig is None:
            by_block["(unattributed)"] += v
            continue
        sig = re.sub(r"__BRA__\d+__KET__", "[*]", re.sub(r"__Vdly(set)?__", "", sig))
        parts = sig.split("__DOT__")
        by_signal[sig.replace("__DOT__", ".")] += v
        by_block["/".join(parts[:-1]) if len(parts) > 1 else "(top-level ports)"] += v

    unit = "samples" if a.perf else (a.event or "instructions")
    print(f"total {total} {unit}, {total / a.cycles:.0f} per cycle")
    if a.match:
        pat = re.compile(a.match)
        hit = 0
        for (f, ln), v in cost.items():
            text = sources.get(os.path.basename(str(f)), [])
            if 0 < ln <= len(text) and pat.search(text[ln - 1]):
                hit += v
        print(f"lines matching {a.match!r}: {hit} {unit}, {hit / a.cycles:.1f} per cycle, "
              f"{100 * hit / total if total else 0:.1f} %")
    for title, table in (("block", by_block), ("signal", by_signal)):
        print(f"\n{'per cycle':>10} {'share':>6}  {title}")
        for k, v in table.most_common(a.top):
            print(f"{v / a.cycles:10.0f} {100 * v / total:5.1f}%  {k}")
    if a.lines:
        print(f"\n{'per cycle':>10} {'share':>6}  generated line")
        for (f, ln), v in cost.most_common(a.lines):
            base = os.path.basename(str(f))
            text = sources.get(base, [])
            code = text[ln - 1].strip()[:100] if 0 < ln <= len(text) else ""
            print(f"{v / a.cycles:10.1f} {100 * v / total:5.1f}%  {base}:{ln}  {code}")


if __name__ == "__main__":
    main()
