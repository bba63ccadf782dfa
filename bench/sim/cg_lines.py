#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a beryl-sim cycle goes, by RTL block and signal: reads a callgrind output file of a model
built with line information and sums the cost of each line of the Verilator-generated C++ under the
RTL signal it (or the nearest line above it) assigns.

    make -C sim PGO=0 OUT=$PWD/build/lineprof EXTRA_VFLAGS="-CFLAGS -g"
    valgrind --tool=callgrind --callgrind-out-file=cg.out build/lineprof/beryl-sim --bench-cycles 40000 --quiet
    python3 bench/sim/cg_lines.py cg.out build/lineprof/vobj --cycles 40000

The attribution is approximate (a line is given to the nearest signal above it; costs inside
Verilator's inlined wide-word helpers are reported as verilated_funcs.h), but ranks the blocks whose
per-cycle work is worth guarding. Figures are instructions per simulated cycle (total / --cycles,
start-up included)."""
import argparse
import collections
import os
import re

POS = re.compile(r"^([+-]?\d+|\*)(?:\s+(\d+))?")


def line_costs(path):
    """{(file, line): instructions} from a callgrind file (positions: line; events: Ir)."""
    names = {}
    cost = collections.Counter()
    cur_file = sub_file = None
    last = 0
    after_calls = False

    def name(s):
        m = re.match(r"\((\d+)\)(?: (.*))?", s)
        if not m:
            return s
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), s)

    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            key, _, val = line.partition("=")
            if key == "fl":
                cur_file, sub_file = name(val), None
            elif key in ("fi", "fe"):
                sub_file = name(val)
            elif key == "fn":
                sub_file = None
            elif key in ("cfl", "cfi", "cfn", "cob", "ob"):
                if key in ("cfl", "cfi"):
                    name(val)
            elif key == "calls":
                after_calls = True   # the next cost line is the call's inclusive cost
            else:
                m = POS.match(line)
                if not m:
                    continue
                p = m.group(1)
                ln = last + int(p) if p[0] in "+-" else (last if p == "*" else int(p))
                last = ln
                if after_calls:
                    after_calls = False
                    continue
                if m.group(2):
                    cost[(sub_file or cur_file, ln)] += int(m.group(2))
    return cost


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("callgrind_out")
    ap.add_argument("vobj", help="the model's Verilator output directory (OUT/vobj)")
    ap.add_argument("--cycles", type=int, default=1, help="divide by this many cycles")
    ap.add_argument("--top", type=int, default=30, help="rows per table")
    a = ap.parse_args()

    cost = line_costs(a.callgrind_out)
    total = sum(cost.values())
    sources = {}
    by_block = collections.Counter()
    by_signal = collections.Counter()
    for (f, ln), v in cost.items():
        base = os.path.basename(str(f))
        if "___024root" not in base:
            by_block[f"(outside the RTL: {base})"] += v
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

    print(f"total {total} instructions, {total / a.cycles:.0f} per cycle")
    for title, table in (("block", by_block), ("signal", by_signal)):
        print(f"\n{'per cycle':>10} {'share':>6}  {title}")
        for k, v in table.most_common(a.top):
            print(f"{v / a.cycles:10.0f} {100 * v / total:5.1f}%  {k}")


if __name__ == "__main__":
    main()
