# Beryl top-level commands. Both install what they need on first use (scripts/setup.sh).
#   make demo   the main job: Linux traffic between two network namespaces through the NIC RTL
#   make test   everything CI runs: generated-file check, lint, unit and system tests
#   make test-long   the same with BERYL_LONG=1 (long regression, outside CI's default tier)
PY      := .venv/bin/python
JOBS    ?= $(shell nproc)

.PHONY: all setup demo bench bench-dma bench-nic test test-long regs regs-check lint synth clean

all: test

setup:
	@bash scripts/setup.sh

regs: setup
	$(PY) regs/gen.py

regs-check: setup
	$(PY) regs/gen.py --check

lint: setup
	@bash scripts/lint.sh

synth: setup
	$(PY) scripts/synth.py

demo: setup
	$(PY) scripts/demo.py

bench: bench-dma bench-nic bench-nic-sim

bench-dma: setup
	$(PY) bench/pcie_dma/bench_dma.py

bench-nic: setup
	$(PY) bench/nic/bench_nic.py

.PHONY: bench-nic-sim bench-dma-sim
bench-nic-sim: setup
	$(PY) bench/sim/bench_nic_sim.py

bench-dma-sim: setup
	$(PY) bench/sim/bench_dma_sim.py

# TDMA: slot traffic after the slot edge at 100G and 10G (bench/nic/bench_tdma.py, about 2 min)
.PHONY: bench-tdma
bench-tdma: setup
	$(PY) bench/nic/bench_tdma.py

test: setup regs-check lint
	$(PY) -m pytest -n $(JOBS) -q tb sw scripts

# the long regression: the same tests with BERYL_LONG=1 (every frame length, more seeds and
# configurations); not part of CI's default tier
test-long: setup regs-check lint
	BERYL_LONG=1 $(PY) -m pytest -n $(JOBS) -q tb sw scripts

clean:
	rm -rf build
