#!/usr/bin/env python3
"""NG's ring handling on UCI Adult, built and measured here in plain Python,
without anonlab, for tests/ng.rs (adult_ng_golden), which builds the same
release with anonlab's `algorithms::ng::ring` and `publish_ring` and checks
the verifier, `metrics::glp` and the published cells against these.

The setting is the refining-partition paper's (occupation sensitive, the 7
NSAs sex, age, race, marital-status, education, native-country,
workclass) with one block, every record in file order (on Adult,
Algorithm 1 itself ends with one block for l >= 4 with these NSAs), and
the ring rule of src/algorithms/ng.rs written again from its description:

- records grouped by occupation, the most frequent first (the counts on
  Adult are all different, which the script checks, so no tie rule is
  needed), each group in file order;
- q = n // l segments of n // q or n // q + 1 positions (the longer
  first), filled column by column: position c of segment 0, 1, ..., then
  position c + 1;
- the record at position i publishes the covering cells of positions
  i .. i + l - 1 around the cycle: age as [min-max] (the value when one),
  a categorical NSA as the set of its values, `*` when the set is every
  value of the column; it is assigned to those l records.

Figures:

- the windows hold l distinct occupations (checked here too);
- GLP: record t's l tuples carry the occupations of their owners, each
  with probability 1/l; NLP(t) = (tuples whose occupation is not in S_t)/l,
  S_t the occupations of the records with t's NSA values; GLP = mean NLP;
- RE = sum over records of 1 - (t's tuples with t's occupation)/l;
- age_width: sum over tuples of (max - min) of the ages of the window;
- sex_star: tuples whose sex cell is `*` (both sexes in the window);
- set_cells: cells published as a set of two or more values (not `*`).

Run from the repository root:
    python3 tests/golden/adult_ng_ring.py > tests/golden/adult_ng_ring.json
"""
import csv
import json
import sys
from collections import Counter, defaultdict

ADULT = "../shared/data/adult/adult.csv"
NSA = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
SA = "occupation"


def read(path):
    with open(path, newline="") as f:
        return [{k.strip(): v.strip() for k, v in r.items()} for r in csv.DictReader(f, delimiter=";")]


def ring(values, l):
    n = len(values)
    count = Counter(values)
    assert len(set(count.values())) == len(count), "tied counts: the tie rule would matter"
    order = sorted(range(n), key=lambda i: (-count[values[i]], values[i], i))
    q = max(n // l, 1)
    length, longer = n // q, n % q
    start = [j * length + min(j, longer) for j in range(q)]
    seg = [length + (1 if j < longer else 0) for j in range(q)]
    cycle = [None] * n
    it = iter(order)
    for c in range(length + 1):
        for j in range(q):
            if c < seg[j]:
                cycle[start[j] + c] = next(it)
    return cycle


def measure(src, seen, domains, l):
    values = [r[SA] for r in src]
    cycle = ring(values, l)
    n = len(src)
    tuples_of = defaultdict(list)  # record -> occupations of its tuples
    age_width, sex_star, set_cells = 0, 0, 0
    for i in range(n):
        window = [cycle[(i + d) % n] for d in range(l)]
        assert len({values[w] for w in window}) == l
        owner = cycle[i]
        for w in window:
            tuples_of[w].append(values[owner])
        ages = [int(src[w]["age"]) for w in window]
        age_width += max(ages) - min(ages)
        for a in NSA:
            if a == "age":
                continue
            vals = {src[w][a] for w in window}
            if len(vals) == len(domains[a]):
                sex_star += a == "sex"
            elif len(vals) > 1:
                set_cells += 1
    nlp_sum, with_loss, re = 0.0, 0, 0.0
    for t in range(n):
        s_t = seen[tuple(src[t][a] for a in NSA)]
        occ = tuples_of[t]
        assert len(occ) == l
        unseen = sum(1 for s in occ if s not in s_t)
        nlp_sum += unseen / l
        with_loss += unseen > 0
        re += 1 - sum(1 for s in occ if s == values[t]) / l
    return {"release": "ng-one-block-file-order", "l": l, "records": n,
            "glp": nlp_sum / n, "records_with_loss": with_loss,
            "reconstruction_error": re, "age_width": age_width,
            "sex_star": sex_star, "set_cells": set_cells}


def main():
    src = read(ADULT)
    seen = defaultdict(set)
    domains = {a: {r[a] for r in src} for a in NSA}
    for r in src:
        seen[tuple(r[a] for a in NSA)].add(r[SA])
    json.dump([measure(src, seen, domains, l) for l in (2, 5)], sys.stdout, indent=1)
    print()


main()
