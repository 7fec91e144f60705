#!/usr/bin/env bash
# Reproduces the "Utility against the peers" table of BENCHMARKS.md (issue
# 16) in one run and prints it to stdout: anonlab's Mondrian beside
# anonypy's on the rows of the issue's table (Adult; QI7 at k = 2, 5, 10;
# QI7 without age at k = 2, 100; occupation as the sensitive column), with
# C_DM, NCP, groups and in-process time of each, and anonlab's full-domain
# generalization (metric dm, shared ARX hierarchies) beside its own optimum
# found by exhaustion over the lattice. bench/utility_peers.py does the
# work; it exits non-zero if anonlab's printed figures differ from the ones
# recomputed from its published table, if full-domain is not optimal, or if
# anonlab's Mondrian is not at or below anonypy's and below full-domain's.
#
# Usage: bench/run_utility.sh   (from anywhere; anonypy takes minutes per
# row at small k). Environment: ADULT_DIR (default ../shared/data/adult),
# ANONYPY_VERSION (default 0.2.1, the version of the issue's table).
# anonypy and pandas are installed from PyPI into a temporary venv; the
# tests never need any of this.
set -euo pipefail

cd "$(dirname "$0")/.."
ADULT_DIR=${ADULT_DIR:-../shared/data/adult}
ANONYPY_VERSION=${ANONYPY_VERSION:-0.2.1}

# shellcheck source=bench/common.sh
. bench/common.sh
start

section "anonypy $ANONYPY_VERSION from PyPI"
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q "anonypy==$ANONYPY_VERSION" pandas
"$TMP/venv/bin/python" -c 'import pandas, sys; print("python", sys.version.split()[0], "pandas", pandas.__version__)'

section "Utility against the peers"
"$TMP/venv/bin/python" bench/utility_peers.py "$ADULT_DIR/adult.csv" \
    --anonlab "$BIN" --hierarchies "$ADULT_DIR"
