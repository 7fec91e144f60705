#!/usr/bin/env bash
# Issue 33: local suppression, anonlab beside sdcMicro 5.8.1, interleaved
# (each setting runs sdcMicro, then anonlab, on the same file), on
# sdcMicro's testdata and free1 and on UCI Adult, k = 2, 3, 5, with
# sdcMicro's default importance and with a given one. Prints one markdown
# table: suppressions per attribute, the total, whether each result is
# k-anonymous under the convention (sdcMicro's freqCalc alpha = 1 for its
# result; anonlab's independent verifier for anonlab's, and the table is
# also re-checked by freqCalc), and the whole-process time of each.
#
# Needs sdcMicro (../shared/tools/sdcmicro/install.sh; SDC_LIB, default
# /tmp/sdc/Rlib). usage: bench/sdcmicro/run.sh [TIMEOUT_S per sdcMicro run]
set -euo pipefail
cd "$(dirname "$0")/../.."
SDC_LIB=${SDC_LIB:-/tmp/sdc/Rlib}
LIMIT=${1:-1800}
# shellcheck source=bench/common.sh
. bench/common.sh
# shellcheck source=bench/sdcmicro/settings.sh
. bench/sdcmicro/settings.sh
start
section "Local suppression: sdcMicro beside anonlab"
echo "$SETTINGS" | while read -r name file sep keys; do
  [ -z "$name" ] && continue
  for imp in default given; do
    i=default; [ "$imp" = given ] && i=$(ranks "$keys")
    for k in 2 3 5; do
      R_LIBS=$SDC_LIB Rscript bench/sdcmicro/local_suppression.R "$file" "$sep" "$keys" "$k" "$i" "$LIMIT" \
        | sed "s/^{/{\"setting\":\"$name\",/" >> "$TMP/sdc.jsonl"
      python3 bench/sdcmicro/anonlab_side.py "$BIN" "$name" "$file" "$sep" "$keys" "$k" "$imp" \
        "$SDC_LIB" >> "$TMP/anonlab.jsonl"
    done
  done
done
python3 bench/sdcmicro/table.py "$TMP/sdc.jsonl" "$TMP/anonlab.jsonl"
