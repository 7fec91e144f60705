#!/usr/bin/env bash
# Reproduces every figure of BENCHMARKS.md and prints them to stdout:
#
#   1. the stage timings of `cargo bench --bench scale` (CSV load, attack
#      simulation, privacy models; Adult and 1M synthetic rows, which it
#      generates into target/bench-data/ if absent);
#   2. whole `anonlab assess` processes under hyperfine (Adult, 1M rows);
#   3. peak RSS from /usr/bin/time -v, beside the CSV file's size;
#   4. pycanon on Adult, installed from PyPI into a temporary venv: its
#      figures checked against anonlab's, its in-process time per model, and
#      both whole processes side by side under hyperfine.
#
# Usage: bench/run.sh            (from anywhere; takes some 5-10 minutes)
# Environment: ADULT (default ../shared/data/adult/adult.csv beside the
# checkout), PYCANON_VERSION (default 1.3.5, the version DESIGN.md's
# deviations are written against), PYCANON_RUNS (default 3: one pycanon
# process takes tens of seconds), SKIP_PYCANON=1 to leave pycanon out.
# hyperfine is installed with apt-get when missing (the machine's user is
# root); the tests never need any of this.
set -euo pipefail

cd "$(dirname "$0")/.."
ADULT=${ADULT:-../shared/data/adult/adult.csv}
PYCANON_VERSION=${PYCANON_VERSION:-1.3.5}
PYCANON_RUNS=${PYCANON_RUNS:-3}
CENSUS=target/bench-data/census-1000000.csv

# shellcheck source=bench/common.sh
. bench/common.sh
start

in_process_bench scale "Stages in process"

need_hyperfine
if [ ! -x /usr/bin/time ]; then
    apt-get update -qq && apt-get install -y -qq time >/dev/null
fi

ADULT_CMD="$BIN assess $ADULT --qi $QI --sensitive salary-class --json"
CENSUS_CMD="$BIN assess $CENSUS --qi $QI --sensitive salary-class --json"

section "Whole process: Adult (target ≤ 0.1 s)"
echo "\$ $ADULT_CMD"
hyperfine -N --style basic --warmup 3 --runs 30 --export-markdown "$TMP/adult.md" \
    "$ADULT_CMD" >/dev/null
cat "$TMP/adult.md"

section "Whole process: 1M rows (target ≤ 1.5 s)"
echo "\$ $CENSUS_CMD"
hyperfine -N --style basic --warmup 1 --runs 10 --export-markdown "$TMP/census.md" \
    "$CENSUS_CMD" >/dev/null
cat "$TMP/census.md"

section "Peak RSS (target for 1M rows: ≤ the CSV file's size)"
for f in "$ADULT" "$CENSUS"; do
    rss=$(/usr/bin/time -v $BIN assess "$f" --qi $QI --sensitive salary-class --json \
        2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}')
    size=$(stat -c %s "$f")
    awk -v f="$f" -v rss="$rss" -v size="$size" \
        'BEGIN { printf "%s: peak RSS %.1f MB (%d KiB), file %.1f MB\n", f, rss * 1024 / 1e6, rss, size / 1e6 }'
done

if [ "${SKIP_PYCANON:-0}" = 1 ]; then
    exit 0
fi

section "pycanon $PYCANON_VERSION on Adult: figures and in-process time per model"
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q "pycanon==$PYCANON_VERSION"
$ADULT_CMD >"$TMP/adult.json"
"$TMP/venv/bin/python" bench/pycanon_adult.py "$ADULT" --anonlab "$TMP/adult.json"

section "Side by side, whole processes on Adult (target: anonlab ≥ 100× faster)"
PY_CMD="$TMP/venv/bin/python bench/pycanon_adult.py $ADULT --quiet"
echo "\$ $ADULT_CMD"
echo "\$ python bench/pycanon_adult.py $ADULT --quiet   (imports, CSV read, all nine models)"
hyperfine -N --style basic --warmup 1 --runs "$PYCANON_RUNS" --export-markdown "$TMP/side.md" \
    -n anonlab "$ADULT_CMD" -n pycanon "$PY_CMD" >/dev/null
cat "$TMP/side.md"
