#!/usr/bin/env bash
# Issue 17's measures beside the peers in one run, same file (Adult):
# anonlab assess against ARX's risk models (when an ARX build is given)
# and pycanon's k-anonymity (PyPI, temporary venv); sdcMicro is run when R
# has it and otherwise said to be missing. bench/risk_peers.py does the
# work and exits non-zero when a figure both compute differs by more than
# 1e-6.
#
# Usage: bench/run_risk_peers.sh   Environment: ADULT_DIR (default
# ../shared/data/adult), ARX_CLASSPATH (an ARX build: its compiled classes
# and the jars of its lib/; ARX is not on a registry this project reaches,
# so it is built from its source by hand — BENCHMARKS.md, issue 17),
# PYCANON_VERSION (default 1.3.6). The tests never need any of this.
set -euo pipefail

cd "$(dirname "$0")/.."
ADULT_DIR=${ADULT_DIR:-../shared/data/adult}
PYCANON_VERSION=${PYCANON_VERSION:-1.3.6}

# shellcheck source=bench/common.sh
. bench/common.sh
start

section "pycanon $PYCANON_VERSION from PyPI"
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q "pycanon==$PYCANON_VERSION" pandas
java -version 2>&1 | head -1 || true

section "Issue 17's measures: anonlab beside ARX, pycanon, sdcMicro"
"$TMP/venv/bin/python" bench/risk_peers.py "$ADULT_DIR/adult.csv" --anonlab "$BIN" \
    ${ARX_CLASSPATH:+--arx-classpath "$ARX_CLASSPATH"}
