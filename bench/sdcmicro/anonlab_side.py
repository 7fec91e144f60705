#!/usr/bin/env python3
"""anonlab's side of one local-suppression setting (bench/sdcmicro/run.sh):
runs `anonlab anonymize -a local-suppression` as a whole process, timed,
reads its JSON (suppressed cells per attribute, the verifier's checks) and
re-checks the published table (written with commas, rows by group) with sdcMicro's own freqCalc (alpha = 1), so
that k-anonymity is judged by the peer's definition too. One JSON line.

usage: anonlab_side.py BIN NAME FILE SEP KEYS K default|given SDC_LIB
"""
import json
import os
import subprocess
import sys
import tempfile
import time

binary, name, path, sep, keys, k, importance, sdc_lib = sys.argv[1:9]
keys_list = keys.split(",")
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "published.csv")
    cmd = [binary, "anonymize", path, "-a", "local-suppression", "-k", k, "--qi", keys,
           "--json", "-o", out]
    if importance == "given":
        cmd += ["--importance", keys]  # names, the most important first
    t0 = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if run.returncode != 0:
        print(json.dumps({"setting": name, "tool": "anonlab", "k": int(k), "importance": importance,
                          "seconds": seconds, "stopped": run.stderr.strip()[-300:]}))
        sys.exit(0)
    d = json.loads(run.stdout)
    ls = d["local_suppression"]
    checks = d["verification"]["checks"]
    verified = all(c["holds"] for c in checks)
    # The peer's check of the published table: '*' read as NA.
    r = subprocess.run(
        ["Rscript", "-e",
         "suppressPackageStartupMessages(library(sdcMicro));"
         f"d <- read.csv('{out}', sep=',', check.names=FALSE, colClasses='character',"
         " na.strings='*', strip.white=TRUE);"
         f"keys <- strsplit('{keys}', ',')[[1]]; x <- data.frame(lapply(d[, keys, drop=FALSE], factor));"
         "names(x) <- gsub('[^A-Za-z0-9_]', '_', keys);"
         f"f <- freqCalc(x, keyVars=names(x), alpha=1); cat(min(f$fk), sum(is.na(x)), '\\n')"],
        capture_output=True, text=True, env={**os.environ, "R_LIBS": sdc_lib})
    min_fk, na_cells = (int(v) for v in r.stdout.split()) if r.returncode == 0 else (None, None)
    print(json.dumps({
        "setting": name, "tool": "anonlab", "k": int(k), "importance": importance,
        "seconds": seconds,
        "suppressed": {c["attribute"]: c["cells"] for c in ls["suppressed_cells"]},
        "total": ls["total"], "method": ls.get("method"), "greedy_total": ls.get("greedy_total"),
        "convention": ls["convention"], "verified": verified,
        "k_anonymous_by_freqCalc": None if min_fk is None else min_fk >= int(k),
        "min_fk_by_freqCalc": min_fk, "na_cells_read_back": na_cells,
    }))
