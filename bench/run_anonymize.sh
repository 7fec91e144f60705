#!/usr/bin/env bash
# Reproduces the anonymization (issue 3) figures of BENCHMARKS.md and prints
# them to stdout:
#
#   1. `cargo bench --bench anonymize`: Mondrian k=5 on Adult and on 1M
#      synthetic rows, CBG k=3 l=6 on Adult and the breach probability of its
#      Release, all in process with the CSV load excluded (it generates
#      target/bench-data/census-1000000.csv if absent, as the scale bench);
#   2. whole `anonlab anonymize` processes under hyperfine: Mondrian k=5 on
#      the 1M rows (target ≤ 3 s), with and without writing the output, and
#      on Adult;
#   3. anonypy's Mondrian (PyPI) on Adult, installed into a temporary venv:
#      its in-process time once, then both whole processes side by side in
#      one hyperfine run (target: anonlab ≥ 200× faster).
#
# Usage: bench/run_anonymize.sh   (from anywhere; some 5 minutes, most of it
# anonypy). Environment: ADULT (default ../shared/data/adult/adult.csv),
# ANONYPY_VERSION (default: the newest on PyPI), ANONYPY_RUNS (default 3: one
# anonypy process takes some 40 s), SKIP_ANONYPY=1 to leave it out.
# hyperfine is installed with apt-get when missing; the tests never need any
# of this.
set -euo pipefail

cd "$(dirname "$0")/.."
ADULT=${ADULT:-../shared/data/adult/adult.csv}
ANONYPY_RUNS=${ANONYPY_RUNS:-3}
CENSUS=target/bench-data/census-1000000.csv

# shellcheck source=bench/common.sh
. bench/common.sh
start

in_process_bench anonymize "In process"

need_hyperfine

CENSUS_CMD="$BIN anonymize $CENSUS --qi $QI -a mondrian -k 5 --queries 0 -o $TMP/census-out.csv"
CENSUS_NOOUT="$BIN anonymize $CENSUS --qi $QI -a mondrian -k 5 --queries 0"
ADULT_CMD="$BIN anonymize $ADULT --qi $QI -a mondrian -k 5 --queries 0 -o $TMP/adult-out.csv"

section "Whole process: Mondrian k=5 on 1M rows (target ≤ 3 s; includes load, verification, linkage and utility measurement, output)"
echo "\$ $CENSUS_CMD"
echo "\$ $CENSUS_NOOUT"
hyperfine -N --style basic --warmup 1 --runs 10 --export-markdown "$TMP/census.md" \
    -n "with -o" "$CENSUS_CMD" -n "without -o" "$CENSUS_NOOUT" >/dev/null
cat "$TMP/census.md"

section "Whole process: Mondrian k=5 on Adult"
echo "\$ $ADULT_CMD"
hyperfine -N --style basic --warmup 3 --runs 30 --export-markdown "$TMP/adult.md" \
    "$ADULT_CMD" >/dev/null
cat "$TMP/adult.md"

if [ "${SKIP_ANONYPY:-0}" = 1 ]; then
    exit 0
fi

section "anonypy on Adult: install and in-process time (one run)"
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q "anonypy${ANONYPY_VERSION:+==$ANONYPY_VERSION}" pandas
"$TMP/venv/bin/pip" show anonypy pandas | grep -E '^(Name|Version)'
"$TMP/venv/bin/python" --version
"$TMP/venv/bin/python" bench/anonypy_adult.py "$ADULT"

section "Side by side, whole processes on Adult (target: anonlab ≥ 200× faster)"
PY_CMD="$TMP/venv/bin/python bench/anonypy_adult.py $ADULT --quiet --output $TMP/anonypy-out.csv"
echo "\$ $ADULT_CMD"
echo "\$ python bench/anonypy_adult.py $ADULT --quiet --output OUT.csv   (imports, CSV read, Mondrian k=5, output)"
hyperfine -N --style basic --warmup 0 --runs "$ANONYPY_RUNS" --export-markdown "$TMP/side.md" \
    -n anonlab "$ADULT_CMD" -n anonypy "$PY_CMD" >/dev/null
cat "$TMP/side.md"
