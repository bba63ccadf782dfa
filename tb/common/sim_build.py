# SPDX-License-Identifier: MIT
"""Build (or reuse) the C++ simulator (sim/, `make -C sim`) from tests and benchmarks.

pytest-xdist workers, a benchmark and a test may all ask for the same build at once; two `make`
runs in one Verilator output directory corrupt each other's objects (seen in CI as an undefined
`..._eval` at link time). One lock file under build/ serialises every build through this helper.
"""
import fcntl
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "build" / "sim-cpp" / ".build.lock"


class SimBuildError(RuntimeError):
    pass


def build_sim(*make_vars, timeout=3600):
    """Build beryl-sim with the given make variables (e.g. "IF_COUNT=1"); return the binary path.
    Raises SimBuildError with the tail of make's output when the build fails, and FileNotFoundError
    when there is no C++ compiler."""
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        raise FileNotFoundError("g++ not found: the C++ simulator cannot be built")
    # Profile-guided optimisation compiles the model twice; only the default build (the one users run
    # and whose speed is reported) gets it unless the caller asks. Other configurations are for tests
    # and cycle-accurate benchmarks, whose results do not depend on the simulator's speed.
    if make_vars and not any(v.startswith("PGO=") for v in make_vars):
        make_vars = (*make_vars, "PGO=0")
    mk = ["make", "-s", "-C", str(REPO / "sim"), *make_vars]
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(mk, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise SimBuildError(f"simulator build failed ({' '.join(mk)}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        return subprocess.run(mk + ["print-bin"], capture_output=True, text=True, check=True).stdout.strip()
