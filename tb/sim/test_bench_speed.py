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


def test_loaded_row_removes_its_directory(tmp_path, monkeypatch):
    """the loaded row's socket directory goes away with the simulator, also when the run fails (here the
    driver cannot connect: a client that raises, a 'simulator' that exits at once)"""
    import tempfile

    class NoSim:
        def __init__(self, path, *a, **k):
            assert Path(path).parent.parent == tmp_path
            raise ConnectionRefusedError(path)

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(bench_speed, "SimClient", NoSim)
    try:
        bench_speed.loaded_row("/bin/true", 1, 64)
    except ConnectionRefusedError:
        pass
    else:
        raise AssertionError("loaded_row() did not pass the connection error on")
    assert list(tmp_path.iterdir()) == []
