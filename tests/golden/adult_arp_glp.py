#!/usr/bin/env python3
"""GLP and reconstruction error of ARP, AIP and AT releases on UCI Adult,
computed independently of anonlab's metrics::glp (plain Python), for
tests/arp_properties.rs (adult_glp_golden).

anonlab only makes the releases (the partition is the algorithm's, seeded);
this script reads the published table (QI values and BID per row) and the
bucket table (value counts per BID) that `anonymize -o` writes, and the
original adult.csv, and derives the figures from the refining-partition
paper's definitions:

- S_t = the occupation values of the records of adult.csv with t's values
  on the 7 NSAs (sex, age, race, marital-status, education, native-country,
  workclass);
- NLP(t) = sum of c_s/|B| over the values s of t's bucket B not in S_t;
  GLP = mean NLP over the records;
- RE(t) = 1 - c_{t[SA]}/|B|; summed over a bucket's records it is
  |B| - sum_s c_s^2/|B|, so the total RE needs only the bucket table.

Run from the repository root after `cargo build`:
    python3 tests/golden/adult_arp_glp.py target/debug/anonlab > tests/golden/adult_arp_glp.json
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

ADULT = "../shared/data/adult/adult.csv"
NSA = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
SEED = 42


def read(path, delimiter):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter=delimiter))


def measure(binary, algorithm, l, src, seen, tmp):
    out = os.path.join(tmp, f"{algorithm}-{l}.csv")
    subprocess.run(
        [binary, "anonymize", ADULT, "--qi", ",".join(NSA), "--sensitive", "occupation",
         "-a", algorithm, "-l", str(l), "--seed", str(SEED), "--queries", "0", "-o", out],
        check=True, stdout=subprocess.DEVNULL)
    published = read(out, ",")
    buckets = defaultdict(Counter)
    for b in read(out[:-4] + ".buckets.csv", ","):
        buckets[b["BID"]][b["value"]] += int(b["count"])
    assert len(published) == len(src)
    nlp_sum, with_loss = 0.0, 0
    for row in published:
        key = tuple(row[a] for a in NSA)
        counts = buckets[row["BID"]]
        size = sum(counts.values())
        unseen = sum(c for s, c in counts.items() if s not in seen[key])
        nlp_sum += unseen / size
        with_loss += unseen > 0
    re = 0.0
    for counts in buckets.values():
        size = sum(counts.values())
        re += size - sum(c * c for c in counts.values()) / size
    return {"algorithm": algorithm, "l": l, "seed": SEED, "records": len(published),
            "glp": nlp_sum / len(published), "records_with_loss": with_loss,
            "reconstruction_error": re, "buckets": len(buckets)}


def main():
    binary = sys.argv[1]
    src = read(ADULT, ";")
    seen = defaultdict(set)
    for r in src:
        seen[tuple(r[a] for a in NSA)].add(r["occupation"])
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(binary, a, l, src, seen, tmp) for l in (2, 5) for a in ("arp", "aip", "at")]
    json.dump(rows, sys.stdout, indent=1)
    print()


main()
