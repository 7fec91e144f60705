#!/usr/bin/env bash
# Reproduces the full-domain (issue 5) figures of BENCHMARKS.md and prints
# them to stdout: whole `anonlab anonymize --algorithm full-domain` processes
# under hyperfine on Adult, the 8 QIs (every column but salary-class) with
# the shared ARX hierarchies, k=5, loss metric:
#
#   1. 0 % suppression (target ≤ 0.3 s);
#   2. 2 % suppression (target ≤ 1 s);
#
# each including the CSV and hierarchy load, the lattice search, the
# independent verification and the linkage / utility measurement (the query
# workload is off: no sensitive attribute). The search figures (optimal
# node, nodes checked) are printed once per setting.
#
# Usage: bench/run_full_domain.sh   (from anywhere; about a minute after the
# release build). Environment: ADULT_DIR (default ../shared/data/adult).
# hyperfine is installed with apt-get when missing; the tests never need it.
set -euo pipefail

cd "$(dirname "$0")/.."
ADULT_DIR=${ADULT_DIR:-../shared/data/adult}

# shellcheck source=bench/common.sh
. bench/common.sh
start

need_hyperfine

BASE="$BIN anonymize $ADULT_DIR/adult.csv --qi $QI -a full-domain --hierarchies $ADULT_DIR -k 5 --metric loss --queries 0"

for SUPP in 0 0.02; do
    case $SUPP in
        0) TARGET="≤ 0.3 s" ;;
        *) TARGET="≤ 1 s" ;;
    esac
    CMD="$BASE --suppression $SUPP"
    section "Whole process: full-domain, Adult, 8 QIs, k=5, suppression $SUPP, loss (target $TARGET)"
    echo "\$ $CMD"
    $CMD | grep -E '^(full-domain|  loss)'
    hyperfine -N --style basic --warmup 2 --runs 20 --export-markdown "$TMP/fd.md" "$CMD" >/dev/null
    cat "$TMP/fd.md"
done
