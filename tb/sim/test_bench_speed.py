# SPDX-License-Identifier: MIT
"""bench/sim/bench_speed.py's machine(): the processor printed with every speed table."""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "sim"))

import bench_speed  # noqa: E402

BLOCK = """processor\t: {n}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: {model}
model name\t: {name}
flags\t\t: fpu vme

"""


def test_first_processor_named_with_family_and_model(tmp_path):
    f = tmp_path / "cpuinfo"
    f.write_text(BLOCK.format(n=0, model=207, name="Intel(R) Xeon(R) Processor")
                 + BLOCK.format(n=1, model=1, name="Other"))
    assert bench_speed.machine(str(f)) == "Intel(R) Xeon(R) Processor (family 6, model 207)"


def test_without_family_the_name_alone(tmp_path):
    f = tmp_path / "cpuinfo"
    f.write_text("processor\t: 0\nmodel name\t: ARMv8 Processor rev 1 (v8l)\n\n")
    assert bench_speed.machine(str(f)) == "ARMv8 Processor rev 1 (v8l)"


def test_no_cpuinfo(tmp_path):
    assert bench_speed.machine(str(tmp_path / "missing")) == "unknown processor"
