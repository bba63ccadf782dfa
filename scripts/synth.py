#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Synthesis smoke check: Yosys `synth_xilinx -family xcup` on each listed top.

Fails when synthesis fails or infers a latch; prints a resource table (LUT, FF, LUTRAM, BRAM,
URAM, DSP). These are Yosys's estimates for UltraScale+, not Vivado's numbers, and carry no timing.
Usage: synth.py [--json] [-j N] [top ...]   (default: every top in TOPS; N Yosys runs at a time,
default the number of CPUs)
"""
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from filelist import resolve  # noqa: E402

# top -> (source list, parameters)
TOPS = {
    "beryl_pcie_us_top": ("rtl/pcie/beryl_pcie_us_top.f", {"TLP_DATA_W": 512}),
    "beryl_pcie_us_top_x8": ("rtl/pcie/beryl_pcie_us_top.f", {"TLP_DATA_W": 256}),
    "beryl_eth_mac_10g": ("rtl/eth/beryl_eth_mac_10g.f", {"MAX_FRAME_LEN": 9216, "CNT_W": 64}),
    "beryl_eth_mac_10g_tx": ("rtl/eth/beryl_eth_mac_10g_tx.f", {"DIC_EN": 1}),
    "beryl_eth_mac_10g_rx": ("rtl/eth/beryl_eth_mac_10g_rx.f", {"MAX_FRAME_LEN": 9216}),
    "beryl_eth_mac_stats": ("rtl/eth/beryl_eth_mac_stats.f", {"CNT_W": 64}),
    "beryl_eth_mac_10g_fifo": ("rtl/eth/beryl_eth_mac_10g_fifo.f", {"TX_FIFO_DEPTH": 2048, "RX_FIFO_DEPTH": 2048}),
    "beryl_axis_async_fifo": ("rtl/common/beryl_axis_async_fifo.f",
                              {"DATA_W": 64, "USER_W": 65, "DEPTH": 2048, "FRAME_EN": 1, "DROP_WHEN_FULL_EN": 1}),
    "beryl_eth_pcs_10g": ("rtl/eth/beryl_eth_pcs_10g.f", {"SLIP_WAIT": 32}),
    "beryl_eth_pcs_10g_tx": ("rtl/eth/beryl_eth_pcs_10g_tx.f", {}),
    "beryl_eth_pcs_10g_rx": ("rtl/eth/beryl_eth_pcs_10g_rx.f", {"SLIP_WAIT": 32}),
    "beryl_eth_pcs_serdes_w32": ("rtl/eth/beryl_eth_pcs_serdes_w32.f", {}),
    "beryl_eth_pcs_10g_w32": ("rtl/eth/beryl_eth_pcs_10g_w32.f", {"SLIP_WAIT": 32}),
    "beryl_ptp_clock": ("rtl/ptp/beryl_ptp_clock.f", {"FNS_W": 32, "PERIOD_NS": 4}),
    "beryl_ptp_perout": ("rtl/ptp/beryl_ptp_perout.f", {"PFNS_W": 32}),
    "beryl_ptp_tdma_timer": ("rtl/ptp/beryl_ptp_tdma_timer.f", {"SLOTS_MAX": 8}),
    "beryl_eth_mac_100g_tx": ("rtl/eth/beryl_eth_mac_100g_tx.f", {"DIC_EN": 1}),
    "beryl_eth_mac_100g_rx": ("rtl/eth/beryl_eth_mac_100g_rx.f", {"MAX_FRAME_LEN": 9216}),
    "beryl_eth_seg_to_axis": ("rtl/eth/beryl_eth_seg_to_axis.f", {"TS_W": 64, "FIFO_WORDS": 64, "MAX_FRAME": 16384}),
    "beryl_nic_rx_parse": ("rtl/nic/beryl_nic_rx_parse.f", {"DATA_W": 512}),
    "beryl_nic_rss_toeplitz": ("rtl/nic/beryl_nic_rss_toeplitz.f", {}),
    "beryl_nic_rss_indir": ("rtl/nic/beryl_nic_rss_indir.f", {"TABLE_DEPTH": 128, "QUEUE_W": 12}),
    "beryl_nic_csum": ("rtl/nic/beryl_nic_csum.f", {"DATA_W": 512}),
    "beryl_nic_sched_tdma": ("rtl/nic/beryl_nic_sched_tdma.f", {"QUEUE_COUNT": 4096, "MAX_CMDS": 8, "SLOTS_MAX": 8}),
    "beryl_nic_tx_gate": ("rtl/nic/beryl_nic_tx_gate.f", {"DATA_W": 512, "QI_W": 12, "SLOTS_MAX": 8,
                                                          "PARK_BEATS": 256, "PARK_FRAMES": 32}),
    # one NIC interface at its defaults: 4096 TX / 256 RX / 8192 completion / 32 event queues,
    # 32 TX and 32 RX packets in flight of up to 16 KiB, RSS table of 256
    "beryl_nic_if": ("rtl/nic/beryl_nic_if.f", {}),
}

CELLS = {
    "LUT": r"LUT[1-6]$",
    "FF": r"FD[CPRS]E$",
    "LUTRAM": r"RAM(32|64|128|256)[MXS].*|SRL.*",
    "BRAM36": r"RAMB36E2$",
    "BRAM18": r"RAMB18E2$",
    "URAM": r"URAM288.*",
    "DSP": r"DSP48E2$",
    "LATCH": r"LD[CP]E?$|\$.*latch.*",
}


def build_ids():
    """Identity-block parameters of this build: commit hash (8 hex digits), UTC date and time in BCD."""
    try:
        h = subprocess.run(["git", "rev-parse", "--short=8", "HEAD"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.strip()
        git_hash = int(h, 16)
    except (subprocess.CalledProcessError, ValueError, FileNotFoundError):
        git_hash = 0
    now = time.gmtime()
    return {"GIT_HASH": git_hash,
            "BUILD_DATE": int(time.strftime("%Y%m%d", now), 16),
            "BUILD_TIME": int(time.strftime("%H%M%S", now), 16)}


def synth(name, flist, params):
    top = name.split("_x")[0] if name.endswith("_x8") else name
    if top.startswith("beryl_pcie_us_top"):
        params = {**params, **build_ids()}
    files = " ".join(str(p) for p in resolve(REPO / flist))
    chparam = " ".join(f"-set {k} {v}" for k, v in params.items())
    script = (f"read_verilog -sv {files}; chparam {chparam} {top}; hierarchy -check -top {top}; "
              f"synth_xilinx -family xcup -noiopad -top {top}; stat")
    t0 = time.time()
    # Debian's yosys: the yowasp build's ABC exits silently on these machines (see docs/toolchain notes)
    out = subprocess.run(["yosys", "-p", script], capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stdout[-4000:] + out.stderr[-4000:])
        raise SystemExit(f"synth: {name}: yosys failed")
    counts = {k: 0 for k in CELLS}
    # the last `stat` block is the whole design
    if "Printing statistics" not in out.stdout:
        sys.stderr.write(out.stdout[-4000:])
        raise SystemExit(f"synth: {name}: yosys printed no statistics")
    block = out.stdout.split("Printing statistics")[-1]
    block = block.split("=== design hierarchy ===")[-1]
    for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", block, re.M):
        cell, cnt = m.group(1), m.group(2)
        for k, pat in CELLS.items():
            if re.match(pat, cell):
                counts[k] += int(cnt)
    counts["seconds"] = round(time.time() - t0, 1)
    return counts


# the largest designs start first, so that with N runs at a time none of them is left to run alone at the end
HEAVY_FIRST = ("beryl_nic_if", "beryl_pcie_us_top", "beryl_pcie_us_top_x8")


def main():
    argv = sys.argv[1:]
    if "-h" in argv or "--help" in argv:
        print(__doc__.strip())
        return
    jobs = os.cpu_count() or 1
    if "-j" in argv:
        i = argv.index("-j")
        if i + 1 >= len(argv) or not argv[i + 1].isdigit() or int(argv[i + 1]) < 1:
            raise SystemExit("synth: -j needs a positive number")
        jobs = int(argv[i + 1])
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    unknown = [a for a in args if a not in TOPS]
    if unknown:
        raise SystemExit(f"synth: unknown top(s) {unknown}; known: {', '.join(TOPS)}")
    names = args or list(TOPS)
    order = sorted(names, key=lambda n: (n not in HEAVY_FIRST, names.index(n)))
    # each run is a yosys process: threads only wait for them
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {n: pool.submit(synth, n, *TOPS[n]) for n in order}
        results = {n: futures[n].result() for n in names}
    if "--json" in sys.argv:
        print(json.dumps(results, indent=2))
    else:
        cols = ["LUT", "FF", "LUTRAM", "BRAM36", "BRAM18", "URAM", "DSP", "seconds"]
        print(f"| top | params | {' | '.join(cols)} |")
        print("|---|---|" + "---:|" * len(cols))
        for n, c in results.items():
            p = ",".join(f"{k}={v}" for k, v in TOPS[n][1].items() if not k.startswith(("GIT", "BUILD")))
            print(f"| {n.replace('_x8', '')} | {p} | " + " | ".join(str(c[k]) for k in cols) + " |")
    bad = [n for n, c in results.items() if c["LATCH"]]
    if bad:
        raise SystemExit(f"synth: latches inferred in {bad}")


if __name__ == "__main__":
    main()
