#!/usr/bin/env bash
# Reproduces the local-suppression (issue 33) figures of BENCHMARKS.md and
# prints them to stdout:
#
#   1. `cargo bench --bench local_suppression`: k = 5 with the 8 Adult key
#      variables on Adult and on the 1M-row synthetic census, in process,
#      the load excluded, with the cells against sdcMicro's greedy alone;
#   2. whole `anonlab anonymize -a local-suppression` processes under
#      hyperfine: Adult (target ≤ 1 s) and the 1M rows (target ≤ 30 s),
#      each with -o (load, search, greedy floor, verification, linkage and
#      the after figures, output).
#
# Usage: bench/run_local_suppression.sh (from anywhere). Environment:
# ADULT (default ../shared/data/adult/adult.csv), CENSUS_RUNS (default 3).
# hyperfine is installed with apt-get when missing.
set -euo pipefail

cd "$(dirname "$0")/.."
ADULT=${ADULT:-../shared/data/adult/adult.csv}
CENSUS=target/bench-data/census-1000000.csv
CENSUS_RUNS=${CENSUS_RUNS:-3}

# shellcheck source=bench/common.sh
. bench/common.sh
start

in_process_bench local_suppression "In process"

need_hyperfine

ADULT_CMD="$BIN anonymize $ADULT --qi $QI -a local-suppression -k 5 --queries 0 -o $TMP/adult-ls.csv"
CENSUS_CMD="$BIN anonymize $CENSUS --qi $QI -a local-suppression -k 5 --queries 0 -o $TMP/census-ls.csv"

section "Whole process: local suppression k=5, 8 keys, on Adult (target ≤ 1 s)"
echo "\$ $ADULT_CMD"
hyperfine -N --style basic --warmup 1 --runs 10 --export-markdown "$TMP/adult.md" \
    "$ADULT_CMD" >/dev/null
cat "$TMP/adult.md"

section "Whole process: local suppression k=5, 8 keys, on 1M rows (target ≤ 30 s)"
echo "\$ $CENSUS_CMD"
hyperfine -N --style basic --runs "$CENSUS_RUNS" --export-markdown "$TMP/census.md" \
    "$CENSUS_CMD" >/dev/null
cat "$TMP/census.md"
