#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PCIe DMA throughput with beryl-sim's C++ host model, side by side with the cocotbext-pcie bench.

The same benchmark as bench/pcie_dma/bench_dma.py (cocotb_bench_dma.py): the PCIe subsystem and
its DMA RAM (tb_beryl_pcie_us_top, the same wrapper and parameters) at Gen3 x16, 512-bit, 250 MHz;
per size `count` host-to-device reads into the RAM, then `count` device-to-host writes back from
it (up to 2 MiB per point, 64..4096 transfers), every byte compared; H2D = time from the first
descriptor accepted to the last status, D2H = to the last write arriving in host memory. Run by
sim/dma/main_dma.cpp (`make -C sim DMA=1`, built through tb/common/sim_build.py) with the host
model set as cocotbext-pcie behaves:

- host memory below 4 GiB (3-dword request headers, as cocotbext-pcie's allocations);
- `--link-delay-ns 340 --rd-latency-ns 4`: bench_dma's one-way delay; a 64-byte read's round trip
  (RQ handshake -> first RC beat) comes out at bench_dma's 692 ns;
- flow control as cocotbext-pcie's root port: 64/1024/64 credits freed on arrival, returned by
  UpdateFC after its 146.5 ns timer (`--credit-return-ns 0 --fc-update-ns 146.5`);
- `--dllp-pct 0`: cocotbext-pcie charges a TLP only its header, payload and 8 framing bytes, as
  bench_dma's "theory" does (its ACK/UpdateFC DLLPs go on the wire separately, no SKP ordered
  sets). `--dllp-pct 2` (beryl-sim's default, a real link's allowance) is printed as a second column.

Prints GB/s for MPS 512 and 256 (MRRS 512) next to docs/figures/pcie_dma.json (bench_dma's results)
and writes build/bench/dma_sim.json.

  bench_dma_sim.py [--binary PATH] [--ref FILE]
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tb" / "common"))
import sim_build  # noqa: E402

HOST = ["--link-delay-ns", "340", "--rd-latency-ns", "4", "--credit-return-ns", "0", "--fc-update-ns", "146.5"]


def run(binary, mps, dllp):
    cmd = [binary, "--mps", str(mps), "--mrrs", "512", "--dllp-pct", str(dllp)] + HOST
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    out["cmd"] = " ".join(cmd[1:])
    for r in out["rows"]:
        b = r["size"] * r["count"]
        r["h2d_gbs"], r["d2h_gbs"] = b / r["h2d_ns"], b / r["d2h_ns"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", help="a beryl-dma-bench binary instead of building one")
    ap.add_argument("--ref", default=str(ROOT / "docs" / "figures" / "pcie_dma.json"))
    args = ap.parse_args()
    binary = args.binary or sim_build.build_sim("DMA=1")
    ref = json.loads(Path(args.ref).read_text())
    refruns = {r["mps"]: {x["size"]: x for x in r["rows"]} for r in ref["runs"]}
    t0 = time.time()
    res = {"runs": []}
    for mps in (512, 256):
        like = run(binary, mps, 0)
        real = run(binary, mps, 2)
        res["runs"].append({"mps": mps, "like_cocotb": like, "dllp2": real})
    res["wall_s"] = round(time.time() - t0, 1)
    bad = [(r["mps"], x["size"]) for r in res["runs"] for k in ("like_cocotb", "dllp2")
           for x in r[k]["rows"] if not x["data_ok"] or x["errors"]]
    print(f"PCIe DMA throughput, GB/s: beryl-sim C++ host model vs cocotbext-pcie (bench_dma, {args.ref}); "
          f"Gen3 x16, MRRS 512, read round trip {res['runs'][0]['like_cocotb']['rtt_ns']:.0f} ns (cocotb "
          f"{ref['runs'][0].get('rtt_ns', '?')}); sim columns with --dllp-pct 0 (as cocotbext-pcie charges TLPs), "
          "the last with 2\n")
    for r in res["runs"]:
        mps = r["mps"]
        print(f"MPS {mps}:\n")
        print("| size B | H2D sim | H2D cocotb | diff % | D2H sim | D2H cocotb | diff % | H2D / D2H sim, dllp 2% |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        dl2 = {x["size"]: x for x in r["dllp2"]["rows"]}
        for x in r["like_cocotb"]["rows"]:
            c = refruns.get(mps, {}).get(x["size"])
            cells = [str(x["size"]), f"{x['h2d_gbs']:.2f}"]
            cells += [f"{c['h2d_gbs']:.2f}", f"{100 * (x['h2d_gbs'] / c['h2d_gbs'] - 1):+.1f}"] if c else ["-", "-"]
            cells += [f"{x['d2h_gbs']:.2f}"]
            cells += [f"{c['d2h_gbs']:.2f}", f"{100 * (x['d2h_gbs'] / c['d2h_gbs'] - 1):+.1f}"] if c else ["-", "-"]
            y = dl2[x["size"]]
            cells += [f"{y['h2d_gbs']:.2f} / {y['d2h_gbs']:.2f}"]
            print("| " + " | ".join(cells) + " |")
        print()
    print(f"data checked: {'all transfers intact' if not bad else f'BAD {bad}'}; wall {res['wall_s']} s")
    out = ROOT / "build" / "bench" / "dma_sim.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    print(f"data: {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
