# Beryl top-level commands. Both install what they need on first use (scripts/setup.sh).
#   make demo   the main job: Linux traffic between two network namespaces through the NIC RTL
#   make test   everything CI runs: generated-file check, lint, unit and system tests
PY      := .venv/bin/python
JOBS    ?= $(shell nproc)

.PHONY: all setup demo bench bench-dma bench-nic test regs regs-check lint synth clean

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

bench: bench-dma bench-nic

bench-dma: setup
	$(PY) bench/pcie_dma/bench_dma.py

bench-nic: setup
	$(PY) bench/nic/bench_nic.py

test: setup regs-check lint
	$(PY) -m pytest -n $(JOBS) -q tb sw scripts

clean:
	rm -rf build
