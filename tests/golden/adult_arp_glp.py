#!/usr/bin/env python3
"""GLP and reconstruction error of bucketized releases of UCI Adult, each
release built and measured here in plain Python, without anonlab, for
tests/arp_properties.rs (adult_glp_golden), which builds the same releases
by the same rule and checks metrics::glp's figures against these.

The release (the refining-partition paper's setting: occupation sensitive,
7 NSAs sex, age, race, marital-status, education, native-country,
workclass published exactly, one bucket id per row) is Anatomy's
bucketization made deterministic:

- while at least l occupations have rows left, a bucket takes one row of
  each of the l occupations with the most rows left (ties: the smaller
  occupation name), the first such row in file order;
- each row left over joins the first bucket, in creation order, that does
  not hold its occupation (the first bucket if every one does).

Figures, from the paper's definitions:

- S_t = the occupation values of the records of adult.csv with t's values
  on the 7 NSAs;
- NLP(t) = sum of c_s/|B| over the values s of t's bucket B not in S_t;
  GLP = mean NLP over the records;
- RE(t) = 1 - c_{t[SA]}/|B|; summed over a bucket's records it is
  |B| - sum_s c_s^2/|B|.

Run from the repository root:
    python3 tests/golden/adult_arp_glp.py > tests/golden/adult_arp_glp.json
"""
import csv
import json
import sys
from collections import Counter, defaultdict, deque

ADULT = "../shared/data/adult/adult.csv"
NSA = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
SA = "occupation"


def read(path):
    with open(path, newline="") as f:
        return [{k.strip(): v.strip() for k, v in r.items()} for r in csv.DictReader(f, delimiter=";")]


def bucketize(values, l):
    """Bucket index per row."""
    rows = defaultdict(deque)
    for i, v in enumerate(values):
        rows[v].append(i)
    buckets = []
    while sum(1 for q in rows.values() if q) >= l:
        top = sorted((v for v in rows if rows[v]), key=lambda v: (-len(rows[v]), v))[:l]
        buckets.append([rows[v].popleft() for v in top])
    of = [None] * len(values)
    for b, members in enumerate(buckets):
        for i in members:
            of[i] = b
    held = [set(values[i] for i in members) for members in buckets]
    for i in sorted(i for q in rows.values() for i in q):
        b = next((b for b, h in enumerate(held) if values[i] not in h), 0)
        held[b].add(values[i])
        of[i] = b
    return of


def measure(src, seen, l):
    values = [r[SA] for r in src]
    of = bucketize(values, l)
    buckets = defaultdict(Counter)
    for i, b in enumerate(of):
        buckets[b][values[i]] += 1
    nlp_sum, with_loss = 0.0, 0
    for i, r in enumerate(src):
        counts = buckets[of[i]]
        size = sum(counts.values())
        key = tuple(r[a] for a in NSA)
        unseen = sum(c for s, c in counts.items() if s not in seen[key])
        nlp_sum += unseen / size
        with_loss += unseen > 0
    re = 0.0
    for counts in buckets.values():
        size = sum(counts.values())
        re += size - sum(c * c for c in counts.values()) / size
    return {"release": "anatomy-first-rows", "l": l, "records": len(src),
            "glp": nlp_sum / len(src), "records_with_loss": with_loss,
            "reconstruction_error": re, "buckets": len(buckets)}


def main():
    src = read(ADULT)
    seen = defaultdict(set)
    for r in src:
        seen[tuple(r[a] for a in NSA)].add(r[SA])
    json.dump([measure(src, seen, l) for l in (2, 5)], sys.stdout, indent=1)
    print()


main()
